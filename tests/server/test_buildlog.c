/*
 * Unit tests of a build log's body (src/server/buildlog.c): sent as it is
 * read, in pieces of any size, its bytes are those of the document
 * rendered whole by cJSON with each output cleaned (NUL bytes out, U+FFFD
 * for what is not UTF-8), for outputs made of every kind of byte, with
 * characters split by the chunks and slices it reads in; a small one is
 * an ordinary body; an output gone mid-way ends there, the document whole;
 * the entity tag follows what the body is made of.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buildlog.h"
#include "harness.h"
#include "lectern/version.h"

/* A store with one build of a version, and its commands. */
struct fixture {
	struct lec_store *st;
	int64_t build;
	struct lec_build_command_list cmds;
};

static void fixture_open(struct fixture *f)
{
	struct lec_version *v = NULL;
	struct lec_build *b = NULL;
	int64_t p;

	memset(f, 0, sizeof(*f));
	f->st = lec_test_store();
	p = lec_test_project(f->st, "p");
	CHECK_OK(lec_version_create(f->st, p, "main", "main",
				    LEC_VERSION_BRANCH, 1, &v));
	CHECK_OK(lec_build_trigger(f->st, p, v ? v->id : 0, NULL, &b, NULL));
	f->build = b ? b->id : 0;
	lec_build_free(b);
	lec_version_free(v);
}

static void fixture_close(struct fixture *f)
{
	lec_build_command_list_dispose(&f->cmds);
	lec_store_free(f->st);
}

/* A command with this output; then the build's commands listed again. */
static void add_command(struct fixture *f, const char *out, size_t len)
{
	int64_t id = 0;

	CHECK_OK(lec_build_command_start(f->st, f->build, "print", NULL, &id));
	CHECK_OK(lec_build_command_append(f->st, id, out, len));
	lec_build_command_list_dispose(&f->cmds);
	CHECK_OK(lec_build_command_list(f->st, f->build, &f->cmds));
}

/* n bytes of every kind a log holds: text, what JSON escapes, NUL,
 * characters of 2 to 4 bytes, the line separators, bytes that are not
 * UTF-8 and characters cut short. Owned by the caller. */
static char *hostile(size_t n, unsigned seed)
{
	static const char *const kinds[] = {
		"plain text ", "\"", "\\", "\n", "\t", "\x01", "\x1b[31m",
		"\x7f", "\xc3\xa9", "\xe2\x82\xac", "\xe2\x80\xa8",
		"\xe2\x80\xa9", "\xf0\x9f\x98\x80", "\xff", "\xc0\xaf", "\x80",
		"\xe2\x82", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe0\x80\xaf",
	};
	char *out = malloc(n);
	size_t i = 0, k, len;

	while (out && i < n) {
		seed = seed * 1103515245u + 12345u;
		k = (seed >> 16) % (sizeof(kinds) / sizeof(kinds[0]) + 1);
		if (k == sizeof(kinds) / sizeof(kinds[0])) {
			out[i++] = '\0';
			continue;
		}
		len = strlen(kinds[k]);
		len = len < n - i ? len : n - i;
		memcpy(out + i, kinds[k], len);
		i += len;
	}
	return out;
}

/* Whether s (n bytes left) starts with a well-formed UTF-8 sequence of
 * len bytes (RFC 3629's table of them). */
