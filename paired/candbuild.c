/* candbuild.c: `candidates build`: a UCI engine's MultiPV analysis of
 * every position, written as a cohort.candidates/1 manifest
 * (candbuild.h). */
#include "candbuild.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../common/hash.h"
#include "../common/io.h"
#include "../engine/engine.h"
#include "../json/json.h"
#include "../protocol/candidates.h"

struct candbuild_session {
	struct engine *g;
	char *path;              /* the engine as named, for messages */
	cJSON *options;          /* every option sent, for the header */
	char digest[2 * HASH_LEN + 1];
	uint64_t nodes;
	int multipv;
	struct engine_result r;  /* the search just read */
};

/* The options sent when the caller names neither (and the engine has them). */
static const struct candbuild_option defaults[] = { { "Threads", "1" }, { "Hash", "16" } };

const char *
candbuild_session_digest(const struct candbuild_session *s)
{
	return s->digest;
}

const char *
candbuild_session_name(const struct candbuild_session *s)
{
	return engine_name(s->g);
}

void
candbuild_session_free(struct candbuild_session *s)
{
	if (s == NULL)
		return;
	engine_result_release(&s->r);
	engine_free(s->g);
	free(s->path);
	cJSON_Delete(s->options);
	free(s);
}

/* The value recorded for an option sent: spins as integers, checks as
 * booleans, a combo's value in the engine's spelling, strings as given. */
static cJSON *
option_value(const struct engine_option *o, const char *value)
{
	switch (o->type) {
	case ENGINE_OPT_SPIN:
		return cJSON_CreateNumber((double)strtoll(value, NULL, 10));
	case ENGINE_OPT_CHECK:
		return cJSON_CreateBool(strcmp(value, "true") == 0);
	case ENGINE_OPT_COMBO:
		for (size_t i = 0; i < o->nvars; i++)
			if (strcasecmp(value, o->vars[i]) == 0)
				return cJSON_CreateString(o->vars[i]);
		return NULL;
	default:
		return cJSON_CreateString(value);
	}
}

