/* blocks.c: reading W-D-L blocks (blocks.h has the rules). */
#include "blocks.h"

#include <stdlib.h>
#include <string.h>

#include "../common/hash.h"
#include "../json/json.h"
#include "rules.h"

/* Open addressing over (family, condition) pairs: the units, and lists of
 * names (with family NULL).  Sized once for every name the document holds. */
struct pairs {
	size_t cap;                /* a power of two */
	long *slot;                /* index + 1, 0 empty */
	size_t n;
	struct blocks_unit *p;     /* the pairs, in order */
};

static size_t
pair_hash(const char *a, const char *b)
{
	uint64_t h = hash_fnv(HASH_FNV_BASIS, a ? a : "", a ? strlen(a) : 0);

	h = hash_fnv(h, "\xff", 1);
	return (size_t)hash_fnv(h, b, strlen(b));
}

static int
pairs_init(struct pairs *t, size_t n)
{
	for (t->cap = 16; t->cap < 2 * n + 2; t->cap *= 2)
		;
	t->slot = calloc(t->cap, sizeof *t->slot);
	t->p = calloc(n + 1, sizeof *t->p);
	t->n = 0;
	return t->slot && t->p ? 0 : -1;
}

static void
pairs_release(struct pairs *t)
{
	free(t->slot);
	free(t->p);
	memset(t, 0, sizeof *t);
}

static int
same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* The index of (f, c), added when add (room was made by pairs_init);
 * -1 when absent. */
static long
pair_find(struct pairs *t, const char *f, const char *c, int add)
{
	size_t j = pair_hash(f, c) & (t->cap - 1);

	for (; t->slot[j] != 0; j = (j + 1) & (t->cap - 1)) {
		const struct blocks_unit *u = &t->p[t->slot[j] - 1];
		if (same(u->family, f) && strcmp(u->condition, c) == 0)
			return t->slot[j] - 1;
	}
	if (!add)
		return -1;
	t->p[t->n] = (struct blocks_unit){ f, c };
	t->slot[j] = (long)++t->n;
	return t->slot[j] - 1;
}

static int
read_counts(const cJSON *o, int is_freeze, struct blocks_block *b, struct err *e)
{
	long long games, block;
	int rc;

	if (json_get_int(o, "w", 1, 0, RULES_MAX_COUNT, &b->w, e) < 0 ||
	    json_get_int(o, "d", 1, 0, RULES_MAX_COUNT, &b->d, e) < 0 ||
	    json_get_int(o, "l", 1, 0, RULES_MAX_COUNT, &b->l, e) < 0)
		return -1;
	if (b->w + b->d + b->l == 0)
		return err_set(e, ERR_INPUT, "\"w\", \"d\", \"l\": a block needs at least one game");
	rc = json_get_int(o, "games", is_freeze, 1, 3 * RULES_MAX_COUNT, &games, e);
	if (rc < 0)
		return -1;
	if (rc == 0 && games != b->w + b->d + b->l)
		return err_set(e, ERR_INPUT, "\"games\": %lld, but w + d + l is %lld", games,
		    b->w + b->d + b->l);
	rc = json_get_int(o, "block", is_freeze, 1, RULES_MAX_COUNT, &block, e);
	if (rc < 0)
		return -1;
	b->block = rc == 0 ? (long)block : 0;
	return 0;
}

static int
read_name(const cJSON *o, const char *key, int required, const char **out, struct err *e)
{
	int rc = json_get_string(o, key, required, out, e);

	if (rc == 0 && (*out)[0] == '\0')
		return err_set(e, ERR_INPUT, "\"%s\": expected a non-empty string", key);
	if (rc == 1)
		*out = "";
	return rc < 0 ? -1 : 0;
}

