/*
 * The hosted service's words for a refused configuration: the header and
 * body of each message its config checks raise (config/notifications.py,
 * copied as data: the ids are its exceptions.py's), and those texts made
 * from a recorded refusal (rtdconfig_problem.c), as the service's
 * notifications show them: HTML, each {{name}} filled with a format value
 * escaped as Django escapes it, {{value|to_class_name}} with the value's
 * class, and a value the message names but the refusal lacks left empty
 * (Django's string_if_invalid; the service's APT_INVALID_PACKAGE_NAME
 * body names {{pacakge}} and so shows no package, here too). The same
 * text can be had as one plain line, for a terminal.
 */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "internal.h"
#include "lectern/rtdconfig.h"

/* Bytes of a format value's name between {{ and }} or | . */
#define NAME_MAX_ 64

static const struct {
	const char *id;
	const char *header;
	const char *body; /* a Django template */
} messages[] = {
	{ "config:generic",
	  "There was an unexpected problem in your config file",
	  "There was an unexpected problem in your config file.\n"
	  "Make sure the encoding is correct." },
	{ "config:path:default-not-found",
	  "Config file not found at default path",
	  "The required <code>.readthedocs.yaml</code> configuration "
	  "file was not found at repository's root.\n"
	  "Learn how to use this file in our <a "
	  "href=\"https://docs.readthedocs.io/en/stable/config-file/index"
	  ".html\">configuration file tutorial</a>." },
	{ "config:path:not-found",
	  "Configuration file not found",
	  "Configuration file not found in <code>{{directory}}</code>." },
	{ "config:key:not-supported-in-version",
	  "Configuration key not supported in this version",
	  "The <code>{{key}}</code> configuration option is not "
	  "supported in this version." },
	{ "config:python:system-packages-removed",
	  "Invalid configuration key",
	  "The configuration key <code>python.system_packages</code> "
	  "has been deprecated and removed.\n"
	  "<a "
	  "href=\"https://blog.readthedocs.com/drop-support-system-packag"
	  "es/\">Read our blog post</a>\n"
	  "to learn more about this change and how to upgrade your "
	  "configuration file.\"" },
	{ "config:python:use-system-site-packages-removed",
	  "Invalid configuration key",
	  "The configuration key "
	  "<code>python.use_system_site_packages</code> has been "
	  "deprecated and removed.\n"
	  "<a "
	  "href=\"https://blog.readthedocs.com/drop-support-system-packag"
	  "es/\">Read our blog post</a>\n"
	  "to learn more about this change and how to upgrade your "
	  "configuration file.\"" },
	{ "config:base:invalid-version",
	  "Invalid configuration version",
	  "Invalid version of the configuration file." },
	{ "config:build:missing-build-tools-commands",
	  "Missing configuration option",
	  "At least one of the following configuration options is "
	  "required: <code>build.tools</code> or "
	  "<code>build.commands</code>." },
	{ "config:build:jobs-and-commands",
	  "Invalid configuration option",
	  "The keys <code>build.jobs</code> and "
	  "<code>build.commands</code> can't be used together." },
	{ "config:build:jobs:build:missing-in-formats",
	  "Invalid configuration option",
	  "The <code>{{ build_type }}</code> build type was defined in "
	  "<code>build.jobs.build</code>, but it wasn't included in "
	  "<code>formats</code>." },
	{ "config:apt:invalid-package-name-prefix",
	  "Invalid APT package name",
	  "The name of the packages (e.g. <code>{{package}}</code>) "
	  "can't start with <code>{{prefix}}</code>" },
	{ "config:apt:invalid-package-name",
	  "Invalid APT package name",
	  "The name of the package <code>{{pacakge}}</code> is invalid." },
	{ "config:python:pip-required",
	  "Invalid Python install method",
	  "You need to install your project with "
	  "<code>python.install.method: pip</code>\n"
	  "to use <code>python.install.extra_requirements</code>." },
	{ "config:python:pip-path-requirement-required",
	  "Missing configuration key",
	  "When using <code>python.install</code>,\n"
	  "one of the following keys are required: "
	  "<code>python.install.path</code> or "
	  "<code>python.install.requirements</code>." },
	{ "config:base:sphinx-mkdocs-together",
	  "Invalid configuration key",
	  "You can not have <code>sphinx</code> and "
	  "<code>mkdocs</code> keys at the same time." },
	{ "config:submodules:include-exclude-together",
	  "Invalid configuration key",
	  "You can not have <code>submodules.exclude</code> and "
	  "<code>submodules.include</code> at the same time." },
	{ "config:base:invalid-key-name",
	  "Invalid configuration key: {{key}}",
	  "Make sure the key name <code>{{key}}</code> is correct." },
	{ "config:base:invalid-syntax",
	  "Invalid syntax in configuration file",
	  "Error while parsing <code>{{filename}}</code>.\n"
	  "Make sure your configuration file doesn't have any errors.\n"
	  "\n"
	  "{{error_message}}" },
	{ "config:conda:required",
	  "Missing required key",
	  "The key <code>conda.environment</code> is required when "
	  "using Conda or Mamba." },
	{ "config:python:uv-command-required",
	  "Missing required key",
	  "The key <code>python.install.command</code> is required "
	  "when using <code>method: uv</code>.\n"
	  "Allowed values are <code>sync</code> or <code>pip</code>." },
	{ "config:python:uv-multiple-install-entries-invalid",
	  "Invalid configuration for uv",
	  "When using <code>method: uv</code>, only one entry is "
	  "allowed under <code>python.install</code>." },
	{ "config:python:uv-sync-requirements-invalid",
	  "Invalid configuration for uv sync",
	  "The key <code>python.install.requirements</code> is not "
	  "allowed with <code>command: sync</code>.\n"
	  "Use <code>command: pip</code> instead when specifying a "
	  "requirements file." },
	{ "config:python:uv-pip-requirements-or-path-required",
	  "Missing configuration key",
	  "When using <code>method: uv</code> with <code>command: "
	  "pip</code>,\n"
	  "one of the following keys is required: "
	  "<code>python.install.path</code> or "
	  "<code>python.install.requirements</code>." },
	{ "config:python:uv-pip-requirements-and-path-mutually-exclusive",
	  "Invalid configuration key",
	  "When using <code>method: uv</code> with <code>command: "
	  "pip</code>,\n"
	  "both <code>python.install.path</code> and "
	  "<code>python.install.requirements</code> cannot be "
	  "specified at the same time." },
	{ "config:python:uv-pip-groups-not-allowed",
	  "Invalid configuration for uv pip",
	  "The key <code>python.install.groups</code> is not allowed "
	  "with <code>command: pip</code>.\n"
	  "Use <code>command: sync</code> instead when you need to "
	  "select dependency groups." },
	{ "config:python:uv-groups-extras-empty",
	  "Invalid configuration for uv",
	  "The <code>python.install.{{field}}</code> list cannot be "
	  "empty.\n"
	  "Either remove the key or provide a non-empty list or the "
	  "value <code>all</code>." },
	{ "config:python:uv-groups-extras-invalid-type",
	  "Invalid configuration for uv",
	  "The <code>python.install.{{field}}</code> must be a list of "
	  "strings or the value <code>all</code>.\n"
	  "Got type <code>{{value|to_class_name}}</code>." },
	{ "config:validation:invalid-bool",
	  "Config file validation error",
	  "Config validation error in <code>{{key}}</code>.\n"
	  "Expected one of <code>[0, 1, true, false]</code>, got type "
	  "<code>{{value|to_class_name}}</code> "
	  "(<code>{{value}}</code>).\n"
	  "Make sure the type of the value is not a string." },
	{ "config:validation:invalid-choice",
	  "Config file validation error",
	  "Config validation error in <code>{{key}}</code>.\n"
	  "Expected one of ({{choices}}), got type "
	  "<code>{{value|to_class_name}}</code> "
	  "(<code>{{value}}</code>).\n"
	  "Double check the type of the value.\n"
	  "A string may be required (e.g. <code>\"3.10\"</code> instead "
	  "of <code>3.10</code>)" },
	{ "config:validation:invalid-dict",
	  "Config file validation error",
	  "Config validation error in <code>{{key}}</code>.\n"
	  "Expected a dictionary, got type "
	  "<code>{{value|to_class_name}}</code> "
	  "(<code>{{value}}</code>)." },
	{ "config:validation:invalid-path",
	  "Config file validation error",
	  "Config validation error in <code>{{key}}</code>.\n"
	  "The path <code>{{value}}</code> does not exist." },
	{ "config:validation:invalid-path-pattern",
	  "Config file validation error",
	  "Config validation error in <code>{{key}}</code>.\n"
	  "The path <code>{{value}}</code> is not a valid path pattern." },
	{ "config:validation:invalid-string",
	  "Config file validation error",
	  "Config validation error in <code>{{key}}</code>.\n"
	  "Expected a string, got type "
	  "<code>{{value|to_class_name}}</code> "
	  "(<code>{{value}}</code>)." },
	{ "config:validation:invalid-list",
	  "Config file validation error",
	  "Config validation error in <code>{{key}}</code>.\n"
	  "Expected a list, got type "
	  "<code>{{value|to_class_name}}</code> "
	  "(<code>{{value}}</code>)." },
	{ "config:validation:value-not-found",
	  "Config file validation error",
	  "Config validation error in <code>{{key}}</code>.\n"
	  "Value <code>{{value}}</code> not found." },
	{ "config:sphinx:invalid-config-file",
	  "Invalid Sphinx configuration file",
	  "The <code>sphinx.configuration</code> key must point to a "
	  "file named <code>conf.py</code>." },
	{ "config:sphinx:missing-config",
	  "Missing Sphinx configuration key",
	  "The <code>sphinx.configuration</code> key is missing.\n"
	  "This key is now required, see our <a "
	  "href=\"https://about.readthedocs.com/blog/2024/12/deprecate-co"
	  "nfig-files-without-sphinx-or-mkdocs-config/\">blog post</a> "
	  "for more information." },
	{ "config:mkdocs:missing-config",
	  "Missing MkDocs configuration key",
	  "The <code>mkdocs.configuration</code> key is missing.\n"
	  "This key is now required, see our <a "
	  "href=\"https://about.readthedocs.com/blog/2024/12/deprecate-co"
	  "nfig-files-without-sphinx-or-mkdocs-config/\">blog post</a> "
	  "for more information." },
};

