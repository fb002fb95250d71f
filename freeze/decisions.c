/* decisions.c: the decision records of a freeze: each validated and
 * checked against the candidate manifest, stored canonical beside the
 * games, and listed in the manifest's "decisions" section by identity.
 * A freeze and its re-derivation from the store are this same code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/pool.h"
#include "../json/json.h"
#include "../json/rec.h"
#include "../protocol/decision.h"
#include "../protocol/ledger.h"
#include "../protocol/prereg.h"
#include "freeze.h"
#include "internal.h"

enum { D_NONE, D_FAMILY, D_AFTER_CUT, D_PROVIDER_ERROR, D_INVALID };
static const char *const dreason[] = { "", "family", "after_cut", "provider_error", "invalid" };

struct freeze_dec {
	const struct spec *sp;
	const struct candidates *cand;
	const struct prereg *prereg; /* followed, or NULL */
	struct freeze_ditem *it;
	size_t n, cap;
	/* the section, once freeze_dec_section made it: the items in
	 * decision_id order, the bytes before and after the entries, and the
	 * length of the whole */
	struct freeze_ditem **v;
	struct buf head, tail;
	size_t len;
};

struct freeze_dec *
freeze_dec_new(const struct spec *sp, const struct candidates *cand, struct err *e)
{
	struct freeze_dec *x = calloc(1, sizeof *x);

	if (x == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	x->sp = sp;
	x->cand = cand;
	return x;
}

void
freeze_dec_free(struct freeze_dec *x)
{
	if (x == NULL)
		return;
	for (size_t i = 0; i < x->n; i++)
		freeze_dec_item_clear(&x->it[i]);
	free(x->it);
	free(x->v);
	buf_release(&x->head);
	buf_release(&x->tail);
	free(x);
}

void
freeze_dec_set_prereg(struct freeze_dec *x, const struct prereg *p)
{
	x->prereg = p;
}

/* Why a decision is left out, or D_NONE; checks d against its position. */
static int
classify(const struct freeze_dec *x, const struct decision *d, const char **why)
{
	const struct cand_position *p;
	struct decision_moves m;

	if (spec_family(x->sp, d->family, strlen(d->family)) < 0)
		return D_FAMILY;
	if (ts_cmp(d->ts, x->sp->as_of) > 0)
		return D_AFTER_CUT;
	if (d->status == DS_PROVIDER_ERROR)
		return D_PROVIDER_ERROR;
	if ((p = cand_find(x->cand, d->position_id)) == NULL)
		return *why = "its position is not in the candidate manifest", D_INVALID;
	if (decision_check(d, p, &m, why) != 0)
		return D_INVALID;
	return D_NONE;
}

/* Bytes a string's canonical form holds as they are: printable ASCII but
 * '"' and '\\' (anything else goes through canon_string). */
static const unsigned char plain[256] = {
#define R16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v
	R16(0), R16(0),
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	R16(1), R16(1),
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	R16(1),
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
	R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0), R16(0),
#undef R16
};

/* A member of an entry: its key, and its value's canonical text: a plain
 * string's bytes (quoted when written), "null", or canon_string's text
 * at off in the item's scratch. */
struct mem {
	const char *key;
	const char *v;
	size_t n, off;
	int how; /* M_PLAIN, M_NULL, M_ESC */
};
enum { M_PLAIN, M_NULL, M_ESC };

/* m's value from v (NULL: null).  -1 out of memory. */
static int
mem_value(struct mem *m, const char *v, struct buf *esc)
{
	struct err ig = ERR_INIT;
	size_t n = 0;

	if (v == NULL) {
		m->how = M_NULL, m->v = "null", m->n = 4;
		return 0;
	}
	while (plain[(unsigned char)v[n]])
		n++;
	if (v[n] == '\0') {
		m->how = M_PLAIN, m->v = v, m->n = n;
		return 0;
	}
	m->how = M_ESC, m->off = esc->len;
	if (canon_string(v, esc, &ig) < 0)
		return -1;
	m->n = esc->len - m->off;
	return 0;
}

/* The entry's members, in canonical order: of "included" (what a reader
 * needs to group decisions) or of "excluded".  Their number. */
static int
entry_members(const struct decision *d, const char *id, int reason, const char *why,
    struct mem *m, const char **v)
{
	static const char *const inc[] = { "budget", "condition", "decision_id", "family", "id",
		"position_id", "replication", "status" };
	static const char *const exc[] = { "decision_id", "id", "reason", "why" };
	int n = reason == D_NONE ? 8 : why != NULL ? 4 : 3;

