/*
 * A project's values as an import or an update validates them: each
 * patchable field checked as the hosted service's v3 serializers check
 * it (strings trimmed as its CharField trims them, lengths counted in
 * characters, choices answering '"x" is not a valid choice.', the
 * service's messages and field names), in the order the service reports
 * them, into the writable columns project.c binds into its INSERT and
 * UPDATE. The URL checks are project_url.c's.
 */
#include <string.h>

#include "lectern/language.h"
#include "lectern/localrepo.h"
#include "lectern/project.h"
#include "project_internal.h"
#include "store_internal.h"

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *const privacy_levels[] = { "public", "private", NULL };
static const char *const versioning_schemes[] = {
	LEC__SCHEME_WITH_TRANSLATIONS, LEC__SCHEME_WITHOUT_TRANSLATIONS,
	LEC__SCHEME_SINGLE, NULL
};
static const char *const repo_types[] = { "git", NULL };
static const char *const documentation_types[] = {
	"sphinx", "mkdocs", "sphinx_htmldir", "sphinx_singlehtml", NULL
};

/* Fields ----------------------------------------------------------------- */

/* How text_field treats a value. */
enum {
	TF_NULL_OK = 1 << 0,     /* NULL stores NULL */
	TF_NULL_EMPTY = 1 << 1,  /* NULL stores "" */
	TF_BLANK_OK = 1 << 2,    /* "" is accepted */
	TF_BLANK_NULL = 1 << 3,  /* "" (after trimming) stores NULL */
	TF_NO_TRIM = 1 << 4      /* keep surrounding white space */
};

static char *trimmed_copy(const char *s, int trim)
{
	size_t len = strlen(s);

	while (trim && len && lec__project_is_space((unsigned char)*s)) {
		s++;
		len--;
	}
	while (trim && len && lec__project_is_space((unsigned char)s[len - 1]))
		len--;
	return lec__strndup(s, len);
}

/* Replace *slot with an owned copy of s (NULL stays NULL). */
static int slot_set(char **slot, const char *s)
{
	char *copy = NULL;

	if (s && (copy = lec__strdup(s)) == NULL)
		return lec__error_oom();
	lec__free(*slot);
	*slot = copy;
	return LEC_OK;
}

/* Validate a string field like the service's CharField and store it. */
static int text_field(const char *field, const char *in, size_t max,
		      int flags, char **slot)
{
	char *value;

	if (in == NULL && (flags & (TF_NULL_OK | TF_NULL_EMPTY)))
		return slot_set(slot, (flags & TF_NULL_EMPTY) ? "" : NULL);
	if (in == NULL)
		return lec__error_field(LEC_EINVALID, field,
					"This field may not be null.");
	value = trimmed_copy(in, !(flags & TF_NO_TRIM));
	LEC__CHECK_ALLOC(value);
	if (*value == '\0' && !(flags & TF_BLANK_OK)) {
		lec__free(value);
		return lec__error_blank(field);
	}
	if (max && lec__utf8_chars(value) > max) {
		lec__free(value);
		return lec__error_too_long(field, max);
	}
	if (*value == '\0' && (flags & TF_BLANK_NULL)) {
		lec__free(value);
		value = NULL;
	}
	lec__free(*slot);
	*slot = value;
	return LEC_OK;
}

static int in_list(const char *value, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(value, *list) == 0)
			return 1;
	return 0;
}

/* A choice field: valid says whether value is one of the choices. */
static int choice_field(const char *field, const char *value, int valid,
			char **slot)
{
	if (value == NULL)
		return lec__error_field(LEC_EINVALID, field,
					"This field may not be null.");
	if (!valid)
		return lec__error_field(LEC_EINVALID, field,
					"\"%s\" is not a valid choice.", value);
	return slot_set(slot, value);
}

static int list_choice(const char *field, const char *value,
		       const char *const *choices, char **slot)
{
	return choice_field(field, value, value && in_list(value, choices),
			    slot);
}

