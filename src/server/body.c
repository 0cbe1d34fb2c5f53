/*
 * Request bodies, JSON or forms, and reading their fields with the
 * service's (DRF's) type rules and messages: "This field is required.",
 * "This field may not be null.", "Not a valid string.", "Must be a valid
 * boolean.", "A valid integer is required.". Each reader fills the
 * response with the field error and returns -1 on bad input.
 *
 * A form (form_body.c, input.h) is read as DRF reads HTML form input: a field
 * is its key's last value; a list field all of them, or "key[0]",
 * "key[1]", ... when the key itself is absent; a nested object the keys
 * "key.sub"; "" on a field that is not required means null where null is
 * allowed and absence otherwise (unless "" is allowed); and a missing
 * boolean in a create or full update is false (an unchecked box), for the
 * fields whose handlers say so (SRV_FIELD_FORM_FALSE).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistr.h>

#include "body.h"
#include "form_body.h"
#include "input.h"

#define NOT_NULL "This field may not be null."

/* Parsing ------------------------------------------------------------------ */

static int is_json_content_type(const char *ct)
{
	size_t n = strlen("application/json");

	return strncmp(ct, "application/json", n) == 0 &&
	       (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

/* The Content-Type as an error message may show it: its first 100 bytes,
 * cut before anything that is not UTF-8 (header values are bytes), control
 * characters as spaces. */
static void shown_type(const char *ct, char *out, size_t cap)
{
	const uint8_t *bad;
	size_t i;

	snprintf(out, cap, "%.100s", ct);
	if ((bad = u8_check((const uint8_t *)out, strlen(out))) != NULL)
		out[bad - (const uint8_t *)out] = '\0';
	for (i = 0; out[i]; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			out[i] = ' ';
}

cJSON *srv_parse_body(struct srv_request *req, struct srv_response *res)
{
	const char *ct = srv_header(req, "Content-Type");
	struct srv_input_error err;
	char msg[192];
	cJSON *json;

	if (ct && srv_form_is_content_type(ct)) {
		json = srv_form_parse(req,
				      req->method == SRV_PATCH
					      ? SRV_FORM_PARTIAL
					      : SRV_FORM_FULL,
				      &err);
		if (json == NULL)
			srv_respond_input_error(res, &err);
		return json;
	}
	if (req->body_len == 0)
		return cJSON_CreateObject();
	if (ct == NULL || !is_json_content_type(ct)) {
		char type[104];

		shown_type(ct ? ct : "", type, sizeof(type));
		snprintf(msg, sizeof(msg),
			 "Unsupported media type \"%s\" in request.", type);
		srv_respond_detail(res, 415, msg);
		return NULL;
	}
	if ((json = srv_input_parse_json(req->body, req->body_len, &err)) ==
	    NULL)
		srv_respond_input_error(res, &err);
	return json;
}

/* Fields ------------------------------------------------------------------- */

const cJSON *srv_body_get(const cJSON *obj, const char *key)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (srv_input_form_kind(obj) == SRV_FORM_NONE)
		return item;
	/* cJSON keeps an array's last element in its first one's prev. */
	return cJSON_IsArray(item) && item->child ? item->child->prev : NULL;
}

void srv_body_wipe(cJSON *obj, const char *key)
{
	cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key), *el;

	if (cJSON_IsString(item))
		explicit_bzero(item->valuestring, strlen(item->valuestring));
	if (cJSON_IsArray(item) && srv_input_form_kind(obj) != SRV_FORM_NONE)
		cJSON_ArrayForEach(el, item)
			if (cJSON_IsString(el))
				explicit_bzero(el->valuestring,
					       strlen(el->valuestring));
}

/* The item a reader reads for key, NULL when absent; *null is set for a
 * null (JSON null, or a form's "" where flags allow null). */
static const cJSON *read_item(const cJSON *obj, const char *key,
			      unsigned flags, int *null)
{
	const cJSON *item = srv_body_get(obj, key);

	*null = cJSON_IsNull(item);
	if (srv_input_form_kind(obj) == SRV_FORM_NONE || item == NULL ||
	    !cJSON_IsString(item) || item->valuestring[0] != '\0' ||
	    (flags & SRV_FIELD_BLANK))
		return item;
	if (flags & SRV_FIELD_NULLABLE) {
		*null = 1;
		return item;
	}
	return (flags & SRV_FIELD_REQUIRED) ? item : NULL;
}

const cJSON *srv_body_value(const cJSON *obj, const char *key,
			    unsigned flags, int *null)
{
	return read_item(obj, key, flags, null);
}

static int field_error(struct srv_response *res, const char *field,
		       const char *msg)
{
	srv_respond_field_error(res, field, msg);
	return -1;
}

/* A field the body does not have: DRF's error when it is required, else
 * 0 (nothing read). */
static int absent(struct srv_response *res, const char *field,
		  unsigned flags)
{
	return (flags & SRV_FIELD_REQUIRED)
		       ? field_error(res, field, "This field is required.")
		       : 0;
}

int srv_body_string(const cJSON *obj, const char *key, const char *field,
		    unsigned flags, const char **out, struct srv_response *res)
{
	int null;
	const cJSON *item = read_item(obj, key, flags, &null);

	*out = NULL;
	if (item == NULL)
		return absent(res, field, flags);
	if (null)
		return (flags & SRV_FIELD_NULLABLE)
			       ? SRV_FIELD_PRESENT
			       : field_error(res, field, NOT_NULL);
	if (!cJSON_IsString(item))
		return field_error(res, field, "Not a valid string.");
	if (item->valuestring[0] == '\0' && !(flags & SRV_FIELD_BLANK))
		return field_error(res, field, "This field may not be blank.");
	*out = item->valuestring;
	return SRV_FIELD_PRESENT;
}

/* DRF's BooleanField: the JSON booleans, 1/0, and these words. */
int srv_body_bool(const cJSON *obj, const char *key, const char *field,
		  unsigned flags, int *out, struct srv_response *res)
{
	static const char *const truthy[] = { "true", "1", "yes", "on", "t",
					      "y" };
	static const char *const falsy[] = { "false", "0", "no", "off", "f",
					     "n" };
	int null;
	const cJSON *item = read_item(obj, key, flags, &null);
	size_t i;

	if (item == NULL && (flags & SRV_FIELD_FORM_FALSE) &&
	    srv_input_form_kind(obj) == SRV_FORM_FULL &&
	    cJSON_GetObjectItemCaseSensitive(obj, key) == NULL) {
		*out = 0; /* an unchecked box */
		return SRV_FIELD_PRESENT;
	}
	if (item == NULL)
		return absent(res, field, flags);
	if (cJSON_IsBool(item)) {
		*out = cJSON_IsTrue(item);
		return SRV_FIELD_PRESENT;
	}
	if (null)
		return field_error(res, field, NOT_NULL);
	if (cJSON_IsNumber(item) &&
	    (item->valuedouble == 0 || item->valuedouble == 1)) {
		*out = item->valuedouble == 1;
		return SRV_FIELD_PRESENT;
	}
	if (cJSON_IsString(item)) {
		for (i = 0; i < sizeof(truthy) / sizeof(truthy[0]); i++) {
			if (strcasecmp(item->valuestring, truthy[i]) == 0) {
				*out = 1;
				return SRV_FIELD_PRESENT;
			}
			if (strcasecmp(item->valuestring, falsy[i]) == 0) {
				*out = 0;
				return SRV_FIELD_PRESENT;
			}
		}
	}
	return field_error(res, field, "Must be a valid boolean.");
}

/* 2^63: doubles in [-2^63, 2^63) convert to a long long; converting any
 * other is undefined behaviour. */
#define LONG_LONG_BOUND 9223372036854775808.0

static int fits_long_long(double v)
{
	return v >= -LONG_LONG_BOUND && v < LONG_LONG_BOUND;
}

int srv_body_int(const cJSON *obj, const char *key, const char *field,
		 unsigned flags, long long min, long long max, long long *out,
		 struct srv_response *res)
{
	int null;
	const cJSON *item = read_item(obj, key, flags, &null);
	char msg[96];
	double v;

	if (item == NULL)
		return absent(res, field, flags);
	if (null)
		return field_error(res, field, NOT_NULL);
	if (cJSON_IsString(item)) {
		char *end;
		long long parsed = strtoll(item->valuestring, &end, 10);

		if (item->valuestring[0] == '\0' || *end != '\0')
			return field_error(res, field,
					   "A valid integer is required.");
		v = (double)parsed;
	} else if (cJSON_IsNumber(item) &&
		   (!fits_long_long(item->valuedouble) ||
		    item->valuedouble ==
			    (double)(long long)item->valuedouble)) {
		/* Past a long long a double is whole; the range says no. */
		v = item->valuedouble;
	} else {
		return field_error(res, field, "A valid integer is required.");
	}
	if (v < (double)min) {
		snprintf(msg, sizeof(msg),
			 "Ensure this value is greater than or equal to %lld.",
			 min);
		return field_error(res, field, msg);
	}
	if (v > (double)max || !fits_long_long(v)) {
		snprintf(msg, sizeof(msg),
			 "Ensure this value is less than or equal to %lld.",
			 max);
		return field_error(res, field, msg);
	}
	*out = (long long)v;
	return SRV_FIELD_PRESENT;
}

/* The nested form DRF sees when a form has no "key.sub": an empty one. */
static const cJSON empty_full_form = { .type = cJSON_Object,
				       .valueint = SRV_FORM_FULL };
static const cJSON empty_partial_form = { .type = cJSON_Object,
					  .valueint = SRV_FORM_PARTIAL };

/* A form's nested form under key ("key.sub" fields), or an empty one. */
static const cJSON *nested_form(const cJSON *obj, const char *key)
{
	const cJSON *item;
	char name[128];

	snprintf(name, sizeof(name), "%s.", key);
	item = cJSON_GetObjectItemCaseSensitive(obj, name);
	if (cJSON_IsObject(item))
		return item;
	return srv_input_form_kind(obj) == SRV_FORM_PARTIAL
		       ? &empty_partial_form
		       : &empty_full_form;
}

int srv_body_object(const cJSON *obj, const char *key, const char *field,
		    unsigned flags, const cJSON **out,
		    struct srv_response *res)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
	char path[128];

	*out = NULL;
	if (srv_input_form_kind(obj) != SRV_FORM_NONE) {
		*out = nested_form(obj, key);
		return SRV_FIELD_PRESENT;
	}
	if (item == NULL)
		return absent(res, field, flags);
	if (cJSON_IsNull(item))
		return field_error(res, field, NOT_NULL);
	if (!cJSON_IsObject(item)) {
		snprintf(path, sizeof(path), "%s.non_field_errors", field);
		return field_error(res, path,
				   "Invalid data. Expected a dictionary, but "
				   "got a different type.");
	}
	*out = item;
	return SRV_FIELD_PRESENT;
}

