/* fuzz_json.c: libFuzzer target for the strict JSON reader and the canonical
 * writer.  Any input either is refused, or parses into a tree whose
 * canonical bytes parse again into the same canonical bytes (the writer's
 * output is a fixed point).  A parsed tree the writer refuses is a bug too:
 * the reader is the stricter of the two.  The same input read with an
 * array skipped ({"a": {"b": [...]}}) gives the same tokens and the same
 * refusal whether the numbers that follow one another come a run at a
 * time or one by one; where nothing is skipped, the whole parse's.  Read
 * with its top-level "games" held flat (protocol/games.c), the same
 * refusal, or each element's fields as the tree gives them
 * (tests/unit/games_agree.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/buf.h"
#include "../../common/err.h"
#include "../../json/json.h"
#include "../unit/games_agree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A skipped token, as bytes: its type, depth, place and value. */
static int
seen_tok(void *arg, const struct json_tok *t, int depth, struct err *e)
{
	long w[5] = { t->type, depth, t->line, t->col, (long)t->len };
	double x = t->type == JSON_NUMBER ? t->x : 0; /* a number's alone */

	(void)e;
	return buf_add(arg, w, sizeof w) < 0 || buf_add(arg, &x, sizeof x) < 0 ||
	    buf_add(arg, &t->plain, sizeof t->plain) < 0 ? -1 : 0;
}

static int
seen_run(void *arg, const struct json_tok *t, size_t n, int depth, struct err *e)
{
	for (size_t i = 0; i < n; i++)
		if (seen_tok(arg, &t[i], depth, e) < 0)
			return -1;
	return 0;
}

/* The input read with {"a": {"b": [...]}}'s array skipped, runs of numbers
 * at once (run) or not: the tokens into b, the refusal into e. */
static cJSON *
skipped(const uint8_t *data, size_t size, int run, struct buf *b, struct err *e)
{
	const struct json_skip s = { { "a", "b" }, seen_tok, b, 0, NULL, run ? seen_run : NULL };

	return json_parse_skip((const char *)data, size, "fuzz", &s, e);
}

static void
check_skip(const uint8_t *data, size_t size, const cJSON *whole, const struct err *ew)
{
	struct buf b1 = BUF_INIT, b2 = BUF_INIT;
	struct err e1 = ERR_INIT, e2 = ERR_INIT;
	cJSON *s1 = skipped(data, size, 1, &b1, &e1), *s2 = skipped(data, size, 0, &b2, &e2);

	if ((s1 == NULL) != (s2 == NULL) || strcmp(e1.msg, e2.msg) != 0)
		abort();
	if (b1.len != b2.len || (b1.len && memcmp(b1.p, b2.p, b1.len) != 0))
		abort();
	/* a skip changes nothing where it skips nothing */
	if (b1.len == 0 && ((s1 == NULL) != (whole == NULL) ||
	    (whole == NULL && strcmp(e1.msg, ew->msg) != 0)))
		abort();
	cJSON_Delete(s1);
	cJSON_Delete(s2);
	buf_release(&b1);
	buf_release(&b2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err e = ERR_INIT;
	struct buf one = BUF_INIT, two = BUF_INIT;
	cJSON *v, *w;

	v = json_parse((const char *)data, size, "fuzz", 1, &e);
	check_skip(data, size, v, &e);
	if (games_agree((const char *)data, size) != 0)
		abort();
	if (v == NULL) {
		/* A refusal always says why. */
		if (e.msg[0] == '\0')
			abort();
		return 0;
	}
	if (canon_write(v, &one, &e) < 0)
		abort();
	w = json_parse(one.p ? one.p : "", one.len, "canonical", 1, &e);
	if (w == NULL)
		abort();
	if (canon_write(w, &two, &e) < 0)
		abort();
	if (one.len != two.len || (one.len && memcmp(one.p, two.p, one.len) != 0))
		abort();
	cJSON_Delete(v);
	cJSON_Delete(w);
	buf_release(&one);
	buf_release(&two);
	return 0;
}
