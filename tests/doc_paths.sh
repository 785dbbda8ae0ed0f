#!/bin/sh
# doc_paths.sh: every repository path that the project's docs and messages
# name exists in a clone. Scans README.md, docs/*.md, templates/ (text
# files), campaigns/, the help text of every command (`gpudse --help`,
# `gpudse help CMD`) and the string literals (messages) of the sources for
# paths under the repository's folders (docs/,
# templates/, campaigns/, tests/, pipeline/, analysis/, report/), for the
# folder reference/ and for ../shared/ (outside the repository: never
# named), and checks each one: a glob (pipeline/backends/cuda/*.cu) must match
# something, a path with a placeholder (<key>, {name}, NAME) must have an
# existing folder before it. Paths under tests/tmp/ are made by the tests.
# usage: sh tests/doc_paths.sh [GPUDSE]   (from the repository root;
#        DOC_PATHS_EXTRA="FILE ..." scans those files too)
# exit: 0 every path exists; 1 some do not (listed as SOURCE: PATH)
set -u
GPUDSE=${1:-./gpudse}
TMP=${TMPDIR:-/tmp}/gpudse-doc-paths.$$
mkdir -p "$TMP" || exit 2
trap 'rm -rf "$TMP"' EXIT

# Texts to scan, one file each (help texts captured first).
"$GPUDSE" --help > "$TMP/help--help.txt" 2>&1
for c in $("$GPUDSE" --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p; s/^  \([a-z][a-z-]*\)$/\1/p' | sort -u); do
    "$GPUDSE" help "$c" > "$TMP/help-$c.txt" 2>&1
done
# Messages: the string literals of the sources, one file per source.
for src in $(find pipeline analysis report -name '*.c' | sort); do
    grep -o '"[^"]*"' "$src" > "$TMP/msg-$(echo "$src" | tr / _).txt"
done
files=$(ls README.md docs/*.md campaigns/* 2>/dev/null;
        ls "$TMP"/msg-*.txt;
        find templates -type f \( -name '*.md' -o -name '*.xml' -o -name '*.rng' \
             -o -name '*.txt' -o -name '*.config' -o -name '*.icnt' \) | sort;
        ls "$TMP"/help-*.txt;
        printf '%s\n' ${DOC_PATHS_EXTRA:-})

bad=0
for f in $files; do
    grep -o -E '(\.\./shared/[A-Za-z0-9_./*-]*|(^|[^A-Za-z0-9_./-])(docs|templates|campaigns|tests|pipeline|analysis|report|reference)/[A-Za-z0-9_./*<>{}-]*)' "$f" |
    sed -E 's/^[^.a-z]//; s/[.,:;]+$//' | sort -u > "$TMP/paths"
    while read -r p; do
        [ -n "$p" ] || continue
        case "$p" in
            tests/tmp/*) continue ;;
        esac
        ok=0
        case "$p" in
            ../shared/*) ok=0 ;;
            *'<'*|*'{'*|*[A-Z][A-Z][A-Z]*)
                d=$(printf '%s' "$p" | sed -E 's#/[^/]*[<{].*##; s#/[^/]*[A-Z][A-Z][A-Z].*##')
                [ -d "$d" ] && ok=1 ;;
            *'*'*)
                # shellcheck disable=SC2086
                for g in $p; do [ -e "$g" ] && ok=1; break; done ;;
            *) [ -e "$p" ] || [ -e "$p.c" ] && ok=1 ;;   # analysis/math/pareto: the module
        esac
        if [ "$ok" -eq 0 ]; then
            src=$f
            case "$f" in
                "$TMP"/help-*) src="gpudse $(basename "$f" .txt | sed 's/^help-//') help" ;;
                "$TMP"/msg-*) src="messages of $(basename "$f" .txt | sed 's/^msg-//; s/_/\//')" ;;
            esac
            echo "$src: $p"
            bad=1
        fi
    done < "$TMP/paths"
done
exit "$bad"
