/* reconcile.c: cohort.reconcile/1: a freeze against game ledgers, request
 * logs and billing exports, through one SQLite database (see
 * docs/reconcile-db.md for the schema and every check). */
#include "reconcile.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "../common/io.h"
#include "../common/ts.h"
#include "../common/hash.h"
#include "../json/json.h"
#include "../common/lines.h"
#include "../protocol/ledger.h"
#include "csv.h"
#include "recon_feed.h"
#include "recon_flat.h"

#define MAX_COUNT 9007199254740991LL /* 2^53 - 1 */

/* Token classes, in report order. */
static const char *const classes[] = { "input", "output", "reasoning", "cached" };
#define NCLASS 4

/* Billing columns, by our default names. */
enum { B_REQUEST_ID, B_TS, B_MODEL, B_INPUT, B_OUTPUT, B_REASONING, B_CACHED, B_COST, NBCOL };
static const char *const bcols[NBCOL] = {
	"request_id", "ts", "model", "input_tokens", "output_tokens", "reasoning_tokens",
	"cached_tokens", "cost",
};

/* Finding kinds, in report order. */
static const char *const kinds[] = {
	"missing_game", "identity_mismatch", "stale_freeze", "game_without_requests",
	"game_requests", "game_tokens", "wall_time", "request_without_game", "unbilled_request",
	"duplicate_billing", "billed_tokens", "unmatched_billing", "failed_request", "retry",
	"model_changed",
};
#define NKIND (sizeof kinds / sizeof kinds[0])

struct recon {
	const struct recon_opts *o;
	struct err *e;
	sqlite3 *db;
	char *dbtmp;                 /* temporary name of the --db file */
	cJSON *freeze;               /* the freeze document */
	cJSON *inputs;               /* report "inputs", being filled */
	char *map[NBCOL];            /* provider column for each billing column */
	long long as_of;             /* the freeze's cut, nanoseconds since the epoch */
	long long block_games;       /* games in a complete block */
	long long nfile;             /* files registered so far */
};

/* ---------------------------------------------------------------- values */

static void
civil_from_days(long long z, long *y, int *m, int *d)
{
	z += 719468;
	long long era = (z >= 0 ? z : z - 146096) / 146097;
	long long doe = z - era * 146097;
	long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	long long mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (long)(yoe + era * 400 + (*m <= 2));
}

int
recon_time_parse(const char *s, long long *ns, char norm[RECON_TIME_MAX])
{
	struct ts t;
	const char *frac = s + 19;
	size_t nfrac = 0;
	long long days, rem;
	long y;
	int m, d;

	if (ts_parse(s, &t) < 0)
		return -1;
	/* Nanoseconds since the epoch fit in 64 bits from 1677 to 2262. */
	if (t.sec < -9223372035LL || t.sec > 9223372035LL)
		return -1;
	*ns = (long long)t.sec * 1000000000LL + t.nsec;
	days = t.sec >= 0 ? t.sec / 86400 : -((-t.sec + 86399) / 86400);
	rem = t.sec - days * 86400;
	civil_from_days(days, &y, &m, &d);
	if (*frac == '.')
		for (frac++; nfrac < 9 && frac[nfrac] >= '0' && frac[nfrac] <= '9'; nfrac++)
			;
	/* By hand: this runs for every request and billing row. */
	{
		char *o = norm;
		int v[6] = { (int)y, m, d, (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60) };
		static const char sep[6] = { '-', '-', 'T', ':', ':', 0 };
		for (int i = 0; i < 6; i++) {
			if (i == 0) {
				*o++ = (char)('0' + v[0] / 1000);
				*o++ = (char)('0' + v[0] / 100 % 10);
			}
			*o++ = (char)('0' + v[i] / 10 % 10);
			*o++ = (char)('0' + v[i] % 10);
			if (sep[i])
				*o++ = sep[i];
		}
		if (nfrac > 0) {
			*o++ = '.';
			memcpy(o, frac, nfrac);
			o += nfrac;
		}
		*o++ = 'Z';
		*o = '\0';
	}
	return 0;
}

int
recon_count_parse(const char *s, size_t n, long long *out)
{
	long long v = 0;

	if (n == 0 || n > 16)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v > MAX_COUNT)
		return -1;
	*out = v;
	return 0;
}

/* A decimal amount: -?digits(.digits)?  Returns 0, or -1. */
static int
amount_parse(const char *s, double *out)
{
	const char *p = s;

	if (*p == '-')
		p++;
	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p != '\0' || p - s > 40)
		return -1;
	*out = strtod(s, NULL);
	return 0;
}

static const char *
base_name(const char *path)
{
	const char *s;

	if (path == NULL || strcmp(path, "-") == 0)
		return "-";
	s = strrchr(path, '/');
	return s != NULL && s[1] != '\0' ? s + 1 : path;
}

/* -------------------------------------------------------------- database */

static int
db_fail(struct recon *r, const char *what)
{
	return err_set(r->e, ERR_IO, "database: %s: %s", what, sqlite3_errmsg(r->db));
}

