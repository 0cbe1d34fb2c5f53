/*
 * .readthedocs.yaml: every rule of notes §5.5 with its exact message (file,
 * line, key), valid files of each doc type (§5.4), the config JSON compared
 * whole, finding the file, and damaged files (truncated, bit-flipped, out of
 * memory) that must fail cleanly, never crash or leak.
 */
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "harness.h"
#include "internal.h"
#include "lectern/rtdconfig.h"

#define YML ".readthedocs.yaml"

/* The valid head most error cases start from (5 lines). */
#define BODY                                                                 \
	"build:\n"                                                           \
	"  os: ubuntu-24.04\n"                                               \
	"  tools: {python: \"3.12\"}\n"                                      \
	"sphinx: {configuration: docs/conf.py}\n"
#define HEAD "version: 2\n" BODY

/* The python versions the service offers, as its messages list them. */
#define PYTHONS                                                              \
	"2.7, 3.6, 3.7, 3.8, 3.9, 3.10, 3.11, 3.12, 3.13, 3.14, "             \
	"miniconda3-4.7, miniconda3-3.12-24.1, miniconda3-3.12-24.9, "        \
	"mambaforge-4.10, mambaforge-22.9, mambaforge-23.11, "                \
	"miniforge3-25.11, miniforge3-26.3, 3, latest, miniconda-latest, "    \
	"mambaforge-latest, miniforge3-latest"

/* One directory for the many one-file cases (the harness has a limited
 * number of temporary directories). */
static const char *shared_dir(void)
{
	static const char *dir;

	if (dir == NULL)
		dir = lec_test_tmpdir();
	return dir;
}

static void write_file(const char *dir, const char *name, const char *data,
		       size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(data, 1, len, f) != len) {
		perror(path);
		exit(2);
	}
	fclose(f);
}

/* Load text as the checkout's .readthedocs.yaml. */
static int load_len(const char *text, size_t len, struct lec_rtd_config **out)
{
	write_file(shared_dir(), YML, text, len);
	return lec_rtd_config_load(shared_dir(), YML, out);
}

static int load(const char *text, struct lec_rtd_config **out)
{
	return load_len(text, strlen(text), out);
}

/* Parse JSON text and compare it with the expected JSON, whole. */
static int json_equal(const char *got, const char *expected)
{
	cJSON *a = cJSON_Parse(got), *b = cJSON_Parse(expected);
	int same = a && b && cJSON_Compare(a, b, 1);

	if (!same)
		fprintf(stderr, "  got:      %s\n  expected: %s\n",
			got ? got : "(null)", expected);
	cJSON_Delete(a);
	cJSON_Delete(b);
	return same;
}

/* Errors ------------------------------------------------------------------- */

struct bad_case {
	const char *yaml;
	const char *message;
};

