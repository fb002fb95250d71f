/* sim_vs_fit: the simulation's single-condition solver (fit/sim.c) against
 * the general joint fit (fit/fit.h, fit_document) on random one-condition
 * cohorts: rating, nu and both profile-interval ends must agree to the
 * fit document's rounding (0.01 Elo, 1e-6 in nu).  Cohorts without a draw
 * are fitted by both at nu = 0 (Bradley-Terry, the boundary estimate).
 * Cohorts without a win or a loss are skipped: alone, such a condition has
 * no finite rating, and the general fit refuses it (the simulation reports
 * the rating as undefined and uses its one-sided bound).  Exits 1 on a
 * mismatch. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../fit/bound.h"
#include "../../fit/fit.h"
#include "../../fit/sim.h"
#include "../../json/json.h"

#define E BOUND_ELO_PER_NAT

static int fails;

static void
expect(int ok, const char *what, int k, double got, double want)
{
	if (!ok) {
		printf("FAIL cohort %d: %s: sim %.6f fit %.6f\n", k, what, got, want);
		fails++;
	}
}

static double
num(const cJSON *v)
{
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

int
main(void)
{
	int compared = 0, nodraw = 0;

	srand(4242);
	for (int k = 0; k < 150; k++) {
		struct sim_obs o[6];
		struct sim_fit f;
		struct err e = ERR_INIT;
		cJSON *in = cJSON_CreateObject(), *bl, *out = NULL;
		const cJSON *c, *iv;
		int n = 1 + rand() % 5, W = 0, L = 0, D = 0;
		double lo, hi;

		cJSON_AddStringToObject(in, "kind", "cohort.blocks/1");
		cJSON_AddNumberToObject(in, "black_penalty", 35);
		bl = cJSON_AddArrayToObject(in, "blocks");
		for (int i = 0; i < n; i++) {
			cJSON *b = cJSON_CreateObject();
			double anchor = 1320 + 100 * (rand() % 18);
			o[i].b = (anchor + 35) / E;
			o[i].w = rand() % 7, o[i].d = rand() % 5, o[i].l = rand() % 7;
			if (k % 4 == 0)
				o[i].d = 0;
			if (o[i].w + o[i].d + o[i].l == 0)
				o[i].l = 1;
			W += o[i].w, L += o[i].l, D += o[i].d;
			cJSON_AddStringToObject(b, "condition", "x");
			cJSON_AddNumberToObject(b, "anchor", anchor);
			cJSON_AddStringToObject(b, "color", "black");
			cJSON_AddNumberToObject(b, "w", o[i].w);
			cJSON_AddNumberToObject(b, "d", o[i].d);
			cJSON_AddNumberToObject(b, "l", o[i].l);
			cJSON_AddItemToArray(bl, b);
		}
		if (W == 0 || L == 0) {
			cJSON_Delete(in);
			continue;
		}
		if (fit_document(in, NULL, &out, &e) < 0) {
			printf("FAIL cohort %d: fit_document: %s\n", k, e.msg);
			fails++;
			cJSON_Delete(in);
			continue;
		}
		if (sim_fit_joint(o, (size_t)n, &f) < 0 ||
		    sim_profile_interval(o, (size_t)n, &f, 0.95, &lo, &hi) < 0) {
			expect(0, "sim solver converges", k, 0, 0);
			goto next;
		}
		c = cJSON_GetArrayItem(json_get(out, "conditions"), 0);
		iv = json_get(c, "interval");
		if (f.defined) {
			const cJSON *dr = json_get(out, "draw");
			expect(fabs(f.s * E - num(json_get(c, "rating"))) <= 0.0051, "rating", k,
			       f.s * E, num(json_get(c, "rating")));
			if (D == 0)
				expect(f.t == -INFINITY && num(json_get(dr, "nu")) == 0 &&
				           num(cJSON_GetArrayItem(json_get(dr, "interval"), 0)) == 0,
				       "no draw: nu 0 in both, and 0 the interval's lower end", k,
				       exp(f.t), num(json_get(dr, "nu")));
			else if (json_get(dr, "nu") && f.t > -SIM_T_LIM / 2)
				expect(fabs(exp(f.t) - num(json_get(dr, "nu"))) <=
				           1e-6 * (1 + exp(f.t)),
				       "nu", k, exp(f.t), num(json_get(dr, "nu")));
			expect(fabs(lo * E - num(cJSON_GetArrayItem(iv, 0))) <= 0.0051, "lower end",
			       k, lo * E, num(cJSON_GetArrayItem(iv, 0)));
			expect(fabs(hi * E - num(cJSON_GetArrayItem(iv, 1))) <= 0.0051, "upper end",
			       k, hi * E, num(cJSON_GetArrayItem(iv, 1)));
		} else {
			expect(0, "a rating with a win and a loss is defined", k, 0, 0);
		}
		compared++;
		nodraw += D == 0;
	next:
		cJSON_Delete(out);
		cJSON_Delete(in);
	}
	if (fails == 0)
		printf("sim_vs_fit: %d cohorts agree, %d of them without a draw\n", compared, nodraw);
	return fails != 0;
}
