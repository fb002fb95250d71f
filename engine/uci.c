/* uci.c: the words of `info`, `option` and `bestmove` lines. */
#include "uci.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../common/buf.h"

static int
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

char *
engine_uci_word(char **cur)
{
	char *s = *cur, *w;

	while (is_blank(*s))
		s++;
	if (*s == '\0') {
		*cur = s;
		return NULL;
	}
	w = s;
	while (*s != '\0' && !is_blank(*s))
		s++;
	if (*s != '\0')
		*s++ = '\0';
	*cur = s;
	return w;
}

char *
engine_uci_rest(char **cur)
{
	char *s = *cur, *end;

	while (is_blank(*s))
		s++;
	end = s + strlen(s);
	while (end > s && is_blank(end[-1]))
		end--;
	*end = '\0';
	*cur = end;
	return s;
}

#define PEEK_MAX 32 /* longer than any keyword or move */

/* A copy of the next word (cut at PEEK_MAX bytes), leaving it in place to
 * be taken by engine_uci_word; NULL when none is left. */
static const char *
peek_word(const char *cur, char w[PEEK_MAX + 1])
{
	size_t n = 0;

	while (is_blank(*cur))
		cur++;
	while (cur[n] != '\0' && !is_blank(cur[n]) && n < PEEK_MAX) {
		w[n] = cur[n];
		n++;
	}
	w[n] = '\0';
	return n > 0 ? w : NULL;
}

int
engine_uci_move_ok(const char *s)
{
	size_t n = strlen(s);

	if (n != 4 && n != 5)
		return 0;
	for (int i = 0; i < 4; i += 2)
		if (s[i] < 'a' || s[i] > 'h' || s[i + 1] < '1' || s[i + 1] > '8')
			return 0;
	return n == 4 || strchr("qrbn", s[4]) != NULL;
}

