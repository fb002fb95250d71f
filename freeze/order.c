/* order.c: the included games in game_id order and in block order. */
#define _GNU_SOURCE /* memmem */
#include "internal.h"


#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"
#include "../common/io.h"
#include "../common/mem.h"
#include "../common/pool.h"
#include "../common/ts.h"
#include "../protocol/ladder.h"
#include "../protocol/spec.h"
#include "../store/cas.h"
#include "../json/json.h"
#include "../protocol/ledger.h"
#include "../json/rec.h"


/* Included games by family, condition, block, color, game_id. */
static int
cmp_block_order(const void *x, const void *y)
{
	const struct freeze_item *a = *(const struct freeze_item *const *)x;
	const struct freeze_item *b = *(const struct freeze_item *const *)y;

	if (a->fam != b->fam)
		return a->fam < b->fam ? -1 : 1;
	if (a->cond != b->cond)
		return a->cond < b->cond ? -1 : 1;
	if (a->block != b->block)
		return a->block < b->block ? -1 : 1;
	if (a->color != b->color)
		return a->color < b->color ? -1 : 1;
	return strcmp(a->game_id, b->game_id);
}

/* A game in the sort: its id's first 24 bytes as three big-endian numbers
 * (zero-padded; ids hold no NUL) and whether it is longer.  Two keys that
 * differ, or are equal and not both longer, order their ids without a look
 * at the strings, which lie all over the heap; ids of one block often
 * share their first 16 bytes. */
struct gkey {
	uint64_t k[3];
	uint32_t i, more;
};

static void
gkey_make(struct gkey *key, const struct freeze_item *g, uint32_t i)
{
	memcpy(key->k, g->idkey, sizeof key->k);
	key->i = i;
	key->more = g->idlen > 24;
}

/* Keys whose numbers are equal: their ids' order (a short id is then a
 * prefix of the other, or equal to it). */
static int
gkey_tie(const struct gkey *x, const struct gkey *y, const struct freeze_item *g)
{
	if (!x->more || !y->more)
		return (int)x->more - (int)y->more;
	return strcmp(g[x->i].game_id + 24, g[y->i].game_id + 24);
}

static inline int
gkey_cmp(const struct gkey *x, const struct gkey *y, const struct freeze_item *g)
{
	for (int w = 0; w < 3; w++)
		if (x->k[w] != y->k[w])
			return x->k[w] < y->k[w] ? -1 : 1;
	return gkey_tie(x, y, g);
}

/* Whether x < y, without a branch the data decides but for ties. */
static inline int
gkey_less(const struct gkey *x, const struct gkey *y, const struct freeze_item *g)
{
	int e0 = x->k[0] == y->k[0], e1 = x->k[1] == y->k[1], e2 = x->k[2] == y->k[2];

	if (e0 & e1 & e2)
		return gkey_tie(x, y, g) < 0;
	return (x->k[0] < y->k[0]) | (e0 & ((x->k[1] < y->k[1]) | (e1 & (x->k[2] < y->k[2]))));
}

/* Merge runs of keys in order (run r is key[runs[r]..runs[r + 1]), runs[nruns]
 * is n) pairwise until one is left, between key and tmp (runs is spoiled).
 * Returns the merged keys: key or tmp.  Ties take the earlier run. */
static struct gkey *
merge_runs(struct gkey *key, struct gkey *tmp, size_t *runs, size_t nruns, size_t n,
    const struct freeze_item *g)
{
	while (nruns > 1) {
		size_t m = 0;
		for (size_t r = 0; r < nruns; r += 2) {
			/* runs[nruns] is n: an odd last run merges with nothing */
			size_t lo = runs[r], mid = runs[r + 1], hi = r + 2 <= nruns ? runs[r + 2] : mid;
			size_t x = lo, y = mid, o = lo;
			while (x < mid && y < hi)
				tmp[o++] = gkey_less(&key[y], &key[x], g) ? key[y++] : key[x++];
			memcpy(tmp + o, key + x, (mid - x) * sizeof *key);
			o += mid - x;
			memcpy(tmp + o, key + y, (hi - y) * sizeof *key);
			runs[m++] = lo;
		}
		runs[m] = n;
		nruns = m;
		struct gkey *t = key;
		key = tmp;
		tmp = t;
	}
	return key;
}

/* Sort keys stably.  A ledger is usually runs already in order (one per
 * condition, say, or one per ledger file), so runs are found and merged
 * pairwise: n log(runs) comparisons, where qsort would make n log n.
 * Returns the sorted keys: key or tmp. */
static struct gkey *
sort_keys(struct gkey *key, struct gkey *tmp, size_t *runs, size_t n, const struct freeze_item *g)
{
	size_t nruns = 0;

	for (size_t i = 0; i < n; i++)
		if (i == 0 || gkey_less(&key[i], &key[i - 1], g))
			runs[nruns++] = i;
	runs[nruns] = n;
	return merge_runs(key, tmp, runs, nruns, n, g);
}

