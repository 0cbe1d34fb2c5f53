/*
 * Field tables: how the client describes each model it parses from the
 * API's JSON, once. A model is a C struct and a table with a row per JSON
 * field it reads: the field's name (and the member of a nested object to
 * take, "urls" then "documentation"), its kind, and the offsetof of the C
 * member it fills. One parser and one releaser (fields.c) walk any table,
 * so what a kind does with a missing, null or differently typed value is
 * decided once for every model, and adding a field is adding a row.
 *
 * The rules are the lenient ones the client has always had (client.h):
 * unknown fields are ignored; a value that is missing, null or of another
 * type counts as not found, which leaves the kind's default; only a value
 * that is not an object, or a not-found row marked required, is an error
 * (LC_EJSON). The first allocation failure sticks (LC_ENOMEM).
 *
 * Rows are written with the F_* macros below, inside a table preceded by
 * `#define F_REC struct <the model>` (each row's offsetof names it).
 */
#ifndef LECTERN_CLIENT_FIELDS_H
#define LECTERN_CLIENT_FIELDS_H

#include <stddef.h>

#include "client_internal.h"

/* What a row reads and the member it fills. */
enum lc__kind {
	LC__STR,     /* char *: a copy of the string; else the row's text
		      * (a default, copied) or NULL */
	LC__INT,     /* long long: the number as an integer (truncated;
		      * beyond ±9.2e18 it counts as not found); else def */
	LC__BOOL,    /* int: 1 or 0; else LC_UNKNOWN */
	LC__STRINGS, /* char ** and a size_t count: the array's strings, or
		      * with text the string `text` of its objects; other
		      * items skipped; NULL and 0 when empty or no array */
	LC__LIST,    /* T * and a size_t count: the array's objects, each
		      * filled by the row's model; other items skipped */
	LC__MODEL,   /* T *: the object parsed by the row's model, which
		      * keeps its own raw; NULL when no object */
};

/* Row flags. */
enum {
	/* Read only when the rows just before it for the same member found
	 * nothing: another shape's name for it (v2's "project_slug" after
	 * v3's "project"). Not released: the first row of the run is. */
	LC__ELSE = 1,
	/* Found as soon as its outer object is there, even without the
	 * member: that shape is the one sent, and the ELSE rows after it do
	 * not apply. */
	LC__SETTLES = 2,
	/* A string of length 0 means none (NULL): v2's "error": "". */
	LC__EMPTY_IS_NULL = 4,
	/* Not found: the whole parse fails, LC_EJSON with text as message. */
	LC__REQUIRED = 8,
};

struct lc__model;

/* The state of one parse: the first failure sticks, so rows need no
 * checks of their own (SQLite's pRc habit). */
struct lc__parse {
	int rc;                /* LC_OK, LC_ENOMEM, or LC_EJSON (required) */
	const char *message;   /* with LC_EJSON: what was missing */
};

struct lc__field {
	const char *key;       /* the field of the object */
	const char *sub;       /* then this field of it, or NULL */
	enum lc__kind kind;
	unsigned flags;
	size_t offset;         /* the member */
	size_t len;            /* STRINGS, LIST: the count member */
	long long def;         /* INT: the default */
	const char *text;      /* STR: the default (NULL: none); STRINGS: the
				* objects' string field; REQUIRED: message */
	const struct lc__model *model; /* LIST: the items'; MODEL: the
					* nested object's */
	/* A conversion of its own instead of the kind's: reads v (NULL when
	 * missing) into member, returns whether it found a value. The kind
	 * says how the member is released (LC__INT, LC__BOOL: nothing). */
	int (*convert)(struct lc__parse *p, const cJSON *v, void *member);
};

/* No raw member: the items of a list. */
#define LC__NO_RAW ((size_t)-1)

struct lc__model {
	const char *what;      /* "a project": "expected a JSON object for %s";
				* NULL for a list's items, never an error */
	size_t size;           /* of the struct */
	const struct lc__field *fields;
	size_t count;
	size_t raw;            /* offsetof the cJSON *raw copy, or LC__NO_RAW */
};

