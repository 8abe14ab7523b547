/* SPDX-License-Identifier: MIT */
/* The table of inode numbers (fs/cache/inodes.h): a commit's plan retires what
 * the kernel holds of the views it changes, a stale number answers what
 * it was told while files of it are open and ESTALE after, or is made
 * current again once its last file closed, a write never
 * shares a number with cached readers nor with pages stored unasked, a place takes its own number back
 * once the kernel holds none of its numbers, and nothing is left behind
 * when the kernel forgets everything (random operations against a model
 * of the kernel). */
#include "testlib.h"

#include "inodes.h"
#include "rng.h"

/* Place numbers as node.h makes them: an entry field below ALLOC_TOP. */
#define PLACE(i) ((uint64_t)((i) + 1) << 48 | 0x21u)

static struct stat attrs(off_t size)
{
	struct stat st = {.st_mode = S_IFREG | 0644, .st_size = size, .st_nlink = 1};
	st.st_mtim.tv_sec = 1000 + size;
	return st;
}

static void lookup(struct inodes *t, uint64_t ino, uint64_t place, off_t size)
{
	struct stat st = attrs(size);
	assert_int_equal(inodes_pin(t, place, 7), ino);
	inodes_told(t, ino, &st);
}

static size_t records(const struct inodes *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->cap; i++)
		n += t->slot[i].ino && t->slot[i].ino != ~0ull;
	return n;
}

/* A judge retiring every file it is shown, and counting them. */
static enum ino_fate retire_all(void *ctx, uint64_t ino, uint64_t place)
{
	(void)ino;
	(void)place;
	(*(int *)ctx)++;
	return FATE_RETIRE;
}

static void commit(struct inodes *t)
{
	struct ino_plan plan = {0};
	int judged = 0;
	assert_int_equal(inodes_plan(t, retire_all, &judged, &plan), 0);
	inodes_apply(t, &plan);
	inodes_plan_free(&plan);
}

static void test_a_commit_retires_what_the_kernel_holds(void **state)
{
	(void)state;
	struct inodes t;
	inodes_init(&t);
	uint64_t p = PLACE(6185);
	assert_int_equal(inodes_current(&t, p), p);
	lookup(&t, p, p, 3766);
	bool cache = false;
	assert_int_equal(inodes_open(&t, p, p, false, false, &cache), 0);
	assert_true(cache);
	commit(&t);

	/* The old number keeps its attributes while open, the place moved. */
	uint64_t now = inodes_current(&t, p);
	assert_int_not_equal(now, p);
	assert_int_equal(now >> 48, INODES_ALLOC_TOP);
	uint64_t place;
	assert_true(inodes_place(&t, now, &place));
	assert_int_equal(place, p);
	struct stat st;
	assert_int_equal(inodes_answer(&t, p, &st), ANSWER_TOLD);
	assert_int_equal(st.st_size, 3766);
	assert_int_equal(st.st_nlink, 0);
	assert_int_equal(st.st_ino, p);
	assert_int_equal(st.st_mtim.tv_sec, 1000 + 3766);
	/* A new open of it reads the view as it is now, through. */
	assert_int_equal(inodes_open(&t, p, p, false, false, &cache), 0);
	assert_false(cache);
	assert_false(inodes_release(&t, p, false));
	assert_int_equal(inodes_answer(&t, p, &st), ANSWER_TOLD);
	assert_false(inodes_release(&t, p, false));
	/* With no file open, it answers its place's attributes. */
	assert_int_equal(inodes_answer(&t, p, &st), ANSWER_PLACE);
	/* A write to it needs a new number: the kernel is to find it. */
	assert_int_equal(inodes_open(&t, p, p, true, false, &cache), ESTALE);

	/* The new number is a fresh one: its place's attributes, cacheable,
	 * but read through while the view has a writer (not exposing it). */
	lookup(&t, now, p, 3764);
	assert_int_equal(inodes_answer(&t, now, &st), ANSWER_PLACE);
	assert_int_equal(inodes_open(&t, now, p, false, true, &cache), 0);
	assert_false(cache);
	assert_false(inodes_cached(&t, now));
	inodes_release(&t, now, false);
	assert_int_equal(inodes_open(&t, now, p, false, false, &cache), 0);
	assert_true(cache);
	inodes_release(&t, now, false);
	assert_int_equal(atomic_load(&t.retired), 1);

	/* Forgotten, both go, and the place takes its number back. */
	inodes_forget(&t, p, 1);
	assert_int_equal(inodes_current(&t, p), now);
	inodes_forget(&t, now, 1);
	assert_int_equal(inodes_current(&t, p), p);
	assert_int_equal(records(&t), 0);
	inodes_destroy(&t);
}

