/* aof: append-only persistence (see aof.h).
 *
 * Every propagated change is appended as RESP to the current incremental file
 * (relative TTLs were already turned into absolute ones by the propagation
 * layer). A rewrite never needs a buffer of concurrent writes: when it starts,
 * a new incremental file is opened and named in the manifest, the child writes
 * a new base (RDB preamble or commands) from its snapshot, and on success the
 * manifest is switched to the new base + the new incremental file; the old
 * files become history, deleted at once unless aof-disable-auto-gc keeps
 * them (named in the manifest, type h). Sequence numbers follow Redis 7.0: a
 * base's number grows only when a rewrite succeeds, an incremental file's
 * whenever one is opened, so failed rewrites leave several incremental files.
 * While the AOF is being turned on (its first base not written yet) commands
 * go to a temporary incremental file that becomes the first real one when
 * the base is done, and is removed when the rewrite fails (a retry follows).
 * appendfsync always fsyncs before replies are sent; everysec fsyncs from a
 * background thread once a second. */
#include "persist/aof.h"
#include "persist/aofbase.h"
#include "persist/bgchild.h"
#include "persist/persist.h"
#include "server/propagate.h"
#include "server/dispatch.h"
#include "server/command.h"
#include "persist/rdb.h"
#include "persist/libstore.h"
#include "server/client.h"
#include "server/db.h"
#include "server/reply.h"
#include "core/clock.h"
#include "core/fileutil.h"
#include "core/numparse.h"
#include "core/zmalloc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A failing write is logged once every 30 s at most, as Redis does. */
#define WRITE_ERROR_LOG_SECONDS 30

typedef struct aofFile {
    sds name;
    long long seq;
    char type; /* 'b' base, 'i' incremental, 'h' history */
} aofFile;

/* Redis's limit on automatic rewrites that keep failing: after 3 failures in
 * a row the next is delayed 1 minute, then 2, 4, ... up to an hour. */
#define REWRITE_LIMIT_THRESHOLD 3
#define REWRITE_LIMIT_MAX_MINUTES 60

static struct {
    int on;
    /* Asked for inside a transaction (EXEC cannot fork): done by the cron. */
    int rewrite_scheduled, start_scheduled;
    /* Turned on at run time, its first base not written yet: the manifest is
     * left as it was until the child succeeds (a retry follows a failure). */
    int starting;
    int fd;                 /* current incremental file (the temporary one while starting), -1 none */
    sds buf;                /* commands not written yet */
    int selected_db;
    aofFile base;           /* name NULL when there is none */
    aofFile *incr;          /* incremental files in order; the last is being written */
    int nincr;
    aofFile *hist;          /* history files in manifest order (aof-disable-auto-gc keeps them) */
    int nhist;
    long long base_seq, incr_seq; /* the newest base's and incr file's numbers, counted apart as Redis does */
    pid_t child;
    aofFile rewrite_base;   /* the base the child writes */
    int rewrite_incr_from;  /* incr files before this index become history when it succeeds */
    long long rewrites, consecutive_failures;
    int last_rewrite_ok, last_write_ok;
    int last_write_errno;   /* why the last write failed (INFO's err, -MISCONF's text) */
    off_t incr_size;        /* bytes in the current file: a short write is cut back to it */
    off_t synced_size;      /* ... of which fsynced (appendfsync always) */
    time_t rewrite_start;
    long long last_rewrite_time;
    long long size_at_rewrite;  /* base + incr size after the last rewrite */
    /* everysec fsync thread */
    pthread_t fsync_thread;
    pthread_mutex_t lock;
    int fsync_pending, fsync_thread_started;
    /* An everysec fsync failed: its errno, else 0. Writes are refused, as
     * after a failed write, until a rewrite has put the data on disk again
     * (the cron starts one); Redis 7.0 refuses them until a restart. */
    _Atomic int fsync_errno;
    time_t fsync_rewrite_try; /* when the cron last started that rewrite */
} aof = {.fd = -1, .selected_db = -1, .child = -1, .last_rewrite_ok = 1, .last_write_ok = 1, .last_rewrite_time = -1,
         .lock = PTHREAD_MUTEX_INITIALIZER};

/* ------------------------------------------------------------------ paths */

static sds dirPath(const char *file) { return sdscatprintf(sdsempty(), "%s/%s", server.appenddirname, file); }

static sds manifestPath(void) {
    sds name = sdscatprintf(sdsempty(), "%s.manifest", server.appendfilename);
    sds p = dirPath(name);
    sdsfree(name);
    return p;
}

static void ensureDir(void) { mkdir(server.appenddirname, 0755); }

/* "file NAME seq N type T", the name quoted when it holds spaces or
 * unprintable bytes (appendfilename may), as Redis writes it. */
static sds catManifestLine(sds text, aofFile *f) {
    int quote = 0;
    for (const char *p = f->name; *p && !quote; p++)
        quote = *p == '\\' || *p == '"' || !isprint((unsigned char)*p) || isspace((unsigned char)*p);
    text = sdscat(text, "file ");
    text = quote ? sdscatrepr(text, f->name, sdslen(f->name)) : sdscatsds(text, f->name);
    return sdscatprintf(text, " seq %lld type %c\n", f->seq, f->type);
}

/* Writes the manifest (temp file + rename), naming base, history and
 * incremental files in that order, as Redis does. */
static int writeManifest(aofFile *base, aofFile *hist, int nhist, aofFile *incr, int nincr) {
    sds text = sdsempty();
    if (base && base->name) text = catManifestLine(text, base);
    for (int i = 0; i < nhist; i++) text = catManifestLine(text, &hist[i]);
    for (int i = 0; i < nincr; i++) text = catManifestLine(text, &incr[i]);
    sds path = manifestPath(), tmp = sdscatprintf(sdsdup(path), ".tmp");
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int ok = fd != -1 && write(fd, text, sdslen(text)) == (ssize_t)sdslen(text) && fsync(fd) == 0;
    if (fd != -1) close(fd);
    ok = ok && rename(tmp, path) == 0 && fsyncFileDir(path) == 0;
    if (!ok) serverLog(LL_WARNING, "Can't persist the AOF manifest: %s", strerror(errno));
    sdsfree(text);
    sdsfree(path);
    sdsfree(tmp);
    return ok ? C_OK : C_ERR;
}

