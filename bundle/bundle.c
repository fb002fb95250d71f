/* bundle.c: the publication gate.  Reads a cohort.bundle-spec/1, reads
 * every file it names once (digest and credential scan over the same
 * mapping), runs the missing, stale, live and secret checks, and either
 * refuses with every finding or writes the BagIt archive; and verifies
 * such an archive. */
#define _GNU_SOURCE /* asprintf */
#include "bundle.h"
#include "crate.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/io.h"
#include "../common/map.h"
#include "../common/pool.h"
#include "../common/repo.h"
#include "../common/ts.h"
#include "../freeze/freeze.h"
#include "../json/json.h"
#include "../protocol/games.h"
#include "../protocol/ledger.h"
#include "../store/cas.h"
#include "../derive/derive.h"
#include "../gate/gate.h"
#include "../report/report.h"
#include "../verify/verify.h"
#include "../secret/secret.h"

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
	cJSON *implied;            /* derived_from implied by the kinds (imply_graph) */
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

static int
spec_err(struct ctx *c, long index, const char *field, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (index >= 0)
		return err_set(c->e, ERR_INPUT, "%s: items[%ld]: \"%s\": %s", c->spec_path, index, field,
		    msg);
	return err_set(c->e, ERR_INPUT, "%s: \"%s\": %s", c->spec_path, field, msg);
}

/* Append a finding; role, path may be NULL, line 0 when it does not apply. */
static cJSON *
finding(struct ctx *c, const char *check, const struct item *it, const char *path, long line,
    const char *action, const char *fmt, ...)
{
	char detail[1024];
	va_list ap;
	cJSON *f = cJSON_CreateObject();

	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	if (f == NULL)
		return NULL;
	json_add_string(f, "check", check);
	if (it)
		json_add_string(f, "role", it->role);
	if (path)
		json_add_string(f, "path", path);
	if (line > 0)
		json_add_number(f, "line", (double)line);
	json_add_string(f, "detail", detail);
	json_add_string(f, "action", action);
	cJSON_AddItemToArray(c->findings, f);
	return f;
}

/* What the gate is doing now, to o->progress when set (a terminal's
 * progress line). */
