/*
 * The build's `config` object, as the hosted service's API shows it: a
 * checked `.readthedocs.yaml` (rtdconfig.c) rendered with every key the
 * service's BuildConfigV2 has, in its order, the defaults filled in. Kept
 * apart from the checks because it reads only the result, never the file:
 * what a build ran with, as the API serves it with the build.
 */
#include <string.h>

#include <cjson/cJSON.h>

#include "internal.h"
#include "rtdconfig_internal.h"

/* A build.tools name ("python", "nodejs"): one the checks know. */
#define TOOL_NAME_MAX 32

/* Attach item to parent (an object when key is set, else an array); a NULL
 * item, or a failed attach, clears *ok. */
static void put(cJSON *parent, const char *key, cJSON *item, int *ok)
{
	int added = 0;

	if (item && parent)
		added = key ? cJSON_AddItemToObject(parent, key, item)
			    : cJSON_AddItemToArray(parent, item);
	if (!added) {
		cJSON_Delete(item);
		*ok = 0;
	}
}

static cJSON *string_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *strings_json(const struct lec_rtd_strings *s, int *ok)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < s->len; i++)
		put(a, NULL, cJSON_CreateString(s->items[i]), ok);
	if (a == NULL)
		*ok = 0;
	return a;
}

/* A list, or the word "all". */
static cJSON *names_json(const struct lec_rtd_strings *s, int all, int *ok)
{
	return all ? cJSON_CreateString("all") : strings_json(s, ok);
}

static cJSON *install_json(const struct lec_rtd_install *in, int *ok)
{
	cJSON *o = cJSON_CreateObject();

	if (in->kind == LEC_RTD_INSTALL_REQUIREMENTS) {
		put(o, "requirements", cJSON_CreateString(in->requirements), ok);
	} else if (in->kind == LEC_RTD_INSTALL_PATH) {
		put(o, "path", cJSON_CreateString(in->path), ok);
		put(o, "method", cJSON_CreateString(in->method), ok);
		put(o, "extra_requirements",
		    strings_json(&in->extra_requirements, ok), ok);
	} else {
		put(o, "method", cJSON_CreateString(in->method), ok);
		put(o, "command", cJSON_CreateString(in->command), ok);
		put(o, "path", string_or_null(in->path), ok);
		put(o, "requirements", string_or_null(in->requirements), ok);
		put(o, "groups",
		    in->groups_all || in->groups.len
			    ? names_json(&in->groups, in->groups_all, ok)
			    : cJSON_CreateNull(),
		    ok);
		put(o, "extras",
		    in->extras_all || in->extras.len
			    ? names_json(&in->extras, in->extras_all, ok)
			    : cJSON_CreateNull(),
		    ok);
	}
	if (o == NULL)
		*ok = 0;
	return o;
}

/* A job's commands; the jobs that replace a step are null when unset. */
static cJSON *job_json(const struct lec_rtd_config *c, enum lec_rtd_job job,
		       int *ok)
{
	if (!(c->jobs_set & (1u << job)) && ((1u << job) & LEC_RTD__NEW_JOBS))
		return cJSON_CreateNull();
	return strings_json(&c->jobs[job], ok);
}

/* build.jobs in the service's order (its BuildJobs model): pre_checkout,
 * then the jobs in the order they run, build.<type> gathered in "build". */
static cJSON *jobs_json(const struct lec_rtd_config *c, int *ok)
{
	cJSON *o = cJSON_CreateObject(), *b = cJSON_CreateObject();
	const char *name;
	int job;

	put(o, "pre_checkout", strings_json(&c->pre_checkout, ok), ok);
	for (job = 0; job < LEC_RTD_JOB_COUNT; job++) {
		name = lec_rtd_job_name((enum lec_rtd_job)job);
		if (job < LEC_RTD_JOB_BUILD_HTML || job > LEC_RTD_JOB_BUILD_HTMLZIP)
			put(o, name, job_json(c, (enum lec_rtd_job)job, ok), ok);
		else /* "build.html" is "html" in "build" */
			put(b, name + strlen("build."),
			    job_json(c, (enum lec_rtd_job)job, ok), ok);
		if (job == LEC_RTD_JOB_BUILD_HTMLZIP)
			put(o, "build", b, ok);
	}
	if (o == NULL)
		*ok = 0;
	return o;
}

static cJSON *tools_json(const struct lec_rtd_config *c, int *ok)
{
	char name[TOOL_NAME_MAX];
	cJSON *o = cJSON_CreateObject(), *t;
	const char *eq;
	size_t i, n;

	for (i = 0; i < c->tools.len; i++) {
		eq = strchr(c->tools.items[i], '=');
		n = eq ? (size_t)(eq - c->tools.items[i]) : 0;
		if (eq == NULL || n >= sizeof(name))
			continue;
		memcpy(name, c->tools.items[i], n);
		name[n] = '\0';
		t = cJSON_CreateObject();
		put(t, "version", cJSON_CreateString(eq + 1), ok);
		put(t, "full_version", cJSON_CreateNull(), ok);
		put(o, name, t, ok);
	}
	if (o == NULL)
		*ok = 0;
	return o;
}

