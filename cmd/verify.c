/* verify.c: `cohort verify`: every hash and every derivation re-checked. */
#include <stdio.h>
#include <string.h>

#include "../common/cleanup.h"
#include "../json/json.h"
#include "../bundle/attest.h"
#include "../review/review.h"
#include "../sign/minisign.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] =
"usage: cohort verify [--store DIR] [--format json|table] [-o FILE] FILE...\n"
"       cohort verify --pubkey PUB [-x SIG] [--attestation ENV] FILE\n";

/* FILE against its minisign signature: one line on stdout when it holds. */
static int
verify_signature(const char *pubkey, const char *sig, const char *env, const char *file)
{
	size_t nsubjects = 0;
	struct ms_pub pk;
	struct buf path = BUF_INIT;
	struct err e = ERR_INIT;
	char trusted[MS_TRUSTED_MAX], id[2 * MS_ID_LEN + 1];
	int rc = 0;

	if (sig == NULL && buf_printf(&path, "%s.minisig", file) < 0)
		rc = err_set(&e, ERR_NOMEM, "out of memory");
	if (rc == 0 && ms_pub_read(pubkey, &pk, &e) == 0 &&
	    ms_verify(&pk, file, sig != NULL ? sig : path.p, trusted, sizeof trusted, &e) == 0) {
		ms_id_format(pk.id, id);
		printf("%s: signature by key %s holds; trusted comment: %s\n", file, id, trusted);
		if (env != NULL && attest_verify(file, env, &pk, &nsubjects, &e) < 0)
			rc = -1;
		else if (env != NULL)
			printf("%s: attestation %s by key %s holds: %zu subjects, each the archive's\n",
			       file, env, id, nsubjects);
	} else {
		rc = -1;
	}
	buf_release(&path);
	return rc < 0 ? cmd_fail("verify", &e) : EXIT_HOLDS;
}

static int
table(const cJSON *report, struct buf *b, struct err *e)
{
	return review_table(report, b) < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
}

int
cmd_verify(int argc, char **argv)
{
	struct review_opts vo = { 0 };
	const char *out = NULL, *format = NULL, *pubkey = NULL, *sig = NULL, *env = NULL;
	const struct opt opts[] = {
		{ .name = "store", .arg = "DIR", .value = &vo.store_dir,
		    .help = "the freezes' object store (default: store beside each)" },
		{ .name = "format", .arg = "json|table", .value = &format,
		    .help = "the cohort.verify/1 report (default) or one line a check" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "FILE", .value = &out,
		    .help = "write the report to FILE atomically" },
		{ .name = "pubkey", .arg = "PUB", .value = &pubkey, .excludes = "store format output",
		    .help = "check FILE's minisign signature with the public key PUB" },
		{ .name = "signature", .letter = 'x', .arg = "SIG", .value = &sig,
		    .help = "with --pubkey: the signature (default: FILE.minisig)" },
		{ .name = "attestation", .arg = "ENV", .value = &env,
		    .help = "with --pubkey: also FILE's in-toto statement (DSSE) ENV" },
		{ .name = NULL },
	};
	const struct opt_cmd c = { .name = "verify", .usage = usage, .table = opts,
		.operand = "FILE", .min = 1, .max = -1 };
	struct err e = ERR_INIT;
	cJSON *report = NULL;
	char **ops;
	int nops, rc, tab, nstdin = 0;

	if ((rc = opt_parse(&c, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if (pubkey != NULL || sig != NULL || env != NULL) {
		if (pubkey == NULL || nops != 1)
			return opt_usage_error(&c, pubkey == NULL ? "-x and --attestation belong to --pubkey" :
			                       "--pubkey checks one FILE");
		return verify_signature(pubkey, sig, env, ops[0]);
	}
	if ((tab = opt_format(&c, format)) < 0)
		return EXIT_ERROR;
	for (int i = 0; i < nops; i++)
		nstdin += strcmp(ops[i], "-") == 0;
	if (nstdin > 1)
		return opt_usage_error(&c, "only one input can be standard input");
	vo.files = (const char **)ops;
	vo.nfiles = (size_t)nops;
	vo.jobs = cmd_jobs();
	/* an archive is extracted into a temporary folder: removed on SIGINT,
	 * SIGTERM and SIGHUP too */
	if (cleanup_start(&e) < 0)
		return cmd_fail("verify", &e);
	if ((rc = review_files(&vo, &report, &e)) >= 0 && opt_emit(report, tab, table, out, &e) < 0)
		rc = -1;
	cJSON_Delete(report);
	return rc < 0 ? cmd_fail("verify", &e) : rc;
}
