/* files.c: `cohort verify` over several files: classify each (freeze,
 * derived document, bundle archive, bag folder), check it, and report. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "../common/io.h"
#include "../common/map.h"
#include "../common/pool.h"
#include "../json/json.h"
#include "../verify/verify.h"
#include "review.h"
#include "../bundle/bundle.h"
#include "../derive/derive.h"

struct doc {
	const char *path;
	char *name;   /* basename, for the report */
	cJSON *json;  /* parsed document, or NULL for an archive or folder */
	cJSON *held;  /* a freeze shown to hold the quick way: its checks */
	char id[HASH_ID_LEN + 1];
	int archive;
	struct buf in; /* the bytes of standard input ("-"), kept to parse later */
	/* an archive file's digest, taken on a thread of its own while the
	 * archive is verified (the report names it by its identity) */
	struct pool_thread hasher;
	struct err he;
	uint8_t dg[HASH_LEN];
	int hashing, hrc;
};

static void
archive_digest(void *arg)
{
	struct doc *d = arg;

	d->hrc = hash_file(d->path, d->dg, NULL, &d->he);
}

/* Wait for every archive's digest and name each archive's subject by it:
 * 0, or -1 with e set by the first that could not be read (which it
 * would have been before anything was verified). */
static int
archive_ids(struct doc *docs, size_t n, cJSON *subj, struct err *e)
{
	const cJSON *s = subj != NULL ? subj->child : NULL;
	int rc = 0;

	for (size_t i = 0; i < n; i++, s = s != NULL ? s->next : NULL) {
		if (!docs[i].hashing)
			continue;
		pool_join(&docs[i].hasher);
		docs[i].hashing = 0;
		if (docs[i].hrc < 0 && rc == 0) {
			*e = docs[i].he;
			rc = -1;
		} else if (docs[i].hrc == 0) {
			hash_id_format(docs[i].dg, docs[i].id);
			if (s != NULL)
				json_add_string((cJSON *)s, "id", docs[i].id);
		}
	}
	return rc;
}

/* Whether the first n bytes m of a file are those of a gzip, zstd or tar
 * archive. */
static int
archive_magic(const unsigned char *m, size_t n)
{
	return (n >= 2 && m[0] == 0x1f && m[1] == 0x8b) ||
	    (n >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd) ||
	    (n >= 262 && memcmp(m + 257, "ustar", 5) == 0);
}

static int
is_archive(const char *path, int *yes, struct err *e)
{
	unsigned char m[262];
	struct stat st;
	size_t n;
	FILE *fp;

	*yes = 0;
	if (stat(path, &st) < 0)
		return err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		*yes = 1;
		return 0;
	}
	fp = fopen(path, "rb");
	if (fp == NULL)
		return err_set(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	n = fread(m, 1, sizeof m, fp);
	fclose(fp);
	*yes = archive_magic(m, n);
	return 0;
}

static char *
base_of(const char *path)
{
	char *t = strdup(path), *b;

	if (t == NULL)
		return NULL;
	b = strdup(basename(t));
	free(t);
	return b;
}

static char *
store_beside(const char *path)
{
	char *t = strdup(path), *d, *s;

	if (t == NULL)
		return NULL;
	d = dirname(t);
	s = malloc(strlen(d) + 8);
	if (s)
		sprintf(s, "%s/store", d);
	free(t);
	return s;
}

/* The document's tree, read now if the quick way for a freeze skipped it. */
static const cJSON *
doc_json(struct doc *d, struct err *e)
{
	if (d->json == NULL && !d->archive && strcmp(d->path, "-") == 0)
		d->json = json_parse(d->in.p ? d->in.p : "", d->in.len, io_name("-"), 1, e);
	else if (d->json == NULL && !d->archive)
		d->json = json_parse_file(d->path, e);
	return d->json;
}

/* Try the quick proof for a freeze (verify/fast.c) on its n bytes p:
 * 0 and d->held when it holds, 1 to read the document the usual way. */
