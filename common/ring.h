/* ring.h: bytes handed, in order, to a function run on a thread of its
 * own, through a few slots of a megabyte: the caller copies a block into
 * a free slot and goes on while the thread takes the ones before (an
 * archive's digest beside its writing, a manifest's writing beside its
 * making).  With no thread to be had, each block is taken at once, on
 * the caller.
 *
 * Ownership: a ring belongs to the thread that made it, which alone puts
 * into it and ends it; take runs on the ring's thread (or the caller's)
 * and has ctx to itself until ring_end returns.  No global state.
 */
#ifndef COHORT_RING_H
#define COHORT_RING_H

#include <stddef.h>

/* Take n bytes at p: 0, or -1 when the rest is not to be taken. */
typedef int ring_take_fn(void *ctx, const void *p, size_t n);

struct ring;

/* A ring whose blocks go to take(ctx, ...); NULL when out of memory. */
struct ring *ring_new(ring_take_fn *take, void *ctx);
/* Hand n bytes on (waiting while every slot is full): 0, or -1 once a
 * take has failed (the bytes are then dropped). */
int ring_put(struct ring *r, const void *p, size_t n);
/* Wait until every block handed on is taken, then free r: 0, or -1 when a
 * take failed.  ring_end(NULL) is 0. */
int ring_end(struct ring *r);

#endif
