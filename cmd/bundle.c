/* bundle.c: `cohort bundle`: check a publication's evidence and write its
 * deterministic BagIt archive, or refuse with every finding. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../bundle/attest.h"
#include "../bundle/bundle.h"
#include "../sign/minisign.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] =
"usage: cohort bundle --spec BUNDLE_SPEC [-o ARCHIVE] [--check] [--gzip | --zstd]\n"
"                     [--rules FILE] [--format json|table]\n"
"                     [--sign KEY [--password-file FILE] [--attest]]\n";

/* The archive's signature beside it, ARCHIVE.minisig, its trusted comment
 * naming the identity, so the signature is as deterministic as the
 * archive; with doc (--attest) also its in-toto statement in a DSSE
 * envelope, ARCHIVE.intoto.jsonl.  The key was opened before the archive
 * was written; a signature that cannot be written takes the archive with
 * it. */
static int
sign_archive(const struct ms_sec *sk, const char *archive, const char *id, const cJSON *doc,
             struct err *e)
{
	struct buf sig = BUF_INIT, tc = BUF_INIT;
	const char *base = strrchr(archive, '/');
	int rc = -1;

	if (buf_printf(&sig, "%s.minisig", archive) < 0 ||
	    buf_printf(&tc, "cohort bundle %s\tfile:%s", id, base ? base + 1 : archive) < 0)
		err_set(e, ERR_NOMEM, "out of memory");
	else if (ms_sign(sk, archive, sig.p, tc.p, e) == 0)
		rc = 0;
	if (rc == 0 && doc != NULL) {
		buf_reset(&sig);
		if (buf_printf(&sig, "%s.intoto.jsonl", archive) < 0)
			rc = err_set(e, ERR_NOMEM, "out of memory");
		else
			rc = attest_write(archive, doc, id, sk, sig.p, e);
		if (rc < 0) {
			buf_cut(&sig, strlen(archive));
			buf_adds(&sig, ".minisig");
			remove(sig.p);
		}
	}
	if (rc < 0)
		remove(archive);
	buf_release(&sig);
	buf_release(&tc);
	return rc;
}

int
cmd_bundle(int argc, char **argv)
{
	struct bundle_opts o = { NULL, NULL, 0, BAG_PLAIN, NULL, COHORT_VERSION, COHORT_COMMIT };
	const char *format = NULL, *key = NULL, *pwfile = NULL;
	struct ms_sec sk;
	struct buf pw = BUF_INIT;
	int gzip = 0, zstd = 0, attest = 0;
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
		{ .name = "sign", .arg = "KEY", .value = &key, .excludes = "check",
		    .help = "sign the archive with a minisign key: ARCHIVE.minisig" },
		{ .name = "attest", .flag = &attest,
		    .help = "with --sign: an in-toto statement, ARCHIVE.intoto.jsonl" },
		{ .name = "password-file", .arg = "FILE", .value = &pwfile,
		    .help = "with --sign: the key's password, FILE's first line" },
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
	if ((pwfile != NULL || attest) && key == NULL)
		return opt_usage_error(&c, "%s belongs to --sign", attest ? "--attest" : "--password-file");
	if (key != NULL && (o.out == NULL || strcmp(o.out, "-") == 0))
		return opt_usage_error(&c, "--sign needs -o ARCHIVE, to sign beside it");
	memset(&sk, 0, sizeof sk);
	if (key != NULL && (cmd_password(pwfile, &pw, &e) < 0 || ms_sec_read(key, pw.p, &sk, &e) < 0)) {
		ms_wipe(pw.p, pw.len);
		buf_release(&pw);
		return cmd_fail("bundle", &e);
	}
	ms_wipe(pw.p, pw.len);
	buf_release(&pw);

	rc = bundle_run(&o, &doc, id, &e);
	if (rc == 0 && key != NULL && sign_archive(&sk, o.out, id, attest ? doc : NULL, &e) < 0)
		rc = -1;
	ms_wipe(&sk, sizeof sk);
	if (rc < 0) {
		cJSON_Delete(doc);
		return cmd_fail("bundle", &e);
	}
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
