/*
 * The client's transport: errors, URLs and query strings, one
 * transfer's setup on a curl easy handle and the reading of its answer
 * (status, ETag, Retry-After, JSON), the retry policy (exponential backoff
 * with jitter on 5xx for idempotent methods, Retry-After on 429 for all), the
 * flattening of DRF error bodies into one line, and the blocking request that
 * every synchronous call goes through. async.c drives the same transfers on a
 * curl multi handle; client.c makes and frees the handle both use.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include "client_internal.h"

#ifndef LC_VERSION
#error "LC_VERSION must be defined by the build"
#endif

/* ------------------------------------------------------------ Errors */

void lc_error_clear(struct lc_error *err)
{
	if (err == NULL)
		return;
	err->code = LC_OK;
	err->status = 0;
	err->message[0] = '\0';
}

const char *lc_code_str(int code)
{
	switch (code) {
	case LC_OK: return "success";
	case LC_EHTTP: return "HTTP error";
	case LC_ETRANSPORT: return "transport error";
	case LC_ETIMEOUT: return "timeout";
	case LC_EJSON: return "invalid JSON";
	case LC_ENOMEM: return "out of memory";
	case LC_EINVAL: return "invalid argument";
	case LC_ECANCELLED: return "cancelled";
	default: return "unknown error";
	}
}

const char *lc_user_agent(void)
{
	return "lectern/" LC_VERSION;
}

/* -------------------------------------------------------- Strings */

static void buf_reserve(struct lc_buf *b, size_t extra)
{
	size_t need, cap;
	char *s;

	if (b->rc != LC_OK)
		return;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	s = realloc(b->s, cap);
	if (s == NULL) {
		b->rc = LC_ENOMEM;
		return;
	}
	b->s = s;
	b->cap = cap;
}

void lc__buf_add(struct lc_buf *b, const char *s, size_t n)
{
	buf_reserve(b, n);
	if (b->rc != LC_OK)
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void lc__buf_str(struct lc_buf *b, const char *s)
{
	lc__buf_add(b, s, strlen(s));
}

void lc__buf_printf(struct lc_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->rc = LC_ENOMEM;
		return;
	}
	buf_reserve(b, (size_t)n);
	if (b->rc != LC_OK)
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void lc__buf_escape(struct lc_buf *b, const char *s, bool keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		char enc[3];

		if (isalnum(*p) || *p == '-' || *p == '.' || *p == '_' ||
		    *p == '~' || (keep_slash && *p == '/')) {
			lc__buf_add(b, (const char *)p, 1);
			continue;
		}
		enc[0] = '%';
		enc[1] = hex[*p >> 4];
		enc[2] = hex[*p & 15];
		lc__buf_add(b, enc, 3);
	}
}

