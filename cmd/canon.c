/* canon.c: `cohort canon`: print a JSON document's canonical bytes or its
 * identity, streamed: the document is never held whole (json.h,
 * canon_stream). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/io.h"
#include "../json/json.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] =
"usage: cohort canon [--id] [-o FILE] [FILE]\n";

/* Standard output gets the bytes only once the whole document has been
 * read and found good, as a file gets them only by the rename: until then
 * they wait in memory, and past SPOOL_MEM in an unlinked temporary file
 * (but for a regular file, which can be cut back instead). */
#define SPOOL_MEM ((size_t)8 << 20)

struct spool {
	struct buf mem;
	FILE *fp; /* the temporary file, once there is one */
};

static int
spool_file(struct spool *s, struct err *e)
{
	const char *dir = getenv("TMPDIR");
	struct buf name = BUF_INIT;
	int fd = -1;

	if (buf_printf(&name, "%s/cohort-canon.XXXXXX", dir && *dir ? dir : "/tmp") == 0 &&
	    (fd = mkstemp(name.p)) >= 0)
		unlink(name.p);
	if (fd < 0 || (s->fp = fdopen(fd, "w+b")) == NULL) {
		err_set(e, ERR_IO, "%s: cannot write: %s", name.p ? name.p : "TMPDIR", strerror(errno));
		if (fd >= 0)
			close(fd);
		buf_release(&name);
		return -1;
	}
	buf_release(&name);
	if (s->mem.len > 0 && fwrite(s->mem.p, 1, s->mem.len, s->fp) != s->mem.len)
		return err_set(e, ERR_IO, "temporary file: write error: %s", strerror(errno));
	buf_release(&s->mem);
	return 0;
}

static int
spool_put(void *ctx, const void *p, size_t n, struct err *e)
{
	struct spool *s = ctx;

	if (s->fp == NULL && s->mem.len + n <= SPOOL_MEM)
		return buf_add(&s->mem, p, n) < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
	if (s->fp == NULL && spool_file(s, e) < 0)
		return -1;
	if (fwrite(p, 1, n, s->fp) != n)
		return err_set(e, ERR_IO, "temporary file: write error: %s", strerror(errno));
	return 0;
}

/* What the spool holds, to o. */
static int
spool_out(struct spool *s, struct outfile *o, struct err *e)
{
	char block[1 << 16];
	size_t n;

	if (s->fp == NULL)
		return outfile_write(o, s->mem.p ? s->mem.p : "", s->mem.len, e);
	if (fflush(s->fp) != 0 || fseek(s->fp, 0, SEEK_SET) != 0)
		return err_set(e, ERR_IO, "temporary file: read error: %s", strerror(errno));
	while ((n = fread(block, 1, sizeof block, s->fp)) > 0)
		if (outfile_write(o, block, n, e) < 0)
			return -1;
	if (ferror(s->fp))
		return err_set(e, ERR_IO, "temporary file: read error: %s", strerror(errno));
	return 0;
}

static int
file_put(void *ctx, const void *p, size_t n, struct err *e)
{
	return outfile_write(ctx, p, n, e);
}

/* The identity of the canonical bytes, as a line to out. */
static int
canon_id_out(struct json_rd *r, const char *out, struct err *e)
{
	char s[HASH_ID_LEN + 2];

	if (canon_stream_id(r, s, e) < 0)
		return -1;
	strcat(s, "\n");
	return io_write_all(out, s, strlen(s), e);
}

/* Where a standard output that is a regular file ends now (-1 when it is
 * something else): cut back to there, it is as it was before the run. */
static off_t
stdout_file_end(void)
{
	struct stat st;
	off_t at;

	if (fstat(STDOUT_FILENO, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	at = lseek(STDOUT_FILENO, 0, SEEK_CUR);
	if (at < 0)
		return -1;
	return (fcntl(STDOUT_FILENO, F_GETFL) & O_APPEND) ? st.st_size : at;
}

/* Standard output back to its old end (bytes still buffered go first, so
 * none come after the cut), and its offset with it. */
static void
stdout_cut(off_t end, struct err *e)
{
	char was[sizeof e->msg];

	fflush(stdout);
	if (ftruncate(STDOUT_FILENO, end) == 0 && lseek(STDOUT_FILENO, end, SEEK_SET) == end)
		return;
	memcpy(was, e->msg, sizeof was);
	err_set(e, e->code, "%s; standard output not cut back: %s", was, strerror(errno));
}

/* The canonical bytes to out: to a file through its temporary file; to
 * standard output through the spool, or, when it is a regular file,
 * straight, cut back to its old end on a refusal. */
static int
canon_out(struct json_rd *r, const char *out, struct err *e)
{
	struct outfile o = OUTFILE_INIT;
	struct spool s = { BUF_INIT, NULL };
	const struct canon_sink to_file = { file_put, &o }, to_spool = { spool_put, &s };
	int std = out == NULL || strcmp(out, "-") == 0, rc;
	off_t end = std ? stdout_file_end() : -1;

	if ((!std || end >= 0) && outfile_open(&o, out, e) < 0)
		return -1;
	rc = canon_stream(r, std && end < 0 ? &to_spool : &to_file, e);
	if (rc == 0 && std && end < 0 && (rc = outfile_open(&o, out, e)) == 0)
		rc = spool_out(&s, &o, e);
	if (rc == 0)
		rc = outfile_commit(&o, e);
	if (rc < 0 && end >= 0)
		stdout_cut(end, e);
	if (rc < 0)
		outfile_abort(&o);
	if (s.fp != NULL)
		fclose(s.fp);
	buf_release(&s.mem);
	return rc;
}

int
cmd_canon(int argc, char **argv)
{
	const char *out = NULL;
	int id = 0;
	const struct opt table[] = {
		{ .name = "id", .flag = &id,
		    .help = "print the identity (sha256: and the hex digest) instead" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &out,
		    .help = "write to FILE atomically, not standard output" },
		{ .name = NULL },
	};
	const struct opt_cmd c = { .name = "canon", .usage = usage, .table = table,
		.operand = "FILE", .min = 0, .max = 1 };
	struct err e = ERR_INIT;
	struct json_rd *r;
	char **ops;
	int nops, rc;

	if ((rc = opt_parse(&c, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if ((r = json_rd_open(nops ? ops[0] : "-", 0, &e)) == NULL)
		return cmd_fail("canon", &e);
	rc = id ? canon_id_out(r, out, &e) : canon_out(r, out, &e);
	json_rd_free(r);
	return rc < 0 ? cmd_fail("canon", &e) : EXIT_HOLDS;
}
