/*
 * `.readthedocs.yaml` v2: parse it and check it section by section as the
 * hosted service does (config/config.py), on validators of single values
 * (rtdconfig_validate.c, its validation.py). Finding the file in a checkout
 * and reading it is rtdconfig_file.c; the build's config object, which
 * renders the result, is rtdconfig_json.c.
 *
 * Parsing is two passes. The engine's YAML reader (yaml.c), strict, first
 * builds a small tree that keeps the line of every key and value and
 * refuses what a configuration never needs and an attacker could abuse
 * (aliases, deep nesting, huge files, duplicate keys); its plain scalars
 * are typed with the YAML 1.1 rules of the service's parser (PyYAML
 * safe_load), so `python: 3.10` is a number there and here alike. The
 * checks then walk the tree in the service's order, marking each key they
 * read; a key nobody read is unknown, reported last, as the service reports
 * keys left over after its checks. The checks stay one file past the
 * engine's ~1,200 lines on purpose: they are the service's order, section
 * after section, and a reader compares them with config/config.py top to
 * bottom.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "rtdconfig_internal.h"
#include "yaml_reader.h"

/* The schema nests five levels (python.install.0.extra_requirements.0);
 * the limit keeps the recursive passes' stack small on hostile input. */
#define RTD_DEPTH_MAX 16
/* Values in one file: a real configuration has well under a hundred, and
 * the tree of a pathological one ("[0,0,0,...]") must stay small. */
#define RTD_NODES_MAX 50000
/* Keys in one map: the duplicate check is quadratic, and the only
 * open-ended map (search.ranking) never needs this many patterns. */
#define RTD_MAP_KEYS_MAX 1000

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Names ------------------------------------------------------------------- */

static const char *const job_names[LEC_RTD_JOB_COUNT] = {
	"post_checkout",	    "pre_system_dependencies",
	"post_system_dependencies", "pre_create_environment",
	"create_environment",	    "post_create_environment",
	"pre_install",		    "install",
	"post_install",		    "pre_build",
	"build.html",		    "build.pdf",
	"build.epub",		    "build.htmlzip",
	"post_build",
};

/* The keys of build.jobs in the service's order (its BuildJobs model). */
static const char *const job_keys[] = {
	"pre_checkout",		"post_checkout",
	"pre_system_dependencies", "post_system_dependencies",
	"pre_create_environment",  "create_environment",
	"post_create_environment", "pre_install",
	"install",		"post_install",
	"pre_build",		"build",
	"post_build",
};

/* Formats in the order the service lists them for "all". */
const char *const lec_rtd__format_names[LEC_RTD__FORMATS] = { "htmlzip",
							      "pdf", "epub" };
const unsigned lec_rtd__format_bits[LEC_RTD__FORMATS] = {
	LEC_FORMAT_HTMLZIP, LEC_FORMAT_PDF, LEC_FORMAT_EPUB
};
/* build.jobs.build keys (their jobs follow the enum from BUILD_HTML) and
 * the format each needs in `formats` (html needs none). */
static const char *const build_types[] = { "html", "pdf", "epub", "htmlzip" };
static const unsigned build_type_bits[] = { 0, LEC_FORMAT_PDF, LEC_FORMAT_EPUB,
					    LEC_FORMAT_HTMLZIP };

/* sphinx.builder values and the sphinx -b name each stands for. */
static const char *const builder_names[] = { "html", "htmldir", "dirhtml",
					     "singlehtml" };
static const char *const builder_flags[] = { "html", "dirhtml", "dirhtml",
					     "singlehtml" };
/* The ranks of search.ranking, as the service lists them. */
#define RANKS                                                                \
	"-10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, " \
	"9, 10"
/* The service's search.ignore when the key is absent. */
static const char *const default_ignore[] = { "search.html",
					      "search/index.html", "404.html",
					      "404/index.html" };

const char *lec_rtd_job_name(enum lec_rtd_job job)
{
	return (unsigned)job < LEC_RTD_JOB_COUNT ? job_names[job] : NULL;
}

const char *lec_doctype_code(enum lec_doctype doctype)
{
	switch (doctype) {
	case LEC_DOCTYPE_SPHINX:
		return "sphinx";
	case LEC_DOCTYPE_SPHINX_HTMLDIR:
		return "sphinx_htmldir";
	case LEC_DOCTYPE_SPHINX_SINGLEHTML:
		return "sphinx_singlehtml";
	case LEC_DOCTYPE_MKDOCS:
		return "mkdocs";
	case LEC_DOCTYPE_GENERIC:
		return "generic";
	}
	return NULL;
}

/* The file ------------------------------------------------------------------- */

/* The service's message for a file its parser refuses: the words of its
 * parser's error, or for the YAML reader's (which is stricter than PyYAML:
 * duplicate keys, anchors, tags) Lectern's own. */
static void syntax_problem(const struct lec_rtd__ctx *cx, const char *words)
{
	lec_rtd__problem(LEC_RTD__SYNTAX_INVALID, NULL, NULL);
	lec_rtd__problem_add("filename", cx->relpath);
	lec_rtd__problem_add("error_message", words);
}

/* The file's one document, which must be a map with keys. */
static int parse_text(struct lec_rtd__ctx *cx)
{
	const struct lec__yaml_rules rules = { cx->relpath, 1, RTD_DEPTH_MAX,
					       RTD_NODES_MAX,
					       RTD_MAP_KEYS_MAX };
	int rc;

	if ((rc = lec__yaml_read(cx->data, cx->len, &rules, &cx->root)) < 0) {
		if (rc == LEC_EINVALID)
			syntax_problem(cx, lec_error_last());
		return rc;
	}
	if (cx->root == NULL || cx->root->kind != LEC__YAML_MAP) {
		syntax_problem(cx, "Expected mapping");
		if (cx->root == NULL || lec_rtd__is_null(cx->root))
			return LEC_RTD__FAIL(cx, 1, NULL, "the file is empty");
		return LEC_RTD__FAIL(cx, cx->root->line, NULL,
				     "expected a map of keys at the top level");
	}
	if (cx->root->len == 0) {
		syntax_problem(cx, "Empty config");
		return LEC_RTD__FAIL(cx, 1, NULL, "the file is empty");
	}
	return LEC_OK;
}

/* version, formats ---------------------------------------------------------- */

