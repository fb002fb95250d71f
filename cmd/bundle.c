/* bundle.c: `cohort bundle`: check a publication's evidence and write its
 * deterministic BagIt archive, or refuse with every finding. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../bundle/bundle.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] =
"usage: cohort bundle --spec BUNDLE_SPEC [-o ARCHIVE] [--check] [--gzip | --zstd]\n"
"                     [--rules FILE] [--format json|table]\n";

int
cmd_bundle(int argc, char **argv)
{
	struct bundle_opts o = { NULL, NULL, 0, BAG_PLAIN, NULL };
	const char *format = NULL;
	int gzip = 0, zstd = 0;
	const struct opt table[] = {
		{ .name = "spec", .arg = "BUNDLE_SPEC", .value = &o.spec, .required = 1,
		    .help = "the bundle spec (cohort.bundle-spec/1)" },
		{ .name = "output", .letter = 'o', .arg = "ARCHIVE", .value = &o.out,
		    .help = "write the archive to ARCHIVE and print its identity" },
		{ .name = "check", .flag = &o.check, .excludes = "output gzip zstd",
		    .help = "run every check and write no archive (for CI)" },
		{ .name = "gzip", .flag = &gzip, .excludes = "zstd",
		    .help = "compress the archive with gzip" },
		{ .name = "zstd", .flag = &zstd, .help = "compress the archive with zstd" },
		{ .name = "rules", .arg = "FILE", .value = &o.rules,
		    .help = "more credential rules (gitleaks' format)" },
		{ .name = "format", .arg = "json|table", .value = &format,
		    .help = "JSON (default) or a table of the findings (or items)" },
		{ .name = NULL },
	};
	const struct opt_cmd c = { .name = "bundle", .usage = usage, .table = table };
	struct err e = ERR_INIT;
	char id[HASH_ID_LEN + 2];
	cJSON *doc = NULL;
	char **ops;
	int nops, rc, tab;

	if ((rc = opt_parse(&c, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if ((tab = opt_format(&c, format)) < 0)
		return EXIT_ERROR;
	o.compress = gzip ? BAG_GZIP : zstd ? BAG_ZSTD : BAG_PLAIN;
	if (!o.check && (o.out == NULL || strcmp(o.out, "-") == 0) && isatty(STDOUT_FILENO))
		return opt_usage_error(&c,
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
	} else if (opt_emit(doc, tab, bundle_table, NULL, &e) < 0) {
		rc = cmd_fail("bundle", &e);
	}
	if (rc == 1)
		fprintf(stderr, "cohort bundle: refused: %d finding%s\n",
		    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "findings")),
		    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "findings")) == 1 ? "" : "s");
	cJSON_Delete(doc);
	return rc;
}
