/* repo.h: git repositories, through the one adapter for libgit2.
 *
 * A repository is opened where it is (no search upward); its HEAD, whether
 * its work tree is dirty, and a file's bytes at a commit are read from it.
 * Only common/repo.c includes <git2.h>: libgit2's errors (git_error_last)
 * become our struct err, "DIR: git: what libgit2 says".
 *
 * Ownership: repo_open gives a repository the caller frees with repo_free
 * (NULL-safe); bytes go into the caller's buffers.
 */
#ifndef COHORT_REPO_H
#define COHORT_REPO_H

#include "buf.h"
#include "err.h"

#define REPO_HEX_LEN 40 /* a commit's id in hex */

struct repo;

/* Open the repository at dir (its work tree, or a bare one).  0, or -1
 * with e set. */
int repo_open(const char *dir, struct repo **out, struct err *e);
void repo_free(struct repo *r);

/* The repository that holds dir: dir itself, or the nearest folder above
 * it that is one (as git finds it).  0, or -1 with e set. */
int repo_discover(const char *dir, struct repo **out, struct err *e);

/* The repository's work tree, with a trailing '/', or NULL for a bare one. */
const char *repo_workdir(const struct repo *r);

/* How b differs from a, line by line, as git counts it: lines added and
 * removed.  0, or -1 with e set. */
int repo_diff_stat(const void *a, size_t na, const void *b, size_t nb, size_t *added,
    size_t *removed, struct err *e);

/* HEAD's commit, 40 lowercase hex digits.  0, or -1 with e set. */
int repo_head(struct repo *r, char hex[REPO_HEX_LEN + 1], struct err *e);

/* Whether the index or the work tree differs from HEAD, untracked files
 * included: 1 dirty, 0 clean, -1 with e set. */
int repo_dirty(struct repo *r, struct err *e);

/* What repo_blob found. */
enum { REPO_FOUND = 0, REPO_NO_COMMIT = 1, REPO_NO_FILE = 2 };

/* The bytes of the file at path in commit (hex), appended to out:
 * REPO_FOUND; REPO_NO_COMMIT when the repository does not hold that
 * commit; REPO_NO_FILE when path is not a file in it; -1 with e set when
 * out of memory. */
int repo_blob(struct repo *r, const char *commit, const char *path, struct buf *out, struct err *e);

#endif
