/*
 * The engine's error state: one thread-local code and message per thread, so
 * that the multi-threaded HTTP server can report the exact cause of a failure
 * to the client that caused it. The message buffer is fixed-size so that
 * reporting out-of-memory never needs memory.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Long enough for a path plus an SQLite message; longer text is cut. */
#define LEC_ERROR_MESSAGE_MAX 1024

static _Thread_local char last_message[LEC_ERROR_MESSAGE_MAX];
static _Thread_local int last_code;
static _Thread_local const char *last_field;

int lec__error_field(int code, const char *field, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_message, sizeof(last_message), fmt, ap);
	va_end(ap);
	last_code = code;
	last_field = field;
	return code;
}

int lec__error_required(const char *field)
{
	return lec__error_field(LEC_EINVALID, field, "This field is required.");
}

int lec__error_blank(const char *field)
{
	return lec__error_field(LEC_EINVALID, field,
				"This field may not be blank.");
}

int lec__error_too_long(const char *field, size_t max)
{
	return lec__error_field(LEC_EINVALID, field,
				"Ensure this field has no more than %zu "
				"characters.",
				max);
}

int lec__error_oom(void)
{
	static const char text[] = "out of memory";

	memcpy(last_message, text, sizeof(text));
	last_code = LEC_ENOMEM;
	last_field = NULL;
	return LEC_ENOMEM;
}

const char *lec_error_last(void)
{
	return last_message;
}

int lec_error_last_code(void)
{
	return last_code;
}

const char *lec_error_last_field(void)
{
	return last_field;
}

void lec_error_clear(void)
{
	last_message[0] = '\0';
	last_code = LEC_OK;
	last_field = NULL;
}

const char *lec_error_str(int code)
{
	switch (code) {
#define LEC__ERROR_CASE(name, value, text)                                   \
	case value:                                                          \
		return text;
		LEC_ERROR_CODES(LEC__ERROR_CASE)
#undef LEC__ERROR_CASE
	default:
		return "unknown error";
	}
}
