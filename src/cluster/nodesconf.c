/* nodesconf: reading and writing the cluster configuration file (see
 * nodesconf.h). The format is what Redis 7.0 writes, so that a node's file
 * can be read by either server and by the tools that look at it. */
#include "cluster/nodesconf.h"

#include "cluster/state.h"
#include "core/clock.h"
#include "core/fileutil.h"
#include "core/zmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The descriptor that holds the lock: on the file as it is now (each save
 * locks the new file before it replaces the old one). */
static int lock_fd = -1;

static void lockTakenExit(const char *filename) {
    serverLog(LL_WARNING,
              "Sorry, the cluster configuration file %s is already used by a different Redis Cluster node. Please "
              "make sure that different nodes use different cluster configuration files.",
              filename);
    exit(1);
}

int clusterLockConfig(const char *filename) {
    int fd = open(filename, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd == -1) {
        serverLog(LL_WARNING, "Can't open %s in order to acquire a lock: %s", filename, strerror(errno));
        return C_ERR;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
        if (errno == EWOULDBLOCK) lockTakenExit(filename);
        serverLog(LL_WARNING, "Impossible to lock %s: %s", filename, strerror(errno));
        close(fd);
        return C_ERR;
    }
    if (lock_fd != -1) close(lock_fd);
    lock_fd = fd;
    return C_OK;
}

/* ------------------------------------------------------------------ load */

static int parseSlot(const char *s, int *slot) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v >= CLUSTER_SLOTS) return 0;
    *slot = (int)v;
    return 1;
}

static clusterNode *nodeByNameOrNew(const char *name) {
    clusterNode *n = clusterLookupNode(name, strlen(name));
    if (!n) {
        n = createClusterNode(name, 0);
        clusterAddNode(n);
    }
    return n;
}

static int parseFlags(clusterNode *n, const char *words) {
    int count;
    sds *w = sdssplitlen(words, (ssize_t)strlen(words), ",", 1, &count);
    int ok = 1;
    for (int j = 0; j < count && ok; j++) {
        if (!strcmp(w[j], "myself")) {
            if (myself && myself != n) ok = 0;
            myself = n;
            n->flags |= NODE_MYSELF;
        } else if (!strcmp(w[j], "master")) n->flags |= NODE_MASTER;
        else if (!strcmp(w[j], "slave")) n->flags |= NODE_SLAVE;
        else if (!strcmp(w[j], "fail?")) n->flags |= NODE_PFAIL;
        else if (!strcmp(w[j], "fail")) {
            n->flags |= NODE_FAIL;
            n->fail_time = mstime();
        } else if (!strcmp(w[j], "handshake")) n->flags |= NODE_HANDSHAKE;
        else if (!strcmp(w[j], "noaddr")) n->flags |= NODE_NOADDR;
        else if (!strcmp(w[j], "nofailover")) n->flags |= NODE_NOFAILOVER;
        else if (strcmp(w[j], "noflags")) ok = 0;
    }
    sdsfreesplitres(w, count);
    return ok;
}

/* ip:port@cport[,hostname] */
static int parseAddress(clusterNode *n, sds addr) {
    char *comma = strchr(addr, ',');
    if (comma) {
        *comma = '\0';
        sdsfree(n->hostname);
        n->hostname = sdsnew(comma + 1);
    }
    char *colon = strrchr(addr, ':');
    if (!colon) return 0;
    *colon = '\0';
    char *at = strchr(colon + 1, '@');
    if (at) *at = '\0';
    if (strlen(addr) >= sizeof(n->ip)) return 0;
    memcpy(n->ip, addr, strlen(addr) + 1);
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (*end || port < 0 || port > 65535) return 0;
    n->port = (int)port;
    long cport = port + 10000;
    if (at) {
        cport = strtol(at + 1, &end, 10);
        if (*end || cport < 0 || cport > 65535) return 0;
    }
    n->cport = (int)cport;
    return 1;
}

