/*
 * The egress proxy (egress.h): the request parser, the engine's proxy (an
 * acceptor thread per command taking descriptors from the sandbox, a
 * thread per connection that reads the head, resolves, checks, connects
 * and relays), and the forwarder that runs inside the sandbox.
 *
 * A connection's thread is detached and holds a reference on the proxy,
 * so stopping never waits for it: a name that takes the resolver long to
 * answer keeps only its own thread, which then sees the stop and ends
 * without connecting. Every wait polls the proxy's stop pipe, whose write
 * end is closed to stop: one close wakes every thread at once.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "lectern/egress.h"

/* Headers in one request: a package manager sends about ten. */
#define EGRESS_HEADERS_MAX 100
/* Longest method name: the standard ones are at most 7 bytes. */
#define EGRESS_METHOD_MAX 16
/* Bytes relayed at a time in each direction of a connection: the engine
 * holds two such buffers per connection, at most
 * LEC_EGRESS_MAX_CONNECTIONS connections per command. */
#define EGRESS_BUF (64 * 1024)
/* A client's time to send its request head: generous for a slow sandbox,
 * short enough that an idle connection does not hold a thread long. */
#define EGRESS_HEAD_MS (30 * 1000)
/* One address's time to accept a connection, as pip's default timeout. */
#define EGRESS_CONNECT_MS (15 * 1000)
/* Time for the client to take a refusal or an error: it is a few bytes. */
#define EGRESS_ANSWER_MS (5 * 1000)
/* Addresses one name is tried at: a few of each family is what names
 * have; a name with hundreds only costs connection attempts. */
#define EGRESS_ADDRESSES_MAX 16
/* Descriptors received from one message: the forwarder sends one; of a
 * message carrying more, the kernel drops those past this room and the
 * proxy closes all but the first. */
#define EGRESS_FDS_PER_MESSAGE 4
/* Connections waiting for the forwarder's accept: the command opens a
 * few at a time. */
#define EGRESS_BACKLOG 64
/* "65535" and its NUL. */
#define PORT_TEXT_MAX 6

/* Parsing ------------------------------------------------------------------ */

/* A token character (RFC 9110): what a method or a header name holds. */
static int is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') ||
	       (c != '\0' && strchr("!#$%&'*+-.^_`|~", c));
}

/* A host name's characters: letters, digits, '-', '.' and the '_' some
 * names carry. */
static int is_host_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

/* Whether n bytes of s start with prefix, case-insensitively. */
static int starts_nocase(const char *s, size_t n, const char *prefix)
{
	size_t m = strlen(prefix);

	return n >= m && strncasecmp(s, prefix, m) == 0;
}

/* host[:port] or [v6][:port], n bytes, into host and port (default_port
 * when none; 0: a port is required). */
static int parse_authority(const char *s, size_t n, unsigned default_port,
			   char *host, unsigned *port)
{
	const char *colon = NULL, *end = s + n;
	char v6[INET6_ADDRSTRLEN + 1];
	unsigned char addr[16];
	unsigned long value = 0;
	size_t hlen, i;

	if (n > 0 && s[0] == '[') {
		const char *close = memchr(s, ']', n);

		if (close == NULL || (size_t)(close - s - 1) >= sizeof(v6))
			return lec__error(LEC_EINVALID, "a bad IPv6 address");
		hlen = (size_t)(close - s - 1);
		memcpy(v6, s + 1, hlen);
		v6[hlen] = '\0';
		if (inet_pton(AF_INET6, v6, addr) != 1)
			return lec__error(LEC_EINVALID, "a bad IPv6 address");
		memcpy(host, v6, hlen + 1);
		if (close + 1 < end && close[1] != ':')
			return lec__error(LEC_EINVALID, "a bad host");
		colon = close + 1 < end ? close + 1 : NULL;
	} else {
		colon = memchr(s, ':', n);
		hlen = colon ? (size_t)(colon - s) : n;
		if (hlen == 0 || hlen > LEC_EGRESS_HOST_MAX)
			return lec__error(LEC_EINVALID, "no host, or a host "
							"name too long");
		for (i = 0; i < hlen; i++)
			if (!is_host_char((unsigned char)s[i]))
				return lec__error(LEC_EINVALID,
						  "a bad character in the host");
		memcpy(host, s, hlen);
		host[hlen] = '\0';
	}
	if (colon == NULL) {
		if (default_port == 0)
			return lec__error(LEC_EINVALID, "no port");
		*port = default_port;
		return LEC_OK;
	}
	/* Digits only, 1 to 5 of them: strtoul would take signs and spaces. */
	if (colon + 1 == end || end - colon - 1 > 5)
		return lec__error(LEC_EINVALID, "a bad port");
	for (i = 1; colon + i < end; i++) {
		if (colon[i] < '0' || colon[i] > '9')
			return lec__error(LEC_EINVALID, "a bad port");
		value = value * 10 + (unsigned long)(colon[i] - '0');
	}
	if (value == 0 || value > 65535)
		return lec__error(LEC_EINVALID, "a bad port");
	*port = (unsigned)value;
	return LEC_OK;
}

