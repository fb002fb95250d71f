/* paired.c: `cohort paired`: the paired endpoints of a freeze's decisions. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/io.h"
#include "../json/json.h"
#include "../paired/collect.h"
#include "../paired/paired.h"
#include "../protocol/prereg.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] =
    "usage: cohort paired [--prereg P] [--store DIR] [--replicates N] [--seed S]\n"
    "                     [--level P] [--blunder-cp N] [--format json|table]\n"
    "                     [-o FILE] FREEZE\n";

/* A whole number within [lo, hi] from text. */
static int
whole(const char *s, long long lo, long long hi, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	return s[0] != '\0' && *end == '\0' && errno == 0 && *out >= lo && *out <= hi ? 0 : -1;
}

static int
options(const struct opt_cmd *c, const char *const v[4], struct paired_opts *o, struct err *e)
{
	long long x;
	char *end;

	if (v[0] && whole(v[0], 0, 1000000, &x) < 0)
		return opt_usage_error(c, "--replicates: expected 0 to 1000000, got '%s'", v[0]);
	if (v[0])
		o->replicates = (long)x;
	if (v[1] && whole(v[1], 0, 9007199254740991LL, &x) < 0)
		return opt_usage_error(c, "--seed: expected a whole number from 0 to 2^53-1, got '%s'",
		    v[1]);
	if (v[1])
		o->seed = (uint64_t)x;
	if (v[2] && (o->level = strtod(v[2], &end), *end != '\0' || !(o->level >= 0.001 &&
	    o->level <= 0.999999)))
		return opt_usage_error(c, "--level: expected a level from 0.001 to 0.999999, got '%s'",
		    v[2]);
	if (v[3] && whole(v[3], 1, 100000, &x) < 0)
		return opt_usage_error(c, "--blunder-cp: expected 1 to 100000 centipawns, got '%s'",
		    v[3]);
	if (v[3])
		o->blunder_cp = (double)x;
	(void)e;
	return 0;
}

/* "store" beside the freeze, as verify finds it. */
static char *
store_beside(const char *path)
{
	char *t = strdup(strcmp(path, "-") == 0 ? "./-" : path), *s = NULL;

	if (t != NULL && (s = malloc(strlen(t) + 8)) != NULL)
		sprintf(s, "%s/store", dirname(t));
	free(t);
	return s;
}

int
cmd_paired(int argc, char **argv)
{
	const char *v[4] = { NULL }, *format = NULL, *out = NULL, *store = NULL, *prereg = NULL;
	const struct opt table[] = {
		{ .name = "prereg", .arg = "P", .value = &prereg,
		    .help = "the cohort.prereg/1 it follows: its bootstrap and blunder_cp" },
		{ .name = "store", .arg = "DIR", .value = &store,
		    .help = "the freeze's object store (default: store beside it)" },
		{ .name = "replicates", .arg = "N", .value = &v[0],
		    .help = "bootstrap replicates (default: the prereg's, else 2000)" },
		{ .name = "seed", .arg = "S", .value = &v[1],
		    .help = "the bootstrap's seed (default: the prereg's, else 1)" },
		{ .name = "level", .arg = "P", .value = &v[2],
		    .help = "interval level (default 0.95)" },
		{ .name = "blunder-cp", .arg = "N", .value = &v[3],
		    .help = "a regret of N cp is a blunder (default: the prereg's, else 300)" },
		{ .name = "format", .arg = "json|table", .value = &format,
		    .help = "cohort.paired/1 (default) or the k curve as a table" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &out,
		    .help = "write to FILE atomically, not standard output" },
		{ .name = NULL },
	};
	const struct opt_cmd c = { .name = "paired", .usage = usage, .table = table,
		.operand = "FREEZE", .min = 1, .max = 1 };
	struct paired_opts o;
	struct prereg pr = PREREG_INIT;
	struct err e = ERR_INIT;
	cJSON *freeze = NULL, *doc = NULL;
	struct paired_ids ids = PAIRED_IDS_INIT;
	char **ops, *beside = NULL, fid[HASH_ID_LEN + 1];
	int nops, rc, tab;

	if ((rc = opt_parse(&c, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if ((tab = opt_format(&c, format)) < 0)
		return EXIT_ERROR;
	paired_opts_init(&o);
	if (prereg != NULL && prereg_read(prereg, &pr, &e) < 0)
		return cmd_fail("paired", &e);
	if (prereg != NULL) {
		/* the registered settings, unless an option overrides one */
		o.pr = &pr;
		o.replicates = pr.replicates;
		o.seed = pr.seed;
		o.blunder_cp = pr.blunder_cp;
	}
	if (options(&c, v, &o, &e) != 0) {
		prereg_release(&pr);
		return EXIT_ERROR;
	}
	o.name = io_name(ops[0]);
	o.store_dir = store ? store : (beside = store_beside(ops[0]));
	o.jobs = cmd_jobs();
	o.ids = &ids;
	o.input_id = fid;
	rc = (freeze = paired_freeze_read(ops[0], &ids, fid, o.jobs, &e)) == NULL ||
	    paired_document(freeze, &o, &doc, &e) < 0 || opt_emit(doc, tab, paired_table, out, &e) < 0;
	paired_ids_release(&ids);
	free(beside);
	cJSON_Delete(doc);
	cJSON_Delete(freeze);
	prereg_release(&pr);
	return rc ? cmd_fail("paired", &e) : EXIT_HOLDS;
}