static int parseSlots(clusterNode *n, sds *argv, int argc) {
    for (int j = 8; j < argc; j++) {
        const char *s = argv[j];
        if (s[0] == '[') {
            /* [slot->-name] migrating to, [slot-<-name] importing from */
            const char *dash = strchr(s, '-');
            if (!dash || strlen(dash) < 3 + CLUSTER_NAMELEN) return 0;
            char num[16];
            size_t len = (size_t)(dash - s - 1);
            if (len == 0 || len >= sizeof(num)) return 0;
            memcpy(num, s + 1, len);
            num[len] = '\0';
            int slot;
            if (!parseSlot(num, &slot)) return 0;
            char dir = dash[1];
            if ((dir != '>' && dir != '<') || dash[2] != '-') return 0;
            char name[CLUSTER_NAMELEN + 1];
            memcpy(name, dash + 3, CLUSTER_NAMELEN);
            name[CLUSTER_NAMELEN] = '\0';
            if (verifyClusterNodeId(name, CLUSTER_NAMELEN) != C_OK || dash[3 + CLUSTER_NAMELEN] != ']') return 0;
            clusterNode *other = nodeByNameOrNew(name);
            if (dir == '>') cluster->migrating_to[slot] = other;
            else cluster->importing_from[slot] = other;
            continue;
        }
        int start, stop;
        const char *dash = strchr(s, '-');
        if (dash) {
            char a[16];
            size_t len = (size_t)(dash - s);
            if (len == 0 || len >= sizeof(a)) return 0;
            memcpy(a, s, len);
            a[len] = '\0';
            if (!parseSlot(a, &start) || !parseSlot(dash + 1, &stop) || start > stop) return 0;
        } else {
            if (!parseSlot(s, &start)) return 0;
            stop = start;
        }
        for (int slot = start; slot <= stop; slot++) {
            if (cluster->slots[slot] && cluster->slots[slot] != n) clusterDelSlot(slot);
            if (!cluster->slots[slot]) clusterAddSlot(n, slot);
        }
    }
    return 1;
}

static int parseNodeLine(sds *argv, int argc) {
    if (argc < 8) return 0;
    if (verifyClusterNodeId(argv[0], sdslen(argv[0])) != C_OK) return 0;
    clusterNode *n = nodeByNameOrNew(argv[0]);
    if (!parseAddress(n, argv[1]) || !parseFlags(n, argv[2])) return 0;
    if (strcmp(argv[3], "-")) {
        if (verifyClusterNodeId(argv[3], sdslen(argv[3])) != C_OK) return 0;
        clusterNode *master = nodeByNameOrNew(argv[3]);
        n->master = master;
        clusterNodeAddReplica(master, n);
    }
    if (atoll(argv[4])) n->ping_sent = mstime();
    if (atoll(argv[5])) n->pong_received = mstime();
    char *end;
    errno = 0;
    n->configEpoch = strtoull(argv[6], &end, 10);
    if (errno || *end) return 0;
    if (strcmp(argv[7], "connected") && strcmp(argv[7], "disconnected")) return 0;
    return parseSlots(n, argv, argc);
}

static int parseVarsLine(sds *argv, int argc) {
    for (int j = 1; j + 1 < argc; j += 2) {
        if (!strcasecmp(argv[j], "currentEpoch")) cluster->currentEpoch = strtoull(argv[j + 1], NULL, 10);
        else if (!strcasecmp(argv[j], "lastVoteEpoch")) cluster->lastVoteEpoch = strtoull(argv[j + 1], NULL, 10);
        else serverLog(LL_WARNING, "Skipping unknown cluster config variable '%s'", argv[j]);
    }
    return (argc - 1) % 2 == 0;
}

static void corruptExit(const char *filename, int lineno, const char *line) {
    serverLog(LL_WARNING, "Cluster config file %s, line %d: %s", filename, lineno, line);
    serverLog(LL_WARNING, "Unrecoverable error: corrupted cluster config file.");
    exit(1);
}

