"""Toy cycle model of one GPGPU-Sim SM's front end and issue stage, written
from a reading of gpgpu-sim_distribution src/gpgpu-sim/shader.cc (fetch,
decode, scheduler_unit::cycle, shader_core_ctx::issue) and the GTX480 config;
no GPGPU-Sim code. It exists to find the sign and the cause of the
num_sched_per_core effect (docs/model-history.md, "Tried after analytic-2.19 ...
num_sched_per_core 4"); it is a research probe, not part of gpudse.

Modelled: fetch of one warp per cycle (2 PTX instructions into a 2-entry
ibuffer, round robin over the warps whose ibuffer is empty, decode the next
cycle), control-hazard flush and refetch after a taken branch, s schedulers
owning warp_id % s, GTO (greedy, then oldest dynamic warp id, waiting warps
last) or LRR, Issue_Prio rotation, one instruction per scheduler per cycle,
ID_OC_SP width 2 (barriers and branches go there too), ID_OC_MEM width 1 into
two MEM collector units and one LD/ST unit (one access per cycle), a register
scoreboard, CTA barriers, CTA replacement; optionally the cold il1 (4 x 128-B
lines of 16 instructions, 2 MSHRs, `imerge` merges each, reservation fails
waste the fetch cycle, fills delivered one per cycle through the fetch) and
the cold constant cache (2 MSHRs, a miss blocks the LD/ST unit). Memory is a
fixed latency (`lat` for a global load, 30 shared, 20 constant hit,
imiss_lat for a code or constant line); no network, no L1D, no DRAM.

Usage: python3 sm_issue_sim.py PTXDIR reduction|dct8x8|sgemm [key=value ...]
  PTXDIR holds reduction.ptx, dct8x8.ptx and sgemm.ptx (N = 128: the K loop's
  branches are counter predicates; use shserv=2 for its As bank conflict), made from
  ../shared/reference/kernels/*.cu with `nvcc -arch=sm_75 -ptx` (GPGPU-Sim
  ran the sm_75 PTX). Keys: lat, ctas, icache, ccache, imiss_lat, imshr,
  imerge, shserv, rot (0: fixed scheduler order), sp_width, fetch_width,
  ideal_fetch, lrr, two_level (the active pool per scheduler of
  two_level_active:N:0:1, e.g. two_level=6), spread (slot k's global loads
  return k*spread cycles later: a crude burst drain), lines=1 (print, per
  cold code line, when it missed and filled and how many first-wave warps
  first needed it after the fill, i.e. were still behind with work).
  Prints cycles at 1, 2 and 4 schedulers."""
import re, sys

def parse(path, entry):
    txt = open(path).read()
    body = txt[txt.index(entry):]
    body = body[body.index('{') + 1:]
    ins, labels = [], {}
    for raw in body.split('\n'):
        line = raw.split('//')[0].strip()
        if not line or line.startswith('.') or line == '}':
            continue
        if line.endswith(':'):
            labels[line[:-1]] = len(ins)
            continue
        guard = None
        if line.startswith('@'):
            g, line = line.split(None, 1)
            guard = g[1:]
        line = line.rstrip(';').strip()
        parts = line.split(None, 1)
        op = parts[0]
        args = parts[1] if len(parts) > 1 else ''
        ops = [a.strip() for a in args.split(',')] if args else []
        R = lambda s: re.findall(r'%[a-z]+\d+', s)
        dst, srcs, target = None, [], None
        if op.startswith('st.'):
            srcs = R(args)
        elif op.startswith('bar') or op == 'ret':
            pass
        elif op == 'bra':
            target = ops[0]
        else:
            d = R(ops[0]) if ops else []
            dst = d[0] if d else None
            srcs = R(','.join(ops[1:]))
        if guard:
            srcs.append(guard.lstrip('!'))
        ins.append(dict(op=op, dst=dst, srcs=srcs, guard=guard, target=target))
    for i in ins:
        if i['target']:
            i['target'] = labels[i['target']]
    return ins

