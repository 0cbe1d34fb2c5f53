/*
 * The egress proxy: the only way from a build's sandbox to the network.
 *
 * A build command that needs the network (the install step's `pip wheel`)
 * runs in a network namespace of its own, which holds nothing but its own
 * loopback: no route to the host's loopback, to its local network, or to
 * the internet. Inside, Lectern's forwarder (`lectern __egress FD -- CMD`,
 * lec_egress_forward) listens on the namespace's 127.0.0.1, points the
 * command's HTTP_PROXY and HTTPS_PROXY there, and hands each connection it
 * accepts, as a descriptor over the unix socket FD, to the engine. The
 * engine's end (lec_egress_start) is an HTTP proxy: it takes CONNECT
 * (https) and absolute-form http:// requests, resolves the host itself,
 * holds every address to the address rule (netrule.h), connects to the
 * address it checked and no other (so a name that resolves elsewhere the
 * second time gains nothing), and relays bytes both ways through bounded
 * buffers until the command's time limit. A refused destination is
 * answered 403 with the reason.
 *
 * So pip, git fetching a VCS requirement over https, and whatever code of
 * the repository runs meanwhile (setup.py, a build backend) reach public
 * addresses through the proxy, and the host's loopback and local network
 * not at all. Beyond the public addresses the rule allows only what the
 * caller adds: the package index the server's administrator configured
 * (lec_egress_allow_url), never one a project names.
 *
 * Why descriptors over an inherited socket, not a proxy socket in the
 * build's directory: nothing of the way out lies on a filesystem the build
 * can write, so a build can neither replace it nor make the engine create
 * it through a link of the build's; and each connection's bytes are
 * relayed once, by the engine, straight from the sandbox's own socket.
 */
#ifndef LECTERN_EGRESS_H
#define LECTERN_EGRESS_H

#include <stddef.h>

#include "lectern/netrule.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The lectern subcommand that runs the forwarder in the sandbox: not a
 * user command (absent from --help), like the git helper. */
#define LEC_EGRESS_HELPER_WORD "__egress"

/* A request's head (request line and headers): a package manager's are a
 * few hundred bytes; long URLs and cookies fit many times over. */
#define LEC_EGRESS_HEAD_MAX 16384
/* A host name's length, as DNS bounds it. */
#define LEC_EGRESS_HOST_MAX 253
/* Connections one command may hold open at once: pip and git use a few;
 * beyond this a flood of connections only costs the engine threads. */
#define LEC_EGRESS_MAX_CONNECTIONS 32

/* A request the proxy takes, as lec_egress_parse reads it. */
struct lec_egress_request {
	int tunnel; /* 1: CONNECT, then bytes as they come; 0: http:// */
	char host[LEC_EGRESS_HOST_MAX + 1]; /* a name or an address; an
					       IPv6 one without brackets */
	unsigned port;
	size_t head_len; /* bytes of the input the head took, through the
			    empty line that ends it */
	/* http://: the head to send the server (origin-form target, Host
	 * from the URL, the proxy's and hop-by-hop headers dropped,
	 * Connection: close), owned; NULL for a tunnel. */
	char *upstream;
	size_t upstream_len;
};

/**
 * Read a request's head: `CONNECT host:port HTTP/1.x` or `METHOD
 * http://host[:port]/path HTTP/1.x`, then its headers, each line ended by
 * CRLF (a bare CR or LF, a folded or nameless header, a NUL or a control
 * character are refused, so the proxy and the server cannot read one
 * request two ways).
 * @param data, len what the client has sent so far
 * @param out   filled on LEC_OK (dispose it); zeroed otherwise
 * @return LEC_OK; 1 when data holds no complete head yet (read more);
 *         LEC_EINVALID (not a request the proxy takes: the message says
 *         why in a line fit for the client); LEC_ELIMIT (the head is longer
 *         than LEC_EGRESS_HEAD_MAX); LEC_ENOMEM
 */
