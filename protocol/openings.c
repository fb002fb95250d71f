/* openings.c: opening suites (openings.h), and where a game starts. */
#include "openings.h"

#include <stdlib.h>
#include <string.h>

#include "../common/io.h"
#include "../json/json.h"

int
openings_same_position(const struct chess_pos *a, const struct chess_pos *b)
{
	char x[CHESS_FEN_MAX], y[CHESS_FEN_MAX];
	const char *p;
	int spaces = 0;

	chess_fen_write(a, x);
	chess_fen_write(b, y);
	/* the first four fields: up to the fourth space */
	for (p = x; *p != '\0' && spaces < 4; p++)
		spaces += *p == ' ';
	return strncmp(x, y, (size_t)(p - x)) == 0;
}

/* The position after playing the n UCI moves of arr from *pos. */
static int
play_list(const cJSON *arr, long k, struct chess_pos *pos, long *played, struct err *e)
{
	const cJSON *it;
	long i = 0;

	*played = 0;
	if (!cJSON_IsArray(arr))
		return err_set(e, ERR_INPUT, "\"moves\": expected an array of UCI moves");
	if (cJSON_GetArraySize(arr) > OPENINGS_MAX_PLIES)
		return err_set(e, ERR_INPUT, "\"moves\": more than %d", OPENINGS_MAX_PLIES);
	cJSON_ArrayForEach(it, arr) {
		struct chess_move m;
		if (k >= 0 && i >= k)
			break;
		if (!cJSON_IsString(it))
			return err_set(e, ERR_INPUT, "\"moves\"[%ld]: expected a UCI move", i);
		if (chess_uci_read(pos, it->valuestring, &m, e) < 0)
			return err_prefix(e, "\"moves\"[%ld]", i);
		chess_play(pos, m);
		i++;
	}
	*played = i;
	return 0;
}

static int
read_opening(const cJSON *t, struct opening *o, struct err *e)
{
	const cJSON *fen = json_get(t, "fen"), *mv = json_get(t, "moves");
	struct chess_pos at;
	long played;

	if (!cJSON_IsObject(t))
		return err_set(e, ERR_INPUT, "expected an opening object");
	if (json_get_string(t, "opening", 1, &o->id, e) < 0)
		return -1;
	if (o->id[0] == '\0')
		return err_set(e, ERR_INPUT, "\"opening\": empty");
	if (fen == NULL && mv == NULL)
		return err_set(e, ERR_INPUT, "expected \"fen\" or \"moves\"");
	if (fen != NULL) {
		if (!cJSON_IsString(fen))
			return err_set(e, ERR_INPUT, "\"fen\": expected a FEN string");
		if (chess_fen_read(&o->pos, fen->valuestring, e) < 0)
			return err_prefix(e, "\"fen\"");
		o->plies = 2 * ((long)o->pos.fullmove - 1) + (o->pos.side == CHESS_BLACK);
	}
	if (mv != NULL) {
		chess_start(&at);
		if (play_list(mv, -1, &at, &played, e) < 0)
			return -1;
		if (fen != NULL && !openings_same_position(&at, &o->pos))
			return err_set(e, ERR_INPUT, "\"moves\": they do not reach its \"fen\"");
		if (fen == NULL)
			o->pos = at;
		o->plies = played;
	}
	return 0;
}

static int
id_cmp(const void *a, const void *b)
{
	return strcmp(((const struct opening *)a)->id, ((const struct opening *)b)->id);
}

/* Every line of p[0..n) parsed, its canonical form digested; lines[k]
 * gets tree k's line number. */
static int
read_lines(struct openings *s, const char *p, size_t n, const char *name, long **lines,
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
		if (s->ntrees == cap) {
			size_t nc = cap ? 2 * cap : 64;
			cJSON **x = realloc(s->trees, nc * sizeof *x);
			long *y = x ? realloc(*lines, nc * sizeof *y) : NULL;
			if (x != NULL)
				s->trees = x;
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
		(*lines)[s->ntrees] = lineno;
		s->trees[s->ntrees++] = t;
		buf_reset(&canon);
		if (canon_write(t, &canon, e) < 0 || buf_addc(&canon, '\n') < 0) {
			rc = e->code ? -1 : err_set(e, ERR_NOMEM, "out of memory");
			break;
		}
		hash_update(h, canon.p, canon.len);
	}
	buf_release(&canon);
	return rc;
}

static int
read_head(struct openings *s, const cJSON *h, struct err *e)
{
	const char *kind;

	if (!cJSON_IsObject(h))
		return err_set(e, ERR_INPUT, "expected the cohort.openings/1 header object");
	if (json_get_string(h, "kind", 1, &kind, e) < 0)
		return -1;
	if (strcmp(kind, "cohort.openings/1") != 0)
		return err_set(e, ERR_INPUT, "\"kind\": expected cohort.openings/1, found %.60s", kind);
	return json_get_string(h, "name", 1, &s->name, e);
}

