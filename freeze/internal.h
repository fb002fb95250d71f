/* internal.h: what the files of the freeze share: the accumulator, the
 * codes of a record's summary, and the steps one file takes from another
 * (record.c reads records, order.c sorts them, manifest.c writes the
 * manifest, build.c drives a freeze from ledgers). */
#ifndef COHORT_FREEZE_INTERNAL_H
#define COHORT_FREEZE_INTERNAL_H

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../json/rec.h"
#include "../protocol/spec.h"
#include "freeze.h"

enum { R_WIN, R_DRAW, R_LOSS, R_NONE };
enum { X_NONE, X_FAMILY, X_CONDITION, X_AFTER_CUT, X_LIVE, X_PROVIDER_ERROR, X_ABORTED };
/* Games are reached through pointers in game_id order, not where they lie:
 * the one this far ahead is asked into the cache meanwhile (far enough for
 * the quickest of those loops, a few nanoseconds a game). */
#define AHEAD 32

extern const char *const freeze_reason_names[];
extern const char *const freeze_result_names[];
extern const char *const freeze_token_names[];
/* The largest token count, one record's or a sum: 2^53 - 1, the largest
 * whole number every JSON reader holds exactly (docs/design.md). */
#define TOKENS_MAX 9007199254740991LL

struct freeze_acc {
	const cJSON *spec;
	struct spec sp; /* the spec, read once */
	struct freeze_dec *dec; /* the "decisions" section, or NULL */
	struct freeze_item *games;
	size_t n, cap;
	struct buf canon;
	/* the flat reader's field lists: record, model, anchor, tokens */
	struct rec_keys keys[4];
	const struct prereg *prereg; /* followed, or NULL */
	struct buf prereg_doc;       /* its canonical bytes */
	cJSON *dec_devs;             /* the decisions' deviations, or NULL */
	cJSON *devs_out;             /* the deviations last written, or NULL */
	const struct openings *suite; /* the opening suite followed, or NULL */
	cJSON *broken_out;           /* the broken pairs last written, or NULL */
};

/* The (family, condition) of an included game, numbered family by family
 * in the spec's order: blocks, conditions and ladder states are per unit,
 * never pooled across families. */
static inline int
freeze_unit(const struct freeze_acc *a, const struct freeze_item *g)
{
	return g->fam * (int)a->sp.nconds + g->cond;
}

/* Where a record came from, for messages (buf holds it when needed). */
const char *freeze_where(const struct freeze_item *g, char *buf, size_t n);

struct ledger_loc;
/* A record read by the tree reader (rec) or its JSON text (text, n; the
 * flat reader first): validated and summarized into g, its canonical
 * bytes appended to canon.  Only reads a: worker threads call them at once. */
int freeze_prepare(const struct freeze_acc *a, const cJSON *rec, const char *where,
    const struct ledger_loc *loc, struct freeze_item *g, struct buf *canon, struct err *e);
int freeze_prepare_text(const struct freeze_acc *a, struct freeze_scratch *x, const char *text,
    size_t n, const struct ledger_loc *loc, struct freeze_item *g, struct buf *out, struct err *e);
/* Take g into a (its strings now belong to a). */
int freeze_append(struct freeze_acc *a, struct freeze_item *g, struct err *e);

/* Ids put in order (order.c), one rule for games and decisions: n items,
 * item i's key (freeze_id_key of its id) and whether its id is longer
 * than the key's 24 bytes, and its id (NUL-ended).  Ids compare as byte
 * strings. */
struct freeze_id_src {
	const void *ctx;
	size_t n;
	void (*key)(const void *ctx, size_t i, uint64_t k[3], uint32_t *longer);
	const char *(*id)(const void *ctx, size_t i);
};
/* An id's first 24 bytes as three big-endian numbers, zero-padded (ids
 * hold no NUL). */
void freeze_id_key(const char *id, size_t n, uint64_t k[3]);
/* The items' indexes in id order, stably (n < 2^32), into ord.  0; 1 when
 * an id repeats: dup[0] the later item, dup[1] the earlier; -1 out of
 * memory. */
int freeze_id_order(const struct freeze_id_src *g, uint32_t *ord, size_t dup[2]);

/* The games in game_id order (a new array of pointers into a->games; a
 * repeated game_id is an error), and the included ones of those put into
 * block order in place. */
int freeze_games_in_order(const struct freeze_acc *a, struct freeze_item ***out, struct err *e);
int freeze_block_order(const struct freeze_acc *a, struct freeze_item **inc, size_t ninc,
    struct err *e);

/* Deviations (deviate.c).  Each adds {setting, registered, used} to arr;
 * 0, or -1 out of memory. */
