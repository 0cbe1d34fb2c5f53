/*
 * The HTTP server's connection to libmicrohttpd: starting and stopping the
 * daemons, collecting each request (raw URI, headers and body under their
 * caps), handing the complete request to the router, and sending the
 * response. Connections are watched by the guard (guard.c): per-address
 * and total limits, a deadline on each request's headers.
 *
 * Threading: the server runs one libmicrohttpd daemon per thread, all
 * accepting on one listening socket, and each thread runs its daemon's
 * event loop itself (loop_main): it waits on the daemon's epoll descriptor
 * and lets MHD_run do what is ready without blocking. libmicrohttpd
 * 0.9.75's own loop blocks again in epoll_wait after a batch of exactly
 * 128 events, leaving those connections unserved until the next event or
 * timeout. A request is handled start to finish on one thread, which owns
 * one store handle (SQLite connections are not shared between threads).
 * Handlers are short database calls, so a thread per core keeps every
 * core busy without a separate worker queue.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "lectern/store.h"
#include "lectern/user.h"
#include "cache.h"
#include "guard.h"
#include "hook_sender.h"
#include "server.h"

/* One daemon and the thread running its event loop. */
struct srv_loop {
	struct MHD_Daemon *daemon;
	int epoll_fd;        /* the daemon's, which the thread waits on */
	int stop_fd;         /* the server's: readable once it stops */
	pthread_t thread;
	int running;         /* the thread was started: join it */
};

struct srv {
	/* The TCP port's daemons, then the owner's unix socket's (on its
	 * own, or beside the port with socket_and_tcp): nloops in use. */
	struct srv_loop *loops;
	unsigned nloops;
	int stop_fd;         /* eventfd the loop threads wait on, or -1 */
	struct srv_guard *guard;
	struct srv_hook_sender *hooks; /* outgoing webhook deliveries */
	struct srv_config config;
	char *data_dir;
	char *docs_domain;
	char base_url[128];
	unsigned short port;
	pthread_key_t store_key;
	pthread_key_t cache_key;
};

