/* io.c: whole-file reads and atomic writes. */
#define _GNU_SOURCE /* sync_file_range */
#include "io.h"
#include "map.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int
is_std(const char *path)
{
	return path == NULL || strcmp(path, "-") == 0;
}

int
io_cut_short(struct err *e, const char *name, unsigned long long missing)
{
	if (missing == 0)
		return err_set(e, ERR_INPUT, "%s: cut short while being read: read it again once "
		    "whatever writes it is done", name);
	return err_set(e, ERR_INPUT, "%s: cut short while being read (%llu bytes missing): read it "
	    "again once whatever writes it is done", name, missing);
}

const char *
io_name(const char *path)
{
	return is_std(path) ? "<stdin>" : path;
}

int
io_read_all(const char *path, struct buf *b, size_t max, struct err *e)
{
	FILE *fp = stdin;
	size_t start = b->len, n;
	struct stat st;

	if (!is_std(path)) {
		fp = fopen(path, "rb");
		if (fp == NULL)
			return err_set(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
		if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
			fclose(fp);
			return err_set(e, ERR_IO, "%s: is a directory", path);
		}
	}
	for (;;) {
		if (buf_grow(b, 65536) < 0) {
			if (fp != stdin)
				fclose(fp);
			return err_set(e, ERR_NOMEM, "%s: out of memory", io_name(path));
		}
		n = fread(b->p + b->len, 1, 65536, fp);
		b->len += n;
		b->p[b->len] = '\0';
		if (b->len - start > max) {
			if (fp != stdin)
				fclose(fp);
			return err_set(e, ERR_INPUT, "%s: larger than %zu bytes", io_name(path), max);
		}
		if (n < 65536)
			break;
	}
	if (ferror(fp)) {
		int saved = errno;
		if (fp != stdin)
			fclose(fp);
		return err_set(e, ERR_IO, "%s: read error: %s", io_name(path), strerror(saved));
	}
	if (fp != stdin)
		fclose(fp);
	return 0;
}

/* A path that is there and is neither a file nor a folder (/dev/null, a
 * pipe, a terminal) is written as it is: a rename would put a file in the
 * device's place, for every user of the machine. */
static int
open_special(struct outfile *o, const char *path, struct err *e)
{
	if ((o->path = strdup(path)) == NULL)
		return err_set(e, ERR_NOMEM, "%s: out of memory", path);
	if ((o->fp = fopen(path, "wb")) == NULL) {
		int saved = errno;
		outfile_abort(o);
		return err_set(e, ERR_IO, "%s: cannot write: %s", path, strerror(saved));
	}
	return 0;
}

int
io_temp_open(const char *target, char **name, struct err *e)
{
	static const char letters[] =
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t n = strlen(target) + sizeof IO_TEMP_MARK + 32;
	char *t = malloc(n);
	int fd = -1;

	*name = NULL;
	if (t == NULL)
		return err_set(e, ERR_NOMEM, "%s: out of memory", target);
	for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
		unsigned char r[6];
		char *x;
		if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
			/* no entropy yet (early boot): the clock and the attempt */
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			for (int i = 0; i < 6; i++)
				r[i] = (unsigned char)((unsigned long)ts.tv_nsec >> (i * 5) ^
				    (unsigned)attempt * 131u);
		}
		snprintf(t, n, "%s" IO_TEMP_MARK "%ld.", target, (long)getpid());
		x = t + strlen(t);
		for (int i = 0; i < 6; i++)
			x[i] = letters[r[i] % (sizeof letters - 1)];
		x[6] = '\0';
		fd = open(t, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int saved = errno;
		free(t);
		return err_set(e, ERR_IO, "%s: cannot write: %s", target, strerror(saved));
	}
	/* held while the descriptor is open: a sweep leaves the file alone (a
	 * file system without flock leaves the process id to tell) */
	flock(fd, LOCK_EX | LOCK_NB);
	*name = t;
	return fd;
}

/* The process id in a temporary file's name, or -1 when name is none. */
static long
temp_pid(const char *name)
{
	const char *m = NULL, *p;
	long pid = 0;

	for (p = name; (p = strstr(p, IO_TEMP_MARK)) != NULL; p++)
		m = p;
	if (m == NULL)
		return -1;
	p = m + strlen(IO_TEMP_MARK);
	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		pid = pid * 10 + (*p - '0');
		if (pid > 0x7fffffff)
			return -1;
	}
	if (*p++ != '.' || strlen(p) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') ||
		        (p[i] >= '0' && p[i] <= '9')))
			return -1;
	return pid;
}

int
io_temp_name(const char *name)
{
	return temp_pid(name) > 0;
}

/* 1 when the temporary file name in the folder open as dfd is stale: ours
 * (a regular file of this user), its process gone or this one, and no
 * one holding its lock. */
static int
temp_stale(int dfd, const char *name, long pid)
{
	struct stat st;
	int fd, stale;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid())
		return 0;
	if (pid != (long)getpid() && (kill((pid_t)pid, 0) == 0 || errno == EPERM))
		return 0;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	stale = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return stale;
}

size_t
io_temp_sweep(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		long pid = temp_pid(de->d_name);
		if (pid > 0 && temp_stale(dirfd(d), de->d_name, pid) &&
		    unlinkat(dirfd(d), de->d_name, 0) == 0)
			n++;
	}
	closedir(d);
	return n;
}

/* The folder of path: "." when it has none. */
static char *
folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

