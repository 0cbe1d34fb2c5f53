/*
 * The address rule: every special-purpose range is refused (an address
 * inside each, and its neighbour outside passes), IPv4 carried in IPv6
 * (mapped, NAT64) is judged as IPv4, an allowed network or endpoint lets
 * exactly its addresses (and port) through, networks are parsed strictly,
 * and anything but an IP address is refused.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "harness.h"
#include "lectern/netrule.h"

/* text ("1.2.3.4" or "::1") at port as a socket address in ss. */
static socklen_t sockaddr_of(const char *text, unsigned port,
			     struct sockaddr_storage *ss)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, text, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons((unsigned short)port);
		return sizeof(*in);
	}
	CHECK(inet_pton(AF_INET6, text, &in6->sin6_addr) == 1);
	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons((unsigned short)port);
	return sizeof(*in6);
}

static int allowed(const struct lec_netrule *rule, const char *text,
		   unsigned port)
{
	struct sockaddr_storage ss;
	socklen_t len = sockaddr_of(text, port, &ss);

	return lec_netrule_check(rule, (struct sockaddr *)&ss, len);
}

#define CHECK_REFUSED(rule, text) CHECK_INT(allowed(rule, text, 80), 0)
#define CHECK_ALLOWED(rule, text) CHECK_INT(allowed(rule, text, 80), 1)

TEST(special_ranges_are_refused_and_their_neighbours_pass)
{
	/* An address in each range of the table, then the first one past
	 * it (or before it) that is globally reachable. */
	static const char *const inside[] = {
		"0.0.0.0", "0.255.255.255", "10.0.0.1", "10.255.255.255",
		"100.64.0.1", "100.127.255.254", "127.0.0.1", "127.1.2.3",
		"169.254.169.254", "172.16.0.1", "172.31.255.255",
		"192.0.0.8", "192.0.2.1", "192.88.99.1", "192.168.1.1",
		"198.18.0.1", "198.19.255.255", "198.51.100.7",
		"203.0.113.9", "224.0.0.1", "239.255.255.250",
		"240.0.0.1", "255.255.255.255",
		"::", "::1", "::127.0.0.1", "64:ff9b:1::1", "100::1",
		"2001::1", "2001:1ff::1", "2001:db8::1", "2002:7f00:1::1",
		"3fff::1", "5f00::1", "fc00::1", "fd12:3456::1", "fe80::1",
		"febf::1", "fec0::1", "ff02::1",
	};
	static const char *const beside[] = {
		"1.0.0.1", "9.255.255.255", "11.0.0.0", "100.63.255.255",
		"100.128.0.0", "126.255.255.255", "128.0.0.0",
		"169.253.255.255", "169.255.0.0", "172.15.255.255",
		"172.32.0.0", "192.0.1.0", "192.0.3.0", "192.88.98.255",
		"192.88.100.0", "192.167.255.255", "192.169.0.0",
		"198.17.255.255", "198.20.0.0", "198.51.99.255",
		"198.51.101.0", "203.0.112.255", "203.0.114.0",
		"223.255.255.255", "8.8.8.8", "93.184.216.34",
		"2001:200::1", "2001:4860:4860::8888", "2003::1",
		"2a00:1450:4001::1", "3ffe::1", "2606:4700::1111",
	};
	size_t i;

	for (i = 0; i < sizeof(inside) / sizeof(inside[0]); i++)
		if (allowed(NULL, inside[i], 443))
			FAIL_AT("%s was allowed", inside[i]);
	for (i = 0; i < sizeof(beside) / sizeof(beside[0]); i++)
		if (!allowed(NULL, beside[i], 443))
			FAIL_AT("%s was refused", beside[i]);
}

