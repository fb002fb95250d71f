/* fingerprint.c: `cohort fingerprint`: the registered features of every
 * family and replication in the freezes, with their bootstrap errors,
 * intervals and covariance. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/io.h"
#include "../fingerprint/fp.h"
#include "../fingerprint/fppart.h"
#include "../json/json.h"
#include "../paired/collect.h"
#include "../protocol/prereg.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] =
    "usage: cohort fingerprint --prereg P [--store DIR] [--replicates N] [--seed S]\n"
    "                          [--split NAME] [--shard I/N] [--format json|table]\n"
    "                          [-o FILE]\n"
    "                          FREEZE...\n";

static int
whole(const char *s, long long lo, long long hi, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	return s[0] != '\0' && *end == '\0' && errno == 0 && *out >= lo && *out <= hi ? 0 : -1;
}

/* "store" beside a freeze, as verify finds it. */
static char *
store_beside(const char *path)
{
	char *t = strdup(strcmp(path, "-") == 0 ? "./-" : path), *s = NULL;

	if (t != NULL && (s = malloc(strlen(t) + 8)) != NULL)
		sprintf(s, "%s/store", dirname(t));
	free(t);
	return s;
}

static int
options(const struct opt_cmd *c, const char *reps, const char *seed, const char *split,
    struct fp_opts *o)
{
	long long x;

	if (split && (o->split = fp_split_of(split)) < -1)
		return opt_usage_error(c, "--split: expected explore, confirm, heldout or all, got "
		    "'%s'", split);
	if (reps && whole(reps, 0, 1000000, &x) < 0)
		return opt_usage_error(c, "--replicates: expected 0 to 1000000, got '%s'", reps);
	if (reps)
		o->replicates = (long)x;
	if (seed && whole(seed, 0, 9007199254740991LL, &x) < 0)
		return opt_usage_error(c, "--seed: expected a whole number from 0 to 2^53-1, got '%s'",
		    seed);
	if (seed) {
		o->have_seed = 1;
		o->seed = (uint64_t)x;
	}
	return 0;
}

/* What a freeze's reading gives beside its tree. */
struct got {
	struct paired_ids ids;
	char id[HASH_ID_LEN + 1];
};

/* Read every freeze (without its included decisions' tree) and find its
 * store. */
static int
inputs(char **ops, int nops, const char *store, int jobs, struct fp_input *in, cJSON **trees,
    char **beside, struct got *got, struct err *e)
{
	for (int i = 0; i < nops; i++) {
		if ((trees[i] = paired_freeze_read(ops[i], &got[i].ids, got[i].id, jobs, e)) == NULL)
			return -1;
		in[i].freeze = trees[i];
		in[i].ids = &got[i].ids;
		in[i].id = got[i].id;
		in[i].name = io_name(ops[i]);
		if (store == NULL && (beside[i] = store_beside(ops[i])) == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		in[i].store_dir = store ? store : beside[i];
	}
	return 0;
}

/* The whole document, or with shard set, shard's cohort.part/1. */
static int
document(const struct fp_input *in, size_t nin, const struct fp_opts *o,
    const struct part_shard *shard, cJSON **doc, struct err *e)
{
	struct fp_run *r;
	int rc;

	if (shard->n == 0)
		return fp_document(in, nin, o, doc, e);
	if (fp_run_new(in, nin, o, &r, e) < 0)
		return -1;
	rc = fp_part(r, shard, doc, e);
	fp_run_free(r);
	return rc;
}

int
cmd_fingerprint(int argc, char **argv)
{
	const char *prereg = NULL, *store = NULL, *reps = NULL, *seed = NULL, *format = NULL;
	const char *out = NULL, *shard = NULL, *split = NULL;
	const struct opt table[] = {
		{ .name = "prereg", .arg = "P", .value = &prereg, .required = 1,
		    .help = "the cohort.prereg/1 fixing the features and bootstrap" },
		{ .name = "store", .arg = "DIR", .value = &store,
		    .help = "the freezes' object store (default: store beside each)" },
		{ .name = "replicates", .arg = "N", .value = &reps,
		    .help = "bootstrap replicates (default: the prereg's)" },
		{ .name = "seed", .arg = "S", .value = &seed,
		    .help = "the bootstrap's seed (default: the prereg's)" },
		{ .name = "split", .arg = "NAME", .value = &split,
		    .help = "one split only: its positions and its openings' games" },
		{ .name = "shard", .arg = "I/N", .value = &shard, .excludes = "format",
		    .help = "shard I of N of the replicates, a part for cohort merge" },
		{ .name = "format", .arg = "json|table", .value = &format,
		    .help = "cohort.fingerprint/1 (default) or the features as a table" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &out,
		    .help = "write to FILE atomically, not standard output" },
		{ .name = NULL },
	};
	const struct opt_cmd c = { .name = "fingerprint", .usage = usage, .table = table,
		.operand = "FREEZE", .min = 1, .max = -1 };
	struct prereg pr = PREREG_INIT;
	struct part_shard sh = { 0, 0 };
	struct fp_opts o;
	struct err e = ERR_INIT;
	struct fp_input *in = NULL;
	cJSON **trees = NULL, *doc = NULL;
	char **ops, **beside = NULL;
	struct got *got = NULL;
	int nops, rc, tab;

	if ((rc = opt_parse(&c, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if ((tab = opt_format(&c, format)) < 0)
		return EXIT_ERROR;
	fp_opts_init(&o);
	if (options(&c, reps, seed, split, &o) != 0)
		return EXIT_ERROR;
	if (shard && part_shard_parse(shard, "--shard", &sh, &e) < 0)
		return opt_usage_error(&c, "%s", e.msg);
	o.jobs = cmd_jobs();
	o.pr = &pr;
	in = calloc((size_t)nops, sizeof *in);
	trees = calloc((size_t)nops, sizeof *trees);
	beside = calloc((size_t)nops, sizeof *beside);
	got = calloc((size_t)nops, sizeof *got);
	if (in == NULL || trees == NULL || beside == NULL || got == NULL)
		rc = err_set(&e, ERR_NOMEM, "out of memory");
	else
		rc = prereg_read(prereg, &pr, &e) < 0 ||
		    inputs(ops, nops, store, o.jobs, in, trees, beside, got, &e) < 0 ||
		    document(in, (size_t)nops, &o, &sh, &doc, &e) < 0 ||
		    opt_emit(doc, tab, fp_table, out, &e) < 0;
	for (int i = 0; trees && beside && got && i < nops; i++) {
		cJSON_Delete(trees[i]);
		free(beside[i]);
		paired_ids_release(&got[i].ids);
	}
	free(got);
	free(in);
	free(trees);
	free(beside);
	cJSON_Delete(doc);
	prereg_release(&pr);
	return rc ? cmd_fail("fingerprint", &e) : EXIT_HOLDS;
}
