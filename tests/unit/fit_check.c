/* fit_check.c: the Davidson fit against computations that do not share its
 * code: closed forms, and a second optimiser (cyclic coordinate ascent by
 * golden-section search on a likelihood written here in Elo units).
 * Prints "ok NAME" or "not ok NAME: why" per check. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../fit/davidson.h"

static int failures;

static void report(int good, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#include <stdarg.h>
static void
report(int good, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (good) {
		printf("ok %s\n", name);
		return;
	}
	failures++;
	printf("not ok %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* ---- the second method ---- */

#define MAXC 16
#define MAXB 64

struct cohort {
	int nc, nb;
	struct fit_block_in b[MAXB];
};

/* Log-likelihood in Elo units, straight from the model's probabilities:
 * x = 10^((R - anchor -/+ pen)/400). */
static double
loglik(const struct cohort *h, const double *R, double nu, double pen, const int *use)
{
	double L = 0;

	for (int i = 0; i < h->nb; i++) {
		const struct fit_block_in *b = &h->b[i];
		if (use && !use[b->cond])
			continue;
		double x = pow(10, (R[b->cond] - b->anchor + (b->black ? -pen : pen)) / 400);
		double den = x + 1 + nu * sqrt(x);
		L += b->w * log(x / den) + b->d * log(nu * sqrt(x) / den) + b->l * log(1 / den);
	}
	return L;
}

struct point {
	double R[MAXC];
	double lognu, pen;
};

static double
eval_point(const struct cohort *h, const struct point *p, const int *use)
{
	return loglik(h, p->R, exp(p->lognu), p->pen, use);
}

/* Maximise over coordinate *v by golden section on [*v - w, *v + w]. */
static void
golden(const struct cohort *h, struct point *p, double *v, double w, const int *use)
{
	const double g = (sqrt(5) - 1) / 2;
	double a = *v - w, b = *v + w, c = b - g * (b - a), d = a + g * (b - a), fc, fd;

	*v = c;
	fc = eval_point(h, p, use);
	*v = d;
	fd = eval_point(h, p, use);
	for (int k = 0; k < 200 && b - a > 1e-11 * (1 + fabs(a)); k++) {
		if (fc > fd) {
			b = d;
			d = c;
			fd = fc;
			c = b - g * (b - a);
			*v = c;
			fc = eval_point(h, p, use);
		} else {
			a = c;
			c = d;
			fc = fd;
			d = a + g * (b - a);
			*v = d;
			fd = eval_point(h, p, use);
		}
	}
	*v = 0.5 * (a + b);
}

/* Coordinate ascent over the conditions in use except skip, over lognu
 * unless fixnu, over pen when freepen. */
static double
ascend(const struct cohort *h, struct point *p, const int *use, int skip, int fixnu, int freepen)
{
	double last = -INFINITY, L = eval_point(h, p, use);

	for (int sweep = 0; sweep < 20000 && L - last > 1e-13 * (1 + fabs(L)); sweep++) {
		last = L;
		double wdt = sweep < 5 ? 600 : 60;
		for (int c = 0; c < h->nc; c++)
			if (use[c] && c != skip)
				golden(h, p, &p->R[c], wdt, use);
		if (!fixnu)
			golden(h, p, &p->lognu, sweep < 5 ? 3 : 0.3, use);
		if (freepen)
			golden(h, p, &p->pen, wdt, use);
		L = eval_point(h, p, use);
	}
	return L;
}

/* ---- random cohorts ---- */

static unsigned long long rng = 88172645463325252ULL;

static double
unif(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (rng >> 11) * (1.0 / 9007199254740992.0);
}

static void
gen_block(struct fit_block_in *b, int cond, double R, double anchor, int black, double nu,
          double pen, int games)
{
	double x = pow(10, (R - anchor + (black ? -pen : pen)) / 400);
	double den = x + 1 + nu * sqrt(x);

	b->cond = (size_t)cond;
	b->anchor = anchor;
	b->black = black;
	b->w = b->d = b->l = 0;
	for (int g = 0; g < games; g++) {
		double u = unif();
		if (u < x / den)
			b->w++;
		else if (u < (x + nu * sqrt(x)) / den)
			b->d++;
		else
			b->l++;
	}
}

static void
gen_cohort(struct cohort *h, int nc, int both_colors)
{
	h->nc = nc;
	h->nb = 0;
	for (int c = 0; c < nc; c++) {
		double R = 1200 + 1600 * unif();
		int nblocks = 1 + (int)(unif() * 4);
		for (int k = 0; k < nblocks && h->nb < MAXB; k++) {
			double anchor = 1320 + 200 * floor(unif() * 9);
			int black = both_colors ? unif() < 0.5 : 1;
			gen_block(&h->b[h->nb++], c, R, anchor, black, 0.9, 35,
			          10 + (int)(unif() * 11));
		}
	}
}

