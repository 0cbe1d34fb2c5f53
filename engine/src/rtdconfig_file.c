/*
 * Where a checkout's `.readthedocs.yaml` is and its bytes: the default
 * names the service looks for in the repository's root, or the project's
 * readthedocs_yaml_path; the file opened beneath the checkout, so that a
 * link cannot lead out of it (the service's safe_open) and a fifo a build
 * left cannot block; at most LEC_RTD_CONFIG_MAX_BYTES of it. What is read
 * goes to the checks (rtdconfig.c), which this file calls and nothing
 * else of the configuration calls back.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "internal.h"
#include "rtdconfig_internal.h"
#include "yaml_reader.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The candidates of ^\.?readthedocs\.ya?ml$, preferred first. */
static const char *const default_files[] = { ".readthedocs.yaml",
					     ".readthedocs.yml",
					     "readthedocs.yaml",
					     "readthedocs.yml" };

/* A path the caller names: relative and without "..". (The service
 * looks such a path up where it leads, then refuses to open it there.) */
static int check_relpath(const char *path, const char *what)
{
	if (path[0] == '/')
		return lec__error(LEC_EINVALID,
				  "%s '%s': use a path relative to the "
				  "repository root",
				  what, path);
	if (strstr(path, ".."))
		return lec__error(LEC_EINVALID, "%s '%s': '..' is not allowed",
				  what, path);
	return LEC_OK;
}

/* Whether rel names a configuration file to read in the checkout: a
 * regular file beneath it, or a link out of it (which reading refuses by
 * name). Resolved beneath the checkout, so whether a file of the host
 * exists never shows. */
static int is_file(const char *checkout_dir, const char *rel)
{
	int fd, rc = lec__open_in(checkout_dir, rel, LEC__OPEN_FILE, &fd);

	if (rc == LEC_OK)
		close(fd);
	return rc == LEC_OK || (rc == LEC_EINVALID && errno == EXDEV);
}

/* The default file: the first of default_files present in the root. */
static int find_default(const char *checkout_dir, char **relpath)
{
	size_t i;

	for (i = 0; i < COUNT(default_files); i++) {
		if (is_file(checkout_dir, default_files[i])) {
			*relpath = lec__strdup(default_files[i]);
			LEC__CHECK_ALLOC(*relpath);
			return LEC_OK;
		}
	}
	lec_rtd__problem(LEC_RTD__DEFAULT_PATH_NOT_FOUND, NULL, NULL);
	return lec__error(LEC_ENOTFOUND,
			  "no .readthedocs.yaml in the repository's root");
}

/* The project's readthedocs_yaml_path, which must name a file. */
static int find_given(const char *checkout_dir, const char *project_path,
		      char **relpath)
{
	int rc;

	lec_rtd__problem(LEC_RTD__CONFIG_PATH_NOT_FOUND, NULL, NULL);
	lec_rtd__problem_add("directory", project_path);
	if ((rc = check_relpath(project_path, "readthedocs_yaml_path")) < 0)
		return rc;
	if (!is_file(checkout_dir, project_path))
		return lec__error(LEC_EINVALID,
				  "readthedocs_yaml_path '%s': no such file "
				  "in the repository",
				  project_path);
	lec_rtd__problem_clear();
	*relpath = lec__strdup(project_path);
	LEC__CHECK_ALLOC(*relpath);
	return LEC_OK;
}

int lec_rtd_config_find(const char *checkout_dir, const char *project_path,
			char **relpath)
{
	lec_error_clear();
	lec_rtd__problem_clear();
	if (relpath)
		*relpath = NULL;
	if (checkout_dir == NULL || relpath == NULL)
		return lec__error(LEC_EINVALID, "no checkout directory given");
	if (project_path && *project_path)
		return find_given(checkout_dir, project_path, relpath);
	return find_default(checkout_dir, relpath);
}

/* The file's bytes; a symlink must resolve inside the checkout (as the
 * service's safe_open demands), and the file is opened beneath it without
 * blocking (a fifo a build left in a kept checkout is not a file). */
static int read_config_file(const char *relpath, const char *checkout_dir,
			    char **data, size_t *len)
{
	struct stat sb;
	int fd, rc;

	/* What the service refuses here is no config error of its own. */
	lec_rtd__problem(LEC_RTD__GENERIC, NULL, NULL);
	rc = lec__open_in(checkout_dir, relpath, LEC__OPEN_FILE, &fd);
	if (rc == LEC_EINVALID)
		return lec__yaml_fail(relpath, 1, NULL, "%s",
				      errno == EXDEV ? "the file is a link to "
						       "outside the repository"
						     : "not a regular file");
	if (rc < 0)
		return rc;
	if (fstat(fd, &sb) != 0)
		rc = lec__error(LEC_EIO, "%s: %s", relpath, strerror(errno));
	else if (sb.st_size > LEC_RTD_CONFIG_MAX_BYTES)
		rc = lec__yaml_fail(relpath, 1, NULL,
				    "the file is larger than %d bytes",
				    LEC_RTD_CONFIG_MAX_BYTES);
	else
		rc = lec__read_fd(fd, relpath, (size_t)sb.st_size, data, len);
	close(fd);
	return rc;
}

int lec_rtd_config_load(const char *checkout_dir, const char *relpath,
			struct lec_rtd_config **out)
{
	char *data = NULL;
	size_t len = 0;
	int rc;

	lec_error_clear();
	lec_rtd__problem_clear();
	if (out)
		*out = NULL;
	if (checkout_dir == NULL || relpath == NULL || *relpath == '\0' ||
	    out == NULL)
		return lec__error(LEC_EINVALID, "no configuration file given");
	if ((rc = check_relpath(relpath, "configuration file")) < 0)
		return rc;
	if ((rc = read_config_file(relpath, checkout_dir, &data, &len)) < 0) {
		if (rc != LEC_EINVALID)
			lec_rtd__problem_clear();
		return rc;
	}
	rc = lec_rtd_config_parse(data, len, relpath, out);
	lec__free(data);
	return rc;
}