static int check_version(const struct lec_rtd__ctx *cx)
{
	const struct lec__yaml_entry *e = lec_rtd__take(cx->root, "version");
	char got[LEC__YAML_PROBLEM_MAX / 2];
	const struct lec__yaml_node *n;
	long long v;

	if (e == NULL) /* the service's loader assumes 2 */
		return LEC_OK;
	n = e->value;
	/* What Python finds in (2, "2"): 2.0 too. */
	if (lec_rtd__is_word(n, "2") ||
	    (n->kind == LEC__YAML_SCALAR && n->type == LEC__YAML_INT &&
	     lec__yaml_int_value(n->text, &v) == LEC_OK && v == 2) ||
	    (n->kind == LEC__YAML_SCALAR && n->type == LEC__YAML_FLOAT &&
	     strtod(n->text, NULL) == 2.0 && !strchr(n->text, ':')))
		return LEC_OK;
	return LEC_RTD__REFUSE(cx, LEC_RTD__INVALID_VERSION, NULL, n->line,
			       "version", "only version 2 is supported, got %s",
			       lec_rtd__describe(n, got, sizeof(got)));
}

static int read_formats(struct lec_rtd__ctx *cx)
{
	const struct lec__yaml_entry *e = lec_rtd__take(cx->root, "formats");
	char got[LEC__YAML_PROBLEM_MAX / 2];
	const struct lec__yaml_node *n;
	size_t i;
	int rc, which;

	if (e == NULL)
		return LEC_OK;
	n = e->value;
	if (lec_rtd__is_word(n, "all")) {
		cx->cfg->formats =
			LEC_FORMAT_HTMLZIP | LEC_FORMAT_PDF | LEC_FORMAT_EPUB;
		return LEC_OK;
	}
	if (n->kind != LEC__YAML_SEQ)
		return LEC_RTD__REFUSE(
			cx, LEC_RTD__INVALID_LIST, n, n->line, "formats",
			"expected a list of htmlzip, pdf, epub or 'all', "
			"got %s",
			lec_rtd__describe(n, got, sizeof(got)));
	for (i = 0; i < n->len; i++) {
		if ((rc = lec_rtd__want_choice(cx, n->entries[i].value,
					       "formats", lec_rtd__format_names,
					       LEC_RTD__FORMATS, &which)) < 0)
			return rc;
		cx->cfg->formats |= lec_rtd__format_bits[which];
	}
	return LEC_OK;
}

/* build ------------------------------------------------------------------- */

/* The parts of build read before the checks that relate them. */
struct build_keys {
	const struct lec__yaml_entry *build, *tools, *jobs, *commands;
};

static int read_os(const struct lec_rtd__ctx *cx,
		   const struct lec__yaml_node *build, size_t parent_line)
{
	const struct lec__yaml_entry *e = lec_rtd__take(build, "os");
	const char *names[LEC_RTD__OFFERS_MAX];
	char list[LEC_RTD__CHOICES_MAX];
	size_t n = lec_rtd__offer_names("os", names, LEC_RTD__OFFERS_MAX);
	int which, rc;

	if (e == NULL) {
		lec_rtd__problem(LEC_RTD__VALUE_NOT_FOUND, "build.os", NULL);
		lec_rtd__problem_add("value", "os");
		return LEC_RTD__FAIL(cx, parent_line, "build.os",
				     "is required: one of %s",
				     lec_rtd__choices_text(names, n, list,
							   sizeof(list)));
	}
	if ((rc = lec_rtd__want_choice(cx, e->value, "build.os", names, n,
				       &which)) < 0)
		return rc;
	cx->cfg->build_os = lec__strdup(names[which]);
	LEC__CHECK_ALLOC(cx->cfg->build_os);
	return LEC_OK;
}

/* Check a map's keys against names without reading the values yet. */
static int check_keys(const struct lec_rtd__ctx *cx,
		      const struct lec__yaml_node *map, const char *key,
		      const char *const *names, size_t count)
{
	char list[LEC_RTD__CHOICES_MAX], shown[LEC__YAML_SHOW_MAX + 8];
	struct lec__yaml_node name = { .kind = LEC__YAML_SCALAR };
	struct lec__yaml_entry *e;
	size_t i;

	for (i = 0; i < map->len; i++) {
		e = &map->entries[i];
		if (lec_rtd__index_of(names, count, e->key) < 0) {
			lec__yaml_show(shown, sizeof(shown), e->key,
				       LEC__YAML_SHOW_MAX);
			lec_rtd__choices_text(names, count, list, sizeof(list));
			/* The service's value is the key, as it read it. */
			name.text = e->key;
			name.type = e->key_type;
			lec_rtd__problem(LEC_RTD__INVALID_CHOICE, key, &name);
			lec_rtd__problem_add("choices", list);
			return LEC_RTD__FAIL(cx, e->line, key,
					     "expected one of %s, got '%s'",
					     list, shown);
		}
		e->used = 1;
	}
	return LEC_OK;
}

/* build.tools, build.jobs and build.commands: present with the right
 * shapes; tools only counts when truthy, as at the service. */
static int read_build_shapes(const struct lec_rtd__ctx *cx,
			     const struct lec__yaml_node *build,
			     struct build_keys *k)
{
	const char *tools[LEC_RTD__OFFERS_MAX];
	size_t n = lec_rtd__offer_names(NULL, tools, LEC_RTD__OFFERS_MAX);
	int rc;

	k->tools = lec_rtd__take(build, "tools");
	if (k->tools && !lec_rtd__truthy(k->tools->value))
		k->tools = NULL;
	if (k->tools &&
	    ((rc = lec_rtd__want_kind(cx, k->tools->value, "build.tools",
				      LEC__YAML_MAP)) < 0 ||
	     (rc = check_keys(cx, k->tools->value, "build.tools", tools, n)) <
		     0))
		return rc;
	if ((k->jobs = lec_rtd__take(build, "jobs")) &&
	    ((rc = lec_rtd__want_kind(cx, k->jobs->value, "build.jobs",
				      LEC__YAML_MAP)) < 0 ||
	     (rc = check_keys(cx, k->jobs->value, "build.jobs", job_keys,
			      COUNT(job_keys))) < 0))
		return rc;
	if ((k->commands = lec_rtd__take(build, "commands")) &&
	    (rc = lec_rtd__want_kind(cx, k->commands->value, "build.commands",
				     LEC__YAML_SEQ)) < 0)
		return rc;
	return LEC_OK;
}

static int check_build_rules(const struct lec_rtd__ctx *cx,
			     const struct build_keys *k, size_t parent_line)
{
	int commands = k->commands && k->commands->value->len > 0;
	const struct lec__yaml_entry *later;

	if (!k->tools && !commands)
		return LEC_RTD__REFUSE(
			cx, LEC_RTD__NOT_BUILD_TOOLS_OR_COMMANDS, NULL,
			parent_line, "build",
			"at least one of build.tools or build.commands is "
			"required");
	if (commands && k->jobs && k->jobs->value->len > 0) {
		later = k->jobs->line > k->commands->line ? k->jobs
							  : k->commands;
		lec_rtd__problem(LEC_RTD__BUILD_JOBS_AND_COMMANDS, "build", NULL);
		return LEC_RTD__FAIL(
			cx, later->line,
			later == k->jobs ? "build.jobs" : "build.commands",
			"build.jobs and build.commands cannot be used "
			"together");
	}
	return LEC_OK;
}

