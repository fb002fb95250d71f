/* git.c: files with git provenance held to the blob at their commit. */
#define _GNU_SOURCE /* asprintf */
#include "bundle_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/io.h"
#include "../common/repo.h"
#include "../json/json.h"

/* 1 when path is dir or inside it (both resolved, dir without a
 * trailing '/' unless it is "/"). */
static int
inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/' || n == 1);
}

/* An item's repository: the one holding the folder its "repo" names,
 * which must be inside the spec's folder or the spec's own work tree.
 * *sub gets the folder's path inside the work tree ("" or "a/b/").  0, or
 * 1 after a finding. */
static int
git_open(struct ctx *c, const struct item *it, const char *repo_rel, struct repo **repo,
    char **sub)
{
	char *joined = NULL, *folder = NULL, *spec_dir = realpath(c->dir, NULL);
	struct repo *own = NULL;
	struct err ge = ERR_INIT;
	const char *w = NULL;
	int rc = 1;

	*repo = NULL;
	*sub = NULL;
	if (asprintf(&joined, "%s/%s", c->dir, repo_rel) >= 0)
		folder = realpath(joined, NULL);
	if (folder == NULL || spec_dir == NULL || repo_discover(folder, repo, &ge) < 0 ||
	    (w = repo_workdir(*repo)) == NULL)
		bundle_finding(c, "missing", it, it->path, 0,
		    "put the repository beside the spec, or name a folder of the spec's own work "
		    "tree (correct \"git\".\"repo\")", "git repository %s cannot be opened", repo_rel);
	else if (!inside(folder, spec_dir) &&
	    !(repo_discover(spec_dir, &own, &ge) == 0 && repo_workdir(own) != NULL &&
	        strcmp(repo_workdir(own), w) == 0 && inside(spec_dir, w)))
		bundle_finding(c, "missing", it, it->path, 0,
		    "name a folder inside the spec's folder or its work tree (correct \"git\".\"repo\")",
		    "git repository folder %s is outside the spec's folder and its work tree", repo_rel);
	else {
		/* w ends with '/', folder does not: "" at the top, else "a/b/" */
		size_t n = strlen(w);
		const char *rest = strlen(folder) < n ? "" : folder + n;
		if (asprintf(sub, "%s%s", rest, *rest ? "/" : "") >= 0)
			rc = 0;
	}
	if (rc != 0) {
		repo_free(*repo);
		*repo = NULL;
	}
	repo_free(own);
	free(joined);
	free(folder);
	free(spec_dir);
	return rc;
}

/* The file differs from its blob: stale, with git's count of the lines. */
static void
git_differs(struct ctx *c, const struct item *it, const struct buf *blob, const char *gpath,
    const char *commit)
{
	struct buf now = BUF_INIT;
	struct err ge = ERR_INIT;
	size_t add = 0, del = 0;
	char stat[96] = "";

	if (io_read_all(it->file->abs, &now, IO_MAX_DOCUMENT, &ge) == 0 &&
	    repo_diff_stat(blob->p ? blob->p : "", blob->len, now.p ? now.p : "", now.len, &add, &del,
	        &ge) == 0)
		snprintf(stat, sizeof stat, ": %zu line%s added, %zu removed", add, add == 1 ? "" : "s",
		    del);
	bundle_finding(c, "stale", it, it->path, 0,
	    "commit the file as it is and name the new commit, or restore the committed bytes; then "
	    "bundle again", "differs from %s at commit %.12s%s", gpath, commit, stat);
	buf_release(&now);
}

int
bundle_check_git(struct ctx *c)
{
	struct buf blob = BUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < c->n && rc == 0; i++) {
		struct item *it = &c->it[i];
		const char *repo_rel, *commit = NULL, *gpath;
		struct repo *repo = NULL;
		struct err ge = ERR_INIT;
		char *sub = NULL, *full = NULL, head[REPO_HEX_LEN + 1];
		uint8_t d[HASH_LEN];
		int r;

		if (it->git == NULL || it->file == NULL)
			continue;
		json_get_string(it->git, "repo", 1, &repo_rel, NULL);
		json_get_string(it->git, "commit", 0, &commit, NULL);
		json_get_string(it->git, "path", 1, &gpath, NULL);
		buf_reset(&blob);
		if (git_open(c, it, repo_rel, &repo, &sub) != 0)
			continue;
		if (commit == NULL) {
			if (repo_head(repo, head, &ge) < 0) {
				bundle_finding(c, "stale", it, it->path, 0, "commit to the repository, or name "
				    "\"git\".\"commit\"", "%s has no commit at HEAD", repo_rel);
				goto next;
			}
			commit = head;
		}
		if ((it->git_out = cJSON_Duplicate(it->git, 1)) != NULL) {
			cJSON_DeleteItemFromObjectCaseSensitive(it->git_out, "commit");
			json_add_string(it->git_out, "commit", commit);
		}
		if (asprintf(&full, "%s%s", sub, gpath) < 0)
			goto next;
		if ((r = repo_blob(repo, commit, full, &blob, &ge)) == REPO_NO_COMMIT)
			bundle_finding(c, "stale", it, it->path, 0,
			    "name a commit that exists in the repository (push or fetch it), and bundle again",
			    "commit %s does not exist in %s", commit, repo_rel);
		else if (r == REPO_NO_FILE)
			bundle_finding(c, "stale", it, it->path, 0,
			    "commit the file, or correct \"git\".\"path\", and bundle again",
			    "%s is not a file in commit %.12s", gpath, commit);
		else if (r == REPO_FOUND) {
			char gid[HASH_GIT_HEX + 1];
			hash_bytes(blob.p ? blob.p : "", blob.len, d);
			if (hash_cmp(d, it->file->sha) != 0)
				git_differs(c, it, &blob, gpath, commit);
			else if (it->git_out == NULL || hash_git_blob(blob.p, blob.len, gid) < 0)
				rc = err_set(c->e, ERR_NOMEM, "out of memory");
			else {
				cJSON_DeleteItemFromObjectCaseSensitive(it->git_out, "blob");
				json_add_string(it->git_out, "blob", gid);
			}
		}
next:
		repo_free(repo);
		free(sub);
		free(full);
	}
	buf_release(&blob);
	return rc;
}
