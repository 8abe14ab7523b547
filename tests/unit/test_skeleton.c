/* SPDX-License-Identifier: MIT */
/* Tests of codecs/skeleton (mhfu-archive(5) "SKELETON") and its text
 * form skeleton.txt.
 *
 * Skeletons are written byte by byte here (a local writer with its own
 * offsets, not skeleton_encode), then decoded, re-encoded and compared;
 * printed, parsed and re-encoded and compared again.  Malformed input
 * expects the exact error code and byte offset or line:col.  Random tests
 * seed their own generator. */
#include "faults.h"
#include "skeleton.h"
#include "rng.h"
#include "testlib.h"

/* ---- float bits ------------------------------------------------------- */

static uint32_t fbits(float v)
{
	uint32_t b;
	memcpy(&b, &v, 4);
	return b;
}

static float bitsf(uint32_t b)
{
	float v;
	memcpy(&v, &b, 4);
	return v;
}

/* ---- a hand-written skeleton ------------------------------------------- */

#define MHFU_SEC 0x10Cu
#define P3_SEC 0x5Cu

struct hbone {
	uint32_t tag, count;
	int32_t parent, child, sibling;
	uint32_t scale[4], rot[4], pos[4]; /* bits */
	int32_t link;
	uint32_t part;
	uint8_t rest[MHFU_SEC - 0x54];
};

struct hskel {
	bool p3;
	uint32_t nparams, params[3], pcount, nbones;
	bool size_wrong;
	uint32_t size_word;
	struct hbone bones[64];
	size_t tail_len;
	uint8_t tail[256];
};

static void hbone_default(struct hbone *b)
{
	memset(b, 0, sizeof *b);
	b->tag = 0x40000001;
	b->count = 1;
	b->parent = b->child = b->sibling = b->link = -1;
	for (int k = 0; k < 3; k++)
		b->scale[k] = 0x3f800000;
	b->scale[3] = b->rot[3] = b->pos[3] = 0x3f800000;
}

static size_t hsize(const struct hskel *h)
{
	return 0x18 + 4 * h->nparams + h->nbones * (h->p3 ? P3_SEC : MHFU_SEC);
}

/* The skeleton's bytes, written from the offsets in the spec. */
static uint8_t *hwrite(const struct hskel *h, size_t *len)
{
	size_t end = hsize(h), sec = h->p3 ? P3_SEC : MHFU_SEC;
	*len = end + h->tail_len;
	uint8_t *b = calloc(1, *len);
	assert_non_null(b);
	store_le32(b, h->p3 ? 0x80000000 : 0xC0000000);
	store_le32(b + 4, h->nbones + 1);
	store_le32(b + 8, h->size_wrong ? h->size_word : (uint32_t)end);
	store_le32(b + 0x0c, 0);
	store_le32(b + 0x10, h->pcount);
	store_le32(b + 0x14, 12 + 4 * h->nparams);
	for (uint32_t k = 0; k < h->nparams; k++)
		store_le32(b + 0x18 + 4 * k, h->params[k]);
	for (uint32_t i = 0; i < h->nbones; i++) {
		uint8_t *p = b + 0x18 + 4 * h->nparams + i * sec;
		const struct hbone *o = &h->bones[i];
		store_le32(p, o->tag);
		store_le32(p + 4, o->count);
		store_le32(p + 8, (uint32_t)sec);
		store_le32(p + 0x0c, i);
		store_le32(p + 0x10, (uint32_t)o->parent);
		store_le32(p + 0x14, (uint32_t)o->child);
		store_le32(p + 0x18, (uint32_t)o->sibling);
		for (int k = 0; k < 4; k++) {
			store_le32(p + 0x1c + 4 * k, o->scale[k]);
			store_le32(p + 0x2c + 4 * k, o->rot[k]);
			store_le32(p + 0x3c + 4 * k, o->pos[k]);
		}
		store_le32(p + 0x4c, (uint32_t)o->link);
		store_le32(p + 0x50, o->part);
		memcpy(p + 0x54, o->rest, sec - 0x54);
	}
	memcpy(b + end, h->tail, h->tail_len);
	return b;
}

/* MHFU Tigrex (mhfu-archive(5)): 48 bones, params {0, 45}, parts
 * [0]*31 + [1]*9 + [2]*5 + [3]*3, roots 0 and 45; part 0 the body
 * (spine 0-1-2-3, then four legs and the neck off 3), part 1 the head
 * hanging off 30, part 2 the tail off 2, part 3 the severed tail.  Bind
 * pose pure translation, every w 1. */
static void tigrex(struct hskel *h)
{
	memset(h, 0, sizeof *h);
	h->nparams = 2;
	h->params[1] = 45;
	h->pcount = 2;
	h->nbones = 48;
	static const int parent[48] = {
		-1, 0, 1, 2,                              /* spine */
		3, 4, 5, 6, 7, 8, 3, 10, 11, 12, 13, 14,  /* front legs */
		2, 16, 17, 18, 19, 2, 21, 22, 23, 24,     /* hind legs */
		3, 26, 27, 28, 29,                        /* neck, to 30 */
		30, 31, 32, 33, 32, 35, 32, 37, 38,       /* head (part 1) */
		2, 40, 41, 42, 43,                        /* tail (part 2) */
		-1, 45, 46,                               /* severed tail */
	};
	for (uint32_t i = 0; i < 48; i++) {
		struct hbone *b = &h->bones[i];
		hbone_default(b);
		b->parent = parent[i];
		b->part = i < 31 ? 0 : i < 40 ? 1 : i < 45 ? 2 : 3;
		b->pos[0] = fbits(i % 3 ? (float)i * 1.5f : -(float)i);
		b->pos[1] = fbits(i == 2 ? 512.25f : 0.0f);
		b->pos[2] = fbits((float)(i % 7) * -0.125f);
	}
	/* first child, next sibling in bone order; roots not chained */
	for (int i = 47; i >= 0; i--) {
		int p = parent[i];
		if (p >= 0) {
			h->bones[i].sibling = h->bones[p].child;
			h->bones[p].child = i;
		}
	}
}

/* An MHP3rd skeleton with names, leftovers after them and the rarities
 * the model carries: params_count 2 for 3 values, a w of 0.5, a section
 * count of 2, a tail. */
static void p3rd(struct hskel *h)
{
	memset(h, 0, sizeof *h);
	h->p3 = true;
	h->nparams = 3;
	h->params[0] = 7;
	h->params[1] = 0xffffffff;
	h->params[2] = 3;
	h->pcount = 2;
	h->nbones = 6;
	static const char *const names[6] = {
		"root\0\0\0\0", "spine01\0", "HeadBone", "\0\x01\x02\0\0\0\0\xff",
		"a b#\\\0zz", "-\0\0\0\0\0\0\0",
	};
	for (uint32_t i = 0; i < 6; i++) {
		struct hbone *b = &h->bones[i];
		hbone_default(b);
		b->parent = (int32_t)i - 1;
		b->child = i < 5 ? (int32_t)i + 1 : -1;
		b->tag = 0x40000001 + i % 3;
		b->link = i % 3 == 1 ? (int32_t)i - 1 : -1;
		b->pos[1] = fbits(10.0f * (float)i);
		memcpy(b->rest, names[i], 8);
	}
	h->bones[2].scale[3] = fbits(0.5f);
	h->bones[4].count = 2;
	h->bones[5].rot[0] = 0x80000000; /* -0.0 */
	h->bones[5].rot[1] = 0x7fc00001; /* a NaN with a payload */
	h->tail_len = 12;
	memcpy(h->tail, "\0\0\0\0tail\x01\0\0\x02", 12);
}

/* ---- checks ------------------------------------------------------------ */

static void decode_ok(const uint8_t *buf, size_t len, struct skeleton *s)
{
	struct mh_diag d = {0};
	enum mh_err err = skeleton_decode(buf, len, s, &d);
	if (err)
		fail_msg("skeleton_decode: %s at %llu: %s", mh_strerror(err),
			 (unsigned long long)d.offset, d.msg);
}

static void parse_ok(const char *text, size_t len, struct skeleton *s)
{
	struct mh_diag d = {0};
	enum mh_err err = skeleton_parse(text, len, s, &d);
	if (err)
		fail_msg("skeleton_parse: %s at %u:%u: %s\n%.*s", mh_strerror(err),
			 d.line, d.col, d.msg, (int)len, text);
}