static const struct bad_case bad_cases[] = {
	/* version */
	{ "version: 1\n" BODY,
	  YML ":1: version: only version 2 is supported, got an integer (1)" },
	{ HEAD "pyton:\n  version: \"3.8\"\n",
	  YML ":6: pyton.version: unknown key" },
	{ BODY "version: '3'\n",
	  YML ":5: version: only version 2 is supported, got a string ('3')" },
	/* formats */
	{ HEAD "formats: [pdf, mobi]\n",
	  YML ":6: formats: expected one of htmlzip, pdf, epub, got a string "
	      "('mobi')" },
	{ HEAD "formats: pdf\n",
	  YML ":6: formats: expected a list of htmlzip, pdf, epub or 'all', "
	      "got a string ('pdf')" },
	{ HEAD "formats:\n",
	  YML ":6: formats: expected a list of htmlzip, pdf, epub or 'all', "
	      "got null" },
	/* build.os */
	{ "version: 2\nsphinx: {configuration: conf.py}\n",
	  YML ":1: build.os: is required: one of ubuntu-22.04, ubuntu-24.04, "
	      "ubuntu-26.04, ubuntu-lts-latest" },
	{ "version: 2\nbuild:\n  tools: {python: \"3\"}\n",
	  YML ":2: build.os: is required: one of ubuntu-22.04, ubuntu-24.04, "
	      "ubuntu-26.04, ubuntu-lts-latest" },
	{ "build:\n  os: ubuntu-20.04\n  tools: {python: \"3\"}\n",
	  YML ":2: build.os: expected one of ubuntu-22.04, ubuntu-24.04, "
	      "ubuntu-26.04, ubuntu-lts-latest, got a string ('ubuntu-20.04')" },
	{ "build:\n  - os\n", YML ":2: build: expected a map, got a list" },
	{ "build: ubuntu\n",
	  YML ":1: build: expected a map, got a string ('ubuntu')" },
	{ HEAD "conda: {environment: env.yml}\nx: 1\n",
	  YML ":7: x: unknown key" },
	{ "build:\n  os: ubuntu-22.04\n  image: latest\n  tools: {python: "
	  "\"3\"}\nsphinx: {configuration: conf.py}\n",
	  YML ":3: build.image: unknown key" },
	/* build.tools */
	{ "build:\n  os: ubuntu-22.04\n  tools:\n    python: \"3\"\n    java: "
	  "\"17\"\n",
	  YML ":5: build.tools: expected one of python, nodejs, ruby, rust, "
	      "golang, got 'java'" },
	{ "build:\n  os: ubuntu-22.04\n  tools:\n    python: 3.10\n",
	  YML ":4: build.tools.python: expected one of " PYTHONS ", got a "
	      "number (3.10); write it as a string: \"3.10\"" },
	{ "build:\n  os: ubuntu-22.04\n  tools:\n    python: \"3.1O\"\n",
	  YML ":4: build.tools.python: expected one of " PYTHONS ", got a "
	      "string ('3.1O')" },
	{ "build:\n  os: ubuntu-22.04\n  tools:\n    python: \"2.6\"\n",
	  YML ":4: build.tools.python: expected one of " PYTHONS ", got a "
	      "string ('2.6')" },
	{ "build:\n  os: ubuntu-22.04\n  tools:\n    nodejs: \"20 lts\"\n",
	  YML ":4: build.tools.nodejs: expected one of 14, 16, 18, 19, 20, 22, "
	      "23, 24, 25, 26, latest, got a string ('20 lts')" },
	{ "build:\n  os: ubuntu-22.04\n  tools:\n    nodejs: \"21\"\n",
	  YML ":4: build.tools.nodejs: expected one of 14, 16, 18, 19, 20, 22, "
	      "23, 24, 25, 26, latest, got a string ('21')" },
	{ "build:\n  os: ubuntu-22.04\n  tools:\n    golang: \"1.0\"\n",
	  YML ":4: build.tools.golang: expected one of 1.17, 1.18, 1.19, 1.20, "
	      "1.21, 1.22, 1.23, 1.24, 1.25, 1.26, latest, got a string "
	      "('1.0')" },
	{ "build:\n  os: ubuntu-22.04\n  tools: [python]\n",
	  YML ":3: build.tools: expected a map, got a list" },
	{ "build:\n  os: ubuntu-22.04\n  tools: {}\n",
	  YML ":1: build: at least one of build.tools or build.commands is "
	      "required" },
	{ "\nbuild:\n  os: ubuntu-22.04\n  commands: []\n",
	  YML ":2: build: at least one of build.tools or build.commands is "
	      "required" },
	/* build.jobs / build.commands */
	{ "build:\n  os: ubuntu-22.04\n  jobs:\n    post_build: [x]\n  "
	  "commands: [make]\n",
	  YML ":5: build.commands: build.jobs and build.commands cannot be "
	      "used together" },
	{ "build:\n  os: ubuntu-22.04\n  commands: [make]\n  jobs:\n    "
	  "post_build: [x]\n",
	  YML ":4: build.jobs: build.jobs and build.commands cannot be used "
	      "together" },
	{ "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n  jobs:\n"
	  "    post_build: [x]\n    pre_deploy: [y]\n",
	  YML ":6: build.jobs: expected one of pre_checkout, post_checkout, "
	      "pre_system_dependencies, post_system_dependencies, "
	      "pre_create_environment, create_environment, "
	      "post_create_environment, pre_install, install, post_install, "
	      "pre_build, build, post_build, got 'pre_deploy'" },
	{ "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n  jobs:\n"
	  "    build:\n      html: [a]\n      pdf: [b]\n",
	  YML ":7: build.jobs.build.pdf: needs 'pdf' in formats" },
	{ "formats: [epub]\nbuild:\n  os: ubuntu-22.04\n  tools: {python: "
	  "\"3\"}\n  jobs:\n    build:\n      epub: [b]\n      htmlzip: [c]\n",
	  YML ":8: build.jobs.build.htmlzip: needs 'htmlzip' in formats" },
	{ "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n  jobs:\n"
	  "    build:\n      man: [a]\n",
	  YML ":6: build.jobs.build: expected one of html, pdf, epub, htmlzip, "
	      "got 'man'" },
	{ "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n  jobs:\n"
	  "    build: [a]\n",
	  YML ":5: build.jobs.build: expected a map, got a list" },
	{ "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n  jobs:\n"
	  "    post_build: make html\n",
	  YML ":5: build.jobs.post_build: expected a list, got a string ('make "
	      "html')" },
	{ "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n  jobs:\n"
	  "    pre_build:\n      - echo\n      - 42\n",
	  YML ":7: build.jobs.pre_build: expected a string, got an integer "
	      "(42)" },
	{ "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n  jobs:\n",
	  YML ":4: build.jobs: expected a map, got null" },
	{ "build:\n  os: ubuntu-22.04\n  commands: make html\n",
	  YML ":3: build.commands: expected a list, got a string ('make "
	      "html')" },
	{ "build:\n  os: ubuntu-22.04\n  commands:\n    - make\n    - {a: b}\n",
	  YML ":5: build.commands: expected a string, got a map" },
	/* build.apt_packages */
	{ HEAD "build:\n", YML ":6: build: duplicate key (first on line 2)" },
	{ "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n  "
	  "apt_packages: [graphviz, -oFoo]\n",
	  YML ":4: build.apt_packages.1: the package name '-oFoo' cannot "
	      "start with '-'" },
	{ "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n  "
	  "apt_packages:\n    - ./local.deb\n",
	  YML ":5: build.apt_packages.0: the package name './local.deb' cannot "
	      "start with '.'" },
	{ "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n  "
	  "apt_packages:\n    - /tmp/x.deb\n",
	  YML ":5: build.apt_packages.0: the package name '/tmp/x.deb' cannot "
	      "start with '/'" },
	{ "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n  "
	  "apt_packages:\n    - libfoo;rm\n",
	  YML ":5: build.apt_packages.0: 'libfoo;rm' is not a valid package "
	      "name" },
	{ "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n  "
	  "apt_packages: graphviz\n",
	  YML ":4: build.apt_packages: expected a list, got a string "
	      "('graphviz')" },
	/* conda */
	{ "build:\n  os: ubuntu-22.04\n  tools:\n    python: miniconda3-4.7\n",
	  YML ":4: conda: conda.environment is required when "
	      "build.tools.python is a conda or mamba version" },
	{ "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\nconda: {}\n",
	  YML ":4: conda.environment: is required" },
	{ "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\nconda:\n",
	  YML ":4: conda: expected a map, got null" },
	{ "build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\nconda:\n  "
	  "environment: /etc/env.yml\n",
	  YML ":5: conda.environment: '/etc/env.yml' must be relative to the "
	      "repository root" },
	/* python.install */
	{ HEAD "python: [install]\n",
	  YML ":6: python: expected a map, got a list" },
	{ HEAD "python:\n  install: {requirements: r.txt}\n",
	  YML ":7: python.install: expected a list, got a map" },
	{ HEAD "python:\n  install:\n    - method: pip\n",
	  YML ":8: python.install.0: needs requirements or path" },
	{ HEAD "python:\n  install:\n    - requirements: ../r.txt\n",
	  YML ":8: python.install.0.requirements: '../r.txt' leaves the "
	      "repository" },
	{ HEAD "python:\n  install:\n    - requirements: docs/r.txt\n      "
	  "method: pip\n",
	  YML ":9: python.install.0.method: unknown key" },
	{ HEAD "python:\n  install:\n    - requirements: 5\n",
	  YML ":8: python.install.0.requirements: expected a string, got an "
	      "integer (5)" },
	{ HEAD "python:\n  install:\n    - path: .\n      method: conda\n",
	  YML ":9: python.install.0.method: expected one of pip, setuptools, "
	      "uv, got a string ('conda')" },
	{ HEAD "python:\n  install:\n    - path: .\n      method: setuptools\n"
	  "      extra_requirements: [docs]\n",
	  YML ":10: python.install.0.extra_requirements: needs method: pip" },
	{ HEAD "python:\n  install:\n    - path: .\n      extra: [docs]\n",
	  YML ":9: python.install.0.extra: unknown key" },
	{ HEAD "python:\n  install:\n    - method: uv\n      path: .\n",
	  YML ":8: python.install.0.command: is required with method: uv (sync "
	      "or pip)" },
	{ HEAD "python:\n  install:\n    - method: uv\n      command: sync\n"
	  "      requirements: r.txt\n",
	  YML ":10: python.install.0.requirements: cannot be used with "
	      "command: sync" },
	{ HEAD "python:\n  install:\n    - method: uv\n      command: pip\n"
	  "      path: .\n      groups: [docs]\n",
	  YML ":11: python.install.0.groups: cannot be used with command: "
	      "pip" },
	{ HEAD "python:\n  install:\n    - method: uv\n      command: pip\n",
	  YML ":8: python.install.0: command: pip needs requirements or path" },
	{ HEAD "python:\n  install:\n    - method: uv\n      command: pip\n"
	  "      path: .\n      requirements: r.txt\n",
	  YML ":11: python.install.0.requirements: cannot be used together "
	      "with path" },
	{ HEAD "python:\n  install:\n    - method: uv\n      command: sync\n"
	  "      groups: []\n",
	  YML ":10: python.install.0.groups: must not be empty" },
	{ HEAD "python:\n  install:\n    - method: uv\n      command: sync\n"
	  "      extras: 5\n",
	  YML ":10: python.install.0.extras: expected a list or 'all', got an "
	      "integer (5)" },
	{ HEAD "python:\n  install:\n    - method: uv\n      command: build\n",
	  YML ":9: python.install.0.command: expected one of sync, pip, got a "
	      "string ('build')" },
	{ HEAD "python:\n  install:\n    - requirements: r.txt\n    - method: "
	  "uv\n      command: sync\n",
	  YML ":9: python.install: a uv entry must be the only entry" },
	/* sphinx / mkdocs */
	{ HEAD "mkdocs: {configuration: mkdocs.yml}\n",
	  YML ":6: mkdocs: cannot be used together with sphinx" },
	{ "mkdocs: {configuration: mkdocs.yml}\nbuild: {os: ubuntu-22.04, "
	  "tools: {python: \"3\"}}\nsphinx: {}\n",
	  YML ":3: sphinx: cannot be used together with mkdocs" },
	{ "build: {os: ubuntu-22.04, tools: {python: \"3\"}}\nsphinx:\n  "
	  "builder: latex\n  configuration: conf.py\n",
	  YML ":3: sphinx.builder: expected one of html, htmldir, dirhtml, "
	      "singlehtml, got a string ('latex')" },
	{ "build: {os: ubuntu-22.04, tools: {python: \"3\"}}\nsphinx:\n  "
	  "configuration: docs/config.py\n",
	  YML ":3: sphinx.configuration: must name a conf.py file, got "
	      "'docs/config.py'" },
	{ "build: {os: ubuntu-22.04, tools: {python: \"3\"}}\nsphinx:\n  "
	  "configuration: conf.py\n  fail_on_warning: 'true'\n",
	  YML ":4: sphinx.fail_on_warning: expected true or false, got a "
	      "string ('true')" },
	{ "build: {os: ubuntu-22.04, tools: {python: \"3\"}}\nsphinx:\n  "
	  "builder: dirhtml\n",
	  YML ":2: sphinx.configuration: is required: the path of your "
	      "conf.py" },
	{ "build: {os: ubuntu-22.04, tools: {python: \"3\"}}\nsphinx:\n",
	  YML ":2: sphinx: expected a map, got null" },
	{ "build: {os: ubuntu-22.04, tools: {python: \"3\"}}\nmkdocs:\n  "
	  "fail_on_warning: true\n",
	  YML ":2: mkdocs.configuration: is required: the path of your "
	      "mkdocs.yml" },
	{ "build: {os: ubuntu-22.04, tools: {python: \"3\"}}\nmkdocs:\n  "
	  "configuration: mkdocs.yml\n  fail_on_warning: 2\n",
	  YML ":4: mkdocs.fail_on_warning: expected true or false, got an "
	      "integer (2)" },
	{ "# docs\nbuild: {os: ubuntu-22.04, tools: {python: \"3\"}}\n",
	  YML ":2: sphinx.configuration: is required: the path of your conf.py "
	      "(or use mkdocs.configuration, build.commands or build.jobs)" },
	{ HEAD "sphinx: {configuration: conf.py}\n",
	  YML ":6: sphinx: duplicate key (first on line 5)" },
	{ "build: {os: ubuntu-22.04, tools: {python: \"3\"}}\nsphinx:\n  "
	  "configuration: conf.py\n  theme: alabaster\n",
	  YML ":4: sphinx.theme: unknown key" },
	/* A misspelt key is named before the required one is missed. */
	{ "build: {os: ubuntu-22.04, tools: {python: \"3\"}}\nsphinx:\n  "
	  "configuraton: conf.py\n",
	  YML ":3: sphinx.configuraton: unknown key" },
	/* The pipeline's bad-config case. */
	{ "version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: "
	  "'3'\nsphinx:\n  bogus: 1\n",
	  YML ":7: sphinx.bogus: unknown key" },
	/* submodules */
	{ HEAD "submodules:\n  include: [a]\n  exclude: [b]\n",
	  YML ":8: submodules: include and exclude cannot be used together" },
	{ HEAD "submodules:\n  include: all\n  exclude: all\n",
	  YML ":8: submodules: include and exclude cannot be used together" },
	{ HEAD "submodules:\n  include: a\n",
	  YML ":7: submodules.include: expected a list, got a string ('a')" },
	{ HEAD "submodules:\n  recursive: 'yes'\n",
	  YML ":7: submodules.recursive: expected true or false, got a string "
	      "('yes')" },
	/* search */
	{ HEAD "search:\n  ranking:\n    api/*: 11\n",
	  YML ":8: search.ranking: the rank of 'api/*' must be an integer from "
	      "-10 to 10, got an integer (11)" },
	{ HEAD "search:\n  ranking:\n    api/*: '5'\n",
	  YML ":8: search.ranking: the rank of 'api/*' must be an integer from "
	      "-10 to 10, got a string ('5')" },
	{ HEAD "search:\n  ranking:\n    /: 1\n",
	  YML ":8: search.ranking: '/' is not a valid path pattern" },
	{ HEAD "search:\n  ranking:\n    404: 1\n",
	  YML ":8: search.ranking: expected a path pattern, got '404'" },
	{ HEAD "search:\n  ranking: [a]\n",
	  YML ":7: search.ranking: expected a map, got a list" },
	{ HEAD "search:\n  ignore: 404.html\n",
	  YML ":7: search.ignore: expected a list, got a string ('404.html')" },
	{ HEAD "search:\n  ignore:\n    - a/..\n",
	  YML ":8: search.ignore: 'a/..' is not a valid path pattern" },
	{ HEAD "search:\n  ignore: [a]\n  boost: 2\n",
	  YML ":8: search.boost: unknown key" },
	/* The YAML itself */
	{ HEAD "base: &b {a: 1}\n",
	  YML ":6: base: anchors and aliases are not supported" },
	{ HEAD "formats: *b\n",
	  YML ":6: formats: anchors and aliases are not supported" },
	{ HEAD "x: !!python/object:os.system ls\n",
	  YML ":6: x: the YAML tag tag:yaml.org,2002:python/object:os.system "
	      "is not supported" },
	{ HEAD "? [a]\n: b\n",
	  YML ":6: a key must be a plain value, not a map or a list" },
	{ "version: 2\nbuild:\n  os: [ubuntu\n",
	  YML ":4: invalid YAML: did not find expected ',' or ']' (while "
	      "parsing a flow sequence)" },
	{ "version: 2\n  build: x\n",
	  YML ":2: invalid YAML: mapping values are not allowed in this "
	      "context" },
	{ "version: 2\n\tbuild: x\n",
	  YML ":2: invalid YAML: found a tab character that violates "
	      "indentation (while scanning a plain scalar)" },
	{ "", YML ":1: the file is empty" },
	{ "# nothing\n\n", YML ":1: the file is empty" },
	{ "{}\n", YML ":1: the file is empty" },
	{ "---\n", YML ":1: the file is empty" },
	{ "- version\n- 2\n", YML ":1: expected a map of keys at the top level" },
	{ "just text\n", YML ":1: expected a map of keys at the top level" },
	{ HEAD "---\nversion: 2\n",
	  YML ":6: the file holds more than one YAML document" },
	{ HEAD "x: \"a\\0b\"\n", YML ":6: x: a value contains a NUL character" },
	{ HEAD "x: \x01\n",
	  YML ":6: invalid YAML: control characters are not allowed" },
};

