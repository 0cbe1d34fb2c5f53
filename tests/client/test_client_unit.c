/*
 * The API client's pieces that need no server: DRF error bodies flattened
 * into one line, the retry policy (which statuses and methods retry, backoff
 * bounds, Retry-After in seconds and as an HTTP date, the cap), URL and query
 * encoding, the token's origin rule, and the model parsers on the hosted
 * service's own shapes (extra fields, missing ones, v2 vs v3).
 */
#include <stdlib.h>
#include <time.h>

#include "client_harness.h"
#include "client_internal.h"

static struct lc_client *client(const char *url, const char *token,
				const char *docs)
{
	struct lc_client_options o = { 0 };
	struct lc_client *c = NULL;
	struct lc_error err;

	o.api_url = url;
	o.token = token;
	o.docs_domain = docs;
	CHECK_OK(lc_client_new(&c, &o, &err), &err);
	return c;
}

static void flat(const char *body, const char *expected)
{
	cJSON *j = cJSON_Parse(body);
	char buf[LC_ERROR_MESSAGE_MAX];

	CHECK(j != NULL);
	lc__flatten_error(j, buf, sizeof(buf));
	CHECK_STR(buf, expected);
	cJSON_Delete(j);
}

/* Without colours (a pipe, the TUI's log, any text but a build's output):
 * every escape goes, a sequence cut off at the end too. */
TEST(terminal_text_without_colours)
{
	char log[] = "\x1b[31mERROR\x1b[0m -  plugin\x1b[K\n\x1b]8;;x\x1b\\ok";
	char cut[] = "tail \x1b[3";
	char line[] = "50%\r60%\r\n";

	CHECK_INT((int)lc_terminal_text(log, strlen(log), LC_TERMINAL_TEXT), 18);
	CHECK_STR(log, "ERROR -  plugin\nok");
	CHECK_INT((int)lc_terminal_text(cut, strlen(cut), LC_TERMINAL_TEXT), 5);
	CHECK_STR(cut, "tail ");
	/* A carriage return stays only in a build's output. */
	CHECK_INT((int)lc_terminal_text(line, strlen(line), LC_TERMINAL_TEXT), 7);
	CHECK_STR(line, "50%60%\n");
}

/* A hostile build's output reaches the reader's terminal with its colours
 * only: no title, clipboard (OSC 52), cursor move, erase, bell or C1. */
TEST(terminal_text_keeps_only_colours)
{
	char log[] = "\x1b[1;31mERROR\x1b[0m \x1b]0;owned\a\x1b]52;c;ZXZpbA==\x1b\\"
		     "a\x1b[2J\x1b[1A\x1b[?1049h\bb\x07\tc\r\n\xc2\x9b" "6n\xc3\xa9\x7f.";
	const char *want = "\x1b[1;31mERROR\x1b[0m ab\tc\r\n6n\xc3\xa9.";

	CHECK_INT((int)lc_terminal_text(log, strlen(log),
					LC_TERMINAL_COLOURS | LC_TERMINAL_RETURNS),
		  (int)strlen(want));
	CHECK_STR(log, want);
}

/* C1 controls go however they are written; characters whose UTF-8 has
 * bytes 0x80..0x9F stay, and so do other bytes of malformed UTF-8. */
TEST(terminal_text_c1)
{
	char text[] = "a\xc2\x9b" "2J"   /* U+009B, CSI */
		      "\x9b" "2J"        /* a raw 8-bit CSI */
		      "\xc2\x85\xc2\xa0" /* NEL, then a no-break space */
		      "\xd0\x80\xe2\x82\xac\xf0\x9f\x98\x80" /* U+0400, euro, U+1F600 */
		      "\xe0\x82\x80"     /* an overlong U+0080 */
		      "\xed\xa0\x80"     /* a surrogate */
		      "\xff\xc2";        /* stray bytes, one cut off */
	const char *want = "a2J2J\xc2\xa0\xd0\x80\xe2\x82\xac\xf0\x9f\x98\x80"
			   "\xe0\xed\xa0\xff\xc2";

	CHECK_INT((int)lc_terminal_text(text, strlen(text), LC_TERMINAL_TEXT),
		  (int)strlen(want));
	CHECK_STR(text, want);
}

