/* slow.c: the gate's slow checks (each freeze's ledgers frozen again, its
 * store checked, each derived document computed again), computed on a
 * pool of threads into a slot an item, and reported in item order. */
#define _GNU_SOURCE /* asprintf */
#include "bundle_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/pool.h"
#include "../derive/derive.h"
#include "../json/json.h"

/* What an append-only ledger added since the freeze: games after the cut
 * in a note (never a finding), live games inside it as live. */
static void
appended(struct ctx *c, const struct item *it, const struct refreeze *o)
{
	char msg[512];

	if (o->after > 0 && c->o->note != NULL) {
		snprintf(msg, sizeof msg, "%s: its ledgers hold %ld game%s after its cut (as_of), "
		    "left out as the freeze left them: for the next freeze", it->path, o->after,
		    o->after == 1 ? "" : "s");
		c->o->note(c->o->note_ctx, msg);
	}
	if (o->live > 0)
		bundle_finding(c, "live", it, it->path, 0,
		    "let the live games finish, freeze again and bundle the new freeze",
		    "%ld game%s inside the cut %s live in its ledgers now, not in the freeze "
		    "(first: %s)", o->live, o->live == 1 ? "" : "s", o->live == 1 ? "is" : "are",
		    o->first_live);
}

/* What the slow checks computed for one item, on a thread of the pool
 * (bundle_slow_run), each into a slot of its own; the checks below then report
 * from the slots in item order, as they would have computed them one
 * after another, so the findings are the same bytes on any number of
 * threads. */
struct slot {
	int fr_ran, fr;             /* its ledgers frozen again: ran, bundle_refreeze's result */
	size_t fr_nl;
	struct refreeze o;
	struct err fe;
	int rf_ran, rf;             /* computed again from its inputs: ran, derive's result */
	int rf_ids;                 /* a many-input kind whose inputs cannot be read (rfe) */
	struct err rfe;
	int st_ran, st;             /* against its store: ran, verify's result */
	cJSON *st_checks;
	struct err se;
};

/* Freeze the ledger items a freeze is derived from again. */
static void
slow_ledgers(struct ctx *c, const struct item *it, struct slot *s)
{
	const cJSON *d;
	const char **ledgers;
	size_t nl = 0;

	if (it->doc == NULL || it->kind == NULL || strcmp(it->kind, "cohort.freeze/1") != 0 ||
	    it->derived == NULL || json_get(it->doc, "spec") == NULL)
		return;
	s->fr_ran = 1;
	ledgers = calloc((size_t)cJSON_GetArraySize(it->derived) + 1, sizeof *ledgers);
	if (ledgers == NULL) {
		s->fr = err_set(&s->fe, ERR_NOMEM, "out of memory");
		return;
	}
	cJSON_ArrayForEach(d, it->derived) {
		const struct item *src = bundle_item_by_role(c, d->valuestring);
		if (src && src->file && src->doc == NULL)
			ledgers[nl++] = src->file->abs;
	}
	s->fr_nl = nl;
	s->fr = nl > 0 ? bundle_refreeze(it->doc, it->games != NULL, it->file->abs, ledgers, nl, c->o->jobs,
	    &s->o, &s->fe) : 0;
	free(ledgers);
}

int
bundle_check_freeze_ledgers(struct ctx *c, struct slot *slots, int *ran)
{
	*ran = 1;
	for (size_t i = 0; i < c->n; i++) {
		struct item *it = &c->it[i];
		const struct refreeze *o = &slots[i].o;
		size_t nl = slots[i].fr_nl;
		int r = slots[i].fr;

		if (!slots[i].fr_ran)
			continue;
		if (r < 0) {
			*c->e = slots[i].fe;
			return -1;
		}
		if (r == 2)
			bundle_finding(c, "stale", it, it->path, 0, "fix the ledgers, freeze again and bundle again",
			    "its ledgers no longer freeze: %s", o->why.msg);
		else if (r == 1 && o->added > 0 && o->changed == 0 && o->removed == 0)
			bundle_finding(c, "stale", it, it->path, 0,
			    "freeze the ledgers again (same spec and cut) and bundle the new freeze",
			    "a game inside the cut was added to its ledgers (%ld in all; first: %s): "
			    "freeze again (freezing them gives %s)", o->added, o->first, o->again);
		else if (r == 1)
			bundle_finding(c, "stale", it, it->path, 0,
			    "freeze the ledgers again (same spec and cut) and bundle the new freeze",
			    "no longer matches its ledgers: freezing them again gives %s; included games: "
			    "%ld changed, %ld added, %ld gone%s%s", o->again, o->changed, o->added, o->removed,
			    o->first[0] ? "; first: " : "", o->first);
		else if (r == 0 && nl > 0)
			appended(c, it, o);
	}
	return 0;
}