static int read_jobs_build(const struct lec_rtd__ctx *cx,
			   const struct lec__yaml_entry *e)
{
	struct lec_rtd_config *cfg = cx->cfg;
	char key[LEC__YAML_PATH_MAX];
	const struct lec__yaml_entry *t;
	size_t i;
	int rc, which;

	if ((rc = lec_rtd__want_kind(cx, e->value, "build.jobs.build",
				     LEC__YAML_MAP)) < 0 ||
	    (rc = check_keys(cx, e->value, "build.jobs.build", build_types,
			     COUNT(build_types))) < 0)
		return rc;
	for (i = 0; i < e->value->len; i++) {
		t = &e->value->entries[i];
		which = lec_rtd__index_of(build_types, COUNT(build_types),
					  t->key);
		lec__yaml_path(key, "build.jobs.build", t->key);
		if (build_type_bits[which] &&
		    !(cfg->formats & build_type_bits[which])) {
			lec_rtd__problem(LEC_RTD__BUILD_TYPE_MISSING_IN_FORMATS,
					 NULL, NULL);
			lec_rtd__problem_add("build_type", t->key);
			return LEC_RTD__FAIL(cx, t->line, key,
					     "needs '%s' in formats", t->key);
		}
		which += LEC_RTD_JOB_BUILD_HTML;
		cfg->jobs_set |= 1u << which;
		if ((rc = lec_rtd__read_strings(cx, t->value, key,
						&cfg->jobs[which])) < 0)
			return rc;
	}
	return LEC_OK;
}

static int read_jobs(const struct lec_rtd__ctx *cx,
		     const struct lec__yaml_node *jobs)
{
	struct lec_rtd_config *cfg = cx->cfg;
	char key[LEC__YAML_PATH_MAX];
	const struct lec__yaml_entry *e;
	size_t i;
	int rc, which;

	if (jobs == NULL)
		return LEC_OK;
	if ((e = lec__yaml_find(jobs, "build")) &&
	    (rc = read_jobs_build(cx, e)) < 0)
		return rc;
	for (i = 0; i < jobs->len; i++) {
		e = &jobs->entries[i];
		if (strcmp(e->key, "build") == 0)
			continue;
		lec__yaml_path(key, "build.jobs", e->key);
		if (strcmp(e->key, "pre_checkout") == 0) {
			rc = lec_rtd__read_strings(cx, e->value, key,
						   &cfg->pre_checkout);
		} else {
			which = lec_rtd__index_of(job_names, COUNT(job_names),
						  e->key);
			cfg->jobs_set |= 1u << which;
			rc = lec_rtd__read_strings(cx, e->value, key,
						   &cfg->jobs[which]);
		}
		if (rc < 0)
			return rc;
	}
	return LEC_OK;
}

/* A tool's version, one of those the service offers for it. A number
 * that names one ("3.10" written 3.10) gets the hint to quote it. */
static int read_tool(const struct lec_rtd__ctx *cx,
		     const struct lec__yaml_entry *e, const char *key)
{
	const char *names[LEC_RTD__OFFERS_MAX];
	char list[LEC_RTD__CHOICES_MAX], got[LEC__YAML_PROBLEM_MAX / 2];
	const struct lec__yaml_node *v = e->value;
	size_t n = lec_rtd__offer_names(e->key, names, LEC_RTD__OFFERS_MAX);
	int which;

	if (lec_rtd__is_str(v) || v->kind != LEC__YAML_SCALAR ||
	    lec_rtd__index_of(names, n, v->text) < 0)
		return lec_rtd__want_choice(cx, v, key, names, n, &which);
	lec_rtd__choices_text(names, n, list, sizeof(list));
	lec_rtd__problem(LEC_RTD__INVALID_CHOICE, key, v);
	lec_rtd__problem_add("choices", list);
	return LEC_RTD__FAIL(cx, v->line, key,
			     "expected one of %s, got %s; write it as a "
			     "string: \"%s\"",
			     list, lec_rtd__describe(v, got, sizeof(got)),
			     v->text);
}

static int read_tools(struct lec_rtd__ctx *cx,
		      const struct lec__yaml_node *tools)
{
	char key[LEC__YAML_PATH_MAX], pair[LEC__YAML_PATH_MAX * 2];
	const struct lec__yaml_entry *e;
	size_t i;
	int rc;

	for (i = 0; tools && i < tools->len; i++) {
		e = &tools->entries[i];
		lec__yaml_path(key, "build.tools", e->key);
		if ((rc = read_tool(cx, e, key)) < 0)
			return rc;
		if (strcmp(e->key, "python") == 0)
			cx->python_tool = e;
		snprintf(pair, sizeof(pair), "%s=%s", e->key, e->value->text);
		if ((rc = lec_rtd__strings_push(&cx->cfg->tools, pair)) < 0)
			return rc;
	}
	return LEC_OK;
}

/* The service's message for a package name it refuses: the prefix it
 * cannot start with ('\0': none) and the name, stripped. */
static int apt_refused(const struct lec_rtd__ctx *cx,
		       const struct lec__yaml_node *n, const char *key,
		       const char *name, char prefix)
{
	char shown[LEC__YAML_SHOW_MAX + 8], start[2] = { prefix, '\0' };

	lec__yaml_show(shown, sizeof(shown), name, LEC__YAML_SHOW_MAX);
	lec_rtd__problem(prefix ? LEC_RTD__APT_INVALID_PACKAGE_NAME_PREFIX
				: LEC_RTD__APT_INVALID_PACKAGE_NAME,
			 NULL, NULL);
	if (prefix)
		lec_rtd__problem_add("prefix", start);
	lec_rtd__problem_add("package", name);
	lec_rtd__problem_add("key", key);
	if (prefix)
		return LEC_RTD__FAIL(cx, n->line, key,
				     "the package name '%s' cannot start with "
				     "'%c'",
				     shown, prefix);
	return LEC_RTD__FAIL(cx, n->line, key,
			     "'%s' is not a valid package name", shown);
}

