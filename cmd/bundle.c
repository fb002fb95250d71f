/* bundle.c: `cohort bundle`: check a publication's evidence and write its
 * deterministic BagIt archive, or refuse with every finding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../bundle/annotate.h"
#include "../bundle/attest.h"
#include "../common/io.h"
#include "../json/json.h"
#include "../bundle/bundle.h"
#include "../sign/minisign.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] =
"usage: cohort bundle --spec BUNDLE_SPEC [-o ARCHIVE] [--check] [--gzip | --zstd]\n"
"                     [--rules FILE] [--format json|table|github|sarif|gitlab]\n"
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

/* What --sign writes beside the archive, ARCHIVE.minisig (and with
 * --attest ARCHIVE.intoto.jsonl), is none of the inputs named here. */
static int
beside_check(const struct opt_cmd *c, const char *archive, int attest,
             const char *const *in, size_t n)
{
	static const char *const ext[] = { ".minisig", ".intoto.jsonl" };
	struct buf p = BUF_INIT;
	int rc = 0;

	for (int i = 0; rc == 0 && i < 1 + attest; i++) {
		buf_reset(&p);
		if (buf_adds(&p, archive) < 0 || buf_adds(&p, ext[i]) < 0) {
			opt_say(c->name, "out of memory");
			rc = EXIT_ERROR;
		} else {
			rc = opt_output(c, p.p, in, n);
		}
	}
	buf_release(&p);
	return rc;
}

enum { F_JSON, F_TABLE, F_GITHUB, F_SARIF, F_GITLAB };

