/* freeze.h: building and re-deriving cohort.freeze/1 manifests.
 *
 * freeze_build reads a cohort spec and game ledgers (JSON Lines, or SQLite
 * databases with a `games` table; docs/design.md) and appends the new
 * manifest's canonical bytes to a buffer.  With store_dir set, every
 * record's canonical bytes go into that object store.
 *
 * The accumulator underneath is shared with verify: records go in one by
 * one (validated, canonicalized, summarized), and freeze_acc_write derives
 * the manifest from the summaries alone, so a freeze and its re-derivation
 * from stored records are the same code.  The manifest is written as
 * canonical bytes directly, without a tree (docs/design.md).
 */
#ifndef COHORT_FREEZE_H
#define COHORT_FREEZE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"
#include "../common/hash.h"

struct outfile;
struct spec;
struct prereg;

/* A deviation from the preregistration, as freeze_build reports it. */
typedef void (*freeze_dev_fn)(void *ctx, const char *setting, const char *registered,
    const char *used);

struct freeze_opts {
	const cJSON *spec;      /* cohort.spec/1 document (borrowed) */
	const char *spec_name;  /* its file, for messages, or NULL */
	const char **ledgers;   /* ledger paths; "-" is stdin (JSON Lines) */
	size_t nledgers;
	const char *store_dir;  /* object store to fill, or NULL */
	const char *repo_dir;   /* harness repository to record, or NULL */
	const char *candidates; /* cohort.candidates/1 manifest, or NULL */
	const char **decisions; /* decision logs (JSON Lines, or SQLite with a
	                         * table "decisions"); they need candidates */
	size_t ndecisions;
	int jobs;               /* threads reading ledgers; 0: one per online processor */
	/* called every 65536 records when set (progress on a terminal) */
	void (*progress)(void *ctx, uint64_t records);
	void *progress_ctx;
	/* an output file opened by the caller, or NULL: the manifest is
	 * written to it (outfile_write) while the store is committed, and the
	 * caller commits or aborts it after */
	struct outfile *out;
	/* with out: the manifest written to it only, as it is made, and not
	 * appended to freeze_build's buffer (a million decisions' manifest
	 * is 200 MB of memory not touched) */
	int out_only;
	/* the preregistration the cohort follows (borrowed), or NULL: the
	 * manifest then names it, holds it, and lists every deviation from
	 * it; each is also handed to deviation when that is set */
	const struct prereg *prereg;
	freeze_dev_fn deviation;
	void *deviation_ctx;
	/* the frozen opening suite (cohort.openings/1) the spec names by its
	 * "opening_suite", or NULL (then the spec must name none): every
	 * record's "opening" must be in it and every game start from its
	 * opening's position (protocol/openings.h); it goes into the store */
	const char *openings;
	/* each broken pair of games (docs/design.md, "Opening suites and
	 * pairs"), handed over once the manifest is written, when set */
	void (*pair_broken)(void *ctx, const char *game_id, const char *pair, const char *why);
	void *pair_ctx;
};

/* Append the manifest's canonical bytes to manifest (none with
 * o->out_only); on failure it is left as it was (and o->out may hold part
 * of it: the caller aborts it). */
int freeze_build(const struct freeze_opts *o, struct buf *manifest, struct err *e);

struct freeze_acc;

/* A new accumulator for spec (borrowed; must outlive the accumulator),
 * which is read and checked here (protocol/spec.h). */
struct freeze_acc *freeze_acc_new(const cJSON *spec, struct err *e);
void freeze_acc_free(struct freeze_acc *a);
/* Validate and summarize one record; where ("file:line") prefixes errors.
 * On success canon and n hold its canonical bytes (valid until the next call)
 * and d its digest. */
int freeze_acc_add(struct freeze_acc *a, const cJSON *rec, const char *where,
    const char **canon, size_t *n, uint8_t d[HASH_LEN], struct err *e);
/* The same in two steps, for threads: freeze_acc_prepare only reads a (any
 * number of threads may call it at once) and fills item, which the caller
 * holds, with the record's summary; canon receives its canonical bytes and
 * d their digest.  freeze_acc_take then moves the item into a (one thread,
 * in order), leaving it empty.  freeze_item_clear frees an item not taken. */
