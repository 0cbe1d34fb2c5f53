/*
 * The egress proxy (egress.h): its request parser (what it takes, what it
 * sends the server, what it refuses, and that a head is never taken before
 * it is whole), the administrator's URLs it allows, and a live proxy fed
 * descriptors the way the forwarder sends them: a plain request and a
 * tunnel to an allowed loopback port, a 403 for any other, a 400 for
 * garbage, descriptors that are not stream sockets, the connection cap,
 * stopping mid-relay; then the forwarder itself, with curl through it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "internal.h"
#include "lectern/egress.h"

/* How long a test waits for the proxy to answer: far more than it takes. */
#define ANSWER_MS 10000

/* Parsing ------------------------------------------------------------------ */

static int parse(const char *text, struct lec_egress_request *req)
{
	return lec_egress_parse(text, strlen(text), req);
}

TEST(connect_names_a_host_and_port)
{
	/* The tunnel's first bytes may come with the head, NUL and LF
	 * included. */
	static const char text[] = "CONNECT pypi.org:443 HTTP/1.1\r\n"
				   "Host: pypi.org:443\r\n"
				   "User-Agent: pip/23.0.1\r\n\r\n"
				   "\x16\x03\x01\0\n\r early TLS bytes";
	struct lec_egress_request req;

	CHECK_OK(lec_egress_parse(text, sizeof(text) - 1, &req));
	CHECK_INT(req.tunnel, 1);
	CHECK_STR(req.host, "pypi.org");
	CHECK_INT(req.port, 443);
	CHECK_INT(req.head_len, strstr(text, "\x16") - text);
	CHECK(req.upstream == NULL);
	lec_egress_request_dispose(&req);
	CHECK_OK(parse("CONNECT [2001:db8::1]:8443 HTTP/1.0\r\n\r\n", &req));
	CHECK_STR(req.host, "2001:db8::1");
	CHECK_INT(req.port, 8443);
	lec_egress_request_dispose(&req);
}

TEST(an_absolute_request_goes_to_the_server_in_origin_form)
{
	struct lec_egress_request req;

	CHECK_OK(parse("GET http://Index.Example:8080/simple/pkg/?a=1 HTTP/1.1\r\n"
		       "Host: elsewhere.example\r\n"
		       "Proxy-Connection: keep-alive\r\n"
		       "Connection: keep-alive\r\n"
		       "Keep-Alive: 300\r\n"
		       "Proxy-Authorization: Basic c2VjcmV0\r\n"
		       "Accept: text/html\r\n"
		       "Upgrade: websocket\r\n"
		       "accept-encoding: gzip\r\n\r\n",
		       &req));
	CHECK_INT(req.tunnel, 0);
	CHECK_STR(req.host, "Index.Example");
	CHECK_INT(req.port, 8080);
	/* Host from the URL, the proxy's and hop-by-hop headers dropped,
	 * one request per connection. */
	CHECK_STR(req.upstream, "GET /simple/pkg/?a=1 HTTP/1.1\r\n"
				"Host: Index.Example:8080\r\n"
				"Accept: text/html\r\n"
				"accept-encoding: gzip\r\n"
				"Connection: close\r\n\r\n");
	CHECK_INT(req.upstream_len, strlen(req.upstream));
	lec_egress_request_dispose(&req);

	CHECK_OK(parse("HEAD http://h HTTP/1.0\r\n\r\n", &req));
	CHECK_INT(req.port, 80);
	CHECK_STR(req.upstream, "HEAD / HTTP/1.0\r\nHost: h\r\n"
				"Connection: close\r\n\r\n");
	lec_egress_request_dispose(&req);
	CHECK_OK(parse("POST HTTP://[::1]:99?x=1 HTTP/1.1\r\n"
		       "Content-Length: 3\r\n\r\nabc",
		       &req));
	CHECK_STR(req.host, "::1");
	CHECK_INT(req.port, 99);
	CHECK_STR(req.upstream, "POST /?x=1 HTTP/1.1\r\nHost: [::1]:99\r\n"
				"Content-Length: 3\r\nConnection: close\r\n\r\n");
	lec_egress_request_dispose(&req);
	lec_egress_request_dispose(NULL);
}

