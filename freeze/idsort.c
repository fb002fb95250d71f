/* idsort.c: ids put in order, one rule for the games' game_ids and the
 * decisions' decision_ids (freeze_id_order, internal.h). */
#define _GNU_SOURCE /* qsort_r */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "../common/pool.h"

void
freeze_id_key(const char *id, size_t n, uint64_t k[3])
{
	for (size_t w = 0, at = 0; w < 3; w++, at += 8) {
		uint64_t v = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		if (at + 8 <= n) {
			memcpy(&v, id + at, 8);
			k[w] = __builtin_bswap64(v);
			continue;
		}
#endif
		for (size_t b = at; b < at + 8; b++)
			v = v << 8 | (b < n ? (unsigned char)id[b] : 0);
		k[w] = v;
	}
}

/* An item in the sort: 24 bytes of its id as a key (freeze_id_key) and
 * whether the id goes on past them.  Items are sorted on their ids' first
 * 24 bytes; those whose keys are equal and go on are sorted again on the
 * next 24 (refine), and so on.  Comparisons look at keys alone, never at
 * the ids, which lie all over the heap: ids often share their first 24
 * bytes (a decision_id names its family, replication and position). */
struct gkey {
	uint64_t k[3];
	uint32_t i, more;
};

/* Whether x < y, without a branch the data decides. */
static inline int
gkey_less(const struct gkey *x, const struct gkey *y)
{
	int e0 = x->k[0] == y->k[0], e1 = x->k[1] == y->k[1], e2 = x->k[2] == y->k[2];

	return (x->k[0] < y->k[0]) | (e0 & ((x->k[1] < y->k[1]) | (e1 & ((x->k[2] < y->k[2]) |
	    (e2 & (x->more < y->more))))));
}

static inline int
gkey_same(const struct gkey *x, const struct gkey *y)
{
	return x->k[0] == y->k[0] && x->k[1] == y->k[1] && x->k[2] == y->k[2] &&
	    x->more == y->more;
}

/* Merge runs of keys in order (run r is key[runs[r]..runs[r + 1]), runs[nruns]
 * is n) pairwise until one is left, between key and tmp (runs is spoiled).
 * Returns the merged keys: key or tmp.  Ties take the earlier run. */
