/* sim_solver: the single-condition Davidson solver of fit/sim.c against
 * (1) the closed form for one anchor with nu fixed: with y = sqrt(x) and
 *     score S = (w + d/2)/n the score equation S (y^2 + 1 + nu y) =
 *     y^2 + nu y / 2 is the quadratic (1 - S) y^2 + nu (1/2 - S) y - S = 0;
 * (2) a brute-force zooming grid over (rating, nu) on a likelihood written
 *     here from the win/draw/loss probabilities, for random ladders;
 * (3) the profile interval's ends, where a brute-force profile (golden
 *     section over nu) must fall q/2 below the maximum;
 * (4) the one-sided bound of an all-loss record without draws, where the
 *     profile is -n log(1 + x) and the bound solves n log(1 + x) = q/2.
 * Prints one line per failure; exits 1 on any. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

#include "../../fit/bound.h"
#include "../../fit/sim.h"

#define E BOUND_ELO_PER_NAT

static int fails;

static void
expect(int ok, const char *what, double got, double want)
{
	if (!ok) {
		printf("FAIL %s: got %.12g want %.12g\n", what, got, want);
		fails++;
	}
}

/* Log-likelihood from the model's probabilities, rating R in Elo. */
static double
ll_direct(const struct sim_obs *o, int n, double R, double nu)
{
	double ll = 0;

	for (int i = 0; i < n; i++) {
		double x = pow(10, (R - o[i].b * E) / 400), den = x + 1 + nu * sqrt(x);
		ll += o[i].w * log(x / den) + o[i].d * log(nu * sqrt(x) / den) +
		      o[i].l * log(1 / den);
	}
	return ll;
}

/* Brute force: a 41 x 41 grid over (R, ln nu), zoomed 16 times by 4. */
static void
grid_max(const struct sim_obs *o, int n, double *R, double *nu)
{
	double cr = 2000, ct = 0, wr = 2500, wt = 6;

	for (int z = 0; z < 16; z++) {
		double best = -INFINITY, br = cr, bt = ct;
		for (int i = 0; i <= 40; i++)
			for (int j = 0; j <= 40; j++) {
				double r = cr - wr + 2 * wr * i / 40, t = ct - wt + 2 * wt * j / 40;
				double v = ll_direct(o, n, r, exp(t));
				if (v > best)
					best = v, br = r, bt = t;
			}
		cr = br, ct = bt, wr /= 4, wt /= 4;
	}
	*R = cr;
	*nu = exp(ct);
}

/* Brute-force profile: golden section over ln nu. */
static double
profile_direct(const struct sim_obs *o, int n, double R)
{
	double a = -20, b = 20, g = (sqrt(5) - 1) / 2;
	double c = b - g * (b - a), d = a + g * (b - a);

	for (int i = 0; i < 200; i++) {
		if (ll_direct(o, n, R, exp(c)) > ll_direct(o, n, R, exp(d)))
			b = d;
		else
			a = c;
		c = b - g * (b - a), d = a + g * (b - a);
	}
	return ll_direct(o, n, R, exp((a + b) / 2));
}

