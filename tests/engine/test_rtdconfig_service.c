/*
 * The hosted service's own configuration tests, run against Lectern: the
 * cases of its readthedocs/config/tests/test_config.py (every one about
 * checking a file: version, formats, conda, build.os/tools/jobs/commands,
 * apt packages, python.install with pip, setuptools and uv, sphinx,
 * mkdocs, submodules, search, unknown keys, finding the file), its
 * test_validation.py and test_parser.py, translated from the Python dicts
 * they validate into the YAML a writer would write, each with the outcome
 * the service's test asserts: accepted, or refused with its message id and
 * the key of its format values (and a format value where the test checks
 * one). Read from the service's source at its commit 7937196 (2026-08-22).
 *
 * The service's tests build a dict on a base of version 2, ubuntu-22.04
 * and python "3", replacing top-level keys with the case's; the cases here
 * start from the same base plus `sphinx: {configuration: conf.py}`, since
 * the service's tests run without the rule its production applies (and
 * Lectern always does, notes §5.5) that a file names its conf.py or
 * mkdocs.yml. A case whose point is that rule, or that replaces `sphinx`
 * without a configuration, expects what production answers, as the
 * service's own deprecate_implicit_keys tests do. Where the service's test
 * accepts any of several ids, the case names the one its code raises for
 * that value.
 *
 * The last table holds the cases where Lectern answers otherwise on
 * purpose: each is in docs/decisions.md with its reason, and is checked
 * here as Lectern answers it.
 */
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "harness.h"
#include "internal.h"
#include "lectern/rtdconfig.h"

#define YML ".readthedocs.yaml"

/* The service's base (its get_build_config) and the sphinx key added. */
#define V "version: 2\n"
#define OS22 "build:\n  os: ubuntu-22.04\n  tools:\n    python: \"3\"\n"
#define SPHINX "sphinx:\n  configuration: conf.py\n"
#define HEAD V OS22 SPHINX
/* build: on ubuntu-24.04 with these tools (a flow map). */
#define OS24(tools) V "build:\n  os: ubuntu-24.04\n  tools: " tools "\n"
/* python.install with one entry (a flow map). */
#define INSTALL(entry) HEAD "python:\n  install:\n    - " entry "\n"

/* The service's choices for build.tools.python, as its message lists them
 * (", ".join of RTD_DOCKER_BUILD_SETTINGS["tools"]["python"]). */
#define PYTHONS                                                              \
	"2.7, 3.6, 3.7, 3.8, 3.9, 3.10, 3.11, 3.12, 3.13, 3.14, "             \
	"miniconda3-4.7, miniconda3-3.12-24.1, miniconda3-3.12-24.9, "        \
	"mambaforge-4.10, mambaforge-22.9, mambaforge-23.11, "                \
	"miniforge3-25.11, miniforge3-26.3, 3, latest, miniconda-latest, "    \
	"mambaforge-latest, miniforge3-latest"

/* Message ids (the service's exceptions.py). */
#define ID_SYNTAX "config:base:invalid-syntax"
#define ID_VERSION "config:base:invalid-version"
#define ID_KEY "config:base:invalid-key-name"
#define ID_TOGETHER "config:base:sphinx-mkdocs-together"
#define ID_NO_TOOLS "config:build:missing-build-tools-commands"
#define ID_FORMATS "config:build:jobs:build:missing-in-formats"
#define ID_APT_PREFIX "config:apt:invalid-package-name-prefix"
#define ID_APT_NAME "config:apt:invalid-package-name"
#define ID_PIP "config:python:pip-required"
#define ID_PATH_OR_REQ "config:python:pip-path-requirement-required"
#define ID_SUBMODULES "config:submodules:include-exclude-together"
#define ID_CONDA "config:conda:required"
#define ID_UV_COMMAND "config:python:uv-command-required"
#define ID_UV_MULTIPLE "config:python:uv-multiple-install-entries-invalid"
#define ID_UV_SYNC_REQ "config:python:uv-sync-requirements-invalid"
#define ID_UV_PIP_NEEDS "config:python:uv-pip-requirements-or-path-required"
#define ID_UV_PIP_GROUPS "config:python:uv-pip-groups-not-allowed"
#define ID_UV_EMPTY "config:python:uv-groups-extras-empty"
#define ID_UV_TYPE "config:python:uv-groups-extras-invalid-type"
#define ID_SPHINX_MISSING "config:sphinx:missing-config"
#define ID_SPHINX_FILE "config:sphinx:invalid-config-file"
#define ID_MKDOCS_MISSING "config:mkdocs:missing-config"
#define ID_BOOL "config:validation:invalid-bool"
#define ID_CHOICE "config:validation:invalid-choice"
#define ID_DICT "config:validation:invalid-dict"
#define ID_PATH "config:validation:invalid-path"
#define ID_PATTERN "config:validation:invalid-path-pattern"
#define ID_STRING "config:validation:invalid-string"
#define ID_LIST "config:validation:invalid-list"
#define ID_NOT_FOUND "config:validation:value-not-found"

struct service_case {
	const char *name; /* the service's test, [its parameter] */
	const char *yaml;
	const char *id;   /* NULL: accepted */
	const char *key;  /* format_values.key; NULL: none checked */
	const char *also; /* "name=value" of another format value, or NULL */
};