TEST(ipv4_carried_in_ipv6_is_judged_as_ipv4)
{
	struct lec_netrule rule = { 0 };

	CHECK_REFUSED(NULL, "::ffff:127.0.0.1");
	CHECK_REFUSED(NULL, "::ffff:0.0.0.0");
	CHECK_REFUSED(NULL, "::ffff:10.1.2.3");
	CHECK_REFUSED(NULL, "::ffff:169.254.169.254");
	CHECK_REFUSED(NULL, "64:ff9b::127.0.0.1");
	CHECK_REFUSED(NULL, "64:ff9b::192.168.0.1");
	/* Issue 36, finding 9: the IPv4-translated form (RFC 2765) was a
	 * global IPv6 address to the rule. */
	CHECK_REFUSED(NULL, "::ffff:0:7f00:1");
	CHECK_REFUSED(NULL, "::ffff:0:127.0.0.1");
	CHECK_REFUSED(NULL, "::ffff:0:a9fe:a9fe");
	CHECK_REFUSED(NULL, "0:0:0:0:ffff:0:c0a8:1");
	CHECK_ALLOWED(NULL, "::ffff:8.8.8.8");
	CHECK_ALLOWED(NULL, "64:ff9b::8.8.8.8");
	CHECK_ALLOWED(NULL, "::ffff:0:8.8.8.8");
	/* And an IPv4 network allows its mapped form. */
	CHECK_OK(lec_netrule_allow(&rule, "127.0.0.0/8"));
	CHECK_ALLOWED(&rule, "::ffff:127.0.0.1");
	CHECK_ALLOWED(&rule, "127.0.0.1");
	CHECK_ALLOWED(&rule, "64:ff9b::127.0.0.1");
	CHECK_REFUSED(&rule, "::1");
	/* A NAT64 network allows its addresses as written. */
	memset(&rule, 0, sizeof(rule));
	CHECK_OK(lec_netrule_allow(&rule, "64:ff9b::7f00:1"));
	CHECK_ALLOWED(&rule, "64:ff9b::7f00:1");
	CHECK_REFUSED(&rule, "64:ff9b::7f00:2");
}

TEST(an_allowed_network_lets_exactly_its_addresses_through)
{
	struct lec_netrule rule = { 0 };

	CHECK_OK(lec_netrule_allow(&rule, "10.1.0.0/16"));
	CHECK_OK(lec_netrule_allow(&rule, "fd00:1::/32"));
	CHECK_OK(lec_netrule_allow(&rule, "192.168.7.7"));
	CHECK_OK(lec_netrule_allow(&rule, "::1"));
	CHECK_INT(rule.n, 4);
	CHECK_ALLOWED(&rule, "10.1.0.1");
	CHECK_ALLOWED(&rule, "10.1.255.255");
	CHECK_REFUSED(&rule, "10.2.0.1");
	CHECK_ALLOWED(&rule, "fd00:1:ffff::1");
	CHECK_REFUSED(&rule, "fd00:2::1");
	CHECK_ALLOWED(&rule, "192.168.7.7");
	CHECK_REFUSED(&rule, "192.168.7.8");
	CHECK_ALLOWED(&rule, "::1");
	CHECK_REFUSED(&rule, "127.0.0.1");
	/* Global addresses pass whatever is allowed. */
	CHECK_ALLOWED(&rule, "8.8.8.8");
}

TEST(an_endpoint_allows_one_address_at_one_port)
{
	struct lec_netrule rule = { 0 };
	struct sockaddr_storage ss;
	socklen_t len = sockaddr_of("127.0.0.1", 8000, &ss);

	CHECK_OK(lec_netrule_allow_endpoint(&rule, (struct sockaddr *)&ss,
					    len));
	CHECK_INT(allowed(&rule, "127.0.0.1", 8000), 1);
	CHECK_INT(allowed(&rule, "::ffff:127.0.0.1", 8000), 1);
	CHECK_INT(allowed(&rule, "127.0.0.1", 6379), 0);
	CHECK_INT(allowed(&rule, "127.0.0.2", 8000), 0);
	len = sockaddr_of("fd00::5", 443, &ss);
	CHECK_OK(lec_netrule_allow_endpoint(&rule, (struct sockaddr *)&ss,
					    len));
	CHECK_INT(allowed(&rule, "fd00::5", 443), 1);
	CHECK_INT(allowed(&rule, "fd00::5", 80), 0);
	CHECK_INT(allowed(&rule, "fd00::6", 443), 0);
}

