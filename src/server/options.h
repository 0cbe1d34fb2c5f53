/*
 * OPTIONS answers and the service's cross-origin rules (options.c), for
 * the router.
 */
#ifndef LECTERN_SRV_OPTIONS_H
#define LECTERN_SRV_OPTIONS_H

#include "handler.h"

/* Whether CORS is enabled on a (decoded) path: the search and embed APIs,
 * on the API host or under /_/. */
int srv_cors_enabled(const char *path);
/* Whether req is a CORS preflight (OPTIONS with
 * Access-Control-Request-Method), answered before routing on a path CORS
 * is enabled on. */
int srv_cors_is_preflight(struct srv_request *req);
/* Add the CORS headers of a path CORS is enabled on: Vary, and with an
 * Origin the allowed origin (and for OPTIONS the allowed headers, methods
 * and max age). */
void srv_cors_headers(struct srv_request *req, struct srv_response *res);
/* DRF's OPTIONS answer for route: 200 with {"name", "description",
 * "renders", "parses"} and the Allow header allow (owned by res from here
 * on). Returns res->status. */
int srv_respond_options(struct srv_response *res,
			const struct srv_route *route, char *allow);

#endif
