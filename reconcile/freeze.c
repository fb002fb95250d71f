/* freeze.c: the freeze into the database: its spec's families and
 * conditions, its games, exclusions, blocks and ladder states. */
#include "internal.h"

#include <math.h>
#include <string.h>

#include "../common/io.h"
#include "../json/json.h"

static int
freeze_strings(struct recon *r, const cJSON *spec, const char *key, const char *sql)
{
	const cJSON *a, *v;
	sqlite3_stmt *st;
	int i = 0;

	if (json_get_array(spec, key, 1, &a, r->e) < 0)
		return err_prefix(r->e, "\"spec\"");
	st = recon_db_prep(r, sql);
	if (st == NULL)
		return -1;
	cJSON_ArrayForEach(v, a) {
		if (!cJSON_IsString(v)) {
			sqlite3_finalize(st);
			return err_set(r->e, ERR_INPUT, "\"spec.%s[%d]\": expected a string", key, i);
		}
		sqlite3_reset(st);
		recon_db_bind_text(st, 1, v->valuestring);
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

	st = recon_db_prep(r, "INSERT INTO freeze_games(game_id, id, family, condition, block,"
	    " anchor, color, result) VALUES (?,?,?,?,?,?,?,?)");
	if (st == NULL)
		return -1;
	cJSON_ArrayForEach(g, games) {
		const char *gid, *id, *fam, *cond, *color = NULL, *result = NULL;
		long long block = -1;
		double anchor = NAN;
		uint8_t d[HASH_LEN];

		if (recon_field_text(g, "game_id", 1, &gid, r->e) < 0 ||
		    recon_field_text(g, "id", 1, &id, r->e) < 0 ||
		    recon_field_text(g, "family", 1, &fam, r->e) < 0 ||
		    recon_field_text(g, "condition", 1, &cond, r->e) < 0 ||
		    json_get_int(g, "block", 0, 1, 1000000, &block, r->e) < 0 ||
		    json_get_number(g, "anchor", 0, &anchor, r->e) < 0 ||
		    recon_field_text(g, "color", 0, &color, r->e) < 0 ||
		    recon_field_enum(g, "result", 0, results, "win, draw or loss", &result, r->e) < 0) {
			rc = -1;
		} else if (hash_id_parse(id, d) < 0) {
			rc = err_set(r->e, ERR_INPUT, "\"id\": expected sha256:<64 hex digits>");
		}
		if (rc < 0) {
			err_prefix(r->e, "games[%d]", i);
			break;
		}
		sqlite3_reset(st);
		recon_db_bind_text(st, 1, gid);
		recon_db_bind_text(st, 2, id);
		recon_db_bind_text(st, 3, fam);
		recon_db_bind_text(st, 4, cond);
		recon_db_bind_count(st, 5, block);
		if (isnan(anchor))
			sqlite3_bind_null(st, 6);
		else
			sqlite3_bind_double(st, 6, anchor);
		recon_db_bind_text(st, 7, color);
		recon_db_bind_text(st, 8, result);
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
	sqlite3_stmt *st = recon_db_prep(r, sql);
	const cJSON *v;
	int i = 0, rc = 0;

	if (st == NULL)
		return -1;
	cJSON_ArrayForEach(v, arr) {
		const char *t[4] = { NULL, NULL, NULL, NULL };
		for (int k = 0; k < n && rc == 0; k++)
			if (recon_field_text(v, keys[k], required[k], &t[k], r->e) < 0)
				rc = err_prefix(r->e, "%s[%d]", label, i);
		if (rc < 0)
			break;
		sqlite3_reset(st);
		for (int k = 0; k < n; k++)
			recon_db_bind_text(st, k + 1, t[k]);
		if (sqlite3_step(st) != SQLITE_DONE) {
			rc = recon_db_fail(r, table);
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
	st = recon_db_prep(r, "INSERT INTO freeze_blocks(family, condition, block, anchor, color,"
	    " games, w, d, l) VALUES (?,?,?,?,?,?,?,?,?)");
	if (st == NULL)
		return -1;
	cJSON_ArrayForEach(v, blocks) {
		const char *fam, *cond, *color = NULL;
		long long block, games = -1, w = -1, d = -1, l = -1;
		double anchor = NAN;
		if (recon_field_text(v, "family", 1, &fam, r->e) < 0 ||
		    recon_field_text(v, "condition", 1, &cond, r->e) < 0 ||
		    json_get_int(v, "block", 1, 1, 1000000, &block, r->e) < 0 ||
		    json_get_number(v, "anchor", 0, &anchor, r->e) < 0 ||
		    recon_field_text(v, "color", 0, &color, r->e) < 0 ||
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
		recon_db_bind_text(st, 1, fam);
		recon_db_bind_text(st, 2, cond);
		sqlite3_bind_int64(st, 3, block);
		if (isnan(anchor))
			sqlite3_bind_null(st, 4);
		else
			sqlite3_bind_double(st, 4, anchor);
		recon_db_bind_text(st, 5, color);
		recon_db_bind_count(st, 6, games);
		recon_db_bind_count(st, 7, w);
		recon_db_bind_count(st, 8, d);
		recon_db_bind_count(st, 9, l);
		if (sqlite3_step(st) != SQLITE_DONE) {
			rc = recon_db_fail(r, "freeze_blocks");
			break;
		}
		i++;
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return -1;
	return insert_texts(r, conds, "conditions",
	    "UPDATE cells SET state = ?3 WHERE family = ?1 AND condition = ?2", "cells",
	    (const char *const[]){ "family", "condition", "state" }, (const int[]){ 1, 1, 0 }, 3);
}

/* A family or condition used by the freeze that its spec does not name. */
static int
freeze_check_conditions(struct recon *r)
{
	static const char *const what[2] = { "family", "condition" };
	sqlite3_stmt *st = recon_db_prep(r, "SELECT 0, family FROM (SELECT family FROM"
	    " freeze_games UNION SELECT family FROM freeze_blocks) WHERE family NOT IN"
	    " (SELECT family FROM spec_families) UNION ALL"
	    " SELECT 1, condition FROM (SELECT condition FROM"
	    " freeze_games UNION SELECT condition FROM freeze_blocks) WHERE condition NOT IN"
	    " (SELECT condition FROM spec_conditions) ORDER BY 1, 2 LIMIT 1");
	int rc = 0;

	if (st == NULL)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		int k = sqlite3_column_int(st, 0) != 0;
		rc = err_set(r->e, ERR_INPUT, "%s \"%s\" is not in the spec's %s", what[k],
		    (const char *)sqlite3_column_text(st, 1), k ? "conditions" : "families");
	}
	sqlite3_finalize(st);
	return rc;
}

int
recon_freeze_load(struct recon *r)
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
	    recon_file_add(r, "freeze", path, NULL, id, NULL) < 0)
		goto bad;
	/* Families are never pooled: every sum is of one (family,
	 * condition) cell, in the freeze's order (family, then condition). */
	if (freeze_strings(r, spec, "families",
	        "INSERT INTO spec_families(family, ord) VALUES (?1, ?2)") < 0 ||
	    freeze_strings(r, spec, "conditions",
	        "INSERT INTO spec_conditions(condition, ord) VALUES (?1, ?2)") < 0 ||
	    recon_db_exec(r, "INSERT INTO cells(family, condition, ord) SELECT f.family,"
	        " c.condition, f.ord * (SELECT count(*) FROM spec_conditions) + c.ord"
	        " FROM spec_families f, spec_conditions c ORDER BY 3") < 0 ||
	    freeze_games(r, games) < 0 || freeze_excluded(r, ex) < 0 || freeze_ladder(r) < 0 ||
	    freeze_check_conditions(r) < 0)
		goto bad;
	return 0;
bad:
	return err_prefix(r->e, "%s", io_name(path));
}
