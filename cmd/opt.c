/* opt.c: table-driven option parsing and help for the command shells. */
#include "opt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/io.h"
#include "../json/json.h"

void
opt_say(const char *name, const char *msg)
{
	struct buf b = BUF_INIT;

	if (buf_add_shown(&b, msg) < 0 || b.p == NULL)
		fprintf(stderr, "cohort%s%s: %s\n", name && *name ? " " : "", name ? name : "", msg);
	else
		fprintf(stderr, "cohort%s%s: %s\n", name && *name ? " " : "", name ? name : "", b.p);
	buf_release(&b);
}

int
opt_usage_error(const struct opt_cmd *c, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	opt_say(c->name, msg);
	fputs(c->usage, stderr);
	return EXIT_ERROR;
}

/* The table entry for argument a ("--name", "--name=v", "-x", "-xv"), and
 * where its inline value starts (or NULL). */
static const struct opt *
find(const struct opt *t, const char *a, const char **inline_value)
{
	*inline_value = NULL;
	if (a[1] == '-') {
		const char *eq = strchr(a + 2, '=');
		size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		for (; t->name; t++)
			if (strlen(t->name) == n && strncmp(t->name, a + 2, n) == 0) {
				*inline_value = eq ? eq + 1 : NULL;
				return t;
			}
		return NULL;
	}
	for (; t->name; t++)
		if (t->letter != 0 && t->letter == a[1]) {
			*inline_value = a[2] ? a + 2 : NULL;
			return t;
		}
	return NULL;
}

/* How an option is named in messages: "--name", or "-o" for the output. */
static void
shown(const struct opt *o, char *b, size_t n)
{
	if (o->letter != 0 && strcmp(o->name, "output") == 0)
		snprintf(b, n, "-%c", o->letter);
	else
		snprintf(b, n, "--%s", o->name);
}

/* Whether the space-separated list names holds name. */
static int
named(const char *names, const char *name)
{
	size_t n = strlen(name);

	while (names != NULL && *names) {
		size_t k = strcspn(names, " ");
		if (k == n && strncmp(names, name, n) == 0)
			return 1;
		names += k + (names[k] == ' ');
	}
	return 0;
}

static int
excludes(const struct opt *a, const struct opt *b)
{
	return named(a->excludes, b->name) || named(b->excludes, a->name);
}

static int
take(const struct opt_cmd *c, const struct opt *o, const char *value, int *seen)
{
	char name[64];

	shown(o, name, sizeof name);
	if (o->flag != NULL && value != NULL)
		return opt_usage_error(c, "%s: takes no value", name);
	if (o->flag == NULL && value == NULL)
		return opt_usage_error(c, "%s: needs a value", name);
	if (seen[o - c->table] && o->list == NULL)
		return opt_usage_error(c, "%s given twice", name);
	for (const struct opt *t = c->table; t->name; t++)
		if (t != o && seen[t - c->table] && excludes(t, o)) {
			char other[64];
			shown(t, other, sizeof other);
			return opt_usage_error(c, "%s and %s cannot go together", other, name);
		}
	seen[o - c->table] = 1;
	if (o->flag != NULL)
		*o->flag = 1;
	else if (o->value != NULL)
		*o->value = value;
	else if (o->list->n == OPT_MAX_LIST)
		return opt_usage_error(c, "%s: at most %d", name, OPT_MAX_LIST);
	else
		o->list->v[o->list->n++] = value;
	return 0;
}

/* An argument that is no option of c: an option of a sibling subcommand,
 * or unknown. */
static int
unknown(const struct opt_cmd *c, const char *a)
{
	const char *v;

	for (size_t i = 0; c->parent && c->parent->subs && c->parent->subs[i]; i++) {
		const struct opt_cmd *s = c->parent->subs[i];
		const struct opt *o;
		if (s != c && (o = find(s->table, a, &v)) != NULL) {
			char name[64];
			shown(o, name, sizeof name);
			return opt_usage_error(c, "%s belongs to %s", name, s->name);
		}
	}
	return opt_usage_error(c, "unknown option '%s'", a);
}

static const char *
count(int n, char b[16])
{
	if (n == 1)
		return "one";
	snprintf(b, 16, "%d", n);
	return b;
}

static int
operands(const struct opt_cmd *c, char **ops, int n)
{
	char b[16];

	if (c->operand == NULL)
		return n == 0 ? 0 : opt_usage_error(c, "unexpected argument '%s'", ops[0]);
	if (n >= c->min && (c->max < 0 || n <= c->max))
		return 0;
	if (c->min == c->max)
		return opt_usage_error(c, "expected %s %s", count(c->min, b), c->operand);
	if (n < c->min)
		return opt_usage_error(c, "expected at least %s %s", count(c->min, b), c->operand);
	return opt_usage_error(c, "expected at most %s %s", count(c->max, b), c->operand);
}

/* The values option o was given (none for a flag): how many, and where. */
static size_t
values(const struct opt *o, const char *const **v)
{
	if (o->list != NULL) {
		*v = o->list->v;
		return o->list->n;
	}
	*v = o->value;
	return o->value != NULL && *o->value != NULL;
}

/* Every output option's value is none of the operands and none of the
 * other options' values (opt.h). */
