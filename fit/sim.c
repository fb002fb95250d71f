/* sim.c: the single-condition Davidson solver and the ladder audit: W-D-L
 * blocks drawn from the model at known ratings, the exact ladder
 * transitions of protocol/ladder.h, three estimators, and their errors. */
#include "sim.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "../common/io.h"
#include "../common/pool.h"
#include "../json/json.h"
#include "bound.h"
#include "../protocol/ladder.h"
#include "../protocol/spec.h"

#define E_NAT BOUND_ELO_PER_NAT
#define SIM_MAX_VISITS 64        /* distinct anchors tallied per cell */
#define SIM_CHUNK 250            /* least replicates per work unit */
#define SIM_MAX_CHUNKS 64        /* most work units per cell */
#define SIM_MAX_CELLS 10000      /* starts x truths */
#define SIM_MAX_BLOCK_GAMES 1000 /* games per simulated block */

/* ---- the solver ---------------------------------------------------- */

double
sim_loglik(const struct sim_obs *o, size_t n, double s, double t, double g[2], double h[3])
{
	double ll = 0;

	if (g)
		g[0] = g[1] = 0;
	if (h)
		h[0] = h[1] = h[2] = 0;
	for (size_t i = 0; i < n; i++) {
		double u = s - o[i].b, a2 = t + u / 2, m = fmax(fmax(u, 0), a2);
		double ew = exp(u - m), el = exp(-m), ed = exp(a2 - m), dd = ew + el + ed;
		double pw = ew / dd, pd = ed / dd, nn = (double)o[i].w + o[i].d + o[i].l;
		double sc = pw + pd / 2;

		ll += o[i].w * u + (o[i].d ? o[i].d * a2 : 0) - nn * (m + log(dd)); /* t = -inf: no draw */
		if (g) {
			g[0] += o[i].w + 0.5 * o[i].d - nn * sc;
			g[1] += o[i].d - nn * pd;
		}
		if (h) {
			h[0] -= nn * (pw + pd / 4 - sc * sc);
			h[1] -= nn * (pd / 2 - sc * pd);
			h[2] -= nn * (pd - pd * pd);
		}
	}
	return ll;
}

static void
totals(const struct sim_obs *o, size_t n, double *w, double *d, double *l, double *bbar)
{
	double sb = 0;

	*w = *d = *l = 0;
	for (size_t i = 0; i < n; i++) {
		double nn = (double)o[i].w + o[i].d + o[i].l;
		*w += o[i].w, *d += o[i].d, *l += o[i].l;
		sb += nn * o[i].b;
	}
	*bbar = *w + *d + *l > 0 ? sb / (*w + *d + *l) : 0;
}

