/*
 * The `.readthedocs.yaml` (version 2) build configuration: finding it in a
 * checkout, reading it with the service's rules, and rendering the build's
 * `config` object.
 *
 * Every key the hosted service honours is read and checked as the service
 * checks it (behaviour notes §5.4 and §5.5), so a file the service rejects is
 * rejected here too, even the keys Lectern cannot act on offline (build.os,
 * build.tools, build.apt_packages, python.install), which are recorded so
 * that a build can report them: build.os and every build.tools version
 * must be one the service's build images offer (its table, copied in
 * rtdconfig_tools.c). A problem is reported as LEC_EINVALID with
 * the message
 *
 *     <relpath>:<line>: <dotted.key>: <problem>
 *
 * naming the line (1-based) of the offending key or value. Problems with the
 * file as a whole (not YAML, not UTF-8, too large, empty, not a map) have no
 * key: "<relpath>:<line>: <problem>". Lectern is stricter than the service
 * in a few corners: duplicate keys, anchors/aliases, YAML tags other than
 * !!str/!!map/!!seq, and paths that leave the repository are errors.
 */
#ifndef LECTERN_RTDCONFIG_H
#define LECTERN_RTDCONFIG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes a configuration file may have: real ones are a few hundred bytes,
 * and the parsed tree of a larger one would only cost memory. */
#define LEC_RTD_CONFIG_MAX_BYTES (1024 * 1024)

/* Bits of lec_rtd_config.formats (the extra formats; html is always built). */
#define LEC_FORMAT_HTMLZIP 1u
#define LEC_FORMAT_PDF 2u
#define LEC_FORMAT_EPUB 4u

/* How the documentation is built (notes §5.4); the version's
 * documentation_type is lec_doctype_code() of it. */
enum lec_doctype {
	LEC_DOCTYPE_SPHINX,
	LEC_DOCTYPE_SPHINX_HTMLDIR,
	LEC_DOCTYPE_SPHINX_SINGLEHTML,
	LEC_DOCTYPE_MKDOCS,
	LEC_DOCTYPE_GENERIC
};

/* The build.jobs hooks Lectern runs, in the order the builder runs them
 * (notes §5.3). pre_checkout is accepted but never run, as at the service,
 * so it is kept apart (lec_rtd_config.pre_checkout). */
enum lec_rtd_job {
	LEC_RTD_JOB_POST_CHECKOUT,
	LEC_RTD_JOB_PRE_SYSTEM_DEPENDENCIES,
	LEC_RTD_JOB_POST_SYSTEM_DEPENDENCIES,
	LEC_RTD_JOB_PRE_CREATE_ENVIRONMENT,
	LEC_RTD_JOB_CREATE_ENVIRONMENT,
	LEC_RTD_JOB_POST_CREATE_ENVIRONMENT,
	LEC_RTD_JOB_PRE_INSTALL,
	LEC_RTD_JOB_INSTALL,
	LEC_RTD_JOB_POST_INSTALL,
	LEC_RTD_JOB_PRE_BUILD,
	LEC_RTD_JOB_BUILD_HTML,
	LEC_RTD_JOB_BUILD_PDF,
	LEC_RTD_JOB_BUILD_EPUB,
	LEC_RTD_JOB_BUILD_HTMLZIP,
	LEC_RTD_JOB_POST_BUILD,
	LEC_RTD_JOB_COUNT
};

struct lec_rtd_strings {
	char **items; /* len strings, owned */
	size_t len;
};

/* What an entry of python.install asks for. */
enum lec_rtd_install_kind {
	LEC_RTD_INSTALL_REQUIREMENTS, /* pip install -r <requirements> */
	LEC_RTD_INSTALL_PATH,         /* pip or setuptools install of <path> */
	LEC_RTD_INSTALL_UV            /* uv sync / uv pip install */
};

