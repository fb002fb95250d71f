/* secret.c: the credential scan.  One pass over the bytes: runs of token
 * characters are cut out and only the few that can matter are looked at
 * (long ones, names followed by an assignment, "Bearer"/"Basic",
 * "-----BEGIN" and "://"), so ordinary text goes by at memory speed. */
#define _GNU_SOURCE /* memmem */
#include "secret.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* One scan: the bytes, the callback, the position of the current line. */
struct scan {
	const char *p, *end;
	const char *ls; /* start of the current line */
	long line;
	secret_cb cb;
	void *ctx;
	long hits;
	int stop;
	const char *last; /* the last value reported (not reported twice) */
};

static const char ACT_KEY[] =
    "revoke this key with its issuer, remove it from the file (read it from the environment "
    "at run time) and bundle again";
static const char ACT_PRIVATE[] =
    "remove the private key from the evidence, replace the key pair, and bundle again";
static const char ACT_AUTH[] =
    "remove the authorization header value (or replace it with a placeholder), revoke the "
    "credential, and bundle again";
static const char ACT_URL[] =
    "remove the password from the URL (use a credential helper or the environment), change "
    "it, and bundle again";
static const char ACT_ASSIGN[] =
    "replace the value with a placeholder; if it is a real credential, revoke or change it; "
    "then bundle again";