void srv_log(const char *fmt, ...)
{
	va_list ap;

	fputs("lectern serve: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Per-thread store ----------------------------------------------------- */

static void close_thread_store(void *store)
{
	lec_store_free(store);
}

struct lec_store *srv_store(struct srv_request *req)
{
	struct srv *srv = req->srv;
	struct lec_store *store = pthread_getspecific(srv->store_key);

	if (store)
		return store;
	if (lec_store_open_dir(&store, srv->data_dir, NULL) < 0) {
		srv_log("cannot open the store: %s", lec_error_last());
		return NULL;
	}
	pthread_setspecific(srv->store_key, store);
	return store;
}

static void free_thread_cache(void *cache)
{
	srv_cache_free(cache);
}

struct srv_cache *srv_thread_cache(struct srv_request *req)
{
	struct srv *srv = req->srv;
	struct srv_cache *cache = pthread_getspecific(srv->cache_key);

	if (cache == NULL && (cache = srv_cache_new()) != NULL)
		pthread_setspecific(srv->cache_key, cache);
	return cache;
}

/* Accessors ------------------------------------------------------------ */

const char *srv_header(struct srv_request *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

const char *srv_query(const struct srv_request *req, const char *key)
{
	size_t i;

	for (i = 0; i < req->nquery; i++)
		if (strcmp(req->query[i].key, key) == 0)
			return req->query[i].value;
	return NULL;
}

/* A host is only used for links when it looks like host[:port]; anything
 * else falls back to the listening address, so a header cannot inject
 * text into links. */
static int plausible_host(const char *h, size_t n)
{
	size_t i;

	if (n == 0 || n > SRV_MAX_HOST)
		return 0;
	for (i = 0; i < n; i++)
		if (h[i] == '\0' ||
		    !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789.-:[]_", h[i]))
			return 0;
	return 1;
}

/* The value of parameter `name` in the first element of a Forwarded
 * header (RFC 7239: the proxy nearest the client, which saw the host it
 * asked for), unquoted, into out; 0 when absent or too long. */
static int forwarded_param(const char *h, const char *name, char *out,
			   size_t cap)
{
	size_t nlen = strlen(name), n;
	const char *p = h, *v;

	while (p && *p && *p != ',') {
		while (*p == ' ' || *p == ';')
			p++;
		if (strncasecmp(p, name, nlen) == 0 && p[nlen] == '=') {
			v = p + nlen + 1;
			if (*v == '"')
				n = strcspn(++v, "\"");
			else
				n = strcspn(v, ";, ");
			if (n == 0 || n >= cap)
				return 0;
			memcpy(out, v, n);
			out[n] = '\0';
			return 1;
		}
		p += strcspn(p, ";,");
	}
	return 0;
}

/* The first value of a comma-separated X-Forwarded-* header into out. */
static int first_value(const char *h, char *out, size_t cap)
{
	size_t n;

	if (h == NULL)
		return 0;
	h += strspn(h, " ");
	n = strcspn(h, ", ");
	if (n == 0 || n >= cap)
		return 0;
	memcpy(out, h, n);
	out[n] = '\0';
	return 1;
}

/* The forwarded host or proto ("host", "proto") a trusted proxy set. */
static int forwarded(struct srv_request *req, const char *what, char *out,
		     size_t cap)
{
	const char *fwd = srv_header(req, "Forwarded");
	char xname[32];

	if (!req->srv->config.trust_forwarded)
		return 0;
	if (fwd && forwarded_param(fwd, what, out, cap))
		return 1;
	snprintf(xname, sizeof(xname), "X-Forwarded-%s", what);
	return first_value(srv_header(req, xname), out, cap);
}

const char *srv_request_host(struct srv_request *req)
{
	const char *host;
	char fwd[SRV_MAX_HOST + 1];

	if (req->host[0])
		return req->host;
	if (forwarded(req, "host", fwd, sizeof(fwd)))
		host = fwd;
	else
		host = srv_header(req, "Host");
	if (host == NULL || !plausible_host(host, strlen(host)))
		return NULL;
	snprintf(req->host, sizeof(req->host), "%s", host);
	return req->host;
}

const char *srv_request_scheme(struct srv_request *req)
{
	char proto[8];

	if (forwarded(req, "proto", proto, sizeof(proto)) &&
	    strcasecmp(proto, "https") == 0)
		return "https";
	return "http";
}

const char *srv_request_origin(struct srv_request *req)
{
	const char *host = srv_request_host(req);

	if (req->origin[0])
		return req->origin;
	if (host)
		snprintf(req->origin, sizeof(req->origin), "%s://%s",
			 srv_request_scheme(req), host);
	else
		snprintf(req->origin, sizeof(req->origin), "%s",
			 req->srv->base_url);
	return req->origin;
}

/* The ":port" of host[:port] ("[v6]:port" too), or "". */
static const char *port_of(const char *host)
{
	const char *colon = strrchr(host, ':');

	if (colon == NULL || (host[0] == '[' && colon < strchr(host, ']')))
		return "";
	return colon;
}

const char *srv_docs_domain(struct srv_request *req)
{
	const char *host;

	if (req->srv->config.docs_domain)
		return req->srv->config.docs_domain;
	if (req->docs_domain[0])
		return req->docs_domain;
	/* The docs host is <slug>.localhost on whatever port the client
	 * reached (a tunnel's, a proxy's, or none on a unix socket). */
	host = srv_request_host(req);
	if (host == NULL)
		return req->srv->docs_domain;
	snprintf(req->docs_domain, sizeof(req->docs_domain), "localhost%s",
		 port_of(host));
	return req->docs_domain;
}

int srv_peer_is_owner(struct srv_request *req)
{
	const union MHD_ConnectionInfo *info;
	struct sockaddr_storage addr;
	socklen_t len = sizeof(addr);
	struct ucred cred;
	socklen_t clen = sizeof(cred);

	if (req->srv->config.socket_path == NULL)
		return 0;
	info = MHD_get_connection_info(req->conn,
				       MHD_CONNECTION_INFO_CONNECTION_FD);
	if (info == NULL ||
	    getsockname(info->connect_fd, (struct sockaddr *)&addr, &len) < 0 ||
	    addr.ss_family != AF_UNIX ||
	    getsockopt(info->connect_fd, SOL_SOCKET, SO_PEERCRED, &cred,
		       &clen) < 0)
		return 0;
	return cred.uid == geteuid();
}

int64_t srv_owner_user_id(const struct srv_request *req)
{
	return req->srv->config.owner_user_id;
}

enum srv_edition srv_edition(const struct srv_request *req)
{
	return req->srv->config.edition;
}

const char *srv_data_dir(const struct srv_request *req)
{
	return req->srv->data_dir;
}

unsigned srv_keep_builds(const struct srv_request *req)
{
	return req->srv->config.keep_builds;
}

const char *const *srv_local_roots(const struct srv_request *req)
{
	return req->srv->config.local_roots;
}

unsigned short srv_port(const struct srv *srv)
{
	return srv->port;
}

const char *srv_base_url(const struct srv *srv)
{
	return srv->base_url;
}

const char *srv_docs_domain_of(const struct srv *srv)
{
	return srv->docs_domain;
}

/* Request life cycle --------------------------------------------------- */

static enum srv_method parse_method(const char *m)
{
	static const struct {
		const char *name;
		enum srv_method method;
	} methods[] = {
		{ "GET", SRV_GET },	  { "HEAD", SRV_HEAD },
		{ "POST", SRV_POST },	  { "PUT", SRV_PUT },
		{ "PATCH", SRV_PATCH },	  { "DELETE", SRV_DELETE },
		{ "OPTIONS", SRV_OPTIONS },
	};
	size_t i;

	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strcmp(m, methods[i].name) == 0)
			return methods[i].method;
	return SRV_METHOD_OTHER;
}

static void srv_request_free(struct srv_request *req)
{
	size_t i;

	if (req == NULL)
		return;
	for (i = 0; i < req->nquery; i++) {
		free(req->query[i].key);
		free(req->query[i].value);
	}
	free(req->query);
	free(req->raw_uri);
	free(req->path);
	free(req->body);
	lec_user_free(req->user);
	free(req);
}

/* libmicrohttpd hands us the raw URI before it unescapes anything; keeping
 * it lets the server tell "%2F" from "/" and rebuild query strings exactly.
 * The returned pointer becomes the request's state. */
static void *uri_logger(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct srv_request *req = calloc(1, sizeof(*req));

	srv_guard_request_line(conn);
	if (req == NULL)
		return NULL;
	req->srv = cls;
	req->conn = conn;
	req->raw_uri = strdup(uri);
	return req;
}

struct header_total {
	size_t bytes;
	size_t count;
};

static enum MHD_Result add_header(void *cls, enum MHD_ValueKind kind,
				  const char *key, const char *value)
{
	struct header_total *t = cls;

	(void)kind;
	t->bytes += strlen(key) + (value ? strlen(value) : 0);
	t->count++;
	return MHD_YES;
}

/* The limits a request's headers are held to as soon as they are in, so
 * that Lectern answers (JSON) well before libmicrohttpd's own buffer would
 * overflow (HTML): 0, or the response is filled.
 *
 * A body announced larger than SRV_MAX_BODY by a client waiting for
 * "100 Continue" is refused before it is sent. Any other client is already
 * sending it: answering now would close the connection under a body still
 * on its way, and the client would likely see a reset instead of the 413,
 * so the body is read and dropped (append_body) and refused at its end. */
static int check_headers(struct srv_request *req, struct srv_response *res)
{
	struct header_total t = { 0, 0 };
	const char *length = srv_header(req, MHD_HTTP_HEADER_CONTENT_LENGTH);
	const char *expect = srv_header(req, MHD_HTTP_HEADER_EXPECT);

	MHD_get_connection_values(req->conn, MHD_HEADER_KIND, add_header, &t);
	if (t.bytes > SRV_MAX_HEADER_BYTES || t.count > SRV_MAX_HEADER_COUNT)
		return srv_respond_detail(res, 431,
					  "Request header fields too large.");
	if (length && expect && strcasecmp(expect, "100-continue") == 0 &&
	    strtoull(length, NULL, 10) > SRV_MAX_BODY)
		return srv_respond_detail(res, 413, "Request body too large.");
	return 0;
}

static int append_body(struct srv_request *req, const char *data, size_t n)
{
	char *grown;

	if (req->body_too_large || req->body_len + n > SRV_MAX_BODY) {
		req->body_too_large = 1;
		return 0;
	}
	grown = realloc(req->body, req->body_len + n + 1);
	if (grown == NULL)
		return -1;
	memcpy(grown + req->body_len, data, n);
	req->body = grown;
	req->body_len += n;
	req->body[req->body_len] = '\0';
	return 0;
}

int srv_response_header(struct srv_response *res, const char *name,
			const char *value)
{
	char *copy;

	if (res->nextra >= SRV_MAX_EXTRA_HEADERS) {
		srv_log("too many headers on a response (%s)", name);
		return -1;
	}
	if ((copy = strdup(value)) == NULL)
		return -1;
	res->extra[res->nextra].name = name;
	res->extra[res->nextra++].value = copy;
	return 0;
}

void srv_response_set_blob(struct srv_response *res, struct srv_blob *blob)
{
	srv_response_drop_body(res);
	res->blob = srv_blob_hold(blob);
	res->body = srv_blob_data(blob);
	res->body_len = srv_blob_len(blob);
}

struct srv_blob *srv_response_share_body(struct srv_response *res)
{
	struct srv_blob *blob;

	if (res->blob)
		return srv_blob_hold(res->blob);
	if (res->body == NULL ||
	    (blob = srv_blob_adopt(res->body, res->body_len)) == NULL)
		return NULL;
	res->blob = blob; /* res's reference; body points into it */
	return srv_blob_hold(blob);
}

void srv_response_drop_body(struct srv_response *res)
{
	if (res->blob)
		srv_blob_release(res->blob);
	else
		free(res->body);
	res->blob = NULL;
	res->body = NULL;
	res->body_len = 0;
}

/* libmicrohttpd is done with a response sending a blob. */
static void release_blob(void *blob)
{
	srv_blob_release(blob);
}

static void free_extra_headers(struct srv_response *res)
{
	size_t i;

	for (i = 0; i < res->nextra; i++)
		free(res->extra[i].value);
	res->nextra = 0;
}

static enum MHD_Result send_response(struct srv_request *req,
				     struct srv_response *res)
{
	struct MHD_Response *r;
	enum MHD_Result ok;
	size_t i;

	/* A file is handed to libmicrohttpd, which owns the descriptor from
	 * here on and sends it with sendfile(). */
	if (res->has_file) {
		srv_response_drop_body(res);
		r = MHD_create_response_from_fd_at_offset64(
			res->file_size, res->file_fd, res->file_offset);
		if (r == NULL)
			close(res->file_fd);
	} else if (res->blob) {
		/* The response holds the reference from here on. */
		r = MHD_create_response_from_buffer_with_free_callback_cls(
			res->body_len, res->body, release_blob, res->blob);
		if (r != NULL)
			res->blob = NULL;
	} else {
		r = MHD_create_response_from_buffer(res->body_len, res->body,
						    MHD_RESPMEM_MUST_FREE);
	}
	if (r == NULL) {
		srv_response_drop_body(res);
		free(res->allow);
		free(res->location);
		free_extra_headers(res);
		return MHD_NO;
	}
	if (res->body || res->content_type)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
					res->content_type ? res->content_type
							  : "application/json");
	if (res->allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, res->allow);
	if (res->location)
		MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION,
					res->location);
	if (res->etag[0])
		MHD_add_response_header(r, MHD_HTTP_HEADER_ETAG, res->etag);
	if (res->last_modified[0])
		MHD_add_response_header(r, MHD_HTTP_HEADER_LAST_MODIFIED,
					res->last_modified);
	if (res->rtd_redirect)
		MHD_add_response_header(r, "X-RTD-Redirect",
					res->rtd_redirect);
	if (res->www_authenticate)
		MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					"Token");
	MHD_add_response_header(r, MHD_HTTP_HEADER_VARY,
				res->vary ? res->vary : "Accept, Authorization");
	/* Clients learn from any answer that this is a Lectern, with its
	 * extensions (docs/api.md), and not the hosted service. */
	MHD_add_response_header(r, "X-Lectern", SRV_API_EXTENSIONS);
	for (i = 0; i < res->nextra; i++)
		MHD_add_response_header(r, res->extra[i].name,
					res->extra[i].value);
	ok = MHD_queue_response(req->conn, (unsigned)res->status, r);
	MHD_destroy_response(r);
	free(res->allow);
	free(res->location);
	free_extra_headers(res);
	return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	struct srv_request *req = *state;
	struct srv_response res = { 0 };

	(void)cls;
	(void)url;
	(void)version;
	if (req == NULL || req->raw_uri == NULL)
		return MHD_NO; /* out of memory in uri_logger: drop */
	if (req->method_name == NULL) {
		/* First call: headers only. */
		srv_guard_headers_done(conn);
		req->method_name = method;
		req->method = parse_method(method);
		if (check_headers(req, &res) != 0)
			return send_response(req, &res);
		return MHD_YES;
	}
	if (*upload_size > 0) {
		if (append_body(req, upload, *upload_size) < 0)
			return MHD_NO;
		*upload_size = 0;
		return MHD_YES;
	}
	srv_dispatch(req, &res);
	return send_response(req, &res);
}

