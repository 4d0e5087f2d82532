/* sds: binary-safe dynamic strings (interface and rationale in sds.h).
 *
 * Memory layout: [header][bytes...][NUL], and the sds points at the bytes.
 * The byte just before the pointer is always the flags byte, whose low 3 bits
 * name the header type, so any sds can find its header from the pointer alone.
 * Headers are packed structs of growing width so a 10-byte key does not pay
 * for 64-bit length fields. The 1-byte type5 header (length in the flags byte,
 * no capacity) is only produced by sdsEmbed: such strings are immutable. */
#include "sds.h"

#include <assert.h>
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "numparse.h"
#include "zmalloc.h"

struct __attribute__((__packed__)) sdshdr5 {
    unsigned char flags; /* low 3 bits type, upper 5 bits length */
    char buf[];
};
struct __attribute__((__packed__)) sdshdr8 {
    uint8_t len;
    uint8_t alloc; /* capacity, excluding header and NUL */
    unsigned char flags;
    char buf[];
};
struct __attribute__((__packed__)) sdshdr16 {
    uint16_t len;
    uint16_t alloc;
    unsigned char flags;
    char buf[];
};
struct __attribute__((__packed__)) sdshdr32 {
    uint32_t len;
    uint32_t alloc;
    unsigned char flags;
    char buf[];
};
struct __attribute__((__packed__)) sdshdr64 {
    uint64_t len;
    uint64_t alloc;
    unsigned char flags;
    char buf[];
};

#define SDS_HDR(T, s) ((struct sdshdr##T *)((s) - sizeof(struct sdshdr##T)))
#define SDS_TYPE5_LEN(flags) ((size_t)((flags) >> SDS_TYPE_BITS))

static inline int sdsType(const sds s) { return (unsigned char)s[-1] & SDS_TYPE_MASK; }

static size_t sdsHdrSize(int type) {
    switch (type) {
    case SDS_TYPE_5: return sizeof(struct sdshdr5);
    case SDS_TYPE_8: return sizeof(struct sdshdr8);
    case SDS_TYPE_16: return sizeof(struct sdshdr16);
    case SDS_TYPE_32: return sizeof(struct sdshdr32);
    case SDS_TYPE_64: return sizeof(struct sdshdr64);
    }
    return 0;
}

/* Largest capacity a header type can record. */
static size_t sdsTypeMaxSize(int type) {
    switch (type) {
    case SDS_TYPE_5: return (1 << 5) - 1;
    case SDS_TYPE_8: return UINT8_MAX;
    case SDS_TYPE_16: return UINT16_MAX;
#if SIZE_MAX > UINT32_MAX
    case SDS_TYPE_32: return UINT32_MAX;
#endif
    }
    return SIZE_MAX;
}

/* Smallest growable (non-type5) header type able to hold size bytes. */
static int sdsReqType(size_t size) {
    if (size <= UINT8_MAX) return SDS_TYPE_8;
    if (size <= UINT16_MAX) return SDS_TYPE_16;
#if SIZE_MAX > UINT32_MAX
    if (size <= UINT32_MAX) return SDS_TYPE_32;
    return SDS_TYPE_64;
#else
    return SDS_TYPE_32;
#endif
}

/* sdslen is inline in sds.h; the header layouts here must match its offsets. */
_Static_assert(sizeof(struct sdshdr8) == 3 && sizeof(struct sdshdr16) == 5 && sizeof(struct sdshdr32) == 9 &&
                   sizeof(struct sdshdr64) == 17,
               "sdslen in sds.h assumes these header sizes");

size_t sdsalloc(const sds s) {
    switch (sdsType(s)) {
    case SDS_TYPE_5: return sdslen(s);
    case SDS_TYPE_8: return SDS_HDR(8, s)->alloc;
    case SDS_TYPE_16: return SDS_HDR(16, s)->alloc;
    case SDS_TYPE_32: return SDS_HDR(32, s)->alloc;
    case SDS_TYPE_64: return SDS_HDR(64, s)->alloc;
    }
    return 0;
}

size_t sdsavail(const sds s) { return sdsalloc(s) - sdslen(s); }

