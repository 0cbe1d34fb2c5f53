/*
 * Sending one file of published documentation the way nginx would: the
 * validators (ETag, Last-Modified, 304 on If-None-Match), a single byte
 * range (206, or 416 when unsatisfiable; If-Range honoured), and gzip for
 * text types when the client asks for it. A small uncompressed file is
 * read into memory and sent with its headers in one go; a larger one is
 * handed to libmicrohttpd as a descriptor and offset, so the kernel copies
 * it (sendfile). Small and compressed bodies are kept in a small shared
 * cache, so a popular page is read and compressed once and sent from
 * memory without a copy. Files are opened beneath their
 * version's directory (docs_open_inside), never by a path that could
 * lead out of it.
 *
 * Choices where HTTP leaves room (docs/serving.md): several ranges in one
 * request get the whole file (200), as a multipart body would be the only
 * other answer; a Range request is answered from the identity encoding,
 * never compressed; a malformed Range header is ignored.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "cache.h"
#include "docs.h"

/* Smaller text files are sent as they are: gzip's header and trailer
 * would eat most of the gain, and the CPU is better spent elsewhere. */
#define DOCS_GZIP_MIN 512
/* Larger files are sent uncompressed, bounding the memory one request
 * may take (the biggest HTML pages of real projects are a few MiB). */
#define DOCS_GZIP_MAX (16 * 1024 * 1024)
/* zlib's default compression level: nginx's gzip_comp_level is 1, but a
 * local server has CPU to spare and the pages are small. */
#define DOCS_GZIP_LEVEL 6
/* windowBits for deflateInit2: 15 (32 KiB window) + 16 selects the gzip
 * wrapper instead of zlib's. */
#define DOCS_GZIP_WINDOW (15 + 16)
/* Files up to this size are read into memory and sent from there rather
 * than with sendfile(): libmicrohttpd then sends headers and body in one
 * call instead of corking the socket around a sendfile, which measured
 * about 25% more pages a second for a 30 KB page (docs/serving.md). */
#define DOCS_MEMORY_MAX (64 * 1024)
/* Bodies kept for reuse (small files as they are, and compressed ones),
 * and the largest kept: at most 32 MiB of memory, enough for the hot
 * pages of several projects. */
#define DOCS_BODY_CACHE_SLOTS 128
#define DOCS_BODY_CACHE_MAX_BODY (256 * 1024)
/* deflate's internal state size: zlib's default, a fine speed/memory
 * balance for pages of a few hundred KiB. */
#define DOCS_GZIP_MEMLEVEL 8

static const struct {
	const char *ext;
	const char *type;
	int text; /* worth compressing */
} types[] = {
	{ "html", "text/html; charset=utf-8", 1 },
	{ "htm", "text/html; charset=utf-8", 1 },
	{ "css", "text/css", 1 },
	{ "js", "application/javascript", 1 },
	{ "json", "application/json", 1 },
	{ "png", "image/png", 0 },
	{ "jpg", "image/jpeg", 0 },
	{ "jpeg", "image/jpeg", 0 },
	{ "svg", "image/svg+xml", 1 },
	{ "gif", "image/gif", 0 },
	{ "ico", "image/x-icon", 0 },
	{ "woff2", "font/woff2", 0 },
	{ "txt", "text/plain; charset=utf-8", 1 },
	{ "xml", "application/xml", 1 },
	{ "pdf", "application/pdf", 0 },
	{ "epub", "application/epub+zip", 0 },
	{ "zip", "application/zip", 0 },
};

static int type_index(const char *name)
{
	const char *slash = strrchr(name, '/');
	const char *dot = strrchr(slash ? slash : name, '.');
	size_t i;

	for (i = 0; dot && i < sizeof(types) / sizeof(types[0]); i++)
		if (strcasecmp(dot + 1, types[i].ext) == 0)
			return (int)i;
	return -1;
}

const char *docs_content_type(const char *name)
{
	int i = type_index(name);

	return i < 0 ? "application/octet-stream" : types[i].type;
}

int docs_dir_open(const char *root)
{
	return open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* fd if it is a regular file (st filled), else -1 with fd closed. */
static int regular_file(int fd, struct stat *st)
{
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		return -1;
	}
	return fd;
}