static void on_completed(void *cls, struct MHD_Connection *conn,
			 void **state, enum MHD_RequestTerminationCode why)
{
	(void)cls;
	(void)why;
	srv_request_free(*state);
	*state = NULL;
	srv_guard_request_done(conn);
}

/* Start/stop ----------------------------------------------------------- */

static int parse_address(const char *host, unsigned short port,
			 struct sockaddr_storage *addr, int *ipv6)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)addr;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)addr;

	memset(addr, 0, sizeof(*addr));
	if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(port);
		*ipv6 = 0;
		return 0;
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		*ipv6 = 1;
		return 0;
	}
	return -1;
}

static unsigned default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}

static void srv_free(struct srv *srv)
{
	if (srv == NULL)
		return;
	srv_guard_free(srv->guard);
	free(srv->loops);
	if (srv->stop_fd >= 0)
		close(srv->stop_fd);
	free(srv->data_dir);
	free(srv->docs_domain);
	free(srv);
}

static int init_names(struct srv *srv, int ipv6)
{
	const char *host = srv->config.listen_host;
	char domain[160];

	if (srv->config.socket_path && !srv->config.socket_and_tcp) {
		/* Clients of the socket name no port (curl's Host is the URL's:
		 * http://localhost/). */
		snprintf(srv->base_url, sizeof(srv->base_url), "http://localhost");
		snprintf(domain, sizeof(domain), "localhost");
	} else {
		snprintf(srv->base_url, sizeof(srv->base_url),
			 ipv6 ? "http://[%s]:%u" : "http://%s:%u", host,
			 srv->port);
		snprintf(domain, sizeof(domain), "localhost:%u", srv->port);
	}
	srv->docs_domain = strdup(srv->config.docs_domain
					  ? srv->config.docs_domain
					  : domain);
	return srv->docs_domain ? 0 : -1;
}

