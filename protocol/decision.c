/* decision.c: reading and checking decision records (decision.h). */
#include "decision.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../json/json.h"
#include "../json/rec.h"

const char *const decision_status_names[4] = { "ok", "illegal", "tool_error", "provider_error" };
const char *const decision_failure_names[DF_N] = { "state", "tactic", "value", "plan", "memory",
	"interface" };

int
decision_cond_parse(const char *s, struct decision_cond *c)
{
	char *end;
	long k;

	c->k = 0;
	if (strcmp(s, "none") == 0)
		c->kind = DK_NONE;
	else if (strcmp(s, "propose") == 0)
		c->kind = DK_PROPOSE;
	else if (strcmp(s, "engine-selects") == 0)
		c->kind = DK_ENGINE_SELECTS;
	else if (strncmp(s, "top", 3) == 0 && s[3] >= '1' && s[3] <= '9') {
		k = strtol(s + 3, &end, 10);
		if (k < 1 || k > DECISION_MAX_MOVES)
			return -1;
		c->k = (int)k;
		if (*end == '\0')
			c->kind = DK_TOP;
		else if (strcmp(end, "-omit-best") == 0)
			c->kind = DK_OMIT_BEST;
		else
			return -1;
	} else {
		return -1;
	}
	return 0;
}

static int
word(const cJSON *o, const char *key, const char *const *words, int n, int *out, struct err *e)
{
	const char *s;

	if (json_get_string(o, key, 1, &s, e) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (strcmp(s, words[i]) == 0) {
			*out = i;
			return 0;
		}
	return err_set(e, ERR_INPUT, "\"%s\": \"%.40s\" is not one of the contract's words", key, s);
}

/* An array of at most DECISION_MAX_MOVES strings, into mv[0..*n). */
static int
moves_array(const cJSON *rec, const char *key, int required, const char **mv, size_t *n,
    struct err *e)
{
	const cJSON *x, *a;
	int rc = json_get_array(rec, key, required, &a, e);

	*n = 0;
	if (rc != 0)
		return rc;
	if (cJSON_GetArraySize(a) > DECISION_MAX_MOVES)
		return err_set(e, ERR_INPUT, "\"%s\": more than %d moves", key, DECISION_MAX_MOVES);
	cJSON_ArrayForEach(x, a) {
		if (!cJSON_IsString(x))
			return err_set(e, ERR_INPUT, "\"%s\": expected UCI move strings", key);
		mv[(*n)++] = x->valuestring;
	}
	return 0;
}

static int
read_ids(const cJSON *rec, struct decision *d, struct err *e)
{
	const cJSON *model;
	const char **s[] = { &d->decision_id, &d->family, &d->replication, &d->condition,
		&d->position_id };
	static const char *const keys[] = { "decision_id", "family", "replication", "condition",
		"position_id" };

	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (json_get_string(rec, keys[i], 1, s[i], e) < 0)
			return -1;
		if ((*s[i])[0] == '\0')
			return err_set(e, ERR_INPUT, "\"%s\": empty", keys[i]);
	}
	if (decision_cond_parse(d->condition, &d->cond) < 0)
		return err_set(e, ERR_INPUT, "\"condition\": expected none, top<k>, top<k>-omit-best, "
		    "propose or engine-selects, found \"%.40s\"", d->condition);
	if (json_get_string(rec, "budget", 0, &d->budget, e) < 0)
		return -1;
	if (json_get_object(rec, "model", 1, &model, e) < 0 ||
	    json_get_string(model, "requested", 1, &d->requested, e) < 0 ||
	    json_get_string(model, "returned", 1, &d->returned, e) < 0)
		return err_prefix(e, "\"model\"");
	return 0;
}

