/*
 * The generator steps (build_steps.c) through the step harness: which
 * generator a checkout gets, Sphinx's and MkDocs' command lines as the
 * service runs them (the builder, -W, the language in Sphinx's spelling,
 * conf.py's directory as the working directory), build.commands in the
 * checkout, the download formats (a zip of singlehtml, an EPUB moved to
 * its published name), the generator's warnings read from its output as
 * it streams, a failed command's cause, the service's skip exit code, a
 * generator that is not installed, and a failed step's error left as
 * the thread's message.
 */
#include <stdlib.h>
#include <sys/stat.h>

#include "build_steps.h"
#include "harness.h"
#include "lectern/build.h"
#include "steps.h"

/* The start of every configuration here. */
#define BUILD                                                                \
	"version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: "   \
	"\"3.12\"\n"

/* fmt with {tree} for the checkout and {build} for the build's
 * directory. Owned by the caller (free()). */
static char *expand(const struct lec_steps *s, const char *fmt)
{
	size_t cap = strlen(fmt) + 1, n = 0;
	char *out;
	const char *p;

	for (p = fmt; (p = strchr(p, '{')) != NULL; p++)
		cap += strlen(s->job.checkout) + strlen(s->job.build_dir);
	out = malloc(cap);
	for (p = fmt; out && *p;) {
		const char *with = NULL;

		if (strncmp(p, "{tree}", 6) == 0)
			with = s->job.checkout;
		else if (strncmp(p, "{build}", 7) == 0)
			with = s->job.build_dir;
		if (with) {
			memcpy(out + n, with, strlen(with));
			n += strlen(with);
			p = strchr(p, '}') + 1;
		} else {
			out[n++] = *p++;
		}
	}
	if (out)
		out[n] = '\0';
	return out;
}

static void check_argv(const struct lec_steps *s, const char *needle,
		       const char *fmt, const char *cwd_fmt)
{
	const struct lec_steps_cmd *c = lec_steps_find(s, needle, NULL);
	char *want = expand(s, fmt), *cwd = expand(s, cwd_fmt);

	if (c == NULL)
		FAIL_AT("no command with %s", needle);
	else {
		CHECK_STR(c->argv, want);
		CHECK_STR(c->cwd, cwd);
		CHECK_INT(c->network, LEC_RUNNER_NET_NONE);
	}
	free(want);
	free(cwd);
}

TEST(sphinx_found_and_run_as_the_service_does)
{
	struct lec_steps s;
	char *displays;

	lec_steps_init(&s, "guide", NULL);
	lec_steps_put(&s, "docs/conf.py", "project = 'Guide'\n");
	CHECK_INT(lec__job_generator(&s.job), LEC__GEN_SPHINX);
	CHECK_OK(lec__job_build_docs(&s.job));
	displays = lec_steps_displays(&s);
	CHECK_STR(displays, "cat docs/conf.py\n"
			    "python -m sphinx -T -b html -d _build/doctrees -D "
			    "language=en . $READTHEDOCS_OUTPUT/html\n");
	free(displays);
	check_argv(&s, "sphinx",
		   "/usr/bin/python3 -m sphinx -T -b html -d _build/doctrees "
		   "-D language=en . {tree}/_readthedocs/html",
		   "{tree}/docs");
	CHECK_INT(s.job.doctype, LEC_DOCTYPE_SPHINX);
	lec_steps_dispose(&s);
}

/* Sphinx's builders write their output; the EPUB builder a book. */
static int sphinx_writes(struct lec_steps *s, const char *const *argv,
			 lec_runner_output_cb out, void *out_payload,
			 struct lec_runner_result *result)
{
	size_t n;

	(void)s, (void)out, (void)out_payload;
	for (n = 0; argv[n]; n++)
		;
	if (n > 6 && strcmp(argv[2], "sphinx") == 0 &&
	    strstr(argv[n - 1], "/epub")) {
		CHECK_OK(lec__mkdirs(argv[n - 1]));
		lec_test_put(argv[n - 1], "Guide.epub", "book");
	}
	result->end = LEC_RUNNER_EXITED;
	return 0;
}