#define LC__MODEL(what, type, fields, raw)                                   \
	{ what, sizeof(type), fields, sizeof(fields) / sizeof(fields[0]), raw }

/*
 * Parses json by m into a new struct (caller frees with lc__model_free).
 * @return LC_OK; LC_EJSON when json is not an object ("expected a JSON
 *         object for <what>") or a required field was not found (its
 *         message); LC_ENOMEM. *out is NULL on failure.
 */
int lc__model_parse(const struct lc__model *m, const cJSON *json, void **out,
		    struct lc_error *err);
/* Releases what m's rows filled, raw, and rec itself. NULL is a no-op. */
void lc__model_free(const struct lc__model *m, void *rec);

/* A copy of s, or NULL (and p->rc LC_ENOMEM) when out of memory; NULL
 * without trying once p has failed. For conversions. */
char *lc__parse_dup(struct lc__parse *p, const char *s);
/* Records an allocation failure in p. */
void lc__parse_nomem(struct lc__parse *p);

/* ------------------------------------------------------------ Rows */

#define F_AT_(k, s, kd, m) .key = k, .sub = s, .kind = kd,                  \
			   .offset = offsetof(F_REC, m)

/* Each row macro takes an optional last argument: a flag as
 * `.flags = LC__ELSE` (F_ELSE, F_SETTLES, F_EMPTY_IS_NULL). */
#define F_ELSE .flags = LC__ELSE
#define F_SETTLES .flags = LC__SETTLES
#define F_EMPTY_IS_NULL .flags = LC__EMPTY_IS_NULL

/* A string, NULL when not found; key.sub for a nested object's. */
#define F_STR(k, m, ...) { F_AT_(k, NULL, LC__STR, m), __VA_ARGS__ }
#define F_STR_IN(k, s, m, ...) { F_AT_(k, s, LC__STR, m), __VA_ARGS__ }
/* A string with a default: never NULL. */
#define F_STR_OR(k, m, dflt) { F_AT_(k, NULL, LC__STR, m), .text = dflt }
/* A time: kept as the ISO 8601 text sent, so a string. */
#define F_TIME(k, m, ...) F_STR(k, m, __VA_ARGS__)
#define F_TIME_IN(k, s, m, ...) F_STR_IN(k, s, m, __VA_ARGS__)
/* A string or an object carrying it as s: v3's language {code, name} and
 * v2's "en" (two rows). */
#define F_STR_OR_IN(k, s, m) F_STR(k, m), F_STR_IN(k, s, m, F_ELSE)
#define F_INT(k, m, dflt, ...)                                               \
	{ F_AT_(k, NULL, LC__INT, m), .def = dflt, __VA_ARGS__ }
#define F_INT_IN(k, s, m, dflt)                                              \
	{ F_AT_(k, s, LC__INT, m), .def = dflt }
#define F_BOOL(k, m) { F_AT_(k, NULL, LC__BOOL, m) }
/* An array of strings; of objects' string field item (F_STRINGS_OF). */
#define F_STRINGS(k, m, n)                                                   \
	{ F_AT_(k, NULL, LC__STRINGS, m), .len = offsetof(F_REC, n) }
#define F_STRINGS_IN(k, s, m, n)                                             \
	{ F_AT_(k, s, LC__STRINGS, m), .len = offsetof(F_REC, n) }
#define F_STRINGS_OF(k, item, m, n)                                          \
	{ F_AT_(k, NULL, LC__STRINGS, m), .len = offsetof(F_REC, n),         \
	  .text = item }
/* An array of objects filled by model mo (whose raw is LC__NO_RAW). */
#define F_LIST(k, m, n, mo)                                                  \
	{ F_AT_(k, NULL, LC__LIST, m), .len = offsetof(F_REC, n), .model = mo }
/* A nested model that must be there: without it, LC_EJSON and why. */
#define F_MODEL_REQUIRED(k, m, mo, why)                                      \
	{ F_AT_(k, NULL, LC__MODEL, m), .model = mo, .flags = LC__REQUIRED,  \
	  .text = why }
/* A member of kind kd filled by fn (see convert). */
#define F_CONVERT(k, kd, m, fn) { F_AT_(k, NULL, kd, m), .convert = fn }

#endif