int docs_open_beneath(int dirfd, const char *rel, struct stat *st)
{
	struct open_how how;
	int fd;

	memset(&how, 0, sizeof(how));
	how.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
	if (fd >= 0)
		return regular_file(fd, st);
	/* ENOSYS: a kernel before 5.6 (or a sandbox refusing the call);
	 * EXDEV/ELOOP: a symlink RESOLVE_BENEATH does not follow, which may
	 * still stay inside; EAGAIN/EPERM: a retry or policy refusal. */
	return errno == ENOSYS || errno == EXDEV || errno == ELOOP ||
		       errno == EAGAIN || errno == EPERM
		       ? -2
		       : -1;
}

/* The realpath() check docs_open_beneath stands in for: the file's real
 * path must lie inside root's. */
static int open_real_inside(const char *root, const char *rel,
			    struct stat *st)
{
	char path[DOCS_PATH_MAX], real[DOCS_PATH_MAX], root_real[DOCS_PATH_MAX];
	size_t rn;

	if (realpath(root, root_real) == NULL ||
	    (size_t)snprintf(path, sizeof(path), "%s/%s", root, rel) >=
		    sizeof(path) ||
	    realpath(path, real) == NULL)
		return -1;
	rn = strlen(root_real);
	if (strncmp(real, root_real, rn) != 0 || real[rn] != '/')
		return -1;
	return regular_file(open(real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), st);
}

int docs_open_inside(int dirfd, const char *root, const char *rel,
		     struct stat *st)
{
	int fd = docs_open_beneath(dirfd, rel, st);

	return fd == -2 ? open_real_inside(root, rel, st) : fd;
}

/* Validators -------------------------------------------------------------- */

/* Whether an If-None-Match list names etag ("*", weak tags compared
 * weakly, as RFC 9110 §13.1.2 asks for GET). */
static int etag_matches(const char *header, const char *etag)
{
	size_t elen = strlen(etag);

	while (header && *header) {
		size_t n;

		header += strspn(header, " \t,");
		if (strncmp(header, "W/", 2) == 0)
			header += 2;
		n = strcspn(header, ",");
		while (n > 0 && (header[n - 1] == ' ' || header[n - 1] == '\t'))
			n--;
		if ((n == 1 && header[0] == '*') ||
		    (n == elen && memcmp(header, etag, n) == 0))
			return 1;
		header += n;
		header += strcspn(header, ",");
	}
	return 0;
}

/* Whether one Accept-Encoding element ("gzip;q=0.5") accepts gzip. */
static int element_accepts_gzip(const char *e, size_t n)
{
	char buf[64];
	const char *q;
	size_t name_n;

	if (n >= sizeof(buf))
		return 0;
	memcpy(buf, e, n);
	buf[n] = '\0';
	name_n = strcspn(buf, " \t;");
	if (!(name_n == 4 && strncasecmp(buf, "gzip", 4) == 0) &&
	    !(name_n == 1 && buf[0] == '*'))
		return 0;
	q = strstr(buf, "q=");
	return q == NULL || strtod(q + 2, NULL) > 0;
}

/* Whether the client takes gzip: "gzip" (or "*") listed without q=0. */
static int accepts_gzip(const char *header)
{
	while (header && *header) {
		size_t n;

		header += strspn(header, " \t,");
		n = strcspn(header, ",");
		if (n > 0 && element_accepts_gzip(header, n))
			return 1;
		header += n;
	}
	return 0;
}

/* Range ------------------------------------------------------------------- */

enum range_kind {
	RANGE_NONE,     /* send the whole file */
	RANGE_ONE,      /* first..last */
	RANGE_INVALID,  /* 416 */
};

static int parse_u64(const char **s, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*s = p;
	*out = v;
	return 0;
}

/* The one byte range a Range header asks for within size bytes (RFC 9110
 * §14.1.2): "a-b", "a-", "-n". Malformed headers and several ranges give
 * RANGE_NONE. */
