/*
 * The typed calls against a real `lectern serve --workers 0` (builds stay
 * queued; the repository URLs are never fetched): every v3 resource Lectern
 * serves (projects, versions, builds with cancel, redirects, environment
 * variables, subprojects, translations, organizations on a business-edition
 * server), v2, search, embed, the docs host, conditional requests on the
 * API's own ETags, pagination across pages, Lectern's error bodies as one
 * line, and asynchronous requests.
 */
#include <stdlib.h>

#include "client_harness.h"

static struct lct_server srv;
static struct lc_client *cli;

static void import(const char *name)
{
	struct lc_project_import in = { 0 };
	struct lc_project *p = NULL;
	struct lc_error err;
	char repo[128];

	snprintf(repo, sizeof(repo), "https://example.invalid/%s.git", name);
	in.name = name;
	in.repository_url = repo;
	CHECK_OK(lc_project_import(cli, &in, &p, &err), &err);
	lc_project_free(p);
}

TEST(project_import_get_update)
{
	struct lc_project_import in = { 0 };
	struct lc_response *r = NULL;
	struct lc_project *p = NULL;
	struct lc_query q = { 0 };
	struct lc_error err;
	char docs[128];
	cJSON *patch;

	in.name = "Alpha";
	in.repository_url = "https://example.invalid/alpha.git";
	in.language = "en";
	CHECK_OK(lc_project_import(cli, &in, &p, &err), &err);
	CHECK_STR(p ? p->slug : NULL, "alpha");
	CHECK_STR(p ? p->name : NULL, "Alpha");
	CHECK_STR(p ? p->repository_type : NULL, "git");
	snprintf(docs, sizeof(docs), "http://alpha.localhost:%d/en/latest/",
		 srv.port);
	CHECK_STR(p ? p->documentation_url : NULL, docs);
	lc_project_free(p);

	/* Client-side checks, then the server's own validation. */
	in.name = NULL;
	CHECK_RC(lc_project_import(cli, &in, &p, &err), LC_EINVAL, &err);
	CHECK_STR(err.message, "a project name is required");
	CHECK_RC(lc_project_import(cli, NULL, &p, &err), LC_EINVAL, &err);
	CHECK_RC(lc_request(cli, "POST", "/api/v3/projects/",
			    "{\"repository\":{\"url\":\"x\",\"type\":\"git\"}}",
			    &r, &err), LC_EHTTP, &err);
	CHECK_INT(err.status, 400);
	CHECK_STR(err.message, "name: This field is required.");
	CHECK(r != NULL && r->json != NULL);
	lc_response_free(r);

	/* expand and fields go through encoded. */
	CHECK_OK(lc_query_add(&q, "expand", "active_versions"), &err);
	CHECK_OK(lc_project_get(cli, "alpha", &q, &p, &err), &err);
	/* Nothing is built, so the map is empty; without expand it is absent. */
	CHECK(p != NULL && cJSON_IsObject(cJSON_GetObjectItem(p->raw,
							      "active_versions")));
	lc_project_free(p);
	CHECK_OK(lc_project_get(cli, "alpha", NULL, &p, &err), &err);
	CHECK(p != NULL && !cJSON_HasObjectItem(p->raw, "active_versions"));
	lc_project_free(p);
	lc_query_dispose(&q);
	CHECK_OK(lc_query_add(&q, "fields", "name,id"), &err);
	CHECK_OK(lc_project_get(cli, "alpha", &q, &p, &err), &err);
	CHECK_STR(p ? p->name : NULL, "Alpha");
	CHECK(p != NULL && p->slug == NULL && p->id > 0);
	lc_project_free(p);
	lc_query_dispose(&q);

	patch = cJSON_Parse("{\"default_branch\":\"main\",\"homepage\":"
			    "\"https://alpha.example/\"}");
	CHECK_OK(lc_project_update(cli, "alpha", patch, &err), &err);
	cJSON_Delete(patch);
	CHECK_OK(lc_project_get(cli, "alpha", NULL, &p, &err), &err);
	CHECK_STR(p ? p->default_branch : NULL, "main");
	CHECK_STR(p ? p->homepage : NULL, "https://alpha.example/");
	lc_project_free(p);
	patch = cJSON_Parse("{\"language\":\"zz-nope\"}");
	CHECK_RC(lc_project_update(cli, "alpha", patch, &err), LC_EHTTP, &err);
	CHECK_INT(err.status, 400);
	CHECK(strncmp(err.message, "language: ", 10) == 0);
	cJSON_Delete(patch);
	CHECK_RC(lc_project_update(cli, "alpha", NULL, &err), LC_EINVAL, &err);

	CHECK_RC(lc_project_get(cli, "nosuch", NULL, &p, &err), LC_EHTTP, &err);
	CHECK_INT(err.status, 404);
	CHECK_STR(err.message, "No Project matches the given query.");
	CHECK(p == NULL);
}

