/*
 * The server harnesses' shared request and response handling (srv_fuzz.h).
 */
#include "srv_fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "fuzz.h"

/* The widest integer range a handler reads (a redirect's position). */
#define INT_FIELD_MAX 1000000LL

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

void srv_fuzz_read_fields(const cJSON *body)
{
	struct srv_response res;
	const cJSON *repo = NULL;
	const char *s, **list = NULL;
	size_t count;
	long long n;
	int b, null;

	memset(&res, 0, sizeof(res));
	checked(srv_body_string(body, "name", "name", SRV_FIELD_REQUIRED, &s,
				&res),
		&res);
	checked(srv_body_string(body, "homepage", "homepage",
				SRV_FIELD_NULLABLE | SRV_FIELD_BLANK, &s, &res),
		&res);
	checked(srv_body_string(body, "alias", "alias", SRV_FIELD_NULLABLE, &s,
				&res),
		&res);
	if (checked(srv_body_object(body, "repository", "repository",
				    SRV_FIELD_REQUIRED, &repo, &res),
		    &res) == SRV_FIELD_PRESENT)
		checked(srv_body_string(repo, "url", "repository.url",
					SRV_FIELD_REQUIRED, &s, &res),
			&res);
	checked(srv_body_bool(body, "active", "active", 0, &b, &res), &res);
	checked(srv_body_bool(body, "enabled", "enabled", SRV_FIELD_FORM_FALSE,
			      &b, &res),
		&res);
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
	srv_body_value(body, "http_status", 0, &null);
	srv_body_get(body, "child");
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

void srv_fuzz_check_strings(const cJSON *node)
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
		srv_fuzz_check_strings(item);
	}
}
