/*
 * Fuzz target: form request bodies (application/x-www-form-urlencoded and
 * multipart/form-data), through the server's own path: libmicrohttpd's post
 * processor decodes the body of a real request (form_body.c needs the
 * connection, which carries the Content-Type), its fields go into the form
 * tree (input.c srv_input_form_add), and the body readers of body.c read
 * it with DRF's form rules.
 *
 * The harness runs one libmicrohttpd daemon on a loopback port, in a
 * thread of its own, and sends each input to it as a request; the checks
 * run in the daemon's thread, where a failed one aborts the process, which
 * libFuzzer reports as it reports a sanitizer's finding.
 *
 * Input: the first line is the Content-Type ("PATCH " before it makes the
 * request a PATCH, a partial update), the rest the body. Besides the
 * sanitizers: a refused body gets a 400 (415 for a type that is no form
 * and not JSON) whose response is valid JSON in valid UTF-8; an accepted one is a form tree whose keys and strings are
 * valid UTF-8 without control characters (line breaks and tabs aside in
 * strings) holding SRV_MAX_FORM_FIELDS values at most, and every reader
 * either reads it or answers a 400 with a valid JSON body; a body refused
 * for too many fields is one long enough to hold them.
 */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "body.h"
#include "form_body.h"
#include "fuzz.h"
#include "input.h"
#include "srv_fuzz.h"

#define URI "/api/v3/projects/"

struct upload {
	char *body;
	size_t len;
};

/* The values of a form tree: each field's list, in every nested form. */
static size_t form_values(const cJSON *form)
{
	const cJSON *item;
	size_t n = 0;

	cJSON_ArrayForEach(item, form)
		n += cJSON_IsObject(item) ? form_values(item)
					  : (size_t)cJSON_GetArraySize(item);
	return n;
}

/* Parse the request's body as the server does and check the result. */
static void check_request(struct MHD_Connection *conn, const char *method,
			  struct upload *up)
{
	struct srv_response res;
	struct srv_request req;
	cJSON *body;

	srv_fuzz_request(&req, URI, (const uint8_t *)(up->body ? up->body : ""),
			 up->len);
	req.conn = conn;
	if (strcmp(method, "PATCH") == 0) {
		req.method = SRV_PATCH;
		req.method_name = "PATCH";
	}
	memset(&res, 0, sizeof(res));
	if ((body = srv_parse_body(&req, &res)) == NULL) {
		/* 415: a Content-Type that is neither a form nor JSON. */
		FUZZ_CHECK(res.status == 400 || res.status == 415,
			   "a refused body is 400 (or 415)");
		/* A field takes a byte at least (its separator). */
		FUZZ_CHECK(res.body == NULL ||
				   memmem(res.body, res.body_len,
					  SRV_TOO_MANY_FIELDS,
					  strlen(SRV_TOO_MANY_FIELDS)) ==
					   NULL ||
				   up->len >= SRV_MAX_FORM_FIELDS,
			   "too many fields only in a body that holds them");
		srv_fuzz_response_check_dispose(&res);
	} else {
		const char *ct = srv_header(&req, "Content-Type");

		FUZZ_CHECK(srv_input_form_kind(body) != SRV_FORM_NONE ||
				   ct == NULL || !srv_form_is_content_type(ct),
			   "a form body is a form tree");
		FUZZ_CHECK(srv_input_form_kind(body) == SRV_FORM_NONE ||
				   form_values(body) <= SRV_MAX_FORM_FIELDS,
			   "a form tree holds SRV_MAX_FORM_FIELDS values at most");
		srv_fuzz_check_strings(body);
		srv_fuzz_read_fields(body);
		cJSON_Delete(body);
	}
	srv_fuzz_request_dispose(&req);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *data,
				  size_t *size, void **state)
{
	struct upload *up = *state;
	struct MHD_Response *r;
	enum MHD_Result ok;

	(void)cls;
	(void)url;
	(void)version;
	if (up == NULL) {
		if ((up = calloc(1, sizeof(*up))) == NULL)
			abort();
		*state = up;
		return MHD_YES;
	}
	if (*size > 0) {
		char *grown = realloc(up->body, up->len + *size + 1);

		if (grown == NULL)
			abort();
		memcpy(grown + up->len, data, *size);
		up->body = grown;
		up->len += *size;
		up->body[up->len] = '\0';
		*size = 0;
		return MHD_YES;
	}
	check_request(conn, method, up);
	r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	ok = MHD_queue_response(conn, 200, r);
	MHD_destroy_response(r);
	return ok;
}

