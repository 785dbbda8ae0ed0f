#!/bin/sh
# layers.sh: the source folders stand in layers (README "Source layout"),
# and an #include may only point at the including file's own folder or at a
# lower layer — never up, never sideways to another folder of the same
# layer — and no module includes itself through others (no include cycle):
# a module is a .c/.h pair by basename, in its folder, and a NAME_impl.h or
# NAME_int.h header belongs to module NAME; a .c including another module's
# header depends on that module, so two modules whose files include each
# other's headers (a.c includes b.h, b.c includes a.h) form a cycle. Every folder the Makefile builds (SRCDIRS) must have a
# layer in the table below, so a new folder is placed before it is used.
# An include "x.h" resolves as the compiler resolves it: the including
# file's folder first, then the -I folders in the Makefile's order.
# usage: sh tests/layers.sh [ROOT]   (ROOT: a source tree, default ".")
# exit: 0 the layers hold; 1 an include points up or sideways, a cycle
#       between headers or between modules, a
#       folder without a layer or an include that names no file (each
#       listed as FILE: what is wrong); 2 cannot run
set -u
ROOT=${1:-.}
cd "$ROOT" || exit 2

# The layers, lowest first: LAYER FOLDER. A folder may include the headers
# of any folder of a lower layer.
LAYERS='
0 pipeline/core
1 analysis/math
1 report/draw
2 pipeline/model
3 pipeline/backends
3 analysis/agents
4 pipeline/search
4 pipeline/split
5 analysis
6 pipeline/compare
6 report
7 pipeline/engine
8 pipeline/cli
'
# Folders below a listed one that the Makefile does not list on their own
# (the CUDA kernels): they stand in the layer of their parent.
SUBDIRS='pipeline/backends/cuda'

TMP=${TMPDIR:-/tmp}/gpudse-layers.$$
mkdir -p "$TMP" || exit 2
trap 'rm -rf "$TMP"' EXIT
echo "$LAYERS" | awk 'NF == 2' > "$TMP/layers"
folders=$(awk '{print $2}' "$TMP/layers")
bad=0

# Every folder the Makefile builds has a layer.
if [ -f Makefile ] && grep -q '^print-srcdirs:' Makefile; then
    for d in $(make -s --no-print-directory print-srcdirs); do
        grep -q " $d\$" "$TMP/layers" || {
            echo "Makefile: SRCDIRS folder $d has no layer in tests/layers.sh"
            bad=1
        }
    done
fi

# Each quoted include of each source file, resolved to a file of the tree,
# checked against the layers; header-to-header edges kept for the cycles.
for d in $folders $SUBDIRS; do
    ls "$d"/*.c "$d"/*.h "$d"/*.cu 2>/dev/null
done > "$TMP/files"
: > "$TMP/hedges"
: > "$TMP/medges"
awk -v folders="$folders" -v subdirs="$SUBDIRS" -v hedges="$TMP/hedges" \
    -v medges="$TMP/medges" '
function folder_of(f,   d, i) {
    d = f; sub(/\/[^\/]*$/, "", d)
    for (i in sub_) if (d == sub_[i]) sub(/\/[^\/]*$/, "", d)
    return d
}
# The module a file belongs to: its path without the extension and
# without an _impl or _int suffix.
function module_of(f,   m) {
    m = f; sub(/\.[^.\/]*$/, "", m); sub(/_(impl|int)$/, "", m)
    return m
}
FNR == NR { layer[$2] = $1; next }
{ exists[$0] = 1; list[++n] = $0 }
END {
    nf = split(folders, fl, " "); split(subdirs, sub_, " ")
    for (i = 1; i <= n; i++) {
        f = list[i]; d = f; sub(/\/[^\/]*$/, "", d); a = folder_of(f)
        while ((getline line < f) > 0) {
            if (line !~ /^[ \t]*#[ \t]*include[ \t]*"/) continue
            inc = line; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
            hit = ""
            if ((d "/" inc) in exists) hit = d "/" inc
            for (j = 1; hit == "" && j <= nf; j++)
                if ((fl[j] "/" inc) in exists) hit = fl[j] "/" inc
            if (hit == "") {
                print f ": #include \"" inc "\" names no file of the tree"
                bad = 1; continue
            }
            b = folder_of(hit)
            if (f ~ /\.h$/ && hit != f) print f, hit > hedges
            if (module_of(f) != module_of(hit))
                print module_of(f), module_of(hit) > medges
            if (a == b) continue
            if (!(a in layer) || !(b in layer)) {
                print f ": includes " hit ", and a folder of the two has no layer"
                bad = 1
            } else if (layer[b] + 0 > layer[a] + 0) {
                print f ": includes " hit ", which is a higher layer (" b \
                      ", layer " layer[b] ", over " a ", layer " layer[a] ")"
                bad = 1
            } else if (layer[b] == layer[a]) {
                print f ": includes " hit ", of " b ", on the same layer " \
                      layer[a] " as " a " (folders of one layer do not " \
                      "include each other)"
                bad = 1
            }
        }
        close(f)
    }
    exit bad
}' "$TMP/layers" "$TMP/files" || bad=1

# With every include pointing down or into its own folder, folders cannot
# form a cycle; headers inside one folder still could (a.h includes b.h,
# which includes a.h): none may.
if ! tsort "$TMP/hedges" > /dev/null 2> "$TMP/tsort"; then
    echo "include cycle between headers:"
    sed "s|^tsort: [^ ]*: ||; s|^|  |" "$TMP/tsort"
    bad=1
fi
# Nor may modules: modules in a cycle cannot be read, built or tested one
# before the other.
if ! tsort "$TMP/medges" > /dev/null 2> "$TMP/tsort"; then
    echo "include cycle between modules (.c/.h pairs by basename):"
    sed "s|^tsort: [^ ]*: ||; s|^tsort: ||; s|^|  |" "$TMP/tsort"
    bad=1
fi
exit $bad