static double
clampd(double x, double lo, double hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

int
sim_fit_fixed(const struct sim_obs *o, size_t n, double t, double *s)
{
	double w, d, l, bbar, g[2], h[3], sc;

	totals(o, n, &w, &d, &l, &bbar);
	sc = (w + d / 2) / (w + d + l);
	if (w + d == 0 || l + d == 0)
		return -1;
	*s = bbar + log(sc / (1 - sc));
	if (!isfinite(*s))
		*s = bbar;
	for (int it = 0; it < 200; it++) {
		double ll = sim_loglik(o, n, *s, t, g, h), step, lam = 1;
		if (fabs(g[0]) <= 1e-9)
			return 0;
		step = clampd(-g[0] / h[0], -5, 5);
		while (lam > 1e-12 && sim_loglik(o, n, *s + lam * step, t, NULL, NULL) < ll - 1e-10)
			lam /= 2;
		*s += lam * step;
	}
	return -1;
}

int
sim_fit_joint(const struct sim_obs *o, size_t n, struct sim_fit *f)
{
	double w, d, l, bbar, g[2], h[3], sc, ds;

	memset(f, 0, sizeof *f);
	totals(o, n, &w, &d, &l, &bbar);
	if (w == 0 || l == 0) {
		double t = 0, far;
		f->side = w == 0 && l == 0 ? 0 : w == 0 ? -1 : 1;
		f->s = bbar;
		if (f->side == 0) {
			f->ll = 0;
			return 0;
		}
		far = bbar + f->side * 60;
		for (size_t i = 0; i < n; i++)
			far = f->side < 0 ? fmin(far, o[i].b - 30) : fmax(far, o[i].b + 30);
		f->ll = sim_profile(o, n, far, &t, NULL, NULL);
		return 0;
	}
	f->defined = 1;
	sc = (w + d / 2) / (w + d + l);
	f->s = bbar + log(sc / (1 - sc));
	if (d == 0) {
		f->t = -INFINITY; /* nu = 0, the boundary maximum: Bradley-Terry */
		if (sim_fit_fixed(o, n, f->t, &f->s) < 0)
			return -1;
		f->ll = sim_loglik(o, n, f->s, f->t, NULL, NULL);
		return 0;
	}
	ds = d / (w + d + l);
	f->t = log(2 * ds / (1 - ds));
	for (f->iters = 0; f->iters < 200; f->iters++) {
		double ll = sim_loglik(o, n, f->s, f->t, g, h), det, da, db, lam = 1, big;
		if (fmax(fabs(g[0]), fabs(g[1])) <= 1e-9) {
			f->ll = ll;
			return 0;
		}
		det = h[0] * h[2] - h[1] * h[1];
		if (det > 0 && h[0] < 0) {
			da = -(h[2] * g[0] - h[1] * g[1]) / det;
			db = -(-h[1] * g[0] + h[0] * g[1]) / det;
		} else { /* numerically flat: a scaled gradient step instead */
			da = g[0] / (fabs(h[0]) + 1);
			db = g[1] / (fabs(h[2]) + 1);
		}
		big = fmax(fabs(da), fabs(db));
		if (big > 5)
			da *= 5 / big, db *= 5 / big;
		while (lam > 1e-12 && sim_loglik(o, n, f->s + lam * da,
		                                 clampd(f->t + lam * db, -SIM_T_LIM, SIM_T_LIM),
		                                 NULL, NULL) < ll - 1e-10)
			lam /= 2;
		f->s += lam * da;
		f->t = clampd(f->t + lam * db, -SIM_T_LIM, SIM_T_LIM);
	}
	return -1;
}

double
sim_profile(const struct sim_obs *o, size_t n, double s, double *t, double *d1, double *d2)
{
	double g[2], h[3], ll, draws = 0;

	for (size_t i = 0; i < n; i++)
		draws += o[i].d;
	if (draws == 0) {
		*t = -INFINITY;
	} else {
		*t = clampd(*t, -SIM_T_LIM, SIM_T_LIM);
		for (int it = 0; it < 100; it++) {
			double step, lam = 1, nt;
			ll = sim_loglik(o, n, s, *t, g, h);
			if (fabs(g[1]) <= 1e-11 || (*t >= SIM_T_LIM && g[1] > 0) ||
			    (*t <= -SIM_T_LIM && g[1] < 0))
				break;
			step = clampd(-g[1] / h[2], -5, 5);
			if (!isfinite(step))
				step = g[1] > 0 ? 5 : -5;
			for (;;) {
				nt = clampd(*t + lam * step, -SIM_T_LIM, SIM_T_LIM);
				if (lam < 1e-12 ||
				    sim_loglik(o, n, s, nt, NULL, NULL) >= ll - 1e-12)
					break;
				lam /= 2;
			}
			if (nt == *t)
				break;
			*t = nt;
		}
	}
	ll = sim_loglik(o, n, s, *t, g, h);
	if (d1)
		*d1 = g[0];
	if (d2)
		*d2 = fabs(*t) >= SIM_T_LIM || h[2] == 0 ? h[0] : h[0] - h[1] * h[1] / h[2];
	return ll;
}

/* Newton from outside the interval towards the root of l_p(s) = target:
 * l_p is concave, so the iterates approach the root monotonically. */
static double
profile_root(const struct sim_obs *o, size_t n, double s, double t, double target)
{
	for (int it = 0; it < 100; it++) {
		double d1, v = sim_profile(o, n, s, &t, &d1, NULL) - target, ns;
		if (d1 == 0 || !isfinite(d1))
			break;
		ns = s - v / d1;
		if (fabs(ns - s) < 1e-10)
			return ns;
		s = ns;
	}
	return s;
}

/* The first point, stepping from s0 in direction dir, where the profile is
 * below target; NAN if none within 200 log units. */
static double
profile_outside(const struct sim_obs *o, size_t n, double s0, double t, int dir, double step,
                double target)
{
	for (; step < 200; step *= 2) {
		double s = s0 + dir * step;
		if (sim_profile(o, n, s, &t, NULL, NULL) < target)
			return s;
	}
	return NAN;
}

/* sim_profile_interval with the chi-square cut q already computed. */
static int
profile_interval_q(const struct sim_obs *o, size_t n, const struct sim_fit *f, double q, double *lo,
                   double *hi)
{
	double target = f->ll - q / 2, s;

	*lo = -INFINITY;
	*hi = INFINITY;
	if (!isfinite(q))
		return -1;
	if (f->defined) {
		double t = f->t, d2, step;
		sim_profile(o, n, f->s, &t, NULL, &d2);
		step = d2 < 0 ? sqrt(q / -d2) : 1;
		s = profile_outside(o, n, f->s, f->t, -1, step, target);
		if (!isnan(s))
			*lo = profile_root(o, n, s, f->t, target);
		s = profile_outside(o, n, f->s, f->t, +1, step, target);
		if (!isnan(s))
			*hi = profile_root(o, n, s, f->t, target);
		return 0;
	}
	if (f->side == 0)
		return 0;
	{
		double edge = f->side < 0 ? -INFINITY : INFINITY;
		for (size_t i = 0; i < n; i++)
			edge = f->side < 0 ? fmax(edge, o[i].b) : fmin(edge, o[i].b);
		s = profile_outside(o, n, edge, 0, -f->side, 0.5, target);
		if (isnan(s))
			return -1;
		s = profile_root(o, n, s, 0, target);
		if (f->side < 0)
			*hi = s;
		else
			*lo = s;
	}
	return 0;
}

int
sim_profile_interval(const struct sim_obs *o, size_t n, const struct sim_fit *f, double level,
                     double *lo, double *hi)
{
	return profile_interval_q(o, n, f, gsl_cdf_chisq_Pinv(level, 1), lo, hi);
}

/* ---- the audit ----------------------------------------------------- */

enum { EST_JOINT, EST_DELETED, EST_LAST, NEST };
static const char *const est_name[NEST] = {"joint", "deleted_below_final", "last_block"};

struct est_acc {
	double undefined;         /* replicates with no finite estimate */
	double sum, sum2;         /* error (estimate - truth), clamped */
	double ndef, sumd, sum2d; /* the same over defined replicates only */
};

struct acc {
	double games, blocks, anchors, sat, onebl, covered;
	struct est_acc est[NEST];
	size_t nvis;
	double vis_anchor[SIM_MAX_VISITS], vis_blocks[SIM_MAX_VISITS];
};

struct sim_ctx {
	const struct sim_options *o;
	struct ladder_policy p;
	double corr; /* color correction of the model's color */
	double q;    /* chi-square (1 df) quantile at level */
	int black;
	size_t ntruth;
	long chunk;      /* replicates per chunk */
	size_t nchunk;   /* chunks per cell */
	size_t units;    /* work units of the whole run: starts x truths x chunks */
	size_t unit0;    /* the first unit this run computes (a shard's slice) */
	struct acc *acc; /* [start][truth][chunk] */
	struct sim_work *work; /* each worker's */
	atomic_int failed;     /* a solver failed, or memory ran out */
};

static uint64_t
mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The replicate's stream: splitmix64 over (seed, start, truth, rep), the
 * ratings in hundredths of an Elo point, folded to the 32 bits MT19937
 * takes.  tag 0 drives games, tag 1 the ledger's plies, tokens and times. */
static unsigned long
stream_seed(uint64_t seed, double start, double truth, long rep, int tag)
{
	uint64_t h = mix64(seed);

	h = mix64(h ^ (uint64_t)llround(start * 100));
	h = mix64(h ^ (uint64_t)llround(truth * 100));
	h = mix64(h ^ (uint64_t)rep);
	h = mix64(h ^ (uint64_t)tag);
	return (unsigned long)((h ^ (h >> 32)) & 0xffffffffULL);
}

static double
truth_at(const struct sim_options *o, size_t j)
{
	return o->lo + (double)j * o->step;
}

size_t
sim_ladder_play(const struct ladder_policy *p, double corr, double nu, double start, double truth,
                gsl_rng *r, struct ladder_block *blk)
{
	double anchor = start, next;
	int repeats = 0;
	size_t nb = 0;

	while (nb < SIM_MAX_BLOCKS) {
		double u = (truth - anchor - corr) / E_NAT, m = fmax(u, 0);
		double ew = exp(u - m), el = exp(-m), ed = nu * exp(u / 2 - m), dd = ew + el + ed;
		double pw = ew / dd, pwd = (ew + ed) / dd;
		struct ladder_block *b = &blk[nb++];
		enum ladder_rule rule;

		b->anchor = anchor;
		b->w = b->d = b->l = 0;
		for (int k = 0; k < p->block_games; k++) {
			double x = gsl_rng_uniform(r);
			if (x < pw)
				b->w++;
			else if (x < pwd)
				b->d++;
			else
				b->l++;
		}
		rule = ladder_step(p, anchor, ladder_score(b), repeats, &next);
		if (rule == LADDER_PROMOTE) {
			anchor = next;
			repeats = 0;
		} else if (rule == LADDER_REPEAT) {
			repeats++;
		} else {
			break;
		}
	}
	return nb;
}

/* Run one ladder; returns the number of blocks. */
static size_t
run_ladder(const struct sim_ctx *c, gsl_rng *r, double start, double truth,
           struct ladder_block *blk)
{
	return sim_ladder_play(&c->p, c->corr, c->o->nu, start, truth, r, blk);
}

static void
add_err(struct est_acc *a, int defined, double est, double truth)
{
	double err = est - truth;

	a->undefined += !defined;
	a->sum += err;
	a->sum2 += err * err;
	if (defined) {
		a->ndef++;
		a->sumd += err;
		a->sum2d += err * err;
	}
}

/* The joint estimate of the blocks at keep_from or above, and whether the profile interval
 * covers truth.  An undefined estimate is the finite end of that interval. */
static int
joint_estimate(const struct sim_ctx *c, const struct ladder_block *blk, double keep_from, size_t n,
               struct sim_obs *obs, double truth, double *est, int *defined, int *covered)
{
	struct sim_fit f;
	double lo, hi;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (blk[i].anchor < keep_from)
			continue;
		obs[k].b = (blk[i].anchor + c->corr) / E_NAT;
		obs[k].w = blk[i].w, obs[k].d = blk[i].d, obs[k].l = blk[i].l;
		k++;
	}
	if (sim_fit_joint(obs, k, &f) < 0 || profile_interval_q(obs, k, &f, c->q, &lo, &hi) < 0)
		return -1;
	*defined = f.defined;
	*est = f.defined    ? f.s * E_NAT
	       : f.side < 0 ? hi * E_NAT
	       : f.side > 0 ? lo * E_NAT
	                    : f.s * E_NAT;
	if (covered)
		*covered = lo * E_NAT <= truth && truth <= hi * E_NAT;
	return 0;
}

static int
replicate(const struct sim_ctx *c, gsl_rng *r, double start, double truth, long rep, struct acc *a,
          struct ladder_block *blk, struct sim_obs *obs)
{
	size_t nb, nanch = 0;
	double est, games = 0, lo, hi;
	int def, cov;

	gsl_rng_set(r, stream_seed(c->o->seed, start, truth, rep, 0));
	nb = run_ladder(c, r, start, truth, blk);
	for (size_t i = 0; i < nb; i++) {
		size_t v;
		int n = blk[i].w + blk[i].d + blk[i].l;
		games += n;
		a->sat += blk[i].w == n || blk[i].l == n;
		if (i == 0 || blk[i].anchor != blk[i - 1].anchor)
			nanch++;
		for (v = 0; v < a->nvis && a->vis_anchor[v] != blk[i].anchor; v++)
			;
		if (v == a->nvis && v < SIM_MAX_VISITS) {
			a->vis_anchor[v] = blk[i].anchor;
			a->vis_blocks[v] = 0;
			a->nvis++;
		}
		if (v < SIM_MAX_VISITS)
			a->vis_blocks[v]++;
	}
	a->games += games;
	a->blocks += (double)nb;
	a->anchors += (double)nanch;
	a->onebl += nb == 1;