/* The report in the CI form asked for, to standard output. */
static int
emit_ci(const cJSON *doc, int fmt, const char *spec, struct err *e)
{
	char *prefix = strdup(spec), *slash;
	struct buf b = BUF_INIT;
	cJSON *x = NULL;
	int rc;

	if (prefix == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	slash = strrchr(prefix, '/');
	if (slash != NULL)
		*slash = '\0';
	else
		prefix[0] = '\0';
	if (fmt == F_GITHUB) {
		rc = annotate_github(doc, prefix, &b) < 0 ? err_set(e, ERR_NOMEM, "out of memory") :
		    io_write_all(NULL, b.p ? b.p : "", b.len, e);
	} else {
		x = fmt == F_SARIF ? annotate_sarif(doc, prefix, COHORT_VERSION) : annotate_gitlab(doc, prefix);
		rc = x == NULL ? err_set(e, ERR_NOMEM, "out of memory") : json_emit(x, NULL, e);
	}
	cJSON_Delete(x);
	buf_release(&b);
	free(prefix);
	return rc;
}

/* The report: in fmt to standard output; with --check -o FILE the JSON
 * goes to FILE as well and a table, unless another form was asked for,
 * to standard error, so one run gives the log both. */
static int
emit_report(const cJSON *doc, int fmt, const char *report, const char *spec, struct err *e)
{
	struct buf b = BUF_INIT;
	int rc = 0;

	if (report != NULL && strcmp(report, "-") != 0) {
		if (json_emit(doc, report, e) < 0)
			return -1;
		if (fmt == F_JSON || fmt == F_TABLE) {
			rc = bundle_table(doc, &b, e);
			if (rc == 0)
				fputs(b.p ? b.p : "", stderr);
			buf_release(&b);
			return rc;
		}
	}
	if (fmt == F_JSON || fmt == F_TABLE)
		return opt_emit(doc, fmt == F_TABLE, bundle_table, NULL, e);
	return emit_ci(doc, fmt, spec, e);
}

/* What the gate does now, on one line of the terminal rewritten. */
static void
progress(void *ctx, const char *stage)
{
	(void)ctx;
	fprintf(stderr, "\rcohort bundle: %.200s\033[K", stage);
}

static void
note(void *ctx, const char *msg)
{
	struct buf b = BUF_INIT;

	(void)ctx;
	if (isatty(STDERR_FILENO)) /* off the progress line */
		fputs("\r\033[K", stderr);
	buf_adds(&b, "note: ");
	buf_adds(&b, msg);
	opt_say("bundle", b.p != NULL ? b.p : msg);
	buf_release(&b);
}

int
cmd_bundle(int argc, char **argv)
{
	struct bundle_opts o = { .compress = BAG_PLAIN, .note = note, .tool_version = COHORT_VERSION,
		.tool_commit = cohort_commit };
	const char *format = NULL, *key = NULL, *pwfile = NULL;
	struct ms_sec sk;
	struct buf pw = BUF_INIT;
	int gzip = 0, zstd = 0, attest = 0;
	const struct opt table[] = {
		{ .name = "spec", .arg = "BUNDLE_SPEC", .value = &o.spec, .required = 1,
		    .help = "the bundle spec (cohort.bundle-spec/1)" },
		{ .name = "output", .letter = 'o', .out = 1, .arg = "ARCHIVE", .value = &o.out,
		    .help = "the archive, or with --check the JSON report" },
		{ .name = "check", .flag = &o.check, .excludes = "gzip zstd",
		    .help = "run every check and write no archive (for CI)" },
		{ .name = "gzip", .flag = &gzip, .excludes = "zstd",
		    .help = "compress the archive with gzip" },
		{ .name = "zstd", .flag = &zstd, .help = "compress the archive with zstd" },
		{ .name = "rules", .arg = "FILE", .value = &o.rules,
		    .help = "more credential rules (gitleaks' format)" },
		{ .name = "format", .arg = "FORMAT", .value = &format,
		    .help = "json (default), table; CI: github, sarif, gitlab" },
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
	int nops, rc, fmt = F_JSON;
	static const char *const formats[] = { "json", "table", "github", "sarif", "gitlab" };

	if ((rc = opt_parse(&c, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	for (fmt = 0; format != NULL && fmt < 5 && strcmp(format, formats[fmt]) != 0; fmt++)
		;
	if (fmt == 5)
		return opt_usage_error(&c, "--format: expected json, table, github, sarif or gitlab, "
		                       "got '%s'", format);
	if (format == NULL)
		fmt = F_JSON;
	o.compress = gzip ? BAG_GZIP : zstd ? BAG_ZSTD : BAG_PLAIN;
	if (!o.check && (o.out == NULL || strcmp(o.out, "-") == 0) && isatty(STDOUT_FILENO))
		return opt_usage_error(&c,
		    "the archive would go to a terminal: give -o ARCHIVE or --check");
	if ((pwfile != NULL || attest) && key == NULL)
		return opt_usage_error(&c, "%s belongs to --sign", attest ? "--attest" : "--password-file");
	if (key != NULL && (o.out == NULL || strcmp(o.out, "-") == 0))
		return opt_usage_error(&c, "--sign needs -o ARCHIVE, to sign beside it");
	if (key != NULL && (rc = beside_check(&c, o.out, attest,
	    (const char *const[]){ o.spec, o.rules, key, pwfile }, 4)) != 0)
		return rc;
	memset(&sk, 0, sizeof sk);
	if (key != NULL && (cmd_password(pwfile, &pw, &e) < 0 || ms_sec_read(key, pw.p, &sk, &e) < 0)) {
		ms_wipe(pw.p, pw.len);
		buf_release(&pw);
		return cmd_fail("bundle", &e);
	}
	ms_wipe(pw.p, pw.len);
	buf_release(&pw);

	o.jobs = cmd_jobs();
	if (isatty(STDERR_FILENO))
		o.progress = progress;
	rc = bundle_run(&o, &doc, id, &e);
	if (o.progress)
		fputs("\r\033[K", stderr);
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
	} else if (emit_report(doc, fmt, o.check ? o.out : NULL, o.spec, &e) < 0) {
		rc = cmd_fail("bundle", &e);
	}
	if (rc == 1)
		fprintf(stderr, "cohort bundle: refused: %d finding%s\n",
		    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "findings")),
		    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "findings")) == 1 ? "" : "s");
	cJSON_Delete(doc);
	return rc;
}
