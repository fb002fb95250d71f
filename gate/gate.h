/* gate.h: the first seed's analysis gates (cohort.gate/1).  A gate reads
 * the documents its criteria rest on and gives each criterion a verdict:
 * pass, fail, or insufficient when the evidence is missing (never pass).
 *
 *   A  freezes, reconciliations, fits: every variant terminal, provider
 *      errors excluded and reported, reconciled, saturated conditions
 *      bounded;
 *   B  paired documents and the candidate manifest's verify report:
 *      candidates cached and nested, the same paired cells for every
 *      family, order, colour, phase and stratum effects estimated, value
 *      gaps and coverage reported;
 *   C  fingerprints and distances: test-retest replication, between
 *      exceeding within, the registered held-out prediction beating its
 *      baseline;
 *   D  fingerprints: the registered architectural and intervention
 *      predictions on the heldout split.
 *
 * docs/cohort-gate.1 gives every rule.  The document is a function of the
 * gate, the prereg and the evidence (in any order), so verify computes it
 * again from the documents it names.
 *
 * Ownership: documents handed in are borrowed; the document returned
 * through cJSON ** is the caller's.
 */
#ifndef COHORT_GATE_H
#define COHORT_GATE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"

struct prereg;

/* 1 when c names a gate (A, B, C or D). */
int gate_known(char c);

/* The cohort.gate/1 of gate g over docs[0..n) (names for messages), with
 * the prereg p (or NULL).  A document that is not evidence for g, or is
 * given twice, is an input error. */
int gate_document(char g, const struct prereg *p, const cJSON *const *docs,
    const char *const *names, size_t n, cJSON **out, struct err *e);

/* 1 when doc's verdict is pass, 0 when it is not (and -1 with e set when
 * doc is not a cohort.gate/1); *g gets its gate. */
int gate_passes(const cJSON *doc, char *g, struct err *e);

/* "gate A: pass", or "gate A: fail (A2 fail, A3 insufficient)": the
 * verdict and every criterion that did not pass, into out. */
void gate_summary(const cJSON *doc, char *out, size_t cap);

/* A human table of a cohort.gate/1 document, appended to out: the gate
 * and its verdict, then each criterion (id, verdict, text), its detail and
 * its evidence (kind and the first 12 hex digits of each identity, as the
 * inputs list them), the deviations and, for gate D, the text
 * predictions.  0, or -1 with e set (out of memory). */
int gate_table(const cJSON *doc, struct buf *out, struct err *e);

/* The identities a gate document rests on: its inputs, then its prereg
 * (when it has one).  Borrowed from doc; *n of them.  -1 with e set when
 * doc is not a gate. */
int gate_inputs(const cJSON *doc, const char **ids, size_t cap, size_t *n, struct err *e);

/* Compute doc again from docs[0..n) (the documents it names, the prereg
 * among them, in any order); *same is 1 when the bytes are doc's. */
int gate_refit_check(const cJSON *doc, const cJSON *const *docs, size_t n, const char *name,
    int *same, struct err *e);

#endif
