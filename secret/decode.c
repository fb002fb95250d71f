/* decode.c: what the credential scan decodes before it looks for
 * keywords: gzip, zstd, xz and bzip2 streams (libarchive's raw format, read
 * a block at a time), SQLite databases (every text and blob cell, through
 * sqlite3_deserialize, without a temporary file), UTF-16 text (by its byte
 * order mark or the pattern of its NUL bytes) and JSON string escapes.
 * Streams are scanned in segments of whole lines, so memory stays bounded
 * whatever a stream decompresses to. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <sqlite3.h>

/* A segment of decoded text is scanned once this many bytes wait (plus
 * what a window may need beyond it). */
#define SEG ((size_t)4 << 20)
#define LOOK ((size_t)8192)
/* A database or a compressed stream inside a compressed stream is held
 * whole to be read: at most this much. */
#define MAX_WHOLE ((size_t)1 << 30)

enum secret_kind
secret_sniff(const unsigned char *p, size_t n)
{
	size_t m, z[2] = { 0, 0 };

	if (n >= 100 && memcmp(p, "SQLite format 3", 16) == 0)
		return KIND_SQLITE;
	if ((n >= 3 && p[0] == 0x1F && p[1] == 0x8B && p[2] == 8) ||
	    (n >= 4 && memcmp(p, "\x28\xB5\x2F\xFD", 4) == 0) ||
	    (n >= 6 && memcmp(p, "\xFD" "7zXZ\0", 6) == 0) ||
	    (n >= 10 && memcmp(p, "BZh", 3) == 0 && p[3] >= '1' && p[3] <= '9' &&
	        memcmp(p + 4, "1AY&SY", 6) == 0))
		return KIND_COMPRESSED;
	if (n >= 2 && p[0] == 0xFF && p[1] == 0xFE && !(n >= 4 && p[2] == 0 && p[3] == 0))
		return KIND_UTF16LE;
	if (n >= 2 && p[0] == 0xFE && p[1] == 0xFF)
		return KIND_UTF16BE;
	/* no mark: ASCII in UTF-16 has a NUL in every other byte */
	m = (n < 4096 ? n : 4096) & ~(size_t)1;
	if (m < 16)
		return KIND_TEXT;
	for (size_t i = 0; i < m; i++)
		z[i & 1] += p[i] == 0;
	if (z[1] * 10 >= m / 2 * 9 && z[0] * 10 <= m / 2)
		return KIND_UTF16LE;
	if (z[0] * 10 >= m / 2 * 9 && z[1] * 10 <= m / 2)
		return KIND_UTF16BE;
	return KIND_TEXT;
}

/* ------------------------------------------------------- text streams */

struct tstream {
	struct worker *w;
	struct buf b;
	long line;        /* the line of b.p[0] */
	char where[128];
	int depth;
};

/* Scan what is waiting: whole lines of it, or all of it at the end. */
static int
ts_scan(struct tstream *ts, int final)
{
	struct text t;
	size_t cut;

	if (!final && ts->b.len < SEG + LOOK)
		return 0;
	if (final) {
		cut = ts->b.len;
	} else {
		const char *nl = NULL;
		for (size_t i = ts->b.len - LOOK; i > 0; i--)
			if (ts->b.p[i - 1] == '\n') {
				nl = ts->b.p + i;
				break;
			}
		cut = nl ? (size_t)(nl - ts->b.p) : ts->b.len - LOOK;
	}
	memset(&t, 0, sizeof t);
	t.p = (const unsigned char *)(ts->b.p ? ts->b.p : "");
	t.n = ts->b.len;
	t.limit = cut;
	t.at_end = final;
	t.line0 = ts->line;
	t.depth = ts->depth;
	memcpy(t.where, ts->where, sizeof t.where);
	if (secret_scan_text(ts->w, &t) < 0)
		return -1;
	for (const char *q = ts->b.p, *end = ts->b.p + cut; q && q < end && (q = memchr(q, '\n', (size_t)(end - q))) != NULL; q++)
		ts->line++;
	memmove(ts->b.p, ts->b.p + cut, ts->b.len - cut);
	ts->b.len -= cut;
	return 0;
}

static int
ts_add(struct tstream *ts, const void *p, size_t n)
{
	if (buf_add(&ts->b, p, n) < 0)
		return secret_fail(ts->w, ERR_NOMEM, "out of memory");
	return ts_scan(ts, 0);
}