TEST(sphinx_configured_with_formats)
{
	struct lec_steps s;
	char *epub, *displays;
	struct stat sb;

	lec_steps_init(&s, "guia", BUILD
				   "sphinx:\n  configuration: source/conf.py\n"
				   "  builder: htmldir\n  fail_on_warning: true\n"
				   "formats: [htmlzip, epub]\n");
	lec_steps_put(&s, "source/conf.py", "project = 'Guia'\n");
	lec__free(s.job.project->language);
	s.job.project->language = lec__strdup("pt-br");
	s.answer = sphinx_writes;
	CHECK_OK(lec__job_build_docs(&s.job));
	if (s.job.error)
		FAIL_AT("%s", s.job.error);
	displays = lec_steps_displays(&s);
	CHECK_STR(displays,
		  "cat source/conf.py\n"
		  "python -m sphinx -T -W --keep-going -b dirhtml -d "
		  "_build/doctrees -D language=pt_BR . $READTHEDOCS_OUTPUT/html\n"
		  "python -m sphinx -T -W --keep-going -b singlehtml -d "
		  "_build/doctrees -D language=pt_BR . $READTHEDOCS_OUTPUT/htmlzip\n"
		  "python -m zipfile -c $READTHEDOCS_OUTPUT/htmlzip/project.zip html\n"
		  "python -m sphinx -T -W --keep-going -b epub -d "
		  "_build/doctrees -D language=pt_BR . $READTHEDOCS_OUTPUT/epub\n");
	free(displays);
	check_argv(&s, "-b dirhtml",
		   "/usr/bin/python3 -m sphinx -T -W --keep-going -b dirhtml -d "
		   "_build/doctrees -D language=pt_BR . {tree}/_readthedocs/html",
		   "{tree}/source");
	/* The singlehtml build goes to the build's directory, zipped from
	 * there into the output. */
	check_argv(&s, "-b singlehtml",
		   "/usr/bin/python3 -m sphinx -T -W --keep-going -b singlehtml "
		   "-d _build/doctrees -D language=pt_BR . {build}/htmlzip",
		   "{tree}/source");
	check_argv(&s, "zipfile",
		   "/usr/bin/python3 -m zipfile -c "
		   "{tree}/_readthedocs/htmlzip/guia.zip {build}/htmlzip",
		   "{build}");
	/* The book moved to its published name. */
	epub = lec__path_join(s.job.output, "epub/guia.epub");
	CHECK(stat(epub, &sb) == 0 && S_ISREG(sb.st_mode));
	lec__free(epub);
	lec_steps_dispose(&s);
}

TEST(epub_without_a_book_fails)
{
	struct lec_steps s;

	lec_steps_init(&s, "guide", BUILD "sphinx:\n  configuration: docs/conf.py\n"
				    "formats: [epub]\n");
	lec_steps_put(&s, "docs/conf.py", "project = 'Guide'\n");
	CHECK_ERR(lec__job_build_docs(&s.job), LEC_ERROR);
	CHECK_STR(s.job.error, "The epub build produced no .epub file.");
	lec_steps_dispose(&s);
}

TEST(mkdocs_strict_and_without_increments)
{
	struct lec_steps s;
	char *displays;

	lec_steps_init(&s, "guide", BUILD
				    "mkdocs:\n  configuration: site/mkdocs.yml\n"
				    "  fail_on_warning: true\n");
	lec_steps_put(&s, "site/mkdocs.yml", "site_name: Guide\n");
	CHECK_INT(lec__job_generator(&s.job), LEC__GEN_MKDOCS);
	CHECK_OK(lec__job_build_docs(&s.job));
	displays = lec_steps_displays(&s);
	CHECK_STR(displays, "python -m mkdocs build --clean --site-dir "
			    "$READTHEDOCS_OUTPUT/html --config-file "
			    "site/mkdocs.yml --strict\n");
	free(displays);
	check_argv(&s, "mkdocs",
		   "/usr/bin/python3 -m mkdocs build --clean --site-dir "
		   "{tree}/_readthedocs/html --config-file site/mkdocs.yml --strict",
		   "{tree}");
	CHECK_INT(s.job.doctype, LEC_DOCTYPE_MKDOCS);
	CHECK(s.job.ncache == 1 && strcmp(s.job.cache[0].name, "mkdocs") == 0 &&
	      !s.job.cache[0].reused);
	lec_steps_dispose(&s);
}

