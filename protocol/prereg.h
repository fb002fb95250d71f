/* prereg.h: the preregistration (cohort.prereg/1), read once for every
 * command that is governed by one (prereg, freeze, fingerprint, distance,
 * gate), and the one registry of fingerprint feature names.
 *
 * The reader is strict on what it interprets: an unknown feature name
 * (refused with the nearest known one and the list of them), widths that
 * are not distinct whole numbers in increasing order, a duplicate key, a
 * malformed time or identity is an input error that names the file, the
 * line and the field:
 *   prereg.json:7: "features": 2: unknown feature "delta_rr" (nearest:
 *   delta_r; known: unaided, r_k, ...)
 * A field it does not interpret (a harness's "families", "harness",
 * "decisions_expected") is kept: hashed with the document, listed among
 * its notes, never used.  A prediction that is a string is registered as
 * text: no gate checks it by machine, and gate D lists it.
 * cohort-prereg(1) lists every field and its rule.
 *
 * Ownership: struct prereg owns its document (doc) and its arrays; every
 * string and the predictions array point into doc and live until
 * prereg_release.
 */
#ifndef COHORT_PREREG_H
#define COHORT_PREREG_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"
#include "../common/ts.h"

#define PREREG_MAX_WIDTH 64 /* a width past the decision log's shown moves */

struct prereg_split {
	char *name; /* explore, confirm or heldout */
	long n;     /* positions allocated to it */
};

struct prereg {
	char id[72];            /* "sha256:" + hex of the canonical bytes of the document */
	char *name;
	char *registered_at;    /* as written */
	int64_t registered_ms;  /* ms since the epoch */
	struct ts registered;   /* the same instant, to the nanosecond */
	char *candidates;       /* the manifest as named: "sha256:<hex>" or "<hex>" */
	char candidates_id[72]; /* the same as "sha256:<hex>", for comparisons */
	int *widths;            /* increasing; 0 = unaided */
	size_t nwidths;
	struct prereg_split *splits; /* in the document's key order */
	size_t nsplits;
	long order_seeds;
	char **budgets;
	size_t nbudgets;
	char **exclusions;      /* freeze exclusion reasons */
	size_t nexclusions;
	char **features;        /* base names from the registry */
	size_t nfeatures;
	double lambda;
	char *population;       /* "panel" or "none" */
	long replicates;
	char *unit;             /* "opening" or "position" */
	uint64_t seed;
	double blunder_cp;
	cJSON *predictions;     /* the document's array (see cohort-prereg(1)); a
	                         * string in it is a text prediction */
	size_t ntext;           /* text predictions */
	char **notes;           /* fields kept and not interpreted, each as its
	                         * path (`"families"`, `"allocation": "per_family"`) */
	size_t nnotes;
	cJSON *doc;             /* the whole parsed document */
};

#define PREREG_INIT { 0 }

/* Read the file at path ("-": standard input) as a cohort.prereg/1.
 * Errors name path, the line and the field; out is left released. */
int prereg_read(const char *path, struct prereg *out, struct err *e);
/* The same for a tree already parsed (copied; doc stays the caller's);
 * errors name `name` and the field, without a line. */
int prereg_parse(const cJSON *doc, const char *name, struct prereg *out, struct err *e);
void prereg_release(struct prereg *p);

/* The check `cohort prereg` prints: {"kind": "cohort.prereg.check/1",
 * "prereg": identity, "name", "registered_at", "candidates", "notes" (each
 * field kept and not interpreted), "predictions" (each one's id, or its
 * index for a text one, its kind, and the gate that checks it or null)}.
 * NULL with e set when out of memory; the caller owns the tree. */
cJSON *prereg_check_doc(const struct prereg *p, struct err *e);

/* How p names the candidate manifest whose identity (the SHA-256 of its
 * canonical lines) is id and whose file's own SHA-256 is file_id (NULL
 * when the file is the canonical bytes): "identity", "file" (what
 * sha256sum prints of the file, where it differs from the identity), or
 * NULL when it names neither.  The one rule for every command that
 * compares a prereg with a manifest. */
const char *prereg_names_manifest(const struct prereg *p, const char *id, const char *file_id);

/* The text of a prediction of p's list, NULL when it is an object. */
const char *prereg_prediction_text(const cJSON *pred);

/* A human table of a cohort.prereg.check/1 document (prereg_check_doc),
 * appended to out: the name, identity, time and manifest, each prediction
 * with its kind and the gate that checks it (text ones: none), and the
 * fields kept but not interpreted.  0, or -1 with e set. */
int prereg_check_table(const cJSON *check, struct buf *out, struct err *e);

/* 1 when p registers the base feature name (e.g. "delta_r"), or the
 * exclusion reason, else 0. */
int prereg_has_feature(const struct prereg *p, const char *name);
int prereg_excludes(const struct prereg *p, const char *reason);
/* The split's registered size, or -1 when it has none. */
long prereg_split_size(const struct prereg *p, const char *split);

/* The feature registry: the first seed's four layers. */
enum prereg_layer { PL_STRENGTH, PL_PROPOSAL, PL_STABILITY, PL_COMPUTE };
/* What the index of an expanded name (`delta_r[5]`) may be. */
enum prereg_index { PI_ANY, PI_WIDTH, PI_PHASE, PI_LABEL };
struct prereg_feature {
	const char *name;
	enum prereg_layer layer;
	enum prereg_index index;
};
/* The registry, in its one order (the layers' order, then the seed's). */
const struct prereg_feature *prereg_features(size_t *n);
/* The entry of a base name, or NULL. */
const struct prereg_feature *prereg_feature(const char *name);
/* 1 when name is a base name or a base name with an index of the right
 * kind (`delta_r[5]`, `blunder_hazard[endgame]`, `failure_labels[tactic]`);
 * when base is not NULL, the base name's entry goes there. */
int prereg_feature_name_ok(const char *name, const struct prereg_feature **base);

/* A deviation: a setting of an analysis that differs from the prereg. */
struct prereg_dev {
	const char *setting; /* "widths", "candidates", "registered_at", ... */
	char *registered, *used;
};

/* Append to doc a "deviations" array of {setting, registered, used}, one
 * per entry of d[0..n) in that order (an empty array when n is 0).  The
 * strings are copied.  0, or -1 with e set (out of memory). */
int prereg_deviations_add(cJSON *doc, const struct prereg_dev *d, size_t n, struct err *e);

#endif
