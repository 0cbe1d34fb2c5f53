/*
 * limit/offset pagination exactly as the service's (DRF's
 * LimitOffsetPagination, behaviour notes §1.2): lenient parsing, and
 * absolute next/previous links that carry every request parameter,
 * re-encoded sorted by key with form encoding.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handler.h"

/* A non-negative decimal integer, or -1. */
static long long parse_count(const char *s)
{
	long long v = 0;

	if (s == NULL || *s == '\0')
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 1000000000000LL)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

void srv_page_parse(const struct srv_request *req, struct lec_page *page)
{
	long long limit = parse_count(srv_query(req, "limit"));
	long long offset = parse_count(srv_query(req, "offset"));

	page->limit = limit >= 1 ? (size_t)limit : SRV_PAGE_DEFAULT;
	if (page->limit > SRV_PAGE_MAX)
		page->limit = SRV_PAGE_MAX;
	page->offset = offset >= 0 ? (size_t)offset : 0;
}

/* Python's quote_plus: unreserved characters kept, space as '+'. */
static void quote_plus(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		    c == '-' || c == '~')
			fputc(c, out);
		else if (c == ' ')
			fputc('+', out);
		else
			fprintf(out, "%%%02X", c);
	}
}

static int by_key(const void *a, const void *b)
{
	const struct srv_param *pa = *(const struct srv_param *const *)a;
	const struct srv_param *pb = *(const struct srv_param *const *)b;
	int c = strcmp(pa->key, pb->key);

	/* Keep request order among equal keys (a stable sort). */
	if (c == 0)
		return pa < pb ? -1 : pa > pb;
	return c;
}

/* Whether a request parameter is one the link sets or removes. */
static int replaced(const char *key, const struct srv_param *set, size_t nset)
{
	size_t i;

	for (i = 0; i < nset; i++)
		if (strcmp(key, set[i].key) == 0)
			return 1;
	return 0;
}

cJSON *srv_page_link(struct srv_request *req, const struct srv_param *set,
		     size_t nset)
{
	const struct srv_param **all;
	const char *q = strchr(req->raw_uri, '?');
	size_t n = 0, i, plen = q ? (size_t)(q - req->raw_uri)
				   : strlen(req->raw_uri);
	char *text = NULL;
	size_t text_len = 0;
	cJSON *item;
	FILE *out;

	all = malloc((req->nquery + nset) * sizeof(*all));
	if (all == NULL)
		return cJSON_CreateNull();
	for (i = 0; i < req->nquery; i++)
		if (!replaced(req->query[i].key, set, nset))
			all[n++] = &req->query[i];
	for (i = 0; i < nset; i++)
		if (set[i].value != NULL)
			all[n++] = &set[i];
	qsort(all, n, sizeof(*all), by_key);

	out = open_memstream(&text, &text_len);
	if (out) {
		fprintf(out, "%s%.*s", srv_request_origin(req), (int)plen,
			req->raw_uri);
		for (i = 0; i < n; i++) {
			fputc(i ? '&' : '?', out);
			quote_plus(out, all[i]->key);
			fputc('=', out);
			quote_plus(out, all[i]->value);
		}
		fclose(out);
	}
	free(all);
	item = text ? cJSON_CreateString(text) : cJSON_CreateNull();
	free(text);
	return item;
}

/* The request URL with limit set and offset set (or removed when
 * offset < 0). */
static cJSON *page_link(struct srv_request *req, size_t limit,
			long long offset)
{
	char limit_key[] = "limit", offset_key[] = "offset";
	char limit_text[24], offset_text[24];
	struct srv_param set[2] = { { limit_key, limit_text },
				    { offset_key, NULL } };

	snprintf(limit_text, sizeof(limit_text), "%zu", limit);
	if (offset >= 0) {
		snprintf(offset_text, sizeof(offset_text), "%lld", offset);
		set[1].value = offset_text;
	}
	return srv_page_link(req, set, 2);
}

cJSON *srv_page_envelope(struct srv_request *req, const struct lec_page *page,
			 size_t count, cJSON *results)
{
	cJSON *env = cJSON_CreateObject();
	cJSON *next, *prev;
	long long back;

	if (env == NULL || results == NULL) {
		cJSON_Delete(env);
		cJSON_Delete(results);
		return NULL;
	}
	if (page->offset + page->limit >= count)
		next = cJSON_CreateNull();
	else
		next = page_link(req, page->limit,
				 (long long)(page->offset + page->limit));
	if (page->offset == 0) {
		prev = cJSON_CreateNull();
	} else {
		back = (long long)page->offset - (long long)page->limit;
		prev = page_link(req, page->limit, back <= 0 ? -1 : back);
	}
	cJSON_AddNumberToObject(env, "count", (double)count);
	cJSON_AddItemToObject(env, "next", next);
	cJSON_AddItemToObject(env, "previous", prev);
	cJSON_AddItemToObject(env, "results", results);
	return env;
}

int srv_respond_page(struct srv_request *req, struct srv_response *res,
		     const struct lec_page *page, size_t count, cJSON *results,
		     int rc, enum srv_json_order order)
{
	if (rc < 0) {
		cJSON_Delete(results);
		return srv_respond_engine_error(res, rc);
	}
	return srv_respond_json(res, 200,
				srv_page_envelope(req, page, count, results),
				order);
}