/* Headers the proxy does not pass on: hop-by-hop ones (RFC 9110 7.6.1),
 * the proxy's own, and Host, which is set from the URL. */
static int dropped_header(const char *name, size_t n)
{
	static const char *const names[] = {
		"connection", "proxy-connection", "keep-alive",
		"proxy-authorization", "proxy-authenticate", "te",
		"trailer", "upgrade", "host",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && strncasecmp(name, names[i], n) == 0)
			return 1;
	return 0;
}

/* Check the header lines in [p, end) (each ended by CRLF, end at the empty
 * line's CRLF) and, with b, copy those passed on. */
static int parse_headers(const char *p, const char *end, struct lec__buf *b)
{
	unsigned count = 0;

	while (p < end) {
		const char *eol = memchr(p, '\r', (size_t)(end - p));
		const char *colon, *c;

		/* The head ends in CRLF CRLF, so every line has its CR. */
		if (eol == NULL || eol[1] != '\n')
			return lec__error(LEC_EINVALID, "a header line not "
							"ended by CRLF");
		if (++count > EGRESS_HEADERS_MAX)
			return lec__error(LEC_EINVALID, "more than %d headers",
					  EGRESS_HEADERS_MAX);
		colon = memchr(p, ':', (size_t)(eol - p));
		if (colon == NULL || colon == p)
			return lec__error(LEC_EINVALID, "a header without a "
							"name");
		for (c = p; c < colon; c++)
			if (!is_tchar((unsigned char)*c))
				return lec__error(LEC_EINVALID,
						  "a bad header name");
		for (c = colon + 1; c < eol; c++)
			if ((unsigned char)*c < 0x20 && *c != '\t')
				return lec__error(LEC_EINVALID, "a control "
								"character "
								"in a header");
			else if (*c == 0x7f)
				return lec__error(LEC_EINVALID, "a control "
								"character "
								"in a header");
		if (b && !dropped_header(p, (size_t)(colon - p)))
			lec__buf_putn(b, p, (size_t)(eol + 2 - p));
		p = eol + 2;
	}
	return LEC_OK;
}

/* The target of an absolute-form request, n bytes: the server's address
 * into out, and the head for it into b (the request line and Host). */
static int parse_absolute(const char *method, size_t mlen, const char *t,
			  size_t n, const char *version,
			  struct lec_egress_request *out, struct lec__buf *b)
{
	const char *auth, *rest;
	size_t alen;
	int error;

	if (starts_nocase(t, n, "https://"))
		return lec__error(LEC_EINVALID, "https goes through CONNECT");
	if (!starts_nocase(t, n, "http://"))
		return lec__error(LEC_EINVALID, "the proxy takes CONNECT and "
						"absolute http:// URLs only");
	auth = t + strlen("http://");
	for (rest = auth; rest < t + n && *rest != '/' && *rest != '?'; rest++)
		;
	alen = (size_t)(rest - auth);
	if (memchr(t, '#', n))
		return lec__error(LEC_EINVALID, "a fragment in the URL");
	if (memchr(auth, '@', alen))
		return lec__error(LEC_EINVALID, "a user name in the URL");
	if ((error = parse_authority(auth, alen, 80, out->host, &out->port)) < 0)
		return error;
	lec__buf_putn(b, method, mlen);
	lec__buf_puts(b, rest < t + n && *rest == '/' ? " " : " /");
	lec__buf_putn(b, rest, (size_t)(t + n - rest));
	lec__buf_printf(b, " %s\r\nHost: ", version);
	lec__buf_putn(b, auth, alen);
	lec__buf_puts(b, "\r\n");
	return LEC_OK;
}

/* Whether what has come so far can still be a request's head: a
 * method's characters up to the first space, then no NUL and every line
 * ended by CRLF. A client speaking TLS or another protocol, or ending its
 * lines with bare LFs, is refused at once, not when its time is up. */
static int plausible(const char *data, size_t len)
{
	size_t i;

	for (i = 0; i < len && data[i] != ' '; i++)
		if (!is_tchar((unsigned char)data[i]) || i >= EGRESS_METHOD_MAX)
			return 0;
	for (i = 0; i < len; i++)
		if (data[i] == '\0' ||
		    (data[i] == '\r' && i + 1 < len && data[i + 1] != '\n') ||
		    (data[i] == '\n' && (i == 0 || data[i - 1] != '\r')))
			return 0;
	return 1;
}

