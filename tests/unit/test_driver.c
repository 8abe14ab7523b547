/* SPDX-License-Identifier: MIT */
/* The tree and the commit path without a mount (fs/commit/driver.h): a
 * copy of the sample archive opened as mount.mhfu opens it, views looked
 * up and read, edits committed or refused as a mount's close commits
 * them, and what lands checked in the archive file itself, reopened; and
 * a commit planned on the simulated disk of test_store (simdir.h), the
 * power lost after each of its calls.  Nothing here links libfuse: the
 * layers below fs/fuse/ are the driver. */
#include "testlib.h"

#include <cmocka.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver.h"
#include "node.h"
#include "pmo.h"
#include "pmo_text.h"
#include "save.h"
#include "simdir.h"

struct fixture {
	char dir[256];      /* a temporary folder */
	char archive[300];  /* its copy of the sample's DATA.BIN */
	char state[300];    /* the record folder */
	struct mhfs *fs;
};

static struct fixture F;

static void copy_file(const char *from, const char *to)
{
	struct file_bytes b = {0};
	char why[512];
	if (!read_whole_file(from, &b, why, sizeof why))
		fail_msg("%s (MHFU_SAMPLE is the sample's folder; make units sets it)", why);
	FILE *fp = fopen(to, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(b.p, 1, b.len, fp), b.len);
	assert_int_equal(fclose(fp), 0);
	free(b.p);
}

static struct file_bytes archive_bytes(void)
{
	struct file_bytes b = {0};
	char why[512];
	assert_true(read_whole_file(F.archive, &b, why, sizeof why));
	return b;
}

/* The driver on the archive's copy, or (io: simdir.h's table) on the
 * simulated disk's ARCHIVE. */
static enum driver_status open_driver_on(enum rules_mode rules, const struct store_io *io)
{
	struct driver_options o = {
		.archive = io ? ARCHIVE : F.archive, .state = F.state, .cache_bytes = 64u << 20,
		.scratch_bytes = 16u << 20, .rules = rules, .io = io,
	};
	struct fs_diag msg = {""};
	F.fs = calloc(1, sizeof *F.fs); /* large (the log): not on the stack */
	assert_non_null(F.fs);
	return driver_open(F.fs, &o, &msg);
}

static enum driver_status open_driver(enum rules_mode rules)
{
	return open_driver_on(rules, NULL);
}

static void close_driver(void)
{
	driver_close(F.fs);
	free(F.fs);
	F.fs = NULL;
}

