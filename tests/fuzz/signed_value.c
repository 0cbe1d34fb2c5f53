/*
 * Fuzz target: the docs login's signed values and tickets
 * (srv_signed_parse, srv_ticket_random in src/server/signed_value.c), the
 * text a browser sends back in a session cookie, a CSRF nonce or a
 * ticket's URL. Besides the sanitizers: every number has one spelling, so
 * a value that parses prints back as the same bytes ("<number>.<expiry>.
 * <mac>" with positive numbers and 64 lowercase hex digits), its signed
 * part is what comes before the MAC's '.', and a ticket's random number
 * and the rest after it give back the ticket.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "signed_value.h"

static void check_signed(const char *value)
{
	struct srv_signed v;
	char again[128];
	int n;

	if (srv_signed_parse(value, &v) < 0)
		return;
	FUZZ_CHECK(v.number > 0 && v.expires > 0, "positive numbers");
	FUZZ_CHECK(strlen(v.mac) == SRV_SIGNED_MAC_HEX &&
			   strspn(v.mac, "0123456789abcdef") ==
				   SRV_SIGNED_MAC_HEX,
		   "a MAC of lowercase hex digits");
	n = snprintf(again, sizeof(again), "%" PRId64 ".%" PRId64 ".%s",
		     v.number, v.expires, v.mac);
	FUZZ_CHECK(n > 0 && (size_t)n < sizeof(again) &&
			   strcmp(again, value) == 0,
		   "a value prints back as its own bytes");
	FUZZ_CHECK(v.mac == value + v.signed_len + 1 &&
			   value[v.signed_len] == '.',
		   "the MAC covers what comes before its '.'");
}

static void check_ticket(const char *ticket)
{
	const char *rest;
	int64_t random = srv_ticket_random(ticket, &rest);
	char again[32];

	if (random < 0)
		return;
	FUZZ_CHECK(random > 0, "a positive random number");
	snprintf(again, sizeof(again), "%" PRId64 ".", random);
	FUZZ_CHECK(rest == ticket + strlen(again) &&
			   strncmp(ticket, again, strlen(again)) == 0,
		   "a ticket's random number is spelt one way");
	check_signed(rest);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size);

	check_signed(text);
	check_ticket(text);
	free(text);
	return 0;
}
