/* candcheck.h: `candidates verify`: a cohort.candidates/1 manifest
 * checked on its own (principal variations, SAN, the order of the
 * scores), and with an engine analysed again and compared byte for byte.
 *
 * The report is a cohort.verify/1 document: {"kind", "subject": [the
 * manifest by name, identity and kind], "checks": [...], "ok"}; each
 * check is {"check", "subject", "ok", "detail"} (verify_check_add).  A
 * finding has ok false.  A note has ok true and a detail that starts with
 * "note: ": something a reader should know that is not wrong (a score out
 * of order where the engine marked it a bound; a file whose bytes are not
 * its canonical lines).  Each kind of check that found nothing is one
 * check with ok true.
 *
 * Ownership: the report belongs to the caller (cJSON_Delete); the options
 * are borrowed.
 */
#ifndef COHORT_CANDCHECK_H
#define COHORT_CANDCHECK_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"

#define CANDCHECK_MAX_LISTED 1000 /* findings and notes listed; the rest counted */

struct candcheck_opts {
	const char *manifest; /* path, "-" for standard input */
	const char *engine;   /* analyse again with this engine; NULL: do not */
	size_t sample;        /* analyse this many positions (candcheck_sample); 0: all */
	uint64_t seed;        /* the sample's seed */
	double timeout_s;     /* one search; 0 for ENGINE_SEARCH_TIMEOUT_S */
	/* called after each position analysed when set: done, total */
	void (*progress)(void *ctx, size_t done, size_t total);
	void *progress_ctx;
};

/* Check the manifest and build the report.  0 when every check holds
 * (notes allowed), 1 when any finding was recorded, -1 with e set when
 * the manifest does not read (cand_read refuses it), the engine cannot be
 * started or breaks down while analysing. */
int candcheck_run(const struct candcheck_opts *o, cJSON **report, struct err *e);

/* The positions a sample of k out of the n ids analyses, in id order,
 * into pick[0..k): the k whose SHA-256 of the text "SEED:POSITION_ID"
 * (the seed in decimal) is smallest, bytewise.  So the same seed picks
 * the same positions on any machine, and a position's place in the draw
 * does not depend on the others.  Returns the count (n when k is 0 or at
 * least n). */
size_t candcheck_sample(const char *const *ids, size_t n, size_t k, uint64_t seed, size_t *pick);

/* The report as text, one line a check ("ok", "note" or "FAIL"), then
 * the counts. */
int candcheck_table(const cJSON *report, struct buf *out, struct err *e);

#endif
