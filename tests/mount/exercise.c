/* SPDX-License-Identifier: MIT */
#include "exercise.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rng.h"

char *read_fd(int fd, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1);
	while (buf) {
		if (n == cap) {
			char *p = realloc(buf, 2 * cap + 1);
			if (!p)
				break;
			buf = p;
			cap *= 2;
		}
		ssize_t got = pread(fd, buf + n, cap - n, (off_t)n);
		if (got < 0)
			break;
		if (got == 0) {
			buf[n] = '\0';
			*len = n;
			return buf;
		}
		n += (size_t)got;
	}
	int saved = errno;
	free(buf);
	errno = saved ? saved : ENOMEM;
	return NULL;
}

char *read_path(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	char *buf = read_fd(fd, len);
	int saved = errno;
	close(fd);
	errno = saved;
	return buf;
}

int pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;
	while (len) {
		ssize_t n = pwrite(fd, p, len, off);
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int write_path(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	int rc = write_all(fd, buf, len);
	int saved = errno;
	if (close(fd) && !rc) {
		saved = errno;
		rc = -1;
	}
	errno = saved;
	return rc;
}

/* A key line: four right-aligned integers in the printed widths. */
static bool key_line(const char *line, size_t n)
{
	static const int width[4] = {8, 8, 9, 10};
	size_t at = 0;
	if (n != 35)
		return false;
	for (int f = 0; f < 4; f++) {
		size_t end = at + (size_t)width[f];
		while (at < end && line[at] == ' ')
			at++;
		if (at < end && line[at] == '-')
			at++;
		if (at == end)
			return false;
		while (at < end && line[at] >= '0' && line[at] <= '9')
			at++;
		if (at != end)
			return false;
	}
	return true;
}

size_t rot_values(const char *text, size_t len, size_t *at, size_t max)
{
	size_t count = 0;
	bool rot = false;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
		if (!strncmp(text + i, "channel ", 8))
			rot = !strncmp(text + i + 8, "rot_", 4);
		else if (!strncmp(text + i, "track ", 6))
			rot = false;
		else if (rot && key_line(text + i, n)) {
			if (count < max)
				at[count] = i + KEY_VALUE_AT;
			count++;
		}
		i += n + 1;
	}
	return count;
}

void set_value(char *text, size_t at, int v)
{
	char field[KEY_VALUE_WIDTH + 1];
	snprintf(field, sizeof field, "%*d", KEY_VALUE_WIDTH, v);
	memcpy(text + at, field, KEY_VALUE_WIDTH);
}

/* A clip text as the mount prints one (a part of the sample's). */
static const char STANDIN_TEXT[] =
	"# stand-in for a clip text (--local)\n"
	"loop 1\n"
	"loop_start 9\n"
	"\n"
	"track 0                 # joint 31\n"
	"channel u2              # bit 0x002\n"
	"#  frame   value  ease_in  ease_out\n"
	"       0      16       20        15\n"
	"     495      16      -17        18\n"
	"channel rot_x\n"
	"       0   -6834      -19        -8\n"
	"channel rot_y\n"
	"       0    2859        3       -25\n"
	"      61    5330      -28        -9\n"
	"     127   -2537       28       -19\n"
	"channel rot_z\n"
	"       0    1977       13        11\n"
	"     495   -3241       24        26\n";

static int mkdirs(const char *dir)
{
	char path[256];
	snprintf(path, sizeof path, "%s", dir);
	for (char *p = path + 1;; p++) {
		if (*p == '/' || !*p) {
			char c = *p;
			*p = '\0';
			if (mkdir(path, 0755) && errno != EEXIST)
				return -1;
			if (!c)
				return 0;
			*p = c;
		}
	}
}

static int standin_raw(const char *path, size_t len, uint64_t seed)
{
	struct rng r;
	uint8_t *buf = malloc(len);
	if (!buf)
		return -1;
	rng_init(&r, seed, 0);
	rng_bytes(&r, buf, len);
	int rc = write_path(path, buf, len);
	free(buf);
	return rc;
}

int make_standins(void)
{
	if (mkdirs(VIEW_DIR) ||
	    write_path(VIEW_TEXT, STANDIN_TEXT, sizeof STANDIN_TEXT - 1) ||
	    standin_raw(VIEW_RAW, 590, 43) || standin_raw(VIEW_RAW_FSX, 1245, 17))
		return -1;
	return 0;
}
