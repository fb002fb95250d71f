/* freeze.c: `cohort freeze`: game ledgers and a cohort spec in, a
 * cohort.freeze/1 manifest out, records into the object store. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../common/io.h"
#include "../freeze/freeze.h"
#include "../json/json.h"
#include "cmd.h"

static const char usage[] =
"usage: cohort freeze --spec SPEC [--store DIR] [--repo DIR] [--format json|table] [-o FILE] LEDGER...\n";

static void
progress(void *ctx, uint64_t n)
{
	(void)ctx;
	fprintf(stderr, "\rcohort freeze: %llu records", (unsigned long long)n);
}

int
cmd_freeze(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "spec", required_argument, NULL, 's' },
		{ "store", required_argument, NULL, 'S' },
		{ "repo", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct freeze_opts fo = { 0 };
	struct err e = ERR_INIT;
	const char *spec_path = NULL, *out = NULL, *format = NULL;
	struct buf table = BUF_INIT, manifest = BUF_INIT;
	struct outfile of = OUTFILE_INIT;
	cJSON *spec, *doc = NULL;
	int c, rc;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		const char **slot = NULL;
		switch (c) {
		case 's': slot = &spec_path; break;
		case 'S': slot = &fo.store_dir; break;
		case 'r': slot = &fo.repo_dir; break;
		case 'f': slot = &format; break;
		case 'o': slot = &out; break;
		case 'h': return cmd_help(usage);
		default:
			return cmd_usage_error("freeze", usage, "unknown or incomplete option '%s'",
			    argv[optind - 1]);
		}
		if (*slot != NULL)
			return cmd_usage_error("freeze", usage, "%s given twice", argv[optind - 1]);
		*slot = optarg;
	}
	if (spec_path == NULL)
		return cmd_usage_error("freeze", usage, "--spec is required");
	if (format && strcmp(format, "json") != 0 && strcmp(format, "table") != 0)
		return cmd_usage_error("freeze", usage, "--format: expected json or table");
	if (optind == argc)
		return cmd_usage_error("freeze", usage, "no LEDGER given");
	fo.ledgers = (const char **)argv + optind;
	fo.nledgers = (size_t)(argc - optind);
	fo.jobs = cmd_jobs();
	if (isatty(STDERR_FILENO))
		fo.progress = progress;
	spec = json_parse_file(spec_path, &e);
	if (spec == NULL)
		return cmd_fail("freeze", &e);
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
	}
	rc = freeze_build(&fo, &manifest, &e);
	if (fo.progress)
		fputs("\r\033[K", stderr);
	if (rc == 0 && fo.out != NULL)
		rc = outfile_commit(&of, &e);
	if (rc == 0 && format && strcmp(format, "table") == 0) {
		if ((doc = json_parse(manifest.p, manifest.len, "manifest", 1, &e)) == NULL ||
		    freeze_table(doc, &table) < 0 || io_write_all(NULL, table.p, table.len, &e) < 0)
			rc = -1;
	} else if (rc == 0 && fo.out == NULL) {
		rc = io_write_all(NULL, manifest.p, manifest.len, &e);
	}
	rc = rc < 0 ? cmd_fail("freeze", &e) : EXIT_HOLDS;
done:
	outfile_abort(&of);
	buf_release(&table);
	buf_release(&manifest);
	cJSON_Delete(doc);
	cJSON_Delete(spec);
	return rc;
}
