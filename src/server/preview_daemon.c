/*
 * The preview server (preview_daemon.h). libmicrohttpd with a thread per
 * connection: an event stream holds its connection open and its reader
 * callback blocks until the next state change, which a shared thread pool
 * could not afford; a preview has one reader and a handful of connections.
 *
 * Any local process can reach the port, so the connections are held as
 * `lectern serve` holds them (guard.c: a deadline on each request's
 * headers, libmicrohttpd's messages rate-limited on the writer's
 * terminal), event streams are capped below the connection limit so
 * idle ones cannot take every connection from the pages, and a stream
 * whose client has gone gives its connection back within
 * PREVIEW_HANGUP_POLL_MS. The path is decoded from the raw URI as the
 * docs host decodes it (docs_decode_path): an encoded NUL or another
 * control character is a 404, never a shorter name of another file.
 *
 * Files are opened through the site link at each request (docs_dir_open,
 * then docs_open_inside: nothing outside the site is reachable), so a
 * request reads one build's output from start to end even when a rebuild
 * publishes meanwhile. HTML gets the reload script before its last
 * </body>, and the reader's addons' tag as the docs host puts it
 * (docs_inject.c), with the script and /_/addons/ answered here
 * (preview_addons.c); every response says no-store, so a reload shows
 * the new build.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <microhttpd.h>

#include "docs.h"
#include "guard.h"
#include "json_build.h"
#include "log.h"
#include "preview_addons.h"
#include "preview_daemon.h"
#include "v3.h"

/* Connections at once, each with a thread of its own: a browser or two
 * and a TUI, an event stream per open page and the pages they load. */
#define PREVIEW_MAX_CONNECTIONS 64
/* Connections waiting for a request's headers past which the guard's
 * deadline drops from SRV_HEADER_SECONDS to SRV_HEADER_SECONDS_CROWDED:
 * half the connections, as `lectern serve` has it, so idle connections
 * from a local process (no request at all) hold the others' way in for
 * 2 s at a time, not 10. */
#define PREVIEW_CROWDED_CONNECTIONS (PREVIEW_MAX_CONNECTIONS / 2)
/* Event streams at once: a stream holds its connection and thread while
 * its client stays, so without a cap idle streams from any local process
 * would take every connection and leave none for pages. A quarter of the
 * connections: a writer's tabs and a TUI fit, and the rest stays for the
 * pages. One more gets a 503 and its connection closed. */
#define PREVIEW_MAX_STREAMS (PREVIEW_MAX_CONNECTIONS / 4)
/* What that 503 asks a client to wait before it tries again (s). */
#define PREVIEW_BUSY_RETRY_S 5
/* How often (ms) an event stream waiting for a state change looks whether
 * its client has gone: until it notices, it holds a thread and one of the
 * PREVIEW_MAX_STREAMS, and without looking it would notice only when its
 * next keep-alive comment failed, PREVIEW_KEEPALIVE_S later. */
#define PREVIEW_HANGUP_POLL_MS 250
/* An idle connection is closed after this many seconds; event streams
 * send a comment more often than that. */
#define PREVIEW_CONNECTION_TIMEOUT_S 120
/* Seconds between keep-alive comments on an idle event stream: proxies and
 * browsers drop a silent stream, and a gone client is noticed only when a
 * write fails. */
#define PREVIEW_KEEPALIVE_S 15
/* What EventSource waits before reconnecting (ms): a restarted preview is
 * found again at once. */
#define PREVIEW_RETRY_MS 1000
/* HTML pages bigger than this are sent as they are, without the script. */
#define PREVIEW_HTML_MAX ((size_t)64 * 1024 * 1024)
/* Bytes of an event stream handed to libmicrohttpd at a time. */
#define PREVIEW_STREAM_BLOCK 4096
/* State changes kept for event streams: a stream that fell behind (a
 * rebuild's "building" and "ready" a millisecond apart) still sends each
 * one in order. A reader more than this many behind gets the oldest kept
 * next; a rebuild makes two or three changes, so this is many rebuilds. */