/* A refusal has the service's message, one more specific than its
 * generic one, whose text can be made. */
static void check_service_message(size_t i)
{
	const char *id = lec_rtd_config_problem_id();
	char *json = lec_rtd_config_problem_json();
	char *mid = NULL, *header = NULL, *body = NULL, *text;

	if (id == NULL || strcmp(id, "config:generic") == 0 || json == NULL)
		FAIL_AT("case %zu: the service's message is %s", i,
			id ? id : "missing");
	else if (lec_rtd_problem_message(json, &mid, &header, &body) < 0 ||
		 strcmp(mid, id) != 0 || (text = lec_rtd_problem_text(json)) ==
						 NULL)
		FAIL_AT("case %zu: %s has no text: %s", i, id,
			lec_error_last());
	else
		lec__free(text);
	lec__free(mid);
	lec__free(header);
	lec__free(body);
	lec__free(json);
}

TEST(every_rule_has_its_message)
{
	struct lec_rtd_config *c = NULL;
	size_t i;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		int rc = load(bad_cases[i].yaml, &c);

		if (rc != LEC_EINVALID)
			FAIL_AT("case %zu returned %d, expected LEC_EINVALID",
				i, rc);
		if (strcmp(lec_error_last(), bad_cases[i].message) != 0)
			FAIL_AT("case %zu:\n    got      %s\n    expected %s",
				i, lec_error_last(), bad_cases[i].message);
		CHECK(c == NULL);
		check_service_message(i);
		lec_rtd_config_free(c);
		c = NULL;
	}
}

TEST(not_utf8_names_the_line)
{
	struct lec_rtd_config *c = NULL;

	CHECK_ERR(load(HEAD "x: caf\xe9\n", &c), LEC_EINVALID);
	CHECK_STR(lec_error_last(), YML ":6: the file is not valid UTF-8");
	/* An overlong '/' and a UTF-16 surrogate are not UTF-8 either. */
	CHECK_ERR(load("a: \xc0\xaf\n", &c), LEC_EINVALID);
	CHECK_STR(lec_error_last(), YML ":1: the file is not valid UTF-8");
	CHECK_ERR(load("\n\na: \xed\xa0\x80\n", &c), LEC_EINVALID);
	CHECK_STR(lec_error_last(), YML ":3: the file is not valid UTF-8");
	/* A UTF-16 file (with its byte order mark) is refused too. */
	CHECK_ERR(load_len("\xff\xfev\0", 4, &c), LEC_EINVALID);
	CHECK_STR(lec_error_last(), YML ":1: the file is not valid UTF-8");
	/* A UTF-8 byte order mark and non-ASCII text are fine. */
	CHECK_ERR(load("\xef\xbb\xbf" HEAD "build:\n", &c), LEC_EINVALID);
	CHECK_STR(lec_error_last(), YML ":6: build: duplicate key (first on "
					"line 2)");
	CHECK_OK(load(HEAD "submodules: {include: [\"d\xc3\xa9j\xc3\xa0\"]}\n",
		      &c));
	if (c)
		CHECK_STR(c->submodules_include.items[0], "d\xc3\xa9j\xc3\xa0");
	lec_rtd_config_free(c);
}

TEST(limits_are_enforced)
{
	struct lec_rtd_config *c = NULL;
	struct lec__buf b = LEC__BUF_INIT;
	char *text;
	int i;

	/* Deep nesting stops at the limit, not at the end of the stack. */
	lec__buf_puts(&b, HEAD "x: ");
	for (i = 0; i < 10000; i++)
		lec__buf_puts(&b, "[");
	text = lec__buf_take(&b);
	CHECK_ERR(load(text, &c), LEC_EINVALID);
	CHECK_STR(lec_error_last(),
		  YML ":6: x.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0: nested too deeply "
		      "(more than 16 levels)");
	lec__free(text);

	/* A file over the size cap is refused before it is parsed. */
	text = lec__malloc(LEC_RTD_CONFIG_MAX_BYTES + 2);
	memset(text, '#', LEC_RTD_CONFIG_MAX_BYTES + 1);
	text[LEC_RTD_CONFIG_MAX_BYTES + 1] = '\0';
	CHECK_ERR(load(text, &c), LEC_EINVALID);
	CHECK_STR(lec_error_last(),
		  YML ":1: the file is larger than 1048576 bytes");
	/* At the cap it is read (and here, empty). */
	text[LEC_RTD_CONFIG_MAX_BYTES] = '\0';
	CHECK_ERR(load(text, &c), LEC_EINVALID);
	CHECK_STR(lec_error_last(), YML ":1: the file is empty");
	lec__free(text);

	/* Too many values, and too many keys in one map. */
	lec__buf_puts(&b, HEAD "x: [");
	for (i = 0; i < 60000; i++)
		lec__buf_puts(&b, "0,");
	lec__buf_puts(&b, "]\n");
	text = lec__buf_take(&b);
	CHECK_ERR(load(text, &c), LEC_EINVALID);
	/* Keys count too: the head and x hold 17 values. */
	CHECK_STR(lec_error_last(),
		  YML ":6: x.49983: too many values (more than 50000)");
	lec__free(text);
	lec__buf_puts(&b, HEAD "search:\n  ranking:\n");
	for (i = 0; i < 1001; i++)
		lec__buf_printf(&b, "    p%d: 1\n", i);
	text = lec__buf_take(&b);
	CHECK_ERR(load(text, &c), LEC_EINVALID);
	CHECK_STR(lec_error_last(),
		  YML ":1008: search.ranking: too many keys (more than 1000)");
	lec__free(text);
	CHECK(c == NULL);
}

