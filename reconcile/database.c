/* database.c: the SQLite database of a reconcile: its schema, statements run
 * with the cut and the tolerance bound, the input files registered. */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/io.h"
#include "../json/json.h"

int
recon_db_fail(struct recon *r, const char *what)
{
	return err_set(r->e, ERR_IO, "database: %s: %s", what, sqlite3_errmsg(r->db));
}

int
recon_db_exec(struct recon *r, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(r->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		err_set(r->e, ERR_IO, "database: %s", msg ? msg : sqlite3_errmsg(r->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

sqlite3_stmt *
recon_db_prep(struct recon *r, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK) {
		recon_db_fail(r, "prepare");
		return NULL;
	}
	return st;
}

/* Bind the cut and the tolerance to any statement that names them. */
void
recon_db_bind_params(struct recon *r, sqlite3_stmt *st)
{
	int i = sqlite3_bind_parameter_index(st, ":as_of");
	if (i > 0)
		sqlite3_bind_int64(st, i, r->as_of);
	i = sqlite3_bind_parameter_index(st, ":tol");
	if (i > 0)
		sqlite3_bind_double(st, i, r->o->tolerance);
}

/* Run a statement with the standard parameters to its end. */
int
recon_db_run(struct recon *r, const char *sql)
{
	sqlite3_stmt *st = recon_db_prep(r, sql);
	int rc;

	if (st == NULL)
		return -1;
	recon_db_bind_params(r, st);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return recon_db_fail(r, "step");
	return 0;
}

void
recon_db_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s == NULL)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
}

void
recon_db_bind_count(sqlite3_stmt *st, int i, long long v)
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
"CREATE TABLE spec_families(family TEXT PRIMARY KEY, ord INTEGER NOT NULL);\n"
"CREATE TABLE spec_conditions(condition TEXT PRIMARY KEY, ord INTEGER NOT NULL);\n"
"CREATE TABLE cells(family TEXT NOT NULL, condition TEXT NOT NULL, ord INTEGER NOT NULL,\n"
"  state TEXT, PRIMARY KEY(family, condition));\n"
"CREATE TABLE freeze_blocks(family TEXT NOT NULL, condition TEXT NOT NULL,\n"
"  block INTEGER NOT NULL, anchor REAL, color TEXT, games INTEGER, w INTEGER, d INTEGER,\n"
"  l INTEGER);\n"
"CREATE TABLE freeze_games(game_id TEXT PRIMARY KEY, id TEXT NOT NULL, family TEXT NOT NULL,\n"
"  condition TEXT NOT NULL, block INTEGER, anchor REAL, color TEXT, result TEXT);\n"
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
"CREATE TABLE findings(seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, family TEXT,\n"
"  condition TEXT,\n"
"  game_id TEXT, request_id TEXT, file INTEGER, line INTEGER, field TEXT, expected, found);\n";

int
recon_db_open(struct recon *r)
{
	const char *path = "";
	int rc;

	if (r->o->db != NULL) {
		/* kept open, so the file's lock lasts as long as this run */
		if ((r->dblock = io_temp_open(r->o->db, &r->dbtmp, r->e)) < 0)
			return -1;
		path = r->dbtmp;
	}
	/* One thread uses the connection: no mutex on every call. */
	rc = sqlite3_open_v2(path, &r->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	    SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		return err_set(r->e, ERR_IO, "database: cannot open: %s", sqlite3_errstr(rc));
	/* The file is private to this run and renamed into place only when
	 * complete, so no journal is needed. */
	if (recon_db_exec(r, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
	    " PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-524288;"
	    " PRAGMA temp_store=FILE; PRAGMA threads=2;") < 0)
		return -1;
	return recon_db_exec(r, schema);
}

/* Close the database; keep it (rename into place) when keep is set. */
int
recon_db_close(struct recon *r, int keep)
{
	int rc = 0;

	if (r->db != NULL && sqlite3_close(r->db) != SQLITE_OK && keep)
		rc = err_set(r->e, ERR_IO, "database: cannot close");
	r->db = NULL;
	if (r->dbtmp != NULL) {
		if (keep && rc == 0 && rename(r->dbtmp, r->o->db) != 0)
			rc = err_set(r->e, ERR_IO, "%s: cannot rename into place: %s", r->o->db,
			    strerror(errno));
		else if (keep && rc == 0)
			rc = io_sync_dir(r->o->db, r->e);
		if (!keep || rc != 0)
			unlink(r->dbtmp);
		close(r->dblock);
		free(r->dbtmp);
		r->dbtmp = NULL;
	}
	return rc;
}

/* Register an input file: its row in files, its entry in the report. */
int
recon_file_add(struct recon *r, const char *role, const char *path, const uint8_t d[HASH_LEN],
    const char *id, cJSON *list)
{
	char hid[HASH_ID_LEN + 1];
	sqlite3_stmt *st;
	cJSON *o;

	if (d != NULL)
		hash_id_format(d, hid);
	st = recon_db_prep(r,
	    "INSERT INTO files(file, role, name, path, sha256) VALUES (?,?,?,?,?)");
	if (st == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, r->nfile);
	recon_db_bind_text(st, 2, role);
	recon_db_bind_text(st, 3, recon_base_name(path));
	recon_db_bind_text(st, 4, path);
	recon_db_bind_text(st, 5, d != NULL ? hid : id);
	if (sqlite3_step(st) != SQLITE_DONE) {
		sqlite3_finalize(st);
		return recon_db_fail(r, "files");
	}
	sqlite3_finalize(st);
	o = cJSON_CreateObject();
	if (o == NULL || json_add_string(o, "name", recon_base_name(path)) == NULL ||
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
cJSON *
recon_inputs_list(struct recon *r, const char *key)
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

long long
recon_db_count(struct recon *r, const char *sql)
{
	sqlite3_stmt *st = recon_db_prep(r, sql);
	long long n = -1;

	if (st != NULL && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}