TEST(a_head_is_taken_only_once_whole)
{
	static const char text[] = "GET http://example.org/a HTTP/1.1\r\n"
				   "Accept: */*\r\n\r\n";
	struct lec_egress_request req;
	size_t n;

	for (n = 0; n < sizeof(text) - 1; n++)
		CHECK_INT(lec_egress_parse(text, n, &req), 1);
	CHECK_OK(lec_egress_parse(text, sizeof(text) - 1, &req));
	lec_egress_request_dispose(&req);
}

TEST(a_head_past_the_limit_is_refused)
{
	char *text = lec__malloc(LEC_EGRESS_HEAD_MAX + 64);
	struct lec_egress_request req;
	size_t n = (size_t)snprintf(text, 64, "GET http://a/ HTTP/1.1\r\nX: ");

	memset(text + n, 'x', LEC_EGRESS_HEAD_MAX + 64 - n);
	CHECK_INT(lec_egress_parse(text, LEC_EGRESS_HEAD_MAX - 1, &req), 1);
	CHECK_ERR(lec_egress_parse(text, LEC_EGRESS_HEAD_MAX, &req), LEC_ELIMIT);
	CHECK_ERR(lec_egress_parse(text, LEC_EGRESS_HEAD_MAX + 64, &req),
		  LEC_ELIMIT);
	lec__free(text);
}

TEST(what_the_proxy_does_not_take_is_refused)
{
	static const char *const bad[] = {
		/* Not a request the proxy takes. */
		"GET /index.html HTTP/1.1\r\n\r\n",
		"GET https://pypi.org/ HTTP/1.1\r\n\r\n",
		"GET ftp://h/ HTTP/1.1\r\n\r\n",
		"CONNECT pypi.org HTTP/1.1\r\n\r\n",
		"CONNECT pypi.org: HTTP/1.1\r\n\r\n",
		"CONNECT pypi.org:0 HTTP/1.1\r\n\r\n",
		"CONNECT pypi.org:65536 HTTP/1.1\r\n\r\n",
		"CONNECT pypi.org:+443 HTTP/1.1\r\n\r\n",
		"CONNECT pypi.org:443x HTTP/1.1\r\n\r\n",
		"CONNECT :443 HTTP/1.1\r\n\r\n",
		"CONNECT ::1:443 HTTP/1.1\r\n\r\n",
		"CONNECT [::1:443 HTTP/1.1\r\n\r\n",
		"CONNECT [nope]:443 HTTP/1.1\r\n\r\n",
		"CONNECT [::1]x:443 HTTP/1.1\r\n\r\n",
		"CONNECT a%2fb:443 HTTP/1.1\r\n\r\n",
		"GET http://user:pw@h/ HTTP/1.1\r\n\r\n",
		"GET http://h/#frag HTTP/1.1\r\n\r\n",
		"GET http:/// HTTP/1.1\r\n\r\n",
		"GET http://h/ HTTP/2.0\r\n\r\n",
		"GET http://h/ HTTP/1.1 \r\n\r\n",
		"GET  http://h/ HTTP/1.1\r\n\r\n",
		"GET http://h/ HTTP/1.1\r\nno colon\r\n\r\n",
		"GET http://h/ HTTP/1.1\r\n: no name\r\n\r\n",
		"GET http://h/ HTTP/1.1\r\nBad Name: x\r\n\r\n",
		"GET http://h/ HTTP/1.1\r\nA: 1\r\n folded\r\n\r\n",
		"GET http://h/ HTTP/1.1\r\nA: a\x01b\r\n\r\n",
		"GET http://h/ HTTP/1.1\r\nA: a\x7f\r\n\r\n",
		"GET http://h/\x7f HTTP/1.1\r\n\r\n",
		"GET http://h/ HTTP/1.1\nA: 1\r\n\r\n",
		"GET http://h/ HTTP/1.1\r\nA: 1\rB: 2\r\n\r\n",
		"\r\nGET http://h/ HTTP/1.1\r\n\r\n",
		"G(T http://h/ HTTP/1.1\r\n\r\n",
		/* Bare line ends: refused before the head could end. */
		"GET http://h/ HTTP/1.1\nHost: h\n",
		"GET http://h/ HTTP/1.1\rHost",
		/* Not HTTP at all: refused before the head could end. */
		"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
		"AVERYLONGMETHODNAMEINDEED http://h/",
	};
	struct lec_egress_request req;
	char host[LEC_EGRESS_HOST_MAX + 64];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = parse(bad[i], &req);

		if (rc != LEC_EINVALID)
			FAIL_AT("'%s' gave %d, expected LEC_EINVALID", bad[i],
				rc);
		CHECK(req.upstream == NULL);
	}
	/* A NUL inside the head. */
	{
		static const char nul[] = "GET http://h/ HTTP/1.1\r\nA: \0\r\n\r\n";

		CHECK_ERR(lec_egress_parse(nul, sizeof(nul) - 1, &req),
			  LEC_EINVALID);
	}
	/* A host name one byte too long. */
	memcpy(host, "CONNECT ", 8);
	memset(host + 8, 'a', LEC_EGRESS_HOST_MAX + 1);
	memcpy(host + 8 + LEC_EGRESS_HOST_MAX + 1, ":443 HTTP/1.1\r\n\r\n",
	       sizeof(":443 HTTP/1.1\r\n\r\n"));
	CHECK_ERR(parse(host, &req), LEC_EINVALID);
	CHECK_ERR(lec_egress_parse("x", 1, NULL), LEC_EINVALID);
}