static enum range_kind parse_range(const char *h, uint64_t size,
				   uint64_t *first, uint64_t *last)
{
	uint64_t a = 0, b = UINT64_MAX;

	if (h == NULL || strncasecmp(h, "bytes=", 6) != 0 ||
	    strchr(h, ',') != NULL)
		return RANGE_NONE;
	h += 6;
	if (*h == '-') {
		h++;
		if (parse_u64(&h, &b) < 0 || *h != '\0')
			return RANGE_NONE;
		if (b == 0 || size == 0)
			return RANGE_INVALID;
		*first = b >= size ? 0 : size - b;
		*last = size - 1;
		return RANGE_ONE;
	}
	if (parse_u64(&h, &a) < 0 || *h++ != '-')
		return RANGE_NONE;
	if (*h != '\0' && (parse_u64(&h, &b) < 0 || *h != '\0' || b < a))
		return RANGE_NONE;
	if (a >= size)
		return RANGE_INVALID;
	*first = a;
	*last = b >= size ? size - 1 : b;
	return RANGE_ONE;
}

/* If-Range (RFC 9110 §13.1.5): the range applies only when the validator
 * is the current strong ETag or the exact Last-Modified date. */
static int if_range_holds(const char *h, const struct srv_response *res)
{
	if (h == NULL)
		return 1;
	if (h[0] == '"')
		return strcmp(h, res->etag) == 0;
	return strcmp(h, res->last_modified) == 0;
}

static int send_range(struct docs_ctx *c, int fd, uint64_t size,
		      enum range_kind kind, uint64_t first, uint64_t last)
{
	struct srv_response *res = c->res;
	char value[80];

	if (kind == RANGE_INVALID) {
		close(fd);
		snprintf(value, sizeof(value), "bytes */%" PRIu64, size);
		srv_response_header(res, "Content-Range", value);
		return srv_respond_empty(res, 416);
	}
	snprintf(value, sizeof(value),
		 "bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64, first, last, size);
	srv_response_header(res, "Content-Range", value);
	res->status = 206;
	res->has_file = 1;
	res->file_fd = fd;
	res->file_offset = first;
	res->file_size = last - first + 1;
	return 206;
}

/* Bodies kept ------------------------------------------------------------ */

/*
 * File bodies already read or compressed, so a popular page is read and
 * compressed once: direct-mapped on the file's identity (device, inode,
 * mtime, size) and encoding, so a rebuilt page (a new file) never gets an
 * old body. Shared by the server's threads under one mutex held only for
 * a lookup or a store; a body is a blob (handler.h), so a hit hands the
 * response a reference instead of a copy.
 */
struct body_entry {
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	off_t size;
	int gzip;
	struct srv_blob *body; /* NULL: empty slot */
};

static struct body_entry body_cache[DOCS_BODY_CACHE_SLOTS];
static pthread_mutex_t body_cache_lock = PTHREAD_MUTEX_INITIALIZER;

static struct body_entry *body_slot(const struct stat *st, int gzip)
{
	uint64_t h = ((uint64_t)st->st_dev * 0x9e3779b97f4a7c15ULL) ^
		     (uint64_t)st->st_ino ^ (uint64_t)gzip;

