/* verify_item.c: an archive's items as bundle.json lists them, each
 * confined to the bag, held to its identity, read as the gate reads it,
 * and held to its git blob. */
#define _GNU_SOURCE /* asprintf */
#include "bundle_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/io.h"
#include "../common/map.h"
#include "../json/json.h"

/* One item's fields and paths; a path leaving the bag is a finding. */
static int
vitem_fields(struct vctx *vc, struct vitem *it, const cJSON *x, long i)
{
	const cJSON *path = json_get(x, "path"), *id = json_get(x, "id"), *role = json_get(x, "role");
	const cJSON *sp = json_get(json_get(x, "store"), "path");
	const char *why;

	it->x = x;
	it->index = i;
	if (!cJSON_IsString(path) || !cJSON_IsString(id) || !cJSON_IsString(role))
		return !bag_check_add(vc->checks, "bundle", vc->bdoc, 0,
		    "items[%ld] lacks \"role\", \"path\" or \"id\"", i);
	it->role = role->valuestring;
	it->path = path->valuestring;
	snprintf(it->name, sizeof it->name, "data/%.*s", BAG_MAX_NAME, it->path);
	if (bag_confined(vc->b, it->name, &why) < 0)
		return !bag_check_add(vc->checks, "path", vc->bdoc, 0,
		    "items[%ld].path \"%.200s\" does not stay inside the bag: %s", i, it->path, why);
	if (sp != NULL && !cJSON_IsString(sp))
		return !bag_check_add(vc->checks, "path", vc->bdoc, 0,
		    "items[%ld].store.path is not a string", i);
	if (sp != NULL) {
		snprintf(it->store, sizeof it->store, "data/%.*s", BAG_MAX_NAME, sp->valuestring);
		if (bag_confined(vc->b, it->store, &why) < 0) {
			it->store[0] = '\0';
			return !bag_check_add(vc->checks, "path", vc->bdoc, 0,
			    "items[%ld].store.path \"%.200s\" does not stay inside the bag: %s", i,
			    sp->valuestring, why);
		}
	}
	it->good = 1;
	return 0;
}

static int
vitem_by_path(const void *a, const void *b)
{
	const struct vitem *x = *(const struct vitem *const *)a, *y = *(const struct vitem *const *)b;
	int c = strcmp(x->path ? x->path : "", y->path ? y->path : "");

	return c ? c : (x->index > y->index) - (x->index < y->index);
}

