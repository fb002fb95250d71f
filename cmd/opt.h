/* opt.h: the one option parser of the command shells, and the one way a
 * shell emits its document.
 *
 * Each shell describes its command in a struct opt_cmd: the usage lines
 * (shaped like its man page's SYNOPSIS), a table of options, and what its
 * operands are.  opt_parse reads argv against it and refuses everything the
 * table can tell, so a shell checks only what the values mean.
 * "--name VALUE", "--name=VALUE", "-o VALUE" and "-oVALUE" are the same;
 * "--" ends the options; "-" is an operand (standard input).  An option
 * given twice is refused unless it is a list.  Every usage error reads one
 * way, in the form "cohort COMMAND: message", and goes with the usage lines
 * to stderr:
 *   cohort fit: unknown option '--lvl'
 *   cohort fit: --level: needs a value
 *   cohort bound: --one-sided: takes no value
 *   cohort fit: --level given twice
 *   cohort bundle: --gzip and --zstd cannot go together
 *   cohort freeze: --spec is required
 *   cohort ladder next: --truth belongs to ladder simulate
 *   cohort fit: expected one FILE
 *   cohort bundle: unexpected argument 'extra'
 *   cohort fit: --level: expected a number, got 'high'    (a value's meaning)
 * and an output option (.out) naming one of the inputs is refused the same
 * way, without the usage lines (io_output_check):
 *   cohort fit: freeze.json: is an input, and inputs are never written over: ...
 * "--help" (and "-h") prints the usage lines and one line per option to
 * stdout: the same text as "cohort help COMMAND".
 *
 * Ownership: values point into argv; tables and commands are borrowed.
 */
#ifndef COHORT_OPT_H
#define COHORT_OPT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"

#define OPT_MAX_LIST 256 /* values of one repeatable option */
#define OPT_MAX_TABLE 64 /* options in one table */

/* A repeatable option's values, in the order given. */
struct opt_list {
	size_t n;
	const char *v[OPT_MAX_LIST];
};

/* One option.  Exactly one of value, flag and list is set. */
struct opt {
	const char *name;       /* long name without the dashes */
	char letter;            /* a one-letter alias, or 0 */
	const char *arg;        /* the value's name in --help ("FILE"), NULL for a flag */
	const char **value;     /* an option with a value: where it goes */
	int *flag;              /* or a flag: set to 1 */
	struct opt_list *list;  /* or a repeatable option with a value */
	int required;           /* refused when missing */
	const char *excludes;   /* names of the options it cannot go with, separated by spaces */
	const char *help;       /* one line for --help */
	int out;                /* a file (or folder) the command writes: never an input */
};

struct opt_cmd {
	const char *name;     /* "fit", "ladder next"; NULL for the program itself */
	const char *usage;    /* "usage: cohort ...\n" lines, shaped like the SYNOPSIS */
	const struct opt *table;     /* ended by an entry with a NULL name */
	const char *operand;  /* what an operand is ("FILE"), or NULL when none is taken */
	int min, max;         /* how many operands: min 0 or 1; max 1, or -1 for any number */
	int dispatch;         /* options end at the first operand, which names a subcommand */
	const struct opt_cmd *const *subs;  /* a dispatching command's subcommands, NULL-ended */
	const struct opt_cmd *parent;       /* a subcommand's command, whose other
	                                       subcommands' options are refused by name */
	const char *epilogue; /* printed after the options by --help, or NULL */
};

enum { OPT_OK = 0, OPT_HELP = 1, OPT_BAD = -1 };

/* Parse argv[1..argc) against c.  Operands and options may mix (unless c
 * dispatches); after "--" all are operands.  The operands, in order, end up
 * in (*ops)[0..*nops) (argv is reordered in place).  Required options and
 * the number of operands are checked (not for a dispatching command), and
 * so is the one rule of outputs: the value of each option marked out is
 * none of the files the operands and the other options' values name
 * (io_output_check: the same file by any name or link, standard input
 * given as "-" included), before anything is read or written.  (Any
 * value counts, since the table does not say which are files: an output
 * that is the file a number or a name also names is refused too.)
 * Returns OPT_OK, OPT_HELP (the help printed to stdout) or OPT_BAD (the
 * error and usage printed to stderr). */
int opt_parse(const struct opt_cmd *c, int argc, char **argv, char ***ops, int *nops);

/* Print c's help to stdout: the usage lines, then every option with its
 * line (and each subcommand's), then the epilogue. */
void opt_help(const struct opt_cmd *c);

/* The "--format" value: 0 for json (or none), 1 for table; -1 after
 * printing a usage error for anything else. */
int opt_format(const struct opt_cmd *c, const char *format);

/* Print "cohort NAME: msg" (NAME empty: "cohort: msg") and a newline to
 * stderr, the message's control characters shown escaped (buf_add_shown):
 * every diagnostic goes through here, so a file name holding a newline or
 * ESC can neither forge a line nor drive the terminal. */
void opt_say(const char *name, const char *msg);

/* A usage error in the one form: "cohort NAME: message", then the usage
 * lines, to stderr; returns EXIT_ERROR. */
int opt_usage_error(const struct opt_cmd *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Refuse an output that is one of the inputs (io_output_check, common/io.h):
 * 0, or the message printed to stderr ("cohort NAME: luna/ledger.jsonl: is
 * an input, ...") and EXIT_ERROR.  opt_parse does it for every option marked
 * out; a shell calls it for a file it writes that no option names (sign's
 * FILE.minisig, bundle's ARCHIVE.minisig), with every file it reads. */
int opt_output(const struct opt_cmd *c, const char *out, const char *const *inputs, size_t n);

/* Write doc to path (NULL or "-": standard output) as canonical JSON, or
 * with table set as the text render() makes of it.  0, or -1 with e set. */
int opt_emit(const cJSON *doc, int table, int (*render)(const cJSON *, struct buf *, struct err *),
    const char *path, struct err *e);

#endif