static const struct service_case cases[] = {
	/* test_load_* (the file's parse and version) */
	{ "test_load_empty_config_file", "", ID_SYNTAX, NULL,
	  "error_message=Expected mapping" },
	{ "test_load_version2 (production: no sphinx.configuration)",
	  V "build:\n  os: \"ubuntu-22.04\"\n  tools:\n    python: \"3\"\n",
	  ID_SPHINX_MISSING, NULL, NULL },
	{ "test_load_unknow_version", "version: 9\n", ID_VERSION, NULL, NULL },
	{ "test_load_raise_exception_invalid_syntax",
	  "version: 2\npython:\n  install:\n    - method: pip\n      path: .\n"
	  "        # bad indentation here\n        extra_requirements:\n"
	  "          - build\n",
	  ID_SYNTAX, NULL, "filename=" YML },

	/* formats */
	{ "test_formats_check_valid", HEAD "formats: [htmlzip, pdf, epub]\n",
	  NULL, NULL, NULL },
	{ "test_formats_check_invalid_value[3]", HEAD "formats: 3\n", ID_LIST,
	  "formats", NULL },
	{ "test_formats_check_invalid_value[invalid]", HEAD "formats: invalid\n",
	  ID_LIST, "formats", NULL },
	{ "test_formats_check_invalid_value[{other: value}]",
	  HEAD "formats: {other: value}\n", ID_LIST, "formats", NULL },
	{ "test_formats_check_invalid_type",
	  HEAD "formats: [htmlzip, invalid, epub]\n", ID_CHOICE, "formats",
	  "choices=htmlzip, pdf, epub" },
	{ "test_formats_default_value", HEAD, NULL, NULL, NULL },
	{ "test_formats_allow_empty", HEAD "formats: []\n", NULL, NULL, NULL },
	{ "test_formats_priority_over_defaults", HEAD "formats: [pdf]\n", NULL,
	  NULL, NULL },
	{ "test_formats_allow_all_keyword", HEAD "formats: all\n", NULL, NULL,
	  NULL },

	/* conda */
	{ "test_conda_check_valid", HEAD "conda: {environment: environment.yml}\n",
	  NULL, NULL, NULL },
	{ "test_conda_key_required_for_conda_mamba",
	  V "build:\n  os: ubuntu-22.04\n  tools: {python: miniconda3-4.7}\n"
	  SPHINX, ID_CONDA, "conda", NULL },
	{ "test_conda_key_not_required_for_conda_mamba_when_build_commands",
	  V "build:\n  os: ubuntu-22.04\n  tools: {python: mambaforge-22.9}\n"
	  "  commands: [\"mamba env create --file environment.yml\"]\n",
	  NULL, NULL, NULL },
	{ "test_conda_key_required_for_miniforge3",
	  V "build:\n  os: ubuntu-22.04\n  tools: {python: miniforge3-25.11}\n"
	  SPHINX, ID_CONDA, "conda", NULL },
	{ "test_conda_key_not_required_for_miniforge3_when_build_commands",
	  V "build:\n  os: ubuntu-22.04\n  tools: {python: miniforge3-25.11}\n"
	  "  commands: [\"conda env create --file environment.yml\"]\n",
	  NULL, NULL, NULL },
	{ "test_miniforge3_python_interpreter",
	  V "build:\n  os: ubuntu-22.04\n  tools: {python: miniforge3-25.11}\n"
	  "conda: {environment: environment.yml}\n" SPHINX,
	  NULL, NULL, NULL },
	{ "test_conda_check_invalid_value[3]", HEAD "conda: 3\n", ID_DICT,
	  "conda", NULL },
	{ "test_conda_check_invalid_value[[]]", HEAD "conda: []\n", ID_DICT,
	  "conda", NULL },
	{ "test_conda_check_invalid_value[invalid]", HEAD "conda: invalid\n",
	  ID_DICT, "conda", NULL },
	{ "test_conda_check_invalid_file_value[3]", HEAD "conda: {file: 3}\n",
	  ID_NOT_FOUND, "conda.environment", "value=environment" },
	{ "test_conda_check_invalid_file_value[[]]", HEAD "conda: {file: []}\n",
	  ID_NOT_FOUND, "conda.environment", NULL },
	{ "test_conda_check_invalid_file_value[{}]", HEAD "conda: {file: {}}\n",
	  ID_NOT_FOUND, "conda.environment", NULL },
	{ "test_conda_check_file_required", HEAD "conda: {no-file: other}\n",
	  ID_NOT_FOUND, "conda.environment", NULL },

	/* build */
	{ "test_build_check_invalid_type[3]", V "build: 3\n" SPHINX, ID_DICT,
	  "build", NULL },
	{ "test_build_check_invalid_type[[]]", V "build: []\n" SPHINX, ID_DICT,
	  "build", NULL },
	{ "test_build_check_invalid_type[invalid]", V "build: invalid\n" SPHINX,
	  ID_DICT, "build", NULL },
	{ "test_build_image_check_invalid_type[3]",
	  V "build: {image: 3}\n" SPHINX, ID_NOT_FOUND, "build.os",
	  "value=os" },
	{ "test_build_image_check_invalid_type[[]]",
	  V "build: {image: []}\n" SPHINX, ID_NOT_FOUND, "build.os", NULL },
	{ "test_build_image_check_invalid_type[{}]",
	  V "build: {image: {}}\n" SPHINX, ID_NOT_FOUND, "build.os", NULL },
	{ "test_new_build_config_invalid_os[]",
	  V "build: {os: \"\", tools: {python: \"3\"}}\n" SPHINX, ID_CHOICE,
	  "build.os",
	  "choices=ubuntu-22.04, ubuntu-24.04, ubuntu-26.04, ubuntu-lts-latest" },
	{ "test_new_build_config_invalid_os[None]",
	  V "build: {os: null, tools: {python: \"3\"}}\n" SPHINX, ID_CHOICE,
	  "build.os", NULL },
	{ "test_new_build_config_invalid_os[latest]",
	  V "build: {os: latest, tools: {python: \"3\"}}\n" SPHINX, ID_CHOICE,
	  "build.os", NULL },
	{ "test_new_build_config_invalid_tools[]", OS24("\"\"") SPHINX,
	  ID_NO_TOOLS, "build", NULL },
	{ "test_new_build_config_invalid_tools[None]", OS24("null") SPHINX,
	  ID_NO_TOOLS, "build", NULL },
	{ "test_new_build_config_invalid_tools[python]", OS24("python") SPHINX,
	  ID_DICT, "build.tools", NULL },
	{ "test_new_build_config_invalid_tools[[python, nodejs]]",
	  OS24("[python, nodejs]") SPHINX, ID_DICT, "build.tools", NULL },
	{ "test_new_build_config_invalid_tools[{}]", OS24("{}") SPHINX,
	  ID_NO_TOOLS, "build", NULL },
	{ "test_new_build_config_invalid_tools[{cobol: 99}]",
	  OS24("{cobol: \"99\"}") SPHINX, ID_CHOICE, "build.tools",
	  "choices=python, nodejs, ruby, rust, golang" },
	{ "test_new_build_config_invalid_tools_version",
	  OS24("{python: \"2.6\"}") SPHINX, ID_CHOICE, "build.tools.python",
	  "choices=" PYTHONS },
	{ "test_new_build_config", OS24("{python: \"3.9\"}") SPHINX, NULL, NULL,
	  NULL },
	{ "test_new_build_config_conflict_with_build_image",
	  V "build:\n  image: latest\n  os: ubuntu-24.04\n  tools: {python: "
	  "\"3.9\"}\n" SPHINX,
	  ID_KEY, "build.image", NULL },
	{ "test_new_build_config_conflict_with_build_python_version",
	  OS24("{python: \"3.8\"}") "python: {version: \"3.8\"}\n" SPHINX,
	  ID_KEY, "python.version", NULL },
	{ "test_commands_build_config_tools_and_commands_valid",
	  OS24("{python: \"3.8\"}")
	  "  commands: [\"pip install pelican\", \"pelican content\"]\n",
	  NULL, NULL, NULL },
	{ "test_build_jobs_without_build_os_is_invalid",
	  V "build:\n  tools: {python: \"3.8\"}\n  jobs:\n    pre_checkout: "
	  "[\"echo pre_checkout\"]\n" SPHINX,
	  ID_NOT_FOUND, "build.os", NULL },
	{ "test_commands_build_config_invalid_command",
	  OS24("{python: \"3.8\"}") "  commands: \"command as string\"\n",
	  ID_LIST, "build.commands", NULL },
	{ "test_commands_build_config_invalid_no_os",
	  V "build:\n  commands: [\"pip install pelican\", \"pelican "
	  "content\"]\n",
	  ID_NOT_FOUND, "build.os", NULL },
	{ "test_commands_build_config_valid",
	  V "build:\n  os: ubuntu-22.04\n  commands: [\"echo 'hello world' > "
	  "_readthedocs/html/index.html\"]\n",
	  NULL, NULL, NULL },
	{ "test_jobs_build_config_invalid_jobs[]",
	  OS24("{python: \"3.8\"}") "  jobs:\n    \"\": [\"echo 1234\", \"git "
	  "fetch --unshallow\"]\n" SPHINX,
	  ID_CHOICE, "build.jobs", NULL },
	{ "test_jobs_build_config_invalid_jobs[None]",
	  OS24("{python: \"3.8\"}") "  jobs:\n    null: [\"echo 1234\"]\n"
	  SPHINX, ID_CHOICE, "build.jobs", NULL },
	{ "test_jobs_build_config_invalid_jobs[pre_invalid]",
	  OS24("{python: \"3.8\"}") "  jobs:\n    pre_invalid: [\"echo 1234\"]\n"
	  SPHINX, ID_CHOICE, "build.jobs", "value=pre_invalid" },
	{ "test_jobs_build_config_invalid_job_commands[]",
	  OS24("{python: \"3.8\"}") "  jobs:\n    pre_install: \"\"\n" SPHINX,
	  ID_LIST, "build.jobs.pre_install", NULL },
	{ "test_jobs_build_config_invalid_job_commands[None]",
	  OS24("{python: \"3.8\"}") "  jobs:\n    pre_install: null\n" SPHINX,
	  ID_LIST, "build.jobs.pre_install", NULL },
	{ "test_jobs_build_config_invalid_job_commands[echo 123]",
	  OS24("{python: \"3.8\"}") "  jobs:\n    pre_install: echo 123\n"
	  SPHINX, ID_LIST, "build.jobs.pre_install", NULL },
	{ "test_jobs_build_config_invalid_job_commands[42]",
	  OS24("{python: \"3.8\"}") "  jobs:\n    pre_install: 42\n" SPHINX,
	  ID_LIST, "build.jobs.pre_install", NULL },
	{ "test_jobs_build_config",
	  OS24("{python: \"3.8\"}")
	  "  jobs:\n"
	  "    pre_checkout: [\"echo pre_checkout\"]\n"
	  "    post_checkout: [\"echo post_checkout\"]\n"
	  "    pre_system_dependencies: [\"echo pre_system_dependencies\"]\n"
	  "    post_system_dependencies: [\"echo post_system_dependencies\"]\n"
	  "    pre_create_environment: [\"echo pre_create_environment\"]\n"
	  "    post_create_environment: [\"echo post_create_environment\"]\n"
	  "    pre_install: [\"echo pre_install\", \"echo `date`\"]\n"
	  "    post_install: [\"echo post_install\"]\n"
	  "    pre_build:\n      - echo pre_build\n"
	  "      - 'sed -i -e \"s|{VERSION}|${READTHEDOCS_VERSION_NAME}|g\"'\n"
	  "    post_build: [\"echo post_build\"]\n" SPHINX,
	  NULL, NULL, NULL },
	{ "test_build_jobs_partial_override",
	  V "formats: [pdf, htmlzip, epub]\nbuild:\n  os: ubuntu-24.04\n"
	  "  tools: {python: \"3\"}\n  jobs:\n"
	  "    create_environment: [\"echo make_environment\"]\n"
	  "    install: [\"echo install\"]\n    build:\n"
	  "      html: [\"echo build html\"]\n      pdf: [\"echo build pdf\"]\n"
	  "      epub: [\"echo build epub\"]\n"
	  "      htmlzip: [\"echo build htmlzip\"]\n" SPHINX,
	  NULL, NULL, NULL },
	{ "test_build_jobs_build_should_match_formats",
	  V "formats: [pdf]\nbuild:\n  os: ubuntu-24.04\n  tools: {python: "
	  "\"3\"}\n  jobs:\n    build:\n      epub: [\"echo build epub\"]\n"
	  SPHINX,
	  ID_FORMATS, NULL, "build_type=epub" },
	{ "test_build_jobs_build_defaults",
	  OS24("{python: \"3\"}") "  jobs:\n    build:\n      html: [\"echo "
	  "build html\"]\n" SPHINX,
	  NULL, NULL, NULL },
	{ "test_build_jobs_partial_override_empty_commands",
	  V "formats: [pdf]\nbuild:\n  os: ubuntu-24.04\n  tools: {python: "
	  "\"3\"}\n  jobs:\n    create_environment: []\n    install: []\n"
	  "    build:\n      html: []\n      pdf: []\n" SPHINX,
	  NULL, NULL, NULL },

	/* build.apt_packages */
	{ "test_build_apt_packages_check_valid[[]]",
	  V OS22 "  apt_packages: []\n" SPHINX, NULL, NULL, NULL },
	{ "test_build_apt_packages_check_valid[[cmatrix]]",
	  V OS22 "  apt_packages: [cmatrix]\n" SPHINX, NULL, NULL, NULL },
	{ "test_build_apt_packages_check_valid[[Mysql, cmatrix, "
	  "postgresql-dev]]",
	  V OS22 "  apt_packages: [Mysql, cmatrix, postgresql-dev]\n" SPHINX,
	  NULL, NULL, NULL },
	{ "test_build_apt_packages_invalid_type[3]",
	  V OS22 "  apt_packages: 3\n" SPHINX, ID_LIST, "build.apt_packages",
	  NULL },
	{ "test_build_apt_packages_invalid_type[string]",
	  V OS22 "  apt_packages: string\n" SPHINX, ID_LIST,
	  "build.apt_packages", NULL },
	{ "test_build_apt_packages_invalid_type[{}]",
	  V OS22 "  apt_packages: {}\n" SPHINX, ID_LIST, "build.apt_packages",
	  NULL },
	{ "test_build_apt_packages_invalid_value[0, [/, cmatrix]]",
	  V OS22 "  apt_packages: [\"/\", cmatrix]\n" SPHINX, ID_APT_PREFIX,
	  "build.apt_packages.0", "prefix=/" },
	{ "test_build_apt_packages_invalid_value[1, -q]",
	  V OS22 "  apt_packages: [cmatrix, \"-q\"]\n" SPHINX, ID_APT_PREFIX,
	  "build.apt_packages.1", "package=-q" },
	{ "test_build_apt_packages_invalid_value[1,  -q]",
	  V OS22 "  apt_packages: [cmatrix, \" -q\"]\n" SPHINX, ID_APT_PREFIX,
	  "build.apt_packages.1", "package=-q" },
	{ "test_build_apt_packages_invalid_value[1, \\-q]",
	  V OS22 "  apt_packages: [cmatrix, '\\-q']\n" SPHINX, ID_APT_NAME,
	  "build.apt_packages.1", "package=\\-q" },
	{ "test_build_apt_packages_invalid_value[1, --quiet]",
	  V OS22 "  apt_packages: [cmatrix, \"--quiet\"]\n" SPHINX,
	  ID_APT_PREFIX, "build.apt_packages.1", NULL },
	{ "test_build_apt_packages_invalid_value[1,  --quiet]",
	  V OS22 "  apt_packages: [cmatrix, \" --quiet\"]\n" SPHINX,
	  ID_APT_PREFIX, "build.apt_packages.1", NULL },
	{ "test_build_apt_packages_invalid_value[2, ./package.deb]",
	  V OS22 "  apt_packages: [cmatrix, quiet, ./package.deb]\n" SPHINX,
	  ID_APT_PREFIX, "build.apt_packages.2", "prefix=." },
	{ "test_build_apt_packages_invalid_value[2,  ./package.deb ]",
	  V OS22 "  apt_packages: [cmatrix, quiet, \" ./package.deb \"]\n"
	  SPHINX, ID_APT_PREFIX, "build.apt_packages.2",
	  "package=./package.deb" },
	{ "test_build_apt_packages_invalid_value[2, /home/user/package.deb]",
	  V OS22 "  apt_packages: [cmatrix, quiet, /home/user/package.deb]\n"
	  SPHINX, ID_APT_PREFIX, "build.apt_packages.2", NULL },
	{ "test_build_apt_packages_invalid_value[2,  /home/user/package.deb]",
	  V OS22 "  apt_packages: [cmatrix, quiet, \" /home/user/package.deb\"]"
	  "\n" SPHINX, ID_APT_PREFIX, "build.apt_packages.2", NULL },
	{ "test_build_apt_packages_invalid_value[2, ../package.deb]",
	  V OS22 "  apt_packages: [cmatrix, quiet, ../package.deb]\n" SPHINX,
	  ID_APT_PREFIX, "build.apt_packages.2", NULL },
	{ "test_build_apt_packages_invalid_value[2,  ../package.deb]",
	  V OS22 "  apt_packages: [cmatrix, quiet, \" ../package.deb\"]\n"
	  SPHINX, ID_APT_PREFIX, "build.apt_packages.2", NULL },
	{ "test_build_apt_packages_invalid_value[1, $two]",
	  V OS22 "  apt_packages: [one, $two]\n" SPHINX, ID_APT_NAME,
	  "build.apt_packages.1", NULL },
	{ "test_build_apt_packages_invalid_value[1, non-ascii]",
	  V OS22 "  apt_packages: [one, \"non-asc\xc3\xad\xc3\xad\"]\n" SPHINX,
	  ID_APT_NAME, "build.apt_packages.1", NULL },
	{ "test_build_apt_packages_invalid_value[1, cmatrix$]",
	  V OS22 "  apt_packages: [mysql, cmatrix$]\n" SPHINX, ID_APT_NAME,
	  "build.apt_packages.1", NULL },
	{ "test_build_apt_packages_invalid_value[0, ^mysql-*]",
	  V OS22 "  apt_packages: [^mysql-*, cmatrix$]\n" SPHINX, ID_APT_NAME,
	  "build.apt_packages.0", NULL },
	{ "test_build_apt_packages_invalid_value[0, postgresql=1.2.3]",
	  V OS22 "  apt_packages: [postgresql=1.2.3]\n" SPHINX, ID_APT_NAME,
	  "build.apt_packages.0", NULL },
	{ "test_build_apt_packages_invalid_value[0, cmatrix/bionic]",
	  V OS22 "  apt_packages: [cmatrix/bionic]\n" SPHINX, ID_APT_NAME,
	  "build.apt_packages.0", NULL },

	/* python */
	{ "test_python_check_invalid_types[3]", HEAD "python: 3\n", ID_DICT,
	  "python", NULL },
	{ "test_python_check_invalid_types[[]]", HEAD "python: []\n", ID_DICT,
	  "python", NULL },
	{ "test_python_check_invalid_types[invalid]", HEAD "python: invalid\n",
	  ID_DICT, "python", NULL },
	{ "test_python_version_check_invalid_types[[]]",
	  HEAD "python: {version: []}\n", ID_KEY, "python.version", NULL },
	{ "test_python_version_check_invalid_types[{}]",
	  HEAD "python: {version: {}}\n", ID_KEY, "python.version", NULL },
	{ "test_python_version_check_invalid_types[3]",
	  HEAD "python: {version: \"3\"}\n", ID_KEY, "python.version", NULL },
	{ "test_python_version_check_invalid_types[3.10]",
	  HEAD "python: {version: \"3.10\"}\n", ID_KEY, "python.version",
	  NULL },
	{ "test_python_install_default_value", HEAD, NULL, NULL, NULL },
	{ "test_python_install_check_default", INSTALL("{path: .}"), NULL, NULL,
	  NULL },
	{ "test_python_install_method_check_invalid[invalid]",
	  INSTALL("{path: ., method: invalid}"), ID_CHOICE,
	  "python.install.0.method", "choices=pip, setuptools, uv" },
	{ "test_python_install_method_check_invalid[apt]",
	  INSTALL("{path: ., method: apt}"), ID_CHOICE,
	  "python.install.0.method", NULL },
	{ "test_python_install_requirements_check_valid",
	  INSTALL("{requirements: requirements.txt}"), NULL, NULL, NULL },
	{ "test_python_install_requirements_does_not_allow_null",
	  INSTALL("{path: ., requirements: null}"), ID_STRING,
	  "python.install.0.requirements", "value=None" },
	{ "test_python_install_requirements_does_not_allow_empty_string",
	  INSTALL("{path: ., requirements: \"\"}"), ID_PATH,
	  "python.install.0.requirements", NULL },
	{ "test_python_install_requirements_check_invalid_types[3]",
	  INSTALL("{path: ., requirements: 3}"), ID_STRING,
	  "python.install.0.requirements", NULL },
	{ "test_python_install_requirements_check_invalid_types[[]]",
	  INSTALL("{path: ., requirements: []}"), ID_STRING,
	  "python.install.0.requirements", NULL },
	{ "test_python_install_requirements_check_invalid_types[{}]",
	  INSTALL("{path: ., requirements: {}}"), ID_STRING,
	  "python.install.0.requirements", NULL },
	{ "test_python_install_path_is_required", INSTALL("{method: pip}"),
	  ID_PATH_OR_REQ, "python.install.0", NULL },
	{ "test_python_install_pip_check_valid",
	  INSTALL("{path: ., method: pip}"), NULL, NULL, NULL },
	{ "test_python_install_setuptools_check_valid",
	  INSTALL("{path: ., method: setuptools}"), NULL, NULL, NULL },
	{ "test_python_install_allow_empty_list", HEAD "python: {install: []}\n",
	  NULL, NULL, NULL },
	{ "test_python_install_default", HEAD "python: {}\n", NULL, NULL, NULL },
	{ "test_python_install_check_invalid_type[2]",
	  HEAD "python: {install: 2}\n", ID_LIST, "python.install", NULL },
	{ "test_python_install_check_invalid_type[string]",
	  HEAD "python: {install: string}\n", ID_LIST, "python.install", NULL },
	{ "test_python_install_check_invalid_type[{}]",
	  HEAD "python: {install: {}}\n", ID_LIST, "python.install", NULL },
	{ "test_python_install_extra_requirements_and_pip",
	  INSTALL("{path: ., method: pip, extra_requirements: [docs, tests]}"),
	  NULL, NULL, NULL },
	{ "test_python_install_extra_requirements_and_setuptools",
	  INSTALL("{path: ., method: setuptools, extra_requirements: [docs, "
		  "tests]}"),
	  ID_PIP, NULL, NULL },
	{ "test_python_install_extra_requirements_check_type[2]",
	  INSTALL("{path: ., method: pip, extra_requirements: 2}"), ID_LIST,
	  "python.install.0.extra_requirements", NULL },
	{ "test_python_install_extra_requirements_check_type[invalid]",
	  INSTALL("{path: ., method: pip, extra_requirements: invalid}"),
	  ID_LIST, "python.install.0.extra_requirements", NULL },
	{ "test_python_install_extra_requirements_check_type[{}]",
	  INSTALL("{path: ., method: pip, extra_requirements: {}}"), ID_LIST,
	  "python.install.0.extra_requirements", NULL },
	{ "test_python_install_extra_requirements_check_type[]",
	  INSTALL("{path: ., method: pip, extra_requirements: \"\"}"), ID_LIST,
	  "python.install.0.extra_requirements", NULL },
	{ "test_python_install_extra_requirements_check_type[None]",
	  INSTALL("{path: ., method: pip, extra_requirements: null}"), ID_LIST,
	  "python.install.0.extra_requirements", NULL },
	{ "test_python_install_extra_requirements_allow_empty",
	  INSTALL("{path: ., method: pip, extra_requirements: []}"), NULL, NULL,
	  NULL },
	{ "test_python_install_extra_requirements_valid_strings[[docs]]",
	  INSTALL("{path: ., method: pip, extra_requirements: [docs]}"), NULL,
	  NULL, NULL },
	{ "test_python_install_extra_requirements_check_element_type[[[docs]]]",
	  INSTALL("{path: ., method: pip, extra_requirements: [[docs]]}"),
	  ID_STRING, "python.install.0.extra_requirements", NULL },
	{ "test_python_install_extra_requirements_check_element_type[[1]]",
	  INSTALL("{path: ., method: pip, extra_requirements: [1]}"), ID_STRING,
	  "python.install.0.extra_requirements", NULL },
	{ "test_python_install_extra_requirements_check_element_type[[{key: "
	  "val}]]",
	  INSTALL("{path: ., method: pip, extra_requirements: [{key: val}]}"),
	  ID_STRING, "python.install.0.extra_requirements", NULL },
	{ "test_python_install_several_respects_order",
	  HEAD "python:\n  install:\n"
	  "    - {path: one, method: pip, extra_requirements: []}\n"
	  "    - {path: two, method: setuptools}\n"
	  "    - {requirements: three.txt}\n",
	  NULL, NULL, NULL },

	/* sphinx */
	{ "test_sphinx_validate_type[[]]", V OS22 "sphinx: []\n", ID_DICT,
	  "sphinx", NULL },
	{ "test_sphinx_validate_type[True]", V OS22 "sphinx: true\n", ID_DICT,
	  "sphinx", NULL },
	{ "test_sphinx_validate_type[0]", V OS22 "sphinx: 0\n", ID_DICT,
	  "sphinx", NULL },
	{ "test_sphinx_validate_type[invalid]", V OS22 "sphinx: invalid\n",
	  ID_DICT, "sphinx", NULL },
	{ "test_sphinx_is_default_doc_type", HEAD, NULL, NULL, NULL },
	{ "test_sphinx_builder_check_valid[html]",
	  V OS22 "sphinx: {builder: html, configuration: conf.py}\n", NULL,
	  NULL, NULL },
	{ "test_sphinx_builder_check_valid[htmldir]",
	  V OS22 "sphinx: {builder: htmldir, configuration: conf.py}\n", NULL,
	  NULL, NULL },
	{ "test_sphinx_builder_check_valid[dirhtml]",
	  V OS22 "sphinx: {builder: dirhtml, configuration: conf.py}\n", NULL,
	  NULL, NULL },
	{ "test_sphinx_builder_check_valid[singlehtml]",
	  V OS22 "sphinx: {builder: singlehtml, configuration: conf.py}\n",
	  NULL, NULL, NULL },
	{ "test_sphinx_builder_check_invalid[[]]",
	  V OS22 "sphinx: {builder: []}\n", ID_CHOICE, "sphinx.builder",
	  "choices=html, htmldir, dirhtml, singlehtml" },
	{ "test_sphinx_builder_check_invalid[True]",
	  V OS22 "sphinx: {builder: true}\n", ID_CHOICE, "sphinx.builder",
	  "value=True" },
	{ "test_sphinx_builder_check_invalid[0]", V OS22 "sphinx: {builder: 0}\n",
	  ID_CHOICE, "sphinx.builder", NULL },
	{ "test_sphinx_builder_check_invalid[invalid]",
	  V OS22 "sphinx: {builder: invalid}\n", ID_CHOICE, "sphinx.builder",
	  NULL },
	{ "test_sphinx_configuration_check_valid", HEAD, NULL, NULL, NULL },
	{ "test_sphinx_configuration_check_valid_nested",
	  V OS22 "sphinx: {configuration: docs/conf.py}\n", NULL, NULL, NULL },
	{ "test_sphinx_configuration_invalid_filename[conf-custom.py]",
	  V OS22 "sphinx: {configuration: conf-custom.py}\n", ID_SPHINX_FILE,
	  NULL, NULL },
	{ "test_sphinx_configuration_invalid_filename[docs/myconf.py]",
	  V OS22 "sphinx: {configuration: docs/myconf.py}\n", ID_SPHINX_FILE,
	  NULL, NULL },
	{ "test_sphinx_configuration_invalid_filename[docs/conf.py.bak]",
	  V OS22 "sphinx: {configuration: docs/conf.py.bak}\n", ID_SPHINX_FILE,
	  NULL, NULL },
	{ "test_sphinx_cant_be_used_with_mkdocs", HEAD "mkdocs: {}\n",
	  ID_TOGETHER, NULL, NULL },
	{ "test_sphinx_configuration_allow_null (production)",
	  V OS22 "sphinx: {configuration: null}\n", ID_SPHINX_MISSING, NULL,
	  NULL },
	{ "test_sphinx_configuration_validate_type[[]]",
	  V OS22 "sphinx: {configuration: []}\n", ID_STRING,
	  "sphinx.configuration", NULL },
	{ "test_sphinx_configuration_validate_type[True]",
	  V OS22 "sphinx: {configuration: true}\n", ID_STRING,
	  "sphinx.configuration", NULL },
	{ "test_sphinx_configuration_validate_type[0]",
	  V OS22 "sphinx: {configuration: 0}\n", ID_STRING,
	  "sphinx.configuration", NULL },
	{ "test_sphinx_configuration_validate_type[{}]",
	  V OS22 "sphinx: {configuration: {}}\n", ID_STRING,
	  "sphinx.configuration", NULL },
	{ "test_sphinx_fail_on_warning_check_valid[True]",
	  V OS22 "sphinx: {configuration: conf.py, fail_on_warning: true}\n",
	  NULL, NULL, NULL },
	{ "test_sphinx_fail_on_warning_check_valid[False]",
	  V OS22 "sphinx: {configuration: conf.py, fail_on_warning: false}\n",
	  NULL, NULL, NULL },
	{ "test_sphinx_fail_on_warning_check_invalid[[]]",
	  V OS22 "sphinx: {fail_on_warning: []}\n", ID_BOOL,
	  "sphinx.fail_on_warning", NULL },
	{ "test_sphinx_fail_on_warning_check_invalid[invalid]",
	  V OS22 "sphinx: {fail_on_warning: invalid}\n", ID_BOOL,
	  "sphinx.fail_on_warning", NULL },
	{ "test_sphinx_fail_on_warning_check_invalid[5]",
	  V OS22 "sphinx: {fail_on_warning: 5}\n", ID_BOOL,
	  "sphinx.fail_on_warning", "value=5" },

	/* mkdocs */
	{ "test_mkdocs_validate_type[[]]", V OS22 "mkdocs: []\n", ID_DICT,
	  "mkdocs", NULL },
	{ "test_mkdocs_validate_type[True]", V OS22 "mkdocs: true\n", ID_DICT,
	  "mkdocs", NULL },
	{ "test_mkdocs_validate_type[0]", V OS22 "mkdocs: 0\n", ID_DICT,
	  "mkdocs", NULL },
	{ "test_mkdocs_validate_type[invalid]", V OS22 "mkdocs: invalid\n",
	  ID_DICT, "mkdocs", NULL },
	{ "test_mkdocs_configuration_check_valid",
	  V OS22 "mkdocs: {configuration: mkdocs.yml}\n", NULL, NULL, NULL },
	{ "test_mkdocs_configuration_allow_null (production)",
	  V OS22 "mkdocs: {configuration: null}\n", ID_MKDOCS_MISSING, NULL,
	  NULL },
	{ "test_mkdocs_configuration_check_default (production)",
	  V OS22 "mkdocs: {}\n", ID_MKDOCS_MISSING, NULL, NULL },
	{ "test_mkdocs_configuration_validate_type[[]]",
	  V OS22 "mkdocs: {configuration: []}\n", ID_STRING,
	  "mkdocs.configuration", NULL },
	{ "test_mkdocs_configuration_validate_type[True]",
	  V OS22 "mkdocs: {configuration: true}\n", ID_STRING,
	  "mkdocs.configuration", NULL },
	{ "test_mkdocs_configuration_validate_type[0]",
	  V OS22 "mkdocs: {configuration: 0}\n", ID_STRING,
	  "mkdocs.configuration", NULL },
	{ "test_mkdocs_configuration_validate_type[{}]",
	  V OS22 "mkdocs: {configuration: {}}\n", ID_STRING,
	  "mkdocs.configuration", NULL },
	{ "test_mkdocs_fail_on_warning_check_valid[True]",
	  V OS22 "mkdocs: {configuration: mkdocs.yml, fail_on_warning: true}\n",
	  NULL, NULL, NULL },
	{ "test_mkdocs_fail_on_warning_check_valid[False]",
	  V OS22 "mkdocs: {configuration: mkdocs.yml, fail_on_warning: "
	  "false}\n",
	  NULL, NULL, NULL },
	{ "test_mkdocs_fail_on_warning_check_invalid[[]]",
	  V OS22 "mkdocs: {fail_on_warning: []}\n", ID_BOOL,
	  "mkdocs.fail_on_warning", NULL },
	{ "test_mkdocs_fail_on_warning_check_invalid[invalid]",
	  V OS22 "mkdocs: {fail_on_warning: invalid}\n", ID_BOOL,
	  "mkdocs.fail_on_warning", NULL },
	{ "test_mkdocs_fail_on_warning_check_invalid[5]",
	  V OS22 "mkdocs: {fail_on_warning: 5}\n", ID_BOOL,
	  "mkdocs.fail_on_warning", NULL },

	/* submodules */
	{ "test_submodule_defaults", HEAD, NULL, NULL, NULL },
	{ "test_submodules_check_invalid_type[[]]", HEAD "submodules: []\n",
	  ID_DICT, "submodules", NULL },
	{ "test_submodules_check_invalid_type[invalid]",
	  HEAD "submodules: invalid\n", ID_DICT, "submodules", NULL },
	{ "test_submodules_check_invalid_type[0]", HEAD "submodules: 0\n",
	  ID_DICT, "submodules", NULL },
	{ "test_submodules_include_check_valid",
	  HEAD "submodules: {include: [one, two]}\n", NULL, NULL, NULL },
	{ "test_submodules_include_check_invalid[invalid]",
	  HEAD "submodules: {include: invalid}\n", ID_LIST,
	  "submodules.include", NULL },
	{ "test_submodules_include_check_invalid[True]",
	  HEAD "submodules: {include: true}\n", ID_LIST, "submodules.include",
	  NULL },
	{ "test_submodules_include_check_invalid[0]",
	  HEAD "submodules: {include: 0}\n", ID_LIST, "submodules.include",
	  NULL },
	{ "test_submodules_include_check_invalid[{}]",
	  HEAD "submodules: {include: {}}\n", ID_LIST, "submodules.include",
	  NULL },
	{ "test_submodules_include_allows_all_keyword",
	  HEAD "submodules: {include: all}\n", NULL, NULL, NULL },
	{ "test_submodules_exclude_check_valid",
	  HEAD "submodules: {exclude: [one, two]}\n", NULL, NULL, NULL },
	{ "test_submodules_exclude_check_invalid[invalid]",
	  HEAD "submodules: {exclude: invalid}\n", ID_LIST,
	  "submodules.exclude", NULL },
	{ "test_submodules_exclude_check_invalid[True]",
	  HEAD "submodules: {exclude: true}\n", ID_LIST, "submodules.exclude",
	  NULL },
	{ "test_submodules_exclude_check_invalid[0]",
	  HEAD "submodules: {exclude: 0}\n", ID_LIST, "submodules.exclude",
	  NULL },
	{ "test_submodules_exclude_check_invalid[{}]",
	  HEAD "submodules: {exclude: {}}\n", ID_LIST, "submodules.exclude",
	  NULL },
	{ "test_submodules_exclude_allows_all_keyword",
	  HEAD "submodules: {exclude: all}\n", NULL, NULL, NULL },
	{ "test_submodules_cant_exclude_and_include",
	  HEAD "submodules: {include: [two], exclude: [one]}\n", ID_SUBMODULES,
	  NULL, NULL },
	{ "test_submodules_can_exclude_include_be_empty",
	  HEAD "submodules: {exclude: all, include: []}\n", NULL, NULL, NULL },
	{ "test_submodules_recursive_check_valid[True]",
	  HEAD "submodules: {include: [one, two], recursive: true}\n", NULL,
	  NULL, NULL },
	{ "test_submodules_recursive_check_valid[False]",
	  HEAD "submodules: {include: [one, two], recursive: false}\n", NULL,
	  NULL, NULL },
	{ "test_submodules_recursive_check_invalid[[]]",
	  HEAD "submodules: {include: [one, two], recursive: []}\n", ID_BOOL,
	  "submodules.recursive", NULL },
	{ "test_submodules_recursive_check_invalid[invalid]",
	  HEAD "submodules: {include: [one, two], recursive: invalid}\n",
	  ID_BOOL, "submodules.recursive", NULL },
	{ "test_submodules_recursive_check_invalid[5]",
	  HEAD "submodules: {include: [one, two], recursive: 5}\n", ID_BOOL,
	  "submodules.recursive", NULL },
	{ "test_submodules_recursive_explicit_default[include]",
	  HEAD "submodules: {include: [], recursive: false}\n", NULL, NULL,
	  NULL },
	{ "test_submodules_recursive_explicit_default[exclude]",
	  HEAD "submodules: {exclude: [], recursive: false}\n", NULL, NULL,
	  NULL },

	/* search */
	{ "test_search_invalid_type[invalid]", HEAD "search: invalid\n",
	  ID_DICT, "search", NULL },
	{ "test_search_invalid_type[True]", HEAD "search: true\n", ID_DICT,
	  "search", NULL },
	{ "test_search_invalid_type[0]", HEAD "search: 0\n", ID_DICT, "search",
	  NULL },
	{ "test_search_invalid_type[[]]", HEAD "search: []\n", ID_DICT,
	  "search", NULL },
	{ "test_search_ranking_invalid_type[invalid]",
	  HEAD "search: {ranking: invalid}\n", ID_DICT, "search.ranking",
	  NULL },
	{ "test_search_ranking_invalid_type[True]",
	  HEAD "search: {ranking: true}\n", ID_DICT, "search.ranking", NULL },
	{ "test_search_ranking_invalid_type[0]", HEAD "search: {ranking: 0}\n",
	  ID_DICT, "search.ranking", NULL },
	{ "test_search_ranking_invalid_type[[]]",
	  HEAD "search: {ranking: []}\n", ID_DICT, "search.ranking", NULL },
	{ "test_search_ranking_invalid_type[{foo/bar: 11}]",
	  HEAD "search: {ranking: {foo/bar: 11}}\n", ID_CHOICE,
	  "search.ranking",
	  "choices=-10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, "
	  "6, 7, 8, 9, 10" },
	{ "test_search_ranking_invalid_type[{foo/bar: -11}]",
	  HEAD "search: {ranking: {foo/bar: -11}}\n", ID_CHOICE,
	  "search.ranking", "value=-11" },
	{ "test_search_ranking_invalid_type[{foo/bar: 2.5}]",
	  HEAD "search: {ranking: {foo/bar: 2.5}}\n", ID_CHOICE,
	  "search.ranking", "value=2.5" },
	{ "test_search_ranking_invalid_type[{foo/bar: bar}]",
	  HEAD "search: {ranking: {foo/bar: bar}}\n", ID_CHOICE,
	  "search.ranking", NULL },
	{ "test_search_ranking_invalid_type[{/: 1}]",
	  HEAD "search: {ranking: {\"/\": 1}}\n", ID_PATTERN, "search.ranking",
	  "value=/" },
	{ "test_search_ranking_invalid_type[{/foo/..: 1}]",
	  HEAD "search: {ranking: {\"/foo/..\": 1}}\n", ID_PATTERN,
	  "search.ranking", NULL },
	{ "test_search_ranking_invalid_type[{..: 1}]",
	  HEAD "search: {ranking: {\"..\": 1}}\n", ID_PATTERN, "search.ranking",
	  NULL },
	{ "test_search_ranking_invalid_type[{/foo/bar/../../../: 1}]",
	  HEAD "search: {ranking: {\"/foo/bar/../../../\": 1}}\n", ID_PATTERN,
	  "search.ranking", NULL },
	{ "test_search_ranking_invalid_type[{10: bar}]",
	  HEAD "search: {ranking: {10: bar}}\n", ID_STRING, "search.ranking",
	  "value=10" },
	{ "test_search_ranking_invalid_type[{10: 0}]",
	  HEAD "search: {ranking: {10: 0}}\n", ID_STRING, "search.ranking",
	  NULL },
	{ "test_search_ignore_invalid_type[invalid]",
	  HEAD "search: {ignore: invalid}\n", ID_LIST, "search.ignore", NULL },
	{ "test_search_ignore_invalid_type[True]",
	  HEAD "search: {ignore: true}\n", ID_LIST, "search.ignore", NULL },
	{ "test_search_ignore_invalid_type[0]", HEAD "search: {ignore: 0}\n",
	  ID_LIST, "search.ignore", NULL },
	{ "test_search_ignore_invalid_type[[2, 3]]",
	  HEAD "search: {ignore: [2, 3]}\n", ID_STRING, "search.ignore",
	  "value=2" },
	{ "test_search_ignore_invalid_type[{foo/bar: 11}]",
	  HEAD "search: {ignore: {foo/bar: 11}}\n", ID_LIST, "search.ignore",
	  NULL },

	/* unknown keys (test_strict_validation, test_get_extra_key) */
	{ "test_strict_validation[typo]", HEAD "typo: something\n", ID_KEY,
	  "typo", NULL },
	{ "test_strict_validation[pyton.version]",
	  HEAD "pyton:\n  version: another typo\n", ID_KEY, "pyton.version",
	  NULL },
	{ "test_strict_validation[build.extra]",
	  V "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n"
	  "  extra: key\n" SPHINX,
	  ID_KEY, "build.extra", NULL },
	{ "test_strict_validation[python.install.1.invalid]",
	  HEAD "python:\n  install:\n    - path: .\n    - path: .\n"
	  "      method: pip\n      invalid: key\n",
	  ID_KEY, "python.install.1.invalid", NULL },
	{ "test_get_extra_key[{one: 1}]", HEAD "one: 1\n", ID_KEY, "one",
	  NULL },
	{ "test_get_extra_key[{one: {two: 3}}]", HEAD "one: {two: 3}\n", ID_KEY,
	  "one.two", NULL },
	{ "test_get_extra_key[{one: 1, two: 2}]", HEAD "one: 1\ntwo: 2\n",
	  ID_KEY, "one", NULL },
	{ "test_get_extra_key[{one: {two: 2}, three: 3}]",
	  HEAD "one: {two: 2}\nthree: 3\n", ID_KEY, "one.two", NULL },

	/* the generator configuration production requires */
	{ "test_sphinx_without_explicit_configuration",
	  V OS22 "sphinx: {}\n", ID_SPHINX_MISSING, NULL, NULL },
	{ "test_sphinx_without_explicit_configuration[conf.py]", HEAD, NULL,
	  NULL, NULL },
	{ "test_mkdocs_without_explicit_configuration", V OS22 "mkdocs: {}\n",
	  ID_MKDOCS_MISSING, NULL, NULL },
	{ "test_mkdocs_without_explicit_configuration[mkdocs.yml]",
	  V OS22 "mkdocs: {configuration: mkdocs.yml}\n", NULL, NULL, NULL },
	{ "test_config_without_sphinx_key",
	  V "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n"
	  "  jobs: {}\n",
	  ID_SPHINX_MISSING, NULL, NULL },
	{ "test_config_without_sphinx_key[create_environment]",
	  V "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n  jobs:\n"
	  "    create_environment: [\"echo 'Hello World'\"]\n",
	  NULL, NULL, NULL },
	{ "test_config_without_sphinx_key[install]",
	  V "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n  jobs:\n"
	  "    create_environment: [\"echo 'Hello World'\"]\n"
	  "    install: [\"echo 'Hello World'\"]\n",
	  NULL, NULL, NULL },
	{ "test_config_without_sphinx_key[build.html]",
	  V "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n  jobs:\n"
	  "    build: {html: [\"echo 'Hello World'\"]}\n",
	  NULL, NULL, NULL },
	{ "test_sphinx_and_mkdocs_arent_required_when_using_build_commands",
	  V "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n"
	  "  commands: [\"echo 'Hello World'\"]\n",
	  NULL, NULL, NULL },

	/* uv */
	{ "test_python_install_uv_sync_valid",
	  INSTALL("{method: uv, command: sync}"), NULL, NULL, NULL },
	{ "test_python_install_uv_pip_valid_with_requirements",
	  INSTALL("{method: uv, command: pip, requirements: requirements.txt}"),
	  NULL, NULL, NULL },
	{ "test_python_install_uv_pip_valid_with_path",
	  INSTALL("{method: uv, command: pip, path: .}"), NULL, NULL, NULL },
	{ "test_python_install_uv_sync_with_path",
	  INSTALL("{method: uv, command: sync, path: .}"), NULL, NULL, NULL },
	{ "test_python_install_uv_sync_with_groups",
	  INSTALL("{method: uv, command: sync, groups: [docs, dev]}"), NULL,
	  NULL, NULL },
	{ "test_python_install_uv_sync_with_groups_all",
	  INSTALL("{method: uv, command: sync, groups: all}"), NULL, NULL,
	  NULL },
	{ "test_python_install_uv_sync_with_extras",
	  INSTALL("{method: uv, command: sync, extras: [docs, tests]}"), NULL,
	  NULL, NULL },
	{ "test_python_install_uv_sync_with_extras_all",
	  INSTALL("{method: uv, command: sync, extras: all}"), NULL, NULL,
	  NULL },
	{ "test_python_install_uv_pip_with_extras",
	  INSTALL("{method: uv, command: pip, path: ., extras: [docs]}"), NULL,
	  NULL, NULL },
	{ "test_python_install_uv_command_required", INSTALL("{method: uv}"),
	  ID_UV_COMMAND, NULL, NULL },
	{ "test_python_install_uv_invalid_command",
	  INSTALL("{method: uv, command: invalid}"), ID_CHOICE,
	  "python.install.0.command", "choices=sync, pip" },
	{ "test_python_install_uv_sync_requirements_not_allowed",
	  INSTALL("{method: uv, command: sync, requirements: "
		  "requirements.txt}"),
	  ID_UV_SYNC_REQ, NULL, NULL },
	{ "test_python_install_uv_pip_groups_not_allowed",
	  INSTALL("{method: uv, command: pip, requirements: requirements.txt, "
		  "groups: [docs]}"),
	  ID_UV_PIP_GROUPS, NULL, NULL },
	{ "test_python_install_uv_pip_requires_requirements_or_path",
	  INSTALL("{method: uv, command: pip}"), ID_UV_PIP_NEEDS, NULL, NULL },
	{ "test_python_install_uv_multiple_entries_invalid",
	  HEAD "python:\n  install:\n    - {method: uv, command: sync}\n"
	  "    - {requirements: requirements.txt}\n",
	  ID_UV_MULTIPLE, NULL, NULL },
	{ "test_python_install_uv_sync_groups_empty_list_invalid",
	  INSTALL("{method: uv, command: sync, groups: []}"), ID_UV_EMPTY, NULL,
	  "field=groups" },
	{ "test_python_install_uv_sync_extras_empty_list_invalid",
	  INSTALL("{method: uv, command: sync, extras: []}"), ID_UV_EMPTY, NULL,
	  "field=extras" },
	{ "test_python_install_uv_sync_groups_invalid_type[1]",
	  INSTALL("{method: uv, command: sync, groups: 1}"), ID_UV_TYPE, NULL,
	  "field=groups" },
	{ "test_python_install_uv_sync_groups_invalid_type[True]",
	  INSTALL("{method: uv, command: sync, groups: true}"), ID_UV_TYPE,
	  NULL, "field=groups" },
	{ "test_python_install_uv_sync_groups_invalid_type[{key: val}]",
	  INSTALL("{method: uv, command: sync, groups: {key: val}}"),
	  ID_UV_TYPE, NULL, "field=groups" },
	{ "test_python_install_uv_sync_extras_invalid_type[1]",
	  INSTALL("{method: uv, command: sync, extras: 1}"), ID_UV_TYPE, NULL,
	  "field=extras" },
	{ "test_python_install_uv_sync_extras_invalid_type[True]",
	  INSTALL("{method: uv, command: sync, extras: true}"), ID_UV_TYPE,
	  NULL, "field=extras" },
	{ "test_python_install_uv_sync_extras_invalid_type[{key: val}]",
	  INSTALL("{method: uv, command: sync, extras: {key: val}}"),
	  ID_UV_TYPE, NULL, "field=extras" },
	{ "test_python_install_uv_pip_extras_invalid_type[1]",
	  INSTALL("{method: uv, command: pip, path: ., extras: 1}"), ID_UV_TYPE,
	  NULL, "field=extras" },
	{ "test_python_install_uv_pip_extras_invalid_type[True]",
	  INSTALL("{method: uv, command: pip, path: ., extras: true}"),
	  ID_UV_TYPE, NULL, "field=extras" },
	{ "test_python_install_uv_pip_extras_invalid_type[{key: val}]",
	  INSTALL("{method: uv, command: pip, path: ., extras: {key: val}}"),
	  ID_UV_TYPE, NULL, "field=extras" },
	{ "test_python_install_uv_pip_extras_empty_list_invalid",
	  INSTALL("{method: uv, command: pip, path: ., extras: []}"),
	  ID_UV_EMPTY, NULL, "field=extras" },
	{ "test_is_using_uv_false_with_pip", INSTALL("{path: ., method: pip}"),
	  NULL, NULL, NULL },

	/* test_validation.py, through the keys that use each validator */
	{ "TestValidateBool.test_it_accepts_true",
	  V OS22 "sphinx: {configuration: conf.py, fail_on_warning: true}\n",
	  NULL, NULL, NULL },
	{ "TestValidateBool.test_it_accepts_0",
	  V OS22 "sphinx: {configuration: conf.py, fail_on_warning: 0}\n", NULL,
	  NULL, NULL },
	{ "TestValidateBool.test_it_accepts_1",
	  V OS22 "sphinx: {configuration: conf.py, fail_on_warning: 1}\n", NULL,
	  NULL, NULL },
	{ "TestValidateBool.test_it_fails_on_string",
	  V OS22 "sphinx: {configuration: conf.py, fail_on_warning: \"random "
	  "string\"}\n",
	  ID_BOOL, "sphinx.fail_on_warning", "value=random string" },
	{ "TestValidateChoice.test_it_rejects_invalid_choice",
	  V OS22 "sphinx: {configuration: conf.py, builder: not-a-choice}\n",
	  ID_CHOICE, "sphinx.builder", NULL },
	{ "TestValidateList.test_it_rejects_string_types",
	  HEAD "formats: choice\n", ID_LIST, "formats", NULL },
	{ "TestValidatePath.test_it_accepts_relative_path",
	  HEAD "conda: {environment: \"a directory\"}\n", NULL, NULL, NULL },
	{ "TestValidatePath.test_it_only_accepts_strings",
	  HEAD "conda: {environment: null}\n", ID_STRING, "conda.environment",
	  NULL },
	{ "TestValidateString.test_it_accepts_unicode",
	  HEAD "submodules: {include: [\"Unic\xc3\xb6" "de\"]}\n", NULL, NULL,
	  NULL },
	{ "TestValidateString.test_it_rejects_float",
	  HEAD "submodules: {include: [123.456]}\n", ID_STRING,
	  "submodules.include", "value=123.456" },
	{ "TestValidateString.test_it_rejects_none",
	  HEAD "submodules: {include: [null]}\n", ID_STRING,
	  "submodules.include", NULL },

	/* test_parser.py, through the whole file */
	{ "test_parse_empty_config_file", "", ID_SYNTAX, NULL, NULL },
	{ "test_parse_invalid_yaml", "- - !asdf\n", ID_SYNTAX, NULL, NULL },
	{ "test_parse_bad_type", "Hello\n", ID_SYNTAX, NULL,
	  "error_message=Expected mapping" },
	{ "test_parse_single_config", HEAD "base: path\n", ID_KEY, "base",
	  NULL },
	{ "test_parse_null_value", HEAD "base: null\n", ID_KEY, "base", NULL },
	{ "test_parse_empty_value", HEAD "base:\n", ID_KEY, "base", NULL },
	{ "test_parse_empty_string_value", HEAD "base: \"\"\n", ID_KEY, "base",
	  NULL },
	{ "test_parse_empty_list", HEAD "base: []\n", ID_KEY, "base", NULL },
	{ "test_do_not_parse_multiple_configs_in_one_file",
	  "\nbase: path\n---\nbase: other_path\nname: second\nnested:\n"
	  "    works: true\n",
	  ID_SYNTAX, NULL, NULL },
};

