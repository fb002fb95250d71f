/* freeze.h: building and reading cohort.freeze/1 manifests.
 *
 * freeze_build reads a cohort spec and game ledgers (JSON Lines, or SQLite
 * databases with a `games` table; see docs/design.md) and returns a new
 * manifest tree the caller owns (cJSON_Delete).  When store_dir is set,
 * every record's canonical bytes go into that object store.
 */
#ifndef COHORT_FREEZE_H
#define COHORT_FREEZE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/err.h"

struct freeze_opts {
	const cJSON *spec;      /* cohort.spec/1 document (borrowed) */
	const char *spec_name;  /* for messages */
	const char **ledgers;   /* ledger paths; "-" is stdin (JSON Lines) */
	size_t nledgers;
	const char *store_dir;  /* object store to fill, or NULL */
	const char *repo_dir;   /* harness repository to record, or NULL */
	int progress;           /* report progress on stderr */
};

int freeze_build(const struct freeze_opts *o, cJSON **manifest, struct err *e);

/* Check that a spec document is a well-formed cohort.spec/1. */
int freeze_spec_check(const cJSON *spec, struct err *e);

#endif
