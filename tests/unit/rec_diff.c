/* rec_diff: the flat record reader (json/rec.c) against the tree reader.
 *
 * For every line of the given JSON Lines files, and for MUTATIONS mutants
 * of each (bytes replaced, deleted or doubled, numbers rewritten, escapes
 * and non-ASCII text put in), both readers prepare the record:
 * freeze_acc_prepare_text (flat reader first, tree reader when it declines)
 * and json_parse + freeze_acc_prepare (tree reader only).  They must agree:
 * both refuse with the same message, or both accept with the same
 * canonical bytes, digest and summary, bit for bit.  Separately, whenever
 * rec_scan alone says yes, its bytes must equal the canonical writer's.
 * And stored records: one scanner kept warm across all inputs (so it
 * reads most of them by a shape seen before: rec_shape) and a fresh one
 * must give rec_check the same answer and the same tokens, and
 * freeze_acc_prepare_stored the same answer and summary; rec_canon, kept
 * warm too, rec_scan's answer and bytes.
 * Prints counts; exits 1 on the first disagreement, naming it.
 *
 * usage: rec_diff SPEC MUTATIONS LEDGER... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/buf.h"
#include "../../common/io.h"
#include "../../freeze/freeze.h"
#include "../../json/json.h"
#include "../../protocol/ledger.h"
#include "../../json/rec.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t
next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const char *const pieces[] = { "\"", "\\", "{", "}", "[", "]", ",", ":", "0", "9", ".",
	"e", "E", "-", "+", " ", "\t", "\xc3\xa9", "\xe2\x80\xa8", "\xf0\x9f\x98\x80", "\x80",
	"\xc0\x80", "\x01", "\\u0041", "\\u00e9", "\\ud83d\\ude00", "\\n", "\\/", "null", "true",
	"1e5", "-0", "0.1", "123.4560", "1.5e-7", "9007199254740993", "1e400", "0.0000001",
	"123456789012345", "-999999999999999", "1234567890123456", "-0e0", "00",
	"100000000000000000000000", "12345678901234567", "-0.0", "5.000", "1E+2", "\"x\":1",
	"\"game_id\":\"dup\"", "\"a\xc3\xa9\":1", "{\"a\":{\"b\":[1,2,{\"c\":null}]}}", ";", "\",\"" };

/* A mutant of line (n bytes) into out. */
static void
mutate(const char *line, size_t n, struct buf *out)
{
	size_t at = n ? next() % n : 0, len = n ? next() % 8 : 0;
	const char *piece = pieces[next() % (sizeof pieces / sizeof pieces[0])];

	buf_reset(out);
	if (at + len > n)
		len = n - at;
	switch (next() % 4) {
	case 0: /* replace a few bytes by a piece */
		buf_add(out, line, at);
		buf_adds(out, piece);
		buf_add(out, line + at + len, n - at - len);
		break;
	case 1: /* insert a piece */
		buf_add(out, line, at);
		buf_adds(out, piece);
		buf_add(out, line + at, n - at);
		break;
	case 2: /* delete a few bytes */
		buf_add(out, line, at);
		buf_add(out, line + at + len, n - at - len);
		break;
	default: /* rewrite the number after a ':' */ {
		const char *c = memchr(line + at, ':', n - at);
		size_t k;
		if (c == NULL) {
			buf_add(out, line, n);
			break;
		}
		k = (size_t)(c + 1 - line);
		buf_add(out, line, k);
		buf_adds(out, piece);
		while (k < n && strchr("-+.0123456789eE", line[k]) && line[k] != '\0')
			k++;
		buf_add(out, line + k, n - k);
	}
	}
}

/* Whether canonical text holds a number written with an exponent. */
static int
exponent(const char *s)
{
	for (; *s; s++)
		if (s[0] >= '0' && s[0] <= '9' && s[1] == 'e' && (s[2] == '+' || s[2] == '-'))
			return 1;
	return 0;
}

struct counts {
	long lines, flat_ok, both_ok, both_refused, checked, shaped;
};

/* Whether token a of s and token b of t hold the same value, v being the
 * tree reader's (for the keys of objects). */