	if (reason == D_NONE) {
		const char *iv[] = { d->budget, d->condition, d->decision_id, d->family, id,
			d->position_id, d->replication, decision_status_names[d->status] };
		memcpy(v, iv, sizeof iv);
	} else {
		const char *ev[] = { d->decision_id, id, dreason[reason], why };
		memcpy(v, ev, sizeof ev);
	}
	for (int i = 0; i < n; i++)
		m[i].key = reason == D_NONE ? inc[i] : exc[i];
	return n;
}

/* Each member as "key":value, comma apart, in braces, from o on; the end. */
static char *
entry_put(char *o, const struct mem *m, int n, const char *esc)
{
	*o++ = '{';
	for (int i = 0; i < n; i++) {
		size_t k = strlen(m[i].key);
		if (i > 0)
			*o++ = ',';
		*o++ = '"';
		memcpy(o, m[i].key, k);
		o += k;
		*o++ = '"';
		*o++ = ':';
		if (m[i].how == M_PLAIN)
			*o++ = '"';
		memcpy(o, m[i].how == M_ESC ? esc + m[i].off : m[i].v, m[i].n);
		o += m[i].n;
		if (m[i].how == M_PLAIN)
			*o++ = '"';
	}
	*o++ = '}';
	return o;
}

/* The item's strings in one allocation of their size, owned by
 * it->decision_id (five made and freed for each of a million decisions
 * were a tenth of a freeze's time; written piece by piece into a growing
 * buffer, another tenth): its decision_id; for an included one the cell's
 * key (family, replication, condition, budget, each NUL-ended); a comma;
 * its entry.  -1 out of memory. */