#define MESSAGES (sizeof(messages) / sizeof(messages[0]))

/* A format value's text; "" when the refusal has none. */
static const char *value_of(const cJSON *problem, const char *name)
{
	const cJSON *fv = cJSON_GetObjectItemCaseSensitive(problem,
							   "format_values");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(fv, name);

	return cJSON_IsString(v) ? v->valuestring : "";
}

/* What Django's autoescape makes of a value in HTML. */
static void put_escaped(struct lec__buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			lec__buf_puts(b, "&amp;");
			break;
		case '<':
			lec__buf_puts(b, "&lt;");
			break;
		case '>':
			lec__buf_puts(b, "&gt;");
			break;
		case '"':
			lec__buf_puts(b, "&quot;");
			break;
		case '\'':
			lec__buf_puts(b, "&#x27;");
			break;
		default:
			lec__buf_putn(b, s, 1);
		}
	}
}

/* One {{ name|filter }} (inner: its text between the braces). */
static void put_variable(struct lec__buf *b, const cJSON *problem,
			 const char *inner, size_t n, int html)
{
	char name[NAME_MAX_], filter[NAME_MAX_];
	const cJSON *cls;
	const char *bar, *text;
	size_t len;

	while (n > 0 && inner[0] == ' ')
		inner++, n--;
	while (n > 0 && inner[n - 1] == ' ')
		n--;
	bar = memchr(inner, '|', n);
	len = bar ? (size_t)(bar - inner) : n;
	snprintf(name, sizeof(name), "%.*s", (int)len, inner);
	snprintf(filter, sizeof(filter), "%.*s", bar ? (int)(n - len - 1) : 0,
		 bar ? bar + 1 : "");
	text = value_of(problem, name);
	if (strcmp(filter, "to_class_name") == 0) {
		/* A value the refusal lacks is Django's "", a str. */
		cls = cJSON_GetObjectItemCaseSensitive(problem, "value_class");
		text = *text && strcmp(name, "value") == 0 && cJSON_IsString(cls)
			       ? cls->valuestring
			       : "str";
	}
	if (html)
		put_escaped(b, text);
	else
		lec__buf_puts(b, text);
}

