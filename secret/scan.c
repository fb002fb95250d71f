/* scan.c: the credential scan.  One pass over the bytes finds where a
 * keyword may begin (a bit per pair of bytes, then a hash of three, then
 * the few keywords of that pair); each rule of a keyword found is tried
 * there: its regex_t, anchored where the match may begin (the start of the
 * word that holds the keyword, the keyword itself, or the start of the line
 * for a rule that begins with ^), decides whether it matches and how far;
 * the capture groups are then taken out of those bytes (re.c);
 * entropy, allowlists and markers may set the match aside; overlapping hits
 * are one (a rule for a kind of key before an assignment rule, then the
 * earlier rule); hits are counted per rule and reported up to the cap.
 * Second passes decode JSON escapes and base64 blobs and scan what they
 * decode to; decode.c reads streams, databases and UTF-16. */
#define _GNU_SOURCE /* memmem */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "../common/map.h"
#include "../common/utf8.h"

/* How far a match may reach from where it is tried, and how far back the
 * word holding a keyword may begin. */
#define WINDOW 4096
#define BACK 64

/* Plain text at least this large is scanned in two halves at once. */
#define SPLIT_MIN ((size_t)4 << 20)

/* Hits counted per rule, and reported (or kept, for a second half) while
 * under the cap. */
struct tally {
	const struct secret_rules *R;
	long *count;               /* [nrules] */
	long total;
	long cap;
	secret_cb cb;
	void *ctx;
	int stop;
	int keep;                  /* keep hits (a second half) instead of reporting them */
	struct secret_hit *kept;
	size_t nkept, ckept;
	int oom;
};

static const char *const ACTIONS[] = {
	[ACTION_KEY] = "revoke this key with its issuer, remove it from the file (read it from the "
	               "environment at run time) and bundle again",
	[ACTION_PRIVATE] = "remove the private key from the evidence, replace the key pair, and "
	                   "bundle again",
	[ACTION_AUTH] = "remove the authorization header value (or replace it with a placeholder), "
	                "revoke the credential, and bundle again",
	[ACTION_URL] = "remove the credential from the URL (use a credential helper or the "
	               "environment), revoke or change it, and bundle again",
	[ACTION_ASSIGN] = "replace the value with a placeholder; if it is a real credential, revoke "
	                  "or change it; then bundle again",
};

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

/* Bytes lower-cased (ASCII letters only), for keywords and stop words. */
const unsigned char secret_lower[256] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
	0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f,
	0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f,
	0x40, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f,
	0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f,
	0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f,
	0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x7b, 0x7c, 0x7d, 0x7e, 0x7f,
	0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f,
	0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0x9b, 0x9c, 0x9d, 0x9e, 0x9f,
	0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf,
	0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xbb, 0xbc, 0xbd, 0xbe, 0xbf,
	0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf,
	0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf,
	0xe0, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xeb, 0xec, 0xed, 0xee, 0xef,
	0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff,
};

static const unsigned char *
lc_table(void)
{
	return secret_lower;
}

int
secret_fail(struct worker *w, enum err_code code, const char *fmt, ...)
{
	va_list ap;

	if (!w->failed && w->e) {
		w->e->code = code;
		va_start(ap, fmt);
		vsnprintf(w->e->msg, sizeof w->e->msg, fmt, ap);
		va_end(ap);
	}
	w->failed = 1;
	return -1;
}

void
secret_where(char out[128], const char *where, const char *what)
{
	if (where == NULL || where[0] == '\0')
		snprintf(out, 128, "%s", what);
	else if (what == NULL || what[0] == '\0')
		snprintf(out, 128, "%s", where);
	else
		snprintf(out, 128, "%s, %s", where, what);
}

/* ------------------------------------------------------ entropy, base64 */

double
secret_entropy(const char *v, size_t n)
{
	unsigned counts[256] = { 0 };
	double h = 0;

	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		counts[(unsigned char)v[i]]++;
	for (int c = 0; c < 256; c++) {
		if (counts[c]) {
			double p = (double)counts[c] / (double)n;
			h -= p * log2(p);
		}
	}
	return h;
}

static signed char
b64val(unsigned char c, int *url)
{
	if (c >= 'A' && c <= 'Z')
		return (signed char)(c - 'A');
	if (c >= 'a' && c <= 'z')
		return (signed char)(c - 'a' + 26);
	if (c >= '0' && c <= '9')
		return (signed char)(c - '0' + 52);
	if (c == '+' || c == '/') {
		if (*url == 1)
			return -1;
		*url = 0;
		return c == '+' ? 62 : 63;
	}
	if (c == '-' || c == '_') {
		if (*url == 0)
			return -1;
		*url = 1;
		return c == '-' ? 62 : 63;
	}
	return -1;
}

int
secret_base64_text(const char *v, size_t n, char *out, size_t *outn)
{
	unsigned acc = 0;
	int bits = 0, url = -1;
	size_t total = 0;
	unsigned char dec[4];
	int nd = 0;

	while (n > 0 && v[n - 1] == '=')
		n--;
	if (n % 4 == 1 || n < 16)
		return 0;
	for (size_t i = 0; i < n; i++) {
		signed char d = b64val((unsigned char)v[i], &url);
		if (d < 0)
			return 0;
		acc = acc << 6 | (unsigned)d;
		bits += 6;
		if (bits >= 8) {
			unsigned char c = (unsigned char)(acc >> (bits - 8));
			bits -= 8;
			acc &= (1u << bits) - 1;
			/* printable ASCII, tab, newline, return, or well-formed UTF-8 */
			if (c >= 0x80 || nd > 0) {
				dec[nd++] = c;
				size_t k = utf8_seq_len(dec, dec + nd);
				if (k == 0) {
					/* incomplete is fine until it cannot continue */
					if (nd >= 4 || (nd > 0 && (dec[0] < 0xC2 || dec[0] > 0xF4)))
						return 0;
					if (nd > 1 && (dec[nd - 1] & 0xC0) != 0x80)
						return 0;
					continue;
				}
				if (k != (size_t)nd)
					return 0;
				if (out)
					memcpy(out + total, dec, (size_t)nd);
				total += (size_t)nd;
				nd = 0;
				continue;
			}
			if (!((c >= 0x20 && c < 0x7F) || c == '\t' || c == '\n' || c == '\r'))
				return 0;
			if (out)
				out[total] = (char)c;
			total++;
		}
	}
	if (nd > 0 || total < 12)
		return 0;
	if (outn)
		*outn = total;
	return 1;
}