/* ---------------------------------------------------------------- writing */

static void aofFeed(int dbid, robj **argv, int argc);

/* The AOF reads the command stream only while it is on: with no subscriber
 * the stream costs one branch per write. */
static void setOn(int on) {
    aof.on = on;
    if (on) propagateSubscribe(aofFeed);
    else propagateUnsubscribe(aofFeed);
}

size_t aofBufferMemory(void) { return aof.on && aof.buf ? sdsAllocSize(aof.buf) : 0; }

/* A command in RESP, no SELECT (the rewrite writes its own). */
static void catCommand(sds *buf, robj **argv, int argc) {
    int selected = 0;
    *buf = catReplayableCommand(*buf, &selected, 0, argv, argc);
}

/* aof-timestamp-enabled: "#TS:<unix time>" ahead of the first command of
 * each second (and at the top of a rewritten base), as Redis annotates. */
static long long aof_cur_timestamp;
static sds catTimestampIfNeeded(sds buf, int force) {
    long long now = (long long)time(NULL);
    if (!force && aof_cur_timestamp >= now) return buf;
    aof_cur_timestamp = now;
    return sdscatprintf(buf, "#TS:%lld\r\n", now);
}

static void aofFeed(int dbid, robj **argv, int argc) {
    /* No file: the AOF is starting and waits for its next rewrite, whose
     * snapshot will hold these changes. */
    if (!aof.on || aof.fd == -1) return;
    /* Framed apart, then appended in one piece: the buffer grows as Redis's
     * (INFO mem_aof_buffer), not by the framing's worst-case reservation. */
    static sds cmd;
    if (!cmd) cmd = sdsempty();
    if (server.aof_timestamp_enabled) cmd = catTimestampIfNeeded(cmd, 0);
    cmd = catReplayableCommand(cmd, &aof.selected_db, dbid, argv, argc);
    aof.buf = sdscatlen(aof.buf, cmd, sdslen(cmd));
    if (sdsalloc(cmd) > 65536) {
        sdsfree(cmd);
        cmd = NULL;
    } else {
        sdsclear(cmd);
    }
}

static void *fsyncThreadMain(void *arg) {
    (void)arg;
    for (;;) {
        sleep(1);
        pthread_mutex_lock(&aof.lock);
        if (aof.fsync_pending && aof.fd != -1) {
            /* EBADF/EINVAL: the file was closed under us (switchFd syncs it
             * itself). A later fsync that works does not clear a failure:
             * the kernel may have dropped the pages that failed. */
            if (fdatasync(aof.fd) == -1 && errno != EBADF && errno != EINVAL) {
                if (aof.fsync_errno == 0) serverLog(LL_WARNING, "Fail to fsync the AOF file: %s", strerror(errno));
                aof.fsync_errno = errno;
            }
            aof.fsync_pending = 0;
        }
        pthread_mutex_unlock(&aof.lock);
    }
    return NULL;
}

int aofWriteErrno(void) {
    if (!aof.on) return 0;
    if (!aof.last_write_ok) return aof.last_write_errno;
    return aof.fsync_errno;
}

/* Writes all of buf (a write may take part of it): the bytes written, or -1
 * when nothing could be (errno says why, also after a part was written). */
static ssize_t writeAll(int fd, const char *buf, size_t len) {
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, buf + done, len - done);
        if (n == -1 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = ENOSPC;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)n;
    }
    return (ssize_t)done;
}

/* What Redis does when a write to the AOF fails or is short: a short write is
 * cut back off the file (the next try writes the whole buffer again), the
 * always policy exits (a reply may already wait to be sent: what it
 * acknowledges must be on disk), the others refuse writes (-MISCONF) until a
 * write works again; the buffer is kept for that write. */
static void writeFailed(ssize_t written, size_t len) {
    static time_t last_log;
    time_t now = time(NULL);
    int can_log = now - last_log > WRITE_ERROR_LOG_SECONDS;
    if (can_log) last_log = now;
    if (written == -1) {
        if (can_log) serverLog(LL_WARNING, "Error writing to the AOF file: %s", strerror(errno));
        aof.last_write_errno = errno;
    } else {
        if (can_log)
            serverLog(LL_WARNING, "Short write while writing to the AOF file: (nwritten=%lld, expected=%lld)",
                      (long long)written, (long long)len);
        if (ftruncate(aof.fd, aof.incr_size) == -1) {
            if (can_log)
                serverLog(LL_WARNING, "Could not remove short write from the append-only file.  Redis may refuse "
                                      "to load the AOF the next time it starts.  ftruncate: %s", strerror(errno));
        } else {
            written = -1; /* nothing of it is left in the file */
        }
        aof.last_write_errno = ENOSPC;
    }
    if (server.aof_fsync == AOF_FSYNC_ALWAYS) {
        serverLog(LL_WARNING, "Can't recover from AOF write error when the AOF fsync policy is 'always'. Exiting...");
        exit(1);
    }
    aof.last_write_ok = 0;
    if (written > 0) { /* what could not be cut off stays written: the rest follows it */
        aof.incr_size += written;
        sdsrange(aof.buf, written, -1);
    }
}

