/* fprows.c: a fingerprint document read with its replicate rows held flat.
 *
 * Fifty fingerprints of 2,000 replicates hold five million numbers, and
 * a tree of them cost distance more than its arithmetic: a node each, a
 * malloc each, and a walk down linked lists to read them back.  Here the
 * tree holds every other value and each "rows" array stays empty; its
 * values go, as the reader meets them, into one array of doubles, each
 * row's start noted.  rows_of in distance.c reads either form the same
 * way: a number is its value, anything else NAN, a nested value one
 * element. */
#include <math.h>
#include <stdlib.h>

#include "../common/mem.h"
#include "../json/json.h"
#include "fp.h"

struct fp_rowset {
	const cJSON *node; /* the empty "rows" array it stands for */
	size_t row0, nrows;
};

struct fp_rows {
	struct fp_rowset *set;
	size_t nset, capset;
	size_t *start; /* row i's values: val[start[i] .. start[i + 1]) */
	size_t nrow, caprow;
	double *val;
	size_t nval, capval;
};

struct fp_rows *
fp_rows_new(void)
{
	return calloc(1, sizeof(struct fp_rows));
}

void
fp_rows_free(struct fp_rows *r)
{
	if (r == NULL)
		return;
	free(r->set);
	free(r->start);
	free(r->val);
	free(r);
}

/* A skipped "rows" array opens: a new set of rows, from the next row on. */
static int
rows_open(void *arg, const cJSON *array, struct err *e)
{
	struct fp_rows *r = arg;

	if (mem_grow((void **)&r->set, &r->capset, r->nset + 1, sizeof *r->set) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	r->set[r->nset++] = (struct fp_rowset){ array, r->nrow, 0 };
	return 0;
}

static int
rows_tok(void *arg, const struct json_tok *t, int depth, struct err *e)
{
	struct fp_rows *r = arg;
	int end = t->type == JSON_OBJECT_END || t->type == JSON_ARRAY_END;

	if (depth == 1 && !end) { /* a row begins (a scalar is a row of none) */
		if (mem_grow((void **)&r->start, &r->caprow, r->nrow + 2, sizeof *r->start) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		r->start[r->nrow++] = r->nval;
		r->start[r->nrow] = r->nval;
		r->set[r->nset - 1].nrows++;
	} else if (depth == 2 && !end && t->type != JSON_KEY) {
		if (mem_grow((void **)&r->val, &r->capval, r->nval + 1, sizeof *r->val) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		r->val[r->nval++] = t->type == JSON_NUMBER ? t->x : NAN;
		r->start[r->nrow] = r->nval;
	}
	return 0;
}

/* A run of numbers: inside a row, its values at once. */
static int
rows_run(void *arg, const struct json_tok *t, size_t n, int depth, struct err *e)
{
	struct fp_rows *r = arg;

	if (depth != 2) { /* numbers that are rows (a row of none each), or deeper */
		for (size_t i = 0; i < n; i++)
			if (rows_tok(arg, &t[i], depth, e) < 0)
				return -1;
		return 0;
	}
	if (mem_grow((void **)&r->val, &r->capval, r->nval + n, sizeof *r->val) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		r->val[r->nval++] = t[i].x;
	r->start[r->nrow] = r->nval;
	return 0;
}

cJSON *
fp_read_file(const char *path, struct fp_rows *rows, int beside, struct json_ident **id,
    struct err *e)
{
	/* fingerprints[i].replicates.rows: the element objects at depth 3 */
	const struct json_skip skip = { { "replicates", "rows" }, rows_tok, rows, 3, rows_open,
		rows_run };

	return json_parse_file_begin(path, rows != NULL ? &skip : NULL, beside, id, e);
}

int
fp_rows_find(const struct fp_rows *r, const cJSON *node, struct fp_rowview *v)
{
	for (size_t i = 0; r != NULL && i < r->nset; i++)
		if (r->set[i].node == node) {
			*v = (struct fp_rowview){ r->val, &r->start[r->set[i].row0], r->set[i].nrows };
			return 1;
		}
	return 0;
}
