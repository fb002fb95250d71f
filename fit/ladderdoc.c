/* ladderdoc.c: `cohort ladder next`: replay one condition's blocks with the
 * spec's ladder policy (protocol/ladder.h, the code freeze uses) and report the
 * next anchor or the stop, the rule that fired and every deviation. */
#include "ladderdoc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/io.h"
#include "../json/json.h"
#include "../protocol/ladder.h"
#include "../protocol/spec.h"

/* The condition's blocks in block order; entries sharing a block index
 * (one per color) are one ladder block. */
static int
condition_blocks(const struct blocks *c, const char *fam, const char *cond, struct ladder_block *lb,
                 size_t *n, struct err *e)
{
	long *idx = malloc(c->n * sizeof *idx);
	size_t k = 0;

	if (idx == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < c->n; i++) {
		const struct blocks_block *b = &c->b[i];
		size_t j;
		if (strcmp(b->condition, cond) != 0 || strcmp(b->family, fam) != 0)
			continue;
		for (j = 0; j < k && idx[j] != b->block; j++)
			;
		if (j < k) {
			if (lb[j].anchor != b->anchor) {
				free(idx);
				return err_set(e, ERR_INPUT,
				               "%s: condition %s, block %ld: two anchors "
				               "(%g and %g)",
				               c->name, cond, b->block, lb[j].anchor, b->anchor);
			}
			lb[j].w += b->w, lb[j].d += b->d, lb[j].l += b->l;
			continue;
		}
		/* insertion in block order */
		for (j = k; j > 0 && idx[j - 1] > b->block; j--) {
			idx[j] = idx[j - 1];
			lb[j] = lb[j - 1];
		}
		idx[j] = b->block;
		lb[j].anchor = b->anchor;
		lb[j].w = b->w, lb[j].d = b->d, lb[j].l = b->l;
		k++;
	}
	free(idx);
	*n = k;
	return 0;
}

/* The family whose blocks of cond are replayed: want, or the only family
 * that has cond ("" when the document names none). */
static int
pick_family(const struct blocks *c, const char *cond, const char *want, const char **fam,
            struct err *e)
{
	const char *one = NULL;
	int several = 0;

	for (size_t u = 0; u < c->nunit; u++) {
		const struct blocks_unit *x = &c->units[u];
		if (strcmp(x->condition, cond) != 0)
			continue;
		if (want != NULL && strcmp(x->family, want) == 0) {
			*fam = x->family;
			return 0;
		}
		several |= one != NULL && strcmp(one, x->family) != 0;
		one = x->family;
	}
	if (want != NULL)
		return err_set(e, ERR_INPUT, "--family: %s has no family %s with condition %s", c->name,
		               want, cond);
	if (several)
		return err_set(e, ERR_USAGE, "--family: condition %s of %s belongs to several "
		               "families: name one", cond, c->name);
	*fam = one ? one : "";
	return 0;
}

static int
spec_has_condition(const cJSON *spec, const char *cond)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, json_get(spec, "conditions")) if (cJSON_IsString(it) &&
	                                                         strcmp(it->valuestring, cond) ==
	                                                             0) return 1;
	return 0;
}

/* "last": the last block played (its anchor, W-D-L and score), or null. */
static int
put_last(cJSON *doc, const struct ladder_block *lb, size_t n, const struct ladder_state *st)
{
	cJSON *last;

	if (n == 0)
		return json_add_null(doc, "last") ? 0 : -1;
	if (!(last = cJSON_AddObjectToObject(doc, "last")) ||
	    !json_add_number(last, "anchor", json_round(lb[n - 1].anchor, 0.01)) ||
	    !json_add_number(last, "w", lb[n - 1].w) ||
	    !json_add_number(last, "d", lb[n - 1].d) ||
	    !json_add_number(last, "l", lb[n - 1].l) ||
	    !json_add_number(last, "score", json_round(st->score, 1e-6)))
		return -1;
	return 0;
}

/* The deviations the replay found, each its block, anchor, the anchor
 * expected (null when the policy had stopped) and why. */
static int
put_deviations(cJSON *dev, const struct ladder_state *st)
{
	for (size_t i = 0; i < st->ndev; i++) {
		cJSON *d = cJSON_CreateObject();
		if (d == NULL || !cJSON_AddItemToArray(dev, d) ||
		    !json_add_number(d, "block", (double)st->dev[i].block) ||
		    !json_add_number(d, "anchor", json_round(st->dev[i].anchor, 0.01)) ||
		    !cJSON_AddItemToObject(
		        d, "expected",
		        isnan(st->dev[i].expected)
		            ? cJSON_CreateNull()
		            : cJSON_CreateNumber(json_round(st->dev[i].expected, 0.01))) ||
		    !json_add_string(d, "why", st->dev[i].why))
			return -1;
	}
	return 0;
}

