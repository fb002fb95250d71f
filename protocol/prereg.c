/* prereg.c: the cohort.prereg/1 reader and the feature registry. */
#include "prereg.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../json/json.h"

static const struct prereg_feature registry[] = {
	/* strength response */
	{ "unaided", PL_STRENGTH, PI_ANY },
	{ "r_k", PL_STRENGTH, PI_WIDTH },
	{ "delta_r", PL_STRENGTH, PI_WIDTH },
	{ "k_star", PL_STRENGTH, PI_ANY },
	{ "p_k_star", PL_STRENGTH, PI_WIDTH },
	{ "overload_2_10", PL_STRENGTH, PI_ANY },
	{ "slope", PL_STRENGTH, PI_ANY },
	{ "curvature", PL_STRENGTH, PI_ANY },
	{ "reversals", PL_STRENGTH, PI_ANY },
	{ "auc", PL_STRENGTH, PI_ANY },
	/* proposal and selection */
	{ "recall_unaided", PL_PROPOSAL, PI_ANY },
	{ "coverage", PL_PROPOSAL, PI_ANY },
	{ "oracle_regret", PL_PROPOSAL, PI_ANY },
	{ "chosen_rank", PL_PROPOSAL, PI_ANY },
	{ "value_loss", PL_PROPOSAL, PI_ANY },
	{ "omit_best", PL_PROPOSAL, PI_ANY },
	{ "engine_selects", PL_PROPOSAL, PI_ANY },
	{ "calibration", PL_PROPOSAL, PI_ANY },
	/* stability and failure */
	{ "order_change", PL_STABILITY, PI_ANY },
	{ "regret_var_seeds", PL_STABILITY, PI_ANY },
	{ "illegal_rate", PL_STABILITY, PI_ANY },
	{ "tool_failure_rate", PL_STABILITY, PI_ANY },
	{ "blunder_hazard", PL_STABILITY, PI_PHASE },
	{ "history_vs_fresh", PL_STABILITY, PI_ANY },
	{ "failure_labels", PL_STABILITY, PI_LABEL },
	/* compute response */
	{ "tokens_per_decision", PL_COMPUTE, PI_ANY },
	{ "latency_per_decision", PL_COMPUTE, PI_ANY },
	{ "tokens_per_game", PL_COMPUTE, PI_ANY },
	{ "wall_per_game", PL_COMPUTE, PI_ANY },
	{ "worker_hours_per_game", PL_COMPUTE, PI_ANY },
	{ "gain_per_1k_tokens", PL_COMPUTE, PI_ANY },
	{ "width_x_budget", PL_COMPUTE, PI_ANY },
	{ "retries_per_legal", PL_COMPUTE, PI_ANY },
	{ "pareto", PL_COMPUTE, PI_ANY },
};
#define NREGISTRY (sizeof registry / sizeof registry[0])

/* The freeze's exclusion reasons, of games and of decisions. */
static const char *const reasons[] = { "family", "condition", "after_cut", "live",
	"provider_error", "aborted", "invalid" };
static const char *const split_names[] = { "explore", "confirm", "heldout" };
static const char *const phases[] = { "opening", "middlegame", "endgame" };
static const char *const labels[] = { "state", "tactic", "value", "plan", "memory", "interface" };

#define IN(word, list) in_list(word, list, sizeof list / sizeof list[0])

static int
in_list(const char *w, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(w, list[i]) == 0)
			return 1;
	return 0;
}

const struct prereg_feature *
prereg_features(size_t *n)
{
	*n = NREGISTRY;
	return registry;
}

const struct prereg_feature *
prereg_feature(const char *name)
{
	for (size_t i = 0; i < NREGISTRY; i++)
		if (strcmp(name, registry[i].name) == 0)
			return &registry[i];
	return NULL;
}

/* An index of the kind a feature takes: a width is a whole number within
 * the widths' range, written without leading zeros. */
