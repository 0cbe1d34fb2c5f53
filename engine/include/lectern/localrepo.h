/*
 * Local repositories: which file:// URLs and local paths the engine may read
 * a repository from.
 *
 * Without a rule, anyone who may import a project could make the server
 * clone (and so publish) any git repository, or probe any directory, its
 * user can read: `file:///root/secrets.git`. A server therefore lists the
 * directories local repositories may come from (`lectern serve
 * --local-repos`; the auto-started engine of a single user lists the user's
 * home and the temporary directory), and a local URL is accepted only when
 * the path it names, canonicalised (realpath: no "..", no symlink left), is
 * one of them or lies below one. The check runs when a project's URL is set
 * and again when a build clones (and for submodule URLs), since a path that
 * was allowed then may be a symlink to elsewhere by now.
 *
 * The directories are one trust zone for every account of the server, so
 * a local repository another project already builds from may be imported
 * again only by someone who can read all of that project
 * (lec_project_create, lec_project_update), and a build fetches it as a
 * submodule only for a project whose admins all could have:
 * lec_localrepo_identity tells which URLs name the same repository.
 */
#ifndef LECTERN_LOCALREPO_H
#define LECTERN_LOCALREPO_H

#ifdef __cplusplus
extern "C" {
#endif

/* The field a refused URL is reported on (lec_error_last_field). */
#define LEC_LOCALREPO_FIELD "repository.url"

/**
 * Check a repository URL against the local repository directories.
 *
 * Local URLs are file:///PATH, file://localhost/PATH and plain absolute
 * paths; URLs with any other scheme (https://, git://, host:path) are not
 * local and pass, leaving their own rules to the caller. A local URL is
 * refused when it names a relative path (relative to what would depend on
 * the server's working directory), when a file:// URL has another host or
 * percent-escapes (git and libgit2 decode those, so the path checked could
 * differ from the path read), and when its canonical path is not at or
 * below a canonical root. A path that does not exist yet is judged by its
 * longest existing prefix; its missing part may not hold "." or "..".
 * Roots that do not exist are skipped.
 *
 * @param url   the repository URL (not NULL)
 * @param roots NULL-terminated absolute directories; NULL or empty: none,
 *              so every local URL is refused
 * @param path  when not NULL, gets the canonical path a local URL names,
 *              owned by the caller (free()), or NULL for a URL that is not
 *              local; clone from it rather than from url, so that what was
 *              checked is what is read
 * @return LEC_OK; LEC_EINVALID (field LEC_LOCALREPO_FIELD) with a message
 *         that says which directories are allowed; LEC_ENOMEM
 */
int lec_localrepo_check(const char *url, const char *const *roots,
			char **path);

/**
 * lec_localrepo_check, and for a local URL that there is a git repository
 * at its path: a directory that is a work tree (with a .git directory or
 * file) or a bare repository (HEAD and objects/). What a project's URL is
 * checked with when it is set, so that a mistyped path or a directory of
 * plain files is refused before the project is made, naming the path,
 * rather than at its first clone. Builds check with lec_localrepo_check
 * alone: a repository that went away fails its clone.
 * @return LEC_OK; LEC_EINVALID (field LEC_LOCALREPO_FIELD): refused by
 *         lec_localrepo_check, "No directory /x." or "/x is not a git
 *         repository."; LEC_ENOMEM
 */
int lec_localrepo_check_repository(const char *url,
				   const char *const *roots);

/**
 * The repository a local URL names, the same string for every way of
 * writing it: the canonical path (as lec_localrepo_check finds it, runs
 * of '/' and a trailing one dropped) of the git directory behind it. A
 * work tree gives its .git directory, or where its ".git" file's "gitdir:"
 * points; a linked worktree's git directory gives the repository it
 * shares refs and objects with ("commondir"). So file:///r, /r/, /r/./,
 * file://localhost/r, /r/.git, a symlink to /r and a worktree of /r are
 * one repository. A path not there yet is its canonical path.
 *
 * @param url      any repository URL (NULL: none)
 * @param identity gets the identity, owned by the caller (free()); NULL
 *                 for a URL that is not local or names no place
 *                 (lec_localrepo_check refuses those)
 * @return LEC_OK or LEC_ENOMEM
 */
int lec_localrepo_identity(const char *url, char **identity);

#ifdef __cplusplus
}
#endif
#endif
