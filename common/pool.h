/* pool.h: jobs run on a few threads, the caller one of them; and one
 * function run beside the caller on a thread of its own.
 *
 * A pool runs jobs numbered 0, 1, 2, ...: each is fn(arg, i, worker),
 * taken in order of its number by whichever thread is free.  A job writes
 * only into its own slot (the caller's, indexed by i), so the caller reads
 * the results in input order once the jobs are waited for, and the bytes
 * do not depend on the number of threads.  worker (0 for the caller, 1 to
 * pool_workers() - 1 for the pool's threads) lets a job keep scratch of
 * its thread's own; no two jobs run at once with one worker number.
 *
 * A thread that cannot start is no error: the pool has fewer, down to
 * none, and the caller runs the jobs no thread has taken while it waits
 * for them.  No job is ever lost.
 *
 * Ownership: a pool belongs to the one thread that made it; only that
 * thread starts, posts, waits for and frees its jobs.  fn and arg are
 * borrowed until the jobs are waited for.  There is no global state: each
 * owner makes the pool it needs and frees it.
 */
#ifndef COHORT_POOL_H
#define COHORT_POOL_H

#include <pthread.h>
#include <stddef.h>

/* The most threads a pool starts. */
#define POOL_MAX_THREADS 256

typedef void pool_fn(void *arg, size_t i, int worker);

struct pool;

/* A pool of up to threads threads besides the caller (0: the caller alone;
 * capped at POOL_MAX_THREADS), started now.  NULL when out of memory. */
struct pool *pool_new(int threads);
/* Wait for the jobs running; those posted and not begun are not run (an
 * owner stopping early frees the pool before what they would read).
 * pool_free(NULL) does nothing. */
void pool_free(struct pool *p);
/* The number of worker numbers: the threads that started, and the caller. */
int pool_workers(const struct pool *p);
/* The online processors (at least 1): what "as many threads as there are
 * processors" means. */
int pool_cpus(void);

/* Run jobs 0 .. n-1 and return once all have run. */
void pool_run(struct pool *p, size_t n, pool_fn *fn, void *arg);

/* The same in steps, for jobs that become ready one after another:
 * pool_start begins a new run of fn (numbered from 0, after every job of
 * the run before has been waited for); pool_post lets the jobs below n
 * be taken (n never decreases); pool_wait returns once every job below n
 * (n at most what was posted) has run, running on the caller those it
 * waits for that no thread has taken. */
void pool_start(struct pool *p, pool_fn *fn, void *arg);
void pool_post(struct pool *p, size_t n);
void pool_wait(struct pool *p, size_t n);

/* One function beside the caller.  pool_spawn starts fn(arg) on a thread
 * of its own and returns 1, or returns 0 when no thread can start: then
 * pool_join runs fn on the caller.  pool_join waits for fn to return (or
 * runs it), once; on a POOL_THREAD_INIT that was never spawned it does
 * nothing, so a cleanup path may always call it.  The struct belongs to
 * the thread that spawned it, which must join before arg goes. */
struct pool_thread {
	pthread_t th;
	void (*fn)(void *);
	void *arg;
	int started; /* fn runs on th */
};

#define POOL_THREAD_INIT { .fn = NULL }

int pool_spawn(struct pool_thread *t, void (*fn)(void *), void *arg);
void pool_join(struct pool_thread *t);

#endif
