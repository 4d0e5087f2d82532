/* lua_cmsgpack: the `cmsgpack` library Redis gives Lua scripts, written for
 * this server from the MessagePack specification (Debian has no package).
 *
 *   cmsgpack.pack(v1, ...)              → the values encoded one after another
 *   cmsgpack.unpack(s)                  → every value encoded in s
 *   cmsgpack.unpack_one(s [, off])      → next offset (-1 at the end), value
 *   cmsgpack.unpack_limit(s, n [, off]) → next offset (-1 at the end), ≤ n values
 *
 * Encoding follows what scripts written for Redis expect: integral numbers in
 * the smallest integer format, other numbers as float32 when exact, else
 * float64; a table whose keys are exactly 1..n is an array, any other table a
 * map; tables nested deeper than 16 and values MessagePack cannot carry
 * (functions...) become nil. Decoding accepts what Redis's library accepts:
 * every format but bin and ext (refused as bad data, as there); all integers
 * decode as Lua numbers. */
#include "features/lua_libs.h"
#include "core/zmalloc.h"

#include <lauxlib.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define MSGPACK_MAX_NESTING 16

/* ------------------------------------------------------------------ encoding */

/* A growing byte buffer outside the Lua stack: encoding walks tables with
 * lua_next, which a luaL_Buffer would not tolerate. Encoding raises no Lua
 * errors, so the buffer is always freed. */
typedef struct packBuffer {
    unsigned char *data;
    size_t len, cap;
} packBuffer;

static void bufAppend(packBuffer *b, const void *p, size_t n) {
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        while (cap < b->len + n) cap *= 2;
        b->data = zrealloc(b->data, cap);
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

/* A type byte followed by `size` bytes of v, big endian (MessagePack's order). */
static void bufAppendTyped(packBuffer *b, unsigned char type, uint64_t v, int size) {
    unsigned char out[9];
    out[0] = type;
    for (int i = 0; i < size; i++) out[1 + i] = (unsigned char)(v >> (8 * (size - 1 - i)));
    bufAppend(b, out, 1 + (size_t)size);
}

static void encodeInteger(packBuffer *b, int64_t n) {
    if (n >= 0) {
        if (n <= 0x7f) bufAppendTyped(b, (unsigned char)n, 0, 0);
        else if (n <= 0xff) bufAppendTyped(b, 0xcc, (uint64_t)n, 1);
        else if (n <= 0xffff) bufAppendTyped(b, 0xcd, (uint64_t)n, 2);
        else if (n <= 0xffffffffLL) bufAppendTyped(b, 0xce, (uint64_t)n, 4);
        else bufAppendTyped(b, 0xcf, (uint64_t)n, 8);
    } else {
        if (n >= -32) bufAppendTyped(b, (unsigned char)(0xe0 | (n + 32)), 0, 0);
        else if (n >= INT8_MIN) bufAppendTyped(b, 0xd0, (uint64_t)n & 0xff, 1);
        else if (n >= INT16_MIN) bufAppendTyped(b, 0xd1, (uint64_t)n & 0xffff, 2);
        else if (n >= INT32_MIN) bufAppendTyped(b, 0xd2, (uint64_t)n & 0xffffffffULL, 4);
        else bufAppendTyped(b, 0xd3, (uint64_t)n, 8);
    }
}

static void encodeNumber(packBuffer *b, lua_Number n) {
    if (!isinf(n) && n >= -9223372036854775808.0 && n < 9223372036854775808.0 && (lua_Number)(int64_t)n == n) {
        encodeInteger(b, (int64_t)n);
        return;
    }
    float f = (float)n;
    if ((lua_Number)f == n || isnan(n)) {
        uint32_t bits;
        memcpy(&bits, &f, sizeof(bits));
        bufAppendTyped(b, 0xca, bits, 4);
    } else {
        uint64_t bits;
        double d = (double)n;
        memcpy(&bits, &d, sizeof(bits));
        bufAppendTyped(b, 0xcb, bits, 8);
    }
}

static void encodeString(packBuffer *b, const char *s, size_t len) {
    if (len < 32) bufAppendTyped(b, (unsigned char)(0xa0 | len), 0, 0);
    else if (len <= 0xff) bufAppendTyped(b, 0xd9, len, 1);
    else if (len <= 0xffff) bufAppendTyped(b, 0xda, len, 2);
    else bufAppendTyped(b, 0xdb, len, 4);
    bufAppend(b, s, len);
}

/* The length when the table at the top has exactly the keys 1..n, else -1. */
static long tableArrayLength(lua_State *L) {
    long count = 0;
    lua_Number max = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        lua_Number k;
        if (lua_type(L, -1) != LUA_TNUMBER || (k = lua_tonumber(L, -1)) <= 0 || floor(k) != k) {
            lua_pop(L, 1);
            return -1;
        }
        if (k > max) max = k;
        count++;
    }
    return max == (lua_Number)count ? count : -1;
}

