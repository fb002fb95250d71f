/* decisions.c: the decision records of a freeze: each validated and
 * checked against the candidate manifest, stored canonical beside the
 * games, and listed in the manifest's "decisions" section by identity.
 * A freeze and its re-derivation from the store are this same code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../json/json.h"
#include "../protocol/decision.h"
#include "freeze.h"
#include "internal.h"

enum { D_NONE, D_FAMILY, D_AFTER_CUT, D_PROVIDER_ERROR, D_INVALID };
static const char *const dreason[] = { "", "family", "after_cut", "provider_error", "invalid" };

struct ditem {
	char *decision_id;
	uint8_t d[HASH_LEN];
	int reason;
	const char *why;          /* for invalid: a static text */
	cJSON *entry;             /* its manifest entry */
	char *cell;               /* the cell's key, for the counts */
};

struct freeze_dec {
	const struct spec *sp;
	const struct candidates *cand;
	const struct ts *registered; /* a prereg's time, or NULL */
	struct ditem *it;
	size_t n, cap;
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
	for (size_t i = 0; i < x->n; i++) {
		free(x->it[i].decision_id);
		free(x->it[i].cell);
		cJSON_Delete(x->it[i].entry);
	}
	free(x->it);
	free(x);
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

/* The entry of "included": what a reader needs to group decisions. */
static cJSON *
included_entry(const struct decision *d, const char *id)
{
	cJSON *o = cJSON_CreateObject();

	if (o == NULL || !json_add_string(o, "decision_id", d->decision_id) ||
	    !json_add_string(o, "id", id) || !json_add_string(o, "family", d->family) ||
	    !json_add_string(o, "replication", d->replication) ||
	    !json_add_string(o, "condition", d->condition) ||
	    !(d->budget ? json_add_string(o, "budget", d->budget) : json_add_null(o, "budget")) ||
	    !json_add_string(o, "position_id", d->position_id) ||
	    !json_add_string(o, "status", decision_status_names[d->status])) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *
excluded_entry(const struct decision *d, const char *id, int reason, const char *why)
{
	cJSON *o = cJSON_CreateObject();

	if (o == NULL || !json_add_string(o, "decision_id", d->decision_id) ||
	    !json_add_string(o, "id", id) || !json_add_string(o, "reason", dreason[reason]) ||
	    (why != NULL && !json_add_string(o, "why", why))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* The cell's key: family, replication, condition, budget, NUL-separated. */
static char *
cell_key(const struct decision *d)
{
	size_t n = strlen(d->family) + strlen(d->replication) + strlen(d->condition) +
	    (d->budget ? strlen(d->budget) : 0) + 5;
	char *k = malloc(n);

	if (k != NULL)
		snprintf(k, n, "%s%c%s%c%s%c%s", d->family, 0, d->replication, 0, d->condition, 0,
		    d->budget ? d->budget : "");
	return k;
}

int
freeze_dec_add(struct freeze_dec *x, const cJSON *rec, const char *where, struct buf *canon,
    uint8_t d[HASH_LEN], struct err *e)
{
	struct decision dec;
	struct ditem *it;
	char id[HASH_ID_LEN + 1];
	const char *why = NULL;

	if (decision_read(rec, &dec, e) < 0)
		return err_prefix(e, "%s", where);
	buf_reset(canon);
	if (canon_write(rec, canon, e) < 0)
		return err_prefix(e, "%s", where);
	hash_bytes(canon->p, canon->len, d);
	hash_id_format(d, id);
	if (x->n == x->cap) {
		size_t nc = x->cap ? 2 * x->cap : 1024;
		struct ditem *t = realloc(x->it, nc * sizeof *t);
		if (t == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		x->it = t;
		x->cap = nc;
	}
	it = &x->it[x->n];
	memset(it, 0, sizeof *it);
	memcpy(it->d, d, HASH_LEN);
	it->reason = classify(x, &dec, &why);
	it->why = why;
	it->decision_id = strdup(dec.decision_id);
	it->entry = it->reason == D_NONE ? included_entry(&dec, id) :
	    excluded_entry(&dec, id, it->reason, why);
	it->cell = it->reason == D_NONE ? cell_key(&dec) : NULL;
	if (it->decision_id == NULL || it->entry == NULL || (it->reason == D_NONE && !it->cell)) {
		free(it->decision_id);
		free(it->cell);
		cJSON_Delete(it->entry);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	x->n++;
	return 0;
}

static int
cmp_id(const void *a, const void *b)
{
	const struct ditem *x = *(const struct ditem *const *)a, *y = *(const struct ditem *const *)b;

	return strcmp(x->decision_id, y->decision_id);
}

static int
cmp_cell(const void *a, const void *b)
{
	const struct ditem *x = *(const struct ditem *const *)a, *y = *(const struct ditem *const *)b;
	/* keys hold NULs: compare the four parts in turn */
	const char *p = x->cell, *q = y->cell;

	for (int k = 0; k < 4; k++) {
		int c = strcmp(p, q);
		if (c != 0)
			return c;
		p += strlen(p) + 1;
		q += strlen(q) + 1;
	}
	return 0;
}

/* One count per cell of the included decisions, in cell order. */
static int
add_cells(cJSON *sec, struct ditem **v, size_t n)
{
	cJSON *arr = cJSON_AddArrayToObject(sec, "cells");

	if (arr == NULL)
		return -1;
	qsort(v, n, sizeof *v, cmp_cell);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		const char *f = v[i]->cell, *r = f + strlen(f) + 1, *c = r + strlen(r) + 1,
		    *b = c + strlen(c) + 1;
		cJSON *o = cJSON_CreateObject();
		while (j < n && cmp_cell(&v[i], &v[j]) == 0)
			j++;
		if (o == NULL || !cJSON_AddItemToArray(arr, o) || !json_add_string(o, "family", f) ||
		    !json_add_string(o, "replication", r) || !json_add_string(o, "condition", c) ||
		    !(b[0] ? json_add_string(o, "budget", b) : json_add_null(o, "budget")) ||
		    !json_add_number(o, "decisions", (double)(j - i)))
			return -1;
		i = j;
	}
	return 0;
}

int
freeze_dec_write(struct freeze_dec *x, struct buf *out, struct err *e)
{
	struct ditem **v = malloc((x->n + 1) * sizeof *v);
	cJSON *sec = cJSON_CreateObject(), *inc, *exc;
	size_t ninc = 0, nexc = 0;
	int rc = -1;

	if (v == NULL || sec == NULL)
		goto nomem;
	for (size_t i = 0; i < x->n; i++)
		v[i] = &x->it[i];
	qsort(v, x->n, sizeof *v, cmp_id);
	for (size_t i = 1; i < x->n; i++)
		if (strcmp(v[i - 1]->decision_id, v[i]->decision_id) == 0) {
			err_set(e, ERR_INPUT, "\"decision_id\": \"%.80s\" appears twice", v[i]->decision_id);
			goto done;
		}
	if (!json_add_string(sec, "candidates", x->cand->id) ||
	    !(inc = cJSON_AddArrayToObject(sec, "included")) ||
	    !(exc = cJSON_AddArrayToObject(sec, "excluded")))
		goto nomem;
	for (size_t i = 0; i < x->n; i++) {
		cJSON *c = cJSON_Duplicate(v[i]->entry, 1);
		if (c == NULL || !cJSON_AddItemToArray(v[i]->reason == D_NONE ? inc : exc, c))
			goto nomem;
		if (v[i]->reason == D_NONE)
			v[ninc++] = v[i];
		else
			nexc++;
	}
	cJSON *tot = cJSON_AddObjectToObject(sec, "totals");
	if (tot == NULL || !json_add_number(tot, "decisions", (double)ninc) ||
	    !json_add_number(tot, "excluded", (double)nexc) || add_cells(sec, v, ninc) < 0)
		goto nomem;
	rc = canon_write(sec, out, e);
	goto done;
nomem:
	err_set(e, ERR_NOMEM, "out of memory");
done:
	cJSON_Delete(sec);
	free(v);
	return rc;
}