void aofFlush(void) {
    if (!aof.on || aof.fd == -1) return;
    if (sdslen(aof.buf) == 0) {
        /* The policy became always with writes not synced yet. */
        if (server.aof_fsync == AOF_FSYNC_ALWAYS && aof.synced_size != aof.incr_size) goto sync;
        return;
    }
    if (server.aof_flush_sleep > 0) usleep((useconds_t)server.aof_flush_sleep);
    size_t len = sdslen(aof.buf);
    ssize_t written = writeAll(aof.fd, aof.buf, len);
    if (written != (ssize_t)len) {
        writeFailed(written, len);
        return;
    }
    aof.incr_size += written;
    if (!aof.last_write_ok) {
        serverLog(LL_WARNING, "AOF write error looks solved, Redis can write again.");
        aof.last_write_ok = 1;
    }
    /* A small buffer is reused; a big one goes (as Redis 7.0: it is not
     * held after a burst, and INFO mem_aof_buffer shows the same). */
    if (sdslen(aof.buf) + sdsavail(aof.buf) < 4000) {
        sdsclear(aof.buf);
    } else {
        sdsfree(aof.buf);
        aof.buf = sdsempty();
    }
sync:
    if (server.aof_no_fsync_on_rewrite && (aof.child != -1 || persistSaveChildActive() || persistReplChildActive())) return;
    if (server.aof_fsync == AOF_FSYNC_ALWAYS) {
        if (fdatasync(aof.fd) == -1) {
            serverLog(LL_WARNING, "Can't persist AOF for fsync error when the AOF fsync policy is 'always': %s. Exiting...", strerror(errno));
            exit(1);
        }
        aof.synced_size = aof.incr_size;
    } else if (server.aof_fsync == AOF_FSYNC_EVERYSEC) {
        pthread_mutex_lock(&aof.lock);
        aof.fsync_pending = 1;
        pthread_mutex_unlock(&aof.lock);
        if (!aof.fsync_thread_started) {
            pthread_create(&aof.fsync_thread, NULL, fsyncThreadMain, NULL);
            pthread_detach(aof.fsync_thread);
            aof.fsync_thread_started = 1;
        }
    }
}

static sds incrName(long long seq) { return sdscatprintf(sdsempty(), "%s.%lld.incr.aof", server.appendfilename, seq); }

/* Where commands go while the AOF is starting, as Redis names it. */
static sds tempIncrName(void) { return sdscatprintf(sdsempty(), "temp-%s.incr", server.appendfilename); }

/* Makes fd the file written to (-1: none), the previous one synced and closed. */
static void switchFd(int fd) {
    aofFlush();
    pthread_mutex_lock(&aof.lock);
    if (aof.fd != -1) {
        fdatasync(aof.fd);
        close(aof.fd);
    }
    aof.fd = fd;
    pthread_mutex_unlock(&aof.lock);
    struct stat st;
    aof.incr_size = aof.synced_size = fd != -1 && fstat(fd, &st) == 0 ? st.st_size : 0;
    aof.selected_db = -1;
}

static int openForAppend(const char *name, int flags) {
    sds path = dirPath(name);
    int fd = open(path, O_WRONLY | O_CREAT | flags, 0644);
    sdsfree(path);
    if (fd == -1) serverLog(LL_WARNING, "Can't open the append-only file %s: %s", name, strerror(errno));
    return fd;
}

/* The AOF is starting: a fresh temporary incremental file takes the commands
 * that arrive while its first base is written. */
static int openTempIncr(void) {
    sds name = tempIncrName();
    int fd = openForAppend(name, O_TRUNC | O_APPEND);
    sdsfree(name);
    if (fd == -1) return C_ERR;
    switchFd(fd);
    return C_OK;
}

/* The starting AOF's rewrite failed: its temporary file goes with what it held. */
static void removeTempIncr(int log) {
    switchFd(-1);
    sdsclear(aof.buf);
    sds name = tempIncrName(), path = dirPath(name);
    if (log) serverLog(LL_NOTICE, "Removing the temp incr aof file %s in the background", name);
    unlink(path);
    sdsfree(name);
    sdsfree(path);
}

/* Opens a fresh incremental file and makes it the one written to. */
static int openNewIncr(void) {
    long long seq = aof.incr_seq + 1;
    aofFile f = {incrName(seq), seq, 'i'};
    int fd = openForAppend(f.name, O_APPEND);
    if (fd == -1) {
        sdsfree(f.name);
        return C_ERR;
    }
    switchFd(fd);
    aof.incr_seq = seq;
    aof.incr = zrealloc(aof.incr, sizeof(aofFile) * (aof.nincr + 1));
    aof.incr[aof.nincr++] = f;
    return C_OK;
}

/* ---------------------------------------------------------------- rewrite */

static int catFunctionLoad(void *buf, sds code) {
    robj *argv[3] = {createStringObject("FUNCTION", 8), createStringObject("LOAD", 4),
                     createStringObject(code, sdslen(code))};
    catCommand(buf, argv, 3);
    for (int k = 0; k < 3; k++) decrRefCount(argv[k]);
    return 1;
}

static int writeBaseFile(const char *path) {
    /* The base is an RDB file (aof-use-rdb-preamble yes) or plain commands. */
    if (server.aof_use_rdb_preamble) return rdbSave(path, 1);
    sds tmp = sdscatprintf(sdsempty(), "%s.tmp", path);
    FILE *fp = fopen(tmp, "w");
    if (!fp) {
        sdsfree(tmp);
        return C_ERR;
    }
    int ok = 1;
    size_t processed = 0; /* keys written, for INFO current_save_keys_processed in the parent */
    sds buf = server.aof_timestamp_enabled ? catTimestampIfNeeded(sdsempty(), 1) : sdsempty();
    /* Libraries first, as Redis writes them: keys never depend on them. */
    librariesForEachCode(catFunctionLoad, &buf);
    for (int j = 0; j < server.dbnum && ok; j++) {
        redisDb *db = &server.db[j];
        if (dictSize(db->dict) == 0) continue;
        buf = sdscatprintf(buf, "*2\r\n$6\r\nSELECT\r\n$%d\r\n%d\r\n", j < 10 ? 1 : (j < 100 ? 2 : 3), j);
        dictIterator *di = dictGetSafeIterator(db->dict);
        dictEntry *de;
        while ((de = dictNext(di))) {
            bgchildReportProgress(processed++);
            sds key = dbEntryKey(de);
            robj *keyobj = createStringObject(key, sdslen(key));
            buf = aofCatKeyCommands(buf, keyobj, dbEntryValue(de), dbEntryExpire(db, de));
            decrRefCount(keyobj);
            if (sdslen(buf) > (1 << 20)) {
                ok = fwrite(buf, sdslen(buf), 1, fp) == 1;
                sdsclear(buf);
            }
        }
        dictReleaseIterator(di);
    }
    if (ok && sdslen(buf)) ok = fwrite(buf, sdslen(buf), 1, fp) == 1;
    sdsfree(buf);
    ok = ok && fflush(fp) == 0 && fsync(fileno(fp)) == 0;
    fclose(fp);
    ok = ok && rename(tmp, path) == 0;
    if (!ok) unlink(tmp);
    sdsfree(tmp);
    return ok ? C_OK : C_ERR;
}

