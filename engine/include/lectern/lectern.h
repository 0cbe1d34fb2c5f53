/*
 * Lectern's engine: the umbrella header. Includes every public module header.
 */
#ifndef LECTERN_H
#define LECTERN_H

#include "lectern/errors.h"
#include "lectern/slug.h"
#include "lectern/store.h"
#include "lectern/timefmt.h"
#include "lectern/user.h"

#endif
