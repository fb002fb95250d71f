/* table.c: the efficiency table of a report, for people. */
#define _GNU_SOURCE /* asprintf */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../json/json.h"

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

/* A cell's label: its condition, or "family/condition" when the report's
 * cells belong to more than one family (as in fit's tables). */
static char *
cell_label(const cJSON *c, const cJSON *conds)
{
	const cJSON *fam = json_get(c, "family"), *cond = json_get(c, "condition"), *x;
	int several = 0;
	char *out;

	cJSON_ArrayForEach(x, conds) {
		const cJSON *f = json_get(x, "family");
		several |= cJSON_IsString(f) && cJSON_IsString(fam) &&
		    strcmp(f->valuestring, fam->valuestring) != 0;
	}
	if (asprintf(&out, "%s%s%s", several ? fam->valuestring : "", several ? "/" : "",
	        cJSON_IsString(cond) ? cond->valuestring : "?") < 0)
		return NULL;
	return out;
}

/* A finding's value for the table: text as it is, a number in its
 * shortest form, "absent" for null. */
static void
value_text(const cJSON *v, struct buf *b)
{
	char t[32];

	if (cJSON_IsString(v))
		buf_add_shown(b, v->valuestring);
	else if (cJSON_IsNumber(v)) {
		canon_number(v->valuedouble, t);
		buf_adds(b, t);
	} else
		buf_adds(b, "absent");
}