	if (joint_estimate(c, blk, -INFINITY, nb, obs, truth, &est, &def, &cov) < 0)
		return -1;
	add_err(&a->est[EST_JOINT], def, est, truth);
	a->covered += cov;
	if (joint_estimate(c, blk, blk[nb - 1].anchor, nb, obs, truth, &est, &def, NULL) < 0)
		return -1;
	add_err(&a->est[EST_DELETED], def, est, truth);
	{
		const struct ladder_block *b = &blk[nb - 1];
		double n = (double)b->w + b->d + b->l, x = b->w + 0.5 * b->d;
		def = x > 0 && x < n;
		/* two-sided at level: its finite end, as for the likelihoods */
		if (!def && bound_score_interval(x, n, c->o->level, 0, &lo, &hi) < 0)
			return -1;
		est = bound_rating(b->anchor, c->corr, def ? x / n : x > 0 ? lo : hi);
		add_err(&a->est[EST_LAST], def, est, truth);
	}
	return 0;
}

/* A worker's generator and room for a replicate's blocks. */
struct sim_work {
	gsl_rng *r;
	struct ladder_block *blk;
	struct sim_obs *obs;
};

/* Work unit u: one chunk of one cell's replicates, into c->acc[u]. */
static void
unit_run(void *arg, size_t u, int worker)
{
	struct sim_ctx *c = arg;
	struct sim_work *w = &c->work[worker];
	size_t ck = (u += c->unit0) % c->nchunk, tj = u / c->nchunk % c->ntruth, si = u / c->nchunk / c->ntruth;

	if (c->failed)
		return;
	if (w->r == NULL) {
		w->r = gsl_rng_alloc(gsl_rng_mt19937);
		w->blk = malloc(SIM_MAX_BLOCKS * sizeof *w->blk);
		w->obs = malloc(SIM_MAX_BLOCKS * sizeof *w->obs);
		if (w->r == NULL || w->blk == NULL || w->obs == NULL) {
			c->failed = 1;
			return;
		}
	}
	for (long rep = (long)ck * c->chunk; rep < c->o->reps && rep < (long)(ck + 1) * c->chunk;
	     rep++) {
		if (replicate(c, w->r, c->o->starts[si], truth_at(c->o, tj), rep + 1, &c->acc[u],
		        w->blk, w->obs) < 0) {
			c->failed = 1;
			return;
		}
	}
}

/* Sum a cell's chunks in order into *a (so the bytes do not depend on the
 * number of threads). */
static void
cell_sum(const struct sim_ctx *c, size_t si, size_t tj, struct acc *a)
{
	memset(a, 0, sizeof *a);
	for (size_t k = 0; k < c->nchunk; k++) {
		const struct acc *x = &c->acc[(si * c->ntruth + tj) * c->nchunk + k];
		a->games += x->games, a->blocks += x->blocks, a->anchors += x->anchors;
		a->sat += x->sat, a->onebl += x->onebl, a->covered += x->covered;
		for (int j = 0; j < NEST; j++) {
			const struct est_acc *p = &x->est[j];
			struct est_acc *q = &a->est[j];
			q->undefined += p->undefined, q->sum += p->sum, q->sum2 += p->sum2;
			q->ndef += p->ndef, q->sumd += p->sumd, q->sum2d += p->sum2d;
		}
		for (size_t v = 0; v < x->nvis; v++) {
			size_t w;
			for (w = 0; w < a->nvis && a->vis_anchor[w] != x->vis_anchor[v]; w++)
				;
			if (w == a->nvis && w < SIM_MAX_VISITS) {
				a->vis_anchor[w] = x->vis_anchor[v];
				a->vis_blocks[w] = 0;
				a->nvis++;
			}
			if (w < SIM_MAX_VISITS)
				a->vis_blocks[w] += x->vis_blocks[v];
		}
	}
}

/* ---- the document -------------------------------------------------- */

struct est_summary {
	double undefined, bias, rmse, bias_defined, rmse_defined; /* NAN when none defined */
};

static void
est_summary(const struct est_acc *a, double reps, struct est_summary *s)
{
	s->undefined = a->undefined / reps;
	s->bias = a->sum / reps;
	s->rmse = sqrt(a->sum2 / reps);
	s->bias_defined = a->ndef > 0 ? a->sumd / a->ndef : NAN;
	s->rmse_defined = a->ndef > 0 ? sqrt(a->sum2d / a->ndef) : NAN;
}

static cJSON *
num_or_null(double x, double step)
{
	return isfinite(x) ? cJSON_CreateNumber(json_round(x, step)) : cJSON_CreateNull();
}

static int
add_est(cJSON *o, const struct est_summary *s)
{
	return json_add_number(o, "undefined", json_round(s->undefined, 1e-6)) &&
	       json_add_number(o, "bias", json_round(s->bias, 0.01)) &&
	       json_add_number(o, "rmse", json_round(s->rmse, 0.01)) &&
	       cJSON_AddItemToObject(o, "bias_defined", num_or_null(s->bias_defined, 0.01)) &&
	       cJSON_AddItemToObject(o, "rmse_defined", num_or_null(s->rmse_defined, 0.01));
}

