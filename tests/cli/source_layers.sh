#!/usr/bin/env bash
# The layer order of doc/HACKING.md ("Layout: each layer depends only on
# those above it") holds in the includes: every `#include "LAYER/..."` of a
# file under src/ names its own layer or one listed above it in the table;
# every folder of src/ is in the table; pkcs7, pe and modsig include nothing
# below keys/; boot/ includes none of the layers that ask it (efivars, chain,
# eventlog, audit, plan, revoke); no source file is much over 600 lines.
. "$(dirname "$0")/../lib/common.sh"
S=$KT_SRC
order=$(sed -n '/^## Layout/,/^## [^L]/p' "$S/doc/HACKING.md" | grep -o '^| `src/[a-z0-9_]*/`' |
        sed 's/.*src\/\([a-z0-9_]*\)\/.*/\1/')
[ "$(printf '%s\n' $order | wc -l)" -ge 15 ] && ok || bad "the layout table lists too few layers: $order"
declare -A rank
i=0
for l in $order; do rank[$l]=$i; i=$((i + 1)); done
for d in "$S"/src/*/; do
    l=$(basename "$d")
    [ -n "${rank[$l]+x}" ] && ok || bad "src/$l/ is not in doc/HACKING.md's layout table"
done
n=0
for f in "$S"/src/*/*.[ch]; do
    l=$(basename "$(dirname "$f")")
    [ -n "${rank[$l]+x}" ] || continue
    for inc in $(sed -n 's/^#include "\([a-z0-9_]*\)\/.*/\1/p' "$f"); do
        [ -n "${rank[$inc]+x}" ] || continue # ktrust/ (public) and the like
        n=$((n + 1))
        if [ "${rank[$inc]}" -gt "${rank[$l]}" ]; then
            bad "${f#$S/} includes $inc/, a layer below $l/"
        fi
    done
done
[ "$n" -ge 100 ] && ok || bad "only $n layer includes found: the scan is broken"
for l in pkcs7 pe modsig; do
    [ "${rank[$l]}" -gt "${rank[keys]}" ] && ok || bad "$l/ is listed above keys/"
done
# boot/ (the platform facts) is the tier below everything that asks them:
# it may include none of the layers that use it
for l in authvar efivars revoke chain eventlog audit plan; do
    [ -n "${rank[$l]+x}" ] || continue
    [ "${rank[boot]}" -lt "${rank[$l]}" ] && ok || bad "boot/ is listed below $l/, which asks it"
done
# the CLI is a thin layer over the declared API: it includes only the public
# headers (ktrust.h, ktrust/*.h), the internal utility library's (src/util:
# files, errors, hex, the walker; linked, never exported) and its own, and
# every library function its objects call is one a header under include/
# declares with KT_API, or a utility
for f in "$S"/cli/*/*.[ch]; do
    for inc in $(sed -n 's/^#include "\([^"]*\)"/\1/p' "$f"); do
        case $inc in
        ktrust.h | ktrust/*.h) [ -f "$S/include/$inc" ] && ok || bad "${f#$S/}: $inc is not a public header" ;;
        util/*.h) [ -f "$S/src/$inc" ] && ok || bad "${f#$S/}: $inc is not a header of src/util" ;;
        */*) bad "${f#$S/} includes $inc, a library header outside include/" ;;
        *) ls "$S"/cli/*/"$inc" >/dev/null 2>&1 && ok || bad "${f#$S/} includes $inc, not a header of cli/" ;;
        esac
    done
done
api=$(for h in "$S"/include/ktrust.h "$S"/include/ktrust/*.h "$S"/include/ktrust/sys/*.h; do
          gcc -fpreprocessed -dD -E -P "$h" 2>/dev/null | grep -v '^#'
      done | tr '\n' ' ' | grep -o 'KT_API[^;]*;' |
      sed -E 's/^([^(]*[^A-Za-z0-9_(])([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\(.*/\2/' | sort -u)
util=$(for h in "$S"/src/util/*.h; do
           gcc -fpreprocessed -dD -E -P "$h" 2>/dev/null | grep -v '^#'
       done | grep -o '\bkt_[a-z0-9_]*[[:space:]]*(' | sed 's/[[:space:](]*$//' | sort -u)
# no utility is exported: a header under include/ declares none of them
for fn in $(comm -12 <(printf '%s\n' "$util") <(printf '%s\n' "$api")); do
    bad "$fn is a utility (src/util) and also KT_API in include/"
done
api=$(printf '%s\n%s\n' "$api" "$util" | sort -u)
objs=$(for c in "$S"/cli/*/*.c; do
           o="$KT_BUILD/CMakeFiles/ktrust.dir/${c#$S/}.o"
           [ -f "$o" ] && echo "$o"
       done) # the objects of today's sources (a removed file's object may linger)
if [ -n "$objs" ]; then
    own=$(nm --defined-only $objs | awk '$3 ~ /^kt_/ {print $3}' | sort -u)
    used=$(nm -u $objs | awk '$2 ~ /^kt_/ {print $2}' | sort -u | comm -23 - <(printf '%s\n' "$own"))
    [ "$(printf '%s\n' "$used" | grep -c .)" -ge 30 ] && ok || bad "the CLI's objects use too few kt_ functions: the check is broken"
    for fn in $(comm -23 <(printf '%s\n' "$used") <(printf '%s\n' "$api")); do
        bad "the CLI calls $fn, which no header under include/ declares"
    done
else
    bad "no CLI object files under $KT_BUILD"
fi
# the upper bound on one file's size (the issue's "about 600 lines")
for f in "$S"/src/*/*.[ch] "$S"/cli/*/*.[ch]; do
    lines=$(wc -l < "$f")
    [ "$lines" -le 650 ] && ok || bad "${f#$S/}: $lines lines (split it: one job per file)"
done
# no function much over 100 lines (the issue's "about 100"): from a line that
# opens a definition at the left margin to its closing brace
for f in "$S"/src/*/*.c "$S"/cli/*/*.c; do
    awk -v F="${f#$S/}" '/^[A-Za-z].*\(/ && !/;[[:space:]]*$/ {start = FNR; name = $0}
        /^}/ {if (start && FNR - start > 105) printf "%s: %d lines: %s\n", F, FNR - start, name; start = 0}' "$f"
done > "$T/long_functions"
[ ! -s "$T/long_functions" ] && ok || bad "functions over 100 lines (split them): $(cat "$T/long_functions")"
# no call circles: between source files (two files that call each other in a
# loop are one concern) and between layers (a tier never calls up); from the
# symbols the objects of today's sources define and use
objdirs=()
for d in ktrust_obj ktrust_hooked_obj ktrust; do
    [ -d "$KT_BUILD/CMakeFiles/$d.dir" ] && objdirs+=("$KT_BUILD/CMakeFiles/$d.dir")
done
python3 "$S/scripts/call_graph.py" --sources "$S" "${objdirs[@]}" > "$T/circles"
python3 "$S/scripts/call_graph.py" --sources "$S" --layers "${objdirs[@]}" > "$T/layer_circles"
[ ! -s "$T/circles" ] && ok || bad "files that call each other in a loop: $(cat "$T/circles")"
[ ! -s "$T/layer_circles" ] && ok || bad "layers that call each other: $(cat "$T/layer_circles")"
finish