/* ------------------------------------------------------------- tally */

static int
tally_add(struct tally *t, const struct secret_hit *h)
{
	long c = ++t->count[h->rule_index];

	t->total++;
	if (t->stop || (t->cap > 0 && c > t->cap))
		return 0;
	if (t->keep) {
		if (t->nkept == t->ckept) {
			size_t nc = t->ckept ? 2 * t->ckept : 16;
			struct secret_hit *nv = realloc(t->kept, nc * sizeof *nv);
			if (nv == NULL) {
				t->oom = 1;
				return -1;
			}
			t->kept = nv;
			t->ckept = nc;
		}
		t->kept[t->nkept++] = *h;
		return 0;
	}
	if (t->cb && t->cb(t->ctx, h) != 0)
		t->stop = 1;
	return 0;
}

/* --------------------------------------------------------- reporting */

static long
line_at(struct text *t, size_t pos)
{
	if (t->fixed)
		return t->line0;
	while (t->ck_pos < pos) {
		const unsigned char *nl = memchr(t->p + t->ck_pos, '\n', pos - t->ck_pos);
		if (nl == NULL) {
			t->ck_pos = pos;
			break;
		}
		t->ck_line++;
		t->ck_pos = (size_t)(nl - t->p) + 1;
	}
	while (t->ck_pos > pos) {
		/* backwards: count the newlines between */
		t->ck_pos--;
		if (t->p[t->ck_pos] == '\n')
			t->ck_line--;
	}
	return t->ck_line;
}

static void
mask(char out[64], const unsigned char *v, size_t n)
{
	size_t keep = n >= 16 ? 4 : n >= 8 ? 2 : 0;

	/* never cut a UTF-8 sequence, nor show a control character */
	while (keep > 0 && ((v[keep] & 0xC0) == 0x80))
		keep--;
	for (size_t i = 0; i < keep; i++)
		if (v[i] < 0x20 || v[i] == 0x7F) {
			keep = i;
			break;
		}
	snprintf(out, 64, "%.*s\xe2\x80\xa6 (%zu chars)", (int)keep, (const char *)v, n);
}

static int
flush_one(struct worker *w, const struct pend *p)
{
	struct secret_hit h;
	const struct rule *r = &w->R->rule[p->rule];

	h.line = p->line;
	h.rule_index = p->rule;
	h.rule = r->id;
	h.action = ACTIONS[r->action];
	memcpy(h.where, p->where, sizeof h.where);
	h.more = 0;
	memcpy(h.masked, p->masked, sizeof h.masked);
	if (tally_add(w->t, &h) < 0)
		return secret_fail(w, ERR_NOMEM, "out of memory");
	return 0;
}

/* Report the held-back hits that no later one can overlap (all with
 * before == SIZE_MAX). */
static int
flush_pending(struct worker *w, size_t before)
{
	int k = 0;

	for (int i = 0; i < w->npend; i++) {
		if (before == SIZE_MAX || w->pend[i].se + WINDOW < before) {
			if (flush_one(w, &w->pend[i]) < 0)
				return -1;
		} else {
			w->pend[k++] = w->pend[i];
		}
	}
	w->npend = k;
	return 0;
}

static int
outranks(const struct secret_rules *R, size_t a, size_t b)
{
	int ga = R->rule[a].action == ACTION_ASSIGN, gb = R->rule[b].action == ACTION_ASSIGN;

	return ga != gb ? ga < gb : a < b;
}

static int
report(struct worker *w, struct text *t, size_t rule, size_t ss, size_t se)
{
	struct pend *p;

	for (int i = 0; i < w->npend; i++) {
		p = &w->pend[i];
		if (p->se > ss && p->ss < se) {
			/* one finding per value: a rule for a kind of key names it
			 * before a rule for assignments, then the one listed first */
			if (outranks(w->R, rule, p->rule)) {
				p->rule = rule;
				p->ss = ss;
				p->se = se;
				p->line = line_at(t, ss);
				mask(p->masked, t->p + ss, se - ss);
			}
			return 0;
		}
	}
	if (w->npend == SECRET_PEND) {
		if (flush_one(w, &w->pend[0]) < 0)
			return -1;
		memmove(&w->pend[0], &w->pend[1], (SECRET_PEND - 1) * sizeof w->pend[0]);
		w->npend--;
	}
	p = &w->pend[w->npend++];
	p->rule = rule;
	p->ss = ss;
	p->se = se;
	p->line = line_at(t, ss);
	mask(p->masked, t->p + ss, se - ss);
	memcpy(p->where, t->where, sizeof p->where);
	return 0;
}

/* -------------------------------------------------------- allowlists */

/* The gate, compiled on first use (under the rule set's lock; the state
 * is read without it once ready); NULL, the scan failed, when it cannot
 * be (it was compiled once when the rules were read: out of memory). */