static int
read_outcome(const cJSON *rec, struct decision *d, struct err *e)
{
	const cJSON *ch = json_get(rec, "chosen"), *f = json_get(rec, "failure"), *tok;
	static const char *const tk[] = { "input", "output", "reasoning", "cached" };
	const char *ts;
	int v = 0;

	/* absent is null: a SQLite log's NULL column is an absent field */
	if (ch != NULL && !cJSON_IsNull(ch) && !cJSON_IsString(ch))
		return err_set(e, ERR_INPUT, "\"chosen\": expected a UCI move or null");
	d->chosen = ch != NULL && cJSON_IsString(ch) ? ch->valuestring : NULL;
	if (word(rec, "status", decision_status_names, 4, &v, e) < 0)
		return -1;
	d->status = (enum decision_status)v;
	d->failure = DF_NONE;
	if (f != NULL && !cJSON_IsNull(f)) {
		if (word(rec, "failure", decision_failure_names, DF_N, &v, e) < 0)
			return -1;
		d->failure = (enum decision_failure)v;
	}
	if (json_get_int(rec, "retries", 1, 0, 1000000, &d->retries, e) < 0 ||
	    json_get_object(rec, "tokens", 1, &tok, e) < 0)
		return -1;
	for (int k = 0; k < 4; k++)
		if (json_get_int(tok, tk[k], 1, 0, 9007199254740991LL, &d->tok[k], e) < 0)
			return err_prefix(e, "\"tokens\"");
	if (json_get_number(rec, "latency_ms", 1, &d->latency_ms, e) < 0)
		return -1;
	if (!(d->latency_ms >= 0 && d->latency_ms <= 1e12))
		return err_set(e, ERR_INPUT, "\"latency_ms\": expected a number of milliseconds from 0");
	if (json_get_string(rec, "ts", 1, &ts, e) < 0)
		return -1;
	d->ts_text = ts;
	if (ts_parse(ts, &d->ts) < 0)
		return err_set(e, ERR_INPUT, "\"ts\": expected an RFC 3339 time, found \"%.40s\"", ts);
	return 0;
}

int
decision_read(const cJSON *rec, struct decision *d, struct err *e)
{
	int ctx = 0, rc;

	memset(d, 0, DECISION_CLEAR);
	if (!cJSON_IsObject(rec))
		return err_set(e, ERR_INPUT, "expected a decision object");
	if (read_ids(rec, d, e) < 0)
		return -1;
	if (word(rec, "context", (const char *const[]){ "fresh", "history" }, 2, &ctx, e) < 0)
		return -1;
	d->history = ctx;
	if (json_get_int(rec, "order_seed", 1, -9007199254740991LL, 9007199254740991LL,
	    &d->order_seed, e) < 0)
		return -1;
	if (moves_array(rec, "shown", 1, d->shown, &d->nshown, e) < 0 ||
	    (rc = moves_array(rec, "proposed", 0, d->proposed, &d->nproposed, e)) < 0)
		return -1;
	d->has_proposed = rc == 0;
	return read_outcome(rec, d, e);
}

/* ---- the flat way ---- */

/* The fields decision_read reads, each list in byte order (rec_members). */
enum { T_BUDGET, T_CHOSEN, T_CONDITION, T_CONTEXT, T_DECISION_ID, T_FAILURE, T_FAMILY,
	T_LATENCY, T_MODEL, T_ORDER_SEED, T_POSITION_ID, T_PROPOSED, T_REPLICATION, T_RETRIES,
	T_SHOWN, T_STATUS, T_TOKENS, T_TS, T_N };
_Static_assert(T_N + 6 <= (int)(sizeof ((struct decision_flat *)0)->at[0].at / sizeof(int)),
    "decision_flat's at[] holds the fields, the model's and the tokens'");
static const char *const top_keys[T_N] = { "budget", "chosen", "condition", "context",
	"decision_id", "failure", "family", "latency_ms", "model", "order_seed", "position_id",
	"proposed", "replication", "retries", "shown", "status", "tokens", "ts" };
static const char *const model_keys[2] = { "requested", "returned" };
/* in byte order; decision_read's tok[] order is input, output, reasoning, cached */
static const char *const token_keys[4] = { "cached", "input", "output", "reasoning" };
static const int token_slot[4] = { 3, 0, 1, 2 };

