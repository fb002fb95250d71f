/* verify_bag.c: an archive verified (see bundle.h): the BagIt layer, the
 * bundle document bag-info.txt names, which cohort made it, and the
 * checks of verify_*.c run on a pool of threads in a fixed order. */
#define _GNU_SOURCE /* asprintf */
#include "bundle_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/io.h"
#include "../common/pool.h"
#include "../json/json.h"
#include "../protocol/games.h"
#include "../secret/secret.h"

/* The verifier's independent checks run at once (common/pool.h), each
 * with checks and an error of its own; the caller appends them in task
 * order and stops at the first that could not run, as running them one
 * after another would: the same bytes on any number of threads. */
enum vpart { V_READ, V_FAST, V_DOC, V_LEDGERS, V_PAGE, V_SECRET };

struct vtask {
	struct vctx vc;            /* the caller's, but for checks and e */
	struct vitem *it;
	enum vpart part;
	const cJSON *doc;          /* V_PAGE: the bundle document */
	struct err e;
	int r;
};

/* The tasks of a run, taken in the order order gives (the pool takes jobs
 * in order of their number). */
struct vrun {
	struct vtask *t;
	const size_t *order;
};

static void
vtask_job(void *arg, size_t i, int worker)
{
	const struct vrun *run = arg;
	struct vtask *t = &run->t[run->order[i]];

	(void)worker;
	t->vc.e = &t->e;
	if (t->vc.checks == NULL)
		t->r = err_set(&t->e, ERR_NOMEM, "out of memory");
	else if (t->part == V_READ)
		t->r = bundle_vitem_check(&t->vc, t->it);
	else if (t->part == V_FAST)
		t->r = bundle_vitem_fast(&t->vc, t->it);
	else if (t->part == V_PAGE)
		t->r = bundle_bag_page(&t->vc, t->doc);
	else if (t->part == V_SECRET)
		t->r = bundle_vsecrets(&t->vc);
	else
		t->r = bundle_vitem_document(&t->vc, t->it, t->part == V_LEDGERS);
}

/* Run the n tasks t (their part, it and doc set), begun in the order
 * order gives, and append their checks in t's order: the findings, or -1
 * with the first error. */
static int
vtasks_run(struct vctx *vc, struct vtask *t, size_t n, const size_t *order)
{
	int threads = (vc->jobs > 0 ? vc->jobs : pool_cpus()) - 1, findings = 0, failed = 0;
	struct pool *p;
	cJSON *c;

	if ((size_t)threads > n)
		threads = (int)n;
	for (size_t i = 0; i < n; i++) {
		t[i].vc = *vc;
		t[i].vc.checks = cJSON_CreateArray();
		t[i].e = (struct err)ERR_INIT;
	}
	if ((p = pool_new(threads)) != NULL)
		pool_run(p, n, vtask_job, &(struct vrun){ t, order });
	pool_free(p);
	for (size_t i = 0; i < n; i++) {
		if (p == NULL || (!failed && t[i].r < 0)) {
			*vc->e = p == NULL ? (struct err){ ERR_NOMEM, "out of memory" } : t[i].e;
			failed = 1;
		}
		while (!failed && (c = cJSON_DetachItemFromArray(t[i].vc.checks, 0)) != NULL)
			cJSON_AddItemToArray(vc->checks, c);
		if (!failed && t[i].part == V_PAGE)
			vc->page = t[i].vc.page;
		findings += t[i].r > 0 ? t[i].r : 0;
		cJSON_Delete(t[i].vc.checks);
	}
	return failed ? -1 : findings;
}

/* bundle.json of a bag against the bag: every item's paths and identity,
 * every document read and derived again, every payload file listed.  The
 * findings, or -1. */