int
io_sync_dir(const char *path, struct err *e)
{
	char *dir = folder_of(path);
	int fd, rc = 0;

	if (dir == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || (fsync(fd) != 0 && errno != EINVAL && errno != EROFS))
		rc = err_set(e, ERR_IO, "%s: cannot sync the folder %s: %s", path, dir,
		    strerror(errno));
	if (fd >= 0)
		close(fd);
	free(dir);
	return rc;
}

int
outfile_open_mode(struct outfile *o, const char *path, int mode, struct err *e)
{
	struct stat st;
	int fd;

	memset(o, 0, sizeof *o);
	if (is_std(path)) {
		o->fp = stdout;
		return 0;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return open_special(o, path, e);
	o->path = strdup(path);
	if (o->path == NULL) {
		outfile_abort(o);
		return err_set(e, ERR_NOMEM, "%s: out of memory", path);
	}
	{
		char *dir = folder_of(path);
		if (dir != NULL)
			io_temp_sweep(dir);
		free(dir);
	}
	if ((fd = io_temp_open(path, &o->tmp, e)) < 0) {
		outfile_abort(o);
		return -1;
	}
	/* 0666 is the umask's to narrow; a narrower mode (a secret key's 0600)
	 * holds from before the first byte, whatever the umask */
	if (mode != 0666)
		fchmod(fd, (mode_t)mode);
	o->fp = fdopen(fd, "wb");
	if (o->fp == NULL) {
		close(fd);
		outfile_abort(o);
		return err_set(e, ERR_IO, "%s: cannot write: %s", path, strerror(errno));
	}
	return 0;
}

int
outfile_open(struct outfile *o, const char *path, struct err *e)
{
	return outfile_open_mode(o, path, 0666, e);
}

int
outfile_write(struct outfile *o, const void *p, size_t n, struct err *e)
{
	const size_t slice = (size_t)64 << 20;

	/* A large document goes out in slices, each handed to writeback once
	 * written (in one call or in many), so that the fsync at the commit
	 * waits for the last one only. */
	while (n > 0) {
		size_t k = n < slice ? n : slice;
		if (fwrite(p, 1, k, o->fp) != k) {
			o->failed = 1;
			return err_set(e, ERR_IO, "%s: write error: %s",
			    o->path ? o->path : "<stdout>", strerror(errno));
		}
		o->unsynced += k;
#ifdef SYNC_FILE_RANGE_WRITE
		if (o->path != NULL && o->unsynced >= slice && fflush(o->fp) == 0) {
			sync_file_range(fileno(o->fp), 0, 0, SYNC_FILE_RANGE_WRITE);
			o->unsynced = 0;
		}
#endif
		p = (const char *)p + k;
		n -= k;
	}
	return 0;
}

int
outfile_commit(struct outfile *o, struct err *e)
{
	const char *name = o->path ? o->path : "<stdout>";
	int rc = 0;

	if (o->fp == NULL)
		return err_set(e, ERR_IO, "%s: not open", name);
	if (fflush(o->fp) != 0 || ferror(o->fp) || o->failed)
		rc = err_set(e, ERR_IO, "%s: write error: %s", name, strerror(errno));
	/* what a run computed from a file cut under it is not published */
	if (rc == 0)
		rc = map_check(e);
	if (o->path == NULL) {
		o->fp = NULL;
		return rc;
	}
	if (rc == 0 && fsync(fileno(o->fp)) != 0 && errno != EINVAL)
		rc = err_set(e, ERR_IO, "%s: fsync: %s", name, strerror(errno));
	if (fclose(o->fp) != 0 && rc == 0)
		rc = err_set(e, ERR_IO, "%s: close: %s", name, strerror(errno));
	o->fp = NULL;
	if (o->tmp != NULL && rc == 0 && rename(o->tmp, o->path) != 0)
		rc = err_set(e, ERR_IO, "%s: cannot rename into place: %s", name, strerror(errno));
	if (o->tmp != NULL && rc != 0)
		unlink(o->tmp);
	else
		rc = io_sync_dir(o->path, e);
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return rc;
}

void
outfile_abort(struct outfile *o)
{
	if (o->fp != NULL && o->fp != stdout)
		fclose(o->fp);
	if (o->tmp != NULL)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof *o);
}

int
io_write_all(const char *path, const void *p, size_t n, struct err *e)
{
	struct outfile o = OUTFILE_INIT;

	if (outfile_open(&o, path, e) < 0)
		return -1;
	if (outfile_write(&o, p, n, e) < 0 || outfile_commit(&o, e) < 0) {
		outfile_abort(&o);
		return -1;
	}
	return 0;
}

/* What an input names: a file, or "-", standard input when it is a file. */
static int
input_stat(const char *input, struct stat *st)
{
	if (input == NULL)
		return -1;
	if (strcmp(input, "-") != 0)
		return stat(input, st);
	return fstat(STDIN_FILENO, st) == 0 && S_ISREG(st->st_mode) ? 0 : -1;
}

int
io_output_check(const char *path, const char *const *inputs, size_t n, struct err *e)
{
	struct stat out, in;

	if (is_std(path) || stat(path, &out) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (input_stat(inputs[i], &in) != 0 || in.st_dev != out.st_dev ||
		    in.st_ino != out.st_ino)
			continue;
		if (strcmp(inputs[i], "-") == 0)
			return err_set(e, ERR_USAGE, "%s: is the standard input, and inputs are never "
			    "written over: write elsewhere", path);
		if (strcmp(path, inputs[i]) == 0)
			return err_set(e, ERR_USAGE,
			    "%s: is an input, and inputs are never written over: write elsewhere",
			    path);
		return err_set(e, ERR_USAGE,
		    "%s: is the input %s, and inputs are never written over: write elsewhere", path,
		    inputs[i]);
	}
	return 0;
}
