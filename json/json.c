/* json.c: cJSON trees built from the strict reader's tokens (read.c), and
 * typed accessors.  cJSON's own parser is too lenient for content
 * addressing (duplicate keys, unchecked UTF-8, leading zeros), so we
 * parse ourselves and use cJSON only to hold the tree. */
#include "json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/io.h"
#include "../common/pool.h"

/* The tree being built: the open arrays and objects, each with its last
 * child, and the key read for the next member. */
struct builder {
	cJSON *root;
	cJSON *open[JSON_MAX_DEPTH + 1], *tail[JSON_MAX_DEPTH + 1];
	int depth;
	char *key;
	struct json_lines *lines; /* where each value begins, or NULL */
	const char *name;
	struct err *e;
};

static void
link_child(cJSON *parent, cJSON **tail, cJSON *item)
{
	if (*tail == NULL) {
		parent->child = item;
	} else {
		(*tail)->next = item;
		item->prev = *tail;
	}
	*tail = item;
	parent->child->prev = item;
}

static int
lines_add(struct builder *b, const cJSON *v, long line)
{
	struct json_lines *l = b->lines;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct json_line *g = realloc(l->at, cap * sizeof *g);
		if (g == NULL)
			return err_set(b->e, ERR_NOMEM, "%s: out of memory", b->name);
		l->at = g;
		l->cap = cap;
	}
	l->at[l->n].node = v;
	l->at[l->n++].line = line;
	return 0;
}

static char *
tok_string(const struct json_tok *t)
{
	char *s = malloc(t->len + 1);

	if (s != NULL) {
		memcpy(s, t->s, t->len);
		s[t->len] = '\0';
	}
	return s;
}

static cJSON *
tok_node(const struct json_tok *t)
{
	cJSON *v;

	switch (t->type) {
	case JSON_NULL: return cJSON_CreateNull();
	case JSON_FALSE: return cJSON_CreateFalse();
	case JSON_TRUE: return cJSON_CreateTrue();
	case JSON_NUMBER: return cJSON_CreateNumber(t->x);
	case JSON_OBJECT: return cJSON_CreateObject();
	case JSON_ARRAY: return cJSON_CreateArray();
	case JSON_STRING:
		if ((v = cJSON_CreateNull()) == NULL)
			return NULL;
		if ((v->valuestring = tok_string(t)) == NULL) {
			cJSON_Delete(v);
			return NULL;
		}
		v->type = cJSON_String;
		return v;
	default:
		return NULL;
	}
}

/* Add the value token t begins to the tree: into the open container (an
 * object's under the key read before it), or as the root. */
static int
build_value(struct builder *b, const struct json_tok *t)
{
	cJSON *v = tok_node(t);

	if (v == NULL)
		return err_set(b->e, ERR_NOMEM, "%s: out of memory", b->name);
	if (b->depth == 0) {
		b->root = v;
	} else {
		v->string = b->key;
		b->key = NULL;
		link_child(b->open[b->depth], &b->tail[b->depth], v);
	}
	if (b->lines != NULL && lines_add(b, v, t->line) < 0)
		return -1;
	if (t->type == JSON_OBJECT || t->type == JSON_ARRAY) {
		b->open[++b->depth] = v;
		b->tail[b->depth] = NULL;
	}
	return 0;
}

static int
build_step(struct builder *b, const struct json_tok *t)
{
	switch (t->type) {
	case JSON_KEY:
		if ((b->key = tok_string(t)) == NULL)
			return err_set(b->e, ERR_NOMEM, "%s: out of memory", b->name);
		return 0;
	case JSON_OBJECT_END:
	case JSON_ARRAY_END:
		b->depth--;
		return 0;
	default:
		return build_value(b, t);
	}
}

cJSON *
json_parse(const char *p, size_t len, const char *name, long first_line, struct err *e)
{
	return json_parse_lines(p, len, name, first_line, NULL, e);
}

/* A skipped array opens when an array is the value of key[1] in an
 * object that is the value of key[0] in a container at skip's depth, or
 * (key[0] NULL) in the top-level object. */
