/* map.c: the tag map (cohort.pgn-map/1): the built-in map, and a map file
 * read over it key by key.  schemas/pgn-map.schema.json and
 * cohort-import(1) describe the document. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/io.h"
#include "../common/ts.h"
#include "../json/json.h"

const struct pgnio_field_info pgnio_fields[F_N] = {
	[F_MODEL] = { "model", T_COLOR },
	[F_GAME_ID] = { "game_id", T_STRING },
	[F_FAMILY] = { "family", T_STRING },
	[F_CONDITION] = { "condition", T_STRING },
	[F_BLOCK] = { "block", T_BLOCK },
	[F_REQUESTED] = { "model.requested", T_STRING },
	[F_RETURNED] = { "model.returned", T_STRING },
	[F_ENGINE] = { "anchor.engine", T_STRING },
	[F_ELO] = { "anchor.elo", T_NUMBER },
	[F_LIMITER] = { "anchor.limiter", T_STRING },
	[F_TIME_S] = { "anchor.time_s", T_PERMOVE },
	[F_NODES] = { "anchor.nodes", T_NUMBER },
	[F_SHA] = { "anchor.binary_sha256", T_STRING },
	[F_OPENING] = { "opening", T_STRING },
	[F_STARTED] = { "started_at", T_TIME },
	[F_ENDED] = { "ended_at", T_TIME },
	[F_TERMINATION] = { "termination", T_STRING },
	[F_TOKENS] = { "tokens", T_OBJECT },
	[F_TOKENS_INPUT] = { "tokens.input", T_NUMBER },
	[F_TOKENS_OUTPUT] = { "tokens.output", T_NUMBER },
	[F_TOKENS_REASONING] = { "tokens.reasoning", T_NUMBER },
	[F_TOKENS_CACHED] = { "tokens.cached", T_NUMBER },
	[F_WALL] = { "wall_s", T_SECONDS },
	[F_WORKER] = { "worker_hours", T_NUMBER },
	[F_REQUESTS] = { "requests", T_ARRAY },
	[F_EXTRA] = { "extra", T_OBJECT },
};

#define TAG(t) "{\"tag\":\"" t "\"}"

/* The built-in map: the standard tags cutechess-cli and fastchess write,
 * and the exporter's own (internal.h), so that a PGN the exporter wrote
 * reads back as the records it came from. */
/* clang-format off */
static const char builtin[] =
    "{\"kind\":\"" PGNIO_MAP_KIND "\","
    "\"model\":" TAG(TAG_COLOR) ","
    "\"game_id\":[" TAG(TAG_GAME_ID) ",{\"format\":\"{file}-{game}\"}],"
    "\"family\":" TAG(TAG_FAMILY) ","
    "\"condition\":" TAG(TAG_CONDITION) ","
    "\"block\":" TAG(TAG_BLOCK) ","
    "\"model.requested\":[" TAG(TAG_REQUESTED) "," TAG(TAG_MODEL) "," TAG("{model}") "],"
    "\"model.returned\":[" TAG(TAG_MODEL) "," TAG("{model}") "],"
    "\"anchor.engine\":[" TAG(TAG_ENGINE) "," TAG("{anchor}") "],"
    "\"anchor.elo\":" TAG("{anchor}Elo") ","
    "\"anchor.limiter\":" TAG(TAG_LIMITER) ","
    "\"anchor.time_s\":[" TAG("{anchor}TimeControl") "," TAG("TimeControl") "],"
    "\"anchor.nodes\":" TAG(TAG_NODES) ","
    "\"anchor.binary_sha256\":[" TAG(TAG_SHA) "," TAG(TAG_SHA_OLD) "],"
    "\"opening\":[" TAG(TAG_OPENING) "," TAG("FEN") ",\"startpos\"],"
    "\"started_at\":" TAG("GameStartTime") ","
    "\"ended_at\":" TAG("GameEndTime") ","
    "\"termination\":" TAG(TAG_TERMINATION) ","
    "\"tokens\":" TAG(TAG_TOKENS) ","
    "\"tokens.input\":" TAG(TAG_TOKENS_INPUT) ","
    "\"tokens.output\":" TAG(TAG_TOKENS_OUTPUT) ","
    "\"tokens.reasoning\":" TAG(TAG_TOKENS_REASONING) ","
    "\"tokens.cached\":" TAG(TAG_TOKENS_CACHED) ","
    "\"wall_s\":[" TAG(TAG_WALL) "," TAG("GameDuration") "],"
    "\"worker_hours\":" TAG(TAG_WORKER) ","
    "\"requests\":" TAG(TAG_REQUESTS) ","
    "\"extra\":[" TAG(TAG_EXTRA) ",{\"note\":\"" NOTE_WORD "\"}]}";