#define PREVIEW_HISTORY 16

/* Reloads the page when a build newer than the one it shows is ready, and
 * keeps a small banner in the bottom left corner (the addons' flyout
 * has the right) saying how many warnings the last build had (a click
 * lists them); the format's one argument is the build
 * the page came from. The records are the project's text: they go in as
 * text nodes, never as markup. */
static const char reload_script[] =
	"<script id=\"lectern-preview\">(function(){var g=%" PRIu64 ";"
	"var b=null,l=null;"
	"function show(d){var c=d.warning_counts,w=d.warnings||[];"
	"if(!c||!c.count){if(b){b.remove();b=null;}return;}"
	"if(!b){b=document.createElement(\"div\");b.id=\"lectern-warnings\";"
	"b.style.cssText=\"position:fixed;left:8px;bottom:8px;z-index:99999;"
	"max-width:40em;max-height:50vh;overflow:auto;background:#fff8e1;"
	"color:#5d4037;border:1px solid #ffb300;border-radius:4px;padding:4px 8px;"
	"font:13px sans-serif;cursor:pointer\";"
	"b.onclick=function(){if(l)l.hidden=!l.hidden;};"
	"document.body.appendChild(b);}"
	"b.textContent=c.count+(c.count===1?\" warning\":\" warnings\")+"
	"(c.new?\" (\"+c.new+\" new)\":\"\");"
	"l=document.createElement(\"ul\");l.hidden=true;"
	"l.style.cssText=\"margin:4px 0 0;padding-left:1.2em\";"
	"w.forEach(function(r){var i=document.createElement(\"li\");"
	"i.textContent=(r.file?r.file+(r.line?\":\"+r.line:\"\")+\": \":\"\")+"
	"r.kind+\": \"+r.message+(r.new?\" (new)\":\"\");l.appendChild(i);});"
	"b.appendChild(l);}"
	"var s=new EventSource(\"" SRV_PREVIEW_EVENTS "\");"
	"s.addEventListener(\"status\",function(e){var d=JSON.parse(e.data);"
	"if(d.state===\"ready\"&&d.published!==g)location.reload();"
	"else if(d.state!==\"building\")show(d);});"
	"})();</script>";

struct srv_preview {
	struct MHD_Daemon *daemon;
	struct srv_guard *guard;
	char *site;
	char *name;             /* the project, for /_/addons/ */
	unsigned short port;
	pthread_mutex_t lock;
	pthread_cond_t changed; /* seq moved or stopping */
	uint64_t seq;           /* state changes so far */
	uint64_t published;
	int64_t published_ms;   /* how long that build took; < 0: unknown */
	unsigned streams;       /* event streams open */
	/* The status bodies of the last PREVIEW_HISTORY changes, change n
	 * at n % PREVIEW_HISTORY; the current one is at seq. */
	char *history[PREVIEW_HISTORY];
	int stopping;
};

/* State ----------------------------------------------------------------- */

/* "warning_counts" and "warnings", the records as the v3 build's warnings
 * list has them; null before the first build ends. */
static void add_warnings(cJSON *o, const struct srv_preview_state *st)
{
	const struct lec_warning_set *set = st->warnings;
	cJSON *counts, *list;
	size_t i, fresh = 0;

	if (set == NULL) {
		cJSON_AddNullToObject(o, "warning_counts");
		cJSON_AddNullToObject(o, "warnings");
		return;
	}
	for (i = 0; i < set->len; i++)
		fresh += set->items[i].is_new != 0;
	counts = cJSON_AddObjectToObject(o, "warning_counts");
	cJSON_AddNumberToObject(counts, "count",
				(double)(set->len + set->dropped));
	cJSON_AddNumberToObject(counts, "dropped", (double)set->dropped);
	cJSON_AddNumberToObject(counts, "fixed", (double)st->warnings_fixed);
	cJSON_AddNumberToObject(counts, "new", (double)fresh);
	list = cJSON_AddArrayToObject(o, "warnings");
	/* Each record as the warnings list of v3 shows it. */
	for (i = 0; list && i < set->len && i < SRV_PREVIEW_WARNINGS_MAX; i++)
		cJSON_AddItemToArray(list, srv_v3_warning(&set->items[i]));
}

