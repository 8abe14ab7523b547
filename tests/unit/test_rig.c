/* SPDX-License-Identifier: MIT */
/* The rig's derived facts (codecs/rig.h) on hand-built skeletons, with
 * the values worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rig.h"

/* Bones as (parent, x, y, z), params {0, animated}. */
static struct skeleton rig_of(const float (*b)[4], uint32_t n, uint32_t animated)
{
	struct skeleton s = {.game = SKELETON_MHFU, .nbones = n, .nparams = 2,
			     .params = {0, animated}};
	s.bones = calloc(n, sizeof *s.bones);
	assert_non_null(s.bones);
	for (uint32_t i = 0; i < n; i++) {
		s.bones[i].parent = (int32_t)b[i][0];
		memcpy(s.bones[i].position, &b[i][1], 3 * sizeof(float));
		s.bones[i].part = i >= animated;
	}
	return s;
}

/*      0 (1,2,3)
 *      `- 1 (+10,0,0)            fork: two children
 *         |- 2 (+0,10,0)  = (11,12,3)
 *         `- 3 (+0,0,10)  = (11,2,13)   animated: 0..3
 *      4 (5,5,5), a second root past the animated joints: severed
 *      `- 5 (+1,1,1)      = (6,6,6) */
static const float tree[][4] = {
	{-1, 1, 2, 3}, {0, 10, 0, 0}, {1, 0, 10, 0}, {1, 0, 0, 10}, {-1, 5, 5, 5}, {4, 1, 1, 1},
};

static void facts_by_hand(void **state)
{
	(void)state;
	struct skeleton s = rig_of(tree, 6, 4);
	double w[3];
	assert_int_equal(rig_animated(&s), 4);
	assert_int_equal(rig_body_fork(&s), 1);
	assert_int_equal(rig_severed_root(&s), 4);
	assert_int_equal(rig_bind_world(&s, 2, w, NULL), MH_OK);
	assert_true(w[0] == 11 && w[1] == 12 && w[2] == 3);
	assert_int_equal(rig_bind_world(&s, 3, w, NULL), MH_OK);
	assert_true(w[0] == 11 && w[1] == 2 && w[2] == 13);
	assert_int_equal(rig_bind_world(&s, 5, w, NULL), MH_OK);
	assert_true(w[0] == 6 && w[1] == 6 && w[2] == 6);
	s.params[1] = 99; /* more than the bones: all are animated */
	assert_int_equal(rig_animated(&s), 6);
	assert_int_equal(rig_severed_root(&s), -1);
	skeleton_free(&s);
}

static void broken_chains_are_named(void **state)
{
	(void)state;
	const float loop[][4] = {{1, 0, 0, 0}, {0, 1, 1, 1}, {7, 0, 0, 0}};
	struct skeleton s = rig_of(loop, 3, 3);
	struct mh_diag d = {0};
	double w[3];
	assert_int_equal(rig_bind_world(&s, 1, w, &d), MH_ECORRUPT);
	assert_non_null(strstr(d.msg, "bone 1: its chain of parents loops"));
	assert_int_equal(rig_bind_world(&s, 2, w, &d), MH_ECORRUPT);
	assert_non_null(strstr(d.msg, "bone 2: its chain of parents leaves the skeleton"));
	assert_int_equal(rig_body_fork(&s), -1);
	size_t len;
	char *text = rig_bind_world_text(&s, "t", &len);
	assert_non_null(text);
	assert_non_null(strstr(text, "\n2\t7\t0\t-\t-\t-\t"));
	free(text);
	skeleton_free(&s);
}

static void text_rows(void **state)
{
	(void)state;
	struct skeleton s = rig_of(tree, 6, 4);
	size_t len;
	char *text = rig_bind_world_text(&s, "file_06185/0.skeleton", &len);
	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	assert_non_null(strstr(text, "# animated joints 0..3; body fork 1; severed chain from 4\n"));
	assert_non_null(strstr(text, "\n0\t-1\t0\t1\t2\t3\troot\n"));
	assert_non_null(strstr(text, "\n1\t0\t0\t11\t2\t3\tfork\n"));
	assert_non_null(strstr(text, "\n2\t1\t0\t11\t12\t3\t-\n"));
	assert_non_null(strstr(text, "\n4\t-1\t1\t5\t5\t5\tsevered\n"));
	assert_non_null(strstr(text, "\n5\t4\t1\t6\t6\t6\tstatic\n"));
	free(text);
	skeleton_free(&s);
}

/* A part's joints: the run of animated joints of that part, whatever
 * follows the animated count; none without a count or for a part split
 * in two.  The count is sound from 1 to the bones, or unsaid. */
static void part_joints(void **state)
{
	(void)state;
	struct skeleton s = rig_of(tree, 6, 4); /* parts 0 0 0 0 | 1 1 */
	uint32_t first, count;
	assert_true(rig_part_joints(&s, 0, &first, &count));
	assert_true(first == 0 && count == 4);
	assert_false(rig_part_joints(&s, 1, &first, &count)); /* past the animated joints */
	s.params[1] = 6;
	assert_true(rig_part_joints(&s, 1, &first, &count));
	assert_true(first == 4 && count == 2);
	s.params[1] = 3; /* the count cuts part 0 short */
	assert_true(rig_part_joints(&s, 0, &first, &count));
	assert_true(first == 0 && count == 3);
	s.bones[1].part = 1; /* 0 1 0: part 0 is no run */
	assert_false(rig_part_joints(&s, 0, &first, &count));
	assert_true(rig_part_joints(&s, 1, &first, &count));
	assert_true(first == 1 && count == 1);
	assert_false(rig_part_joints(&s, 7, &first, &count));
	assert_true(rig_animated_sound(&s));
	s.params[1] = 0;
	assert_false(rig_animated_sound(&s));
	assert_false(rig_part_joints(&s, 0, &first, &count));
	s.params[1] = 7;
	assert_false(rig_animated_sound(&s));
	s.params[1] = 6;
	assert_true(rig_animated_sound(&s));
	s.nparams = 1; /* unsaid: every bone animated, but no part is known */
	assert_true(rig_animated_sound(&s));
	assert_int_equal(rig_animated(&s), 6);
	assert_false(rig_part_joints(&s, 0, &first, &count));
	skeleton_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(facts_by_hand),
		cmocka_unit_test(broken_chains_are_named),
		cmocka_unit_test(text_rows),
		cmocka_unit_test(part_joints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
