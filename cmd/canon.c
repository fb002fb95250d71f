/* canon.c: `cohort canon`: print a JSON document's canonical bytes or its
 * identity. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../common/io.h"
#include "../json/json.h"
#include "cmd.h"

static const char usage[] =
"usage: cohort canon [--id] [-o FILE] [FILE]\n";

int
cmd_canon(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "id", no_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct err e = ERR_INIT;
	struct buf b = BUF_INIT;
	const char *out = NULL, *in = "-";
	int id = 0, c, rc = EXIT_HOLDS;
	cJSON *doc;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "io:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (id++)
				return cmd_usage_error("canon", usage, "--id given twice");
			break;
		case 'o':
			if (out)
				return cmd_usage_error("canon", usage, "-o given twice");
			out = optarg;
			break;
		case 'h':
			return cmd_help(usage);
		default:
			return cmd_usage_error("canon", usage, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind > 1)
		return cmd_usage_error("canon", usage, "at most one FILE");
	if (argc - optind == 1)
		in = argv[optind];
	doc = json_parse_file(in, &e);
	if (doc == NULL)
		return cmd_fail("canon", &e);
	if (canon_write(doc, &b, &e) < 0) {
		rc = cmd_fail("canon", &e);
	} else if (id) {
		uint8_t d[HASH_LEN];
		char s[HASH_ID_LEN + 2];
		hash_bytes(b.p ? b.p : "", b.len, d);
		hash_id_format(d, s);
		strcat(s, "\n");
		if (io_write_all(out, s, strlen(s), &e) < 0)
			rc = cmd_fail("canon", &e);
	} else if (io_write_all(out, b.p ? b.p : "", b.len, &e) < 0) {
		rc = cmd_fail("canon", &e);
	}
	cJSON_Delete(doc);
	buf_release(&b);
	return rc;
}
