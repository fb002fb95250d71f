/* ladder.c: the adaptive ladder policy and its replay over played blocks. */
#include "ladder.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../json/json.h"

int
ladder_policy_read(const cJSON *o, struct ladder_policy *p, struct err *e)
{
	const cJSON *rows, *row;
	long long bg, rep;
	double prev = INFINITY;

	memset(p, 0, sizeof *p);
	if (!cJSON_IsObject(o))
		return err_set(e, ERR_INPUT, "\"ladder\": expected an object");
	if (json_get_int(o, "block_games", 1, 1, 1000000, &bg, e) < 0 ||
	    json_get_number(o, "start", 1, &p->start, e) < 0 ||
	    json_get_number(o, "max", 1, &p->max, e) < 0 ||
	    json_get_number(o, "stop_below", 1, &p->stop_below, e) < 0 ||
	    json_get_int(o, "max_repeats", 1, 0, 1000, &rep, e) < 0 ||
	    json_get_array(o, "promote", 1, &rows, e) < 0)
		return err_prefix(e, "\"ladder\"");
	p->block_games = (int)bg;
	p->max_repeats = (int)rep;
	if (p->max < p->start)
		return err_set(e, ERR_INPUT, "\"ladder\": \"max\" is below \"start\"");
	if (p->stop_below < 0 || p->stop_below > 1)
		return err_set(e, ERR_INPUT, "\"ladder\": \"stop_below\": expected a score from 0 to 1");
	cJSON_ArrayForEach(row, rows) {
		const cJSON *a = cJSON_GetArrayItem(row, 0), *b = cJSON_GetArrayItem(row, 1);
		if (!cJSON_IsArray(row) || cJSON_GetArraySize(row) != 2 || !cJSON_IsNumber(a) ||
		    !cJSON_IsNumber(b))
			return err_set(e, ERR_INPUT,
			    "\"ladder\": \"promote\": expected [threshold, step] pairs");
		if (p->npromote == LADDER_MAX_PROMOTE)
			return err_set(e, ERR_INPUT, "\"ladder\": \"promote\": more than %d rows",
			    LADDER_MAX_PROMOTE);
		if (a->valuedouble < 0 || a->valuedouble > 1 || b->valuedouble <= 0)
			return err_set(e, ERR_INPUT, "\"ladder\": \"promote\": threshold must be in "
			    "[0, 1] and step positive");
		if (a->valuedouble >= prev)
			return err_set(e, ERR_INPUT, "\"ladder\": \"promote\": thresholds must "
			    "decrease");
		if (a->valuedouble < p->stop_below)
			return err_set(e, ERR_INPUT, "\"ladder\": \"promote\": threshold below "
			    "\"stop_below\"");
		prev = a->valuedouble;
		p->promote_at[p->npromote] = a->valuedouble;
		p->promote_by[p->npromote] = b->valuedouble;
		p->npromote++;
	}
	return 0;
}

double
ladder_score(const struct ladder_block *b)
{
	int n = b->w + b->d + b->l;

	return n > 0 ? (b->w + 0.5 * b->d) / n : NAN;
}

enum ladder_rule
ladder_step(const struct ladder_policy *p, double anchor, double s, int repeats_here, double *next)
{
	*next = anchor;
	/* Compare in whole games so 0.65 thresholds are not lost to rounding:
	 * a score is k/(2n) half-points, thresholds are exact to 1e-9. */
	for (size_t i = 0; i < p->npromote; i++)
		if (s >= p->promote_at[i] - 1e-9) {
			if (anchor >= p->max)
				return LADDER_CEILING;
			*next = fmin(anchor + p->promote_by[i], p->max);
			return LADDER_PROMOTE;
		}
	if (s < p->stop_below - 1e-9)
		return LADDER_STOP_BELOW;
	if (repeats_here < p->max_repeats)
		return LADDER_REPEAT;
	return LADDER_REPEATS_SPENT;
}

static int
add_dev(struct ladder_state *s, size_t block, double anchor, double expected, const char *why,
    struct err *e)
{
	struct ladder_deviation *d = realloc(s->dev, (s->ndev + 1) * sizeof *d);

	if (d == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	s->dev = d;
	d[s->ndev].block = block;
	d[s->ndev].anchor = anchor;
	d[s->ndev].expected = expected;
	d[s->ndev].why = why;
	s->ndev++;
	return 0;
}

int
ladder_replay(const struct ladder_policy *p, const struct ladder_block *b, size_t n,
    struct ladder_state *s, struct err *e)
{
	double expected = p->start, here = NAN;
	int repeats = 0, stopped = 0, unfinished = 0;

	ladder_state_release(s);
	s->rule = LADDER_START;
	s->next = p->start;
	s->score = NAN;
	for (size_t i = 0; i < n; i++) {
		int games = b[i].w + b[i].d + b[i].l;
		double next;

		if (stopped) {
			if (add_dev(s, i + 1, b[i].anchor, NAN, "block played after the ladder stopped", e) < 0)
				return -1;
		} else if (unfinished) {
			if (add_dev(s, i + 1, b[i].anchor, expected,
			    "block played after an unfinished block", e) < 0)
				return -1;
		} else if (b[i].anchor != expected) {
			if (add_dev(s, i + 1, b[i].anchor, expected,
			    "block played at an anchor the policy did not choose", e) < 0)
				return -1;
		}
		if (games > p->block_games &&
		    add_dev(s, i + 1, b[i].anchor, b[i].anchor,
		        "block has more games than the ladder's block_games", e) < 0)
			return -1;
		/* Repeats count per anchor, from the anchor actually played. */
		if (b[i].anchor != here) {
			here = b[i].anchor;
			repeats = 0;
		} else if (!unfinished) {
			repeats++;
		}
		s->score = ladder_score(&b[i]);
		if (games < p->block_games) {
			unfinished = 1;
			stopped = 0;
			s->rule = LADDER_UNFINISHED;
			s->next = expected = b[i].anchor;
			continue;
		}
		unfinished = 0;
		s->rule = ladder_step(p, b[i].anchor, s->score, repeats, &next);
		stopped = s->rule == LADDER_STOP_BELOW || s->rule == LADDER_REPEATS_SPENT ||
		    s->rule == LADDER_CEILING;
		s->next = expected = next;
	}
	s->stopped = stopped;
	return 0;
}

void
ladder_state_release(struct ladder_state *s)
{
	free(s->dev);
	s->dev = NULL;
	s->ndev = 0;
}

const char *
ladder_rule_name(enum ladder_rule r)
{
	switch (r) {
	case LADDER_START: return "start";
	case LADDER_PROMOTE: return "promote";
	case LADDER_REPEAT: return "repeat";
	case LADDER_STOP_BELOW: return "stop_below";
	case LADDER_REPEATS_SPENT: return "repeats_exhausted";
	case LADDER_CEILING: return "ceiling";
	case LADDER_UNFINISHED: return "unfinished";
	}
	return "unknown";
}
