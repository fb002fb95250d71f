/* ledger.c: JSON Lines and SQLite game ledgers, streamed record by record. */
#include "ledger.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
read_jsonl(struct ledger_file *f, ledger_fn fn, void *ctx, struct err *e)
{
	const char *name = f->name;
	struct ledger_loc loc = { name, 0, 0 };
	struct lines l;
	const char *p;
	size_t n;
	int rc;

	rc = lines_open_fp(&l, f->fp, name, f->pre, f->npre, LEDGER_MAX_LINE, 0, e);
	f->fp = NULL;
	if (rc < 0) {
		lines_close(&l);
		return -1;
	}
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

/* The ledger's rows must be a table's: a view (a recursive one runs
 * forever) or a virtual table is computed, not stored, and no time bound
 * holds for it.  A table's rows are read in time linear in the file. */
static int
check_table(sqlite3 *db, const char *path, const char *table, struct err *e)
{
	static const char q[] = "SELECT type, sql FROM sqlite_master WHERE name = ?1 COLLATE NOCASE";
	sqlite3_stmt *st = NULL;
	int rc = 0, s;

	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC) != SQLITE_OK)
		rc = sqlite_fail(db, path, e);
	else if ((s = sqlite3_step(st)) == SQLITE_DONE)
		rc = err_set(e, ERR_INPUT, "%s: sqlite: no table \"%s\"", path, table);
	else if (s != SQLITE_ROW)
		rc = sqlite_fail(db, path, e);
	else {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *sql = (const char *)sqlite3_column_text(st, 1);
		if (type == NULL || strcmp(type, "table") != 0)
			rc = err_set(e, ERR_INPUT, "%s: sqlite: \"%s\" is a %s, not a table: a "
			    "ledger's rows are a table's", path, table, type ? type : "schema object");
		else if (sql != NULL && strncasecmp(sql, "CREATE VIRTUAL", 14) == 0)
			rc = err_set(e, ERR_INPUT, "%s: sqlite: \"%s\" is a virtual table: a "
			    "ledger's rows are a stored table's", path, table);
	}
	sqlite3_finalize(st);
	return rc;
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
	if ((rc = check_table(db, path, table, e)) < 0)
		goto done;
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

/* 1 when the first bytes of a ledger are PGN's, which no JSON line can
 * start with: a tag pair ("[Event ...", a bracket then a capital) or move
 * text ("1. e4", a number then a dot and no digit), after blank space or
 * a byte-order mark. */
static int
looks_pgn(const char *p, size_t n)
{
	size_t i = 0;

	if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
		i++;
	if (i + 1 < n && p[i] == '[')
		return p[i + 1] >= 'A' && p[i + 1] <= 'Z';
	if (i >= n || p[i] < '0' || p[i] > '9')
		return 0;
	while (i < n && p[i] >= '0' && p[i] <= '9')
		i++;
	return i + 1 < n && p[i] == '.' && (p[i + 1] < '0' || p[i + 1] > '9');
}

int
ledger_open(const char *path, struct ledger_file *f, struct err *e)
{
	static const char magic[16] = "SQLite format 3";
	struct stat st;

	memset(f, 0, sizeof *f);
	f->name = "<stdin>";
	f->fp = stdin;
	if (path == NULL || strcmp(path, "-") == 0)
		return 0;
	f->name = path;
	if ((f->fp = fopen(path, "rb")) == NULL)
		return err_set(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fileno(f->fp), &st) != 0) {
		ledger_close(f);
		return err_set(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	}
	f->regular = S_ISREG(st.st_mode);
	f->size = f->regular ? (uint64_t)st.st_size : 0;
	f->npre = fread(f->pre, 1, sizeof f->pre, f->fp);
	if (ferror(f->fp)) {
		ledger_close(f);
		return err_set(e, ERR_IO, "%s: read error: %s", path, strerror(errno));
	}
	f->sqlite = f->npre == sizeof magic && memcmp(f->pre, magic, sizeof magic) == 0;
	if (!f->sqlite && looks_pgn(f->pre, f->npre)) {
		ledger_close(f);
		return err_set(e, ERR_INPUT, "%s:1: this is PGN, not a game ledger: a ledger holds "
		    "one JSON record a game (JSON Lines or SQLite) with what PGN does not carry "
		    "(model, condition, anchor, tokens, timing; cohort-freeze(1) lists the "
		    "fields): give freeze the ledger the harness wrote",
		    path);
	}
	if (f->sqlite && !f->regular) {
		ledger_close(f);
		return err_set(e, ERR_INPUT, "%s: a SQLite database, given as a pipe: SQLite reads "
		    "only a file (save it to one first)", path);
	}
	/* A file is read again from its start; a pipe's first bytes stay in
	 * pre, read once. */
	if (f->regular) {
		if (fseek(f->fp, 0, SEEK_SET) != 0) {
			ledger_close(f);
			return err_set(e, ERR_IO, "%s: cannot read: %s", path, strerror(errno));
		}
		f->npre = 0;
	}
	return 0;
}

void
ledger_close(struct ledger_file *f)
{
	if (f->fp != NULL && f->fp != stdin)
		fclose(f->fp);
	f->fp = NULL;
}

int
ledger_read_table(const char *path, const char *table, ledger_fn fn, void *ctx, struct err *e)
{
	struct ledger_file f;
	int rc;

	if (ledger_open(path, &f, e) < 0)
		return -1;
	if (f.sqlite) {
		ledger_close(&f);
		return read_sqlite(path, table, fn, ctx, e);
	}
	rc = read_jsonl(&f, fn, ctx, e);
	ledger_close(&f);
	return rc;
}

int
ledger_read(const char *path, ledger_fn fn, void *ctx, struct err *e)
{
	return ledger_read_table(path, "games", fn, ctx, e);
}
