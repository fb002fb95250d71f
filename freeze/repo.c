/* repo.c: a freeze's "repo": the harness repository's HEAD and whether its
 * work tree is dirty (common/repo.h reads them). */
#include "../common/repo.h"
#include "freeze.h"

int
freeze_repo_state(const char *dir, cJSON **out, struct err *e)
{
	struct repo *r = NULL;
	char hex[REPO_HEX_LEN + 1];
	int dirty = -1;
	cJSON *o;

	*out = NULL;
	if (repo_open(dir, &r, e) < 0 || repo_head(r, hex, e) < 0 || (dirty = repo_dirty(r, e)) < 0) {
		repo_free(r);
		return -1;
	}
	repo_free(r);
	o = cJSON_CreateObject();
	if (o == NULL || !cJSON_AddItemToObjectCS(o, "commit", cJSON_CreateString(hex)) ||
	    !cJSON_AddItemToObjectCS(o, "dirty", cJSON_CreateBool(dirty))) {
		cJSON_Delete(o);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	*out = o;
	return 0;
}
