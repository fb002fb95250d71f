/* sign.c: `cohort sign`: a minisign signature of a file, or a new key pair. */
#include <string.h>

#include "../common/io.h"
#include "../sign/minisign.h"
#include "cmd.h"
#include "opt.h"

static const char usage[] =
"usage: cohort sign -s KEY [--password-file FILE] [-t COMMENT] [-x SIG] FILE\n"
"       cohort sign --generate -p PUB -s KEY [--password-file FILE]\n";

int
cmd_password(const char *path, struct buf *pw, struct err *e)
{
	char *nl;

	if (path == NULL)
		return 0;
	if (io_read_all(path, pw, 4096, e) < 0)
		return -1;
	/* the first line, as minisign reads a password from a pipe */
	if ((nl = memchr(pw->p != NULL ? pw->p : "", '\n', pw->len)) != NULL)
		buf_cut(pw, (size_t)(nl - pw->p));
	if (pw->len > 0 && pw->p[pw->len - 1] == '\r')
		buf_cut(pw, pw->len - 1);
	if (pw->len == 0 || memchr(pw->p, '\0', pw->len) != NULL)
		return err_set(e, ERR_INPUT, "%s: expected the password on its first line", path);
	return 0;
}

static int
sign_file(const char *key, const char *password, const char *trusted, const char *sig,
          const char *file, struct err *e)
{
	struct ms_sec sk;
	int rc;

	rc = ms_sec_read(key, password, &sk, e);
	if (rc == 0)
		rc = ms_sign(&sk, file, sig, trusted, e);
	ms_wipe(&sk, sizeof sk);
	return rc;
}

int
cmd_sign(int argc, char **argv)
{
	const char *key = NULL, *pub = NULL, *pwfile = NULL, *trusted = NULL, *sig = NULL;
	int generate = 0;
	/* clang-format off */
	const struct opt opts[] = {
		{ .name = "secret-key", .letter = 's', .arg = "KEY", .value = &key, .required = 1,
		    .help = "the minisign secret key (with --generate: written 0600)" },
		{ .name = "password-file", .arg = "FILE", .value = &pwfile,
		    .help = "the key's password: FILE's first line" },
		{ .name = "trusted-comment", .letter = 't', .arg = "COMMENT", .value = &trusted,
		    .excludes = "generate", .help = "the signed comment (default: time and file name)" },
		{ .name = "signature", .letter = 'x', .out = 1, .arg = "SIG", .value = &sig,
		    .excludes = "generate", .help = "write the signature to SIG (default: FILE.minisig)" },
		{ .name = "generate", .flag = &generate,
		    .help = "write a new key pair to PUB and KEY, never over a file" },
		{ .name = "public-key", .letter = 'p', .out = 1, .arg = "PUB", .value = &pub,
		    .help = "with --generate: the public key to write" },
		{ .name = NULL },
	};
	/* clang-format on */
	const struct opt_cmd c = { .name = "sign", .usage = usage, .table = opts,
		.operand = "FILE", .min = 0, .max = 1 };
	struct buf pw = BUF_INIT, path = BUF_INIT;
	struct err e = ERR_INIT;
	char **ops;
	int nops, rc;

	if ((rc = opt_parse(&c, argc, argv, &ops, &nops)) != OPT_OK)
		return rc == OPT_HELP ? EXIT_HOLDS : EXIT_ERROR;
	if (generate && (pub == NULL || nops != 0))
		return opt_usage_error(&c, pub == NULL ? "--generate needs -p PUB" :
		                       "--generate takes no FILE");
	if (!generate && (pub != NULL || nops != 1))
		return opt_usage_error(&c, pub != NULL ? "-p belongs to --generate" : "expected one FILE");
	/* FILE.minisig, when no -x names the signature, is no input either */
	if (!generate && sig == NULL) {
		if (buf_printf(&path, "%s.minisig", ops[0]) < 0) {
			err_set(&e, ERR_NOMEM, "out of memory");
			return cmd_fail("sign", &e);
		}
		sig = path.p;
		if ((rc = opt_output(&c, sig, (const char *const[]){ key, pwfile, ops[0] }, 3)) != 0) {
			buf_release(&path);
			return rc;
		}
	}
	rc = cmd_password(pwfile, &pw, &e);
	if (rc == 0 && generate)
		rc = ms_generate(pub, key, pw.p, &e);
	else if (rc == 0)
		rc = sign_file(key, pw.p, trusted, sig, ops[0], &e);
	ms_wipe(pw.p, pw.len);
	buf_release(&pw);
	buf_release(&path);
	return rc < 0 ? cmd_fail("sign", &e) : EXIT_HOLDS;
}
