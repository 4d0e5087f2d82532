/* clock: wall-clock and monotonic time in the units the server uses. */
#ifndef CORE_CLOCK_H
#define CORE_CLOCK_H

#include <stdint.h>

typedef uint64_t monotime;

long long ustime(void);      /* wall clock, µs since the epoch */
long long mstime(void);      /* wall clock, ms since the epoch */
monotime getMonotonicUs(void);
/* The wall clock when getMonotonicUs() gave `now` (just read): derived from
 * it where reads come from the TSC, one read fewer; else read again. */
long long ustimeAt(monotime now);

/* Called by the thread running the event loop at each turn: from then on
 * that thread's reads are the TSC's, scaled from an anchor of the kernel's
 * clocks this takes at most once a millisecond, where the kernel trusts the
 * TSC (see clock.c). Returns getMonotonicUs() as of the call. */
monotime clockResync(void);
/* Whether this thread's reads come from the TSC now (for the tests). */
int clockUsesTsc(void);

#endif
