/*
 * Who may read what on the docs host. Public versions of public projects
 * need nobody; for the rest the requester is found from an
 * "Authorization: Token <t>" header (scripts, curl) or from a session
 * cookie (browsers), and must be allowed to see the project (private
 * projects: lec_project_can_view) and, for a private version, administer
 * it (the v3 API's rule for private versions).
 *
 * A session is a row of the store (lectern/session.h), so that logging
 * out, revoking the token it was logged in with or disabling its user
 * ends it at once, wherever its cookie went. The cookie is "<session
 * id>.<expiry>.<mac>", the mac an HMAC-SHA256 of the first two parts and
 * the Host under a random key kept in <data>/session.key (created 0600 on
 * first use, atomically, like the engine's secret.key), so a session works
 * on the docs host it was made on only and an id alone is worth nothing;
 * deleting the key file ends every session too.
 *
 * Logging in happens on the API's host (the docs domain itself), never on
 * a docs host, whose pages are a build's output: a token typed there
 * could be read by the build's scripts. A docs host's /_/login/ sends the
 * browser to the form on the API's host, naming itself; the form's POST
 * exchanges an API token (a form field) for a session there and sends the
 * browser back with a ticket, signed like a session for that docs host,
 * good for a minute and once, which the docs host exchanges for its own
 * session, of the same family as the login's. The token is never logged,
 * echoed or stored.
 *
 * /_/logout/, on the API's host and on every docs host, ends the session
 * with its whole family (the login, and every docs host's session that
 * came from it) and clears the cookie: a GET shows a form asking to
 * confirm, as allauth's /accounts/logout/ does, and only its POST logs
 * out, under the login form's CSRF rules, so that no link or image on
 * another site logs a visitor out.
 *
 * The login and logout forms are protected against cross-site request
 * forgery (another page making a visitor's browser log in, as the
 * attacker, or out): the form's GET sets a nonce cookie the server made
 * (random, with an expiry, signed for this host: one the client chose is
 * replaced) and puts HMAC(session key, host and nonce) in a hidden field;
 * a POST is refused unless the field matches the cookie it comes with and
 * its Origin (or, without one, its Referer) names this host. A page on
 * another docs host (another project's docs, same site, so SameSite does
 * not help) can plant a nonce cookie it fetched for this host, but its
 * post carries its own origin. The dashboard's forms, for someone logged
 * in, carry HMAC(session key, host and session) instead, under the same
 * origin rule: the nonce cookie reaches the login's /_/ paths only.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "lectern/errors.h"
#include "lectern/session.h"
#include "lectern/slug.h"
#include "dash.h"
#include "docs.h"
#include "input.h"
#include "signed_value.h"
#include "text.h"

#define SESSION_COOKIE "lectern_session"
/* How long a session lasts: Django's default SESSION_COOKIE_AGE, which
 * the service's own login cookie uses. */
#define SESSION_SECONDS (14 * 24 * 3600)
#define SESSION_KEY_FILE "session.key"
/* Bytes of HMAC-SHA256 key: the hash's block-size-independent strength. */
#define SESSION_KEY_LEN 32
#define SESSION_MAC_LEN (SRV_SIGNED_MAC_HEX / 2)
/* Longest cookie value we look at: two 20-digit numbers, two dots and
 * 64 hex digits, rounded up. */
#define SESSION_VALUE_MAX 128
/* Longest "next" location accepted by the login route. */
#define LOGIN_NEXT_MAX 2048
#define LOGIN_TOKEN_MAX 128
#define CSRF_COOKIE "lectern_csrf"
/* Where the nonce cookie goes: the login's and the logout's forms. */
#define CSRF_COOKIE_PATH "/_/"
/* How long a login form's nonce is good for: an hour to type a token. */
#define CSRF_SECONDS 3600
/* Longest Host header the CSRF MAC covers (a DNS name and a port). */
#define CSRF_HOST_MAX 300
/* How long a login ticket is good for: the browser follows the redirect
 * that carries it at once; a minute allows for a slow one. */
#define TICKET_SECONDS 60
/* Redeemed tickets remembered so none works twice: more logins than this
 * in one TICKET_SECONDS would let the oldest be replayed by whoever has
 * its URL, well beyond what one engine sees. */
#define TICKETS_REMEMBERED 1024
/* Longest ticket: its random number and a '.' before a signed value. */
#define TICKET_MAX (24 + SESSION_VALUE_MAX)

/* The session key --------------------------------------------------------- */

