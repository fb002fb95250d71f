/* decision_agree.h: the flat decision reader against the tree reader, for
 * the unit test (decision_flat.c) and the fuzz target (fuzz_decision.c).
 * For one record's text: when rec_scan reads it and decision_read_flat
 * says yes, decision_read of its tree must say yes too and give the same
 * decision, field by field.  The same for the record's canonical bytes
 * read by rec_check, as paired reads stored records. */
#include <string.h>

#include "../../common/buf.h"
#include "../../json/json.h"
#include "../../json/rec.h"
#include "../../protocol/decision.h"

static int
agree_str(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static int
agree_moves(const char *const *a, size_t na, const char *const *b, size_t nb)
{
	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return 0;
	return 1;
}

/* 1 when the two decisions are the same, field by field. */
static int
agree_fields(const struct decision *f, const struct decision *t)
{
	return agree_str(f->decision_id, t->decision_id) && agree_str(f->family, t->family) &&
	    agree_str(f->replication, t->replication) && agree_str(f->condition, t->condition) &&
	    agree_str(f->budget, t->budget) && agree_str(f->position_id, t->position_id) &&
	    agree_str(f->requested, t->requested) && agree_str(f->returned, t->returned) &&
	    f->cond.kind == t->cond.kind && f->cond.k == t->cond.k && f->history == t->history &&
	    f->order_seed == t->order_seed &&
	    agree_moves(f->shown, f->nshown, t->shown, t->nshown) &&
	    f->has_proposed == t->has_proposed &&
	    agree_moves(f->proposed, f->nproposed, t->proposed, t->nproposed) &&
	    agree_str(f->chosen, t->chosen) && f->status == t->status &&
	    f->failure == t->failure && f->retries == t->retries &&
	    memcmp(f->tok, t->tok, sizeof f->tok) == 0 &&
	    memcmp(&f->latency_ms, &t->latency_ms, sizeof f->latency_ms) == 0 &&
	    agree_str(f->ts_text, t->ts_text) && ts_cmp(f->ts, t->ts) == 0;
}

/* The flat reader's answer on s (already read) against the tree's of text:
 * -1 a disagreement, 1 read flat and agreed, 0 not read flat. */
static int
agree_scanned(struct decision_flat *fl, const struct rec_scan *s, const char *p, size_t n)
{
	struct decision f, t;
	struct err e = ERR_INIT;
	cJSON *tree;
	int rc = decision_read_flat(fl, s, &f), ok;

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if ((tree = json_parse(p, n, "record", 1, &e)) == NULL)
		return -1;
	ok = decision_read(tree, &t, &e) == 0 && agree_fields(&f, &t);
	cJSON_Delete(tree);
	return ok ? 1 : -1;
}

/* Both ways for one record: its text by rec_scan, its canonical bytes by
 * rec_check.  -1 a disagreement, else how many of the two were flat. */
static int
agree_record(struct rec_scan *s, struct decision_flat *fl, const char *p, size_t n)
{
	struct buf canon = BUF_INIT;
	int a = 0, b = 0, rc = rec_scan(s, p, n, &canon);

	if (rc == REC_NOMEM)
		return buf_release(&canon), -1;
	if (rc == REC_OK)
		a = agree_scanned(fl, s, p, n);
	if (rc == REC_OK && a >= 0 && rec_check(s, canon.p, canon.len) == REC_OK)
		b = agree_scanned(fl, s, canon.p, canon.len);
	buf_release(&canon);
	return a < 0 || b < 0 ? -1 : a + b;
}
