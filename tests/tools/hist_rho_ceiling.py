"""Spearman rho a perfect expectation model could reach on histogram's 26 rows
if GPGPU-Sim's cycles are expectation + timing noise of sd `sig` cycles.
E is taken to be the observed cycles (optimistic: it keeps the noise's spread
as signal). Rows whose knob is inert (shmem, l1_sets, l2_sets: bit-identical
simulations of the baseline) share the baseline's draw.
usage: python3 tests/tools/hist_rho_ceiling.py SIGMA_CYCLES [draws]
(docs/model-history.md, "why GTO at two schedulers is histogram's slowest scheduler row")"""
import random, sys
import csv
ref = __file__.rsplit('/', 1)[0] + '/../data/reference_results.csv'
rows = [r for r in csv.DictReader(open(ref)) if r['kernel'] == 'histogram']
cyc = [float(r['cycles']) for r in rows]
inert = [r['design'].startswith(('ofat:shmem', 'ofat:l1_sets', 'ofat:l2_sets'))
         or r['design'] == 'baseline' for r in rows]
def rank(a):
    idx = sorted(range(len(a)), key=lambda i: a[i]); r = [0]*len(a); i = 0
    while i < len(a):
        j = i
        while j+1 < len(a) and a[idx[j+1]] == a[idx[i]]: j += 1
        for k in range(i, j+1): r[idx[k]] = (i+j)/2+1
        i = j+1
    return r
def spear(x, y):
    rx, ry = rank(x), rank(y); n = len(x); mx = sum(rx)/n; my = sum(ry)/n
    sxy = sum((a-mx)*(b-my) for a, b in zip(rx, ry))
    return sxy / (sum((a-mx)**2 for a in rx)*sum((b-my)**2 for b in ry))**.5
sig = float(sys.argv[1]); D = int(sys.argv[2]) if len(sys.argv) > 2 else 4000
rng = random.Random(1); out = []
for _ in range(D):
    e0 = rng.gauss(0, sig)
    real = [c + (e0 if inert[i] else rng.gauss(0, sig)) for i, c in enumerate(cyc)]
    # IPC order is the reverse of the cycle order: the model predicts E exactly
    out.append(spear([-c for c in cyc], [-c for c in real]))
out.sort()
print('sigma %g cycles: rho(E, E+noise) mean %.3f, median %.3f, 10th pct %.3f, P(rho>=0.9) %.2f'
      % (sig, sum(out)/D, out[D//2], out[D//10], sum(o >= 0.9 for o in out)/D))
