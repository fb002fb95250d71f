/* archive.c: the gate's documents (cohort.bundle/1, cohort.refusal/1 and
 * its table) and the BagIt archive written with the reviewer's page, the
 * RO-Crate metadata and CITATION.cff. */
#define _GNU_SOURCE /* asprintf */
#include "bundle_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../json/json.h"
#include "../report/report.h"
#include "crate.h"

cJSON *
bundle_doc_make(struct ctx *c)
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
			cJSON *ins = bundle_recorded_inputs(it->doc);
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

cJSON *
bundle_refusal_make(struct ctx *c)
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

int
bundle_archive_write(struct ctx *c, const struct bundle_opts *o, const cJSON *doc,
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
