/* gate.c: the gate document: its evidence read and ordered, the criteria
 * judged (gate_a.c, gate_cd.c), the deviations from the prereg, the
 * verdict; and its derivation again for verify. */
#include "gate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../json/json.h"
#include "../protocol/prereg.h"
#include "internal.h"

/* What each gate reads. */
static const char *const evidence_kinds[4][3] = {
	{ "cohort.freeze/1", "cohort.reconcile/1", "cohort.fit/1" },
	{ "cohort.paired/1", "cohort.verify/1", NULL },
	{ "cohort.fingerprint/1", "cohort.distance/1", NULL },
	{ "cohort.fingerprint/1", NULL, NULL },
};

int
gate_known(char c)
{
	return c >= 'A' && c <= 'D';
}

void
gate_num(double x, char out[32])
{
	canon_number(json_round(x, 1e-6), out);
}

static void
note(struct verdict *v, const char *fmt, va_list ap)
{
	size_t cap = sizeof v->detail;

	if (v->len + 3 >= cap)
		return;
	if (v->len > 0) {
		memcpy(v->detail + v->len, "; ", 2);
		v->len += 2;
	}
	int k = vsnprintf(v->detail + v->len, cap - v->len, fmt, ap);
	v->len = k < 0 ? v->len : v->len + (size_t)k >= cap ? cap - 1 : v->len + (size_t)k;
}

void
verdict_note(struct verdict *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	note(v, fmt, ap);
	va_end(ap);
}

void
verdict_fail(struct verdict *v, const char *fmt, ...)
{
	va_list ap;

	v->fail++;
	va_start(ap, fmt);
	note(v, fmt, ap);
	va_end(ap);
}

void
verdict_gap(struct verdict *v, const char *fmt, ...)
{
	va_list ap;

	v->gap++;
	va_start(ap, fmt);
	note(v, fmt, ap);
	va_end(ap);
}

void
verdict_evidence(struct verdict *v, const char *id)
{
	const cJSON *c;

	if (v->evidence == NULL && (v->evidence = cJSON_CreateArray()) == NULL)
		return;
	cJSON_ArrayForEach(c, v->evidence)
		if (strcmp(c->valuestring, id) == 0)
			return;
	cJSON_AddItemToArray(v->evidence, cJSON_CreateString(id));
}

static const char *
verdict_word(const struct verdict *v)
{
	return v->fail ? "fail" : v->gap || !v->checked ? "insufficient" : "pass";
}

int
verdict_add(struct gate_ctx *g, const char *id, const char *text, struct verdict *v)
{
	cJSON *o = cJSON_CreateObject(), *ev = v->evidence ? v->evidence : cJSON_CreateArray();

	v->evidence = NULL;
	if (!v->checked && !v->gap && !v->fail)
		verdict_note(v, "no evidence for it");
	if (o == NULL || ev == NULL || !cJSON_AddItemToArray(g->criteria, o) ||
	    !json_add_string(o, "id", id) || !json_add_string(o, "text", text) ||
	    !json_add_string(o, "verdict", verdict_word(v)) ||
	    !cJSON_AddItemToObject(o, "evidence", ev) || !json_add_string(o, "detail", v->detail)) {
		if (o != NULL && !cJSON_IsArray(o->child))
			cJSON_Delete(ev);
		return err_set(g->e, ERR_NOMEM, "out of memory");
	}
	return 0;
}

const struct gate_in *
gate_next(const struct gate_ctx *g, const char *kind, size_t *i)
{
	for (; *i < g->n; (*i)++)
		if (strcmp(g->in[*i].kind, kind) == 0)
			return &g->in[(*i)++];
	return NULL;
}

static int
cmp_in(const void *a, const void *b)
{
	const struct gate_in *x = a, *y = b;
	int c = strcmp(x->kind, y->kind);

	return c ? c : strcmp(x->id, y->id);
}

/* The evidence read, checked to be of the gate's kinds, identified and
 * ordered. */