static void encodeValue(lua_State *L, packBuffer *b, int depth);

static void encodeTable(lua_State *L, packBuffer *b, int depth) {
    if (depth >= MSGPACK_MAX_NESTING || !lua_checkstack(L, 3)) {
        bufAppendTyped(b, 0xc0, 0, 0);
        return;
    }
    long n = tableArrayLength(L);
    if (n >= 0) {
        if (n < 16) bufAppendTyped(b, (unsigned char)(0x90 | n), 0, 0);
        else if (n <= 0xffff) bufAppendTyped(b, 0xdc, (uint64_t)n, 2);
        else bufAppendTyped(b, 0xdd, (uint64_t)n, 4);
        for (long i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, (int)i);
            encodeValue(L, b, depth + 1);
            lua_pop(L, 1);
        }
        return;
    }
    long pairs = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        pairs++;
    }
    if (pairs < 16) bufAppendTyped(b, (unsigned char)(0x80 | pairs), 0, 0);
    else if (pairs <= 0xffff) bufAppendTyped(b, 0xde, (uint64_t)pairs, 2);
    else bufAppendTyped(b, 0xdf, (uint64_t)pairs, 4);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pushvalue(L, -2);
        encodeValue(L, b, depth + 1); /* key */
        lua_pop(L, 1);
        encodeValue(L, b, depth + 1); /* value */
        lua_pop(L, 1);
    }
}

/* Encodes the value at the top of the stack (left there). */
static void encodeValue(lua_State *L, packBuffer *b, int depth) {
    switch (lua_type(L, -1)) {
    case LUA_TBOOLEAN: bufAppendTyped(b, lua_toboolean(L, -1) ? 0xc3 : 0xc2, 0, 0); break;
    case LUA_TNUMBER: encodeNumber(b, lua_tonumber(L, -1)); break;
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, -1, &len);
        encodeString(b, s, len);
        break;
    }
    case LUA_TTABLE: encodeTable(L, b, depth); break;
    default: bufAppendTyped(b, 0xc0, 0, 0); break;
    }
}