static int well_formed(const unsigned char *s, size_t n, size_t len)
{
	unsigned char lo = 0x80, hi = 0xBF;
	size_t i;

	if (len > n)
		return 0;
	if (len == 2)
		return s[0] >= 0xC2 && s[0] <= 0xDF && s[1] >= 0x80 &&
		       s[1] <= 0xBF;
	if (len == 3 && s[0] == 0xE0)
		lo = 0xA0;
	else if (len == 3 && s[0] == 0xED)
		hi = 0x9F;
	else if (len == 4 && s[0] == 0xF0)
		lo = 0x90;
	else if (len == 4 && s[0] == 0xF4)
		hi = 0x8F;
	if ((len == 3 && (s[0] < 0xE0 || s[0] > 0xEF)) ||
	    (len == 4 && (s[0] < 0xF0 || s[0] > 0xF4)) || s[1] < lo ||
	    s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return 1;
}

/* The output as the API shows it, worked out byte by byte: what the body
 * must hold. Owned by the caller, NUL-terminated. */
static char *cleaned(const char *bytes, size_t n)
{
	const unsigned char *s = (const unsigned char *)bytes;
	char *out = malloc(n * 3 + 1), *o = out;
	size_t i = 0, len;

	while (out && i < n) {
		for (len = 4; len > 1 && !well_formed(s + i, n - i, len); len--)
			;
		if (s[i] == 0) {
			i++;
		} else if (len == 1 && s[i] >= 0x80) {
			memcpy(o, "\xEF\xBF\xBD", 3);
			o += 3;
			i++;
		} else {
			memcpy(o, s + i, len);
			o += len;
			i += len;
		}
	}
	if (out)
		*o = '\0';
	return out;
}

/* cJSON's text of json with the line separators escaped (the server's
 * printer, which tests/server/test_json_print.c holds to it). */
static char *printed(const cJSON *json)
{
	size_t len = 0;

	return srv_json_print(json, &len);
}

/* All of a response's body: read in pieces of changing sizes when it is
 * sent as it is read. Owned by the caller. */
static char *body_of(struct srv_response *res, size_t *len)
{
	static const size_t sizes[] = { 1, 3, 7, 100, 4096, 32768, 65536 };
	size_t cap = 1 << 20, n = 0, k = 0;
	char *out = malloc(cap);
	long got;

	if (res->reader.read == NULL) {
		*len = res->body_len;
		free(out);
		return res->body ? strndup(res->body, res->body_len) : NULL;
	}
	for (;;) {
		size_t ask = sizes[k++ % (sizeof(sizes) / sizeof(sizes[0]))];

		if (out == NULL || n + ask + 1 > cap) {
			char *grown = out ? realloc(out, cap *= 2) : NULL;

			if (grown == NULL) {
				free(out);
				return NULL;
			}
			out = grown;
		}
		if ((got = res->reader.read(res->reader.state, out + n, ask)) <= 0)
			break;
		CHECK((size_t)got <= ask);
		n += (size_t)got;
	}
	CHECK_INT(got, 0);
	out[n] = '\0';
	*len = n;
	return out;
}

/* A document of f's commands' outputs: in log's body (raw values), and as
 * cJSON would render it with the outputs cleaned (*want). */
static cJSON *document(struct fixture *f, struct srv_buildlog *log,
		       char **want, const char *const *outputs,
		       const size_t *lens)
{
	cJSON *doc = cJSON_CreateObject(), *plain = cJSON_CreateObject();
	cJSON *a = cJSON_AddArrayToObject(doc, "commands");
	cJSON *b = cJSON_AddArrayToObject(plain, "commands");
	size_t i;

	for (i = 0; i < f->cmds.len; i++) {
		cJSON *c = cJSON_CreateObject(), *d = cJSON_CreateObject();
		char *text = cleaned(outputs[i], lens[i]);

		cJSON_AddNumberToObject(c, "id", (double)i);
		cJSON_AddNumberToObject(d, "id", (double)i);
		cJSON_AddItemToObject(c, "output", srv_buildlog_json_output(
						     log, &f->cmds.items[i]));
		cJSON_AddStringToObject(d, "output", text ? text : "");
		cJSON_AddItemToArray(a, c);
		cJSON_AddItemToArray(b, d);
		free(text);
	}
	cJSON_AddStringToObject(doc, "after", "\xc3\xa9\x01");
	cJSON_AddStringToObject(plain, "after", "\xc3\xa9\x01");
	*want = printed(plain);
	cJSON_Delete(plain);
	return doc;
}

/* The body of f's outputs as a JSON document, against cJSON's; whether
 * it was sent as it is read. */
static void check_json(struct fixture *f, const char *const *outputs,
		       const size_t *lens, int streamed)
{
	struct srv_buildlog *log = srv_buildlog_new(f->st);
	struct srv_response res;
	char *want = NULL, *got;
	size_t len = 0;

	memset(&res, 0, sizeof(res));
	if (log == NULL)
		return;
	CHECK_INT(srv_buildlog_respond_json(
			  &res, 200, document(f, log, &want, outputs, lens),
			  log),
		  200);
	CHECK_INT(res.reader.read != NULL, streamed);
	CHECK_INT(res.etag[0] != '\0', streamed);
	CHECK_STR(res.content_type, "application/json");
	got = body_of(&res, &len);
	CHECK(got && want && len == strlen(want));
	if (got && want && strcmp(got, want) != 0) {
		size_t i = 0;

		while (got[i] == want[i])
			i++;
		FAIL_AT("bodies differ from byte %zu of %zu", i, len);
	}
	free(got);
	free(want);
	srv_response_drop_body(&res);
}

TEST(sent_as_read_it_is_the_document_rendered_whole)
{
	struct fixture f;
	size_t lens[4] = { 600 * 1024, 0, 6, 5000 };
	char *big = hostile(lens[0], 1), *small = hostile(lens[3], 2);
	const char *outputs[4] = { big, "", "plain\n", small };
	static const char split[] = "\xf0\x9f\x98\x80"; /* 😀 */
	size_t at;

	fixture_open(&f);
	if (big == NULL || small == NULL)
		goto done;
	/* A character across each of the first chunks' ends. */
	for (at = SRV_BUILDLOG_CHUNK - 2; at + 4 < lens[0];
	     at += SRV_BUILDLOG_CHUNK - 3)
		memcpy(big + at, split, 4);
	add_command(&f, big, lens[0]);
	add_command(&f, "", 0);
	add_command(&f, "plain\n", 6);
	add_command(&f, small, lens[3]);
	check_json(&f, outputs, lens, 1);
done:
	free(big);
	free(small);
	fixture_close(&f);
}

TEST(a_small_log_is_a_body)
{
	struct fixture f;
	size_t lens[2] = { 10000, 3 };
	char *out = hostile(lens[0], 3);
	const char *outputs[2] = { out, "\xe2\x80\xa8" };

	fixture_open(&f);
	if (out) {
		add_command(&f, out, lens[0]);
		add_command(&f, outputs[1], lens[1]);
		check_json(&f, outputs, lens, 0);
	}
	free(out);
	fixture_close(&f);
}

TEST(text_is_the_output_cleaned)
{
	struct fixture f;
	struct srv_buildlog *log;
	struct srv_response res;
	size_t n = SRV_BUILDLOG_INLINE + 1000, len = 0;
	char *out = hostile(n, 4), *text = out ? cleaned(out, n) : NULL;
	char *got = NULL;

	fixture_open(&f);
	memset(&res, 0, sizeof(res));
	if (text == NULL || (log = srv_buildlog_new(f.st)) == NULL)
		goto done;
	add_command(&f, out, n);
	srv_buildlog_puts(log, "before\n");
	srv_buildlog_output(log, &f.cmds.items[0]);
	srv_buildlog_puts(log, "after\n");
	CHECK_INT(srv_buildlog_respond(&res, 200, "text/plain", log), 200);
	CHECK(res.reader.read != NULL);
	got = body_of(&res, &len);
	CHECK(got && len == strlen(text) + 13 &&
	      strncmp(got, "before\n", 7) == 0 &&
	      memcmp(got + 7, text, strlen(text)) == 0 &&
	      strcmp(got + 7 + strlen(text), "after\n") == 0);
done:
	free(got);
	free(text);
	free(out);
	srv_response_drop_body(&res);
	fixture_close(&f);
}

TEST(an_output_gone_ends_there)
{
	struct fixture f;
	struct srv_buildlog *log;
	struct srv_response res;
	size_t n = 3 * SRV_BUILDLOG_CHUNK, len = 0;
	char *out = malloc(n), first[64], *got = NULL;
	cJSON *doc, *parsed = NULL;
	long k;

	fixture_open(&f);
	memset(&res, 0, sizeof(res));
	if (out == NULL || (log = srv_buildlog_new(f.st)) == NULL)
		goto done;
	memset(out, 'x', n);
	add_command(&f, out, n);
	doc = cJSON_CreateObject();
	cJSON_AddItemToObject(doc, "output",
			      srv_buildlog_json_output(log, &f.cmds.items[0]));
	cJSON_AddStringToObject(doc, "after", "end");
	CHECK_INT(srv_buildlog_respond_json(&res, 200, doc, log), 200);
	CHECK(res.reader.read != NULL);
	if (res.reader.read == NULL)
		goto done;
	k = res.reader.read(res.reader.state, first, sizeof(first));
	CHECK_INT(k, sizeof(first));
	/* The build starts again: its commands are deleted. */
	CHECK_OK(lec_build_reset(f.st, f.build));
	got = body_of(&res, &len);
	if (got) {
		char *whole = malloc(len + sizeof(first) + 1);

		if (whole) {
			memcpy(whole, first, sizeof(first));
			memcpy(whole + sizeof(first), got, len + 1);
			parsed = cJSON_Parse(whole);
			CHECK(parsed != NULL);
			CHECK(cJSON_GetObjectItem(parsed, "after") != NULL);
			/* What was read before stays; nothing past it. */
			CHECK(len + sizeof(first) < n);
		}
		free(whole);
	}
done:
	cJSON_Delete(parsed);
	free(got);
	free(out);
	srv_response_drop_body(&res);
	fixture_close(&f);
}

/* The entity tag of a large body of f's first output, as it is now. */
static void tag_of(struct fixture *f, char *etag, size_t cap)
{
	struct srv_buildlog *log = srv_buildlog_new(f->st);
	struct srv_response res;

	memset(&res, 0, sizeof(res));
	if (log)
		srv_buildlog_output(log, &f->cmds.items[0]);
	srv_buildlog_respond(&res, 200, "text/plain", log);
	snprintf(etag, cap, "%s", res.etag);
	srv_response_drop_body(&res);
}

TEST(the_tag_follows_the_output)
{
	struct fixture f;
	size_t n = SRV_BUILDLOG_INLINE + 1;
	char *out = malloc(n), a[48], b[48], c[48];

	fixture_open(&f);
	if (out == NULL)
		goto done;
	memset(out, 'y', n);
	add_command(&f, out, n);
	tag_of(&f, a, sizeof(a));
	tag_of(&f, b, sizeof(b));
	CHECK(a[0] == '"');
	CHECK_STR(a, b);
	/* The command writes more: a listing now gives another size. */
	CHECK_OK(lec_build_command_append(f.st, f.cmds.items[0].id, "z", 1));
	lec_build_command_list_dispose(&f.cmds);
	CHECK_OK(lec_build_command_list(f.st, f.build, &f.cmds));
	tag_of(&f, c, sizeof(c));
	CHECK(strcmp(a, c) != 0);
done:
	free(out);
	fixture_close(&f);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(sent_as_read_it_is_the_document_rendered_whole),
	TEST_ENTRY(a_small_log_is_a_body),
	TEST_ENTRY(text_is_the_output_cleaned),
	TEST_ENTRY(an_output_gone_ends_there),
	TEST_ENTRY(the_tag_follows_the_output),
};

LEC_TEST_MAIN(tests)
