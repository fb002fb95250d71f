/* candcheck.c: `candidates verify` (candcheck.h). */
#include "candcheck.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../common/hash.h"
#include "../json/json.h"
#include "../protocol/candidates.h"
#include "../verify/verify.h"
#include "candbuild.h"

/* The kinds of check, each summarized once when it found nothing. */
enum { K_FEN, K_MOVES, K_UNIQUE, K_PV, K_SAN, K_ORDER, K_EVALS, K_CANON, K_DIGEST, K_NAME,
	K_OPTIONS, K_ANALYSIS, K_N };

static const char *const kind_names[K_N] = { "fen", "moves", "positions-unique", "pv", "san",
	"score-order", "evals", "canonical", "engine-digest", "engine-name", "engine-options",
	"analysis" };

struct ctx {
	cJSON *checks;
	const char *name;      /* the manifest, as the report names it */
	int found[K_N];        /* findings of each kind */
	size_t nosan;          /* candidates with no SAN written */
	int findings;
	size_t listed;
	uint64_t unlisted;
};

static void __attribute__((format(printf, 5, 6)))
add(struct ctx *x, int kind, int ok, const char *subject, const char *fmt, ...)
{
	char detail[1024];
	va_list ap;

	if (!ok) {
		x->found[kind]++;
		x->findings++;
	}
	if (x->listed == CANDCHECK_MAX_LISTED) {
		x->unlisted++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	x->listed++;
	verify_check_add(x->checks, kind_names[kind], subject, ok, detail);
}

#define finding(x, kind, subject, ...) add(x, kind, 0, subject, __VA_ARGS__)
#define note(x, kind, subject, ...) add(x, kind, 1, subject, "note: " __VA_ARGS__)

/* ---- the manifest on its own ---- */

static void
check_pv(struct ctx *x, const struct cand_position *p, size_t i)
{
	const struct cand_move *c = &p->cand[i];
	struct chess_pos at = p->pos;
	const cJSON *m;
	size_t k = 0;

	if (c->pv == NULL || !cJSON_IsArray(c->pv) || cJSON_GetArraySize(c->pv) == 0) {
		finding(x, K_PV, p->id, "candidates[%zu] (%s): %s", i, c->uci,
		    c->pv == NULL ? "no pv" : "pv is not a list of moves");
		return;
	}
	cJSON_ArrayForEach(m, c->pv) {
		struct err e = ERR_INIT;
		struct chess_move mv;
		k++;
		if (!cJSON_IsString(m)) {
			finding(x, K_PV, p->id, "candidates[%zu] (%s): pv move %zu is not a string", i,
			    c->uci, k);
			return;
		}
		if (chess_uci_read(&at, m->valuestring, &mv, &e) < 0) {
			finding(x, K_PV, p->id, "candidates[%zu] (%s): pv move %zu: %s", i, c->uci, k,
			    e.msg);
			return;
		}
		if (k == 1 && (mv.from != c->m.from || mv.to != c->m.to || mv.promo != c->m.promo)) {
			finding(x, K_PV, p->id, "candidates[%zu] (%s): its pv starts with %.8s", i, c->uci,
			    m->valuestring);
			return;
		}
		chess_play(&at, mv);
	}
}

static void
check_san(struct ctx *x, const struct cand_position *p, size_t i)
{
	const struct cand_move *c = &p->cand[i];
	char san[CHESS_SAN_MAX];

	chess_san_write(&p->pos, c->m, san);
	if (c->san == NULL)
		x->nosan++; /* it follows from the move: a harness may not write it */
	else if (!cJSON_IsString(c->san))
		finding(x, K_SAN, p->id, "candidates[%zu] (%s): san is not a string; its SAN is %s", i,
		    c->uci, san);
	else if (strcmp(c->san->valuestring, san) != 0)
		finding(x, K_SAN, p->id, "candidates[%zu] (%s): san \"%.20s\", its SAN is %s", i, c->uci,
		    c->san->valuestring, san);
}

static void
score_text(const struct cand_move *c, char *out, size_t n)
{
	snprintf(out, n, "%s %ld%s", c->mate ? "mate" : "cp", c->score,
	    c->bound == CAND_UPPER ? " (upper bound)" : c->bound == CAND_LOWER ? " (lower bound)" : "");
}

/* The depth a candidate's line reached, or 0 when the manifest does not
 * say. */
static long
depth_of(const struct cand_position *p, size_t i)
{
	const cJSON *c = cJSON_GetArrayItem(json_get(p->json, "candidates"), (int)i);
	const cJSON *d = json_get(c, "depth");

	return cJSON_IsNumber(d) ? (long)d->valuedouble : 0;
}

static void
check_order(struct ctx *x, const struct cand_position *p)
{
	for (size_t i = 1; i < p->ncand; i++) {
		const struct cand_move *a = &p->cand[i - 1], *b = &p->cand[i];
		long da = depth_of(p, i - 1), db = depth_of(p, i);
		char sa[64], sb[64];
		if (cand_value(a) >= cand_value(b))
			continue;
		score_text(a, sa, sizeof sa);
		score_text(b, sb, sizeof sb);
		if (a->bound != CAND_EXACT || b->bound != CAND_EXACT)
			note(x, K_ORDER, p->id, "candidates[%zu] (%s) %s below candidates[%zu] (%s) %s, "
			    "where the engine marked a bound", i - 1, a->uci, sa, i, b->uci, sb);
		else if (da > 0 && db > 0 && da != db)
			note(x, K_ORDER, p->id, "candidates[%zu] (%s) %s at depth %ld below candidates[%zu] "
			    "(%s) %s at depth %ld: lines of two iterations", i - 1, a->uci, sa, da, i, b->uci,
			    sb, db);
		else if (da == 0 || db == 0)
			/* a manifest another tool wrote records no depth: Stockfish
			 * stopped by a node limit prints lines of two iterations, and
			 * nothing here tells them from lines out of order */
			note(x, K_ORDER, p->id, "candidates[%zu] (%s) %s below candidates[%zu] (%s) %s, "
			    "no bound marked and no depth recorded: lines of two iterations, as an engine "
			    "stopped by a node limit prints them, or out of order", i - 1, a->uci, sa, i,
			    b->uci, sb);
		else
			finding(x, K_ORDER, p->id, "candidates[%zu] (%s) %s below candidates[%zu] (%s) %s",
			    i - 1, a->uci, sa, i, b->uci, sb);
	}
}

static void
check_static(struct ctx *x, const struct candidates *c)
{
	for (size_t k = 0; k < c->n; k++) {
		const struct cand_position *p = &c->p[k];
		for (size_t i = 0; i < p->ncand; i++) {
			check_pv(x, p, i);
			check_san(x, p, i);
		}
		check_order(x, p);
	}
}

/* A file cohort writes is exactly its canonical lines. */
static int
check_canonical(struct ctx *x, const struct candidates *c, const char *path, struct err *e)
{
	uint8_t d[HASH_LEN];
	char id[HASH_ID_LEN + 1];

	if (strcmp(path, "-") == 0)
		return 0;
	if (hash_file(path, d, NULL, e) < 0)
		return -1;
	hash_id_format(d, id);
	if (strcmp(id, c->id) == 0)
		add(x, K_CANON, 1, x->name, "the file is exactly its canonical lines: its SHA-256 is "
		    "its identity");
	else
		note(x, K_CANON, x->name, "the file's bytes are not its canonical lines: its SHA-256 "
		    "is not its identity %s", c->id);
	return 0;
}

/* ---- analysed again ---- */

static void
scalar_text(const cJSON *v, char *out, size_t n)
{
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;

	if (v == NULL)
		snprintf(out, n, "nothing");
	else if (cJSON_IsObject(v))
		snprintf(out, n, "an object");
	else if (cJSON_IsArray(v))
		snprintf(out, n, "a list");
	else if (canon_write(v, &b, &e) == 0)
		snprintf(out, n, "%.60s%s", b.p, b.len > 60 ? "..." : "");
	else
		snprintf(out, n, "?");
	buf_release(&b);
}

/* 1 when neither is an object or a list and their canonical texts agree. */
static int
same_scalar(const cJSON *a, const cJSON *b)
{
	struct buf x = BUF_INIT, y = BUF_INIT;
	struct err e = ERR_INIT;
	int same = !cJSON_IsObject(a) && !cJSON_IsArray(a) && !cJSON_IsObject(b) &&
	    !cJSON_IsArray(b) && canon_write(a, &x, &e) == 0 && canon_write(b, &y, &e) == 0 &&
	    x.len == y.len && memcmp(x.p, y.p, x.len) == 0;

	buf_release(&x);
	buf_release(&y);
	return same;
}

static int
by_key(const void *a, const void *b)
{
	return canon_keycmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* The members of o in canonical order, NULL-terminated (NULL when out of
 * memory). */
static const cJSON **
members(const cJSON *o)
{
	size_t n = (size_t)cJSON_GetArraySize(o), i = 0;
	const cJSON **v = calloc(n + 1, sizeof *v), *m;

	if (v == NULL)
		return NULL;
	cJSON_ArrayForEach(m, o) v[i++] = m;
	qsort(v, n, sizeof *v, by_key);
	return v;
}

/* The fields one side has and the other has not, each once, by its path
 * with the indices left out ("candidates[].depth"): what the manifest
 * records and the analysis does not write (a harness's own fields), and
 * what only cohort writes (depth; bound where the harness kept none). */
#define SIDES_MAX 16
struct sides {
	char path[SIDES_MAX][80];
	int analysis[SIDES_MAX]; /* 1: in the analysis only; 0: in the manifest only */
	size_t n;
};

static void
sides_add(struct sides *sd, const char *path, int analysis)
{
	char p[80];
	size_t k = 0;

	for (const char *c = path; *c && k + 1 < sizeof p; c++) {
		if (*c == '[') {
			p[k++] = '[';
			while (*c && *c != ']')
				c++;
			if (!*c)
				break;
		}
		p[k++] = *c;
	}
	p[k] = '\0';
	for (size_t i = 0; i < sd->n; i++)
		if (sd->analysis[i] == analysis && strcmp(sd->path[i], p) == 0)
			return;
	if (sd->n < SIDES_MAX) {
		memcpy(sd->path[sd->n], p, k + 1);
		sd->analysis[sd->n++] = analysis;
	}
}

static int diff(const cJSON *a, const cJSON *b, struct buf *path, char *out, size_t n,
    struct sides *sd);

/* With sd, a field on one side only is put in sd, and only the fields
 * both have are compared; without, it is a difference. */
static int
diff_objects(const cJSON *a, const cJSON *b, struct buf *path, char *out, size_t n,
    struct sides *sd)
{
	const cJSON **x = members(a), **y = members(b);
	size_t i = 0, j = 0, at = path->len;
	int rc = 0;

	if (x == NULL || y == NULL) {
		snprintf(out, n, "%s: out of memory", path->p ? path->p : "");
		rc = 1;
	}
	while (rc == 0 && (x[i] != NULL || y[j] != NULL)) {
		int c = x[i] == NULL ? 1 : y[j] == NULL ? -1 : canon_keycmp(x[i]->string, y[j]->string);
		buf_printf(path, "%s%s", at ? "." : "", c <= 0 ? x[i]->string : y[j]->string);
		if (c != 0 && sd != NULL) {
			sides_add(sd, path->p, c > 0);
			buf_cut(path, at);
			c < 0 ? i++ : j++;
			continue;
		}
		if (c != 0)
			snprintf(out, n, "%s: %s", path->p,
			    c < 0 ? "in the manifest, not in the analysis" : "in the analysis, not in the manifest");
		/* evals is keyed by moves, not by fields: a move on one side
		 * only is a difference */
		rc = c != 0 || diff(x[i], y[j], path, out, n,
		    strcmp(x[i]->string, "evals") == 0 ? NULL : sd);
		buf_cut(path, at);
		i++, j++;
	}
	free(x);
	free(y);
	return rc;
}

/* The first place where the manifest's a and the analysis's b differ,
 * as "PATH: A in the manifest, B now" into out; 0 when they are equal. */
static int
diff(const cJSON *a, const cJSON *b, struct buf *path, char *out, size_t n, struct sides *sd)
{
	char sa[80], sb[80];
	size_t at = path->len;

	if (cJSON_IsObject(a) && cJSON_IsObject(b))
		return diff_objects(a, b, path, out, n, sd);
	if (cJSON_IsArray(a) && cJSON_IsArray(b)) {
		int na = cJSON_GetArraySize(a), nb = cJSON_GetArraySize(b);
		const cJSON *x = a->child, *y = b->child;
		for (int i = 0; x != NULL && y != NULL; i++, x = x->next, y = y->next) {
			int rc;
			buf_printf(path, "[%d]", i);
			rc = diff(x, y, path, out, n, sd);
			buf_cut(path, at);
			if (rc)
				return 1;
		}
		if (na != nb)
			snprintf(out, n, "%s: %d entries in the manifest, %d now", path->p ? path->p : "", na,
			    nb);
		return na != nb;
	}
	if (same_scalar(a, b))
		return 0;
	scalar_text(a, sa, sizeof sa);
	scalar_text(b, sb, sizeof sb);
	snprintf(out, n, "%s: %s in the manifest, %s now", path->p ? path->p : "", sa, sb);
	return 1;
}

/* The position as `candidates build` read it, for the session. */
static void
as_built(const struct cand_position *p, struct candbuild_pos *q)
{
	memset(q, 0, sizeof *q);
	q->id = (char *)p->id;
	q->line = p->line;
	q->pos = p->pos;
	snprintf(q->fen, sizeof q->fen, "%s", p->fen);
	q->split = cand_split_names[p->split];
	q->opening = (char *)p->opening;
	q->phase = cand_phase_names[p->phase];
	q->kind = cand_kind_names[p->kind];
}

/* The header's options as text to send again, MultiPV aside (it is the
 * header's multipv). */
static int
header_options(const struct candidates *c, struct candbuild_option **opts, size_t *n,
    char (**text)[32], struct err *e)
{
	const cJSON *o = json_get(c->engine, "options"), *v;
	size_t k = (size_t)cJSON_GetArraySize(o);

	*n = 0;
	*opts = calloc(k + 1, sizeof **opts);
	*text = calloc(k + 1, sizeof **text);
	if (*opts == NULL || *text == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	cJSON_ArrayForEach(v, o) {
		struct candbuild_option *op = &(*opts)[*n];
		if (strcasecmp(v->string, "MultiPV") == 0)
			continue;
		op->name = v->string;
		if (cJSON_IsString(v)) {
			op->value = v->valuestring;
		} else if (cJSON_IsBool(v)) {
			op->value = cJSON_IsTrue(v) ? "true" : "false";
		} else if (cJSON_IsNumber(v) && v->valuedouble == (double)(long long)v->valuedouble) {
			snprintf((*text)[*n], sizeof (*text)[*n], "%lld", (long long)v->valuedouble);
			op->value = (*text)[*n];
		} else {
			return err_set(e, ERR_INPUT, "%s: header: \"engine\": \"options\": \"%.60s\": "
			    "expected a string, a boolean or an integer", c->path, v->string);
		}
		(*n)++;
	}
	return 0;
}

/* The analysis of p compared with what the manifest records of it: every
 * field both have (moves, scores, principal variations, SAN, bounds,
 * evals), in the same order; a field on one side only goes to sd (notes,
 * once each).  A manifest cohort wrote is its analysis byte for byte. */
static int
analyse_one(struct ctx *x, struct candbuild_session *s, const struct cand_position *p,
    struct buf *scratch, struct sides *sd, struct err *e)
{
	struct candbuild_pos q;
	struct buf mine = BUF_INIT;
	cJSON *line;
	int rc = 0;

	as_built(p, &q);
	if ((line = candbuild_session_line(s, &q, json_get(p->json, "evals") != NULL, e)) == NULL)
		return -1;
	buf_reset(scratch);
	if (canon_write(p->json, scratch, e) < 0 || canon_write(line, &mine, e) < 0) {
		rc = -1;
	} else if (scratch->len != mine.len || memcmp(scratch->p, mine.p, mine.len) != 0) {
		struct buf path = BUF_INIT;
		char d[512] = "the bytes differ";
		if (diff(p->json, line, &path, d, sizeof d, sd))
			finding(x, K_ANALYSIS, p->id, "%s", d);
		buf_release(&path);
	}
	buf_release(&mine);
	cJSON_Delete(line);
	return rc;
}

static int
check_engine(struct ctx *x, const struct candidates *c, const struct candcheck_opts *o,
    struct err *e)
{
	struct candbuild_setup su = { o->engine, (uint64_t)c->nodes, (int)c->multipv, NULL, 0, 0,
		o->timeout_s };
	struct candbuild_option *opts = NULL;
	struct candbuild_session *s = NULL;
	struct buf scratch = BUF_INIT;
	char(*text)[32] = NULL;
	const char **ids = NULL, *want;
	size_t *pick = NULL, k = 0;
	struct sides sd = { .n = 0 };
	struct buf sent = BUF_INIT;
	int rc = -1;

	if (header_options(c, &opts, &su.nopts, &text, e) < 0)
		goto done;
	for (size_t i = 0; i < su.nopts; i++)
		buf_printf(&sent, "%s%s %s", i ? ", " : "", opts[i].name, opts[i].value);
	add(x, K_OPTIONS, 1, x->name, "the header's options (%s), nodes %ld and MultiPV %ld sent to "
	    "the engine", sent.len ? sent.p : "none", c->nodes, c->multipv);
	su.opts = opts;
	if ((s = candbuild_session_start(&su, e)) == NULL)
		goto done;
	json_get_string(c->engine, "binary_sha256", 1, &want, e);
	if (strcmp(candbuild_session_digest(s), want) == 0)
		add(x, K_DIGEST, 1, x->name, "%s", want);
	else
		finding(x, K_DIGEST, x->name, "the engine's binary has SHA-256 %s, the manifest's %s",
		    candbuild_session_digest(s), want);
	json_get_string(c->engine, "name", 1, &want, e);
	if (strcmp(candbuild_session_name(s), want) == 0)
		add(x, K_NAME, 1, x->name, "%.200s", want);
	else
		finding(x, K_NAME, x->name, "the engine is \"%.200s\", the manifest's \"%.200s\"",
		    candbuild_session_name(s), want);
	ids = calloc(c->n + 1, sizeof *ids);
	pick = calloc(c->n + 1, sizeof *pick);
	if (ids == NULL || pick == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < c->n; i++)
		ids[i] = c->p[i].id;
	k = candcheck_sample(ids, c->n, o->sample, o->seed, pick);
	for (size_t i = 0; i < k; i++) {
		if (analyse_one(x, s, &c->p[pick[i]], &scratch, &sd, e) < 0)
			goto done;
		if (o->progress)
			o->progress(o->progress_ctx, i + 1, k);
	}
	for (size_t i = 0; i < sd.n; i++)
		if (sd.analysis[i])
			note(x, K_ANALYSIS, x->name, "%s: written by cohort's analysis, not recorded in "
			    "the manifest: not compared", sd.path[i]);
		else
			note(x, K_ANALYSIS, x->name, "%s: recorded in the manifest, not written by "
			    "cohort's analysis: not compared", sd.path[i]);
	if (x->found[K_ANALYSIS] == 0) {
		const char *what = sd.n ? "the same moves, scores and lines where the manifest "
		    "records them" : "the same lines";
		if (k == c->n)
			add(x, K_ANALYSIS, 1, x->name, "all %zu positions analysed again: %s", k, what);
		else
			add(x, K_ANALYSIS, 1, x->name, "%zu of %zu positions (sample seed %llu) analysed "
			    "again: %s", k, c->n, (unsigned long long)o->seed, what);
	}
	rc = 0;
done:
	buf_release(&sent);
	candbuild_session_free(s);
	buf_release(&scratch);
	free(opts);
	free(text);
	free(ids);
	free(pick);
	return rc;
}

/* ---- the sample ---- */

struct ranked {
	uint8_t d[HASH_LEN];
	size_t i;
};

static int
by_digest(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int c = memcmp(x->d, y->d, HASH_LEN);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

static int
by_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

size_t
candcheck_sample(const char *const *ids, size_t n, size_t k, uint64_t seed, size_t *pick)
{
	struct ranked *r;
	struct buf b = BUF_INIT;

	if (k == 0 || k >= n || (r = calloc(n, sizeof *r)) == NULL) {
		for (size_t i = 0; i < n; i++)
			pick[i] = i;
		return n;
	}
	for (size_t i = 0; i < n; i++) {
		buf_reset(&b);
		buf_printf(&b, "%llu:%s", (unsigned long long)seed, ids[i]);
		hash_bytes(b.p, b.len, r[i].d);
		r[i].i = i;
	}
	qsort(r, n, sizeof *r, by_digest);
	for (size_t i = 0; i < k; i++)
		pick[i] = r[i].i;
	qsort(pick, k, sizeof *pick, by_index);
	free(r);
	buf_release(&b);
	return k;
}

/* ---- the report ---- */

static const char *
base_name(const char *path)
{
	const char *b;

	if (strcmp(path, "-") == 0)
		return "<stdin>";
	b = strrchr(path, '/');
	return b && b[1] ? b + 1 : path;
}

static int
report_of(const struct candidates *c, struct ctx *x, cJSON **report, struct err *e)
{
	cJSON *r = cJSON_CreateObject(), *subj = cJSON_CreateArray(), *s = cJSON_CreateObject();

	if (r == NULL || subj == NULL || s == NULL) {
		cJSON_Delete(r);
		cJSON_Delete(subj);
		cJSON_Delete(s);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	cJSON_AddItemToArray(subj, s);
	json_add_string(s, "name", x->name);
	json_add_string(s, "id", c->id);
	json_add_string(s, "kind", "cohort.candidates/1");
	json_add_string(r, "kind", "cohort.verify/1");
	cJSON_AddItemToObject(r, "subject", subj);
	cJSON_AddItemToObject(r, "checks", x->checks);
	x->checks = NULL;
	json_add_bool(r, "ok", x->findings == 0);
	*report = r;
	return 0;
}

static void
summaries(struct ctx *x, const struct candidates *c)
{
	size_t ncand = 0, neval = 0;

	for (size_t i = 0; i < c->n; i++) {
		ncand += c->p[i].ncand;
		neval += c->p[i].neval;
	}
	/* what the reader refused to read had it not held */
	add(x, K_FEN, 1, x->name, "%zu positions, every FEN valid", c->n);
	add(x, K_UNIQUE, 1, x->name, "%zu position ids, unique and in order", c->n);
	add(x, K_MOVES, 1, x->name, "%zu candidates and %zu evals, every move legal, at most %ld "
	    "candidates a position", ncand, neval, c->multipv);
	add(x, K_EVALS, 1, x->name, "%zu evals, none of them a candidate", neval);
	if (!x->found[K_PV])
		add(x, K_PV, 1, x->name, "%zu principal variations, legal move by move", ncand);
	if (x->nosan > 0)
		note(x, K_SAN, x->name, "%zu of %zu candidates record no SAN (it follows from the move)",
		    x->nosan, ncand);
	if (!x->found[K_SAN])
		add(x, K_SAN, 1, x->name, "%zu SAN texts as written from the moves", ncand - x->nosan);
	if (!x->found[K_ORDER])
		add(x, K_ORDER, 1, x->name, "scores best first, except where the engine marked a bound "
		    "or the lines are of two depths, or may be (no depth recorded): notes");
}

int
candcheck_run(const struct candcheck_opts *o, cJSON **report, struct err *e)
{
	struct candidates c = CANDIDATES_INIT;
	struct ctx x;
	int rc = -1;

	*report = NULL;
	memset(&x, 0, sizeof x);
	if (cand_read(o->manifest, &c, e) < 0)
		return -1;
	x.name = base_name(o->manifest);
	if ((x.checks = cJSON_CreateArray()) == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	check_static(&x, &c);
	if (check_canonical(&x, &c, o->manifest, e) < 0)
		goto done;
	if (o->engine != NULL && check_engine(&x, &c, o, e) < 0)
		goto done;
	summaries(&x, &c);
	if (x.unlisted > 0) {
		char d[128];
		snprintf(d, sizeof d, "%llu more findings and notes, not listed",
		    (unsigned long long)x.unlisted);
		verify_check_add(x.checks, "unlisted", x.name, x.findings == 0, d);
	}
	if (report_of(&c, &x, report, e) < 0)
		goto done;
	rc = x.findings > 0;
done:
	cJSON_Delete(x.checks);
	cand_release(&c);
	return rc;
}

int
candcheck_table(const cJSON *report, struct buf *out, struct err *e)
{
	const cJSON *c;
	int nok = 0, nnote = 0, nbad = 0;

	cJSON_ArrayForEach(c, json_get(report, "checks")) {
		const cJSON *d = json_get(c, "detail"), *ck = json_get(c, "check"), *s = json_get(c, "subject");
		const char *detail = cJSON_IsString(d) ? d->valuestring : "";
		int good = cJSON_IsTrue(json_get(c, "ok")), is_note = good && strncmp(detail, "note: ", 6) == 0;
		nok += good && !is_note;
		nnote += is_note;
		nbad += !good;
		if (buf_printf(out, "%-4s %-18s %-28s %s\n", is_note ? "note" : good ? "ok" : "FAIL",
		        cJSON_IsString(ck) ? ck->valuestring : "?", cJSON_IsString(s) ? s->valuestring : "?",
		        is_note ? detail + 6 : detail) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
	}
	if (buf_printf(out, "%d check%s hold%s, %d note%s, %d finding%s\n", nok, nok == 1 ? "" : "s",
	        nok == 1 ? "s" : "", nnote, nnote == 1 ? "" : "s", nbad, nbad == 1 ? "" : "s") < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}
