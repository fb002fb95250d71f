/* annotate_check github|sarif|gitlab FILE: a refusal document's findings
 * in a CI form, for the tests to feed findings no bundle makes (GitHub's
 * escapes). */
#include <stdio.h>
#include <string.h>

#include "../../bundle/annotate.h"
#include "../../json/json.h"

int
main(int argc, char **argv)
{
	struct err e = ERR_INIT;
	struct buf b = BUF_INIT;
	cJSON *doc = argc == 3 ? json_parse_file(argv[2], &e) : NULL, *x = NULL;

	if (doc == NULL)
		return 2;
	if (strcmp(argv[1], "github") == 0 && annotate_github(doc, "", &b) == 0)
		fputs(b.p ? b.p : "", stdout);
	else if ((x = strcmp(argv[1], "sarif") == 0 ? annotate_sarif(doc, "", "0") :
	          annotate_gitlab(doc, "")) != NULL)
		json_emit(x, NULL, &e);
	cJSON_Delete(x);
	cJSON_Delete(doc);
	buf_release(&b);
	return 0;
}
