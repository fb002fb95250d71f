/* plot.h: deterministic SVG figures of cohort's documents, read as JSON
 * trees: the candidate curve and the colour sensitivity of fits
 * (cohort.fit/1), the ladder paths of a freeze (cohort.freeze/1), the
 * paired k curves (cohort.paired/1) and the distance heat map
 * (cohort.distance/1).  Every number is printed by svg.h's fixed-point
 * formatter; no time, path, host or random id goes into a figure, so the
 * same documents give the same bytes anywhere.
 *
 * Ownership: documents and names are borrowed; the figure is appended to
 * the caller's buffer.
 */
#ifndef COHORT_PLOT_H
#define COHORT_PLOT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"

enum plot_kind { PLOT_CURVE, PLOT_LADDER, PLOT_SENSITIVITY, PLOT_PAIRED, PLOT_DISTANCE };

/* The kind named s ("curve", "ladder", "sensitivity", "paired",
 * "distance"); 0, or -1 for another name. */
int plot_kind_parse(const char *s, enum plot_kind *k);
const char *plot_kind_name(enum plot_kind k);
/* The document kind a plot reads ("cohort.fit/1", ...). */
const char *plot_kind_input(enum plot_kind k);
/* How many documents a plot takes: at most 1, or any number (curve). */
int plot_kind_many(enum plot_kind k);

struct plot_doc {
	const cJSON *doc; /* the document */
	const char *name;  /* its name in messages */
	const char *label; /* a series' label when nothing in the document
	                      names the series (a file's name without folder
	                      or ".json"), never a path: figures hold none */
};

struct plot_opts {
	int inline_html; /* for an HTML page: no XML declaration or namespace */
};

/* Draw the figure of kind k from docs[0..n) and append its SVG to out.
 * An input error (a document of another kind, a field missing or of the
 * wrong type, nothing to draw) names the document and the field. */
int plot_svg(enum plot_kind k, const struct plot_doc *docs, size_t n, const struct plot_opts *o,
    struct buf *out, struct err *e);

/* The candidate width a condition name gives: "none" 0, "top<k>" k (1 to
 * 999, no leading zero); -1 for any other name (top3-omit-best, propose,
 * ...), which the width plots leave out and name in their caption. */
int plot_width(const char *condition);

#endif
