/* ts.c: strict RFC 3339 parsing without the C library's time zone state
 * (TZ must never change a result). */
#include "ts.h"

#include <stdio.h>
#include <string.h>

static int
digits(const char *s, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
 * days_from_civil). */
static int64_t
days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int
ts_parse(const char *s, struct ts *out)
{
	return s == NULL ? -1 : ts_parse_n(s, strlen(s), out);
}

int
ts_parse_n(const char *s, size_t n, struct ts *out)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	static const unsigned char at[14] = { 0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18 };
	unsigned dig[14], bad = 0;
	int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;
	int32_t ns = 0;
	const char *p, *end = s + n;

	if (n < 20)
		return -1;
	/* "YYYY-MM-DDTHH:MM:SS": its fourteen digits checked at once, not a
	 * branch each (a million records have two times each) */
	for (int k = 0; k < 14; k++) {
		dig[k] = (unsigned)(unsigned char)s[at[k]] - '0';
		bad |= dig[k] > 9;
	}
	if (bad || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' ||
	    s[16] != ':')
		return -1;
	y = (int)(dig[0] * 1000 + dig[1] * 100 + dig[2] * 10 + dig[3]);
	mo = (int)(dig[4] * 10 + dig[5]);
	d = (int)(dig[6] * 10 + dig[7]);
	h = (int)(dig[8] * 10 + dig[9]);
	mi = (int)(dig[10] * 10 + dig[11]);
	sec = (int)(dig[12] * 10 + dig[13]);
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || sec > 60 ||
	    (sec == 60 && mi != 59))
		return -1;
	if (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return -1;
	p = s + 19;
	if (*p == '.') {
		int k = 0;
		p++;
		while (p < end && *p >= '0' && *p <= '9') {
			if (k < 9) {
				ns = ns * 10 + (*p - '0');
				k++;
			}
			p++;
		}
		if (k == 0)
			return -1;
		while (k++ < 9)
			ns *= 10;
	}
	if (p < end && (*p == 'Z' || *p == 'z')) {
		p++;
	} else if (p < end && (*p == '+' || *p == '-')) {
		sign = *p == '+' ? 1 : -1;
		if (end - p < 6 || digits(p + 1, 2, &oh) || p[3] != ':' || digits(p + 4, 2, &om) ||
		    oh > 23 || om > 59)
			return -1;
		p += 6;
	} else {
		return -1;
	}
	if (p != end)
		return -1;
	out->sec = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec -
	    sign * (oh * 3600 + om * 60);
	out->nsec = ns;
	return 0;
}

/* Year, month and day of a count of days since 1970-01-01 (Howard
 * Hinnant's civil_from_days). */
void
ts_date(struct ts t, char out[11])
{
	int64_t z = (t.sec >= 0 ? t.sec : t.sec - 86399) / 86400 + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	int d = (int)(doy - (153 * mp + 2) / 5 + 1), m = (int)(mp < 10 ? mp + 3 : mp - 9);
	int64_t y = yoe + era * 400 + (m <= 2);

	if (y < 0 || y > 9999)
		y = y < 0 ? 0 : 9999;
	snprintf(out, 11, "%04d-%02d-%02d", (int)y, m, d);
}

int
ts_cmp(struct ts a, struct ts b)
{
	if (a.sec != b.sec)
		return a.sec < b.sec ? -1 : 1;
	return a.nsec < b.nsec ? -1 : a.nsec > b.nsec;
}
