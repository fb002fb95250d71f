/* internal.h: what the fingerprint's files share (not for other folders). */
#ifndef COHORT_FP_INTERNAL_H
#define COHORT_FP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "../paired/collect.h"
#include "fp.h"

/* How a base feature is expanded. */
enum fp_index { FX_ONE, FX_NONZERO, FX_ALL, FX_FROM1, FX_INNER, FX_PHASE, FX_LABEL };

enum fp_base {
	FB_UNAIDED, FB_R_K, FB_DELTA_R, FB_K_STAR, FB_P_K_STAR, FB_OVERLOAD, FB_SLOPE,
	FB_CURVATURE, FB_REVERSALS, FB_AUC, FB_RECALL, FB_COVERAGE, FB_ORACLE, FB_RANK,
	FB_VALUE_LOSS, FB_OMIT, FB_ENGINE, FB_CALIBRATION, FB_ORDER, FB_REGRET_VAR, FB_ILLEGAL,
	FB_TOOL, FB_BLUNDER, FB_HISTORY, FB_FAILURE, FB_TOKENS, FB_LATENCY, FB_TOKENS_GAME,
	FB_WALL_GAME, FB_HOURS_GAME, FB_GAIN, FB_WXB, FB_RETRIES, FB_PARETO, FB_N
};

struct fp_def {
	const char *name;
	enum fp_index index;
	double step;
};

extern const struct fp_def fp_defs[FB_N];

/* One expanded feature: base, and the width index, phase or label. */
struct fp_feat {
	char name[48];
	enum fp_base base;
	int idx;
};

/* Why an estimate is null, or its bound. */
struct fp_why {
	char reason[200];
	int bound;         /* 0 none, 1 lower, 2 upper */
	double value;
};

/* Games of one unit, summed: per key (width, anchor, colour) w, d, l;
 * per width (and all games, last) games, tokens, wall seconds, hours. */
struct fp_fam {
	char *family, *replication;
	size_t in;                 /* its freeze */
	uint64_t what;             /* its streams' label */
	size_t *cells, ncells, ccells; /* cells of its freeze's paired data */
	size_t nunits, cunits, cdblock;
	char **unit;               /* unit names (owned) */
	long *dblock;              /* per unit: its block of decisions, or -1 */
	double *gk;                /* per unit: nkeys x 3 */
	double *gw;                /* per unit: (nwidths + 1) x 4 */
	size_t nkeys, ckeys;
	int *kwidth, *kblack;
	double *kanchor;
	double penalty;            /* the spec's Black penalty, Elo */
	long ndec, ngames;
	size_t npack;              /* numbers a unit's decisions pack to */
	double *pack;              /* per unit: npack (fp_pack_units) */
};

struct fp_run {
	const struct fp_opts *o;
	const struct prereg *pr;
	const struct fp_input *in;
	size_t nin;
	struct paired_data *pd;    /* per input (empty without decisions) */
	int *has_dec;
	char (*ids)[HASH_ID_LEN + 1]; /* per input: the freeze's identity */
	struct fp_fam *fam;
	size_t nfam, cfam;
	struct fp_feat *feat;
	size_t nfeat;
	long replicates;
	uint64_t seed;
	int by_position;
	size_t nwidths;
	const int *widths;
	double *est;               /* nfam x nfeat */
	struct fp_why *why;        /* nfam x nfeat */
	double *rows;              /* nfam x (r1 - r0) x nfeat */
	long r0, r1;
	long games_outside;        /* games left out: their opening not of the split */
};

/* One fingerprint's features from multiplicities m of its units (all 1
 * for the estimate); why (may be NULL) gets the reasons of NaN values. */
int fp_values(const struct fp_run *r, size_t f, const uint32_t *m, double *v, struct fp_why *why,
    struct err *e);

/* Pack each unit's decision sums (after the units are known). */
int fp_pack_units(const struct fp_run *r, struct fp_fam *f, struct err *e);

/* Replicates [r0, r1) into r->rows. */
int fp_run_replicate(struct fp_run *r, long r0, long r1, struct err *e);

/* x rounded to 6 significant digits. */
double fp_round_sig(double x);

#endif