TEST(flatten_drf_bodies)
{
	flat("{\"detail\":\"Invalid token.\"}", "Invalid token.");
	flat("{\"name\":[\"This field is required.\"]}",
	     "name: This field is required.");
	flat("{\"name\":[\"This field is required.\"],"
	     "\"repository\":{\"url\":[\"Invalid scheme for URL\"]}}",
	     "name: This field is required.; "
	     "repository.url: Invalid scheme for URL");
	flat("{\"non_field_errors\":[\"Project with slug already exists.\"]}",
	     "Project with slug already exists.");
	flat("[\"Invalid page\"]", "Invalid page");
	flat("[\"one\",\"two\"]", "one; two");
	flat("{\"from_url\":[\"a\",\"b\"]}", "from_url: a b");
	flat("{\"error\":\"Invalid arguments. Please provide \\\"url\\\".\"}",
	     "Invalid arguments. Please provide \"url\".");
	flat("{\"error\":\"disabled\",\"msg\":\"List endpoint have been "
	     "disabled.\"}", "List endpoint have been disabled.");
	flat("{\"detail\":\"line one\\nline two\"}", "line one line two");
	flat("{}", "");
	flat("{\"count\":3}", "count: 3");
}

TEST(flatten_cuts_long_bodies)
{
	cJSON *j = cJSON_CreateObject();
	char *big = malloc(2000);
	char buf[16];

	memset(big, 'x', 1999);
	big[1999] = '\0';
	memcpy(big, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 16);
	cJSON_AddStringToObject(j, "detail", big);
	lc__flatten_error(j, buf, sizeof(buf));
	/* 15 bytes would split the 8th two-byte character: cut before it. */
	CHECK_INT(strlen(buf), 14);
	lc__flatten_error(NULL, buf, sizeof(buf));
	CHECK_STR(buf, "");
	cJSON_Delete(j);
	free(big);
}

TEST(retry_policy_statuses_and_methods)
{
	struct lc_client *c = client("http://127.0.0.1:1", NULL, NULL);
	long long now = (long long)time(NULL);
	long d;

	/* 5xx: idempotent methods only. */
	d = lc__retry_delay(c, "GET", 1, 500, NULL, now);
	CHECK(d >= LC_BACKOFF_BASE_MS / 2 && d <= LC_BACKOFF_BASE_MS);
	d = lc__retry_delay(c, "DELETE", 1, 503, NULL, now);
	CHECK(d >= 0);
	CHECK_INT(lc__retry_delay(c, "POST", 1, 500, NULL, now), -1);
	CHECK_INT(lc__retry_delay(c, "PATCH", 1, 502, NULL, now), -1);
	/* 4xx other than 429 never. */
	CHECK_INT(lc__retry_delay(c, "GET", 1, 404, NULL, now), -1);
	CHECK_INT(lc__retry_delay(c, "GET", 1, 400, "1", now), -1);
	/* 429 for every method, Retry-After honoured. */
	CHECK_INT(lc__retry_delay(c, "POST", 1, 429, "2", now), 2000);
	CHECK_INT(lc__retry_delay(c, "GET", 1, 429, "0", now), 0);
	/* Beyond the cap: give up at once. */
	CHECK_INT(lc__retry_delay(c, "GET", 1, 429, "61", now), -1);
	CHECK_INT(lc__retry_delay(c, "GET", 1, 429, "99999999999999999999", now), -1);
	/* No usable Retry-After: backoff. */
	d = lc__retry_delay(c, "POST", 1, 429, "soon", now);
	CHECK(d >= LC_BACKOFF_BASE_MS / 2 && d <= LC_BACKOFF_BASE_MS);
	/* The last attempt is the last. */
	CHECK_INT(lc__retry_delay(c, "GET", LC_MAX_ATTEMPTS, 500, NULL, now), -1);
	CHECK_INT(lc__retry_delay(c, "GET", LC_MAX_ATTEMPTS, 429, "1", now), -1);
	lc_client_free(c);
}

TEST(retry_backoff_grows_with_jitter)
{
	struct lc_client_options o = { 0 };
	struct lc_client *c = NULL;
	struct lc_error err;
	long seen_min = LC_BACKOFF_MAX_MS, seen_max = 0;
	int attempt, i;

	o.api_url = "http://127.0.0.1:1";
	o.max_attempts = 10;
	CHECK_OK(lc_client_new(&c, &o, &err), &err);
	for (attempt = 1; attempt < 10; attempt++) {
		long full = LC_BACKOFF_BASE_MS << (attempt - 1);

		if (full > LC_BACKOFF_MAX_MS)
			full = LC_BACKOFF_MAX_MS;
		for (i = 0; i < 50; i++) {
			long d = lc__retry_delay(c, "GET", attempt, 500, NULL, 0);

			CHECK(d >= full / 2 && d <= full);
			if (attempt == 1 && d < seen_min)
				seen_min = d;
			if (attempt == 1 && d > seen_max)
				seen_max = d;
		}
	}
	/* Jitter: 50 draws are not all the same. */
	CHECK(seen_min < seen_max);
	lc_client_free(c);
}

