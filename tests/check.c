/*
 * The test runner shared by every C test (see check.h): runs a table's
 * cases, or those named on the command line, and reports each and the sum.
 */
#include <stdlib.h>

#include "check.h"

int lec_test_failures;

char *lec_test_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *data = NULL;
	size_t got = 0;
	long size;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0 ||
	    (data = malloc((size_t)size + 1)) == NULL ||
	    (got = fread(data, 1, (size_t)size, f)) != (size_t)size) {
		FAIL_AT("cannot read %s", path);
		free(data);
		data = NULL;
	} else {
		data[got] = '\0';
		if (len != NULL)
			*len = got;
	}
	if (f != NULL)
		fclose(f);
	return data;
}

static int selected(int argc, char **argv, const char *name)
{
	int i;

	if (argc <= 1)
		return 1;
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return 1;
	return 0;
}

int lec_test_run(int argc, char **argv, const struct lec_test *tests,
		 size_t count)
{
	int passed = 0, failed = 0;
	size_t i;

	for (i = 0; i < count; i++) {
		int before = lec_test_failures;

		if (!selected(argc, argv, tests[i].name))
			continue;
		tests[i].fn();
		if (lec_test_failures == before) {
			passed++;
			printf("ok   %s\n", tests[i].name);
		} else {
			failed++;
			printf("FAIL %s\n", tests[i].name);
		}
		fflush(stdout);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
