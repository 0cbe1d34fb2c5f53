/*
 * The request boundary: what a client sends is checked here before any
 * handler sees it, on plain bytes, with no server, connection or engine
 * involved, so the checks are also fuzz targets (tests/fuzz/):
 *
 *   srv_input_check_request  the raw URI (length, UTF-8 of the decoded path
 *                            and query) and the body (UTF-8)
 *   srv_percent_decode       one piece of a URI decoded (the router's
 *                            srv_parse_uri is built on it)
 *   srv_input_parse_json     a JSON request body parsed and validated: the
 *                            service's parse errors, then every string's
 *                            characters by the class of its field
 *   srv_input_accept_prefers content negotiation: whether an Accept
 *                            header asks for one media type over another
 *   srv_input_form_*         a form body's fields (decoded by
 *                            libmicrohttpd's post processor, form_body.c) put
 *                            together as DRF reads HTML form input, each
 *                            key and value held to the same rules
 *
 * Each fills a struct srv_input_error that respond.c turns into the
 * service's error body (srv_respond_input_error).
 */
#ifndef LECTERN_SRV_INPUT_H
#define LECTERN_SRV_INPUT_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "keymap.h"
#include "srv_limits.h"

/* Why some input was refused. */
struct srv_input_error {
	int status;                      /* HTTP status: 400 or 414 */
	char field[SRV_FIELD_PATH_MAX];  /* dotted field; "" for a detail */
	char message[192];
};

/* 0 when the request's URI and body may go on to routing, else the error's
 * status with err filled. Malformed percent escapes are left to the parsers
 * (the API's and the docs host's answer them differently); only what no
 * parser should see is refused: a URI over SRV_MAX_URI (414), a path, query
 * or body that is not UTF-8 once decoded (400). */
int srv_input_check_request(const char *raw_uri, const char *body,
			    size_t body_len, struct srv_input_error *err);

/* Whether n bytes of s are UTF-8 (RFC 3629, as libunistring's u8_check:
 * no overlongs, surrogates or code points past U+10FFFF). ASCII runs are
 * read a word at a time: a body of mostly ASCII is checked before every
 * route, and a byte at a time was a third of the server's work under a
 * flood of large bodies. */
int srv_utf8_valid(const char *s, size_t n);

/* Percent-decode n bytes of s ('+' as a space when plus_is_space, as in
 * a query). A new string (the caller's), or NULL for a malformed escape or
 * an encoded NUL, which no valid request contains, or out of memory. The
 * router's srv_parse_uri splits a URI with it. */
char *srv_percent_decode(const char *s, size_t n, int plus_is_space);

/* Parse len bytes (no NUL terminator needed) as a JSON request body whose
 * top level must be an object; an empty body is an empty object. Returns
 * the tree (the caller's, cJSON_Delete), or NULL with err filled: the
 * service's "JSON parse error - ..." (invalid UTF-8, nesting past
 * SRV_MAX_JSON_DEPTH, a raw control character in a string, bad syntax,
 * extra data), "Expected a dictionary", or a field error naming the first
 * string that carries a NUL or a control character its field does not
 * allow (single-line fields: none; free-text fields such as
 * descriptions: line breaks and tabs). An out-of-memory parse is reported
 * as a 400 parse error too, never as a valid body. */
cJSON *srv_input_parse_json(const char *body, size_t len,
			    struct srv_input_error *err);

/* Whether the Accept header (NULL: none) names media type `type`
 * ("text/markdown") itself with a quality above 0, at least as high as the
 * quality it gives `over` ("text/html", by the most specific range that
 * matches it: the type itself, then its major type with a wildcard
 * subtype, then the wildcard of everything; none is 0). So a browser,
 * which never names text/markdown, and a client accepting anything keep
 * getting `over`. Types compare case-insensitively; a range with a
 * malformed quality is ignored; at most SRV_ACCEPT_RANGES_MAX ranges are
 * read. */
int srv_input_accept_prefers(const char *accept, const char *type,
			     const char *over);

/* Form bodies (application/x-www-form-urlencoded, multipart/form-data)
 * become a tree the body readers (body.h) read as DRF reads a QueryDict:
 * an object whose keys each hold an array of every value given (strings,
 * or raw "{}" for an uploaded file, which no field accepts); a dotted key
 * "a.b" puts "b" in the nested form object stored under "a." (DRF's nested
 * serializers read "repository.url"), "a[0]" stays a key of its own (DRF's
 * list fields read them when "a" itself is absent). Every form object is
 * marked with its kind below. */
enum srv_form_kind {
	SRV_FORM_NONE = 0,    /* a JSON object */
	SRV_FORM_FULL = 1,    /* a form of a create or full update */
	SRV_FORM_PARTIAL = 2, /* a form of a partial update (PATCH) */
};

/* A form tree being built: the tree, the fields added so far, and an
 * index of its nested forms and value lists by the key's bytes up to
 * them ("a.", "a.b.", "a.b.c"), so that each field is placed without a
 * scan of the ones before it (a form of n fields is built in O(n)). */
struct srv_form_builder {
	cJSON *form;
	struct srv_keymap nodes;
	size_t fields;
};

/* Start an empty form tree of kind in b: 0, or -1 when out of memory. */
int srv_input_form_begin(struct srv_form_builder *b, enum srv_form_kind kind);
/* Add one field, key of klen bytes with value of vlen bytes (is_file: an
 * uploaded file, whose bytes are not kept). Returns 0, or the status
 * (400) with err filled: more than SRV_MAX_FORM_FIELDS fields, a key or
 * value that is not UTF-8, a NUL or a control character its field does
 * not allow (the JSON rules: the same messages and field), keys nested
 * deeper than SRV_MAX_JSON_DEPTH, or out of memory. */
int srv_input_form_add(struct srv_form_builder *b, const char *key,
		       size_t klen, const char *value, size_t vlen,
		       int is_file, struct srv_input_error *err);
/* The tree built (the caller's: cJSON_Delete), the rest of b freed. */
cJSON *srv_input_form_finish(struct srv_form_builder *b);
/* The kind of a form object (or of a JSON object: SRV_FORM_NONE). */
enum srv_form_kind srv_input_form_kind(const cJSON *obj);

#endif
