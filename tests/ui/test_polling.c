/*
 * The TUI's poll budget and paces (ui/polling.c) in simulated time: the
 * token bucket's burst and refill, at most 10 requests in any 20 s
 * whatever is asked of it, each poller's back-off, and the idle screens
 * the TUI tests once watched for a minute of real time (a Projects screen
 * of any number of rows, one row of a remote instance, a builds list),
 * each driven a second at a time as the app's tick drives them.
 * tests/tui/test_tui_budget.sh keeps a short real-time check that the
 * binary runs on this budget.
 */
#include <stdlib.h>

#include "harness.h"
#include "polling.h"

/* Most requests a simulation records. */
#define MAX_SENT 4096

/* The times (ms) of the requests a simulation let through. */
struct sent {
	int64_t at[MAX_SENT];
	size_t n;
};

static void sent_add(struct sent *s, int64_t at)
{
	if (s->n < MAX_SENT)
		s->at[s->n++] = at;
}

/* The most requests in any window of window_ms that starts at or after
 * from_ms. */
static size_t most_in_window(const struct sent *s, int64_t from_ms,
			     int64_t window_ms)
{
	size_t i, j, most = 0;

	for (i = 0; i < s->n; i++) {
		if (s->at[i] < from_ms)
			continue;
		for (j = i; j < s->n && s->at[j] < s->at[i] + window_ms; j++)
			;
		if (j - i > most)
			most = j - i;
	}
	return most;
}

TEST(burst_then_one_per_refill)
{
	struct ui_poll_budget b = { 0 };
	int64_t t = 0;
	int i;

	/* A clock at 0 is a clock like any other. */
	for (i = 0; i < UI_POLL_BURST; i++)
		CHECK_INT(ui_poll_take(&b, t), 1);
	CHECK_INT(ui_poll_take(&b, t), 0);
	CHECK_INT(ui_poll_take(&b, t + UI_POLL_REFILL_MS - 1), 0);
	CHECK_INT(ui_poll_take(&b, t + UI_POLL_REFILL_MS), 1);
	CHECK_INT(ui_poll_take(&b, t + UI_POLL_REFILL_MS), 0);
	/* Refills keep their own schedule: a take late in a period does
	 * not push the next refill back. */
	CHECK_INT(ui_poll_take(&b, t + 2 * UI_POLL_REFILL_MS + 3999), 1);
	CHECK_INT(ui_poll_take(&b, t + 3 * UI_POLL_REFILL_MS), 1);
	CHECK_INT(ui_poll_take(&b, t + 3 * UI_POLL_REFILL_MS), 0);
}

TEST(idle_keeps_one_burst)
{
	struct ui_poll_budget b = { 0 };
	int64_t t = 123456;
	int i;

	CHECK_INT(ui_poll_take(&b, t), 1);
	/* Ten idle minutes save up no more than a burst. */
	t += 10 * 60 * 1000;
	for (i = 0; i < UI_POLL_BURST; i++)
		CHECK_INT(ui_poll_take(&b, t), 1);
	CHECK_INT(ui_poll_take(&b, t), 0);
}

/* Whatever asks, and however often: at most 10 in any 20 s, and in the
 * long run one request per refill. */
TEST(any_twenty_seconds_at_most_ten)
{
	static const int64_t every_ms[] = { 1, 10, 250, 999, 1000, 3999, 4001 };
	size_t k;

	for (k = 0; k < sizeof(every_ms) / sizeof(every_ms[0]); k++) {
		struct ui_poll_budget b = { 0 };
		struct sent *s = calloc(1, sizeof(*s));
		int64_t t, start = 5000 + (int64_t)k * 37, end = start + 600000;

		for (t = start; t < end; t += every_ms[k])
			if (ui_poll_take(&b, t))
				sent_add(s, t);
		if (most_in_window(s, 0, 20000) > 10)
			FAIL_AT("asking every %lld ms: %zu requests in 20 s",
				(long long)every_ms[k],
				most_in_window(s, 0, 20000));
		/* Asking at least once a second: the burst, then one per
		 * refill up to the last ask. */
		if (every_ms[k] <= 1000)
			CHECK_INT(s->n, UI_POLL_BURST +
						(600000 - every_ms[k]) /
							UI_POLL_REFILL_MS);
		free(s);
	}
	{
		/* Bursts at random times, from a fixed seed. */
		struct ui_poll_budget b = { 0 };
		struct sent *s = calloc(1, sizeof(*s));
		unsigned seed = 31;
		int64_t t = 1000;
		int i, j;

		for (i = 0; i < 2000; i++) {
			t += rand_r(&seed) % 3000;
			for (j = rand_r(&seed) % 8; j >= 0; j--)
				if (ui_poll_take(&b, t))
					sent_add(s, t);
		}
		CHECK(most_in_window(s, 0, 20000) <= 10);
		CHECK(most_in_window(s, 0, 20000) >= 9);
		free(s);
	}
}

/* The intervals a poller goes through while nothing moves, from none. */
static void check_idle_paces(const struct ui_pace *p, const long *want,
			     size_t n)
{
	long every = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		every = ui_pace_next(p, every, 0);
		if (every != want[i])
			FAIL_AT("interval %zu is %ld, expected %ld", i, every,
				want[i]);
	}
}