static regex_t *
gate_ready(struct worker *w, struct gate *g, const struct secret_re *re, const char *posix,
    int flags, const char *of)
{
	const struct secret_rules *R = w->R;
	int st = __atomic_load_n(&g->state, __ATOMIC_ACQUIRE);

	if (st == 0) {
		pthread_mutex_lock(R->lock);
		st = g->state;
		if (st == 0) {
			st = secret_regcomp(&g->re, re, posix, flags) == 0 ? 1 : -1;
			__atomic_store_n(&g->state, st, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(R->lock);
	}
	if (st != 1) {
		secret_fail(w, ERR_NOMEM, "out of memory compiling the expression of %s", of);
		return NULL;
	}
	return &g->re;
}

/* regexec over s[0..n), which need not end in a NUL (REG_STARTEND).
 * Under AddressSanitizer the bytes are copied and NUL-terminated first: its
 * regexec interceptor reads the string to a NUL, whatever REG_STARTEND
 * says (glibc itself reads nothing past n). */
static int
rx_exec(struct worker *w, const regex_t *re, const unsigned char *s, size_t n, size_t nm,
    regmatch_t *m, int eflags)
{
#ifdef SANITIZED
	buf_reset(&w->nul);
	if (buf_add(&w->nul, s, n) < 0 || buf_grow(&w->nul, 1) < 0)
		return REG_ESPACE;
	s = (const unsigned char *)w->nul.p;
#else
	(void)w;
#endif
	m[0].rm_so = 0;
	m[0].rm_eo = (regoff_t)n;
	return regexec(re, (const char *)s, nm, m, eflags | REG_STARTEND);
}

/* Does re match anywhere in s[0..n)?  regexec, with the pattern compiled
 * once per thread (posix + 1 is its unanchored "(...)"). */
static int
gate_search(struct worker *w, const struct secret_re *re, const unsigned char *s, size_t n)
{
	regex_t *rx = gate_ready(w, &w->agate[re->id], re, re->posix + 1, REG_EXTENDED | REG_NOSUB,
	    "an allowlist or path filter");
	regmatch_t m[1];

	return rx && rx_exec(w, rx, s, n, 0, m, 0) == 0;
}

static int
has_stopword(struct worker *w, const struct allowlist *a, const unsigned char *s, size_t n)
{
	const unsigned char *lc = lc_table();

	if (a->nstopwords == 0)
		return 0;
	buf_reset(&w->low);
	if (buf_grow(&w->low, n + 1) < 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		w->low.p[i] = (char)lc[s[i]];
	w->low.len = n;
	for (size_t i = 0; i < a->nstopwords; i++)
		if (memmem(w->low.p, n, a->stopwords[i], strlen(a->stopwords[i])) != NULL)
			return 1;
	return 0;
}

static int
path_matches(struct worker *w, struct secret_re *const *paths, size_t n)
{
	if (w->path == NULL)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (gate_search(w, paths[i], (const unsigned char *)w->path, strlen(w->path)) == 1)
			return 1;
	return 0;
}

struct found {
	const struct text *t;
	size_t ss, se, ms, me;
	size_t ls, le;  /* the line of the match, found when first wanted */
	int have_line;
};

static void
found_line(struct found *f)
{
	const unsigned char *p = f->t->p;

	if (f->have_line)
		return;
	f->ls = f->ms;
	while (f->ls > 0 && p[f->ls - 1] != '\n' && f->ms - f->ls < WINDOW)
		f->ls--;
	f->le = f->me;
	while (f->le < f->t->n && p[f->le] != '\n' && f->le - f->me < WINDOW)
		f->le++;
	f->have_line = 1;
}

static int
allowed(struct worker *w, const struct allowlist *a, struct found *f)
{
	const unsigned char *p = f->t->p, *s;
	size_t n;
	int re = 0, stop;

	if (a->target == AL_SECRET) {
		s = p + f->ss, n = f->se - f->ss;
	} else if (a->target == AL_MATCH) {
		s = p + f->ms, n = f->me - f->ms;
	} else {
		found_line(f);
		s = p + f->ls, n = f->le - f->ls;
	}
	for (size_t i = 0; i < a->nregexes && !re; i++)
		re = gate_search(w, a->regexes[i], s, n);
	if (!a->and)
		return re || has_stopword(w, a, p + f->ss, f->se - f->ss);
	/* AND: every kind it has must hold */
	if (a->nregexes && !re)
		return 0;
	stop = has_stopword(w, a, p + f->ss, f->se - f->ss);
	if (a->nstopwords && !stop)
		return 0;
	if (a->npaths && !path_matches(w, a->paths, a->npaths))
		return 0;
	return 1;
}

static int
applies(const struct allowlist *a, const char *id)
{
	if (a->ntarget_rules == 0)
		return 1;
	for (size_t i = 0; i < a->ntarget_rules; i++)
		if (strcmp(a->target_rules[i], id) == 0)
			return 1;
	return 0;
}

/* ------------------------------------------------------------ rules */

static int
isident(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	    c == '.' || c == '-';
}

static int
isword(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static regex_t *
gate_of(struct worker *w, size_t rule)
{
	const struct secret_re *re = w->R->rule[rule].re;

	return gate_ready(w, &w->gate[rule], re, re->posix, REG_EXTENDED, w->R->rule[rule].id);
}

static int
overlaps_changed(const struct text *t, size_t a, size_t b)
{
	size_t lo = 0, hi = t->nchanged;

	/* the first span that ends after a */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->changed[mid].b <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nchanged && t->changed[lo].a < b;
}

/* Is the match on a line marked "gitleaks:allow" or "pragma: allowlist secret"? */
static int
marked(struct found *f)
{
	const unsigned char *l;
	size_t n;

	found_line(f);
	l = f->t->p + f->ls;
	n = f->le - f->ls;
	return memmem(l, n, "gitleaks:allow", 14) != NULL ||
	    memmem(l, n, "pragma: allowlist secret", 24) != NULL;
}

/* A match of rule at [ms, me) with its secret at [ss, se): report it unless
 * something sets it aside. */
static int
judge(struct worker *w, struct text *t, size_t rule, size_t ms, size_t me, size_t ss, size_t se)
{
	const struct rule *r = &w->R->rule[rule];
	struct found f = { t, ss, se, ms, me, 0, 0, 0 };

	if (se <= ss)
		return 0;
	if (r->entropy > 0 && secret_entropy((const char *)t->p + ss, se - ss) <= r->entropy)
		return 0;
	if (r->skip_base64_text && secret_base64_text((const char *)t->p + ss, se - ss, NULL, NULL))
		return 0;
	if (t->nchanged && !overlaps_changed(t, ms, me))
		return 0;
	for (size_t i = 0; i < r->nallow; i++)
		if (allowed(w, &r->allow[i], &f))
			return 0;
	for (size_t i = 0; i < w->R->nallow; i++)
		if (applies(&w->R->allow[i], r->id) && allowed(w, &w->R->allow[i], &f))
			return 0;
	if (marked(&f))
		return 0;
	return report(w, t, rule, ss, se);
}

/* Try rule where a match may begin, at s, its window reaching reach bytes.
 * 1 when it matched there. */
static int
attempt(struct worker *w, struct text *t, size_t rule, size_t s, size_t reach)
{
	const struct rule *r = &w->R->rule[rule];
	const struct secret_re *re = r->re;
	regex_t *g = gate_of(w, rule);
	size_t we = t->n - s > reach ? s + reach : t->n, ms, me, ss = 0, se = 0;
	int noteol = we < t->n || !t->at_end, got;
	regmatch_t m[1];
	long *caps = w->caps;

	if (g == NULL)
		return -1;
	if (rx_exec(w, g, t->p + s, we - s, 1, m, noteol ? REG_NOTEOL : 0) != 0 || m[0].rm_so != 0) {
		if (re->lead_star) {
			struct rstate *rs = &w->rs[rule];
			rs->failed = (long)s;
			rs->star_to = (long)s;
			rs->star_stop = -1;
		}
		return 0;
	}
	got = secret_re_match_at(re, t->p + s, we - s, (size_t)m[0].rm_eo, noteol, caps, &w->sw);
	if (got != 1) {
		/* the small matcher gave up: regexec's own groups */
		size_t nm = g->re_nsub + 1;
		regmatch_t *pm = malloc(nm * sizeof *pm);
		if (pm == NULL)
			return secret_fail(w, ERR_NOMEM, "out of memory");
		if (rx_exec(w, g, t->p + s, we - s, nm, pm, noteol ? REG_NOTEOL : 0) != 0) {
			free(pm);
			return 0;
		}
		for (int k = 0; k <= re->ngroups; k++) {
			int pg = k == 0 ? 1 : re->posix_group[k];
			caps[2 * k] = pm[pg].rm_so;
			caps[2 * k + 1] = pm[pg].rm_eo;
		}
		free(pm);
	}
	ms = s + (size_t)caps[0];
	me = s + (size_t)caps[1];
	if (r->secret_group > 0) {
		if (caps[2 * r->secret_group] >= 0) {
			ss = s + (size_t)caps[2 * r->secret_group];
			se = s + (size_t)caps[2 * r->secret_group + 1];
		}
	} else {
		int k;
		for (k = 1; k <= re->ngroups; k++)
			if (caps[2 * k] >= 0 && caps[2 * k + 1] > caps[2 * k])
				break;
		if (k <= re->ngroups) {
			ss = s + (size_t)caps[2 * k];
			se = s + (size_t)caps[2 * k + 1];
		} else {
			ss = ms, se = me;
			while (ss < se && t->p[ss] == '\n')
				ss++;
			while (se > ss && t->p[se - 1] == '\n')
				se--;
		}
	}
	w->rs[rule].done = (long)me;
	if (judge(w, t, rule, ms, me, ss, se) < 0)
		return -1;
	return 1;
}

/* The start of the line that holds t->p[k]: found from the last answer
 * when k is past it (keywords come in order), else by looking back. */
static size_t
line_start(struct text *t, size_t k)
{
	const unsigned char *nl = NULL;

	if (k >= t->ls_pos) {
		nl = memrchr(t->p + t->ls_pos, '\n', k - t->ls_pos);
		if (nl)
			t->ls_val = (size_t)(nl - t->p) + 1;
		t->ls_pos = k;
		return t->ls_val;
	}
	/* not in order (not the keyword pass): look back at most a window */
	for (size_t n = 0; k > 0 && t->p[k - 1] != '\n'; n++, k--)
		if (n > WINDOW)
			return SIZE_MAX; /* callers see a start too far back */
	return k;
}

static struct rstate *
state_of(struct worker *w, size_t rule)
{
	struct rstate *rs = &w->rs[rule];

	if (rs->gen != w->gen) {
		rs->gen = w->gen;
		rs->tried = -1;
		rs->done = 0;
		rs->failed = -1;
	}
	return rs;
}

/* Can a try of a lead-star rule at s be skipped?  It can when its last try
 * at a failed, s is at most WINDOW / 2 past it (that try's window reached
 * WINDOW / 2 further than this one's would), and every byte between is in
 * the leading class: a match from s would have been one from a.  Bytes are
 * looked at once, however many keywords come. */
static int
covered(const struct secret_re *re, struct rstate *rs, const struct text *t, size_t s)
{
	if (!re->lead_star || rs->failed < 0 || (long)s < rs->failed ||
	    (long)s - rs->failed > WINDOW / 2)
		return 0;
	if (rs->star_stop >= 0)
		return (long)s <= rs->star_stop;
	while (rs->star_to < (long)s) {
		unsigned char c = t->p[rs->star_to];
		if (!(re->lead_set[c >> 3] >> (c & 7) & 1)) {
			rs->star_stop = rs->star_to;
			return (long)s <= rs->star_stop;
		}
		rs->star_to++;
	}
	return 1;
}

/* The keyword of rule is at t->p[k]. */
static int
try_rule(struct worker *w, struct text *t, size_t rule, size_t k)
{
	const struct secret_re *re = w->R->rule[rule].re;
	struct rstate *rs;
	size_t starts[2], ns = 0, s;

	if (!w->enabled[rule])
		return 0;
	rs = state_of(w, rule);
	if ((long)k < rs->done)
		return 0;
	if (re->lead_caret) {
		s = line_start(t, k);
		if (s == SIZE_MAX || k - s > WINDOW)
			return 0;
		starts[ns++] = s;
	} else {
		s = k;
		while (s > 0 && isident(t->p[s - 1]) && k - s < BACK)
			s--;
		starts[ns++] = s;
		if (s != k && !(re->lead_b && isword(t->p[k - 1])))
			starts[ns++] = k;
	}
	for (size_t i = 0; i < ns; i++) {
		int r;
		if ((long)starts[i] == rs->tried || covered(re, rs, t, starts[i]))
			continue;
		rs->tried = (long)starts[i];
		if ((r = attempt(w, t, rule, starts[i], re->lead_star ? WINDOW + WINDOW / 2 : WINDOW)) != 0)
			return r < 0 ? -1 : 0;
	}
	return 0;
}

static int
cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* Does keyword kw occur at t->p[i]? */
static int
keyword_at(const struct text *t, size_t i, const struct keyword *kw, const unsigned char *lc)
{
	if (t->n - i < kw->len)
		return 0;
	for (size_t j = 0; j < kw->len; j++)
		if (lc[t->p[i + j]] != (unsigned char)kw->word[j])
			return 0;
	return 1;
}

/* The rules whose keywords begin at t->p[i], each tried once, in order. */
static int
candidates(struct worker *w, struct text *t, size_t i, unsigned pairkey, const unsigned char *lc)
{
	const struct secret_rules *R = w->R;
	size_t rules[64], nr = 0;
	uint32_t lists[2] = { R->bucket[SECRET_PAIR_HASH(pairkey)], R->single[lc[t->p[i]]] };

	for (int l = 0; l < 2; l++) {
		for (uint32_t j = lists[l]; j != 0; j = R->chain[j - 1]) {
			const struct keyword *kw = &R->kw[j - 1];
			if (!keyword_at(t, i, kw, lc))
				continue;
			for (size_t q = 0; q < kw->nrules; q++) {
				if (nr == sizeof rules / sizeof rules[0]) {
					qsort(rules, nr, sizeof rules[0], cmp_size);
					for (size_t z = 0; z < nr; z++)
						if ((z == 0 || rules[z] != rules[z - 1]) &&
						    try_rule(w, t, rules[z], i) < 0)
							return -1;
					nr = 0;
				}
				rules[nr++] = kw->rules[q];
			}
		}
	}
	if (nr == 0)
		return 0;
	qsort(rules, nr, sizeof rules[0], cmp_size);
	for (size_t z = 0; z < nr; z++)
		if ((z == 0 || rules[z] != rules[z - 1]) && try_rule(w, t, rules[z], i) < 0)
			return -1;
	return 0;
}

/* May a keyword begin at t->p[i] (its first two bytes' raw bit is set)?
 * The keyword of one or two bytes, or the hash of three, says. */
static inline int
keyword_may(const struct secret_rules *R, const struct text *t, size_t i, const unsigned char *lc,
    unsigned *pairkey)
{
	unsigned a = lc[t->p[i]], b = i + 1 < t->n ? lc[t->p[i + 1]] : 0, c, k = a << 8 | b, h;

	*pairkey = k;
	if (R->short2[k >> 6] >> (k & 63) & 1)
		return 1;
	c = i + 2 < t->n ? lc[t->p[i + 2]] : 0;
	h = SECRET_THREE_HASH(a, b, c) & 65535u;
	return R->three[h >> 6] >> (h & 63) & 1;
}

static int
keyword_at_pos(struct worker *w, struct text *t, size_t i, unsigned k, const unsigned char *lc)
{
	if (w->npend && flush_pending(w, i) < 0)
		return -1;
	return candidates(w, t, i, k, lc);
}

#define RAW2(v) ((unsigned)(raw2[(v) >> 6] >> ((v) & 63)) & 1u)

/* What to do at a position whose raw pair is in the prefilter: 0 go on,
 * 1 stop (the scan is told to), -1 failed. */
static inline int
keyword_hit(struct worker *w, struct text *t, size_t at, const unsigned char *lc)
{
	unsigned k;

	if (!keyword_may(w->R, t, at, lc, &k))
		return 0;
	if (keyword_at_pos(w, t, at, k, lc) < 0)
		return -1;
	return w->t->stop ? 1 : 0;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TEDDY 1

/* Positions *pi onward, 32 at a step while 34 bytes are there: the
 * nibble masks' candidates, in order, then the raw pairs' test and the
 * rest as keyword_pass makes them.  On text of letters the step costs a
 * tenth of the raw pairs' eight lookups for every eight positions. */
__attribute__((target("avx2"))) static int
teddy_pass(struct worker *w, struct text *t, size_t *pi, size_t lim)
{
	const struct secret_rules *R = w->R;
	const unsigned char *lc = lc_table(), *p = t->p;
	const uint64_t *raw2 = R->raw2;
	const __m256i low = _mm256_set1_epi8(0x0f), zero = _mm256_setzero_si256();
	__m256i nl[3], nh[3];
	size_t i = *pi;
	int r = 0;

	for (int j = 0; j < 3; j++) {
		nl[j] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)R->nib[j][0]));
		nh[j] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)R->nib[j][1]));
	}
	for (; r == 0 && i + 34 <= t->n && i + 32 <= lim; i += 32) {
		__m256i m = _mm256_set1_epi8((char)0xff);
		for (int j = 0; j < 3; j++) {
			__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + i + j));
			__m256i lo = _mm256_and_si256(v, low);
			__m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
			m = _mm256_and_si256(m, _mm256_and_si256(_mm256_shuffle_epi8(nl[j], lo),
			    _mm256_shuffle_epi8(nh[j], hi)));
		}
		uint32_t c = ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(m, zero));
		while (c && r == 0) {
			size_t at = i + (size_t)__builtin_ctz(c);
			unsigned v = p[at] | (unsigned)p[at + 1] << 8;
			c &= c - 1;
			if (RAW2(v))
				r = keyword_hit(w, t, at, lc);
		}
	}
	*pi = i;
	return r;
}
#endif

