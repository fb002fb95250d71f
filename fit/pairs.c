/* pairs.c: colour-reversed pairs for the fit (pairs.h): the games read
 * from a freeze and grouped, the pentanomial counts, and the two
 * covariances of the joint fit.
 *
 * The observed information J is an arrowhead: a diagonal D over the
 * finite ratings, a border E to the q <= 2 shared parameters (ln nu, the
 * penalty) and their block F.  With M = D^-1 E and S = F - E^T D^-1 E
 * (q x q), J^-1 = [D^-1 + M S^-1 M^T, -M S^-1; -S^-1 M^T, S^-1].  A
 * cluster's score u_k is nonzero in one rating (its games' condition) and
 * the border, so x_k = J^-1 u_k is w_k e_c - M t_k on the ratings and t_k
 * on the border, with w_k = u_kc / D_c and t_k = S^-1 (u_kb - M_c u_kc).
 * The sandwich sum_k x_k x_k^T is then kept as W_c = sum w_k^2, R_c = sum
 * w_k t_k (over the clusters of condition c) and T = sum t_k t_k^T, which
 * give any entry at once (pairs.h), in O(games) in all.
 */
#include "pairs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../json/json.h"

struct game {
	const char *id, *pair, *opening; /* borrowed from the freeze's tree */
	size_t unit;
	double anchor; /* Elo */
	int black;
	int result;    /* 0 loss, 1 draw, 2 win */
	size_t cluster;
};

struct fit_pairs {
	struct game *g;
	size_t n;
	size_t npairs, nalone, nclusters;
	struct fit_penta *pen;
	size_t npen;
	/* the covariances (fit_pairs_cov) */
	size_t ncond;
	int q, bphi, bpen; /* border size; ln nu's and the penalty's places, or -1 */
	unsigned char *act;
	double *D, *M, *W, *R; /* ncond; ncond x 2; ncond; ncond x 2 */
	double Sinv[2][2], T[2][2];
	double scale;      /* G / (G - 1) */
	int ready;
};

/* A unit looked up by its family and condition. */
struct unit_key {
	const char *family, *condition;
	size_t unit;
};

static int
key_cmp(const void *a, const void *b)
{
	const struct unit_key *x = a, *y = b;
	int c = strcmp(x->family, y->family);

	return c != 0 ? c : strcmp(x->condition, y->condition);
}

static int
id_cmp(const void *a, const void *b)
{
	const struct game *const *x = a, *const *y = b;

	return strcmp((*x)->id, (*y)->id);
}