/* The base the next successful rewrite makes (the number is taken only then). */
static aofFile newBaseName(void) {
    long long seq = aof.base_seq + 1;
    aofFile f = {sdscatprintf(sdsempty(), "%s.%lld.base.%s", server.appendfilename, seq,
                              server.aof_use_rdb_preamble ? "rdb" : "aof"),
                 seq, 'b'};
    return f;
}

static void deleteFile(aofFile *f) {
    sds p = dirPath(f->name);
    unlink(p);
    sdsfree(p);
}

static void freeFiles(aofFile *files, int n) {
    for (int i = 0; i < n; i++) sdsfree(files[i].name);
    zfree(files);
}

/* History files go (manifest first, then the files), unless
 * aof-disable-auto-gc keeps them. */
static void deleteHistoryFiles(void) {
    if (server.aof_disable_auto_gc || aof.nhist == 0) return;
    if (writeManifest(&aof.base, NULL, 0, aof.incr, aof.nincr) != C_OK) return;
    for (int i = 0; i < aof.nhist; i++) {
        serverLog(LL_NOTICE, "Removing the history file %s in the background", aof.hist[i].name);
        deleteFile(&aof.hist[i]);
    }
    freeFiles(aof.hist, aof.nhist);
    aof.hist = NULL;
    aof.nhist = 0;
}

/* The rewrite failed (why: logged as is, unless NULL; counts: a failure of
 * the child's, in INFO's status and the count of failures in a row). */
static void rewriteFailed(const char *why, int counts) {
    if (why) serverLog(LL_WARNING, "%s", why);
    sds p = dirPath(aof.rewrite_base.name);
    unlink(p);
    sdsfree(p);
    sdsfree(aof.rewrite_base.name);
    aof.rewrite_base.name = NULL;
    if (counts) {
        aof.last_rewrite_ok = 0;
        aof.consecutive_failures++;
    }
    /* Still no base for the AOF being turned on: drop what was written meanwhile and try again. */
    if (aof.starting) {
        removeTempIncr(1);
        aof.rewrite_scheduled = 1;
    }
}

/* Switch to the new base + the incr files opened since the rewrite started;
 * the old base and incr files become history (listed newest first). */
static void rewriteSucceeded(void) {
    aofFile newincr = {NULL, 0, 'i'};
    if (aof.starting) {
        /* The temporary file becomes the first incremental file. */
        newincr.seq = aof.incr_seq + 1;
        newincr.name = incrName(newincr.seq);
        sds tmpname = tempIncrName(), from = dirPath(tmpname), to = dirPath(newincr.name);
        int renamed = rename(from, to) == 0;
        sdsfree(tmpname);
        sdsfree(from);
        sdsfree(to);
        if (!renamed) {
            serverLog(LL_WARNING, "Error trying to rename the temporary AOF incr file: %s", strerror(errno));
            sdsfree(newincr.name);
            rewriteFailed("Background AOF rewrite failed", 1);
            return;
        }
    }
    int nold = aof.starting ? aof.nincr : aof.rewrite_incr_from;
    int nkeep = aof.starting ? 1 : aof.nincr - nold;
    int nhist = nold + (aof.base.name ? 1 : 0) + aof.nhist;
    aofFile *hist = zmalloc(sizeof(aofFile) * (nhist ? nhist : 1)), *keep = zmalloc(sizeof(aofFile) * nkeep);
    int h = 0;
    for (int i = 0; i < nold; i++) hist[h++] = (aofFile){aof.incr[i].name, aof.incr[i].seq, 'h'};
    if (aof.base.name) hist[h++] = (aofFile){aof.base.name, aof.base.seq, 'h'};
    for (int i = 0; i < aof.nhist; i++) hist[h++] = aof.hist[i];
    if (aof.starting) keep[0] = newincr;
    else if (nkeep) memcpy(keep, aof.incr + nold, sizeof(aofFile) * nkeep); /* (no incr file yet: aof.incr is NULL) */
    if (writeManifest(&aof.rewrite_base, hist, nhist, keep, nkeep) != C_OK) {
        zfree(hist);
        zfree(keep);
        if (newincr.name) { /* back where it was, so the retry finds it */
            sds tmpname = tempIncrName(), from = dirPath(newincr.name), to = dirPath(tmpname);
            rename(from, to);
            sdsfree(tmpname);
            sdsfree(from);
            sdsfree(to);
            sdsfree(newincr.name);
        }
        rewriteFailed("Background AOF rewrite failed", 1);
        return;
    }
    zfree(aof.incr);
    zfree(aof.hist);
    aof.incr = keep;
    aof.nincr = nkeep;
    aof.hist = hist;
    aof.nhist = nhist;
    if (aof.starting) aof.incr_seq = newincr.seq;
    aof.base = aof.rewrite_base;
    aof.base_seq = aof.base.seq;
    aof.rewrite_base.name = NULL;
    aof.starting = 0;
    aof.last_rewrite_ok = 1;
    aof.consecutive_failures = 0;
    aof.size_at_rewrite = 0;
    struct stat st;
    sds p = dirPath(aof.base.name);
    if (stat(p, &st) == 0) aof.size_at_rewrite = st.st_size;
    sdsfree(p);
    deleteHistoryFiles();
    serverLog(LL_NOTICE, "Background AOF rewrite finished successfully");
    /* The new base holds what the failed fsync may have lost (no client
     * wrote since: writes were refused). */
    if (aof.fsync_errno) {
        aof.fsync_errno = 0;
        serverLog(LL_WARNING, "AOF rewritten after the fsync error, Redis can write again.");
    }
}

