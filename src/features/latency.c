/* latency: per-command latency histograms and the latency monitor (see
 * latency.h), with Redis 7.0's figures.
 *
 * The histograms reproduce what Redis 7.0 prints, and Redis prints what an
 * HDR histogram of nanoseconds (1 ns .. 1 s, 2 significant digits) reports:
 * core/histogram.h keeps that layout and its percentiles; LATENCY HISTOGRAM
 * reports cumulative counts at 1024 ns × 2^k, walked here over the same
 * buckets, so the figures match Redis's for the same samples.
 *
 * The monitor keeps, per event ("command", "fast-command", "expire-cycle"),
 * the last LATENCY_SAMPLES samples of at least latency-monitor-threshold ms,
 * one per second (the larger wins), and the all-time maximum. */
#include "features/latency.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/dict.h"
#include "core/histogram.h"
#include "core/numparse.h"
#include "core/zmalloc.h"
#include "server/reply.h"
#include "server/dispatch.h"
#include "server/command.h"

/* ------------------------------------------------------------- histograms */

#define HIST_REPORT_FIRST_NS 1024 /* LATENCY HISTOGRAM's first level; each next doubles */

/* {"calls": n, "histogram_usec": {µs: cumulative count, ...}}: a level is
 * reported once the walk over the buckets reaches it, with the counts of every
 * bucket up to and including the one it starts; only levels that added
 * samples are listed. */
static void addReplyHistogram(client *c, const struct latencyHistogram *h) {
    addReplyMapLen(c, 2);
    addReplyBulkCString(c, "calls");
    addReplyLongLong(c, h->total);
    addReplyBulkCString(c, "histogram_usec");
    void *len = addReplyDeferredLen(c);
    long entries = 0, reported = 0, cumulative = 0;
    int64_t level = HIST_REPORT_FIRST_NS, level_low = histogramLowestEquivalent(level), value = 0;
    int i = -1;
    while (cumulative < h->total || histogramValueAtIndex(i + 1) > level_low) {
        while (value < level_low) {
            if (++i >= HIST_COUNTS) goto done;
            cumulative += h->counts[i];
            value = histogramValueAtIndex(i);
        }
        if (cumulative > reported) {
            addReplyLongLong(c, histogramHighestEquivalent(level) / 1000);
            addReplyLongLong(c, cumulative);
            entries++;
        }
        reported = cumulative;
        level *= 2;
        level_low = histogramLowestEquivalent(level);
    }
done:
    setDeferredMapLen(c, len, entries);
}

/* ------------------------------------------------------ info percentiles */

/* Set from latency-tracking-info-percentiles, whose default the config applies at start-up. */
static double *info_percentiles;
static int info_npercentiles;

/* As Redis prints them: "%f" without trailing zeros ("99.9", "50"). */
static sds catPercentile(sds s, double p) {
    char buf[64];
    int n = snprintf(buf, sizeof(buf), "%f", p);
    while (n > 1 && buf[n - 1] == '0') n--;
    if (n > 1 && buf[n - 1] == '.') n--;
    return sdscatlen(s, buf, n);
}

int latencySetInfoPercentiles(sds *argv, int argc, int from_file, const char **err) {
    (void)from_file;
    double *values = NULL;
    int n = 0;
    for (int a = 0; a < argc; a++) {
        int ntok;
        sds *tok = sdssplitlen(argv[a], sdslen(argv[a]), " ", 1, &ntok);
        for (int t = 0; t < ntok; t++) {
            if (!sdslen(tok[t])) continue;
            double d;
            if (!string2d(tok[t], sdslen(tok[t]), &d) || d != d) {
                *err = "Invalid latency-tracking-info-percentiles parameters";
            } else if (d < 0 || d > 100) {
                *err = "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
            } else {
                values = zrealloc(values, sizeof(double) * (n + 1));
                values[n++] = d;
                continue;
            }
            sdsfreesplitres(tok, ntok);
            zfree(values);
            return 0;
        }
        sdsfreesplitres(tok, ntok);
    }
    zfree(info_percentiles);
    info_percentiles = values;
    info_npercentiles = n;
    return 1;
}

sds latencyGetInfoPercentiles(void) {
    sds s = sdsempty();
    for (int i = 0; i < info_npercentiles; i++) {
        if (i) s = sdscat(s, " ");
        s = catPercentile(s, info_percentiles[i]);
    }
    return s;
}

/* ------------------------------------------------------------ the monitor */

#define LATENCY_SAMPLES 160