/* .readthedocs.yaml paths (the service's validate_build_config_file) ----- */

#define YAML_FILE ".readthedocs.yaml"

static int yaml_path_check(const char *path)
{
	static const char field[] = "readthedocs_yaml_path";
	/* The service's message, HTML-escaped as it sends it. */
	static const char bad_chars[] =
		"Found invalid character. Avoid these characters: "
		"<code>[]{}()`&#x27;&quot;\\%&amp;&lt;&gt;|,</code>";
	size_t n = strlen(path), m = strlen(YAML_FILE);

	if (path[0] == '/')
		return lec__error_field(LEC_EINVALID, field,
					"Use a relative path. It should not "
					"begin with '/'. The path is relative "
					"to the root of your repository.");
	if (n && path[n - 1] == '/')
		return lec__error_field(LEC_EINVALID, field,
					"The path cannot end with '/', as it "
					"cannot be a directory.");
	if (strstr(path, ".."))
		return lec__error_field(LEC_EINVALID, field,
					"Found invalid sequence in path: '..'");
	if (strpbrk(path, "[]{}()`'\"\\%&<>|,"))
		return lec__error_field(LEC_EINVALID, field, "%s", bad_chars);
	if (!(strcmp(path, YAML_FILE) == 0 ||
	      (n > m && path[n - m - 1] == '/' &&
	       strcmp(path + n - m, YAML_FILE) == 0)))
		return lec__error_field(LEC_EINVALID, field,
					"The only allowed filename is "
					"<code>" YAML_FILE "</code>.");
	return LEC_OK;
}

/* Project values being validated ------------------------------------------ */

#define VALUE_TEXTS 15

static void values_texts(struct lec__project_values *v,
			 char **texts[VALUE_TEXTS])
{
	char **all[VALUE_TEXTS] = {
		&v->name, &v->description, &v->language,
		&v->programming_language, &v->repo_url, &v->repo_type,
		&v->homepage, &v->default_version, &v->default_branch,
		&v->privacy_level, &v->external_builds_privacy_level,
		&v->versioning_scheme, &v->analytics_code,
		&v->readthedocs_yaml_path, &v->documentation_type,
	};

	memcpy(texts, all, sizeof(all));
}

void lec__project_values_dispose(struct lec__project_values *v)
{
	char **texts[VALUE_TEXTS];
	size_t i;

	values_texts(v, texts);
	for (i = 0; i < VALUE_TEXTS; i++)
		lec__free(*texts[i]);
	lec__strings_free(v->tags, v->ntags);
	memset(v, 0, sizeof(*v));
}

/* Fill v with the texts given in LEC__PROJECT_VALUE_COLUMNS order (NULL
 * allowed). */
static int values_fill(struct lec__project_values *v,
		       const char *const src[VALUE_TEXTS])
{
	char **texts[VALUE_TEXTS];
	size_t i;
	int error;

	values_texts(v, texts);
	for (i = 0; i < VALUE_TEXTS; i++)
		if ((error = slot_set(texts[i], src[i])) < 0)
			return error;
	return LEC_OK;
}

/* The values of a project nobody has configured yet. */
int lec__project_values_defaults(struct lec__project_values *v)
{
	static const char *const defaults[VALUE_TEXTS] = {
		NULL, "", LEC_LANGUAGE_DEFAULT,
		LEC_PROGRAMMING_LANGUAGE_DEFAULT, NULL, "git", "", "latest",
		NULL, "public", "public", LEC__SCHEME_WITH_TRANSLATIONS, "",
		NULL, "sphinx",
	};

	memset(v, 0, sizeof(*v));
	v->watch_commits = 1;
	return values_fill(v, defaults);
}