static int
db_exec(struct recon *r, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(r->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		err_set(r->e, ERR_IO, "database: %s", msg ? msg : sqlite3_errmsg(r->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static sqlite3_stmt *
db_prep(struct recon *r, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK) {
		db_fail(r, "prepare");
		return NULL;
	}
	return st;
}

/* Bind the cut and the tolerance to any statement that names them. */
static void
db_bind_params(struct recon *r, sqlite3_stmt *st)
{
	int i = sqlite3_bind_parameter_index(st, ":as_of");
	if (i > 0)
		sqlite3_bind_int64(st, i, r->as_of);
	i = sqlite3_bind_parameter_index(st, ":tol");
	if (i > 0)
		sqlite3_bind_double(st, i, r->o->tolerance);
}

/* Run a statement with the standard parameters to its end. */
static int
db_run(struct recon *r, const char *sql)
{
	sqlite3_stmt *st = db_prep(r, sql);
	int rc;

	if (st == NULL)
		return -1;
	db_bind_params(r, st);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(r, "step");
	return 0;
}

static void
bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s == NULL)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
}

static void
bind_count(sqlite3_stmt *st, int i, long long v)
{
	if (v < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

static const char schema[] =
"CREATE TABLE meta(key TEXT PRIMARY KEY, value);\n"
"CREATE TABLE files(file INTEGER PRIMARY KEY, role TEXT NOT NULL, name TEXT NOT NULL,\n"
"  path TEXT NOT NULL, sha256 TEXT);\n"
"CREATE TABLE spec_families(family TEXT PRIMARY KEY);\n"
"CREATE TABLE spec_conditions(condition TEXT PRIMARY KEY, ord INTEGER NOT NULL, state TEXT);\n"
"CREATE TABLE freeze_blocks(condition TEXT NOT NULL, block INTEGER NOT NULL, anchor REAL,\n"
"  color TEXT, games INTEGER, w INTEGER, d INTEGER, l INTEGER);\n"
"CREATE TABLE freeze_games(game_id TEXT PRIMARY KEY, id TEXT NOT NULL, condition TEXT NOT NULL,\n"
"  block INTEGER, anchor REAL, color TEXT, result TEXT);\n"
"CREATE TABLE freeze_excluded(game_id TEXT NOT NULL, id TEXT, reason TEXT);\n"
"CREATE TABLE games(game_id TEXT NOT NULL, file INTEGER NOT NULL, line INTEGER NOT NULL,\n"
"  id TEXT NOT NULL, family TEXT NOT NULL, condition TEXT NOT NULL, status TEXT NOT NULL,\n"
"  result TEXT, started_at TEXT, started_t INTEGER, ended_at TEXT, ended_t INTEGER,\n"
"  input INTEGER, output INTEGER, reasoning INTEGER, cached INTEGER,\n"
"  wall_s REAL, worker_hours REAL, n_requests INTEGER, in_scope INTEGER NOT NULL);\n"
"CREATE TABLE requests(request_id TEXT NOT NULL, game_id TEXT, file INTEGER NOT NULL,\n"
"  line INTEGER NOT NULL, ts TEXT NOT NULL, model_requested TEXT NOT NULL,\n"
"  model_returned TEXT NOT NULL, input INTEGER NOT NULL, output INTEGER NOT NULL,\n"
"  reasoning INTEGER NOT NULL, cached INTEGER NOT NULL, latency_ms REAL NOT NULL,\n"
"  attempt INTEGER NOT NULL, status TEXT NOT NULL);\n"
"CREATE TABLE billing(request_id TEXT NOT NULL, file INTEGER NOT NULL, line INTEGER NOT NULL,\n"
"  ts TEXT, model TEXT, input INTEGER NOT NULL, output INTEGER NOT NULL, reasoning INTEGER,\n"
"  cached INTEGER, cost REAL);\n"
"CREATE TABLE findings(seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, condition TEXT,\n"
"  game_id TEXT, request_id TEXT, file INTEGER, line INTEGER, field TEXT, expected, found);\n";

static int
db_open(struct recon *r)
{
	const char *path = "";
	int rc;

	if (r->o->db != NULL) {
		size_t n = strlen(r->o->db) + 16;
		int fd;
		r->dbtmp = malloc(n);
		if (r->dbtmp == NULL)
			return err_set(r->e, ERR_NOMEM, "out of memory");
		snprintf(r->dbtmp, n, "%s.tmp.XXXXXX", r->o->db);
		fd = mkstemp(r->dbtmp);
		if (fd < 0) {
			free(r->dbtmp);
			r->dbtmp = NULL;
			return err_set(r->e, ERR_IO, "%s: cannot write: %s", r->o->db, strerror(errno));
		}
		close(fd);
		path = r->dbtmp;
	}
	/* One thread uses the connection: no mutex on every call. */
	rc = sqlite3_open_v2(path, &r->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	    SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		return err_set(r->e, ERR_IO, "database: cannot open: %s", sqlite3_errstr(rc));
	/* The file is private to this run and renamed into place only when
	 * complete, so no journal is needed. */
	if (db_exec(r, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
	    " PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-524288;"
	    " PRAGMA temp_store=FILE; PRAGMA threads=2;") < 0)
		return -1;
	return db_exec(r, schema);
}

/* Close the database; keep it (rename into place) when keep is set. */
static int
db_close(struct recon *r, int keep)
{
	int rc = 0;

	if (r->db != NULL && sqlite3_close(r->db) != SQLITE_OK && keep)
		rc = err_set(r->e, ERR_IO, "database: cannot close");
	r->db = NULL;
	if (r->dbtmp != NULL) {
		if (keep && rc == 0 && rename(r->dbtmp, r->o->db) != 0)
			rc = err_set(r->e, ERR_IO, "%s: cannot rename into place: %s", r->o->db,
			    strerror(errno));
		if (!keep || rc != 0)
			unlink(r->dbtmp);
		free(r->dbtmp);
		r->dbtmp = NULL;
	}
	return rc;
}

/* Register an input file: its row in files, its entry in the report. */
static int
file_add(struct recon *r, const char *role, const char *path, const uint8_t d[HASH_LEN],
    const char *id, cJSON *list)
{
	char hid[HASH_ID_LEN + 1];
	sqlite3_stmt *st;
	cJSON *o;

	if (d != NULL)
		hash_id_format(d, hid);
	st = db_prep(r, "INSERT INTO files(file, role, name, path, sha256) VALUES (?,?,?,?,?)");
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, r->nfile);
	bind_text(st, 2, role);
	bind_text(st, 3, base_name(path));
	bind_text(st, 4, path);
	bind_text(st, 5, d != NULL ? hid : id);
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_finalize(st);
		return db_fail(r, "files");
	}
	sqlite3_finalize(st);
	o = cJSON_CreateObject();
	if (o == NULL || json_add_string(o, "name", base_name(path)) == NULL ||
	    (d != NULL ? json_add_string(o, "sha256", hid) : json_add_string(o, "id", id)) == NULL) {
		cJSON_Delete(o);
		return err_set(r->e, ERR_NOMEM, "out of memory");
	}
	if (cJSON_IsArray(list))
		cJSON_AddItemToArray(list, o);
	else
		cJSON_AddItemToObject(r->inputs, role, o);
	r->nfile++;
	return 0;
}

/* A new array under key in the report's inputs. */
static cJSON *
inputs_list(struct recon *r, const char *key)
{
	cJSON *a = cJSON_CreateArray();

	if (a != NULL && !cJSON_AddItemToObject(r->inputs, key, a)) {
		cJSON_Delete(a);
		a = NULL;
	}
	if (a == NULL)
		err_set(r->e, ERR_NOMEM, "out of memory");
	return a;
}

/* --------------------------------------------------------------- fields */

/* "name:line: " before a field error. */
static int
at_line(struct err *e, const char *name, long line)
{
	return err_prefix(e, "%s:%ld", name, line);
}

static int
get_enum(const cJSON *obj, const char *key, int required, const char *const *allowed,
    const char *expect, const char **out, struct err *e)
{
	const cJSON *v = json_get(obj, key);

	*out = NULL;
	if (v == NULL || (!required && cJSON_IsNull(v))) {
		if (!required)
			return 1;
		return err_set(e, ERR_INPUT, "\"%s\": missing", key);
	}
	if (cJSON_IsString(v))
		for (size_t i = 0; allowed[i] != NULL; i++)
			if (strcmp(v->valuestring, allowed[i]) == 0) {
				*out = allowed[i];
				return 0;
			}
	return err_set(e, ERR_INPUT, "\"%s\": expected %s", key, expect);
}

static int
get_text(const cJSON *obj, const char *key, int required, const char **out, struct err *e)
{
	int rc = json_get_string(obj, key, required, out, e);

	if (rc == 0 && **out == '\0')
		return err_set(e, ERR_INPUT, "\"%s\": empty", key);
	if (rc == 1)
		*out = NULL;
	return rc;
}

static int
get_time(const cJSON *obj, const char *key, int required, long long *t,
    char norm[RECON_TIME_MAX], struct err *e)
{
	const char *s;
	int rc = json_get_string(obj, key, required, &s, e);

	if (rc != 0)
		return rc;
	if (recon_time_parse(s, t, norm) < 0)
		return err_set(e, ERR_INPUT, "\"%s\": expected an RFC 3339 date-time, found \"%.40s\"",
		    key, s);
	return 0;
}

static int
get_nonneg(const cJSON *obj, const char *key, int required, double *out, struct err *e)
{
	int rc = json_get_number(obj, key, required, out, e);

	if (rc == 0 && *out < 0)
		return err_set(e, ERR_INPUT, "\"%s\": expected a number not below 0", key);
	return rc;
}

/* The four token classes of obj[key]; out[i] = -1 when absent and optional. */
static int
get_tokens(const cJSON *obj, const char *key, int required, long long out[NCLASS],
    struct err *e)
{
	const cJSON *t;
	int rc = json_get_object(obj, key, required, &t, e);

	for (int i = 0; i < NCLASS; i++)
		out[i] = -1;
	if (rc != 0)
		return rc;
	for (int i = 0; i < NCLASS; i++) {
		const cJSON *v = json_get(t, classes[i]);
		if (v == NULL)
			return err_set(e, ERR_INPUT, "\"%s.%s\": missing", key, classes[i]);
		if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
		    v->valuedouble < 0 || v->valuedouble > (double)MAX_COUNT)
			return err_set(e, ERR_INPUT, "\"%s.%s\": expected a whole number of tokens",
			    key, classes[i]);
		out[i] = (long long)v->valuedouble;
	}
	return 0;
}

/* ---------------------------------------------------------------- freeze */

static int
freeze_strings(struct recon *r, const cJSON *spec, const char *key, const char *sql)
{
	const cJSON *a, *v;
	sqlite3_stmt *st;
	int i = 0;

	if (json_get_array(spec, key, 1, &a, r->e) < 0)
		return err_prefix(r->e, "\"spec\"");
	st = db_prep(r, sql);
	if (st == NULL)
		return -1;
	cJSON_ArrayForEach(v, a) {
		if (!cJSON_IsString(v)) {
			sqlite3_finalize(st);
			return err_set(r->e, ERR_INPUT, "\"spec.%s[%d]\": expected a string", key, i);
		}
		sqlite3_reset(st);
		bind_text(st, 1, v->valuestring);
		sqlite3_bind_int(st, 2, i++);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			return err_set(r->e, ERR_INPUT, "\"spec.%s\": \"%s\" given twice", key,
			    v->valuestring);
		}
	}
	sqlite3_finalize(st);
	return 0;
}

static int
freeze_games(struct recon *r, const cJSON *games)
{
	static const char *const results[] = { "win", "draw", "loss", NULL };
	sqlite3_stmt *st;
	const cJSON *g;
	int i = 0, rc = 0;

	st = db_prep(r, "INSERT INTO freeze_games(game_id, id, condition, block, anchor, color,"
	    " result) VALUES (?,?,?,?,?,?,?)");
	if (st == NULL)
		return -1;
	cJSON_ArrayForEach(g, games) {
		const char *gid, *id, *cond, *color = NULL, *result = NULL;
		long long block = -1;
		double anchor = NAN;
		uint8_t d[HASH_LEN];

		if (get_text(g, "game_id", 1, &gid, r->e) < 0 || get_text(g, "id", 1, &id, r->e) < 0 ||
		    get_text(g, "condition", 1, &cond, r->e) < 0 ||
		    json_get_int(g, "block", 0, 1, 1000000, &block, r->e) < 0 ||
		    json_get_number(g, "anchor", 0, &anchor, r->e) < 0 ||
		    get_text(g, "color", 0, &color, r->e) < 0 ||
		    get_enum(g, "result", 0, results, "win, draw or loss", &result, r->e) < 0) {
			rc = -1;
		} else if (hash_id_parse(id, d) < 0) {
			rc = err_set(r->e, ERR_INPUT, "\"id\": expected sha256:<64 hex digits>");
		}
		if (rc < 0) {
			err_prefix(r->e, "games[%d]", i);
			break;
		}
		sqlite3_reset(st);
		bind_text(st, 1, gid);
		bind_text(st, 2, id);
		bind_text(st, 3, cond);
		bind_count(st, 4, block);
		if (isnan(anchor))
			sqlite3_bind_null(st, 5);
		else
			sqlite3_bind_double(st, 5, anchor);
		bind_text(st, 6, color);
		bind_text(st, 7, result);
		if (sqlite3_step(st) != SQLITE_DONE) {
			rc = err_set(r->e, ERR_INPUT, "games[%d]: \"game_id\": \"%s\" given twice", i, gid);
			break;
		}
		i++;
	}
	sqlite3_finalize(st);
	return rc;
}

/* Each object of arr as one row of text fields: keys[k] (required where
 * required[k]) bound to parameter k + 1 of sql.  Errors name label[i];
 * a failed step names table. */
