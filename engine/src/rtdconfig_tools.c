/*
 * What the hosted service's build images offer: the build.os names and,
 * for each build.tools tool, the versions a configuration may ask for and
 * the full version each one installs there. A version outside this table
 * is refused as the service refuses it (INVALID_CHOICE, listing these
 * choices), even though Lectern builds with the machine's own tools: a
 * file that builds here must build there.
 *
 * The table is data copied from the service's source,
 * readthedocs/builds/constants_docker.py (RTD_DOCKER_BUILD_SETTINGS and
 * the "latest" aliases set below it), as of its change of 2026-06-30
 * ("Build: update build tool versions", 24cfd840b). Rows keep the
 * service's order (its dicts': the versions, then the aliases), which is
 * the order its messages list the choices in. When the service offers a
 * new version, add its row here; nothing else changes.
 */
#include <string.h>

#include "rtdconfig_internal.h"

/* One offer: build.os (tool "os", full the Docker image) or one version
 * of a tool (full the version the service installs). */
struct offer {
	const char *tool;
	const char *version;
	const char *full;
};

#define IMAGE "readthedocs/build:"

static const struct offer offers[] = {
	{ "os", "ubuntu-22.04", IMAGE "ubuntu-22.04" },
	{ "os", "ubuntu-24.04", IMAGE "ubuntu-24.04" },
	{ "os", "ubuntu-26.04", IMAGE "ubuntu-26.04" },
	{ "os", "ubuntu-lts-latest", IMAGE "ubuntu-26.04" },

	{ "python", "2.7", "2.7.18" },
	{ "python", "3.6", "3.6.15" },
	{ "python", "3.7", "3.7.17" },
	{ "python", "3.8", "3.8.20" },
	{ "python", "3.9", "3.9.25" },
	{ "python", "3.10", "3.10.20" },
	{ "python", "3.11", "3.11.15" },
	{ "python", "3.12", "3.12.13" },
	{ "python", "3.13", "3.13.14" },
	{ "python", "3.14", "3.14.6" },
	{ "python", "miniconda3-4.7", "miniconda3-4.7.12" },
	{ "python", "miniconda3-3.12-24.1", "miniconda3-3.12-24.1.2-0" },
	{ "python", "miniconda3-3.12-24.9", "miniconda3-3.12-24.9.2-0" },
	{ "python", "mambaforge-4.10", "mambaforge-4.10.3-10" },
	{ "python", "mambaforge-22.9", "mambaforge-22.9.0-3" },
	{ "python", "mambaforge-23.11", "mambaforge-23.11.0-0" },
	{ "python", "miniforge3-25.11", "miniforge3-25.11.0-1" },
	{ "python", "miniforge3-26.3", "miniforge3-26.3.2-3" },
	{ "python", "3", "3.14.6" },
	{ "python", "latest", "3.14.6" },
	{ "python", "miniconda-latest", "miniconda3-3.12-24.9.2-0" },
	{ "python", "mambaforge-latest", "mambaforge-23.11.0-0" },
	{ "python", "miniforge3-latest", "miniforge3-26.3.2-3" },

	{ "nodejs", "14", "14.21.3" },
	{ "nodejs", "16", "16.20.2" },
	{ "nodejs", "18", "18.20.8" },
	{ "nodejs", "19", "19.9.0" },
	{ "nodejs", "20", "20.20.2" },
	{ "nodejs", "22", "22.23.1" },
	{ "nodejs", "23", "23.11.1" },
	{ "nodejs", "24", "24.18.0" },
	{ "nodejs", "25", "25.9.0" },
	{ "nodejs", "26", "26.4.0" },
	{ "nodejs", "latest", "26.4.0" },

	{ "ruby", "3.3", "3.3.11" },
	{ "ruby", "3.4", "3.4.9" },
	{ "ruby", "4.0", "4.0.3" },
	{ "ruby", "latest", "4.0.3" },

	{ "rust", "1.55", "1.55.0" },
	{ "rust", "1.61", "1.61.0" },
	{ "rust", "1.64", "1.64.0" },
	{ "rust", "1.70", "1.70.0" },
	{ "rust", "1.75", "1.75.0" },
	{ "rust", "1.78", "1.78.0" },
	{ "rust", "1.82", "1.82.0" },
	{ "rust", "1.86", "1.86.0" },
	{ "rust", "1.91", "1.91.1" },
	{ "rust", "1.96", "1.96.0" },
	{ "rust", "latest", "1.96.0" },

	{ "golang", "1.17", "1.17.13" },
	{ "golang", "1.18", "1.18.10" },
	{ "golang", "1.19", "1.19.13" },
	{ "golang", "1.20", "1.20.14" },
	{ "golang", "1.21", "1.21.13" },
	{ "golang", "1.22", "1.22.12" },
	{ "golang", "1.23", "1.23.12" },
	{ "golang", "1.24", "1.24.13" },
	{ "golang", "1.25", "1.25.11" },
	{ "golang", "1.26", "1.26.4" },
	{ "golang", "latest", "1.26.4" },
};

#define OFFERS (sizeof(offers) / sizeof(offers[0]))

/* Whether tool is already among names[0..n). */
static int listed(const char *const *names, size_t n, const char *tool)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(names[i], tool) == 0)
			return 1;
	return 0;
}

size_t lec_rtd__offer_names(const char *tool, const char **names, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < OFFERS && n < max; i++) {
		if (tool != NULL && strcmp(offers[i].tool, tool) == 0)
			names[n++] = offers[i].version;
		else if (tool == NULL && strcmp(offers[i].tool, "os") != 0 &&
			 !listed(names, n, offers[i].tool))
			names[n++] = offers[i].tool;
	}
	return n;
}

const char *lec_rtd_tool_full_version(const char *tool, const char *version)
{
	size_t i;

	for (i = 0; tool && version && i < OFFERS; i++)
		if (strcmp(offers[i].tool, tool) == 0 &&
		    strcmp(offers[i].version, version) == 0)
			return offers[i].full;
	return NULL;
}
