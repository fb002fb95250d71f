/* candidates.c: reading cohort.candidates/1 manifests (candidates.h). */
#include "candidates.h"

#include <stdlib.h>
#include <string.h>

#include "../common/buf.h"
#include "../common/io.h"
#include "../json/json.h"

#define CAND_MAX_MULTIPV 256

const char *const cand_split_names[3] = { "explore", "confirm", "heldout" };
const char *const cand_phase_names[3] = { "opening", "middlegame", "endgame" };
const char *const cand_kind_names[3] = { "tactical", "ambiguous", "quiet" };

static int
word(const cJSON *o, const char *key, const char *const *words, int n, int *out, struct err *e)
{
	const char *s;

	if (json_get_string(o, key, 1, &s, e) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (strcmp(s, words[i]) == 0) {
			*out = i;
			return 0;
		}
	return err_set(e, ERR_INPUT, "\"%s\": expected %s, %s or %s, found \"%.40s\"", key, words[0],
	    words[1], words[2], s);
}

static int
read_head(struct candidates *c, const cJSON *h, struct err *e)
{
	const char *kind, *s;
	const cJSON *opts;
	long long v;

	if (!cJSON_IsObject(h))
		return err_set(e, ERR_INPUT, "expected the cohort.candidates/1 header object");
	if (json_get_string(h, "kind", 1, &kind, e) < 0)
		return -1;
	if (strcmp(kind, "cohort.candidates/1") != 0)
		return err_set(e, ERR_INPUT, "\"kind\": expected cohort.candidates/1, found %.60s", kind);
	if (json_get_string(h, "name", 1, &c->name, e) < 0 ||
	    json_get_object(h, "engine", 1, &c->engine, e) < 0)
		return -1;
	if (json_get_string(c->engine, "name", 1, &s, e) < 0 ||
	    json_get_string(c->engine, "binary_sha256", 1, &s, e) < 0 ||
	    json_get_object(c->engine, "options", 1, &opts, e) < 0)
		return err_prefix(e, "\"engine\"");
	if (strlen(s) != 64 || strspn(s, "0123456789abcdef") != 64)
		return err_set(e, ERR_INPUT, "\"engine\": \"binary_sha256\": expected 64 lowercase hex digits");
	if (json_get_int(c->engine, "nodes", 1, 1, 1000000000000LL, &v, e) < 0)
		return err_prefix(e, "\"engine\"");
	c->nodes = (long)v;
	if (json_get_int(c->engine, "multipv", 1, 1, CAND_MAX_MULTIPV, &v, e) < 0)
		return err_prefix(e, "\"engine\"");
	c->multipv = (long)v;
	c->head = h;
	return 0;
}

/* One scored move: "uci" legal in pos, and "cp" or "mate" (a candidate),
 * or a bare value (an evals entry: an integer or {"mate": n}). */
static int
read_score(const cJSON *o, struct cand_move *m, struct err *e)
{
	long long v;
	const char *b;
	int hc = json_get(o, "cp") != NULL, hm = json_get(o, "mate") != NULL, rc;

	if (hc == hm)
		return err_set(e, ERR_INPUT, "expected one of \"cp\" and \"mate\"");
	if (json_get_int(o, hc ? "cp" : "mate", 1, -1000000, 1000000, &v, e) < 0)
		return -1;
	if (hm && v == 0)
		return err_set(e, ERR_INPUT, "\"mate\": expected a move count other than 0");
	m->mate = hm;
	m->score = (long)v;
	rc = json_get_string(o, "bound", 0, &b, e);
	if (rc < 0)
		return -1;
	m->bound = CAND_EXACT;
	if (rc == 0 && strcmp(b, "upper") == 0)
		m->bound = CAND_UPPER;
	else if (rc == 0 && strcmp(b, "lower") == 0)
		m->bound = CAND_LOWER;
	else if (rc == 0)
		return err_set(e, ERR_INPUT, "\"bound\": expected upper or lower");
	return 0;
}

static int
read_move(const struct chess_pos *pos, const char *text, struct cand_move *m, struct err *e)
{
	if (chess_uci_read(pos, text, &m->m, e) < 0)
		return -1;
	chess_uci_write(m->m, m->uci);
	return 0;
}

static int
seen_before(const struct cand_move *ms, size_t n, struct chess_move m)
{
	for (size_t i = 0; i < n; i++)
		if (chess_move_same(ms[i].m, m))
			return 1;
	return 0;
}

static int
read_candidates(const struct candidates *c, struct cand_position *p, struct err *e)
{
	const cJSON *arr, *o;

	if (json_get_array(p->json, "candidates", 1, &arr, e) < 0)
		return -1;
	if (cJSON_GetArraySize(arr) > c->multipv)
		return err_set(e, ERR_INPUT, "\"candidates\": %d, more than the engine's multipv %ld",
		    cJSON_GetArraySize(arr), c->multipv);
	p->cand = calloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof *p->cand);
	if (p->cand == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	cJSON_ArrayForEach(o, arr) {
		struct cand_move *m = &p->cand[p->ncand];
		const char *uci;
		if (!cJSON_IsObject(o) || json_get_string(o, "uci", 1, &uci, e) < 0 ||
		    read_move(&p->pos, uci, m, e) < 0 || read_score(o, m, e) < 0)
			return err_prefix(e, "\"candidates\"[%zu]", p->ncand);
		if (seen_before(p->cand, p->ncand, m->m))
			return err_set(e, ERR_INPUT, "\"candidates\"[%zu]: %s given twice", p->ncand, m->uci);
		m->pv = json_get(o, "pv");
		m->san = json_get(o, "san");
		p->ncand++;
	}
	return 0;
}

static int
read_evals(struct cand_position *p, struct err *e)
{
	const cJSON *ev, *v;
	int rc = json_get_object(p->json, "evals", 0, &ev, e);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	p->evals = calloc((size_t)cJSON_GetArraySize(ev) + 1, sizeof *p->evals);
	if (p->evals == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	cJSON_ArrayForEach(v, ev) {
		struct cand_move *m = &p->evals[p->neval];
		if (read_move(&p->pos, v->string, m, e) < 0)
			return err_prefix(e, "\"evals\"");
		if (seen_before(p->cand, p->ncand, m->m))
			return err_set(e, ERR_INPUT, "\"evals\": %s is a candidate too", m->uci);
		if (cJSON_IsNumber(v)) {
			if (!(v->valuedouble >= -1e6 && v->valuedouble <= 1e6) ||
			    v->valuedouble != (double)(long)v->valuedouble)
				return err_set(e, ERR_INPUT, "\"evals\": \"%s\": expected whole centipawns",
				    m->uci);
			m->score = (long)v->valuedouble;
		} else if (!cJSON_IsObject(v) || read_score(v, m, e) < 0 || !m->mate) {
			return err_set(e, ERR_INPUT, "\"evals\": \"%s\": expected centipawns or {\"mate\": n}",
			    m->uci);
		}
		p->neval++;
	}
	return 0;
}

static uint64_t uci_pack(const char *text);

/* p's legal moves, kept: a million decisions are read against a few
 * hundred positions, and generating the moves for each was a tenth of a
 * decision's reading.  -1 out of memory. */
static int
legal_moves(struct cand_position *p)
{
	struct chess_move m[CHESS_MAX_MOVES];
	char uci[CHESS_UCI_MAX];

	p->nlegal = chess_moves(&p->pos, m);
	p->legal = malloc(((size_t)p->nlegal + 1) * sizeof *m);
	p->legal_uci = malloc(((size_t)p->nlegal + 1) * sizeof *p->legal_uci);
	if (p->legal == NULL || p->legal_uci == NULL)
		return -1;
	memcpy(p->legal, m, (size_t)p->nlegal * sizeof *m);
	for (int i = 0; i < p->nlegal; i++) {
		chess_uci_write(m[i], uci);
		p->legal_uci[i] = uci_pack(uci);
	}
	return 0;
}

/* A move's UCI text (at most five bytes) as one number, its bytes in
 * order and zero after: equal numbers, equal texts.  0 for a text too long
 * to be one. */
static uint64_t
uci_pack(const char *text)
{
	uint64_t x = 0;
	size_t i;

	for (i = 0; i < 6 && text[i] != '\0'; i++)
		x |= (uint64_t)(unsigned char)text[i] << (8 * i);
	return i > 5 ? 0 : x;
}

int
cand_legal_move(const struct cand_position *p, const char *text, struct chess_move *m)
{
	uint64_t x = uci_pack(text);

	for (int i = 0; x != 0 && i < p->nlegal; i++)
		if (p->legal_uci[i] == x) {
			*m = p->legal[i];
			return 0;
		}
	return -1;
}

/* p's candidates first among its legal moves, in their order: the moves
 * a decision shows and chooses are mostly those, found at once. */
static void
candidates_first(struct cand_position *p)
{
	int k = 0;

	for (size_t c = 0; c < p->ncand; c++)
		for (int i = k; i < p->nlegal; i++)
			if (chess_move_same(p->legal[i], p->cand[c].m)) {
				struct chess_move m = p->legal[i];
				uint64_t u = p->legal_uci[i];
				p->legal[i] = p->legal[k], p->legal_uci[i] = p->legal_uci[k];
				p->legal[k] = m, p->legal_uci[k] = u;
				k++;
				break;
			}
}

static int
read_position(const struct candidates *c, struct cand_position *p, const struct cand_position *prev,
    struct err *e)
{
	const cJSON *st;
	int v, to_move;

	if (!cJSON_IsObject(p->json))
		return err_set(e, ERR_INPUT, "expected a position object");
	if (json_get_string(p->json, "position_id", 1, &p->id, e) < 0)
		return -1;
	if (p->id[0] == '\0')
		return err_set(e, ERR_INPUT, "\"position_id\": empty");
	if (prev != NULL && strcmp(prev->id, p->id) >= 0)
		return err_set(e, ERR_INPUT, "\"position_id\": \"%.60s\" is not after \"%.60s\" (positions "
		    "are unique and in position_id order)", p->id, prev->id);
	if (json_get_string(p->json, "fen", 1, &p->fen, e) < 0)
		return -1;
	if (chess_fen_read(&p->pos, p->fen, e) < 0)
		return err_prefix(e, "\"fen\"");
	if (legal_moves(p) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (word(p->json, "split", cand_split_names, 3, &v, e) < 0)
		return -1;
	p->split = (enum cand_split)v;
	if (json_get_string(p->json, "opening", 1, &p->opening, e) < 0)
		return -1;
	if (json_get_object(p->json, "stratum", 1, &st, e) < 0)
		return -1;
	if (word(st, "phase", cand_phase_names, 3, &v, e) < 0)
		return err_prefix(e, "\"stratum\"");
	p->phase = (enum cand_phase)v;
	if (word(st, "kind", cand_kind_names, 3, &v, e) < 0)
		return err_prefix(e, "\"stratum\"");
	p->kind = (enum cand_kind)v;
	if (word(st, "to_move", (const char *const[]){ "white", "black", "white" }, 3, &to_move, e) < 0)
		return err_prefix(e, "\"stratum\"");
	if (to_move != p->pos.side)
		return err_set(e, ERR_INPUT, "\"stratum\": \"to_move\": the FEN has %s to move",
		    p->pos.side ? "black" : "white");
	if (read_candidates(c, p, e) < 0 || read_evals(p, e) < 0)
		return -1;
	candidates_first(p);
	return 0;
}

/* Every line of p[0..n) parsed and digested in its canonical form;
 * lines[k] gets tree k's line number. */
static int
read_lines(struct candidates *c, const char *p, size_t n, const char *name, long **lines,
    struct hash *h, struct err *e)
{
	struct buf canon = BUF_INIT;
	size_t cap = 0;
	long lineno = 0;
	int rc = 0;

	for (size_t at = 0; at < n && rc == 0;) {
		const char *nl = memchr(p + at, '\n', n - at);
		size_t len = nl ? (size_t)(nl - (p + at)) : n - at;
		const char *text = p + at;
		cJSON *t;
		at += len + (nl != NULL);
		lineno++;
		if (len == 0 || (len == 1 && text[0] == '\r'))
			continue;
		if (c->ntrees == cap) {
			size_t nc = cap ? 2 * cap : 256;
			cJSON **x = realloc(c->trees, nc * sizeof *x);
			long *y = x ? realloc(*lines, nc * sizeof *y) : NULL;
			if (x != NULL)
				c->trees = x;
			if (y == NULL) {
				rc = err_set(e, ERR_NOMEM, "out of memory");
				break;
			}
			*lines = y;
			cap = nc;
		}
		if ((t = json_parse(text, len, name, lineno, e)) == NULL) {
			rc = -1;
			break;
		}
		(*lines)[c->ntrees] = lineno;
		c->trees[c->ntrees++] = t;
		buf_reset(&canon);
		if (canon_write(t, &canon, e) < 0 || buf_addc(&canon, '\n') < 0) {
			rc = -1;
			break;
		}
		hash_update(h, canon.p, canon.len);
	}
	buf_release(&canon);
	return rc;
}

static int
read_all(struct candidates *c, const char *p, size_t n, const char *name, struct err *e)
{
	struct hash *h = hash_new();
	long *lines = NULL;
	uint8_t d[HASH_LEN];
	int rc = -1;

	if (h == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (read_lines(c, p, n, name, &lines, h, e) < 0)
		goto done;
	hash_final(h, d);
	hash_id_format(d, c->id);
	hash_bytes(p, n, d);
	hash_id_format(d, c->file_id);
	if (c->ntrees == 0) {
		err_set(e, ERR_INPUT, "%s: empty: expected the cohort.candidates/1 header", name);
		goto done;
	}
	if (read_head(c, c->trees[0], e) < 0) {
		err_prefix(e, "%s:%ld", name, lines[0]);
		goto done;
	}
	c->p = calloc(c->ntrees, sizeof *c->p);
	if (c->p == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (size_t k = 1; k < c->ntrees; k++) {
		struct cand_position *q = &c->p[k - 1];
		q->json = c->trees[k];
		q->line = lines[k];
		if (read_position(c, q, k > 1 ? &c->p[k - 2] : NULL, e) < 0) {
			err_prefix(e, "%s:%ld", name, lines[k]);
			goto done;
		}
		c->n = k;
	}
	rc = 0;
done:
	hash_free(h);
	free(lines);
	return rc;
}

int
cand_read_bytes(const char *p, size_t n, const char *name, struct candidates *c, struct err *e)
{
	cand_release(c);
	c->path = name;
	if (read_all(c, p, n, name, e) < 0) {
		cand_release(c);
		return -1;
	}
	return 0;
}

int
cand_read(const char *path, struct candidates *c, struct err *e)
{
	struct buf b = BUF_INIT;
	int rc = io_read_all(path, &b, CAND_MAX_BYTES, e);

	if (rc == 0)
		rc = cand_read_bytes(b.p ? b.p : "", b.len, io_name(path), c, e);
	buf_release(&b);
	return rc;
}

const char *
cand_file_id(const struct candidates *c)
{
	return strcmp(c->file_id, c->id) != 0 ? c->file_id : NULL;
}

int
cand_canonical(const struct candidates *c, struct buf *out, struct err *e)
{
	for (size_t k = 0; k < c->ntrees; k++)
		if (canon_write(c->trees[k], out, e) < 0 || buf_addc(out, '\n') < 0)
			return e->code ? -1 : err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

void
cand_release(struct candidates *c)
{
	if (c == NULL)
		return;
	for (size_t k = 0; k < c->ntrees; k++)
		cJSON_Delete(c->trees[k]);
	for (size_t i = 0; c->p != NULL && i < c->ntrees; i++) {
		free(c->p[i].cand);
		free(c->p[i].evals);
		free(c->p[i].legal);
		free(c->p[i].legal_uci);
	}
	free(c->p);
	free(c->trees);
	memset(c, 0, sizeof *c);
}

const struct cand_position *
cand_find(const struct candidates *c, const char *position_id)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = strcmp(c->p[mid].id, position_id);
		if (cmp == 0)
			return &c->p[mid];
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

long
cand_value(const struct cand_move *m)
{
	if (!m->mate)
		return m->score;
	return m->score > 0 ? CAND_MATE_CP - CAND_MATE_STEP * m->score :
	    -(CAND_MATE_CP + CAND_MATE_STEP * m->score);
}


const struct cand_move *
cand_score_of(const struct cand_position *p, struct chess_move m, int *rank)
{
	for (size_t i = 0; i < p->ncand; i++)
		if (chess_move_same(p->cand[i].m, m)) {
			*rank = (int)i;
			return &p->cand[i];
		}
	*rank = -1;
	for (size_t i = 0; i < p->neval; i++)
		if (chess_move_same(p->evals[i].m, m))
			return &p->evals[i];
	return NULL;
}
