/* paired.h: the paired endpoints of a freeze's decisions (cohort.paired/1):
 * per family, replication, condition and budget, best-move recall,
 * shortlist coverage, regret (mean with a block-bootstrap interval,
 * median, mean without mate values; unscored moves kept apart as bounds),
 * chosen rank, value loss against the best shown, order-change
 * probability across order seeds, blunder rate by phase, the order,
 * colour, phase and stratum effects on recall and regret (effects.h),
 * status and failure counts, tokens and latency per decision.  docs/cohort-paired.1
 * defines each figure.
 *
 * Ownership: documents returned through cJSON ** are the caller's.
 */
#ifndef COHORT_PAIRED_H
#define COHORT_PAIRED_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"

struct prereg;

#define PAIRED_DEFAULT_REPLICATES 2000
#define PAIRED_DEFAULT_BLUNDER_CP 300.0

struct paired_opts {
	const char *store_dir;   /* the freeze's object store */
	const char *name;        /* the freeze's name in messages */
	long replicates;         /* bootstrap replicates, 0 for none */
	uint64_t seed;           /* the bootstrap's seed */
	double level;            /* the intervals' level */
	double blunder_cp;       /* a regret at least this is a blunder */
	/* A cohort.prereg/1 it follows, or NULL: the document names it and
	 * lists each setting that differs from it as a deviation. */
	const struct prereg *pr;
	/* Else, to compute a document again: the identity and the deviations
	 * it records (a gate holds them to the prereg itself). */
	const char *prereg_id;
	const cJSON *deviations;
	int jobs;                /* threads: 0 one per processor */
	/* A freeze read by paired_freeze_read: its included decisions'
	 * identities and its own (else NULL, and both come from the tree). */
	const struct paired_ids *ids;
	const char *input_id;
};

/* Defaults: 2000 replicates, seed 1, level 0.95, blunder at 300 cp. */
void paired_opts_init(struct paired_opts *o);

/* The cohort.paired/1 document of freeze (its decisions and candidate
 * manifest read from o->store_dir). */
int paired_document(const cJSON *freeze, const struct paired_opts *o, cJSON **out,
    struct err *e);

/* The k curve of recall and regret per family, as a table. */
int paired_table(const cJSON *doc, struct buf *out, struct err *e);

/* Compute doc again from freeze (and the store) with the options it
 * records; *same is 1 when the bytes are doc's. */
int paired_refit_check(const cJSON *doc, const cJSON *freeze, const char *store_dir,
    const char *name, int *same, struct err *e);

#endif
