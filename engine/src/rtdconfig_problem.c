/*
 * What the hosted service would say of a refused configuration: the
 * message id its check raises (config/exceptions.py) and the values its
 * message is filled with (key, value, choices, ...), recorded beside
 * Lectern's own line-numbered error. The checks record one with each
 * refusal; a build stores it (lectern/build.h's failure_message), and the
 * build's notification shows the service's text made from it
 * (rtdconfig_messages.c).
 *
 * The record is per thread, as the engine's last error is: it is the one
 * of the last lec_rtd_config_find, _load or _parse on the thread, each of
 * which clears it first. A value is kept as the service's templates show
 * it, Python's str() of what its YAML parser made of it ("3.1" for an
 * unquoted 3.10, "None", "['python']"), with the name of its class for
 * the templates' to_class_name.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "internal.h"
#include "rtdconfig_internal.h"

/* Format values of one message: the most any has is four (the apt ones:
 * prefix, package, key and value). */
#define PROBLEM_VALUES 6
/* Bytes of one value's text: the longest list of choices, or a value
 * quoted whole up to the length a message shows. */
#define PROBLEM_TEXT_MAX LEC_RTD__CHOICES_MAX
/* Digits a double needs to read back as itself. */
#define DOUBLE_DIGITS 17

static _Thread_local struct {
	const char *id; /* NULL: nothing refused */
	const char *value_class;
	size_t n;
	struct {
		const char *name;
		char text[PROBLEM_TEXT_MAX];
	} values[PROBLEM_VALUES];
} last;