TEST(bad_token_and_no_token)
{
	struct lc_client *bad = lct_client(&srv, "not-a-token", 0, 0);
	struct lc_list *l = NULL;
	struct lc_error err;

	CHECK_RC(lc_projects_list(bad, NULL, &l, &err), LC_EHTTP, &err);
	CHECK_INT(err.status, 401);
	CHECK_STR(err.message, "Invalid token.");
	CHECK(l == NULL);
	lc_client_free(bad);
	bad = lct_client(&srv, NULL, 0, 0);
	CHECK_RC(lc_build_cancel(bad, "alpha", 1, NULL, &err), LC_EHTTP, &err);
	CHECK_INT(err.status, 401);
	CHECK_STR(err.message, "Authentication credentials were not provided.");
	lc_client_free(bad);
}

TEST(projects_pages_and_iterator)
{
	struct lc_query q = { 0 };
	struct lc_list *l = NULL;
	struct lc_iter *it = NULL;
	const cJSON *item;
	struct lc_error err;
	int n = 0, rc, seen_delta = 0;

	import("Beta");
	import("Gamma");
	import("Delta");
	CHECK_OK(lc_query_add(&q, "limit", "2"), &err);
	CHECK_OK(lc_projects_list(cli, &q, &l, &err), &err);
	CHECK_INT(l ? l->count : 0, 4);
	CHECK_INT(l ? l->len : 0, 2);
	CHECK(l != NULL && l->next != NULL && l->previous == NULL);
	CHECK(l != NULL && strstr(l->next, "offset=2") != NULL);
	lc_list_free(l);
	lc_query_dispose(&q);

	/* One item per page: four pages, each via its next link. */
	CHECK_OK(lc_query_add(&q, "limit", "1"), &err);
	CHECK_OK(lc_iter_new(&it, cli, "/api/v3/projects/", &q, &err), &err);
	while ((rc = lc_iter_next(it, &item, &err)) == 1) {
		struct lc_project *p = NULL;

		CHECK_OK(lc_project_parse(item, &p, &err), &err);
		if (p != NULL && p->slug != NULL && strcmp(p->slug, "delta") == 0)
			seen_delta++;
		lc_project_free(p);
		n++;
	}
	CHECK_INT(rc, 0);
	CHECK_INT(n, 4);
	CHECK_INT(seen_delta, 1);
	CHECK_INT(lc_iter_count(it), 4);
	lc_iter_free(it);
	lc_query_dispose(&q);

	/* A filter, URL-encoded. */
	CHECK_OK(lc_query_add(&q, "name", "gam"), &err);
	CHECK_OK(lc_projects_list(cli, &q, &l, &err), &err);
	CHECK_INT(l ? l->count : 0, 1);
	CHECK_STR(l && l->len ? ((struct lc_project *)l->items[0])->slug : NULL,
		  "gamma");
	lc_list_free(l);
	lc_query_dispose(&q);
}

TEST(versions_list_get_update)
{
	struct lc_version *v = NULL;
	struct lc_list *l = NULL;
	struct lc_error err;

	CHECK_OK(lc_versions_list(cli, "alpha", NULL, &l, &err), &err);
	CHECK_INT(l ? l->count : 0, 1);
	CHECK_STR(l && l->len ? ((struct lc_version *)l->items[0])->slug : NULL,
		  "latest");
	lc_list_free(l);
	CHECK_OK(lc_version_update(cli, "alpha", "latest", LC_UNKNOWN, 1, &err),
		 &err);
	CHECK_OK(lc_version_get(cli, "alpha", "latest", NULL, &v, &err), &err);
	CHECK_INT(v ? v->hidden : -5, 1);
	CHECK_INT(v ? v->active : -5, 1);
	CHECK_STR(v ? v->type : NULL, "branch");
	lc_version_free(v);
	CHECK_OK(lc_version_update(cli, "alpha", "latest", 1, 0, &err), &err);
	CHECK_RC(lc_version_update(cli, "alpha", "latest", LC_UNKNOWN,
				   LC_UNKNOWN, &err), LC_EINVAL, &err);
	CHECK_STR(err.message, "nothing to update");
	CHECK_RC(lc_version_get(cli, "alpha", "v9", NULL, &v, &err), LC_EHTTP,
		 &err);
	CHECK_STR(err.message, "No Version matches the given query.");
}