static char *dup_str(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* ------------------------------------------------- Error messages */

/* Copies src into dst (size > 0), cutting where it must so that no UTF-8
 * sequence is split. */
static void copy_cut(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size) {
		n = size - 1;
		while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
}

int lc__fail(struct lc_error *err, int code, long status, const char *fmt, ...)
{
	struct lc_buf b = { 0 };
	va_list ap;
	int n;

	if (err == NULL)
		return code;
	err->code = code;
	err->status = status;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	buf_reserve(&b, n > 0 ? (size_t)n : 0);
	va_start(ap, fmt);
	if (b.rc == LC_OK && n >= 0) {
		vsnprintf(b.s, (size_t)n + 1, fmt, ap);
		copy_cut(err->message, sizeof(err->message), b.s);
	} else {
		/* No memory for the whole text: a cut one is better than none. */
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
	}
	va_end(ap);
	free(b.s);
	return code;
}

/* ------------------------------------------------------ Query strings */

int lc_query_add(struct lc_query *q, const char *key, const char *value)
{
	struct lc_param *items;
	char *k = NULL, *v = NULL;
	int rc = LC_ENOMEM;

	if (q == NULL || key == NULL || value == NULL)
		return LC_EINVAL;
	if (q->len == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 8;

		items = realloc(q->items, cap * sizeof(*items));
		if (items == NULL)
			goto done;
		q->items = items;
		q->cap = cap;
	}
	k = strdup(key);
	v = strdup(value);
	if (k == NULL || v == NULL)
		goto done;
	q->items[q->len].key = k;
	q->items[q->len].value = v;
	q->len++;
	k = v = NULL;
	rc = LC_OK;
done:
	free(k);
	free(v);
	return rc;
}

int lc_query_add_int(struct lc_query *q, const char *key, long long value)
{
	char num[32];

	snprintf(num, sizeof(num), "%lld", value);
	return lc_query_add(q, key, num);
}

void lc_query_dispose(struct lc_query *q)
{
	size_t i;

	if (q == NULL)
		return;
	for (i = 0; i < q->len; i++) {
		free(q->items[i].key);
		free(q->items[i].value);
	}
	free(q->items);
	memset(q, 0, sizeof(*q));
}

bool lc__is_absolute(const char *url)
{
	return strncasecmp(url, "http://", 7) == 0 ||
	       strncasecmp(url, "https://", 8) == 0;
}

int lc__url(const struct lc_client *c, const char *path,
	    const struct lc_query *q, char **out)
{
	struct lc_buf b = { 0 };
	size_t i;

	*out = NULL;
	if (path == NULL)
		return LC_EINVAL;
	if (!lc__is_absolute(path)) {
		lc__buf_str(&b, c->api_url);
		if (path[0] != '/')
			lc__buf_str(&b, "/");
	}
	lc__buf_str(&b, path);
	for (i = 0; q != NULL && i < q->len; i++) {
		lc__buf_str(&b, (i == 0 && strchr(path, '?') == NULL) ? "?" : "&");
		lc__buf_escape(&b, q->items[i].key, false);
		lc__buf_str(&b, "=");
		lc__buf_escape(&b, q->items[i].value, false);
	}
	if (b.rc != LC_OK) {
		free(b.s);
		return b.rc;
	}
	*out = b.s;
	return LC_OK;
}

/* "scheme://host[:port]" in lower case, the port made explicit, so that a
 * `next` link's origin can be compared with the API's. NULL if not http(s). */
char *lc__origin_of(const char *url)
{
	struct lc_buf b = { 0 };
	const char *host, *end, *colon;
	bool https;
	size_t i;

	if (!lc__is_absolute(url))
		return NULL;
	https = tolower((unsigned char)url[4]) == 's';
	host = strstr(url, "://") + 3;
	end = host + strcspn(host, "/?#");
	if (end == host)
		return NULL;
	lc__buf_str(&b, https ? "https://" : "http://");
	for (i = 0; host + i < end; i++) {
		char ch = (char)tolower((unsigned char)host[i]);

		lc__buf_add(&b, &ch, 1);
	}
	colon = memchr(host, ']', (size_t)(end - host));
	colon = memchr(colon ? colon : host, ':',
		       (size_t)(end - (colon ? colon : host)));
	if (colon == NULL)
		lc__buf_str(&b, https ? ":443" : ":80");
	if (b.rc != LC_OK) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

long long lc__now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ----------------------------------------------------------- Transfers */

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct lc_xfer *x = arg;
	size_t len = size * n;

	if (x->recv.len + len > (size_t)LC_BODY_MAX) {
		x->too_big = true;
		return 0;
	}
	lc__buf_add(&x->recv, data, len);
	return x->recv.rc == LC_OK ? len : 0;
}

/* The value of header line `line` if its name is `name`, trimmed, copied. */
static char *header_value(const char *line, size_t len, const char *name)
{
	size_t nlen = strlen(name);
	const char *v, *end = line + len;

	if (len <= nlen || strncasecmp(line, name, nlen) != 0 ||
	    line[nlen] != ':')
		return NULL;
	v = line + nlen + 1;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && (end[-1] == '\r' || end[-1] == '\n' ||
			   end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if ((size_t)(end - v) > LC_HEADER_VALUE_MAX)
		return NULL;
	return strndup(v, (size_t)(end - v));
}

static size_t on_header(char *data, size_t size, size_t n, void *arg)
{
	struct lc_xfer *x = arg;
	size_t len = size * n;
	char *v;

	/* A new status line (after a redirect or a 100) starts a new answer. */
	if (len > 5 && strncmp(data, "HTTP/", 5) == 0) {
		free(x->resp_etag);
		free(x->resp_retry_after);
		x->resp_etag = x->resp_retry_after = NULL;
		x->resp_lectern = false;
		return len;
	}
	if (len > 10 && strncasecmp(data, "X-Lectern:", 10) == 0) {
		x->resp_lectern = true;
		return len;
	}
	if ((v = header_value(data, len, "ETag")) != NULL) {
		free(x->resp_etag);
		x->resp_etag = v;
	} else if ((v = header_value(data, len, "Retry-After")) != NULL) {
		free(x->resp_retry_after);
		x->resp_retry_after = v;
	}
	return len;
}

static bool same_origin(const struct lc_client *c, const char *url)
{
	char *o = lc__origin_of(url);
	bool same = o != NULL && strcmp(o, c->api_origin) == 0;

	free(o);
	return same;
}

static int append_header(struct curl_slist **list, const char *h)
{
	struct curl_slist *l = curl_slist_append(*list, h);

	if (l == NULL)
		return LC_ENOMEM;
	*list = l;
	return LC_OK;
}

static int build_headers(struct lc_client *c, struct lc_xfer *x)
{
	struct lc_buf b = { 0 };
	int rc = LC_OK;

	/* curl would otherwise wait for a 100 Continue on larger bodies. */
	rc = append_header(&x->headers, "Expect:");
	if (rc == LC_OK && x->body != NULL)
		rc = append_header(&x->headers, "Content-Type: application/json");
	if (rc == LC_OK && c->auth_header != NULL && same_origin(c, x->url))
		rc = append_header(&x->headers, c->auth_header);
	if (rc == LC_OK && x->etag != NULL) {
		lc__buf_printf(&b, "If-None-Match: %s", x->etag);
		rc = b.rc;
		if (rc == LC_OK)
			rc = append_header(&x->headers, b.s);
	}
	free(b.s);
	return rc;
}

int lc__xfer_accept(struct lc_xfer *x, const char *accept)
{
	struct lc_buf b = { 0 };
	int rc;

	if (strpbrk(accept, "\r\n") != NULL)
		return LC_EINVAL;
	lc__buf_printf(&b, "Accept: %s", accept);
	rc = b.rc == LC_OK ? append_header(&x->headers, b.s) : b.rc;
	free(b.s);
	return rc;
}

int lc__xfer_init(struct lc_client *c, struct lc_xfer *x, const char *method,
		  const char *path, const struct lc_query *q,
		  const char *json_body, const char *etag, struct lc_error *err)
{
	int rc;

	memset(x, 0, sizeof(*x));
	if (path == NULL)
		return lc__fail(err, LC_EINVAL, 0, "no path given");
	if (etag != NULL && strpbrk(etag, "\r\n") != NULL)
		return lc__fail(err, LC_EINVAL, 0, "the ETag contains a line break");
	rc = lc__url(c, path, q, &x->url);
	if (rc != LC_OK)
		goto done;
	rc = LC_ENOMEM;
	x->method = strdup(method ? method : "GET");
	if (x->method == NULL)
		goto done;
	if (json_body != NULL && (x->body = strdup(json_body)) == NULL)
		goto done;
	if (etag != NULL && (x->etag = strdup(etag)) == NULL)
		goto done;
	rc = build_headers(c, x);
done:
	if (rc != LC_OK)
		lc__fail(err, rc, 0, "%s", rc == LC_ENOMEM ? "out of memory"
							: "invalid request");
	return rc;
}

static void reset_received(struct lc_xfer *x)
{
	free(x->recv.s);
	memset(&x->recv, 0, sizeof(x->recv));
	x->too_big = false;
	free(x->resp_etag);
	free(x->resp_retry_after);
	x->resp_etag = x->resp_retry_after = NULL;
	x->resp_lectern = false;
	x->refused = false;
	x->errbuf[0] = '\0';
}

void lc__xfer_dispose(struct lc_xfer *x)
{
	reset_received(x);
	free(x->method);
	free(x->url);
	/* A request body can hold a secret (an environment variable's value):
	 * the copy made for the transfer is wiped before it goes back to the
	 * allocator. */
	if (x->body != NULL)
		explicit_bzero(x->body, strlen(x->body));
	free(x->body);
	free(x->etag);
	curl_slist_free_all(x->headers);
	memset(x, 0, sizeof(*x));
}

static bool method_is(const struct lc_xfer *x, const char *m)
{
	return strcasecmp(x->method, m) == 0;
}

/* libcurl's socket for a connection of a checked client: only where the
 * check allows (close-on-exec, as the socket is ours to make). */
static curl_socket_t open_checked(void *payload, curlsocktype purpose,
				  struct curl_sockaddr *a)
{
	struct lc_xfer *x = payload;

	if (purpose != CURLSOCKTYPE_IPCXN ||
	    !x->check(&a->addr, a->addrlen, x->check_payload)) {
		x->refused = true;
		return CURL_SOCKET_BAD;
	}
	return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}

int lc__xfer_setup(struct lc_client *c, struct lc_xfer *x, CURL *h,
		   struct lc_error *err)
{
	bool follow = method_is(x, "GET") || method_is(x, "HEAD");
	CURLcode cc = CURLE_OK;

	reset_received(x);
	x->attempt++;
	c->requests++;
	curl_easy_reset(h);
#define SET(opt, val) if (cc == CURLE_OK) cc = curl_easy_setopt(h, opt, val)
	SET(CURLOPT_URL, x->url);
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
	SET(CURLOPT_USERAGENT, lc_user_agent());
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms);
	SET(CURLOPT_TIMEOUT_MS, c->timeout_ms);
	if (c->compress)
		SET(CURLOPT_ACCEPT_ENCODING, "");
	SET(CURLOPT_HTTPHEADER, x->headers);
	SET(CURLOPT_WRITEFUNCTION, on_body);
	SET(CURLOPT_WRITEDATA, x);
	SET(CURLOPT_HEADERFUNCTION, on_header);
	SET(CURLOPT_HEADERDATA, x);
	SET(CURLOPT_ERRORBUFFER, x->errbuf);
	if (c->unix_socket != NULL)
		SET(CURLOPT_UNIX_SOCKET_PATH, c->unix_socket);
	x->check = c->check;
	x->check_payload = c->check_payload;
	if (c->check != NULL) {
		SET(CURLOPT_OPENSOCKETFUNCTION, open_checked);
		SET(CURLOPT_OPENSOCKETDATA, x);
		SET(CURLOPT_PROXY, "");
	}
	/* Only reads follow redirects (Django's trailing-slash 301s); a
	 * redirected write would silently turn into a GET. */
	SET(CURLOPT_FOLLOWLOCATION, follow ? 1L : 0L);
	SET(CURLOPT_MAXREDIRS, 5L);
	SET(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	if (method_is(x, "HEAD")) {
		SET(CURLOPT_NOBODY, 1L);
	} else if (!method_is(x, "GET")) {
		SET(CURLOPT_CUSTOMREQUEST, x->method);
		if (x->body != NULL || !method_is(x, "DELETE")) {
			SET(CURLOPT_POSTFIELDS, x->body ? x->body : "");
			SET(CURLOPT_POSTFIELDSIZE,
			    (long)(x->body ? strlen(x->body) : 0));
		}
	}
#undef SET
	if (cc != CURLE_OK)
		return lc__fail(err, LC_ETRANSPORT, 0, "cannot set up %s: %s",
				x->url, curl_easy_strerror(cc));
	return LC_OK;
}

/* "host:port" of the URL, for messages. */
static void url_authority(const char *url, char *buf, size_t size)
{
	const char *host = strstr(url, "://");
	size_t n;

	host = host ? host + 3 : url;
	n = strcspn(host, "/?#");
	snprintf(buf, size, "%.*s", (int)n, host);
}

static int transport_error(const struct lc_xfer *x, CURL *h, CURLcode cc,
			   const struct lc_client *c, struct lc_error *err)
{
	const char *why = x->errbuf[0] ? x->errbuf : curl_easy_strerror(cc);
	char where[256];
	long oserr = 0;

	url_authority(x->url, where, sizeof(where));
	if (x->too_big)
		return lc__fail(err, LC_ETRANSPORT, 0,
				"response from %s is larger than %ld MiB",
				x->url, LC_BODY_MAX / (1024 * 1024));
	curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &oserr);
	if (cc == CURLE_OUT_OF_MEMORY)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	if (cc == CURLE_OPERATION_TIMEDOUT)
		return lc__fail(err, LC_ETIMEOUT, 0,
				"timed out after %ld ms waiting for %s",
				c->timeout_ms, x->url);
	/* A redirect may have led elsewhere: name where it was refused. */
	if (x->refused && cc == CURLE_COULDNT_CONNECT) {
		char *at = NULL;

		curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &at);
		url_authority(at ? at : x->url, where, sizeof(where));
		return lc__fail(err, LC_ETRANSPORT, 0,
				"refused: the address of %s is not allowed",
				where);
	}
	/* Over a forwarded socket, a refused or cut connection means the link
	 * or the engine behind it is down, whatever the URL names. */
	if (c->unix_socket != NULL)
		return lc__fail(err, LC_ETRANSPORT, 0,
				"no answer from the engine through %s (%s)",
				c->link_name, why);
	switch (cc) {
	case CURLE_COULDNT_RESOLVE_HOST:
		return lc__fail(err, LC_ETRANSPORT, 0, "cannot resolve host %s",
				where);
	case CURLE_COULDNT_CONNECT:
		if (oserr == ECONNREFUSED)
			return lc__fail(err, LC_ETRANSPORT, 0,
					"connection refused to %s", where);
		return lc__fail(err, LC_ETRANSPORT, 0, "cannot connect to %s: %s",
				where, why);
	default:
		return lc__fail(err, LC_ETRANSPORT, 0, "%s: %s", x->url, why);
	}
}

