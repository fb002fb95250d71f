/* read.c: every file of a bundle read once, on a pool of threads: its
 * digest and its credential scan over the same mapping, and an item's own
 * file parsed as a cohort document.  The documents' reader here is the
 * archive verifier's too. */
#include "bundle_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/io.h"
#include "../common/map.h"
#include "../common/pool.h"
#include "../derive/derive.h"
#include "../json/json.h"
#include "../protocol/games.h"
#include "../secret/secret.h"

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
	f = bundle_finding(s->c, "secret", s->it, s->path, h->line, h->action,
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

cJSON *
bundle_doc_bytes(const char *q, size_t n, const char *path, struct freeze_games **games, int *invalid,
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

const cJSON *
bundle_doc_tree(const char *file, const cJSON *doc, int partial, cJSON **own, struct err *e)
{
	*own = NULL;
	return partial ? (*own = json_parse_file(file, e)) : doc;
}

int
bundle_kind_checkable(const char *kind)
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

	it->doc = bundle_doc_bytes(q, n, it->path, &it->games, &invalid, &pe);
	if (invalid)
		bundle_finding(c, "invalid", it, it->path, 0, "replace the file with the document the tool wrote",
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
		if (it->kind != NULL && !bundle_kind_checkable(it->kind))
			bundle_finding(c, "invalid", it, it->path, 0,
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

	bundle_stage(c, "reading %s (file %zu of %zu)", f->rel, k + 1, c->nf);
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

int
bundle_files_read(struct ctx *c)
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

int
bundle_needs_tree(const char *kind, int partial, const char *input_id)
{
	return partial && !(input_id[0] && (strcmp(kind, "cohort.fit/1") == 0 ||
	                                       strcmp(kind, "cohort.bound/1") == 0));
}