static uint8_t *encode_ok(const struct skeleton *s, size_t *len)
{
	uint8_t *out;
	struct mh_diag d = {0};
	enum mh_err err = skeleton_encode(s, &out, len, &d);
	if (err)
		fail_msg("skeleton_encode: %s: %s", mh_strerror(err), d.msg);
	return out;
}

static char *print_ok(const struct skeleton *s, const char *comment, size_t *len)
{
	char *t = skeleton_print(s, comment, len);
	assert_non_null(t);
	assert_int_equal(strlen(t), *len);
	return t;
}

/* decode -> encode and print -> parse -> encode reproduce buf, and
 * print -> parse -> print is stable.  Returns the printed text. */
static char *roundtrip(const uint8_t *buf, size_t len)
{
	struct skeleton s, back;
	size_t n, tlen, tlen2;
	decode_ok(buf, len, &s);
	uint8_t *out = encode_ok(&s, &n);
	assert_int_equal(n, len);
	assert_memory_equal(out, buf, len);
	free(out);

	char *text = print_ok(&s, "a test", &tlen);
	parse_ok(text, tlen, &back);
	out = encode_ok(&back, &n);
	if (n != len || memcmp(out, buf, len))
		fail_msg("print -> parse -> encode differs; text:\n%s", text);
	free(out);
	char *text2 = print_ok(&back, "a test", &tlen2);
	assert_string_equal(text, text2);
	free(text2);
	int sniff = skeleton_sniff(buf, len < SKELETON_HEAD_MAX ? len : SKELETON_HEAD_MAX, len);
	assert_int_equal(sniff, s.size_fixed ? 60 : 100);
	skeleton_free(&s);
	skeleton_free(&back);
	return text;
}

/* The line of text that starts with `prefix`, or fail. */
static const char *line_with(const char *text, const char *prefix)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l)
		if (!strncmp(l, prefix, strlen(prefix)))
			return l;
	fail_msg("no line starting \"%s\" in:\n%s", prefix, text);
	return NULL;
}

/* A copy of bone i's table row (valid until the next call). */
static const char *row(const char *text, uint32_t i)
{
	static char buf[512];
	char prefix[16];
	snprintf(prefix, sizeof prefix, "  %4u ", i);
	const char *l = line_with(text, prefix);
	size_t n = strcspn(l, "\n");
	assert_true(n < sizeof buf);
	memcpy(buf, l, n);
	buf[n] = '\0';
	return buf;
}

/* Word k (0-based) of a line (valid until the next call). */
static const char *field(const char *line, int k)
{
	static char buf[128];
	const char *p = line;
	for (int i = 0;; i++) {
		p += strspn(p, " ");
		size_t n = strcspn(p, " \n");
		assert_true(n > 0 && n < sizeof buf);
		if (i == k) {
			memcpy(buf, p, n);
			buf[n] = '\0';
			return buf;
		}
		p += n;
	}
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l)
		if (!strncmp(l, line, n) && (l[n] == '\n' || l[n] == '\0'))
			return true;
	return false;
}

static void assert_models_equal(const struct skeleton *a, const struct skeleton *b);

/* ---- the two games' skeletons ------------------------------------------ */

static void test_tigrex_roundtrips_byte_exactly(void **state)
{
	(void)state;
	struct hskel h;
	tigrex(&h);
	size_t len;
	uint8_t *buf = hwrite(&h, &len);
	assert_int_equal(len, 0x18 + 8 + 48 * 0x10C);
	assert_int_equal(load_le32(buf + 8), len);

	struct skeleton s;
	decode_ok(buf, len, &s);
	assert_int_equal(s.game, SKELETON_MHFU);
	assert_int_equal(s.nbones, 48);
	assert_int_equal(s.nparams, 2);
	assert_int_equal(s.params[0], 0);
	assert_int_equal(s.params[1], 45);
	assert_int_equal(s.params_count, 2);
	assert_false(s.size_fixed);
	assert_int_equal(s.tail_len, 0);
	assert_int_equal(skeleton_size(&s), len);
	for (uint32_t i = 0; i < 48; i++) {
		const struct skeleton_bone *b = &s.bones[i];
		assert_int_equal(b->kind, 1);
		assert_int_equal(b->count, 1);
		assert_int_equal(b->parent, h.bones[i].parent);
		assert_int_equal(b->child, h.bones[i].child);
		assert_int_equal(b->sibling, h.bones[i].sibling);
		assert_int_equal(b->part, h.bones[i].part);
		assert_int_equal(fbits(b->position[0]), h.bones[i].pos[0]);
		assert_int_equal(fbits(b->position[3]), 0x3f800000);
		assert_true(b->scale[0] == 1.0f && b->rotation[2] == 0.0f);
	}
	assert_int_equal(s.bones[0].parent, -1);
	assert_int_equal(s.bones[45].parent, -1);
	assert_int_equal(s.bones[3].child, 4);
	assert_int_equal(s.bones[4].sibling, 10);
	/* skeleton_link rebuilds the same child and sibling links. */
	for (uint32_t i = 0; i < 48; i++)
		s.bones[i].child = s.bones[i].sibling = 7;
	skeleton_link(&s, false);
	size_t n;
	uint8_t *out = encode_ok(&s, &n);
	assert_int_equal(n, len);
	assert_memory_equal(out, buf, len);
	free(out);
	skeleton_free(&s);

	char *text = roundtrip(buf, len);
	assert_true(has_line(text, "skeleton mhfu"));
	assert_true(has_line(text, "params 0 45"));
	assert_null(strstr(text, "\nw "));
	assert_null(strstr(text, "\nextra "));
	assert_null(strstr(text, "\ntail"));
	assert_null(strstr(text, "params_count"));
	free(text);
	free(buf);
}

static void test_p3rd_with_names_and_leftovers_roundtrips(void **state)
{
	(void)state;
	struct hskel h;
	p3rd(&h);
	size_t len;
	uint8_t *buf = hwrite(&h, &len);
	struct skeleton s;
	decode_ok(buf, len, &s);
	assert_int_equal(s.game, SKELETON_MHP3RD);
	assert_int_equal(s.nbones, 6);
	assert_int_equal(s.nparams, 3);
	assert_int_equal(s.params_count, 2);
	assert_int_equal(s.params[1], 0xffffffff);
	assert_int_equal(s.tail_len, 12);
	assert_memory_equal(s.tail, h.tail, 12);
	assert_int_equal(s.bones[2].kind, 3);
	assert_int_equal(s.bones[4].count, 2);
	assert_int_equal(fbits(s.bones[2].scale[3]), fbits(0.5f));
	assert_memory_equal(s.bones[1].rest, "spine01", 8);
	for (uint32_t k = 8; k < SKELETON_REST_MAX; k++)
		assert_int_equal(s.bones[3].rest[k], 0);
	skeleton_free(&s);

	char *text = roundtrip(buf, len);
	assert_true(has_line(text, "skeleton mhp3rd"));
	assert_true(has_line(text, "params 7 4294967295 3"));
	assert_non_null(strstr(line_with(text, "params_count 2"), "3 values"));
	assert_true(has_line(text, "w 2 0.5 1 1"));
	assert_true(has_line(text, "section_count 4 2"));
	/* leftovers: bone 3's empty name then 01 02 .. ff; bone 4's "zz" */
	assert_true(has_line(text, "extra 3 0x55 010200 000000ff"));
	assert_true(has_line(text, "extra 4 0x5a 7a7a"));
	/* names: escaped blanks, '#', '\' and a lone "-" */
	assert_true(ends_with(row(text, 0), " root"));
	assert_true(ends_with(row(text, 1), " spine01"));
	assert_true(ends_with(row(text, 2), " HeadBone"));
	assert_true(ends_with(row(text, 3), " -"));
	assert_true(ends_with(row(text, 4), " a\\x20b\\x23\\x5c"));
	assert_true(ends_with(row(text, 5), " \\x2d"));
	assert_true(has_line(text, "tail 00000000 7461696c 01000002"));
	free(text);
	free(buf);
}