static void sdssetalloc(sds s, size_t alloc) {
    switch (sdsType(s)) {
    case SDS_TYPE_5: break; /* type5 has no capacity field */
    case SDS_TYPE_8: SDS_HDR(8, s)->alloc = (uint8_t)alloc; break;
    case SDS_TYPE_16: SDS_HDR(16, s)->alloc = (uint16_t)alloc; break;
    case SDS_TYPE_32: SDS_HDR(32, s)->alloc = (uint32_t)alloc; break;
    case SDS_TYPE_64: SDS_HDR(64, s)->alloc = (uint64_t)alloc; break;
    }
}

void sdssetlen(sds s, size_t len) {
    switch (sdsType(s)) {
    case SDS_TYPE_5:
        assert(len <= sdsTypeMaxSize(SDS_TYPE_5));
        s[-1] = (char)(SDS_TYPE_5 | (len << SDS_TYPE_BITS));
        break;
    case SDS_TYPE_8: SDS_HDR(8, s)->len = (uint8_t)len; break;
    case SDS_TYPE_16: SDS_HDR(16, s)->len = (uint16_t)len; break;
    case SDS_TYPE_32: SDS_HDR(32, s)->len = (uint32_t)len; break;
    case SDS_TYPE_64: SDS_HDR(64, s)->len = (uint64_t)len; break;
    }
}

void sdsincrlen(sds s, ssize_t incr) {
    size_t len = sdslen(s);
    if (incr >= 0)
        assert(sdsavail(s) >= (size_t)incr);
    else
        assert(len >= (size_t)(-incr));
    len += (size_t)incr;
    sdssetlen(s, len);
    s[len] = '\0';
}

/* Writes a header of the given type at hdr and returns the sds after it. */
static sds sdsWriteHeader(void *hdr, int type, size_t len, size_t alloc) {
    sds s = (char *)hdr + sdsHdrSize(type);
    s[-1] = (char)type;
    sdssetlen(s, len);
    sdssetalloc(s, alloc);
    return s;
}

/* The new string's bytes: a copy of init, or zeros when init is NULL. */
static inline sds sdsFill(sds s, const void *init, size_t len) {
    if (init)
        memcpy(s, init, len);
    else
        memset(s, 0, len);
    s[len] = '\0';
    return s;
}

/* Capacity actually usable in an allocation (allocators round sizes up),
 * capped to what the header type can record. */
static size_t sdsUsableAlloc(void *hdr, int type) {
    size_t usable = zmalloc_size(hdr) - sdsHdrSize(type) - 1;
    size_t max = sdsTypeMaxSize(type);
    return usable > max ? max : usable;
}

sds sdsnewlen(const void *init, size_t len) {
    int type = sdsReqType(len);
    size_t hdrlen = sdsHdrSize(type);
    assert(hdrlen + len + 1 > len); /* overflow */
    void *hdr = zmalloc(hdrlen + len + 1);
    return sdsFill(sdsWriteHeader(hdr, type, len, sdsUsableAlloc(hdr, type)), init, len);
}

sds sdsempty(void) { return sdsnewlen("", 0); }

sds sdsnew(const char *init) { return sdsnewlen(init ? init : "", init ? strlen(init) : 0); }

sds sdsdup(const sds s) { return sdsnewlen(s, sdslen(s)); }

void sdsfree(sds s) {
    if (s == NULL) return;
    assert(sdsType(s) != SDS_TYPE_5); /* embedded strings live in their owner's memory */
    zfree(sdsAllocPtr(s));
}

void *sdsAllocPtr(const sds s) { return s - sdsHdrSize(sdsType(s)); }

size_t sdsAllocSize(sds s) { return sdsHdrSize(sdsType(s)) + sdsalloc(s) + 1; }

