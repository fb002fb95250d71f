/* reconcile.h: reconciling a cohort freeze against game ledgers, request
 * logs and billing exports (cohort.reconcile/1).
 *
 * recon_run streams every input into one SQLite database (a private
 * temporary one, or the file named by --db), runs the checks as SQL and
 * returns a new report tree the caller owns (cJSON_Delete).  The database
 * schema and every check are documented in docs/reconcile-db.md.
 * Ownership: nothing in recon_opts is taken over; strings are borrowed.
 */
#ifndef COHORT_RECONCILE_H
#define COHORT_RECONCILE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../common/buf.h"
#include "../common/err.h"

struct recon_opts {
	const char *freeze;        /* cohort.freeze/1 document ("-": stdin) */
	const char **ledgers;      /* game ledgers, JSON Lines */
	size_t nledgers;
	const char **requests;     /* request logs, JSON Lines */
	size_t nrequests;
	const char **billing;      /* billing exports, CSV or JSON Lines */
	size_t nbilling;
	const char *billing_map;   /* JSON object: our column -> provider's, or NULL */
	double tolerance;          /* relative tolerance on billed tokens, >= 0 */
	const char *db;            /* keep the database in this file, or NULL */
	/* called with each stage's name ("loading billing") as it starts,
	 * when set (progress on a terminal) */
	void (*progress)(void *ctx, const char *stage);
	void *progress_ctx;
};

#define RECON_INIT { NULL, NULL, 0, NULL, 0, NULL, 0, NULL, 0.0, NULL, NULL, NULL }

/* Reconcile.  Returns 0 when everything reconciles, 1 when there are
 * findings (all of them are in the report), -1 with e set when an input
 * cannot be read (then *report is NULL and no --db file is left). */
int recon_run(const struct recon_opts *o, cJSON **report, struct err *e);

/* Append the human efficiency table of a report to out. */
int recon_table(const cJSON *report, struct buf *out, struct err *e);

/* Room for a normalized time: "YYYY-MM-DDTHH:MM:SS" + fraction + "Z". */
#define RECON_TIME_MAX 48

/* Parse an RFC 3339 date-time as common/ts.h does (a "Z" or +HH:MM/-HH:MM
 * offset, fraction digits beyond nine ignored) and store the nanoseconds
 * since the epoch and the same instant as UTC text ending in "Z" with the
 * first nine fraction digits as given.  Returns 0, or -1 when s is not such
 * a time or lies outside 1677-2262 (the range of 64-bit nanoseconds). */
int recon_time_parse(const char *s, long long *ns, char norm[RECON_TIME_MAX]);

/* Parse a token count: ASCII digits only (no sign, separator, decimal
 * point or exponent), at most 2^53 - 1.  Returns 0, or -1. */
int recon_count_parse(const char *s, size_t n, long long *out);

#endif
