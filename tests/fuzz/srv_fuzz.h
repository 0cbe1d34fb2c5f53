/*
 * What the server's harnesses (uri.c, body.c) share: a request as the
 * server builds one from libmicrohttpd's callbacks, without a connection,
 * and the checks every error response must pass.
 */
#ifndef LEC_SRV_FUZZ_H
#define LEC_SRV_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "server.h"

/* The origin links are built on (srv_request_origin's cache, set so no
 * Host header or server is needed). */
#define SRV_FUZZ_ORIGIN "http://localhost:8000"

/* A request for raw_uri (copied) with body (size bytes, copied and
 * NUL-terminated as the server stores it); no connection, no user. */
void srv_fuzz_request(struct srv_request *req, const char *raw_uri,
		      const uint8_t *body, size_t size);
void srv_fuzz_request_dispose(struct srv_request *req);

/* Check what an error response must be (a JSON body in valid UTF-8, even
 * for bytes that were not), then free it and zero res for the next use. */
void srv_fuzz_response_check_dispose(struct srv_response *res);

#endif
