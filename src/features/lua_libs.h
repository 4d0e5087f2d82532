/* lua_libs: the Lua libraries Redis bundles that Debian does not package,
 * written for this server: `struct` (binary records) and `cmsgpack`
 * (MessagePack). Each opener pushes the library table. */
#ifndef FEATURES_LUA_LIBS_H
#define FEATURES_LUA_LIBS_H

#include <lua.h>

int luaopenStruct(lua_State *L);
int luaopenCmsgpack(lua_State *L);

#endif