static int
verify_bundle_doc(struct vctx *vc, const cJSON *doc)
{
	const cJSON *items = json_get(doc, "items");
	struct vtask *t;
	size_t n = 0, *order;
	int findings, r = 0;

	if (!cJSON_IsArray(items))
		return !bag_check_add(vc->checks, "bundle", vc->bdoc, 0, "no \"items\" array");
	if ((findings = bundle_vitems_read(vc, items)) < 0)
		return -1;
	if ((t = calloc(2 * vc->n + 2, sizeof *t)) == NULL ||
	    (order = calloc(2 * vc->n + 2, sizeof *order)) == NULL) {
		free(t);
		return err_set(vc->e, ERR_NOMEM, "out of memory");
	}
	/* the long tasks first: the quick proofs and the credential scan,
	 * which need the bytes only, beside the reading of the trees */
	for (size_t i = 0; i < vc->n; i++)
		if (vc->v[i].good && vc->v[i].store[0] != '\0')
			t[n++] = (struct vtask){ .it = &vc->v[i], .part = V_FAST };
	t[n++] = (struct vtask){ .part = V_SECRET };
	for (size_t i = 0; i < vc->n; i++)
		if (vc->v[i].good)
			t[n++] = (struct vtask){ .it = &vc->v[i], .part = V_READ };
	/* begun first: the trees of the freezes with a store, the largest
	 * documents (an entry a game), whose reading would otherwise come
	 * last and alone; then the rest as they stand */
	for (size_t k = 0, m = 0; m < 2; m++)
		for (size_t i = 0; i < n; i++)
			if ((t[i].part == V_READ && t[i].it->store[0] != '\0') == (m == 0))
				order[k++] = i;
	if ((r = vtasks_run(vc, t, n, order)) >= 0 && bundle_vitem_fast_ids(vc) < 0)
		r = -1;
	if (r >= 0) {
		findings += r;
		n = 0;
		for (size_t i = 0; i < vc->n; i++)
			if (vc->v[i].good && vc->v[i].doc != NULL) {
				t[n++] = (struct vtask){ .it = &vc->v[i], .part = V_DOC };
				t[n++] = (struct vtask){ .it = &vc->v[i], .part = V_LEDGERS };
			}
		/* the page (every stored record read again, on one thread) is
		 * the longest: begun first, not left to the end alone */
		t[n++] = (struct vtask){ .part = V_PAGE, .doc = doc };
		order[0] = n - 1;
		for (size_t i = 0; i + 1 < n; i++)
			order[i + 1] = i;
		r = vtasks_run(vc, t, n, order);
	}
	free(t);
	free(order);
	if (r < 0)
		return -1;
	findings += r;
	if ((r = bundle_vunlisted(vc)) < 0)
		return -1;
	return findings + r + bundle_vinputs(vc) + bundle_vclaims(vc, doc);
}

/* A bag with no bundle document may not hold cohort documents: nothing
 * would say how they derive, and none would be checked.  The first payload
 * ".json" file that is one is a finding. */
