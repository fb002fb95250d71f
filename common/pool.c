/* pool.c: jobs on a few threads and the caller; one function beside the
 * caller (see pool.h). */
#include "pool.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define NONE SIZE_MAX

struct worker {
	struct pool *p;
	int w;
	pthread_t th;
};

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t work; /* a job posted, or the end */
	pthread_cond_t done; /* a job ended */
	pool_fn *fn;
	void *arg;
	size_t posted;     /* jobs below may be taken */
	size_t taken;      /* jobs below have been taken */
	size_t *running;   /* each worker's job, or NONE */
	struct worker *wk; /* the threads: worker numbers 1 .. nth */
	int nth;
	int stop;
};

/* With mu held and a job to take: take it, run it as worker w, and
 * return with mu held again. */
static void
run_one(struct pool *p, int w)
{
	size_t i = p->taken++;
	pool_fn *fn = p->fn;
	void *arg = p->arg;

	p->running[w] = i;
	pthread_mutex_unlock(&p->mu);
	fn(arg, i, w);
	pthread_mutex_lock(&p->mu);
	p->running[w] = NONE;
	pthread_cond_signal(&p->done);
}

/* Every job below this has run: jobs are taken in order, so those below
 * the least one still running have all ended. */
static size_t
finished(const struct pool *p)
{
	size_t f = p->taken;

	for (int w = 0; w <= p->nth; w++)
		if (p->running[w] < f)
			f = p->running[w];
	return f;
}

static void *
worker_main(void *arg)
{
	struct worker *wk = arg;
	struct pool *p = wk->p;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->stop && p->taken == p->posted)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->stop)
			break;
		run_one(p, wk->w);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct pool *
pool_new(int threads)
{
	struct pool *p = calloc(1, sizeof *p);

	if (threads < 0)
		threads = 0;
	if (threads > POOL_MAX_THREADS)
		threads = POOL_MAX_THREADS;
	if (p == NULL)
		return NULL;
	p->running = malloc(((size_t)threads + 1) * sizeof *p->running);
	p->wk = calloc((size_t)threads + 1, sizeof *p->wk);
	if (p->running == NULL || p->wk == NULL) {
		free(p->running);
		free(p->wk);
		free(p);
		return NULL;
	}
	for (int w = 0; w <= threads; w++)
		p->running[w] = NONE;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	/* a thread that cannot start leaves the pool with fewer */
	for (; p->nth < threads; p->nth++) {
		struct worker *wk = &p->wk[p->nth];
		wk->p = p;
		wk->w = p->nth + 1;
		if (pthread_create(&wk->th, NULL, worker_main, wk) != 0)
			break;
	}
	return p;
}

void
pool_free(struct pool *p)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nth; i++)
		pthread_join(p->wk[i].th, NULL);
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->mu);
	free(p->running);
	free(p->wk);
	free(p);
}

int
pool_workers(const struct pool *p)
{
	return p->nth + 1;
}

int
pool_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > POOL_MAX_THREADS ? POOL_MAX_THREADS : (int)n;
}

void
pool_start(struct pool *p, pool_fn *fn, void *arg)
{
	pthread_mutex_lock(&p->mu);
	p->fn = fn;
	p->arg = arg;
	p->posted = 0;
	p->taken = 0;
	pthread_mutex_unlock(&p->mu);
}

void
pool_post(struct pool *p, size_t n)
{
	pthread_mutex_lock(&p->mu);
	if (n > p->posted) {
		if (n - p->posted == 1)
			pthread_cond_signal(&p->work);
		else
			pthread_cond_broadcast(&p->work);
		p->posted = n;
	}
	pthread_mutex_unlock(&p->mu);
}

void
pool_wait(struct pool *p, size_t n)
{
	pthread_mutex_lock(&p->mu);
	if (n > p->posted)
		n = p->posted;
	while (finished(p) < n) {
		if (p->taken < n)
			run_one(p, 0);
		else
			pthread_cond_wait(&p->done, &p->mu);
	}
	pthread_mutex_unlock(&p->mu);
}

void
pool_run(struct pool *p, size_t n, pool_fn *fn, void *arg)
{
	pool_start(p, fn, arg);
	pool_post(p, n);
	pool_wait(p, n);
}

static void *
spawn_main(void *arg)
{
	struct pool_thread *t = arg;

	t->fn(t->arg);
	return NULL;
}

int
pool_spawn(struct pool_thread *t, void (*fn)(void *), void *arg)
{
	t->fn = fn;
	t->arg = arg;
	t->started = pthread_create(&t->th, NULL, spawn_main, t) == 0;
	return t->started;
}

void
pool_join(struct pool_thread *t)
{
	if (t->fn == NULL)
		return;
	if (t->started)
		pthread_join(t->th, NULL);
	else
		t->fn(t->arg);
	t->fn = NULL;
	t->started = 0;
}