/* "1 retry", "2 retries": n and the noun that fits it. */
static const char *
noun(double n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* Findings listed per kind, at most this many of each; the rest counted. */
#define LIST_PER_KIND 20

/* Each finding on a line of its own: kind, where it counts, the game and
 * request, the record (file:line), the field, what was expected and what
 * was found. */
static void
list_findings(const cJSON *report, struct buf *out)
{
	const cJSON *conds = json_get(report, "conditions"), *f;
	long shown[NKIND] = { 0 }, more[NKIND] = { 0 };

	cJSON_ArrayForEach(f, json_get(report, "findings")) {
		const cJSON *k = json_get(f, "kind"), *file = json_get(f, "file");
		const cJSON *line = json_get(f, "line"), *field = json_get(f, "field");
		const cJSON *pairs[2][2] = { { json_get(f, "game_id"), NULL },
			{ json_get(f, "request_id"), NULL } };
		size_t ki = 0;
		while (ki < NKIND && (!cJSON_IsString(k) || strcmp(kinds[ki], k->valuestring) != 0))
			ki++;
		if (ki < NKIND && shown[ki] >= LIST_PER_KIND) {
			more[ki]++;
			continue;
		}
		if (ki < NKIND)
			shown[ki]++;
		buf_printf(out, "  %s", cJSON_IsString(k) ? k->valuestring : "?");
		if (cJSON_IsString(json_get(f, "condition"))) {
			char *label = cell_label(f, conds);
			buf_adds(out, " in ");
			buf_add_shown(out, label ? label : "?");
			free(label);
		}
		for (int j = 0; j < 2; j++)
			if (cJSON_IsString(pairs[j][0])) {
				buf_adds(out, j == 0 ? ", game " : ", request ");
				buf_add_shown(out, pairs[j][0]->valuestring);
			}
		if (cJSON_IsString(file)) {
			buf_adds(out, ", ");
			buf_add_shown(out, file->valuestring);
			if (cJSON_IsNumber(line))
				buf_printf(out, ":%.0f", line->valuedouble);
		}
		if (cJSON_IsString(field)) {
			buf_adds(out, ": ");
			buf_add_shown(out, field->valuestring);
		}
		buf_adds(out, " expected ");
		value_text(json_get(f, "expected"), out);
		buf_adds(out, ", found ");
		value_text(json_get(f, "found"), out);
		buf_addc(out, '\n');
	}
	for (size_t k = 0; k < NKIND; k++)
		if (more[k] > 0)
			buf_printf(out, "  and %ld more %s\n", more[k], kinds[k]);
}

/* One row of cells: a condition's (o, c not NULL) or the totals'. */
static void
row_cells(const cJSON *o, const cJSON *c, const cJSON *conds, char *cell[5], struct buf *b)
{
	char t[32];
	double games = num(o, "clean_games");
	const cJSON *per = json_get(o, "tokens_per_clean_game");

	cell[0] = c != NULL ? cell_label(o, conds) : strdup("total");
	snprintf(t, sizeof t, "%.0f", games);
	cell[1] = strdup(t);
	snprintf(t, sizeof t, "%.0f-%.0f-%.0f", num(o, "w"), num(o, "d"), num(o, "l"));
	cell[2] = strdup(t);
	if (cJSON_IsNumber(per))
		thousands((long long)llround(per->valuedouble), t);
	else
		strcpy(t, "-");
	cell[3] = strdup(t);
	buf_reset(b);
	if (c != NULL)
		state_text(o, b);
	cell[4] = strdup(b->p ? b->p : "");
}

/* The rows of cells in columns as wide as their widest cell, counts
 * right-aligned, the last column and trailing blanks not padded. */
static void
cells_print(char *(*cell)[5], int rows, struct buf *out)
{
	size_t w[5];

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
}

/* The two lines of totals under the table: games, tokens and hours;
 * requests, billing rows, retries and failures. */
static void
totals_lines(const cJSON *tot, struct buf *out)
{
	const cJSON *rec = json_get(json_get(tot, "tokens"), "recorded");
	char tk[32], rq[32], bl[32];

	thousands((long long)num(rec, "total"), tk);
	thousands((long long)num(tot, "requests_logged"), rq);
	thousands((long long)num(tot, "billing_rows"), bl);
	double cg = num(tot, "clean_games"), pg = num(tot, "provider_error_games");
	double rt = num(tot, "retries"), fr = num(tot, "failed_requests");
	buf_printf(out, "%.0f clean %s, %.0f provider-error %s, %s recorded tokens,"
	    " %.2f worker-hours\n", cg, noun(cg, "game", "games"), pg, noun(pg, "game", "games"),
	    tk, num(tot, "worker_hours"));
	buf_printf(out, "%s %s logged, %s billing %s, %.0f %s, %.0f failed %s\n", rq,
	    noun(num(tot, "requests_logged"), "request", "requests"), bl,
	    noun(num(tot, "billing_rows"), "row", "rows"), rt, noun(rt, "retry", "retries"), fr,
	    noun(fr, "request", "requests"));
}

/* The verdict line: reconciled or not, and the findings by kind. */
static void
verdict_line(const cJSON *report, const cJSON *tot, struct buf *out)
{
	const cJSON *fc = json_get(tot, "findings"), *f;
	double n = 0;
	int first = 1;

	cJSON_ArrayForEach(f, fc)
		n += f->valuedouble;
	buf_printf(out, "%s: %.0f finding%s", cJSON_IsTrue(json_get(report, "reconciled"))
	    ? "reconciled" : "not reconciled", n, n == 1 ? "" : "s");
	for (size_t k = 0; k < NKIND; k++) {
		double m = num(fc, kinds[k]);
		if (m > 0) {
			buf_printf(out, "%s%s %.0f", first ? " (" : ", ", kinds[k], m);
			first = 0;
		}
	}
	buf_adds(out, first ? "\n" : ")\n");
}

int
recon_table(const cJSON *report, struct buf *out, struct err *e)
{
	static const char *const head[5] = { "condition", "clean games", "raw W-D-L",
		"recorded tokens / clean game", "state" };
	const cJSON *conds = json_get(report, "conditions"), *tot = json_get(report, "totals");
	const cJSON *c;
	int rows = cJSON_GetArraySize(conds) + 2, r = 1;
	char *(*cell)[5];
	struct buf b = BUF_INIT;

	if (!cJSON_IsArray(conds) || !cJSON_IsObject(tot))
		return err_set(e, ERR_INPUT, "not a cohort.reconcile/1 report");
	if ((cell = calloc((size_t)rows, sizeof *cell)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (int j = 0; j < 5; j++)
		cell[0][j] = strdup(head[j]);
	for (c = conds->child;; c = c->next) {
		row_cells(c != NULL ? c : tot, c, conds, cell[r++], &b);
		if (c == NULL)
			break;
	}
	cells_print(cell, rows, out);
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < 5; j++)
			free(cell[i][j]);
	free(cell);
	totals_lines(tot, out);
	verdict_line(report, tot, out);
	list_findings(report, out);
	buf_release(&b);
	return 0;
}