static int
plain_bag(struct bag *b, cJSON *checks, struct err *e)
{
	size_t n = bag_payload_count(b);

	for (size_t i = 0; i < n; i++) {
		const char *name = bag_payload_name(b, i);
		size_t k = strlen(name);
		struct buf raw = BUF_INIT;
		struct err pe = ERR_INIT;
		const cJSON *kind;
		cJSON *doc = NULL;
		char *full;
		int invalid;
		if (k < 5 || strcmp(name + k - 5, ".json") != 0)
			continue;
		if (asprintf(&full, "%s/%s", bag_root(b), name) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		if (io_read_all(full, &raw, IO_MAX_DOCUMENT, &pe) == 0)
			doc = bundle_doc_bytes(raw.p ? raw.p : "", raw.len, name, NULL, &invalid, &pe);
		free(full);
		buf_release(&raw);
		if (pe.code == ERR_NOMEM)
			return err_set(e, ERR_NOMEM, "%s", pe.msg);
		kind = json_get(doc, "kind");
		if (cJSON_IsString(kind) && strncmp(kind->valuestring, "cohort.", 7) == 0) {
			bag_check_add(checks, "bundle-document", name, 0, "a %.60s document, and "
			    "bag-info.txt names no Bundle-Document: nothing in the bag says how it "
			    "derives, and it is not checked", kind->valuestring);
			cJSON_Delete(doc);
			return 1;
		}
		cJSON_Delete(doc);
	}
	return 0;
}

/* The bundle document at payload path name read: a cohort.bundle/1, into
 * *doc (0), or NULL and 1 after a finding; -1 with e set. */
static int
bundle_document_read(struct bag *b, cJSON *checks, const char *name, cJSON **doc,
    struct err *e)
{
	struct buf raw = BUF_INIT;
	struct err pe = ERR_INIT;
	char *full;
	int rc = 0;

	if (asprintf(&full, "%s/%s", bag_root(b), name) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (io_read_all(full, &raw, IO_MAX_DOCUMENT, &pe) < 0 ||
	    (*doc = json_parse(raw.p ? raw.p : "", raw.len, name, 1, &pe)) == NULL) {
		rc = pe.code == ERR_NOMEM ? err_set(e, ERR_NOMEM, "%s", pe.msg) :
		    !bag_check_add(checks, "bundle-document", name, 0, "%s", pe.msg);
	} else if (!cJSON_IsString(json_get(*doc, "kind")) ||
	           strcmp(json_get(*doc, "kind")->valuestring, "cohort.bundle/1") != 0) {
		rc = !bag_check_add(checks, "bundle-document", name, 0, "not a cohort.bundle/1 document");
		cJSON_Delete(*doc);
		*doc = NULL;
	}
	free(full);
	buf_release(&raw);
	return rc;
}

/* Which cohort made the bag: bag-info.txt's Bag-Software-Agent, "cohort
 * VERSION (COMMIT)" (the source commit, or "unknown" for a build from
 * outside a git clone), reported; absent or of another form, a finding.
 * The findings (0 or 1), or -1. */
static int
software_agent(struct bag *b, cJSON *checks, struct err *e)
{
	struct buf v = BUF_INIT;
	int r = bag_info_get(b, "Bag-Software-Agent", &v, e), ok;
	size_t n = r == 0 ? strlen(v.p) : 0;
	const char *sp = r == 0 ? strchr(v.p + (n > 7 ? 7 : n), ' ') : NULL;

	if (r < 0)
		return -1;
	ok = r == 0 && strncmp(v.p, "cohort ", 7) == 0 && n > 7 && sp != NULL && sp > v.p + 7 &&
	    sp[1] == '(' && sp[2] != ')' && v.p[n - 1] == ')' && strchr(sp + 1, ' ') == NULL;
	if (ok)
		bag_check_add(checks, "software-agent", "bag-info.txt", 1, "made by %.200s", v.p);
	else if (r == 0)
		bag_check_add(checks, "software-agent", "bag-info.txt", 0, "Bag-Software-Agent is "
		    "\"%.200s\": expected cohort VERSION (COMMIT), which cohort made the bag", v.p);
	else
		bag_check_add(checks, "software-agent", "bag-info.txt", 0, "no Bag-Software-Agent: "
		    "the bag does not say which cohort (version and commit) made it");
	buf_release(&v);
	return !ok;
}

/* The bundle document bag-info.txt names ("Bundle-Document: PATH ID"), or
 * data/bundle.json where it names none: confined, present, of that
 * identity (a mismatch is a finding, and the document is read all the
 * same), and a cohort.bundle/1.  *doc is it, or NULL for a plain bag or
 * after a finding that stops there; the findings (0 or 1), or -1. */
static int
bundle_document(struct bag *b, cJSON *checks, char name[BAG_MAX_NAME + 8], cJSON **doc,
    struct err *e)
{
	struct buf v = BUF_INIT;
	const char *why, *said;
	char have[HASH_ID_LEN + 1];
	uint8_t d[HASH_LEN];
	int r = bag_info_get(b, "Bundle-Document", &v, e), rc = 1;

	*doc = NULL;
	if (r < 0)
		return -1;
	snprintf(name, BAG_MAX_NAME + 8, "%.*s", BAG_MAX_NAME, r == 0 ? v.p : "data/bundle.json");
	if (strchr(name, ' ') != NULL)
		*strchr(name, ' ') = '\0';
	said = r == 0 && strchr(v.p, ' ') ? strchr(v.p, ' ') + 1 : NULL;
	if (r == 1 && bag_payload_sha256(b, name, d) < 0) {
		rc = plain_bag(b, checks, e); /* no bundle document named, none there */
	} else if (strncmp(name, "data/", 5) != 0 || bag_confined(b, name, &why) < 0) {
		bag_check_add(checks, "bundle-document", "bag-info.txt", 0,
		    "Bundle-Document \"%.200s\" is not a payload path inside the bag", name);
	} else if (bag_payload_sha256(b, name, d) < 0) {
		bag_check_add(checks, "bundle-document", name, 0,
		    "bag-info.txt names it as the Bundle-Document; the bag has no such file");
	} else {
		hash_id_format(d, have);
		rc = said != NULL && strcmp(said, have) != 0 &&
		    !bag_check_add(checks, "bundle-document", name, 0,
		        "bag-info.txt says %.80s, the bytes are %s", said, have);
		r = bundle_document_read(b, checks, name, doc, e);
		if (r == 0 && rc == 0)
			bag_check_add(checks, "bundle-document", name, 1, "a cohort.bundle/1 of %d items",
			    cJSON_GetArraySize(json_get(*doc, "items")));
		rc = r < 0 ? -1 : rc || r;
	}
	buf_release(&v);
	return rc;
}

int
bundle_verify_path(const char *path, cJSON *checks, struct err *e)
{
	return bundle_verify_jobs(path, 0, checks, e);
}

int
bundle_verify_jobs(const char *path, int jobs, cJSON *checks, struct err *e)
{
	struct bag *b = NULL;
	char name[BAG_MAX_NAME + 8];
	cJSON *doc = NULL;
	int r, findings;
	/* read first, on one thread, before any other (secret_regcomp) */
	struct secret_rules *rules = secret_rules_new(NULL, e);

	if (rules == NULL)
		return -1;
	if (bag_open(path, &b, e) < 0) {
		secret_rules_free(rules);
		return -1;
	}
	if ((findings = bag_check(b, checks, e)) >= 0 &&
	    (r = bundle_document(b, checks, name, &doc, e)) >= 0) {
		findings += r;
		if (doc != NULL && (r = software_agent(b, checks, e)) >= 0)
			findings += r;
		else if (doc != NULL)
			findings = -1;
		if (doc != NULL && findings >= 0) {
			struct vctx vc = { .b = b, .bdoc = name, .checks = checks, .jobs = jobs,
				.rules = rules, .e = e };
			r = verify_bundle_doc(&vc, doc);
			findings = r < 0 ? -1 : findings + r;
			for (size_t i = 0; i < vc.n; i++)
			{
				cJSON_Delete(vc.v[i].doc);
				cJSON_Delete(vc.v[i].fast_checks);
				freeze_games_free(vc.v[i].games);
			}
			free(vc.v);
		}
	} else {
		findings = -1;
	}
	cJSON_Delete(doc);
	bag_free(b);
	secret_rules_free(rules);
	return findings < 0 ? -1 : findings > 0 ? 1 : 0;
}
