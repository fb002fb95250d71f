/* fp.h: model fingerprints (cohort.fingerprint/1) and the distances
 * between them (cohort.distance/1), the first seed's response profiles.
 *
 * A fingerprint is one family and replication's vector of the features a
 * preregistration registers (cohort-fingerprint(1) defines each one):
 * strength response from the joint Davidson fit of its games per width,
 * proposal and selection, stability and failure from its decisions
 * (paired/collect.h), compute response from both.  Each feature carries
 * its bootstrap standard error and interval, and the features their
 * bootstrap covariance.  The bootstrap resamples the prereg's unit
 * (openings, or positions and games) with replacement; replicate r of a
 * fingerprint draws from stream r of common/rng.h for that fingerprint, so
 * a range of replicates [r0, r1) can be computed anywhere and the rows
 * put together again (fp_run_document, fp_summarize).
 *
 * The document keeps every replicate's row: the summary figures (errors,
 * intervals, covariance) are computed from the rows as written, and the
 * distance's bootstrap interval pairs the rows of two fingerprints.
 *
 * Ownership: inputs are borrowed; documents returned through cJSON ** and
 * a struct fp_run are the caller's (cJSON_Delete, fp_run_free).
 */
#ifndef COHORT_FP_H
#define COHORT_FP_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"
#include "../common/hash.h"
#include "../protocol/prereg.h"

#define FP_LEVEL 0.95 /* every interval's level */

/* One freeze: its tree, its object store, its name in messages; read by
 * paired_freeze_read, also its included decisions' identities and its
 * own (else NULL: both from the tree). */
struct paired_ids;
struct fp_input {
	const cJSON *freeze;
	const char *store_dir;
	const char *name;
	const struct paired_ids *ids;
	const char *id;
};

struct fp_opts {
	const struct prereg *pr; /* the preregistration (borrowed) */
	long replicates;         /* -1: the prereg's; another number is a deviation */
	int have_seed;           /* seed given here (a deviation when it differs) */
	uint64_t seed;
	int jobs;                /* threads: 0 one per processor */
	int split;               /* the positions' split (enum cand_split), -1 all */
};

/* Replicates and seed the prereg's, every split. */
void fp_opts_init(struct fp_opts *o);

/* The split of a name (explore, confirm, heldout; all: -1); -2 unknown. */
int fp_split_of(const char *name);

struct fp_run;

/* Read the freezes' decisions and games and make the estimates. */
int fp_run_new(const struct fp_input *in, size_t nin, const struct fp_opts *o,
    struct fp_run **out, struct err *e);
void fp_run_free(struct fp_run *r);
/* The replicates the run is to draw. */
long fp_run_replicates(const struct fp_run *r);

/* The document with the rows of replicates [r0, r1) (0 <= r0 <= r1 <=
 * replicates); its summary figures are computed when the range is the
 * whole, else left as they are before fp_summarize. */
int fp_run_document(struct fp_run *r, long r0, long r1, cJSON **out, struct err *e);

/* Compute every figure of doc that comes from its replicate rows (each
 * fingerprint's "replicates"): standard errors, intervals, finite counts,
 * P(k* = k), the covariance and bootstrap.complete. */
int fp_summarize(cJSON *doc, struct err *e);

/* The whole document in one step. */
int fp_document(const struct fp_input *in, size_t nin, const struct fp_opts *o, cJSON **out,
    struct err *e);

/* Features by fingerprint, as a table. */
int fp_table(const cJSON *doc, struct buf *out, struct err *e);

/* Compute doc again from the prereg and freezes with the settings it
 * records; *same is 1 when the bytes are doc's. */
int fp_refit_check(const cJSON *doc, const struct prereg *pr, const struct fp_input *in,
    size_t nin, int *same, struct err *e);

/* The rounding step of a feature's figures, from its name (0.01 for
 * ratings, 1e-6 for shares, ...); 0 for a name the table does not know. */
double fp_feature_step(const char *name);

/* A fingerprint document's replicate rows, held flat beside its tree. */
struct fp_rows;
struct json_ident;
struct fp_rows *fp_rows_new(void);
void fp_rows_free(struct fp_rows *r);
/* A fingerprint document from a file as json_parse_file_begin reads it
 * (beside and id as there: json_ident_end gives the identity), with each
 * fingerprint's replicates.rows left empty in the tree and its values
 * added to rows (rows NULL: all in the tree). */
cJSON *fp_read_file(const char *path, struct fp_rows *rows, int beside, struct json_ident **id,
    struct err *e);
/* The rows of the (empty) array node, when rows holds them: row i's
 * values are val[start[i] .. start[i + 1]), a number's value or NAN for
 * any other value, for i below n. */
struct fp_rowview {
	const double *val;
	const size_t *start;
	size_t n;
};
/* 1 and *v when rows (may be NULL) holds node's rows; 0 when the tree does. */
int fp_rows_find(const struct fp_rows *r, const cJSON *node, struct fp_rowview *v);

struct fp_dist_opts {
	int jobs; /* threads: 0 one per processor */
	/* The documents' identities, as json_parse_file_id gave them, or
	 * NULL: computed from the trees. */
	char (*ids)[HASH_ID_LEN + 1];
	int plain; /* for tests: the quadratic forms without AVX2 */
	/* the inputs' rows held flat (then ids must be given), or NULL */
	const struct fp_rows *rows;
	/* when not NULL, called once before ids are read (0, or -1 with e
	 * set): the identities may be computed beside the work until then */
	int (*ids_wait)(void *arg, struct err *e);
	void *ids_arg;
};

/* cohort.distance/1 of the fingerprints of docs (all under one prereg). */
int fp_distance(const cJSON *const *docs, size_t ndocs, const struct fp_dist_opts *o,
    cJSON **out, struct err *e);
/* |w|^2 for L w = u - v for nq (at most FP_QB) replicates at once (L
 * lower triangular, F x F; u and v feature-major, replicate q's feature
 * a at [a * FP_QB + q]; y scratch of FP_QB F), four to an AVX2 register
 * when avx2 is nonzero (the processor must have it), one at a time
 * otherwise: the same bits either way.  For distance and its tests. */
#define FP_QB 32
void fp_quad_block(const double *L, size_t F, const double *u, const double *v, size_t nq,
    double *out, double *y, int avx2);
/* The d2 matrix, test-retest and separation, as a table. */
int fp_distance_table(const cJSON *doc, struct buf *out, struct err *e);
/* Compute a distance document again from its fingerprint documents. */
int fp_distance_refit_check(const cJSON *doc, const cJSON *const *docs, size_t ndocs, int *same,
    struct err *e);

#endif
