/* verify_doc.c: each document in an archive checked as its kind says: a
 * freeze against its store, its spec and its ledgers; a derived document
 * computed again from its inputs; the claims against the gates. */
#define _GNU_SOURCE /* asprintf */
#include "bundle_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../derive/derive.h"
#include "../freeze/freeze.h"
#include "../gate/gate.h"
#include "../json/json.h"
#include "../verify/verify.h"

struct bag_live {
	cJSON *checks;
	const char *subject;
};

static void
on_bag_live(void *p, const char *what, const char *action)
{
	struct bag_live *l = p;

	(void)action;
	bag_check_add(l->checks, "live", l->subject, 0, "%s", what);
}

/* A freeze against its store, when it names one.  The findings, or -1. */
static int
vfreeze_store(struct vctx *vc, const struct vitem *it)
{
	char *sdir, *file;
	const cJSON *doc;
	cJSON *own;
	int r;

	if (it->store[0] == '\0')
		return 0;
	if (it->fast_checks != NULL) {
		/* shown beside the reading: its checks where the thorough way's go */
		const cJSON *c;
		cJSON_ArrayForEach(c, it->fast_checks) {
			cJSON *d = cJSON_Duplicate(c, 1);
			if (d == NULL || !cJSON_AddItemToArray(vc->checks, d)) {
				cJSON_Delete(d);
				return err_set(vc->e, ERR_NOMEM, "out of memory");
			}
		}
		return 0;
	}
	if ((doc = bundle_vitem_tree(vc, it, &own)) == NULL)
		return -1;
	if (asprintf(&sdir, "%s/%s", bag_root(vc->b), it->store) < 0) {
		cJSON_Delete(own);
		return err_set(vc->e, ERR_NOMEM, "out of memory");
	}
	if (asprintf(&file, "%s/%s", bag_root(vc->b), it->name) < 0) {
		free(sdir);
		cJSON_Delete(own);
		return err_set(vc->e, ERR_NOMEM, "out of memory");
	}
	r = it->fast_tried ? verify_freeze(doc, sdir, vc->jobs, vc->checks, vc->e) :
	    bundle_freeze_vs_store(file, doc, 0, sdir, vc->jobs, vc->checks, vc->e);
	cJSON_Delete(own);
	free(file);
	free(sdir);
	return r < 0 ? -1 : r > 0;
}

/* A freeze made again from the ledger items it derives from (bundle_refreeze,
 * the gate's own check) must be the freeze, byte for byte. */
static int
vfreeze_ledgers(struct vctx *vc, const struct vitem *it)
{
	const cJSON *d, *from = json_get(it->x, "derived_from");
	const char **ledgers = calloc(vc->n + 1, sizeof *ledgers);
	char **own = calloc(vc->n + 1, sizeof *own), *file = NULL;
	struct refreeze o;
	size_t nl = 0;
	int r = -1;

	if (ledgers == NULL || own == NULL)
		goto done;
	if (asprintf(&file, "%s/%s", bag_root(vc->b), it->name) < 0) {
		file = NULL;
		goto done;
	}
	/* its ledgers: those derived_from names, or else those its kind
	 * implies (bundle_ledger_of), as the gate found them */
	for (size_t j = 0; j < vc->n && nl < vc->n; j++) {
		int named = 0;
		if (!vc->v[j].good || vc->v[j].doc != NULL)
			continue;
		cJSON_ArrayForEach(d, from)
			named |= cJSON_IsString(d) && strcmp(vc->v[j].role, d->valuestring) == 0;
		if (asprintf(&own[nl], "%s/%s", bag_root(vc->b), vc->v[j].name) < 0)
			goto done;
		if (from != NULL ? named : bundle_ledger_of(own[nl], it->doc, it->games)) {
			ledgers[nl] = own[nl];
			nl++;
		} else {
			free(own[nl]);
			own[nl] = NULL;
		}
	}
	if (nl == 0 && it->store[0] == '\0')
		r = !bag_check_add(vc->checks, "freeze-ledgers", it->path, 0,
		    "neither a store nor a ledger in the bag to check the freeze against");
	else if (nl == 0)
		r = 0;
	else if ((r = bundle_refreeze(it->doc, it->games != NULL, file, ledgers, nl, vc->jobs, &o, vc->e)) == 2)
		r = !bag_check_add(vc->checks, "freeze-ledgers", it->path, 0,
		    "its ledgers in the bag no longer freeze: %s", o.why.msg);
	else if (r == 1)
		bag_check_add(vc->checks, "freeze-ledgers", it->path, 0, "freezing its %zu ledger%s in "
		    "the bag again gives %s; included games: %ld changed, %ld added, %ld gone%s%s", nl,
		    nl == 1 ? "" : "s", o.again, o.changed, o.added, o.removed,
		    o.first[0] ? "; first: " : "", o.first);
	else if (r == 0 && o.live > 0)
		r = !bag_check_add(vc->checks, "freeze-ledgers", it->path, 0,
		    "its ledgers in the bag hold %ld live game%s inside its cut (first: %s)", o.live,
		    o.live == 1 ? "" : "s", o.first_live);
	else if (r == 0 && o.after > 0)
		bag_check_add(vc->checks, "freeze-ledgers", it->path, 1,
		    "freezing its %zu ledger%s in the bag again gives it, but for %ld game%s after "
		    "its cut that it leaves out", nl, nl == 1 ? "" : "s", o.after,
		    o.after == 1 ? "" : "s");
	else if (r == 0)
		bag_check_add(vc->checks, "freeze-ledgers", it->path, 1,
		    "freezing its %zu ledger%s in the bag again gives it byte for byte", nl,
		    nl == 1 ? "" : "s");
done:
	for (size_t j = 0; own && j < nl; j++)
		free(own[j]);
	free(file);
	free(own);
	free(ledgers);
	return r < 0 && vc->e->code == ERR_OK ? err_set(vc->e, ERR_NOMEM, "out of memory") : r;
}