static int
keyword_pass(struct worker *w, struct text *t)
{
	const unsigned char *lc = lc_table(), *p = t->p;
	const struct secret_rules *R = w->R;
	const uint64_t *raw2 = R->raw2;
	size_t lim = t->limit < t->n ? t->limit : t->n, i = 0;

	w->gen++;
#ifdef TEDDY
	int r;
	if (w->nibbles && (r = teddy_pass(w, t, &i, lim)) != 0)
		return r < 0 ? -1 : 0;
#endif
	/* eight positions a step: the raw pairs at each, as one mask */
	while (i + 8 < t->n && i + 8 <= lim) {
		uint64_t x;
		unsigned m;
		memcpy(&x, p + i, 8);
		m = RAW2((unsigned)(x & 0xFFFF)) | RAW2((unsigned)(x >> 8 & 0xFFFF)) << 1 |
		    RAW2((unsigned)(x >> 16 & 0xFFFF)) << 2 | RAW2((unsigned)(x >> 24 & 0xFFFF)) << 3 |
		    RAW2((unsigned)(x >> 32 & 0xFFFF)) << 4 | RAW2((unsigned)(x >> 40 & 0xFFFF)) << 5 |
		    RAW2((unsigned)(x >> 48 & 0xFFFF)) << 6 |
		    RAW2((unsigned)(x >> 56) | (unsigned)p[i + 8] << 8) << 7;
		while (m) {
			size_t at = i + (size_t)__builtin_ctz(m);
			unsigned k;
			m &= m - 1;
			if (!keyword_may(R, t, at, lc, &k))
				continue;
			if (keyword_at_pos(w, t, at, k, lc) < 0)
				return -1;
			if (w->t->stop)
				return 0;
		}
		i += 8;
	}
	for (; i < lim; i++) {
		unsigned v = p[i] | (i + 1 < t->n ? (unsigned)p[i + 1] << 8 : 0), k;
		if (RAW2(v) && keyword_may(R, t, i, lc, &k)) {
			if (keyword_at_pos(w, t, i, k, lc) < 0)
				return -1;
			if (w->t->stop)
				return 0;
		}
	}
	return flush_pending(w, SIZE_MAX);
}