static int
skip_opens(const struct builder *b, const struct json_skip *s, const struct json_tok *t)
{
	int d = s != NULL ? (s->depth > 0 ? s->depth : 1) + 1 : 0;

	if (s == NULL || t->type != JSON_ARRAY || b->key == NULL || strcmp(b->key, s->key[1]) != 0)
		return 0;
	if (s->key[0] == NULL)
		return b->depth == 1;
	return b->depth == d && b->open[d]->string != NULL && strcmp(b->open[d]->string, s->key[0]) == 0;
}

/* The numbers that follow a skipped number in its array, to skip's run
 * a run at a time. */
static int
skip_run(struct json_rd *r, const struct json_skip *s, int depth, struct err *e)
{
	struct json_tok t[128];
	size_t n;
	int rc = 0;

	while (s->run != NULL && rc == 0 && (n = json_rd_run(r, t, 128)) > 0)
		rc = s->run(s->arg, t, n, depth, e);
	return rc;
}

/* The tree of p[0..len): lines filled when not NULL, skip's array not
 * built when skip is not NULL. */
static cJSON *
parse(const char *p, size_t len, const char *name, long first_line, struct json_lines *lines,
    const struct json_skip *skip, struct err *e)
{
	struct json_rd *r = json_rd_mem(p, len, name, first_line);
	struct builder b = { .lines = lines, .name = name ? name : "<input>", .e = e };
	struct json_tok t;
	int rc = 0, in = 0, depth = 0; /* in the skipped array; its elements' nesting */

	if (lines != NULL)
		lines->n = 0;
	if (r == NULL) {
		err_set(e, ERR_NOMEM, "%s: out of memory", b.name);
		return NULL;
	}
	while ((rc = json_rd_next(r, &t, e)) == 0 && t.type != JSON_EOF) {
		if (in && depth == 0 && t.type == JSON_ARRAY_END) {
			in = 0;
		} else if (in) {
			depth -= t.type == JSON_OBJECT_END || t.type == JSON_ARRAY_END;
			/* an element and its end at 1, what is inside it at 2, ... */
			/* the numbers after a canonical one (after one of 17 digits
			 * or an exponent, a run seldom goes on: not worth a look) */
			rc = skip->tok(skip->arg, &t, depth + 1, e);
			if (rc < 0 || (t.type == JSON_NUMBER && t.plain &&
			    (rc = skip_run(r, skip, depth + 1, e)) < 0))
				break;
			depth += t.type == JSON_OBJECT || t.type == JSON_ARRAY;
			continue;
		} else if (skip_opens(&b, skip, &t)) {
			if ((rc = build_step(&b, &t)) < 0 || (skip->open != NULL &&
			    (rc = skip->open(skip->arg, b.open[b.depth], e)) < 0))
				break;
			in = 1;
			continue;
		}
		if ((rc = build_step(&b, &t)) < 0)
			break;
	}
	json_rd_free(r);
	free(b.key);
	if (rc < 0) {
		cJSON_Delete(b.root);
		return NULL;
	}
	return b.root;
}

cJSON *
json_parse_lines(const char *p, size_t len, const char *name, long first_line,
    struct json_lines *lines, struct err *e)
{
	return parse(p, len, name, first_line, lines, NULL, e);
}

cJSON *
json_parse_skip(const char *p, size_t len, const char *name, const struct json_skip *skip,
    struct err *e)
{
	return parse(p, len, name, 1, NULL, skip, e);
}

struct ident {
	const char *p, *name;
	size_t n;
	char id[HASH_ID_LEN + 1];
	struct err e;
	int rc;
};

static void
ident_run(void *arg)
{
	struct ident *t = arg;

	t->rc = canon_id_text(t->p, t->n, t->name, t->id, &t->e);
}

struct json_ident {
	struct buf b; /* the file's bytes, read by the identity until it ends */
	struct pool_thread th;
	int beside;
	struct ident t;
};