static int
same_tokens(const struct rec_scan *s, int a, const struct rec_scan *t, int b, const cJSON *v)
{
	const char *x, *y;
	size_t nx, ny;
	double dx, dy;

	if (rec_type(s, a) != rec_type(t, b))
		return 0;
	switch (rec_type(s, a)) {
	case REC_STRING:
	case REC_XSTRING:
		x = rec_str(s, a, &nx);
		y = rec_str(t, b, &ny);
		return nx == ny && memcmp(x, y, nx) == 0;
	case REC_NUMBER: {
		int rx = rec_num(s, a, &dx), ry = rec_num(t, b, &dy);
		return rx == ry && (rx != 0 || memcmp(&dx, &dy, sizeof dx) == 0);
	}
	case REC_ARRAY: {
		const cJSON *c = v->child;
		int i = rec_first(s, a), j = rec_first(t, b);
		for (; i >= 0 && j >= 0 && c; i = rec_next(s, a, i), j = rec_next(t, b, j), c = c->next)
			if (!same_tokens(s, i, t, j, c))
				return 0;
		return i < 0 && j < 0 && c == NULL;
	}
	case REC_OBJECT:
		for (const cJSON *c = v->child; c; c = c->next) {
			int i = rec_member(s, a, c->string), j = rec_member(t, b, c->string);
			if (i < 0 || j < 0 || !same_tokens(s, i, t, j, c))
				return 0;
		}
		return rec_member(s, a, "~absent~") < 0 && rec_member(t, b, "~absent~") < 0;
	default:
		return 1;
	}
}

/* text read as a stored record by a warm scanner and a fresh one, and by
 * a second warm scanner that does without AVX2. */
static int
stored(const struct freeze_acc *acc, struct rec_scan *warm, struct rec_scan *plain,
    struct freeze_scratch *xw, const char *text, size_t n, struct counts *k)
{
	struct rec_scan *cold = rec_scan_new();
	struct freeze_scratch *xc = freeze_scratch_new();
	struct freeze_item a, b;
	struct err ea = ERR_INIT, eb = ERR_INIT;
	uint8_t da[HASH_LEN], db[HASH_LEN];
	int bad = 0, rw, rc;

	if (cold == NULL || xc == NULL)
		return 1;
	rw = rec_check(warm, text, n);
	rc = rec_check(cold, text, n);
	k->shaped += rw == REC_OK && rec_shape(warm) != 0;
	if (rec_check(plain, text, n) != rc || (rc == REC_OK && rec_shape(plain) != 0) !=
	    (rw == REC_OK && rec_shape(warm) != 0)) {
		fprintf(stderr, "rec_diff: rec_check says otherwise without AVX2: %.*s\n", (int)n, text);
		bad = 1;
	} else if (rw != rc) {
		fprintf(stderr, "rec_diff: rec_check says %d read by a shape, %d afresh: %.*s\n", rw,
		    rc, (int)n, text);
		bad = 1;
	} else if (rw == REC_OK) {
		struct err e = ERR_INIT;
		cJSON *tree = json_parse(text, n, "t.jsonl", 1, &e);
		if (tree == NULL || !same_tokens(warm, 0, cold, 0, tree)) {
			fprintf(stderr, "rec_diff: other tokens when read by a shape: %.*s\n", (int)n, text);
			bad = 1;
		}
		cJSON_Delete(tree);
	}
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	rw = freeze_acc_prepare_stored(acc, xw, text, n, &a, da, &ea);
	rc = freeze_acc_prepare_stored(acc, xc, text, n, &b, db, &eb);
	if (!bad && (rw != rc || (rw == 0 && (!freeze_item_same(&a, &b) ||
	    strcmp(a.game_id, b.game_id) != 0 || memcmp(da, db, HASH_LEN) != 0)))) {
		fprintf(stderr, "rec_diff: a stored record summarized otherwise by a shape: %.*s\n",
		    (int)n, text);
		bad = 1;
	}
	freeze_item_clear(&a);
	freeze_item_clear(&b);
	freeze_scratch_free(xc);
	rec_scan_free(cold);
	return bad;
}

