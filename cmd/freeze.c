/* freeze.c: `cohort freeze`: game ledgers and a cohort spec in, a
 * cohort.freeze/1 manifest out, records into the object store. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../common/io.h"
#include "../freeze/freeze.h"
#include "../json/json.h"
#include "../protocol/prereg.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] =
"usage: cohort freeze --spec SPEC [--store DIR] [--repo DIR] [--candidates MANIFEST]\n"
"           [--decisions LOG]... [--prereg PREREG] [--openings SUITE]\n"
"           [--format json|table] [-o FILE] [LEDGER...]\n";

static void
progress(void *ctx, uint64_t n)
{
	(void)ctx;
	fprintf(stderr, "\rcohort freeze: %llu records", (unsigned long long)n);
}

/* Each deviation from the prereg, on stderr, counted. */
static void
deviation(void *ctx, const char *setting, const char *registered, const char *used)
{
	(*(long *)ctx)++;
	fprintf(stderr, "cohort freeze: deviation: %s: registered %s, used %s\n", setting, registered,
	    used);
}

/* Each broken pair, on stderr, counted. */
static void
pair_broken(void *ctx, const char *game_id, const char *pair, const char *why)
{
	(*(long *)ctx)++;
	fprintf(stderr, "cohort freeze: broken pair: game %s (pair %s): %s\n", game_id, pair, why);
}

int
cmd_freeze(int argc, char **argv)
{
	struct freeze_opts fo = { 0 };
	const char *spec_path = NULL, *out = NULL, *format = NULL, *prereg_path = NULL;
	struct opt_list decisions = { 0 };
	const struct opt table[] = {
		{ .name = "spec", .arg = "SPEC", .value = &spec_path, .required = 1,
		    .help = "the cohort spec (cohort.spec/1)" },
		{ .name = "store", .arg = "DIR", .value = &fo.store_dir,
		    .help = "store every record in the object store DIR" },
		{ .name = "repo", .arg = "DIR", .value = &fo.repo_dir,
		    .help = "record the harness repository's commit and dirty state" },
		{ .name = "candidates", .arg = "MANIFEST", .value = &fo.candidates,
		    .help = "the candidate manifest the decisions were made on" },
		{ .name = "decisions", .arg = "LOG", .list = &decisions,
		    .help = "a decision log (JSON Lines or SQLite), once per log" },
		{ .name = "prereg", .arg = "PREREG", .value = &prereg_path,
		    .help = "the preregistration it follows (cohort.prereg/1)" },
		{ .name = "openings", .arg = "SUITE", .value = &fo.openings,
		    .help = "the opening suite the spec names (cohort.openings/1)" },
		{ .name = "format", .arg = "json|table", .value = &format,
		    .help = "the manifest (default), or tables of its blocks" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &out,
		    .help = "write the manifest to FILE atomically" },
		{ .name = NULL },
	};
	const struct opt_cmd c = { .name = "freeze", .usage = usage, .table = table,
		.operand = "LEDGER", .min = 0, .max = -1 };
	struct err e = ERR_INIT;
	struct prereg pr = PREREG_INIT;
	long ndev = 0, nbroken = 0;
	struct buf tab = BUF_INIT, manifest = BUF_INIT;
	struct outfile of = OUTFILE_INIT;
	cJSON *spec, *doc = NULL;
	char **ops;
	int nops, rc, as_table;

	if ((rc = opt_parse(&c, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if ((as_table = opt_format(&c, format)) < 0)
		return EXIT_ERROR;
	fo.ledgers = (const char **)ops;
	fo.nledgers = (size_t)nops;
	fo.decisions = decisions.v;
	fo.ndecisions = decisions.n;
	fo.jobs = cmd_jobs();
	fo.pair_broken = pair_broken;
	fo.pair_ctx = &nbroken;
	if (decisions.n > 0 && fo.candidates == NULL)
		return opt_usage_error(&c, "--decisions needs --candidates");
	if (nops == 0 && fo.candidates == NULL)
		return opt_usage_error(&c, "expected at least one LEDGER");
	if (isatty(STDERR_FILENO))
		fo.progress = progress;
	if (prereg_path != NULL && prereg_read(prereg_path, &pr, &e) < 0)
		return cmd_fail("freeze", &e);
	if (prereg_path != NULL) {
		fo.prereg = &pr;
		fo.deviation = deviation;
		fo.deviation_ctx = &ndev;
	}
	spec = json_parse_file(spec_path, &e);
	if (spec == NULL) {
		prereg_release(&pr);
		return cmd_fail("freeze", &e);
	}
	fo.spec = spec;
	fo.spec_name = spec_path;
	/* An output file is opened first: the manifest goes out to it while
	 * the store is committed, and into place once both are done. */
	if (out != NULL && strcmp(out, "-") != 0) {
		if (outfile_open(&of, out, &e) < 0) {
			rc = cmd_fail("freeze", &e);
			goto done;
		}
		fo.out = &of;
		fo.out_only = !as_table; /* the table reads the manifest's bytes */
	}
	rc = freeze_build(&fo, &manifest, &e);
	if (fo.progress)
		fputs("\r\033[K", stderr);
	if (rc == 0 && fo.out != NULL)
		rc = outfile_commit(&of, &e);
	if (rc == 0 && as_table) {
		if ((doc = json_parse(manifest.p, manifest.len, "manifest", 1, &e)) == NULL ||
		    freeze_table(doc, &tab) < 0 || io_write_all(NULL, tab.p, tab.len, &e) < 0)
			rc = -1;
	} else if (rc == 0 && fo.out == NULL) {
		rc = io_write_all(NULL, manifest.p, manifest.len, &e);
	}
	rc = rc < 0 ? cmd_fail("freeze", &e) : ndev > 0 || nbroken > 0 ? EXIT_FINDINGS : EXIT_HOLDS;
done:
	prereg_release(&pr);
	outfile_abort(&of);
	buf_release(&tab);
	buf_release(&manifest);
	cJSON_Delete(doc);
	cJSON_Delete(spec);
	return rc;
}
