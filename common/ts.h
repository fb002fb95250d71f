/* ts.h: RFC 3339 timestamps. */
#ifndef COHORT_TS_H
#define COHORT_TS_H

#include <stddef.h>
#include <stdint.h>

/* An instant: seconds since 1970-01-01T00:00:00Z and nanoseconds. */
struct ts {
	int64_t sec;
	int32_t nsec;
};

/* Parse an RFC 3339 date-time, "YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)",
 * the one reader of time stamps in cohort: "T" and "Z" may be lower case
 * (RFC 3339 5.6), the fraction has any number of digits (nanoseconds kept),
 * and a leap second (:60, only in a minute's 59th) reads as the next
 * minute's first second, as POSIX time does.  -1 if malformed. */
int ts_parse(const char *s, struct ts *out);
/* The same for s[0..n), which need not end with a NUL. */
int ts_parse_n(const char *s, size_t n, struct ts *out);
/* The UTC date of t as "YYYY-MM-DD" (years 0000 to 9999). */
void ts_date(struct ts t, char out[11]);
/* <0, 0, >0 as a is before, at, after b. */
int ts_cmp(struct ts a, struct ts b);

#endif