TEST(a_flood_of_headers_is_refused)
{
	struct lec__buf b = LEC__BUF_INIT;
	struct lec_egress_request req;
	char *text;
	int i;

	lec__buf_puts(&b, "GET http://h/ HTTP/1.1\r\n");
	for (i = 0; i < 101; i++)
		lec__buf_puts(&b, "A: 1\r\n");
	lec__buf_puts(&b, "\r\n");
	text = lec__buf_take(&b);
	CHECK_ERR(parse(text, &req), LEC_EINVALID);
	lec__free(text);
}

/* The administrator's URLs ----------------------------------------------------- */

static int allowed(const struct lec_netrule *rule, const char *ip,
		   unsigned port)
{
	struct sockaddr_in in;

	memset(&in, 0, sizeof(in));
	in.sin_family = AF_INET;
	in.sin_port = htons((unsigned short)port);
	inet_pton(AF_INET, ip, &in.sin_addr);
	return lec_netrule_check(rule, (struct sockaddr *)&in, sizeof(in));
}

TEST(an_administrators_url_allows_its_endpoint_only)
{
	struct lec_netrule rule;

	memset(&rule, 0, sizeof(rule));
	CHECK_OK(lec_egress_allow_url(&rule, "http://127.0.0.1:8080/simple/"));
	CHECK_INT(allowed(&rule, "127.0.0.1", 8080), 1);
	CHECK_INT(allowed(&rule, "127.0.0.1", 8081), 0);
	CHECK_INT(allowed(&rule, "127.0.0.2", 8080), 0);
	/* Credentials before the host; https's port. */
	CHECK_OK(lec_egress_allow_url(&rule, "https://u:p@ss@10.1.2.3/x"));
	CHECK_INT(allowed(&rule, "10.1.2.3", 443), 1);
	CHECK_INT(allowed(&rule, "10.1.2.3", 80), 0);
	/* Allowed already: nothing added. */
	CHECK_INT(rule.n, 2);
	CHECK_OK(lec_egress_allow_url(&rule, "HTTP://127.0.0.1:8080"));
	CHECK_OK(lec_egress_allow_url(&rule, "http://192.88.98.1/"));
	CHECK_INT(rule.n, 2);
	CHECK_ERR(lec_egress_allow_url(&rule, "file:///srv/wheels"),
		  LEC_EINVALID);
	CHECK_ERR(lec_egress_allow_url(&rule, "/srv/wheels"), LEC_EINVALID);
	CHECK_ERR(lec_egress_allow_url(&rule, "http:///x"), LEC_EINVALID);
	CHECK_ERR(lec_egress_allow_url(&rule, "http://no-such-host.invalid/"),
		  LEC_ENOTFOUND);
	CHECK_INT(rule.n, 2);
}

