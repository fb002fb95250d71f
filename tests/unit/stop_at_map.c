/* stop_at_map.c: a library preloaded into cohort by the tests that cut a
 * file while it is mapped (tests/cut.test.sh, tests/report.test.sh).
 * When cohort maps a file whose path (as the kernel knows it, from
 * /proc/self/fd) ends with $COHORT_TEST_STOP_AT_MAP, the process stops
 * itself (SIGSTOP) right after the mapping is made, once: the test then
 * cuts the file and lets it go on (SIGCONT).  So the cut falls while the
 * file is mapped on any machine, however busy, where a test that raced
 * the program to the file could lose.  Built without the sanitizers
 * (ASAN_OPTIONS=verify_asan_link_order=0 lets it go first). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);

static int stopped;

static void
maybe_stop(int fd)
{
	const char *want = getenv("COHORT_TEST_STOP_AT_MAP");
	char link[64], path[4096];
	ssize_t n;
	size_t w;

	if (stopped || want == NULL || *want == '\0' || fd < 0)
		return;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof path - 1);
	if (n <= 0)
		return;
	path[n] = '\0';
	w = strlen(want);
	if ((size_t)n >= w && strcmp(path + n - w, want) == 0) {
		stopped = 1;
		raise(SIGSTOP);
	}
}

void *
mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static mmap_fn real;
	void *p;

	if (real == NULL)
		real = (mmap_fn)dlsym(RTLD_NEXT, "mmap");
	p = real(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED)
		maybe_stop(fd);
	return p;
}

void *
mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}