typedef struct latencyEvent {
    struct { long long time, ms; } samples[LATENCY_SAMPLES];
    int next;       /* ring position of the next sample */
    long long max;  /* all-time maximum, in ms */
} latencyEvent;

static dict *events; /* event name (sds) → latencyEvent* */

static void freeEvent(dict *d, void *val) {
    (void)d;
    zfree(val);
}

static dictType eventDictType = {.hashFunction = dictSdsHash, .keyCompare = dictSdsKeyCompare,
                                 .keyDestructor = dictSdsDestructor, .valDestructor = freeEvent};

void latencyAddSampleIfNeeded(const char *event, long long ms) {
    if (server.latency_monitor_threshold <= 0 || ms < server.latency_monitor_threshold) return;
    if (!events) events = dictCreate(&eventDictType);
    sds name = sdsnew(event);
    dictEntry *de = dictFind(events, name);
    latencyEvent *ev;
    if (de) {
        ev = dictGetVal(de);
        sdsfree(name);
    } else {
        ev = zcalloc(sizeof(*ev));
        dictAdd(events, name, ev);
    }
    long long now = (long long)time(NULL);
    int prev = (ev->next + LATENCY_SAMPLES - 1) % LATENCY_SAMPLES;
    if (ev->samples[prev].time == now) {
        /* One sample per second: the larger one. */
        if (ms > ev->samples[prev].ms) ev->samples[prev].ms = ms;
    } else {
        ev->samples[ev->next].time = now;
        ev->samples[ev->next].ms = ms;
        ev->next = (ev->next + 1) % LATENCY_SAMPLES;
    }
    if (ms > ev->max) ev->max = ms;
}

void latencyRecordCommand(struct redisCommand *cmd, long long us) {
    if (server.latency_tracking) {
        if (!cmd->latency_histogram) cmd->latency_histogram = zcalloc(sizeof(struct latencyHistogram));
        histogramRecord(cmd->latency_histogram, us * 1000);
    }
    latencyAddSampleIfNeeded((cmd->flags & CMD_FAST) ? "fast-command" : "command", us / 1000);
}

void latencyForgetCommandHistogram(struct redisCommand *cmd) {
    zfree(cmd->latency_histogram);
    cmd->latency_histogram = NULL;
}

/* ------------------------------------------------------------------- INFO */

static sds catCommandLatencies(sds info, dict *table) {
    dictIterator *di = dictGetIterator(table);
    dictEntry *de;
    while ((de = dictNext(di))) {
        struct redisCommand *cmd = dictGetVal(de);
        if (cmd->latency_histogram) {
            info = sdscatprintf(info, "latency_percentiles_usec_%s:", cmd->fullname);
            for (int i = 0; i < info_npercentiles; i++) {
                info = catPercentile(sdscat(info, i ? ",p" : "p"), info_percentiles[i]);
                info = sdscatprintf(info, "=%.3f",
                                    (double)histogramPercentile(cmd->latency_histogram, info_percentiles[i]) / 1000.0);
            }
            info = sdscat(info, "\r\n");
        }
        if (cmd->subcommands) info = catCommandLatencies(info, cmd->subcommands);
    }
    dictReleaseIterator(di);
    return info;
}

sds latencyInfo(sds info) {
    return catCommandLatencies(sdscat(info, "# Latencystats\r\n"), server.commands);
}

/* --------------------------------------------------------------- commands */

static long histogramCount(dict *table) {
    long n = 0;
    dictIterator *di = dictGetIterator(table);
    dictEntry *de;
    while ((de = dictNext(di))) {
        struct redisCommand *cmd = dictGetVal(de);
        if (cmd->latency_histogram) n++;
        if (cmd->subcommands) n += histogramCount(cmd->subcommands);
    }
    dictReleaseIterator(di);
    return n;
}

static void addReplyHistograms(client *c, dict *table) {
    dictIterator *di = dictGetIterator(table);
    dictEntry *de;
    while ((de = dictNext(di))) {
        struct redisCommand *cmd = dictGetVal(de);
        if (cmd->latency_histogram) {
            addReplyBulkCString(c, cmd->fullname);
            addReplyHistogram(c, cmd->latency_histogram);
        }
        if (cmd->subcommands) addReplyHistograms(c, cmd->subcommands);
    }
    dictReleaseIterator(di);
}

/* LATENCY HISTOGRAM [command ...]: a container name stands for its subcommands;
 * unknown names and commands never called are left out. */