TEST(build_commands_alone)
{
	struct lec_steps s;
	const struct lec_steps_cmd *c;
	char *displays;

	lec_steps_init(&s, "guide",
		       BUILD "  commands:\n    - mkdir -p $READTHEDOCS_OUTPUT/html\n"
		       "    - echo hi > $READTHEDOCS_OUTPUT/html/index.html\n"
		       "formats: [htmlzip]\n");
	CHECK_INT(lec__job_generator(&s.job), LEC__GEN_COMMANDS);
	CHECK_OK(lec__job_build_docs(&s.job));
	/* The user's commands, through sh, in the checkout; no format of
	 * Lectern's after them. */
	displays = lec_steps_displays(&s);
	CHECK_STR(displays, "mkdir -p $READTHEDOCS_OUTPUT/html\n"
			    "echo hi > $READTHEDOCS_OUTPUT/html/index.html\n");
	free(displays);
	c = lec_steps_find(&s, "echo hi", NULL);
	CHECK(c && strcmp(c->argv, "/bin/sh -c echo hi > "
				   "$READTHEDOCS_OUTPUT/html/index.html") == 0);
	CHECK(c && strcmp(c->cwd, s.job.checkout) == 0);
	CHECK(c && lec_steps_env(c, "READTHEDOCS_OUTPUT") &&
	      strncmp(lec_steps_env(c, "READTHEDOCS_OUTPUT"), s.job.checkout,
		      strlen(s.job.checkout)) == 0);
	CHECK(c && lec_steps_env(c, "READTHEDOCS_PROJECT") &&
	      strcmp(lec_steps_env(c, "READTHEDOCS_PROJECT"), "guide") == 0);
	lec_steps_dispose(&s);
}

/* Sphinx warns in two chunks split mid-line (naming the page by its
 * absolute path, as it does), then fails. */
static int sphinx_fails(struct lec_steps *s, const char *const *argv,
			lec_runner_output_cb out, void *out_payload,
			struct lec_runner_result *result)
{
	static const char rest[] =
		"ING: undefined label: 'nope'\n"
		"Exception occurred:\n  File \"conf.py\", line 1\n"
		"ValueError: the theme is missing\n"
		"The full traceback has been saved in /tmp/sphinx-err.log\n";
	char first[1024];

	(void)argv;
	snprintf(first, sizeof(first),
		 "Running Sphinx v5.3.0\n%s/docs/index.rst:3: WARN",
		 s->job.checkout);
	out(first, strlen(first), out_payload);
	out(rest, strlen(rest), out_payload);
	result->end = LEC_RUNNER_EXITED;
	result->exit_code = 2;
	return 0;
}

TEST(warnings_read_and_the_cause_said)
{
	struct lec_steps s;

	lec_steps_init(&s, "guide", NULL);
	lec_steps_put(&s, "docs/conf.py", "project = 'Guide'\n");
	lec_steps_put(&s, "docs/index.rst", "Guide\n=====\n\n:ref:`nope`\n");
	s.answer = sphinx_fails;
	CHECK_ERR(lec__job_build_docs(&s.job), LEC_ERROR);
	CHECK_STR(s.job.error,
		  "ValueError: the theme is missing (conf.py, line 1) (command "
		  "\"python -m "
		  "sphinx -T -b html -d _build/doctrees -D language=en . "
		  "$READTHEDOCS_OUTPUT/html\" failed with exit code 2)");
	CHECK_INT(s.job.warnings.len, 1);
	if (s.job.warnings.len) {
		const struct lec_warning *w = &s.job.warnings.items[0];

		CHECK_STR(w->file, "docs/index.rst");
		CHECK_INT(w->line, 3);
		CHECK(w->message && strstr(w->message, "undefined label"));
	}
	lec_steps_dispose(&s);
}

