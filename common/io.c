/* io.c: whole-file reads and atomic writes. */
#define _GNU_SOURCE /* sync_file_range */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int
is_std(const char *path)
{
	return path == NULL || strcmp(path, "-") == 0;
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

int
outfile_open_mode(struct outfile *o, const char *path, int mode, struct err *e)
{
	size_t n;
	int fd;

	memset(o, 0, sizeof *o);
	if (is_std(path)) {
		o->fp = stdout;
		return 0;
	}
	n = strlen(path);
	o->path = strdup(path);
	o->tmp = malloc(n + 16);
	if (o->path == NULL || o->tmp == NULL) {
		outfile_abort(o);
		return err_set(e, ERR_NOMEM, "%s: out of memory", path);
	}
	snprintf(o->tmp, n + 16, "%s.tmp.XXXXXX", path);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		int saved = errno;
		free(o->tmp);
		o->tmp = NULL;
		outfile_abort(o);
		return err_set(e, ERR_IO, "%s: cannot write: %s", path, strerror(saved));
	}
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
	return outfile_open_mode(o, path, 0644, e);
}

int
outfile_write(struct outfile *o, const void *p, size_t n, struct err *e)
{
	const size_t slice = (size_t)64 << 20;

	/* A large document goes out in slices, each handed to writeback as it
	 * is written, so that the fsync at the commit waits for the last one
	 * only. */
	while (n > 0) {
		size_t k = n < slice ? n : slice;
		if (fwrite(p, 1, k, o->fp) != k) {
			o->failed = 1;
			return err_set(e, ERR_IO, "%s: write error: %s",
			    o->path ? o->path : "<stdout>", strerror(errno));
		}
#ifdef SYNC_FILE_RANGE_WRITE
		if (o->path != NULL && k == slice && fflush(o->fp) == 0)
			sync_file_range(fileno(o->fp), 0, 0, SYNC_FILE_RANGE_WRITE);
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
	if (o->path == NULL) {
		o->fp = NULL;
		return rc;
	}
	if (rc == 0 && fsync(fileno(o->fp)) != 0 && errno != EINVAL)
		rc = err_set(e, ERR_IO, "%s: fsync: %s", name, strerror(errno));
	if (fclose(o->fp) != 0 && rc == 0)
		rc = err_set(e, ERR_IO, "%s: close: %s", name, strerror(errno));
	o->fp = NULL;
	if (rc == 0 && rename(o->tmp, o->path) != 0)
		rc = err_set(e, ERR_IO, "%s: cannot rename into place: %s", name, strerror(errno));
	if (rc != 0)
		unlink(o->tmp);
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
