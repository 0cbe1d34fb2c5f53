/*
 * limit/offset pagination exactly as the service's (DRF's
 * LimitOffsetPagination, behaviour notes §1.2): lenient parsing, and
 * absolute next/previous links that carry every request parameter,
 * re-encoded sorted by key with form encoding.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

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

/* The request URL with limit set and offset set (or removed when
 * offset < 0). NULL on allocation failure. */
static char *page_link(struct srv_request *req, size_t limit, long long offset)
{
	struct srv_param set[2], **all;
	char limit_key[] = "limit", offset_key[] = "offset";
	char limit_text[24], offset_text[24];
	const char *q = strchr(req->raw_uri, '?');
	size_t n = 0, i, plen = q ? (size_t)(q - req->raw_uri)
				   : strlen(req->raw_uri);
	char *text = NULL;
	size_t text_len = 0;
	FILE *out;

	all = malloc((req->nquery + 2) * sizeof(*all));
	if (all == NULL)
		return NULL;
	for (i = 0; i < req->nquery; i++)
		if (strcmp(req->query[i].key, "limit") != 0 &&
		    strcmp(req->query[i].key, "offset") != 0)
			all[n++] = &req->query[i];
	snprintf(limit_text, sizeof(limit_text), "%zu", limit);
	set[0].key = limit_key;
	set[0].value = limit_text;
	all[n++] = &set[0];
	if (offset >= 0) {
		snprintf(offset_text, sizeof(offset_text), "%lld", offset);
		set[1].key = offset_key;
		set[1].value = offset_text;
		all[n++] = &set[1];
	}
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
	return text;
}

static cJSON *link_or_null(char *url)
{
	cJSON *item = url ? cJSON_CreateString(url) : cJSON_CreateNull();

	free(url);
	return item;
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
		next = link_or_null(page_link(req, page->limit,
					      (long long)(page->offset +
							  page->limit)));
	if (page->offset == 0) {
		prev = cJSON_CreateNull();
	} else {
		back = (long long)page->offset - (long long)page->limit;
		prev = link_or_null(page_link(req, page->limit,
					      back <= 0 ? -1 : back));
	}
	cJSON_AddNumberToObject(env, "count", (double)count);
	cJSON_AddItemToObject(env, "next", next);
	cJSON_AddItemToObject(env, "previous", prev);
	cJSON_AddItemToObject(env, "results", results);
	return env;
}