static int
compare(const struct freeze_acc *acc, struct freeze_scratch *x, struct rec_scan *warm,
    struct rec_scan *plain, struct rec_scan *canon, struct freeze_scratch *xw, const char *text,
    size_t n, long line, struct counts *k)
{
	struct ledger_loc loc = { "t.jsonl", line, 0 };
	struct freeze_item a, b;
	struct buf ca = BUF_INIT, cb = BUF_INIT, cs = BUF_INIT, cw = BUF_INIT;
	struct err ea = ERR_INIT, eb = ERR_INIT;
	uint8_t da[HASH_LEN], db[HASH_LEN];
	struct rec_scan *rs = rec_scan_new();
	int ra, rb = -1, bad = 0;
	cJSON *tree;

	k->lines++;
	/* rec_scan alone: its yes means the canonical writer's bytes. */
	if (rs == NULL)
		return 1;
	int checked = rec_check(rs, text, n) == REC_OK;
	if (rec_scan(rs, text, n, &cs) != REC_OK && checked) {
		fprintf(stderr, "rec_diff: rec_check accepted what rec_scan refuses: %.*s\n", (int)n, text);
		bad = 1;
	} else if (checked && (cs.len != n || memcmp(cs.p, text, n) != 0)) {
		fprintf(stderr, "rec_diff: rec_check accepted text that is not canonical: %.*s\n",
		    (int)n, text);
		bad = 1;
	} else if (cs.len > 0 && !exponent(cs.p) && rec_check(rs, cs.p, cs.len) != REC_OK) {
		/* rec_scan's own output reads as canonical (the stored records),
		 * but for numbers written with an exponent, which rec_check leaves
		 * to the tree reader */
		fprintf(stderr, "rec_diff: rec_check refuses rec_scan's bytes: %s\n", cs.p);
		bad = 1;
	}
	k->checked += checked;
	/* rec_canon, by a scanner kept across inputs (so it has shapes, and
	 * rests from asking after records that are not canonical): rec_scan's
	 * answer and bytes */
	struct buf cc = BUF_INIT, cr = BUF_INIT;
	int rs_rc = rec_scan(rs, text, n, &cr), rc_rc = rec_canon(canon, text, n, &cc, NULL);
	if (!bad && (rs_rc != rc_rc || (rs_rc == REC_OK && (cc.len != cr.len ||
	    memcmp(cc.p, cr.p, cr.len) != 0)))) {
		fprintf(stderr, "rec_diff: rec_canon (%d) is not rec_scan (%d): %.*s\n", rc_rc, rs_rc,
		    (int)n, text);
		bad = 1;
	}
	buf_release(&cc);
	buf_release(&cr);
	/* as a stored record: the text, and its canonical bytes */
	if (!bad && (stored(acc, warm, plain, xw, text, n, k) ||
	    (cs.len > 0 && stored(acc, warm, plain, xw, cs.p, cs.len, k))))
		bad = 1;
	buf_reset(&cs);
	if (!bad && rec_scan(rs, text, n, &cs) == REC_OK) {
		k->flat_ok++;
		tree = json_parse(text, n, "t.jsonl", line, &eb);
		if (tree == NULL || canon_write(tree, &cw, &eb) < 0 || cw.len != cs.len ||
		    memcmp(cw.p, cs.p, cs.len) != 0) {
			fprintf(stderr, "rec_diff: rec_scan accepted what the writer gives otherwise:\n"
			    "  input  %.*s\n  flat   %s\n  writer %s\n", (int)n, text, cs.p ? cs.p : "",
			    tree ? (cw.p ? cw.p : "") : eb.msg);
			bad = 1;
		}
		cJSON_Delete(tree);
	}
	char where[64];
	snprintf(where, sizeof where, "t.jsonl:%ld", line);
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	ra = freeze_acc_prepare_text(acc, x, text, n, &loc, &a, &ca, da, &ea);
	eb = (struct err)ERR_INIT;
	tree = json_parse(text, n, "t.jsonl", line, &eb);
	if (tree != NULL && !cJSON_IsObject(tree))
		err_set(&eb, ERR_INPUT, "t.jsonl:%ld: expected a JSON object", line);
	else if (tree != NULL)
		rb = freeze_acc_prepare(acc, tree, where, &b, &cb, db, &eb);
	cJSON_Delete(tree);
	if (!bad && (ra < 0) != (rb < 0)) {
		fprintf(stderr, "rec_diff: the readers disagree (flat path %s, tree %s): %.*s\n",
		    ra < 0 ? ea.msg : "accepts", rb < 0 ? eb.msg : "accepts", (int)n, text);
		bad = 1;
	} else if (!bad && ra < 0) {
		k->both_refused++;
		if (strcmp(ea.msg, eb.msg) != 0) {
			fprintf(stderr, "rec_diff: different messages:\n  %s\n  %s\n", ea.msg, eb.msg);
			bad = 1;
		}
	} else if (!bad) {
		k->both_ok++;
		if (ca.len != cb.len || memcmp(ca.p, cb.p, ca.len) != 0 || memcmp(da, db, HASH_LEN) != 0) {
			fprintf(stderr, "rec_diff: different canonical bytes for %.*s\n", (int)n, text);
			bad = 1;
		}
	}
	if (!bad && ra == 0 && rb == 0 && !freeze_item_same(&a, &b)) {
		fprintf(stderr, "rec_diff: different summaries for %.*s\n", (int)n, text);
		bad = 1;
	}
	freeze_item_clear(&a);
	freeze_item_clear(&b);
	buf_release(&ca);
	buf_release(&cb);
	buf_release(&cs);
	buf_release(&cw);
	rec_scan_free(rs);
	return bad;
}

