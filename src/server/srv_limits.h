/*
 * Every hard limit of the HTTP server in one place, each with the reason for
 * its size. Requests past a limit get a JSON error with the status named
 * beside it; nothing grows without bound.
 */
#ifndef LECTERN_SRV_LIMITS_H
#define LECTERN_SRV_LIMITS_H

/* Request URI (path + query): longer ones are 414. 8 KiB is what common
 * servers and proxies accept, and far beyond any real API call. */
#define SRV_MAX_URI 8192

/* Request body: larger ones are 413. The biggest legitimate body is an
 * environment variable of 48,000 characters, JSON-escaped (up to 6 bytes
 * per character), plus its name. */
#define SRV_MAX_BODY (512 * 1024)

/* Fields of a form body (each key=value, or each part of a multipart
 * body): more are 400 with Django's words. Django's own default
 * (DATA_UPLOAD_MAX_NUMBER_FIELDS), so a form the service takes is taken
 * here; the widest legitimate form, a project's, has about 20 fields. */
#define SRV_MAX_FORM_FIELDS 1000
#define SRV_TOO_MANY_FIELDS                                                  \
	"The number of GET/POST parameters exceeded "                        \
	"settings.DATA_UPLOAD_MAX_NUMBER_FIELDS."

/* JSON nesting depth of a request body: deeper is 400. The API's deepest
 * legitimate body is two levels ({"repository": {"url": ...}}). */
#define SRV_MAX_JSON_DEPTH 32

/* A host[:port] the server builds links from (Host, X-Forwarded-Host):
 * a DNS name is at most 253 bytes, plus a port. Longer ones are ignored
 * and links use the listening address. */
#define SRV_MAX_HOST 260

/* Media ranges of an Accept header read when choosing a page's form
 * (Markdown or HTML): a browser sends under ten; the header's size is
 * bounded by SRV_MAX_HEADER_BYTES anyway. */
#define SRV_ACCEPT_RANGES_MAX 64

/* Query parameters per request: more is 400. Filters plus paging plus
 * fields/omit/expand need about ten. */
#define SRV_MAX_QUERY_PARAMS 64

/* Request header fields, all together (names and values) and by count:
 * past either the answer is a JSON 431. A browser sends under 2 KiB; the
 * bounds sit far below what libmicrohttpd's buffer (SRV_CONNECTION_MEMORY)
 * holds, so that Lectern, not libmicrohttpd's HTML page, answers
 * (docs/hardening.md). */
#define SRV_MAX_HEADER_BYTES (16 * 1024)
#define SRV_MAX_HEADER_COUNT 100

/* Header and connection buffer per connection (libmicrohttpd's memory
 * limit): the request line and headers must fit in it with room to
 * spare, or libmicrohttpd answers with its own HTML page. It holds the
 * URI and header limits above together, plus a quarter for
 * libmicrohttpd's own records of the headers and the response's header
 * lines; and no more, for two costs measured at 32 and 64 KiB (issue 19):
 * libmicrohttpd zeroes the whole buffer between the requests of a
 * kept-alive connection (8% of the server's time at 64 KiB), and a pool
 * over 32 KiB is mmap()ed and unmapped per connection (page faults and
 * cross-CPU TLB flushes on every Connection: close request) where one
 * of 32 KiB comes from malloc. */
#define SRV_CONNECTION_MEMORY (32 * 1024)
_Static_assert(SRV_CONNECTION_MEMORY >=
		       (SRV_MAX_URI + SRV_MAX_HEADER_BYTES) * 5 / 4,
	       "Lectern's URI and header limits must come before "
	       "libmicrohttpd's");

/* Simultaneous connections: beyond this new ones wait in the kernel's
 * backlog. Several per-address allowances (below), so one address cannot
 * take them all; lowered at start when the open-file limit cannot hold
 * them plus SRV_FD_RESERVE. Divided evenly among the server's threads,
 * each of which accepts until it holds its share. */
#define SRV_MAX_CONNECTIONS 4096

/* Connections from one address, counted across all the server's threads:
 * more are closed as soon as accepted. The API benchmark's 256 keep-alive
 * connections plus the TUI and CLI beside them fit; a flood from one
 * address holds at most this many. */
#define SRV_MAX_CONNECTIONS_PER_IP 512

/* Connections the kernel completes and queues on the listening socket
 * before the server accepts them (listen()'s backlog; the kernel caps it
 * at net.core.somaxconn, 4096 by default): a burst as large as the
 * connection limit waits there instead of being refused. */
#define SRV_LISTEN_BACKLOG SRV_MAX_CONNECTIONS

/* Descriptors kept for everything but client sockets: each thread's
 * SQLite handles and WAL files, files being sent, build pipes and logs. */
#define SRV_FD_RESERVE 256