/* build.apt_packages: names apt-get cannot take for an option or a file. */
static int read_apt(const struct lec_rtd__ctx *cx,
		    const struct lec__yaml_node *build)
{
	const struct lec__yaml_entry *e = lec_rtd__take(build, "apt_packages");
	char key[LEC__YAML_PATH_MAX], name[LEC__YAML_PATH_MAX];
	const struct lec__yaml_node *n;
	size_t i, len;
	const char *s;
	int rc;

	if (e == NULL)
		return LEC_OK;
	if ((rc = lec_rtd__want_kind(cx, e->value, "build.apt_packages",
				     LEC__YAML_SEQ)) < 0)
		return rc;
	for (i = 0; i < e->value->len; i++) {
		n = e->value->entries[i].value;
		lec__yaml_path_index(key, "build.apt_packages", i);
		if ((rc = lec_rtd__want_string(cx, n, key)) < 0)
			return rc;
		s = n->text + strspn(n->text, " \t\r\n\f\v");
		len = strlen(s);
		while (len > 0 && strchr(" \t\r\n\f\v", s[len - 1]))
			len--;
		snprintf(name, sizeof(name), "%.*s", (int)len, s);
		if (len > 0 && strchr("-/.", s[0]))
			return apt_refused(cx, n, key, name, s[0]);
		if (len == 0 || len >= sizeof(name) ||
		    strspn(s,
			   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX"
			   "YZ0123456789.+-") != len)
			return apt_refused(cx, n, key, name, '\0');
		if ((rc = lec_rtd__strings_push(&cx->cfg->apt_packages, name)) <
		    0)
			return rc;
	}
	return LEC_OK;
}

static int read_build(struct lec_rtd__ctx *cx)
{
	struct build_keys k = { NULL, NULL, NULL, NULL };
	const struct lec__yaml_node *build = NULL;
	size_t parent_line;
	int rc;

	k.build = lec_rtd__take(cx->root, "build");
	parent_line = k.build ? k.build->line : cx->root->line;
	if (k.build) {
		build = k.build->value;
		if ((rc = lec_rtd__want_kind(cx, build, "build",
					     LEC__YAML_MAP)) < 0)
			return rc;
	}
	if ((rc = read_os(cx, build, parent_line)) < 0 ||
	    (rc = read_build_shapes(cx, build, &k)) < 0 ||
	    (rc = check_build_rules(cx, &k, parent_line)) < 0 ||
	    (rc = read_jobs(cx, k.jobs ? k.jobs->value : NULL)) < 0 ||
	    (k.commands && (rc = lec_rtd__read_strings(
				    cx, k.commands->value, "build.commands",
				    &cx->cfg->commands)) < 0) ||
	    (rc = read_tools(cx, k.tools ? k.tools->value : NULL)) < 0)
		return rc;
	return read_apt(cx, build);
}

/* conda, python --------------------------------------------------------------- */

static int uses_conda(const struct lec_rtd__ctx *cx)
{
	const char *v;

	if (cx->python_tool == NULL)
		return 0;
	v = cx->python_tool->value->text;
	return strncmp(v, "miniconda", 9) == 0 || strncmp(v, "mamba", 5) == 0 ||
	       strncmp(v, "miniforge", 9) == 0;
}

static int read_conda(struct lec_rtd__ctx *cx)
{
	const struct lec__yaml_entry *conda_key =
		lec__yaml_find(cx->root, "conda");
	const struct lec__yaml_node *conda;
	const struct lec__yaml_entry *env;
	int rc;

	if ((rc = lec_rtd__section(cx, "conda", &conda)) < 0)
		return rc;
	if (conda == NULL) {
		if (uses_conda(cx) && cx->cfg->commands.len == 0)
			return LEC_RTD__REFUSE(
				cx, LEC_RTD__CONDA_KEY_REQUIRED, NULL,
				cx->python_tool->value->line, "conda",
				"conda.environment is required when "
				"build.tools.python is a conda or mamba "
				"version");
		return LEC_OK;
	}
	if ((env = lec_rtd__take(conda, "environment")) == NULL) {
		lec_rtd__problem(LEC_RTD__VALUE_NOT_FOUND, "conda.environment",
				 NULL);
		lec_rtd__problem_add("value", "environment");
		return LEC_RTD__FAIL(cx, conda_key->line, "conda.environment",
				     "is required");
	}
	return lec_rtd__want_path(cx, env->value, "conda.environment",
				  &cx->cfg->conda_environment);
}

/* uv's groups / extras: a non-empty list of names, or "all". */
static int read_selection(const struct lec_rtd__ctx *cx,
			  const struct lec__yaml_entry *e, const char *key,
			  struct lec_rtd_strings *names, int *all)
{
	char got[LEC__YAML_PROBLEM_MAX / 2];

	if (lec_rtd__is_word(e->value, "all")) {
		*all = 1;
		return LEC_OK;
	}
	if (e->value->kind == LEC__YAML_SEQ && e->value->len == 0) {
		lec_rtd__problem(LEC_RTD__UV_GROUPS_EXTRAS_EMPTY, NULL, NULL);
		lec_rtd__problem_add("field", e->key);
		return LEC_RTD__FAIL(cx, e->value->line, key,
				     "must not be empty");
	}
	if (e->value->kind != LEC__YAML_SEQ) {
		lec_rtd__problem(LEC_RTD__UV_GROUPS_EXTRAS_INVALID_TYPE, NULL,
				 NULL);
		lec_rtd__problem_add("field", e->key);
		return LEC_RTD__FAIL(
			cx, e->value->line, key,
			"expected a list or 'all', got %s",
			lec_rtd__describe(e->value, got, sizeof(got)));
	}
	return lec_rtd__read_strings(cx, e->value, key, names);
}

/* An entry's key, with null counting as absent (the service's pop). */
static const struct lec__yaml_entry *take_set(const struct lec__yaml_node *map,
					      const char *name)
{
	const struct lec__yaml_entry *e = lec_rtd__take(map, name);

	return e && !lec_rtd__is_null(e->value) ? e : NULL;
}

/* The keys of a uv install its two commands read differently. */
struct uv_keys {
	const struct lec__yaml_entry *req, *groups;
};

static int read_uv_sync(const struct lec_rtd__ctx *cx, const char *key,
			const struct uv_keys *k, struct lec_rtd_install *in)
{
	char sub[LEC__YAML_PATH_MAX];
	const struct lec__yaml_entry *req = k->req, *groups = k->groups;
	int rc;

	if (req)
		return LEC_RTD__REFUSE(cx, LEC_RTD__UV_SYNC_REQUIREMENTS_INVALID,
				       NULL, req->line,
				       lec__yaml_path(sub, key, "requirements"),
				       "cannot be used with command: sync");
	if (groups &&
	    (rc = read_selection(cx, groups, lec__yaml_path(sub, key, "groups"),
				 &in->groups, &in->groups_all)) < 0)
		return rc;
	return LEC_OK;
}