static char *state_json(const struct srv_preview_state *st)
{
	cJSON *o = cJSON_CreateObject(), *changed = cJSON_CreateArray();
	char *text = NULL;
	size_t i;

	if (o == NULL || changed == NULL) {
		cJSON_Delete(o);
		cJSON_Delete(changed);
		return NULL;
	}
	for (i = 0;
	     st->changed && st->changed[i] && i < SRV_PREVIEW_CHANGED_MAX; i++)
		cJSON_AddItemToArray(changed, cJSON_CreateString(st->changed[i]));
	/* Keys in sorted order, as every Lectern JSON body. */
	cJSON_AddItemToObject(o, "changed", changed);
	if (st->duration_ms >= 0)
		cJSON_AddNumberToObject(o, "duration_ms",
					(double)st->duration_ms);
	else
		cJSON_AddNullToObject(o, "duration_ms");
	srv_json_str_or_null(o, "error", st->error);
	cJSON_AddNumberToObject(o, "generation", (double)st->generation);
	srv_json_str_or_null(o, "generator", st->generator);
	srv_json_str_or_null(o, "log", st->log);
	cJSON_AddNumberToObject(o, "published", (double)st->published);
	cJSON_AddStringToObject(o, "state", st->state);
	add_warnings(o, st);
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return text;
}

void srv_preview_update(struct srv_preview *p,
			const struct srv_preview_state *st)
{
	char *json = state_json(st);

	if (json == NULL)
		return;
	pthread_mutex_lock(&p->lock);
	p->seq++;
	free(p->history[p->seq % PREVIEW_HISTORY]);
	p->history[p->seq % PREVIEW_HISTORY] = json;
	if (st->published != p->published)
		p->published_ms = strcmp(st->state, "ready") == 0
					  ? st->duration_ms
					  : -1;
	p->published = st->published;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
}

/* Change n's status body, with the lock held; n within the history. */
static const char *status_at(const struct srv_preview *p, uint64_t n)
{
	const char *json = p->history[n % PREVIEW_HISTORY];

	return json ? json : "{}";
}

/* The status body and the published build, copied under the lock. */
static char *current_json(struct srv_preview *p, uint64_t *published)
{
	char *copy;

	pthread_mutex_lock(&p->lock);
	copy = strdup(status_at(p, p->seq));
	if (published)
		*published = p->published;
	pthread_mutex_unlock(&p->lock);
	return copy;
}

/* Responses ------------------------------------------------------------- */

static enum MHD_Result queue(struct MHD_Connection *conn, unsigned status,
			     struct MHD_Response *r, const char *type)
{
	enum MHD_Result ok;

