/* SPDX-License-Identifier: MIT */
/* The record's left/ (fs/store/record.h): a scratch folder left at
 * unmount is kept as a tree at its path (folders, files with their bytes
 * and permission bits, links), and only the newest RECORD_MAX_LEFT
 * unmounts' trees stay. */
#include "testlib.h"

#include "record.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

struct fixture {
	char dir[PATH_MAX];
	struct record r;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	const char *tmp = getenv("TMPDIR");
	snprintf(f->dir, sizeof f->dir, "%s/mhfu-test-record.XXXXXX", tmp && *tmp ? tmp : P_tmpdir);
	assert_non_null(mkdtemp(f->dir));
	struct fs_diag msg;
	assert_int_equal(record_open(&f->r, f->dir, &msg), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	record_close(&f->r);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* The trees in left/, counted; the newest's name in newest. */
static size_t trees(const struct fixture *f, char *newest, size_t len)
{
	char path[PATH_MAX + 8];
	snprintf(path, sizeof path, "%s/left", f->dir);
	DIR *d = opendir(path);
	assert_non_null(d);
	size_t n = 0;
	newest[0] = '\0';
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		n++;
		if (strcmp(e->d_name, newest) > 0)
			snprintf(newest, len, "%s", e->d_name);
	}
	closedir(d);
	return n;
}

static void test_a_folder_is_kept_as_a_tree(void **state)
{
	struct fixture *f = *state;
	struct record_left left;
	assert_int_equal(record_left_open(&f->r, &left), 0);
	/* A file before its folder (the scratch table's order is any). */
	assert_int_equal(record_left_put(&left, "file_06185/work/a/f.txt", S_IFREG | 0640,
					 "hello", 5), 0);
	assert_int_equal(record_left_put(&left, "file_06185/work/a", S_IFDIR | 0755, NULL, 0), 0);
	assert_int_equal(record_left_put(&left, "file_06185/work/empty", S_IFDIR | 0700, NULL, 0),
			 0);
	assert_int_equal(record_left_put(&left, "file_06185/work/link", S_IFLNK | 0777,
					 "a/f.txt", 7), 0);
	assert_int_equal(record_left_put(&left, "file_06185/work/p", S_IFIFO | 0644, NULL, 0),
			 EINVAL);
	record_left_close(&left);

	char name[256], path[PATH_MAX * 2], buf[16];
	assert_int_equal(trees(f, name, sizeof name), 1);
	snprintf(path, sizeof path, "%s/left/%s/file_06185/work/a/f.txt", f->dir, name);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof buf), 5);
	assert_memory_equal(buf, "hello", 5);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	close(fd);
	snprintf(path, sizeof path, "%s/left/%s/file_06185/work/link", f->dir, name);
	ssize_t n = readlink(path, buf, sizeof buf);
	assert_int_equal(n, 7);
	assert_memory_equal(buf, "a/f.txt", 7);
	snprintf(path, sizeof path, "%s/left/%s/file_06185/work/empty", f->dir, name);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	snprintf(path, sizeof path, "%s/left/%s/file_06185/work/p", f->dir, name);
	assert_int_not_equal(lstat(path, &st), 0);
}

static void test_the_newest_unmounts_trees_stay(void **state)
{
	struct fixture *f = *state;
	char name[256], last[256] = "";
	for (int i = 0; i < RECORD_MAX_LEFT + 3; i++) {
		struct record_left left;
		/* Names are microseconds: one apart at least. */
		usleep(2);
		assert_int_equal(record_left_open(&f->r, &left), 0);
		char file[32];
		snprintf(file, sizeof file, "w/%d", i);
		assert_int_equal(record_left_put(&left, file, S_IFREG | 0644, "x", 1), 0);
		record_left_close(&left);
		assert_int_equal(trees(f, name, sizeof name), (size_t)(i < RECORD_MAX_LEFT ? i + 1
									   : RECORD_MAX_LEFT));
		assert_true(strcmp(name, last) > 0);
		snprintf(last, sizeof last, "%s", name);
	}
	/* The one left of the oldest is the fourth made (i = 3). */
	char path[PATH_MAX + 8];
	snprintf(path, sizeof path, "%s/left", f->dir);
	DIR *d = opendir(path);
	char oldest[256] = "~";
	for (struct dirent *e; (e = readdir(d));)
		if (e->d_name[0] != '.' && strcmp(e->d_name, oldest) < 0)
			snprintf(oldest, sizeof oldest, "%s", e->d_name);
	closedir(d);
	char file[PATH_MAX * 2];
	snprintf(file, sizeof file, "%s/left/%s/w/3", f->dir, oldest);
	assert_int_equal(access(file, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_a_folder_is_kept_as_a_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_the_newest_unmounts_trees_stay, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
