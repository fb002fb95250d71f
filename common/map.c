/* map.c: guarded read-only mappings (map.h). */
#define _GNU_SOURCE
#include "map.h"
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The guard's table (global: see map.h).  A slot is taken under the lock
 * and published by its base; the handler reads only base, len and cut. */
static struct {
	_Atomic uintptr_t base[MAP_GUARDED]; /* 0: free */
	_Atomic size_t len[MAP_GUARDED];     /* the mapping's length, pages rounded up */
	atomic_int cut[MAP_GUARDED];         /* a SIGBUS was met in it */
	char *path[MAP_GUARDED];             /* for messages; set before base */
	char *opened[MAP_GUARDED];           /* the file as opened, absolute (from
	                                        /proc/self/fd), NULL when unknown */
	dev_t dev[MAP_GUARDED];              /* the file mapped: its device */
	ino_t ino[MAP_GUARDED];              /* and inode */
	size_t size[MAP_GUARDED];            /* the file's size when mapped */
	pthread_mutex_t lock;                /* taking and giving back slots */
	char first_cut[512];                 /* a released mapping that was cut */
	uintptr_t page;                      /* the page size */
	struct sigaction old;                /* SIGBUS's action before ours */
} g = { .lock = PTHREAD_MUTEX_INITIALIZER };

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int installed;

/* A SIGBUS in a guarded mapping: zeros from the page touched to its end
 * (async-signal-safe: atomics and one mmap system call).  Any other: the
 * action there was before, by touching the page again. */
static void
on_bus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;

	(void)uc;
	for (size_t i = 0; i < MAP_GUARDED; i++) {
		uintptr_t b = atomic_load(&g.base[i]);
		size_t n = atomic_load(&g.len[i]);
		if (b == 0 || a < b || a - b >= n)
			continue;
		uintptr_t at = a & ~(g.page - 1);
		if (mmap((void *)at, b + n - at, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
		        0) == MAP_FAILED)
			break;
		atomic_store(&g.cut[i], 1);
		return;
	}
	sigaction(sig, &g.old, NULL);
}

static void
install(void)
{
	struct sigaction sa;

	g.page = (uintptr_t)sysconf(_SC_PAGESIZE);
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_bus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	installed = sigaction(SIGBUS, &sa, &g.old) == 0;
}

/* The absolute path of the file open on fd, as the kernel resolved it
 * when it was opened (whatever the current folder is now or was then);
 * NULL when it cannot be told. */
static char *
opened_path(int fd)
{
	char link[64], path[4096];
	ssize_t n;

	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof path - 1);
	if (n <= 0 || path[0] != '/')
		return NULL;
	path[n] = '\0';
	return strdup(path);
}

/* A free slot, taken for the file open on fd, named path in messages; -1
 * when there is none. */
static int
slot_take(int fd, const char *path, size_t n)
{
	int s = -1;
	struct stat st;
	char *p = strdup(path), *o;

	if (p == NULL || fstat(fd, &st) != 0) {
		free(p);
		return -1;
	}
	o = opened_path(fd);
	pthread_mutex_lock(&g.lock);
	for (int i = 0; i < MAP_GUARDED && s < 0; i++)
		if (atomic_load(&g.base[i]) == 0 && g.path[i] == NULL)
			s = i;
	if (s >= 0) {
		g.path[s] = p;
		g.opened[s] = o;
		g.dev[s] = st.st_dev;
		g.ino[s] = st.st_ino;
		g.size[s] = n;
		atomic_store(&g.cut[s], 0);
	}
	pthread_mutex_unlock(&g.lock);
	if (s < 0) {
		free(p);
		free(o);
	}
	return s;
}

/* Past MAP_GUARDED mappings, or without the guard: the bytes read. */
static int
map_copy(int fd, const char *path, size_t n, struct map *m, struct err *e)
{
	size_t got = 0;

	if ((m->copy = malloc(n)) == NULL)
		return err_set(e, ERR_NOMEM, "%s: out of memory", path);
	while (got < n) {
		ssize_t r = pread(fd, m->copy + got, n - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(m->copy);
			m->copy = NULL;
			if (r == 0)
				return io_cut_short(e, path, n - got);
			return err_set(e, ERR_IO, "%s: read error: %s", path, strerror(errno));
		}
		got += (size_t)r;
	}
	m->p = m->copy;
	return 0;
}

int
map_fd(int fd, const char *path, size_t n, struct map *m, struct err *e)
{
	void *p;

	*m = (struct map)MAP_INIT;
	m->n = n;
	if (n == 0)
		return 0;
	pthread_once(&once, install);
	if (!installed || (m->slot = slot_take(fd, path, n)) < 0)
		return map_copy(fd, path, n, m, e);
	p = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		int saved = errno;
		map_release(m);
		return err_set(e, saved == ENOMEM ? ERR_NOMEM : ERR_IO, "%s: cannot map: %s", path,
		    strerror(saved));
	}
	atomic_store(&g.len[m->slot], (n + g.page - 1) & ~(g.page - 1));
	atomic_store(&g.base[m->slot], (uintptr_t)p);
	m->p = p;
	return 0;
}

/* 1 when slot s was cut: a SIGBUS met, or the file mapped now shorter.
 * The file is the one opened, found by its absolute path and known by its
 * device and inode: never a file of the same name in the current folder,
 * nor one put in its place since (the mapping keeps the old one's pages;
 * only a SIGBUS can tell of its cut). */
static int
slot_cut(int s)
{
	struct stat st;

	if (atomic_load(&g.cut[s]))
		return 1;
	return g.opened[s] != NULL && stat(g.opened[s], &st) == 0 && st.st_dev == g.dev[s] &&
	    st.st_ino == g.ino[s] && (uintmax_t)st.st_size < (uintmax_t)g.size[s];
}

void
map_release(struct map *m)
{
	if (m == NULL)
		return;
	if (m->slot >= 0) {
		int s = m->slot;
		uintptr_t b = atomic_load(&g.base[s]);
		pthread_mutex_lock(&g.lock);
		if (g.first_cut[0] == '\0' && b != 0 && slot_cut(s))
			snprintf(g.first_cut, sizeof g.first_cut, "%s", g.path[s]);
		atomic_store(&g.base[s], 0);
		if (b != 0)
			munmap((void *)b, m->n);
		free(g.path[s]);
		free(g.opened[s]);
		g.path[s] = NULL;
		g.opened[s] = NULL;
		pthread_mutex_unlock(&g.lock);
	}
	free(m->copy);
	*m = (struct map)MAP_INIT;
}

int
map_check(struct err *e)
{
	char name[512] = "";

	pthread_mutex_lock(&g.lock);
	snprintf(name, sizeof name, "%s", g.first_cut);
	for (int i = 0; i < MAP_GUARDED && name[0] == '\0'; i++)
		if (atomic_load(&g.base[i]) != 0 && slot_cut(i))
			snprintf(name, sizeof name, "%s", g.path[i]);
	pthread_mutex_unlock(&g.lock);
	return name[0] ? io_cut_short(e, name, 0) : 0;
}

int
map_path(const char *path, const char *name, struct map *m, struct err *e)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW), rc;

	*m = (struct map)MAP_INIT;
	if (fd < 0)
		return err_set(e, ERR_IO, "%s: cannot read: %s", name, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(e, ERR_INPUT, "%s: not a regular file", name);
	}
	rc = map_fd(fd, name, (size_t)st.st_size, m, e);
	close(fd);
	return rc;
}