static int rewriteStart(int background) {
    if (aof.child != -1) return C_ERR;
    ensureDir();
    if (aof.starting) {
        /* The manifest stays as it was until the first base is written. */
        if (openTempIncr() != C_OK) return C_ERR;
        aof.rewrite_incr_from = aof.nincr;
    } else if (aof.on) {
        /* From now on the manifest names the old files plus the new incr file. */
        if (openNewIncr() != C_OK) return C_ERR;
        writeManifest(&aof.base, aof.hist, aof.nhist, aof.incr, aof.nincr);
        aof.rewrite_incr_from = aof.nincr - 1;
    } else {
        /* BGREWRITEAOF with appendonly no: a new base, no incr file. */
        aof.rewrite_incr_from = aof.nincr;
    }
    aof.rewrite_base = newBaseName();
    sds path = dirPath(aof.rewrite_base.name);
    aof.rewrite_start = time(NULL);
    if (!background) {
        int ok = writeBaseFile(path) == C_OK;
        sdsfree(path);
        if (ok) rewriteSucceeded();
        else rewriteFailed("AOF rewrite failed", 1);
        return ok ? C_OK : C_ERR;
    }
    aof.rewrites++; /* counted when started, as Redis's aof_rewrites */
    pid_t pid = bgchildFork(BGCHILD_AOF);
    if (pid == 0) {
        int ok = writeBaseFile(path) == C_OK;
        if (ok) bgchildReportCow();
        _exit(ok ? 0 : 1);
    }
    sdsfree(path);
    if (pid == -1) {
        serverLog(LL_WARNING, "Can't rewrite append only file in background: fork: %s", strerror(errno));
        /* As Redis: an error in INFO, not one of the child's failures in a row. */
        rewriteFailed(NULL, 0);
        aof.last_rewrite_ok = 0;
        return C_ERR;
    }
    serverLog(LL_NOTICE, "Background append only file rewriting started by pid %d", (int)pid);
    aof.child = pid;
    return C_OK;
}

int aofRewriteInProgress(void) { return aof.child != -1; }

static int bgrewriteNow(void);

/* The rewrite child has exited (or, block: once it has): its result is taken. 0 while it runs. */
static int reapRewriteChild(int block) {
    int status;
    pid_t pid = waitpid(aof.child, &status, block ? 0 : WNOHANG);
    if (pid == 0) return 0;
    bgchildCollect(aof.child);
    aof.child = -1;
    aof.last_rewrite_time = time(NULL) - aof.rewrite_start;
    if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        rewriteSucceeded();
    } else if (pid > 0 && WIFSIGNALED(status)) {
        char why[64];
        snprintf(why, sizeof(why), "Background AOF rewrite terminated by signal %d", WTERMSIG(status));
        rewriteFailed(why, WTERMSIG(status) != SIGUSR1); /* SIGUSR1: killed on purpose, not a failure */
    } else {
        rewriteFailed("Background AOF rewrite terminated with error", 1);
    }
    return 1;
}

/* Automatic rewrites after REWRITE_LIMIT_THRESHOLD failures in a row wait,
 * longer each time, as Redis's do (BGREWRITEAOF is never held back). */
static int rewriteLimited(void) {
    static int next_delay_minutes = 0;
    static time_t next_rewrite_time = 0;
    if (aof.consecutive_failures < REWRITE_LIMIT_THRESHOLD) {
        next_delay_minutes = 0;
        next_rewrite_time = 0;
        return 0;
    }
    if (next_rewrite_time != 0) {
        if (time(NULL) < next_rewrite_time) return 1;
        next_rewrite_time = 0;
        return 0;
    }
    next_delay_minutes = next_delay_minutes == 0 ? 1 : next_delay_minutes * 2;
    if (next_delay_minutes > REWRITE_LIMIT_MAX_MINUTES) next_delay_minutes = REWRITE_LIMIT_MAX_MINUTES;
    next_rewrite_time = time(NULL) + next_delay_minutes * 60;
    serverLog(LL_WARNING,
              "Background AOF rewrite has repeatedly failed and triggered the limit, will retry in %d minutes",
              next_delay_minutes);
    return 1;
}

void aofCron(void) {
    /* A failed write is retried even when no command comes to flush it. */
    if (aof.on && !aof.last_write_ok) aofFlush();
    if (aof.child != -1) {
        reapRewriteChild(0);
        return;
    }
    if ((aof.start_scheduled || aof.rewrite_scheduled) && persistSaveChildActive()) return;
    if (aof.fsync_errno && aof.on && !aof.starting && !persistSaveChildActive() && !persistReplChildActive() &&
        time(NULL) - aof.fsync_rewrite_try >= 5) {
        aof.fsync_rewrite_try = time(NULL);
        serverLog(LL_WARNING, "Rewriting the AOF from memory after the fsync error.");
        rewriteStart(1);
        return;
    }
    if (aof.start_scheduled) {
        aof.start_scheduled = 0;
        if (server.aof_enabled && aofStart() != C_OK) server.aof_enabled = 0;
        return;
    }
    if (aof.rewrite_scheduled) {
        if (persistReplChildActive()) return; /* after the full resync's child */
        aof.rewrite_scheduled = 0;
        bgrewriteNow();
        return;
    }
    if (!aof.on || aof.starting || !server.aof_rewrite_perc) return;
    /* auto-aof-rewrite: grow past min size and by the percentage since the last rewrite. */
    long long size = 0;
    struct stat st;
    for (int i = 0; i < aof.nincr; i++) {
        sds p = dirPath(aof.incr[i].name);
        if (stat(p, &st) == 0) size += st.st_size;
        sdsfree(p);
    }
    long long base = aof.size_at_rewrite ? aof.size_at_rewrite : 1;
    if (size + base > server.aof_rewrite_min_size && size * 100 / base >= server.aof_rewrite_perc &&
        !rewriteLimited()) {
        serverLog(LL_NOTICE, "Starting automatic rewriting of AOF on %lld%% growth", size * 100 / base);
        rewriteStart(1);
    }
}

/* ---------------------------------------------------------------- loading */

/* Reads the manifest as Redis 7.0 does, with its checks and words. Returns 1
 * (read), 0 (none) or -1 after logging why it is refused. */
