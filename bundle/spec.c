/* spec.c: the bundle spec read and checked, every item's file and
 * store found (part of the publication gate, bundle.c). */
#define _GNU_SOURCE /* asprintf */
#include "bundle_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/io.h"
#include "../common/ts.h"
#include "../json/json.h"
#include "../report/report.h"
#include "../store/cas.h"
#include "crate.h"

/* as_of (RFC 3339, common/ts.h) to whole seconds and its UTC date. */
static int
parse_time(const char *s, int64_t *out, char date[48])
{
	struct ts t;

	if (ts_parse(s, &t) < 0)
		return -1;
	*out = t.sec;
	ts_date(t, date);
	return 0;
}

/* A git "repo": a relative folder, printable ASCII; "." and ".." may
 * name the spec's own work tree (bundle_check_git keeps it inside). */
static int
check_repo_rel(struct ctx *c, long index, const char *p)
{
	if (*p == '\0' || *p == '/')
		return bundle_spec_err(c, index, "git", "\"repo\": expected a relative folder, not \"%s\"", p);
	for (const char *s = p; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return bundle_spec_err(c, index, "git", "\"repo\": expected printable ASCII");
	return 0;
}

/* A spec path: relative, printable ASCII, no "." or ".." or empty part. */
static int
check_rel(struct ctx *c, long index, const char *field, const char *p)
{
	const char *s = p;

	if (*p == '\0')
		return bundle_spec_err(c, index, field, "empty path");
	if (*p == '/')
		return bundle_spec_err(c, index, field, "\"%s\" escapes the spec's folder (absolute path)", p);
	for (const char *q = p; *q; q++)
		if ((unsigned char)*q < 32 || (unsigned char)*q > 126 || *q == '\\')
			return bundle_spec_err(c, index, field,
			    "\"%s\": only printable ASCII without \\ is allowed in paths", p);
	for (;;) {
		const char *slash = strchr(s, '/');
		size_t k = slash ? (size_t)(slash - s) : strlen(s);
		if (k == 2 && s[0] == '.' && s[1] == '.')
			return bundle_spec_err(c, index, field, "\"%s\" escapes the spec's folder (\"..\")", p);
		if (k == 0 || (k == 1 && s[0] == '.'))
			return bundle_spec_err(c, index, field, "\"%s\": empty or \".\" path component", p);
		if (!slash)
			break;
		s = slash + 1;
	}
	return 0;
}

/* Walk from the spec's folder to rel refusing symbolic links on the way.
 * 0 and *st when it exists, 1 when it does not, -1 on error. */
static int
resolve(struct ctx *c, long index, const char *field, const char *rel, struct stat *st)
{
	char *path;
	int rc = 0;

	if (asprintf(&path, "%s/%s", c->dir, rel) < 0)
		return err_set(c->e, ERR_NOMEM, "out of memory");
	for (char *s = path + strlen(c->dir) + 1;; s++) {
		char *slash = strchr(s, '/');
		if (slash)
			*slash = '\0';
		if (lstat(path, st) != 0) {
			rc = errno == ENOENT || errno == ENOTDIR ? 1 :
			    bundle_spec_err(c, index, field, "%s: %s", rel, strerror(errno));
			break;
		}
		if (S_ISLNK(st->st_mode)) {
			rc = bundle_spec_err(c, index, field, "%s is a symbolic link; bundle the file itself",
			    path + strlen(c->dir) + 1);
			break;
		}
		if (!slash)
			break;
		*slash = '/';
		s = slash;
	}
	free(path);
	return rc;
}

static struct file *
add_file(struct ctx *c, const char *rel, int item, uint64_t size)
{
	struct file *f;

	if (c->nf == c->cf) {
		size_t nc = c->cf ? c->cf * 2 : 64;
		struct file *nv = realloc(c->f, nc * sizeof *nv);
		if (nv == NULL)
			return NULL;
		c->f = nv;
		c->cf = nc;
	}
	f = &c->f[c->nf];
	memset(f, 0, sizeof *f);
	if ((f->rel = strdup(rel)) == NULL || asprintf(&f->abs, "%s/%s", c->dir, rel) < 0) {
		free(f->rel);
		return NULL;
	}
	f->size = size;
	f->item = item;
	c->nf++;
	return f;
}

static void
skipped(struct ctx *c, const char *rel, const char *name)
{
	char msg[1024];

	if (c->o->note == NULL)
		return;
	snprintf(msg, sizeof msg, "%s/%s: not bundled: a temporary file of a freeze writing the "
	    "store, or left by one that was killed (%s)", rel, name, io_temp_name(name) ?
	    "the next freeze into the store removes it once its writer is gone" : "remove it");
	c->o->note(c->o->note_ctx, msg);
}

static int
walk_store(struct ctx *c, long index, const char *rel, int item)
{
	char *path;
	DIR *d;
	struct dirent *de;
	int rc = 0;

	if (asprintf(&path, "%s/%s", c->dir, rel) < 0)
		return err_set(c->e, ERR_NOMEM, "out of memory");
	d = opendir(path);
	if (d == NULL) {
		rc = bundle_spec_err(c, index, "store", "%s: %s", rel, strerror(errno));
		free(path);
		return rc;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char *sub;
		struct stat st;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (cas_temp_name(de->d_name)) {
			/* a pack being written, or left by a killed freeze: not the
			 * store's, never published */
			skipped(c, rel, de->d_name);
			continue;
		}
		if (asprintf(&sub, "%s/%s", rel, de->d_name) < 0) {
			rc = err_set(c->e, ERR_NOMEM, "out of memory");
			break;
		}
		char *full;
		if (asprintf(&full, "%s/%s", c->dir, sub) < 0) {
			free(sub);
			rc = err_set(c->e, ERR_NOMEM, "out of memory");
			break;
		}
		if (lstat(full, &st) != 0)
			rc = bundle_spec_err(c, index, "store", "%s: %s", sub, strerror(errno));
		else if (S_ISLNK(st.st_mode))
			rc = bundle_spec_err(c, index, "store", "%s is a symbolic link; bundle the file itself", sub);
		else if (S_ISDIR(st.st_mode))
			rc = walk_store(c, index, sub, item);
		else if (!S_ISREG(st.st_mode))
			rc = bundle_spec_err(c, index, "store", "%s is not a regular file", sub);
		else if (check_rel(c, index, "store", sub) < 0)
			rc = -1;
		else if (add_file(c, sub, item, (uint64_t)st.st_size) == NULL)
			rc = err_set(c->e, ERR_NOMEM, "out of memory");
		else
			c->it[item].store_files++, c->it[item].store_bytes += (uint64_t)st.st_size;
		free(full);
		free(sub);
	}
	closedir(d);
	free(path);
	return rc;
}

static int
file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct file *)a)->rel, ((const struct file *)b)->rel);
}