int lec__project_values_from_project(struct lec__project_values *v,
				     const struct lec_project *p)
{
	const char *const src[VALUE_TEXTS] = {
		p->name, p->description, p->language, p->programming_language,
		p->repo_url, p->repo_type, p->homepage, p->default_version,
		p->default_branch, p->privacy_level,
		p->external_builds_privacy_level, p->versioning_scheme,
		p->analytics_code, p->readthedocs_yaml_path,
		p->documentation_type,
	};

	memset(v, 0, sizeof(*v));
	v->external_builds_enabled = p->external_builds_enabled;
	v->show_version_warning = p->show_version_warning;
	v->analytics_disabled = p->analytics_disabled;
	v->watch_commits = p->watch_commits;
	v->poll_interval = p->poll_interval;
	return values_fill(v, src);
}

static int tag_seen(char **tags, size_t n, const char *tag)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(tags[i], tag) == 0)
			return 1;
	return 0;
}

/* Trimmed, de-duplicated tag names; empty names are dropped. */
static int tags_field(const char *const *in, size_t n,
		      struct lec__project_values *v)
{
	char **tags = NULL, *tag = NULL;
	size_t ntags = 0, i;
	int error = LEC_OK;

	if (n && in == NULL)
		return lec__error_field(LEC_EINVALID, "tags",
					"This field may not be null.");
	if (n && (tags = lec__calloc(n, sizeof(*tags))) == NULL)
		return lec__error_oom();
	for (i = 0; i < n && error == LEC_OK; i++) {
		tag = NULL;
		error = text_field("tags", in[i], LEC_PROJECT_TAG_MAX,
				   TF_BLANK_OK, &tag);
		if (error == LEC_OK && *tag && !tag_seen(tags, ntags, tag))
			tags[ntags++] = tag;
		else
			lec__free(tag);
	}
	if (error < 0) {
		lec__strings_free(tags, ntags);
		return error;
	}
	lec__strings_free(v->tags, v->ntags);
	v->tags = tags;
	v->ntags = ntags;
	return LEC_OK;
}

static int field_name(const struct lec_project_patch *p,
		      struct lec__project_values *v)
{
	return text_field("name", p->name, LEC_PROJECT_NAME_MAX, 0, &v->name);
}

static int field_repo_url(const struct lec_project_patch *p,
			  struct lec__project_values *v)
{
	int error = text_field("repository.url", p->repo_url,
			       LEC_PROJECT_REPO_URL_MAX, 0, &v->repo_url);

	if (error == LEC_OK)
		error = lec__project_repo_url_check(v->repo_url);
	return error < 0 ? error
			 : lec_localrepo_check_repository(v->repo_url,
							  p->local_roots);
}

static int field_repo_type(const struct lec_project_patch *p,
			   struct lec__project_values *v)
{
	return list_choice("repository.type", p->repo_type, repo_types,
			   &v->repo_type);
}

static int field_language(const struct lec_project_patch *p,
			  struct lec__project_values *v)
{
	return choice_field("language", p->language,
			    lec_language_valid(p->language), &v->language);
}

/* The service allows a blank programming language. */
static int field_programming_language(const struct lec_project_patch *p,
				      struct lec__project_values *v)
{
	const char *code = p->programming_language;

	return choice_field("programming_language", code,
			    code && (*code == '\0' ||
				     lec_programming_language_valid(code)),
			    &v->programming_language);
}

static int field_homepage(const struct lec_project_patch *p,
			  struct lec__project_values *v)
{
	int error = text_field("homepage", p->homepage,
			       LEC_PROJECT_HOMEPAGE_MAX,
			       TF_NULL_EMPTY | TF_BLANK_OK, &v->homepage);

	if (error == LEC_OK && *v->homepage &&
	    !lec__project_web_url_valid(v->homepage))
		error = lec__error_field(LEC_EINVALID, "homepage",
					 "Enter a valid URL.");
	return error;
}

static int field_tags(const struct lec_project_patch *p,
		      struct lec__project_values *v)
{
	return tags_field(p->tags, p->ntags, v);
}

static int field_default_version(const struct lec_project_patch *p,
				 struct lec__project_values *v)
{
	return text_field("default_version", p->default_version,
			  LEC_PROJECT_REF_MAX, 0, &v->default_version);
}

