/* verify.c: re-checking a freeze: every stored record re-hashed, then the
 * whole manifest re-derived from the records with the freeze's own code and
 * compared section by section. */
#include "verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"
#include "../common/pool.h"
#include "../store/cas.h"
#include "../freeze/freeze.h"
#include "../common/hash.h"
#include "../json/json.h"
#include "../protocol/candidates.h"
#include "../protocol/openings.h"
#include "../protocol/spec.h"
#include "../protocol/prereg.h"

/* Findings listed one by one up to this many per check; past it, counted. */
#define VERIFY_MAX_LISTED 1000

int
verify_check_add(cJSON *checks, const char *check, const char *subject, int ok, const char *detail)
{
	cJSON *o = cJSON_CreateObject();

	if (o == NULL)
		return ok;
	json_add_string(o, "check", check);
	json_add_string(o, "subject", subject);
	json_add_bool(o, "ok", ok);
	if (detail != NULL)
		json_add_string(o, "detail", detail);
	cJSON_AddItemToArray(checks, o);
	return ok;
}

struct vctx {
	cJSON *checks;
	int findings;
	size_t listed;
	uint64_t suppressed;
	const struct prereg *prereg; /* the one the freeze follows, or NULL */
};

static void
finding(struct vctx *v, const char *check, const char *subject, const char *detail)
{
	v->findings++;
	if (v->listed++ < VERIFY_MAX_LISTED)
		verify_check_add(v->checks, check, subject, 0, detail);
	else
		v->suppressed++;
}

/* What checking one record found: up to two findings and its summary. */
struct vitem {
	const char *gid;            /* borrowed from the manifest */
	uint8_t d[HASH_LEN];        /* identity the manifest gives */
	struct freeze_item item;    /* summary to take */
	int have;                   /* 1 when item holds one */
	char *check[2], *detail[2]; /* findings (owned) */
};

/* The records split into nrange ranges, one job each. */
struct vjob {
	struct cas *store;
	const struct freeze_acc *acc;
	struct vitem *items;
	size_t n, nrange;
};

static void
vitem_finding(struct vitem *it, const char *check, const char *detail)
{
	for (int i = 0; i < 2; i++)
		if (it->check[i] == NULL) {
			it->check[i] = strdup(check);
			it->detail[i] = strdup(detail);
			return;
		}
}

/* Re-hash and re-summarize one record; only reads shared state. */
static void
check_one(struct vjob *j, struct vitem *it, struct buf *canon)
{
	struct err e = ERR_INIT;
	char detail[512], where[160], id[HASH_ID_LEN + 1];
	uint8_t got[HASH_LEN];
	const char *p, *rgid = NULL;
	size_t n;
	cJSON *rec;
	int r;

	hash_id_format(it->d, id);
	r = cas_get(j->store, it->d, &p, &n, &e);
	if (r != 0) {
		if (r > 0)
			snprintf(detail, sizeof detail, "record %s of game %.100s is not in the store", id,
			    it->gid);
		vitem_finding(it, "record-present", r > 0 ? detail : e.msg);
		return;
	}
	hash_bytes(p, n, got);
	if (hash_cmp(got, it->d) != 0) {
		char gotid[HASH_ID_LEN + 1];
		hash_id_format(got, gotid);
		snprintf(detail, sizeof detail, "stored bytes of game %.100s hash to %s, not %s", it->gid,
		    gotid, id);
		vitem_finding(it, "record-hash", detail);
		return;
	}
	snprintf(where, sizeof where, "record %.100s", it->gid);
	rec = json_parse(p, n, where, 1, &e);
	if (rec == NULL) {
		vitem_finding(it, "record-valid", e.msg);
		return;
	}
	json_get_string(rec, "game_id", 0, &rgid, &e);
	if (rgid == NULL || strcmp(rgid, it->gid) != 0) {
		snprintf(detail, sizeof detail, "the manifest names game %.100s, the record is game %.100s",
		    it->gid, rgid ? rgid : "(none)");
		vitem_finding(it, "record-game", detail);
	}
	if (freeze_acc_prepare(j->acc, rec, where, &it->item, canon, got, &e) < 0)
		vitem_finding(it, "record-valid", e.msg);
	else if ((it->have = 1) && (canon->len != n || memcmp(canon->p, p, n) != 0))
		vitem_finding(it, "record-canonical", "stored bytes are not canonical JSON");
	cJSON_Delete(rec);
}