/* A fit, bound or later document computed again from the bundled
 * documents it names (derive/derive.h); one whose input is not in the
 * bundle is reported missing or stale already. */
static void
slow_refit(struct ctx *c, const struct item *it, struct slot *s)
{
	const char *ids[256];
	const cJSON *in[256], *inid;
	cJSON *own[256] = { NULL };
	const struct item *src;
	size_t n, m = 0;
	cJSON *scratch;
	char *sdir = NULL;

	if (it->doc == NULL || !derive_known(it->kind))
		return;
	if (derive_many(it->kind)) {
		if (derive_input_ids(it->kind, it->doc, ids, 256, &n, &s->rfe) < 0) {
			s->rf_ids = 1;
			return;
		}
		for (size_t j = 0; j < n; j++) {
			if ((src = bundle_item_by_id(c, ids[j])) == NULL || src->doc == NULL)
				break;
			if ((in[m] = bundle_doc_tree(src->file->abs, src->doc, src->games != NULL, &own[m],
			         &s->rfe)) == NULL) {
				s->rf = -1;
				s->rf_ran = 1;
				break;
			}
			m++;
		}
		if (m == n) {
			scratch = cJSON_CreateArray();
			s->rf = derive_check_set(it->kind, it->doc, in, m, it->path, NULL, scratch, &s->rfe);
			s->rf_ran = 1;
			cJSON_Delete(scratch);
		}
		for (size_t j = 0; j < m; j++)
			cJSON_Delete(own[j]);
		return;
	}
	inid = json_get(it->doc, "input");
	src = cJSON_IsString(inid) ? bundle_item_by_id(c, inid->valuestring) : NULL;
	if (src == NULL || src->doc == NULL)
		return;
	s->rf_ran = 1;
	if ((in[0] = bundle_doc_tree(src->file->abs, src->doc,
	         bundle_needs_tree(it->kind, src->games != NULL, src->doc_id), &own[0], &s->rfe)) == NULL) {
		s->rf = -1;
		return;
	}
	scratch = cJSON_CreateArray();
	if (src->store != NULL && asprintf(&sdir, "%s/%s", c->dir, src->store) < 0)
		sdir = NULL;
	struct derive_env env = { sdir, NULL, src->doc_id[0] ? src->doc_id : NULL };
	s->rf = derive_check(it->kind, it->doc, in[0], it->path, &env, scratch, &s->rfe);
	free(sdir);
	cJSON_Delete(scratch);
	cJSON_Delete(own[0]);
}

int
bundle_check_refits(struct ctx *c, const struct slot *slots)
{
	for (size_t i = 0; i < c->n; i++)
		if (slots[i].rf_ran && slots[i].rf < 0 && slots[i].rfe.code == ERR_NOMEM)
			return err_set(c->e, ERR_NOMEM, "%s: %s", c->it[i].path, slots[i].rfe.msg);
	for (size_t i = 0; i < c->n; i++) {
		const struct item *it = &c->it[i], *src;
		const struct slot *s = &slots[i];

		if (s->rf_ids)
			bundle_finding(c, "invalid", it, it->path, 0, "compute it again with the tool, and bundle again",
			    "%s", s->rfe.msg);
		if (!s->rf_ran)
			continue;
		if (derive_many(it->kind)) {
			if (s->rf != 0)
				bundle_finding(c, "stale", it, it->path, 0,
				    "compute it again from the bundled inputs with the tool, and bundle again",
				    "computing it again from the documents it names does not reproduce it "
				    "byte for byte%s%s", s->rf < 0 ? ": " : "", s->rf < 0 ? s->rfe.msg : "");
			continue;
		}
		src = bundle_item_by_id(c, json_get(it->doc, "input")->valuestring);
		if (s->rf < 0)
			bundle_finding(c, "stale", it, it->path, 0,
			    "compute it again from the bundled input with the tool, and bundle again",
			    "cannot be computed again from %s: %s", src->path, s->rfe.msg);
		else if (s->rf > 0)
			bundle_finding(c, "stale", it, it->path, 0,
			    "compute it again from the bundled input with the tool, and bundle again",
			    "computing it again from %s does not reproduce it byte for byte", src->path);
	}
	return 0;
}