/* Moves s to an allocation with room for newalloc bytes, keeping its content. */
static sds sdsRealloc(sds s, size_t newalloc) {
    int oldtype = sdsType(s);
    int type = sdsReqType(newalloc);
    size_t len = sdslen(s);
    size_t hdrlen = sdsHdrSize(type);
    assert(hdrlen + newalloc + 1 > newalloc); /* overflow */
    assert(oldtype != SDS_TYPE_5);
    void *hdr;
    if (type == oldtype) {
        hdr = zrealloc(sdsAllocPtr(s), hdrlen + newalloc + 1);
        s = (char *)hdr + hdrlen;
    } else {
        /* The header size changes, so the bytes have to move anyway. */
        hdr = zmalloc(hdrlen + newalloc + 1);
        memcpy((char *)hdr + hdrlen, s, len + 1);
        zfree(sdsAllocPtr(s));
        s = sdsWriteHeader(hdr, type, len, 0);
    }
    sdssetalloc(s, sdsUsableAlloc(hdr, type));
    return s;
}

static sds sdsMakeRoom(sds s, size_t addlen, int greedy) {
    if (sdsavail(s) >= addlen) return s;
    size_t len = sdslen(s);
    size_t reqlen = len + addlen;
    assert(reqlen > len); /* overflow */
    size_t newalloc = reqlen;
    if (greedy) {
        /* Doubling makes a sequence of appends amortised O(1); past 1MB the
         * waste of doubling outweighs the saved copies. */
        if (reqlen < SDS_MAX_PREALLOC)
            newalloc = reqlen * 2;
        else
            newalloc = reqlen + SDS_MAX_PREALLOC;
        if (newalloc < reqlen) newalloc = reqlen;
    }
    return sdsRealloc(s, newalloc);
}

sds sdsMakeRoomFor(sds s, size_t addlen) { return sdsMakeRoom(s, addlen, 1); }

sds sdsMakeRoomForNonGreedy(sds s, size_t addlen) { return sdsMakeRoom(s, addlen, 0); }

sds sdsResize(sds s, size_t size) {
    size_t len = sdslen(s);
    if (size < len) {
        sdssetlen(s, size);
        s[size] = '\0';
    }
    int oldtype = sdsType(s);
    int type = sdsReqType(size);
    if (type == oldtype && sdsalloc(s) == size) return s;
    size_t hdrlen = sdsHdrSize(type);
    if (type == oldtype) {
        s = (char *)zrealloc(sdsAllocPtr(s), hdrlen + size + 1) + hdrlen;
    } else {
        size_t keep = sdslen(s);
        void *hdr = zmalloc(hdrlen + size + 1);
        memcpy((char *)hdr + hdrlen, s, keep + 1);
        zfree(sdsAllocPtr(s));
        s = sdsWriteHeader(hdr, type, keep, size);
    }
    sdssetalloc(s, size);
    return s;
}

sds sdsRemoveFreeSpace(sds s) { return sdsResize(s, sdslen(s)); }

sds sdscatlen(sds s, const void *t, size_t len) {
    size_t curlen = sdslen(s);
    s = sdsMakeRoomFor(s, len);
    memcpy(s + curlen, t, len);
    sdssetlen(s, curlen + len);
    s[curlen + len] = '\0';
    return s;
}

sds sdscat(sds s, const char *t) { return sdscatlen(s, t, strlen(t)); }

sds sdscatsds(sds s, const sds t) { return sdscatlen(s, t, sdslen(t)); }

sds sdscpylen(sds s, const char *t, size_t len) {
    if (sdsalloc(s) < len) s = sdsMakeRoomFor(s, len - sdslen(s));
    memmove(s, t, len);
    s[len] = '\0';
    sdssetlen(s, len);
    return s;
}

sds sdscpy(sds s, const char *t) { return sdscpylen(s, t, strlen(t)); }

sds sdscatvprintf(sds s, const char *fmt, va_list ap) {
    size_t len = sdslen(s);
    va_list cpy;
    /* First try to print straight into the free space; most appends fit. */
    va_copy(cpy, ap);
    int n = vsnprintf(s + len, sdsavail(s) + 1, fmt, cpy);
    va_end(cpy);
    assert(n >= 0);
    if ((size_t)n > sdsavail(s)) {
        s = sdsMakeRoomFor(s, (size_t)n);
        va_copy(cpy, ap);
        n = vsnprintf(s + len, sdsavail(s) + 1, fmt, cpy);
        va_end(cpy);
        assert(n >= 0 && (size_t)n <= sdsavail(s));
    }
    sdssetlen(s, len + (size_t)n);
    return s;
}

