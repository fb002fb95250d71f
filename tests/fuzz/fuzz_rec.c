/* fuzz_rec: the flat record reader (json/rec.c) against the strict tree
 * reader and the canonical writer.  Whenever rec_scan accepts an input, the
 * tree reader must accept it too and the canonical writer must give the
 * same bytes; rec_check must accept exactly the inputs that are already
 * those bytes; every number token rec_num reads must equal strtod's value.
 * An input with newlines is also stored records: a scanner that read the
 * others, each a dozen times over (so it may read the last by a shape
 * whose values the same in all of them are taken as its text), must answer
 * rec_check on the last as a fresh one does, with the same values, and
 * rec_canon on it as rec_scan does. */
#define _GNU_SOURCE /* memrchr */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/buf.h"
#include "../../json/json.h"
#include "../../json/rec.h"

static void
check_numbers(const struct rec_scan *s, int tok, const cJSON *v)
{
	double x;

	switch (rec_type(s, tok)) {
	case REC_NUMBER:
		if (rec_num(s, tok, &x) == 0 &&
		    (!cJSON_IsNumber(v) || memcmp(&x, &v->valuedouble, sizeof x) != 0))
			abort();
		break;
	case REC_STRING: {
		/* strings the flat reader holds have no escapes */
		size_t n;
		const char *p = rec_str(s, tok, &n);
		if (!cJSON_IsString(v) || strlen(v->valuestring) != n || memcmp(p, v->valuestring, n) != 0)
			abort();
		break;
	}
	case REC_ARRAY: {
		const cJSON *c = v->child;
		for (int t = rec_first(s, tok); t >= 0; t = rec_next(s, tok, t), c = c->next) {
			if (c == NULL)
				abort();
			check_numbers(s, t, c);
		}
		break;
	}
	case REC_OBJECT:
		for (const cJSON *c = v->child; c; c = c->next) {
			int t = rec_member(s, tok, c->string);
			/* keys the flat reader holds are ASCII and escape-free */
			if (t < 0)
				abort();
			check_numbers(s, t, c);
		}
		break;
	default:
		break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rec_scan *s = rec_scan_new();
	struct buf flat = BUF_INIT, canon = BUF_INIT;
	struct err e = ERR_INIT;
	cJSON *tree;

	if (s == NULL)
		return 0;
	int checked = rec_check(s, (const char *)data, size) == REC_OK;
	if (rec_scan(s, (const char *)data, size, &flat) == REC_OK) {
		/* rec_check says yes exactly to rec_scan's own bytes */
		if (checked != (flat.len == size && memcmp(flat.p, data, size) == 0))
			abort();
		struct rec_scan *t = rec_scan_new();
		int expo = 0;
		for (size_t i = 0; i + 2 < flat.len; i++)
			expo |= flat.p[i] >= '0' && flat.p[i] <= '9' && flat.p[i + 1] == 'e' &&
			    (flat.p[i + 2] == '+' || flat.p[i + 2] == '-');
		if (t != NULL && !expo && rec_check(t, flat.p, flat.len) != REC_OK)
			abort();
		rec_scan_free(t);
	} else if (checked) {
		abort();
	}
	buf_reset(&flat);
	if (rec_scan(s, (const char *)data, size, &flat) == REC_OK) {
		tree = json_parse((const char *)data, size, "fuzz", 1, &e);
		if (tree == NULL || canon_write(tree, &canon, &e) < 0 || canon.len != flat.len ||
		    memcmp(canon.p, flat.p, flat.len) != 0)
			abort();
		check_numbers(s, 0, tree);
		cJSON_Delete(tree);
	}
	const uint8_t *nl = memrchr(data, '\n', size);
	if (nl != NULL) {
		const char *b = (const char *)nl + 1;
		size_t nb = size - (size_t)(nl + 1 - data);
		struct rec_scan *cold = rec_scan_new();
		if (cold != NULL) {
			/* at most four lines before the last, a dozen rounds */
			for (int round = 0; round < 12; round++) {
				const uint8_t *p = data;
				for (int k = 0; k < 4 && p < nl; k++) {
					const uint8_t *q = memchr(p, '\n', (size_t)(nl + 1 - p));
					(void)rec_check(s, (const char *)p, (size_t)(q - p));
					p = q + 1;
				}
			}
			int warm = rec_check(s, b, nb);
			if (warm != rec_check(cold, b, nb))
				abort();
			/* rec_canon, warm: rec_scan's answer and bytes */
			struct buf x = BUF_INIT, y = BUF_INIT;
			int cx = rec_canon(s, b, nb, &x, NULL), cy = rec_scan(cold, b, nb, &y);
			if (cx != cy || (cx == REC_OK && (x.len != y.len || memcmp(x.p, y.p, x.len) != 0)))
				abort();
			buf_release(&x);
			buf_release(&y);
			warm = rec_check(s, b, nb);
			if (warm == REC_OK) {
				tree = json_parse(b, nb, "fuzz", 1, &e);
				if (tree == NULL)
					abort();
				check_numbers(s, 0, tree);
				cJSON_Delete(tree);
			}
		}
		rec_scan_free(cold);
	}
	buf_release(&flat);
	buf_release(&canon);
	rec_scan_free(s);
	return 0;
}
