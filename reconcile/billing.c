/* billing.c: billing exports (CSV with a column map, or JSON Lines) into
 * the billing table. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../json/json.h"
#include "csv.h"

static const char billing_sql[] =
"INSERT INTO billing(request_id, file, line, ts, model, input, output, reasoning, cached, cost)"
" VALUES (?,?,?,?,?,?,?,?,?,?)";

static int
load_map(struct recon *r)
{
	const char *path = r->o->billing_map;
	uint8_t d[HASH_LEN];
	const cJSON *v;
	cJSON *m;
	int rc = 0;

	for (int k = 0; k < NBCOL; k++)
		r->map[k] = strdup(bcols[k]);
	if (path == NULL)
		return 0;
	m = json_parse_file(path, r->e);
	if (m == NULL)
		return -1;
	if (!cJSON_IsObject(m))
		rc = err_set(r->e, ERR_INPUT, "%s: expected a JSON object of column names", path);
	cJSON_ArrayForEach(v, m) {
		int k;
		if (rc < 0)
			break;
		for (k = 0; k < NBCOL && strcmp(v->string, bcols[k]) != 0; k++)
			;
		if (k == NBCOL)
			rc = err_set(r->e, ERR_INPUT, "%s: \"%s\": not a billing column (expected one of"
			    " request_id, ts, model, input_tokens, output_tokens, reasoning_tokens,"
			    " cached_tokens, cost)", path, v->string);
		else if (!cJSON_IsString(v) || v->valuestring[0] == '\0')
			rc = err_set(r->e, ERR_INPUT, "%s: \"%s\": expected a column name", path,
			    v->string);
		else {
			free(r->map[k]);
			r->map[k] = strdup(v->valuestring);
		}
	}
	cJSON_Delete(m);
	for (int k = 0; k < NBCOL && rc == 0; k++)
		if (r->map[k] == NULL)
			rc = err_set(r->e, ERR_NOMEM, "out of memory");
	if (rc == 0 && hash_file(path, d, NULL, r->e) == 0)
		return recon_file_add(r, "billing_map", path, d, NULL, NULL);
	return -1;
}

/* One billing row, parsed. */
struct bill_row {
	const char *rid;
	const char *ts;           /* normalized, or NULL */
	const char *model;
	long long tok[NCLASS];    /* -1: not given */
	double cost;              /* NAN: not given */
	char tsbuf[RECON_TIME_MAX];
};

static int
bill_put(struct recon_source *src, struct recon_feed *f, const struct bill_row *b, long line,
    struct err *e)
{
	if (recon_feed_row(f) < 0)
		return -1;
	if (recon_source_text(f, b->rid, e) < 0)
		return -1;
	recon_put_int(f, src->file);
	recon_put_int(f, line);
	if (recon_source_text(f, b->ts, e) < 0 || recon_source_text(f, b->model, e) < 0)
		return -1;
	for (int i = 0; i < NCLASS; i++)
		recon_source_count(f, b->tok[i]);
	if (isnan(b->cost))
		recon_put_null(f);
	else
		recon_put_real(f, b->cost);
	return 0;
}

static const int bill_class_col[NCLASS] = { B_INPUT, B_OUTPUT, B_REASONING, B_CACHED };

/* The billing row at c's current line into b; col the map's columns. */
static int
bill_csv_row(struct csv *c, const int *col, char *const *map, const char *path, long line,
    struct bill_row *b, struct err *e)
{
	const char *v;
	size_t n;