static void
stage(const struct ctx *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (c->o->progress == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	c->o->progress(c->o->progress_ctx, msg);
}

/* ------------------------------------------------------------ the spec */

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
 * name the spec's own work tree (check_git keeps it inside). */
static int
check_repo_rel(struct ctx *c, long index, const char *p)
{
	if (*p == '\0' || *p == '/')
		return spec_err(c, index, "git", "\"repo\": expected a relative folder, not \"%s\"", p);
	for (const char *s = p; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return spec_err(c, index, "git", "\"repo\": expected printable ASCII");
	return 0;
}

/* A spec path: relative, printable ASCII, no "." or ".." or empty part. */
static int
check_rel(struct ctx *c, long index, const char *field, const char *p)
{
	const char *s = p;

	if (*p == '\0')
		return spec_err(c, index, field, "empty path");
	if (*p == '/')
		return spec_err(c, index, field, "\"%s\" escapes the spec's folder (absolute path)", p);
	for (const char *q = p; *q; q++)
		if ((unsigned char)*q < 32 || (unsigned char)*q > 126 || *q == '\\')
			return spec_err(c, index, field,
			    "\"%s\": only printable ASCII without \\ is allowed in paths", p);
	for (;;) {
		const char *slash = strchr(s, '/');
		size_t k = slash ? (size_t)(slash - s) : strlen(s);
		if (k == 2 && s[0] == '.' && s[1] == '.')
			return spec_err(c, index, field, "\"%s\" escapes the spec's folder (\"..\")", p);
		if (k == 0 || (k == 1 && s[0] == '.'))
			return spec_err(c, index, field, "\"%s\": empty or \".\" path component", p);
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
			    spec_err(c, index, field, "%s: %s", rel, strerror(errno));
			break;
		}
		if (S_ISLNK(st->st_mode)) {
			rc = spec_err(c, index, field, "%s is a symbolic link; bundle the file itself",
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
		rc = spec_err(c, index, "store", "%s: %s", rel, strerror(errno));
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
			rc = spec_err(c, index, "store", "%s: %s", sub, strerror(errno));
		else if (S_ISLNK(st.st_mode))
			rc = spec_err(c, index, "store", "%s is a symbolic link; bundle the file itself", sub);
		else if (S_ISDIR(st.st_mode))
			rc = walk_store(c, index, sub, item);
		else if (!S_ISREG(st.st_mode))
			rc = spec_err(c, index, "store", "%s is not a regular file", sub);
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

/* The spec's own fields: kind, name, as_of, require; *items its items. */
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
			return spec_err(c, -1, "claims", "expected descriptive-curve, candidate-curve, "
			    "fingerprint or architectural, got %.60s", cJSON_IsString(v) ? v->valuestring :
			    "a value that is not a string");
		cJSON_ArrayForEach(w, arr) {
			if (w == v)
				break;
			if (strcmp(w->valuestring, v->valuestring) == 0)
				return spec_err(c, -1, "claims", "claim \"%s\" is named twice",
				    v->valuestring);
		}
	}
	return 0;
}

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
		return spec_err(c, -1, "kind", "expected cohort.bundle-spec/1, not %s", kind);
	if (crate_check_spec(c->spec, c->spec_path, c->e) < 0)
		return -1;
	if (*c->name == '\0' || strlen(c->name) > 100 ||
	    strspn(c->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
	        strlen(c->name) || c->name[0] == '.')
		return spec_err(c, -1, "name", "expected letters, digits, '.', '_' or '-' (it names the "
		                               "bag's folder)");
	if (parse_time(c->as_of, &c->mtime, c->date) < 0)
		return spec_err(c, -1, "as_of", "expected an RFC 3339 time such as 2026-07-20T00:00:00Z");
	if (read_claims(c) < 0)
		return -1;
	cJSON_ArrayForEach(v, req) {
		if (!cJSON_IsString(v))
			return spec_err(c, -1, "require", "expected an array of role names");
		cJSON_ArrayForEach(r2, req) {
			if (r2 == v)
				break;
			if (strcmp(r2->valuestring, v->valuestring) == 0)
				return spec_err(c, -1, "require", "role \"%s\" is named twice",
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
		return spec_err(c, i, "items", "expected an object");
	if (json_get_string(v, "role", 1, &it->role, c->e) < 0 ||
	    json_get_string(v, "path", 1, &it->path, c->e) < 0 ||
	    json_get_array(v, "derived_from", 0, &it->derived, c->e) < 0 ||
	    json_get_object(v, "git", 0, &it->git, c->e) < 0)
		return err_prefix(c->e, "%s: items[%ld]", c->spec_path, i);
	store = json_get(v, "store");
	if (store != NULL && !cJSON_IsString(store))
		return spec_err(c, i, "store", "expected a folder path");
	it->store = store ? store->valuestring : NULL;
	if (*it->role == '\0')
		return spec_err(c, i, "role", "empty role");
	for (long j = 0; j < i; j++)
		if (strcmp(c->it[j].role, it->role) == 0)
			return spec_err(c, i, "role", "role \"%s\" is named twice (also items[%ld])",
			    it->role, j);
	cJSON_ArrayForEach(d, it->derived)
		if (!cJSON_IsString(d))
			return spec_err(c, i, "derived_from", "expected an array of roles");
	if (it->git) {
		s = NULL;
		if (json_get_string(it->git, "repo", 1, &s, c->e) < 0 ||
		    json_get_string(it->git, "commit", 0, &s, c->e) < 0 ||
		    json_get_string(it->git, "path", 1, &s, c->e) < 0)
			return err_prefix(c->e, "%s: items[%ld]: \"git\"", c->spec_path, i);
		s = NULL;
		json_get_string(it->git, "commit", 0, &s, c->e);
		if (s != NULL && (strlen(s) != 40 || strspn(s, "0123456789abcdef") != 40))
			return spec_err(c, i, "git", "\"commit\": expected 40 lowercase hex digits");
		json_get_string(it->git, "repo", 1, &s, c->e);
		if (check_repo_rel(c, i, s) < 0)
			return -1;
	}
	if (check_rel(c, i, "path", it->path) < 0)
		return -1;
	if (strcmp(it->path, "bundle.json") == 0)
		return spec_err(c, i, "path", "bundle.json is the bundle's own document in the bag; "
		                              "rename the file");
	if (strcmp(it->path, REPORT_PAGE) == 0)
		return spec_err(c, i, "path", REPORT_PAGE " is the bundle's own page in the bag; "
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
		return spec_err(c, i, "path", "%s is not a regular file", it->path);
	if (asprintf(&abs, "%s/%s", c->dir, it->path) < 0)
		return err_set(c->e, ERR_NOMEM, "out of memory");
	fd = open(abs, O_RDONLY | O_NOFOLLOW);
	if (fd < 0) {
		int saved = errno;
		free(abs);
		return spec_err(c, i, "path", "%s: cannot read: %s", it->path, strerror(saved));
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
		return spec_err(c, i, "store", "%s is not a folder", it->store);
	if (r == 0 && walk_store(c, i, it->store, (int)i) < 0)
		return -1;
	it->store_exists = r == 0;
	if (r == 1)
		finding(c, "missing", it, it->store, 0,
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
			return spec_err(c, c->f[k].item, "path", "%s is named twice (also by items[%d])",
			    c->f[k].rel, c->f[k - 1].item);
	for (size_t k = 0; k < c->nf; k++)
		if (c->it[c->f[k].item].exists && strcmp(c->it[c->f[k].item].path, c->f[k].rel) == 0)
			c->it[c->f[k].item].file = &c->f[k];
	for (size_t k = 0; k < c->n; k++)
		for (size_t j = 0; j < k; j++) {
			struct stat a, b;
			if (c->it[k].file && c->it[j].file && stat(c->it[k].file->abs, &a) == 0 &&
			    stat(c->it[j].file->abs, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
				return spec_err(c, (long)k, "path", "%s is the same file as items[%zu]",
				    c->it[k].path, j);
		}
	return 0;
}

/* The bundle spec read and checked, every item's file and store found. */
static int
read_spec(struct ctx *c)
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

/* ------------------------------------------------------ reading files */

struct scan_ctx {
	struct ctx *c;
	const struct item *it;
	const char *path;
	cJSON **last;              /* [rules]: the last finding of each rule in this file */
};

/* 1234567 as "1,234,567" */
static void
thousands(char *out, size_t n, long v)
{
	char d[32];
	int len = snprintf(d, sizeof d, "%ld", v), k = 0;
	size_t o = 0;

	for (int i = 0; i < len && o + 2 < n; i++) {
		out[o++] = d[i];
		k = len - 1 - i;
		if (k > 0 && k % 3 == 0 && d[i] != '-')
			out[o++] = ',';
	}
	out[o] = '\0';
}

static int
on_secret(void *p, const struct secret_hit *h)
{
	struct scan_ctx *s = p;
	cJSON *f, *detail;

	if (h->more > 0) {
		/* past the cap: the last finding of the rule says how many more */
		char more[32], text[1024];
		if ((f = s->last[h->rule_index]) == NULL)
			return 0;
		detail = cJSON_GetObjectItemCaseSensitive(f, "detail");
		thousands(more, sizeof more, h->more);
		snprintf(text, sizeof text, "%s; and %s more of rule %s in %s", detail->valuestring, more,
		    h->rule, s->path);
		cJSON_ReplaceItemInObjectCaseSensitive(f, "detail", cJSON_CreateString(text));
		json_add_number(f, "more", (double)h->more);
		return 0;
	}
	f = finding(s->c, "secret", s->it, s->path, h->line, h->action,
	    "%s: a credential (%s) is in this file%s%s%s", h->rule, h->masked, h->where[0] ? " (" : "",
	    h->where, h->where[0] ? ")" : "");
	if (f) {
		json_add_string(f, "rule", h->rule);
		json_add_string(f, "value", h->masked);
		s->last[h->rule_index] = f;
	}
	return 0;
}

/* The digest runs on a second thread while the scan reads the same pages. */
struct hash_job {
	const void *p;
	size_t n;
	uint8_t *out;
};

static void
hash_job_run(void *arg)
{
	struct hash_job *j = arg;

	hash_bytes(j->p, j->n, j->out);
}

/* Scan p..p+n for credentials, at most SECRET_CAP findings a rule, a large
 * text in two halves at once. */
static int
scan_bytes(const char *p, size_t n, struct scan_ctx *sc)
{
	struct secret_opts so = { SECRET_CAP, 2, 0 };
	cJSON **last = calloc(secret_rules_count(sc->c->rules) + 1, sizeof *last);
	long r;

	if (last == NULL)
		return err_set(sc->c->e, ERR_NOMEM, "out of memory");
	sc->last = last;
	r = secret_scan(sc->c->rules, &so, sc->path, p, n, on_secret, sc, sc->c->e);
	free(last);
	return r < 0 ? -1 : 0;
}

/* f mapped whole (guarded: common/map.h), its size taken from the open
 * file. */
static int
map_file(struct ctx *c, struct file *f, struct map *m)
{
	if (map_path(f->abs, f->rel, m, c->e) < 0)
		return -1;
	f->size = (uint64_t)m->n;
	if (m->slot >= 0 && m->n > 0)
		madvise((void *)m->p, m->n, MADV_SEQUENTIAL);
	return 0;
}

/* A file's bytes as a cohort document: an object when they hold one
 * (else NULL); a freeze's games held flat in a new *games when games is
 * not NULL (freeze_games_parse: its tree of a million games would be two
 * gigabytes).  *invalid when a ".json" file is not JSON (pe says why);
 * pe's code is ERR_NOMEM when memory ran out.  The gate and the archive
 * verifier read documents here. */
static cJSON *
doc_bytes(const char *q, size_t n, const char *path, struct freeze_games **games, int *invalid,
    struct err *pe)
{
	size_t pl = strlen(path), i = 0;
	int json_name = pl > 5 && strcmp(path + pl - 5, ".json") == 0;
	cJSON *doc = NULL;

	*invalid = 0;
	while (i < n && (q[i] == ' ' || q[i] == '\n' || q[i] == '\t' || q[i] == '\r'))
		i++;
	if (i < n && (q[i] == '{' || q[i] == '[') && n <= IO_MAX_DOCUMENT) {
		doc = games != NULL ? freeze_games_parse(q, n, path, games, pe) :
		                      json_parse(q, n, path, 1, pe);
		if (doc == NULL && json_name && pe->code != ERR_NOMEM) {
			err_prefix(pe, "not valid JSON");
			*invalid = 1;
		}
	} else if (json_name) {
		err_set(pe, ERR_INPUT, "not a JSON document");
		*invalid = 1;
	}
	if (doc && !cJSON_IsObject(doc)) {
		cJSON_Delete(doc); /* JSON, but not one of our documents */
		doc = NULL;
	}
	return doc;
}

/* The whole tree of a document read from file: doc itself, or where its
 * games are held flat (partial) the file read again, into *own for the
 * caller to delete.  NULL with e set. */
static const cJSON *
doc_tree(const char *file, const cJSON *doc, int partial, cJSON **own, struct err *e)
{
	*own = NULL;
	return partial ? (*own = json_parse_file(file, e)) : doc;
}

/* The kinds the verifier can check: inputs, freezes, and derived kinds. */
static int
kind_checkable(const char *kind)
{
	return strcmp(kind, "cohort.spec/1") == 0 || strcmp(kind, "cohort.freeze/1") == 0 ||
	    derive_known(kind) || derive_is_input(kind);
}

/* An item's own file, when it holds a JSON object: parsed, with its kind
 * and canonical identity.  A .json file that is not JSON is a finding, and
 * so is a document of a kind the verifier cannot check: the archive's
 * verifier would find it, so the gate does not publish it. */
static void
parse_doc(struct ctx *c, struct item *it, const char *q, size_t n)
{
	struct err pe = ERR_INIT;
	int invalid;

	it->doc = doc_bytes(q, n, it->path, &it->games, &invalid, &pe);
	if (invalid)
		finding(c, "invalid", it, it->path, 0, "replace the file with the document the tool wrote",
		    "%s", pe.msg);
	if (it->doc) {
		const cJSON *k2 = json_get(it->doc, "kind");
		struct err ie = ERR_INIT;
		if (cJSON_IsString(k2))
			it->kind = k2->valuestring;
		/* (games held flat: the identity of the bytes, with no tree) */
		if ((it->games != NULL ? canon_id_text(q, n, it->path, it->doc_id, &ie) :
		                         canon_id(it->doc, it->doc_id, &ie)) < 0)
			it->doc_id[0] = '\0';
		if (it->kind != NULL && !kind_checkable(it->kind))
			finding(c, "invalid", it, it->path, 0,
			    "bundle only documents a reviewer's cohort verify can check: drop the item, "
			    "or remove its \"kind\" if it is a plain file",
			    "a %.60s document: not a kind cohort can check", it->kind);
	}
}

/* Digest and scan file k in one mapping (the digest on a second thread
 * for a large one); parse it when it is an item's own document. */
static int
read_one(struct ctx *c, size_t k)
{
	struct file *f = &c->f[k];
	struct item *it = &c->it[f->item];
	struct scan_ctx sc = { c, it, f->rel, NULL };
	struct pool_thread th = POOL_THREAD_INIT;
	struct map m;
	int r;

	stage(c, "reading %s (file %zu of %zu)", f->rel, k + 1, c->nf);
	if (map_file(c, f, &m) < 0)
		return -1;
	struct hash_job job = { m.p ? m.p : "", f->size, f->sha };
	if (f->size >= ((size_t)1 << 20))
		pool_spawn(&th, hash_job_run, &job);
	else
		hash_job_run(&job);
	r = scan_bytes(m.p ? m.p : "", f->size, &sc);
	pool_join(&th);
	if (r == 0) {
		hash_id_format(f->sha, f->id);
		if (it->file == f)
			parse_doc(c, it, m.p ? m.p : "", f->size);
	}
	map_release(&m);
	/* what was read from a file cut meanwhile is no evidence */
	if (r == 0 && map_check(c->e) < 0)
		return -1;
	return r;
}

/* Each file read on a thread of a pool, with findings and an error of
 * its own (each file writes only its own struct file and its item's
 * document); the findings are then appended in the files' order, up to
 * the first file that could not be read, as reading them one after
 * another would give. */
struct fjob {
	struct ctx c;
	struct err e;
	int r;
};

static void
read_job(void *arg, size_t k, int worker)
{
	struct fjob *j = &((struct fjob *)arg)[k];

	(void)worker;
	j->r = j->c.findings == NULL ? err_set(&j->e, ERR_NOMEM, "out of memory") : read_one(&j->c, k);
}

static int
read_files(struct ctx *c)
{
	struct fjob *j = calloc(c->nf + 1, sizeof *j);
	int threads = (c->o->jobs > 0 ? c->o->jobs : pool_cpus()) - 1, rc = 0;
	struct pool *p = NULL;
	cJSON *x;

	if ((size_t)threads >= c->nf)
		threads = c->nf > 0 ? (int)c->nf - 1 : 0;
	if (j == NULL || (p = pool_new(threads)) == NULL) {
		free(j);
		return err_set(c->e, ERR_NOMEM, "out of memory");
	}
	for (size_t k = 0; k < c->nf; k++) {
		j[k].c = *c;
		j[k].c.e = &j[k].e;
		j[k].c.findings = cJSON_CreateArray();
		j[k].e = (struct err)ERR_INIT;
	}
	pool_run(p, c->nf, read_job, j);
	pool_free(p);
	for (size_t k = 0; k < c->nf; k++) {
		if (rc == 0 && j[k].r < 0) {
			*c->e = j[k].e;
			rc = -1;
		}
		while (rc == 0 && (x = cJSON_DetachItemFromArray(j[k].c.findings, 0)) != NULL)
			cJSON_AddItemToArray(c->findings, x);
		cJSON_Delete(j[k].c.findings);
	}
	free(j);
	return rc;
}

/* ------------------------------------------------------------ checks */

static const struct item *
item_by_role(const struct ctx *c, const char *role)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->it[i].role, role) == 0)
			return &c->it[i];
	return NULL;
}

static const struct item *
item_by_id(const struct ctx *c, const char *id)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->it[i].file && (strcmp(c->it[i].file->id, id) == 0 || strcmp(c->it[i].doc_id, id) == 0))
			return &c->it[i];
	return NULL;
}

static int
is_id(const char *s)
{
	uint8_t d[HASH_LEN];
	return hash_id_parse(s, d) == 0;
}

/* The input identities a document records: "input", "inputs", "freeze"
 * (strings, or arrays and objects of them). */
static void
collect_ids(const cJSON *v, cJSON *out)
{
	const cJSON *x;

	if (cJSON_IsString(v) && is_id(v->valuestring)) {
		cJSON_ArrayForEach(x, out)
			if (strcmp(x->valuestring, v->valuestring) == 0)
				return;
		cJSON_AddItemToArray(out, cJSON_CreateString(v->valuestring));
	} else if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
		cJSON_ArrayForEach(x, v)
			collect_ids(x, out);
	}
}

static cJSON *
recorded_inputs(const cJSON *doc)
{
	static const char *keys[] = { "input", "inputs", "freeze", "source", "prereg" };
	cJSON *out = cJSON_CreateArray();

	for (size_t i = 0; out && i < sizeof keys / sizeof keys[0]; i++)
		collect_ids(json_get(doc, keys[i]), out);
	return out;
}

static int
in_list(const cJSON *list, const char *id)
{
	const cJSON *x;
	cJSON_ArrayForEach(x, list)
		if (strcmp(x->valuestring, id) == 0)
			return 1;
	return 0;
}

/* ------------------------------------------------------------ the graph */

/* A ledger's first record: its game_id kept, and one is enough. */
static int
first_game(void *ctx, cJSON *rec, const struct ledger_loc *loc, struct err *e)
{
	const cJSON *g = json_get(rec, "game_id");

	if (cJSON_IsString(g))
		snprintf(ctx, 256, "%s", g->valuestring);
	return err_set(e, ERR_FINDING, "one record read");
}

/* 1 when the freeze doc lists the game id among its games (or those held
 * flat in games, when not NULL) or exclusions. */
static int
freeze_lists(const cJSON *doc, const struct freeze_games *games, const char *id)
{
	static const char *lists[] = { "games", "excluded" };
	const cJSON *x, *g;

	for (size_t k = 0; k < 2; k++)
		cJSON_ArrayForEach(x, json_get(doc, lists[k]))
			if (cJSON_IsString(g = json_get(x, "game_id")) && strcmp(g->valuestring, id) == 0)
				return 1;
	return games != NULL && freeze_games_has(games, id);
}

/* 1 when the file at path, no cohort document, is a ledger of the freeze
 * doc (its games held flat in games, when not NULL): its first record is
 * a game the freeze lists.  The gate and the archive verifier imply a
 * freeze's ledgers by it. */
static int
ledger_of(const char *path, const cJSON *doc, const struct freeze_games *games)
{
	char id[256] = "";
	struct err e = ERR_INIT;

	ledger_read(path, first_game, id, &e);
	return id[0] != '\0' && freeze_lists(doc, games, id);
}

/* 1 when it records src's identity as its input (a freeze: its spec). */
static int
records(const struct item *it, const struct item *src)
{
	cJSON *ins;
	int r;

	if (strcmp(it->kind, "cohort.freeze/1") == 0) {
		ins = cJSON_CreateArray();
		collect_ids(json_get(it->doc, "spec_id"), ins);
	} else {
		ins = recorded_inputs(it->doc);
	}
	r = (src->file != NULL && in_list(ins, src->file->id)) ||
	    (src->doc_id[0] && in_list(ins, src->doc_id));
	cJSON_Delete(ins);
	return r;
}

/* Whether src is what it derives from, by their kinds (derive_from_kind):
 * 1, 0, or -1 when it's kind implies no inputs. */
static int
derives(const struct item *it, const struct item *src)
{
	if (it->doc == NULL || it->kind == NULL)
		return -1;
	return derive_from_kind(it->kind, src->doc != NULL ? src->kind : NULL);
}

/* The roles it derives from, where the spec gives none: the items its
 * kind derives from that it records (a freeze: its spec, and the ledgers
 * whose games it lists), or the one item of such a kind when it records
 * none of them, so that a stale document is found stale. */
static int
imply_one(struct ctx *c, struct item *it)
{
	const struct item *only = NULL;
	size_t cand = 0;
	int freeze = strcmp(it->kind, "cohort.freeze/1") == 0, r;

	if ((it->implied = cJSON_CreateArray()) == NULL)
		return err_set(c->e, ERR_NOMEM, "out of memory");
	for (size_t j = 0; j < c->n; j++) {
		const struct item *src = &c->it[j];
		if (src == it || src->file == NULL || derives(it, src) != 1)
			continue;
		if (freeze && src->doc == NULL)
			r = ledger_of(src->file->abs, it->doc, it->games);
		else
			r = records(it, src);
		cand++;
		only = src;
		if (r)
			cJSON_AddItemToArray(it->implied, cJSON_CreateString(src->role));
	}
	if (cJSON_GetArraySize(it->implied) == 0 && cand == 1 && !derive_many(it->kind) &&
	    (!freeze || only->doc != NULL))
		cJSON_AddItemToArray(it->implied, cJSON_CreateString(only->role));
	it->derived = it->implied;
	return 0;
}

/* derived_from, as given, names only what its item's kind derives from;
 * where none is given, it is implied (imply_one).  A spec that says
 * otherwise is an input error. */
static int
imply_graph(struct ctx *c)
{
	for (size_t i = 0; i < c->n; i++) {
		struct item *it = &c->it[i];
		const cJSON *d;
		if (it->doc == NULL || it->kind == NULL || derive_from_kind(it->kind, "") < 0)
			continue;
		if (it->derived == NULL) {
			if (imply_one(c, it) < 0)
				return -1;
			continue;
		}
		cJSON_ArrayForEach(d, it->derived) {
			const struct item *src = item_by_role(c, d->valuestring);
			if (src == it)
				return spec_err(c, it->index, "derived_from", "role \"%s\" is the item itself",
				    d->valuestring);
			if (src != NULL && src->exists && derives(it, src) == 0)
				return spec_err(c, it->index, "derived_from", "role \"%s\" is %s%s%s, and a "
				    "%s is not derived from %s: name what it derives from, or leave "
				    "derived_from out and let its kind say", d->valuestring,
				    src->doc && src->kind ? "a " : "a file that is no cohort document",
				    src->doc && src->kind ? src->kind : "", src->doc && src->kind ? " document" : "",
				    it->kind, src->doc && src->kind ? "one" : "such a file");
		}
	}
	return 0;
}

static void
check_missing(struct ctx *c)
{
	const cJSON *req = json_get(c->spec, "require"), *r;

	cJSON_ArrayForEach(r, req)
		if (item_by_role(c, r->valuestring) == NULL)
			finding(c, "missing", NULL, NULL, 0,
			    "add an item with this role to the bundle spec (or drop it from \"require\" if "
			    "the publication does not need it)",
			    "the publication requires role \"%s\" and no item has it", r->valuestring);
	for (size_t i = 0; i < c->n; i++) {
		const struct item *it = &c->it[i];
		const cJSON *d;
		if (!it->exists)
			finding(c, "missing", it, it->path, 0,
			    "produce the file, or correct its path in the bundle spec",
			    "%s does not exist", it->path);
		cJSON_ArrayForEach(d, it->derived)
			if (item_by_role(c, d->valuestring) == NULL)
				finding(c, "missing", it, it->path, 0,
				    "add the input it was derived from to the bundle spec",
				    "derived from role \"%s\", which no item has", d->valuestring);
	}
}

/* Derived documents must record the identities of the items now in the
 * bundle; every identity a document records must be in the bundle. */
static void
check_inputs(struct ctx *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct item *it = &c->it[i];
		const cJSON *d, *x;
		cJSON *ins;
		int stale = 0;

		int freeze = it->kind && strcmp(it->kind, "cohort.freeze/1") == 0;

		if (it->doc == NULL)
			continue;
		/* a freeze embeds its spec and names it by "spec_id"; its ledgers are
		 * checked by freezing them again */
		if (freeze) {
			ins = cJSON_CreateArray();
			collect_ids(json_get(it->doc, "spec_id"), ins);
		} else {
			ins = recorded_inputs(it->doc);
		}
		if (ins == NULL)
			continue;
		cJSON_ArrayForEach(d, it->derived) {
			const struct item *src = item_by_role(c, d->valuestring);
			if (src == NULL || src->file == NULL || (freeze && src->doc == NULL))
				continue;
			if (in_list(ins, src->file->id) || (src->doc_id[0] && in_list(ins, src->doc_id)))
				continue;
			stale = 1;
			if (cJSON_GetArraySize(ins) == 0)
				finding(c, "stale", it, it->path, 0,
				    "derive it again from the bundled input with the tool, and bundle again",
				    "derived from role \"%s\" but records no input identity", d->valuestring);
			else
				finding(c, "stale", it, it->path, 0,
				    "derive it again from the bundled input with the tool, and bundle again",
				    "records input %s, but the \"%s\" item now in the bundle is %s",
				    cJSON_GetArrayItem(ins, 0)->valuestring, d->valuestring,
				    src->doc_id[0] ? src->doc_id : src->file->id);
		}
		if (!stale && !freeze)
			cJSON_ArrayForEach(x, ins)
				if (item_by_id(c, x->valuestring) == NULL)
					finding(c, "missing", it, it->path, 0,
					    "add the input document to the bundle spec (with derived_from)",
					    "names input %s, which is not in the bundle", x->valuestring);
		cJSON_Delete(ins);
	}
}

/* Each claim's gates are in the bundle and pass (cohort-bundle(1)). */
static void
check_claims(struct ctx *c)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, json_get(c->spec, "claims")) {
		size_t k = 0;
		while (strcmp(claims[k].name, v->valuestring) != 0)
			k++;
		for (const char *g = claims[k].gates; *g; g++) {
			const struct item *found = NULL;
			char gg = 0, sum[512];
			struct err ge = ERR_INIT;
			int pass = 0;
			for (size_t i = 0; i < c->n; i++)
				if (c->it[i].doc != NULL && c->it[i].kind != NULL &&
				    strcmp(c->it[i].kind, "cohort.gate/1") == 0 &&
				    gate_passes(c->it[i].doc, &gg, &ge) >= 0 && gg == *g &&
				    (found == NULL || !pass)) {
					found = &c->it[i];
					pass = gate_passes(found->doc, &gg, &ge) == 1;
				}
			if (found == NULL)
				finding(c, "missing", NULL, NULL, 0,
				    "judge the gate on its evidence (cohort gate) and add the gate document "
				    "as an item, or drop the claim",
				    "the claim \"%s\" needs gate %c, and no item is a gate %c document",
				    v->valuestring, *g, *g);
			else if (!pass) {
				gate_summary(found->doc, sum, sizeof sum);
				finding(c, "invalid", found, found->path, 0,
				    "make the claim only once the gate passes, or drop the claim",
				    "the claim \"%s\" needs gate %c to pass: %s", v->valuestring, *g, sum);
			}
		}
	}
}

struct live_ctx {
	struct ctx *c;
	const struct item *it;
};

static void
on_live(void *p, const char *what, const char *action)
{
	struct live_ctx *l = p;

	finding(l->c, "live", l->it, l->it->path, 0, action, "%s", what);
}

/* The live rule (freeze/freeze.h) on every document. */
static void
check_live(struct ctx *c)
{
	for (size_t i = 0; i < c->n; i++) {
		struct live_ctx l = { c, &c->it[i] };
		if (c->it[i].doc != NULL)
			freeze_live(c->it[i].doc, on_live, &l);
	}
}

/* Compare two freezes' "games" lists ({game_id, id}, sorted by game_id as
 * the freeze writes them) in one merge walk. */
static void
game_diff(const cJSON *old, const cJSON *now, long *changed, long *added, long *removed,
    const char **first)
{
	const cJSON *g = now ? now->child : NULL, *h = old ? old->child : NULL;

	while (g || h) {
		const cJSON *gid = g ? json_get(g, "game_id") : NULL, *hid = h ? json_get(h, "game_id") : NULL;
		int cmp;
		if ((g && !cJSON_IsString(gid)) || (h && !cJSON_IsString(hid)))
			return;
		cmp = !g ? 1 : !h ? -1 : strcmp(gid->valuestring, hid->valuestring);
		if (cmp < 0) {
			(*added)++;
			if (*first == NULL)
				*first = gid->valuestring;
			g = g->next;
		} else if (cmp > 0) {
			(*removed)++;
			if (*first == NULL)
				*first = hid->valuestring;
			h = h->next;
		} else {
			const cJSON *a = json_get(g, "id"), *b = json_get(h, "id");
			if (cJSON_IsString(a) && cJSON_IsString(b) && strcmp(a->valuestring, b->valuestring)) {
				(*changed)++;
				if (*first == NULL)
					*first = gid->valuestring;
			}
			g = g->next;
			h = h->next;
		}
	}
}

/* A freeze cut after the bundle's as_of would publish, as of that date,
 * games played after it. */
static void
check_cuts(struct ctx *c)
{
	struct ts bundle, cut;

	if (ts_parse(c->as_of, &bundle) < 0)
		return;
	for (size_t i = 0; i < c->n; i++) {
		const struct item *it = &c->it[i];
		const cJSON *as_of = it->doc != NULL ? json_get(it->doc, "as_of") : NULL;
		if (it->kind == NULL || strcmp(it->kind, "cohort.freeze/1") != 0 ||
		    !cJSON_IsString(as_of) || ts_parse(as_of->valuestring, &cut) < 0)
			continue;
		if (ts_cmp(cut, bundle) > 0)
			finding(c, "invalid", it, it->path, 0,
			    "set the bundle spec's as_of to the freeze's cut or later, or bundle a freeze "
			    "cut by then", "the freeze's cut (as_of %.40s) is after the bundle's as_of "
			    "(%.40s): the bundle would date games played after it", as_of->valuestring,
			    c->as_of);
	}
}

/* What an append to a freeze's ledgers may change without moving its
 * cut: a copy of doc without "repo", without its exclusions of games after
 * the cut and of live games (counted in *after and *live, the first live
 * one's game_id copied to first_live), totals.excluded counted down to
 * match. */
static cJSON *
freeze_core(const cJSON *doc, long *after, long *live, char first_live[64])
{
	cJSON *core = cJSON_Duplicate(doc, 1), *ex, *x, *next, *tot;
	long gone = 0;

	*after = *live = 0;
	if (core == NULL)
		return NULL;
	cJSON_DeleteItemFromObjectCaseSensitive(core, "repo");
	ex = cJSON_GetObjectItemCaseSensitive(core, "excluded");
	for (x = ex != NULL ? ex->child : NULL; x != NULL; x = next) {
		const cJSON *r = json_get(x, "reason");
		next = x->next;
		if (!cJSON_IsString(r))
			continue;
		if (strcmp(r->valuestring, "after_cut") == 0)
			(*after)++;
		else if (strcmp(r->valuestring, "live") == 0) {
			if ((*live)++ == 0 && first_live != NULL && cJSON_IsString(json_get(x, "game_id")))
				snprintf(first_live, 64, "%s", json_get(x, "game_id")->valuestring);
		} else
			continue;
		cJSON_Delete(cJSON_DetachItemViaPointer(ex, x));
		gone++;
	}
	tot = cJSON_GetObjectItemCaseSensitive(core, "totals");
	x = tot != NULL ? cJSON_GetObjectItemCaseSensitive(tot, "excluded") : NULL;
	if (cJSON_IsNumber(x))
		cJSON_SetNumberValue(x, x->valuedouble - (double)gone);
	return core;
}

/* What freezing a freeze's ledgers again gives, against the freeze. */
struct refreeze {
	char again[HASH_ID_LEN + 1];  /* the new freeze's identity */
	long changed, added, removed; /* included games */
	char first[128];              /* the first game that differs */
	struct err why;               /* why the ledgers no longer freeze */
	long after, live;             /* games an append added after the cut, live ones */
	char first_live[64];          /* the first live one */
};

/* 0 when old and again differ only by what an append adds (o counts it),
 * 1 when they differ otherwise, -1 with e set. */
static int
same_core(const cJSON *old, const cJSON *again, struct refreeze *o, struct err *e)
{
	long oa, ol;
	cJSON *a = freeze_core(old, &oa, &ol, NULL);
	cJSON *b = freeze_core(again, &o->after, &o->live, o->first_live);
	struct buf x = BUF_INIT, y = BUF_INIT;
	int rc = -1;

	if (a == NULL || b == NULL)
		err_set(e, ERR_NOMEM, "out of memory");
	else if (canon_write(a, &x, e) == 0 && canon_write(b, &y, e) == 0)
		rc = !(x.len == y.len && memcmp(x.p, y.p, x.len) == 0);
	o->after -= oa;
	o->live -= ol;
	cJSON_Delete(a);
	cJSON_Delete(b);
	buf_release(&x);
	buf_release(&y);
	return rc;
}

/* Freeze the ledgers again with the freeze doc's own spec and compare the
 * bytes with doc's, its "repo" aside (a freeze made again has none), and
 * what an append-only ledger may add aside too (freeze_core): games after
 * the cut and live ones, counted in o->after and o->live.  The gate and
 * the archive verifier both ask here.  0 the same, 1 they differ (o says
 * how), 2 the ledgers no longer freeze (o->why), -1 with e set. */
/* 1 when the file's bytes are p[0..n) (a freeze written as freeze writes
 * it), else 0. */
static int
file_is(const char *file, const char *p, size_t n)
{
	struct stat st;
	struct map m = MAP_INIT;
	struct err me = ERR_INIT;
	int fd = file != NULL ? open(file, O_RDONLY | O_NOFOLLOW) : -1, same = 0;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == n &&
	    n > 0 && map_fd(fd, file, n, &m, &me) == 0 && m.p != NULL)
		same = memcmp(m.p, p, n) == 0;
	if (fd >= 0)
		close(fd);
	map_release(&m);
	/* a file cut while compared is not the same */
	return same && map_check(&me) == 0;
}

static int
refreeze(const cJSON *doc, int partial, const char *file, const char **ledgers, size_t nl,
    int jobs, struct refreeze *o, struct err *e)
{
	struct freeze_opts fo = { 0 };
	struct buf ab = BUF_INIT, ob = BUF_INIT;
	cJSON *old = NULL, *again = NULL, *full = NULL;
	const char *first = NULL;
	uint8_t dg[HASH_LEN];
	int rc = -1;

	memset(o, 0, sizeof *o);
	fo.spec = json_get(doc, "spec");
	fo.ledgers = ledgers;
	fo.nledgers = nl;
	fo.jobs = jobs;
	if (freeze_build(&fo, &ab, &o->why) < 0) {
		buf_release(&ab);
		if (o->why.code == ERR_NOMEM)
			return err_set(e, ERR_NOMEM, "%s", o->why.msg);
		return 2;
	}
	/* doc's file (parsed into doc) holding the bytes made again, with no
	 * "repo" to set aside: its canonical bytes are those, no copy of the
	 * tree written again needed */
	if (json_get(doc, "repo") == NULL && file_is(file, ab.p, ab.len)) {
		buf_release(&ab);
		return 0;
	}
	/* doc without its games (partial): the whole tree, from the file it
	 * was read from, to compare */
	if ((doc = doc_tree(file, doc, partial, &full, e)) == NULL)
		goto done;
	if ((old = cJSON_Duplicate(doc, 1)) == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(old, "repo");
	if (canon_write(old, &ob, e) < 0)
		goto done;
	rc = 0;
	if (ob.len == ab.len && memcmp(ob.p, ab.p, ab.len) == 0)
		goto done;
	rc = -1;
	if ((again = json_parse(ab.p, ab.len, "freeze", 1, e)) == NULL)
		goto done;
	if ((rc = same_core(old, again, o, e)) != 1)
		goto done;
	hash_bytes(ab.p, ab.len, dg);
	hash_id_format(dg, o->again);
	game_diff(json_get(old, "games"), json_get(again, "games"), &o->changed, &o->added,
	    &o->removed, &first);
	snprintf(o->first, sizeof o->first, "%s", first ? first : "");
	rc = 1;
done:
	cJSON_Delete(full);
	cJSON_Delete(old);
	cJSON_Delete(again);
	buf_release(&ob);
	buf_release(&ab);
	return rc;
}

/* What an append-only ledger added since the freeze: games after the cut
 * in a note (never a finding), live games inside it as live. */
static void
appended(struct ctx *c, const struct item *it, const struct refreeze *o)
{
	char msg[512];

	if (o->after > 0 && c->o->note != NULL) {
		snprintf(msg, sizeof msg, "%s: its ledgers hold %ld game%s after its cut (as_of), "
		    "left out as the freeze left them: for the next freeze", it->path, o->after,
		    o->after == 1 ? "" : "s");
		c->o->note(c->o->note_ctx, msg);
	}
	if (o->live > 0)
		finding(c, "live", it, it->path, 0,
		    "let the live games finish, freeze again and bundle the new freeze",
		    "%ld game%s inside the cut %s live in its ledgers now, not in the freeze "
		    "(first: %s)", o->live, o->live == 1 ? "" : "s", o->live == 1 ? "is" : "are",
		    o->first_live);
}

/* What the slow checks computed for one item, on a thread of the pool
 * (slow_run), each into a slot of its own; the checks below then report
 * from the slots in item order, as they would have computed them one
 * after another, so the findings are the same bytes on any number of
 * threads. */
struct slot {
	int fr_ran, fr;             /* its ledgers frozen again: ran, refreeze's result */
	size_t fr_nl;
	struct refreeze o;
	struct err fe;
	int rf_ran, rf;             /* computed again from its inputs: ran, derive's result */
	int rf_ids;                 /* a many-input kind whose inputs cannot be read (rfe) */
	struct err rfe;
	int st_ran, st;             /* against its store: ran, verify's result */
	cJSON *st_checks;
	struct err se;
};

/* 1 when a document of kind, derived from an input whose games are held
 * flat (partial) and whose identity is input_id (or ""), needs the
 * input's whole tree: a fit and a bound read a freeze's blocks alone,
 * given its identity; any other kind may read anything. */
static int
needs_tree(const char *kind, int partial, const char *input_id)
{
	return partial && !(input_id[0] && (strcmp(kind, "cohort.fit/1") == 0 ||
	                                       strcmp(kind, "cohort.bound/1") == 0));
}

/* Freeze the ledger items a freeze is derived from again. */
static void
slow_ledgers(struct ctx *c, const struct item *it, struct slot *s)
{
	const cJSON *d;
	const char **ledgers;
	size_t nl = 0;

	if (it->doc == NULL || it->kind == NULL || strcmp(it->kind, "cohort.freeze/1") != 0 ||
	    it->derived == NULL || json_get(it->doc, "spec") == NULL)
		return;
	s->fr_ran = 1;
	ledgers = calloc((size_t)cJSON_GetArraySize(it->derived) + 1, sizeof *ledgers);
	if (ledgers == NULL) {
		s->fr = err_set(&s->fe, ERR_NOMEM, "out of memory");
		return;
	}
	cJSON_ArrayForEach(d, it->derived) {
		const struct item *src = item_by_role(c, d->valuestring);
		if (src && src->file && src->doc == NULL)
			ledgers[nl++] = src->file->abs;
	}
	s->fr_nl = nl;
	s->fr = nl > 0 ? refreeze(it->doc, it->games != NULL, it->file->abs, ledgers, nl, c->o->jobs,
	    &s->o, &s->fe) : 0;
	free(ledgers);
}

/* Re-derive each freeze from the ledger items it is derived from. */
static int
check_freeze_ledgers(struct ctx *c, struct slot *slots, int *ran)
{
	*ran = 1;
	for (size_t i = 0; i < c->n; i++) {
		struct item *it = &c->it[i];
		const struct refreeze *o = &slots[i].o;
		size_t nl = slots[i].fr_nl;
		int r = slots[i].fr;

		if (!slots[i].fr_ran)
			continue;
		if (r < 0) {
			*c->e = slots[i].fe;
			return -1;
		}
		if (r == 2)
			finding(c, "stale", it, it->path, 0, "fix the ledgers, freeze again and bundle again",
			    "its ledgers no longer freeze: %s", o->why.msg);
		else if (r == 1 && o->added > 0 && o->changed == 0 && o->removed == 0)
			finding(c, "stale", it, it->path, 0,
			    "freeze the ledgers again (same spec and cut) and bundle the new freeze",
			    "a game inside the cut was added to its ledgers (%ld in all; first: %s): "
			    "freeze again (freezing them gives %s)", o->added, o->first, o->again);
		else if (r == 1)
			finding(c, "stale", it, it->path, 0,
			    "freeze the ledgers again (same spec and cut) and bundle the new freeze",
			    "no longer matches its ledgers: freezing them again gives %s; included games: "
			    "%ld changed, %ld added, %ld gone%s%s", o->again, o->changed, o->added, o->removed,
			    o->first[0] ? "; first: " : "", o->first);
		else if (r == 0 && nl > 0)
			appended(c, it, o);
	}
	return 0;
}

/* A fit, bound or later document computed again from the bundled
 * documents it names (derive/derive.h); one whose input is not in the
 * bundle is reported missing or stale already. */
static void
slow_refit(struct ctx *c, const struct item *it, struct slot *s)
{
	const char *ids[256];
	const cJSON *in[256], *inid;
	cJSON *own[256] = { NULL };
	const struct item *src;
	size_t n, m = 0;
	cJSON *scratch;
	char *sdir = NULL;

	if (it->doc == NULL || !derive_known(it->kind))
		return;
	if (derive_many(it->kind)) {
		if (derive_input_ids(it->kind, it->doc, ids, 256, &n, &s->rfe) < 0) {
			s->rf_ids = 1;
			return;
		}
		for (size_t j = 0; j < n; j++) {
			if ((src = item_by_id(c, ids[j])) == NULL || src->doc == NULL)
				break;
			if ((in[m] = doc_tree(src->file->abs, src->doc, src->games != NULL, &own[m],
			         &s->rfe)) == NULL) {
				s->rf = -1;
				s->rf_ran = 1;
				break;
			}
			m++;
		}
		if (m == n) {
			scratch = cJSON_CreateArray();
			s->rf = derive_check_set(it->kind, it->doc, in, m, it->path, NULL, scratch, &s->rfe);
			s->rf_ran = 1;
			cJSON_Delete(scratch);
		}
		for (size_t j = 0; j < m; j++)
			cJSON_Delete(own[j]);
		return;
	}
	inid = json_get(it->doc, "input");
	src = cJSON_IsString(inid) ? item_by_id(c, inid->valuestring) : NULL;
	if (src == NULL || src->doc == NULL)
		return;
	s->rf_ran = 1;
	if ((in[0] = doc_tree(src->file->abs, src->doc,
	         needs_tree(it->kind, src->games != NULL, src->doc_id), &own[0], &s->rfe)) == NULL) {
		s->rf = -1;
		return;
	}
	scratch = cJSON_CreateArray();
	if (src->store != NULL && asprintf(&sdir, "%s/%s", c->dir, src->store) < 0)
		sdir = NULL;
	struct derive_env env = { sdir, NULL, src->doc_id[0] ? src->doc_id : NULL };
	s->rf = derive_check(it->kind, it->doc, in[0], it->path, &env, scratch, &s->rfe);
	free(sdir);
	cJSON_Delete(scratch);
	cJSON_Delete(own[0]);
}

/* A fit or bound must be what computing it again from the input it names
 * gives, byte for byte; so must a document computed from several (a
 * gate), from the bundled documents it names.  -1 with the error when
 * memory ran out computing one again. */
static int
check_refits(struct ctx *c, const struct slot *slots)
{
	for (size_t i = 0; i < c->n; i++)
		if (slots[i].rf_ran && slots[i].rf < 0 && slots[i].rfe.code == ERR_NOMEM)
			return err_set(c->e, ERR_NOMEM, "%s: %s", c->it[i].path, slots[i].rfe.msg);
	for (size_t i = 0; i < c->n; i++) {
		const struct item *it = &c->it[i], *src;
		const struct slot *s = &slots[i];

		if (s->rf_ids)
			finding(c, "invalid", it, it->path, 0, "compute it again with the tool, and bundle again",
			    "%s", s->rfe.msg);
		if (!s->rf_ran)
			continue;
		if (derive_many(it->kind)) {
			if (s->rf != 0)
				finding(c, "stale", it, it->path, 0,
				    "compute it again from the bundled inputs with the tool, and bundle again",
				    "computing it again from the documents it names does not reproduce it "
				    "byte for byte%s%s", s->rf < 0 ? ": " : "", s->rf < 0 ? s->rfe.msg : "");
			continue;
		}
		src = item_by_id(c, json_get(it->doc, "input")->valuestring);
		if (s->rf < 0)
			finding(c, "stale", it, it->path, 0,
			    "compute it again from the bundled input with the tool, and bundle again",
			    "cannot be computed again from %s: %s", src->path, s->rfe.msg);
		else if (s->rf > 0)
			finding(c, "stale", it, it->path, 0,
			    "compute it again from the bundled input with the tool, and bundle again",
			    "computing it again from %s does not reproduce it byte for byte", src->path);
	}
	return 0;
}

/* A freeze against its store: the quick proof on the file's bytes
 * (verify/fast.c), or where it shows nothing the thorough way, which
 * names what is wrong.  For a freeze that holds both append the same
 * checks.  verify_freeze's result. */
static int
freeze_fast(const char *file, const char *dir, int jobs, cJSON *checks, char id[HASH_ID_LEN + 1],
    struct err *e)
{
	struct stat st;
	struct map m = MAP_INIT;
	struct err me = ERR_INIT;
	int fd = open(file, O_RDONLY | O_NOFOLLOW), rc = 1;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 16 &&
	    map_fd(fd, file, (size_t)st.st_size, &m, &me) == 0 && m.p != NULL)
		rc = verify_freeze_fast(m.p, m.n, dir, jobs, checks, id, e);
	if (fd >= 0)
		close(fd);
	map_release(&m);
	if (rc >= 0 && map_check(e) < 0)
		return -1;
	return rc;
}

static int
freeze_vs_store(const char *file, const cJSON *doc, int partial, const char *dir, int jobs,
    cJSON *checks, struct err *e)
{
	char id[HASH_ID_LEN + 1];
	int rc = freeze_fast(file, dir, jobs, checks, id, e);
	cJSON *own = NULL;

	if (rc == 1)
		rc = (doc = doc_tree(file, doc, partial, &own, e)) == NULL ? -1 :
		    verify_freeze(doc, dir, jobs, checks, e);
	cJSON_Delete(own);
	return rc;
}

/* A freeze's bundled store checked against it (verify's own check). */
static void
slow_store(struct ctx *c, const struct item *it, struct slot *s)
{
	char *dir;

	if (it->doc == NULL || it->kind == NULL || strcmp(it->kind, "cohort.freeze/1") != 0 ||
	    it->store == NULL || !it->store_exists)
		return;
	s->st_ran = 1;
	if (asprintf(&dir, "%s/%s", c->dir, it->store) < 0) {
		s->st = -2;
		return;
	}
	if ((s->st_checks = cJSON_CreateArray()) == NULL)
		s->st = -2;
	else
		s->st = freeze_vs_store(it->file->abs, it->doc, it->games != NULL, dir, c->o->jobs,
		    s->st_checks, &s->se);
	free(dir);
}

/* A freeze's bundled store must hold every record it names, and the freeze
 * must be what its records give (verify's own check), so that the archive
 * verifies on a reviewer's machine. */
static int
check_stores(struct ctx *c, const struct slot *slots)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct item *it = &c->it[i];
		const struct slot *s = &slots[i];
		const cJSON *x;
		int bad = 0;
		const char *first = NULL;

		if (!s->st_ran)
			continue;
		if (s->st == -2)
			return err_set(c->e, ERR_NOMEM, "out of memory");
		cJSON_ArrayForEach(x, s->st_checks)
			if (cJSON_IsFalse(json_get(x, "ok"))) {
				const cJSON *d = json_get(x, "detail"), *ck = json_get(x, "check");
				if (bad++ == 0)
					first = cJSON_IsString(d) ? d->valuestring :
					    cJSON_IsString(ck) ? ck->valuestring : "?";
			}
		if (s->st < 0)
			finding(c, "invalid", it, it->store, 0,
			    "freeze again with --store into this folder, and bundle again",
			    "the store cannot be read: %s", s->se.msg);
		else if (s->st > 0)
			finding(c, "stale", it, it->store, 0,
			    "freeze again with --store into this folder, and bundle again",
			    "the store does not match the freeze: %d check%s fail (first: %s)", bad,
			    bad == 1 ? "" : "s", first ? first : "?");
	}
	return 0;
}