static bool is_json_type(const char *ct)
{
	return ct != NULL && strstr(ct, "json") != NULL;
}

/* Moves what the attempt received into a new response. */
static struct lc_response *take_response(struct lc_xfer *x, CURL *h)
{
	struct lc_response *r = calloc(1, sizeof(*r));
	char *ct = NULL;

	if (r == NULL)
		return NULL;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
	curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &ct);
	r->content_type = dup_str(ct);
	r->url = strdup(x->url);
	r->body = x->recv.s ? x->recv.s : strdup("");
	r->body_len = x->recv.len;
	memset(&x->recv, 0, sizeof(x->recv));
	r->etag = x->resp_etag;
	x->resp_etag = NULL;
	r->not_modified = r->status == 304;
	if (r->url == NULL || r->body == NULL || (ct != NULL && !r->content_type)) {
		lc_response_free(r);
		return NULL;
	}
	return r;
}

static int http_error(struct lc_response *r, struct lc_error *err)
{
	char msg[LC_ERROR_MESSAGE_MAX];

	lc__flatten_error(r->json, msg, sizeof(msg));
	if (msg[0] != '\0')
		return lc__fail(err, LC_EHTTP, r->status, "%s", msg);
	return lc__fail(err, LC_EHTTP, r->status, "HTTP %ld from %s", r->status,
			r->url);
}

