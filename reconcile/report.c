/* report.c: the cohort.reconcile/1 report built from the database: sums per
 * condition and in total, and every finding. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../json/json.h"

/* Sums for one (family, condition) cell, or for the totals. */
struct sums {
	char *family;
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
sums_find(struct sums *s, int n, const unsigned char *fam, const unsigned char *cond)
{
	if (fam == NULL || cond == NULL)
		return NULL;
	for (int i = 0; i < n; i++)
		if (strcmp(s[i].family, (const char *)fam) == 0 &&
		    strcmp(s[i].condition, (const char *)cond) == 0)
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
		json_add_string(o, "family", s->family);
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
	static const char *const keys[] = { "kind", "family", "condition", "game_id", "request_id",
		"file", "line", "field", "expected", "found" };
	sqlite3_stmt *st = recon_db_prep(r, "SELECT kind, family, condition, game_id, request_id, f.name,"
	    " line, field, expected, found FROM findings LEFT JOIN files f ON f.file = findings.file"
	    " ORDER BY seq");
	cJSON *a = cJSON_AddArrayToObject(doc, "findings");
	int rc;

	if (st == NULL)
		return -1;
	*count = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		cJSON *f = cJSON_CreateObject();
		for (int i = 0; i < 10; i++)
			cJSON_AddItemToObject(f, keys[i], column_json(st, i));
		cJSON_AddItemToArray(a, f);
		(*count)++;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : recon_db_fail(r, "findings");
}

/* Each query returns rows starting with a family and a condition; fn adds
 * them to that cell's sums and the totals. */
static int
each_row(struct recon *r, const char *sql, struct sums *s, int n, struct sums *tot,
    void (*fn)(sqlite3_stmt *, struct sums *, struct sums *))
{
	sqlite3_stmt *st = recon_db_prep(r, sql);
	int rc;

	if (st == NULL)
		return -1;
	recon_db_bind_params(r, st);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		fn(st, sums_find(s, n, sqlite3_column_text(st, 0), sqlite3_column_text(st, 1)), tot);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : recon_db_fail(r, "summary");
}

static void
row_clean(sqlite3_stmt *st, struct sums *c, struct sums *t)
{
	struct sums *p[2] = { c, t };
	for (int j = 0; j < 2; j++) {
		if (p[j] == NULL)
			continue;
		p[j]->clean += sqlite3_column_int64(st, 2);
		p[j]->w += sqlite3_column_int64(st, 3);
		p[j]->d += sqlite3_column_int64(st, 4);
		p[j]->l += sqlite3_column_int64(st, 5);
		for (int i = 0; i < NCLASS; i++)
			count_add(&p[j]->rec[i], sqlite3_column_int64(st, 6 + i));
		p[j]->wall_s += sqlite3_column_double(st, 10);
		p[j]->hours += sqlite3_column_double(st, 11);
	}
}

static void
row_perr(sqlite3_stmt *st, struct sums *c, struct sums *t)
{
	struct sums *p[2] = { c, t };
	for (int j = 0; j < 2; j++) {
		if (p[j] == NULL)
			continue;
		p[j]->perr += sqlite3_column_int64(st, 2);
		for (int i = 0; i < NCLASS; i++)
			count_add(&p[j]->perr_tok[i], sqlite3_column_int64(st, 3 + i));
	}
}

static void
row_requests(sqlite3_stmt *st, struct sums *c, struct sums *t)
{
	struct sums *p[2] = { c, t };
	int clean = strcmp((const char *)sqlite3_column_text(st, 2), "clean") == 0;
	for (int j = 0; j < 2; j++) {
		if (p[j] == NULL)
			continue;
		if (!clean) {
			p[j]->perr_requests += sqlite3_column_int64(st, 3);
			continue;
		}
		p[j]->requests += sqlite3_column_int64(st, 3);
		p[j]->retries += sqlite3_column_int64(st, 4);
		p[j]->failed += sqlite3_column_int64(st, 5);
		p[j]->changed += sqlite3_column_int64(st, 6);
		for (int i = 0; i < NCLASS; i++) {
			if (sqlite3_column_type(st, 7 + i) == SQLITE_NULL)
				continue;
			count_add(&p[j]->billed[i], sqlite3_column_int64(st, 7 + i));
			p[j]->billed_set[i] = 1;
		}
	}
}

static void
row_findings(sqlite3_stmt *st, struct sums *c, struct sums *t)
{
	int k = kind_index((const char *)sqlite3_column_text(st, 2));
	if (k < 0)
		return;
	if (c != NULL)
		c->findings[k] += sqlite3_column_int64(st, 3);
	t->findings[k] += sqlite3_column_int64(st, 3);
}

static void
row_blocks(sqlite3_stmt *st, struct sums *c, struct sums *t)
{
	cJSON *b;
	long long games = sqlite3_column_int64(st, 4);
	if (c == NULL)
		return;
	if (c->blocks == NULL)
		c->blocks = cJSON_CreateArray();
	b = cJSON_CreateObject();
	json_add_number(b, "block", (double)sqlite3_column_int64(st, 2));
	if (sqlite3_column_type(st, 3) == SQLITE_NULL)
		json_add_null(b, "anchor");
	else
		json_add_number(b, "anchor", json_round(sqlite3_column_double(st, 3), 0.01));
	json_add_number(b, "games", (double)games);
	json_add_bool(b, "complete", games >= sqlite3_column_int64(st, 5));
	cJSON_AddItemToArray(c->blocks, b);
}

/* The cells of the design, in order, each with its sums zeroed: into
 * *s (*n of them); -1 when the query cannot be made. */
static int
read_cells(struct recon *r, struct sums **sp, int *np)
{
	struct sums *s = NULL;
	sqlite3_stmt *st;
	int n = 0;

	st = recon_db_prep(r, "SELECT family, condition, state FROM cells ORDER BY ord");
	if (st == NULL)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct sums *t = realloc(s, (size_t)(n + 1) * sizeof *s);
		if (t == NULL)
			break;
		s = t;
		memset(&s[n], 0, sizeof s[n]);
		s[n].family = strdup((const char *)sqlite3_column_text(st, 0));
		s[n].condition = strdup((const char *)sqlite3_column_text(st, 1));
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			s[n].state = strdup((const char *)sqlite3_column_text(st, 2));
		n++;
	}
	sqlite3_finalize(st);
	*sp = s;
	*np = n;
	return 0;
}