TEST(builds_trigger_list_cancel_and_v2)
{
	struct lc_build *b = NULL, *got = NULL;
	struct lc_list *l = NULL;
	struct lc_error err;
	char *log = NULL;
	char head[64];
	long long id;

	CHECK_OK(lc_build_trigger(cli, "beta", "latest", &b, &err), &err);
	if (b == NULL)
		return;
	id = b->id;
	CHECK_STR(b->state, "triggered");
	CHECK_STR(b->project, "beta");
	CHECK_STR(b->version, "latest");
	CHECK_INT(b->success, LC_UNKNOWN);
	lc_build_free(b);

	/* The import queued a build; the trigger superseded it (cancelled):
	 * one running, one not. */
	CHECK_OK(lc_builds_list(cli, "beta", 1, NULL, NULL, &l, &err), &err);
	CHECK_INT(l ? l->count : 0, 1);
	CHECK_INT(l && l->len ? ((struct lc_build *)l->items[0])->id : 0, id);
	lc_list_free(l);
	CHECK_OK(lc_builds_list(cli, "beta", 0, NULL, NULL, &l, &err), &err);
	CHECK_INT(l ? l->count : -1, 1);
	CHECK_STR(l && l->len ? ((struct lc_build *)l->items[0])->state : NULL,
		  "cancelled");
	lc_list_free(l);
	CHECK_OK(lc_builds_list(cli, "beta", LC_UNKNOWN, NULL, NULL, &l, &err),
		 &err);
	CHECK_INT(l ? l->count : -1, 2);
	lc_list_free(l);
	CHECK_OK(lc_builds_list(cli, "beta", LC_UNKNOWN, "deadbeef", NULL, &l,
				&err), &err);
	CHECK_INT(l ? l->count : -1, 0);
	lc_list_free(l);

	CHECK_OK(lc_build_get(cli, "beta", id, NULL, &got, &err), &err);
	CHECK_INT(got ? got->id : 0, id);
	lc_build_free(got);

	CHECK_OK(lc_build_cancel(cli, "beta", id, &b, &err), &err);
	CHECK_STR(b ? b->state : NULL, "cancelled");
	CHECK_INT(b ? b->success : -5, 0);
	CHECK_STR(b ? b->error : NULL, "This build was cancelled.");
	lc_build_free(b);
	CHECK_RC(lc_build_cancel(cli, "beta", id, NULL, &err), LC_EHTTP, &err);
	CHECK_INT(err.status, 400);
	CHECK_STR(err.message, "This build has already finished.");
	CHECK_RC(lc_build_get(cli, "beta", 99999, NULL, &got, &err), LC_EHTTP,
		 &err);
	CHECK_STR(err.message, "No Build matches the given query.");

	/* v2: the same build with its commands, and the text log. */
	CHECK_OK(lc_v2_build_get(cli, id, &b, &err), &err);
	CHECK_STR(b ? b->state : NULL, "cancelled");
	CHECK_STR(b ? b->project : NULL, "beta");
	CHECK_STR(b ? b->error : NULL, "This build was cancelled.");
	CHECK_INT(b ? b->commands_len : 9, 0);
	lc_build_free(b);
	CHECK_OK(lc_v2_build_log(cli, id, &log, &err), &err);
	snprintf(head, sizeof(head),
		 "Read the Docs build information\nBuild id: %lld\n", id);
	CHECK(log != NULL && strncmp(log, head, strlen(head)) == 0);
	free(log);
	CHECK_RC(lc_v2_build_get(cli, 99999, &b, &err), LC_EHTTP, &err);
	CHECK_INT(err.status, 404);
}