static void hold_after_429(struct lc_client *c, const char *retry_after,
			   long retry_ms);

int lc__xfer_finish(struct lc_client *c, struct lc_xfer *x, CURL *h,
		    CURLcode cc, long *retry_ms, struct lc_response **out,
		    struct lc_error *err)
{
	struct lc_response *r = NULL;
	int rc;

	*out = NULL;
	*retry_ms = -1;
	if (cc != CURLE_OK)
		return transport_error(x, h, cc, c, err);
	r = take_response(x, h);
	if (r == NULL)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	/* Once, from an answer of the API itself; Lectern marks its errors
	 * too, but a proxy's 5xx page in front of it would not be. */
	if (c->remote == LC_REMOTE_UNKNOWN && r->status < 500 &&
	    same_origin(c, x->url))
		c->remote = x->resp_lectern ? LC_REMOTE_LECTERN
					    : LC_REMOTE_SERVICE;
	if (is_json_type(r->content_type) && r->body_len > 0) {
		r->json = cJSON_ParseWithLength(r->body, r->body_len);
		if (r->json == NULL && r->status < 300) {
			rc = lc__fail(err, LC_EJSON, r->status,
				      "invalid JSON in response from %s",
				      r->url);
			lc_response_free(r);
			return rc;
		}
	}
	rc = LC_OK;
	if (r->status >= 300 && r->status != 304) {
		rc = http_error(r, err);
		*retry_ms = lc__retry_delay(c, x->method, x->attempt, r->status,
					    x->resp_retry_after,
					    (long long)time(NULL));
	}
	if (r->status == 429)
		hold_after_429(c, x->resp_retry_after, *retry_ms);
	*out = r;
	return rc;
}