/* What Lectern answers otherwise, on purpose (docs/decisions.md, "The
 * hosted service's config tests"): Lectern's answer, the service's in the
 * comment. */
static const struct service_case decided[] = {
	/* Service: accepted (validate_path takes any string). Lectern reads
	 * nothing outside the checkout. */
	{ "TestValidatePath.test_it_accepts_absolute_path",
	  HEAD "conda: {environment: /tmp/a directory}\n", ID_PATH,
	  "conda.environment", NULL },
	{ "validate_path with ..", HEAD "conda: {environment: ../env.yml}\n",
	  ID_PATH, "conda.environment", NULL },
	/* Service: accepted, the last of the duplicates wins. Lectern:
	 * a syntax error, as an anchor and a tag are. */
	{ "duplicate keys", HEAD "formats: []\nformats: [pdf]\n", ID_SYNTAX,
	  NULL, NULL },
	/* Service: config:base:invalid-key-name "conda" (a null section is
	 * left unread, so its key is extra); for sphinx: null,
	 * invalid-dict on "sphinx.builder". Lectern: the section must be a
	 * map. */
	{ "conda: null", HEAD "conda: null\n", ID_DICT, "conda", NULL },
	{ "mkdocs: null", V OS22 "mkdocs: null\n", ID_DICT, "mkdocs", NULL },
	{ "sphinx: null", V OS22 "sphinx: null\n", ID_DICT, "sphinx", NULL },
	/* Service: accepted (True == 1 and 2.0 == 2 are in its range of
	 * ranks). Lectern: a rank is an integer. */
	{ "search.ranking rank true",
	  HEAD "search: {ranking: {foo: true}}\n", ID_CHOICE, "search.ranking",
	  NULL },
	{ "search.ranking rank 2.0", HEAD "search: {ranking: {foo: 2.0}}\n",
	  ID_CHOICE, "search.ranking", NULL },
	/* Service: accepted (uv's groups and extras are checked as a list,
	 * not their items). Lectern: names are strings. */
	{ "uv groups of numbers",
	  INSTALL("{method: uv, command: sync, groups: [1]}"), ID_STRING,
	  "python.install.0.groups", NULL },
	/* Service (production): config:sphinx:missing-config, as its check of
	 * the generator configuration comes before the one of unknown keys.
	 * Lectern names the misspelt key first. */
	{ "test_strict_validation[typo] without the sphinx key",
	  V OS22 "typo: something\n", ID_KEY, "typo", NULL },
};

