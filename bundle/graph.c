/* graph.c: what each document derives from (derived_from as given, or
 * implied by the kinds), and the gate's quick checks on it: missing,
 * stale by identity, live, the cut, the claims. */
#include "bundle_int.h"

#include <stdio.h>
#include <string.h>

#include "../common/ts.h"
#include "../derive/derive.h"
#include "../freeze/freeze.h"
#include "../gate/gate.h"
#include "../json/json.h"
#include "../protocol/games.h"
#include "../protocol/ledger.h"

const struct item *
bundle_item_by_role(const struct ctx *c, const char *role)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->it[i].role, role) == 0)
			return &c->it[i];
	return NULL;
}

const struct item *
bundle_item_by_id(const struct ctx *c, const char *id)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->it[i].file && (strcmp(c->it[i].file->id, id) == 0 || strcmp(c->it[i].doc_id, id) == 0))
			return &c->it[i];
	return NULL;
}

static int
is_id(const char *s)
{
	uint8_t d[HASH_LEN];
	return hash_id_parse(s, d) == 0;
}

/* The input identities a document records: "input", "inputs", "freeze"
 * (strings, or arrays and objects of them). */
static void
collect_ids(const cJSON *v, cJSON *out)
{
	const cJSON *x;

	if (cJSON_IsString(v) && is_id(v->valuestring)) {
		cJSON_ArrayForEach(x, out)
			if (strcmp(x->valuestring, v->valuestring) == 0)
				return;
		cJSON_AddItemToArray(out, cJSON_CreateString(v->valuestring));
	} else if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
		cJSON_ArrayForEach(x, v)
			collect_ids(x, out);
	}
}

cJSON *
bundle_recorded_inputs(const cJSON *doc)
{
	static const char *keys[] = { "input", "inputs", "freeze", "source", "prereg" };
	cJSON *out = cJSON_CreateArray();

	for (size_t i = 0; out && i < sizeof keys / sizeof keys[0]; i++)
		collect_ids(json_get(doc, keys[i]), out);
	return out;
}

static int
in_list(const cJSON *list, const char *id)
{
	const cJSON *x;
	cJSON_ArrayForEach(x, list)
		if (strcmp(x->valuestring, id) == 0)
			return 1;
	return 0;
}

/* A ledger's first record: its game_id kept, and one is enough. */
static int
first_game(void *ctx, cJSON *rec, const struct ledger_loc *loc, struct err *e)
{
	const cJSON *g = json_get(rec, "game_id");

	if (cJSON_IsString(g))
		snprintf(ctx, 256, "%s", g->valuestring);
	return err_set(e, ERR_FINDING, "one record read");
}

/* 1 when the freeze doc lists the game id among its games (or those held
 * flat in games, when not NULL) or exclusions. */
static int
freeze_lists(const cJSON *doc, const struct freeze_games *games, const char *id)
{
	static const char *lists[] = { "games", "excluded" };
	const cJSON *x, *g;

	for (size_t k = 0; k < 2; k++)
		cJSON_ArrayForEach(x, json_get(doc, lists[k]))
			if (cJSON_IsString(g = json_get(x, "game_id")) && strcmp(g->valuestring, id) == 0)
				return 1;
	return games != NULL && freeze_games_has(games, id);
}

int
bundle_ledger_of(const char *path, const cJSON *doc, const struct freeze_games *games)
{
	char id[256] = "";
	struct err e = ERR_INIT;

	ledger_read(path, first_game, id, &e);
	return id[0] != '\0' && freeze_lists(doc, games, id);
}

/* 1 when it records src's identity as its input (a freeze: its spec). */
static int
records(const struct item *it, const struct item *src)
{
	cJSON *ins;
	int r;

	if (strcmp(it->kind, "cohort.freeze/1") == 0) {
		ins = cJSON_CreateArray();
		collect_ids(json_get(it->doc, "spec_id"), ins);
	} else {
		ins = bundle_recorded_inputs(it->doc);
	}
	r = (src->file != NULL && in_list(ins, src->file->id)) ||
	    (src->doc_id[0] && in_list(ins, src->doc_id));
	cJSON_Delete(ins);
	return r;
}

/* Whether src is what it derives from, by their kinds (derive_from_kind):
 * 1, 0, or -1 when it's kind implies no inputs. */
