#!/bin/bash
# --help lists exactly the options each command accepts (issue #13: one
# option table drives both getopt and --help).  For every command, keyring
# action and `ktrust` itself, the "Options:" section of --help is parsed and:
# - each listed spelling is accepted (no getopt complaint about it), with the
#   argument its listing shows: "--x ARG" takes one ("--x" last: "requires
#   an argument"), "--x[=ARG]" may take one, a bare "--x" refuses "--x=1";
# - every other spelling is refused with 64: every letter and digit as a
#   short option, and every long name any help, the man page or an option
#   table in cli/ spells (getopt also takes an unambiguous prefix of a
#   listed name: those are left out), and a made-up --no-such-option.
# Nothing runs past option parsing: each probe ends with an unknown option
# (--zz-one, --zz-two) that stops the command first.
source "$(dirname "$0")/../lib/common.sh"
cd "$T"
unset KTRUST_STORE

cmds=("audit" "chain" "check-update" "kernel-keys" "load-pe-key" "scan" "verify-module"
      "verify-pe" "verify-pkcs7" "uki show" "uki verify" "verify-var" "wrap-key" "x509 show" "esl show" "sbat show"
      "keyring list" "keyring add" "keyring remove" "keyring export" "keyring create"
      "keyring push")

# options CMD...: the spellings its --help lists, one "SPELLING KIND" a line
# (KIND: flag, required or optional)
options() {
    "$KTRUST" "$@" --help | sed -n '/^Options:$/,/^$/p' | grep -E '^  -|^      --' |
        sed -E 's/^ +//; s/  .*//' | while read -r spec; do
            local kind=flag
            case "$spec" in *'[='*) kind=optional ;; *' '[!-]*) kind=required ;; esac
            if [[ $spec =~ ^(-[A-Za-z0-9])(,\ (--[a-z0-9-]+))?(\ [^ ]+|\[=[^]]+\])?$ ]]; then
                echo "${BASH_REMATCH[1]} $kind"
                [ -z "${BASH_REMATCH[3]}" ] || echo "${BASH_REMATCH[3]} $kind"
            elif [[ $spec =~ ^(--[a-z0-9-]+)(\ [^ ]+|\[=[^]]+\])?$ ]]; then
                echo "${BASH_REMATCH[1]} $kind"
            else
                echo "?$spec unparsed"
            fi
        done
}

# run CMD...: $out (stdout and stderr) and $rc, without a subshell
run() {
    "$KTRUST" "$@" >"$T/out" 2>&1 </dev/null
    rc=$?
    out=
    IFS= read -r -d '' out <"$T/out"
}

# complaint OUTPUT SPELLING: does getopt's message say SPELLING is unknown?
complaint() {
    case "$2" in
    --*) [[ $1 == *"unrecognized option '$2'"* || $1 == *"option '$2' is ambiguous"* ]] ;;
    *) [[ $1 == *"invalid option -- '${2#-}'"* ]] ;;
    esac
}

# every long name spelled anywhere: the helps, the man page, the tables
all_long=$(
    for c in "${cmds[@]}"; do options $c; done | grep -o '^--[a-z0-9-]*'
    options | grep -o "^--[a-z0-9-]*"
    grep -o '\\-\\-[a-z][a-z0-9\\-]*' "$KT_SRC/doc/ktrust.1" | sed 's/\\//g'
    grep -ho 'CLI_OPT("[a-z0-9-]*"' "$KT_SRC"/cli/*/*.c | sed 's/CLI_OPT("\(.*\)"/--\1/'
    grep -ho '{"[a-z0-9-]*", *[a-z_]*_argument' "$KT_SRC"/cli/*/*.c | sed 's/{"\([^"]*\)".*/--\1/'
    echo --no-such-option
)
all_long=$(printf '%s\n' $all_long | sort -u)
all_short=$(echo -{a..z} -{A..Z} -{0..9})
n_long=$(printf '%s\n' $all_long | wc -l)
[ "$n_long" -ge 40 ] && ok || bad "only $n_long long names found to probe: the harvest is broken"

