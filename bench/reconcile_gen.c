/* reconcile_gen.c: synthetic inputs for bench/reconcile.sh.
 *
 * usage: reconcile_gen N DIR
 * Writes DIR/spec.json, DIR/ledger.jsonl (N/100 terminal games),
 * DIR/requests.jsonl (N requests, 100 per game) and DIR/billing.csv (one
 * row per request, in blocks of 1000 written in reverse order), all of
 * which agree, so a reconciliation finds nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const char *const conds[] = { "none", "top10", "top5", "top3", "top2" };

static unsigned long long
mix(unsigned long long x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

struct req {
	long long in, out, rsn, cached, latency;
};

static void
request(long long i, struct req *q)
{
	unsigned long long h = mix((unsigned long long)i + 1);
	q->in = 2000 + (long long)(h % 9000);
	q->cached = (long long)((h >> 16) % (unsigned long long)q->in);
	q->out = 100 + (long long)((h >> 24) % 3000);
	q->rsn = (long long)((h >> 40) % 8000);
	q->latency = 1000 + (long long)((h >> 8) % 60000);
}

static void
stamp(long long t, char out[32])
{
	time_t tt = (time_t)t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static FILE *
open_out(const char *dir, const char *name)
{
	char path[4096];
	FILE *fp;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	fp = fopen(path, "w");
	if (fp == NULL) {
		perror(path);
		exit(2);
	}
	setvbuf(fp, NULL, _IOFBF, 1 << 20);
	return fp;
}

int
main(int argc, char **argv)
{
	long long n, games, per = 100, base = 1785000000; /* 2026-07-25 */
	FILE *spec, *ledger, *reqs, *bill;
	char ts[32], t0[32], t1[32];

	if (argc != 3 || (n = atoll(argv[1])) < 1) {
		fprintf(stderr, "usage: reconcile_gen N DIR\n");
		return 2;
	}
	games = (n + per - 1) / per;
	spec = open_out(argv[2], "spec.json");
	fprintf(spec, "{\"kind\":\"cohort.spec/1\",\"name\":\"bench\",\"as_of\":\"2027-01-01T00:00:00Z\","
	    "\"families\":[\"bench\"],\"conditions\":[\"none\",\"top10\",\"top5\",\"top3\",\"top2\"],"
	    "\"color\":\"black\",\"black_penalty\":35,\"ladder\":{\"block_games\":10,\"start\":1320,"
	    "\"max\":3190,\"promote\":[[0.9,400],[0.8,300],[0.65,200]],\"stop_below\":0.35,"
	    "\"max_repeats\":1000},\"protocol\":{\"estimator\":\"davidson-joint/1\"}}\n");
	fclose(spec);
	ledger = open_out(argv[2], "ledger.jsonl");
	reqs = open_out(argv[2], "requests.jsonl");
	for (long long g = 0; g < games; g++) {
		long long first = g * per, last = first + per < n ? first + per : n;
		long long sum[4] = { 0 }, lat = 0, start = base + g * 600;
		for (long long i = first; i < last; i++) {
			struct req q;
			request(i, &q);
			stamp(start + (i - first) * 5, ts);
			fprintf(reqs, "{\"request_id\":\"r%010lld\",\"game_id\":\"g%08lld\",\"ts\":\"%s\","
			    "\"model\":{\"requested\":\"bench-model\",\"returned\":\"bench-model\"},"
			    "\"tokens\":{\"input\":%lld,\"output\":%lld,\"reasoning\":%lld,\"cached\":%lld},"
			    "\"latency_ms\":%lld,\"attempt\":1,\"status\":\"ok\"}\n", i, g, ts, q.in, q.out,
			    q.rsn, q.cached, q.latency);
			sum[0] += q.in;
			sum[1] += q.out;
			sum[2] += q.rsn;
			sum[3] += q.cached;
			lat += q.latency;
		}
		long long wall = (lat / 1000 / 360 + 1) * 360; /* a multiple of 0.1 hours */
		stamp(start, t0);
		stamp(start + wall, t1);
		/* Ten games a block, one block after another, every anchor 1320, results
		 * scoring 0.5 so the ladder repeats the block. */
		int c = (int)(g % 5);
		long long k = g / 5;
		const char *res = k % 2 == 0 ? "win" : "loss";
		fprintf(ledger, "{\"game_id\":\"g%08lld\",\"family\":\"bench\",\"model\":{\"requested\":"
		    "\"bench-model\",\"returned\":\"bench-model\"},\"condition\":\"%s\",\"color\":\"black\","
		    "\"anchor\":{\"engine\":\"stockfish-18\",\"elo\":1320,\"limiter\":\"UCI_LimitStrength\","
		    "\"time_s\":0.1},\"opening\":\"startpos\",\"block\":%lld,\"status\":\"terminal\","
		    "\"result\":\"%s\",\"termination\":\"checkmate\",\"plies\":%lld,\"started_at\":\"%s\","
		    "\"ended_at\":\"%s\",\"tokens\":{\"input\":%lld,\"output\":%lld,\"reasoning\":%lld,"
		    "\"cached\":%lld},\"wall_s\":%lld,\"worker_hours\":%lld.%lld,\"requests\":[",
		    g, conds[c], k / 10 + 1, res, 2 * (last - first), t0, t1, sum[0], sum[1], sum[2],
		    sum[3], wall, wall / 3600, wall % 3600 / 360);
		for (long long i = first; i < last; i++)
			fprintf(ledger, "%s\"r%010lld\"", i > first ? "," : "", i);
		fprintf(ledger, "]}\n");
	}
	fclose(ledger);
	if (fclose(reqs) != 0)
		return 2;
	bill = open_out(argv[2], "billing.csv");
	fprintf(bill, "request_id,ts,model,input_tokens,output_tokens,reasoning_tokens,cached_tokens,cost\n");
	for (long long b = (n - 1) / 1000; b >= 0; b--) {
		long long last = (b + 1) * 1000 < n ? (b + 1) * 1000 : n;
		for (long long i = b * 1000; i < last; i++) {
			struct req q;
			long long g = i / per;
			request(i, &q);
			stamp(base + g * 600 + (i - g * per) * 5, ts);
			fprintf(bill, "r%010lld,%s,bench-model,%lld,%lld,%lld,%lld,%lld.%06lld\n", i, ts, q.in,
			    q.out, q.rsn, q.cached, (q.in + q.out) / 1000000, (q.in + 4 * q.out) % 1000000);
		}
	}
	return fclose(bill) == 0 ? 0 : 2;
}