/* Valid files -------------------------------------------------------------- */

TEST(sphinx_html_with_everything)
{
	static const char yaml[] =
		"# The documentation's build\n"
		"version: 2\n"
		"formats: all\n"
		"build:\n"
		"  os: ubuntu-lts-latest\n"
		"  tools:\n"
		"    python: \"3.12\"\n"
		"    nodejs: \"20\"\n"
		"  apt_packages:\n"
		"    - graphviz\n"
		"    - ' libxml2-dev '\n"
		"  jobs:\n"
		"    pre_checkout: [echo never]\n"
		"    post_checkout:\n"
		"      - git fetch --unshallow\n"
		"    pre_build: [make api, make figures]\n"
		"    post_build: []\n"
		"python:\n"
		"  install:\n"
		"    - requirements: docs/requirements.txt\n"
		"    - path: ./\n"
		"      method: pip\n"
		"      extra_requirements: [docs]\n"
		"    - path: pkg//sub/\n"
		"      method: setuptools\n"
		"sphinx:\n"
		"  builder: html\n"
		"  configuration: ./docs/conf.py\n"
		"  fail_on_warning: yes\n"
		"submodules:\n"
		"  include: [theme, data]\n"
		"  recursive: true\n"
		"search:\n"
		"  ranking:\n"
		"    api/v1/*: -1\n"
		"    /guides/*: 0x5\n"
		"    api/v1/../v1/*: -10\n"
		"  ignore: [/changelog.html, genindex.html]\n";
	static const char expected[] =
		"{\"version\": \"2\","
		" \"formats\": [\"htmlzip\", \"pdf\", \"epub\"],"
		" \"python\": {\"install\": ["
		"  {\"requirements\": \"docs/requirements.txt\"},"
		"  {\"path\": \".\", \"method\": \"pip\","
		"   \"extra_requirements\": [\"docs\"]},"
		"  {\"path\": \"pkg/sub\", \"method\": \"setuptools\","
		"   \"extra_requirements\": []}]},"
		" \"conda\": null,"
		" \"build\": {\"os\": \"ubuntu-lts-latest\","
		"  \"tools\": {\"python\": {\"version\": \"3.12\","
		"                        \"full_version\": null},"
		"             \"nodejs\": {\"version\": \"20\","
		"                        \"full_version\": null}},"
		"  \"jobs\": {\"pre_checkout\": [\"echo never\"],"
		"   \"post_checkout\": [\"git fetch --unshallow\"],"
		"   \"pre_system_dependencies\": [],"
		"   \"post_system_dependencies\": [],"
		"   \"pre_create_environment\": [],"
		"   \"create_environment\": null,"
		"   \"post_create_environment\": [],"
		"   \"pre_install\": [], \"install\": null, \"post_install\": [],"
		"   \"pre_build\": [\"make api\", \"make figures\"],"
		"   \"build\": {\"html\": null, \"pdf\": null, \"epub\": null,"
		"             \"htmlzip\": null},"
		"   \"post_build\": []},"
		"  \"apt_packages\": [\"graphviz\", \"libxml2-dev\"],"
		"  \"commands\": []},"
		" \"doctype\": \"sphinx\","
		" \"sphinx\": {\"configuration\": \"docs/conf.py\","
		"  \"builder\": \"sphinx\", \"fail_on_warning\": true},"
		" \"mkdocs\": null,"
		" \"submodules\": {\"include\": [\"theme\", \"data\"],"
		"  \"exclude\": [], \"recursive\": true},"
		" \"search\": {\"ranking\": {\"api/v1/*\": -10, \"guides/*\": 5},"
		"  \"ignore\": [\"changelog.html\", \"genindex.html\"]}}";
	struct lec_rtd_config *c = NULL;
	char *json;

	CHECK_OK(load(yaml, &c));
	if (c == NULL)
		return;
	CHECK_STR(c->path, YML);
	CHECK_INT(c->version, 2);
	CHECK_INT(c->formats,
		  LEC_FORMAT_HTMLZIP | LEC_FORMAT_PDF | LEC_FORMAT_EPUB);
	CHECK_STR(c->build_os, "ubuntu-lts-latest");
	CHECK_INT(c->tools.len, 2);
	CHECK_STR(c->tools.items[0], "python=3.12");
	CHECK_STR(c->tools.items[1], "nodejs=20");
	CHECK_INT(c->apt_packages.len, 2);
	CHECK_STR(c->apt_packages.items[1], "libxml2-dev");
	CHECK_INT(c->pre_checkout.len, 1);
	CHECK_INT(c->jobs[LEC_RTD_JOB_POST_CHECKOUT].len, 1);
	CHECK_INT(c->jobs[LEC_RTD_JOB_PRE_BUILD].len, 2);
	CHECK_STR(c->jobs[LEC_RTD_JOB_PRE_BUILD].items[1], "make figures");
	CHECK_INT(c->jobs[LEC_RTD_JOB_POST_BUILD].len, 0);
	CHECK_INT(c->jobs_set, (1u << LEC_RTD_JOB_POST_CHECKOUT) |
				       (1u << LEC_RTD_JOB_PRE_BUILD) |
				       (1u << LEC_RTD_JOB_POST_BUILD));
	CHECK_INT(c->commands.len, 0);
	CHECK(c->has_sphinx && !c->has_mkdocs);
	CHECK_STR(c->sphinx_builder, "html");
	CHECK_STR(c->sphinx_configuration, "docs/conf.py");
	CHECK_INT(c->sphinx_fail_on_warning, 1);
	CHECK_INT(c->python_install_count, 3);
	CHECK_INT(c->python_install[0].kind, LEC_RTD_INSTALL_REQUIREMENTS);
	CHECK_STR(c->python_install[1].path, ".");
	CHECK_STR(c->python_install[2].method, "setuptools");
	CHECK(c->conda_environment == NULL);
	CHECK_INT(c->submodules_include.len, 2);
	CHECK(!c->submodules_all_excluded && !c->submodules_all_included);
	CHECK_INT(c->submodules_recursive, 1);
	CHECK_INT(c->ranking_patterns.len, 2);
	CHECK_STR(c->ranking_patterns.items[0], "api/v1/*");
	CHECK_INT(c->ranking_values[0], -10);
	CHECK_INT(c->ranking_values[1], 5);
	CHECK_INT(c->doctype, LEC_DOCTYPE_SPHINX);
	json = lec_rtd_config_json(c);
	CHECK(json_equal(json, expected));
	lec__free(json);
	lec_rtd_config_free(c);
}

TEST(sphinx_builders_give_their_doctypes)
{
	static const struct {
		const char *builder, *flag, *code;
		enum lec_doctype type;
	} cases[] = {
		{ "html", "html", "sphinx", LEC_DOCTYPE_SPHINX },
		{ "dirhtml", "dirhtml", "sphinx_htmldir",
		  LEC_DOCTYPE_SPHINX_HTMLDIR },
		{ "htmldir", "dirhtml", "sphinx_htmldir",
		  LEC_DOCTYPE_SPHINX_HTMLDIR },
		{ "singlehtml", "singlehtml", "sphinx_singlehtml",
		  LEC_DOCTYPE_SPHINX_SINGLEHTML },
	};
	struct lec_rtd_config *c = NULL;
	char yaml[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(yaml, sizeof(yaml),
			 "version: \"2\"\nbuild: {os: ubuntu-22.04, tools: "
			 "{python: \"3\"}}\nsphinx:\n  builder: %s\n  "
			 "configuration: conf.py\n  fail_on_warning: 0\n",
			 cases[i].builder);
		CHECK_OK(load(yaml, &c));
		if (c == NULL)
			continue;
		CHECK_INT(c->doctype, cases[i].type);
		CHECK_STR(lec_doctype_code(c->doctype), cases[i].code);
		CHECK_STR(c->sphinx_builder, cases[i].flag);
		CHECK_STR(c->sphinx_configuration, "conf.py");
		CHECK_INT(c->sphinx_fail_on_warning, 0);
		lec_rtd_config_free(c);
	}
}