static void test_an_unopened_number_answers_its_place(void **state)
{
	(void)state;
	struct inodes t;
	inodes_init(&t);
	uint64_t p = PLACE(7);
	lookup(&t, p, p, 10);
	commit(&t);
	struct stat st;
	/* No page of it was ever cached: its attributes follow the place. */
	assert_int_equal(inodes_answer(&t, p, &st), ANSWER_PLACE);
	assert_false(inodes_cached(&t, p));
	bool cache = true;
	assert_int_equal(inodes_open(&t, p, p, false, false, &cache), 0);
	assert_false(cache);
	/* Nothing caches its pages: a writer may have it. */
	assert_int_equal(inodes_open(&t, p, p, true, false, &cache), 0);
	assert_false(inodes_release(&t, p, true));
	assert_false(inodes_release(&t, p, false));
	inodes_forget(&t, p, 1);
	assert_int_equal(records(&t), 0);
	inodes_destroy(&t);
}

/* A stale number the kernel holds, once its last file closed, becomes
 * its place's current number again, as new, while the kernel holds no
 * file of it nor the current number; not when a file opened it after
 * the ticket (its pages might be back). */
static void test_a_stale_number_is_revived(void **state)
{
	(void)state;
	struct inodes t;
	inodes_init(&t);
	uint64_t p = PLACE(12);
	bool cache = false;
	uint32_t ticket;
	struct stat now_attrs = attrs(20), st;
	lookup(&t, p, p, 10);
	/* cat > FILE: the writer's close comes after its commit. */
	assert_int_equal(inodes_open(&t, p, p, true, false, &cache), 0);
	commit(&t);
	assert_false(inodes_revivable(&t, p, &ticket));
	assert_false(inodes_release(&t, p, true)); /* stale already */
	assert_true(inodes_revivable(&t, p, &ticket));
	assert_true(inodes_revive(&t, p, ticket, &now_attrs));
	assert_int_equal(inodes_current(&t, p), p);
	assert_int_equal(atomic_load(&t.revived), 1);
	assert_int_equal(atomic_load(&t.moved), 0);
	assert_int_equal(inodes_open(&t, p, p, false, false, &cache), 0);
	assert_true(cache);
	/* Retired again before the kernel asked: while the reader is open,
	 * the number answers the size of what it reads (the revival's, 20),
	 * not the size told of the old contents (10). */
	commit(&t);
	assert_int_equal(inodes_answer(&t, p, &st), ANSWER_TOLD);
	assert_int_equal(st.st_size, 20);
	assert_false(inodes_release(&t, p, false));
	assert_true(inodes_revivable(&t, p, &ticket));
	assert_true(inodes_revive(&t, p, ticket, &now_attrs));

	/* Opened after the ticket: not revived. */
	commit(&t);
	assert_true(inodes_revivable(&t, p, &ticket));
	assert_int_equal(inodes_open(&t, p, p, false, false, &cache), 0);
	assert_false(cache);
	assert_false(inodes_release(&t, p, false));
	assert_false(inodes_revive(&t, p, ticket, &now_attrs));
	/* The kernel holds the current number: not revivable. */
	uint64_t now = inodes_current(&t, p);
	lookup(&t, now, p, 11);
	assert_false(inodes_revivable(&t, p, &ticket));

	/* An allocated number is revived the same way, p staying stale. */
	assert_int_equal(inodes_open(&t, now, p, true, false, &cache), 0);
	commit(&t);
	assert_false(inodes_release(&t, now, true));
	assert_true(inodes_revivable(&t, now, &ticket));
	assert_true(inodes_revive(&t, now, ticket, &now_attrs));
	assert_int_equal(inodes_current(&t, p), now);
	assert_int_equal(inodes_open(&t, now, p, false, false, &cache), 0);
	assert_true(cache);
	assert_false(inodes_release(&t, now, false));
	inodes_forget(&t, p, 1);
	inodes_forget(&t, now, 1);
	assert_int_equal(records(&t), 0);
	assert_int_equal(atomic_load(&t.moved), 0);
	inodes_destroy(&t);
}

