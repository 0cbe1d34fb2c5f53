/*
 * v3 redirects (contract §4.7; behaviour notes §1.5, §1.8, §1.10): a
 * project's user redirects, for its admins only (reads included: the route
 * table says so). The engine validates, normalises and orders them; this
 * file reads request bodies with the service's field rules and renders the
 * two serializers the service uses: reads show an empty from_url/to_url as
 * null, while create and update responses show the stored strings.
 *
 * Every type spelling of the contract and of today's service is accepted
 * and returned as stored (decision table).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "lectern/project.h"
#include "lectern/redirect.h"
#include "v3.h"

#define NO_REDIRECT "No Redirect matches the given query."

/* The service's column sizes for the free-text fields, in characters. */
#define REDIRECT_URL_MAX 255
#define REDIRECT_DESCRIPTION_MAX 255
/* The largest position the service's column holds (a PostgreSQL
 * positive integer); the engine clamps positions to the list anyway. */
#define REDIRECT_POSITION_MAX 2147483647LL

enum url_rendering {
	URLS_AS_STORED, /* create/update responses */
	URLS_EMPTY_NULL, /* reads: "" shows as null */
};

static void add_url(cJSON *o, const char *key, const char *url,
		    enum url_rendering how)
{
	if (how == URLS_EMPTY_NULL && url[0] == '\0')
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddStringToObject(o, key, url);
}

static cJSON *redirect_object(const char *slug, const struct lec_redirect *r,
			      enum url_rendering how)
{
	cJSON *o = cJSON_CreateObject(), *links;
	char path[400];

	links = cJSON_AddObjectToObject(o, "_links");
	snprintf(path, sizeof(path), "/api/v3/projects/%s/redirects/%lld/", slug,
		 (long long)r->id);
	cJSON_AddStringToObject(links, "_self", path);
	snprintf(path, sizeof(path), "/api/v3/projects/%s/", slug);
	cJSON_AddStringToObject(links, "project", path);
	srv_v3_add_time(o, "created", r->created);
	cJSON_AddStringToObject(o, "description",
				r->description ? r->description : "");
	cJSON_AddBoolToObject(o, "enabled", r->enabled);
	cJSON_AddBoolToObject(o, "force", r->force);
	add_url(o, "from_url", r->from_url, how);
	cJSON_AddNumberToObject(o, "http_status", r->http_status);
	srv_v3_add_time(o, "modified", r->modified);
	cJSON_AddNumberToObject(o, "pk", (double)r->id);
	cJSON_AddNumberToObject(o, "position", (double)r->position);
	cJSON_AddStringToObject(o, "project", slug);
	add_url(o, "to_url", r->to_url, how);
	cJSON_AddStringToObject(o, "type", r->type);
	return o;
}

/* Request bodies ----------------------------------------------------------- */

/* Characters (code points) of a valid UTF-8 string. */
static size_t utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			n++;
	return n;
}

static int too_long(struct srv_response *res, const char *field, size_t max)
{
	char msg[96];

	snprintf(msg, sizeof(msg),
		 "Ensure this field has no more than %zu characters.", max);
	srv_respond_field_error(res, field, msg);
	return -1;
}

/* A string field of at most max characters; "" allowed (the service's
 * blank=True columns). null is refused unless nullable, and reads as "". */
static int read_text(const cJSON *body, const char *key, size_t max,
		     unsigned flags, const char **out,
		     struct srv_response *res)
{
	int got = srv_body_string(body, key, key, flags | SRV_FIELD_BLANK, out,
				  res);

	if (got == SRV_FIELD_PRESENT && *out == NULL)
		*out = "";
	if (got == SRV_FIELD_PRESENT && utf8_chars(*out) > max)
		return too_long(res, key, max);
	return got;
}

/* {field: ["\"<value>\" is not a valid choice."]} with the value as
 * Python prints it (the service looks choices up by str(value)). */
static int invalid_choice(struct srv_response *res, const char *field,
			  const cJSON *item)
{
	static const char fmt[] = "\"%s\" is not a valid choice.";
	char *text = NULL, *msg;
	const char *shown;
	size_t n;

	if (cJSON_IsString(item))
		shown = item->valuestring;
	else if (cJSON_IsBool(item))
		shown = cJSON_IsTrue(item) ? "True" : "False";
	else
		shown = (text = cJSON_PrintUnformatted(item)) ? text : "";
	n = strlen(shown) + sizeof(fmt);
	if ((msg = malloc(n)) == NULL) {
		srv_respond_internal(res, "out of memory");
	} else {
		snprintf(msg, n, fmt, shown);
		srv_respond_field_error(res, field, msg);
	}
	free(msg);
	free(text);
	return -1;
}

/* The service's type field is a choice of strings: anything else is
 * looked up by its text and so is no valid choice. "" goes to the engine,
 * which words the error for every unknown string. */
static int read_type(const cJSON *body, unsigned flags, const char **out,
		     struct srv_response *res)
{
	const cJSON *item = srv_body_get(body, "type");

	*out = NULL;
	if (item == NULL || cJSON_IsNull(item) || cJSON_IsString(item))
		return srv_body_string(body, "type", "type",
				       flags | SRV_FIELD_BLANK, out, res);
	return invalid_choice(res, "type", item);
}

/* http_status is a choice of 301 and 302 given as a number or as its
 * text; other integers go to the engine, which words their error. */
static int read_http_status(const cJSON *body, struct lec_redirect_patch *p,
			    struct srv_response *res)
{
	int null;
	const cJSON *item = srv_body_value(body, "http_status", 0, &null);
	double v;