/* --------------------------------------------------- decoded passes */

/* Lines with JSON escapes, unescaped and scanned (a match must touch
 * something the unescaping changed). */
static int
escape_pass(struct worker *w, struct text *t)
{
	const unsigned char *p = t->p, *q = p, *end = p + (t->limit < t->n ? t->limit : t->n);
	int d = t->depth + 1;

	while (q < end && (q = memchr(q, '\\', (size_t)(end - q))) != NULL) {
		const unsigned char *ls = q, *le;
		struct text sub;
		if (q + 1 >= p + t->n || strchr("u/\"\\bfnrt", q[1]) == NULL || q[1] == '\0') {
			q++;
			continue;
		}
		while (ls > p && ls[-1] != '\n')
			ls--;
		le = memchr(q, '\n', (size_t)(p + t->n - q));
		if (le == NULL)
			le = p + t->n;
		/* a very long line is unescaped a megabyte at a time */
		if (le - ls > (1 << 20)) {
			if (q - ls > (1 << 19))
				ls = q - 4096;
			if (le - ls > (1 << 20))
				le = ls + (1 << 20);
		}
		buf_reset(&w->dec[d]);
		w->nspans[d] = 0;
		if (secret_json_unescape(ls, (size_t)(le - ls), &w->dec[d], &w->spans[d], &w->nspans[d],
		        &w->cspans[d]) < 0)
			return secret_fail(w, ERR_NOMEM, "out of memory");
		if (w->nspans[d] > 0) {
			memset(&sub, 0, sizeof sub);
			sub.p = (const unsigned char *)w->dec[d].p;
			sub.n = sub.limit = w->dec[d].len;
			sub.at_end = 1;
			sub.line0 = line_at(t, (size_t)(q - p));
			sub.fixed = 1;
			sub.changed = w->spans[d];
			sub.nchanged = w->nspans[d];
			sub.depth = d;
			secret_where(sub.where, t->where, "after JSON unescaping");
			if (secret_scan_text(w, &sub) < 0)
				return -1;
			if (w->t->stop)
				return 0;
		}
		q = le;
	}
	return 0;
}