static int
index_ok(enum prereg_index kind, const char *ix, size_t n)
{
	char buf[32];

	if (n == 0 || n >= sizeof buf)
		return 0;
	memcpy(buf, ix, n);
	buf[n] = '\0';
	switch (kind) {
	case PI_WIDTH:
		if (n > 2 || (n == 2 && buf[0] == '0') || strspn(buf, "0123456789") != n)
			return 0;
		return atoi(buf) <= PREREG_MAX_WIDTH;
	case PI_PHASE:
		return IN(buf, phases);
	case PI_LABEL:
		return IN(buf, labels);
	case PI_ANY:
		break;
	}
	return strspn(buf, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

int
prereg_feature_name_ok(const char *name, const struct prereg_feature **base)
{
	const char *lb = strchr(name, '[');
	size_t blen = lb ? (size_t)(lb - name) : strlen(name);
	const struct prereg_feature *f = NULL;

	for (size_t i = 0; i < NREGISTRY && f == NULL; i++)
		if (strlen(registry[i].name) == blen && memcmp(registry[i].name, name, blen) == 0)
			f = &registry[i];
	if (f == NULL)
		return 0;
	if (lb != NULL) {
		size_t n = strlen(lb + 1);
		if (n == 0 || lb[n] != ']' || !index_ok(f->index, lb + 1, n - 1))
			return 0;
	}
	if (base != NULL)
		*base = f;
	return 1;
}

/* ---- reading ---- */

struct rd {
	const char *name;
	const struct json_lines *lines;
	struct err *e;
	struct prereg *p; /* where the notes go */
};

static const cJSON *where(const cJSON *obj, const char *key);

/* Prefix the message in r->e with the file and the line of node (the
 * field's value, else the object that should hold it). */
static int
at(const struct rd *r, const cJSON *node)
{
	long line = json_line(r->lines, node);

	if (line > 0)
		return err_prefix(r->e, "%s:%ld", r->name, line);
	return err_prefix(r->e, "%s", r->name);
}

static int bad(const struct rd *r, const cJSON *node, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
bad(const struct rd *r, const cJSON *node, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	err_set(r->e, ERR_INPUT, "%s", msg);
	return at(r, node);
}

/* A typed access failed with `"key": what` in r->e: name the context
 * (`"allocation"`, or "" at the top) and the line. */
static int
failed(const struct rd *r, const cJSON *obj, const char *ctx, const char *key)
{
	if (ctx[0] != '\0')
		err_prefix(r->e, "%s", ctx);
	return at(r, where(obj, key));
}

/* The node a failed typed access is about: the field when present. */
static const cJSON *
where(const cJSON *obj, const char *key)
{
	const cJSON *v = json_get(obj, key);

	return v ? v : obj;
}

/* Note each key of obj not in keys (NULL-ended), ctx naming obj: the
 * field is kept in the document (and its identity) and read by nothing. */
static int
only_keys(const struct rd *r, const cJSON *obj, const char *ctx, const char *const *keys)
{
	for (const cJSON *c = obj->child; c; c = c->next) {
		size_t i = 0, n;
		char **x, *t;
		while (keys[i] && strcmp(keys[i], c->string) != 0)
			i++;
		if (keys[i] != NULL)
			continue;
		n = strlen(ctx) + strlen(c->string) + 8;
		if ((t = malloc(n)) == NULL ||
		    (x = realloc(r->p->notes, (r->p->nnotes + 1) * sizeof *x)) == NULL) {
			free(t);
			return err_set(r->e, ERR_NOMEM, "out of memory");
		}
		snprintf(t, n, "%s%s\"%s\"", ctx, ctx[0] ? ": " : "", c->string);
		r->p->notes = x;
		x[r->p->nnotes++] = t;
	}
	return 0;
}

static int
get_string(const struct rd *r, const cJSON *obj, const char *ctx, const char *key, char **out)
{
	const char *s;

	if (json_get_string(obj, key, 1, &s, r->e) < 0)
		return failed(r, obj, ctx, key);
	*out = (char *)s;
	return 0;
}

static int
get_int(const struct rd *r, const cJSON *obj, const char *ctx, const char *key, long long lo,
    long long hi, long long *out)
{
	if (json_get_int(obj, key, 1, lo, hi, out, r->e) < 0)
		return failed(r, obj, ctx, key);
	return 0;
}

static int
get_typed(const struct rd *r, const cJSON *obj, const char *ctx, const char *key, int array,
    const cJSON **out)
{
	int rc = array ? json_get_array(obj, key, 1, out, r->e) : json_get_object(obj, key, 1, out, r->e);

	return rc < 0 ? failed(r, obj, ctx, key) : 0;
}

static int
read_time(const struct rd *r, const cJSON *doc, struct prereg *p)
{
	const cJSON *v = json_get(doc, "registered_at");

	if (get_string(r, doc, "", "registered_at", &p->registered_at) < 0)
		return -1;
	if (ts_parse(p->registered_at, &p->registered) < 0)
		return bad(r, v, "\"registered_at\": expected an RFC 3339 time, got \"%.60s\"",
		    p->registered_at);
	p->registered_ms = p->registered.sec * 1000 + p->registered.nsec / 1000000;
	return 0;
}

/* The manifest by its identity or by its file's SHA-256, as sha256sum
 * prints it (64 hex digits, "sha256:" before them or not). */
static int
read_identity(const struct rd *r, const cJSON *doc, struct prereg *p)
{
	const char *s;
	size_t n;

	if (get_string(r, doc, "", "candidates", &p->candidates) < 0)
		return -1;
	s = p->candidates;
	if (strncmp(s, "sha256:", 7) == 0)
		s += 7;
	n = strlen(s);
	if (n != 64 || strspn(s, "0123456789abcdef") != 64)
		return bad(r, json_get(doc, "candidates"),
		    "\"candidates\": expected 64 lowercase hex digits (sha256: before them or not), "
		    "got \"%.80s\"", p->candidates);
	snprintf(p->candidates_id, sizeof p->candidates_id, "sha256:%s", s);
	return 0;
}

static int
read_widths(const struct rd *r, const cJSON *doc, struct prereg *p)
{
	const cJSON *a, *c;
	size_t i = 0;
	char ix[24];

	if (get_typed(r, doc, "", "widths", 1, &a) < 0)
		return -1;
	p->nwidths = (size_t)cJSON_GetArraySize(a);
	if (p->nwidths == 0)
		return bad(r, a, "\"widths\": expected at least one width");
	if ((p->widths = calloc(p->nwidths, sizeof *p->widths)) == NULL)
		return err_set(r->e, ERR_NOMEM, "out of memory");
	for (c = a->child; c; c = c->next, i++) {
		snprintf(ix, sizeof ix, "%zu", i);
		if (!cJSON_IsNumber(c) || c->valuedouble != floor(c->valuedouble) || c->valuedouble < 0 ||
		    c->valuedouble > PREREG_MAX_WIDTH)
			return bad(r, c, "\"widths\": %s: expected a whole number from 0 to 64", ix);
		p->widths[i] = (int)c->valuedouble;
		if (i > 0 && p->widths[i] <= p->widths[i - 1])
			return bad(r, c, "\"widths\": %s: widths must be distinct and increasing%s", ix,
			    "");
	}
	return 0;
}

static int is_feature(const char *s);
static int unknown_feature(const struct rd *r, const cJSON *node, const char *field,
    const char *name, int base_only);

/* An array of distinct strings; check, when not NULL, says whether each
 * is allowed (what names the rule for the message). */
static int
read_words(const struct rd *r, const cJSON *obj, const char *ctx, const char *key, char ***out,
    size_t *n, int (*check)(const char *), const char *what)
{
	const cJSON *a, *c;
	size_t i = 0;
	char ix[24], field[96];

	if (get_typed(r, obj, ctx, key, 1, &a) < 0)
		return -1;
	snprintf(field, sizeof field, "%s%s\"%s\": ", ctx, ctx[0] ? ": " : "", key);
	*n = (size_t)cJSON_GetArraySize(a);
	if ((*out = calloc(*n ? *n : 1, sizeof **out)) == NULL)
		return err_set(r->e, ERR_NOMEM, "out of memory");
	for (c = a->child; c; c = c->next, i++) {
		snprintf(ix, sizeof ix, "%zu", i);
		if (!cJSON_IsString(c) || c->valuestring[0] == '\0')
			return bad(r, c, "%s%s: expected a non-empty string", field, ix);
		if (check == is_feature && !check(c->valuestring)) {
			char f[160];
			snprintf(f, sizeof f, "%s%s: ", field, ix);
			return unknown_feature(r, c, f, c->valuestring, 1);
		}
		if (check && !check(c->valuestring)) {
			err_set(r->e, ERR_INPUT, "%s%s: %s \"%.60s\"", field, ix, what, c->valuestring);
			return at(r, c);
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp((*out)[j], c->valuestring) == 0) {
				err_set(r->e, ERR_INPUT, "%s%s: \"%.60s\" given twice", field, ix,
				    c->valuestring);
				return at(r, c);
			}
		(*out)[i] = c->valuestring;
	}
	return 0;
}

/* Edits (insert, delete, replace) that make a into b, for names. */
static size_t
edits(const char *a, size_t na, const char *b)
{
	size_t nb = strlen(b), row[80];

	if (na >= 79 || nb >= 79)
		return (size_t)-1;
	for (size_t j = 0; j <= nb; j++)
		row[j] = j;
	for (size_t i = 1; i <= na; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[nb];
}

/* Refuse name, a feature name the registry does not know: the nearest
 * known base name (fewest edits, the registry's order on a tie) and all
 * of them, so the fix is in the message.  field is the message's start. */
static int
unknown_feature(const struct rd *r, const cJSON *node, const char *field, const char *name,
    int base_only)
{
	const char *lb = strchr(name, '[');
	size_t blen = lb ? (size_t)(lb - name) : strlen(name), best = (size_t)-1, w = 0;
	const char *near = registry[0].name, *why = "unknown feature";
	char known[700];

	for (size_t i = 0; i < NREGISTRY; i++) {
		size_t d = edits(name, blen, registry[i].name);
		if (d < best)
			best = d, near = registry[i].name;
		w += (size_t)snprintf(known + w, w < sizeof known ? sizeof known - w : 0, "%s%s",
		    i ? ", " : "", registry[i].name);
	}
	if (best == 0 && lb != NULL && base_only) {
		err_set(r->e, ERR_INPUT, "%s\"%.60s\": this list names base features (%s)", field, name,
		    near);
	} else if (best == 0 && lb != NULL) {
		const struct prereg_feature *f = prereg_feature(near);
		why = "unknown index of feature";
		err_set(r->e, ERR_INPUT, "%s%s \"%.60s\" (%s takes %s)", field, why, name, near,
		    f->index == PI_WIDTH ? "a width from 0 to 64, as delta_r[5]" :
		    f->index == PI_PHASE ? "a phase: opening, middlegame or endgame" :
		    f->index == PI_LABEL ? "a failure label: state, tactic, value, plan, memory or "
		    "interface" : "an index of A-Z a-z 0-9 _ . -");
	} else {
		err_set(r->e, ERR_INPUT, "%s%s \"%.60s\" (nearest: %s; known: %s)", field, why, name,
		    near, known);
	}
	return at(r, node);
}

static int
is_feature(const char *s)
{
	return prereg_feature(s) != NULL;
}

static int
is_reason(const char *s)
{
	return IN(s, reasons);
}

static int
read_allocation(const struct rd *r, const cJSON *doc, struct prereg *p)
{
	static const char *const keys[] = { "splits", "order_seeds", "budgets", NULL };
	const cJSON *al, *sp, *c;
	long long x;
	size_t i = 0;

	if (get_typed(r, doc, "", "allocation", 0, &al) < 0 ||
	    only_keys(r, al, "\"allocation\"", keys) < 0 ||
	    get_typed(r, al, "\"allocation\"", "splits", 0, &sp) < 0)
		return -1;
	p->nsplits = (size_t)cJSON_GetArraySize(sp);
	if (p->nsplits == 0)
		return bad(r, sp, "\"allocation\": \"splits\": expected at least one split");
	if ((p->splits = calloc(p->nsplits, sizeof *p->splits)) == NULL)
		return err_set(r->e, ERR_NOMEM, "out of memory");
	for (c = sp->child; c; c = c->next, i++) {
		if (!IN(c->string, split_names))
			return bad(r, c, "\"allocation\": \"splits\": \"%.40s\": expected explore, confirm "
			    "or heldout", c->string);
		if (get_int(r, sp, "\"allocation\": \"splits\"", c->string, 1, 100000000, &x) < 0)
			return -1;
		p->splits[i].name = c->string;
		p->splits[i].n = (long)x;
	}
	if (get_int(r, al, "\"allocation\"", "order_seeds", 1, 1000000, &x) < 0)
		return -1;
	p->order_seeds = (long)x;
	return read_words(r, al, "\"allocation\"", "budgets", &p->budgets, &p->nbudgets, NULL, "");
}

static int
read_distance(const struct rd *r, const cJSON *doc, struct prereg *p)
{
	static const char *const keys[] = { "lambda", "population", NULL };
	const cJSON *d;

	if (get_typed(r, doc, "", "distance", 0, &d) < 0 ||
	    only_keys(r, d, "\"distance\"", keys) < 0)
		return -1;
	if (json_get_number(d, "lambda", 1, &p->lambda, r->e) < 0) {
		err_prefix(r->e, "\"distance\"");
		return at(r, where(d, "lambda"));
	}
	if (!(p->lambda >= 0 && p->lambda <= 1e6))
		return bad(r, json_get(d, "lambda"), "\"distance\": \"lambda\": expected a number from "
		    "0 to 1e6");
	if (get_string(r, d, "\"distance\"", "population", &p->population) < 0)
		return -1;
	if (strcmp(p->population, "panel") != 0 && strcmp(p->population, "none") != 0)
		return bad(r, json_get(d, "population"), "\"distance\": \"population\": expected panel "
		    "or none, got \"%.40s\"", p->population);
	return 0;
}

static int
read_bootstrap(const struct rd *r, const cJSON *doc, struct prereg *p)
{
	static const char *const keys[] = { "replicates", "unit", "seed", NULL };
	const cJSON *b;
	long long x;

	if (get_typed(r, doc, "", "bootstrap", 0, &b) < 0 ||
	    only_keys(r, b, "\"bootstrap\"", keys) < 0 ||
	    get_int(r, b, "\"bootstrap\"", "replicates", 1, 1000000, &x) < 0)
		return -1;
	p->replicates = (long)x;
	if (get_string(r, b, "\"bootstrap\"", "unit", &p->unit) < 0)
		return -1;
	if (strcmp(p->unit, "opening") != 0 && strcmp(p->unit, "position") != 0)
		return bad(r, json_get(b, "unit"), "\"bootstrap\": \"unit\": expected opening or "
		    "position, got \"%.40s\"", p->unit);
	if (get_int(r, b, "\"bootstrap\"", "seed", 0, 9007199254740991LL, &x) < 0)
		return -1;
	p->seed = (uint64_t)x;
	return 0;
}

/* ---- predictions ---- */

static int
pred_feature(const struct rd *r, const cJSON *o, const char *ctx, const char *key)
{
	char *s;

	if (get_string(r, o, ctx, key, &s) < 0)
		return -1;
	if (!prereg_feature_name_ok(s, NULL)) {
		char f[160];
		snprintf(f, sizeof f, "%s: \"%s\": ", ctx, key);
		return unknown_feature(r, json_get(o, key), f, s, 0);
	}
	return 0;
}

static int
pred_features(const struct rd *r, const cJSON *o, const char *ctx, const char *key)
{
	const cJSON *a, *c;
	size_t i = 0;

	if (get_typed(r, o, ctx, key, 1, &a) < 0)
		return -1;
	if (a->child == NULL) {
		err_set(r->e, ERR_INPUT, "%s: \"%s\": expected at least one feature", ctx, key);
		return at(r, a);
	}
	for (c = a->child; c; c = c->next, i++) {
		char f[160];
		if (!cJSON_IsString(c))
			return bad(r, c, "%s: \"%s\": %zu: expected a feature name", ctx, key, i);
		snprintf(f, sizeof f, "%s: \"%s\": %zu: ", ctx, key, i);
		if (!prereg_feature_name_ok(c->valuestring, NULL))
			return unknown_feature(r, c, f, c->valuestring, 0);
	}
	return 0;
}

static int
read_prediction(const struct rd *r, const cJSON *o, const char *ctx)
{
	static const char *const held[] = { "id", "kind", "target", "predictors", "baseline", NULL };
	static const char *const arch[] = { "id", "kind", "family", "feature", "relation", "family2",
		NULL };
	static const char *const inter[] = { "id", "kind", "family", "target", "control", NULL };
	char *kind, *rel, *f1, *f2;
	const char *cx = ctx;
	if (get_string(r, o, ctx, "kind", &kind) < 0)
		return -1;
	if (strcmp(kind, "heldout_assistance") == 0)
		return only_keys(r, o, cx, held) < 0 || pred_feature(r, o, ctx, "target") < 0 ||
		    pred_features(r, o, ctx, "predictors") < 0 || pred_features(r, o, ctx, "baseline") < 0
		    ? -1 : 0;
	if (strcmp(kind, "intervention") == 0)
		return only_keys(r, o, cx, inter) < 0 || get_string(r, o, ctx, "family", &f1) < 0 ||
		    pred_feature(r, o, ctx, "target") < 0 || pred_feature(r, o, ctx, "control") < 0
		    ? -1 : 0;
	if (strcmp(kind, "architectural") != 0)
		return bad(r, json_get(o, "kind"), "%s: \"kind\": expected heldout_assistance, "
		    "architectural or intervention, got \"%.40s\"", cx, kind);
	if (only_keys(r, o, cx, arch) < 0 || get_string(r, o, ctx, "family", &f1) < 0 ||
	    get_string(r, o, ctx, "family2", &f2) < 0 || pred_feature(r, o, ctx, "feature") < 0 ||
	    get_string(r, o, ctx, "relation", &rel) < 0)
		return -1;
	if (strcmp(rel, ">") != 0 && strcmp(rel, "<") != 0)
		return bad(r, json_get(o, "relation"), "%s: \"relation\": expected > or <, got \"%.10s\"",
		    cx, rel);
	if (strcmp(f1, f2) == 0)
		return bad(r, json_get(o, "family2"), "%s: \"family2\": the same family as \"family\"",
		    cx);
	return 0;
}

static int
read_predictions(const struct rd *r, const cJSON *doc, struct prereg *p)
{
	const cJSON *a, *c, *id;
	size_t i = 0;
	char ctx[48];

	if (get_typed(r, doc, "", "predictions", 1, &a) < 0)
		return -1;
	for (c = a->child; c; c = c->next, i++) {
		snprintf(ctx, sizeof ctx, "\"predictions\": %zu", i);
		if (cJSON_IsString(c) && c->valuestring[0] != '\0') {
			p->ntext++; /* a text prediction: registered, read by no gate */
			continue;
		}
		if (!cJSON_IsObject(c))
			return bad(r, c, "%s: expected an object or a text", ctx);
		id = json_get(c, "id");
		if (!cJSON_IsString(id) || id->valuestring[0] == '\0' || strlen(id->valuestring) > 64 ||
		    strspn(id->valuestring, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789_.-") != strlen(id->valuestring))
			return bad(r, id ? id : c, "%s: \"id\": expected 1 to 64 of A-Z a-z 0-9 _ . -",
			    ctx);
		for (const cJSON *d = a->child; d != c; d = d->next)
			if (cJSON_IsObject(d) && strcmp(json_get(d, "id")->valuestring, id->valuestring) == 0)
				return bad(r, id, "%s: \"id\": \"%.64s\" given twice", ctx, id->valuestring);
		if (read_prediction(r, c, ctx) < 0)
			return -1;
	}
	p->predictions = (cJSON *)a;
	return 0;
}

static int
read_doc(const struct rd *r, const cJSON *doc, struct prereg *p)
{
	static const char *const keys[] = { "kind", "name", "description", "registered_at",
		"candidates", "widths", "allocation", "exclusions", "features", "distance",
		"bootstrap", "blunder_cp", "predictions", NULL };
	const char *kind, *desc;
	long long x;

	if (!cJSON_IsObject(doc))
		return bad(r, doc, "expected a cohort.prereg/1 object");
	if (json_get_string(doc, "kind", 1, &kind, r->e) < 0)
		return at(r, where(doc, "kind"));
	if (strcmp(kind, "cohort.prereg/1") != 0)
		return bad(r, json_get(doc, "kind"), "\"kind\": expected cohort.prereg/1, got \"%.60s\"",
		    kind);
	if (only_keys(r, doc, "", keys) < 0 || get_string(r, doc, "", "name", &p->name) < 0)
		return -1;
	if (json_get_string(doc, "description", 0, &desc, r->e) < 0)
		return at(r, where(doc, "description"));
	if (read_time(r, doc, p) < 0 || read_identity(r, doc, p) < 0 || read_widths(r, doc, p) < 0 ||
	    read_allocation(r, doc, p) < 0 ||
	    read_words(r, doc, "", "exclusions", &p->exclusions, &p->nexclusions, is_reason,
	    "unknown exclusion") < 0 ||
	    read_words(r, doc, "", "features", &p->features, &p->nfeatures, is_feature,
	    "unknown feature") < 0 ||
	    read_distance(r, doc, p) < 0 || read_bootstrap(r, doc, p) < 0 ||
	    get_int(r, doc, "", "blunder_cp", 1, 100000, &x) < 0)
		return -1;
	p->blunder_cp = (double)x;
	return read_predictions(r, doc, p);
}

/* Read the tree p owns (p->doc) with its line map. */
static int
read_owned(struct prereg *p, const char *name, const struct json_lines *lines, struct err *e)
{
	struct rd r = { name, lines, e, p };

	if (read_doc(&r, p->doc, p) < 0 || canon_id(p->doc, p->id, e) < 0) {
		if (e->code == ERR_OK)
			err_set(e, ERR_INPUT, "%s: unreadable", name);
		return -1;
	}
	return 0;
}

int
prereg_read(const char *path, struct prereg *out, struct err *e)
{
	struct json_lines lines = JSON_LINES_INIT;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if ((out->doc = json_parse_file_lines(path, &lines, e)) != NULL)
		rc = read_owned(out, path[0] == '-' && path[1] == '\0' ? "<stdin>" : path, &lines, e);
	json_lines_release(&lines);
	if (rc < 0)
		prereg_release(out);
	return rc;
}

int
prereg_parse(const cJSON *doc, const char *name, struct prereg *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	if ((out->doc = cJSON_Duplicate(doc, 1)) == NULL)
		return err_set(e, ERR_NOMEM, "%s: out of memory", name);
	if (read_owned(out, name, NULL, e) < 0) {
		prereg_release(out);
		return -1;
	}
	return 0;
}

void
prereg_release(struct prereg *p)
{
	if (p == NULL)
		return;
	free(p->widths);
	free(p->splits);
	free(p->budgets);
	free(p->exclusions);
	free(p->features);
	for (size_t i = 0; i < p->nnotes; i++)
		free(p->notes[i]);
	free(p->notes);
	cJSON_Delete(p->doc);
	memset(p, 0, sizeof *p);
}

int
prereg_has_feature(const struct prereg *p, const char *name)
{
	for (size_t i = 0; i < p->nfeatures; i++)
		if (strcmp(p->features[i], name) == 0)
			return 1;
	return 0;
}

int
prereg_excludes(const struct prereg *p, const char *reason)
{
	for (size_t i = 0; i < p->nexclusions; i++)
		if (strcmp(p->exclusions[i], reason) == 0)
			return 1;
	return 0;
}

long
prereg_split_size(const struct prereg *p, const char *split)
{
	for (size_t i = 0; i < p->nsplits; i++)
		if (strcmp(p->splits[i].name, split) == 0)
			return p->splits[i].n;
	return -1;
}

int
prereg_deviations_add(cJSON *doc, const struct prereg_dev *d, size_t n, struct err *e)
{
	cJSON *a = cJSON_AddArrayToObject(doc, "deviations"), *o;

	if (a == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		if ((o = cJSON_CreateObject()) == NULL || !cJSON_AddItemToArray(a, o) ||
		    !json_add_string(o, "setting", d[i].setting) ||
		    !json_add_string(o, "registered", d[i].registered ? d[i].registered : "") ||
		    !json_add_string(o, "used", d[i].used ? d[i].used : ""))
			return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

const char *
prereg_names_manifest(const struct prereg *p, const char *id, const char *file_id)
{
	if (strcmp(p->candidates_id, id) == 0)
		return "identity";
	if (file_id != NULL && strcmp(p->candidates_id, file_id) == 0)
		return "file";
	return NULL;
}

const char *
prereg_prediction_text(const cJSON *pred)
{
	return cJSON_IsString(pred) ? pred->valuestring : NULL;
}

/* The predictions as the check lists them: each one's id (a text one's
 * index in the list), its kind and the gate that checks it. */
static int
check_predictions(const struct prereg *p, struct json_bld *k, cJSON *d)
{
	cJSON *arr = cJSON_CreateArray(), *o;
	const cJSON *c;
	int i = 0;

	json_bld_put(k, d, "predictions", arr);
	cJSON_ArrayForEach(c, p->predictions) {
		const char *kind = cJSON_IsString(c) ? "text" : json_get(c, "kind")->valuestring;
		const char *gate = strcmp(kind, "heldout_assistance") == 0 ? "C" :
		    strcmp(kind, "text") == 0 ? NULL : "D";
		if ((o = cJSON_CreateObject()) == NULL)
			return -1;
		json_bld_push(k, arr, o);
		json_bld_put(k, o, "id", cJSON_IsString(c) ? cJSON_CreateNull() :
		    cJSON_CreateString(json_get(c, "id")->valuestring));
		json_bld_put(k, o, "index", cJSON_CreateNumber(i++));
		json_bld_put(k, o, "kind", cJSON_CreateString(kind));
		json_bld_put(k, o, "gate", gate ? cJSON_CreateString(gate) : cJSON_CreateNull());
	}
	return 0;
}

cJSON *
prereg_check_doc(const struct prereg *p, struct err *e)
{
	cJSON *d = cJSON_CreateObject(), *notes = cJSON_CreateArray();
	struct json_bld k = { 0 };

	json_bld_put(&k, d, "notes", notes);
	for (size_t i = 0; i < p->nnotes; i++)
		json_bld_push(&k, notes, cJSON_CreateString(p->notes[i]));
	if (d == NULL || !json_add_string(d, "kind", "cohort.prereg.check/1") ||
	    !json_add_string(d, "prereg", p->id) || !json_add_string(d, "name", p->name) ||
	    !json_add_string(d, "registered_at", p->registered_at) ||
	    !json_add_string(d, "candidates", p->candidates_id) ||
	    check_predictions(p, &k, d) < 0 || k.oom) {
		cJSON_Delete(d);
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	return d;
}

static const char *
check_text(const cJSON *o, const char *key, const char *dflt)
{
	const cJSON *v = json_get(o, key);

	return cJSON_IsString(v) ? v->valuestring : dflt;
}

int
prereg_check_table(const cJSON *check, struct buf *out, struct err *e)
{
	const cJSON *c;
	int rc = 0, n = 0;

	rc |= buf_printf(out, "prereg %s\n", check_text(check, "name", "?"));
	rc |= buf_printf(out, "identity       %s\n", check_text(check, "prereg", "?"));
	rc |= buf_printf(out, "registered_at  %s\n", check_text(check, "registered_at", "?"));
	rc |= buf_printf(out, "candidates     %s\n", check_text(check, "candidates", "?"));
	rc |= buf_printf(out, "\n%-5s %-24s %-18s %s\n", "index", "id", "kind", "checked by");
	cJSON_ArrayForEach(c, json_get(check, "predictions")) {
		const cJSON *i = json_get(c, "index");
		const char *g = check_text(c, "gate", NULL);
		rc |= buf_printf(out, "%-5d %-24s %-18s %s%s\n", cJSON_IsNumber(i) ?
		    (int)i->valuedouble : -1, check_text(c, "id", "-"), check_text(c, "kind", "?"),
		    g ? "gate " : "no machine (text)", g ? g : "");
	}
	rc |= buf_printf(out, "\nnot interpreted (kept and hashed with the prereg):");
	cJSON_ArrayForEach(c, json_get(check, "notes"))
		rc |= buf_printf(out, "%s%s", n++ ? ", " : " ", cJSON_IsString(c) ? c->valuestring : "?");
	rc |= buf_printf(out, "%s\n", n ? "" : " none");
	return rc < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
}