/* The slow checks' computations at once: job 3i + k is item i's ledgers
 * (k 0), store (k 1) or computation again (k 2). */
struct slow {
	struct ctx *c;
	struct slot *slots;
};

static void
slow_job(void *arg, size_t j, int worker)
{
	struct slow *w = arg;
	const struct item *it = &w->c->it[j / 3];
	struct slot *s = &w->slots[j / 3];

	(void)worker;
	if (j % 3 == 0)
		slow_ledgers(w->c, it, s);
	else if (j % 3 == 1)
		slow_store(w->c, it, s);
	else
		slow_refit(w->c, it, s);
}

/* Run the slow checks' computations on jobs threads (this one among
 * them; 0: one per processor): NULL when out of memory. */
static struct slot *
slow_run(struct ctx *c)
{
	struct slot *slots = calloc(c->n + 1, sizeof *slots);
	struct slow w = { c, slots };
	int threads = (c->o->jobs > 0 ? c->o->jobs : pool_cpus()) - 1;
	struct pool *p;

	if (slots == NULL)
		return NULL;
	if ((size_t)threads > 3 * c->n)
		threads = (int)(3 * c->n);
	if ((p = pool_new(threads)) == NULL) {
		free(slots);
		return NULL;
	}
	pool_run(p, 3 * c->n, slow_job, &w);
	pool_free(p);
	return slots;
}