TEST(retry_after_http_date)
{
	struct lc_client *c = client("http://127.0.0.1:1", NULL, NULL);
	long long now = 1700000000LL; /* Tue, 14 Nov 2023 22:13:20 GMT */

	CHECK_INT(lc__retry_delay(c, "GET", 1, 429,
				  "Tue, 14 Nov 2023 22:13:25 GMT", now), 5000);
	/* A date in the past: retry at once. */
	CHECK_INT(lc__retry_delay(c, "GET", 1, 429,
				  "Tue, 14 Nov 2023 22:00:00 GMT", now), 0);
	/* An hour ahead: over the cap. */
	CHECK_INT(lc__retry_delay(c, "GET", 1, 429,
				  "Tue, 14 Nov 2023 23:13:20 GMT", now), -1);
	/* 503 with Retry-After waits what it says. */
	CHECK_INT(lc__retry_delay(c, "GET", 1, 503, "3", now), 3000);
	lc_client_free(c);
}

TEST(urls_and_query_encoding)
{
	struct lc_client *c = client("http://127.0.0.1:8000/", NULL, NULL);
	struct lc_query q = { 0 };
	struct lc_error err;
	char *url = NULL;

	CHECK_OK(lc_query_add(&q, "fields", "name,slug"), &err);
	CHECK_OK(lc_query_add(&q, "name", "a b&c=d/é"), &err);
	CHECK_OK(lc_query_add_int(&q, "limit", 5), &err);
	CHECK_INT(lc_query_add(&q, NULL, "x"), LC_EINVAL);
	CHECK_INT(lc_query_add(&q, "x", NULL), LC_EINVAL);
	CHECK_INT(lc__url(c, "/api/v3/projects/", &q, &url), LC_OK);
	CHECK_STR(url, "http://127.0.0.1:8000/api/v3/projects/?fields=name%2Cslug"
		       "&name=a%20b%26c%3Dd%2F%C3%A9&limit=5");
	free(url);
	/* A path with a query already, and one without a leading slash. */
	CHECK_INT(lc__url(c, "api/v3/projects/?expand=x", &q, &url), LC_OK);
	CHECK(strncmp(url, "http://127.0.0.1:8000/api/v3/projects/?expand=x&fields=", 55) == 0);
	free(url);
	/* An absolute URL (a next link) is used as is. */
	CHECK_INT(lc__url(c, "https://readthedocs.org/api/v3/projects/?limit=10&offset=10",
			  NULL, &url), LC_OK);
	CHECK_STR(url, "https://readthedocs.org/api/v3/projects/?limit=10&offset=10");
	free(url);
	CHECK_INT(lc__url(c, NULL, NULL, &url), LC_EINVAL);
	lc_query_dispose(&q);
	CHECK_INT(q.len, 0);
	lc_query_dispose(&q);
	lc_query_dispose(NULL);
	lc_client_free(c);
}

TEST(client_options_validated)
{
	struct lc_client_options o = { 0 };
	struct lc_client *c = NULL;
	struct lc_error err;

	CHECK_RC(lc_client_new(&c, NULL, &err), LC_EINVAL, &err);
	o.api_url = "ftp://example.org";
	CHECK_RC(lc_client_new(&c, &o, &err), LC_EINVAL, &err);
	CHECK_STR(err.message, "the API URL must start with http:// or https://");
	CHECK(c == NULL);
	o.api_url = "http://";
	CHECK_RC(lc_client_new(&c, &o, &err), LC_EINVAL, &err);
	o.api_url = "http://x";
	o.token = "abc\r\nX-Evil: 1";
	CHECK_RC(lc_client_new(&c, &o, &err), LC_EINVAL, &err);
	CHECK_STR(err.message, "the token contains a line break");
	CHECK(c == NULL);
	/* err may be NULL. */
	CHECK_INT(lc_client_new(&c, &o, NULL), LC_EINVAL);
	lc_client_free(NULL);
	CHECK_STR(lc_user_agent(), "lectern/" LC_VERSION_FOR_TESTS);
	CHECK_STR(lc_code_str(LC_ETIMEOUT), "timeout");
	CHECK_STR(lc_code_str(42), "unknown error");
}