static int field_default_branch(const struct lec_project_patch *p,
				struct lec__project_values *v)
{
	return text_field("default_branch", p->default_branch,
			  LEC_PROJECT_REF_MAX,
			  TF_NULL_OK | TF_BLANK_OK | TF_BLANK_NULL,
			  &v->default_branch);
}

static int field_analytics_code(const struct lec_project_patch *p,
				struct lec__project_values *v)
{
	return text_field("analytics_code", p->analytics_code,
			  LEC_PROJECT_ANALYTICS_CODE_MAX,
			  TF_NULL_EMPTY | TF_BLANK_OK, &v->analytics_code);
}

static int field_analytics_disabled(const struct lec_project_patch *p,
				    struct lec__project_values *v)
{
	v->analytics_disabled = p->analytics_disabled != 0;
	return LEC_OK;
}

static int field_show_version_warning(const struct lec_project_patch *p,
				      struct lec__project_values *v)
{
	v->show_version_warning = p->show_version_warning != 0;
	return LEC_OK;
}

static int field_watch_commits(const struct lec_project_patch *p,
			       struct lec__project_values *v)
{
	v->watch_commits = p->watch_commits != 0;
	return LEC_OK;
}

static int field_poll_interval(const struct lec_project_patch *p,
			       struct lec__project_values *v)
{
	if (p->poll_interval != 0 &&
	    (p->poll_interval < LEC_PROJECT_POLL_MIN_S ||
	     p->poll_interval > LEC_PROJECT_POLL_MAX_S))
		return lec__error_field(LEC_EINVALID, "poll_interval",
					"Use 0 (off) or %d to %d seconds.",
					LEC_PROJECT_POLL_MIN_S,
					LEC_PROJECT_POLL_MAX_S);
	v->poll_interval = p->poll_interval;
	return LEC_OK;
}

/* The deprecated flag maps onto the scheme. */
static int field_single_version(const struct lec_project_patch *p,
				struct lec__project_values *v)
{
	if (p->single_version)
		return slot_set(&v->versioning_scheme, LEC__SCHEME_SINGLE);
	if (strcmp(v->versioning_scheme, LEC__SCHEME_SINGLE) == 0)
		return slot_set(&v->versioning_scheme,
				LEC__SCHEME_WITH_TRANSLATIONS);
	return LEC_OK;
}

static int field_versioning_scheme(const struct lec_project_patch *p,
				   struct lec__project_values *v)
{
	return list_choice("versioning_scheme", p->versioning_scheme,
			   versioning_schemes, &v->versioning_scheme);
}

static int field_external_builds_enabled(const struct lec_project_patch *p,
					 struct lec__project_values *v)
{
	v->external_builds_enabled = p->external_builds_enabled != 0;
	return LEC_OK;
}

static int field_privacy_level(const struct lec_project_patch *p,
			       struct lec__project_values *v)
{
	return list_choice("privacy_level", p->privacy_level, privacy_levels,
			   &v->privacy_level);
}

static int field_external_privacy(const struct lec_project_patch *p,
				  struct lec__project_values *v)
{
	return list_choice("external_builds_privacy_level",
			   p->external_builds_privacy_level, privacy_levels,
			   &v->external_builds_privacy_level);
}

static int field_yaml_path(const struct lec_project_patch *p,
			   struct lec__project_values *v)
{
	int error = text_field("readthedocs_yaml_path",
			       p->readthedocs_yaml_path,
			       LEC_PROJECT_YAML_PATH_MAX,
			       TF_NULL_OK | TF_BLANK_OK | TF_BLANK_NULL,
			       &v->readthedocs_yaml_path);

	if (error == LEC_OK && v->readthedocs_yaml_path)
		error = yaml_path_check(v->readthedocs_yaml_path);
	return error;
}

static int field_description(const struct lec_project_patch *p,
			     struct lec__project_values *v)
{
	return text_field("description", p->description, 0,
			  TF_BLANK_OK | TF_NO_TRIM, &v->description);
}

