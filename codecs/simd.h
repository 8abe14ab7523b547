/* SPDX-License-Identifier: MIT */
/* Loops worth vectorizing where the processor allows: VECTOR_CLONES
 * before a function makes GCC build it for SSE2, AVX2 and AVX-512 and
 * pick the widest the processor has when the program loads (-O2 alone
 * vectorizes few loops).  The clones do the same double operations in
 * the same order, none fused (-std=c11 forbids contracting a * b + c),
 * so they give the same bits.  Not under ThreadSanitizer: the loader
 * calls the clones' resolver before TSan's runtime is up, and the
 * instrumented resolver crashes the program at start. */
#ifndef MH_SIMD_H
#define MH_SIMD_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12 && \
	!defined(__SANITIZE_THREAD__)
#define VECTOR_CLONES                                                        \
	__attribute__((target_clones("default", "avx2", "arch=x86-64-v4"), \
		       optimize("tree-vectorize")))
#else
#define VECTOR_CLONES
#endif

#endif