static struct gkey *
merge_runs(struct gkey *key, struct gkey *tmp, size_t *runs, size_t nruns, size_t n)
{
	while (nruns > 1) {
		size_t m = 0;
		for (size_t r = 0; r < nruns; r += 2) {
			/* runs[nruns] is n: an odd last run merges with nothing */
			size_t lo = runs[r], mid = runs[r + 1], hi = r + 2 <= nruns ? runs[r + 2] : mid;
			size_t x = lo, y = mid, o = lo;
			while (x < mid && y < hi)
				tmp[o++] = gkey_less(&key[y], &key[x]) ? key[y++] : key[x++];
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
sort_keys(struct gkey *key, struct gkey *tmp, size_t *runs, size_t n)
{
	size_t nruns = 0;

	for (size_t i = 0; i < n; i++)
		if (i == 0 || gkey_less(&key[i], &key[i - 1]))
			runs[nruns++] = i;
	runs[nruns] = n;
	return merge_runs(key, tmp, runs, nruns, n);
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
pile_up(const struct gkey *key, size_t n, uint8_t *pile, size_t count[PILES])
{
	const struct gkey *last[PILES];
	size_t np = 0;

	for (size_t i = 0, best = 0; i < n; i++) {
		/* the lasts fall from pile to pile: the best is the first below
		 * the key, most often the one the key before went on */
		if (!(best < np && gkey_less(last[best], &key[i]) &&
		    (best == 0 || !gkey_less(last[best - 1], &key[i]))))
			for (best = 0; best < np && !gkey_less(last[best], &key[i]); best++)
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

/* key[0..n) sorted stably, in place (tmp, runs and pile: room for n). */
static void
sort_all(struct gkey *key, struct gkey *tmp, size_t *runs, uint8_t *pile, size_t n)
{
	size_t count[PILES], np;
	struct gkey *o;

	if ((np = pile_up(key, n, pile, count)) > 0) {
		/* the piles one after another, then merged */
		size_t at[PILES];
		for (size_t p = 0, sum = 0; p < np; sum += count[p++])
			at[p] = runs[p] = sum;
		runs[np] = n;
		for (size_t i = 0; i < n; i++)
			tmp[at[pile[i]]++] = key[i];
		o = merge_runs(tmp, key, runs, np, n);
	} else {
		/* Blocks of keys that fit in the processor's cache are sorted
		 * first, each alone; then only their merges pass over the whole
		 * array (a ledger of short runs otherwise takes a dozen more
		 * such passes). */
		for (size_t b = 0; b < n; b += SORT_BLOCK) {
			size_t m = n - b < SORT_BLOCK ? n - b : SORT_BLOCK;
			if ((o = sort_keys(key + b, tmp + b, runs, m)) != key + b)
				memcpy(key + b, o, m * sizeof *o);
		}
		o = sort_keys(key, tmp, runs, n);
	}
	if (o != key)
		memcpy(key, o, n * sizeof *key);
}

/* Half of a sort, on a thread of its own: the keys of items
 * first..first+n made and sorted. */
struct half {
	struct gkey *key, *tmp;
	size_t *runs, n, first;
	const struct freeze_id_src *g;
	uint8_t *pile;
};

static void
sort_half(void *arg)
{
	struct half *h = arg;

	mem_ready(h->key, h->n * sizeof *h->key);
	mem_ready(h->tmp, h->n * sizeof *h->tmp);
	for (size_t i = 0; i < h->n; i++) {
		h->g->key(h->g->ctx, h->first + i, h->key[i].k, &h->key[i].more);
		h->key[i].i = (uint32_t)(h->first + i);
	}
	sort_all(h->key, h->tmp, h->runs, h->pile, h->n);
}

/* Past this many keys of 24 bytes alike, the rest of the ids compare as
 * strings: a refine's depth stays small whatever the ids. */
#define LEVELS 8

struct tail_cmp {
	const struct freeze_id_src *g;
	size_t at;
};

/* The ids of keys alike for LEVELS rounds: by their bytes from at, then
 * their place (stable).  qsort_r: sorted once in a great while. */
static int
cmp_tail(const void *x, const void *y, void *arg)
{
	const struct gkey *a = x, *b = y;
	const struct tail_cmp *t = arg;
	int c = strcmp(t->g->id(t->g->ctx, a->i) + t->at, t->g->id(t->g->ctx, b->i) + t->at);

	return c ? c : (a->i > b->i) - (a->i < b->i);
}

static int refine(const struct freeze_id_src *g, struct gkey *key, struct gkey *tmp,
    size_t *runs, uint8_t *pile, size_t n, int level, size_t dup[2]);

/* key[0..n), sorted on the level's 24 bytes: each group of keys alike and
 * going on refined in turn; the first group of ids alike in full is a
 * repeat (1, dup: the later, the earlier). */
static int
groups(const struct freeze_id_src *g, struct gkey *key, struct gkey *tmp, size_t *runs,
    uint8_t *pile, size_t n, int level, size_t dup[2])
{
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		for (hi = lo + 1; hi < n && gkey_same(&key[lo], &key[hi]); hi++)
			;
		if (hi - lo < 2)
			continue;
		if (!key[lo].more) {
			dup[0] = key[lo + 1].i;
			dup[1] = key[lo].i;
			return 1;
		}
		if (refine(g, key + lo, tmp, runs, pile, hi - lo, level + 1, dup) != 0)
			return 1;
	}
	return 0;
}

/* key[0..n), alike on their first level * 24 bytes and all going on,
 * sorted on the rest of their ids. */
static int
refine(const struct freeze_id_src *g, struct gkey *key, struct gkey *tmp, size_t *runs,
    uint8_t *pile, size_t n, int level, size_t dup[2])
{
	size_t at = (size_t)level * 24;

	if (level >= LEVELS) {
		struct tail_cmp t = { g, at };
		qsort_r(key, n, sizeof *key, cmp_tail, &t);
		for (size_t i = 1; i < n; i++)
			if (strcmp(g->id(g->ctx, key[i - 1].i) + at, g->id(g->ctx, key[i].i) + at) == 0) {
				dup[0] = key[i].i;
				dup[1] = key[i - 1].i;
				return 1;
			}
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		const char *id = g->id(g->ctx, key[i].i) + at;
		size_t len = strnlen(id, 25);
		freeze_id_key(id, len, key[i].k);
		key[i].more = len > 24;
	}
	sort_all(key, tmp, runs, pile, n);
	return groups(g, key, tmp, runs, pile, n, level, dup);
}

/* Below this many items one thread sorts them. */
#define SORT_SPLIT 65536

/* Whether the ids of items i and i + 1 are in strictly increasing order. */
static int
increasing(const struct freeze_id_src *g, size_t i)
{
	struct gkey x, y;

	g->key(g->ctx, i, x.k, &x.more);
	g->key(g->ctx, i + 1, y.k, &y.more);
	if (!gkey_same(&x, &y))
		return gkey_less(&x, &y);
	return x.more && strcmp(g->id(g->ctx, i) + 24, g->id(g->ctx, i + 1) + 24) < 0;
}

/* The keys of all items in order on their first 24 bytes, into key: the
 * halves on two threads from SORT_SPLIT items on, then merged. */
static void
first_sort(const struct freeze_id_src *g, struct gkey *key, struct gkey *tmp, size_t *runs,
    uint8_t *pile)
{
	size_t n = g->n, h1 = n / 2;
	struct half ha = { key, tmp, runs, h1, 0, g, pile };
	struct half hb = { key + h1, tmp + h1, runs + h1 + 1, n - h1, h1, g, pile + h1 };
	struct pool_thread th = POOL_THREAD_INIT;

	if (n < SORT_SPLIT) {
		ha.n = n;
		sort_half(&ha);
		return;
	}
	pool_spawn(&th, sort_half, &hb);
	sort_half(&ha);
	pool_join(&th);
	/* ties take the first half: stable */
	size_t x = 0, y = h1, o = 0;
	while (x < h1 && y < n)
		tmp[o++] = gkey_less(&key[y], &key[x]) ? key[y++] : key[x++];
	memcpy(tmp + o, key + x, (h1 - x) * sizeof *key);
	o += h1 - x;
	memcpy(tmp + o, key + y, (n - y) * sizeof *key);
	memcpy(key, tmp, n * sizeof *key);
}

int
freeze_id_order(const struct freeze_id_src *g, uint32_t *ord, size_t dup[2])
{
	size_t n = g->n, k = 1;
	struct gkey *key = NULL, *tmp = NULL;
	size_t *runs = NULL;
	uint8_t *pile = NULL;
	int rc = -1;

	/* logs are often written in id order: a look before sorting */
	while (k < n && increasing(g, k - 1))
		k++;
	if (k >= n) {
		for (size_t i = 0; i < n; i++)
			ord[i] = (uint32_t)i;
		return 0;
	}
	key = malloc((n + 1) * sizeof *key);
	tmp = malloc(n * sizeof *tmp);
	runs = malloc((n + 2) * sizeof *runs);
	pile = malloc(n + 1);
	if (key != NULL && tmp != NULL && runs != NULL && pile != NULL) {
		first_sort(g, key, tmp, runs, pile);
		rc = groups(g, key, tmp, runs, pile, n, 0, dup);
		for (size_t i = 0; rc == 0 && i < n; i++)
			ord[i] = key[i].i;
	}
	free(key);
	free(tmp);
	free(runs);
	free(pile);
	return rc;
}