void latencyHistogramCommand(client *c) {
    if (c->argc == 2) {
        addReplyMapLen(c, histogramCount(server.commands));
        addReplyHistograms(c, server.commands);
        return;
    }
    void *len = addReplyDeferredLen(c);
    long n = 0;
    for (int i = 2; i < c->argc; i++) {
        struct redisCommand *cmd = lookupCommandByCString(objectPtr(c->argv[i]));
        if (!cmd) continue;
        if (cmd->subcommands) {
            long before = histogramCount(cmd->subcommands);
            addReplyHistograms(c, cmd->subcommands);
            n += before;
        } else if (cmd->latency_histogram) {
            addReplyBulkCString(c, cmd->fullname);
            addReplyHistogram(c, cmd->latency_histogram);
            n++;
        }
    }
    setDeferredMapLen(c, len, n);
}

static latencyEvent *findEvent(const char *name) {
    if (!events) return NULL;
    sds key = sdsnew(name);
    dictEntry *de = dictFind(events, key);
    sdsfree(key);
    return de ? dictGetVal(de) : NULL;
}

/* LATENCY LATEST: [event, time of the latest sample, its ms, max ms] per event. */
void latencyLatestCommand(client *c) {
    if (!events) {
        addReplyArrayLen(c, 0);
        return;
    }
    addReplyArrayLen(c, dictSize(events));
    dictIterator *di = dictGetIterator(events);
    dictEntry *de;
    while ((de = dictNext(di))) {
        latencyEvent *ev = dictGetVal(de);
        int last = (ev->next + LATENCY_SAMPLES - 1) % LATENCY_SAMPLES;
        addReplyArrayLen(c, 4);
        addReplyBulkCString(c, dictGetKey(de));
        addReplyLongLong(c, ev->samples[last].time);
        addReplyLongLong(c, ev->samples[last].ms);
        addReplyLongLong(c, ev->max);
    }
    dictReleaseIterator(di);
}

/* The event's samples, oldest first; returns how many. */
static int eventSamples(const latencyEvent *ev, long long *time_out, long long *ms_out) {
    int n = 0;
    for (int k = 0; k < LATENCY_SAMPLES; k++) {
        int j = (ev->next + k) % LATENCY_SAMPLES;
        if (!ev->samples[j].time) continue;
        time_out[n] = ev->samples[j].time;
        ms_out[n] = ev->samples[j].ms;
        n++;
    }
    return n;
}

/* LATENCY HISTORY event: [time, ms] pairs, oldest first. */
void latencyHistoryCommand(client *c) {
    latencyEvent *ev = findEvent(objectPtr(c->argv[2]));
    long long times[LATENCY_SAMPLES], ms[LATENCY_SAMPLES];
    int n = ev ? eventSamples(ev, times, ms) : 0;
    addReplyArrayLen(c, n);
    for (int i = 0; i < n; i++) {
        addReplyArrayLen(c, 2);
        addReplyLongLong(c, times[i]);
        addReplyLongLong(c, ms[i]);
    }
}

/* LATENCY RESET [event ...]: how many events were reset (all without arguments). */
void latencyResetCommand(client *c) {
    long reset = 0;
    if (!events) {
        addReplyLongLong(c, 0);
        return;
    }
    if (c->argc == 2) {
        reset = dictSize(events);
        dictEmpty(events, NULL);
    } else {
        for (int i = 2; i < c->argc; i++)
            if (dictDelete(events, objectPtr(c->argv[i])) == DICT_OK) reset++;
    }
    addReplyLongLong(c, reset);
}

void latencyHelpCommand(client *c) {
    static const char *help[] = {
        "DOCTOR",
        "    Return a human readable latency analysis report.",
        "GRAPH <event>",
        "    Return an ASCII latency graph for the <event> class.",
        "HISTORY <event>",
        "    Return time-latency samples for the <event> class.",
        "LATEST",
        "    Return the latest latency samples for all events.",
        "RESET [<event> ...]",
        "    Reset latency data of one or more <event> classes.",
        "    (default: reset all data for all event classes)",
        "HISTOGRAM [COMMAND ...]",
        "    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
        "    If no commands are specified then all histograms are replied.",
        NULL};
    addReplyHelp(c, help);
}

void latencyCallObserver(const callInfo *ci) {
    if (!ci->blocked && (ci->call_flags & CALL_STATS)) latencyRecordCommand(ci->cmd, ci->duration_us);
}

/* ------------------------------------------------- LATENCY GRAPH / DOCTOR */

#define GRAPH_ROWS 4
#define GRAPH_STEPS 3 /* each row's cell shows a third of a row: "_o#" */
#define GRAPH_COLUMNS 80


