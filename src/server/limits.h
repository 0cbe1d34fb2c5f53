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

/* JSON nesting depth of a request body: deeper is 400. The API's deepest
 * legitimate body is two levels ({"repository": {"url": ...}}). */
#define SRV_MAX_JSON_DEPTH 32

/* Query parameters per request: more is 400. Filters plus paging plus
 * fields/omit/expand need about ten. */
#define SRV_MAX_QUERY_PARAMS 64

/* Header and connection buffer per connection (libmicrohttpd's memory
 * limit): headers beyond it are rejected by libmicrohttpd itself. */
#define SRV_CONNECTION_MEMORY (64 * 1024)

/* Simultaneous connections: beyond this new ones wait in the kernel's
 * backlog. Well above a workstation's needs, well below the fd limit. */
#define SRV_MAX_CONNECTIONS 1024

/* Seconds an idle connection is kept open. */
#define SRV_CONNECTION_TIMEOUT 60

/* Default and maximum v3/v2 page size (decision table: "capped at 1000"). */
#define SRV_PAGE_DEFAULT 10
#define SRV_PAGE_MAX 1000

/* Headers a response can carry beyond the fixed ones: the most a docs
 * response needs (a ranged private download: Cache-Control, Accept-Ranges,
 * Content-Range, Content-Disposition) plus room. */
#define SRV_MAX_EXTRA_HEADERS 6

/* Path parameters a route can capture. */
#define SRV_MAX_ROUTE_PARAMS 4

#endif