/* The live proxy ----------------------------------------------------------------- */

/* A loopback server for one connection at a time: it keeps what it was
 * sent until the client's head ends (or the client's end), then answers
 * with reply and, for an echo, sends back all that comes after. */
struct server {
	int listener;
	unsigned port;
	int echo;
	char got[4096];
	size_t ngot;
	pthread_t thread;
};

static void *server_main(void *arg)
{
	struct server *s = arg;
	int fd = accept(s->listener, NULL, NULL);
	ssize_t n;

	if (fd < 0)
		return NULL;
	while (s->ngot < sizeof(s->got) - 1 &&
	       (n = recv(fd, s->got + s->ngot, sizeof(s->got) - 1 - s->ngot,
			 0)) > 0) {
		s->ngot += (size_t)n;
		s->got[s->ngot] = '\0';
		if (s->echo)
			send(fd, s->got + s->ngot - (size_t)n, (size_t)n,
			     MSG_NOSIGNAL);
		else if (strstr(s->got, "\r\n\r\n"))
			break;
	}
	if (!s->echo)
		send(fd, "HTTP/1.0 200 OK\r\n\r\nhello from upstream", 38,
		     MSG_NOSIGNAL);
	close(fd);
	return NULL;
}

static void server_start(struct server *s, int echo)
{
	struct sockaddr_in in;
	socklen_t len = sizeof(in);

	memset(s, 0, sizeof(*s));
	s->echo = echo;
	memset(&in, 0, sizeof(in));
	in.sin_family = AF_INET;
	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s->listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(bind(s->listener, (struct sockaddr *)&in, sizeof(in)) == 0);
	CHECK(listen(s->listener, 8) == 0);
	CHECK(getsockname(s->listener, (struct sockaddr *)&in, &len) == 0);
	s->port = ntohs(in.sin_port);
	CHECK(pthread_create(&s->thread, NULL, server_main, s) == 0);
}

static void server_end(struct server *s)
{
	shutdown(s->listener, SHUT_RDWR);
	pthread_join(s->thread, NULL);
	close(s->listener);
}

/* Hand fd to the proxy as the forwarder does; fd stays the caller's. */
static void hand_over(int command_fd, int fd)
{
	union {
		struct cmsghdr h;
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
	CHECK(sendmsg(command_fd, &msg, 0) == 1);
}

/* A connection to the proxy: the client's end. */
static int connect_proxy(int command_fd)
{
	int pair[2];

	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0);
	hand_over(command_fd, pair[1]);
	close(pair[1]);
	return pair[0];
}

/* What comes on fd until it ends, or until it holds `until` (NULL: the
 * end), within ANSWER_MS. */
static void read_reply(int fd, char *out, size_t cap, const char *until)
{
	size_t n = 0;

	out[0] = '\0';
	while (n < cap - 1) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t got;

		if (poll(&p, 1, ANSWER_MS) <= 0) {
			FAIL_AT("no answer in time; so far: '%s'", out);
			return;
		}
		if ((got = recv(fd, out + n, cap - 1 - n, 0)) <= 0)
			return;
		n += (size_t)got;
		out[n] = '\0';
		if (until && strstr(out, until))
			return;
	}
}

static void send_text(int fd, const char *text)
{
	CHECK(send(fd, text, strlen(text), MSG_NOSIGNAL) ==
	      (ssize_t)strlen(text));
}

/* A proxy whose rule allows 127.0.0.1 at port alone. */
static struct lec_egress *proxy_for(unsigned port, int *command_fd)
{
	struct lec_egress *e = NULL;
	struct lec_netrule rule;
	char url[64];

	memset(&rule, 0, sizeof(rule));
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/", port);
	CHECK_OK(lec_egress_allow_url(&rule, url));
	CHECK_OK(lec_egress_start(&e, &rule, 60, command_fd));
	return e;
}