int lec_egress_parse(const char *data, size_t len,
		     struct lec_egress_request *out)
{
	struct lec__buf b = LEC__BUF_INIT;
	const char *end, *line_end, *sp1, *sp2, *version;
	size_t scan = len < LEC_EGRESS_HEAD_MAX ? len : LEC_EGRESS_HEAD_MAX;
	size_t i;
	int error;

	lec_error_clear();
	if (out == NULL)
		return lec__error(LEC_EINVALID, "no request to fill");
	memset(out, 0, sizeof(*out));
	if (data == NULL && len > 0)
		return lec__error(LEC_EINVALID, "no request");
	/* Only the head is judged: what follows a CONNECT's is the tunnel's. */
	end = scan >= 4 ? memmem(data, scan, "\r\n\r\n", 4) : NULL;
	if (!plausible(data, end ? (size_t)(end - data) + 4 : scan))
		return lec__error(LEC_EINVALID, "not an HTTP request: a bad "
						"method, a NUL, or a line not "
						"ended by CRLF");
	if (end == NULL)
		return len >= LEC_EGRESS_HEAD_MAX
			       ? lec__error(LEC_ELIMIT, "a request head longer "
							"than %d bytes",
					    LEC_EGRESS_HEAD_MAX)
			       : 1;
	out->head_len = (size_t)(end - data) + 4;
	/* METHOD SP TARGET SP VERSION CRLF, the target of visible ASCII. */
	line_end = memchr(data, '\r', out->head_len);
	sp1 = memchr(data, ' ', (size_t)(line_end - data));
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(line_end - sp1 - 1)) : NULL;
	if (sp1 == NULL || sp1 == data || sp2 == NULL || sp2 == sp1 + 1)
		return lec__error(LEC_EINVALID, "not an HTTP request line");
	for (i = 1; sp1 + i < sp2; i++)
		if ((unsigned char)sp1[i] <= 0x20 || (unsigned char)sp1[i] >= 0x7f)
			return lec__error(LEC_EINVALID, "a bad character in "
							"the request target");
	version = sp2 + 1;
	if (line_end - version != 8 || (strncmp(version, "HTTP/1.1", 8) != 0 &&
					strncmp(version, "HTTP/1.0", 8) != 0))
		return lec__error(LEC_EINVALID, "not HTTP/1.0 or HTTP/1.1");
	if (sp1 - data == 7 && strncmp(data, "CONNECT", 7) == 0) {
		out->tunnel = 1;
		if ((error = parse_authority(sp1 + 1, (size_t)(sp2 - sp1 - 1),
					     0, out->host, &out->port)) < 0 ||
		    (error = parse_headers(line_end + 2, end + 2, NULL)) < 0)
			goto fail;
		return LEC_OK;
	}
	{
		char v[9];

		memcpy(v, version, 8);
		v[8] = '\0';
		if ((error = parse_absolute(data, (size_t)(sp1 - data), sp1 + 1,
					    (size_t)(sp2 - sp1 - 1), v, out,
					    &b)) < 0 ||
		    (error = parse_headers(line_end + 2, end + 2, &b)) < 0)
			goto fail;
	}
	lec__buf_puts(&b, "Connection: close\r\n\r\n");
	out->upstream_len = b.len;
	if ((out->upstream = lec__buf_take(&b)) == NULL) {
		error = lec_error_last_code();
		goto fail;
	}
	return LEC_OK;
fail:
	lec__buf_dispose(&b);
	memset(out, 0, sizeof(*out));
	return error;
}

void lec_egress_request_dispose(struct lec_egress_request *req)
{
	if (req == NULL)
		return;
	lec__free(req->upstream);
	req->upstream = NULL;
	req->upstream_len = 0;
}

/* Allowing an administrator's URL -------------------------------------------- */

/* The host and port of an http:// or https:// URL (an administrator's may
 * carry credentials: the host follows the last '@'). */
static int url_endpoint(const char *url, char *host, unsigned *port)
{
	const char *auth, *at;
	unsigned default_port;
	size_t alen;

	if (url == NULL)
		return lec__error(LEC_EINVALID, "no URL");
	if (starts_nocase(url, strlen(url), "https://"))
		default_port = 443, auth = url + 8;
	else if (starts_nocase(url, strlen(url), "http://"))
		default_port = 80, auth = url + 7;
	else
		return lec__error(LEC_EINVALID, "not an http(s) URL");
	alen = strcspn(auth, "/?#");
	while ((at = memchr(auth, '@', alen)) != NULL) {
		alen -= (size_t)(at + 1 - auth);
		auth = at + 1;
	}
	return parse_authority(auth, alen, default_port, host, port);
}

/* The addresses host resolves to at port, into *found (freeaddrinfo);
 * flags beside AI_NUMERICSERV (the proxy's AI_ADDRCONFIG: only families
 * this host can connect with). */
