/* freeze.c: validating game records, summarizing them, and deriving the
 * cohort.freeze/1 manifest: games, exclusions, blocks, conditions (with the
 * ladder's state) and totals. */
#define _GNU_SOURCE /* memmem */
#include "freeze.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"
#include "../common/io.h"
#include "../common/mem.h"
#include "../common/ts.h"
#include "../protocol/ladder.h"
#include "../store/cas.h"
#include "../json/json.h"
#include "../protocol/ledger.h"
#include "../json/rec.h"

enum { R_WIN, R_DRAW, R_LOSS, R_NONE };
enum { X_NONE, X_FAMILY, X_CONDITION, X_AFTER_CUT, X_LIVE, X_PROVIDER_ERROR, X_ABORTED };
/* Games are reached through pointers in game_id order, not where they lie:
 * the one this far ahead is asked into the cache meanwhile (far enough for
 * the quickest of those loops, a few nanoseconds a game). */
#define AHEAD 32

static const char *const reason_names[] = { "", "family", "condition", "after_cut", "live",
	"provider_error", "aborted" };
static const char *const result_names[] = { "win", "draw", "loss" };
static const char *const token_names[] = { "input", "output", "reasoning", "cached" };
/* The largest token count, one record's or a sum: 2^53 - 1, the largest
 * whole number every JSON reader holds exactly (docs/design.md). */
#define TOKENS_MAX 9007199254740991LL


/* Where a record came from, for messages: its ledger location, or the
 * text a caller gave. */
static const char *
where_of(const struct freeze_item *g, char *buf, size_t n)
{
	struct ledger_loc loc = { g->file, g->line, g->sqlite };

	if (g->where_own != NULL)
		return g->where_own;
	ledger_loc_format(&loc, buf, n);
	return buf;
}

struct freeze_acc {
	const cJSON *spec;
	struct ts as_of;
	const char **families;
	size_t nfamilies;
	const char **conds;
	size_t nconds;
	size_t *famlen, *condlen; /* their lengths: a million records compare them */
	struct ladder_policy policy;
	struct freeze_item *games;
	size_t n, cap;
	struct buf canon;
	/* the flat reader's field lists: record, model, anchor, tokens */
	struct rec_keys keys[4];
};

static int flat_keys_init(struct rec_keys keys[4]);

int
freeze_spec_check(const cJSON *spec, struct err *e)
{
	const char *kind, *name, *as_of, *color;
	const cJSON *arr, *it, *lad, *proto;
	struct ladder_policy p;
	double pen;
	struct ts t;

	if (!cJSON_IsObject(spec))
		return err_set(e, ERR_INPUT, "expected a cohort.spec/1 object");
	if (json_get_string(spec, "kind", 1, &kind, e) < 0)
		return -1;
	if (strcmp(kind, "cohort.spec/1") != 0)
		return err_set(e, ERR_INPUT, "\"kind\": expected cohort.spec/1, found %.60s", kind);
	if (json_get_string(spec, "name", 1, &name, e) < 0 ||
	    json_get_string(spec, "as_of", 1, &as_of, e) < 0)
		return -1;
	if (ts_parse(as_of, &t) < 0)
		return err_set(e, ERR_INPUT, "\"as_of\": expected an RFC 3339 time");
	for (int k = 0; k < 2; k++) {
		const char *key = k ? "conditions" : "families";
		if (json_get_array(spec, key, 1, &arr, e) < 0)
			return -1;
		if (cJSON_GetArraySize(arr) == 0)
			return err_set(e, ERR_INPUT, "\"%s\": expected at least one", key);
		cJSON_ArrayForEach(it, arr) {
			if (!cJSON_IsString(it) || it->valuestring[0] == '\0')
				return err_set(e, ERR_INPUT, "\"%s\": expected non-empty strings", key);
			for (const cJSON *o = arr->child; o != it; o = o->next)
				if (strcmp(o->valuestring, it->valuestring) == 0)
					return err_set(e, ERR_INPUT, "\"%s\": \"%.60s\" listed twice", key,
					    it->valuestring);
		}
	}
	if (json_get_string(spec, "color", 0, &color, e) < 0)
		return -1;
	if (json_get(spec, "color") && strcmp(color, "white") != 0 && strcmp(color, "black") != 0)
		return err_set(e, ERR_INPUT, "\"color\": expected white or black");
	if (json_get_number(spec, "black_penalty", 0, &pen, e) < 0)
		return -1;
	if (json_get_object(spec, "ladder", 1, &lad, e) < 0 || ladder_policy_read(lad, &p, e) < 0)
		return -1;
	if (json_get_object(spec, "protocol", 0, &proto, e) < 0)
		return -1;
	return 0;
}

