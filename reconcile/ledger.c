/* ledger.c: game ledgers (JSON Lines or SQLite) into the games table. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../json/json.h"
#include "../protocol/ledger.h"

static int
put_real(struct recon_feed *f, double x)
{
	if (isnan(x))
		recon_put_null(f);
	else
		recon_put_real(f, x);
	return 0;
}

/* The request ids of a record, each a string: how many into *n. */
static int
count_requests(const cJSON *reqs, long long *n, struct err *e)
{
	const cJSON *v;

	*n = 0;
	cJSON_ArrayForEach(v, reqs) {
		if (!cJSON_IsString(v))
			return err_set(e, ERR_INPUT, "\"requests[%lld]\": expected a request id",
			    *n);
		(*n)++;
	}
	return 0;
}

/* A time's two columns: its normalized text and its seconds, or two nulls
 * when the record has none (has not 0). */
static int
put_time(struct recon_feed *f, int has, const char *text, long long t, struct err *e)
{
	if (recon_source_text(f, has == 0 ? text : NULL, e) < 0)
		return -1;
	if (has == 0)
		recon_put_int(f, t);
	else
		recon_put_null(f);
	return 0;
}

/* One game record (borrowed) at where ("file:line", or "file:rowid N"). */
static int
ledger_record(struct recon_source *src, struct recon_feed *f, const char *where, long line,
    const cJSON *g, struct err *e)
{
	static const char *const statuses[] = { "terminal", "live", "provider_error", "aborted",
		NULL };
	static const char *const results[] = { "win", "draw", "loss", NULL };
	const char *gid, *family, *cond, *status, *result = NULL;
	char started[RECON_TIME_MAX], ended[RECON_TIME_MAX], id[HASH_ID_LEN + 1];
	double wall = NAN, hours = NAN;
	long long t0 = 0, t1 = 0, tok[NCLASS], nreq = -1;
	int has0, has1;
	const cJSON *reqs = NULL;
	uint8_t d[HASH_LEN];
	int term, perr;

	if (recon_field_text(g, "game_id", 1, &gid, e) < 0 ||
	    recon_field_text(g, "family", 1, &family, e) < 0 ||
	    recon_field_text(g, "condition", 1, &cond, e) < 0 ||
	    recon_field_enum(g, "status", 1, statuses, "terminal, live, provider_error or aborted",
	        &status, e) < 0)
		goto bad;
	term = strcmp(status, "terminal") == 0;
	perr = strcmp(status, "provider_error") == 0;
	if (recon_field_enum(g, "result", term, results, "win, draw or loss", &result, e) < 0 ||
	    (has0 = recon_field_time(g, "started_at", 0, &t0, started, e)) < 0 ||
	    (has1 = recon_field_time(g, "ended_at", term, &t1, ended, e)) < 0 ||
	    recon_field_tokens(g, "tokens", term || perr, tok, e) < 0 ||
	    recon_field_nonneg(g, "wall_s", term, &wall, e) < 0 ||
	    recon_field_nonneg(g, "worker_hours", term, &hours, e) < 0 ||
	    json_get_array(g, "requests", 0, &reqs, e) < 0)
		goto bad;
	if (reqs != NULL && count_requests(reqs, &nreq, e) < 0)
		goto bad;
	buf_reset(&src->scratch);
	if (canon_digest(g, &src->scratch, d, e) < 0)
		goto bad;
	hash_id_format(d, id);
	if (recon_feed_row(f) < 0)
		return -1;
	if (recon_source_text(f, gid, e) < 0)
		return -1;
	recon_put_int(f, src->file);
	recon_put_int(f, line);
	if (recon_source_text(f, id, e) < 0 || recon_source_text(f, family, e) < 0 ||
	    recon_source_text(f, cond, e) < 0 ||
	    recon_source_text(f, status, e) < 0 || recon_source_text(f, result, e) < 0 ||
	    put_time(f, has0, started, t0, e) < 0 || put_time(f, has1, ended, t1, e) < 0)
		return -1;
	for (int i = 0; i < NCLASS; i++)
		recon_source_count(f, tok[i]);
	put_real(f, wall);
	put_real(f, hours);
	recon_source_count(f, nreq);
	return 0;
bad:
	return err_prefix(e, "%s", where);
}

static int
ledger_line(struct recon_source *src, struct recon_feed *f, long line, const char *p, size_t n,
    struct err *e)
{
	char where[512];
	cJSON *g = json_parse(p, n, src->path, line, e);
	int rc;