TEST(mkdocs_project)
{
	static const char yaml[] =
		"version: 2\n"
		"build:\n"
		"  os: ubuntu-22.04\n"
		"  tools:\n"
		"    python: mambaforge-latest\n"
		"conda:\n"
		"  environment: environment.yml\n"
		"mkdocs:\n"
		"  configuration: docs/mkdocs.yml\n"
		"  fail_on_warning: true\n"
		"formats: [htmlzip]\n"
		"submodules:\n"
		"  exclude: [big]\n";
	static const char expected[] =
		"{\"version\": \"2\", \"formats\": [\"htmlzip\"],"
		" \"python\": {\"install\": []},"
		" \"conda\": {\"environment\": \"environment.yml\"},"
		" \"build\": {\"os\": \"ubuntu-22.04\","
		"  \"tools\": {\"python\": {\"version\": \"mambaforge-latest\","
		"                        \"full_version\": null}},"
		"  \"jobs\": {\"pre_checkout\": [], \"post_checkout\": [],"
		"   \"pre_system_dependencies\": [],"
		"   \"post_system_dependencies\": [],"
		"   \"pre_create_environment\": [], \"create_environment\": null,"
		"   \"post_create_environment\": [], \"pre_install\": [],"
		"   \"install\": null, \"post_install\": [], \"pre_build\": [],"
		"   \"build\": {\"html\": null, \"pdf\": null, \"epub\": null,"
		"             \"htmlzip\": null},"
		"   \"post_build\": []},"
		"  \"apt_packages\": [], \"commands\": []},"
		" \"doctype\": \"mkdocs\", \"sphinx\": null,"
		" \"mkdocs\": {\"configuration\": \"docs/mkdocs.yml\","
		"  \"fail_on_warning\": true},"
		" \"submodules\": {\"include\": [], \"exclude\": [\"big\"],"
		"  \"recursive\": false},"
		" \"search\": {\"ranking\": {}, \"ignore\": [\"search.html\","
		"  \"search/index.html\", \"404.html\", \"404/index.html\"]}}";
	struct lec_rtd_config *c = NULL;
	char *json;

	CHECK_OK(load(yaml, &c));
	if (c == NULL)
		return;
	CHECK_INT(c->doctype, LEC_DOCTYPE_MKDOCS);
	CHECK(c->has_mkdocs && !c->has_sphinx);
	CHECK(c->sphinx_builder == NULL);
	CHECK_STR(c->mkdocs_configuration, "docs/mkdocs.yml");
	CHECK_INT(c->mkdocs_fail_on_warning, 1);
	CHECK_STR(c->conda_environment, "environment.yml");
	CHECK_INT(c->formats, LEC_FORMAT_HTMLZIP);
	CHECK_INT(c->search_ignore.len, 4);
	json = lec_rtd_config_json(c);
	CHECK(json_equal(json, expected));
	lec__free(json);
	lec_rtd_config_free(c);
}

TEST(build_commands_are_generic)
{
	static const char yaml[] =
		"version: 2\n"
		"build:\n"
		"  os: ubuntu-24.04\n"
		"  commands:\n"
		"    - mkdir -p $READTHEDOCS_OUTPUT/html\n"
		"    - |\n"
		"      echo one\n"
		"      echo two\n"
		"sphinx:\n"
		"  builder: singlehtml\n"
		"submodules:\n"
		"  include: all\n"
		"  recursive: 1\n";
	static const char expected[] =
		"{\"version\": \"2\", \"formats\": [],"
		" \"python\": {\"install\": []}, \"conda\": null,"
		" \"build\": {\"os\": \"ubuntu-24.04\", \"tools\": {},"
		"  \"jobs\": {\"pre_checkout\": [], \"post_checkout\": [],"
		"   \"pre_system_dependencies\": [],"
		"   \"post_system_dependencies\": [],"
		"   \"pre_create_environment\": [], \"create_environment\": null,"
		"   \"post_create_environment\": [], \"pre_install\": [],"
		"   \"install\": null, \"post_install\": [], \"pre_build\": [],"
		"   \"build\": {\"html\": null, \"pdf\": null, \"epub\": null,"
		"             \"htmlzip\": null},"
		"   \"post_build\": []},"
		"  \"apt_packages\": [],"
		"  \"commands\": [\"mkdir -p $READTHEDOCS_OUTPUT/html\","
		"                \"echo one\\necho two\\n\"]},"
		" \"doctype\": \"generic\","
		" \"sphinx\": {\"configuration\": null,"
		"  \"builder\": \"sphinx_singlehtml\", \"fail_on_warning\": false},"
		" \"mkdocs\": null,"
		" \"submodules\": {\"include\": \"all\", \"exclude\": [],"
		"  \"recursive\": true},"
		" \"search\": {\"ranking\": {}, \"ignore\": [\"search.html\","
		"  \"search/index.html\", \"404.html\", \"404/index.html\"]}}";
	struct lec_rtd_config *c = NULL;
	char *json;

	/* build.commands needs no sphinx.configuration, and the python tool
	 * of a conda version needs no conda section with it. */
	CHECK_OK(load(yaml, &c));
	if (c == NULL)
		return;
	CHECK_INT(c->doctype, LEC_DOCTYPE_GENERIC);
	CHECK_INT(c->commands.len, 2);
	CHECK_STR(c->commands.items[1], "echo one\necho two\n");
	CHECK_INT(c->tools.len, 0);
	CHECK(c->submodules_all_included && !c->submodules_all_excluded);
	json = lec_rtd_config_json(c);
	CHECK(json_equal(json, expected));
	lec__free(json);
	lec_rtd_config_free(c);
	CHECK_OK(load("build:\n  os: ubuntu-22.04\n  tools: {python: "
		      "miniconda-latest}\n  commands: [make]\n",
		      &c));
	lec_rtd_config_free(c);
}

TEST(jobs_only_are_generic)
{
	struct lec_rtd_config *c = NULL;
	char *json;
	cJSON *parsed, *jobs;

	CHECK_OK(load("version: 2\n"
		      "formats: [pdf]\n"
		      "build:\n"
		      "  os: ubuntu-22.04\n"
		      "  tools: {python: \"3.13\"}\n"
		      "  jobs:\n"
		      "    create_environment: []\n"
		      "    build:\n"
		      "      html: [make html]\n"
		      "      pdf: [make pdf]\n",
		      &c));
	if (c == NULL)
		return;
	CHECK_INT(c->doctype, LEC_DOCTYPE_GENERIC);
	CHECK_INT(c->jobs_set, (1u << LEC_RTD_JOB_CREATE_ENVIRONMENT) |
				       (1u << LEC_RTD_JOB_BUILD_HTML) |
				       (1u << LEC_RTD_JOB_BUILD_PDF));
	CHECK_INT(c->jobs[LEC_RTD_JOB_CREATE_ENVIRONMENT].len, 0);
	CHECK_STR(c->jobs[LEC_RTD_JOB_BUILD_PDF].items[0], "make pdf");
	/* Sphinx settings still apply (as at the service), unused. */
	CHECK(c->has_sphinx);
	json = lec_rtd_config_json(c);
	parsed = cJSON_Parse(json);
	jobs = cJSON_GetObjectItem(cJSON_GetObjectItem(parsed, "build"),
				   "jobs");
	CHECK(cJSON_IsArray(cJSON_GetObjectItem(jobs, "create_environment")));
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(jobs, "install")));
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(
		cJSON_GetObjectItem(jobs, "build"), "epub")));
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(parsed, "doctype")),
		  "generic");
	cJSON_Delete(parsed);
	lec__free(json);
	lec_rtd_config_free(c);

	/* With a sphinx key, the same jobs keep the Sphinx doc type. */
	CHECK_OK(load("build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n"
		      "  jobs:\n    install: [pip install .]\n"
		      "sphinx: {configuration: docs/conf.py}\n",
		      &c));
	if (c)
		CHECK_INT(c->doctype, LEC_DOCTYPE_SPHINX);
	lec_rtd_config_free(c);
}

TEST(uv_install)
{
	struct lec_rtd_config *c = NULL;
	char *json;

	CHECK_OK(load(HEAD "python:\n  install:\n    - method: uv\n      "
			   "command: sync\n      groups: all\n      extras: "
			   "[docs, test]\n",
		      &c));
	if (c == NULL)
		return;
	CHECK_INT(c->python_install_count, 1);
	CHECK_INT(c->python_install[0].kind, LEC_RTD_INSTALL_UV);
	CHECK_STR(c->python_install[0].command, "sync");
	CHECK_INT(c->python_install[0].groups_all, 1);
	CHECK_INT(c->python_install[0].extras.len, 2);
	/* Without a submodules section every submodule is excluded. */
	CHECK(c->submodules_all_excluded && !c->submodules_all_included);
	json = lec_rtd_config_json(c);
	CHECK(json && strstr(json, "\"submodules\":{\"include\":[],"
				   "\"exclude\":\"all\",\"recursive\":false}"));
	CHECK(json && strstr(json, "\"install\":[{\"method\":\"uv\","
				   "\"command\":\"sync\",\"path\":null,"
				   "\"requirements\":null,\"groups\":\"all\","
				   "\"extras\":[\"docs\",\"test\"]}]"));
	lec__free(json);
	lec_rtd_config_free(c);
	CHECK_OK(load(HEAD "python:\n  install:\n    - method: uv\n      "
			   "command: pip\n      requirements: docs/r.txt\n",
		      &c));
	if (c)
		CHECK_STR(c->python_install[0].requirements, "docs/r.txt");
	lec_rtd_config_free(c);
}