static void test_builder_makes_the_tigrex_without_the_layout(void **state)
{
	(void)state;
	struct hskel h;
	tigrex(&h);
	size_t len, n;
	uint8_t *want = hwrite(&h, &len);

	struct skeleton s;
	struct mh_diag d = {0};
	assert_int_equal(skeleton_init(&s, SKELETON_MHFU, 48, &d), MH_OK);
	skeleton_set_params(&s, 2, (const uint32_t[]){0, 45});
	for (uint32_t i = 0; i < 48; i++) {
		s.bones[i].parent = h.bones[i].parent;
		s.bones[i].part = h.bones[i].part;
		for (int k = 0; k < 3; k++)
			s.bones[i].position[k] = bitsf(h.bones[i].pos[k]);
	}
	skeleton_link(&s, false);
	uint8_t *out = encode_ok(&s, &n);
	assert_int_equal(n, len);
	assert_memory_equal(out, want, len);
	free(out);

	/* chain_roots: root 0's sibling is the next root, 45 */
	skeleton_link(&s, true);
	assert_int_equal(s.bones[0].sibling, 45);
	assert_int_equal(s.bones[45].sibling, -1);
	skeleton_free(&s);
	free(want);

	assert_int_equal(skeleton_init(&s, SKELETON_MHP3RD, 0, &d), MH_OK);
	out = encode_ok(&s, &n);
	assert_int_equal(n, 0x1c);
	assert_int_equal(load_le32(out), 0x80000000);
	assert_int_equal(load_le32(out + 4), 1);
	free(out);
	skeleton_free(&s);
	assert_int_equal(skeleton_init(&s, SKELETON_MHFU, SKELETON_MAX_BONES + 1, &d),
			 MH_ERANGE);
	assert_null(s.bones);
}

/* The exact text of a small skeleton: the format's reference example. */
static void test_print_three_bones_exactly(void **state)
{
	(void)state;
	struct skeleton s;
	assert_int_equal(skeleton_init(&s, SKELETON_MHFU, 3, NULL), MH_OK);
	skeleton_set_params(&s, 2, (const uint32_t[]){0, 3});
	s.bones[1].parent = 0;
	s.bones[2].parent = 0;
	s.bones[2].kind = 2;
	s.bones[2].link = 1;
	s.bones[2].part = 1;
	s.bones[1].position[1] = 120.5f;
	s.bones[2].position[0] = -33.25f;
	s.bones[2].position[2] = 0.1f;
	skeleton_link(&s, false);
	size_t len;
	char *text = print_ok(&s, "file_06185 entry 0", &len);
	const char *want =
	    "# file_06185 entry 0\n"
	    "# skeleton.txt: one row per bone, in index order (mhfu-clip(5)).\n"
	    "# kind 1..3; parent, child, sibling, link: bone indices, -1 for none;\n"
	    "# scale, rot (Euler) and pos (offset from the parent): the bind pose's\n"
	    "# x y z floats as stored (0xXXXXXXXX gives exact bits); part: the MHFU\n"
	    "# animation part (0 on MHP3rd); name: MHP3rd only, - for none, \\xHH a byte.\n"
	    "# Lines after the table (w, section_count, extra, tail) keep what the\n"
	    "# table does not say, so the skeleton re-encodes byte for byte.\n"
	    "skeleton mhfu\n"
	    "params 0 3\n"
	    "# bone kind parent child sibling  scale_x scale_y scale_z  rot_x rot_y rot_z   pos_x pos_y pos_z  link part name\n"
	    "     0    1     -1     1      -1        1       1       1      0     0     0       0     0     0    -1    0 -\n"
	    "     1    1      0    -1       2        1       1       1      0     0     0       0 120.5     0    -1    0 -\n"
	    "     2    2      0    -1      -1        1       1       1      0     0     0  -33.25     0   0.1     1    1 -\n";
	assert_string_equal(text, want);
	free(text);
	skeleton_free(&s);
}

/* Whole numbers print as such (%g's shortest form of 10 is "1e+01"). */
static void test_print_whole_numbers_without_exponent(void **state)
{
	(void)state;
	static const float V[] = {10, 120, 1500, -20000, 9999999, 1e7f, 1e-5f,
				  0.0001f, 16777216, 3e38f};
	static const char *const WANT[] = {"10", "120", "1500", "-20000",
					   "9999999", "1e+07", "1e-05", "0.0001",
					   "16777216", "3e+38"};
	struct skeleton s, back;
	assert_int_equal(skeleton_init(&s, SKELETON_MHFU, 10, NULL), MH_OK);
	for (uint32_t i = 0; i < 10; i++)
		s.bones[i].position[1] = V[i];
	size_t len;
	char *text = print_ok(&s, NULL, &len);
	for (uint32_t i = 0; i < 10; i++)
		assert_string_equal(field(row(text, i), 12), WANT[i]);
	parse_ok(text, len, &back);
	assert_models_equal(&s, &back);
	free(text);
	skeleton_free(&s);
	skeleton_free(&back);
}

static void test_everything_unexplained_is_carried(void **state)
{
	(void)state;
	struct hskel h;
	tigrex(&h);
	h.nbones = 4;
	h.bones[3].child = -1;
	h.pcount = 9;
	h.size_wrong = true;
	h.size_word = 0x1234;
	h.bones[0].rest[0] = 0xab;                  /* at 0x54 */
	h.bones[1].rest[0x10B - 0x54] = 0x01;       /* the last byte, 0x10b */
	h.bones[1].rest[0x61 - 0x54] = 0x80;
	for (int k = 0; k < 40; k++)                /* more than one line */
		h.bones[2].rest[0x70 - 0x54 + k] = (uint8_t)(k + 1);
	h.bones[0].scale[3] = 0x7fc00000;           /* NaN */
	h.bones[0].rot[3] = 0x80000000;             /* -0 */
	h.bones[0].pos[3] = 0;
	h.bones[3].pos[0] = 0xff800000;             /* -inf */
	h.bones[3].pos[1] = 0x00000001;             /* the least denormal */
	h.bones[1].count = 0;
	h.bones[2].count = 0xffffffff;
	h.bones[3].tag = 0x40000003;
	h.bones[3].link = 0x7fffffff;
	h.bones[3].part = 0xffffffff;
	h.tail_len = 3 + 40 + 2 + 40;               /* hex, a zero run, hex, zeros */
	memset(h.tail, 0, sizeof h.tail);
	h.tail[0] = 1;
	h.tail[2] = 2;
	h.tail[43] = 3;
	size_t len;
	uint8_t *buf = hwrite(&h, &len);
	struct skeleton s;
	decode_ok(buf, len, &s);
	assert_true(s.size_fixed);
	assert_int_equal(s.size_word, 0x1234);
	assert_int_equal(s.params_count, 9);
	skeleton_free(&s);

	char *text = roundtrip(buf, len);
	assert_non_null(strstr(line_with(text, "size 4660"), "without this line: 1104"));
	assert_true(has_line(text, "params 0 45"));
	assert_non_null(strstr(line_with(text, "params_count 9"), "2 values"));
	assert_true(has_line(text, "w 0 0x7fc00000 -0 0"));
	assert_true(has_line(text, "extra 0 0x54 ab"));
	assert_true(has_line(text, "extra 1 0x61 800000 00000000 00000000 00000000 "
			     "00000000 00000000 00000000 00000000"));
	assert_true(has_line(text, "extra 1 0x80 00000000 00000000 00000000 00000000 "
			     "00000000 00000000 00000000 00000000"));
	assert_true(has_line(text, "extra 1 0x100 00000000 00000000 00000001"));
	assert_true(has_line(text, "extra 2 0x70 01020304 05060708 090a0b0c 0d0e0f10 "
			     "11121314 15161718 191a1b1c 1d1e1f20"));
	assert_true(has_line(text, "extra 2 0x90 21222324 25262728"));
	assert_true(has_line(text, "section_count 1 0"));
	assert_true(has_line(text, "section_count 2 4294967295"));
	assert_true(has_line(text, "tail 010002"));
	assert_true(has_line(text, "tail zeros 40"));
	assert_non_null(strstr(text, "\ntail 010002\ntail zeros 40\ntail 03\n"
			       "tail zeros 41\n"));
	assert_string_equal(field(row(text, 3), 11), "0xff800000");
	assert_string_equal(field(row(text, 3), 12), "1e-45");
	assert_string_equal(field(row(text, 3), 14), "2147483647");
	assert_string_equal(field(row(text, 3), 15), "4294967295");
	assert_string_equal(field(row(text, 3), 16), "-");
	free(text);
	free(buf);
}

