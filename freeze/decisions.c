/* decisions.c: the decision records of a freeze: each validated and
 * checked against the candidate manifest, stored canonical beside the
 * games, and listed in the manifest's "decisions" section by identity.
 * A freeze and its re-derivation from the store are this same code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "../json/json.h"
#include "../json/rec.h"
#include "../protocol/decision.h"
#include "../protocol/ledger.h"
#include "../protocol/prereg.h"
#include "freeze.h"
#include "internal.h"

enum { D_NONE, D_FAMILY, D_AFTER_CUT, D_PROVIDER_ERROR, D_INVALID };
static const char *const dreason[] = { "", "family", "after_cut", "provider_error", "invalid" };

struct dcell {
	char *key;     /* as fill wrote it */
	size_t len;
	long count;    /* its decisions */
	/* its entries' bytes around the decision's own: before the
	 * decision_id, between it and the identity, after the position */
	size_t pre, mid, post; /* offsets in the freeze_dec's cell text */
};

struct freeze_dec {
	const struct spec *sp;
	const struct candidates *cand;
	const struct prereg *prereg; /* followed, or NULL */
	struct freeze_ditem *it;
	struct freeze_dpre *pre; /* beside it, when a prereg is followed */
	size_t n, cap, pcap;
	/* the section, once freeze_dec_section made it: the items in
	 * decision_id order, the bytes before and after the entries, and the
	 * length of the whole */
	struct freeze_ditem **v;
	struct buf head, tail;
	/* the included decisions' cells (freeze_dec_append), a table of
	 * their indexes, and their and the positions' entry texts */
	struct dcell *cells;
	size_t ncells, ccap;
	size_t *table, tcap;
	struct buf ctext, ptext;
	size_t *poff;
	struct freeze_ids *ids; /* the decision_ids */
};

static void
pre_clear(struct freeze_dpre *p)
{
	free(p->early);
	free(p->seeds);
	memset(p, 0, sizeof *p);
}