static cJSON *build_json(const struct lec_rtd_config *c, int *ok)
{
	cJSON *o = cJSON_CreateObject();

	put(o, "os", string_or_null(c->build_os), ok);
	put(o, "tools", tools_json(c, ok), ok);
	put(o, "jobs", jobs_json(c, ok), ok);
	put(o, "apt_packages", strings_json(&c->apt_packages, ok), ok);
	put(o, "commands", strings_json(&c->commands, ok), ok);
	if (o == NULL)
		*ok = 0;
	return o;
}

static cJSON *python_json(const struct lec_rtd_config *c, int *ok)
{
	cJSON *o = cJSON_CreateObject(), *list = cJSON_CreateArray();
	int i;

	for (i = 0; i < c->python_install_count; i++)
		put(list, NULL, install_json(&c->python_install[i], ok), ok);
	put(o, "install", list, ok);
	if (o == NULL)
		*ok = 0;
	return o;
}

static cJSON *conda_json(const struct lec_rtd_config *c, int *ok)
{
	cJSON *o;

	if (c->conda_environment == NULL)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	put(o, "environment", cJSON_CreateString(c->conda_environment), ok);
	return o;
}

static cJSON *sphinx_json(const struct lec_rtd_config *c, int *ok)
{
	enum lec_doctype type = LEC_DOCTYPE_SPHINX;
	cJSON *o;

	if (!c->has_sphinx || c->sphinx_builder == NULL)
		return cJSON_CreateNull();
	if (strcmp(c->sphinx_builder, "dirhtml") == 0)
		type = LEC_DOCTYPE_SPHINX_HTMLDIR;
	else if (strcmp(c->sphinx_builder, "singlehtml") == 0)
		type = LEC_DOCTYPE_SPHINX_SINGLEHTML;
	o = cJSON_CreateObject();
	put(o, "configuration", string_or_null(c->sphinx_configuration), ok);
	put(o, "builder", cJSON_CreateString(lec_doctype_code(type)), ok);
	put(o, "fail_on_warning", cJSON_CreateBool(c->sphinx_fail_on_warning),
	    ok);
	return o;
}

static cJSON *mkdocs_json(const struct lec_rtd_config *c, int *ok)
{
	cJSON *o;

	if (!c->has_mkdocs)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	put(o, "configuration", string_or_null(c->mkdocs_configuration), ok);
	put(o, "fail_on_warning", cJSON_CreateBool(c->mkdocs_fail_on_warning),
	    ok);
	return o;
}

static cJSON *submodules_json(const struct lec_rtd_config *c, int *ok)
{
	cJSON *o = cJSON_CreateObject();

	put(o, "include",
	    names_json(&c->submodules_include, c->submodules_all_included, ok),
	    ok);
	put(o, "exclude",
	    names_json(&c->submodules_exclude, c->submodules_all_excluded, ok),
	    ok);
	put(o, "recursive", cJSON_CreateBool(c->submodules_recursive), ok);
	return o;
}

static cJSON *search_json(const struct lec_rtd_config *c, int *ok)
{
	cJSON *o = cJSON_CreateObject(), *ranking = cJSON_CreateObject();
	size_t i;

	for (i = 0; i < c->ranking_patterns.len; i++)
		put(ranking, c->ranking_patterns.items[i],
		    cJSON_CreateNumber(c->ranking_values[i]), ok);
	put(o, "ranking", ranking, ok);
	put(o, "ignore", strings_json(&c->search_ignore, ok), ok);
	return o;
}

static cJSON *formats_json(unsigned formats, int *ok)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < LEC_RTD__FORMATS; i++)
		if (formats & lec_rtd__format_bits[i])
			put(a, NULL, cJSON_CreateString(lec_rtd__format_names[i]), ok);
	if (a == NULL)
		*ok = 0;
	return a;
}

char *lec_rtd_config_json(const struct lec_rtd_config *c)
{
	cJSON *o;
	char *text, *copy = NULL;
	int ok = 1;

	lec_error_clear();
	if (c == NULL) {
		lec__error(LEC_EINVALID, "no configuration given");
		return NULL;
	}
	o = cJSON_CreateObject();
	/* The service's BuildConfigV2.version is the string "2". */
	put(o, "version", cJSON_CreateString("2"), &ok);
	put(o, "formats", formats_json(c->formats, &ok), &ok);
	put(o, "python", python_json(c, &ok), &ok);
	put(o, "conda", conda_json(c, &ok), &ok);
	put(o, "build", build_json(c, &ok), &ok);
	put(o, "doctype", string_or_null(lec_doctype_code(c->doctype)), &ok);
	put(o, "sphinx", sphinx_json(c, &ok), &ok);
	put(o, "mkdocs", mkdocs_json(c, &ok), &ok);
	put(o, "submodules", submodules_json(c, &ok), &ok);
	put(o, "search", search_json(c, &ok), &ok);
	text = ok && o ? cJSON_PrintUnformatted(o) : NULL;
	cJSON_Delete(o);
	if (text)
		copy = lec__strdup(text);
	cJSON_free(text);
	if (copy == NULL)
		lec__error_oom();
	return copy;
}

