/* manifest.c: the manifest derived from the summaries: blocks,
 * conditions and their ladder states, totals, and every entry, written as
 * canonical bytes without a tree. */
#define _GNU_SOURCE /* memmem */
#include "internal.h"


#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"
#include "../common/io.h"
#include "../common/mem.h"
#include "../common/pool.h"
#include "../common/ts.h"
#include "../protocol/ladder.h"
#include "../protocol/openings.h"
#include "../protocol/prereg.h"
#include "../protocol/spec.h"
#include "../store/cas.h"
#include "../json/json.h"
#include "../protocol/ledger.h"
#include "../json/rec.h"



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
			    k < 4 ? freeze_token_names[k] : "total", TOKENS_MAX);
			return NULL;
		}
	t = cJSON_CreateObject();
	if (t == NULL)
		goto bad;
	for (int k = 0; k < 4; k++)
		if (!cJSON_AddItemToObjectCS(t, freeze_token_names[k], cJSON_CreateNumber((double)tok[k])))
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

/* The conditions' and families' canonical strings, escaped once for every
 * entry: condition c is string c, family f string nconds + f. */
struct cstrs {
	struct buf b;
	size_t *off; /* nconds + nfamilies + 1 offsets into b */
	size_t nconds;
};

static int
cstrs_init(struct cstrs *cs, const struct freeze_acc *a, struct err *e)
{
	size_t n = a->sp.nconds + a->sp.nfamilies;

	cs->nconds = a->sp.nconds;
	cs->off = malloc((n + 1) * sizeof *cs->off);
	if (cs->off == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t c = 0; c < n; c++) {
		cs->off[c] = cs->b.len;
		if (canon_string(c < a->sp.nconds ? a->sp.conds[c] : a->sp.families[c - a->sp.nconds],
		    &cs->b, e) < 0)
			return -1;
	}
	cs->off[n] = cs->b.len;
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

/* The index of family f's string. */
static int
fam_str(const struct cstrs *cs, int f)
{
	return (int)cs->nconds + f;
}

/* Bytes of an included entry's "opening" and "pair" at most. */
static size_t
pairing_bound(const struct freeze_item *g)
{
	return (g->opening ? 6 * strlen(g->opening) + 14 : 0) +
	    (g->pair ? 6 * strlen(g->pair) + 11 : 0);
}

/* Bytes of g's entry in "games" or "excluded", with its comma; exact but
 * for escapes in game_id. */
static size_t
entry_bound(const struct cstrs *cs, const struct freeze_item *g)
{
	size_t n = g->idlen + 2;

	if (g->reason != X_NONE)
		return n + 118;
	return n + 168 + num_bound(g->anchor) + num_bound(g->block) + cstr_len(cs, g->cond) +
	    cstr_len(cs, fam_str(cs, g->fam)) + pairing_bound(g);
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
 * family, game_id, id, result}; in "excluded" {game_id, id, reason}.  A million of
 * them: all but game_id is written in place, in room made beforehand. */
static int
game_entry(const struct cstrs *cs, const struct freeze_item *g, int comma, struct buf *out,
    struct err *e)
{
	static const uint8_t result_len[] = { 3, 4, 4 };
	size_t need = 256 + g->idlen + (g->reason == X_NONE ? cstr_len(cs, g->cond) +
	    cstr_len(cs, fam_str(cs, g->fam)) : 0);
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
		p = PUT_AT(p, ",\"family\":");
		p = put_at(p, cs->b.p + cs->off[fam_str(cs, g->fam)], cstr_len(cs, fam_str(cs, g->fam)));
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
	if (g->reason == X_NONE && (g->opening != NULL || g->pair != NULL)) {
		/* "opening" and "pair" (after "id", before "result") */
		p = PUT_AT(p, "\"");
		out->len = (size_t)(p - out->p);
		if ((g->opening != NULL && (PUT(out, ",\"opening\":") < 0 ||
		    canon_string(g->opening, out, e) < 0)) ||
		    (g->pair != NULL && (PUT(out, ",\"pair\":") < 0 ||
		    canon_string(g->pair, out, e) < 0)))
			return e->code ? -1 : err_set(e, ERR_NOMEM, "out of memory");
		if (buf_grow(out, 128) < 0)
			goto nomem;
		p = out->p + out->len;
		p = PUT_AT(p, ",\"result\":\"");
		p = put_at(p, freeze_result_names[g->result], result_len[g->result]);
	} else if (g->reason == X_NONE) {
		p = PUT_AT(p, "\",\"result\":\"");
		p = put_at(p, freeze_result_names[g->result], result_len[g->result]);
	} else {
		p = PUT_AT(p, "\",\"reason\":\"");
		p = put_at(p, freeze_reason_names[g->reason], strlen(freeze_reason_names[g->reason]));
	}
	p = PUT_AT(p, "\"}");
	*p = '\0';
	out->len = (size_t)(p - out->p);
	return 0;
nomem:
	return err_set(e, ERR_NOMEM, "out of memory");
}

/* One (family, condition, block, color) entry of "blocks"; g is its first
 * game. */
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
	    PUT(out, ",\"family\":") < 0 || put_cond(out, cs, fam_str(cs, g->fam)) < 0 ||
	    PUT(out, ",\"games\":") < 0 || put_num(out, (double)n) < 0 ||
	    PUT(out, ",\"l\":") < 0 || put_num(out, (double)l) < 0 ||
	    PUT(out, ",\"w\":") < 0 || put_num(out, (double)w) < 0 ||
	    PUT(out, "}") < 0 ? -1 : 0;
}

