/* err.h: the one error type of cohort, and the exit contract.
 *
 * Library code never prints or exits: it fills a struct err and returns -1
 * (or NULL).  Only cmd/ turns an error into a message and an exit status.
 * Messages are lowercase, name what failed and where, no trailing period:
 *   ledger.jsonl:17: "result": expected win, draw or loss
 */
#ifndef COHORT_ERR_H
#define COHORT_ERR_H

#include <stddef.h>

/* Exit statuses of every command (also in every man page). */
enum {
	EXIT_HOLDS = 0,    /* everything holds */
	EXIT_FINDINGS = 1, /* a mismatch, discrepancy or refusal was found */
	EXIT_ERROR = 2     /* usage or input error */
};

enum err_code {
	ERR_OK = 0,
	ERR_USAGE,    /* bad command line */
	ERR_INPUT,    /* malformed or inconsistent input */
	ERR_IO,       /* a file could not be read or written */
	ERR_NOMEM,    /* allocation failed */
	ERR_NUMERIC,  /* a solver failed to converge */
	ERR_FINDING   /* the subject was read, and something does not hold */
};

struct err {
	enum err_code code;
	char msg[1024];
};

#define ERR_INIT { ERR_OK, { 0 } }

/* Set *e (if e is not NULL) and return -1, so callers can write
 * `return err_set(e, ERR_IO, "cannot open %s: %s", path, strerror(errno));` */
int err_set(struct err *e, enum err_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix the message already in e with "fmt: " (adds context on the way up). */
int err_prefix(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The exit status that matches an error code. */
int err_exit_status(const struct err *e);

#endif
