/*
 * Fuzz target: the server's request-URI handling, in srv_dispatch's
 * order: the boundary check (src/server/input.c srv_input_check_request),
 * the split and percent-decoding (router.c srv_parse_uri), then the query
 * readers every list endpoint runs: limit/offset (paginate.c),
 * fields/omit/expand (flex.c) and the next/previous links that re-encode
 * the query.
 *
 * Input: the request URI as libmicrohttpd hands it over (a C string, so it
 * stops at a NUL). Besides the sanitizers, the answers are checked: 0 or
 * one of the documented statuses, a decoded path from the root and a
 * decoded path and query in valid UTF-8 once the check let the URI in, at
 * most SRV_MAX_QUERY_PARAMS parameters, pages within SRV_PAGE_MAX, and
 * links and errors that are valid JSON.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "input.h"
#include "srv_fuzz.h"

/* A serialized object for fields/omit to cut down (a v3 project's
 * top-level keys, a few of them). */
#define SAMPLE_OBJECT                                                        \
	"{\"id\": 1, \"name\": \"Docs\", \"slug\": \"docs\", "                \
	"\"repository\": {\"url\": \"file:///srv/docs\"}, \"tags\": []}"

static void read_query(struct srv_request *req)
{
	struct srv_response res;
	struct srv_flex flex;
	struct lec_page page;
	cJSON *object, *envelope;
	char *text;

	srv_page_parse(req, &page);
	FUZZ_CHECK(page.limit >= 1 && page.limit <= SRV_PAGE_MAX,
		   "the page size is within SRV_PAGE_MAX");
	/* A count past this page and an offset: next and previous links. */
	envelope = srv_page_envelope(req, &page, page.offset + 2 * page.limit,
				     cJSON_CreateArray());
	FUZZ_CHECK(envelope != NULL, "an envelope is built");
	text = cJSON_PrintUnformatted(envelope);
	FUZZ_CHECK(text != NULL, "the envelope renders");
	FUZZ_CHECK(!fuzz_utf8_valid(req->raw_uri, strlen(req->raw_uri)) ||
			   fuzz_utf8_valid(text, strlen(text)),
		   "links of a UTF-8 URI are UTF-8");
	free(text);
	cJSON_Delete(envelope);
	memset(&res, 0, sizeof(res));
	if (srv_flex_parse(req, &flex, &res) < 0) {
		srv_fuzz_response_check_dispose(&res);
		return;
	}
	object = cJSON_Parse(SAMPLE_OBJECT);
	FUZZ_CHECK(object != NULL, "the sample object parses");
	srv_flex_apply(&flex, object);
	(void)srv_flex_expands(&flex, "repository");
	cJSON_Delete(object);
	srv_flex_dispose(&flex);
}

static int is_utf8(const char *s)
{
	return fuzz_utf8_valid(s, strlen(s));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct srv_input_error err;
	struct srv_request req;
	struct srv_response res;
	char *uri = fuzz_strndup(data, size);
	size_t i;
	int status;

	srv_fuzz_request(&req, uri, NULL, 0);
	free(uri);
	status = srv_input_check_request(req.raw_uri, NULL, 0, &err);
	if (status != 0) {
		FUZZ_CHECK(status == 400 || status == 414,
			   "a refused URI is 400 or 414");
		memset(&res, 0, sizeof(res));
		srv_respond_input_error(&res, &err);
		srv_fuzz_response_check_dispose(&res);
		srv_fuzz_request_dispose(&req);
		return 0;
	}
	status = srv_parse_uri(&req);
	FUZZ_CHECK(status == 0 || status == 400 || status == 404 ||
			   status == 414,
		   "0 or a parse error's status");
	if (status == 0) {
		FUZZ_CHECK(req.path != NULL && req.path[0] == '/',
			   "the path starts at the root");
		FUZZ_CHECK(req.nquery <= SRV_MAX_QUERY_PARAMS,
			   "at most SRV_MAX_QUERY_PARAMS parameters");
		FUZZ_CHECK(is_utf8(req.path), "a checked path is UTF-8");
		for (i = 0; i < req.nquery; i++)
			FUZZ_CHECK(is_utf8(req.query[i].key) &&
					   is_utf8(req.query[i].value),
				   "a checked query is UTF-8");
		read_query(&req);
	}
	srv_fuzz_request_dispose(&req);
	return 0;
}