static void on_completed(void *cls, struct MHD_Connection *conn,
			 void **state, enum MHD_RequestTerminationCode why)
{
	struct upload *up = *state;

	(void)cls;
	(void)conn;
	(void)why;
	if (up) {
		free(up->body);
		free(up);
	}
	*state = NULL;
}

/* The daemon, started on the first input and kept for the process. */
static unsigned short daemon_port(void)
{
	static struct MHD_Daemon *daemon;
	static unsigned short port;
	const union MHD_DaemonInfo *info;

	if (daemon)
		return port;
	daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
					  MHD_USE_ERROR_LOG,
				  0, NULL, NULL, on_request, NULL,
				  MHD_OPTION_NOTIFY_COMPLETED, on_completed,
				  NULL, MHD_OPTION_CONNECTION_TIMEOUT, 10u,
				  MHD_OPTION_END);
	FUZZ_CHECK(daemon != NULL, "the harness's daemon starts");
	info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
	port = info->port;
	return port;
}

/*
 * Each input is a connection that the daemon closes first, so the daemon's
 * side waits in TIME_WAIT for a minute holding its address pair: from one
 * source address, the ~28,000 ephemeral ports run out after as many inputs
 * and connect fails (CI saw it at 65,000 runs). Taking the source from
 * 127.0.0.0/8 in turn, 65,536 addresses, gives each pair a minute to clear.
 */
static void bind_fresh_source(int fd)
{
	static unsigned int next;
	struct sockaddr_in src;

	memset(&src, 0, sizeof(src));
	src.sin_family = AF_INET;
	src.sin_addr.s_addr = htonl(0x7f010000u | (next++ & 0xffffu));
	FUZZ_CHECK(bind(fd, (struct sockaddr *)&src, sizeof(src)) == 0,
		   "a loopback source address");
}

static void send_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);

		if (w <= 0)
			return; /* the daemon closed: the read below ends */
		s += w;
		n -= (size_t)w;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *nl;
	const char *method = "POST";
	struct sockaddr_in addr;
	char head[1024], ct[512], buf[4096];
	size_t ctlen, i, j = 0;
	int fd;

	if (size > SRV_MAX_BODY)
		return 0;
	nl = memchr(text, '\n', size);
	ctlen = nl ? (size_t)(nl - text) : size;
	if (ctlen >= 6 && memcmp(text, "PATCH ", 6) == 0) {
		method = "PATCH";
		text += 6;
		ctlen -= 6;
		size -= 6;
	}
	/* A header value without CR, LF or NUL (the request line stays one). */
	for (i = 0; i < ctlen && j + 1 < sizeof(ct); i++)
		if (text[i] != '\r' && text[i] != '\0')
			ct[j++] = text[i];
	ct[j] = '\0';
	text += nl ? ctlen + 1 : ctlen;
	size -= nl ? ctlen + 1 : ctlen;

	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_port = htons(daemon_port());
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	FUZZ_CHECK(fd >= 0, "a socket");
	bind_fresh_source(fd);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
		/* The harness's own failure, not the parser's: say which, so
		 * a rare one can be told apart (refused, address in use). */
		perror("fuzz form: connect to the harness's daemon");
		FUZZ_CHECK(0, "the harness's daemon answers");
	}
	snprintf(head, sizeof(head),
		 "%s " URI " HTTP/1.1\r\nHost: localhost\r\n"
		 "Content-Type: %s\r\nContent-Length: %zu\r\n"
		 "Connection: close\r\n\r\n",
		 method, ct, size);
	send_all(fd, head, strlen(head));
	send_all(fd, text, size);
	while (recv(fd, buf, sizeof(buf), 0) > 0)
		;
	close(fd);
	return 0;
}
