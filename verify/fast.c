/* fast.c: the quick proof that a freeze holds.
 *
 * verify_freeze re-hashes every record the manifest names, looks each one
 * up in the store, re-derives the manifest and compares it section by
 * section: thorough, and the only way to name what is wrong, but a million
 * random lookups and two parsed 200 MB trees.  When the freeze holds there
 * is a shorter proof: read every stored record once, in pack order, on all
 * processors (each must be canonical; its digest is then its identity),
 * derive the manifest from them with the freeze's own code, and find it
 * equal, byte for byte, to the file; and find each pack's index listing
 * exactly its records.  Equal bytes mean every section the slow way
 * compares is equal, every named record is stored, canonical and hashes
 * to its identity.  Anything else (a store holding other freezes' records
 * too, a damaged pack, any difference) proves nothing here, and the caller
 * goes the slow way, which then names each problem.
 */
#define _GNU_SOURCE /* memrchr */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"
#include "../freeze/cas.h"
#include "../freeze/freeze.h"
#include "../freeze/hash.h"
#include "../freeze/json.h"
#include "../freeze/ledger.h"
#include "verify.h"

struct fast {
	struct freeze_acc *acc;
	struct cas_rec *recs;
	size_t nrecs, cap;
	uint64_t off; /* where the next record of the pack starts */
};

struct fslot {
	struct freeze_item item;
	uint8_t d[HASH_LEN];
	uint32_t len;
};

static void *
fs_new(void *ctx)
{
	(void)ctx;
	return freeze_scratch_new();
}

static void
fs_free(void *p)
{
	freeze_scratch_free(p);
}

/* One stored record: already canonical, valid, summarized (so the digest
 * of its bytes is its identity). */
static int
f_work(void *ctx, void *scratch, const char *text, size_t n, const cJSON *rec,
    const struct ledger_loc *loc, void *slot, struct buf *keep, struct err *e)
{
	struct fast *f = ctx;
	struct fslot *sl = slot;
	int rc;

	(void)loc;
	(void)keep;
	if (rec != NULL || n > UINT32_MAX)
		return err_set(e, ERR_INPUT, "not a pack");
	if ((rc = freeze_acc_prepare_stored(f->acc, scratch, text, n, &sl->item, sl->d, e)) != 0)
		return rc < 0 ? -1 : err_set(e, ERR_INPUT, "not shown canonical and valid");
	sl->len = (uint32_t)n;
	return 0;
}

static int
f_done(void *ctx, void *slot, const struct buf *keep, struct err *e)
{
	struct fast *f = ctx;
	struct fslot *sl = slot;

	(void)keep;
	if (f->nrecs == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 65536;
		struct cas_rec *r = realloc(f->recs, cap * sizeof *r);
		if (r == NULL) {
			freeze_item_clear(&sl->item);
			return err_set(e, ERR_NOMEM, "out of memory");
		}
		f->recs = r;
		f->cap = cap;
	}
	memcpy(f->recs[f->nrecs].d, sl->d, HASH_LEN);
	f->recs[f->nrecs].off = f->off;
	f->recs[f->nrecs].len = sl->len;
	f->nrecs++;
	f->off += sl->len + 1;
	return freeze_acc_take(f->acc, &sl->item, e);
}

static void
f_release(void *slot)
{
	struct fslot *sl = slot;

	freeze_item_clear(&sl->item);
}

/* The end of the JSON value at p, or NULL.  Need not check the grammar:
 * the comparison of the whole file at the end decides. */
static const char *
skip_value(const char *p, const char *end)
{
	int depth = 0;

	if (p >= end)
		return NULL;
	if (*p != '"' && *p != '{' && *p != '[') {
		while (p < end && *p != ',' && *p != '}' && *p != ']')
			p++;
		return p;
	}
	do {
		char c = *p++;
		if (c == '"') {
			while (p < end && *p != '"')
				p += *p == '\\' ? 2 : 1;
			if (p >= end)
				return NULL;
			p++;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			depth--;
		}
	} while (depth > 0 && p < end);
	return depth == 0 ? p : NULL;
}

/* A member "key": value of the manifest at *p: its value's bytes. */
static int
member(const char **p, const char *end, const char *key, const char **v, size_t *n)
{
	size_t k = strlen(key);
	const char *q = *p, *ve;

	if ((size_t)(end - q) < k + 4 || q[0] != ',' || q[1] != '"' || memcmp(q + 2, key, k) != 0 ||
	    q[2 + k] != '"' || q[3 + k] != ':')
		return -1;
	q += k + 4;
	if ((ve = skip_value(q, end)) == NULL)
		return -1;
	*v = q;
	*n = (size_t)(ve - q);
	*p = ve;
	return 0;
}

/* The derived manifest, compared with the file as it comes. */
struct cmp {
	const char *p;
	size_t n, at;
};

static int
cmp_put(void *ctx, const char *p, size_t n)
{
	struct cmp *c = ctx;

	if (n > c->n - c->at || memcmp(c->p + c->at, p, n) != 0)
		return -1;
	c->at += n;
	return 0;
}