static int resolve(const char *host, unsigned port, int flags,
		   struct addrinfo **found)
{
	struct addrinfo hints;
	char port_text[PORT_TEXT_MAX];
	int rc;

	snprintf(port_text, sizeof(port_text), "%u", port);
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | flags;
	if ((rc = getaddrinfo(host, port_text, &hints, found)) != 0) {
		*found = NULL;
		return lec__error(LEC_ENOTFOUND, "%s does not resolve: %s",
				  host, gai_strerror(rc));
	}
	return LEC_OK;
}

int lec_egress_allow_url(struct lec_netrule *rule, const char *url)
{
	struct addrinfo *found = NULL, *ai;
	char host[LEC_EGRESS_HOST_MAX + 1];
	unsigned port = 0;
	int error;

	lec_error_clear();
	if (rule == NULL)
		return lec__error(LEC_EINVALID, "no rule");
	if ((error = url_endpoint(url, host, &port)) < 0 ||
	    (error = resolve(host, port, 0, &found)) < 0)
		return error;
	for (ai = found; ai && error == LEC_OK; ai = ai->ai_next)
		if (!lec_netrule_check(rule, ai->ai_addr, ai->ai_addrlen))
			error = lec_netrule_allow_endpoint(rule, ai->ai_addr,
							   ai->ai_addrlen);
	freeaddrinfo(found);
	return error;
}

/* The proxy -------------------------------------------------------------------- */

struct lec_egress {
	pthread_mutex_t lock;     /* guards what follows but the constants */
	unsigned refs;            /* the owner, the acceptor, each connection */
	unsigned active;          /* connections being served */
	int stopped;
	struct lec_egress_stats stats;
	/* Constant once started: */
	struct lec_netrule rule;
	int64_t deadline_ms;      /* monotonic; 0: none */
	int control;              /* the proxy's end of the socket pair */
	int stop_read, stop_write; /* closing stop_write stops every wait */
	pthread_t acceptor;
	int acceptor_running;
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void egress_unref(struct lec_egress *e)
{
	int last;

	pthread_mutex_lock(&e->lock);
	last = --e->refs == 0;
	pthread_mutex_unlock(&e->lock);
	if (!last)
		return;
	close_fd(&e->control);
	close_fd(&e->stop_read);
	close_fd(&e->stop_write);
	pthread_mutex_destroy(&e->lock);
	lec__free(e);
}

/* The sooner of a wait's own end (ms from now) and the command's. */
static int64_t until(const struct lec_egress *e, int64_t ms)
{
	int64_t at = lec__monotonic_ms() + ms;

	return e->deadline_ms > 0 && e->deadline_ms < at ? e->deadline_ms : at;
}

/* Wait until fd is ready for events, the deadline passes or stop (the
 * proxy's stop pipe; -1: none) is readable: 1 ready (or in error, for the
 * call that follows to say), 0 not. */
static int wait_fd(int stop, int fd, short events, int64_t deadline)
{
	for (;;) {
		struct pollfd p[2] = { { fd, events, 0 }, { stop, POLLIN, 0 } };
		int64_t left = deadline - lec__monotonic_ms();
		int n;

		if (left <= 0)
			return 0;
		n = poll(p, 2, left > 60000 ? 60000 : (int)left);
		if (n < 0 && errno != EINTR)
			return 0;
		if (n > 0 && p[1].revents)
			return 0;
		if (n > 0 && p[0].revents)
			return 1;
	}
}

/* Send all of data, or give up at the deadline: LEC_OK sent, LEC_ERROR
 * (no message set) not. */
static int send_all(const struct lec_egress *e, int fd, const char *data,
		    size_t len, int64_t deadline)
{
	while (len > 0) {
		ssize_t n = send(fd, data, len, MSG_NOSIGNAL);

		if (n > 0) {
			data += n;
			len -= (size_t)n;
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else if (n < 0 && errno == EAGAIN) {
			if (!wait_fd(e->stop_read, fd, POLLOUT, deadline))
				return LEC_ERROR;
		} else {
			return LEC_ERROR;
		}
	}
	return LEC_OK;
}

/* Answer the client with an error and its reason. */
static void answer(const struct lec_egress *e, int fd, int status,
		   const char *phrase, const char *why)
{
	char body[LEC_EGRESS_HOST_MAX + 256], text[sizeof(body) + 160];
	int m = snprintf(body, sizeof(body), "Lectern's egress proxy: %s\n", why);
	int n;

	if (m < 0)
		return;
	n = snprintf(text, sizeof(text),
		     "HTTP/1.1 %d %s\r\n"
		     "Content-Type: text/plain; charset=utf-8\r\n"
		     "Content-Length: %zu\r\n"
		     "Connection: close\r\n\r\n%s",
		     status, phrase, strlen(body), body);
	if (n > 0 && (size_t)n < sizeof(text))
		send_all(e, fd, text, (size_t)n, until(e, EGRESS_ANSWER_MS));
	shutdown(fd, SHUT_WR);
}

static void note_refused(struct lec_egress *e,
			 const struct lec_egress_request *req)
{
	pthread_mutex_lock(&e->lock);
	e->stats.refused++;
	if (e->stats.first_refused[0] == '\0')
		snprintf(e->stats.first_refused,
			 sizeof(e->stats.first_refused),
			 strchr(req->host, ':') ? "[%s]:%u" : "%s:%u",
			 req->host, req->port);
	pthread_mutex_unlock(&e->lock);
}

/* Connect to one address the rule allows, by the deadline or until stop
 * (as wait_fd): the socket, or -1. */
static int connect_one(int stop, const struct addrinfo *ai, int64_t deadline)
{
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			0);
	int err = 0;
	socklen_t elen = sizeof(err);

	if (fd < 0)
		return -1;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
		return fd;
	if (errno == EINPROGRESS &&
	    wait_fd(stop, fd, POLLOUT, deadline) &&
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) == 0 && err == 0)
		return fd;
	close(fd);
	return -1;
}

