/* lua_struct: the `struct` library Redis gives Lua scripts (pack, unpack,
 * size), written for this server. Debian has no package for it, and scripts
 * written for Redis use it to build and parse binary records.
 *
 * A format is a sequence of items, each a letter with an optional count:
 *   > <        big / little endian for what follows (native at the start)
 *   ![n]       align items to at most n bytes (no n: the platform's maximum)
 *   x          one padding byte
 *   b B        signed / unsigned char      h H   short        l L   long
 *   i[n] I[n]  n-byte integer (default int)  T   size_t
 *   f d        float / double
 *   s          zero-terminated string
 *   c[n]       n bytes; c0 packs a whole string, and unpacks as many bytes as
 *              the number unpacked just before it says
 *   space      ignored
 * Integers travel as Lua numbers (doubles), as in Redis. */
#include "features/lua_libs.h"

#include <lauxlib.h>
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Integers up to 32 bytes: beyond 8, packing pads with zero bytes and
 * unpacking keeps the low 8 bytes, as Redis's library does. */
#define STRUCT_MAX_INT_SIZE 32

/* The strictest alignment the platform needs, for a bare '!'. */
struct alignProbe {
    char c;
    union {
        double d;
        void *p;
        long long ll;
    } u;
};
#define NATIVE_MAX_ALIGN (offsetof(struct alignProbe, u))

typedef struct formatState {
    int little;      /* 1 little endian, 0 big endian */
    size_t maxalign; /* 1: no alignment */
} formatState;

static int hostIsLittleEndian(void) {
    const uint16_t probe = 1;
    return *(const unsigned char *)&probe == 1;
}

static size_t readCount(const char **fmt, size_t dflt) {
    if (!isdigit((unsigned char)**fmt)) return dflt;
    size_t n = 0;
    while (isdigit((unsigned char)**fmt)) {
        if (n > (SIZE_MAX - 9) / 10) break;
        n = n * 10 + (size_t)(*(*fmt)++ - '0');
    }
    return n;
}

/* Size of the next item (its letter already consumed in *opt); 0 for options. */
static size_t itemSize(lua_State *L, const char **fmt, formatState *st, char *opt) {
    *opt = *(*fmt)++;
    switch (*opt) {
    case 'B': case 'b': return sizeof(char);
    case 'H': case 'h': return sizeof(short);
    case 'L': case 'l': return sizeof(long);
    case 'T': return sizeof(size_t);
    case 'f': return sizeof(float);
    case 'd': return sizeof(double);
    case 'x': return 1;
    case 'c': return readCount(fmt, 1);
    case 'i': case 'I': {
        size_t n = readCount(fmt, sizeof(int));
        if (n > STRUCT_MAX_INT_SIZE)
            luaL_error(L, "integral size %d is larger than limit of %d", (int)n, STRUCT_MAX_INT_SIZE);
        return n;
    }
    case 's': case ' ': return 0;
    case '>': st->little = 0; return 0;
    case '<': st->little = 1; return 0;
    case '!': {
        size_t a = readCount(fmt, NATIVE_MAX_ALIGN);
        if (a == 0 || (a & (a - 1)) != 0) luaL_error(L, "alignment %d is not a power of 2", (int)a);
        st->maxalign = a;
        return 0;
    }
    default: {
        char msg[40];
        snprintf(msg, sizeof(msg), "invalid format option '%c'", *opt);
        return (size_t)luaL_argerror(L, 1, msg);
    }
    }
}

/* Padding needed before an item of `size` bytes placed at offset `pos`. */
static size_t padding(size_t pos, size_t size, char opt, const formatState *st) {
    if (opt == 'c' || opt == 's' || opt == 'x' || size <= 1 || st->maxalign <= 1) return 0;
    size_t align = size < st->maxalign ? size : st->maxalign;
    if ((align & (align - 1)) != 0) return 0;
    return (align - (pos & (align - 1))) & (align - 1);
}

