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

/* Parse "YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)"; -1 if malformed. */
int ts_parse(const char *s, struct ts *out);
/* The same for s[0..n), which need not end with a NUL. */
int ts_parse_n(const char *s, size_t n, struct ts *out);
/* <0, 0, >0 as a is before, at, after b. */
int ts_cmp(struct ts a, struct ts b);

#endif
