/* derive.h: every derived document kind, computed again from its input and
 * compared byte for byte.  The one table of derived kinds: verify and the
 * publication gate both ask it.
 *
 * Checks are appended to a caller's cJSON array (verify_check_add's form).
 */
#ifndef COHORT_DERIVE_H
#define COHORT_DERIVE_H

#include <cjson/cJSON.h>

#include "../common/err.h"

/* 1 when kind names a document this table derives again. */
int derive_known(const char *kind);

/* 1 when kind is an input that derived kinds are computed from and that
 * has nothing of its own to compute again (cohort.blocks/1). */
int derive_is_input(const char *kind);

/* Read an input document (of kind, named name) as the kinds derived from
 * it read it, and append an "input" check: 0 when it reads, 1 (a finding)
 * when it does not, -1 with e set for a kind that is not an input or
 * memory that ran out. */
int derive_input_check(const char *kind, const cJSON *doc, const char *name, cJSON *checks,
    struct err *e);

/* Where a derivation finds what its input document alone does not hold:
 * the object store of the freeze it derives from (paired reads decisions
 * there), NULL when there is none. */
struct derive_env {
	const char *store_dir;
	const char *const *stores; /* derive_check_set: per input, the store beside it (or NULL) */
	const char *input_id;      /* derive_check: input's identity when the caller computed it
	                            * from this same tree, else NULL (computed again) */
};

#define DERIVE_MAX_INPUTS 256 /* inputs of a document of several */

/* Compute doc (of kind, named name) again from input and append a "refit"
 * check.  0 when the bytes are the same, 1 when they differ or input cannot
 * give a document of this kind (a finding about the pair), -1 with e set
 * for a kind the table does not know or memory that ran out. */
int derive_check(const char *kind, const cJSON *doc, const cJSON *input, const char *name,
    const struct derive_env *env, cJSON *checks, struct err *e);

/* Kinds computed from several documents (cohort.gate/1; a fingerprint
 * from its prereg and freezes; a distance from its fingerprints): 1 when
 * kind is one.  derive_known is 1 for them too. */
int derive_many(const char *kind);
/* The identities such a document names as its inputs, borrowed from doc,
 * at most cap of them, *n set.  -1 with e set when doc does not say. */
int derive_input_ids(const char *kind, const cJSON *doc, const char **ids, size_t cap,
    size_t *n, struct err *e);
/* derive_check for such a kind, from inputs[0..n), the documents its
 * identities name, in any order. */
int derive_check_set(const char *kind, const cJSON *doc, const cJSON *const *inputs, size_t n,
    const char *name, const struct derive_env *env, cJSON *checks, struct err *e);

/* What a document derives from follows from its kind: 1 when a document
 * of kind can be derived from one of kind from (NULL: a file that is no
 * cohort document, such as a ledger, a decision log or a candidate
 * manifest), 0 when it cannot, -1 when kind implies no inputs (an input
 * kind, or one derived outside cohort's table).  A freeze derives from
 * its spec and its ledgers; a fit and a bound from a freeze or a blocks
 * document; paired from a freeze; a fingerprint from its prereg,
 * freezes, fits, paired documents, manifest and decision logs; a
 * distance from fingerprints; a gate from any of the documents it rests
 * on.  The publication gate implies a bundle spec's derived_from from
 * this, and refuses one that says otherwise. */
int derive_from_kind(const char *kind, const char *from);

#endif
