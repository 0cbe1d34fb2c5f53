/*
 * What the server's harnesses (uri.c, body.c) share: a request as the
 * server builds one from libmicrohttpd's callbacks, without a connection,
 * and the checks every error response must pass.
 */
#ifndef LEC_SRV_FUZZ_H
#define LEC_SRV_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "handler.h"

/* The host and origin links are built on: srv_request_host's and
 * srv_request_origin's per-request caches are filled with them, so no Host
 * header, Forwarded rule or server configuration is consulted. */
#define SRV_FUZZ_HOST "localhost:8000"
#define SRV_FUZZ_ORIGIN "http://" SRV_FUZZ_HOST

/* A request for raw_uri (copied) with body (size bytes, copied and
 * NUL-terminated as the server stores it); no connection, no user. */
void srv_fuzz_request(struct srv_request *req, const char *raw_uri,
		      const uint8_t *body, size_t size);
void srv_fuzz_request_dispose(struct srv_request *req);

/* Check what an error response must be (a JSON body in valid UTF-8, even
 * for bytes that were not), then free it and zero res for the next use. */
void srv_fuzz_response_check_dispose(struct srv_response *res);

/* Each kind of body reader (body.h) once, with the flags handlers use;
 * each refused field's error response is checked. */
void srv_fuzz_read_fields(const cJSON *body);
/* input.h's promises about every key and string of an accepted body, JSON
 * or form: UTF-8, no control character in a key, none but line breaks and
 * tabs in a string; the depth is bounded by SRV_MAX_JSON_DEPTH, which the
 * parsers enforce. */
void srv_fuzz_check_strings(const cJSON *node);

#endif