static void test_a_writer_never_shares_a_cached_number(void **state)
{
	(void)state;
	struct inodes t;
	inodes_init(&t);
	uint64_t p = PLACE(3), reader = p;
	bool cache = false;
	lookup(&t, p, p, 100);
	assert_int_equal(inodes_open(&t, p, p, false, false, &cache), 0);
	assert_true(inodes_cached(&t, p));

	/* A write open of the cached number moves the place to a number
	 * for writing, and fails for the kernel to look the name up again. */
	assert_int_equal(inodes_open(&t, p, p, true, false, &cache), ESTALE);
	uint64_t w = inodes_current(&t, p);
	assert_int_not_equal(w, p);
	lookup(&t, w, p, 100);
	assert_int_equal(inodes_open(&t, w, p, true, false, &cache), 0);
	/* A second writer shares it; a reader of it reads through. */
	assert_int_equal(inodes_open(&t, w, p, true, false, &cache), 0);
	cache = true;
	assert_int_equal(inodes_open(&t, w, p, false, false, &cache), 0);
	assert_false(cache);
	assert_false(inodes_cached(&t, w));
	struct stat st;
	assert_int_equal(inodes_answer(&t, w, &st), ANSWER_PLACE);
	assert_false(inodes_release(&t, w, false));
	assert_false(inodes_release(&t, w, true));
	/* The last writer's close retires it: readers get a clean number. */
	assert_true(inodes_release(&t, w, true));
	uint64_t clean = inodes_current(&t, p);
	assert_int_not_equal(clean, w);
	lookup(&t, clean, p, 120);
	assert_int_equal(inodes_open(&t, clean, p, false, false, &cache), 0);
	assert_true(cache);

	/* The first reader's number answered what it was told all along. */
	assert_int_equal(inodes_answer(&t, reader, &st), ANSWER_TOLD);
	assert_int_equal(st.st_size, 100);
	inodes_release(&t, reader, false);
	inodes_release(&t, clean, false);
	inodes_forget(&t, reader, 1);
	inodes_forget(&t, w, 1);
	inodes_forget(&t, clean, 1);
	assert_int_equal(records(&t), 0);
	assert_int_equal(atomic_load(&t.moved), 0);
	inodes_destroy(&t);
}

/* Pages stored unasked (prefetch.h) go only under a number the kernel
 * holds that no writer has: exposed as by a cached open, so that a
 * writer then moves to a number of its own. */
static void test_stores_expose_held_numbers_no_writer_has(void **state)
{
	(void)state;
	struct inodes t;
	inodes_init(&t);
	uint64_t p = PLACE(8), q = PLACE(9);
	bool cache = false;
	assert_int_equal(inodes_expose(&t, p), 0); /* the kernel holds none */
	lookup(&t, p, p, 64);
	assert_int_equal(inodes_expose(&t, p), p);
	assert_true(inodes_cached(&t, p));
	assert_int_equal(inodes_open(&t, p, p, true, false, &cache), ESTALE);
	uint64_t w = inodes_current(&t, p);
	assert_int_not_equal(w, p);
	lookup(&t, w, p, 64);
	assert_int_equal(inodes_open(&t, w, p, true, false, &cache), 0);
	assert_int_equal(inodes_expose(&t, p), 0); /* the writer's number */
	assert_true(inodes_release(&t, w, true));
	/* Retired at the writer's close: the clean number is stored into. */
	uint64_t clean = inodes_current(&t, p);
	lookup(&t, clean, p, 64);
	assert_int_equal(inodes_expose(&t, p), clean);

	/* A number a writer made (not cached before) is its writer's too. */
	lookup(&t, q, q, 32);
	assert_int_equal(inodes_open(&t, q, q, true, false, &cache), 0);
	assert_int_equal(inodes_expose(&t, q), 0);
	inodes_release(&t, q, true);
	inodes_forget(&t, p, 1);
	inodes_forget(&t, w, 1);
	inodes_forget(&t, clean, 1);
	inodes_forget(&t, q, 1);
	assert_int_equal(records(&t), 0);
	inodes_destroy(&t);
}