static const unsigned char B64[256] = {
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1,
	['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1,
	['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
	['Y'] = 1, ['Z'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1,
	['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1,
	['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
	['y'] = 1, ['z'] = 1,
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
	['8'] = 1, ['9'] = 1, ['+'] = 1, ['/'] = 1, ['-'] = 1, ['_'] = 1,
};

/* The shortest base64 run that is decoded. */
#define B64_MIN 32

/* A bit for each of the sixteen bytes at p that is a base64 character. */
static inline unsigned
b64_mask(const unsigned char *p)
{
#ifdef __SSE2__
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	/* letters: fold case with | 0x20, then 'a'..'z' */
	__m128i l = _mm_or_si128(v, _mm_set1_epi8(0x20));
	__m128i az = _mm_and_si128(_mm_cmpgt_epi8(l, _mm_set1_epi8('a' - 1)),
	    _mm_cmplt_epi8(l, _mm_set1_epi8('z' + 1)));
	__m128i d = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
	    _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
	__m128i o = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('+')),
	                             _mm_cmpeq_epi8(v, _mm_set1_epi8('/'))),
	    _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('-')), _mm_cmpeq_epi8(v, _mm_set1_epi8('_'))));
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(az, d), o));
#else
	unsigned m = 0;
	for (int k = 0; k < 16; k++)
		m |= (unsigned)B64[p[k]] << k;
	return m;
#endif
}

/* 1 when all sixteen bytes at p are base64 characters. */
static int
b64_block(const unsigned char *p)
{
	return b64_mask(p) == 0xFFFF;
}

/* The end of the run of base64 characters at p[b..n), sixteen at a look
 * (hex digests and long identifiers make runs of hundreds). */
static size_t
b64_run_end(const unsigned char *p, size_t b, size_t n)
{
	for (unsigned m; b + 16 <= n; b += 16)
		if ((m = b64_mask(p + b)) != 0xFFFF)
			return b + (size_t)__builtin_ctz(~m);
	while (b < n && B64[p[b]])
		b++;
	return b;
}

/* The start of the run of base64 characters that ends at p[a] (not
 * before p[lo]), sixteen at a look. */
