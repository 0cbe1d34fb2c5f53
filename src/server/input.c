/*
 * The checks every request passes before routing, and the parsers of its
 * URI and JSON body (input.h). One place, table-driven, so that no handler
 * has to remember them: a NUL can never reach the engine (where C strings
 * would cut "a\u0000b" to "a"), and a line break can never reach a field
 * that ends up in a header (a redirect target with CR/LF would become a
 * 302 without a Location).
 *
 * The JSON body is checked in one pass over its text, before cJSON parses
 * it: the pass tracks the key path of each string (cJSON's parsed strings
 * end at their first NUL, so the text is the only place a "\u0000" shows)
 * and records the first string a rule refuses; the errors are then
 * reported in the order the service's parser would meet them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistr.h>

#include "handler.h"
#include "input.h"
#include "keymap.h"

/* Fields whose text may span lines (the service's TextFields and secrets
 * that are files: an environment variable's value may be a PEM key). Every
 * other string of a request body is single-line: names, slugs, URLs,
 * redirect sources and targets, choices, list items, anything a later
 * response could put in a header. */
static const char *const multiline_fields[] = {
	"description",
	"value",
};

/* Percent decoding ---------------------------------------------------------- */

int srv_hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *srv_percent_decode(const char *s, size_t n, int plus_is_space)
{
	char *out = malloc(n + 1);
	size_t i, j = 0;

	if (out == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		if (s[i] == '%') {
			int hi = i + 2 < n ? srv_hex_value(s[i + 1]) : -1;
			int lo = i + 2 < n ? srv_hex_value(s[i + 2]) : -1;

			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
				free(out);
				return NULL;
			}
			out[j++] = (char)(hi * 16 + lo);
			i += 2;
		} else if (s[i] == '+' && plus_is_space) {
			out[j++] = ' ';
		} else {
			out[j++] = s[i];
		}
	}
	out[j] = '\0';
	return out;
}

/* UTF-8 ------------------------------------------------------------------- */

/* Bytes read at once while they are ASCII. */
#define ASCII_WORD sizeof(uint64_t)
#define HIGH_BITS UINT64_C(0x8080808080808080)

int srv_utf8_valid(const char *s, size_t n)
{
	const uint8_t *p = (const uint8_t *)s, *end = p + n;
	uint64_t word;
	ucs4_t uc;
	int len;

	while (p < end) {
		while ((size_t)(end - p) >= ASCII_WORD &&
		       (memcpy(&word, p, ASCII_WORD), (word & HIGH_BITS) == 0))
			p += ASCII_WORD;
		if (p == end)
			break;
		if (*p < 0x80) {
			p++;
			continue;
		}
		if ((len = u8_mbtoucr(&uc, p, (size_t)(end - p))) < 0)
			return 0;
		p += len;
	}
	return 1;
}

static int fail(struct srv_input_error *err, int status, const char *field,
		const char *msg)
{
	err->status = status;
	snprintf(err->field, sizeof(err->field), "%s", field);
	snprintf(err->message, sizeof(err->message), "%s", msg);
	return status;
}

/* Whether n bytes of s decode to valid UTF-8; a piece that does not decode
 * at all counts as valid here (its parser refuses it in its own words). */
static int decodes_to_utf8(const char *s, size_t n, int plus_is_space)
{
	char *text = srv_percent_decode(s, n, plus_is_space);
	int ok = text == NULL || srv_utf8_valid(text, strlen(text));

	free(text);
	return ok;
}

int srv_input_check_request(const char *raw_uri, const char *body,
			    size_t body_len, struct srv_input_error *err)
{
	const char *q = strchr(raw_uri, '?');
	size_t n = strlen(raw_uri);
	size_t plen = q ? (size_t)(q - raw_uri) : n;

	if (n > SRV_MAX_URI)
		return fail(err, 414, "", "Request URI too long.");
	if (!decodes_to_utf8(raw_uri, plen, 0))
		return fail(err, 400, "",
			    "Malformed request: the path is not valid UTF-8.");
	/* Each parameter on its own: an escape never spans a '&'. */
	while (q && *q) {
		const char *start = q + 1;
		size_t len = strcspn(start, "&");

		if (!decodes_to_utf8(start, len, 1))
			return fail(err, 400, "",
				    "Malformed request: the query string is "
				    "not valid UTF-8.");
		q = start[len] ? start + len : NULL;
	}
	if (body_len > 0 && !srv_utf8_valid(body, body_len))
		return fail(err, 400, "",
			    "Malformed request: the body is not valid UTF-8.");
	return 0;
}