static int
sat_of(const struct cohort *h, int c)
{
	long w = 0, l = 0, n = 0;

	for (int i = 0; i < h->nb; i++)
		if ((int)h->b[i].cond == c) {
			w += h->b[i].w;
			l += h->b[i].l;
			n += h->b[i].w + h->b[i].d + h->b[i].l;
		}
	return n == 0 ? FIT_EMPTY : w == n ? FIT_SAT_UP : l == n ? FIT_SAT_DOWN : FIT_FINITE;
}

static int
run_fit(const struct cohort *h, double pen, int estimate, int direct, struct fit_result *r,
        struct fit_model **mp)
{
	struct err e = ERR_INIT;
	struct fit_model *m = fit_model_new((size_t)h->nc, h->b, (size_t)h->nb, &e);
	struct fit_spec spec = {pen * FIT_LOG_PER_ELO, estimate, 0.95, 1, direct};

	if (m == NULL || fit_solve_all(m, &spec, r, &e) < 0) {
		fit_model_free(m);
		*mp = NULL;
		return -1;
	}
	*mp = m;
	return 0;
}

#define ELO(t) ((t) / FIT_LOG_PER_ELO)

/* An interval end is right when 0.005 Elo inside it the profile is within
 * the cut and 0.005 Elo outside it is not; the profile is computed by the
 * second method.  sign: -1 lower end, +1 upper end. */
static int
end_straddles(const struct cohort *h, const struct point *mle, double Lhat, const int *use, int c,
              double end, int sign, int freepen, double q, char *why, size_t nw)
{
	double dev[2];
	int inuse[MAXC];

	memcpy(inuse, use, sizeof inuse);
	inuse[c] = 1;
	for (int k = 0; k < 2; k++) {
		struct point p = *mle;
		p.R[c] = end + (k == 0 ? -sign : sign) * 0.005;
		for (int j = 0; j < h->nc; j++)
			if (!use[j] && j != c)
				p.R[j] = 0;
		dev[k] = 2 * (Lhat - ascend(h, &p, inuse, c, 0, freepen));
	}
	snprintf(why, nw, "cond %d end %.4f: 2dL inside %.6f outside %.6f, cut %.6f", c, end,
	         dev[0], dev[1], q);
	return dev[0] < q && dev[1] > q;
}

