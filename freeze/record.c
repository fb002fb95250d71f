/* record.c: one game record validated, canonicalized and summarized, by
 * the tree reader or the flat one; the accumulator that holds them. */
#define _GNU_SOURCE /* memmem */
#include "internal.h"


#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"
#include "../common/io.h"
#include "../common/mem.h"
#include "../common/ts.h"
#include "../protocol/ladder.h"
#include "../protocol/openings.h"
#include "../protocol/prereg.h"
#include "../protocol/spec.h"
#include "../store/cas.h"
#include "../json/json.h"
#include "../protocol/ledger.h"
#include "../json/rec.h"


const char *const freeze_reason_names[] = { "", "family", "condition", "after_cut", "live",
	"provider_error", "aborted" };
const char *const freeze_result_names[] = { "win", "draw", "loss" };
const char *const freeze_token_names[] = { "input", "output", "reasoning", "cached" };

/* Where a record came from, for messages: its ledger location, or the
 * text a caller gave. */
const char *
freeze_where(const struct freeze_item *g, char *buf, size_t n)
{
	struct ledger_loc loc = { g->file, g->line, g->sqlite };

	if (g->where_own != NULL)
		return g->where_own;
	ledger_loc_format(&loc, buf, n);
	return buf;
}

static int flat_keys_init(struct rec_keys keys[4]);

