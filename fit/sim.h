/* sim.h: the provider-free ladder audit (`cohort ladder simulate`) and the
 * small single-condition Davidson solver it runs 100,000s of times.
 *
 * The solver fits ONE condition's blocks: its rating and the draw parameter
 * nu, with anchors and the color correction known.  Parameters are in
 * natural-log strength units: s = rating / BOUND_ELO_PER_NAT, t = ln nu.  A
 * block with offset b = (anchor + correction) / BOUND_ELO_PER_NAT has
 * u = s - b and
 *   P(win) = e^u / D,  P(draw) = e^(t + u/2) / D,  P(loss) = 1 / D,
 *   D = e^u + 1 + e^(t + u/2)
 * (x = e^u, nu = e^t: the Davidson model).  The log-likelihood is concave
 * in (s, t) (an exponential family with statistics w + d/2 and d), so
 * Newton's method with step halving converges from any start.  The solver
 * allocates nothing.
 *
 * Ownership: the document sim_run returns belongs to the caller
 * (cJSON_Delete); options are borrowed.
 */
#ifndef COHORT_SIM_H
#define COHORT_SIM_H

#include <stddef.h>

#include <cjson/cJSON.h>
#include <gsl/gsl_rng.h>

#include "../common/buf.h"
#include "../common/err.h"
#include "../protocol/ladder.h"
#include "../protocol/part.h"

/* One block as the solver sees it. */
struct sim_obs {
	double b; /* (anchor + correction) / BOUND_ELO_PER_NAT */
	int w, d, l;
};

/* ln nu is kept inside [-SIM_T_LIM, SIM_T_LIM] while there are draws; with
 * no draw at all the maximum sits on the boundary nu = 0, and t is -inf
 * (the Bradley-Terry model, as cohort fit takes it). */
#define SIM_T_LIM 40.0

struct sim_fit {
	int defined; /* 1: a finite maximum-likelihood rating exists */
	int side;    /* undefined: +1 the rating runs to +inf (no loss), -1 to -inf (no win) */
	double s;    /* rating in log units (defined only) */
	double t;    /* ln nu at the maximum (defined only; -inf with no draw) */
	double ll;   /* maximum (or supremum) of the log-likelihood */
	int iters;   /* Newton iterations */
};

/* Log-likelihood at (s, t), with its gradient and Hessian when g, h are
 * not NULL (h = {d2/ds2, d2/dsdt, d2/dt2}). */
double sim_loglik(const struct sim_obs *o, size_t n, double s, double t, double g[2], double h[3]);

/* Maximum likelihood for rating and nu.  Returns -1 if Newton fails to
 * reach max |gradient| <= 1e-9 (does not happen on concave data). */
int sim_fit_joint(const struct sim_obs *o, size_t n, struct sim_fit *f);

/* Maximum likelihood for the rating alone with nu fixed (t = ln nu). */
int sim_fit_fixed(const struct sim_obs *o, size_t n, double t, double *s);

/* The profile log-likelihood max_t l(s, t); *t is the starting guess on
 * entry and the maximiser on return; *d1, *d2 (may be NULL) its first and
 * second derivatives in s. */
double sim_profile(const struct sim_obs *o, size_t n, double s, double *t, double *d1, double *d2);

/* Profile-likelihood interval at level (chi-square, 1 df) in log units:
 * both ends when f is defined; when not, the open end is -inf or +inf and
 * the other end is the one-sided bound where the profile falls q/2 below
 * its supremum. */
int sim_profile_interval(const struct sim_obs *o, size_t n, const struct sim_fit *f, double level,
                         double *lo, double *hi);

#define SIM_MAX_BLOCKS 1024 /* longest ladder a policy may run */

/* One ladder of policy p for a player of true rating truth (Elo) starting
 * at start: each block's block_games games drawn from the Davidson model
 * with draw parameter nu and colour correction corr (P(win) = x / D,
 * x = 10^((truth - corr - anchor) / 400)), one uniform of r per game, the
 * transitions of ladder_step.  The blocks go to blk (room for
 * SIM_MAX_BLOCKS); returns how many. */
size_t sim_ladder_play(const struct ladder_policy *p, double corr, double nu, double start,
    double truth, gsl_rng *r, struct ladder_block *blk);

struct sim_options {
	const char *spec_path; /* cohort.spec/1 */
	double lo, hi, step;   /* true ratings: lo, lo + step, ... <= hi */
	const double *starts;  /* starting anchors */
	size_t nstarts;
	long reps; /* ladders per start and truth */
	unsigned long long seed;
	double nu;             /* true draw parameter */
	double level;          /* profile interval level (coverage) */
	int jobs;              /* threads; 0 = online cores */
	const char *ledger;    /* --emit-ledger FILE or NULL */
	const char *requests;  /* --emit-requests FILE: the request log */
	const char *billing;   /* --emit-billing FILE: a billing export (CSV) */
	const char *emit_spec; /* --emit-spec FILE or NULL */
	struct part_shard shard; /* --shard I/N; n == 0: the whole run */
};

/* `cohort ladder simulate`: run the audit and return its
 * cohort.ladder-audit/1 document in *out.  When asked, the simulated
 * ledger, its spec, request log and billing export are written here, each
 * atomically to its file: a ledger runs to millions of games, streamed to
 * its file a game at a time, which handing it back to the caller would
 * have to hold in memory whole.  They are named files, never standard
 * output (the shell refuses "-"), so sim_run prints nothing. */
int sim_run(const struct sim_options *o, cJSON **out, struct err *e);

/* With o->shard set, sim_run returns shard I's cohort.part/1 instead: the
 * settings (the spec document and every option but --jobs) and the sums
 * of its slice of the run's work units (a chunk of at most 250+ ladders of
 * one cell each, numbered start by start, truth by truth, chunk by
 * chunk).  The emit options cannot go with it.  sim_part_total and
 * sim_part_merge are the ladder audit's entry in `cohort merge`'s table:
 * the audit they build from every unit is the one sim_run gives, byte for
 * byte, since each cell's chunks are summed in the same order. */
long sim_part_total(const cJSON *settings, const char *name, struct err *e);
int sim_part_merge(const cJSON *settings, const cJSON *const *units, const char *const *names,
    size_t total, cJSON **out, struct err *e);

/* Append the audit as a table (a line per cell, then a line per start) to
 * out. */
int sim_table(const cJSON *doc, struct buf *out, struct err *e);

#endif