/* A freeze embeds its spec and names it by "spec_id": the embedded spec
 * must have that identity, and so must every spec item it derives from. */
static int
vfreeze_spec(struct vctx *vc, const struct vitem *it)
{
	const cJSON *sid = json_get(it->doc, "spec_id"), *d;
	char have[HASH_ID_LEN + 1];
	int findings = 0;

	if (canon_id(json_get(it->doc, "spec"), have, vc->e) < 0)
		return vc->e->code == ERR_NOMEM ? -1 : !bag_check_add(vc->checks, "spec", it->path, 0,
		    "its embedded spec cannot be read: %s", vc->e->msg);
	if (!cJSON_IsString(sid) || strcmp(sid->valuestring, have) != 0)
		return !bag_check_add(vc->checks, "spec", it->path, 0, "spec_id says %.80s, its "
		    "embedded spec is %s", cJSON_IsString(sid) ? sid->valuestring : "(none)", have);
	cJSON_ArrayForEach(d, json_get(it->x, "derived_from"))
		for (size_t j = 0; cJSON_IsString(d) && j < vc->n; j++) {
			const struct vitem *s = &vc->v[j];
			if (!s->good || s->kind == NULL || strcmp(s->kind, "cohort.spec/1") != 0 ||
			    strcmp(s->role, d->valuestring) != 0)
				continue;
			if (strcmp(s->doc_id, have) != 0)
				findings += !bag_check_add(vc->checks, "spec", it->path, 0, "it embeds spec "
				    "%s; the spec it derives from (%.200s) is %s", have, s->path, s->doc_id);
			else
				bag_check_add(vc->checks, "spec", it->path, 1, "it embeds %s, the spec it "
				    "derives from (%.200s)", have, s->path);
		}
	return findings;
}

/* A derived document computed again from the input it records itself. */
static int
vderived(struct vctx *vc, const struct vitem *it)
{
	const cJSON *in = json_get(it->doc, "input"), *from;
	const struct vitem *src = cJSON_IsString(in) ? bundle_vitem_by_id(vc, in->valuestring) : NULL;
	struct err fe = ERR_INIT;
	char *sdir = NULL;
	cJSON *own = NULL;
	int r;

	if (src == NULL || src->doc == NULL)
		return !bag_check_add(vc->checks, "refit", it->path, 0,
		    "its input %.80s is not a document in the bag",
		    cJSON_IsString(in) ? in->valuestring : "(none recorded)");
	from = src->doc;
	if (bundle_needs_tree(it->kind, src->games != NULL, src->doc_id) &&
	    (from = bundle_vitem_tree(vc, src, &own)) == NULL)
		return -1;
	if (src->store[0] && asprintf(&sdir, "%s/%s", bag_root(vc->b), src->store) < 0) {
		cJSON_Delete(own);
		return err_set(vc->e, ERR_NOMEM, "out of memory");
	}
	struct derive_env env = { sdir, NULL, src->doc_id[0] ? src->doc_id : NULL };
	r = derive_check(it->kind, it->doc, from, it->path, &env, vc->checks, &fe);
	cJSON_Delete(own);
	free(sdir);
	if (r < 0 && fe.code == ERR_NOMEM)
		return err_set(vc->e, ERR_NOMEM, "%s", fe.msg);
	if (r < 0)
		return !bag_check_add(vc->checks, "refit", it->path, 0, "%s", fe.msg);
	return r > 0;
}

