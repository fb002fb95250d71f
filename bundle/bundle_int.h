/* bundle_int.h: what the files of the publication gate (bundle.c, spec.c,
 * read.c, graph.c, refreeze.c, slow.c, git.c, archive.c) and of the
 * archive's verifier (verify_*.c) share.  Nothing outside bundle/
 * includes it.
 *
 * Ownership: a struct ctx owns its items' documents, the files' paths,
 * the spec, the findings and the checks (ctx_release in bundle.c frees
 * them); a struct vctx owns its items (freed by bundle_verify_jobs).
 * Everything else passed in is borrowed, and documents returned through
 * a cJSON * or cJSON ** belong to the caller, as in bundle.h.
 */
#ifndef COHORT_BUNDLE_INT_H
#define COHORT_BUNDLE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "../bagit/bag.h"
#include "../common/err.h"
#include "../common/hash.h"
#include "bundle.h"

struct freeze_games;
struct secret_rules;
struct slot;

/* ------------------------------------------------------------ the gate */

/* One file of the bundle (an item, or a file of an item's store). */
struct file {
	char *rel;                 /* path relative to the spec's folder */
	char *abs;                 /* path to open */
	uint64_t size;
	uint8_t sha[HASH_LEN];
	char id[HASH_ID_LEN + 1];  /* "sha256:" of the bytes */
	int item;                  /* index of its item */
};

struct item {
	const cJSON *spec;         /* its object in the spec */
	long index;                /* its position in "items" */
	const char *role;
	const char *path;          /* as written */
	const cJSON *derived;      /* "derived_from", or NULL; or implied */
	cJSON *implied;            /* derived_from implied by the kinds (bundle_imply_graph) */
	const cJSON *git;          /* "git", or NULL */
	cJSON *git_out;            /* "git" as recorded: with the commit HEAD gave */
	const char *store;         /* "store", or NULL */
	int exists;
	struct file *file;         /* its own file when it exists */
	cJSON *doc;                /* parsed when it is a cohort document */
	struct freeze_games *games; /* a freeze's games, held flat (doc_read) */
	const char *kind;          /* its "kind" */
	char doc_id[HASH_ID_LEN + 1]; /* canonical identity when a document */
	int store_exists;          /* its store folder exists */
	size_t store_files;
	uint64_t store_bytes;
};

struct ctx {
	const char *spec_path;
	char *dir;                 /* the spec's folder */
	cJSON *spec;
	const char *name, *as_of;
	int64_t mtime;
	char date[48];
	char spec_id[HASH_ID_LEN + 1];
	struct item *it;
	size_t n;
	struct file *f;
	size_t nf, cf;
	cJSON *findings;
	cJSON *checks;             /* names of the checks that ran */
	struct secret_rules *rules;
	const struct bundle_opts *o;
	struct err *e;
};

/* bundle.c */

/* An input error about the spec ("SPEC: items[I]: "FIELD": ..."; index -1
 * for a field of the spec itself): -1, with c->e set. */
int bundle_spec_err(struct ctx *c, long index, const char *field, const char *fmt, ...);

/* Append a finding; role, path may be NULL, line 0 when it does not apply. */
cJSON *bundle_finding(struct ctx *c, const char *check, const struct item *it, const char *path,
    long line, const char *action, const char *fmt, ...);

/* What the gate is doing now, to o->progress when set (a terminal's
 * progress line). */
void bundle_stage(const struct ctx *c, const char *fmt, ...);

/* spec.c */

/* The bundle spec read and checked, every item's file and store found. */
int bundle_spec_read(struct ctx *c);

/* The gates a claim needs ("A", "AB", ...: the study advances in stages,
 * so each claim needs its gate and those before it), or NULL for a name
 * that is no claim. */
const char *bundle_claim_gates(const char *name);

/* read.c */

/* Every file read once, each on a thread of a pool (digest, credential
 * scan, an item's document parsed); the findings appended in the files'
 * order.  0, or -1 with c->e set. */
int bundle_files_read(struct ctx *c);

/* A file's bytes as a cohort document: an object when they hold one
 * (else NULL); a freeze's games held flat in a new *games when games is
 * not NULL (freeze_games_parse: its tree of a million games would be two
 * gigabytes).  *invalid when a ".json" file is not JSON (pe says why);
 * pe's code is ERR_NOMEM when memory ran out.  The gate and the archive
 * verifier read documents here. */
cJSON *bundle_doc_bytes(const char *q, size_t n, const char *path, struct freeze_games **games,
    int *invalid, struct err *pe);

/* The whole tree of a document read from file: doc itself, or where its
 * games are held flat (partial) the file read again, into *own for the
 * caller to delete.  NULL with e set. */
const cJSON *bundle_doc_tree(const char *file, const cJSON *doc, int partial, cJSON **own,
    struct err *e);

/* 1 when a document of kind, derived from an input whose games are held
 * flat (partial) and whose identity is input_id (or ""), needs the
 * input's whole tree: a fit and a bound read a freeze's blocks alone,
 * given its identity; any other kind may read anything. */