struct freeze_acc *
freeze_acc_new(const cJSON *spec, struct err *e)
{
	struct freeze_acc *a = calloc(1, sizeof *a);

	if (a == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	a->spec = spec;
	if (spec_read(spec, &a->sp, e) < 0) {
		free(a);
		return NULL;
	}
	if (flat_keys_init(a->keys) < 0) {
		freeze_acc_free(a);
		err_set(e, ERR_IO, "internal error: field lists out of order");
		return NULL;
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
		if (a->games[i].opening != NULL)
			free(a->games[i].opening);
		if (a->games[i].pair != NULL)
			free(a->games[i].pair);
	}
	free(a->games);
	spec_release(&a->sp);
	buf_release(&a->prereg_doc);
	cJSON_Delete(a->dec_devs);
	cJSON_Delete(a->devs_out);
	cJSON_Delete(a->broken_out);
	freeze_dec_free(a->dec);
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

	g->fam = -1;

	/* lengths first: most words differ in theirs (the last of equal
	 * conditions, were there any, as before) */
	g->cond = -1;
	for (size_t i = a->sp.nconds; i-- > 0;)
		if (a->sp.condlen[i] == ncond && memcmp(cond, a->sp.conds[i], ncond) == 0) {
			g->cond = (int)i;
			break;
		}
	g->fam = (int)spec_family(&a->sp, family, nfam);
	fam = g->fam >= 0;
	g->reason = X_NONE;
	g->early = a->prereg != NULL && ts_cmp(started, a->prereg->registered) < 0;
	if (!fam)
		g->reason = X_FAMILY;
	else if (g->cond < 0)
		g->reason = X_CONDITION;
	else if (ts_cmp(started, a->sp.as_of) > 0 || (st == 0 && ts_cmp(ended, a->sp.as_of) > 0))
		g->reason = X_AFTER_CUT;
	else if (st != 0)
		g->reason = st == 1 ? X_LIVE : st == 2 ? X_PROVIDER_ERROR : X_ABORTED;
}

/* A record's "anchor": its engine, its Elo into g (within a million),
 * and a time or node limit. */
static int
read_anchor(const cJSON *anchor, struct freeze_item *g, struct err *e)
{
	const char *s;
	double x;

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
	return 0;
}

/* A record's costs into g: its tokens, wall time and worker-hours; its
 * request ids checked to be strings. */
static int
read_costs(const cJSON *rec, struct freeze_item *g, struct err *e)
{
	const cJSON *tokens, *reqs, *it;

	if (json_get_object(rec, "tokens", 1, &tokens, e) < 0)
		return -1;
	for (int k = 0; k < 4; k++)
		if (json_get_int(tokens, freeze_token_names[k], 1, 0, TOKENS_MAX, &g->tok[k], e) < 0)
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
	return 0;
}

/* g's opening and pair, its own copies: 0, or -1 out of memory. */
static int
keep_pairing(struct freeze_item *g, const char *opening, size_t nopen, const char *pair,
    size_t npair)
{
	if ((g->opening = strndup(opening, nopen)) == NULL ||
	    (pair != NULL && (g->pair = strndup(pair, npair)) == NULL)) {
		free(g->opening);
		g->opening = NULL;
		return -1;
	}
	return 0;
}

/* A record's "pair" (the game_id of the game played from the same
 * opening with colours reversed) and, with an opening suite, its
 * "opening" checked against the suite: the opening is in it, and the game
 * starts from that opening's position (a terminal game always; another
 * when it holds its moves or a FEN).  Both kept in g when either is
 * wanted. */
static int
read_pairing(const struct freeze_acc *a, const cJSON *rec, const char *opening, int st,
    struct freeze_item *g, struct err *e)
{
	const cJSON *pv = json_get(rec, "pair"), *gid = json_get(rec, "game_id");
	const struct opening *o;

	if (pv != NULL && (!cJSON_IsString(pv) || pv->valuestring[0] == '\0'))
		return err_set(e, ERR_INPUT, "\"pair\": expected the game_id of the game played "
		    "from the same opening with colours reversed");
	if (pv != NULL && cJSON_IsString(gid) && strcmp(gid->valuestring, pv->valuestring) == 0)
		return err_set(e, ERR_INPUT, "\"pair\": names the game itself");
	if (a->suite != NULL) {
		if ((o = openings_find(a->suite, opening)) == NULL)
			return err_set(e, ERR_INPUT, "\"opening\": \"%.60s\" is not in the opening "
			    "suite %s", opening, a->suite->id);
		if ((st == 0 || json_get(rec, "moves") != NULL ||
		    json_get(json_get(rec, "pgn_tags"), "FEN") != NULL) &&
		    openings_game_check(o, rec, e) < 0)
			return -1;
	}
	if (pv == NULL && a->suite == NULL)
		return 0;
	if (keep_pairing(g, opening, strlen(opening), pv ? pv->valuestring : NULL,
	    pv ? strlen(pv->valuestring) : 0) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

/* Validate a record against the ledger contract and fill g (without game_id
 * and where).  Messages are `"field": what`. */
static int
summarize(const struct freeze_acc *a, const cJSON *rec, struct freeze_item *g, struct err *e)
{
	static const char *const statuses[] = { "terminal", "live", "provider_error", "aborted" };
	static const char *const colors[] = { "white", "black" };
	const char *family, *cond, *color, *status, *result, *s, *opening;
	const cJSON *anchor, *model;
	long long block, plies;
	struct ts started = { 0 }, ended = { 0 };
	int have_start, have_end, st;

	if (json_get_string(rec, "family", 1, &family, e) < 0 ||
	    json_get_object(rec, "model", 1, &model, e) < 0 ||
	    json_get_string(rec, "condition", 1, &cond, e) < 0 ||
	    json_get_string(rec, "color", 1, &color, e) < 0 ||
	    json_get_object(rec, "anchor", 1, &anchor, e) < 0 ||
	    json_get_string(rec, "opening", 1, &opening, e) < 0 ||
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
	if (read_anchor(anchor, g, e) < 0)
		return -1;
	g->result = R_NONE;
	if (st == 0 || json_get(rec, "result") != NULL) {
		if (json_get_string(rec, "result", st == 0, &result, e) < 0)
			return -1;
		if ((g->result = word(result, freeze_result_names, 3)) < 0)
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
	if (read_costs(rec, g, e) < 0)
		return -1;
	g->block = (int)block;
	classify(a, cond, strlen(cond), family, strlen(family), st, started, ended, g);
	return read_pairing(a, rec, opening, st, g, e);
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
	F_OPENING, F_PAIR, F_PLIES, F_REQUESTS, F_RESULT, F_STARTED_AT, F_STATUS, F_TERMINATION, F_TOKENS,
	F_WALL_S, F_WORKER_HOURS, F_N };
static const char *const flat_fields[F_N] = { "anchor", "block", "color", "condition",
	"ended_at", "family", "game_id", "model", "opening", "pair", "plies", "requests", "result",
	"started_at", "status", "termination", "tokens", "wall_s", "worker_hours" };
enum { A_BINARY_SHA256, A_ELO, A_ENGINE, A_LIMITER, A_NODES, A_TIME_S, A_N };
static const char *const flat_anchor[A_N] = { "binary_sha256", "elo", "engine", "limiter",
	"nodes", "time_s" };
static const char *const flat_model[2] = { "requested", "returned" };
/* freeze_token_names in byte order: cached, input, output, reasoning */
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
	V_TOK3, V_WALL_S, V_WORKER_HOURS, V_REQUESTS, V_GAME_ID, V_PAIR, V_N };

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
		[V_GAME_ID] = REC_STRING, [V_PAIR] = -REC_STRING - 1 };
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
		tk[2], tk[3], f[F_WALL_S], f[F_WORKER_HOURS], f[F_REQUESTS], f[F_GAME_ID], f[F_PAIR] };
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

/* A record's "pair" read flat (read_pairing's rules, without a suite):
 * 0 with g's opening and pair kept; 1 for what the tree reader words (an
 * empty pair, one naming the game itself) or when out of memory. */
static int
flat_pairing(const struct rec_scan *s, const struct flat_at *m, struct freeze_item *g)
{
	struct rec_view op, pv;
	const char *gid;
	size_t ngid;

	rec_views(s, &m->v[V_OPENING], 1, &op);
	rec_views(s, &m->v[V_PAIR], 1, &pv);
	if (pv.len == 0 || game_id_of(s, m, &gid, &ngid) != 0 ||
	    (ngid == pv.len && memcmp(gid, pv.p, ngid) == 0))
		return 1;
	return keep_pairing(g, op.p, op.len, pv.p, pv.len) < 0 ? 1 : 0;
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

	/* with an opening suite the moves are replayed: the tree reader's */
	if (!m->typed || a->suite != NULL)
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
		    (g->result = flat_word(v[W_RESULT].p, v[W_RESULT].len, freeze_result_names, 3)) < 0)
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
	if (m->v[V_PAIR] >= 0 && flat_pairing(s, m, g) != 0)
		return 1;
	g->block = (int)block;
	classify(a, v[W_CONDITION].p, v[W_CONDITION].len, v[W_FAMILY].p, v[W_FAMILY].len, st,
	    started, ended, g);
	return 0;
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
	if ((g->game_id = ids != NULL ? freeze_ids_dup(ids, id, n) : strndup(id, n)) == NULL)
		return -1;
	freeze_id_key(id, n, g->idkey);
	g->idlen = (uint32_t)n;
	return 0;
}

/* Validate, summarize and canonicalize one record into g and canon.  Reads
 * a but never changes it, so worker threads may call it at once. */
int
freeze_prepare(const struct freeze_acc *a, const cJSON *rec, const char *where,
    const struct ledger_loc *loc, struct freeze_item *g, struct buf *canon, struct err *e)
{
	const char *gid;

	memset(g, 0, sizeof *g);
	if (json_get_string(rec, "game_id", 1, &gid, e) < 0)
		return err_prefix(e, "%s", where);
	if (gid[0] == '\0')
		return err_set(e, ERR_INPUT, "%s: \"game_id\": empty", where);
	if (summarize(a, rec, g, e) < 0) {
		freeze_item_clear(g);
		return err_prefix(e, "%s", where);
	}
	if (canon_digest(rec, canon, g->d, e) < 0) {
		freeze_item_clear(g);
		return err_prefix(e, "%s", where);
	}
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

/* Where the fields of the record x has just read are: found again only
 * for a record of another shape than the last (rec_shape). */
static void
flat_at(const struct freeze_acc *a, struct freeze_scratch *x, const struct flat_at **at)
{
	uint64_t shape = rec_shape(x->rs);

	if (shape == 0 || shape != x->shape || a != x->acc) {
		flat_find(a, x->rs, &x->at);
		x->shape = shape;
		x->acc = a;
	}
	*at = &x->at;
}

/* freeze_prepare() for one record's JSON text: the flat reader when the record
 * has the common shape, else the tree reader, whose messages name the line
 * and field.  Either way the same summary, and the same canonical bytes,
 * appended to out. */
int
freeze_prepare_text(const struct freeze_acc *a, struct freeze_scratch *x, const char *text, size_t n,
    const struct ledger_loc *loc, struct freeze_item *g, struct buf *out, struct err *e)
{
	struct rec_scan *rs = x->rs;
	struct buf tmp = BUF_INIT;
	char where[512];
	size_t start = out->len;
	const char *gid;
	size_t ngid;
	const struct flat_at *at;
	cJSON *rec;
	int rc;

	memset(g, 0, sizeof *g);
	rc = rec_canon(rs, text, n, out, NULL);
	if (rc == REC_NOMEM)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (rc == REC_OK)
		flat_at(a, x, &at);
	if (rc == REC_OK && game_id_of(rs, at, &gid, &ngid) == 0 && ngid > 0 &&
	    summarize_flat(a, rs, at, g) == 0) {
		if (hash_digest(x->h, out->p + start, out->len - start, g->d) < 0 ||
		    set_game_id(g, gid, ngid, NULL) < 0) {
			freeze_item_clear(g);
			return err_set(e, ERR_NOMEM, "out of memory");
		}
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
	rc = freeze_prepare(a, rec, where, loc, g, &tmp, e);
	cJSON_Delete(rec);
	if (rc == 0 && buf_add(out, tmp.p, tmp.len) < 0) {
		freeze_item_clear(g);
		rc = err_set(e, ERR_NOMEM, "out of memory");
	}
	buf_release(&tmp);
	return rc;
}

/* Take g (its strings now belong to a). */
int
freeze_append(struct freeze_acc *a, struct freeze_item *g, struct err *e)
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
	if (freeze_prepare(a, rec, where, NULL, item, canon, e) < 0)
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
	if (freeze_prepare_text(a, x, text, n, loc, item, canon, e) < 0)
		return -1;
	memcpy(d, item->d, HASH_LEN);
	return 0;
}

int
freeze_acc_prepare_stored(const struct freeze_acc *a, struct freeze_scratch *x, const char *text,
    size_t n, struct freeze_item *item, uint8_t d[HASH_LEN], struct err *e)
{
	const struct flat_at *at;
	const char *gid;
	size_t ngid;
	int rc;

	memset(item, 0, sizeof *item);
	if ((rc = rec_check(x->rs, text, n)) != REC_OK)
		return rc == REC_NOMEM ? err_set(e, ERR_NOMEM, "out of memory") : 1;
	flat_at(a, x, &at);
	if (game_id_of(x->rs, at, &gid, &ngid) != 0 || ngid == 0 ||
	    summarize_flat(a, x->rs, at, item) != 0)
		return 1;
	if (hash_digest(x->h, text, n, item->d) < 0 || set_game_id(item, gid, ngid, x->ids) < 0) {
		freeze_item_clear(item);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
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
	if (freeze_append(a, item, e) < 0) {
		freeze_item_clear(item);
		return -1;
	}
	memset(item, 0, sizeof *item);
	return 0;
}

/* Two strings that may be NULL. */
static int
same_text(const char *x, const char *y)
{
	return x == NULL || y == NULL ? x == y : strcmp(x, y) == 0;
}

int
freeze_item_same(const struct freeze_item *a, const struct freeze_item *b)
{
	char wa[512], wb[512];

	/* Numbers compared by their bits: the two readers must agree exactly. */
	return strcmp(a->game_id, b->game_id) == 0 &&
	    strcmp(freeze_where(a, wa, sizeof wa), freeze_where(b, wb, sizeof wb)) == 0 &&
	    memcmp(a->d, b->d, HASH_LEN) == 0 && a->fam == b->fam && a->cond == b->cond && a->reason == b->reason &&
	    a->block == b->block && a->color == b->color && a->result == b->result &&
	    a->early == b->early &&
	    memcmp(&a->anchor, &b->anchor, sizeof a->anchor) == 0 &&
	    memcmp(a->tok, b->tok, sizeof a->tok) == 0 &&
	    memcmp(&a->wall_s, &b->wall_s, sizeof a->wall_s) == 0 &&
	    memcmp(&a->worker_hours, &b->worker_hours, sizeof a->worker_hours) == 0 &&
	    same_text(a->opening, b->opening) && same_text(a->pair, b->pair);
}

void
freeze_item_clear(struct freeze_item *item)
{
	if (item == NULL)
		return;
	if (!item->id_lent)
		free(item->game_id);
	free(item->where_own);
	free(item->opening);
	free(item->pair);
	memset(item, 0, sizeof *item);
}

int
freeze_acc_add(struct freeze_acc *a, const cJSON *rec, const char *where, const char **canon,
    size_t *n, uint8_t d[HASH_LEN], struct err *e)
{
	struct freeze_item g;

	if (freeze_prepare(a, rec, where, NULL, &g, &a->canon, e) < 0)
		return -1;
	if (freeze_append(a, &g, e) < 0) {
		freeze_item_clear(&g);
		return -1;
	}
	memcpy(d, g.d, HASH_LEN);
	*canon = a->canon.p;
	*n = a->canon.len;
	return 0;
}


void
freeze_acc_set_decisions(struct freeze_acc *a, struct freeze_dec *x)
{
	freeze_dec_free(a->dec);
	a->dec = x;
}

const struct spec *
freeze_acc_spec(const struct freeze_acc *a)
{
	return &a->sp;
}

int
freeze_acc_set_prereg(struct freeze_acc *a, const struct prereg *p, struct err *e)
{
	a->prereg = p;
	buf_reset(&a->prereg_doc);
	return canon_write(p->doc, &a->prereg_doc, e);
}

void
freeze_acc_set_openings(struct freeze_acc *a, const struct openings *s)
{
	a->suite = s;
}

void
freeze_acc_set_deviations(struct freeze_acc *a, cJSON *decision_devs)
{
	cJSON_Delete(a->dec_devs);
	a->dec_devs = decision_devs;
}