static void
slots_free(struct slot *slots, size_t n)
{
	for (size_t i = 0; slots != NULL && i < n; i++)
		cJSON_Delete(slots[i].st_checks);
	free(slots);
}

/* 1 when path is dir or inside it (both resolved, dir without a
 * trailing '/' unless it is "/"). */
static int
inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/' || n == 1);
}

/* An item's repository: the one holding the folder its "repo" names,
 * which must be inside the spec's folder or the spec's own work tree.
 * *sub gets the folder's path inside the work tree ("" or "a/b/").  0, or
 * 1 after a finding. */
static int
git_open(struct ctx *c, const struct item *it, const char *repo_rel, struct repo **repo,
    char **sub)
{
	char *joined = NULL, *folder = NULL, *spec_dir = realpath(c->dir, NULL);
	struct repo *own = NULL;
	struct err ge = ERR_INIT;
	const char *w = NULL;
	int rc = 1;

	*repo = NULL;
	*sub = NULL;
	if (asprintf(&joined, "%s/%s", c->dir, repo_rel) >= 0)
		folder = realpath(joined, NULL);
	if (folder == NULL || spec_dir == NULL || repo_discover(folder, repo, &ge) < 0 ||
	    (w = repo_workdir(*repo)) == NULL)
		finding(c, "missing", it, it->path, 0,
		    "put the repository beside the spec, or name a folder of the spec's own work "
		    "tree (correct \"git\".\"repo\")", "git repository %s cannot be opened", repo_rel);
	else if (!inside(folder, spec_dir) &&
	    !(repo_discover(spec_dir, &own, &ge) == 0 && repo_workdir(own) != NULL &&
	        strcmp(repo_workdir(own), w) == 0 && inside(spec_dir, w)))
		finding(c, "missing", it, it->path, 0,
		    "name a folder inside the spec's folder or its work tree (correct \"git\".\"repo\")",
		    "git repository folder %s is outside the spec's folder and its work tree", repo_rel);
	else {
		/* w ends with '/', folder does not: "" at the top, else "a/b/" */
		size_t n = strlen(w);
		const char *rest = strlen(folder) < n ? "" : folder + n;
		if (asprintf(sub, "%s%s", rest, *rest ? "/" : "") >= 0)
			rc = 0;
	}
	if (rc != 0) {
		repo_free(*repo);
		*repo = NULL;
	}
	repo_free(own);
	free(joined);
	free(folder);
	free(spec_dir);
	return rc;
}

/* The file differs from its blob: stale, with git's count of the lines. */
static void
git_differs(struct ctx *c, const struct item *it, const struct buf *blob, const char *gpath,
    const char *commit)
{
	struct buf now = BUF_INIT;
	struct err ge = ERR_INIT;
	size_t add = 0, del = 0;
	char stat[96] = "";

	if (io_read_all(it->file->abs, &now, IO_MAX_DOCUMENT, &ge) == 0 &&
	    repo_diff_stat(blob->p ? blob->p : "", blob->len, now.p ? now.p : "", now.len, &add, &del,
	        &ge) == 0)
		snprintf(stat, sizeof stat, ": %zu line%s added, %zu removed", add, add == 1 ? "" : "s",
		    del);
	finding(c, "stale", it, it->path, 0,
	    "commit the file as it is and name the new commit, or restore the committed bytes; then "
	    "bundle again", "differs from %s at commit %.12s%s", gpath, commit, stat);
	buf_release(&now);
}

/* Files with git provenance must equal the blob at the declared commit
 * (HEAD's when none is declared; the commit is recorded either way, and
 * so is the blob's git id: the archive's verifier has no repository, but
 * can hold the bag's bytes to that id, and a reviewer the id to the
 * repository).  0, or -1 with c->e set when out of memory. */
