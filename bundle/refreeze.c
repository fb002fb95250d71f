/* refreeze.c: a freeze made again from its ledgers and compared with
 * itself, and a freeze held to its store: the gate's check and the
 * archive verifier's. */
#include "bundle_int.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/map.h"
#include "../freeze/freeze.h"
#include "../json/json.h"
#include "../verify/verify.h"

/* Compare two freezes' "games" lists ({game_id, id}, sorted by game_id as
 * the freeze writes them) in one merge walk. */
static void
game_diff(const cJSON *old, const cJSON *now, long *changed, long *added, long *removed,
    const char **first)
{
	const cJSON *g = now ? now->child : NULL, *h = old ? old->child : NULL;

	while (g || h) {
		const cJSON *gid = g ? json_get(g, "game_id") : NULL, *hid = h ? json_get(h, "game_id") : NULL;
		int cmp;
		if ((g && !cJSON_IsString(gid)) || (h && !cJSON_IsString(hid)))
			return;
		cmp = !g ? 1 : !h ? -1 : strcmp(gid->valuestring, hid->valuestring);
		if (cmp < 0) {
			(*added)++;
			if (*first == NULL)
				*first = gid->valuestring;
			g = g->next;
		} else if (cmp > 0) {
			(*removed)++;
			if (*first == NULL)
				*first = hid->valuestring;
			h = h->next;
		} else {
			const cJSON *a = json_get(g, "id"), *b = json_get(h, "id");
			if (cJSON_IsString(a) && cJSON_IsString(b) && strcmp(a->valuestring, b->valuestring)) {
				(*changed)++;
				if (*first == NULL)
					*first = gid->valuestring;
			}
			g = g->next;
			h = h->next;
		}
	}
}

/* What an append to a freeze's ledgers may change without moving its
 * cut: a copy of doc without "repo", without its exclusions of games after
 * the cut and of live games (counted in *after and *live, the first live
 * one's game_id copied to first_live), totals.excluded counted down to
 * match. */
static cJSON *
freeze_core(const cJSON *doc, long *after, long *live, char first_live[64])
{
	cJSON *core = cJSON_Duplicate(doc, 1), *ex, *x, *next, *tot;
	long gone = 0;

	*after = *live = 0;
	if (core == NULL)
		return NULL;
	cJSON_DeleteItemFromObjectCaseSensitive(core, "repo");
	ex = cJSON_GetObjectItemCaseSensitive(core, "excluded");
	for (x = ex != NULL ? ex->child : NULL; x != NULL; x = next) {
		const cJSON *r = json_get(x, "reason");
		next = x->next;
		if (!cJSON_IsString(r))
			continue;
		if (strcmp(r->valuestring, "after_cut") == 0)
			(*after)++;
		else if (strcmp(r->valuestring, "live") == 0) {
			if ((*live)++ == 0 && first_live != NULL && cJSON_IsString(json_get(x, "game_id")))
				snprintf(first_live, 64, "%s", json_get(x, "game_id")->valuestring);
		} else
			continue;
		cJSON_Delete(cJSON_DetachItemViaPointer(ex, x));
		gone++;
	}
	tot = cJSON_GetObjectItemCaseSensitive(core, "totals");
	x = tot != NULL ? cJSON_GetObjectItemCaseSensitive(tot, "excluded") : NULL;
	if (cJSON_IsNumber(x))
		cJSON_SetNumberValue(x, x->valuedouble - (double)gone);
	return core;
}

/* 0 when old and again differ only by what an append adds (o counts it),
 * 1 when they differ otherwise, -1 with e set. */
static int
same_core(const cJSON *old, const cJSON *again, struct refreeze *o, struct err *e)
{
	long oa, ol;
	cJSON *a = freeze_core(old, &oa, &ol, NULL);
	cJSON *b = freeze_core(again, &o->after, &o->live, o->first_live);
	struct buf x = BUF_INIT, y = BUF_INIT;
	int rc = -1;

	if (a == NULL || b == NULL)
		err_set(e, ERR_NOMEM, "out of memory");
	else if (canon_write(a, &x, e) == 0 && canon_write(b, &y, e) == 0)
		rc = !(x.len == y.len && memcmp(x.p, y.p, x.len) == 0);
	o->after -= oa;
	o->live -= ol;
	cJSON_Delete(a);
	cJSON_Delete(b);
	buf_release(&x);
	buf_release(&y);
	return rc;
}