TEST(docs_domain_defaults)
{
	struct lc_client *c = client("http://127.0.0.1:8123", NULL, NULL);

	/* Lectern serves <slug>.localhost:<port>; an IP takes no subdomain. */
	CHECK_STR(c->docs_scheme, "http");
	CHECK_STR(c->docs_host, "localhost:8123");
	lc_client_free(c);
	c = client("https://readthedocs.org", "t", "readthedocs.io");
	CHECK_STR(c->docs_scheme, "https");
	CHECK_STR(c->docs_host, "readthedocs.io");
	CHECK_STR(c->api_origin, "https://readthedocs.org:443");
	lc_client_free(c);
	c = client("https://api.example.com:8443/", NULL, "http://docs.test:81/");
	CHECK_STR(c->docs_scheme, "http");
	CHECK_STR(c->docs_host, "docs.test:81");
	CHECK_STR(c->api_url, "https://api.example.com:8443");
	lc_client_free(c);
}

/* The hosted service's project (notes §1.5), extra fields included. */
static const char *real_project =
	"{\"_links\":{\"_self\":\"/api/v3/projects/pip/\"},"
	"\"created\":\"2019-04-29T10:00:00Z\",\"default_branch\":\"main\","
	"\"default_version\":\"stable\",\"external_builds_privacy_level\":\"public\","
	"\"homepage\":null,\"id\":7,\"language\":{\"code\":\"en\",\"name\":\"English\"},"
	"\"modified\":\"2019-04-29T12:00:00.768630Z\",\"name\":\"pip\","
	"\"privacy_level\":\"public\",\"programming_language\":{\"code\":\"py\","
	"\"name\":\"Python\"},\"readthedocs_yaml_path\":null,"
	"\"repository\":{\"type\":\"git\",\"url\":\"https://github.com/pypa/pip\"},"
	"\"single_version\":false,\"slug\":\"pip\",\"subproject_of\":{\"_links\":{},"
	"\"slug\":\"pypa\"},\"tags\":[\"packaging\",\"python\",3],"
	"\"translation_of\":null,\"urls\":{\"documentation\":"
	"\"https://pip.readthedocs.io/en/stable/\",\"downloads\":null},"
	"\"users\":[{\"username\":\"dstufft\"}],"
	"\"versioning_scheme\":\"multiple_versions_with_translations\"}";

TEST(parse_project_v3_real_shape)
{
	cJSON *j = cJSON_Parse(real_project);
	struct lc_project *p = NULL;
	struct lc_error err;
	char *text;

	CHECK_OK(lc_project_parse(j, &p, &err), &err);
	CHECK_INT(p->id, 7);
	CHECK_STR(p->slug, "pip");
	CHECK_STR(p->name, "pip");
	CHECK_STR(p->language, "en");
	CHECK_STR(p->programming_language, "py");
	CHECK_STR(p->repository_url, "https://github.com/pypa/pip");
	CHECK_STR(p->repository_type, "git");
	CHECK(p->homepage == NULL);
	CHECK_STR(p->default_version, "stable");
	CHECK_STR(p->documentation_url, "https://pip.readthedocs.io/en/stable/");
	CHECK_STR(p->subproject_of, "pypa");
	CHECK(p->translation_of == NULL);
	CHECK_STR(p->modified, "2019-04-29T12:00:00.768630Z");
	/* The non-string tag is skipped, not fatal. */
	CHECK_INT(p->tags_len, 2);
	CHECK_STR(p->tags[1], "python");
	/* raw is a copy of what was sent, for --json. */
	text = cJSON_PrintUnformatted(p->raw);
	CHECK(strstr(text, "\"versioning_scheme\"") != NULL);
	cJSON_free(text);
	lc_project_free(p);
	cJSON_Delete(j);
	lc_project_free(NULL);
}