/* A ledger is often a few streams in order, interleaved: conditions
 * played side by side, each writing its games in its own order.  Its runs
 * are then short (a block, say), but its keys fall into a few piles, each
 * in order: a key goes on the pile whose last key is the greatest below
 * it (or on a new one), which makes as few piles as there can be (the
 * longest run of keys each below the one before).  The piles' last keys
 * fall from the first pile to the last, so a key equal to an earlier one
 * goes on a later pile, and merging the piles in their order is stable.
 * Up to PILES piles, each key's pile in pile[]; 0 when more are needed
 * (the keys are then sorted the general way). */
#define PILES 16

static size_t
pile_up(const struct gkey *key, size_t n, uint8_t *pile, size_t count[PILES],
    const struct freeze_item *g)
{
	const struct gkey *last[PILES];
	size_t np = 0;

	for (size_t i = 0, best = 0; i < n; i++) {
		/* the lasts fall from pile to pile: the best is the first below
		 * the key, most often the one the key before went on */
		if (!(best < np && gkey_less(last[best], &key[i], g) &&
		    (best == 0 || !gkey_less(last[best - 1], &key[i], g))))
			for (best = 0; best < np && !gkey_less(last[best], &key[i], g); best++)
				;
		if (best == np) {
			if (np == PILES)
				return 0;
			count[np++] = 0;
		}
		last[best] = &key[i];
		pile[i] = (uint8_t)best;
		count[best]++;
	}
	return np;
}

/* Keys sorted as a block first: 256 KB, within a core's cache. */
#define SORT_BLOCK 8192

/* Half of a sort, on a thread of its own. */
struct half {
	struct gkey *key, *tmp, *out;
	size_t *runs, n, first;
	const struct freeze_item *g;
	uint8_t *pile;
};

/* Keys of games g[first..first+n) made and sorted. */
static void
sort_half(void *arg)
{
	struct half *h = arg;

	mem_ready(h->key, h->n * sizeof *h->key);
	mem_ready(h->tmp, h->n * sizeof *h->tmp);
	size_t count[PILES], np;

	for (size_t i = 0; i < h->n; i++)
		gkey_make(&h->key[i], &h->g[h->first + i], (uint32_t)(h->first + i));
	if ((np = pile_up(h->key, h->n, h->pile, count, h->g)) > 0) {
		/* the piles one after another, then merged */
		size_t at[PILES];
		for (size_t p = 0, sum = 0; p < np; sum += count[p++])
			at[p] = h->runs[p] = sum;
		h->runs[np] = h->n;
		for (size_t i = 0; i < h->n; i++)
			h->tmp[at[h->pile[i]]++] = h->key[i];
		h->out = merge_runs(h->tmp, h->key, h->runs, np, h->n, h->g);
		return;
	}
	/* Blocks of keys that fit in the processor's cache are sorted first,
	 * each alone; then only their merges pass over the whole array (a
	 * ledger of short runs otherwise takes a dozen more such passes). */
	for (size_t b = 0; b < h->n; b += SORT_BLOCK) {
		size_t m = h->n - b < SORT_BLOCK ? h->n - b : SORT_BLOCK;
		struct gkey *o = sort_keys(h->key + b, h->tmp + b, h->runs, m, h->g);
		if (o != h->key + b)
			memcpy(h->key + b, o, m * sizeof *o);
	}
	h->out = sort_keys(h->key, h->tmp, h->runs, h->n, h->g);
}

/* Whether key t, next in order after last (NULL: none), repeats its id:
 * then e names both, the later in the ledger first (the sort is stable). */
static int
repeats(const struct gkey *last, const struct gkey *t, const struct freeze_item *g, struct err *e)
{
	if (last == NULL || gkey_cmp(last, t, g) != 0)
		return 0;
	const struct freeze_item *x = &g[t->i], *y = &g[last->i];
	char w1[512], w2[512];
	err_set(e, ERR_INPUT, "%s: \"game_id\": duplicate \"%.80s\" (first at %s)",
	    freeze_where(x, w1, sizeof w1), x->game_id, freeze_where(y, w2, sizeof w2));
	return 1;
}

/* Below this many games one thread sorts them. */
#define SORT_SPLIT 65536

/* Ledgers are often written in game_id order: look before sorting.  1
 * when g[0..n) is strictly increasing. */
static int
in_order(const struct freeze_item *g, size_t n)
{
	size_t k = 1;

	for (struct gkey x, y; k < n; k++) {
		gkey_make(&x, &g[k - 1], (uint32_t)k - 1);
		gkey_make(&y, &g[k], (uint32_t)k);
		if (!gkey_less(&x, &y, g))
			break;
	}
	return k >= n;
}

/* Fewer games: their keys sorted on this thread, into ord. */
static int
order_one(struct gkey *key, struct gkey *tmp, size_t *runs, uint8_t *pile, struct freeze_item *g,
    size_t n, struct freeze_item **ord, struct err *e)
{
	struct half h = { key, tmp, NULL, runs, n, 0, g, pile };

	sort_half(&h);
	for (size_t i = 0; i < n; i++) {
		if (repeats(i > 0 ? &h.out[i - 1] : NULL, &h.out[i], g, e))
			return -1;
		ord[i] = &g[h.out[i].i];
	}
	return 0;
}