int
decision_flat_init(struct decision_flat *f)
{
	memset(f, 0, sizeof *f);
	rec_keys_init(&f->top, top_keys, T_N);
	rec_keys_init(&f->model, model_keys, 2);
	rec_keys_init(&f->tokens, token_keys, 4);
	return (f->rs = rec_scan_new()) == NULL ? -1 : 0;
}

void
decision_flat_release(struct decision_flat *f)
{
	rec_scan_free(f->rs);
	f->rs = NULL;
	buf_release(&f->text);
}

/* Where each string goes: its token, and the field that points at it. */
struct flat_strs {
	int tok[16 + 2 * DECISION_MAX_MOVES];
	const char **dst[16 + 2 * DECISION_MAX_MOVES];
	int n;
};

static int
want_str(const struct rec_scan *s, struct flat_strs *q, int tok, const char **dst, int nonempty)
{
	size_t len;

	if (rec_type(s, tok) != REC_STRING)
		return 1;
	if (nonempty && (rec_str(s, tok, &len), len == 0))
		return 1;
	q->tok[q->n] = tok;
	q->dst[q->n++] = dst;
	return 0;
}

/* 1 unless the string token tok is exactly one of words[0..n). */
static int
flat_word(const struct rec_scan *s, int tok, const char *const *words, int n, int *out)
{
	size_t len;
	const char *p;

	if (rec_type(s, tok) != REC_STRING)
		return 1;
	p = rec_str(s, tok, &len);
	for (int i = 0; i < n; i++)
		if (strlen(words[i]) == len && memcmp(p, words[i], len) == 0)
			return *out = i, 0;
	return 1;
}

static int
flat_int(const struct rec_scan *s, int tok, long long lo, long long hi, long long *out)
{
	double x;

	if (rec_num(s, tok, &x) < 0 || x != floor(x) || x < (double)lo || x > (double)hi)
		return 1;
	*out = (long long)x;
	return 0;
}

static int
flat_moves(const struct rec_scan *s, struct flat_strs *q, int arr, const char **mv, size_t *n)
{
	*n = 0;
	if (!rec_all_strings(s, arr))
		return 1;
	for (int t = rec_first(s, arr); t >= 0; t = rec_next(s, arr, t)) {
		if (*n == DECISION_MAX_MOVES || want_str(s, q, t, &mv[*n], 0) != 0)
			return 1;
		(*n)++;
	}
	return 0;
}

/* The ids, the condition, the model and the context. */
static int
flat_ids(const struct rec_scan *s, const int *v, struct decision *d, struct flat_strs *q)
{
	const int *m = v + T_N;
	int ctx;

	if (want_str(s, q, v[T_DECISION_ID], &d->decision_id, 1) ||
	    want_str(s, q, v[T_FAMILY], &d->family, 1) ||
	    want_str(s, q, v[T_REPLICATION], &d->replication, 1) ||
	    want_str(s, q, v[T_CONDITION], &d->condition, 1) ||
	    want_str(s, q, v[T_POSITION_ID], &d->position_id, 1) ||
	    (rec_type(s, v[T_BUDGET]) >= 0 && rec_type(s, v[T_BUDGET]) != REC_NULL &&
	        want_str(s, q, v[T_BUDGET], &d->budget, 0)) ||
	    rec_type(s, v[T_MODEL]) != REC_OBJECT)
		return 1;
	if (want_str(s, q, m[0], &d->requested, 0) || want_str(s, q, m[1], &d->returned, 0) ||
	    flat_word(s, v[T_CONTEXT], (const char *const[]){ "fresh", "history" }, 2, &ctx))
		return 1;
	d->history = ctx;
	return flat_int(s, v[T_ORDER_SEED], -9007199254740991LL, 9007199254740991LL,
	    &d->order_seed);
}