/* The server's socket, connected to an address of the request's host that
 * the rule allows; -1 after answering the client why not. */
static int open_upstream(struct lec_egress *e, int client,
			 const struct lec_egress_request *req)
{
	struct addrinfo hints, *found = NULL, *ai;
	char port_text[PORT_TEXT_MAX], why[LEC_EGRESS_HOST_MAX + 160];
	int fd = -1, refused = 0, tried = 0, rc, n = 0;
	int stopped;

	snprintf(port_text, sizeof(port_text), "%u", req->port);
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG;
	rc = getaddrinfo(req->host, port_text, &hints, &found);
	pthread_mutex_lock(&e->lock);
	stopped = e->stopped;
	pthread_mutex_unlock(&e->lock);
	if (stopped) {
		if (rc == 0)
			freeaddrinfo(found);
		return -1;
	}
	if (rc != 0) {
		snprintf(why, sizeof(why), "%s does not resolve", req->host);
		answer(e, client, 502, "Bad Gateway", why);
		return -1;
	}
	for (ai = found; ai && fd < 0 && n < EGRESS_ADDRESSES_MAX;
	     ai = ai->ai_next, n++) {
		if (!lec_netrule_check(&e->rule, ai->ai_addr, ai->ai_addrlen)) {
			refused = 1;
			continue;
		}
		tried = 1;
		fd = connect_one(e->stop_read, ai, until(e, EGRESS_CONNECT_MS));
	}
	freeaddrinfo(found);
	if (fd >= 0)
		return fd;
	if (refused && !tried) {
		note_refused(e, req);
		snprintf(why, sizeof(why),
			 "%s:%u is refused: builds reach public addresses "
			 "and the server's package index only, never "
			 "loopback, private or link-local ones",
			 req->host, req->port);
		answer(e, client, 403, "Forbidden", why);
	} else {
		snprintf(why, sizeof(why), "cannot connect to %s:%u",
			 req->host, req->port);
		answer(e, client, 502, "Bad Gateway", why);
	}
	return -1;
}

int lec_egress_probe(const struct lec_netrule *rule, const char *url,
		     int timeout_ms)
{
	struct addrinfo *found = NULL, *ai;
	char host[LEC_EGRESS_HOST_MAX + 1];
	int64_t deadline = lec__monotonic_ms() + timeout_ms;
	unsigned port = 0;
	int error, fd = -1, refused = 0, n = 0;

	lec_error_clear();
	if ((error = url_endpoint(url, host, &port)) < 0 ||
	    (error = resolve(host, port, AI_ADDRCONFIG, &found)) < 0)
		return error;
	for (ai = found; ai && fd < 0 && n < EGRESS_ADDRESSES_MAX;
	     ai = ai->ai_next, n++) {
		if (!lec_netrule_check(rule, ai->ai_addr, ai->ai_addrlen))
			refused = 1;
		else
			fd = connect_one(-1, ai, deadline);
	}
	freeaddrinfo(found);
	if (fd >= 0) {
		close(fd);
		return LEC_OK;
	}
	return lec__error(LEC_EIO, refused ? "%s:%u is refused to builds"
					   : "cannot connect to %s:%u",
			  host, port);
}

/* One direction of a relay: bytes read from `from` wait in buf until
 * written to the other socket. */
struct flow {
	char *buf;
	size_t start, end; /* the bytes still to write */
	int reading;       /* `from` may still send */
	int shut;          /* its end passed on (shutdown of the writer) */
};

/* Read into an empty flow: 0 on EOF, -1 on an error, else 1. */
static int flow_read(struct flow *f, int from)
{
	ssize_t n = recv(from, f->buf, EGRESS_BUF, 0);

	if (n > 0) {
		f->start = 0;
		f->end = (size_t)n;
		return 1;
	}
	if (n == 0) {
		f->reading = 0;
		return 0;
	}
	return errno == EAGAIN || errno == EINTR ? 1 : -1;
}