static int setup(void **state)
{
	(void)state;
	const char *sample = getenv("MHFU_SAMPLE");
	char from[4096];
	snprintf(F.dir, sizeof F.dir, "%s/mhfu-driver.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(F.dir))
		return -1;
	snprintf(F.archive, sizeof F.archive, "%s/DATA.BIN", F.dir);
	snprintf(F.state, sizeof F.state, "%s/state", F.dir);
	snprintf(from, sizeof from, "%s/DATA.BIN", sample ? sample : ".");
	copy_file(from, F.archive);
	return 0;
}

static void remove_tree(const char *path)
{
	DIR *d = opendir(path);
	if (!d) {
		unlink(path);
		return;
	}
	for (struct dirent *e; (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char sub[8192];
		snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
		remove_tree(sub);
	}
	closedir(d);
	rmdir(path);
}

static int teardown(void **state)
{
	(void)state;
	if (F.fs)
		close_driver();
	remove_tree(F.dir);
	return 0;
}

/* The view at `path` from the root, as a lookup of each name in turn. */
static int lookup(const char *path, struct node *n)
{
	char buf[512];
	int err = 0;
	snprintf(buf, sizeof buf, "%s", path);
	assert_true(node_from_ino(F.fs, 1, n));
	pthread_rwlock_rdlock(&F.fs->ar.io);
	for (char *save = NULL, *name = strtok_r(buf, "/", &save); name && !err;
	     name = strtok_r(NULL, "/", &save)) {
		struct node child;
		if (!(err = node_lookup(F.fs, n, name, &child)))
			*n = child;
	}
	pthread_rwlock_unlock(&F.fs->ar.io);
	return err;
}

/* The view's contents (malloc'ed). */
static struct file_bytes view_bytes(const char *path)
{
	struct node n;
	struct file_bytes b = {0};
	assert_int_equal(lookup(path, &n), 0);
	pthread_rwlock_rdlock(&F.fs->ar.io);
	assert_int_equal(node_contents(F.fs, &n, &b.p, &b.len), 0);
	pthread_rwlock_unlock(&F.fs->ar.io);
	return b;
}

/* The view's contents as a NUL-terminated string. */
static char *contents(const char *path)
{
	struct file_bytes b = view_bytes(path);
	char *s = malloc(b.len + 1);
	assert_non_null(s);
	memcpy(s, b.p, b.len);
	s[b.len] = '\0';
	free(b.p);
	return s;
}

/* Writes a view as a close commits it: 0, or the close's errno. */
static int write_view(const char *path, const void *data, size_t len)
{
	struct node n;
	assert_int_equal(lookup(path, &n), 0);
	return commit_write(F.fs, &n, data, len);
}

/* The text with its first `from` replaced by `to` (same length or not). */
static char *replaced(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	assert_non_null(at);
	size_t head = (size_t)(at - text), tail = strlen(at + strlen(from));
	char *s = malloc(head + strlen(to) + tail + 1);
	assert_non_null(s);
	memcpy(s, text, head);
	memcpy(s + head, to, strlen(to));
	memcpy(s + head + strlen(to), at + strlen(from), tail + 1);
	return s;
}

static size_t kept_texts(void)
{
	char dir[400];
	size_t n = 0;
	snprintf(dir, sizeof dir, "%s/rejected", F.state);
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

#define CLIP "file_06185/3/stream2/slot024.txt"

static void test_views_resolve_and_read_without_a_mount(void **state)
{
	(void)state;
	assert_int_equal(open_driver(RULES_STRICT), DRIVER_OK);
	char *clip = contents(CLIP);
	assert_non_null(strstr(clip, "# file_06185/3.anim stream 2 slot 24 - part 1"));
	char *check = contents("file_06185/check.txt");
	assert_non_null(strstr(check, "none: no rule is broken"));
	struct node n;
	assert_int_equal(lookup("file_06185/3/stream2/slot7.txt", &n), ENOENT);
	assert_int_equal(lookup("file_99999.bin", &n), ENOENT);
	free(clip);
	free(check);
	close_driver();
}

static void test_a_commit_lands_and_a_refusal_leaves_the_archive(void **state)
{
	(void)state;
	assert_int_equal(open_driver(RULES_STRICT), DRIVER_OK);
	char *clip = contents(CLIP);
	char *edited = replaced(clip, "   -6834 ", "   -6800 ");
	assert_int_equal(write_view(CLIP, edited, strlen(edited)), 0);
	char *now = contents(CLIP);
	assert_string_equal(now, edited);

	/* Refused: a syntax error, then junk over the skeleton the game
	 * loads (UNDECODABLE); the archive keeps every byte, the text is
	 * kept in the record. */
	struct file_bytes before = archive_bytes();
	static const char bad[] = "track x\n";
	assert_int_equal(write_view(CLIP, bad, sizeof bad - 1), EINVAL);
	assert_int_equal(kept_texts(), 1);
	/* .mhfu/rejected/ serves it through its class's hooks: listed,
	 * looked up, read by inode number, removed. */
	const struct view_class *rejected = node_folder_class(F.fs, NODE_REJECTED);
	assert_non_null(rejected);
	assert_int_equal(rejected->create_error, EACCES);
	assert_int_equal(rejected->rename_error, EXDEV);
	struct record_text *kept;
	size_t nkept;
	assert_int_equal(rejected->own_list(F.fs, &kept, &nkept), 0);
	assert_int_equal(nkept, 1);
	assert_non_null(strstr(kept[0].name, "-file_06185%3%stream2%slot024.txt"));
	struct stat st;
	uint8_t *text;
	size_t text_len;
	assert_int_equal(rejected->own_lookup(F.fs, kept[0].name, &st), 0);
	assert_int_equal(ino_space(st.st_ino), INO_OWN);
	assert_int_equal(st.st_uid, getuid());
	assert_int_equal(own_file_get(F.fs, st.st_ino, &st, &text, &text_len), 0);
	assert_int_equal(text_len, sizeof bad - 1);
	assert_memory_equal(text, bad, text_len);
	free(text);
	assert_int_equal(rejected->own_unlink(F.fs, kept[0].name), 0);
	assert_int_equal(rejected->own_lookup(F.fs, kept[0].name, &st), ENOENT);
	assert_int_equal(kept_texts(), 0);
	free(kept);
	uint8_t junk[3000];
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = (uint8_t)(i * 37 + 11);
	assert_int_equal(write_view("file_06185/0.skeleton", junk, sizeof junk), EINVAL);
	struct file_bytes after = archive_bytes();
	assert_int_equal(after.len, before.len);
	assert_memory_equal(after.p, before.p, before.len);
	close_driver();

	/* Reopened, the commit is there. */
	assert_int_equal(open_driver(RULES_STRICT), DRIVER_OK);
	char *again = contents(CLIP);
	assert_string_equal(again, edited);
	close_driver();
	free(before.p);
	free(after.p);
	free(clip);
	free(edited);
	free(now);
	free(again);
}

static void test_rules_warn_stores_what_strict_refuses(void **state)
{
	(void)state;
	assert_int_equal(open_driver(RULES_WARN), DRIVER_OK);
	uint8_t junk[3000];
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = (uint8_t)(i * 53 + 7);
	assert_int_equal(write_view("file_06185/2.tmh", junk, sizeof junk), 0);
	struct node n;
	assert_int_equal(lookup("file_06185/2.bin", &n), 0);
	assert_int_equal(lookup("file_06185/2.tmh", &n), ENOENT);
	close_driver();
}

/* The line of vertices.tsv for vertex v of group g with its x moved by
 * dx (the rest of the text as it was), malloc'ed. */
static char *vertex_moved(const char *text, unsigned g, unsigned v, float dx)
{
	char head[32], x[64];
	snprintf(head, sizeof head, "\n%u\t%u\t", g, v);
	const char *at = strstr(text, head);
	assert_non_null(at);
	at += strlen(head);
	const char *end = strchr(at, '\t');
	snprintf(x, sizeof x, "%.9g", strtof(at, NULL) + dx);
	size_t head_len = (size_t)(at - text), tail = strlen(end);
	char *out = malloc(head_len + strlen(x) + tail + 1);
	assert_non_null(out);
	memcpy(out, text, head_len);
	memcpy(out + head_len, x, strlen(x));
	memcpy(out + head_len + strlen(x), end, tail + 1);
	return out;
}

/* Bytes of a and b (same length) that differ. */
static size_t bytes_differing(const struct file_bytes *a, const struct file_bytes *b)
{
	size_t n = 0;
	assert_int_equal(a->len, b->len);
	for (size_t i = 0; i < a->len; i++)
		n += a->p[i] != b->p[i];
	return n;
}

#define VERTICES "file_06185/1/vertices.tsv"

/* vertices.tsv as the codec prints it from the PMO member's bytes now:
 * what the driver must show, however it made it (in two halves at once
 * for a big body, or reprinting a commit's changed rows). */
static void printed_as_the_codec_prints(const char *shown)
{
	struct file_bytes pmo = view_bytes("file_06185/1.pmo");
	struct pmo p;
	struct mh_diag d = {0};
	assert_int_equal(pmo_decode(pmo.p, pmo.len, NULL, 0, &p, &d), MH_OK);
	assert_true(p.group_count > 100); /* the Tigrex: past the split's 4096 vertices */
	size_t n;
	char *text = pmo_vertices_print(&p, &n);
	assert_non_null(text);
	assert_int_equal(strlen(shown), n);
	assert_memory_equal(shown, text, n);
	free(text);
	pmo_free(&p);
	free(pmo.p);
}

/* A PMO's views without a mount: vertices.tsv moves one vertex in place
 * (a byte or two of the archive), materials.tsv refuses a texture past
 * the bank, leaving the archive as it was, and an MHP3rd model's vertex
 * moves in the next entry, which holds its geometry. */
static void test_pmo_views_commit_in_place(void **state)
{
	(void)state;
	assert_int_equal(open_driver(RULES_STRICT), DRIVER_OK);
	struct file_bytes before = archive_bytes();
	char *text = contents(VERTICES);
	printed_as_the_codec_prints(text);
	char *moved = vertex_moved(text, 12, 40, 5.0f);
	assert_int_equal(write_view(VERTICES, moved, strlen(moved)), 0);
	struct file_bytes after = archive_bytes();
	size_t changed = bytes_differing(&before, &after);
	assert_true(changed >= 1 && changed <= 2);
	char *now = contents(VERTICES);
	printed_as_the_codec_prints(now);
	/* Every other row as it was: only row "12 40" differs. */
	size_t rows_differing = 0;
	for (const char *a = text, *b = now; *a && *b;) {
		const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
		assert_true(ea && eb);
		rows_differing += (ea - a) != (eb - b) || memcmp(a, b, (size_t)(ea - a));
		a = ea + 1;
		b = eb + 1;
	}
	assert_int_equal(rows_differing, 1);

	static const char *const materials = "file_06185/1/materials.tsv";
	char *mats = contents(materials);
	char *far = replaced(mats, "\t0\n", "\t99\n");
	assert_int_equal(write_view(materials, far, strlen(far)), EINVAL);
	struct file_bytes refused = archive_bytes();
	assert_int_equal(bytes_differing(&after, &refused), 0);

	/* An MHP3rd model whose geometry is the next entry's (file_05249):
	 * the vertex moves there, the PMO's own entry stays. */
	static const char *const p3rd = "file_05248/1/vertices.tsv";
	char *p3 = contents(p3rd);
	struct file_bytes pac_before = view_bytes("file_05248.pac");
	struct file_bytes geometry_before = view_bytes("file_05249.bin");
	char *p3_moved = vertex_moved(p3, 0, 0, 1.0f);
	assert_int_equal(write_view(p3rd, p3_moved, strlen(p3_moved)), 0);
	struct file_bytes still = archive_bytes();
	changed = bytes_differing(&refused, &still);
	assert_true(changed >= 1 && changed <= 2);
	char *p3_now = contents(p3rd);
	struct file_bytes pac_now = view_bytes("file_05248.pac");
	struct file_bytes geometry_now = view_bytes("file_05249.bin");
	assert_string_not_equal(p3_now, p3);
	assert_int_equal(bytes_differing(&pac_before, &pac_now), 0);
	changed = bytes_differing(&geometry_before, &geometry_now);
	assert_true(changed >= 1 && changed <= 2);
	close_driver();
	/* Reopened, the model reads its moved vertex from the next entry. */
	assert_int_equal(open_driver(RULES_STRICT), DRIVER_OK);
	char *p3_again = contents(p3rd);
	assert_string_equal(p3_again, p3_now);
	close_driver();
	free(p3_now);
	free(p3_again);
	free(pac_before.p);
	free(pac_now.p);
	free(geometry_before.p);
	free(geometry_now.p);
	free(before.p);
	free(after.p);
	free(refused.p);
	free(still.p);
	free(text);
	free(moved);
	free(now);
	free(mats);
	free(far);
	free(p3);
	free(p3_moved);
}

/* A commit through vertices.tsv on the simulated disk, the power lost
 * after each call it makes, with the writes not synced lost or kept:
 * reopened, the archive (its journal replayed, if any) shows the text as
 * it was or as committed, never anything else. */
static void test_power_lost_during_a_commit(void **state)
{
	(void)state;
	char from[1024], why[1280];
	const char *sample = getenv("MHFU_SAMPLE");
	struct file_bytes img = {0};
	snprintf(from, sizeof from, "%s/DATA.BIN", sample ? sample : ".");
	assert_true(read_whole_file(from, &img, why, sizeof why));
	struct bytes image = {img.p, img.len};

	sim_start(&image);
	S.crash_after = -1;
	assert_int_equal(open_driver_on(RULES_STRICT, &SIM_IO), DRIVER_OK);
	char *was = contents(VERTICES), *moved = vertex_moved(was, 12, 40, 5.0f);
	long first = S.calls;
	assert_int_equal(write_view(VERTICES, moved, strlen(moved)), 0);
	long last = S.calls;
	char *landed = contents(VERTICES);
	assert_string_not_equal(landed, was);
	close_driver();
	assert_true(last > first);

	size_t old_seen = 0, new_seen = 0;
	for (long k = first; k <= last; k++)
		for (unsigned keep = 0; keep < 2; keep++) {
			sim_start(&image);
			S.crash_after = -1;
			remove_tree(F.state);
			assert_int_equal(open_driver_on(RULES_STRICT, &SIM_IO), DRIVER_OK);
			S.crash_after = k;
			write_view(VERTICES, moved, strlen(moved));
			close_driver();
			if (!S.crashed)
				sim_copy(&CRASH, &S);
			sim_power_loss(&CRASH, CRASH.nops, keep ? ~0u : 0u);
			S.crash_after = -1;
			assert_int_equal(open_driver_on(RULES_STRICT, &SIM_IO), DRIVER_OK);
			char *now = contents(VERTICES);
			if (!strcmp(now, was))
				old_seen++;
			else if (!strcmp(now, landed))
				new_seen++;
			else
				fail_msg("power lost after call %ld (%s): vertices.tsv is neither",
					 k - first, keep ? "unsynced kept" : "unsynced lost");
			free(now);
			close_driver();
		}
	/* Both outcomes happen: before the journal's sync, and after. */
	assert_true(old_seen > 0 && new_seen > 0);
	sim_free(&S);
	sim_free(&CRASH);
	free(img.p);
	free(was);
	free(moved);
	free(landed);
}

static void test_open_says_why_not(void **state)
{
	(void)state;
	char good[sizeof F.archive];
	memcpy(good, F.archive, sizeof good);
	snprintf(F.archive, sizeof F.archive, "%s/missing.BIN", F.dir);
	assert_int_equal(open_driver(RULES_STRICT), DRIVER_EIO);
	close_driver();
	memcpy(F.archive, good, sizeof good);

	/* A record folder given that is a file. */
	char file[sizeof F.state];
	snprintf(file, sizeof file, "%s/afile", F.dir);
	copy_file(F.archive, file);
	char given[sizeof F.state];
	memcpy(given, F.state, sizeof given);
	snprintf(F.state, sizeof F.state, "%s", file);
	assert_int_equal(open_driver(RULES_STRICT), DRIVER_ESTATE);
	close_driver();
	memcpy(F.state, given, sizeof given);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_views_resolve_and_read_without_a_mount, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_commit_lands_and_a_refusal_leaves_the_archive,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_rules_warn_stores_what_strict_refuses, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_pmo_views_commit_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_power_lost_during_a_commit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_says_why_not, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
