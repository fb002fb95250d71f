/* secret_re.c: the credential rules' regular expressions and rules
 * files.  Each case of a table of Go (RE2) expressions and inputs must give
 * Go's leftmost-first match and groups from the small matcher, and the
 * same yes or no from regexec on the POSIX translation; expressions outside
 * the subset are refused with a reason; every built-in rule translates and
 * regcomp takes it; malformed rules files are refused naming FILE:LINE and
 * the field.  Prints "ok NAME" / "not ok NAME: why" lines; exit 1 on a
 * failure. */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../../secret/internal.h"

static int failed;

/* Print s with control characters as \n, \xHH, so a case is one line. */
static void
put_escaped(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\n')
			fputs("\\n", stdout);
		else if (c < 0x20 || c == 0x7F)
			printf("\\x%02X", c);
		else
			putchar(c);
	}
}

static void
result(int ok, const char *name, const char *why)
{
	fputs(ok ? "ok " : "not ok ", stdout);
	put_escaped(name);
	if (!ok) {
		fputs(": ", stdout);
		put_escaped(why);
		failed = 1;
	}
	putchar('\n');
}

/* Go's answers (regexp.FindStringSubmatchIndex with the match anchored at
 * the start): the whole match and group 1, "-" for no match or no group. */
static const struct {
	const char *re, *text, *want0, *want1;
} cases[] = {
	{ "a(b|bc)c", "abcc", "0:3", "1:2" },
	{ "a(b|bc)d", "abcd", "0:4", "1:3" },
	{ "(a|ab)(c|bcd)", "abcd", "0:4", "0:1" },
	{ "x*?y", "xxy", "0:3", "-" },
	{ "(x+?)x", "xxx", "0:2", "0:1" },
	{ "(x{1,3}?)", "xxx", "0:1", "0:1" },
	{ "(x{2,})", "xxxx", "0:4", "0:4" },
	{ "(?i)sk-([a-z0-9]{4,8})", "SK-AbC123zz", "0:11", "3:11" },
	{ "(?i)a(?-i:B)c", "ABC", "0:3", "-" },
	{ "(?i)a(?-i:B)c", "Abc", "-", "-" },
	{ "(?i:a)b", "Ab", "0:2", "-" },
	{ "(?i:a)b", "AB", "-", "-" },
	{ "a(?i)b|c", "aB", "0:2", "-" },
	{ "a(?i)b|c", "C", "0:1", "-" },
	{ "\\bkey\\b", "key=", "0:3", "-" },
	{ "\\bkey\\b", "keys", "-", "-" },
	{ "x\\Bkey", "xkey", "0:4", "-" },
	{ "ab$", "ab", "0:2", "-" },
	{ "ab$", "ab\n", "-", "-" },
	{ "^ab", "ab", "0:2", "-" },
	{ "a.b", "a\nb", "-", "-" },
	{ "(?s:a.b)", "a\nb", "0:3", "-" },
	{ "a[^x]b", "a\nb", "0:3", "-" },
	{ "[]a]+", "a]a", "0:3", "-" },
	{ "[^]a]+", "bc]", "0:2", "-" },
	{ "[a-]+", "-a-", "0:3", "-" },
	{ "[\\^-]+", "^-^", "0:3", "-" },
	{ "[\\[\\^x-]+", "[^x-", "0:4", "-" },
	{ "[[:alpha:]]+[[:^alpha:]]", "ab1", "0:3", "-" },
	{ "\\d+\\s*\\w", "12 x", "0:4", "-" },
	{ "[\\w.-]{0,5}?(?:key|token)[\\s'\"]{0,3}(?:=|:)[\\x60'\"\\s=]{0,5}([\\w.=-]{3,10})(?:[\\x60'\"\\s;]|$)",
	    "api_key: 'abc12345'", "0:19", "10:18" },
	{ "(?:^|[,;])(\\w+)", "ab,c", "0:2", "0:2" },
	{ "(?P<n>a)(?<m>b)", "ab", "0:2", "0:1" },
	{ "\\Qa.b\\E+", "a.bb", "0:4", "-" },
	{ "\\Qa+\\E", "a+", "0:2", "-" },
	{ "x{2}", "xxx", "0:2", "-" },
	{ "\\x60(\\x41)", "`A", "0:2", "1:2" },
	{ "(a*)+b", "aab", "0:3", "0:2" },
	{ "a|b|c|ab", "ab", "0:1", "-" },
	{ "(a+)(a+)", "aaa", "0:3", "0:2" },
	{ "(a+?)(a+)", "aaa", "0:3", "0:1" },
	{ "-----BEGIN[ ]?([ A-Z0-9_-]{0,100}PRIVATE KEY)-----", "-----BEGIN RSA PRIVATE KEY-----",
	    "0:31", "11:26" },
	{ "\\.\\$\\(\\)\\*\\+\\?\\{\\}\\|\\\\", ".$()*+?{}|\\", "0:11", "-" },
	{ "a{,2}", "a{,2}", "0:5", "-" }, /* Go: a brace that is not a repeat is a literal */
};