/* A bounded writer: what does not fit ends in "...". */
struct out {
	char *buf;
	size_t size, len;
	int cut;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->cut)
		return;
	if (o->len + n + 4 > o->size) {
		n = o->size > o->len + 4 ? o->size - o->len - 4 : 0;
		o->cut = 1;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	if (o->cut) {
		memcpy(o->buf + o->len, "...", 3);
		o->len += 3;
	}
	o->buf[o->len] = '\0';
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* Python's repr() of a string: single quotes, unless it has one and no
 * double quote; backslashes and control characters escaped. */
static void py_quote(struct out *o, const char *s)
{
	char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'', esc[8];

	put(o, &q, 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\' || c == (unsigned char)q) {
			esc[0] = '\\';
			esc[1] = (char)c;
			put(o, esc, 2);
		} else if (c == '\n' || c == '\t' || c == '\r') {
			snprintf(esc, sizeof(esc), "\\%c",
				 c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
			put(o, esc, 2);
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(esc, sizeof(esc), "\\x%02x", c);
			put(o, esc, 4);
		} else {
			put(o, s, 1);
		}
	}
	put(o, &q, 1);
}

/* Python's repr() of a float read from YAML 1.1 text: the shortest digits
 * that read back, positional from 1e-4 to 1e16, else with an exponent of
 * at least two digits; YAML's .inf and .nan are Python's inf and nan.
 * Text it cannot read (base 60) is shown as it is. */
static void py_float(struct out *o, const char *text)
{
	char clean[64], digits[DOUBLE_DIGITS + 8], tmp[DOUBLE_DIGITS + 16];
	size_t n = 0, nd = 0, i;
	const char *t;
	char *end;
	double d;
	int exp, p;

	for (t = text; *t && n + 1 < sizeof(clean); t++)
		if (*t != '_')
			clean[n++] = *t;
	clean[n] = '\0';
	t = clean + (clean[0] == '-' || clean[0] == '+');
	if (strcasecmp(t, ".inf") == 0 || strcasecmp(t, ".nan") == 0) {
		puts_(o, t[1] == 'n' || t[1] == 'N' ? "nan"
		      : clean[0] == '-'		   ? "-inf"
						   : "inf");
		return;
	}
	d = strtod(clean, &end);
	if (strchr(clean, ':') || *end != '\0' || n == 0) {
		puts_(o, text);
		return;
	}
	if (isnan(d) || isinf(d)) { /* out of a double's range */
		puts_(o, isnan(d) ? "nan" : d < 0 ? "-inf" : "inf");
		return;
	}
	for (p = 1; p <= DOUBLE_DIGITS; p++) {
		snprintf(tmp, sizeof(tmp), "%.*e", p - 1, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	for (t = tmp; *t && *t != 'e'; t++)
		if (*t >= '0' && *t <= '9')
			digits[nd++] = *t;
	digits[nd] = '\0';
	exp = (int)strtol(t + 1, NULL, 10);
	if (signbit(d))
		puts_(o, "-");
	if (exp >= -4 && exp < 16) {
		if (exp < 0) {
			puts_(o, "0.");
			for (i = 0; i < (size_t)(-exp - 1); i++)
				puts_(o, "0");
			put(o, digits, nd);
			return;
		}
		for (i = 0; i <= (size_t)exp; i++)
			put(o, i < nd ? &digits[i] : "0", 1);
		puts_(o, ".");
		if ((size_t)exp + 1 < nd)
			put(o, digits + exp + 1, nd - (size_t)exp - 1);
		else
			puts_(o, "0");
		return;
	}
	put(o, digits, 1);
	if (nd > 1) {
		puts_(o, ".");
		put(o, digits + 1, nd - 1);
	}
	snprintf(tmp, sizeof(tmp), "e%c%02d", exp < 0 ? '-' : '+',
		 exp < 0 ? -exp : exp);
	puts_(o, tmp);
}

static void py_scalar(struct out *o, enum lec__yaml_type type,
		      const char *text, int repr)
{
	char num[32];
	long long v;

	switch (type) {
	case LEC__YAML_STR:
		if (repr)
			py_quote(o, text);
		else
			puts_(o, text);
		return;
	case LEC__YAML_NULL:
		puts_(o, "None");
		return;
	case LEC__YAML_BOOL:
		puts_(o, lec__yaml_bool_value(text) ? "True" : "False");
		return;
	case LEC__YAML_INT:
		if (lec__yaml_int_value(text, &v) == LEC_OK) {
			snprintf(num, sizeof(num), "%lld", v);
			puts_(o, num);
		} else {
			puts_(o, text);
		}
		return;
	case LEC__YAML_FLOAT:
		py_float(o, text);
		return;
	case LEC__YAML_TIMESTAMP:
		puts_(o, text);
		return;
	}
}

/* Python's str() of n (repr() inside a collection), as far as it fits. */
static void py_text(struct out *o, const struct lec__yaml_node *n, int repr)
{
	size_t i;

	if (n->kind == LEC__YAML_SCALAR) {
		py_scalar(o, n->type, n->text, repr);
		return;
	}
	puts_(o, n->kind == LEC__YAML_MAP ? "{" : "[");
	for (i = 0; i < n->len && !o->cut; i++) {
		if (i)
			puts_(o, ", ");
		if (n->kind == LEC__YAML_MAP) {
			py_scalar(o, n->entries[i].key_type, n->entries[i].key,
				  1);
			puts_(o, ": ");
		}
		py_text(o, n->entries[i].value, 1);
	}
	puts_(o, n->kind == LEC__YAML_MAP ? "}" : "]");
}

/* The name of the Python class the service's parser makes of n. */
static const char *py_class(const struct lec__yaml_node *n)
{
	if (n->kind != LEC__YAML_SCALAR)
		return n->kind == LEC__YAML_MAP ? "dict" : "list";
	switch (n->type) {
	case LEC__YAML_STR:
		return "str";
	case LEC__YAML_NULL:
		return "NoneType";
	case LEC__YAML_BOOL:
		return "bool";
	case LEC__YAML_INT:
		return "int";
	case LEC__YAML_FLOAT:
		return "float";
	case LEC__YAML_TIMESTAMP:
		return strlen(n->text) == 10 ? "date" : "datetime";
	}
	return "str";
}

/* Recording ------------------------------------------------------------------ */

void lec_rtd__problem_clear(void)
{
	last.id = NULL;
	last.value_class = NULL;
	last.n = 0;
}

int lec_rtd__problem_recorded(void)
{
	return last.id != NULL;
}

/* The slot of a new value, or NULL when the message has all it can. */
static char *slot(const char *name)
{
	if (last.n >= PROBLEM_VALUES)
		return NULL;
	last.values[last.n].name = name;
	return last.values[last.n++].text;
}

void lec_rtd__problem_add(const char *name, const char *text)
{
	struct out o = { slot(name), PROBLEM_TEXT_MAX, 0, 0 };

	if (o.buf == NULL)
		return;
	o.buf[0] = '\0';
	puts_(&o, text);
}

void lec_rtd__problem(const char *id, const char *key,
		      const struct lec__yaml_node *value)
{
	struct out o = { NULL, PROBLEM_TEXT_MAX, 0, 0 };

	lec_rtd__problem_clear();
	last.id = id;
	if (key && *key)
		lec_rtd__problem_add("key", key);
	if (value == NULL || (o.buf = slot("value")) == NULL)
		return;
	o.buf[0] = '\0';
	py_text(&o, value, 0);
	last.value_class = py_class(value);
}

/* Reading ------------------------------------------------------------------ */

const char *lec_rtd_config_problem_id(void)
{
	return last.id;
}

char *lec_rtd_config_problem_json(void)
{
	cJSON *o = NULL, *values;
	char *text = NULL, *copy = NULL;
	size_t i;
	int ok;

	if (last.id == NULL)
		return NULL;
	ok = (o = cJSON_CreateObject()) != NULL &&
	     cJSON_AddStringToObject(o, "id", last.id) != NULL &&
	     (values = cJSON_AddObjectToObject(o, "format_values")) != NULL;
	for (i = 0; ok && i < last.n; i++)
		ok = cJSON_AddStringToObject(values, last.values[i].name,
					     last.values[i].text) != NULL;
	if (ok && last.value_class)
		ok = cJSON_AddStringToObject(o, "value_class",
					     last.value_class) != NULL;
	if (ok && (text = cJSON_PrintUnformatted(o)) != NULL)
		copy = lec__strdup(text);
	cJSON_free(text);
	cJSON_Delete(o);
	if (copy == NULL)
		lec__error_oom();
	return copy;
}
