/* clock: time sources (see clock.h). */
#include "clock.h"

#include <sys/time.h>
#include <time.h>

long long ustime(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000000 + tv.tv_usec;
}

long long mstime(void) { return ustime() / 1000; }

monotime getMonotonicUs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (monotime)ts.tv_sec * 1000000 + (monotime)(ts.tv_nsec / 1000);
}
