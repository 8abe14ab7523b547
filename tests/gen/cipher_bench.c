/* SPDX-License-Identifier: MIT */
/* cipher_bench: in-process cipher throughput, sequential and at random
 * offsets (the mount's reads), for `make bench`.  Prints two lines:
 * "sequential MB/s" and "random MB/s". */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cipher.h"
#include "rng.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(void)
{
	size_t n = 256u << 20, chunk = 128u << 10;
	unsigned char *buf = malloc(n);
	struct rng r = {42};
	if (!buf)
		return 1;
	rng_bytes(&r, buf, n);
	double t0 = now();
	cipher_decrypt(1234, 0, buf, n);
	double t1 = now();
	for (size_t done = 0; done < n; done += chunk)
		cipher_decrypt((uint32_t)rng_below(&r, 1u << 20), rng_below(&r, 1ull << 30),
			       buf + done, chunk);
	double t2 = now();
	printf("sequential %.0f\nrandom %.0f\n", n / 1e6 / (t1 - t0), n / 1e6 / (t2 - t1));
	free(buf);
	return 0;
}