	if (g == NULL)
		return -1;
	snprintf(where, sizeof where, "%s:%ld", src->path, line);
	if (!cJSON_IsObject(g))
		rc = err_set(e, ERR_INPUT, "%s: expected a JSON object", where);
	else
		rc = ledger_record(src, f, where, line, g, e);
	cJSON_Delete(g);
	return rc;
}

static int
produce_ledger_jsonl(void *ctx, struct recon_feed *f, struct err *e)
{
	return recon_source_lines(ctx, f, e, ledger_line);
}

struct ledger_ctx {
	struct recon_source *src;
	struct recon_feed *f;
};

static int
ledger_sqlite_record(void *ctx, cJSON *g, const struct ledger_loc *loc, struct err *e)
{
	struct ledger_ctx *c = ctx;
	char where[512];

	ledger_loc_format(loc, where, sizeof where);
	return ledger_record(c->src, c->f, where, loc->line, g, e);
}

static int
produce_ledger_sqlite(void *ctx, struct recon_feed *f, struct err *e)
{
	struct recon_source *src = ctx;
	struct ledger_ctx c = { src, f };

	if (ledger_read(src->path, ledger_sqlite_record, &c, e) < 0)
		return -1;
	return hash_file(src->path, src->digest, NULL, e);
}

static const char games_sql[] =
"INSERT INTO games(game_id, file, line, id, family, condition, status, result, started_at,"
" started_t, ended_at, ended_t, input, output, reasoning, cached, wall_s, worker_hours,"
" n_requests, in_scope) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,0)";

/* 1 when the file starts like an SQLite database. */
static int
is_sqlite_file(const char *path)
{
	char head[16];
	FILE *fp;
	size_t n;

	if (strcmp(path, "-") == 0 || (fp = fopen(path, "rb")) == NULL)
		return 0;
	n = fread(head, 1, sizeof head, fp);
	fclose(fp);
	return n == sizeof head && memcmp(head, "SQLite format 3", 16) == 0;
}

/* A key given twice across the inputs of a table: an input error naming
 * both places.  Returns 0 when the unique index could be built. */
int
recon_index_unique(struct recon *r, const char *table, const char *key)
{
	char sql[1024];
	sqlite3_stmt *st;
	int rc;

	snprintf(sql, sizeof sql, "CREATE UNIQUE INDEX %s_by_id ON %s(%s)", table, table, key);
	if (sqlite3_exec(r->db, sql, NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	if ((sqlite3_extended_errcode(r->db) & 0xff) != SQLITE_CONSTRAINT)
		return recon_db_fail(r, "index");
	/* Only on this error path: an index to find the first repeat fast. */
	snprintf(sql, sizeof sql, "CREATE INDEX %s_repeats ON %s(%s)", table, table, key);
	if (recon_db_exec(r, sql) < 0)
		return -1;
	snprintf(sql, sizeof sql, "SELECT k, path, line, first FROM (SELECT q.%s k, f.path path,"
	    " q.line line, q.rowid row, (SELECT f2.path || ':' || p.line FROM %s p"
	    " JOIN files f2 ON f2.file = p.file WHERE p.%s = q.%s AND p.rowid < q.rowid"
	    " ORDER BY p.rowid LIMIT 1) first FROM %s q JOIN files f ON f.file = q.file)"
	    " WHERE first IS NOT NULL ORDER BY row LIMIT 1", key, table, key, key, table);
	st = recon_db_prep(r, sql);
	if (st == NULL)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		rc = err_set(r->e, ERR_INPUT, "%s:%lld: \"%s\": \"%s\" given twice (first at %s)",
		    (const char *)sqlite3_column_text(st, 1), sqlite3_column_int64(st, 2), key,
		    (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 3));
	else
		rc = err_set(r->e, ERR_INPUT, "%s: a %s is given twice", table, key);
	sqlite3_finalize(st);
	return rc;
}

int
recon_ledgers_load(struct recon *r)
{
	cJSON *list = recon_inputs_list(r, "ledgers");

	if (list == NULL)
		return -1;
	for (size_t i = 0; i < r->o->nledgers; i++) {
		const char *path = r->o->ledgers[i];
		if (recon_source_load(r, "ledger", path, list, games_sql, is_sqlite_file(path)
		        ? produce_ledger_sqlite : produce_ledger_jsonl) < 0)
			return -1;
	}
	if (recon_index_unique(r, "games", "game_id") < 0)
		return -1;
	return recon_db_exec(r, "UPDATE games SET in_scope = 1 WHERE family IN (SELECT family FROM"
	    " spec_families) AND condition IN (SELECT condition FROM spec_conditions)");
}