static void
fmt(char *out, long a, long b)
{
	if (a < 0)
		strcpy(out, "-");
	else
		sprintf(out, "%ld:%ld", a, b);
}

static void
match_cases(void)
{
	struct secret_re_work w = SECRET_RE_WORK_INIT;
	char name[300], why[600];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char err[256], g0[32] = "-", g1[32] = "-";
		struct secret_re *re = secret_re_compile(cases[i].re, err, sizeof err);
		regex_t rx;
		regmatch_t m[1];
		long caps[64];
		size_t n = strlen(cases[i].text);
		int gate, bs;

		snprintf(name, sizeof name, "regex %s on \"%s\"", cases[i].re, cases[i].text);
		if (re == NULL) {
			result(0, name, err);
			continue;
		}
		if (regcomp(&rx, re->posix, REG_EXTENDED) != 0) {
			snprintf(why, sizeof why, "regcomp refuses %s", re->posix);
			result(0, name, why);
			secret_re_free(re);
			continue;
		}
		m[0].rm_so = 0;
		m[0].rm_eo = (regoff_t)n;
		gate = regexec(&rx, cases[i].text, 1, m, REG_STARTEND) == 0 && m[0].rm_so == 0;
		bs = secret_re_match_at(re, (const unsigned char *)cases[i].text, n, gate ? (size_t)m[0].rm_eo : n,
		    0, caps, &w);
		if (bs == 1) {
			fmt(g0, caps[0], caps[1]);
			if (re->ngroups >= 1)
				fmt(g1, caps[2], caps[3]);
		}
		snprintf(why, sizeof why, "gate %d, matcher %d, got %s %s, want %s %s (posix %s)", gate, bs,
		    g0, g1, cases[i].want0, cases[i].want1, re->posix);
		result(gate == (bs == 1) && strcmp(g0, cases[i].want0) == 0 &&
		        strcmp(g1, cases[i].want1) == 0 && (!gate || (long)m[0].rm_eo >= caps[1]),
		    name, why);
		regfree(&rx);
		secret_re_free(re);
	}
	/* unanchored search, as allowlists use it */
	{
		char err[256];
		struct secret_re *re = secret_re_compile("(?i)cache[_.-]?key", err, sizeof err);
		int a = re ? secret_re_search(re, (const unsigned char *)"prompt_CACHE_key\":", 18, &w) : -2;
		int b = re ? secret_re_search(re, (const unsigned char *)"api_key", 7, &w) : -2;
		snprintf(why, sizeof why, "found %d and %d, want 1 and 0", a, b);
		result(a == 1 && b == 0, "unanchored search finds a match inside and none elsewhere", why);
		secret_re_free(re);
	}
	secret_re_work_release(&w);
}

static const struct {
	const char *re, *why;
} refused[] = {
	{ "\\p{L}+", "Unicode classes" },
	{ "a(?=b)", "lookahead" },
	{ "(?<=a)b", "lookbehind" },
	{ "(a)\\1", "back references" },
	{ "a**", "repetition of a repetition" },
	{ "(?:){500}", "counted repetition of what may match nothing" },
	{ "(?:\\b){24}", "counted repetition of what may match nothing" },
	{ "(?:a*){9,99}", "counted repetition of what may match nothing" },
	{ "(?:a|b?|c){2,}", "counted repetition of what may match nothing" },
	{ "x(?:(?:^|z)y?){0,2}", "counted repetition of what may match nothing" },
	{ "x{1001}", "over 1000" },
	{ "(?m)^x", "m flag" },
	{ "(?U)a+", "U flag" },
	{ "[\xc3\xa9]", "non-ASCII" },
	{ "\\x{100}", "only ASCII" },
	{ "\\x00", "NUL" },
	{ "a)", "unexpected )" },
	{ "(a", "missing )" },
	{ "[a", "missing ]" },
	{ "*a", "missing argument" },
	{ "[z-a]", "out of order" },
	{ "\\q", "unknown escape" },
};

static void
refusals(void)
{
	char name[200], err[256], why[400];

	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		struct secret_re *re = secret_re_compile(refused[i].re, err, sizeof err);
		snprintf(name, sizeof name, "regex %s is refused (%s)", refused[i].re, refused[i].why);
		snprintf(why, sizeof why, "%s", re ? "accepted" : err);
		result(re == NULL && strstr(err, refused[i].why) != NULL && strncmp(err, "offset ", 7) == 0,
		    name, why);
		secret_re_free(re);
	}
}