def classify(ins, const_lines_first=0):
    nconst = 0
    for i in ins:
        op = i['op']
        i['mem'] = op.startswith('ld.') or op.startswith('st.')
        i['serv'] = 1
        i['lat'] = 8
        if op.startswith('ld.global'):
            i['lat'] = LAT_GLOBAL
        elif op.startswith('ld.shared'):
            i['lat'] = 30
        elif op.startswith('ld.const') or op.startswith('ld.param'):
            i['lat'] = 20
            if op.startswith('ld.const'):
                nconst += 1
                if nconst <= const_lines_first:
                    i['serv'] = 4

def const_lines(ins, kern):
    nconst = 0
    for i in ins:
        if i['op'].startswith('ld.param'):
            i['lines'] = lambda w: ['P']
        elif i['op'].startswith('ld.const'):
            nconst += 1
            if kern == 'dct8x8' and nconst <= 8:
                i['lines'] = lambda w: ['C0', 'C1', 'C2', 'C3']
            else:
                i['lines'] = lambda w: ['C%d' % (w['wslot'] // 2)]

def trace(ins, tids, pred):
    """Executed instruction indices of one warp (if-then divergence only)."""
    out, pc, active, stack, visits = [], 0, set(tids), [], {}
    while True:
        if stack and pc == stack[-1][0]:
            active = stack.pop()[1]
        i = ins[pc]
        out.append(pc)
        if i['op'] == 'ret':
            return out
        if i['op'] == 'bra':
            g = i['guard']
            if g is None:
                pc = i['target']; continue
            neg = g.startswith('!')
            f = pred[g.lstrip('!')]
            v = visits.get(pc, 0)
            visits[pc] = v + 1
            if getattr(f, 'loop', False):   # counter predicate, warp-uniform
                taken = set(active) if f(v) != neg else set()
            else:
                taken = {t for t in active if f(t) != neg}
            if taken == active:
                pc = i['target']; continue
            if taken:
                stack.append((i['target'], active))
                active = active - taken
        pc += 1

def simulate(ins, traces_of_warp, wpc, n_res, n_cta, s, rot=True, fetch_width=2,
             fetch_per_cycle=1, sp_width=2, ideal_fetch=0, lrr=0, two_level=0, icache=0, imiss_lat=277, imshr=2, imerge=32, ccache=0, spread=0):
    INF = 10 ** 9
    W = 48
    slot_cta = [None] * n_res
    warps = [None] * W
    next_cta, done_ctas, dyn = 0, 0, 0
    sched_of = [w % s for w in range(W)]
    greedy = [None] * s
    prio = 0
    fetch_buf = None
    last_fetched = 0
    mem_cu, ldst_busy, id_oc_mem = [], 0, None
    cycle = 0
    bar = {}
    issued_count = [0] * W
    nfetch[0] = 0
    ipres = set()            # present code lines
    ipend = {}               # line -> [fill_time, [wids]]
    iret = []                # (wid) fetches returned, one delivered per cycle
    nfail[0] = 0
    stat.clear(); stat.update(last=0, idle=0, idle_ipend=0, idle_bar=0)
    ncfail[0] = 0
    cpres, cpend, ldst_head = set(), {}, None
    if not icache:
        ipres = set(range(len(ins) // 16 + 1))
    # two_level_active:two_level:0:1 (shader.cc two_level_active_scheduler):
    # every warp slot of the scheduler starts pending, the first `two_level`
    # by slot id become active; order_warps demotes an active warp that is
    # waiting() (no CTA, done, at a barrier) or whose ibuffer's next
    # instruction reads a long-op register (global / param load in flight),
    # and promotes the pending front (SRR) into each freed place whatever its
    # state. A warp with an empty ibuffer (il1 miss) is neither.
    act = [[wid for wid in range(W) if sched_of[wid] == j][:two_level] for j in range(s)]
    pend = [[wid for wid in range(W) if sched_of[wid] == j][two_level:] for j in range(s)]
    def tl_waiting(wid, cycle):
        w = warps[wid]
        if w is None or w['done'] or w['wait']:
            return True
        if w['ibuf']:
            i = ins[w['ibuf'][0]]
            return any(r in w['long'] and w['ready'].get(r, 0) > cycle for r in i['srcs'])
        return False
    def launch(slot):
        nonlocal next_cta, dyn
        cta = next_cta; next_cta += 1
        slot_cta[slot] = cta
        bar[slot] = set()
        for w in range(wpc):
            wid = slot * wpc + w
            warps[wid] = dict(tr=traces_of_warp[w], pos=0, ibuf=[], fpc=0,
                              ready={}, long=set(), wait=False, done=False, dyn=dyn, slot=slot, wslot=w)
            dyn += 1
    for slot in range(n_res):
        if next_cta < n_cta:
            launch(slot)
    while done_ctas < n_cta:
        cycle += 1
        if cycle > 200000:
            raise SystemExit('stuck')
        # execute: LD/ST unit and MEM collector units
        for ln in [l for l, t in cpend.items() if t <= cycle]:
            cpres.add(ln); del cpend[ln]
        if ldst_head is None and mem_cu:
            w, i = mem_cu.pop(0)
            acc = list(i['lines'](w)) if (ccache and 'lines' in i) else [None] * i['serv']
            ldst_head = [w, i, acc, 0]
        if ldst_head is not None:
            w, i, acc, rmax = ldst_head
            a = acc[0]
            ok = True
            if a is not None:
                if a in cpres:
                    pass
                elif a in cpend:
                    rmax = max(rmax, cpend[a])
                elif len(cpend) < 2:
                    cpend[a] = cycle + imiss_lat; rmax = max(rmax, cpend[a])
                else:
                    ok = False; ncfail[0] += 1
            if ok:
                acc.pop(0)
                ldst_head[3] = rmax
                if not acc:
                    if i['dst']:
                        # spread: the burst's replies drain over the CTAs,
                        # slot k's global loads return k*spread later
                        extra = spread * w['slot'] if i['op'].startswith('ld.global') else 0
                        w['ready'][i['dst']] = max(cycle + 1, rmax) + i['lat'] + extra
                    ldst_head = None
        if id_oc_mem is not None and len(mem_cu) < 2:
            mem_cu.append(id_oc_mem); id_oc_mem = None
        sp_free = sp_width
        # issue
        order = [((prio + k) % s) if rot else k for k in range(s)]
        for j in order:
            cand = [wid for wid in range(W) if sched_of[wid] == j and warps[wid] and not warps[wid]['done']]
            if two_level:
                keep = [x for x in act[j] if not tl_waiting(x, cycle)]
                pend[j] += [x for x in act[j] if x not in keep]
                while len(keep) < two_level and pend[j]:
                    keep.append(pend[j].pop(0))
                act[j] = keep
                cand = [wid for wid in act[j] if warps[wid] and not warps[wid]['done']]
            elif lrr:
                sup = [wid for wid in range(W) if sched_of[wid] == j]
                g = greedy[j]
                st = (sup.index(g) + 1) if g is not None else 0
                order_ids = sup[st:] + sup[:st]
                cand = [wid for wid in order_ids if wid in cand]
            else:
                cand.sort(key=lambda wid: (warps[wid]['wait'], warps[wid]['dyn']))
                g = greedy[j]
                if g is not None and g in cand:
                    cand.remove(g); cand.insert(0, g)
            for wid in cand:
                w = warps[wid]
                if w['wait'] or not w['ibuf']:
                    continue
                pc = w['ibuf'][0]
                want = w['tr'][w['pos']]
                if pc != want:
                    w['ibuf'] = []; w['fpc'] = want
                    continue
                i = ins[pc]
                if any(w['ready'].get(r, 0) > cycle for r in i['srcs']) or \
                   (i['dst'] and w['ready'].get(i['dst'], 0) > cycle):
                    continue
                if i['mem']:
                    if id_oc_mem is not None:
                        continue
                    id_oc_mem = (w, i)
                    if i['dst']:
                        w['ready'][i['dst']] = INF
                else:
                    if sp_free == 0:
                        continue
                    sp_free -= 1
                    if i['dst']:
                        w['ready'][i['dst']] = cycle + i['lat']
                if two_level:   # order_lrr: the active list restarts after the issued warp
                    k = act[j].index(wid)
                    act[j] = act[j][k + 1:] + act[j][:k + 1]
                if i['dst'] and (i['op'].startswith('ld.global') or i['op'].startswith('ld.param')):
                    w['long'].add(i['dst'])
                issued_count[wid] += 1
                w['ibuf'].pop(0)
                w['pos'] += 1
                w['fpc'] = pc + 1
                greedy[j] = wid
                if i['op'].startswith('bar'):
                    w['wait'] = True
                    b = bar[w['slot']]; b.add(wid)
                    live = [x for x in range(w['slot'] * wpc, w['slot'] * wpc + wpc) if not warps[x]['done']]
                    if all(x in b for x in live):
                        for x in live:
                            warps[x]['wait'] = False
                        stat['rel'] = cycle
                        b.clear()
                if i['op'] == 'ret':
                    w['done'] = True
                    w['ibuf'] = []
                    sl = w['slot']
                    if all(warps[x]['done'] for x in range(sl * wpc, sl * wpc + wpc)):
                        done_ctas += 1
                        stat.setdefault('fin', []).append(cycle)
                        for x in range(sl * wpc, sl * wpc + wpc):
                            warps[x] = None
                        slot_cta[sl] = None
                        if next_cta < n_cta:
                            launch(sl)
                break
        prio = (prio + 1) % s
        nis = sum(issued_count)
        h = stat.setdefault('hist', [0] * 5); h[nis - stat['last']] += 1
        if nis - stat['last'] > 2:
            dt = cycle - stat.get('rel', -10 ** 9)
            stat['x_near' if dt <= 20 else 'x_far'] = stat.get('x_near' if dt <= 20 else 'x_far', 0) + nis - stat['last'] - 2
        if nis == stat['last'] and not ipend and not any(w and w['wait'] for w in warps):
            if any(w and not w['done'] and w['ibuf'] for w in warps):
                stat['idle_has_ibuf'] = stat.get('idle_has_ibuf', 0) + 1
            else:
                stat['idle_no_ibuf'] = stat.get('idle_no_ibuf', 0) + 1
        if nis == stat['last']:
            stat['idle'] += 1
            if ipend:
                stat['idle_ipend'] += 1
            elif any(w and w['wait'] for w in warps):
                stat['idle_bar'] += 1
        stat['last'] = nis
        # decode
        if fetch_buf is not None:
            wid, fpc = fetch_buf
            w = warps[wid]
            if w and not w['done']:
                w['ibuf'] = [p for p in range(fpc, fpc + fetch_width) if p < len(ins)]
            fetch_buf = None
        # fetch
        if ideal_fetch:
            for w in warps:
                if w and not w['done'] and not w['ibuf']:
                    w['ibuf'] = [p for p in range(w['fpc'], w['fpc'] + fetch_width) if p < len(ins)]
            continue
        for ln in [l for l, v in ipend.items() if v[0] <= cycle]:
            iret.extend(ipend[ln][1]); ipres.add(ln); del ipend[ln]
        if iret:
            wid = iret.pop(0)
            w = warps[wid]
            if w and not w['done']:
                w['imiss'] = False
                fetch_buf = (wid, w['fpc'])
            continue
        for k in range(W):
            wid = (last_fetched + 1 + k) % W
            w = warps[wid]
            if w and not w['done'] and not w['ibuf'] and not w.get('imiss'):
                last_fetched = wid
                ln = w['fpc'] // 16
                if ln not in w.setdefault('seen', set()):   # first need of the line
                    w['seen'].add(ln)
                    stat.setdefault('touch', {}).setdefault(ln, []).append(cycle)
                if ln in ipres:
                    fetch_buf = (wid, w['fpc'])
                    nfetch[0] += 1
                elif ln in ipend and len(ipend[ln][1]) < imerge:
                    ipend[ln][1].append(wid); w['imiss'] = True
                elif ln not in ipend and len(ipend) < imshr:
                    ipend[ln] = [cycle + imiss_lat, [wid]]; w['imiss'] = True
                    stat.setdefault('lines', []).append((ln, cycle, sum(issued_count)))
                else:
                    nfail[0] += 1
                break
    return cycle, issued_count

LAT_GLOBAL = 250
nfetch = [0]
nfail = [0]
stat = {}
ncfail = [0]
if __name__ == '__main__':
    ptxdir, kern = sys.argv[1], sys.argv[2]
    if kern == 'reduction':
        ins = parse(ptxdir + '/reduction.ptx', '_Z6reducePKfPfi(')
        classify(ins)
        pred = {'%p1': lambda t: False, '%p2': lambda t: False, '%p10': lambda t: t != 0}
        for n, K in zip(range(3, 10), [127, 63, 31, 15, 7, 3, 1]):
            pred['%%p%d' % n] = (lambda K: lambda t: t > K)(K)
        wpc, n_res, n_cta = 8, 6, 18
        trs = [trace(ins, range(32 * w, 32 * w + 32), pred) for w in range(wpc)]
    elif kern == 'sgemm':
        ins = parse(ptxdir + '/sgemm.ptx', '_Z5sgemmPKfS0_Pfi(')
        classify(ins)
        def loop(f):
            f.loop = True
            return f
        # N = 128: N > 63 (p1), k loop unrolled by 4 (16 trips, p2), 2 K tiles (p3)
        pred = {'%p1': loop(lambda v: True), '%p2': loop(lambda v: v % 16 != 15),
                '%p3': loop(lambda v: v % 2 == 0)}
        wpc, n_res, n_cta = 8, 4, 5
        trs = [trace(ins, range(32 * w, 32 * w + 32), pred) for w in range(wpc)]
    else:
        ins = parse(ptxdir + '/dct8x8.ptx', '_Z6dct8x8PKfPfi(')
        classify(ins, const_lines_first=8)
        wpc, n_res, n_cta = 8, 4, 10
        trs = [trace(ins, range(32 * w, 32 * w + 32), {}) for w in range(wpc)]
    const_lines(ins, kern)
    print(kern, 'insns per warp', [len(t) for t in trs])
    opts = dict(a.split('=') for a in sys.argv[3:])
    if 'ctas' in opts:
        n_cta = int(opts.pop('ctas'))
    shserv = int(opts.pop('shserv', 1))
    show_lines = int(opts.pop('lines', 0))
    kw = {k: int(v) for k, v in opts.items() if k != 'lat'}
    if 'lat' in opts:
        LAT_GLOBAL = int(opts['lat'])
        classify(ins, const_lines_first=8 if kern != 'reduction' else 0)
    if shserv > 1:   # LD/ST cycles of every other shared load (sgemm's As[ty][k]: 2-way bank conflict)
        n = 0
        for i in ins:
            if i['op'].startswith('ld.shared'):
                if n % 2 == 0:
                    i['serv'] = shserv
                n += 1
    base = None
    for s in (1, 2, 4):
        c, cnt = simulate(ins, trs, wpc, n_res, n_cta, s, **kw)
        base = c if s == 2 else base
        print('   fin', stat.get('fin'), 'other idle: ibuf ready-but-blocked %d, all ibufs empty %d' % (stat.get('idle_has_ibuf', 0), stat.get('idle_no_ibuf', 0)))
        if show_lines and 'lines' in stat:
            first = n_res * wpc
            for ln, t0, _ in stat['lines']:
                tt = sorted(stat['touch'][ln])[:first]
                late = sum(1 for t in tt if t > t0 + kw.get('imiss_lat', 277))
                print('   line %d missed %d filled %d, first-wave warps needing it after the fill %d of %d'
                      % (ln, t0, t0 + kw.get('imiss_lat', 277), late, len(tt)))
        print('   issue hist', stat.get('hist'), 'extra near release', stat.get('x_near', 0), 'far', stat.get('x_far', 0))
        print(' s=%d cycles %d fetch/cycle %.2f issue/cycle %.2f ifails %d cfails %d idle %d (icache %d, barrier %d)' % (s, c, nfetch[0] / c, sum(cnt) / c, nfail[0], ncfail[0], stat['idle'], stat['idle_ipend'], stat['idle_bar']))
