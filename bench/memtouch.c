/* memtouch: how fast this machine hands out fresh memory just now.
 *
 * usage: memtouch MB
 * Maps MB megabytes, writes one byte in every 4 KB page and prints the
 * rate in GB/s.  On a shared VM that gives memory back to its host, the
 * first touch of a page can cost several times what it does on a machine
 * of its own, and the more so the longer the memory lay unused; cohort's
 * freeze and verify touch hundreds of megabytes afresh, openssl and jq a
 * few.  The bench prints it beside their times. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

int
main(int argc, char **argv)
{
	size_t n = argc == 2 ? (size_t)strtoul(argv[1], NULL, 10) << 20 : 0;
	struct timespec t0, t1;
	char *p;

	if (n == 0) {
		fprintf(stderr, "usage: memtouch MB\n");
		return 2;
	}
	p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("memtouch: mmap");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	printf("%.2f\n", s > 0 ? (double)n / s / 1e9 : 0.0);
	munmap(p, n);
	return 0;
}