TEST(parse_project_v2_and_minimal)
{
	cJSON *j = cJSON_Parse(
		"{\"id\":3,\"name\":\"Pip\",\"slug\":\"pip\",\"description\":\"\","
		"\"language\":\"es\",\"programming_language\":\"py\","
		"\"repo\":\"https://github.com/pypa/pip\",\"repo_type\":\"git\","
		"\"default_version\":\"latest\",\"default_branch\":null,"
		"\"documentation_type\":null,\"users\":[1],"
		"\"canonical_url\":\"http://pip.readthedocs.io/en/latest/\","
		"\"custom_prefix\":null}");
	cJSON *min = cJSON_Parse("{\"name\":\"only\"}");
	cJSON *arr = cJSON_Parse("[1]");
	struct lc_project *p = NULL;
	struct lc_error err;

	CHECK_OK(lc_project_parse(j, &p, &err), &err);
	CHECK_STR(p->language, "es");
	CHECK_STR(p->repository_url, "https://github.com/pypa/pip");
	CHECK_STR(p->documentation_url, "http://pip.readthedocs.io/en/latest/");
	CHECK(p->default_branch == NULL);
	lc_project_free(p);
	/* fields=name: everything else missing is fine. */
	CHECK_OK(lc_project_parse(min, &p, &err), &err);
	CHECK_STR(p->name, "only");
	CHECK(p->slug == NULL);
	CHECK_INT(p->id, -1);
	CHECK_INT(p->tags_len, 0);
	lc_project_free(p);
	/* A number no integer holds counts as missing. */
	cJSON_ReplaceItemInObject(min, "name", cJSON_CreateNumber(1e300));
	cJSON_AddNumberToObject(min, "id", -1e30);
	CHECK_OK(lc_project_parse(min, &p, &err), &err);
	CHECK_INT(p->id, -1);
	CHECK(p->name == NULL);
	lc_project_free(p);
	CHECK_INT(lc__json_int(cJSON_GetObjectItem(min, "id"), 7), 7);
	CHECK_RC(lc_project_parse(arr, &p, &err), LC_EJSON, &err);
	CHECK_STR(err.message, "expected a JSON object for a project");
	CHECK(p == NULL);
	CHECK_RC(lc_project_parse(NULL, &p, &err), LC_EJSON, &err);
	cJSON_Delete(j);
	cJSON_Delete(min);
	cJSON_Delete(arr);
}

TEST(parse_builds_v3_and_v2)
{
	cJSON *v3 = cJSON_Parse(
		"{\"_links\":{},\"commit\":\"a1b2c3\",\"created\":\"2019-04-29T10:00:00Z\","
		"\"duration\":12,\"error\":\"This build was cancelled.\","
		"\"finished\":\"2019-04-29T10:00:12Z\",\"id\":99,\"project\":\"pip\","
		"\"state\":{\"code\":\"cancelled\",\"name\":\"Cancelled\"},"
		"\"success\":false,\"urls\":{\"build\":\"https://x/projects/pip/builds/99/\"},"
		"\"version\":\"latest\",\"config\":{\"version\":2}}");
	cJSON *running = cJSON_Parse(
		"{\"id\":5,\"state\":{\"code\":\"building\",\"name\":\"Building\"},"
		"\"success\":null,\"error\":\"\",\"duration\":null,\"finished\":null,"
		"\"version\":null}");
	cJSON *v2 = cJSON_Parse(
		"{\"id\":7,\"commands\":[{\"id\":1,\"run_time\":2,\"command\":\"git clone\","
		"\"description\":\"\",\"output\":\"Cloning\",\"exit_code\":0,"
		"\"start_time\":\"2019-04-29T10:00:00\",\"end_time\":\"2019-04-29T10:00:02\","
		"\"build\":7},{\"id\":2,\"run_time\":null,\"command\":\"sphinx\","
		"\"exit_code\":null,\"end_time\":null}],\"project_slug\":\"pip\","
		"\"version_slug\":\"latest\",\"docs_url\":\"https://pip.readthedocs.io/en/latest/\","
		"\"state_display\":\"Building\",\"state\":\"building\","
		"\"date\":\"2019-04-29T10:00:00\",\"success\":true,\"commit\":\"a1b2c3\","
		"\"length\":3,\"project\":7,\"version\":12,\"error\":\"\"}");
	struct lc_build *b = NULL;
	struct lc_error err;

	CHECK_OK(lc_build_parse(v3, &b, &err), &err);
	CHECK_INT(b->id, 99);
	CHECK_STR(b->state, "cancelled");
	CHECK_STR(b->state_name, "Cancelled");
	CHECK_INT(b->success, 0);
	CHECK_STR(b->error, "This build was cancelled.");
	CHECK_INT(b->duration, 12);
	CHECK_STR(b->build_url, "https://x/projects/pip/builds/99/");
	CHECK_STR(b->created, "2019-04-29T10:00:00Z");
	CHECK_STR(b->finished, "2019-04-29T10:00:12Z");
	CHECK_INT(b->commands_len, 0);
	lc_build_free(b);

	CHECK_OK(lc_build_parse(running, &b, &err), &err);
	CHECK_INT(b->success, LC_UNKNOWN);
	CHECK(b->error == NULL);
	CHECK(b->version == NULL);
	CHECK(b->finished == NULL);
	CHECK_INT(b->duration, -1);
	lc_build_free(b);

	CHECK_OK(lc_build_parse(v2, &b, &err), &err);
	CHECK_STR(b->project, "pip");
	CHECK_STR(b->version, "latest");
	CHECK_STR(b->state, "building");
	CHECK_STR(b->state_name, "Building");
	CHECK_STR(b->created, "2019-04-29T10:00:00");
	CHECK_INT(b->duration, 3);
	CHECK(b->error == NULL);
	CHECK_STR(b->docs_url, "https://pip.readthedocs.io/en/latest/");
	CHECK_INT(b->commands_len, 2);
	CHECK_STR(b->commands[0].command, "git clone");
	CHECK_STR(b->commands[0].output, "Cloning");
	CHECK_INT(b->commands[0].exit_code, 0);
	CHECK_INT(b->commands[0].run_time, 2);
	CHECK_INT(b->commands[1].exit_code, -1);
	CHECK(b->commands[1].end_time == NULL);
	CHECK(b->commands[1].output == NULL);
	lc_build_free(b);
	lc_build_free(NULL);
	cJSON_Delete(v3);
	cJSON_Delete(running);
	cJSON_Delete(v2);
}