static int
read_block(const cJSON *o, int is_freeze, struct blocks_block *b, struct err *e)
{
	const char *color;

	if (!cJSON_IsObject(o))
		return err_set(e, ERR_INPUT, "expected an object");
	if (read_name(o, "condition", 1, &b->condition, e) < 0 ||
	    read_name(o, "family", 0, &b->family, e) < 0)
		return -1;
	if (json_get_number(o, "anchor", 1, &b->anchor, e) < 0 ||
	    rules_anchor_check(b->anchor, ERR_INPUT, "\"anchor\"", e) < 0)
		return -1;
	if (json_get_string(o, "color", 1, &color, e) < 0)
		return -1;
	if (strcmp(color, "black") != 0 && strcmp(color, "white") != 0)
		return err_set(e, ERR_INPUT, "\"color\": expected black or white");
	b->black = strcmp(color, "black") == 0;
	return read_counts(o, is_freeze, b, e);
}

/* The document's kind, the object holding the lists and the penalty (the
 * spec, in a freeze), and the penalty. */
static int
read_head(const cJSON *doc, struct blocks *bl, const cJSON **conds, const cJSON **fams,
    struct err *e)
{
	const char *kind;
	const cJSON *holder = doc;
	int rc;

	if (!cJSON_IsObject(doc))
		return err_set(e, ERR_INPUT, "expected a cohort.freeze/1 or cohort.blocks/1 object");
	if (json_get_string(doc, "kind", 1, &kind, e) < 0)
		return -1;
	if (strcmp(kind, "cohort.freeze/1") == 0) {
		bl->is_freeze = 1;
		if (json_get_object(doc, "spec", 1, &bl->spec, e) < 0)
			return -1;
		holder = bl->spec;
	} else if (strcmp(kind, "cohort.blocks/1") != 0) {
		return err_set(e, ERR_INPUT,
		    "\"kind\": expected cohort.freeze/1 or cohort.blocks/1, got %.60s", kind);
	}
	bl->black_penalty = 35;
	rc = json_get_number(holder, "black_penalty", 0, &bl->black_penalty, e);
	if (rc < 0 || (rc == 0 && rules_penalty_check(bl->black_penalty, ERR_INPUT,
	    "\"black_penalty\"", e) < 0))
		return bl->is_freeze ? err_prefix(e, "\"spec\"") : -1;
	bl->have_penalty = rc == 0;
	if (json_get_array(holder, "conditions", 0, conds, e) < 0 ||
	    json_get_array(holder, "families", 0, fams, e) < 0)
		return bl->is_freeze ? err_prefix(e, "\"spec\"") : -1;
	return 0;
}

/* A listed array of names into t (family NULL): distinct, non-empty. */
static int
read_list(const struct blocks *bl, const cJSON *arr, const char *key, struct pairs *t,
    struct err *e)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, arr) {
		if (!cJSON_IsString(v) || v->valuestring[0] == '\0')
			return err_set(e, ERR_INPUT, "%s\"%s\"[%zu]: expected a non-empty string",
			    bl->is_freeze ? "\"spec\": " : "", key, t->n);
		if (pair_find(t, NULL, v->valuestring, 0) >= 0)
			return err_set(e, ERR_INPUT, "%s\"%s\"[%zu]: \"%.60s\" given twice",
			    bl->is_freeze ? "\"spec\": " : "", key, t->n, v->valuestring);
		pair_find(t, NULL, v->valuestring, 1);
	}
	return 0;
}

/* Every block's unit (blocks.h's rule).  fams and conds hold the listed
 * names, when listed; units gets the pairs. */
static int
assign_units(struct blocks *bl, const cJSON *conds, struct pairs *fams, struct pairs *cl,
    struct pairs *units, struct err *e)
{
	int fams_listed = fams->n > 0;

