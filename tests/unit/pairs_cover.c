/* pairs_cover: the coverage of fit's two kinds of interval, on cohorts of
 * colour-reversed pairs whose correlation is known.
 *
 * usage: pairs_cover REPS RHO PAIRS [SEED]
 *
 * Each replicate plays, for conditions none, top5 and top2 at true
 * ratings 1400, 1700 and 2000 and anchors 1500 and 1800, PAIRS pairs of
 * games from one opening, the model White in one and Black in the other,
 * with nu 0.8 and a Black penalty of 40.  Each game's outcome is drawn
 * from its Davidson chances by a uniform u (a loss below P(loss), a draw
 * below P(loss) + P(draw), else a win); the second game of a pair takes
 * the first one's u with chance RHO, else one of its own.  So every game
 * is exactly Davidson at the true values, and RHO couples the two games
 * of a pair (0: independent).  The games go through the freeze's own
 * accumulator and fit --pairs (fit_run); the program counts how often the
 * profile intervals (which take the games as independent) and the
 * pair-aware ones hold the true rating and the true penalty, and prints
 *   rho R pairs P reps N: ratings profile X pair Y; penalty profile X pair Y;
 *   mean design effect D
 * Its generator is its own (splitmix64 from common/rng.h), written apart
 * from the fit it checks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/rng.h"
#include "../../fit/fit.h"
#include "../../freeze/freeze.h"
#include "../../json/json.h"

static const char *const conds[] = { "none", "top5", "top2" };
static const double truth[] = { 1400, 1700, 2000 };
static const double anchors[] = { 1500, 1800 };
#define NU 0.8
#define PEN 40.0

static double
uniform(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* The model's result of a game: 0 loss, 1 draw, 2 win. */
static int
outcome(double u, double rating, double anchor, int black)
{
	double x = pow(10, (rating - anchor + (black ? -PEN : PEN)) / 400);
	double D = x + 1 + NU * sqrt(x), pl = 1 / D, pd = NU * sqrt(x) / D;

	return u < pl ? 0 : u < pl + pd ? 1 : 2;
}

static cJSON *
record(const char *id, const char *pair, const char *cond, int black, double anchor, int block,
    int opening, int res)
{
	static const char *const results[] = { "loss", "draw", "win" };
	char text[1024];

	snprintf(text, sizeof text,
	    "{\"game_id\":\"%s\",\"pair\":\"%s\",\"family\":\"m\",\"model\":{\"requested\":\"m\","
	    "\"returned\":\"m\"},\"condition\":\"%s\",\"color\":\"%s\",\"anchor\":{\"engine\":\"sf\","
	    "\"elo\":%g,\"nodes\":1000},\"opening\":\"o%d\",\"block\":%d,\"status\":\"terminal\","
	    "\"result\":\"%s\",\"termination\":\"t\",\"plies\":0,\"started_at\":"
	    "\"2026-07-01T00:00:00Z\",\"ended_at\":\"2026-07-01T01:00:00Z\",\"tokens\":{\"input\":0,"
	    "\"output\":0,\"reasoning\":0,\"cached\":0},\"wall_s\":0,\"worker_hours\":0,"
	    "\"requests\":[]}", id, pair, cond, black ? "black" : "white", anchor, opening, block,
	    results[res]);
	return cJSON_Parse(text);
}

static const char spec_text[] =
    "{\"kind\":\"cohort.spec/1\",\"name\":\"cover\",\"as_of\":\"2026-08-01T00:00:00Z\","
    "\"families\":[\"m\"],\"conditions\":[\"none\",\"top5\",\"top2\"],\"black_penalty\":40,"
    "\"ladder\":{\"block_games\":10,\"start\":1500,\"max\":3000,\"promote\":[[0.9,400]],"
    "\"stop_below\":0.35,\"max_repeats\":1}}";