static int read_uv_pip(const struct lec_rtd__ctx *cx,
		       const struct lec__yaml_node *item, const char *key,
		       const struct uv_keys *k, struct lec_rtd_install *in)
{
	char sub[LEC__YAML_PATH_MAX];
	const struct lec__yaml_entry *req = k->req, *groups = k->groups;
	int rc;

	if (groups)
		return LEC_RTD__REFUSE(cx, LEC_RTD__UV_PIP_GROUPS_NOT_ALLOWED,
				       NULL, groups->line,
				       lec__yaml_path(sub, key, "groups"),
				       "cannot be used with command: pip");
	if (req == NULL && in->path == NULL)
		return LEC_RTD__REFUSE(
			cx, LEC_RTD__UV_PIP_REQUIREMENTS_OR_PATH_REQUIRED, NULL,
			item->line, key,
			"command: pip needs requirements or path");
	if (req && in->path)
		return LEC_RTD__REFUSE(
			cx, LEC_RTD__UV_PIP_REQUIREMENTS_AND_PATH_MUTUALLY_EXCLUSIVE,
			NULL, req->line,
			lec__yaml_path(sub, key, "requirements"),
			"cannot be used together with path");
	if (req &&
	    (rc = lec_rtd__want_path(cx, req->value,
				     lec__yaml_path(sub, key, "requirements"),
				     &in->requirements)) < 0)
		return rc;
	return LEC_OK;
}

static int read_uv(const struct lec_rtd__ctx *cx,
		   const struct lec__yaml_node *item, const char *key,
		   struct lec_rtd_install *in)
{
	static const char *const commands[] = { "sync", "pip" };
	char sub[LEC__YAML_PATH_MAX];
	const struct lec__yaml_entry *e, *extras;
	struct uv_keys k;
	int rc, which;

	in->kind = LEC_RTD_INSTALL_UV;
	lec_rtd__take(item, "method");
	in->method = lec__strdup("uv");
	LEC__CHECK_ALLOC(in->method);
	lec__yaml_path(sub, key, "command");
	if ((e = take_set(item, "command")) == NULL)
		return LEC_RTD__REFUSE(
			cx, LEC_RTD__UV_COMMAND_REQUIRED, NULL, item->line, sub,
			"is required with method: uv (sync or pip)");
	if ((rc = lec_rtd__want_choice(cx, e->value, sub, commands,
				       COUNT(commands), &which)) < 0)
		return rc;
	in->command = lec__strdup(commands[which]);
	LEC__CHECK_ALLOC(in->command);
	if ((e = take_set(item, "path")) &&
	    (rc = lec_rtd__want_path(cx, e->value,
				     lec__yaml_path(sub, key, "path"),
				     &in->path)) < 0)
		return rc;
	k.req = take_set(item, "requirements");
	k.groups = take_set(item, "groups");
	extras = take_set(item, "extras");
	if ((rc = which == 0 ? read_uv_sync(cx, key, &k, in)
			     : read_uv_pip(cx, item, key, &k, in)) < 0)
		return rc;
	if (extras &&
	    (rc = read_selection(cx, extras, lec__yaml_path(sub, key, "extras"),
				 &in->extras, &in->extras_all)) < 0)
		return rc;
	return LEC_OK;
}

static int read_pip_path(const struct lec_rtd__ctx *cx,
			 const struct lec__yaml_node *item, const char *key,
			 struct lec_rtd_install *in)
{
	static const char *const methods[] = { "pip", "setuptools", "uv" };
	char sub[LEC__YAML_PATH_MAX];
	const struct lec__yaml_entry *e;
	int rc, which = 0;

	in->kind = LEC_RTD_INSTALL_PATH;
	if ((rc = lec_rtd__want_path(cx, lec_rtd__take(item, "path")->value,
				     lec__yaml_path(sub, key, "path"),
				     &in->path)) < 0)
		return rc;
	if ((e = lec_rtd__take(item, "method")) &&
	    (rc = lec_rtd__want_choice(cx, e->value,
				       lec__yaml_path(sub, key, "method"),
				       methods, COUNT(methods), &which)) < 0)
		return rc;
	in->method = lec__strdup(methods[which]);
	LEC__CHECK_ALLOC(in->method);
	if ((e = lec_rtd__take(item, "extra_requirements")) == NULL)
		return LEC_OK;
	lec__yaml_path(sub, key, "extra_requirements");
	if ((rc = lec_rtd__read_strings(cx, e->value, sub,
					&in->extra_requirements)) < 0)
		return rc;
	if (in->extra_requirements.len > 0 && which != 0)
		return LEC_RTD__REFUSE(cx,
				       LEC_RTD__USE_PIP_FOR_EXTRA_REQUIREMENTS,
				       NULL, e->line, sub, "needs method: pip");
	return LEC_OK;
}

static int read_install(const struct lec_rtd__ctx *cx,
			const struct lec__yaml_node *item, size_t index,
			struct lec_rtd_install *in)
{
	char key[LEC__YAML_PATH_MAX], sub[LEC__YAML_PATH_MAX];
	const struct lec__yaml_entry *method;
	int rc;

	lec__yaml_path_index(key, "python.install", index);
	if ((rc = lec_rtd__want_kind(cx, item, key, LEC__YAML_MAP)) < 0)
		return rc;
	method = lec__yaml_find(item, "method");
	if (method && lec_rtd__is_word(method->value, "uv"))
		return read_uv(cx, item, key, in);
	if (lec__yaml_find(item, "requirements")) {
		in->kind = LEC_RTD_INSTALL_REQUIREMENTS;
		return lec_rtd__want_path(
			cx, lec_rtd__take(item, "requirements")->value,
			lec__yaml_path(sub, key, "requirements"),
			&in->requirements);
	}
	if (lec__yaml_find(item, "path"))
		return read_pip_path(cx, item, key, in);
	return LEC_RTD__REFUSE(cx, LEC_RTD__PIP_PATH_OR_REQUIREMENT_REQUIRED,
			       NULL, item->line, key,
			       "needs requirements or path");
}

static int read_python(struct lec_rtd__ctx *cx)
{
	struct lec_rtd_config *cfg = cx->cfg;
	const struct lec__yaml_node *python, *list;
	const struct lec__yaml_entry *e;
	size_t i;
	int rc;

	if ((rc = lec_rtd__section(cx, "python", &python)) < 0)
		return rc;
	if (python == NULL || (e = lec_rtd__take(python, "install")) == NULL)
		return LEC_OK;
	list = e->value;
	if ((rc = lec_rtd__want_kind(cx, list, "python.install",
				     LEC__YAML_SEQ)) < 0)
		return rc;
	if (list->len == 0)
		return LEC_OK;
	cfg->python_install = lec__calloc(list->len, sizeof(*cfg->python_install));
	LEC__CHECK_ALLOC(cfg->python_install);
	for (i = 0; i < list->len; i++) {
		cfg->python_install_count = (int)i + 1;
		if ((rc = read_install(cx, list->entries[i].value, i,
				       &cfg->python_install[i])) < 0)
			return rc;
	}
	for (i = 0; list->len > 1 && i < list->len; i++)
		if (cfg->python_install[i].kind == LEC_RTD_INSTALL_UV)
			return LEC_RTD__REFUSE(
				cx, LEC_RTD__UV_MULTIPLE_INSTALL_ENTRIES_INVALID,
				NULL, list->entries[i].line, "python.install",
				"a uv entry must be the only entry");
	return LEC_OK;
}

