/*
 * The cause of a failed build command (build_cause.c): the line a person
 * needs from real generators' output (MkDocs' missing plugin with its
 * colour codes, a Sphinx extension error after a traceback, pip's
 * resolution failure), the ring keeping only the end of long output, a
 * cut that never splits a UTF-8 character, and ANSI stripping.
 */
#include "harness.h"
#include "job.h"

static void cause_of(const char *output, char *out, size_t cap)
{
	struct lec__tail t;

	memset(&t, 0, sizeof(t));
	lec__tail_add(&t, output, strlen(output));
	lec__tail_cause(&t, out, cap);
}

/* A fixture's path, beside this file; valid until the next call. */
static const char *fixture(const char *name)
{
	static char path[4096];
	const char *here = __FILE__;
	const char *slash = strrchr(here, '/');

	if (slash == NULL)
		snprintf(path, sizeof(path), "fixtures/causes/%s", name);
	else
		snprintf(path, sizeof(path), "%.*s/fixtures/causes/%s",
			 (int)(slash - here), here, name);
	return path;
}

/* Real outputs (tests/engine/fixtures/causes/, made by Sphinx 5.3, MkDocs
 * 1.4.2, git 2.39 and pip 23 on Debian 12, the checkout's path made the
 * sandbox's) and the line a person would quote from each (issue 38, item
 * 4): the exception, not Python 3.11's carets under a template's line;
 * git's fatal:, not the note after it; the exception of the package's own
 * setup.py in pip's box, not pip's summary. */
TEST(real_outputs)
{
	static const struct {
		const char *file, *cause;
	} cases[] = {
		{ "mkdocs_jinja.log",
		  "jinja2.exceptions.UndefinedError: 'nav_item' is undefined "
		  "(main.html, line 2)" },
		{ "git_boundary.log",
		  "fatal: not a git repository (or any parent up to mount "
		  "point /)" },
		{ "sphinx_conf_import.log",
		  "ModuleNotFoundError: No module named 'nosuchmodule_abc' "
		  "(conf.py, line 1)" },
		{ "sphinx_theme.log",
		  "Theme error: no theme named 'nosuchtheme' found (missing "
		  "theme.conf?)" },
		{ "sphinx_W1.log",
		  "Warning, treated as error: /home/docs/checkouts/"
		  "readthedocs.org/user_builds/p/checkouts/latest/index.rst:4:"
		  "Unknown directive type \"nosuchdirective\"." },
		{ "sphinx_W.log",
		  "/home/docs/checkouts/readthedocs.org/user_builds/p/"
		  "checkouts/latest/index.rst:4: ERROR: Unknown directive type "
		  "\"nosuchdirective\"." },
		{ "pip_none.log",
		  "ERROR: No matching distribution found for "
		  "nosuchpkg-xyz==1.0" },
		{ "pip_setup.log",
		  "FileNotFoundError: [Errno 2] No such file or directory: "
		  "'missing.json' (setup.py, line 3)" },
		{ "mkdocs_httpx.log",
		  "ERROR - Config value 'markdown_extensions': Failed to load "
		  "extension 'mkautodoc'. ModuleNotFoundError: No module named "
		  "'mkautodoc'" },
	};
	char cause[LEC__CAUSE_MAX], *text;
	size_t i, len;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		text = lec_test_read_file(fixture(cases[i].file), &len);
		CHECK(text != NULL);
		if (text == NULL)
			continue;
		cause_of(text, cause, sizeof(cause));
		if (strcmp(cause, cases[i].cause) != 0)
			FAIL_AT("%s: \"%s\", expected \"%s\"", cases[i].file,
				cause, cases[i].cause);
		free(text);
	}
}

TEST(mkdocs_missing_plugin)
{
	char cause[LEC__CAUSE_MAX];

	cause_of("INFO     -  Cleaning site directory\n"
		 "\x1b[31mERROR   \x1b[0m -  Config value 'plugins': The "
		 "\"redirects\" plugin is not installed\n"
		 "\n"
		 "Aborted with 1 Configuration Errors!\n",
		 cause, sizeof(cause));
	/* The error line, not the summary after it; colour codes gone,
	 * column padding folded. */
	CHECK_STR(cause, "ERROR - Config value 'plugins': The \"redirects\" "
			 "plugin is not installed");
}