/* The moves, the outcome, the tokens and the time. */
static int
flat_outcome(const struct rec_scan *s, const int *v, struct decision *d, struct flat_strs *q)
{
	const int *t = v + T_N + 2;
	int w, ct = rec_type(s, v[T_CHOSEN]), ft = rec_type(s, v[T_FAILURE]);
	int pt = rec_type(s, v[T_PROPOSED]);

	/* "proposed": null is no shortlist, as absent is (json_get_array's rule) */
	d->has_proposed = pt != -1 && pt != REC_NULL;
	if (flat_moves(s, q, v[T_SHOWN], d->shown, &d->nshown) ||
	    (d->has_proposed && flat_moves(s, q, v[T_PROPOSED], d->proposed, &d->nproposed)))
		return 1;
	if ((ct != -1 && ct != REC_NULL && want_str(s, q, v[T_CHOSEN], &d->chosen, 0)) ||
	    flat_word(s, v[T_STATUS], decision_status_names, 4, &w))
		return 1;
	d->status = (enum decision_status)w;
	d->failure = DF_NONE;
	if (ft != -1 && ft != REC_NULL) {
		if (flat_word(s, v[T_FAILURE], decision_failure_names, DF_N, &w))
			return 1;
		d->failure = (enum decision_failure)w;
	}
	if (flat_int(s, v[T_RETRIES], 0, 1000000, &d->retries) ||
	    rec_type(s, v[T_TOKENS]) != REC_OBJECT)
		return 1;
	for (int k = 0; k < 4; k++)
		if (flat_int(s, t[k], 0, 9007199254740991LL, &d->tok[token_slot[k]]))
			return 1;
	if (rec_num(s, v[T_LATENCY], &d->latency_ms) < 0 ||
	    !(d->latency_ms >= 0 && d->latency_ms <= 1e12))
		return 1;
	return want_str(s, q, v[T_TS], &d->ts_text, 0);
}

/* q's strings into f's text, NUL-terminated, and the fields at them. */
static int
flat_copy(struct decision_flat *f, const struct rec_scan *s, const struct flat_strs *q)
{
	size_t off[sizeof q->tok / sizeof q->tok[0]], len[sizeof q->tok / sizeof q->tok[0]];
	const char *p[sizeof q->tok / sizeof q->tok[0]];
	size_t all = 0;

	/* the room for all at once: a grow and a NUL written for each string
	 * were a twentieth of a decision's reading */
	for (int i = 0; i < q->n; i++) {
		p[i] = rec_str(s, q->tok[i], &len[i]);
		all += len[i] + 1;
	}
	buf_reset(&f->text);
	if (buf_grow(&f->text, all) < 0)
		return -1;
	for (int i = 0; i < q->n; i++) {
		off[i] = f->text.len;
		memcpy(f->text.p + off[i], p[i], len[i]);
		f->text.p[off[i] + len[i]] = '\0';
		f->text.len += len[i] + 1;
	}
	for (int i = 0; i < q->n; i++)
		*q->dst[i] = f->text.p + off[i];
	return 0;
}

/* Where the record's fields are: found again only for a record of a shape
 * other than the last four (rec_shape: the same tokens, of the same
 * types).
 * The model's are at[T_N], the tokens' at[T_N + 2] (-1 when not an
 * object). */
static const int *
flat_at(struct decision_flat *f, const struct rec_scan *s)
{
	uint64_t shape = rec_shape(s);
	struct decision_at *a;
	int *v;

	for (size_t k = 0; shape != 0 && k < sizeof f->at / sizeof f->at[0]; k++)
		if (f->at[k].shape == shape && f->at[k].by == s)
			return f->at[k].at;
	/* a record not read by a shape is looked at afresh, in the last place */
	a = &f->at[shape == 0 ? 0 : f->next++ % (sizeof f->at / sizeof f->at[0])];
	v = a->at;
	rec_members(s, 0, &f->top, v);
	v[T_N] = v[T_N + 1] = v[T_N + 2] = v[T_N + 3] = v[T_N + 4] = v[T_N + 5] = -1;
	if (rec_type(s, v[T_MODEL]) == REC_OBJECT)
		rec_members(s, v[T_MODEL], &f->model, v + T_N);
	if (rec_type(s, v[T_TOKENS]) == REC_OBJECT)
		rec_members(s, v[T_TOKENS], &f->tokens, v + T_N + 2);
	a->shape = shape;
	a->by = s;
	return v;
}