static size_t
b64_run_start(const unsigned char *p, size_t a, size_t lo)
{
	/* sixteen bytes before a are in the buffer once a >= 16, even where
	 * some of them are before lo */
	for (unsigned m; a > lo && a >= 16; a -= 16)
		if ((m = b64_mask(p + a - 16)) != 0xFFFF) {
			a -= (size_t)__builtin_clz(~m << 16);
			return a > lo ? a : lo;
		}
	while (a > lo && B64[p[a - 1]])
		a--;
	return a > lo ? a : lo;
}

/* Base64 blobs of B64_MIN characters or more that decode to text: the
 * text is scanned as if it stood on the blob's line.  A run that long
 * holds a whole aligned block of sixteen, so only those are looked for. */
static int
base64_pass(struct worker *w, struct text *t)
{
	const unsigned char *p = t->p;
	size_t lim = t->limit < t->n ? t->limit : t->n, done = 0;
	int d = t->depth + 1;

	for (size_t i = 0; i + 16 <= t->n && i < lim; i += 16) {
		size_t a, b, n, outn = 0;
		if (i < done || !b64_block(p + i))
			continue;
		a = b64_run_start(p, i, done);
		b = b64_run_end(p, i + 16, t->n);
		done = b;
		if (b - a < B64_MIN || a >= lim)
			continue;
		/* in unescaped text, a run that neither holds nor borders a byte
		 * the unescaping changed is the same run in the text before it,
		 * decoded there already (again, it was a second finding) */
		if (t->nchanged && !overlaps_changed(t, a > 0 ? a - 1 : 0, b + 1))
			continue;
		n = b - a;
		while (b < t->n && p[b] == '=' && b - a < n + 2)
			b++;
		buf_reset(&w->dec[d]);
		if (buf_grow(&w->dec[d], n) < 0)
			return secret_fail(w, ERR_NOMEM, "out of memory");
		if (secret_base64_text((const char *)p + a, b - a, w->dec[d].p, &outn)) {
			struct text sub;
			memset(&sub, 0, sizeof sub);
			w->dec[d].len = outn;
			sub.p = (const unsigned char *)w->dec[d].p;
			sub.n = sub.limit = outn;
			sub.at_end = 1;
			sub.line0 = line_at(t, a);
			sub.fixed = 1;
			sub.depth = d;
			secret_where(sub.where, t->where, "in base64 text");
			if (secret_scan_text(w, &sub) < 0)
				return -1;
			if (w->t->stop)
				return 0;
		}
	}
	return 0;
}

int
secret_scan_text(struct worker *w, struct text *t)
{
	if (t->ck_line == 0) {
		t->ck_pos = 0;
		t->ck_line = t->line0;
	}
	if (keyword_pass(w, t) < 0)
		return -1;
	if (w->t->stop || t->depth >= SECRET_MAX_DEPTH)
		return 0;
	if (escape_pass(w, t) < 0)
		return -1;
	if (w->t->stop)
		return 0;
	return base64_pass(w, t);
}

int
secret_scan_bytes(struct worker *w, const unsigned char *p, size_t n, long line0, int fixed,
    const char *where, int depth)
{
	struct text t;

	if (depth < SECRET_MAX_DEPTH) {
		switch (secret_sniff(p, n)) {
		case KIND_SQLITE:
			return secret_scan_sqlite(w, p, n, where, depth);
		case KIND_COMPRESSED:
			return secret_scan_compressed(w, p, n, where, depth);
		case KIND_UTF16LE:
		case KIND_UTF16BE:
			return secret_scan_utf16(w, p, n, secret_sniff(p, n) == KIND_UTF16BE, where, depth);
		case KIND_TEXT:
			break;
		}
	}
	memset(&t, 0, sizeof t);
	t.p = p;
	t.n = t.limit = n;
	t.at_end = 1;
	t.line0 = line0;
	t.fixed = fixed;
	t.depth = depth;
	secret_where(t.where, where, "");
	return secret_scan_text(w, &t);
}

/* ------------------------------------------------------------ workers */

static int
worker_init(struct worker *w, const struct secret_rules *R, int slot, const char *path,
    struct tally *t, struct err *e)
{
	size_t n = R->nrules ? R->nrules : 1;
	int maxg = 0;

	memset(w, 0, sizeof *w);
	w->R = R;
	w->t = t;
	w->path = path;
	w->e = e;
	for (size_t i = 0; i < R->nrules; i++)
		if (R->rule[i].re->ngroups > maxg)
			maxg = R->rule[i].re->ngroups;
	w->gate = R->gate[slot];
	w->agate = R->agate[slot];
	w->enabled = calloc(n, 1);
	w->rs = calloc(n, sizeof *w->rs);
	w->caps = calloc(2 * ((size_t)maxg + 1), sizeof *w->caps);
	if (!w->gate || !w->agate || !w->enabled || !w->rs || !w->caps)
		return err_set(e, ERR_NOMEM, "out of memory");
	/* path filters, and allowlists that set a whole file aside */
	for (size_t i = 0; i < R->nrules; i++) {
		const struct rule *r = &R->rule[i];
		int on = r->path == NULL || path_matches(w, &r->path, 1);
		for (size_t k = 0; k < r->nallow && on; k++)
			if (!r->allow[k].and && r->allow[k].npaths &&
			    path_matches(w, r->allow[k].paths, r->allow[k].npaths))
				on = 0;
		for (size_t k = 0; k < R->nallow && on; k++)
			if (!R->allow[k].and && R->allow[k].npaths && applies(&R->allow[k], r->id) &&
			    path_matches(w, R->allow[k].paths, R->allow[k].npaths))
				on = 0;
		w->enabled[i] = (unsigned char)on;
	}
	return w->failed ? -1 : 0;
}

static void
worker_release(struct worker *w)
{
	free(w->enabled);
	free(w->rs);
	free(w->caps);
	secret_re_work_release(&w->sw);
	for (int d = 0; d <= SECRET_MAX_DEPTH; d++) {
		buf_release(&w->dec[d]);
		free(w->spans[d]);
	}
	buf_release(&w->low);
	buf_release(&w->nul);
}