/* One python.install entry; strings are NULL when not given. */
struct lec_rtd_install {
	enum lec_rtd_install_kind kind;
	char *requirements; /* REQUIREMENTS; UV with command "pip" */
	char *path;         /* PATH; UV (optional) */
	char *method;       /* PATH: "pip" or "setuptools"; UV: "uv" */
	struct lec_rtd_strings extra_requirements; /* PATH */
	char *command;      /* UV: "sync" or "pip" */
	/* UV: dependency groups / extras; *_all for the word "all". Neither
	 * set and an empty list means the key was not given. */
	struct lec_rtd_strings groups, extras;
	int groups_all, extras_all;
};

struct lec_rtd_config {
	char *path;  /* the file, relative to the checkout root */
	int version; /* always 2 */
	unsigned formats; /* LEC_FORMAT_* bits */
	char *build_os;
	struct lec_rtd_strings tools; /* "python=3.12", in file order */
	struct lec_rtd_strings apt_packages;
	struct lec_rtd_strings jobs[LEC_RTD_JOB_COUNT]; /* by enum lec_rtd_job */
	/* Bit (1u << job) for each job the file names, even as an empty list:
	 * an empty create_environment, install or build.<format> still
	 * replaces the default step (notes §5.4). */
	unsigned jobs_set;
	struct lec_rtd_strings pre_checkout; /* accepted, never run */
	struct lec_rtd_strings commands;     /* build.commands */
	/* has_sphinx: the sphinx_* fields apply (no mkdocs section);
	 * has_mkdocs: an mkdocs section was given. Exactly one is set. */
	int has_sphinx, has_mkdocs;
	char *sphinx_builder; /* the sphinx -b name: "html", "dirhtml" or
				 "singlehtml"; NULL when !has_sphinx */
	char *sphinx_configuration; /* conf.py path, or NULL */
	int sphinx_fail_on_warning;
	char *mkdocs_configuration; /* mkdocs.yml path, or NULL */
	int mkdocs_fail_on_warning;
	int python_install_count; /* entries of python.install (all need the
				     network) */
	struct lec_rtd_install *python_install; /* python_install_count */
	char *conda_environment; /* NULL: no conda section */
	/* submodules.include / exclude: the names given, or *_all for the word
	 * "all" (exclude defaults to "all" unless include is given). */
	struct lec_rtd_strings submodules_include, submodules_exclude;
	int submodules_all_included, submodules_all_excluded;
	int submodules_recursive;
	struct lec_rtd_strings search_ignore; /* normalised path patterns */
	struct lec_rtd_strings ranking_patterns; /* normalised path patterns */
	int *ranking_values; /* ranking_patterns.len ranks, -10..10 */
	enum lec_doctype doctype;
};

/**
 * The YAML name of a job: "post_checkout", ..., "build.html", ...
 * @return a static string; NULL for a value outside the enum
 */
const char *lec_rtd_job_name(enum lec_rtd_job job);

/**
 * The service's code of a doc type: "sphinx", "sphinx_htmldir",
 * "sphinx_singlehtml", "mkdocs" or "generic".
 * @return a static string; NULL for a value outside the enum
 */
const char *lec_doctype_code(enum lec_doctype doctype);

/**
 * The version the hosted service installs for a build.tools choice
 * ("python", "3" gives "3.14.6"), or for tool "os" the build image of a
 * build.os name.
 * @return a static string; NULL when the service offers no such choice
 */
const char *lec_rtd_tool_full_version(const char *tool, const char *version);

/**
 * Find the configuration file of a checkout.
 * @param checkout_dir the checkout's root directory
 * @param project_path the project's readthedocs_yaml_path, or NULL/"" for
 *        the default: the root entry matching ^\.?readthedocs\.ya?ml$
 *        (.readthedocs.yaml first when several match)
 * @param relpath the file relative to checkout_dir, owned by the caller
 *        (lec__free/free); NULL on failure
 * @return LEC_OK; LEC_ENOTFOUND when there is no default file;
 *         LEC_EINVALID when project_path is absolute, contains "..", or is
 *         not a file in the checkout (the message names it); LEC_EIO
 */
