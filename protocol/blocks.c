/* blocks.c: reading W-D-L blocks (blocks.h has the rules). */
#include "blocks.h"

#include <stdlib.h>
#include <string.h>

#include "../json/json.h"
#include "rules.h"

/* Open addressing over names: conditions, then (family, condition, count)
 * when numbering blocks.  Sized once for every name the document holds. */
struct names {
	size_t cap;   /* a power of two */
	long *slot;   /* index + 1, 0 empty */
};

static size_t
name_hash(const char *a, const char *b)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (; b && *b; b++)
		h = (h ^ (unsigned char)*b) * 1099511628211ULL;
	return (size_t)h;
}

static int
names_init(struct names *t, size_t n)
{
	for (t->cap = 16; t->cap < 2 * n + 2; t->cap *= 2)
		;
	t->slot = calloc(t->cap, sizeof *t->slot);
	return t->slot ? 0 : -1;
}

/* The condition index of name, adding it when add; -1 when absent. */
static long
cond_find(struct blocks *bl, struct names *t, const char *name, int add)
{
	size_t j = name_hash(name, NULL) & (t->cap - 1);

	for (; t->slot[j] != 0; j = (j + 1) & (t->cap - 1))
		if (strcmp(bl->conds[t->slot[j] - 1], name) == 0)
			return t->slot[j] - 1;
	if (!add)
		return -1;
	bl->conds[bl->ncond] = name;
	t->slot[j] = (long)++bl->ncond;
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
read_block(const cJSON *o, int is_freeze, struct blocks_block *b, struct err *e)
{
	const char *color;
	int rc;

	if (!cJSON_IsObject(o))
		return err_set(e, ERR_INPUT, "expected an object");
	if (json_get_string(o, "condition", 1, &b->condition, e) < 0)
		return -1;
	if (b->condition[0] == '\0')
		return err_set(e, ERR_INPUT, "\"condition\": expected a non-empty string");
	rc = json_get_string(o, "family", 0, &b->family, e);
	if (rc < 0)
		return -1;
	if (rc == 0 && b->family[0] == '\0')
		return err_set(e, ERR_INPUT, "\"family\": expected a non-empty string");
	if (rc == 1)
		b->family = "";
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

/* The document's kind, the object holding conditions and penalty (the
 * spec, in a freeze), and the penalty. */
static int
read_head(const cJSON *doc, struct blocks *bl, const cJSON **conds, struct err *e)
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
	if (json_get_array(holder, "conditions", 0, conds, e) < 0)
		return bl->is_freeze ? err_prefix(e, "\"spec\"") : -1;
	return 0;
}

static int
read_listed(struct blocks *bl, struct names *t, const cJSON *conds, struct err *e)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, conds) {
		if (!cJSON_IsString(v) || v->valuestring[0] == '\0')
			return err_set(e, ERR_INPUT, "%s\"conditions\"[%zu]: expected a non-empty string",
			    bl->is_freeze ? "\"spec\": " : "", bl->ncond);
		if (cond_find(bl, t, v->valuestring, 0) >= 0)
			return err_set(e, ERR_INPUT, "%s\"conditions\"[%zu]: \"%.60s\" given twice",
			    bl->is_freeze ? "\"spec\": " : "", bl->ncond, v->valuestring);
		cond_find(bl, t, v->valuestring, 1);
	}
	bl->nlisted = bl->ncond;
	return 0;
}

/* Number the blocks that give no "block": after the ones before them of
 * the same (family, condition).  One pass with a table of counters. */
static int
number_blocks(struct blocks *bl)
{
	struct names t;
	long *count = calloc(bl->n + 1, sizeof *count);
	size_t *who = calloc(bl->n + 1, sizeof *who);

	if (count == NULL || who == NULL || names_init(&t, bl->n) < 0) {
		free(count);
		free(who);
		return -1;
	}
	size_t used = 0;
	for (size_t i = 0; i < bl->n; i++) {
		struct blocks_block *b = &bl->b[i];
		size_t j = name_hash(b->condition, b->family) & (t.cap - 1);
		for (; t.slot[j] != 0; j = (j + 1) & (t.cap - 1)) {
			const struct blocks_block *o = &bl->b[who[t.slot[j] - 1]];
			if (o->cond == b->cond && strcmp(o->family, b->family) == 0)
				break;
		}
		if (t.slot[j] == 0) {
			who[used] = i;
			t.slot[j] = (long)++used;
		}
		count[t.slot[j] - 1]++;
		if (b->block == 0) {
			b->block = count[t.slot[j] - 1];
			b->numbered = 1;
		}
	}
	free(t.slot);
	free(count);
	free(who);
	return 0;
}

static int
read_all(const cJSON *doc, struct blocks *bl, struct err *e)
{
	const cJSON *conds = NULL, *arr, *it;
	struct names t = { 0, NULL };
	size_t i = 0, nlist;
	int rc = -1;

	if (read_head(doc, bl, &conds, e) < 0 || json_get_array(doc, "blocks", 1, &arr, e) < 0)
		return -1;
	bl->n = (size_t)cJSON_GetArraySize(arr);
	nlist = conds ? (size_t)cJSON_GetArraySize(conds) : 0;
	bl->b = calloc(bl->n + 1, sizeof *bl->b);
	bl->conds = calloc(bl->n + nlist + 1, sizeof *bl->conds);
	if (bl->b == NULL || bl->conds == NULL || names_init(&t, bl->n + nlist) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (read_listed(bl, &t, conds, e) < 0)
		goto done;
	cJSON_ArrayForEach(it, arr) {
		struct blocks_block *b = &bl->b[i];
		long c;
		if (read_block(it, bl->is_freeze, b, e) < 0) {
			err_prefix(e, "\"blocks\"[%zu]", i);
			goto done;
		}
		c = cond_find(bl, &t, b->condition, conds == NULL);
		if (c < 0) {
			err_set(e, ERR_INPUT, "\"blocks\"[%zu]: \"condition\": \"%.60s\" is not one of the %s conditions",
			    i, b->condition, bl->is_freeze ? "spec's" : "listed");
			goto done;
		}
		b->cond = (size_t)c;
		i++;
	}
	if (number_blocks(bl) < 0) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	rc = canon_id(doc, bl->id, e);
done:
	free(t.slot);
	return rc;
}

int
blocks_read(const cJSON *doc, const char *name, struct blocks *out, struct err *e)
{
	blocks_release(out);
	out->name = name;
	if (read_all(doc, out, e) < 0) {
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
	free(b->conds);
	memset(b, 0, sizeof *b);
}
