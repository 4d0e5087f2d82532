/* clock: wall-clock and monotonic time in the units the server uses. */
#ifndef CORE_CLOCK_H
#define CORE_CLOCK_H

#include <stdint.h>

typedef uint64_t monotime;

long long ustime(void);      /* wall clock, µs since the epoch */
long long mstime(void);      /* wall clock, ms since the epoch */
monotime getMonotonicUs(void);

#endif