	if (r == NULL)
		return MHD_NO;
	if (type)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	ok = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result send_text(struct MHD_Connection *conn,
				 unsigned status, const char *type,
				 const char *text)
{
	char *copy = strdup(text);

	if (copy == NULL)
		return MHD_NO;
	return queue(conn, status,
		     MHD_create_response_from_buffer(strlen(copy), copy,
						     MHD_RESPMEM_MUST_FREE),
		     type);
}

/* An HTML body with the addons' tag before its </head> and the reload
 * script before the last </body> (else at the end). Takes html
 * (malloc'd). */
static enum MHD_Result send_html(struct srv_preview *p,
				 struct MHD_Connection *conn, unsigned status,
				 char *html, size_t len)
{
	char script[sizeof(reload_script) + 32];
	uint64_t published = 0;
	size_t at, slen, i;
	char *out;

	if ((out = docs_inject_addons(html, len, &at)) != NULL) {
		free(html);
		html = out;
		len = at;
	}
	at = len;

	pthread_mutex_lock(&p->lock);
	published = p->published;
	pthread_mutex_unlock(&p->lock);
	slen = (size_t)snprintf(script, sizeof(script), reload_script,
				published);
	for (i = len; i >= 7; i--)
		if (strncasecmp(html + i - 7, "</body>", 7) == 0) {
			at = i - 7;
			break;
		}
	out = malloc(len + slen);
	if (out == NULL) {
		free(html);
		return MHD_NO;
	}
	memcpy(out, html, at);
	memcpy(out + at, script, slen);
	memcpy(out + at + slen, html + at, len - at);
	free(html);
	return queue(conn, status,
		     MHD_create_response_from_buffer(len + slen, out,
						     MHD_RESPMEM_MUST_FREE),
		     "text/html; charset=utf-8");
}

/* A page of our own (no site yet, not found), which reloads itself like
 * the site's pages. */
static enum MHD_Result send_page(struct srv_preview *p,
				 struct MHD_Connection *conn, unsigned status,
				 const char *title, const char *text)
{
	char *html = NULL;
	int n = asprintf(&html,
			 "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
			 "<title>%s</title></head><body><h1>%s</h1><p>%s</p>"
			 "</body></html>\n",
			 title, title, text);

	if (n < 0)
		return MHD_NO;
	return send_html(p, conn, status, html, (size_t)n);
}

static enum MHD_Result send_not_found(struct srv_preview *p,
				     struct MHD_Connection *conn)
{
	return send_page(p, conn, 404, "Not found",
			 "The preview has no page at this address (yet).");
}

static char *read_all(int fd, size_t size)
{
	char *buf = malloc(size ? size : 1);
	size_t got = 0;

	while (buf && got < size) {
		ssize_t n = read(fd, buf + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(buf);
			return NULL;
		}
		got += (size_t)n;
	}
	return buf;
}

static int is_html(const char *name)
{
	return strncmp(docs_content_type(name), "text/html", 9) == 0;
}

/* Send the open file fd (consumed). */
static enum MHD_Result send_file(struct srv_preview *p,
				 struct MHD_Connection *conn, int fd,
				 const struct stat *st, const char *name)
{
	size_t size = (size_t)st->st_size;
	char *html;

	if (is_html(name) && size <= PREVIEW_HTML_MAX) {
		html = read_all(fd, size);
		close(fd);
		if (html == NULL)
			return send_text(conn, 500, "text/plain",
					 "Reading the page failed.\n");
		return send_html(p, conn, 200, html, size);
	}
	return queue(conn, 200,
		     MHD_create_response_from_fd((uint64_t)size, fd),
		     docs_content_type(name));
}

/* Files ----------------------------------------------------------------- */

/* rel with "index.html" added when it names a directory ("" or ending in
 * '/'). NULL when too long. */
static char *file_of(const char *rel)
{
	size_t n = strlen(rel);
	char *out = NULL;

	if (n >= DOCS_PATH_MAX)
		return NULL;
	if (n == 0 || rel[n - 1] == '/')
		return asprintf(&out, "%s" DOCS_INDEX, rel) < 0 ? NULL : out;
	return strdup(rel);
}

/* 302 to the path as the client wrote it (n bytes of raw) with a slash
 * added. */
static enum MHD_Result redirect(struct MHD_Connection *conn, const char *raw,
				size_t n)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	char *location = NULL;
	enum MHD_Result ok;

	if (r == NULL || asprintf(&location, "%.*s/", (int)n, raw) < 0) {
		if (r)
			MHD_destroy_response(r);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, location);
	free(location);
	ok = queue(conn, 302, r, NULL);
	return ok;
}