int lec_rtd_config_find(const char *checkout_dir, const char *project_path,
			char **relpath);

/**
 * Read and check a configuration file.
 * @param checkout_dir the checkout's root directory
 * @param relpath the file relative to checkout_dir (lec_rtd_config_find);
 *        it may be a symlink only if it resolves inside the checkout
 * @param out the configuration, owned by the caller (lec_rtd_config_free);
 *        NULL on failure
 * @return LEC_OK; LEC_EINVALID with "<relpath>:<line>: <key>: <problem>";
 *         LEC_ENOTFOUND (no such file); LEC_EIO; LEC_ENOMEM
 */
int lec_rtd_config_load(const char *checkout_dir, const char *relpath,
			struct lec_rtd_config **out);

/**
 * Check configuration text already in memory, as lec_rtd_config_load does
 * a file's (the fuzz harness and callers with the bytes at hand).
 * @param data the file's bytes (need not be NUL-terminated); NULL only with
 *        len 0
 * @param len bytes of data, at most LEC_RTD_CONFIG_MAX_BYTES
 * @param relpath the name messages and config->path carry
 * @param out as for lec_rtd_config_load
 * @return as lec_rtd_config_load, without LEC_ENOTFOUND and LEC_EIO
 */
int lec_rtd_config_parse(const char *data, size_t len, const char *relpath,
			 struct lec_rtd_config **out);

/**
 * The build's `config` object as the service stores it (notes §1.3): keys
 * version ("2"), formats, python, conda, build, doctype, sphinx, mkdocs,
 * submodules, search. Lectern installs no tools, so each build.tools entry
 * has a null full_version.
 * @return compact JSON text owned by the caller (lec__free/free); NULL with
 *         an error (LEC_ENOMEM, or LEC_EINVALID for a NULL config)
 */
char *lec_rtd_config_json(const struct lec_rtd_config *config);

/** Free a configuration. Accepts NULL. */
void lec_rtd_config_free(struct lec_rtd_config *config);

/* The hosted service's message for a refusal ---------------------------- */

/**
 * The id of the message the hosted service raises for what the last
 * lec_rtd_config_find, _load or _parse on this thread refused:
 * "config:validation:invalid-choice", "config:base:invalid-key-name", ...;
 * "config:path:default-not-found" when find found no default file (which
 * Lectern builds without, and the service refuses).
 * @return a static string; NULL when that call refused nothing
 */
const char *lec_rtd_config_problem_id(void);

/**
 * The same refusal as JSON text: {"id", "format_values": {"key", "value",
 * "choices", ...}, "value_class"}, each value as the service's message
 * shows it (Python's str() of what its parser read: "3.1" for an unquoted
 * 3.10), value_class the name of the value's Python class.
 * @return owned by the caller (lec__free/free); NULL when that call
 *         refused nothing, or with LEC_ENOMEM
 */
char *lec_rtd_config_problem_json(void);

/**
 * The service's notification text for a refusal: its message id, header
 * and body, HTML as the service shows them, filled with the format values.
 * @param problem JSON text as lec_rtd_config_problem_json gives
 * @param id, header, body owned by the caller; NULL on failure
 * @return LEC_OK; LEC_EINVALID (not such JSON, or an id the service has no
 *         message for); LEC_ENOMEM
 */
int lec_rtd_problem_message(const char *problem, char **id, char **header,
			    char **body);

/**
 * The same message as one line of plain text, "<header>: <body>" (tags
 * left out, a link's address in parentheses after its text).
 * @return owned by the caller; NULL with LEC_EINVALID or LEC_ENOMEM
 */
char *lec_rtd_problem_text(const char *problem);

#ifdef __cplusplus
}
#endif
#endif
