/* path.c: the ladder paths of a freeze: for each (family, condition), the
 * anchor of every block, its score and the rule that fired after it (the
 * spec's policy replayed with protocol/ladder.h, the code freeze uses),
 * the next anchor of an active condition, and the protocol deviations the
 * freeze records. */
#include "kinds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../json/json.h"
#include "../protocol/ladder.h"
#include "chart.h"
#include "read.h"

#define PATH_MAX_BLOCKS 256
#define PATH_MAX_FAMILIES 64

struct step {
	long long block;
	double anchor;
	long long w, d, l, games;
	enum ladder_rule rule; /* what the policy said after this block */
	int deviation;         /* the freeze lists a deviation at this block */
};

struct panel {
	const char *family, *condition, *state, *rule;
	double next;
	int has_next;
	struct step st[PATH_MAX_BLOCKS];
	size_t n;
	size_t style; /* the family's */
	int block_games; /* games in a full block (the spec's) */
	const cJSON *devs;
};

/* The marker of the rule that fired after a block. */
static int
rule_marker(enum ladder_rule r)
{
	switch (r) {
	case LADDER_PROMOTE: return CHART_MARK_TRIANGLE;
	case LADDER_REPEAT: return CHART_MARK_CIRCLE;
	case LADDER_STOP_BELOW: return CHART_MARK_TRIANGLE_DOWN;
	case LADDER_REPEATS_SPENT: return CHART_MARK_SQUARE;
	case LADDER_CEILING: return CHART_MARK_DIAMOND;
	default: return CHART_MARK_RING;
	}
}

static const char *
rule_words(enum ladder_rule r)
{
	switch (r) {
	case LADDER_PROMOTE: return "promote";
	case LADDER_REPEAT: return "repeat";
	case LADDER_STOP_BELOW: return "stop: score below stop_below";
	case LADDER_REPEATS_SPENT: return "stop: repeats exhausted";
	case LADDER_CEILING: return "stop: ceiling";
	default: return "unfinished block";
	}
}

/* The freeze's block list, read once (on the first panel, so that a
 * condition that does not read is named before a block that does not)
 * and ordered by (condition, family) and then list order: each panel
 * takes its own blocks, where every panel read the whole list (a cohort
 * of 7,000 conditions and 16,000 blocks took a minute). */
struct bentry {
	const char *fam, *cond;
	long long b, w, d, l, g;
	double anchor;
	size_t k; /* its place in the list */
};
struct blist {
	const cJSON *blocks;
	struct bentry *v;
	size_t n;
	int read; /* 1 read, -1 refused */
};

static int
bentry_cmp(const void *a, const void *b)
{
	const struct bentry *x = a, *y = b;
	int c = strcmp(x->cond, y->cond);

	if (c == 0)
		c = strcmp(x->fam, y->fam);
	return c ? c : (x->k > y->k) - (x->k < y->k);
}