/* The file at path (decoded, starting with '/'; raw_path the n bytes the
 * client wrote for it). */
static enum MHD_Result serve_file(struct srv_preview *p,
				  struct MHD_Connection *conn, const char *path,
				  const char *raw_path, size_t n)
{
	const char *rel = path + 1;
	int dirfd = docs_dir_open(p->site), fd = -1;
	char *file = NULL, *index = NULL;
	struct stat st;
	enum MHD_Result ok;

	if (dirfd < 0)
		return send_page(p, conn, 503, "Building the preview",
				 "The first build has not finished yet; this "
				 "page reloads when it has. See the status at "
				 "<a href=\"" SRV_PREVIEW_STATUS "\">"
				 SRV_PREVIEW_STATUS "</a>.");
	file = file_of(rel);
	if (file)
		fd = docs_open_inside(dirfd, p->site, file, &st);
	if (fd >= 0) {
		ok = send_file(p, conn, fd, &st, file);
	} else if (file && rel[0] && rel[strlen(rel) - 1] != '/' &&
		   asprintf(&index, "%s/" DOCS_INDEX, rel) >= 0 &&
		   (fd = docs_open_inside(dirfd, p->site, index, &st)) >= 0) {
		/* A directory: its index, at the URL with the slash, so the
		 * page's relative links work. */
		close(fd);
		ok = redirect(conn, raw_path, n);
	} else {
		ok = send_not_found(p, conn);
	}
	free(index);
	free(file);
	close(dirfd);
	return ok;
}

/* Event stream ---------------------------------------------------------- */

struct stream {
	struct srv_preview *p;
	int fd;       /* the client's socket; -1: not known */
	uint64_t seq; /* the state change sent last; UINT64_MAX: none yet */
	char *pending;
	size_t len, off;
};

/* An absolute CLOCK_MONOTONIC time ms from now (the condition's clock). */
static struct timespec ms_from_now(long ms)
{
	struct timespec at;

	clock_gettime(CLOCK_MONOTONIC, &at);
	at.tv_nsec += ms * 1000000L;
	at.tv_sec += at.tv_nsec / 1000000000L;
	at.tv_nsec %= 1000000000L;
	return at;
}

/* Whether the client of s has closed its end or the connection broke
 * (an event stream's client sends nothing after its request). */