int lec_egress_parse(const char *data, size_t len,
		     struct lec_egress_request *out);

/** Free what a parsed request holds (not the struct). Accepts NULL. */
void lec_egress_request_dispose(struct lec_egress_request *req);

/**
 * Allow, in rule, the endpoints an http:// or https:// URL names: each
 * address its host resolves to now, at its port (80 or 443 by default),
 * unless the rule allows the address already. For what a server's
 * administrator configured (a package index on the local network).
 * @return LEC_OK; LEC_EINVALID (not an http(s) URL with a host);
 *         LEC_ENOTFOUND (the host does not resolve); LEC_ELIMIT (the rule
 *         is full: see netrule.h)
 */
int lec_egress_allow_url(struct lec_netrule *rule, const char *url);

/**
 * Whether the proxy of a command with rule could reach the host of an
 * http(s) URL now: its name resolved, an address the rule allows
 * connected to within timeout_ms (and closed again). For the install
 * step, which goes without the network rather than let pip retry an
 * index it cannot reach.
 * @return LEC_OK; LEC_EINVALID (not an http(s) URL); LEC_ENOTFOUND (the
 *         host does not resolve); LEC_EIO (refused by the rule, or no
 *         connection: the message says which)
 */
int lec_egress_probe(const struct lec_netrule *rule, const char *url,
		     int timeout_ms);

/* One command's proxy; its fields are egress.c's. */
struct lec_egress;

/* What a proxy did, for the build's log. */
struct lec_egress_stats {
	unsigned connections; /* connections the command opened */
	unsigned refused;     /* destinations the rule refused */
	/* The first one refused, as "host:port" ("" none). */
	char first_refused[LEC_EGRESS_HOST_MAX + 8];
};

/**
 * Start a proxy for one command, on a thread of its own (and one per
 * connection).
 * @param out          the proxy, owned by the caller (lec_egress_free)
 * @param rule         the addresses allowed beyond the public ones
 *                     (copied); NULL: none
 * @param time_limit_s the command's time limit: no connection outlives it
 *                     (0: none)
 * @param command_fd   the command's end of the proxy's socket, close-on-
 *                     exec: the runner hands it to the command
 *                     (LEC_RUNNER_NET_EGRESS); owned by the caller, who
 *                     closes it once the command has ended
 * @return LEC_OK; LEC_ERROR (a socket or thread could not be made: the
 *         message says which); LEC_ENOMEM
 */
int lec_egress_start(struct lec_egress **out, const struct lec_netrule *rule,
		     unsigned time_limit_s, int *command_fd);

/**
 * Stop the proxy: no connection is taken after this returns, and every
 * open one ends at once (one waiting for its name to resolve ends when the
 * resolver answers, without connecting). Stopping twice is harmless.
 */
void lec_egress_stop(struct lec_egress *egress);

/** What the proxy did so far. */
void lec_egress_stats(struct lec_egress *egress, struct lec_egress_stats *out);

/** Stop the proxy (lec_egress_stop) and free it. Accepts NULL. */
void lec_egress_free(struct lec_egress *egress);

/**
 * The forwarder, in the sandbox: listen on 127.0.0.1 (a free port of the
 * sandbox's own namespace), set HTTP_PROXY, HTTPS_PROXY, http_proxy and
 * https_proxy to it and NO_PROXY, no_proxy empty in this process's
 * environment, run argv (looked up on PATH) with it, and hand each
 * connection accepted to control_fd until the command has exited. The
 * command does not inherit control_fd.
 * @param status the command's exit status, or 128 + the signal that
 *               killed it (127 when it could not be run)
 * @return LEC_OK once the command has ended; LEC_EINVALID (control_fd is
 *         not a socket, no command); LEC_ERROR (could not listen or start
 *         the command: the message says why)
 */
int lec_egress_forward(int control_fd, const char *const *argv, int *status);

#ifdef __cplusplus
}
#endif
#endif