TEST(parse_versions_redirects_envvars)
{
	cJSON *v = cJSON_Parse(
		"{\"_links\":{},\"active\":true,\"aliases\":[],\"built\":false,"
		"\"downloads\":{},\"hidden\":false,\"id\":71,\"identifier\":\"a1b2c3\","
		"\"privacy_level\":\"public\",\"ref\":null,\"slug\":\"v1.0\",\"type\":\"tag\","
		"\"urls\":{\"dashboard\":{\"edit\":\"x\"},\"documentation\":\"http://p.x/en/v1.0/\","
		"\"vcs\":\"y\"},\"verbose_name\":\"v1.0\"}");
	cJSON *v2 = cJSON_Parse("{\"id\":4,\"project\":{\"id\":1,\"slug\":\"pip\"},"
				"\"slug\":\"latest\",\"active\":true,\"built\":\"yes\"}");
	cJSON *r = cJSON_Parse(
		"{\"_links\":{},\"created\":\"c\",\"description\":\"\",\"enabled\":true,"
		"\"force\":false,\"from_url\":\"/docs\",\"http_status\":302,\"modified\":\"m\","
		"\"pk\":3,\"position\":0,\"project\":\"pip\",\"to_url\":null,"
		"\"type\":\"clean_url_to_html\"}");
	cJSON *e = cJSON_Parse("{\"_links\":{},\"created\":\"c\",\"modified\":\"m\","
			       "\"name\":\"TOKEN\",\"pk\":9,\"project\":\"pip\",\"public\":false}");
	struct lc_version *ver = NULL;
	struct lc_redirect *red = NULL;
	struct lc_envvar *env = NULL;
	struct lc_error err;

	CHECK_OK(lc_version_parse(v, &ver, &err), &err);
	CHECK_STR(ver->slug, "v1.0");
	CHECK_STR(ver->type, "tag");
	CHECK_INT(ver->active, 1);
	CHECK_INT(ver->hidden, 0);
	CHECK_INT(ver->built, 0);
	CHECK(ver->ref == NULL);
	CHECK_STR(ver->documentation_url, "http://p.x/en/v1.0/");
	lc_version_free(ver);
	CHECK_OK(lc_version_parse(v2, &ver, &err), &err);
	CHECK_STR(ver->project, "pip");
	CHECK_INT(ver->hidden, LC_UNKNOWN);
	CHECK_INT(ver->built, LC_UNKNOWN); /* a string is not a boolean */
	lc_version_free(ver);

	CHECK_OK(lc_redirect_parse(r, &red, &err), &err);
	CHECK_INT(red->pk, 3);
	CHECK_STR(red->type, "clean_url_to_html");
	CHECK_STR(red->from_url, "/docs");
	CHECK(red->to_url == NULL);
	CHECK_INT(red->http_status, 302);
	CHECK_INT(red->position, 0);
	CHECK_INT(red->enabled, 1);
	CHECK_INT(red->force, 0);
	lc_redirect_free(red);

	CHECK_OK(lc_envvar_parse(e, &env, &err), &err);
	CHECK_STR(env->name, "TOKEN");
	CHECK_INT(env->pk, 9);
	CHECK_INT(env->public_, 0);
	lc_envvar_free(env);
	lc_version_free(NULL);
	lc_redirect_free(NULL);
	lc_envvar_free(NULL);
	cJSON_Delete(v);
	cJSON_Delete(v2);
	cJSON_Delete(r);
	cJSON_Delete(e);
}