static void test_a_truncate_by_path_of_a_cached_number_moves_it(void **state)
{
	(void)state;
	struct inodes t;
	inodes_init(&t);
	uint64_t p = PLACE(4);
	bool cache;
	lookup(&t, p, p, 50);
	assert_int_equal(inodes_truncate(&t, p, p), 0); /* never opened */
	assert_int_equal(inodes_open(&t, p, p, false, false, &cache), 0);
	inodes_release(&t, p, false);
	assert_int_equal(inodes_truncate(&t, p, p), ESTALE);
	uint64_t w = inodes_current(&t, p);
	lookup(&t, w, p, 50);
	assert_int_equal(inodes_truncate(&t, w, p), 0);
	assert_int_equal(inodes_truncate(&t, p, p), ESTALE); /* stale, cached */
	inodes_forget(&t, p, 1);
	inodes_forget(&t, w, 1);
	assert_int_equal(records(&t), 0);
	inodes_destroy(&t);
}

/* A judge retiring one place's numbers, refreshing another's. */
static enum ino_fate pick(void *ctx, uint64_t ino, uint64_t place)
{
	(void)ino;
	const uint64_t *which = ctx;
	return place == which[0] ? FATE_RETIRE : place == which[1] ? FATE_REFRESH : FATE_KEEP;
}

static void test_plans_judge_held_current_numbers_only(void **state)
{
	(void)state;
	struct inodes t;
	inodes_init(&t);
	uint64_t a = PLACE(1), b = PLACE(2), c = PLACE(3), which[2] = {a, b};
	bool cache;
	lookup(&t, a, a, 1);
	lookup(&t, b, b, 2);
	lookup(&t, c, c, 3);
	assert_int_equal(inodes_open(&t, a, a, false, false, &cache), 0);
	struct ino_plan plan = {0};
	assert_int_equal(inodes_plan(&t, pick, which, &plan), 0);
	assert_int_equal(plan.n, 2);
	/* A commit that does not land changes nothing. */
	inodes_cancel(&plan);
	assert_int_equal(plan.n, 0);
	assert_int_equal(inodes_current(&t, a), a);

	assert_int_equal(inodes_plan(&t, pick, which, &plan), 0);
	inodes_apply(&t, &plan);
	assert_int_equal(plan.applied, 2);
	uint64_t a2 = inodes_current(&t, a);
	assert_int_not_equal(a2, a);
	assert_int_equal(inodes_current(&t, b), b); /* a folder keeps its number */
	for (size_t i = 0; i < plan.n; i++)
		if (plan.steps[i].fate == FATE_RETIRE)
			assert_int_equal(plan.steps[i].next, a2);
	inodes_plan_free(&plan);

	/* Stale numbers are not judged again; unheld places not at all. */
	assert_int_equal(inodes_plan(&t, pick, which, &plan), 0);
	assert_int_equal(plan.n, 1);
	assert_int_equal(plan.steps[0].ino, b);
	/* A number forgotten between plan and apply is left out. */
	inodes_forget(&t, b, 1);
	inodes_apply(&t, &plan);
	inodes_plan_free(&plan);

	inodes_release(&t, a, false);
	inodes_forget(&t, a, 1);
	inodes_forget(&t, c, 1);
	assert_int_equal(records(&t), 0);
	inodes_destroy(&t);
}

/* The kernel, as the table sees it: per number, its lookups and opens. */
struct kernel {
	uint64_t ino[4096], place[4096];
	unsigned lookups[4096], reads[4096], writes[4096];
	size_t n;
};

static size_t kernel_find(struct kernel *k, uint64_t ino, uint64_t place)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->ino[i] == ino)
			return i;
	assert_true(k->n < 4096);
	k->ino[k->n] = ino;
	k->place[k->n] = place;
	k->lookups[k->n] = k->reads[k->n] = k->writes[k->n] = 0;
	return k->n++;
}

