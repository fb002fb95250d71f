/* page.c: the reviewer's page of an archive (its verification included)
 * and of the gate's answer for a bundle spec. */
#define _GNU_SOURCE /* asprintf */
#include "review.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bagit/bag.h"
#include "../bundle/bundle.h"
#include "../common/hash.h"
#include "../json/json.h"
#include "../report/report.h"

static const char *
base(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

/* bundle.json of an open bag (whose files are all on disk). */
static cJSON *
bag_bundle(struct bag *bag, const char *path, struct err *e)
{
	char *bp;
	cJSON *bundle;
	const cJSON *k;

	if (asprintf(&bp, "%s/data/bundle.json", bag_root(bag)) < 0) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	bundle = json_parse_file(bp, e);
	free(bp);
	k = json_get(bundle, "kind");
	if (bundle && (!cJSON_IsString(k) || strcmp(k->valuestring, "cohort.bundle/1") != 0)) {
		err_set(e, ERR_INPUT, "%s: data/bundle.json: \"kind\": expected cohort.bundle/1", path);
		cJSON_Delete(bundle);
		return NULL;
	}
	if (bundle == NULL)
		err_prefix(e, "%s: not a cohort bundle", path);
	return bundle;
}

int
review_page_archive(const char *path, struct buf *html, struct err *e)
{
	const char *files[1] = { path };
	struct review_opts ro = { .files = files, .nfiles = 1 };
	cJSON *verify = NULL, *bundle = NULL;
	struct bag *bag = NULL;
	char id[HASH_ID_LEN + 1] = "", *data = NULL;
	uint8_t dg[HASH_LEN];
	struct err ig = ERR_INIT;
	int rc = -1, held;

	if ((held = review_files(&ro, &verify, e)) < 0 || bag_open(path, &bag, e) < 0 ||
	    (bundle = bag_bundle(bag, path, e)) == NULL)
		goto done;
	/* a bag folder has no one identity */
	if (hash_file(path, dg, NULL, &ig) == 0)
		hash_id_format(dg, id);
	if (asprintf(&data, "%s/data", bag_root(bag)) < 0) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	struct report_archive a = { base(path), id[0] ? id : NULL, verify, held };
	if (report_bundle(bundle, data, &a, html, e) == 0)
		rc = held;
done:
	free(data);
	cJSON_Delete(bundle);
	cJSON_Delete(verify);
	bag_free(bag);
	return rc;
}

int
review_page_spec(const char *spec, const char *rules, const char *out, struct buf *html,
    struct err *e)
{
	struct bundle_opts o = { .spec = spec, .out = out, .check = 1, .compress = BAG_PLAIN,
		.rules = rules };
	char id[HASH_ID_LEN + 1];
	cJSON *doc = NULL;
	int rc;

	if ((rc = bundle_run(&o, &doc, id, e)) < 0)
		return -1;
	if (report_gate(doc, base(spec), html, e) < 0)
		rc = -1;
	cJSON_Delete(doc);
	return rc;
}