/* UTF-16 code units to UTF-8, into a text stream. */
struct u16 {
	struct tstream *ts;
	int be;
	int first;          /* the next unit is the first (a byte order mark is dropped) */
	unsigned char odd;  /* a byte left from the last call */
	int has_odd;
	unsigned hi;        /* a high surrogate waiting for its low one */
};

static size_t
utf8_put(unsigned char *o, unsigned long cp)
{
	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (unsigned char)(0xC0 | cp >> 6);
		o[1] = (unsigned char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (unsigned char)(0xE0 | cp >> 12);
		o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
		o[2] = (unsigned char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (unsigned char)(0xF0 | cp >> 18);
	o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
	o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
	o[3] = (unsigned char)(0x80 | (cp & 0x3F));
	return 4;
}

static int
u16_add(struct u16 *u, const unsigned char *p, size_t n)
{
	unsigned char out[16384];
	size_t no = 0, i = 0;

	while (i < n) {
		unsigned a, b, unit;
		if (u->has_odd) {
			a = u->odd;
			b = p[i++];
			u->has_odd = 0;
		} else if (i + 1 < n) {
			a = p[i];
			b = p[i + 1];
			i += 2;
		} else {
			u->odd = p[i++];
			u->has_odd = 1;
			break;
		}
		unit = u->be ? a << 8 | b : b << 8 | a;
		if (u->first) {
			u->first = 0;
			if (unit == 0xFEFF)
				continue;
		}
		if (u->hi) {
			if (unit >= 0xDC00 && unit <= 0xDFFF) {
				no += utf8_put(out + no, 0x10000 + ((unsigned long)(u->hi - 0xD800) << 10) + (unit - 0xDC00));
				u->hi = 0;
				goto next;
			}
			no += utf8_put(out + no, 0xFFFD);
			u->hi = 0;
		}
		if (unit >= 0xD800 && unit <= 0xDBFF)
			u->hi = unit;
		else if (unit >= 0xDC00 && unit <= 0xDFFF)
			no += utf8_put(out + no, 0xFFFD);
		else
			no += utf8_put(out + no, unit);
	next:
		if (no > sizeof out - 8) {
			if (ts_add(u->ts, out, no) < 0)
				return -1;
			no = 0;
		}
	}
	return no ? ts_add(u->ts, out, no) : 0;
}

static int
u16_end(struct u16 *u)
{
	unsigned char out[8];
	size_t no = 0;

	if (u->hi)
		no += utf8_put(out, 0xFFFD);
	if (u->has_odd)
		no += utf8_put(out + no, 0xFFFD);
	return no ? ts_add(u->ts, out, no) : 0;
}

int
secret_scan_utf16(struct worker *w, const unsigned char *p, size_t n, int be, const char *where,
    int depth)
{
	struct tstream ts = { w, BUF_INIT, 1, { 0 }, depth };
	struct u16 u = { &ts, be, 1, 0, 0, 0 };
	int rc;

	secret_where(ts.where, where, be ? "in UTF-16BE text" : "in UTF-16LE text");
	rc = u16_add(&u, p, n);
	if (rc == 0)
		rc = u16_end(&u);
	if (rc == 0)
		rc = ts_scan(&ts, 1);
	buf_release(&ts.b);
	return rc;
}

/* ------------------------------------------------- compressed streams */

static const char *
name_of(const struct worker *w)
{
	return w->path ? w->path : "<bytes>";
}

/* a made ready to read p[0..n) as one raw stream through any of the
 * filters, at its one entry; -1 when it cannot. */
static int
stream_open(struct archive *a, const unsigned char *p, size_t n)
{
	struct archive_entry *ent;

	archive_read_support_filter_gzip(a);
	archive_read_support_filter_zstd(a);
	archive_read_support_filter_xz(a);
	archive_read_support_filter_bzip2(a);
	archive_read_support_format_raw(a);
	if (archive_read_open_memory(a, p, n) != ARCHIVE_OK ||
	    archive_read_next_header(a, &ent) != ARCHIVE_OK)
		return -1;
	return 0;
}

/* What a decompressed stream holds, from its first bytes (head): into
 * *kind, and those bytes taken as that kind, read whole (SQLite, or
 * compressed again), as UTF-16 or as text. */
static int
stream_decide(struct tstream *ts, struct u16 *u, struct buf *whole, const struct buf *head,
    int depth, enum secret_kind *kind)
{
	*kind = secret_sniff((const unsigned char *)(head->p ? head->p : ""), head->len);
	u->be = *kind == KIND_UTF16BE;
	if (depth + 1 >= SECRET_MAX_DEPTH)
		*kind = KIND_TEXT;
	if (*kind == KIND_SQLITE || *kind == KIND_COMPRESSED) {
		if (buf_add(whole, head->p, head->len) < 0)
			return secret_fail(ts->w, ERR_NOMEM, "out of memory");
	} else if (*kind == KIND_UTF16LE || *kind == KIND_UTF16BE) {
		char w2[128];
		secret_where(w2, ts->where, *kind == KIND_UTF16BE ? "in UTF-16BE text" : "in UTF-16LE text");
		memcpy(ts->where, w2, sizeof ts->where);
		if (u16_add(u, (const unsigned char *)head->p, head->len) < 0)
			return -1;
	} else if (head->len && ts_add(ts, head->p, head->len) < 0) {
		return -1;
	}
	return 0;
}

/* The next k bytes of a decompressed stream of the kind decided, taken
 * as stream_decide took its first ones (filter names it in errors). */
static int
stream_take(struct tstream *ts, struct u16 *u, struct buf *whole, enum secret_kind kind,
    const char *filter, const unsigned char *p, size_t k)
{
	struct worker *w = ts->w;

	if (kind == KIND_SQLITE || kind == KIND_COMPRESSED) {
		if (whole->len + k > MAX_WHOLE)
			return secret_fail(w, ERR_INPUT, "%s: %s stream: what it holds is over %zu MiB, "
			    "too large to read inside it", name_of(w), filter, MAX_WHOLE >> 20);
		if (buf_add(whole, p, k) < 0)
			return secret_fail(w, ERR_NOMEM, "out of memory");
	} else if (kind == KIND_UTF16LE || kind == KIND_UTF16BE) {
		if (u16_add(u, p, k) < 0)
			return -1;
	} else if (ts_add(ts, p, k) < 0) {
		return -1;
	}
	return 0;
}

int
secret_scan_compressed(struct worker *w, const unsigned char *p, size_t n, const char *where,
    int depth)
{
	struct archive *a = archive_read_new();
	struct tstream ts = { w, BUF_INIT, 1, { 0 }, depth + 1 };
	struct u16 u = { &ts, 0, 1, 0, 0, 0 };
	struct buf whole = BUF_INIT, head = BUF_INIT;
	enum secret_kind kind = KIND_TEXT;
	int decided = 0, rc = -1;
	char what[64], filter[32];
	unsigned char *chunk = malloc(1 << 16);

	if (a == NULL || chunk == NULL) {
		secret_fail(w, ERR_NOMEM, "out of memory");
		goto out;
	}
	if (stream_open(a, p, n) < 0) {
		secret_fail(w, ERR_INPUT, "%s: cannot decompress: %s", name_of(w),
		    archive_error_string(a) ? archive_error_string(a) : "unknown format");
		goto out;
	}
	snprintf(filter, sizeof filter, "%s", archive_filter_name(a, 0) ? archive_filter_name(a, 0) : "compressed");
	snprintf(what, sizeof what, "in the %s stream", filter);
	secret_where(ts.where, where, what);
	for (;;) {
		la_ssize_t k = archive_read_data(a, chunk, 1 << 16);
		if (k < 0) {
			secret_fail(w, ERR_INPUT, "%s: %s stream: %s", name_of(w), filter,
			    archive_error_string(a) ? archive_error_string(a) : "cannot decompress");
			goto out;
		}
		if (!decided) {
			/* look at the first bytes to know what they are */
			if (k > 0 && buf_add(&head, chunk, (size_t)k) < 0)
				goto oom;
			if (head.len < 4096 && k > 0)
				continue;
			decided = 1;
			if (stream_decide(&ts, &u, &whole, &head, depth, &kind) < 0)
				goto out;
			buf_release(&head);
			if (k == 0)
				break;
			continue;
		}
		if (k == 0)
			break;
		if (stream_take(&ts, &u, &whole, kind, filter, chunk, (size_t)k) < 0)
			goto out;
		if (w->t && w->failed)
			goto out;
	}
	if (kind == KIND_SQLITE || kind == KIND_COMPRESSED)
		rc = secret_scan_bytes(w, (const unsigned char *)(whole.p ? whole.p : ""), whole.len, 1, 0,
		    ts.where, depth + 1);
	else if ((kind == KIND_UTF16LE || kind == KIND_UTF16BE) && u16_end(&u) < 0)
		rc = -1;
	else
		rc = ts_scan(&ts, 1);
	goto out;
oom:
	secret_fail(w, ERR_NOMEM, "out of memory");
out:
	if (a)
		archive_read_free(a);
	free(chunk);
	buf_release(&ts.b);
	buf_release(&whole);
	buf_release(&head);
	return rc;
}

/* ------------------------------------------------------------ SQLite */

static int
sqlite_fail(struct worker *w, sqlite3 *db, const char *what)
{
	return secret_fail(w, ERR_INPUT, "%s: %s: %s", name_of(w), what,
	    db ? sqlite3_errmsg(db) : "cannot open");
}

/* Every text and blob cell of table name. */
static int
scan_table(struct worker *w, sqlite3 *db, const char *name, const char *where, int depth)
{
	sqlite3_stmt *st = NULL;
	char *q = sqlite3_mprintf("SELECT rowid, * FROM \"%w\"", name);
	int with_rowid = 1, rc, first;
	long long row = 0;

	if (q == NULL)
		return secret_fail(w, ERR_NOMEM, "out of memory");
	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK) {
		/* a table WITHOUT ROWID: count the rows instead */
		sqlite3_free(q);
		with_rowid = 0;
		if ((q = sqlite3_mprintf("SELECT * FROM \"%w\"", name)) == NULL)
			return secret_fail(w, ERR_NOMEM, "out of memory");
		if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK) {
			sqlite3_free(q);
			return sqlite_fail(w, db, "SQLite");
		}
	}
	sqlite3_free(q);
	first = with_rowid ? 1 : 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int nc = sqlite3_column_count(st);
		row = with_rowid ? sqlite3_column_int64(st, 0) : row + 1;
		for (int c = first; c < nc; c++) {
			int type = sqlite3_column_type(st, c);
			const void *v;
			char at[128], w2[128];
			if (type != SQLITE_TEXT && type != SQLITE_BLOB)
				continue;
			v = type == SQLITE_TEXT ? (const void *)sqlite3_column_text(st, c) : sqlite3_column_blob(st, c);
			if (v == NULL)
				continue;
			snprintf(at, sizeof at, "in table \"%.40s\", %s %lld, column \"%.40s\"", name,
			    with_rowid ? "rowid" : "row", row, sqlite3_column_name(st, c));
			secret_where(w2, where, at);
			if (secret_scan_bytes(w, v, (size_t)sqlite3_column_bytes(st, c), 1, 0, w2, depth + 1) < 0) {
				sqlite3_finalize(st);
				return -1;
			}
			if (w->t && w->failed) {
				sqlite3_finalize(st);
				return -1;
			}
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sqlite_fail(w, db, "SQLite");
	return 0;
}

/* db made to read the n bytes at p: a copy, marked as a rollback
 * database, when they are in write-ahead-log mode. */
static int
sqlite_load(struct worker *w, sqlite3 *db, const unsigned char *p, size_t n)
{
	unsigned char *data = (unsigned char *)p;
	unsigned flags = SQLITE_DESERIALIZE_READONLY;

	if (n > 19 && (p[18] == 2 || p[19] == 2)) {
		/* write-ahead-log mode: what the file holds reads as a rollback database */
		if ((data = sqlite3_malloc64(n)) == NULL)
			return secret_fail(w, ERR_NOMEM, "out of memory");
		memcpy(data, p, n);
		data[18] = data[19] = 1;
		flags |= SQLITE_DESERIALIZE_FREEONCLOSE;
	}
	if (sqlite3_deserialize(db, "main", data, (sqlite3_int64)n, (sqlite3_int64)n, flags) != SQLITE_OK)
		return sqlite_fail(w, db, "not a readable SQLite database");
	return 0;
}

/* The names of db's tables in schema order, into *names (*nn of them,
 * each allocated, also on failure); a virtual table's data is in its
 * shadow tables, and it is left out. */
static int
table_names(struct worker *w, sqlite3 *db, char ***names, size_t *nn)
{
	sqlite3_stmt *st = NULL;
	size_t cn = 0;
	int s, rc = -1;

	if (sqlite3_prepare_v2(db,
	        "SELECT name, sql FROM sqlite_schema WHERE type = 'table' ORDER BY rowid", -1, &st,
	        NULL) != SQLITE_OK) {
		sqlite_fail(w, db, "not a readable SQLite database");
		goto out;
	}
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *nm = (const char *)sqlite3_column_text(st, 0);
		const char *sql = (const char *)sqlite3_column_text(st, 1);
		if (nm == NULL || (sql && strncmp(sql, "CREATE VIRTUAL TABLE", 20) == 0))
			continue; /* a virtual table's data is in its shadow tables */
		if (*nn == cn) {
			size_t nc = cn ? 2 * cn : 8;
			char **nv = realloc(*names, nc * sizeof *nv);
			if (nv == NULL) {
				secret_fail(w, ERR_NOMEM, "out of memory");
				goto out;
			}
			*names = nv;
			cn = nc;
		}
		if (((*names)[*nn] = strdup(nm)) == NULL) {
			secret_fail(w, ERR_NOMEM, "out of memory");
			goto out;
		}
		(*nn)++;
	}
	if (s != SQLITE_DONE) {
		sqlite_fail(w, db, "not a readable SQLite database");
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

int
secret_scan_sqlite(struct worker *w, const unsigned char *p, size_t n, const char *where, int depth)
{
	sqlite3 *db = NULL;
	char **names = NULL;
	size_t nn = 0;
	int rc = -1;

	if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		sqlite_fail(w, db, "SQLite");
		goto out;
	}
	if (sqlite_load(w, db, p, n) < 0 || table_names(w, db, &names, &nn) < 0)
		goto out;
	if (scan_table(w, db, "sqlite_schema", where, depth) < 0)
		goto out;
	for (size_t i = 0; i < nn; i++)
		if (scan_table(w, db, names[i], where, depth) < 0)
			goto out;
	rc = 0;
out:
	sqlite3_close(db);
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* ------------------------------------------------------- JSON escapes */

static int
hex4(const unsigned char *s, size_t n, size_t i, unsigned *v)
{
	*v = 0;
	if (i + 4 > n)
		return 0;
	for (int k = 0; k < 4; k++) {
		unsigned char c = s[i + (size_t)k];
		int d = (c >= '0' && c <= '9') ? c - '0' : ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') ? (c | 0x20) - 'a' + 10 : -1;
		if (d < 0)
			return 0;
		*v = *v << 4 | (unsigned)d;
	}
	return 1;
}

static int
span_add(struct span **sp, size_t *n, size_t *cap, size_t a, size_t b)
{
	if (*n > 0 && (*sp)[*n - 1].b == a) {
		(*sp)[*n - 1].b = b;
		return 0;
	}
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 16;
		struct span *nv = realloc(*sp, nc * sizeof *nv);
		if (nv == NULL)
			return -1;
		*sp = nv;
		*cap = nc;
	}
	(*sp)[(*n)++] = (struct span){ a, b };
	return 0;
}

int
secret_json_unescape(const unsigned char *s, size_t n, struct buf *out, struct span **spans,
    size_t *nspans, size_t *cspans)
{
	size_t i = 0;

	if (buf_grow(out, n + 1) < 0)
		return -1;
	while (i < n) {
		const unsigned char *bs = memchr(s + i, '\\', n - i);
		size_t run = bs ? (size_t)(bs - (s + i)) : n - i, at;
		unsigned char o[8];
		size_t no = 0, used = 0;
		unsigned v, lo;

		if (run && buf_add(out, s + i, run) < 0)
			return -1;
		i += run;
		if (i >= n)
			break;
		if (i + 1 >= n) {
			if (buf_addc(out, '\\') < 0)
				return -1;
			break;
		}
		switch (s[i + 1]) {
		case '/': case '"': case '\\': o[no++] = s[i + 1]; used = 2; break;
		case 'b': o[no++] = '\b'; used = 2; break;
		case 'f': o[no++] = '\f'; used = 2; break;
		case 'n': o[no++] = '\n'; used = 2; break;
		case 'r': o[no++] = '\r'; used = 2; break;
		case 't': o[no++] = '\t'; used = 2; break;
		case 'u':
			if (!hex4(s, n, i + 2, &v) || v == 0)
				break;
			used = 6;
			if (v >= 0xD800 && v <= 0xDBFF) {
				if (i + 12 <= n && s[i + 6] == '\\' && s[i + 7] == 'u' && hex4(s, n, i + 8, &lo) &&
				    lo >= 0xDC00 && lo <= 0xDFFF) {
					v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
					used = 12;
				} else {
					v = 0xFFFD;
				}
			} else if (v >= 0xDC00 && v <= 0xDFFF) {
				v = 0xFFFD;
			}
			no = utf8_put(o, v);
			break;
		}
		if (used == 0) {
			/* not an escape: keep the backslash */
			if (buf_addc(out, '\\') < 0)
				return -1;
			i++;
			continue;
		}
		at = out->len;
		if (buf_add(out, o, no) < 0 || span_add(spans, nspans, cspans, at, out->len) < 0)
			return -1;
		i += used;
	}
	if (out->p == NULL) {
		if (buf_grow(out, 1) < 0)
			return -1;
		out->p[0] = '\0';
	}
	return 0;
}
