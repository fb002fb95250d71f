/* bag.c: BagIt bags: the deterministic writer (libarchive, pax tar) and
 * the validator of folders and archives that trusts nothing it reads. */
#define _GNU_SOURCE /* asprintf */
#include "bag.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "../common/buf.h"
#include "../common/cleanup.h"
#include "../common/io.h"
#include "../common/ring.h"

/* The digests a manifest may use, in the order of their index. */
static const char *const ALGS[] = { "md5", "sha1", "sha224", "sha256", "sha384", "sha512" };
#define NALGS 6
#define ALG_SHA256 3

static int
alg_index(const char *name)
{
	for (int i = 0; i < NALGS; i++)
		if (strcmp(name, ALGS[i]) == 0)
			return i;
	return -1;
}

int
bag_check_add(cJSON *checks, const char *check, const char *subject, int ok, const char *fmt, ...)
{
	char detail[1024];
	va_list ap;
	cJSON *c = cJSON_CreateObject();

	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	if (c == NULL)
		return ok;
	cJSON_AddStringToObject(c, "check", check);
	cJSON_AddStringToObject(c, "subject", subject);
	cJSON_AddBoolToObject(c, "ok", ok);
	cJSON_AddStringToObject(c, "detail", detail);
	cJSON_AddItemToArray(checks, c);
	return ok;
}

/* ---------------------------------------------------------------- writer */

/* The archive's own digest is taken on a second thread (common/ring.h):
 * the writer copies each block into a small ring and goes on while the
 * hasher catches up. */
static int
hash_take(void *h, const void *p, size_t n)
{
	return hash_update(h, p, n);
}

struct wout {
	int fd;
	struct ring *ring;  /* the hasher of the archive's bytes */
	int err;            /* errno of a failed write */
	uint64_t written;   /* bytes so far */
	uint64_t flushed;   /* bytes whose write-back has been started */
};

static la_ssize_t
wout_write(struct archive *a, void *p, const void *buf, size_t n)
{
	struct wout *w = p;
	const char *q = buf;
	size_t left = n;

	while (left > 0) {
		ssize_t k = write(w->fd, q, left);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			w->err = errno ? errno : EIO;
			archive_set_error(a, w->err, "write error");
			return -1;
		}
		q += k;
		left -= (size_t)k;
	}
	/* the archive is closed before its digest is taken: nothing after */
	if (w->ring == NULL || ring_put(w->ring, buf, n) < 0) {
		w->err = EIO;
		archive_set_error(a, w->err, "write after the archive's digest was taken");
		return -1;
	}
	w->written += n;
	/* start write-back early, so the fsync at the end has little left to
	 * wait for (a pipe refuses; that is fine) */
	if (w->written - w->flushed >= ((uint64_t)8 << 20)) {
		sync_file_range(w->fd, (off_t)w->flushed, (off_t)(w->written - w->flushed),
		    SYNC_FILE_RANGE_WRITE);
		w->flushed = w->written;
	}
	return (la_ssize_t)n;
}

/* One entry of the archive being written. */
struct went {
	char *path;   /* full name inside the archive */
	int dir;      /* a folder */
	const char *mem;
	const char *src;
	uint64_t size;
};

static int
went_cmp(const void *a, const void *b)
{
	return strcmp(((const struct went *)a)->path, ((const struct went *)b)->path);
}

/* Percent-encode what a manifest line cannot hold (RFC 8493 2.1.3). */
static int
manifest_name(struct buf *b, const char *name)
{
	for (const char *p = name; *p; p++) {
		int r = *p == '%' ? buf_adds(b, "%25") : *p == '\n' ? buf_adds(b, "%0A") :
		    *p == '\r' ? buf_adds(b, "%0D") : buf_addc(b, *p);
		if (r < 0)
			return -1;
	}
	return 0;
}

static int
add_went(struct went **v, size_t *n, size_t *cap, const char *path, int dir, const char *mem,
    const char *src, uint64_t size)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		struct went *nv = realloc(*v, nc * sizeof *nv);
		if (nv == NULL)
			return -1;
		*v = nv;
		*cap = nc;
	}
	(*v)[*n].path = strdup(path);
	if ((*v)[*n].path == NULL)
		return -1;
	(*v)[*n].dir = dir;
	(*v)[*n].mem = mem;
	(*v)[*n].src = src;
	(*v)[*n].size = size;
	(*n)++;
	return 0;
}