static void test_every_prefix_fails_or_shortens_the_tail(void **state)
{
	(void)state;
	struct hskel h;
	p3rd(&h);
	size_t len;
	uint8_t *buf = hwrite(&h, &len);
	size_t end = hsize(&h);
	for (size_t n = 0; n <= len; n++) {
		uint8_t *cut = malloc(n ? n : 1); /* exact size: ASan sees overreads */
		memcpy(cut, buf, n);
		struct skeleton s;
		struct mh_diag d = {0};
		enum mh_err err = skeleton_decode(cut, n, &s, &d);
		if (n < end) {
			assert_int_equal(err, MH_ETRUNC);
			assert_true(d.offset <= n);
			assert_null(s.bones);
		} else {
			assert_int_equal(err, MH_OK);
			assert_int_equal(s.tail_len, n - end);
			skeleton_free(&s);
			free(roundtrip(cut, n));
		}
		free(cut);
	}
	free(buf);
}

/* ---- malformed bytes ---------------------------------------------------- */

static void expect_decode_error(const uint8_t *buf, size_t len, enum mh_err code,
				uint64_t offset, const char *words)
{
	struct skeleton s;
	struct mh_diag d = {0};
	memset(&s, 0xa5, sizeof s);
	uint8_t *copy = malloc(len ? len : 1);
	memcpy(copy, buf, len);
	enum mh_err err = skeleton_decode(copy, len, &s, &d);
	assert_diag(&d, err, code, offset);
	assert_diag_says(&d, words);
	assert_null(s.bones);
	assert_null(s.tail);
	assert_int_equal(s.nbones, 0);
	assert_int_equal(skeleton_decode(copy, len, &s, NULL), code);
	/* sniff sees the header and the first bone only */
	if (offset < 0x18 + 12 + 0x10)
		assert_int_equal(skeleton_sniff(copy, len, len), 0);
	free(copy);
}

static void test_decode_rejects_short_or_foreign_input(void **state)
{
	(void)state;
	struct hskel h;
	tigrex(&h);
	size_t len;
	uint8_t *buf = hwrite(&h, &len);
	expect_decode_error(buf, 0, MH_ETRUNC, 0, "magic");
	expect_decode_error(buf, 3, MH_ETRUNC, 3, "magic");
	expect_decode_error(buf, 0x10, MH_ETRUNC, 0x10, "header");
	expect_decode_error(buf, 0x1c, MH_ETRUNC, 0x1c, "params");
	expect_decode_error(buf, 0x20, MH_ETRUNC, 0x20, "bone 0 of 48");
	store_le32(buf, 0x40000000);
	expect_decode_error(buf, len, MH_EUNKNOWN, 0, "magic 0x40000000");
	store_le32(buf, 0xC0000001);
	expect_decode_error(buf, len, MH_EUNKNOWN, 0, "magic");
	free(buf);
}

static void test_decode_rejects_bad_header_words(void **state)
{
	(void)state;
	struct hskel h;
	tigrex(&h);
	size_t len;
	uint8_t *buf = hwrite(&h, &len);
	store_le32(buf + 4, 0);
	expect_decode_error(buf, len, MH_ECORRUPT, 4, "section count 0");
	store_le32(buf + 4, SKELETON_MAX_BONES + 2);
	expect_decode_error(buf, len, MH_ECORRUPT, 4, "4098");
	store_le32(buf + 4, 0xffffffff);
	expect_decode_error(buf, len, MH_ECORRUPT, 4, NULL);
	store_le32(buf + 4, 49);
	store_le32(buf + 0x0c, 1);
	expect_decode_error(buf, len, MH_ECORRUPT, 0x0c, "tag");
	store_le32(buf + 0x0c, 0);
	static const uint32_t bad_psize[] = {0, 12, 18, 28, 0x80000010};
	for (size_t k = 0; k < 5; k++) {
		store_le32(buf + 0x14, bad_psize[k]);
		expect_decode_error(buf, len, MH_ECORRUPT, 0x14, "params section size");
	}
	/* 3 values would move the first bone 4 bytes: its tag is then wrong */
	store_le32(buf + 0x14, 24);
	expect_decode_error(buf, len, MH_ETRUNC, 0x24 + 47 * 0x10C, "bone 47 of 48");
	free(buf);
}

/* A bone count the buffer cannot hold fails before anything is allocated
 * (checked under allocation faults: no allocation may happen at all). */
static void test_decode_checks_the_bone_count_before_allocating(void **state)
{
	(void)state;
	uint8_t buf[0x20 + 0x5C] = {0};
	store_le32(buf, 0x80000000);
	store_le32(buf + 4, SKELETON_MAX_BONES + 1);
	store_le32(buf + 0x14, 16);
	struct skeleton s;
	struct mh_diag d = {0};
	faults_arm(0);
	enum mh_err err = skeleton_decode(buf, 0x40, &s, &d);
	assert_false(faults_disarm()); /* no allocation was even tried */
	assert_diag(&d, err, MH_ETRUNC, 0x1c);
	assert_diag_says(&d, "bone 0 of 4096");
	store_le32(buf + 4, 3);
	expect_decode_error(buf, sizeof buf, MH_ETRUNC, 0x1c + 0x5C, "bone 1 of 2");
}

static void test_decode_rejects_bad_bone_words_naming_the_bone(void **state)
{
	(void)state;
	struct hskel h;
	p3rd(&h);
	size_t len;
	uint8_t *buf = hwrite(&h, &len);
	size_t b3 = 0x18 + 12 + 3 * P3_SEC;
	static const uint32_t bad_tags[] = {0x40000000, 0x40000004, 0x00000001,
					    0xc0000001, 0x4000000f};
	for (size_t k = 0; k < 5; k++) {
		store_le32(buf + b3, bad_tags[k]);
		expect_decode_error(buf, len, MH_ECORRUPT, b3, "bone 3: section tag");
	}
	store_le32(buf + b3, 0x40000002);
	store_le32(buf + b3 + 8, 0x10C); /* an MHFU section in an MHP3rd skeleton */
	expect_decode_error(buf, len, MH_ECORRUPT, b3 + 8, "bone 3: section size 0x10c");
	store_le32(buf + b3 + 8, 0x5C);
	store_le32(buf + b3 + 0x0c, 4);
	expect_decode_error(buf, len, MH_ECORRUPT, b3 + 0x0c, "bone 3: index field says 4");
	store_le32(buf + b3 + 0x0c, 0xffffffff);
	expect_decode_error(buf, len, MH_ECORRUPT, b3 + 0x0c, "says -1");
	free(buf);
}

static void test_decode_bounds_the_tail(void **state)
{
	(void)state;
	size_t len = 0x1c + SKELETON_MAX_TAIL + 1;
	uint8_t *buf = calloc(1, len);
	assert_non_null(buf);
	store_le32(buf, 0xC0000000);
	store_le32(buf + 4, 1);
	store_le32(buf + 8, 0x1c);
	store_le32(buf + 0x14, 16);
	struct skeleton s;
	struct mh_diag d = {0};
	assert_diag(&d, skeleton_decode(buf, len, &s, &d), MH_ERANGE, 0x1c);
	assert_int_equal(skeleton_decode(buf, len - 1, &s, &d), MH_OK);
	assert_int_equal(s.tail_len, SKELETON_MAX_TAIL);
	skeleton_free(&s);
	free(buf);
}

static void test_encode_rejects_models_it_cannot_write(void **state)
{
	(void)state;
	struct skeleton s;
	uint8_t *out = (uint8_t *)"x";
	size_t len = 7;
	struct mh_diag d = {0};
	assert_int_equal(skeleton_init(&s, SKELETON_MHFU, 2, &d), MH_OK);
	s.bones[1].kind = 4;
	assert_diag(&d, skeleton_encode(&s, &out, &len, &d), MH_ERANGE, 0);
	assert_diag_says(&d, "bone 1: kind 4");
	assert_null(out);
	assert_int_equal(len, 0);
	s.bones[1].kind = 0;
	assert_int_equal(skeleton_encode(&s, &out, &len, NULL), MH_ERANGE);
	s.bones[1].kind = 3;
	s.nparams = 0;
	assert_int_equal(skeleton_encode(&s, &out, &len, &d), MH_ERANGE);
	s.nparams = 4;
	assert_int_equal(skeleton_encode(&s, &out, &len, &d), MH_ERANGE);
	s.nparams = 3;
	s.game = (enum skeleton_game)2;
	assert_int_equal(skeleton_encode(&s, &out, &len, &d), MH_ERANGE);
	s.game = SKELETON_MHP3RD;
	s.nbones = SKELETON_MAX_BONES + 1;
	assert_int_equal(skeleton_encode(&s, &out, &len, &d), MH_ERANGE);
	s.nbones = 2;
	s.tail_len = 5;
	assert_int_equal(skeleton_encode(&s, &out, &len, &d), MH_ERANGE);
	s.tail_len = 0;
	out = encode_ok(&s, &len);
	assert_int_equal(len, 0x24 + 2 * 0x5C);
	free(out);
	skeleton_free(&s);
}