/* Seconds an idle connection is kept open (libmicrohttpd's timeout, which
 * every byte received resets). */
#define SRV_CONNECTION_TIMEOUT 60

/* Seconds a connection has to deliver a request's headers, counted from
 * its accept or from the end of its previous response, however slowly the
 * bytes trickle in: libmicrohttpd's own timeout restarts with every byte,
 * so one byte a minute would hold a connection forever. Headers are one
 * or two TCP segments; 10 s outlasts several retransmissions of them on a
 * bad link. A kept-alive connection idle this long is closed too. */
#define SRV_HEADER_SECONDS 10

/* When more than SRV_CROWDED_CONNECTIONS connections are waiting for
 * headers (half of SRV_MAX_CONNECTIONS: a slow-client flood from many
 * addresses), the deadline drops to SRV_HEADER_SECONDS_CROWDED, keeping
 * room for new clients; a real client sends its headers at once. */
#define SRV_CROWDED_CONNECTIONS (SRV_MAX_CONNECTIONS / 2)
#define SRV_HEADER_SECONDS_CROWDED 2

/* How often the header deadline is checked (ms): a connection is cut at
 * most this late. */
#define SRV_GUARD_TICK_MS 250

/* libmicrohttpd's messages (a client that went away mid-request, a full
 * server) come from clients, so a flood would write a line per
 * connection: at most SRV_LOG_BURST of them per SRV_LOG_WINDOW seconds,
 * then one line counting those left out. Enough to see what happens, too
 * few to fill a disk. */
#define SRV_LOG_BURST 10
#define SRV_LOG_WINDOW 10

/* Default and maximum v3/v2 page size (decision table: "capped at 1000"). */
#define SRV_PAGE_DEFAULT 10
#define SRV_PAGE_MAX 1000

/* A build's log (buildlog.c) goes out as it is read once its outputs
 * pass SRV_BUILDLOG_INLINE bytes, instead of being rendered whole: below
 * that it is an ordinary body (at most six times as long, escaped), which
 * the response cache keeps and entity tags hash; a log of the engine's
 * LEC_BUILD_LOG_MAX, or a page of v2 builds with theirs, rendered whole
 * took hundreds of MB a request (issue 36). */
#define SRV_BUILDLOG_INLINE (256 * 1024)
/* Bytes of output read from the store at a time while a log is sent:
 * what each such response holds. SQLite walks an output's pages from its
 * start to the piece asked for, so smaller pieces cost more walking (a
 * 4 MiB output read in 256 KiB pieces walks 8,000 pages in all). */
#define SRV_BUILDLOG_CHUNK (256 * 1024)
/* The size of the blocks libmicrohttpd asks a body made as it is sent
 * for: its connection buffer (SRV_CONNECTION_MEMORY) bounds what it sends
 * at once anyway. */
#define SRV_STREAM_BLOCK (32 * 1024)

/* Headers a response can carry beyond the fixed ones: the most a docs
 * response needs (a ranged private download: Cache-Control, Accept-Ranges,
 * Content-Range, Content-Disposition) plus room. */
#define SRV_MAX_EXTRA_HEADERS 6

/* Path parameters a route can capture. */
#define SRV_MAX_ROUTE_PARAMS 4

/* A field's dotted name in an error body ("repository.url"): the API's
 * longest is under 30 characters; longer keys are cut (at a character
 * boundary) in the name shown. */
#define SRV_FIELD_PATH_MAX 128

/* Imports per user (POST /api/v3/projects/), at most this many an hour:
 * in a burst, then one every hour / this (a generic cell rate, one number
 * per user). Each import clones a repository and queues a build, so one
 * token sending them as fast as it can (issue 36: 40 in 0.08 s) starts
 * that many clones; a person imports a few at a time, a script moving a
 * whole organization raises it (--import-limit). More is a 429 with the
 * service's throttled body and a Retry-After. */
#define SRV_IMPORTS_PER_HOUR_DEFAULT 30
#define SRV_IMPORT_WINDOW_S 3600
/* Users whose import rate is remembered at once: 16 bytes each. A user
 * whose rate has refilled needs no slot; past this many users importing
 * within one window, the one nearest to refilled is forgotten early. */
#define SRV_THROTTLE_USERS 1024

/* Builds waiting to start (triggered) per owner of projects (the owner the
 * workers' fair claim serves, lec_build_owner): a trigger past it is a 429
 * with no Retry-After (nobody knows when a build starts). A push queues a
 * build per version it moves and a new trigger of a version replaces its
 * queued one, so 50 covers every active version of a few projects; more
 * is a flood, which the fair claim keeps from delaying other owners but
 * which would still fill the store and the workers' day
 * (--queue-limit). */
#define SRV_QUEUED_BUILDS_DEFAULT 50

#endif
