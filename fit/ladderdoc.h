/* ladderdoc.h: `cohort ladder next`: the policy's verdict on one
 * condition's blocks, as a cohort.ladder-next/1 document or a table.
 *
 * Ownership: documents returned through `cJSON **out` belong to the caller.
 */
#ifndef COHORT_LADDERDOC_H
#define COHORT_LADDERDOC_H

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"
#include "bound.h"

struct ladder_next_options {
	const char *path;      /* a cohort.freeze/1 or cohort.blocks/1 ("-" stdin) */
	const char *spec_path; /* cohort.spec/1, required with a blocks document */
	const char *condition; /* the condition to replay */
	const char *family;    /* its family; NULL: the only one that has it */
};

/* The cohort.ladder-next/1 document of (family, condition) in c under spec
 * (a cohort.spec/1 tree, whose identity is spec_id); family NULL: the only
 * family that has the condition. */
int ladder_next_document(const struct blocks *c, const cJSON *spec, const char *spec_id,
                         const char *family, const char *condition, cJSON **out, struct err *e);

/* `cohort ladder next`: read the input (and the spec a blocks document
 * needs), replay the condition and return its cohort.ladder-next/1
 * document in *out.  Writes nothing. */
int ladder_next_run(const struct ladder_next_options *o, cJSON **out, struct err *e);

/* Append the document as a table (one line, then any deviations) to out. */
int ladder_next_table(const cJSON *doc, struct buf *out, struct err *e);

#endif