struct freeze_item {
	/* freeze.c's own fields; callers only hold items */
	char *game_id;
	char *where_own;  /* where given as text, or NULL: then file, line */
	const char *file; /* borrowed: must outlive the accumulator */
	long line;
	int sqlite;
	uint8_t d[HASH_LEN];
	int fam, cond, reason, block, color, result; /* fam, cond: the spec's indexes */
	int early;        /* started before a followed prereg's registered_at */
	double anchor;
	long long tok[4];
	double wall_s, worker_hours;
	uint64_t idkey[3]; /* game_id's first 24 bytes, big-endian, zero-padded */
	uint32_t idlen;    /* game_id's length */
	int id_lent;       /* game_id lies in a freeze_ids store, not the item's own */
	/* its "opening" and "pair", its own copies: only when it names a pair
	 * or the spec names an opening suite (else NULL, and the manifest's
	 * entry is what it was without them) */
	char *opening, *pair;
};
int freeze_acc_prepare(const struct freeze_acc *a, const cJSON *rec, const char *where,
    struct freeze_item *item, struct buf *canon, uint8_t d[HASH_LEN], struct err *e);
/* freeze_acc_prepare for a record's JSON text (one JSON Lines line): read
 * with the flat reader when it has the common shape (rec.h), else with the
 * tree reader, whose errors name loc.  x is the calling thread's scratch,
 * reused record after record. */
struct freeze_scratch;
struct freeze_scratch *freeze_scratch_new(void);
void freeze_scratch_free(struct freeze_scratch *x);
/* A store for the game ids of many items: a million ids, each its own
 * allocation, cost a malloc to make and a free to drop.  Items prepared
 * with a scratch that lends from a store (freeze_scratch_lend) keep their
 * ids there; the store's owner frees it only after every such item is
 * cleared (freeze_acc_free clears the items it took). */
struct freeze_ids;
struct freeze_ids *freeze_ids_new(void);
void freeze_ids_free(struct freeze_ids *ids);
/* From now on freeze_acc_prepare_stored keeps ids in ids (NULL: the
 * items' own). */
void freeze_scratch_lend(struct freeze_scratch *x, struct freeze_ids *ids);
struct ledger_loc;
int freeze_acc_prepare_text(const struct freeze_acc *a, struct freeze_scratch *x, const char *text,
    size_t n, const struct ledger_loc *loc, struct freeze_item *item, struct buf *canon,
    uint8_t d[HASH_LEN], struct err *e);
/* A stored record, which must already be canonical (rec_check): 0 with
 * its item and the digest of text (in d too, unless d is NULL); 1 when it is not shown valid and
 * canonical this way (the thorough way then says what is wrong); -1 out of
 * memory.  Its messages say "stored record" for a place. */
int freeze_acc_prepare_stored(const struct freeze_acc *a, struct freeze_scratch *x, const char *text,
    size_t n, struct freeze_item *item, uint8_t d[HASH_LEN], struct err *e);
int freeze_acc_take(struct freeze_acc *a, struct freeze_item *item, struct err *e);
/* Room for n items after those taken, to be written in place (by several
 * threads at once, each its own items: a million items are then never
 * moved), or NULL when out of memory.  freeze_acc_placed(a, n) then takes
 * all n; items written but not taken stay the caller's to clear. */
struct freeze_item *freeze_acc_room(struct freeze_acc *a, size_t n, struct err *e);
void freeze_acc_placed(struct freeze_acc *a, size_t n);
void freeze_item_clear(struct freeze_item *item);
/* 1 when two items hold the same summary, bit for bit (for tests of the
 * two readers). */
int freeze_item_same(const struct freeze_item *x, const struct freeze_item *y);
/* Derive the manifest and append its canonical (RFC 8785) bytes to out;
 * repo (may be NULL) goes in as "repo".  On failure out is left as it was.
 * The games are not moved; the accumulator may be written again. */
int freeze_acc_write(struct freeze_acc *a, const cJSON *repo, struct buf *out, struct err *e);
/* The same bytes handed to put() a megabyte or so at a time, in order,
 * never all held at once.  put returns 0, or -1 to stop (then
 * freeze_acc_stream fails with ERR_IO unless it already set e).  Or, when
 * expect is not NULL, the bytes are compared with expect[0..nexpect)
 * instead, parts of them on other threads, and put is not called: ERR_IO
 * when they differ anywhere, or in length (verify, with a file's bytes).
 * reserve, when not NULL, is grown once to hold the whole manifest. */
struct freeze_sink {
	int (*put)(void *ctx, const char *p, size_t n);
	void *ctx;
	const char *expect;
	size_t nexpect;
};
int freeze_acc_stream(struct freeze_acc *a, const cJSON *repo, const struct freeze_sink *k,
    struct buf *reserve, struct err *e);
/* The "decisions" section the manifest will hold: x, taken over once
 * freeze_dec_section made its section (and written from its entries where
 * they lie: a million decisions' are 200 MB); none when never set.  x's
 * spec and candidates need not outlive it from then on. */
struct freeze_dec;
void freeze_acc_set_decisions(struct freeze_acc *a, struct freeze_dec *x);
/* Follow a preregistration (borrowed; must outlive a): each game that
 * started before its registered_at is marked, and the manifest gains
 * "prereg" (its identity), "preregistration" (the document) and
 * "deviations" (docs/design.md).  Call before any record goes in. */