/* The claims a publication may make, and the gates each needs: the
 * study advances in stages, so each claim needs its gate and those
 * before it. */
static const struct {
	const char *name;
	const char *gates;
} claims[] = {
	{ "descriptive-curve", "A" },
	{ "candidate-curve", "AB" },
	{ "fingerprint", "ABC" },
	{ "architectural", "ABCD" },
};
#define NCLAIMS (sizeof claims / sizeof claims[0])

const char *
bundle_claim_gates(const char *name)
{
	for (size_t k = 0; k < NCLAIMS; k++)
		if (strcmp(name, claims[k].name) == 0)
			return claims[k].gates;
	return NULL;
}

/* "claims": distinct names from the table above. */
static int
read_claims(struct ctx *c)
{
	const cJSON *arr = NULL, *v, *w;
	size_t k;

	if (json_get_array(c->spec, "claims", 0, &arr, c->e) < 0)
		return err_prefix(c->e, "%s", c->spec_path);
	cJSON_ArrayForEach(v, arr) {
		for (k = 0; cJSON_IsString(v) && k < NCLAIMS; k++)
			if (strcmp(v->valuestring, claims[k].name) == 0)
				break;
		if (!cJSON_IsString(v) || k == NCLAIMS)
			return bundle_spec_err(c, -1, "claims", "expected descriptive-curve, candidate-curve, "
			    "fingerprint or architectural, got %.60s", cJSON_IsString(v) ? v->valuestring :
			    "a value that is not a string");
		cJSON_ArrayForEach(w, arr) {
			if (w == v)
				break;
			if (strcmp(w->valuestring, v->valuestring) == 0)
				return bundle_spec_err(c, -1, "claims", "claim \"%s\" is named twice",
				    v->valuestring);
		}
	}
	return 0;
}