static int
read_evidence(struct gate_ctx *g, const cJSON *const *docs, const char *const *names, size_t n)
{
	const char *const *kinds = evidence_kinds[g->gate - 'A'];

	if ((g->in = calloc(n + 1, sizeof *g->in)) == NULL)
		return err_set(g->e, ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct gate_in *x = &g->in[i];
		int k = 0;
		x->doc = docs[i];
		x->name = names[i];
		if (json_get_string(docs[i], "kind", 1, &x->kind, g->e) < 0)
			return err_prefix(g->e, "%s", names[i]);
		while (k < 3 && kinds[k] && strcmp(kinds[k], x->kind) != 0)
			k++;
		if (k == 3 || kinds[k] == NULL)
			return err_set(g->e, ERR_INPUT, "%s: a %.60s document is not evidence for gate %c "
			    "(it reads %s%s%s%s%s)", names[i], x->kind, g->gate, kinds[0],
			    kinds[1] ? ", " : "", kinds[1] ? kinds[1] : "", kinds[2] ? ", " : "",
			    kinds[2] ? kinds[2] : "");
		if (canon_id(docs[i], x->id, g->e) < 0)
			return err_prefix(g->e, "%s", names[i]);
		const char *k0 = strchr(x->kind, '.'), *k1 = strchr(x->kind, '/');
		int kl = k0 && k1 && k1 > k0 ? (int)(k1 - k0 - 1) : 0;
		snprintf(x->label, sizeof x->label, "%.*s %.12s", kl, k0 ? k0 + 1 : "", x->id + 7);
	}
	qsort(g->in, n, sizeof *g->in, cmp_in);
	g->n = n;
	for (size_t i = 1; i < n; i++)
		if (strcmp(g->in[i].id, g->in[i - 1].id) == 0)
			return err_set(g->e, ERR_INPUT, "%s: the same document as %s", g->in[i].name,
			    g->in[i - 1].name);
	return 0;
}

/* The kinds that name the prereg they follow (a freeze, when it follows
 * one; the paired documents; fingerprints and distances). */
static int
follows(const char *kind)
{
	static const char *const k[] = { "cohort.freeze/1", "cohort.paired/1",
		"cohort.fingerprint/1", "cohort.distance/1" };

	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
		if (strcmp(kind, k[i]) == 0)
			return 1;
	return 0;
}

/* A paired document whose recorded replicates, seed or blunder_cp are not
 * the prereg's. */
static int
paired_off(const struct prereg *p, const char *kind, const cJSON *doc)
{
	const cJSON *o = json_get(doc, "options");
	const cJSON *r = json_get(o, "replicates"), *s = json_get(o, "seed"),
	    *b = json_get(o, "blunder_cp");

	if (strcmp(kind, "cohort.paired/1") != 0)
		return 0;
	return !cJSON_IsNumber(r) || r->valuedouble != (double)p->replicates ||
	    !cJSON_IsNumber(s) || s->valuedouble != (double)p->seed || !cJSON_IsNumber(b) ||
	    b->valuedouble != p->blunder_cp;
}

/* Deviations: evidence that follows another prereg (or none, when one is
 * given), and evidence that lists deviations of its own. */
static int
deviations(const struct gate_ctx *g, cJSON *doc)
{
	cJSON *arr = cJSON_AddArrayToObject(doc, "deviations"), *o;
	char used[300];

	if (arr == NULL)
		return -1;
	for (size_t i = 0; i < g->n; i++) {
		const cJSON *pr = json_get(g->in[i].doc, "prereg"), *dv;
		const char *set = NULL, *reg = NULL;
		/* only the kinds that follow a prereg are held to it */
		if (g->p != NULL && follows(g->in[i].kind) &&
		    !(cJSON_IsString(pr) && strcmp(pr->valuestring, g->p->id) == 0)) {
			snprintf(used, sizeof used, "%.40s %.80s follows %.80s", g->in[i].kind, g->in[i].id,
			    cJSON_IsString(pr) ? pr->valuestring : "no prereg");
			set = "prereg";
			reg = g->p->id;
		} else if (g->p != NULL && paired_off(g->p, g->in[i].kind, g->in[i].doc)) {
			/* its settings, not only the deviations it lists: those are
			 * what verify cannot compute again without the prereg */
			snprintf(used, sizeof used, "%.40s %.80s: bootstrap or blunder_cp not the registered",
			    g->in[i].kind, g->in[i].id);
			set = "paired.options";
			reg = "the prereg's bootstrap and blunder_cp";
		} else if (cJSON_GetArraySize(dv = (cJSON *)json_get(g->in[i].doc, "deviations")) > 0) {
			snprintf(used, sizeof used, "%.40s %.80s lists %d deviation%s", g->in[i].kind,
			    g->in[i].id, cJSON_GetArraySize(dv), cJSON_GetArraySize(dv) == 1 ? "" : "s");
			set = "evidence";
			reg = "none";
		}
		if (set == NULL)
			continue;
		if ((o = cJSON_CreateObject()) == NULL || !cJSON_AddItemToArray(arr, o) ||
		    !json_add_string(o, "setting", set) || !json_add_string(o, "registered", reg) ||
		    !json_add_string(o, "used", used))
			return -1;
	}
	return 0;
}

