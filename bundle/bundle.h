/* bundle.h: publication bundles: the gate that refuses missing, stale,
 * live or secret-bearing evidence, the deterministic BagIt archive it
 * writes, and the verification of such an archive by a reviewer.
 *
 * Ownership: documents returned through a cJSON ** belong to the caller
 * (cJSON_Delete).  Everything passed in is borrowed.
 */
#ifndef COHORT_BUNDLE_H
#define COHORT_BUNDLE_H

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"
#include "../common/hash.h"
#include "../bagit/bag.h"

struct bundle_opts {
	const char *spec;            /* cohort.bundle-spec/1 file */
	const char *out;             /* archive to write; NULL or "-" for standard output
	                                (with check, where the report goes: none of the
	                                bundle's files either) */
	int check;                   /* report only: write no archive */
	enum bag_compress compress;
	const char *rules;           /* --rules: more credential rules, or NULL */
	/* called with each note (a file of a store left out of the bundle,
	 * and why), when set; notes are not findings */
	void (*note)(void *ctx, const char *msg);
	void *note_ctx;
	const char *tool_version;    /* cohort's version, for the RO-Crate metadata */
	const char *tool_commit;     /* its source commit, or NULL */
	/* threads for the slow checks (freezing again, the stores, computing
	 * again), this one among them; 0: one per online processor.  The
	 * findings do not depend on it */
	int jobs;
	/* called with what the gate does now, when set (a terminal's progress) */
	void (*progress)(void *ctx, const char *stage);
	void *progress_ctx;
};

/* Read the bundle spec and every file it names, run every check, and
 * unless o->check write the archive.
 * Returns 0 when nothing was found: *doc is the cohort.bundle/1 document (the
 * archive's data/bundle.json) and, when an archive was written, id holds its
 * identity; 1 when something was found: *doc is the cohort.refusal/1 report
 * with every finding and nothing was written; -1 with e set on bad input
 * (a spec naming a file or role twice, a path escaping the spec's folder, a
 * symbolic link, an unreadable file, a malformed --rules file, a compressed
 * stream or database that cannot be read) or an I/O error. */
int bundle_run(const struct bundle_opts *o, cJSON **doc, char id[HASH_ID_LEN + 1], struct err *e);

/* A refusal (or bundle) document as a short human table, one finding (or
 * item) a line. */
int bundle_table(const cJSON *doc, struct buf *out, struct err *e);

/* Verify an archive or a bag folder without trusting it: the BagIt layer
 * (every manifest line, every payload file listed), and for a cohort bundle
 * (the Bundle-Document bag-info.txt names) every path it names inside the
 * bag, every identity, every document's own kind, each freeze against its
 * stored records, its spec and its ledgers frozen again, the live rule,
 * each derived document computed again from the input it records, and no
 * payload file left unlisted.  Checks are appended to checks ({"check",
 * "subject", "ok", "detail"}).  0 when all holds, 1 when a finding was
 * appended, -1 with e set when the input cannot be read (a truncated
 * archive, an entry named "../x", a link, items given twice) or a check
 * cannot run (out of memory). */
int bundle_verify_path(const char *path, cJSON *checks, struct err *e);

/* The same, the independent checks (each freeze against its store and
 * its ledgers, each derived document, the reviewer's page) at once on
 * jobs threads, this one among them (0: one per online processor).  The
 * checks are appended in the same order, the same bytes, on any number
 * of threads. */
int bundle_verify_jobs(const char *path, int jobs, cJSON *checks, struct err *e);

/* At most this many items in an archive's bundle document (more is an
 * input error). */
#define BUNDLE_MAX_ITEMS 4096

#endif