/* The halves' keys made and sorted on two threads, then merged
 * into pointers in order, a repeat looked for on the way. */
static int
order_two(struct gkey *key, struct gkey *tmp, size_t *runs, uint8_t *pile, struct freeze_item *g,
    size_t n, struct freeze_item **ord, struct err *e)
{
	size_t h1 = n / 2;
	struct pool_thread th = POOL_THREAD_INIT;
	struct half hb = { key + h1, tmp + h1, NULL, runs + h1 + 1, n - h1, h1, g, pile + h1 };
	struct half ha = { key, tmp, NULL, runs, h1, 0, g, pile };

	pool_spawn(&th, sort_half, &hb);
	sort_half(&ha);
	pool_join(&th);
	const struct gkey *s1 = ha.out, *e1 = s1 + h1, *s2 = hb.out, *e2 = s2 + (n - h1);
	const struct gkey *last = NULL, *t;
	for (size_t o = 0; o < n; o++, last = t) {
		/* ties take the first half: stable */
		if (s1 < e1 && (s2 == e2 || !gkey_less(s2, s1, g)))
			t = s1++;
		else
			t = s2++;
		if (repeats(last, t, g, e))
			return -1;
		ord[o] = &g[t->i];
	}
	return 0;
}

/* a->games in game_id order, stably, as pointers (*out, n + 1 of them);
 * a duplicate refused, naming the earlier one first.  The games stay where
 * they are: a million of them moved would be 176 MB written, and as much
 * memory asked of the system, where the pointers are 8.  A million games:
 * the keys' two halves are sorted on two threads and merged. */
int
freeze_games_in_order(const struct freeze_acc *a, struct freeze_item ***out, struct err *e)
{
	size_t n = a->n;
	struct gkey *key = NULL, *tmp = NULL;
	struct freeze_item *g = a->games, **ord;
	size_t *runs = NULL;
	uint8_t *pile = NULL;
	int rc = 0;

	*out = NULL;
	if (n > UINT32_MAX)
		return err_set(e, ERR_INPUT, "more than 2^32 games");
	if ((ord = malloc((n + 1) * sizeof *ord)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (in_order(g, n)) {
		/* strictly increasing: in order, no duplicate */
		for (size_t i = 0; i < n; i++)
			ord[i] = &g[i];
		*out = ord;
		return 0;
	}
	key = malloc((n + 1) * sizeof *key);
	tmp = malloc(n * sizeof *tmp);
	runs = malloc((n + 2) * sizeof *runs);
	pile = malloc(n + 1);
	if (key == NULL || tmp == NULL || runs == NULL || pile == NULL) {
		rc = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if ((n < SORT_SPLIT ? order_one(key, tmp, runs, pile, g, n, ord, e) :
	    order_two(key, tmp, runs, pile, g, n, ord, e)) < 0) {
		rc = -1;
		goto done;
	}
	*out = ord;
	ord = NULL;
done:
	free(key);
	free(tmp);
	free(runs);
	free(pile);
	free(ord);
	return rc;
}

/* Block order, from inc in game_id order.  The ties of cmp_block_order are
 * broken by game_id, so a stable split by (family, condition), then a look
 * at each one's (block, color) order, spares the sort in the usual case. */
int
freeze_block_order(const struct freeze_acc *a, struct freeze_item **inc, size_t ninc, struct err *e)
{
	size_t nu = a->sp.nfamilies * a->sp.nconds;
	size_t *at = calloc(nu + 1, sizeof *at), lo = 0;
	struct freeze_item **t = malloc((ninc + 1) * sizeof *t);
	int *cond = malloc((ninc + 1) * sizeof *cond); /* each game's unit, read once */

	if (at == NULL || t == NULL || cond == NULL) {
		free(at);
		free(t);
		free(cond);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < ninc; i++) {
		if (i + AHEAD < ninc)
			__builtin_prefetch(inc[i + AHEAD]);
		cond[i] = freeze_unit(a, inc[i]);
		at[cond[i] + 1]++;
	}
	for (size_t c = 0; c < nu; c++)
		at[c + 1] += at[c];
	for (size_t i = 0; i < ninc; i++)
		t[at[cond[i]]++] = inc[i];
	memcpy(inc, t, ninc * sizeof *inc);
	free(cond);
	/* at[c] is now where unit c ends */
	for (size_t c = 0; c < nu; c++) {
		size_t hi = at[c], k = lo + 1;
		while (k < hi && (inc[k - 1]->block < inc[k]->block ||
		    (inc[k - 1]->block == inc[k]->block && inc[k - 1]->color <= inc[k]->color))) {
			if (k + AHEAD < hi)
				__builtin_prefetch(inc[k + AHEAD]);
			k++;
		}
		if (k < hi)
			qsort(inc + lo, hi - lo, sizeof *inc, cmp_block_order);
		lo = hi;
	}
	free(at);
	free(t);
	return 0;
}