static int readManifest(void) {
    /* What is in memory is replaced by what the file says (DEBUG LOADAOF reads it again). */
    sdsfree(aof.base.name);
    aof.base = (aofFile){NULL, 0, 0};
    freeFiles(aof.incr, aof.nincr);
    freeFiles(aof.hist, aof.nhist);
    aof.incr = aof.hist = NULL;
    aof.nincr = aof.nhist = 0;
    aof.base_seq = aof.incr_seq = 0;
    sds path = manifestPath();
    FILE *fp = fopen(path, "r");
    sdsfree(path);
    if (!fp) return errno == ENOENT ? 0 : -1;
    char buf[1024 + 1];
    int lines = 0;
    long long maxseq = 0;
    const char *err = NULL;
    sds line = NULL;
    for (;;) {
        if (!fgets(buf, sizeof(buf), fp)) {
            if (!feof(fp)) err = "Read AOF manifest failed";
            else if (lines == 0) err = "Found an empty AOF manifest";
            break;
        }
        lines++;
        if (buf[0] == '#') continue;
        if (!strchr(buf, '\n')) {
            err = "The AOF manifest file contains too long line";
            break;
        }
        line = sdstrim(sdsnew(buf), " \t\r\n");
        int argc = 0;
        sds *argv = sdslen(line) ? sdssplitargs(line, &argc) : NULL;
        if (!argv || argc < 6 || argc % 2) {
            if (argv) sdsfreesplitres(argv, argc);
            err = "Invalid AOF manifest file format";
            break;
        }
        aofFile f = {NULL, 0, 0};
        for (int i = 0; i < argc && !err; i += 2) {
            if (!strcasecmp(argv[i], "file")) {
                sdsfree(f.name);
                f.name = sdsdup(argv[i + 1]);
                if (strchr(f.name, '/')) err = "File can't be a path, just a filename";
            } else if (!strcasecmp(argv[i], "seq")) {
                f.seq = atoll(argv[i + 1]);
            } else if (!strcasecmp(argv[i], "type")) {
                f.type = argv[i + 1][0];
            }
        }
        sdsfreesplitres(argv, argc);
        if (!err && (!f.name || !f.seq || !f.type)) err = "Invalid AOF manifest file format";
        if (!err && f.type == 'b' && aof.base.name) err = "Found duplicate base file information";
        if (!err && f.type == 'i' && f.seq <= maxseq) err = "Found a non-monotonic sequence number";
        if (!err && f.type != 'b' && f.type != 'i' && f.type != 'h') err = "Unknown AOF file type";
        if (err) {
            sdsfree(f.name);
            break;
        }
        if (f.type == 'b') {
            aof.base = f;
        } else if (f.type == 'i') {
            aof.incr = zrealloc(aof.incr, sizeof(aofFile) * (aof.nincr + 1));
            aof.incr[aof.nincr++] = f;
            maxseq = f.seq;
        } else {
            /* Not loaded; deleted unless aof-disable-auto-gc keeps them. */
            aof.hist = zrealloc(aof.hist, sizeof(aofFile) * (aof.nhist + 1));
            aof.hist[aof.nhist++] = f;
        }
        sdsfree(line);
        line = NULL;
    }
    fclose(fp);
    if (err) {
        serverLog(LL_WARNING, "\n*** FATAL AOF MANIFEST FILE ERROR ***\n");
        if (line) {
            serverLog(LL_WARNING, "Reading the manifest file, at line %d\n", lines);
            serverLog(LL_WARNING, ">>> '%s'\n", line);
        }
        serverLog(LL_WARNING, "%s\n", err);
        sdsfree(line);
        return -1;
    }
    aof.base_seq = aof.base.name ? aof.base.seq : 0;
    aof.incr_seq = maxseq;
    return 1;
}

/* Replays one AOF file of commands. Returns C_OK, or C_ERR after logging. A
 * truncated tail of the last file is cut off when aof-load-truncated allows it. */
static int loadCommandFile(const char *name, int last, long long from) {
    sds path = dirPath(name);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        serverLog(LL_WARNING, "Fatal error: can't open the append log file %s for reading: %s", name, strerror(errno));
        sdsfree(path);
        return C_ERR;
    }
    if (from) fseeko(fp, from, SEEK_SET);
    client *fake = createClient(-1);
    fake->flags |= CLIENT_AOF;
    fake->authenticated = 1;
    long long valid_up_to = from, multi_start = -1;
    int truncated = 0, rc = C_OK;
    char line[128];
    for (;;) {
        long long cmd_start = ftello(fp);
        if (!fgets(line, sizeof(line), fp)) {
            if (!feof(fp)) rc = C_ERR;
            break;
        }
        if (line[0] == '#') continue; /* an annotation (#TS:...) */
        long long argc;
        if (line[0] != '*' || !string2ll(line + 1, strcspn(line + 1, "\r\n"), &argc) || argc < 1) {
            if (feof(fp)) {
                truncated = 1;
                break;
            }
            serverLog(LL_WARNING, "Bad file format reading the append only file %s at offset %lld", name, cmd_start);
            rc = C_ERR;
            break;
        }
        robj **argv = zmalloc(sizeof(robj *) * argc);
        long long j;
        for (j = 0; j < argc; j++) {
            long long len;
            if (!fgets(line, sizeof(line), fp) || line[0] != '$' ||
                !string2ll(line + 1, strcspn(line + 1, "\r\n"), &len) || len < 0)
                break;
            sds s = sdsnewlen(NULL, len);
            if (len && fread(s, len, 1, fp) != 1) {
                sdsfree(s);
                break;
            }
            char crlf[2];
            if (fread(crlf, 2, 1, fp) != 1) {
                sdsfree(s);
                break;
            }
            argv[j] = createObject(OBJ_STRING, s);
        }
        if (j < argc) {
            for (long long k = 0; k < j; k++) decrRefCount(argv[k]);
            zfree(argv);
            if (feof(fp)) truncated = 1;
            else {
                serverLog(LL_WARNING, "Bad file format reading the append only file %s at offset %lld", name, cmd_start);
                rc = C_ERR;
            }
            break;
        }
        const char *cmdname = objectPtr(argv[0]);
        if (!strcasecmp(cmdname, "multi")) {
            multi_start = cmd_start;
        } else if (!strcasecmp(cmdname, "exec")) {
            multi_start = -1;
        } else {
            struct redisCommand *cmd = lookupCommand(argv, (int)argc);
            if (!cmd || !commandCheckArity(cmd, (int)argc)) {
                serverLog(LL_WARNING, "Unknown command '%s' reading the append only file %s", cmdname, name);
                for (long long k = 0; k < argc; k++) decrRefCount(argv[k]);
                zfree(argv);
                rc = C_ERR;
                break;
            }
            fake->argv = argv;
            fake->argc = (int)argc;
            fake->argv_len = (int)argc;
            fake->cmd = fake->lastcmd = fake->realcmd = cmd;
            call(fake, CALL_NONE);
            dbPackPending(); /* no beforeSleep while loading */
            freeClientArgv(fake);
            argv = NULL;
        }
        if (argv) {
            for (long long k = 0; k < argc; k++) decrRefCount(argv[k]);
            zfree(argv);
        }
        if (multi_start == -1) valid_up_to = ftello(fp);
    }
    if (rc == C_OK && multi_start != -1) truncated = 1; /* a transaction without its EXEC */
    fclose(fp);
    freeClient(fake);
    if (rc == C_OK && truncated) {
        if (last && server.aof_load_truncated) {
            serverLog(LL_WARNING, "!!! Warning: short read while loading the AOF file %s!!!", name);
            serverLog(LL_WARNING, "AOF %s loaded anyway because aof-load-truncated is enabled", name);
            if (truncate(path, valid_up_to) == -1) {
                serverLog(LL_WARNING, "Error truncating the AOF file %s: %s", name, strerror(errno));
                rc = C_ERR;
            } else {
                serverLog(LL_WARNING, "AOF %s was truncated to offset %lld", name, valid_up_to);
            }
        } else {
            serverLog(LL_WARNING, "Unexpected end of file reading the append only file %s. You can: 1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. 2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server.", name);
            rc = C_ERR;
        }
    }
    sdsfree(path);
    return rc;
}

