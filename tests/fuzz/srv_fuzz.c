/*
 * The server harnesses' shared request and response handling (srv_fuzz.h).
 */
#include "srv_fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

void srv_fuzz_request(struct srv_request *req, const char *raw_uri,
		      const uint8_t *body, size_t size)
{
	memset(req, 0, sizeof(*req));
	req->method = SRV_POST;
	req->method_name = "POST";
	req->raw_uri = fuzz_strndup((const uint8_t *)raw_uri, strlen(raw_uri));
	req->body = fuzz_strndup(body, size);
	req->body_len = size;
	memcpy(req->host, SRV_FUZZ_HOST, sizeof(SRV_FUZZ_HOST));
	memcpy(req->origin, SRV_FUZZ_ORIGIN, sizeof(SRV_FUZZ_ORIGIN));
}

void srv_fuzz_request_dispose(struct srv_request *req)
{
	size_t i;

	for (i = 0; i < req->nquery; i++) {
		free(req->query[i].key);
		free(req->query[i].value);
	}
	free(req->query);
	free(req->raw_uri);
	free(req->path);
	free(req->body);
	memset(req, 0, sizeof(*req));
}

void srv_fuzz_response_check_dispose(struct srv_response *res)
{
	cJSON *json;
	size_t i;

	FUZZ_CHECK(res->status >= 400 && res->status < 600,
		   "an error has an error status");
	FUZZ_CHECK(res->body != NULL, "an error has a body");
	FUZZ_CHECK(fuzz_utf8_valid(res->body, res->body_len),
		   "the error body is valid UTF-8");
	json = cJSON_ParseWithLength(res->body, res->body_len);
	FUZZ_CHECK(json != NULL, "the error body is JSON");
	cJSON_Delete(json);
	free(res->body);
	free(res->allow);
	free(res->location);
	for (i = 0; i < res->nextra; i++)
		free(res->extra[i].value);
	memset(res, 0, sizeof(*res));
}
