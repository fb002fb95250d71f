/* fp_ranges.c PREREG STORE FREEZE: the fingerprint computed in replicate
 * ranges [0, a), [a, b), [b, R), their rows put together in order and
 * summarized once, gives the bytes of the one-step document: what a run
 * cut into shards relies on.  Prints the two identities; exit 0 when
 * they are the same. */
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "../../common/buf.h"
#include "../../fingerprint/fp.h"
#include "../../json/json.h"
#include "../../protocol/prereg.h"

static int
fail(const struct err *e)
{
	fprintf(stderr, "fp_ranges: %s\n", e->msg);
	return 2;
}

int
main(int argc, char **argv)
{
	struct prereg pr = PREREG_INIT;
	struct err e = ERR_INIT;
	struct fp_opts o;
	struct fp_run *r;
	cJSON *fz, *whole, *part[3] = { NULL };
	char a[HASH_ID_LEN + 1], b[HASH_ID_LEN + 1];

	gsl_set_error_handler_off();
	if (argc != 4)
		return fprintf(stderr, "usage: fp_ranges PREREG STORE FREEZE\n"), 2;
	if (prereg_read(argv[1], &pr, &e) < 0 || (fz = json_parse_file(argv[3], &e)) == NULL)
		return fail(&e);
	struct fp_input in = { fz, argv[2], argv[3], NULL, NULL };
	fp_opts_init(&o);
	o.pr = &pr;
	o.jobs = 2;
	if (fp_document(&in, 1, &o, &whole, &e) < 0 || fp_run_new(&in, 1, &o, &r, &e) < 0)
		return fail(&e);
	long R = fp_run_replicates(r), cut[4] = { 0, R / 3, R / 3 + 1, R };
	for (int i = 0; i < 3; i++)
		if (fp_run_document(r, cut[i], cut[i + 1], &part[i], &e) < 0)
			return fail(&e);
	/* the rows of parts 1 and 2 after part 0's, fingerprint by fingerprint */
	cJSON *f0 = json_get(part[0], "fingerprints")->child;
	for (int i = 1; i < 3; i++) {
		cJSON *fi = json_get(part[i], "fingerprints")->child;
		for (cJSON *x = f0; x != NULL && fi != NULL; x = x->next, fi = fi->next) {
			cJSON *to = (cJSON *)json_get(json_get(x, "replicates"), "rows");
			cJSON *from = (cJSON *)json_get(json_get(fi, "replicates"), "rows"), *row;
			while ((row = cJSON_DetachItemFromArray(from, 0)) != NULL)
				cJSON_AddItemToArray(to, row);
		}
	}
	if (fp_summarize(part[0], &e) < 0 || canon_id(whole, a, &e) < 0 || canon_id(part[0], b, &e) < 0)
		return fail(&e);
	printf("%s\n%s\n", a, b);
	for (int i = 0; i < 3; i++)
		cJSON_Delete(part[i]);
	cJSON_Delete(whole);
	cJSON_Delete(fz);
	fp_run_free(r);
	prereg_release(&pr);
	return strcmp(a, b) == 0 ? 0 : 1;
}
