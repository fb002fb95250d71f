/* tuple.c: the protocol tuple of each (family, condition) of a freeze:
 * what the spec's "protocol" object says, beside what the ledger records
 * of the games it includes (read from the bundled store by identity). */
#include "tuple.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/hash.h"
#include "../json/json.h"
#include "../json/rec.h"
#include "../plot/plot.h"
#include "../store/cas.h"
#include "page.h"

#define SET_MAX 64
#define SET_SHOWN 6

/* Distinct values in the order met, with how often each came. */
struct set {
	char *v[SET_MAX];
	long count[SET_MAX];
	size_t n;
	long others; /* values past SET_MAX */
};

struct unit {
	const char *family, *condition;
	struct set model, engine, openings, colours, terminations;
	char first[40], last[40]; /* started_at of the first game, ended_at of the last */
	long games;
};

static void
set_add(struct set *s, const char *v)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], v) == 0) {
			s->count[i]++;
			return;
		}
	if (s->n == SET_MAX || (s->v[s->n] = strdup(v)) == NULL) {
		s->others++;
		return;
	}
	s->count[s->n++] = 1;
}

static void
set_release(struct set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	s->n = 0;
}

/* "a (3), b (7) and 4 more": counts only where there is more than one value */
static void
set_print(struct svg *s, const struct set *x)
{
	if (x->n == 0) {
		svg_put(s, "\xe2\x80\x94");
		return;
	}
	for (size_t i = 0; i < x->n && i < SET_SHOWN; i++) {
		svg_put(s, "%s%e", i ? "; " : "", x->v[i]);
		if (x->n > 1) {
			char c[32];
			snprintf(c, sizeof c, " (%ld)", x->count[i]);
			svg_put(s, "%s", c);
		}
	}
	if (x->n > SET_SHOWN || x->others) {
		char c[64];
		snprintf(c, sizeof c, " and %ld more", (long)(x->n > SET_SHOWN ? x->n - SET_SHOWN : 0) +
		    x->others);
		svg_put(s, "%s", c);
	}
}