static void initState(formatState *st) {
    st->little = hostIsLittleEndian();
    st->maxalign = 1;
}

/* Writes the low `size` bytes of v in the chosen byte order. */
static void putInteger(luaL_Buffer *b, uint64_t v, size_t size, int little) {
    unsigned char out[STRUCT_MAX_INT_SIZE];
    for (size_t i = 0; i < size; i++) {
        out[little ? i : size - 1 - i] = (unsigned char)(v & 0xff);
        v = i < 7 ? v >> 8 : 0;
    }
    luaL_addlstring(b, (const char *)out, size);
}

/* Floats travel as their host bytes, reversed when the wanted order differs. */
static void toByteOrder(unsigned char *bytes, size_t size, int little) {
    if (little == hostIsLittleEndian()) return;
    for (size_t i = 0; i < size / 2; i++) {
        unsigned char t = bytes[i];
        bytes[i] = bytes[size - 1 - i];
        bytes[size - 1 - i] = t;
    }
}

static void putRaw(luaL_Buffer *b, const void *p, size_t size, int little) {
    unsigned char out[sizeof(double)];
    memcpy(out, p, size);
    toByteOrder(out, size, little);
    luaL_addlstring(b, (const char *)out, size);
}

/* The two's complement bits of an integral Lua number (fraction dropped).
 * What cannot be represented packs as Redis's build does: NaN and values from
 * 2^64 up (+inf too) as 0, values below -2^63 (-inf too) as -2^63. */
static uint64_t numberToBits(lua_Number n) {
    if (n != n || n >= 18446744073709551616.0) return 0;
    if (n < -9223372036854775808.0) return (uint64_t)INT64_MIN;
    if (n < 0) return (uint64_t)(int64_t)n;
    return (uint64_t)n;
}

static int structPack(lua_State *L) {
    const char *fmt = luaL_checkstring(L, 1);
    formatState st;
    initState(&st);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    int arg = 2;
    size_t pos = 0;
    while (*fmt) {
        char opt;
        size_t size = itemSize(L, &fmt, &st, &opt);
        size_t pad = padding(pos, size, opt, &st);
        pos += pad;
        while (pad--) luaL_addchar(&b, '\0');
        switch (opt) {
        case 'b': case 'B': case 'h': case 'H': case 'l': case 'L': case 'T': case 'i': case 'I': {
            if (lua_gettop(L) < arg) lua_settop(L, arg); /* a missing value reads as nil */
            putInteger(&b, numberToBits(luaL_checknumber(L, arg)), size, st.little);
            arg++;
            break;
        }
        case 'x': luaL_addchar(&b, '\0'); break;
        case 'f': {
            float f = (float)luaL_checknumber(L, arg++);
            putRaw(&b, &f, sizeof(f), st.little);
            break;
        }
        case 'd': {
            double d = luaL_checknumber(L, arg++);
            putRaw(&b, &d, sizeof(d), st.little);
            break;
        }
        case 'c': case 's': {
            size_t len;
            const char *s = luaL_checklstring(L, arg++, &len);
            if (opt == 's') {
                size = len + 1; /* with its terminator */
                luaL_addlstring(&b, s, len);
                luaL_addchar(&b, '\0');
            } else {
                if (size == 0) size = len;
                /* Redis's library names the argument after the string. */
                luaL_argcheck(L, len >= size, arg, "string too short");
                luaL_addlstring(&b, s, size);
            }
            break;
        }
        default: break;
        }
        pos += size;
    }
    luaL_pushresult(&b);
    return 1;
}

static uint64_t getInteger(const unsigned char *p, size_t size, int little, int is_signed) {
    uint64_t v = 0;
    for (size_t i = 0; i < size; i++) v = (v << 8) | p[little ? size - 1 - i : i]; /* high bytes shift out */
    if (is_signed && size > 0 && size < 8 && (v >> (size * 8 - 1)) & 1) v |= ~(uint64_t)0 << (size * 8);
    return v;
}