static int
blist_read(const struct plot_doc *d, struct blist *bl, struct err *e)
{
	const cJSON *it;
	size_t k = 0;

	if (bl->read)
		return bl->read < 0 ? -1 : 0;
	bl->read = -1;
	if ((bl->v = malloc(((size_t)cJSON_GetArraySize(bl->blocks) + 1) * sizeof *bl->v)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	cJSON_ArrayForEach(it, bl->blocks) {
		struct bentry *x = &bl->v[k];
		char where[48];
		snprintf(where, sizeof where, "blocks[%zu]", k);
		if (plot_read_string(d, it, where, "family", 1, &x->fam, e) < 0 ||
		    plot_read_string(d, it, where, "condition", 0, &x->cond, e) < 0 ||
		    plot_read_count(d, it, where, "block", &x->b, e) < 0 ||
		    plot_read_number(d, it, where, "anchor", 0, &x->anchor, NULL, e) < 0 ||
		    plot_read_count(d, it, where, "w", &x->w, e) < 0 ||
		    plot_read_count(d, it, where, "d", &x->d, e) < 0 ||
		    plot_read_count(d, it, where, "l", &x->l, e) < 0 ||
		    plot_read_count(d, it, where, "games", &x->g, e) < 0)
			return -1;
		if (x->fam == NULL)
			x->fam = "";
		x->k = k++;
	}
	bl->n = k;
	qsort(bl->v, bl->n, sizeof *bl->v, bentry_cmp);
	bl->read = 1;
	return 0;
}

/* A condition's blocks from the freeze's block list (one entry per block
 * and colour, summed), in block order. */
static int
panel_blocks(const struct plot_doc *d, struct blist *bl, struct panel *p, struct err *e)
{
	size_t lo = 0, hi;
	struct bentry key = { p->family, p->condition, 0, 0, 0, 0, 0, 0, 0 };

	if (blist_read(d, bl, e) < 0)
		return -1;
	for (hi = bl->n; lo < hi;) { /* the first of the panel's, or past them */
		size_t mid = lo + (hi - lo) / 2;
		if (bentry_cmp(&bl->v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < bl->n && strcmp(bl->v[lo].cond, p->condition) == 0 &&
	       strcmp(bl->v[lo].fam, p->family) == 0; lo++) {
		const struct bentry *x = &bl->v[lo];
		size_t i;
		for (i = 0; i < p->n && p->st[i].block != x->b; i++)
			;
		if (i == p->n) {
			if (p->n == PATH_MAX_BLOCKS)
				return err_set(e, ERR_INPUT, "%s: blocks[%zu]: more than %d blocks in %s",
				    d->name, x->k, PATH_MAX_BLOCKS, p->condition);
			/* keep them in block order */
			for (i = p->n; i > 0 && p->st[i - 1].block > x->b; i--)
				p->st[i] = p->st[i - 1];
			memset(&p->st[i], 0, sizeof p->st[i]);
			p->st[i].block = x->b;
			p->st[i].anchor = x->anchor;
			p->n++;
		}
		p->st[i].w += x->w;
		p->st[i].d += x->d;
		p->st[i].l += x->l;
		p->st[i].games += x->g;
	}
	return 0;
}

/* The rule after each block: the policy replayed over the blocks up to it. */
static int
panel_rules(const struct plot_doc *d, const struct ladder_policy *pol, struct panel *p,
    struct err *e)
{
	struct ladder_block lb[PATH_MAX_BLOCKS];
	const cJSON *it;

	for (size_t i = 0; i < p->n; i++) {
		struct ladder_state s = LADDER_STATE_INIT;
		lb[i] = (struct ladder_block){ p->st[i].anchor, (int)p->st[i].w, (int)p->st[i].d,
			(int)p->st[i].l };
		if (ladder_replay(pol, lb, i + 1, &s, e) < 0)
			return err_prefix(e, "%s: %s %s", d->name, p->family, p->condition);
		p->st[i].rule = s.rule;
		ladder_state_release(&s);
	}
	cJSON_ArrayForEach(it, p->devs) {
		double b;
		if (plot_read_number(d, it, "deviation", "block", 0, &b, NULL, e) < 0)
			return -1;
		for (size_t i = 0; i < p->n; i++)
			if (b >= 1 && (size_t)b == i + 1)
				p->st[i].deviation = 1;
	}
	return 0;
}

/* Block i of a panel: its marker (the rule after it), its score above,
 * a ring where it deviated, its number (and games, if unfinished) below. */
static void
panel_block(struct svg *g, const struct panel *p, size_t i, const struct chart_area *a,
    double x, struct chart_style st)
{
	const struct step *s = &p->st[i];
	double y = chart_y(a, s->anchor), score = s->games ? (s->w + s->d / 2.0) / s->games : 0;
	char attrs[256], an[32], sc[32], label[64];

	svg_fixed(s->anchor, 2, an);
	svg_decimal(score, 2, sc);
	snprintf(attrs, sizeof attrs, "data-block=\"%lld\" data-anchor=\"%s\" data-rule=\"%s\"",
	    s->block, an, ladder_rule_name(s->rule));
	svg_put(g, "<g class=\"block%s\" %s>", s->deviation ? " deviation" : "", attrs);
	if (s->deviation)
		svg_put(g, "<circle class=\"deviation-mark\" cx=\"%v\" cy=\"%v\" r=\"7.5\" "
		    "fill=\"none\" stroke=\"#000000\" stroke-width=\"1.2\" "
		    "stroke-dasharray=\"2 1.5\"/>", x, y);
	chart_marker(g, rule_marker(s->rule), x, y, 3.5, st.colour, "mark", "");
	snprintf(label, sizeof label, "%s", s->games ? sc : "-");
	chart_text(g, x, y - 7, "middle", SVG_FONT, "score", NULL, label);
	svg_put(g, "</g>\n");
	if (s->games < p->block_games)
		snprintf(label, sizeof label, "%lld (%lld of %d)", s->block, s->games, p->block_games);
	else
		snprintf(label, sizeof label, "%lld", s->block);
	chart_text(g, x, a->y1 + 3 + SVG_FONT, "middle", SVG_FONT, "tick-label", NULL, label);
}

/* A line below the panel for each deviation the freeze records. */
static void
panel_deviations(struct chart *ch, const struct panel *p)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, p->devs) {
		const cJSON *b = json_get(it, "block"), *an = json_get(it, "anchor");
		const cJSON *ex = json_get(it, "expected"), *why = json_get(it, "why");
		char t[512], bn[32], a1[32], a2[32];
		svg_fixed(cJSON_IsNumber(b) ? b->valuedouble : 0, 0, bn);
		svg_fixed(cJSON_IsNumber(an) ? an->valuedouble : 0, 0, a1);
		if (cJSON_IsNumber(ex))
			svg_fixed(ex->valuedouble, 0, a2);
		else
			snprintf(a2, sizeof a2, "none (stopped)");
		snprintf(t, sizeof t, "Deviation at block %s: played %s, the policy chose %s%s%s", bn,
		    a1, a2, cJSON_IsString(why) ? ": " : "", cJSON_IsString(why) ? why->valuestring : "");
		chart_paragraph(ch, 14, SVG_WIDTH - 20, SVG_FONT, "deviation-note", t);
	}
}

/* The path: solid between played blocks, dashed to the next anchor. */
static void
panel_path(struct svg *g, const struct panel *p, const struct chart_area *a, const double *xs,
    struct chart_style st)
{
	svg_put(g, "<path class=\"ladder-line\" d=\"");
	for (size_t i = 0; i < p->n; i++)
		svg_put(g, "%s%v %v", i ? "L" : "M", xs[i], chart_y(a, p->st[i].anchor));
	svg_put(g, "\" stroke=\"%s\" stroke-width=\"1.2\" fill=\"none\"/>\n", st.colour);
	if (p->has_next)
		svg_put(g, "<path class=\"ladder-line\" d=\"M%v %vL%v %v\" stroke=\"%s\" "
		    "stroke-width=\"1.2\" stroke-dasharray=\"3 2\" fill=\"none\"/>\n", xs[p->n - 1],
		    chart_y(a, p->st[p->n - 1].anchor), xs[p->n], chart_y(a, p->next), st.colour);
}

/* The next anchor of an active condition: a hollow dashed ring. */
static void
panel_next(struct svg *g, const struct panel *p, const struct chart_area *a, const double *xs,
    struct chart_style st)
{
	double y = chart_y(a, p->next);
	char an[32];

	svg_fixed(p->next, 2, an);
	svg_put(g, "<g class=\"next\" data-anchor=\"%s\">", an);
	svg_put(g, "<circle cx=\"%v\" cy=\"%v\" r=\"3.5\" fill=\"#ffffff\" stroke=\"%s\" "
	    "stroke-width=\"1.2\" stroke-dasharray=\"2 1\"/>", xs[p->n], y, st.colour);
	chart_text(g, xs[p->n], y - 7, "middle", SVG_FONT, "score", NULL, "next");
	svg_put(g, "</g>\n");
}

static void
draw_panel(struct chart *ch, const struct panel *p)
{
	struct chart_area a = { 46, SVG_WIDTH - 14, 0, 0, 0, 0 };
	struct chart_style st = chart_style(p->style);
	struct svg *g = &ch->s;
	double lo = INFINITY, hi = -INFINITY, ticks[8], xs[PATH_MAX_BLOCKS + 1], band;
	size_t cols = p->n + (p->has_next ? 1 : 0);
	char head[512], num[32], fam[160], cond[160];
	int nt;

	svg_attr_escape(fam, sizeof fam, p->family);
	svg_attr_escape(cond, sizeof cond, p->condition);
	svg_fixed(p->next, 0, num);
	if (p->has_next)
		snprintf(head, sizeof head, "%s%s%s: %s (%s), next anchor %s", p->family,
		    p->family[0] ? " \xc2\xb7 " : "", p->condition, p->state, p->rule, num);
	else
		snprintf(head, sizeof head, "%s%s%s: %s (%s)", p->family,
		    p->family[0] ? " \xc2\xb7 " : "", p->condition, p->state, p->rule);
	svg_put(g, "<g class=\"ladder-panel\" data-family=\"%s\" data-condition=\"%s\" "
	    "data-state=\"%e\">\n", fam, cond, p->state);
	ch->y += 4;
	chart_paragraph(ch, 6, SVG_WIDTH - 12, SVG_FONT, "panel-title", head);
	if (p->n == 0) {
		chart_paragraph(ch, 14, SVG_WIDTH - 20, SVG_FONT, "note", "no block played");
		svg_put(g, "</g>\n");
		return;
	}
	for (size_t i = 0; i < p->n; i++) {
		lo = fmin(lo, p->st[i].anchor);
		hi = fmax(hi, p->st[i].anchor);
	}
	if (p->has_next) {
		lo = fmin(lo, p->next);
		hi = fmax(hi, p->next);
	}
	if (hi - lo < 200) { /* one anchor, or close ones: a few hundred Elo around them */
		lo = (lo + hi) / 2 - 100;
		hi = lo + 200;
	}
	chart_ticks(lo, hi, 3, &a.lo, &a.hi, ticks, &nt, 8);
	a.x0 = chart_yaxis_left(ticks, nt, chart_decimals(ticks[1] - ticks[0]));
	a.y0 = ch->y + 16; /* room for the scores above the top markers */
	a.y1 = a.y0 + 56;
	chart_yaxis(g, &a, ticks, nt, chart_decimals(ticks[1] - ticks[0]), "anchor");
	band = (a.x1 - a.x0) / (double)cols;
	for (size_t i = 0; i < cols; i++)
		xs[i] = a.x0 + band * ((double)i + 0.5);
	panel_path(g, p, &a, xs, st);
	for (size_t i = 0; i < p->n; i++)
		panel_block(g, p, i, &a, xs[i], st);
	if (p->has_next)
		panel_next(g, p, &a, xs, st);
	ch->y = a.y1 + 5 + SVG_FONT;
	chart_text(g, a.x0 - 3, ch->y, "end", SVG_FONT, "row-label", NULL, "block");
	ch->y += 2;
	panel_deviations(ch, p);
	svg_put(g, "</g>\n");
}

static int
read_panel(const struct plot_doc *d, const cJSON *it, const char *where, struct blist *blocks,
    const struct ladder_policy *pol, struct panel *p, struct err *e)
{
	const cJSON *lad = json_get(it, "ladder");

	memset(p, 0, sizeof *p);
	if (plot_read_string(d, it, where, "family", 1, &p->family, e) < 0 ||
	    plot_read_string(d, it, where, "condition", 0, &p->condition, e) < 0 ||
	    plot_read_string(d, it, where, "state", 0, &p->state, e) < 0 ||
	    plot_read_array(d, it, where, "deviations", &p->devs, e) < 0)
		return -1;
	if (!cJSON_IsObject(lad))
		return err_set(e, ERR_INPUT, "%s: %s \"ladder\": expected an object", d->name, where);
	if (plot_read_string(d, lad, where, "rule", 0, &p->rule, e) < 0 ||
	    plot_read_number(d, lad, where, "next", 1, &p->next, &p->has_next, e) < 0)
		return -1;
	if (p->family == NULL)
		p->family = "";
	return panel_blocks(d, blocks, p, e) < 0 ? -1 : panel_rules(d, pol, p, e);
}

/* The legend: the rules that fired, as marker shapes (p a panel to
 * read each condition into). */
static int
ladder_legend(struct chart *ch, const struct plot_doc *d, const cJSON *conds, struct blist *blocks,
    const struct ladder_policy *pol, struct panel *p, struct err *e)
{
	const cJSON *it;
	size_t k = 0, nk = 0;
	int used[8] = { 0 };
	struct chart_key keys[8];

	cJSON_ArrayForEach(it, conds) {
		char where[48];
		snprintf(where, sizeof where, "conditions[%zu]", k++);
		if (read_panel(d, it, where, blocks, pol, p, e) < 0)
			return -1;
		for (size_t i = 0; i < p->n; i++)
			used[p->st[i].rule < 8 ? p->st[i].rule : 0] = 1;
	}
	for (int r = LADDER_PROMOTE; r <= LADDER_UNFINISHED; r++)
		if (used[r]) {
			struct chart_style s = chart_style(CHART_SERIES_STYLES - 1); /* black */
			s.marker = rule_marker((enum ladder_rule)r);
			keys[nk++] = (struct chart_key){ rule_words((enum ladder_rule)r), s, 0 };
		}
	chart_legend(ch, keys, nk);
	return 0;
}

/* One panel per condition, styled by its family's order of appearance. */
static int
ladder_panels(struct chart *ch, const struct plot_doc *d, const cJSON *conds, struct blist *blocks,
    const struct ladder_policy *pol, struct panel *p, struct err *e)
{
	const cJSON *it;
	const char *fams[PATH_MAX_FAMILIES];
	size_t nf = 0, k = 0;

	cJSON_ArrayForEach(it, conds) {
		char where[48];
		size_t f;
		snprintf(where, sizeof where, "conditions[%zu]", k++);
		if (read_panel(d, it, where, blocks, pol, p, e) < 0)
			return -1;
		for (f = 0; f < nf && strcmp(fams[f], p->family) != 0; f++)
			;
		if (f == nf && nf < PATH_MAX_FAMILIES)
			fams[nf++] = p->family;
		p->style = f;
		p->block_games = pol->block_games;
		draw_panel(ch, p);
	}
	return 0;
}

int
plot_ladder(const struct plot_doc *d, const struct plot_opts *o, struct buf *out,
    struct err *e)
{
	const cJSON *spec = json_get(d->doc, "spec"), *conds, *blocks;
	const char *name = NULL;
	struct ladder_policy pol;
	struct panel *p = malloc(sizeof *p);
	struct blist bl = { NULL, NULL, 0, 0 };
	struct chart ch;
	char title[256];
	int rc = -1;

	if (p == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (plot_read_kind(d, "cohort.freeze/1", e) < 0 ||
	    plot_read_array(d, NULL, "", "conditions", &conds, e) < 0 ||
	    plot_read_array(d, NULL, "", "blocks", &blocks, e) < 0)
		goto done;
	if (!cJSON_IsObject(spec) || ladder_policy_read(json_get(spec, "ladder"), &pol, e) < 0) {
		if (cJSON_IsObject(spec))
			err_prefix(e, "%s: \"spec\" \"ladder\"", d->name);
		else
			err_set(e, ERR_INPUT, "%s: \"spec\": expected an object", d->name);
		goto done;
	}
	if (cJSON_IsObject(spec))
		plot_read_string(d, spec, "spec", "name", 1, &name, e);
	snprintf(title, sizeof title, "Ladder paths%s%s: the anchor and score of each block",
	    name ? " of " : "", name ? name : "");
	chart_begin(&ch, "ladder", title, o->inline_html);
	bl.blocks = blocks;
	if (ladder_legend(&ch, d, conds, &bl, &pol, p, e) < 0 ||
	    ladder_panels(&ch, d, conds, &bl, &pol, p, e) < 0)
		goto fail;
	ch.y += 4;
	chart_paragraph(&ch, 6, SVG_WIDTH - 12, SVG_FONT, "caption",
	    "Each marker is a block at its anchor (Elo of the Stockfish limiter), with its score "
	    "(wins and half the draws over games) above it; its shape is the rule the spec's ladder "
	    "applied after it. A dashed ring marks a protocol deviation, a hollow dashed marker "
	    "the next anchor of an active condition.");
	rc = chart_end(&ch, out);
	if (rc < 0)
		err_set(e, ERR_NOMEM, "out of memory");
fail:
	chart_release(&ch);
done:
	free(bl.v);
	free(p);
	return rc;
}
