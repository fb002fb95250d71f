/* internal.h: what the files of the credential scan share (scan.c,
 * re.c, rules.c, decode.c): compiled patterns, rules,
 * allowlists and the matcher's workspace.  Nothing outside secret/
 * includes it.
 *
 * Ownership: a struct secret_rules owns every rule, allowlist, pattern and
 * string in it; secret_rules_free releases them all.  A struct secret_re_work is
 * a scratch area owned by one thread; secret_re_work_release frees it.
 */
#ifndef COHORT_SECRET_INT_H
#define COHORT_SECRET_INT_H

#include <stddef.h>
#include <pthread.h>
#include <regex.h>
#include <stdint.h>

#include "../common/buf.h"
#include "secret.h"

/* ------------------------------------------------- patterns (re.c) */

/* One gitleaks (Go RE2) regular expression, translated.  The same
 * expression is held twice: as a POSIX extended regular expression for
 * regcomp(3) (the gate that decides whether a rule matches where it is
 * tried), and as a small program for a backtracking matcher that takes the
 * capture groups with Go's leftmost-first priorities out of the bytes the
 * gate matched. */
struct secret_re {
	char *posix;        /* "^(" ERE ")", for REG_EXTENDED */
	int ngroups;        /* capture groups in the Go expression */
	int *posix_group;   /* [ngroups + 1]: Go group -> subexpression of posix */
	int lead_b;         /* the expression begins with \b */
	int lead_caret;     /* every match begins with ^ (at a line start) */
	int lead_star;      /* it begins with X* (X a class, lazy or not) and has no ^ \b \B:
	                     * a failed try at a rules out every start after a while the
	                     * bytes between are all X (lead_set) */
	uint8_t lead_set[32];
	struct secret_re_inst *prog;
	int ninst;          /* 0 when the program would be too large */
	uint8_t (*sets)[32];
	int nsets;
	size_t id;          /* its number in the rule set (secret_rules.nsre) */
};

/* Translate pattern (of the subset in docs/design.md); NULL with why set
 * ("offset 12: \p is not supported ...") when it is outside the subset or
 * malformed, or out of memory. */
struct secret_re *secret_re_compile(const char *pattern, char *why, size_t whylen);
void secret_re_free(struct secret_re *re);

/* regcomp(3) of posix (re's translation, or its unanchored part), called
 * only when the memory it may take is there to be had, else REG_ESPACE:
 * glibc's regcomp frees memory twice when an allocation fails partway
 * (glibc 2.36, under ulimit -v), so it must not run out midway.  Another
 * thread that takes the memory meanwhile can still starve it; the rule set
 * is therefore read before a scan's threads begin. */
int secret_regcomp(regex_t *rx, const struct secret_re *re, const char *posix, int flags);

/* Scratch space for the matcher, reused across calls. */
struct secret_re_work {
	uint64_t *visit;
	size_t visit_cap; /* in 64-bit words */
	struct secret_re_job *stk;
	size_t stk_cap;
};

#define SECRET_RE_WORK_INIT { NULL, 0, NULL, 0 }
void secret_re_work_release(struct secret_re_work *w);

/* The leftmost-first match of re that starts at t[0], consuming nothing at
 * or past t[lim] (lim <= n; t[lim..n) is only looked at by \b and $).
 * noteol: t[n] is not the end of a line.  On a match caps[0..2*ngroups+1]
 * hold each group's start and end (-1 when it took no part).  1 matched,
 * 0 no match, -1 the search would need more memory than allowed. */
int secret_re_match_at(const struct secret_re *re, const unsigned char *t, size_t n, size_t lim, int noteol,
    long *caps, struct secret_re_work *w);

/* Does re match anywhere in t[0..n)?  1 yes, 0 no, -1 too large to tell. */
int secret_re_search(const struct secret_re *re, const unsigned char *t, size_t n, struct secret_re_work *w);

/* ------------------------------------------------- rules (rules.c) */

enum al_target { AL_SECRET, AL_MATCH, AL_LINE };

struct allowlist {
	int and;                   /* condition = "AND" */
	enum al_target target;     /* regexTarget */
	struct secret_re **regexes;
	size_t nregexes;
	char **stopwords;          /* lower case */
	size_t nstopwords;
	struct secret_re **paths;
	size_t npaths;
	char **target_rules;       /* global allowlists only: the rules it applies to (none: all) */
	size_t ntarget_rules;
};