TEST(yaml_types_follow_the_service)
{
	struct lec_rtd_config *c = NULL;
	static const struct {
		const char *value, *got;
	} not_strings[] = {
		{ "3.10", "a number (3.10)" },    { "3", "an integer (3)" },
		{ "0o7", NULL },		  { "1_000", "an integer (1_000)" },
		{ "0x1F", "an integer (0x1F)" },  { "1:30", "an integer (1:30)" },
		{ ".5", "a number (.5)" },	  { "-.inf", "a number (-.inf)" },
		{ "1e5", NULL },		  { "on", "a boolean (on)" },
		{ "No", "a boolean (No)" },	  { "~", "null" },
		{ "2024-01-31", "a date (2024-01-31)" },
		{ "2001-12-14 21:59:43.10 -5", "a date (2001-12-14 21:59:43.10 "
					       "-5)" },
		{ "1.2.3", NULL },		  { "09", NULL },
	};
	char yaml[256], message[256];
	size_t i;

	/* Plain scalars a YAML 1.1 parser reads as non-strings are refused
	 * where a string is needed; the rest are strings (NULL). */
	for (i = 0; i < sizeof(not_strings) / sizeof(not_strings[0]); i++) {
		snprintf(yaml, sizeof(yaml),
			 "build:\n  os: ubuntu-22.04\n  tools: {python: "
			 "\"3\"}\n  jobs:\n    pre_build: [%s]\nsphinx: "
			 "{configuration: conf.py}\n",
			 not_strings[i].value);
		if (not_strings[i].got == NULL) {
			CHECK_OK(load(yaml, &c));
			if (c)
				CHECK_STR(c->jobs[LEC_RTD_JOB_PRE_BUILD]
						  .items[0],
					  not_strings[i].value);
			lec_rtd_config_free(c);
			continue;
		}
		snprintf(message, sizeof(message),
			 YML ":5: build.jobs.pre_build: expected a string, got "
			     "%s",
			 not_strings[i].got);
		CHECK_ERR(load(yaml, &c), LEC_EINVALID);
		CHECK_STR(lec_error_last(), message);
	}
	/* Quoting, and the !!str tag, make strings; version 0x2 is 2. */
	CHECK_OK(load("version: 0x2\nbuild:\n  os: ubuntu-22.04\n  tools:\n"
		      "    python: !!str 3.10\n    rust: '1.75'\nsphinx: "
		      "{configuration: conf.py}\n",
		      &c));
	if (c)
		CHECK_STR(c->tools.items[0], "python=3.10");
	lec_rtd_config_free(c);
}

TEST(paths_are_normalised)
{
	struct lec_rtd_config *c = NULL;

	CHECK_OK(load("build: {os: ubuntu-22.04, tools: {python: \"3\"}}\n"
		      "sphinx:\n  configuration: docs/./api/../conf.py\n"
		      "conda: {environment: ./env/../env.yml}\n",
		      &c));
	if (c) {
		CHECK_STR(c->sphinx_configuration, "docs/conf.py");
		CHECK_STR(c->conda_environment, "env.yml");
	}
	lec_rtd_config_free(c);
	CHECK_ERR(load("build: {os: ubuntu-22.04, tools: {python: \"3\"}}\n"
		       "sphinx:\n  configuration: docs/../../conf.py\n",
		       &c),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last(), YML ":3: sphinx.configuration: "
					"'docs/../../conf.py' leaves the "
					"repository");
	CHECK_ERR(load("build: {os: ubuntu-22.04, tools: {python: \"3\"}}\n"
		       "sphinx:\n  configuration: ''\n",
		       &c),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last(), YML ":3: sphinx.configuration: expected a "
					"path, got ''");
}

TEST(messages_cut_long_and_odd_values)
{
	struct lec_rtd_config *c = NULL;
	char yaml[512];

	snprintf(yaml, sizeof(yaml), HEAD "formats: [\"%s\\x01\"]\n",
		 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefgh"
		 "ijklmnop");
	CHECK_ERR(load(yaml, &c), LEC_EINVALID);
	CHECK_STR(lec_error_last(),
		  YML ":6: formats: expected one of htmlzip, pdf, epub, got a "
		      "string ('abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstu"
		      "vwxyzabcdefgh...')");
	CHECK_ERR(load(HEAD "\"bad\\nkey\": 1\n", &c), LEC_EINVALID);
	CHECK_STR(lec_error_last(), YML ":6: bad?key: unknown key");
}

/* Finding the file ---------------------------------------------------------- */

TEST(find_prefers_dot_readthedocs_yaml)
{
	const char *dir = lec_test_tmpdir();
	char *rel = NULL;
	char path[512];

	CHECK_ERR(lec_rtd_config_find(dir, NULL, &rel), LEC_ENOTFOUND);
	CHECK_STR(lec_error_last(), "no .readthedocs.yaml in the repository's "
				    "root");
	CHECK(rel == NULL);
	/* Near misses do not count. */
	write_file(dir, "readthedocs-yml", "x", 1);
	write_file(dir, ".readthedocs.yaml.bak", "x", 1);
	snprintf(path, sizeof(path), "%s/.readthedocs.yml", dir);
	CHECK(mkdir(path, 0700) == 0); /* a directory is not the file */
	CHECK_ERR(lec_rtd_config_find(dir, "", &rel), LEC_ENOTFOUND);
	write_file(dir, "readthedocs.yml", "x", 1);
	CHECK_OK(lec_rtd_config_find(dir, NULL, &rel));
	CHECK_STR(rel, "readthedocs.yml");
	lec__free(rel);
	write_file(dir, "readthedocs.yaml", "x", 1);
	CHECK_OK(lec_rtd_config_find(dir, NULL, &rel));
	CHECK_STR(rel, "readthedocs.yaml");
	lec__free(rel);
	write_file(dir, ".readthedocs.yaml", "x", 1);
	CHECK_OK(lec_rtd_config_find(dir, NULL, &rel));
	CHECK_STR(rel, ".readthedocs.yaml");
	lec__free(rel);
}

TEST(find_uses_the_project_path)
{
	const char *dir = lec_test_tmpdir();
	char *rel = NULL;
	char path[512];

	snprintf(path, sizeof(path), "%s/docs", dir);
	CHECK(mkdir(path, 0700) == 0);
	write_file(dir, "docs/.readthedocs.yaml", "x", 1);
	write_file(dir, ".readthedocs.yaml", "x", 1);
	CHECK_OK(lec_rtd_config_find(dir, "docs/.readthedocs.yaml", &rel));
	CHECK_STR(rel, "docs/.readthedocs.yaml");
	lec__free(rel);
	CHECK_ERR(lec_rtd_config_find(dir, "other/.readthedocs.yaml", &rel),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last(), "readthedocs_yaml_path "
				    "'other/.readthedocs.yaml': no such file "
				    "in the repository");
	CHECK(rel == NULL);
	CHECK_ERR(lec_rtd_config_find(dir, "docs", &rel), LEC_EINVALID);
	CHECK_STR(lec_error_last(), "readthedocs_yaml_path 'docs': no such "
				    "file in the repository");
	CHECK_ERR(lec_rtd_config_find(dir, "/etc/passwd", &rel), LEC_EINVALID);
	CHECK_STR(lec_error_last(), "readthedocs_yaml_path '/etc/passwd': use "
				    "a path relative to the repository root");
	CHECK_ERR(lec_rtd_config_find(dir, "docs/../.readthedocs.yaml", &rel),
		  LEC_EINVALID);
	CHECK_STR(lec_error_last(), "readthedocs_yaml_path "
				    "'docs/../.readthedocs.yaml': '..' is not "
				    "allowed");
	CHECK_ERR(lec_rtd_config_find(NULL, NULL, &rel), LEC_EINVALID);
}

TEST(load_checks_the_file)
{
	const char *dir = lec_test_tmpdir();
	struct lec_rtd_config *c = NULL;
	char path[512];

	CHECK_ERR(lec_rtd_config_load(dir, YML, &c), LEC_ENOTFOUND);
	CHECK_ERR(lec_rtd_config_load(dir, "../" YML, &c), LEC_EINVALID);
	CHECK_ERR(lec_rtd_config_load(dir, "", &c), LEC_EINVALID);
	CHECK_ERR(lec_rtd_config_load(dir, YML, NULL), LEC_EINVALID);
	/* A link that leaves the checkout is refused; one inside is read. */
	write_file(shared_dir(), "outside.yaml", HEAD, strlen(HEAD));
	snprintf(path, sizeof(path), "%s/outside.yaml", shared_dir());
	{
		char link[512];

		snprintf(link, sizeof(link), "%s/" YML, dir);
		CHECK(symlink(path, link) == 0);
		CHECK_ERR(lec_rtd_config_load(dir, YML, &c), LEC_EINVALID);
		CHECK_STR(lec_error_last(), YML ":1: the file is a link to "
						"outside the repository");
		unlink(link);
		write_file(dir, "real.yaml", HEAD, strlen(HEAD));
		CHECK(symlink("real.yaml", link) == 0);
		CHECK_OK(lec_rtd_config_load(dir, YML, &c));
		lec_rtd_config_free(c);
		c = NULL;
		/* A directory is not a configuration file. */
		snprintf(link, sizeof(link), "%s/cfgdir", dir);
		CHECK(mkdir(link, 0700) == 0);
		CHECK_ERR(lec_rtd_config_load(dir, "cfgdir", &c), LEC_EINVALID);
		CHECK_STR(lec_error_last(), "cfgdir:1: not a regular file");
	}
	CHECK(c == NULL);
}