	b->rid = csv_field(c, col[B_REQUEST_ID], NULL);
	if (b->rid[0] == '\0') {
		err_set(e, ERR_INPUT, "%s:%ld: \"%s\": empty", path, line, map[B_REQUEST_ID]);
		return -1;
	}
	b->ts = NULL;
	if (col[B_TS] >= 0) {
		long long t;
		v = csv_field(c, col[B_TS], NULL);
		if (recon_time_parse(v, &t, b->tsbuf) < 0) {
			err_set(e, ERR_INPUT, "%s:%ld: \"%s\": expected an RFC 3339 date-time,"
			    " found \"%.40s\"", path, line, map[B_TS], v);
			return -1;
		}
		b->ts = b->tsbuf;
	}
	b->model = col[B_MODEL] >= 0 ? csv_field(c, col[B_MODEL], NULL) : NULL;
	for (int i = 0; i < NCLASS; i++) {
		int k = bill_class_col[i];
		b->tok[i] = -1;
		if (col[k] < 0)
			continue;
		v = csv_field(c, col[k], &n);
		if (recon_count_parse(v, n, &b->tok[i]) < 0) {
			err_set(e, ERR_INPUT, "%s:%ld: \"%s\": expected a whole number of tokens,"
			    " found \"%.40s\"", path, line, map[k], v);
			return -1;
		}
	}
	b->cost = NAN;
	if (col[B_COST] >= 0) {
		v = csv_field(c, col[B_COST], NULL);
		if (recon_amount_parse(v, &b->cost) < 0) {
			err_set(e, ERR_INPUT, "%s:%ld: \"%s\": expected a decimal amount, found"
			    " \"%.40s\"", path, line, map[B_COST], v);
			return -1;
		}
	}
	return 0;
}

static int
produce_billing_csv(void *ctx, struct recon_feed *f, struct err *e)
{
	struct recon_source *src = ctx;
	const char *path = src->path;
	char *const *map = src->r->map;
	struct csv *c = csv_open(path, NULL, e);
	int col[NBCOL], rc;

	if (c == NULL)
		return -1;
	for (int k = 0; k < NBCOL; k++) {
		col[k] = csv_find(c, map[k]);
		if (col[k] < 0 && (k == B_REQUEST_ID || k == B_INPUT || k == B_OUTPUT)) {
			err_set(e, ERR_INPUT, "%s:%ld: no column \"%s\" (%s)", path, csv_line(c), map[k],
			    bcols[k]);
			goto fail;
		}
	}
	while ((rc = csv_next(c, e)) == 1) {
		struct bill_row b;
		long line = csv_line(c);

		if (bill_csv_row(c, col, map, path, line, &b, e) < 0 ||
		    bill_put(src, f, &b, line, e) < 0)
			goto fail;
	}
	if (rc < 0)
		goto fail;
	csv_digest(c, src->digest);
	csv_free(c);
	return 0;
fail:
	csv_free(c);
	return -1;
}

/* obj[name], or the nested value at a dotted path ("usage.prompt_tokens"). */
static const cJSON *
json_path(const cJSON *obj, const char *name)
{
	const cJSON *v = json_get(obj, name);
	char part[256];

	while (v == NULL && obj != NULL) {
		const char *dot = strchr(name, '.');
		size_t n;
		if (dot == NULL || (n = (size_t)(dot - name)) >= sizeof part)
			return NULL;
		memcpy(part, name, n);
		part[n] = '\0';
		obj = json_get(obj, part);
		name = dot + 1;
		v = json_get(obj, name);
	}
	return v;
}

/* A billing row's token counts by class into tok (-1 where absent);
 * input and output required. */
static int
bill_tokens(const cJSON *q, char *const *map, const char *name, long line, long long tok[NCLASS],
    struct err *e)
{
	const cJSON *v;

	for (int i = 0; i < NCLASS; i++) {
		int k = bill_class_col[i], ok;
		const char *col = map[k];
		v = json_path(q, col);
		tok[i] = -1;
		if (v == NULL || cJSON_IsNull(v)) {
			if (k == B_INPUT || k == B_OUTPUT) {
				err_set(e, ERR_INPUT, "%s:%ld: \"%s\": missing", name, line, col);
				return -1;
			}
			continue;
		}
		if (cJSON_IsNumber(v)) {
			double x = v->valuedouble;
			ok = x == floor(x) && x >= 0 && x <= (double)MAX_COUNT;
			tok[i] = ok ? (long long)x : -1;
		} else {
			ok = cJSON_IsString(v) && recon_count_parse(v->valuestring,
			    strlen(v->valuestring), &tok[i]) == 0;
		}
		if (!ok) {
			err_set(e, ERR_INPUT, "%s:%ld: \"%s\": expected a whole number of tokens", name,
			    line, col);
			return -1;
		}
	}
	return 0;
}