/* clang-format on */

#define MAX_SOURCES 16

static const char symbol[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+#=:-";

static int
field_index(const char *key)
{
	for (int f = 0; f < F_N; f++)
		if (strcmp(pgnio_fields[f].key, key) == 0)
			return f;
	return -1;
}

/* name with {model} and {anchor} read as "White": the longest it can be. */
static int
tag_name_ok(const char *name, int placeholders)
{
	char b[512];
	size_t n = 0;

	for (const char *s = name; *s != '\0';) {
		const char *w = NULL;
		if (placeholders && strncmp(s, "{model}", 7) == 0)
			w = "White", s += 7;
		else if (placeholders && strncmp(s, "{anchor}", 8) == 0)
			w = "White", s += 8;
		if (w != NULL) {
			if (n + 5 >= sizeof b)
				return 0;
			memcpy(b + n, w, 5);
			n += 5;
			continue;
		}
		if (n + 1 >= sizeof b)
			return 0;
		b[n++] = *s++;
	}
	b[n] = '\0';
	return n > 0 && n <= 255 && strspn(b, symbol) == n;
}

/* A format's placeholders: {file}, {game} and {tag:NAME}, nothing else. */
static int
format_ok(const char *s, const char **why)
{
	for (; *s != '\0'; s++) {
		if (*s == '}') {
			*why = "a '}' without its '{'";
			return 0;
		}
		if (*s != '{')
			continue;
		const char *end = strchr(s, '}');
		if (end == NULL) {
			*why = "a '{' without its '}'";
			return 0;
		}
		size_t n = (size_t)(end - s) + 1;
		if (!(n == 6 && strncmp(s, "{file}", 6) == 0) &&
		    !(n == 6 && strncmp(s, "{game}", 6) == 0)) {
			char name[300];
			if (n < 7 || strncmp(s, "{tag:", 5) != 0 || n - 6 >= sizeof name) {
				*why = "a placeholder other than {file}, {game} and {tag:NAME}";
				return 0;
			}
			memcpy(name, s + 5, n - 6);
			name[n - 6] = '\0';
			if (!tag_name_ok(name, 0)) {
				*why = "{tag:NAME} whose NAME is not a PGN tag name";
				return 0;
			}
		}
		s = end;
	}
	return 1;
}

/* Whether a constant suits the field's type: NULL, or what it should be. */
static const char *
value_ok(const cJSON *v, enum pgnio_type t)
{
	const char *s = cJSON_IsString(v) ? v->valuestring : NULL;
	double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
	const cJSON *it;
	struct ts ts;

	switch (t) {
	case T_COLOR:
		if (s &&
		    (!strcmp(s, "white") || !strcmp(s, "black") || !strcmp(s, "White") ||
		        !strcmp(s, "Black")))
			return NULL;
		return "expected \"White\" or \"Black\"";
	case T_STRING:
		return s ? NULL : "expected a string";
	case T_TIME:
		return s && ts_parse(s, &ts) == 0 ? NULL : "expected an RFC 3339 time";
	case T_NUMBER:
		return x == x ? NULL : "expected a number";
	case T_PERMOVE:
		return x > 0 ? NULL : "expected a positive number of seconds";
	case T_SECONDS:
		return x >= 0 ? NULL : "expected a number of seconds";
	case T_BLOCK:
	case T_COUNT:
		if (x >= (t == T_BLOCK ? 1 : 0) && x == floor(x) && x <= 9007199254740991.0)
			return NULL;
		return t == T_BLOCK ? "expected a whole number from 1" : "expected a whole number";
	case T_OBJECT:
		return cJSON_IsObject(v) ? NULL : "expected an object";
	case T_ARRAY:
		if (!cJSON_IsArray(v))
			return "expected an array of strings";
		cJSON_ArrayForEach (it, v)
			if (!cJSON_IsString(it))
				return "expected an array of strings";
		return NULL;
	}
	return "unusable";
}

/* A constant where a source was expected: the value itself. */
static int
source_constant(const cJSON *v, enum pgnio_type t, struct pgnio_src *s, const char *name,
    const char *where, struct err *e)
{
	const char *why;

	if (cJSON_IsArray(v) || cJSON_IsNull(v))
		return err_set(e, ERR_INPUT,
		    "%s: %s: expected a source ({\"tag\": NAME}, "
		    "{\"value\": V}, ...) or a constant",
		    name, where);
	s->kind = SRC_VALUE;
	s->value = v;
	if ((why = value_ok(v, t)) != NULL)
		return err_set(e, ERR_INPUT, "%s: %s: %s", name, where, why);
	return 0;
}

/* {"format": TEXT}: text made of the tags, for a text field only. */
static int
source_format(const cJSON *it, enum pgnio_type t, struct pgnio_src *s, const char *name,
    const char *where, struct err *e)
{
	const char *why;

	s->kind = SRC_FORMAT;
	if (t != T_STRING)
		return err_set(e, ERR_INPUT,
		    "%s: %s: \"format\" makes text, and this field is "
		    "not text",
		    name, where);
	if (!cJSON_IsString(it))
		return err_set(e, ERR_INPUT, "%s: %s: \"format\": expected a string", name,
		    where);
	if (!format_ok(it->valuestring, &why))
		return err_set(e, ERR_INPUT, "%s: %s: \"format\": %s", name, where, why);
	s->text = it->valuestring;
	return 0;
}

/* {"every": N}: a block every N games. */
static int
source_every(const cJSON *it, struct pgnio_src *s, const char *name, const char *where,
    struct err *e)
{
	s->kind = SRC_EVERY;
	if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble) ||
	    it->valuedouble < 1 || it->valuedouble > 1000000)
		return err_set(e, ERR_INPUT,
		    "%s: %s: \"every\": expected a whole number "
		    "from 1 to 1000000",
		    name, where);
	s->every = (long)it->valuedouble;
	return 0;
}

