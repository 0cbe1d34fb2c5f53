/*
 * The service's two code lists for projects: documentation languages (the
 * language a project is written in, which also appears in its URLs, such as
 * "en" or "pt-br") and programming languages ("py", "words", ...).
 *
 * Both tables are the hosted service's own, in its order, so that the API
 * shows the same names ({"code":"en","name":"English"}) and accepts exactly
 * the same codes. Codes are matched exactly (lowercase, '-' for regions).
 */
#ifndef LECTERN_LANGUAGE_H
#define LECTERN_LANGUAGE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the API shows as the name of a code that is not in a table. */
#define LEC_LANGUAGE_UNKNOWN_NAME "Unknown"

/* The defaults of a new project. */
#define LEC_LANGUAGE_DEFAULT "en"
#define LEC_PROGRAMMING_LANGUAGE_DEFAULT "words"

/* One entry of a code table. */
struct lec_language {
	const char *code; /* "pt-br" */
	const char *name; /* "Brazilian Portuguese" */
};

/**
 * The documentation languages, in the service's order.
 * @param count receives the number of entries
 * @return a static table, never NULL
 */
const struct lec_language *lec_languages(size_t *count);

/**
 * The display name of a documentation language code.
 * @return a static string; LEC_LANGUAGE_UNKNOWN_NAME for an unknown code or
 *         NULL
 */
const char *lec_language_name(const char *code);

/** Non-zero when code is a documentation language a project may use. */
int lec_language_valid(const char *code);

/**
 * The programming languages, in the service's order.
 * @param count receives the number of entries
 * @return a static table, never NULL
 */
const struct lec_language *lec_programming_languages(size_t *count);

/**
 * The display name of a programming language code ("py" -> "Python").
 * @return a static string; LEC_LANGUAGE_UNKNOWN_NAME for an unknown code or
 *         NULL
 */
const char *lec_programming_language_name(const char *code);

/** Non-zero when code is a programming language a project may use. */
int lec_programming_language_valid(const char *code);

#ifdef __cplusplus
}
#endif
#endif