/* What the finding tells the author to do, chosen by the rule's tags. */
enum rule_action { ACTION_KEY, ACTION_PRIVATE, ACTION_AUTH, ACTION_URL, ACTION_ASSIGN };

struct rule {
	char *id;
	char *description;
	struct secret_re *re;
	int secret_group;          /* 0: the first group that matched, or the whole match */
	double entropy;            /* 0: none; else the secret's must be greater */
	char **keywords;           /* lower case */
	size_t nkeywords;
	char **tags;
	size_t ntags;
	struct secret_re *path;          /* only files whose path matches, or NULL */
	struct allowlist *allow;
	size_t nallow;
	enum rule_action action;
	int skip_base64_text;      /* tag "skip-base64-text" */
	const char *origin;        /* the file it came from (for messages) */
	long line;                 /* its [[rules]] line there */
};

/* One keyword and the rules that have it. */
struct keyword {
	char *word;                /* lower case */
	size_t len;
	size_t *rules;             /* indices into secret_rules.rule, ascending */
	size_t nrules;
};

struct secret_rules {
	struct rule *rule;
	size_t nrules;
	struct allowlist *allow;   /* global allowlists */
	size_t nallow;
	struct keyword *kw;
	size_t nkw;
	size_t nsre;               /* patterns in all, numbered 0 .. nsre - 1 */
	/* compiled regex_t's, made when first needed and kept: one set for
	 * each of the two threads a scan may use (regexec serializes calls
	 * on one regex_t); lock guards their compiling */
	struct gate *gate[2];      /* [nrules]: each rule's regex, anchored */
	struct gate *agate[2];     /* [nsre]: allowlist and path patterns, unanchored */
	pthread_mutex_t *lock;
	/* the keyword prefilter: a bit for each pair of bytes a keyword may
	 * begin with, as the bytes stand (all cases; every pair for a one-byte
	 * keyword); then, lower-cased, a bit for each pair a keyword of one or
	 * two bytes begins with and for each hash of three bytes a longer one
	 * does; then the keywords of that pair's bucket or of that first byte */
	uint64_t raw2[1024];
	uint64_t short2[1024];
	uint64_t three[1024];
	uint32_t bucket[4096];     /* first keyword (+1) of two bytes or more, by pair hash */
	uint32_t single[256];      /* first one-byte keyword (+1), by byte */
	uint32_t *chain;           /* [nkw]: the next keyword (+1) in the same list */
	/* the keywords' first three bytes again, coarser, for 32 positions at
	 * a step (Teddy's filter, after Hyperscan): byte j = 0..2 of a keyword
	 * in bucket b, in either case, sets bit b of nib[j][0] at its low
	 * nibble and of nib[j][1] at its high one; past a short keyword's end,
	 * every nibble.  A position where no bucket holds all three bytes
	 * begins no keyword. */
	uint8_t nib[3][2][16];
};

/* Build the keyword index, the prefilter tables and the (empty) regex_t
 * caches of r, after every rule is in place; -1 when out of memory. */
#define SECRET_PAIR_HASH(k) ((((k) * 40503u) >> 4) & 4095u)
#define SECRET_THREE_HASH(a, b, c) ((((a) << 16 | (b) << 8 | (c)) * 2654435761u) >> 16)
int secret_rules_index(struct secret_rules *r);

/* ------------------------------------------------------- scan (scan.c) */

#define SECRET_MAX_DEPTH 4  /* decodings inside decodings */
#define SECRET_PEND 64      /* hits held back to be merged with overlapping ones */

/* A regex_t compiled when first needed. */
struct gate {
	regex_t re;
	int state;                  /* 0 not yet, 1 ready, -1 refused (atomic) */
};
struct tally;               /* hits counted and reported or kept */

/* The per-rule state of one text: where the rule was last tried, and where
 * its last match ended (keywords inside it are not tried again). */
struct rstate {
	unsigned gen;
	long tried, done;
	long failed;     /* a lead-star rule's last failed try, or -1 */
	long star_to;    /* bytes from failed up to here are all in its lead set */
	long star_stop;  /* the first byte after failed that is not, or -1 */
};

struct pend {
	size_t rule;
	size_t ss, se;      /* the secret, in the text's bytes */
	long line;
	char masked[64];
	char where[128];
};