static int
item_strings(const struct decision *d, const char *id, const char *why, struct freeze_ditem *it)
{
	const char *cell[4] = { d->family, d->replication, d->condition, d->budget ? d->budget : "" };
	size_t cn[4] = { 0 }, nid = strlen(d->decision_id), size = nid + 1, cl = 0;
	struct buf esc = BUF_INIT;
	struct mem m[8];
	const char *v[8];
	int n = entry_members(d, id, it->reason, why, m, v), rc = 0;
	char *o;

	for (int i = 0; i < n && rc == 0; i++) {
		rc = mem_value(&m[i], v[i], &esc);
		size += strlen(m[i].key) + 4 + m[i].n + (m[i].how == M_PLAIN ? 2 : 0);
	}
	for (int k = 0; it->reason == D_NONE && k < 4; k++)
		cl += (cn[k] = strlen(cell[k])) + 1;
	if (rc < 0 || (o = it->decision_id = malloc(size + cl + 3)) == NULL) {
		buf_release(&esc);
		return -1;
	}
	memcpy(o, d->decision_id, nid + 1);
	o += nid + 1;
	it->cell = it->reason == D_NONE ? o : NULL;
	for (int k = 0; it->reason == D_NONE && k < 4; k++) {
		memcpy(o, cell[k], cn[k] + 1);
		o += cn[k] + 1;
	}
	it->cell_len = cl;
	*o++ = ','; /* before it in the section, unless first */
	it->entry = o;
	o = entry_put(o, m, n, esc.p);
	*o = '\0';
	it->entry_len = (size_t)(o - it->entry);
	buf_release(&esc);
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
prereg_facts(const struct freeze_dec *x, const struct decision *d, struct freeze_ditem *it)
{
	const struct cand_position *p = cand_find(x->cand, d->position_id);
	size_t n;

	it->pos = p ? (long)(p - x->cand->p) : -1;
	it->width = d->cond.kind == DK_NONE ? 0 : d->cond.kind == DK_TOP ? d->cond.k : -1;
	it->order_seed = d->order_seed;
	if (ts_cmp(d->ts, x->prereg->registered) < 0 &&
	    (it->early = strdup(d->ts_text)) == NULL)
		return -1;
	if (it->reason != D_NONE || d->cond.kind != DK_TOP || d->cond.k < 2)
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
freeze_dec_item_clear(struct freeze_ditem *it)
{
	free(it->decision_id); /* and cell and entry (item_strings) */
	free(it->early);
	free(it->seeds);
	memset(it, 0, sizeof *it);
}

/* it from dec, whose record's canonical bytes are canon[0..n).  -1 out of
 * memory. */
static int
fill(const struct freeze_dec *x, const struct decision *dec, const struct ledger_loc *loc,
    const char *canon, size_t n, struct hash *h, struct freeze_ditem *it, struct err *e)
{
	char id[HASH_ID_LEN + 1];
	const char *why = NULL;

	/* a thread's own hash: a one-shot digest takes a lock each time */
	if (h == NULL)
		hash_bytes(canon, n, it->d);
	else if (hash_digest(h, canon, n, it->d) < 0)
		return err_set(e, ERR_NOMEM, "out of memory (hashing)");
	hash_id_format(it->d, id);
	it->reason = classify(x, dec, &why);
	it->why = why;
	it->has_budget = dec->budget != NULL;
	if (loc != NULL)
		it->file = loc->name, it->line = loc->line, it->sqlite = loc->sqlite;
	if (item_strings(dec, id, why, it) < 0 ||
	    (x->prereg != NULL && prereg_facts(x, dec, it) < 0)) {
		freeze_dec_item_clear(it);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	return 0;
}

int
freeze_dec_prepare(const struct freeze_dec *x, const cJSON *rec, const char *where,
    const struct ledger_loc *loc, struct buf *canon, struct freeze_ditem *it, struct err *e)
{
	struct decision dec;
	size_t start = canon->len;

	memset(it, 0, sizeof *it);
	if (decision_read(rec, &dec, e) < 0)
		return err_prefix(e, "%s", where);
	if (canon_write(rec, canon, e) < 0)
		return err_prefix(e, "%s", where);
	return fill(x, &dec, loc, canon->p + start, canon->len - start, NULL, it, e);
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
    struct freeze_ditem *it, struct err *e)
{
	struct decision dec;
	size_t start = canon->len;
	int rc = rec_canon(w->f.rs, text, n, canon);

	memset(it, 0, sizeof *it);
	if (rc == REC_OK)
		rc = decision_read_flat(&w->f, w->f.rs, &dec);
	if (rc < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (rc != 0) {
		buf_cut(canon, start);
		return 1;
	}
	return fill(x, &dec, loc, canon->p + start, canon->len - start, w->h, it, e);
}

int
freeze_dec_append(struct freeze_dec *x, struct freeze_ditem *it, struct err *e)
{
	if (x->n == x->cap) {
		size_t nc = x->cap ? 2 * x->cap : 1024;
		struct freeze_ditem *t = realloc(x->it, nc * sizeof *t);
		if (t == NULL) {
			freeze_dec_item_clear(it);
			return err_set(e, ERR_NOMEM, "out of memory");
		}
		x->it = t;
		x->cap = nc;
	}
	x->it[x->n++] = *it; /* its strings are x's now */
	memset(it, 0, sizeof *it);
	return 0;
}

int
freeze_dec_add_text(struct freeze_dec *x, struct freeze_dec_scratch *w, const char *text,
    size_t n, const char *where, struct buf *canon, uint8_t d[HASH_LEN], struct err *e)
{
	struct freeze_ditem it;
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
	memcpy(d, it.d, HASH_LEN);
	return freeze_dec_append(x, &it, e);
}

static int
cmp_id(const void *a, const void *b)
{
	const struct freeze_ditem *x = *(const struct freeze_ditem *const *)a, *y = *(const struct freeze_ditem *const *)b;

	int c = strcmp(x->decision_id, y->decision_id);

	/* ties in input order: the second of two is the one named */
	return c ? c : (x > y) - (x < y);
}

/* Half of the decisions to sort, on a thread of its own. */
struct half {
	struct freeze_ditem **v;
	size_t n;
};

static void
half_sort(void *arg)
{
	struct half *h = arg;

	qsort(h->v, h->n, sizeof *h->v, cmp_id);
}

/* v[0..n) sorted by cmp_id; from 65,536 decisions its two halves on two
 * threads, then merged (a tenth of a million-decision freeze was this
 * sort on one thread).  cmp_id is a total order, so the order is the
 * one-threaded sort's.  -1 when out of memory. */
static int
sort_items(struct freeze_ditem **v, size_t n)
{
	struct half a = { v, n / 2 }, b = { v + n / 2, n - n / 2 };
	struct pool_thread th = POOL_THREAD_INIT;
	struct freeze_ditem **m;
	size_t i = 0, j = 0, k = 0;

	if (n < 65536) {
		qsort(v, n, sizeof *v, cmp_id);
		return 0;
	}
	if ((m = malloc(n * sizeof *m)) == NULL)
		return -1;
	pool_spawn(&th, half_sort, &b);
	half_sort(&a);
	pool_join(&th);
	while (i < a.n && j < b.n)
		m[k++] = cmp_id(&a.v[i], &b.v[j]) <= 0 ? a.v[i++] : b.v[j++];
	while (i < a.n)
		m[k++] = a.v[i++];
	while (j < b.n)
		m[k++] = b.v[j++];
	memcpy(v, m, n * sizeof *m);
	free(m);
	return 0;
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

struct cellc {
	const char *key; /* NULL: an empty slot */
	size_t len, count;
};

static int
cmp_cellc(const void *a, const void *b)
{
	return cmp_key(((const struct cellc *)a)->key, ((const struct cellc *)b)->key);
}

/* Count the decisions of each cell in a table of 2^bits slots (open
 * addressing); 1 when it filled past half, -1 out of memory.  A cohort
 * has a few hundred cells and hundreds of thousands of decisions: sorting
 * the decisions by cell cost more than all the counting. */
static int
cells_count(struct freeze_ditem *const *v, size_t n, int bits, struct cellc **out, size_t *nc)
{
	size_t cap = (size_t)1 << bits, used = 0;
	struct cellc *t = calloc(cap, sizeof *t);

	if (t == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *k = v[i]->cell;
		size_t len = v[i]->cell_len, h = 1469598103934665603u;
		for (size_t j = 0; j < len; j++)
			h = (h ^ (unsigned char)k[j]) * 1099511628211u;
		for (h &= cap - 1; t[h].key != NULL; h = (h + 1) & (cap - 1))
			if (t[h].len == len && memcmp(t[h].key, k, len) == 0)
				break;
		if (t[h].key == NULL) {
			if (2 * ++used > cap) {
				free(t);
				return 1;
			}
			t[h] = (struct cellc){ k, len, 0 };
		}
		t[h].count++;
	}
	*nc = 0;
	for (size_t i = 0; i < cap; i++)
		if (t[i].key != NULL)
			t[(*nc)++] = t[i];
	*out = t;
	return 0;
}

/* One count per cell of the included decisions, in cell order. */
static int
add_cells(cJSON *sec, struct freeze_ditem **v, size_t n)
{
	cJSON *arr = cJSON_AddArrayToObject(sec, "cells");
	struct cellc *t = NULL;
	size_t nc = 0;
	int rc = 1;

	if (arr == NULL)
		return -1;
	for (int bits = 10; rc == 1; bits += 2)
		rc = cells_count(v, n, bits, &t, &nc);
	if (rc < 0)
		return -1;
	qsort(t, nc, sizeof *t, cmp_cellc);
	for (size_t i = 0; i < nc && rc == 0; i++) {
		const char *f = t[i].key, *r = f + strlen(f) + 1, *c = r + strlen(r) + 1,
		    *b = c + strlen(c) + 1;
		cJSON *o = cJSON_CreateObject();
		if (o == NULL || !cJSON_AddItemToArray(arr, o) || !json_add_string(o, "family", f) ||
		    !json_add_string(o, "replication", r) || !json_add_string(o, "condition", c) ||
		    !(b[0] ? json_add_string(o, "budget", b) : json_add_null(o, "budget")) ||
		    !json_add_number(o, "decisions", (double)t[i].count))
			rc = -1;
	}
	free(t);
	return rc;
}

/* Each entry of v[0..n) whose reason is (or, not, isn't) D_NONE, comma
 * apart (the comma item_strings left before each entry), handed to put.
 * What put returns when not 0. */
static int
entries_put(struct freeze_ditem *const *v, size_t n, int included, freeze_put_fn put,
    void *ctx)
{
	int first = 1, rc;

	for (size_t i = 0; i < n; i++) {
		if ((v[i]->reason == D_NONE) != included)
			continue;
		if ((rc = put(ctx, v[i]->entry - !first, v[i]->entry_len + !first)) != 0)
			return rc;
		first = 0;
	}
	return 0;
}

/* The section's canonical bytes but the entries: its keys in their
 * canonical order (candidates, cells, excluded, included, totals), each
 * value canonical; the entries stay where they are until written (a
 * million decisions' are 200 MB, fresh memory each time they were copied).
 * A tree of every entry, written once, cost more than reading the
 * decisions. */
int
freeze_dec_section(struct freeze_dec *x, struct err *e)
{
	struct freeze_ditem **v = malloc((x->n + 1) * sizeof *v);
	struct freeze_ditem **inc = malloc((x->n + 1) * sizeof *inc);
	cJSON *sec = cJSON_CreateObject(), *tot;
	size_t ninc = 0, nexc = 0;
	int rc = -1;

	if (v == NULL || inc == NULL || sec == NULL)
		goto nomem;
	x->len = 0;
	for (size_t i = 0; i < x->n; i++) {
		v[i] = &x->it[i];
		x->len += x->it[i].entry_len + 1;
	}
	if (sort_items(v, x->n) < 0)
		goto nomem;
	for (size_t i = 1; i < x->n; i++)
		if (strcmp(v[i - 1]->decision_id, v[i]->decision_id) == 0) {
			char w1[512], w0[512];
			err_set(e, ERR_INPUT, "%s: \"decision_id\": \"%.80s\" appears twice (also %s)",
			    item_where(v[i], w1, sizeof w1), v[i]->decision_id,
			    item_where(v[i - 1], w0, sizeof w0));
			goto done;
		}
	for (size_t i = 0; i < x->n; i++)
		if (v[i]->reason == D_NONE)
			inc[ninc++] = v[i];
		else
			nexc++;
	buf_reset(&x->head);
	buf_reset(&x->tail);
	if (!json_add_string(sec, "candidates", x->cand->id) ||
	    (tot = cJSON_AddObjectToObject(sec, "totals")) == NULL ||
	    !json_add_number(tot, "decisions", (double)ninc) ||
	    !json_add_number(tot, "excluded", (double)nexc) || add_cells(sec, inc, ninc) < 0)
		goto nomem;
	if (buf_adds(&x->head, "{\"candidates\":") < 0 ||
	    canon_write(json_get(sec, "candidates"), &x->head, e) < 0 ||
	    buf_adds(&x->head, ",\"cells\":") < 0 ||
	    canon_write(json_get(sec, "cells"), &x->head, e) < 0 ||
	    buf_adds(&x->head, ",\"excluded\":[") < 0 || buf_adds(&x->tail, "],\"totals\":") < 0 ||
	    canon_write(tot, &x->tail, e) < 0 || buf_addc(&x->tail, '}') < 0)
		goto nomem;
	x->len += x->head.len + x->tail.len + sizeof "],\"included\":[" - 1;
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
	free(inc);
	free(v);
	return rc;
}

size_t
freeze_dec_len(const struct freeze_dec *x)
{
	return x != NULL && x->v != NULL ? x->len : 0;
}

int
freeze_dec_put(const struct freeze_dec *x, freeze_put_fn put, void *ctx)
{
	static const char mid[] = "],\"included\":[";
	int rc;

	if (x->v == NULL)
		return 0;
	if ((rc = put(ctx, x->head.p, x->head.len)) != 0 ||
	    (rc = entries_put(x->v, x->n, 0, put, ctx)) != 0 ||
	    (rc = put(ctx, mid, sizeof mid - 1)) != 0 ||
	    (rc = entries_put(x->v, x->n, 1, put, ctx)) != 0)
		return rc;
	return put(ctx, x->tail.p, x->tail.len);
}

/* ---- deviations from a followed prereg ---- */

static int
cmp_seeds(const void *a, const void *b)
{
	const struct freeze_ditem *x = *(const struct freeze_ditem *const *)a, *y = *(const struct freeze_ditem *const *)b;
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

	for (i = 0; i < n; i++)
		if (v[i]->seeds != NULL)
			v[m++] = v[i];
	qsort(v, m, sizeof *v, cmp_seeds);
	for (i = 0; i < m; i = j) {
		long long distinct = 1;
		for (j = i + 1; j < m && strcmp(v[j]->seeds, v[i]->seeds) == 0; j++)
			distinct += v[j]->order_seed != v[j - 1]->order_seed;
		if (distinct == x->prereg->order_seeds)
			continue;
		cells++;
		size_t k = 0;
		while (k < ncounts && counts[k] != distinct)
			k++;
		if (k == ncounts && ncounts < 8)
			counts[ncounts++] = distinct;
	}
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
		if (v[i]->has_budget && v[i]->cell != NULL) {
			/* the cell's key: family, replication, condition, budget */
			const char *b = v[i]->cell;
			for (int k = 0; k < 3; k++)
				b += strlen(b) + 1;
			used[m++] = b;
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
		if (v[i]->early != NULL) {
			snprintf(u, sizeof u, "decision %.200s at %.40s", v[i]->decision_id, v[i]->early);
			if (freeze_dev_add(arr, "registered_at", p->registered_at, u) < 0)
				return -1;
		}
		count[v[i]->reason]++;
		if (v[i]->reason == D_NONE && v[i]->width >= 0)
			w.bits[v[i]->width / 64] |= (uint64_t)1 << (v[i]->width % 64);
	}
	if (strcmp(x->cand->id, p->candidates) != 0 &&
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
	for (size_t i = 0; i < x->n; i++)
		v[i] = x->v != NULL ? x->v[i] : &x->it[i];
	if ((x->v == NULL && sort_items(v, x->n) < 0) || record_checks(x, v, x->n, arr) < 0)
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
	err_set(e, ERR_NOMEM, "out of memory");
	return NULL;
}