static int
try_fast_bytes(const struct review_opts *o, struct doc *d, const char *p, size_t n,
    struct err *e)
{
	char *store = o->store_dir ? NULL : store_beside(d->path);
	int rc = 1;

	d->held = cJSON_CreateArray();
	if (d->held != NULL && (o->store_dir || store))
		rc = verify_freeze_fast(p, n, o->store_dir ? o->store_dir : store, o->jobs, d->held,
		    d->id, e);
	if (rc != 0) {
		cJSON_Delete(d->held);
		d->held = NULL;
	}
	free(store);
	return rc;
}

/* The same on the mapped file (guarded: common/map.h); a file cut while
 * it was read is an input error, not a proof. */
static int
try_fast(const struct review_opts *o, struct doc *d, struct err *e)
{
	struct stat st;
	struct map m;
	int fd, rc;

	fd = open(d->path, O_RDONLY);
	if (fd < 0)
		return 1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 16) {
		close(fd);
		return 1;
	}
	rc = map_fd(fd, d->path, (size_t)st.st_size, &m, &(struct err)ERR_INIT);
	close(fd);
	if (rc < 0)
		return 1;
	rc = try_fast_bytes(o, d, m.p, m.n, e);
	map_release(&m);
	return rc >= 0 && map_check(e) < 0 ? -1 : rc;
}

/* A document on standard input ("-"): read whole, then as a file is.  An
 * archive is read from its file only (a bundle is checked by path). */
static int
read_stdin(const struct review_opts *o, struct doc *d, struct err *e)
{
	int fast;

	if (io_read_all("-", &d->in, IO_MAX_DOCUMENT, e) < 0)
		return -1;
	if (archive_magic((const unsigned char *)(d->in.p ? d->in.p : ""), d->in.len))
		return err_set(e, ERR_INPUT,
		    "%s: an archive is read from its file, not standard input", io_name("-"));
	if (d->in.len >= 16 && (fast = try_fast_bytes(o, d, d->in.p, d->in.len, e)) <= 0)
		return fast;
	return doc_json(d, e) == NULL || canon_id(d->json, d->id, e) < 0 ? -1 : 0;
}

/* A document computed from several (a gate): each identity it names
 * must be among the files; then it is computed again from them. */
static int
verify_many(const struct review_opts *o, struct doc *docs, struct doc *d, const char *kind,
    cJSON *checks, struct err *e)
{
	const char *ids[DERIVE_MAX_INPUTS];
	const cJSON *in[DERIVE_MAX_INPUTS];
	char *stores[DERIVE_MAX_INPUTS] = { NULL };
	size_t n, m = 0;
	int missing = 0, rc;

	if (derive_input_ids(kind, d->json, ids, DERIVE_MAX_INPUTS, &n, e) < 0)
		return err_prefix(e, "%s", d->path);
	for (size_t j = 0; j < n; j++) {
		const cJSON *found = NULL;
		for (size_t k = 0; k < o->nfiles && found == NULL; k++)
			if (!docs[k].archive && strcmp(docs[k].id, ids[j]) == 0 &&
			    (found = doc_json(&docs[k], e)) == NULL)
				return err_prefix(e, "%s", docs[k].path);
		if (found == NULL) {
			char detail[256];
			snprintf(detail, sizeof detail, "input %s is not among the files given", ids[j]);
			verify_check_add(checks, "input-present", d->name, 0, detail);
			missing++;
			continue;
		}
		/* a freeze's store, when none is given: beside it */
		for (size_t k = 0; k < o->nfiles && !o->store_dir; k++)
			if (!docs[k].archive && strcmp(docs[k].id, ids[j]) == 0) {
				stores[m] = store_beside(docs[k].path);
				break;
			}
		in[m++] = found;
	}
	if (missing) {
		rc = 1;
	} else {
		verify_check_add(checks, "input-present", d->name, 1, "every input it names");
		struct derive_env env = { o->store_dir, (const char *const *)stores, NULL };
		rc = derive_check_set(kind, d->json, in, m, d->name, &env, checks, e);
	}
	for (size_t j = 0; j < m; j++)
		free(stores[j]);
	return rc;
}

