/* crate.c: RO-Crate metadata and CITATION.cff for bundles (see crate.h). */
#include <stdio.h>
#include <string.h>

#include "../json/json.h"
#include "crate.h"

static const char *
sget(const cJSON *o, const char *key)
{
	const cJSON *v = json_get(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* An SPDX identifier ("CC-BY-4.0", "MIT") or an http(s) URL. */
static int
license_ok(const char *s)
{
	if (strncmp(s, "https://", 8) == 0 || strncmp(s, "http://", 7) == 0)
		return strchr(s, ' ') == NULL;
	return *s != '\0' && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	                               "0123456789.-+") == strlen(s);
}

int
crate_check_spec(const cJSON *spec, const char *path, struct err *e)
{
	const cJSON *d = json_get(spec, "description"), *l = json_get(spec, "license"),
	            *a = json_get(spec, "authors"), *x;
	int i = 0;

	if (d != NULL && (!cJSON_IsString(d) || d->valuestring[0] == '\0'))
		return err_set(e, ERR_INPUT, "%s: \"description\": expected text", path);
	if (l != NULL && (!cJSON_IsString(l) || !license_ok(l->valuestring)))
		return err_set(e, ERR_INPUT, "%s: \"license\": expected an SPDX identifier or a URL",
		               path);
	if (a != NULL && (!cJSON_IsArray(a) || cJSON_GetArraySize(a) == 0))
		return err_set(e, ERR_INPUT, "%s: \"authors\": expected a non-empty array", path);
	cJSON_ArrayForEach(x, a) {
		const char *o = sget(x, "orcid");
		i++;
		if (sget(x, "name") == NULL || sget(x, "name")[0] == '\0')
			return err_set(e, ERR_INPUT, "%s: \"authors\"[%d]: \"name\": expected text", path, i);
		if (json_get(x, "orcid") != NULL &&
		    (o == NULL || strncmp(o, "https://orcid.org/", 18) != 0 || strlen(o) != 37))
			return err_set(e, ERR_INPUT, "%s: \"authors\"[%d]: \"orcid\": expected "
			               "https://orcid.org/XXXX-XXXX-XXXX-XXXX", path, i);
	}
	return 0;
}

static cJSON *
ref(const char *id)
{
	cJSON *o = cJSON_CreateObject();

	json_add_string(o, "@id", id);
	return o;
}

static cJSON *
entity(cJSON *graph, const char *id, const char *type)
{
	cJSON *o = cJSON_CreateObject();

	json_add_string(o, "@id", id);
	json_add_string(o, "@type", type);
	cJSON_AddItemToArray(graph, o);
	return o;
}

/* One File per item (and data/bundle.json), a Dataset per store. */
static void
parts(cJSON *graph, cJSON *root, const cJSON *spec, const cJSON *doc)
{
	cJSON *has = cJSON_CreateArray(), *f;
	const cJSON *it;

	f = entity(graph, "bundle.json", "File");
	json_add_string(f, "name", "the bundle document (cohort.bundle/1)");
	json_add_string(f, "encodingFormat", "application/json");
	cJSON_AddItemToArray(has, ref("bundle.json"));
	if (json_get(spec, "authors") != NULL) {
		f = entity(graph, "CITATION.cff", "File");
		json_add_string(f, "name", "how to cite this evidence (Citation File Format 1.2.0)");
		json_add_string(f, "encodingFormat", "application/x-yaml");
		cJSON_AddItemToArray(has, ref("CITATION.cff"));
	}
	cJSON_ArrayForEach(it, json_get(doc, "items")) {
		const char *path = sget(it, "path"), *role = sget(it, "role");
		const cJSON *store = json_get(it, "store");
		char size[32];

		f = entity(graph, path, "File");
		json_add_string(f, "name", path);
		json_add_string(f, "additionalType", role);
		json_add_string(f, "identifier", sget(it, "id"));
		canon_number(json_get(it, "size")->valuedouble, size);
		json_add_string(f, "contentSize", size);
		if (sget(it, "kind") != NULL)
			json_add_string(f, "conformsTo", sget(it, "kind"));
		cJSON_AddItemToArray(has, ref(path));
		if (store != NULL) {
			char id[1100];
			snprintf(id, sizeof id, "%s/", sget(store, "path"));
			f = entity(graph, id, "Dataset");
			json_add_string(f, "name", id);
			json_add_string(f, "description", "the object store of the freeze");
			json_add_string(f, "additionalType", "store");
			cJSON_AddItemToArray(has, ref(id));
		}
	}
	cJSON_AddItemToObject(root, "hasPart", has);
}

cJSON *
crate_make(const cJSON *spec, const cJSON *doc, const struct crate_tool *tool)
{
	cJSON *crate = cJSON_CreateObject(), *graph = cJSON_CreateArray(), *o, *root, *objs;
	const cJSON *it;
	char desc[512];

	json_add_string(crate, "@context", CRATE_CONTEXT);
	cJSON_AddItemToObject(crate, "@graph", graph);
	o = entity(graph, "ro-crate-metadata.json", "CreativeWork");
	cJSON_AddItemToObject(o, "conformsTo", ref(CRATE_PROFILE));
	cJSON_AddItemToObject(o, "about", ref("./"));
	root = entity(graph, "./", "Dataset");
	json_add_string(root, "name", sget(doc, "name"));
	snprintf(desc, sizeof desc, "the evidence of %s, checked and bundled by cohort",
	         sget(doc, "name"));
	json_add_string(root, "description",
	                sget(spec, "description") != NULL ? sget(spec, "description") : desc);
	json_add_string(root, "datePublished", sget(doc, "as_of"));
	json_add_string(root, "identifier", sget(doc, "spec"));
	if (sget(spec, "license") != NULL)
		cJSON_AddItemToObject(root, "license", ref(sget(spec, "license")));
	parts(graph, root, spec, doc);
	o = entity(graph, "#cohort", "SoftwareApplication");
	json_add_string(o, "name", "cohort");
	json_add_string(o, "version", tool->version);
	if (tool->commit != NULL && tool->commit[0] != '\0' && strcmp(tool->commit, "unknown") != 0)
		json_add_string(o, "identifier", tool->commit);
	o = entity(graph, "#bundling", "CreateAction");
	json_add_string(o, "name", "cohort bundle");
	json_add_string(o, "endTime", sget(doc, "as_of"));
	cJSON_AddItemToObject(o, "instrument", ref("#cohort"));
	cJSON_AddItemToObject(o, "result", ref("bundle.json"));
	cJSON_AddItemToObject(o, "object", objs = cJSON_CreateArray());
	cJSON_ArrayForEach(it, json_get(doc, "items"))
		cJSON_AddItemToArray(objs, ref(sget(it, "path")));
	return crate;
}

/* A YAML double-quoted scalar: JSON's string escapes are YAML's. */
static int
yaml_str(struct buf *out, const char *s)
{
	struct err e = ERR_INIT;

	return canon_string(s, out, &e);
}

int
crate_citation(const cJSON *spec, const cJSON *doc, const char *date, struct buf *out)
{
	const cJSON *a = json_get(spec, "authors"), *x;
	int bad = 0;

	if (a == NULL)
		return 0;
	bad |= buf_adds(out, "cff-version: 1.2.0\nmessage: \"If you use this evidence, please "
	                     "cite it as below.\"\ntype: dataset\ntitle: ") < 0;
	bad |= yaml_str(out, sget(doc, "name")) < 0;
	bad |= buf_adds(out, "\nauthors:\n") < 0;
	cJSON_ArrayForEach(x, a) {
		bad |= buf_adds(out, "  - name: ") < 0 || yaml_str(out, sget(x, "name")) < 0;
		if (sget(x, "orcid") != NULL)
			bad |= buf_adds(out, "\n    orcid: ") < 0 || yaml_str(out, sget(x, "orcid")) < 0;
		bad |= buf_addc(out, '\n') < 0;
	}
	bad |= buf_printf(out, "date-released: \"%s\"\n", date) < 0;
	if (sget(spec, "license") != NULL && strncmp(sget(spec, "license"), "http", 4) != 0)
		bad |= buf_adds(out, "license: ") < 0 || yaml_str(out, sget(spec, "license")) < 0 ||
		    buf_addc(out, '\n') < 0;
	if (sget(spec, "description") != NULL)
		bad |= buf_adds(out, "abstract: ") < 0 || yaml_str(out, sget(spec, "description")) < 0 ||
		    buf_addc(out, '\n') < 0;
	bad |= buf_adds(out, "identifiers:\n  - type: other\n    value: ") < 0 ||
	    yaml_str(out, sget(doc, "spec")) < 0 ||
	    buf_adds(out, "\n    description: the bundle spec's identity\n") < 0;
	return bad ? -1 : 1;
}