static const char *
str(const cJSON *o, const char *k)
{
	const cJSON *v = json_get(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The fields of a stored game record a unit counts (NULL: absent or not
 * a string), read from its tree or flat (rec_fields). */
struct recf {
	const char *req, *ret, *engine, *limiter, *bin, *opening, *color, *term, *st, *en;
	int have_t, have_n; /* anchor.time_s, anchor.nodes are numbers */
	double t, n;
};

static void
tree_fields(const cJSON *r, struct recf *f)
{
	const cJSON *m = json_get(r, "model"), *a = json_get(r, "anchor");
	const cJSON *t = json_get(a, "time_s"), *n = json_get(a, "nodes");

	*f = (struct recf){ str(m, "requested"), str(m, "returned"), str(a, "engine"),
		str(a, "limiter"), str(a, "binary_sha256"), str(r, "opening"), str(r, "color"),
		str(r, "termination"), str(r, "started_at"), str(r, "ended_at"), cJSON_IsNumber(t),
		cJSON_IsNumber(n), cJSON_IsNumber(t) ? t->valuedouble : 0,
		cJSON_IsNumber(n) ? n->valuedouble : 0 };
}

/* The flat reader's way (json/rec.h), for a record rec_check finds
 * canonical: what the tree would give, or 1 for the tree's way (a string
 * with escapes, or longer than the room kept for it). */
#define RECF_ROOM 256
struct recf_room {
	char v[10][RECF_ROOM];
};

static int
flat_str(const struct rec_scan *s, int obj, const char *key, char *room, const char **out)
{
	int tok = obj >= 0 && rec_type(s, obj) == REC_OBJECT ? rec_member(s, obj, key) : -1;
	const char *p;
	size_t len;

	*out = NULL;
	if (tok < 0 || rec_type(s, tok) != REC_STRING)
		return tok >= 0 && rec_type(s, tok) == REC_XSTRING;
	p = rec_str(s, tok, &len);
	if (len >= RECF_ROOM)
		return 1;
	memcpy(room, p, len);
	room[len] = '\0';
	*out = room;
	return 0;
}

static int
flat_num(const struct rec_scan *s, int obj, const char *key, int *have, double *x)
{
	int tok = obj >= 0 && rec_type(s, obj) == REC_OBJECT ? rec_member(s, obj, key) : -1;

	*have = tok >= 0 && rec_type(s, tok) == REC_NUMBER;
	*x = 0;
	return *have && rec_num(s, tok, x) < 0;
}

static int
rec_fields(const struct rec_scan *s, struct recf *f, struct recf_room *room)
{
	int m = rec_member(s, 0, "model"), a = rec_member(s, 0, "anchor");

	return flat_str(s, m, "requested", room->v[0], &f->req) ||
	    flat_str(s, m, "returned", room->v[1], &f->ret) ||
	    flat_str(s, a, "engine", room->v[2], &f->engine) ||
	    flat_str(s, a, "limiter", room->v[3], &f->limiter) ||
	    flat_str(s, a, "binary_sha256", room->v[4], &f->bin) ||
	    flat_str(s, 0, "opening", room->v[5], &f->opening) ||
	    flat_str(s, 0, "color", room->v[6], &f->color) ||
	    flat_str(s, 0, "termination", room->v[7], &f->term) ||
	    flat_str(s, 0, "started_at", room->v[8], &f->st) ||
	    flat_str(s, 0, "ended_at", room->v[9], &f->en) ||
	    flat_num(s, a, "time_s", &f->have_t, &f->t) || flat_num(s, a, "nodes", &f->have_n, &f->n);
}

/* One stored game record into its unit. */
static void
unit_add(struct unit *u, const struct recf *f)
{
	char b[512], lim[128];
	char num[32];

	snprintf(b, sizeof b, "requested %s, returned %s", f->req ? f->req : "?",
	    f->ret ? f->ret : "?");
	set_add(&u->model, b);
	lim[0] = '\0';
	if (f->have_t) {
		canon_number(f->t, num);
		snprintf(lim, sizeof lim, ", %s s per move", num);
	} else if (f->have_n) {
		canon_number(f->n, num);
		snprintf(lim, sizeof lim, ", %s nodes per move", num);
	}
	snprintf(b, sizeof b, "%s, %s%s, binary %s", f->engine ? f->engine : "?",
	    f->limiter ? f->limiter : "no limiter named", lim, f->bin ? f->bin : "not recorded");
	set_add(&u->engine, b);
	set_add(&u->openings, f->opening ? f->opening : "?");
	set_add(&u->colours, f->color ? f->color : "?");
	set_add(&u->terminations, f->term ? f->term : "?");
	/* RFC 3339 UTC stamps of one form compare as text */
	if (f->st && (u->first[0] == '\0' || strcmp(f->st, u->first) < 0))
		snprintf(u->first, sizeof u->first, "%s", f->st);
	if (f->en && strcmp(f->en, u->last) > 0)
		snprintf(u->last, sizeof u->last, "%s", f->en);
	u->games++;
}

/* A stored record into its unit: read flat when it is canonical (the
 * common case: a million records are a million trees otherwise), by the
 * strict tree reader else.  0, or -1 when it does not read. */
static int
record_add(struct unit *u, struct rec_scan *rs, struct recf_room *room, const char *p, size_t len)
{
	struct err ig = ERR_INIT;
	struct recf f;
	cJSON *rec;

	if (rs != NULL && rec_check(rs, p, len) == REC_OK && rec_fields(rs, &f, room) == 0) {
		unit_add(u, &f);
		return 0;
	}
	if ((rec = json_parse(p, len, "record", 1, &ig)) == NULL)
		return -1;
	tree_fields(rec, &f);
	unit_add(u, &f);
	cJSON_Delete(rec);
	return 0;
}

static struct unit *
unit_of(struct unit *us, size_t *n, size_t max, const char *fam, const char *cond)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(us[i].family, fam) == 0 && strcmp(us[i].condition, cond) == 0)
			return &us[i];
	if (*n == max)
		return NULL;
	memset(&us[*n], 0, sizeof us[0]);
	us[*n].family = fam;
	us[*n].condition = cond;
	return &us[(*n)++];
}

/* A row of the tuple: the spec's words, then what the ledger (or the
 * freeze) says for each condition, once when every condition says the
 * same, else condition by condition.  cell[i] is unit i's text (markup). */
static void
row(struct svg *s, const char *field, const char *spec_words, const struct unit *us, size_t n,
    struct buf *cell)
{
	int same = 1;

	for (size_t i = 1; i < n; i++)
		same &= cell[i].len == cell[0].len &&
		    (cell[0].len == 0 || memcmp(cell[i].p, cell[0].p, cell[0].len) == 0);
	svg_put(s, "<tr><th>%e</th><td>%e</td><td>", field,
	    spec_words ? spec_words : "\xe2\x80\x94");
	if (n == 0)
		svg_put(s, "\xe2\x80\x94");
	else if (same && n > 1)
		svg_put(s, "%s <i>(every condition)</i>", cell[0].p ? cell[0].p : "");
	else
		for (size_t i = 0; i < n; i++)
			svg_put(s, "%s<b>%e%s%e</b>: %s", i ? "<br>\n" : "", us[i].family,
			    us[i].family[0] ? " " : "", us[i].condition, cell[i].p ? cell[i].p : "");
	svg_put(s, "</td></tr>\n");
	for (size_t i = 0; i < n; i++)
		buf_reset(&cell[i]);
}