void lc_response_free(struct lc_response *r)
{
	if (r == NULL)
		return;
	free(r->etag);
	free(r->content_type);
	free(r->body);
	cJSON_Delete(r->json);
	free(r->url);
	free(r);
}

/* --------------------------------------------------------- Retry policy */

static bool idempotent(const char *method)
{
	static const char *const safe[] = { "GET", "HEAD", "OPTIONS", "PUT",
					    "DELETE" };
	size_t i;

	for (i = 0; i < sizeof(safe) / sizeof(safe[0]); i++)
		if (strcasecmp(method, safe[i]) == 0)
			return true;
	return false;
}

/* Seconds to wait from a Retry-After value (delta-seconds or an HTTP date),
 * or -1 if it is neither. */
static long long retry_after_seconds(const char *v, long long now)
{
	long long secs = 0;
	const char *p;
	time_t when;

	if (v == NULL || *v == '\0')
		return -1;
	for (p = v; isdigit((unsigned char)*p); p++) {
		if (secs > 1000000000LL)
			return secs;
		secs = secs * 10 + (*p - '0');
	}
	if (*p == '\0')
		return secs;
	when = curl_getdate(v, NULL);
	if (when == (time_t)-1)
		return -1;
	return (long long)when > now ? (long long)when - now : 0;
}

