/* lazyfree: the background freeing thread (see lazyfree.h).
 *
 * Jobs go on a FIFO guarded by a mutex; the thread sleeps on a condition
 * variable while the queue is empty. Everything a job frees is unreachable
 * from the main thread when it is queued (unlinked from its db, refcount 1),
 * and the allocator's byte count is atomic, so the two threads share nothing
 * else. The thread returns its jemalloc cache after each job: it allocates
 * nothing itself, so freed blocks would otherwise sit in its cache instead of
 * going back to the arenas the main thread allocates from. */
#include "server/lazyfree.h"
#include "core/zmalloc.h"
#include "data/stream.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct lazyfreeJob {
    struct lazyfreeJob *next;
    robj *obj;         /* a value, or NULL */
    dict *keys;        /* a keyspace: its dict and TTL index */
    ttlHeap *expires;
    void (*free_fn)(void *ptr); /* or anything else, freed by its owner's function */
    void *ptr;
    size_t count;      /* objects the job frees */
} lazyfreeJob;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    lazyfreeJob *head, *tail;
    int started;
    int in_child; /* a forked child: it has no thread, it frees in place */
    pthread_t thread;
} q = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static atomic_size_t pending_objects, freed_objects;

size_t lazyfreePendingObjects(void) { return atomic_load(&pending_objects); }
size_t lazyfreedObjects(void) { return atomic_load(&freed_objects); }
void lazyfreeResetStats(void) { atomic_store(&freed_objects, 0); }

static void runJob(lazyfreeJob *job) {
    if (job->obj) {
        decrRefCount(job->obj);
    } else if (job->free_fn) {
        job->free_fn(job->ptr);
    } else {
        dictRelease(job->keys);
        ttlHeapFree(job->expires);
    }
    atomic_fetch_sub(&pending_objects, job->count);
    atomic_fetch_add(&freed_objects, job->count);
    zfree(job);
    zmalloc_thread_cache_flush();
}

static void *lazyfreeThreadMain(void *arg) {
    (void)arg;
    pthread_mutex_lock(&q.lock);
    for (;;) {
        while (!q.head) pthread_cond_wait(&q.wake, &q.lock);
        lazyfreeJob *job = q.head;
        q.head = job->next;
        if (!q.head) q.tail = NULL;
        pthread_mutex_unlock(&q.lock);
        runJob(job);
        pthread_mutex_lock(&q.lock);
    }
    return NULL;
}

/* A child forked while the thread runs (a snapshot, SCRIPT DEBUG's session)
 * inherits the queue but not the thread: the lock is taken across fork() so
 * the child never inherits it held, and the child frees in place. */
static void lockBeforeFork(void) { pthread_mutex_lock(&q.lock); }
static void unlockInParent(void) { pthread_mutex_unlock(&q.lock); }
static void unlockInChild(void) {
    q.in_child = 1;
    q.head = q.tail = NULL; /* the parent's jobs are the parent's to run */
    pthread_mutex_unlock(&q.lock);
}

static void submit(lazyfreeJob *job) {
    job->next = NULL;
    atomic_fetch_add(&pending_objects, job->count);
    pthread_mutex_lock(&q.lock);
    if (q.in_child) {
        pthread_mutex_unlock(&q.lock);
        runJob(job);
        return;
    }
    if (!q.started) {
        /* Started on first use: a server that never frees lazily has no
         * thread. Children forked once it runs free in place (unlockInChild). */
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 4 << 20);
        if (pthread_create(&q.thread, &attr, lazyfreeThreadMain, NULL) != 0) {
            pthread_attr_destroy(&attr);
            pthread_mutex_unlock(&q.lock);
            serverLog(LL_WARNING, "Fatal: Can't initialize the lazyfree thread.");
            runJob(job); /* no thread: free it here */
            return;
        }
        pthread_attr_destroy(&attr);
        pthread_detach(q.thread);
        pthread_atfork(lockBeforeFork, unlockInParent, unlockInChild);
        q.started = 1;
    }
    if (q.tail) q.tail->next = job;
    else q.head = job;
    q.tail = job;
    pthread_cond_signal(&q.wake);
    pthread_mutex_unlock(&q.lock);
}

size_t lazyfreeFreeEffort(robj *o) {
    switch (o->type) {
    case OBJ_LIST:
        return o->encoding == OBJ_ENCODING_QUICKLIST ? ((quicklist *)objectPtr(o))->len : 1;
    case OBJ_SET:
    case OBJ_HASH:
        return o->encoding == OBJ_ENCODING_HT ? valueLength(o) : 1;
    case OBJ_ZSET:
        return o->encoding == OBJ_ENCODING_SKIPLIST ? ((zset *)objectPtr(o))->zsl->length : 1;
    case OBJ_STREAM: {
        /* One allocation per node, and per group its PEL: Redis takes the
         * first group's PEL as the estimate for every group. */
        stream *s = objectPtr(o);
        size_t effort = s->nnodes;
        if (s->ngroups) effort += s->ngroups * (1 + s->groups[0]->pel.len);
        return effort;
    }
    default: return 1;
    }
}

static void handOver(robj *o, size_t count) {
    if (objectRefs(o) != 1 || o->type == OBJ_STRING || lazyfreeFreeEffort(o) <= LAZYFREE_THRESHOLD) {
        decrRefCount(o);
        return;
    }
    lazyfreeJob *job = zmalloc(sizeof(*job));
    *job = (lazyfreeJob){.obj = o, .count = count};
    submit(job);
}

void lazyfreeObject(robj *o) { handOver(o, 1); }
void lazyfreeObjectUncounted(robj *o) { handOver(o, 0); }

void lazyfreeBlock(void *ptr) { lazyfreeCall(zfree, ptr, 0); }

void lazyfreeKeyspace(dict *keys, ttlHeap *expires) {
    lazyfreeJob *job = zmalloc(sizeof(*job));
    *job = (lazyfreeJob){.keys = keys, .expires = expires, .count = dictSize(keys)};
    submit(job);
}

void lazyfreeCall(void (*free_fn)(void *ptr), void *ptr, size_t count) {
    lazyfreeJob *job = zmalloc(sizeof(*job));
    *job = (lazyfreeJob){.free_fn = free_fn, .ptr = ptr, .count = count};
    submit(job);
}