/* A tag of a template, in plain text: none, but a link's address after
 * its text. href holds the open link's (NAME_MAX_ * 4 bytes). */
static void put_tag(struct lec__buf *b, const char *tag, size_t n, char *href)
{
	const char *h = n > 2 && tag[0] == 'a' && tag[1] == ' '
				? strstr(tag, "href=\"")
				: NULL;
	const char *q;

	if (h && h < tag + n && (q = strchr(h + 6, '"')) != NULL &&
	    q < tag + n)
		snprintf(href, NAME_MAX_ * 4, "%.*s", (int)(q - h - 6), h + 6);
	else if (n == 2 && strncmp(tag, "/a", 2) == 0 && href[0]) {
		lec__buf_printf(b, " (%s)", href);
		href[0] = '\0';
	}
}

/* A template made text: HTML as the service renders it, or one line of
 * plain text (tags left out, each run of white space one space). */
static char *render(const char *tmpl, const cJSON *problem, int html)
{
	struct lec__buf b = LEC__BUF_INIT;
	char href[NAME_MAX_ * 4] = "";
	const char *p = tmpl, *end;

	while (*p) {
		if (p[0] == '{' && p[1] == '{' &&
		    (end = strstr(p + 2, "}}")) != NULL) {
			put_variable(&b, problem, p + 2, (size_t)(end - p - 2),
				     html);
			p = end + 2;
		} else if (!html && *p == '<' && (end = strchr(p, '>'))) {
			put_tag(&b, p + 1, (size_t)(end - p - 1), href);
			p = end + 1;
		} else if (!html && strchr(" \n\t", *p)) {
			while (*p && strchr(" \n\t", *p))
				p++;
			lec__buf_puts(&b, " ");
		} else {
			lec__buf_putn(&b, p++, 1);
		}
	}
	return lec__buf_take(&b);
}