static void test_free_accepts_null_and_zeroed(void **state)
{
	(void)state;
	struct skeleton s = {0};
	skeleton_free(NULL);
	skeleton_free(&s);
	skeleton_free(&s);
}

/* ---- malformed text ----------------------------------------------------- */

static void expect_parse_error(const char *text, enum mh_err code,
			       unsigned line, unsigned col, const char *words)
{
	struct skeleton s;
	struct mh_diag d = {0};
	size_t len = strlen(text);
	char *copy = malloc(len ? len : 1); /* unterminated, exact size */
	memcpy(copy, text, len);
	memset(&s, 0xa5, sizeof s);
	enum mh_err err = skeleton_parse(copy, len, &s, &d);
	if (err != code || d.line != line || d.col != col)
		fail_msg("got %s at %u:%u (%s), want %s at %u:%u, for:\n%s",
			 mh_strerror(err), d.line, d.col, d.msg,
			 mh_strerror(code), line, col, text);
	assert_text_diag(&d, err, code, line, col);
	assert_diag_says(&d, words);
	assert_null(s.bones);
	assert_null(s.tail);
	assert_int_equal(s.nbones, 0);
	assert_int_equal(skeleton_parse(copy, len, &s, NULL), code);
	free(copy);
}

#define HEAD_FU "skeleton mhfu\nparams 0 2\n"
#define HEAD_P3 "skeleton mhp3rd\nparams 0\n"
#define ROW0 "0 1 -1 1 -1  1 1 1  0 0 0  0 0 0  -1 0 -\n"
#define ROW1 "1 1 0 -1 -1  1 1 1  0 0 0  0 5 0  -1 0 -\n"

static void test_parse_rejects_a_missing_or_misplaced_header(void **state)
{
	(void)state;
	expect_parse_error("", MH_ESYNTAX, 1, 1, "has none");
	expect_parse_error("# only a comment\n\n", MH_ESYNTAX, 3, 1, "has none");
	expect_parse_error("params 0\nskeleton mhfu\n", MH_ESYNTAX, 1, 1,
			   "expected \"skeleton mhfu\" or \"skeleton mhp3rd\" first");
	expect_parse_error("skeleton psp\n", MH_ESYNTAX, 1, 10, "mhfu or mhp3rd");
	expect_parse_error("skeleton\n", MH_ESYNTAX, 1, 9, "expected mhfu or mhp3rd");
	expect_parse_error("skeleton mhfu\n", MH_ESYNTAX, 2, 1, "params line");
	expect_parse_error("skeleton mhfu\n" ROW0, MH_ESYNTAX, 3, 1, "params line");
	expect_parse_error("skeleton mhfu mhp3rd\n", MH_ESYNTAX, 1, 15, "unexpected");
	expect_parse_error(HEAD_FU "skeleton mhfu\n", MH_ESYNTAX, 3, 1,
			   "a second skeleton line (the first is line 1)");
	expect_parse_error(HEAD_FU "bones 3\n", MH_ESYNTAX, 3, 1, "unknown line \"bones\"");
	expect_parse_error(HEAD_FU "-1\n", MH_ESYNTAX, 3, 1, "unknown line");
}

static void test_parse_rejects_bad_params(void **state)
{
	(void)state;
	expect_parse_error("skeleton mhfu\nparams\n", MH_ESYNTAX, 2, 7,
			   "expected a params value");
	expect_parse_error("skeleton mhfu\nparams 1 2 3 4\n", MH_ESYNTAX, 2, 14,
			   "at most 3");
	expect_parse_error("skeleton mhfu\nparams -1\n", MH_ERANGE, 2, 8, NULL);
	expect_parse_error("skeleton mhfu\nparams 0 4294967296\n", MH_ERANGE, 2, 10, NULL);
	expect_parse_error("skeleton mhfu\nparams 0 4x\n", MH_ESYNTAX, 2, 10,
			   "expected an integer");
	expect_parse_error(HEAD_FU "params 0\n", MH_ESYNTAX, 3, 1, "second params");
	expect_parse_error(HEAD_FU "params_count 1\nparams_count 2\n", MH_ESYNTAX,
			   4, 1, "second params_count line (the first is line 3)");
	expect_parse_error(HEAD_FU "params_count\n", MH_ESYNTAX, 3, 13, "expected");
	expect_parse_error(HEAD_FU "size -5\n", MH_ERANGE, 3, 6, NULL);
	expect_parse_error(HEAD_FU "size 1\nsize 1\n", MH_ESYNTAX, 4, 1, "second size");
}

static void test_parse_rejects_bad_rows(void **state)
{
	(void)state;
	/* 16 columns: the name is missing at the end of the line */
	expect_parse_error(HEAD_FU "0 1 -1 1 -1 1 1 1 0 0 0 0 0 0 -1 0\n",
			   MH_ESYNTAX, 3, 35, "expected column 17, name");
	expect_parse_error(HEAD_FU "0 1 -1 1 -1 1 1 1 0 0 0 0 0\n",
			   MH_ESYNTAX, 3, 28, "expected column 14, pos_z");
	expect_parse_error(HEAD_FU "0\n", MH_ESYNTAX, 3, 2, "expected column 2, kind");
	/* 18 columns */
	expect_parse_error(HEAD_FU "0 1 -1 1 -1 1 1 1 0 0 0 0 0 0 -1 0 - x\n",
			   MH_ESYNTAX, 3, 38, "unexpected \"x\"");
	expect_parse_error(HEAD_FU ROW1, MH_ESYNTAX, 3, 1,
			   "expected bone 0 here, got 1");
	expect_parse_error(HEAD_FU ROW0 ROW0, MH_ESYNTAX, 4, 1,
			   "bone 0 already has a row, on line 3");
	expect_parse_error(HEAD_FU ROW0 "2 1 0 -1 -1 1 1 1 0 0 0 0 0 0 -1 0 -\n",
			   MH_ESYNTAX, 4, 1, "expected bone 1 here, got 2");
	expect_parse_error(HEAD_FU "4096 1 -1 1 -1 1 1 1 0 0 0 0 0 0 -1 0 -\n",
			   MH_ERANGE, 3, 1, "outside 0..4095");
	expect_parse_error(HEAD_FU "0 4 -1 1 -1 1 1 1 0 0 0 0 0 0 -1 0 -\n",
			   MH_ERANGE, 3, 3, "outside 1..3");
	expect_parse_error(HEAD_FU "0 0 -1 1 -1 1 1 1 0 0 0 0 0 0 -1 0 -\n",
			   MH_ERANGE, 3, 3, NULL);
	expect_parse_error(HEAD_FU "0 1 2147483648 1 -1 1 1 1 0 0 0 0 0 0 -1 0 -\n",
			   MH_ERANGE, 3, 5, NULL);
	expect_parse_error(HEAD_FU "0 1 -1 -2147483649 -1 1 1 1 0 0 0 0 0 0 -1 0 -\n",
			   MH_ERANGE, 3, 8, NULL);
	expect_parse_error(HEAD_FU "0 1 -1 1 -1 1 1 1 0 0 0 0 0 0 -1 -1 -\n",
			   MH_ERANGE, 3, 34, NULL);
	expect_parse_error(HEAD_FU "0 1 -1 1 x 1 1 1 0 0 0 0 0 0 -1 0 -\n",
			   MH_ESYNTAX, 3, 10, "expected an integer, got \"x\"");
	expect_parse_error(HEAD_FU "0 1 -1 1 -1 1 1e39 1 0 0 0 0 0 0 -1 0 -\n",
			   MH_ESYNTAX, 3, 15, "expected a number");
	expect_parse_error(HEAD_FU "0 1 -1 1 -1 1 1 nan 0 0 0 0 0 0 -1 0 -\n",
			   MH_ESYNTAX, 3, 17, "expected a number");
	expect_parse_error(HEAD_FU "0 1 -1 1 -1 1 1 1 0 0 0x3f80000 0 0 0 -1 0 -\n",
			   MH_ESYNTAX, 3, 23, "8 hex digits");
	expect_parse_error(HEAD_FU "0 1 -1 1 -1 1 1 1 0 0 0 0 0 0 -1 0 root\n",
			   MH_ESYNTAX, 3, 36, "MHFU bones have no name");
	char longword[128];
	snprintf(longword, sizeof longword, HEAD_FU "0 1 -1 1 -1 1 1 1 0 0 0 0 0 "
		 "%065d\n", 0);
	expect_parse_error(longword, MH_ESYNTAX, 3, 29, "longer than 64");
}

