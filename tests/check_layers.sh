#!/bin/sh
# Dependencies point one way (DESIGN.md):
#   core <- data <- server <- {commands, features, persist, repl, acl} <- main.c
# Fails, naming each offending line, when a file #includes a header from a
# layer above its own. Usage: sh tests/check_layers.sh [src-dir]
src=${1:-$(dirname "$0")/../src}
status=0

# check <layer> <layers it may include>
check() {
    layer=$1
    shift
    allowed="$*"
    [ -d "$src/$layer" ] || return 0
    for f in "$src/$layer"/*.[ch] "$src/$layer"/*.def; do
        [ -f "$f" ] || continue
        grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | while IFS= read -r line; do
            target=$(printf '%s\n' "$line" | sed 's/.*include[[:space:]]*"\([^"]*\)".*/\1/')
            dir=${target%%/*}
            [ "$dir" = "$target" ] && continue # same-directory include
            ok=0
            for a in $allowed; do [ "$dir" = "$a" ] && ok=1; done
            if [ $ok = 0 ]; then
                echo "upward include: ${f#$src/}:${line%%:*}: $target ($layer may include: $allowed)"
            fi
        done
    done
}

out=$(
    check core core
    check data core data
    check server core data server
    for upper in commands features persist repl acl; do
        check $upper core data server commands features persist repl acl
    done
)
if [ -n "$out" ]; then
    printf '%s\n' "$out"
    status=1
fi
exit $status
