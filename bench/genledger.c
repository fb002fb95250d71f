/* genledger.c: a fast generator of large game ledgers for the benchmarks.
 *
 *   genledger GAMES SPEC_OUT [terminal] > LEDGER
 *
 * Writes a cohort.spec/1 with the Luna pilot's families and conditions and
 * a JSON Lines ledger of GAMES records shaped like the Luna pilot's (about
 * 650 bytes each: tokens, times, a list of request ids; keys in harness
 * order, not canonical order, so a freeze has real canonicalizing to do).
 * About 1% of the records are provider errors (excluded).  The terminal
 * games form ladder-consistent blocks: in each condition, blocks of
 * block_games games climb from 1320 by 200 after a scoring block and are
 * otherwise middling repeats (the spec allows up to 1000 repeats), so the
 * freeze has no deviations and every condition is active; with
 * "terminal", each condition's last block loses every game, so its ladder
 * stops (stop_below) and the freeze can be bundled.  Deterministic:
 * the same GAMES gives the same bytes.  Standalone (libc only). */
#define _POSIX_C_SOURCE 200809L /* gmtime_r */

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const conds[] = { "none", "top10", "top5", "top3", "top2" };
#define NCOND 5
#define NANCHOR 11 /* 1320, 1520, ..., 3120, then 3190 */
#define MAX_REPEATS 1000

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)((rng >> 11) % n);
}

static char *out;
static size_t olen, ocap;

static void
flush(void)
{
	if (olen && fwrite(out, 1, olen, stdout) != olen) {
		perror("genledger: write");
		exit(1);
	}
	olen = 0;
}

static void
emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
emit(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ocap - olen < 4096)
		flush();
	va_start(ap, fmt);
	n = vsnprintf(out + olen, ocap - olen, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= ocap - olen) {
		fprintf(stderr, "genledger: record too long\n");
		exit(1);
	}
	olen += (size_t)n;
}

