/* kinds.h: each kind of figure, drawn by its own file (plot/'s own;
 * plot_svg in plot.c is the entry point). */
#ifndef COHORT_PLOT_KINDS_H
#define COHORT_PLOT_KINDS_H

#include "plot.h"

int plot_curve(const struct plot_doc *docs, size_t n, const struct plot_opts *o,
    struct buf *out, struct err *e);
int plot_ladder(const struct plot_doc *doc, const struct plot_opts *o, struct buf *out,
    struct err *e);
int plot_sensitivity(const struct plot_doc *doc, const struct plot_opts *o, struct buf *out,
    struct err *e);
int plot_paired(const struct plot_doc *doc, const struct plot_opts *o, struct buf *out,
    struct err *e);
int plot_distance(const struct plot_doc *doc, const struct plot_opts *o, struct buf *out,
    struct err *e);

#endif
