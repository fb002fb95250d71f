/* paired.c: paired-position data drawn from a design with known truth. */
#include "paired.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_rng.h>

#include "../chess/chess.h"
#include "../common/buf.h"
#include "../common/hash.h"
#include "../common/io.h"
#include "../common/rng.h"
#include "../fit/bound.h"
#include "../fit/sim.h"
#include "../json/json.h"
#include "../protocol/spec.h"
#include "design.h"

#define SP_EPOCH 1769904000LL /* 2026-02-01T00:00:00Z: the first decision */
#define SP_BLACK_PENALTY 35.0
/* Stream kinds (the low bits of rng_stream's what). */
#define SK_POSITION 0xffff0
#define SK_OPENING 0xffff1
#define SK_ORDER 0xffff2
#define SK_GAMES 0xffff3

struct sp_pos {
	char id[24], opening[16], fen[CHESS_FEN_MAX];
	char uci[DESIGN_MAX_MULTIPV][CHESS_UCI_MAX], san[DESIGN_MAX_MULTIPV][CHESS_SAN_MAX];
	int ply, split;
};

/* One run: the design, its positions and the files being written. */
struct sp_run {
	const struct simulate_paired_opts *o;
	struct design d;
	struct sp_pos *pos;
	size_t npos;
	struct spec spec;
	cJSON *spec_doc;
	char cand_id[HASH_ID_LEN + 1];
	struct buf line;
	long long last_ts; /* the latest time written, seconds */
};

static double
unif(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1p-53;
}

static uint64_t
what(size_t fam, long rep, uint64_t kind)
{
	return ((uint64_t)(fam + 1) << 44) ^ ((uint64_t)rep << 24) ^ kind;
}

static void
fmt_time(long long t, char out[32])
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- positions ---------------------------------------------------- */

/* One random legal ply; 0 when the game is over (then restarted). */
static int
random_ply(struct chess_pos *p, int *ply, struct rng *r)
{
	struct chess_move ms[CHESS_MAX_MOVES];
	int n = chess_moves(p, ms);

	if (n == 0 || chess_state(p) != CHESS_ONGOING) {
		chess_start(p);
		*ply = 0;
		return 0;
	}
	chess_play(p, ms[rng_below(r, (uint32_t)n)]);
	(*ply)++;
	return 1;
}

/* Position x of the playout: its FEN and multipv legal moves in a random
 * order (the candidates, best first); 0 when it has too few moves. */
static int
take_position(const struct design *d, const struct chess_pos *p, int ply, struct rng *r,
    struct sp_pos *x)
{
	struct chess_move ms[CHESS_MAX_MOVES];
	int n = chess_moves(p, ms);

	if (n < d->multipv || chess_state(p) != CHESS_ONGOING)
		return 0;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)rng_below(r, (uint32_t)(i + 1));
		struct chess_move t = ms[i];
		ms[i] = ms[j], ms[j] = t;
	}
	chess_fen_write(p, x->fen);
	for (long j = 0; j < d->multipv; j++) {
		chess_uci_write(ms[j], x->uci[j]);
		chess_san_write(p, ms[j], x->san[j]);
	}
	x->ply = ply;
	return 1;
}

/* The positions of every opening: a random playout from the start, 6 to
 * 15 plies, then a position every two plies (skipping any with fewer legal
 * moves than multipv).  Openings 0, 1 mod 4 are explore, 2 confirm, 3
 * heldout. */
static void
make_positions(struct sp_run *s)
{
	const struct design *d = &s->d;

	for (long o = 0; o < d->openings; o++) {
		struct rng r = rng_stream(s->o->seed, what(0, 0, SK_POSITION), (uint64_t)o);
		struct chess_pos p;
		int ply = 0, lead = 6 + (int)rng_below(&r, 10);
		chess_start(&p);
		for (int k = 0; k < lead; k++)
			random_ply(&p, &ply, &r);
		for (long q = 0; q < d->per_opening;) {
			struct sp_pos *x = &s->pos[s->npos];
			if (take_position(d, &p, ply, &r, x)) {
				/* openings <= 100000, positions <= 100: ids in byte order */
				snprintf(x->opening, sizeof x->opening, "o%06d", (int)(o + 1) % 1000000);
				snprintf(x->id, sizeof x->id, "o%06d-p%03d", (int)(o + 1) % 1000000,
				    (int)(q + 1) % 1000);
				x->split = o % 4 < 2 ? 0 : o % 4 == 2 ? 1 : 2;
				s->npos++, q++;
			}
			random_ply(&p, &ply, &r);
			random_ply(&p, &ply, &r);
		}
	}
}