static int
outputs(const struct opt_cmd *c, char **ops, int nops, const int *seen)
{
	const char **in = NULL;
	size_t n = 0, max = (size_t)nops;
	int rc = 0;

	for (const struct opt *t = c->table; t->name; t++)
		max += t->list ? t->list->n : 1;
	for (const struct opt *o = c->table; rc == 0 && o->name; o++) {
		const char *const *out;
		size_t nout = seen[o - c->table] && o->out ? values(o, &out) : 0;
		if (nout == 0)
			continue;
		if (in == NULL && (in = malloc((max ? max : 1) * sizeof *in)) == NULL) {
			opt_say(c->name, "out of memory");
			return EXIT_ERROR;
		}
		n = 0;
		for (int i = 0; i < nops; i++)
			in[n++] = ops[i];
		for (const struct opt *t = c->table; t->name; t++) {
			const char *const *v;
			size_t k = t != o && !t->out && seen[t - c->table] ? values(t, &v) : 0;
			for (size_t j = 0; j < k; j++)
				in[n++] = v[j];
		}
		for (size_t j = 0; rc == 0 && j < nout; j++)
			rc = opt_output(c, out[j], in, n);
	}
	free(in);
	return rc;
}

int
opt_parse(const struct opt_cmd *c, int argc, char **argv, char ***ops, int *nops)
{
	int seen[OPT_MAX_TABLE] = { 0 }, out = 1, ended = 0;
	size_t n = 0;

	while (c->table[n].name != NULL)
		n++;
	if (n > OPT_MAX_TABLE) {
		opt_usage_error(c, "more than %d options in one table", OPT_MAX_TABLE);
		return OPT_BAD;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		const struct opt *o;
		if (ended || a[0] != '-' || a[1] == '\0') {
			argv[out++] = argv[i];
			ended |= c->dispatch;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			ended = 1;
			continue;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			opt_help(c);
			return OPT_HELP;
		}
		if ((o = find(c->table, a, &v)) == NULL) {
			unknown(c, a);
			return OPT_BAD;
		}
		if (v == NULL && o->flag == NULL && i + 1 < argc)
			v = argv[++i];
		if (take(c, o, v, seen) != 0)
			return OPT_BAD;
	}
	*ops = argv + 1;
	*nops = out - 1;
	if (c->dispatch)
		return OPT_OK;
	for (size_t i = 0; i < n; i++)
		if (c->table[i].required && !seen[i]) {
			char name[64];
			shown(&c->table[i], name, sizeof name);
			opt_usage_error(c, "%s is required", name);
			return OPT_BAD;
		}
	if (operands(c, *ops, *nops) != 0 || outputs(c, *ops, *nops, seen) != 0)
		return OPT_BAD;
	return OPT_OK;
}

/* ---- help */

/* An option as --help shows it: "-o, --output FILE", "--level P". */
static void
label(const struct opt *o, char *b, size_t n)
{
	if (o->letter != 0)
		snprintf(b, n, "-%c, --%s%s%s", o->letter, o->name, o->arg ? " " : "",
		    o->arg ? o->arg : "");
	else
		snprintf(b, n, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

static const struct opt help_opt = { .name = "help", .letter = 'h',
	.help = "print this help and exit" };

static size_t
width(const struct opt *t, size_t w)
{
	char b[128];

	for (; t->name; t++) {
		label(t, b, sizeof b);
		if (strlen(b) > w)
			w = strlen(b);
	}
	return w;
}

static void
list(const struct opt *t, size_t w)
{
	char b[128];

	for (; t->name; t++) {
		label(t, b, sizeof b);
		printf("  %-*s  %s\n", (int)w, b, t->help ? t->help : "");
	}
}

void
opt_help(const struct opt_cmd *c)
{
	size_t w = width(c->table, strlen("-h, --help"));
	char b[128];

	for (size_t i = 0; c->subs && c->subs[i]; i++)
		w = width(c->subs[i]->table, w);
	fputs(c->usage, stdout);
	fputs("\noptions:\n", stdout);
	list(c->table, w);
	label(&help_opt, b, sizeof b);
	printf("  %-*s  %s\n", (int)w, b, help_opt.help);
	for (size_t i = 0; c->subs && c->subs[i]; i++) {
		printf("\n%s options:\n", c->subs[i]->name);
		list(c->subs[i]->table, w);
	}
	if (c->epilogue != NULL) {
		putchar('\n');
		fputs(c->epilogue, stdout);
	}
}

int
opt_format(const struct opt_cmd *c, const char *format)
{
	if (format == NULL || strcmp(format, "json") == 0)
		return 0;
	if (strcmp(format, "table") == 0)
		return 1;
	opt_usage_error(c, "--format: expected json or table, got '%s'", format);
	return -1;
}

int
opt_output(const struct opt_cmd *c, const char *out, const char *const *inputs, size_t n)
{
	struct err e = ERR_INIT;

	if (io_output_check(out, inputs, n, &e) == 0)
		return 0;
	opt_say(c->name, e.msg);
	return EXIT_ERROR;
}

int
opt_emit(const cJSON *doc, int table, int (*render)(const cJSON *, struct buf *, struct err *),
    const char *path, struct err *e)
{
	struct buf b = BUF_INIT;
	int rc;

	if (!table)
		return json_emit(doc, path, e);
	rc = render(doc, &b, e);
	if (rc == 0)
		rc = io_write_all(path, b.p ? b.p : "", b.len, e);
	buf_release(&b);
	return rc;
}