static void test_parse_rejects_bad_names(void **state)
{
	(void)state;
	expect_parse_error(HEAD_P3 "0 1 -1 1 -1 1 1 1 0 0 0 0 0 0 -1 0 abcdefghi\n",
			   MH_ESYNTAX, 3, 44, "longer than 8 bytes");
	expect_parse_error(HEAD_P3 "0 1 -1 1 -1 1 1 1 0 0 0 0 0 0 -1 0 ab\\x00\n",
			   MH_ESYNTAX, 3, 38, "first NUL");
	expect_parse_error(HEAD_P3 "0 1 -1 1 -1 1 1 1 0 0 0 0 0 0 -1 0 ab\\xZZ\n",
			   MH_ESYNTAX, 3, 38, "expected \\xHH");
	expect_parse_error(HEAD_P3 "0 1 -1 1 -1 1 1 1 0 0 0 0 0 0 -1 0 ab\\\n",
			   MH_ESYNTAX, 3, 38, "expected \\xHH");
	expect_parse_error(HEAD_P3 "0 1 -1 1 -1 1 1 1 0 0 0 0 0 0 -1 0 ab\\x4\n",
			   MH_ESYNTAX, 3, 38, "expected \\xHH");
}

static void test_parse_rejects_bad_extras(void **state)
{
	(void)state;
	expect_parse_error(HEAD_FU ROW0 "w 1 1 1 1\n", MH_ESYNTAX, 4, 3,
			   "bone 1 has no row above this line (1 rows so far)");
	expect_parse_error(HEAD_FU "w 0 1 1 1\n" ROW0, MH_ESYNTAX, 3, 3, "no row above");
	expect_parse_error(HEAD_FU ROW0 "w 0 1 1 1\nw 0 1 1 1\n", MH_ESYNTAX, 5, 1,
			   "second w line (the first is line 4)");
	expect_parse_error(HEAD_FU ROW0 "w 0 1 1\n", MH_ESYNTAX, 4, 8,
			   "expected the position's w");
	expect_parse_error(HEAD_FU ROW0 "w 0 1 1 1 1\n", MH_ESYNTAX, 4, 11, "unexpected");
	expect_parse_error(HEAD_FU ROW0 "section_count 0 4294967296\n", MH_ERANGE, 4, 17,
			   NULL);
	expect_parse_error(HEAD_FU ROW0 "section_count 0 2\nsection_count 0 3\n",
			   MH_ESYNTAX, 5, 1, "second section_count");
	expect_parse_error(HEAD_FU ROW0 "extra 0 0x53 01\n", MH_ERANGE, 4, 9,
			   "0x54..0x10b");
	expect_parse_error(HEAD_FU ROW0 "extra 0 0x10c 01\n", MH_ERANGE, 4, 9, NULL);
	expect_parse_error(HEAD_FU ROW0 "extra 0 0x10a 010203\n", MH_ERANGE, 4, 15,
			   "past the end of bone 0's section, 0x10c");
	expect_parse_error(HEAD_FU ROW0 "extra 0 0x60\n", MH_ESYNTAX, 4, 13,
			   "expected hex bytes");
	expect_parse_error(HEAD_FU ROW0 "extra 0 0x60 123\n", MH_ESYNTAX, 4, 14,
			   "3 hex digits");
	expect_parse_error(HEAD_FU ROW0 "extra 0 0x60 01 0g\n", MH_ESYNTAX, 4, 18,
			   "expected hex digits");
	expect_parse_error(HEAD_FU ROW0 "extra 0 0x60 0102\nextra 0 0x61 03\n",
			   MH_ERANGE, 5, 9, "0x62..0x10b");
	/* MHP3rd: extra bytes go after the name and its NUL */
	expect_parse_error(HEAD_P3 "0 1 -1 1 -1 1 1 1 0 0 0 0 0 0 -1 0 abc\n"
			   "extra 0 0x57 01\n", MH_ERANGE, 4, 9, "0x58..0x5b");
	expect_parse_error(HEAD_P3 "0 1 -1 1 -1 1 1 1 0 0 0 0 0 0 -1 0 abcdefgh\n"
			   "extra 0 0x5b 01\n", MH_ERANGE, 4, 9, "no room");
	expect_parse_error(HEAD_P3 "0 1 -1 1 -1 1 1 1 0 0 0 0 0 0 -1 0 -\n"
			   "extra 0 0x5a 010203\n", MH_ERANGE, 4, 14, "0x5c");
}

static void test_parse_rejects_bad_tails_and_nul_bytes(void **state)
{
	(void)state;
	expect_parse_error(HEAD_FU "tail\n", MH_ESYNTAX, 3, 5, "hex bytes or zeros N");
	expect_parse_error(HEAD_FU "tail zeros 0\n", MH_ERANGE, 3, 12, NULL);
	expect_parse_error(HEAD_FU "tail zeros 16777217\n", MH_ERANGE, 3, 12, NULL);
	expect_parse_error(HEAD_FU "tail zeros 16777216\ntail 00\n", MH_ERANGE, 4, 6,
			   "past 16777216 bytes");
	expect_parse_error(HEAD_FU "tail zeros\n", MH_ESYNTAX, 3, 11, "count of zero bytes");
	expect_parse_error(HEAD_FU "tail 00 zz\n", MH_ESYNTAX, 3, 9, "hex digits");
	static const char nul[] = "skeleton mhfu\n# com\0ment\nparams 0\n";
	struct skeleton s;
	struct mh_diag d = {0};
	assert_text_diag(&d, skeleton_parse(nul, sizeof nul - 1, &s, &d), MH_ESYNTAX,
			 2, 6);
	assert_diag_says(&d, "NUL");
	static const char nul2[] = "skeleton mhfu\nparams 0\0\n";
	assert_text_diag(&d, skeleton_parse(nul2, sizeof nul2 - 1, &s, &d), MH_ESYNTAX,
			 2, 9);
}

/* ---- what the parser accepts -------------------------------------------- */