/* The inputs by identity and kind, in their order. */
static int
add_inputs(const struct gate_ctx *g, cJSON *doc)
{
	cJSON *arr = cJSON_AddArrayToObject(doc, "inputs"), *o;

	for (size_t i = 0; arr != NULL && i < g->n; i++)
		if ((o = cJSON_CreateObject()) == NULL || !cJSON_AddItemToArray(arr, o) ||
		    !json_add_string(o, "id", g->in[i].id) || !json_add_string(o, "kind", g->in[i].kind))
			return -1;
	return arr ? 0 : -1;
}

/* Gate D lists the prereg's text predictions: registered, and beyond
 * what a machine checks (a reader judges them), each with its place in
 * the prereg's list. */
static int
text_predictions(const struct prereg *p, cJSON *doc)
{
	cJSON *arr = cJSON_AddArrayToObject(doc, "text_predictions"), *o;
	const cJSON *c;
	struct json_bld k = { 0 };
	int i = 0;

	if (arr == NULL)
		return -1;
	cJSON_ArrayForEach(c, p->predictions) {
		const char *t = prereg_prediction_text(c);
		if (t != NULL && (o = cJSON_CreateObject()) != NULL) {
			json_bld_push(&k, arr, o);
			json_bld_put(&k, o, "index", cJSON_CreateNumber(i));
			json_bld_put(&k, o, "text", cJSON_CreateString(t));
		} else if (t != NULL) {
			k.oom = 1;
		}
		i++;
	}
	return k.oom ? -1 : 0;
}

static const char *
overall(const cJSON *criteria, const cJSON *devs)
{
	const cJSON *c;
	int fail = 0, short_ = 0;

	cJSON_ArrayForEach(c, criteria) {
		const char *v = json_get(c, "verdict")->valuestring;
		fail += strcmp(v, "fail") == 0;
		short_ += strcmp(v, "insufficient") == 0;
	}
	return fail || cJSON_GetArraySize(devs) > 0 ? "fail" : short_ ? "insufficient" : "pass";
}

int
gate_document(char gt, const struct prereg *p, const cJSON *const *docs, const char *const *names,
    size_t n, cJSON **out, struct err *e)
{
	static int (*const judge[4])(struct gate_ctx *) = { gate_a, gate_b, gate_c, gate_d };
	struct gate_ctx g = { gt, p, NULL, 0, NULL, e };
	cJSON *doc = cJSON_CreateObject();
	char letter[2] = { gt, 0 };
	int rc = -1;

	*out = NULL;
	if (!gate_known(gt)) {
		cJSON_Delete(doc);
		return err_set(e, ERR_USAGE, "expected gate A, B, C or D");
	}
	if (doc == NULL)
		goto nomem;
	if (read_evidence(&g, docs, names, n) < 0)
		goto done;
	if (!json_add_string(doc, "kind", "cohort.gate/1") || !json_add_string(doc, "gate", letter) ||
	    !(p ? json_add_string(doc, "prereg", p->id) : json_add_null(doc, "prereg")) ||
	    add_inputs(&g, doc) < 0 || (g.criteria = cJSON_AddArrayToObject(doc, "criteria")) == NULL)
		goto nomem;
	if (judge[gt - 'A'](&g) < 0)
		goto done;
	if (gt == 'D' && p != NULL && text_predictions(p, doc) < 0)
		goto nomem;
	if (deviations(&g, doc) < 0 ||
	    !json_add_string(doc, "verdict", overall(g.criteria, json_get(doc, "deviations"))))
		goto nomem;
	*out = doc;
	doc = NULL;
	rc = 0;
	goto done;
nomem:
	err_set(e, ERR_NOMEM, "out of memory");
done:
	free(g.in);
	cJSON_Delete(doc);
	return rc;
}