/* Whether something accepts connections on the unix socket at path. */
static int socket_answers(const struct sockaddr_un *addr)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

	if (fd < 0)
		return 0;
	ok = connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0;
	close(fd);
	return ok;
}

/* mkdir -p of the directories above path, 0700 (the socket is the
 * owner's door to the engine). */
static int make_socket_dirs(char *path)
{
	char *slash;

	for (slash = strchr(path + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST) {
			*slash = '/';
			return -1;
		}
		*slash = '/';
	}
	return 0;
}

/* A listening unix socket at path, mode 0600: the descriptor, or -1 after
 * logging why. A socket file nothing answers on is left from an engine
 * that died and is replaced; one that answers belongs to a live engine. */
static int listen_unix(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct stat st;
	char *dirs = NULL;
	mode_t old;
	int fd = -1;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		srv_log("cannot listen on %s: a socket path is at most %zu "
			"bytes", path, sizeof(addr.sun_path) - 1);
		return -1;
	}
	memcpy(addr.sun_path, path, strlen(path) + 1);
	if ((dirs = strdup(path)) == NULL || make_socket_dirs(dirs) < 0) {
		srv_log("cannot create the directory of %s: %s", path,
			strerror(errno));
		goto fail;
	}
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			srv_log("cannot listen on %s: a file that is not a "
				"socket is there", path);
			goto fail;
		}
		if (socket_answers(&addr)) {
			srv_log("cannot listen on %s: an engine already "
				"answers there", path);
			goto fail;
		}
		unlink(path);
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		goto fail_errno;
	/* The mode is the access check: only the owner may connect. */
	old = umask(0177);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		umask(old);
		goto fail_errno;
	}
	umask(old);
	if (chmod(path, 0600) < 0 || listen(fd, SOMAXCONN) < 0)
		goto fail_errno;
	free(dirs);
	return fd;