/* The file as its own checkout, for the cases that find it. */
static const char *shared_dir(void)
{
	static const char *dir;

	if (dir == NULL)
		dir = lec_test_tmpdir();
	return dir;
}

/* A format value's text, or NULL. */
static const char *format_value(const cJSON *problem, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(problem, "format_values"),
		name);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* One case: accepted, or refused with its message, key and value. */
static void run_case(const struct service_case *c)
{
	struct lec_rtd_config *cfg = NULL;
	char name[64], *json;
	const char *eq, *got;
	cJSON *problem;
	int rc = lec_rtd_config_parse(c->yaml, strlen(c->yaml), YML, &cfg);

	lec_rtd_config_free(cfg);
	if (c->id == NULL) {
		if (rc != LEC_OK)
			FAIL_AT("%s: refused (%s: %s)", c->name,
				lec_rtd_config_problem_id()
					? lec_rtd_config_problem_id()
					: "no id",
				lec_error_last());
		return;
	}
	if (rc != LEC_EINVALID) {
		FAIL_AT("%s: accepted (rc %d), expected %s", c->name, rc, c->id);
		return;
	}
	json = lec_rtd_config_problem_json();
	problem = cJSON_Parse(json ? json : "");
	got = lec_rtd_config_problem_id();
	if (got == NULL || strcmp(got, c->id) != 0)
		FAIL_AT("%s: %s, expected %s (%s)", c->name,
			got ? got : "no id", c->id, lec_error_last());
	else if (c->key && (format_value(problem, "key") == NULL ||
			    strcmp(format_value(problem, "key"), c->key) != 0))
		FAIL_AT("%s: key %s, expected %s", c->name,
			format_value(problem, "key") ? format_value(problem, "key")
						     : "none",
			c->key);
	if (c->also && (eq = strchr(c->also, '=')) != NULL) {
		snprintf(name, sizeof(name), "%.*s", (int)(eq - c->also),
			 c->also);
		got = format_value(problem, name);
		if (got == NULL || strcmp(got, eq + 1) != 0)
			FAIL_AT("%s: %s is %s, expected %s", c->name, name,
				got ? got : "missing", eq + 1);
	}
	cJSON_Delete(problem);
	lec__free(json);
}

