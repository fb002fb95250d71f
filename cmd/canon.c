/* canon.c: `cohort canon`: print a JSON document's canonical bytes or its
 * identity. */
#include <string.h>

#include "../common/io.h"
#include "../json/json.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] =
"usage: cohort canon [--id] [-o FILE] [FILE]\n";

int
cmd_canon(int argc, char **argv)
{
	const char *out = NULL;
	int id = 0;
	const struct opt table[] = {
		{ .name = "id", .flag = &id,
		    .help = "print the identity (sha256: and the hex digest) instead" },
		{ .name = "output", .letter = 'o', .arg = "FILE", .value = &out,
		    .help = "write to FILE atomically, not standard output" },
		{ .name = NULL },
	};
	const struct opt_cmd c = { .name = "canon", .usage = usage, .table = table,
		.operand = "FILE", .min = 0, .max = 1 };
	struct err e = ERR_INIT;
	struct buf b = BUF_INIT;
	char **ops, s[HASH_ID_LEN + 2];
	int nops, rc;
	cJSON *doc;

	if ((rc = opt_parse(&c, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if ((rc = opt_output(&c, out, (const char *const *)ops, (size_t)nops)) != 0)
		return rc;
	if ((doc = json_parse_file(nops ? ops[0] : "-", &e)) == NULL)
		return cmd_fail("canon", &e);
	rc = canon_write(doc, &b, &e);
	if (rc == 0 && id) {
		uint8_t d[HASH_LEN];
		hash_bytes(b.p ? b.p : "", b.len, d);
		hash_id_format(d, s);
		strcat(s, "\n");
		rc = io_write_all(out, s, strlen(s), &e);
	} else if (rc == 0) {
		rc = io_write_all(out, b.p ? b.p : "", b.len, &e);
	}
	cJSON_Delete(doc);
	buf_release(&b);
	return rc < 0 ? cmd_fail("canon", &e) : EXIT_HOLDS;
}