static int msgpackPack(lua_State *L) {
    int argc = lua_gettop(L);
    if (argc == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
    packBuffer b = {NULL, 0, 0};
    for (int i = 1; i <= argc; i++) {
        lua_pushvalue(L, i);
        encodeValue(L, &b, 0);
        lua_pop(L, 1);
    }
    lua_pushlstring(L, (const char *)b.data, b.len);
    zfree(b.data);
    return 1;
}

/* ------------------------------------------------------------------ decoding */

typedef struct unpackCursor {
    const unsigned char *p;
    size_t left;
} unpackCursor;

static void cursorNeed(lua_State *L, unpackCursor *c, size_t n) {
    if (c->left < n) luaL_error(L, "Missing bytes in input.");
}

static uint64_t readBig(lua_State *L, unpackCursor *c, int size) {
    cursorNeed(L, c, (size_t)size);
    uint64_t v = 0;
    for (int i = 0; i < size; i++) v = (v << 8) | c->p[i];
    c->p += size;
    c->left -= (size_t)size;
    return v;
}

static void pushBytes(lua_State *L, unpackCursor *c, uint64_t len) {
    cursorNeed(L, c, len);
    lua_pushlstring(L, (const char *)c->p, (size_t)len);
    c->p += len;
    c->left -= len;
}

static void decodeValue(lua_State *L, unpackCursor *c);

static void decodeArray(lua_State *L, unpackCursor *c, uint64_t n) {
    luaL_checkstack(L, 3, "in function mp_decode_to_lua_array");
    lua_newtable(L);
    for (uint64_t i = 1; i <= n; i++) {
        decodeValue(L, c);
        lua_rawseti(L, -2, (int)i);
    }
}

static void decodeMap(lua_State *L, unpackCursor *c, uint64_t n) {
    luaL_checkstack(L, 4, "in function mp_decode_to_lua_hash");
    lua_newtable(L);
    for (uint64_t i = 0; i < n; i++) {
        decodeValue(L, c);
        decodeValue(L, c);
        /* Lua tables cannot hold a nil (or NaN) key: such pairs are dropped. */
        if (lua_isnil(L, -2) || (lua_type(L, -2) == LUA_TNUMBER && lua_tonumber(L, -2) != lua_tonumber(L, -2)))
            lua_pop(L, 2);
        else
            lua_rawset(L, -3);
    }
}

/* Pushes the next value of the input. */
static void decodeValue(lua_State *L, unpackCursor *c) {
    cursorNeed(L, c, 1);
    unsigned char t = *c->p++;
    c->left--;
    if (t <= 0x7f) lua_pushnumber(L, t);
    else if (t >= 0xe0) lua_pushnumber(L, (int)t - 256);
    else if ((t & 0xe0) == 0xa0) pushBytes(L, c, t & 0x1f);
    else if ((t & 0xf0) == 0x90) decodeArray(L, c, t & 0x0f);
    else if ((t & 0xf0) == 0x80) decodeMap(L, c, t & 0x0f);
    else {
        switch (t) {
        case 0xc0: lua_pushnil(L); break;
        case 0xc2: lua_pushboolean(L, 0); break;
        case 0xc3: lua_pushboolean(L, 1); break;
        case 0xd9: pushBytes(L, c, readBig(L, c, 1)); break;
        case 0xda: pushBytes(L, c, readBig(L, c, 2)); break;
        case 0xdb: pushBytes(L, c, readBig(L, c, 4)); break;
        case 0xca: {
            uint32_t bits = (uint32_t)readBig(L, c, 4);
            float f;
            memcpy(&f, &bits, sizeof(f));
            lua_pushnumber(L, (lua_Number)f);
            break;
        }
        case 0xcb: {
            uint64_t bits = readBig(L, c, 8);
            double d;
            memcpy(&d, &bits, sizeof(d));
            lua_pushnumber(L, (lua_Number)d);
            break;
        }
        case 0xcc: lua_pushnumber(L, (lua_Number)readBig(L, c, 1)); break;
        case 0xcd: lua_pushnumber(L, (lua_Number)readBig(L, c, 2)); break;
        case 0xce: lua_pushnumber(L, (lua_Number)readBig(L, c, 4)); break;
        case 0xcf: lua_pushnumber(L, (lua_Number)readBig(L, c, 8)); break;
        case 0xd0: lua_pushnumber(L, (lua_Number)(int8_t)readBig(L, c, 1)); break;
        case 0xd1: lua_pushnumber(L, (lua_Number)(int16_t)readBig(L, c, 2)); break;
        case 0xd2: lua_pushnumber(L, (lua_Number)(int32_t)readBig(L, c, 4)); break;
        case 0xd3: lua_pushnumber(L, (lua_Number)(int64_t)readBig(L, c, 8)); break;
        case 0xdc: decodeArray(L, c, readBig(L, c, 2)); break;
        case 0xdd: decodeArray(L, c, readBig(L, c, 4)); break;
        case 0xde: decodeMap(L, c, readBig(L, c, 2)); break;
        case 0xdf: decodeMap(L, c, readBig(L, c, 4)); break;
        default: luaL_error(L, "Bad data format in input.");
        }
    }
}

/* Decodes up to `limit` values (0: all) from `offset`; with a limit or an
 * offset the next offset (-1 once the input is used up) comes first. */
static int unpackGeneric(lua_State *L, lua_Number limit, lua_Number offset) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    int all = limit == 0 && offset == 0;
    if (limit < 0 || offset < 0)
        return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.", (int)offset, (int)limit);
    if (offset > (lua_Number)len) return luaL_error(L, "Start offset %d greater than input length %d.", (int)offset, (int)len);
    lua_settop(L, 1);
    unpackCursor c = {(const unsigned char *)s + (size_t)offset, len - (size_t)offset};
    int count = 0;
    while (c.left > 0 && (all || count < limit)) {
        /* Redis's wording for this stack overflow */
        luaL_checkstack(L, 2, "too many return values at once; use unpack_one or unpack_limit instead.");
        decodeValue(L, &c);
        count++;
    }
    if (all) return count;
    lua_pushnumber(L, c.left == 0 ? -1 : (lua_Number)(len - c.left));
    lua_insert(L, 2);
    return count + 1;
}

static int msgpackUnpack(lua_State *L) { return unpackGeneric(L, 0, 0); }

static int msgpackUnpackOne(lua_State *L) {
    lua_Number offset = luaL_optnumber(L, 2, 0);
    return unpackGeneric(L, 1, offset);
}

static int msgpackUnpackLimit(lua_State *L) {
    lua_Number limit = luaL_checknumber(L, 2);
    lua_Number offset = luaL_optnumber(L, 3, 0);
    return unpackGeneric(L, limit, offset);
}

int luaopenCmsgpack(lua_State *L) {
    static const luaL_Reg functions[] = {{"pack", msgpackPack},
                                         {"unpack", msgpackUnpack},
                                         {"unpack_one", msgpackUnpackOne},
                                         {"unpack_limit", msgpackUnpackLimit},
                                         {NULL, NULL}};
    lua_newtable(L);
    for (const luaL_Reg *f = functions; f->name; f++) {
        lua_pushcfunction(L, f->func);
        lua_setfield(L, -2, f->name);
    }
    return 1;
}