/* What a second thread checks while the manifest is derived: each pack's
 * index against the records read, and the file's digest (its identity,
 * once its bytes prove canonical). */
struct side {
	const struct cas *store;
	const struct cas_rec *recs;
	const size_t *first; /* pack i's records are recs[first[i]..first[i+1]) */
	const char *p;
	size_t n;
	uint8_t d[HASH_LEN];
	int ok;
};

static void *
side_thread(void *arg)
{
	struct side *j = arg;
	struct hash *h = hash_new();

	j->ok = h != NULL && hash_digest(h, j->p, j->n, j->d) == 0;
	hash_free(h);
	for (size_t i = 0; j->ok && i < cas_npacks(j->store); i++)
		j->ok = cas_pack_index_matches(j->store, i, j->recs + j->first[i],
		    j->first[i + 1] - j->first[i]);
	return NULL;
}

int
verify_freeze_fast(const char *p, size_t n, const char *store_dir, cJSON *checks,
    char id[HASH_ID_LEN + 1], struct err *e)
{
	static const char kind[] = ",\"kind\":\"cohort.freeze/1\"";
	static const char *const sections[] = { "spec_id", "as_of", "games", "excluded", "blocks",
		"conditions", "totals" };
	struct fast f = { 0 };
	struct cas *store = NULL;
	struct cmp cmp = { p, n, 0 };
	struct freeze_sink sink = { cmp_put, &cmp };
	struct side side = { 0 };
	size_t *first = NULL;
	pthread_t th;
	int threaded = 0, rc = 1;
	cJSON *spec = NULL, *repo = NULL;
	const char *q, *v, *end = p + n;
	size_t vn;
	char detail[256];

	if (n < 16 || memcmp(p, "{\"as_of\":\"", 10) != 0)
		return 1;
	/* "kind" comes after the games, and only the spec and the totals after
	 * it: look from the end.  (A spec holding that very member somewhere
	 * inside would mislead the split; the comparison at the end would
	 * then fail, and the thorough way decide.) */
	for (q = end; q != NULL;) {
		q = memrchr(p, ',', (size_t)(q - p));
		if (q != NULL && (size_t)(end - q) >= sizeof kind - 1 &&
		    memcmp(q, kind, sizeof kind - 1) == 0)
			break;
	}
	if (q == NULL)
		return 1;
	q += sizeof kind - 1;
	if (member(&q, end, "repo", &v, &vn) == 0 &&
	    (repo = json_parse(v, vn, "repo", 1, &(struct err)ERR_INIT)) == NULL)
		goto done;
	if (member(&q, end, "spec", &v, &vn) < 0 ||
	    (spec = json_parse(v, vn, "spec", 1, &(struct err)ERR_INIT)) == NULL)
		goto done;
	if ((f.acc = freeze_acc_new(spec, &(struct err)ERR_INIT)) == NULL)
		goto done;
	if (cas_open(store_dir, 0, &store, &(struct err)ERR_INIT) < 0 ||
	    cas_damage(store, &(const char *const *){ NULL }) > 0)
		goto done;
	if ((first = malloc((cas_npacks(store) + 1) * sizeof *first)) == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < cas_npacks(store); i++) {
		struct ledger_par par = { f_work, f_done, f_release, fs_new, fs_free,
			sizeof(struct fslot), &f, 0 };
		struct err pe = ERR_INIT;
		const char *pk;
		size_t pn;
		first[i] = f.nrecs;
		cas_pack_bytes(store, i, &pk, &pn);
		f.off = 0;
		if (ledger_read_bytes("pack", pk, pn, &par, &pe) < 0) {
			if (pe.code == ERR_NOMEM) {
				rc = err_set(e, ERR_NOMEM, "out of memory");
				goto done;
			}
			goto done;
		}
		if (f.off != pn)
			goto done;
	}
	first[cas_npacks(store)] = f.nrecs;
	side = (struct side){ store, f.recs, first, p, n, { 0 }, 0 };
	threaded = pthread_create(&th, NULL, side_thread, &side) == 0;
	if (freeze_acc_stream(f.acc, repo, &sink, NULL, &(struct err)ERR_INIT) < 0 || cmp.at != n)
		goto done;
	if (threaded) {
		pthread_join(th, NULL);
		threaded = 0;
	} else {
		side_thread(&side);
	}
	if (!side.ok)
		goto done;
	hash_id_format(side.d, id);
	snprintf(detail, sizeof detail, "%llu records named, %llu in the store",
	    (unsigned long long)f.nrecs, (unsigned long long)cas_count(store));
	verify_check_add(checks, "records", "store", 1, detail);
	for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
		verify_check_add(checks, "derivation", sections[i], 1, NULL);
	rc = 0;
done:
	if (threaded)
		pthread_join(th, NULL);
	free(first);
	free(f.recs);
	freeze_acc_free(f.acc);
	cas_free(store);
	cJSON_Delete(spec);
	cJSON_Delete(repo);
	return rc;
}
