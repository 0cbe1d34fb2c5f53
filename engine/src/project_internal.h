/*
 * What the files of the project module share (project.c and the files
 * carved from it: project_url.c, ...): the checks, the rows and the lookups
 * one of them defines and another uses. Nothing outside them includes it.
 */
#ifndef LECTERN_PROJECT_INTERNAL_H
#define LECTERN_PROJECT_INTERNAL_H

/* URL checks (project_url.c) --------------------------------------------- */

/* Python's \s and \w over UTF-8, as the service's patterns match them
 * (any non-ASCII byte is a word character). */
int lec__project_is_space(unsigned char c);
int lec__project_is_word(unsigned char c);

/* LEC_OK, or LEC_EINVALID on "repository.url" with the service's message:
 * a repository URL the service's RepositoryURLValidator refuses (file://
 * is Lectern's addition). */
int lec__project_repo_url_check(const char *url);
/* Whether url passes Django's URLValidator (a project's homepage). */
int lec__project_web_url_valid(const char *url);

#endif