int
ladder_next_document(const struct blocks *c, const cJSON *spec, const char *spec_id,
                     const char *family, const char *cond, cJSON **out, struct err *e)
{
	struct ladder_policy p;
	struct ladder_state st = LADDER_STATE_INIT;
	struct ladder_block *lb = malloc((c->n ? c->n : 1) * sizeof *lb);
	const cJSON *lad;
	cJSON *doc = NULL, *dev;
	size_t n = 0;
	long games = 0;
	const char *fam = "";

	*out = NULL;
	if (lb == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (json_get_object(spec, "ladder", 1, &lad, e) < 0 || ladder_policy_read(lad, &p, e) < 0) {
		err_prefix(e, "%s", c->is_freeze ? c->name : "spec");
		goto fail;
	}
	if (pick_family(c, cond, family, &fam, e) < 0 || condition_blocks(c, fam, cond, lb, &n, e) < 0)
		goto fail;
	if (n == 0 && !spec_has_condition(spec, cond)) {
		err_set(e, ERR_INPUT, "--condition: %s has no block in %s", cond, c->name);
		goto fail;
	}
	if (ladder_replay(&p, lb, n, &st, e) < 0)
		goto fail;
	for (size_t i = 0; i < n; i++)
		games += lb[i].w + lb[i].d + lb[i].l;
	doc = cJSON_CreateObject();
	if (doc == NULL || !json_add_string(doc, "kind", "cohort.ladder-next/1") ||
	    !json_add_string(doc, "input", c->id) ||
	    !json_add_string(doc, "input_kind",
	                     c->is_freeze ? "cohort.freeze/1" : "cohort.blocks/1") ||
	    !json_add_string(doc, "spec", spec_id) || !json_add_string(doc, "condition", cond) ||
	    (fam[0] != '\0' && !json_add_string(doc, "family", fam)) ||
	    !json_add_number(doc, "blocks", (double)n) ||
	    !json_add_number(doc, "games", (double)games) ||
	    !json_add_string(doc, "state", st.stopped ? "terminal" : "active") ||
	    !json_add_string(doc, "rule", ladder_rule_name(st.rule)) ||
	    !(st.stopped ? json_add_string(doc, "next", "stop")
	                 : json_add_number(doc, "next", json_round(st.next, 0.01))) ||
	    !(dev = cJSON_AddArrayToObject(doc, "deviations")))
		goto nomem;
	if (put_last(doc, lb, n, &st) < 0 || put_deviations(dev, &st) < 0)
		goto nomem;
	ladder_state_release(&st);
	free(lb);
	*out = doc;
	return 0;
nomem:
	err_set(e, ERR_NOMEM, "out of memory");
fail:
	ladder_state_release(&st);
	cJSON_Delete(doc);
	free(lb);
	return -1;
}

int
ladder_next_table(const cJSON *d, struct buf *b, struct err *e)
{
	const cJSON *next = json_get(d, "next"), *last = json_get(d, "last"), *it;
	int rc = 0;

	rc |= buf_printf(b, "%-10s %6s %6s %-22s %-18s %s\n", "condition", "blocks", "games",
	                 "last block", "rule", "next");
	{
		char lastb[64] = "-", nx[32];
		if (cJSON_IsObject(last))
			snprintf(lastb, sizeof lastb, "%.0f %.0f-%.0f-%.0f (%.3f)",
			         json_get(last, "anchor")->valuedouble,
			         json_get(last, "w")->valuedouble, json_get(last, "d")->valuedouble,
			         json_get(last, "l")->valuedouble,
			         json_get(last, "score")->valuedouble);
		if (cJSON_IsString(next))
			snprintf(nx, sizeof nx, "stop");
		else
			snprintf(nx, sizeof nx, "%.0f", next->valuedouble);
		rc |= buf_printf(
		    b, "%-10s %6.0f %6.0f %-22s %-18s %s\n", json_get(d, "condition")->valuestring,
		    json_get(d, "blocks")->valuedouble, json_get(d, "games")->valuedouble, lastb,
		    json_get(d, "rule")->valuestring, nx);
	}
	cJSON_ArrayForEach(it, json_get(d, "deviations")) rc |= buf_printf(
	    b, "  deviation: block %.0f at %.0f: %s\n", json_get(it, "block")->valuedouble,
	    json_get(it, "anchor")->valuedouble, json_get(it, "why")->valuestring);
	return rc < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
}

int
ladder_next_run(const struct ladder_next_options *o, cJSON **out, struct err *e)
{
	struct blocks c = BLOCKS_INIT;
	cJSON *in, *spec_doc = NULL, *doc = NULL;
	const cJSON *spec;
	char spec_id[HASH_ID_LEN + 1];
	int rc = -1;

	*out = NULL;
	in = json_parse_file(o->path, e);
	if (in == NULL)
		return -1;
	if (blocks_read(in, io_name(o->path), &c, e) < 0)
		goto done;
	if (c.is_freeze && o->spec_path) {
		err_set(e, ERR_USAGE,
		        "--spec: a freeze carries its spec; give --spec only with a "
		        "blocks document");
		goto done;
	}
	if (!c.is_freeze && !o->spec_path) {
		err_set(e, ERR_USAGE, "--spec: a blocks document needs the cohort spec");
		goto done;
	}
	if (c.is_freeze) {
		spec = c.spec;
	} else {
		/* the one spec reader: a spec freeze would refuse is refused here */
		struct spec s = SPEC_INIT;
		spec = spec_doc = json_parse_file(o->spec_path, e);
		if (spec == NULL)
			goto done;
		rc = spec_read(spec, &s, e);
		spec_release(&s);
		if (rc < 0) {
			err_prefix(e, "%s", io_name(o->spec_path));
			goto done;
		}
		rc = -1;
	}
	if (canon_id(spec, spec_id, e) < 0 ||
	    ladder_next_document(&c, spec, spec_id, o->family, o->condition, &doc, e) < 0)
		goto done;
	*out = doc;
	doc = NULL;
	rc = 0;
done:
	cJSON_Delete(doc);
	cJSON_Delete(spec_doc);
	blocks_release(&c);
	cJSON_Delete(in);
	return rc;
}
