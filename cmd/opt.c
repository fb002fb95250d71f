/* opt.c: table-driven option parsing for the command shells. */
#include "opt.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../common/io.h"
#include "../json/json.h"
#include "cmd.h"

int
opt_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "cohort %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s", usage);
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

static int
take(const char *cmd, const char *usage, const struct opt *o, const char *value, int *seen,
    const struct opt *table)
{
	char name[64];

	shown(o, name, sizeof name);
	if (o->flag != NULL && value != NULL)
		return opt_usage_error(cmd, usage, "%s takes no value", name);
	if (o->flag == NULL && value == NULL)
		return opt_usage_error(cmd, usage, "%s: needs a value", name);
	if (*seen && o->list == NULL)
		return opt_usage_error(cmd, usage, "%s given twice", name);
	for (const struct opt *t = table; o->group && t->name; t++)
		if (t != o && t->group == o->group && seen[t - o]) {
			char other[64];
			shown(t, other, sizeof other);
			return opt_usage_error(cmd, usage, "%s and %s cannot go together", other, name);
		}
	*seen = 1;
	if (o->flag != NULL)
		*o->flag = 1;
	else if (o->value != NULL)
		*o->value = value;
	else if (o->list->n == OPT_MAX_LIST)
		return opt_usage_error(cmd, usage, "%s: at most %d", name, OPT_MAX_LIST);
	else
		o->list->v[o->list->n++] = value;
	return 0;
}

int
opt_parse(const char *cmd, const char *usage, const struct opt *table, int argc, char **argv,
    char ***ops, int *nops)
{
	int seen[64] = { 0 }, out = 1, ended = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		const struct opt *o;
		if (ended || a[0] != '-' || a[1] == '\0') {
			argv[out++] = argv[i];
			continue;
		}
		if (strcmp(a, "--") == 0) {
			ended = 1;
			continue;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage, stdout);
			return OPT_HELP;
		}
		if ((o = find(table, a, &v)) == NULL) {
			opt_usage_error(cmd, usage, "unknown option '%s'", a);
			return OPT_BAD;
		}
		if (v == NULL && o->flag == NULL && i + 1 < argc)
			v = argv[++i];
		if (take(cmd, usage, o, v, &seen[o - table], table) != 0)
			return OPT_BAD;
	}
	*ops = argv + 1;
	*nops = out - 1;
	return OPT_OK;
}

int
opt_format(const char *cmd, const char *usage, const char *format)
{
	if (format == NULL || strcmp(format, "json") == 0)
		return 0;
	if (strcmp(format, "table") == 0)
		return 1;
	opt_usage_error(cmd, usage, "--format: expected json or table, got '%s'", format);
	return -1;
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
