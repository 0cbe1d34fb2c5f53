/*
 * Fuzz target: the egress proxy's request parser (engine/src/egress.c),
 * which reads what a build's command (and so the repository's code) sends
 * to the proxy before the proxy connects anywhere.
 *
 * Input: the bytes a client sent. Besides the sanitizers, the parser's
 * promises are checked: a head is taken only once whole (every shorter
 * prefix asks for more), what follows it changes nothing, the host is a
 * name of host characters or an IPv6 address and the port 1 to 65535, a
 * tunnel has no upstream head, and the head sent to a server is one clean
 * request: CRLF lines only, no NUL or control character, an origin-form
 * target, one Host, none of the proxy's or hop-by-hop headers, and
 * Connection: close before its end.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz.h"
#include "lectern/egress.h"
#include "lectern/errors.h"

#define CLOSE_END "Connection: close\r\n\r\n"

/* Whether the header name of the line at line is name (any case). */
static int header_is(const char *line, const char *name)
{
	size_t n = strlen(name);

	return strncasecmp(line, name, n) == 0 && line[n] == ':';
}

static void check_host(const struct lec_egress_request *req)
{
	unsigned char addr[16];
	size_t i, n = strlen(req->host);

	FUZZ_CHECK(n > 0 && n <= LEC_EGRESS_HOST_MAX, "a host of 1-253 bytes");
	FUZZ_CHECK(req->port >= 1 && req->port <= 65535, "a port of 1-65535");
	if (strchr(req->host, ':')) {
		FUZZ_CHECK(inet_pton(AF_INET6, req->host, addr) == 1,
			   "a host with ':' is an IPv6 address");
		return;
	}
	for (i = 0; i < n; i++)
		FUZZ_CHECK(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "0123456789-._",
				  req->host[i]) != NULL,
			   "a host name of host characters");
}

/* The head for the server: one clean request. */
static void check_upstream(const struct lec_egress_request *req)
{
	const char *u = req->upstream, *line, *end;
	size_t n = req->upstream_len, i, hosts = 0;

	FUZZ_CHECK(u != NULL && strlen(u) == n, "an upstream head of its length");
	FUZZ_CHECK(n >= strlen(CLOSE_END) &&
			   strcmp(u + n - strlen(CLOSE_END), CLOSE_END) == 0,
		   "Connection: close ends the head");
	FUZZ_CHECK(strstr(u, "\r\n\r\n") == u + n - 4,
		   "the head's end is its only empty line");
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)u[i];

		FUZZ_CHECK(c != 0x7f && (c >= 0x20 || c == '\t' ||
					 (c == '\r' && u[i + 1] == '\n') ||
					 (c == '\n' && i > 0 && u[i - 1] == '\r')),
			   "CRLF lines without control characters");
	}
	end = strchr(u, ' ');
	FUZZ_CHECK(end && end[1] == '/', "an origin-form target");
	for (line = strstr(u, "\r\n") + 2; *line && line < u + n - 2;
	     line = strstr(line, "\r\n") + 2) {
		hosts += header_is(line, "host");
		FUZZ_CHECK(!header_is(line, "proxy-connection") &&
				   !header_is(line, "proxy-authorization") &&
				   !header_is(line, "keep-alive") &&
				   !header_is(line, "upgrade") &&
				   !header_is(line, "te") &&
				   !header_is(line, "trailer") &&
				   (!header_is(line, "connection") ||
				    line == u + n - strlen(CLOSE_END)),
			   "no proxy or hop-by-hop header passed on");
	}
	FUZZ_CHECK(hosts == 1, "exactly one Host");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lec_egress_request req, again;
	const char *text = (const char *)data;
	int rc = lec_egress_parse(size ? text : NULL, size, &req);

	FUZZ_CHECK(rc == LEC_OK || rc == 1 || rc == LEC_EINVALID ||
			   rc == LEC_ELIMIT || rc == LEC_ENOMEM,
		   "a known outcome");
	if (rc != LEC_OK) {
		FUZZ_CHECK(req.upstream == NULL, "nothing kept but on success");
		return 0;
	}
	FUZZ_CHECK(req.head_len >= 4 && req.head_len <= size &&
			   req.head_len <= LEC_EGRESS_HEAD_MAX &&
			   memcmp(text + req.head_len - 4, "\r\n\r\n", 4) == 0,
		   "the head ends at its empty line");
	check_host(&req);
	if (req.tunnel)
		FUZZ_CHECK(req.upstream == NULL, "a tunnel sends no head");
	else
		check_upstream(&req);
	/* Taken only once whole, whatever follows it. */
	FUZZ_CHECK(lec_egress_parse(text, req.head_len - 1, &again) == 1,
		   "a head one byte short asks for more");
	FUZZ_CHECK(lec_egress_parse(text, req.head_len, &again) == LEC_OK &&
			   again.tunnel == req.tunnel && again.port == req.port &&
			   strcmp(again.host, req.host) == 0 &&
			   again.upstream_len == req.upstream_len &&
			   (req.tunnel ||
			    memcmp(again.upstream, req.upstream,
				   req.upstream_len) == 0),
		   "what follows the head changes nothing");
	lec_egress_request_dispose(&again);
	lec_egress_request_dispose(&req);
	return 0;
}
