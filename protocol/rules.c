/* rules.c: the protocol's shared limits. */
#include "rules.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int
rules_penalty_check(double p, enum err_code code, const char *what, struct err *e)
{
	if (!(fabs(p) <= RULES_MAX_PENALTY))
		return err_set(e, code, "%s: expected a number from %g to %g", what,
		    -RULES_MAX_PENALTY, RULES_MAX_PENALTY);
	return 0;
}

int
rules_anchor_check(double a, enum err_code code, const char *what, struct err *e)
{
	if (!(fabs(a) <= RULES_MAX_ANCHOR))
		return err_set(e, code, "%s: expected a number from %g to %g", what,
		    -RULES_MAX_ANCHOR, RULES_MAX_ANCHOR);
	return 0;
}

int
rules_number(const char *text, double *out)
{
	char *end;

	if (text == NULL || *text == '\0' || strchr(" \t\n", *text))
		return -1;
	errno = 0;
	*out = strtod(text, &end);
	return errno == 0 && *end == '\0' && isfinite(*out) ? 0 : -1;
}

int
rules_level_check(double level, enum err_code code, const char *what, struct err *e)
{
	if (!(level >= RULES_LEVEL_MIN && level <= RULES_LEVEL_MAX))
		return err_set(e, code, "%s: expected a level from %g to %g", what, RULES_LEVEL_MIN,
		    RULES_LEVEL_MAX);
	return 0;
}

int
rules_level_parse(const char *text, const char *what, double *out, struct err *e)
{
	if (rules_number(text, out) < 0)
		return err_set(e, ERR_USAGE, "%s: expected a number, got '%.60s'", what, text);
	return rules_level_check(*out, ERR_USAGE, what, e);
}