static int key_read(const char *path, unsigned char *key)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	int ok;

	if (fd < 0)
		return errno == ENOENT ? 1 : -1;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	     st.st_size == SESSION_KEY_LEN &&
	     read(fd, key, SESSION_KEY_LEN) == SESSION_KEY_LEN;
	close(fd);
	return ok ? 0 : -1;
}

/* Write a new key to a private temporary file, then link() it into
 * place: link fails when the name exists, so racing servers agree on one
 * key and nobody reads half a file. */
static int key_create(const char *dir, const char *path)
{
	unsigned char key[SESSION_KEY_LEN];
	char tmp[DOCS_PATH_MAX];
	int fd, ok;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/" SESSION_KEY_FILE
			     ".XXXXXX", dir) >= sizeof(tmp) ||
	    RAND_bytes(key, sizeof(key)) != 1 || (fd = mkstemp(tmp)) < 0)
		return -1;
	ok = write(fd, key, sizeof(key)) == (ssize_t)sizeof(key) &&
	     fsync(fd) == 0;
	close(fd);
	OPENSSL_cleanse(key, sizeof(key));
	ok = ok && (link(tmp, path) == 0 || errno == EEXIST);
	unlink(tmp);
	return ok ? 0 : -1;
}

static int session_key(struct docs_ctx *c, unsigned char *key)
{
	const char *dir = srv_data_dir(c->req);
	char path[DOCS_PATH_MAX];
	int rc;

	if ((size_t)snprintf(path, sizeof(path), "%s/" SESSION_KEY_FILE,
			     dir) >= sizeof(path))
		return -1;
	rc = key_read(path, key);
	if (rc == 1 && key_create(dir, path) == 0)
		rc = key_read(path, key);
	if (rc != 0)
		srv_log("cannot use the session key %s", path);
	return rc == 0 ? 0 : -1;
}

/* Cookies ----------------------------------------------------------------- */

/* The hex HMAC of msg (a session's "<user>.<expiry>", a CSRF message)
 * into hex (2 * SESSION_MAC_LEN + 1). */
