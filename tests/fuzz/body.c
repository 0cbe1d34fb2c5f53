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

/* Whether s holds a C0 control (line breaks and tabs aside when allowed),
 * DEL, or a C1 control (U+0080..U+009F, C2 80..C2 9F in UTF-8). */
static int has_control(const char *s, int breaks_allowed)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++) {
		if (*p < 0x20 && !(breaks_allowed && strchr("\t\n\r", *p)))
			return 1;
		if (*p == 0x7f || (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F))
			return 1;
	}
	return 0;
}

/* input.h's promises about every key and string of an accepted body; the
 * depth is bounded by SRV_MAX_JSON_DEPTH, which the parse enforces. */
static void check_strings(const cJSON *node)
{
	const cJSON *item;

	cJSON_ArrayForEach(item, node) {
		if (cJSON_IsObject(node)) {
			FUZZ_CHECK(fuzz_utf8_valid(item->string,
						   strlen(item->string)),
				   "a key is UTF-8");
			FUZZ_CHECK(!has_control(item->string, 0),
				   "a key has no control character");
		}
		if (cJSON_IsString(item)) {
			FUZZ_CHECK(fuzz_utf8_valid(item->valuestring,
						   strlen(item->valuestring)),
				   "a string is UTF-8");
			FUZZ_CHECK(!has_control(item->valuestring, 1),
				   "a string has no control character but "
				   "line breaks and tabs");
		}
		check_strings(item);
	}
}

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
		check_strings(body);
		read_fields(body);
		cJSON_Delete(body);
	}
	srv_fuzz_request_dispose(&req);
	return 0;
}
