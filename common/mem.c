/* mem.c: see mem.h. */
#define _GNU_SOURCE
#include "mem.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

void *
mem_ready(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	/* Whole pages inside the array only: the ends may be shared with the
	 * allocator's own bookkeeping, which is there already anyway. */
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1), hi = ((uintptr_t)p + n) & ~(page - 1);

	if (p != NULL && n >= ((size_t)256 << 10) && hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#endif
	return p;
}

void
mem_ready_read(const void *p, size_t n)
{
#ifdef MADV_POPULATE_READ
	/* A mapping's pages may be asked for from its page boundary on. */
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)p & ~(page - 1), hi = (uintptr_t)p + n;

	if (p != NULL && n >= ((size_t)256 << 10))
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_READ);
#endif
}