int
main(void)
{
	char what[160];
	double q = gsl_cdf_chisq_Pinv(0.95, 1);

	srand(12345);
	/* (1) closed form, nu fixed */
	for (int k = 0; k < 200; k++) {
		struct sim_obs o = {(1000 + rand() % 2000) / E, rand() % 11, rand() % 11,
		                    rand() % 11};
		double nu = 0.2 + 3.0 * rand() / RAND_MAX, n = o.w + o.d + o.l, S, y, s;
		if (o.w + o.d == 0 || o.l + o.d == 0)
			continue;
		S = (o.w + o.d / 2.0) / n;
		y = (-nu * (0.5 - S) + sqrt(nu * nu * (0.5 - S) * (0.5 - S) + 4 * S * (1 - S))) /
		    (2 * (1 - S));
		if (S == 1)
			continue;
		if (sim_fit_fixed(&o, 1, log(nu), &s) < 0) {
			expect(0, "sim_fit_fixed converges", 0, 1);
			continue;
		}
		snprintf(what, sizeof what, "closed form %d-%d-%d nu %.3f", o.w, o.d, o.l, nu);
		expect(fabs(s * E - (o.b * E + 2 * log(y) * E)) < 1e-6, what, s * E,
		       o.b * E + 2 * log(y) * E);
	}
	/* 0-5-5 at one anchor: the quadratic gives a finite rating below the
	 * 1164 shortcut once nu is fixed at 1.02 */
	{
		struct sim_obs o = {(1320 + 35) / E, 0, 5, 5};
		double s;
		sim_fit_fixed(&o, 1, log(1.02), &s);
		expect(s * E < 1164 && s * E > 900, "0-5-5 with nu fixed is below 1164", s * E,
		       1067);
	}
	/* (2) and (3): random ladders of 1 to 6 blocks */
	for (int k = 0; k < 60; k++) {
		struct sim_obs o[6];
		struct sim_fit f;
		int n = 1 + rand() % 6, W = 0, D = 0, L = 0;
		double R, nu, lo, hi, top;
		for (int i = 0; i < n; i++) {
			o[i].b = (1320 + 100 * (rand() % 16) + 35) / E;
			o[i].w = rand() % 8, o[i].d = rand() % 5, o[i].l = rand() % 8;
			if (o[i].w + o[i].d + o[i].l == 0)
				o[i].d = 1;
			W += o[i].w, D += o[i].d, L += o[i].l;
		}
		if (W == 0 || L == 0 || D == 0)
			continue;
		if (sim_fit_joint(o, (size_t)n, &f) < 0 || !f.defined) {
			expect(0, "sim_fit_joint converges", 0, 1);
			continue;
		}
		grid_max(o, n, &R, &nu);
		snprintf(what, sizeof what, "ladder %d: rating vs grid", k);
		expect(fabs(f.s * E - R) < 0.01, what, f.s * E, R);
		snprintf(what, sizeof what, "ladder %d: nu vs grid", k);
		expect(fabs(exp(f.t) - nu) < 1e-4 * nu, what, exp(f.t), nu);
		if (sim_profile_interval(o, (size_t)n, &f, 0.95, &lo, &hi) < 0) {
			expect(0, "profile interval", 0, 1);
			continue;
		}
		top = ll_direct(o, n, R, nu);
		snprintf(what, sizeof what, "ladder %d: profile drop at lower end", k);
		expect(fabs(2 * (top - profile_direct(o, n, lo * E)) - q) < 1e-5, what,
		       2 * (top - profile_direct(o, n, lo * E)), q);
		snprintf(what, sizeof what, "ladder %d: profile drop at upper end", k);
		expect(fabs(2 * (top - profile_direct(o, n, hi * E)) - q) < 1e-5, what,
		       2 * (top - profile_direct(o, n, hi * E)), q);
		expect(lo < f.s && f.s < hi, "interval holds the estimate", f.s, lo);
	}
	/* (4) 0-0-10: undefined below, one-sided upper bound in closed form */
	{
		struct sim_obs o = {(2120 + 35) / E, 0, 0, 10};
		struct sim_fit f;
		double lo, hi, x = exp(q / 20) - 1, want = (2120 + 35) + E * log(x);
		sim_fit_joint(&o, 1, &f);
		expect(!f.defined && f.side == -1, "0-0-10 is undefined below", f.side, -1);
		sim_profile_interval(&o, 1, &f, 0.95, &lo, &hi);
		expect(isinf(lo) && lo < 0 && fabs(hi * E - want) < 1e-6, "0-0-10 one-sided bound",
		       hi * E, want);
	}
	/* 10-0-0: undefined above, the mirror image */
	{
		struct sim_obs o = {(2420 + 35) / E, 10, 0, 0};
		struct sim_fit f;
		double lo, hi, x = exp(q / 20) - 1, want = (2420 + 35) - E * log(x);
		sim_fit_joint(&o, 1, &f);
		sim_profile_interval(&o, 1, &f, 0.95, &lo, &hi);
		expect(!f.defined && f.side == 1 && isinf(hi) && fabs(lo * E - want) < 1e-6,
		       "10-0-0 one-sided bound", lo * E, want);
	}
	/* No draw: nu goes to 0, the rating is the Bradley-Terry one:
	 * 5-0-5 at one anchor is exactly the anchor plus correction. */
	{
		struct sim_obs o = {1755 / E, 5, 0, 5};
		struct sim_fit f;
		sim_fit_joint(&o, 1, &f);
		expect(f.defined && fabs(f.s * E - 1755) < 1e-6, "5-0-5 without draws", f.s * E,
		       1755);
	}
	if (fails == 0)
		puts("sim_solver: all checks hold");
	return fails != 0;
}
