/* checks.c: every check, as SQL over the loaded tables (docs/reconcile-db.md),
 * each finding a row of findings. */
#include "internal.h"

#include <stdio.h>

void
recon_progress(struct recon *r, const char *what)
{
	if (r->o->progress)
		r->o->progress(r->o->progress_ctx, what);
}

/* The derived tables every check reads (documented in docs/reconcile-db.md). */
static const char derive_sql[] =
"CREATE INDEX billing_by_request ON billing(request_id, input, output, reasoning, cached);\n"
"CREATE TABLE game_scope(game_id TEXT PRIMARY KEY, family TEXT NOT NULL,\n"
"  condition TEXT NOT NULL, class TEXT NOT NULL);\n"
"INSERT INTO game_scope SELECT game_id, family, condition, class FROM (\n"
"  SELECT f.game_id, f.family, f.condition, 'clean' AS class FROM freeze_games f\n"
"  UNION ALL\n"
"  SELECT g.game_id, g.family, g.condition, CASE WHEN g.status = 'provider_error'\n"
"    AND (g.started_t IS NULL OR g.started_t <= :as_of) THEN 'provider_error' ELSE 'other' END\n"
"  FROM games g WHERE g.in_scope\n"
"    AND NOT EXISTS (SELECT 1 FROM freeze_games f WHERE f.game_id = g.game_id))\n"
"  ORDER BY game_id;\n"
"CREATE TABLE game_requests(game_id TEXT, n INTEGER NOT NULL, input INTEGER,\n"
"  output INTEGER, reasoning INTEGER, cached INTEGER, latency_ms REAL, retries INTEGER,\n"
"  failed INTEGER, model_changes INTEGER, billing_rows INTEGER, b_input INTEGER,\n"
"  b_output INTEGER, b_reasoning INTEGER, b_cached INTEGER, unbilled INTEGER,\n"
"  mismatched INTEGER);\n";

/* Per game (NULL: requests without a game): its requests and their billing
 * rows in one pass.  Exact when no request has two billing rows, which the
 * pass itself tells: then it yields one row per request. */
static const char game_pass_sql[] =
"INSERT INTO game_requests SELECT q.game_id, count(*), sum(q.input), sum(q.output),\n"
"  sum(q.reasoning), sum(q.cached), sum(q.latency_ms), sum(q.attempt > 1),\n"
"  sum(q.status = 'error'), sum(q.model_returned <> q.model_requested), count(b.rowid),\n"
"  sum(b.input), sum(b.output), sum(b.reasoning), sum(b.cached),\n"
"  sum(b.rowid IS NULL AND q.status = 'ok'),\n"
"  sum(abs(b.input - q.input) > :tol * q.input OR abs(b.output - q.output) > :tol * q.output\n"
"    OR abs(b.reasoning - q.reasoning) > :tol * q.reasoning\n"
"    OR abs(b.cached - q.cached) > :tol * q.cached)\n"
"  FROM requests q LEFT JOIN billing b ON b.request_id = q.request_id\n"
"  GROUP BY q.game_id ORDER BY q.game_id";

/* The same when some request has several billing rows: requests and
 * billing apart; unbilled and mismatched unknown (NULL: check them all). */
static const char game_pass_dup_sql[] =
"DELETE FROM game_requests;\n"
"INSERT INTO game_requests SELECT r.*, b.rows, b.input, b.output, b.reasoning, b.cached, NULL, NULL\n"
"  FROM (SELECT game_id, count(*), sum(input), sum(output), sum(reasoning), sum(cached),\n"
"    sum(latency_ms), sum(attempt > 1), sum(status = 'error'),\n"
"    sum(model_returned <> model_requested) FROM requests GROUP BY game_id) r\n"
"  LEFT JOIN (SELECT q.game_id, count(*) rows, sum(b.input) input, sum(b.output) output,\n"
"    sum(b.reasoning) reasoning, sum(b.cached) cached FROM requests q\n"
"    JOIN billing b ON b.request_id = q.request_id GROUP BY q.game_id) b\n"
"  ON b.game_id IS r.game_id ORDER BY r.game_id;\n";

