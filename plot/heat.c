/* heat.c: the distance heat map (cohort.distance/1). */
#include "kinds.h"

int
plot_distance(const struct plot_doc *d, const struct plot_opts *o, struct buf *out,
    struct err *e)
{
	(void)o;
	(void)out;
	return err_set(e, ERR_INPUT, "%s: plot distance is not written yet", d->name);
}
