/*
 * The two URL checks of a project's fields: the repository URL by the
 * service's RepositoryURLValidator (its schemes, and its refusal of SSH
 * and of shell metacharacters) and the homepage by Django's URLValidator
 * (scheme, optional user information, a host that is a name, an IPv4 or
 * a bracketed IPv6 address, an optional port), with the character classes
 * their regular expressions use. Both answer as the service does, so the
 * API can pass the message on; the rest of a project's validation is
 * project_values.c's.
 */
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "project_internal.h"

/* The service's own length limit for DNS host names (RFC 1034). */
#define HOSTNAME_MAX 253
/* Longest DNS label. */
#define LABEL_MAX 63
/* Longest port: five digits. */
#define PORT_DIGITS_MAX 5

/* Character classes ------------------------------------------------------ */

int lec__project_is_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static int is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int is_alnum(unsigned char c)
{
	return is_alpha(c) || is_digit(c);
}

int lec__project_is_word(unsigned char c)
{
	return is_alnum(c) || c == '_' || c >= 0x80;
}

/* Repository URLs (the service's RepositoryURLValidator) ------------------ */

/* Length of the URL's scheme as Python's urlparse finds it (0: none). */
static size_t scheme_length(const char *url)
{
	size_t i;

	if (!is_alpha((unsigned char)url[0]))
		return 0;
	for (i = 0; url[i] && url[i] != ':'; i++)
		if (!is_alnum((unsigned char)url[i]) && !strchr("+-.", url[i]))
			return 0;
	return url[i] == ':' ? i : 0;
}

static int scheme_in(const char *url, size_t n, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == n && strncasecmp(url, *list, n) == 0)
			return 1;
	return 0;
}

/* The service's "user@host:path" pattern: ^\w+@.+ */
static int looks_like_scp(const char *url)
{
	size_t i = 0;

	while (lec__project_is_word((unsigned char)url[i]))
		i++;
	return i > 0 && url[i] == '@' && url[i + 1] && url[i + 1] != '\n';
}

int lec__project_repo_url_check(const char *url)
{
	/* file:// is Lectern's addition: it builds local repositories, from
	 * the server's directories only (field_repo_url). */
	static const char *const accepted[] = { "https", "http", "git", "file",
						NULL };
	static const char *const ssh[] = { "ssh", "ssh+git", NULL };
	static const char field[] = "repository.url";
	size_t n = scheme_length(url);

	if (strstr(url, "&&") || strchr(url, '|'))
		return lec__error_field(LEC_EINVALID, field,
					"Invalid character in the URL");
	if (n && scheme_in(url, n, accepted))
		return LEC_OK;
	if (strncmp(url, "lp:", 3) == 0)
		return LEC_OK;
	if (looks_like_scp(url) || (n && scheme_in(url, n, ssh)))
		return lec__error_field(LEC_EINVALID, field,
					"Manual cloning via SSH is not "
					"supported");
	return lec__error_field(LEC_EINVALID, field, "Invalid scheme for URL");
}

/* Homepages (Django's URLValidator) --------------------------------------- */

/* Django's "ul" range: any non-ASCII character may appear in a host. */
static int is_host_char(unsigned char c)
{
	return is_alnum(c) || c >= 0x80;
}

/* An IPv4 address as Django spells it: no leading zeros, each <= 255. */
static int valid_ipv4(const char *s, size_t n)
{
	size_t i = 0;
	int part;

	for (part = 0; part < 4; part++) {
		size_t start;
		unsigned value = 0;

		if (part && (i >= n || s[i++] != '.'))
			return 0;
		start = i;
		while (i < n && is_digit((unsigned char)s[i]) &&
		       i - start < 3)
			value = value * 10 + (unsigned)(s[i++] - '0');
		if (i == start || value > 255 ||
		    (s[start] == '0' && i - start > 1))
			return 0;
	}
	return i == n;
}

/* One label of a host name: 1..63 characters, no '-' at either end; a top
 * level label has no digits (or is punycode). */
static int valid_label(const char *s, size_t n, int top)
{
	size_t i;

	if (n == 0 || n > LABEL_MAX || s[0] == '-' || s[n - 1] == '-')
		return 0;
	if (top && n >= 4 && strncasecmp(s, "xn--", 4) == 0)
		top = 0;
	else if (top && n < 2)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!(is_host_char(c) || c == '-') || (top && is_digit(c)))
			return 0;
	}
	return 1;
}

static int valid_hostname(const char *s, size_t n)
{
	size_t start = 0, i, labels = 0;

	if (n && s[n - 1] == '.')
		n--; /* a fully qualified name */
	if (n == 0 || n > HOSTNAME_MAX)
		return 0;
	for (i = 0; i <= n; i++) {
		if (i < n && s[i] != '.')
			continue;
		if (!valid_label(s + start, i - start, i == n))
			return 0;
		labels++;
		start = i + 1;
	}
	return labels >= 2;
}

static int valid_host(const char *s, size_t n)
{
	size_t i;

	if (n == 9 && strncasecmp(s, "localhost", 9) == 0)
		return 1;
	if (n >= 3 && s[0] == '[' && s[n - 1] == ']') {
		for (i = 1; i < n - 1; i++)
			if (!strchr("0123456789abcdefABCDEF:.", s[i]))
				return 0;
		return memchr(s, ':', n) != NULL;
	}
	return valid_ipv4(s, n) || valid_hostname(s, n);
}

/* user[:password]@ before the host: no white space, '/', '@' or extra ':'. */
static int valid_userinfo(const char *s, size_t n)
{
	size_t i, colons = 0;

	if (n == 0 || s[0] == ':')
		return 0;
	for (i = 0; i < n; i++) {
		if (lec__project_is_space((unsigned char)s[i]) || s[i] == '/' ||
		    s[i] == '@')
			return 0;
		colons += s[i] == ':';
	}
	return colons <= 1;
}

/* host[:port] */
static int valid_hostport(const char *s, size_t n)
{
	const char *colon = NULL;
	size_t i;

	if (n && s[0] == '[') {
		const char *end = memchr(s, ']', n);

		if (end && (size_t)(end - s) + 1 < n)
			colon = end + 1;
	} else {
		colon = memchr(s, ':', n);
	}
	if (colon == NULL)
		return valid_host(s, n);
	if (*colon != ':')
		return 0;
	for (i = 1; (size_t)(colon - s) + i < n; i++)
		if (!is_digit((unsigned char)colon[i]) || i > PORT_DIGITS_MAX)
			return 0;
	return i > 1 && valid_host(s, (size_t)(colon - s));
}

int lec__project_web_url_valid(const char *url)
{
	static const char *const schemes[] = { "http", "https", "ftp", "ftps",
					       NULL };
	const char *sep = strstr(url, "://");
	const char *authority, *end, *at, *p;

	if (sep == NULL || !scheme_in(url, (size_t)(sep - url), schemes))
		return 0;
	authority = sep + 3;
	end = authority + strcspn(authority, "/?#");
	for (p = end; *p; p++)
		if (lec__project_is_space((unsigned char)*p))
			return 0;
	at = memchr(authority, '@', (size_t)(end - authority));
	if (at) {
		if (!valid_userinfo(authority, (size_t)(at - authority)))
			return 0;
		authority = at + 1;
	}
	return valid_hostport(authority, (size_t)(end - authority));
}