/* Whether name is "<key>[<digits>]"; *index gets the digits' value. */
static int indexed_key(const char *name, const char *key, unsigned long *index)
{
	size_t n = strlen(key);
	char *end;

	if (strncmp(name, key, n) != 0 || name[n] != '[' ||
	    name[n + 1] < '0' || name[n + 1] > '9')
		return 0;
	*index = strtoul(name + n + 1, &end, 10);
	return end[0] == ']' && end[1] == '\0';
}

struct indexed {
	unsigned long index;
	size_t order; /* of the key in the form */
	const cJSON *value;
};

static int by_index(const void *a, const void *b)
{
	const struct indexed *x = a, *y = b;

	if (x->index != y->index)
		return (x->index > y->index) - (x->index < y->index);
	return (x->order > y->order) - (x->order < y->order);
}

/* The values a form gives a list field: every value of the key, or
 * without it "key[0]", "key[1]", ... (each key's last value, the last key
 * of an index winning), in the order of their indexes, as DRF's
 * parse_html_list. A new array of n of the form's items (free), NULL with
 * n 0 when there is none, or NULL with n 1 when out of memory. */
static const cJSON **form_list(const cJSON *obj, const char *key, size_t *n)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key), *el;
	struct indexed *found = NULL;
	const cJSON **values = NULL;
	size_t len = 0, i, kept = 0;
	unsigned long index;
	int size = cJSON_GetArraySize(item);

	*n = 0;
	if (size > 0) {
		if ((values = calloc((size_t)size, sizeof(*values))) == NULL)
			goto oom;
		cJSON_ArrayForEach(el, item)
			values[(*n)++] = el;
		return values;
	}
	cJSON_ArrayForEach(el, obj)
		len += indexed_key(el->string, key, &index);
	if (len == 0)
		return NULL;
	if ((found = calloc(len, sizeof(*found))) == NULL ||
	    (values = calloc(len, sizeof(*values))) == NULL)
		goto oom;
	len = 0;
	cJSON_ArrayForEach(el, obj) if (indexed_key(el->string, key, &index) &&
					(found[len].value = srv_body_get(
						 obj, el->string)) != NULL)
	{
		found[len].index = index;
		found[len].order = len;
		len++;
	}
	/* By index, a later key of an index replacing an earlier one. */
	qsort(found, len, sizeof(*found), by_index);
	for (i = 0; i < len; i++) {
		if (kept > 0 && found[i].index == found[i - 1].index)
			kept--;
		values[kept++] = found[i].value;
	}
	free(found);
	*n = kept;
	return values;