/* The spec's own fields: kind, name, as_of, require; *items its items. */
static int
read_head(struct ctx *c, const cJSON **items)
{
	const cJSON *req = NULL, *v, *r2;
	const char *kind;

	c->spec = json_parse_file(c->spec_path, c->e);
	if (c->spec == NULL)
		return -1;
	if (!cJSON_IsObject(c->spec))
		return err_set(c->e, ERR_INPUT, "%s: expected a JSON object", c->spec_path);
	if (json_get_string(c->spec, "kind", 1, &kind, c->e) < 0 ||
	    json_get_string(c->spec, "name", 1, &c->name, c->e) < 0 ||
	    json_get_string(c->spec, "as_of", 1, &c->as_of, c->e) < 0 ||
	    json_get_array(c->spec, "require", 0, &req, c->e) < 0 ||
	    json_get_array(c->spec, "items", 1, items, c->e) < 0)
		return err_prefix(c->e, "%s", c->spec_path);
	if (strcmp(kind, "cohort.bundle-spec/1") != 0)
		return bundle_spec_err(c, -1, "kind", "expected cohort.bundle-spec/1, not %s", kind);
	if (crate_check_spec(c->spec, c->spec_path, c->e) < 0)
		return -1;
	if (*c->name == '\0' || strlen(c->name) > 100 ||
	    strspn(c->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
	        strlen(c->name) || c->name[0] == '.')
		return bundle_spec_err(c, -1, "name", "expected letters, digits, '.', '_' or '-' (it names the "
		                               "bag's folder)");
	if (parse_time(c->as_of, &c->mtime, c->date) < 0)
		return bundle_spec_err(c, -1, "as_of", "expected an RFC 3339 time such as 2026-07-20T00:00:00Z");
	if (read_claims(c) < 0)
		return -1;
	cJSON_ArrayForEach(v, req) {
		if (!cJSON_IsString(v))
			return bundle_spec_err(c, -1, "require", "expected an array of role names");
		cJSON_ArrayForEach(r2, req) {
			if (r2 == v)
				break;
			if (strcmp(r2->valuestring, v->valuestring) == 0)
				return bundle_spec_err(c, -1, "require", "role \"%s\" is named twice",
				    v->valuestring);
		}
	}
	return 0;
}

/* c->dir: the folder of the spec, which every path is relative to. */
static int
spec_folder(struct ctx *c)
{
	char *slash;

	c->dir = strdup(c->spec_path);
	if (c->dir == NULL)
		return err_set(c->e, ERR_NOMEM, "out of memory");
	slash = strrchr(c->dir, '/');
	if (slash == NULL) {
		free(c->dir);
		c->dir = strdup(".");
	} else if (slash == c->dir) {
		slash[1] = '\0';
	} else {
		*slash = '\0';
	}
	return 0;
}

/* An item's fields: role (once in the spec), path, derived_from, git,
 * store. */
static int
item_fields(struct ctx *c, struct item *it, const cJSON *v, long i)
{
	const cJSON *store, *d;
	const char *s;

	if (!cJSON_IsObject(v))
		return bundle_spec_err(c, i, "items", "expected an object");
	if (json_get_string(v, "role", 1, &it->role, c->e) < 0 ||
	    json_get_string(v, "path", 1, &it->path, c->e) < 0 ||
	    json_get_array(v, "derived_from", 0, &it->derived, c->e) < 0 ||
	    json_get_object(v, "git", 0, &it->git, c->e) < 0)
		return err_prefix(c->e, "%s: items[%ld]", c->spec_path, i);
	store = json_get(v, "store");
	if (store != NULL && !cJSON_IsString(store))
		return bundle_spec_err(c, i, "store", "expected a folder path");
	it->store = store ? store->valuestring : NULL;
	if (*it->role == '\0')
		return bundle_spec_err(c, i, "role", "empty role");
	for (long j = 0; j < i; j++)
		if (strcmp(c->it[j].role, it->role) == 0)
			return bundle_spec_err(c, i, "role", "role \"%s\" is named twice (also items[%ld])",
			    it->role, j);
	cJSON_ArrayForEach(d, it->derived)
		if (!cJSON_IsString(d))
			return bundle_spec_err(c, i, "derived_from", "expected an array of roles");
	if (it->git) {
		s = NULL;
		if (json_get_string(it->git, "repo", 1, &s, c->e) < 0 ||
		    json_get_string(it->git, "commit", 0, &s, c->e) < 0 ||
		    json_get_string(it->git, "path", 1, &s, c->e) < 0)
			return err_prefix(c->e, "%s: items[%ld]: \"git\"", c->spec_path, i);
		s = NULL;
		json_get_string(it->git, "commit", 0, &s, c->e);
		if (s != NULL && (strlen(s) != 40 || strspn(s, "0123456789abcdef") != 40))
			return bundle_spec_err(c, i, "git", "\"commit\": expected 40 lowercase hex digits");
		json_get_string(it->git, "repo", 1, &s, c->e);
		if (check_repo_rel(c, i, s) < 0)
			return -1;
	}
	if (check_rel(c, i, "path", it->path) < 0)
		return -1;
	if (strcmp(it->path, "bundle.json") == 0)
		return bundle_spec_err(c, i, "path", "bundle.json is the bundle's own document in the bag; "
		                              "rename the file");
	if (strcmp(it->path, REPORT_PAGE) == 0)
		return bundle_spec_err(c, i, "path", REPORT_PAGE " is the bundle's own page in the bag; "
		                              "rename the file");
	return 0;
}

/* The item's own file, when it exists: a regular file that can be read. */
static int
item_file(struct ctx *c, struct item *it, long i)
{
	struct stat st;
	char *abs;
	int r = resolve(c, i, "path", it->path, &st), fd;

	if (r != 0)
		return r < 0 ? -1 : 0;
	if (!S_ISREG(st.st_mode))
		return bundle_spec_err(c, i, "path", "%s is not a regular file", it->path);
	if (asprintf(&abs, "%s/%s", c->dir, it->path) < 0)
		return err_set(c->e, ERR_NOMEM, "out of memory");
	fd = open(abs, O_RDONLY | O_NOFOLLOW);
	if (fd < 0) {
		int saved = errno;
		free(abs);
		return bundle_spec_err(c, i, "path", "%s: cannot read: %s", it->path, strerror(saved));
	}
	close(fd);
	free(abs);
	it->exists = 1;
	if (add_file(c, it->path, (int)i, (uint64_t)st.st_size) == NULL)
		return err_set(c->e, ERR_NOMEM, "out of memory");
	return 0;
}

/* The item's object store, when it names one: every file in it, or a
 * finding when it does not exist. */
static int
item_store(struct ctx *c, struct item *it, long i)
{
	struct stat st;
	int r;

	if (it->store == NULL)
		return 0;
	if (check_rel(c, i, "store", it->store) < 0)
		return -1;
	r = resolve(c, i, "store", it->store, &st);
	if (r < 0)
		return -1;
	if (r == 0 && !S_ISDIR(st.st_mode))
		return bundle_spec_err(c, i, "store", "%s is not a folder", it->store);
	if (r == 0 && walk_store(c, i, it->store, (int)i) < 0)
		return -1;
	it->store_exists = r == 0;
	if (r == 1)
		bundle_finding(c, "missing", it, it->store, 0,
		    "freeze again with --store so the records exist, or fix \"store\" in the "
		    "bundle spec", "the object store %s does not exist", it->store);
	return 0;
}

/* One file, one name in the bag; and not the same file under two names
 * (hard links, case). */
static int
check_names(struct ctx *c)
{
	qsort(c->f, c->nf, sizeof *c->f, file_cmp);
	for (size_t k = 1; k < c->nf; k++)
		if (strcmp(c->f[k - 1].rel, c->f[k].rel) == 0)
			return bundle_spec_err(c, c->f[k].item, "path", "%s is named twice (also by items[%d])",
			    c->f[k].rel, c->f[k - 1].item);
	for (size_t k = 0; k < c->nf; k++)
		if (c->it[c->f[k].item].exists && strcmp(c->it[c->f[k].item].path, c->f[k].rel) == 0)
			c->it[c->f[k].item].file = &c->f[k];
	for (size_t k = 0; k < c->n; k++)
		for (size_t j = 0; j < k; j++) {
			struct stat a, b;
			if (c->it[k].file && c->it[j].file && stat(c->it[k].file->abs, &a) == 0 &&
			    stat(c->it[j].file->abs, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
				return bundle_spec_err(c, (long)k, "path", "%s is the same file as items[%zu]",
				    c->it[k].path, j);
		}
	return 0;
}

int
bundle_spec_read(struct ctx *c)
{
	const cJSON *items = NULL, *v;
	long i = 0;

	if (read_head(c, &items) < 0)
		return -1;
	c->n = (size_t)cJSON_GetArraySize(items);
	c->it = calloc(c->n ? c->n : 1, sizeof *c->it);
	if (c->it == NULL)
		return err_set(c->e, ERR_NOMEM, "out of memory");
	if (spec_folder(c) < 0)
		return -1;
	cJSON_ArrayForEach(v, items) {
		struct item *it = &c->it[i];
		it->spec = v;
		it->index = i;
		if (item_fields(c, it, v, i) < 0 || item_file(c, it, i) < 0 || item_store(c, it, i) < 0)
			return -1;
		i++;
	}
	return check_names(c);
}
