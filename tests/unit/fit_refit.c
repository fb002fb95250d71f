/* fit_refit.c: the library entry points the bundle and verify stages call:
 * fit_document with recorded options, and fit_refit_check.
 * usage: fit_refit INPUT OUT: writes fit_document(INPUT, {"level":0.9,
 * "black_penalty":0,"sensitivity":[0,10]}) to OUT; prints ok/not ok lines. */
#include <stdio.h>
#include <string.h>

#include "../../fit/fit.h"
#include "../../json/json.h"

static int failures;

static void
check(int good, const char *name, const struct err *e)
{
	if (good) {
		printf("ok %s\n", name);
	} else {
		failures++;
		printf("not ok %s: %s\n", name, e && e->msg[0] ? e->msg : "");
	}
}

int
main(int argc, char **argv)
{
	struct err e = ERR_INIT;
	cJSON *in, *fit = NULL, *opts, *fit2 = NULL;
	int same = -1;
	static const char ot[] = "{\"level\":0.9,\"black_penalty\":0,\"sensitivity\":[0,10]}";

	if (argc != 3)
		return 2;
	in = json_parse_file(argv[1], &e);
	check(in != NULL, "read input", &e);
	if (in == NULL)
		return 1;
	check(fit_document(in, NULL, &fit, &e) == 0, "fit_document with default options", &e);
	check(fit != NULL && fit_refit_check(fit, in, NULL, &same, &e) == 0 && same == 1,
	      "refit of an honest fit gives the same bytes", &e);
	/* The input's identity, when the caller has it, is taken as given:
	 * the right one changes nothing, another one is the fit's "input". */
	char id[HASH_ID_LEN + 1];
	check(canon_id(in, id, &e) == 0 && fit_refit_check(fit, in, id, &same, &e) == 0 && same == 1,
	      "refit with the input's identity given gives the same bytes", &e);
	id[HASH_ID_LEN - 1] = id[HASH_ID_LEN - 1] == '0' ? '1' : '0';
	check(fit_refit_check(fit, in, id, &same, &e) == 0 && same == 0,
	      "refit with another identity given differs (the identity is used, not computed)", &e);

	/* Tamper with one reported number: the refit must notice. */
	cJSON *draw = cJSON_GetObjectItemCaseSensitive(fit, "draw");
	cJSON *nu = cJSON_GetObjectItemCaseSensitive(draw, "nu");
	cJSON_SetNumberValue(nu, nu->valuedouble + 1e-6);
	check(fit_refit_check(fit, in, NULL, &same, &e) == 0 && same == 0, "a tampered nu is caught", &e);

	opts = json_parse(ot, strlen(ot), "options", 1, &e);
	check(opts && fit_document(in, opts, &fit2, &e) == 0 && json_emit(fit2, argv[2], &e) == 0,
	      "fit_document with recorded options", &e);
	check(fit2 && fit_refit_check(fit2, in, NULL, &same, &e) == 0 && same == 1,
	      "refit uses the options the fit document records", &e);

	cJSON *bad = json_parse("{\"level\":2}", 11, "options", 1, &e);
	cJSON *out = NULL;
	check(fit_document(in, bad, &out, &e) < 0 && e.code == ERR_INPUT && out == NULL,
	      "fit_document refuses a level outside (0,1)", NULL);
	cJSON_Delete(bad);
	cJSON_Delete(opts);
	cJSON_Delete(fit);
	cJSON_Delete(fit2);
	cJSON_Delete(in);
	return failures ? 1 : 0;
}
