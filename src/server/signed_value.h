/*
 * The text of the docs login's signed values (docs_auth.c): a session
 * cookie, a CSRF nonce and a ticket's signed part are
 * "<number>.<expiry>.<mac>", a ticket "<random>.<number>.<expiry>.<mac>".
 * Only the parsing is here, apart from the keys and the MACs, so that
 * the fuzz target reaches it: every number has one spelling (decimal, no
 * sign, no leading zero) and the MAC is lowercase hex, so a value that
 * parses prints back as the same bytes, and nothing that was refused or
 * used can come back in another spelling.
 */
#ifndef LECTERN_SRV_SIGNED_VALUE_H
#define LECTERN_SRV_SIGNED_VALUE_H

#include <stddef.h>
#include <stdint.h>

/* Hex digits of a value's MAC (HMAC-SHA256). */
#define SRV_SIGNED_MAC_HEX 64

struct srv_signed {
	int64_t number;    /* the user id, or a nonce's random number */
	int64_t expires;   /* seconds since the epoch */
	const char *mac;   /* in the value: SRV_SIGNED_MAC_HEX digits */
	size_t signed_len; /* bytes before the MAC's '.': what it covers */
};

/* Parse "<number>.<expiry>.<mac>": 0 with out filled, or -1 when value is
 * not one in its one spelling (numbers above 0). */
int srv_signed_parse(const char *value, struct srv_signed *out);
/* A ticket's random number (above 0), with *rest the signed value after
 * it; -1 when the ticket does not start with one and a '.'. */
int64_t srv_ticket_random(const char *ticket, const char **rest);

#endif
