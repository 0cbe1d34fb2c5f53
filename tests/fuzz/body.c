/*
 * Fuzz target: JSON request bodies (src/server/respond.c srv_parse_body,
 * then the typed field readers of src/server/body.c).
 *
 * Input: the body of a POST with a JSON Content-Type. The body goes through
 * srv_parse_body as every write endpoint's does, then, once it is an
 * object, through a reader of each kind with the fields a project's create
 * reads (name, repository.url, tags, ...). Besides the sanitizers: a body
 * refused gets 400 or 415, a field refused gets 400, and each error
 * response is valid JSON in valid UTF-8 whatever the bytes sent.
 */
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "fuzz.h"
#include "srv_fuzz.h"

#define URI "/api/v3/projects/"
/* The widest integer range a handler reads (a redirect's position). */
#define INT_FIELD_MAX 1000000LL

/* A reader's answer; a refused field's error response is checked and
 * freed, so res is ready for the next reader. */
static int checked(int got, struct srv_response *res)
{
	if (got < 0) {
		FUZZ_CHECK(res->status == 400 || res->status == 500,
			   "a refused field is 400 (500: out of memory)");
		srv_fuzz_response_check_dispose(res);
	}
	return got;
}

/* Each kind of reader once, with the flags handlers use. */
static void read_fields(const cJSON *body)
{
	struct srv_response res;
	const cJSON *repo = NULL;
	const char *s, **list = NULL;
	size_t count;
	long long n;
	int b;

	memset(&res, 0, sizeof(res));
	checked(srv_body_string(body, "name", "name", SRV_FIELD_REQUIRED, &s,
				&res),
		&res);
	checked(srv_body_string(body, "homepage", "homepage",
				SRV_FIELD_NULLABLE | SRV_FIELD_BLANK, &s, &res),
		&res);
	if (checked(srv_body_object(body, "repository", "repository",
				    SRV_FIELD_REQUIRED, &repo, &res),
		    &res) == SRV_FIELD_PRESENT)
		checked(srv_body_string(repo, "url", "repository.url",
					SRV_FIELD_REQUIRED, &s, &res),
			&res);
	checked(srv_body_bool(body, "active", "active", 0, &b, &res), &res);
	checked(srv_body_int(body, "position", "position", 0, 0, INT_FIELD_MAX,
			     &n, &res),
		&res);
	checked(srv_body_int(body, "id", "id", 0, INT64_MIN, INT64_MAX, &n,
			     &res),
		&res);
	if (checked(srv_body_string_list(body, "tags", "tags", &list, &count,
					 &res),
		    &res) == SRV_FIELD_PRESENT)
		free(list);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct srv_request req;
	struct srv_response res;
	cJSON *body;

	if (size > SRV_MAX_BODY)
		return 0;
	srv_fuzz_request(&req, URI, data, size);
	memset(&res, 0, sizeof(res));
	body = srv_parse_body(&req, &res);
	if (body == NULL) {
		FUZZ_CHECK(res.status == 400 || res.status == 415,
			   "a refused body is 400");
		srv_fuzz_response_check_dispose(&res);
	} else {
		FUZZ_CHECK(cJSON_IsObject(body), "a body is an object");
		read_fields(body);
		cJSON_Delete(body);
	}
	srv_fuzz_request_dispose(&req);
	return 0;
}