static int
cmp_vis(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

static int
add_cell(cJSON *cells, const struct sim_ctx *c, size_t si, size_t tj, struct acc *a,
         struct est_summary sum[NEST])
{
	double reps = (double)c->o->reps, blocks, vis[SIM_MAX_VISITS][2];
	cJSON *it = cJSON_CreateObject(), *est, *v;

	cell_sum(c, si, tj, a);
	if (it == NULL || !cJSON_AddItemToArray(cells, it))
		return cJSON_Delete(it), -1;
	blocks = a->blocks;
	if (!json_add_number(it, "start", json_round(c->o->starts[si], 0.01)) ||
	    !json_add_number(it, "truth", json_round(truth_at(c->o, tj), 0.01)) ||
	    !json_add_number(it, "games", json_round(a->games / reps, 1e-6)) ||
	    !json_add_number(it, "blocks", json_round(blocks / reps, 1e-6)) ||
	    !json_add_number(it, "anchors", json_round(a->anchors / reps, 1e-6)) ||
	    !json_add_number(it, "one_block", json_round(a->onebl / reps, 1e-6)) ||
	    !json_add_number(it, "saturated", json_round(a->sat / blocks, 1e-6)) ||
	    !json_add_number(it, "coverage", json_round(a->covered / reps, 1e-6)) ||
	    !(est = cJSON_AddObjectToObject(it, "estimators")) ||
	    !(v = cJSON_AddArrayToObject(it, "visits")))
		return -1;
	for (int j = 0; j < NEST; j++) {
		cJSON *o = cJSON_AddObjectToObject(est, est_name[j]);
		est_summary(&a->est[j], reps, &sum[j]);
		if (o == NULL || !add_est(o, &sum[j]))
			return -1;
	}
	for (size_t k = 0; k < a->nvis; k++)
		vis[k][0] = a->vis_anchor[k], vis[k][1] = a->vis_blocks[k];
	qsort(vis, a->nvis, sizeof vis[0], cmp_vis);
	for (size_t k = 0; k < a->nvis; k++) {
		cJSON *p = cJSON_CreateObject();
		if (p == NULL || !cJSON_AddItemToArray(v, p) ||
		    !json_add_number(p, "anchor", json_round(vis[k][0], 0.01)) ||
		    !json_add_number(p, "blocks", json_round(vis[k][1] / reps, 1e-6)))
			return cJSON_Delete(p), -1;
	}
	return 0;
}

/* The audit's fields before its cells: kind, spec, ladder, color,
 * penalty, options, rng and the undefined rule; the empty "cells" and
 * "summary" arrays into *cells and *summ. */
static int
audit_head(cJSON *doc, const struct sim_ctx *c, const char *spec_id, const cJSON *spec,
           cJSON **cells, cJSON **summ)
{
	const struct sim_options *o = c->o;
	cJSON *opt, *st, *x;
	char seed[32];

	snprintf(seed, sizeof seed, "%llu", o->seed);
	if (!json_add_string(doc, "kind", "cohort.ladder-audit/1") ||
	    !json_add_string(doc, "spec", spec_id) ||
	    !(x = cJSON_Duplicate(json_get(spec, "ladder"), 1)) ||
	    !cJSON_AddItemToObject(doc, "ladder", x) ||
	    !json_add_string(doc, "color", c->black ? "black" : "white") ||
	    !json_add_number(doc, "black_penalty",
	                     json_round(c->black ? c->corr : -c->corr, 0.01)) ||
	    !(opt = cJSON_AddObjectToObject(doc, "options")) ||
	    !(x = cJSON_AddObjectToObject(opt, "truth")) ||
	    !json_add_number(x, "lo", json_round(o->lo, 0.01)) ||
	    !json_add_number(x, "hi", json_round(o->hi, 0.01)) ||
	    !json_add_number(x, "step", json_round(o->step, 0.01)) ||
	    !(st = cJSON_AddArrayToObject(opt, "starts")) ||
	    !json_add_number(opt, "reps", (double)o->reps) || !json_add_string(opt, "seed", seed) ||
	    !json_add_number(opt, "nu", json_round(o->nu, 1e-6)) ||
	    !json_add_number(opt, "level", json_round(o->level, 1e-6)) ||
	    !json_add_string(doc, "rng",
	                     "gsl mt19937; replicate stream seeded by splitmix64 over "
	                     "(seed, start, truth, replicate)") ||
	    !json_add_string(
	        doc, "undefined_rule",
	        "an undefined estimate enters bias and rmse as the finite end of its "
	        "two-sided interval at level, a one-sided bound at level (1 + level)/2 "
	        "(profile likelihood for joint and deleted_below_final, Clopper-Pearson "
	        "for last_block); *_defined leave it out") ||
	    !(*cells = cJSON_AddArrayToObject(doc, "cells")) ||
	    !(*summ = cJSON_AddArrayToObject(doc, "summary")))
		return -1;
	for (size_t si = 0; si < o->nstarts; si++)
		if (!cJSON_AddItemToArray(st, cJSON_CreateNumber(json_round(o->starts[si], 0.01))))
			return -1;
	return 0;
}

/* The cells of start si, one per truth, and its row of "summary": means
 * over the truths. */
static int
start_summary(cJSON *summ, cJSON *cells, const struct sim_ctx *c, size_t si, struct acc *a)
{
	const struct sim_options *o = c->o;
	double g = 0, b = 0, sat = 0, cov = 0, one = 0, nt = (double)c->ntruth;
	struct est_summary s[NEST],
	    m[NEST]; /* m: sums over truths (rmse_defined: of squared RMSEs) */
	cJSON *it = cJSON_CreateObject(), *est;

	memset(m, 0, sizeof m);
	for (size_t tj = 0; tj < c->ntruth; tj++) {
		if (add_cell(cells, c, si, tj, a, s) < 0)
			return -1;
		g += a->games / (double)o->reps, b += a->blocks / (double)o->reps;
		sat += a->sat / a->blocks, cov += a->covered / (double)o->reps;
		one += a->onebl / (double)o->reps;
		for (int j = 0; j < NEST; j++)
			m[j].undefined += s[j].undefined, m[j].bias += s[j].bias,
			    m[j].rmse += s[j].rmse,
			    m[j].rmse_defined += s[j].rmse * s[j].rmse;
	}
	if (it == NULL || !cJSON_AddItemToArray(summ, it) ||
	    !json_add_number(it, "start", json_round(o->starts[si], 0.01)) ||
	    !json_add_number(it, "games", json_round(g / nt, 1e-6)) ||
	    !json_add_number(it, "blocks", json_round(b / nt, 1e-6)) ||
	    !json_add_number(it, "one_block", json_round(one / nt, 1e-6)) ||
	    !json_add_number(it, "saturated", json_round(sat / nt, 1e-6)) ||
	    !json_add_number(it, "coverage", json_round(cov / nt, 1e-6)) ||
	    !(est = cJSON_AddObjectToObject(it, "estimators"))) {
		if (it && !cJSON_GetArraySize(summ))
			cJSON_Delete(it);
		return -1;
	}
	for (int j = 0; j < NEST; j++) {
		cJSON *e = cJSON_AddObjectToObject(est, est_name[j]);
		if (e == NULL ||
		    !json_add_number(e, "undefined",
		                     json_round(m[j].undefined / nt, 1e-6)) ||
		    !json_add_number(e, "bias", json_round(m[j].bias / nt, 0.01)) ||
		    !json_add_number(e, "rmse", json_round(m[j].rmse / nt, 0.01)) ||
		    !json_add_number(e, "rmse_pooled",
		                     json_round(sqrt(m[j].rmse_defined / nt), 0.01)))
			return -1;
	}
	return 0;
}

static cJSON *
audit_document(const struct sim_ctx *c, const char *spec_id, const cJSON *spec)
{
	const struct sim_options *o = c->o;
	cJSON *doc = cJSON_CreateObject(), *cells, *summ;
	struct acc *a = malloc(sizeof *a);

	if (doc == NULL || a == NULL)
		goto fail;
	if (audit_head(doc, c, spec_id, spec, &cells, &summ) < 0)
		goto fail;
	for (size_t si = 0; si < o->nstarts; si++)
		if (start_summary(summ, cells, c, si, a) < 0)
			goto fail;
	free(a);
	return doc;
fail:
	free(a);
	cJSON_Delete(doc);
	return NULL;
}

int
sim_table(const cJSON *doc, struct buf *out, struct err *e)
{
	const cJSON *it, *opt = json_get(doc, "options");
	int rc = 0;

	rc |=
	    buf_printf(out,
	               "ladder audit: %.0f replicates per cell, nu %g, Black penalty %g; "
	               "RMSE (Elo) of joint / deleted-below-final / last-block, undefined share\n",
	               json_get(opt, "reps")->valuedouble, json_get(opt, "nu")->valuedouble,
	               json_get(doc, "black_penalty")->valuedouble);
	rc |= buf_printf(out, "sat: share of blocks saturated (all wins or all losses); undef j/d/l:"
	                      " share of\nreplicates with no finite joint / deleted / last-block"
	                      " estimate; cover: share\nwhose interval holds the truth\n");
	rc |=
	    buf_printf(out, "%6s %6s %7s %6s %5s %8s %8s %8s %17s %5s\n", "start", "truth", "games",
	               "blocks", "sat", "joint", "deleted", "last", "undef j/d/l", "cover");
	cJSON_ArrayForEach(it, json_get(doc, "cells"))
	{
		const cJSON *est = json_get(it, "estimators");
		const cJSON *j = json_get(est, "joint"), *d = json_get(est, "deleted_below_final"),
		            *l = json_get(est, "last_block");
		rc |= buf_printf(
		    out,
		    "%6.0f %6.0f %7.2f %6.2f %4.0f%% %8.1f %8.1f %8.1f %5.2f/%.2f/%.2f "
		    "%4.0f%%\n",
		    json_get(it, "start")->valuedouble, json_get(it, "truth")->valuedouble,
		    json_get(it, "games")->valuedouble, json_get(it, "blocks")->valuedouble,
		    100 * json_get(it, "saturated")->valuedouble, json_get(j, "rmse")->valuedouble,
		    json_get(d, "rmse")->valuedouble, json_get(l, "rmse")->valuedouble,
		    json_get(j, "undefined")->valuedouble, json_get(d, "undefined")->valuedouble,
		    json_get(l, "undefined")->valuedouble,
		    100 * json_get(it, "coverage")->valuedouble);
	}
	rc |= buf_printf(out, "mean over the truth grid:\n");
	cJSON_ArrayForEach(it, json_get(doc, "summary"))
	{
		/* the summary's rmse is the mean of the cells' RMSEs */
		const cJSON *est = json_get(it, "estimators");
		const cJSON *j = json_get(est, "joint"), *d = json_get(est, "deleted_below_final"),
		            *l = json_get(est, "last_block");
		rc |= buf_printf(
		    out,
		    "%6.0f %6s %7.2f %6.2f %4.0f%% %8.1f %8.1f %8.1f %5.2f/%.2f/%.2f "
		    "%4.0f%%\n",
		    json_get(it, "start")->valuedouble, "all", json_get(it, "games")->valuedouble,
		    json_get(it, "blocks")->valuedouble,
		    100 * json_get(it, "saturated")->valuedouble, json_get(j, "rmse")->valuedouble,
		    json_get(d, "rmse")->valuedouble, json_get(l, "rmse")->valuedouble,
		    json_get(j, "undefined")->valuedouble, json_get(d, "undefined")->valuedouble,
		    json_get(l, "undefined")->valuedouble,
		    100 * json_get(it, "coverage")->valuedouble);
	}
	return rc < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
}

/* ---- the simulated ledger ---------------------------------------- */

#define SIM_EPOCH 1767225600LL /* 2026-01-01T00:00:00Z */

static void
fmt_time(long long t, char out[32])
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void
cond_name(char *s, size_t n, double start, double truth, long rep)
{
	snprintf(s, n, "s%g-t%g-r%ld", start, truth, rep);
}

/* Where the simulated games go: any of the three may be closed. */
struct emit {
	struct outfile ledger, requests, billing;
	struct buf line;
};

static int
emit_json(struct outfile *of, struct buf *line, const cJSON *v, struct err *e)
{
	buf_reset(line);
	if (canon_write(v, line, e) < 0)
		return -1;
	if (buf_addc(line, '\n') < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	return outfile_write(of, line->p, line->len, e);
}

static void
fmt_time_ms(long long ms, char out[40])
{
	time_t tt = (time_t)(ms / 1000);
	struct tm tm;
	size_t n;

	gmtime_r(&tt, &tm);
	n = strftime(out, 40, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, 40 - n, ".%03dZ", (int)(ms % 1000));
}

/* A game's plies and termination: decisive 20 + 2 Poisson(25) (+1 when
 * White mates), capped at 199; draws 200 (ply limit) with probability
 * 1/4, else 40 + 2 Poisson(30). */
static int
game_plies(gsl_rng *r, int result, const char **term)
{
	int plies;

	if (result == 1) {
		int lim = gsl_rng_uniform(r) < 0.25;
		plies = lim ? 200 : 40 + 2 * (int)gsl_ran_poisson(r, 30);
		if (plies > 200)
			plies = 200;
		*term = lim                        ? "ply_limit"
		        : gsl_rng_uniform(r) < 0.7 ? "threefold_repetition"
		                                   : "stalemate";
	} else {
		plies = 20 + 2 * (int)gsl_ran_poisson(r, 25) + (result == 2);
		if (plies > 199)
			plies = 199;
		*term = gsl_rng_uniform(r) < 0.8 ? "checkmate" : "resignation";
	}
	return plies;
}

/* One simulated request. */
struct sim_request {
	const char *id, *ts, *game;
	long long in, out, rs, ca, lat; /* tokens by class, latency in ms */
};

/* The request log's record of one request. */
static int
emit_request(struct emit *em, const struct sim_request *q, struct err *e)
{
	cJSON *rq = cJSON_CreateObject(), *x;
	int rc;

	if (!rq || !json_add_number(rq, "attempt", 1) || !json_add_string(rq, "game_id", q->game) ||
	    !json_add_number(rq, "latency_ms", (double)q->lat) ||
	    !(x = cJSON_AddObjectToObject(rq, "model")) ||
	    !json_add_string(x, "requested", "sim-davidson-1") ||
	    !json_add_string(x, "returned", "sim-davidson-1") ||
	    !json_add_string(rq, "request_id", q->id) || !json_add_string(rq, "status", "ok") ||
	    !(x = cJSON_AddObjectToObject(rq, "tokens")) ||
	    !json_add_number(x, "input", (double)q->in) ||
	    !json_add_number(x, "output", (double)q->out) ||
	    !json_add_number(x, "reasoning", (double)q->rs) ||
	    !json_add_number(x, "cached", (double)q->ca) || !json_add_string(rq, "ts", q->ts)) {
		cJSON_Delete(rq);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	rc = emit_json(&em->requests, &em->line, rq, e);
	cJSON_Delete(rq);
	return rc;
}

/* The billing export's row of one request: $1.25 per million uncached
 * input tokens, $0.125 cached, $10 output and reasoning. */
static int
emit_bill(struct emit *em, const struct sim_request *q, struct err *e)
{
	double cost = (double)(q->in - q->ca) * 1.25e-6 + (double)q->ca * 0.125e-6 +
	              (double)(q->out + q->rs) * 10e-6;

	buf_reset(&em->line);
	if (buf_printf(&em->line, "%s,%s,sim-davidson-1,%lld,%lld,%lld,%lld,%.6f\n", q->id, q->ts,
	               q->in, q->out, q->rs, q->ca, cost) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	return outfile_write(&em->billing, em->line.p, em->line.len, e);
}

/* Game id's m requests, one per model move, from *ms on: input 1200 +
 * Poisson(600) tokens, output Poisson(60), reasoning round(Gamma(2, 400)),
 * cached floor(input U(0.4, 0.7)), latency Gamma(2, 6) s; the engine's
 * reply 0.2 s after each request.  Their tokens and wall time are added to
 * tok and *wall, their ids to req. */
static int
emit_requests(struct emit *em, gsl_rng *r, const char *id, int m, long long *ms,
              long long tok[4], double *wall, cJSON *req, struct err *e)
{
	for (int i = 1; i <= m; i++) {
		char rid[200], rts[40];
		struct sim_request q = { rid, rts, id, 0, 0, 0, 0, 0 };
		q.in = 1200 + (long long)gsl_ran_poisson(r, 600);
		q.out = (long long)gsl_ran_poisson(r, 60);
		q.rs = llround(gsl_ran_gamma(r, 2, 400));
		q.ca = (long long)floor((double)q.in * (0.4 + 0.3 * gsl_rng_uniform(r)));
		q.lat = llround(gsl_ran_gamma(r, 2, 6) * 1000);

		snprintf(rid, sizeof rid, "%s-r%d", id, i);
		fmt_time_ms(*ms, rts);
		tok[0] += q.in, tok[1] += q.out, tok[2] += q.rs, tok[3] += q.ca;
		*wall += q.lat / 1000.0 + 0.2;
		*ms += q.lat + 200;
		if (!cJSON_AddItemToArray(req, cJSON_CreateString(rid)))
			return err_set(e, ERR_NOMEM, "out of memory");
		if (em->requests.fp && emit_request(em, &q, e) < 0)
			return -1;
		if (em->billing.fp && emit_bill(em, &q, e) < 0)
			return -1;
	}
	return 0;
}

/* A simulated game as the ledger records it. */
struct sim_game {
	const char *id, *family, *cond, *term, *ts, *te;
	double anchor, wall;
	int black, result, plies;
	long block;
	const long long *tok;
};

/* The game's ledger record, taking over req; NULL when out of memory. */
static cJSON *
game_record(const struct sim_game *s, cJSON *req)
{
	static const char *const res[3] = {"win", "draw", "loss"};
	cJSON *g = cJSON_CreateObject(), *x;

	if (!g || !json_add_string(g, "game_id", s->id) || !json_add_string(g, "family", s->family) ||
	    !(x = cJSON_AddObjectToObject(g, "model")) ||
	    !json_add_string(x, "requested", "sim-davidson-1") ||
	    !json_add_string(x, "returned", "sim-davidson-1") ||
	    !json_add_string(g, "condition", s->cond) ||
	    !json_add_string(g, "color", s->black ? "black" : "white") ||
	    !(x = cJSON_AddObjectToObject(g, "anchor")) ||
	    !json_add_string(x, "engine", "stockfish") ||
	    !json_add_number(x, "elo", json_round(s->anchor, 0.01)) ||
	    !json_add_string(x, "limiter", "UCI_LimitStrength") ||
	    !json_add_number(x, "time_s", 0.1) || !json_add_string(g, "opening", "startpos") ||
	    !json_add_number(g, "block", (double)s->block) ||
	    !json_add_string(g, "status", "terminal") ||
	    !json_add_string(g, "result", res[s->result]) ||
	    !json_add_string(g, "termination", s->term) || !json_add_number(g, "plies", s->plies) ||
	    !json_add_string(g, "started_at", s->ts) || !json_add_string(g, "ended_at", s->te) ||
	    !(x = cJSON_AddObjectToObject(g, "tokens")) ||
	    !json_add_number(x, "input", (double)s->tok[0]) ||
	    !json_add_number(x, "output", (double)s->tok[1]) ||
	    !json_add_number(x, "reasoning", (double)s->tok[2]) ||
	    !json_add_number(x, "cached", (double)s->tok[3]) ||
	    !json_add_number(g, "wall_s", s->wall) ||
	    !json_add_number(g, "worker_hours", json_round(s->wall / 3600, 1e-6)) ||
	    !cJSON_AddItemToObject(g, "requests", req)) {
		cJSON_Delete(g);
		return NULL;
	}
	return g;
}

/* One game: its record, and one request per model move (m = plies / 2
 * model moves, at least one).  The game's tokens and wall time are the
 * sums of its requests'; the next game starts 30 s after the end. */
static int
emit_game(struct emit *em, gsl_rng *r, const char *family, const char *cond, double anchor,
          int black, long block, int k, int result, long long *clock, struct err *e)
{
	char id[160], ts[32], te[32];
	long long ms = *clock * 1000, tok[4] = {0, 0, 0, 0};
	struct sim_game s = {id, family, cond, NULL, ts, te, anchor, 0, black, result, 0, block, tok};
	cJSON *req = cJSON_CreateArray(), *g;
	int m, rc;

	snprintf(id, sizeof id, "%s-b%ld-g%d", cond, block, k);
	s.plies = game_plies(r, result, &s.term);
	m = s.plies / 2 > 0 ? s.plies / 2 : 1;
	if (req == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (emit_requests(em, r, id, m, &ms, tok, &s.wall, req, e) < 0) {
		cJSON_Delete(req);
		return -1;
	}
	s.wall = json_round(s.wall + 0.1 * (s.plies - m), 1e-3);
	fmt_time(*clock, ts);
	fmt_time(*clock + (long long)ceil(s.wall), te);
	*clock += (long long)ceil(s.wall) + 30;
	if (!em->ledger.fp) {
		cJSON_Delete(req);
		return 0;
	}
	if ((g = game_record(&s, req)) == NULL) {
		cJSON_Delete(req);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	rc = emit_json(&em->ledger, &em->line, g, e);
	cJSON_Delete(g);
	return rc;
}

/* The games of a condition's nb blocks, into the ledger and logs; the
 * clock moved past each. */
static int
emit_blocks(struct emit *em, const struct sim_ctx *c, gsl_rng *rl, const struct ladder_block *blk,
            size_t nb, const char *family, const char *cond, long long *clock, struct err *e)
{
	for (size_t i = 0; i < nb; i++) {
		int order[SIM_MAX_BLOCK_GAMES], n = 0;
		for (int q = 0; q < blk[i].w + blk[i].d + blk[i].l; q++)
			order[n++] = q < blk[i].w              ? 0
			             : q < blk[i].w + blk[i].d ? 1
			                                       : 2;
		/* The block's outcomes, in an order drawn from the ledger
		 * stream. */
		gsl_ran_shuffle(rl, order, (size_t)n, sizeof order[0]);
		for (int k = 0; k < n; k++)
			if (emit_game(em, rl, family, cond, blk[i].anchor, c->black, (long)i + 1,
			              k + 1, order[k], clock, e) < 0)
				return -1;
	}
	return 0;
}

/* The spec of the simulated study to o->emit_spec: the input spec named
 * "<name>-simulated", as of the day after the last game, with one family
 * and the simulated conditions (*conds, taken). */
static int
emit_sim_spec(const struct sim_options *o, const cJSON *spec, const char *family,
              long long last, cJSON **conds, struct err *e)
{
	char asof[32], name[256];
	const cJSON *nm = json_get(spec, "name");
	cJSON *es = cJSON_Duplicate(spec, 1);
	int rc;

	fmt_time((last / 86400 + 1) * 86400, asof);
	snprintf(name, sizeof name, "%s-simulated",
	         cJSON_IsString(nm) ? nm->valuestring : "cohort");
	if (es == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	cJSON_DeleteItemFromObjectCaseSensitive(es, "conditions");
	cJSON_DeleteItemFromObjectCaseSensitive(es, "as_of");
	cJSON_DeleteItemFromObjectCaseSensitive(es, "name");
	cJSON_DeleteItemFromObjectCaseSensitive(es, "families");
	if (!json_add_string(es, "name", name) || !json_add_string(es, "as_of", asof) ||
	    !cJSON_AddItemToObject(es, "families", cJSON_CreateStringArray(&family, 1))) {
		cJSON_Delete(es);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	cJSON_AddItemToObject(es, "conditions", *conds);
	*conds = NULL;
	rc = json_emit(es, o->emit_spec, e);
	cJSON_Delete(es);
	return rc < 0 ? -1 : 0;
}

static int
emit_ledger(const struct sim_ctx *c, const cJSON *spec, struct err *e)
{
	const struct sim_options *o = c->o;
	const cJSON *fam = cJSON_GetArrayItem(json_get(spec, "families"), 0);
	const char *family = cJSON_IsString(fam) ? fam->valuestring : "sim";
	struct emit em = {OUTFILE_INIT, OUTFILE_INIT, OUTFILE_INIT, BUF_INIT};
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937), *rl = gsl_rng_alloc(gsl_rng_mt19937);
	struct ladder_block *blk = malloc(SIM_MAX_BLOCKS * sizeof *blk);
	cJSON *conds = cJSON_CreateArray();
	long long last = SIM_EPOCH;
	int rc = -1;
	static const char head[] =
	    "request_id,ts,model,input_tokens,output_tokens,reasoning_tokens,cached_tokens,cost\n";

	if (r == NULL || rl == NULL || blk == NULL || conds == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if ((o->ledger && outfile_open(&em.ledger, o->ledger, e) < 0) ||
	    (o->requests && outfile_open(&em.requests, o->requests, e) < 0) ||
	    (o->billing && (outfile_open(&em.billing, o->billing, e) < 0 ||
	                    outfile_write(&em.billing, head, sizeof head - 1, e) < 0)))
		goto done;
	for (size_t si = 0; si < o->nstarts; si++)
		for (size_t tj = 0; tj < c->ntruth; tj++)
			for (long rep = 1; rep <= o->reps; rep++) {
				double start = o->starts[si], truth = truth_at(o, tj);
				long long clock = SIM_EPOCH;
				char cond[96];
				size_t nb;
				cond_name(cond, sizeof cond, start, truth, rep);
				if (!cJSON_AddItemToArray(conds, cJSON_CreateString(cond))) {
					err_set(e, ERR_NOMEM, "out of memory");
					goto done;
				}
				if (!o->ledger && !o->requests && !o->billing)
					continue;
				gsl_rng_set(r, stream_seed(o->seed, start, truth, rep, 0));
				gsl_rng_set(rl, stream_seed(o->seed, start, truth, rep, 1));
				nb = run_ladder(c, r, start, truth, blk);
				if (emit_blocks(&em, c, rl, blk, nb, family, cond, &clock, e) < 0)
					goto done;
				if (clock > last)
					last = clock;
			}
	if ((o->ledger && outfile_commit(&em.ledger, e) < 0) ||
	    (o->requests && outfile_commit(&em.requests, e) < 0) ||
	    (o->billing && outfile_commit(&em.billing, e) < 0))
		goto done;
	if (o->emit_spec && emit_sim_spec(o, spec, family, last, &conds, e) < 0)
		goto done;
	rc = 0;
done:
	outfile_abort(&em.ledger);
	outfile_abort(&em.requests);
	outfile_abort(&em.billing);
	buf_release(&em.line);
	cJSON_Delete(conds);
	gsl_rng_free(r);
	gsl_rng_free(rl);
	free(blk);
	return rc;
}

/* ---- shards -------------------------------------------------------- */

/* The settings of a run: everything its audit depends on, exactly (the
 * doubles as they are, not rounded), so a merge sets the same run up. */
static cJSON *
settings_of(const struct sim_options *o, const cJSON *spec)
{
	cJSON *s = cJSON_CreateObject(), *t, *st, *x;
	char seed[32];

	snprintf(seed, sizeof seed, "%llu", o->seed);
	if (s == NULL || !(x = cJSON_Duplicate(spec, 1)) || !cJSON_AddItemToObject(s, "spec", x) ||
	    !(t = cJSON_AddObjectToObject(s, "truth")) || !json_add_number(t, "lo", o->lo) ||
	    !json_add_number(t, "hi", o->hi) || !json_add_number(t, "step", o->step) ||
	    !(st = cJSON_AddArrayToObject(s, "starts")) ||
	    !json_add_number(s, "reps", (double)o->reps) || !json_add_string(s, "seed", seed) ||
	    !json_add_number(s, "nu", o->nu) || !json_add_number(s, "level", o->level))
		goto fail;
	for (size_t i = 0; i < o->nstarts; i++)
		if (!cJSON_AddItemToArray(st, cJSON_CreateNumber(o->starts[i])))
			goto fail;
	return s;
fail:
	cJSON_Delete(s);
	return NULL;
}

/* n numbers as an array, appended to arr (key NULL) or added to obj as key. */
static int
add_nums(cJSON *to, const char *key, const double *x, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	if (a == NULL || !(key ? cJSON_AddItemToObject(to, key, a) : cJSON_AddItemToArray(to, a))) {
		cJSON_Delete(a);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (!cJSON_AddItemToArray(a, cJSON_CreateNumber(x[i])))
			return 0;
	return 1;
}

/* One unit's sums: "sums" games, blocks, anchors, saturated, one-block,
 * covered; "estimators" each estimator's six (undefined, sum, sum2, ndef,
 * sumd, sum2d); "visits" [anchor, blocks] as first met. */
static cJSON *
unit_json(const struct acc *a, size_t u)
{
	double sums[6] = { a->games, a->blocks, a->anchors, a->sat, a->onebl, a->covered };
	cJSON *it = cJSON_CreateObject(), *est, *vis;

	if (it == NULL || !json_add_number(it, "unit", (double)u) ||
	    !add_nums(it, "sums", sums, 6) || !(est = cJSON_AddArrayToObject(it, "estimators")) ||
	    !(vis = cJSON_AddArrayToObject(it, "visits")))
		goto fail;
	for (int j = 0; j < NEST; j++) {
		const struct est_acc *p = &a->est[j];
		double x[6] = { p->undefined, p->sum, p->sum2, p->ndef, p->sumd, p->sum2d };
		if (!add_nums(est, NULL, x, 6))
			goto fail;
	}
	for (size_t v = 0; v < a->nvis; v++) {
		double x[2] = { a->vis_anchor[v], a->vis_blocks[v] };
		if (!add_nums(vis, NULL, x, 2))
			goto fail;
	}
	return it;
fail:
	cJSON_Delete(it);
	return NULL;
}

/* Shard's part: the settings and the sums of units [lo, hi). */
static cJSON *
part_document(const struct sim_ctx *c, const cJSON *spec, size_t lo, size_t hi, struct err *e)
{
	cJSON *set = settings_of(c->o, spec), *p, *units;

	if (set == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	p = part_new("cohort.ladder-audit/1", &c->o->shard, set, e);
	cJSON_Delete(set);
	if (p == NULL)
		return NULL;
	units = part_units_of(p);
	for (size_t u = lo; u < hi; u++) {
		cJSON *it = unit_json(&c->acc[u], u);
		if (it == NULL || !cJSON_AddItemToArray(units, it)) {
			cJSON_Delete(it);
			cJSON_Delete(p);
			err_set(e, ERR_NOMEM, "out of memory");
			return NULL;
		}
	}
	return p;
}

/* ---- the run ------------------------------------------------------- */

static int
check_options(const struct sim_ctx *c, struct err *e)
{
	const struct sim_options *o = c->o;
	double minstep = INFINITY, anchors;

	if (!(o->step > 0))
		return err_set(e, ERR_USAGE, "--truth: STEP must be positive");
	if (!(o->hi >= o->lo))
		return err_set(e, ERR_USAGE, "--truth: HI is below LO");
	if (((o->hi - o->lo) / o->step + 1) * (double)o->nstarts > SIM_MAX_CELLS)
		return err_set(e, ERR_USAGE, "--truth, --starts: more than %d starts x truths",
		               SIM_MAX_CELLS);
	if (o->reps < 1)
		return err_set(e, ERR_USAGE, "--reps: expected at least one replicate");
	if (!(o->nu > 0 && o->nu < 1e6))
		return err_set(e, ERR_USAGE, "--nu: expected a positive draw parameter");
	if (!(o->level > 0 && o->level < 1))
		return err_set(e, ERR_USAGE, "--level: expected a number between 0 and 1");
	if (o->nstarts == 0)
		return err_set(e, ERR_USAGE, "--starts: expected at least one start");
	if (c->p.block_games > SIM_MAX_BLOCK_GAMES)
		return err_set(e, ERR_INPUT,
		               "%s: \"ladder\": \"block_games\": at most %d in a "
		               "simulation",
		               io_name(o->spec_path), SIM_MAX_BLOCK_GAMES);
	for (size_t i = 0; i < o->nstarts; i++)
		if (!(o->starts[i] >= c->p.start && o->starts[i] <= c->p.max))
			return err_set(e, ERR_USAGE,
			               "--starts: %g is outside the policy's anchors "
			               "(%g to %g)",
			               o->starts[i], c->p.start, c->p.max);
	for (size_t i = 0; i < c->p.npromote; i++)
		minstep = fmin(minstep, c->p.promote_by[i]);
	anchors = c->p.npromote ? (c->p.max - c->p.start) / minstep + 2 : 1;
	if (anchors * (c->p.max_repeats + 1) > SIM_MAX_BLOCKS)
		return err_set(e, ERR_INPUT,
		               "%s: \"ladder\": a ladder could run more than %d blocks",
		               io_name(o->spec_path), SIM_MAX_BLOCKS);
	return 0;
}

/* The spec's ladder and colour (Black when the spec names none). */
static int
read_spec(struct sim_ctx *c, const cJSON *spec, struct err *e)
{
	struct spec s = SPEC_INIT;

	if (spec_read(spec, &s, e) < 0)
		return err_prefix(e, "%s", io_name(c->o->spec_path));
	c->p = s.ladder;
	c->black = s.color != SPEC_COLOR_WHITE;
	c->corr = bound_correction(c->black, s.black_penalty);
	spec_release(&s);
	return 0;
}

/* The run's context: policy, grid and chunks of o under spec, and room
 * for every unit's sums. */
static int
ctx_init(struct sim_ctx *c, const struct sim_options *o, const cJSON *spec, struct err *e)
{
	memset(c, 0, sizeof *c);
	c->o = o;
	if (read_spec(c, spec, e) < 0 || check_options(c, e) < 0)
		return -1;
	c->q = gsl_cdf_chisq_Pinv(o->level, 1);
	c->ntruth = (size_t)floor((o->hi - o->lo) / o->step + 1e-9) + 1;
	/* The chunk size depends on --reps only, never on --jobs or --shard. */
	c->chunk = (o->reps + SIM_MAX_CHUNKS - 1) / SIM_MAX_CHUNKS;
	if (c->chunk < SIM_CHUNK)
		c->chunk = SIM_CHUNK;
	c->nchunk = (size_t)((o->reps + c->chunk - 1) / c->chunk);
	c->units = o->nstarts * c->ntruth * c->nchunk;
	if ((c->acc = calloc(c->units, sizeof *c->acc)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

/* Run units [lo, hi) of c on jobs threads. */
static int
ctx_compute(struct sim_ctx *c, size_t lo, size_t hi, struct err *e)
{
	int jobs = c->o->jobs > 0 ? c->o->jobs : pool_cpus();
	struct pool *pool;

	if ((size_t)jobs > hi - lo)
		jobs = hi > lo ? (int)(hi - lo) : 1;
	c->unit0 = lo;
	/* jobs threads, this one among them */
	pool = pool_new(jobs - 1);
	c->work = pool ? calloc((size_t)pool_workers(pool), sizeof *c->work) : NULL;
	if (c->work == NULL) {
		pool_free(pool);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	pool_run(pool, hi - lo, unit_run, c);
	for (int w = 0; w < pool_workers(pool); w++) {
		gsl_rng_free(c->work[w].r);
		free(c->work[w].blk);
		free(c->work[w].obs);
	}
	free(c->work);
	c->work = NULL;
	pool_free(pool);
	return c->failed ? err_set(e, ERR_NUMERIC, "a simulated fit did not converge") : 0;
}

int
sim_run(const struct sim_options *o, cJSON **out, struct err *e)
{
	struct sim_ctx c;
	cJSON *spec, *doc = NULL;
	char spec_id[HASH_ID_LEN + 1];
	size_t lo, hi;
	int rc = -1;

	*out = NULL;
	memset(&c, 0, sizeof c);
	spec = json_parse_file(o->spec_path, e);
	if (spec == NULL)
		return -1;
	if (o->shard.n && (o->ledger || o->requests || o->billing || o->emit_spec)) {
		err_set(e, ERR_USAGE, "--shard: the simulated ledger is written by one run only");
		goto done;
	}
	if (ctx_init(&c, o, spec, e) < 0 || canon_id(spec, spec_id, e) < 0)
		goto done;
	part_slice(c.units, &o->shard, &lo, &hi);
	if (ctx_compute(&c, lo, hi, e) < 0)
		goto done;
	doc = o->shard.n ? part_document(&c, spec, lo, hi, e) : audit_document(&c, spec_id, spec);
	if (doc == NULL) {
		if (!o->shard.n)
			err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if ((o->ledger || o->requests || o->billing || o->emit_spec) &&
	    emit_ledger(&c, spec, e) < 0)
		goto done;
	*out = doc;
	doc = NULL;
	rc = 0;
done:
	free(c.acc);
	cJSON_Delete(doc);
	cJSON_Delete(spec);
	return rc;
}

/* ---- the merge ----------------------------------------------------- */

/* n numbers, exactly, from an array; -1 when it is anything else. */
static int
read_nums(const cJSON *a, double *x, size_t n)
{
	const cJSON *it;
	size_t k = 0;

	if (!cJSON_IsArray(a) || (size_t)cJSON_GetArraySize(a) != n)
		return -1;
	cJSON_ArrayForEach(it, a) {
		if (!cJSON_IsNumber(it))
			return -1;
		x[k++] = it->valuedouble;
	}
	return 0;
}

/* The options of a part's settings (starts into the caller's room). */
static int
settings_read(const cJSON *st, const char *name, struct sim_options *o, double **starts,
    const cJSON **spec, struct err *e)
{
	const cJSON *t, *sa, *it;
	const char *seed;
	long long reps;
	char *end;
	size_t k = 0;

	memset(o, 0, sizeof *o);
	o->spec_path = name;
	o->jobs = 1;
	if (json_get_object(st, "spec", 1, spec, e) < 0 ||
	    json_get_object(st, "truth", 1, &t, e) < 0 ||
	    json_get_number(t, "lo", 1, &o->lo, e) < 0 ||
	    json_get_number(t, "hi", 1, &o->hi, e) < 0 ||
	    json_get_number(t, "step", 1, &o->step, e) < 0 ||
	    json_get_array(st, "starts", 1, &sa, e) < 0 ||
	    json_get_int(st, "reps", 1, 1, 100000000, &reps, e) < 0 ||
	    json_get_string(st, "seed", 1, &seed, e) < 0 ||
	    json_get_number(st, "nu", 1, &o->nu, e) < 0 ||
	    json_get_number(st, "level", 1, &o->level, e) < 0)
		return err_prefix(e, "%s: \"settings\"", name);
	o->reps = (long)reps;
	errno = 0;
	o->seed = strtoull(seed, &end, 10);
	if (!(seed[0] >= '0' && seed[0] <= '9') || *end || errno)
		return err_set(e, ERR_INPUT, "%s: \"settings\": \"seed\": expected a whole number",
		    name);
	o->nstarts = (size_t)cJSON_GetArraySize(sa);
	if ((*starts = calloc(o->nstarts ? o->nstarts : 1, sizeof **starts)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	cJSON_ArrayForEach(it, sa) {
		if (!cJSON_IsNumber(it))
			return err_set(e, ERR_INPUT, "%s: \"settings\": \"starts\": expected numbers",
			    name);
		(*starts)[k++] = it->valuedouble;
	}
	o->starts = *starts;
	return 0;
}

/* The context a part's settings describe, its options in *o. */
static int
merge_ctx(const cJSON *settings, const char *name, struct sim_options *o, double **starts,
    const cJSON **spec, struct sim_ctx *c, struct err *e)
{
	memset(c, 0, sizeof *c);
	*starts = NULL;
	if (settings_read(settings, name, o, starts, spec, e) < 0)
		return -1;
	if (ctx_init(c, o, *spec, e) < 0)
		return e->code == ERR_USAGE ? err_prefix(e, "%s: \"settings\"", name) : -1;
	return 0;
}

long
sim_part_total(const cJSON *settings, const char *name, struct err *e)
{
	struct sim_options o;
	const cJSON *spec;
	double *starts;
	struct sim_ctx c;
	long n = -1;

	if (merge_ctx(settings, name, &o, &starts, &spec, &c, e) == 0)
		n = (long)c.units;
	free(c.acc);
	free(starts);
	return n;
}

/* One unit's sums back into *a. */
static int
unit_read(const cJSON *it, struct acc *a, const char *name, size_t u, struct err *e)
{
	double sums[6], x[6];
	const cJSON *est = json_get(it, "estimators"), *vis = json_get(it, "visits"), *v;
	int j = 0;

	memset(a, 0, sizeof *a);
	if (read_nums(json_get(it, "sums"), sums, 6) < 0)
		return err_set(e, ERR_INPUT, "%s: \"units\": unit %zu: \"sums\": expected 6 numbers",
		    name, u);
	a->games = sums[0], a->blocks = sums[1], a->anchors = sums[2];
	a->sat = sums[3], a->onebl = sums[4], a->covered = sums[5];
	if (!cJSON_IsArray(est) || cJSON_GetArraySize(est) != NEST)
		return err_set(e, ERR_INPUT, "%s: \"units\": unit %zu: \"estimators\": expected %d",
		    name, u, NEST);
	cJSON_ArrayForEach(v, est) {
		struct est_acc *p = &a->est[j++];
		if (read_nums(v, x, 6) < 0)
			return err_set(e, ERR_INPUT,
			    "%s: \"units\": unit %zu: \"estimators\": expected 6 numbers each", name, u);
		p->undefined = x[0], p->sum = x[1], p->sum2 = x[2];
		p->ndef = x[3], p->sumd = x[4], p->sum2d = x[5];
	}
	if (!cJSON_IsArray(vis) || cJSON_GetArraySize(vis) > SIM_MAX_VISITS)
		return err_set(e, ERR_INPUT, "%s: \"units\": unit %zu: \"visits\": expected at most %d",
		    name, u, SIM_MAX_VISITS);
	cJSON_ArrayForEach(v, vis) {
		if (read_nums(v, x, 2) < 0)
			return err_set(e, ERR_INPUT,
			    "%s: \"units\": unit %zu: \"visits\": expected [anchor, blocks]", name, u);
		a->vis_anchor[a->nvis] = x[0];
		a->vis_blocks[a->nvis++] = x[1];
	}
	return 0;
}

int
sim_part_merge(const cJSON *settings, const cJSON *const *units, const char *const *names,
    size_t total, cJSON **out, struct err *e)
{
	struct sim_options o;
	const cJSON *spec;
	double *starts;
	struct sim_ctx c;
	char spec_id[HASH_ID_LEN + 1];
	const char *name = total ? names[0] : "<parts>";
	int rc = -1;

	*out = NULL;
	if (merge_ctx(settings, name, &o, &starts, &spec, &c, e) < 0 ||
	    canon_id(spec, spec_id, e) < 0)
		goto done;
	if (total != c.units) {
		err_set(e, ERR_INPUT, "%s: \"units\": %zu, but the settings make %zu", name, total,
		    c.units);
		goto done;
	}
	for (size_t u = 0; u < total; u++)
		if (unit_read(units[u], &c.acc[u], names[u], u, e) < 0)
			goto done;
	if ((*out = audit_document(&c, spec_id, spec)) == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	rc = 0;
done:
	free(c.acc);
	free(starts);
	return rc;
}