TEST(redirects_crud)
{
	struct lc_redirect *r = NULL;
	struct lc_list *l = NULL;
	struct lc_error err;
	long long pk;

	CHECK_OK(lc_redirect_create(cli, "alpha", "page", "/old.html",
				    "/new.html", &r, &err), &err);
	if (r == NULL)
		return;
	pk = r->pk;
	CHECK_STR(r->type, "page");
	CHECK_STR(r->from_url, "/old.html");
	lc_redirect_free(r);
	CHECK_OK(lc_redirects_list(cli, "alpha", NULL, &l, &err), &err);
	CHECK_INT(l ? l->count : 0, 1);
	lc_list_free(l);
	CHECK_OK(lc_redirect_update(cli, "alpha", pk, "exact", "/a.html",
				    "/b.html", &r, &err), &err);
	CHECK_STR(r ? r->type : NULL, "exact");
	lc_redirect_free(r);
	CHECK_OK(lc_redirect_get(cli, "alpha", pk, &r, &err), &err);
	CHECK_STR(r ? r->to_url : NULL, "/b.html");
	lc_redirect_free(r);
	/* The server's validation, as one line. */
	CHECK_RC(lc_redirect_create(cli, "alpha", "page", "/x.html", NULL, &r,
				    &err), LC_EHTTP, &err);
	CHECK_INT(err.status, 400);
	CHECK(strncmp(err.message, "to_url: ", 8) == 0);
	CHECK(r == NULL);
	CHECK_OK(lc_redirect_delete(cli, "alpha", pk, &err), &err);
	CHECK_RC(lc_redirect_get(cli, "alpha", pk, &r, &err), LC_EHTTP, &err);
	CHECK_STR(err.message, "No Redirect matches the given query.");
}

TEST(envvars_crud)
{
	struct lc_envvar *e = NULL;
	struct lc_list *l = NULL;
	struct lc_error err;
	long long pk;

	CHECK_OK(lc_envvar_create(cli, "alpha", "API_KEY", "s3cret", LC_UNKNOWN,
				  &e, &err), &err);
	if (e == NULL)
		return;
	pk = e->pk;
	CHECK_STR(e->name, "API_KEY");
	CHECK(cJSON_GetObjectItem(e->raw, "value") == NULL);
	lc_envvar_free(e);
	CHECK_OK(lc_envvar_get(cli, "alpha", pk, &e, &err), &err);
	CHECK_STR(e ? e->project : NULL, "alpha");
	lc_envvar_free(e);
	CHECK_OK(lc_envvars_list(cli, "alpha", NULL, &l, &err), &err);
	CHECK_INT(l ? l->count : 0, 1);
	lc_list_free(l);
	CHECK_RC(lc_envvar_create(cli, "alpha", "X", NULL, 1, &e, &err),
		 LC_EINVAL, &err);
	CHECK_OK(lc_envvar_delete(cli, "alpha", pk, &err), &err);
	CHECK_OK(lc_envvars_list(cli, "alpha", NULL, &l, &err), &err);
	CHECK_INT(l ? l->count : 1, 0);
	lc_list_free(l);
}

TEST(subprojects_and_translations)
{
	struct lc_subproject *s;
	struct lc_list *l = NULL;
	struct lc_error err;

	CHECK_OK(lc_subproject_add(cli, "alpha", "delta", "dee", &err), &err);
	CHECK_OK(lc_subprojects_list(cli, "alpha", NULL, &l, &err), &err);
	CHECK_INT(l ? l->count : 0, 1);
	if (l != NULL && l->len == 1) {
		s = l->items[0];
		CHECK_STR(s->alias, "dee");
		CHECK_STR(s->child->slug, "delta");
	}
	lc_list_free(l);
	CHECK_RC(lc_subproject_add(cli, "alpha", "alpha", NULL, &err), LC_EHTTP,
		 &err);
	CHECK_INT(err.status, 400);
	CHECK(err.message[0] != '\0');
	CHECK_OK(lc_subproject_remove(cli, "alpha", "dee", &err), &err);
	CHECK_OK(lc_subprojects_list(cli, "alpha", NULL, &l, &err), &err);
	CHECK_INT(l ? l->count : 1, 0);
	lc_list_free(l);

	/* No API call makes a translation: set it in the store. */
	CHECK_INT(lct_sql(&srv, "UPDATE projects SET language = 'es', "
			  "main_language_project_id = (SELECT id FROM projects "
			  "WHERE slug = 'alpha') WHERE slug = 'gamma'"), 0);
	CHECK_OK(lc_translations_list(cli, "alpha", NULL, &l, &err), &err);
	CHECK_INT(l ? l->count : 0, 1);
	CHECK_STR(l && l->len ? ((struct lc_project *)l->items[0])->language
			      : NULL, "es");
	lc_list_free(l);
}