TEST(names)
{
	CHECK_STR(lec_rtd_job_name(LEC_RTD_JOB_POST_CHECKOUT), "post_checkout");
	CHECK_STR(lec_rtd_job_name(LEC_RTD_JOB_BUILD_HTMLZIP), "build.htmlzip");
	CHECK_STR(lec_rtd_job_name(LEC_RTD_JOB_POST_BUILD), "post_build");
	CHECK(lec_rtd_job_name(LEC_RTD_JOB_COUNT) == NULL);
	CHECK_STR(lec_doctype_code(LEC_DOCTYPE_GENERIC), "generic");
	CHECK_STR(lec_doctype_code(LEC_DOCTYPE_SPHINX_HTMLDIR),
		  "sphinx_htmldir");
	CHECK(lec_doctype_code((enum lec_doctype)42) == NULL);
	CHECK(lec_rtd_config_json(NULL) == NULL);
	CHECK_INT(lec_error_last_code(), LEC_EINVALID);
	lec_rtd_config_free(NULL);
}

/* Damaged input ------------------------------------------------------------ */

/* A file touching most keys, for the fuzz and out-of-memory loops. */
static const char rich[] =
	"version: 2\n"
	"formats: [pdf, epub]\n"
	"build:\n"
	"  os: ubuntu-24.04\n"
	"  tools: {python: \"3.12\", nodejs: \"20\"}\n"
	"  apt_packages: [graphviz]\n"
	"  jobs:\n"
	"    post_checkout: [git fetch --unshallow || true]\n"
	"    build:\n"
	"      html: [make html]\n"
	"      pdf: [\"make pdf\"]\n"
	"python:\n"
	"  install:\n"
	"    - requirements: docs/requirements.txt\n"
	"    - {path: ., method: pip, extra_requirements: [docs]}\n"
	"sphinx:\n"
	"  builder: dirhtml\n"
	"  configuration: docs/conf.py\n"
	"  fail_on_warning: false\n"
	"submodules: {include: [a], recursive: true}\n"
	"search:\n"
	"  ranking: {'api/*': -2, guide/*: 3}\n"
	"  ignore: ['404.html']\n";

/* The JSON's bytes, not only its content: the keys in the service's
 * order, as the API serves a build's config. */
TEST(json_bytes_in_the_services_order)
{
	static const char expected[] =
		"{\"version\":\"2\",\"formats\":[\"pdf\",\"epub\"],"
		"\"python\":{\"install\":[{"
		"\"requirements\":\"docs/requirements.txt\"},{"
		"\"path\":\".\",\"method\":\"pip\",\"extra_requirements\":["
		"\"docs\"]}]},\"conda\":null,\"build\":{"
		"\"os\":\"ubuntu-24.04\",\"tools\":{\"python\":{"
		"\"version\":\"3.12\",\"full_version\":null},\"nodejs\":{"
		"\"version\":\"20\",\"full_version\":null}},\"jobs\":{"
		"\"pre_checkout\":[],\"post_checkout\":["
		"\"git fetch --unshallow || true\"],"
		"\"pre_system_dependencies\":[],"
		"\"post_system_dependencies\":[],"
		"\"pre_create_environment\":[],\"create_environment\":null,"
		"\"post_create_environment\":[],\"pre_install\":[],"
		"\"install\":null,\"post_install\":[],\"pre_build\":[],"
		"\"build\":{\"html\":[\"make html\"],\"pdf\":["
		"\"make pdf\"],\"epub\":null,\"htmlzip\":null},"
		"\"post_build\":[]},\"apt_packages\":[\"graphviz\"],"
		"\"commands\":[]},\"doctype\":\"sphinx_htmldir\","
		"\"sphinx\":{\"configuration\":\"docs/conf.py\","
		"\"builder\":\"sphinx_htmldir\",\"fail_on_warning\":false},"
		"\"mkdocs\":null,\"submodules\":{\"include\":[\"a\"],"
		"\"exclude\":[],\"recursive\":true},\"search\":{"
		"\"ranking\":{\"api/*\":-2,\"guide/*\":3},\"ignore\":["
		"\"404.html\"]}}";
	struct lec_rtd_config *c = NULL;
	char *json;

	CHECK_OK(load(rich, &c));
	json = lec_rtd_config_json(c);
	CHECK_STR(json, expected);
	lec__free(json);
	lec_rtd_config_free(c);
}

/* Must give LEC_OK with a configuration that renders, or LEC_EINVALID. */
static void load_damaged(const char *text, size_t len, const char *what,
			 size_t at)
{
	struct lec_rtd_config *c = NULL;
	int rc = load_len(text, len, &c);
	char *json;

	if (rc == LEC_OK) {
		json = lec_rtd_config_json(c);
		if (json == NULL)
			FAIL_AT("%s at %zu: no JSON", what, at);
		lec__free(json);
	} else if (rc != LEC_EINVALID ||
		   strncmp(lec_error_last(), YML ":", strlen(YML ":")) != 0) {
		FAIL_AT("%s at %zu: %d %s", what, at, rc, lec_error_last());
	}
	lec_rtd_config_free(c);
}

TEST(fuzz_truncated_and_flipped)
{
	char copy[sizeof(rich)];
	size_t n = sizeof(rich) - 1, i;
	unsigned seed = 12345;
	int bit;

	for (i = 0; i <= n; i++)
		load_damaged(rich, i, "truncated", i);
	/* Every byte, three bits each: bit 5 (case, ' ' and ':' become
	 * control characters), bit 7 (bytes that are not UTF-8), and one
	 * that rotates through the rest. */
	for (i = 0; i < n; i++) {
		static const int bits[] = { 5, 7, -1 };
		size_t b;

		for (b = 0; b < sizeof(bits) / sizeof(bits[0]); b++) {
			bit = bits[b] >= 0 ? bits[b] : (int)(i % 5);
			memcpy(copy, rich, sizeof(rich));
			copy[i] = (char)(copy[i] ^ (1 << bit));
			load_damaged(copy, n, "bit flip", i);
		}
	}
	/* Characters YAML gives meaning to, dropped anywhere. */
	for (i = 0; i < 1500; i++) {
		static const char specials[] = "[]{}:,-?&*!|>'\"%@`#\t\n\0";

		memcpy(copy, rich, sizeof(rich));
		seed = seed * 1103515245u + 12345u;
		copy[(seed >> 8) % n] =
			specials[(seed >> 20) % (sizeof(specials) - 1)];
		load_damaged(copy, n, "special", i);
	}
}

TEST(out_of_memory_anywhere)
{
	struct lec_rtd_config *c = NULL;
	char *json;
	long n;
	int rc;

	write_file(shared_dir(), YML, rich, sizeof(rich) - 1);
	for (n = 1; n < 2000; n++) {
		lec__alloc_fail_after(n);
		rc = lec_rtd_config_load(shared_dir(), YML, &c);
		lec__alloc_fail_after(0);
		if (rc == LEC_OK)
			break;
		CHECK_INT(rc, LEC_ENOMEM);
		CHECK(c == NULL);
	}
	CHECK(c != NULL);
	if (c == NULL)
		return;
	for (n = 1; n < 10; n++) {
		lec__alloc_fail_after(n);
		json = lec_rtd_config_json(c);
		lec__alloc_fail_after(0);
		if (json == NULL)
			CHECK_INT(lec_error_last_code(), LEC_ENOMEM);
		lec__free(json);
	}
	lec_rtd_config_free(c);
}

/* The service's message of a refusal ------------------------------------- */

/* Load text, which must be refused; the service's message as JSON (and
 * its header and body, when asked for), compared whole. */
static void check_problem(const char *yaml, const char *json,
			  const char *header, const char *body)
{
	struct lec_rtd_config *c = NULL;
	char *got, *mid = NULL, *h = NULL, *b = NULL;

	CHECK_ERR(load(yaml, &c), LEC_EINVALID);
	got = lec_rtd_config_problem_json();
	CHECK(got && json_equal(got, json));
	if (header && got) {
		CHECK_OK(lec_rtd_problem_message(got, &mid, &h, &b));
		CHECK_STR(h, header);
		CHECK_STR(b, body);
	}
	lec__free(mid);
	lec__free(h);
	lec__free(b);
	lec__free(got);
}

