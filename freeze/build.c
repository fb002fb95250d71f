/* build.c: a freeze from ledgers: records read on threads, summarized,
 * stored, then the manifest written while the store is committed. */
#define _GNU_SOURCE /* memmem */
#include "internal.h"


#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"
#include "../common/io.h"
#include "../common/mem.h"
#include "../common/pool.h"
#include "../common/ring.h"
#include "../common/ts.h"
#include "../protocol/ladder.h"
#include "../protocol/spec.h"
#include "../store/cas.h"
#include "../json/json.h"
#include "../protocol/candidates.h"
#include "../protocol/ledger.h"
#include "../protocol/openings.h"
#include "../json/rec.h"


/* Decision logs into the store and the accumulator's "decisions", read
 * as the games are (protocol/ledger.h's parallel reader): each record
 * parsed, checked and made canonical on a worker thread, stored and
 * taken in input order on this one. */
struct dec_ctx {
	struct freeze_dec *x;
	struct cas *store;
};

struct dec_slot {
	struct freeze_dprep it;
	size_t off; /* its canonical bytes in the chunk's keep, then its cell's key */
};

static void *
dec_scratch_new(void *ctx)
{
	(void)ctx;
	return freeze_dec_scratch_new();
}

static void
dec_scratch_free(void *p)
{
	freeze_dec_scratch_free(p);
}

static int
dec_work(void *ctx, void *scratch, const char *text, size_t n, const cJSON *rec,
    const struct ledger_loc *loc, void *p, struct buf *keep, struct err *e)
{
	struct dec_ctx *c = ctx;
	struct dec_slot *s = p;
	cJSON *own = NULL;
	char where[512];
	int rc;

	s->off = keep->len;
	if (rec == NULL) {
		/* the flat way, else the tree, whose reader words the errors */
		rc = freeze_dec_prepare_flat(c->x, scratch, text, n, loc, keep, &s->it, e);
		if (rc <= 0)
			return rc;
		if ((rec = own = json_parse(text, n, loc->name, loc->line, e)) == NULL)
			return -1;
		if (!cJSON_IsObject(rec)) {
			cJSON_Delete(own);
			return err_set(e, ERR_INPUT, "%s:%ld: expected a JSON object", loc->name,
			    loc->line);
		}
	}
	ledger_loc_format(loc, where, sizeof where);
	rc = freeze_dec_prepare(c->x, rec, where, loc, keep, &s->it, e);
	cJSON_Delete(own);
	return rc;
}

static int
dec_done(void *ctx, void *p, const struct buf *keep, struct err *e)
{
	struct dec_ctx *c = ctx;
	struct dec_slot *s = p;

	/* the record's bytes: in the chunk's text when canonical there, else
	 * in keep, before the key */
	const char *rec = freeze_dec_rec(&s->it, keep->p + s->off);
	const char *key = keep->p + s->off + freeze_dec_key_at(&s->it);

	if (c->store && cas_put(c->store, s->it.it.d, rec, s->it.canon_len, e) < 0) {
		freeze_dec_item_clear(&s->it);
		return -1;
	}
	return freeze_dec_append(c->x, &s->it, key, e);
}

static void
dec_release(void *p)
{
	freeze_dec_item_clear(&((struct dec_slot *)p)->it);
}

static int
add_decisions(const struct freeze_opts *o, struct freeze_acc *acc, struct cas *store,
    struct err *e)
{
	struct candidates cand = CANDIDATES_INIT;
	struct dec_ctx c = { NULL, store };
	struct buf b = BUF_INIT;
	uint8_t d[HASH_LEN];
	int rc = -1;

