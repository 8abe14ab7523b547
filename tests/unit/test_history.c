/* SPDX-License-Identifier: MIT */
/* The history of commits (fs/store/history.h) in a real temporary record
 * folder: records and originals kept and read back across opens, a
 * commit that did not land taken back, the chain check at open against
 * what the entries hold (note 3), records lost to a power loss written
 * again from the journal's notes (note 2), damaged files, the bounds,
 * and the history in memory.  A failing test keeps its folder. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"

#include "history.h"
#include "rng.h"

#define ENTRIES 16

/* The entries as the archive holds them now, for the check at open. */
static uint8_t *now[ENTRIES];
static size_t now_len[ENTRIES];

static int current(void *ctx, uint32_t entry, uint64_t *len, uint32_t *crc)
{
	(void)ctx;
	*len = now_len[entry];
	*crc = history_crc(now[entry] ? now[entry] : (const uint8_t *)"", now_len[entry]);
	return 0;
}

static void set_now(uint32_t entry, const char *text)
{
	free(now[entry]);
	now_len[entry] = strlen(text);
	now[entry] = (uint8_t *)strdup(text);
}

struct fixture {
	char dir[64];
	int fd;
	struct history h;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	snprintf(f->dir, sizeof f->dir, "/tmp/mhfu-test-history.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->fd = open(f->dir, O_RDONLY | O_DIRECTORY);
	assert_true(f->fd >= 0);
	for (uint32_t i = 0; i < ENTRIES; i++)
		set_now(i, "pristine");
	struct fs_diag msg;
	assert_int_equal(history_open(&f->h, -1, ENTRIES, 0, NULL, 0, current, NULL, &msg), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	history_close(&f->h);
	close(f->fd);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
	assert_int_equal(system(cmd), 0);
	for (uint32_t i = 0; i < ENTRIES; i++) {
		free(now[i]);
		now[i] = NULL;
	}
	free(f);
	return 0;
}

static void reopen(struct fixture *f, size_t max)
{
	struct fs_diag msg = {""};
	history_close(&f->h);
	assert_int_equal(history_open(&f->h, f->fd, ENTRIES, max, NULL, 0, current, NULL, &msg), 0);
}

/* Commits entry's bytes from what they are now to `text`, landing. */
static uint64_t commit(struct history *h, uint32_t entry, const char *text, uint64_t undoes,
		       bool landed)
{
	struct history_change c = {.entry = entry, .path = "file_x/3/stream2/slot024.txt",
				   .old = now[entry], .old_len = now_len[entry],
				   .now = (const uint8_t *)text, .now_len = strlen(text),
				   .undoes = undoes};
	struct fs_diag why = {""};
	uint64_t id = 0;
	assert_int_equal(history_prepare(h, &c, &id, &why), 0);
	history_settle(h, id, landed);
	if (landed)
		set_now(entry, text);
	return id;
}

static void assert_previous(struct history *h, uint64_t id, const char *want)
{
	const struct history_commit *c = history_find(h, id);
	uint8_t *bytes;
	size_t len;
	struct fs_diag why = {""};
	assert_non_null(c);
	assert_int_equal(history_previous(h, c, now[c->entry], now_len[c->entry], &bytes, &len,
					  &why), 0);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(bytes, want, len);
	free(bytes);
}

static void assert_original(struct history *h, uint32_t entry, const char *want)
{
	const uint8_t *bytes;
	size_t len;
	assert_true(history_changed(h, entry));
	assert_int_equal(history_original(h, entry, &bytes, &len), 0);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(bytes, want, len);
}

static void test_commits_and_originals_outlive_a_reopen(void **state)
{
	struct fixture *f = *state;
	reopen(f, 0);
	assert_int_equal(commit(&f->h, 3, "first edit", 0, true), 1);
	assert_int_equal(commit(&f->h, 3, "second edit", 0, true), 2);
	assert_int_equal(commit(&f->h, 5, "other", 0, true), 3);
	assert_int_equal(commit(&f->h, 3, "first edit", 2, true), 4);
	reopen(f, 0);
	assert_int_equal(f->h.n, 4);
	assert_int_equal(f->h.next_id, 5);
	assert_previous(&f->h, 1, "pristine");
	assert_previous(&f->h, 2, "first edit");
	assert_previous(&f->h, 4, "second edit");
	assert_int_equal(history_find(&f->h, 4)->undoes, 2);
	assert_string_equal(history_find(&f->h, 4)->path, "file_x/3/stream2/slot024.txt");
	/* The original is the bytes before the first commit, only. */
	assert_original(&f->h, 3, "pristine");
	assert_original(&f->h, 5, "pristine");
	assert_false(history_changed(&f->h, 4));
	uint32_t e;
	assert_true(history_next_changed(&f->h, 0, &e));
	assert_int_equal(e, 3);
	assert_true(history_next_changed(&f->h, 4, &e));
	assert_int_equal(e, 5);
	assert_false(history_next_changed(&f->h, 6, &e));
}

static void test_a_commit_that_did_not_land_is_taken_back(void **state)
{
	struct fixture *f = *state;
	reopen(f, 0);
	commit(&f->h, 1, "landed", 0, true);
	assert_int_equal(commit(&f->h, 1, "failed", 0, false), 2);
	assert_int_equal(f->h.n, 1);
	assert_null(history_find(&f->h, 2));
	/* The id is given again: nothing refers to it. */
	assert_int_equal(commit(&f->h, 1, "landed again", 0, true), 2);
	reopen(f, 0);
	assert_int_equal(f->h.n, 2);
	assert_previous(&f->h, 2, "landed");
}

/* Note 3: a record of bytes the entry never held (a crash before the
 * journal) goes at open; so do the records before it that the next one
 * does not continue... and a record the next one continues stays. */
static void test_open_keeps_the_chains_that_landed(void **state)
{
	struct fixture *f = *state;
	reopen(f, 0);
	commit(&f->h, 2, "a", 0, true);
	commit(&f->h, 2, "b", 0, true);
	commit(&f->h, 7, "x", 0, true);
	/* Prepared and synced, then the crash: never settled, never landed. */
	struct history_change c = {.entry = 2, .path = "p", .old = now[2], .old_len = now_len[2],
				   .now = (const uint8_t *)"c", .now_len = 1};
	struct fs_diag why = {""};
	uint64_t id;
	assert_int_equal(history_prepare(&f->h, &c, &id, &why), 0);
	reopen(f, 0);
	assert_int_equal(f->h.n, 3);
	assert_null(history_find(&f->h, id));
	/* The archive changed behind the history's back: entry 7's last
	 * record does not hold, entry 2's chain still does. */
	set_now(7, "restored from elsewhere");
	reopen(f, 0);
	assert_null(history_find(&f->h, 3));
	assert_non_null(history_find(&f->h, 1));
	assert_non_null(history_find(&f->h, 2));
}

/* Note 2: a record is written unsynced, its bytes handed to the journal
 * (h->note); history_sync syncs the records written since.  After a power
 * loss took records the journal still holds, the open writes them again
 * from the notes the journal replayed, and the chain before them stands;
 * without them, it would not. */
static void test_records_the_journal_carried_come_back(void **state)
{
	struct fixture *f = *state;
	struct journal_note notes[3];
	struct fs_diag why = {""};
	reopen(f, 0);
	const char *texts[3] = {"a", "b", "c"};
	for (int i = 0; i < 3; i++) {
		commit(&f->h, 6, texts[i], 0, true);
		assert_non_null(f->h.note);
		notes[i].len = f->h.note_len;
		notes[i].bytes = malloc(notes[i].len);
		memcpy(notes[i].bytes, f->h.note, notes[i].len);
	}
	assert_int_equal(f->h.nunsynced, 3);
	assert_int_equal(history_sync(&f->h, &why), 0);
	assert_int_equal(f->h.nunsynced, 0);
	history_close(&f->h);
	char path[128];
	for (int id = 2; id <= 3; id++) {
		snprintf(path, sizeof path, "%s/history/%012d", f->dir, id);
		assert_int_equal(unlink(path), 0);
	}
	/* Given back: 2 and 3 return, 1 continues into 2. */
	assert_int_equal(history_open(&f->h, f->fd, ENTRIES, 0, notes + 1, 2, current, NULL, &why),
			 0);
	assert_int_equal(f->h.n, 3);
	assert_previous(&f->h, 3, "b");
	assert_previous(&f->h, 1, "pristine");
	history_close(&f->h);
	/* Lost again, and not given back: the chain ending at 1 goes. */
	for (int id = 2; id <= 3; id++) {
		snprintf(path, sizeof path, "%s/history/%012d", f->dir, id);
		assert_int_equal(unlink(path), 0);
	}
	assert_int_equal(history_open(&f->h, f->fd, ENTRIES, 0, NULL, 0, current, NULL, &why), 0);
	assert_int_equal(f->h.n, 0);
	for (int i = 0; i < 3; i++)
		free(notes[i].bytes);
}

static void corrupt(const char *dir, const char *name, bool cut)
{
	char path[128];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	if (cut) {
		assert_int_equal(truncate(path, st.st_size / 2), 0);
		return;
	}
	int fd = open(path, O_RDWR);
	uint8_t b;
	assert_int_equal(pread(fd, &b, 1, st.st_size - 10), 1);
	b ^= 0x40;
	assert_int_equal(pwrite(fd, &b, 1, st.st_size - 10), 1);
	close(fd);
}

static void test_damaged_files(void **state)
{
	struct fixture *f = *state;
	reopen(f, 0);
	commit(&f->h, 4, "one", 0, true);
	commit(&f->h, 4, "two", 0, true);
	corrupt(f->dir, "history/000000000002", true);
	corrupt(f->dir, "original/00004", false);
	reopen(f, 0);
	/* A record cut short goes at open, and with it the chain it ended. */
	assert_null(history_find(&f->h, 2));
	assert_null(history_find(&f->h, 1));
	/* A damaged original goes too: the entry gets one at its next commit. */
	assert_false(history_changed(&f->h, 4));
	commit(&f->h, 4, "three", 0, true);
	reopen(f, 0);
	assert_original(&f->h, 4, "two");
	/* A record damaged after the open: its undo fails, saying so. */
	corrupt(f->dir, "history/000000000003", false);
	uint8_t *bytes;
	size_t len;
	struct fs_diag why = {""};
	assert_int_equal(history_previous(&f->h, history_find(&f->h, 3), now[4], now_len[4], &bytes,
					  &len, &why), EIO);
	assert_non_null(strstr(why.msg, "history/000000000003 is damaged"));
}

static void test_bounds_drop_the_oldest(void **state)
{
	struct fixture *f = *state;
	char text[16];
	reopen(f, 3);
	for (int i = 1; i <= 5; i++) {
		snprintf(text, sizeof text, "edit %d", i);
		commit(&f->h, (uint32_t)(i % 2), text, 0, true);
	}
	assert_int_equal(f->h.n, 3);
	assert_int_equal(f->h.commits[0].id, 3);
	reopen(f, 3);
	assert_int_equal(f->h.n, 3);
	assert_int_equal(f->h.commits[0].id, 3);
	assert_previous(&f->h, 3, "edit 1");
	/* Originals are kept past the bounds. */
	assert_original(&f->h, 1, "pristine");
	assert_original(&f->h, 0, "pristine");
	int dir = openat(f->fd, "history", O_RDONLY | O_DIRECTORY);
	assert_true(dir >= 0);
	assert_int_equal(faccessat(dir, "000000000002", F_OK, 0), -1);
	assert_int_equal(faccessat(dir, "000000000003", F_OK, 0), 0);
	/* A smaller bound at the next open drops the oldest at once. */
	reopen(f, 2);
	assert_int_equal(f->h.n, 2);
	assert_int_equal(f->h.commits[0].id, 4);
	assert_int_equal(faccessat(dir, "000000000003", F_OK, 0), -1);
	close(dir);
}

/* Random edits of one entry (replacements, insertions, removals, at
 * either end too), each undone from the last bytes: every commit gives
 * back exactly the bytes before it, through every later one. */
static void test_random_edits_go_back_exactly(void **state)
{
	struct fixture *f = *state;
	enum { EDITS = 40, MAX_LEN = 3000 };
	struct rng r;
	rng_init(&r, 14, 0);
	uint8_t *versions[EDITS + 1];
	size_t lens[EDITS + 1];
	reopen(f, 0);
	lens[0] = 1000;
	versions[0] = malloc(lens[0]);
	for (size_t i = 0; i < lens[0]; i++)
		versions[0][i] = (uint8_t)rng_below(&r, 4);
	free(now[6]);
	now[6] = malloc(lens[0]);
	memcpy(now[6], versions[0], lens[0]);
	now_len[6] = lens[0];
	for (int e = 1; e <= EDITS; e++) {
		size_t was = lens[e - 1], at = rng_below(&r, was + 1);
		size_t cut = rng_below(&r, was - at + 1) / (rng_below(&r, 3) + 1);
		size_t put = rng_below(&r, 64);
		if (was - cut + put > MAX_LEN)
			put = 0;
		lens[e] = was - cut + put;
		versions[e] = malloc(lens[e] ? lens[e] : 1);
		memcpy(versions[e], versions[e - 1], at);
		for (size_t i = 0; i < put; i++)
			versions[e][at + i] = (uint8_t)rng_below(&r, 4);
		memcpy(versions[e] + at + put, versions[e - 1] + at + cut, was - at - cut);
		struct history_change c = {.entry = 6, .path = "p", .old = versions[e - 1],
					   .old_len = was, .now = versions[e], .now_len = lens[e]};
		struct fs_diag why = {""};
		uint64_t id;
		assert_int_equal(history_prepare(&f->h, &c, &id, &why), 0);
		history_settle(&f->h, id, true);
		assert_int_equal(id, (uint64_t)e);
	}
	free(now[6]);
	now[6] = malloc(lens[EDITS] ? lens[EDITS] : 1);
	memcpy(now[6], versions[EDITS], lens[EDITS]);
	now_len[6] = lens[EDITS];
	reopen(f, 0);
	assert_int_equal(f->h.n, EDITS);
	for (int e = 1; e <= EDITS; e++) {
		uint8_t *bytes;
		size_t len;
		struct fs_diag why = {""};
		assert_int_equal(history_previous(&f->h, history_find(&f->h, (uint64_t)e), now[6],
						  now_len[6], &bytes, &len, &why), 0);
		assert_int_equal(len, lens[e - 1]);
		assert_memory_equal(bytes, versions[e - 1], len);
		free(bytes);
	}
	/* Bytes the history did not leave are refused, not taken back. */
	uint8_t *bytes;
	size_t len;
	struct fs_diag why = {""};
	assert_int_equal(history_previous(&f->h, history_find(&f->h, 1), (const uint8_t *)"x", 1,
					  &bytes, &len, &why), EIO);
	assert_non_null(strstr(why.msg, "changed outside this mount"));
	for (int e = 0; e <= EDITS; e++)
		free(versions[e]);
}

static void test_in_memory(void **state)
{
	struct fixture *f = *state;
	struct fs_diag msg = {""};
	history_close(&f->h);
	assert_int_equal(history_open(&f->h, -1, ENTRIES, 0, NULL, 0, current, NULL, &msg), 0);
	commit(&f->h, 9, "kept in memory", 0, true);
	commit(&f->h, 9, "again", 0, true);
	assert_previous(&f->h, 2, "kept in memory");
	assert_original(&f->h, 9, "pristine");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_commits_and_originals_outlive_a_reopen, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_commit_that_did_not_land_is_taken_back, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_open_keeps_the_chains_that_landed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_records_the_journal_carried_come_back, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_damaged_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounds_drop_the_oldest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_random_edits_go_back_exactly, setup, teardown),
		cmocka_unit_test_setup_teardown(test_in_memory, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