TEST(a_plain_request_reaches_an_allowed_server)
{
	struct server s;
	struct lec_egress *e;
	char request[128], reply[512];
	int command_fd, c;

	server_start(&s, 0);
	e = proxy_for(s.port, &command_fd);
	c = connect_proxy(command_fd);
	snprintf(request, sizeof(request),
		 "GET http://127.0.0.1:%u/simple/ HTTP/1.1\r\n"
		 "Proxy-Connection: keep-alive\r\n\r\n",
		 s.port);
	send_text(c, request);
	read_reply(c, reply, sizeof(reply), NULL);
	CHECK_STR(reply, "HTTP/1.0 200 OK\r\n\r\nhello from upstream");
	close(c);
	server_end(&s);
	snprintf(request, sizeof(request),
		 "GET /simple/ HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
		 "Connection: close\r\n\r\n",
		 s.port);
	CHECK_STR(s.got, request);
	lec_egress_free(e);
	close(command_fd);
}

TEST(a_tunnel_relays_both_ways)
{
	struct server s;
	struct lec_egress *e;
	struct lec_egress_stats st;
	char request[128], reply[512];
	int command_fd, c;

	server_start(&s, 1);
	e = proxy_for(s.port, &command_fd);
	c = connect_proxy(command_fd);
	/* The first bytes of the tunnel come with the head. */
	snprintf(request, sizeof(request),
		 "CONNECT 127.0.0.1:%u HTTP/1.1\r\n\r\nping", s.port);
	send_text(c, request);
	read_reply(c, reply, sizeof(reply), "ping");
	CHECK_STR(reply, "HTTP/1.1 200 Connection established\r\n\r\nping");
	send_text(c, "pong");
	read_reply(c, reply, sizeof(reply), "pong");
	CHECK_STR(reply, "pong");
	/* The client's end is passed on; the server's follows. */
	shutdown(c, SHUT_WR);
	read_reply(c, reply, sizeof(reply), NULL);
	CHECK_STR(reply, "");
	close(c);
	server_end(&s);
	CHECK_STR(s.got, "pingpong");
	lec_egress_stats(e, &st);
	CHECK_INT(st.connections, 1);
	CHECK_INT(st.refused, 0);
	lec_egress_free(e);
	close(command_fd);
}

TEST(other_loopback_ports_and_private_addresses_are_refused)
{
	/* Each request, written around the port. */
	static const char *const targets[][2] = {
		{ "CONNECT 127.0.0.1:", " HTTP/1.1\r\n\r\n" },
		{ "GET http://127.0.0.1:", "/ HTTP/1.1\r\n\r\n" },
		{ "CONNECT [::ffff:127.0.0.1]:", " HTTP/1.1\r\n\r\n" },
		{ "CONNECT localhost:", " HTTP/1.1\r\n\r\n" },
		{ "CONNECT 10.0.0.1:", " HTTP/1.1\r\n\r\n" },
		{ "GET http://169.254.169.254:", "/latest/meta-data/ HTTP/1.1\r\n\r\n" },
		{ "CONNECT 0.0.0.0:", " HTTP/1.1\r\n\r\n" },
	};
	struct server s;
	struct lec_egress *e;
	struct lec_egress_stats st;
	char request[128], reply[1024], first[64];
	int command_fd, c;
	size_t i;

	server_start(&s, 0);
	e = proxy_for(s.port, &command_fd);
	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		c = connect_proxy(command_fd);
		snprintf(request, sizeof(request), "%s%u%s", targets[i][0],
			 s.port + 1, targets[i][1]);
		send_text(c, request);
		read_reply(c, reply, sizeof(reply), NULL);
		if (strncmp(reply, "HTTP/1.1 403 Forbidden\r\n", 24) != 0 ||
		    strstr(reply, "is refused") == NULL)
			FAIL_AT("'%s' was answered '%s'", request, reply);
		close(c);
	}
	lec_egress_stats(e, &st);
	CHECK_INT(st.refused, sizeof(targets) / sizeof(targets[0]));
	snprintf(first, sizeof(first), "127.0.0.1:%u", s.port + 1);
	CHECK_STR(st.first_refused, first);
	/* The allowed server heard nothing of them. */
	lec_egress_free(e);
	close(command_fd);
	server_end(&s);
	CHECK_INT(s.ngot, 0);
}

