/* freeze_write: freeze_acc_write's bytes are canonical and are what the
 * tree gives.
 *
 *   freeze_write [-t] SPEC LEDGER...
 *
 * Reads the ledgers record by record into an accumulator, writes the
 * manifest with and without a "repo", and checks for each that the bytes
 * read back (json_parse) and written again (canon_write) are the same
 * bytes, that freeze_acc_finish's tree writes them too, that a second
 * write gives them again, and that a write appends to what a buffer holds.
 * When a ledger is refused, prints the message and exits 2 (as `cohort
 * freeze` would refuse it).  With -t, prints the time of freeze_acc_write
 * (first with the sort by game_id, then on sorted games) and of
 * freeze_acc_finish + canon_write (the tree's way) instead of checking.  Prints one line per failure; exits 1 on any. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../../common/buf.h"
#include "../../common/err.h"
#include "../../freeze/freeze.h"
#include "../../json/json.h"
#include "../../protocol/ledger.h"

static int fails;

static void
expect(int ok, const char *what, const char *detail)
{
	if (!ok) {
		printf("FAIL %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
		fails++;
	}
}

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int
on_record(void *ctx, cJSON *rec, const struct ledger_loc *loc, struct err *e)
{
	char where[512];
	const char *canon;
	size_t n;
	uint8_t d[HASH_LEN];

	ledger_loc_format(loc, where, sizeof where);
	return freeze_acc_add(ctx, rec, where, &canon, &n, d, e);
}

static int
same(const struct buf *a, const char *p, size_t n)
{
	return a->len == n && (n == 0 || memcmp(a->p, p, n) == 0);
}

/* All checks on one accumulator, with repo or without. */
static void
check(struct freeze_acc *a, const cJSON *repo, const char *label)
{
	struct err e = ERR_INIT;
	struct buf out = BUF_INIT, again = BUF_INIT, tree = BUF_INIT, pre = BUF_INIT;
	cJSON *doc = NULL, *m = NULL;
	char what[128];

	snprintf(what, sizeof what, "%s: freeze_acc_write", label);
	if (freeze_acc_write(a, repo, &out, &e) < 0) {
		expect(0, what, e.msg);
		goto done;
	}
	snprintf(what, sizeof what, "%s: bytes are canonical (parse, write again)", label);
	doc = json_parse(out.p, out.len, "manifest", 1, &e);
	expect(doc && canon_write(doc, &again, &e) == 0 && same(&again, out.p, out.len), what,
	    doc ? NULL : e.msg);
	snprintf(what, sizeof what, "%s: \"repo\" %s", label, repo ? "present" : "absent");
	expect(doc && (json_get(doc, "repo") != NULL) == (repo != NULL), what, NULL);
	snprintf(what, sizeof what, "%s: freeze_acc_finish's tree writes the same bytes", label);
	expect(freeze_acc_finish(a, repo, &m, &e) == 0 && canon_write(m, &tree, &e) == 0 &&
	    same(&tree, out.p, out.len), what, NULL);
	snprintf(what, sizeof what, "%s: appends after what the buffer holds", label);
	buf_adds(&pre, "prefix");
	expect(freeze_acc_write(a, repo, &pre, &e) == 0 && pre.len == 6 + out.len &&
	    memcmp(pre.p, "prefix", 6) == 0 && memcmp(pre.p + 6, out.p, out.len) == 0, what, NULL);
done:
	cJSON_Delete(doc);
	cJSON_Delete(m);
	buf_release(&out);
	buf_release(&again);
	buf_release(&tree);
	buf_release(&pre);
}

static void
timing(struct freeze_acc *a)
{
	struct err e = ERR_INIT;
	struct buf out = BUF_INIT;
	cJSON *m = NULL;
	double t0, t1, t2, t3;

	/* the first run sorts the games by game_id; the timed runs after it
	 * find them sorted */
	t0 = now();
	if (freeze_acc_write(a, NULL, &out, &e) < 0) {
		printf("freeze_acc_write: %s\n", e.msg);
		fails++;
		return;
	}
	t1 = now();
	printf("freeze_acc_write, sorting by id   %8.3f s  %zu bytes\n", t1 - t0, out.len);
	buf_release(&out);
	t0 = now();
	freeze_acc_write(a, NULL, &out, &e);
	t1 = now();
	printf("freeze_acc_write                  %8.3f s  %zu bytes\n", t1 - t0, out.len);
	buf_release(&out);
	t2 = now();
	if (freeze_acc_finish(a, NULL, &m, &e) == 0)
		canon_write(m, &out, &e);
	cJSON_Delete(m);
	t3 = now();
	printf("freeze_acc_finish + canon_write   %8.3f s  %zu bytes\n", t3 - t2, out.len);
	buf_release(&out);
}

int
main(int argc, char **argv)
{
	struct err e = ERR_INIT;
	struct freeze_acc *a;
	cJSON *spec, *repo;
	int t = argc > 1 && strcmp(argv[1], "-t") == 0, first = 1 + t;

	if (argc < first + 2) {
		fprintf(stderr, "usage: freeze_write [-t] SPEC LEDGER...\n");
		return 2;
	}
	spec = json_parse_file(argv[first], &e);
	a = spec ? freeze_acc_new(spec, &e) : NULL;
	if (a == NULL) {
		printf("%s: %s\n", argv[first], e.msg);
		cJSON_Delete(spec);
		return 2;
	}
	for (int i = first + 1; i < argc; i++)
		if (ledger_read(argv[i], on_record, a, &e) < 0) {
			printf("%s\n", e.msg);
			freeze_acc_free(a);
			cJSON_Delete(spec);
			return 2;
		}
	if (t) {
		timing(a);
	} else {
		repo = cJSON_CreateObject();
		json_add_string(repo, "commit", "0123456789abcdef0123456789abcdef01234567");
		json_add_bool(repo, "dirty", 1);
		check(a, NULL, "no repo");
		check(a, repo, "repo");
		cJSON_Delete(repo);
	}
	freeze_acc_free(a);
	cJSON_Delete(spec);
	return fails ? 1 : 0;
}