struct freeze_acc *
freeze_acc_new(const cJSON *spec, struct err *e)
{
	struct freeze_acc *a;
	const cJSON *arr, *it;
	const char *as_of;

	if (freeze_spec_check(spec, e) < 0)
		return NULL;
	a = calloc(1, sizeof *a);
	if (a == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	a->spec = spec;
	if (flat_keys_init(a->keys) < 0) {
		free(a);
		err_set(e, ERR_IO, "internal error: field lists out of order");
		return NULL;
	}
	json_get_string(spec, "as_of", 1, &as_of, e);
	ts_parse(as_of, &a->as_of);
	ladder_policy_read(json_get(spec, "ladder"), &a->policy, e);
	arr = json_get(spec, "families");
	a->nfamilies = (size_t)cJSON_GetArraySize(arr);
	a->families = calloc(a->nfamilies, sizeof *a->families);
	arr = json_get(spec, "conditions");
	a->nconds = (size_t)cJSON_GetArraySize(arr);
	a->conds = calloc(a->nconds, sizeof *a->conds);
	a->famlen = calloc(a->nfamilies + 1, sizeof *a->famlen);
	a->condlen = calloc(a->nconds + 1, sizeof *a->condlen);
	if (a->families == NULL || a->conds == NULL || a->famlen == NULL || a->condlen == NULL) {
		freeze_acc_free(a);
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	size_t i = 0;
	cJSON_ArrayForEach(it, json_get(spec, "families")) {
		a->famlen[i] = strlen(it->valuestring);
		a->families[i++] = it->valuestring;
	}
	i = 0;
	cJSON_ArrayForEach(it, arr) {
		a->condlen[i] = strlen(it->valuestring);
		a->conds[i++] = it->valuestring;
	}
	return a;
}

void
freeze_acc_free(struct freeze_acc *a)
{
	if (a == NULL)
		return;
	/* a million games: only those that own something call free() */
	for (size_t i = 0; i < a->n; i++) {
		if (!a->games[i].id_lent && a->games[i].game_id != NULL)
			free(a->games[i].game_id);
		if (a->games[i].where_own != NULL)
			free(a->games[i].where_own);
	}
	free(a->games);
	free(a->families);
	free(a->conds);
	free(a->famlen);
	free(a->condlen);
	buf_release(&a->canon);
	free(a);
}

static int
word(const char *s, const char *const *words, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(s, words[i]) == 0)
			return i;
	return -1;
}

static int
get_time(const cJSON *rec, const char *key, int required, struct ts *t, int *have, struct err *e)
{
	const char *s;
	int rc = json_get_string(rec, key, required, &s, e);

	*have = 0;
	if (rc != 0)
		return rc;
	if (ts_parse(s, t) < 0)
		return err_set(e, ERR_INPUT, "\"%s\": expected an RFC 3339 time, found \"%.40s\"", key, s);
	*have = 1;
	return 0;
}

/* Whether p[0..n) (no NUL inside) is the string w. */
static inline int
same_word(const char *p, size_t n, const char *w)
{
	size_t k = 0;

	while (k < n && w[k] != '\0' && w[k] == p[k])
		k++;
	return k == n && w[n] == '\0';
}

/* The record's condition and, when it is left out, why: both readers'
 * last step.  cond and family are ncond and nfam bytes (no NUL inside);
 * st is the status (0 terminal, 1 live, 2 provider_error, 3 aborted). */
static void
classify(const struct freeze_acc *a, const char *cond, size_t ncond, const char *family,
    size_t nfam, int st, struct ts started, struct ts ended, struct freeze_item *g)
{
	int fam = 0;

	/* lengths first: most words differ in theirs (the last of equal
	 * conditions, were there any, as before) */
	g->cond = -1;
	for (size_t i = a->nconds; i-- > 0;)
		if (a->condlen[i] == ncond && memcmp(cond, a->conds[i], ncond) == 0) {
			g->cond = (int)i;
			break;
		}
	for (size_t i = 0; i < a->nfamilies && !fam; i++)
		fam = a->famlen[i] == nfam && memcmp(family, a->families[i], nfam) == 0;
	g->reason = X_NONE;
	if (!fam)
		g->reason = X_FAMILY;
	else if (g->cond < 0)
		g->reason = X_CONDITION;
	else if (ts_cmp(started, a->as_of) > 0 || (st == 0 && ts_cmp(ended, a->as_of) > 0))
		g->reason = X_AFTER_CUT;
	else if (st != 0)
		g->reason = st == 1 ? X_LIVE : st == 2 ? X_PROVIDER_ERROR : X_ABORTED;
}

/* Validate a record against the ledger contract and fill g (without game_id
 * and where).  Messages are `"field": what`. */
static int
summarize(const struct freeze_acc *a, const cJSON *rec, struct freeze_item *g, struct err *e)
{
	static const char *const statuses[] = { "terminal", "live", "provider_error", "aborted" };
	static const char *const colors[] = { "white", "black" };
	const char *family, *cond, *color, *status, *result, *s;
	const cJSON *anchor, *model, *tokens, *reqs, *it;
	long long block, plies;
	struct ts started = { 0 }, ended = { 0 };
	int have_start, have_end, st;
	double x;

	if (json_get_string(rec, "family", 1, &family, e) < 0 ||
	    json_get_object(rec, "model", 1, &model, e) < 0 ||
	    json_get_string(rec, "condition", 1, &cond, e) < 0 ||
	    json_get_string(rec, "color", 1, &color, e) < 0 ||
	    json_get_object(rec, "anchor", 1, &anchor, e) < 0 ||
	    json_get_string(rec, "opening", 1, &s, e) < 0 ||
	    json_get_int(rec, "block", 1, 1, 1000000000, &block, e) < 0 ||
	    json_get_string(rec, "status", 1, &status, e) < 0)
		return -1;
	if (json_get_string(model, "requested", 1, &s, e) < 0 ||
	    json_get_string(model, "returned", 1, &s, e) < 0)
		return err_prefix(e, "\"model\"");
	if ((g->color = word(color, colors, 2)) < 0)
		return err_set(e, ERR_INPUT, "\"color\": expected white or black, found \"%.40s\"", color);
	if ((st = word(status, statuses, 4)) < 0)
		return err_set(e, ERR_INPUT, "\"status\": expected terminal, live, provider_error or "
		    "aborted, found \"%.40s\"", status);
	if (json_get_string(anchor, "engine", 1, &s, e) < 0 ||
	    json_get_number(anchor, "elo", 1, &g->anchor, e) < 0)
		return err_prefix(e, "\"anchor\"");
	if (fabs(g->anchor) > 1e6)
		return err_set(e, ERR_INPUT, "\"anchor\": \"elo\": out of range");
	if (json_get(anchor, "time_s") == NULL && json_get(anchor, "nodes") == NULL)
		return err_set(e, ERR_INPUT, "\"anchor\": expected \"time_s\" or \"nodes\"");
	if ((json_get(anchor, "time_s") && json_get_number(anchor, "time_s", 1, &x, e) < 0) ||
	    (json_get(anchor, "nodes") && json_get_number(anchor, "nodes", 1, &x, e) < 0) ||
	    json_get_string(anchor, "limiter", 0, &s, e) < 0 ||
	    json_get_string(anchor, "binary_sha256", 0, &s, e) < 0)
		return err_prefix(e, "\"anchor\"");
	g->result = R_NONE;
	if (st == 0 || json_get(rec, "result") != NULL) {
		if (json_get_string(rec, "result", st == 0, &result, e) < 0)
			return -1;
		if ((g->result = word(result, result_names, 3)) < 0)
			return err_set(e, ERR_INPUT, "\"result\": expected win, draw or loss, found "
			    "\"%.40s\"", result);
	}
	if (json_get_string(rec, "termination", st == 0, &s, e) < 0 ||
	    json_get_int(rec, "plies", st == 0, 0, 100000, &plies, e) < 0)
		return -1;
	if (get_time(rec, "started_at", 1, &started, &have_start, e) < 0 ||
	    get_time(rec, "ended_at", st == 0, &ended, &have_end, e) < 0)
		return -1;
	if (have_end && ts_cmp(ended, started) < 0)
		return err_set(e, ERR_INPUT, "\"ended_at\": before \"started_at\"");
	if (json_get_object(rec, "tokens", 1, &tokens, e) < 0)
		return -1;
	for (int k = 0; k < 4; k++)
		if (json_get_int(tokens, token_names[k], 1, 0, TOKENS_MAX, &g->tok[k], e) < 0)
			return err_prefix(e, "\"tokens\"");
	if (json_get_number(rec, "wall_s", 1, &g->wall_s, e) < 0 ||
	    json_get_number(rec, "worker_hours", 1, &g->worker_hours, e) < 0)
		return -1;
	if (g->wall_s < 0 || g->wall_s > 1e12)
		return err_set(e, ERR_INPUT, "\"wall_s\": expected a non-negative number of seconds");
	if (g->worker_hours < 0 || g->worker_hours > 1e12)
		return err_set(e, ERR_INPUT, "\"worker_hours\": expected a non-negative number");
	if (json_get_array(rec, "requests", 1, &reqs, e) < 0)
		return -1;
	cJSON_ArrayForEach(it, reqs)
		if (!cJSON_IsString(it))
			return err_set(e, ERR_INPUT, "\"requests\": expected request id strings");
	g->block = (int)block;
	classify(a, cond, strlen(cond), family, strlen(family), st, started, ended, g);
	return 0;
}

/* The flat reader's values, as views (rec.h): a string value: 0 with its
 * bytes, 1 when absent and not required, -1 otherwise (missing, or not a
 * string). */
static inline int
flat_str(const struct rec_view *v, int required, const char **p, size_t *n)
{
	if (v->type == -1)
		return required ? -1 : 1;
	if (v->type != REC_STRING)
		return -1;
	*p = v->p;
	*n = v->len;
	return 0;
}

static inline int
flat_num(const struct rec_view *v, int required, double *x)
{
	if (v->type == -1)
		return required ? -1 : 1;
	if (v->type != REC_NUMBER)
		return -1;
	return rec_num_quick(v->p, v->len, x) == 0 ? 0 : rec_num_text(v->p, v->len, x);
}

static inline int
flat_int(const struct rec_view *v, int required, long long lo, long long hi, long long *out)
{
	double x;
	int rc;

	/* digits alone (counts, blocks): a whole number, read as one */
	if (v->type == REC_NUMBER && v->len > 0 && v->len <= 15) {
		long long y = 0;
		size_t i = 0;
		for (; i < v->len && v->p[i] >= '0' && v->p[i] <= '9'; i++)
			y = y * 10 + (v->p[i] - '0');
		if (i == v->len) {
			if (y < lo || y > hi)
				return -1;
			*out = y;
			return 0;
		}
	}
	rc = flat_num(v, required, &x);

	if (rc != 0)
		return rc;
	/* in range first (bounds are below 2^53), then whole: the cast is
	 * exact there, and cheaper than floor */
	if (!(x >= (double)lo && x <= (double)hi) || (double)(long long)x != x)
		return -1;
	*out = (long long)x;
	return 0;
}

static int
flat_word(const char *p, size_t n, const char *const *words, int nwords)
{
	for (int i = 0; i < nwords; i++)
		if (same_word(p, n, words[i]))
			return i;
	return -1;
}

/* 0 and the time, 1 when absent and not required, -1 otherwise. */
static int
flat_time(const struct rec_view *v, int required, struct ts *out)
{
	const char *p;
	size_t n;
	int rc = flat_str(v, required, &p, &n);

	if (rc != 0)
		return rc;
	return ts_parse_n(p, n, out) < 0 ? -1 : 0;
}

/* The fields summarize() reads, each list in byte order for rec_members. */
enum { F_ANCHOR, F_BLOCK, F_COLOR, F_CONDITION, F_ENDED_AT, F_FAMILY, F_GAME_ID, F_MODEL,
	F_OPENING, F_PLIES, F_REQUESTS, F_RESULT, F_STARTED_AT, F_STATUS, F_TERMINATION, F_TOKENS,
	F_WALL_S, F_WORKER_HOURS, F_N };
static const char *const flat_fields[F_N] = { "anchor", "block", "color", "condition",
	"ended_at", "family", "game_id", "model", "opening", "plies", "requests", "result",
	"started_at", "status", "termination", "tokens", "wall_s", "worker_hours" };
enum { A_BINARY_SHA256, A_ELO, A_ENGINE, A_LIMITER, A_NODES, A_TIME_S, A_N };
static const char *const flat_anchor[A_N] = { "binary_sha256", "elo", "engine", "limiter",
	"nodes", "time_s" };
static const char *const flat_model[2] = { "requested", "returned" };
/* token_names in byte order: cached, input, output, reasoning */
static const char *const flat_tokens[4] = { "cached", "input", "output", "reasoning" };
static const int flat_token_slot[4] = { 3, 0, 1, 2 };

static int
flat_keys_init(struct rec_keys keys[4])
{
	/* -1 only if a list above were out of byte order */
	return rec_keys_init(&keys[0], flat_fields, F_N) | rec_keys_init(&keys[1], flat_model, 2) |
	    rec_keys_init(&keys[2], flat_anchor, A_N) | rec_keys_init(&keys[3], flat_tokens, 4);
}

/* Where a record's fields are: token numbers (or -1), from one rec_members
 * per object.  Records of one shape (rec_shape) have them in the same
 * places, so a scratch keeps them for the shape last seen. */
enum { V_FAMILY, V_MODEL, V_CONDITION, V_COLOR, V_ANCHOR, V_OPENING, V_BLOCK, V_STATUS,
	V_REQUESTED, V_RETURNED, V_ENGINE, V_ELO, V_TIME_S, V_NODES, V_LIMITER, V_BINARY_SHA256,
	V_RESULT, V_TERMINATION, V_PLIES, V_STARTED_AT, V_ENDED_AT, V_TOKENS, V_TOK0, V_TOK1, V_TOK2,
	V_TOK3, V_WALL_S, V_WORKER_HOURS, V_REQUESTS, V_GAME_ID, V_N };

/* The values summarize_flat reads record by record, in this order; the
 * rest it only needs to be of a type, which the shape decides. */
enum { W_FAMILY, W_CONDITION, W_COLOR, W_STATUS, W_BLOCK, W_ELO, W_RESULT, W_PLIES,
	W_STARTED_AT, W_ENDED_AT, W_TOK0, W_TOK1, W_TOK2, W_TOK3, W_WALL_S, W_WORKER_HOURS,
	W_GAME_ID, W_N };

struct flat_at {
	int v[V_N];  /* the tokens summarize() reads, in V_ order */
	int w[W_N];  /* those read record by record, in W_ order */
	int typed;   /* every value of the type summarize() wants, or absent where it may be */
};

/* The types summarize() wants, found once for records of one shape (which
 * have the same tokens, of the same types: rec_shape).  Whether a value
 * may be absent can depend on the status, which is read per record. */
static int
flat_typed(const struct rec_scan *s, const int *v)
{
	static const signed char want[V_N] = {
		[V_FAMILY] = REC_STRING, [V_MODEL] = REC_OBJECT, [V_CONDITION] = REC_STRING,
		[V_COLOR] = REC_STRING, [V_ANCHOR] = REC_OBJECT, [V_OPENING] = REC_STRING,
		[V_BLOCK] = REC_NUMBER, [V_STATUS] = REC_STRING, [V_REQUESTED] = REC_STRING,
		[V_RETURNED] = REC_STRING, [V_ENGINE] = REC_STRING, [V_ELO] = REC_NUMBER,
		[V_TIME_S] = -REC_NUMBER - 1, [V_NODES] = -REC_NUMBER - 1,
		[V_LIMITER] = -REC_STRING - 1, [V_BINARY_SHA256] = -REC_STRING - 1,
		[V_RESULT] = -REC_STRING - 1, [V_TERMINATION] = -REC_STRING - 1,
		[V_PLIES] = -REC_NUMBER - 1, [V_STARTED_AT] = REC_STRING,
		[V_ENDED_AT] = -REC_STRING - 1, [V_TOKENS] = REC_OBJECT, [V_TOK0] = REC_NUMBER,
		[V_TOK1] = REC_NUMBER, [V_TOK2] = REC_NUMBER, [V_TOK3] = REC_NUMBER,
		[V_WALL_S] = REC_NUMBER, [V_WORKER_HOURS] = REC_NUMBER, [V_REQUESTS] = REC_ARRAY,
		[V_GAME_ID] = REC_STRING };
	/* want: a type that must be there, or -type - 1 for one that may be absent */
	for (int k = 0; k < V_N; k++) {
		int t = rec_type(s, v[k]);
		if (want[k] >= 0 ? t != want[k] : t != -1 && t != -want[k] - 1)
			return 0;
	}
	return v[V_TIME_S] >= 0 || v[V_NODES] >= 0;
}

static void
flat_find(const struct freeze_acc *a, const struct rec_scan *s, struct flat_at *m)
{
	int f[F_N], mo[2], an[A_N], tk[4];

	rec_members(s, 0, &a->keys[0], f);
	rec_members(s, f[F_MODEL], &a->keys[1], mo);
	rec_members(s, f[F_ANCHOR], &a->keys[2], an);
	rec_members(s, f[F_TOKENS], &a->keys[3], tk);
	const int v[V_N] = { f[F_FAMILY], f[F_MODEL], f[F_CONDITION], f[F_COLOR], f[F_ANCHOR],
		f[F_OPENING], f[F_BLOCK], f[F_STATUS], mo[0], mo[1], an[A_ENGINE], an[A_ELO],
		an[A_TIME_S], an[A_NODES], an[A_LIMITER], an[A_BINARY_SHA256], f[F_RESULT],
		f[F_TERMINATION], f[F_PLIES], f[F_STARTED_AT], f[F_ENDED_AT], f[F_TOKENS], tk[0], tk[1],
		tk[2], tk[3], f[F_WALL_S], f[F_WORKER_HOURS], f[F_REQUESTS], f[F_GAME_ID] };
	const int w[W_N] = { v[V_FAMILY], v[V_CONDITION], v[V_COLOR], v[V_STATUS], v[V_BLOCK],
		v[V_ELO], v[V_RESULT], v[V_PLIES], v[V_STARTED_AT], v[V_ENDED_AT], v[V_TOK0],
		v[V_TOK1], v[V_TOK2], v[V_TOK3], v[V_WALL_S], v[V_WORKER_HOURS], v[V_GAME_ID] };
	memcpy(m->v, v, sizeof v);
	memcpy(m->w, w, sizeof w);
	m->typed = flat_typed(s, v);
}

static int
game_id_of(const struct rec_scan *s, const struct flat_at *m, const char **p, size_t *n)
{
	struct rec_view v;

	rec_views(s, &m->w[W_GAME_ID], 1, &v);
	return flat_str(&v, 1, p, n);
}

/* summarize() over the flat reader's tokens (rec.h), with the same rules,
 * for a record of the common shape: 0 with g filled but for game_id and
 * where; 1 for anything summarize would question, which then takes the
 * tree reader's way and gets its message there.  The types are the
 * shape's (m->typed); only values are read here. */
static int
summarize_flat(const struct freeze_acc *a, const struct rec_scan *s, const struct flat_at *m,
    struct freeze_item *g)
{
	static const char *const statuses[] = { "terminal", "live", "provider_error", "aborted" };
	static const char *const colors[] = { "white", "black" };
	struct rec_view v[W_GAME_ID]; /* the game id (last) is game_id_of's */
	int st, have_end;
	long long block, plies;
	struct ts started = { 0 }, ended = { 0 };

	if (!m->typed)
		return 1;
	rec_views(s, m->w, W_GAME_ID, v);
	if ((g->color = flat_word(v[W_COLOR].p, v[W_COLOR].len, colors, 2)) < 0 ||
	    (st = flat_word(v[W_STATUS].p, v[W_STATUS].len, statuses, 4)) < 0)
		return 1;
	if (flat_int(&v[W_BLOCK], 1, 1, 1000000000, &block) != 0 ||
	    flat_num(&v[W_ELO], 1, &g->anchor) != 0 || fabs(g->anchor) > 1e6)
		return 1;
	g->result = R_NONE;
	if (st == 0 || v[W_RESULT].type != -1) {
		if (v[W_RESULT].type == -1 ||
		    (g->result = flat_word(v[W_RESULT].p, v[W_RESULT].len, result_names, 3)) < 0)
			return 1;
	}
	/* termination, plies and ended_at may be absent only from a game not
	 * terminal */
	if (st == 0 && m->v[V_TERMINATION] < 0)
		return 1;
	if (flat_int(&v[W_PLIES], st == 0, 0, 100000, &plies) < 0)
		return 1;
	if (flat_time(&v[W_STARTED_AT], 1, &started) != 0)
		return 1;
	if ((have_end = flat_time(&v[W_ENDED_AT], st == 0, &ended)) < 0)
		return 1;
	have_end = have_end == 0;
	if (have_end && ts_cmp(ended, started) < 0)
		return 1;
	for (int k = 0; k < 4; k++)
		if (flat_int(&v[W_TOK0 + k], 1, 0, TOKENS_MAX, &g->tok[flat_token_slot[k]]) != 0)
			return 1;
	if (flat_num(&v[W_WALL_S], 1, &g->wall_s) != 0 ||
	    flat_num(&v[W_WORKER_HOURS], 1, &g->worker_hours) != 0)
		return 1;
	if (g->wall_s < 0 || g->wall_s > 1e12 || g->worker_hours < 0 || g->worker_hours > 1e12)
		return 1;
	if (!rec_all_strings(s, m->v[V_REQUESTS]))
		return 1;
	g->block = (int)block;
	classify(a, v[W_CONDITION].p, v[W_CONDITION].len, v[W_FAMILY].p, v[W_FAMILY].len, st,
	    started, ended, g);
	return 0;
}

/* Ids in blocks of a megabyte, given out one after another. */
#define ID_BLOCK ((size_t)1 << 20)
struct id_block {
	struct id_block *next;
	size_t used, cap;
	char b[];
};

struct freeze_ids {
	struct id_block *head;
};

struct freeze_ids *
freeze_ids_new(void)
{
	return calloc(1, sizeof(struct freeze_ids));
}

void
freeze_ids_free(struct freeze_ids *ids)
{
	if (ids == NULL)
		return;
	for (struct id_block *b = ids->head, *next; b != NULL; b = next) {
		next = b->next;
		free(b);
	}
	free(ids);
}

/* A copy of p[0..n) and a NUL in ids, or NULL when out of memory. */
static char *
ids_dup(struct freeze_ids *ids, const char *p, size_t n)
{
	struct id_block *b = ids->head;

	if (b == NULL || b->cap - b->used < n + 1) {
		/* a megabyte at a time, its pages asked for at once */
		size_t cap = n + 1 > ID_BLOCK - sizeof *b ? n + 1 : ID_BLOCK - sizeof *b;
		if ((b = mem_ready(malloc(sizeof *b + cap), sizeof *b + cap)) == NULL)
			return NULL;
		b->next = ids->head;
		b->used = 0;
		b->cap = cap;
		ids->head = b;
	}
	char *o = b->b + b->used;
	memcpy(o, p, n);
	o[n] = '\0';
	b->used += n + 1;
	return o;
}

/* g's game_id: a copy of id[0..n) (its own, or in ids), and its first 24
 * bytes as the sort's key (taken here, on the thread that read the record,
 * while the bytes are at hand: a million ids sorted later lie all over the
 * heap). */
static int
set_game_id(struct freeze_item *g, const char *id, size_t n, struct freeze_ids *ids)
{
	if (n > UINT32_MAX)
		return -1; /* no reader gives such an id: a line is at most 1 MiB */
	g->id_lent = ids != NULL;
	if ((g->game_id = ids != NULL ? ids_dup(ids, id, n) : strndup(id, n)) == NULL)
		return -1;
	for (size_t w = 0, at = 0; w < 3; w++, at += 8) {
		uint64_t v = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		if (at + 8 <= n) {
			memcpy(&v, id + at, 8);
			g->idkey[w] = __builtin_bswap64(v);
			continue;
		}
#endif
		for (size_t k = at; k < at + 8; k++)
			v = v << 8 | (k < n ? (unsigned char)id[k] : 0);
		g->idkey[w] = v;
	}
	g->idlen = (uint32_t)n;
	return 0;
}

/* Validate, summarize and canonicalize one record into g and canon.  Reads
 * a but never changes it, so worker threads may call it at once. */
static int
prepare(const struct freeze_acc *a, const cJSON *rec, const char *where,
    const struct ledger_loc *loc, struct freeze_item *g, struct buf *canon, struct err *e)
{
	const char *gid;

	memset(g, 0, sizeof *g);
	if (json_get_string(rec, "game_id", 1, &gid, e) < 0)
		return err_prefix(e, "%s", where);
	if (gid[0] == '\0')
		return err_set(e, ERR_INPUT, "%s: \"game_id\": empty", where);
	if (summarize(a, rec, g, e) < 0)
		return err_prefix(e, "%s", where);
	if (canon_digest(rec, canon, g->d, e) < 0)
		return err_prefix(e, "%s", where);
	set_game_id(g, gid, strlen(gid), NULL);
	if (loc != NULL) {
		g->file = loc->name;
		g->line = loc->line;
		g->sqlite = loc->sqlite;
	} else {
		g->where_own = strdup(where);
	}
	if (g->game_id == NULL || (loc == NULL && g->where_own == NULL)) {
		freeze_item_clear(g);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	return 0;
}

struct freeze_scratch {
	struct rec_scan *rs;
	struct hash *h;
	struct freeze_ids *ids; /* where ids go, or NULL: strndup */
	/* where the fields of records of shape `shape` are, for acc */
	uint64_t shape;
	const struct freeze_acc *acc;
	struct flat_at at;
};

struct freeze_scratch *
freeze_scratch_new(void)
{
	struct freeze_scratch *x = calloc(1, sizeof *x);

	if (x == NULL)
		return NULL;
	x->rs = rec_scan_new();
	x->h = hash_new();
	if (x->rs == NULL || x->h == NULL) {
		freeze_scratch_free(x);
		return NULL;
	}
	return x;
}

void
freeze_scratch_lend(struct freeze_scratch *x, struct freeze_ids *ids)
{
	x->ids = ids;
}

void
freeze_scratch_free(struct freeze_scratch *x)
{
	if (x == NULL)
		return;
	rec_scan_free(x->rs);
	hash_free(x->h);
	free(x);
}

/* prepare() for one record's JSON text: the flat reader when the record
 * has the common shape, else the tree reader, whose messages name the line
 * and field.  Either way the same summary, and the same canonical bytes,
 * appended to out. */
static int
prepare_text(const struct freeze_acc *a, struct freeze_scratch *x, const char *text, size_t n,
    const struct ledger_loc *loc, struct freeze_item *g, struct buf *out, struct err *e)
{
	struct rec_scan *rs = x->rs;
	struct buf tmp = BUF_INIT;
	char where[512];
	size_t start = out->len;
	const char *gid;
	size_t ngid;
	struct flat_at at;
	cJSON *rec;
	int rc;

	memset(g, 0, sizeof *g);
	rc = rec_scan(rs, text, n, out);
	if (rc == REC_NOMEM)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (rc == REC_OK)
		flat_find(a, rs, &at);
	if (rc == REC_OK && game_id_of(rs, &at, &gid, &ngid) == 0 && ngid > 0 &&
	    summarize_flat(a, rs, &at, g) == 0) {
		if (hash_digest(x->h, out->p + start, out->len - start, g->d) < 0)
			return err_set(e, ERR_NOMEM, "out of memory (hashing)");
		if (set_game_id(g, gid, ngid, NULL) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		g->file = loc->name;
		g->line = loc->line;
		g->sqlite = loc->sqlite;
		return 0;
	}
	out->len = start;
	if (out->p != NULL)
		out->p[start] = '\0';
	ledger_loc_format(loc, where, sizeof where);
	rec = json_parse(text, n, loc->name, loc->line, e);
	if (rec == NULL)
		return -1;
	if (!cJSON_IsObject(rec)) {
		cJSON_Delete(rec);
		return err_set(e, ERR_INPUT, "%s:%ld: expected a JSON object", loc->name, loc->line);
	}
	rc = prepare(a, rec, where, loc, g, &tmp, e);
	cJSON_Delete(rec);
	if (rc == 0 && buf_add(out, tmp.p, tmp.len) < 0) {
		freeze_item_clear(g);
		rc = err_set(e, ERR_NOMEM, "out of memory");
	}
	buf_release(&tmp);
	return rc;
}

/* Take g (its strings now belong to a). */
static int
append(struct freeze_acc *a, struct freeze_item *g, struct err *e)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 1024;
		struct freeze_item *gs = realloc(a->games, cap * sizeof *gs);
		if (gs == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		a->games = gs;
		a->cap = cap;
	}
	a->games[a->n++] = *g;
	return 0;
}

int
freeze_acc_prepare(const struct freeze_acc *a, const cJSON *rec, const char *where,
    struct freeze_item *item, struct buf *canon, uint8_t d[HASH_LEN], struct err *e)
{
	buf_reset(canon);
	if (prepare(a, rec, where, NULL, item, canon, e) < 0)
		return -1;
	memcpy(d, item->d, HASH_LEN);
	return 0;
}

int
freeze_acc_prepare_text(const struct freeze_acc *a, struct freeze_scratch *x, const char *text,
    size_t n, const struct ledger_loc *loc, struct freeze_item *item, struct buf *canon,
    uint8_t d[HASH_LEN], struct err *e)
{
	buf_reset(canon);
	if (prepare_text(a, x, text, n, loc, item, canon, e) < 0)
		return -1;
	memcpy(d, item->d, HASH_LEN);
	return 0;
}

int
freeze_acc_prepare_stored(const struct freeze_acc *a, struct freeze_scratch *x, const char *text,
    size_t n, struct freeze_item *item, uint8_t d[HASH_LEN], struct err *e)
{
	const char *gid;
	size_t ngid;
	uint64_t shape;
	int rc;

	memset(item, 0, sizeof *item);
	if ((rc = rec_check(x->rs, text, n)) != REC_OK)
		return rc == REC_NOMEM ? err_set(e, ERR_NOMEM, "out of memory") : 1;
	shape = rec_shape(x->rs);
	if (shape == 0 || shape != x->shape || a != x->acc) {
		flat_find(a, x->rs, &x->at);
		x->shape = shape;
		x->acc = a;
	}
	if (game_id_of(x->rs, &x->at, &gid, &ngid) != 0 || ngid == 0 ||
	    summarize_flat(a, x->rs, &x->at, item) != 0)
		return 1;
	if (hash_digest(x->h, text, n, item->d) < 0 || set_game_id(item, gid, ngid, x->ids) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	item->file = "stored record";
	if (d != NULL)
		memcpy(d, item->d, HASH_LEN);
	return 0;
}

/* Room for n more items at once. */
static int
reserve(struct freeze_acc *a, size_t n, struct err *e)
{
	if (n <= a->cap - a->n)
		return 0;
	struct freeze_item *gs = realloc(a->games, (a->n + n) * sizeof *gs);
	if (gs == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	a->games = gs;
	a->cap = a->n + n;
	return 0;
}

struct freeze_item *
freeze_acc_room(struct freeze_acc *a, size_t n, struct err *e)
{
	return reserve(a, n, e) < 0 ? NULL : a->games + a->n;
}

void
freeze_acc_placed(struct freeze_acc *a, size_t n)
{
	a->n += n;
}

int
freeze_acc_take(struct freeze_acc *a, struct freeze_item *item, struct err *e)
{
	if (append(a, item, e) < 0) {
		freeze_item_clear(item);
		return -1;
	}
	memset(item, 0, sizeof *item);
	return 0;
}

int
freeze_item_same(const struct freeze_item *a, const struct freeze_item *b)
{
	char wa[512], wb[512];

	/* Numbers compared by their bits: the two readers must agree exactly. */
	return strcmp(a->game_id, b->game_id) == 0 &&
	    strcmp(where_of(a, wa, sizeof wa), where_of(b, wb, sizeof wb)) == 0 &&
	    memcmp(a->d, b->d, HASH_LEN) == 0 && a->cond == b->cond && a->reason == b->reason &&
	    a->block == b->block && a->color == b->color && a->result == b->result &&
	    memcmp(&a->anchor, &b->anchor, sizeof a->anchor) == 0 &&
	    memcmp(a->tok, b->tok, sizeof a->tok) == 0 &&
	    memcmp(&a->wall_s, &b->wall_s, sizeof a->wall_s) == 0 &&
	    memcmp(&a->worker_hours, &b->worker_hours, sizeof a->worker_hours) == 0;
}

void
freeze_item_clear(struct freeze_item *item)
{
	if (item == NULL)
		return;
	if (!item->id_lent)
		free(item->game_id);
	free(item->where_own);
	memset(item, 0, sizeof *item);
}

int
freeze_acc_add(struct freeze_acc *a, const cJSON *rec, const char *where, const char **canon,
    size_t *n, uint8_t d[HASH_LEN], struct err *e)
{
	struct freeze_item g;

	if (prepare(a, rec, where, NULL, &g, &a->canon, e) < 0)
		return -1;
	if (append(a, &g, e) < 0) {
		freeze_item_clear(&g);
		return -1;
	}
	memcpy(d, g.d, HASH_LEN);
	*canon = a->canon.p;
	*n = a->canon.len;
	return 0;
}

/* Included games by condition, block, color, game_id. */
static int
cmp_block_order(const void *x, const void *y)
{
	const struct freeze_item *a = *(const struct freeze_item *const *)x;
	const struct freeze_item *b = *(const struct freeze_item *const *)y;

	if (a->cond != b->cond)
		return a->cond < b->cond ? -1 : 1;
	if (a->block != b->block)
		return a->block < b->block ? -1 : 1;
	if (a->color != b->color)
		return a->color < b->color ? -1 : 1;
	return strcmp(a->game_id, b->game_id);
}

static int
cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

#define ADD(obj, key, item) \
	do { \
		cJSON *it_ = (item); \
		if (it_ == NULL || !cJSON_AddItemToObjectCS((obj), (key), it_)) { \
			cJSON_Delete(it_); \
			goto nomem; \
		} \
	} while (0)

#define PUSH(arr, item) \
	do { \
		cJSON *it_ = (item); \
		if (it_ == NULL || !cJSON_AddItemToArray((arr), it_)) { \
			cJSON_Delete(it_); \
			goto nomem; \
		} \
	} while (0)

struct sums {
	long long games, w, d, l, tok[4]; /* tok[k] past TOKENS_MAX stops there */
	double wall_s, worker_hours;
};

static void
sums_add(struct sums *s, const struct freeze_item *g)
{
	s->games++;
	s->w += g->result == R_WIN;
	s->d += g->result == R_DRAW;
	s->l += g->result == R_LOSS;
	for (int k = 0; k < 4; k++) /* both at most TOKENS_MAX: no overflow */
		s->tok[k] = s->tok[k] + g->tok[k] > TOKENS_MAX ? TOKENS_MAX + 1 : s->tok[k] + g->tok[k];
	s->wall_s += g->wall_s;
	s->worker_hours += g->worker_hours;
}

/* The token sums of what (a condition, or the totals), refused past
 * TOKENS_MAX: a JSON number would hold them only approximately. */
static cJSON *
tokens_json(const long long tok[4], const char *what, struct err *e)
{
	long long total = tok[0] + tok[1] + tok[2];
	cJSON *t;

	for (int k = 0; k <= 4; k++)
		if ((k < 4 ? tok[k] : total) > TOKENS_MAX) {
			err_set(e, ERR_INPUT, "%s: \"tokens.%s\": the sum is above 2^53 - 1 = %lld, "
			    "the largest whole number a JSON number holds exactly", what,
			    k < 4 ? token_names[k] : "total", TOKENS_MAX);
			return NULL;
		}
	t = cJSON_CreateObject();
	if (t == NULL)
		goto bad;
	for (int k = 0; k < 4; k++)
		if (!cJSON_AddItemToObjectCS(t, token_names[k], cJSON_CreateNumber((double)tok[k])))
			goto bad;
	if (!cJSON_AddItemToObjectCS(t, "total", cJSON_CreateNumber((double)total)))
		goto bad;
	return t;
bad:
	cJSON_Delete(t);
	err_set(e, ERR_NOMEM, "out of memory");
	return NULL;
}

/* The sums of what into o; -1 with e set. */
static int
add_sums(cJSON *o, const struct sums *s, const char *what, struct err *e)
{
	cJSON *tok = tokens_json(s->tok, what, e);

	if (tok == NULL || !cJSON_AddItemToObjectCS(o, "tokens", tok)) {
		cJSON_Delete(tok);
		return tok == NULL ? -1 : err_set(e, ERR_NOMEM, "out of memory");
	}
	ADD(o, "games", cJSON_CreateNumber((double)s->games));
	ADD(o, "w", cJSON_CreateNumber((double)s->w));
	ADD(o, "d", cJSON_CreateNumber((double)s->d));
	ADD(o, "l", cJSON_CreateNumber((double)s->l));
	ADD(o, "wall_s", cJSON_CreateNumber(json_round(s->wall_s, 1e-3)));
	ADD(o, "worker_hours", cJSON_CreateNumber(json_round(s->worker_hours, 1e-6)));
	return 0;
nomem:
	return err_set(e, ERR_NOMEM, "out of memory");
}

/* The manifest is written as canonical bytes directly, never as a tree: on
 * a million games a tree of them costs seconds and a gigabyte, only to be
 * walked once by the writer (docs/design.md).  Each writer below appends
 * members in canonical key order; the small parts (a condition, the totals,
 * spec and repo) still go through canon_write. */

#define PUT(b, lit) buf_add((b), (lit), sizeof(lit) - 1)

static int
put_num(struct buf *b, double x)
{
	char t[32];

	canon_number(x, t);
	return buf_adds(b, t);
}

/* Bytes canon_number gives x at most: exact for whole numbers below 10^15,
 * else the longest form. */
static size_t
num_bound(double x)
{
	size_t n = 1;

	if (x != floor(x) || fabs(x) >= 1e15)
		return 24;
	if (x < 0) {
		n++;
		x = -x;
	}
	for (; x >= 10; x /= 10)
		n++;
	return n;
}

/* The conditions' canonical strings, escaped once for every entry. */
struct cstrs {
	struct buf b;
	size_t *off; /* nconds + 1 offsets into b */
};

static int
cstrs_init(struct cstrs *cs, const struct freeze_acc *a, struct err *e)
{
	cs->off = malloc((a->nconds + 1) * sizeof *cs->off);
	if (cs->off == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t c = 0; c < a->nconds; c++) {
		cs->off[c] = cs->b.len;
		if (canon_string(a->conds[c], &cs->b, e) < 0)
			return -1;
	}
	cs->off[a->nconds] = cs->b.len;
	return 0;
}

static size_t
cstr_len(const struct cstrs *cs, int c)
{
	return cs->off[c + 1] - cs->off[c];
}

static int
put_cond(struct buf *b, const struct cstrs *cs, int c)
{
	return buf_add(b, cs->b.p + cs->off[c], cstr_len(cs, c));
}

/* Bytes of g's entry in "games" or "excluded", with its comma; exact but
 * for escapes in game_id. */
static size_t
entry_bound(const struct cstrs *cs, const struct freeze_item *g)
{
	size_t n = g->idlen + 2;

	if (g->reason != X_NONE)
		return n + 118;
	return n + 156 + num_bound(g->anchor) + num_bound(g->block) + cstr_len(cs, g->cond);
}

/* Copy n bytes to p; return the end. */
static char *
put_at(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

#define PUT_AT(p, lit) put_at((p), (lit), sizeof(lit) - 1)

/* canon_number's text at p (which has room for 32 bytes); return the end.
 * Whole numbers below 2^53 (anchors, blocks) are written as integers,
 * which is what canon_number writes for them, at a fraction of the cost. */
static char *
num_at(char *p, double x)
{
	if (fabs(x) < 9007199254740992.0 && x == (double)(long long)x) {
		long long v = (long long)x;
		char t[20];
		int n = 0;
		unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
		if (v < 0)
			*p++ = '-';
		do
			t[n++] = (char)('0' + u % 10);
		while ((u /= 10) > 0);
		while (n > 0)
			*p++ = t[--n];
		return p;
	}
	canon_number(x, p);
	return p + strlen(p);
}

/* s[0..n) written as a JSON string at p when no byte of it needs an escape
 * or a look at its UTF-8 (p has room for n + 2); NULL otherwise. */
static char *
plain_string_at(char *p, const char *s, size_t n)
{
	size_t i = 0;

	/* eight at a time (rec_special8 is true of any byte order) */
	for (uint64_t x; i + 8 <= n; i += 8) {
		memcpy(&x, s + i, 8);
		if (rec_special8(x))
			return NULL;
	}
	for (; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
			return NULL;
	}
	*p++ = '"';
	memcpy(p, s, n);
	p[n] = '"';
	return p + n + 1;
}

/* A game's manifest entry: in "games" {anchor, block, color, condition,
 * game_id, id, result}; in "excluded" {game_id, id, reason}.  A million of
 * them: all but game_id is written in place, in room made beforehand. */
static int
game_entry(const struct cstrs *cs, const struct freeze_item *g, int comma, struct buf *out,
    struct err *e)
{
	static const uint8_t result_len[] = { 3, 4, 4 };
	size_t need = 256 + g->idlen + (g->reason == X_NONE ? cstr_len(cs, g->cond) : 0);
	char *p, *q;

	/* (the room there most often is: no call) */
	if (out->cap - out->len <= need && buf_grow(out, need) < 0)
		goto nomem;
	p = out->p + out->len;
	if (comma)
		*p++ = ',';
	if (g->reason == X_NONE) {
		p = PUT_AT(p, "{\"anchor\":");
		p = num_at(p, g->anchor);
		p = PUT_AT(p, ",\"block\":");
		p = num_at(p, g->block);
		p = g->color ? PUT_AT(p, ",\"color\":\"black\",\"condition\":") :
		    PUT_AT(p, ",\"color\":\"white\",\"condition\":");
		p = put_at(p, cs->b.p + cs->off[g->cond], cstr_len(cs, g->cond));
		p = PUT_AT(p, ",\"game_id\":");
	} else {
		p = PUT_AT(p, "{\"game_id\":");
	}
	if ((q = plain_string_at(p, g->game_id, g->idlen)) != NULL) {
		p = q;
	} else {
		out->len = (size_t)(p - out->p);
		if (canon_string(g->game_id, out, e) < 0)
			return -1;
		if (buf_grow(out, 128) < 0)
			goto nomem;
		p = out->p + out->len;
	}
	p = PUT_AT(p, ",\"id\":\"sha256:");
	hash_hex_format(g->d, p);
	p += 2 * HASH_LEN;
	if (g->reason == X_NONE) {
		p = PUT_AT(p, "\",\"result\":\"");
		p = put_at(p, result_names[g->result], result_len[g->result]);
	} else {
		p = PUT_AT(p, "\",\"reason\":\"");
		p = put_at(p, reason_names[g->reason], strlen(reason_names[g->reason]));
	}
	p = PUT_AT(p, "\"}");
	*p = '\0';
	out->len = (size_t)(p - out->p);
	return 0;
nomem:
	return err_set(e, ERR_NOMEM, "out of memory");
}

/* One (condition, block, color) entry of "blocks"; g is its first game. */
static int
block_entry(const struct cstrs *cs, const struct freeze_item *g, long long n, long long w,
    long long d, long long l, struct buf *out)
{
	return PUT(out, "{\"anchor\":") < 0 || put_num(out, g->anchor) < 0 ||
	    PUT(out, ",\"block\":") < 0 || put_num(out, g->block) < 0 ||
	    (g->color ? PUT(out, ",\"color\":\"black\",\"condition\":") :
	    PUT(out, ",\"color\":\"white\",\"condition\":")) < 0 ||
	    put_cond(out, cs, g->cond) < 0 ||
	    PUT(out, ",\"d\":") < 0 || put_num(out, (double)d) < 0 ||
	    PUT(out, ",\"games\":") < 0 || put_num(out, (double)n) < 0 ||
	    PUT(out, ",\"l\":") < 0 || put_num(out, (double)l) < 0 ||
	    PUT(out, ",\"w\":") < 0 || put_num(out, (double)w) < 0 ||
	    PUT(out, "}") < 0 ? -1 : 0;
}

/* Blocks and conditions from the included games, in block order: the
 * entries of "blocks" go to blocks and those of "conditions" to conds, each
 * comma-separated, without the brackets. */
static int
derive_blocks(const struct freeze_acc *a, const struct cstrs *cs, struct freeze_item **inc,
    size_t ninc, struct buf *blocks, struct buf *conds, struct err *e)
{
	size_t i = 0;
	int rc = 0;

	for (size_t c = 0; c < a->nconds; c++) {
		struct ladder_block *lb = NULL;
		size_t nlb = 0, nanch = 0;
		double *anch = NULL;
		struct sums s = { 0 };
		struct ladder_state ls = LADDER_STATE_INIT;
		cJSON *co = NULL, *arr, *devs;
		int lastblock = -1;

		lb = malloc((ninc + 1) * sizeof *lb);
		anch = malloc((ninc + 1) * sizeof *anch);
		if (lb == NULL || anch == NULL)
			goto nomem_c;
		while (i < ninc && inc[i]->cond == (int)c) {
			size_t j = i;
			long long w = 0, d = 0, l = 0;
			/* one (block, color) group */
			while (j < ninc && inc[j]->cond == (int)c && inc[j]->block == inc[i]->block &&
			    inc[j]->color == inc[i]->color) {
				if (j + AHEAD < ninc)
					__builtin_prefetch(inc[j + AHEAD]);
				if (inc[j]->anchor != inc[i]->anchor) {
					char w[512];
					rc = err_set(e, ERR_INPUT, "%s: \"anchor\": block %d of %s was "
					    "played at %g and at %g", where_of(inc[j], w, sizeof w),
					    inc[i]->block, a->conds[c], inc[i]->anchor, inc[j]->anchor);
					goto done_c;
				}
				w += inc[j]->result == R_WIN;
				d += inc[j]->result == R_DRAW;
				l += inc[j]->result == R_LOSS;
				sums_add(&s, inc[j]);
				j++;
			}
			if ((blocks->len > 0 && PUT(blocks, ",") < 0) ||
			    block_entry(cs, inc[i], (long long)(j - i), w, d, l, blocks) < 0)
				goto nomem_c;
			if (inc[i]->block == lastblock) {
				if (lb[nlb - 1].anchor != inc[i]->anchor) {
					char w[512];
					rc = err_set(e, ERR_INPUT, "%s: \"anchor\": block %d of %s was "
					    "played at two anchors", where_of(inc[i], w, sizeof w), inc[i]->block,
					    a->conds[c]);
					goto done_c;
				}
				lb[nlb - 1].w += (int)w;
				lb[nlb - 1].d += (int)d;
				lb[nlb - 1].l += (int)l;
			} else {
				lb[nlb].anchor = inc[i]->anchor;
				lb[nlb].w = (int)w;
				lb[nlb].d = (int)d;
				lb[nlb].l = (int)l;
				nlb++;
				lastblock = inc[i]->block;
			}
			anch[nanch++] = inc[i]->anchor;
			i = j;
		}
		if (ladder_replay(&a->policy, lb, nlb, &ls, e) < 0) {
			rc = -1;
			goto done_c;
		}
		co = cJSON_CreateObject();
		if (co == NULL)
			goto nomem_c;
		ADD(co, "condition", cJSON_CreateString(a->conds[c]));
		ADD(co, "state", cJSON_CreateString(ls.stopped ? "terminal" : "active"));
		char what[160];
		snprintf(what, sizeof what, "condition %.100s", a->conds[c]);
		if (add_sums(co, &s, what, e) < 0) {
			rc = -1;
			goto done_c;
		}
		qsort(anch, nanch, sizeof *anch, cmp_double);
		arr = cJSON_CreateArray();
		ADD(co, "anchors", arr);
		for (size_t k = 0; k < nanch; k++)
			if (k == 0 || anch[k] != anch[k - 1])
				PUSH(arr, cJSON_CreateNumber(anch[k]));
		ADD(co, "blocks", cJSON_CreateNumber((double)nlb));
		cJSON *lo = cJSON_CreateObject();
		ADD(co, "ladder", lo);
		ADD(lo, "rule", cJSON_CreateString(ladder_rule_name(ls.rule)));
		ADD(lo, "next", ls.stopped ? cJSON_CreateNull() : cJSON_CreateNumber(ls.next));
		ADD(lo, "last_score", isnan(ls.score) ? cJSON_CreateNull() :
		    cJSON_CreateNumber(json_round(ls.score, 1e-6)));
		devs = cJSON_CreateArray();
		ADD(co, "deviations", devs);
		for (size_t k = 0; k < ls.ndev; k++) {
			cJSON *dv = cJSON_CreateObject();
			PUSH(devs, dv);
			ADD(dv, "block", cJSON_CreateNumber((double)ls.dev[k].block));
			ADD(dv, "anchor", cJSON_CreateNumber(ls.dev[k].anchor));
			ADD(dv, "expected", isnan(ls.dev[k].expected) ? cJSON_CreateNull() :
			    cJSON_CreateNumber(ls.dev[k].expected));
			ADD(dv, "why", cJSON_CreateString(ls.dev[k].why));
		}
		if (c > 0 && PUT(conds, ",") < 0)
			goto nomem_c;
		if (canon_write(co, conds, e) < 0)
			rc = -1;
		goto done_c;
nomem:
nomem_c:
		rc = err_set(e, ERR_NOMEM, "out of memory");
done_c:
		cJSON_Delete(co);
		ladder_state_release(&ls);
		free(lb);
		free(anch);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* A game in the sort: its id's first 24 bytes as three big-endian numbers
 * (zero-padded; ids hold no NUL) and whether it is longer.  Two keys that
 * differ, or are equal and not both longer, order their ids without a look
 * at the strings, which lie all over the heap; ids of one block often
 * share their first 16 bytes. */
struct gkey {
	uint64_t k[3];
	uint32_t i, more;
};

static void
gkey_make(struct gkey *key, const struct freeze_item *g, uint32_t i)
{
	memcpy(key->k, g->idkey, sizeof key->k);
	key->i = i;
	key->more = g->idlen > 24;
}

/* Keys whose numbers are equal: their ids' order (a short id is then a
 * prefix of the other, or equal to it). */
static int
gkey_tie(const struct gkey *x, const struct gkey *y, const struct freeze_item *g)
{
	if (!x->more || !y->more)
		return (int)x->more - (int)y->more;
	return strcmp(g[x->i].game_id + 24, g[y->i].game_id + 24);
}

static inline int
gkey_cmp(const struct gkey *x, const struct gkey *y, const struct freeze_item *g)
{
	for (int w = 0; w < 3; w++)
		if (x->k[w] != y->k[w])
			return x->k[w] < y->k[w] ? -1 : 1;
	return gkey_tie(x, y, g);
}

/* Whether x < y, without a branch the data decides but for ties. */
static inline int
gkey_less(const struct gkey *x, const struct gkey *y, const struct freeze_item *g)
{
	int e0 = x->k[0] == y->k[0], e1 = x->k[1] == y->k[1], e2 = x->k[2] == y->k[2];

	if (e0 & e1 & e2)
		return gkey_tie(x, y, g) < 0;
	return (x->k[0] < y->k[0]) | (e0 & ((x->k[1] < y->k[1]) | (e1 & (x->k[2] < y->k[2]))));
}

/* Merge runs of keys in order (run r is key[runs[r]..runs[r + 1]), runs[nruns]
 * is n) pairwise until one is left, between key and tmp (runs is spoiled).
 * Returns the merged keys: key or tmp.  Ties take the earlier run. */
static struct gkey *
merge_runs(struct gkey *key, struct gkey *tmp, size_t *runs, size_t nruns, size_t n,
    const struct freeze_item *g)
{
	while (nruns > 1) {
		size_t m = 0;
		for (size_t r = 0; r < nruns; r += 2) {
			/* runs[nruns] is n: an odd last run merges with nothing */
			size_t lo = runs[r], mid = runs[r + 1], hi = r + 2 <= nruns ? runs[r + 2] : mid;
			size_t x = lo, y = mid, o = lo;
			while (x < mid && y < hi)
				tmp[o++] = gkey_less(&key[y], &key[x], g) ? key[y++] : key[x++];
			memcpy(tmp + o, key + x, (mid - x) * sizeof *key);
			o += mid - x;
			memcpy(tmp + o, key + y, (hi - y) * sizeof *key);
			runs[m++] = lo;
		}
		runs[m] = n;
		nruns = m;
		struct gkey *t = key;
		key = tmp;
		tmp = t;
	}
	return key;
}

/* Sort keys stably.  A ledger is usually runs already in order (one per
 * condition, say, or one per ledger file), so runs are found and merged
 * pairwise: n log(runs) comparisons, where qsort would make n log n.
 * Returns the sorted keys: key or tmp. */
static struct gkey *
sort_keys(struct gkey *key, struct gkey *tmp, size_t *runs, size_t n, const struct freeze_item *g)
{
	size_t nruns = 0;

	for (size_t i = 0; i < n; i++)
		if (i == 0 || gkey_less(&key[i], &key[i - 1], g))
			runs[nruns++] = i;
	runs[nruns] = n;
	return merge_runs(key, tmp, runs, nruns, n, g);
}

/* A ledger is often a few streams in order, interleaved: conditions
 * played side by side, each writing its games in its own order.  Its runs
 * are then short (a block, say), but its keys fall into a few piles, each
 * in order: a key goes on the pile whose last key is the greatest below
 * it (or on a new one), which makes as few piles as there can be (the
 * longest run of keys each below the one before).  The piles' last keys
 * fall from the first pile to the last, so a key equal to an earlier one
 * goes on a later pile, and merging the piles in their order is stable.
 * Up to PILES piles, each key's pile in pile[]; 0 when more are needed
 * (the keys are then sorted the general way). */
#define PILES 16

static size_t
pile_up(const struct gkey *key, size_t n, uint8_t *pile, size_t count[PILES],
    const struct freeze_item *g)
{
	const struct gkey *last[PILES];
	size_t np = 0;

	for (size_t i = 0, best = 0; i < n; i++) {
		/* the lasts fall from pile to pile: the best is the first below
		 * the key, most often the one the key before went on */
		if (!(best < np && gkey_less(last[best], &key[i], g) &&
		    (best == 0 || !gkey_less(last[best - 1], &key[i], g))))
			for (best = 0; best < np && !gkey_less(last[best], &key[i], g); best++)
				;
		if (best == np) {
			if (np == PILES)
				return 0;
			count[np++] = 0;
		}
		last[best] = &key[i];
		pile[i] = (uint8_t)best;
		count[best]++;
	}
	return np;
}

/* Keys sorted as a block first: 256 KB, within a core's cache. */
#define SORT_BLOCK 8192

/* Half of a sort, on a thread of its own. */
struct half {
	struct gkey *key, *tmp, *out;
	size_t *runs, n, first;
	const struct freeze_item *g;
	uint8_t *pile;
};

/* Keys of games g[first..first+n) made and sorted. */
static void *
sort_half(void *arg)
{
	struct half *h = arg;

	mem_ready(h->key, h->n * sizeof *h->key);
	mem_ready(h->tmp, h->n * sizeof *h->tmp);
	size_t count[PILES], np;

	for (size_t i = 0; i < h->n; i++)
		gkey_make(&h->key[i], &h->g[h->first + i], (uint32_t)(h->first + i));
	if ((np = pile_up(h->key, h->n, h->pile, count, h->g)) > 0) {
		/* the piles one after another, then merged */
		size_t at[PILES];
		for (size_t p = 0, sum = 0; p < np; sum += count[p++])
			at[p] = h->runs[p] = sum;
		h->runs[np] = h->n;
		for (size_t i = 0; i < h->n; i++)
			h->tmp[at[h->pile[i]]++] = h->key[i];
		h->out = merge_runs(h->tmp, h->key, h->runs, np, h->n, h->g);
		return NULL;
	}
	/* Blocks of keys that fit in the processor's cache are sorted first,
	 * each alone; then only their merges pass over the whole array (a
	 * ledger of short runs otherwise takes a dozen more such passes). */
	for (size_t b = 0; b < h->n; b += SORT_BLOCK) {
		size_t m = h->n - b < SORT_BLOCK ? h->n - b : SORT_BLOCK;
		struct gkey *o = sort_keys(h->key + b, h->tmp + b, h->runs, m, h->g);
		if (o != h->key + b)
			memcpy(h->key + b, o, m * sizeof *o);
	}
	h->out = sort_keys(h->key, h->tmp, h->runs, h->n, h->g);
	return NULL;
}

/* Whether key t, next in order after last (NULL: none), repeats its id:
 * then e names both, the later in the ledger first (the sort is stable). */
static int
repeats(const struct gkey *last, const struct gkey *t, const struct freeze_item *g, struct err *e)
{
	if (last == NULL || gkey_cmp(last, t, g) != 0)
		return 0;
	const struct freeze_item *x = &g[t->i], *y = &g[last->i];
	char w1[512], w2[512];
	err_set(e, ERR_INPUT, "%s: \"game_id\": duplicate \"%.80s\" (first at %s)",
	    where_of(x, w1, sizeof w1), x->game_id, where_of(y, w2, sizeof w2));
	return 1;
}

/* Below this many games one thread sorts them. */
#define SORT_SPLIT 65536

/* a->games in game_id order, stably, as pointers (*out, n + 1 of them);
 * a duplicate refused, naming the earlier one first.  The games stay where
 * they are: a million of them moved would be 176 MB written, and as much
 * memory asked of the system, where the pointers are 8.  A million games:
 * the keys' two halves are sorted on two threads and merged. */
static int
games_in_order(const struct freeze_acc *a, struct freeze_item ***out, struct err *e)
{
	size_t n = a->n, k = 1, h1 = n / 2;
	struct gkey *key = NULL, *tmp = NULL;
	struct freeze_item *g = a->games, **ord;
	size_t *runs = NULL;
	uint8_t *pile = NULL;
	pthread_t th;
	int rc = 0;

	*out = NULL;
	if (n > UINT32_MAX)
		return err_set(e, ERR_INPUT, "more than 2^32 games");
	if ((ord = malloc((n + 1) * sizeof *ord)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	/* Ledgers are often written in game_id order: look before sorting. */
	for (struct gkey x, y; k < n; k++) {
		gkey_make(&x, &g[k - 1], (uint32_t)k - 1);
		gkey_make(&y, &g[k], (uint32_t)k);
		if (!gkey_less(&x, &y, g))
			break;
	}
	if (k >= n) {
		/* strictly increasing: in order, no duplicate */
		for (size_t i = 0; i < n; i++)
			ord[i] = &g[i];
		*out = ord;
		return 0;
	}
	key = malloc((n + 1) * sizeof *key);
	tmp = malloc(n * sizeof *tmp);
	runs = malloc((n + 2) * sizeof *runs);
	pile = malloc(n + 1);
	if (key == NULL || tmp == NULL || runs == NULL || pile == NULL)
		goto nomem;
	if (n < SORT_SPLIT) {
		struct half h = { key, tmp, NULL, runs, n, 0, g, pile };
		sort_half(&h);
		for (size_t i = 0; i < n; i++) {
			if (repeats(i > 0 ? &h.out[i - 1] : NULL, &h.out[i], g, e))
				goto fail;
			ord[i] = &g[h.out[i].i];
		}
	} else {
		/* the halves' keys made and sorted on two threads, then merged
		 * into pointers in order, a repeat looked for on the way */
		struct half hb = { key + h1, tmp + h1, NULL, runs + h1 + 1, n - h1, h1, g, pile + h1 };
		struct half ha = { key, tmp, NULL, runs, h1, 0, g, pile };
		int threaded = pthread_create(&th, NULL, sort_half, &hb) == 0;
		sort_half(&ha);
		if (threaded)
			pthread_join(th, NULL);
		else
			sort_half(&hb);
		const struct gkey *s1 = ha.out, *e1 = s1 + h1, *s2 = hb.out, *e2 = s2 + (n - h1);
		const struct gkey *last = NULL, *t;
		for (size_t o = 0; o < n; o++, last = t) {
			/* ties take the first half: stable */
			if (s1 < e1 && (s2 == e2 || !gkey_less(s2, s1, g)))
				t = s1++;
			else
				t = s2++;
			if (repeats(last, t, g, e))
				goto fail;
			ord[o] = &g[t->i];
		}
	}
	*out = ord;
	ord = NULL;
	goto done;
nomem:
	rc = err_set(e, ERR_NOMEM, "out of memory");
	goto done;
fail:
	rc = -1;
done:
	free(key);
	free(tmp);
	free(runs);
	free(pile);
	free(ord);
	return rc;
}

/* Block order, from inc in game_id order.  The ties of cmp_block_order are
 * broken by game_id, so a stable split by condition, then a look at each
 * condition's (block, color) order, spares the sort in the usual case. */
static int
block_order(const struct freeze_acc *a, struct freeze_item **inc, size_t ninc, struct err *e)
{
	size_t *at = calloc(a->nconds + 1, sizeof *at), lo = 0;
	struct freeze_item **t = malloc((ninc + 1) * sizeof *t);
	int *cond = malloc((ninc + 1) * sizeof *cond); /* each game's, read once */

	if (at == NULL || t == NULL || cond == NULL) {
		free(at);
		free(t);
		free(cond);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < ninc; i++) {
		if (i + AHEAD < ninc)
			__builtin_prefetch(inc[i + AHEAD]);
		cond[i] = inc[i]->cond;
		at[cond[i] + 1]++;
	}
	for (size_t c = 0; c < a->nconds; c++)
		at[c + 1] += at[c];
	for (size_t i = 0; i < ninc; i++)
		t[at[cond[i]]++] = inc[i];
	memcpy(inc, t, ninc * sizeof *inc);
	free(cond);
	/* at[c] is now where condition c ends */
	for (size_t c = 0; c < a->nconds; c++) {
		size_t hi = at[c], k = lo + 1;
		while (k < hi && (inc[k - 1]->block < inc[k]->block ||
		    (inc[k - 1]->block == inc[k]->block && inc[k - 1]->color <= inc[k]->color))) {
			if (k + AHEAD < hi)
				__builtin_prefetch(inc[k + AHEAD]);
			k++;
		}
		if (k < hi)
			qsort(inc + lo, hi - lo, sizeof *inc, cmp_block_order);
		lo = hi;
	}
	free(at);
	free(t);
	return 0;
}

/* Cut b back to len bytes. */
static void
buf_cut(struct buf *b, size_t len)
{
	if (b->p != NULL) {
		b->len = len;
		b->p[len] = '\0';
	}
}

/* Appends to a buffer: freeze_acc_write's sink. */
static int
sink_buf(void *ctx, const char *p, size_t n)
{
	return buf_add(ctx, p, n);
}

/* Where written bytes go: to the sink's put, or, when it expects known
 * bytes, compared with them from at on.  A part written on another thread
 * does not know where it begins until its first bytes are found (find). */
struct dest {
	const struct freeze_sink *k;
	size_t at;
	size_t hint;  /* with find: about where to look */
	int find;
	size_t start; /* where found */
};

/* Where the n bytes at p lie in expect, looking first near hint: each
 * entry's game_id and digest make the first ones unique (and the caller
 * checks the part joins the one before it).  0, or -1 when nowhere. */
static int
dest_find(struct dest *d, const char *p, size_t n)
{
	const char *x = d->k->expect, *hit;
	size_t nx = d->k->nexpect, w = (size_t)1 << 20;

	if (n > 512)
		n = 512;
	for (;; w *= 2) {
		size_t lo = d->hint > w ? d->hint - w : 0, hi = nx - d->hint > w ? d->hint + w : nx;
		if ((hit = memmem(x + lo, hi - lo, p, n)) != NULL) {
			d->at = d->start = (size_t)(hit - x);
			d->find = 0;
			return 0;
		}
		if (lo == 0 && hi == nx)
			return -1;
	}
}

static int
dest_take(struct dest *d, const char *p, size_t n)
{
	const struct freeze_sink *k = d->k;

	if (k->expect == NULL)
		return k->put(k->ctx, p, n);
	if (d->find && dest_find(d, p, n) < 0)
		return -1;
	if (n > k->nexpect - d->at || memcmp(k->expect + d->at, p, n) != 0)
		return -1;
	d->at += n;
	return 0;
}

/* The entries of included games from lo on, written to b (comma-separated)
 * on a thread of their own; when the sink expects known bytes, compared
 * with them as they come instead (from to.start to to.at). */
struct entries {
	const struct cstrs *cs;
	struct freeze_item *const *games;
	size_t n, lo;
	struct buf b;
	struct dest to;
	size_t m;     /* entries written */
	struct err err;
	int rc;
};

/* Fewer games than this are written by one thread. */
#define ENTRIES_SPLIT 65536

/* Hand w's bytes on once they pass a megabyte (or when last). */
static int
flush(struct dest *d, struct buf *w, int last)
{
	if (w->len < ((size_t)1 << 20) && !last)
		return 0;
	if (w->len > 0 && dest_take(d, w->p, w->len) < 0)
		return -1;
	buf_reset(w);
	return 0;
}

/* The entries of games[lo..hi) that belong in "games" (included) or in
 * "excluded" (not), comma-separated, appended to out and, when d is given,
 * handed on a megabyte at a time; *m counts them.  0, -1 (e says why) or
 * -2 (the sink did not take them). */
static int
write_entries(const struct cstrs *cs, struct freeze_item *const *games, size_t lo, size_t hi,
    int included, struct buf *out, struct dest *d, size_t *m, struct err *e)
{
	*m = 0;
	for (size_t i = lo; i < hi; i++) {
		if (i + AHEAD < hi)
			__builtin_prefetch(games[i + AHEAD]);
		if ((games[i]->reason == X_NONE) != included)
			continue;
		if (game_entry(cs, games[i], *m > 0, out, e) < 0)
			return -1;
		(*m)++;
		if (d != NULL && flush(d, out, 0) < 0)
			return -2;
	}
	return 0;
}

static void *
entries_thread(void *arg)
{
	struct entries *w = arg;
	struct dest *d = w->to.k->expect != NULL ? &w->to : NULL;

	w->rc = write_entries(w->cs, w->games, w->lo, w->n, 1, &w->b, d, &w->m, &w->err);
	if (w->rc == 0 && d != NULL && flush(d, &w->b, 1) < 0)
		w->rc = -2;
	return NULL;
}

int
freeze_acc_write(struct freeze_acc *a, const cJSON *repo, struct buf *out, struct err *e)
{
	struct freeze_sink k = { sink_buf, out, NULL, 0 };
	size_t start = out->len;

	/* one reservation for the whole: a hint the streaming writer gives */
	if (freeze_acc_stream(a, repo, &k, out, e) < 0) {
		buf_cut(out, start);
		return -1;
	}
	return 0;
}

int
freeze_acc_stream(struct freeze_acc *a, const cJSON *repo, const struct freeze_sink *k,
    struct buf *reserve, struct err *e)
{
	struct freeze_item **inc = NULL, **ord;
	struct sums all = { 0 };
	struct cstrs cs = { BUF_INIT, NULL };
	struct buf spec = BUF_INIT, head = BUF_INIT, blocks = BUF_INIT, conds = BUF_INIT;
	struct buf tail = BUF_INIT;
	struct buf wb = BUF_INIT, *out = &wb;
	struct entries later = { 0 };
	struct dest to = { k, 0, 0, 0, 0 };
	pthread_t th;
	int threaded = 0;
	size_t ninc = 0, nexcl = 0, room = 0;
	uint8_t sd[HASH_LEN];
	char sid[HASH_ID_LEN + 1];
	cJSON *tot = NULL;
	int rc = -1;

	if (games_in_order(a, &ord, e) < 0)
		return -1;
	/* "spec" and "spec_id" from one canonical writing of the spec */
	if (canon_write(a->spec, &spec, e) < 0)
		goto done;
	hash_bytes(spec.p ? spec.p : "", spec.len, sd);
	hash_id_format(sd, sid);
	if (cstrs_init(&cs, a, e) < 0)
		goto done;
	/* Many games, streamed: the entries of the later ones are written on a
	 * thread of their own while this one derives the blocks and conditions
	 * and writes the earlier ones; they follow those.  (Into a buffer
	 * made ready for the whole, as freeze_acc_write does, the second
	 * thread's bytes would be copied once more and cost more than they
	 * save.) */
	later = (struct entries){ &cs, ord, a->n, a->n, BUF_INIT, { k, 0, 0, 1, 0 }, 0, ERR_INIT,
		0 };
	if (a->n >= ENTRIES_SPLIT && reserve == NULL) {
		size_t lo = a->n * 3 / 10;
		while (lo < a->n && ord[lo]->reason != X_NONE)
			lo++;
		/* room for them all at once, unless they are compared as they
		 * come: entries of one ledger are alike */
		if (lo < a->n && k->expect == NULL &&
		    buf_grow(&later.b, (a->n - lo) * (entry_bound(&cs, ord[lo]) + 8)) < 0)
			goto nomem;
		later.lo = lo;
		later.to.hint = k->nexpect / a->n * lo;
		threaded = lo < a->n && pthread_create(&th, NULL, entries_thread, &later) == 0;
		if (!threaded)
			later.lo = a->n;
	}
	inc = malloc((a->n + 1) * sizeof *inc);
	if (inc == NULL)
		goto nomem;
	for (size_t i = 0; i < a->n; i++) {
		struct freeze_item *g = ord[i];
		if (i + AHEAD < a->n)
			__builtin_prefetch(ord[i + AHEAD]);
		if (reserve != NULL) /* a million ids' lengths: only when asked */
			room += entry_bound(&cs, g);
		if (g->reason == X_NONE) {
			inc[ninc++] = g;
			sums_add(&all, g);
		} else {
			nexcl++;
		}
	}
	if (block_order(a, inc, ninc, e) < 0)
		goto done;
	if (derive_blocks(a, &cs, inc, ninc, &blocks, &conds, e) < 0)
		goto done;
	if (PUT(&head, "{\"as_of\":") < 0)
		goto nomem;
	if (canon_string(json_get(a->spec, "as_of")->valuestring, &head, e) < 0)
		goto done;
	if (PUT(&head, ",\"blocks\":[") < 0)
		goto nomem;
	tot = cJSON_CreateObject();
	if (tot == NULL)
		goto nomem;
	if (add_sums(tot, &all, "totals", e) < 0)
		goto done;
	if (json_add_number(tot, "excluded", (double)nexcl) == NULL)
		goto nomem;
	if (PUT(&tail, "],\"kind\":\"cohort.freeze/1\"") < 0)
		goto nomem;
	if (repo != NULL) {
		if (PUT(&tail, ",\"repo\":") < 0)
			goto nomem;
		if (canon_write(repo, &tail, e) < 0)
			goto done;
	}
	if (PUT(&tail, ",\"spec\":") < 0 || buf_add(&tail, spec.p, spec.len) < 0 ||
	    PUT(&tail, ",\"spec_id\":\"") < 0 || buf_add(&tail, sid, HASH_ID_LEN) < 0 ||
	    PUT(&tail, "\",\"totals\":") < 0)
		goto nomem;
	if (canon_write(tot, &tail, e) < 0)
		goto done;
	if (PUT(&tail, "}") < 0)
		goto nomem;
	room += head.len + blocks.len + conds.len + tail.len + 64;
	if ((reserve != NULL && buf_grow(reserve, room) < 0) || buf_grow(out, (size_t)2 << 20) < 0)
		goto nomem;
	if (buf_add(out, head.p, head.len) < 0 || buf_add(out, blocks.p, blocks.len) < 0 ||
	    PUT(out, "],\"conditions\":[") < 0 || buf_add(out, conds.p, conds.len) < 0 ||
	    PUT(out, "],\"excluded\":[") < 0)
		goto nomem;
	size_t n;
	int wr = write_entries(&cs, ord, 0, nexcl > 0 ? a->n : 0, 0, out, &to, &n, e);
	if (wr == 0 && PUT(out, "],\"games\":[") < 0)
		goto nomem;
	if (wr == 0)
		wr = write_entries(&cs, ord, 0, later.lo, 1, out, &to, &n, e);
	if (wr == -2)
		goto sunk;
	if (wr < 0)
		goto done;
	if (threaded) {
		pthread_join(th, NULL);
		threaded = 0;
		if (later.rc == -2)
			goto sunk;
		if (later.rc < 0) {
			*e = later.err;
			goto done;
		}
		if (n > 0 && later.m > 0 && PUT(out, ",") < 0)
			goto nomem;
		if (flush(&to, out, 1) < 0)
			goto sunk;
		if (k->expect != NULL) {
			/* compared already: it must begin just where this part ends */
			if (later.to.find || later.to.start != to.at)
				goto sunk;
			to.at = later.to.at;
		}
		for (size_t at = 0; at < later.b.len; at += (size_t)1 << 20) {
			size_t m = later.b.len - at < ((size_t)1 << 20) ? later.b.len - at : (size_t)1 << 20;
			if (dest_take(&to, later.b.p + at, m) < 0)
				goto sunk;
		}
	}
	if (buf_add(out, tail.p, tail.len) < 0)
		goto nomem;
	if (flush(&to, out, 1) < 0 || (k->expect != NULL && to.at != k->nexpect))
		goto sunk;
	rc = 0;
	goto done;
sunk:
	err_set(e, ERR_IO, "the manifest's bytes could not be taken");
	goto done;
nomem:
	err_set(e, ERR_NOMEM, "out of memory");
done:
	if (threaded)
		pthread_join(th, NULL);
	buf_release(&later.b);
	buf_release(&wb);
	cJSON_Delete(tot);
	free(inc);
	free(ord);
	free(cs.off);
	buf_release(&cs.b);
	buf_release(&spec);
	buf_release(&head);
	buf_release(&blocks);
	buf_release(&conds);
	buf_release(&tail);
	return rc;
}

int
freeze_acc_finish(struct freeze_acc *a, const cJSON *repo, cJSON **manifest, struct err *e)
{
	struct buf b = BUF_INIT;

	*manifest = NULL;
	if (freeze_acc_write(a, repo, &b, e) == 0)
		*manifest = json_parse(b.p, b.len, "manifest", 1, e);
	buf_release(&b);
	return *manifest ? 0 : -1;
}

struct build_ctx {
	struct freeze_acc *acc;
	struct cas *store;
	uint64_t records;
	const struct freeze_opts *o;
};

/* One record on its way from a worker thread to the accumulator: its
 * summary, and where its canonical bytes lie in its chunk's keep buffer
 * (written by the worker, freed with the chunk: no per-record allocation
 * crosses threads). */
struct slot {
	struct freeze_item g;
	size_t off, len;
};

static int
slot_work(void *ctx, void *scratch, const char *text, size_t n, const cJSON *rec,
    const struct ledger_loc *loc, void *p, struct buf *keep, struct err *e)
{
	struct build_ctx *b = ctx;
	struct slot *s = p;
	int rc;

	s->off = keep->len;
	if (rec != NULL) {
		struct buf tmp = BUF_INIT;
		char where[512];
		ledger_loc_format(loc, where, sizeof where);
		rc = prepare(b->acc, rec, where, loc, &s->g, &tmp, e);
		if (rc == 0 && buf_add(keep, tmp.p, tmp.len) < 0) {
			freeze_item_clear(&s->g);
			rc = err_set(e, ERR_NOMEM, "out of memory");
		}
		buf_release(&tmp);
	} else {
		rc = prepare_text(b->acc, scratch, text, n, loc, &s->g, keep, e);
	}
	s->len = keep->len - s->off;
	return rc;
}

static void *
scratch_new(void *ctx)
{
	(void)ctx;
	return freeze_scratch_new();
}

static void
scratch_free(void *scratch)
{
	freeze_scratch_free(scratch);
}

static void
slot_release(void *p)
{
	struct slot *s = p;

	freeze_item_clear(&s->g);
}

static int
slot_done(void *ctx, void *p, const struct buf *keep, struct err *e)
{
	struct build_ctx *b = ctx;
	struct slot *s = p;

	if (b->store && cas_put(b->store, s->g.d, keep->p + s->off, s->len, e) < 0) {
		slot_release(s);
		return -1;
	}
	if (append(b->acc, &s->g, e) < 0) {
		slot_release(s);
		return -1;
	}
	if (++b->records % 65536 == 0 && b->o->progress)
		b->o->progress(b->o->progress_ctx, b->records);
	return 0;
}

/* The end of a freeze on a second thread, while the first writes the
 * manifest out: the store committed, then its mappings and the games'
 * memory given back.  For a million games the commit (the index sorted,
 * written and synced) and the manifest's writing take tenths of a second
 * each. */
struct finish {
	struct cas *store;
	struct freeze_acc *acc;
	struct err e;
	int rc;
};

static void *
finish_thread(void *arg)
{
	struct finish *f = arg;

	f->rc = f->store != NULL ? cas_commit(f->store, &f->e) : 0;
	cas_free(f->store);
	freeze_acc_free(f->acc);
	return NULL;
}

int
freeze_build(const struct freeze_opts *o, struct buf *manifest, struct err *e)
{
	struct build_ctx b = { 0 };
	struct finish f = { NULL, NULL, ERR_INIT, 0 };
	pthread_t th;
	cJSON *repo = NULL;
	size_t start = manifest->len;
	int rc = -1, threaded;

	b.o = o;
	b.acc = freeze_acc_new(o->spec, e);
	if (b.acc == NULL)
		return -1;
	if (o->repo_dir && freeze_repo_state(o->repo_dir, &repo, e) < 0)
		goto done;
	if (o->store_dir && cas_open(o->store_dir, 1, &b.store, e) < 0)
		goto done;
	struct ledger_par par = { slot_work, slot_done, slot_release, scratch_new, scratch_free,
		sizeof(struct slot), &b, 0 };
	for (size_t i = 0; i < o->nledgers; i++)
		if (ledger_read_par(o->ledgers[i], &par, e) < 0)
			goto done;
	if (freeze_acc_write(b.acc, repo, manifest, e) < 0)
		goto done;
	/* The store is committed only once the manifest is sure to be
	 * written; it is moved into place (by the caller) only after.  With
	 * no second thread, the commit comes first, then the writing. */
	f = (struct finish){ b.store, b.acc, ERR_INIT, 0 };
	b.store = NULL; /* f's now */
	b.acc = NULL;
	threaded = o->out != NULL && pthread_create(&th, NULL, finish_thread, &f) == 0;
	if (!threaded)
		finish_thread(&f);
	/* (f.rc is read only once no thread writes it) */
	rc = o->out != NULL && (threaded || f.rc == 0) ?
	    outfile_write(o->out, manifest->p + start, manifest->len - start, e) : 0;
	if (threaded)
		pthread_join(th, NULL);
	if (f.rc < 0) {
		*e = f.e;
		rc = -1;
	}
	if (rc < 0)
		buf_cut(manifest, start);
done:
	cas_free(b.store);
	cJSON_Delete(repo);
	freeze_acc_free(b.acc);
	return rc;
}
