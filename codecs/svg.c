/* SPDX-License-Identifier: MIT */
#include "svg.h"

void svg_escaped(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			strbuf_printf(sb, "&amp;");
			break;
		case '<':
			strbuf_printf(sb, "&lt;");
			break;
		case '>':
			strbuf_printf(sb, "&gt;");
			break;
		case '"':
			strbuf_printf(sb, "&quot;");
			break;
		case '\'':
			strbuf_printf(sb, "&apos;");
			break;
		default:
			strbuf_char(sb, (unsigned char)*s < 0x20 && *s != '\t' ? '?' : *s);
		}
	}
}

double svg_floor(double v)
{
	double t = (double)(long long)v;
	return t > v ? t - 1 : t;
}

double svg_ceil(double v)
{
	double t = (double)(long long)v;
	return t < v ? t + 1 : t;
}

double svg_nice_step(double span, int *decimals)
{
	double p = 1;
	int d = 0;
	while (p * 10 <= span)
		p *= 10;
	while (p > span) {
		p /= 10;
		d++;
	}
	double m = span / p, step = m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10;
	if (step == 10) {
		step = 1;
		p *= 10;
		d = d ? d - 1 : 0;
	}
	*decimals = d;
	return step * p;
}

const char svg_style[] =
	"text{fill:#222}\n"
	".head{font-size:15px;font-weight:bold}\n"
	".section{font-size:13px;font-weight:bold}\n"
	".name{font-size:11px}\n"
	".tick,.unit{fill:#555;font-size:9px}\n"
	".note{fill:#777;font-style:italic}\n"
	".area{fill:#fff;stroke:#999}\n"
	".grid{stroke:#e6e6e6}\n"
	".curve{fill:none;stroke:#1864ab;stroke-width:1.5}\n"
	".key{fill:#d9480f}\n";

void svg_open(struct strbuf *sb, int width, int height, const char *title, const char *extra)
{
	strbuf_printf(sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		      "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
		      "font-size=\"10\">\n<title>", width, height, width, height);
	svg_escaped(sb, title);
	strbuf_printf(sb, "</title>\n<style>\n%s%s</style>\n"
		      "<rect width=\"%d\" height=\"%d\" fill=\"#fafafa\"/>\n"
		      "<text class=\"head\" x=\"%d\" y=\"22\">", svg_style, extra ? extra : "",
		      width, height, 10);
	svg_escaped(sb, title);
	strbuf_printf(sb, "</text>\n");
}
