/* plot.c: the kinds of figure, and the one entry point that draws them. */
#include "plot.h"

#include <string.h>

#include "kinds.h"

static const struct {
	const char *name;  /* the command line's KIND */
	const char *input; /* the document kind it reads */
	int many;          /* it overlays several documents */
} kinds[] = {
	[PLOT_CURVE] = { "curve", "cohort.fit/1", 1 },
	[PLOT_LADDER] = { "ladder", "cohort.freeze/1", 0 },
	[PLOT_SENSITIVITY] = { "sensitivity", "cohort.fit/1", 0 },
	[PLOT_PAIRED] = { "paired", "cohort.paired/1", 0 },
	[PLOT_DISTANCE] = { "distance", "cohort.distance/1", 0 },
};

int
plot_kind_parse(const char *s, enum plot_kind *k)
{
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(s, kinds[i].name) == 0) {
			*k = (enum plot_kind)i;
			return 0;
		}
	return -1;
}

const char *
plot_kind_name(enum plot_kind k)
{
	return kinds[k].name;
}

const char *
plot_kind_input(enum plot_kind k)
{
	return kinds[k].input;
}

int
plot_kind_many(enum plot_kind k)
{
	return kinds[k].many;
}

int
plot_width(const char *condition)
{
	int k = 0;

	if (strcmp(condition, "none") == 0)
		return 0;
	if (strncmp(condition, "top", 3) != 0 || condition[3] < '1' || condition[3] > '9')
		return -1;
	for (const char *p = condition + 3; *p; p++) {
		if (*p < '0' || *p > '9' || p - condition >= 6)
			return -1;
		k = k * 10 + (*p - '0');
	}
	return k;
}

int
plot_svg(enum plot_kind k, const struct plot_doc *docs, size_t n, const struct plot_opts *o,
    struct buf *out, struct err *e)
{
	if (n == 0)
		return err_set(e, ERR_USAGE, "no document to draw");
	if (n > 1 && !kinds[k].many)
		return err_set(e, ERR_USAGE, "plot %s draws one document, got %zu", kinds[k].name, n);
	switch (k) {
	case PLOT_CURVE:
		return plot_curve(docs, n, o, out, e);
	case PLOT_LADDER:
		return plot_ladder(docs, o, out, e);
	case PLOT_SENSITIVITY:
		return plot_sensitivity(docs, o, out, e);
	case PLOT_PAIRED:
		return plot_paired(docs, o, out, e);
	case PLOT_DISTANCE:
		return plot_distance(docs, o, out, e);
	}
	return err_set(e, ERR_USAGE, "unknown plot kind");
}
