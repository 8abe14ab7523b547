/* SPDX-License-Identifier: MIT */
/* The scratch table (fs/store/scratch.h): scratch folders hold files and
 * folders, count their subfolders as links, change their times when a
 * name comes or goes in them and pass a set-group-ID bit on; a rename
 * replaces a folder only by an empty folder and a file only by a file;
 * a file's hard links are names of one file, which goes with its last;
 * removing a folder's file and the folder gives its room back. */
#include "testlib.h"

#include "scratch.h"

#include <errno.h>
#include <time.h>

#define ROOT 1 /* a view folder's number: no scratch bit */

static struct scratch *make(struct scratch_table *t, uint64_t parent, const char *name,
			    mode_t mode)
{
	struct scratch *f = scratch_create(t, parent, name, mode, 1000, 100);
	assert_non_null(f);
	return f;
}

static nlink_t links(struct scratch_table *t, const struct scratch *f)
{
	struct stat st;
	scratch_stat(t, f, &st);
	return st.st_nlink;
}

/* Sets f's times to the epoch, so that a change shows. */
static void age(struct scratch *f)
{
	f->st.st_mtim = f->st.st_ctim = (struct timespec){0};
}

static void test_folders_hold_files_and_count_subfolders(void **state)
{
	(void)state;
	struct scratch_table t;
	scratch_init(&t);
	struct scratch *w = make(&t, ROOT, "work", S_IFDIR | 0755);
	assert_ptr_equal(scratch_dir(&t, w->ino), w);
	assert_int_equal(links(&t, w), 2);
	struct scratch *a = make(&t, w->ino, "a", S_IFDIR | 0755);
	struct scratch *f = make(&t, w->ino, "notes.txt", S_IFREG | 0644);
	assert_null(scratch_dir(&t, f->ino));
	assert_int_equal(links(&t, w), 3); /* "..", of a, and not the file */
	assert_ptr_equal(scratch_find(&t, w->ino, "a"), a);
	assert_null(scratch_find(&t, ROOT, "a"));
	assert_ptr_equal(scratch_nth(&t, ROOT, 0, NULL), w);
	assert_null(scratch_nth(&t, ROOT, 1, NULL));
	assert_int_equal(scratch_write(f, (const uint8_t *)"hello", 5, 0), 0);
	assert_int_equal(t.used, 5);
	scratch_unlink(&t, f);
	scratch_unlink(&t, a);
	assert_int_equal(links(&t, w), 2);
	assert_null(scratch_nth(&t, w->ino, 0, NULL));
	assert_int_equal(t.used, 0);
	scratch_destroy(&t);
}

static void test_a_name_coming_or_going_changes_the_folders_times(void **state)
{
	(void)state;
	struct scratch_table t;
	scratch_init(&t);
	struct scratch *w = make(&t, ROOT, "work", S_IFDIR | 0755);
	struct scratch *v = make(&t, ROOT, "other", S_IFDIR | 0755);
	age(w);
	struct scratch *f = make(&t, w->ino, "f", S_IFREG | 0644);
	assert_true(w->st.st_mtim.tv_sec > 0 && w->st.st_ctim.tv_sec > 0);
	age(w);
	age(v);
	age(f);
	assert_int_equal(scratch_move(&t, w->ino, "f", v->ino, "g"), 0);
	assert_true(w->st.st_mtim.tv_sec > 0); /* left */
	assert_true(v->st.st_mtim.tv_sec > 0); /* came */
	assert_true(f->st.st_ctim.tv_sec > 0); /* a rename is a status change */
	assert_int_equal(f->st.st_mtim.tv_sec, 0); /* not a change of contents */
	age(v);
	scratch_unlink(&t, f);
	assert_true(v->st.st_mtim.tv_sec > 0);
	scratch_destroy(&t);
}

static void test_a_set_group_id_folder_passes_its_group_on(void **state)
{
	(void)state;
	struct scratch_table t;
	scratch_init(&t);
	struct scratch *w = scratch_create(&t, ROOT, "shared", S_IFDIR | S_ISGID | 0775, 1000, 50);
	struct scratch *f = make(&t, w->ino, "f", S_IFREG | 0644);
	struct scratch *d = make(&t, w->ino, "d", S_IFDIR | 0755);
	struct scratch *plain = make(&t, ROOT, "plain", S_IFDIR | 0755);
	struct scratch *g = make(&t, plain->ino, "g", S_IFDIR | 0755);
	assert_int_equal(f->st.st_gid, 50);
	assert_int_equal(f->st.st_mode, S_IFREG | 0644);
	assert_int_equal(d->st.st_gid, 50);
	assert_int_equal(d->st.st_mode, S_IFDIR | S_ISGID | 0755);
	assert_int_equal(g->st.st_gid, 100);
	assert_int_equal(g->st.st_mode, S_IFDIR | 0755);
	scratch_destroy(&t);
}

