/* latency: how long commands take, as Redis 7.0 reports it. Per-command
 * latency histograms (latency-tracking: INFO latencystats, LATENCY HISTOGRAM)
 * and the latency monitor (latency-monitor-threshold: LATENCY LATEST,
 * HISTORY, RESET). */
#ifndef FEATURES_LATENCY_H
#define FEATURES_LATENCY_H

#include "server/hooks.h"

/* A command's call took `us` microseconds: into its histogram (when
 * latency-tracking is on) and, past the threshold, into the monitor. */
void latencyRecordCommand(struct redisCommand *cmd, long long us);
/* After-call observer: records the call, as command stats count it. */
void latencyCallObserver(const callInfo *ci);
/* Any other event ("expire-cycle" ...) that took `ms` milliseconds. */
void latencyAddSampleIfNeeded(const char *event, long long ms);
/* CONFIG RESETSTAT: the command's histogram goes. */
void latencyForgetCommandHistogram(struct redisCommand *cmd);
/* The "# Latencystats" INFO section. */
sds latencyInfo(sds info);
/* latency-tracking-info-percentiles: parses "50 99 99.9" (each in [0, 100]);
 * 0 and *err set on a bad value. The getter formats them back. */
int latencySetInfoPercentiles(sds *argv, int argc, int from_file, const char **err);
sds latencyGetInfoPercentiles(void);

#endif