TEST(refusals_carry_the_services_message)
{
	check_problem(
		"build:\n  os: ubuntu-22.04\n  tools:\n    python: \"3.1O\"\n",
		"{\"id\": \"config:validation:invalid-choice\", "
		"\"format_values\": {\"key\": \"build.tools.python\", "
		"\"value\": \"3.1O\", \"choices\": \"" PYTHONS "\"}, "
		"\"value_class\": \"str\"}",
		"Config file validation error",
		"Config validation error in <code>build.tools.python</code>.\n"
		"Expected one of (" PYTHONS "), got type <code>str</code> "
		"(<code>3.1O</code>).\nDouble check the type of the value.\n"
		"A string may be required (e.g. <code>\"3.10\"</code> instead "
		"of <code>3.10</code>)");
	/* Unquoted, 3.10 is the float 3.1 to the service's parser. */
	check_problem(
		"build:\n  os: ubuntu-22.04\n  tools:\n    python: 3.10\n",
		"{\"id\": \"config:validation:invalid-choice\", "
		"\"format_values\": {\"key\": \"build.tools.python\", "
		"\"value\": \"3.1\", \"choices\": \"" PYTHONS "\"}, "
		"\"value_class\": \"float\"}",
		NULL, NULL);
	/* A misspelt section is named down to its first key. */
	check_problem(HEAD "pyton:\n  version: \"3.8\"\n",
		      "{\"id\": \"config:base:invalid-key-name\", "
		      "\"format_values\": {\"key\": \"pyton.version\"}}",
		      "Invalid configuration key: pyton.version",
		      "Make sure the key name <code>pyton.version</code> is "
		      "correct.");
	/* Values are Python's str(), escaped as Django escapes them. */
	check_problem(HEAD "formats: {other: \"<v>\"}\n",
		      "{\"id\": \"config:validation:invalid-list\", "
		      "\"format_values\": {\"key\": \"formats\", \"value\": "
		      "\"{'other': '<v>'}\"}, \"value_class\": \"dict\"}",
		      "Config file validation error",
		      "Config validation error in <code>formats</code>.\n"
		      "Expected a list, got type <code>dict</code> "
		      "(<code>{&#x27;other&#x27;: &#x27;&lt;v&gt;&#x27;}</code>).");
	/* The service's body names {{pacakge}}: it shows no name. */
	check_problem("build:\n  os: ubuntu-22.04\n  tools: {python: \"3\"}\n"
		      "  apt_packages: [\"a$b\"]\n",
		      "{\"id\": \"config:apt:invalid-package-name\", "
		      "\"format_values\": {\"package\": \"a$b\", \"key\": "
		      "\"build.apt_packages.0\"}}",
		      "Invalid APT package name",
		      "The name of the package <code></code> is invalid.");
	/* A value the message names and the refusal lacks is a str. */
	check_problem(HEAD "python:\n  install:\n    - method: uv\n"
		      "      command: sync\n      groups: 1\n",
		      "{\"id\": \"config:python:uv-groups-extras-invalid-type\", "
		      "\"format_values\": {\"field\": \"groups\"}}",
		      "Invalid configuration for uv",
		      "The <code>python.install.groups</code> must be a list "
		      "of strings or the value <code>all</code>.\nGot type "
		      "<code>str</code>.");
	check_problem("version: 2\nbuild: [\n",
		      "{\"id\": \"config:base:invalid-syntax\", "
		      "\"format_values\": {\"filename\": \".readthedocs.yaml\", "
		      "\"error_message\": \".readthedocs.yaml:3: invalid YAML: "
		      "did not find expected node content (while parsing a flow node)\"}}",
		      NULL, NULL);
}

TEST(problem_values_read_as_python_shows_them)
{
	static const struct {
		const char *yaml, *value, *cls;
	} cases[] = {
		{ "0.0001", "0.0001", "float" },  { "1.0e+16", "1e+16", "float" },
		{ "-1.5e-7", "-1.5e-07", "float" }, { "3.0", "3.0", "float" },
		{ "1_000.25", "1000.25", "float" }, { ".inf", "inf", "float" },
		{ "-.Inf", "-inf", "float" },	    { ".NaN", "nan", "float" },
		{ "0x1F", "31", "int" },	    { "yes", "True", "bool" },
		{ "~", "None", "NoneType" },	    { "2024-01-02", "2024-01-02",
						      "date" },
		{ "[a, 'it''s', \"q\\\"\", 1]",
		  "['a', \"it's\", 'q\"', 1]", "list" },
		{ "{1: {b: null}}", "{1: {'b': None}}", "dict" },
	};
	char yaml[256];
	struct lec_rtd_config *c = NULL;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *json;
		cJSON *o, *fv;

		/* search must be a map, formats a list: each says what it
		 * got instead. */
		snprintf(yaml, sizeof(yaml), HEAD "%s: %s\n",
			 strcmp(cases[i].cls, "dict") == 0 ? "formats"
							    : "search",
			 cases[i].yaml);
		CHECK_ERR(load(yaml, &c), LEC_EINVALID);
		json = lec_rtd_config_problem_json();
		o = cJSON_Parse(json);
		fv = cJSON_GetObjectItem(o, "format_values");
		if (!cJSON_IsString(cJSON_GetObjectItem(fv, "value")) ||
		    strcmp(cJSON_GetObjectItem(fv, "value")->valuestring,
			   cases[i].value) != 0 ||
		    strcmp(cJSON_GetObjectItem(o, "value_class")->valuestring,
			   cases[i].cls) != 0)
			FAIL_AT("case %zu: %s", i, json ? json : "(null)");
		cJSON_Delete(o);
		lec__free(json);
	}
}

TEST(a_missing_file_is_the_services_refusal)
{
	char *rel = NULL, *json, *text;
	const char *dir = lec_test_tmpdir();

	write_file(dir, "readthedocs.ymlmore", "", 0);
	CHECK_ERR(lec_rtd_config_find(dir, NULL, &rel), LEC_ENOTFOUND);
	CHECK_STR(lec_rtd_config_problem_id(), "config:path:default-not-found");
	json = lec_rtd_config_problem_json();
	text = lec_rtd_problem_text(json);
	CHECK_STR(text, "Config file not found at default path: The required "
			".readthedocs.yaml configuration file was not found at "
			"repository's root. Learn how to use this file in our "
			"configuration file tutorial "
			"(https://docs.readthedocs.io/en/stable/config-file/"
			"index.html).");
	lec__free(text);
	lec__free(json);
	CHECK_ERR(lec_rtd_config_find(dir, "docs/rtd.yaml", &rel), LEC_EINVALID);
	json = lec_rtd_config_problem_json();
	CHECK(json_equal(json, "{\"id\": \"config:path:not-found\", "
			       "\"format_values\": {\"directory\": "
			       "\"docs/rtd.yaml\"}}"));
	lec__free(json);
	/* A call that refuses nothing leaves no refusal behind. */
	write_file(dir, ".readthedocs.yaml", "", 0);
	CHECK_OK(lec_rtd_config_find(dir, NULL, &rel));
	CHECK(lec_rtd_config_problem_id() == NULL);
	CHECK(lec_rtd_config_problem_json() == NULL);
	lec__free(rel);
	CHECK(lec_rtd_problem_text("{\"id\": \"config:none\"}") == NULL);
	CHECK_INT(lec_error_last_code(), LEC_EINVALID);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(every_rule_has_its_message),
	TEST_ENTRY(not_utf8_names_the_line),
	TEST_ENTRY(limits_are_enforced),
	TEST_ENTRY(sphinx_html_with_everything),
	TEST_ENTRY(sphinx_builders_give_their_doctypes),
	TEST_ENTRY(mkdocs_project),
	TEST_ENTRY(build_commands_are_generic),
	TEST_ENTRY(jobs_only_are_generic),
	TEST_ENTRY(uv_install),
	TEST_ENTRY(yaml_types_follow_the_service),
	TEST_ENTRY(paths_are_normalised),
	TEST_ENTRY(messages_cut_long_and_odd_values),
	TEST_ENTRY(find_prefers_dot_readthedocs_yaml),
	TEST_ENTRY(find_uses_the_project_path),
	TEST_ENTRY(load_checks_the_file),
	TEST_ENTRY(names),
	TEST_ENTRY(json_bytes_in_the_services_order),
	TEST_ENTRY(fuzz_truncated_and_flipped),
	TEST_ENTRY(out_of_memory_anywhere),
	TEST_ENTRY(refusals_carry_the_services_message),
	TEST_ENTRY(problem_values_read_as_python_shows_them),
	TEST_ENTRY(a_missing_file_is_the_services_refusal),
};

LEC_TEST_MAIN(tests)