#define FINDING "INSERT INTO findings(kind, condition, game_id, request_id, file, line, field," \
	" expected, found) "
/* The condition a request is counted in: its game's, when the game is in scope. */
#define REQ_COND "(SELECT s.condition FROM game_scope s WHERE s.game_id = q.game_id)"
/* Games whose records are checked: the clean ones and the provider-error ones. */
#define CHECKED "c.class IN ('clean', 'provider_error')"

/* Each check, in the order of kinds[]. */
static const char *const checks[] = {
	FINDING "SELECT 'missing_game', f.condition, f.game_id, NULL, 0, NULL, 'game_id', f.id,"
	" NULL FROM freeze_games f WHERE NOT EXISTS (SELECT 1 FROM games g"
	" WHERE g.game_id = f.game_id) ORDER BY f.game_id",

	FINDING "SELECT 'identity_mismatch', f.condition, f.game_id, NULL, g.file, g.line, 'id',"
	" f.id, g.id FROM freeze_games f JOIN games g ON g.game_id = f.game_id WHERE g.id <> f.id"
	" ORDER BY f.game_id",

	FINDING "SELECT 'stale_freeze', g.condition, g.game_id, NULL, g.file, g.line, 'game_id',"
	" NULL, g.id FROM games g WHERE g.in_scope AND g.status = 'terminal'"
	" AND g.ended_t <= :as_of AND (g.started_t IS NULL OR g.started_t <= :as_of)"
	" AND NOT EXISTS (SELECT 1 FROM freeze_games f WHERE f.game_id = g.game_id)"
	" ORDER BY g.game_id",

	FINDING "SELECT 'game_without_requests', c.condition, c.game_id, NULL, g.file, g.line,"
	" 'requests', g.n_requests, 0 FROM game_scope c JOIN games g ON g.game_id = c.game_id"
	" WHERE " CHECKED " AND NOT EXISTS (SELECT 1 FROM game_requests s"
	" WHERE s.game_id = c.game_id) ORDER BY c.game_id",

	FINDING "SELECT 'game_requests', c.condition, c.game_id, NULL, g.file, g.line, 'requests',"
	" g.n_requests, s.n FROM game_scope c JOIN games g ON g.game_id = c.game_id"
	" JOIN game_requests s ON s.game_id = c.game_id"
	" WHERE " CHECKED " AND g.n_requests IS NOT NULL AND g.n_requests <> s.n"
	" ORDER BY c.game_id",

	FINDING "WITH m AS MATERIALIZED (SELECT c.condition, c.game_id, g.file, g.line,"
	" g.input gi, s.input si, g.output go, s.output so, g.reasoning gr, s.reasoning sr,"
	" g.cached gc, s.cached sc FROM game_scope c JOIN games g ON g.game_id = c.game_id"
	" JOIN game_requests s ON s.game_id = c.game_id WHERE " CHECKED " AND (g.input <> s.input"
	" OR g.output <> s.output OR g.reasoning <> s.reasoning OR g.cached <> s.cached))"
	" SELECT k, condition, game_id, NULL, file, line, field, e, f FROM ("
	" SELECT 'game_tokens' k, condition, game_id, file, line, 'tokens.input' field, gi e,"
	" si f, 0 o FROM m WHERE gi <> si UNION ALL"
	" SELECT 'game_tokens', condition, game_id, file, line, 'tokens.output', go, so, 1"
	" FROM m WHERE go <> so UNION ALL"
	" SELECT 'game_tokens', condition, game_id, file, line, 'tokens.reasoning', gr, sr, 2"
	" FROM m WHERE gr <> sr UNION ALL"
	" SELECT 'game_tokens', condition, game_id, file, line, 'tokens.cached', gc, sc, 3"
	" FROM m WHERE gc <> sc) ORDER BY game_id, o",

	FINDING "SELECT 'wall_time', c.condition, c.game_id, NULL, g.file, g.line, 'wall_s',"
	" round(s.latency_ms / 1000.0, 3), g.wall_s FROM game_scope c"
	" JOIN games g ON g.game_id = c.game_id JOIN game_requests s ON s.game_id = c.game_id"
	" WHERE " CHECKED " AND g.wall_s IS NOT NULL AND s.latency_ms > g.wall_s * 1000 + 1e-6"
	" ORDER BY c.game_id",

	FINDING "SELECT 'request_without_game', " REQ_COND ", q.game_id, q.request_id, q.file,"
	" q.line, 'game_id', NULL, q.game_id FROM requests q WHERE q.game_id IS NULL"
	" OR NOT EXISTS (SELECT 1 FROM games g WHERE g.game_id = q.game_id) ORDER BY q.rowid",

	FINDING "SELECT 'unbilled_request', " REQ_COND ", q.game_id, q.request_id, q.file, q.line,"
	" 'request_id', 1, 0 FROM requests q WHERE q.status = 'ok'"
	" AND NOT EXISTS (SELECT 1 FROM billing b WHERE b.request_id = q.request_id)"
	" ORDER BY q.rowid",

	FINDING "SELECT 'duplicate_billing', " REQ_COND ", q.game_id, q.request_id, b.file, b.line,"
	" 'request_id', 1, d.n FROM (SELECT request_id, count(*) n, max(rowid) last FROM billing"
	" GROUP BY request_id HAVING count(*) > 1) d JOIN requests q ON q.request_id = d.request_id"
	" JOIN billing b ON b.rowid = d.last ORDER BY q.rowid",

	FINDING "WITH m AS MATERIALIZED (SELECT q.rowid r, b.rowid brow, q.input qi, b.input bi,"
	" q.output qo, b.output bo, q.reasoning qr, b.reasoning br, q.cached qc, b.cached bc"
	" FROM requests q CROSS JOIN billing b ON b.request_id = q.request_id"
	" WHERE (abs(b.input - q.input) > :tol * q.input OR abs(b.output - q.output) > :tol * q.output"
	" OR abs(b.reasoning - q.reasoning) > :tol * q.reasoning"
	" OR abs(b.cached - q.cached) > :tol * q.cached)"
	" AND NOT EXISTS (SELECT 1 FROM billing b2 WHERE b2.request_id = q.request_id"
	" AND b2.rowid <> b.rowid)),"
	" x AS (SELECT m.*, q.game_id, q.request_id, " REQ_COND " cond, b.file, b.line"
	" FROM m JOIN requests q ON q.rowid = m.r JOIN billing b ON b.rowid = m.brow)"
	" SELECT k, cond, game_id, request_id, file, line, field, e, f FROM ("
	" SELECT 'billed_tokens' k, cond, game_id, request_id, file, line, 'input_tokens' field,"
	" qi e, bi f, r, 0 o FROM x WHERE abs(bi - qi) > :tol * qi UNION ALL"
	" SELECT 'billed_tokens', cond, game_id, request_id, file, line, 'output_tokens', qo, bo, r, 1"
	" FROM x WHERE abs(bo - qo) > :tol * qo UNION ALL"
	" SELECT 'billed_tokens', cond, game_id, request_id, file, line, 'reasoning_tokens', qr, br,"
	" r, 2 FROM x WHERE abs(br - qr) > :tol * qr UNION ALL"
	" SELECT 'billed_tokens', cond, game_id, request_id, file, line, 'cached_tokens', qc, bc, r, 3"
	" FROM x WHERE abs(bc - qc) > :tol * qc) ORDER BY r, o",

	FINDING "SELECT 'unmatched_billing', NULL, NULL, b.request_id, b.file, b.line, 'request_id',"
	" NULL, b.request_id FROM billing b WHERE NOT EXISTS (SELECT 1 FROM requests q"
	" WHERE q.request_id = b.request_id) ORDER BY b.rowid",

	FINDING "SELECT 'failed_request', " REQ_COND ", q.game_id, q.request_id, q.file, q.line,"
	" 'status', 'ok', q.status FROM requests q WHERE q.status = 'error' ORDER BY q.rowid",

	FINDING "SELECT 'retry', " REQ_COND ", q.game_id, q.request_id, q.file, q.line, 'attempt',"
	" 1, q.attempt FROM requests q WHERE q.attempt > 1 ORDER BY q.rowid",

	FINDING "SELECT 'model_changed', " REQ_COND ", q.game_id, q.request_id, q.file, q.line,"
	" 'model.returned', q.model_requested, q.model_returned FROM requests q"
	" WHERE q.model_returned <> q.model_requested ORDER BY q.rowid",
};

