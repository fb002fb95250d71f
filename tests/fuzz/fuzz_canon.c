/* fuzz_canon.c: libFuzzer target for the streaming canonical writer and
 * the pull reader's refills.  Any input gives, streamed, what the tree
 * path gives (json_parse, then canon_write): the same bytes or the same
 * refusal, word for word; once over the input in memory, and once over it
 * as a file read in blocks of 1 to 16 bytes (the first byte says how
 * many), so that tokens straddle the blocks' ends. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/buf.h"
#include "../../common/err.h"
#include "../../json/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void
cleanup(void)
{
	unlink(path);
}

static int
put(void *ctx, const void *p, size_t n, struct err *e)
{
	(void)e;
	return buf_add(ctx, p, n);
}

/* r streamed: 0 with its bytes in out, or -1 with its refusal in e. */
static int
streamed(struct json_rd *r, struct buf *out, struct err *e)
{
	const struct canon_sink sink = { put, out };
	int rc;

	if (r == NULL)
		abort();
	rc = canon_stream(r, &sink, e);
	json_rd_free(r);
	return rc;
}

static void
agree(int tree_rc, const struct buf *want, const struct err *we, int rc, const struct buf *got,
    const struct err *ge)
{
	if (tree_rc != rc)
		abort();
	if (rc < 0 && strcmp(we->msg, ge->msg) != 0)
		abort();
	if (rc == 0 && (want->len != got->len || (want->len && memcmp(want->p, got->p, want->len))))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err we = ERR_INIT, ge = ERR_INIT, fe = ERR_INIT;
	struct buf want = BUF_INIT, got = BUF_INIT, file = BUF_INIT;
	size_t block;
	int tree_rc = -1;
	FILE *fp;
	cJSON *v;

	if (size == 0)
		return 0;
	block = (size_t)(data[0] & 15) + 1;
	data++, size--;
	v = json_parse((const char *)data, size, "fuzz", 1, &we);
	if (v != NULL)
		tree_rc = canon_write(v, &want, &we);
	cJSON_Delete(v);
	agree(tree_rc, &want, &we, streamed(json_rd_mem((const char *)data, size, "fuzz", 1), &got, &ge),
	    &got, &ge);
	if (path[0] == '\0') {
		/* in memory when the system has a tmpfs for it */
		snprintf(path, sizeof path, "%s/fuzz-canon.%ld",
		    access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (long)getpid());
		atexit(cleanup);
	}
	if ((fp = fopen(path, "wb")) == NULL || fwrite(data, 1, size, fp) != size || fclose(fp) != 0)
		abort();
	/* the file's refusals name it as json_rd_open names it */
	if (tree_rc < 0) {
		struct buf m = BUF_INIT;
		buf_printf(&m, "%s%s", path, we.msg + strlen("fuzz"));
		snprintf(we.msg, sizeof we.msg, "%s", m.p);
		buf_release(&m);
	}
	agree(tree_rc, &want, &we, streamed(json_rd_open(path, block, &fe), &file, &fe), &file, &fe);
	buf_release(&want);
	buf_release(&got);
	buf_release(&file);
	return 0;
}
