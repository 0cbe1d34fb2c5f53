/*
 * Error codes and the thread-local last-error message of the Lectern engine.
 *
 * Every fallible engine function returns LEC_OK (0) or a negative code below,
 * and on failure leaves a human-readable message that lec_error_last() returns
 * for the calling thread. The message is only meaningful right after a call
 * returned < 0; each public call clears it on entry. Codes and their generic
 * texts come from one table (LEC_ERROR_CODES) so that a code cannot exist
 * without a text; a unit test walks the table.
 */
#ifndef LECTERN_ERRORS_H
#define LECTERN_ERRORS_H

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, value, generic text) */
#define LEC_ERROR_CODES(X)                                                   \
	X(LEC_OK, 0, "success")                                              \
	X(LEC_ERROR, -1, "generic error")                                    \
	X(LEC_ENOMEM, -2, "out of memory")                                   \
	X(LEC_ENOTFOUND, -3, "not found")                                    \
	X(LEC_EEXISTS, -4, "already exists")                                 \
	X(LEC_EINVALID, -5, "invalid argument")                              \
	X(LEC_EBUSY, -6, "resource busy or locked")                          \
	X(LEC_EIO, -7, "input/output error")                                 \
	X(LEC_ECORRUPT, -8, "corrupt or foreign database")                   \
	X(LEC_EREADONLY, -9, "read-only storage")                            \
	X(LEC_ESCHEMA, -10, "database schema is newer than this program")    \
	X(LEC_EAUTH, -11, "authentication failed")                           \
	X(LEC_ELIMIT, -12, "limit exceeded")

enum lec_error_code {
#define LEC__ERROR_ENUM(name, value, text) name = value,
	LEC_ERROR_CODES(LEC__ERROR_ENUM)
#undef LEC__ERROR_ENUM
	LEC_ERROR_LAST = -13 /* one past the last code; never returned */
};

/**
 * The message of the last failed engine call on this thread.
 * @return a string owned by the engine, valid until the next engine call on
 *         this thread; never NULL ("" when no error is set).
 */
const char *lec_error_last(void);

/**
 * The code the last failed engine call on this thread returned (LEC_OK if none).
 */
int lec_error_last_code(void);

/**
 * The input field the last error concerns, for validation errors that the API
 * reports per field: a field name ("name"), a dotted path into a nested
 * object ("repository.url"), "non_field_errors" for an object-level rule, or
 * NULL when the error concerns no field (a business rule checked while
 * saving). Valid until the next engine call on this thread.
 */
const char *lec_error_last_field(void);

/** Forget the last error of this thread. */
void lec_error_clear(void);

/**
 * The generic text of an error code.
 * @return a static string; "unknown error" for a value outside the table.
 */
const char *lec_error_str(int code);

#ifdef __cplusplus
}
#endif
#endif
