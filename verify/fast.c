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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"
#include "../common/mem.h"
#include "../common/pool.h"
#include "../store/cas.h"
#include "../freeze/freeze.h"
#include "../common/hash.h"
#include "../json/json.h"
#include "verify.h"

/* The packs are read in pieces of whole lines, each on whichever thread
 * takes it next.  Each pack's index says how many records each piece
 * holds, so every record's summary and place is written where it belongs
 * in pack order, and nothing is moved afterwards (a piece that holds
 * another number of records proves the index wrong: no quick proof). */
#define PIECE_BYTES ((size_t)4 << 20)
/* How far ahead of the record being read the next ones are asked into
 * the cache: reading, checking and hashing a record takes long enough
 * for the memory to bring in the next two or three. */
#define PREFETCH 2048
#define MAX_THREADS 16

struct piece {
	const char *p;      /* whole lines, the last ending with '\n' */
	size_t n;
	uint64_t base;      /* where p lies in its pack */
	size_t pack;
	size_t start;       /* its first record's number, in all packs' order */
	uint64_t count;     /* records, as the index says */
	size_t nrec;        /* records read (and items written) */
	int failed;         /* a record not shown canonical and valid, or the count wrong */
	int nomem;
};

/* The jobs of the first step: job 0 the manifest's digest (its file's
 * bytes: a long job, independent of the records, posted first), then
 * job k piece k - 1, posted once the pieces are cut. */
struct jobs {
	const struct freeze_acc *acc;
	struct piece *pc;
	size_t npc;
	struct freeze_item *items; /* room for every record, in pack order */
	uint32_t *lens;            /* and each one's length */
	const char *mp;     /* the manifest */
	size_t mn;
	uint8_t md[HASH_LEN];
	int mok;
	/* each worker's scratch, and its game ids (freed last), made by the
	 * worker's thread when it takes its first piece */
	struct freeze_scratch *x[MAX_THREADS + 1];
	struct freeze_ids *ids[MAX_THREADS + 1];
};

/* Every record of a piece: already canonical, valid, summarized (so the
 * digest of its bytes is its identity). */
static void
piece_read(struct jobs *j, struct freeze_scratch *x, struct piece *pc)
{
	const char *p = pc->p, *end = pc->p + pc->n, *pf = p;
	struct freeze_item *it = &j->items[pc->start];
	uint32_t *lens = &j->lens[pc->start];
	size_t nrec = 0, count = pc->count;
	/* once, not per record: its message is a kilobyte, and only a
	 * record that fails writes it (the thorough way then says why) */
	struct err e = ERR_INIT;
	int rc = 0;

	/* this piece's bytes and its part of the arrays, made ready at once by
	 * its thread */
	mem_ready_read(pc->p, pc->n);
	mem_ready(it, count * sizeof *it);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL || nl - p > UINT32_MAX || nrec == count) {
			rc = 1;
			break;
		}
		for (; pf < nl + PREFETCH && pf < end; pf += 64)
			__builtin_prefetch(pf);
		rc = freeze_acc_prepare_stored(j->acc, x, p, (size_t)(nl - p), &it[nrec], NULL, &e);
		if (rc != 0)
			break;
		lens[nrec++] = (uint32_t)(nl - p);
		p = nl + 1;
	}
	pc->nrec = nrec;
	pc->failed = rc > 0 || (rc == 0 && nrec != count);
	pc->nomem = rc < 0;
}

/* The manifest's digest, a piece at a time, its pages asked for first. */
static void
manifest_digest(struct jobs *j)
{
	struct hash *h = hash_new();
	int ok = h != NULL && hash_init(h) == 0;

	for (size_t at = 0; ok && at < j->mn; at += PIECE_BYTES) {
		size_t m = j->mn - at < PIECE_BYTES ? j->mn - at : PIECE_BYTES;
		mem_ready_read(j->mp + at, m);
		ok = hash_update(h, j->mp + at, m) == 0;
	}
	j->mok = ok && hash_final(h, j->md) == 0;
	hash_free(h);
}

static void
proof_job(void *arg, size_t k, int w)
{
	struct jobs *j = arg;

	if (k == 0) {
		manifest_digest(j);
		return;
	}
	if (j->x[w] == NULL) {
		/* this thread's ids in a store of its own, kept until the items go */
		if (j->ids[w] == NULL)
			j->ids[w] = freeze_ids_new();
		if ((j->x[w] = freeze_scratch_new()) != NULL)
			freeze_scratch_lend(j->x[w], j->ids[w]);
	}
	if (j->x[w] == NULL)
		j->pc[k - 1].nomem = 1;
	else
		piece_read(j, j->x[w], &j->pc[k - 1]);
}

/* Cut the packs into pieces of whole lines, and count each piece's
 * records by the index.  -1 when a pack does not end with a newline (not
 * a pack this proof knows), -2 out of memory. */