int bundle_needs_tree(const char *kind, int partial, const char *input_id);

/* The kinds the verifier can check: inputs, freezes, and derived kinds. */
int bundle_kind_checkable(const char *kind);

/* graph.c */

/* The item of that role, or NULL. */
const struct item *bundle_item_by_role(const struct ctx *c, const char *role);

/* The item whose bytes or canonical document have identity id, or NULL. */
const struct item *bundle_item_by_id(const struct ctx *c, const char *id);

/* The input identities a document records ("input", "inputs", "freeze",
 * "source", "prereg"), each once, in a new array. */
cJSON *bundle_recorded_inputs(const cJSON *doc);

/* 1 when the file at path, no cohort document, is a ledger of the freeze
 * doc (its games held flat in games, when not NULL): its first record is
 * a game the freeze lists.  The gate and the archive verifier imply a
 * freeze's ledgers by it. */
int bundle_ledger_of(const char *path, const cJSON *doc, const struct freeze_games *games);

/* derived_from, as given, names only what its item's kind derives from;
 * where none is given, it is implied (imply_one).  A spec that says
 * otherwise is an input error. */
int bundle_imply_graph(struct ctx *c);

/* Roles the spec requires, files that do not exist, and derived_from
 * naming roles no item has: findings. */
void bundle_check_missing(struct ctx *c);

/* Derived documents must record the identities of the items now in the
 * bundle; every identity a document records must be in the bundle. */
void bundle_check_inputs(struct ctx *c);

/* Each claim's gates are in the bundle and pass (cohort-bundle(1)). */
void bundle_check_claims(struct ctx *c);

/* The live rule (freeze/freeze.h) on every document. */
void bundle_check_live(struct ctx *c);

/* A freeze cut after the bundle's as_of would publish, as of that date,
 * games played after it. */
void bundle_check_cuts(struct ctx *c);

/* refreeze.c */

/* What freezing a freeze's ledgers again gives, against the freeze. */
struct refreeze {
	char again[HASH_ID_LEN + 1];  /* the new freeze's identity */
	long changed, added, removed; /* included games */
	char first[128];              /* the first game that differs */
	struct err why;               /* why the ledgers no longer freeze */
	long after, live;             /* games an append added after the cut, live ones */
	char first_live[64];          /* the first live one */
};

/* Freeze the ledgers again with the freeze doc's own spec and compare the
 * bytes with doc's (read from file; its games held flat when partial),
 * its "repo" aside (a freeze made again has none), and what an
 * append-only ledger may add aside too: games after the cut and live
 * ones, counted in o->after and o->live.  The gate and the archive
 * verifier both ask here.  0 the same, 1 they differ (o says how), 2 the
 * ledgers no longer freeze (o->why), -1 with e set. */
int bundle_refreeze(const cJSON *doc, int partial, const char *file, const char **ledgers,
    size_t nl, int jobs, struct refreeze *o, struct err *e);

/* A freeze against its store: the quick proof on the file's bytes
 * (verify/fast.c): 0 when it holds (checks appended, id its identity), 1
 * when it shows nothing, -1 with e set. */
int bundle_freeze_fast(const char *file, const char *dir, int jobs, cJSON *checks,
    char id[HASH_ID_LEN + 1], struct err *e);

/* A freeze against its store: the quick proof, or where it shows nothing
 * the thorough way, which names what is wrong.  verify_freeze's result. */
int bundle_freeze_vs_store(const char *file, const cJSON *doc, int partial, const char *dir,
    int jobs, cJSON *checks, struct err *e);

/* slow.c */

/* Run the slow checks' computations on jobs threads (this one among
 * them; 0: one per processor): NULL when out of memory. */
struct slot *bundle_slow_run(struct ctx *c);

/* The slots of n items freed; NULL does nothing. */
void bundle_slots_free(struct slot *slots, size_t n);

/* Re-derive each freeze from the ledger items it is derived from; *ran
 * set.  0, or -1 with c->e set. */
int bundle_check_freeze_ledgers(struct ctx *c, struct slot *slots, int *ran);

/* A fit or bound must be what computing it again from the input it names
 * gives, byte for byte; so must a document computed from several (a
 * gate), from the bundled documents it names.  -1 with the error when
 * memory ran out computing one again. */
int bundle_check_refits(struct ctx *c, const struct slot *slots);

/* A freeze's bundled store must hold every record it names, and the freeze
 * must be what its records give (verify's own check), so that the archive
 * verifies on a reviewer's machine. */
int bundle_check_stores(struct ctx *c, const struct slot *slots);

/* git.c */

/* Files with git provenance must equal the blob at the declared commit
 * (HEAD's when none is declared; the commit is recorded either way, and
 * so is the blob's git id: the archive's verifier has no repository, but
 * can hold the bag's bytes to that id, and a reviewer the id to the
 * repository).  0, or -1 with c->e set when out of memory. */
