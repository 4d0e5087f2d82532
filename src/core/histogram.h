/* histogram: a latency histogram with the layout of an HDR histogram of two
 * significant digits (values below 256 exact, above that each power of two
 * split into 128 equal sub-buckets), the one Redis 7.0 keeps command
 * latencies in. One histogram code for every latency the server keeps: the
 * commands' (features/latency.c, in ns) and active expiry's lateness
 * (server/expire.c, in µs). A value is recorded in any unit; it is clamped
 * to [HIST_MIN, HIST_MAX] of that unit. */
#ifndef CORE_HISTOGRAM_H
#define CORE_HISTOGRAM_H

#include <stdint.h>

#define HIST_SUB_MAGNITUDE 7 /* 128 sub-buckets per power of two above 256 */
#define HIST_SUB_HALF (1 << HIST_SUB_MAGNITUDE)
#define HIST_BUCKETS 23      /* 256 << 22 > 10^9 */
#define HIST_COUNTS ((HIST_BUCKETS + 1) * HIST_SUB_HALF)
#define HIST_MIN 1LL
#define HIST_MAX 1000000000LL /* 1 s of ns, as Redis's command histograms */

typedef struct latencyHistogram {
    long long total;
    long long counts[HIST_COUNTS];
} latencyHistogram;

void histogramRecord(latencyHistogram *h, long long v);
/* The highest value equivalent to the bucket where the cumulative count
 * reaches p percent of the total (the lowest, for p 0); 0 when empty. */
int64_t histogramPercentile(const latencyHistogram *h, double p);
/* The bucket layout, for walks over counts[]. */
int64_t histogramValueAtIndex(int i);
int64_t histogramLowestEquivalent(int64_t v);
int64_t histogramHighestEquivalent(int64_t v);

#endif
