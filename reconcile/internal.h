/* internal.h: what the parts of a reconcile share; reconcile.h is the
 * public interface.
 *
 * One struct recon holds a run: the options, the error, the database and
 * the report's inputs as they are registered.  Every function here that
 * takes it fills r->e and returns -1 (or NULL) on failure.
 *
 * Ownership: the run owns the database, the freeze document and the map of
 * billing columns; strings passed in are borrowed.
 */
#ifndef COHORT_RECONCILE_INTERNAL_H
#define COHORT_RECONCILE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "../common/buf.h"
#include "../common/err.h"
#include "../common/hash.h"
#include "reconcile.h"
#include "recon_feed.h"

#define MAX_COUNT 9007199254740991LL /* 2^53 - 1 */

/* Token classes, in report order. */
static const char *const classes[] = { "input", "output", "reasoning", "cached" };
#define NCLASS 4

/* Billing columns, by our default names. */
enum { B_REQUEST_ID, B_TS, B_MODEL, B_INPUT, B_OUTPUT, B_REASONING, B_CACHED, B_COST, NBCOL };
static const char *const bcols[NBCOL] = {
	"request_id", "ts", "model", "input_tokens", "output_tokens", "reasoning_tokens",
	"cached_tokens", "cost",
};

/* Finding kinds, in report order. */
static const char *const kinds[] = {
	"missing_game", "identity_mismatch", "stale_freeze", "game_without_requests",
	"game_requests", "game_tokens", "wall_time", "request_without_game", "unbilled_request",
	"duplicate_billing", "billed_tokens", "unmatched_billing", "failed_request", "retry",
	"model_changed",
};
#define NKIND (sizeof kinds / sizeof kinds[0])

struct recon {
	const struct recon_opts *o;
	struct err *e;
	sqlite3 *db;
	char *dbtmp;                 /* temporary name of the --db file */
	int dblock;                  /* with dbtmp: a descriptor holding its lock (io.h) */
	cJSON *freeze;               /* the freeze document */
	cJSON *inputs;               /* report "inputs", being filled */
	char *map[NBCOL];            /* provider column for each billing column */
	long long as_of;             /* the freeze's cut, nanoseconds since the epoch */
	long long block_games;       /* games in a complete block */
	long long nfile;             /* files registered so far */
};

/* values.c */

/* A decimal amount: -?digits(.digits)?  Returns 0, or -1. */
int recon_amount_parse(const char *s, double *out);
/* The last part of path ("-" for standard input or NULL). */
const char *recon_base_name(const char *path);

/* database.c */

/* Create the database (a private temporary one, or o->db's temporary
 * name) and its schema. */
int recon_db_open(struct recon *r);
/* Close the database; keep it (rename into place) when keep is set. */
int recon_db_close(struct recon *r, int keep);
/* The database's last error, after what failed. */
int recon_db_fail(struct recon *r, const char *what);
/* Run sql, one or more statements without parameters. */
int recon_db_exec(struct recon *r, const char *sql);
/* A prepared statement (the caller finalizes it), or NULL. */
sqlite3_stmt *recon_db_prep(struct recon *r, const char *sql);
/* Bind the cut and the tolerance to any statement that names them. */
void recon_db_bind_params(struct recon *r, sqlite3_stmt *st);
/* Run a statement with the standard parameters to its end. */
int recon_db_run(struct recon *r, const char *sql);
/* The first column of the first row of sql, or -1. */
long long recon_db_count(struct recon *r, const char *sql);
/* Bind s (NULL: SQL NULL), borrowed until the statement is stepped. */
void recon_db_bind_text(sqlite3_stmt *st, int i, const char *s);
/* Bind v (below 0: SQL NULL). */
void recon_db_bind_count(sqlite3_stmt *st, int i, long long v);
/* Register an input file: its row in files, its entry in the report
 * (in list when it is an array, else under role). */
int recon_file_add(struct recon *r, const char *role, const char *path, const uint8_t d[HASH_LEN],
    const char *id, cJSON *list);
/* A new array under key in the report's inputs. */
cJSON *recon_inputs_list(struct recon *r, const char *key);

/* fields.c: each returns 0, 1 when an optional field is absent (or null),
 * or -1 with e set naming the field. */

/* "name:line: " before a field error. */
int recon_at_line(struct err *e, const char *name, long line);
/* One of allowed (NULL-terminated), described as expect in the error. */
int recon_field_enum(const cJSON *obj, const char *key, int required, const char *const *allowed,
    const char *expect, const char **out, struct err *e);
/* A string, not empty. */
int recon_field_text(const cJSON *obj, const char *key, int required, const char **out,
    struct err *e);
/* An RFC 3339 date-time: its nanoseconds and its text as UTC. */
int recon_field_time(const cJSON *obj, const char *key, int required, long long *t,
    char norm[RECON_TIME_MAX], struct err *e);
/* A number not below 0. */
int recon_field_nonneg(const cJSON *obj, const char *key, int required, double *out,
    struct err *e);
/* The four token classes of obj[key]; out[i] = -1 when absent and optional. */
int recon_field_tokens(const cJSON *obj, const char *key, int required, long long out[NCLASS],
    struct err *e);

/* sources.c */

/* One input streamed by a producer thread (recon_feed.h). */
struct recon_source {
	struct recon *r;            /* read only on the producer's side */
	const char *path;
	long long file;             /* its number in files */
	uint8_t digest[HASH_LEN];   /* SHA-256 of its bytes, once read */
	struct buf scratch;         /* canonical bytes of one record */
};

/* The next value of the row: s (NULL: null), copied. */
int recon_source_text(struct recon_feed *f, const char *s, struct err *e);
/* The next value of the row: v (below 0: null). */
int recon_source_count(struct recon_feed *f, long long v);
/* Stream a JSON Lines file through fn on the producer thread; blank lines
 * are skipped, as cohort freeze does. */
int recon_source_lines(struct recon_source *src, struct recon_feed *f, struct err *e,
    int (*fn)(struct recon_source *, struct recon_feed *, long, const char *, size_t,
        struct err *));
/* Load one input through a producer thread, in one transaction, and
 * register it. */
int recon_source_load(struct recon *r, const char *role, const char *path, cJSON *list,
    const char *sql, recon_produce_fn fn);

/* The inputs, each into its tables: freeze.c, ledger.c, requests.c, billing.c */

int recon_freeze_load(struct recon *r);
int recon_ledgers_load(struct recon *r);
int recon_requests_load(struct recon *r);
int recon_billing_load(struct recon *r);
/* A key given twice across the inputs of a table: an input error naming
 * both places.  Returns 0 when the unique index could be built. */
int recon_index_unique(struct recon *r, const char *table, const char *key);

/* checks.c */

/* "cohort reconcile: what" on stderr, when progress was asked for. */
void recon_progress(struct recon *r, const char *what);
/* Every check, each finding into the findings table. */
int recon_checks_run(struct recon *r);

/* report.c */

/* The report (the caller's), taking over r->inputs; NULL on failure. */
cJSON *recon_report_build(struct recon *r);

#endif