fail_errno:
	srv_log("cannot listen on %s: %s", path, strerror(errno));
fail:
	if (fd >= 0)
		close(fd);
	free(dirs);
	return -1;
}

/* A listening TCP socket on addr, its port (the one bound, when addr
 * asks for 0) into *port: the descriptor, or -1 after logging why. */
static int listen_tcp(const struct sockaddr_storage *addr, int ipv6,
		      const char *host, unsigned short *port)
{
	struct sockaddr_storage bound;
	socklen_t len = ipv6 ? sizeof(struct sockaddr_in6)
			     : sizeof(struct sockaddr_in);
	int fd, on = 1;

	fd = socket(addr->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0)
		goto fail;
	/* As libmicrohttpd's own listener: a restarted server gets its port
	 * back while the last one's connections linger in TIME_WAIT, and an
	 * IPv6 address does not take the IPv4 port too. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) < 0 ||
	    (ipv6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on,
				sizeof(on)) < 0) ||
	    bind(fd, (const struct sockaddr *)addr, len) < 0 ||
	    listen(fd, SRV_LISTEN_BACKLOG) < 0)
		goto fail;
	len = sizeof(bound);
	if (getsockname(fd, (struct sockaddr *)&bound, &len) < 0)
		goto fail;
	*port = ntohs(ipv6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
			   : ((struct sockaddr_in *)&bound)->sin_port);
	return fd;
fail:
	srv_log("cannot listen on %s:%u: %s", host, *port, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* One libmicrohttpd daemon accepting on its own copy of listen_fd, with
 * the server's handlers and limits, holding at most limit connections.
 * No thread of its own: a loop thread runs it (loop_main). NULL when it
 * cannot start (libmicrohttpd logs why). */
static struct MHD_Daemon *start_daemon(struct srv *srv, unsigned flags,
				       int listen_fd, unsigned limit)
{
	struct MHD_Daemon *d;
	/* Each daemon closes the socket it was given when it stops. */
	int fd = fcntl(listen_fd, F_DUPFD_CLOEXEC, 0);

	if (fd < 0) {
		srv_log("cannot copy a listening socket: %s", strerror(errno));
		return NULL;
	}
	d = MHD_start_daemon(
		flags, 0, srv_guard_accept, srv->guard, on_request, srv,
		/* First, or libmicrohttpd logs the options on its own. */
		MHD_OPTION_EXTERNAL_LOGGER, srv_guard_log, srv->guard,
		MHD_OPTION_LISTEN_SOCKET, fd,
		MHD_OPTION_URI_LOG_CALLBACK, uri_logger, srv,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
		MHD_OPTION_NOTIFY_CONNECTION, srv_guard_notify, srv->guard,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SRV_CONNECTION_MEMORY,
		MHD_OPTION_CONNECTION_LIMIT, limit,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SRV_CONNECTION_TIMEOUT,
		MHD_OPTION_END);
	/* libmicrohttpd closes the socket on some of its failures and not on
	 * others (epoll_create failing, say). Nothing else opens descriptors
	 * while the server starts (its threads start after its daemons), so
	 * a descriptor still open is still the copy. */
	if (d == NULL && fcntl(fd, F_GETFD) != -1)
		close(fd);
	return d;
}

/* A daemon's thread. libmicrohttpd's MHD_run never blocks: it drains the
 * daemon's epoll set without waiting and handles whatever is ready. The
 * waiting is done here, on the daemon's epoll descriptor and the stop
 * descriptor, for no longer than libmicrohttpd's timeout: 0 while a
 * connection still has data to handle, else until the oldest idle
 * connection's timeout (at most SRV_CONNECTION_TIMEOUT), or for ever
 * without connections. A failed poll (EINTR after SIGCONT, say) runs the
 * daemon all the same: that does not wait either. */
static void *loop_main(void *arg)
{
	struct srv_loop *loop = arg;
	struct pollfd fds[2] = { { loop->epoll_fd, POLLIN, 0 },
				 { loop->stop_fd, POLLIN, 0 } };
	const MHD_UNSIGNED_LONG_LONG longest = SRV_CONNECTION_TIMEOUT * 1000u;
	MHD_UNSIGNED_LONG_LONG ms;
	int timeout;

	for (;;) {
		timeout = -1;
		if (MHD_get_timeout(loop->daemon, &ms) == MHD_YES)
			timeout = (int)(ms < longest ? ms : longest);
		if (poll(fds, 2, timeout) > 0 && fds[1].revents)
			break;
		MHD_run(loop->daemon);
		srv_guard_settle();
	}
	return NULL;
}

/* Start the next loop's daemon (not its thread yet): 0, or -1. */
static int add_loop(struct srv *srv, unsigned flags, int listen_fd,
		    unsigned limit)
{
	struct srv_loop *loop = &srv->loops[srv->nloops];
	const union MHD_DaemonInfo *info;

	loop->daemon = start_daemon(srv, flags, listen_fd, limit);
	if (loop->daemon == NULL)
		return -1;
	srv->nloops++;
	info = MHD_get_daemon_info(loop->daemon, MHD_DAEMON_INFO_EPOLL_FD);
	loop->epoll_fd = info->epoll_fd;
	loop->stop_fd = srv->stop_fd;
	return 0;
}

/* Stop every loop thread, then every daemon: libmicrohttpd may only be
 * called from one thread at a time per daemon, so a daemon stops after its
 * thread has finished. Each thread finishes the request it is in; its
 * store handle and caches are freed as it exits. */
static void stop_loops(struct srv *srv)
{
	uint64_t one = 1;
	unsigned i;

	if (srv->nloops == 0)
		return;
	/* Never read: it stays readable for every thread. */
	if (write(srv->stop_fd, &one, sizeof(one)) != sizeof(one))
		srv_log("cannot stop the server's threads: %s", strerror(errno));
	for (i = 0; i < srv->nloops; i++)
		if (srv->loops[i].running)
			pthread_join(srv->loops[i].thread, NULL);
	/* Closing the connections notifies the guard, which goes after. */
	for (i = 0; i < srv->nloops; i++)
		MHD_stop_daemon(srv->loops[i].daemon);
	srv->nloops = 0;
}

int srv_start(struct srv **out, const struct srv_config *config)
{
	struct sockaddr_storage addr;
	struct srv *srv = NULL;
	unsigned flags = MHD_USE_EPOLL | MHD_USE_TURBO | MHD_USE_ERROR_LOG;
	unsigned threads, limit, i;
	unsigned short port = config->port;
	int ipv6 = 0, tcp_fd = -1, unix_fd = -1, keys = 0;
	int tcp = config->socket_path == NULL || config->socket_and_tcp;

	*out = NULL;
	if (tcp && parse_address(config->listen_host, config->port, &addr,
				 &ipv6) < 0) {
		srv_log("cannot listen on '%s': not a numeric address",
			config->listen_host);
		return -1;
	}
	if (tcp && (tcp_fd = listen_tcp(&addr, ipv6, config->listen_host,
					&port)) < 0)
		return -1;
	if (config->socket_path &&
	    (unix_fd = listen_unix(config->socket_path)) < 0)
		goto fail;
	if ((srv = calloc(1, sizeof(*srv))) == NULL)
		goto fail;
	srv->stop_fd = -1;
	srv->config = *config;
	srv->port = port;
	srv->data_dir = strdup(config->data_dir);
	if (srv->data_dir == NULL ||
	    pthread_key_create(&srv->store_key, close_thread_store) != 0)
		goto fail;
	keys = 1;
	if (pthread_key_create(&srv->cache_key, free_thread_cache) != 0)
		goto fail;
	keys = 2;
	if (srv_guard_new(&srv->guard) < 0)
		goto fail;
	threads = config->threads ? config->threads : default_threads();
	limit = srv_guard_connection_limit();
	/* A daemon whose share is 0 would never accept: fewer daemons when
	 * the open-file limit holds fewer connections than threads. */
	if (threads > limit)
		threads = limit;
	if ((srv->stop_fd = eventfd(0, EFD_CLOEXEC)) < 0 ||
	    (srv->loops = calloc(threads + 1, sizeof(*srv->loops))) == NULL) {
		srv_log("cannot start the server: %s", strerror(errno));
		goto fail;
	}
	/* The port's connections are shared out as libmicrohttpd's own
	 * thread pool does: evenly, the first daemons one more. */
	for (i = 0; tcp && i < threads; i++) {
		if (add_loop(srv, flags | (ipv6 ? MHD_USE_IPv6 : 0u), tcp_fd,
			     limit / threads + (i < limit % threads)) < 0) {
			srv_log("cannot serve on %s:%u", config->listen_host,
				port);
			goto fail_loops;
		}
	}
	/* The owner's socket: a few people's, so one thread serves it. */
	if (unix_fd >= 0 && add_loop(srv, flags, unix_fd, limit) < 0) {
		srv_log("cannot serve on %s", config->socket_path);
		goto fail_loops;
	}
	/* Each daemon has its own copy now. */
	if (tcp_fd >= 0)
		close(tcp_fd);
	if (unix_fd >= 0)
		close(unix_fd);
	tcp_fd = unix_fd = -1;
	for (i = 0; i < srv->nloops; i++) {
		if (pthread_create(&srv->loops[i].thread, NULL, loop_main,
				   &srv->loops[i]) != 0) {
			srv_log("cannot start the server's threads");
			srv_stop(srv);
			return -1;
		}
		srv->loops[i].running = 1;
	}
	if (init_names(srv, ipv6) < 0 ||
	    srv_hook_sender_start(&srv->hooks, srv->data_dir,
				  config->webhook_backoff_ms,
				  config->webhook_timeout_ms) < 0) {
		srv_stop(srv);
		return -1;
	}
	*out = srv;
	return 0;
fail_loops:
	stop_loops(srv);
fail:
	if (tcp_fd >= 0)
		close(tcp_fd);
	if (unix_fd >= 0) {
		close(unix_fd);
		unlink(config->socket_path);
	}
	if (keys >= 1)
		pthread_key_delete(srv->store_key);
	if (keys >= 2)
		pthread_key_delete(srv->cache_key);
	srv_free(srv);
	return -1;
}

void srv_stop(struct srv *srv)
{
	if (srv == NULL)
		return;
	/* The guard goes after (srv_free): closing connections notifies
	 * it. */
	stop_loops(srv);
	srv_hook_sender_stop(srv->hooks);
	if (srv->config.socket_path)
		unlink(srv->config.socket_path);
	pthread_key_delete(srv->store_key);
	pthread_key_delete(srv->cache_key);
	srv_free(srv);
}