static int field_documentation_type(const struct lec_project_patch *p,
				    struct lec__project_values *v)
{
	return list_choice("documentation_type", p->documentation_type,
			   documentation_types, &v->documentation_type);
}

/* Every patchable field, in the order the service validates (and so
 * reports) them; single_version comes before versioning_scheme so that an
 * explicit scheme wins. */
static const struct {
	unsigned int bit;
	int (*apply)(const struct lec_project_patch *p,
		     struct lec__project_values *v);
} patch_fields[] = {
	{ LEC_PROJECT_F_NAME, field_name },
	{ LEC_PROJECT_F_REPO_URL, field_repo_url },
	{ LEC_PROJECT_F_REPO_TYPE, field_repo_type },
	{ LEC_PROJECT_F_LANGUAGE, field_language },
	{ LEC_PROJECT_F_PROGRAMMING_LANGUAGE, field_programming_language },
	{ LEC_PROJECT_F_HOMEPAGE, field_homepage },
	{ LEC_PROJECT_F_TAGS, field_tags },
	{ LEC_PROJECT_F_DEFAULT_VERSION, field_default_version },
	{ LEC_PROJECT_F_DEFAULT_BRANCH, field_default_branch },
	{ LEC_PROJECT_F_ANALYTICS_CODE, field_analytics_code },
	{ LEC_PROJECT_F_ANALYTICS_DISABLED, field_analytics_disabled },
	{ LEC_PROJECT_F_SHOW_VERSION_WARNING, field_show_version_warning },
	{ LEC_PROJECT_F_WATCH_COMMITS, field_watch_commits },
	{ LEC_PROJECT_F_POLL_INTERVAL, field_poll_interval },
	{ LEC_PROJECT_F_SINGLE_VERSION, field_single_version },
	{ LEC_PROJECT_F_VERSIONING_SCHEME, field_versioning_scheme },
	{ LEC_PROJECT_F_EXTERNAL_BUILDS_ENABLED,
	  field_external_builds_enabled },
	{ LEC_PROJECT_F_PRIVACY_LEVEL, field_privacy_level },
	{ LEC_PROJECT_F_EXTERNAL_BUILDS_PRIVACY_LEVEL,
	  field_external_privacy },
	{ LEC_PROJECT_F_READTHEDOCS_YAML_PATH, field_yaml_path },
	{ LEC_PROJECT_F_DESCRIPTION, field_description },
	{ LEC_PROJECT_F_DOCUMENTATION_TYPE, field_documentation_type },
};

int lec__project_values_apply(struct lec__project_values *v,
			      const struct lec_project_patch *p,
			      unsigned int mask)
{
	size_t i;
	int error;

	for (i = 0; i < COUNT_OF(patch_fields); i++) {
		if (!(p->fields & mask & patch_fields[i].bit))
			continue;
		if ((error = patch_fields[i].apply(p, v)) < 0)
			return error;
	}
	return LEC_OK;
}

int lec__project_values_bind(sqlite3_stmt *stmt, int first,
			     struct lec__project_values *v)
{
	char **texts[VALUE_TEXTS];
	int i, error;

	values_texts(v, texts);
	for (i = 0; i < VALUE_TEXTS; i++)
		if ((error = lec_store__bind_text(stmt, first + i,
						  *texts[i])) < 0)
			return error;
	sqlite3_bind_int(stmt, first + VALUE_TEXTS, v->external_builds_enabled);
	sqlite3_bind_int(stmt, first + VALUE_TEXTS + 1,
			 v->show_version_warning);
	sqlite3_bind_int(stmt, first + VALUE_TEXTS + 2, v->analytics_disabled);
	sqlite3_bind_int(stmt, first + VALUE_TEXTS + 3, v->watch_commits);
	sqlite3_bind_int(stmt, first + VALUE_TEXTS + 4, (int)v->poll_interval);
	return LEC_OK;
}