TEST(sphinx_extension_error)
{
	char cause[LEC__CAUSE_MAX];

	cause_of("Running Sphinx v5.3.0\n"
		 "    raise ExtensionError(__('Could not import extension %s') "
		 "% extname,\n"
		 "sphinx.errors.ExtensionError: Could not import extension "
		 "myst_parser (exception: No module named 'myst_parser')\n"
		 "\n"
		 "Extension error:\n"
		 "Could not import extension myst_parser (exception: No module "
		 "named 'myst_parser')\n",
		 cause, sizeof(cause));
	/* The heading and the message under it. */
	CHECK_STR(cause, "Extension error: Could not import extension "
			 "myst_parser (exception: No module named "
			 "'myst_parser')");
}

/* Sphinx 5.3's own output for a conf.py with an unclosed bracket: the
 * heading says nothing alone, the line under it says what and where. */
TEST(sphinx_configuration_error)
{
	char cause[LEC__CAUSE_MAX];

	cause_of("Running Sphinx v5.3.0\n"
		 "\n"
		 "Configuration error:\n"
		 "There is a syntax error in your configuration file: '[' was "
		 "never closed (conf.py, line 2)\n"
		 "\n",
		 cause, sizeof(cause));
	CHECK_STR(cause, "Configuration error: There is a syntax error in "
			 "your configuration file: '[' was never closed "
			 "(conf.py, line 2)");
}

/* A conf.py that raises: Sphinx's heading only announces a traceback,
 * whose exception is the cause, with the user's frame (not Sphinx's). */
TEST(python_traceback)
{
	char cause[LEC__CAUSE_MAX];

	cause_of("Running Sphinx v5.3.0\n"
		 "\n"
		 "Configuration error:\n"
		 "There is a programmable error in your configuration file:\n"
		 "\n"
		 "Traceback (most recent call last):\n"
		 "  File \"/usr/lib/python3/dist-packages/sphinx/config.py\", "
		 "line 350, in eval_config_file\n"
		 "    exec(code, namespace)\n"
		 "  File \"/home/docs/checkouts/latest/docs/conf.py\", line 2, "
		 "in <module>\n"
		 "    import nosuch\n"
		 "ModuleNotFoundError: No module named 'nosuch'\n",
		 cause, sizeof(cause));
	CHECK_STR(cause, "ModuleNotFoundError: No module named 'nosuch' "
			 "(conf.py, line 2)");
	/* Sphinx's heading for an exception in an extension's setup, and
	 * the advice it prints after the exception (which mentions "a user
	 * error"). */
	cause_of("Exception occurred:\n"
		 "  File \"/tmp/h/conf.py\", line 3, in setup\n"
		 "    1/0\n"
		 "    ~^~\n"
		 "ZeroDivisionError: division by zero\n"
		 "The full traceback has been saved in /tmp/sphinx-err-g1.log, "
		 "if you want to report the issue to the developers.\n"
		 "Please also report this if it was a user error, so that a "
		 "better error message can be provided next time.\n",
		 cause, sizeof(cause));
	CHECK_STR(cause, "ZeroDivisionError: division by zero (conf.py, line 3)");
	/* Only installed packages' frames: no place is given. */
	cause_of("Traceback (most recent call last):\n"
		 "  File \"/usr/lib/python3.11/json/__init__.py\", line 293, "
		 "in load\n"
		 "json.decoder.JSONDecodeError: Expecting value: line 1 column "
		 "1 (char 0)\n",
		 cause, sizeof(cause));
	CHECK_STR(cause, "json.decoder.JSONDecodeError: Expecting value: line 1 "
			 "column 1 (char 0)");
}

/* MkDocs 1.4's configuration failures: the record and the lines that
 * continue it, not the "Aborted" summary nor half the record. */
