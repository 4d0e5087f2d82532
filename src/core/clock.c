/* clock: time sources (see clock.h).
 *
 * Every command reads the monotonic clock twice (its duration) and the wall
 * clock once (the time its keys expire against). Through the vDSO a read
 * costs 25-30 ns on the machines we measure, ~6% of a pipelined INCR. Where
 * the kernel keeps time with the TSC itself (clocksource "tsc", which it
 * only keeps while the TSC is constant-rate and in step across CPUs), the
 * thread running the event loop reads the TSC and scales it from an anchor
 * that clockResync() takes at a turn of the loop (at most once a millisecond);
 * the wall clock is the anchor's wall time plus the monotonic time since. The
 * rate is measured between the first anchor and the latest, so it only gets
 * more exact; any other thread, a machine without a trusted TSC, and the
 * first 20 ms (until a rate is known) read the kernel's clocks. */
#include "clock.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
#else
#define HAVE_TSC 0
#endif

#define CALIBRATE_MIN_NS 20000000ULL /* a first rate after 20 ms of anchors */
#define DRIFT_MAX_NS 100000LL        /* an anchor this far from the prediction: measure again */
#define RESYNC_NS 1000000.0          /* a new anchor at most once a millisecond */
#define ANCHOR_MAX_GAP_TICKS 2000    /* ~1 µs: an anchor read in longer is read again */

static int tsc_trusted = -1;             /* -1: not checked yet */
static _Thread_local int tsc_thread;     /* this thread takes the anchors */
static double ns_per_tick;               /* 0: no rate yet */
static uint64_t first_tsc, first_ns;     /* where the rate is measured from */
static uint64_t anchor_tsc, anchor_ns;   /* CLOCK_MONOTONIC at anchor_tsc */
static long long anchor_wall_us;         /* the wall clock then */
static monotime last_us;                 /* what the fast path last returned */

/* Whether this thread's reads come from the TSC: it takes the anchors and a rate is known. */
static inline int fromTsc(void) { return tsc_thread && ns_per_tick > 0; }

static uint64_t kernelMonotonicNs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static long long kernelWallUs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int fileStartsWith(const char *path, const char *text) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char buf[64] = {0};
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    return n >= strlen(text) && memcmp(buf, text, strlen(text)) == 0;
}

static int tscTrusted(void) {
    if (!HAVE_TSC) return 0;
    return fileStartsWith("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc\n");
}

static inline uint64_t readTsc(void) {
#if HAVE_TSC
    return __rdtsc();
#else
    return 0;
#endif
}

/* CLOCK_MONOTONIC and the TSC at the same moment: the TSC read before and
 * after the kernel's clock, their middle kept; read again (a few times at
 * most) while the two are far apart, as when an interrupt came in between:
 * the anchors' error is the rate's error. */
static uint64_t readAnchor(uint64_t *ns) {
    uint64_t best_tsc = 0, best_gap = UINT64_MAX;
    for (int i = 0; i < 4 && best_gap > ANCHOR_MAX_GAP_TICKS; i++) {
        uint64_t t0 = readTsc();
        uint64_t n = kernelMonotonicNs();
        uint64_t t1 = readTsc();
        if (t1 - t0 < best_gap) {
            best_gap = t1 - t0;
            best_tsc = t0 + (t1 - t0) / 2;
            *ns = n;
        }
    }
    return best_tsc;
}

/* The monotonic time at TSC reading tsc, from the anchor (fromTsc() holds). */
static inline monotime usAtTsc(uint64_t tsc) {
    monotime us = (anchor_ns + (uint64_t)((double)(tsc - anchor_tsc) * ns_per_tick)) / 1000;
    /* A new anchor may land a hair before what was extrapolated. */
    if (us < last_us) us = last_us;
    last_us = us;
    return us;
}

monotime clockResync(void) {
    if (tsc_trusted == -1) tsc_trusted = tscTrusted();
    if (!tsc_trusted) return getMonotonicUs();
    tsc_thread = 1;
    /* Turns come every few µs under load: an anchor a millisecond old is as
     * good, and the TSC read that tells is the turn's time (a read costs as
     * much as the vDSO's clock here: ~25 ns, the rest of getMonotonicUs is
     * arithmetic). */
    if (ns_per_tick > 0) {
        uint64_t tsc = readTsc();
        if ((double)(tsc - anchor_tsc) * ns_per_tick < RESYNC_NS) return usAtTsc(tsc);
    }
    uint64_t ns = 0;
    uint64_t tsc = readAnchor(&ns);
    long long wall = kernelWallUs();
    if (ns_per_tick > 0) {
        long long predicted = (long long)(anchor_ns + (uint64_t)((double)(tsc - anchor_tsc) * ns_per_tick));
        long long off = predicted - (long long)ns;
        if (off > DRIFT_MAX_NS || off < -DRIFT_MAX_NS) { /* the TSC changed pace (a migrated VM?) */
            ns_per_tick = 0;
            first_tsc = 0;
        }
    }
    if (first_tsc == 0 || tsc <= first_tsc) {
        first_tsc = tsc;
        first_ns = ns;
    } else if (ns - first_ns >= CALIBRATE_MIN_NS) {
        ns_per_tick = (double)(ns - first_ns) / (double)(tsc - first_tsc);
    }
    anchor_tsc = tsc;
    anchor_ns = ns;
    /* The wall clock as of the anchor: read just after it, less what passed. */
    anchor_wall_us = wall - (ns_per_tick > 0 ? (long long)((double)(readTsc() - tsc) * ns_per_tick / 1000) : 0);
    return getMonotonicUs();
}

monotime getMonotonicUs(void) {
    if (fromTsc()) return usAtTsc(readTsc());
    monotime us = kernelMonotonicNs() / 1000;
    if (tsc_thread) last_us = us;
    return us;
}

long long ustime(void) {
    if (fromTsc()) return ustimeAt(getMonotonicUs());
    return kernelWallUs();
}

long long ustimeAt(monotime now) {
    if (fromTsc()) return anchor_wall_us + ((long long)now - (long long)(anchor_ns / 1000));
    return kernelWallUs();
}

long long mstime(void) { return ustime() / 1000; }

int clockUsesTsc(void) { return fromTsc(); }
