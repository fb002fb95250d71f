/* verify_payload.c: an archive's payload as a whole: every file listed
 * (the RO-Crate metadata held to its identities), every input recorded
 * present, and the reviewer's page derived again. */
#define _GNU_SOURCE /* asprintf */
#include "bundle_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/io.h"
#include "../json/json.h"
#include "../report/report.h"
#include "crate.h"

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

int
bundle_vunlisted(struct vctx *vc)
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

int
bundle_vinputs(struct vctx *vc)
{
	int findings = 0;

	for (size_t i = 0; i < vc->n; i++) {
		const cJSON *in;
		if (!vc->v[i].good)
			continue;
		cJSON_ArrayForEach(in, json_get(vc->v[i].x, "inputs"))
			if (!cJSON_IsString(in) || bundle_vitem_by_id(vc, in->valuestring) == NULL)
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

int
bundle_bag_page(struct vctx *vc, const cJSON *doc)
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