/* sphinx, mkdocs ----------------------------------------------------------- */

static int check_doc_types(const struct lec_rtd__ctx *cx)
{
	const struct lec__yaml_entry *s = lec__yaml_find(cx->root, "sphinx");
	const struct lec__yaml_entry *m = lec__yaml_find(cx->root, "mkdocs");

	if (s == NULL || m == NULL)
		return LEC_OK;
	lec_rtd__problem(LEC_RTD__SPHINX_MKDOCS_CONFIG_TOGETHER, NULL, NULL);
	if (s->line > m->line)
		return LEC_RTD__FAIL(cx, s->line, "sphinx",
				     "cannot be used together with mkdocs");
	return LEC_RTD__FAIL(cx, m->line, "mkdocs",
			     "cannot be used together with sphinx");
}

static int read_mkdocs(struct lec_rtd__ctx *cx)
{
	struct lec_rtd_config *cfg = cx->cfg;
	const struct lec__yaml_node *mkdocs;
	const struct lec__yaml_entry *e;
	int rc;

	if ((rc = lec_rtd__section(cx, "mkdocs", &mkdocs)) < 0 ||
	    mkdocs == NULL)
		return rc;
	cfg->has_mkdocs = 1;
	if ((e = take_set(mkdocs, "configuration")) &&
	    (rc = lec_rtd__want_path(cx, e->value, "mkdocs.configuration",
				     &cfg->mkdocs_configuration)) < 0)
		return rc;
	if ((e = lec_rtd__take(mkdocs, "fail_on_warning")))
		return lec_rtd__want_bool(cx, e->value,
					  "mkdocs.fail_on_warning",
					  &cfg->mkdocs_fail_on_warning);
	return LEC_OK;
}

static int read_sphinx_conf(const struct lec_rtd__ctx *cx,
			    const struct lec__yaml_node *n)
{
	struct lec_rtd_config *cfg = cx->cfg;
	char shown[LEC__YAML_SHOW_MAX + 8];
	const char *base;
	int rc;

	if ((rc = lec_rtd__want_path(cx, n, "sphinx.configuration",
				     &cfg->sphinx_configuration)) < 0)
		return rc;
	base = strrchr(cfg->sphinx_configuration, '/');
	base = base ? base + 1 : cfg->sphinx_configuration;
	if (strcmp(base, "conf.py") == 0)
		return LEC_OK;
	lec__yaml_show(shown, sizeof(shown), n->text, LEC__YAML_SHOW_MAX);
	return LEC_RTD__REFUSE(cx, LEC_RTD__SPHINX_INVALID_CONFIG_FILE, NULL,
			       n->line, "sphinx.configuration",
			       "must name a conf.py file, got '%s'", shown);
}

/* Sphinx settings apply whenever there is no mkdocs section. */
static int read_sphinx(struct lec_rtd__ctx *cx)
{
	struct lec_rtd_config *cfg = cx->cfg;
	const struct lec__yaml_node *sphinx;
	const struct lec__yaml_entry *e;
	int rc, which = 0;

	if (cfg->has_mkdocs)
		return LEC_OK;
	cfg->has_sphinx = 1;
	if ((rc = lec_rtd__section(cx, "sphinx", &sphinx)) < 0)
		return rc;
	if (sphinx && (e = lec_rtd__take(sphinx, "builder")) &&
	    (rc = lec_rtd__want_choice(cx, e->value, "sphinx.builder",
				       builder_names, COUNT(builder_names),
				       &which)) < 0)
		return rc;
	cfg->sphinx_builder = lec__strdup(builder_flags[which]);
	LEC__CHECK_ALLOC(cfg->sphinx_builder);
	if (sphinx && (e = take_set(sphinx, "configuration")) &&
	    (rc = read_sphinx_conf(cx, e->value)) < 0)
		return rc;
	if (sphinx && (e = lec_rtd__take(sphinx, "fail_on_warning")))
		return lec_rtd__want_bool(cx, e->value,
					  "sphinx.fail_on_warning",
					  &cfg->sphinx_fail_on_warning);
	return LEC_OK;
}

/* submodules, search --------------------------------------------------------- */

static int read_names_or_all(const struct lec_rtd__ctx *cx,
			     const struct lec__yaml_entry *e, const char *key,
			     struct lec_rtd_strings *names, int *all)
{
	if (lec_rtd__is_word(e->value, "all")) {
		*all = 1;
		return LEC_OK;
	}
	return lec_rtd__read_strings(cx, e->value, key, names);
}

static int read_submodules(struct lec_rtd__ctx *cx)
{
	struct lec_rtd_config *cfg = cx->cfg;
	const struct lec__yaml_node *sub;
	const struct lec__yaml_entry *inc, *exc, *rec;
	int rc, including;

	if ((rc = lec_rtd__section(cx, "submodules", &sub)) < 0)
		return rc;
	if ((inc = lec_rtd__take(sub, "include")) &&
	    (rc = read_names_or_all(cx, inc, "submodules.include",
				    &cfg->submodules_include,
				    &cfg->submodules_all_included)) < 0)
		return rc;
	including = cfg->submodules_all_included ||
		    cfg->submodules_include.len > 0;
	if ((exc = lec_rtd__take(sub, "exclude")) &&
	    (rc = read_names_or_all(cx, exc, "submodules.exclude",
				    &cfg->submodules_exclude,
				    &cfg->submodules_all_excluded)) < 0)
		return rc;
	if (exc == NULL)
		cfg->submodules_all_excluded = !including;
	else if (including && (cfg->submodules_all_excluded ||
			       cfg->submodules_exclude.len > 0))
		return LEC_RTD__REFUSE(
			cx, LEC_RTD__SUBMODULES_INCLUDE_EXCLUDE_TOGETHER, NULL,
			exc->line, "submodules",
			"include and exclude cannot be used together");
	if ((rec = lec_rtd__take(sub, "recursive")))
		return lec_rtd__want_bool(cx, rec->value,
					  "submodules.recursive",
					  &cfg->submodules_recursive);
	return LEC_OK;
}