/* A freeze's bundled store checked against it (verify's own check). */
static void
slow_store(struct ctx *c, const struct item *it, struct slot *s)
{
	char *dir;

	if (it->doc == NULL || it->kind == NULL || strcmp(it->kind, "cohort.freeze/1") != 0 ||
	    it->store == NULL || !it->store_exists)
		return;
	s->st_ran = 1;
	if (asprintf(&dir, "%s/%s", c->dir, it->store) < 0) {
		s->st = -2;
		return;
	}
	if ((s->st_checks = cJSON_CreateArray()) == NULL)
		s->st = -2;
	else
		s->st = bundle_freeze_vs_store(it->file->abs, it->doc, it->games != NULL, dir, c->o->jobs,
		    s->st_checks, &s->se);
	free(dir);
}

int
bundle_check_stores(struct ctx *c, const struct slot *slots)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct item *it = &c->it[i];
		const struct slot *s = &slots[i];
		const cJSON *x;
		int bad = 0;
		const char *first = NULL;

		if (!s->st_ran)
			continue;
		if (s->st == -2)
			return err_set(c->e, ERR_NOMEM, "out of memory");
		cJSON_ArrayForEach(x, s->st_checks)
			if (cJSON_IsFalse(json_get(x, "ok"))) {
				const cJSON *d = json_get(x, "detail"), *ck = json_get(x, "check");
				if (bad++ == 0)
					first = cJSON_IsString(d) ? d->valuestring :
					    cJSON_IsString(ck) ? ck->valuestring : "?";
			}
		if (s->st < 0)
			bundle_finding(c, "invalid", it, it->store, 0,
			    "freeze again with --store into this folder, and bundle again",
			    "the store cannot be read: %s", s->se.msg);
		else if (s->st > 0)
			bundle_finding(c, "stale", it, it->store, 0,
			    "freeze again with --store into this folder, and bundle again",
			    "the store does not match the freeze: %d check%s fail (first: %s)", bad,
			    bad == 1 ? "" : "s", first ? first : "?");
	}
	return 0;
}

/* The slow checks' computations at once: job 3i + k is item i's ledgers
 * (k 0), store (k 1) or computation again (k 2). */
struct slow {
	struct ctx *c;
	struct slot *slots;
};

static void
slow_job(void *arg, size_t j, int worker)
{
	struct slow *w = arg;
	const struct item *it = &w->c->it[j / 3];
	struct slot *s = &w->slots[j / 3];

	(void)worker;
	if (j % 3 == 0)
		slow_ledgers(w->c, it, s);
	else if (j % 3 == 1)
		slow_store(w->c, it, s);
	else
		slow_refit(w->c, it, s);
}

struct slot *
bundle_slow_run(struct ctx *c)
{
	struct slot *slots = calloc(c->n + 1, sizeof *slots);
	struct slow w = { c, slots };
	int threads = (c->o->jobs > 0 ? c->o->jobs : pool_cpus()) - 1;
	struct pool *p;

	if (slots == NULL)
		return NULL;
	if ((size_t)threads > 3 * c->n)
		threads = (int)(3 * c->n);
	if ((p = pool_new(threads)) == NULL) {
		free(slots);
		return NULL;
	}
	pool_run(p, 3 * c->n, slow_job, &w);
	pool_free(p);
	return slots;
}

void
bundle_slots_free(struct slot *slots, size_t n)
{
	for (size_t i = 0; slots != NULL && i < n; i++)
		cJSON_Delete(slots[i].st_checks);
	free(slots);
}
