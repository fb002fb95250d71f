/* opt.h: the one option parser of the command shells, and the one way a
 * shell emits its document.
 *
 * Each shell describes its options in a table; opt_parse reads argv
 * against it.  "--name VALUE", "--name=VALUE", "-o VALUE" and "-oVALUE"
 * are the same; "--" ends the options; "-" is an operand (standard
 * input).  An option given twice is refused unless it is a list; two
 * options of one conflict group are refused by name.  Every error reads
 * the same way and goes with the usage text to stderr:
 *   cohort fit: --level: needs a value
 *   cohort fit: --level given twice
 *   cohort fit: unknown option '--lvl'
 *   cohort ladder: --condition and --truth cannot go together
 * "--help" (and "-h") prints the usage to stdout.
 *
 * Ownership: values point into argv.
 */
#ifndef COHORT_OPT_H
#define COHORT_OPT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"

#define OPT_MAX_LIST 64

/* A repeatable option's values, in the order given. */
struct opt_list {
	size_t n;
	const char *v[OPT_MAX_LIST];
};

struct opt {
	const char *name;      /* long name without the dashes */
	char letter;           /* a one-letter alias, or 0 */
	const char **value;    /* an option with a value: where it goes */
	int *flag;             /* or a flag: set to 1 */
	struct opt_list *list; /* or a repeatable option with a value */
	int group;             /* options of one nonzero group exclude each other */
};

enum { OPT_OK = 0, OPT_HELP = 1, OPT_BAD = -1 };

/* Parse argv[1..argc) against table (ended by a NULL name).  Operands
 * and options may mix; after "--" all are operands.  The operands, in
 * order, end up in (*ops)[0..*nops) (argv is reordered in place).
 * Returns OPT_OK, OPT_HELP (usage printed to stdout) or OPT_BAD (the error
 * and usage printed to stderr). */
int opt_parse(const char *cmd, const char *usage, const struct opt *table, int argc, char **argv,
    char ***ops, int *nops);

/* The "--format" value: 0 for json (or none), 1 for table; -1 after
 * printing a usage error for anything else. */
int opt_format(const char *cmd, const char *usage, const char *format);

/* A usage error in the one form: "cohort CMD: message", then the usage,
 * to stderr; returns EXIT_ERROR. */
int opt_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Write doc to path (NULL or "-": standard output) as canonical JSON, or
 * with table set as the text table() renders.  0, or -1 with e set. */
int opt_emit(const cJSON *doc, int table, int (*render)(const cJSON *, struct buf *, struct err *),
    const char *path, struct err *e);

#endif
