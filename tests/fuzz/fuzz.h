/*
 * What the libFuzzer harnesses of tests/fuzz share. Each harness is one file
 * defining LLVMFuzzerTestOneInput for one parser; these helpers turn the
 * fuzzer's bytes into the shapes the parsers take (a NUL-terminated string,
 * newline-separated fields) and check the promises a parser makes about
 * its output, since a broken promise is as much a finding as a crash.
 * tests/fuzz/README.md says how the targets are built and run.
 */
#ifndef LEC_FUZZ_H
#define LEC_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Fields fuzz_fields_split cuts an input into: enough for the widest
 * harness (a redirect request and a few redirects). */
#define FUZZ_FIELDS_MAX 24

/* libFuzzer's entry point, which each harness defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort with the harness's message when a promise is broken; libFuzzer
 * then keeps the input as a crash like any sanitizer finding. */
#define FUZZ_CHECK(cond, what)                                               \
	do {                                                                 \
		if (!(cond))                                                 \
			fuzz_fail(__FILE__, __LINE__, #cond, what);          \
	} while (0)
_Noreturn void fuzz_fail(const char *file, int line, const char *cond,
			 const char *what);

/* A NUL-terminated copy of size bytes of data (which may hold NULs); a
 * harness has no error path, so running out of memory aborts. */
char *fuzz_strndup(const uint8_t *data, size_t size);

/* The input cut at each '\n' into at most FUZZ_FIELDS_MAX NUL-terminated
 * fields (the last one keeps any further newlines); a field past the end
 * of the input is "". Seeds stay readable: one field per line. */
struct fuzz_fields {
	char *buf;                       /* owned copy the fields point in */
	char *at[FUZZ_FIELDS_MAX];       /* writable, as some APIs want */
	size_t n;                        /* fields present in the input */
};
void fuzz_fields_split(struct fuzz_fields *f, const uint8_t *data,
		       size_t size);
void fuzz_fields_dispose(struct fuzz_fields *f);

/* Whether s (n bytes) is valid UTF-8 (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF). */
int fuzz_utf8_valid(const char *s, size_t n);

#endif
