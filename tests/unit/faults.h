/* SPDX-License-Identifier: MIT */
/* Allocation fault injection for the unit tests, which fail allocation
 * call 1, 2, 3... until no fault fires, and check each failure is clean).
 *
 * Including this header in a test program replaces malloc, calloc,
 * realloc and free for the whole program with thin wrappers over glibc's
 * allocator that can fail the k-th allocation from a given moment and
 * count live allocations, so a test can check that a codec call under a
 * failing allocation ends in a clean MH_ENOMEM and leaks nothing.
 *
 * Only where that is safe: with glibc, and not under AddressSanitizer
 * (whose allocator must see every allocation).  Elsewhere
 * FAULTS_AVAILABLE is 0 and tests using it skip. */
#ifndef MH_TEST_FAULTS_H
#define MH_TEST_FAULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__) || !defined(__GLIBC__)
#define FAULTS_AVAILABLE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FAULTS_AVAILABLE 0
#endif
#endif
#ifndef FAULTS_AVAILABLE
#define FAULTS_AVAILABLE 1
#endif

static long faults_countdown = -1; /* allocations to let through; -1: all */
static bool faults_fired;          /* the armed failure happened */
static long faults_live;           /* allocations made minus freed */

#if FAULTS_AVAILABLE
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
void __libc_free(void *p);

static bool faults_fire(void)
{
	if (faults_countdown < 0)
		return false;
	if (faults_countdown-- > 0)
		return false;
	faults_fired = true;
	return true;
}

void *malloc(size_t n)
{
	if (faults_fire())
		return NULL;
	void *p = __libc_malloc(n);
	faults_live += p != NULL;
	return p;
}

void *calloc(size_t n, size_t size)
{
	if (faults_fire())
		return NULL;
	void *p = __libc_calloc(n, size);
	faults_live += p != NULL;
	return p;
}

void *realloc(void *p, size_t n)
{
	if (faults_fire())
		return NULL;
	void *q = __libc_realloc(p, n);
	if (!p && q)
		faults_live++;
	else if (p && !q && n == 0)
		faults_live--;
	return q;
}

void free(void *p)
{
	faults_live -= p != NULL;
	__libc_free(p);
}
#endif

/* Makes the allocation `k` allocations from now (0: the next) fail. */
static inline void faults_arm(long k)
{
	faults_fired = false;
	faults_countdown = k;
}

/* Stops failing; returns whether the armed failure happened. */
static inline bool faults_disarm(void)
{
	faults_countdown = -1;
	return faults_fired;
}

#endif
