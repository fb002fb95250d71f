/* dist_simd: cohort distance's quadratic forms, four replicates to an AVX2
 * register and one at a time, give the same bits: on random triangular
 * factors and differences of every size from 1 to 40 features and 1 to 32
 * replicates (NaN differences among them), then on whole documents for the
 * fingerprint files named.  On a processor without AVX2 it says so and
 * checks the documents only.  The documents are also read with their
 * replicate rows held flat (fp_read_file), as cohort distance reads them:
 * the same document as from the whole tree. */
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
run(const cJSON *const *docs, size_t n, int plain, const struct fp_rows *rows,
    char (*ids)[HASH_ID_LEN + 1], struct buf *out)
{
	struct fp_dist_opts o = { .jobs = 1, .plain = plain, .rows = rows, .ids = ids };
	struct err e = ERR_INIT;
	cJSON *doc = NULL;
	int rc = fp_distance(docs, n, &o, &doc, &e) == 0 && canon_write(doc, out, &e) == 0 ? 0 : -1;

	if (rc < 0)
		fprintf(stderr, "dist_simd: %s\n", e.msg);
	cJSON_Delete(doc);
	return rc;
}

/* The documents again with their rows held flat: 0 when the distance is
 * the same bytes as from the trees (in a). */
static int
flat(char **paths, size_t n, const struct buf *a)
{
	const cJSON *docs[64];
	struct fp_rows *rows = fp_rows_new();
	char ids[64][HASH_ID_LEN + 1];
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	size_t k = 0;
	int rc = rows == NULL ? 2 : 0;

	for (; rc == 0 && k < n; k++) {
		struct json_ident *t = NULL;
		docs[k] = fp_read_file(paths[k], rows, 1, &t, &e);
		if (docs[k] == NULL || json_ident_end(t, ids[k], &e) < 0) {
			fprintf(stderr, "dist_simd: %s\n", e.msg);
			rc = 2;
			k += docs[k] != NULL;
			break;
		}
	}
	if (rc == 0 && run(docs, n, 0, rows, ids, &b) < 0)
		rc = 2;
	if (rc == 0 && (a->len != b.len || memcmp(a->p, b.p, a->len) != 0)) {
		fprintf(stderr, "dist_simd: rows held flat: another document\n");
		rc = 1;
	}
	for (size_t i = 0; i < k; i++)
		cJSON_Delete((cJSON *)docs[i]);
	fp_rows_free(rows);
	buf_release(&b);
	return rc;
}

int
main(int argc, char **argv)
{
	const cJSON *docs[64];
	struct buf a = BUF_INIT, b = BUF_INIT;
	struct err e = ERR_INIT;
	int avx2 = __builtin_cpu_supports("avx2"), bad = avx2 ? forms() : 0, rc;
	size_t n = 0;

	for (int i = 1; i < argc && n < 64; i++)
		if ((docs[n++] = json_parse_file(argv[i], &e)) == NULL) {
			fprintf(stderr, "dist_simd: %s\n", e.msg);
			return 2;
		}
	if (n > 0 && (run(docs, n, 0, NULL, NULL, &a) < 0 || run(docs, n, 1, NULL, NULL, &b) < 0))
		return 2;
	bad |= a.len != b.len || (a.len > 0 && memcmp(a.p, b.p, a.len) != 0);
	if (n > 0 && (rc = flat(&argv[1], n, &a)) != 0) {
		if (rc == 2)
			return 2;
		bad = 1;
	}
	printf("%s (%s)\n", bad ? "OTHER BITS" : "the same bits",
	    avx2 ? "AVX2 against one at a time" : "no AVX2 here: documents only");
	for (size_t i = 0; i < n; i++)
		cJSON_Delete((cJSON *)docs[i]);
	buf_release(&a);
	buf_release(&b);
	return bad;
}
