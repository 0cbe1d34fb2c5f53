/*
 * What the client's files share and nothing outside src/client may use: the
 * client handle's layout, one transfer's state (shared by the blocking and
 * the asynchronous paths so both send the same request and apply the same
 * retry policy), a small growable string, and the JSON helpers the model
 * parsers use. Tests include it to check the policy functions directly.
 */
#ifndef LECTERN_CLIENT_INTERNAL_H
#define LECTERN_CLIENT_INTERNAL_H

#include <curl/curl.h>

#include "client.h"

/* Backoff for retried 5xx/429 answers: 500 ms, 1 s, 2 s ... each with up
 * to half of it taken off at random so clients that failed together do not
 * retry together. */
#define LC_BACKOFF_BASE_MS 500
/* No single backoff step waits longer than this. */
#define LC_BACKOFF_MAX_MS 8000
/* The longest Retry-After the client waits for; a server asking for more
 * gets its 429 reported at once (blocking a CLI or a UI for minutes helps
 * nobody). The hosted service throttles per minute, so 60 s is its worst. */
#define LC_RETRY_AFTER_MAX_MS 60000
/* After a 429, the client's other asynchronous requests wait until the
 * server's Retry-After is over, at most this long: a UI that polls must
 * not knock on a throttled instance, but must not go silent for an hour
 * either. */
#define LC_THROTTLE_HOLD_MAX_MS (10L * 60 * 1000)
/* A response body beyond this is refused: the largest legitimate answer is
 * a build log (4 MiB of output per command by default, several commands). */
#define LC_BODY_MAX (64L * 1024 * 1024)
/* A header line longer than this (an ETag, a Retry-After) is ignored. */
#define LC_HEADER_VALUE_MAX 1024

struct lc_async_job;

struct lc_client {
	char *api_url;       /* without a trailing '/' */
	char *api_origin;    /* "scheme://host:port", lower case */
	char *auth_header;   /* "Authorization: Token ..." or NULL */
	char *docs_scheme;   /* "http" or "https" */
	char *docs_host;     /* "host[:port]" */
	long connect_timeout_ms;
	long timeout_ms;
	int max_attempts;
	enum lc_remote remote; /* learnt from the first API answer */
	unsigned long long requests; /* attempts sent, retries included */
	long long throttled_until;   /* monotonic ms; async starts wait */
	char *unix_socket;   /* NULL: TCP */
	/* Ask for compressed answers: not from a loopback address, where
	 * compressing and inflating a large answer (a page as Markdown)
	 * costs more than carrying it. */
	bool compress;
	char *link_name;     /* for messages; NULL with unix_socket NULL */
	uint64_t rng;        /* jitter state (xorshift), seeded per client */
	lc_connect_check check; /* lc_client_check_connections; NULL: none */
	void *check_payload;
	CURL *easy;          /* the blocking path's handle, reused */
	CURLM *multi;        /* the asynchronous path's, created on first use */
	struct lc_async_job *jobs;
	uint64_t next_id;
};

/* A growable NUL-terminated string. Zero-initialise; free `s` with free. */
struct lc_buf {
	char *s;
	size_t len;
	size_t cap;
	int rc;              /* sticky: LC_ENOMEM once an append failed */
};

void lc__buf_add(struct lc_buf *b, const char *s, size_t n);
void lc__buf_str(struct lc_buf *b, const char *s);
void lc__buf_printf(struct lc_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Appends `s` percent-encoded (RFC 3986 unreserved kept; '/' too if
 * keep_slash). */
void lc__buf_escape(struct lc_buf *b, const char *s, bool keep_slash);

/* Sets err (may be NULL) and returns code. */
int lc__fail(struct lc_error *err, int code, long status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* One request, across its attempts. */
struct lc_xfer {
	char *method;
	char *url;
	char *body;               /* JSON text or NULL */
	char *etag;               /* If-None-Match or NULL */
	struct curl_slist *headers;
	int attempt;              /* 1 for the first try */
	/* What the current attempt received. */
	struct lc_buf recv;
	bool too_big;
	char *resp_etag;
	char *resp_retry_after;
	bool resp_lectern;        /* the answer had X-Lectern */
	/* The client's connection check, and whether it refused one in the
	 * current attempt. */
	lc_connect_check check;
	void *check_payload;
	bool refused;
	char errbuf[CURL_ERROR_SIZE];
};

/* Fills x for one request; path and q are turned into the URL.
 * @return LC_OK, LC_EINVAL or LC_ENOMEM */
int lc__xfer_init(struct lc_client *c, struct lc_xfer *x, const char *method,
		  const char *path, const struct lc_query *q,
		  const char *json_body, const char *etag, struct lc_error *err);
void lc__xfer_dispose(struct lc_xfer *x);
/* Prepares `h` for the next attempt of x (clears what the last one got). */
int lc__xfer_setup(struct lc_client *c, struct lc_xfer *x, CURL *h,
		   struct lc_error *err);
/*
 * Turns a finished attempt into a response or an error.
 * @param retry_ms set to the wait before another attempt, or -1 for none
 * @param out the response, set whenever the server answered (also on
 *        LC_EHTTP); NULL otherwise
 */
int lc__xfer_finish(struct lc_client *c, struct lc_xfer *x, CURL *h,
		    CURLcode rc, long *retry_ms, struct lc_response **out,
		    struct lc_error *err);

/* Builds the absolute URL for `path` (API-relative or absolute) plus q. */
int lc__url(const struct lc_client *c, const char *path,
	    const struct lc_query *q, char **out);

/* A JSON number as an integer, or def if it is not one or out of range. */
long long lc__json_int(const cJSON *v, long long def);

/* The page a link (href, len bytes) of mirrored page `from` leads to, as a
 * path below the version's root (root_path: the version's URL path,
 * "/en/latest/"): "a/b.html", a directory's "a/index.html"; NULL when it
 * leads elsewhere (another site or version, above the root, not a page,
 * %-escaped) or out of memory. Caller frees (mirror.c). */
char *lc__mirror_link(const char *from, const char *href, size_t len,
		      const char *root_path);

/* Flattens a DRF error body into one line in buf ("" if nothing usable). */
void lc__flatten_error(const cJSON *body, char *buf, size_t size);

/*
 * The retry decision for one answer (it draws the jitter from c's state).
 * @param status HTTP status of the attempt
 * @param retry_after the Retry-After header or NULL
 * @param now the current Unix time in seconds (for HTTP-date values)
 * @return the wait in ms before the next attempt, or -1: do not retry
 */
long lc__retry_delay(struct lc_client *c, const char *method,
		     int attempt, long status, const char *retry_after,
		     long long now);

/* Milliseconds on a monotonic clock. */
long long lc__now_ms(void);

/* Whether url starts with http:// or https:// (any case). */
bool lc__is_absolute(const char *url);
/* "scheme://host[:port]" of url in lower case, the port made explicit
 * (owned by the caller); NULL if not http(s) or out of memory. */
char *lc__origin_of(const char *url);

/* Ask for a media type (an Accept header) in x, after lc__xfer_init:
 * LC_OK, LC_EINVAL (a line break in it), LC_ENOMEM. */
int lc__xfer_accept(struct lc_xfer *x, const char *accept);

/* The blocking request behind every synchronous call. */
int lc__call(struct lc_client *c, const char *method, const char *path,
	     const struct lc_query *q, const char *json_body,
	     const char *etag, struct lc_response **out, struct lc_error *err);

/* Cancels every pending asynchronous job (lc_client_free, client.c). */
void lc__async_shutdown(struct lc_client *c);

#endif