cJSON *
json_parse_file_begin(const char *path, const struct json_skip *skip, int beside,
    struct json_ident **out, struct err *e)
{
	struct json_ident *j = calloc(1, sizeof *j);
	cJSON *tree;

	*out = NULL;
	if (j == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	*j = (struct json_ident){ BUF_INIT, POOL_THREAD_INIT, beside,
		{ NULL, io_name(path), 0, { 0 }, ERR_INIT, -1 } };
	if (io_read_all(path, &j->b, IO_MAX_DOCUMENT, e) < 0) {
		free(j);
		return NULL;
	}
	j->t.p = j->b.p ? j->b.p : "";
	j->t.n = j->b.len;
	if (beside)
		pool_spawn(&j->th, ident_run, &j->t);
	tree = json_parse_skip(j->t.p, j->t.n, j->t.name, skip, e);
	if (tree == NULL) {
		json_ident_end(j, NULL, NULL);
		return NULL;
	}
	if (!beside)
		ident_run(&j->t);
	*out = j;
	return tree;
}

int
json_ident_end(struct json_ident *j, char id[HASH_ID_LEN + 1], struct err *e)
{
	int rc;

	if (j == NULL)
		return 0;
	if (j->beside)
		pool_join(&j->th);
	rc = j->t.rc;
	if (rc < 0 && e != NULL)
		*e = j->t.e;
	else if (rc == 0 && id != NULL)
		memcpy(id, j->t.id, sizeof j->t.id);
	buf_release(&j->b);
	free(j);
	return rc < 0 ? -1 : 0;
}

cJSON *
json_parse_file_id(const char *path, const struct json_skip *skip, char id[HASH_ID_LEN + 1],
    int beside, struct err *e)
{
	struct json_ident *j;
	cJSON *tree = json_parse_file_begin(path, skip, beside, &j, e);

	if (tree != NULL && json_ident_end(j, id, e) < 0) {
		cJSON_Delete(tree);
		tree = NULL;
	}
	return tree;
}

cJSON *
json_parse_file(const char *path, struct err *e)
{
	return json_parse_file_lines(path, NULL, e);
}

cJSON *
json_parse_file_lines(const char *path, struct json_lines *lines, struct err *e)
{
	struct buf b = BUF_INIT;
	cJSON *v = NULL;

	if (io_read_all(path, &b, IO_MAX_DOCUMENT, e) == 0)
		v = json_parse_lines(b.p ? b.p : "", b.len, io_name(path), 1, lines, e);
	buf_release(&b);
	return v;
}

const cJSON *
json_get(const cJSON *obj, const char *key)
{
	if (!cJSON_IsObject(obj))
		return NULL;
	/* cJSON_GetObjectItemCaseSensitive, with the first byte compared
	 * before strcmp: records are looked up field by field. */
	for (const cJSON *c = obj->child; c; c = c->next)
		if (c->string != NULL && c->string[0] == key[0] && strcmp(c->string, key) == 0)
			return c;
	return NULL;
}

static int
want(const cJSON *obj, const char *key, int required, const cJSON **v, struct err *e)
{
	*v = json_get(obj, key);
	/* a field the reader does not require is absent when null: what a
	 * harness writes for a value it has not (a SQLite NULL, Python's None) */
	if (*v != NULL && !required && cJSON_IsNull(*v))
		*v = NULL;
	if (*v == NULL) {
		if (!required)
			return 1;
		return err_set(e, ERR_INPUT, "\"%s\": missing", key);
	}
	return 0;
}

int
json_get_string(const cJSON *obj, const char *key, int required, const char **out, struct err *e)
{
	const cJSON *v;
	int rc = want(obj, key, required, &v, e);

	if (rc != 0)
		return rc;
	if (!cJSON_IsString(v))
		return err_set(e, ERR_INPUT, "\"%s\": expected a string", key);
	*out = v->valuestring;
	return 0;
}

int
json_get_number(const cJSON *obj, const char *key, int required, double *out, struct err *e)
{
	const cJSON *v;
	int rc = want(obj, key, required, &v, e);

	if (rc != 0)
		return rc;
	if (!cJSON_IsNumber(v))
		return err_set(e, ERR_INPUT, "\"%s\": expected a number", key);
	*out = v->valuedouble;
	return 0;
}

int
json_get_int(const cJSON *obj, const char *key, int required, long long lo, long long hi,
    long long *out, struct err *e)
{
	double x;
	int rc = json_get_number(obj, key, required, &x, e);

	if (rc != 0)
		return rc;
	if (x != floor(x) || x < (double)lo || x > (double)hi)
		return err_set(e, ERR_INPUT, "\"%s\": expected a whole number from %lld to %lld",
		    key, lo, hi);
	*out = (long long)x;
	return 0;
}

int
json_get_object(const cJSON *obj, const char *key, int required, const cJSON **out, struct err *e)
{
	const cJSON *v;
	int rc = want(obj, key, required, &v, e);

	if (rc != 0)
		return rc;
	if (!cJSON_IsObject(v))
		return err_set(e, ERR_INPUT, "\"%s\": expected an object", key);
	*out = v;
	return 0;
}

int
json_get_array(const cJSON *obj, const char *key, int required, const cJSON **out, struct err *e)
{
	const cJSON *v;
	int rc = want(obj, key, required, &v, e);

	if (rc != 0)
		return rc;
	if (!cJSON_IsArray(v))
		return err_set(e, ERR_INPUT, "\"%s\": expected an array", key);
	*out = v;
	return 0;
}

static cJSON *
add(cJSON *obj, const char *key, cJSON *item)
{
	if (item == NULL)
		return NULL;
	if (!cJSON_AddItemToObject(obj, key, item)) {
		cJSON_Delete(item);
		return NULL;
	}
	return item;
}

cJSON *
json_add_string(cJSON *obj, const char *key, const char *s)
{
	return add(obj, key, cJSON_CreateString(s));
}

cJSON *
json_add_number(cJSON *obj, const char *key, double x)
{
	return add(obj, key, cJSON_CreateNumber(x));
}

cJSON *
json_add_null(cJSON *obj, const char *key)
{
	return add(obj, key, cJSON_CreateNull());
}

cJSON *
json_add_bool(cJSON *obj, const char *key, int b)
{
	return add(obj, key, cJSON_CreateBool(b));
}

double
json_round(double x, double step)
{
	double r = round(x / step) * step;

	/* Snap to the shortest decimal: 1067.2300000000002 prints as 1067.23. */
	if (step >= 1e-9) {
		char t[64];
		int places = 0;
		for (double s = step; s < 1 - 1e-12 && places < 12; s *= 10)
			places++;
		snprintf(t, sizeof t, "%.*f", places, r);
		r = strtod(t, NULL);
	}
	return r == 0 ? 0 : r;
}

int
json_emit(const cJSON *doc, const char *path, struct err *e)
{
	struct buf b = BUF_INIT;
	int rc;

	rc = canon_write(doc, &b, e);
	if (rc == 0)
		rc = io_write_all(path, b.p ? b.p : "", b.len, e);
	buf_release(&b);
	return rc;
}

long
json_line(const struct json_lines *l, const cJSON *v)
{
	for (size_t i = 0; l != NULL && i < l->n; i++)
		if (l->at[i].node == v)
			return l->at[i].line;
	return 0;
}

void
json_lines_release(struct json_lines *l)
{
	if (l == NULL)
		return;
	free(l->at);
	l->at = NULL;
	l->n = l->cap = 0;
}

void
json_bld_put(struct json_bld *k, cJSON *o, const char *key, cJSON *v)
{
	if (v == NULL || !cJSON_AddItemToObjectCS(o, key, v)) {
		cJSON_Delete(v);
		k->oom = 1;
	}
}

void
json_bld_push(struct json_bld *k, cJSON *a, cJSON *v)
{
	if (v == NULL || !cJSON_AddItemToArray(a, v)) {
		cJSON_Delete(v);
		k->oom = 1;
	}
}