static int
write_data(struct archive *a, const struct went *w, struct err *e)
{
	static const size_t chunk = 1 << 20;
	char *b;
	uint64_t total = 0;
	ssize_t k;
	int fd;

	if (w->mem != NULL) {
		if (w->size > 0 && archive_write_data(a, w->mem, w->size) != (la_ssize_t)w->size)
			return err_set(e, ERR_IO, "%s", archive_error_string(a));
		return 0;
	}
	fd = open(w->src, O_RDONLY | O_NOFOLLOW);
	if (fd < 0)
		return err_set(e, ERR_IO, "%s: cannot open: %s", w->src, strerror(errno));
	b = malloc(chunk);
	if (b == NULL) {
		close(fd);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	while ((k = read(fd, b, chunk)) > 0) {
		total += (uint64_t)k;
		if (total > w->size)
			break;
		if (archive_write_data(a, b, (size_t)k) != k) {
			free(b);
			close(fd);
			return err_set(e, ERR_IO, "%s", archive_error_string(a));
		}
	}
	free(b);
	close(fd);
	if (k < 0)
		return err_set(e, ERR_IO, "%s: read error: %s", w->src, strerror(errno));
	if (total != w->size)
		return err_set(e, ERR_INPUT, "%s: changed while it was being bundled", w->src);
	return 0;
}

/* A bag being written: its payload by name, its tag files, and every
 * entry of its archive. */
struct bagw {
	const struct bag_write_opts *o;
	struct bag_file **sorted;  /* the payload, sorted by name */
	size_t n;
	struct buf manifest;       /* manifest-sha256.txt */
	struct buf info;           /* bag-info.txt */
	struct buf tagm;           /* tagmanifest-sha256.txt */
	struct went *v;            /* every entry, folders included, sorted by name */
	size_t nv, cv;
};

static const char bagit_txt[] = "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n";

static void
bagw_release(struct bagw *b)
{
	for (size_t i = 0; i < b->nv; i++)
		free(b->v[i].path);
	free(b->v);
	free(b->sorted);
	buf_release(&b->manifest);
	buf_release(&b->info);
	buf_release(&b->tagm);
}

/* The payload manifest, sorted by name (a name given twice refused), and
 * bag-info.txt with the payload's size. */
static int
bagw_payload(struct bagw *b, struct bag_file *files, struct err *e)
{
	const struct bag_write_opts *o = b->o;
	uint64_t bytes = 0;
	char hex[2 * HASH_LEN + 1];

	b->sorted = malloc((b->n ? b->n : 1) * sizeof *b->sorted);
	if (b->sorted == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < b->n; i++)
		b->sorted[i] = &files[i];
	for (size_t i = 1; i < b->n; i++) /* insertion sort keeps it simple; n is small */
		for (size_t j = i; j > 0 && strcmp(b->sorted[j - 1]->name, b->sorted[j]->name) > 0;
		     j--) {
			struct bag_file *t = b->sorted[j];
			b->sorted[j] = b->sorted[j - 1];
			b->sorted[j - 1] = t;
		}
	for (size_t i = 0; i < b->n; i++) {
		const struct bag_file *f = b->sorted[i];
		if (i > 0 && strcmp(b->sorted[i - 1]->name, f->name) == 0)
			return err_set(e, ERR_INPUT, "\"%s\": named twice in the bag", f->name);
		hash_hex_format(f->sha256, hex);
		if (buf_printf(&b->manifest, "%s  data/", hex) < 0 ||
		    manifest_name(&b->manifest, f->name) < 0 || buf_addc(&b->manifest, '\n') < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		bytes += f->size;
	}
	if (buf_printf(&b->info,
	        "Bag-Software-Agent: %s\nBagging-Date: %s\n%sPayload-Oxum: %llu.%zu\n",
	        o->agent ? o->agent : "cohort", o->date, o->info ? o->info : "", (unsigned long long)bytes, b->n) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	return 0;
}

/* The tag manifest: bag-info.txt, bagit.txt, manifest-sha256.txt (sorted). */
static int
bagw_tags(struct bagw *b, struct err *e)
{
	const struct { const char *name, *p; size_t n; } tags[] = {
		{ "bag-info.txt", b->info.p, b->info.len },
		{ "bagit.txt", bagit_txt, sizeof bagit_txt - 1 },
		{ "manifest-sha256.txt", b->manifest.p ? b->manifest.p : "", b->manifest.len },
	};
	char hex[2 * HASH_LEN + 1];
	uint8_t d[HASH_LEN];

	for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
		hash_bytes(tags[i].p, tags[i].n, d);
		hash_hex_format(d, hex);
		if (buf_printf(&b->tagm, "%s  %s\n", hex, tags[i].name) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
	}
	return 0;
}

/* Every entry of the archive, folders included, then sorted by name. */
static int
bagw_entries(struct bagw *b, struct err *e)
{
	const char *top = b->o->top;
	struct buf full = BUF_INIT;
	int rc = -1;

#define FULL(...) (buf_reset(&full), buf_printf(&full, __VA_ARGS__))
#define ADD(dir, mem, src, size) add_went(&b->v, &b->nv, &b->cv, full.p, dir, mem, src, size)
	if (FULL("%s", top) < 0 || ADD(1, NULL, NULL, 0) < 0 ||
	    FULL("%s/data", top) < 0 || ADD(1, NULL, NULL, 0) < 0 ||
	    FULL("%s/bagit.txt", top) < 0 || ADD(0, bagit_txt, NULL, sizeof bagit_txt - 1) < 0 ||
	    FULL("%s/bag-info.txt", top) < 0 || ADD(0, b->info.p, NULL, b->info.len) < 0 ||
	    FULL("%s/manifest-sha256.txt", top) < 0 ||
	    ADD(0, b->manifest.p ? b->manifest.p : "", NULL, b->manifest.len) < 0 ||
	    FULL("%s/tagmanifest-sha256.txt", top) < 0 ||
	    ADD(0, b->tagm.p, NULL, b->tagm.len) < 0)
		goto done;
	for (size_t i = 0; i < b->n; i++) {
		const struct bag_file *f = b->sorted[i];
		if (FULL("%s/data/%s", top, f->name) < 0 ||
		    ADD(0, f->src ? NULL : (f->mem ? f->mem : ""), f->src, f->size) < 0)
			goto done;
		/* the folders above it */
		for (char *s = strchr(full.p + strlen(top) + 6, '/'); s; s = strchr(s + 1, '/')) {
			*s = '\0';
			int seen = 0;
			for (size_t j = b->nv; j-- > 0 && !seen;)
				seen = b->v[j].dir && strcmp(b->v[j].path, full.p) == 0;
			if (!seen && ADD(1, NULL, NULL, 0) < 0)
				goto done;
			*s = '/';
		}
	}
#undef ADD
#undef FULL
	qsort(b->v, b->nv, sizeof *b->v, went_cmp);
	rc = 0;
done:
	buf_release(&full);
	return rc < 0 ? err_set(e, ERR_NOMEM, "out of memory") : 0;
}

/* A pax archive writing to w, compressed as o says. */
static struct archive *
archive_start(const struct bag_write_opts *o, struct wout *w, const char *path, struct err *e)
{
	struct archive *a = archive_write_new();

	if (a == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    archive_write_set_bytes_per_block(a, 1 << 20) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    (o->compress == BAG_GZIP &&
	        (archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	            archive_write_set_filter_option(a, "gzip", "timestamp", NULL) != ARCHIVE_OK)) ||
	    (o->compress == BAG_ZSTD && archive_write_add_filter_zstd(a) != ARCHIVE_OK) ||
	    archive_write_open2(a, w, NULL, wout_write, NULL, NULL) != ARCHIVE_OK) {
		err_set(e, ERR_IO, "%s: %s", io_name(path), archive_error_string(a));
		archive_write_free(a);
		return NULL;
	}
	return a;
}

/* Every entry with its fixed metadata and its bytes, then the archive's end. */
static int
archive_put(struct archive *a, const struct bagw *b, const char *path, struct err *e)
{
	for (size_t i = 0; i < b->nv; i++) {
		const struct went *v = &b->v[i];
		struct archive_entry *ae = archive_entry_new();
		if (ae == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		archive_entry_set_pathname(ae, v->path);
		archive_entry_set_filetype(ae, v->dir ? AE_IFDIR : AE_IFREG);
		archive_entry_set_perm(ae, v->dir ? 0755 : 0644);
		archive_entry_set_size(ae, v->dir ? 0 : (la_int64_t)v->size);
		archive_entry_set_mtime(ae, (time_t)b->o->mtime, 0);
		archive_entry_set_uid(ae, 0);
		archive_entry_set_gid(ae, 0);
		if (archive_write_header(a, ae) != ARCHIVE_OK) {
			err_set(e, ERR_IO, "%s: %s", io_name(path), archive_error_string(a));
			archive_entry_free(ae);
			return -1;
		}
		archive_entry_free(ae);
		if (!v->dir && write_data(a, v, e) < 0)
			return -1;
	}
	if (archive_write_close(a) != ARCHIVE_OK)
		return err_set(e, ERR_IO, "%s: %s", io_name(path), archive_error_string(a));
	return 0;
}

int
bag_write(const struct bag_write_opts *o, struct bag_file *files, size_t n, const char *path,
    uint8_t id[HASH_LEN], struct err *e)
{
	struct bagw b = { o, NULL, n, BUF_INIT, BUF_INIT, BUF_INIT, NULL, 0, 0 };
	struct outfile out = OUTFILE_INIT;
	struct wout w = { -1, NULL, 0, 0, 0 };
	struct hash *h = hash_new();
	struct archive *a = NULL;
	int rc = -1;

	if (bagw_payload(&b, files, e) < 0 || bagw_tags(&b, e) < 0 || bagw_entries(&b, e) < 0 ||
	    outfile_open(&out, path, e) < 0) {
		bagw_release(&b);
		return -1;
	}
	/* the archive's digest taken by the hasher as the archive is written */
	w.fd = fileno(out.fp);
	if (h == NULL || (w.ring = ring_new(hash_take, h)) == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if ((a = archive_start(o, &w, path, e)) == NULL || archive_put(a, &b, path, e) < 0)
		goto done;
	ring_end(w.ring);
	w.ring = NULL;
	hash_final(h, id);
	if (outfile_commit(&out, e) < 0)
		goto done;
	rc = 0;
done:
	if (rc < 0)
		outfile_abort(&out);
	archive_write_free(a);
	ring_end(w.ring);
	hash_free(h);
	bagw_release(&b);
	return rc;
}

/* ---------------------------------------------------------------- reader */

/* A payload file of the bag. */
struct bentry {
	char *name;                       /* "data/..." */
	uint64_t size;
	unsigned have;                    /* bit i: digest for ALGS[i] known */
	uint8_t sha[HASH_LEN];            /* the SHA-256, once known */
	uint8_t (*more)[HASH_MAX_LEN];    /* the other digests (NALGS rows), or NULL */
	unsigned listed;                  /* bit m: listed in payload manifest m */
};

/* A regular file written while extracting, by its name in the archive. */
struct xfile {
	char *rel;
	uint64_t size;
	uint8_t sha[HASH_LEN];
};

/* What extracting may write to the temporary folder: bytes and entries
 * (files and folders) against the archive's Payload-Oxum (bag.h); and,
 * whatever the archive says, bytes on disk (data, not a sparse entry's
 * holes) against BAG_MAX_EXTRACT and half the space free there. */
struct budget {
	uint64_t bytes, entries;          /* written so far */
	uint64_t max_bytes, max_entries;
	int known;                        /* bag-info.txt was read (or looked for) */
	int declared;                     /* it gave a Payload-Oxum */
	unsigned long long oxum_bytes, oxum_count;
	uint64_t disk, max_disk;          /* bytes on disk so far, and the most */
	uint64_t free;                    /* bytes free in the folder when it began */
};

struct bag {
	char *path;     /* what was opened */
	char *tmp;      /* temporary folder to remove, or NULL */
	char *root;     /* folder holding bagit.txt */
	int archive;    /* opened from an archive */
	struct bentry *ent;
	size_t nent, cent;
	struct xfile *x; /* the files extracted (archives) */
	size_t nx, cx;
	struct budget budget;
	char *outside[16];  /* top-level archive entries beside the bag's folder */
	size_t noutside;
};

const char *
bag_root(const struct bag *b)
{
	return b->root;
}

void
bag_free(struct bag *b)
{
	if (b == NULL)
		return;
	cleanup_remove(b->tmp);
	for (size_t i = 0; i < b->nent; i++) {
		free(b->ent[i].name);
		free(b->ent[i].more);
	}
	for (size_t i = 0; i < b->nx; i++)
		free(b->x[i].rel);
	for (size_t i = 0; i < b->noutside; i++)
		free(b->outside[i]);
	free(b->ent);
	free(b->x);
	free(b->path);
	free(b->tmp);
	free(b->root);
	free(b);
}

static struct bentry *
push_entry(struct bentry **v, size_t *n, size_t *cap, const char *name, uint64_t size)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		struct bentry *nv = realloc(*v, nc * sizeof *nv);
		if (nv == NULL)
			return NULL;
		*v = nv;
		*cap = nc;
	}
	memset(&(*v)[*n], 0, sizeof **v);
	(*v)[*n].name = strdup(name);
	if ((*v)[*n].name == NULL)
		return NULL;
	(*v)[*n].size = size;
	return &(*v)[(*n)++];
}

/* An archive entry's name, made relative and checked: no absolute path, no
 * "." or ".." or empty component (a leading "./" is dropped).  0, or -1 with
 * the reason in why. */
static int
safe_name(const char *name, char *out, size_t cap, const char **why)
{
	const char *p = name;
	size_t n;

	while (p[0] == '.' && p[1] == '/')
		p += 2;
	n = strlen(p);
	if (n == 0) {
		*why = "empty name";
		return -1;
	}
	if (n >= cap || n >= BAG_MAX_NAME) {
		*why = "name too long";
		return -1;
	}
	if (p[0] == '/') {
		*why = "absolute path";
		return -1;
	}
	memcpy(out, p, n + 1);
	if (n > 0 && out[n - 1] == '/')
		out[--n] = '\0';
	for (char *s = out;;) {
		char *slash = strchr(s, '/');
		size_t k = slash ? (size_t)(slash - s) : strlen(s);
		if (k == 0 || (k == 1 && s[0] == '.')) {
			*why = "empty or \".\" path component";
			return -1;
		}
		if (k == 2 && s[0] == '.' && s[1] == '.') {
			*why = "path escapes the bag (\"..\")";
			return -1;
		}
		for (size_t i = 0; i < k; i++)
			if ((unsigned char)s[i] < 32) {
				*why = "control character in name";
				return -1;
			}
		if (!slash)
			break;
		s = slash + 1;
	}
	return 0;
}

/* mkdir -p of the parents of rel under base (0700); *made counts the
 * folders made. */
static int
make_parents(const char *base, const char *rel, uint64_t *made, struct err *e)
{
	char path[BAG_MAX_NAME * 2];

	if (snprintf(path, sizeof path, "%s/%s", base, rel) >= (int)sizeof path)
		return err_set(e, ERR_INPUT, "name too long");
	for (char *s = path + strlen(base) + 1; (s = strchr(s, '/')) != NULL; s++) {
		struct stat st;
		int r, saved;
		*s = '\0';
		cleanup_lock();
		r = mkdir(path, 0700);
		saved = errno;
		cleanup_unlock();
		if (r == 0)
			(*made)++;
		else if (saved != EEXIST)
			return err_set(e, ERR_IO, "%s: %s", path, strerror(saved));
		if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			return err_set(e, ERR_INPUT, "\"%s\": a file and a folder of the same name",
			    path + strlen(base) + 1);
		*s = '/';
	}
	return 0;
}

static struct archive *
reader_open(const char *path, struct err *e)
{
	struct archive *a = archive_read_new();

	if (a == NULL) {
		err_set(e, ERR_NOMEM, "out of memory");
		return NULL;
	}
	archive_read_support_filter_gzip(a);
	archive_read_support_filter_zstd(a);
	archive_read_support_filter_xz(a);
	archive_read_support_filter_bzip2(a);
	archive_read_support_format_tar(a);
	if (archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK) {
		err_set(e, ERR_INPUT, "%s: not a readable archive: %s", path, archive_error_string(a));
		archive_read_free(a);
		return NULL;
	}
	return a;
}

/* The one message for an archive that ends early or does not read. */
static int
corrupt(const struct bag *b, struct archive *a, struct err *e)
{
	return err_set(e, ERR_INPUT, "%s: truncated or corrupt archive: %s", b->path,
	    archive_error_string(a));
}

/* An uncompressed tar must end with its two zero blocks: otherwise it was
 * cut at a block boundary and may miss entries. */
static int
tar_end_check(const char *path, struct err *e)
{
	char tail[1024];
	struct stat st;
	int fd = open(path, O_RDONLY), ok = 0;

	if (fd < 0)
		return err_set(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && st.st_size >= 1024 && st.st_size % 512 == 0 &&
	    pread(fd, tail, sizeof tail, st.st_size - 1024) == (ssize_t)sizeof tail) {
		ok = 1;
		for (size_t i = 0; i < sizeof tail; i++)
			ok &= tail[i] == 0;
	}
	close(fd);
	return ok ? 0 : err_set(e, ERR_INPUT, "%s: truncated archive (no end-of-archive blocks)", path);
}

/* A compressed archive expands at most BAG_MAX_RATIO times the bytes read
 * of it, past its first BAG_RATIO_FLOOR bytes (a plain tar's stream is its
 * file): 0, or -1 with e set.  Called as the stream is read, so a bomb is
 * refused as it goes past the ratio, whatever it declares. */
static int
ratio_check(const char *path, struct archive *a, struct err *e)
{
	int nf = archive_filter_count(a);
	la_int64_t out, in;

	if (nf <= 1)
		return 0;
	out = archive_filter_bytes(a, 0);
	in = archive_filter_bytes(a, nf - 1);
	if (out <= (la_int64_t)BAG_RATIO_FLOOR || out / BAG_MAX_RATIO <= in)
		return 0;
	return err_set(e, ERR_INPUT, "%s: the archive expands to more than %d times its "
	    "compressed size (%lld bytes from %lld): refused before writing more of it (a "
	    "decompression bomb, or extract it and verify the folder)", path, BAG_MAX_RATIO,
	    (long long)out, (long long)in);
}

/* A compressed archive must be whole to its last byte: the tar reader
 * stops at the end-of-archive blocks and never reads the padding after
 * them, nor the compressed stream's own end, so a cut there would go
 * unseen.  The stream is read raw to its end here. */
static int
stream_end_check(const char *path, struct err *e)
{
	struct archive *a = archive_read_new();
	struct archive_entry *ae;
	char buf[1 << 14];
	la_ssize_t k = 0;
	int rc = -1;

	if (a == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	archive_read_support_filter_gzip(a);
	archive_read_support_filter_zstd(a);
	archive_read_support_filter_xz(a);
	archive_read_support_filter_bzip2(a);
	archive_read_support_format_raw(a);
	if (archive_read_open_filename(a, path, 1 << 16) == ARCHIVE_OK &&
	    archive_read_next_header(a, &ae) == ARCHIVE_OK) {
		while ((k = archive_read_data(a, buf, sizeof buf)) > 0)
			if (ratio_check(path, a, e) < 0) {
				archive_read_free(a);
				return -1;
			}
		rc = k == 0 ? 0 : -1;
	}
	if (rc < 0)
		err_set(e, ERR_INPUT, "%s: truncated or corrupt archive: %s", path,
		    archive_error_string(a) ? archive_error_string(a) : "the stream ends early");
	archive_read_free(a);
	return rc;
}

static int
write_fd(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* An entry's name, made safe and relative (rel), or an error. */
static const char *
entry_name(const struct bag *b, struct archive_entry *ae, size_t count, char rel[BAG_MAX_NAME + 1],
    struct err *e)
{
	const char *name = archive_entry_pathname_utf8(ae), *why;

	if (name == NULL)
		name = archive_entry_pathname(ae);
	if (name == NULL) {
		err_set(e, ERR_INPUT, "%s: entry %zu has no readable name", b->path, count);
		return NULL;
	}
	if (safe_name(name, rel, BAG_MAX_NAME + 1, &why) < 0) {
		err_set(e, ERR_INPUT, "%s: entry \"%s\": %s", b->path, name, why);
		return NULL;
	}
	return name;
}

/* An entry's bytes go to a sink in order: data as it is read, a hole of
 * a sparse entry (p NULL) as that many zeros.  0, or -1 to stop (e set). */
typedef int (*bytes_fn)(void *ctx, const void *p, size_t n, struct err *e);

static const char zeros[1 << 16];

/* The bytes of the entry a is at, of size bytes: the blocks libarchive
 * gives with their offsets (archive_read_data_block), the gaps between
 * them and after the last as holes, so that a sparse entry reads as the
 * file it stands for (as GNU tar extracts it), and an entry made only of
 * holes as that many zeros.  Blocks out of order or past the size, and a
 * short entry that is not sparse, are a corrupt archive. */
static int
entry_bytes(const struct bag *b, struct archive *a, struct archive_entry *ae, uint64_t size,
    bytes_fn fn, void *ctx, struct err *e)
{
	const void *p;
	size_t n;
	la_int64_t off;
	uint64_t pos = 0;
	int r, sparse = archive_entry_sparse_count(ae) > 0;

	while ((r = archive_read_data_block(a, &p, &n, &off)) == ARCHIVE_OK) {
		if (off < 0 || (uint64_t)off < pos || (uint64_t)off > size || n > size - (uint64_t)off)
			return err_set(e, ERR_INPUT, "%s: truncated or corrupt archive: a block out of "
			    "order or past its entry's size", b->path);
		if (ratio_check(b->path, a, e) < 0)
			return -1;
		if ((uint64_t)off > pos && fn(ctx, NULL, (size_t)((uint64_t)off - pos), e) < 0)
			return -1;
		if (n > 0 && fn(ctx, p, n, e) < 0)
			return -1;
		pos = (uint64_t)off + n;
	}
	if (r != ARCHIVE_EOF)
		return corrupt(b, a, e);
	if (pos < size && !sparse)
		return err_set(e, ERR_INPUT, "%s: truncated or corrupt archive: short entry", b->path);
	if (pos < size && fn(ctx, NULL, (size_t)(size - pos), e) < 0)
		return -1;
	return 0;
}

/* A sink writing to a file; holes are left as holes. */
struct fd_sink {
	int fd;
	const char *path;
	uint64_t at;   /* bytes so far, holes included */
	int hole_end;  /* the file ends in a hole (ftruncate at the end) */
};

static int
fd_sink_put(void *ctx, const void *p, size_t n, struct err *e)
{
	struct fd_sink *s = ctx;

	s->at += n;
	if (p == NULL) {
		if (lseek(s->fd, (off_t)n, SEEK_CUR) < 0)
			return err_set(e, ERR_IO, "%s: %s", s->path, strerror(errno));
		s->hole_end = 1;
		return 0;
	}
	s->hole_end = 0;
	if (write_fd(s->fd, p, n) < 0)
		return err_set(e, ERR_IO, "%s: %s", s->path, strerror(errno));
	return 0;
}

/* The file's size where it ends in a hole; 0, or -1 with e set. */
static int
fd_sink_end(struct fd_sink *s, struct err *e)
{
	if (s->hole_end && ftruncate(s->fd, (off_t)s->at) != 0)
		return err_set(e, ERR_IO, "%s: %s", s->path, strerror(errno));
	return 0;
}

/* A sink writing to a file and taking its SHA-256 on the way, its data
 * (not its holes) within the disk budget. */
struct x_sink {
	struct fd_sink fd;
	struct hash *h;
	struct bag *b;
	uint64_t left;  /* data bytes the budget gave this entry, not yet written */
};

static int disk_take(const struct bag *b, struct budget *g, uint64_t n, struct err *e);

static int
x_sink_put(void *ctx, const void *p, size_t n, struct err *e)
{
	struct x_sink *s = ctx;

	if (p != NULL && n > s->left) {
		if (disk_take(s->b, &s->b->budget, n - s->left, e) < 0)
			return -1;
		s->left = n;
	}
	if (p != NULL)
		s->left -= n;

	for (size_t left = n; left > 0;) {
		size_t k = p ? left : left < sizeof zeros ? left : sizeof zeros;
		hash_update(s->h, p ? (const char *)p + (n - left) : zeros, k);
		left -= k;
	}
	return fd_sink_put(&s->fd, p, n, e);
}

/* "Payload-Oxum: OCTETS.COUNT" in a bag-info.txt's lines; 0, or -1 when
 * it has none that reads. */
static int
oxum_parse(const char *line, unsigned long long *bytes, unsigned long long *count)
{
	const char *colon = strchr(line, ':');
	size_t k;
	char *end;

	if (colon == NULL)
		return -1;
	k = (size_t)(colon - line);
	while (k > 0 && (line[k - 1] == ' ' || line[k - 1] == '\t'))
		k--;
	if (k != 12 || strncasecmp(line, "Payload-Oxum", 12) != 0)
		return -1;
	colon++;
	while (*colon == ' ' || *colon == '\t')
		colon++;
	if (*colon < '0' || *colon > '9')
		return -1;
	errno = 0;
	*bytes = strtoull(colon, &end, 10);
	if (errno || *end != '.' || end[1] < '0' || end[1] > '9')
		return -1;
	*count = strtoull(end + 1, &end, 10);
	if (errno)
		return -1;
	while (*end == ' ' || *end == '\t' || *end == '\r')
		end++;
	return *end == '\0' ? 0 : -1;
}

/* The limits once bag-info.txt (bytes p[0..n), or none: p NULL) is known. */
static void
budget_declare(struct budget *g, const char *p, size_t n)
{
	g->known = 1;
	for (size_t i = 0; p && i < n && !g->declared;) {
		size_t j = i;
		char line[256];
		while (j < n && p[j] != '\n')
			j++;
		if (j - i < sizeof line) {
			memcpy(line, p + i, j - i);
			line[j - i] = '\0';
			if (oxum_parse(line, &g->oxum_bytes, &g->oxum_count) == 0)
				g->declared = 1;
		}
		i = j + 1;
	}
	if (g->declared && g->oxum_bytes <= BAG_MAX_ENTRY * 1024 &&
	    g->oxum_count <= BAG_MAX_ENTRIES) {
		g->max_bytes = g->oxum_bytes + BAG_TAG_ROOM;
		g->max_entries = 2 * g->oxum_count + BAG_TAG_ENTRIES;
	} else {
		g->declared = 0;
		g->max_bytes = BAG_UNDECLARED_BYTES;
		g->max_entries = BAG_UNDECLARED_ENTRIES;
	}
}

/* Room for bytes more and entries more: 0; 1 when it is not there but
 * bag-info.txt has not been read yet (look for it first); else -1, the
 * archive refused. */
static int
budget_take(const struct bag *b, struct budget *g, uint64_t bytes, uint64_t entries,
    struct err *e)
{
	if (bytes <= g->max_bytes - g->bytes && entries <= g->max_entries - g->entries) {
		g->bytes += bytes;
		g->entries += entries;
		return 0;
	}
	if (!g->known)
		return 1;
	if (g->declared)
		return err_set(e, ERR_INPUT, "%s: the archive holds more than its Payload-Oxum "
		    "declares (%llu bytes in %llu files): refused before writing more of it",
		    b->path, g->oxum_bytes, g->oxum_count);
	return err_set(e, ERR_INPUT, "%s: more than %llu bytes or %llu entries and no "
	    "Payload-Oxum in bag-info.txt: refused before writing more of it (extract it and "
	    "verify the folder)", b->path, (unsigned long long)BAG_UNDECLARED_BYTES,
	    (unsigned long long)BAG_UNDECLARED_ENTRIES);
}

/* Room for n more bytes on disk, whatever the archive declares (bag.h):
 * 0, or -1 with e set, the archive refused. */
static int
disk_take(const struct bag *b, struct budget *g, uint64_t n, struct err *e)
{
	const char *slash;

	if (n <= g->max_disk - g->disk) {
		g->disk += n;
		return 0;
	}
	if (g->max_disk == BAG_MAX_EXTRACT)
		return err_set(e, ERR_INPUT, "%s: the archive would write more than %llu bytes, "
		    "the most extracted from one archive: refused before writing more of it "
		    "(extract it and verify the folder)", b->path, (unsigned long long)BAG_MAX_EXTRACT);
	slash = strrchr(b->tmp, '/');
	return err_set(e, ERR_INPUT, "%s: the archive would write more than %llu bytes, half the "
	    "%llu bytes free in %.*s: refused before writing more of it (make room there, or set "
	    "TMPDIR to a folder with more)", b->path, (unsigned long long)g->max_disk,
	    (unsigned long long)g->free, slash && slash > b->tmp ? (int)(slash - b->tmp) : 1,
	    slash && slash > b->tmp ? b->tmp : "/");
}

/* The bytes of an entry that land on disk: its size, or for a sparse
 * entry the data its map lists (holes stay holes). */
static uint64_t
entry_disk(struct archive_entry *ae, uint64_t size)
{
	la_int64_t off, len;
	uint64_t n = 0;

	if (archive_entry_sparse_reset(ae) == 0)
		return size;
	while (archive_entry_sparse_next(ae, &off, &len) == ARCHIVE_OK)
		if (len > 0)
			n += (uint64_t)len;
	return n < size ? n : size;
}

/* The name of an archive's bag-info.txt: at its top or in a top folder. */
static int
is_bag_info(const char *rel)
{
	const char *slash = strchr(rel, '/');

	if (slash == NULL)
		return strcmp(rel, "bag-info.txt") == 0;
	return strchr(slash + 1, '/') == NULL && strcmp(slash + 1, "bag-info.txt") == 0;
}

/* bag-info.txt's bytes, read whole into out (at most BAG_MAX_TAG). */
static int
read_small(struct bag *b, struct archive *a, struct archive_entry *ae, const char *name,
    struct buf *out, struct err *e)
{
	la_int64_t size = archive_entry_size(ae);
	char chunk[1 << 14];
	la_ssize_t k;

	if (size < 0 || (uint64_t)size > BAG_MAX_TAG)
		return err_set(e, ERR_INPUT, "%s: entry \"%s\": tag file larger than %zu bytes", b->path,
		    name, BAG_MAX_TAG);
	while ((k = archive_read_data(a, chunk, sizeof chunk)) > 0)
		if (buf_add(out, chunk, (size_t)k) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
	if (k < 0 || out->len != (size_t)size)
		return corrupt(b, a, e);
	return 0;
}

static struct xfile *
push_xfile(struct bag *b, const char *rel, uint64_t size)
{
	if (b->nx == b->cx) {
		size_t nc = b->cx ? 2 * b->cx : 64;
		struct xfile *nv = realloc(b->x, nc * sizeof *nv);
		if (nv == NULL)
			return NULL;
		b->x = nv;
		b->cx = nc;
	}
	if ((b->x[b->nx].rel = strdup(rel)) == NULL)
		return NULL;
	b->x[b->nx].size = size;
	return &b->x[b->nx++];
}

/* A regular entry's bytes into a new file at path, its SHA-256 taken on
 * the way (bag-info.txt read whole first, so that its Payload-Oxum sets
 * the budget).  1 when the budget needs bag-info.txt first. */
static int
extract_file(struct bag *b, struct archive *a, struct archive_entry *ae, const char *name,
    const char *rel, const char *path, uint64_t size, struct err *e)
{
	struct buf info = BUF_INIT;
	struct x_sink s;
	struct xfile *x;
	uint64_t disk;
	int fd, r;

	if (is_bag_info(rel) && !b->budget.known) {
		if (read_small(b, a, ae, name, &info, e) < 0) {
			buf_release(&info);
			return -1;
		}
		budget_declare(&b->budget, info.p, info.len);
	}
	if ((r = budget_take(b, &b->budget, size, 1, e)) != 0) {
		buf_release(&info);
		return r;
	}
	if (disk_take(b, &b->budget, disk = entry_disk(ae, size), e) < 0) {
		buf_release(&info);
		return -1;
	}
	if ((x = push_xfile(b, rel, size)) == NULL) {
		buf_release(&info);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	cleanup_lock();
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	r = errno;
	cleanup_unlock();
	if (fd < 0) {
		buf_release(&info);
		return err_set(e, r == EEXIST ? ERR_INPUT : ERR_IO, "%s: entry \"%s\": %s",
		    b->path, name, r == EEXIST ? "appears twice" : strerror(r));
	}
	s.fd = (struct fd_sink){ fd, path, 0, 0 };
	s.h = hash_new();
	s.b = b;
	s.left = disk;
	if (s.h == NULL)
		r = err_set(e, ERR_NOMEM, "out of memory");
	else if (info.p != NULL || size == 0)
		r = info.p ? x_sink_put(&s, info.p, info.len, e) : 0;
	else
		r = entry_bytes(b, a, ae, size, x_sink_put, &s, e);
	if (r == 0)
		r = fd_sink_end(&s.fd, e);
	if (r == 0)
		hash_final(s.h, x->sha);
	hash_free(s.h);
	close(fd);
	buf_release(&info);
	return r;
}

/* One entry of the archive: a folder made or a file written.  1 when the
 * budget needs bag-info.txt first. */
static int
extract_entry(struct bag *b, struct archive *a, struct archive_entry *ae, size_t count,
    struct err *e)
{
	char rel[BAG_MAX_NAME + 1], path[BAG_MAX_NAME * 2];
	const char *name = entry_name(b, ae, count, rel, e);
	mode_t type = archive_entry_filetype(ae);
	uint64_t made = 0, depth = 0;
	la_int64_t size;
	struct stat st;
	int r;

	if (name == NULL)
		return -1;
	if (archive_entry_hardlink(ae) != NULL || archive_entry_symlink(ae) != NULL ||
	    (type != AE_IFREG && type != AE_IFDIR))
		return err_set(e, ERR_INPUT, "%s: entry \"%s\": %s not allowed in a bag", b->path,
		    name, type == AE_IFLNK || archive_entry_symlink(ae) ? "symbolic link" :
		    archive_entry_hardlink(ae) ? "hard link" : "special file");
	size = type == AE_IFDIR ? 0 : archive_entry_size(ae);
	if (size < 0 || (uint64_t)size > BAG_MAX_ENTRY)
		return err_set(e, ERR_INPUT, "%s: entry \"%s\": size out of bounds", b->path, name);
	/* each folder made on the way counts as an entry: room for as many as
	 * the name has, then what was not made given back */
	for (const char *q = rel; (q = strchr(q, '/')) != NULL; q++)
		depth++;
	if ((r = budget_take(b, &b->budget, 0, depth, e)) != 0)
		return r;
	if (make_parents(b->tmp, rel, &made, e) < 0)
		return err_prefix(e, "%s: entry \"%s\"", b->path, name);
	b->budget.entries -= depth - made;
	snprintf(path, sizeof path, "%s/%s", b->tmp, rel);
	if (type == AE_IFDIR) {
		if ((r = budget_take(b, &b->budget, 0, 1, e)) != 0)
			return r;
		cleanup_lock();
		r = mkdir(path, 0700) == 0 ? 0 : errno;
		cleanup_unlock();
		if (r != 0 && (r != EEXIST || lstat(path, &st) != 0 || !S_ISDIR(st.st_mode)))
			return err_set(e, ERR_INPUT, "%s: entry \"%s\": cannot be a folder here",
			    b->path, name);
		return 0;
	}
	return extract_file(b, a, ae, name, rel, path, (uint64_t)size, e);
}

/* An entry's data read and dropped, the stream's ratio checked as it
 * goes (a plain tar's is skipped by seeking). */
static int
drain(const struct bag *b, struct archive *a, struct err *e)
{
	const void *p;
	size_t n;
	la_int64_t off;
	int r;

	if (archive_filter_count(a) <= 1)
		return 0;
	while ((r = archive_read_data_block(a, &p, &n, &off)) == ARCHIVE_OK)
		if (ratio_check(b->path, a, e) < 0)
			return -1;
	return r == ARCHIVE_EOF ? 0 : corrupt(b, a, e);
}

/* Before extracting again: bag-info.txt looked for in a pass that reads
 * headers only (a plain tar's entries are skipped by seeking). */
static int
find_bag_info(struct bag *b, struct err *e)
{
	struct archive *a = reader_open(b->path, e);
	struct archive_entry *ae;
	struct buf info = BUF_INIT;
	size_t count = 0;
	int r, rc = -1;

	if (a == NULL)
		return -1;
	while ((r = archive_read_next_header(a, &ae)) != ARCHIVE_EOF) {
		char rel[BAG_MAX_NAME + 1];
		const char *name;
		if (r < ARCHIVE_WARN) {
			corrupt(b, a, e);
			goto done;
		}
		if (++count > BAG_MAX_ENTRIES) {
			err_set(e, ERR_INPUT, "%s: more than %d entries", b->path, BAG_MAX_ENTRIES);
			goto done;
		}
		if ((name = entry_name(b, ae, count, rel, e)) == NULL)
			goto done;
		if (archive_entry_filetype(ae) == AE_IFREG && is_bag_info(rel)) {
			if (read_small(b, a, ae, name, &info, e) < 0)
				goto done;
			break;
		}
		if (drain(b, a, e) < 0)
			goto done;
	}
	budget_declare(&b->budget, info.p, info.len);
	rc = 0;
done:
	buf_release(&info);
	archive_read_free(a);
	return rc;
}

/* Every entry of the archive into b->tmp, within the budget: 1 when it
 * needs bag-info.txt, which came later in the archive, first. */
static int
extract_pass(struct bag *b, struct err *e)
{
	struct archive *a = reader_open(b->path, e);
	struct archive_entry *ae;
	size_t count = 0;
	int r, rc = -1;

	if (a == NULL)
		return -1;
	while ((r = archive_read_next_header(a, &ae)) != ARCHIVE_EOF) {
		if (r < ARCHIVE_WARN) {
			corrupt(b, a, e);
			goto done;
		}
		if (++count > BAG_MAX_ENTRIES) {
			err_set(e, ERR_INPUT, "%s: more than %d entries", b->path, BAG_MAX_ENTRIES);
			goto done;
		}
		if (ratio_check(b->path, a, e) < 0)
			goto done;
		if ((r = extract_entry(b, a, ae, count, e)) != 0) {
			rc = r;
			goto done;
		}
	}
	if (archive_filter_count(a) <= 1 ? tar_end_check(b->path, e) < 0 :
	    stream_end_check(b->path, e) < 0)
		goto done;
	rc = 0;
done:
	archive_read_free(a);
	return rc;
}

/* Forget a pass given up: the files written, the folder emptied. */
static int
extract_restart(struct bag *b, struct err *e)
{
	int r;

	for (size_t i = 0; i < b->nx; i++)
		free(b->x[i].rel);
	b->nx = 0;
	b->budget.bytes = b->budget.entries = b->budget.disk = 0;
	cleanup_lock();
	r = cleanup_rm_tree(b->tmp) != 0 || mkdir(b->tmp, 0700) != 0 ? errno : 0;
	cleanup_unlock();
	if (r != 0)
		return err_set(e, ERR_IO, "%s: cannot empty the temporary folder: %s", b->tmp,
		    strerror(r));
	return 0;
}

/* Every entry of the archive into b->tmp.  The budget is the undeclared
 * one until bag-info.txt is met; an archive that needs more before it is
 * looked for first and extracted again. */
static int
extract(struct bag *b, struct err *e)
{
	struct statvfs fs;
	int r;

	b->budget.max_bytes = BAG_UNDECLARED_BYTES;
	b->budget.max_entries = BAG_UNDECLARED_ENTRIES;
	b->budget.max_disk = BAG_MAX_EXTRACT;
	if (statvfs(b->tmp, &fs) == 0) {
		b->budget.free = (uint64_t)fs.f_bavail * fs.f_frsize;
		if (b->budget.free / 2 < BAG_MAX_EXTRACT)
			b->budget.max_disk = b->budget.free / 2;
	}
	if ((r = extract_pass(b, e)) <= 0)
		return r;
	if (extract_restart(b, e) < 0 || find_bag_info(b, e) < 0)
		return -1;
	return extract_pass(b, e) == 0 ? 0 : -1;
}

/* Collect the payload files under root/data (a bag folder). */
static int
walk(struct bag *b, const char *dir, const char *rel, struct err *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = 0;

	if (d == NULL)
		return errno == ENOENT ? 0 : err_set(e, ERR_IO, "%s: %s", dir, strerror(errno));
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char *sub = NULL, *subrel = NULL;
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (asprintf(&sub, "%s/%s", dir, de->d_name) < 0 ||
		    asprintf(&subrel, "%s/%s", rel, de->d_name) < 0) {
			free(sub);
			rc = err_set(e, ERR_NOMEM, "out of memory");
			break;
		}
		if (lstat(sub, &st) != 0)
			rc = err_set(e, ERR_IO, "%s: %s", sub, strerror(errno));
		else if (S_ISDIR(st.st_mode))
			rc = walk(b, sub, subrel, e);
		else if (S_ISREG(st.st_mode)) {
			if (b->nent >= BAG_MAX_ENTRIES)
				rc = err_set(e, ERR_INPUT, "%s: more than %d files", b->path, BAG_MAX_ENTRIES);
			else if (push_entry(&b->ent, &b->nent, &b->cent, subrel, (uint64_t)st.st_size) == NULL)
				rc = err_set(e, ERR_NOMEM, "out of memory");
		} else {
			rc = err_set(e, ERR_INPUT, "%s: %s not allowed in a bag", subrel,
			    S_ISLNK(st.st_mode) ? "symbolic link" : "special file");
		}
		free(sub);
		free(subrel);
	}
	closedir(d);
	return rc;
}

static int
bentry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct bentry *)a)->name, ((const struct bentry *)b)->name);
}

static struct bentry *
find_entry(const struct bag *b, const char *name)
{
	struct bentry key;

	key.name = (char *)name;
	return b->nent ? bsearch(&key, b->ent, b->nent, sizeof *b->ent, bentry_cmp) : NULL;
}

/* The bag inside the extracted archive: its top, or its one top folder
 * holding bagit.txt (anything beside that folder is outside the bag).
 * Sets b->root and *prefix, the bag's folder inside the archive ("" or
 * "NAME/"); -1 when out of memory. */
static int
find_root(struct bag *b, char **prefix)
{
	struct stat st;
	char *probe;

	if (asprintf(&probe, "%s/bagit.txt", b->tmp) < 0)
		return -1;
	if (lstat(probe, &st) == 0) {
		free(probe);
		b->root = strdup(b->tmp);
		*prefix = strdup("");
		return b->root && *prefix ? 0 : -1;
	}
	free(probe);
	DIR *d = opendir(b->tmp);
	struct dirent *de;
	char *only = NULL;
	int bags = 0;
	while (d && (de = readdir(d)) != NULL) {
		char *bt;
		struct stat bs;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (asprintf(&bt, "%s/%s/bagit.txt", b->tmp, de->d_name) < 0)
			break;
		if (lstat(bt, &bs) == 0 && S_ISREG(bs.st_mode)) {
			bags++;
			free(only);
			only = strdup(de->d_name);
		}
		free(bt);
	}
	if (d)
		rewinddir(d);
	while (bags == 1 && only && d && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    strcmp(de->d_name, only) == 0)
			continue;
		if (b->noutside < sizeof b->outside / sizeof b->outside[0])
			b->outside[b->noutside++] = strdup(de->d_name);
	}
	if (d)
		closedir(d);
	if (bags == 1 && only) {
		if (asprintf(&b->root, "%s/%s", b->tmp, only) < 0)
			b->root = NULL;
		if (asprintf(prefix, "%s/", only) < 0)
			*prefix = NULL;
	} else {
		b->root = strdup(b->tmp);
		*prefix = strdup("");
	}
	free(only);
	return b->root && *prefix ? 0 : -1;
}

/* The archive at path extracted into a temporary folder and its bag
 * found; the payload is the files extracted under the bag's data/, with
 * the SHA-256 each was given as it was written. */
static int
unpack(struct bag *b, const char *path, struct err *e)
{
	char *prefix = NULL;
	size_t k;
	int rc = -1;

	b->archive = 1;
	if (cleanup_mkdtemp("bag", &b->tmp, e) < 0)
		return -1;
	if (extract(b, e) < 0)
		return -1;
	if (find_root(b, &prefix) < 0)
		goto nomem;
	k = strlen(prefix);
	for (size_t i = 0; i < b->nx; i++) {
		const struct xfile *x = &b->x[i];
		struct bentry *be;
		if (strncmp(x->rel, prefix, k) != 0 || strncmp(x->rel + k, "data/", 5) != 0)
			continue;
		if ((be = push_entry(&b->ent, &b->nent, &b->cent, x->rel + k, x->size)) == NULL)
			goto nomem;
		memcpy(be->sha, x->sha, HASH_LEN);
		be->have = 1u << ALG_SHA256;
	}
	rc = 0;
	goto done;
nomem:
	err_set(e, ERR_NOMEM, "out of memory");
done:
	free(prefix);
	return rc;
}

/* The payload: every file under the bag's data/ (for a folder, found
 * now; for an archive, extracted), sorted by name, none twice. */
static int
read_payload(struct bag *b, const char *path, struct err *e)
{
	struct stat st;
	char *data;
	int r = 0;

	if (asprintf(&data, "%s/data", b->root) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (lstat(data, &st) == 0 && !S_ISDIR(st.st_mode)) {
		free(data);
		return err_set(e, ERR_INPUT, "%s: data is not a folder", path);
	}
	if (!b->archive)
		r = walk(b, data, "data", e);
	free(data);
	if (r < 0)
		return -1;
	if (b->nent > 1)
		qsort(b->ent, b->nent, sizeof *b->ent, bentry_cmp);
	for (size_t i = 1; i < b->nent; i++)
		if (strcmp(b->ent[i - 1].name, b->ent[i].name) == 0)
			return err_set(e, ERR_INPUT, "%s: entry \"%s\" appears twice", path,
			    b->ent[i].name);
	return 0;
}

int
bag_open(const char *path, struct bag **out, struct err *e)
{
	struct bag *b = calloc(1, sizeof *b);
	struct stat st;

	*out = NULL;
	if (b == NULL || (b->path = strdup(path)) == NULL) {
		free(b);
		return err_set(e, ERR_NOMEM, "out of memory");
	}
	if (stat(path, &st) != 0) {
		err_set(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		if ((b->root = strdup(path)) == NULL) {
			err_set(e, ERR_NOMEM, "out of memory");
			goto fail;
		}
	} else if (unpack(b, path, e) < 0) {
		goto fail;
	}
	if (read_payload(b, path, e) < 0)
		goto fail;
	*out = b;
	return 0;
fail:
	bag_free(b);
	return -1;
}

/* ------------------------------------------------------------ validation */

/* Hash a file on disk with every algorithm in mask, in one read. */
static int
hash_path(const char *path, unsigned mask, uint8_t dig[NALGS][HASH_MAX_LEN], struct err *e)
{
	struct hash *h[NALGS] = { 0 };
	static const size_t chunk = 1 << 20;
	char *buf = malloc(chunk);
	ssize_t k;
	int fd = open(path, O_RDONLY | O_NOFOLLOW), rc = 0;

	if (fd < 0 || buf == NULL) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return err_set(e, ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	}
	for (int i = 0; i < NALGS; i++)
		if ((mask & (1u << i)) && (h[i] = hash_new_alg(ALGS[i])) == NULL)
			rc = err_set(e, ERR_NOMEM, "out of memory");
	while (rc == 0 && (k = read(fd, buf, chunk)) > 0)
		for (int i = 0; i < NALGS; i++)
			if (h[i])
				hash_update(h[i], buf, (size_t)k);
	if (rc == 0 && k < 0)
		rc = err_set(e, ERR_IO, "%s: read error: %s", path, strerror(errno));
	for (int i = 0; i < NALGS; i++) {
		size_t n;
		if (h[i]) {
			hash_final_alg(h[i], dig[i], &n);
			hash_free(h[i]);
		}
	}
	close(fd);
	free(buf);
	return rc;
}

/* An entry's digest for ALGS[alg], once known. */
static const uint8_t *
entry_digest(const struct bentry *be, int alg)
{
	return alg == ALG_SHA256 ? be->sha : be->more ? be->more[alg] : NULL;
}

/* The digests of dig for the algorithms in mask, kept in be. */
static int
entry_keep(struct bentry *be, unsigned mask, uint8_t dig[NALGS][HASH_MAX_LEN])
{
	if ((mask & ~(1u << ALG_SHA256)) && be->more == NULL &&
	    (be->more = calloc(NALGS, HASH_MAX_LEN)) == NULL)
		return -1;
	for (int i = 0; i < NALGS; i++)
		if (mask & (1u << i)) {
			if (i == ALG_SHA256)
				memcpy(be->sha, dig[i], HASH_LEN);
			else
				memcpy(be->more[i], dig[i], HASH_MAX_LEN);
		}
	be->have |= mask;
	return 0;
}

/* Read a tag file under the root (no links); 1 when it does not exist. */
static int
read_tag(const struct bag *b, const char *name, struct buf *out, struct err *e)
{
	char *path;
	struct stat st;
	int rc;

	if (asprintf(&path, "%s/%s", b->root, name) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (lstat(path, &st) != 0) {
		free(path);
		return 1;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = err_set(e, ERR_INPUT, "%s: %s: not a regular file", b->path, name);
		free(path);
		return rc;
	}
	rc = io_read_all(path, out, BAG_MAX_TAG, e);
	free(path);
	return rc;
}

/* Turn a tag file's bytes into UTF-8 text per the declared encoding. */
static int
decode_tag(const char *enc, const struct buf *in, struct buf *out)
{
	const unsigned char *p = (const unsigned char *)(in->p ? in->p : "");
	size_t n = in->len;

	if (strcasecmp(enc, "UTF-8") == 0) {
		if (n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF)
			p += 3, n -= 3;
		return buf_add(out, p, n);
	}
	if (strcasecmp(enc, "ISO-8859-1") == 0 || strcasecmp(enc, "latin1") == 0) {
		for (size_t i = 0; i < n; i++) {
			if (p[i] < 0x80 ? buf_addc(out, (char)p[i]) < 0 :
			    (buf_addc(out, (char)(0xC0 | p[i] >> 6)) < 0 ||
			        buf_addc(out, (char)(0x80 | (p[i] & 0x3F))) < 0))
				return -1;
		}
		return 0;
	}
	if (strncasecmp(enc, "UTF-16", 6) == 0) {
		int le = strcasecmp(enc, "UTF-16LE") == 0;
		size_t i = 0;
		if (n >= 2 && p[0] == 0xFF && p[1] == 0xFE)
			le = 1, i = 2;
		else if (n >= 2 && p[0] == 0xFE && p[1] == 0xFF)
			le = 0, i = 2;
		for (; i + 1 < n; i += 2) {
			unsigned u = le ? (unsigned)(p[i] | p[i + 1] << 8) : (unsigned)(p[i] << 8 | p[i + 1]);
			if (u >= 0xD800 && u < 0xDC00 && i + 3 < n) {
				unsigned lo = le ? (unsigned)(p[i + 2] | p[i + 3] << 8) :
				                   (unsigned)(p[i + 2] << 8 | p[i + 3]);
				u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
				i += 2;
			}
			char t[4];
			size_t k;
			if (u < 0x80)
				t[0] = (char)u, k = 1;
			else if (u < 0x800)
				t[0] = (char)(0xC0 | u >> 6), t[1] = (char)(0x80 | (u & 0x3F)), k = 2;
			else if (u < 0x10000)
				t[0] = (char)(0xE0 | u >> 12), t[1] = (char)(0x80 | ((u >> 6) & 0x3F)),
				t[2] = (char)(0x80 | (u & 0x3F)), k = 3;
			else
				t[0] = (char)(0xF0 | u >> 18), t[1] = (char)(0x80 | ((u >> 12) & 0x3F)),
				t[2] = (char)(0x80 | ((u >> 6) & 0x3F)), t[3] = (char)(0x80 | (u & 0x3F)), k = 4;
			if (buf_add(out, t, k) < 0)
				return -1;
		}
		return 0;
	}
	return 1; /* unsupported */
}

/* Next line of text (CR LF, LF or CR ends it); NULL at the end. */
static char *
next_line(char **cursor)
{
	char *s = *cursor, *q;

	if (s == NULL || *s == '\0')
		return NULL;
	q = s + strcspn(s, "\r\n");
	if (*q == '\r' && q[1] == '\n')
		*q = '\0', *cursor = q + 2;
	else if (*q)
		*q = '\0', *cursor = q + 1;
	else
		*cursor = q;
	return s;
}

/* A manifest or fetch path: decoded (%0A %0D %25), leading "./" dropped,
 * and checked to stay inside the bag; -1 with why if it does not. */
static int
manifest_path(const char *in, char *out, size_t cap, const char **why)
{
	char dec[BAG_MAX_NAME + 1];
	size_t k = 0;

	for (const char *p = in; *p; p++) {
		if (k >= sizeof dec - 1) {
			*why = "path too long";
			return -1;
		}
		if (p[0] == '%' && p[1] == '0' && (p[2] == 'A' || p[2] == 'a'))
			dec[k++] = '\n', p += 2;
		else if (p[0] == '%' && p[1] == '0' && (p[2] == 'D' || p[2] == 'd'))
			dec[k++] = '\r', p += 2;
		else if (p[0] == '%' && p[1] == '2' && p[2] == '5')
			dec[k++] = '%', p += 2;
		else
			dec[k++] = *p;
	}
	dec[k] = '\0';
	if (dec[0] == '~') {
		*why = "path outside the bag (\"~\")";
		return -1;
	}
	if (strchr(dec, '\\') != NULL && strstr(dec, "..") != NULL) {
		*why = "path escapes the bag (\"..\")";
		return -1;
	}
	return safe_name(dec, out, cap, why) < 0 ? -1 : 0;
}

struct manifest {
	char name[260];
	int alg;
	int tag;
};

static int
check_bagit_txt(struct bag *b, cJSON *checks, char *enc, size_t encsz, struct err *e)
{
	struct buf raw = BUF_INIT;
	int r = read_tag(b, "bagit.txt", &raw, e), bad = 0;
	char *cur, *line, *ver = NULL, *en = NULL;
	int nlines = 0;

	if (r < 0)
		return -1;
	snprintf(enc, encsz, "UTF-8");
	if (r == 1) {
		buf_release(&raw);
		return !bag_check_add(checks, "bagit", "bagit.txt", 0,
		    "bagit.txt is missing: this is not a bag");
	}
	if (raw.len >= 3 && memcmp(raw.p, "\xEF\xBB\xBF", 3) == 0) {
		buf_release(&raw);
		return !bag_check_add(checks, "bagit", "bagit.txt", 0,
		    "bagit.txt starts with a byte-order mark, which RFC 8493 forbids");
	}
	cur = raw.p;
	while ((line = next_line(&cur)) != NULL) {
		nlines++;
		if (strncmp(line, "BagIt-Version: ", 15) == 0 && ver == NULL)
			ver = line + 15;
		else if (strncmp(line, "Tag-File-Character-Encoding: ", 29) == 0 && en == NULL)
			en = line + 29;
		else if (*line)
			bad = 1;
	}
	if (ver == NULL || en == NULL || bad) {
		bag_check_add(checks, "bagit", "bagit.txt", 0,
		    "expected exactly the lines \"BagIt-Version: M.N\" and "
		    "\"Tag-File-Character-Encoding: ENCODING\"");
		buf_release(&raw);
		return 1;
	}
	size_t i = 0;
	while (ver[i] >= '0' && ver[i] <= '9')
		i++;
	int okv = i > 0 && ver[i] == '.';
	size_t j = i + 1;
	while (okv && ver[j] >= '0' && ver[j] <= '9')
		j++;
	okv = okv && j > i + 1 && ver[j] == '\0';
	if (!okv) {
		bag_check_add(checks, "bagit", "bagit.txt", 0, "BagIt-Version \"%s\" is not M.N", ver);
		buf_release(&raw);
		return 1;
	}
	snprintf(enc, encsz, "%s", en);
	bag_check_add(checks, "bagit", "bagit.txt", 1, "BagIt-Version %s, %s", ver, en);
	buf_release(&raw);
	return 0;
}

/* Parse one manifest into (path, hex) pairs; appends findings. */
/* The hex digits of a digest of ALGS[alg]. */
static size_t
digest_hexlen(int alg)
{
	struct hash *h = hash_new_alg(ALGS[alg]);
	uint8_t probe[HASH_MAX_LEN];
	size_t n = 0;

	hash_final_alg(h, probe, &n);
	hash_free(h);
	return 2 * n;
}

/* The findings of one manifest: the first BAG_MAX_LISTED are listed, the
 * rest counted, so that a manifest of millions of bad lines costs a
 * report of a thousand. */
struct listing {
	cJSON *checks;
	long n;
};

static int
listing_add(struct listing *l, const char *check, const char *subject, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A finding: listed while there is room, else counted.  Returns 1. */
static int
listing_add(struct listing *l, const char *check, const char *subject, const char *fmt, ...)
{
	char detail[1024];
	va_list ap;

	if (l->n++ >= BAG_MAX_LISTED)
		return 1;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	bag_check_add(l->checks, check, subject, 0, "%s", detail);
	return 1;
}

/* The count of findings past the listed ones, as one more finding. */
static void
listing_end(struct listing *l, const char *check, const char *subject)
{
	if (l->n > BAG_MAX_LISTED)
		bag_check_add(l->checks, check, subject, 0, "%ld more findings, not listed",
		    l->n - BAG_MAX_LISTED);
}

/* A manifest line "DIGEST PATH": the digest lowercased in place, *path
 * where the path starts.  1 (a finding recorded) when the line is not
 * one. */
static int
split_line(const struct manifest *m, char *line, long lineno, size_t hexlen, char **path,
    struct listing *l)
{
	size_t k = 0;

	while ((line[k] >= '0' && line[k] <= '9') || (line[k] >= 'a' && line[k] <= 'f') ||
	    (line[k] >= 'A' && line[k] <= 'F'))
		k++;
	if (k != hexlen || (line[k] != ' ' && line[k] != '\t'))
		return listing_add(l, "manifest", m->name,
		    "line %ld: expected a %s digest, white space and a path", lineno, ALGS[m->alg]);
	for (size_t i = 0; i < k; i++)
		if (line[i] >= 'A' && line[i] <= 'F')
			line[i] = (char)(line[i] + 32);
	line[k] = '\0';
	*path = line + k + 1;
	while (**path == ' ' || **path == '\t')
		(*path)++;
	if (**path == '*')
		(*path)++; /* md5sum's binary mode marker */
	return 0;
}

/* The digest dig of rel against the one m lists (hex): 1 (a finding
 * recorded under check) when they differ. */
static int
compare_digest(struct listing *l, const char *check, const struct manifest *m, const char *rel,
    const uint8_t *dig, size_t hexlen, const char *hex)
{
	char want[2 * HASH_MAX_LEN + 1];

	for (size_t i = 0; i < hexlen / 2; i++)
		snprintf(want + 2 * i, 3, "%02x", dig[i]);
	if (strcmp(want, hex) == 0)
		return 0;
	return listing_add(l, check, rel, "%s is %s, %s says %s", ALGS[m->alg], want, m->name, hex);
}

/* A tag file listed in a tag manifest: there, with the digest listed.
 * The findings (0 or 1), or -1 when it cannot be read. */
static int
check_tag_file(struct bag *b, const struct manifest *m, const char *rel, size_t hexlen,
    const char *hex, struct listing *l, struct err *e)
{
	uint8_t dig[NALGS][HASH_MAX_LEN];
	struct stat st;
	char *full;
	int r;

	if (asprintf(&full, "%s/%s", b->root, rel) < 0)
		return err_set(e, ERR_NOMEM, "out of memory");
	if (lstat(full, &st) != 0 || !S_ISREG(st.st_mode))
		r = listing_add(l, "tagmanifest", rel, "listed in %s but missing from the bag", m->name);
	else if (hash_path(full, 1u << m->alg, dig, e) < 0)
		r = -1;
	else
		r = compare_digest(l, "tagmanifest", m, rel, dig[m->alg], hexlen, hex);
	free(full);
	return r;
}

/* A payload file listed in payload manifest mi: there, with the digest
 * listed.  The findings (0 or 1). */
static int
check_payload_file(struct bag *b, const struct manifest *m, int mi, const char *rel,
    size_t hexlen, const char *hex, struct listing *l)
{
	struct bentry *be = find_entry(b, rel);

	if (be == NULL)
		return listing_add(l, "payload", rel, "listed in %s but missing from the bag", m->name);
	be->listed |= 1u << mi;
	return compare_digest(l, "payload", m, rel, entry_digest(be, m->alg), hexlen, hex);
}

/* One line of a manifest that names a path inside the bag. */
struct mline {
	char *rel;      /* the path, decoded */
	const char *hex; /* its digest, lowercase (in the manifest's text) */
	long lineno;
	int twice;      /* a later line naming the same path */
};

static int
mline_cmp(const void *a, const void *b)
{
	const struct mline *x = *(const struct mline *const *)a, *y = *(const struct mline *const *)b;
	int c = strcmp(x->rel, y->rel);

	return c ? c : (x->lineno > y->lineno) - (x->lineno < y->lineno);
}

/* The lines of manifest text txt that name a path: each line that does not
 * is a finding.  *out (the caller frees each rel, then the array) holds
 * them in line order; 0, or -1 when out of memory. */
static int
manifest_lines(const struct manifest *m, char *txt, size_t hexlen, struct mline **out,
    size_t *n, struct listing *l, int *findings, struct err *e)
{
	char *cur = txt, *line;
	long lineno = 0;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	while ((line = next_line(&cur)) != NULL) {
		char rel[BAG_MAX_NAME + 1], *path = NULL;
		const char *why;

		lineno++;
		if (*line == '\0')
			continue;
		if (split_line(m, line, lineno, hexlen, &path, l)) {
			(*findings)++;
			continue;
		}
		if (manifest_path(path, rel, sizeof rel, &why) < 0) {
			*findings += listing_add(l, "manifest", m->name, "line %ld: \"%s\": %s", lineno, path,
			    why);
			continue;
		}
		if (!m->tag && strncmp(rel, "data/", 5) != 0) {
			*findings += listing_add(l, "manifest", m->name,
			    "line %ld: \"%s\" is outside the payload folder data/", lineno, rel);
			continue;
		}
		if (*n == cap) {
			size_t nc = cap ? 2 * cap : 64;
			struct mline *nv = realloc(*out, nc * sizeof *nv);
			if (nv == NULL)
				return err_set(e, ERR_NOMEM, "out of memory");
			*out = nv;
			cap = nc;
		}
		if (((*out)[*n].rel = strdup(rel)) == NULL)
			return err_set(e, ERR_NOMEM, "out of memory");
		(*out)[*n].hex = line;
		(*out)[*n].lineno = lineno;
		(*out)[*n].twice = 0;
		(*n)++;
	}
	return 0;
}

/* Every line naming a path already named by an earlier line is marked:
 * the lines sorted by path (then line), in O(n log n). */
static int
mark_twice(struct mline *v, size_t n, struct err *e)
{
	struct mline **by = malloc((n ? n : 1) * sizeof *by);

	if (by == NULL)
		return err_set(e, ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		by[i] = &v[i];
	qsort(by, n, sizeof *by, mline_cmp);
	for (size_t i = 1; i < n; i++)
		if (strcmp(by[i - 1]->rel, by[i]->rel) == 0)
			by[i]->twice = 1;
	free(by);
	return 0;
}

/* Every line of manifest m (payload manifest number mi), each file it
 * lists checked against it.  The findings, or -1 with e set. */
static int
check_manifest(struct bag *b, const struct manifest *m, int mi, const char *enc,
    cJSON *checks, struct err *e)
{
	struct buf raw = BUF_INIT, txt = BUF_INIT;
	struct listing l = { checks, 0 };
	struct mline *v = NULL;
	size_t n = 0;
	long listed = 0;
	int findings = 0, r;
	size_t hexlen = digest_hexlen(m->alg);

	r = read_tag(b, m->name, &raw, e);
	if (r != 0) {
		buf_release(&raw);
		return r < 0 ? -1 : 0;
	}
	if ((r = decode_tag(enc, &raw, &txt)) != 0) {
		buf_release(&raw);
		buf_release(&txt);
		if (r < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		return !bag_check_add(checks, "bagit", m->name, 0, "cannot decode as %s", enc);
	}
	buf_release(&raw);
	if (buf_addc(&txt, '\0') < 0) {
		findings = err_set(e, ERR_NOMEM, "out of memory");
		goto done;
	}
	if (manifest_lines(m, txt.p, hexlen, &v, &n, &l, &findings, e) < 0 ||
	    mark_twice(v, n, e) < 0) {
		findings = -1;
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		if (v[i].twice) {
			findings += listing_add(&l, "manifest", m->name, "line %ld: \"%s\" is listed twice",
			    v[i].lineno, v[i].rel);
			continue;
		}
		listed++;
		r = m->tag ? check_tag_file(b, m, v[i].rel, hexlen, v[i].hex, &l, e) :
		    check_payload_file(b, m, mi, v[i].rel, hexlen, v[i].hex, &l);
		if (r < 0) {
			findings = -1;
			goto done;
		}
		findings += r;
	}
	listing_end(&l, m->tag ? "tagmanifest" : "manifest", m->name);
	if (findings == 0)
		bag_check_add(checks, m->tag ? "tagmanifest" : "manifest", m->name, 1,
		    "%ld lines hold", listed);
done:
	for (size_t i = 0; v && i < n; i++)
		free(v[i].rel);
	free(v);
	buf_release(&txt);
	return findings;
}

static int
check_oxum(struct bag *b, const char *enc, cJSON *checks, struct err *e)
{
	const char *names[] = { "bag-info.txt", "package-info.txt" };
	int findings = 0;

	for (int t = 0; t < 2; t++) {
		struct buf raw = BUF_INIT, txt = BUF_INIT;
		char *cur, *line;
		int r = read_tag(b, names[t], &raw, e);
		if (r < 0)
			return -1;
		if (r == 1 || decode_tag(enc, &raw, &txt) != 0) {
			buf_release(&raw);
			buf_release(&txt);
			continue;
		}
		cur = txt.p;
		while ((line = next_line(&cur)) != NULL) {
			unsigned long long bytes, count, have_b = 0, have_c = 0;
			char *colon = strchr(line, ':');
			size_t k;
			if (colon == NULL)
				continue;
			k = (size_t)(colon - line);
			while (k > 0 && (line[k - 1] == ' ' || line[k - 1] == '\t'))
				k--;
			if (k != 12 || strncasecmp(line, "Payload-Oxum", 12) != 0)
				continue;
			if (sscanf(colon + 1, " %llu.%llu", &bytes, &count) != 2) {
				findings += !bag_check_add(checks, "oxum", names[t], 0,
				    "Payload-Oxum \"%s\" is not OCTETS.COUNT", colon + 1);
				continue;
			}
			for (size_t i = 0; i < b->nent; i++)
				have_b += b->ent[i].size, have_c++;
			if (bytes != have_b || count != have_c)
				findings += !bag_check_add(checks, "oxum", names[t], 0,
				    "Payload-Oxum says %llu bytes in %llu files, the payload has %llu in %llu",
				    bytes, count, have_b, have_c);
			else
				bag_check_add(checks, "oxum", names[t], 1, "%llu bytes in %llu files",
				    have_b, have_c);
		}
		buf_release(&raw);
		buf_release(&txt);
	}
	return findings;
}

static int
check_fetch(struct bag *b, const char *enc, cJSON *checks, struct err *e)
{
	struct buf raw = BUF_INIT, txt = BUF_INIT;
	char *cur, *line;
	long lineno = 0;
	int findings = 0, r = read_tag(b, "fetch.txt", &raw, e);

	if (r != 0) {
		buf_release(&raw);
		return r < 0 ? -1 : 0;
	}
	if (decode_tag(enc, &raw, &txt) != 0) {
		buf_release(&raw);
		buf_release(&txt);
		return !bag_check_add(checks, "fetch", "fetch.txt", 0, "cannot decode as %s", enc);
	}
	cur = txt.p;
	while ((line = next_line(&cur)) != NULL) {
		char rel[BAG_MAX_NAME + 1];
		const char *why;
		char *sp1, *sp2;
		lineno++;
		if (*line == '\0')
			continue;
		sp1 = strpbrk(line, " \t");
		sp2 = sp1 ? strpbrk(sp1 + strspn(sp1, " \t"), " \t") : NULL;
		if (sp2 == NULL) {
			findings += !bag_check_add(checks, "fetch", "fetch.txt", 0,
			    "line %ld: expected URL LENGTH PATH", lineno);
			continue;
		}
		sp2 += strspn(sp2, " \t");
		if (manifest_path(sp2, rel, sizeof rel, &why) < 0 || strncmp(rel, "data/", 5) != 0)
			findings += !bag_check_add(checks, "fetch", "fetch.txt", 0, "line %ld: \"%s\": %s",
			    lineno, sp2, manifest_path(sp2, rel, sizeof rel, &why) < 0 ? why :
			    "outside the payload folder data/");
	}
	buf_release(&raw);
	buf_release(&txt);
	return findings;
}

/* The manifests present in the bag's top folder, into m[0..*nm): each
 * payload manifest's algorithm is added to *mask.  The findings (an
 * algorithm not supported). */
static int
find_manifests(struct bag *b, struct manifest m[2 * NALGS], int *nm, int *npayload,
    unsigned *mask, cJSON *checks)
{
	DIR *d = opendir(b->root);
	struct dirent *de;
	int findings = 0;

	while (d && (de = readdir(d)) != NULL) {
		const char *n = de->d_name;
		int tag = strncmp(n, "tagmanifest-", 12) == 0;
		size_t k = strlen(n);
		if (!tag && strncmp(n, "manifest-", 9) != 0)
			continue;
		if (k < 4 || strcmp(n + k - 4, ".txt") != 0)
			continue;
		char alg[32];
		const char *a = n + (tag ? 12 : 9);
		size_t ak = (size_t)(n + k - 4 - a);
		if (ak == 0 || ak >= sizeof alg)
			continue;
		memcpy(alg, a, ak);
		alg[ak] = '\0';
		int ai = alg_index(alg);
		if (ai < 0) {
			findings += !bag_check_add(checks, "manifest", n, 0,
			    "digest algorithm \"%s\" is not supported", alg);
			continue;
		}
		if (*nm < 2 * NALGS) {
			snprintf(m[*nm].name, sizeof m[*nm].name, "%s", n);
			m[*nm].alg = ai;
			m[*nm].tag = tag;
			if (!tag)
				*mask |= 1u << ai, (*npayload)++;
			(*nm)++;
		}
	}
	if (d)
		closedir(d);
	return findings;
}

/* Every payload file digested once, with every algorithm in mask that it
 * lacks (an archive's files have their SHA-256 from extracting). */
static int
digest_payload(struct bag *b, unsigned mask, struct err *e)
{
	for (size_t i = 0; i < b->nent; i++) {
		uint8_t dig[NALGS][HASH_MAX_LEN];
		unsigned want = mask & ~b->ent[i].have;
		char *full;
		int r;
		if (want == 0)
			continue;
		if (asprintf(&full, "%s/%s", b->root, b->ent[i].name) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
		r = hash_path(full, want, dig, e);
		free(full);
		if (r < 0)
			return -1;
		if (entry_keep(&b->ent[i], want, dig) < 0)
			return err_set(e, ERR_NOMEM, "out of memory");
	}
	return 0;
}

/* Payload manifests first (they mark what they list), then tag ones;
 * then every payload file must be listed in every payload manifest.
 * The findings, or -1. */
static int
check_manifests(struct bag *b, const struct manifest *m, int nm, const char *enc, cJSON *checks,
    struct err *e)
{
	int findings = 0, mi = 0, r;

	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < nm; i++) {
			if (m[i].tag != pass)
				continue;
			r = check_manifest(b, &m[i], pass ? 0 : mi, enc, checks, e);
			if (r < 0)
				return -1;
			findings += r;
			if (!pass)
				mi++;
		}
	for (int j = 0, k = 0; j < nm; j++) {
		struct listing l = { checks, 0 };
		if (m[j].tag)
			continue;
		for (size_t i = 0; i < b->nent; i++)
			if (!(b->ent[i].listed & (1u << k)))
				findings += listing_add(&l, "payload", b->ent[i].name,
				    "in the payload but not listed in %s", m[j].name);
		listing_end(&l, "manifest", m[j].name);
		k++;
	}
	return findings;
}

int
bag_check(struct bag *b, cJSON *checks, struct err *e)
{
	char enc[64];
	struct manifest m[2 * NALGS];
	int nm = 0, npayload = 0, findings = 0, r;
	unsigned mask = 1u << ALG_SHA256;

	for (size_t i = 0; i < b->noutside; i++)
		findings += !bag_check_add(checks, "path", b->outside[i] ? b->outside[i] : "?", 0,
		    "the archive holds this entry outside the bag's folder");
	r = check_bagit_txt(b, checks, enc, sizeof enc, e);
	if (r < 0)
		return -1;
	if (r > 0) {
		char probe[] = "bagit.txt";
		struct buf raw = BUF_INIT;
		if (read_tag(b, probe, &raw, e) == 1) {
			buf_release(&raw);
			return 1; /* not a bag: nothing else means anything */
		}
		buf_release(&raw);
		findings++;
	}
	{
		struct buf probe = BUF_INIT, out = BUF_INIT;
		if (decode_tag(enc, &probe, &out) == 1) {
			bag_check_add(checks, "bagit", "bagit.txt", 0,
			    "Tag-File-Character-Encoding \"%s\" is not supported", enc);
			snprintf(enc, sizeof enc, "UTF-8");
			findings++;
		}
		buf_release(&out);
	}
	findings += find_manifests(b, m, &nm, &npayload, &mask, checks);
	if (npayload == 0)
		findings += !bag_check_add(checks, "manifest", "manifest-*.txt", 0,
		    "the bag has no payload manifest");
	if (digest_payload(b, mask, e) < 0 || (r = check_manifests(b, m, nm, enc, checks, e)) < 0)
		return -1;
	findings += r;
	r = check_oxum(b, enc, checks, e);
	if (r < 0)
		return -1;
	findings += r;
	r = check_fetch(b, enc, checks, e);
	if (r < 0)
		return -1;
	findings += r;
	return findings > 0 ? 1 : 0;
}

int
bag_payload_sha256(const struct bag *b, const char *name, uint8_t d[HASH_LEN])
{
	const struct bentry *be = find_entry(b, name);

	if (be == NULL || !(be->have & (1u << ALG_SHA256)))
		return -1;
	memcpy(d, be->sha, HASH_LEN);
	return 0;
}

size_t
bag_payload_count(const struct bag *b)
{
	return b->nent;
}

const char *
bag_payload_name(const struct bag *b, size_t i)
{
	return i < b->nent ? b->ent[i].name : NULL;
}

int
bag_confined(const struct bag *b, const char *rel, const char **why)
{
	char name[BAG_MAX_NAME + 1], path[BAG_MAX_NAME * 2];
	size_t k = strlen(b->root);

	if (rel[0] == '/') {
		*why = "absolute path";
		return -1;
	}
	if (safe_name(rel, name, sizeof name, why) < 0)
		return -1;
	if (strcmp(name, rel) != 0) {
		*why = "not in its plain form (a \"./\" or a trailing \"/\")";
		return -1;
	}
	if (k + 1 + strlen(name) >= sizeof path) {
		*why = "name too long";
		return -1;
	}
	/* every step under the root must be a folder or the file itself, never
	 * a link, so that nothing it names lies outside the bag */
	snprintf(path, sizeof path, "%s/%s", b->root, name);
	for (char *s = path + k + 1;; s++) {
		struct stat st;
		char *slash = strchr(s, '/');
		if (slash)
			*slash = '\0';
		if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
			*why = "a symbolic link on the way";
			return -1;
		}
		if (slash == NULL)
			break;
		*slash = '/';
		s = slash;
	}
	return 0;
}

int
bag_info_get(const struct bag *b, const char *label, struct buf *out, struct err *e)
{
	struct buf raw = BUF_INIT;
	size_t k = strlen(label);
	int r = read_tag(b, "bag-info.txt", &raw, e), found = 0;

	if (r != 0)
		return r;
	for (size_t i = 0; i < raw.len && !found;) {
		const char *line = raw.p + i, *end = memchr(line, '\n', raw.len - i);
		size_t n = end ? (size_t)(end - line) : raw.len - i, j = k;
		i += n + 1;
		if (n > 0 && line[n - 1] == '\r')
			n--;
		if (n <= k || strncasecmp(line, label, k) != 0)
			continue;
		while (j < n && (line[j] == ' ' || line[j] == '\t'))
			j++;
		if (j >= n || line[j] != ':')
			continue;
		for (j++; j < n && (line[j] == ' ' || line[j] == '\t'); j++)
			;
		buf_reset(out);
		if (buf_add(out, line + j, n - j) < 0 || buf_add(out, "", 1) < 0) {
			buf_release(&raw);
			return err_set(e, ERR_NOMEM, "out of memory");
		}
		out->len--;
		found = 1;
	}
	buf_release(&raw);
	return found ? 0 : 1;
}
