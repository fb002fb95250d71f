/* dist_simd: cohort distance's quadratic forms, four replicates to an AVX2
 * register and one at a time, give the same bits: on random triangular
 * factors and differences of every size from 1 to 40 features and 1 to 32
 * replicates (NaN differences among them), then on whole documents for the
 * fingerprint files named.  On a processor without AVX2 it says so and
 * checks the documents only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../fingerprint/fp.h"
#include "../../json/json.h"

static double
unif(unsigned long long *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(*s >> 11) / 9007199254740992.0;
}

/* 0 when both ways agree bit for bit on every case. */
static int
forms(void)
{
	unsigned long long s = 42;
	static double L[40 * 40], u[FP_QB * 40], v[FP_QB * 40], y[FP_QB * 40], a[FP_QB], b[FP_QB];

	for (size_t F = 1; F <= 40; F++)
		for (size_t nq = 1; nq <= FP_QB; nq++) {
			for (size_t i = 0; i < F * F; i++)
				L[i] = i % (F + 1) == 0 ? 0.5 + unif(&s) : unif(&s) - 0.5;
			for (size_t i = 0; i < FP_QB * F; i++) {
				u[i] = 10 * unif(&s) - 5;
				v[i] = unif(&s) < 0.01 ? NAN : 10 * unif(&s) - 5;
			}
			fp_quad_block(L, F, u, v, nq, a, y, 0);
			fp_quad_block(L, F, u, v, nq, b, y, 1);
			if (memcmp(a, b, nq * sizeof a[0]) != 0) {
				fprintf(stderr, "dist_simd: %zu features, %zu replicates: other bits\n", F, nq);
				return 1;
			}
		}
	return 0;
}

static int
run(const cJSON *const *docs, size_t n, int plain, struct buf *out)
{
	struct fp_dist_opts o = { 1, NULL, plain };
	struct err e = ERR_INIT;
	cJSON *doc = NULL;
	int rc = fp_distance(docs, n, &o, &doc, &e) == 0 && canon_write(doc, out, &e) == 0 ? 0 : -1;

	if (rc < 0)
		fprintf(stderr, "dist_simd: %s\n", e.msg);
	cJSON_Delete(doc);
	return rc;
}

int
main(int argc, char **argv)
{
	const cJSON *docs[64];
	struct buf a = BUF_INIT, b = BUF_INIT;
	struct err e = ERR_INIT;
	int avx2 = __builtin_cpu_supports("avx2"), bad = avx2 ? forms() : 0;
	size_t n = 0;

	for (int i = 1; i < argc && n < 64; i++)
		if ((docs[n++] = json_parse_file(argv[i], &e)) == NULL) {
			fprintf(stderr, "dist_simd: %s\n", e.msg);
			return 2;
		}
	if (n > 0 && (run(docs, n, 0, &a) < 0 || run(docs, n, 1, &b) < 0))
		return 2;
	bad |= a.len != b.len || (a.len > 0 && memcmp(a.p, b.p, a.len) != 0);
	printf("%s (%s)\n", bad ? "OTHER BITS" : "the same bits",
	    avx2 ? "AVX2 against one at a time" : "no AVX2 here: documents only");
	for (size_t i = 0; i < n; i++)
		cJSON_Delete((cJSON *)docs[i]);
	buf_release(&a);
	buf_release(&b);
	return bad;
}