/* Each unit's cell: the set at offset off of struct unit. */
static void
cells_of_set(const struct unit *us, size_t n, size_t off, struct buf *cell)
{
	for (size_t i = 0; i < n; i++) {
		struct svg c = { &cell[i], 0 };
		set_print(&c, (const struct set *)((const char *)&us[i] + off));
	}
}

/* The units of a freeze, with the ledger fields of its included games. */
struct tuple {
	struct unit *us;
	size_t n, max;
	long unread;      /* included games the store could not give */
	struct buf *cell; /* each unit's cell of the row being written */
};

static void
tuple_release(struct tuple *t)
{
	for (size_t i = 0; i < t->n; i++) {
		set_release(&t->us[i].model);
		set_release(&t->us[i].engine);
		set_release(&t->us[i].openings);
		set_release(&t->us[i].colours);
		set_release(&t->us[i].terminations);
		buf_release(&t->cell[i]);
	}
	free(t->us);
	free(t->cell);
}

/* Game k of the freeze's included games (the flat ones when games is
 * not NULL, else the tree's it): its family, condition and identity. */
struct game_ref {
	const char *f, *c;
	int has_id;
	uint8_t d[HASH_LEN];
};

static void
game_ref(const struct freeze_games *games, size_t k, const cJSON *it, struct game_ref *g)
{
	if (games != NULL) {
		g->f = freeze_game_str(games, k, "family");
		g->c = freeze_game_str(games, k, "condition");
		if ((g->has_id = games->g[k].has_id))
			memcpy(g->d, games->g[k].id, HASH_LEN);
		return;
	}
	g->f = str(it, "family");
	g->c = str(it, "condition");
	g->has_id = str(it, "id") != NULL && hash_id_parse(str(it, "id"), g->d) == 0;
}

/* One unit per (family, condition) of the freeze, in its order; each
 * included game's stored record added to its unit. */