static int session_mac(struct docs_ctx *c, const char *msg, size_t n,
		       char *hex)
{
	unsigned char key[SESSION_KEY_LEN], mac[EVP_MAX_MD_SIZE];
	unsigned int mac_len = 0, i;
	int ok;

	if (session_key(c, key) < 0)
		return -1;
	ok = HMAC(EVP_sha256(), key, SESSION_KEY_LEN,
		  (const unsigned char *)msg, n, mac, &mac_len) != NULL &&
	     mac_len == SESSION_MAC_LEN;
	OPENSSL_cleanse(key, sizeof(key));
	for (i = 0; ok && i < mac_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", mac[i]);
	return ok ? 0 : -1;
}

/* The value of cookie name in a Cookie header into out; 0 when absent. */
static int cookie_value(const char *header, const char *name, char *out,
			size_t cap)
{
	size_t name_n = strlen(name);

	while (header && *header) {
		size_t n;

		header += strspn(header, " ;");
		n = strcspn(header, ";");
		if (n > name_n && strncmp(header, name, name_n) == 0 &&
		    header[name_n] == '=') {
			n -= name_n + 1;
			if (n >= cap)
				return 0;
			memcpy(out, header + name_n + 1, n);
			out[n] = '\0';
			return 1;
		}
		header += n;
	}
	return 0;
}

/* The hex HMAC of "<purpose>\n<host>\n<value's first n bytes>" into
 * hex: a cookie, ticket or token made for one docs host is no good on
 * another (one project's docs cannot use a session or form of
 * another's). */
static int host_mac_for(struct docs_ctx *c, const char *host,
			const char *purpose, const char *value, size_t n,
			char *hex)
{
	char msg[CSRF_HOST_MAX + SESSION_VALUE_MAX + 16];
	int len = snprintf(msg, sizeof(msg), "%s\n%s\n%.*s", purpose,
			   host ? host : "", (int)n, value);

	if (len < 0 || (size_t)len >= sizeof(msg))
		return -1;
	return session_mac(c, msg, (size_t)len, hex);
}

/* host_mac_for this request's host. */
static int host_mac(struct docs_ctx *c, const char *purpose,
		    const char *value, size_t n, char *hex)
{
	return host_mac_for(c, srv_header(c->req, "Host"), purpose, value, n,
			    hex);
}

/* The first number of a valid, unexpired "<number>.<expiry>.<mac>" made
 * for purpose on this host (a session's user id); 0 otherwise. */
static int64_t signed_number(struct docs_ctx *c, const char *purpose,
			     const char *value)
{
	char expected[2 * SESSION_MAC_LEN + 1];
	struct srv_signed v;

	if (srv_signed_parse(value, &v) < 0 ||
	    v.expires < (int64_t)time(NULL) ||
	    host_mac(c, purpose, value, v.signed_len, expected) < 0 ||
	    CRYPTO_memcmp(expected, v.mac, 2 * SESSION_MAC_LEN) != 0)
		return 0;
	return v.number;
}

/* "<number>.<expiry>.<mac>" for purpose on host, lasting seconds, into
 * out (SESSION_VALUE_MAX bytes). */
static int signed_value_for(struct docs_ctx *c, const char *host,
			    const char *purpose, uint64_t number, int seconds,
			    char *out)
{
	int n = snprintf(out, SESSION_VALUE_MAX, "%" PRIu64 ".%lld.", number,
			 (long long)time(NULL) + seconds);

	/* The mac covers everything before its own '.' separator. */
	return host_mac_for(c, host, purpose, out, (size_t)n - 1, out + n);
}

/* signed_value_for this request's host. */
static int signed_value(struct docs_ctx *c, const char *purpose,
			uint64_t number, int seconds, char *out)
{
	return signed_value_for(c, srv_header(c->req, "Host"), purpose, number,
				seconds, out);
}

/* The session id of the request's cookie when it is valid and unexpired;
 * 0 otherwise. The session may still have ended (the store says). */
static int64_t cookie_session(struct docs_ctx *c)
{
	char value[SESSION_VALUE_MAX];

	if (!cookie_value(srv_header(c->req, "Cookie"), SESSION_COOKIE, value,
			  sizeof(value)))
		return 0;
	return signed_number(c, "session", value);
}

/* The user of an "Authorization: Token <t>" header, or NULL. */
static struct lec_user *token_user(struct docs_ctx *c)
{
	const char *h = srv_header(c->req, "Authorization");
	struct lec_user *user = NULL;
	char token[LOGIN_TOKEN_MAX];
	size_t n;

	if (h == NULL || strncasecmp(h, "Token ", 6) != 0)
		return NULL;
	h += 6 + strspn(h + 6, " ");
	n = strcspn(h, " ");
	if (n == 0 || n >= sizeof(token))
		return NULL;
	memcpy(token, h, n);
	token[n] = '\0';
	if (lec_token_authenticate(c->store, token, &user) != LEC_OK)
		user = NULL;
	OPENSSL_cleanse(token, sizeof(token));
	return user;
}

/* A session ended (logged out, its token revoked) or whose user is
 * inactive is no session: the visitor is anonymous. */
const struct lec_user *docs_user(struct docs_ctx *c)
{
	int64_t sid;

	if (c->user_known)
		return c->user;
	c->user_known = 1;
	if ((c->user = token_user(c)) != NULL)
		return c->user;
	if ((sid = cookie_session(c)) > 0 &&
	    lec_session_user(c->store, sid, &c->user) == LEC_OK)
		c->session = sid;
	return c->user;
}

int docs_project_visible(struct docs_ctx *c, const struct lec_project *p)
{
	const struct lec_user *user;

	if (lec_project_can_view(c->store, p->id, LEC_VIEWER_ANONYMOUS) == 1)
		return 1;
	if ((user = docs_user(c)) == NULL ||
	    lec_project_can_view(c->store, p->id, user->id) != 1)
		return 0;
	c->private_content = 1;
	return 1;
}

/* What anyone may read is decided without looking the requester up: only
 * a private project or version makes the answer depend on who asks (and
 * keeps it out of the docs cache, docs_user). */
int docs_can_read(struct docs_ctx *c, const struct lec_project *project,
		  const struct lec_version *version)
{
	const struct lec_user *user;

	/* A pull request's version is as private as the project's external
	 * builds are (external_builds_privacy_level). */
	const unsigned flags = LEC_VERSION_VIEW_PROJECT |
			       LEC_VERSION_VIEW_EXTERNAL_BUILDS;

	if (lec_version_can_view(c->store, project, version,
				 LEC_VIEWER_ANONYMOUS, flags) == 1)
		return 1;
	if ((user = docs_user(c)) == NULL ||
	    lec_version_can_view(c->store, project, version, user->id,
				 flags) != 1)
		return 0;
	c->private_content = 1;
	return 1;
}

/* Login ------------------------------------------------------------------- */

/* Only a path on this host: no scheme, no "//host", no "/\host" (which
 * browsers read as "//host"), no control characters. */
static const char *safe_next(const char *next)
{
	const char *p;

	if (next[0] != '/' || next[1] == '/' || next[1] == '\\')
		return "/";
	for (p = next; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return "/";
	return next;
}

/* The page's text (taken) as the response. */
static int text_page(struct srv_response *res, int status,
		     struct srv_text *page)
{
	res->content_type = "text/html; charset=utf-8";
	if ((res->body = srv_text_take(page, &res->body_len)) == NULL)
		return srv_respond_internal(res, "out of memory");
	res->status = status;
	return status;
}

/* A login or logout (title) refused: a page of status saying why in its
 * headline, and what to do when there is something (NULL: nothing);
 * refused() is the 403 of a form that may not log in or out. */
static int refused_with(struct srv_response *res, int status,
			const char *title, const char *why,
			const char *advice)
{
	struct srv_text page = { 0 };

	srv_text_printf(&page,
			"<!DOCTYPE html>\n<html><head><title>%s</title>"
			"</head>\n<body><h1>%s</h1>",
			title, why);
	if (advice)
		srv_text_printf(&page, "\n<p>%s</p>", advice);
	srv_text_puts(&page, "</body></html>\n");
	return text_page(res, status, &page);
}

static int refused(struct srv_response *res, const char *title,
		   const char *why, const char *advice)
{
	return refused_with(res, 403, title, why, advice);
}

/* Whether an "a=b&c=d" body has more fields than any form may
 * (SRV_MAX_FORM_FIELDS, as the API's form bodies). */
static int too_many_fields(const char *body)
{
	size_t fields = 1;

	for (; *body && fields <= SRV_MAX_FORM_FIELDS; body++)
		fields += *body == '&';
	return fields > SRV_MAX_FORM_FIELDS;
}

/* A positive random number (as srv_signed_parse reads them), 0 when
 * there are no random bytes. */
static uint64_t random_number(void)
{
	uint64_t random;

	do {
		if (RAND_bytes((unsigned char *)&random, sizeof(random)) != 1)
			return 0;
		random &= INT64_MAX;
	} while (random == 0);
	return random;
}

/* CSRF -------------------------------------------------------------------- */

/* The request's nonce cookie into nonce (SESSION_VALUE_MAX bytes); 0
 * unless it is one this server issued for this host, unexpired: a nonce
 * the client chose is never signed. */
static int csrf_nonce(struct docs_ctx *c, char *nonce)
{
	return cookie_value(srv_header(c->req, "Cookie"), CSRF_COOKIE, nonce,
			    SESSION_VALUE_MAX) &&
	       signed_number(c, "nonce", nonce) > 0;
}

/* The form token for nonce on this host into token (2 * SESSION_MAC_LEN
 * + 1). */
static int csrf_token(struct docs_ctx *c, const char *nonce, char *token)
{
	return host_mac(c, "csrf", nonce, strlen(nonce), token);
}

/* Whether url ("http://host/..." or "https://host...") names this
 * host. */
static int names_host(const char *url, const char *host)
{
	size_t n;

	if (strncmp(url, "http://", 7) == 0)
		url += 7;
	else if (strncmp(url, "https://", 8) == 0)
		url += 8;
	else
		return 0;
	n = strcspn(url, "/");
	return host && strlen(host) == n && strncasecmp(url, host, n) == 0;
}

/* A form's POST must come from a page of this host: its Origin, which
 * browsers send with every POST, or else its Referer, must name it. A
 * request naming neither is refused (issue 27, item 11: one without
 * Origin logged a visitor in as an attacker). */
static int same_origin(struct docs_ctx *c)
{
	const char *origin = srv_header(c->req, "Origin");
	const char *referer = srv_header(c->req, "Referer");
	const char *host = srv_header(c->req, "Host");

	if (origin)
		return names_host(origin, host);
	return referer && names_host(referer, host);
}

/* Whether a token sent with a form is the one expected (both hex, of
 * 2 * SESSION_MAC_LEN digits), compared in constant time. */
static int token_matches(const char *sent, const char *expected)
{
	return strlen(sent) == 2 * SESSION_MAC_LEN &&
	       CRYPTO_memcmp(sent, expected, 2 * SESSION_MAC_LEN) == 0;
}

/* Whether a login or logout POST carries the token of the nonce cookie
 * it came with, from a page of this host. */
static int csrf_valid(struct docs_ctx *c, const char *body)
{
	char nonce[SESSION_VALUE_MAX], sent[2 * SESSION_MAC_LEN + 1];
	char expected[2 * SESSION_MAC_LEN + 1];

	return same_origin(c) && csrf_nonce(c, nonce) &&
	       docs_form_value(body, "csrf_token", sent, sizeof(sent)) &&
	       csrf_token(c, nonce, expected) == 0 &&
	       token_matches(sent, expected);
}

/* Refuse a login or logout POST (title "Log in" or "Log out", page the
 * form's) with too many fields or without its CSRF token: the refusal's
 * status, or 0 for a form to go on with. */
static int form_refused(struct docs_ctx *c, const char *body,
			const char *title, const char *again)
{
	if (too_many_fields(body))
		return refused_with(c->res, 400, title,
				    "Too many fields in the form.", again);
	if (!csrf_valid(c, body))
		return refused(c->res, title,
			       "Forbidden: the form has expired or came from "
			       "another site.",
			       again);
	return 0;
}

/* The nonce of this form: the request's own when this server issued it,
 * else a new one (random, with an expiry, signed for this host) set as a
 * cookie on the login's and logout's paths. 0, or -1 when no random bytes
 * or key. */
static int csrf_form_nonce(struct docs_ctx *c, char *nonce)
{
	char cookie[SESSION_VALUE_MAX + 96];
	uint64_t random;

	if (csrf_nonce(c, nonce))
		return 0;
	if ((random = random_number()) == 0 ||
	    signed_value(c, "nonce", random, CSRF_SECONDS, nonce) < 0)
		return -1;
	snprintf(cookie, sizeof(cookie),
		 CSRF_COOKIE "=%s; Path=" CSRF_COOKIE_PATH
			     "; HttpOnly; SameSite=Strict",
		 nonce);
	return srv_response_header(c->res, "Set-Cookie", cookie);
}

/* The dashboard's forms ---------------------------------------------------- */

_Static_assert(DOCS_FORM_TOKEN_MAX == 2 * SESSION_MAC_LEN + 1,
	       "a form token is a hex MAC");

/* A dashboard form is for someone logged in, so its token is bound to
 * what they are logged in with rather than to a nonce cookie (which
 * reaches the login's /_/ paths only): their session, or, with a token
 * header (no session: nothing a browser sends by itself), their user.
 * A new login is a new session, and a new token. */
int docs_form_token(struct docs_ctx *c, char *token)
{
	const struct lec_user *user = docs_user(c);
	char subject[48];

	if (user == NULL)
		return -1;
	if (c->session)
		snprintf(subject, sizeof(subject), "session %" PRId64,
			 c->session);
	else
		snprintf(subject, sizeof(subject), "user %" PRId64, user->id);
	return host_mac(c, "form", subject, strlen(subject), token);
}

int docs_form_token_valid(struct docs_ctx *c, const char *sent)
{
	char expected[DOCS_FORM_TOKEN_MAX];

	return sent && same_origin(c) && docs_form_token(c, expected) == 0 &&
	       token_matches(sent, expected);
}

/* Tickets ----------------------------------------------------------------- */

/* Whether the ticket of this random number is redeemed for the first
 * time; remembered until it expires. The number, not the ticket's text,
 * is what is remembered: a ticket is known by what was parsed from it.
 * A ticket travels in a URL, which browsers keep in their history: it
 * works once. */
static int ticket_first_use(uint64_t random)
{
	static struct {
		uint64_t random;
		time_t until;
	} used[TICKETS_REMEMBERED];
	static size_t next;
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	time_t now = time(NULL);
	size_t i;
	int first = 1;

	pthread_mutex_lock(&lock);
	for (i = 0; i < TICKETS_REMEMBERED && first; i++)
		first = used[i].until < now || used[i].random != random;
	if (first) {
		used[next].random = random;
		used[next].until = now + TICKET_SECONDS;
		next = (next + 1) % TICKETS_REMEMBERED;
	}
	pthread_mutex_unlock(&lock);
	return first;
}

/* Where a ticket's purpose is written: "ticket <its random number>". */
#define TICKET_PURPOSE_MAX 32

/* A ticket for the login session sid on host into out (TICKET_MAX
 * bytes): "<random>.<session>.<expiry>.<mac>", its mac also covering the
 * random number, so two logins in one second make two tickets. */
static int ticket_make(struct docs_ctx *c, const char *host, int64_t sid,
		       char *out)
{
	char purpose[TICKET_PURPOSE_MAX];
	uint64_t random = random_number();
	int n;

	if (random == 0)
		return -1;
	snprintf(purpose, sizeof(purpose), "ticket %" PRIu64, random);
	n = snprintf(out, TICKET_MAX - SESSION_VALUE_MAX, "%" PRIu64 ".",
		     random);
	return signed_value_for(c, host, purpose, (uint64_t)sid,
				TICKET_SECONDS, out + n);
}

/* The login session of a valid, unexpired ticket made for this host, with
 * its random number in *random; 0 otherwise. */
static int64_t ticket_session(struct docs_ctx *c, const char *ticket,
			      uint64_t *random)
{
	char purpose[TICKET_PURPOSE_MAX];
	const char *rest;
	int64_t number = srv_ticket_random(ticket, &rest);

	if (number <= 0)
		return 0;
	*random = (uint64_t)number;
	snprintf(purpose, sizeof(purpose), "ticket %" PRId64, number);
	return signed_number(c, purpose, rest);
}

/* The docs host a login is for, from the "host" value of s (a query or
 * form body), lowercased into out (CSRF_HOST_MAX bytes): one of this
 * server's docs hosts, "<label>.<docs domain>", its label a slug's
 * characters only (a '/' or '@' there would send the ticket elsewhere);
 * 0 when absent or not one. */
static int login_target(struct docs_ctx *c, const char *s, char *out)
{
	char label[LEC_PROJECT_SLUG_MAX + 1], *p;

	if (!docs_form_value(s, "host", out, CSRF_HOST_MAX))
		return 0;
	for (p = out; *p; p++)
		*p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
	if (!docs_host_slug(out, srv_docs_domain(c->req), label,
			    sizeof(label)))
		return 0;
	return label[0] && strspn(label, "abcdefghijklmnopqrstuvwxyz"
					 "0123456789-_") == strlen(label);
}

/* Responses --------------------------------------------------------------- */

/* A 302 to the text's URL (taken). */
static int redirect(struct docs_ctx *c, struct srv_text *url)
{
	if ((c->res->location = srv_text_take(url, NULL)) == NULL)
		return srv_respond_internal(c->res, "out of memory");
	srv_response_header(c->res, "Cache-Control", "no-store");
	return srv_respond_empty(c->res, 302);
}

/* Set the cookie of session sid for this host. */
static int set_session(struct docs_ctx *c, int64_t sid)
{
	char value[SESSION_VALUE_MAX], cookie[SESSION_VALUE_MAX + 96];

	if (signed_value(c, "session", (uint64_t)sid, SESSION_SECONDS,
			 value) < 0)
		return -1;
	snprintf(cookie, sizeof(cookie),
		 SESSION_COOKIE "=%s; Max-Age=%d; Path=/; HttpOnly; "
				"SameSite=Lax",
		 value, SESSION_SECONDS);
	return srv_response_header(c->res, "Set-Cookie", cookie);
}

/* The "next" value of s (a query or form body), safe for this host, into
 * out (LOGIN_NEXT_MAX bytes); "/" when absent. */
static void login_next(const char *s, char *out)
{
	const char *safe;

	if (!docs_form_value(s, "next", out, LOGIN_NEXT_MAX))
		snprintf(out, LOGIN_NEXT_MAX, "/");
	safe = safe_next(out);
	memmove(out, safe, strlen(safe) + 1);
}

/* After a login on the API host: to next there, or, for a docs host, to
 * that host with a ticket for the login session sid. */
static int login_done(struct docs_ctx *c, int64_t sid, const char *host,
		      const char *next)
{
	struct srv_text url = { 0 };
	char ticket[TICKET_MAX];

	if (host[0] == '\0') {
		srv_text_puts(&url, next);
		return redirect(c, &url);
	}
	if (ticket_make(c, host, sid, ticket) < 0)
		return srv_respond_internal(c->res, "no session key");
	srv_text_printf(&url, "%s://%s" DOCS_LOGIN_PATH "?ticket=%s&next=",
			srv_request_scheme(c->req), host, ticket);
	srv_text_query_value(&url, next);
	return redirect(c, &url);
}

/* The login form on the API host ------------------------------------------ */

/* What a page with a form (the login's, the logout's, the dashboard's)
 * says about itself: the CSRF token is tied to this visitor's cookie (no
 * shared caching), and the page may not be framed, or a page of a build
 * could lay itself over it. */
void docs_form_headers(struct docs_ctx *c)
{
	srv_response_header(c->res, "Cache-Control", "no-store");
	srv_response_header(c->res, "X-Frame-Options", "DENY");
	srv_response_header(c->res, "Content-Security-Policy",
			    "frame-ancestors 'none'");
}

/* The login form, for this host or for the docs host in the query; next
 * and host are HTML-escaped into hidden fields. */
static int login_form(struct docs_ctx *c)
{
	struct srv_text page = { 0 };
	const char *query = c->query[0] ? c->query + 1 : "";
	char nonce[SESSION_VALUE_MAX], token[2 * SESSION_MAC_LEN + 1];
	char next[LOGIN_NEXT_MAX], host[CSRF_HOST_MAX];

	if (csrf_form_nonce(c, nonce) < 0 || csrf_token(c, nonce, token) < 0)
		return srv_respond_internal(c->res, "no CSRF token");
	docs_form_headers(c);
	login_next(query, next);
	if (!login_target(c, query, host))
		host[0] = '\0';
	srv_text_puts(&page, "<!DOCTYPE html>\n<html><head><title>Log in"
			     "</title></head>\n<body><h1>Log in</h1>\n");
	if (host[0]) {
		srv_text_puts(&page, "<p>to read the docs at ");
		dash_esc(&page, host);
		srv_text_puts(&page, "</p>\n");
	}
	srv_text_printf(&page,
			"<form method=\"post\" action=\"" DOCS_LOGIN_PATH "\">\n"
			"<input type=\"hidden\" name=\"csrf_token\" "
			"value=\"%s\">\n<input type=\"hidden\" name=\"next\" "
			"value=\"",
			token);
	dash_esc(&page, next);
	srv_text_puts(&page, "\">\n<input type=\"hidden\" name=\"host\" "
			     "value=\"");
	dash_esc(&page, host);
	srv_text_puts(&page, "\">\n<label>API token <input type=\"password\" "
			     "name=\"token\"></label>\n<button>Log in</button>\n"
			     "</form></body></html>\n");
	return text_page(c->res, 200, &page);
}

/* Exchange the form's token for a session cookie on this host, then on
 * to next (login_done). */
static int login_post(struct docs_ctx *c)
{
	char token[LOGIN_TOKEN_MAX], next[LOGIN_NEXT_MAX], host[CSRF_HOST_MAX];
	const char *body = c->req->body ? c->req->body : "";
	int64_t sid = 0;
	int rc;

	if ((rc = form_refused(c, body, "Log in",
			       "Open the login page again.")) != 0)
		return rc;
	if (!docs_form_value(body, "token", token, sizeof(token)))
		token[0] = '\0';
	rc = lec_session_login(c->store, token, SESSION_SECONDS, &sid);
	OPENSSL_cleanse(token, sizeof(token));
	if (rc == LEC_ENOTFOUND || rc == LEC_EAUTH)
		return refused(c->res, "Log in", "Invalid token", NULL);
	if (rc < 0)
		return srv_respond_engine_error(c->res, rc);
	if (set_session(c, sid) < 0)
		return srv_respond_internal(c->res, "no session key");
	login_next(body, next);
	if (!login_target(c, body, host))
		host[0] = '\0';
	return login_done(c, sid, host, next);
}

int docs_login_form(struct docs_ctx *c)
{
	char next[LOGIN_NEXT_MAX], host[CSRF_HOST_MAX];
	const char *query = c->query[0] ? c->query + 1 : "";

	if (c->req->method == SRV_POST)
		return login_post(c);
	/* Logged in here already (a session, not a token header): on to the
	 * docs host at once. */
	if (login_target(c, query, host) && docs_user(c) != NULL &&
	    c->session) {
		login_next(query, next);
		return login_done(c, c->session, host, next);
	}
	return login_form(c);
}

/* The login on a docs host ------------------------------------------------ */

/* To the form on the API's host (the docs domain itself), which sends the
 * browser back here with a ticket. */
static int to_login_form(struct docs_ctx *c)
{
	struct srv_text url = { 0 };
	char next[LOGIN_NEXT_MAX];

	login_next(c->query[0] ? c->query + 1 : "", next);
	srv_text_printf(&url, "%s://%s" DOCS_LOGIN_PATH "?next=",
			srv_request_scheme(c->req), srv_docs_domain(c->req));
	srv_text_query_value(&url, next);
	srv_text_puts(&url, "&host=");
	srv_text_query_value(&url, srv_header(c->req, "Host"));
	return redirect(c, &url);
}

/* A ticket made on the API's host for this host, unexpired and never used:
 * a session here, then on to next. */
static int redeem(struct docs_ctx *c, const char *ticket)
{
	struct srv_text url = { 0 };
	char next[LOGIN_NEXT_MAX];
	uint64_t random = 0;
	int64_t login = ticket_session(c, ticket, &random), sid = 0;
	int rc;

	/* The login may have ended since (logged out, token revoked). */
	if (login <= 0 || !ticket_first_use(random) ||
	    (rc = lec_session_continue(c->store, login, SESSION_SECONDS,
				       &sid)) == LEC_ENOTFOUND)
		return refused(c->res, "Log in",
			       "Forbidden: this login link has expired or was "
			       "used already.",
			       "Open the login page again.");
	if (rc < 0)
		return srv_respond_engine_error(c->res, rc);
	if (set_session(c, sid) < 0)
		return srv_respond_internal(c->res, "no session key");
	/* The ticket's URL is not passed on to the next page. */
	srv_response_header(c->res, "Referrer-Policy", "no-referrer");
	login_next(c->query + 1, next);
	srv_text_puts(&url, next);
	return redirect(c, &url);
}

int docs_login(struct docs_ctx *c)
{
	char ticket[TICKET_MAX];

	if (c->query[0] &&
	    docs_form_value(c->query + 1, "ticket", ticket, sizeof(ticket)))
		return redeem(c, ticket);
	return to_login_form(c);
}

/* Logout ------------------------------------------------------------------ */

/* The form asking to confirm: who is logged in, and a button that posts
 * it back here with the CSRF token and next. */
static int logout_form(struct docs_ctx *c)
{
	struct srv_text page = { 0 };
	const char *query = c->query[0] ? c->query + 1 : "";
	char nonce[SESSION_VALUE_MAX], token[2 * SESSION_MAC_LEN + 1];
	char next[LOGIN_NEXT_MAX];
	const struct lec_user *user = docs_user(c);

	if (csrf_form_nonce(c, nonce) < 0 || csrf_token(c, nonce, token) < 0)
		return srv_respond_internal(c->res, "no CSRF token");
	docs_form_headers(c);
	login_next(query, next);
	srv_text_puts(&page, "<!DOCTYPE html>\n<html><head><title>Log out"
			     "</title></head>\n<body><h1>Log out</h1>\n<p>");
	if (user && c->session) {
		srv_text_puts(&page, "Logged in as ");
		dash_esc(&page, user->username);
		srv_text_puts(&page, ". Log this browser out, here and on every "
				     "docs host it logged in to?");
	} else {
		srv_text_puts(&page, "This browser is not logged in here.");
	}
	srv_text_printf(&page,
			"</p>\n<form method=\"post\" action=\"" DOCS_LOGOUT_PATH
			"\">\n<input type=\"hidden\" name=\"csrf_token\" "
			"value=\"%s\">\n<input type=\"hidden\" name=\"next\" "
			"value=\"",
			token);
	dash_esc(&page, next);
	srv_text_puts(&page, "\">\n<button>Log out</button>\n</form>"
			     "</body></html>\n");
	return text_page(c->res, 200, &page);
}

/* End the cookie's session with its family, whether or not it is still
 * live (its user may be inactive), and clear the cookie; then on to next
 * on this host. */
static int logout_post(struct docs_ctx *c)
{
	const char *body = c->req->body ? c->req->body : "";
	struct srv_text url = { 0 };
	char next[LOGIN_NEXT_MAX];
	int64_t sid;
	int rc;

	if ((rc = form_refused(c, body, "Log out",
			       "Open the logout page again.")) != 0)
		return rc;
	if ((sid = cookie_session(c)) > 0 &&
	    (rc = lec_session_end(c->store, sid)) < 0)
		return srv_respond_engine_error(c->res, rc);
	srv_response_header(c->res, "Set-Cookie",
			    SESSION_COOKIE "=; Max-Age=0; Path=/; HttpOnly; "
					   "SameSite=Lax");
	login_next(body, next);
	srv_text_puts(&url, next);
	return redirect(c, &url);
}

int docs_logout(struct docs_ctx *c)
{
	return c->req->method == SRV_POST ? logout_post(c) : logout_form(c);
}