static int
check_git(struct ctx *c)
{
	struct buf blob = BUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < c->n && rc == 0; i++) {
		struct item *it = &c->it[i];
		const char *repo_rel, *commit = NULL, *gpath;
		struct repo *repo = NULL;
		struct err ge = ERR_INIT;
		char *sub = NULL, *full = NULL, head[REPO_HEX_LEN + 1];
		uint8_t d[HASH_LEN];
		int r;

		if (it->git == NULL || it->file == NULL)
			continue;
		json_get_string(it->git, "repo", 1, &repo_rel, NULL);
		json_get_string(it->git, "commit", 0, &commit, NULL);
		json_get_string(it->git, "path", 1, &gpath, NULL);
		buf_reset(&blob);
		if (git_open(c, it, repo_rel, &repo, &sub) != 0)
			continue;
		if (commit == NULL) {
			if (repo_head(repo, head, &ge) < 0) {
				finding(c, "stale", it, it->path, 0, "commit to the repository, or name "
				    "\"git\".\"commit\"", "%s has no commit at HEAD", repo_rel);
				goto next;
			}
			commit = head;
		}
		if ((it->git_out = cJSON_Duplicate(it->git, 1)) != NULL) {
			cJSON_DeleteItemFromObjectCaseSensitive(it->git_out, "commit");
			json_add_string(it->git_out, "commit", commit);
		}
		if (asprintf(&full, "%s%s", sub, gpath) < 0)
			goto next;
		if ((r = repo_blob(repo, commit, full, &blob, &ge)) == REPO_NO_COMMIT)
			finding(c, "stale", it, it->path, 0,
			    "name a commit that exists in the repository (push or fetch it), and bundle again",
			    "commit %s does not exist in %s", commit, repo_rel);
		else if (r == REPO_NO_FILE)
			finding(c, "stale", it, it->path, 0,
			    "commit the file, or correct \"git\".\"path\", and bundle again",
			    "%s is not a file in commit %.12s", gpath, commit);
		else if (r == REPO_FOUND) {
			char gid[HASH_GIT_HEX + 1];
			hash_bytes(blob.p ? blob.p : "", blob.len, d);
			if (hash_cmp(d, it->file->sha) != 0)
				git_differs(c, it, &blob, gpath, commit);
			else if (it->git_out == NULL || hash_git_blob(blob.p, blob.len, gid) < 0)
				rc = err_set(c->e, ERR_NOMEM, "out of memory");
			else {
				cJSON_DeleteItemFromObjectCaseSensitive(it->git_out, "blob");
				json_add_string(it->git_out, "blob", gid);
			}
		}
next:
		repo_free(repo);
		free(sub);
		free(full);
	}
	buf_release(&blob);
	return rc;
}

/* ------------------------------------------------------- the documents */

static cJSON *
make_bundle_doc(struct ctx *c)
{
	cJSON *doc = cJSON_CreateObject(), *items = cJSON_CreateArray();

	json_add_string(doc, "kind", "cohort.bundle/1");
	json_add_string(doc, "name", c->name);
	json_add_string(doc, "as_of", c->as_of);
	json_add_string(doc, "spec", c->spec_id);
	json_add_string(doc, "report", REPORT_PAGE);
	if (json_get(c->spec, "require"))
		cJSON_AddItemToObject(doc, "require", cJSON_Duplicate(json_get(c->spec, "require"), 1));
	if (json_get(c->spec, "claims"))
		cJSON_AddItemToObject(doc, "claims", cJSON_Duplicate(json_get(c->spec, "claims"), 1));
	for (size_t i = 0; i < c->n; i++) {
		const struct item *it = &c->it[i];
		cJSON *o = cJSON_CreateObject();
		json_add_string(o, "role", it->role);
		json_add_string(o, "path", it->path);
		json_add_string(o, "id", it->file->id);
		json_add_number(o, "size", (double)it->file->size);
		if (it->kind)
			json_add_string(o, "kind", it->kind);
		if (it->doc_id[0] && strcmp(it->doc_id, it->file->id) != 0)
			json_add_string(o, "document", it->doc_id);
		if (it->derived)
			cJSON_AddItemToObject(o, "derived_from", cJSON_Duplicate(it->derived, 1));
		if (it->doc && (it->kind == NULL || strcmp(it->kind, "cohort.freeze/1") != 0)) {
			cJSON *ins = recorded_inputs(it->doc);
			if (cJSON_GetArraySize(ins) > 0)
				cJSON_AddItemToObject(o, "inputs", ins);
			else
				cJSON_Delete(ins);
		}
		if (it->git)
			cJSON_AddItemToObject(o, "git", cJSON_Duplicate(it->git_out ? it->git_out : it->git, 1));
		if (it->store) {
			cJSON *s = cJSON_CreateObject();
			json_add_string(s, "path", it->store);
			json_add_number(s, "files", (double)it->store_files);
			json_add_number(s, "bytes", (double)it->store_bytes);
			cJSON_AddItemToObject(o, "store", s);
		}
		cJSON_AddItemToArray(items, o);
	}
	cJSON_AddItemToObject(doc, "items", items);
	cJSON_AddItemToObject(doc, "checks", cJSON_Duplicate(c->checks, 1));
	return doc;
}

static cJSON *
make_refusal(struct ctx *c)
{
	static const char *kinds[] = { "missing", "stale", "live", "secret", "invalid" };
	cJSON *doc = cJSON_CreateObject(), *counts = cJSON_CreateObject();

	json_add_string(doc, "kind", "cohort.refusal/1");
	json_add_string(doc, "name", c->name);
	json_add_string(doc, "as_of", c->as_of);
	json_add_string(doc, "spec", c->spec_id);
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		long n = 0;
		const cJSON *f;
		cJSON_ArrayForEach(f, c->findings)
			if (strcmp(json_get(f, "check")->valuestring, kinds[k]) == 0) {
				const cJSON *more = cJSON_GetObjectItemCaseSensitive(f, "more");
				n += 1 + (cJSON_IsNumber(more) ? (long)more->valuedouble : 0);
			}
		json_add_number(counts, kinds[k], (double)n);
	}
	cJSON_AddItemToObject(doc, "counts", counts);
	/* findings grouped by check, in the order above, each group as found */
	cJSON *sorted = cJSON_CreateArray();
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		const cJSON *f;
		cJSON_ArrayForEach(f, c->findings)
			if (strcmp(json_get(f, "check")->valuestring, kinds[k]) == 0)
				cJSON_AddItemToArray(sorted, cJSON_Duplicate(f, 1));
	}
	cJSON_AddItemToObject(doc, "findings", sorted);
	return doc;
}

static void
ctx_release(struct ctx *c)
{
	for (size_t i = 0; i < c->n; i++) {
		cJSON_Delete(c->it[i].doc);
		freeze_games_free(c->it[i].games);
		cJSON_Delete(c->it[i].git_out);
		cJSON_Delete(c->it[i].implied);
	}
	for (size_t k = 0; k < c->nf; k++) {
		free(c->f[k].rel);
		free(c->f[k].abs);
	}
	free(c->f);
	free(c->it);
	free(c->dir);
	cJSON_Delete(c->spec);
	cJSON_Delete(c->findings);
	cJSON_Delete(c->checks);
	secret_rules_free(c->rules);
}