/* The source keys field f takes, for messages. */
static const char *
source_keys(int f)
{
	if (f == F_MODEL)
		return "\"tag\", \"value\", \"format\", \"name\"";
	if (f == F_BLOCK)
		return "\"tag\", \"value\", \"format\", \"every\"";
	if (pgnio_fields[f].type == T_OBJECT)
		return "\"tag\", \"value\", \"format\", \"note\"";
	return "\"tag\", \"value\", \"format\"";
}

/* {"tag": NAME} with "pattern" (a POSIX extended regular expression: the
 * value is the part of the tag it matches) and "group" (which
 * parenthesized group: 1 by default when the pattern has one, else 0, the
 * whole match). */
static int
source_tag(int f, const cJSON *v, struct pgnio_src *s, const char *name, const char *where,
    struct err *e)
{
	const cJSON *tag = json_get(v, "tag"), *pat = json_get(v, "pattern"),
	            *grp = json_get(v, "group"), *it;
	int rc;

	cJSON_ArrayForEach (it, v)
		if (strcmp(it->string, "tag") != 0 && strcmp(it->string, "pattern") != 0 &&
		    strcmp(it->string, "group") != 0)
			return err_set(e, ERR_INPUT,
			    "%s: %s: \"%.40s\": unknown beside \"tag\" (expected \"pattern\" "
			    "or \"group\")",
			    name, where, it->string);
	s->kind = SRC_TAG;
	if (!cJSON_IsString(tag) || !tag_name_ok(tag->valuestring, f != F_MODEL))
		return err_set(e, ERR_INPUT, "%s: %s: \"tag\": expected a PGN tag name%s", name,
		    where, f != F_MODEL ? " ({model} and {anchor} for White or Black)" : "");
	s->text = tag->valuestring;
	if (pat == NULL) {
		if (grp != NULL)
			return err_set(e, ERR_INPUT, "%s: %s: \"group\" goes with \"pattern\"",
			    name, where);
		return 0;
	}
	if (!cJSON_IsString(pat) || pat->valuestring[0] == '\0')
		return err_set(e, ERR_INPUT, "%s: %s: \"pattern\": expected a regular expression",
		    name, where);
	if ((s->re = malloc(sizeof *s->re)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if ((rc = regcomp(s->re, pat->valuestring, REG_EXTENDED)) != 0) {
		char why[160];
		regerror(rc, s->re, why, sizeof why);
		free(s->re);
		s->re = NULL;
		return err_set(e, ERR_INPUT, "%s: %s: \"pattern\": %s", name, where, why);
	}
	s->group = s->re->re_nsub > 0 ? 1 : 0;
	if (grp != NULL) {
		size_t most = s->re->re_nsub < 9 ? s->re->re_nsub : 9;
		if (!cJSON_IsNumber(grp) || grp->valuedouble != floor(grp->valuedouble) ||
		    grp->valuedouble < 0 || grp->valuedouble > (double)most)
			return err_set(e, ERR_INPUT,
			    "%s: %s: \"group\": expected a whole number from 0 to %zu (the "
			    "pattern's groups, at most 9)",
			    name, where, most);
		s->group = (int)grp->valuedouble;
	}
	return 0;
}

/* One source of field f from v; where names it in messages. */
static int
read_source(int f, const cJSON *v, struct pgnio_src *s, const char *name, const char *where,
    struct err *e)
{
	const cJSON *it;
	const char *why, *key;
	enum pgnio_type t = pgnio_fields[f].type;

	memset(s, 0, sizeof *s);
	if (!cJSON_IsObject(v))
		return source_constant(v, t, s, name, where, e);
	if (json_get(v, "tag") != NULL)
		return source_tag(f, v, s, name, where, e);
	if (cJSON_GetArraySize(v) != 1)
		return err_set(e, ERR_INPUT, "%s: %s: expected an object with one of %s", name,
		    where, source_keys(f));
	it = v->child;
	key = it->string;
	if (strcmp(key, "value") == 0) {
		s->kind = SRC_VALUE;
		s->value = it;
		if ((why = value_ok(it, t)) != NULL)
			return err_set(e, ERR_INPUT, "%s: %s: \"value\": %s", name, where, why);
	} else if (strcmp(key, "format") == 0) {
		if (source_format(it, t, s, name, where, e) < 0)
			return -1;
	} else if (strcmp(key, "name") == 0 && f == F_MODEL) {
		s->kind = SRC_NAME;
		if (!cJSON_IsString(it) || it->valuestring[0] == '\0')
			return err_set(e, ERR_INPUT, "%s: %s: \"name\": expected a pattern", name,
			    where);
		s->text = it->valuestring;
	} else if (strcmp(key, "every") == 0 && f == F_BLOCK) {
		if (source_every(it, s, name, where, e) < 0)
			return -1;
	} else if (strcmp(key, "note") == 0 && t == T_OBJECT) {
		s->kind = SRC_NOTE;
		if (!cJSON_IsString(it) || it->valuestring[0] == '\0' ||
		    strspn(it->valuestring, symbol) != strlen(it->valuestring))
			return err_set(e, ERR_INPUT, "%s: %s: \"note\": expected a word", name,
			    where);
		s->text = it->valuestring;
	} else
		return err_set(e, ERR_INPUT, "%s: %s: \"%s\": unknown source (expected %s)", name,
		    where, key, source_keys(f));
	return 0;
}

/* Free a field's sources. */
static void
sources_free(struct pgnio_src *src, size_t n)
{
	for (size_t i = 0; src != NULL && i < n; i++)
		if (src[i].re != NULL) {
			regfree(src[i].re);
			free(src[i].re);
		}
	free(src);
}

/* Field f's sources from v (one source, or an array of them). */
static int
read_field(struct pgnio_map *m, int f, const cJSON *v, const char *name, struct err *e)
{
	struct pgnio_src *src;
	char where[96];
	size_t n = cJSON_IsArray(v) ? (size_t)cJSON_GetArraySize(v) : 1, i = 0;
	const cJSON *it;

	if (n > MAX_SOURCES)
		return err_set(e, ERR_INPUT, "%s: \"%s\": more than %d sources", name,
		    pgnio_fields[f].key, MAX_SOURCES);
	if ((src = calloc(n ? n : 1, sizeof *src)) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (!cJSON_IsArray(v)) {
		snprintf(where, sizeof where, "\"%s\"", pgnio_fields[f].key);
		if (read_source(f, v, &src[0], name, where, e) < 0) {
			sources_free(src, 1);
			return -1;
		}
	} else {
		cJSON_ArrayForEach (it, v) {
			snprintf(where, sizeof where, "\"%s\"[%zu]", pgnio_fields[f].key, i);
			if (read_source(f, it, &src[i], name, where, e) < 0) {
				sources_free(src, i + 1);
				return -1;
			}
			i++;
		}
	}
	sources_free(m->src[f], m->nsrc[f]);
	m->src[f] = src;
	m->nsrc[f] = n;
	return 0;
}

static int
read_map(struct pgnio_map *m, const cJSON *doc, const char *name, struct err *e)
{
	const cJSON *v, *kind;

	if (!cJSON_IsObject(doc))
		return err_set(e, ERR_INPUT, "%s: expected a %s object", name, PGNIO_MAP_KIND);
	kind = cJSON_GetObjectItemCaseSensitive(doc, "kind");
	if (!cJSON_IsString(kind) || strcmp(kind->valuestring, PGNIO_MAP_KIND) != 0)
		return err_set(e, ERR_INPUT, "%s: \"kind\": expected \"%s\"", name, PGNIO_MAP_KIND);
	cJSON_ArrayForEach (v, doc) {
		int f;
		if (strcmp(v->string, "kind") == 0)
			continue;
		if ((f = field_index(v->string)) < 0) {
			char keys[800];
			size_t n = 0;
			for (int k = 0; k < F_N; k++)
				n += (size_t)snprintf(keys + n, sizeof keys - n, "%s%s",
				    k ? ", " : "", pgnio_fields[k].key);
			return err_set(e, ERR_INPUT,
			    "%s: \"%.60s\": unknown key (expected kind, %s)", name, v->string,
			    keys);
		}
		if (read_field(m, f, v, name, e) < 0)
			return -1;
	}
	return 0;
}

static struct pgnio_map *
map_base(struct err *e)
{
	struct pgnio_map *m = calloc(1, sizeof *m);

	if (m == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	if ((m->base = json_parse(builtin, sizeof builtin - 1, "the built-in map", 1, e)) == NULL ||
	    read_map(m, m->base, "the built-in map", e) < 0) {
		pgnio_map_free(m);
		return NULL;
	}
	return m;
}

int
pgnio_map_parse(const char *p, size_t n, const char *name, struct pgnio_map **out, struct err *e)
{
	struct pgnio_map *m;

	*out = NULL;
	if ((m = map_base(e)) == NULL)
		return -1;
	if (p != NULL &&
	    ((m->user = json_parse(p, n, name, 1, e)) == NULL ||
	        read_map(m, m->user, name, e) < 0)) {
		pgnio_map_free(m);
		return -1;
	}
	*out = m;
	return 0;
}

int
pgnio_map_open(const char *path, struct pgnio_map **out, struct err *e)
{
	struct buf b = BUF_INIT;
	int rc;

	*out = NULL;
	if (path == NULL)
		return pgnio_map_parse(NULL, 0, NULL, out, e);
	if (io_read_all(path, &b, (size_t)1 << 20, e) < 0)
		return -1;
	rc = pgnio_map_parse(b.p ? b.p : "", b.len, io_name(path), out, e);
	buf_release(&b);
	return rc;
}

int
pgnio_map_check(const cJSON *doc, const char *name, size_t *keys, struct err *e)
{
	struct pgnio_map *m = map_base(e);
	int rc = -1;

	*keys = 0;
	if (m == NULL)
		return -1;
	if ((m->user = cJSON_Duplicate(doc, 1)) == NULL)
		err_set(e, ERR_NOMEM, "out of memory");
	else if (read_map(m, m->user, name, e) == 0) {
		*keys = (size_t)cJSON_GetArraySize(m->user) - 1;
		rc = 0;
	}
	pgnio_map_free(m);
	return rc;
}

void
pgnio_map_free(struct pgnio_map *m)
{
	if (m == NULL)
		return;
	for (int f = 0; f < F_N; f++)
		sources_free(m->src[f], m->nsrc[f]);
	cJSON_Delete(m->base);
	cJSON_Delete(m->user);
	free(m);
}