TEST(parse_subproject_org_search_embed)
{
	cJSON *s = cJSON_Parse("{\"_links\":{\"parent\":\"/api/v3/projects/p/\"},"
			       "\"alias\":\"docs/child\",\"child\":{\"slug\":\"child\",\"id\":2}}");
	cJSON *nochild = cJSON_Parse("{\"alias\":\"a\"}");
	cJSON *o = cJSON_Parse("{\"slug\":\"acme\",\"name\":\"Acme\",\"disabled\":true,"
			       "\"owners\":[{\"username\":\"alice\"},{\"x\":1},{\"username\":\"bob\"}]}");
	cJSON *sr = cJSON_Parse(
		"{\"type\":\"page\",\"project\":{\"slug\":\"child\",\"alias\":\"kid\"},"
		"\"version\":{\"slug\":\"latest\"},\"title\":\"T\",\"domain\":\"https://x\","
		"\"path\":\"/en/latest/a.html\",\"highlights\":{\"title\":[\"<span>T</span>\"]},"
		"\"blocks\":[{\"type\":\"domain\",\"role\":\"py:function\",\"name\":\"f\","
		"\"id\":\"f\",\"content\":\"Does f.\",\"highlights\":{\"name\":[\"<span>f</span>\"],"
		"\"content\":[]}},7]}");
	cJSON *emb = cJSON_Parse("{\"content\":[\"<p>a</p>\",\"<p>b</p>\"],\"headers\":[],"
				 "\"url\":\"http://x/\",\"meta\":{}}");
	struct lc_subproject *sub = NULL;
	struct lc_organization *org = NULL;
	struct lc_search_result *res = NULL;
	struct lc_embed *e = NULL;
	struct lc_error err;

	CHECK_OK(lc_subproject_parse(s, &sub, &err), &err);
	CHECK_STR(sub->alias, "docs/child");
	CHECK_STR(sub->child->slug, "child");
	lc_subproject_free(sub);
	CHECK_RC(lc_subproject_parse(nochild, &sub, &err), LC_EJSON, &err);
	CHECK_STR(err.message, "a subproject without its child project");
	CHECK(sub == NULL);

	CHECK_OK(lc_organization_parse(o, &org, &err), &err);
	CHECK_INT(org->disabled, 1);
	CHECK_INT(org->owners_len, 2);
	CHECK_STR(org->owners[1], "bob");
	lc_organization_free(org);

	/* The v3 search shape: project {slug, alias}, version {slug}. */
	CHECK_OK(lc_search_result_parse(sr, &res, &err), &err);
	CHECK_STR(res->project, "child");
	CHECK_STR(res->project_alias, "kid");
	CHECK_STR(res->version, "latest");
	CHECK_INT(res->hl_title.len, 1);
	CHECK_STR(res->hl_title.items[0], "<span>T</span>");
	CHECK_INT(res->blocks_len, 1);
	CHECK_STR(res->blocks[0].type, "domain");
	CHECK_STR(res->blocks[0].role, "py:function");
	CHECK_STR(res->blocks[0].hl_name.items[0], "<span>f</span>");
	CHECK_INT(res->blocks[0].hl_content.len, 0);
	lc_search_result_free(res);

	/* The historical v2 embed answer: content as a list. */
	CHECK_OK(lc_embed_parse(emb, &e, &err), &err);
	CHECK_STR(e->content, "<p>a</p>\n<p>b</p>");
	CHECK_INT(e->external, LC_UNKNOWN);
	lc_embed_free(e);

	lc_subproject_free(NULL);
	lc_organization_free(NULL);
	lc_search_result_free(NULL);
	lc_embed_free(NULL);
	lc_list_free(NULL);
	lc_response_free(NULL);
	cJSON_Delete(s);
	cJSON_Delete(nochild);
	cJSON_Delete(o);
	cJSON_Delete(sr);
	cJSON_Delete(emb);
}

TEST(error_helpers)
{
	struct lc_error err;

	lc__fail(&err, LC_EHTTP, 404, "No %s matches the given query.", "Project");
	CHECK_INT(err.code, LC_EHTTP);
	CHECK_INT(err.status, 404);
	CHECK_STR(err.message, "No Project matches the given query.");
	lc_error_clear(&err);
	CHECK_INT(err.code, LC_OK);
	CHECK_INT(err.status, 0);
	CHECK_STR(err.message, "");
	lc_error_clear(NULL);
	CHECK_INT(lc__fail(NULL, LC_EINVAL, 0, "x"), LC_EINVAL);
}