static void
check_random(int trials, int both_colors)
{
	char name[200], why[256];
	int bad_est = 0, bad_end = 0, bad_direct = 0, bad_sat = 0, count = 0;
	double worst = 0, worst_direct = 0;

	for (int t = 0; t < trials; t++) {
		struct cohort h;
		struct fit_result r = FIT_RESULT_INIT, rd = FIT_RESULT_INIT;
		struct fit_model *m, *md;
		int use[MAXC] = {0}, nfin = 0;

		gen_cohort(&h, 2 + (int)(unif() * 4), both_colors);
		if (run_fit(&h, 35, both_colors, 0, &r, &m) < 0)
			continue; /* not identified: the refusal is tested elsewhere */
		count++;
		for (int c = 0; c < h.nc; c++)
			nfin += use[c] = sat_of(&h, c) == FIT_FINITE;

		/* Second method from a different start: the pooled anchors. */
		struct point p;
		memset(&p, 0, sizeof p);
		for (int c = 0; c < h.nc; c++)
			p.R[c] = 2000;
		p.lognu = 0;
		p.pen = 35;
		double Lhat = ascend(&h, &p, use, -1, 0, both_colors);
		for (int c = 0; c < h.nc; c++) {
			if (!use[c])
				continue;
			double d = fabs(ELO(r.theta[c]) - p.R[c]);
			if (d > worst)
				worst = d;
			if (d > 0.01) {
				bad_est++;
				fprintf(stderr, "trial %d cond %d: fit %.4f second method %.4f\n",
				        t, c, ELO(r.theta[c]), p.R[c]);
			}
		}
		if (fabs(exp(r.phi) - exp(p.lognu)) > 1e-5)
			bad_est++;
		if (both_colors && fabs(ELO(r.pen) - p.pen) > 0.01)
			bad_est++;

		/* Every finite interval end straddles the cut. */
		double q = fit_chi2_quantile(0.95);
		for (int c = 0; c < h.nc && t % 3 == 0; c++) {
			if (sat_of(&h, c) == FIT_EMPTY)
				continue;
			if (isfinite(r.lo[c]) &&
			    !end_straddles(&h, &p, Lhat, use, c, ELO(r.lo[c]), -1, both_colors, q,
			                   why, sizeof why)) {
				bad_end++;
				fprintf(stderr, "trial %d %s\n", t, why);
			}
			if (isfinite(r.hi[c]) &&
			    !end_straddles(&h, &p, Lhat, use, c, ELO(r.hi[c]), +1, both_colors, q,
			                   why, sizeof why)) {
				bad_end++;
				fprintf(stderr, "trial %d %s\n", t, why);
			}
			/* Saturated: exactly one open end, on the right side. */
			int s = sat_of(&h, c);
			if ((s == FIT_SAT_UP && (isfinite(r.hi[c]) || !isfinite(r.lo[c]))) ||
			    (s == FIT_SAT_DOWN && (isfinite(r.lo[c]) || !isfinite(r.hi[c]))) ||
			    (s == FIT_FINITE && (!isfinite(r.lo[c]) || !isfinite(r.hi[c]))))
				bad_sat++;
		}

		/* The reduced profile against full re-optimisation. */
		if (run_fit(&h, 35, both_colors, 1, &rd, &md) == 0) {
			for (int c = 0; c < h.nc; c++) {
				double a[2] = {r.lo[c], r.hi[c]}, b[2] = {rd.lo[c], rd.hi[c]};
				for (int k = 0; k < 2; k++) {
					if (isfinite(a[k]) != isfinite(b[k])) {
						bad_direct++;
						continue;
					}
					if (!isfinite(a[k]))
						continue;
					double d = fabs(ELO(a[k]) - ELO(b[k]));
					if (d > worst_direct)
						worst_direct = d;
					if (d > 1e-6)
						bad_direct++;
				}
			}
			fit_result_release(&rd);
			fit_model_free(md);
		}
		fit_result_release(&r);
		fit_model_free(m);
	}
	snprintf(name, sizeof name,
	         "%s: %d random cohorts: ratings and nu agree with coordinate ascent within 0.01 "
	         "Elo (worst %.2g)",
	         both_colors ? "both colors, penalty estimated" : "black only", count, worst);
	report(bad_est == 0 && count >= trials / 2, name, "%d disagreements", bad_est);
	snprintf(name, sizeof name, "%s: profile ends straddle the chi-square cut within 0.005 Elo",
	         both_colors ? "both colors" : "black only");
	report(bad_end == 0, name, "%d ends off", bad_end);
	snprintf(name, sizeof name, "%s: open ends exactly where a condition is saturated",
	         both_colors ? "both colors" : "black only");
	report(bad_sat == 0, name, "%d wrong", bad_sat);
	snprintf(name, sizeof name,
	         "%s: reduced profiles equal full re-optimisation (worst %.2g Elo)",
	         both_colors ? "both colors" : "black only", worst_direct);
	report(bad_direct == 0, name, "%d ends differ", bad_direct);
}

/* One condition, one anchor: with nu free the model is the saturated
 * multinomial, so x = w/l and nu = d / sqrt(w l).  With nu fixed (here:
 * another condition pins it), the score equation
 *     w + d/2 = n (x + nu y / 2) / (x + 1 + nu y),  y = sqrt(x)
 * is (n - S) y^2 + nu (n/2 - S) y - S = 0 with S = w + d/2. */
static void
check_closed_forms(void)
{
	struct cohort h = {1, 1, {{0, 1720, 1, 6, 3, 1}}};
	struct fit_result r = FIT_RESULT_INIT;
	struct fit_model *m;

	if (run_fit(&h, 35, 0, 0, &r, &m) < 0) {
		report(0, "closed form, one block", "fit failed");
		return;
	}
	double want = 1720 + 35 + 400 * log10(6.0 / 1), nu = 3 / sqrt(6.0);
	report(fabs(ELO(r.theta[0]) - want) < 1e-6 && fabs(exp(r.phi) - nu) < 1e-9,
	       "closed form, one block 6-3-1 at 1720: rating 1720+35+400 log10(w/l), nu d/sqrt(wl)",
	       "got %.6f nu %.9f, want %.6f nu %.9f", ELO(r.theta[0]), exp(r.phi), want, nu);
	fit_result_release(&r);
	fit_model_free(m);

	/* Two conditions: the second's rating given the fitted nu. */
	struct cohort h2 = {
	    2, 3, {{0, 1520, 1, 6, 2, 2}, {0, 1920, 1, 3, 2, 5}, {1, 1320, 1, 2, 2, 6}}};
	if (run_fit(&h2, 35, 0, 0, &r, &m) < 0) {
		report(0, "closed form, nu fixed", "fit failed");
		return;
	}
	double n = 10, S = 2 + 1.0, v = exp(r.phi);
	double A = n - S, B = v * (n / 2 - S), C = -S;
	double y = (-B + sqrt(B * B - 4 * A * C)) / (2 * A);
	want = 1320 + 35 + 800 * log10(y);
	report(fabs(ELO(r.theta[1]) - want) < 1e-6,
	       "closed form, nu fixed: quadratic in sqrt(x) for 2-2-6 at 1320",
	       "got %.6f want %.6f", ELO(r.theta[1]), want);
	fit_result_release(&r);
	fit_model_free(m);
}

