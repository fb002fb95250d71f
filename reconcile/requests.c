/* requests.c: request logs into the requests table, the common shape read
 * flat (recon_flat.h) and anything else by the strict reader. */
#include "internal.h"

#include <math.h>
#include <string.h>

#include "../json/json.h"
#include "recon_flat.h"

/* A whole number in [lo, hi], as the strict getters read it. */
static int
flat_int(const struct recon_flat *fl, const char *path, double lo, double hi, long long *out)
{
	const struct recon_flat_field *v = recon_flat_get(fl, path);

	if (v == NULL || v->type != RF_NUM || v->num != floor(v->num) || v->num < lo || v->num > hi)
		return -1;
	*out = (long long)v->num;
	return 0;
}

static const struct recon_flat_field *
flat_str(const struct recon_flat *fl, const char *path, int nonempty)
{
	const struct recon_flat_field *v = recon_flat_get(fl, path);

	return v != NULL && v->type == RF_STR && (!nonempty || v->n > 0) ? v : NULL;
}

/* The fast path of request_line: 1 when the line was a well-formed, valid
 * request and its row was put (or -1 when putting failed), 0 to fall back
 * to the strict reader. */
static int
request_fast(struct recon_source *src, struct recon_feed *f, long line, const char *p, size_t n,
    struct err *e)
{
	static const char *const tk[NCLASS] = { "tokens.input", "tokens.output", "tokens.reasoning",
		"tokens.cached" };
	struct recon_flat fl;
	const struct recon_flat_field *rid, *gid, *ts, *req, *ret, *st, *lat, *v;
	long long tok[NCLASS], attempt;
	char tsbuf[RECON_TIME_MAX], tsraw[64];
	long long t;

	if (recon_flat_parse(&fl, p, n) < 0)
		return 0;
	rid = flat_str(&fl, "request_id", 1);
	gid = recon_flat_get(&fl, "game_id");
	ts = flat_str(&fl, "ts", 0);
	req = flat_str(&fl, "model.requested", 0);
	ret = flat_str(&fl, "model.returned", 0);
	st = flat_str(&fl, "status", 0);
	lat = recon_flat_get(&fl, "latency_ms");
	v = recon_flat_get(&fl, "tokens");
	if (rid == NULL || gid == NULL || (gid->type != RF_NULL && (gid->type != RF_STR || gid->n == 0)) ||
	    ts == NULL || ts->n >= sizeof tsraw || req == NULL || ret == NULL || st == NULL ||
	    lat == NULL || lat->type != RF_NUM || lat->num < 0 || v == NULL || v->type != RF_OBJ ||
	    flat_int(&fl, "attempt", 1, 1000000, &attempt) < 0)
		return 0;
	if (!((st->n == 2 && memcmp(st->s, "ok", 2) == 0) || (st->n == 5 && memcmp(st->s, "error", 5) == 0)))
		return 0;
	for (int i = 0; i < NCLASS; i++)
		if (flat_int(&fl, tk[i], 0, (double)MAX_COUNT, &tok[i]) < 0)
			return 0;
	memcpy(tsraw, ts->s, ts->n);
	tsraw[ts->n] = '\0';
	if (recon_time_parse(tsraw, &t, tsbuf) < 0)
		return 0;
	if (recon_feed_row(f) < 0)
		return -1;
	if (recon_put_text(f, rid->s, rid->n) < 0 ||
	    (gid->type == RF_NULL ? (recon_put_null(f), 0) : recon_put_text(f, gid->s, gid->n)) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	recon_put_int(f, src->file);
	recon_put_int(f, line);
	if (recon_put_text(f, tsbuf, strlen(tsbuf)) < 0 || recon_put_text(f, req->s, req->n) < 0 ||
	    recon_put_text(f, ret->s, ret->n) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (int i = 0; i < NCLASS; i++)
		recon_put_int(f, tok[i]);
	recon_put_real(f, lat->num);
	recon_put_int(f, attempt);
	if (recon_put_text(f, st->s, st->n) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 1;
}

static int
request_line(struct recon_source *src, struct recon_feed *f, long line, const char *p, size_t n,
    struct err *e)
{
	static const char *const statuses[] = { "ok", "error", NULL };
	const char *name = src->path, *rid, *gid = NULL, *req, *ret, *status;
	char ts[RECON_TIME_MAX];
	const cJSON *model, *gv;
	long long tok[NCLASS], attempt;
	long long t;
	double latency;
	cJSON *q;
	int rc = request_fast(src, f, line, p, n, e);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	rc = -1;
	q = json_parse(p, n, name, line, e);
	if (q == NULL)
		return -1;
	if (!cJSON_IsObject(q)) {
		err_set(e, ERR_INPUT, "expected a JSON object");
		goto bad;
	}
	if (recon_field_text(q, "request_id", 1, &rid, e) < 0)
		goto bad;
	gv = json_get(q, "game_id");
	if (gv == NULL) {
		err_set(e, ERR_INPUT, "\"game_id\": missing (null when the request has no game)");
		goto bad;
	}
	if (!cJSON_IsNull(gv) && recon_field_text(q, "game_id", 1, &gid, e) < 0) {
		err_set(e, ERR_INPUT, "\"game_id\": expected a game id or null");
		goto bad;
	}
	if (recon_field_time(q, "ts", 1, &t, ts, e) < 0 ||
	    json_get_object(q, "model", 1, &model, e) < 0)
		goto bad;
	if (json_get_string(model, "requested", 1, &req, e) < 0 ||
	    json_get_string(model, "returned", 1, &ret, e) < 0) {
		err_set(e, ERR_INPUT, "\"model\": expected {\"requested\": string, \"returned\": string}");
		goto bad;
	}
	if (recon_field_tokens(q, "tokens", 1, tok, e) < 0 ||
	    recon_field_nonneg(q, "latency_ms", 1, &latency, e) < 0 ||
	    json_get_int(q, "attempt", 1, 1, 1000000, &attempt, e) < 0 ||
	    recon_field_enum(q, "status", 1, statuses, "ok or error", &status, e) < 0)
		goto bad;
	if (recon_feed_row(f) < 0)
		goto done;
	if (recon_source_text(f, rid, e) < 0 || recon_source_text(f, gid, e) < 0)
		goto done;
	recon_put_int(f, src->file);
	recon_put_int(f, line);
	if (recon_source_text(f, ts, e) < 0 || recon_source_text(f, req, e) < 0 ||
	    recon_source_text(f, ret, e) < 0)
		goto done;
	for (int i = 0; i < NCLASS; i++)
		recon_put_int(f, tok[i]);
	recon_put_real(f, latency);
	recon_put_int(f, attempt);
	rc = recon_source_text(f, status, e);
	goto done;
bad:
	recon_at_line(e, name, line);
done:
	cJSON_Delete(q);
	return rc;
}

static int
produce_requests(void *ctx, struct recon_feed *f, struct err *e)
{
	return recon_source_lines(ctx, f, e, request_line);
}

int
recon_requests_load(struct recon *r)
{
	cJSON *list = recon_inputs_list(r, "requests");

	if (list == NULL)
		return -1;
	for (size_t i = 0; i < r->o->nrequests; i++)
		if (recon_source_load(r, "requests", r->o->requests[i], list,
		        "INSERT INTO requests(request_id, game_id, file, line, ts, model_requested,"
		        " model_returned, input, output, reasoning, cached, latency_ms, attempt, status)"
		        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", produce_requests) < 0)
			return -1;
	return 0;
}
