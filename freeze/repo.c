/* repo.c: the libgit2 adapter: a harness repository's HEAD and dirtiness. */
#include <string.h>

#include <git2.h>

#include "freeze.h"

static int
git_fail(const char *dir, struct err *e)
{
	const git_error *g = git_error_last();

	return err_set(e, ERR_INPUT, "%s: git: %s", dir, g && g->message ? g->message : "error");
}

int
freeze_repo_state(const char *dir, cJSON **out, struct err *e)
{
	git_repository *repo = NULL;
	git_status_list *st = NULL;
	git_status_options so;
	git_oid head;
	char hex[GIT_OID_HEXSZ + 1];
	int rc = -1;
	cJSON *o;

	*out = NULL;
	git_libgit2_init();
	git_status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);
	if (git_repository_open_ext(&repo, dir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) != 0 ||
	    git_reference_name_to_id(&head, repo, "HEAD") != 0) {
		git_fail(dir, e);
		goto done;
	}
	so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	so.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
	if (git_status_list_new(&st, repo, &so) != 0) {
		git_fail(dir, e);
		goto done;
	}
	git_oid_tostr(hex, sizeof hex, &head);
	o = cJSON_CreateObject();
	if (o == NULL || !cJSON_AddItemToObjectCS(o, "commit", cJSON_CreateString(hex)) ||
	    !cJSON_AddItemToObjectCS(o, "dirty", cJSON_CreateBool(git_status_list_entrycount(st) > 0))) {
		cJSON_Delete(o);
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	*out = o;
	rc = 0;
done:
	git_status_list_free(st);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return rc;
}