TEST(mkdocs_configuration_errors)
{
	char cause[LEC__CAUSE_MAX];

	cause_of("\x1b[31mERROR    -  \x1b[0mConfig value "
		 "'markdown_extensions': Failed to load extension "
		 "'nosuchext'.\n"
		 "ModuleNotFoundError: No module named 'nosuchext'\n"
		 "Aborted with 1 Configuration Errors!\n",
		 cause, sizeof(cause));
	CHECK_STR(cause, "ERROR - Config value 'markdown_extensions': Failed to "
			 "load extension 'nosuchext'. ModuleNotFoundError: No "
			 "module named 'nosuchext'");
	cause_of("Error: MkDocs encountered an error parsing the "
		 "configuration file: while parsing a flow node\n"
		 "expected the node content, but found '<stream end>'\n"
		 "  in \"/tmp/h31mk/mkdocs.yml\", line 4, column 1\n",
		 cause, sizeof(cause));
	CHECK_STR(cause, "Error: MkDocs encountered an error parsing the "
			 "configuration file: while parsing a flow node "
			 "expected the node content, but found '<stream end>' "
			 "in \"/tmp/h31mk/mkdocs.yml\", line 4, column 1");
	/* MkDocs 1.6's wording of the summary. */
	cause_of("ERROR    -  Config value 'theme': Unrecognised theme name: "
		 "'nosuch'.\n"
		 "Aborted with a configuration error!\n",
		 cause, sizeof(cause));
	CHECK_STR(cause, "ERROR - Config value 'theme': Unrecognised theme "
			 "name: 'nosuch'.");
}

TEST(pip_and_plain_failures)
{
	char cause[LEC__CAUSE_MAX];

	cause_of("Looking in links: /wheels\n"
		 "ERROR: Could not find a version that satisfies the "
		 "requirement nosuchpkg (from versions: none)\n"
		 "ERROR: No matching distribution found for nosuchpkg\n",
		 cause, sizeof(cause));
	CHECK_STR(cause, "ERROR: No matching distribution found for nosuchpkg");
	/* Nothing names an error: the last non-empty line. */
	cause_of("step one\nstep two   \n\n  \n", cause, sizeof(cause));
	CHECK_STR(cause, "step two");
	cause_of("", cause, sizeof(cause));
	CHECK_STR(cause, "");
}

TEST(only_the_end_is_kept)
{
	struct lec__tail t;
	char cause[LEC__CAUSE_MAX], chunk[1000];
	int i;

	memset(&t, 0, sizeof(t));
	memset(chunk, 'x', sizeof(chunk) - 1);
	chunk[sizeof(chunk) - 1] = '\n';
	lec__tail_add(&t, "Error: an early error\n", 22);
	for (i = 0; i < 20; i++) /* 20 KB of noise pushes it out */
		lec__tail_add(&t, chunk, sizeof(chunk));
	lec__tail_add(&t, "Exception: the real one\n", 24);
	lec__tail_cause(&t, cause, sizeof(cause));
	CHECK_STR(cause, "Exception: the real one");
	CHECK_INT((int)t.len, LEC__TAIL_MAX);
}

TEST(cut_at_a_character)
{
	char cause[16];

	/* "error: " then 'é' (2 bytes) repeated: the cut at 15 bytes must not
	 * leave half a character. */
	cause_of("error: \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n", cause,
		 sizeof(cause));
	CHECK_STR(cause, "error: \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
}

TEST(strip_ansi)
{
	char text[] = "\x1b[1;31mred\x1b[0m plain \x1b]0;title\x07" "end\x1b[";
	size_t n = lec__strip_ansi(text, strlen(text));

	CHECK_INT((int)n, 13);
	CHECK_STR(text, "red plain end");
}

static const struct lec_test tests[] = {
	TEST_ENTRY(real_outputs),
	TEST_ENTRY(mkdocs_missing_plugin),
	TEST_ENTRY(sphinx_extension_error),
	TEST_ENTRY(sphinx_configuration_error),
	TEST_ENTRY(python_traceback),
	TEST_ENTRY(mkdocs_configuration_errors),
	TEST_ENTRY(pip_and_plain_failures),
	TEST_ENTRY(only_the_end_is_kept),
	TEST_ENTRY(cut_at_a_character),
	TEST_ENTRY(strip_ansi),
};

LEC_TEST_MAIN(tests)
