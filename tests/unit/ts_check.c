/* ts_check.c: RFC 3339 times (common/ts.c) against the C library's timegm,
 * an independent count of days, and refusals; ts_parse_n on bytes that do
 * not end where the time does. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../../common/ts.h"

static int bad;

static void
expect(const char *s, size_t n, int ok, long long sec, int nsec)
{
	struct ts t = { -1, -1 };
	int rc = ts_parse_n(s, n, &t);

	if ((rc == 0) != ok || (ok && (t.sec != sec || t.nsec != nsec))) {
		fprintf(stderr, "ts_check: \"%.*s\": got %d %lld.%09d, want %s %lld.%09d\n", (int)n, s,
		    rc, (long long)t.sec, (int)t.nsec, ok ? "ok" : "refused", sec, nsec);
		bad++;
	}
	/* the NUL-terminated way must agree when s[n] ends it */
	if (s[n] == '\0' && (ts_parse(s, &t) == 0) != ok) {
		fprintf(stderr, "ts_check: ts_parse(\"%s\") disagrees\n", s);
		bad++;
	}
}

static long long
utc(int y, int mo, int d, int h, int mi, int s)
{
	struct tm tm = { 0 };

	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = s;
	return (long long)timegm(&tm);
}

int
main(void)
{
	static const char *const refused[] = { "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
		"2100-02-29T00:00:00Z", "2026-06-31T00:00:00Z", "2026-06-01T24:00:00Z",
		"2026-06-01T00:60:00Z", "2026-06-01T00:00:61Z", "2026-06-01 00:00:00Z",
		"2026-06-01T00:00:00", "2026-06-01T00:00:00.Z", "2026-06-01T00:00:00+0100",
		"2026-06-01T00:00:00+24:00", "2026-06-01T00:00:00Zx", "2026-6-01T00:00:00Z",
		"20260601T000000Z", "" };
	const char *s;

	/* every day of four years, one of them a leap year, and a leap day in 2000 */
	for (int y = 2023; y <= 2026; y++)
		for (int mo = 1; mo <= 12; mo++)
			for (int d = 1; d <= 31; d++) {
				char b[64];
				long long want = utc(y, mo, d, 13, 7, 59);
				struct tm back;
				time_t tt = (time_t)want;
				gmtime_r(&tt, &back);
				int real = back.tm_mday == d; /* timegm rolls 2026-02-30 over */
				snprintf(b, sizeof b, "%04d-%02d-%02dT13:07:59Z", y, mo, d);
				expect(b, strlen(b), real, want, 0);
			}
	expect("2000-02-29T00:00:00Z", 20, 1, utc(2000, 2, 29, 0, 0, 0), 0);
	expect("1969-12-31T23:59:59Z", 20, 1, -1, 0);
	expect("2026-06-01T00:00:00.5Z", 22, 1, utc(2026, 6, 1, 0, 0, 0), 500000000);
	expect("2026-06-01T00:00:00.123456789999Z", 33, 1, utc(2026, 6, 1, 0, 0, 0), 123456789);
	expect("2026-06-01T02:30:00+02:30", 25, 1, utc(2026, 6, 1, 0, 0, 0), 0);
	expect("2026-06-01T00:00:00-01:00", 25, 1, utc(2026, 6, 1, 1, 0, 0), 0);
	expect("2026-06-01t00:00:00z", 20, 1, utc(2026, 6, 1, 0, 0, 0), 0);
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
		expect(refused[i], strlen(refused[i]), 0, 0, 0);
	/* bytes past n are not the time's: a record's quote, the next field */
	s = "2026-06-01T00:00:00Z\",\"ended_at\"";
	expect(s, 20, 1, utc(2026, 6, 1, 0, 0, 0), 0);
	expect(s, 19, 0, 0, 0);
	expect(s, 21, 0, 0, 0);
	s = "2026-06-01T00:00:00.25Z9";
	expect(s, 22, 0, 0, 0); /* cut inside: no zone */
	expect(s, 23, 1, utc(2026, 6, 1, 0, 0, 0), 250000000);
	s = "2026-06-01T00:00:00+01:00Z";
	expect(s, 24, 0, 0, 0); /* an offset cut short */
	/* a leap second: the next minute's first second, only at :59 */
	expect("2016-12-31T23:59:60Z", 20, 1, utc(2017, 1, 1, 0, 0, 0), 0);
	expect("2016-12-31T23:58:60Z", 20, 0, 0, 0);
	/* ts_date against gmtime_r, a day at a time over 1900..2200 */
	for (long long sec = -2208988800LL; sec < 7258118400LL; sec += 86400 + 3607) {
		struct tm u;
		time_t tt = (time_t)sec;
		char want[32], got[11];
		gmtime_r(&tt, &u);
		snprintf(want, sizeof want, "%04d-%02d-%02d", u.tm_year + 1900, u.tm_mon + 1, u.tm_mday);
		ts_date((struct ts){ sec, 0 }, got);
		if (strcmp(want, got) != 0) {
			fprintf(stderr, "ts_check: ts_date(%lld) = %s, gmtime_r says %s\n", sec, got, want);
			bad++;
			break;
		}
	}
	if (bad > 0)
		return 1;
	printf("ts_check: all times agree\n");
	return 0;
}