static const struct game *
find(struct game *const *byid, size_t n, const char *id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(id, byid[mid]->id);
		if (c == 0)
			return byid[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

void
fit_pairs_free(struct fit_pairs *p)
{
	if (p == NULL)
		return;
	free(p->g);
	free(p->pen);
	free(p->act);
	free(p->D);
	free(p->M);
	free(p->W);
	free(p->R);
	free(p);
}

/* One entry of "games" into g: its unit looked up in keys. */
static int
read_game(const cJSON *x, const struct unit_key *keys, size_t nunit, int families,
    struct game *g, struct err *e)
{
	static const char *const results[] = { "loss", "draw", "win" };
	const char *fam = "", *cond, *color, *res;
	const cJSON *op = json_get(x, "opening"), *pr = json_get(x, "pair");
	struct unit_key k, *hit;

	if (!cJSON_IsObject(x))
		return err_set(e, ERR_INPUT, "expected an object");
	if (json_get_string(x, "game_id", 1, &g->id, e) < 0 ||
	    (families && json_get_string(x, "family", 1, &fam, e) < 0) ||
	    json_get_string(x, "condition", 1, &cond, e) < 0 ||
	    json_get_string(x, "color", 1, &color, e) < 0 ||
	    json_get_string(x, "result", 1, &res, e) < 0 ||
	    json_get_number(x, "anchor", 1, &g->anchor, e) < 0)
		return -1;
	if (strcmp(color, "white") != 0 && strcmp(color, "black") != 0)
		return err_set(e, ERR_INPUT, "\"color\": expected white or black");
	g->black = color[0] == 'b';
	g->result = -1;
	for (int r = 0; r < 3; r++)
		if (strcmp(res, results[r]) == 0)
			g->result = r;
	if (g->result < 0)
		return err_set(e, ERR_INPUT, "\"result\": expected win, draw or loss");
	if ((op != NULL && !cJSON_IsString(op)) || (pr != NULL && !cJSON_IsString(pr)))
		return err_set(e, ERR_INPUT, "\"%s\": expected a string", pr && !cJSON_IsString(pr) ?
		    "pair" : "opening");
	g->opening = op ? op->valuestring : NULL;
	g->pair = pr ? pr->valuestring : NULL;
	k = (struct unit_key){ fam, cond, 0 };
	if ((hit = bsearch(&k, keys, nunit, sizeof *keys, key_cmp)) == NULL)
		return err_set(e, ERR_INPUT, "\"condition\": \"%.60s\" of family \"%.60s\" is not one of "
		    "the freeze's", cond, fam);
	g->unit = hit->unit;
	return 0;
}

/* Whether games a and b make a whole pair. */
static int
whole(const struct game *a, const struct game *b)
{
	return b != NULL && b->pair != NULL && strcmp(b->pair, a->id) == 0 && a->unit == b->unit &&
	    a->anchor == b->anchor && a->black != b->black && a->opening != NULL &&
	    b->opening != NULL && strcmp(a->opening, b->opening) == 0;
}

static int
penta_cmp(const void *a, const void *b)
{
	const struct fit_penta *x = a, *y = b;

	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
	return x->anchor < y->anchor ? -1 : x->anchor > y->anchor;
}

/* The clusters, and the pentanomial cells of the whole pairs. */
static int
group(struct fit_pairs *p, struct err *e)
{
	struct game **byid = malloc((p->n + 1) * sizeof *byid);
	struct fit_penta *cells = malloc((p->n / 2 + 1) * sizeof *cells);
	size_t nc = 0;

	if (byid == NULL || cells == NULL) {
		free(byid);
		free(cells);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < p->n; i++) {
		byid[i] = &p->g[i];
		p->g[i].cluster = (size_t)-1;
	}
	qsort(byid, p->n, sizeof *byid, id_cmp);
	for (size_t i = 1; i < p->n; i++)
		if (strcmp(byid[i]->id, byid[i - 1]->id) == 0) {
			err_set(e, ERR_INPUT, "\"games\": \"%.60s\" listed twice", byid[i]->id);
			free(byid);
			free(cells);
			return -1;
		}
	for (size_t i = 0; i < p->n; i++) {
		struct game *a = byid[i];
		const struct game *b;
		if (a->cluster != (size_t)-1)
			continue;
		a->cluster = p->nclusters++;
		if (a->pair == NULL || !whole(a, b = find(byid, p->n, a->pair)) || !whole(b, a)) {
			p->nalone++;
			continue;
		}
		((struct game *)b)->cluster = a->cluster;
		p->npairs++;
		cells[nc] = (struct fit_penta){ a->unit, a->anchor, { 0, 0, 0, 0, 0 }, { 0, 0, 0 } };
		cells[nc].games[a->result]++;
		cells[nc].games[b->result]++;
		cells[nc++].n[a->result + b->result]++;
	}
	free(byid);
	qsort(cells, nc, sizeof *cells, penta_cmp);
	p->npen = 0;
	for (size_t i = 0; i < nc; i++) {
		if (p->npen > 0 && penta_cmp(&cells[p->npen - 1], &cells[i]) == 0) {
			for (int k = 0; k < 5; k++)
				cells[p->npen - 1].n[k] += cells[i].n[k];
			for (int k = 0; k < 3; k++)
				cells[p->npen - 1].games[k] += cells[i].games[k];
		} else {
			cells[p->npen++] = cells[i];
		}
	}
	p->pen = cells;
	return 0;
}

struct fit_pairs *
fit_pairs_new(const cJSON *freeze, size_t nunit, const char *const *family,
    const char *const *condition, struct err *e)
{
	struct fit_pairs *p = calloc(1, sizeof *p);
	struct unit_key *keys = calloc(nunit + 1, sizeof *keys);
	const cJSON *games, *x;
	const char *kind;
	size_t i = 0;

	if (p == NULL || keys == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto bad;
	}
	if (json_get_string(freeze, "kind", 1, &kind, e) < 0)
		goto bad;
	if (strcmp(kind, "cohort.freeze/1") != 0 || !cJSON_IsObject(json_get(freeze, "pairs"))) {
		err_set(e, ERR_INPUT, "\"pairs\": missing: --pairs needs a freeze whose games name "
		    "their pairs (cohort-freeze(1))");
		goto bad;
	}
	if (json_get_array(freeze, "games", 1, &games, e) < 0)
		goto bad;
	for (size_t u = 0; u < nunit; u++)
		keys[u] = (struct unit_key){ family ? family[u] : "", condition[u], u };
	qsort(keys, nunit, sizeof *keys, key_cmp);
	p->n = (size_t)cJSON_GetArraySize(games);
	if ((p->g = calloc(p->n + 1, sizeof *p->g)) == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto bad;
	}
	cJSON_ArrayForEach(x, games) {
		if (read_game(x, keys, nunit, family != NULL, &p->g[i], e) < 0) {
			err_prefix(e, "\"games\"[%zu]", i);
			goto bad;
		}
		i++;
	}
	if (group(p, e) < 0)
		goto bad;
	free(keys);
	return p;
bad:
	free(keys);
	fit_pairs_free(p);
	return NULL;
}

size_t
fit_pairs_count(const struct fit_pairs *p, size_t *alone, size_t *clusters)
{
	*alone = p->nalone;
	*clusters = p->nclusters;
	return p->npairs;
}

const struct fit_penta *
fit_pairs_penta(const struct fit_pairs *p, size_t *n)
{
	*n = p->npen;
	return p->pen;
}

/* A game's chances at s (nu given): win, draw, loss, without overflow. */
static void
chances(double s, double nu, double *pw, double *pd, double *pl)
{
	double h = 0.5 * s, r = exp(-fabs(h)), r2 = r * r, D = 1 + r2 + nu * r;

	*pd = nu * r / D;
	*pw = h > 0 ? 1 / D : r2 / D;
	*pl = h > 0 ? r2 / D : 1 / D;
}

/* The border's q x q inverse (q <= 2) into out: 0, or -1 when singular. */
static int
inverse(int q, double S[2][2], double out[2][2])
{
	if (q == 0)
		return 0;
	if (q == 1) {
		if (!(S[0][0] > 0))
			return -1;
		out[0][0] = 1 / S[0][0];
		return 0;
	}
	double det = S[0][0] * S[1][1] - S[0][1] * S[1][0];
	if (!(det > 0) || !(S[0][0] > 0))
		return -1;
	out[0][0] = S[1][1] / det;
	out[1][1] = S[0][0] / det;
	out[0][1] = out[1][0] = -S[0][1] / det;
	return 0;
}

int
fit_pairs_cov(struct fit_pairs *p, const struct fit_model *m, const struct fit_result *r,
    int estimate_pen, struct err *e)
{
	size_t K = m->ncond, G = 0;
	double nu = isfinite(r->phi) ? exp(r->phi) : 0, F[2][2] = { { 0, 0 }, { 0, 0 } };
	double *E = NULL, *uc = NULL, (*ub)[2] = NULL;
	size_t *ucond = NULL;
	unsigned char *used = NULL;
	int rc = -1;

	p->ncond = K;
	p->q = 0;
	p->bphi = isfinite(r->phi) ? p->q++ : -1;
	p->bpen = estimate_pen ? p->q++ : -1;
	free(p->act);
	free(p->D);
	free(p->M);
	free(p->W);
	free(p->R);
	p->act = calloc(K + 1, 1);
	p->D = calloc(K + 1, sizeof *p->D);
	p->M = calloc(2 * K + 1, sizeof *p->M);
	p->W = calloc(K + 1, sizeof *p->W);
	p->R = calloc(2 * K + 1, sizeof *p->R);
	E = calloc(2 * K + 1, sizeof *E);
	uc = calloc(p->nclusters + 1, sizeof *uc);
	ub = calloc(p->nclusters + 1, sizeof *ub);
	ucond = calloc(p->nclusters + 1, sizeof *ucond);
	used = calloc(p->nclusters + 1, 1);
	if (p->act == NULL || p->D == NULL || p->M == NULL || p->W == NULL || p->R == NULL ||
	    E == NULL || uc == NULL || ub == NULL || ucond == NULL || used == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (size_t c = 0; c < K; c++)
		p->act[c] = m->sat[c] == FIT_FINITE;
	memset(p->Sinv, 0, sizeof p->Sinv);
	memset(p->T, 0, sizeof p->T);
	/* the information, and each cluster's score */
	for (size_t i = 0; i < p->n; i++) {
		const struct game *g = &p->g[i];
		size_t c = g->unit, k = g->cluster;
		double sp = g->black ? -1 : 1, s, pw, pd, pl;
		double yw = g->result == 2, yd = g->result == 1, gs, gphi, jss, jsp, jpp;
		if (c >= K || !p->act[c])
			continue;
		s = r->theta[c] + sp * r->pen - g->anchor * FIT_LOG_PER_ELO;
		chances(s, nu, &pw, &pd, &pl);
		gs = yw + 0.5 * yd - (pw + 0.5 * pd);
		gphi = yd - pd;
		jss = 0.25 * pw * pd + pw * pl + 0.25 * pd * pl;
		jsp = 0.5 * pd * (pl - pw);
		jpp = pd * (pw + pl);
		p->D[c] += jss;
		if (p->bphi >= 0) {
			E[2 * c + p->bphi] += jsp;
			F[p->bphi][p->bphi] += jpp;
			ub[k][p->bphi] += gphi;
		}
		if (p->bpen >= 0) {
			E[2 * c + p->bpen] += sp * jss;
			F[p->bpen][p->bpen] += jss;
			ub[k][p->bpen] += sp * gs;
		}
		if (p->bphi >= 0 && p->bpen >= 0) {
			F[p->bphi][p->bpen] += sp * jsp;
			F[p->bpen][p->bphi] += sp * jsp;
		}
		uc[k] += gs;
		ucond[k] = c;
		G += !used[k];
		used[k] = 1;
	}
	/* S = F - E^T D^-1 E, M = D^-1 E */
	for (size_t c = 0; c < K; c++) {
		if (!p->act[c])
			continue;
		if (!(p->D[c] > 0)) {
			err_set(e, ERR_NUMERIC, "--pairs: the information of a rating is not positive");
			goto done;
		}
		for (int a = 0; a < p->q; a++) {
			p->M[2 * c + a] = E[2 * c + a] / p->D[c];
			for (int b = 0; b < p->q; b++)
				F[a][b] -= E[2 * c + a] * E[2 * c + b] / p->D[c];
		}
	}
	if (inverse(p->q, F, p->Sinv) < 0) {
		err_set(e, ERR_NUMERIC, "--pairs: the information of the draw parameter and the "
		    "penalty cannot be inverted");
		goto done;
	}
	/* the sandwich's sums */
	for (size_t k = 0; k < p->nclusters; k++) {
		size_t c = ucond[k];
		double w, t[2] = { 0, 0 }, v[2];
		if (!used[k])
			continue;
		w = uc[k] / p->D[c];
		for (int a = 0; a < p->q; a++)
			v[a] = ub[k][a] - p->M[2 * c + a] * uc[k];
		for (int a = 0; a < p->q; a++)
			for (int b = 0; b < p->q; b++)
				t[a] += p->Sinv[a][b] * v[b];
		p->W[c] += w * w;
		for (int a = 0; a < p->q; a++) {
			p->R[2 * c + a] += w * t[a];
			for (int b = 0; b < p->q; b++)
				p->T[a][b] += t[a] * t[b];
		}
	}
	p->scale = G > 1 ? (double)G / (double)(G - 1) : NAN;
	p->ready = 1;
	rc = 0;
done:
	free(E);
	free(uc);
	free(ub);
	free(ucond);
	free(used);
	return rc;
}

/* i's place: a condition (0), the border (1, *b set), or none (-1). */
static int
place(const struct fit_pairs *p, long i, int *b)
{
	if (!p->ready)
		return -1;
	if (i >= 0)
		return (size_t)i < p->ncond && p->act[i] ? 0 : -1;
	*b = i == FIT_PAIRS_PHI ? p->bphi : i == FIT_PAIRS_PEN ? p->bpen : -1;
	return *b >= 0 ? 1 : -1;
}

double
fit_pairs_robust(const struct fit_pairs *p, long i, long j)
{
	int bi = -1, bj = -1, ki = place(p, i, &bi), kj = place(p, j, &bj);
	double v = 0;

	if (ki < 0 || kj < 0)
		return NAN;
	if (ki == 1 && kj == 1)
		return p->scale * p->T[bi][bj];
	if (ki == 1) { /* symmetric */
		long x = i;
		i = j;
		j = x;
		bj = bi;
		kj = 1;
	}
	if (kj == 1) {
		v = p->R[2 * i + bj];
		for (int a = 0; a < p->q; a++)
			v -= p->M[2 * i + a] * p->T[a][bj];
		return p->scale * v;
	}
	if (i == j)
		v = p->W[i];
	for (int a = 0; a < p->q; a++) {
		v -= p->M[2 * j + a] * p->R[2 * i + a] + p->M[2 * i + a] * p->R[2 * j + a];
		for (int b = 0; b < p->q; b++)
			v += p->M[2 * i + a] * p->T[a][b] * p->M[2 * j + b];
	}
	return p->scale * v;
}

double
fit_pairs_model(const struct fit_pairs *p, long i, long j)
{
	int bi = -1, bj = -1, ki = place(p, i, &bi), kj = place(p, j, &bj);
	double v = 0;

	if (ki < 0 || kj < 0)
		return NAN;
	if (ki == 1 && kj == 1)
		return p->Sinv[bi][bj];
	if (ki == 1) {
		long x = i;
		i = j;
		j = x;
		bj = bi;
		kj = 1;
	}
	if (kj == 1) {
		for (int a = 0; a < p->q; a++)
			v -= p->M[2 * i + a] * p->Sinv[a][bj];
		return v;
	}
	if (i == j)
		v = 1 / p->D[i];
	for (int a = 0; a < p->q; a++)
		for (int b = 0; b < p->q; b++)
			v += p->M[2 * i + a] * p->Sinv[a][b] * p->M[2 * j + b];
	return v;
}