/* Add or replace a rank (later patterns win, as in the service's dict). */
static int rank_set(struct lec_rtd_config *cfg, char *pattern, int rank)
{
	struct lec_rtd_strings *p = &cfg->ranking_patterns;
	int *grown;
	size_t i;

	for (i = 0; i < p->len; i++)
		if (strcmp(p->items[i], pattern) == 0) {
			cfg->ranking_values[i] = rank;
			lec__free(pattern);
			return LEC_OK;
		}
	grown = lec__realloc(cfg->ranking_values, (p->len + 1) * sizeof(int));
	if (grown == NULL) {
		lec__free(pattern);
		return lec__error_oom();
	}
	cfg->ranking_values = grown;
	if (lec_rtd__strings_push(p, pattern) < 0) {
		lec__free(pattern);
		return LEC_ENOMEM;
	}
	lec__free(pattern);
	grown[p->len - 1] = rank;
	return LEC_OK;
}

static int read_ranking(const struct lec_rtd__ctx *cx,
			const struct lec__yaml_node *ranking)
{
	char got[LEC__YAML_PROBLEM_MAX / 2], shown[LEC__YAML_SHOW_MAX + 8];
	struct lec__yaml_node key = { .kind = LEC__YAML_SCALAR };
	const struct lec__yaml_entry *e;
	char *pattern;
	long long v;
	size_t i;
	int rc;

	for (i = 0; i < ranking->len; i++) {
		e = &ranking->entries[i];
		lec_rtd__take(ranking, e->key);
		lec__yaml_show(shown, sizeof(shown), e->key,
			       LEC__YAML_SHOW_MAX);
		key.text = e->key;
		key.type = e->key_type;
		if (e->key_type != LEC__YAML_STR)
			return LEC_RTD__REFUSE(
				cx, LEC_RTD__INVALID_STRING, &key, e->line,
				"search.ranking",
				"expected a path pattern, got '%s'", shown);
		if ((rc = lec_rtd__want_pattern(cx, e->key, e->line,
						"search.ranking", &pattern)) <
		    0)
			return rc;
		if (e->value->kind != LEC__YAML_SCALAR ||
		    e->value->type != LEC__YAML_INT ||
		    lec__yaml_int_value(e->value->text, &v) < 0 || v < -10 ||
		    v > 10) {
			lec__free(pattern);
			lec_rtd__problem(LEC_RTD__INVALID_CHOICE,
					 "search.ranking", e->value);
			lec_rtd__problem_add("choices", RANKS);
			return LEC_RTD__FAIL(
				cx, e->value->line, "search.ranking",
				"the rank of '%s' must be an integer from "
				"-10 to 10, got %s",
				shown,
				lec_rtd__describe(e->value, got, sizeof(got)));
		}
		if ((rc = rank_set(cx->cfg, pattern, (int)v)) < 0)
			return rc;
	}
	return LEC_OK;
}

static int read_ignore(const struct lec_rtd__ctx *cx,
		       const struct lec__yaml_entry *e)
{
	struct lec_rtd_strings *out = &cx->cfg->search_ignore;
	const struct lec__yaml_node *n;
	char *pattern;
	size_t i;
	int rc;

	if (e == NULL) {
		for (i = 0; i < COUNT(default_ignore); i++)
			if ((rc = lec_rtd__strings_push(out,
							default_ignore[i])) < 0)
				return rc;
		return LEC_OK;
	}
	if ((rc = lec_rtd__want_kind(cx, e->value, "search.ignore",
				     LEC__YAML_SEQ)) < 0)
		return rc;
	for (i = 0; i < e->value->len; i++) {
		n = e->value->entries[i].value;
		if ((rc = lec_rtd__want_string(cx, n, "search.ignore")) < 0 ||
		    (rc = lec_rtd__want_pattern(cx, n->text, n->line,
						"search.ignore", &pattern)) < 0)
			return rc;
		rc = lec_rtd__strings_push(out, pattern);
		lec__free(pattern);
		if (rc < 0)
			return rc;
	}
	return LEC_OK;
}

static int read_search(struct lec_rtd__ctx *cx)
{
	const struct lec__yaml_node *search;
	const struct lec__yaml_entry *e;
	int rc;

	if ((rc = lec_rtd__section(cx, "search", &search)) < 0)
		return rc;
	if ((e = lec_rtd__take(search, "ranking")) &&
	    ((rc = lec_rtd__want_kind(cx, e->value, "search.ranking",
				      LEC__YAML_MAP)) < 0 ||
	     (rc = read_ranking(cx, e->value)) < 0))
		return rc;
	return read_ignore(cx, lec_rtd__take(search, "ignore"));
}

/* The whole file ------------------------------------------------------------- */

/* The service requires an explicit generator configuration unless the
 * build brings its own commands (its brownout rule, permanent since
 * 2025-01-20). */
static int check_required(const struct lec_rtd__ctx *cx)
{
	const struct lec_rtd_config *cfg = cx->cfg;
	const struct lec__yaml_entry *s = lec__yaml_find(cx->root, "sphinx");
	const struct lec__yaml_entry *m = lec__yaml_find(cx->root, "mkdocs");

	if (cfg->commands.len > 0)
		return LEC_OK;
	if (s && cfg->sphinx_configuration == NULL)
		return LEC_RTD__REFUSE(cx, LEC_RTD__SPHINX_CONFIG_MISSING, NULL,
				       s->line, "sphinx.configuration",
				       "is required: the path of your conf.py");
	if (m && cfg->mkdocs_configuration == NULL)
		return LEC_RTD__REFUSE(
			cx, LEC_RTD__MKDOCS_CONFIG_MISSING, NULL, m->line,
			"mkdocs.configuration",
			"is required: the path of your mkdocs.yml");
	if (!s && !m && !(cfg->jobs_set & LEC_RTD__NEW_JOBS))
		return LEC_RTD__REFUSE(
			cx, LEC_RTD__SPHINX_CONFIG_MISSING, NULL,
			cx->root->line, "sphinx.configuration",
			"is required: the path of your conf.py (or use "
			"mkdocs.configuration, build.commands or "
			"build.jobs)");
	return LEC_OK;
}

/* An unknown key, named as the service names it (its _get_extra_key):
 * the dotted path on through the first key of each map below it
 * ("pyton.version"); the line is the unknown key's own. */
static int unknown_key(const struct lec_rtd__ctx *cx,
		       const struct lec__yaml_entry *e, const char *path)
{
	char key[LEC__YAML_PATH_MAX], deeper[LEC__YAML_PATH_MAX];
	const struct lec__yaml_node *v = e->value;

	lec__yaml_path(key, path, e->key);
	for (; v->kind == LEC__YAML_MAP && v->len > 0;
	     v = v->entries[0].value) {
		lec__yaml_path(deeper, key, v->entries[0].key);
		memcpy(key, deeper, sizeof(key));
	}
	return LEC_RTD__REFUSE(cx, LEC_RTD__INVALID_KEY_NAME, NULL, e->line,
			       key, "unknown key");
}