static int flow_write(struct flow *f, int to)
{
	ssize_t n = send(to, f->buf + f->start, f->end - f->start,
			 MSG_NOSIGNAL);

	if (n > 0) {
		f->start += (size_t)n;
		if (f->start == f->end)
			f->start = f->end = 0;
		return 1;
	}
	return n < 0 && (errno == EAGAIN || errno == EINTR) ? 1 : -1;
}

/* The events socket fd waits for: reading for the flow out of it (when
 * its buffer is empty), writing for the flow into it (when it holds
 * bytes). A socket waiting for neither is left out of the poll, so a
 * peer that hung up cannot wake the loop while the other side is slow. */
static short flow_events(const struct flow *out, const struct flow *in)
{
	short events = 0;

	if (out->reading && out->end == out->start)
		events |= POLLIN;
	if (in->end > in->start)
		events |= POLLOUT;
	return events;
}

/* After a flow's reader ended and its bytes are written, the writer's
 * side is shut down, as the reader's was. */
static void flow_finish(struct flow *f, int to)
{
	if (!f->reading && f->end == f->start && !f->shut) {
		shutdown(to, SHUT_WR);
		f->shut = 1;
	}
}

/* Relay between a and b until both directions have ended, one side fails,
 * the command's time is up or the proxy stops. */
static void relay(const struct lec_egress *e, int a, int b)
{
	struct flow ab = { NULL, 0, 0, 1, 0 }, ba = { NULL, 0, 0, 1, 0 };

	ab.buf = lec__malloc(EGRESS_BUF);
	ba.buf = lec__malloc(EGRESS_BUF);
	while (ab.buf && ba.buf && !(ab.shut && ba.shut)) {
		short ea = flow_events(&ab, &ba), eb = flow_events(&ba, &ab);
		struct pollfd p[3] = { { ea ? a : -1, ea, 0 },
				       { eb ? b : -1, eb, 0 },
				       { e->stop_read, POLLIN, 0 } };
		int64_t left = e->deadline_ms > 0
				       ? e->deadline_ms - lec__monotonic_ms()
				       : 60000;
		int n;

		if (left <= 0)
			break;
		n = poll(p, 3, left > 60000 ? 60000 : (int)left);
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;
		if (p[2].revents)
			break;
		if (((p[0].revents & ~POLLOUT) && (ea & POLLIN) &&
		     flow_read(&ab, a) < 0) ||
		    ((p[1].revents & ~POLLOUT) && (eb & POLLIN) &&
		     flow_read(&ba, b) < 0) ||
		    ((p[0].revents & ~POLLIN) && (ea & POLLOUT) &&
		     flow_write(&ba, a) < 0) ||
		    ((p[1].revents & ~POLLIN) && (eb & POLLOUT) &&
		     flow_write(&ab, b) < 0))
			break;
		flow_finish(&ab, b);
		flow_finish(&ba, a);
	}
	lec__free(ab.buf);
	lec__free(ba.buf);
}

/* One connection: its request, its server, then the relay. */
static void serve(struct lec_egress *e, int client)
{
	static const char established[] =
		"HTTP/1.1 200 Connection established\r\n\r\n";
	struct lec_egress_request req;
	char *head = lec__malloc(LEC_EGRESS_HEAD_MAX);
	int64_t head_deadline = until(e, EGRESS_HEAD_MS);
	size_t have = 0;
	int upstream = -1, rc = 1;

	memset(&req, 0, sizeof(req));
	while (head && rc == 1) {
		ssize_t n;

		if (!wait_fd(e->stop_read, client, POLLIN, head_deadline))
			goto done;
		n = recv(client, head + have, LEC_EGRESS_HEAD_MAX - have, 0);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			goto done;
		have += n > 0 ? (size_t)n : 0;
		rc = lec_egress_parse(head, have, &req);
	}
	if (head == NULL)
		goto done;
	if (rc < 0) {
		answer(e, client, 400, "Bad Request", lec_error_last());
		goto done;
	}
	if ((upstream = open_upstream(e, client, &req)) < 0)
		goto done;
	if ((req.tunnel
		     ? send_all(e, client, established, sizeof(established) - 1,
				until(e, EGRESS_ANSWER_MS))
		     : send_all(e, upstream, req.upstream, req.upstream_len,
				until(e, EGRESS_CONNECT_MS))) < 0 ||
	    send_all(e, upstream, head + req.head_len, have - req.head_len,
		     until(e, EGRESS_CONNECT_MS)) < 0)
		goto done;
	lec__free(head);
	head = NULL;
	relay(e, client, upstream);
done:
	lec_egress_request_dispose(&req);
	lec__free(head);
	if (upstream >= 0)
		close(upstream);
}