int
main(int argc, char **argv)
{
	struct err e = ERR_INIT;
	struct counts k = { 0 };
	struct buf m = BUF_INIT;
	struct freeze_scratch *x = freeze_scratch_new(), *xw = freeze_scratch_new();
	struct rec_scan *warm = rec_scan_new(), *plain = rec_scan_new(), *canon = rec_scan_new();
	cJSON *spec;
	struct freeze_acc *acc;
	long mutations;

	if (argc < 4) {
		fprintf(stderr, "usage: rec_diff SPEC MUTATIONS LEDGER...\n");
		return 2;
	}
	spec = json_parse_file(argv[1], &e);
	acc = spec ? freeze_acc_new(spec, &e) : NULL;
	if (acc == NULL || x == NULL || xw == NULL || warm == NULL || plain == NULL || canon == NULL) {
		fprintf(stderr, "rec_diff: %s\n", e.msg);
		return 2;
	}
	rec_scan_no_avx2(plain);
	mutations = atol(argv[2]);
	for (int f = 3; f < argc; f++) {
		struct buf text = BUF_INIT;
		if (io_read_all(argv[f], &text, (size_t)1 << 30, &e) < 0) {
			fprintf(stderr, "rec_diff: %s\n", e.msg);
			return 2;
		}
		long line = 0;
		for (const char *p = text.p, *end = text.p + text.len; p < end;) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
			line++;
			if (compare(acc, x, warm, plain, canon, xw, p, n, line, &k))
				return 1;
			for (long i = 0; i < mutations; i++) {
				mutate(p, n, &m);
				if (compare(acc, x, warm, plain, canon, xw, m.p ? m.p : "", m.len, line, &k))
					return 1;
			}
			p += n + 1;
		}
		buf_release(&text);
	}
	printf("%ld records: flat reader said yes to %ld (already canonical: %ld), both accepted "
	    "%ld, both refused %ld; read by a shape %ld\n", k.lines, k.flat_ok, k.checked, k.both_ok,
	    k.both_refused, k.shaped);
	buf_release(&m);
	freeze_scratch_free(x);
	freeze_scratch_free(xw);
	rec_scan_free(warm);
	rec_scan_free(plain);
	rec_scan_free(canon);
	freeze_acc_free(acc);
	cJSON_Delete(spec);
	return 0;
}