TEST(garbage_and_names_that_do_not_resolve_get_an_answer)
{
	struct lec_egress *e = NULL;
	char reply[1024];
	int command_fd, c;

	CHECK_OK(lec_egress_start(&e, NULL, 60, &command_fd));
	c = connect_proxy(command_fd);
	send_text(c, "\x16\x03\x01 a TLS hello to the proxy");
	read_reply(c, reply, sizeof(reply), NULL);
	CHECK(strncmp(reply, "HTTP/1.1 400 Bad Request\r\n", 26) == 0);
	CHECK(strstr(reply, "not an HTTP request") != NULL);
	close(c);
	c = connect_proxy(command_fd);
	send_text(c, "CONNECT no-such-host.invalid:443 HTTP/1.1\r\n\r\n");
	read_reply(c, reply, sizeof(reply), NULL);
	CHECK(strncmp(reply, "HTTP/1.1 502 Bad Gateway\r\n", 26) == 0);
	close(c);
	lec_egress_free(e);
	close(command_fd);
}

TEST(only_stream_sockets_are_taken_and_only_so_many)
{
	struct lec_egress *e = NULL;
	int command_fd, p[2], held[LEC_EGRESS_MAX_CONNECTIONS], over, i;
	char reply[256];
	struct pollfd pf;

	CHECK_OK(lec_egress_start(&e, NULL, 60, &command_fd));
	/* A pipe and a datagram socket are closed unread. */
	CHECK(pipe(p) == 0);
	hand_over(command_fd, p[0]);
	close(p[0]);
	pf.fd = p[1];
	pf.events = 0;
	CHECK(poll(&pf, 1, ANSWER_MS) == 1 && (pf.revents & POLLERR));
	close(p[1]);
	CHECK(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, p) == 0);
	hand_over(command_fd, p[1]);
	close(p[1]);
	close(p[0]);
	/* The cap: the connections past it are closed at once. */
	for (i = 0; i < LEC_EGRESS_MAX_CONNECTIONS; i++)
		held[i] = connect_proxy(command_fd);
	over = connect_proxy(command_fd);
	read_reply(over, reply, sizeof(reply), NULL);
	CHECK_STR(reply, "");
	pf.fd = held[0];
	pf.events = POLLIN;
	CHECK_INT(poll(&pf, 1, 200), 0);
	close(over);
	/* The held ones still work once asked. */
	send_text(held[0], "nonsense\r\n\r\n");
	read_reply(held[0], reply, sizeof(reply), NULL);
	CHECK(strncmp(reply, "HTTP/1.1 400", 12) == 0);
	for (i = 0; i < LEC_EGRESS_MAX_CONNECTIONS; i++)
		close(held[i]);
	lec_egress_free(e);
	close(command_fd);
}

TEST(stopping_ends_every_connection)
{
	struct server s;
	struct lec_egress *e;
	char request[128], reply[512];
	int command_fd, c, idle;
	int64_t t0;

	server_start(&s, 1);
	e = proxy_for(s.port, &command_fd);
	c = connect_proxy(command_fd);
	idle = connect_proxy(command_fd);
	snprintf(request, sizeof(request),
		 "CONNECT 127.0.0.1:%u HTTP/1.1\r\n\r\n", s.port);
	send_text(c, request);
	read_reply(c, reply, sizeof(reply), "\r\n\r\n");
	t0 = lec__monotonic_ms();
	lec_egress_free(e);
	read_reply(c, reply, sizeof(reply), NULL);
	read_reply(idle, reply, sizeof(reply), NULL);
	CHECK(lec__monotonic_ms() - t0 < 2000);
	close(c);
	close(idle);
	close(command_fd);
	server_end(&s);
}

/* The forwarder ------------------------------------------------------------------ */

/* lec_egress_forward in a child process (it sets its environment and
 * forks): its status, or -1. */
