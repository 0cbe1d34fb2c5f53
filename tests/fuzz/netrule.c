/*
 * Fuzz target: the address rule (engine/src/netrule.c), which parses the
 * networks `lectern serve --webhook-allow` is given and judges each
 * address a webhook or a mirror is about to connect to.
 *
 * Input, one field per line: networks to allow (ADDRESS[/PREFIX]), then
 * any last field is read as an address to judge (IPv4 or IPv6 text).
 * Besides the sanitizers: an accepted network allows its own first
 * address; written back as text it parses to the same network; the rule
 * never holds more than LEC_NETRULE_ALLOW_MAX; loopback is refused by an
 * empty rule however it is written; and an address the empty rule allows
 * is allowed by any rule.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "fuzz.h"
#include "lectern/errors.h"
#include "lectern/netrule.h"

/* net's first address at port as a socket address. */
static socklen_t sockaddr_of(const struct lec_netrule_net *net, unsigned port,
			     struct sockaddr_in6 *in6)
{
	memset(in6, 0, sizeof(*in6));
	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons((unsigned short)port);
	memcpy(&in6->sin6_addr, net->addr, 16);
	return sizeof(*in6);
}

/* Text (IPv4 or IPv6) as a socket address; 0 when it is neither. */
static socklen_t parse_address(const char *text, struct sockaddr_storage *ss)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, text, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(80);
		return sizeof(*in);
	}
	if (inet_pton(AF_INET6, text, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(80);
		return sizeof(*in6);
	}
	return 0;
}

/* The network written back as text parses to itself. */
static void check_round_trip(const struct lec_netrule_net *net)
{
	struct lec_netrule again = { 0 };
	char text[INET6_ADDRSTRLEN + 8], addr[INET6_ADDRSTRLEN];

	FUZZ_CHECK(inet_ntop(AF_INET6, net->addr, addr, sizeof(addr)) != NULL,
		   "an accepted network has an address");
	snprintf(text, sizeof(text), "%s/%u", addr, net->prefix);
	FUZZ_CHECK(lec_netrule_allow(&again, text) == LEC_OK,
		   "a network written back parses");
	FUZZ_CHECK(again.n == 1 && again.allow[0].prefix == net->prefix &&
			   memcmp(again.allow[0].addr, net->addr, 16) == 0,
		   "a network written back is the same network");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const loopback[] = { "127.0.0.1", "::1",
						"::ffff:127.0.0.1",
						"64:ff9b::7f00:1" };
	struct lec_netrule rule = { 0 };
	struct sockaddr_storage ss;
	struct sockaddr_in6 in6;
	struct fuzz_fields f;
	socklen_t len;
	size_t i;
	int rc;

	fuzz_fields_split(&f, data, size);
	for (i = 0; i < f.n; i++) {
		size_t before = rule.n;

		rc = lec_netrule_allow(&rule, f.at[i]);
		FUZZ_CHECK(rc == LEC_OK || rc == LEC_EINVALID || rc == LEC_ELIMIT,
			   "a network is taken, refused or over the limit");
		FUZZ_CHECK(rule.n == before + (rc == LEC_OK),
			   "only an accepted network is added");
		FUZZ_CHECK(rule.n <= LEC_NETRULE_ALLOW_MAX, "the rule is bounded");
		if (rc != LEC_OK)
			continue;
		len = sockaddr_of(&rule.allow[rule.n - 1], 80, &in6);
		FUZZ_CHECK(lec_netrule_check(&rule, (struct sockaddr *)&in6,
					     len) == 1,
			   "an allowed network allows its first address");
		check_round_trip(&rule.allow[rule.n - 1]);
	}
	for (i = 0; i < sizeof(loopback) / sizeof(loopback[0]); i++) {
		len = parse_address(loopback[i], &ss);
		FUZZ_CHECK(lec_netrule_check(NULL, (struct sockaddr *)&ss, len) ==
				   0,
			   "the empty rule refuses loopback");
	}
	if (f.n > 0 && (len = parse_address(f.at[f.n - 1], &ss)) != 0 &&
	    lec_netrule_check(NULL, (struct sockaddr *)&ss, len))
		FUZZ_CHECK(lec_netrule_check(&rule, (struct sockaddr *)&ss,
					     len) == 1,
			   "what the empty rule allows, any rule allows");
	fuzz_fields_dispose(&f);
	return 0;
}
