/* report.h: one self-contained HTML page of a bundle for a reviewer: the
 * protocol tuple of every condition (model snapshot, harness, assistance,
 * opponent and limiter, openings and colours, inference budget, stopping
 * and adjudication, estimator, dates), the W-D-L, anchors, intervals and
 * saturation of each fit, the figures of the documents (SVG inline), the
 * identity of every item and, for an archive a reviewer holds, its
 * verification check by check; or the gate's findings for a refused spec.
 * No script, no style sheet, font or image from elsewhere, no time, host
 * or path: the same bundle gives the same bytes.
 *
 * The page without an archive's verification is a pure function of
 * bundle.json and the files it names: the gate writes it into the bag as
 * data/report.html, and verifying the bag derives it again.
 *
 * Ownership: pages are appended to the caller's buffer; everything passed
 * in is borrowed.
 */
#ifndef COHORT_REPORT_H
#define COHORT_REPORT_H

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"

/* The page's name inside a bag's data/ (and the field of bundle.json that
 * names it). */
#define REPORT_PAGE "report.html"

/* What a reviewer's page says of the archive itself. */
struct report_archive {
	const char *name;     /* its file name */
	const char *id;       /* its identity, or NULL (a bag folder has none) */
	const cJSON *verify;  /* its cohort.verify/1 report */
	int held;             /* 0 when it verified */
};

/* The page of the cohort.bundle/1 document bundle, whose items' paths
 * (and stores) are relative to data_dir; a (or NULL: the page the bag
 * holds) adds the archive's identity and verification.  A document that
 * cannot be read is listed without its figures.  0, or -1 with e set when
 * out of memory. */
int report_bundle(const cJSON *bundle, const char *data_dir, const struct report_archive *a,
    struct buf *html, struct err *e);

/* report_bundle with documents already read: doc(ctx, path) gives the
 * tree of bundle.json's item at path (path as bundle.json writes it),
 * read by the strict reader from its file's bytes as report_bundle would
 * read them, and borrowed until the page is written; or NULL, and the
 * file is read here.  A freeze's tree may leave its "games" array empty
 * and *games (else left NULL) hold them flat, borrowed the same way.  The
 * same page. */
struct freeze_games;
typedef const cJSON *report_doc_fn(void *ctx, const char *path, const struct freeze_games **games);
int report_bundle_docs(const cJSON *bundle, const char *data_dir, const struct report_archive *a,
    report_doc_fn *doc, void *ctx, struct buf *html, struct err *e);

/* The page of the gate's answer for a bundle spec named spec_name: a
 * cohort.refusal/1's findings, or the items a cohort.bundle/1 would hold.
 * 0, or -1 with e set when out of memory. */
int report_gate(const cJSON *doc, const char *spec_name, struct buf *html, struct err *e);

#endif
