/*
 * Parsing the docs login's signed values (signed_value.h).
 */
#include <string.h>

#include "signed_value.h"

/* A decimal number of *value up to its '.', past which *value is moved;
 * -1 unless it is digits without a leading zero that fit an int64_t. */
static int64_t number_before_dot(const char **value)
{
	const char *s = *value;
	int64_t n = 0;

	if (*s < '1' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (n > (INT64_MAX - 9) / 10)
			return -1;
		n = n * 10 + (*s - '0');
	}
	if (*s != '.')
		return -1;
	*value = s + 1;
	return n;
}

static int is_lower_hex(const char *s, size_t n)
{
	return strspn(s, "0123456789abcdef") == n && s[n] == '\0';
}

int srv_signed_parse(const char *value, struct srv_signed *out)
{
	const char *s = value;

	if ((out->number = number_before_dot(&s)) < 0 ||
	    (out->expires = number_before_dot(&s)) < 0 ||
	    !is_lower_hex(s, SRV_SIGNED_MAC_HEX))
		return -1;
	out->mac = s;
	out->signed_len = (size_t)(s - 1 - value);
	return 0;
}

int64_t srv_ticket_random(const char *ticket, const char **rest)
{
	*rest = ticket;
	return number_before_dot(rest);
}