/* JSON bodies: the character pass ----------------------------------------- */

/* What one string holds, as far as the rules care. */
struct string_facts {
	int nul;               /* a "\u0000" */
	int line_break;        /* "\n", "\r" or "\t", escaped */
	int control;           /* any other C0 control, DEL or a C1 control */
};

struct scan {
	const char *s;
	size_t n;
	int depth;
	/* The key at each object level ("" at array levels): the path of the
	 * string being read. */
	char keys[SRV_MAX_JSON_DEPTH + 1][SRV_FIELD_PATH_MAX];
	int too_deep;
	size_t raw_control;    /* offset of the first raw control character
				  inside a string (invalid JSON), or n */
	int refused;           /* field and message hold the first refusal */
	char field[SRV_FIELD_PATH_MAX];
	const char *message;
};

static void note_code_point(struct string_facts *f, unsigned cp)
{
	if (cp == 0)
		f->nul = 1;
	else if (cp == '\n' || cp == '\r' || cp == '\t')
		f->line_break = 1;
	else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
		f->control = 1;
}

/* The value of 4 hex digits at s[i..], or -1. */
static long hex4(const struct scan *sc, size_t i)
{
	long v = 0;
	size_t k;

	if (i + 4 > sc->n)
		return -1;
	for (k = 0; k < 4; k++) {
		int d = srv_hex_value(sc->s[i + k]);

		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* Read the escape at s[i] ('\\'); returns the index after it. */
static size_t read_escape(struct scan *sc, size_t i, struct string_facts *f)
{
	static const char simple[] = "\"\\/bfnrt";
	static const unsigned simple_cp[] = { '"', '\\', '/', '\b',
					      '\f', '\n', '\r', '\t' };
	const char *hit;
	long cp;

	if (i + 1 >= sc->n)
		return sc->n;
	if (sc->s[i + 1] != 'u') {
		hit = sc->s[i + 1] ? strchr(simple, sc->s[i + 1]) : NULL;
		if (hit)
			note_code_point(f, simple_cp[hit - simple]);
		return i + 2; /* an unknown escape is cJSON's to refuse */
	}
	/* Surrogates, paired or not, are no control characters; a lone one
	 * is cJSON's to refuse. */
	if ((cp = hex4(sc, i + 2)) < 0)
		return i + 2;
	note_code_point(f, (unsigned)cp);
	return i + 6;
}

/* Read the string whose opening quote is at s[start]; returns the index
 * of its closing quote, or n when it has none. */
static size_t read_string(struct scan *sc, size_t start,
			  struct string_facts *f)
{
	size_t i = start + 1;

	memset(f, 0, sizeof(*f));
	while (i < sc->n && sc->s[i] != '"') {
		unsigned char c = (unsigned char)sc->s[i];

		if (c == '\\') {
			i = read_escape(sc, i, f);
			continue;
		}
		if (c < 0x20 && sc->raw_control == sc->n)
			sc->raw_control = i;
		if (c == 0x7f)
			f->control = 1;
		/* U+0080..U+009F are C2 80..C2 9F in UTF-8 (checked before). */
		if (c == 0xC2 && i + 1 < sc->n &&
		    (unsigned char)sc->s[i + 1] >= 0x80 &&
		    (unsigned char)sc->s[i + 1] <= 0x9F)
			f->control = 1;
		i++;
	}
	return i;
}

/* Drop the incomplete UTF-8 sequence a cut may have left at the end of s:
 * the name goes into an error body, which must stay valid UTF-8. */
static void trim_partial_utf8(char *s)
{
	size_t n = strlen(s), lead = n, need;
	unsigned char c;

	while (lead > 0 && ((unsigned char)s[lead - 1] & 0xC0) == 0x80)
		lead--;
	if (lead == 0)
		return;
	c = (unsigned char)s[lead - 1];
	need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
	if (n - (lead - 1) < need)
		s[lead - 1] = '\0';
}

/* The dotted path of the current value into sc->field, with leaf appended
 * when non-NULL; cut to the buffer when too long. */
static void current_path(struct scan *sc, const char *leaf)
{
	size_t used = 0;
	int d;

	sc->field[0] = '\0';
	for (d = 1; d <= sc->depth && used < sizeof(sc->field); d++) {
		if (sc->keys[d][0] == '\0')
			continue;
		used += (size_t)snprintf(sc->field + used,
					 sizeof(sc->field) - used, "%s%s",
					 used ? "." : "", sc->keys[d]);
	}
	if (leaf && used < sizeof(sc->field))
		snprintf(sc->field + used, sizeof(sc->field) - used, "%s%s",
			 used ? "." : "", leaf);
	else if (used == 0)
		snprintf(sc->field, sizeof(sc->field), "non_field_errors");
	trim_partial_utf8(sc->field);
}

static int is_multiline(const char *field)
{
	size_t i;

	for (i = 0; i < sizeof(multiline_fields) / sizeof(multiline_fields[0]);
	     i++)
		if (strcmp(field, multiline_fields[i]) == 0)
			return 1;
	return 0;
}

/* The message refusing a string with these facts in this field (or a key,
 * always single-line), or NULL when it is fine. */
static const char *refusal(const struct string_facts *f, int single_line)
{
	if (f->nul)
		return "Null characters are not allowed.";
	if (single_line && (f->control || f->line_break))
		return "Line breaks and other control characters are not "
		       "allowed in this field.";
	if (f->control)
		return "Control characters other than line breaks and tabs "
		       "are not allowed.";
	return NULL;
}

/* Keep a key (the raw text between its quotes, s[start..end)) as the
 * current level's path part, cut at a character boundary when too long. */
static void keep_key(struct scan *sc, size_t start, size_t end)
{
	char *key = sc->keys[sc->depth];
	size_t n = end - start - 2;

	if (n >= SRV_FIELD_PATH_MAX)
		n = SRV_FIELD_PATH_MAX - 1;
	memcpy(key, sc->s + start + 1, n);
	key[n] = '\0';
	trim_partial_utf8(key);
}

/* Whitespace between JSON tokens. */
static int is_json_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Check the string s[start..end) (quotes included): a key when a ':'
 * follows it. */
static void check_string(struct scan *sc, size_t start, size_t end,
			 const struct string_facts *f)
{
	size_t next = end;
	int is_key;
	const char *why;

	while (next < sc->n && is_json_space(sc->s[next]))
		next++;
	is_key = next < sc->n && sc->s[next] == ':' && sc->depth > 0;

	if (is_key) {
		/* The level's previous key is not part of this one's path. */
		sc->keys[sc->depth][0] = '\0';
		why = refusal(f, 1);
		if (why && !sc->refused) {
			current_path(sc, "non_field_errors");
			sc->message = "Field names may not contain control or "
				      "null characters.";
			sc->refused = 1;
		}
		keep_key(sc, start, end);
		return;
	}
	if (sc->refused)
		return;
	current_path(sc, NULL);
	if ((why = refusal(f, !is_multiline(sc->field))) != NULL) {
		sc->message = why;
		sc->refused = 1;
	}
}

/* One pass over the text; stops early only when nesting is too deep. The
 * text need not be valid JSON: whatever it is, the pass ends. */
static void scan_json(struct scan *sc)
{
	size_t i = 0;

	while (i < sc->n) {
		char c = sc->s[i];
		struct string_facts f;
		size_t end;

		if (c == '"') {
			end = read_string(sc, i, &f);
			if (end == sc->n)
				return; /* unterminated: cJSON refuses it */
			check_string(sc, i, end + 1, &f);
			i = end + 1;
			continue;
		}
		if (c == '{' || c == '[') {
			if (++sc->depth > SRV_MAX_JSON_DEPTH) {
				sc->too_deep = 1;
				return;
			}
			sc->keys[sc->depth][0] = '\0';
		} else if ((c == '}' || c == ']') && sc->depth > 0) {
			sc->depth--;
		}
		i++;
	}
}

/* JSON bodies: parsing and the order of errors --------------------------- */

/* Line, column and offset of a parse error, as Python's json reports it. */
static void describe_position(const char *body, size_t offset, char *out,
			      size_t cap)
{
	size_t line = 1, col = 1, i;

	for (i = 0; i < offset; i++) {
		if (body[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	snprintf(out, cap, "line %zu column %zu (char %zu)", line, col, offset);
}

static void parse_error(struct srv_input_error *err, const char *body,
			const char *what, size_t offset)
{
	char where[96];

	describe_position(body, offset, where, sizeof(where));
	err->status = 400;
	err->field[0] = '\0';
	snprintf(err->message, sizeof(err->message),
		 "JSON parse error - %s: %s", what, where);
}

/* The Python type DRF names when a body is not an object. */
static const char *python_type_name(const cJSON *json)
{
	if (cJSON_IsArray(json))
		return "list";
	if (cJSON_IsString(json))
		return "str";
	if (cJSON_IsBool(json))
		return "bool";
	if (cJSON_IsNull(json))
		return "NoneType";
	if (cJSON_IsNumber(json))
		return json->valuedouble == (double)json->valueint ? "int"
								   : "float";
	return "object";
}

cJSON *srv_input_parse_json(const char *body, size_t len,
			    struct srv_input_error *err)
{
	struct scan *sc = NULL;
	const char *end = NULL;
	cJSON *json = NULL;
	char msg[96];
	size_t stop;

	if (len == 0)
		return cJSON_CreateObject();
	if (!srv_utf8_valid(body, len)) {
		fail(err, 400, "",
		     "JSON parse error - 'utf-8' codec can't decode the "
		     "request body");
		goto done;
	}
	/* The key stack is several KiB: off the (possibly small) thread
	 * stack. */
	if ((sc = calloc(1, sizeof(*sc))) == NULL) {
		fail(err, 400, "", "JSON parse error - out of memory");
		goto done;
	}
	sc->s = body;
	sc->n = len;
	sc->raw_control = len;
	scan_json(sc);
	if (sc->too_deep) {
		snprintf(msg, sizeof(msg),
			 "JSON parse error - nesting deeper than %d levels",
			 SRV_MAX_JSON_DEPTH);
		fail(err, 400, "", msg);
		goto done;
	}
	/* The parse-end pointer, not cJSON_GetErrorPtr: that one is a global
	 * shared by all threads. */
	json = cJSON_ParseWithLengthOpts(body, len, &end, 0);
	stop = json ? len : (end && end >= body ? (size_t)(end - body) : 0);
	if (sc->raw_control < len && sc->raw_control <= stop) {
		parse_error(err, body, "Invalid control character at",
			    sc->raw_control);
		goto fail_json;
	}
	if (json == NULL) {
		parse_error(err, body, "Invalid JSON", stop);
		goto done;
	}
	if (end && end < body + len) {
		size_t rest = (size_t)(body + len - end), ws = 0;

		while (ws < rest && is_json_space(end[ws]))
			ws++;
		if (ws != rest) {
			parse_error(err, body, "Extra data",
				    (size_t)(end - body));
			goto fail_json;
		}
	}
	if (!cJSON_IsObject(json)) {
		snprintf(msg, sizeof(msg),
			 "Invalid data. Expected a dictionary, but got %s.",
			 python_type_name(json));
		fail(err, 400, "non_field_errors", msg);
		goto fail_json;
	}
	if (sc->refused) {
		fail(err, 400, sc->field, sc->message);
		goto fail_json;
	}
	goto done;
fail_json:
	cJSON_Delete(json);
	json = NULL;
done:
	free(sc);
	return json;
}

/* Form bodies -------------------------------------------------------------- */

/* A form object's kind is kept in the object's own valueint, which cJSON
 * leaves unused for objects (and never frees). */
static cJSON *form_new(enum srv_form_kind kind)
{
	cJSON *form = cJSON_CreateObject();

	if (form)
		form->valueint = (int)kind;
	return form;
}

int srv_input_form_begin(struct srv_form_builder *b, enum srv_form_kind kind)
{
	memset(b, 0, sizeof(*b));
	return (b->form = form_new(kind)) ? 0 : -1;
}

cJSON *srv_input_form_finish(struct srv_form_builder *b)
{
	cJSON *form = b->form;

	srv_keymap_dispose(&b->nodes);
	memset(b, 0, sizeof(*b));
	return form;
}

enum srv_form_kind srv_input_form_kind(const cJSON *obj)
{
	if (obj == NULL || !cJSON_IsObject(obj))
		return SRV_FORM_NONE;
	return obj->valueint == SRV_FORM_FULL	   ? SRV_FORM_FULL
	       : obj->valueint == SRV_FORM_PARTIAL ? SRV_FORM_PARTIAL
						   : SRV_FORM_NONE;
}

/* The facts of n bytes of valid UTF-8 (or of a key). */
static void text_facts(const char *s, size_t n, struct string_facts *f)
{
	const uint8_t *p = (const uint8_t *)s, *end = p + n;
	ucs4_t cp;
	int len;

	memset(f, 0, sizeof(*f));
	while (p < end && (len = u8_mbtouc(&cp, p, (size_t)(end - p))) > 0) {
		note_code_point(f, cp);
		p += len;
	}
}

/* The node the first n bytes of key name ("a." a nested form, "a.b.c" a
 * field's values), from the builder's index or made under parent by make
 * (with name, the key's last part) and indexed; NULL when out of memory or
 * when the name holds the other kind of node. */
static cJSON *node(struct srv_form_builder *b, cJSON *parent, const char *key,
		   size_t n, const char *name, cJSON *(*make)(cJSON *parent))
{
	cJSON *child = srv_keymap_get(&b->nodes, key, n);

	if (child)
		return child;
	if ((child = make(parent)) == NULL)
		return NULL;
	if (!cJSON_AddItemToObject(parent, name, child)) {
		cJSON_Delete(child);
		return NULL;
	}
	/* Added to the tree, the node is the tree's whatever happens here. */
	return srv_keymap_put(&b->nodes, key, n, child) == 0 ? child : NULL;
}

static cJSON *make_form(cJSON *parent)
{
	return form_new(srv_input_form_kind(parent));
}

static cJSON *make_values(cJSON *parent)
{
	(void)parent;
	return cJSON_CreateArray();
}

/* The node of the first n bytes of key under parent, whose own name is
 * the last len bytes of them. */
static cJSON *named_node(struct srv_form_builder *b, cJSON *parent,
			 const char *key, size_t n, size_t len,
			 cJSON *(*make)(cJSON *parent))
{
	char *name = malloc(len + 1);
	cJSON *child;

	if (name == NULL)
		return NULL;
	memcpy(name, key + n - len, len);
	name[len] = '\0';
	child = node(b, parent, key, n, name, make);
	free(name);
	return child;
}

/* The field path of a key as errors name it: its dots, nothing else. */
static void form_path(char *out, size_t cap, const char *key, size_t klen)
{
	snprintf(out, cap, "%.*s", (int)(klen < cap ? klen : cap - 1), key);
	trim_partial_utf8(out);
}

static int form_refuse(struct srv_input_error *err, const char *key,
		       size_t klen, const char *leaf, const char *msg)
{
	char path[SRV_FIELD_PATH_MAX];

	form_path(path, sizeof(path), key, klen);
	if (leaf) {
		size_t n = strlen(path);

		snprintf(path + n, sizeof(path) - n, "%s%s", n ? "." : "",
			 leaf);
	}
	return fail(err, 400, path[0] ? path : "non_field_errors", msg);
}

int srv_input_form_add(struct srv_form_builder *b, const char *key,
		       size_t klen, const char *value, size_t vlen,
		       int is_file, struct srv_input_error *err)
{
	struct string_facts f;
	const char *part = key, *dot, *why;
	size_t left = klen;
	int depth = 1;
	cJSON *form = b->form, *values, *item;
	char *text;

	if (++b->fields > SRV_MAX_FORM_FIELDS)
		return fail(err, 400, "", SRV_TOO_MANY_FIELDS);
	if (!srv_utf8_valid(key, klen) ||
	    (!is_file && !srv_utf8_valid(value, vlen)))
		return fail(err, 400, "",
			    "Malformed request: the body is not valid UTF-8.");
	text_facts(key, klen, &f);
	if (refusal(&f, 1))
		return form_refuse(err, key, klen, "non_field_errors",
				   "Field names may not contain control or "
				   "null characters.");
	if (!is_file) {
		char path[SRV_FIELD_PATH_MAX];

		text_facts(value, vlen, &f);
		form_path(path, sizeof(path), key, klen);
		if ((why = refusal(&f, !is_multiline(path))) != NULL)
			return form_refuse(err, key, klen, NULL, why);
	}
	/* "a.b.c": the nested forms "a." and "b.", then "c". */
	while ((dot = memchr(part, '.', left)) != NULL && dot + 1 < part + left) {
		size_t through = (size_t)(dot + 1 - key);

		if (++depth > SRV_MAX_JSON_DEPTH)
			return fail(err, 400, "",
				    "Form field names nest too deep.");
		if ((form = named_node(b, form, key, through,
				       (size_t)(dot + 1 - part), make_form)) ==
		    NULL)
			return fail(err, 400, "", "Out of memory.");
		left -= (size_t)(dot + 1 - part);
		part = dot + 1;
	}
	/* "a." names no field (nested forms are stored under such names). */
	if (left > 0 && part[left - 1] == '.')
		return 0;
	if ((values = named_node(b, form, key, klen, left, make_values)) ==
	    NULL)
		return fail(err, 400, "", "Out of memory.");
	if (is_file) {
		item = cJSON_CreateRaw("{}");
	} else if ((text = malloc(vlen + 1)) != NULL) {
		memcpy(text, value, vlen);
		text[vlen] = '\0';
		item = cJSON_CreateString(text);
		explicit_bzero(text, vlen);
		free(text);
	} else {
		item = NULL;
	}
	if (item == NULL || !cJSON_AddItemToArray(values, item)) {
		cJSON_Delete(item);
		return fail(err, 400, "", "Out of memory.");
	}
	return 0;
}

/* Accept ------------------------------------------------------------------- */

/* Quality (0..1000) of one "q=..." value: "1", "1.000", "0", "0.5", up to
 * three decimals (RFC 9110 §12.4.2); -1 when malformed. */
static int parse_quality(const char *s, size_t n)
{
	int q = 0, scale = 100;
	size_t i;

	if (n == 0 || (s[0] != '0' && s[0] != '1'))
		return -1;
	if (n == 1)
		return s[0] == '1' ? 1000 : 0;
	if (s[1] != '.' || n > 5)
		return -1;
	for (i = 2; i < n; i++, scale /= 10) {
		if (s[i] < '0' || s[i] > '9' || (s[0] == '1' && s[i] != '0'))
			return -1;
		q += (s[i] - '0') * scale;
	}
	return s[0] == '1' ? 1000 : q;
}

static int is_ows(char c)
{
	return c == ' ' || c == '\t';
}

/* One media range of an Accept header (the n bytes at s): its type and
 * subtype (trimmed) and quality; 0 when it is no range. */
static int media_range(const char *s, size_t n, const char **type,
		       size_t *tlen, int *q)
{
	size_t i = 0, end;

	while (i < n && is_ows(s[i]))
		i++;
	end = i;
	while (end < n && s[end] != ';')
		end++;
	*type = s + i;
	*tlen = end - i;
	while (*tlen > 0 && is_ows((*type)[*tlen - 1]))
		(*tlen)--;
	if (*tlen == 0 || memchr(*type, '/', *tlen) == NULL)
		return 0;
	*q = 1000;
	while (end < n) {
		size_t p = end + 1, pend;

		while (p < n && is_ows(s[p]))
			p++;
		pend = p;
		while (pend < n && s[pend] != ';')
			pend++;
		if (pend - p >= 2 && (s[p] == 'q' || s[p] == 'Q') &&
		    s[p + 1] == '=') {
			size_t vend = pend;

			while (vend > p + 2 && is_ows(s[vend - 1]))
				vend--;
			if ((*q = parse_quality(s + p + 2, vend - p - 2)) < 0)
				return 0;
		}
		end = pend;
	}
	return 1;
}

/* How specifically the range (tlen bytes) matches media type t: 3 the
 * type itself, 2 its major type with a wildcard, 1 the wildcard of
 * everything, 0 not at all. */
static int range_match(const char *range, size_t tlen, const char *t)
{
	const char *slash = strchr(t, '/');
	size_t major = (size_t)(slash - t);

	if (tlen == strlen(t) && strncasecmp(range, t, tlen) == 0)
		return 3;
	if (tlen == major + 2 && strncasecmp(range, t, major + 1) == 0 &&
	    range[major + 1] == '*')
		return 2;
	if (tlen == 3 && memcmp(range, "*/*", 3) == 0)
		return 1;
	return 0;
}

int srv_input_accept_prefers(const char *accept, const char *type,
			     const char *over)
{
	int q_type = -1, q_over = 0, best_over = 0, ranges = 0;
	const char *s = accept;

	if (accept == NULL || strchr(type, '/') == NULL ||
	    strchr(over, '/') == NULL)
		return 0;
	while (*s && ranges < SRV_ACCEPT_RANGES_MAX) {
		size_t n = strcspn(s, ",");
		const char *range;
		size_t tlen;
		int q, how;

		if (media_range(s, n, &range, &tlen, &q)) {
			ranges++;
			if (range_match(range, tlen, type) == 3 && q > q_type)
				q_type = q;
			how = range_match(range, tlen, over);
			if (how > best_over || (how == best_over && how &&
						q > q_over)) {
				best_over = how;
				q_over = q;
			}
		}
		s += n;
		if (*s == ',')
			s++;
	}
	return q_type > 0 && q_type >= q_over;
}
