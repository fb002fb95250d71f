/* mem.c: see mem.h. */
#define _GNU_SOURCE
#include "mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(MADV_POPULATE_WRITE) || defined(MADV_POPULATE_READ)
/* madvise p[0..n) with advice, from a quarter megabyte: whole pages inside
 * it only, or (outward) from the page it starts in. */
static void
advise(const void *p, size_t n, int advice, int outward)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = outward ? (uintptr_t)p & ~(page - 1) : ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t hi = outward ? (uintptr_t)p + n : ((uintptr_t)p + n) & ~(page - 1);

	if (p != NULL && n >= ((size_t)256 << 10) && hi > lo)
		(void)madvise((void *)lo, hi - lo, advice);
}
#endif

void *
mem_ready(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	/* Whole pages inside the array only: the ends may be shared with the
	 * allocator's own bookkeeping, which is there already anyway. */
	advise(p, n, MADV_POPULATE_WRITE, 0);
#endif
	return p;
}

void
mem_ready_read(const void *p, size_t n)
{
#ifdef MADV_POPULATE_READ
	/* A mapping's pages may be asked for from its page boundary on. */
	advise(p, n, MADV_POPULATE_READ, 1);
#endif
}

int
mem_grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t nc;
	void *q;

	if (need <= *cap)
		return 0;
	for (nc = *cap ? *cap : 16; nc < need; nc *= 2)
		if (nc > SIZE_MAX / 2)
			return -1;
	if (size > 0 && nc > SIZE_MAX / size)
		return -1;
	if ((q = realloc(*p, nc * size)) == NULL)
		return -1;
	*p = q;
	*cap = nc;
	return 0;
}
