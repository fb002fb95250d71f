/* blocks.h: the one reader of W-D-L blocks, from a cohort.freeze/1 or a
 * cohort.blocks/1 document.  fit, bound and ladder next all read their
 * input here, so a block one of them takes, all of them take.
 *
 * The rules (docs/design.md, schemas/blocks.schema.json):
 * - "kind" is cohort.freeze/1 (blocks and spec inside) or cohort.blocks/1;
 * - "black_penalty" (the spec's, in a freeze) within rules.h's limit;
 *   35 when absent;
 * - each block: "condition" a non-empty string (one of the listed
 *   conditions when the document lists them), "family" optional non-empty,
 *   "anchor" within rules.h's limit, "color" white or black, "w", "d", "l"
 *   integers from 0 to RULES_MAX_COUNT with at least one game, "games"
 *   (when given) their sum, "block" (when given) an integer from 1;
 *   a freeze's blocks must give "games" and "block";
 * - a block without "block" is numbered after the blocks before it of its
 *   (family, condition), counting from 1;
 * - the units rated apart are the (family, condition) pairs: when the
 *   document lists its conditions (a freeze: its spec's), every listed
 *   family (the spec's, or "families", or else the families the blocks
 *   name, in order) with every listed condition, family by family; else
 *   the pairs the blocks name, in order.  Families are never pooled.
 * Messages read `NAME: "blocks"[3]: "anchor": expected ...`.
 *
 * Ownership: a struct blocks borrows strings from the tree it was read
 * from, which must outlive it; its arrays are its own (blocks_release).
 */
#ifndef COHORT_BLOCKS_H
#define COHORT_BLOCKS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/err.h"
#include "../common/hash.h"

struct blocks_block {
	const char *family;    /* "" when the document names none */
	const char *condition;
	size_t unit;           /* index into the struct's units */
	long block;            /* index within its (family, condition), from 1 */
	int numbered;          /* the document gave no "block": the reader numbered it */
	double anchor;         /* the opponent's configured Elo */
	int black;             /* the model played Black */
	long long w, d, l;     /* terminal games */
};

struct blocks_unit {
	const char *family;    /* "" when the document names none */
	const char *condition;
};

struct blocks {
	const char *name;         /* input name for messages */
	int is_freeze;            /* a cohort.freeze/1 (else cohort.blocks/1) */
	char id[HASH_ID_LEN + 1]; /* identity of the input document */
	double black_penalty;     /* Elo a Black game costs */
	int have_penalty;         /* the document gave it */
	const cJSON *spec;        /* the freeze's spec, or NULL */
	size_t nunit;             /* (family, condition) pairs, in order */
	struct blocks_unit *units;
	int families;             /* the document names families */
	size_t n;                 /* blocks, in the document's order */
	struct blocks_block *b;
};

#define BLOCKS_INIT { 0 }

/* Read doc (named name in messages) into out, computing its identity.  An
 * empty "blocks" is read as no block: the caller decides whether it can
 * work with none.  On failure out is left released. */
int blocks_read(const cJSON *doc, const char *name, struct blocks *out, struct err *e);
/* blocks_read when the caller has computed doc's identity from this same
 * tree (id; NULL computes it): a freeze of a million games is a 200 MB
 * tree, and each canonical writing of it costs a second. */
int blocks_read_id(const cJSON *doc, const char *name, const char *id, struct blocks *out,
    struct err *e);
void blocks_release(struct blocks *b);

#endif