static uint64_t next_random(struct lc_client *c)
{
	c->rng ^= c->rng << 13;
	c->rng ^= c->rng >> 7;
	c->rng ^= c->rng << 17;
	return c->rng;
}

static long backoff_ms(struct lc_client *c, int attempt)
{
	long d = LC_BACKOFF_BASE_MS;
	int i;

	for (i = 1; i < attempt && d < LC_BACKOFF_MAX_MS; i++)
		d *= 2;
	if (d > LC_BACKOFF_MAX_MS)
		d = LC_BACKOFF_MAX_MS;
	return d - (long)(next_random(c) % (uint64_t)(d / 2 + 1));
}

/* A 429 holds the client's next asynchronous requests until its
 * Retry-After (or this request's own backoff) is over, even when the
 * request itself gives up because the wait is too long: the service
 * throttles every request of a user alike. A Lectern throttles nothing
 * but imports and full build queues (docs/api.md, "Quotas"), so its 429
 * holds only the request it answered; holding the rest would stop a
 * TUI's polling for as long as one refused import must wait. */
static void hold_after_429(struct lc_client *c, const char *retry_after,
			   long retry_ms)
{
	long long secs = retry_after_seconds(retry_after, (long long)time(NULL));
	long long hold = secs >= 0 ? secs * 1000 : retry_ms;

	if (hold <= 0 || c->remote == LC_REMOTE_LECTERN)
		return;
	if (hold > LC_THROTTLE_HOLD_MAX_MS)
		hold = LC_THROTTLE_HOLD_MAX_MS;
	if (lc__now_ms() + hold > c->throttled_until)
		c->throttled_until = lc__now_ms() + hold;
}

