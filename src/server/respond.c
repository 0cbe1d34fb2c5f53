/*
 * Building responses: JSON bodies (keys sorted recursively for v3, as the
 * service's AlphabeticalSortedJSONRenderer does), the service's error bodies
 * (behaviour notes §0.4), and request bodies parsed and checked at the
 * boundary (input.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "lectern/errors.h"
#include "handler.h"

/* Sorting ------------------------------------------------------------------ */

static cJSON *merge(cJSON *a, cJSON *b)
{
	cJSON head = { 0 };
	cJSON *tail = &head;

	while (a && b) {
		if (strcmp(a->string, b->string) <= 0) {
			tail->next = a;
			a->prev = tail;
			a = a->next;
		} else {
			tail->next = b;
			b->prev = tail;
			b = b->next;
		}
		tail = tail->next;
	}
	tail->next = a ? a : b;
	if (tail->next)
		tail->next->prev = tail;
	return head.next;
}

/* Merge sort of a cJSON sibling list by key; byte order of UTF-8 keys is
 * code-point order, which is what Python's sort_keys gives. */
static cJSON *sort_list(cJSON *list)
{
	cJSON *slow = list, *fast, *second;

	if (list == NULL || list->next == NULL)
		return list;
	for (fast = list->next; fast && fast->next; fast = fast->next->next)
		slow = slow->next;
	second = slow->next;
	slow->next = NULL;
	return merge(sort_list(list), sort_list(second));
}

void srv_json_sort(cJSON *json)
{
	cJSON *child, *last;

	if (json == NULL)
		return;
	for (child = json->child; child; child = child->next)
		srv_json_sort(child);
	if (!cJSON_IsObject(json) || json->child == NULL)
		return;
	json->child = sort_list(json->child);
	/* cJSON keeps the last element in the first one's prev. */
	for (last = json->child; last->next; last = last->next)
		;
	json->child->prev = last;
}

int srv_respond_json(struct srv_response *res, int status, cJSON *json,
		     enum srv_json_order order)
{
	char *text;

	if (json == NULL)
		return srv_respond_internal(res, "out of memory building JSON");
	if (order == SRV_JSON_SORTED)
		srv_json_sort(json);
	text = srv_json_print(json, &res->body_len);
	cJSON_Delete(json);
	if (text == NULL)
		return srv_respond_internal(res, "out of memory rendering JSON");
	res->status = status;
	res->body = text;
	res->content_type = "application/json";
	return status;
}

int srv_respond_detail(struct srv_response *res, int status,
		       const char *detail)
{
	cJSON *json = cJSON_CreateObject();

	if (json && !cJSON_AddStringToObject(json, "detail", detail)) {
		cJSON_Delete(json);
		json = NULL;
	}
	return srv_respond_json(res, status, json, SRV_JSON_SORTED);
}

/* DRF's Throttled: its default detail, then the wait in whole seconds
 * (singular for one), which the exception handler repeats as Retry-After. */
int srv_respond_throttled(struct srv_response *res, const char *detail,
			  unsigned wait_s)
{
	char msg[320], after[16];

	if (detail == NULL)
		detail = "Request was throttled.";
	if (wait_s == 0)
		return srv_respond_detail(res, 429, detail);
	snprintf(msg, sizeof(msg), "%s Expected available in %u second%s.",
		 detail, wait_s, wait_s == 1 ? "" : "s");
	snprintf(after, sizeof(after), "%u", wait_s);
	srv_response_header(res, "Retry-After", after);
	return srv_respond_detail(res, 429, msg);
}

int srv_respond_not_allowed(struct srv_response *res, const char *method,
			    char *allow)
{
	char msg[96];

	snprintf(msg, sizeof(msg), "Method \"%.20s\" not allowed.", method);
	res->allow = allow;
	return srv_respond_detail(res, 405, msg);
}

int srv_respond_empty(struct srv_response *res, int status)
{
	res->status = status;
	res->body = NULL;
	res->body_len = 0;
	return status;
}

int srv_respond_internal(struct srv_response *res, const char *why)
{
	static const char body[] = "{\"detail\":\"A server error occurred.\"}";

	srv_log("internal error: %s", why);
	res->status = 500;
	res->body = strdup(body);
	res->body_len = res->body ? sizeof(body) - 1 : 0;
	res->content_type = "application/json";
	return 500;
}

/* {"a": {"b": ["msg"]}} for the dotted field "a.b". */
static cJSON *field_error_object(const char *field, const char *msg)
{
	cJSON *root = cJSON_CreateObject(), *obj = root, *list;
	char part[128];
	const char *dot;

	while (obj && (dot = strchr(field, '.')) != NULL) {
		snprintf(part, sizeof(part), "%.*s", (int)(dot - field), field);
		obj = cJSON_AddObjectToObject(obj, part);
		field = dot + 1;
	}
	list = obj ? cJSON_AddArrayToObject(obj, field) : NULL;
	if (list == NULL) {
		cJSON_Delete(root);
		return NULL;
	}
	cJSON_AddItemToArray(list, cJSON_CreateString(msg));
	return root;
}

/* Add the fields of src into dst, recursing into objects both have. */
static void merge_errors(cJSON *dst, cJSON *src)
{
	cJSON *item = src->child;

	while (item) {
		cJSON *next = item->next;
		cJSON *have = cJSON_GetObjectItemCaseSensitive(dst, item->string);

		if (have && cJSON_IsObject(have) && cJSON_IsObject(item))
			merge_errors(have, item);
		else if (have == NULL)
			cJSON_AddItemToObject(dst, item->string,
					      cJSON_DetachItemViaPointer(src,
									 item));
		item = next;
	}
}

/* A second field error joins the first one's body, so a request with
 * several bad fields hears about all of them, as DRF reports them. */
int srv_respond_field_error(struct srv_response *res, const char *field,
			    const char *msg)
{
	cJSON *errors = field_error_object(field, msg);
	cJSON *previous = NULL;

	if (res->status == 400 && res->body)
		previous = cJSON_Parse(res->body);
	if (previous && cJSON_IsObject(previous) && errors) {
		merge_errors(previous, errors);
		cJSON_Delete(errors);
		errors = previous;
		previous = NULL;
	}
	cJSON_Delete(previous);
	srv_response_drop_body(res);
	return srv_respond_json(res, 400, errors, SRV_JSON_SORTED);
}

int srv_respond_engine_error(struct srv_response *res, int code)
{
	const char *field = lec_error_last_field();
	const char *msg = lec_error_last();
	cJSON *list;

	switch (code) {
	case LEC_EINVALID:
	case LEC_EEXISTS:
	case LEC_ELIMIT:
		if (field)
			return srv_respond_field_error(res, field, msg);
		/* A rule checked while saving: DRF renders a bare list. */
		list = cJSON_CreateArray();
		if (list)
			cJSON_AddItemToArray(list, cJSON_CreateString(msg));
		return srv_respond_json(res, 400, list, SRV_JSON_SORTED);
	case LEC_ENOTFOUND:
		return srv_respond_detail(res, 404, "Not found.");
	case LEC_EBUSY:
		return srv_respond_detail(res, 503,
					  "The database is busy; try again.");
	default:
		return srv_respond_internal(res, msg);
	}
}

/* Request bodies ------------------------------------------------------------ */

int srv_respond_input_error(struct srv_response *res,
			    const struct srv_input_error *err)
{
	if (err->field[0])
		return srv_respond_field_error(res, err->field, err->message);
	return srv_respond_detail(res, err->status, err->message);
}