/* The first key no check read, in file order. */
static int check_unknown(const struct lec_rtd__ctx *cx,
			 const struct lec__yaml_node *n, const char *path)
{
	char key[LEC__YAML_PATH_MAX];
	const struct lec__yaml_entry *e;
	size_t i;
	int rc;

	for (i = 0; i < n->len; i++) {
		e = &n->entries[i];
		if (n->kind == LEC__YAML_MAP && !e->used)
			return unknown_key(cx, e, path);
		if (n->kind == LEC__YAML_MAP)
			lec__yaml_path(key, path, e->key);
		else
			lec__yaml_path_index(key, path, i);
		if (e->value->kind != LEC__YAML_SCALAR &&
		    (rc = check_unknown(cx, e->value, key)) < 0)
			return rc;
	}
	return LEC_OK;
}

static void decide_doctype(const struct lec_rtd__ctx *cx)
{
	struct lec_rtd_config *cfg = cx->cfg;
	int keyed = lec__yaml_find(cx->root, "sphinx") ||
		    lec__yaml_find(cx->root, "mkdocs");

	if (cfg->commands.len > 0 ||
	    (!keyed && (cfg->jobs_set & LEC_RTD__NEW_JOBS)))
		cfg->doctype = LEC_DOCTYPE_GENERIC;
	else if (cfg->has_mkdocs)
		cfg->doctype = LEC_DOCTYPE_MKDOCS;
	else if (strcmp(cfg->sphinx_builder, "dirhtml") == 0)
		cfg->doctype = LEC_DOCTYPE_SPHINX_HTMLDIR;
	else if (strcmp(cfg->sphinx_builder, "singlehtml") == 0)
		cfg->doctype = LEC_DOCTYPE_SPHINX_SINGLEHTML;
	else
		cfg->doctype = LEC_DOCTYPE_SPHINX;
}

/* The service's order of checks (BuildConfigV2.validate), except that
 * unknown keys come before the required generator configuration: a
 * misspelt `configuraton:` is then named as such. */
static int check_config(struct lec_rtd__ctx *cx)
{
	int rc;

	if ((rc = check_version(cx)) < 0 || (rc = read_formats(cx)) < 0 ||
	    (rc = read_build(cx)) < 0 || (rc = read_conda(cx)) < 0 ||
	    (rc = read_python(cx)) < 0 || (rc = check_doc_types(cx)) < 0 ||
	    (rc = read_mkdocs(cx)) < 0 || (rc = read_sphinx(cx)) < 0 ||
	    (rc = read_submodules(cx)) < 0 || (rc = read_search(cx)) < 0 ||
	    (rc = check_unknown(cx, cx->root, "")) < 0 ||
	    (rc = check_required(cx)) < 0)
		return rc;
	decide_doctype(cx);
	return LEC_OK;
}

/* Parsing ------------------------------------------------------------------ */

/* Parse and check the bytes of a file already read; cx->relpath, data and
 * len are set. */
static int parse_config(struct lec_rtd__ctx *cx, struct lec_rtd_config **out)
{
	int rc;

	if ((cx->cfg = lec__calloc(1, sizeof(*cx->cfg))) == NULL ||
	    (cx->cfg->path = lec__strdup(cx->relpath)) == NULL) {
		rc = lec__error_oom();
		goto done;
	}
	cx->cfg->version = 2;
	if ((rc = parse_text(cx)) < 0 || (rc = check_config(cx)) < 0)
		goto done;
	*out = cx->cfg;
	cx->cfg = NULL;
done:
	/* Every refusal has its message; running out of memory is none. */
	if (rc == LEC_EINVALID && !lec_rtd__problem_recorded())
		lec_rtd__problem(LEC_RTD__GENERIC, NULL, NULL);
	else if (rc < 0 && rc != LEC_EINVALID)
		lec_rtd__problem_clear();
	lec_rtd_config_free(cx->cfg);
	lec__yaml_free(cx->root);
	return rc;
}

int lec_rtd_config_parse(const char *data, size_t len, const char *relpath,
			 struct lec_rtd_config **out)
{
	struct lec_rtd__ctx cx;

	lec_error_clear();
	lec_rtd__problem_clear();
	if (out)
		*out = NULL;
	if ((data == NULL && len > 0) || relpath == NULL || out == NULL)
		return lec__error(LEC_EINVALID, "no configuration given");
	if (len > LEC_RTD_CONFIG_MAX_BYTES) {
		/* A limit of Lectern's: the service has no message for it. */
		lec_rtd__problem(LEC_RTD__GENERIC, NULL, NULL);
		return lec__error(LEC_EINVALID,
				  "%s: the file is larger than %d bytes",
				  relpath, LEC_RTD_CONFIG_MAX_BYTES);
	}
	memset(&cx, 0, sizeof(cx));
	cx.relpath = relpath;
	cx.data = data ? data : "";
	cx.len = len;
	return parse_config(&cx, out);
}

/* Freeing ---------------------------------------------------------------- */

static void strings_dispose(struct lec_rtd_strings *s)
{
	lec__strings_free(s->items, s->len);
	s->items = NULL;
	s->len = 0;
}

static void install_dispose(struct lec_rtd_install *in)
{
	lec__free(in->requirements);
	lec__free(in->path);
	lec__free(in->method);
	lec__free(in->command);
	strings_dispose(&in->extra_requirements);
	strings_dispose(&in->groups);
	strings_dispose(&in->extras);
}

void lec_rtd_config_free(struct lec_rtd_config *c)
{
	int i;

	if (c == NULL)
		return;
	lec__free(c->path);
	lec__free(c->build_os);
	strings_dispose(&c->tools);
	strings_dispose(&c->apt_packages);
	for (i = 0; i < LEC_RTD_JOB_COUNT; i++)
		strings_dispose(&c->jobs[i]);
	strings_dispose(&c->pre_checkout);
	strings_dispose(&c->commands);
	lec__free(c->sphinx_builder);
	lec__free(c->sphinx_configuration);
	lec__free(c->mkdocs_configuration);
	for (i = 0; c->python_install && i < c->python_install_count; i++)
		install_dispose(&c->python_install[i]);
	lec__free(c->python_install);
	lec__free(c->conda_environment);
	strings_dispose(&c->submodules_include);
	strings_dispose(&c->submodules_exclude);
	strings_dispose(&c->search_ignore);
	strings_dispose(&c->ranking_patterns);
	lec__free(c->ranking_values);
	lec__free(c);
}