TEST(networks_are_parsed_strictly)
{
	static const char *const bad[] = {
		"", "/8", "127.0.0.0/", "127.0.0.0/33", "127.0.0.0/+8",
		"127.0.0.0/ 8", "127.0.0.0/8x", "::/129", "127.0.0.1/8",
		"11.0.0.0/7", "fd00::1/8", "localhost", "127.0.0", "1.2.3.4.5",
		"fe80::1%eth0", "0x7f.0.0.1", "127.0.0.0/-1",
		"::ffff:127.0.0.1:80",
	};
	struct lec_netrule rule = { 0 };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (lec_netrule_allow(&rule, bad[i]) != LEC_EINVALID)
			FAIL_AT("'%s' was taken as a network", bad[i]);
	CHECK_INT(rule.n, 0);
	CHECK_ERR(lec_netrule_allow(&rule, "127.0.0.1/8"), LEC_EINVALID);
	CHECK(strstr(lec_error_last(), "bits set past its prefix") != NULL);
	CHECK_ERR(lec_netrule_allow(&rule, "nope"), LEC_EINVALID);
	CHECK(strstr(lec_error_last(), "'nope' is not an IPv4 or IPv6") !=
	      NULL);
	CHECK_ERR(lec_netrule_allow(NULL, "10.0.0.0/8"), LEC_EINVALID);
	CHECK_ERR(lec_netrule_allow(&rule, NULL), LEC_EINVALID);
	CHECK_OK(lec_netrule_allow(&rule, "0.0.0.0/0"));
	CHECK_ALLOWED(&rule, "127.0.0.1");
	CHECK_REFUSED(&rule, "::1");
}

TEST(a_rule_holds_a_bounded_number_of_networks)
{
	struct lec_netrule rule = { 0 };
	char net[32];
	int i;

	for (i = 0; i < LEC_NETRULE_ALLOW_MAX; i++) {
		snprintf(net, sizeof(net), "10.0.%d.0/24", i);
		CHECK_OK(lec_netrule_allow(&rule, net));
	}
	CHECK_ERR(lec_netrule_allow(&rule, "10.1.0.0/24"), LEC_ELIMIT);
	CHECK_INT(rule.n, LEC_NETRULE_ALLOW_MAX);
}

TEST(anything_but_an_ip_address_is_refused)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct sockaddr_storage ss;
	socklen_t len = sockaddr_of("8.8.8.8", 80, &ss);
	struct lec_netrule rule = { 0 };

	CHECK_INT(lec_netrule_check(NULL, (struct sockaddr *)&un, sizeof(un)),
		  0);
	CHECK_INT(lec_netrule_check(NULL, NULL, 0), 0);
	/* Too short for its family. */
	CHECK_INT(lec_netrule_check(NULL, (struct sockaddr *)&ss, len - 1), 0);
	CHECK_ERR(lec_netrule_allow_endpoint(&rule, (struct sockaddr *)&un,
					     sizeof(un)),
		  LEC_EINVALID);
	CHECK_INT(rule.n, 0);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(special_ranges_are_refused_and_their_neighbours_pass),
	TEST_ENTRY(ipv4_carried_in_ipv6_is_judged_as_ipv4),
	TEST_ENTRY(an_allowed_network_lets_exactly_its_addresses_through),
	TEST_ENTRY(an_endpoint_allows_one_address_at_one_port),
	TEST_ENTRY(networks_are_parsed_strictly),
	TEST_ENTRY(a_rule_holds_a_bounded_number_of_networks),
	TEST_ENTRY(anything_but_an_ip_address_is_refused),
};

LEC_TEST_MAIN(tests)
