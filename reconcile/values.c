/* values.c: the values reconcile reads: RFC 3339 times, token counts,
 * decimal amounts, and the base names of input files. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "../common/ts.h"

static void
civil_from_days(long long z, long *y, int *m, int *d)
{
	z += 719468;
	long long era = (z >= 0 ? z : z - 146096) / 146097;
	long long doe = z - era * 146097;
	long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	long long mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (long)(yoe + era * 400 + (*m <= 2));
}

int
recon_time_parse(const char *s, long long *ns, char norm[RECON_TIME_MAX])
{
	struct ts t;
	const char *frac = s + 19;
	size_t nfrac = 0;
	long long days, rem;
	long y;
	int m, d;

	if (ts_parse(s, &t) < 0)
		return -1;
	/* Nanoseconds since the epoch fit in 64 bits from 1677 to 2262. */
	if (t.sec < -9223372035LL || t.sec > 9223372035LL)
		return -1;
	*ns = (long long)t.sec * 1000000000LL + t.nsec;
	days = t.sec >= 0 ? t.sec / 86400 : -((-t.sec + 86399) / 86400);
	rem = t.sec - days * 86400;
	civil_from_days(days, &y, &m, &d);
	if (*frac == '.')
		for (frac++; nfrac < 9 && frac[nfrac] >= '0' && frac[nfrac] <= '9'; nfrac++)
			;
	/* By hand: this runs for every request and billing row. */
	{
		char *o = norm;
		int v[6] = { (int)y, m, d, (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60) };
		static const char sep[6] = { '-', '-', 'T', ':', ':', 0 };
		for (int i = 0; i < 6; i++) {
			if (i == 0) {
				*o++ = (char)('0' + v[0] / 1000);
				*o++ = (char)('0' + v[0] / 100 % 10);
			}
			*o++ = (char)('0' + v[i] / 10 % 10);
			*o++ = (char)('0' + v[i] % 10);
			if (sep[i])
				*o++ = sep[i];
		}
		if (nfrac > 0) {
			*o++ = '.';
			memcpy(o, frac, nfrac);
			o += nfrac;
		}
		*o++ = 'Z';
		*o = '\0';
	}
	return 0;
}

int
recon_count_parse(const char *s, size_t n, long long *out)
{
	long long v = 0;

	if (n == 0 || n > 16)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v > MAX_COUNT)
		return -1;
	*out = v;
	return 0;
}

/* A decimal amount: -?digits(.digits)?  Returns 0, or -1. */
int
recon_amount_parse(const char *s, double *out)
{
	const char *p = s;

	if (*p == '-')
		p++;
	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p != '\0' || p - s > 40)
		return -1;
	*out = strtod(s, NULL);
	return 0;
}

const char *
recon_base_name(const char *path)
{
	const char *s;

	if (path == NULL || strcmp(path, "-") == 0)
		return "-";
	s = strrchr(path, '/');
	return s != NULL && s[1] != '\0' ? s + 1 : path;
}
