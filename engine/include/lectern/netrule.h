/*
 * The address rule: which IP addresses Lectern may connect to when a user
 * names the place (an outgoing webhook's URL, a mirror's remote and the
 * pages and redirects it points to).
 *
 * Without a rule, anyone who may add a webhook could make the server post
 * to its own loopback, the host's private network or a cloud metadata
 * service, and read from the deliveries list which ports answer. The rule
 * refuses the special-purpose addresses (loopback, unspecified, private,
 * link-local, carrier-grade NAT, multicast, documentation and the other
 * ranges of the IANA special-purpose registries that are not globally
 * reachable) unless an administrator allows a network (`lectern serve
 * --webhook-allow CIDR`). An IPv6 address that carries an IPv4 one
 * (IPv4-mapped ::ffff:0:0/96, NAT64 64:ff9b::/96) is judged as that IPv4
 * address, so [::ffff:127.0.0.1] is loopback.
 *
 * The rule judges the address a socket is about to connect to, after name
 * resolution, never a host name: the caller checks each address it
 * connects to (libcurl's CURLOPT_OPENSOCKETFUNCTION), so what was checked
 * is what is reached and a name that resolves differently the second time
 * (DNS rebinding) gains nothing.
 */
#ifndef LECTERN_NETRULE_H
#define LECTERN_NETRULE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Networks one rule allows: an administrator's few internal receivers,
 * and the addresses of the one host a mirror copies from; a longer list
 * is better written as a wider network. */
#define LEC_NETRULE_ALLOW_MAX 32

/* One allowed network. */
struct lec_netrule_net {
	unsigned char addr[16]; /* IPv6; an IPv4 address as ::ffff:a.b.c.d */
	unsigned prefix;        /* leading bits of addr that count, 0-128 */
	unsigned port;          /* 0: any port; else only this one */
};

/* The networks allowed beyond the globally reachable addresses. Zeroed:
 * none. */
struct lec_netrule {
	struct lec_netrule_net allow[LEC_NETRULE_ALLOW_MAX];
	size_t n;
};

struct sockaddr;

/**
 * Allow a network, written as an address with an optional prefix length:
 * "127.0.0.0/8", "fd00::/8", "10.1.2.3" (one address).
 * @return LEC_OK; LEC_EINVALID (not such a network, or host bits set past
 *         the prefix: the message says which); LEC_ELIMIT (the rule holds
 *         LEC_NETRULE_ALLOW_MAX already)
 */
int lec_netrule_allow(struct lec_netrule *rule, const char *cidr);

/**
 * Allow one address at one port: the endpoint a user named (a mirror's
 * remote API host, as it resolves).
 * @param addr a struct sockaddr_in or sockaddr_in6 of len bytes
 * @return LEC_OK; LEC_EINVALID (not an IP address); LEC_ELIMIT
 */
int lec_netrule_allow_endpoint(struct lec_netrule *rule,
			       const struct sockaddr *addr, size_t len);

/**
 * Whether a connection to addr may be opened: its address is globally
 * reachable, or the rule allows it (at its port, for an endpoint).
 * @param rule NULL: no network allowed beyond the global ones
 * @param addr a struct sockaddr of len bytes
 * @return 1 (allowed) or 0 (refused; also anything that is not an IPv4 or
 *         IPv6 address)
 */
int lec_netrule_check(const struct lec_netrule *rule,
		      const struct sockaddr *addr, size_t len);

#ifdef __cplusplus
}
#endif
#endif
