/* sds: binary-safe dynamic strings.
 * An sds is a plain `char *` to NUL-terminated bytes, so it can be handed to
 * any C string function, while a small header just before the pointer keeps
 * the length (binary safety, O(1) length) and the allocated capacity (cheap
 * appends). The header size adapts to the string size to keep small strings
 * small. Functions that may reallocate return the new sds: always use it. */
#ifndef CORE_SDS_H
#define CORE_SDS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

typedef char *sds;

/* Header types, kept in the low 3 bits of the flags byte at s[-1]. */
#define SDS_TYPE_5 0 /* flags only: len in the upper 5 bits; embedded/immutable */
#define SDS_TYPE_8 1
#define SDS_TYPE_16 2
#define SDS_TYPE_32 3
#define SDS_TYPE_64 4
#define SDS_TYPE_MASK 7
#define SDS_TYPE_BITS 3

/* Above this size sdsMakeRoomFor grows by this amount instead of doubling. */
#define SDS_MAX_PREALLOC (1024 * 1024)

sds sdsnewlen(const void *init, size_t len); /* init NULL -> zeroed bytes */
sds sdsnew(const char *s);                   /* s NULL -> empty string */
sds sdsempty(void);
sds sdsdup(const sds s);
void sdsfree(sds s); /* NULL is fine */

/* Length is on every hot path (parsing, hashing, replies): read it inline from
 * the header's length field, whose offset only depends on the type. */
static inline size_t sdslen(const sds s) {
    unsigned char flags = (unsigned char)s[-1];
    switch (flags & SDS_TYPE_MASK) {
    case SDS_TYPE_5: return (size_t)(flags >> SDS_TYPE_BITS);
    case SDS_TYPE_8: return *(const uint8_t *)(s - 3);
    case SDS_TYPE_16: {
        uint16_t v;
        memcpy(&v, s - 5, sizeof(v));
        return v;
    }
    case SDS_TYPE_32: {
        uint32_t v;
        memcpy(&v, s - 9, sizeof(v));
        return v;
    }
    case SDS_TYPE_64: {
        uint64_t v;
        memcpy(&v, s - 17, sizeof(v));
        return (size_t)v;
    }
    }
    return 0;
}
size_t sdsavail(const sds s);
size_t sdsalloc(const sds s); /* capacity (excluding header and NUL) */
void sdssetlen(sds s, size_t len);
void sdsincrlen(sds s, ssize_t incr); /* also writes the terminating NUL */

sds sdsMakeRoomFor(sds s, size_t addlen); /* greedy: doubles while < 1MB, then +1MB */
sds sdsMakeRoomForNonGreedy(sds s, size_t addlen);
sds sdsRemoveFreeSpace(sds s);
size_t sdsAllocSize(sds s); /* whole allocation, header included */
void *sdsAllocPtr(const sds s);
sds sdsResize(sds s, size_t size); /* capacity becomes exactly size; truncates if smaller */

sds sdscatlen(sds s, const void *t, size_t len);
sds sdscat(sds s, const char *t);
sds sdscatsds(sds s, const sds t);
sds sdscpylen(sds s, const char *t, size_t len);
sds sdscpy(sds s, const char *t);
sds sdscatvprintf(sds s, const char *fmt, va_list ap);
sds sdscatprintf(sds s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends p quoted like MONITOR / redis-cli: "..." with escapes, \xHH otherwise. */
sds sdscatrepr(sds s, const char *p, size_t len);
sds sdsfromlonglong(long long v);

void sdsrange(sds s, ssize_t start, ssize_t end); /* inclusive, negative counts from the end */
sds sdstrim(sds s, const char *cset);
void sdsclear(sds s);
int sdscmp(const sds a, const sds b); /* memcmp of the common part, then length */
void sdstolower(sds s);
void sdstoupper(sds s);
sds sdsmapchars(sds s, const char *from, const char *to, size_t setlen);

/* Splits s[0..len) on the separator; returns an array of *count sds (NULL on bad
 * arguments). Free with sdsfreesplitres. */
sds *sdssplitlen(const char *s, ssize_t len, const char *sep, int seplen, int *count);
/* Tokenizes a config line / inline command like Redis: NULL on unbalanced quotes. */
sds *sdssplitargs(const char *line, int *argc);
void sdsfreesplitres(sds *tokens, int count);
/* The n strings joined by sep, as a new sds (CONFIG GET's lists). */
sds sdsjoin(char *const *strings, int n, const char *sep);

/* Embedding: an immutable sds built inside caller-owned memory (e.g. a hash
 * table entry), so a key costs no separate allocation. Never sdsfree it. */
size_t sdsEmbeddedSize(size_t len); /* smallest header + len + 1 */
sds sdsEmbed(void *buf, const void *init, size_t len);

#endif