int clusterLoadConfig(const char *filename) {
    FILE *fp = fopen(filename, "r");
    if (!fp) {
        if (errno == ENOENT) return C_ERR;
        serverLog(LL_WARNING, "Loading the cluster node config from %s: %s", filename, strerror(errno));
        exit(1);
    }
    struct stat sb;
    if (fstat(fileno(fp), &sb) == 0 && sb.st_size == 0) {
        fclose(fp);
        return C_ERR; /* created by the lock before: no configuration yet */
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0;
    while ((len = getline(&line, &cap, fp)) != -1) {
        lineno++;
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        if (len == 0) continue;
        int argc;
        sds *argv = sdssplitargs(line, &argc);
        if (!argv) corruptExit(filename, lineno, line);
        int ok = argc == 0 || (!strcmp(argv[0], "vars") ? parseVarsLine(argv, argc) : parseNodeLine(argv, argc));
        sdsfreesplitres(argv, argc);
        if (!ok) corruptExit(filename, lineno, line);
    }
    free(line);
    fclose(fp);
    if (!myself) corruptExit(filename, lineno, "(no line for this node: none has the flag myself)");
    serverLog(LL_NOTICE, "Node configuration loaded, I'm %.40s", myself->name);
    uint64_t max = clusterGetMaxEpoch();
    if (max > cluster->currentEpoch) cluster->currentEpoch = max;
    return C_OK;
}

/* ------------------------------------------------------------------ save */

/* The file's other inode, "<file>.tmp": each save writes it in place and
 * swaps it with the file (renameat2's RENAME_EXCHANGE), so the two inodes
 * trade places and neither is freed. A rename over the file would free the
 * old inode's blocks at every save: on a filesystem mounted with `discard`
 * that is a synchronous discard per save, which made a resharding (two saves
 * per slot moved) several times slower than Redis's in-place write. Locked
 * as the file is; -1 until the first save, and where the filesystem has no
 * exchange (a plain rename then, the spare becoming the file). */
static int spare_fd = -1;

static sds spareName(const char *filename) { return sdscatprintf(sdsempty(), "%s.tmp", filename); }

static int writeAll(int fd, const char *buf, size_t len) {
    size_t off = 0;
    while (off < len) {
        ssize_t w = pwrite(fd, buf + off, len - off, (off_t)off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return 0;
        off += (size_t)w;
    }
    return ftruncate(fd, (off_t)len) == 0;
}

int clusterSaveConfig(int do_fsync) {
    cluster->todo &= ~(TODO_SAVE_CONFIG | TODO_FSYNC_CONFIG);
    const char *filename = server.cluster_configfile;
    sds content = clusterGenNodesDescription(NODE_HANDSHAKE, 0);
    content = sdscatprintf(content, "vars currentEpoch %llu lastVoteEpoch %llu\n",
                           (unsigned long long)cluster->currentEpoch, (unsigned long long)cluster->lastVoteEpoch);
    sds tmp = spareName(filename);
    int ok = 0;
    for (int attempt = 0; attempt < 2 && !ok; attempt++) {
        if (spare_fd == -1) {
            /* Ours alone: the file's lock is held. Locked before it becomes the file. */
            spare_fd = open(tmp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
            if (spare_fd == -1) break;
            if (flock(spare_fd, LOCK_EX | LOCK_NB) == -1) break;
        }
        if (!writeAll(spare_fd, content, sdslen(content))) break;
        if (do_fsync && fdatasync(spare_fd) == -1) break; /* the size too, when it changed */
        if (renameat2(AT_FDCWD, tmp, AT_FDCWD, filename, RENAME_EXCHANGE) == 0) {
            int fd = lock_fd;
            lock_fd = spare_fd;
            spare_fd = fd;
            ok = 1;
        } else if (errno == ENOENT && access(tmp, F_OK) == -1) {
            /* The spare was removed under us: a new one, once. */
            close(spare_fd);
            spare_fd = -1;
        } else if ((errno == EINVAL || errno == ENOSYS || errno == ENOENT) && rename(tmp, filename) == 0) {
            /* No exchange here (or no file left to swap with): the spare is the file now. */
            if (lock_fd != -1) close(lock_fd);
            lock_fd = spare_fd;
            spare_fd = -1;
            ok = 1;
        } else {
            break;
        }
    }
    if (ok && do_fsync) fsyncFileDir(filename);
    if (!ok) {
        serverLog(LL_WARNING, "Could not save the cluster configuration file %s: %s", filename, strerror(errno));
        if (spare_fd != -1) {
            close(spare_fd);
            spare_fd = -1;
            unlink(tmp);
        }
    }
    sdsfree(tmp);
    sdsfree(content);
    return ok ? C_OK : C_ERR;
}

void clusterDropConfigSpare(void) {
    if (spare_fd == -1) return;
    sds tmp = spareName(server.cluster_configfile);
    unlink(tmp);
    sdsfree(tmp);
    close(spare_fd);
    spare_fd = -1;
}

void clusterSaveConfigOrDie(int do_fsync) {
    if (clusterSaveConfig(do_fsync) == C_ERR) {
        serverLog(LL_WARNING, "Fatal: can't update cluster config file.");
        exit(1);
    }
}
