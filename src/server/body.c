/*
 * Reading fields of a JSON request body with the service's (DRF's) type
 * rules and messages: "This field is required.", "This field may not be
 * null.", "Not a valid string.", "Must be a valid boolean.", "A valid
 * integer is required.". Each reader fills the response with the field
 * error and returns -1 on bad input.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "body.h"

static int field_error(struct srv_response *res, const char *field,
		       const char *msg)
{
	srv_respond_field_error(res, field, msg);
	return -1;
}

int srv_body_string(const cJSON *obj, const char *key, const char *field,
		    unsigned flags, const char **out, struct srv_response *res)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = NULL;
	if (item == NULL)
		return (flags & SRV_FIELD_REQUIRED)
			       ? field_error(res, field,
					     "This field is required.")
			       : 0;
	if (cJSON_IsNull(item))
		return (flags & SRV_FIELD_NULLABLE)
			       ? SRV_FIELD_PRESENT
			       : field_error(res, field,
					     "This field may not be null.");
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
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
	size_t i;

	if (item == NULL)
		return (flags & SRV_FIELD_REQUIRED)
			       ? field_error(res, field,
					     "This field is required.")
			       : 0;
	if (cJSON_IsBool(item)) {
		*out = cJSON_IsTrue(item);
		return SRV_FIELD_PRESENT;
	}
	if (cJSON_IsNull(item))
		return field_error(res, field, "This field may not be null.");
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
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
	char msg[96];
	double v;

	if (item == NULL)
		return (flags & SRV_FIELD_REQUIRED)
			       ? field_error(res, field,
					     "This field is required.")
			       : 0;
	if (cJSON_IsNull(item))
		return field_error(res, field, "This field may not be null.");
	if (cJSON_IsString(item)) {
		char *end;
		long long parsed = strtoll(item->valuestring, &end, 10);

		if (item->valuestring[0] == '\0' || *end != '\0')
			return field_error(res, field,
					   "A valid integer is required.");
		v = (double)parsed;
	} else if (cJSON_IsNumber(item) &&
		   (!fits_long_long(item->valuedouble) ||
		    item->valuedouble == (double)(long long)item->valuedouble)) {
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
			 "Ensure this value is less than or equal to %lld.", max);
		return field_error(res, field, msg);
	}
	*out = (long long)v;
	return SRV_FIELD_PRESENT;
}

int srv_body_object(const cJSON *obj, const char *key, const char *field,
		    unsigned flags, const cJSON **out,
		    struct srv_response *res)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
	char path[128];

	*out = NULL;
	if (item == NULL)
		return (flags & SRV_FIELD_REQUIRED)
			       ? field_error(res, field,
					     "This field is required.")
			       : 0;
	if (cJSON_IsNull(item))
		return field_error(res, field, "This field may not be null.");
	if (!cJSON_IsObject(item)) {
		snprintf(path, sizeof(path), "%s.non_field_errors", field);
		return field_error(res, path,
				   "Invalid data. Expected a dictionary, but "
				   "got a different type.");
	}
	*out = item;
	return SRV_FIELD_PRESENT;
}

int srv_body_string_list(const cJSON *obj, const char *key, const char *field,
			 const char ***out, size_t *count,
			 struct srv_response *res)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
	const cJSON *el;
	const char **list;
	size_t n = 0;

	*out = NULL;
	*count = 0;
	if (item == NULL)
		return 0;
	if (!cJSON_IsArray(item))
		return field_error(res, field,
				   "Expected a list of items but got a "
				   "different type.");
	cJSON_ArrayForEach(el, item) {
		if (!cJSON_IsString(el))
			return field_error(res, field, "Not a valid string.");
		n++;
	}
	list = calloc(n ? n : 1, sizeof(*list));
	if (list == NULL) {
		srv_respond_internal(res, "out of memory");
		return -1;
	}
	n = 0;
	cJSON_ArrayForEach(el, item)
		list[n++] = el->valuestring;
	*out = list;
	*count = n;
	return SRV_FIELD_PRESENT;
}