static int
vitem_by_role(const void *a, const void *b)
{
	const struct vitem *x = *(const struct vitem *const *)a, *y = *(const struct vitem *const *)b;
	int c = strcmp(x->role ? x->role : "", y->role ? y->role : "");

	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* A path or role given twice is refused (by sorting: n log n). */
static int
vitems_twice(struct vctx *vc)
{
	const struct vitem **s = malloc((vc->n + 1) * sizeof *s);
	int rc = 0;

	if (s == NULL)
		return err_set(vc->e, ERR_NOMEM, "out of memory");
	for (int pass = 0; pass < 2 && rc == 0; pass++) {
		for (size_t i = 0; i < vc->n; i++)
			s[i] = &vc->v[i];
		qsort(s, vc->n, sizeof *s, pass ? vitem_by_role : vitem_by_path);
		for (size_t i = 1; i < vc->n && rc == 0; i++) {
			const char *a = pass ? s[i - 1]->role : s[i - 1]->path;
			const char *b = pass ? s[i]->role : s[i]->path;
			if (a && b && strcmp(a, b) == 0)
				rc = err_set(vc->e, ERR_INPUT, "%s: items[%ld].%s: \"%.200s\" is given "
				    "twice (also items[%ld])", vc->bdoc, s[i]->index,
				    pass ? "role" : "path", b, s[i - 1]->index);
		}
	}
	free(s);
	return rc;
}

int
bundle_vitems_read(struct vctx *vc, const cJSON *items)
{
	int n = cJSON_GetArraySize(items), findings = 0;
	const cJSON *x;
	long i = 0;

	if (n > BUNDLE_MAX_ITEMS)
		return err_set(vc->e, ERR_INPUT, "%s: items: %d items, more than %d", vc->bdoc, n,
		    BUNDLE_MAX_ITEMS);
	if ((vc->v = calloc((size_t)n + 1, sizeof *vc->v)) == NULL)
		return err_set(vc->e, ERR_NOMEM, "out of memory");
	vc->n = (size_t)n;
	cJSON_ArrayForEach(x, items) {
		findings += vitem_fields(vc, &vc->v[i], x, i);
		i++;
	}
	return vitems_twice(vc) < 0 ? -1 : findings;
}

/* An item's bytes must be those its identity names. */
static int
vitem_identity(struct vctx *vc, struct vitem *it)
{
	const char *id = json_get(it->x, "id")->valuestring;
	uint8_t d[HASH_LEN];

	if (bag_payload_sha256(vc->b, it->name, d) < 0) {
		it->good = 0;
		return !bag_check_add(vc->checks, "identity", it->path, 0,
		    "role \"%s\": listed in bundle.json but not in the bag", it->role);
	}
	hash_id_format(d, it->id);
	if (strcmp(it->id, id) != 0) {
		it->good = 0;
		return !bag_check_add(vc->checks, "identity", it->path, 0,
		    "role \"%s\": bundle.json says %s, the bytes are %s", it->role, id, it->id);
	}
	bag_check_add(vc->checks, "identity", it->path, 1, "role \"%s\" is %s", it->role, it->id);
	return 0;
}

const cJSON *
bundle_vitem_tree(struct vctx *vc, const struct vitem *it, cJSON **own)
{
	char *full;
	const cJSON *t;

	*own = NULL;
	if (it->games == NULL)
		return it->doc;
	if (asprintf(&full, "%s/%s", bag_root(vc->b), it->name) < 0) {
		err_set(vc->e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	t = bundle_doc_tree(full, it->doc, 1, own, vc->e);
	free(full);
	return t;
}

/* An item's file read as the gate reads it (bundle_doc_bytes): a document's kind
 * is its own, and must be the one bundle.json gives.  The findings, or -1. */
static int
vitem_read(struct vctx *vc, struct vitem *it)
{
	const cJSON *said = json_get(it->x, "kind");
	struct map m = MAP_INIT;
	struct err pe = ERR_INIT;
	char *full;
	int invalid = 0, r, idr = 0;

	if (asprintf(&full, "%s/%s", bag_root(vc->b), it->name) < 0)
		return err_set(vc->e, ERR_NOMEM, "out of memory");
	/* mapped, not read: a ledger of a gigabyte is no document, and its
	 * first line says so (read, it was copied whole into fresh memory) */
	r = map_path(full, it->path, &m, &pe);
	free(full);
	if (r == 0)
		it->doc = bundle_doc_bytes(m.p ? m.p : "", m.n, it->path, &it->games, &invalid, &pe);
	/* a document's identity, of its bytes where its games are held flat;
	 * a store's freeze's comes once the proof beside this has run
	 * (bundle_vitem_fast_ids) */
	if (it->doc != NULL && it->store[0] == '\0')
		idr = it->games != NULL ? canon_id_text(m.p, m.n, it->path, it->doc_id, vc->e) :
		                          canon_id(it->doc, it->doc_id, vc->e);
	map_release(&m);
	if (r < 0 || pe.code == ERR_NOMEM || pe.code == ERR_IO)
		return pe.code == ERR_NOMEM ? err_set(vc->e, ERR_NOMEM, "%s", pe.msg) :
		    !bag_check_add(vc->checks, "document", it->path, 0, "cannot be read: %s", pe.msg);
	if (invalid)
		return !bag_check_add(vc->checks, "document", it->path, 0, "%s", pe.msg);
	if (it->doc != NULL) {
		const cJSON *k = json_get(it->doc, "kind");
		it->kind = cJSON_IsString(k) ? k->valuestring : NULL;
		if (idr < 0)
			return -1;
	}
	if ((said != NULL || it->kind != NULL) &&
	    (!cJSON_IsString(said) || it->kind == NULL || strcmp(said->valuestring, it->kind) != 0))
		return !bag_check_add(vc->checks, "kind", it->path, 0,
		    "bundle.json gives the kind %.60s, the document is %.60s",
		    cJSON_IsString(said) ? said->valuestring : "(none)", it->kind ? it->kind : "(none)");
	if (it->kind != NULL && !bundle_kind_checkable(it->kind))
		return !bag_check_add(vc->checks, "kind", it->path, 0,
		    "a %.60s document: not a kind this verifier can check", it->kind);
	return 0;
}

/* A string field of o, or "?" for the messages. */
static const char *
vfield(const cJSON *o, const char *name)
{
	const cJSON *v = json_get(o, name);

	return cJSON_IsString(v) ? v->valuestring : "?";
}

/* An item with git provenance (a prompt, a tool file) must be the git
 * blob bundle.json records: its bytes in the bag hashed as git hashes a
 * blob.  The id is what ties the bytes to the commit, for a reviewer with
 * the repository (`git rev-parse COMMIT:PATH` prints it); provenance
 * without one cannot be held to anything, and is a finding.  The
 * findings (0 or 1), or -1. */
static int
vgit(struct vctx *vc, const struct vitem *it)
{
	const cJSON *g = json_get(it->x, "git"), *want = json_get(g, "blob");
	char have[HASH_GIT_HEX + 1], *full;
	struct buf raw = BUF_INIT;
	struct err pe = ERR_INIT;
	int r, ok;

	if (g == NULL)
		return 0;
	if (!cJSON_IsString(want))
		return !bag_check_add(vc->checks, "git", it->path, 0,
		    "its git provenance (%.200s of %.200s at commit %.12s) records no blob id: "
		    "its bytes cannot be held to the commit",
		    vfield(g, "path"), vfield(g, "repo"), vfield(g, "commit"));
	if (asprintf(&full, "%s/%s", bag_root(vc->b), it->name) < 0)
		return err_set(vc->e, ERR_NOMEM, "out of memory");
	r = io_read_all(full, &raw, IO_MAX_DOCUMENT, &pe);
	free(full);
	if (r == 0 && hash_git_blob(raw.p ? raw.p : "", raw.len, have) < 0)
		r = err_set(&pe, ERR_NOMEM, "out of memory");
	buf_release(&raw);
	if (r < 0)
		return pe.code == ERR_NOMEM ?
		    err_set(vc->e, ERR_NOMEM, "%s", pe.msg) :
		    !bag_check_add(vc->checks, "git", it->path, 0, "cannot be read: %s", pe.msg);
	ok = strcmp(want->valuestring, have) == 0;
	if (ok)
		bag_check_add(vc->checks, "git", it->path, 1,
		    "git blob %s, as bundle.json records (%.200s of %.200s at commit %.12s)", have,
		    vfield(g, "path"), vfield(g, "repo"), vfield(g, "commit"));
	else
		bag_check_add(vc->checks, "git", it->path, 0,
		    "bundle.json records git blob %.80s (%.200s of %.200s at commit %.12s); "
		    "the bytes in the bag are blob %s",
		    want->valuestring, vfield(g, "path"), vfield(g, "repo"), vfield(g, "commit"),
		    have);
	return !ok;
}

struct vitem *
bundle_vitem_by_id(struct vctx *vc, const char *id)
{
	for (size_t i = 0; i < vc->n; i++)
		if (vc->v[i].good && (strcmp(vc->v[i].id, id) == 0 ||
		                         (vc->v[i].doc_id[0] && strcmp(vc->v[i].doc_id, id) == 0)))
			return &vc->v[i];
	return NULL;
}

int
bundle_vitem_fast(struct vctx *vc, struct vitem *it)
{
	char *sdir = NULL, *file = NULL;
	cJSON *checks = cJSON_CreateArray();
	int r = -1;

	if (checks == NULL || asprintf(&sdir, "%s/%s", bag_root(vc->b), it->store) < 0 ||
	    asprintf(&file, "%s/%s", bag_root(vc->b), it->name) < 0) {
		cJSON_Delete(checks);
		free(sdir);
		return err_set(vc->e, ERR_NOMEM, "out of memory");
	}
	r = bundle_freeze_fast(file, sdir, vc->jobs, checks, it->fast_id, vc->e);
	free(file);
	free(sdir);
	it->fast_tried = r >= 0;
	if (r == 0)
		it->fast_checks = checks;
	else
		cJSON_Delete(checks);
	return r < 0 ? -1 : 0;
}

int
bundle_vitem_fast_ids(struct vctx *vc)
{
	for (size_t i = 0; i < vc->n; i++) {
		struct vitem *it = &vc->v[i];
		if (it->store[0] == '\0' || it->doc == NULL || it->doc_id[0] != '\0')
			continue;
		const cJSON *doc;
		cJSON *own;
		int r;
		if (it->fast_checks != NULL) {
			memcpy(it->doc_id, it->fast_id, sizeof it->doc_id);
			continue;
		}
		if ((doc = bundle_vitem_tree(vc, it, &own)) == NULL)
			return -1;
		r = canon_id(doc, it->doc_id, vc->e);
		cJSON_Delete(own);
		if (r < 0)
			return -1;
	}
	return 0;
}

int
bundle_vitem_check(struct vctx *vc, struct vitem *it)
{
	int r = vitem_identity(vc, it), g;

	if (r != 0 || (r = vitem_read(vc, it)) < 0)
		return r;
	return (g = vgit(vc, it)) < 0 ? -1 : r + g;
}