static int skip_exit(struct lec_steps *s, const char *const *argv,
		     lec_runner_output_cb out, void *out_payload,
		     struct lec_runner_result *result)
{
	(void)s, (void)argv, (void)out, (void)out_payload;
	result->end = LEC_RUNNER_EXITED;
	result->exit_code = LEC_BUILD_EXIT_SKIP;
	return 0;
}

TEST(skip_and_missing_generators)
{
	struct lec_steps s;

	lec_steps_init(&s, "guide", BUILD "  commands:\n    - exit 183\n");
	s.answer = skip_exit;
	CHECK_ERR(lec__job_build_docs(&s.job), LEC_ERROR);
	CHECK_INT(s.job.failure, LEC_BUILD_FAILURE_SKIPPED);
	CHECK_STR(s.job.error, LEC_BUILD_ERROR_SKIPPED);
	lec_steps_dispose(&s);

	lec_steps_init(&s, "guide", NULL);
	lec_steps_put(&s, "docs/conf.py", "project = 'Guide'\n");
	s.env.has_sphinx = 0;
	CHECK_ERR(lec__job_build_docs(&s.job), LEC_ERROR);
	CHECK_STR(s.job.error, "Sphinx is not installed: install Debian's "
			       "python3-sphinx.");
	CHECK(lec_steps_find(&s, "-m sphinx", NULL) == NULL);
	lec_steps_dispose(&s);

	/* A writer's own Python (an activated virtualenv) is told how to
	 * install into it: Debian's package would not reach it. */
	lec_steps_init(&s, "guide", NULL);
	lec_steps_put(&s, "mkdocs.yml", "site_name: Guide\n");
	s.env.has_mkdocs = 0;
	lec__free(s.env.python);
	s.env.python = lec__strdup("/home/w/venv/bin/python");
	CHECK_ERR(lec__job_build_docs(&s.job), LEC_ERROR);
	CHECK_STR(s.job.error, "MkDocs is not installed for "
			       "/home/w/venv/bin/python: install it there "
			       "(/home/w/venv/bin/python -m pip install "
			       "mkdocs).");
	lec_steps_dispose(&s);
}

/* A failed step's error is the thread's message too, as after a failed
 * engine call: the first failure's, whatever failed after it; a message
 * formatted from the thread's own is copied whole. */
TEST(failed_step_leaves_its_error_as_the_message)
{
	struct lec_steps s;

	lec_steps_init(&s, "guide", BUILD "  commands:\n    - make html\n");
	s.answer = sphinx_fails;
	lec_error_clear();
	CHECK_ERR(lec__job_build_docs(&s.job), LEC_ERROR);
	CHECK_STR(s.job.error, "ValueError: the theme is missing (conf.py, line "
			       "1) (command \"make html\" failed with exit "
			       "code 2)");
	CHECK_STR(lec_error_last(), s.job.error ? s.job.error : "");
	CHECK_INT(lec_error_last_code(), LEC_ERROR);
	lec_error_clear();
	CHECK_ERR(lec__job_fail(&s.job, "a later failure"), LEC_ERROR);
	CHECK_STR(lec_error_last(), s.job.error ? s.job.error : "");
	lec_steps_dispose(&s);

	lec_steps_init(&s, "guide", NULL);
	lec__error(LEC_EIO, "no space left on device");
	CHECK_ERR(lec__job_fail(&s.job, "Publishing failed: %s",
				lec_error_last()),
		  LEC_ERROR);
	CHECK_STR(s.job.error, "Publishing failed: no space left on device");
	CHECK_STR(lec_error_last(), "Publishing failed: no space left on "
				    "device");
	lec_steps_dispose(&s);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(sphinx_found_and_run_as_the_service_does),
	TEST_ENTRY(sphinx_configured_with_formats),
	TEST_ENTRY(epub_without_a_book_fails),
	TEST_ENTRY(mkdocs_strict_and_without_increments),
	TEST_ENTRY(build_commands_alone),
	TEST_ENTRY(warnings_read_and_the_cause_said),
	TEST_ENTRY(skip_and_missing_generators),
	TEST_ENTRY(failed_step_leaves_its_error_as_the_message),
};

LEC_TEST_MAIN(tests)
