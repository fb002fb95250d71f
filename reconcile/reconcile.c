/* reconcile.c: cohort.reconcile/1: a freeze against game ledgers, request
 * logs and billing exports, through one SQLite database (see
 * docs/reconcile-db.md for the schema and every check).  The parts are
 * in the files beside this one (internal.h); this is the one entry point. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
recon_run(const struct recon_opts *o, cJSON **report, struct err *e)
{
	struct recon r;
	cJSON *doc = NULL;
	int rc = -1;

	memset(&r, 0, sizeof r);
	r.o = o;
	r.e = e;
	*report = NULL;
	r.inputs = cJSON_CreateObject();
	if (r.inputs == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	recon_progress(&r, "loading the freeze and ledgers");
	if (recon_db_open(&r) < 0 || recon_freeze_load(&r) < 0 || recon_ledgers_load(&r) < 0)
		goto done;
	recon_progress(&r, "loading request logs");
	if (recon_requests_load(&r) < 0)
		goto done;
	recon_progress(&r, "loading billing");
	if (recon_billing_load(&r) < 0 || recon_checks_run(&r) < 0)
		goto done;
	doc = recon_report_build(&r);
	if (doc == NULL) {
		if (e->code == ERR_OK)
			err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	{
		cJSON *rec = cJSON_GetObjectItemCaseSensitive(doc, "reconciled");
		char sql[128];
		snprintf(sql, sizeof sql, "INSERT INTO meta VALUES ('kind', 'cohort.reconcile/1'),"
		    " ('reconciled', %d)", cJSON_IsTrue(rec));
		if (recon_db_exec(&r, sql) < 0)
			goto done;
		rc = cJSON_IsTrue(rec) ? 0 : 1;
	}
done:
	if (recon_db_close(&r, rc >= 0) < 0)
		rc = -1;
	if (rc < 0) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	*report = doc;
	cJSON_Delete(r.inputs);
	cJSON_Delete(r.freeze);
	for (int k = 0; k < NBCOL; k++)
		free(r.map[k]);
	return rc;
}