struct prereg;
struct freeze_widths {
	uint64_t bits[2]; /* widths 0..64 used */
};
int freeze_dev_add(cJSON *arr, const char *setting, const char *registered, const char *used);
/* The width of condition none (0) or top<k> (k); others are not widths. */
void freeze_widths_add(struct freeze_widths *w, const char *condition);
void freeze_widths_text(const struct freeze_widths *w, char *out, size_t cap);
/* A deviation when the widths used (what: "games", "decisions") are not
 * the registered ones. */
int freeze_widths_check(const struct prereg *p, const struct freeze_widths *used, const char *what,
    cJSON *arr);
/* A deviation when count records (of unit "game", "decision") were left
 * out for a reason the prereg does not register. */
int freeze_exclusion_check(const struct prereg *p, const char *reason, long count, const char *unit,
    cJSON *arr);
/* The games' deviations: ord holds all n games in game_id order. */
int freeze_devs_games(const struct freeze_acc *a, struct freeze_item *const *ord, size_t n,
    cJSON *arr);

/* What a freeze keeps of a decision (freeze/decisions.c); its entry is
 * written from it only when the section is (a million entries kept
 * written were 300 MB of memory, and each byte here is a megabyte). */
struct freeze_ditem {
	const char *decision_id;  /* in the freeze_dec's ids, once taken */
	const char *file;         /* where it was read, for a decision_id given */
	long line;                /* twice (file NULL: from the store, named by
	                           * its decision_id); line a rowid for SQLite */
	const char *why;          /* for invalid: a static text */
	uint8_t d[HASH_LEN];
	int32_t pos;              /* its position's index in the manifest, or -1 */
	uint32_t cell;            /* included: its cell, in the freeze_dec's cells */
	uint8_t reason, status, has_budget, sqlite;
};

/* What a followed prereg is compared with, kept beside the items only
 * when one is followed. */
struct freeze_dpre {
	char *early;              /* the time it was made, when before registered_at */
	char *seeds;              /* top<k> (k >= 2): the cell, context and position */
	long long order_seed;
	int width;                /* 0 none, k top<k>, -1 another condition */
};

/* One decision record made ready for the "decisions" section: by
 * freeze_dec_prepare on any thread, taken by freeze_dec_append on the one
 * that owns the freeze_dec, in input order.  Its strings are its own. */
struct freeze_dprep {
	struct freeze_ditem it;
	struct freeze_dpre pre;
	/* the length of the record's canonical bytes, and of the cell's key
	 * written after them (family, replication, condition, budget or "",
	 * each NUL-ended, then '1' when the budget is given, else '0'; none
	 * for an excluded one), then the decision_id and a NUL */
	size_t canon_len, key_len;
	const char *as_is;        /* the record's text, canonical as it was read,
	                           * or NULL: its bytes are canon's, before the key */
	uint64_t key_hash;        /* the key's, taken where it is written */
	size_t id_len;            /* the decision_id, written after the key */
};

/* Where a prepared item's record and key lie, what was appended for it
 * beginning at base: its record's bytes, and the offset of its key from
 * base (the decision_id follows the key). */
static inline const char *
freeze_dec_rec(const struct freeze_dprep *it, const char *base)
{
	return it->as_is != NULL ? it->as_is : base;
}

static inline size_t
freeze_dec_key_at(const struct freeze_dprep *it)
{
	return it->as_is != NULL ? 0 : it->canon_len;
}

/* A copy of p[0..n) and a NUL in ids (a megabyte's block at a time, all
 * freed with it), or NULL when out of memory. */
char *freeze_ids_dup(struct freeze_ids *ids, const char *p, size_t n);

/* freeze_dec_add_text in two steps: the record checked, its canonical bytes
 * appended to canon (it->canon_len of them; none when the text read was
 * canonical already: it->as_is points at it), then for an included one its
 * cell's key, then its decision_id, and its digest in it->d, reading x
 * only (any thread); then it taken into x with the key (what followed its
 * bytes), on x's own thread.  freeze_dec_item_clear frees one not taken. */
int freeze_dec_prepare(const struct freeze_dec *x, const cJSON *rec, const char *where,
    const struct ledger_loc *loc, struct buf *canon, struct freeze_dprep *it, struct err *e);
/* freeze_dec_prepare for a record's text, read by the flat reader
 * (json/rec.h): 1, with nothing appended, when it is not read that way
 * and the caller reads its tree. */
int freeze_dec_prepare_flat(const struct freeze_dec *x, struct freeze_dec_scratch *w,
    const char *text, size_t n, const struct ledger_loc *loc, struct buf *canon,
    struct freeze_dprep *it, struct err *e);
int freeze_dec_append(struct freeze_dec *x, struct freeze_dprep *it, const char *key,
    struct err *e);
void freeze_dec_item_clear(struct freeze_dprep *it);

#endif