static int
read_all(struct openings *s, const char *p, size_t n, const char *name, struct err *e)
{
	struct hash *h = hash_new();
	long *lines = NULL;
	uint8_t d[HASH_LEN];
	int rc = -1;

	if (h == NULL || hash_init(h) < 0) {
		hash_free(h);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	if (read_lines(s, p, n, name, &lines, h, e) < 0)
		goto done;
	hash_final(h, d);
	hash_id_format(d, s->id);
	if (s->ntrees == 0) {
		err_set(e, ERR_INPUT, "%s: empty: expected the cohort.openings/1 header", name);
		goto done;
	}
	if (read_head(s, s->trees[0], e) < 0) {
		err_prefix(e, "%s:%ld", name, lines[0]);
		goto done;
	}
	if (s->ntrees < 2) {
		err_set(e, ERR_INPUT, "%s: the suite holds no opening", name);
		goto done;
	}
	if ((s->v = calloc(s->ntrees, sizeof *s->v)) == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	for (size_t k = 1; k < s->ntrees; k++) {
		s->v[k - 1].line = lines[k];
		if (read_opening(s->trees[k], &s->v[k - 1], e) < 0) {
			err_prefix(e, "%s:%ld", name, lines[k]);
			goto done;
		}
		s->n = k;
	}
	qsort(s->v, s->n, sizeof *s->v, id_cmp);
	for (size_t i = 1; i < s->n; i++)
		if (strcmp(s->v[i].id, s->v[i - 1].id) == 0) {
			long a = s->v[i].line < s->v[i - 1].line ? s->v[i - 1].line : s->v[i].line;
			err_set(e, ERR_INPUT, "%s:%ld: \"opening\": \"%.60s\" given twice", name, a,
			    s->v[i].id);
			goto done;
		}
	rc = 0;
done:
	hash_free(h);
	free(lines);
	return rc;
}

int
openings_read_bytes(const char *p, size_t n, const char *name, struct openings *s,
    struct err *e)
{
	openings_release(s);
	if (read_all(s, p, n, name, e) < 0) {
		openings_release(s);
		return -1;
	}
	return 0;
}

int
openings_read(const char *path, struct openings *s, struct err *e)
{
	struct buf b = BUF_INIT;
	int rc = io_read_all(path, &b, OPENINGS_MAX_BYTES, e);

	if (rc == 0)
		rc = openings_read_bytes(b.p ? b.p : "", b.len, io_name(path), s, e);
	buf_release(&b);
	return rc;
}

int
openings_canonical(const struct openings *s, struct buf *out, struct err *e)
{
	for (size_t k = 0; k < s->ntrees; k++)
		if (canon_write(s->trees[k], out, e) < 0 || buf_addc(out, '\n') < 0)
			return e->code ? -1 : err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

void
openings_release(struct openings *s)
{
	if (s == NULL)
		return;
	for (size_t k = 0; k < s->ntrees; k++)
		cJSON_Delete(s->trees[k]);
	free(s->trees);
	free(s->v);
	*s = (struct openings)OPENINGS_INIT;
}

const struct opening *
openings_find(const struct openings *s, const char *id)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(id, s->v[mid].id);
		if (c == 0)
			return &s->v[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

int
openings_game_start(const cJSON *rec, struct chess_pos *pos, int *set_up, struct err *e)
{
	const cJSON *tags = json_get(rec, "pgn_tags"), *fen = json_get(tags, "FEN");
	const cJSON *op = json_get(rec, "opening");
	struct err ignore = ERR_INIT;

	*set_up = 1;
	if (fen != NULL) {
		if (!cJSON_IsString(fen))
			return err_set(e, ERR_INPUT, "\"pgn_tags\": \"FEN\": expected a FEN string");
		if (chess_fen_read(pos, fen->valuestring, e) < 0)
			return err_prefix(e, "\"pgn_tags\": \"FEN\"");
		return 0;
	}
	if (cJSON_IsString(op) && chess_fen_read(pos, op->valuestring, &ignore) == 0)
		return 0;
	chess_start(pos);
	*set_up = 0;
	return 0;
}

int
openings_game_replay(const cJSON *rec, long k, struct chess_pos *pos, long *played,
    struct err *e)
{
	const cJSON *mv = json_get(rec, "moves");
	int set_up;

	*played = 0;
	if (openings_game_start(rec, pos, &set_up, e) < 0)
		return -1;
	return mv == NULL ? 0 : play_list(mv, k, pos, played, e);
}

int
openings_game_check(const struct opening *o, const cJSON *rec, struct err *e)
{
	struct chess_pos start, at;
	long played;
	int set_up;

	if (openings_game_start(rec, &start, &set_up, e) < 0)
		return -1;
	if (openings_same_position(&start, &o->pos))
		return 0;
	if (set_up)
		return err_set(e, ERR_INPUT, "\"pgn_tags\": it starts from a position set up that is "
		    "not its opening's (\"%.60s\")", o->id);
	if (json_get(rec, "moves") == NULL)
		return err_set(e, ERR_INPUT, "\"moves\": missing: a game of an opening suite needs "
		    "its moves (or a FEN it starts from) to show that it starts from its opening");
	if (openings_game_replay(rec, o->plies, &at, &played, e) < 0)
		return -1;
	if (played < o->plies)
		return err_set(e, ERR_INPUT, "\"moves\": the game ends after %ld plies, before its "
		    "opening's position (\"%.60s\", ply %ld)", played, o->id, o->plies);
	if (!openings_same_position(&at, &o->pos))
		return err_set(e, ERR_INPUT, "\"moves\": after its first %ld plies the game is not "
		    "at its opening's position (\"%.60s\"): it did not start from its opening",
		    o->plies, o->id);
	return 0;
}