for c in "${cmds[@]}"; do
    listed=$(options $c)
    [ "$(printf '%s\n' "$listed" | grep -c .)" -ge 3 ] && ok || bad "$c --help: too few options listed: $listed"
    if [[ $listed == *unparsed* ]]; then bad "$c --help: an option line that does not parse: $listed"; fi
    while read -r o kind; do
        [ -n "$o" ] || continue
        arg=
        [ "$kind" = required ] && arg=/nonexistent/x
        run $c $o $arg --zz-one
        if complaint "$out" "$o" || [[ $out == *"'$o' requires an argument"* ]]; then
            bad "$c: $o is listed by --help but refused: $(echo "$out" | head -1)"
            continue
        fi
        ok
        # does it take the next word as its argument?
        run $c $o --zz-one --zz-two
        took=yes
        if [[ $out == *"unrecognized option '--zz-one'"* ]] || [ "$rc" = 0 ]; then took=no; fi
        if [ "$kind" = required ]; then
            expect_eq "$took" yes "$c $o (listed with an argument) takes the next word"
            if [ "$took" = yes ]; then # so alone it is a getopt error, nothing runs
                run $c $o
                [ "$rc" = 64 ] && [[ $out == *"requires an argument"* ]] && ok ||
                    bad "$c $o last: exit $rc, want 64 'requires an argument': $(echo "$out" | head -1)"
            fi
        else
            expect_eq "$took" no "$c $o (listed without an argument) leaves the next word"
        fi
        if [[ $o == --* ]]; then
            run $c $o=1 --zz-one
            refused=no
            [[ $out == *"'$o' doesn't allow an argument"* ]] && refused=yes
            expect_eq "$refused" "$([ "$kind" = flag ] && echo yes || echo no)" "$c $o=1 ($kind)"
        fi
    done <<<"$listed"
    # everything else is refused (a prefix of a listed name is an abbreviation)
    names=$(printf '%s\n' "$listed" | cut -d' ' -f1)
    for o in $all_long $all_short; do
        skip=no
        for l in $names; do
            [[ $l == "$o"* ]] && { skip=yes; break; }
        done
        [ "$skip" = no ] || continue
        run $c $o /nonexistent/x --zz-one
        if [ "$rc" = 64 ] && complaint "$out" "$o"; then ok; else
            bad "$c: $o is not listed by --help but accepted (exit $rc): $(echo "$out" | head -1)"
        fi
    done
done

# ktrust itself: what its --help lists may come before the command (-h and
# -V are answered there); nothing else may (no abbreviations either)
listed=$(options)
expect_match "$listed" "--trust required" "ktrust --help lists the common options"
before="options before the command may only be"
while read -r o kind; do
    case "$o" in -h | --help | -V | --version) continue ;; esac
    arg=
    [ "$kind" = required ] && arg=/nonexistent/x
    run $o $arg verify-pe --zz-one
    [[ $out != *"$before"* && $out == *"unrecognized option '--zz-one'"* ]] && ok ||
        bad "ktrust $o ${arg:+ARG} before the command: $(echo "$out" | head -1)"
done <<<"$listed"
names=$(printf '%s\n' "$listed" | cut -d' ' -f1)
for o in $all_long $all_short; do
    [[ " "$(echo $names)" " == *" $o "* ]] && continue
    run $o /nonexistent/x verify-pe --zz-one
    [ "$rc" = 64 ] && [[ $out == *"$before"* ]] && ok ||
        bad "ktrust $o before the command is not listed by --help but accepted (exit $rc)"
done
expect_eq "$($KTRUST -V >/dev/null; echo $?):$($KTRUST --version | cut -d' ' -f1)" "0:ktrust" "-V, --version"
finish
