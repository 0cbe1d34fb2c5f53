/*
 * fields / omit / expand, as drf-flex-fields reads them (behaviour notes
 * §1.3): one value is split on commas, repeated parameters are taken as
 * they are, unknown names are ignored, and a path that repeats a segment is
 * "Recursive expansion found".
 */
#include <stdlib.h>
#include <string.h>

#include "handler.h"

/* Collect the values of key (and key[]) into list. */
static size_t collect(struct srv_request *req, const char *key,
		      const char **list, char **storage, size_t *used,
		      size_t cap)
{
	size_t i, n = 0, matches = 0, keylen = strlen(key);

	for (i = 0; i < req->nquery; i++) {
		const char *k = req->query[i].key;

		if (strncmp(k, key, keylen) == 0 &&
		    (k[keylen] == '\0' || strcmp(k + keylen, "[]") == 0))
			matches++;
	}
	for (i = 0; i < req->nquery && n < SRV_FLEX_MAX; i++) {
		const char *k = req->query[i].key;
		char *copy, *part, *save = NULL;
		size_t len;

		if (strncmp(k, key, keylen) != 0 ||
		    (k[keylen] != '\0' && strcmp(k + keylen, "[]") != 0))
			continue;
		len = strlen(req->query[i].value) + 1;
		if (*used + len > cap)
			break;
		copy = *storage + *used;
		memcpy(copy, req->query[i].value, len);
		*used += len;
		if (matches > 1) {
			list[n++] = copy;
			continue;
		}
		/* "fields=" alone is [""]: every field is dropped. */
		if (*copy == '\0')
			list[n++] = copy;
		for (part = strtok_r(copy, ",", &save); part && n < SRV_FLEX_MAX;
		     part = strtok_r(NULL, ",", &save))
			list[n++] = part;
	}
	return n;
}

static int has_repeated_segment(const char *path)
{
	const char *a, *b;

	for (a = path; a; a = strchr(a, '.') ? strchr(a, '.') + 1 : NULL) {
		size_t alen = strcspn(a, ".");

		for (b = strchr(a, '.'); b; b = strchr(b + 1, '.')) {
			const char *seg = b + 1;

			if (strcspn(seg, ".") == alen &&
			    strncmp(seg, a, alen) == 0)
				return 1;
		}
	}
	return 0;
}

int srv_flex_parse(struct srv_request *req, struct srv_flex *flex,
		   struct srv_response *res)
{
	size_t cap = 0, used = 0, i;

	memset(flex, 0, sizeof(*flex));
	for (i = 0; i < req->nquery; i++)
		cap += strlen(req->query[i].value) + 1;
	if (cap == 0)
		return 0;
	if ((flex->storage = malloc(cap)) == NULL) {
		srv_respond_internal(res, "out of memory");
		return -1;
	}
	flex->has_fields = srv_query(req, "fields") != NULL ||
			   srv_query(req, "fields[]") != NULL;
	flex->nfields = collect(req, "fields", flex->fields, &flex->storage,
				&used, cap);
	flex->nomit = collect(req, "omit", flex->omit, &flex->storage, &used,
			      cap);
	flex->nexpand = collect(req, "expand", flex->expand, &flex->storage,
				&used, cap);
	for (i = 0; i < flex->nexpand; i++) {
		if (has_repeated_segment(flex->expand[i])) {
			cJSON *list = cJSON_CreateArray();

			if (list)
				cJSON_AddItemToArray(
					list, cJSON_CreateString(
						      "Recursive expansion found"));
			srv_respond_json(res, 400, list, SRV_JSON_SORTED);
			srv_flex_dispose(flex);
			return -1;
		}
	}
	return 0;
}

void srv_flex_dispose(struct srv_flex *flex)
{
	free(flex->storage);
	flex->storage = NULL;
}

static int listed(const char *const *list, size_t n, const char *name,
		  int allow_deeper)
{
	size_t i, len = strlen(name);

	for (i = 0; i < n; i++) {
		if (strcmp(list[i], name) == 0 || strcmp(list[i], "*") == 0 ||
		    strcmp(list[i], "~all") == 0)
			return 1;
		if (allow_deeper && strncmp(list[i], name, len) == 0 &&
		    list[i][len] == '.')
			return 1;
	}
	return 0;
}

int srv_flex_expands(const struct srv_flex *flex, const char *name)
{
	return listed(flex->expand, flex->nexpand, name, 1);
}

/* omit "x" drops x; omit "x.sub" only reaches inside x. */
static int omitted(const struct srv_flex *flex, const char *name)
{
	size_t i;

	for (i = 0; i < flex->nomit; i++)
		if (strcmp(flex->omit[i], name) == 0)
			return 1;
	return 0;
}

void srv_flex_apply(const struct srv_flex *flex, cJSON *object)
{
	cJSON *item = object ? object->child : NULL;

	while (item) {
		cJSON *next = item->next;

		if ((flex->has_fields &&
		     !listed(flex->fields, flex->nfields, item->string, 1)) ||
		    omitted(flex, item->string))
			cJSON_Delete(cJSON_DetachItemViaPointer(object, item));
		item = next;
	}
}
