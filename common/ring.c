/* ring.c: blocks handed to a thread of their own through a few slots. */
#include "ring.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"

#define RING_SLOTS 4
#define RING_SLOT ((size_t)1 << 20)

struct ring {
	ring_take_fn *take;
	void *ctx;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *slot[RING_SLOTS];
	size_t len[RING_SLOTS];
	unsigned head, count; /* the oldest slot waiting, and how many wait */
	int done, failed;
	int direct;           /* no thread: ring_put takes at once */
	struct pool_thread th;
};

static void
ring_thread(void *arg)
{
	struct ring *r = arg;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (r->count == 0 && !r->done)
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->count == 0)
			break;
		unsigned i = r->head;
		int failed = r->failed;
		pthread_mutex_unlock(&r->mu);
		/* after a failure the rest is only taken off the slots */
		int rc = failed ? 0 : r->take(r->ctx, r->slot[i], r->len[i]);
		pthread_mutex_lock(&r->mu);
		r->failed |= rc < 0;
		r->head = (r->head + 1) % RING_SLOTS;
		r->count--;
		pthread_cond_broadcast(&r->cv);
	}
	pthread_mutex_unlock(&r->mu);
}

struct ring *
ring_new(ring_take_fn *take, void *ctx)
{
	struct ring *r = calloc(1, sizeof *r);

	if (r == NULL)
		return NULL;
	for (int i = 0; i < RING_SLOTS; i++)
		if ((r->slot[i] = malloc(RING_SLOT)) == NULL) {
			while (i-- > 0)
				free(r->slot[i]);
			free(r);
			return NULL;
		}
	r->take = take;
	r->ctx = ctx;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	r->th = (struct pool_thread)POOL_THREAD_INIT;
	r->direct = !pool_spawn(&r->th, ring_thread, r);
	return r;
}

int
ring_put(struct ring *r, const void *p, size_t n)
{
	const char *q = p;

	if (r->direct) {
		if (!r->failed && r->take(r->ctx, p, n) < 0)
			r->failed = 1;
		return r->failed ? -1 : 0;
	}
	while (n > 0) {
		size_t k = n < RING_SLOT ? n : RING_SLOT;
		pthread_mutex_lock(&r->mu);
		while (r->count == RING_SLOTS && !r->failed)
			pthread_cond_wait(&r->cv, &r->mu);
		unsigned i = (r->head + r->count) % RING_SLOTS;
		int failed = r->failed;
		pthread_mutex_unlock(&r->mu);
		if (failed)
			return -1;
		/* slot i is this thread's until count takes it in */
		memcpy(r->slot[i], q, k);
		r->len[i] = k;
		pthread_mutex_lock(&r->mu);
		r->count++;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		q += k;
		n -= k;
	}
	return 0;
}

int
ring_end(struct ring *r)
{
	int failed;

	if (r == NULL)
		return 0;
	pthread_mutex_lock(&r->mu);
	r->done = 1;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pool_join(&r->th); /* with no thread: nothing waits, ring_thread returns */
	failed = r->failed;
	for (int i = 0; i < RING_SLOTS; i++)
		free(r->slot[i]);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
	free(r);
	return failed ? -1 : 0;
}