/* The problem's JSON and the index of its message. */
static int read_problem(const char *json, cJSON **problem, size_t *index)
{
	const cJSON *id;
	size_t i;

	*problem = json ? cJSON_Parse(json) : NULL;
	id = cJSON_GetObjectItemCaseSensitive(*problem, "id");
	for (i = 0; cJSON_IsString(id) && i < MESSAGES; i++)
		if (strcmp(messages[i].id, id->valuestring) == 0) {
			*index = i;
			return LEC_OK;
		}
	cJSON_Delete(*problem);
	*problem = NULL;
	return lec__error(LEC_EINVALID, "not a message of the service's");
}

int lec_rtd_problem_message(const char *json, char **id, char **header,
			    char **body)
{
	cJSON *problem;
	size_t i;
	int rc;

	lec_error_clear();
	*id = *header = *body = NULL;
	if ((rc = read_problem(json, &problem, &i)) < 0)
		return rc;
	*id = lec__strdup(messages[i].id);
	*header = render(messages[i].header, problem, 1);
	*body = render(messages[i].body, problem, 1);
	cJSON_Delete(problem);
	if (*id && *header && *body)
		return LEC_OK;
	lec__free(*id);
	lec__free(*header);
	lec__free(*body);
	*id = *header = *body = NULL;
	return lec__error_oom();
}

char *lec_rtd_problem_text(const char *json)
{
	struct lec__buf b = LEC__BUF_INIT;
	char *header, *body, *text = NULL;
	cJSON *problem;
	size_t i;

	lec_error_clear();
	if (read_problem(json, &problem, &i) < 0)
		return NULL;
	header = render(messages[i].header, problem, 0);
	body = render(messages[i].body, problem, 0);
	cJSON_Delete(problem);
	if (header && body) {
		lec__buf_printf(&b, "%s: %s", header, body);
		text = lec__buf_take(&b);
	}
	lec__free(header);
	lec__free(body);
	if (text == NULL)
		lec__error_oom();
	return text;
}
