/* bundle.c: `cohort bundle`: check a publication's evidence and write its
 * deterministic BagIt archive, or refuse with every finding. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../bundle/bundle.h"
#include "../common/io.h"
#include "../json/json.h"
#include "cmd.h"

static const char usage[] =
"usage: cohort bundle --spec BUNDLE_SPEC [-o ARCHIVE] [--check] [--gzip | --zstd]\n"
"                     [--rules FILE] [--format json|table]\n";

int
cmd_bundle(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "spec", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "check", no_argument, NULL, 'c' },
		{ "gzip", no_argument, NULL, 'g' },
		{ "zstd", no_argument, NULL, 'z' },
		{ "format", required_argument, NULL, 'f' },
		{ "rules", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bundle_opts o = { NULL, NULL, 0, BAG_PLAIN, NULL };
	struct err e = ERR_INIT;
	const char *format = NULL;
	char id[HASH_ID_LEN + 2];
	cJSON *doc = NULL;
	int c, rc, ncomp = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+s:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (o.spec)
				return cmd_usage_error("bundle", usage, "--spec given twice");
			o.spec = optarg;
			break;
		case 'o':
			if (o.out)
				return cmd_usage_error("bundle", usage, "-o given twice");
			o.out = optarg;
			break;
		case 'c':
			if (o.check++)
				return cmd_usage_error("bundle", usage, "--check given twice");
			break;
		case 'g':
		case 'z':
			if (ncomp++)
				return cmd_usage_error("bundle", usage, "give at most one of --gzip and --zstd");
			o.compress = c == 'g' ? BAG_GZIP : BAG_ZSTD;
			break;
		case 'f':
			if (format)
				return cmd_usage_error("bundle", usage, "--format given twice");
			format = optarg;
			break;
		case 'r':
			if (o.rules)
				return cmd_usage_error("bundle", usage, "--rules given twice");
			o.rules = optarg;
			break;
		case 'h':
			return cmd_help(usage);
		default:
			return cmd_usage_error("bundle", usage, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind > 0)
		return cmd_usage_error("bundle", usage, "unexpected argument '%s'", argv[optind]);
	if (o.spec == NULL)
		return cmd_usage_error("bundle", usage, "--spec is required");
	if (format && strcmp(format, "json") != 0 && strcmp(format, "table") != 0)
		return cmd_usage_error("bundle", usage, "--format: expected json or table");
	if (o.check && (o.out || ncomp))
		return cmd_usage_error("bundle", usage, "--check writes no archive: drop -o, --gzip, --zstd");
	if (!o.check && (o.out == NULL || strcmp(o.out, "-") == 0) && isatty(STDOUT_FILENO))
		return cmd_usage_error("bundle", usage,
		    "the archive would go to a terminal: give -o ARCHIVE or --check");

	rc = bundle_run(&o, &doc, id, &e);
	if (rc < 0)
		return cmd_fail("bundle", &e);
	if (rc == 0 && !o.check) {
		/* the archive went to -o; its identity is the data on stdout */
		if (o.out && strcmp(o.out, "-") != 0) {
			strcat(id, "\n");
			fputs(id, stdout);
		} else {
			fprintf(stderr, "cohort bundle: %s\n", id);
		}
	} else if (format && strcmp(format, "table") == 0) {
		struct buf b = BUF_INIT;
		if (bundle_table(doc, &b, &e) < 0 || io_write_all(NULL, b.p, b.len, &e) < 0)
			rc = cmd_fail("bundle", &e);
		buf_release(&b);
	} else if (json_emit(doc, NULL, &e) < 0) {
		rc = cmd_fail("bundle", &e);
	}
	if (rc == 1)
		fprintf(stderr, "cohort bundle: refused: %d finding%s\n",
		    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "findings")),
		    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "findings")) == 1 ? "" : "s");
	cJSON_Delete(doc);
	return rc;
}