/* Token characters: letters, digits and _ - + / . ~ */
static unsigned char
istok(unsigned char c)
{
	static const unsigned char t[256] = {
		['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,
		['7'] = 1, ['8'] = 1, ['9'] = 1,
		['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1,
		['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
		['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1,
		['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
		['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1,
		['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1,
		['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1,
		['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
		['_'] = 1, ['-'] = 1, ['+'] = 1, ['/'] = 1, ['.'] = 1, ['~'] = 1,
	};
	return t[c];
}

static int
isalnum_c(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int
ishex_c(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Values, names and headers are looked for at most this far along a line,
 * so a long line (a JSON Lines record) costs no more than a short one. */
#define SCAN_REACH 4096

static const char *
line_end(const struct scan *s, const char *q)
{
	size_t n = (size_t)(s->end - q);
	const char *nl;

	if (n > SCAN_REACH)
		n = SCAN_REACH;
	nl = memchr(q, '\n', n);
	return nl ? nl : q + n;
}

static void
report(struct scan *s, const char *v, size_t n, long line, const char *rule, const char *action,
    const char *shown)
{
	struct secret_hit h;
	const char *ls, *le;
	size_t keep;

	if (s->stop || v == s->last)
		return;
	/* the line that holds the value may carry an allowlist pragma */
	for (ls = v; ls > s->p && ls[-1] != '\n' && v - ls < SCAN_REACH; ls--)
		;
	le = line_end(s, v);
	if (memmem(ls, (size_t)(le - ls), "pragma: allowlist secret", 24) != NULL)
		return;
	s->last = v;
	h.line = line;
	h.rule = rule;
	h.action = action;
	if (shown != NULL) {
		snprintf(h.masked, sizeof h.masked, "%s", shown);
	} else {
		keep = n >= 16 ? 4 : n >= 8 ? 2 : 0;
		/* never cut a UTF-8 sequence */
		while (keep > 0 && ((unsigned char)v[keep] & 0xC0) == 0x80)
			keep--;
		snprintf(h.masked, sizeof h.masked, "%.*s\xe2\x80\xa6 (%zu chars)", (int)keep, v, n);
	}
	s->hits++;
	if (s->cb && s->cb(s->ctx, &h) != 0)
		s->stop = 1;
}

/* Bits per character of the string's own character distribution. */
static double
entropy(const char *v, size_t n)
{
	unsigned counts[256] = { 0 };
	double h = 0;

	for (size_t i = 0; i < n; i++)
		counts[(unsigned char)v[i]]++;
	for (int c = 0; c < 256; c++) {
		if (counts[c]) {
			double p = (double)counts[c] / (double)n;
			h -= p * log2(p);
		}
	}
	return h;
}

/* How many of lower case, upper case, digits appear. */
static int
classes(const char *v, size_t n)
{
	int lo = 0, up = 0, di = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];
		lo |= c >= 'a' && c <= 'z';
		up |= c >= 'A' && c <= 'Z';
		di |= c >= '0' && c <= '9';
	}
	return lo + up + di;
}

static int
all_of(const char *v, size_t n, int (*pred)(unsigned char))
{
	for (size_t i = 0; i < n; i++)
		if (!pred((unsigned char)v[i]))
			return 0;
	return 1;
}

static int
isdigit_c(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int
isupdig_c(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z');
}

static int
istokenish(unsigned char c)
{
	return isalnum_c(c) || c == '_' || c == '-';
}

static int
isb64_c(unsigned char c)
{
	return isalnum_c(c) || c == '+' || c == '/' || c == '=' || c == '_' || c == '-';
}

static int
isident_c(unsigned char c)
{
	return isalnum_c(c) || c == '_';
}

static int
starts(const char *v, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && memcmp(v, prefix, k) == 0;
}

/* 8-4-4-4-12 hex digits. */
static int
is_uuid(const char *v, size_t n)
{
	if (n != 36)
		return 0;
	for (size_t i = 0; i < n; i++) {
		int dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? v[i] != '-' : !ishex_c((unsigned char)v[i]))
			return 0;
	}
	return 1;
}

/* "sha256:<hex>", "md5:<hex>", ... or "sha256-<base64>" (SRI): a content
 * identity, not a secret. */
static int
is_digest(const char *v, size_t n)
{
	static const char *algs[] = { "sha256", "sha512", "sha384", "sha224", "sha1", "md5",
		"blake2b", "blake3", "git" };
	for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++) {
		size_t k = strlen(algs[i]);
		if (n > k + 16 && strncmp(v, algs[i], k) == 0 && (v[k] == ':' || v[k] == '-'))
			return 1;
	}
	return 0;
}

/* Base64 that decodes to printable text (public data, not a key); also
 * reports whether a ':' is in it (user:password). */
static int
b64_text(const char *v, size_t n, int *colon)
{
	static const char al[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned acc = 0;
	int bits = 0;
	size_t printable = 0, total = 0;

	*colon = 0;
	while (n > 0 && v[n - 1] == '=')
		n--;
	for (size_t i = 0; i < n; i++) {
		const char *q = memchr(al, v[i], 64);
		if (q == NULL || v[i] == '\0')
			return 0;
		acc = acc << 6 | (unsigned)(q - al);
		bits += 6;
		if (bits >= 8) {
			unsigned char c = (unsigned char)(acc >> (bits - 8));
			bits -= 8;
			total++;
			if ((c >= 32 && c < 127) || c == '\n' || c == '\t' || c == '\r')
				printable++;
			if (c == ':')
				*colon = 1;
		}
	}
	return total > 0 && printable == total;
}

/* Provider-prefixed keys and tokens: the rule a token matches, or NULL. */
static const char *
prefixed_rule(const char *t, size_t n)
{
	static const struct {
		const char *prefix;
		size_t min_rest;
		const char *rule;
	} rules[] = {
		{ "sk-ant-", 20, "anthropic-api-key" },
		{ "sk-proj-", 20, "openai-api-key" },
		{ "sk-svcacct-", 20, "openai-api-key" },
		{ "sk-admin-", 20, "openai-api-key" },
		{ "sk-", 20, "openai-api-key" },
		{ "hf_", 30, "huggingface-token" },
		{ "ghp_", 30, "github-token" },
		{ "gho_", 30, "github-token" },
		{ "ghu_", 30, "github-token" },
		{ "ghs_", 30, "github-token" },
		{ "ghr_", 30, "github-token" },
		{ "github_pat_", 22, "github-token" },
		{ "glpat-", 20, "gitlab-token" },
		{ "xoxb-", 20, "slack-token" },
		{ "xoxp-", 20, "slack-token" },
		{ "xoxa-", 20, "slack-token" },
		{ "xoxr-", 20, "slack-token" },
		{ "sk_live_", 20, "stripe-key" },
		{ "rk_live_", 20, "stripe-key" },
	};
	static const char *aws[] = { "AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA",
		"AIPA", "ABIA", "ACCA" };

	if (n < 20 || (t[0] != 's' && t[0] != 'A' && t[0] != 'h' && t[0] != 'g' && t[0] != 'x' &&
	                  t[0] != 'r'))
		return NULL;
	if (n == 39 && starts(t, n, "AIza") && all_of(t + 4, 35, istokenish))
		return "google-api-key";
	if (n == 20 && all_of(t, n, isupdig_c)) {
		for (size_t i = 0; i < sizeof aws / sizeof aws[0]; i++)
			if (memcmp(t, aws[i], 4) == 0)
				return "aws-access-key-id";
	}
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
		size_t k = strlen(rules[i].prefix);
		if (!starts(t, n, rules[i].prefix))
			continue;
		if (n - k < rules[i].min_rest || !all_of(t + k, n - k, istokenish) ||
		    classes(t + k, n - k) < 2)
			return NULL;
		return rules[i].rule;
	}
	return NULL;
}

static void
check_prefixed(struct scan *s, const char *t, size_t n)
{
	const char *rule = prefixed_rule(t, n);

	if (rule)
		report(s, t, n, s->line, rule, ACT_KEY, NULL);
}

/* A quick look for the first two letters of pass, pwd, secret, token, key,
 * auth and credential: most names have none and need no closer look. */
static int
maybe_secret_name(const char *t, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++) {
		unsigned char a = (unsigned char)t[i] | 0x20, b = (unsigned char)t[i + 1] | 0x20;
		switch (a) {
		case 'p':
			if (b == 'a' || b == 'w')
				return 1;
			break;
		case 's':
		case 'k':
			if (b == 'e')
				return 1;
			break;
		case 't':
			if (b == 'o')
				return 1;
			break;
		case 'a':
			if (b == 'u')
				return 1;
			break;
		case 'c':
			if (b == 'r')
				return 1;
			break;
		}
	}
	return 0;
}

/* Which kind of name is this: 2 a password, 1 another secret, 0 neither,
 * -1 an identifier, digest, count or other name whose value is never a
 * secret. */
static int
secret_name(const char *t, size_t n)
{
	char lc[128];
	size_t i;
	static const char *ends_not[] = { "_id", "-id", ".id", "id", "_ids", "_hash", "_digest",
		"_sha256", "_sha", "_count", "_total", "_len", "_length", "_type", "_kind", "_name",
		"_path", "_file", "_url", "_policy", "_limit", "_size", "_format", "_required" };

	int kind = 0;

	if (n < 3 || n >= sizeof lc)
		return 0;
	for (i = 0; i < n; i++)
		lc[i] = (char)(t[i] >= 'A' && t[i] <= 'Z' ? t[i] + 32 : t[i]);
	lc[n] = '\0';
	/* most names are none of these: decide that first, in one pass */
	for (i = 0; i < n && kind != 2; i++) {
		const char *q = lc + i;
		switch (*q) {
		case 'p':
			if (strncmp(q, "pass", 4) == 0 || strncmp(q, "pwd", 3) == 0)
				kind = 2;
			break;
		case 's':
			kind |= strncmp(q, "secret", 6) == 0;
			break;
		case 't':
			kind |= strncmp(q, "token", 5) == 0;
			break;
		case 'k':
			kind |= strncmp(q, "key", 3) == 0;
			break;
		case 'a':
			kind |= strncmp(q, "auth", 4) == 0;
			break;
		case 'c':
			kind |= strncmp(q, "credential", 10) == 0;
			break;
		}
	}
	if (kind == 0)
		return 0;
	for (i = 0; i < sizeof ends_not / sizeof ends_not[0]; i++) {
		size_t k = strlen(ends_not[i]);
		if (n > k && strcmp(lc + n - k, ends_not[i]) == 0 &&
		    (k > 2 || !isalnum_c((unsigned char)lc[n - k - 1]) || lc[n - 3] == '_'))
			return -1;
	}
	if (strstr(lc, "tokens") || strstr(lc, "tokenizer") || strstr(lc, "keyword"))
		return -1;
	if (kind == 2) {
		if (strstr(lc, "password") || strstr(lc, "passwd") || strcmp(lc, "pwd") == 0 ||
		    strstr(lc, "_pwd") || strcmp(lc, "pass") == 0 ||
		    (n > 5 && strcmp(lc + n - 5, "_pass") == 0))
			return 2;
		kind = 0; /* "passage", "bypass": fall through to the other names */
		if (!(strstr(lc, "secret") || strstr(lc, "token") || strstr(lc, "key") ||
		        strstr(lc, "auth") || strstr(lc, "credential")))
			return 0;
	}
	if (strstr(lc, "secret") || strstr(lc, "token") || strstr(lc, "api_key") ||
	    strstr(lc, "apikey") || strstr(lc, "api-key") || strstr(lc, "access_key") ||
	    strstr(lc, "accesskey") || strstr(lc, "private_key") || strstr(lc, "privatekey") ||
	    strstr(lc, "credential") || strstr(lc, "auth") || strcmp(lc, "key") == 0 ||
	    (n > 4 && (strcmp(lc + n - 4, "_key") == 0 || strcmp(lc + n - 4, "-key") == 0 ||
	                  strcmp(lc + n - 4, ".key") == 0)))
		return 1;
	return 0;
}

static int
placeholder(const char *v, size_t n)
{
	static const char *words[] = { "true", "false", "null", "none", "nil", "yes", "no",
		"required", "optional", "changeme", "redacted", "example", "placeholder", "xxxxxxxx",
		"secret", "password", "your-key", "undefined" };
	char c = v[0];

	if (c == '$' || c == '<' || c == '{' || c == '%' || c == '*' || c == '[' || c == '(' ||
	    c == '&' || c == '@')
		return 1;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i]) == n && strncasecmp(v, words[i], n) == 0)
			return 1;
	/* one repeated character: "xxxxxxxx", "********" */
	for (size_t i = 1; i < n; i++)
		if (v[i] != c)
			return 0;
	return 1;
}

/* Judge a value assigned to a name of the given kind (2 password, 1 secret,
 * 0 plain name at the start of a NAME=value line). */
static void
judge_value(struct scan *s, const char *v, size_t n, long line, int kind)
{
	int colon;
	const char *rule = n >= 20 ? prefixed_rule(v, n) : NULL;

	if (rule) {
		report(s, v, n, line, rule, ACT_KEY, NULL);
		return;
	}
	if (n == 0 || placeholder(v, n) || all_of(v, n, isdigit_c) || is_uuid(v, n) ||
	    is_digest(v, n))
		return;
	if (kind == 2) {
		if (n >= 6 && (classes(v, n) >= 2 || !all_of(v, n, isalnum_c) || n >= 16))
			report(s, v, n, line, "password-assignment", ACT_ASSIGN, NULL);
		return;
	}
	if (kind == 1) {
		if (n >= 8 && classes(v, n) >= 2 && entropy(v, n) >= 3.0 &&
		    !(n > 20 && b64_text(v, n, &colon) && !colon && memchr(v, ' ', n) == NULL &&
		        entropy(v, n) < 4.0))
			report(s, v, n, line, "secret-assignment", ACT_ASSIGN, NULL);
		return;
	}
	/* a bare NAME=value line: only a long, random-looking value */
	if (n >= 32 && n <= 256 && all_of(v, n, isb64_c) && classes(v, n) == 3 &&
	    entropy(v, n) >= 4.2 &&
	    !all_of(v, n, ishex_c) && !b64_text(v, n, &colon))
		report(s, v, n, line, "high-entropy-assignment", ACT_ASSIGN, NULL);
}

/* The value after an assignment operator at q (on the same line): quoted
 * up to its quote, else up to white space or , ; } ] #.  A YAML tag such as
 * "!!binary" is skipped. */
static const char *
value_at(const char *q, const char *le, size_t *n)
{
	const char *v;

	while (q < le && (*q == ' ' || *q == '\t'))
		q++;
	if (q + 1 < le && q[0] == '!' && q[1] == '!') {
		while (q < le && *q != ' ' && *q != '\t')
			q++;
		while (q < le && (*q == ' ' || *q == '\t'))
			q++;
	}
	if (q < le && (*q == '"' || *q == '\'' || *q == '`')) {
		char quote = *q++;
		v = q;
		while (q < le && *q != quote)
			q++;
		*n = (size_t)(q - v);
		return v;
	}
	v = q;
	while (q < le && *q != ' ' && *q != '\t' && *q != '\r' && *q != ',' && *q != ';' &&
	    *q != '}' && *q != ']' && *q != '#')
		q++;
	*n = (size_t)(q - v);
	return v;
}

static size_t
indent_of(const char *ls, const char *le)
{
	const char *q = ls;
	while (q < le && (*q == ' ' || *q == '\t'))
		q++;
	return (size_t)(q - ls);
}

/* A secret name with nothing after its operator: the value is on the more
 * indented lines that follow (INI continuation lines, a YAML block). */
static void
continuation(struct scan *s, const char *le, int kind)
{
	size_t base = indent_of(s->ls, le);
	const char *ls = le + 1;
	long line = s->line;

	for (int k = 0; k < 8 && ls < s->end; k++) {
		const char *e = line_end(s, ls), *q, *v;
		size_t ind = indent_of(ls, e), n;

		line++;
		if (ind == (size_t)(e - ls) || (e > ls && e[-1] == '\r' && ind + 1 == (size_t)(e - ls))) {
			ls = e + 1; /* blank line */
			continue;
		}
		if (ind <= base)
			return;
		q = ls + ind;
		if (*q != '#' && *q != ';') {
			const char *colon = q;
			while (colon < e && *colon != ':' && *colon != '=' && *colon != ' ')
				colon++;
			if (colon < e && (*colon == ':' || *colon == '=') && colon + 1 < e &&
			    colon[1] == ' ')
				v = value_at(colon + 1, e, &n);
			else
				v = value_at(q, e, &n);
			judge_value(s, v, n, line, kind);
		}
		ls = e + 1;
	}
}

/* The token t..t+n is followed by an assignment operator: check the name. */
static void
check_assignment(struct scan *s, const char *t, size_t n, const char *op)
{
	const char *le, *v, *q;
	size_t vn;
	int kind = maybe_secret_name(t, n) ? secret_name(t, n) : 0;

	if (kind < 0)
		return;
	if (kind == 0) {
		/* NAME=value alone on its line (dotenv, shell) */
		q = s->ls;
		while (q < t && (*q == ' ' || *q == '\t'))
			q++;
		if (starts(q, (size_t)(t - q), "export "))
			q += 7;
		if (q != t || *op != '=' || !all_of(t, n, isident_c))
			return;
	}
	le = line_end(s, op);
	q = op + 1;
	if (*op == ':' && q < le && *q == '=')
		q++; /* := */
	if (*op == '=' && q < le && *q == '>')
		q++; /* => */
	v = value_at(q, le, &vn);
	while (vn > 0 && (v[vn - 1] == '\r'))
		vn--;
	if (vn == 0) {
		if (kind && (size_t)(le - v) <= 1)
			continuation(s, le, kind);
		return;
	}
	if (kind == 0) {
		/* nothing but white space may follow the value */
		for (q = v + vn; q < le; q++)
			if (*q != ' ' && *q != '\t' && *q != '\r' && *q != '"' && *q != '\'')
				return;
	}
	judge_value(s, v, vn, s->line, kind);
}

/* "-----BEGIN ... PRIVATE KEY-----" */
static void
check_begin(struct scan *s, const char *t)
{
	const char *le = line_end(s, t);
	const char *pk = memmem(t, (size_t)(le - t), "PRIVATE KEY", 11);
	char shown[64];
	const char *a = t + 11;

	if (pk == NULL || pk < a)
		return;
	snprintf(shown, sizeof shown, "%.*s block", (int)(pk + 11 - a < 40 ? pk + 11 - a : 40), a);
	report(s, t, (size_t)(le - t), s->line, "private-key", ACT_PRIVATE, shown);
}

/* "Bearer <token>" and "Basic <base64 of user:password>" */
static void
check_auth(struct scan *s, const char *t, size_t n)
{
	const char *q = t + n, *le = line_end(s, t), *v;
	size_t vn;
	int colon;

	if (q >= le || *q != ' ')
		return;
	while (q < le && *q == ' ')
		q++;
	v = q;
	while (q < le && (istok((unsigned char)*q) || *q == '='))
		q++;
	vn = (size_t)(q - v);
	if (n == 6) {
		if (vn >= 16 && classes(v, vn) >= 2 && entropy(v, vn) >= 3.0 && !is_digest(v, vn))
			report(s, v, vn, s->line, "bearer-token", ACT_AUTH, NULL);
	} else if (vn >= 8 && b64_text(v, vn, &colon) && colon) {
		report(s, v, vn, s->line, "basic-auth", ACT_AUTH, NULL);
	}
}

/* scheme://user:password@host */
static void
check_url(struct scan *s, const char *c)
{
	const char *q = c + 3, *le = line_end(s, c), *colon = NULL, *v;
	size_t vn;

	for (; q < le; q++) {
		unsigned char ch = (unsigned char)*q;
		if (ch == '@')
			break;
		if (ch == '/' || ch == '?' || ch == '#' || ch <= ' ' || ch == '"' || ch == '\'' ||
		    ch == '<' || ch == '>' || ch == '`')
			return;
		if (ch == ':' && colon == NULL)
			colon = q;
	}
	if (q >= le || colon == NULL)
		return;
	v = colon + 1;
	vn = (size_t)(q - v);
	if (vn == 0 || placeholder(v, vn))
		return;
	report(s, v, vn, s->line, "url-password", ACT_URL, NULL);
}

static void
check_token(struct scan *s, const char *t, size_t n)
{
	const char *q = t + n;

	/* trailing dots belong to the sentence, not the token */
	while (n > 0 && t[n - 1] == '.')
		n--;
	if (n >= 20)
		check_prefixed(s, t, n);
	else if ((n == 6 && (memcmp(t, "Bearer", 6) == 0 || memcmp(t, "bearer", 6) == 0)) ||
	    (n == 5 && (memcmp(t, "Basic", 5) == 0 || memcmp(t, "basic", 5) == 0)))
		check_auth(s, t, n);
	if (n >= 10 && t[0] == '-' && memcmp(t, "-----BEGIN", 10) == 0)
		check_begin(s, t);
	/* name = value, name: value, "name": value */
	if (q < s->end && (*q == '"' || *q == '\''))
		q++;
	for (int k = 0; k < 4 && q < s->end && (*q == ' ' || *q == '\t'); k++)
		q++;
	if (q < s->end && (*q == '=' || *q == ':')) {
		if (*q == ':' && q + 2 < s->end && q[1] == '/' && q[2] == '/')
			return;
		if (*q == '=' && q + 1 < s->end && q[1] == '=')
			return;
		check_assignment(s, t, n, q);
	}
}

/* Byte classes of the main loop: 1 token character, 2 newline, 3 colon,
 * 0 anything else. */
static const unsigned char CLS[256] = {
	['\n'] = 2, [':'] = 3,
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
	['8'] = 1, ['9'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1,
	['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1,
	['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
	['Y'] = 1, ['Z'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1,
	['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1,
	['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
	['y'] = 1, ['z'] = 1,
	['_'] = 1, ['-'] = 1, ['+'] = 1, ['/'] = 1, ['.'] = 1, ['~'] = 1,
};

long
secret_scan(const char *p, size_t n, secret_cb cb, void *ctx)
{
	struct scan s = { p, p + n, p, 1, cb, ctx, 0, 0, NULL };
	const unsigned char *q = (const unsigned char *)p, *end = q + n;

	while (q < end) {
		unsigned char k = CLS[*q];
		if (k == 1) {
			const unsigned char *t = q++;
			while (q < end && CLS[*q] == 1)
				q++;
			if (q - t >= 3) {
				check_token(&s, (const char *)t, (size_t)(q - t));
				if (s.stop)
					break;
			}
			continue;
		}
		if (k == 2) {
			s.line++;
			s.ls = (const char *)q + 1;
		} else if (k == 3 && end - q > 3 && q[1] == '/' && q[2] == '/') {
			check_url(&s, (const char *)q);
			if (s.stop)
				break;
		}
		q++;
	}
	return s.hits;
}

long
secret_scan_file(const char *path, secret_cb cb, void *ctx, struct err *e)
{
	struct stat st;
	void *m;
	long hits;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return err_set(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(e, ERR_IO, "%s: not a regular file", path);
	}
	if (st.st_size == 0) {
		close(fd);
		return 0;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return err_set(e, ERR_IO, "%s: cannot map: %s", path, strerror(errno));
	hits = secret_scan(m, (size_t)st.st_size, cb, ctx);
	munmap(m, (size_t)st.st_size);
	return hits;
}
