/* shared: the objects of shared.h, made once at start-up. */
#include "server/shared.h"

#include <stdio.h>
#include <string.h>

struct sharedObjects shared;

static robj *protoObject(const char *s) { return makeObjectShared(createRawStringObject(s, strlen(s))); }

void createSharedObjects(void) {
    shared.crlf = protoObject("\r\n");
    shared.ok = protoObject("+OK\r\n");
    shared.err = protoObject("-ERR\r\n");
    shared.emptybulk = protoObject("$0\r\n\r\n");
    shared.czero = protoObject(":0\r\n");
    shared.cone = protoObject(":1\r\n");
    shared.pong = protoObject("+PONG\r\n");
    shared.space = protoObject(" ");
    shared.queued = protoObject("+QUEUED\r\n");
    shared.null = protoObject("$-1\r\n");
    shared.nullarray = protoObject("*-1\r\n");
    shared.emptyarray = protoObject("*0\r\n");
    shared.emptyscan = protoObject("*2\r\n$1\r\n0\r\n*0\r\n");
    shared.wrongtypeerr = protoObject("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
    shared.nokeyerr = protoObject("-ERR no such key\r\n");
    shared.syntaxerr = protoObject("-ERR syntax error\r\n");
    shared.sameobjecterr = protoObject("-ERR source and destination objects are the same\r\n");
    shared.outofrangeerr = protoObject("-ERR index out of range\r\n");
    shared.noscripterr = protoObject("-NOSCRIPT No matching script. Please use EVAL.\r\n");
    shared.loadingerr = protoObject("-LOADING Redis is loading the dataset in memory\r\n");
    shared.slowevalerr = protoObject("-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n");
    shared.slowscripterr = protoObject("-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.\r\n");
    shared.bgsaveerr = protoObject("-MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error.\r\n");
    shared.execaborterr = protoObject("-EXECABORT Transaction discarded because of previous errors.\r\n");
    shared.noautherr = protoObject("-NOAUTH Authentication required.\r\n");
    shared.oomerr = protoObject("-OOM command not allowed when used memory > 'maxmemory'.\r\n");
    shared.busykeyerr = protoObject("-BUSYKEY Target key name already exists.\r\n");
    shared.unblockerr = protoObject("-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n");
    shared.messagebulk = protoObject("$7\r\nmessage\r\n");
    shared.pmessagebulk = protoObject("$8\r\npmessage\r\n");
    shared.subscribebulk = protoObject("$9\r\nsubscribe\r\n");
    shared.unsubscribebulk = protoObject("$11\r\nunsubscribe\r\n");
    shared.psubscribebulk = protoObject("$10\r\npsubscribe\r\n");
    shared.punsubscribebulk = protoObject("$12\r\npunsubscribe\r\n");
    shared.ssubscribebulk = protoObject("$10\r\nssubscribe\r\n");
    shared.sunsubscribebulk = protoObject("$12\r\nsunsubscribe\r\n");
    shared.del = protoObject("DEL");
    shared.unlink = protoObject("UNLINK");
    shared.rpop = protoObject("RPOP");
    shared.lpop = protoObject("LPOP");
    shared.lpush = protoObject("LPUSH");
    shared.rpush = protoObject("RPUSH");
    shared.rpoplpush = protoObject("RPOPLPUSH");
    shared.lmove = protoObject("LMOVE");
    shared.blmove = protoObject("BLMOVE");
    shared.zpopmin = protoObject("ZPOPMIN");
    shared.zpopmax = protoObject("ZPOPMAX");
    shared.multi = protoObject("MULTI");
    shared.exec = protoObject("EXEC");
    shared.left = protoObject("left");
    shared.right = protoObject("right");
    shared.set = protoObject("SET");
    shared.pexpireat = protoObject("PEXPIREAT");
    shared.persist = protoObject("PERSIST");
    shared.keepttl = protoObject("KEEPTTL");
    shared.pxat = protoObject("PXAT");
    shared.minstring = protoObject("minstring");
    shared.maxstring = protoObject("maxstring");
    /* Put in place of secrets in the argv MONITOR and SLOWLOG show. */
    shared.redacted = protoObject("(redacted)");
    shared.null3 = protoObject("_\r\n");
    for (int j = 0; j < 32; j++) {
        char buf[32];
        snprintf(buf, sizeof(buf), "*%d\r\n", j);
        shared.mbulkhdr[j] = protoObject(buf);
        snprintf(buf, sizeof(buf), "$%d\r\n", j);
        shared.bulkhdr[j] = protoObject(buf);
    }
}
