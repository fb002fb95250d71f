/* distance.c: `cohort distance`: the distances between fingerprints. */
#include <stdlib.h>

#include "../fingerprint/fp.h"
#include "../fingerprint/fppart.h"
#include "../json/json.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] =
    "usage: cohort distance [--shard I/N] [--format json|table] [-o FILE]\n"
    "                       FINGERPRINT...\n";

/* The whole document, or with shard set, shard's cohort.part/1. */
static int
document(const cJSON *const *docs, size_t n, const struct fp_dist_opts *o,
    const struct part_shard *shard, cJSON **doc, struct err *e)
{
	if (shard->n == 0)
		return fp_distance(docs, n, o, doc, e);
	return fp_distance_part(docs, n, o, shard, doc, e);
}

/* The last input's identity, left to finish beside the work until the
 * document needs it. */
struct pending {
	struct json_ident *t;
	char *id;
};

static int
pending_end(void *arg, struct err *e)
{
	struct pending *p = arg;
	int rc = json_ident_end(p->t, p->id, e);

	p->t = NULL;
	return rc;
}

int
cmd_distance(int argc, char **argv)
{
	const char *format = NULL, *out = NULL, *shard = NULL;
	const struct opt table[] = {
		{ .name = "shard", .arg = "I/N", .value = &shard, .excludes = "format",
		    .help = "shard I of N of the pairs, a part for cohort merge" },
		{ .name = "format", .arg = "json|table", .value = &format,
		    .help = "cohort.distance/1 (default) or the d2 matrix as a table" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &out,
		    .help = "write to FILE atomically, not standard output" },
		{ .name = NULL },
	};
	const struct opt_cmd c = { .name = "distance", .usage = usage, .table = table,
		.operand = "FINGERPRINT", .min = 1, .max = -1 };
	struct fp_dist_opts o = { .jobs = cmd_jobs() };
	struct fp_rows *rows, *flat;
	struct part_shard sh = { 0, 0 };
	struct pending pd = { NULL, NULL };
	struct err e = ERR_INIT;
	cJSON **docs, *doc = NULL;
	char **ops;
	int nops, rc, tab, i;

	if ((rc = opt_parse(&c, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if ((tab = opt_format(&c, format)) < 0)
		return EXIT_ERROR;
	if (shard && part_shard_parse(shard, "--shard", &sh, &e) < 0)
		return opt_usage_error(&c, "%s", e.msg);
	docs = calloc((size_t)nops, sizeof *docs);
	o.ids = calloc((size_t)nops, sizeof *o.ids);
	rows = fp_rows_new();
	if (docs == NULL || o.ids == NULL || rows == NULL) {
		free(docs);
		free(o.ids);
		fp_rows_free(rows);
		err_set(&e, ERR_NOMEM, "out of memory");
		return cmd_fail("distance", &e);
	}
	/* each input's identity beside its parse and the next one's (one
	 * thread: after it), the last one's beside the distances; the replicate
	 * rows held flat but in a shard, whose part carries the inputs whole */
	flat = sh.n == 0 ? rows : NULL;
	o.rows = flat;
	for (i = 0; i < nops; i++) {
		struct json_ident *t = NULL;
		docs[i] = fp_read_file(ops[i], flat, o.jobs != 1, &t, &e);
		if (docs[i] == NULL || pending_end(&pd, &e) < 0) {
			json_ident_end(t, NULL, NULL);
			break;
		}
		pd = (struct pending){ t, o.ids[i] };
	}
	o.ids_wait = pending_end;
	o.ids_arg = &pd;
	rc = i < nops || (sh.n != 0 && pending_end(&pd, &e) < 0) ||
	    document((const cJSON *const *)docs, (size_t)nops, &o, &sh, &doc, &e) < 0 ||
	    opt_emit(doc, tab, fp_distance_table, out, &e) < 0;
	json_ident_end(pd.t, NULL, NULL);
	for (i = 0; i < nops; i++)
		cJSON_Delete(docs[i]);
	free(docs);
	free(o.ids);
	fp_rows_free(rows);
	cJSON_Delete(doc);
	return rc ? cmd_fail("distance", &e) : EXIT_HOLDS;
}