/* names (in the API's order: verbose_name descending) sorted for display
 * must read as want, both comma-separated. */
static void check_sorted(const char *names, const char *want)
{
	cJSON *list = cJSON_CreateArray(), *item;
	char buf[512], got[512] = "", *save = NULL, *w;
	int n;

	snprintf(buf, sizeof(buf), "%s", names);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		item = cJSON_CreateObject();
		cJSON_AddStringToObject(item, "verbose_name", w);
		cJSON_AddItemToArray(list, item);
	}
	CHECK_INT(lc_versions_sort(list), LC_OK);
	cJSON_ArrayForEach(item, list)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s",
			 *got ? "," : "",
			 cJSON_GetObjectItem(item, "verbose_name")->valuestring);
	CHECK_STR(got, want);
	/* Still a well-formed array: appending goes to its end. */
	n = cJSON_GetArraySize(list);
	item = cJSON_CreateObject();
	cJSON_AddItemToArray(list, item);
	CHECK(cJSON_GetArrayItem(list, n) == item);
	cJSON_Delete(list);
}

/* The service's own cases (rtd_tests/tests/projects/test_version_sorting.py)
 * and PEP 440's pre, post and dev releases, under its "latest and stable
 * at the beginning" sorting. */
TEST(versions_in_the_dashboard_order)
{
	check_sorted("latest,2.0,1.9,1.10,1.1,1.0", "latest,2.0,1.10,1.9,1.1,1.0");
	check_sorted("latest,2.1.99,2.1.0,2.0.x,1.9.x,1.11.0,1.10.x,1.10.8,"
		     "1.1.x,1.0.x,1.0.1,1.0.0",
		     "latest,2.1.99,2.1.0,2.0.x,1.11.0,1.10.x,1.10.8,1.9.x,"
		     "1.1.x,1.0.x,1.0.1,1.0.0");
	check_sorted("latest,carrot,banana,apple", "latest,carrot,banana,apple");
	/* One rule for every project (issue 43, item 12): master is a branch
	 * like main, after the versions, never above latest; and a branch
	 * is never among the versions. */
	check_sorted("master,latest,2.0,1.9,1.10,1.1,1.0",
		     "latest,2.0,1.10,1.9,1.1,1.0,master");
	check_sorted("main,latest,0.2,0.1", "latest,0.2,0.1,main");
	check_sorted("develop,master,main,stable,latest,8.1.x,8.0.x,8.1.7",
		     "latest,stable,8.1.x,8.1.7,8.0.x,master,main,develop");
	/* stable after latest; branches that are no version last. */
	check_sorted("v2.0,v10.0,stable,main,latest,feature",
		     "latest,stable,v10.0,v2.0,main,feature");
	check_sorted("2.0rc1,2.0b2,2.0a1,2.0.post1,2.0.dev3,2.0,1.9",
		     "2.0.post1,2.0,2.0rc1,2.0b2,2.0a1,2.0.dev3,1.9");
	/* Every version above every name that is none. */
	check_sorted("zeta,0.2,0.0.1", "0.2,0.0.1,zeta");
	CHECK_INT(lc_versions_sort(NULL), LC_OK);
}

int main(int argc, char **argv)
{
	static const struct lec_test tests[] = {
		TEST_ENTRY(terminal_text_without_colours),
		TEST_ENTRY(terminal_text_keeps_only_colours),
		TEST_ENTRY(terminal_text_c1),
		TEST_ENTRY(flatten_drf_bodies),
		TEST_ENTRY(flatten_cuts_long_bodies),
		TEST_ENTRY(retry_policy_statuses_and_methods),
		TEST_ENTRY(retry_backoff_grows_with_jitter),
		TEST_ENTRY(retry_after_http_date),
		TEST_ENTRY(urls_and_query_encoding),
		TEST_ENTRY(client_options_validated),
		TEST_ENTRY(docs_domain_defaults),
		TEST_ENTRY(parse_project_v3_real_shape),
		TEST_ENTRY(parse_project_v2_and_minimal),
		TEST_ENTRY(parse_builds_v3_and_v2),
		TEST_ENTRY(parse_versions_redirects_envvars),
		TEST_ENTRY(parse_subproject_org_search_embed),
		TEST_ENTRY(error_helpers),
		TEST_ENTRY(versions_in_the_dashboard_order),
	};

	return lct_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