static void getRaw(void *dst, const unsigned char *p, size_t size, int little) {
    unsigned char tmp[sizeof(double)];
    memcpy(tmp, p, size);
    toByteOrder(tmp, size, little);
    memcpy(dst, tmp, size);
}

static int structUnpack(lua_State *L) {
    const char *fmt = luaL_checkstring(L, 1);
    size_t len;
    const unsigned char *data = (const unsigned char *)luaL_checklstring(L, 2, &len);
    lua_Number start = luaL_optnumber(L, 3, 1);
    luaL_argcheck(L, start >= 1, 3, "offset must be 1 or greater");
    size_t pos = (size_t)start - 1;
    formatState st;
    initState(&st);
    int results = 0;
    while (*fmt) {
        char opt;
        size_t size = itemSize(L, &fmt, &st, &opt);
        pos += padding(pos, size, opt, &st);
        luaL_argcheck(L, pos <= len && size <= len - pos, 2, "data string too short");
        luaL_checkstack(L, 2, "too many results");
        switch (opt) {
        case 'b': case 'h': case 'l': case 'i':
            lua_pushnumber(L, (lua_Number)(int64_t)getInteger(data + pos, size, st.little, 1));
            results++;
            break;
        case 'B': case 'H': case 'L': case 'T': case 'I':
            lua_pushnumber(L, (lua_Number)getInteger(data + pos, size, st.little, 0));
            results++;
            break;
        case 'x': break;
        case 'f': {
            float f;
            getRaw(&f, data + pos, sizeof(f), st.little);
            lua_pushnumber(L, (lua_Number)f);
            results++;
            break;
        }
        case 'd': {
            double d;
            getRaw(&d, data + pos, sizeof(d), st.little);
            lua_pushnumber(L, (lua_Number)d);
            results++;
            break;
        }
        case 'c':
            if (size == 0) {
                /* c0: the length is the number unpacked just before. */
                if (results == 0 || !lua_isnumber(L, -1)) luaL_error(L, "format 'c0' needs a previous size");
                lua_Number n = lua_tonumber(L, -1);
                lua_pop(L, 1);
                results--;
                /* Compared as a number first: a huge or NaN length must not be
                 * converted to size_t (undefined; found by tests/fuzz). */
                luaL_argcheck(L, n >= 0 && n <= (lua_Number)(len - pos), 2, "data string too short");
                size = (size_t)n;
            }
            lua_pushlstring(L, (const char *)data + pos, size);
            results++;
            break;
        case 's': {
            const unsigned char *end = memchr(data + pos, '\0', len - pos);
            if (end == NULL) luaL_error(L, "unfinished string in data");
            size = (size_t)(end - (data + pos)) + 1;
            lua_pushlstring(L, (const char *)data + pos, size - 1);
            results++;
            break;
        }
        default: break;
        }
        pos += size;
    }
    lua_pushnumber(L, (lua_Number)pos + 1);
    return results + 1;
}

static int structSize(lua_State *L) {
    const char *fmt = luaL_checkstring(L, 1);
    formatState st;
    initState(&st);
    size_t pos = 0;
    while (*fmt) {
        char opt;
        size_t size = itemSize(L, &fmt, &st, &opt);
        pos += padding(pos, size, opt, &st);
        if (opt == 's') luaL_argerror(L, 1, "option 's' has no fixed size");
        if (opt == 'c' && size == 0) luaL_argerror(L, 1, "option 'c0' has no fixed size");
        pos += size;
    }
    lua_pushnumber(L, (lua_Number)pos);
    return 1;
}

int luaopenStruct(lua_State *L) {
    static const luaL_Reg functions[] = {
        {"pack", structPack}, {"unpack", structUnpack}, {"size", structSize}, {NULL, NULL}};
    lua_newtable(L);
    for (const luaL_Reg *f = functions; f->name; f++) {
        lua_pushcfunction(L, f->func);
        lua_setfield(L, -2, f->name);
    }
    return 1;
}
