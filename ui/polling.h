/*
 * The TUI's polite polling, as pure functions of a clock the caller
 * passes (the app its monotonic milliseconds, the screens their wall
 * seconds, the tests a simulated clock): the budget every background poll
 * shares, and the pace each poller's interval follows, fast while what it
 * shows moves and backing off while nothing does. No curses and no
 * client: tests/ui/test_polling.c runs the schedule in simulated time.
 */
#ifndef LECTERN_UI_POLLING_H
#define LECTERN_UI_POLLING_H

#include <stdint.h>

/* Background polls (a screen asking again what it shows, the unread
 * count) share one budget, a token bucket: against an instance that is
 * not a Lectern (the hosted service allows an authenticated user 60
 * requests a minute, and the user's own actions need some of them) at
 * most UI_POLL_BURST at once and one more each UI_POLL_REFILL_MS, so an
 * idle TUI makes at most 10 requests in any 20 s, whatever the number of
 * projects; a Lectern is polled as fast as the screens ask. What the user
 * asks for (opening a screen, R) is never held back. */
#define UI_POLL_BURST 5
#define UI_POLL_REFILL_MS 4000

struct ui_poll_budget {
	int started;      /* taken from at least once */
	int tokens;       /* what the budget has left */
	int64_t refilled; /* the clock at the last refill */
};

/* Take one request of the budget at now_ms (a clock that never goes
 * back): 1 taken, 0 none left now. The first call fills the budget. */
int ui_poll_take(struct ui_poll_budget *b, int64_t now_ms);

/* How a poller's interval follows what it shows, in the poller's own unit
 * (seconds or milliseconds): `moving` while it moves (a build runs, a
 * count changed), `first` once it stops, then doubling up to `most`
 * while it stays still. */
struct ui_pace {
	long moving, first, most;
};

/* The interval after an answer, from the one before (0: none yet). */
long ui_pace_next(const struct ui_pace *p, long every, int moving);

/* The TUI's pollers. A Projects row's last build, in seconds: at first,
 * then while it runs (a build's states change within seconds), and at
 * most, so an idle screen of 50 projects costs under 2 requests a second,
 * not 17 (issue 16). */
extern const struct ui_pace ui_pace_last_build;
/* A builds list's pages, in seconds: while a build on them runs, when
 * none does, and at most (a screen of finished builds changes only when
 * one starts). */
extern const struct ui_pace ui_pace_builds;
/* The unread notification count, in milliseconds: again within seconds
 * after it changed (a new failure shows soon), and at most a minute (a
 * minute-old count is still news, and an idle TUI makes one cheap request
 * a minute). */
extern const struct ui_pace ui_pace_unread;

#endif
