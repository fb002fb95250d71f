/* cleanup.h: temporary folders removed on every exit path, an
 * interrupting signal (SIGINT, SIGTERM, SIGHUP) included.
 *
 * cleanup_start, called once by a command's shell before any thread is
 * started, blocks those signals in the calling thread (every thread started
 * after inherits the mask; engines are spawned with an empty one) and
 * starts one thread that waits for them with sigwait(2).  No handler ever
 * runs in signal context.  When a signal comes, that thread takes the
 * registry's lock, so that no folder is being filled under it, removes
 * every registered folder, and ends the process by the same signal (its
 * default action), so that a shell sees the signal.  A signal ignored when
 * the program started (nohup, a background job) stays ignored.  Without
 * cleanup_start (a library caller that does not want it) signals keep
 * their actions and only the normal paths remove the folders.
 *
 * The registry (the folders' paths, and the lock) is global, as is the
 * table of guarded mappings (map.h), and for the same reason; there is no
 * other global state besides what libraries keep: a signal is
 * delivered to the process, not to a context, so the thread that takes it
 * can only find the folders there.
 *
 * Ownership: cleanup_mkdtemp's path is the caller's (free) and stays
 * registered until cleanup_remove.
 */
#ifndef COHORT_CLEANUP_H
#define COHORT_CLEANUP_H

#include "err.h"

/* At most this many folders registered at once. */
#define CLEANUP_MAX 8

/* Block the signals and start the thread that waits for them; 0, or -1
 * with e set (the signals are then as they were).  Once per process. */
int cleanup_start(struct err *e);

/* A new folder $TMPDIR/cohort-NAME.XXXXXX (/tmp without TMPDIR), mode
 * 0700, registered; 0, or -1 with e set. */
int cleanup_mkdtemp(const char *name, char **path, struct err *e);

/* Remove the folder and everything in it (links are removed, never
 * followed) and forget it.  NULL does nothing. */
void cleanup_remove(const char *path);

/* Held while creating files or folders in a registered folder, so that a
 * signal's removal never races a creation. */
void cleanup_lock(void);
void cleanup_unlock(void);

/* Remove a folder tree (links removed, never followed); 0, or -1 with
 * errno set when something could not be removed. */
int cleanup_rm_tree(const char *path);

#endif