long lc__retry_delay(struct lc_client *c, const char *method, int attempt,
		     long status, const char *retry_after, long long now)
{
	long long secs;

	if (attempt >= c->max_attempts)
		return -1;
	if (status != 429 && !(status >= 500 && status <= 599 &&
			       idempotent(method)))
		return -1;
	secs = retry_after_seconds(retry_after, now);
	/* A Lectern's 429 without Retry-After is a full build queue, which
	 * no retry within seconds finds emptied (docs/api.md, "Quotas"). */
	if (secs < 0 && status == 429 && c->remote == LC_REMOTE_LECTERN)
		return -1;
	if (secs < 0)
		return backoff_ms(c, attempt);
	if (secs * 1000 > LC_RETRY_AFTER_MAX_MS)
		return -1;
	return (long)(secs * 1000);
}

/* ----------------------------------------------------- Error bodies */

/* Keys whose messages stand alone, without a "field: " prefix. */
static bool bare_key(const char *k)
{
	return strcmp(k, "detail") == 0 || strcmp(k, "non_field_errors") == 0 ||
	       strcmp(k, "error") == 0 || strcmp(k, "msg") == 0 ||
	       strcmp(k, "message") == 0;
}

static void flatten(const cJSON *v, const char *prefix, struct lc_buf *b,
		    bool *fresh);

static void flatten_object(const cJSON *v, const char *prefix,
			   struct lc_buf *b)
{
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(v, "msg");
	const cJSON *item;

	cJSON_ArrayForEach(item, v) {
		struct lc_buf key = { 0 };
		bool fresh = true;

		/* v2's {"error":"disabled","msg":"..."}: the msg says it. */
		if (strcmp(item->string, "error") == 0 && cJSON_IsString(msg))
			continue;
		if (bare_key(item->string)) {
			lc__buf_str(&key, prefix);
		} else if (*prefix) {
			lc__buf_printf(&key, "%s.%s", prefix, item->string);
		} else {
			lc__buf_str(&key, item->string);
		}
		if (key.rc == LC_OK)
			flatten(item, key.s ? key.s : "", b, &fresh);
		free(key.s);
	}
}

/* One message: "; " between entries, "prefix: " before the first of an
 * entry, " " between the messages of one field. */
static void flatten(const cJSON *v, const char *prefix, struct lc_buf *b,
		    bool *fresh)
{
	const cJSON *item;

	if (cJSON_IsObject(v)) {
		flatten_object(v, prefix, b);
		return;
	}
	if (cJSON_IsArray(v)) {
		/* A field's messages share its prefix; a bare list's stand
		 * apart. */
		cJSON_ArrayForEach(item, v) {
			if (*prefix == '\0')
				*fresh = true;
			flatten(item, prefix, b, fresh);
		}
		return;
	}
	if (!cJSON_IsString(v) && !cJSON_IsNumber(v) && !cJSON_IsBool(v))
		return;
	if (*fresh) {
		if (b->len > 0)
			lc__buf_str(b, "; ");
		if (*prefix)
			lc__buf_printf(b, "%s: ", prefix);
		*fresh = false;
	} else {
		lc__buf_str(b, " ");
	}
	if (cJSON_IsString(v))
		lc__buf_str(b, v->valuestring);
	else if (cJSON_IsNumber(v))
		lc__buf_printf(b, "%g", v->valuedouble);
	else
		lc__buf_str(b, cJSON_IsTrue(v) ? "true" : "false");
}