struct freeze_dec *
freeze_dec_new(const struct spec *sp, const struct candidates *cand, struct err *e)
{
	struct freeze_dec *x = calloc(1, sizeof *x);

	if (x == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (cand->n >= INT32_MAX) {
		free(x);
		err_set(e, ERR_INPUT, "more than 2^31 positions in the candidate manifest");
		return NULL;
	}
	x->sp = sp;
	x->cand = cand;
	if ((x->ids = freeze_ids_new()) == NULL) {
		free(x);
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	return x;
}

void
freeze_dec_free(struct freeze_dec *x)
{
	if (x == NULL)
		return;
	/* an item owns memory only when a prereg is followed (early, seeds):
	 * a million items are not walked through for nothing */
	for (size_t i = 0; x->pre != NULL && i < x->n; i++)
		pre_clear(&x->pre[i]);
	free(x->pre);
	free(x->it);
	free(x->v);
	buf_release(&x->head);
	buf_release(&x->tail);
	for (size_t i = 0; i < x->ncells; i++)
		free(x->cells[i].key);
	free(x->cells);
	free(x->table);
	buf_release(&x->ctext);
	buf_release(&x->ptext);
	free(x->poff);
	freeze_ids_free(x->ids);
	free(x);
}

void
freeze_dec_set_prereg(struct freeze_dec *x, const struct prereg *p)
{
	x->prereg = p;
}

/* Why a decision is left out, or D_NONE; checks d against its position
 * (*p, or NULL when the manifest has none). */
static int
classify(const struct freeze_dec *x, const struct decision *d, const struct cand_position **p,
    const char **why)
{
	struct decision_moves m;

	*p = cand_find(x->cand, d->position_id);
	if (spec_family(x->sp, d->family, strlen(d->family)) < 0)
		return D_FAMILY;
	if (ts_cmp(d->ts, x->sp->as_of) > 0)
		return D_AFTER_CUT;
	if (d->status == DS_PROVIDER_ERROR)
		return D_PROVIDER_ERROR;
	if (*p == NULL)
		return *why = "its position is not in the candidate manifest", D_INVALID;
	if (decision_check(d, *p, &m, why) != 0)
		return D_INVALID;
	return D_NONE;
}

/* s as a canonical JSON string (NULL: null), appended to b.  -1 out of
 * memory (its strings were read as UTF-8: none is refused). */
static int
put_str(struct buf *b, const char *s)
{
	struct err ig = ERR_INIT;

	return s == NULL ? buf_add(b, "null", 4) : canon_string(s, b, &ig);
}

/* A cell's key appended to b: family, replication, condition, budget or
 * "", each NUL-ended, then '1' when the budget is given, else '0'.  -1 out
 * of memory. */
static int
add_key(struct buf *b, const struct decision *d)
{
	const char *part[4] = { d->family, d->replication, d->condition, d->budget ? d->budget : "" };
	size_t len[4], all = 1;
	char *o;

	for (int k = 0; k < 4; k++)
		all += (len[k] = strlen(part[k])) + 1;
	if (buf_grow(b, all) < 0)
		return -1;
	o = b->p + b->len;
	for (int k = 0; k < 4; k++) {
		memcpy(o, part[k], len[k] + 1);
		o += len[k] + 1;
	}
	*o++ = d->budget ? '1' : '0';
	*o = '\0';
	b->len += all;
	return 0;
}

/* Where it was read: "file:line", or for a record from the store its
 * decision_id. */
static const char *
item_where(const struct freeze_ditem *it, char *buf, size_t n)
{
	struct ledger_loc loc = { it->file, it->line, it->sqlite };

	if (it->file == NULL)
		snprintf(buf, n, "decision %.100s", it->decision_id);
	else
		ledger_loc_format(&loc, buf, n);
	return buf;
}

/* What the prereg's deviations need of a decision.  -1 out of memory. */
static int
prereg_facts(const struct freeze_dec *x, const struct decision *d, struct freeze_dprep *p)
{
	struct freeze_dpre *it = &p->pre;
	size_t n;

	it->width = d->cond.kind == DK_NONE ? 0 : d->cond.kind == DK_TOP ? d->cond.k : -1;
	it->order_seed = d->order_seed;
	if (ts_cmp(d->ts, x->prereg->registered) < 0 &&
	    (it->early = strdup(d->ts_text)) == NULL)
		return -1;
	if (p->it.reason != D_NONE || d->cond.kind != DK_TOP || d->cond.k < 2)
		return 0;
	/* one key a cell, context and position; fields apart by US (0x1f) */
	n = (size_t)snprintf(NULL, 0, "%s\x1f%s\x1f%s\x1f%s\x1f%d\x1f%s", d->family, d->replication,
	    d->condition, d->budget ? d->budget : "", d->history, d->position_id) + 1;
	if ((it->seeds = malloc(n)) == NULL)
		return -1;
	snprintf(it->seeds, n, "%s\x1f%s\x1f%s\x1f%s\x1f%d\x1f%s", d->family, d->replication,
	    d->condition, d->budget ? d->budget : "", d->history, d->position_id);
	return 0;
}

void
freeze_dec_item_clear(struct freeze_dprep *it)
{
	pre_clear(&it->pre);
	memset(it, 0, sizeof *it);
}

/* it from dec, whose record's canonical bytes are rec[0..n): their digest,
 * the decision's summary; for an included one its cell's key, then its
 * decision_id, appended to canon (rec may lie in canon: it is read
 * before).  -1 out of memory. */
static int
fill(const struct freeze_dec *x, const struct decision *dec, const struct ledger_loc *loc,
    const char *rec, size_t n, struct buf *canon, struct hash *h, struct freeze_dprep *it,
    struct err *e)
{
	const struct cand_position *p;
	const char *why = NULL;
	size_t start = canon->len;

	/* a thread's own hash: a one-shot digest takes a lock each time */
	if (h == NULL)
		hash_bytes(rec, n, it->it.d);
	else if (hash_digest(h, rec, n, it->it.d) < 0)
		return err_set(e, ERR_NOMEM, "out of memory (hashing)");
	it->canon_len = n;
	it->it.reason = (uint8_t)classify(x, dec, &p, &why);
	it->it.status = (uint8_t)dec->status;
	it->it.why = why;
	it->it.has_budget = dec->budget != NULL;
	it->it.pos = p ? (int32_t)(p - x->cand->p) : -1;
	if (loc != NULL)
		it->it.file = loc->name, it->it.line = loc->line, it->it.sqlite = loc->sqlite != 0;
	if ((it->it.reason == D_NONE && add_key(canon, dec) < 0) ||
	    (x->prereg != NULL && prereg_facts(x, dec, it) < 0)) {
		freeze_dec_item_clear(it);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	it->key_len = canon->len - start;
	/* hashed here, on the worker, while the bytes are at hand */
	it->key_hash = hash_fnv(HASH_FNV_BASIS, canon->p + start, it->key_len);
	it->id_len = strlen(dec->decision_id);
	if (buf_add(canon, dec->decision_id, it->id_len) < 0) {
		freeze_dec_item_clear(it);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	return 0;
}

int
freeze_dec_prepare(const struct freeze_dec *x, const cJSON *rec, const char *where,
    const struct ledger_loc *loc, struct buf *canon, struct freeze_dprep *it, struct err *e)
{
	struct decision dec;
	size_t start = canon->len;

	memset(it, 0, sizeof *it);
	if (decision_read(rec, &dec, e) < 0)
		return err_prefix(e, "%s", where);
	if (canon_write(rec, canon, e) < 0)
		return err_prefix(e, "%s", where);
	return fill(x, &dec, loc, canon->p + start, canon->len - start, canon, NULL, it, e);
}

struct freeze_dec_scratch {
	struct decision_flat f;
	struct hash *h;
};

struct freeze_dec_scratch *
freeze_dec_scratch_new(void)
{
	struct freeze_dec_scratch *w = calloc(1, sizeof *w);

	if (w == NULL)
		return NULL;
	w->h = hash_new();
	if (decision_flat_init(&w->f) < 0 || w->h == NULL) {
		freeze_dec_scratch_free(w);
		return NULL;
	}
	return w;
}

void
freeze_dec_scratch_free(struct freeze_dec_scratch *w)
{
	if (w == NULL)
		return;
	hash_free(w->h);
	decision_flat_release(&w->f);
	free(w);
}

int
freeze_dec_prepare_flat(const struct freeze_dec *x, struct freeze_dec_scratch *w,
    const char *text, size_t n, const struct ledger_loc *loc, struct buf *canon,
    struct freeze_dprep *it, struct err *e)
{
	struct decision dec;
	size_t start = canon->len;
	int as_is, rc = rec_canon(w->f.rs, text, n, canon, &as_is);

	memset(it, 0, sizeof *it);
	if (rc == REC_OK)
		rc = decision_read_flat(&w->f, w->f.rs, &dec);
	if (rc < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (rc != 0) {
		buf_cut(canon, start);
		return 1;
	}
	/* a record canonical as it is stays where it is, not copied */
	if (as_is) {
		it->as_is = text;
		return fill(x, &dec, loc, text, n, canon, w->h, it, e);
	}
	return fill(x, &dec, loc, canon->p + start, canon->len - start, canon, w->h, it, e);
}

/* ---- cells: the included decisions' family, replication, condition
 * and budget, each kept once ---- */

/* The index of the cell with key k[0..n), made when new.  The table is
 * open addressing over indexes plus one (0: an empty slot), kept under
 * half full.  A cohort has a few hundred cells and a million decisions.
 * -1 out of memory. */
static long
cell_of(struct freeze_dec *x, const char *k, size_t n, uint64_t kh)
{
	size_t h;

	if (2 * (x->ncells + 1) > x->tcap) {
		size_t cap = x->tcap ? 2 * x->tcap : 256;
		size_t *t = calloc(cap, sizeof *t);
		if (t == NULL)
			return -1;
		for (size_t i = 0; i < x->ncells; i++) {
			for (h = hash_fnv(HASH_FNV_BASIS, x->cells[i].key, x->cells[i].len) & (cap - 1); t[h];)
				h = (h + 1) & (cap - 1);
			t[h] = i + 1;
		}
		free(x->table);
		x->table = t;
		x->tcap = cap;
	}
	for (h = kh & (x->tcap - 1); x->table[h]; h = (h + 1) & (x->tcap - 1)) {
		const struct dcell *c = &x->cells[x->table[h] - 1];
		if (c->len == n && memcmp(c->key, k, n) == 0)
			return (long)(x->table[h] - 1);
	}
	if (mem_grow((void **)&x->cells, &x->ccap, x->ncells + 1, sizeof *x->cells) < 0)
		return -1;
	struct dcell *c = &x->cells[x->ncells];
	if ((c->key = malloc(n)) == NULL)
		return -1;
	memcpy(c->key, k, n);
	c->len = n;
	c->count = 0;
	x->table[h] = ++x->ncells;
	return (long)(x->ncells - 1);
}

/* Room for one more item, and for its prereg facts when a prereg is
 * followed.  -1 out of memory. */
static int
room(struct freeze_dec *x)
{
	if (mem_grow((void **)&x->it, &x->cap, x->n + 1, sizeof *x->it) < 0)
		return -1;
	return x->prereg == NULL ? 0 : mem_grow((void **)&x->pre, &x->pcap, x->n + 1, sizeof *x->pre);
}

int
freeze_dec_append(struct freeze_dec *x, struct freeze_dprep *it, const char *key,
    struct err *e)
{
	long c = 0;

	if (room(x) < 0) {
		freeze_dec_item_clear(it);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	/* the decision_id kept in blocks of a megabyte: a million of them
	 * made and freed one by one cost more than the sort */
	if ((it->it.reason == D_NONE && (c = cell_of(x, key, it->key_len, it->key_hash)) < 0) ||
	    (it->it.decision_id = freeze_ids_dup(x->ids, key + it->key_len, it->id_len)) == NULL) {
		freeze_dec_item_clear(it);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	if (it->it.reason == D_NONE)
		x->cells[c].count++;
	it->it.cell = (uint32_t)c;
	if (x->pre != NULL)
		x->pre[x->n] = it->pre; /* its strings are x's now */
	x->it[x->n++] = it->it;
	memset(it, 0, sizeof *it);
	return 0;
}

int
freeze_dec_add_text(struct freeze_dec *x, struct freeze_dec_scratch *w, const char *text,
    size_t n, const char *where, struct buf *canon, uint8_t d[HASH_LEN], struct err *e)
{
	struct freeze_dprep it;
	cJSON *rec;
	int rc;

	buf_reset(canon);
	if ((rc = freeze_dec_prepare_flat(x, w, text, n, NULL, canon, &it, e)) > 0) {
		if ((rec = json_parse(text, n, where, 1, e)) == NULL)
			return -1;
		rc = freeze_dec_prepare(x, rec, where, NULL, canon, &it, e);
		cJSON_Delete(rec);
	}
	if (rc < 0)
		return -1;
	const char *as_is = it.as_is;
	size_t at = freeze_dec_key_at(&it);
	memcpy(d, it.it.d, HASH_LEN);
	rc = freeze_dec_append(x, &it, canon->p + at, e);
	/* the key off: canon holds the record's bytes (the text, when it was
	 * canonical as it is) */
	buf_cut(canon, at);
	if (rc == 0 && as_is != NULL && buf_add(canon, as_is, n) < 0)
		rc = err_set(e, ERR_NOMEM, "out of memory");
	return rc;
}


static void
item_key(const void *ctx, size_t i, uint64_t k[3], uint32_t *longer)
{
	const char *id = ((const struct freeze_ditem *)ctx)[i].decision_id;
	size_t n = strnlen(id, 25);

	freeze_id_key(id, n, k);
	*longer = n > 24;
}

static const char *
item_id(const void *ctx, size_t i)
{
	return ((const struct freeze_ditem *)ctx)[i].decision_id;
}

/* x's items in decision_id order, stably, into v[0..n).  -1 when a
 * decision_id repeats (e names both, the later first) or out of memory. */
static int
sort_items(const struct freeze_dec *x, struct freeze_ditem **v, struct err *e)
{
	struct freeze_id_src src = { x->it, x->n, item_key, item_id };
	uint32_t *at;
	size_t dup[2];
	int rc;

	if (x->n > UINT32_MAX)
		return err_set(e, ERR_INPUT, "more than 2^32 decisions");
	if ((at = malloc((x->n + 1) * sizeof *at)) == NULL ||
	    (rc = freeze_id_order(&src, at, dup)) < 0) {
		free(at);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	if (rc > 0) {
		char w1[512], w0[512];
		const struct freeze_ditem *a = &x->it[dup[0]], *b = &x->it[dup[1]];
		err_set(e, ERR_INPUT, "%s: \"decision_id\": \"%.80s\" appears twice (also %s)",
		    item_where(a, w1, sizeof w1), a->decision_id, item_where(b, w0, sizeof w0));
		free(at);
		return -1;
	}
	for (size_t i = 0; i < x->n; i++)
		v[i] = &x->it[at[i]];
	free(at);
	return 0;
}


/* A cell key's four parts. */
static void
key_parts(const char *k, const char *part[4])
{
	for (int i = 0; i < 4; i++) {
		part[i] = k;
		k += strlen(k) + 1;
	}
}

static int
cmp_key(const char *p, const char *q)
{
	/* keys hold NULs: compare the four parts in turn */
	for (int k = 0; k < 4; k++) {
		int c = strcmp(p, q);
		if (c != 0)
			return c;
		p += strlen(p) + 1;
		q += strlen(q) + 1;
	}
	return 0;
}

static int
cmp_cellp(const void *a, const void *b)
{
	return cmp_key((*(const struct dcell *const *)a)->key, (*(const struct dcell *const *)b)->key);
}

/* "cells": one count per family, replication, condition and budget, in
 * that order (a budget of "" and none count as one, written null). */
static int
add_cells(const struct freeze_dec *x, cJSON *sec)
{
	cJSON *arr = cJSON_AddArrayToObject(sec, "cells");
	const struct dcell **c = malloc((x->ncells + 1) * sizeof *c);
	int rc = arr != NULL && c != NULL ? 0 : -1;

	for (size_t i = 0; rc == 0 && i < x->ncells; i++)
		c[i] = &x->cells[i];
	if (rc == 0)
		qsort(c, x->ncells, sizeof *c, cmp_cellp);
	for (size_t i = 0, j; rc == 0 && i < x->ncells; i = j) {
		const char *part[4];
		long count = 0;
		for (j = i; j < x->ncells && cmp_key(c[j]->key, c[i]->key) == 0; j++)
			count += c[j]->count;
		key_parts(c[i]->key, part);
		cJSON *o = cJSON_CreateObject();
		if (o == NULL || !cJSON_AddItemToArray(arr, o) ||
		    !json_add_string(o, "family", part[0]) ||
		    !json_add_string(o, "replication", part[1]) ||
		    !json_add_string(o, "condition", part[2]) ||
		    !(part[3][0] ? json_add_string(o, "budget", part[3]) : json_add_null(o, "budget")) ||
		    !json_add_number(o, "decisions", (double)count))
			rc = -1;
	}
	free(c);
	return rc;
}

/* Each cell's entry bytes around the decision's own, and each position's
 * position_id, canonical, into x's texts: an entry is written from them
 * and the decision alone.  -1 out of memory. */
static int
entry_texts(struct freeze_dec *x)
{
	buf_reset(&x->ctext);
	for (size_t i = 0; i < x->ncells; i++) {
		struct dcell *c = &x->cells[i];
		const char *part[4];
		key_parts(c->key, part);
		int given = c->key[c->len - 1] == '1';
		c->pre = x->ctext.len;
		if (buf_adds(&x->ctext, "{\"budget\":") < 0 || put_str(&x->ctext, given ? part[3] : NULL) < 0 ||
		    buf_adds(&x->ctext, ",\"condition\":") < 0 || put_str(&x->ctext, part[2]) < 0 ||
		    buf_adds(&x->ctext, ",\"decision_id\":") < 0)
			return -1;
		c->mid = x->ctext.len;
		if (buf_adds(&x->ctext, ",\"family\":") < 0 || put_str(&x->ctext, part[0]) < 0 ||
		    buf_adds(&x->ctext, ",\"id\":\"") < 0)
			return -1;
		c->post = x->ctext.len;
		if (buf_adds(&x->ctext, ",\"replication\":") < 0 || put_str(&x->ctext, part[1]) < 0 ||
		    buf_adds(&x->ctext, ",\"status\":") < 0)
			return -1;
	}
	free(x->poff);
	if ((x->poff = malloc((x->cand->n + 1) * sizeof *x->poff)) == NULL)
		return -1;
	buf_reset(&x->ptext);
	for (size_t i = 0; i < x->cand->n; i++) {
		x->poff[i] = x->ptext.len;
		if (put_str(&x->ptext, x->cand->p[i].id) < 0)
			return -1;
	}
	x->poff[x->cand->n] = x->ptext.len;
	return 0;
}

/* A cell's text from off to the next piece's start. */
static int
add_piece(struct buf *b, const struct freeze_dec *x, size_t from, size_t to)
{
	return buf_add(b, x->ctext.p + from, to - from);
}

/* v's entry appended to b.  -1 out of memory. */
static int
entry_write(const struct freeze_dec *x, const struct freeze_ditem *v, struct buf *b)
{
	char id[HASH_ID_LEN + 1];

	hash_id_format(v->d, id);
	if (v->reason != D_NONE)
		return buf_adds(b, "{\"decision_id\":") < 0 || put_str(b, v->decision_id) < 0 ||
		    buf_adds(b, ",\"id\":\"") < 0 || buf_add(b, id, HASH_ID_LEN) < 0 ||
		    buf_adds(b, "\",\"reason\":\"") < 0 || buf_adds(b, dreason[v->reason]) < 0 ||
		    buf_addc(b, '"') < 0 ||
		    (v->why != NULL && (buf_adds(b, ",\"why\":") < 0 || put_str(b, v->why) < 0)) ?
		    -1 : buf_addc(b, '}');
	const struct dcell *c = &x->cells[v->cell];
	size_t end = c + 1 < x->cells + x->ncells ? c[1].pre : x->ctext.len;
	return add_piece(b, x, c->pre, c->mid) < 0 || put_str(b, v->decision_id) < 0 ||
	    add_piece(b, x, c->mid, c->post) < 0 || buf_add(b, id, HASH_ID_LEN) < 0 ||
	    buf_adds(b, "\",\"position_id\":") < 0 ||
	    buf_add(b, x->ptext.p + x->poff[v->pos], x->poff[v->pos + 1] - x->poff[v->pos]) < 0 ||
	    add_piece(b, x, c->post, end) < 0 || put_str(b, decision_status_names[v->status]) < 0 ?
	    -1 : buf_addc(b, '}');
}

/* s's canonical bytes at most: exact for a plain string, six a byte
 * (\u00XX) and the quotes otherwise. */
static size_t
str_bound(const char *s)
{
	size_t n = 0;

	while (canon_plain[(unsigned char)s[n]])
		n++;
	return s[n] == '\0' ? n + 2 : 6 * (n + strlen(s + n)) + 2;
}

/* v's entry's bytes at most (exact when its strings are plain). */
static size_t
entry_bound(const struct freeze_dec *x, const struct freeze_ditem *v)
{
	size_t n = str_bound(v->decision_id) + HASH_ID_LEN + 2;

	if (v->reason != D_NONE)
		return n + sizeof "{\"decision_id\":,\"id\":\"\",\"reason\":\"\"" - 1 +
		    strlen(dreason[v->reason]) + (v->why ? sizeof ",\"why\":" - 1 + str_bound(v->why) : 0);
	const struct dcell *c = &x->cells[v->cell];
	size_t end = c + 1 < x->cells + x->ncells ? c[1].pre : x->ctext.len;
	return n + end - c->pre + sizeof "\",\"position_id\":" - 1 + x->poff[v->pos + 1] -
	    x->poff[v->pos] + str_bound(decision_status_names[v->status]);
}

/* Each entry of v[0..n) whose reason is (or, not, isn't) D_NONE, comma
 * apart, written into a buffer handed to put every 256 kB.  What put
 * returns when not 0; -1 out of memory. */
static int
entries_put(const struct freeze_dec *x, int included, freeze_put_fn put, void *ctx)
{
	struct buf b = BUF_INIT;
	int first = 1, rc = buf_grow(&b, (size_t)300 << 10);

	for (size_t i = 0; i < x->n && rc == 0; i++) {
		/* the items and their ids lie in input order, taken here in
		 * decision_id order: each a miss of the cache, unless asked
		 * for ahead (the item first, its id once it is there) */
		if (i + 2 * AHEAD < x->n)
			__builtin_prefetch(x->v[i + 2 * AHEAD]);
		if (i + AHEAD < x->n)
			__builtin_prefetch(x->v[i + AHEAD]->decision_id);
		if ((x->v[i]->reason == D_NONE) != included)
			continue;
		if ((!first && buf_addc(&b, ',') < 0) || entry_write(x, x->v[i], &b) < 0)
			rc = -1;
		first = 0;
		if (rc == 0 && b.len >= ((size_t)256 << 10)) {
			rc = put(ctx, b.p, b.len);
			buf_reset(&b);
		}
	}
	if (rc == 0 && b.len > 0)
		rc = put(ctx, b.p, b.len);
	buf_release(&b);
	return rc;
}

/* The section's canonical bytes but the entries: its keys in their
 * canonical order (candidates, cells, excluded, included, totals), each
 * value canonical; the entries are written from the items when the
 * section is (a million entries kept written were 300 MB of memory).  A
 * tree of every entry, written once, cost more than reading the
 * decisions. */
int
freeze_dec_section(struct freeze_dec *x, struct err *e)
{
	struct freeze_ditem **v = malloc((x->n + 1) * sizeof *v);
	cJSON *sec = cJSON_CreateObject(), *tot;
	size_t ninc = 0;
	int rc = -1;

	if (v == NULL || sec == NULL)
		goto nomem;
	if (sort_items(x, v, e) < 0)
		goto done;
	for (size_t i = 0; i < x->ncells; i++)
		ninc += (size_t)x->cells[i].count;
	buf_reset(&x->head);
	buf_reset(&x->tail);
	/* the manifest by its identity; by its file's own SHA-256 too where
	 * another tool wrote it (the file is in the store under it); and how
	 * the prereg followed names it: "identity", "file", or null when it
	 * names another (a deviation) */
	const char *file = cand_file_id(x->cand), *by = NULL;
	if (x->prereg != NULL)
		by = prereg_names_manifest(x->prereg, x->cand->id, file);
	if (!json_add_string(sec, "candidates", x->cand->id) ||
	    (file != NULL && !json_add_string(sec, "candidates_file", file)) ||
	    (x->prereg != NULL && (by ? !json_add_string(sec, "candidates_named_by", by) :
	    !json_add_null(sec, "candidates_named_by"))) ||
	    (tot = cJSON_AddObjectToObject(sec, "totals")) == NULL ||
	    !json_add_number(tot, "decisions", (double)ninc) ||
	    !json_add_number(tot, "excluded", (double)(x->n - ninc)) || add_cells(x, sec) < 0 ||
	    entry_texts(x) < 0)
		goto nomem;
	if (buf_adds(&x->head, "{\"candidates\":") < 0 ||
	    canon_write(json_get(sec, "candidates"), &x->head, e) < 0 ||
	    (file != NULL && (buf_adds(&x->head, ",\"candidates_file\":") < 0 ||
	    canon_write(json_get(sec, "candidates_file"), &x->head, e) < 0)) ||
	    (x->prereg != NULL && (buf_adds(&x->head, ",\"candidates_named_by\":") < 0 ||
	    canon_write(json_get(sec, "candidates_named_by"), &x->head, e) < 0)) ||
	    buf_adds(&x->head, ",\"cells\":") < 0 ||
	    canon_write(json_get(sec, "cells"), &x->head, e) < 0 ||
	    buf_adds(&x->head, ",\"excluded\":[") < 0 || buf_adds(&x->tail, "],\"totals\":") < 0 ||
	    canon_write(tot, &x->tail, e) < 0 || buf_addc(&x->tail, '}') < 0)
		goto nomem;
	free(x->v);
	x->v = v;
	v = NULL;
	rc = 0;
	goto done;
nomem:
	if (e->code == ERR_OK)
		err_set(e, ERR_NOMEM, "out of memory");
done:
	cJSON_Delete(sec);
	free(v);
	return rc;
}

size_t
freeze_dec_len(const struct freeze_dec *x)
{
	size_t len;

	if (x == NULL || x->v == NULL)
		return 0;
	/* measured when asked: only a writer into memory asks */
	len = x->head.len + x->tail.len + sizeof "],\"included\":[" - 1;
	for (size_t i = 0; i < x->n; i++)
		len += entry_bound(x, x->v[i]) + 1;
	return len;
}

int
freeze_dec_ready(const struct freeze_dec *x)
{
	return x != NULL && x->v != NULL;
}

int
freeze_dec_put(const struct freeze_dec *x, freeze_put_fn put, void *ctx)
{
	static const char mid[] = "],\"included\":[";
	int rc;

	if (x->v == NULL)
		return 0;
	if ((rc = put(ctx, x->head.p, x->head.len)) != 0 || (rc = entries_put(x, 0, put, ctx)) != 0 ||
	    (rc = put(ctx, mid, sizeof mid - 1)) != 0 || (rc = entries_put(x, 1, put, ctx)) != 0)
		return rc;
	return put(ctx, x->tail.p, x->tail.len);
}

/* ---- deviations from a followed prereg ---- */

/* The prereg's facts of an item (x follows one). */
static const struct freeze_dpre *
pre_of(const struct freeze_dec *x, const struct freeze_ditem *it)
{
	return &x->pre[it - x->it];
}

static int
cmp_seeds(const void *a, const void *b)
{
	const struct freeze_dpre *x = *(const struct freeze_dpre *const *)a, *y = *(const struct freeze_dpre *const *)b;
	int c = strcmp(x->seeds, y->seeds);

	return c ? c : (x->order_seed > y->order_seed) - (x->order_seed < y->order_seed);
}

/* Cells whose positions were shown with another number of order seeds
 * than registered: how many, and the counts seen. */
static int
seeds_check(const struct freeze_dec *x, struct freeze_ditem **v, size_t n, cJSON *arr)
{
	size_t m = 0, cells = 0, off = 0, i, j;
	long long counts[8];
	size_t ncounts = 0;
	char reg[32], used[300];
	const struct freeze_dpre **s = malloc((n + 1) * sizeof *s);

	if (s == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if (pre_of(x, v[i])->seeds != NULL)
			s[m++] = pre_of(x, v[i]);
	qsort(s, m, sizeof *s, cmp_seeds);
	for (i = 0; i < m; i = j) {
		long long distinct = 1;
		for (j = i + 1; j < m && strcmp(s[j]->seeds, s[i]->seeds) == 0; j++)
			distinct += s[j]->order_seed != s[j - 1]->order_seed;
		if (distinct == x->prereg->order_seeds)
			continue;
		cells++;
		size_t k = 0;
		while (k < ncounts && counts[k] != distinct)
			k++;
		if (k == ncounts && ncounts < 8)
			counts[ncounts++] = distinct;
	}
	free(s);
	if (cells == 0)
		return 0;
	snprintf(reg, sizeof reg, "%ld", x->prereg->order_seeds);
	off = (size_t)snprintf(used, sizeof used, "%zu position%s shown with", cells,
	    cells == 1 ? "" : "s");
	for (size_t k = 0; k < ncounts && off < sizeof used; k++)
		off += (size_t)snprintf(used + off, sizeof used - off, "%s %lld", k ? "," : "",
		    counts[k]);
	if (off < sizeof used)
		snprintf(used + off, sizeof used - off, " seeds");
	return freeze_dev_add(arr, "order_seeds", reg, used);
}

/* Distinct positions of the included decisions, per split. */
static int
splits_check(const struct freeze_dec *x, struct freeze_ditem **v, size_t n, cJSON *arr)
{
	unsigned char *seen = calloc(x->cand->n + 1, 1);
	long count[3] = { 0 };
	char reg[32], used[32], setting[32];

	if (seen == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (v[i]->pos >= 0 && !seen[v[i]->pos]) {
			seen[v[i]->pos] = 1;
			count[x->cand->p[v[i]->pos].split]++;
		}
	free(seen);
	for (int s = 0; s < 3; s++) {
		long r = prereg_split_size(x->prereg, cand_split_names[s]);
		if (r == count[s] || (r < 0 && count[s] == 0))
			continue;
		snprintf(setting, sizeof setting, "splits.%s", cand_split_names[s]);
		snprintf(reg, sizeof reg, r < 0 ? "none" : "%ld", r);
		snprintf(used, sizeof used, "%ld", count[s]);
		if (freeze_dev_add(arr, setting, reg, used) < 0)
			return -1;
	}
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A list of names as text: sorted, ", " between, "none" when empty. */
static void
names_text(const char **s, size_t n, char *out, size_t cap)
{
	size_t at = 0;

	qsort(s, n, sizeof *s, cmp_str);
	snprintf(out, cap, "none");
	for (size_t i = 0; i < n && at < cap; i++)
		at += (size_t)snprintf(out + at, cap - at, "%s%s", i ? ", " : "", s[i]);
}

static int
budgets_check(const struct freeze_dec *x, struct freeze_ditem **v, size_t n, cJSON *arr)
{
	const char **used = malloc((n + 1) * sizeof *used), **reg;
	size_t m = 0, i;
	char ut[400], rt[400];
	int rc = -1;

	reg = malloc((x->prereg->nbudgets + 1) * sizeof *reg);
	if (used == NULL || reg == NULL)
		goto done;
	for (i = 0; i < n; i++)
		if (v[i]->has_budget && v[i]->reason == D_NONE) {
			/* the cell's key: family, replication, condition, budget */
			const char *part[4];
			key_parts(x->cells[v[i]->cell].key, part);
			used[m++] = part[3];
		}
	qsort(used, m, sizeof *used, cmp_str);
	size_t u = 0;
	for (i = 0; i < m; i++)
		if (u == 0 || strcmp(used[u - 1], used[i]) != 0)
			used[u++] = used[i];
	for (i = 0; i < x->prereg->nbudgets; i++)
		reg[i] = x->prereg->budgets[i];
	names_text(used, u, ut, sizeof ut);
	names_text(reg, x->prereg->nbudgets, rt, sizeof rt);
	rc = strcmp(ut, rt) == 0 ? 0 : freeze_dev_add(arr, "budgets", rt, ut);
done:
	free(used);
	free(reg);
	return rc;
}

/* Decisions made before registered_at, exclusions not registered, another
 * candidate manifest, widths: v holds every decision in decision_id order. */
static int
record_checks(const struct freeze_dec *x, struct freeze_ditem **v, size_t n, cJSON *arr)
{
	const struct prereg *p = x->prereg;
	struct freeze_widths w = { { 0, 0 } };
	long count[D_INVALID + 1] = { 0 };
	char u[300];

	for (size_t i = 0; i < n; i++) {
		const struct freeze_dpre *q = pre_of(x, v[i]);
		if (q->early != NULL) {
			snprintf(u, sizeof u, "decision %.200s at %.40s", v[i]->decision_id, q->early);
			if (freeze_dev_add(arr, "registered_at", p->registered_at, u) < 0)
				return -1;
		}
		count[v[i]->reason]++;
		if (v[i]->reason == D_NONE && q->width >= 0)
			w.bits[q->width / 64] |= (uint64_t)1 << (q->width % 64);
	}
	if (prereg_names_manifest(p, x->cand->id, cand_file_id(x->cand)) == NULL &&
	    freeze_dev_add(arr, "candidates", p->candidates, x->cand->id) < 0)
		return -1;
	for (int r = D_FAMILY; r <= D_INVALID; r++)
		if (freeze_exclusion_check(p, dreason[r], count[r], "decision", arr) < 0)
			return -1;
	return count[D_NONE] > 0 ? freeze_widths_check(p, &w, "decisions", arr) : 0;
}

cJSON *
freeze_dec_deviations(struct freeze_dec *x, struct err *e)
{
	struct freeze_ditem **v = malloc((x->n + 1) * sizeof *v);
	cJSON *arr = cJSON_CreateArray();
	size_t ninc = 0;

	if (v == NULL || arr == NULL || x->prereg == NULL)
		goto fail;
	/* in decision_id order: the section's, once made */
	if (x->v != NULL)
		memcpy(v, x->v, x->n * sizeof *v);
	else if (sort_items(x, v, e) < 0)
		goto fail;
	if (record_checks(x, v, x->n, arr) < 0)
		goto fail;
	for (size_t i = 0; i < x->n; i++)
		if (v[i]->reason == D_NONE)
			v[ninc++] = v[i];
	if (budgets_check(x, v, ninc, arr) < 0 || splits_check(x, v, ninc, arr) < 0 ||
	    seeds_check(x, v, ninc, arr) < 0)
		goto fail;
	free(v);
	return arr;
fail:
	free(v);
	cJSON_Delete(arr);
	if (e->code == ERR_OK)
		err_set(e, ERR_NOMEM, "out of memory");
	return NULL;
}