int
gate_passes(const cJSON *doc, char *g, struct err *e)
{
	const char *kind, *gate, *verdict;

	if (json_get_string(doc, "kind", 1, &kind, e) < 0)
		return -1;
	if (strcmp(kind, "cohort.gate/1") != 0)
		return err_set(e, ERR_INPUT, "\"kind\": expected cohort.gate/1, found %.60s", kind);
	if (json_get_string(doc, "gate", 1, &gate, e) < 0 ||
	    json_get_string(doc, "verdict", 1, &verdict, e) < 0)
		return -1;
	if (strlen(gate) != 1 || !gate_known(gate[0]))
		return err_set(e, ERR_INPUT, "\"gate\": expected A, B, C or D");
	*g = gate[0];
	return strcmp(verdict, "pass") == 0;
}

int
gate_inputs(const cJSON *doc, const char **ids, size_t cap, size_t *n, struct err *e)
{
	const cJSON *arr, *c, *pr = json_get(doc, "prereg");
	const char *id;

	*n = 0;
	if (json_get_array(doc, "inputs", 1, &arr, e) < 0)
		return -1;
	cJSON_ArrayForEach(c, arr) {
		if (json_get_string(c, "id", 1, &id, e) < 0)
			return err_prefix(e, "\"inputs\"");
		if (*n < cap)
			ids[(*n)++] = id;
	}
	if (cJSON_IsString(pr) && *n < cap)
		ids[(*n)++] = pr->valuestring;
	return 0;
}

