/* verify_secret.c: the gate's credential scan run again on every payload
 * file of an archive. */
#define _GNU_SOURCE /* asprintf */
#include "bundle_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/map.h"
#include "../secret/secret.h"

/* The gate's credential scan run again on the payload: its built-in
 * rules with the options it scans with by default, each file named by its
 * path under data/ (the path the gate scanned it as, which the rules' path
 * filters and allowlists see).  Every payload file is scanned, the bundle
 * document and the page included: a credential in the bag is a finding
 * whoever put it there. */
struct vscan {
	cJSON *checks;
	const char *path; /* the file's path under data/ */
};

static int
on_bag_secret(void *p, const struct secret_hit *h)
{
	struct vscan *s = p;
	char where[BAG_MAX_NAME + 32];

	if (h->more > 0) {
		bag_check_add(s->checks, "secret", s->path, 0,
		    "%s: %ld more credentials of this rule in this file, not listed", h->rule,
		    h->more);
		return 0;
	}
	snprintf(where, sizeof where, "%s:%ld", s->path, h->line);
	bag_check_add(s->checks, "secret", where, 0, "%s: a credential (%s) is in this file%s%s%s",
	    h->rule, h->masked, h->where[0] ? " (" : "", h->where, h->where[0] ? ")" : "");
	return 0;
}

/* One payload file mapped and scanned: its hits, or -1 with e set when
 * memory ran out.  A file the scan cannot read (a corrupt stream or
 * database, a file cut while it was read) is a finding: a scan that did
 * not run is no pass. */
static long
vscan_file(struct vctx *vc, const struct secret_rules *rules, const char *name)
{
	struct secret_opts so = { SECRET_CAP, 2, 0 };
	struct vscan s = { vc->checks, name + 5 };
	struct map m = MAP_INIT;
	struct err se = ERR_INIT;
	struct stat st;
	char *full;
	long r = -1;
	int fd;

	if (asprintf(&full, "%s/%s", bag_root(vc->b), name) < 0)
		return err_set(vc->e, ERR_NOMEM, "out of memory");
	if ((fd = open(full, O_RDONLY | O_NOFOLLOW)) < 0)
		err_set(&se, ERR_IO, "cannot open: %s", strerror(errno));
	else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		err_set(&se, ERR_IO, "not a regular file");
	else if (st.st_size == 0 || map_fd(fd, s.path, (size_t)st.st_size, &m, &se) == 0)
		r = secret_scan(rules, &so, s.path, m.p ? m.p : "", m.n, on_bag_secret, &s, &se);
	if (fd >= 0)
		close(fd);
	map_release(&m);
	free(full);
	if (r >= 0 && map_check(&se) < 0)
		r = -1;
	if (r < 0 && se.code == ERR_NOMEM)
		return err_set(vc->e, ERR_NOMEM, "%s", se.msg);
	if (r < 0)
		return !bag_check_add(vc->checks, "secret", s.path, 0,
		    "cannot be scanned for credentials: %s", se.msg);
	return r;
}

int
bundle_vsecrets(struct vctx *vc)
{
	size_t n = bag_payload_count(vc->b);
	int findings = 0;
	long r = 0;

	for (size_t i = 0; i < n && r >= 0; i++)
		if ((r = vscan_file(vc, vc->rules, bag_payload_name(vc->b, i))) > 0)
			findings++;
	if (r >= 0 && findings == 0)
		bag_check_add(vc->checks, "secret", vc->bdoc, 1,
		    "the gate's %zu credential rules find nothing in the %zu payload files",
		    secret_rules_count(vc->rules), n);
	return r < 0 ? -1 : findings;
}
