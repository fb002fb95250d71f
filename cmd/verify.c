/* verify.c: `cohort verify`: every hash and every derivation re-checked. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../common/io.h"
#include "../json/json.h"
#include "../review/review.h"
#include "cmd.h"

static const char usage[] =
"usage: cohort verify [--store DIR] [--format json|table] [-o FILE] FILE...\n";

int
cmd_verify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "store", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct review_opts vo = { 0 };
	struct err e = ERR_INIT;
	struct buf b = BUF_INIT;
	const char *out = NULL, *format = NULL;
	cJSON *report = NULL;
	int c, rc;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		const char **slot = NULL;
		switch (c) {
		case 's': slot = &vo.store_dir; break;
		case 'f': slot = &format; break;
		case 'o': slot = &out; break;
		case 'h': return cmd_help(usage);
		default:
			return cmd_usage_error("verify", usage, "unknown or incomplete option '%s'",
			    argv[optind - 1]);
		}
		if (*slot != NULL)
			return cmd_usage_error("verify", usage, "%s given twice", argv[optind - 1]);
		*slot = optarg;
	}
	if (format && strcmp(format, "json") != 0 && strcmp(format, "table") != 0)
		return cmd_usage_error("verify", usage, "--format: expected json or table");
	if (optind == argc)
		return cmd_usage_error("verify", usage, "no FILE given");
	vo.files = (const char **)argv + optind;
	vo.nfiles = (size_t)(argc - optind);
	vo.jobs = cmd_jobs();
	rc = review_files(&vo, &report, &e);
	if (rc < 0)
		return cmd_fail("verify", &e);
	if (format && strcmp(format, "table") == 0) {
		review_table(report, &b);
		if (io_write_all(out, b.p, b.len, &e) < 0)
			rc = -1;
	} else if (json_emit(report, out, &e) < 0) {
		rc = -1;
	}
	buf_release(&b);
	cJSON_Delete(report);
	return rc < 0 ? cmd_fail("verify", &e) : rc;
}