	return &body_cache[h % DOCS_BODY_CACHE_SLOTS];
}

static int same_body(const struct body_entry *e, const struct stat *st,
		     int gzip)
{
	return e->body && e->gzip == gzip && e->dev == st->st_dev &&
	       e->ino == st->st_ino && e->size == st->st_size &&
	       e->mtime.tv_sec == st->st_mtim.tv_sec &&
	       e->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* The kept body of st in this encoding as res's body; 0, or -1 on a
 * miss. */
static int body_cached(const struct stat *st, int gzip,
		       struct srv_response *res)
{
	struct body_entry *e = body_slot(st, gzip);
	int hit;

	pthread_mutex_lock(&body_cache_lock);
	hit = same_body(e, st, gzip);
	if (hit)
		srv_response_set_blob(res, e->body);
	pthread_mutex_unlock(&body_cache_lock);
	return hit ? 0 : -1;
}

/* Keep res's body (just made) for st, and send it from the kept blob. */
static void body_keep(const struct stat *st, int gzip,
		      struct srv_response *res)
{
	struct body_entry *e = body_slot(st, gzip);
	struct srv_blob *blob;

	if (res->body_len > DOCS_BODY_CACHE_MAX_BODY ||
	    (blob = srv_response_share_body(res)) == NULL)
		return;
	pthread_mutex_lock(&body_cache_lock);
	srv_blob_release(e->body);
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	e->mtime = st->st_mtim;
	e->size = st->st_size;
	e->gzip = gzip;
	e->body = blob;
	pthread_mutex_unlock(&body_cache_lock);
}

/* Compression ------------------------------------------------------------- */

/* Read all of fd (size bytes) and gzip it into res->body. -1 on failure
 * (the caller then sends the file as it is). */
static int gzip_body(int fd, uint64_t size, struct srv_response *res)
{
	unsigned char *in = malloc(size ? (size_t)size : 1);
	unsigned char *out = NULL;
	z_stream z;
	size_t got = 0;
	int ok = -1;

	memset(&z, 0, sizeof(z));
	if (in == NULL)
		goto done;
	while (got < size) {
		ssize_t n = pread(fd, in + got, (size_t)size - got,
				  (off_t)got);

		if (n <= 0)
			goto done;
		got += (size_t)n;
	}
	if (deflateInit2(&z, DOCS_GZIP_LEVEL, Z_DEFLATED, DOCS_GZIP_WINDOW,
			 DOCS_GZIP_MEMLEVEL, Z_DEFAULT_STRATEGY) != Z_OK)
		goto done;
	z.avail_out = (uInt)deflateBound(&z, (uLong)size);
	if ((out = malloc(z.avail_out)) == NULL)
		goto end;
	z.next_in = in;
	z.avail_in = (uInt)size;
	z.next_out = out;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		goto end;
	res->body = (char *)out;
	res->body_len = z.total_out;
	out = NULL;
	ok = 0;
end:
	deflateEnd(&z);
done:
	free(in);
	free(out);
	return ok;
}

/* Fill res with the compressed body of fd (closed): from the cache, or
 * made now and kept. -1 when compression failed (fd stays open). */
static int send_gzip(int fd, const struct stat *st, struct srv_response *res)
{
	if (body_cached(st, 1, res) < 0) {
		if (gzip_body(fd, (uint64_t)st->st_size, res) < 0)
			return -1;
		body_keep(st, 1, res);
	}
	close(fd);
	srv_response_header(res, "Content-Encoding", "gzip");
	return 0;
}

/* Sending ----------------------------------------------------------------- */

/* A small file's bytes as res's body and fd closed: kept from an
 * earlier request, or read now (and kept); -1 (fd left open) when it
 * cannot be read. */
static int read_small(int fd, const struct stat *st, struct srv_response *res)
{
	uint64_t size = (uint64_t)st->st_size;
	char *buf;
	size_t got = 0;

	if (body_cached(st, 0, res) == 0) {
		close(fd);
		return 0;
	}
	if ((buf = malloc(size ? (size_t)size : 1)) == NULL)
		return -1;
	while (got < size) {
		ssize_t n = pread(fd, buf + got, (size_t)size - got, (off_t)got);

		if (n <= 0) {
			free(buf);
			return -1;
		}
		got += (size_t)n;
	}
	close(fd);
	res->body = buf;
	res->body_len = (size_t)size;
	body_keep(st, 0, res);
	return 0;
}

/* Both validators are written in place: a quote, two 64-bit numbers in hex,
 * '-', the gzip suffix, a quote and NUL; an HTTP date of 29 bytes. */
_Static_assert(sizeof(((struct srv_response *)0)->etag) >= 2 * 16 + 9,
	       "ETag buffer too small");
_Static_assert(sizeof(((struct srv_response *)0)->last_modified) == 40,
	       "Last-Modified buffer is copied whole");

/* Append v in lowercase hex at out[*n]. */
static void put_hex(char *out, size_t *n, uint64_t v)
{
	char digits[16];
	size_t k = 0;

	do {
		digits[k++] = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v);
	while (k > 0)
		out[(*n)++] = digits[--k];
}

/* The HTTP date of t into out (40 bytes), remembered per thread: the pages
 * of a site share a few modification times, and gmtime_r() with strftime()
 * cost more than everything else a remembered page needs. */
static void http_date(time_t t, char *out)
{
	static _Thread_local time_t memo_time;
	static _Thread_local char memo[40];
	struct tm tm;

	if (memo[0] == '\0' || memo_time != t) {
		if (gmtime_r(&t, &tm) == NULL ||
		    strftime(memo, sizeof(memo), "%a, %d %b %Y %H:%M:%S GMT",
			     &tm) == 0) {
			memo[0] = '\0';
			out[0] = '\0';
			return;
		}
		memo_time = t;
	}
	memcpy(out, memo, sizeof(memo));
}

static void set_validators(struct srv_response *res, const struct stat *st,
			   int gzipped)
{
	static const char gz[] = "-gzip";
	size_t n = 0;

	/* "<mtime>-<size>" in hex, the form nginx uses. The compressed
	 * representation is a different entity: its own tag keeps a cached
	 * gzip body from matching an identity request. */
	res->etag[n++] = '"';
	put_hex(res->etag, &n, (uint64_t)st->st_mtime);
	res->etag[n++] = '-';
	put_hex(res->etag, &n, (uint64_t)st->st_size);
	if (gzipped) {
		memcpy(res->etag + n, gz, sizeof(gz) - 1);
		n += sizeof(gz) - 1;
	}
	res->etag[n++] = '"';
	res->etag[n] = '\0';
	http_date(st->st_mtime, res->last_modified);
}

int docs_send_file(struct docs_ctx *c, int fd, const struct stat *st,
		   const char *name, int status)
{
	struct srv_response *res = c->res;
	const char *range = status == 200 ? srv_header(c->req, "Range") : NULL;
	uint64_t size = (uint64_t)st->st_size, first = 0, last = 0;
	int ti = type_index(name);
	int text = ti >= 0 && types[ti].text;
	int gzip = text && range == NULL && size >= DOCS_GZIP_MIN &&
		   size <= DOCS_GZIP_MAX &&
		   accepts_gzip(srv_header(c->req, "Accept-Encoding"));
	enum range_kind kind;

	set_validators(res, st, gzip);
	/* What one user may read must not be kept by a shared cache. */
	if (c->private_content)
		srv_response_header(res, "Cache-Control", "private");
	if (text)
		res->vary = strncmp(types[ti].type, "text/html", 9) == 0
				    ? "Accept, Accept-Encoding"
				    : "Accept-Encoding";
	if (status == 200 &&
	    etag_matches(srv_header(c->req, "If-None-Match"), res->etag)) {
		close(fd);
		return srv_respond_empty(res, 304);
	}
	res->content_type = docs_content_type(name);
	if (status == 200)
		srv_response_header(res, "Accept-Ranges", "bytes");
	kind = parse_range(range, size, &first, &last);
	if (kind != RANGE_NONE &&
	    if_range_holds(srv_header(c->req, "If-Range"), res))
		return send_range(c, fd, size, kind, first, last);
	res->status = status;
	if (gzip && send_gzip(fd, st, res) == 0)
		return status;
	if (gzip) /* compression failed: the identity entity after all */
		set_validators(res, st, 0);
	if (size <= DOCS_MEMORY_MAX && read_small(fd, st, res) == 0)
		return status;
	res->has_file = 1;
	res->file_fd = fd;
	res->file_size = size;
	return status;
}

int docs_send_text(struct docs_ctx *c, char *body, size_t len,
		   const char *type, const struct stat *st, const char *tag)
{
	struct srv_response *res = c->res;
	size_t n, tn = strlen(tag);

	if (st) {
		set_validators(res, st, 0);
		/* Another entity than the file: its own tag. */
		n = strlen(res->etag);
		if (n > 1 && n + tn < sizeof(res->etag)) {
			memcpy(res->etag + n - 1, tag, tn);
			memcpy(res->etag + n - 1 + tn, "\"", 2);
		}
	} else {
		snprintf(res->etag, sizeof(res->etag), "\"%016" PRIx64 "\"",
			 srv_hash_body(body, len));
	}
	if (c->private_content)
		srv_response_header(res, "Cache-Control", "private");
	res->vary = "Accept, Accept-Encoding";
	if (etag_matches(srv_header(c->req, "If-None-Match"), res->etag)) {
		free(body);
		return srv_respond_empty(res, 304);
	}
	res->status = 200;
	res->content_type = type;
	res->body = body;
	res->body_len = len;
	return 200;
}
