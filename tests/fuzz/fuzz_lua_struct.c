/* fuzz_lua_struct: libFuzzer target for the `struct` library scripts get
 * (features/lua_struct.c): a script controls both the format string and the
 * bytes, so struct.unpack/size/pack must fail with a Lua error, never crash.
 * Input: one byte giving the format's length, the format, then the data. */
#include <stdint.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "features/lua_libs.h"

static void callStruct(lua_State *L, const char *fn, const char *fmt, size_t fmtlen, const char *data,
                       size_t datalen, int nargs) {
    lua_settop(L, 1); /* the library table */
    lua_getfield(L, 1, fn);
    lua_pushlstring(L, fmt, fmtlen);
    if (nargs > 1) lua_pushlstring(L, data, datalen);
    if (nargs > 2) lua_pushinteger(L, 1 + (datalen ? (unsigned char)data[0] % 8 : 0));
    (void)lua_pcall(L, nargs, LUA_MULTRET, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size) {
    if (size < 1) return 0;
    size_t fmtlen = in[0];
    if (fmtlen > size - 1) fmtlen = size - 1;
    const char *fmt = (const char *)in + 1, *data = fmt + fmtlen;
    size_t datalen = size - 1 - fmtlen;

    lua_State *L = luaL_newstate();
    luaopen_base(L);
    lua_settop(L, 0);
    luaopenStruct(L);
    callStruct(L, "size", fmt, fmtlen, NULL, 0, 1);
    callStruct(L, "unpack", fmt, fmtlen, data, datalen, 2);
    callStruct(L, "unpack", fmt, fmtlen, data, datalen, 3);
    /* pack with the data as every argument: strings where strings go, and
     * numbers where they go (Lua converts numeric strings). */
    lua_settop(L, 1);
    lua_getfield(L, 1, "pack");
    lua_pushlstring(L, fmt, fmtlen);
    int n = 1;
    for (size_t i = 0; i < datalen && n < 16; i += 4, n++) {
        if (data[i] & 1)
            lua_pushlstring(L, data + i, datalen - i < 4 ? datalen - i : 4);
        else
            lua_pushinteger(L, (lua_Integer)(signed char)data[i]);
    }
    (void)lua_pcall(L, n, LUA_MULTRET, 0);
    lua_close(L);
    return 0;
}