static int
verify_one(const struct review_opts *o, struct doc *docs, size_t i, cJSON *checks, struct err *e)
{
	struct doc *d = &docs[i];
	const char *kind;

	if (d->archive)
		return bundle_verify_jobs(d->path, o->jobs, checks, e);
	if (d->held != NULL) {
		cJSON *c;
		while ((c = cJSON_DetachItemFromArray(d->held, 0)) != NULL)
			cJSON_AddItemToArray(checks, c);
		return 0;
	}
	if (json_get_string(d->json, "kind", 1, &kind, e) < 0)
		return err_prefix(e, "%s", d->path);
	if (strcmp(kind, "cohort.freeze/1") == 0) {
		char *store = o->store_dir ? NULL : store_beside(d->path);
		int rc = verify_freeze(d->json, o->store_dir ? o->store_dir : store, o->jobs, checks, e);
		free(store);
		if (rc < 0)
			err_prefix(e, "%s", d->path);
		return rc;
	}
	if (derive_is_input(kind))
		return derive_input_check(kind, d->json, d->name, checks, e);
	if (derive_many(kind))
		return verify_many(o, docs, d, kind, checks, e);
	/* A derived document: find the input it names among the files. */
	const cJSON *in = NULL;
	const char *want = NULL;
	if (json_get_string(d->json, "input", 0, &want, e) < 0)
		return err_prefix(e, "%s", d->path);
	if (want == NULL)
		return err_set(e, ERR_INPUT, "%s: cannot verify a %.60s document", d->path, kind);
	for (size_t k = 0; k < o->nfiles && in == NULL; k++)
		if (!docs[k].archive && strcmp(docs[k].id, want) == 0 &&
		    (in = doc_json(&docs[k], e)) == NULL)
			return err_prefix(e, "%s", docs[k].path);
	if (in == NULL) {
		char detail[256];
		snprintf(detail, sizeof detail, "input %s is not among the files given", want);
		verify_check_add(checks, "input-present", d->name, 0, detail);
		return 1;
	}
	verify_check_add(checks, "input-present", d->name, 1, want);
	/* the input's store: given, or beside the input's file */
	const char *inpath = NULL;
	for (size_t k = 0; k < o->nfiles && inpath == NULL; k++)
		if (!docs[k].archive && strcmp(docs[k].id, want) == 0)
			inpath = docs[k].path;
	char *store = o->store_dir || inpath == NULL ? NULL : store_beside(inpath);
	/* in's identity is want: it was found by it */
	struct derive_env env = { o->store_dir ? o->store_dir : store, NULL, want };
	int rc = derive_check(kind, d->json, in, d->name, &env, checks, e);
	free(store);
	return rc;
}

/* Operand i read: standard input kept, an archive's digest started on a
 * thread of its own, a freeze shown to hold the quick way, or a document
 * parsed with its identity.  0, or -1 with e set. */