static int
parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (s == NULL || *s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		uint64_t d = (uint64_t)(*s - '0');
		if (*s < '0' || *s > '9' || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

static int
parse_int(const char *s, int *v)
{
	uint64_t x;
	int neg = s != NULL && *s == '-';

	if (parse_u64(neg ? s + 1 : s, &x) < 0 || x > (uint64_t)INT_MAX)
		return -1;
	*v = neg ? -(int)x : (int)x;
	return 0;
}

static int
parse_ll(const char *s, long long *v)
{
	uint64_t x;
	int neg = s != NULL && *s == '-';

	if (parse_u64(neg ? s + 1 : s, &x) < 0 || x > (uint64_t)LLONG_MAX)
		return -1;
	*v = neg ? -(long long)x : (long long)x;
	return 0;
}

/* ---- info ---- */

static int
is_info_key(const char *w)
{
	static const char *const keys[] = { "depth", "seldepth", "time", "nodes", "pv",
		"multipv", "score", "currmove", "currmovenumber", "hashfull", "nps", "tbhits",
		"sbhits", "cpuload", "string", "refutation", "currline" };

	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (strcmp(w, keys[i]) == 0)
			return 1;
	return 0;
}

const char *
engine_uci_shown(const char *s, char out[ENGINE_SHOWN_MAX + 1])
{
	size_t i;

	for (i = 0; s[i] != '\0' && i < ENGINE_SHOWN_MAX; i++)
		out[i] = s[i] < 0x20 || s[i] > 0x7e || s[i] == '"' ? '?' : s[i];
	out[i] = '\0';
	return out;
}

static int
bad_info(struct err *e, const char *what, const char *w)
{
	char q[ENGINE_SHOWN_MAX + 1];

	if (w == NULL)
		return err_set(e, ERR_INPUT, "malformed info line: %s", what);
	return err_set(e, ERR_INPUT, "malformed info line: %s \"%s\"", what,
	    engine_uci_shown(w, q));
}

/* Moves up to the next info keyword, kept in one block: npv pointers, then
 * the strings. */
static int
read_moves(char **cur, char ***pv, size_t *npv, struct err *e)
{
	char **tmp = NULL, pk[PEEK_MAX + 1];
	const char *w;
	size_t n = 0, bytes = 0;

	while ((w = peek_word(*cur, pk)) != NULL && !is_info_key(w)) {
		if (!engine_uci_move_ok(w)) {
			free(tmp);
			return bad_info(e, "not a move in a pv", w);
		}
		char **t = realloc(tmp, (n + 1) * sizeof *t);
		if (t == NULL) {
			free(tmp);
			return err_set(e, ERR_NOMEM, "out of memory");
		}
		tmp = t;
		tmp[n] = engine_uci_word(cur);
		bytes += strlen(tmp[n++]) + 1;
	}
	char **block = malloc(n * sizeof *block + bytes + 1);
	if (block == NULL) {
		free(tmp);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	char *s = (char *)(block + n);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(tmp[i]) + 1;
		memcpy(s, tmp[i], len);
		block[i] = s;
		s += len;
	}
	free(tmp);
	free(*pv);
	*pv = block;
	*npv = n;
	return 0;
}

/* score [cp N | mate N] [lowerbound | upperbound] [wdl W D L] */
static int
read_score(char **cur, struct engine_info *in, struct err *e)
{
	char pk[PEEK_MAX + 1];
	const char *w;
	int any = 0;

	while ((w = peek_word(*cur, pk)) != NULL) {
		int *dst = NULL;
		if (strcmp(w, "cp") == 0) {
			dst = &in->cp;
			in->has_cp = 1;
			in->has_mate = 0;
		} else if (strcmp(w, "mate") == 0) {
			dst = &in->mate;
			in->has_mate = 1;
			in->has_cp = 0;
		} else if (strcmp(w, "lowerbound") == 0) {
			in->bound = ENGINE_LOWER;
		} else if (strcmp(w, "upperbound") == 0) {
			in->bound = ENGINE_UPPER;
		} else if (strcmp(w, "wdl") == 0) {
			engine_uci_word(cur);
			for (int i = 0; i < 3; i++) {
				uint64_t x;
				if (parse_u64(engine_uci_word(cur), &x) < 0)
					return bad_info(e, "wdl without three numbers", NULL);
			}
			any = 1;
			continue;
		} else {
			break;
		}
		engine_uci_word(cur);
		any = 1;
		if (dst != NULL && parse_int(engine_uci_word(cur), dst) < 0)
			return bad_info(e, "score without a number after", w);
	}
	return any ? 0 : bad_info(e, "score without cp or mate", NULL);
}

/* A keyword followed by one number. */
static int
read_number(char **cur, const char *key, struct engine_info *in, struct err *e)
{
	static const char *const ints[] = { "depth", "seldepth", "multipv" };
	int *const int_dst[] = { &in->depth, &in->seldepth, &in->multipv };
	static const char *const u64s[] = { "time", "nodes", "nps" };
	uint64_t *const u64_dst[] = { &in->time_ms, &in->nodes, &in->nps };
	const char *w = engine_uci_word(cur);
	uint64_t ignored;

	for (int i = 0; i < 3; i++) {
		if (strcmp(key, ints[i]) == 0)
			return parse_int(w, int_dst[i]) < 0 || *int_dst[i] < 0
			    ? bad_info(e, "not a count after", key) : 0;
		if (strcmp(key, u64s[i]) == 0)
			return parse_u64(w, u64_dst[i]) < 0 ? bad_info(e, "not a count after", key)
			                                    : 0;
	}
	/* hashfull, tbhits, sbhits, cpuload, currmovenumber: read, not kept */
	return parse_u64(w, &ignored) < 0 ? bad_info(e, "not a count after", key) : 0;
}

static int
read_info_word(char **cur, const char *w, struct engine_info *in, struct err *e)
{
	char **skip = NULL;
	size_t nskip = 0;
	int rc;

	if (strcmp(w, "score") == 0)
		return read_score(cur, in, e);
	if (strcmp(w, "pv") == 0)
		return read_moves(cur, &in->pv, &in->npv, e);
	if (strcmp(w, "currmove") == 0)
		return engine_uci_word(cur) == NULL ? bad_info(e, "currmove without a move", NULL)
		                                    : 0;
	if (strcmp(w, "refutation") == 0 || strcmp(w, "currline") == 0) {
		char pk[PEEK_MAX + 1];
		const char *cpu = peek_word(*cur, pk);
		uint64_t x;
		if (cpu != NULL && strcmp(w, "currline") == 0 && parse_u64(cpu, &x) == 0)
			engine_uci_word(cur);
		rc = read_moves(cur, &skip, &nskip, e);
		free(skip);
		return rc;
	}
	if (is_info_key(w))
		return read_number(cur, w, in, e);
	return 0; /* an unknown word: skipped, as the protocol says */
}

int
engine_uci_info(char *cur, struct engine_info *out, struct err *e)
{
	const char *w;
	int first = 1;

	memset(out, 0, sizeof *out);
	out->multipv = 1;
	while ((w = engine_uci_word(&cur)) != NULL) {
		if (strcmp(w, "string") == 0) {
			if (first)
				return 1;
			break; /* the rest is free text */
		}
		first = 0;
		if (read_info_word(&cur, w, out, e) < 0) {
			engine_info_release(out);
			return -1;
		}
	}
	if (out->multipv < 1) {
		engine_info_release(out);
		return bad_info(e, "multipv 0", NULL);
	}
	return 0;
}

void
engine_info_release(struct engine_info *in)
{
	if (in == NULL)
		return;
	free(in->pv);
	in->pv = NULL;
	in->npv = 0;
}

/* ---- option ---- */

static int
is_option_key(const char *w)
{
	return strcmp(w, "default") == 0 || strcmp(w, "min") == 0 || strcmp(w, "max") == 0 ||
	    strcmp(w, "var") == 0;
}

/* Words up to stop (a word equal to it, or any option key when stop is
 * NULL), joined by single spaces. */
static int
join_words(char **cur, const char *stop, struct buf *b)
{
	char pk[PEEK_MAX + 1];
	const char *w;

	buf_reset(b);
	while ((w = peek_word(*cur, pk)) != NULL &&
	    !(stop ? strcmp(w, stop) == 0 : is_option_key(w))) {
		w = engine_uci_word(cur);
		if ((b->len > 0 && buf_addc(b, ' ') < 0) || buf_adds(b, w) < 0)
			return -1;
	}
	return buf_adds(b, "");
}

static int
bad_option(struct err *e, const char *what, const char *name)
{
	char q[ENGINE_SHOWN_MAX + 1];

	if (name == NULL)
		return err_set(e, ERR_INPUT, "malformed option line: %s", what);
	return err_set(e, ERR_INPUT, "malformed option line: %s \"%s\"", what,
	    engine_uci_shown(name, q));
}

static int
option_type(const char *w, enum engine_opt_type *t)
{
	static const char *const names[] = { "check", "spin", "combo", "button", "string" };

	for (int i = 0; w != NULL && i < 5; i++)
		if (strcmp(w, names[i]) == 0) {
			*t = (enum engine_opt_type)i;
			return 0;
		}
	return -1;
}

static int
add_var(struct engine_option *o, const char *v)
{
	char **t = realloc(o->vars, (o->nvars + 1) * sizeof *t);

	if (t == NULL)
		return -1;
	o->vars = t;
	if ((o->vars[o->nvars] = strdup(v)) == NULL)
		return -1;
	o->nvars++;
	return 0;
}

/* default, min, max and var, each with its words. */
static int
read_option_fields(char **cur, struct engine_option *o, struct buf *b, int *has_min,
    int *has_max, struct err *e)
{
	const char *key;

	while ((key = engine_uci_word(cur)) != NULL) {
		if (!is_option_key(key))
			return bad_option(e, "unexpected word", key);
		if (join_words(cur, NULL, b) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		if (strcmp(key, "default") == 0) {
			free(o->def);
			if ((o->def = strdup(b->p)) == NULL)
				return err_set(e, ERR_NOMEM, "out of memory");
		} else if (strcmp(key, "var") == 0) {
			if (b->len == 0)
				return bad_option(e, "empty var in", o->name);
			if (add_var(o, b->p) < 0)
				return err_set(e, ERR_NOMEM, "out of memory");
		} else {
			int is_min = strcmp(key, "min") == 0;
			if (parse_ll(b->p, is_min ? &o->min : &o->max) < 0)
				return bad_option(e, is_min ? "min not an integer in"
				                            : "max not an integer in", o->name);
			*(is_min ? has_min : has_max) = 1;
		}
	}
	return 0;
}

static int
read_option(char **cur, struct engine_option *o, struct buf *b, struct err *e)
{
	int has_min = 0, has_max = 0;
	const char *w = engine_uci_word(cur);
	long long ignored;

	if (w == NULL || strcmp(w, "name") != 0)
		return bad_option(e, "no name", NULL);
	if (join_words(cur, "type", b) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (b->len == 0)
		return bad_option(e, "no name", NULL);
	if ((o->name = strdup(b->p)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	w = engine_uci_word(cur); /* "type", or none */
	if (w == NULL || option_type(engine_uci_word(cur), &o->type) < 0)
		return bad_option(e, "no known type for", o->name);
	if (read_option_fields(cur, o, b, &has_min, &has_max, e) < 0)
		return -1;
	if (o->type == ENGINE_OPT_SPIN && (!has_min || !has_max || o->min > o->max))
		return bad_option(e, "spin without min <= max:", o->name);
	if (o->type == ENGINE_OPT_SPIN && o->def != NULL && parse_ll(o->def, &ignored) < 0)
		return bad_option(e, "spin default not an integer:", o->name);
	if (o->type == ENGINE_OPT_CHECK && o->def != NULL && strcmp(o->def, "true") != 0 &&
	    strcmp(o->def, "false") != 0)
		return bad_option(e, "check default not true or false:", o->name);
	if (o->type == ENGINE_OPT_COMBO && o->nvars == 0)
		return bad_option(e, "combo without vars:", o->name);
	return 0;
}

int
engine_uci_option(char *cur, struct engine_option *out, struct err *e)
{
	struct buf b = BUF_INIT;
	int rc;

	memset(out, 0, sizeof *out);
	rc = read_option(&cur, out, &b, e);
	buf_release(&b);
	if (rc < 0)
		engine_option_release(out);
	return rc;
}

void
engine_option_release(struct engine_option *o)
{
	if (o == NULL)
		return;
	free(o->name);
	free(o->def);
	for (size_t i = 0; i < o->nvars; i++)
		free(o->vars[i]);
	free(o->vars);
	memset(o, 0, sizeof *o);
}

/* ---- bestmove ---- */

static int
read_move(const char *w, char out[8])
{
	out[0] = '\0';
	if (strcmp(w, "(none)") == 0 || strcmp(w, "0000") == 0)
		return 0;
	if (!engine_uci_move_ok(w))
		return -1;
	strcpy(out, w);
	return 0;
}

int
engine_uci_bestmove(char *cur, char best[8], char ponder[8], struct err *e)
{
	const char *w = engine_uci_word(&cur);
	char q[ENGINE_SHOWN_MAX + 1];

	ponder[0] = '\0';
	if (w == NULL || read_move(w, best) < 0)
		return err_set(e, ERR_INPUT, "malformed bestmove \"%s\"",
		    w ? engine_uci_shown(w, q) : "");
	w = engine_uci_word(&cur);
	if (w != NULL && strcmp(w, "ponder") == 0) {
		w = engine_uci_word(&cur);
		if (w == NULL || read_move(w, ponder) < 0)
			return err_set(e, ERR_INPUT, "malformed ponder move \"%s\"",
			    w ? engine_uci_shown(w, q) : "");
	}
	return 0;
}
