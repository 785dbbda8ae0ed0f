#!/bin/sh
# run.sh: builds the libFuzzer harnesses tests/fuzz/fuzz_*.c against gpudse's
# library compiled with clang (-fsanitize=fuzzer-no-link,address,undefined)
# into build/fuzz/, then runs each target for SECONDS seconds, one after the
# other, from the repository root.
#   sh tests/fuzz/run.sh [SECONDS] [TARGET...]     (default 60 s, all targets)
# FUZZ_JOBS (default 2): how many library files are compiled at once.
# Seeds: tests/fuzz/corpus/TARGET/ and the kept crash inputs of
# tests/data/fuzz_crashes/TARGET/ (read only). New inputs the fuzzer finds go
# to tests/tmp/fuzz/corpus/TARGET/, crashes to tests/tmp/fuzz/crashes/TARGET/.
# Prints one line per target (seconds, executions, crash files written by
# this run) and exits 1 when any target crashed, leaked or timed out, after
# the end of that target's log and the crash input's path. A crash
# found must become a test input under tests/ (tests/data/fuzz_crashes/)
# before it is fixed.
set -u
secs="${1:-${FUZZ_SECONDS:-60}}"
[ $# -gt 0 ] && shift
CC_FUZZ="${CC_FUZZ:-clang}"
B=build/fuzz
T=tests/tmp/fuzz
command -v "$CC_FUZZ" >/dev/null 2>&1 || {
    echo "fuzz: $CC_FUZZ not found; as root run: apt-get install -y clang" >&2
    exit 2; }
SRCDIRS=$(make -s --no-print-directory print-srcdirs)
INCS=$(for d in $SRCDIRS; do printf -- "-I%s " "$d"; done)
PKGS="gsl libxml-2.0 cairo pangocairo libcjson libcurl libcrypto libmatheval"
CFLAGS="-std=c11 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
 -Wall -Werror=implicit-function-declaration -Wno-unused-function -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
 $INCS -DGPUDSE_VERSION=\"0.1.0-fuzz\" \
 -DGPUDSE_DATADIR=\"$(pwd)/templates\" $(pkg-config --cflags $PKGS)"
LIBS="$(pkg-config --libs $PKGS) -lm"
mkdir -p "$B/obj" "$T"

# Library objects, rebuilt when their source or any header is newer.
newest_h=$(for d in $SRCDIRS; do ls "$d"/*.h; done 2>/dev/null | xargs ls -t | head -1)
todo=""
for src in $(for d in $SRCDIRS; do ls "$d"/*.c; done); do
    obj="$B/obj/$(echo "$src" | tr / _ | sed 's/\.c$/.o/')"
    if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ "$newest_h" -nt "$obj" ]; then
        todo="$todo $src"
    fi
done
if [ -n "$todo" ]; then
    echo "fuzz: compiling $(echo $todo | wc -w) library files with $CC_FUZZ"
    export CC_FUZZ CFLAGS B
    echo $todo | tr ' ' '\n' | xargs -P "${FUZZ_JOBS:-2}" -I{} sh -c \
        'o="$B/obj/$(echo {} | tr / _ | sed "s/\.c$/.o/")";
         $CC_FUZZ $CFLAGS -fsanitize=fuzzer-no-link -c -o "$o" {} || exit 255' \
        || { echo "fuzz: library build failed" >&2; exit 2; }
    rm -f "$B/libgpudse-fuzz.a"
fi
[ -f "$B/libgpudse-fuzz.a" ] || ar rcs "$B/libgpudse-fuzz.a" "$B"/obj/*.o

targets="$*"
[ -n "$targets" ] || targets=$(ls tests/fuzz/fuzz_*.c | sed 's|.*/fuzz_||; s|\.c$||')
for t in $targets; do
    bin="$B/fuzz_$t"
    if [ ! -f "$bin" ] || [ "tests/fuzz/fuzz_$t.c" -nt "$bin" ] \
       || [ "$B/libgpudse-fuzz.a" -nt "$bin" ] || [ tests/fuzz/fuzz_common.h -nt "$bin" ]; then
        $CC_FUZZ $CFLAGS -fsanitize=fuzzer -Itests/fuzz -o "$bin" \
            "tests/fuzz/fuzz_$t.c" "$B/libgpudse-fuzz.a" $LIBS \
            || { echo "fuzz: cannot build $t" >&2; exit 2; }
    fi
done
[ "$secs" = 0 ] && { echo "fuzz: built $targets"; exit 0; }

export GPUDSE_DATA="$(pwd)/templates"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0"
status=0
for t in $targets; do
    mkdir -p "$T/corpus/$t" "$T/crashes/$t" "tests/fuzz/corpus/$t"
    log="$T/$t.log"
    : > "$T/.stamp-$t"
    start=$(date +%s)
    kept=""; [ -d "tests/data/fuzz_crashes/$t" ] && kept="tests/data/fuzz_crashes/$t"
    "$B/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="$T/crashes/$t/" \
        "$T/corpus/$t" "tests/fuzz/corpus/$t" $kept >"$log" 2>&1
    rc=$?
    end=$(date +%s)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    ncrash=$(find "$T/crashes/$t" -type f -newer "$T/.stamp-$t" | wc -l)
    printf 'fuzz %-10s %5ss  %10s execs  %d new crash files  rc %d  (log %s)\n' \
        "$t" "$((end - start))" "${execs:-?}" "$ncrash" "$rc" "$log"
    if [ "$rc" -ne 0 ] || [ "$ncrash" -ne 0 ]; then
        status=1
        echo "fuzz: $t failed; the end of $log:" >&2
        tail -n 40 "$log" >&2
        find "$T/crashes/$t" -type f -newer "$T/.stamp-$t" | sed 's/^/fuzz: input: /' >&2
    fi
done
exit $status
