/* sources.c: an input streamed into the database by a producer thread
 * (recon_feed.h), one transaction a file. */
#include "internal.h"

#include <string.h>

#include "../common/lines.h"
#include "../protocol/ledger.h"

int
recon_source_text(struct recon_feed *f, const char *s, struct err *e)
{
	if (s == NULL) {
		recon_put_null(f);
		return 0;
	}
	if (recon_put_text(f, s, strlen(s)) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

int
recon_source_count(struct recon_feed *f, long long v)
{
	if (v < 0)
		recon_put_null(f);
	else
		recon_put_int(f, v);
	return 0;
}

/* Stream a JSON Lines file through fn on the producer thread; blank lines
 * are skipped, as cohort freeze does. */
int
recon_source_lines(struct recon_source *src, struct recon_feed *f, struct err *e,
    int (*fn)(struct recon_source *, struct recon_feed *, long, const char *, size_t, struct err *))
{
	struct lines l;
	const char *p = NULL;
	size_t n = 0;
	int rc;

	if (lines_open(&l, src->path, LEDGER_MAX_LINE, 1, e) < 0) {
		lines_close(&l);
		return -1;
	}
	while ((rc = lines_next(&l, &p, &n, e)) == 1)
		if (!ledger_blank(p, n) && fn(src, f, l.lineno, p, n, e) < 0) {
			rc = -1;
			break;
		}
	if (rc == 0)
		lines_digest(&l, src->digest);
	lines_close(&l);
	return rc;
}

/* Load one input through a producer thread, in one transaction. */
int
recon_source_load(struct recon *r, const char *role, const char *path, cJSON *list, const char *sql,
    recon_produce_fn fn)
{
	struct recon_source src = { r, path, r->nfile, { 0 }, BUF_INIT };
	sqlite3_stmt *st = recon_db_prep(r, sql);
	int rc;

	if (st == NULL)
		return -1;
	rc = recon_db_exec(r, "BEGIN");
	if (rc == 0)
		rc = recon_feed_run(r->db, st, fn, &src, r->e);
	sqlite3_finalize(st);
	buf_release(&src.scratch);
	if (rc < 0 || recon_db_exec(r, "COMMIT") < 0)
		return -1;
	return recon_file_add(r, role, path, src.digest, NULL, list);
}
