/* bundle_bag.c: validate bags (folders or archives) and print, for each,
 * "PATH: ok", "PATH: findings" with the failing checks, or "PATH: error: MSG";
 * exit 0 all hold, 1 a finding, 2 an error (the worst of all). */
#include <stdio.h>

#include "../../bagit/bag.h"

int
main(int argc, char **argv)
{
	int worst = 0;

	for (int i = 1; i < argc; i++) {
		struct err e = ERR_INIT;
		struct bag *b = NULL;
		cJSON *checks = cJSON_CreateArray(), *c;
		int r = bag_open(argv[i], &b, &e);

		if (r == 0)
			r = bag_check(b, checks, &e);
		if (r < 0) {
			printf("%s: error: %s\n", argv[i], e.msg);
			worst = 2;
		} else if (r > 0) {
			printf("%s: findings\n", argv[i]);
			cJSON_ArrayForEach(c, checks)
				if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(c, "ok")))
					printf("  %s %s: %s\n",
					    cJSON_GetObjectItemCaseSensitive(c, "check")->valuestring,
					    cJSON_GetObjectItemCaseSensitive(c, "subject")->valuestring,
					    cJSON_GetObjectItemCaseSensitive(c, "detail")->valuestring);
			if (worst < 1)
				worst = 1;
		} else {
			printf("%s: ok\n", argv[i]);
		}
		cJSON_Delete(checks);
		bag_free(b);
	}
	return worst;
}