struct connection {
	struct lec_egress *egress;
	int fd;
};

static void *connection_main(void *arg)
{
	struct connection *c = arg;
	struct lec_egress *e = c->egress;

	serve(e, c->fd);
	close(c->fd);
	lec__free(c);
	pthread_mutex_lock(&e->lock);
	e->active--;
	pthread_mutex_unlock(&e->lock);
	egress_unref(e);
	return NULL;
}

/* Serve a descriptor the forwarder sent, on a thread of its own: only a
 * stream socket, and not past the connection cap (then it is closed,
 * which the command sees as a connection reset). */
static void take(struct lec_egress *e, int fd)
{
	struct connection *c = NULL;
	pthread_attr_t attr;
	pthread_t thread;
	struct stat sb;
	int type = 0, full;
	socklen_t tlen = sizeof(type);

	if (fstat(fd, &sb) != 0 || !S_ISSOCK(sb.st_mode) ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) != 0 ||
	    type != SOCK_STREAM || fcntl(fd, F_SETFL, O_NONBLOCK) != 0 ||
	    (c = lec__malloc(sizeof(*c))) == NULL) {
		close(fd);
		return;
	}
	pthread_mutex_lock(&e->lock);
	full = e->stopped || e->active >= LEC_EGRESS_MAX_CONNECTIONS;
	if (!full) {
		e->active++;
		e->refs++;
		e->stats.connections++;
	}
	pthread_mutex_unlock(&e->lock);
	if (full) {
		close(fd);
		lec__free(c);
		return;
	}
	c->egress = e;
	c->fd = fd;
	if (pthread_attr_init(&attr) == 0) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&thread, &attr, connection_main, c) == 0) {
			pthread_attr_destroy(&attr);
			return;
		}
		pthread_attr_destroy(&attr);
	}
	close(fd);
	lec__free(c);
	pthread_mutex_lock(&e->lock);
	e->active--;
	pthread_mutex_unlock(&e->lock);
	egress_unref(e);
}

/* Take what one message of the forwarder carries: its first descriptor,
 * closing any other. 0 once the forwarder is gone. */
static int receive(struct lec_egress *e)
{
	union {
		struct cmsghdr header;
		char space[CMSG_SPACE(sizeof(int) * EGRESS_FDS_PER_MESSAGE)];
	} control;
	char byte;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg;
	struct cmsghdr *cm;
	int taken = 0;
	ssize_t n;

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = control.space;
	msg.msg_controllen = sizeof(control.space);
	n = recvmsg(e->control, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		size_t count, i;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		count = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < count; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(fd));
			if (taken++ == 0)
				take(e, fd);
			else
				close(fd);
		}
	}
	return n > 0;
}

static void *acceptor_main(void *arg)
{
	struct lec_egress *e = arg;

	while (wait_fd(e->stop_read, e->control, POLLIN,
		       e->deadline_ms > 0 ? e->deadline_ms : INT64_MAX) &&
	       receive(e))
		;
	egress_unref(e);
	return NULL;
}

int lec_egress_start(struct lec_egress **out, const struct lec_netrule *rule,
		     unsigned time_limit_s, int *command_fd)
{
	struct lec_egress *e;
	int pair[2] = { -1, -1 }, stop[2] = { -1, -1 };
	int error;

	lec_error_clear();
	if (out == NULL || command_fd == NULL)
		return lec__error(LEC_EINVALID, "nowhere to put the proxy");
	*out = NULL;
	*command_fd = -1;
	if ((e = lec__calloc(1, sizeof(*e))) == NULL)
		return lec__error_oom();
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0 ||
	    pipe2(stop, O_CLOEXEC) != 0) {
		error = lec__error(LEC_ERROR, "cannot make the egress proxy's "
					      "sockets: %s",
				   strerror(errno));
		close_fd(&pair[0]);
		close_fd(&pair[1]);
		close_fd(&stop[0]);
		close_fd(&stop[1]);
		lec__free(e);
		return error;
	}
	pthread_mutex_init(&e->lock, NULL);
	if (rule)
		e->rule = *rule;
	e->deadline_ms = time_limit_s
				 ? lec__monotonic_ms() + (int64_t)time_limit_s * 1000
				 : 0;
	e->control = pair[0];
	e->stop_read = stop[0];
	e->stop_write = stop[1];
	e->refs = 2; /* the owner's and the acceptor's */
	if ((error = pthread_create(&e->acceptor, NULL, acceptor_main, e)) != 0) {
		close(pair[1]);
		e->refs = 1;
		egress_unref(e);
		return lec__error(LEC_ERROR, "cannot start the egress proxy: %s",
				  strerror(error));
	}
	e->acceptor_running = 1;
	*command_fd = pair[1];
	*out = e;
	return LEC_OK;
}