static int
write_archive(struct ctx *c, const struct bundle_opts *o, const cJSON *doc,
    char id[HASH_ID_LEN + 1])
{
	struct buf bytes = BUF_INIT, info = BUF_INIT, page = BUF_INIT, crate = BUF_INIT,
	           cff = BUF_INIT;
	struct bag_file *bf = calloc(c->nf + 4, sizeof *bf);
	struct crate_tool tool = { o->tool_version ? o->tool_version : "", o->tool_commit };
	cJSON *cr = crate_make(c->spec, doc, &tool);
	size_t n = c->nf + 2;
	int has_cff;
	struct bag_write_opts wo;
	char *agent = NULL;
	uint8_t d[HASH_LEN];
	int rc = -1;

	if (bf == NULL || cr == NULL || (has_cff = crate_citation(c->spec, doc, c->date, &cff)) < 0) {
		err_set(c->e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (canon_write(doc, &bytes, c->e) < 0 || canon_write(cr, &crate, c->e) < 0)
		goto done;
	bf[0].name = "bundle.json";
	bf[0].mem = bytes.p;
	bf[0].size = bytes.len;
	hash_bytes(bytes.p, bytes.len, bf[0].sha256);
	/* the reviewer's page, from bundle.json and the files as hashed */
	if (report_bundle(doc, c->dir, NULL, &page, c->e) < 0)
		goto done;
	bf[1].name = REPORT_PAGE;
	bf[1].mem = page.p;
	bf[1].size = page.len;
	hash_bytes(page.p, page.len, bf[1].sha256);
	for (size_t k = 0; k < c->nf; k++) {
		bf[k + 2].name = c->f[k].rel;
		bf[k + 2].src = c->f[k].abs;
		bf[k + 2].size = c->f[k].size;
		memcpy(bf[k + 2].sha256, c->f[k].sha, HASH_LEN);
	}
	/* the research-object metadata, and how to cite it */
	bf[n].name = "ro-crate-metadata.json";
	bf[n].mem = crate.p;
	bf[n].size = crate.len;
	hash_bytes(crate.p, crate.len, bf[n++].sha256);
	if (has_cff) {
		bf[n].name = "CITATION.cff";
		bf[n].mem = cff.p;
		bf[n].size = cff.len;
		hash_bytes(cff.p, cff.len, bf[n++].sha256);
	}
	{
		char bid[HASH_ID_LEN + 1];
		hash_id_format(bf[0].sha256, bid);
		buf_printf(&info, "External-Identifier: %s\nBundle-Document: data/bundle.json %s\n",
		    c->name, bid);
	}
	wo.top = c->name;
	wo.mtime = c->mtime;
	wo.compress = o->compress;
	wo.info = info.p;
	wo.date = c->date;
	/* which cohort made the bag: the version and the source commit */
	if (asprintf(&agent, "cohort %s (%s)", tool.version,
	        o->tool_commit && o->tool_commit[0] ? o->tool_commit : "unknown") < 0) {
		agent = NULL;
		err_set(c->e, ERR_NOMEM, "out of memory");
		goto done;
	}
	wo.agent = agent;
	if (bag_write(&wo, bf, n, o->out, d, c->e) < 0) {
		/* a failed write names the archive, whatever failed under it */
		const char *name = o->out && strcmp(o->out, "-") != 0 ? o->out : "<stdout>";
		if (c->e->code == ERR_IO && strncmp(c->e->msg, name, strlen(name)) != 0)
			err_prefix(c->e, "%s", name);
		goto done;
	}
	hash_id_format(d, id);
	rc = 0;
done:
	free(agent);
	free(bf);
	cJSON_Delete(cr);
	buf_release(&crate);
	buf_release(&cff);
	buf_release(&bytes);
	buf_release(&info);
	buf_release(&page);
	return rc;
}

/* The archive (or the report, o->out with o->check) is none of the
 * bundle's files, nor its spec (io_output_check). */
static int
output_check(struct ctx *c, const struct bundle_opts *o)
{
	const char **in = malloc((c->nf + 1) * sizeof *in);
	int rc;

	if (in == NULL)
		return err_set(c->e, ERR_NOMEM, "out of memory");
	in[0] = o->spec;
	for (size_t k = 0; k < c->nf; k++)
		in[k + 1] = c->f[k].abs;
	rc = io_output_check(o->out, in, c->nf + 1, c->e);
	free(in);
	return rc;
}

int
bundle_run(const struct bundle_opts *o, cJSON **doc, char id[HASH_ID_LEN + 1], struct err *e)
{
	struct ctx c;
	struct slot *slots = NULL;
	int rc = -1, ran;

	memset(&c, 0, sizeof c);
	*doc = NULL;
	id[0] = '\0';
	c.spec_path = o->spec;
	c.o = o;
	c.e = e;
	c.findings = cJSON_CreateArray();
	c.checks = cJSON_CreateArray();
	if (c.findings == NULL || c.checks == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if ((c.rules = secret_rules_new(o->rules, e)) == NULL)
		goto done;
	if (read_spec(&c) < 0 || canon_id(c.spec, c.spec_id, e) < 0 || read_files(&c) < 0 ||
	    imply_graph(&c) < 0)
		goto done;
	/* inputs are never modified: the archive (with --check, the report)
	 * may not replace one of them */
	if (output_check(&c, o) < 0)
		goto done;
	check_missing(&c);
	check_inputs(&c);
	check_live(&c);
	check_cuts(&c);
	stage(&c, "freezing the ledgers again, checking the stores, computing again");
	if ((slots = slow_run(&c)) == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (check_freeze_ledgers(&c, slots, &ran) < 0)
		goto done;
	stage(&c, "checking git");
	if (check_git(&c) < 0)
		goto done;
	if (check_refits(&c, slots) < 0)
		goto done;
	check_claims(&c);
	if (check_stores(&c, slots) < 0)
		goto done;
	stage(&c, o->check ? "done" : "writing the archive");
	/* the checks that ran, sorted */
	{
		const char *names[] = { "freeze-ledgers", "git", "identity", "live", "missing", "refit",
			"secret", "stale", "store" };
		/* "claims" (first in that order) only where claims are made */
		if (json_get(c.spec, "claims") != NULL)
			cJSON_AddItemToArray(c.checks, cJSON_CreateString("claims"));
		for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
			if (k != 0 || ran)
				cJSON_AddItemToArray(c.checks, cJSON_CreateString(names[k]));
	}
	if (cJSON_GetArraySize(c.findings) > 0) {
		*doc = make_refusal(&c);
		rc = 1;
		goto done;
	}
	*doc = make_bundle_doc(&c);
	if (!o->check && write_archive(&c, o, *doc, id) < 0) {
		cJSON_Delete(*doc);
		*doc = NULL;
		goto done;
	}
	rc = 0;
done:
	slots_free(slots, c.n);
	ctx_release(&c);
	return rc;
}

int
bundle_table(const cJSON *doc, struct buf *out, struct err *e)
{
	const cJSON *x;
	const char *kind = json_get(doc, "kind") ? json_get(doc, "kind")->valuestring : "";

	if (strcmp(kind, "cohort.refusal/1") == 0) {
		buf_printf(out, "%-8s %-10s %-34s %s\n", "check", "role", "where", "finding");
		cJSON_ArrayForEach(x, json_get(doc, "findings")) {
			const cJSON *role = json_get(x, "role"), *path = json_get(x, "path"),
			            *line = json_get(x, "line"), *action = json_get(x, "action");
			struct buf w = BUF_INIT, d = BUF_INIT;
			/* names are shown escaped: a newline or ESC in one is the
			 * file's, not the table's */
			buf_add_shown(&w, path ? path->valuestring : "-");
			if (path && line)
				buf_printf(&w, ":%d", line->valueint);
			buf_add_shown(&d, json_get(x, "detail")->valuestring);
			buf_printf(out, "%-8s %-10s %-34s %s\n", json_get(x, "check")->valuestring,
			    role ? role->valuestring : "-", w.p ? w.p : "", d.p ? d.p : "");
			if (cJSON_IsString(action))
				buf_printf(out, "%-8s %-10s %-34s to do: %s\n", "", "", "",
				    action->valuestring);
			buf_release(&w);
			buf_release(&d);
		}
	} else {
		buf_printf(out, "%-10s %-34s %s\n", "role", "path", "id");
		cJSON_ArrayForEach(x, json_get(doc, "items")) {
			struct buf w = BUF_INIT;
			buf_add_shown(&w, json_get(x, "path")->valuestring);
			buf_printf(out, "%-10s %-34s %.23s\n", json_get(x, "role")->valuestring,
			    w.p ? w.p : "", json_get(x, "id")->valuestring);
			buf_release(&w);
		}
	}
	if (out->p == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

/* ---------------------------------------------------------- verifying */

/* ------------------------------------------------- verifying an archive
 *
 * The bag is untrusted: bundle.json says which file is which, but every
 * path it names must stay inside the bag, every document's kind is read
 * from the document's own bytes, what a derived document derives from is
 * the input it records, and every payload file must be one that
 * bundle.json lists (or in a store it lists). */

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
	 * million games is two gigabytes); vitem_tree gives the whole tree
	 * where a check needs it */
	struct freeze_games *games;
	const char *kind;          /* the document's own "kind" */
	int good;                  /* its paths stay in the bag and its identity holds */
	/* A freeze's quick proof against its store (freeze_vs_store's first
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

struct bag_live {
	cJSON *checks;
	const char *subject;
};

static void
on_bag_live(void *p, const char *what, const char *action)
{
	struct bag_live *l = p;

	(void)action;
	bag_check_add(l->checks, "live", l->subject, 0, "%s", what);
}

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

/* bundle.json's items, read and checked for paths; at most
 * BUNDLE_MAX_ITEMS.  The findings, or -1. */
static int
vitems_read(struct vctx *vc, const cJSON *items)
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

/* The whole tree of it's document: it->doc, or where its games are held
 * flat its file read again, into *own for the caller to delete.  NULL with
 * vc->e set. */
static const cJSON *
vitem_tree(struct vctx *vc, const struct vitem *it, cJSON **own)
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
	t = doc_tree(full, it->doc, 1, own, vc->e);
	free(full);
	return t;
}

/* An item's file read as the gate reads it (doc_bytes): a document's kind
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
		it->doc = doc_bytes(m.p ? m.p : "", m.n, it->path, &it->games, &invalid, &pe);
	/* a document's identity, of its bytes where its games are held flat;
	 * a store's freeze's comes once the proof beside this has run
	 * (vitem_fast_ids) */
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
	if (it->kind != NULL && !kind_checkable(it->kind))
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

/* The item whose bytes or canonical document have identity id, or NULL. */
static struct vitem *
vitem_by_id(struct vctx *vc, const char *id)
{
	for (size_t i = 0; i < vc->n; i++)
		if (vc->v[i].good && (strcmp(vc->v[i].id, id) == 0 ||
		                         (vc->v[i].doc_id[0] && strcmp(vc->v[i].doc_id, id) == 0)))
			return &vc->v[i];
	return NULL;
}

/* A freeze against its store, when it names one.  The findings, or -1. */
static int
vfreeze_store(struct vctx *vc, const struct vitem *it)
{
	char *sdir, *file;
	const cJSON *doc;
	cJSON *own;
	int r;

	if (it->store[0] == '\0')
		return 0;
	if (it->fast_checks != NULL) {
		/* shown beside the reading: its checks where the thorough way's go */
		const cJSON *c;
		cJSON_ArrayForEach(c, it->fast_checks) {
			cJSON *d = cJSON_Duplicate(c, 1);
			if (d == NULL || !cJSON_AddItemToArray(vc->checks, d)) {
				cJSON_Delete(d);
				return err_set(vc->e, ERR_NOMEM, "out of memory");
			}
		}
		return 0;
	}
	if ((doc = vitem_tree(vc, it, &own)) == NULL)
		return -1;
	if (asprintf(&sdir, "%s/%s", bag_root(vc->b), it->store) < 0) {
		cJSON_Delete(own);
		return err_set(vc->e, ERR_NOMEM, "out of memory");
	}
	if (asprintf(&file, "%s/%s", bag_root(vc->b), it->name) < 0) {
		free(sdir);
		cJSON_Delete(own);
		return err_set(vc->e, ERR_NOMEM, "out of memory");
	}
	r = it->fast_tried ? verify_freeze(doc, sdir, vc->jobs, vc->checks, vc->e) :
	    freeze_vs_store(file, doc, 0, sdir, vc->jobs, vc->checks, vc->e);
	cJSON_Delete(own);
	free(file);
	free(sdir);
	return r < 0 ? -1 : r > 0;
}

/* A freeze made again from the ledger items it derives from (refreeze,
 * the gate's own check) must be the freeze, byte for byte. */
static int
vfreeze_ledgers(struct vctx *vc, const struct vitem *it)
{
	const cJSON *d, *from = json_get(it->x, "derived_from");
	const char **ledgers = calloc(vc->n + 1, sizeof *ledgers);
	char **own = calloc(vc->n + 1, sizeof *own), *file = NULL;
	struct refreeze o;
	size_t nl = 0;
	int r = -1;

	if (ledgers == NULL || own == NULL)
		goto done;
	if (asprintf(&file, "%s/%s", bag_root(vc->b), it->name) < 0) {
		file = NULL;
		goto done;
	}
	/* its ledgers: those derived_from names, or else those its kind
	 * implies (ledger_of), as the gate found them */
	for (size_t j = 0; j < vc->n && nl < vc->n; j++) {
		int named = 0;
		if (!vc->v[j].good || vc->v[j].doc != NULL)
			continue;
		cJSON_ArrayForEach(d, from)
			named |= cJSON_IsString(d) && strcmp(vc->v[j].role, d->valuestring) == 0;
		if (asprintf(&own[nl], "%s/%s", bag_root(vc->b), vc->v[j].name) < 0)
			goto done;
		if (from != NULL ? named : ledger_of(own[nl], it->doc, it->games)) {
			ledgers[nl] = own[nl];
			nl++;
		} else {
			free(own[nl]);
			own[nl] = NULL;
		}
	}
	if (nl == 0 && it->store[0] == '\0')
		r = !bag_check_add(vc->checks, "freeze-ledgers", it->path, 0,
		    "neither a store nor a ledger in the bag to check the freeze against");
	else if (nl == 0)
		r = 0;
	else if ((r = refreeze(it->doc, it->games != NULL, file, ledgers, nl, vc->jobs, &o, vc->e)) == 2)
		r = !bag_check_add(vc->checks, "freeze-ledgers", it->path, 0,
		    "its ledgers in the bag no longer freeze: %s", o.why.msg);
	else if (r == 1)
		bag_check_add(vc->checks, "freeze-ledgers", it->path, 0, "freezing its %zu ledger%s in "
		    "the bag again gives %s; included games: %ld changed, %ld added, %ld gone%s%s", nl,
		    nl == 1 ? "" : "s", o.again, o.changed, o.added, o.removed,
		    o.first[0] ? "; first: " : "", o.first);
	else if (r == 0 && o.live > 0)
		r = !bag_check_add(vc->checks, "freeze-ledgers", it->path, 0,
		    "its ledgers in the bag hold %ld live game%s inside its cut (first: %s)", o.live,
		    o.live == 1 ? "" : "s", o.first_live);
	else if (r == 0 && o.after > 0)
		bag_check_add(vc->checks, "freeze-ledgers", it->path, 1,
		    "freezing its %zu ledger%s in the bag again gives it, but for %ld game%s after "
		    "its cut that it leaves out", nl, nl == 1 ? "" : "s", o.after,
		    o.after == 1 ? "" : "s");
	else if (r == 0)
		bag_check_add(vc->checks, "freeze-ledgers", it->path, 1,
		    "freezing its %zu ledger%s in the bag again gives it byte for byte", nl,
		    nl == 1 ? "" : "s");
done:
	for (size_t j = 0; own && j < nl; j++)
		free(own[j]);
	free(file);
	free(own);
	free(ledgers);
	return r < 0 && vc->e->code == ERR_OK ? err_set(vc->e, ERR_NOMEM, "out of memory") : r;
}

/* A freeze embeds its spec and names it by "spec_id": the embedded spec
 * must have that identity, and so must every spec item it derives from. */
static int
vfreeze_spec(struct vctx *vc, const struct vitem *it)
{
	const cJSON *sid = json_get(it->doc, "spec_id"), *d;
	char have[HASH_ID_LEN + 1];
	int findings = 0;

	if (canon_id(json_get(it->doc, "spec"), have, vc->e) < 0)
		return vc->e->code == ERR_NOMEM ? -1 : !bag_check_add(vc->checks, "spec", it->path, 0,
		    "its embedded spec cannot be read: %s", vc->e->msg);
	if (!cJSON_IsString(sid) || strcmp(sid->valuestring, have) != 0)
		return !bag_check_add(vc->checks, "spec", it->path, 0, "spec_id says %.80s, its "
		    "embedded spec is %s", cJSON_IsString(sid) ? sid->valuestring : "(none)", have);
	cJSON_ArrayForEach(d, json_get(it->x, "derived_from"))
		for (size_t j = 0; cJSON_IsString(d) && j < vc->n; j++) {
			const struct vitem *s = &vc->v[j];
			if (!s->good || s->kind == NULL || strcmp(s->kind, "cohort.spec/1") != 0 ||
			    strcmp(s->role, d->valuestring) != 0)
				continue;
			if (strcmp(s->doc_id, have) != 0)
				findings += !bag_check_add(vc->checks, "spec", it->path, 0, "it embeds spec "
				    "%s; the spec it derives from (%.200s) is %s", have, s->path, s->doc_id);
			else
				bag_check_add(vc->checks, "spec", it->path, 1, "it embeds %s, the spec it "
				    "derives from (%.200s)", have, s->path);
		}
	return findings;
}

/* A derived document computed again from the input it records itself. */
static int
vderived(struct vctx *vc, const struct vitem *it)
{
	const cJSON *in = json_get(it->doc, "input"), *from;
	const struct vitem *src = cJSON_IsString(in) ? vitem_by_id(vc, in->valuestring) : NULL;
	struct err fe = ERR_INIT;
	char *sdir = NULL;
	cJSON *own = NULL;
	int r;

	if (src == NULL || src->doc == NULL)
		return !bag_check_add(vc->checks, "refit", it->path, 0,
		    "its input %.80s is not a document in the bag",
		    cJSON_IsString(in) ? in->valuestring : "(none recorded)");
	from = src->doc;
	if (needs_tree(it->kind, src->games != NULL, src->doc_id) &&
	    (from = vitem_tree(vc, src, &own)) == NULL)
		return -1;
	if (src->store[0] && asprintf(&sdir, "%s/%s", bag_root(vc->b), src->store) < 0) {
		cJSON_Delete(own);
		return err_set(vc->e, ERR_NOMEM, "out of memory");
	}
	struct derive_env env = { sdir, NULL, src->doc_id[0] ? src->doc_id : NULL };
	r = derive_check(it->kind, it->doc, from, it->path, &env, vc->checks, &fe);
	cJSON_Delete(own);
	free(sdir);
	if (r < 0 && fe.code == ERR_NOMEM)
		return err_set(vc->e, ERR_NOMEM, "%s", fe.msg);
	if (r < 0)
		return !bag_check_add(vc->checks, "refit", it->path, 0, "%s", fe.msg);
	return r > 0;
}

/* A document computed from several (a gate), computed again from the
 * bag's documents it names. */
static int
vderived_many(struct vctx *vc, const struct vitem *it)
{
	const char *ids[256];
	const cJSON *in[256];
	cJSON *own[256] = { NULL };
	struct err fe = ERR_INIT;
	size_t n;
	int r = 0;

	if (derive_input_ids(it->kind, it->doc, ids, 256, &n, &fe) < 0)
		return !bag_check_add(vc->checks, "refit", it->path, 0, "%s", fe.msg);
	for (size_t j = 0; j < n && r == 0; j++) {
		const struct vitem *src = vitem_by_id(vc, ids[j]);
		if (src == NULL || src->doc == NULL)
			r = !bag_check_add(vc->checks, "refit", it->path, 0,
			    "its input %.80s is not a document in the bag", ids[j]);
		else if ((in[j] = vitem_tree(vc, src, &own[j])) == NULL)
			r = -1;
	}
	if (r == 0 && (r = derive_check_set(it->kind, it->doc, in, n, it->path, NULL, vc->checks,
	                       &fe)) < 0)
		r = fe.code == ERR_NOMEM ? err_set(vc->e, ERR_NOMEM, "%s", fe.msg) :
		    !bag_check_add(vc->checks, "refit", it->path, 0, "%s", fe.msg);
	for (size_t j = 0; j < n; j++)
		cJSON_Delete(own[j]);
	return r < 0 ? -1 : r > 0;
}

/* Each claim bundle.json makes has its gates in the bag, passing.  The
 * findings. */
static int
vclaims(struct vctx *vc, const cJSON *doc)
{
	const cJSON *v;
	int findings = 0;

	cJSON_ArrayForEach(v, json_get(doc, "claims")) {
		size_t k = 0;
		while (k < NCLAIMS && !(cJSON_IsString(v) && strcmp(claims[k].name, v->valuestring) == 0))
			k++;
		if (k == NCLAIMS) {
			findings += !bag_check_add(vc->checks, "claims", vc->bdoc, 0, "an unknown claim");
			continue;
		}
		for (const char *g = claims[k].gates; *g; g++) {
			int pass = 0;
			for (size_t i = 0; i < vc->n; i++) {
				struct err ge = ERR_INIT;
				char gg = 0;
				if (vc->v[i].good && vc->v[i].doc != NULL && vc->v[i].kind != NULL &&
				    strcmp(vc->v[i].kind, "cohort.gate/1") == 0)
					pass |= gate_passes(vc->v[i].doc, &gg, &ge) == 1 && gg == *g;
			}
			findings += !bag_check_add(vc->checks, "claims", v->valuestring, pass,
			    pass ? "gate %c is in the bag and passes" : "gate %c is not in the bag, or does "
			    "not pass", *g);
		}
	}
	return findings;
}

/* Each document: the live rule, and what its kind derives from; a
 * freeze's ledgers frozen again apart (part 1: a job of its own), the
 * rest in part 0.  The findings, or -1. */
static int
vitem_document(struct vctx *vc, const struct vitem *it, int part)
{
	struct bag_live bl = { vc->checks, it->path };
	int findings = 0, r = 0;

	if (part == 1)
		return it->kind != NULL && strcmp(it->kind, "cohort.freeze/1") == 0 ?
		    vfreeze_ledgers(vc, it) : 0;
	findings = (int)freeze_live(it->doc, on_bag_live, &bl);
	if (it->kind == NULL)
		return findings;
	if (strcmp(it->kind, "cohort.freeze/1") == 0) {
		if ((r = vfreeze_store(vc, it)) >= 0) {
			findings += r;
			r = vfreeze_spec(vc, it);
		}
	} else if (derive_many(it->kind)) {
		r = vderived_many(vc, it);
	} else if (derive_known(it->kind)) {
		r = vderived(vc, it);
	} else if (derive_is_input(it->kind)) {
		r = derive_input_check(it->kind, it->doc, it->path, vc->checks, vc->e);
	}
	return r < 0 ? -1 : findings + r;
}

/* The first index of the sorted payload at or past name. */
static size_t
payload_lower(const struct bag *b, const char *name)
{
	size_t lo = 0, hi = bag_payload_count(b);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(bag_payload_name(b, mid), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Mark the payload files name covers: itself (a file) or all under it
 * (dir, a store's folder: a run of the sorted payload). */
static void
payload_mark(const struct bag *b, const char *name, int dir, unsigned char *mark)
{
	size_t k = strlen(name), n = bag_payload_count(b);

	for (size_t i = payload_lower(b, name); i < n; i++) {
		const char *p = bag_payload_name(b, i);
		if (strncmp(p, name, k) != 0 || (p[k] != '\0' && !dir) || (dir && p[k] != '/'))
			break;
		mark[i] = 1;
	}
}

/* data/ro-crate-metadata.json, when the bag has it: RO-Crate 1.2's
 * context and descriptor, and every File with an identifier naming a
 * payload file of that identity.  It and the CITATION.cff it lists are
 * then covered; a crate that does not hold is a finding (check crate). */
static int
vcrate(struct vctx *vc, unsigned char *mark)
{
	static const char name[] = "data/ro-crate-metadata.json";
	size_t i = payload_lower(vc->b, name);
	const cJSON *g, *desc = NULL;
	char *full = NULL, why[512] = "";
	struct err pe = ERR_INIT;
	cJSON *crate;
	int cff = 0;

	if (i >= bag_payload_count(vc->b) || strcmp(bag_payload_name(vc->b, i), name) != 0)
		return 0;
	if (asprintf(&full, "%s/%s", bag_root(vc->b), name) < 0)
		return err_set(vc->e, ERR_NOMEM, "out of memory");
	crate = json_parse_file(full, &pe);
	free(full);
	if (crate == NULL)
		snprintf(why, sizeof why, "%.400s", pe.msg);
	else if (!cJSON_IsString(json_get(crate, "@context")) ||
	         strcmp(json_get(crate, "@context")->valuestring, CRATE_CONTEXT) != 0)
		snprintf(why, sizeof why, "\"@context\" is not %s", CRATE_CONTEXT);
	cJSON_ArrayForEach(g, json_get(crate, "@graph")) {
		const cJSON *id = json_get(g, "@id"), *t = json_get(g, "@type"),
		            *ident = json_get(g, "identifier");
		char pn[1100];
		uint8_t d[HASH_LEN], want[HASH_LEN];

		if (why[0] || !cJSON_IsString(id) || !cJSON_IsString(t))
			continue;
		if (strcmp(id->valuestring, "ro-crate-metadata.json") == 0)
			desc = g;
		if (strcmp(t->valuestring, "File") != 0)
			continue;
		snprintf(pn, sizeof pn, "data/%s", id->valuestring);
		cff |= strcmp(id->valuestring, "CITATION.cff") == 0;
		if (cJSON_IsString(ident) && strncmp(ident->valuestring, "sha256:", 7) == 0 &&
		    (hash_id_parse(ident->valuestring, want) < 0 || bag_payload_sha256(vc->b, pn, d) < 0 ||
		     hash_cmp(d, want) != 0))
			snprintf(why, sizeof why, "File %.200s: not a payload file of identity %.80s",
			         id->valuestring, ident->valuestring);
	}
	if (!why[0] && (desc == NULL || !cJSON_IsString(json_get(json_get(desc, "conformsTo"), "@id")) ||
	                strcmp(json_get(json_get(desc, "conformsTo"), "@id")->valuestring,
	                       CRATE_PROFILE) != 0))
		snprintf(why, sizeof why, "no metadata descriptor conforming to %s", CRATE_PROFILE);
	cJSON_Delete(crate);
	bag_check_add(vc->checks, "crate", name, why[0] == '\0', "%s",
	              why[0] ? why : "RO-Crate 1.2 metadata; every File's identity holds");
	if (why[0])
		return 1;
	payload_mark(vc->b, name, 0, mark);
	if (cff)
		payload_mark(vc->b, "data/CITATION.cff", 0, mark);
	return 0;
}

/* Every payload file must be the bundle document, an item, in an item's
 * store, or the crate's metadata: anything else rides along unchecked. */
static int
vunlisted(struct vctx *vc)
{
	size_t n = bag_payload_count(vc->b), found = 0;
	unsigned char *mark = calloc(n + 1, 1);

	if (mark == NULL)
		return err_set(vc->e, ERR_NOMEM, "out of memory");
	payload_mark(vc->b, vc->bdoc, 0, mark);
	if (vc->page)
		payload_mark(vc->b, vc->page, 0, mark);
	if (vcrate(vc, mark) < 0) {
		free(mark);
		return -1;
	}
	for (size_t i = 0; i < vc->n; i++) {
		if (vc->v[i].path != NULL)
			payload_mark(vc->b, vc->v[i].name, 0, mark);
		if (vc->v[i].store[0])
			payload_mark(vc->b, vc->v[i].store, 1, mark);
	}
	for (size_t i = 0; i < n; i++)
		if (!mark[i] && found++ < BAG_MAX_LISTED)
			bag_check_add(vc->checks, "unlisted", bag_payload_name(vc->b, i), 0,
			    "in the payload, but %s neither lists it nor a store holding it", vc->bdoc);
	if (found > BAG_MAX_LISTED)
		bag_check_add(vc->checks, "unlisted", vc->bdoc, 0, "%zu more files not listed",
		    found - BAG_MAX_LISTED);
	else if (found == 0)
		bag_check_add(vc->checks, "unlisted", vc->bdoc, 1,
		    "every one of the %zu payload files is listed", n);
	free(mark);
	return found > 0;
}

/* Every input a document records is in the bag. */
static int
vinputs(struct vctx *vc)
{
	int findings = 0;

	for (size_t i = 0; i < vc->n; i++) {
		const cJSON *in;
		if (!vc->v[i].good)
			continue;
		cJSON_ArrayForEach(in, json_get(vc->v[i].x, "inputs"))
			if (!cJSON_IsString(in) || vitem_by_id(vc, in->valuestring) == NULL)
				findings += !bag_check_add(vc->checks, "inputs", vc->v[i].path, 0,
				    "records input %.80s, which is not in the bag",
				    cJSON_IsString(in) ? in->valuestring : "(not a string)");
	}
	return findings;
}

/* The tree the verifier read of the item at bundle.json's path p, for
 * the page (report_bundle_docs): an item whose identity held, read from
 * its file's bytes by the strict reader; else NULL. */
static const cJSON *
vitem_doc(void *ctx, const char *p, const struct freeze_games **games)
{
	const struct vctx *vc = ctx;

	for (size_t i = 0; i < vc->n; i++)
		if (vc->v[i].good && vc->v[i].doc != NULL && strcmp(vc->v[i].path, p) == 0) {
			*games = vc->v[i].games;
			return vc->v[i].doc;
		}
	return NULL;
}

/* The bag's reviewer's page, where the bundle document names one: derived
 * again from it and the documents in the bag, the same bytes.  The
 * findings (0 or 1), or -1. */
static int
bag_page(struct vctx *vc, const cJSON *doc)
{
	const cJSON *name = json_get(doc, "report");
	struct buf page = BUF_INIT, held = BUF_INIT;
	struct err ig = ERR_INIT;
	char *data = NULL, *path = NULL;
	int ok, have;

	if (name == NULL)
		return 0;
	if (!cJSON_IsString(name) || strcmp(name->valuestring, REPORT_PAGE) != 0)
		return !bag_check_add(vc->checks, "report", vc->bdoc, 0, "\"report\": expected \"%s\"",
		    REPORT_PAGE);
	vc->page = "data/" REPORT_PAGE;
	if (asprintf(&data, "%s/data", bag_root(vc->b)) < 0)
		return err_set(vc->e, ERR_NOMEM, "out of memory");
	if (report_bundle_docs(doc, data, NULL, vitem_doc, vc, &page, vc->e) < 0) {
		free(data);
		return -1;
	}
	have = asprintf(&path, "%s/" REPORT_PAGE, data) >= 0 &&
	    io_read_all(path, &held, IO_MAX_DOCUMENT, &ig) == 0;
	ok = have && held.len == page.len && memcmp(held.p, page.p, page.len) == 0;
	if (!have)
		bag_check_add(vc->checks, "report", vc->page, 0,
		    "the bundle document names the page, the bag does not hold it");
	else
		bag_check_add(vc->checks, "report", vc->page, ok, "%s",
		    ok ? "derived again from bundle.json and the documents: the same bytes"
		       : "derived again from bundle.json and the documents: the bytes differ");
	free(path);
	free(data);
	buf_release(&held);
	buf_release(&page);
	return !ok;
}

/* The quick proof of a freeze item that names a store, run beside the
 * reading of its tree (struct vitem's fast_checks).  0, or -1. */
static int
vitem_fast(struct vctx *vc, struct vitem *it)
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
	r = freeze_fast(file, sdir, vc->jobs, checks, it->fast_id, vc->e);
	free(file);
	free(sdir);
	it->fast_tried = r >= 0;
	if (r == 0)
		it->fast_checks = checks;
	else
		cJSON_Delete(checks);
	return r < 0 ? -1 : 0;
}

/* After the reading and the proofs: a store's freeze is the identity its
 * proof gave, or (not shown that way) its tree's.  0, or -1. */
static int
vitem_fast_ids(struct vctx *vc)
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
		if ((doc = vitem_tree(vc, it, &own)) == NULL)
			return -1;
		r = canon_id(doc, it->doc_id, vc->e);
		cJSON_Delete(own);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* The gate's credential scan run again on the payload: its built-in
 * rules with the options it scans with by default, each file named by its
 * path under data/ (the path the gate scanned it as, which the rules' path
 * filters and allowlists see).  Every payload file is scanned, the bundle
 * document and the page included: a credential in the bag is a finding
 * whoever put it there. */
struct vscan {
	cJSON *checks;
	const char *path; /* the file's path under data/ */
};

static int
on_bag_secret(void *p, const struct secret_hit *h)
{
	struct vscan *s = p;
	char where[BAG_MAX_NAME + 32];

	if (h->more > 0) {
		bag_check_add(s->checks, "secret", s->path, 0,
		    "%s: %ld more credentials of this rule in this file, not listed", h->rule,
		    h->more);
		return 0;
	}
	snprintf(where, sizeof where, "%s:%ld", s->path, h->line);
	bag_check_add(s->checks, "secret", where, 0, "%s: a credential (%s) is in this file%s%s%s",
	    h->rule, h->masked, h->where[0] ? " (" : "", h->where, h->where[0] ? ")" : "");
	return 0;
}

/* One payload file mapped and scanned: its hits, or -1 with e set when
 * memory ran out.  A file the scan cannot read (a corrupt stream or
 * database, a file cut while it was read) is a finding: a scan that did
 * not run is no pass. */
static long
vscan_file(struct vctx *vc, const struct secret_rules *rules, const char *name)
{
	struct secret_opts so = { SECRET_CAP, 2, 0 };
	struct vscan s = { vc->checks, name + 5 };
	struct map m = MAP_INIT;
	struct err se = ERR_INIT;
	struct stat st;
	char *full;
	long r = -1;
	int fd;

	if (asprintf(&full, "%s/%s", bag_root(vc->b), name) < 0)
		return err_set(vc->e, ERR_NOMEM, "out of memory");
	if ((fd = open(full, O_RDONLY | O_NOFOLLOW)) < 0)
		err_set(&se, ERR_IO, "cannot open: %s", strerror(errno));
	else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		err_set(&se, ERR_IO, "not a regular file");
	else if (st.st_size == 0 || map_fd(fd, s.path, (size_t)st.st_size, &m, &se) == 0)
		r = secret_scan(rules, &so, s.path, m.p ? m.p : "", m.n, on_bag_secret, &s, &se);
	if (fd >= 0)
		close(fd);
	map_release(&m);
	free(full);
	if (r >= 0 && map_check(&se) < 0)
		r = -1;
	if (r < 0 && se.code == ERR_NOMEM)
		return err_set(vc->e, ERR_NOMEM, "%s", se.msg);
	if (r < 0)
		return !bag_check_add(vc->checks, "secret", s.path, 0,
		    "cannot be scanned for credentials: %s", se.msg);
	return r;
}

/* Every payload file through the gate's credential rules: the findings
 * (files with a credential, or that could not be scanned), or -1. */
static int
vsecrets(struct vctx *vc)
{
	size_t n = bag_payload_count(vc->b);
	int findings = 0;
	long r = 0;

	for (size_t i = 0; i < n && r >= 0; i++)
		if ((r = vscan_file(vc, vc->rules, bag_payload_name(vc->b, i))) > 0)
			findings++;
	if (r >= 0 && findings == 0)
		bag_check_add(vc->checks, "secret", vc->bdoc, 1,
		    "the gate's %zu credential rules find nothing in the %zu payload files",
		    secret_rules_count(vc->rules), n);
	return r < 0 ? -1 : findings;
}

/* The verifier's independent checks run at once (common/pool.h), each
 * with checks and an error of its own; the caller appends them in task
 * order and stops at the first that could not run, as running them one
 * after another would: the same bytes on any number of threads. */
enum vpart { V_READ, V_FAST, V_DOC, V_LEDGERS, V_PAGE, V_SECRET };

struct vtask {
	struct vctx vc;            /* the caller's, but for checks and e */
	struct vitem *it;
	enum vpart part;
	const cJSON *doc;          /* V_PAGE: the bundle document */
	struct err e;
	int r;
};

/* An item's identity; when it holds, its file read and its git blob:
 * the findings, or -1. */
static int
vitem_check(struct vctx *vc, struct vitem *it)
{
	int r = vitem_identity(vc, it), g;

	if (r != 0 || (r = vitem_read(vc, it)) < 0)
		return r;
	return (g = vgit(vc, it)) < 0 ? -1 : r + g;
}

/* The tasks of a run, taken in the order order gives (the pool takes jobs
 * in order of their number). */
struct vrun {
	struct vtask *t;
	const size_t *order;
};

static void
vtask_job(void *arg, size_t i, int worker)
{
	const struct vrun *run = arg;
	struct vtask *t = &run->t[run->order[i]];

	(void)worker;
	t->vc.e = &t->e;
	if (t->vc.checks == NULL)
		t->r = err_set(&t->e, ERR_NOMEM, "out of memory");
	else if (t->part == V_READ)
		t->r = vitem_check(&t->vc, t->it);
	else if (t->part == V_FAST)
		t->r = vitem_fast(&t->vc, t->it);
	else if (t->part == V_PAGE)
		t->r = bag_page(&t->vc, t->doc);
	else if (t->part == V_SECRET)
		t->r = vsecrets(&t->vc);
	else
		t->r = vitem_document(&t->vc, t->it, t->part == V_LEDGERS);
}

/* Run the n tasks t (their part, it and doc set), begun in the order
 * order gives, and append their checks in t's order: the findings, or -1
 * with the first error. */
static int
vtasks_run(struct vctx *vc, struct vtask *t, size_t n, const size_t *order)
{
	int threads = (vc->jobs > 0 ? vc->jobs : pool_cpus()) - 1, findings = 0, failed = 0;
	struct pool *p;
	cJSON *c;

	if ((size_t)threads > n)
		threads = (int)n;
	for (size_t i = 0; i < n; i++) {
		t[i].vc = *vc;
		t[i].vc.checks = cJSON_CreateArray();
		t[i].e = (struct err)ERR_INIT;
	}
	if ((p = pool_new(threads)) != NULL)
		pool_run(p, n, vtask_job, &(struct vrun){ t, order });
	pool_free(p);
	for (size_t i = 0; i < n; i++) {
		if (p == NULL || (!failed && t[i].r < 0)) {
			*vc->e = p == NULL ? (struct err){ ERR_NOMEM, "out of memory" } : t[i].e;
			failed = 1;
		}
		while (!failed && (c = cJSON_DetachItemFromArray(t[i].vc.checks, 0)) != NULL)
			cJSON_AddItemToArray(vc->checks, c);
		if (!failed && t[i].part == V_PAGE)
			vc->page = t[i].vc.page;
		findings += t[i].r > 0 ? t[i].r : 0;
		cJSON_Delete(t[i].vc.checks);
	}
	return failed ? -1 : findings;
}

/* bundle.json of a bag against the bag: every item's paths and identity,
 * every document read and derived again, every payload file listed.  The
 * findings, or -1. */
static int
verify_bundle_doc(struct vctx *vc, const cJSON *doc)
{
	const cJSON *items = json_get(doc, "items");
	struct vtask *t;
	size_t n = 0, *order;
	int findings, r = 0;

	if (!cJSON_IsArray(items))
		return !bag_check_add(vc->checks, "bundle", vc->bdoc, 0, "no \"items\" array");
	if ((findings = vitems_read(vc, items)) < 0)
		return -1;
	if ((t = calloc(2 * vc->n + 2, sizeof *t)) == NULL ||
	    (order = calloc(2 * vc->n + 2, sizeof *order)) == NULL) {
		free(t);
		return err_set(vc->e, ERR_NOMEM, "out of memory");
	}
	/* the long tasks first: the quick proofs and the credential scan,
	 * which need the bytes only, beside the reading of the trees */
	for (size_t i = 0; i < vc->n; i++)
		if (vc->v[i].good && vc->v[i].store[0] != '\0')
			t[n++] = (struct vtask){ .it = &vc->v[i], .part = V_FAST };
	t[n++] = (struct vtask){ .part = V_SECRET };
	for (size_t i = 0; i < vc->n; i++)
		if (vc->v[i].good)
			t[n++] = (struct vtask){ .it = &vc->v[i], .part = V_READ };
	/* begun first: the trees of the freezes with a store, the largest
	 * documents (an entry a game), whose reading would otherwise come
	 * last and alone; then the rest as they stand */
	for (size_t k = 0, m = 0; m < 2; m++)
		for (size_t i = 0; i < n; i++)
			if ((t[i].part == V_READ && t[i].it->store[0] != '\0') == (m == 0))
				order[k++] = i;
	if ((r = vtasks_run(vc, t, n, order)) >= 0 && vitem_fast_ids(vc) < 0)
		r = -1;
	if (r >= 0) {
		findings += r;
		n = 0;
		for (size_t i = 0; i < vc->n; i++)
			if (vc->v[i].good && vc->v[i].doc != NULL) {
				t[n++] = (struct vtask){ .it = &vc->v[i], .part = V_DOC };
				t[n++] = (struct vtask){ .it = &vc->v[i], .part = V_LEDGERS };
			}
		/* the page (every stored record read again, on one thread) is
		 * the longest: begun first, not left to the end alone */
		t[n++] = (struct vtask){ .part = V_PAGE, .doc = doc };
		order[0] = n - 1;
		for (size_t i = 0; i + 1 < n; i++)
			order[i + 1] = i;
		r = vtasks_run(vc, t, n, order);
	}
	free(t);
	free(order);
	if (r < 0)
		return -1;
	findings += r;
	if ((r = vunlisted(vc)) < 0)
		return -1;
	return findings + r + vinputs(vc) + vclaims(vc, doc);
}

/* A bag with no bundle document may not hold cohort documents: nothing
 * would say how they derive, and none would be checked.  The first payload
 * ".json" file that is one is a finding. */
static int
plain_bag(struct bag *b, cJSON *checks, struct err *e)
{
	size_t n = bag_payload_count(b);

	for (size_t i = 0; i < n; i++) {
		const char *name = bag_payload_name(b, i);
		size_t k = strlen(name);
		struct buf raw = BUF_INIT;
		struct err pe = ERR_INIT;
		const cJSON *kind;
		cJSON *doc = NULL;
		char *full;
		int invalid;
		if (k < 5 || strcmp(name + k - 5, ".json") != 0)
			continue;
		if (asprintf(&full, "%s/%s", bag_root(b), name) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		if (io_read_all(full, &raw, IO_MAX_DOCUMENT, &pe) == 0)
			doc = doc_bytes(raw.p ? raw.p : "", raw.len, name, NULL, &invalid, &pe);
		free(full);
		buf_release(&raw);
		if (pe.code == ERR_NOMEM)
			return err_set(e, ERR_NOMEM, "%s", pe.msg);
		kind = json_get(doc, "kind");
		if (cJSON_IsString(kind) && strncmp(kind->valuestring, "cohort.", 7) == 0) {
			bag_check_add(checks, "bundle-document", name, 0, "a %.60s document, and "
			    "bag-info.txt names no Bundle-Document: nothing in the bag says how it "
			    "derives, and it is not checked", kind->valuestring);
			cJSON_Delete(doc);
			return 1;
		}
		cJSON_Delete(doc);
	}
	return 0;
}

/* The bundle document at payload path name read: a cohort.bundle/1, into
 * *doc (0), or NULL and 1 after a finding; -1 with e set. */
static int
bundle_document_read(struct bag *b, cJSON *checks, const char *name, cJSON **doc,
    struct err *e)
{
	struct buf raw = BUF_INIT;
	struct err pe = ERR_INIT;
	char *full;
	int rc = 0;

	if (asprintf(&full, "%s/%s", bag_root(b), name) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (io_read_all(full, &raw, IO_MAX_DOCUMENT, &pe) < 0 ||
	    (*doc = json_parse(raw.p ? raw.p : "", raw.len, name, 1, &pe)) == NULL) {
		rc = pe.code == ERR_NOMEM ? err_set(e, ERR_NOMEM, "%s", pe.msg) :
		    !bag_check_add(checks, "bundle-document", name, 0, "%s", pe.msg);
	} else if (!cJSON_IsString(json_get(*doc, "kind")) ||
	           strcmp(json_get(*doc, "kind")->valuestring, "cohort.bundle/1") != 0) {
		rc = !bag_check_add(checks, "bundle-document", name, 0, "not a cohort.bundle/1 document");
		cJSON_Delete(*doc);
		*doc = NULL;
	}
	free(full);
	buf_release(&raw);
	return rc;
}

/* Which cohort made the bag: bag-info.txt's Bag-Software-Agent, "cohort
 * VERSION (COMMIT)" (the source commit, or "unknown" for a build from
 * outside a git clone), reported; absent or of another form, a finding.
 * The findings (0 or 1), or -1. */
static int
software_agent(struct bag *b, cJSON *checks, struct err *e)
{
	struct buf v = BUF_INIT;
	int r = bag_info_get(b, "Bag-Software-Agent", &v, e), ok;
	size_t n = r == 0 ? strlen(v.p) : 0;
	const char *sp = r == 0 ? strchr(v.p + (n > 7 ? 7 : n), ' ') : NULL;

	if (r < 0)
		return -1;
	ok = r == 0 && strncmp(v.p, "cohort ", 7) == 0 && n > 7 && sp != NULL && sp > v.p + 7 &&
	    sp[1] == '(' && sp[2] != ')' && v.p[n - 1] == ')' && strchr(sp + 1, ' ') == NULL;
	if (ok)
		bag_check_add(checks, "software-agent", "bag-info.txt", 1, "made by %.200s", v.p);
	else if (r == 0)
		bag_check_add(checks, "software-agent", "bag-info.txt", 0, "Bag-Software-Agent is "
		    "\"%.200s\": expected cohort VERSION (COMMIT), which cohort made the bag", v.p);
	else
		bag_check_add(checks, "software-agent", "bag-info.txt", 0, "no Bag-Software-Agent: "
		    "the bag does not say which cohort (version and commit) made it");
	buf_release(&v);
	return !ok;
}

/* The bundle document bag-info.txt names ("Bundle-Document: PATH ID"), or
 * data/bundle.json where it names none: confined, present, of that
 * identity (a mismatch is a finding, and the document is read all the
 * same), and a cohort.bundle/1.  *doc is it, or NULL for a plain bag or
 * after a finding that stops there; the findings (0 or 1), or -1. */
static int
bundle_document(struct bag *b, cJSON *checks, char name[BAG_MAX_NAME + 8], cJSON **doc,
    struct err *e)
{
	struct buf v = BUF_INIT;
	const char *why, *said;
	char have[HASH_ID_LEN + 1];
	uint8_t d[HASH_LEN];
	int r = bag_info_get(b, "Bundle-Document", &v, e), rc = 1;

	*doc = NULL;
	if (r < 0)
		return -1;
	snprintf(name, BAG_MAX_NAME + 8, "%.*s", BAG_MAX_NAME, r == 0 ? v.p : "data/bundle.json");
	if (strchr(name, ' ') != NULL)
		*strchr(name, ' ') = '\0';
	said = r == 0 && strchr(v.p, ' ') ? strchr(v.p, ' ') + 1 : NULL;
	if (r == 1 && bag_payload_sha256(b, name, d) < 0) {
		rc = plain_bag(b, checks, e); /* no bundle document named, none there */
	} else if (strncmp(name, "data/", 5) != 0 || bag_confined(b, name, &why) < 0) {
		bag_check_add(checks, "bundle-document", "bag-info.txt", 0,
		    "Bundle-Document \"%.200s\" is not a payload path inside the bag", name);
	} else if (bag_payload_sha256(b, name, d) < 0) {
		bag_check_add(checks, "bundle-document", name, 0,
		    "bag-info.txt names it as the Bundle-Document; the bag has no such file");
	} else {
		hash_id_format(d, have);
		rc = said != NULL && strcmp(said, have) != 0 &&
		    !bag_check_add(checks, "bundle-document", name, 0,
		        "bag-info.txt says %.80s, the bytes are %s", said, have);
		r = bundle_document_read(b, checks, name, doc, e);
		if (r == 0 && rc == 0)
			bag_check_add(checks, "bundle-document", name, 1, "a cohort.bundle/1 of %d items",
			    cJSON_GetArraySize(json_get(*doc, "items")));
		rc = r < 0 ? -1 : rc || r;
	}
	buf_release(&v);
	return rc;
}

int
bundle_verify_path(const char *path, cJSON *checks, struct err *e)
{
	return bundle_verify_jobs(path, 0, checks, e);
}

int
bundle_verify_jobs(const char *path, int jobs, cJSON *checks, struct err *e)
{
	struct bag *b = NULL;
	char name[BAG_MAX_NAME + 8];
	cJSON *doc = NULL;
	int r, findings;
	/* read first, on one thread, before any other (secret_regcomp) */
	struct secret_rules *rules = secret_rules_new(NULL, e);

	if (rules == NULL)
		return -1;
	if (bag_open(path, &b, e) < 0) {
		secret_rules_free(rules);
		return -1;
	}
	if ((findings = bag_check(b, checks, e)) >= 0 &&
	    (r = bundle_document(b, checks, name, &doc, e)) >= 0) {
		findings += r;
		if (doc != NULL && (r = software_agent(b, checks, e)) >= 0)
			findings += r;
		else if (doc != NULL)
			findings = -1;
		if (doc != NULL && findings >= 0) {
			struct vctx vc = { .b = b, .bdoc = name, .checks = checks, .jobs = jobs,
				.rules = rules, .e = e };
			r = verify_bundle_doc(&vc, doc);
			findings = r < 0 ? -1 : findings + r;
			for (size_t i = 0; i < vc.n; i++)
			{
				cJSON_Delete(vc.v[i].doc);
				cJSON_Delete(vc.v[i].fast_checks);
				freeze_games_free(vc.v[i].games);
			}
			free(vc.v);
		}
	} else {
		findings = -1;
	}
	cJSON_Delete(doc);
	bag_free(b);
	secret_rules_free(rules);
	return findings < 0 ? -1 : findings > 0 ? 1 : 0;
}
