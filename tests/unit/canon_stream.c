/* canon_stream.c: for each file named, the streaming canonical writer
 * must give what the tree path (json_parse, then canon_write) gives: the
 * same bytes, or the same refusal word for word.  It is tried over the
 * file in memory and over the file read in blocks of 1, 2, 3, 5, 7, 64
 * and 4096 bytes, so that every token straddles a block's end somewhere.
 * Prints "same NAME" or "differ NAME: how"; exits 1 on any difference. */
#include <stdio.h>
#include <string.h>

#include "../../common/io.h"
#include "../../json/json.h"

static int
put(void *ctx, const void *p, size_t n, struct err *e)
{
	(void)e;
	return buf_add(ctx, p, n);
}

/* The streamed result of r: its bytes into out, or its message. */
static void
streamed(struct json_rd *r, struct buf *out, struct err *e)
{
	const struct canon_sink sink = { put, out };

	buf_reset(out);
	if (r == NULL || canon_stream(r, &sink, e) < 0)
		buf_reset(out);
	json_rd_free(r);
}

static int
same(const char *name, const char *how, const struct buf *want, const struct err *we,
    const struct buf *got, const struct err *ge)
{
	if (we->code != ERR_OK || ge->code != ERR_OK) {
		if (strcmp(we->msg, ge->msg) == 0)
			return 0;
		printf("differ %s: %s: tree \"%s\", stream \"%s\"\n", name, how, we->msg, ge->msg);
		return 1;
	}
	if (want->len == got->len && (want->len == 0 || memcmp(want->p, got->p, want->len) == 0))
		return 0;
	printf("differ %s: %s: %zu bytes from the tree, %zu streamed\n", name, how, want->len,
	    got->len);
	return 1;
}

static int
check(const char *path)
{
	static const size_t blocks[] = { 1, 2, 3, 5, 7, 64, 4096 };
	struct buf in = BUF_INIT, want = BUF_INIT, got = BUF_INIT;
	struct err we = ERR_INIT, ge = ERR_INIT;
	int bad = 0;
	cJSON *v;

	if (io_read_all(path, &in, IO_MAX_DOCUMENT, &we) < 0) {
		printf("differ %s: %s\n", path, we.msg);
		return 1;
	}
	v = json_parse(in.p ? in.p : "", in.len, path, 1, &we);
	if (v != NULL)
		canon_write(v, &want, &we);
	cJSON_Delete(v);
	streamed(json_rd_mem(in.p ? in.p : "", in.len, path, 1), &got, &ge);
	bad |= same(path, "in memory", &want, &we, &got, &ge);
	for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
		char how[64];
		ge = (struct err)ERR_INIT;
		streamed(json_rd_open(path, blocks[i], &ge), &got, &ge);
		snprintf(how, sizeof how, "%zu-byte blocks", blocks[i]);
		bad |= same(path, how, &want, &we, &got, &ge);
	}
	if (!bad)
		printf("same %s\n", path);
	buf_release(&in);
	buf_release(&want);
	buf_release(&got);
	return bad;
}

int
main(int argc, char **argv)
{
	int rc = 0;

	for (int i = 1; i < argc; i++)
		rc |= check(argv[i]);
	return rc;
}