/* One replicate's freeze, as a tree. */
static cJSON *
replicate(struct rng *r, const cJSON *spec, double rho, int pairs, struct err *e)
{
	struct freeze_acc *acc = freeze_acc_new(spec, e);
	cJSON *manifest = NULL;

	if (acc == NULL)
		return NULL;
	for (int c = 0; c < 3; c++)
		for (int a = 0; a < 2; a++)
			for (int k = 0; k < pairs; k++) {
				double u1 = uniform(r), u2 = uniform(r) < rho ? u1 : uniform(r);
				char id[2][64];
				for (int j = 0; j < 2; j++)
					snprintf(id[j], sizeof id[j], "%s-a%d-p%04d-%c", conds[c], a, k, "wb"[j]);
				for (int j = 0; j < 2; j++) {
					cJSON *rec = record(id[j], id[1 - j], conds[c], j, anchors[a], a + 1, k % 8,
					    outcome(j ? u2 : u1, truth[c], anchors[a], j));
					const char *canon;
					size_t n;
					uint8_t d[HASH_LEN];
					int rc = rec != NULL ? freeze_acc_add(acc, rec, id[j], &canon, &n, d, e) : -1;
					cJSON_Delete(rec);
					if (rc < 0)
						goto done;
				}
			}
	freeze_acc_finish(acc, NULL, &manifest, e);
done:
	freeze_acc_free(acc);
	return manifest;
}

static int
holds(const cJSON *iv, double x)
{
	const cJSON *lo = cJSON_GetArrayItem(iv, 0), *hi = cJSON_GetArrayItem(iv, 1);

	return cJSON_IsNumber(lo) && cJSON_IsNumber(hi) && lo->valuedouble <= x && x <= hi->valuedouble;
}

int
main(int argc, char **argv)
{
	struct err e = ERR_INIT;
	struct fit_options o;
	long reps, pairs, seed = argc > 4 ? atol(argv[4]) : 1;
	double rho;
	long prof = 0, pair = 0, pprof = 0, ppair = 0, nr = 0, np = 0;
	double de = 0;
	cJSON *spec;

	if (argc < 4) {
		fprintf(stderr, "usage: pairs_cover REPS RHO PAIRS [SEED]\n");
		return 2;
	}
	reps = atol(argv[1]);
	rho = atof(argv[2]);
	pairs = atol(argv[3]);
	spec = cJSON_Parse(spec_text);
	fit_options_init(&o);
	o.pairs = 1;
	o.nsens = 0;
	for (long rep = 0; rep < reps; rep++) {
		struct rng r = rng_stream((uint64_t)seed, 0x70616972, (uint64_t)rep);
		cJSON *m = replicate(&r, spec, rho, (int)pairs, &e), *fit = NULL, *c;
		int i = 0;
		if (m == NULL || fit_run(m, &o, &fit, &e) < 0) {
			printf("FAIL replicate %ld: %s\n", rep, e.msg);
			return 1;
		}
		cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(fit, "conditions")) {
			const cJSON *iv = cJSON_GetObjectItemCaseSensitive(c, "interval");
			const cJSON *pv = cJSON_GetObjectItemCaseSensitive(c, "pair_interval");
			const cJSON *d = cJSON_GetObjectItemCaseSensitive(c, "design_effect");
			prof += holds(iv, truth[i]);
			pair += holds(pv, truth[i]);
			de += cJSON_IsNumber(d) ? d->valuedouble : NAN;
			nr++;
			i++;
		}
		const cJSON *bp = cJSON_GetObjectItemCaseSensitive(fit, "black_penalty");
		const cJSON *pp = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(fit, "pairs"), "black_penalty");
		pprof += holds(cJSON_GetObjectItemCaseSensitive(bp, "interval"), PEN);
		ppair += holds(cJSON_GetObjectItemCaseSensitive(pp, "pair_interval"), PEN);
		np++;
		cJSON_Delete(fit);
		cJSON_Delete(m);
	}
	printf("rho %g pairs %ld reps %ld: ratings profile %.4f pair %.4f; penalty profile %.4f "
	    "pair %.4f; mean design effect %.3f\n", rho, pairs, reps, (double)prof / nr,
	    (double)pair / nr, (double)pprof / np, (double)ppair / np, de / nr);
	cJSON_Delete(spec);
	return 0;
}