TEST(the_services_config_cases)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
}

TEST(what_lectern_decided_otherwise)
{
	size_t i;

	for (i = 0; i < sizeof(decided) / sizeof(decided[0]); i++)
		run_case(&decided[i]);
}

/* test_search_valid_ranking: every rank from -10 to 10. */
TEST(every_rank_the_service_takes)
{
	struct service_case c = { "test_search_valid_ranking", NULL, NULL,
				  NULL, NULL };
	char yaml[512];
	int rank;

	for (rank = -10; rank <= 10; rank++) {
		snprintf(yaml, sizeof(yaml),
			 HEAD "search:\n  ranking:\n    foo/bar: %d\n"
			      "    bar/foo: %d\n",
			 rank, rank);
		c.yaml = yaml;
		run_case(&c);
	}
}

/* test_search_ranking_normilize_path and test_search_ignore_valid_type:
 * the pattern as the service normalises it. */
TEST(path_patterns_normalised_as_the_service_does)
{
	static const char *const pairs[][2] = {
		{ "/foo/bar", "foo/bar" },	   { "///foo//bar", "foo/bar" },
		{ "///foo//bar/", "foo/bar" },	   { "/foo/bar/../", "foo" },
		{ "/foo*", "foo*" },		   { "/foo/bar/*", "foo/bar/*" },
		{ "/foo/bar?/*", "foo/bar?/*" },   { "foo/[bc]ar/*/",
						     "foo/[bc]ar/*" },
		{ "*", "*" },			   { "index.html", "index.html" },
	};
	struct lec_rtd_config *c = NULL;
	char yaml[512];
	size_t i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		snprintf(yaml, sizeof(yaml),
			 HEAD "search:\n  ranking: {\"%s\": 1}\n"
			      "  ignore: [\"%s\"]\n",
			 pairs[i][0], pairs[i][0]);
		CHECK_OK(lec_rtd_config_parse(yaml, strlen(yaml), YML, &c));
		if (c == NULL)
			continue;
		CHECK_INT(c->ranking_patterns.len, 1);
		CHECK_STR(c->ranking_patterns.items[0], pairs[i][1]);
		CHECK_INT(c->ranking_values[0], 1);
		CHECK_INT(c->search_ignore.len, 1);
		CHECK_STR(c->search_ignore.items[0], pairs[i][1]);
		lec_rtd_config_free(c);
		c = NULL;
	}
}