int bundle_check_git(struct ctx *c);

/* archive.c */

/* The cohort.bundle/1 document of a bundle that holds. */
cJSON *bundle_doc_make(struct ctx *c);

/* The cohort.refusal/1 document: counts by check, the findings grouped by
 * check. */
cJSON *bundle_refusal_make(struct ctx *c);

/* The archive written to o->out: bundle.json (doc), the reviewer's page,
 * every file, the RO-Crate metadata and CITATION.cff; id its identity.
 * 0, or -1 with c->e set. */
int bundle_archive_write(struct ctx *c, const struct bundle_opts *o, const cJSON *doc,
    char id[HASH_ID_LEN + 1]);

/* -------------------------------------------------- the archive's verifier */

struct vitem {
	const cJSON *x;            /* its object in bundle.json */
	long index;
	const char *role, *path;
	char name[BAG_MAX_NAME + 8];  /* "data/PATH" */
	char store[BAG_MAX_NAME + 8]; /* "data/STORE" of a store it names, or "" */
	char id[HASH_ID_LEN + 1];  /* its bytes' identity, once it is the one named */
	char doc_id[HASH_ID_LEN + 1]; /* canonical identity when a document */
	cJSON *doc;                /* when it is a cohort document */
	/* a freeze: its "games" held flat, not in doc (the tree of a
	 * million games is two gigabytes); bundle_vitem_tree gives the whole tree
	 * where a check needs it */
	struct freeze_games *games;
	const char *kind;          /* the document's own "kind" */
	int good;                  /* its paths stay in the bag and its identity holds */
	/* A freeze's quick proof against its store (bundle_freeze_vs_store's first
	 * way) needs its bytes, not its tree: it runs beside the reading of
	 * the tree.  fast_checks: what it found when it held (the proof gives
	 * doc_id too); fast_tried: it ran (and, without fast_checks, showed
	 * nothing: the thorough way follows). */
	cJSON *fast_checks;
	int fast_tried;
	char fast_id[HASH_ID_LEN + 1];
};

struct vctx {
	struct bag *b;
	const char *bdoc;          /* the bundle document's payload path */
	const char *page;          /* the reviewer's page it names ("data/report.html"), or NULL */
	cJSON *checks;
	struct vitem *v;
	size_t n;
	int jobs;                  /* threads, this one among them; 0: one per processor */
	const struct secret_rules *rules; /* the gate's, read before the tasks begin */
	struct err *e;
};

/* verify_item.c */

/* bundle.json's items, read and checked for paths; at most
 * BUNDLE_MAX_ITEMS.  The findings, or -1. */
int bundle_vitems_read(struct vctx *vc, const cJSON *items);

/* An item's identity; when it holds, its file read and its git blob:
 * the findings, or -1. */
int bundle_vitem_check(struct vctx *vc, struct vitem *it);

/* The whole tree of it's document: it->doc, or where its games are held
 * flat its file read again, into *own for the caller to delete.  NULL with
 * vc->e set. */
const cJSON *bundle_vitem_tree(struct vctx *vc, const struct vitem *it, cJSON **own);

/* The item whose bytes or canonical document have identity id, or NULL. */
struct vitem *bundle_vitem_by_id(struct vctx *vc, const char *id);

/* The quick proof of a freeze item that names a store, run beside the
 * reading of its tree (struct vitem's fast_checks).  0, or -1. */
int bundle_vitem_fast(struct vctx *vc, struct vitem *it);

/* After the reading and the proofs: a store's freeze is the identity its
 * proof gave, or (not shown that way) its tree's.  0, or -1. */
int bundle_vitem_fast_ids(struct vctx *vc);

/* verify_doc.c */

/* Each document: the live rule, and what its kind derives from; a
 * freeze's ledgers frozen again apart (part 1: a job of its own), the
 * rest in part 0.  The findings, or -1. */
int bundle_vitem_document(struct vctx *vc, const struct vitem *it, int part);

/* Each claim bundle.json makes has its gates in the bag, passing.  The
 * findings. */
int bundle_vclaims(struct vctx *vc, const cJSON *doc);

/* verify_payload.c */

/* Every payload file must be the bundle document, an item, in an item's
 * store, or the crate's metadata: anything else rides along unchecked.
 * The findings (0 or 1), or -1. */
int bundle_vunlisted(struct vctx *vc);

/* Every input a document records is in the bag.  The findings. */
int bundle_vinputs(struct vctx *vc);

/* The bag's reviewer's page, where the bundle document names one: derived
 * again from it and the documents in the bag, the same bytes.  The
 * findings (0 or 1), or -1. */
int bundle_bag_page(struct vctx *vc, const cJSON *doc);

/* verify_secret.c */

/* Every payload file through the gate's credential rules: the findings
 * (files with a credential, or that could not be scanned), or -1. */
int bundle_vsecrets(struct vctx *vc);

#endif