void lec_egress_stop(struct lec_egress *egress)
{
	if (egress == NULL)
		return;
	pthread_mutex_lock(&egress->lock);
	egress->stopped = 1;
	close_fd(&egress->stop_write);
	pthread_mutex_unlock(&egress->lock);
	if (egress->acceptor_running) {
		pthread_join(egress->acceptor, NULL);
		egress->acceptor_running = 0;
	}
}

void lec_egress_stats(struct lec_egress *egress, struct lec_egress_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (egress == NULL)
		return;
	pthread_mutex_lock(&egress->lock);
	*out = egress->stats;
	pthread_mutex_unlock(&egress->lock);
}

void lec_egress_free(struct lec_egress *egress)
{
	if (egress == NULL)
		return;
	lec_egress_stop(egress);
	egress_unref(egress);
}

/* The forwarder ------------------------------------------------------------- */

/* Hand one accepted connection to the engine. A failure (the engine gone)
 * only drops this connection: the command sees it reset. */
static void send_fd(int control, int fd)
{
	union {
		struct cmsghdr header;
		char space[CMSG_SPACE(sizeof(int))];
	} u;
	char byte = 'c';
	struct iovec iov = { &byte, 1 };
	struct msghdr msg;
	struct cmsghdr *cm;

	memset(&u, 0, sizeof(u));
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.space;
	msg.msg_controllen = sizeof(u.space);
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
	while (sendmsg(control, &msg, MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

/* A listening socket on 127.0.0.1 of this namespace, and its URL. */
static int listen_loopback(char *url, size_t cap)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    listen(fd, EGRESS_BACKLOG) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) != 0) {
		int error = lec__error(LEC_ERROR, "cannot listen on 127.0.0.1: "
						  "%s",
				       strerror(errno));

		if (fd >= 0)
			close(fd);
		return error;
	}
	snprintf(url, cap, "http://127.0.0.1:%u", (unsigned)ntohs(sin.sin_port));
	return fd;
}

static int set_proxy_env(const char *url)
{
	static const char *const proxies[] = { "HTTP_PROXY", "HTTPS_PROXY",
					       "http_proxy", "https_proxy" };
	static const char *const bypass[] = { "NO_PROXY", "no_proxy" };
	size_t i;

	for (i = 0; i < sizeof(proxies) / sizeof(proxies[0]); i++)
		if (setenv(proxies[i], url, 1) != 0)
			return lec__error_oom();
	/* Nothing goes around the proxy: there is nowhere else to go. */
	for (i = 0; i < sizeof(bypass) / sizeof(bypass[0]); i++)
		if (setenv(bypass[i], "", 1) != 0)
			return lec__error_oom();
	return LEC_OK;
}

int lec_egress_forward(int control_fd, const char *const *argv, int *status)
{
	struct stat sb;
	char url[64];
	int listener = -1, pidfd = -1, wstatus = 0, error = LEC_OK;
	pid_t pid;

	lec_error_clear();
	if (status)
		*status = 127;
	if (status == NULL || argv == NULL || argv[0] == NULL)
		return lec__error(LEC_EINVALID, "no command to run");
	if (fstat(control_fd, &sb) != 0 || !S_ISSOCK(sb.st_mode))
		return lec__error(LEC_EINVALID, "descriptor %d is not the "
						"egress proxy's socket",
				  control_fd);
	/* The command never holds the way to the engine itself. */
	if (fcntl(control_fd, F_SETFD, FD_CLOEXEC) != 0)
		return lec__error(LEC_ERROR, "fcntl: %s", strerror(errno));
	if ((listener = listen_loopback(url, sizeof(url))) < 0)
		return listener;
	if ((error = set_proxy_env(url)) < 0)
		goto done;
	if ((pid = fork()) < 0) {
		error = lec__error(LEC_ERROR, "fork: %s", strerror(errno));
		goto done;
	}
	if (pid == 0) {
		/* execvp's prototype predates const; it writes nothing. */
		union {
			const char *const *in;
			char *const *out;
		} args = { argv };

		execvp(argv[0], args.out);
		fprintf(stderr, "lectern: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	if ((pidfd = pidfd_open(pid, 0)) < 0) {
		error = lec__error(LEC_ERROR, "pidfd_open: %s", strerror(errno));
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		goto done;
	}
	for (;;) {
		struct pollfd p[2] = { { listener, POLLIN, 0 },
				       { pidfd, POLLIN, 0 } };
		int fd;

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			break;
		if (p[0].revents &&
		    (fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
			send_fd(control_fd, fd);
			close(fd);
		}
	}
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	*status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus)
				     : 128 + WTERMSIG(wstatus);
done:
	if (pidfd >= 0)
		close(pidfd);
	close(listener);
	return error;
}