/* For each check, a query that is 0 when the check cannot find anything
 * (NULL: always run): the per-game pass already counted what the expensive
 * request-level scans would look for. */
static const char *const gates[] = {
	NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	"SELECT count(*) FROM game_requests s WHERE s.game_id IS NULL"
	" OR NOT EXISTS (SELECT 1 FROM games g WHERE g.game_id = s.game_id)",
	"SELECT count(*) FROM game_requests WHERE unbilled IS NULL OR unbilled > 0",
	"SELECT value FROM meta WHERE key = 'billing_duplicates'",
	"SELECT count(*) FROM game_requests WHERE mismatched IS NULL OR mismatched > 0",
	"SELECT (SELECT count(*) FROM billing) > (SELECT total(billing_rows) FROM game_requests)",
	"SELECT total(failed) > 0 FROM game_requests",
	"SELECT total(retries) > 0 FROM game_requests",
	"SELECT total(model_changes) > 0 FROM game_requests",
};

/* Run the statements of sql, in order, with the standard parameters. */
static int
db_script(struct recon *r, const char *sql)
{
	sqlite3_stmt *st;
	const char *p = sql, *tail;

	while (*p != '\0') {
		if (sqlite3_prepare_v2(r->db, p, -1, &st, &tail) != SQLITE_OK)
			return recon_db_fail(r, "prepare");
		p = tail;
		if (st == NULL)
			break;
		recon_db_bind_params(r, st);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			return recon_db_fail(r, "step");
		}
		sqlite3_finalize(st);
	}
	return 0;
}

