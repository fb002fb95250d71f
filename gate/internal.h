/* internal.h: what the files of the gate share: the evidence, one
 * criterion's verdict as it is built, and the criteria of each gate. */
#ifndef COHORT_GATE_INTERNAL_H
#define COHORT_GATE_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/err.h"
#include "../common/hash.h"

struct prereg;

struct gate_in {
	const cJSON *doc;
	const char *kind;
	const char *name;
	char id[HASH_ID_LEN + 1];
	char label[48];     /* "fit 03dd2fabac24": kind and identity, for details
	                     * (a file's name would make the document depend
	                     * on where it lay) */
};

struct gate_ctx {
	char gate;
	const struct prereg *p;
	struct gate_in *in; /* sorted by kind, then identity */
	size_t n;
	cJSON *criteria;
	struct err *e;
};

/* One criterion as it is judged: any fail makes it fail, else any gap
 * makes it insufficient, else it passes (when anything was checked). */
struct verdict {
	int fail, gap, checked;
	char detail[900];
	size_t len;
	cJSON *evidence; /* identities, in the order met, each once */
};

/* Add a note to v's detail (notes are joined with "; "). */
void verdict_note(struct verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same, marking v failed or short of evidence. */
void verdict_fail(struct verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void verdict_gap(struct verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Record an identity among the evidence. */
void verdict_evidence(struct verdict *v, const char *id);
/* Append the criterion {id, text, verdict, evidence, detail} to g and
 * release v's evidence.  0, or -1 out of memory. */
int verdict_add(struct gate_ctx *g, const char *id, const char *text, struct verdict *v);

/* The evidence of one kind: the i-th after *i (start at 0), or NULL. */
const struct gate_in *gate_next(const struct gate_ctx *g, const char *kind, size_t *i);

/* The criteria of each gate, added to g->criteria in order. */
int gate_a(struct gate_ctx *g);
int gate_b(struct gate_ctx *g);
int gate_c(struct gate_ctx *g);
int gate_d(struct gate_ctx *g);

/* A number as the documents write it, for details. */
void gate_num(double x, char out[32]);

#endif