int
gate_refit_check(const cJSON *doc, const cJSON *const *docs, size_t n, const char *name,
    int *same, struct err *e)
{
	const cJSON **ev = calloc(n + 1, sizeof *ev);
	const char **names = calloc(n + 1, sizeof *names);
	const cJSON *pr = json_get(doc, "prereg");
	struct prereg p = PREREG_INIT;
	struct buf a = BUF_INIT, b = BUF_INIT;
	cJSON *again = NULL;
	size_t m = 0;
	char g = 0, id[HASH_ID_LEN + 1];
	int rc = -1, havep = 0;

	*same = 0;
	if (ev == NULL || names == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (gate_passes(doc, &g, e) < 0)
		goto done;
	for (size_t i = 0; i < n; i++) {
		const cJSON *k = json_get(docs[i], "kind");
		if (cJSON_IsString(k) && strcmp(k->valuestring, "cohort.prereg/1") == 0 &&
		    cJSON_IsString(pr) && canon_id(docs[i], id, e) == 0 &&
		    strcmp(id, pr->valuestring) == 0) {
			if (!havep && prereg_parse(docs[i], name, &p, e) < 0)
				goto done;
			havep = 1;
			continue;
		}
		names[m] = name;
		ev[m++] = docs[i];
	}
	if (cJSON_IsString(pr) && !havep) {
		err_set(e, ERR_INPUT, "%s: its prereg %.80s is not among the documents", name,
		    pr->valuestring);
		goto done;
	}
	if (gate_document(g, havep ? &p : NULL, ev, names, m, &again, e) < 0 ||
	    canon_write(doc, &a, e) < 0 || canon_write(again, &b, e) < 0)
		goto done;
	*same = a.len == b.len && memcmp(a.p, b.p, a.len) == 0;
	rc = 0;
done:
	cJSON_Delete(again);
	buf_release(&a);
	buf_release(&b);
	prereg_release(&p);
	free(ev);
	free(names);
	return rc;
}

void
gate_summary(const cJSON *doc, char *out, size_t cap)
{
	const cJSON *c;
	const char *g = "?", *v = "?";
	size_t at;
	int n = 0;

	json_get_string(doc, "gate", 0, &g, NULL);
	json_get_string(doc, "verdict", 0, &v, NULL);
	at = (size_t)snprintf(out, cap, "gate %s: %s", g, v);
	cJSON_ArrayForEach(c, json_get(doc, "criteria")) {
		const char *id = "?", *cv = "?";
		json_get_string(c, "id", 0, &id, NULL);
		json_get_string(c, "verdict", 0, &cv, NULL);
		if (strcmp(cv, "pass") == 0 || at >= cap)
			continue;
		at += (size_t)snprintf(out + at, cap - at, "%s%s %s", n++ ? ", " : " (", id, cv);
	}
	if (n > 0 && at < cap)
		snprintf(out + at, cap - at, ")");
	if (cJSON_GetArraySize(json_get(doc, "deviations")) > 0 && (at = strlen(out)) < cap)
		snprintf(out + at, cap - at, ", %d deviation%s", cJSON_GetArraySize(json_get(doc,
		    "deviations")), cJSON_GetArraySize(json_get(doc, "deviations")) == 1 ? "" : "s");
}

/* A string member of o, or dflt. */
static const char *
text_of(const cJSON *o, const char *key, const char *dflt)
{
	const cJSON *v = json_get(o, key);

	return cJSON_IsString(v) ? v->valuestring : dflt;
}

/* An identity as the table names it: the kind of the input it is, and its
 * first 12 hex digits. */
static void
evidence_name(const cJSON *doc, const char *id, char *out, size_t cap)
{
	const cJSON *in;
	const char *kind = "document", *hex = strncmp(id, "sha256:", 7) == 0 ? id + 7 : id;

	cJSON_ArrayForEach(in, json_get(doc, "inputs"))
		if (strcmp(text_of(in, "id", ""), id) == 0)
			kind = text_of(in, "kind", kind);
	if (strcmp(text_of(doc, "prereg", ""), id) == 0)
		kind = "cohort.prereg/1";
	if (strncmp(kind, "cohort.", 7) == 0)
		kind += 7;
	snprintf(out, cap, "%.*s %.12s", (int)strcspn(kind, "/"), kind, hex);
}

int
gate_table(const cJSON *doc, struct buf *out, struct err *e)
{
	const cJSON *c, *v;
	int rc = 0;

	rc |= buf_printf(out, "gate %s: %s\n", text_of(doc, "gate", "?"), text_of(doc, "verdict", "?"));
	rc |= buf_printf(out, "prereg: %s\n", text_of(doc, "prereg", "none"));
	cJSON_ArrayForEach(c, json_get(doc, "criteria")) {
		char name[64];
		int k = 0;
		rc |= buf_printf(out, "\n%-3s %-12s %s\n", text_of(c, "id", "?"),
		    text_of(c, "verdict", "?"), text_of(c, "text", ""));
		if (text_of(c, "detail", "")[0] != '\0')
			rc |= buf_printf(out, "    detail: %s\n", text_of(c, "detail", ""));
		cJSON_ArrayForEach(v, json_get(c, "evidence")) {
			evidence_name(doc, cJSON_IsString(v) ? v->valuestring : "", name, sizeof name);
			rc |= buf_printf(out, "%s%s", k++ ? ", " : "    evidence: ", name);
		}
		rc |= buf_printf(out, "%s", k ? "\n" : "    evidence: none\n");
	}
	rc |= buf_printf(out, "\ndeviations: %s\n",
	    cJSON_GetArraySize(json_get(doc, "deviations")) ? "" : "none");
	cJSON_ArrayForEach(c, json_get(doc, "deviations"))
		rc |= buf_printf(out, "    %s: registered %s, used %s\n", text_of(c, "setting", "?"),
		    text_of(c, "registered", "?"), text_of(c, "used", "?"));
	if (json_get(doc, "text_predictions") != NULL) {
		rc |= buf_printf(out, "text predictions (not checked by machine): %s\n",
		    cJSON_GetArraySize(json_get(doc, "text_predictions")) ? "" : "none");
		cJSON_ArrayForEach(c, json_get(doc, "text_predictions")) {
			const cJSON *i = json_get(c, "index");
			rc |= buf_printf(out, "    %d: %s\n", cJSON_IsNumber(i) ? (int)i->valuedouble : -1,
			    text_of(c, "text", ""));
		}
	}
	return rc < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
}