	if (o->candidates == NULL)
		return o->ndecisions ? err_set(e, ERR_USAGE, "--decisions needs --candidates") : 0;
	if (io_read_all(o->candidates, &b, CAND_MAX_BYTES, e) < 0 ||
	    cand_read_bytes(b.p ? b.p : "", b.len, io_name(o->candidates), &cand, e) < 0)
		goto done;
	/* the manifest as another tool wrote it goes into the store under its
	 * file's SHA-256 (the decisions section names it), so that a prereg
	 * that named the file can be held to it again */
	if (cand_file_id(&cand) != NULL) {
		hash_bytes(b.p, b.len, d);
		if (store != NULL && cas_put(store, d, b.p, b.len, e) < 0)
			goto done;
	}
	/* the manifest itself goes into the store, under its identity */
	buf_reset(&b);
	if (cand_canonical(&cand, &b, e) < 0)
		goto done;
	hash_bytes(b.p, b.len, d);
	if (store != NULL && cas_put(store, d, b.p, b.len, e) < 0)
		goto done;
	if ((c.x = freeze_dec_new(freeze_acc_spec(acc), &cand, e)) == NULL)
		goto done;
	if (o->prereg != NULL)
		freeze_dec_set_prereg(c.x, o->prereg);
	struct ledger_par par = { dec_work, dec_done, dec_release, dec_scratch_new,
		dec_scratch_free, sizeof(struct dec_slot), &c, o->jobs, "decisions" };
	for (size_t i = 0; i < o->ndecisions; i++)
		if (ledger_read_par(o->decisions[i], &par, e) < 0)
			goto done;
	if (freeze_dec_section(c.x, e) < 0)
		goto done;
	if (o->prereg != NULL) {
		cJSON *devs = freeze_dec_deviations(c.x, e);
		if (devs == NULL)
			goto done;
		freeze_acc_set_deviations(acc, devs);
	}
	/* freed with acc, on the thread that frees it */
	freeze_acc_set_decisions(acc, c.x);
	c.x = NULL;
	rc = 0;
done:
	freeze_dec_free(c.x);
	buf_release(&b);
	cand_release(&cand);
	return rc;
}

struct build_ctx {
	struct freeze_acc *acc;
	struct cas *store;
	uint64_t records;
	const struct freeze_opts *o;
};

/* One record on its way from a worker thread to the accumulator: its
 * summary, and where its canonical bytes lie in its chunk's keep buffer
 * (written by the worker, freed with the chunk: no per-record allocation
 * crosses threads). */
struct slot {
	struct freeze_item g;
	size_t off, len;
};

static int
slot_work(void *ctx, void *scratch, const char *text, size_t n, const cJSON *rec,
    const struct ledger_loc *loc, void *p, struct buf *keep, struct err *e)
{
	struct build_ctx *b = ctx;
	struct slot *s = p;
	int rc;

	s->off = keep->len;
	if (rec != NULL) {
		struct buf tmp = BUF_INIT;
		char where[512];
		ledger_loc_format(loc, where, sizeof where);
		rc = freeze_prepare(b->acc, rec, where, loc, &s->g, &tmp, e);
		if (rc == 0 && buf_add(keep, tmp.p, tmp.len) < 0) {
			freeze_item_clear(&s->g);
			rc = err_set(e, ERR_NOMEM, "out of memory");
		}
		buf_release(&tmp);
	} else {
		rc = freeze_prepare_text(b->acc, scratch, text, n, loc, &s->g, keep, e);
	}
	s->len = keep->len - s->off;
	return rc;
}

static void *
scratch_new(void *ctx)
{
	(void)ctx;
	return freeze_scratch_new();
}

static void
scratch_free(void *scratch)
{
	freeze_scratch_free(scratch);
}

static void
slot_release(void *p)
{
	struct slot *s = p;

	freeze_item_clear(&s->g);
}

static int
slot_done(void *ctx, void *p, const struct buf *keep, struct err *e)
{
	struct build_ctx *b = ctx;
	struct slot *s = p;

	if (b->store && cas_put(b->store, s->g.d, keep->p + s->off, s->len, e) < 0) {
		slot_release(s);
		return -1;
	}
	if (freeze_append(b->acc, &s->g, e) < 0) {
		slot_release(s);
		return -1;
	}
	if (++b->records % 65536 == 0 && b->o->progress)
		b->o->progress(b->o->progress_ctx, b->records);
	return 0;
}

