/* ids.c: strings kept in blocks of a megabyte, given out one after
 * another and freed together: a million game ids or decision_ids, made
 * and freed one by one, cost more than the sort they are read for. */
#include <stdlib.h>
#include <string.h>

#include "../common/mem.h"
#include "internal.h"

#define ID_BLOCK ((size_t)1 << 20)
struct id_block {
	struct id_block *next;
	size_t used, cap;
	char b[];
};

struct freeze_ids {
	struct id_block *head;
};

struct freeze_ids *
freeze_ids_new(void)
{
	return calloc(1, sizeof(struct freeze_ids));
}

void
freeze_ids_free(struct freeze_ids *ids)
{
	if (ids == NULL)
		return;
	for (struct id_block *b = ids->head, *next; b != NULL; b = next) {
		next = b->next;
		free(b);
	}
	free(ids);
}

char *
freeze_ids_dup(struct freeze_ids *ids, const char *p, size_t n)
{
	struct id_block *b = ids->head;

	if (b == NULL || b->cap - b->used < n + 1) {
		/* a megabyte at a time, its pages asked for at once */
		size_t cap = n + 1 > ID_BLOCK - sizeof *b ? n + 1 : ID_BLOCK - sizeof *b;
		if ((b = mem_ready(malloc(sizeof *b + cap), sizeof *b + cap)) == NULL)
			return NULL;
		b->next = ids->head;
		b->used = 0;
		b->cap = cap;
		ids->head = b;
	}
	char *o = b->b + b->used;
	memcpy(o, p, n);
	o[n] = '\0';
	b->used += n + 1;
	return o;
}