sds sdscatprintf(sds s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    s = sdscatvprintf(s, fmt, ap);
    va_end(ap);
    return s;
}

sds sdscatrepr(sds s, const char *p, size_t len) {
    s = sdscatlen(s, "\"", 1);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        switch (c) {
        case '\\':
        case '"':
            s = sdscatprintf(s, "\\%c", c);
            break;
        case '\n': s = sdscatlen(s, "\\n", 2); break;
        case '\r': s = sdscatlen(s, "\\r", 2); break;
        case '\t': s = sdscatlen(s, "\\t", 2); break;
        case '\a': s = sdscatlen(s, "\\a", 2); break;
        case '\b': s = sdscatlen(s, "\\b", 2); break;
        default:
            if (isprint(c))
                s = sdscatlen(s, (const char *)&c, 1);
            else
                s = sdscatprintf(s, "\\x%02x", c);
            break;
        }
    }
    return sdscatlen(s, "\"", 1);
}

sds sdsfromlonglong(long long v) {
    char buf[MAX_LONG_LONG_CHARS];
    int len = ll2string(buf, sizeof(buf), v);
    return sdsnewlen(buf, (size_t)len);
}

void sdsrange(sds s, ssize_t start, ssize_t end) {
    ssize_t len = (ssize_t)sdslen(s);
    if (len == 0) return;
    if (start < 0) start = len + start < 0 ? 0 : len + start;
    if (end < 0) end = len + end < 0 ? 0 : len + end;
    ssize_t newlen = start > end ? 0 : end - start + 1;
    if (newlen != 0) {
        if (start >= len) {
            newlen = 0;
        } else if (end >= len) {
            end = len - 1;
            newlen = end - start + 1;
        }
    }
    if (start && newlen) memmove(s, s + start, (size_t)newlen);
    s[newlen] = '\0';
    sdssetlen(s, (size_t)newlen);
}

sds sdstrim(sds s, const char *cset) {
    size_t len = sdslen(s);
    size_t start = 0, end = len;
    while (start < end && strchr(cset, s[start]) && s[start] != '\0') start++;
    while (end > start && strchr(cset, s[end - 1]) && s[end - 1] != '\0') end--;
    size_t newlen = end - start;
    if (start) memmove(s, s + start, newlen);
    s[newlen] = '\0';
    sdssetlen(s, newlen);
    return s;
}

void sdsclear(sds s) {
    sdssetlen(s, 0);
    s[0] = '\0';
}

int sdscmp(const sds a, const sds b) {
    size_t la = sdslen(a), lb = sdslen(b);
    int cmp = memcmp(a, b, la < lb ? la : lb);
    if (cmp != 0) return cmp;
    return la > lb ? 1 : (la < lb ? -1 : 0);
}

void sdstolower(sds s) {
    size_t len = sdslen(s);
    for (size_t i = 0; i < len; i++) s[i] = (char)tolower((unsigned char)s[i]);
}

void sdstoupper(sds s) {
    size_t len = sdslen(s);
    for (size_t i = 0; i < len; i++) s[i] = (char)toupper((unsigned char)s[i]);
}

sds sdsmapchars(sds s, const char *from, const char *to, size_t setlen) {
    size_t len = sdslen(s);
    for (size_t i = 0; i < len; i++) {
        for (size_t j = 0; j < setlen; j++) {
            if (s[i] == from[j]) {
                s[i] = to[j];
                break;
            }
        }
    }
    return s;
}

/* Appends tok to a growing token array, doubling its capacity as needed. */
static sds *tokensPush(sds *tokens, int *count, int *cap, sds tok) {
    if (*count == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        tokens = zrealloc(tokens, sizeof(sds) * (size_t)*cap);
    }
    tokens[(*count)++] = tok;
    return tokens;
}

sds *sdssplitlen(const char *s, ssize_t len, const char *sep, int seplen, int *count) {
    *count = 0;
    if (seplen < 1 || len <= 0) return NULL;
    sds *tokens = NULL;
    int cap = 0;
    ssize_t start = 0;
    for (ssize_t j = 0; j <= len - seplen; j++) {
        if (memcmp(s + j, sep, (size_t)seplen) == 0) {
            tokens = tokensPush(tokens, count, &cap, sdsnewlen(s + start, (size_t)(j - start)));
            start = j + seplen;
            j += seplen - 1;
        }
    }
    return tokensPush(tokens, count, &cap, sdsnewlen(s + start, (size_t)(len - start)));
}