static int
tuple_collect(struct tuple *t, const cJSON *freeze, const struct freeze_games *games,
    const char *store_dir, struct err *e)
{
	const cJSON *conds = json_get(freeze, "conditions"), *it;
	struct cas *store = NULL;
	struct err ig = ERR_INIT;
	struct rec_scan *rs;
	struct recf_room *room;

	t->max = (size_t)cJSON_GetArraySize(conds);
	t->us = calloc(t->max + 1, sizeof *t->us);
	t->cell = calloc(t->max + 1, sizeof *t->cell);
	if (t->us == NULL || t->cell == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	cJSON_ArrayForEach(it, conds) {
		const char *f = str(it, "family"), *c = str(it, "condition");
		if (c)
			unit_of(t->us, &t->n, t->max, f ? f : "", c);
	}
	if (store_dir == NULL || cas_open(store_dir, 0, &store, &ig) < 0)
		store = NULL;
	rs = rec_scan_new(); /* NULL: every record the tree's way */
	room = malloc(sizeof *room);
	it = games == NULL ? json_get(freeze, "games") : NULL;
	it = it != NULL ? it->child : NULL;
	for (size_t k = 0; games != NULL ? k < games->n : it != NULL; k++) {
		struct game_ref g;
		struct unit *u;
		const char *p;
		size_t len;
		game_ref(games, k, it, &g);
		u = g.c ? unit_of(t->us, &t->n, t->max, g.f ? g.f : "", g.c) : NULL;
		if (u == NULL || store == NULL || !g.has_id || cas_get(store, g.d, &p, &len, &ig) != 0 ||
		    record_add(u, room != NULL ? rs : NULL, room, p, len) < 0)
			t->unread++;
		it = it != NULL ? it->next : NULL;
	}
	rec_scan_free(rs);
	free(room);
	cas_free(store);
	return 0;
}

/* "the fit: davidson-joint/1; Black penalty 35 Elo, assumed; 95% ..." */
static void
estimator_words(const cJSON *proto, const cJSON *fit, char *est, size_t n)
{
	const cJSON *bp = json_get(fit, "black_penalty");
	const cJSON *lv = json_get(json_get(fit, "options"), "level");
	char v[32] = "?", l[32] = "?";

	snprintf(est, n, "%s", str(proto, "estimator") ? str(proto, "estimator") : "");
	if (fit == NULL)
		return;
	if (cJSON_IsNumber(json_get(bp, "value")))
		canon_number(json_get(bp, "value")->valuedouble, v);
	if (cJSON_IsNumber(lv))
		canon_number(lv->valuedouble * 100, l);
	snprintf(est, n, "the fit: %s; Black penalty %s Elo, %s; %s%% profile-likelihood intervals",
	    str(fit, "estimator") ? str(fit, "estimator") : "?", v,
	    cJSON_IsTrue(json_get(bp, "estimated")) ? "estimated" : "assumed", l);
}

/* Every unit's cell the same text. */
static void
cells_all(struct tuple *t, const char *text)
{
	for (size_t i = 0; i < t->n; i++) {
		struct svg c = { &t->cell[i], 0 };
		svg_put(&c, "%e", text);
	}
}

static void
set_row(struct svg *s, struct tuple *t, const char *field, const char *spec_words, size_t off)
{
	cells_of_set(t->us, t->n, off, t->cell);
	row(s, field, spec_words, t->us, t->n, t->cell);
}

/* What was played: model, harness, assistance, opponent, openings,
 * colours, budget. */
static void
rows_setup(struct svg *s, struct tuple *t, const cJSON *spec, const char *harness)
{
	const cJSON *proto = json_get(spec, "protocol");

	set_row(s, t, "model snapshot", str(proto, "model_snapshot"), offsetof(struct unit, model));
	cells_all(t, harness ? harness : "no item with a git commit");
	row(s, "harness version", str(proto, "harness"), t->us, t->n, t->cell);
	for (size_t i = 0; i < t->n; i++) {
		struct svg c = { &t->cell[i], 0 };
		int w = plot_width(t->us[i].condition);
		if (w == 0)
			svg_put(&c, "no engine candidates shown");
		else if (w > 0)
			svg_put(&c, "the engine's top %d candidates shown", w);
		else
			svg_put(&c, "%e", t->us[i].condition);
	}
	row(s, "assistance condition", NULL, t->us, t->n, t->cell);
	set_row(s, t, "opponent binary and limiter", str(proto, "opponent"),
	    offsetof(struct unit, engine));
	set_row(s, t, "openings", str(proto, "openings"), offsetof(struct unit, openings));
	set_row(s, t, "colours (the model's)", str(spec, "color"), offsetof(struct unit, colours));
	cells_all(t, "not in the ledger");
	row(s, "inference budget", str(proto, "inference"), t->us, t->n, t->cell);
}

/* How it ended and was rated: terminations, ladder, estimator, dates. */
static void
rows_outcome(struct svg *s, struct tuple *t, const cJSON *freeze, const char *est)
{
	const cJSON *spec = json_get(freeze, "spec"), *proto = json_get(spec, "protocol"), *it;
	char cut[96];
	size_t i = 0;

	set_row(s, t, "stopping and adjudication (terminations)", str(proto, "stopping"),
	    offsetof(struct unit, terminations));
	cJSON_ArrayForEach(it, json_get(freeze, "conditions")) {
		struct svg c = { &t->cell[i], 0 };
		if (i == t->n)
			break;
		svg_put(&c, "%e: %e", str(it, "state") ? str(it, "state") : "?",
		    str(json_get(it, "ladder"), "rule") ? str(json_get(it, "ladder"), "rule") : "?");
		i++;
	}
	row(s, "ladder state", NULL, t->us, t->n, t->cell);
	cells_all(t, est);
	row(s, "estimator", str(proto, "estimator"), t->us, t->n, t->cell);
	for (i = 0; i < t->n; i++) {
		struct svg c = { &t->cell[i], 0 };
		svg_put(&c, "%e to %e (%d games)", t->us[i].first[0] ? t->us[i].first : "?",
		    t->us[i].last[0] ? t->us[i].last : "?", (int)t->us[i].games);
	}
	snprintf(cut, sizeof cut, "cut (as_of) %s", str(freeze, "as_of") ? str(freeze, "as_of") : "?");
	row(s, "date (first start to last end)", cut, t->us, t->n, t->cell);
}

int
tuple_section(struct svg *s, const cJSON *freeze, const struct freeze_games *games,
    const char *store_dir, const cJSON *fit, const char *harness, struct err *e)
{
	const cJSON *spec = json_get(freeze, "spec");
	struct tuple t = { 0 };
	char est[256];

	if (tuple_collect(&t, freeze, games, store_dir, e) < 0) {
		tuple_release(&t);
		return -1;
	}
	estimator_words(json_get(spec, "protocol"), fit, est, sizeof est);
	svg_put(s, "<table class=\"tuple\">\n<tr><th>tuple</th><th>the spec's protocol</th>"
	    "<th>the ledger's games and the freeze</th></tr>\n");
	rows_setup(s, &t, spec, harness);
	rows_outcome(s, &t, freeze, est);
	svg_put(s, "</table>\n");
	if (t.unread) {
		char m[128];
		snprintf(m, sizeof m, "%ld included games could not be read from the bundled store; "
		    "their ledger fields are not in the tuple.", t.unread);
		svg_put(s, "<p class=\"finding\">%e</p>\n", m);
	}
	tuple_release(&t);
	return 0;
}