static int
tally_init(struct tally *t, const struct secret_rules *R, long cap, secret_cb cb, void *ctx)
{
	memset(t, 0, sizeof *t);
	t->R = R;
	t->cap = cap;
	t->cb = cb;
	t->ctx = ctx;
	t->count = calloc(R->nrules ? R->nrules : 1, sizeof *t->count);
	return t->count ? 0 : -1;
}

static void
tally_release(struct tally *t)
{
	free(t->count);
	free(t->kept);
}

/* The second half of a large text, on its own thread. */
struct half {
	struct worker w;
	struct tally t;
	struct text x;
	struct err e;
	int rc;
};

static void *
half_run(void *arg)
{
	struct half *h = arg;

	h->rc = secret_scan_text(&h->w, &h->x);
	if (h->w.failed)
		h->rc = -1;
	return NULL;
}

static int
scan_split(struct worker *w, const unsigned char *p, size_t n, const struct secret_opts *o)
{
	const unsigned char *mid = memchr(p + n / 2, '\n', n - n / 2);
	struct half *h;
	struct text first;
	pthread_t th;
	long lines = 0;
	int rc;

	if (mid == NULL || (size_t)(mid + 1 - p) >= n)
		return secret_scan_bytes(w, p, n, 1, 0, "", 0);
	mid++;
	if ((h = calloc(1, sizeof *h)) == NULL)
		return secret_fail(w, ERR_NOMEM, "out of memory");
	h->e = (struct err)ERR_INIT;
	if (tally_init(&h->t, w->R, o->cap, NULL, NULL) < 0 ||
	    worker_init(&h->w, w->R, 1, w->path, &h->t, &h->e) < 0) {
		worker_release(&h->w);
		tally_release(&h->t);
		free(h);
		return secret_fail(w, ERR_NOMEM, "out of memory");
	}
	h->w.nibbles = w->nibbles;
	h->t.keep = 1;
	h->x.p = mid;
	h->x.n = h->x.limit = (size_t)(p + n - mid);
	h->x.at_end = 1;
	h->x.line0 = 1;
	if (pthread_create(&th, NULL, half_run, h) != 0) {
		worker_release(&h->w);
		tally_release(&h->t);
		free(h);
		return secret_scan_bytes(w, p, n, 1, 0, "", 0);
	}
	memset(&first, 0, sizeof first);
	first.p = p;
	first.n = n; /* windows may reach into the second half */
	first.limit = (size_t)(mid - p);
	first.at_end = 1;
	first.line0 = 1;
	rc = secret_scan_text(w, &first);
	for (const unsigned char *q = p; q < mid && (q = memchr(q, '\n', (size_t)(mid - q))) != NULL; q++)
		lines++;
	pthread_join(th, NULL);
	if (rc == 0 && (h->rc < 0 || h->t.oom)) {
		if (h->t.oom)
			rc = secret_fail(w, ERR_NOMEM, "out of memory");
		else
			rc = secret_fail(w, h->e.code, "%s", h->e.msg);
	}
	/* the second half's hits after the first's, its counts added */
	for (size_t i = 0; rc == 0 && i < h->t.nkept; i++) {
		struct secret_hit hit = h->t.kept[i];
		hit.line += lines;
		w->t->count[hit.rule_index]--; /* tally_add counts it again */
		w->t->total--;
		if (tally_add(w->t, &hit) < 0)
			rc = secret_fail(w, ERR_NOMEM, "out of memory");
	}
	for (size_t r = 0; rc == 0 && r < w->R->nrules; r++) {
		w->t->count[r] += h->t.count[r];
		w->t->total += h->t.count[r];
	}
	worker_release(&h->w);
	tally_release(&h->t);
	free(h);
	return rc;
}

long
secret_scan(const struct secret_rules *R, const struct secret_opts *o, const char *path,
    const char *p, size_t n, secret_cb cb, void *ctx, struct err *e)
{
	static const struct secret_opts none = { 0, 1, 0 };
	struct worker w;
	struct tally t;
	long total;
	int rc;

	if (o == NULL)
		o = &none;
	if (tally_init(&t, R, o->cap, cb, ctx) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (worker_init(&w, R, 0, path, &t, e) < 0) {
		worker_release(&w);
		tally_release(&t);
		return -1;
	}
#ifdef TEDDY
	w.nibbles = !o->plain && __builtin_cpu_supports("avx2");
#endif
	if (o->threads > 1 && n >= SPLIT_MIN && secret_sniff((const unsigned char *)p, n) == KIND_TEXT)
		rc = scan_split(&w, (const unsigned char *)p, n, o);
	else
		rc = secret_scan_bytes(&w, (const unsigned char *)p, n, 1, 0, "", 0);
	if (w.failed) /* an allowlist's expression that could not be compiled */
		rc = -1;
	if (rc == 0 && !t.stop && t.cap > 0) {
		/* one call for each rule that had more than the cap */
		for (size_t r = 0; r < R->nrules && !t.stop; r++) {
			if (t.count[r] <= t.cap)
				continue;
			struct secret_hit h;
			memset(&h, 0, sizeof h);
			h.rule_index = r;
			h.rule = R->rule[r].id;
			h.action = ACTIONS[R->rule[r].action];
			h.more = t.count[r] - t.cap;
			if (cb && cb(ctx, &h) != 0)
				t.stop = 1;
		}
	}
	total = t.total;
	worker_release(&w);
	tally_release(&t);
	return rc < 0 ? -1 : total;
}

long
secret_scan_file(const struct secret_rules *R, const struct secret_opts *o, const char *path,
    secret_cb cb, void *ctx, struct err *e)
{
	struct stat st;
	struct map m;
	long hits;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return err_set(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(e, ERR_IO, "%s: not a regular file", path);
	}
	if (st.st_size == 0) {
		close(fd);
		return secret_scan(R, o, path, "", 0, cb, ctx, e);
	}
	if (map_fd(fd, path, (size_t)st.st_size, &m, e) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	hits = secret_scan(R, o, path, m.p, m.n, cb, ctx, e);
	map_release(&m);
	/* hits in the zeros of a file cut meanwhile are no findings */
	return hits >= 0 && map_check(e) < 0 ? -1 : hits;
}
