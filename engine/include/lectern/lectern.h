/*
 * Lectern's engine: the umbrella header. Includes every public module header.
 */
#ifndef LECTERN_H
#define LECTERN_H

#include "lectern/build.h"
#include "lectern/commit_status.h"
#include "lectern/embed.h"
#include "lectern/envvar.h"
#include "lectern/errors.h"
#include "lectern/external.h"
#include "lectern/language.h"
#include "lectern/mdsite.h"
#include "lectern/org.h"
#include "lectern/pagemd.h"
#include "lectern/pageparse.h"
#include "lectern/pipeline.h"
#include "lectern/preview.h"
#include "lectern/project.h"
#include "lectern/redirect.h"
#include "lectern/repo.h"
#include "lectern/resolve.h"
#include "lectern/rtdconfig.h"
#include "lectern/runner.h"
#include "lectern/search.h"
#include "lectern/session.h"
#include "lectern/slug.h"
#include "lectern/store.h"
#include "lectern/timefmt.h"
#include "lectern/user.h"
#include "lectern/version.h"
#include "lectern/vsync.h"
#include "lectern/warning.h"

#endif