static int
insert_texts(struct recon *r, const cJSON *arr, const char *label, const char *sql,
    const char *table, const char *const *keys, const int *required, int n)
{
	sqlite3_stmt *st = db_prep(r, sql);
	const cJSON *v;
	int i = 0, rc = 0;

	if (st == NULL)
		return -1;
	cJSON_ArrayForEach(v, arr) {
		const char *t[4] = { NULL, NULL, NULL, NULL };
		for (int k = 0; k < n && rc == 0; k++)
			if (get_text(v, keys[k], required[k], &t[k], r->e) < 0)
				rc = err_prefix(r->e, "%s[%d]", label, i);
		if (rc < 0)
			break;
		sqlite3_reset(st);
		for (int k = 0; k < n; k++)
			bind_text(st, k + 1, t[k]);
		if (sqlite3_step(st) != SQLITE_DONE) {
			rc = db_fail(r, table);
			break;
		}
		i++;
	}
	sqlite3_finalize(st);
	return rc;
}

static int
freeze_excluded(struct recon *r, const cJSON *ex)
{
	static const char *const keys[] = { "game_id", "id", "reason" };
	static const int required[] = { 1, 0, 0 };

	return insert_texts(r, ex, "excluded",
	    "INSERT INTO freeze_excluded(game_id, id, reason) VALUES (?,?,?)", "freeze_excluded",
	    keys, required, 3);
}