/* How long ago, as the graph's column labels say it: 45s, 3m, 2h, 1d. */
static int ageLabel(char *buf, size_t size, long long secs) {
    if (secs < 60) return snprintf(buf, size, "%llds", secs);
    if (secs < 3600) return snprintf(buf, size, "%lldm", secs / 60);
    if (secs < 86400) return snprintf(buf, size, "%lldh", secs / 3600);
    return snprintf(buf, size, "%lldd", secs / 86400);
}

/* A bar per sample, GRAPH_ROWS high, scaled between the lowest and highest
 * sample (lo, hi) of the whole event: the bar's top cell is '_', 'o' or '#' by
 * how far into its row it reaches, the cells below it '|'. Under the bars, a
 * blank line, then each sample's age written downwards. */
static sds renderGraphBlock(sds out, const long long *times, const long long *ms, int n, long long lo, long long hi,
                            long long now) {
    int levels = GRAPH_ROWS * GRAPH_STEPS;
    for (int row = GRAPH_ROWS - 1; row >= 0; row--) {
        for (int i = 0; i < n; i++) {
            int level = hi > lo ? (int)((double)(ms[i] - lo) * levels / (double)(hi - lo)) : 0;
            if (level >= levels) level = levels - 1;
            int top = level / GRAPH_STEPS;
            char cell = row == top ? "_o#"[level % GRAPH_STEPS] : row < top ? '|' : ' ';
            out = sdscatlen(out, &cell, 1);
        }
        out = sdscatlen(out, "\n", 1);
    }
    char labels[GRAPH_COLUMNS][24];
    int longest = 0;
    for (int i = 0; i < n; i++) {
        int len = ageLabel(labels[i], sizeof(labels[i]), now - times[i]);
        if (len > longest) longest = len;
    }
    for (int line = -1; line < longest; line++) {
        for (int i = 0; i < n; i++) {
            char ch = line >= 0 && line < (int)strlen(labels[i]) ? labels[i][line] : ' ';
            out = sdscatlen(out, &ch, 1);
        }
        out = sdscatlen(out, "\n", 1);
    }
    return out;
}

/* LATENCY GRAPH event */
void latencyGraphCommand(client *c) {
    const char *name = objectPtr(c->argv[2]);
    latencyEvent *ev = findEvent(name);
    long long times[LATENCY_SAMPLES], ms[LATENCY_SAMPLES];
    int n = ev ? eventSamples(ev, times, ms) : 0;
    if (n == 0) {
        addReplyErrorFormat(c, "No samples available for event '%s'", name);
        return;
    }
    long long lo = ms[0], hi = ms[0];
    for (int i = 1; i < n; i++) {
        if (ms[i] < lo) lo = ms[i];
        if (ms[i] > hi) hi = ms[i];
    }
    sds out = sdscatprintf(sdsempty(), "%s - high %lld ms, low %lld ms (all time high %lld ms)\n", name, hi, lo,
                           ev->max);
    for (int i = 0; i < GRAPH_COLUMNS; i++) out = sdscatlen(out, "-", 1);
    out = sdscatlen(out, "\n", 1);
    /* Blocks of GRAPH_COLUMNS samples, an empty line between them. */
    long long now = (long long)time(NULL);
    for (int from = 0; from < n; from += GRAPH_COLUMNS) {
        if (from) out = sdscatlen(out, "\n", 1);
        int len = n - from < GRAPH_COLUMNS ? n - from : GRAPH_COLUMNS;
        out = renderGraphBlock(out, times + from, ms + from, len, lo, hi, now);
    }
    addReplyVerbatim(c, out, sdslen(out), "txt");
    sdsfree(out);
}

/* What the doctor may advise, in the order the report lists it. */
enum {
    ADVISE_SLOWLOG_ENABLE,
    ADVISE_SLOWLOG_TUNE,
    ADVISE_SLOWLOG_INSPECT,
    ADVISE_SCHEDULER,
    ADVISE_HZ,
    ADVISE_LARGE_OBJECTS,
    ADVICES
};

