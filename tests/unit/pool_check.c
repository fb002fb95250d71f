/* pool_check.c: common/pool.h on no thread, one and several: every job
 * runs once, into its own slot, whatever the number of threads; jobs
 * posted in steps are waited for in order; a pool freed early runs
 * nothing new; pool_spawn's function runs once, on its thread or in
 * pool_join. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/pool.h"

#define N 10000

struct run {
	unsigned long *slot; /* each job's result */
	atomic_int *ran;     /* times each job ran */
	atomic_int *busy;    /* jobs running with each worker number */
	int workers;
	atomic_int clash; /* two jobs at once on one worker number */
	atomic_int badw;  /* a worker number out of range */
};

static void
job(void *arg, size_t i, int w)
{
	struct run *r = arg;
	unsigned long x = i * 2654435761ul;

	if (w < 0 || w >= r->workers) {
		r->badw = 1;
		return;
	}
	if (atomic_fetch_add(&r->busy[w], 1) != 0)
		r->clash = 1;
	for (int k = 0; k < 200; k++) /* some work, so that threads overlap */
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	r->slot[i] = x;
	atomic_fetch_add(&r->ran[i], 1);
	atomic_fetch_sub(&r->busy[w], 1);
}

static int fails;

static void
expect(int ok, const char *what, int threads)
{
	if (!ok) {
		fprintf(stderr, "pool_check: %s (%d threads)\n", what, threads);
		fails++;
	}
}

static unsigned long
digest(const unsigned long *v, size_t n)
{
	unsigned long h = 1469598103934665603ul;

	for (size_t i = 0; i < n; i++)
		h = (h ^ v[i]) * 1099511628211ul;
	return h;
}

static void
run_pool(int threads, unsigned long *want)
{
	struct pool *p = pool_new(threads);
	struct run r = { 0 };
	int once = 1;

	expect(p != NULL, "pool_new", threads);
	if (p == NULL)
		return;
	r.workers = pool_workers(p);
	expect(r.workers >= 1 && r.workers <= threads + 1, "pool_workers", threads);
	r.slot = calloc(N, sizeof *r.slot);
	r.ran = calloc(N, sizeof *r.ran);
	r.busy = calloc((size_t)r.workers, sizeof *r.busy);

	/* all at once */
	pool_run(p, N, job, &r);
	for (size_t i = 0; i < N; i++)
		once &= r.ran[i] == 1;
	expect(once, "pool_run: each job once", threads);
	if (*want == 0)
		*want = digest(r.slot, N);
	expect(digest(r.slot, N) == *want, "pool_run: the same results", threads);

	/* in steps: a few posted at a time, waited for in order */
	memset(r.slot, 0, N * sizeof *r.slot);
	for (size_t i = 0; i < N; i++)
		r.ran[i] = 0;
	pool_start(p, job, &r);
	for (size_t at = 0, posted = 0; at < N; at += 7) {
		size_t upto = at + 7 < N ? at + 7 : N;
		if (posted < N)
			pool_post(p, posted = posted + 23 < N ? posted + 23 : N);
		pool_wait(p, upto);
		for (size_t i = at; i < upto; i++)
			expect(r.ran[i] == 1, "pool_wait: the jobs below n have run", threads);
	}
	pool_wait(p, N);
	once = 1;
	for (size_t i = 0; i < N; i++)
		once &= r.ran[i] == 1;
	expect(once, "posted in steps: each job once", threads);
	expect(digest(r.slot, N) == *want, "posted in steps: the same results", threads);

	/* an empty run, and a wait beyond what was posted */
	pool_run(p, 0, job, &r);
	pool_start(p, job, &r);
	pool_post(p, 3);
	pool_wait(p, 10);
	expect(r.ran[0] == 2 && r.ran[1] == 2 && r.ran[2] == 2 && r.ran[3] == 1,
	    "pool_wait past the posted jobs waits for those posted", threads);
	expect(!r.clash, "one job at a time per worker number", threads);
	expect(!r.badw, "worker numbers below pool_workers", threads);

	/* freed with jobs posted: it returns, and runs each at most once */
	pool_start(p, job, &r);
	pool_post(p, N);
	pool_free(p);
	once = 1;
	for (size_t i = 0; i < N; i++)
		once &= r.ran[i] <= 3;
	expect(once, "pool_free: no job runs twice", threads);
	free(r.slot);
	free(r.ran);
	free(r.busy);
}

static void
side(void *arg)
{
	atomic_fetch_add((atomic_int *)arg, 1);
}

int
main(void)
{
	unsigned long want = 0;
	static const int threads[] = { 0, 1, 2, 3, 8 };

	for (size_t k = 0; k < sizeof threads / sizeof threads[0]; k++)
		run_pool(threads[k], &want);
	pool_free(NULL);

	struct pool_thread t = POOL_THREAD_INIT, never = POOL_THREAD_INIT;
	atomic_int n = 0;
	int started = pool_spawn(&t, side, &n);
	pool_join(&t);
	expect(n == 1, "pool_spawn: the function ran once by pool_join", started);
	pool_join(&t);
	pool_join(&never);
	expect(n == 1, "pool_join again, or never spawned: nothing", started);
	expect(pool_cpus() >= 1, "pool_cpus", 0);
	if (fails)
		return 1;
	printf("pool_check: %d jobs on 0 to 8 threads, one answer; a side thread joined\n", N);
	return 0;
}