static void
stamp(time_t t, char s[32])
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(s, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static double
anchor_of(long k)
{
	return k < NANCHOR - 1 ? 1320 + 200 * k : 3190;
}

static const char *const terms[] = { "checkmate", "resignation", "threefold_repetition",
	"stalemate", "fifty_moves", "insufficient_material" };

static void
record(const char *cond, long block, int g, const char *suffix, double anchor, const char *status,
    const char *result, time_t *clock)
{
	char id[96], t0[32], t1[32];
	int plies = 20 + (int)rnd(180), nreq = 1 + (int)rnd(3);
	double wall = 300 + rnd(6000000) / 1000.0;
	long in = 20000 + rnd(400000), outk = 2000 + rnd(40000), reas = rnd(200000);
	long cached = rnd((uint32_t)in);

	snprintf(id, sizeof id, "luna-%s-b%05ld-g%02d%s", cond, block, g, suffix);
	stamp(*clock, t0);
	stamp(*clock + (time_t)wall, t1);
	*clock += 2;
	emit("{\"game_id\":\"%s\",\"family\":\"luna\",\"model\":{\"requested\":\"luna-2026-06-30\","
	    "\"returned\":\"luna-2026-06-30\"},\"condition\":\"%s\",\"color\":\"black\","
	    "\"anchor\":{\"engine\":\"stockfish-18\",\"elo\":%g,\"time_s\":0.1,"
	    "\"limiter\":\"UCI_LimitStrength\",\"binary_sha256\":"
	    "\"c4c921fb4d900ee5a054eaaace8ab2f7749d6900a5ab6613e75c98822ec8a9a7\"},"
	    "\"opening\":\"startpos\",\"block\":%ld,\"status\":\"%s\",",
	    id, cond, anchor, block, status);
	if (result != NULL)
		emit("\"result\":\"%s\",\"termination\":\"%s\",\"plies\":%d,\"started_at\":\"%s\","
		    "\"ended_at\":\"%s\",", result, terms[rnd(6)], plies, t0, t1);
	else
		emit("\"started_at\":\"%s\",", t0);
	emit("\"tokens\":{\"input\":%ld,\"output\":%ld,\"reasoning\":%ld,\"cached\":%ld},"
	    "\"wall_s\":%.3f,\"worker_hours\":%.6f,\"requests\":[", in, outk, reas, cached, wall,
	    wall / 3600);
	for (int r = 1; r <= nreq; r++)
		emit("%s\"r%08lx-%d\"", r > 1 ? "," : "", (unsigned long)(*clock / 2), r);
	emit("]}\n");
}

int
main(int argc, char **argv)
{
	long games, per, bg, blocks, per_anchor;
	time_t clock = 1780272000; /* 2026-06-01T00:00:00Z */
	FILE *sp;
	int terminal = argc == 4 && strcmp(argv[3], "terminal") == 0;

	if ((argc != 3 && !terminal) || (games = atol(argv[1])) < NCOND) {
		fprintf(stderr, "usage: genledger GAMES SPEC_OUT [terminal] > LEDGER\n");
		return 2;
	}
	/* 1% provider errors; the rest in NCOND conditions of full blocks, few
	 * enough blocks that the ladder never runs out of repeats. */
	per = (games - games / 100) / NCOND;
	bg = 20;
	while ((per + bg - 1) / bg > (long)NANCHOR * (MAX_REPEATS + 1))
		bg *= 2;
	blocks = per / bg > 0 ? per / bg : 1;
	per_anchor = (blocks + NANCHOR - 1) / NANCHOR;
	sp = fopen(argv[2], "w");
	if (sp == NULL) {
		perror(argv[2]);
		return 1;
	}
	fprintf(sp, "{\"kind\": \"cohort.spec/1\", \"name\": \"bench-%ld\", "
	    "\"as_of\": \"2026-12-31T00:00:00Z\", \"families\": [\"luna\"], "
	    "\"conditions\": [\"none\", \"top10\", \"top5\", \"top3\", \"top2\"], "
	    "\"color\": \"black\", \"black_penalty\": 35, \"ladder\": {\"block_games\": %ld, "
	    "\"start\": 1320, \"max\": 3190, \"promote\": [[0.65, 200]], \"stop_below\": 0.35, "
	    "\"max_repeats\": %d}}\n", games, bg, MAX_REPEATS);
	if (fclose(sp) != 0) {
		perror(argv[2]);
		return 1;
	}
	ocap = 1 << 22;
	out = malloc(ocap);
	if (out == NULL)
		return 1;
	long written = 0, errors = games - blocks * bg * NCOND, slot = 0;
	char *res = malloc((size_t)bg);
	for (long b = 1; b <= blocks; b++) {
		long k = (b - 1) / per_anchor;
		/* the last block at an anchor scores and promotes (not at the top) */
		int promote = b % per_anchor == 0 && k < NANCHOR - 1;
		for (int c = 0; c < NCOND; c++) {
			long n = bg, w, d;
			if (terminal && b == blocks) {
				w = 0;
				d = 0;
			} else if (promote) {
				w = n * 7 / 10 + rnd((uint32_t)(n - n * 7 / 10) + 1);
				d = n - w;
			} else {
				w = n * 4 / 10 + rnd((uint32_t)(n / 10) + 1);
				d = rnd((uint32_t)(n / 10) + 1);
			}
			/* shuffle the block's results */
			for (long i = 0; i < n; i++)
				res[i] = i < w ? 0 : i < w + d ? 1 : 2;
			for (long i = n - 1; i > 0; i--) {
				long j = rnd((uint32_t)i + 1);
				char t = res[i];
				res[i] = res[j];
				res[j] = t;
			}
			static const char *const rn[] = { "win", "draw", "loss" };
			for (long i = 0; i < n; i++)
				record(conds[c], b, (int)i + 1, "", anchor_of(k), "terminal", rn[(int)res[i]],
				    &clock);
			written += n;
			/* provider errors spread evenly over the blocks */
			long ne = (slot + 1) * errors / (blocks * NCOND) - slot * errors / (blocks * NCOND);
			for (long i = 0; i < ne; i++) {
				char sfx[32];
				snprintf(sfx, sizeof sfx, "-e%ld", i + 1);
				record(conds[c], b, 1, sfx, anchor_of(k), "provider_error", NULL, &clock);
				written++;
			}
			slot++;
		}
	}
	flush();
	free(res);
	free(out);
	fprintf(stderr, "genledger: %ld records, blocks of %ld games, %ld blocks per condition\n",
	    written, bg, blocks);
	return fflush(stdout) == 0 ? 0 : 1;
}
