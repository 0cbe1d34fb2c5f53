/*
 * What the parts of `.readthedocs.yaml` share: the checks' state and the
 * validators of single values (rtdconfig_validate.c) the checks of the
 * sections (rtdconfig.c) are built on, and the names the checks and the
 * JSON (rtdconfig_json.c) both know.
 */
#ifndef LECTERN_RTDCONFIG_INTERNAL_H
#define LECTERN_RTDCONFIG_INTERNAL_H

#include <stddef.h>

#include "lectern/rtdconfig.h"
#include "yaml_reader.h"

/* The extra formats in the order the service lists them for "all", and
 * their LEC_FORMAT_* bits. */
#define LEC_RTD__FORMATS 3
extern const char *const lec_rtd__format_names[LEC_RTD__FORMATS];
extern const unsigned lec_rtd__format_bits[LEC_RTD__FORMATS];

/* Jobs that replace a default step: with them and no sphinx/mkdocs key the
 * doc type is generic (notes §5.4), and unset they are null in the JSON. */
#define LEC_RTD__NEW_JOBS                                                    \
	((1u << LEC_RTD_JOB_CREATE_ENVIRONMENT) | (1u << LEC_RTD_JOB_INSTALL) | \
	 (1u << LEC_RTD_JOB_BUILD_HTML) | (1u << LEC_RTD_JOB_BUILD_PDF) |       \
	 (1u << LEC_RTD_JOB_BUILD_EPUB) | (1u << LEC_RTD_JOB_BUILD_HTMLZIP))

/* What the service's build images offer (rtdconfig_tools.c) ---------------- */

/* Choices of one tool (or of "os"), or the tools themselves (tool NULL):
 * the longest list there is, with room for the service to add some. */
#define LEC_RTD__OFFERS_MAX 64
/* Bytes of the text of one list of choices ("2.7, 3.6, ..."). */
#define LEC_RTD__CHOICES_MAX 480

/* The versions offered for tool ("os": the build.os names), or with tool
 * NULL the tools, into names, in the service's order. @return how many */
size_t lec_rtd__offer_names(const char *tool, const char **names, size_t max);

/* The service's message ids (its config/exceptions.py) --------------------- */

#define LEC_RTD__GENERIC "config:generic"
#define LEC_RTD__DEFAULT_PATH_NOT_FOUND "config:path:default-not-found"
#define LEC_RTD__CONFIG_PATH_NOT_FOUND "config:path:not-found"
#define LEC_RTD__INVALID_VERSION "config:base:invalid-version"
#define LEC_RTD__NOT_BUILD_TOOLS_OR_COMMANDS                                 \
	"config:build:missing-build-tools-commands"
#define LEC_RTD__BUILD_JOBS_AND_COMMANDS "config:build:jobs-and-commands"
#define LEC_RTD__BUILD_TYPE_MISSING_IN_FORMATS                               \
	"config:build:jobs:build:missing-in-formats"
#define LEC_RTD__APT_INVALID_PACKAGE_NAME_PREFIX                             \
	"config:apt:invalid-package-name-prefix"
#define LEC_RTD__APT_INVALID_PACKAGE_NAME "config:apt:invalid-package-name"
#define LEC_RTD__USE_PIP_FOR_EXTRA_REQUIREMENTS "config:python:pip-required"
#define LEC_RTD__PIP_PATH_OR_REQUIREMENT_REQUIRED                            \
	"config:python:pip-path-requirement-required"
#define LEC_RTD__SPHINX_MKDOCS_CONFIG_TOGETHER                               \
	"config:base:sphinx-mkdocs-together"
#define LEC_RTD__SUBMODULES_INCLUDE_EXCLUDE_TOGETHER                         \
	"config:submodules:include-exclude-together"
#define LEC_RTD__INVALID_KEY_NAME "config:base:invalid-key-name"
#define LEC_RTD__SYNTAX_INVALID "config:base:invalid-syntax"
#define LEC_RTD__CONDA_KEY_REQUIRED "config:conda:required"
#define LEC_RTD__UV_COMMAND_REQUIRED "config:python:uv-command-required"
#define LEC_RTD__UV_MULTIPLE_INSTALL_ENTRIES_INVALID                         \
	"config:python:uv-multiple-install-entries-invalid"
#define LEC_RTD__UV_SYNC_REQUIREMENTS_INVALID                                \
	"config:python:uv-sync-requirements-invalid"
#define LEC_RTD__UV_PIP_REQUIREMENTS_OR_PATH_REQUIRED                        \
	"config:python:uv-pip-requirements-or-path-required"
#define LEC_RTD__UV_PIP_REQUIREMENTS_AND_PATH_MUTUALLY_EXCLUSIVE             \
	"config:python:uv-pip-requirements-and-path-mutually-exclusive"
#define LEC_RTD__UV_PIP_GROUPS_NOT_ALLOWED                                   \
	"config:python:uv-pip-groups-not-allowed"
#define LEC_RTD__UV_GROUPS_EXTRAS_EMPTY "config:python:uv-groups-extras-empty"
#define LEC_RTD__UV_GROUPS_EXTRAS_INVALID_TYPE                               \
	"config:python:uv-groups-extras-invalid-type"
