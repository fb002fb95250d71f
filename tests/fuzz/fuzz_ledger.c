/* fuzz_ledger.c: libFuzzer target for the ledger reader and the record
 * validator, against the Luna pilot's spec.
 *
 * The input is a JSON Lines ledger.  It goes through ledger_read (from a
 * scratch file, as `cohort freeze` reads it), every record through
 * freeze_acc_add, and a ledger that is read whole through freeze_acc_write,
 * which sorts, groups blocks and replays the ladder.  Each accepted
 * record's canonical bytes are re-parsed and re-added to a second
 * accumulator, as verify does from the store: it must be accepted with the
 * same digest.  The manifest's bytes must be canonical (read back and
 * written again, the same bytes).
 *
 * The same file then goes through ledger_read_par (the thread pool `cohort
 * freeze` uses) with freeze_acc_prepare and freeze_acc_take: both readers
 * must accept or refuse alike, with the same message, and an accepted
 * ledger must give the same manifest bytes (there through freeze_acc_finish,
 * the tree). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/buf.h"
#include "../../common/err.h"
#include "../../freeze/freeze.h"
#include "../../json/json.h"
#include "../../protocol/ledger.h"
#include "../../protocol/spec.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char luna_spec[] =
    "{\"kind\": \"cohort.spec/1\", \"name\": \"luna-pilot\","
    " \"as_of\": \"2026-07-20T00:00:00Z\", \"families\": [\"luna\"],"
    " \"conditions\": [\"none\", \"top10\", \"top5\", \"top3\", \"top2\"],"
    " \"color\": \"black\", \"black_penalty\": 35,"
    " \"ladder\": {\"block_games\": 10, \"start\": 1320, \"max\": 3190,"
    " \"promote\": [[0.9, 400], [0.8, 300], [0.65, 200]], \"stop_below\": 0.35,"
    " \"max_repeats\": 1}}";

static cJSON *spec;
static char path[64];
static int fd = -1;

struct run {
	struct freeze_acc *acc, *again;
};

/* A record's slot in the parallel run. */
struct pslot {
	struct freeze_item item;
	struct buf canon;
	uint8_t d[HASH_LEN];
};

static int
par_work(void *ctx, void *scratch, const char *text, size_t n, const cJSON *rec,
    const struct ledger_loc *loc, void *p, struct buf *keep, struct err *e)
{
	const struct freeze_acc *acc = ctx;
	struct pslot *s = p;
	char where[128];
	int rc;

	ledger_loc_format(loc, where, sizeof where);
	if (rec != NULL)
		rc = freeze_acc_prepare(acc, rec, where, &s->item, &s->canon, s->d, e);
	else
		rc = freeze_acc_prepare_text(acc, scratch, text, n, loc, &s->item, &s->canon, s->d, e);
	if (rc < 0) {
		buf_release(&s->canon);
		return -1;
	}
	return 0;
}

static void *
par_scratch_new(void *ctx)
{
	(void)ctx;
	return freeze_scratch_new();
}

static void
par_scratch_free(void *scratch)
{
	freeze_scratch_free(scratch);
}

static int
par_done(void *ctx, void *p, const struct buf *keep, struct err *e)
{
	struct pslot *s = p;

	(void)keep;
	buf_release(&s->canon);
	return freeze_acc_take(ctx, &s->item, e);
}

static void
par_release(void *p)
{
	struct pslot *s = p;

	freeze_item_clear(&s->item);
	buf_release(&s->canon);
}

static int
on_record(void *ctx, cJSON *rec, const struct ledger_loc *loc, struct err *e)
{
	struct run *r = ctx;
	char where[128];
	const char *canon, *canon2;
	size_t n, n2;
	uint8_t d[HASH_LEN], d2[HASH_LEN];
	cJSON *back;

	if (loc->name == NULL || loc->line < 1)
		abort();
	ledger_loc_format(loc, where, sizeof where);
	if (freeze_acc_add(r->acc, rec, where, &canon, &n, d, e) < 0)
		return -1;
	back = json_parse(canon, n, "canonical", 1, e);
	if (back == NULL)
		abort();
	if (freeze_acc_add(r->again, back, where, &canon2, &n2, d2, e) < 0)
		abort();
	if (n != n2 || memcmp(canon, canon2, n) != 0 || memcmp(d, d2, HASH_LEN) != 0)
		abort();
	cJSON_Delete(back);
	return 0;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct err e = ERR_INIT;
	const char *tmp = getenv("TMPDIR");

	struct spec sp = SPEC_INIT;

	spec = json_parse(luna_spec, sizeof luna_spec - 1, "spec", 1, &e);
	if (spec == NULL || spec_read(spec, &sp, &e) < 0)
		abort();
	spec_release(&sp);
	snprintf(path, sizeof path, "%.40s/fuzz-ledger-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		abort();
	/* Gone from the folder at once; read back through /proc. */
	unlink(path);
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err e = ERR_INIT;
	struct run r;
	struct buf out = BUF_INIT;
	cJSON *m = NULL;
	int rc;

	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	r.acc = freeze_acc_new(spec, &e);
	r.again = freeze_acc_new(spec, &e);
	if (r.acc == NULL || r.again == NULL)
		abort();
	rc = ledger_read(path, on_record, &r, &e);
	if (rc < 0 && e.msg[0] == '\0')
		abort();
	if (rc == 0) {
		/* The written bytes are canonical: read back, they write the same. */
		if (freeze_acc_write(r.acc, NULL, &out, &e) == 0) {
			struct buf again = BUF_INIT;
			m = json_parse(out.p, out.len, "manifest", 1, &e);
			if (m == NULL || canon_write(m, &again, &e) < 0 || again.len != out.len ||
			    memcmp(again.p, out.p, out.len) != 0)
				abort();
			buf_release(&again);
		} else if (e.msg[0] == '\0' || out.len != 0) {
			abort();
		}
	}

	/* The parallel reader, against the sequential one. */
	struct err pe = ERR_INIT;
	struct freeze_acc *par = freeze_acc_new(spec, &pe);
	struct ledger_par lp = { par_work, par_done, par_release, par_scratch_new, par_scratch_free,
		sizeof(struct pslot), NULL, 2, NULL };
	cJSON *pm = NULL;
	struct buf pout = BUF_INIT;
	int prc;

	if (par == NULL)
		abort();
	lp.ctx = par;
	prc = ledger_read_par(path, &lp, &pe);
	if ((prc < 0) != (rc < 0))
		abort();
	if (prc < 0 && strcmp(pe.msg, e.msg) != 0)
		abort();
	if (prc == 0) {
		int frc = freeze_acc_finish(par, NULL, &pm, &pe);
		if ((frc < 0) != (m == NULL))
			abort();
		if (frc < 0 && strcmp(pe.msg, e.msg) != 0)
			abort();
		if (frc == 0 && (canon_write(pm, &pout, &pe) < 0 || pout.len != out.len ||
		    memcmp(pout.p, out.p, out.len) != 0))
			abort();
	}
	cJSON_Delete(pm);
	buf_release(&pout);
	freeze_acc_free(par);

	cJSON_Delete(m);
	buf_release(&out);
	freeze_acc_free(r.acc);
	freeze_acc_free(r.again);
	return 0;
}
