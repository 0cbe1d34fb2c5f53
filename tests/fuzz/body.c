/*
 * Fuzz target: JSON request bodies, in the server's order: the boundary
 * check every request passes (src/server/input.c srv_input_check_request),
 * the body's parse and character rules (srv_input_parse_json, which
 * srv_parse_body calls once the Content-Type is JSON), then the typed
 * field readers of src/server/body.c.
 *
 * Input: the body of a POST. Besides the sanitizers: a refused body gets
 * a 400 whose response is valid JSON in valid UTF-8 whatever the bytes
 * sent; an accepted one is an object whose strings are valid UTF-8 with no
 * control character but line breaks and tabs, and whose keys have none at
 * all (input.h); a refused field gets 400 with a valid JSON body too.
 */
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "fuzz.h"
#include "input.h"
#include "srv_fuzz.h"

#define URI "/api/v3/projects/"

static void refused(const struct srv_input_error *err)
{
	struct srv_response res;

	FUZZ_CHECK(err->status == 400, "a refused body is 400");
	memset(&res, 0, sizeof(res));
	srv_respond_input_error(&res, err);
	srv_fuzz_response_check_dispose(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct srv_input_error err;
	struct srv_request req;
	cJSON *body;

	if (size > SRV_MAX_BODY)
		return 0;
	srv_fuzz_request(&req, URI, data, size);
	if (srv_input_check_request(req.raw_uri, req.body, req.body_len,
				    &err) != 0) {
		refused(&err);
	} else if ((body = srv_input_parse_json(req.body, req.body_len,
						&err)) == NULL) {
		refused(&err);
	} else {
		FUZZ_CHECK(cJSON_IsObject(body), "a body is an object");
		srv_fuzz_check_strings(body);
		srv_fuzz_read_fields(body);
		cJSON_Delete(body);
	}
	srv_fuzz_request_dispose(&req);
	return 0;
}