/* The end of a freeze on a second thread, while the first writes the
 * manifest out: the store committed, then its mappings and the games'
 * memory given back.  For a million games the commit (the index sorted,
 * written and synced) and the manifest's writing take tenths of a second
 * each. */
struct finish {
	struct cas *store;
	struct freeze_acc *acc;
	struct err e;
	int rc;
};

static void
finish_thread(void *arg)
{
	struct finish *f = arg;

	f->rc = f->store != NULL ? cas_commit(f->store, &f->e) : 0;
	cas_free(f->store);
	freeze_acc_free(f->acc);
}

/* The manifest written to an output file as it is made, by a thread of
 * its own (common/ring.h), while this one makes the next bytes: a million
 * real-shaped decisions' 300 MB took as long to copy into the page cache
 * as to make.  The first error of the writing kept in e. */
struct out_sink {
	struct outfile *out;
	struct err e;
};

static int
out_take(void *ctx, const void *p, size_t n)
{
	struct out_sink *s = ctx;

	return outfile_write(s->out, p, n, &s->e);
}

static int
out_put(void *ring, const char *p, size_t n)
{
	return ring_put(ring, p, n);
}

/* The store's pack synced and its index written, under their temporary
 * names, on a thread of their own. */
struct prep {
	struct cas *store;
	struct err e;
	int rc;
};

static void
prep_thread(void *arg)
{
	struct prep *p = arg;

	p->rc = cas_commit_prepare(p->store, &p->e);
}

/* The manifest made and written to o->out as it goes (o->out_only), while
 * the store's new pack and index are made ready beside it; they are moved
 * into place once the manifest is all written.  Written to a buffer
 * first, a million decisions' 200 MB of fresh memory cost more than
 * writing them out. */