void lc__flatten_error(const cJSON *body, char *buf, size_t size)
{
	struct lc_buf b = { 0 };
	bool fresh = true;
	char *p;

	buf[0] = '\0';
	if (body == NULL || size == 0)
		return;
	flatten(body, "", &b, &fresh);
	if (b.rc == LC_OK && b.s != NULL) {
		/* One line: the messages may carry newlines. */
		for (p = b.s; *p; p++)
			if (*p == '\n' || *p == '\r' || *p == '\t')
				*p = ' ';
		copy_cut(buf, size, b.s);
	}
	free(b.s);
}

/* ------------------------------------------------- Blocking requests */

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

int lc__call(struct lc_client *c, const char *method, const char *path,
	     const struct lc_query *q, const char *json_body,
	     const char *etag, struct lc_response **out, struct lc_error *err)
{
	struct lc_response *resp = NULL;
	struct lc_xfer x;
	long wait = -1;
	int rc;

	*out = NULL;
	lc_error_clear(err);
	if (c == NULL) {
		memset(&x, 0, sizeof(x));
		rc = lc__fail(err, LC_EINVAL, 0, "no client");
		goto done;
	}
	rc = lc__xfer_init(c, &x, method, path, q, json_body, etag, err);
	if (rc != LC_OK)
		goto done;
	for (;;) {
		rc = lc__xfer_setup(c, &x, c->easy, err);
		if (rc != LC_OK)
			goto done;
		rc = lc__xfer_finish(c, &x, c->easy, curl_easy_perform(c->easy),
				     &wait, &resp, err);
		if (wait < 0)
			break;
		lc_response_free(resp);
		resp = NULL;
		lc_error_clear(err);
		sleep_ms(wait);
	}
	*out = resp;
done:
	lc__xfer_dispose(&x);
	return rc;
}

int lc_request(struct lc_client *c, const char *method, const char *path,
	       const char *json_body, struct lc_response **out,
	       struct lc_error *err)
{
	return lc__call(c, method, path, NULL, json_body, NULL, out, err);
}

int lc_get(struct lc_client *c, const char *path, const struct lc_query *q,
	   const char *etag, struct lc_response **out, struct lc_error *err)
{
	return lc__call(c, "GET", path, q, NULL, etag, out, err);
}

char *lc_docs_url(const struct lc_client *c, const char *project,
		  const char *path)
{
	struct lc_buf url = { 0 };

	if (c == NULL || project == NULL || *project == '\0' || path == NULL)
		return NULL;
	lc__buf_printf(&url, "%s://", c->docs_scheme);
	lc__buf_escape(&url, project, false);
	lc__buf_printf(&url, ".%s/", c->docs_host);
	lc__buf_escape(&url, path[0] == '/' ? path + 1 : path, true);
	if (url.rc != LC_OK) {
		free(url.s);
		return NULL;
	}
	return url.s;
}

int lc_docs_fetch(struct lc_client *c, const char *project, const char *path,
		  const char *etag, struct lc_response **out,
		  struct lc_error *err)
{
	char *url;
	int rc;

	*out = NULL;
	lc_error_clear(err);
	if (c == NULL || project == NULL || *project == '\0' || path == NULL)
		return lc__fail(err, LC_EINVAL, 0,
				"a project and a path are required");
	if ((url = lc_docs_url(c, project, path)) == NULL)
		return lc__fail(err, LC_ENOMEM, 0, "out of memory");
	rc = lc__call(c, "GET", url, NULL, NULL, etag, out, err);
	free(url);
	return rc;
}