static void
builtin(void)
{
	struct err e = ERR_INIT;
	struct secret_rules *r = secret_rules_new(NULL, &e);
	char why[1200], first[600] = "none";
	size_t bad = 0;

	if (r == NULL) {
		result(0, "the built-in rules load", e.msg);
		return;
	}
	for (size_t i = 0; i < r->nrules; i++) {
		regex_t rx;
		if (regcomp(&rx, r->rule[i].re->posix, REG_EXTENDED) != 0 || r->rule[i].re->ninst == 0) {
			if (bad++ == 0)
				snprintf(first, sizeof first, "%s: %.500s", r->rule[i].id, r->rule[i].re->posix);
			continue;
		}
		regfree(&rx);
	}
	snprintf(why, sizeof why, "%zu rules, %zu keywords; a failure: %s", r->nrules, r->nkw, first);
	result(bad == 0 && r->nrules >= 60, "every built-in rule translates, compiles, has a program", why);
	secret_rules_free(r);
}

/* Malformed rules files: the message names the file and line, and the field. */
static const struct {
	const char *name, *text, *want;
} files[] = {
	{ "unknown field", "[[rules]]\nid = \"x\"\nregexp = '''a'''\n", "t.toml:3: \"regexp\": unknown field" },
	{ "regex outside the subset",
	    "[[rules]]\nid = \"x\"\nkeywords = [\"a\"]\nregex = '''\\p{L}'''\n", "t.toml:4: \"regex\": offset 0" },
	{ "missing keywords", "[[rules]]\nid = \"x\"\nregex = '''abc'''\n", "t.toml:1: \"keywords\": missing" },
	{ "missing regex", "\n[[rules]]\nid = \"x\"\nkeywords = [\"a\"]\n", "t.toml:2: \"regex\": missing" },
	{ "missing id", "[[rules]]\nregex = '''a'''\nkeywords = [\"a\"]\n", "t.toml:1: \"id\": missing" },
	{ "unterminated string", "[[rules]]\nid = \"x\nregex = 'a'\n", "t.toml:2: \"id\": a newline" },
	{ "a string where a number goes",
	    "[[rules]]\nid = \"x\"\nregex = 'a'\nkeywords = ['a']\nentropy = \"high\"\n",
	    "t.toml:5: \"entropy\": expected a number" },
	{ "a field given twice", "[[rules]]\nid = \"x\"\nid = \"y\"\n", "t.toml:3: \"id\": given twice" },
	{ "a secretGroup the regex lacks",
	    "[[rules]]\nid = \"x\"\nregex = '''(a)b'''\nsecretGroup = 2\nkeywords = ['a']\n",
	    "t.toml:1: \"secretGroup\": rule \"x\": 2, but its regex has 1 group" },
	{ "an unknown table", "[[rule]]\nid = \"x\"\n", "t.toml:1: [[rule]]: unknown table" },
	{ "an allowlist before any rule", "[[rules.allowlists]]\nregexes = ['a']\n",
	    "t.toml:1: [[rules.allowlists]] before any [[rules]]" },
	{ "an empty allowlist", "[[allowlists]]\ndescription = \"none\"\n", "t.toml:1: [[allowlists]]: an allowlist needs" },
	{ "a bad regexTarget",
	    "[[rules]]\nid = 'x'\nregex = 'a'\nkeywords = ['a']\n[[rules.allowlists]]\nregexTarget = 'file'\nregexes = ['a']\n",
	    "t.toml:6: \"regexTarget\": expected secret, match or line" },
	{ "targetRules naming no rule", "[[allowlists]]\ntargetRules = ['nope']\nregexes = ['a']\n",
	    "t.toml:2: \"targetRules\": no rule \"nope\"" },
	{ "commits", "[[allowlists]]\ncommits = ['abc']\n", "t.toml:2: \"commits\": cohort scans files" },
	{ "a dotted key", "[[rules]]\nid.x = 1\n", "t.toml:2: \"id\": dotted keys" },
	{ "an inline table", "[[rules]]\nid = { a = 1 }\n", "t.toml:2: \"id\": inline tables" },
	{ "garbage after a value", "title = \"x\" y\n", "t.toml:1: \"title\": expected the end of the line" },
	{ "a bad escape in a basic string", "[[rules]]\nid = 'x'\nregex = \"\\d+\"\n",
	    "t.toml:3: \"regex\": \\d is not an escape" },
	{ "an unterminated array", "[[rules]]\nkeywords = ['a',\n'b'\n", "t.toml:2: \"keywords\": missing ] of an array" },
	{ "useDefault = false", "[extend]\nuseDefault = false\n", "t.toml:2: \"useDefault\": the built-in rules" },
	{ "multi-part rules", "[[rules]]\nid='x'\nregex='a'\nkeywords=['a']\n[[rules.required]]\nid='y'\n",
	    "t.toml:5: [[rules.required]]" },
	{ "a bad rule id", "[[rules]]\nid = 'a b'\n", "t.toml:2: \"id\": expected 1 to 64" },
	{ "a NUL byte", "title = 'x'\n\0", "t.toml:1: a NUL byte" },
};

