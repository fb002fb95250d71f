/* collect.h: a freeze's decisions summed per cell and opening, the one
 * reading of decisions that cohort.paired/1 and the fingerprint share.
 *
 * A cell is (family, replication, condition, budget).  Every figure the
 * two report is a ratio of sums that add over openings (struct
 * paired_sums), so a block bootstrap resamples openings and adds their
 * sums; only the median needs the regrets themselves (kept per cell).
 * The order statistics are per position, and a position lies in one
 * opening, so they add over openings too.
 *
 * Ownership: struct paired_data owns everything it holds (paired_data_
 * release); names point into its own copies or its candidate manifest.
 */
#ifndef COHORT_PAIRED_COLLECT_H
#define COHORT_PAIRED_COLLECT_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "../common/err.h"
#include "../common/hash.h"
#include "../protocol/candidates.h"
#include "../protocol/decision.h"
#include "../protocol/spec.h"

/* What adds over openings. */
struct paired_sums {
	double n;                   /* decisions */
	double recall;              /* ... that chose the best candidate */
	double ncov, cov;           /* with a shortlist; the best in it */
	double nreg, reg;           /* exact regrets, their sum */
	double nomate, reg_nomate;  /* ... neither value a mate score */
	double nbound;              /* regrets that are lower bounds */
	double nrank, rank;         /* chosen moves among the candidates, their ranks */
	double outside;             /* chosen moves outside them */
	double nvl, vl;             /* value losses against the best shown */
	double status[3];           /* ok, illegal, tool_error */
	double failures[DF_N];
	double tok, lat, retries;   /* sums per decision */
	double ctok;                /* completion tokens: output + reasoning */
	double ctx_n[2], ctx_reg[2];/* exact regrets by context: fresh, history */
	double blunder_n[3], blunder_k[3]; /* by phase */
	double pairs, differ;       /* order-seed pairs, those whose moves differ */
	double var, nvar;           /* regret variance across seeds, positions with two */
	double groups;              /* positions seen under two order seeds or more */
};

struct paired_cell {
	char *key;                  /* family NUL replication NUL condition NUL budget */
	size_t keylen;              /* key's bytes, the last NUL included */
	int fam;                    /* the spec's index */
	const char *rep, *cond, *budget; /* into key; budget NULL when none */
	struct decision_cond dc;
	struct paired_sums *by_open; /* per opening of the manifest */
	double *regrets;            /* the exact ones, for the median */
	size_t nregrets, cregrets;
	struct paired_ord *ord;     /* (private to collect.c) */
	size_t nord, cord;
	size_t first;               /* its number as first met: the bootstrap's stream */
};

struct paired_data {
	struct spec sp;
	struct candidates cand;
	size_t nopen;
	const char **open;          /* the blocks: the manifest's openings, as first met
	                             * (or its positions, when collected by position) */
	size_t *open_of;            /* per position of the manifest: its block */
	struct paired_cell *cells;  /* as first met in the freeze's decision order */
	size_t ncells, ccells;
	int only;                   /* 1 + the cand_split whose decisions are kept; 0 all */
};

#define PAIRED_DATA_INIT { SPEC_INIT, CANDIDATES_INIT, 0, NULL, NULL, NULL, 0, 0, 0 }

/* Read freeze's spec, candidate manifest and every included decision from
 * the store at store_dir (name: the freeze's name in messages). */
int paired_collect(const cJSON *freeze, const char *store_dir, const char *name,
    double blunder_cp, struct paired_data *out, struct err *e);
/* The same with each position its own block (by_position 1), for a
 * bootstrap whose unit is the position; by_position 0 is paired_collect. */
int paired_collect_by(const cJSON *freeze, const char *store_dir, const char *name,
    double blunder_cp, int by_position, struct paired_data *out, struct err *e);
/* The same on jobs threads (0: one per processor); the sums are the same
 * on any number. */
int paired_collect_jobs(const cJSON *freeze, const char *store_dir, const char *name,
    double blunder_cp, int by_position, int jobs, struct paired_data *out, struct err *e);
/* The same keeping only the decisions on positions of one split (split:
 * a cand_split, or -1 for every split). */
int paired_collect_split(const cJSON *freeze, const char *store_dir, const char *name,
    double blunder_cp, int by_position, int jobs, int split, struct paired_data *out,
    struct err *e);
/* The identities of a freeze's included decisions, in order, read
 * without their tree (paired_freeze_read). */
struct paired_ids {
	uint8_t (*d)[HASH_LEN];
	size_t n, cap;
};
#define PAIRED_IDS_INIT { NULL, 0, 0 }
void paired_ids_release(struct paired_ids *ids);
/* The freeze file at path ("-": standard input) read for paired: its tree
 * without the elements of decisions.included, their identities into ids,
 * and the whole document's identity into id (computed beside the parse
 * unless jobs is 1).  A million decisions' entries are a gigabyte as a
 * tree, and paired needs only their identities.  NULL with e set. */
cJSON *paired_freeze_read(const char *path, struct paired_ids *ids, char id[HASH_ID_LEN + 1],
    int jobs, struct err *e);
/* paired_collect_split for a tree paired_freeze_read gave, with its ids. */
int paired_collect_ids(const cJSON *freeze, const struct paired_ids *ids, const char *store_dir,
    const char *name, double blunder_cp, int by_position, int jobs, int split,
    struct paired_data *out, struct err *e);
void paired_data_release(struct paired_data *d);

/* t += s. */
void paired_sums_add(struct paired_sums *t, const struct paired_sums *s);
/* A cell's sums over all its openings. */
void paired_cell_total(const struct paired_data *d, const struct paired_cell *c,
    struct paired_sums *t);

/* The levels of the effects of cohort.paired/1 (effects.c): side to
 * move, phase, the position's kind (its stratum), then each order seed
 * of the cell, ascending (of the positions and contexts shown under two
 * seeds or more). */
enum { PL_WHITE, PL_BLACK, PL_PHASE, PL_KIND = PL_PHASE + 3, PL_SEED = PL_KIND + 3 };

/* A level's decisions: all, those choosing the best candidate, those with
 * an exact regret and its sum. */
struct paired_level {
	double n, recall, nreg, reg;
};

struct paired_levels {
	long long *seeds;           /* the cell's order seeds, ascending */
	size_t nseeds, nlevels;     /* nlevels: PL_SEED + nseeds */
	struct paired_level *by_open; /* per opening, nlevels each */
};

/* The level sums of cell c per opening (after paired_collect, which
 * sorts its decisions by position, context and seed); the order's levels
 * hold only the positions and contexts shown under two seeds or more.
 * -1 out of memory.  Release with paired_levels_release. */
int paired_cell_levels(const struct paired_data *d, const struct paired_cell *c,
    struct paired_levels *out);
void paired_levels_release(struct paired_levels *l);

/* The q-quantile of sorted v[0..n) by linear interpolation between order
 * statistics (type 7), and the comparison that sorts v. */
double paired_quantile(const double *v, size_t n, double q);
int paired_cmp_double(const void *a, const void *b);

/* Ratios, NAN where the denominator is 0. */
double paired_ratio(double num, double den);

#endif