static void test_a_rename_replaces_like_for_like(void **state)
{
	(void)state;
	struct scratch_table t;
	scratch_init(&t);
	struct scratch *a = make(&t, ROOT, "a", S_IFDIR | 0755);
	struct scratch *b = make(&t, ROOT, "b", S_IFDIR | 0755);
	struct scratch *in_b = make(&t, b->ino, "x", S_IFREG | 0644);
	struct scratch *f = make(&t, ROOT, "f", S_IFREG | 0644);
	assert_int_equal(scratch_move(&t, ROOT, "a", ROOT, "b"), ENOTEMPTY);
	assert_int_equal(scratch_move(&t, ROOT, "f", ROOT, "a"), EISDIR);
	assert_int_equal(scratch_move(&t, ROOT, "a", ROOT, "f"), ENOTDIR);
	/* Refused: both names as they were. */
	assert_ptr_equal(scratch_find(&t, ROOT, "a"), a);
	assert_ptr_equal(scratch_find(&t, ROOT, "b"), b);
	assert_ptr_equal(scratch_find(&t, ROOT, "f"), f);
	scratch_unlink(&t, in_b);
	assert_int_equal(scratch_move(&t, ROOT, "a", ROOT, "b"), 0);
	assert_ptr_equal(scratch_find(&t, ROOT, "b"), a);
	assert_null(scratch_find(&t, ROOT, "a"));
	assert_int_equal(scratch_move(&t, ROOT, "b", ROOT, "b"), 0); /* onto itself */
	assert_int_equal(scratch_move(&t, ROOT, "nothing", ROOT, "c"), ENOENT);
	struct scratch *g = make(&t, a->ino, "g", S_IFREG | 0644);
	assert_int_equal(scratch_move(&t, ROOT, "f", a->ino, "g"), 0);
	assert_ptr_equal(scratch_find(&t, a->ino, "g"), f);
	(void)g; /* replaced: freed */
	scratch_destroy(&t);
}

static void test_hard_links_are_names_of_one_file(void **state)
{
	(void)state;
	struct scratch_table t;
	scratch_init(&t);
	struct scratch *w = make(&t, ROOT, "w", S_IFDIR | 0755);
	struct scratch *f = make(&t, ROOT, "f", S_IFREG | 0644);
	assert_int_equal(scratch_write(f, (const uint8_t *)"abc", 3, 0), 0);
	assert_int_equal(scratch_link(&t, f, w->ino, "g"), 0);
	assert_int_equal(scratch_link(&t, f, ROOT, "h"), 0);
	assert_int_equal(links(&t, f), 3);
	assert_ptr_equal(scratch_find(&t, w->ino, "g"), f);
	assert_ptr_equal(scratch_find(&t, ROOT, "h"), f);
	/* Listed under each name. */
	const char *name;
	assert_ptr_equal(scratch_nth(&t, w->ino, 0, &name), f);
	assert_string_equal(name, "g");
	int seen_h = 0;
	for (uint64_t i = 0; i < 3; i++) {
		struct scratch *n = scratch_nth(&t, ROOT, i, &name);
		assert_non_null(n);
		seen_h += !strcmp(name, "h") && n == f;
	}
	assert_int_equal(seen_h, 1);
	assert_null(scratch_nth(&t, ROOT, 3, NULL));
	/* Renaming one name onto another of the same file changes nothing. */
	assert_int_equal(scratch_move(&t, ROOT, "h", w->ino, "g"), 0);
	assert_int_equal(links(&t, f), 3);
	/* The first name goes: the next takes its place, the data stays. */
	scratch_remove(&t, ROOT, "f");
	assert_null(scratch_find(&t, ROOT, "f"));
	assert_int_equal(links(&t, f), 2);
	assert_true(f->linked);
	assert_int_equal(t.used, 3);
	assert_int_equal(scratch_move(&t, w->ino, "g", ROOT, "moved"), 0);
	assert_ptr_equal(scratch_find(&t, ROOT, "moved"), f);
	assert_null(scratch_find(&t, w->ino, "g"));
	scratch_remove(&t, ROOT, "moved");
	assert_int_equal(links(&t, f), 1);
	assert_int_equal(t.used, 3);
	/* The last name: the file goes. */
	scratch_remove(&t, ROOT, "h");
	assert_null(scratch_nth(&t, ROOT, 1, NULL));
	assert_int_equal(t.used, 0);
	scratch_destroy(&t);
}

static void test_a_removed_folders_open_file_keeps_its_data(void **state)
{
	(void)state;
	struct scratch_table t;
	scratch_init(&t);
	struct scratch *w = make(&t, ROOT, "w", S_IFDIR | 0755);
	struct scratch *f = make(&t, w->ino, "f", S_IFREG | 0644);
	uint64_t ino = f->ino;
	assert_int_equal(scratch_write(f, (const uint8_t *)"abc", 3, 0), 0);
	scratch_open(&t, ino);
	scratch_unlink(&t, f);
	scratch_unlink(&t, w);
	assert_null(scratch_nth(&t, ROOT, 0, NULL));
	assert_ptr_equal(scratch_by_ino(&t, ino), f);
	assert_memory_equal(f->data, "abc", 3);
	scratch_close(&t, ino);
	assert_null(scratch_by_ino(&t, ino));
	assert_int_equal(t.used, 0);
	scratch_destroy(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folders_hold_files_and_count_subfolders),
		cmocka_unit_test(test_a_name_coming_or_going_changes_the_folders_times),
		cmocka_unit_test(test_a_set_group_id_folder_passes_its_group_on),
		cmocka_unit_test(test_a_rename_replaces_like_for_like),
		cmocka_unit_test(test_hard_links_are_names_of_one_file),
		cmocka_unit_test(test_a_removed_folders_open_file_keeps_its_data),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