static int
read_operand(const struct review_opts *o, struct doc *d, size_t i, struct err *e)
{
	struct stat st;
	int fast;

	d->path = o->files[i];
	if ((d->name = base_of(o->files[i])) == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (strcmp(o->files[i], "-") == 0)
		return read_stdin(o, d, e);
	if (is_archive(o->files[i], &d->archive, e) < 0)
		return -1;
	if (d->archive) {
		if (stat(o->files[i], &st) == 0 && S_ISREG(st.st_mode)) {
			d->hashing = 1;
			d->he = (struct err)ERR_INIT;
			pool_spawn(&d->hasher, archive_digest, d);
		}
		return 0;
	}
	if ((fast = try_fast(o, d, e)) <= 0)
		return fast;
	d->json = json_parse_file(o->files[i], e);
	return d->json == NULL || canon_id(d->json, d->id, e) < 0 ? -1 : 0;
}

/* The report's subject: each operand's name, identity and kind. */
static void
subjects(const struct review_opts *o, const struct doc *docs, cJSON *subj, struct err *e)
{
	for (size_t i = 0; i < o->nfiles; i++) {
		cJSON *s = cJSON_CreateObject();
		const char *kind = NULL;
		cJSON_AddItemToArray(subj, s);
		json_add_string(s, "name", docs[i].name);
		if (docs[i].id[0])
			json_add_string(s, "id", docs[i].id);
		if (docs[i].json)
			json_get_string(docs[i].json, "kind", 0, &kind, e);
		if (docs[i].held)
			kind = "cohort.freeze/1";
		json_add_string(s, "kind", docs[i].archive ? "archive" : kind ? kind : "unknown");
	}
}

/* Every operand verified into checks, then the archives' identities into
 * subj: 0 all hold, 1 findings, -1 with e set. */
static int
verify_all(const struct review_opts *o, struct doc *docs, cJSON *subj, cJSON *checks,
    struct err *e)
{
	int rc = 0;

	for (size_t i = 0; i < o->nfiles; i++) {
		int one = verify_one(o, docs, i, checks, e);
		if (one < 0) {
			/* an archive that could not be read says so first, as it did
			 * before anything was verified */
			archive_ids(docs, o->nfiles, NULL, e);
			return -1;
		}
		if (one > 0)
			rc = 1;
	}
	return archive_ids(docs, o->nfiles, subj, e) < 0 ? -1 : rc;
}

int
review_files(const struct review_opts *o, cJSON **report, struct err *e)
{
	struct doc *docs = calloc(o->nfiles + 1, sizeof *docs);
	cJSON *r = NULL, *subj = NULL, *checks = NULL;
	int rc = 0;

	*report = NULL;
	if (docs == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < o->nfiles; i++)
		rc = read_operand(o, &docs[i], i, e);
	if (rc == 0 && ((r = cJSON_CreateObject()) == NULL ||
	    (subj = cJSON_CreateArray()) == NULL || (checks = cJSON_CreateArray()) == NULL)) {
		cJSON_Delete(subj);
		cJSON_Delete(checks);
		rc = err_set(e, ERR_NOMEM, "out of memory");
	}
	if (rc == 0) {
		json_add_string(r, "kind", "cohort.verify/1");
		cJSON_AddItemToObject(r, "subject", subj);
		cJSON_AddItemToObject(r, "checks", checks);
		subjects(o, docs, subj, e);
		rc = verify_all(o, docs, subj, checks, e);
	}
	if (rc >= 0) {
		json_add_bool(r, "ok", rc == 0);
		*report = r;
		r = NULL;
	} else {
		/* a digest still running reads docs[i].path: waited for before it goes */
		struct err ig = ERR_INIT;
		archive_ids(docs, o->nfiles, NULL, &ig);
	}
	cJSON_Delete(r);
	for (size_t i = 0; i < o->nfiles; i++) {
		free(docs[i].name);
		cJSON_Delete(docs[i].json);
		cJSON_Delete(docs[i].held);
		buf_release(&docs[i].in);
	}
	free(docs);
	return rc;
}

int
review_table(const cJSON *report, struct buf *out)
{
	const cJSON *c;
	int nok = 0, nbad = 0;

	cJSON_ArrayForEach(c, json_get(report, "checks")) {
		const cJSON *ok = json_get(c, "ok"), *d = json_get(c, "detail");
		const cJSON *ck = json_get(c, "check"), *s = json_get(c, "subject");
		int good = cJSON_IsTrue(ok);
		nok += good;
		nbad += !good;
		buf_printf(out, "%-4s %-18s %-28s %s\n", good ? "ok" : "FAIL",
		    cJSON_IsString(ck) ? ck->valuestring : "?", cJSON_IsString(s) ? s->valuestring : "?",
		    cJSON_IsString(d) ? d->valuestring : "");
	}
	return buf_printf(out, "%d check%s hold%s, %d finding%s\n", nok, nok == 1 ? "" : "s",
	    nok == 1 ? "s" : "", nbad, nbad == 1 ? "" : "s");
}
