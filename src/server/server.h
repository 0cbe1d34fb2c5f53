/*
 * The HTTP server's daemon (server.c), as `lectern serve` starts it: its
 * configuration, starting and stopping, and the address it listens on.
 * Only the CLI, the daemon itself and the site it keeps for requests
 * (request.h) include this; what handlers see of a request, its response
 * and the routes is handler.h's.
 */
#ifndef LECTERN_SRV_SERVER_H
#define LECTERN_SRV_SERVER_H

#include <stdint.h>

struct lec_netrule;

/* The X-Lectern header on every answer: the level of Lectern's API
 * extensions (cancel, progress, expand=last_build, v2 search on the API
 * host), for clients telling a Lectern from the hosted service. */
#define SRV_API_EXTENSIONS "1"

enum srv_edition {
	SRV_EDITION_COMMUNITY,
	SRV_EDITION_BUSINESS,
};

struct srv_config {
	const char *data_dir;
	const char *listen_host;   /* numeric IPv4/IPv6 address */
	unsigned short port;       /* 0 picks a free one */
	/* Listen on this unix socket instead (created mode 0600, a stale one
	 * replaced); NULL: listen_host:port. */
	const char *socket_path;
	/* ... and on listen_host:port too: the data directory's one engine,
	 * for the CLI here (the port) and an ssh context (the socket). */
	int socket_and_tcp;
	enum srv_edition edition;
	/* NULL: "localhost" with the port of the request's host, so docs
	 * links follow the port the client reached the server on. */
	const char *docs_domain;
	/* Where pull-request versions are served (--external-domain); NULL:
	 * "external.localhost" with the port of the request's host. */
	const char *external_domain;
	/* How long a closed pull request's files stay, in seconds
	 * (--external-grace; 0: LEC_EXTERNAL_GRACE_DEFAULT_S). */
	unsigned external_grace_s;
	/* Absolute URLs follow Forwarded (host=, proto=) or X-Forwarded-Host
	 * and X-Forwarded-Proto when set: only behind a reverse proxy that
	 * sets them, as a client could otherwise point links anywhere. */
	int trust_forwarded;
	/* The user a connection on the unix socket from the engine's own uid
	 * acts as (peer credentials, no token); 0: none. */
	int64_t owner_user_id;
	unsigned threads;          /* 0: one per CPU */
	/* Directories file:// repositories may lie in (lec_localrepo_check),
	 * NULL-terminated; NULL: none. Not copied: must outlive the server. */
	const char *const *local_roots;
	/* Outputs kept per version for page diffs when a mirror is
	 * refreshed (the pipeline's keep_builds, --keep-builds); 0: the
	 * engine's default. */
	unsigned keep_builds;
	/* Outgoing webhooks: the first retry's delay in milliseconds,
	 * doubling per try (0: SRV_HOOK_BACKOFF_DEFAULT_MS). */
	unsigned webhook_backoff_ms;
	/* Outgoing webhooks: how long a receiver gets to answer one try, in
	 * milliseconds (0: SRV_HOOK_TIMEOUT_DEFAULT_MS). */
	unsigned webhook_timeout_ms;
	/* Outgoing webhooks: the networks receivers may be on besides the
	 * globally reachable addresses (--webhook-allow); NULL: none. */
	const struct lec_netrule *webhook_allow;
	/* Imports per user an hour (--import-limit; 0:
	 * SRV_IMPORTS_PER_HOUR_DEFAULT) and builds waiting to start per
	 * owner (--queue-limit; 0: SRV_QUEUED_BUILDS_DEFAULT). */
	unsigned import_limit;
	unsigned queue_limit;
	/* What GET /api/v3/status/ says this engine is ("0.9.2"); NULL:
	 * unknown. Not copied: must outlive the server. */
	const char *version;
};

/* The daemon ------------------------------------------------------------- */

struct srv;

/* Start serving in background threads; *out is owned by the caller and
 * stopped with srv_stop. Returns 0, or -1 after printing why on stderr. */
int srv_start(struct srv **out, const struct srv_config *config);
/* The port actually bound (0 on a unix socket), and the base URL
 * ("http://127.0.0.1:8000", "http://localhost" on a unix socket). */
unsigned short srv_port(const struct srv *srv);
const char *srv_base_url(const struct srv *srv);
/* The docs domain builds bake into pages (READTHEDOCS_CANONICAL_URL):
 * the configured one, else "localhost[:<port>]". */
const char *srv_docs_domain_of(const struct srv *srv);
/* Where pull requests' previews are: the configured external domain, else
 * "external.localhost[:<port>]". */
const char *srv_external_domain_of(const struct srv *srv);
/* How many build workers run beside the server, for GET /api/v3/status/
 * (the pipeline starts after the server, which it needs; none when another
 * engine builds for the data directory). Until set: unknown (-1). */
void srv_set_workers(struct srv *srv, int workers);
/* Stop accepting, let in-flight requests finish, free everything.
 * Accepts NULL. */
void srv_stop(struct srv *srv);

#endif