static sds adviceText(sds out, int advice) {
    switch (advice) {
    case ADVISE_SLOWLOG_ENABLE:
        return sdscatprintf(out,
                            "- There are latency issues with potentially slow commands you are using. Try to enable "
                            "the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than %lld'. "
                            "If the Slow log is disabled Redis is not able to log slow commands execution for you.\n",
                            server.latency_monitor_threshold * 1000);
    case ADVISE_SLOWLOG_TUNE:
        return sdscatprintf(out,
                            "- Your current Slow Log configuration only logs events that are slower than your "
                            "configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than "
                            "%lld'.\n",
                            server.latency_monitor_threshold * 1000);
    case ADVISE_SLOWLOG_INSPECT:
        return sdscat(out, "- Check your Slow Log to understand what are the commands you are running which are too "
                           "slow to execute. Please check https://redis.io/commands/slowlog for more information.\n");
    case ADVISE_SCHEDULER:
        return sdscat(out,
                      "- The system is slow to execute Redis code paths not containing system calls. This usually "
                      "means the system does not provide Redis CPU time to run for long periods. You should try to:\n"
                      "  1) Lower the system load.\n"
                      "  2) Use a computer / VM just for Redis if you are running other software in the same system.\n"
                      "  3) Check if you have a \"noisy neighbour\" problem.\n"
                      "  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your "
                      "system.\n"
                      "  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you "
                      "are using Jemalloc. However this may create fragmentation problems.\n");
    case ADVISE_HZ:
        return sdscat(out, "- In order to make the Redis keys expiring process more incremental, try to set the 'hz' "
                           "configuration parameter to 100 using 'CONFIG SET hz 100'.\n");
    case ADVISE_LARGE_OBJECTS:
        return sdscat(out, "- Deleting, expiring or evicting (because of maxmemory policy) large objects is a "
                           "blocking operation. If you have very large objects that are often deleted, expired, or "
                           "evicted, try to fragment those objects into multiple smaller objects.\n");
    }
    return out;
}

/* Which advices an event calls for. */
static void adviseFor(const char *event, int *advise) {
    if (!strcmp(event, "command")) {
        if (server.slowlog_log_slower_than < 0)
            advise[ADVISE_SLOWLOG_ENABLE] = 1;
        else if (server.slowlog_log_slower_than / 1000 > server.latency_monitor_threshold)
            advise[ADVISE_SLOWLOG_TUNE] = 1;
        advise[ADVISE_SLOWLOG_INSPECT] = 1;
        advise[ADVISE_LARGE_OBJECTS] = 1;
    } else if (!strcmp(event, "fast-command")) {
        advise[ADVISE_SCHEDULER] = 1;
    } else if (!strcmp(event, "expire-cycle")) {
        if (server.hz < 100) advise[ADVISE_HZ] = 1;
    }
}

/* LATENCY DOCTOR: each event's spikes (count, average, mean deviation from
 * it, the period between them, the worst), then advices for them. */
void latencyDoctorCommand(client *c) {
    sds out;
    if (!events || dictSize(events) == 0) {
        if (server.latency_monitor_threshold <= 0)
            out = sdsnew("I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. "
                         "You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable "
                         "it. If we weren't in a deep space mission I'd suggest to take a look at "
                         "https://redis.io/topics/latency-monitor.\n");
        else
            out = sdsnew("Dave, no latency spike was observed during the lifetime of this Redis instance, not in "
                         "the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and "
                         "think things over.\n");
        addReplyVerbatim(c, out, sdslen(out), "txt");
        sdsfree(out);
        return;
    }
    out = sdsnew("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, "
                 "do you Dave?\n\n");
    int advise[ADVICES] = {0}, nth = 0;
    long long now = (long long)time(NULL);
    dictIterator *di = dictGetIterator(events);
    dictEntry *de;
    while ((de = dictNext(di))) {
        const char *name = dictGetKey(de);
        latencyEvent *ev = dictGetVal(de);
        long long times[LATENCY_SAMPLES], ms[LATENCY_SAMPLES], sum = 0, dev = 0;
        int n = eventSamples(ev, times, ms);
        if (n == 0) continue;
        for (int i = 0; i < n; i++) sum += ms[i];
        long long avg = sum / n;
        for (int i = 0; i < n; i++) dev += ms[i] > avg ? ms[i] - avg : avg - ms[i];
        long long span = now - times[0];
        double period = (double)(span > 0 ? span : 1) / n;
        out = sdscatprintf(out,
                           "%d. %s: %d latency spikes (average %lldms, mean deviation %lldms, period %.2f sec). "
                           "Worst all time event %lldms.\n",
                           ++nth, name, n, avg, dev / n, period, ev->max);
        adviseFor(name, advise);
    }
    dictReleaseIterator(di);
    int any = 0;
    for (int a = 0; a < ADVICES; a++) any |= advise[a];
    if (any) out = sdscat(out, "\nI have a few advices for you:\n\n");
    for (int a = 0; a < ADVICES; a++)
        if (advise[a]) out = adviceText(out, a);
    addReplyVerbatim(c, out, sdslen(out), "txt");
    sdsfree(out);
}
