/*
 * The cause of a failed build command (build_cause.c): the line a person
 * needs from real generators' output (MkDocs' missing plugin with its
 * colour codes, a Sphinx extension error after a traceback, pip's
 * resolution failure), the ring keeping only the end of long output, a
 * cut that never splits a UTF-8 character, and ANSI stripping.
 */
#include "harness.h"
#include "pipeline_internal.h"

static void cause_of(const char *output, char *out, size_t cap)
{
	struct lec__tail t;

	memset(&t, 0, sizeof(t));
	lec__tail_add(&t, output, strlen(output));
	lec__tail_cause(&t, out, cap);
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
	CHECK_STR(cause, "Could not import extension myst_parser (exception: "
			 "No module named 'myst_parser')");
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
	TEST_ENTRY(mkdocs_missing_plugin),
	TEST_ENTRY(sphinx_extension_error),
	TEST_ENTRY(pip_and_plain_failures),
	TEST_ENTRY(only_the_end_is_kept),
	TEST_ENTRY(cut_at_a_character),
	TEST_ENTRY(strip_ansi),
};

LEC_TEST_MAIN(tests)