/* test_sphinx_builder_check_valid, test_sphinx_is_default_doc_type,
 * test_mkdocs_configuration_check_valid: the doctype each gives. */
TEST(doctypes_as_the_service_names_them)
{
	static const char *const pairs[][2] = {
		{ HEAD, "sphinx" },
		{ V OS22 "sphinx: {builder: html, configuration: conf.py}\n",
		  "sphinx" },
		{ V OS22 "sphinx: {builder: htmldir, configuration: conf.py}\n",
		  "sphinx_htmldir" },
		{ V OS22 "sphinx: {builder: dirhtml, configuration: conf.py}\n",
		  "sphinx_htmldir" },
		{ V OS22 "sphinx: {builder: singlehtml, configuration: "
			 "conf.py}\n",
		  "sphinx_singlehtml" },
		{ V OS22 "mkdocs: {configuration: mkdocs.yml}\n", "mkdocs" },
		{ V "build:\n  os: ubuntu-22.04\n  commands: [make]\n",
		  "generic" },
	};
	struct lec_rtd_config *c = NULL;
	size_t i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		CHECK_OK(lec_rtd_config_parse(pairs[i][0], strlen(pairs[i][0]),
					      YML, &c));
		if (c)
			CHECK_STR(lec_doctype_code(c->doctype), pairs[i][1]);
		lec_rtd_config_free(c);
		c = NULL;
	}
}

