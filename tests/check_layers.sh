#!/bin/sh
# Dependencies point one way (ARCHITECTURE.md): each room of src/ may
# include headers of its own room and of the rooms below it, never above:
#   core <- data <- server <- acl <- persist <- repl <- cluster <- features <- commands <- main.c
# Inside server/
# the files are layered too, bottom to top as SERVER_ORDER lists them (a
# file's module is its name without .c/.h; client.h is networking's header):
# a file may include the headers of its own module and of modules before it.
# Modules joined by "+" form a group whose files also include each other
# (the keyspace and its expiry; a client's I/O, replies and memory). Fails,
# naming each offending line, when a file #includes a header from a room
# above its own, a server/ file one from a module after its own, or when a
# room or a server/ module is in neither list. Usage: sh tests/check_layers.sh [src-dir]
src=${1:-$(dirname "$0")/../src}
ORDER="core data server acl persist repl cluster features commands"
SERVER_ORDER="server keyevents resp_parse supervise tlslib tls shared cmdinfo command access lazyfree lru replbuf readykeys keyhook slotkeys
  hooks maxmem propagate db+expire transaction evict prefetch networking+client+reply+clientmem
  blocking cmdargs config pause crash dispatch lifecycle"
status=0

# The rooms at and below $1, in ORDER.
below() {
    out=""
    for r in $ORDER; do
        out="$out $r"
        [ "$r" = "$1" ] && break
    done
    echo "$out"
}

# check <room> <rooms it may include>
check() {
    room=$1
    shift
    allowed="$*"
    for f in "$src/$room"/*.[ch] "$src/$room"/*.def; do
        [ -f "$f" ] || continue
        grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | while IFS= read -r line; do
            target=$(printf '%s\n' "$line" | sed 's/.*include[[:space:]]*"\([^"]*\)".*/\1/')
            dir=${target%%/*}
            [ "$dir" = "$target" ] && continue # same-directory include
            ok=0
            for a in $allowed; do [ "$dir" = "$a" ] && ok=1; done
            if [ $ok = 0 ]; then
                echo "upward include: ${f#$src/}:${line%%:*}: $target ($room may include: $allowed)"
            fi
        done
    done
}

# The position of a server/ module in SERVER_ORDER (the groups' members
# share one), or nothing when it is not listed.
server_rank() {
    n=0
    for token in $SERVER_ORDER; do
        n=$((n + 1))
        case "+$token+" in *"+$1+"*) echo $n; return ;; esac
    done
}

check_server_files() {
    for f in "$src/server"/*.[ch]; do
        [ -f "$f" ] || continue
        mod=$(basename "$f"); mod=${mod%.*}
        rank=$(server_rank "$mod")
        if [ -z "$rank" ]; then
            echo "unknown server/ module: server/$(basename "$f") (add it to SERVER_ORDER in tests/check_layers.sh and ARCHITECTURE.md)"
            continue
        fi
        grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"server/' "$f" | while IFS= read -r line; do
            target=$(printf '%s\n' "$line" | sed 's/.*include[[:space:]]*"server\/\([^"]*\)\.h".*/\1/')
            trank=$(server_rank "$target")
            if [ -z "$trank" ] || [ "$trank" -gt "$rank" ]; then
                echo "upward include: server/$(basename "$f"):${line%%:*}: server/$target.h (server/ modules are layered: SERVER_ORDER)"
            fi
        done
    done
}

out=$(
    check_server_files
    for room in $ORDER; do
        check "$room" $(below "$room")
    done
    for d in "$src"/*/; do
        d=$(basename "$d")
        case " $ORDER " in *" $d "*) ;; *) echo "unknown room: src/$d (add it to ORDER in tests/check_layers.sh and ARCHITECTURE.md)" ;; esac
    done
)
if [ -n "$out" ]; then
    printf '%s\n' "$out"
    status=1
fi
exit $status
