/* mem.h: large arrays, made ready at once; arrays that grow.
 *
 * A freeze or a verify of a million games fills arrays of a hundred
 * megabytes each.  Taking their memory from the kernel a 4 KB page at a
 * time, one page fault each, cost about as much as the work done in them;
 * asking for all of an array's pages in one call costs a fraction of that.
 * A hint only: where the kernel cannot (before Linux 5.14), the pages come
 * one fault at a time as before.
 */
#ifndef COHORT_MEM_H
#define COHORT_MEM_H

#include <stddef.h>

/* Have the pages of p[0..n) there and writable, when n is a quarter
 * megabyte or more (p may be NULL).  Returns p.  Best called by the
 * thread that is about to write them, each thread for its own part. */
void *mem_ready(void *p, size_t n);
/* The same for reading p[0..n), a part of a file's mapping about to be
 * read through: its pages mapped in one call rather than a fault for each
 * few. */
void mem_ready_read(const void *p, size_t n);
/* Room for need elements of size bytes in the array *p of capacity *cap
 * (both updated), the capacity doubled until it holds them: 0, or -1 when
 * out of memory (or past SIZE_MAX bytes), *p then as it was. */
int mem_grow(void **p, size_t *cap, size_t need, size_t size);

#endif