	for (size_t i = 0; i < bl->n; i++) {
		const struct blocks_block *b = &bl->b[i];
		bl->families |= b->family[0] != '\0';
		if (fams_listed && pair_find(fams, NULL, b->family, 0) < 0)
			return err_set(e, ERR_INPUT, "\"blocks\"[%zu]: \"family\": \"%.60s\" is not one of the %s families",
			    i, b->family, bl->is_freeze ? "spec's" : "listed");
		if (!fams_listed)
			pair_find(fams, NULL, b->family, 1);
		if (conds != NULL && pair_find(cl, NULL, b->condition, 0) < 0)
			return err_set(e, ERR_INPUT, "\"blocks\"[%zu]: \"condition\": \"%.60s\" is not one of the %s conditions",
			    i, b->condition, bl->is_freeze ? "spec's" : "listed");
	}
	bl->families |= fams_listed;
	if (conds != NULL)
		for (size_t f = 0; f < fams->n; f++)
			for (size_t c = 0; c < cl->n; c++)
				pair_find(units, fams->p[f].condition, cl->p[c].condition, 1);
	for (size_t i = 0; i < bl->n; i++)
		bl->b[i].unit = (size_t)pair_find(units, bl->b[i].family, bl->b[i].condition, 1);
	return 0;
}

/* Number the blocks that give no "block": after the ones before them of
 * the same unit. */
static int
number_blocks(struct blocks *bl)
{
	long *count = calloc(bl->nunit + 1, sizeof *count);

	if (count == NULL)
		return -1;
	for (size_t i = 0; i < bl->n; i++) {
		struct blocks_block *b = &bl->b[i];
		count[b->unit]++;
		if (b->block == 0) {
			b->block = count[b->unit];
			b->numbered = 1;
		}
	}
	free(count);
	return 0;
}

static int
read_all(const cJSON *doc, const char *id, struct blocks *bl, struct err *e)
{
	const cJSON *conds = NULL, *fl = NULL, *arr, *it;
	struct pairs fams = { 0 }, cl = { 0 }, units = { 0 };
	size_t i = 0, nc, nf;
	int rc = -1;

	if (read_head(doc, bl, &conds, &fl, e) < 0 || json_get_array(doc, "blocks", 1, &arr, e) < 0)
		return -1;
	bl->n = (size_t)cJSON_GetArraySize(arr);
	nc = conds ? (size_t)cJSON_GetArraySize(conds) : 0;
	nf = fl ? (size_t)cJSON_GetArraySize(fl) : 0;
	bl->b = calloc(bl->n + 1, sizeof *bl->b);
	if (bl->b == NULL || pairs_init(&fams, bl->n + nf) < 0 || pairs_init(&cl, nc) < 0 ||
	    pairs_init(&units, bl->n + (nf > bl->n ? nf : bl->n) * (nc + 1)) < 0) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (read_list(bl, conds, "conditions", &cl, e) < 0 ||
	    read_list(bl, fl, "families", &fams, e) < 0)
		goto done;
	cJSON_ArrayForEach(it, arr) {
		if (read_block(it, bl->is_freeze, &bl->b[i], e) < 0) {
			err_prefix(e, "\"blocks\"[%zu]", i);
			goto done;
		}
		i++;
	}
	if (assign_units(bl, conds, &fams, &cl, &units, e) < 0)
		goto done;
	bl->nunit = units.n;
	bl->units = units.p;
	units.p = NULL;
	if (number_blocks(bl) < 0) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (id != NULL && strlen(id) == HASH_ID_LEN) {
		memcpy(bl->id, id, HASH_ID_LEN + 1);
		rc = 0;
	} else {
		rc = canon_id(doc, bl->id, e);
	}
done:
	pairs_release(&fams);
	pairs_release(&cl);
	pairs_release(&units);
	return rc;
}

int
blocks_read(const cJSON *doc, const char *name, struct blocks *out, struct err *e)
{
	return blocks_read_id(doc, name, NULL, out, e);
}

int
blocks_read_id(const cJSON *doc, const char *name, const char *id, struct blocks *out,
    struct err *e)
{
	blocks_release(out);
	out->name = name;
	if (read_all(doc, id, out, e) < 0) {
		blocks_release(out);
		return err_prefix(e, "%s", name);
	}
	return 0;
}

void
blocks_release(struct blocks *b)
{
	if (b == NULL)
		return;
	free(b->b);
	free(b->units);
	memset(b, 0, sizeof *b);
}
