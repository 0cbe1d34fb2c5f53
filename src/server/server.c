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
 *
 * This is the server's top floor (docs/ARCHITECTURE.md): it calls down
 * into the router, the guard, the webhook sender and the project remover,
 * and nothing of the server calls up into it. What a request needs of the server it reads
 * from the site (request.h), which the daemon sets up and owns.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "lectern/user.h"
#include "guard.h"
#include "handler.h"
#include "hook_sender.h"
#include "remover.h"
#include "log.h"
#include "request.h"
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
	struct srv_remover *remover;   /* removed projects' files */
	struct srv_site site; /* what the requests read (request.c) */
	unsigned short port;
};

unsigned short srv_port(const struct srv *srv)
{
	return srv->port;
}

const char *srv_base_url(const struct srv *srv)
{
	return srv->site.base_url;
}

void srv_set_workers(struct srv *srv, int workers)
{
	atomic_store(&srv->site.workers, workers);
}

const char *srv_docs_domain_of(const struct srv *srv)
{
	return srv->site.docs_domain;
}

const char *srv_external_domain_of(const struct srv *srv)
{
	return srv->site.external_domain;
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
	struct srv *srv = cls;
	struct srv_request *req = calloc(1, sizeof(*req));

	srv_guard_request_line(conn);
	if (req == NULL)
		return NULL;
	req->site = &srv->site;
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

/* libmicrohttpd is done with a response sending a blob. */
static void release_blob(void *blob)
{
	srv_blob_release(blob);
}

/* A body made as it is sent (srv_response.reader), libmicrohttpd asking
 * for its next bytes. */
static ssize_t read_body(void *reader, uint64_t pos, char *buf, size_t max)
{
	struct srv_reader *r = reader;
	long n = r->read(r->state, buf, max);

	(void)pos;
	if (n > 0)
		return n;
	return n == 0 ? MHD_CONTENT_READER_END_OF_STREAM
		      : MHD_CONTENT_READER_END_WITH_ERROR;
}

/* libmicrohttpd is done with such a body: sent, or the client gone. */
static void free_body(void *reader)
{
	struct srv_reader *r = reader;

	r->done(r->state);
	free(r);
}

/* A response reading its body as it is sent; it owns the reader from
 * here on (res keeps it when this fails). */
static struct MHD_Response *reader_response(struct srv_response *res)
{
	struct srv_reader *reader = malloc(sizeof(*reader));
	struct MHD_Response *r = NULL;

	if (reader == NULL)
		return NULL;
	*reader = res->reader;
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN,
					      SRV_STREAM_BLOCK, read_body,
					      reader, free_body);
	if (r == NULL)
		free(reader);
	else
		memset(&res->reader, 0, sizeof(res->reader));
	return r;
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
	} else if (res->reader.read) {
		r = reader_response(res);
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
	srv_site_dispose(&srv->site);
	free(srv);
}

static int init_names(struct srv *srv, int ipv6)
{
	struct srv_site *site = &srv->site;
	const char *host = site->config.listen_host;
	char domain[160];

	if (site->config.socket_path && !site->config.socket_and_tcp) {
		/* Clients of the socket name no port (curl's Host is the URL's:
		 * http://localhost/). */
		snprintf(site->base_url, sizeof(site->base_url),
			 "http://localhost");
		snprintf(domain, sizeof(domain), "localhost");
	} else {
		snprintf(site->base_url, sizeof(site->base_url),
			 ipv6 ? "http://[%s]:%u" : "http://%s:%u", host,
			 srv->port);
		snprintf(domain, sizeof(domain), "localhost:%u", srv->port);
	}
	site->docs_domain = strdup(site->config.docs_domain
					   ? site->config.docs_domain
					   : domain);
	if (site->config.external_domain)
		site->external_domain = strdup(site->config.external_domain);
	else if (asprintf(&site->external_domain, "external.%s", domain) < 0)
		site->external_domain = NULL;
	return site->docs_domain && site->external_domain ? 0 : -1;
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
	int ipv6 = 0, tcp_fd = -1, unix_fd = -1;
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
	srv->port = port;
	if (srv_site_init(&srv->site, config) < 0 ||
	    srv_guard_new(&srv->guard, SRV_CROWDED_CONNECTIONS) < 0)
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
	    srv_hook_sender_start(&srv->hooks, srv->site.data_dir,
				  config->webhook_backoff_ms,
				  config->webhook_timeout_ms,
				  config->webhook_allow) < 0 ||
	    srv_remover_start(&srv->remover, srv->site.data_dir,
			      config->external_grace_s) < 0) {
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
	srv_remover_stop(srv->remover);
	if (srv->site.config.socket_path)
		unlink(srv->site.config.socket_path);
	srv_free(srv);
}
