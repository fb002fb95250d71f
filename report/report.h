/* report.h: one self-contained HTML page for a reviewer of a bundle: the
 * protocol tuple of every condition (model snapshot, harness, assistance,
 * opponent and limiter, openings and colours, inference budget, stopping
 * and adjudication, estimator, dates), the W-D-L, anchors, intervals and
 * saturation of each fit, the figures of the documents in the bag (SVG
 * inline), the verification of the archive check by check, the identity
 * of every item; or, for a bundle spec the gate refuses, its findings.
 * No script, no style sheet, font or image from elsewhere, no time, host
 * or path: the same bundle gives the same bytes.
 *
 * Ownership: the page is appended to the caller's buffer; nothing else is
 * kept.
 */
#ifndef COHORT_REPORT_H
#define COHORT_REPORT_H

#include "../common/buf.h"
#include "../common/err.h"

/* The page of a bundle archive (or bag folder) at path, whose name on the
 * page is its file name.  Returns 0 when the archive verified, 1 when
 * verification found something (the page says what), -1 with e set when
 * it cannot be read. */
int report_archive(const char *path, struct buf *html, struct err *e);

/* The page of the gate's answer for a bundle spec: its refusal's findings
 * (returns 1), or the items it would bundle (returns 0); -1 with e set on
 * an input error. */
int report_spec(const char *spec, struct buf *html, struct err *e);

#endif