int
decision_read_flat(struct decision_flat *f, const struct rec_scan *s, struct decision *d)
{
	struct flat_strs q;
	const int *v = flat_at(f, s);

	memset(d, 0, DECISION_CLEAR);
	q.n = 0;
	if (flat_ids(s, v, d, &q) || flat_outcome(s, v, d, &q))
		return 1;
	if (flat_copy(f, s, &q) < 0)
		return -1;
	if (decision_cond_parse(d->condition, &d->cond) < 0 || ts_parse(d->ts_text, &d->ts) < 0)
		return 1;
	return 0;
}

static int
in_moves(const struct chess_move *ms, size_t n, struct chess_move m)
{
	for (size_t i = 0; i < n; i++)
		if (chess_move_same(ms[i], m))
			return 1;
	return 0;
}

/* The moves mv[0..nmv), each legal (in p) and given once. */
static int
read_moves(const struct cand_position *p, const char *const *mv, size_t nmv,
    struct chess_move *out, size_t *n, const char **why)
{
	*n = 0;
	for (size_t i = 0; i < nmv; i++) {
		if (cand_legal_move(p, mv[i], &out[*n]) < 0)
			return *why = "a move shown or proposed is not legal in the position", 1;
		if (in_moves(out, *n, out[*n]))
			return *why = "a move is shown or proposed twice", 1;
		(*n)++;
	}
	return 0;
}

/* The condition's set: the candidates [lo, hi) of p. */
static int
same_set(const struct decision_moves *m, const struct cand_position *p, size_t lo, size_t hi)
{
	if (hi > p->ncand)
		hi = p->ncand;
	if (lo > hi || m->nshown != hi - lo)
		return 0;
	for (size_t i = lo; i < hi; i++)
		if (!in_moves(m->shown, m->nshown, p->cand[i].m))
			return 0;
	return 1;
}

static int
shown_ok(const struct decision *d, const struct decision_moves *m, const struct cand_position *p)
{
	switch (d->cond.kind) {
	case DK_TOP:
		return same_set(m, p, 0, (size_t)d->cond.k);
	case DK_OMIT_BEST:
		return same_set(m, p, 1, (size_t)d->cond.k + 1);
	default:
		return m->nshown == 0;
	}
}

int
decision_check(const struct decision *d, const struct cand_position *p, struct decision_moves *m,
    const char **why)
{
	memset(m, 0, offsetof(struct decision_moves, shown));
	if (read_moves(p, d->shown, d->nshown, m->shown, &m->nshown, why) != 0 ||
	    (d->has_proposed &&
	        read_moves(p, d->proposed, d->nproposed, m->proposed, &m->nproposed, why) != 0))
		return 1;
	if (!shown_ok(d, m, p))
		return *why = "the shown set is not its condition's set", 1;
	if ((d->cond.kind == DK_PROPOSE || d->cond.kind == DK_ENGINE_SELECTS) && m->nproposed == 0)
		return *why = "the condition asks for a proposed shortlist, and none is given", 1;
	if (d->chosen != NULL) {
		if (cand_legal_move(p, d->chosen, &m->chosen) < 0)
			return *why = "the chosen move is not legal in the position", 1;
		m->have_chosen = 1;
	}
	if (d->status == DS_OK && !m->have_chosen)
		return *why = "an ok decision without a chosen move", 1;
	if (d->status == DS_OK && m->nshown > 0 && !in_moves(m->shown, m->nshown, m->chosen))
		return *why = "an ok decision chose a move outside the shown shortlist", 1;
	if (d->status == DS_OK && d->cond.kind == DK_ENGINE_SELECTS &&
	    !in_moves(m->proposed, m->nproposed, m->chosen))
		return *why = "an ok engine-selects decision chose a move outside the proposed shortlist", 1;
	return 0;
}