static void test_parse_accepts_hand_written_variations(void **state)
{
	(void)state;
	/* CRLF, tabs, comments after values, blank lines, hex integers and
	 * float bits, leading zeros (decimal), '+', lines in another order. */
	static const char text[] =
	    "# hand written\r\n"
	    "\r\n"
	    "skeleton\tmhp3rd   # the game\r\n"
	    "tail 0102\r\n"
	    "0 0x1 -1 +1 -1 1.0 1e0 0x3f800000 0 -0 0.0 0 0 0 -1 0 Root # root\r\n"
	    "1 2 0 -1 -1 1 1 1 0 0 0 -12.5 007 0.1 0 0 -\r\n"
	    "\textra 1 0x55 ff\r\n"
	    "params 5 6\r\n"
	    "params_count 2\r\n"
	    "size 220\r\n"
	    "tail zeros 2\r\n";
	struct skeleton s;
	parse_ok(text, sizeof text - 1, &s);
	assert_int_equal(s.game, SKELETON_MHP3RD);
	assert_int_equal(s.nbones, 2);
	assert_int_equal(s.nparams, 2);
	assert_int_equal(s.params_count, 2);
	assert_int_equal(skeleton_size(&s), 0x20 + 2 * 0x5c); /* 216 ... */
	assert_true(s.size_fixed);
	assert_int_equal(s.size_word, 220);
	skeleton_free(&s);

	/* ... so size 220 disagrees and is kept; 216 agrees and is dropped. */
	char *t = strdup(text);
	memcpy(strstr(t, "size 220"), "size 216", 8);
	parse_ok(t, strlen(t), &s);
	assert_false(s.size_fixed);
	assert_int_equal(fbits(s.bones[0].rotation[1]), 0x80000000);
	assert_memory_equal(s.bones[0].rest, "Root\0\0\0\0", 8);
	assert_int_equal(s.bones[1].rest[1], 0xff);
	assert_int_equal(s.bones[1].kind, 2);
	assert_int_equal(s.bones[1].link, 0);
	assert_int_equal(fbits(s.bones[1].position[1]), fbits(7.0f));
	assert_int_equal(s.tail_len, 4);
	assert_memory_equal(s.tail, "\x01\x02\0\0", 4);
	size_t len, n;
	uint8_t *bytes = encode_ok(&s, &len);
	skeleton_free(&s);
	free(roundtrip(bytes, len));
	free(t);

	/* An equal params_count is no different from none. */
	parse_ok(HEAD_FU ROW0 "params_count 2\n", strlen(HEAD_FU ROW0 "params_count 2\n"), &s);
	uint8_t *a = encode_ok(&s, &n);
	skeleton_free(&s);
	parse_ok(HEAD_FU ROW0, strlen(HEAD_FU ROW0), &s);
	uint8_t *b = encode_ok(&s, &len);
	assert_int_equal(n, len);
	assert_memory_equal(a, b, n);
	skeleton_free(&s);
	free(a);
	free(b);
	free(bytes);

	/* No bones at all is a skeleton too (the header says 1 section). */
	parse_ok("skeleton mhfu\nparams 0\n", 23, &s);
	assert_int_equal(s.nbones, 0);
	b = encode_ok(&s, &len);
	assert_int_equal(len, 0x1c);
	free(roundtrip(b, len));
	free(b);
	skeleton_free(&s);
}

static void test_print_aligns_columns_and_prints_comments(void **state)
{
	(void)state;
	struct hskel h;
	tigrex(&h);
	h.bones[17].pos[0] = fbits(-1234.5678f);
	size_t len;
	uint8_t *buf = hwrite(&h, &len);
	struct skeleton s;
	decode_ok(buf, len, &s);
	char *text = print_ok(&s, "line one\n\nline three\n", &len);
	assert_int_equal(strncmp(text, "# line one\n#\n# line three\n# skeleton.txt", 40), 0);
	/* every row and the column header are equally long up to the name */
	const char *hdr = line_with(text, "# bone");
	size_t name_col = (size_t)(strstr(hdr, " name\n") - hdr);
	for (uint32_t i = 0; i < 48; i++) {
		const char *r = row(text, i);
		assert_int_equal(strlen(r), name_col + 2);
		assert_string_equal(r + name_col, " -");
	}
	free(text);
	text = print_ok(&s, NULL, &len);
	assert_int_equal(strncmp(text, "# skeleton.txt", 14), 0);
	free(text);
	skeleton_free(&s);
	free(buf);
}

/* ---- sniffing ----------------------------------------------------------- */

static void test_sniff_scores_skeletons_from_their_head(void **state)
{
	(void)state;
	struct hskel h;
	p3rd(&h);
	size_t len;
	uint8_t *buf = hwrite(&h, &len);
	uint8_t head[SKELETON_HEAD_MAX];
	memcpy(head, buf, sizeof head);
	assert_int_equal(skeleton_sniff(head, sizeof head, len), 100);
	assert_int_equal(skeleton_sniff(buf, len, len), 100);
	/* a size the sections do not fit in */
	assert_int_equal(skeleton_sniff(head, sizeof head, len - h.tail_len - 1), 0);
	/* a head shorter than promised scores 0, never a guess */
	assert_int_equal(skeleton_sniff(head, 0x20, len), 0);
	store_le32(buf + 8, 5);
	assert_int_equal(skeleton_sniff(buf, len, len), 60);
	store_le32(buf + 0x24, 0x40000004);
	assert_int_equal(skeleton_sniff(buf, len, len), 0);
	free(buf);
	tigrex(&h);
	buf = hwrite(&h, &len);
	assert_int_equal(skeleton_sniff(buf, SKELETON_HEAD_MAX, len), 100);
	store_le32(buf + 0x20 + 0x0c, 1); /* bone 0's index */
	assert_int_equal(skeleton_sniff(buf, SKELETON_HEAD_MAX, len), 0);
	free(buf);
}

static void test_sniff_rejects_100000_random_buffers(void **state)
{
	(void)state;
	struct rng r = {42};
	uint8_t buf[512];
	unsigned hits = 0, magic_hits = 0;
	for (int i = 0; i < 100000; i++) {
		size_t len = rng_below(&r, sizeof buf + 1);
		for (size_t k = 0; k < len; k++)
			buf[k] = (uint8_t)rng_next(&r);
		hits += skeleton_sniff(buf, len, len) != 0;
		/* even with a right magic, random words do not pass */
		if (len >= 4) {
			store_le32(buf, i % 2 ? 0x80000000 : 0xC0000000);
			magic_hits += skeleton_sniff(buf, len, len) != 0;
		}
	}
	assert_int_equal(hits, 0);
	assert_int_equal(magic_hits, 0);
	memset(buf, 0, sizeof buf);
	assert_int_equal(skeleton_sniff(buf, sizeof buf, sizeof buf), 0);
}

/* ---- random skeletons ---------------------------------------------------- */

static float random_float(struct rng *r)
{
	static const uint32_t SPECIAL[] = {
		0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000,
		0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0x00000001,
		0x807fffff, 0x7f7fffff, 0x3dcccccd, 0x33800000,
	};
	switch (rng_below(r, 6)) {
	case 0: return bitsf((uint32_t)rng_next(r));
	case 1: return bitsf(SPECIAL[rng_below(r, sizeof SPECIAL / sizeof *SPECIAL)]);
	case 2: return (float)((int32_t)rng_below(r, 200001) - 100000) / 1000.0f;
	default: return (float)((int32_t)rng_below(r, 4001) - 2000) / 8.0f;
	}
}

static int32_t random_index(struct rng *r, uint32_t n)
{
	switch (rng_below(r, 8)) {
	case 0: return -1;
	case 1: return (int32_t)(uint32_t)rng_next(r);
	default: return n ? (int32_t)rng_below(r, n) : -1;
	}
}

/* A random valid model: every field anywhere in its range, the rarities
 * now and then. */
static void random_skeleton(struct rng *r, struct skeleton *s)
{
	enum skeleton_game game = rng_below(r, 2) ? SKELETON_MHP3RD : SKELETON_MHFU;
	uint32_t n = rng_below(r, 50) ? rng_below(r, 61) : rng_below(r, 600);
	assert_int_equal(skeleton_init(s, game, n, NULL), MH_OK);
	s->nparams = 1 + rng_below(r, 3);
	for (uint32_t k = 0; k < s->nparams; k++)
		s->params[k] = rng_below(r, 3) ? rng_below(r, n + 1) : (uint32_t)rng_next(r);
	s->params_count = rng_below(r, 8) ? s->nparams : (uint32_t)rng_below(r, 5);
	for (uint32_t i = 0; i < n; i++) {
		struct skeleton_bone *b = &s->bones[i];
		b->kind = 1 + rng_below(r, 3);
		b->parent = i ? random_index(r, i) : -1;
		b->link = b->kind == 2 ? random_index(r, i) : rng_below(r, 10) ? -1
						: random_index(r, n);
		b->part = rng_below(r, 4) ? rng_below(r, 4) : (uint32_t)rng_next(r);
		for (int k = 0; k < 3; k++) {
			b->scale[k] = rng_below(r, 4) ? 1.0f : random_float(r);
			b->rotation[k] = rng_below(r, 4) ? 0.0f : random_float(r);
			b->position[k] = random_float(r);
		}
		if (rng_below(r, 10) == 0) {
			b->scale[3] = random_float(r);
			b->rotation[3] = random_float(r);
			b->position[3] = random_float(r);
		}
		if (rng_below(r, 20) == 0)
			b->count = (uint32_t)rng_next(r) >> rng_below(r, 32);
		uint32_t rest = skeleton_rest_len(game);
		if (game == SKELETON_MHP3RD) {
			static const char POOL[] = "abcXYZ_019-\\#\x01\x7f\x80\xff \t";
			uint32_t len = rng_below(r, 9);
			for (uint32_t k = 0; k < len; k++)
				b->rest[k] = (uint8_t)POOL[rng_below(r, sizeof POOL - 1)];
			if (rng_below(r, 4) == 0)
				for (uint32_t k = len + 1; k < rest; k++)
					b->rest[k] = (uint8_t)rng_next(r);
		} else if (rng_below(r, 10) == 0) {
			for (int k = 0, m = 1 + (int)rng_below(r, 6); k < m; k++)
				b->rest[rng_below(r, rest)] = (uint8_t)rng_next(r);
		}
	}
	skeleton_link(s, rng_below(r, 2));
	for (uint32_t i = 0; i < n; i++) /* links as found in the wild */
		if (rng_below(r, 30) == 0)
			s->bones[i].sibling = random_index(r, n);
	if (rng_below(r, 10) == 0) {
		s->size_fixed = true;
		s->size_word = (uint32_t)rng_next(r);
		if (s->size_word == skeleton_size(s))
			s->size_word++;
	}
	if (rng_below(r, 4) == 0) {
		s->tail_len = rng_below(r, 300);
		s->tail = calloc(1, s->tail_len + 1);
		assert_non_null(s->tail);
		for (size_t k = 0; k < s->tail_len; k++)
			if (rng_below(r, 3) == 0 || (k / 50) % 2)
				s->tail[k] = rng_below(r, 2) ? (uint8_t)rng_next(r) : 0;
	}
}