static void
rules_files(void)
{
	char name[200], why[1200];

	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		struct err e = ERR_INIT;
		size_t n = strlen(files[i].text) + (strstr(files[i].name, "NUL") ? 1 : 0);
		struct secret_rules *r = secret_rules_read("t.toml", files[i].text, n, &e);
		snprintf(name, sizeof name, "rules file with %s is refused", files[i].name);
		snprintf(why, sizeof why, "got \"%s\", want \"%s...\"", r ? "accepted" : e.msg, files[i].want);
		result(r == NULL && e.code == ERR_INPUT && strncmp(e.msg, files[i].want, strlen(files[i].want)) == 0,
		    name, why);
		secret_rules_free(r);
	}
	/* and a good one, with every kind of value and table */
	{
		static const char good[] =
		    "# a comment\ntitle = \"extra\"\n[extend]\nuseDefault = true\n"
		    "[[rules]]\nid = \"x-token\"\ndescription = \"\"\"an x\n token\"\"\"\n"
		    "regex = '''\\bxt_([a-z0-9]{8})\\b'''\nsecretGroup = 1\nentropy = 2.5\n"
		    "keywords = [\n  \"xt_\", # trailing comma next\n]\ntags = ['a', \"b\\u00e9\"]\n"
		    "[rules.allowlist]\nregexes = [\"^0+$\"]\nstopwords = ['zzzz']\n"
		    "[[allowlists]]\ncondition = \"AND\"\nregexTarget = \"line\"\nregexes = ['''test''']\n"
		    "targetRules = [\"x-token\"]\n";
		struct err e = ERR_INIT;
		struct secret_rules *r = secret_rules_read("good.toml", good, sizeof good - 1, &e);
		snprintf(why, sizeof why, "%s", r ? "wrong contents" : e.msg);
		result(r && r->nrules == 1 && strcmp(r->rule[0].id, "x-token") == 0 &&
		        r->rule[0].secret_group == 1 && r->rule[0].entropy == 2.5 && r->nallow == 1 &&
		        r->allow[0].and && r->allow[0].target == AL_LINE && r->rule[0].nallow == 1 &&
		        r->rule[0].ntags == 2 && strcmp(r->rule[0].tags[1], "b\xc3\xa9") == 0,
		    "a rules file using every supported form reads", why);
		secret_rules_free(r);
	}
}

#ifndef __SANITIZE_ADDRESS__
/* The address space in use, from /proc/self/statm; 0 when unknown. */
static size_t
address_space(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long pages = 0;

	if (f != NULL) {
		if (fscanf(f, "%lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return pages * 4096;
}
#endif

/* The largest built-in expression under an address space too small for
 * its bound: REG_ESPACE from secret_regcomp, before regcomp (which,
 * failing an allocation partway, frees twice and aborts); with room, it
 * compiles.
 * Not under AddressSanitizer, whose shadow memory no such limit admits. */
static void
regcomp_room(void)
{
#ifndef __SANITIZE_ADDRESS__
	char err[256];
	struct secret_re *re = secret_re_compile("pypi-AgEIcHlwaS5vcmc[\\w-]{50,1000}", err, sizeof err);
	struct rlimit was, tight;
	regex_t rx;
	int low, roomy;

	if (re == NULL || getrlimit(RLIMIT_AS, &was) != 0 || address_space() == 0) {
		result(0, "secret_regcomp refuses without room", re ? "no rlimit" : err);
		secret_re_free(re);
		return;
	}
	tight = was;
	/* room for what regcomp takes (12.7 MB) but not for the bound (131
	 * MB): a regcomp begun would compile, so REG_ESPACE shows it was not */
	tight.rlim_cur = address_space() + 40u * 1024 * 1024;
	if (setrlimit(RLIMIT_AS, &tight) != 0) {
		result(0, "secret_regcomp refuses without room", "setrlimit refused");
		secret_re_free(re);
		return;
	}
	low = secret_regcomp(&rx, re, re->posix, REG_EXTENDED);
	if (low == 0)
		regfree(&rx);
	setrlimit(RLIMIT_AS, &was);
	result(low == REG_ESPACE, "secret_regcomp refuses without room: REG_ESPACE, regcomp not begun",
	    low == 0 ? "it compiled" : "another error");
	roomy = secret_regcomp(&rx, re, re->posix, REG_EXTENDED);
	if (roomy == 0)
		regfree(&rx);
	result(roomy == 0, "secret_regcomp compiles with room", "refused");
	secret_re_free(re);
#endif
}

int
main(void)
{
	match_cases();
	refusals();
	regcomp_room();
	builtin();
	rules_files();
	return failed;
}
