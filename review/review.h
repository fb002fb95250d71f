/* review.h: a reviewer's verify of anything cohort writes: freezes against
 * their stores, derived documents against their inputs, bundle archives and
 * bag folders.  The cohort.verify/1 report lists every check.
 *
 * Ownership: the report returned belongs to the caller (cJSON_Delete);
 * everything passed in is borrowed.
 */
#ifndef COHORT_REVIEW_H
#define COHORT_REVIEW_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"

struct review_opts {
	const char **files;    /* documents, bundle archives or bag folders; "-" is
	                          a document on standard input (once at most) */
	size_t nfiles;
	const char *store_dir; /* store of the freezes; NULL: "store" beside each */
	int jobs;              /* threads checking a freeze; 0: one per online processor */
};

/* Verify every file and build a cohort.verify/1 report.  A derived
 * document is computed again from the input it names, which must be among
 * the files.  0 when every check holds, 1 when any finding was recorded,
 * -1 with e set when an input cannot be read. */
int review_files(const struct review_opts *o, cJSON **report, struct err *e);

/* A plain-text rendering of a report, one line a check. */
int review_table(const cJSON *report, struct buf *out);

/* The reviewer's page (report.h) of a bundle archive or bag folder, its
 * verification check by check included.  0 when it verified, 1 when it did
 * not (the page says why), -1 with e set when it cannot be read. */
int review_page_archive(const char *path, struct buf *html, struct err *e);

/* The page of the gate's answer for a bundle spec (with more credential
 * rules, or NULL): 1 and its refusal's findings, or 0 and the items it
 * would bundle; -1 with e set on an input error, and when out (where the
 * page goes, or NULL) is one of the bundle's files (io_output_check). */
int review_page_spec(const char *spec, const char *rules, const char *out, struct buf *html,
    struct err *e);

#endif