/* A saturated condition changes nothing else, and its bound is where the
 * profile (second method) crosses the cut. */
static void
check_saturated(void)
{
	struct cohort a = {
	    2, 3, {{0, 1520, 1, 6, 2, 2}, {0, 1920, 1, 3, 2, 5}, {1, 1320, 1, 2, 2, 6}}};
	struct cohort b = a;
	struct fit_result ra = FIT_RESULT_INIT, rb = FIT_RESULT_INIT;
	struct fit_model *ma, *mb;
	char why[256];

	b.nc = 4;
	b.b[b.nb++] = (struct fit_block_in){2, 2420, 1, 10, 0, 0};
	b.b[b.nb++] = (struct fit_block_in){3, 1320, 1, 0, 0, 10};
	if (run_fit(&a, 35, 0, 0, &ra, &ma) < 0 || run_fit(&b, 35, 0, 0, &rb, &mb) < 0) {
		report(0, "saturated conditions", "fit failed");
		return;
	}
	int same = ra.phi == rb.phi && ra.theta[0] == rb.theta[0] && ra.theta[1] == rb.theta[1];
	report(same, "saturated conditions do not move nu or the other ratings",
	       "nu %.12f vs %.12f", exp(ra.phi), exp(rb.phi));
	report(isnan(rb.theta[2]) && isnan(rb.theta[3]) && isnan(rb.hi[2]) && isnan(rb.lo[3]),
	       "saturated ratings and their open ends are absent", "theta %g %g", rb.theta[2],
	       rb.theta[3]);
	int use[MAXC] = {1, 1, 0, 0};
	struct point p = {{0}, 0, 35};
	p.R[0] = p.R[1] = 1500;
	double Lhat = ascend(&b, &p, use, -1, 0, 0), q = fit_chi2_quantile(0.95);
	report(end_straddles(&b, &p, Lhat, use, 2, ELO(rb.lo[2]), -1, 0, q, why, sizeof why),
	       "10-0-0 at 2420: lower bound straddles the cut (second method)", "%s", why);
	report(end_straddles(&b, &p, Lhat, use, 3, ELO(rb.hi[3]), +1, 0, q, why, sizeof why),
	       "0-0-10 at 1320: upper bound straddles the cut (second method)", "%s", why);
	fit_result_release(&ra);
	fit_result_release(&rb);
	fit_model_free(ma);
	fit_model_free(mb);
}

/* The nu interval: second method at its ends. */
static void
check_nu_interval(void)
{
	struct cohort h = {
	    2, 3, {{0, 1520, 1, 6, 2, 2}, {0, 1920, 1, 3, 2, 5}, {1, 1320, 1, 2, 2, 6}}};
	struct fit_result r = FIT_RESULT_INIT;
	struct fit_model *m;
	int use[MAXC] = {1, 1}, good = 1;
	double q = fit_chi2_quantile(0.95);

	if (run_fit(&h, 35, 0, 0, &r, &m) < 0) {
		report(0, "nu interval", "fit failed");
		return;
	}
	struct point p = {{1500, 1500}, 0, 35};
	double Lhat = ascend(&h, &p, use, -1, 0, 0);
	double ends[2] = {r.phi_lo, r.phi_hi};
	for (int k = 0; k < 2; k++) {
		for (int side = -1; side <= 1; side += 2) {
			struct point t = p;
			t.lognu = ends[k] + side * 1e-5;
			double dev = 2 * (Lhat - ascend(&h, &t, use, -1, 1, 0));
			int inside = (k == 0) == (side > 0);
			if (inside != (dev < q))
				good = 0;
		}
	}
	report(good, "nu profile ends straddle the cut (second method)", "nu %g..%g", exp(r.phi_lo),
	       exp(r.phi_hi));
	fit_result_release(&r);
	fit_model_free(m);
}