static int
derives(const struct item *it, const struct item *src)
{
	if (it->doc == NULL || it->kind == NULL)
		return -1;
	return derive_from_kind(it->kind, src->doc != NULL ? src->kind : NULL);
}

/* The roles it derives from, where the spec gives none: the items its
 * kind derives from that it records (a freeze: its spec, and the ledgers
 * whose games it lists), or the one item of such a kind when it records
 * none of them, so that a stale document is found stale. */
static int
imply_one(struct ctx *c, struct item *it)
{
	const struct item *only = NULL;
	size_t cand = 0;
	int freeze = strcmp(it->kind, "cohort.freeze/1") == 0, r;

	if ((it->implied = cJSON_CreateArray()) == NULL)
		return err_set(c->e, ERR_NOMEM, "out of memory");
	for (size_t j = 0; j < c->n; j++) {
		const struct item *src = &c->it[j];
		if (src == it || src->file == NULL || derives(it, src) != 1)
			continue;
		if (freeze && src->doc == NULL)
			r = bundle_ledger_of(src->file->abs, it->doc, it->games);
		else
			r = records(it, src);
		cand++;
		only = src;
		if (r)
			cJSON_AddItemToArray(it->implied, cJSON_CreateString(src->role));
	}
	if (cJSON_GetArraySize(it->implied) == 0 && cand == 1 && !derive_many(it->kind) &&
	    (!freeze || only->doc != NULL))
		cJSON_AddItemToArray(it->implied, cJSON_CreateString(only->role));
	it->derived = it->implied;
	return 0;
}

int
bundle_imply_graph(struct ctx *c)
{
	for (size_t i = 0; i < c->n; i++) {
		struct item *it = &c->it[i];
		const cJSON *d;
		if (it->doc == NULL || it->kind == NULL || derive_from_kind(it->kind, "") < 0)
			continue;
		if (it->derived == NULL) {
			if (imply_one(c, it) < 0)
				return -1;
			continue;
		}
		cJSON_ArrayForEach(d, it->derived) {
			const struct item *src = bundle_item_by_role(c, d->valuestring);
			if (src == it)
				return bundle_spec_err(c, it->index, "derived_from", "role \"%s\" is the item itself",
				    d->valuestring);
			if (src != NULL && src->exists && derives(it, src) == 0)
				return bundle_spec_err(c, it->index, "derived_from", "role \"%s\" is %s%s%s, and a "
				    "%s is not derived from %s: name what it derives from, or leave "
				    "derived_from out and let its kind say", d->valuestring,
				    src->doc && src->kind ? "a " : "a file that is no cohort document",
				    src->doc && src->kind ? src->kind : "", src->doc && src->kind ? " document" : "",
				    it->kind, src->doc && src->kind ? "one" : "such a file");
		}
	}
	return 0;
}

void
bundle_check_missing(struct ctx *c)
{
	const cJSON *req = json_get(c->spec, "require"), *r;

	cJSON_ArrayForEach(r, req)
		if (bundle_item_by_role(c, r->valuestring) == NULL)
			bundle_finding(c, "missing", NULL, NULL, 0,
			    "add an item with this role to the bundle spec (or drop it from \"require\" if "
			    "the publication does not need it)",
			    "the publication requires role \"%s\" and no item has it", r->valuestring);
	for (size_t i = 0; i < c->n; i++) {
		const struct item *it = &c->it[i];
		const cJSON *d;
		if (!it->exists)
			bundle_finding(c, "missing", it, it->path, 0,
			    "produce the file, or correct its path in the bundle spec",
			    "%s does not exist", it->path);
		cJSON_ArrayForEach(d, it->derived)
			if (bundle_item_by_role(c, d->valuestring) == NULL)
				bundle_finding(c, "missing", it, it->path, 0,
				    "add the input it was derived from to the bundle spec",
				    "derived from role \"%s\", which no item has", d->valuestring);
	}
}

