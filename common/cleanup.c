/* cleanup.c: the registry of temporary folders and the thread that
 * removes them when an interrupting signal comes (cleanup.h). */
#define _GNU_SOURCE /* asprintf */
#include "cleanup.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Global state, which signal handling strictly requires (map.c's too): the
 * thread that takes a signal finds the folders here (cleanup.h). */
static struct {
	pthread_mutex_t mu;
	char *path[CLEANUP_MAX];
	sigset_t set;    /* the signals the watcher waits for */
	int started;
} reg = { PTHREAD_MUTEX_INITIALIZER, { NULL }, { { 0 } }, 0 };

int
cleanup_rm_tree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int rc = 0;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	d = opendir(path);
	if (d != NULL) {
		while ((de = readdir(d)) != NULL) {
			char *sub;
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			if (asprintf(&sub, "%s/%s", path, de->d_name) < 0) {
				rc = -1;
				break;
			}
			if (cleanup_rm_tree(sub) != 0)
				rc = -1;
			free(sub);
		}
		closedir(d);
	}
	return rmdir(path) != 0 ? -1 : rc;
}

/* The watcher: waits for a signal, removes every folder, and ends the
 * process by that signal.  The lock is never given back. */
static void *
watch(void *arg)
{
	struct sigaction dfl;
	sigset_t one;
	int sig = 0;

	(void)arg;
	while (sigwait(&reg.set, &sig) != 0)
		;
	pthread_mutex_lock(&reg.mu);
	for (int i = 0; i < CLEANUP_MAX; i++)
		if (reg.path[i] != NULL)
			cleanup_rm_tree(reg.path[i]);
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
	_exit(128 + sig);
}

int
cleanup_start(struct err *e)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	sigset_t old;
	pthread_t t;
	pthread_attr_t at;
	int rc;

	if (reg.started)
		return 0;
	sigemptyset(&reg.set);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction now;
		if (sigaction(sigs[i], NULL, &now) == 0 && now.sa_handler == SIG_IGN)
			continue; /* ignored when we started: it stays so */
		sigaddset(&reg.set, sigs[i]);
	}
	if ((rc = pthread_sigmask(SIG_BLOCK, &reg.set, &old)) != 0)
		return err_set(e, ERR_IO, "cannot block signals: %s", strerror(rc));
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 64 * 1024);
	rc = pthread_create(&t, &at, watch, NULL);
	pthread_attr_destroy(&at);
	if (rc != 0) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return err_set(e, rc == ENOMEM || rc == EAGAIN ? ERR_NOMEM : ERR_IO,
		    "cannot start the thread that removes temporary folders: %s", strerror(rc));
	}
	reg.started = 1;
	return 0;
}

int
cleanup_mkdtemp(const char *name, char **path, struct err *e)
{
	const char *tmpdir = getenv("TMPDIR");
	char *p;
	int slot = -1;

	*path = NULL;
	if (asprintf(&p, "%s/cohort-%s.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp", name) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	pthread_mutex_lock(&reg.mu);
	for (int i = 0; i < CLEANUP_MAX && slot < 0; i++)
		if (reg.path[i] == NULL)
			slot = i;
	if (slot >= 0 && (reg.path[slot] = strdup(p)) == NULL)
		slot = -2;
	if (slot >= 0 && mkdtemp(p) == NULL) {
		int saved = errno;
		free(reg.path[slot]);
		reg.path[slot] = NULL;
		pthread_mutex_unlock(&reg.mu);
		err_set(e, ERR_IO, "%s: cannot make a temporary folder: %s", p, strerror(saved));
		free(p);
		return -1;
	}
	if (slot >= 0)
		memcpy(reg.path[slot], p, strlen(p) + 1); /* the name mkdtemp chose */
	pthread_mutex_unlock(&reg.mu);
	if (slot < 0) {
		free(p);
		return slot == -2 ? err_set(e, ERR_NOMEM, "out of memory") :
		    err_set(e, ERR_IO, "more than %d temporary folders at once", CLEANUP_MAX);
	}
	*path = p;
	return 0;
}

void
cleanup_remove(const char *path)
{
	if (path == NULL)
		return;
	pthread_mutex_lock(&reg.mu);
	cleanup_rm_tree(path);
	for (int i = 0; i < CLEANUP_MAX; i++)
		if (reg.path[i] != NULL && strcmp(reg.path[i], path) == 0) {
			free(reg.path[i]);
			reg.path[i] = NULL;
		}
	pthread_mutex_unlock(&reg.mu);
}

void
cleanup_lock(void)
{
	pthread_mutex_lock(&reg.mu);
}

void
cleanup_unlock(void)
{
	pthread_mutex_unlock(&reg.mu);
}
