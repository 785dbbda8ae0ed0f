#!/bin/sh
# make bench (report): time to render a 100,000-point Pareto scatter (with
# front and baseline) to PDF and to SVG with gpudse's cairo figure kind,
# side by side with Debian's python3-matplotlib drawing the same points,
# front and baseline to the same formats; printed as ratios. Also the same
# figure with every job its own marker (density="off"), with CPU seconds
# and file sizes of both. Best of 3 for
# both; matplotlib's time excludes interpreter start-up and CSV loading.
# Figures only, never pass/fail.
set -e
bin=build/tests/bench_report
if [ ! -x "$bin" ]; then
    echo "bench_report: $bin not built (make bench builds it)"; exit 0
fi
out=$(mktemp -d /tmp/gpudse-bench-report.XXXXXX)
trap 'rm -rf "$out"' EXIT
"$bin" "$out" 100000 > "$out/c.txt"
cpdf=$(sed -n 's/^pdf_s //p' "$out/c.txt")
csvg=$(sed -n 's/^svg_s //p' "$out/c.txt")
echo "report figures: 100,000-point Pareto scatter ($(sed -n 's/^front //p' "$out/c.txt")-point front + baseline)"
v() { sed -n "s/^$1 //p" "$out/c.txt"; }
echo "  gpudse (cairo)  PDF ${cpdf} s  SVG ${csvg} s  (CPU $(v pdf_cpu_s) s, $(v svg_cpu_s) s; $(v pdf_bytes) and $(v svg_bytes) bytes; jobs as a density raster)"
echo "  every job a marker (density=\"off\"): PDF $(v pdf_exact_s) s  SVG $(v svg_exact_s) s  (CPU $(v pdf_exact_cpu_s) s, $(v svg_exact_cpu_s) s; $(v pdf_exact_bytes) and $(v svg_exact_bytes) bytes)"
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -qq --no-install-recommends python3-matplotlib >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1; apt-get install -y -qq --no-install-recommends python3-matplotlib >/dev/null 2>&1; } || true
    fi
fi
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    echo "  matplotlib comparison skipped: python3-matplotlib is not installed (as root: apt-get install python3-matplotlib)"
    exit 0
fi
cat > "$out/mpl.py" <<'PY'
import sys, time
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
d = np.loadtxt(sys.argv[1] + "/points.csv", delimiter=",", skiprows=1)
a, ipc = d[:, 0], d[:, 1]
o = np.lexsort((-ipc, a))
best = np.maximum.accumulate(ipc[o])
keep = np.r_[True, best[1:] > best[:-1]]
fa, fi = a[o][keep], ipc[o][keep]
def draw(path):
    fig, ax = plt.subplots(figsize=(516 / 72, 330 / 72))
    ax.scatter(a, ipc, s=4, c="#56B4E9", alpha=0.6, linewidths=0, label="successful jobs")
    ax.step(fa, fi, where="post", color="#D55E00", lw=1.2)
    ax.scatter(fa, fi, s=12, marker="D", c="#D55E00", edgecolors="k", label="Pareto front")
    ax.scatter([a[0]], [ipc[0]], marker="^", c="k", label="baseline")
    ax.set_xlabel("Area (mm²), lower is better")
    ax.set_ylabel("IPC, higher is better")
    ax.set_title("bench: IPC vs Area — modelled results")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=3)
    fig.subplots_adjust(left=0.1, right=0.98, top=0.92, bottom=0.28)
    fig.savefig(path)
    plt.close(fig)
for fmt in ("pdf", "svg"):
    t = min(((lambda t0: (draw(sys.argv[1] + "/mpl." + fmt), time.perf_counter() - t0)[1])(time.perf_counter())) for _ in range(3))
    print(fmt + "_s %.4f" % t)
PY
/usr/bin/python3 "$out/mpl.py" "$out" > "$out/m.txt"
mpdf=$(sed -n 's/^pdf_s //p' "$out/m.txt")
msvg=$(sed -n 's/^svg_s //p' "$out/m.txt")
echo "  matplotlib $(/usr/bin/python3 -c 'import matplotlib; print(matplotlib.__version__)')  PDF ${mpdf} s  SVG ${msvg} s"
awk -v a="$mpdf" -v b="$cpdf" -v c="$msvg" -v d="$csvg" 'BEGIN {
    printf "  speed-up (matplotlib time / gpudse time): PDF %.1fx  SVG %.1fx  (target >= 5x)\n", a / b, c / d }'
