/*
 * The client handle (client.h): made from its options (the API URL and
 * its origin, the docs host, the token's header, the timeouts and the
 * unix socket of an ssh context), the kind of instance it talks to, and
 * freed with whatever the asynchronous mode still holds. It sits above
 * both paths that use it, the blocking transfers (http.c) and the
 * asynchronous ones (async.c), so neither calls the other to free it.
 */
#include <stdlib.h>
#include <string.h>

#include "client_internal.h"

/* The docs host when none is configured: the API's host and port, with a
 * loopback address named "localhost", since `lectern serve` serves projects
 * at <slug>.localhost:<port> by default and an IP takes no subdomain. */
static char *default_docs_host(const char *origin)
{
	const char *host = strstr(origin, "://") + 3;
	struct lc_buf b = { 0 };

	if (strncmp(host, "127.0.0.1:", 10) == 0) {
		lc__buf_str(&b, "localhost");
		lc__buf_str(&b, host + 9);
	} else if (strncmp(host, "[::1]:", 6) == 0) {
		lc__buf_str(&b, "localhost");
		lc__buf_str(&b, host + 5);
	} else {
		lc__buf_str(&b, host);
	}
	if (b.rc != LC_OK) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

/* Whether an origin ("http://host:port") names this machine. */
static bool is_loopback(const char *origin)
{
	const char *host = strstr(origin, "://") + 3;

	return strncmp(host, "127.", 4) == 0 ||
	       strncmp(host, "[::1]", 5) == 0 ||
	       (strncmp(host, "localhost", 9) == 0 &&
		(host[9] == ':' || host[9] == '\0'));
}

static int set_docs(struct lc_client *c, const char *docs_domain)
{
	const char *sep = docs_domain ? strstr(docs_domain, "://") : NULL;
	size_t n;

	if (docs_domain == NULL || *docs_domain == '\0') {
		c->docs_scheme = strndup(c->api_origin,
					 strcspn(c->api_origin, ":"));
		c->docs_host = default_docs_host(c->api_origin);
	} else if (sep != NULL) {
		c->docs_scheme = strndup(docs_domain,
					 (size_t)(sep - docs_domain));
		c->docs_host = strdup(sep + 3);
	} else {
		c->docs_scheme = strndup(c->api_origin,
					 strcspn(c->api_origin, ":"));
		c->docs_host = strdup(docs_domain);
	}
	if (c->docs_scheme == NULL || c->docs_host == NULL)
		return LC_ENOMEM;
	n = strlen(c->docs_host);
	while (n > 0 && c->docs_host[n - 1] == '/')
		c->docs_host[--n] = '\0';
	return LC_OK;
}

static int set_token(struct lc_client *c, const char *token)
{
	struct lc_buf b = { 0 };

	if (token == NULL || *token == '\0')
		return LC_OK;
	/* A CR or LF would let the token inject headers. */
	if (strpbrk(token, "\r\n") != NULL)
		return LC_EINVAL;
	lc__buf_printf(&b, "Authorization: Token %s", token);
	c->auth_header = b.s;
	return b.rc;
}

int lc_client_new(struct lc_client **out, const struct lc_client_options *opts,
		  struct lc_error *err)
{
	struct lc_client *c = NULL;
	size_t n;
	int rc = LC_ENOMEM;

	lc_error_clear(err);
	*out = NULL;
	if (opts == NULL || opts->api_url == NULL || !lc__is_absolute(opts->api_url))
		return lc__fail(err, LC_EINVAL, 0,
				"the API URL must start with http:// or https://");
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		goto done;
	c->api_url = strdup(opts->api_url);
	if (c->api_url == NULL)
		goto done;
	n = strlen(c->api_url);
	while (n > 0 && c->api_url[n - 1] == '/')
		c->api_url[--n] = '\0';
	c->api_origin = lc__origin_of(c->api_url);
	if (c->api_origin == NULL) {
		rc = LC_EINVAL;
		lc__fail(err, rc, 0, "the API URL has no host: %s", opts->api_url);
		goto done;
	}
	rc = set_token(c, opts->token);
	if (rc == LC_EINVAL)
		lc__fail(err, rc, 0, "the token contains a line break");
	if (rc == LC_OK)
		rc = set_docs(c, opts->docs_domain);
	if (rc != LC_OK)
		goto done;
	c->connect_timeout_ms = opts->connect_timeout_ms > 0
		? opts->connect_timeout_ms : LC_CONNECT_TIMEOUT_MS;
	c->timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms
					     : LC_TOTAL_TIMEOUT_MS;
	c->max_attempts = opts->max_attempts > 0 ? opts->max_attempts
						 : LC_MAX_ATTEMPTS;
	if (opts->unix_socket != NULL &&
	    ((c->unix_socket = strdup(opts->unix_socket)) == NULL ||
	     (c->link_name = strdup(opts->link_name ? opts->link_name
						    : opts->unix_socket)) ==
		     NULL)) {
		rc = LC_ENOMEM;
		goto done;
	}
	c->compress = !is_loopback(c->api_origin);
	c->rng = (uint64_t)lc__now_ms() ^ (uint64_t)(uintptr_t)c ^
		 0x9E3779B97F4A7C15ULL;
	c->next_id = 1;
	rc = LC_ENOMEM;
	c->easy = curl_easy_init();
	if (c->easy == NULL)
		goto done;
	*out = c;
	c = NULL;
	rc = LC_OK;
done:
	if (rc == LC_ENOMEM)
		lc__fail(err, rc, 0, "out of memory");
	lc_client_free(c);
	return rc;
}

void lc_client_check_connections(struct lc_client *c, lc_connect_check check,
				 void *payload)
{
	c->check = check;
	c->check_payload = check ? payload : NULL;
}

void lc_client_free(struct lc_client *c)
{
	if (c == NULL)
		return;
	lc__async_shutdown(c);
	if (c->easy != NULL)
		curl_easy_cleanup(c->easy);
	free(c->api_url);
	free(c->api_origin);
	if (c->auth_header != NULL) {
		/* Do not leave the token in freed memory. */
		memset(c->auth_header, 0, strlen(c->auth_header));
		free(c->auth_header);
	}
	free(c->docs_scheme);
	free(c->docs_host);
	free(c->unix_socket);
	free(c->link_name);
	free(c);
}

enum lc_remote lc_client_remote(const struct lc_client *c)
{
	return c->remote;
}

unsigned long long lc_client_requests(const struct lc_client *c)
{
	return c->requests;
}

int lc_client_detect(struct lc_client *c, struct lc_error *err)
{
	struct lc_response *resp = NULL;
	int rc = LC_OK;

	lc_error_clear(err);
	if (c->remote == LC_REMOTE_UNKNOWN)
		rc = lc_request(c, "GET", "/api/v3/", NULL, &resp, err);
	lc_response_free(resp);
	/* An error that still tells (a 401 from the service) is an answer. */
	if (c->remote == LC_REMOTE_UNKNOWN)
		return rc;
	lc_error_clear(err);
	return LC_OK;
}
