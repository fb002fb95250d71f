/* rules.c: the protocol's shared limits. */
#include "rules.h"

#include <math.h>

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