#define LEC_RTD__SPHINX_CONFIG_MISSING "config:sphinx:missing-config"
#define LEC_RTD__SPHINX_INVALID_CONFIG_FILE "config:sphinx:invalid-config-file"
#define LEC_RTD__MKDOCS_CONFIG_MISSING "config:mkdocs:missing-config"
#define LEC_RTD__INVALID_BOOL "config:validation:invalid-bool"
#define LEC_RTD__INVALID_CHOICE "config:validation:invalid-choice"
#define LEC_RTD__INVALID_DICT "config:validation:invalid-dict"
#define LEC_RTD__INVALID_PATH "config:validation:invalid-path"
#define LEC_RTD__INVALID_PATH_PATTERN "config:validation:invalid-path-pattern"
#define LEC_RTD__INVALID_STRING "config:validation:invalid-string"
#define LEC_RTD__INVALID_LIST "config:validation:invalid-list"
#define LEC_RTD__VALUE_NOT_FOUND "config:validation:value-not-found"

/* The refusal's message (rtdconfig_problem.c) ------------------------------ */

/* Record what the service says of the refusal being reported, replacing
 * what was recorded: its id (one of the above), the key and the value it
 * names (NULL: none; a value is shown as the service shows it). */
void lec_rtd__problem(const char *id, const char *key,
		      const struct lec__yaml_node *value);
/* Add a format value (name static) to what was recorded. */
void lec_rtd__problem_add(const char *name, const char *text);
void lec_rtd__problem_clear(void);
int lec_rtd__problem_recorded(void);

/* Record the service's message, then fail with Lectern's (LEC_RTD__FAIL). */
#define LEC_RTD__REFUSE(cx, id, value, line, key, ...)                      \
	(lec_rtd__problem((id), (key), (value)),                              \
	 LEC_RTD__FAIL(cx, line, key, __VA_ARGS__))

/* The checks' state ---------------------------------------------------------- */

struct lec_rtd__ctx {
	const char *relpath;
	const char *data; /* the file */
	size_t len;
	struct lec_rtd_config *cfg;
	struct lec__yaml_node *root;
	/* build.tools.python, or NULL */
	const struct lec__yaml_entry *python_tool;
};

/* Record "<relpath>:<line>: <key>: <problem>" and return LEC_EINVALID. */
#define LEC_RTD__FAIL(cx, ...) lec__yaml_fail((cx)->relpath, __VA_ARGS__)

/* Validators (rtdconfig_validate.c) ------------------------------------------ */

/* Which of names s is, or -1. */
int lec_rtd__index_of(const char *const *names, size_t n, const char *s);
/* A scalar the service reads as a string; null; the string word. */
int lec_rtd__is_str(const struct lec__yaml_node *n);
int lec_rtd__is_null(const struct lec__yaml_node *n);
int lec_rtd__is_word(const struct lec__yaml_node *n, const char *word);
/* Python truthiness, which the service applies to build.tools. */
int lec_rtd__truthy(const struct lec__yaml_node *n);
/* How a value looks in a message: "a string ('3.1O')", "a list", ...,
 * written into buf when it quotes the value. */
const char *lec_rtd__describe(const struct lec__yaml_node *n, char *buf,
			      size_t size);
/* "a, b, c" into buf. */
const char *lec_rtd__choices_text(const char *const *names, size_t n, char *buf,
				  size_t size);

/* Each returns LEC_OK, or LEC_EINVALID naming key and what n is instead. */
int lec_rtd__want_kind(const struct lec_rtd__ctx *cx,
		       const struct lec__yaml_node *n, const char *key,
		       enum lec__yaml_kind kind);
int lec_rtd__want_string(const struct lec_rtd__ctx *cx,
			 const struct lec__yaml_node *n, const char *key);
/* One of names; *index gets which. */
int lec_rtd__want_choice(const struct lec_rtd__ctx *cx,
			 const struct lec__yaml_node *n, const char *key,
			 const char *const *names, size_t count, int *index);
/* The service's validate_bool: true/false (and the YAML 1.1 spellings), 0
 * or 1. */
int lec_rtd__want_bool(const struct lec_rtd__ctx *cx,
		       const struct lec__yaml_node *n, const char *key,
		       int *out);
/* A path inside the repository (the service's validate_path, which
 * normalises it), owned by *out. */
int lec_rtd__want_path(const struct lec_rtd__ctx *cx,
		       const struct lec__yaml_node *n, const char *key,
		       char **out);
/* A path pattern under the built site's root (validate_path_pattern),
 * owned by *out. */
int lec_rtd__want_pattern(const struct lec_rtd__ctx *cx, const char *text,
			  size_t line, const char *key, char **out);
/* A list of strings (build.commands, a job, ...), appended to out. */
int lec_rtd__read_strings(const struct lec_rtd__ctx *cx,
			  const struct lec__yaml_node *n, const char *key,
			  struct lec_rtd_strings *out);
/* Append a copy of text. LEC_ENOMEM. */
int lec_rtd__strings_push(struct lec_rtd_strings *s, const char *text);

/* The entry of key in a map, marked as read; NULL when absent or when map
 * is NULL. (lec__yaml_find looks without marking, as the service looks
 * without popping.) */
struct lec__yaml_entry *lec_rtd__take(const struct lec__yaml_node *map,
				      const char *key);
/* A top-level section's map: NULL when absent; an error unless a map. */
int lec_rtd__section(const struct lec_rtd__ctx *cx, const char *name,
		     const struct lec__yaml_node **out);

#endif
