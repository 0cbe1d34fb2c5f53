/*
 * The Python a writer's own build runs with (`lectern preview` and
 * `lectern check`): the virtualenv they activated, as `sphinx-build` typed
 * in that shell would use, else Debian's (the engine's default). A project
 * whose conf.py imports the project itself (release =
 * importlib.metadata.version(...)) or whose theme is pip-installed builds
 * only in the environment the writer installed it into; the pipeline's
 * own builds make theirs from python.install, which a preview does not
 * run (docs/preview.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

int cli_writer_python(char *buf, size_t size)
{
	const char *venv = getenv("VIRTUAL_ENV");
	int n;

	if (venv == NULL || venv[0] != '/')
		return 0;
	n = snprintf(buf, size, "%s/bin/python", venv);
	return n > 0 && (size_t)n < size && access(buf, X_OK) == 0;
}