static int
cut_pieces(const struct cas *store, struct piece **out, size_t *nout)
{
	struct piece *pc = NULL;
	uint64_t *bounds = NULL, *counts = NULL;
	size_t n = 0, cap = 0;
	int rc = -2;

	for (size_t i = 0; i < cas_npacks(store); i++) {
		const char *pk, *nl;
		size_t pn, at = 0, first = n;
		cas_pack_bytes(store, i, &pk, &pn);
		if (pn > 0 && pk[pn - 1] != '\n') {
			rc = -1;
			goto fail;
		}
		while (at < pn) {
			size_t len = pn - at;
			if (len > PIECE_BYTES && (nl = memrchr(pk + at, '\n', PIECE_BYTES)) != NULL)
				len = (size_t)(nl - (pk + at)) + 1;
			if (n == cap) {
				struct piece *q = realloc(pc, (cap = cap ? 2 * cap : 256) * sizeof *q);
				if (q == NULL)
					goto fail;
				pc = q;
			}
			pc[n++] = (struct piece){ pk + at, len, at, i, 0, 0, 0, 0, 0 };
			at += len;
		}
		free(bounds);
		free(counts);
		bounds = malloc((n - first + 1) * sizeof *bounds);
		counts = malloc((n - first + 1) * sizeof *counts);
		if (bounds == NULL || counts == NULL)
			goto fail;
		for (size_t k = first; k < n; k++)
			bounds[k - first] = pc[k].base;
		cas_pack_count_ranges(store, i, bounds, n - first, counts);
		for (size_t k = first; k < n; k++)
			pc[k].count = counts[k - first];
	}
	free(bounds);
	free(counts);
	*out = pc;
	*nout = n;
	return 0;
fail:
	free(bounds);
	free(counts);
	free(pc);
	return rc;
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

/* What a second thread checks while the manifest is derived: each pack's
 * index against the records read. */
struct side {
	const struct cas *store;
	const struct freeze_item *items;
	const uint32_t *lens;
	const size_t *first; /* pack i's records are items[first[i]..first[i+1]) */
	int ok;
};

static void
side_thread(void *arg)
{
	struct side *j = arg;

	j->ok = 1;
	for (size_t i = 0; j->ok && i < cas_npacks(j->store); i++)
		j->ok = cas_pack_index_matches(j->store, i, j->items[j->first[i]].d,
		    sizeof *j->items, j->lens + j->first[i], j->first[i + 1] - j->first[i]);
}

static void
store_free(void *store)
{
	cas_free(store);
}

/* One quick proof: the manifest's parts, the store, and what was read. */
struct proof {
	const char *p;       /* the manifest's bytes */
	size_t n;
	cJSON *spec, *repo;
	struct freeze_acc *acc;
	struct cas *store;
	struct jobs pj;
	struct piece *pc;
	size_t npc, nrecs;
	uint32_t *lens;
	struct freeze_item *items;
	size_t *first;       /* pack i's records are items[first[i]..first[i+1]) */
};

/* The manifest's "repo" and "spec".  "kind" comes after the games, and
 * only the spec and the totals after it: look from the end.  (A spec
 * holding that very member somewhere inside would mislead the split; the
 * comparison at the end would then fail, and the thorough way decide.)
 * 0, or 1 when not found. */
static int
proof_head(struct proof *pr)
{
	static const char kind[] = ",\"kind\":\"cohort.freeze/1\"";
	const char *q, *v, *end = pr->p + pr->n;
	size_t vn;

	if (pr->n < 16 || memcmp(pr->p, "{\"as_of\":\"", 10) != 0)
		return 1;
	for (q = end; q != NULL;) {
		q = memrchr(pr->p, ',', (size_t)(q - pr->p));
		if (q != NULL && (size_t)(end - q) >= sizeof kind - 1 &&
		    memcmp(q, kind, sizeof kind - 1) == 0)
			break;
	}
	if (q == NULL)
		return 1;
	q += sizeof kind - 1;
	if (member(&q, end, "repo", &v, &vn) == 0 &&
	    (pr->repo = json_parse(v, vn, "repo", 1, &(struct err)ERR_INIT)) == NULL)
		return 1;
	if (member(&q, end, "spec", &v, &vn) < 0 ||
	    (pr->spec = json_parse(v, vn, "spec", 1, &(struct err)ERR_INIT)) == NULL)
		return 1;
	return 0;
}

/* The first step: the manifest's digest, on a thread of the pool, while
 * the pieces are cut and counted; then every record, on jobs threads
 * (this one among them).  0, 1 when it proves nothing, -1 out of memory. */
static int
proof_read(struct proof *pr, int jobs, struct err *e)
{
	int threads = (jobs > 0 ? jobs : pool_cpus()) - 1, rc;
	struct pool *pool = pool_new(threads < MAX_THREADS ? threads : MAX_THREADS);

	if (pool == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	pr->pj = (struct jobs){ pr->acc, NULL, 0, NULL, NULL, pr->p, pr->n, { 0 }, 0, { NULL },
		{ NULL } };
	pool_start(pool, proof_job, &pr->pj);
	pool_post(pool, 1);
	rc = cut_pieces(pr->store, &pr->pc, &pr->npc);
	for (size_t i = 0; rc == 0 && i < pr->npc; i++) {
		pr->pc[i].start = pr->nrecs;
		pr->nrecs += pr->pc[i].count;
	}
	if (rc == 0 && pr->nrecs == cas_count(pr->store)) {
		pr->first = malloc((cas_npacks(pr->store) + 1) * sizeof *pr->first);
		pr->lens = malloc((pr->nrecs + 1) * sizeof *pr->lens);
		pr->items = freeze_acc_room(pr->acc, pr->nrecs, e);
		if (pr->first == NULL || pr->lens == NULL || pr->items == NULL)
			rc = -2;
	} else if (rc == 0) {
		rc = -1; /* entries outside the pack's lines */
	}
	pr->pj.pc = pr->pc;
	pr->pj.npc = pr->npc;
	pr->pj.items = pr->items;
	pr->pj.lens = pr->lens;
	if (rc == 0) {
		pool_post(pool, pr->npc + 1);
		pool_wait(pool, pr->npc + 1);
	}
	pool_free(pool);
	for (int w = 0; w <= MAX_THREADS; w++)
		freeze_scratch_free(pr->pj.x[w]);
	if (rc < 0)
		return rc == -2 ? err_set(e, ERR_NOMEM, "out of memory") : 1;
	rc = 0;
	for (size_t i = 0; i < pr->npc && rc == 0; i++)
		rc = pr->pc[i].nomem ? err_set(e, ERR_NOMEM, "out of memory") : pr->pc[i].failed;
	if (rc != 0) {
		/* what was written is the caller's to clear, in every piece */
		for (size_t k = 0; k < pr->npc; k++)
			for (size_t r = 0; r < pr->pc[k].nrec; r++)
				freeze_item_clear(&pr->items[pr->pc[k].start + r]);
		return rc;
	}
	freeze_acc_placed(pr->acc, pr->nrecs);
	if (!pr->pj.mok)
		return 1;
	for (size_t i = 0, k = 0; i <= pr->npc; i++)
		while (k <= (i < pr->npc ? pr->pc[i].pack : cas_npacks(pr->store)))
			pr->first[k++] = i < pr->npc ? pr->pc[i].start : pr->nrecs;
	return 0;
}

/* The manifest derived and compared with the file as it comes, while a
 * second thread checks the indexes.  0 when both hold, else 1. */
static int
proof_derive(struct proof *pr)
{
	struct freeze_sink sink = { NULL, NULL, pr->p, pr->n };
	struct side side = { pr->store, pr->items, pr->lens, pr->first, 0 };
	struct pool_thread th = POOL_THREAD_INIT;
	int rc;

	pool_spawn(&th, side_thread, &side);
	rc = freeze_acc_stream(pr->acc, pr->repo, &sink, NULL, &(struct err)ERR_INIT);
	pool_join(&th);
	return rc == 0 && side.ok ? 0 : 1;
}

/* The store's mappings and the games' memory given back at once, on two
 * threads: each is tens of milliseconds of the kernel's work. */
static void
proof_release(struct proof *pr)
{
	struct pool_thread th = POOL_THREAD_INIT;

	if (pr->store != NULL)
		pool_spawn(&th, store_free, pr->store);
	free(pr->pc);
	free(pr->first);
	free(pr->lens);
	freeze_acc_free(pr->acc);
	for (int w = 0; w <= MAX_THREADS; w++) /* after the items that borrow from them */
		freeze_ids_free(pr->pj.ids[w]);
	pool_join(&th);
	cJSON_Delete(pr->spec);
	cJSON_Delete(pr->repo);
}

int
verify_freeze_fast(const char *p, size_t n, const char *store_dir, int jobs, cJSON *checks,
    char id[HASH_ID_LEN + 1], struct err *e)
{
	static const char *const sections[] = { "spec_id", "as_of", "games", "excluded", "blocks",
		"conditions", "totals" };
	struct proof pr = { 0 };
	char detail[256];
	int rc;

	pr.p = p;
	pr.n = n;
	rc = proof_head(&pr);
	if (rc == 0 && (pr.acc = freeze_acc_new(pr.spec, &(struct err)ERR_INIT)) == NULL)
		rc = 1;
	if (rc == 0 && (cas_open(store_dir, 0, &pr.store, &(struct err)ERR_INIT) < 0 ||
	    cas_damage(pr.store, &(const char *const *){ NULL }) > 0))
		rc = 1;
	if (rc == 0)
		rc = proof_read(&pr, jobs, e);
	if (rc == 0)
		rc = proof_derive(&pr);
	if (rc == 0) {
		hash_id_format(pr.pj.md, id);
		snprintf(detail, sizeof detail, "%llu records named, %llu in the store",
		    (unsigned long long)pr.nrecs, (unsigned long long)cas_count(pr.store));
		verify_check_add(checks, "records", "store", 1, detail);
		for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
			verify_check_add(checks, "derivation", sections[i], 1, NULL);
	}
	proof_release(&pr);
	return rc;
}