void
bundle_check_inputs(struct ctx *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct item *it = &c->it[i];
		const cJSON *d, *x;
		cJSON *ins;
		int stale = 0;

		int freeze = it->kind && strcmp(it->kind, "cohort.freeze/1") == 0;

		if (it->doc == NULL)
			continue;
		/* a freeze embeds its spec and names it by "spec_id"; its ledgers are
		 * checked by freezing them again */
		if (freeze) {
			ins = cJSON_CreateArray();
			collect_ids(json_get(it->doc, "spec_id"), ins);
		} else {
			ins = bundle_recorded_inputs(it->doc);
		}
		if (ins == NULL)
			continue;
		cJSON_ArrayForEach(d, it->derived) {
			const struct item *src = bundle_item_by_role(c, d->valuestring);
			if (src == NULL || src->file == NULL || (freeze && src->doc == NULL))
				continue;
			if (in_list(ins, src->file->id) || (src->doc_id[0] && in_list(ins, src->doc_id)))
				continue;
			stale = 1;
			if (cJSON_GetArraySize(ins) == 0)
				bundle_finding(c, "stale", it, it->path, 0,
				    "derive it again from the bundled input with the tool, and bundle again",
				    "derived from role \"%s\" but records no input identity", d->valuestring);
			else
				bundle_finding(c, "stale", it, it->path, 0,
				    "derive it again from the bundled input with the tool, and bundle again",
				    "records input %s, but the \"%s\" item now in the bundle is %s",
				    cJSON_GetArrayItem(ins, 0)->valuestring, d->valuestring,
				    src->doc_id[0] ? src->doc_id : src->file->id);
		}
		if (!stale && !freeze)
			cJSON_ArrayForEach(x, ins)
				if (bundle_item_by_id(c, x->valuestring) == NULL)
					bundle_finding(c, "missing", it, it->path, 0,
					    "add the input document to the bundle spec (with derived_from)",
					    "names input %s, which is not in the bundle", x->valuestring);
		cJSON_Delete(ins);
	}
}

void
bundle_check_claims(struct ctx *c)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, json_get(c->spec, "claims")) {
		for (const char *g = bundle_claim_gates(v->valuestring); *g; g++) {
			const struct item *found = NULL;
			char gg = 0, sum[512];
			struct err ge = ERR_INIT;
			int pass = 0;
			for (size_t i = 0; i < c->n; i++)
				if (c->it[i].doc != NULL && c->it[i].kind != NULL &&
				    strcmp(c->it[i].kind, "cohort.gate/1") == 0 &&
				    gate_passes(c->it[i].doc, &gg, &ge) >= 0 && gg == *g &&
				    (found == NULL || !pass)) {
					found = &c->it[i];
					pass = gate_passes(found->doc, &gg, &ge) == 1;
				}
			if (found == NULL)
				bundle_finding(c, "missing", NULL, NULL, 0,
				    "judge the gate on its evidence (cohort gate) and add the gate document "
				    "as an item, or drop the claim",
				    "the claim \"%s\" needs gate %c, and no item is a gate %c document",
				    v->valuestring, *g, *g);
			else if (!pass) {
				gate_summary(found->doc, sum, sizeof sum);
				bundle_finding(c, "invalid", found, found->path, 0,
				    "make the claim only once the gate passes, or drop the claim",
				    "the claim \"%s\" needs gate %c to pass: %s", v->valuestring, *g, sum);
			}
		}
	}
}

struct live_ctx {
	struct ctx *c;
	const struct item *it;
};

static void
on_live(void *p, const char *what, const char *action)
{
	struct live_ctx *l = p;

	bundle_finding(l->c, "live", l->it, l->it->path, 0, action, "%s", what);
}

void
bundle_check_live(struct ctx *c)
{
	for (size_t i = 0; i < c->n; i++) {
		struct live_ctx l = { c, &c->it[i] };
		if (c->it[i].doc != NULL)
			freeze_live(c->it[i].doc, on_live, &l);
	}
}

void
bundle_check_cuts(struct ctx *c)
{
	struct ts bundle, cut;

	if (ts_parse(c->as_of, &bundle) < 0)
		return;
	for (size_t i = 0; i < c->n; i++) {
		const struct item *it = &c->it[i];
		const cJSON *as_of = it->doc != NULL ? json_get(it->doc, "as_of") : NULL;
		if (it->kind == NULL || strcmp(it->kind, "cohort.freeze/1") != 0 ||
		    !cJSON_IsString(as_of) || ts_parse(as_of->valuestring, &cut) < 0)
			continue;
		if (ts_cmp(cut, bundle) > 0)
			bundle_finding(c, "invalid", it, it->path, 0,
			    "set the bundle spec's as_of to the freeze's cut or later, or bundle a freeze "
			    "cut by then", "the freeze's cut (as_of %.40s) is after the bundle's as_of "
			    "(%.40s): the bundle would date games played after it", as_of->valuestring,
			    c->as_of);
	}
}