/* A document computed from several (a gate), computed again from the
 * bag's documents it names. */
static int
vderived_many(struct vctx *vc, const struct vitem *it)
{
	const char *ids[256];
	const cJSON *in[256];
	cJSON *own[256] = { NULL };
	struct err fe = ERR_INIT;
	size_t n;
	int r = 0;

	if (derive_input_ids(it->kind, it->doc, ids, 256, &n, &fe) < 0)
		return !bag_check_add(vc->checks, "refit", it->path, 0, "%s", fe.msg);
	for (size_t j = 0; j < n && r == 0; j++) {
		const struct vitem *src = bundle_vitem_by_id(vc, ids[j]);
		if (src == NULL || src->doc == NULL)
			r = !bag_check_add(vc->checks, "refit", it->path, 0,
			    "its input %.80s is not a document in the bag", ids[j]);
		else if ((in[j] = bundle_vitem_tree(vc, src, &own[j])) == NULL)
			r = -1;
	}
	if (r == 0 && (r = derive_check_set(it->kind, it->doc, in, n, it->path, NULL, vc->checks,
	                       &fe)) < 0)
		r = fe.code == ERR_NOMEM ? err_set(vc->e, ERR_NOMEM, "%s", fe.msg) :
		    !bag_check_add(vc->checks, "refit", it->path, 0, "%s", fe.msg);
	for (size_t j = 0; j < n; j++)
		cJSON_Delete(own[j]);
	return r < 0 ? -1 : r > 0;
}

int
bundle_vclaims(struct vctx *vc, const cJSON *doc)
{
	const cJSON *v;
	int findings = 0;

	cJSON_ArrayForEach(v, json_get(doc, "claims")) {
		const char *gates = cJSON_IsString(v) ? bundle_claim_gates(v->valuestring) : NULL;
		if (gates == NULL) {
			findings += !bag_check_add(vc->checks, "claims", vc->bdoc, 0, "an unknown claim");
			continue;
		}
		for (const char *g = gates; *g; g++) {
			int pass = 0;
			for (size_t i = 0; i < vc->n; i++) {
				struct err ge = ERR_INIT;
				char gg = 0;
				if (vc->v[i].good && vc->v[i].doc != NULL && vc->v[i].kind != NULL &&
				    strcmp(vc->v[i].kind, "cohort.gate/1") == 0)
					pass |= gate_passes(vc->v[i].doc, &gg, &ge) == 1 && gg == *g;
			}
			findings += !bag_check_add(vc->checks, "claims", v->valuestring, pass,
			    pass ? "gate %c is in the bag and passes" : "gate %c is not in the bag, or does "
			    "not pass", *g);
		}
	}
	return findings;
}

int
bundle_vitem_document(struct vctx *vc, const struct vitem *it, int part)
{
	struct bag_live bl = { vc->checks, it->path };
	int findings = 0, r = 0;

	if (part == 1)
		return it->kind != NULL && strcmp(it->kind, "cohort.freeze/1") == 0 ?
		    vfreeze_ledgers(vc, it) : 0;
	findings = (int)freeze_live(it->doc, on_bag_live, &bl);
	if (it->kind == NULL)
		return findings;
	if (strcmp(it->kind, "cohort.freeze/1") == 0) {
		if ((r = vfreeze_store(vc, it)) >= 0) {
			findings += r;
			r = vfreeze_spec(vc, it);
		}
	} else if (derive_many(it->kind)) {
		r = vderived_many(vc, it);
	} else if (derive_known(it->kind)) {
		r = vderived(vc, it);
	} else if (derive_is_input(it->kind)) {
		r = derive_input_check(it->kind, it->doc, it->path, vc->checks, vc->e);
	}
	return r < 0 ? -1 : findings + r;
}