/* Every cell's sums and the totals from the tables: clean games,
 * provider errors, requests, findings and blocks; their tokens checked
 * to fit. */
static int
gather_sums(struct recon *r, struct sums *s, int n, struct sums *tot)
{
	char bg[32];

	snprintf(bg, sizeof bg, "%lld", r->block_games);
	if (each_row(r, "SELECT f.family, f.condition, count(*),"
	        " sum(COALESCE(f.result, g.result) = 'win'), sum(COALESCE(f.result, g.result) = 'draw'),"
	        " sum(COALESCE(f.result, g.result) = 'loss'), sum(g.input), sum(g.output),"
	        " sum(g.reasoning), sum(g.cached), sum(g.wall_s), sum(g.worker_hours)"
	        " FROM freeze_games f LEFT JOIN games g ON g.game_id = f.game_id GROUP BY 1, 2",
	        s, n, tot, row_clean) < 0 ||
	    each_row(r, "SELECT c.family, c.condition, count(*), sum(g.input), sum(g.output),"
	        " sum(g.reasoning), sum(g.cached) FROM game_scope c"
	        " JOIN games g ON g.game_id = c.game_id WHERE c.class = 'provider_error' GROUP BY 1, 2",
	        s, n, tot, row_perr) < 0 ||
	    each_row(r, "SELECT c.family, c.condition, c.class, sum(s.n), sum(s.retries), sum(s.failed),"
	        " sum(s.model_changes), sum(s.b_input), sum(s.b_output), sum(s.b_reasoning),"
	        " sum(s.b_cached) FROM game_scope c JOIN game_requests s ON s.game_id = c.game_id"
	        " WHERE c.class IN ('clean', 'provider_error') GROUP BY 1, 2, 3", s, n, tot,
	        row_requests) < 0 ||
	    each_row(r, "SELECT family, condition, kind, count(*) FROM findings GROUP BY 1, 2, 3", s,
	        n, tot,
	        row_findings) < 0)
		return -1;
	{
		char sql[512];
		snprintf(sql, sizeof sql, "SELECT family, condition, block, max(anchor), sum(games),"
		    " %s FROM freeze_blocks GROUP BY 1, 2, 3 ORDER BY 1, 2, 3", bg);
		if (each_row(r, sql, s, n, tot, row_blocks) < 0)
			return -1;
	}
	for (int i = 0; i < n; i++) {
		char what[160];
		snprintf(what, sizeof what, "family %.60s, condition %.60s", s[i].family,
		    s[i].condition);
		if (tokens_fit(&s[i], what, r->e) < 0)
			return -1;
	}
	if (tokens_fit(tot, "totals", r->e) < 0)
		return -1;
	return 0;
}

cJSON *
recon_report_build(struct recon *r)
{
	struct sums *s = NULL, tot;
	cJSON *doc = NULL, *conds, *to;
	int n = 0, rc = -1;
	long long nfind = 0, nreq, nbill;

	memset(&tot, 0, sizeof tot);
	if (read_cells(r, &s, &n) < 0)
		return NULL;
	if (gather_sums(r, s, n, &tot) < 0)
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
	nreq = recon_db_count(r, "SELECT count(*) FROM requests");
	nbill = recon_db_count(r, "SELECT count(*) FROM billing");
	json_add_number(to, "requests_logged", (double)nreq);
	json_add_number(to, "billing_rows", (double)nbill);
	cJSON_AddItemToObject(doc, "totals", to);
	if (report_findings(r, doc, &nfind) < 0)
		goto done;
	json_add_bool(doc, "reconciled", nfind == 0);
	rc = 0;
done:
	for (int i = 0; i < n; i++) {
		free(s[i].family);
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