/* Blocks and condition states: optional, used by the table's state column. */
static int
freeze_ladder(struct recon *r)
{
	const cJSON *blocks = NULL, *conds = NULL, *v;
	sqlite3_stmt *st;
	int i = 0, rc = 0;

	if (json_get_array(r->freeze, "blocks", 0, &blocks, r->e) < 0 ||
	    json_get_array(r->freeze, "conditions", 0, &conds, r->e) < 0)
		return -1;
	st = db_prep(r, "INSERT INTO freeze_blocks(condition, block, anchor, color, games, w, d, l)"
	    " VALUES (?,?,?,?,?,?,?,?)");
	if (st == NULL)
		return -1;
	cJSON_ArrayForEach(v, blocks) {
		const char *cond, *color = NULL;
		long long block, games = -1, w = -1, d = -1, l = -1;
		double anchor = NAN;
		if (get_text(v, "condition", 1, &cond, r->e) < 0 ||
		    json_get_int(v, "block", 1, 1, 1000000, &block, r->e) < 0 ||
		    json_get_number(v, "anchor", 0, &anchor, r->e) < 0 ||
		    get_text(v, "color", 0, &color, r->e) < 0 ||
		    json_get_int(v, "games", 0, 0, MAX_COUNT, &games, r->e) < 0 ||
		    json_get_int(v, "w", 0, 0, MAX_COUNT, &w, r->e) < 0 ||
		    json_get_int(v, "d", 0, 0, MAX_COUNT, &d, r->e) < 0 ||
		    json_get_int(v, "l", 0, 0, MAX_COUNT, &l, r->e) < 0) {
			rc = err_prefix(r->e, "blocks[%d]", i);
			break;
		}
		if (games < 0 && w >= 0 && d >= 0 && l >= 0)
			games = w + d + l;
		sqlite3_reset(st);
		bind_text(st, 1, cond);
		sqlite3_bind_int64(st, 2, block);
		if (isnan(anchor))
			sqlite3_bind_null(st, 3);
		else
			sqlite3_bind_double(st, 3, anchor);
		bind_text(st, 4, color);
		bind_count(st, 5, games);
		bind_count(st, 6, w);
		bind_count(st, 7, d);
		bind_count(st, 8, l);
		if (sqlite3_step(st) != SQLITE_DONE) {
			rc = db_fail(r, "freeze_blocks");
			break;
		}
		i++;
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return -1;
	return insert_texts(r, conds, "conditions",
	    "UPDATE spec_conditions SET state = ?2 WHERE condition = ?1", "spec_conditions",
	    (const char *const[]){ "condition", "state" }, (const int[]){ 1, 0 }, 2);
}

/* A condition used by the freeze that its spec does not name. */
static int
freeze_check_conditions(struct recon *r)
{
	sqlite3_stmt *st = db_prep(r, "SELECT condition FROM (SELECT condition FROM freeze_games"
	    " UNION SELECT condition FROM freeze_blocks) WHERE condition NOT IN"
	    " (SELECT condition FROM spec_conditions) ORDER BY 1 LIMIT 1");
	int rc = 0;

	if (st == NULL)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		rc = err_set(r->e, ERR_INPUT, "condition \"%s\" is not in the spec's conditions",
		    (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return rc;
}

static int
load_freeze(struct recon *r)
{
	const char *path = r->o->freeze, *kind, *as_of;
	const cJSON *spec, *games, *ex = NULL, *ladder = NULL;
	char id[HASH_ID_LEN + 1], norm[RECON_TIME_MAX];

	r->freeze = json_parse_file(path, r->e);
	if (r->freeze == NULL)
		return -1;
	if (!cJSON_IsObject(r->freeze)) {
		err_set(r->e, ERR_INPUT, "expected a JSON object");
		goto bad;
	}
	if (json_get_string(r->freeze, "kind", 1, &kind, r->e) < 0)
		goto bad;
	if (strcmp(kind, "cohort.freeze/1") != 0) {
		err_set(r->e, ERR_INPUT, "\"kind\": expected cohort.freeze/1");
		goto bad;
	}
	if (json_get_object(r->freeze, "spec", 1, &spec, r->e) < 0 ||
	    json_get_string(r->freeze, "as_of", 1, &as_of, r->e) < 0 ||
	    json_get_array(r->freeze, "games", 1, &games, r->e) < 0 ||
	    json_get_array(r->freeze, "excluded", 0, &ex, r->e) < 0 ||
	    json_get_object(spec, "ladder", 0, &ladder, r->e) < 0)
		goto bad;
	if (recon_time_parse(as_of, &r->as_of, norm) < 0) {
		err_set(r->e, ERR_INPUT, "\"as_of\": expected an RFC 3339 date-time");
		goto bad;
	}
	r->block_games = 10;
	if (ladder != NULL &&
	    json_get_int(ladder, "block_games", 0, 1, 1000000, &r->block_games, r->e) < 0) {
		err_prefix(r->e, "\"spec.ladder\"");
		goto bad;
	}
	if (canon_id(r->freeze, id, r->e) < 0 ||
	    file_add(r, "freeze", path, NULL, id, NULL) < 0)
		goto bad;
	if (freeze_strings(r, spec, "families",
	        "INSERT INTO spec_families(family) VALUES (?1)") < 0 ||
	    freeze_strings(r, spec, "conditions",
	        "INSERT INTO spec_conditions(condition, ord) VALUES (?1, ?2)") < 0 ||
	    freeze_games(r, games) < 0 || freeze_excluded(r, ex) < 0 || freeze_ladder(r) < 0 ||
	    freeze_check_conditions(r) < 0)
		goto bad;
	return 0;
bad:
	return err_prefix(r->e, "%s", io_name(path));
}

/* --------------------------------------------------------------- sources */

/* One input streamed by a producer thread (recon_feed.h). */
struct source {
	struct recon *r;            /* read only on the producer's side */
	const char *path;
	long long file;             /* its number in files */
	uint8_t digest[HASH_LEN];   /* SHA-256 of its bytes, once read */
	struct buf scratch;         /* canonical bytes of one record */
};

static int
put_text(struct recon_feed *f, const char *s, struct err *e)
{
	if (s == NULL) {
		recon_put_null(f);
		return 0;
	}
	if (recon_put_text(f, s, strlen(s)) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

static int
put_count(struct recon_feed *f, long long v)
{
	if (v < 0)
		recon_put_null(f);
	else
		recon_put_int(f, v);
	return 0;
}

/* Stream a JSON Lines file through fn on the producer thread; blank lines
 * are skipped, as cohort freeze does. */
static int
produce_lines(struct source *src, struct recon_feed *f, struct err *e,
    int (*fn)(struct source *, struct recon_feed *, long, const char *, size_t, struct err *))
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
static int
load_fed(struct recon *r, const char *role, const char *path, cJSON *list, const char *sql,
    recon_produce_fn fn)
{
	struct source src = { r, path, r->nfile, { 0 }, BUF_INIT };
	sqlite3_stmt *st = db_prep(r, sql);
	int rc;

	if (st == NULL)
		return -1;
	rc = db_exec(r, "BEGIN");
	if (rc == 0)
		rc = recon_feed_run(r->db, st, fn, &src, r->e);
	sqlite3_finalize(st);
	buf_release(&src.scratch);
	if (rc < 0 || db_exec(r, "COMMIT") < 0)
		return -1;
	return file_add(r, role, path, src.digest, NULL, list);
}

/* ---------------------------------------------------------------- ledger */

static int
put_real(struct recon_feed *f, double x)
{
	if (isnan(x))
		recon_put_null(f);
	else
		recon_put_real(f, x);
	return 0;
}

/* One game record (borrowed) at where ("file:line", or "file:rowid N"). */
static int
ledger_record(struct source *src, struct recon_feed *f, const char *where, long line,
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

	if (get_text(g, "game_id", 1, &gid, e) < 0 || get_text(g, "family", 1, &family, e) < 0 ||
	    get_text(g, "condition", 1, &cond, e) < 0 ||
	    get_enum(g, "status", 1, statuses, "terminal, live, provider_error or aborted",
	        &status, e) < 0)
		goto bad;
	term = strcmp(status, "terminal") == 0;
	perr = strcmp(status, "provider_error") == 0;
	if (get_enum(g, "result", term, results, "win, draw or loss", &result, e) < 0 ||
	    (has0 = get_time(g, "started_at", 0, &t0, started, e)) < 0 ||
	    (has1 = get_time(g, "ended_at", term, &t1, ended, e)) < 0 ||
	    get_tokens(g, "tokens", term || perr, tok, e) < 0 ||
	    get_nonneg(g, "wall_s", term, &wall, e) < 0 ||
	    get_nonneg(g, "worker_hours", term, &hours, e) < 0 ||
	    json_get_array(g, "requests", 0, &reqs, e) < 0)
		goto bad;
	if (reqs != NULL) {
		const cJSON *v;
		nreq = 0;
		cJSON_ArrayForEach(v, reqs) {
			if (!cJSON_IsString(v)) {
				err_set(e, ERR_INPUT, "\"requests[%lld]\": expected a request id", nreq);
				goto bad;
			}
			nreq++;
		}
	}
	buf_reset(&src->scratch);
	if (canon_digest(g, &src->scratch, d, e) < 0)
		goto bad;
	hash_id_format(d, id);
	if (recon_feed_row(f) < 0)
		return -1;
	if (put_text(f, gid, e) < 0)
		return -1;
	recon_put_int(f, src->file);
	recon_put_int(f, line);
	if (put_text(f, id, e) < 0 || put_text(f, family, e) < 0 || put_text(f, cond, e) < 0 ||
	    put_text(f, status, e) < 0 || put_text(f, result, e) < 0 ||
	    put_text(f, has0 == 0 ? started : NULL, e) < 0)
		return -1;
	if (has0 == 0)
		recon_put_int(f, t0);
	else
		recon_put_null(f);
	if (put_text(f, has1 == 0 ? ended : NULL, e) < 0)
		return -1;
	if (has1 == 0)
		recon_put_int(f, t1);
	else
		recon_put_null(f);
	for (int i = 0; i < NCLASS; i++)
		put_count(f, tok[i]);
	put_real(f, wall);
	put_real(f, hours);
	put_count(f, nreq);
	return 0;
bad:
	return err_prefix(e, "%s", where);
}

static int
ledger_line(struct source *src, struct recon_feed *f, long line, const char *p, size_t n,
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
	return produce_lines(ctx, f, e, ledger_line);
}

struct ledger_ctx {
	struct source *src;
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
	struct source *src = ctx;
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
static int
index_unique(struct recon *r, const char *table, const char *key)
{
	char sql[1024];
	sqlite3_stmt *st;
	int rc;

	snprintf(sql, sizeof sql, "CREATE UNIQUE INDEX %s_by_id ON %s(%s)", table, table, key);
	if (sqlite3_exec(r->db, sql, NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	if ((sqlite3_extended_errcode(r->db) & 0xff) != SQLITE_CONSTRAINT)
		return db_fail(r, "index");
	/* Only on this error path: an index to find the first repeat fast. */
	snprintf(sql, sizeof sql, "CREATE INDEX %s_repeats ON %s(%s)", table, table, key);
	if (db_exec(r, sql) < 0)
		return -1;
	snprintf(sql, sizeof sql, "SELECT k, path, line, first FROM (SELECT q.%s k, f.path path,"
	    " q.line line, q.rowid row, (SELECT f2.path || ':' || p.line FROM %s p"
	    " JOIN files f2 ON f2.file = p.file WHERE p.%s = q.%s AND p.rowid < q.rowid"
	    " ORDER BY p.rowid LIMIT 1) first FROM %s q JOIN files f ON f.file = q.file)"
	    " WHERE first IS NOT NULL ORDER BY row LIMIT 1", key, table, key, key, table);
	st = db_prep(r, sql);
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

static int
load_ledgers(struct recon *r)
{
	cJSON *list = inputs_list(r, "ledgers");

	if (list == NULL)
		return -1;
	for (size_t i = 0; i < r->o->nledgers; i++) {
		const char *path = r->o->ledgers[i];
		if (load_fed(r, "ledger", path, list, games_sql, is_sqlite_file(path)
		        ? produce_ledger_sqlite : produce_ledger_jsonl) < 0)
			return -1;
	}
	if (index_unique(r, "games", "game_id") < 0)
		return -1;
	return db_exec(r, "UPDATE games SET in_scope = 1 WHERE family IN (SELECT family FROM"
	    " spec_families) AND condition IN (SELECT condition FROM spec_conditions)");
}

/* -------------------------------------------------------------- requests */

/* A whole number in [lo, hi], as the strict getters read it. */
static int
flat_int(const struct recon_flat *fl, const char *path, double lo, double hi, long long *out)
{
	const struct recon_flat_field *v = recon_flat_get(fl, path);

	if (v == NULL || v->type != RF_NUM || v->num != floor(v->num) || v->num < lo || v->num > hi)
		return -1;
	*out = (long long)v->num;
	return 0;
}

static const struct recon_flat_field *
flat_str(const struct recon_flat *fl, const char *path, int nonempty)
{
	const struct recon_flat_field *v = recon_flat_get(fl, path);

	return v != NULL && v->type == RF_STR && (!nonempty || v->n > 0) ? v : NULL;
}

/* The fast path of request_line: 1 when the line was a well-formed, valid
 * request and its row was put (or -1 when putting failed), 0 to fall back
 * to the strict reader. */
static int
request_fast(struct source *src, struct recon_feed *f, long line, const char *p, size_t n,
    struct err *e)
{
	static const char *const tk[NCLASS] = { "tokens.input", "tokens.output", "tokens.reasoning",
		"tokens.cached" };
	struct recon_flat fl;
	const struct recon_flat_field *rid, *gid, *ts, *req, *ret, *st, *lat, *v;
	long long tok[NCLASS], attempt;
	char tsbuf[RECON_TIME_MAX], tsraw[64];
	long long t;

	if (recon_flat_parse(&fl, p, n) < 0)
		return 0;
	rid = flat_str(&fl, "request_id", 1);
	gid = recon_flat_get(&fl, "game_id");
	ts = flat_str(&fl, "ts", 0);
	req = flat_str(&fl, "model.requested", 0);
	ret = flat_str(&fl, "model.returned", 0);
	st = flat_str(&fl, "status", 0);
	lat = recon_flat_get(&fl, "latency_ms");
	v = recon_flat_get(&fl, "tokens");
	if (rid == NULL || gid == NULL || (gid->type != RF_NULL && (gid->type != RF_STR || gid->n == 0)) ||
	    ts == NULL || ts->n >= sizeof tsraw || req == NULL || ret == NULL || st == NULL ||
	    lat == NULL || lat->type != RF_NUM || lat->num < 0 || v == NULL || v->type != RF_OBJ ||
	    flat_int(&fl, "attempt", 1, 1000000, &attempt) < 0)
		return 0;
	if (!((st->n == 2 && memcmp(st->s, "ok", 2) == 0) || (st->n == 5 && memcmp(st->s, "error", 5) == 0)))
		return 0;
	for (int i = 0; i < NCLASS; i++)
		if (flat_int(&fl, tk[i], 0, (double)MAX_COUNT, &tok[i]) < 0)
			return 0;
	memcpy(tsraw, ts->s, ts->n);
	tsraw[ts->n] = '\0';
	if (recon_time_parse(tsraw, &t, tsbuf) < 0)
		return 0;
	if (recon_feed_row(f) < 0)
		return -1;
	if (recon_put_text(f, rid->s, rid->n) < 0 ||
	    (gid->type == RF_NULL ? (recon_put_null(f), 0) : recon_put_text(f, gid->s, gid->n)) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	recon_put_int(f, src->file);
	recon_put_int(f, line);
	if (recon_put_text(f, tsbuf, strlen(tsbuf)) < 0 || recon_put_text(f, req->s, req->n) < 0 ||
	    recon_put_text(f, ret->s, ret->n) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (int i = 0; i < NCLASS; i++)
		recon_put_int(f, tok[i]);
	recon_put_real(f, lat->num);
	recon_put_int(f, attempt);
	if (recon_put_text(f, st->s, st->n) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 1;
}

static int
request_line(struct source *src, struct recon_feed *f, long line, const char *p, size_t n,
    struct err *e)
{
	static const char *const statuses[] = { "ok", "error", NULL };
	const char *name = src->path, *rid, *gid = NULL, *req, *ret, *status;
	char ts[RECON_TIME_MAX];
	const cJSON *model, *gv;
	long long tok[NCLASS], attempt;
	long long t;
	double latency;
	cJSON *q;
	int rc = request_fast(src, f, line, p, n, e);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	rc = -1;
	q = json_parse(p, n, name, line, e);
	if (q == NULL)
		return -1;
	if (!cJSON_IsObject(q)) {
		err_set(e, ERR_INPUT, "expected a JSON object");
		goto bad;
	}
	if (get_text(q, "request_id", 1, &rid, e) < 0)
		goto bad;
	gv = json_get(q, "game_id");
	if (gv == NULL) {
		err_set(e, ERR_INPUT, "\"game_id\": missing (null when the request has no game)");
		goto bad;
	}
	if (!cJSON_IsNull(gv) && get_text(q, "game_id", 1, &gid, e) < 0) {
		err_set(e, ERR_INPUT, "\"game_id\": expected a game id or null");
		goto bad;
	}
	if (get_time(q, "ts", 1, &t, ts, e) < 0 || json_get_object(q, "model", 1, &model, e) < 0)
		goto bad;
	if (json_get_string(model, "requested", 1, &req, e) < 0 ||
	    json_get_string(model, "returned", 1, &ret, e) < 0) {
		err_set(e, ERR_INPUT, "\"model\": expected {\"requested\": string, \"returned\": string}");
		goto bad;
	}
	if (get_tokens(q, "tokens", 1, tok, e) < 0 || get_nonneg(q, "latency_ms", 1, &latency, e) < 0 ||
	    json_get_int(q, "attempt", 1, 1, 1000000, &attempt, e) < 0 ||
	    get_enum(q, "status", 1, statuses, "ok or error", &status, e) < 0)
		goto bad;
	if (recon_feed_row(f) < 0)
		goto done;
	if (put_text(f, rid, e) < 0 || put_text(f, gid, e) < 0)
		goto done;
	recon_put_int(f, src->file);
	recon_put_int(f, line);
	if (put_text(f, ts, e) < 0 || put_text(f, req, e) < 0 || put_text(f, ret, e) < 0)
		goto done;
	for (int i = 0; i < NCLASS; i++)
		recon_put_int(f, tok[i]);
	recon_put_real(f, latency);
	recon_put_int(f, attempt);
	rc = put_text(f, status, e);
	goto done;
bad:
	at_line(e, name, line);
done:
	cJSON_Delete(q);
	return rc;
}

static int
produce_requests(void *ctx, struct recon_feed *f, struct err *e)
{
	return produce_lines(ctx, f, e, request_line);
}

static int
load_requests(struct recon *r)
{
	cJSON *list = inputs_list(r, "requests");

	if (list == NULL)
		return -1;
	for (size_t i = 0; i < r->o->nrequests; i++)
		if (load_fed(r, "requests", r->o->requests[i], list,
		        "INSERT INTO requests(request_id, game_id, file, line, ts, model_requested,"
		        " model_returned, input, output, reasoning, cached, latency_ms, attempt, status)"
		        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", produce_requests) < 0)
			return -1;
	return 0;
}

/* --------------------------------------------------------------- billing */

static const char billing_sql[] =
"INSERT INTO billing(request_id, file, line, ts, model, input, output, reasoning, cached, cost)"
" VALUES (?,?,?,?,?,?,?,?,?,?)";

static int
load_map(struct recon *r)
{
	const char *path = r->o->billing_map;
	uint8_t d[HASH_LEN];
	const cJSON *v;
	cJSON *m;
	int rc = 0;

	for (int k = 0; k < NBCOL; k++)
		r->map[k] = strdup(bcols[k]);
	if (path == NULL)
		return 0;
	m = json_parse_file(path, r->e);
	if (m == NULL)
		return -1;
	if (!cJSON_IsObject(m))
		rc = err_set(r->e, ERR_INPUT, "%s: expected a JSON object of column names", path);
	cJSON_ArrayForEach(v, m) {
		int k;
		if (rc < 0)
			break;
		for (k = 0; k < NBCOL && strcmp(v->string, bcols[k]) != 0; k++)
			;
		if (k == NBCOL)
			rc = err_set(r->e, ERR_INPUT, "%s: \"%s\": not a billing column (expected one of"
			    " request_id, ts, model, input_tokens, output_tokens, reasoning_tokens,"
			    " cached_tokens, cost)", path, v->string);
		else if (!cJSON_IsString(v) || v->valuestring[0] == '\0')
			rc = err_set(r->e, ERR_INPUT, "%s: \"%s\": expected a column name", path,
			    v->string);
		else {
			free(r->map[k]);
			r->map[k] = strdup(v->valuestring);
		}
	}
	cJSON_Delete(m);
	for (int k = 0; k < NBCOL && rc == 0; k++)
		if (r->map[k] == NULL)
			rc = err_set(r->e, ERR_NOMEM, "out of memory");
	if (rc == 0 && hash_file(path, d, NULL, r->e) == 0)
		return file_add(r, "billing_map", path, d, NULL, NULL);
	return -1;
}

/* One billing row, parsed. */
struct bill_row {
	const char *rid;
	const char *ts;           /* normalized, or NULL */
	const char *model;
	long long tok[NCLASS];    /* -1: not given */
	double cost;              /* NAN: not given */
	char tsbuf[RECON_TIME_MAX];
};

static int
bill_put(struct source *src, struct recon_feed *f, const struct bill_row *b, long line,
    struct err *e)
{
	if (recon_feed_row(f) < 0)
		return -1;
	if (put_text(f, b->rid, e) < 0)
		return -1;
	recon_put_int(f, src->file);
	recon_put_int(f, line);
	if (put_text(f, b->ts, e) < 0 || put_text(f, b->model, e) < 0)
		return -1;
	for (int i = 0; i < NCLASS; i++)
		put_count(f, b->tok[i]);
	if (isnan(b->cost))
		recon_put_null(f);
	else
		recon_put_real(f, b->cost);
	return 0;
}

static const int bill_class_col[NCLASS] = { B_INPUT, B_OUTPUT, B_REASONING, B_CACHED };

static int
produce_billing_csv(void *ctx, struct recon_feed *f, struct err *e)
{
	struct source *src = ctx;
	const char *path = src->path;
	char *const *map = src->r->map;
	struct csv *c = csv_open(path, NULL, e);
	int col[NBCOL], rc;

	if (c == NULL)
		return -1;
	for (int k = 0; k < NBCOL; k++) {
		col[k] = csv_find(c, map[k]);
		if (col[k] < 0 && (k == B_REQUEST_ID || k == B_INPUT || k == B_OUTPUT)) {
			err_set(e, ERR_INPUT, "%s:%ld: no column \"%s\" (%s)", path, csv_line(c), map[k],
			    bcols[k]);
			goto fail;
		}
	}
	while ((rc = csv_next(c, e)) == 1) {
		struct bill_row b;
		const char *v;
		size_t n;
		long line = csv_line(c);

		b.rid = csv_field(c, col[B_REQUEST_ID], NULL);
		if (b.rid[0] == '\0') {
			err_set(e, ERR_INPUT, "%s:%ld: \"%s\": empty", path, line, map[B_REQUEST_ID]);
			goto fail;
		}
		b.ts = NULL;
		if (col[B_TS] >= 0) {
			long long t;
			v = csv_field(c, col[B_TS], NULL);
			if (recon_time_parse(v, &t, b.tsbuf) < 0) {
				err_set(e, ERR_INPUT, "%s:%ld: \"%s\": expected an RFC 3339 date-time,"
				    " found \"%.40s\"", path, line, map[B_TS], v);
				goto fail;
			}
			b.ts = b.tsbuf;
		}
		b.model = col[B_MODEL] >= 0 ? csv_field(c, col[B_MODEL], NULL) : NULL;
		for (int i = 0; i < NCLASS; i++) {
			int k = bill_class_col[i];
			b.tok[i] = -1;
			if (col[k] < 0)
				continue;
			v = csv_field(c, col[k], &n);
			if (recon_count_parse(v, n, &b.tok[i]) < 0) {
				err_set(e, ERR_INPUT, "%s:%ld: \"%s\": expected a whole number of tokens,"
				    " found \"%.40s\"", path, line, map[k], v);
				goto fail;
			}
		}
		b.cost = NAN;
		if (col[B_COST] >= 0) {
			v = csv_field(c, col[B_COST], NULL);
			if (amount_parse(v, &b.cost) < 0) {
				err_set(e, ERR_INPUT, "%s:%ld: \"%s\": expected a decimal amount, found"
				    " \"%.40s\"", path, line, map[B_COST], v);
				goto fail;
			}
		}
		if (bill_put(src, f, &b, line, e) < 0)
			goto fail;
	}
	if (rc < 0)
		goto fail;
	csv_digest(c, src->digest);
	csv_free(c);
	return 0;
fail:
	csv_free(c);
	return -1;
}

/* obj[name], or the nested value at a dotted path ("usage.prompt_tokens"). */
static const cJSON *
json_path(const cJSON *obj, const char *name)
{
	const cJSON *v = json_get(obj, name);
	char part[256];

	while (v == NULL && obj != NULL) {
		const char *dot = strchr(name, '.');
		size_t n;
		if (dot == NULL || (n = (size_t)(dot - name)) >= sizeof part)
			return NULL;
		memcpy(part, name, n);
		part[n] = '\0';
		obj = json_get(obj, part);
		name = dot + 1;
		v = json_get(obj, name);
	}
	return v;
}

static int
billing_line(struct source *src, struct recon_feed *f, long line, const char *p, size_t n,
    struct err *e)
{
	const char *name = src->path;
	char *const *map = src->r->map;
	struct bill_row b;
	const cJSON *v;
	cJSON *q;
	int rc = -1;

	q = json_parse(p, n, name, line, e);
	if (q == NULL)
		return -1;
	if (!cJSON_IsObject(q)) {
		err_set(e, ERR_INPUT, "%s:%ld: expected a JSON object", name, line);
		goto done;
	}
	v = json_path(q, map[B_REQUEST_ID]);
	if (!cJSON_IsString(v) || v->valuestring[0] == '\0') {
		err_set(e, ERR_INPUT, "%s:%ld: \"%s\": %s", name, line, map[B_REQUEST_ID],
		    v == NULL ? "missing" : "expected a request id (a string)");
		goto done;
	}
	b.rid = v->valuestring;
	b.ts = NULL;
	v = json_path(q, map[B_TS]);
	if (v != NULL && !cJSON_IsNull(v)) {
		long long t;
		if (!cJSON_IsString(v) || recon_time_parse(v->valuestring, &t, b.tsbuf) < 0) {
			err_set(e, ERR_INPUT, "%s:%ld: \"%s\": expected an RFC 3339 date-time", name, line,
			    map[B_TS]);
			goto done;
		}
		b.ts = b.tsbuf;
	}
	v = json_path(q, map[B_MODEL]);
	b.model = cJSON_IsString(v) ? v->valuestring : NULL;
	if (v != NULL && !cJSON_IsNull(v) && b.model == NULL) {
		err_set(e, ERR_INPUT, "%s:%ld: \"%s\": expected a string", name, line, map[B_MODEL]);
		goto done;
	}
	for (int i = 0; i < NCLASS; i++) {
		int k = bill_class_col[i], ok;
		const char *col = map[k];
		v = json_path(q, col);
		b.tok[i] = -1;
		if (v == NULL || cJSON_IsNull(v)) {
			if (k == B_INPUT || k == B_OUTPUT) {
				err_set(e, ERR_INPUT, "%s:%ld: \"%s\": missing", name, line, col);
				goto done;
			}
			continue;
		}
		if (cJSON_IsNumber(v)) {
			double x = v->valuedouble;
			ok = x == floor(x) && x >= 0 && x <= (double)MAX_COUNT;
			b.tok[i] = ok ? (long long)x : -1;
		} else {
			ok = cJSON_IsString(v) && recon_count_parse(v->valuestring,
			    strlen(v->valuestring), &b.tok[i]) == 0;
		}
		if (!ok) {
			err_set(e, ERR_INPUT, "%s:%ld: \"%s\": expected a whole number of tokens", name,
			    line, col);
			goto done;
		}
	}
	b.cost = NAN;
	v = json_path(q, map[B_COST]);
	if (v != NULL && !cJSON_IsNull(v)) {
		if (cJSON_IsNumber(v))
			b.cost = v->valuedouble;
		else if (!cJSON_IsString(v) || amount_parse(v->valuestring, &b.cost) < 0) {
			err_set(e, ERR_INPUT, "%s:%ld: \"%s\": expected a decimal amount", name, line,
			    map[B_COST]);
			goto done;
		}
	}
	rc = bill_put(src, f, &b, line, e);
done:
	cJSON_Delete(q);
	return rc;
}

static int
produce_billing_jsonl(void *ctx, struct recon_feed *f, struct err *e)
{
	return produce_lines(ctx, f, e, billing_line);
}

/* JSON Lines when the name ends in .jsonl, .ndjson or .json, or the first
 * byte is '{'; CSV otherwise. */
static int
billing_is_jsonl(const char *path)
{
	size_t n = strlen(path);
	int c = EOF;

	if ((n > 6 && strcmp(path + n - 6, ".jsonl") == 0) ||
	    (n > 7 && strcmp(path + n - 7, ".ndjson") == 0) ||
	    (n > 5 && strcmp(path + n - 5, ".json") == 0))
		return 1;
	if (n > 4 && strcmp(path + n - 4, ".csv") == 0)
		return 0;
	if (strcmp(path, "-") == 0) {
		c = getc(stdin);
		if (c != EOF)
			ungetc(c, stdin);
	} else {
		FILE *fp = fopen(path, "rb");
		if (fp != NULL) {
			c = getc(fp);
			fclose(fp);
		}
	}
	return c == '{';
}

static int
load_billing(struct recon *r)
{
	cJSON *list = inputs_list(r, "billing");

	if (list == NULL || load_map(r) < 0)
		return -1;
	for (size_t i = 0; i < r->o->nbilling; i++) {
		const char *path = r->o->billing[i];
		if (load_fed(r, "billing", path, list, billing_sql, billing_is_jsonl(path)
		        ? produce_billing_jsonl : produce_billing_csv) < 0)
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- checks */

static void
progress(struct recon *r, const char *what)
{
	if (r->o->progress)
		r->o->progress(r->o->progress_ctx, what);
}

/* The derived tables every check reads (documented in docs/reconcile-db.md). */
static const char derive_sql[] =
"CREATE INDEX billing_by_request ON billing(request_id, input, output, reasoning, cached);\n"
"CREATE TABLE game_scope(game_id TEXT PRIMARY KEY, condition TEXT NOT NULL,\n"
"  class TEXT NOT NULL);\n"
"INSERT INTO game_scope SELECT game_id, condition, class FROM (\n"
"  SELECT f.game_id, f.condition, 'clean' AS class FROM freeze_games f\n"
"  UNION ALL\n"
"  SELECT g.game_id, g.condition, CASE WHEN g.status = 'provider_error'\n"
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

static long long count_rows(struct recon *r, const char *sql);

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
			return db_fail(r, "prepare");
		p = tail;
		if (st == NULL)
			break;
		db_bind_params(r, st);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			return db_fail(r, "step");
		}
		sqlite3_finalize(st);
	}
	return 0;
}

static int
run_checks(struct recon *r)
{
	long long joined, nreq;
	char sql[128];

	progress(r, "indexing");
	if (index_unique(r, "requests", "request_id") < 0)
		return -1;
	progress(r, "joining requests and billing");
	if (db_script(r, derive_sql) < 0 || db_script(r, game_pass_sql) < 0)
		return -1;
	joined = count_rows(r, "SELECT total(n) FROM game_requests");
	nreq = count_rows(r, "SELECT count(*) FROM requests");
	if (joined < 0 || nreq < 0)
		return db_fail(r, "count");
	if (joined != nreq && db_script(r, game_pass_dup_sql) < 0)
		return -1;
	snprintf(sql, sizeof sql, "INSERT INTO meta VALUES ('billing_duplicates', %d);"
	    " CREATE UNIQUE INDEX game_requests_id ON game_requests(game_id)", joined != nreq);
	if (db_exec(r, sql) < 0)
		return -1;
	progress(r, "checking");
	for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
		if (gates[i] != NULL) {
			long long g = count_rows(r, gates[i]);
			if (g < 0)
				return db_fail(r, "gate");
			if (g == 0)
				continue;
		}
		if (db_run(r, checks[i]) < 0)
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- report */

/* Sums for one condition, or for the totals. */
struct sums {
	char *condition;
	char *state;
	long long clean, perr, w, d, l;
	long long rec[NCLASS];      /* recorded by the ledger, clean games */
	long long billed[NCLASS];   /* billed, requests of clean games */
	int billed_set[NCLASS];     /* some billing row gave the class */
	long long requests, retries, failed, changed;
	long long perr_requests, perr_tok[NCLASS];
	double wall_s, hours;
	long long findings[NKIND];
	cJSON *blocks;
};

/* acc + v for token counts, both at least 0: past MAX_COUNT it stops just
 * above, which tokens_fit refuses (so no sum can overflow). */
static void
count_add(long long *acc, long long v)
{
	*acc = *acc > MAX_COUNT - v ? MAX_COUNT + 1 : *acc + v;
}

/* Token sums must stay at most 2^53 - 1 to be written exactly (as the
 * freeze's): each class recorded, billed and of provider-error games, and
 * each total of three classes.  -1 with e naming what and the field. */
static int
tokens_fit(const struct sums *s, const char *what, struct err *e)
{
	const long long *sets[3] = { s->rec, s->billed, s->perr_tok };
	static const char *const set_names[3] = { "tokens.recorded", "tokens.billed",
		"provider_error_tokens" };

	for (int j = 0; j < 3; j++)
		for (int i = 0; i <= NCLASS; i++) {
			long long v = i < NCLASS ? sets[j][i] : sets[j][0] + sets[j][1] + sets[j][2];
			if (v > MAX_COUNT)
				return err_set(e, ERR_INPUT, "%s: \"%s.%s\": the sum is above 2^53 - 1 = "
				    "%lld, the largest whole number a JSON number holds exactly", what,
				    set_names[j], i < NCLASS ? classes[i] : "total", MAX_COUNT);
		}
	return 0;
}

static int
kind_index(const char *k)
{
	for (size_t i = 0; i < NKIND; i++)
		if (strcmp(kinds[i], k) == 0)
			return (int)i;
	return -1;
}

static struct sums *
sums_find(struct sums *s, int n, const unsigned char *cond)
{
	if (cond == NULL)
		return NULL;
	for (int i = 0; i < n; i++)
		if (strcmp(s[i].condition, (const char *)cond) == 0)
			return &s[i];
	return NULL;
}

static cJSON *
tokens_obj(const long long t[NCLASS], const int *set)
{
	cJSON *o = cJSON_CreateObject();
	long long total = 0;
	int any = 0;

	if (o == NULL)
		return NULL;
	for (int i = 0; i < NCLASS; i++) {
		if (set != NULL && !set[i]) {
			json_add_null(o, classes[i]);
			continue;
		}
		json_add_number(o, classes[i], (double)t[i]);
		if (i != 3) {
			total += t[i];
			any = 1;
		}
	}
	if (any)
		json_add_number(o, "total", (double)total);
	else
		json_add_null(o, "total");
	return o;
}

static cJSON *
sums_obj(const struct sums *s, int is_total)
{
	cJSON *o = cJSON_CreateObject(), *tok, *f;
	long long total = s->rec[0] + s->rec[1] + s->rec[2];

	if (o == NULL)
		return NULL;
	if (!is_total) {
		json_add_string(o, "condition", s->condition);
		if (s->state != NULL)
			json_add_string(o, "state", s->state);
		else
			json_add_null(o, "state");
		cJSON_AddItemToObject(o, "blocks", s->blocks != NULL ? cJSON_Duplicate(s->blocks, 1)
		    : cJSON_CreateArray());
	}
	json_add_number(o, "clean_games", (double)s->clean);
	json_add_number(o, "provider_error_games", (double)s->perr);
	json_add_number(o, "w", (double)s->w);
	json_add_number(o, "d", (double)s->d);
	json_add_number(o, "l", (double)s->l);
	tok = cJSON_CreateObject();
	cJSON_AddItemToObject(tok, "recorded", tokens_obj(s->rec, NULL));
	cJSON_AddItemToObject(tok, "billed", tokens_obj(s->billed, s->billed_set));
	cJSON_AddItemToObject(o, "tokens", tok);
	if (s->clean > 0)
		json_add_number(o, "tokens_per_clean_game",
		    json_round((double)total / (double)s->clean, 1e-6));
	else
		json_add_null(o, "tokens_per_clean_game");
	json_add_number(o, "requests", (double)s->requests);
	json_add_number(o, "retries", (double)s->retries);
	json_add_number(o, "failed_requests", (double)s->failed);
	json_add_number(o, "model_changes", (double)s->changed);
	json_add_number(o, "wall_s", json_round(s->wall_s, 1e-3));
	json_add_number(o, "worker_hours", json_round(s->hours, 1e-6));
	json_add_number(o, "provider_error_requests", (double)s->perr_requests);
	cJSON_AddItemToObject(o, "provider_error_tokens", tokens_obj(s->perr_tok, NULL));
	f = cJSON_CreateObject();
	for (size_t k = 0; k < NKIND; k++)
		json_add_number(f, kinds[k], (double)s->findings[k]);
	cJSON_AddItemToObject(o, "findings", f);
	return o;
}

static cJSON *
column_json(sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		return cJSON_CreateNumber((double)sqlite3_column_int64(st, i));
	case SQLITE_FLOAT:
		return cJSON_CreateNumber(json_round(sqlite3_column_double(st, i), 1e-6));
	case SQLITE_TEXT:
		return cJSON_CreateString((const char *)sqlite3_column_text(st, i));
	default:
		return cJSON_CreateNull();
	}
}

static int
report_findings(struct recon *r, cJSON *doc, long long *count)
{
	static const char *const keys[] = { "kind", "condition", "game_id", "request_id", "file",
		"line", "field", "expected", "found" };
	sqlite3_stmt *st = db_prep(r, "SELECT kind, condition, game_id, request_id, f.name, line,"
	    " field, expected, found FROM findings LEFT JOIN files f ON f.file = findings.file"
	    " ORDER BY seq");
	cJSON *a = cJSON_AddArrayToObject(doc, "findings");
	int rc;

	if (st == NULL)
		return -1;
	*count = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		cJSON *f = cJSON_CreateObject();
		for (int i = 0; i < 9; i++)
			cJSON_AddItemToObject(f, keys[i], column_json(st, i));
		cJSON_AddItemToArray(a, f);
		(*count)++;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_fail(r, "findings");
}

/* Each query returns rows starting with a condition; fn adds them to sums. */
static int
each_row(struct recon *r, const char *sql, struct sums *s, int n, struct sums *tot,
    void (*fn)(sqlite3_stmt *, struct sums *, struct sums *))
{
	sqlite3_stmt *st = db_prep(r, sql);
	int rc;

	if (st == NULL)
		return -1;
	db_bind_params(r, st);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		fn(st, sums_find(s, n, sqlite3_column_text(st, 0)), tot);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_fail(r, "summary");
}

static void
row_clean(sqlite3_stmt *st, struct sums *c, struct sums *t)
{
	struct sums *p[2] = { c, t };
	for (int j = 0; j < 2; j++) {
		if (p[j] == NULL)
			continue;
		p[j]->clean += sqlite3_column_int64(st, 1);
		p[j]->w += sqlite3_column_int64(st, 2);
		p[j]->d += sqlite3_column_int64(st, 3);
		p[j]->l += sqlite3_column_int64(st, 4);
		for (int i = 0; i < NCLASS; i++)
			count_add(&p[j]->rec[i], sqlite3_column_int64(st, 5 + i));
		p[j]->wall_s += sqlite3_column_double(st, 9);
		p[j]->hours += sqlite3_column_double(st, 10);
	}
}

static void
row_perr(sqlite3_stmt *st, struct sums *c, struct sums *t)
{
	struct sums *p[2] = { c, t };
	for (int j = 0; j < 2; j++) {
		if (p[j] == NULL)
			continue;
		p[j]->perr += sqlite3_column_int64(st, 1);
		for (int i = 0; i < NCLASS; i++)
			count_add(&p[j]->perr_tok[i], sqlite3_column_int64(st, 2 + i));
	}
}

static void
row_requests(sqlite3_stmt *st, struct sums *c, struct sums *t)
{
	struct sums *p[2] = { c, t };
	int clean = strcmp((const char *)sqlite3_column_text(st, 1), "clean") == 0;
	for (int j = 0; j < 2; j++) {
		if (p[j] == NULL)
			continue;
		if (!clean) {
			p[j]->perr_requests += sqlite3_column_int64(st, 2);
			continue;
		}
		p[j]->requests += sqlite3_column_int64(st, 2);
		p[j]->retries += sqlite3_column_int64(st, 3);
		p[j]->failed += sqlite3_column_int64(st, 4);
		p[j]->changed += sqlite3_column_int64(st, 5);
		for (int i = 0; i < NCLASS; i++) {
			if (sqlite3_column_type(st, 6 + i) == SQLITE_NULL)
				continue;
			count_add(&p[j]->billed[i], sqlite3_column_int64(st, 6 + i));
			p[j]->billed_set[i] = 1;
		}
	}
}

static void
row_findings(sqlite3_stmt *st, struct sums *c, struct sums *t)
{
	int k = kind_index((const char *)sqlite3_column_text(st, 1));
	if (k < 0)
		return;
	if (c != NULL)
		c->findings[k] += sqlite3_column_int64(st, 2);
	t->findings[k] += sqlite3_column_int64(st, 2);
}

static void
row_blocks(sqlite3_stmt *st, struct sums *c, struct sums *t)
{
	cJSON *b;
	long long games = sqlite3_column_int64(st, 3);
	if (c == NULL)
		return;
	if (c->blocks == NULL)
		c->blocks = cJSON_CreateArray();
	b = cJSON_CreateObject();
	json_add_number(b, "block", (double)sqlite3_column_int64(st, 1));
	if (sqlite3_column_type(st, 2) == SQLITE_NULL)
		json_add_null(b, "anchor");
	else
		json_add_number(b, "anchor", json_round(sqlite3_column_double(st, 2), 0.01));
	json_add_number(b, "games", (double)games);
	json_add_bool(b, "complete", games >= sqlite3_column_int64(st, 4));
	cJSON_AddItemToArray(c->blocks, b);
}

static long long
count_rows(struct recon *r, const char *sql)
{
	sqlite3_stmt *st = db_prep(r, sql);
	long long n = -1;

	if (st != NULL && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static cJSON *
build_report(struct recon *r)
{
	struct sums *s = NULL, tot;
	sqlite3_stmt *st;
	cJSON *doc = NULL, *conds, *to;
	int n = 0, rc = -1;
	long long nfind = 0, nreq, nbill;
	char bg[32];

	memset(&tot, 0, sizeof tot);
	st = db_prep(r, "SELECT condition, state FROM spec_conditions ORDER BY ord");
	if (st == NULL)
		return NULL;
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct sums *t = realloc(s, (size_t)(n + 1) * sizeof *s);
		if (t == NULL)
			break;
		s = t;
		memset(&s[n], 0, sizeof s[n]);
		s[n].condition = strdup((const char *)sqlite3_column_text(st, 0));
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			s[n].state = strdup((const char *)sqlite3_column_text(st, 1));
		n++;
	}
	sqlite3_finalize(st);
	snprintf(bg, sizeof bg, "%lld", r->block_games);
	if (each_row(r, "SELECT f.condition, count(*),"
	        " sum(COALESCE(f.result, g.result) = 'win'), sum(COALESCE(f.result, g.result) = 'draw'),"
	        " sum(COALESCE(f.result, g.result) = 'loss'), sum(g.input), sum(g.output),"
	        " sum(g.reasoning), sum(g.cached), sum(g.wall_s), sum(g.worker_hours)"
	        " FROM freeze_games f LEFT JOIN games g ON g.game_id = f.game_id GROUP BY 1",
	        s, n, &tot, row_clean) < 0 ||
	    each_row(r, "SELECT c.condition, count(*), sum(g.input), sum(g.output),"
	        " sum(g.reasoning), sum(g.cached) FROM game_scope c"
	        " JOIN games g ON g.game_id = c.game_id WHERE c.class = 'provider_error' GROUP BY 1",
	        s, n, &tot, row_perr) < 0 ||
	    each_row(r, "SELECT c.condition, c.class, sum(s.n), sum(s.retries), sum(s.failed),"
	        " sum(s.model_changes), sum(s.b_input), sum(s.b_output), sum(s.b_reasoning),"
	        " sum(s.b_cached) FROM game_scope c JOIN game_requests s ON s.game_id = c.game_id"
	        " WHERE c.class IN ('clean', 'provider_error') GROUP BY 1, 2", s, n, &tot,
	        row_requests) < 0 ||
	    each_row(r, "SELECT condition, kind, count(*) FROM findings GROUP BY 1, 2", s, n, &tot,
	        row_findings) < 0)
		goto done;
	{
		char sql[512];
		snprintf(sql, sizeof sql, "SELECT condition, block, max(anchor), sum(games), %s"
		    " FROM freeze_blocks GROUP BY 1, 2 ORDER BY 1, 2", bg);
		if (each_row(r, sql, s, n, &tot, row_blocks) < 0)
			goto done;
	}
	for (int i = 0; i < n; i++) {
		char what[160];
		snprintf(what, sizeof what, "condition %.100s", s[i].condition);
		if (tokens_fit(&s[i], what, r->e) < 0)
			goto done;
	}
	if (tokens_fit(&tot, "totals", r->e) < 0)
		goto done;
	doc = cJSON_CreateObject();
	json_add_string(doc, "kind", "cohort.reconcile/1");
	cJSON_AddItemToObject(doc, "inputs", r->inputs);
	r->inputs = NULL;
	json_add_string(doc, "as_of", cJSON_GetObjectItemCaseSensitive(r->freeze, "as_of")->valuestring);
	json_add_number(doc, "tolerance", r->o->tolerance);
	conds = cJSON_AddArrayToObject(doc, "conditions");
	for (int i = 0; i < n; i++) {
		cJSON_AddItemToArray(conds, sums_obj(&s[i], 0));
	}
	for (int i = 0; i < NCLASS; i++)
		for (int j = 0; j < n; j++)
			tot.billed_set[i] |= s[j].billed_set[i];
	to = sums_obj(&tot, 1);
	nreq = count_rows(r, "SELECT count(*) FROM requests");
	nbill = count_rows(r, "SELECT count(*) FROM billing");
	json_add_number(to, "requests_logged", (double)nreq);
	json_add_number(to, "billing_rows", (double)nbill);
	cJSON_AddItemToObject(doc, "totals", to);
	if (report_findings(r, doc, &nfind) < 0)
		goto done;
	json_add_bool(doc, "reconciled", nfind == 0);
	rc = 0;
done:
	for (int i = 0; i < n; i++) {
		free(s[i].condition);
		free(s[i].state);
		cJSON_Delete(s[i].blocks);
	}
	free(s);
	if (rc < 0) {
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

int
recon_run(const struct recon_opts *o, cJSON **report, struct err *e)
{
	struct recon r;
	cJSON *doc = NULL;
	int rc = -1;

	memset(&r, 0, sizeof r);
	r.o = o;
	r.e = e;
	*report = NULL;
	r.inputs = cJSON_CreateObject();
	if (r.inputs == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	progress(&r, "loading the freeze and ledgers");
	if (db_open(&r) < 0 || load_freeze(&r) < 0 || load_ledgers(&r) < 0)
		goto done;
	progress(&r, "loading request logs");
	if (load_requests(&r) < 0)
		goto done;
	progress(&r, "loading billing");
	if (load_billing(&r) < 0 || run_checks(&r) < 0)
		goto done;
	doc = build_report(&r);
	if (doc == NULL) {
		if (e->code == ERR_OK)
			err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	{
		cJSON *rec = cJSON_GetObjectItemCaseSensitive(doc, "reconciled");
		char sql[128];
		snprintf(sql, sizeof sql, "INSERT INTO meta VALUES ('kind', 'cohort.reconcile/1'),"
		    " ('reconciled', %d)", cJSON_IsTrue(rec));
		if (db_exec(&r, sql) < 0)
			goto done;
		rc = cJSON_IsTrue(rec) ? 0 : 1;
	}
done:
	if (db_close(&r, rc >= 0) < 0)
		rc = -1;
	if (rc < 0) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	*report = doc;
	cJSON_Delete(r.inputs);
	cJSON_Delete(r.freeze);
	for (int k = 0; k < NBCOL; k++)
		free(r.map[k]);
	return rc;
}

/* ----------------------------------------------------------------- table */

/* 1234567 -> "1,234,567". */
static void
thousands(long long v, char out[32])
{
	char t[32];
	int n, j = 0;

	n = snprintf(t, sizeof t, "%lld", v < 0 ? -v : v);
	if (v < 0)
		out[j++] = '-';
	for (int i = 0; i < n; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			out[j++] = ',';
		out[j++] = t[i];
	}
	out[j] = '\0';
}

static double
num(const cJSON *o, const char *key)
{
	const cJSON *v = json_get(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* "1320 block complete", or "1320 complete; 1720 active": runs of blocks at
 * one anchor in one state are merged ("1320 complete x3"). */
static void
state_text(const cJSON *c, struct buf *b)
{
	const cJSON *blocks = json_get(c, "blocks"), *v, *st = json_get(c, "state");
	int n = cJSON_GetArraySize(blocks), first = 1;
	char prev[32] = "";
	int prev_done = -1, run = 0;

	if (n == 0) {
		buf_adds(b, cJSON_IsString(st) ? st->valuestring : "-");
		return;
	}
	for (v = blocks->child;; v = v->next) {
		char an[32];
		int done = 0;
		if (v != NULL) {
			const cJSON *a = json_get(v, "anchor");
			if (cJSON_IsNumber(a))
				canon_number(a->valuedouble, an);
			else
				strcpy(an, "?");
			done = cJSON_IsTrue(json_get(v, "complete"));
			if (run > 0 && strcmp(an, prev) == 0 && done == prev_done) {
				run++;
				continue;
			}
		}
		if (run > 0) {
			buf_printf(b, "%s%s%s %s", first ? "" : "; ", prev, n == 1 ? " block" : "",
			    prev_done ? "complete" : "active");
			if (run > 1)
				buf_printf(b, " x%d", run);
			first = 0;
		}
		if (v == NULL)
			break;
		strcpy(prev, an);
		prev_done = done;
		run = 1;
	}
}

int
recon_table(const cJSON *report, struct buf *out, struct err *e)
{
	static const char *const head[5] = { "condition", "clean games", "raw W-D-L",
		"recorded tokens / clean game", "state" };
	const cJSON *conds = json_get(report, "conditions"), *tot = json_get(report, "totals");
	const cJSON *c, *f;
	int rows = cJSON_GetArraySize(conds) + 2, r = 1;
	size_t w[5];
	char *cell[64][5];
	struct buf b = BUF_INIT;

	if (!cJSON_IsArray(conds) || !cJSON_IsObject(tot) || rows > 64)
		return err_set(e, ERR_INPUT, "not a cohort.reconcile/1 report");
	memset(cell, 0, sizeof cell);
	for (int j = 0; j < 5; j++)
		cell[0][j] = strdup(head[j]);
	for (c = conds->child;; c = c->next) {
		const cJSON *o = c != NULL ? c : tot;
		char t[32];
		double games = num(o, "clean_games");
		const cJSON *per = json_get(o, "tokens_per_clean_game");

		cell[r][0] = strdup(c != NULL ? json_get(o, "condition")->valuestring : "total");
		snprintf(t, sizeof t, "%.0f", games);
		cell[r][1] = strdup(t);
		snprintf(t, sizeof t, "%.0f-%.0f-%.0f", num(o, "w"), num(o, "d"), num(o, "l"));
		cell[r][2] = strdup(t);
		if (cJSON_IsNumber(per))
			thousands((long long)llround(per->valuedouble), t);
		else
			strcpy(t, "-");
		cell[r][3] = strdup(t);
		buf_reset(&b);
		if (c != NULL)
			state_text(o, &b);
		cell[r][4] = strdup(b.p ? b.p : "");
		r++;
		if (c == NULL)
			break;
	}
	for (int j = 0; j < 5; j++) {
		w[j] = 0;
		for (int i = 0; i < rows; i++)
			if (cell[i][j] != NULL && strlen(cell[i][j]) > w[j])
				w[j] = strlen(cell[i][j]);
	}
	for (int i = 0; i < rows; i++) {
		for (int j = 0; j < 5; j++) {
			const char *s = cell[i][j] ? cell[i][j] : "";
			int right = i > 0 && (j == 1 || j == 3);
			if (j == 4)
				buf_printf(out, "%s", s);
			else
				buf_printf(out, right ? "%*s  " : "%-*s  ", (int)w[j], s);
		}
		while (out->len > 0 && out->p[out->len - 1] == ' ')
			out->p[--out->len] = '\0';
		buf_addc(out, '\n');
	}
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < 5; j++)
			free(cell[i][j]);
	{
		const cJSON *rec = json_get(json_get(tot, "tokens"), "recorded");
		char tk[32], rq[32], bl[32];
		thousands((long long)num(rec, "total"), tk);
		thousands((long long)num(tot, "requests_logged"), rq);
		thousands((long long)num(tot, "billing_rows"), bl);
		buf_printf(out, "%.0f clean games, %.0f provider-error games, %s recorded tokens,"
		    " %.2f worker-hours\n", num(tot, "clean_games"), num(tot, "provider_error_games"),
		    tk, num(tot, "worker_hours"));
		buf_printf(out, "%s requests logged, %s billing rows, %.0f retries, %.0f failed"
		    " requests\n", rq, bl, num(tot, "retries"), num(tot, "failed_requests"));
	}
	{
		const cJSON *fc = json_get(tot, "findings");
		double n = 0;
		cJSON_ArrayForEach(f, fc)
			n += f->valuedouble;
		buf_printf(out, "%s: %.0f finding%s", cJSON_IsTrue(json_get(report, "reconciled"))
		    ? "reconciled" : "not reconciled", n, n == 1 ? "" : "s");
		int first = 1;
		for (size_t k = 0; k < NKIND; k++) {
			double m = num(fc, kinds[k]);
			if (m > 0) {
				buf_printf(out, "%s%s %.0f", first ? " (" : ", ", kinds[k], m);
				first = 0;
			}
		}
		buf_adds(out, first ? "\n" : ")\n");
	}
	buf_release(&b);
	return 0;
}