static int
write_out(const struct freeze_opts *o, struct freeze_acc *acc, struct cas *store,
    const cJSON *repo, struct err *e)
{
	struct out_sink s = { o->out, ERR_INIT };
	struct ring *ring = ring_new(out_take, &s);
	struct freeze_sink k = { out_put, ring, NULL, 0 };
	struct prep p = { store, ERR_INIT, 0 };
	struct pool_thread th = POOL_THREAD_INIT;
	int rc;

	if (ring == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (store != NULL)
		pool_spawn(&th, prep_thread, &p); /* or run by pool_join */
	rc = freeze_acc_stream(acc, repo, &k, NULL, e);
	/* the writer's error, once it is done (it stops the making) */
	if (ring_end(ring) < 0 && (rc = -1, s.e.code != ERR_OK))
		*e = s.e;
	pool_join(&th);
	if (rc == 0 && p.rc < 0) {
		*e = p.e;
		rc = -1;
	}
	return rc;
}

/* The opening suite the spec names, read from o->openings into s,
 * followed by acc, and stored under its identity: 0, or -1 (a suite the
 * spec does not name, or names and is not given, is an input error). */
static int
add_openings(const struct freeze_opts *o, struct freeze_acc *acc, struct cas *store,
    struct openings *s, struct err *e)
{
	const char *want = freeze_acc_spec(acc)->opening_suite;
	struct buf b = BUF_INIT;
	uint8_t d[HASH_LEN];
	int rc = -1;

	if (want == NULL && o->openings == NULL)
		return 0;
	if (want == NULL)
		return err_set(e, ERR_INPUT, "%s: \"opening_suite\": missing: the spec names no "
		    "opening suite, but --openings gives one", o->spec_name ? o->spec_name : "spec");
	if (o->openings == NULL)
		return err_set(e, ERR_INPUT, "%s: \"opening_suite\": the spec names the opening "
		    "suite %s: give it with --openings", o->spec_name ? o->spec_name : "spec", want);
	if (openings_read(o->openings, s, e) < 0)
		return -1;
	if (strcmp(s->id, want) != 0)
		return err_set(e, ERR_INPUT, "%s: its identity is %s, but the spec's \"opening_suite\" "
		    "is %s", o->openings, s->id, want);
	if (openings_canonical(s, &b, e) < 0)
		goto done;
	hash_bytes(b.p, b.len, d);
	if (store != NULL && cas_put(store, d, b.p, b.len, e) < 0)
		goto done;
	freeze_acc_set_openings(acc, s);
	rc = 0;
done:
	buf_release(&b);
	return rc;
}

int
freeze_build(const struct freeze_opts *o, struct buf *manifest, struct err *e)
{
	struct build_ctx b = { 0 };
	struct finish f = { NULL, NULL, ERR_INIT, 0 };
	struct pool_thread th = POOL_THREAD_INIT;
	struct openings suite = OPENINGS_INIT;
	cJSON *repo = NULL;
	size_t start = manifest->len;
	int rc = -1, threaded = 0;

	b.o = o;
	b.acc = freeze_acc_new(o->spec, e);
	if (b.acc == NULL)
		return o->spec_name ? err_prefix(e, "%s", o->spec_name) : -1;
	if (o->prereg != NULL && freeze_acc_set_prereg(b.acc, o->prereg, e) < 0)
		goto done;
	if (o->repo_dir && freeze_repo_state(o->repo_dir, &repo, e) < 0)
		goto done;
	if (o->store_dir && cas_open(o->store_dir, 1, &b.store, e) < 0)
		goto done;
	if (add_openings(o, b.acc, b.store, &suite, e) < 0)
		goto done;
	struct ledger_par par = { slot_work, slot_done, slot_release, scratch_new, scratch_free,
		sizeof(struct slot), &b, o->jobs, NULL };
	for (size_t i = 0; i < o->nledgers; i++)
		if (ledger_read_par(o->ledgers[i], &par, e) < 0)
			goto done;
	if (add_decisions(o, b.acc, b.store, e) < 0)
		goto done;
	if (o->out != NULL && o->out_only ? write_out(o, b.acc, b.store, repo, e) < 0 :
	    freeze_acc_write(b.acc, repo, manifest, e) < 0)
		goto done;
	if (o->deviation != NULL) {
		const cJSON *d;
		cJSON_ArrayForEach(d, b.acc->devs_out)
			o->deviation(o->deviation_ctx, json_get(d, "setting")->valuestring,
			    json_get(d, "registered")->valuestring, json_get(d, "used")->valuestring);
	}
	if (o->pair_broken != NULL)
		freeze_pairs_broken_each(b.acc, o->pair_broken, o->pair_ctx);
	/* The store is committed only once the manifest is sure to be
	 * written; it is moved into place (by the caller) only after.  With
	 * no second thread, the commit comes first, then the writing. */
	f = (struct finish){ b.store, b.acc, ERR_INIT, 0 };
	b.store = NULL; /* f's now */
	b.acc = NULL;
	if (o->out == NULL)
		finish_thread(&f);
	else if (!(threaded = pool_spawn(&th, finish_thread, &f)))
		pool_join(&th);
	/* (f.rc is read only once no thread writes it) */
	rc = o->out != NULL && !o->out_only && (threaded || f.rc == 0) ?
	    outfile_write(o->out, manifest->p + start, manifest->len - start, e) : 0;
	pool_join(&th);
	if (f.rc < 0) {
		*e = f.e;
		rc = -1;
	}
	if (rc < 0)
		buf_cut(manifest, start);
done:
	cas_free(b.store);
	cJSON_Delete(repo);
	freeze_acc_free(b.acc);
	openings_release(&suite);
	return rc;
}