oom:
	free(found);
	free(values);
	*n = 1;
	return NULL;
}

int srv_body_string_list(const cJSON *obj, const char *key, const char *field,
			 const char ***out, size_t *count,
			 struct srv_response *res)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
	const cJSON **values = NULL, *el;
	const char **list;
	size_t n = 0, i;

	*out = NULL;
	*count = 0;
	if (srv_input_form_kind(obj) != SRV_FORM_NONE) {
		values = form_list(obj, key, &n);
		if (values == NULL && n == 0)
			return 0;
	} else {
		if (item == NULL)
			return 0;
		if (!cJSON_IsArray(item))
			return field_error(res, field,
					   "Expected a list of items but got "
					   "a different type.");
		n = (size_t)cJSON_GetArraySize(item);
		if ((values = calloc(n ? n : 1, sizeof(*values))) != NULL) {
			n = 0;
			cJSON_ArrayForEach(el, item)
				values[n++] = el;
		}
	}
	list = values ? calloc(n ? n : 1, sizeof(*list)) : NULL;
	if (list == NULL) {
		free(values);
		srv_respond_internal(res, "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!cJSON_IsString(values[i])) {
			free(values);
			free(list);
			return field_error(res, field, "Not a valid string.");
		}
		list[i] = values[i]->valuestring;
	}
	free(values);
	*out = list;
	*count = n;
	return SRV_FIELD_PRESENT;
}
