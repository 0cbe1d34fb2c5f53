/*
 * The address rule (netrule.h): the special-purpose ranges as a table,
 * networks parsed with inet_pton, and every address compared in one
 * form, 16 bytes of IPv6 with IPv4 as ::ffff:a.b.c.d, so one comparison
 * serves both families and a mapped address is its IPv4 address.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "internal.h"
#include "lectern/netrule.h"

/* Longest network text: an IPv6 address with an IPv4 tail and "/128". */
#define NET_TEXT_MAX (INET6_ADDRSTRLEN + sizeof("/128"))
/* IPv4 prefixes count from bit 96 of the mapped form. */
#define V4_OFFSET_BITS 96

/* What is refused unless allowed: the ranges of the IANA IPv4 and IPv6
 * special-purpose address registries that are not globally reachable,
 * and multicast. */
static const char *const special[] = {
	"0.0.0.0/8",       /* "this network": 0.0.0.0 reaches the host */
	"10.0.0.0/8",      /* private */
	"100.64.0.0/10",   /* shared address space (carrier-grade NAT) */
	"127.0.0.0/8",     /* loopback */
	"169.254.0.0/16",  /* link-local, where cloud metadata services are */
	"172.16.0.0/12",   /* private */
	"192.0.0.0/24",    /* IETF protocol assignments */
	"192.0.2.0/24",    /* documentation */
	"192.88.99.0/24",  /* 6to4 relay anycast */
	"192.168.0.0/16",  /* private */
	"198.18.0.0/15",   /* benchmarking */
	"198.51.100.0/24", /* documentation */
	"203.0.113.0/24",  /* documentation */
	"224.0.0.0/4",     /* multicast */
	"240.0.0.0/4",     /* reserved, and broadcast */
	"::/96",           /* ::, ::1 and the IPv4-compatible addresses */
	"64:ff9b:1::/48",  /* local-use NAT64 */
	"100::/64",        /* discard-only */
	"2001::/23",       /* IETF protocol assignments, Teredo among them */
	"2001:db8::/32",   /* documentation */
	"2002::/16",       /* 6to4, which carries an IPv4 address */
	"3fff::/20",       /* documentation */
	"5f00::/16",       /* segment routing (SRv6) identifiers */
	"fc00::/7",        /* unique local */
	"fe80::/10",       /* link-local */
	"fec0::/10",       /* site-local (deprecated) */
	"ff00::/8",        /* multicast */
};

