/* repo.c: the libgit2 adapter (see repo.h). */
#include "repo.h"

#include <stdlib.h>
#include <string.h>

#include <git2.h>

struct repo {
	git_repository *g;
	char *dir; /* for messages */
};

/* libgit2's last error, as ours. */
static int
repo_fail(const char *dir, struct err *e)
{
	const git_error *g = git_error_last();

	return err_set(e, ERR_INPUT, "%s: git: %s", dir, g && g->message ? g->message : "error");
}

static int
open_flags(const char *dir, unsigned flags, struct repo **out, struct err *e)
{
	struct repo *r = calloc(1, sizeof *r);

	*out = NULL;
	if (r == NULL || (r->dir = strdup(dir)) == NULL) {
		free(r);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	git_libgit2_init();
	if (git_repository_open_ext(&r->g, dir, flags, NULL) != 0) {
		repo_fail(dir, e);
		repo_free(r);
		return -1;
	}
	*out = r;
	return 0;
}

int
repo_open(const char *dir, struct repo **out, struct err *e)
{
	return open_flags(dir, GIT_REPOSITORY_OPEN_NO_SEARCH, out, e);
}

int
repo_discover(const char *dir, struct repo **out, struct err *e)
{
	return open_flags(dir, 0, out, e);
}

const char *
repo_workdir(const struct repo *r)
{
	return git_repository_workdir(r->g);
}

int
repo_diff_stat(const void *a, size_t na, const void *b, size_t nb, size_t *added,
    size_t *removed, struct err *e)
{
	git_patch *p = NULL;
	size_t ctx = 0;

	git_libgit2_init();
	if (git_patch_from_buffers(&p, a, na, NULL, b, nb, NULL, NULL) != 0 ||
	    git_patch_line_stats(&ctx, added, removed, p) != 0) {
		git_patch_free(p);
		git_libgit2_shutdown();
		return repo_fail("diff", e);
	}
	git_patch_free(p);
	git_libgit2_shutdown();
	return 0;
}

void
repo_free(struct repo *r)
{
	if (r == NULL)
		return;
	git_repository_free(r->g);
	free(r->dir);
	free(r);
	git_libgit2_shutdown();
}

int
repo_head(struct repo *r, char hex[REPO_HEX_LEN + 1], struct err *e)
{
	git_oid head;

	if (git_reference_name_to_id(&head, r->g, "HEAD") != 0)
		return repo_fail(r->dir, e);
	git_oid_tostr(hex, REPO_HEX_LEN + 1, &head);
	return 0;
}

int
repo_dirty(struct repo *r, struct err *e)
{
	git_status_list *st = NULL;
	git_status_options so;
	int dirty;

	git_status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);
	so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	so.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
	if (git_status_list_new(&st, r->g, &so) != 0)
		return repo_fail(r->dir, e);
	dirty = git_status_list_entrycount(st) > 0;
	git_status_list_free(st);
	return dirty;
}

int
repo_blob(struct repo *r, const char *commit, const char *path, struct buf *out, struct err *e)
{
	git_commit *cm = NULL;
	git_tree *tree = NULL;
	git_tree_entry *te = NULL;
	git_blob *blob = NULL;
	git_oid oid;
	int rc;

	if (git_oid_fromstr(&oid, commit) != 0 || git_commit_lookup(&cm, r->g, &oid) != 0)
		rc = REPO_NO_COMMIT;
	else if (git_commit_tree(&tree, cm) != 0 || git_tree_entry_bypath(&te, tree, path) != 0 ||
	    git_tree_entry_type(te) != GIT_OBJECT_BLOB ||
	    git_blob_lookup(&blob, r->g, git_tree_entry_id(te)) != 0)
		rc = REPO_NO_FILE;
	else if (buf_add(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob)) < 0)
		rc = err_set(e, ERR_NOMEM, "out of memory");
	else
		rc = REPO_FOUND;
	git_blob_free(blob);
	git_tree_entry_free(te);
	git_tree_free(tree);
	git_commit_free(cm);
	return rc;
}