/* test_as_dict_new_build_config: the config object as the service
 * stores it, but for full_version, which Lectern leaves null (it
 * installs no tool; docs/decisions.md). */
TEST(the_config_object_as_the_service_stores_it)
{
	static const char yaml[] =
		"version: 2\nformats: [pdf]\nbuild:\n  os: ubuntu-24.04\n"
		"  tools:\n    python: \"3.9\"\n    nodejs: \"16\"\n"
		"python:\n  install:\n    - requirements: requirements.txt\n"
		SPHINX;
	static const char expected[] =
		"{\"version\": \"2\", \"formats\": [\"pdf\"],"
		" \"python\": {\"install\": [{\"requirements\":"
		" \"requirements.txt\"}]},"
		" \"build\": {\"os\": \"ubuntu-24.04\", \"tools\": {"
		"\"python\": {\"version\": \"3.9\", \"full_version\": null},"
		" \"nodejs\": {\"version\": \"16\", \"full_version\": null}},"
		" \"commands\": [], \"jobs\": {\"pre_checkout\": [],"
		" \"post_checkout\": [], \"pre_system_dependencies\": [],"
		" \"post_system_dependencies\": [], \"pre_create_environment\":"
		" [], \"create_environment\": null,"
		" \"post_create_environment\": [], \"pre_install\": [],"
		" \"install\": null, \"post_install\": [], \"pre_build\": [],"
		" \"build\": {\"html\": null, \"pdf\": null, \"epub\": null,"
		" \"htmlzip\": null}, \"post_build\": []},"
		" \"apt_packages\": []},"
		" \"conda\": null,"
		" \"sphinx\": {\"builder\": \"sphinx\", \"configuration\":"
		" \"conf.py\", \"fail_on_warning\": false},"
		" \"mkdocs\": null, \"doctype\": \"sphinx\","
		" \"submodules\": {\"include\": [], \"exclude\": \"all\","
		" \"recursive\": false},"
		" \"search\": {\"ranking\": {}, \"ignore\": [\"search.html\","
		" \"search/index.html\", \"404.html\", \"404/index.html\"]}}";
	struct lec_rtd_config *c = NULL;
	cJSON *got = NULL, *want = cJSON_Parse(expected);
	char *json = NULL;

	CHECK_OK(lec_rtd_config_parse(yaml, sizeof(yaml) - 1, YML, &c));
	if (c && (json = lec_rtd_config_json(c)) != NULL)
		got = cJSON_Parse(json);
	CHECK(want != NULL);
	if (!cJSON_Compare(got, want, 1))
		FAIL_AT("got %s", json ? json : "(null)");
	/* The service's full versions are known, and said in the log. */
	CHECK_STR(lec_rtd_tool_full_version("python", "3.9"), "3.9.25");
	CHECK_STR(lec_rtd_tool_full_version("nodejs", "16"), "16.20.2");
	CHECK(lec_rtd_tool_full_version("python", "3.1O") == NULL);
	cJSON_Delete(got);
	cJSON_Delete(want);
	lec__free(json);
	lec_rtd_config_free(c);
}