static double
cand_cp(const struct design *d, long j)
{
	return 50 - d->gap * (double)j;
}

/* ---- files -------------------------------------------------------- */

static int
emit_line(struct sp_run *s, struct outfile *f, const cJSON *v, struct hash *h, struct err *e)
{
	buf_reset(&s->line);
	if (canon_write(v, &s->line, e) < 0)
		return -1;
	if (buf_addc(&s->line, '\n') < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (h && hash_update(h, s->line.p, s->line.len) < 0)
		return err_set(e, ERR_NOMEM, "hash failed");
	return outfile_write(f, s->line.p, s->line.len, e);
}

static int
open_in(const struct sp_run *s, struct outfile *f, const char *file, struct err *e)
{
	char path[4096];

	if (snprintf(path, sizeof path, "%s/%s", s->o->dir, file) >= (int)sizeof path)
		return err_set(e, ERR_USAGE, "--emit: folder name too long");
	return outfile_open(f, path, e);
}

static cJSON *
manifest_header(const struct design *d)
{
	cJSON *h = cJSON_CreateObject(), *en, *op;

	if (h == NULL || !json_add_string(h, "kind", "cohort.candidates/1") ||
	    !json_add_string(h, "name", d->name) || !(en = cJSON_AddObjectToObject(h, "engine")) ||
	    !json_add_string(en, "name", "cohort simulate paired") ||
	    !json_add_string(en, "binary_sha256",
	        "0000000000000000000000000000000000000000000000000000000000000000") ||
	    !(op = cJSON_AddObjectToObject(en, "options")) || !json_add_number(op, "Threads", 1) ||
	    !json_add_number(en, "nodes", 1) || !json_add_number(en, "multipv", (double)d->multipv)) {
		cJSON_Delete(h);
		return NULL;
	}
	return h;
}

static cJSON *
manifest_line(const struct design *d, const struct sp_pos *x)
{
	static const char *const split[3] = { "explore", "confirm", "heldout" };
	cJSON *p = cJSON_CreateObject(), *st, *cs;
	int black = strstr(x->fen, " b ") != NULL;

	if (p == NULL || !json_add_string(p, "position_id", x->id) ||
	    !json_add_string(p, "fen", x->fen) || !json_add_string(p, "split", split[x->split]) ||
	    !json_add_string(p, "opening", x->opening) ||
	    !(st = cJSON_AddObjectToObject(p, "stratum")) ||
	    !json_add_string(st, "phase", x->ply < 20 ? "opening" : "middlegame") ||
	    !json_add_string(st, "kind", "quiet") ||
	    !json_add_string(st, "to_move", black ? "black" : "white") ||
	    !(cs = cJSON_AddArrayToObject(p, "candidates")))
		goto fail;
	for (long j = 0; j < d->multipv; j++) {
		cJSON *c = cJSON_CreateObject(), *pv;
		if (c == NULL || !cJSON_AddItemToArray(cs, c) || !json_add_string(c, "uci", x->uci[j]) ||
		    !json_add_string(c, "san", x->san[j]) || !json_add_number(c, "cp", cand_cp(d, j)) ||
		    !(pv = cJSON_AddArrayToObject(c, "pv")) ||
		    !cJSON_AddItemToArray(pv, cJSON_CreateString(x->uci[j])))
			goto fail;
	}
	return p;
fail:
	cJSON_Delete(p);
	return NULL;
}

/* candidates.jsonl, and its identity (the SHA-256 of its bytes). */
static int
write_manifest(struct sp_run *s, struct outfile *f, struct err *e)
{
	struct hash *h = hash_new();
	uint8_t dg[HASH_LEN];
	int rc = -1;

	if (h == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t i = 0; i <= s->npos; i++) {
		cJSON *v = i == 0 ? manifest_header(&s->d) : manifest_line(&s->d, &s->pos[i - 1]);
		int bad = v == NULL ? err_set(e, ERR_NOMEM, "out of memory") :
		                      emit_line(s, f, v, h, e);
		cJSON_Delete(v);
		if (bad < 0)
			goto done;
	}
	if (hash_final(h, dg) < 0) {
		err_set(e, ERR_NOMEM, "hash failed");
		goto done;
	}
	hash_id_format(dg, s->cand_id);
	rc = 0;
done:
	hash_free(h);
	return rc;
}

static void
cond_name(int k, char out[16])
{
	if (k == 0)
		snprintf(out, 16, "none");
	else
		snprintf(out, 16, "top%d", k);
}

/* The spec of the simulated cohort (as_of filled in at the end). */
static cJSON *
make_spec(const struct design *d)
{
	cJSON *sp = cJSON_CreateObject(), *fa, *co, *x, *pr;
	char name[16];

	if (sp == NULL || !json_add_string(sp, "kind", "cohort.spec/1") ||
	    !json_add_string(sp, "name", d->name) || !json_add_string(sp, "as_of", "2026-01-01T00:00:00Z") ||
	    !(fa = cJSON_AddArrayToObject(sp, "families")) ||
	    !(co = cJSON_AddArrayToObject(sp, "conditions")) ||
	    !json_add_string(sp, "color", "black") ||
	    !json_add_number(sp, "black_penalty", SP_BLACK_PENALTY) ||
	    !(x = cJSON_Duplicate(d->ladder, 1)) || !cJSON_AddItemToObject(sp, "ladder", x) ||
	    !(pr = cJSON_AddObjectToObject(sp, "protocol")) ||
	    !json_add_string(pr, "estimator", "davidson-joint/1"))
		goto fail;
	for (size_t f = 0; f < d->nfam; f++)
		if (!cJSON_AddItemToArray(fa, cJSON_CreateString(d->fam[f].name)))
			goto fail;
	for (size_t w = 0; w < d->nwidths; w++) {
		cond_name(d->widths[w], name);
		if (!cJSON_AddItemToArray(co, cJSON_CreateString(name)))
			goto fail;
	}
	return sp;
fail:
	cJSON_Delete(sp);
	return NULL;
}

/* ---- decisions ---------------------------------------------------- */

/* The opening multiplier of family f in replication rep. */
static double
opening_mult(const struct sp_run *s, size_t f, long rep, long opening)
{
	struct rng r = rng_stream(s->o->seed, what(f, rep, SK_OPENING), (uint64_t)opening);

	return (rng_next(&r) >> 63) ? 1 + s->d.fam[f].spread : 1 - s->d.fam[f].spread;
}

/* The ranks shown for order seed g at position i: the k best in the
 * permutation Fisher-Yates draws from the order stream (every family of
 * a replication sees the same). */
static void
shown_order(const struct sp_run *s, long long g, size_t i, int k, int *rank)
{
	struct rng r = rng_stream(s->o->seed, what(0, 0, SK_ORDER) ^ ((uint64_t)g << 4),
	    (uint64_t)i);

	for (int j = 0; j < k; j++)
		rank[j] = j;
	for (int j = k - 1; j > 0; j--) {
		int m = (int)rng_below(&r, (uint32_t)(j + 1)), t = rank[j];
		rank[j] = rank[m], rank[m] = t;
	}
}

/* The rank chosen among K (softmax over rank at temperature t); r draws. */
static int
softmax_rank(double gap, double t, int K, struct rng *r)
{
	double z = 0, u, acc = 0;

	for (int j = 0; j < K; j++)
		z += exp(-gap * j / t);
	u = unif(r) * z;
	for (int j = 0; j < K - 1; j++)
		if ((acc += exp(-gap * j / t)) > u)
			return j;
	return K - 1;
}

/* One decision's outcome: the rank chosen, or -1 (illegal). */
static int
decide(const struct sp_run *s, const struct design_family *fa, size_t w, double m,
    const int *rank, struct rng *r)
{
	int k = s->d.widths[w], K = k ? k : (int)s->d.multipv;

	if (unif(r) < fa->illegal)
		return -1;
	if (k > 0 && unif(r) < fa->first_bias)
		return rank[0];
	return softmax_rank(s->d.gap, fa->temp[w] * m, K, r);
}

struct sp_dec {
	size_t f, w, i;
	long rep;
	long long order_seed;
	const int *rank;
	int chosen;
	long long tok[3], n;
	double latency;
};

static cJSON *
decision_json(const struct sp_run *s, const struct sp_dec *x)
{
	const struct design_family *fa = &s->d.fam[x->f];
	const struct sp_pos *p = &s->pos[x->i];
	int k = s->d.widths[x->w];
	char id[128], rep[24], cond[16], ts[32];
	cJSON *d = cJSON_CreateObject(), *m, *sh, *t;

	cond_name(k, cond);
	snprintf(rep, sizeof rep, "r%ld", x->rep);
	snprintf(id, sizeof id, "%s-%s-%s-%s-s%lld", fa->name, rep, cond, p->id, x->order_seed);
	fmt_time(SP_EPOCH + x->n, ts);
	if (d == NULL || !json_add_string(d, "decision_id", id) ||
	    !json_add_string(d, "family", fa->name) || !(m = cJSON_AddObjectToObject(d, "model")) ||
	    !json_add_string(m, "requested", fa->model) || !json_add_string(m, "returned", fa->model) ||
	    !json_add_string(d, "replication", rep) || !json_add_string(d, "condition", cond) ||
	    !json_add_string(d, "context", "fresh") || !json_add_string(d, "position_id", p->id) ||
	    !json_add_number(d, "order_seed", (double)x->order_seed) ||
	    !(sh = cJSON_AddArrayToObject(d, "shown")) ||
	    !cJSON_AddItemToObject(d, "chosen", x->chosen < 0 ? cJSON_CreateNull() :
	                                                         cJSON_CreateString(p->uci[x->chosen])) ||
	    !json_add_string(d, "status", x->chosen < 0 ? "illegal" : "ok") ||
	    !cJSON_AddItemToObject(d, "failure", x->chosen < 0 ? cJSON_CreateString("interface") :
	                                                         cJSON_CreateNull()) ||
	    !json_add_number(d, "retries", 0) || !(t = cJSON_AddObjectToObject(d, "tokens")) ||
	    !json_add_number(t, "input", (double)x->tok[0]) ||
	    !json_add_number(t, "output", (double)x->tok[1]) ||
	    !json_add_number(t, "reasoning", (double)x->tok[2]) || !json_add_number(t, "cached", 0) ||
	    !json_add_number(d, "latency_ms", x->latency) || !json_add_string(d, "ts", ts))
		goto fail;
	for (int j = 0; j < k; j++)
		if (!cJSON_AddItemToArray(sh, cJSON_CreateString(p->uci[x->rank[j]])))
			goto fail;
	return d;
fail:
	cJSON_Delete(d);
	return NULL;
}

/* Tokens: input 1000 + 40 per move shown; output and reasoning uniform
 * on [0, 2 mean], rounded; latency exponential with its mean, to 1 ms. */
static void
draw_compute(const struct design_family *fa, int k, struct rng *r, struct sp_dec *x)
{
	x->tok[0] = 1000 + 40LL * k;
	x->tok[1] = llround(2 * fa->out_tok * unif(r));
	x->tok[2] = llround(2 * fa->reason_tok * unif(r));
	x->latency = json_round(-fa->latency_ms * log1p(-unif(r)), 1);
}

/* Every decision of family f in replication rep at width w. */
static int
cell_decisions(struct sp_run *s, struct outfile *out, struct sp_dec *x, struct err *e)
{
	const struct design *d = &s->d;
	int k = d->widths[x->w], rank[DESIGN_MAX_MULTIPV];
	long seeds = k ? d->order_seeds : 1;

	for (x->i = 0; x->i < s->npos; x->i++) {
		double m = opening_mult(s, x->f, x->rep, (long)(x->i / (size_t)d->per_opening));
		for (long g = 0; g < seeds; g++) {
			struct rng r = rng_stream(s->o->seed, what(x->f, x->rep, x->w),
			    (uint64_t)x->i * 1024 + (uint64_t)g);
			cJSON *v;
			int rc;
			/* each replication its own order seeds: fresh orders */
			x->order_seed = k ? (x->rep - 1) * d->order_seeds + g + 1 : 0;
			if (k)
				shown_order(s, x->order_seed, x->i, k, rank);
			x->rank = rank;
			x->chosen = decide(s, &d->fam[x->f], x->w, m, rank, &r);
			draw_compute(&d->fam[x->f], k, &r, x);
			v = decision_json(s, x);
			rc = v ? emit_line(s, out, v, NULL, e) : err_set(e, ERR_NOMEM, "out of memory");
			cJSON_Delete(v);
			if (rc < 0)
				return -1;
			x->n++;
		}
	}
	return 0;
}

/* Replication rep's decisions: every family's, width by width. */
static int
write_decisions(struct sp_run *s, long rep, struct outfile *out, long long *n, struct err *e)
{
	struct sp_dec x;

	memset(&x, 0, sizeof x);
	x.rep = rep, x.n = *n;
	for (x.f = 0; x.f < s->d.nfam; x.f++)
		for (x.w = 0; x.w < s->d.nwidths; x.w++)
			if (cell_decisions(s, out, &x, e) < 0)
				return -1;
	*n = x.n;
	if (SP_EPOCH + x.n > s->last_ts)
		s->last_ts = SP_EPOCH + x.n;
	return 0;
}

/* ---- games -------------------------------------------------------- */

struct sp_game {
	const struct design_family *fa;
	const char *cond;
	long rep, block, opening;
	int k, result;
	double anchor;
	long long *clock;
};

static cJSON *
game_json(const struct sp_game *g)
{
	static const char *const res[3] = { "win", "draw", "loss" };
	char id[160], rep[24], ts[32], te[32], op[16];
	cJSON *x = cJSON_CreateObject(), *m, *a, *t;

	snprintf(rep, sizeof rep, "r%ld", g->rep);
	snprintf(op, sizeof op, "o%06d", (int)(g->opening % 1000000));
	snprintf(id, sizeof id, "%s-%s-%s-b%ld-g%d", g->fa->name, rep, g->cond, g->block, g->k);
	fmt_time(*g->clock, ts);
	fmt_time(*g->clock + 300, te);
	if (x == NULL || !json_add_string(x, "game_id", id) ||
	    !json_add_string(x, "family", g->fa->name) || !(m = cJSON_AddObjectToObject(x, "model")) ||
	    !json_add_string(m, "requested", g->fa->model) ||
	    !json_add_string(m, "returned", g->fa->model) || !json_add_string(x, "replication", rep) ||
	    !json_add_string(x, "condition", g->cond) || !json_add_string(x, "color", "black") ||
	    !(a = cJSON_AddObjectToObject(x, "anchor")) || !json_add_string(a, "engine", "stockfish") ||
	    !json_add_number(a, "elo", g->anchor) || !json_add_string(a, "limiter", "UCI_LimitStrength") ||
	    !json_add_number(a, "time_s", 0.1) || !json_add_string(x, "opening", op) ||
	    !json_add_number(x, "block", (double)g->block) || !json_add_string(x, "status", "terminal") ||
	    !json_add_string(x, "result", res[g->result]) ||
	    !json_add_string(x, "termination", g->result == 1 ? "repetition" : "checkmate") ||
	    !json_add_number(x, "plies", 80) || !json_add_string(x, "started_at", ts) ||
	    !json_add_string(x, "ended_at", te) || !(t = cJSON_AddObjectToObject(x, "tokens")) ||
	    !json_add_number(t, "input", 40000) || !json_add_number(t, "output", 4000) ||
	    !json_add_number(t, "reasoning", 0) || !json_add_number(t, "cached", 0) ||
	    !json_add_number(x, "wall_s", 300) || !json_add_number(x, "worker_hours", 0.083333) ||
	    !cJSON_AddArrayToObject(x, "requests")) {
		cJSON_Delete(x);
		return NULL;
	}
	*g->clock += 330;
	return x;
}

/* One block's games, its outcomes in a random order. */
static int
block_games(struct sp_run *s, struct outfile *out, struct sp_game *g,
    const struct ladder_block *b, gsl_rng *r, struct err *e)
{
	int n = b->w + b->d + b->l, left[3] = { b->w, b->d, b->l };

	for (g->k = 1; g->k <= n; g->k++) {
		int u = (int)gsl_rng_uniform_int(r, (unsigned long)(n - g->k + 1)), rc;
		cJSON *v;
		g->result = u < left[0] ? 0 : u < left[0] + left[1] ? 1 : 2;
		left[g->result]--;
		/* played from one of the positions' openings: a bootstrap by
		 * opening draws a game with that opening's decisions */
		g->opening = 1 + (long)gsl_rng_uniform_int(r, (unsigned long)s->d.openings);
		if ((v = game_json(g)) == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		rc = emit_line(s, out, v, NULL, e);
		cJSON_Delete(v);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* Replication rep's ledger: one ladder per family and width at R(k). */
static int
write_games(struct sp_run *s, long rep, struct outfile *out, struct ladder_block *blk,
    gsl_rng *r, struct err *e)
{
	double corr = bound_correction(1, SP_BLACK_PENALTY);
	long long clock = SP_EPOCH;
	char cond[16];

	for (size_t f = 0; f < s->d.nfam; f++)
		for (size_t w = 0; w < s->d.nwidths; w++) {
			struct rng st = rng_stream(s->o->seed, what(f, rep, SK_GAMES) ^ (w << 4), 0);
			struct sp_game g = { &s->d.fam[f], cond, rep, 0, 0, 0, 0, 0, &clock };
			size_t nb;
			uint64_t z = rng_next(&st);
			gsl_rng_set(r, (unsigned long)((z ^ (z >> 32)) & 0xffffffffULL));
			nb = sim_ladder_play(&s->spec.ladder, corr, s->d.nu, s->spec.ladder.start,
			    s->d.fam[f].rating[w], r, blk);
			cond_name(s->d.widths[w], cond);
			for (size_t b = 0; b < nb; b++) {
				g.block = (long)b + 1, g.anchor = blk[b].anchor;
				if (block_games(s, out, &g, &blk[b], r, e) < 0)
					return -1;
			}
		}
	if (clock > s->last_ts)
		s->last_ts = clock;
	return 0;
}

/* ---- the truth ---------------------------------------------------- */

/* P(rank j) of a legal decision at multiplier m, for j < K. */
static void
rank_probs(const struct design *d, const struct design_family *fa, size_t w, double m,
    double *p)
{
	int k = d->widths[w], K = k ? k : (int)d->multipv;
	double fb = k ? fa->first_bias : 0, z = 0;

	for (int j = 0; j < K; j++)
		z += p[j] = exp(-d->gap * j / (fa->temp[w] * m));
	for (int j = 0; j < K; j++)
		p[j] = fb / K + (1 - fb) * p[j] / z;
}

struct sp_truth {
	double recall, regret, rank, order_change, tokens;
};

/* The exact expectations of one family's cell at width w: an average over
 * the two opening multipliers. */
static void
cell_truth(const struct design *d, const struct design_family *fa, size_t w, struct sp_truth *t)
{
	double p[DESIGN_MAX_MULTIPV], ms[2] = { 1 - fa->spread, 1 + fa->spread }, ill = fa->illegal;
	int k = d->widths[w], K = k ? k : (int)d->multipv;

	memset(t, 0, sizeof *t);
	for (int h = 0; h < 2; h++) {
		double same = 0;
		rank_probs(d, fa, w, ms[h], p);
		for (int j = 0; j < K; j++) {
			t->regret += 0.5 * d->gap * j * p[j];
			t->rank += 0.5 * (j + 1) * p[j];
			same += p[j] * p[j];
		}
		t->recall += 0.5 * (1 - ill) * p[0];
		t->order_change += 0.5 * (1 - (ill * ill + (1 - ill) * (1 - ill) * same));
	}
	t->tokens = 1000 + 40.0 * k + fa->out_tok + fa->reason_tok;
}

static int
add_feature(cJSON *arr, const char *name, double v)
{
	cJSON *f = cJSON_CreateObject();

	if (f == NULL || !cJSON_AddItemToArray(arr, f)) {
		cJSON_Delete(f);
		return 0;
	}
	return json_add_string(f, "name", name) && json_add_number(f, "value", json_round(v, 1e-9));
}

static int
add_condition(cJSON *arr, const struct design *d, const struct design_family *fa, size_t w)
{
	struct sp_truth t;
	char cond[16];
	cJSON *c = cJSON_CreateObject();
	int k = d->widths[w];

	cell_truth(d, fa, w, &t);
	cond_name(k, cond);
	if (c == NULL || !cJSON_AddItemToArray(arr, c)) {
		cJSON_Delete(c);
		return 0;
	}
	return json_add_string(c, "condition", cond) && json_add_number(c, "width", k) &&
	    json_add_number(c, "rating", fa->rating[w]) &&
	    json_add_number(c, "recall", json_round(t.recall, 1e-9)) &&
	    json_add_number(c, "regret_mean", json_round(t.regret, 1e-9)) &&
	    json_add_number(c, "rank_mean", json_round(t.rank, 1e-9)) &&
	    cJSON_AddItemToObject(c, "order_change",
	        k && d->order_seeds > 1 ? cJSON_CreateNumber(json_round(t.order_change, 1e-9)) :
	                                  cJSON_CreateNull()) &&
	    json_add_number(c, "illegal_rate", fa->illegal) &&
	    json_add_number(c, "tokens_per_decision", t.tokens) &&
	    json_add_number(c, "latency_ms_per_decision", fa->latency_ms);
}

/* The registered features the design fixes: the strength response and
 * the unaided recall. */
static int
add_features(cJSON *arr, const struct design *d, const struct design_family *fa)
{
	char name[48];
	int z = d->widths[0] == 0;
	struct sp_truth t;

	if (z && !add_feature(arr, "unaided", fa->rating[0]))
		return 0;
	for (size_t w = z; w < d->nwidths; w++) {
		snprintf(name, sizeof name, "r_k[%d]", d->widths[w]);
		if (!add_feature(arr, name, fa->rating[w]))
			return 0;
	}
	for (size_t w = z; z && w < d->nwidths; w++) {
		snprintf(name, sizeof name, "delta_r[%d]", d->widths[w]);
		if (!add_feature(arr, name, fa->rating[w] - fa->rating[0]))
			return 0;
	}
	cell_truth(d, fa, 0, &t);
	return (!z || add_feature(arr, "recall_unaided", t.recall)) &&
	    add_feature(arr, "illegal_rate", fa->illegal) &&
	    add_feature(arr, "latency_per_decision", fa->latency_ms);
}

static cJSON *
truth_doc(const struct sp_run *s, const char *design_id)
{
	cJSON *t = cJSON_CreateObject(), *fs;
	char seed[32];

	snprintf(seed, sizeof seed, "%llu", (unsigned long long)s->o->seed);
	if (t == NULL || !json_add_string(t, "kind", "cohort.sim-truth/1") ||
	    !json_add_string(t, "design", design_id) || !json_add_string(t, "seed", seed) ||
	    !json_add_string(t, "candidates", s->cand_id) ||
	    !json_add_number(t, "positions", (double)s->npos) ||
	    !json_add_number(t, "replications", (double)s->d.replications) ||
	    !(fs = cJSON_AddArrayToObject(t, "families")))
		goto fail;
	for (size_t f = 0; f < s->d.nfam; f++) {
		const struct design_family *fa = &s->d.fam[f];
		cJSON *x = cJSON_CreateObject(), *fe, *co;
		if (x == NULL || !cJSON_AddItemToArray(fs, x) || !json_add_string(x, "family", fa->name) ||
		    !json_add_string(x, "model", fa->model) ||
		    !(fe = cJSON_AddArrayToObject(x, "features")) || !add_features(fe, &s->d, fa) ||
		    !(co = cJSON_AddArrayToObject(x, "conditions")))
			goto fail;
		for (size_t w = 0; w < s->d.nwidths; w++)
			if (!add_condition(co, &s->d, fa, w))
				goto fail;
	}
	return t;
fail:
	cJSON_Delete(t);
	return NULL;
}

/* ---- the run ------------------------------------------------------ */

/* Every file but the spec, each through its outfile (committed later):
 * of[0] the manifest, then each replication's decisions and ledger. */
static int
write_data(struct sp_run *s, struct outfile *of, struct err *e)
{
	struct ladder_block *blk = malloc(SIM_MAX_BLOCKS * sizeof *blk);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	long long n = 0;
	char name[64];
	int rc = -1;

	if (blk == NULL || r == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (open_in(s, &of[0], "candidates.jsonl", e) < 0 || write_manifest(s, &of[0], e) < 0)
		goto done;
	for (long rep = 1; rep <= s->d.replications; rep++) {
		struct outfile *dec = &of[2 * rep - 1], *led = &of[2 * rep];
		snprintf(name, sizeof name, "decisions-r%ld.jsonl", rep);
		if (open_in(s, dec, name, e) < 0 || write_decisions(s, rep, dec, &n, e) < 0)
			goto done;
		snprintf(name, sizeof name, "ledger-r%ld.jsonl", rep);
		if (open_in(s, led, name, e) < 0 || write_games(s, rep, led, blk, r, e) < 0)
			goto done;
	}
	rc = 0;
done:
	free(blk);
	gsl_rng_free(r);
	return rc;
}

/* The spec with as_of the day after the last record, into spec.json. */
static int
write_spec(struct sp_run *s, struct outfile *f, struct err *e)
{
	char asof[32];
	cJSON *x;

	fmt_time((s->last_ts / 86400 + 1) * 86400, asof);
	if ((x = cJSON_CreateString(asof)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	cJSON_ReplaceItemInObjectCaseSensitive(s->spec_doc, "as_of", x);
	buf_reset(&s->line);
	if (canon_write(s->spec_doc, &s->line, e) < 0 || open_in(s, f, "spec.json", e) < 0)
		return -1;
	return outfile_write(f, s->line.p, s->line.len, e);
}

static int
run(struct sp_run *s, const char *design_id, cJSON **truth, struct err *e)
{
	size_t nf = 2 * (size_t)s->d.replications + 2;
	struct outfile *of = calloc(nf, sizeof *of);
	int rc = -1;

	s->pos = calloc((size_t)(s->d.openings * s->d.per_opening), sizeof *s->pos);
	if (of == NULL || s->pos == NULL || (s->spec_doc = make_spec(&s->d)) == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (spec_read(s->spec_doc, &s->spec, e) < 0) {
		err_prefix(e, "%s", io_name(s->o->design));
		goto done;
	}
	make_positions(s);
	if (write_data(s, of, e) < 0 || write_spec(s, &of[nf - 1], e) < 0)
		goto done;
	if ((*truth = truth_doc(s, design_id)) == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < nf; i++)
		if (outfile_commit(&of[i], e) < 0)
			goto done;
	rc = 0;
done:
	for (size_t i = 0; of && i < nf; i++)
		outfile_abort(&of[i]);
	free(of);
	return rc;
}

int
simulate_paired_run(const struct simulate_paired_opts *o, cJSON **truth, struct err *e)
{
	struct sp_run s;
	cJSON *doc;
	char design_id[HASH_ID_LEN + 1];
	int rc = -1;

	*truth = NULL;
	memset(&s, 0, sizeof s);
	s.o = o;
	if ((doc = json_parse_file(o->design, e)) == NULL)
		return -1;
	if (design_read(doc, io_name(o->design), &s.d, e) == 0 && canon_id(doc, design_id, e) == 0)
		rc = run(&s, design_id, truth, e);
	if (rc < 0) {
		cJSON_Delete(*truth);
		*truth = NULL;
	}
	spec_release(&s.spec);
	cJSON_Delete(s.spec_doc);
	free(s.pos);
	buf_release(&s.line);
	design_release(&s.d);
	cJSON_Delete(doc);
	return rc;
}