TEST(v2_project_and_version)
{
	struct lc_project *p = NULL;
	struct lc_version *v = NULL;
	struct lc_error err;

	CHECK_OK(lc_v2_project_get(cli, 1, &p, &err), &err);
	CHECK_STR(p ? p->slug : NULL, "alpha");
	CHECK_STR(p ? p->repository_url : NULL, "https://example.invalid/alpha.git");
	lc_project_free(p);
	CHECK_OK(lc_v2_version_get(cli, 1, &v, &err), &err);
	CHECK_STR(v ? v->project : NULL, "alpha");
	CHECK_STR(v ? v->slug : NULL, "latest");
	lc_version_free(v);
	CHECK_RC(lc_v2_project_get(cli, 4242, &p, &err), LC_EHTTP, &err);
	CHECK_STR(err.message, "No Project matches the given query.");
}

TEST(conditional_requests_on_api_etags)
{
	struct lc_response *r = NULL;
	struct lc_error err;
	char *etag = NULL;
	cJSON *patch;

	CHECK_OK(lc_get(cli, "/api/v3/projects/alpha/", NULL, NULL, &r, &err),
		 &err);
	CHECK(r != NULL && r->etag != NULL);
	if (r != NULL && r->etag != NULL)
		etag = strdup(r->etag);
	lc_response_free(r);
	if (etag == NULL)
		return;
	CHECK_OK(lc_get(cli, "/api/v3/projects/alpha/", NULL, etag, &r, &err),
		 &err);
	CHECK(r != NULL && r->not_modified && r->status == 304);
	CHECK_STR(r ? r->etag : NULL, etag);
	lc_response_free(r);
	patch = cJSON_Parse("{\"default_branch\":\"trunk\"}");
	CHECK_OK(lc_project_update(cli, "alpha", patch, &err), &err);
	cJSON_Delete(patch);
	CHECK_OK(lc_get(cli, "/api/v3/projects/alpha/", NULL, etag, &r, &err),
		 &err);
	CHECK(r != NULL && !r->not_modified && r->status == 200);
	CHECK(r != NULL && r->etag != NULL && strcmp(r->etag, etag) != 0);
	lc_response_free(r);
	free(etag);
}

TEST(search_embed_docs_on_lectern)
{
	struct lc_response *r = NULL;
	struct lc_embed *e = NULL;
	struct lc_list *l = NULL;
	struct lc_error err;
	char url[128];

	/* Nothing is built (no workers): a well-formed empty answer. */
	CHECK_OK(lc_search(cli, "install", "alpha", NULL, 0, 0, &l, &err), &err);
	CHECK_INT(l ? l->count : -1, 0);
	CHECK_INT(l ? (long long)l->len : -1, 0);
	lc_list_free(l);
	CHECK_RC(lc_search(cli, "install", "nosuch", NULL, 0, 0, &l, &err),
		 LC_EHTTP, &err);
	CHECK_INT(err.status, 404);
	CHECK_STR(err.message, "No Project matches the given query.");

	snprintf(url, sizeof(url), "http://alpha.localhost:%d/en/latest/index.html",
		 srv.port);
	CHECK_RC(lc_embed_get(cli, url, &e, &err), LC_EHTTP, &err);
	CHECK_INT(err.status, 404);
	CHECK(strncmp(err.message, "Can't find content for section: url=", 36) == 0);
	CHECK(e == NULL);

	CHECK_RC(lc_docs_fetch(cli, "alpha", "en/latest/index.html", NULL, &r,
			       &err), LC_EHTTP, &err);
	CHECK_INT(err.status, 404);
	CHECK(r != NULL && r->status == 404);
	lc_response_free(r);
}

static void done_cb(struct lc_response *resp, const struct lc_error *err,
		    void *data)
{
	int *count = data;

	CHECK_INT(err->code, LC_OK);
	CHECK(resp != NULL && resp->json != NULL);
	(*count)++;
}