static int forward(int command_fd, const char *const *argv)
{
	pid_t pid = fork();
	int status = -1, wstatus;

	if (pid == 0) {
		/* As the runner hands it over: inherited across exec. */
		fcntl(command_fd, F_SETFD, 0);
		_exit(lec_egress_forward(command_fd, argv, &status) == LEC_OK
			      ? status
			      : 200);
	}
	if (pid < 0 || waitpid(pid, &wstatus, 0) != pid || !WIFEXITED(wstatus))
		return -1;
	return WEXITSTATUS(wstatus);
}

TEST(the_forwarder_points_the_command_at_the_proxy)
{
	struct server s;
	struct lec_egress *e;
	char script[512];
	const char *const env_check[] = {
		"/bin/sh", "-c",
		"case $HTTPS_PROXY in http://127.0.0.1:[0-9]*) ;; *) exit 1;; esac; "
		"test \"$HTTP_PROXY\" = \"$HTTPS_PROXY\" && "
		"test \"$http_proxy\" = \"$HTTPS_PROXY\" && "
		"test \"$https_proxy\" = \"$HTTPS_PROXY\" && "
		"test -z \"$NO_PROXY$no_proxy\" && "
		"test ! -e /proc/self/fd/$FD && exit 7",
		NULL
	};
	const char *const missing[] = { "/nonexistent/command", NULL };
	const char *const curl[] = { "/bin/sh", "-c", script, NULL };
	int command_fd;
	char fd_text[16];

	server_start(&s, 0);
	e = proxy_for(s.port, &command_fd);
	snprintf(fd_text, sizeof(fd_text), "%d", command_fd);
	setenv("FD", fd_text, 1);
	setenv("NO_PROXY", "*", 1);
	CHECK_INT(forward(command_fd, env_check), 7);
	CHECK_INT(forward(command_fd, missing), 127);
	/* curl through it, as pip goes: the allowed server answers, the
	 * host's other ports do not. */
	snprintf(script, sizeof(script),
		 "curl -sS --max-time 20 http://127.0.0.1:%u/via-forwarder && "
		 "! curl -sSf --max-time 20 -o /dev/null "
		 "http://127.0.0.1:%u/refused",
		 s.port, s.port + 1);
	CHECK_INT(forward(command_fd, curl), 0);
	unsetenv("FD");
	unsetenv("NO_PROXY");
	server_end(&s);
	CHECK(strstr(s.got, "GET /via-forwarder HTTP/1.1\r\n") == s.got);
	lec_egress_free(e);
	close(command_fd);
}

TEST(the_forwarder_wants_the_proxys_socket)
{
	const char *const argv[] = { "/bin/true", NULL };
	int p[2], status;

	CHECK(pipe(p) == 0);
	CHECK_ERR(lec_egress_forward(p[0], argv, &status), LEC_EINVALID);
	CHECK_INT(status, 127);
	CHECK_ERR(lec_egress_forward(-1, argv, &status), LEC_EINVALID);
	CHECK_ERR(lec_egress_forward(p[0], NULL, &status), LEC_EINVALID);
	close(p[0]);
	close(p[1]);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(connect_names_a_host_and_port),
	TEST_ENTRY(an_absolute_request_goes_to_the_server_in_origin_form),
	TEST_ENTRY(a_head_is_taken_only_once_whole),
	TEST_ENTRY(a_head_past_the_limit_is_refused),
	TEST_ENTRY(what_the_proxy_does_not_take_is_refused),
	TEST_ENTRY(a_flood_of_headers_is_refused),
	TEST_ENTRY(an_administrators_url_allows_its_endpoint_only),
	TEST_ENTRY(a_plain_request_reaches_an_allowed_server),
	TEST_ENTRY(a_tunnel_relays_both_ways),
	TEST_ENTRY(other_loopback_ports_and_private_addresses_are_refused),
	TEST_ENTRY(garbage_and_names_that_do_not_resolve_get_an_answer),
	TEST_ENTRY(only_stream_sockets_are_taken_and_only_so_many),
	TEST_ENTRY(stopping_ends_every_connection),
	TEST_ENTRY(the_forwarder_points_the_command_at_the_proxy),
	TEST_ENTRY(the_forwarder_wants_the_proxys_socket),
};

LEC_TEST_MAIN(tests)