static int client_gone(const struct stream *s)
{
	struct pollfd pfd = { s->fd, POLLRDHUP, 0 };

	return s->fd >= 0 && poll(&pfd, 1, 0) > 0 &&
	       (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

/* With the lock held: wait for a state change after s's, the server's
 * stop, or the keep-alive time, looking whether the client has gone every
 * PREVIEW_HANGUP_POLL_MS. -1 when it has, else 0. */
static int wait_change(struct stream *s)
{
	struct srv_preview *p = s->p;
	int slices = PREVIEW_KEEPALIVE_S * 1000 / PREVIEW_HANGUP_POLL_MS;
	struct timespec at;
	int rc;

	while (slices-- > 0) {
		at = ms_from_now(PREVIEW_HANGUP_POLL_MS);
		rc = 0;
		while (!p->stopping && s->seq == p->seq && rc == 0)
			rc = pthread_cond_timedwait(&p->changed, &p->lock, &at);
		if (rc == 0)
			return 0;
		if (client_gone(s))
			return -1;
	}
	return 0;
}

/* Wait for the next state change (or the keep-alive time) and queue it:
 * the current state first, then every change after it in order, as kept.
 * -1 when the server stops or the client has gone. */
static int next_event(struct stream *s)
{
	struct srv_preview *p = s->p;
	int n = -1, gone;

	free(s->pending);
	s->pending = NULL;
	s->len = s->off = 0;
	pthread_mutex_lock(&p->lock);
	if (s->seq == UINT64_MAX)
		s->seq = p->seq - 1;
	gone = wait_change(s) < 0;
	if (p->stopping || gone) {
		n = -1;
	} else if (s->seq != p->seq) {
		if (p->seq - s->seq >= PREVIEW_HISTORY)
			s->seq = p->seq - PREVIEW_HISTORY;
		s->seq++;
		n = asprintf(&s->pending,
			     "retry: %d\nevent: status\ndata: %s\n\n",
			     PREVIEW_RETRY_MS, status_at(p, s->seq));
	} else {
		n = asprintf(&s->pending, ": keep-alive\n\n");
	}
	pthread_mutex_unlock(&p->lock);
	if (n < 0)
		return -1;
	s->len = (size_t)n;
	return 0;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct stream *s = cls;
	size_t n;

	(void)pos;
	if (s->off == s->len && next_event(s) < 0)
		return MHD_CONTENT_READER_END_OF_STREAM;
	n = s->len - s->off < max ? s->len - s->off : max;
	memcpy(buf, s->pending + s->off, n);
	s->off += n;
	return (ssize_t)n;
}

/* A stream's end: its place among the PREVIEW_MAX_STREAMS is free. */
static void stream_free(void *cls)
{
	struct stream *s = cls;

	pthread_mutex_lock(&s->p->lock);
	s->p->streams--;
	pthread_mutex_unlock(&s->p->lock);
	free(s->pending);
	free(s);
}

/* One stream more than PREVIEW_MAX_STREAMS: a 503 that says so, and the
 * connection closed rather than held. */
static enum MHD_Result send_busy(struct MHD_Connection *conn)
{
	char body[160], retry[16];
	struct MHD_Response *r;

	snprintf(body, sizeof(body),
		 "{\"detail\":\"Too many event streams are open (%d): close "
		 "a page of the preview, or try again.\"}\n",
		 PREVIEW_MAX_STREAMS);
	snprintf(retry, sizeof(retry), "%d", PREVIEW_BUSY_RETRY_S);
	r = MHD_create_response_from_buffer(strlen(body), body,
					    MHD_RESPMEM_MUST_COPY);
	if (r) {
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, retry);
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	}
	return queue(conn, 503, r, "application/json");
}

static enum MHD_Result serve_events(struct srv_preview *p,
				    struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(
		conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct stream *s = calloc(1, sizeof(*s));
	struct MHD_Response *r;
	int full;

	if (s == NULL)
		return MHD_NO;
	s->p = p;
	s->fd = info ? info->connect_fd : -1;
	s->seq = UINT64_MAX;
	pthread_mutex_lock(&p->lock);
	full = p->streams >= PREVIEW_MAX_STREAMS;
	if (!full)
		p->streams++;
	pthread_mutex_unlock(&p->lock);
	if (full) {
		free(s);
		return send_busy(conn);
	}
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN,
					      PREVIEW_STREAM_BLOCK, stream_read,
					      s, stream_free);
	if (r == NULL) {
		stream_free(s);
		return MHD_NO;
	}
	MHD_add_response_header(r, "X-Accel-Buffering", "no");
	return queue(conn, 200, r, "text/event-stream");
}

/* Dispatch -------------------------------------------------------------- */

/* Only the loopback names of our own port: a web page elsewhere cannot
 * read the preview through DNS rebinding. */
static int host_allowed(struct srv_preview *p, struct MHD_Connection *conn)
{
	const char *host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						       MHD_HTTP_HEADER_HOST);
	static const char *const names[] = { "127.0.0.1", "localhost",
					     "[::1]" };
	char want[64];
	size_t i;

	if (host == NULL)
		return 1; /* HTTP/1.0 */
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(want, sizeof(want), "%s:%u", names[i], p->port);
		if (strcasecmp(host, want) == 0)
			return 1;
	}
	return 0;
}

/* libmicrohttpd hands over the raw URI before it unescapes anything (it
 * would cut a path at an encoded NUL): a copy of it is the request's
 * state, which on_completed frees. */