/* A span of decoded bytes (JSON escapes): a match must touch one. */
struct span {
	size_t a, b;
};

/* One thread's scan: the rules, their compiled gates, scratch space. */
struct worker {
	const struct secret_rules *R;
	struct gate *gate;          /* the rule set's gate[slot] */
	struct gate *agate;         /* the rule set's agate[slot] */
	unsigned char *enabled;     /* [nrules]: 0 when a path filter or allowlist sets it aside */
	struct rstate *rs;          /* [nrules] */
	unsigned gen;
	long *caps;
	struct secret_re_work sw;
	struct pend pend[SECRET_PEND];
	int npend;
	struct tally *t;
	struct buf dec[SECRET_MAX_DEPTH + 1];   /* decoded bytes, by depth */
	struct span *spans[SECRET_MAX_DEPTH + 1];
	size_t nspans[SECRET_MAX_DEPTH + 1], cspans[SECRET_MAX_DEPTH + 1];
	struct buf low;             /* a lower-cased secret, for stop words */
	struct buf nul;             /* a window copied and NUL-terminated (sanitized builds) */
	const char *path;
	struct err *e;
	int failed;                 /* e is set: stop */
	int nibbles;                /* the nibble masks' AVX2 step runs */
};

/* Bytes to scan, as a file holds them or as a decoder made them. */
struct text {
	const unsigned char *p;
	size_t n;               /* bytes; windows may reach to here */
	size_t limit;           /* keywords are looked for before here */
	int at_end;             /* p[n] is the end of the whole text ($ may match there) */
	long line0;             /* the line of p[0] */
	int fixed;              /* every hit is on line0 (decoded from one line) */
	const struct span *changed;
	size_t nchanged;        /* > 0: only matches that touch a changed span count */
	int depth;
	char where[128];
	size_t ck_pos;          /* line counting: p[ck_pos] is on line ck_line */
	long ck_line;
	size_t ls_pos, ls_val;  /* the line holding p[ls_pos] begins at p[ls_val] */
};

/* Scan t (a text of plain bytes) with every rule; its JSON escapes and
 * base64 blobs are decoded and scanned too.  -1 when w->failed. */
int secret_scan_text(struct worker *w, struct text *t);

/* Scan bytes that may be a database, a compressed stream or UTF-16 text;
 * else as text.  line0 and fixed as in struct text. */
int secret_scan_bytes(struct worker *w, const unsigned char *p, size_t n, long line0, int fixed,
    const char *where, int depth);

/* Set w->e and w->failed; returns -1. */
int secret_fail(struct worker *w, enum err_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---------------------------------------------------- decoders (decode.c) */

/* What the bytes are, from their first ones. */
enum secret_kind { KIND_TEXT, KIND_SQLITE, KIND_COMPRESSED, KIND_UTF16LE, KIND_UTF16BE };
enum secret_kind secret_sniff(const unsigned char *p, size_t n);

int secret_scan_sqlite(struct worker *w, const unsigned char *p, size_t n, const char *where,
    int depth);
int secret_scan_compressed(struct worker *w, const unsigned char *p, size_t n, const char *where,
    int depth);
int secret_scan_utf16(struct worker *w, const unsigned char *p, size_t n, int be,
    const char *where, int depth);

/* Decode the JSON escapes of line[0..n) into out, recording in *spans the
 * decoded bytes (a growable array: *nspans used, *cspans allocated).
 * 0, or -1 when out of memory. */
int secret_json_unescape(const unsigned char *line, size_t n, struct buf *out,
    struct span **spans, size_t *nspans, size_t *cspans);

/* "where" joined to "what" ("in the gzip stream, in base64 text"). */
void secret_where(char out[128], const char *where, const char *what);

/* ------------------------------------------------ entropy, base64 (scan.c) */

/* ASCII letters lower-cased, every other byte as it is. */
extern const unsigned char secret_lower[256];

/* Shannon entropy of v[0..n) in bits per byte, as gitleaks computes it. */
double secret_entropy(const char *v, size_t n);

/* 1 when v[0..n) is base64 (standard or URL-safe, padded or not) of at
 * least 12 bytes that are all printable text (ASCII, tab, newline or
 * well-formed UTF-8).  out, when not NULL, receives the decoded bytes
 * (at most n * 3 / 4 + 3 of them) and *outn their number. */
int secret_base64_text(const char *v, size_t n, char *out, size_t *outn);

#endif