/* The (block, color) groups of unit u from inc[*i] on, *i left past them:
 * each an entry of blocks (comma-separated), its games summed into s, its
 * block into lb for the ladder's replay and its anchor into anch. */
static int
unit_blocks(const struct freeze_acc *a, const struct cstrs *cs, struct freeze_item **inc,
    size_t ninc, size_t *i, size_t u, struct ladder_block *lb, size_t *nlb, double *anch,
    size_t *nanch, struct sums *s, struct buf *blocks, struct err *e)
{
	size_t c = u % a->sp.nconds, f = u / a->sp.nconds;
	int lastblock = -1;
	char wh[512];

	while (*i < ninc && freeze_unit(a, inc[*i]) == (int)u) {
		struct freeze_item *g = inc[*i];
		size_t j = *i;
		long long w = 0, d = 0, l = 0;
		/* one (block, color) group */
		while (j < ninc && freeze_unit(a, inc[j]) == (int)u && inc[j]->block == g->block &&
		    inc[j]->color == g->color) {
			if (j + AHEAD < ninc)
				__builtin_prefetch(inc[j + AHEAD]);
			if (inc[j]->anchor != g->anchor)
				return err_set(e, ERR_INPUT, "%s: \"anchor\": block %d of %s %s "
				    "was played at %g and at %g", freeze_where(inc[j], wh, sizeof wh),
				    g->block, a->sp.families[f], a->sp.conds[c], g->anchor,
				    inc[j]->anchor);
			w += inc[j]->result == R_WIN;
			d += inc[j]->result == R_DRAW;
			l += inc[j]->result == R_LOSS;
			sums_add(s, inc[j]);
			j++;
		}
		if ((blocks->len > 0 && PUT(blocks, ",") < 0) ||
		    block_entry(cs, g, (long long)(j - *i), w, d, l, blocks) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		if (g->block == lastblock) {
			if (lb[*nlb - 1].anchor != g->anchor)
				return err_set(e, ERR_INPUT, "%s: \"anchor\": block %d of %s %s "
				    "was played at two anchors", freeze_where(g, wh, sizeof wh),
				    g->block, a->sp.families[f], a->sp.conds[c]);
			lb[*nlb - 1].w += (int)w;
			lb[*nlb - 1].d += (int)d;
			lb[*nlb - 1].l += (int)l;
		} else {
			lb[*nlb].anchor = g->anchor;
			lb[*nlb].w = (int)w;
			lb[*nlb].d = (int)d;
			lb[*nlb].l = (int)l;
			(*nlb)++;
			lastblock = g->block;
		}
		anch[(*nanch)++] = g->anchor;
		*i = j;
	}
	return 0;
}

/* The "conditions" entry of condition c of family f: its ladder state ls
 * after nlb blocks, its sums s and its nanch anchors (sorted here). */
static cJSON *
condition_json(const struct freeze_acc *a, size_t c, size_t f, const struct ladder_state *ls,
    const struct sums *s, double *anch, size_t nanch, size_t nlb, struct err *e)
{
	cJSON *co = cJSON_CreateObject(), *arr, *devs, *lo;
	char what[240];

	if (co == NULL)
		goto nomem;
	ADD(co, "condition", cJSON_CreateString(a->sp.conds[c]));
	ADD(co, "family", cJSON_CreateString(a->sp.families[f]));
	ADD(co, "state", cJSON_CreateString(ls->stopped ? "terminal" : "active"));
	snprintf(what, sizeof what, "condition %.100s of family %.100s", a->sp.conds[c],
	    a->sp.families[f]);
	if (add_sums(co, s, what, e) < 0) {
		cJSON_Delete(co);
		return NULL;
	}
	qsort(anch, nanch, sizeof *anch, cmp_double);
	arr = cJSON_CreateArray();
	ADD(co, "anchors", arr);
	for (size_t k = 0; k < nanch; k++)
		if (k == 0 || anch[k] != anch[k - 1])
			PUSH(arr, cJSON_CreateNumber(anch[k]));
	ADD(co, "blocks", cJSON_CreateNumber((double)nlb));
	lo = cJSON_CreateObject();
	ADD(co, "ladder", lo);
	ADD(lo, "rule", cJSON_CreateString(ladder_rule_name(ls->rule)));
	ADD(lo, "next", ls->stopped ? cJSON_CreateNull() : cJSON_CreateNumber(ls->next));
	ADD(lo, "last_score", isnan(ls->score) ? cJSON_CreateNull() :
	    cJSON_CreateNumber(json_round(ls->score, 1e-6)));
	devs = cJSON_CreateArray();
	ADD(co, "deviations", devs);
	for (size_t k = 0; k < ls->ndev; k++) {
		cJSON *dv = cJSON_CreateObject();
		PUSH(devs, dv);
		ADD(dv, "block", cJSON_CreateNumber((double)ls->dev[k].block));
		ADD(dv, "anchor", cJSON_CreateNumber(ls->dev[k].anchor));
		ADD(dv, "expected", isnan(ls->dev[k].expected) ? cJSON_CreateNull() :
		    cJSON_CreateNumber(ls->dev[k].expected));
		ADD(dv, "why", cJSON_CreateString(ls->dev[k].why));
	}
	return co;
nomem:
	cJSON_Delete(co);
	err_set(e, ERR_NOMEM, "out of memory");
	return NULL;
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

	for (size_t u = 0; u < a->sp.nfamilies * a->sp.nconds; u++) {
		size_t c = u % a->sp.nconds, f = u / a->sp.nconds;
		struct ladder_block *lb = NULL;
		size_t nlb = 0, nanch = 0;
		double *anch = NULL;
		struct sums s = { 0 };
		struct ladder_state ls = LADDER_STATE_INIT;
		cJSON *co = NULL;

		lb = malloc((ninc + 1) * sizeof *lb);
		anch = malloc((ninc + 1) * sizeof *anch);
		if (lb == NULL || anch == NULL)
			rc = err_set(e, ERR_NOMEM, "out of memory");
		else if (unit_blocks(a, cs, inc, ninc, &i, u, lb, &nlb, anch, &nanch, &s, blocks,
		    e) < 0 ||
		    ladder_replay(&a->sp.ladder, lb, nlb, &ls, e) < 0 ||
		    (co = condition_json(a, c, f, &ls, &s, anch, nanch, nlb, e)) == NULL)
			rc = -1;
		else if (u > 0 && PUT(conds, ",") < 0)
			rc = err_set(e, ERR_NOMEM, "out of memory");
		else if (canon_write(co, conds, e) < 0)
			rc = -1;
		cJSON_Delete(co);
		ladder_state_release(&ls);
		free(lb);
		free(anch);
		if (rc < 0)
			return rc;
	}
	return 0;
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

static void
entries_thread(void *arg)
{
	struct entries *w = arg;
	struct dest *d = w->to.k->expect != NULL ? &w->to : NULL;

	w->rc = write_entries(w->cs, w->games, w->lo, w->n, 1, &w->b, d, &w->m, &w->err);
	if (w->rc == 0 && d != NULL && flush(d, &w->b, 1) < 0)
		w->rc = -2;
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

/* A followed prereg's "deviations" array, the games' and then the
 * decisions', as canonical bytes into out. */
static int
deviations_bytes(struct freeze_acc *a, struct freeze_item *const *ord, struct buf *out,
    struct err *e)
{
	cJSON *arr = cJSON_CreateArray(), *d;
	int rc = -1;

	if (arr == NULL || freeze_devs_games(a, ord, a->n, arr) < 0)
		goto nomem;
	cJSON_ArrayForEach(d, a->dec_devs) {
		cJSON *c = cJSON_Duplicate(d, 1);
		if (c == NULL || !cJSON_AddItemToArray(arr, c)) {
			cJSON_Delete(c);
			goto nomem;
		}
	}
	rc = canon_write(arr, out, e);
	cJSON_Delete(a->devs_out);
	a->devs_out = arr; /* for freeze_build to report */
	return rc;
nomem:
	cJSON_Delete(arr);
	return err_set(e, ERR_NOMEM, "out of memory");
}

/* Many games, streamed: the entries of the later ones are written on a
 * thread of their own while this one derives the blocks and conditions
 * and writes the earlier ones; they follow those.  (With no second
 * thread they are written where it is joined.  Into a buffer made
 * ready for the whole, as freeze_acc_write does, the second thread's
 * bytes would be copied once more and cost more than they save.)
 * 1 when the thread runs, 0 when not, -1 when out of memory. */
static int
later_start(struct entries *later, struct pool_thread *th, const struct cstrs *cs,
    struct freeze_item **ord, size_t n, const struct freeze_sink *k, const struct buf *reserve,
    struct err *e)
{
	size_t lo;

	*later = (struct entries){ cs, ord, n, n, BUF_INIT, { k, 0, 0, 1, 0 }, 0, ERR_INIT, 0 };
	if (n < ENTRIES_SPLIT || reserve != NULL)
		return 0;
	lo = n * 3 / 10;
	while (lo < n && ord[lo]->reason != X_NONE)
		lo++;
	/* room for them all at once, unless they are compared as they
	 * come: entries of one ledger are alike */
	if (lo < n && k->expect == NULL &&
	    buf_grow(&later->b, (n - lo) * (entry_bound(cs, ord[lo]) + 8)) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	later->lo = lo;
	later->to.hint = k->nexpect / n * lo;
	if (lo >= n)
		return 0;
	pool_spawn(th, entries_thread, later);
	return 1;
}

/* The included games of ord into inc (*ninc of them, summed into all),
 * the others counted in *nexcl; with room, every entry's bound added to
 * it (a million ids' lengths: only when asked). */
static void
split_included(struct freeze_item **ord, size_t n, const struct cstrs *cs, struct freeze_item **inc,
    size_t *ninc, size_t *nexcl, struct sums *all, size_t *room)
{
	for (size_t i = 0; i < n; i++) {
		struct freeze_item *g = ord[i];
		if (i + AHEAD < n)
			__builtin_prefetch(ord[i + AHEAD]);
		if (room != NULL)
			*room += entry_bound(cs, g);
		if (g->reason == X_NONE) {
			inc[(*ninc)++] = g;
			sums_add(all, g);
		} else {
			(*nexcl)++;
		}
	}
}

/* The manifest's first bytes, up to its "blocks" array opened. */
static int
head_bytes(const struct freeze_acc *a, struct buf *head, struct err *e)
{
	if (PUT(head, "{\"as_of\":") < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (canon_string(json_get(a->spec, "as_of")->valuestring, head, e) < 0)
		return -1;
	if (PUT(head, ",\"blocks\":[") < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

/* The game whose game_id is id among ord's n games (in game_id order),
 * or NULL. */
static const struct freeze_item *
find_game(struct freeze_item *const *ord, size_t n, const char *id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(id, ord[mid]->game_id);
		if (c == 0)
			return ord[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* Why the pair of included game g is broken, into why; "" when it is
 * whole: its partner is an included game of the same family and
 * condition that names g back, played with the other colour against the
 * same anchor from the same opening. */
static void
pair_why(const struct freeze_acc *a, struct freeze_item *const *ord, size_t n,
    const struct freeze_item *g, char *why, size_t cap)
{
	static const char *const colors[] = { "white", "black" };
	const struct freeze_item *q = find_game(ord, n, g->pair);

	why[0] = '\0';
	if (q == NULL)
		snprintf(why, cap, "its pair is in no ledger");
	else if (q->reason != X_NONE)
		snprintf(why, cap, "its pair was excluded (%s)", freeze_reason_names[q->reason]);
	else if (q->pair == NULL)
		snprintf(why, cap, "its pair names no pair");
	else if (strcmp(q->pair, g->game_id) != 0)
		snprintf(why, cap, "its pair names another game, \"%.100s\"", q->pair);
	else if (q->fam != g->fam || q->cond != g->cond)
		snprintf(why, cap, "its pair is of family %.100s, condition %.100s",
		    a->sp.families[q->fam], a->sp.conds[q->cond]);
	else if (q->color == g->color)
		snprintf(why, cap, "both games have the model play %s", colors[g->color]);
	else if (q->anchor != g->anchor)
		snprintf(why, cap, "its pair was played against anchor %g, this game against %g",
		    q->anchor, g->anchor);
	else if (strcmp(q->opening, g->opening) != 0)
		snprintf(why, cap, "its pair started from opening \"%.100s\", this game from "
		    "\"%.100s\"", q->opening, g->opening);
}

/* The manifest's "pairs" section {broken, games, pairs, suite} as
 * canonical bytes into out, when the spec names an opening suite or an
 * included game names a pair (nothing otherwise); its broken pairs kept
 * in a->broken_out for freeze_build to report. */
static int
pairs_bytes(struct freeze_acc *a, struct freeze_item *const *ord, size_t n, struct buf *out,
    struct err *e)
{
	cJSON *sec = NULL, *broken = cJSON_CreateArray();
	size_t named = 0, whole = 0;
	char why[400];
	int rc = -1;

	if (broken == NULL)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		const struct freeze_item *g = ord[i];
		if (g->reason != X_NONE || g->pair == NULL)
			continue;
		named++;
		pair_why(a, ord, n, g, why, sizeof why);
		if (why[0] == '\0') {
			whole += strcmp(g->game_id, g->pair) < 0;
			continue;
		}
		cJSON *b = cJSON_CreateObject();
		if (b == NULL || !cJSON_AddItemToArray(broken, b)) {
			cJSON_Delete(b);
			goto nomem;
		}
		if (!json_add_string(b, "game_id", g->game_id) || !json_add_string(b, "pair", g->pair) ||
		    !json_add_string(b, "why", why))
			goto nomem;
	}
	cJSON_Delete(a->broken_out);
	a->broken_out = NULL;
	if (a->suite == NULL && named == 0) {
		cJSON_Delete(broken);
		return 0;
	}
	if ((sec = cJSON_CreateObject()) == NULL || !cJSON_AddItemToObjectCS(sec, "broken", broken)) {
		cJSON_Delete(sec);
		sec = NULL;
		goto nomem;
	}
	if (!json_add_number(sec, "games", (double)named) ||
	    !json_add_number(sec, "pairs", (double)whole) ||
	    !(a->suite ? json_add_string(sec, "suite", a->suite->id) : json_add_null(sec, "suite")))
		goto nomem_sec;
	if (canon_write(sec, out, e) < 0)
		goto done_sec;
	a->broken_out = cJSON_DetachItemFromObjectCaseSensitive(sec, "broken");
	rc = 0;
	goto done_sec;
nomem:
	cJSON_Delete(broken);
	return err_set(e, ERR_NOMEM, "out of memory");
nomem_sec:
	err_set(e, ERR_NOMEM, "out of memory");
done_sec:
	cJSON_Delete(sec);
	return rc;
}

long
freeze_pairs_broken_each(const struct freeze_acc *a,
    void (*fn)(void *ctx, const char *game_id, const char *pair, const char *why), void *ctx)
{
	const cJSON *b;
	long n = 0;

	cJSON_ArrayForEach(b, a->broken_out) {
		if (fn != NULL)
			fn(ctx, json_get(b, "game_id")->valuestring, json_get(b, "pair")->valuestring,
			    json_get(b, "why")->valuestring);
		n++;
	}
	return n;
}

/* The manifest's last bytes, from the "games" array's close on: kind,
 * pairs, prereg, repo, spec, spec_id and totals; with a prereg followed,
 * its deviations into devs (written before the entries). */
static int
tail_bytes(struct freeze_acc *a, struct freeze_item *const *ord, const cJSON *repo,
    const struct buf *spec, const char *sid, const struct sums *all, size_t nexcl,
    const struct buf *pairs, struct buf *tail, struct buf *devs, struct err *e)
{
	cJSON *tot = cJSON_CreateObject();
	int rc = -1;

	if (tot == NULL)
		goto nomem;
	if (add_sums(tot, all, "totals", e) < 0)
		goto done;
	if (json_add_number(tot, "excluded", (double)nexcl) == NULL)
		goto nomem;
	if (PUT(tail, "],\"kind\":\"cohort.freeze/1\"") < 0)
		goto nomem;
	if (pairs->len > 0 && (PUT(tail, ",\"pairs\":") < 0 ||
	    buf_add(tail, pairs->p, pairs->len) < 0))
		goto nomem;
	if (a->prereg != NULL && deviations_bytes(a, ord, devs, e) < 0)
		goto done;
	if (a->prereg != NULL && (PUT(tail, ",\"prereg\":\"") < 0 ||
	    buf_add(tail, a->prereg->id, strlen(a->prereg->id)) < 0 ||
	    PUT(tail, "\",\"preregistration\":") < 0 ||
	    buf_add(tail, a->prereg_doc.p, a->prereg_doc.len) < 0))
		goto nomem;
	if (repo != NULL) {
		if (PUT(tail, ",\"repo\":") < 0)
			goto nomem;
		if (canon_write(repo, tail, e) < 0)
			goto done;
	}
	if (PUT(tail, ",\"spec\":") < 0 || buf_add(tail, spec->p, spec->len) < 0 ||
	    PUT(tail, ",\"spec_id\":\"") < 0 || buf_add(tail, sid, HASH_ID_LEN) < 0 ||
	    PUT(tail, "\",\"totals\":") < 0)
		goto nomem;
	if (canon_write(tot, tail, e) < 0)
		goto done;
	if (PUT(tail, "}") < 0)
		goto nomem;
	rc = 0;
	goto done;
nomem:
	err_set(e, ERR_NOMEM, "out of memory");
done:
	cJSON_Delete(tot);
	return rc;
}

/* dest_take as a freeze_put_fn. */
static int
dest_put(void *d, const char *p, size_t n)
{
	return dest_take(d, p, n);
}

/* Everything before the entries into out: head, blocks, conditions,
 * decisions and deviations, up to the "excluded" array opened; the
 * decisions section handed on to d from where its entries lie, after what
 * out held (copied into out, a million decisions' 200 MB were fresh
 * memory twice over).  0, -1 (e says why) or -2 (the sink did not take
 * them). */
static int
front_bytes(const struct freeze_acc *a, const struct buf *head, const struct buf *blocks,
    const struct buf *conds, const struct buf *devs, struct buf *out, struct dest *d,
    struct err *e)
{
	if (buf_add(out, head->p, head->len) < 0 || buf_add(out, blocks->p, blocks->len) < 0 ||
	    PUT(out, "],\"conditions\":[") < 0 || buf_add(out, conds->p, conds->len) < 0 ||
	    PUT(out, "]") < 0)
		goto nomem;
	if (freeze_dec_ready(a->dec) && PUT(out, ",\"decisions\":") < 0)
		goto nomem;
	if (freeze_dec_ready(a->dec) &&
	    (flush(d, out, 1) < 0 || freeze_dec_put(a->dec, dest_put, d) != 0))
		return -2;
	if (a->prereg != NULL && (PUT(out, ",\"deviations\":") < 0 ||
	    buf_add(out, devs->p, devs->len) < 0))
		goto nomem;
	if (PUT(out, ",\"excluded\":[") < 0)
		goto nomem;
	return 0;
nomem:
	return err_set(e, ERR_NOMEM, "out of memory");
}

/* The later entries' thread joined and its bytes handed on after the n
 * earlier ones in out.  0, -1 (e says why) or -2 (the sink did not take
 * them). */
static int
later_join(struct pool_thread *th, struct entries *later, size_t n, struct buf *out,
    struct dest *to, struct err *e)
{
	const struct freeze_sink *k = to->k;

	pool_join(th);
	if (later->rc == -2)
		return -2;
	if (later->rc < 0) {
		*e = later->err;
		return -1;
	}
	if (n > 0 && later->m > 0 && PUT(out, ",") < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (flush(to, out, 1) < 0)
		return -2;
	if (k->expect != NULL) {
		/* compared already: it must begin just where this part ends */
		if (later->to.find || later->to.start != to->at)
			return -2;
		to->at = later->to.at;
	}
	for (size_t at = 0; at < later->b.len; at += (size_t)1 << 20) {
		size_t m = later->b.len - at < ((size_t)1 << 20) ? later->b.len - at : (size_t)1 << 20;
		if (dest_take(to, later->b.p + at, m) < 0)
			return -2;
	}
	return 0;
}

/* The "excluded" entries, then the "games" ones: the earlier ones here,
 * the later ones from their thread when it runs.  0, -1 (e says why) or
 * -2 (the sink did not take them). */
static int
entries_bytes(const struct cstrs *cs, struct freeze_item *const *ord, size_t n, size_t nexcl,
    struct entries *later, struct pool_thread *th, int threaded, struct buf *out,
    struct dest *to, struct err *e)
{
	size_t m;
	int wr = write_entries(cs, ord, 0, nexcl > 0 ? n : 0, 0, out, to, &m, e);

	if (wr == 0 && PUT(out, "],\"games\":[") < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (wr == 0)
		wr = write_entries(cs, ord, 0, later->lo, 1, out, to, &m, e);
	if (wr == 0 && threaded)
		wr = later_join(th, later, m, out, to, e);
	return wr;
}

int
freeze_acc_stream(struct freeze_acc *a, const cJSON *repo, const struct freeze_sink *k,
    struct buf *reserve, struct err *e)
{
	struct freeze_item **inc = NULL, **ord;
	struct sums all = { 0 };
	struct cstrs cs = { BUF_INIT, NULL, 0 };
	struct buf spec = BUF_INIT, head = BUF_INIT, blocks = BUF_INIT, conds = BUF_INIT;
	struct buf tail = BUF_INIT, devs = BUF_INIT, pairs = BUF_INIT;
	struct buf wb = BUF_INIT, *out = &wb;
	struct entries later = { 0 };
	struct dest to = { k, 0, 0, 0, 0 };
	struct pool_thread th = POOL_THREAD_INIT;
	int threaded = 0;
	size_t ninc = 0, nexcl = 0, room = 0;
	uint8_t sd[HASH_LEN];
	char sid[HASH_ID_LEN + 1];
	int rc = -1, wr;

	if (freeze_games_in_order(a, &ord, e) < 0)
		return -1;
	/* "spec" and "spec_id" from one canonical writing of the spec */
	if (canon_write(a->spec, &spec, e) < 0)
		goto done;
	hash_bytes(spec.p ? spec.p : "", spec.len, sd);
	hash_id_format(sd, sid);
	if (cstrs_init(&cs, a, e) < 0)
		goto done;
	if ((threaded = later_start(&later, &th, &cs, ord, a->n, k, reserve, e)) < 0)
		goto done;
	inc = malloc((a->n + 1) * sizeof *inc);
	if (inc == NULL)
		goto nomem;
	split_included(ord, a->n, &cs, inc, &ninc, &nexcl, &all, reserve != NULL ? &room : NULL);
	if (freeze_block_order(a, inc, ninc, e) < 0)
		goto done;
	if (derive_blocks(a, &cs, inc, ninc, &blocks, &conds, e) < 0 ||
	    head_bytes(a, &head, e) < 0 || pairs_bytes(a, ord, a->n, &pairs, e) < 0 ||
	    tail_bytes(a, ord, repo, &spec, sid, &all, nexcl, &pairs, &tail, &devs, e) < 0)
		goto done;
	room += head.len + blocks.len + conds.len + tail.len + devs.len + 80;
	if (reserve != NULL)
		room += freeze_dec_len(a->dec);
	if ((reserve != NULL && buf_grow(reserve, room) < 0) || buf_grow(out, (size_t)2 << 20) < 0)
		goto nomem;
	if ((wr = front_bytes(a, &head, &blocks, &conds, &devs, out, &to, e)) == -2)
		goto sunk;
	if (wr < 0)
		goto done;
	wr = entries_bytes(&cs, ord, a->n, nexcl, &later, &th, threaded, out, &to, e);
	if (wr == -2)
		goto sunk;
	if (wr < 0)
		goto done;
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
	pool_join(&th);
	buf_release(&later.b);
	buf_release(&wb);
	free(inc);
	free(ord);
	free(cs.off);
	buf_release(&cs.b);
	buf_release(&spec);
	buf_release(&head);
	buf_release(&blocks);
	buf_release(&conds);
	buf_release(&tail);
	buf_release(&devs);
	buf_release(&pairs);
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