static void assert_models_equal(const struct skeleton *a, const struct skeleton *b)
{
	assert_int_equal(a->game, b->game);
	assert_int_equal(a->nbones, b->nbones);
	assert_int_equal(a->nparams, b->nparams);
	assert_memory_equal(a->params, b->params, a->nparams * 4);
	assert_int_equal(a->params_count, b->params_count);
	assert_int_equal(a->size_fixed, b->size_fixed);
	assert_int_equal(a->size_word, b->size_word);
	assert_int_equal(a->tail_len, b->tail_len);
	if (a->tail_len)
		assert_memory_equal(a->tail, b->tail, a->tail_len);
	for (uint32_t i = 0; i < a->nbones; i++) {
		const struct skeleton_bone *x = &a->bones[i], *y = &b->bones[i];
		assert_int_equal(x->kind, y->kind);
		assert_int_equal(x->count, y->count);
		assert_int_equal(x->parent, y->parent);
		assert_int_equal(x->child, y->child);
		assert_int_equal(x->sibling, y->sibling);
		assert_int_equal(x->link, y->link);
		assert_int_equal(x->part, y->part);
		for (int k = 0; k < 4; k++) {
			assert_int_equal(fbits(x->scale[k]), fbits(y->scale[k]));
			assert_int_equal(fbits(x->rotation[k]), fbits(y->rotation[k]));
			assert_int_equal(fbits(x->position[k]), fbits(y->position[k]));
		}
		assert_memory_equal(x->rest, y->rest, SKELETON_REST_MAX);
	}
}

static void test_2000_random_skeletons_roundtrip_both_ways(void **state)
{
	(void)state;
	struct rng r = {20261130};
	unsigned games[2] = {0}, tails = 0, extras = 0;
	for (int it = 0; it < 2000; it++) {
		struct skeleton s, dec, parsed;
		random_skeleton(&r, &s);
		size_t len, tlen;
		uint8_t *bytes = encode_ok(&s, &len);
		assert_int_equal(len, skeleton_size(&s) + s.tail_len);
		decode_ok(bytes, len, &dec);
		assert_models_equal(&s, &dec);
		assert_int_equal(skeleton_sniff(bytes, len, len), s.size_fixed ? 60 : 100);
		char *text = print_ok(&s, "random", &tlen);
		parse_ok(text, tlen, &parsed);
		assert_models_equal(&s, &parsed);
		size_t n, tlen2;
		uint8_t *again = encode_ok(&parsed, &n);
		assert_int_equal(n, len);
		assert_memory_equal(again, bytes, len);
		free(again);
		char *text2 = print_ok(&parsed, "random", &tlen2);
		assert_string_equal(text, text2);
		free(text2);
		games[s.game]++;
		tails += s.tail_len > 0;
		extras += strstr(text, "\nextra ") != NULL;
		free(text);
		free(bytes);
		skeleton_free(&s);
		skeleton_free(&dec);
		skeleton_free(&parsed);
	}
	assert_true(games[0] > 800 && games[1] > 800);
	assert_true(tails > 350 && extras > 350);
}

/* ---- allocation failures -------------------------------------------------- */

static void test_every_verb_survives_allocation_failure(void **state)
{
	(void)state;
	if (!FAULTS_AVAILABLE)
		skip();
	struct hskel h;
	p3rd(&h);
	size_t len, tlen;
	uint8_t *buf = hwrite(&h, &len);
	struct skeleton s;
	decode_ok(buf, len, &s);
	char *text = print_ok(&s, "faults", &tlen);
	for (int verb = 0; verb < 4; verb++) {
		long k = 0;
		for (;; k++) {
			struct skeleton got;
			struct mh_diag d = {0};
			uint8_t *out = NULL;
			char *t = NULL;
			size_t n = 0;
			enum mh_err err = MH_OK;
			long live = faults_live;
			faults_arm(k);
			switch (verb) {
			case 0: err = skeleton_decode(buf, len, &got, &d); break;
			case 1: err = skeleton_encode(&s, &out, &n, &d); break;
			case 2: t = skeleton_print(&s, "faults", &n);
				err = t ? MH_OK : MH_ENOMEM;
				d.code = err;
				snprintf(d.msg, sizeof d.msg, "print");
				break;
			default: err = skeleton_parse(text, tlen, &got, &d); break;
			}
			bool fired = faults_disarm();
			if (!fired) {
				assert_int_equal(err, MH_OK);
				if (verb == 0 || verb == 3)
					skeleton_free(&got);
				free(out);
				free(t);
				assert_int_equal(faults_live, live);
				break;
			}
			assert_int_equal(err, MH_ENOMEM);
			assert_int_equal(d.code, MH_ENOMEM);
			assert_true(d.msg[0] != '\0');
			assert_null(out);
			assert_null(t);
			if (verb == 0 || verb == 3)
				assert_null(got.bones);
			assert_int_equal(faults_live, live);
		}
		assert_true(k >= 1);
	}
	free(text);
	skeleton_free(&s);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tigrex_roundtrips_byte_exactly),
		cmocka_unit_test(test_p3rd_with_names_and_leftovers_roundtrips),
		cmocka_unit_test(test_builder_makes_the_tigrex_without_the_layout),
		cmocka_unit_test(test_print_three_bones_exactly),
		cmocka_unit_test(test_print_whole_numbers_without_exponent),
		cmocka_unit_test(test_everything_unexplained_is_carried),
		cmocka_unit_test(test_every_prefix_fails_or_shortens_the_tail),
		cmocka_unit_test(test_decode_rejects_short_or_foreign_input),
		cmocka_unit_test(test_decode_rejects_bad_header_words),
		cmocka_unit_test(test_decode_checks_the_bone_count_before_allocating),
		cmocka_unit_test(test_decode_rejects_bad_bone_words_naming_the_bone),
		cmocka_unit_test(test_decode_bounds_the_tail),
		cmocka_unit_test(test_encode_rejects_models_it_cannot_write),
		cmocka_unit_test(test_free_accepts_null_and_zeroed),
		cmocka_unit_test(test_parse_rejects_a_missing_or_misplaced_header),
		cmocka_unit_test(test_parse_rejects_bad_params),
		cmocka_unit_test(test_parse_rejects_bad_rows),
		cmocka_unit_test(test_parse_rejects_bad_names),
		cmocka_unit_test(test_parse_rejects_bad_extras),
		cmocka_unit_test(test_parse_rejects_bad_tails_and_nul_bytes),
		cmocka_unit_test(test_parse_accepts_hand_written_variations),
		cmocka_unit_test(test_print_aligns_columns_and_prints_comments),
		cmocka_unit_test(test_sniff_scores_skeletons_from_their_head),
		cmocka_unit_test(test_sniff_rejects_100000_random_buffers),
		cmocka_unit_test(test_2000_random_skeletons_roundtrip_both_ways),
		cmocka_unit_test(test_every_verb_survives_allocation_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