/* 1 when the file's bytes are p[0..n) (a freeze written as freeze writes
 * it), else 0. */
static int
file_is(const char *file, const char *p, size_t n)
{
	struct stat st;
	struct map m = MAP_INIT;
	struct err me = ERR_INIT;
	int fd = file != NULL ? open(file, O_RDONLY | O_NOFOLLOW) : -1, same = 0;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == n &&
	    n > 0 && map_fd(fd, file, n, &m, &me) == 0 && m.p != NULL)
		same = memcmp(m.p, p, n) == 0;
	if (fd >= 0)
		close(fd);
	map_release(&m);
	/* a file cut while compared is not the same */
	return same && map_check(&me) == 0;
}

int
bundle_refreeze(const cJSON *doc, int partial, const char *file, const char **ledgers, size_t nl,
    int jobs, struct refreeze *o, struct err *e)
{
	struct freeze_opts fo = { 0 };
	struct buf ab = BUF_INIT, ob = BUF_INIT;
	cJSON *old = NULL, *again = NULL, *full = NULL;
	const char *first = NULL;
	uint8_t dg[HASH_LEN];
	int rc = -1;

	memset(o, 0, sizeof *o);
	fo.spec = json_get(doc, "spec");
	fo.ledgers = ledgers;
	fo.nledgers = nl;
	fo.jobs = jobs;
	if (freeze_build(&fo, &ab, &o->why) < 0) {
		buf_release(&ab);
		if (o->why.code == ERR_NOMEM)
			return err_set(e, ERR_NOMEM, "%s", o->why.msg);
		return 2;
	}
	/* doc's file (parsed into doc) holding the bytes made again, with no
	 * "repo" to set aside: its canonical bytes are those, no copy of the
	 * tree written again needed */
	if (json_get(doc, "repo") == NULL && file_is(file, ab.p, ab.len)) {
		buf_release(&ab);
		return 0;
	}
	/* doc without its games (partial): the whole tree, from the file it
	 * was read from, to compare */
	if ((doc = bundle_doc_tree(file, doc, partial, &full, e)) == NULL)
		goto done;
	if ((old = cJSON_Duplicate(doc, 1)) == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(old, "repo");
	if (canon_write(old, &ob, e) < 0)
		goto done;
	rc = 0;
	if (ob.len == ab.len && memcmp(ob.p, ab.p, ab.len) == 0)
		goto done;
	rc = -1;
	if ((again = json_parse(ab.p, ab.len, "freeze", 1, e)) == NULL)
		goto done;
	if ((rc = same_core(old, again, o, e)) != 1)
		goto done;
	hash_bytes(ab.p, ab.len, dg);
	hash_id_format(dg, o->again);
	game_diff(json_get(old, "games"), json_get(again, "games"), &o->changed, &o->added,
	    &o->removed, &first);
	snprintf(o->first, sizeof o->first, "%s", first ? first : "");
	rc = 1;
done:
	cJSON_Delete(full);
	cJSON_Delete(old);
	cJSON_Delete(again);
	buf_release(&ob);
	buf_release(&ab);
	return rc;
}

int
bundle_freeze_fast(const char *file, const char *dir, int jobs, cJSON *checks, char id[HASH_ID_LEN + 1],
    struct err *e)
{
	struct stat st;
	struct map m = MAP_INIT;
	struct err me = ERR_INIT;
	int fd = open(file, O_RDONLY | O_NOFOLLOW), rc = 1;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 16 &&
	    map_fd(fd, file, (size_t)st.st_size, &m, &me) == 0 && m.p != NULL)
		rc = verify_freeze_fast(m.p, m.n, dir, jobs, checks, id, e);
	if (fd >= 0)
		close(fd);
	map_release(&m);
	if (rc >= 0 && map_check(e) < 0)
		return -1;
	return rc;
}

int
bundle_freeze_vs_store(const char *file, const cJSON *doc, int partial, const char *dir, int jobs,
    cJSON *checks, struct err *e)
{
	char id[HASH_ID_LEN + 1];
	int rc = bundle_freeze_fast(file, dir, jobs, checks, id, e);
	cJSON *own = NULL;

	if (rc == 1)
		rc = (doc = bundle_doc_tree(file, doc, partial, &own, e)) == NULL ? -1 :
		    verify_freeze(doc, dir, jobs, checks, e);
	cJSON_Delete(own);
	return rc;
}