static void
check_range(void *arg, size_t r, int worker)
{
	struct vjob *j = arg;
	struct buf canon = BUF_INIT;

	for (size_t i = j->n * r / j->nrange; i < j->n * (r + 1) / j->nrange; i++)
		check_one(j, &j->items[i], &canon);
	buf_release(&canon);
}

#define VERIFY_MAX_JOBS 16

/* Every record the manifest names (games, then excluded): re-hashed and
 * re-summarized on all processors, then taken into acc in manifest order. */
static int
check_records(struct vctx *v, const cJSON *manifest, struct cas *store, struct freeze_acc *acc,
    int jobs, uint64_t *nrec, struct err *e)
{
	static const char *const lists[] = { "games", "excluded" };
	struct pool *pool;
	struct vitem *items;
	size_t n = 0, k = 0, njobs = (size_t)(jobs > 0 ? jobs : pool_cpus());
	int rc = 0;

	for (int l = 0; l < 2; l++)
		n += (size_t)cJSON_GetArraySize(json_get(manifest, lists[l]));
	*nrec = n;
	items = calloc(n + 1, sizeof *items);
	if (items == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (int l = 0; l < 2; l++) {
		const cJSON *it;
		cJSON_ArrayForEach(it, json_get(manifest, lists[l])) {
			const char *idtext;
			if (json_get_string(it, "id", 1, &idtext, e) < 0 ||
			    json_get_string(it, "game_id", 1, &items[k].gid, e) < 0) {
				rc = err_prefix(e, "\"%s\"", lists[l]);
				goto done;
			}
			if (hash_id_parse(idtext, items[k].d) < 0) {
				rc = err_set(e, ERR_INPUT, "\"%s\": \"id\": not an identity: %.80s", lists[l],
				    idtext);
				goto done;
			}
			k++;
		}
	}
	if (njobs > VERIFY_MAX_JOBS)
		njobs = VERIFY_MAX_JOBS;
	if (njobs > n / 256 + 1)
		njobs = n / 256 + 1;
	/* this thread one of them */
	if ((pool = pool_new((int)njobs - 1)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	pool_run(pool, njobs, check_range, &(struct vjob){ store, acc, items, n, njobs });
	pool_free(pool);
	for (size_t i = 0; i < n; i++) {
		for (int f = 0; f < 2; f++)
			if (items[i].check[f])
				finding(v, items[i].check[f], items[i].gid, items[i].detail[f]);
		if (items[i].have && rc == 0) {
			rc = freeze_acc_take(acc, &items[i].item, e);
			items[i].have = 0;
		}
	}
done:
	for (size_t i = 0; i < n; i++) {
		freeze_item_clear(&items[i].item);
		for (int f = 0; f < 2; f++) {
			free(items[i].check[f]);
			free(items[i].detail[f]);
		}
	}
	free(items);
	return rc;
}

static char *
snippet(const cJSON *v)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;

	if (v == NULL)
		return strdup("(absent)");
	if (canon_write(v, &b, &e) < 0) {
		buf_release(&b);
		return strdup("(unwritable)");
	}
	if (b.len > 240) {
		b.len = 240;
		b.p[240] = '\0';
		buf_adds(&b, "...");
	}
	return b.p;
}

static int
same(const cJSON *a, const cJSON *b)
{
	struct buf x = BUF_INIT, y = BUF_INIT;
	struct err e = ERR_INIT;
	int eq;

	if (a == NULL || b == NULL)
		return a == b;
	eq = canon_write(a, &x, &e) == 0 && canon_write(b, &y, &e) == 0 && x.len == y.len &&
	    (x.len == 0 || memcmp(x.p, y.p, x.len) == 0);
	buf_release(&x);
	buf_release(&y);
	return eq;
}

static int
listed(const char *key, const char *const *keys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(key, keys[i]) == 0)
			return 1;
	return 0;
}

/* same(a, b) for two objects whose members named in skip are known to be
 * the same: the other members pairwise, and none on one side only.  Spares
 * writing both whole manifests out again. */
static int
same_outside(const cJSON *a, const cJSON *b, const char *const *skip, size_t nskip)
{
	const cJSON *x;

	if (!cJSON_IsObject(a) || !cJSON_IsObject(b))
		return same(a, b);
	cJSON_ArrayForEach(x, a)
		if (!listed(x->string, skip, nskip) && !same(x, json_get(b, x->string)))
			return 0;
	cJSON_ArrayForEach(x, b)
		if (!listed(x->string, skip, nskip) && json_get(a, x->string) == NULL)
			return 0;
	return 1;
}

/* The leaves where a and b differ, walked together: *n counts them, the
 * first one's path (".d", "[2].tokens.input") goes to path and its two
 * values to *fa and *fb (NULL where one side has none). */
static void
leaf_diff(const cJSON *a, const cJSON *b, struct buf *at, struct buf *path, const cJSON **fa,
    const cJSON **fb, long *n)
{
	size_t keep = at->len;

	if (same(a, b))
		return;
	if (cJSON_IsObject(a) && cJSON_IsObject(b)) {
		const cJSON *x;
		cJSON_ArrayForEach(x, a) {
			buf_printf(at, ".%s", x->string);
			leaf_diff(x, json_get(b, x->string), at, path, fa, fb, n);
			buf_cut(at, keep);
		}
		cJSON_ArrayForEach(x, b)
			if (json_get(a, x->string) == NULL) {
				buf_printf(at, ".%s", x->string);
				leaf_diff(NULL, x, at, path, fa, fb, n);
				buf_cut(at, keep);
			}
		return;
	}
	if (cJSON_IsArray(a) && cJSON_IsArray(b)) {
		const cJSON *x = a->child, *y = b->child;
		for (int i = 0; x || y; i++) {
			buf_printf(at, "[%d]", i);
			leaf_diff(x, y, at, path, fa, fb, n);
			buf_cut(at, keep);
			x = x ? x->next : NULL;
			y = y ? y->next : NULL;
		}
		return;
	}
	if ((*n)++ == 0) {
		buf_reset(path);
		buf_adds(path, at->p != NULL ? at->p : "");
		*fa = a;
		*fb = b;
	}
}

/* A finding on subject: which field differs and how ("\"totals.d\": the
 * manifest has 55, the records give 54"), and how many others do. */
static void
differs(struct vctx *v, const char *subject, const cJSON *given, const cJSON *derived)
{
	struct buf at = BUF_INIT, path = BUF_INIT;
	const cJSON *fa = NULL, *fb = NULL;
	long n = 0;
	char detail[1024], more[64] = "";
	char *sx, *sy;

	buf_adds(&at, subject);
	leaf_diff(given, derived, &at, &path, &fa, &fb, &n);
	sx = snippet(fa);
	sy = snippet(fb);
	if (n > 1)
		snprintf(more, sizeof more, " (%ld fields differ in all)", n);
	snprintf(detail, sizeof detail, "\"%s\": the manifest has %s, the records give %s%s",
	    path.p != NULL ? path.p : subject, sx ? sx : "?", sy ? sy : "?", more);
	finding(v, "derivation", subject, detail);
	free(sx);
	free(sy);
	buf_release(&at);
	buf_release(&path);
}

static const char *
game_of(const cJSON *entry)
{
	const cJSON *g = json_get(entry, "game_id");

	return cJSON_IsString(g) ? g->valuestring : "";
}

/* Both lists are sorted by game_id: walk them together, so one missing
 * game is one finding, not a shift of every entry after it. */
static void
compare_by_game(struct vctx *v, const char *key, const cJSON *g, const cJSON *d)
{
	const cJSON *x = g->child, *y = d->child;
	char detail[1024];

	while (x || y) {
		int c = !x ? 1 : !y ? -1 : strcmp(game_of(x), game_of(y));
		char *sx = snippet(c <= 0 ? x : NULL), *sy = snippet(c >= 0 ? y : NULL);
		char subj[160];

		snprintf(subj, sizeof subj, "%s %.100s", key, game_of(c <= 0 ? x : y));
		if (c == 0 && !same(x, y))
			differs(v, subj, x, y);
		else if (c != 0) {
			snprintf(detail, sizeof detail, "manifest has %s; the records give %s",
			    sx ? sx : "?", sy ? sy : "?");
			finding(v, "derivation", subj, detail);
		}
		free(sx);
		free(sy);
		if (c <= 0)
			x = x->next;
		if (c >= 0)
			y = y->next;
	}
}

/* Compare one section of the manifest with its re-derivation; arrays entry
 * by entry, so every differing entry is named. */
static void
compare_section(struct vctx *v, const char *key, const cJSON *given, const cJSON *derived)
{
	const cJSON *g = json_get(given, key), *d = json_get(derived, key);
	char detail[1024];

	if (same(g, d)) {
		verify_check_add(v->checks, "derivation", key, 1, NULL);
		return;
	}
	if (cJSON_IsArray(g) && cJSON_IsArray(d) &&
	    (strcmp(key, "games") == 0 || strcmp(key, "excluded") == 0)) {
		compare_by_game(v, key, g, d);
		return;
	}
	if (cJSON_IsArray(g) && cJSON_IsArray(d)) {
		int ng = cJSON_GetArraySize(g), nd = cJSON_GetArraySize(d);
		const cJSON *x = g->child, *y = d->child;
		for (int i = 0; x || y; i++) {
			if (!same(x, y)) {
				char subj[64];
				snprintf(subj, sizeof subj, "%s[%d]", key, i);
				differs(v, subj, x, y);
			}
			x = x ? x->next : NULL;
			y = y ? y->next : NULL;
		}
		if (ng != nd) {
			snprintf(detail, sizeof detail, "manifest lists %d entries; the records give %d",
			    ng, nd);
			finding(v, "derivation", key, detail);
		}
		return;
	}
	differs(v, key, g, d);
}

/* Whether b holds exactly the canonical bytes of doc. */
static int
canon_is(const cJSON *doc, const struct buf *b)
{
	struct buf c = BUF_INIT;
	struct err e = ERR_INIT;
	int same = canon_write(doc, &c, &e) == 0 && c.len == b->len &&
	    memcmp(c.p, b->p, b->len) == 0;

	buf_release(&c);
	return same;
}

/* One stored decision, listed under key: present, hashing to its id,
 * canonical, and summarized into x again. */
static void
check_decision(struct vctx *v, struct cas *store, struct freeze_dec *x,
    struct freeze_dec_scratch *w, const cJSON *entry, struct buf *canon)
{
	const char *idtext = NULL, *did = NULL, *p;
	uint8_t d[HASH_LEN], got[HASH_LEN];
	char detail[512], where[160];
	struct err e = ERR_INIT;
	size_t n;
	int r;

	json_get_string(entry, "id", 0, &idtext, &e);
	json_get_string(entry, "decision_id", 0, &did, &e);
	if (idtext == NULL || did == NULL || hash_id_parse(idtext, d) < 0) {
		finding(v, "record-present", "decisions", "an entry without a decision_id or an identity");
		return;
	}
	if ((r = cas_get(store, d, &p, &n, &e)) != 0) {
		snprintf(detail, sizeof detail, "record %s of decision %.100s is not in the store", idtext,
		    did);
		finding(v, "record-present", did, r > 0 ? detail : e.msg);
		return;
	}
	hash_bytes(p, n, got);
	snprintf(where, sizeof where, "decision %.100s", did);
	if (hash_cmp(got, d) != 0) {
		finding(v, "record-hash", did, "its stored bytes hash to another identity");
		return;
	}
	if (freeze_dec_add_text(x, w, p, n, where, canon, got, &e) < 0)
		finding(v, "record-valid", did, e.msg);
	else if (canon->len != n || memcmp(canon->p, p, n) != 0)
		finding(v, "record-canonical", did, "stored bytes are not canonical JSON");
}

/* The decisions of a freeze: the candidate manifest it names from the
 * store, every listed decision checked and summarized again, and the
 * section they give handed to acc for the whole manifest's comparison. */
static int
check_decisions(struct vctx *v, const cJSON *freeze, struct cas *store, struct freeze_acc *acc,
    uint64_t *nrec, struct err *e)
{
	const cJSON *sec = json_get(freeze, "decisions"), *entry;
	struct candidates cand = CANDIDATES_INIT;
	struct freeze_dec *x = NULL;
	struct freeze_dec_scratch *w = NULL;
	struct buf canon = BUF_INIT;
	const char *cid = NULL, *fid = NULL, *p;
	uint8_t d[HASH_LEN];
	size_t n;
	int rc = -1;

	if (sec == NULL)
		return 0;
	if (json_get_string(sec, "candidates", 1, &cid, e) < 0 || hash_id_parse(cid, d) < 0) {
		finding(v, "derivation", "decisions", "no candidate manifest identity");
		return 0;
	}
	/* a manifest another tool wrote is read as its file was (the section
	 * names the file's SHA-256 as well): the same identity, the same file */
	if (json_get_string(sec, "candidates_file", 0, &fid, e) < 0 || (fid != NULL &&
	    hash_id_parse(fid, d) < 0)) {
		finding(v, "derivation", "decisions", "\"candidates_file\": not an identity");
		return 0;
	}
	if (cas_get(store, d, &p, &n, e) != 0) {
		finding(v, "record-present", "candidates", "the candidate manifest is not in the store");
		return 0;
	}
	(*nrec)++;
	if (cand_read_bytes(p, n, "stored candidate manifest", &cand, e) < 0) {
		if (e->code == ERR_NOMEM)
			return -1;
		finding(v, "record-valid", "candidates", e->msg);
		*e = (struct err)ERR_INIT;
		return 0;
	}
	if (strcmp(cand.id, cid) != 0)
		finding(v, "record-hash", "candidates", "the stored manifest is not canonical");
	if (fid != NULL && (hash_id_parse(cid, d) < 0 || cas_get(store, d, &p, &n, e) != 0))
		finding(v, "record-present", "candidates", "the canonical candidate manifest is not "
		    "in the store");
	if ((x = freeze_dec_new(freeze_acc_spec(acc), &cand, e)) == NULL)
		goto done;
	if ((w = freeze_dec_scratch_new()) == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (v->prereg != NULL)
		freeze_dec_set_prereg(x, v->prereg);
	for (int l = 0; l < 2; l++)
		cJSON_ArrayForEach(entry, json_get(sec, l ? "excluded" : "included")) {
			check_decision(v, store, x, w, entry, &canon);
			(*nrec)++;
		}
	if (freeze_dec_section(x, e) < 0) {
		if (e->code == ERR_NOMEM)
			goto done;
		finding(v, "derivation", "decisions", e->msg);
		*e = (struct err)ERR_INIT;
	} else {
		cJSON *devs = v->prereg != NULL ? freeze_dec_deviations(x, e) : NULL;
		if (v->prereg != NULL && devs == NULL)
			goto done;
		if (devs != NULL)
			freeze_acc_set_deviations(acc, devs);
		freeze_acc_set_decisions(acc, x);
		x = NULL;
	}
	rc = 0;
done:
	freeze_dec_scratch_free(w);
	freeze_dec_free(x);
	cand_release(&cand);
	buf_release(&canon);
	return rc;
}

/* The prereg a freeze holds, read and followed by acc as the freeze's was:
 * 0, 1 when it is not one or not the one it names (a finding), -1 out of
 * memory. */
static int
follow_prereg(struct vctx *v, const cJSON *freeze, struct freeze_acc *acc, struct prereg *pr,
    struct err *e)
{
	const cJSON *id = json_get(freeze, "prereg");
	struct err pe = ERR_INIT;

	if (prereg_parse(json_get(freeze, "preregistration"), "\"preregistration\"", pr, &pe) < 0) {
		finding(v, "derivation", "prereg", pe.msg);
		return 1;
	}
	if (!cJSON_IsString(id) || strcmp(id->valuestring, pr->id) != 0) {
		finding(v, "derivation", "prereg", "\"prereg\" is not the identity of \"preregistration\"");
		return 1;
	}
	v->prereg = pr;
	return freeze_acc_set_prereg(acc, pr, e) < 0 ? -1 : 0;
}

/* Each deviation the freeze lists is a finding: the cohort did not do
 * what it registered.  (Their derivation is checked with the sections.) */
static void
deviation_checks(struct vctx *v, const cJSON *freeze)
{
	const cJSON *d;
	char detail[768];

	cJSON_ArrayForEach(d, json_get(freeze, "deviations")) {
		const char *s = "", *r = "", *u = "";
		json_get_string(d, "setting", 0, &s, NULL);
		json_get_string(d, "registered", 0, &r, NULL);
		json_get_string(d, "used", 0, &u, NULL);
		snprintf(detail, sizeof detail, "%.100s: registered %.300s, used %.300s", s, r, u);
		finding(v, "deviation", "prereg", detail);
	}
	if (json_get(freeze, "deviations") != NULL && json_get(freeze, "deviations")->child == NULL)
		verify_check_add(v->checks, "deviation", "prereg", 1, "the cohort followed its prereg");
}

/* The opening suite the freeze's spec names, from the store, followed by
 * acc as the freeze's was: 0 (a suite missing or unreadable is a
 * finding, and its games then re-derive without it), -1 out of memory. */
static int
follow_openings(struct vctx *v, struct cas *store, struct freeze_acc *acc, struct openings *s,
    uint64_t *nrec, struct err *e)
{
	const char *id = freeze_acc_spec(acc)->opening_suite;
	uint8_t d[HASH_LEN];
	const char *p;
	size_t n;

	if (id == NULL || hash_id_parse(id, d) < 0)
		return 0;
	if (cas_get(store, d, &p, &n, e) != 0) {
		if (e->code == ERR_NOMEM)
			return -1;
		*e = (struct err)ERR_INIT;
		finding(v, "record-present", "opening_suite", "the opening suite is not in the store");
		return 0;
	}
	(*nrec)++;
	if (openings_read_bytes(p, n, "stored opening suite", s, e) < 0) {
		if (e->code == ERR_NOMEM)
			return -1;
		finding(v, "record-valid", "opening_suite", e->msg);
		*e = (struct err)ERR_INIT;
		return 0;
	}
	if (strcmp(s->id, id) != 0)
		finding(v, "record-hash", "opening_suite", "the stored suite is not canonical");
	freeze_acc_set_openings(acc, s);
	return 0;
}

/* Each broken pair the freeze lists is a finding: a colour-reversed pair
 * was not played as one.  (The list's derivation is checked with the
 * sections.) */
static void
pair_checks(struct vctx *v, const cJSON *freeze)
{
	const cJSON *b, *sec = json_get(freeze, "pairs");
	char detail[768];

	cJSON_ArrayForEach(b, json_get(sec, "broken")) {
		const char *g = "", *p = "", *w = "";
		json_get_string(b, "game_id", 0, &g, NULL);
		json_get_string(b, "pair", 0, &p, NULL);
		json_get_string(b, "why", 0, &w, NULL);
		snprintf(detail, sizeof detail, "game %.200s (pair %.200s): %.300s", g, p, w);
		finding(v, "pair", "pairs", detail);
	}
	if (cJSON_IsObject(sec) && json_get(sec, "broken") != NULL &&
	    json_get(sec, "broken")->child == NULL)
		verify_check_add(v->checks, "pair", "pairs", 1, "every pair is whole");
}

int
verify_freeze(const cJSON *freeze, const char *store_dir, int jobs, cJSON *checks, struct err *e)
{
	static const char *const all[] = { "spec_id", "as_of", "games", "excluded", "blocks",
		"conditions", "totals", "decisions", "prereg", "deviations" };
	static const char *const games[] = { "spec_id", "as_of", "games", "excluded", "blocks",
		"conditions", "totals", "prereg", "deviations" };
	/* "decisions" only where there are decisions, "prereg" and
	 * "deviations" only with a prereg: a freeze of games alone reports
	 * what it always did */
	int dec = json_get(freeze, "decisions") != NULL, pre = json_get(freeze, "prereg") != NULL;
	const char *const *base = dec ? all : games;
	size_t nsections = 7 + (size_t)dec + 2 * (size_t)pre;
	/* and "pairs" where there are pairs or an opening suite */
	const char *sections[12];
	struct openings suite = OPENINGS_INIT;
	struct prereg pr = PREREG_INIT;
	struct vctx v = { checks, 0, 0, 0, NULL };
	struct freeze_acc *acc = NULL;
	struct cas *store = NULL;
	const cJSON *spec;
	const char *kind;
	cJSON *derived = NULL;
	struct buf want = BUF_INIT;
	uint64_t nrec = 0;
	char detail[256];
	int rc = -1;

	memcpy(sections, base, nsections * sizeof *sections);
	if (json_get(freeze, "pairs") != NULL)
		sections[nsections++] = "pairs";
	if (json_get_string(freeze, "kind", 1, &kind, e) < 0)
		return -1;
	if (strcmp(kind, "cohort.freeze/1") != 0)
		return err_set(e, ERR_INPUT, "\"kind\": expected cohort.freeze/1, found %.60s", kind);
	if (json_get_object(freeze, "spec", 1, &spec, e) < 0 ||
	    json_get_array(freeze, "games", 1, &(const cJSON *){ NULL }, e) < 0 ||
	    json_get_array(freeze, "excluded", 1, &(const cJSON *){ NULL }, e) < 0)
		return -1;
	acc = freeze_acc_new(spec, e);
	if (acc == NULL)
		return err_prefix(e, "\"spec\"");
	if (pre && (rc = follow_prereg(&v, freeze, acc, &pr, e)) != 0) {
		rc = rc < 0 ? -1 : 1;
		goto done;
	}
	rc = -1;
	if (cas_open(store_dir, 0, &store, e) < 0)
		goto done;
	const char *const *damage;
	size_t ndamage = cas_damage(store, &damage);
	for (size_t i = 0; i < ndamage; i++)
		finding(&v, "store-damaged", store_dir, damage[i]);
	if (follow_openings(&v, store, acc, &suite, &nrec, e) < 0 ||
	    check_records(&v, freeze, store, acc, jobs, &nrec, e) < 0 ||
	    check_decisions(&v, freeze, store, acc, &nrec, e) < 0)
		goto done;
	snprintf(detail, sizeof detail, "%llu records named, %llu in the store",
	    (unsigned long long)nrec, (unsigned long long)cas_count(store));
	if (v.findings == 0)
		verify_check_add(checks, "records", "store", 1, detail);
	/* Re-derive the manifest's bytes; when they are the manifest's own
	 * canonical bytes every section holds, else compare section by section
	 * to name what differs. */
	if (freeze_acc_write(acc, json_get(freeze, "repo"), &want, e) < 0) {
		/* Records that re-derive into nothing consistent are a finding;
		 * memory that ran out, an error. */
		if (e->code == ERR_NOMEM)
			goto done;
		finding(&v, "derivation", "manifest", e->msg);
	} else if (canon_is(freeze, &want)) {
		for (size_t i = 0; i < nsections; i++)
			verify_check_add(checks, "derivation", sections[i], 1, NULL);
	} else if ((derived = json_parse(want.p, want.len, "manifest", 1, e)) == NULL) {
		if (e->code == ERR_NOMEM)
			goto done;
		finding(&v, "derivation", "manifest", e->msg);
	} else {
		for (size_t i = 0; i < nsections; i++)
			compare_section(&v, sections[i], freeze, derived);
		if (v.findings == 0 && !same_outside(freeze, derived, sections,
		    nsections))
			finding(&v, "derivation", "manifest",
			    "the manifest holds fields the records do not give");
	}
	if (pre)
		deviation_checks(&v, freeze);
	pair_checks(&v, freeze);
	if (v.suppressed) {
		snprintf(detail, sizeof detail, "%llu more findings not listed",
		    (unsigned long long)v.suppressed);
		verify_check_add(checks, "findings", "store", 0, detail);
	}
	rc = v.findings ? 1 : 0;
done:
	buf_release(&want);
	cJSON_Delete(derived);
	cas_free(store);
	freeze_acc_free(acc);
	openings_release(&suite);
	prereg_release(&pr);
	return rc;
}