TEST(async_requests_on_lectern)
{
	struct lc_async_request req = { 0 };
	struct lc_query q = { 0 };
	struct lc_error err;
	long long deadline = lct_now_ms() + 20000;
	int count = 0, i;

	CHECK_OK(lc_query_add(&q, "limit", "1"), &err);
	req.done = done_cb;
	req.data = &count;
	req.query = &q;
	for (i = 0; i < 4; i++) {
		req.path = i % 2 ? "/api/v3/projects/" : "/api/v3/projects/alpha/";
		CHECK_OK(lc_async_submit(cli, &req, NULL, &err), &err);
	}
	lc_query_dispose(&q); /* copied at submission */
	while (lc_async_pending(cli) > 0 && lct_now_ms() < deadline) {
		lc_async_poll(cli, 100);
		lc_async_perform(cli);
	}
	CHECK_INT(count, 4);
}

TEST(raw_request_root)
{
	struct lc_response *r = NULL;
	struct lc_error err;

	CHECK_OK(lc_request(cli, "GET", "/api/v3/", NULL, &r, &err), &err);
	CHECK(r != NULL && cJSON_IsObject(r->json));
	lc_response_free(r);
	/* A community server has no organizations. */
	CHECK_RC(lc_request(cli, "GET", "/api/v3/organizations/", NULL, &r,
			    &err), LC_EHTTP, &err);
	CHECK_INT(err.status, 404);
	lc_response_free(r);
}

TEST(organizations_on_business_edition)
{
	static const char *const business[] = { "--edition", "business", NULL };
	static const char *const org[] = { "org", "create", "acme", "--owner",
					   "alice", "--name", "Acme Corp", NULL };
	struct lc_project_import in = { 0 };
	struct lc_organization *o = NULL;
	struct lc_project *p = NULL;
	struct lct_server biz;
	struct lc_list *l = NULL;
	struct lc_client *c;
	struct lc_error err;

	lct_lectern_start(&biz, business);
	CHECK_INT(lct_lectern_run(&biz, org, NULL, 0), 0);
	c = lct_client(&biz, biz.token, 0, 0);
	in.name = "Omega";
	in.repository_url = "https://example.invalid/omega.git";
	in.organization = "acme";
	CHECK_OK(lc_project_import(c, &in, &p, &err), &err);
	lc_project_free(p);

	CHECK_OK(lc_orgs_list(c, NULL, &l, &err), &err);
	CHECK_INT(l ? l->count : 0, 1);
	if (l != NULL && l->len == 1) {
		o = l->items[0];
		CHECK_STR(o->slug, "acme");
		CHECK_STR(o->name, "Acme Corp");
		CHECK_INT(o->owners_len, 1);
		CHECK_STR(o->owners[0], "alice");
	}
	lc_list_free(l);
	CHECK_OK(lc_org_get(c, "acme", &o, &err), &err);
	CHECK_INT(o ? o->disabled : -5, 0);
	lc_organization_free(o);
	CHECK_OK(lc_org_projects_list(c, "acme", NULL, &l, &err), &err);
	CHECK_INT(l ? l->count : 0, 1);
	CHECK_STR(l && l->len ? ((struct lc_project *)l->items[0])->slug : NULL,
		  "omega");
	lc_list_free(l);
	CHECK_RC(lc_org_get(c, "nope", &o, &err), LC_EHTTP, &err);
	CHECK_INT(err.status, 404);
	lc_client_free(c);
	CHECK_INT(lct_stop(&biz), 0);
}

int main(int argc, char **argv)
{
	static const struct lec_test tests[] = {
		TEST_ENTRY(project_import_get_update),
		TEST_ENTRY(bad_token_and_no_token),
		TEST_ENTRY(projects_pages_and_iterator),
		TEST_ENTRY(versions_list_get_update),
		TEST_ENTRY(builds_trigger_list_cancel_and_v2),
		TEST_ENTRY(redirects_crud),
		TEST_ENTRY(envvars_crud),
		TEST_ENTRY(subprojects_and_translations),
		TEST_ENTRY(v2_project_and_version),
		TEST_ENTRY(conditional_requests_on_api_etags),
		TEST_ENTRY(search_embed_docs_on_lectern),
		TEST_ENTRY(async_requests_on_lectern),
		TEST_ENTRY(raw_request_root),
		TEST_ENTRY(organizations_on_business_edition),
	};
	int rc;

	lct_lectern_start(&srv, NULL);
	cli = lct_client(&srv, srv.token, 0, 0);
	rc = lct_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
	lc_client_free(cli);
	if (lct_stop(&srv) != 0) {
		fprintf(stderr, "lectern serve did not exit cleanly\n");
		rc = 1;
	}
	return rc;
}
