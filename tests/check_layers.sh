#!/bin/sh
# Dependencies point one way (ARCHITECTURE.md): each room of src/ may
# include headers of its own room and of the rooms below it, never above:
#   core <- data <- server <- acl <- persist <- repl <- features <- commands <- main.c
# (cluster/, when it lands, goes between repl and features). Fails, naming
# each offending line, when a file #includes a header from a room above its
# own or from a room this list does not know. Usage: sh tests/check_layers.sh [src-dir]
src=${1:-$(dirname "$0")/../src}
ORDER="core data server acl persist repl features commands"
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

out=$(
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