void sdsfreesplitres(sds *tokens, int count) {
    if (!tokens) return;
    for (int i = 0; i < count; i++) sdsfree(tokens[i]);
    zfree(tokens);
}

static int hexDigitValue(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Reads one token starting at *pp (not at a space or the end), appending its
 * bytes to *cur. Returns 0 on unbalanced or badly closed quotes. */
static int splitargsToken(const char **pp, sds *cur) {
    const char *p = *pp;
    enum { BARE, DOUBLE, SINGLE } state = BARE;
    for (;;) {
        if (state == DOUBLE) {
            if (*p == '\0') return 0;
            if (p[0] == '\\' && p[1] == 'x' && hexDigitValue(p[2]) >= 0 && hexDigitValue(p[3]) >= 0) {
                char byte = (char)(hexDigitValue(p[2]) * 16 + hexDigitValue(p[3]));
                *cur = sdscatlen(*cur, &byte, 1);
                p += 3;
            } else if (p[0] == '\\' && p[1] != '\0') {
                char c;
                p++;
                switch (*p) {
                case 'n': c = '\n'; break;
                case 'r': c = '\r'; break;
                case 't': c = '\t'; break;
                case 'b': c = '\b'; break;
                case 'a': c = '\a'; break;
                default: c = *p; break;
                }
                *cur = sdscatlen(*cur, &c, 1);
            } else if (*p == '"') {
                /* A closing quote must end the token. */
                if (p[1] != '\0' && !isspace((unsigned char)p[1])) return 0;
                p++;
                break;
            } else {
                *cur = sdscatlen(*cur, p, 1);
            }
        } else if (state == SINGLE) {
            if (*p == '\0') return 0;
            if (p[0] == '\\' && p[1] == '\'') {
                p++;
                *cur = sdscatlen(*cur, "'", 1);
            } else if (*p == '\'') {
                if (p[1] != '\0' && !isspace((unsigned char)p[1])) return 0;
                p++;
                break;
            } else {
                *cur = sdscatlen(*cur, p, 1);
            }
        } else {
            if (*p == '\0' || *p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') break;
            if (*p == '"')
                state = DOUBLE;
            else if (*p == '\'')
                state = SINGLE;
            else
                *cur = sdscatlen(*cur, p, 1);
        }
        p++;
    }
    *pp = p;
    return 1;
}

sds *sdssplitargs(const char *line, int *argc) {
    const char *p = line;
    sds *tokens = NULL;
    int cap = 0;
    *argc = 0;
    for (;;) {
        while (*p && isspace((unsigned char)*p)) p++;
        if (*p == '\0') break;
        sds cur = sdsempty();
        if (!splitargsToken(&p, &cur)) {
            sdsfree(cur);
            sdsfreesplitres(tokens, *argc);
            *argc = 0;
            return NULL;
        }
        tokens = tokensPush(tokens, argc, &cap, cur);
    }
    /* An empty line still yields a (zero-length) array, never NULL. */
    if (tokens == NULL) tokens = zmalloc(sizeof(sds));
    return tokens;
}

/* Header type sdsEmbed uses: the smallest that can describe len bytes. */
static int sdsEmbedType(size_t len) {
    if (len <= sdsTypeMaxSize(SDS_TYPE_5)) return SDS_TYPE_5;
    return sdsReqType(len);
}

size_t sdsEmbeddedSize(size_t len) { return sdsHdrSize(sdsEmbedType(len)) + len + 1; }

sds sdsEmbed(void *buf, const void *init, size_t len) {
    int type = sdsEmbedType(len);
    return sdsFill(sdsWriteHeader(buf, type, len, len), init, len);
}

sds sdsjoin(char *const *strings, int n, const char *sep) {
    sds s = sdsempty();
    for (int j = 0; j < n; j++) {
        if (j) s = sdscat(s, sep);
        s = sdscat(s, strings[j]);
    }
    return s;
}