int
recon_checks_run(struct recon *r)
{
	long long joined, nreq;
	char sql[128];

	recon_progress(r, "indexing");
	if (recon_index_unique(r, "requests", "request_id") < 0)
		return -1;
	recon_progress(r, "joining requests and billing");
	if (db_script(r, derive_sql) < 0 || db_script(r, game_pass_sql) < 0)
		return -1;
	joined = recon_db_count(r, "SELECT total(n) FROM game_requests");
	nreq = recon_db_count(r, "SELECT count(*) FROM requests");
	if (joined < 0 || nreq < 0)
		return recon_db_fail(r, "count");
	if (joined != nreq && db_script(r, game_pass_dup_sql) < 0)
		return -1;
	snprintf(sql, sizeof sql, "INSERT INTO meta VALUES ('billing_duplicates', %d);"
	    " CREATE UNIQUE INDEX game_requests_id ON game_requests(game_id)", joined != nreq);
	if (recon_db_exec(r, sql) < 0)
		return -1;
	recon_progress(r, "checking");
	for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
		if (gates[i] != NULL) {
			long long g = recon_db_count(r, gates[i]);
			if (g < 0)
				return recon_db_fail(r, "gate");
			if (g == 0)
				continue;
		}
		if (recon_db_run(r, checks[i]) < 0)
			return -1;
	}
	/* A finding counts in its game's (family, condition) cell: the
	 * condition each check gave is its game's in the cohort. */
	return recon_db_exec(r, "UPDATE findings SET family = (SELECT s.family FROM game_scope s"
	    " WHERE s.game_id = findings.game_id) WHERE condition IS NOT NULL");
}