	if (item == NULL)
		return 0;
	if (null) {
		srv_respond_field_error(res, "http_status",
					"This field may not be null.");
		return -1;
	}
	if (cJSON_IsString(item) && strcmp(item->valuestring, "301") == 0)
		v = 301;
	else if (cJSON_IsString(item) && strcmp(item->valuestring, "302") == 0)
		v = 302;
	else if (cJSON_IsNumber(item) && item->valuedouble > -1e9 &&
		 item->valuedouble < 1e9 &&
		 item->valuedouble == (int)item->valuedouble)
		v = item->valuedouble;
	else
		return invalid_choice(res, "http_status", item);
	p->has_http_status = 1;
	p->http_status = (int)v;
	return SRV_FIELD_PRESENT;
}

/* Read a create/update body into p (strings borrowed from body), in the
 * order the service lists the fields. type_flags is SRV_FIELD_REQUIRED for
 * POST and PUT. */
static int read_redirect(const cJSON *body, unsigned type_flags,
			 struct lec_redirect_patch *p,
			 struct srv_response *res)
{
	long long position = 0;
	int got;

	memset(p, 0, sizeof(*p));
	if (read_type(body, type_flags, &p->type, res) < 0 ||
	    read_text(body, "from_url", REDIRECT_URL_MAX, 0, &p->from_url,
		      res) < 0 ||
	    read_text(body, "to_url", REDIRECT_URL_MAX, 0, &p->to_url, res) <
		    0)
		return -1;
	if ((got = srv_body_bool(body, "force", "force", SRV_FIELD_FORM_FALSE,
				 &p->force, res)) < 0)
		return -1;
	p->has_force = got == SRV_FIELD_PRESENT;
	if ((got = srv_body_bool(body, "enabled", "enabled",
				 SRV_FIELD_FORM_FALSE, &p->enabled, res)) < 0)
		return -1;
	p->has_enabled = got == SRV_FIELD_PRESENT;
	if (read_text(body, "description", REDIRECT_DESCRIPTION_MAX,
		      SRV_FIELD_NULLABLE, &p->description, res) < 0 ||
	    read_http_status(body, p, res) < 0)
		return -1;
	if ((got = srv_body_int(body, "position", "position", 0, 0,
				REDIRECT_POSITION_MAX, &position, res)) < 0)
		return -1;
	p->has_position = got == SRV_FIELD_PRESENT;
	p->position = position;
	return 0;
}

/* Handlers ----------------------------------------------------------------- */

/* Whether the redirect of the URL is one of the parent project's. The
 * router has checked that the requester administers the project. */
SRV_V3_FIND(find_redirect, lec_redirect,
	    lec_redirect_get(srv_store(req), parent->project->id, id, &item))

/* Reads show an empty from_url or to_url as null. */
SRV_V3_FILL(fill_redirects, lec_redirect,
	    lec_redirect_list(srv_store(req), parent->project->id, page,
			      &list),
	    redirect_object(parent->project->slug, item, URLS_EMPTY_NULL))
SRV_V3_SHOW(show_redirect, lec_redirect,
	    lec_redirect_get(srv_store(req), parent->project->id, id, &item),
	    redirect_object(parent->project->slug, item, URLS_EMPTY_NULL))

/* A create (id 0) or an update of redirect id: both answer with the
 * create serializer's body. */
static int write_redirect(struct srv_request *req, struct srv_response *res,
			  const struct srv_parent *parent, int64_t id,
			  unsigned type_flags, cJSON *body, cJSON **out)
{
	struct lec_redirect_patch fields;
	struct lec_redirect *r = NULL;
	int rc;

	if (read_redirect(body, type_flags, &fields, res) < 0)
		return SRV_V3_ANSWERED;
	if (id)
		rc = lec_redirect_update(srv_store(req), parent->project->id,
					 id, &fields, &r);
	else
		rc = lec_redirect_create(srv_store(req), parent->project->id,
					 &fields, &r);
	if (rc == LEC_OK)
		*out = redirect_object(parent->project->slug, r,
				       URLS_AS_STORED);
	lec_redirect_free(r);
	return rc;
}

/* POST and PUT require type; PATCH does not. Omitted fields keep their
 * values either way (the service's serializer updates the fields it was
 * given). */
static int write_required(struct srv_request *req, struct srv_response *res,
			  const struct srv_parent *parent, int64_t id,
			  cJSON *body, cJSON **out)
{
	return write_redirect(req, res, parent, id, SRV_FIELD_REQUIRED, body,
			      out);
}

static int write_patch(struct srv_request *req, struct srv_response *res,
		       const struct srv_parent *parent, int64_t id,
		       cJSON *body, cJSON **out)
{
	return write_redirect(req, res, parent, id, 0, body, out);
}

SRV_V3_LIST(srv_v3_redirects_list, .parent = SRV_PARENT_PROJECT,
	    .fill = fill_redirects)
SRV_V3_WRITE(srv_v3_redirects_create, .parent = SRV_PARENT_PROJECT,
	     .apply = write_required, .status = 201)
SRV_V3_DETAIL(srv_v3_redirect_detail, .parent = SRV_PARENT_PROJECT,
	      .by_id = 1, .show = show_redirect, .not_found = NO_REDIRECT)
/* A redirect deleted meanwhile is the same 404 as one never there. */
SRV_V3_WRITE(srv_v3_redirect_put, .parent = SRV_PARENT_PROJECT, .by_id = 1,
	     .find = find_redirect, .apply = write_required, .status = 200,
	     .not_found = NO_REDIRECT)
SRV_V3_WRITE(srv_v3_redirect_patch, .parent = SRV_PARENT_PROJECT,
	     .by_id = 1, .find = find_redirect, .apply = write_patch,
	     .status = 200, .not_found = NO_REDIRECT)
SRV_V3_DELETE(srv_v3_redirect_delete, .del = lec_redirect_delete,
	      .not_found = NO_REDIRECT)