static int loadFile(aofFile *f, int last) {
    sds path = dirPath(f->name);
    char magic[5] = {0};
    FILE *fp = fopen(path, "r");
    int is_rdb = fp && fread(magic, 1, 5, fp) == 5 && !memcmp(magic, "REDIS", 5);
    if (fp) fclose(fp);
    int rc;
    if (is_rdb) {
        /* An RDB preamble; commands may follow it (an AOF of Redis before 7.0). */
        int missing;
        struct stat st;
        rc = rdbLoad(path, 0, &missing);
        long long end = (long long)rdbLastLoadEnd();
        if (rc == C_OK && stat(path, &st) == 0 && st.st_size > end) rc = loadCommandFile(f->name, last, end);
    } else {
        rc = loadCommandFile(f->name, last, 0);
    }
    sdsfree(path);
    return rc;
}

/* The base, then the incremental files, in manifest order. */
static int loadAllFiles(void) {
    server.loading = 1;
    int rc = C_OK;
    if (aof.base.name) rc = loadFile(&aof.base, aof.nincr == 0);
    for (int i = 0; rc == C_OK && i < aof.nincr; i++) rc = loadFile(&aof.incr[i], i == aof.nincr - 1);
    server.loading = 0;
    return rc;
}

/* DEBUG LOADAOF: the data replaced by what the AOF files hold (those a
 * BGREWRITEAOF wrote while appendonly is off too). The load replays
 * commands, which must not be appended again. */
int aofDebugLoad(void) {
    int was_on = aof.on;
    if (was_on) {
        aofFlush();
        setOn(0);
    }
    /* As Redis: the manifest on disk says what to load (and the numbers to go on from). */
    int rc = readManifest() < 0 ? C_ERR : C_OK;
    if (rc == C_OK) deleteHistoryFiles();
    if (rc == C_OK && !aof.base.name && aof.nincr == 0) rc = C_ERR;
    if (rc == C_OK) {
        dbAnnounceReplaced(NULL);
        emptyData(-1, NULL);
        rc = loadAllFiles();
    }
    if (was_on) setOn(1);
    server.dirty = 0;
    return rc;
}

int aofLoadAtStartup(void) {
    aof.buf = sdsempty();
    struct stat st;
    if (!server.aof_enabled) {
        /* Not loaded, but known: a BGREWRITEAOF or turning the AOF on goes on from its numbers. */
        if (stat(server.appenddirname, &st) != 0 || !S_ISDIR(st.st_mode)) return C_OK;
        if (readManifest() < 0) return C_ERR;
        deleteHistoryFiles();
        return C_OK;
    }
    int dir_existed = stat(server.appenddirname, &st) == 0 && S_ISDIR(st.st_mode);
    ensureDir();
    int found = readManifest();
    if (found < 0) return C_ERR;
    /* An AOF of Redis before 7.0 (appendfilename in the working directory)
     * becomes the base in the AOF directory, under its old name, as Redis
     * upgrades it (also when an earlier upgrade stopped before the rename). */
    sds old_in_dir = dirPath(server.appendfilename);
    if (stat(server.appendfilename, &st) == 0 &&
        (!dir_existed || (!aof.base.name && aof.nincr == 0) ||
         (aof.base.name && aof.nincr == 0 && !strcmp(aof.base.name, server.appendfilename) &&
          stat(old_in_dir, &st) != 0))) {
        if (!aof.base.name) {
            aof.base = (aofFile){sdsnew(server.appendfilename), 1, 'b'};
            aof.base_seq = 1;
        }
        if (writeManifest(&aof.base, NULL, 0, NULL, 0) != C_OK || rename(server.appendfilename, old_in_dir) == -1) {
            serverLog(LL_WARNING, "Error moving the old AOF %s into the AOF directory: %s", server.appendfilename,
                      strerror(errno));
            sdsfree(old_in_dir);
            return C_ERR;
        }
        serverLog(LL_NOTICE, "Successfully migrated an old-style AOF into the AOF directory %s.", server.appenddirname);
        found = 1;
    }
    sdsfree(old_in_dir);
    if (found) {
        long long start = mstime();
        if (loadAllFiles() != C_OK) return C_ERR;
        serverLog(LL_NOTICE, "DB loaded from append only file: %.3f seconds", (double)(mstime() - start) / 1000);
        /* Keep appending to the last incremental file. */
        if (aof.nincr) {
            sds p = dirPath(aof.incr[aof.nincr - 1].name);
            aof.fd = open(p, O_WRONLY | O_APPEND | O_CREAT, 0644);
            sdsfree(p);
            if (aof.fd == -1) return C_ERR;
            setOn(1);
            deleteHistoryFiles();
            return C_OK;
        }
        /* A base alone: a new incr file follows it. */
        if (aof.base.name) {
            if (openNewIncr() != C_OK || writeManifest(&aof.base, aof.hist, aof.nhist, aof.incr, aof.nincr) != C_OK)
                return C_ERR;
            setOn(1);
            deleteHistoryFiles();
            return C_OK;
        }
    }
    setOn(1);
    return rewriteStart(0);
}

