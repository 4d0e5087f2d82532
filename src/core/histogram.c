/* histogram: the bucket layout and percentiles of a latency histogram (see
 * histogram.h), computed so that the figures match what Redis 7.0's HDR
 * histograms report for the same samples. */
#include "core/histogram.h"

static int bucketOf(int64_t v) { return 64 - __builtin_clzll((uint64_t)v | 255) - (HIST_SUB_MAGNITUDE + 1); }

static int indexOf(int64_t v) {
    int b = bucketOf(v);
    return ((b + 1) << HIST_SUB_MAGNITUDE) + (int)(v >> b) - HIST_SUB_HALF;
}

int64_t histogramValueAtIndex(int i) {
    int b = (i >> HIST_SUB_MAGNITUDE) - 1;
    int64_t sub = (i & (HIST_SUB_HALF - 1)) + HIST_SUB_HALF;
    if (b < 0) {
        sub -= HIST_SUB_HALF;
        b = 0;
    }
    return sub << b;
}

int64_t histogramLowestEquivalent(int64_t v) {
    int b = bucketOf(v);
    return (v >> b) << b;
}

int64_t histogramHighestEquivalent(int64_t v) {
    int b = bucketOf(v);
    if ((v >> b) >= 2 * HIST_SUB_HALF) b++;
    return histogramLowestEquivalent(v) + ((int64_t)1 << b) - 1;
}

void histogramRecord(latencyHistogram *h, long long v) {
    if (v < HIST_MIN) v = HIST_MIN;
    if (v > HIST_MAX) v = HIST_MAX;
    h->counts[indexOf(v)]++;
    h->total++;
}

int64_t histogramPercentile(const latencyHistogram *h, double p) {
    long long want = (long long)((p < 100 ? p : 100) / 100 * (double)h->total + 0.5);
    if (want < 1) want = 1;
    long long seen = 0;
    for (int i = 0; i < HIST_COUNTS; i++) {
        seen += h->counts[i];
        if (seen >= want)
            return p == 0 ? histogramLowestEquivalent(histogramValueAtIndex(i))
                          : histogramHighestEquivalent(histogramValueAtIndex(i));
    }
    return 0;
}