static int
billing_line(struct recon_source *src, struct recon_feed *f, long line, const char *p, size_t n,
    struct err *e)
{
	const char *name = src->path;
	char *const *map = src->r->map;
	struct bill_row b;
	const cJSON *v;
	cJSON *q;
	int rc = -1;

	q = json_parse(p, n, name, line, e);
	if (q == NULL)
		return -1;
	if (!cJSON_IsObject(q)) {
		err_set(e, ERR_INPUT, "%s:%ld: expected a JSON object", name, line);
		goto done;
	}
	v = json_path(q, map[B_REQUEST_ID]);
	if (!cJSON_IsString(v) || v->valuestring[0] == '\0') {
		err_set(e, ERR_INPUT, "%s:%ld: \"%s\": %s", name, line, map[B_REQUEST_ID],
		    v == NULL ? "missing" : "expected a request id (a string)");
		goto done;
	}
	b.rid = v->valuestring;
	b.ts = NULL;
	v = json_path(q, map[B_TS]);
	if (v != NULL && !cJSON_IsNull(v)) {
		long long t;
		if (!cJSON_IsString(v) || recon_time_parse(v->valuestring, &t, b.tsbuf) < 0) {
			err_set(e, ERR_INPUT, "%s:%ld: \"%s\": expected an RFC 3339 date-time", name, line,
			    map[B_TS]);
			goto done;
		}
		b.ts = b.tsbuf;
	}
	v = json_path(q, map[B_MODEL]);
	b.model = cJSON_IsString(v) ? v->valuestring : NULL;
	if (v != NULL && !cJSON_IsNull(v) && b.model == NULL) {
		err_set(e, ERR_INPUT, "%s:%ld: \"%s\": expected a string", name, line, map[B_MODEL]);
		goto done;
	}
	if (bill_tokens(q, map, name, line, b.tok, e) < 0)
		goto done;
	b.cost = NAN;
	v = json_path(q, map[B_COST]);
	if (v != NULL && !cJSON_IsNull(v)) {
		if (cJSON_IsNumber(v))
			b.cost = v->valuedouble;
		else if (!cJSON_IsString(v) || recon_amount_parse(v->valuestring, &b.cost) < 0) {
			err_set(e, ERR_INPUT, "%s:%ld: \"%s\": expected a decimal amount", name, line,
			    map[B_COST]);
			goto done;
		}
	}
	rc = bill_put(src, f, &b, line, e);
done:
	cJSON_Delete(q);
	return rc;
}

static int
produce_billing_jsonl(void *ctx, struct recon_feed *f, struct err *e)
{
	return recon_source_lines(ctx, f, e, billing_line);
}

/* JSON Lines when the name ends in .jsonl, .ndjson or .json, or the first
 * byte is '{'; CSV otherwise. */
static int
billing_is_jsonl(const char *path)
{
	size_t n = strlen(path);
	int c = EOF;

	if ((n > 6 && strcmp(path + n - 6, ".jsonl") == 0) ||
	    (n > 7 && strcmp(path + n - 7, ".ndjson") == 0) ||
	    (n > 5 && strcmp(path + n - 5, ".json") == 0))
		return 1;
	if (n > 4 && strcmp(path + n - 4, ".csv") == 0)
		return 0;
	if (strcmp(path, "-") == 0) {
		c = getc(stdin);
		if (c != EOF)
			ungetc(c, stdin);
	} else {
		FILE *fp = fopen(path, "rb");
		if (fp != NULL) {
			c = getc(fp);
			fclose(fp);
		}
	}
	return c == '{';
}

int
recon_billing_load(struct recon *r)
{
	cJSON *list = recon_inputs_list(r, "billing");

	if (list == NULL || load_map(r) < 0)
		return -1;
	for (size_t i = 0; i < r->o->nbilling; i++) {
		const char *path = r->o->billing[i];
		if (recon_source_load(r, "billing", path, list, billing_sql, billing_is_jsonl(path)
		        ? produce_billing_jsonl : produce_billing_csv) < 0)
			return -1;
	}
	return 0;
}
