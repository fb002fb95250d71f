/* ledger.c: JSON Lines and SQLite game ledgers, streamed record by record. */
#include "ledger.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "../common/buf.h"
#include "../common/lines.h"
#include "../json/json.h"

void
ledger_loc_format(const struct ledger_loc *loc, char *out, size_t n)
{
	if (loc->sqlite)
		snprintf(out, n, "%s:rowid %ld", loc->name, loc->line);
	else
		snprintf(out, n, "%s:%ld", loc->name, loc->line);
}

int
ledger_blank(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
			return 0;
	return 1;
}

static int
read_jsonl(const char *path, const char *name, ledger_fn fn, void *ctx, struct err *e)
{
	struct ledger_loc loc = { name, 0, 0 };
	struct lines l;
	const char *p;
	size_t n;
	int rc;

	if (lines_open(&l, path, LEDGER_MAX_LINE, 0, e) < 0) {
		lines_close(&l);
		return -1;
	}
	l.name = name;
	while ((rc = lines_next(&l, &p, &n, e)) == 1) {
		cJSON *rec;
		loc.line = l.lineno;
		if (ledger_blank(p, n))
			continue;
		rec = json_parse(p, n, name, loc.line, e);
		if (rec == NULL) {
			rc = -1;
			break;
		}
		if (!cJSON_IsObject(rec)) {
			cJSON_Delete(rec);
			rc = err_set(e, ERR_INPUT, "%s:%ld: expected a JSON object", name, loc.line);
			break;
		}
		rc = fn(ctx, rec, &loc, e);
		cJSON_Delete(rec);
		if (rc < 0)
			break;
	}
	lines_close(&l);
	return rc < 0 ? -1 : 0;
}

/* Fields that hold JSON objects or arrays in a SQLite ledger, whatever the
 * column's declared type. */
static int
is_structured(const char *col, const char *decl)
{
	static const char *const known[] = { "model", "anchor", "tokens", "requests", "moves",
		"shown", "proposed", NULL };

	if (decl != NULL && strcasecmp(decl, "JSON") == 0)
		return 1;
	for (int i = 0; known[i]; i++)
		if (strcmp(col, known[i]) == 0)
			return 1;
	return 0;
}

static int
sqlite_fail(sqlite3 *db, const char *name, struct err *e)
{
	return err_set(e, ERR_INPUT, "%s: sqlite: %s", name, db ? sqlite3_errmsg(db) : "cannot open");
}

static cJSON *
sqlite_row(sqlite3_stmt *st, const struct ledger_loc *loc, struct err *e)
{
	int ncol = sqlite3_column_count(st);
	cJSON *rec = cJSON_CreateObject(), *v = NULL;

	if (rec == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	for (int c = 0; c < ncol; c++) {
		const char *col = sqlite3_column_name(st, c), *decl = sqlite3_column_decltype(st, c);
		int type = sqlite3_column_type(st, c);

		if (strcmp(col, "rowid") == 0 || type == SQLITE_NULL)
			continue;
		if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
			v = cJSON_CreateNumber(sqlite3_column_double(st, c));
			if (type == SQLITE_INTEGER)
				v->valuedouble = (double)sqlite3_column_int64(st, c);
		} else if (type == SQLITE_BLOB) {
			err_set(e, ERR_INPUT, "%s:rowid %ld: \"%s\": a blob, expected text or a number",
			    loc->name, loc->line, col);
			goto bad;
		} else {
			const char *t = (const char *)sqlite3_column_text(st, c);
			int n = sqlite3_column_bytes(st, c);
			if (is_structured(col, decl)) {
				v = json_parse(t, (size_t)n, loc->name, 1, e);
				if (v == NULL) {
					err_set(e, ERR_INPUT, "%s:rowid %ld: \"%s\": not valid JSON",
					    loc->name, loc->line, col);
					goto bad;
				}
			} else {
				/* Check the text the same way the JSON reader would. */
				struct buf q = BUF_INIT;
				buf_addc(&q, '"');
				for (int i = 0; i < n; i++) {
					unsigned char ch = (unsigned char)t[i];
					if (ch == '"' || ch == '\\')
						buf_addc(&q, '\\');
					if (ch < 0x20)
						buf_printf(&q, "\\u%04x", ch);
					else
						buf_addc(&q, (char)ch);
				}
				buf_addc(&q, '"');
				v = json_parse(q.p, q.len, loc->name, 1, e);
				buf_release(&q);
				if (v == NULL) {
					err_set(e, ERR_INPUT, "%s:rowid %ld: \"%s\": text is not UTF-8",
					    loc->name, loc->line, col);
					goto bad;
				}
			}
		}
		if (v == NULL || !cJSON_AddItemToObject(rec, col, v)) {
			cJSON_Delete(v);
			err_set(e, ERR_NOMEM, "out of memory");
			goto bad;
		}
		v = NULL;
	}
	return rec;
bad:
	cJSON_Delete(rec);
	return NULL;
}

static int
read_sqlite(const char *path, const char *table, ledger_fn fn, void *ctx, struct err *e)
{
	struct ledger_loc loc = { path, 0, 1 };
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char sql[128];
	int rc = 0, s;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		rc = sqlite_fail(db, path, e);
		goto done;
	}
	snprintf(sql, sizeof sql, "SELECT rowid AS rowid, * FROM %s ORDER BY rowid", table);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		rc = sqlite_fail(db, path, e);
		goto done;
	}
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		cJSON *rec;
		loc.line = (long)sqlite3_column_int64(st, 0);
		rec = sqlite_row(st, &loc, e);
		if (rec == NULL) {
			rc = -1;
			goto done;
		}
		rc = fn(ctx, rec, &loc, e);
		cJSON_Delete(rec);
		if (rc < 0)
			goto done;
	}
	if (s != SQLITE_DONE)
		rc = sqlite_fail(db, path, e);
done:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

int
ledger_read_table(const char *path, const char *table, ledger_fn fn, void *ctx, struct err *e)
{
	char magic[16];
	FILE *fp;
	size_t n;

	if (path == NULL || strcmp(path, "-") == 0)
		return read_jsonl("-", "<stdin>", fn, ctx, e);
	fp = fopen(path, "rb");
	if (fp == NULL)
		return err_set(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	n = fread(magic, 1, sizeof magic, fp);
	if (n == sizeof magic && memcmp(magic, "SQLite format 3", 16) == 0) {
		fclose(fp);
		return read_sqlite(path, table, fn, ctx, e);
	}
	fclose(fp);
	return read_jsonl(path, path, fn, ctx, e);
}

int
ledger_read(const char *path, ledger_fn fn, void *ctx, struct err *e)
{
	return ledger_read_table(path, "games", fn, ctx, e);
}