int freeze_acc_set_prereg(struct freeze_acc *a, const struct prereg *p, struct err *e);
/* Check every record against an opening suite (borrowed; must outlive a),
 * before any record goes in: its "opening" is in the suite and the game
 * starts from that opening's position.  Records are then read as trees
 * (their moves are replayed).  The manifest's "pairs" section names the
 * suite. */
struct openings;
void freeze_acc_set_openings(struct freeze_acc *a, const struct openings *s);
/* Hand each broken pair the manifest last written lists to fn, in its
 * order; their count. */
long freeze_pairs_broken_each(const struct freeze_acc *a,
    void (*fn)(void *ctx, const char *game_id, const char *pair, const char *why), void *ctx);
/* The decisions' deviations (freeze_dec_deviations' array), taken over. */
void freeze_acc_set_deviations(struct freeze_acc *a, cJSON *decision_devs);
/* Hand each deviation the manifest lists to fn, in its order; their count. */
long freeze_deviations_each(const cJSON *manifest, freeze_dev_fn fn, void *ctx);
/* The spec the accumulator read. */
const struct spec *freeze_acc_spec(const struct freeze_acc *a);
/* The same manifest as a new tree (cJSON_Delete): freeze_acc_write's bytes
 * read back, so the two never disagree. */
int freeze_acc_finish(struct freeze_acc *a, const cJSON *repo, cJSON **manifest, struct err *e);

/* The harness repository's HEAD commit and whether its tree is dirty, as
 * {"commit": "<40 hex>", "dirty": bool}. */
int freeze_repo_state(const char *dir, cJSON **out, struct err *e);

/* The decisions of a freeze (freeze/decisions.c): each record read
 * (protocol/decision.h), checked against the candidate manifest, its
 * canonical bytes and digest handed back for the store, and summarized
 * for the manifest's "decisions" section.  sp and cand are borrowed and
 * must outlive it. */
struct candidates;
struct freeze_dec *freeze_dec_new(const struct spec *sp, const struct candidates *cand,
    struct err *e);
void freeze_dec_free(struct freeze_dec *x);
/* A thread's scratch for reading decision records: the flat reader and
 * the text of the decision it read.  NULL when out of memory. */
struct freeze_dec_scratch;
struct freeze_dec_scratch *freeze_dec_scratch_new(void);
void freeze_dec_scratch_free(struct freeze_dec_scratch *w);
/* One record's JSON text from the store, read flat when it can and as a
 * tree otherwise; canon gets its canonical bytes, d their digest.  A
 * malformed record is an input error naming where; a decision_id given
 * twice names each by it ("decision ID"). */
int freeze_dec_add_text(struct freeze_dec *x, struct freeze_dec_scratch *w, const char *text,
    size_t n, const char *where, struct buf *canon, uint8_t d[HASH_LEN], struct err *e);
/* Follow a preregistration (borrowed), before any record goes in. */
void freeze_dec_set_prereg(struct freeze_dec *x, const struct prereg *p);
/* The decisions' deviations from the preregistration, as a new array of
 * {setting, registered, used} (decisions before registered_at, another
 * candidate manifest, exclusions not registered, widths, budgets, order
 * seeds, split sizes); NULL with e set when out of memory.  Call after
 * freeze_dec_section. */
cJSON *freeze_dec_deviations(struct freeze_dec *x, struct err *e);
/* The "decisions" object: {candidates, included, excluded, cells,
 * totals}, made ready to be written by freeze_dec_put.  A decision_id
 * given twice is an input error. */
int freeze_dec_section(struct freeze_dec *x, struct err *e);
/* Its canonical bytes handed to put piece by piece (none before
 * freeze_dec_section); what put returns when not 0.  freeze_dec_ready:
 * whether there is a section (not for a NULL x); freeze_dec_len: how many
 * bytes it has at most (exactly, when its strings need no escapes),
 * measured over every entry. */
int freeze_dec_ready(const struct freeze_dec *x);
typedef int (*freeze_put_fn)(void *ctx, const char *p, size_t n);
int freeze_dec_put(const struct freeze_dec *x, freeze_put_fn put, void *ctx);
size_t freeze_dec_len(const struct freeze_dec *x);

/* The live rule: a document marked "live": true, and in a freeze each
 * active condition and the live games it excluded (one reason for all of
 * them).  fn gets each reason's text and what to do about it; the number
 * of reasons is returned (0: the document is final). */
typedef void (*freeze_live_fn)(void *ctx, const char *what, const char *action);
long freeze_live(const cJSON *doc, freeze_live_fn fn, void *ctx);
/* The blocks and condition states of a manifest as plain-text tables. */
int freeze_table(const cJSON *manifest, struct buf *out);

#endif