/* The chance, computed here, that every game of condition c goes as it
 * went (w = n: all wins; else all losses) at rating R (Elo). */
static double
chance_all(const struct cohort *h, int c, double R, double nu, double pen)
{
	double P = 1;

	for (int i = 0; i < h->nb; i++) {
		const struct fit_block_in *b = &h->b[i];
		if ((int)b->cond != c)
			continue;
		double x = pow(10, (R - b->anchor + (b->black ? -pen : pen)) / 400);
		double den = x + 1 + nu * sqrt(x), n = (double)(b->w + b->d + b->l);
		P *= pow((b->w > 0 ? x : 1) / den, n);
	}
	return P;
}

/* Exact bounds of saturated conditions: with nu fixed, 10-0-0 at one
 * anchor has P(win)^10 = a at its bound, P(win) = x / (x + 1 + nu y),
 * y = sqrt(x): with c = a^(1/10), (1 - c) y^2 - c nu y - c = 0; 0-0-10 has
 * (x + 1 + nu y) c = 1.  Then blocks at several anchors and colors, and
 * the bound fit_solve_all reports at the fitted nu: the chance at the
 * bound is a = (1 - level)/2 to 1e-9. */
static void
check_exact_bounds(void)
{
	struct err e = ERR_INIT;
	const double nus[] = {1.02, 0.37, 0};
	const double a = 0.025, pen = 35, cc = pow(a, 0.1);
	char name[160];

	for (size_t k = 0; k < sizeof nus / sizeof nus[0]; k++) {
		double nu = nus[k], phi = nu > 0 ? log(nu) : -INFINITY, th;
		for (int up = 1; up >= 0; up--) {
			struct cohort h = {1, 1, {{0, 1500, 1, up ? 10 : 0, 0, up ? 0 : 10}}};
			struct fit_model *m = fit_model_new(1, h.b, 1, &e);
			double y = up ? (cc * nu + sqrt(cc * cc * nu * nu + 4 * cc * (1 - cc))) / (2 * (1 - cc))
			              : (-nu + sqrt(nu * nu - 4 * (1 - 1 / cc))) / 2;
			double want = 1500 + pen + 800 * log10(y);
			int rc = m ? fit_exact_bound(m, 0, phi, pen * FIT_LOG_PER_ELO, a, &th, &e) : -1;
			double got = ELO(th), P = chance_all(&h, 0, got, nu, pen);
			snprintf(name, sizeof name, "exact bound of %s at nu %g: closed form, P = 0.025",
			         up ? "10-0-0" : "0-0-10", nu);
			report(rc == 0 && fabs(got - want) < 1e-7 && fabs(P - a) < 1e-9, name,
			       "got %.9f (P %.12g), want %.9f", got, P, want);
			fit_model_free(m);
		}
	}
	/* several anchors and both colors, through fit_solve_all */
	struct cohort h = {3, 5, {{0, 1520, 1, 6, 2, 2}, {0, 1920, 0, 3, 2, 5},
	    {1, 2420, 1, 10, 0, 0}, {1, 2620, 0, 4, 0, 0}, {2, 1320, 0, 0, 0, 7}}};
	struct fit_result r = FIT_RESULT_INIT;
	struct fit_model *m;
	if (run_fit(&h, pen, 0, 0, &r, &m) < 0) {
		report(0, "exact bounds in a fit", "fit failed");
		return;
	}
	for (int c = 1; c <= 2; c++) {
		double P = chance_all(&h, c, ELO(r.bound[c]), exp(r.phi), pen);
		int side = c == 1 ? ELO(r.bound[c]) < ELO(r.lo[c]) : ELO(r.bound[c]) > ELO(r.hi[c]);
		snprintf(name, sizeof name, "exact bound in a fit (%s): P = 0.025 at the fitted nu, "
		         "beyond the profile end", c == 1 ? "all wins at two anchors, both colors" :
		         "all losses");
		report(fabs(P - a) < 1e-9 && side, name, "P %.12g, bound %.4f, profile %.4f %.4f", P,
		       ELO(r.bound[c]), ELO(r.lo[c]), ELO(r.hi[c]));
	}
	report(isnan(r.bound[0]), "a finite condition has no exact bound", "%g", r.bound[0]);
	fit_result_release(&r);
	fit_model_free(m);
}

int
main(int argc, char **argv)
{
	int trials = argc > 1 ? atoi(argv[1]) : 24;

	check_exact_bounds();
	check_closed_forms();
	check_saturated();
	check_nu_interval();
	check_random(trials, 0);
	check_random(trials / 2, 1);
	return failures ? 1 : 0;
}