/* IPv6 prefixes whose last 32 bits are an IPv4 address judged as such. */
static const char *const carries_ipv4[] = {
	"::ffff:0:0/96",   /* IPv4-mapped */
	"::ffff:0:0:0/96", /* IPv4-translated (RFC 2765, SIIT) */
	"64:ff9b::/96",    /* NAT64 */
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void v4_mapped(const void *v4, unsigned char out[16])
{
	memset(out, 0, 10);
	out[10] = out[11] = 0xff;
	memcpy(out + 12, v4, 4);
}

/* Whether the first bits of a and b are equal. */
static int same_prefix(const unsigned char a[16], const unsigned char b[16],
		       unsigned bits)
{
	unsigned whole = bits / 8, rest = bits % 8;
	unsigned char mask;

	if (memcmp(a, b, whole) != 0)
		return 0;
	if (rest == 0)
		return 1;
	mask = (unsigned char)(0xff << (8 - rest));
	return (a[whole] & mask) == (b[whole] & mask);
}

/* "ADDR[/PREFIX]" into net (port 0); -1 when it is not one, or has bits
 * set past its prefix (*loose then 1). */
static int parse_net(const char *text, struct lec_netrule_net *net,
		     int *loose)
{
	char addr[NET_TEXT_MAX];
	unsigned char v4[4];
	const char *slash = strchr(text, '/');
	size_t len = slash ? (size_t)(slash - text) : strlen(text);
	unsigned long prefix, max;
	char *end;
	unsigned i;

	*loose = 0;
	memset(net, 0, sizeof(*net));
	if (len == 0 || len >= sizeof(addr))
		return -1;
	memcpy(addr, text, len);
	addr[len] = '\0';
	if (inet_pton(AF_INET, addr, v4) == 1) {
		v4_mapped(v4, net->addr);
		max = 32;
	} else if (inet_pton(AF_INET6, addr, net->addr) == 1) {
		max = 128;
	} else {
		return -1;
	}
	prefix = max;
	if (slash) {
		/* Digits only: strtoul would take a sign or spaces. */
		if (slash[1] < '0' || slash[1] > '9')
			return -1;
		prefix = strtoul(slash + 1, &end, 10);
		if (*end != '\0' || prefix > max)
			return -1;
	}
	net->prefix = (unsigned)prefix + (max == 32 ? V4_OFFSET_BITS : 0);
	for (i = net->prefix; i < 128; i++)
		if (net->addr[i / 8] & (0x80 >> (i % 8))) {
			*loose = 1;
			return -1;
		}
	return 0;
}

/* Whether addr lies in the network written as text. A table entry that
 * does not parse matches everything, so a typo there refuses more, never
 * less (tests/engine/test_netrule.c tries an address inside and one
 * beside each range). */
static int in_net(const unsigned char addr[16], const char *text)
{
	struct lec_netrule_net net;
	int loose;

	if (parse_net(text, &net, &loose) < 0)
		return 1;
	return same_prefix(addr, net.addr, net.prefix);
}

/* addr's 16-byte form as written (raw; may be NULL) and as judged (an
 * IPv4 address carried in IPv6 made mapped), and its port; -1 for
 * anything but IPv4 and IPv6. */
static int normalize(const struct sockaddr *sa, size_t len,
		     unsigned char raw[16], unsigned char judged[16],
		     unsigned *port)
{
	unsigned char a[16];
	size_t i;

	if (sa == NULL)
		return -1;
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const void *)sa;

		v4_mapped(&in->sin_addr, a);
		*port = ntohs(in->sin_port);
	} else if (sa->sa_family == AF_INET6 &&
		   len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		memcpy(a, &in6->sin6_addr, 16);
		*port = ntohs(in6->sin6_port);
	} else {
		return -1;
	}
	if (raw)
		memcpy(raw, a, 16);
	memcpy(judged, a, 16);
	for (i = 0; i < COUNT(carries_ipv4); i++)
		if (in_net(a, carries_ipv4[i])) {
			v4_mapped(a + 12, judged);
			break;
		}
	return 0;
}

static int add(struct lec_netrule *rule, const struct lec_netrule_net *net)
{
	if (rule->n >= LEC_NETRULE_ALLOW_MAX)
		return lec__error(LEC_ELIMIT,
				  "at most %d allowed networks; write a wider "
				  "one instead",
				  LEC_NETRULE_ALLOW_MAX);
	rule->allow[rule->n++] = *net;
	return LEC_OK;
}

int lec_netrule_allow(struct lec_netrule *rule, const char *cidr)
{
	struct lec_netrule_net net;
	int loose;

	lec_error_clear();
	if (rule == NULL || cidr == NULL)
		return lec__error(LEC_EINVALID, "no network to allow");
	if (parse_net(cidr, &net, &loose) < 0)
		return lec__error(LEC_EINVALID,
				  loose ? "'%s' has address bits set past its "
					  "prefix length: write the network's "
					  "first address"
					: "'%s' is not an IPv4 or IPv6 network "
					  "(ADDRESS[/PREFIX])",
				  cidr);
	return add(rule, &net);
}

int lec_netrule_allow_endpoint(struct lec_netrule *rule,
			       const struct sockaddr *addr, size_t len)
{
	struct lec_netrule_net net = { .prefix = 128 };

	lec_error_clear();
	if (rule == NULL || normalize(addr, len, NULL, net.addr, &net.port) < 0)
		return lec__error(LEC_EINVALID, "not an IP address");
	return add(rule, &net);
}

/* An allowed network matches an address as written or as judged: a NAT64
 * network allows its addresses, an IPv4 one the same addresses carried in
 * IPv6. */
int lec_netrule_check(const struct lec_netrule *rule,
		      const struct sockaddr *addr, size_t len)
{
	unsigned char raw[16], a[16];
	unsigned port;
	size_t i;

	if (normalize(addr, len, raw, a, &port) < 0)
		return 0;
	for (i = 0; rule && i < rule->n; i++) {
		const struct lec_netrule_net *net = &rule->allow[i];

		if ((same_prefix(a, net->addr, net->prefix) ||
		     same_prefix(raw, net->addr, net->prefix)) &&
		    (net->port == 0 || net->port == port))
			return 1;
	}
	for (i = 0; i < COUNT(special); i++)
		if (in_net(a, special[i]))
			return 0;
	return 1;
}
