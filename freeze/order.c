/* order.c: the included games in game_id order and in block order. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void
item_key(const void *ctx, size_t i, uint64_t k[3], uint32_t *longer)
{
	const struct freeze_item *g = (const struct freeze_item *)ctx + i;

	memcpy(k, g->idkey, sizeof g->idkey);
	*longer = g->idlen > 24;
}

static const char *
item_id(const void *ctx, size_t i)
{
	return ((const struct freeze_item *)ctx)[i].game_id;
}

/* a->games in game_id order, stably, as pointers (*out, n + 1 of them);
 * a duplicate refused, naming the later one first.  The games stay where
 * they are: a million of them moved would be 176 MB written, and as much
 * memory asked of the system, where the pointers are 8. */
int
freeze_games_in_order(const struct freeze_acc *a, struct freeze_item ***out, struct err *e)
{
	struct freeze_id_src src = { a->games, a->n, item_key, item_id };
	struct freeze_item **ord;
	uint32_t *at;
	size_t dup[2];
	int rc;

	*out = NULL;
	if (a->n > UINT32_MAX)
		return err_set(e, ERR_INPUT, "more than 2^32 games");
	ord = malloc((a->n + 1) * sizeof *ord);
	at = malloc((a->n + 1) * sizeof *at);
	if (ord == NULL || at == NULL || (rc = freeze_id_order(&src, at, dup)) < 0) {
		free(ord);
		free(at);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	if (rc > 0) {
		const struct freeze_item *x = &a->games[dup[0]], *y = &a->games[dup[1]];
		char w1[512], w2[512];
		err_set(e, ERR_INPUT, "%s: \"game_id\": duplicate \"%.80s\" (first at %s)",
		    freeze_where(x, w1, sizeof w1), x->game_id, freeze_where(y, w2, sizeof w2));
		free(ord);
		free(at);
		return -1;
	}
	for (size_t i = 0; i < a->n; i++)
		ord[i] = &a->games[at[i]];
	free(at);
	*out = ord;
	return 0;
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