static int
send_option(struct candbuild_session *s, const char *name, const char *value, struct err *e)
{
	const struct engine_option *o = engine_option_find(s->g, name);
	cJSON *v;

	if (o == NULL)
		return err_set(e, ERR_INPUT, "engine %s has no option \"%.60s\"",
		    s->path, name);
	if (strcasecmp(o->name, "MultiPV") == 0)
		return err_set(e, ERR_INPUT, "option MultiPV: set it with --multipv");
	if (o->type == ENGINE_OPT_BUTTON)
		return err_set(e, ERR_INPUT, "option \"%.60s\" is a button: it sets nothing to record",
		    o->name);
	if (json_get(s->options, o->name) != NULL)
		return err_set(e, ERR_INPUT, "option \"%.60s\" given twice", o->name);
	if (engine_setoption(s->g, o->name, value, e) < 0)
		return -1;
	if ((v = option_value(o, value)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	cJSON_AddItemToObject(s->options, o->name, v);
	return 0;
}

static int
named(const struct candbuild_setup *su, const char *name)
{
	for (size_t i = 0; i < su->nopts; i++)
		if (strcasecmp(su->opts[i].name, name) == 0)
			return 1;
	return 0;
}

static int
setup_options(struct candbuild_session *s, const struct candbuild_setup *su, struct err *e)
{
	for (size_t i = 0; su->defaults && i < sizeof defaults / sizeof defaults[0]; i++)
		if (!named(su, defaults[i].name) && engine_option_find(s->g, defaults[i].name) != NULL &&
		    send_option(s, defaults[i].name, defaults[i].value, e) < 0)
			return -1;
	for (size_t i = 0; i < su->nopts; i++)
		if (send_option(s, su->opts[i].name, su->opts[i].value, e) < 0)
			return -1;
	if (engine_option_find(s->g, "MultiPV") != NULL) {
		char k[16];
		snprintf(k, sizeof k, "%d", su->multipv);
		if (engine_setoption(s->g, "MultiPV", k, e) < 0)
			return -1;
	} else if (su->multipv != 1) {
		return err_set(e, ERR_INPUT, "engine %s declares no MultiPV option: only --multipv 1 "
		    "can be honoured", s->path);
	}
	return engine_isready(s->g, e);
}

struct candbuild_session *
candbuild_session_start(const struct candbuild_setup *su, struct err *e)
{
	struct engine_opts eo = { NULL, su->timeout_s, 0 };
	struct candbuild_session *s;
	uint8_t d[HASH_LEN];

	if (su->nodes == 0 || su->nodes > CANDBUILD_NODES_MAX || su->multipv < 1 ||
	    su->multipv > CANDBUILD_MULTIPV_MAX) {
		err_set(e, ERR_USAGE, "nodes 1..%llu and multipv 1..%d",
		    (unsigned long long)CANDBUILD_NODES_MAX, CANDBUILD_MULTIPV_MAX);
		return NULL;
	}
	if ((s = calloc(1, sizeof *s)) == NULL || (s->options = cJSON_CreateObject()) == NULL ||
	    (s->path = strdup(su->engine)) == NULL) {
		candbuild_session_free(s);
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	s->nodes = su->nodes;
	s->multipv = su->multipv;
	if ((s->g = engine_new(su->engine, &eo, e)) == NULL ||
	    hash_file(engine_binary_path(s->g), d, NULL, e) < 0 || setup_options(s, su, e) < 0) {
		candbuild_session_free(s);
		return NULL;
	}
	hash_hex_format(d, s->digest);
	return s;
}

cJSON *
candbuild_session_header(const struct candbuild_session *s, const char *name, struct err *e)
{
	cJSON *h = cJSON_CreateObject(), *g = cJSON_CreateObject(), *o = cJSON_Duplicate(s->options, 1);

	if (h == NULL || g == NULL || o == NULL) {
		cJSON_Delete(h);
		cJSON_Delete(g);
		cJSON_Delete(o);
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	cJSON_AddItemToObject(h, "engine", g);
	cJSON_AddItemToObject(g, "options", o);
	if (json_add_string(h, "kind", "cohort.candidates/1") == NULL ||
	    json_add_string(h, "name", name) == NULL ||
	    json_add_string(g, "name", engine_name(s->g)) == NULL ||
	    json_add_string(g, "binary_sha256", s->digest) == NULL ||
	    json_add_number(g, "nodes", (double)s->nodes) == NULL ||
	    json_add_number(g, "multipv", s->multipv) == NULL) {
		cJSON_Delete(h);
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	return h;
}

/* ---- one position ---- */

static void
pv_text(const struct engine_info *in, char *out, size_t n)
{
	size_t k = 0;

	out[0] = '\0';
	for (size_t i = 0; i < in->npv && k + 8 < n; i++)
		k += (size_t)snprintf(out + k, n - k, "%s%s", i ? " " : "", in->pv[i]);
}

/* Every move of the line's pv legal in turn from pos; its UCI texts into
 * a new array, its first move into *first. */
static cJSON *
pv_checked(const struct candbuild_session *s, const struct chess_pos *pos,
    const struct engine_info *in, struct chess_move *first, struct err *e)
{
	struct chess_pos at = *pos;
	cJSON *pv = cJSON_CreateArray();
	char text[512];

	if (pv == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < in->npv; i++) {
		struct chess_move m;
		char u[CHESS_UCI_MAX];
		cJSON *w;
		if (chess_uci_read(&at, in->pv[i], &m, e) < 0) {
			char why[sizeof e->msg];
			snprintf(why, sizeof why, "%s", e->msg);
			pv_text(in, text, sizeof text);
			err_set(e, ERR_INPUT, "engine %s: multipv %d: pv move %zu: %s; its pv: %s",
			    s->path, in->multipv, i + 1, why, text);
			cJSON_Delete(pv);
			return NULL;
		}
		if (i == 0)
			*first = m;
		chess_uci_write(m, u);
		if ((w = cJSON_CreateString(u)) == NULL) {
			cJSON_Delete(pv);
			err_set(e, ERR_NOMEM, "out of memory");
			return NULL;
		}
		cJSON_AddItemToArray(pv, w);
		chess_play(&at, m);
	}
	return pv;
}


/* The bestmove must be a legal move (there is one: positions without a
 * legal move are refused when read). */
static int
bestmove_checked(const struct candbuild_session *s, const struct chess_pos *pos, struct err *e)
{
	struct chess_move m;

	if (s->r.bestmove[0] == '\0')
		return err_set(e, ERR_INPUT, "engine %s: bestmove (none) in a position with legal moves",
		    s->path);
	if (chess_uci_read(pos, s->r.bestmove, &m, e) < 0)
		return err_prefix(e, "engine %s: bestmove", s->path);
	return 0;
}

static int
add_score(cJSON *o, const struct engine_info *in, struct err *e)
{
	const char *bound = in->bound == ENGINE_UPPER ? "upper" :
	    in->bound == ENGINE_LOWER ? "lower" : NULL;

	if (in->has_mate && in->mate == 0)
		return err_set(e, ERR_INPUT, "multipv %d: score mate 0 in a position with legal moves",
		    in->multipv);
	if (json_add_number(o, in->has_mate ? "mate" : "cp", in->has_mate ? in->mate : in->cp) ==
	        NULL ||
	    (bound != NULL && json_add_string(o, "bound", bound) == NULL))
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

static int
search(struct candbuild_session *s, const struct candbuild_pos *p, const char *move,
    struct err *e)
{
	struct engine_limit lim = { s->nodes, 0, 0 };
	const char *sm[1] = { move };

	if (engine_newgame(s->g, e) < 0 ||
	    engine_search(s->g, p->fen, &lim, sm, move ? 1 : 0, &s->r, e) < 0)
		return -1;
	return bestmove_checked(s, &p->pos, e);
}

/* One MultiPV line as a candidate, its move into ms[k] (ms[0..k) are the
 * lines before it). */
static cJSON *
candidate(struct candbuild_session *s, const struct candbuild_pos *p, size_t k,
    struct chess_move *ms, struct err *e)
{
	const struct engine_info *in = &s->r.lines[k];
	char u[CHESS_UCI_MAX], san[CHESS_SAN_MAX];
	cJSON *c, *pv;

	if (in->npv == 0) {
		err_set(e, ERR_INPUT, "engine %s: no multipv %zu line among %zu",
		    s->path, k + 1, s->r.nlines);
		return NULL;
	}
	if ((pv = pv_checked(s, &p->pos, in, &ms[k], e)) == NULL)
		return NULL;
	for (size_t j = 0; j < k; j++)
		if (chess_move_same(ms[j], ms[k])) {
			err_set(e, ERR_INPUT, "engine %s: multipv %zu and %zu both start with %s",
			    s->path, j + 1, k + 1, in->pv[0]);
			cJSON_Delete(pv);
			return NULL;
		}
	if ((c = cJSON_CreateObject()) == NULL) {
		cJSON_Delete(pv);
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	cJSON_AddItemToObject(c, "pv", pv);
	chess_uci_write(ms[k], u);
	chess_san_write(&p->pos, ms[k], san);
	if (json_add_string(c, "uci", u) == NULL || json_add_string(c, "san", san) == NULL ||
	    (in->depth > 0 && json_add_number(c, "depth", in->depth) == NULL)) {
		cJSON_Delete(c);
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (add_score(c, in, e) < 0) {
		cJSON_Delete(c);
		err_prefix(e, "engine %s", s->path);
		return NULL;
	}
	return c;
}

/* The MultiPV lines as the candidates array; their moves into ms. */
static cJSON *
candidates(struct candbuild_session *s, const struct candbuild_pos *p, struct chess_move *ms,
    size_t *n, struct err *e)
{
	cJSON *arr;

	if (search(s, p, NULL, e) < 0)
		return NULL;
	if (s->r.nlines == 0 || s->r.nlines > (size_t)s->multipv) {
		err_set(e, ERR_INPUT, "engine %s: %zu analysis lines with a score and a pv, MultiPV %d",
		    s->path, s->r.nlines, s->multipv);
		return NULL;
	}
	if ((arr = cJSON_CreateArray()) == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	for (*n = 0; *n < s->r.nlines; (*n)++) {
		cJSON *c = candidate(s, p, *n, ms, e);
		if (c == NULL) {
			cJSON_Delete(arr);
			return NULL;
		}
		cJSON_AddItemToArray(arr, c);
	}
	return arr;
}

static int
by_uci(const void *a, const void *b)
{
	char x[CHESS_UCI_MAX], y[CHESS_UCI_MAX];

	chess_uci_write(*(const struct chess_move *)a, x);
	chess_uci_write(*(const struct chess_move *)b, y);
	return strcmp(x, y);
}

/* The score of move u searched alone: an integer, or {"mate": n}. */
static cJSON *
eval_of(struct candbuild_session *s, const struct candbuild_pos *p, struct chess_move m,
    const char *u, struct err *e)
{
	const struct engine_info *in;
	struct chess_move first;
	cJSON *pv, *v;

	if (search(s, p, u, e) < 0)
		return NULL;
	in = s->r.nlines > 0 ? &s->r.lines[0] : NULL;
	if (in == NULL || in->npv == 0) {
		err_set(e, ERR_INPUT, "engine %s: no line with a score and a pv",
		    s->path);
		return NULL;
	}
	if ((pv = pv_checked(s, &p->pos, in, &first, e)) == NULL)
		return NULL;
	cJSON_Delete(pv);
	if (!chess_move_same(first, m)) {
		err_set(e, ERR_INPUT, "engine %s: its pv starts with %s", s->path,
		    in->pv[0]);
		return NULL;
	}
	if (in->has_mate && in->mate == 0) {
		err_set(e, ERR_INPUT, "engine %s: score mate 0", s->path);
		return NULL;
	}
	if (!in->has_mate)
		v = cJSON_CreateNumber(in->cp);
	else if ((v = cJSON_CreateObject()) != NULL && json_add_number(v, "mate", in->mate) == NULL) {
		cJSON_Delete(v);
		v = NULL;
	}
	if (v == NULL)
		err_set(e, ERR_NOMEM, "out of memory");
	return v;
}

/* Every legal move that is not a candidate, searched alone. */
static cJSON *
evals(struct candbuild_session *s, const struct candbuild_pos *p, const struct chess_move *cand,
    size_t ncand, struct err *e)
{
	struct chess_move ms[CHESS_MAX_MOVES];
	int n = chess_moves(&p->pos, ms);
	cJSON *ev = cJSON_CreateObject();

	if (ev == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	qsort(ms, (size_t)n, sizeof ms[0], by_uci);
	for (int i = 0; i < n; i++) {
		char u[CHESS_UCI_MAX];
		int is_cand = 0;
		cJSON *v;
		for (size_t k = 0; k < ncand; k++)
			is_cand |= chess_move_same(cand[k], ms[i]);
		if (is_cand)
			continue;
		chess_uci_write(ms[i], u);
		if ((v = eval_of(s, p, ms[i], u, e)) == NULL) {
			err_prefix(e, "searchmoves %s", u);
			cJSON_Delete(ev);
			return NULL;
		}
		cJSON_AddItemToObject(ev, u, v);
	}
	return ev;
}

static cJSON *
line_of(struct candbuild_session *s, const struct candbuild_pos *p, int with_evals, struct err *e)
{
	struct chess_move ms[CANDBUILD_MULTIPV_MAX];
	cJSON *o = cJSON_CreateObject(), *st = cJSON_CreateObject(), *c, *ev;
	size_t n = 0;

	if (o == NULL || st == NULL) {
		cJSON_Delete(o);
		cJSON_Delete(st);
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	cJSON_AddItemToObject(o, "stratum", st);
	if (json_add_string(o, "position_id", p->id) == NULL || json_add_string(o, "fen", p->fen) == NULL ||
	    json_add_string(o, "split", p->split) == NULL ||
	    json_add_string(o, "opening", p->opening) == NULL ||
	    json_add_string(st, "phase", p->phase) == NULL || json_add_string(st, "kind", p->kind) == NULL ||
	    json_add_string(st, "to_move", p->pos.side ? "black" : "white") == NULL) {
		cJSON_Delete(o);
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	if ((c = candidates(s, p, ms, &n, e)) == NULL) {
		cJSON_Delete(o);
		return NULL;
	}
	cJSON_AddItemToObject(o, "candidates", c);
	if (with_evals) {
		if ((ev = evals(s, p, ms, n, e)) == NULL) {
			cJSON_Delete(o);
			return NULL;
		}
		cJSON_AddItemToObject(o, "evals", ev);
	}
	return o;
}

cJSON *
candbuild_session_line(struct candbuild_session *s, const struct candbuild_pos *p, int with_evals,
    struct err *e)
{
	cJSON *o;

	if ((o = line_of(s, p, with_evals, e)) == NULL)
		err_prefix(e, "position %.60s", p->id);
	engine_result_release(&s->r);
	return o;
}

/* ---- the whole manifest ---- */

static int
add_line(const cJSON *t, struct buf *out, struct err *e)
{
	return canon_write(t, out, e) < 0 || buf_addc(out, '\n') < 0 ? -1 : 0;
}

/* The default name: the positions file's base name without extension. */
static int
default_name(const char *path, char *out, size_t n)
{
	const char *b, *dot;

	if (path == NULL || strcmp(path, "-") == 0) {
		snprintf(out, n, "positions");
		return 0;
	}
	b = strrchr(path, '/');
	b = b ? b + 1 : path;
	dot = strrchr(b, '.');
	snprintf(out, n, "%.*s", (int)(dot && dot != b ? (size_t)(dot - b) : strlen(b)), b);
	return out[0] ? 0 : -1;
}

static int
analyse(const struct candbuild_opts *o, const struct candbuild_positions *ps, struct buf *out,
    struct err *e)
{
	struct candbuild_session *s = candbuild_session_start(&o->setup, e);
	char name[256];
	cJSON *t;
	int rc = -1;

	if (s == NULL)
		return -1;
	if (o->name != NULL)
		snprintf(name, sizeof name, "%s", o->name);
	else if (default_name(o->positions, name, sizeof name) < 0)
		snprintf(name, sizeof name, "positions");
	if ((t = candbuild_session_header(s, name, e)) == NULL || add_line(t, out, e) < 0)
		goto done;
	for (size_t i = 0; i < ps->n; i++) {
		cJSON_Delete(t);
		if ((t = candbuild_session_line(s, &ps->p[i], o->evals, e)) == NULL ||
		    add_line(t, out, e) < 0)
			goto done;
		if (o->progress)
			o->progress(o->progress_ctx, i + 1, ps->n);
	}
	rc = 0;
done:
	cJSON_Delete(t);
	candbuild_session_free(s);
	return rc;
}

/* The bytes written to path read back as a manifest of their own
 * identity. */
static int
reads_back(const char *path, const struct buf *m, struct err *e)
{
	struct candidates c = CANDIDATES_INIT;
	uint8_t d[HASH_LEN];
	char id[HASH_ID_LEN + 1];
	int rc;

	hash_bytes(m->p, m->len, d);
	hash_id_format(d, id);
	if ((rc = cand_read(path, &c, e)) == 0 && strcmp(c.id, id) != 0)
		rc = err_set(e, ERR_INPUT, "its identity %s is not the digest of its bytes %s", c.id, id);
	cand_release(&c);
	return rc < 0 ? err_prefix(e, "the manifest written does not read back") : 0;
}

/* Standard output cannot be read back: the check reads a copy. */
static int
reads_back_copy(const struct buf *m, struct err *e)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	FILE *fp;
	int fd, rc;

	snprintf(path, sizeof path, "%s/cohort-candidates.XXXXXX", dir && *dir ? dir : "/tmp");
	if ((fd = mkstemp(path)) < 0)
		return err_set(e, ERR_IO, "%s: cannot write: %s", path, strerror(errno));
	if ((fp = fdopen(fd, "wb")) == NULL) {
		close(fd);
		unlink(path);
		return err_set(e, ERR_IO, "%s: cannot write: %s", path, strerror(errno));
	}
	rc = fwrite(m->p, 1, m->len, fp) != m->len;
	rc |= fclose(fp) != 0;
	rc = rc ? err_set(e, ERR_IO, "%s: write error: %s", path, strerror(errno)) :
	          reads_back(path, m, e);
	unlink(path);
	return rc;
}

int
candbuild_run(const struct candbuild_opts *o, struct err *e)
{
	struct candbuild_positions ps = CANDBUILD_POSITIONS_INIT;
	struct outfile of = OUTFILE_INIT;
	struct buf m = BUF_INIT;
	int to_file = o->out != NULL && strcmp(o->out, "-") != 0, rc = -1;

	if (candbuild_positions_read(o->positions, &ps, e) < 0)
		return -1;
	/* a bad output path is found before the engine spends its time */
	if (to_file && outfile_open(&of, o->out, e) < 0)
		goto done;
	if (analyse(o, &ps, &m, e) < 0)
		goto done;
	if (to_file) {
		if (outfile_write(&of, m.p, m.len, e) < 0)
			goto done;
		if (fflush(of.fp) != 0) {
			err_set(e, ERR_IO, "%s: write error: %s", o->out, strerror(errno));
			goto done;
		}
		if (reads_back(of.tmp, &m, e) < 0 || outfile_commit(&of, e) < 0)
			goto done;
	} else if (reads_back_copy(&m, e) < 0 || io_write_all(NULL, m.p, m.len, e) < 0) {
		goto done;
	}
	rc = 0;
done:
	outfile_abort(&of);
	buf_release(&m);
	candbuild_positions_release(&ps);
	return rc;
}