static void *uri_logger(void *cls, const char *uri, struct MHD_Connection *conn)
{
	(void)cls;
	srv_guard_request_line(conn);
	return strdup(uri);
}

static void on_completed(void *cls, struct MHD_Connection *conn,
			 void **con_cls, enum MHD_RequestTerminationCode why)
{
	(void)cls;
	(void)why;
	free(*con_cls);
	*con_cls = NULL;
	srv_guard_request_done(conn);
}

/* The addons' script, the bytes the docs host sends. */
static enum MHD_Result send_script(struct MHD_Connection *conn)
{
	char *copy = malloc(docs_addons_js_len);

	if (copy == NULL)
		return MHD_NO;
	memcpy(copy, docs_addons_js, docs_addons_js_len);
	return queue(conn, 200,
		     MHD_create_response_from_buffer(docs_addons_js_len, copy,
						     MHD_RESPMEM_MUST_FREE),
		     "application/javascript");
}

/* GET /_/addons/?query for the working tree, on the origin the page was
 * asked on (host_allowed has checked its Host). */
static enum MHD_Result serve_addons(struct srv_preview *p,
				    struct MHD_Connection *conn,
				    const char *query)
{
	const char *host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						       MHD_HTTP_HEADER_HOST);
	struct srv_preview_site site = { p->name, NULL, SRV_PREVIEW_STATUS, 0,
					 -1 };
	char *origin = NULL, *json = NULL;
	int status;

	pthread_mutex_lock(&p->lock);
	site.published = p->published;
	site.duration_ms = p->published_ms;
	pthread_mutex_unlock(&p->lock);
	if (host ? asprintf(&origin, "http://%s", host) < 0
		 : asprintf(&origin, "http://127.0.0.1:%u", p->port) < 0)
		return MHD_NO;
	site.origin = origin;
	status = srv_preview_addons(&site, query, &json);
	free(origin);
	if (status < 0)
		return MHD_NO;
	return queue(conn, (unsigned)status,
		     MHD_create_response_from_buffer(strlen(json), json,
						     MHD_RESPMEM_MUST_FREE),
		     "application/json");
}

/* A GET or HEAD of path (decoded; raw_path the n bytes the client wrote
 * for it, then its query). */
static enum MHD_Result dispatch(struct srv_preview *p,
				struct MHD_Connection *conn, const char *path,
				const char *raw_path, size_t n)
{
	char *json;

	if (strcmp(path, SRV_PREVIEW_STATUS) == 0) {
		if ((json = current_json(p, NULL)) == NULL)
			return MHD_NO;
		return queue(conn, 200,
			     MHD_create_response_from_buffer(
				     strlen(json), json, MHD_RESPMEM_MUST_FREE),
			     "application/json");
	}
	if (strcmp(path, SRV_PREVIEW_EVENTS) == 0)
		return serve_events(p, conn);
	if (strcmp(path, DOCS_ADDONS_PATH) == 0)
		return serve_addons(p, conn,
				    raw_path[n] == '?' ? raw_path + n + 1 : "");
	if (strcmp(path, DOCS_ADDONS_SCRIPT_PATH) == 0)
		return send_script(conn);
	return serve_file(p, conn, path, raw_path, n);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	struct srv_preview *p = cls;
	int get = strcmp(method, "GET") == 0, head = strcmp(method, "HEAD") == 0;
	const char *raw = *con_cls;
	enum MHD_Result ok;
	char *path;
	size_t n;

	(void)url;
	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	if (raw == NULL)
		return MHD_NO; /* out of memory in uri_logger: drop */
	srv_guard_headers_done(conn);
	if (!host_allowed(p, conn))
		return send_text(conn, 400, "text/plain",
				 "The preview answers on its loopback address "
				 "only.\n");
	if (!get && !head) {
		struct MHD_Response *r = MHD_create_response_from_buffer(
			0, NULL, MHD_RESPMEM_PERSISTENT);

		if (r)
			MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW,
						"GET, HEAD");
		return queue(conn, 405, r, NULL);
	}
	n = strcspn(raw, "?");
	if ((path = docs_decode_path(raw, n)) == NULL)
		return send_not_found(p, conn);
	ok = dispatch(p, conn, path, raw, n);
	free(path);
	return ok;
}

