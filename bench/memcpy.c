/*
 * bench/memcpy.c - the host memcpy reference for `make bench`.
 *
 * Copies SIZE bytes between two distinct, pre-touched buffers of random
 * data, several runs, and prints the best (and the median) rate counted
 * two ways:
 * "copied" (SIZE / time: what the transfer suite reports, bytes moved)
 * and "read+written" (2 x SIZE / time: what the bandwidth suite's copy
 * kernel reports).  Small sizes are repeated in a loop long enough for
 * the clock, so they show cache rather than memory bandwidth.
 *
 * usage: memcpy [-r RUNS] [SIZE...]   (SIZE with K/M/G suffixes)
 * Besides the table it prints machine-readable lines
 *   memcpy_256M_copy_GBps=11.52
 *   memcpy_256M_rw_GBps=23.04
 *   memcpy_256M_copy_median_GBps=11.20  (and _rw_median_)
 * for bench/run.sh.
 */
#include "core/error.h"
#include "core/params.h"
#include "core/vk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MIN_RUN_S 0.05 /* each run lasts at least this long */

static const struct ax_param_def size_def = {
    "SIZE", AX_PT_INT, 1, 1LL << 36, NULL, 0, AX_PARAM_BYTES, "bytes to copy",
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Seconds per copy of size bytes in each of runs runs, sorted: t[0] is
 * the best, t[runs / 2] the median. */
static void copy_times(unsigned char *dst, const unsigned char *src,
		       size_t size, int runs, double *t)
{
	/* Enough copies per run that one run lasts MIN_RUN_S. */
	double t0 = now_s();
	memcpy(dst, src, size);
	double one = now_s() - t0;
	long reps = one > 0 ? (long)(MIN_RUN_S / one) + 1 : 1000;
	if (reps > 1000000)
		reps = 1000000;
	for (int r = 0; r < runs; r++) {
		t0 = now_s();
		for (long i = 0; i < reps; i++) {
			memcpy(dst, src, size);
			/* Keep the compiler from merging the copies. */
			__asm__ volatile("" ::"r"(dst) : "memory");
		}
		t[r] = (now_s() - t0) / (double)reps;
	}
	qsort(t, (size_t)runs, sizeof(*t), cmp_double);
}

static int bench_size(const char *text, int runs)
{
	char err[256];
	int64_t size;
	if (ax_param_parse(&size_def, text, &size, err, sizeof(err))) {
		fprintf(stderr, "memcpy: %s\n", err);
		return 2;
	}
	unsigned char *src, *dst;
	if (posix_memalign((void **)&src, 4096, (size_t)size + 4) ||
	    posix_memalign((void **)&dst, 4096, (size_t)size + 4)) {
		fprintf(stderr, "memcpy: cannot allocate 2 x %s\n", text);
		return 1;
	}
	/* Random source, touched destination: no zero-page shortcuts and
	 * no first-touch page faults in the timed copies. */
	ax_vk_fill_random_words((uint32_t *)src, (size_t)size / 4 + 1, 7);
	memset(dst, 0x55, (size_t)size);
	double *t = malloc(sizeof(double) * (size_t)runs);
	if (!t)
		return 1;
	copy_times(dst, src, (size_t)size, runs, t);
	bool same = memcmp(dst, src, (size_t)size) == 0;
	double best = (double)size / t[0] / 1e9;
	double median = (double)size / t[runs / 2] / 1e9;
	printf("%-8s %12.2f %18.2f %14.2f%s\n", text, best, 2 * best, median,
	       same ? "" : "  (COPY WRONG)");
	printf("memcpy_%s_copy_GBps=%.3f\n", text, best);
	printf("memcpy_%s_rw_GBps=%.3f\n", text, 2 * best);
	printf("memcpy_%s_copy_median_GBps=%.3f\n", text, median);
	printf("memcpy_%s_rw_median_GBps=%.3f\n", text, 2 * median);
	free(t);
	free(src);
	free(dst);
	return same ? 0 : 1;
}

int main(int argc, char **argv)
{
	int runs = 7, opt;
	while ((opt = getopt(argc, argv, "r:h")) != -1) {
		if (opt == 'r' && atoi(optarg) > 0) {
			runs = atoi(optarg);
			continue;
		}
		fprintf(stderr, "usage: memcpy [-r RUNS] [SIZE...]  "
				"(SIZE like 4K, 1M, 256M)\n");
		return opt == 'h' ? 0 : 2;
	}
	static char *defaults[] = {"4K", "64K", "1M", "16M", "256M"};
	char **sizes = optind < argc ? argv + optind : defaults;
	int n = optind < argc ? argc - optind : 5;
	printf("# host memcpy, %d runs (best, and median), single thread\n",
	       runs);
	printf("%-8s %12s %18s %14s\n", "size", "copied GB/s",
	       "read+written GB/s", "median copied");
	int status = 0;
	for (int i = 0; i < n; i++) {
		int rc = bench_size(sizes[i], runs);
		if (rc)
			status = rc;
	}
	return status;
}
