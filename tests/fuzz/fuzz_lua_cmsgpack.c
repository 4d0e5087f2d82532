/* fuzz_lua_cmsgpack: libFuzzer target for the `cmsgpack` library scripts get
 * (features/lua_cmsgpack.c). A script can hand cmsgpack.unpack any bytes, so
 * decoding must end in values or a Lua error, never a crash or a runaway
 * allocation; what it decodes must pack again. */
#include <stdint.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "features/lua_libs.h"

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size) {
    lua_State *L = luaL_newstate();
    luaopen_base(L);
    lua_settop(L, 0);
    luaopenCmsgpack(L);
    static const char *const decoders[] = {"unpack", "unpack_one", "unpack_limit"};
    for (unsigned i = 0; i < sizeof(decoders) / sizeof(*decoders); i++) {
        lua_settop(L, 1);
        lua_getfield(L, 1, decoders[i]);
        if (lua_isnil(L, -1)) continue;
        lua_pushlstring(L, (const char *)in, size);
        int nargs = 1;
        if (i == 2) {
            lua_pushinteger(L, size ? in[0] % 4 : 1);
            nargs++;
        }
        if (lua_pcall(L, nargs, LUA_MULTRET, 0) != 0) continue;
        /* Pack the decoded values again (unpack_* also return offsets). */
        int got = lua_gettop(L) - 1;
        lua_getfield(L, 1, "pack");
        lua_insert(L, 2);
        (void)lua_pcall(L, got, 1, 0);
    }
    lua_close(L);
    return 0;
}