TEST(paces_back_off_while_nothing_moves)
{
	static const long rows[] = { 3, 6, 12, 24, 30, 30 };
	static const long unread[] = { 5000,  10000, 20000,
				       40000, 60000, 60000 };

	check_idle_paces(&ui_pace_last_build, rows, 6);
	check_idle_paces(&ui_pace_builds, rows, 6);
	check_idle_paces(&ui_pace_unread, unread, 6);
	/* Moving: fast, whatever the interval was; stopping starts over. */
	CHECK_INT(ui_pace_next(&ui_pace_last_build, 30, 1), 1);
	CHECK_INT(ui_pace_next(&ui_pace_last_build, 1, 0), 3);
	CHECK_INT(ui_pace_next(&ui_pace_builds, 24, 1), 1);
	CHECK_INT(ui_pace_next(&ui_pace_unread, 60000, 1), 5000);
	CHECK_INT(ui_pace_next(&ui_pace_unread, 5000, 0), 10000);
}

/* Simulated screens -------------------------------------------------------- */

/* A poller as the screens keep one: when it last asked (seconds of the
 * wall clock, as a view's app->now) and its interval; due, as
 * projects.c's rows are, once asked + interval (the pace's first before
 * any) has come. */
struct poller {
	const struct ui_pace *pace;
	long asked, every;
};

static int due(const struct poller *p, long now_s)
{
	return p->asked + (p->every ? p->every : p->pace->first) <= now_s;
}

/* Its answer came and nothing moved. */
static void answered(struct poller *p)
{
	p->every = ui_pace_next(p->pace, p->every, 0);
}

/* An idle screen of rows pollers, the first answers all in at start_ms
 * (asked for as the screen opened, outside the budget), ticked once a
 * second for seconds through one budget; with count, the list's count
 * too, every LIST_COUNT seconds, as the Projects screen asks it. The
 * requests let through go into s. */
#define LIST_COUNT 10
static void run_screen(const struct ui_pace *pace, size_t rows, int count,
		       int64_t start_ms, long seconds, struct sent *s)
{
	struct poller *p = calloc(rows, sizeof(*p));
	struct ui_poll_budget b = { 0 };
	long count_asked = (long)(start_ms / 1000);
	int64_t t;
	size_t i;

	for (i = 0; i < rows; i++) {
		p[i].pace = pace;
		p[i].asked = (long)(start_ms / 1000);
		answered(&p[i]);
	}
	for (t = start_ms + 1000; t <= start_ms + seconds * 1000; t += 1000) {
		long now_s = (long)(t / 1000);

		for (i = 0; i < rows; i++) {
			if (!due(&p[i], now_s) || !ui_poll_take(&b, t))
				continue;
			sent_add(s, t);
			p[i].asked = now_s;
			answered(&p[i]);
		}
		if (count && count_asked + LIST_COUNT <= now_s &&
		    ui_poll_take(&b, t)) {
			sent_add(s, t);
			count_asked = now_s;
		}
	}
	free(p);
}

/* test_tui_budget's claim: an idle Projects screen makes at most 10
 * requests in 20 s once it has settled, whatever the number of projects
 * on screen (an 80x24 screen shows 20, 200x60 56), whatever the tick's
 * phase within a second. */
TEST(idle_projects_screen_within_budget)
{
	static const size_t rows[] = { 1, 2, 5, 20, 32, 56, 100 };
	size_t i;
	int phase;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		for (phase = 0; phase < 1000; phase += 250) {
			struct sent *s = calloc(1, sizeof(*s));
			int64_t start = 1700000000000LL + phase;
			size_t most;

			run_screen(&ui_pace_last_build, rows[i], 1, start, 300,
				   s);
			most = most_in_window(s, start + 3000, 20000);
			if (most > 10)
				FAIL_AT("%zu rows: %zu requests in 20 s",
					rows[i], most);
			/* Twenty rows want far more than the budget gives. */
			if (rows[i] >= 20)
				CHECK(most >= 9);
			free(s);
		}
}

/* The polls of one idle poller in [2 s, 26 s] after its first answer. */
static size_t idle_polls(const struct ui_pace *pace)
{
	struct sent *s = calloc(1, sizeof(*s));
	int64_t start = 1700000000000LL;
	size_t i, n = 0;

	run_screen(pace, 1, 0, start, 60, s);
	for (i = 0; i < s->n; i++)
		if (s->at[i] >= start + 2000 && s->at[i] <= start + 26000)
			n++;
	/* Asked again after 3 s, then 6, then 12. */
	CHECK(s->n >= 3);
	if (s->n >= 3) {
		CHECK_INT(s->at[0] - start, 3000);
		CHECK_INT(s->at[1] - start, 9000);
		CHECK_INT(s->at[2] - start, 21000);
	}
	free(s);
	return n;
}

/* test_tui_remote_service's claims: one project's last build, and a
 * builds list, asked at most 4 times in 24 s of an idle screen, 2 s after
 * it settled (a fixed 3 s would be 8). */
TEST(idle_row_and_builds_list_back_off)
{
	CHECK(idle_polls(&ui_pace_last_build) <= 4);
	CHECK(idle_polls(&ui_pace_builds) <= 4);
}

static const struct lec_test tests[] = {
	TEST_ENTRY(burst_then_one_per_refill),
	TEST_ENTRY(idle_keeps_one_burst),
	TEST_ENTRY(any_twenty_seconds_at_most_ten),
	TEST_ENTRY(paces_back_off_while_nothing_moves),
	TEST_ENTRY(idle_projects_screen_within_budget),
	TEST_ENTRY(idle_row_and_builds_list_back_off),
};

LEC_TEST_MAIN(tests)