/* Finding the file ----------------------------------------------------------- */

static void put_file(const char *dir, const char *rel, const char *text)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (strchr(rel, '/')) {
		char sub[1024];

		snprintf(sub, sizeof(sub), "%s/%.*s", dir,
			 (int)(strrchr(rel, '/') - rel), rel);
		mkdir(sub, 0755);
	}
	lec_test_put(dir, rel, text);
}

/* test_load_no_config_file: none of these is the file the service looks
 * for at the root, config:path:default-not-found. */
TEST(no_config_file_as_the_service_finds_none)
{
	static const char *const layouts[] = {
		"readthedocs.ymlmore",	     "first/readthedocs.yml",
		"startreadthedocs.yml",	     "second/confuser.txt",
		"noroot/readthedocs.ymlmore", "third/readthedocs.yml",
		"noroot/startreadthedocs.yml", "fourth/samplefile.yaml",
		"readthebots.yaml",	     "fifth/readthedocs.yml",
	};
	char *rel = NULL;
	size_t i;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		const char *dir = lec_test_tmpdir();

		put_file(dir, layouts[i], "content");
		CHECK_ERR(lec_rtd_config_find(dir, NULL, &rel), LEC_ENOTFOUND);
		if (lec_rtd_config_problem_id() == NULL ||
		    strcmp(lec_rtd_config_problem_id(),
			   "config:path:default-not-found") != 0)
			FAIL_AT("%s: %s", layouts[i],
				lec_rtd_config_problem_id()
					? lec_rtd_config_problem_id()
					: "no id");
	}
}

/* test_config_filenames_regex: each default name is found; and
 * test_load_non_default_filename / test_load_non_yaml_extension: the
 * project's path is read instead of a default file that would fail. */
TEST(config_file_names_as_the_service_finds_them)
{
	static const char *const names[] = { "readthedocs.yml",
					     "readthedocs.yaml",
					     ".readthedocs.yml",
					     ".readthedocs.yaml" };
	static const char good[] = "version: 2\nbuild:\n  os: \"ubuntu-22.04\"\n"
				   "  tools:\n    python: \"3\"\n" SPHINX;
	struct lec_rtd_config *c = NULL;
	const char *dir;
	char *rel = NULL;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		dir = lec_test_tmpdir();
		put_file(dir, names[i], good);
		CHECK_OK(lec_rtd_config_find(dir, NULL, &rel));
		CHECK_STR(rel, names[i]);
		lec__free(rel);
		rel = NULL;
	}
	dir = shared_dir();
	put_file(dir, ".readthedocs.yaml", "illegal syntax but should not load");
	put_file(dir, "myconfig.yaml", good);
	put_file(dir, "subdir/.readthedocs.skrammel", good);
	CHECK_OK(lec_rtd_config_find(dir, "myconfig.yaml", &rel));
	CHECK_OK(lec_rtd_config_load(dir, rel, &c));
	lec_rtd_config_free(c);
	lec__free(rel);
	CHECK_OK(lec_rtd_config_find(dir, "subdir/.readthedocs.skrammel", &rel));
	CHECK_OK(lec_rtd_config_load(dir, rel, &c));
	lec_rtd_config_free(c);
	lec__free(rel);
	/* The default there is what the service would refuse to parse. */
	CHECK_OK(lec_rtd_config_find(dir, NULL, &rel));
	CHECK_ERR(lec_rtd_config_load(dir, rel, &c), LEC_EINVALID);
	CHECK_STR(lec_rtd_config_problem_id(), "config:base:invalid-syntax");
	lec__free(rel);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(the_services_config_cases),
	TEST_ENTRY(what_lectern_decided_otherwise),
	TEST_ENTRY(every_rank_the_service_takes),
	TEST_ENTRY(path_patterns_normalised_as_the_service_does),
	TEST_ENTRY(doctypes_as_the_service_names_them),
	TEST_ENTRY(the_config_object_as_the_service_stores_it),
	TEST_ENTRY(no_config_file_as_the_service_finds_none),
	TEST_ENTRY(config_file_names_as_the_service_finds_them),
};

LEC_TEST_MAIN(tests)