/* Start and stop -------------------------------------------------------- */

static void preview_free(struct srv_preview *p)
{
	size_t i;

	srv_guard_free(p->guard);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->changed);
	for (i = 0; i < PREVIEW_HISTORY; i++)
		free(p->history[i]);
	free(p->site);
	free(p->name);
	free(p);
}

/* The preview's state before its daemon starts: NULL after saying why. */
static struct srv_preview *preview_new(const char *site, const char *name)
{
	struct srv_preview *p = calloc(1, sizeof(*p));
	struct srv_preview_state initial = { "building", 0, 0, NULL, NULL,
					     NULL, NULL, -1, NULL, 0 };
	pthread_condattr_t attr;

	if (p == NULL || (p->site = strdup(site)) == NULL ||
	    (p->name = strdup(name)) == NULL) {
		if (p)
			free(p->site);
		free(p);
		srv_log("out of memory");
		return NULL;
	}
	p->published_ms = -1;
	pthread_mutex_init(&p->lock, NULL);
	/* Streams wait on it in slices of the monotonic clock. */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&p->changed, &attr);
	pthread_condattr_destroy(&attr);
	srv_preview_update(p, &initial);
	if (srv_guard_new(&p->guard, PREVIEW_CROWDED_CONNECTIONS) < 0) {
		preview_free(p);
		return NULL;
	}
	return p;
}

struct srv_preview *srv_preview_start(const char *host, unsigned short port,
				      const char *site, const char *name)
{
	struct srv_preview *p;
	struct sockaddr_in addr = { 0 };
	const union MHD_DaemonInfo *info;

	/* The guard's and libmicrohttpd's lines name this program. */
	srv_log_set_program("lectern preview");
	if ((p = preview_new(site, name)) == NULL)
		return NULL;
	addr.sin_family = AF_INET;
	addr.sin_port = htons(port);
	if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) {
		srv_log("%s is not an IPv4 address", host);
		preview_free(p);
		return NULL;
	}
	p->daemon = MHD_start_daemon(
		MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
			MHD_USE_ERROR_LOG,
		0, NULL, NULL, on_request, p,
		/* First, or libmicrohttpd logs the options on its own. */
		MHD_OPTION_EXTERNAL_LOGGER, srv_guard_log, p->guard,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
		MHD_OPTION_URI_LOG_CALLBACK, uri_logger, p,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, p,
		MHD_OPTION_NOTIFY_CONNECTION, srv_guard_notify, p->guard,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)PREVIEW_MAX_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned)PREVIEW_CONNECTION_TIMEOUT_S, MHD_OPTION_END);
	info = p->daemon ? MHD_get_daemon_info(p->daemon,
					       MHD_DAEMON_INFO_BIND_PORT)
			 : NULL;
	if (info == NULL) {
		srv_log("cannot listen on %s:%u: %s", host, port,
			strerror(errno));
		if (p->daemon)
			MHD_stop_daemon(p->daemon);
		preview_free(p);
		return NULL;
	}
	p->port = info->port;
	return p;
}

unsigned short srv_preview_port(const struct srv_preview *p)
{
	return p->port;
}

void srv_preview_stop(struct srv_preview *p)
{
	if (p == NULL)
		return;
	/* Event streams first: their readers block until told. */
	pthread_mutex_lock(&p->lock);
	p->stopping = 1;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	/* The guard goes after the daemon (preview_free): every connection
	 * has closed by then. */
	MHD_stop_daemon(p->daemon);
	preview_free(p);
}