/* Random lookups, opens, closes, forgets and commits of a few places:
 * a current number is never stale nor of another place, no number comes
 * back once gone, a stale cached number answers what it was told, and
 * when the kernel forgets everything nothing is left. */
static void test_random_operations_leave_nothing_behind(void **state)
{
	(void)state;
	struct inodes t;
	struct kernel *k = calloc(1, sizeof *k);
	struct rng r;
	rng_init(&r, 15, 0);
	inodes_init(&t);
	uint64_t seen_max = 0;
	for (int step = 0; step < 20000; step++) {
		uint64_t p = PLACE(rng_below(&r, 40));
		uint64_t cur = inodes_current(&t, p), place;
		struct stat st;
		bool cache;
		assert_true(cur == p || (inodes_place(&t, cur, &place) && place == p));
		if (cur >> 48 == INODES_ALLOC_TOP) {
			assert_true(cur >= seen_max || inodes_place(&t, cur, &place));
			if (cur > seen_max)
				seen_max = cur;
		}
		size_t i = kernel_find(k, cur, p);
		switch (rng_below(&r, 9)) {
		case 0:
		case 1:
			lookup(&t, cur, p, (off_t)step);
			k->lookups[i]++;
			break;
		case 2:
			if (k->lookups[i] && !inodes_open(&t, cur, p, false, false, &cache))
				k->reads[i]++;
			break;
		case 3:
			if (k->lookups[i] && !inodes_open(&t, cur, p, true, false, &cache))
				k->writes[i]++;
			break;
		case 4:
			if (rng_below(&r, 4) == 0)
				commit(&t);
			break;
		default: {
			/* A number the kernel holds (any, stale or not) lets go. */
			size_t j = rng_below(&r, k->n);
			uint32_t ticket;
			if (k->reads[j] || k->writes[j]) {
				bool write = !k->reads[j];
				inodes_release(&t, k->ino[j], write);
				(write ? k->writes : k->reads)[j]--;
				/* As the driver does at a close (inodes.h, 7). */
				struct stat now_attrs = attrs(30);
				if (inodes_revivable(&t, k->ino[j], &ticket))
					assert_true(inodes_revive(&t, k->ino[j], ticket, &now_attrs));
			} else if (k->lookups[j]) {
				inodes_forget(&t, k->ino[j], k->lookups[j]);
				k->lookups[j] = 0;
			}
			/* Gone from the kernel: out of the model. */
			if (!k->reads[j] && !k->writes[j] && !k->lookups[j]) {
				k->n--;
				k->ino[j] = k->ino[k->n], k->place[j] = k->place[k->n];
				k->lookups[j] = k->lookups[k->n], k->reads[j] = k->reads[k->n];
				k->writes[j] = k->writes[k->n];
			}
			break;
		}
		}
		/* A stale number a reader cached keeps its size while open. */
		if (inodes_answer(&t, cur, &st) == ANSWER_TOLD)
			assert_int_equal(st.st_ino, p);
	}
	for (size_t i = 0; i < k->n; i++) {
		for (; k->reads[i]; k->reads[i]--)
			inodes_release(&t, k->ino[i], false);
		for (; k->writes[i]; k->writes[i]--)
			inodes_release(&t, k->ino[i], true);
		if (k->lookups[i])
			inodes_forget(&t, k->ino[i], k->lookups[i]);
	}
	assert_int_equal(records(&t), 0);
	assert_int_equal(atomic_load(&t.moved), 0);
	assert_true(atomic_load(&t.revived) > 0);
	inodes_destroy(&t);
	free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_commit_retires_what_the_kernel_holds),
		cmocka_unit_test(test_an_unopened_number_answers_its_place),
		cmocka_unit_test(test_a_stale_number_is_revived),
		cmocka_unit_test(test_a_writer_never_shares_a_cached_number),
		cmocka_unit_test(test_stores_expose_held_numbers_no_writer_has),
		cmocka_unit_test(test_a_truncate_by_path_of_a_cached_number_moves_it),
		cmocka_unit_test(test_plans_judge_held_current_numbers_only),
		cmocka_unit_test(test_random_operations_leave_nothing_behind),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