static void killRewriteChild(void);

/* Starts appending (CONFIG SET appendonly yes) while a forked child writes
 * the first base of the current data, as Redis does. */
static int startAppending(void) {
    if (aof.on) return C_OK;
    if (aof.child != -1) {
        serverLog(LL_WARNING, "AOF was enabled but there is already an AOF rewriting in background. Stopping "
                              "background AOF and starting a rewrite now.");
        killRewriteChild();
    }
    ensureDir();
    setOn(1);
    /* As Redis: a child writes the first base while commands are appended. */
    aof.starting = 1;
    if (rewriteStart(1) != C_OK) {
        serverLog(LL_WARNING, "Redis needs to enable the AOF but can't trigger a background AOF rewrite operation. "
                              "Check the above logs for more info about the error.");
        aof.starting = 0;
        aof.rewrite_scheduled = 0; /* the AOF stays off: no retry of its first base */
        setOn(0);
        return C_ERR;
    }
    return C_OK;
}

int aofStart(void) { return startAppending(); }

/* The rewrite child goes, with the files it was writing; the AOF as it was stays. */
static void killRewriteChild(void) {
    if (aof.child == -1) return;
    serverLog(LL_NOTICE, "Killing running AOF rewrite child: %ld", (long)aof.child);
    bgchildKill(aof.child);
    sds p = dirPath(aof.rewrite_base.name);
    sds tmp = sdscatprintf(sdsdup(p), ".tmp");
    unlink(p);
    unlink(tmp);
    sdsfree(p);
    sdsfree(tmp);
    sdsfree(aof.rewrite_base.name);
    aof.rewrite_base.name = NULL;
    aof.child = -1;
}

void aofStop(void) {
    if (!aof.on) return;
    switchFd(-1); /* flushed, synced and closed */
    killRewriteChild();
    if (aof.starting) removeTempIncr(0); /* its first base never came */
    aof.starting = 0;
    aof.rewrite_scheduled = 0;
    setOn(0);
}

int aofPrepareShutdown(int force) {
    if (!aof.on) {
        killRewriteChild(); /* a BGREWRITEAOF with appendonly no: nothing depends on it */
        return C_OK;
    }
    if (aof.child != -1) {
        if (aof.starting) {
            if (!force) {
                serverLog(LL_WARNING, "Writing initial AOF, can't exit.");
                return C_ERR;
            }
            serverLog(LL_WARNING, "Writing initial AOF. Exit anyway.");
        }
        serverLog(LL_WARNING, "There is a child rewriting the AOF. Killing it!");
        killRewriteChild();
    }
    serverLog(LL_NOTICE, "Calling fsync() on the AOF file.");
    aofFlush();
    pthread_mutex_lock(&aof.lock);
    if (aof.fd != -1 && fdatasync(aof.fd) == -1)
        serverLog(LL_WARNING, "Fail to fsync the AOF file: %s.", strerror(errno));
    pthread_mutex_unlock(&aof.lock);
    return C_OK;
}

static int bgrewriteNow(void) { return rewriteStart(1); }

void bgrewriteaofCommand(client *c) {
    if (aof.child != -1) {
        addReplyError(c, "Background append only file rewriting already in progress");
        return;
    }
    /* Inside EXEC nothing forks, and a snapshot child (BGSAVE, a full resync's) runs alone (as Redis). */
    if (server.in_exec || persistSaveChildActive() || persistReplChildActive()) {
        aof.rewrite_scheduled = 1;
        addReplyStatus(c, "Background append only file rewriting scheduled");
        return;
    }
    if (bgrewriteNow() == C_OK) addReplyStatus(c, "Background append only file rewriting started");
    else addReplyError(c, "Can't execute an AOF background rewriting. Please check the server logs for more information.");
}

sds aofInfo(sds info) {
    return sdscatprintf(info, "aof_enabled:%d\r\naof_rewrite_in_progress:%d\r\naof_rewrite_scheduled:%d\r\n"
                              "aof_last_rewrite_time_sec:%lld\r\naof_current_rewrite_time_sec:%lld\r\n"
                              "aof_last_bgrewrite_status:%s\r\naof_rewrites:%lld\r\n"
                              "aof_rewrites_consecutive_failures:%lld\r\naof_last_write_status:%s\r\n",
                        aof.on || aof.start_scheduled, aof.child != -1, aof.rewrite_scheduled || aof.start_scheduled, aof.last_rewrite_time,
                        aof.child != -1 ? (long long)(time(NULL) - aof.rewrite_start) : -1LL,
                        aof.last_rewrite_ok ? "ok" : "err", aof.rewrites, aof.consecutive_failures,
                        aofWriteErrno() ? "err" : "ok");
}

int aofApplyConfig(const char **err) {
    if (!server.el) return 1;
    aof.start_scheduled = 0;
    if (server.aof_enabled && !aof.on && (server.in_exec || persistSaveChildActive())) {
        /* Inside EXEC nothing forks, nor while a snapshot is written: the cron starts it. */
        aof.start_scheduled = 1;
        if (server.in_exec)
            serverLog(LL_WARNING, "AOF was enabled during a transaction. An AOF background was scheduled to start "
                                  "when possible.");
        else
            serverLog(LL_WARNING, "AOF was enabled but there is already another background operation. An AOF "
                                  "background was scheduled to start when possible.");
        return 1;
    }
    if (server.aof_enabled && aofStart() != C_OK) {
        *err = "Unable to turn on AOF. Check server logs.";
        return 0;
    }
    if (!server.aof_enabled) aofStop();
    return 1;
}

int aofApplyAutoGc(const char **err) {
    (void)err;
    if (server.el) deleteHistoryFiles(); /* turned back on: the history kept meanwhile goes */
    return 1;
}
