"""Toy cycle model of GPGPU-Sim running the histogram kernel (reference
kernels/histogram.cu), written from a reading of gpgpu-sim_distribution
src/gpgpu-sim/shader.cc (scheduler_unit::cycle, gto / two_level_active
order_warps, shd_warp_t::waiting, ldst_unit::cycle / memory_cycle /
L1_latency_queue_cycle, writeback) and the GTX480 config of the reference
logs; no GPGPU-Sim code. A research probe for docs/model-history.md ("two_level_active
with one scheduler"), not part of gpudse.

Modelled, per SM: the 39-instruction warp program of the sm_75 PTX (4 ld.param,
a loop of ld.global.u8 -> mul.wide -> add -> atom.global.add -> add, two trips),
ideal fetch (the next instruction is always in the ibuffer; optional bubble
after a taken branch), s schedulers owning warp_id % s, GTO (greedy, then
oldest dynamic id) or two_level_active:6:0:1 (demote waiting() warps and
warps whose next instruction reads a long-op register, promote the pending
FIFO's front into each freed place, LRR inside the pool), one issue per
scheduler per cycle, ID_OC_MEM one entry shared by the schedulers, two MEM
collector units, OC_EX_MEM one entry, the LD/ST dispatch register (in order:
an atomic holds it until all its transactions are injected, one per cycle
while the cluster's injection queue has room), the L1 latency queue (35
cycles), L1 line misses / HIT_RESERVED merges, the cold parameter line, a
warp `waiting()` while its atomic is in flight. Per cluster: one injection
FIFO (9 packets) shared by the cluster's cores. Request crossbar: every input
offers its head packet, every L2 slice accepts one packet per cycle
(round-robin over inputs; the hot slice with probability `hot_eff`, the reply
pacing of analytic-2.19). A reply returns a fixed `rtt` after acceptance (ROP
120 + L2 + reply network). CTAs: 6 per SM, one new CTA per core per cycle.
Atomic transactions: 32 bins per warp drawn from the source's skewed
distribution, one transaction per distinct 32-B sector, issued in descending
address order (the accessq is popped from its back), the four 256-B chunks of
the bin array on four slices (chunk 0, bins 0-63, is the hot one).

Usage: python3 hist_gpu_sim.py [key=value ...]
  keys: clusters (15) cores (1) n_mem (6) sched (gto|tl|lrr) s (2) pool (6)
        rtt (170) hot_eff (0.97) inj (9) l1lat (35) seed (1) brbub (0)
        param_lat (300) il1 (0: warm; else the cold il1 round trip of each of
        the two code lines) ctas (128) trace (0: 1 prints hot-slice idle
        per 1000 cycles, SMs with CTAs, CTAs per SM)
        ld_off (random: slice of input chunk 0, in the toy's numbering
        where the hot bin chunk is slice 0; GPGPU-Sim's placement, input at
        0xC0000000 and bins 64 KB above, is (-256) mod 2*n_mem: 0 at
        n_mem 4 / 8, 8 at 6 / 12) fold (0; 1: a CTA's second load on the
        slice of its first, 2: one chunk further — probes of how the
        hot-slice loads fall on CTAs, docs/model-history.md "n_mem rows")
        fetch (0: ideal fetch; 1: GPGPU-Sim's front end, shader_core_ctx::fetch
        / decode: one warp's two instructions per cycle, the warp chosen round
        robin among warps with an empty 2-entry ibuffer, the second slot flushed
        after a taken branch) fixbins (0; 1: a warp's bins are a function of
        seed, CTA, warp and trip, not of the order atomics are processed in)
        jseed (reseed the crossbar's hot_eff draws only: a perturbation probe)
  sched=tl is two_level_active:pool:0:1.  Example (docs/model-history.md,
  analytic-2.24): n_mem=12 s=1 sched=gto vs sched=tl."""
import heapq
import random
import sys
from collections import deque

INF = 1 << 40

# kinds
ALU, LDP, LDG, ATOM, BRA, RET = range(6)


def program():
    P = []
    def a(kind, dst=None, srcs=(), k=0, taken=False):
        P.append((kind, dst, tuple(srcs), k, taken))
    for r in ('rd4', 'rd5', 'rd6', 'r8'):
        a(LDP, r)
    a(ALU, 'r1'); a(ALU, 'r9'); a(ALU, 'r10')
    a(ALU, 'r16', ('r9', 'r1', 'r10'))
    a(ALU, 'p1', ('r16', 'r8'))
    a(BRA, None, ('p1',))
    a(ALU, 'r12'); a(ALU, 'r3', ('r12', 'r1'))
    a(ALU, 'rd1', ('rd6',)); a(ALU, 'rd2', ('rd4',)); a(ALU, 'rd3', ('rd5',))
    a(ALU, 'r17')
    for k in range(2):
        a(ALU, 'rd7', ('r16',)); a(ALU, 'rd8', ('rd2', 'rd7'))
        a(LDG, 'r13', ('rd8',), k)
        a(ALU, 'rd9', ('r13',)); a(ALU, 'rd10', ('rd3', 'rd9'))
        a(ATOM, 'r14', ('rd10',), k)
        a(ALU, 'r17', ('r14', 'r17')); a(ALU, 'r16', ('r16', 'r3'))
        a(ALU, 'p2', ('r16', 'r8'))
        a(BRA, None, ('p2',), taken=(k == 0))
    a(ALU, 'p3', ('r17',))
    a(BRA, None, ('p3',), taken=True)
    a(RET)
    assert len(P) == 39
    return P


PROG = program()
# cold il1: static instructions 0-15 on line 0, the loop and the tail (16-30) on line 1
LINE = [0 if i < 16 else 1 for i in range(39)]


class Warp:
    __slots__ = ('wid', 'pc', 'ready', 'longop', 'natom', 'done', 'dyn',
                 'slot', 'cta', 'stall', 'ib')

    def __init__(self, wid):
        self.wid = wid
        self.done = True
        self.dyn = INF
        self.ready = {}
        self.longop = set()
        self.natom = 0
        self.pc = 0
        self.slot = wid // 8
        self.cta = -1
        self.stall = 0
        self.ib = 0

    def waiting(self):
        return self.done or self.natom > 0


def bins_of_warp(rng):
    out = []
    for _ in range(32):
        r = rng.getrandbits(32)
        out.append(rng.randrange(16) if (r & 3) == 0 else rng.randrange(256))
    return out


def atomic_transactions(rng, chunk_slice):
    # memory_coalescing_arch_atomic: one transaction per 32-B sector, and a
    # further one for every thread whose word is already taken in it
    cnt = {}
    for b in bins_of_warp(rng):
        cnt[b] = cnt.get(b, 0) + 1
    per_sector = {}
    for b, n in cnt.items():
        per_sector[b // 8] = max(per_sector.get(b // 8, 0), n)
    out = []
    for sec in sorted(per_sector):
        out += [chunk_slice[sec // 8]] * per_sector[sec]
    return out   # popped from the back: highest address first


class SM:
    def __init__(self, sid, cl, g):
        self.sid, self.cl, self.g = sid, cl, g
        self.warps = [Warp(w) for w in range(48)]
        self.s = g.s
        self.greedy = [None] * g.s
        self.act = [[] for _ in range(g.s)]
        self.pend = [deque(w for w in range(48) if w % g.s == j) for j in range(g.s)]
        self.idoc = None
        self.cuq = deque()
        self.ocex = None
        self.disp = None         # [warp, inst, txlist or None]
        self.l1q = deque()       # (time, warp, inst)
        self.lines = {}          # line -> fill time (INF while pending before accept)
        self.pendline = {}       # line -> list of (warp, reg)
        self.missq = deque()     # line numbers waiting for injection
        self.param_fill = None
        self.slots = [None] * 6
        self.ctas_run = 0
        self.events = []         # (time, kind, payload)
        self.last_done = 0
        self.prio = 0
        self.g_ctas = 0
        self.ifill = {}
        self.fbuf = None
        self.flast = 0

    # --- CTA management
    def free_slot(self):
        for i, c in enumerate(self.slots):
            if c is None:
                return i
        return -1

    def launch(self, cta, t):
        i = self.free_slot()
        self.slots[i] = [cta, 8]
        for k in range(8):
            w = self.warps[i * 8 + k]
            w.pc, w.done, w.natom, w.stall, w.ib = 0, False, 0, 0, 0
            w.ready, w.longop = {}, set()
            w.dyn = self.g.dyn
            self.g.dyn += 1
            w.cta = cta
        self.ctas_run += 1
        self.g_ctas += 1

    # --- issue
    def code_ready(self, w, t):
        ln = LINE[w.pc]
        f = self.ifill.get(ln)
        if f is None:
            f = self.ifill[ln] = t + self.g.il1
        return f <= t

    def issuable(self, w, t):
        if w.done or w.natom > 0 or w.stall > t:
            return False
        if self.g.fetch and w.ib <= 0:
            return False
        if self.g.il1 and not self.code_ready(w, t):
            return False
        kind, dst, srcs, k, taken = PROG[w.pc]
        rd = w.ready
        for r in srcs:
            if rd.get(r, 0) > t:
                return False
        if dst is not None and rd.get(dst, 0) > t:
            return False
        if kind in (LDP, LDG, ATOM) and self.idoc is not None:
            return False
        return True

    def issue(self, w, t):
        g = self.g
        kind, dst, srcs, k, taken = PROG[w.pc]
        w.ib -= 1
        if taken:
            w.ib = 0   # control hazard: the sequential next instruction is flushed
        if kind == ALU:
            w.ready[dst] = t + g.alu_lat
        elif kind == BRA:
            if taken and g.brbub:
                w.stall = t + g.brbub
        elif kind == RET:
            w.done = True
            sl = self.slots[w.slot]
            sl[1] -= 1
            if sl[1] == 0:
                self.slots[w.slot] = None
                self.ctas_run -= 1
                g.ctas_done += 1
                self.last_done = t
        else:
            w.ready[dst] = INF
            w.longop.add(dst)
            if kind == ATOM:
                w.natom = 1
            self.idoc = (w, PROG[w.pc])
        w.pc += 1

    def islong(self, w):
        if w.done:
            return False
        if self.g.il1:   # an il1 miss empties the ibuffer: no next instruction to test
            f = self.ifill.get(LINE[w.pc])
            if f is None or f > self.g.g_t:
                return False
        srcs = PROG[w.pc][2]
        for r in srcs:
            if r in w.longop:
                return True
        return False

    def schedule(self, t):
        g = self.g
        for jj in range(self.s):
            j = (self.prio + jj) % self.s
            if g.sched == 'tl':
                act, pend = self.act[j], self.pend[j]
                keep = []
                for wid in act:
                    w = self.warps[wid]
                    if w.waiting() or self.islong(w):
                        pend.append(wid)
                    else:
                        keep.append(wid)
                while len(keep) < g.pool and pend:
                    keep.append(pend.popleft())
                self.act[j] = keep
                for idx, wid in enumerate(keep):
                    w = self.warps[wid]
                    if self.issuable(w, t):
                        self.issue(w, t)
                        self.act[j] = keep[idx + 1:] + keep[:idx + 1]
                        break
            elif g.sched == 'gto':
                gr = self.greedy[j]
                if gr is not None:
                    w = self.warps[gr]
                    if self.issuable(w, t):
                        self.issue(w, t)
                        continue
                cands = [w for w in self.warps if w.wid % self.s == j and not w.waiting()]
                cands.sort(key=lambda w: w.dyn)
                for w in cands:
                    if w.wid != gr and self.issuable(w, t):
                        self.issue(w, t)
                        self.greedy[j] = w.wid
                        break
            else:  # lrr
                gr = self.greedy[j]
                sup = [w for w in range(48) if w % self.s == j]
                st = (sup.index(gr) + 1) if gr is not None else 0
                for wid in sup[st:] + sup[:st]:
                    w = self.warps[wid]
                    if self.issuable(w, t):
                        self.issue(w, t)
                        self.greedy[j] = wid
                        break
        self.prio = (self.prio + 1) % self.s

    def frontend(self, t):
        # shader_core_ctx::decode then fetch: one warp's 1-2 instructions per cycle,
        # the warp chosen round robin among warps with an empty ibuffer
        if self.fbuf is not None:
            w = self.warps[self.fbuf]
            if not w.done:
                w.ib = 2 if w.pc + 1 < len(PROG) else 1
            self.fbuf = None
        for i in range(48):
            wid = (self.flast + 1 + i) % 48
            w = self.warps[wid]
            if not w.done and w.ib <= 0 and w.cta >= 0:
                self.flast = wid
                self.fbuf = wid
                break

    # --- memory pipeline
    def release(self, w, reg, t):
        w.ready[reg] = t + 1
        w.longop.discard(reg)

    def ldst(self, t):
        g = self.g
        # L1 latency queue: access the L1 35 cycles after dispatch
        while self.l1q and self.l1q[0][0] <= t:
            _, w, inst = self.l1q.popleft()
            line = g.line_of(w, inst)
            f = self.lines.get(line)
            if f is not None and f <= t:
                self.release(w, inst[1], t)
                g.l1_hit += 1
            elif line in self.pendline:
                self.pendline[line].append((w, inst[1]))
                g.l1_hr += 1
            else:
                self.pendline[line] = [(w, inst[1])]
                self.missq.append(line)
                g.l1_miss += 1
        # L1 miss queue -> cluster injection (L1D cycle runs before memory_cycle)
        cl = self.cl
        if self.missq and len(cl.inj) < g.inj:
            line = self.missq.popleft()
            cl.inj.append((g.line_slice(line), self, 'ld', line))
        # dispatch register
        if self.disp is not None:
            w, inst, tx = self.disp
            if inst[0] == ATOM:
                if tx and len(cl.inj) < g.inj:
                    cl.inj.append((tx.pop(), self, 'at', w))
                if not tx:
                    self.disp = None
            else:
                self.disp = None
        if self.disp is None and self.ocex is not None:
            w, inst = self.ocex
            self.ocex = None
            kind = inst[0]
            if kind == LDP:
                if self.param_fill is None:
                    self.param_fill = t + g.param_lat
                self.events.append((max(self.param_fill, t + g.param_hit), w, inst[1]))
            elif kind == LDG:
                self.l1q.append((t + g.l1lat, w, inst))
            else:
                # the bins are fixed by the input: the same warp of the same CTA gets the
                # same bins whatever the order the atomics are processed in
                arng = (random.Random(g.seed * 1000003 + w.cta * 97 + (w.wid % 8) * 7 + inst[3])
                        if g.fixbins else g.rng)
                tx = atomic_transactions(arng, g.chunk_slice)
                g.tx_total += len(tx)
                g.hot_total += sum(1 for s in tx if s == g.chunk_slice[0])
                w.natom = len(tx)
                self.disp = [w, inst, tx]
            if kind != ATOM:
                self.disp = None
        if self.ocex is None and self.cuq:
            self.ocex = self.cuq.popleft()
        if len(self.cuq) < 2 and self.idoc is not None:
            self.cuq.append(self.idoc)
            self.idoc = None

    def replies(self, t):
        ev = self.events
        if ev:
            keep = []
            for e in ev:
                if e[0] <= t:
                    self.release(e[1], e[2], t)
                else:
                    keep.append(e)
            self.events = keep


class Cluster:
    def __init__(self, cid):
        self.cid = cid
        self.inj = deque()
        self.cores = []


class GPU:
    def __init__(self, **kw):
        self.clusters_n = int(kw.get('clusters', 15))
        self.cores = int(kw.get('cores', 1))
        self.n_mem = int(kw.get('n_mem', 6))
        self.sched = kw.get('sched', 'gto')
        self.s = int(kw.get('s', 2))
        self.pool = int(kw.get('pool', 6))
        self.rtt = int(kw.get('rtt', 170))
        self.hot_eff = float(kw.get('hot_eff', 0.97))
        self.inj = int(kw.get('inj', 9))
        self.l1lat = int(kw.get('l1lat', 35))
        self.alu_lat = int(kw.get('alu_lat', 6))
        self.brbub = int(kw.get('brbub', 0))
        self.param_lat = int(kw.get('param_lat', 300))
        self.param_hit = int(kw.get('param_hit', 10))
        self.trace = int(kw.get('trace', 0))
        self.il1 = int(kw.get('il1', 0))
        self.fetch = int(kw.get('fetch', 0))
        self.fixbins = int(kw.get('fixbins', 0))
        self.ctas = int(kw.get('ctas', 128))
        self.rng = random.Random(int(kw.get('seed', 1)))
        self.seed = int(kw.get('seed', 1))
        self.nslice = 2 * self.n_mem
        self.chunk_slice = [0, 1, 2, 3]
        self.ld_off = self.rng.randrange(self.nslice)
        self.fold = int(kw.get('fold', 0))
        if 'ld_off' in kw:
            self.ld_off = int(kw['ld_off']) % self.nslice
        # jseed: reseed the crossbar's random draws alone (the load mapping and,
        # with fixbins, the bins stay those of `seed`): a perturbation probe
        if 'jseed' in kw:
            self.rng = random.Random(int(kw['jseed']) + 7919)
        self.dyn = 0
        self.ctas_done = 0
        self.l1_hit = self.l1_hr = self.l1_miss = 0
        self.tx_total = self.hot_total = 0
        self.cl = [Cluster(c) for c in range(self.clusters_n)]
        self.sms = []
        for c in self.cl:
            for k in range(self.cores):
                sm = SM(len(self.sms), c, self)
                c.cores.append(sm)
                self.sms.append(sm)
        self.rr = [0] * self.nslice

    def line_of(self, w, inst):
        # byte address of the warp's 32 bytes: cta*256 + warp*32 + k*32768
        return (w.cta * 256 + (w.wid % 8) * 32 + inst[3] * 32768) // 128

    def line_slice(self, line):
        q = line // 2
        if self.fold == 1 and q >= 128:
            q -= 128
        elif self.fold == 2 and q >= 128:
            q += 1
        return (q + self.ld_off) % self.nslice

    def run(self):
        n_cta = self.ctas
        next_cta = 0
        t = 0
        hot = self.chunk_slice[0]
        hot_busy = 0
        first_hot = None
        last_hot = 0
        idle_after = 0
        seq = 0
        prof = {}
        early = {}
        act_prof = []
        pending = []   # replies: (time, seq, sm, kind, payload)
        while self.ctas_done < n_cta:
            t += 1
            self.g_t = t
            if t > 200000:
                raise SystemExit('stuck')
            # CTA issue: one per core per cycle
            for sm in self.sms:
                if next_cta < n_cta and sm.free_slot() >= 0:
                    sm.launch(next_cta, t)
                    next_cta += 1
            # replies arriving
            while pending and pending[0][0] <= t:
                _, _, sm, kind, p = heapq.heappop(pending)
                if kind == 'at':
                    p.natom -= 1
                    if p.natom == 0:
                        sm.release(p, 'r14', t)
                else:
                    sm.lines[p] = t
                    for (w, reg) in sm.pendline.pop(p, []):
                        sm.release(w, reg, t)
            # request crossbar: each slice accepts one head packet
            heads = {}
            for c in self.cl:
                if c.inj:
                    heads.setdefault(c.inj[0][0], []).append(c)
            got_hot = False
            for sl, cls in heads.items():
                if sl == hot and self.rng.random() > self.hot_eff:
                    continue
                n = len(self.cl)
                cls.sort(key=lambda c: (c.cid - self.rr[sl] - 1) % n)
                c = cls[0]
                self.rr[sl] = c.cid
                dest, sm, kind, p = c.inj.popleft()
                seq += 1
                heapq.heappush(pending, (t + self.rtt, seq, sm, kind, p))
                if sl == hot:
                    got_hot = True
            if t < 2000:
                b = t // 100
                early.setdefault(b, [0, 0, 0, 0])
                early[b][0] += got_hot
                early[b][1] += sum(1 for sm in self.sms for w in sm.warps if w.natom > 0)
                early[b][2] += sum(len(c.inj) for c in self.cl)
                early[b][3] += sum(1 for sm in self.sms for w in sm.warps if not w.done and w.pc < 18)
            if got_hot:
                hot_busy += 1
                if first_hot is None:
                    first_hot = t
                last_hot = t
            elif first_hot is not None:
                idle_after += 1
                prof[t // 1000] = prof.get(t // 1000, 0) + 1
            if t % 1000 == 0:
                act_prof.append(sum(1 for sm in self.sms if sm.ctas_run))
            for sm in self.sms:
                sm.replies(t)
                sm.ldst(t)
                sm.schedule(t)
                if self.fetch:
                    sm.frontend(t)
        insns = 1024 * 39
        per_sm = sorted((sm.last_done for sm in self.sms))
        if self.trace:
            print('hot idle per 1000 cycles', [prof.get(i, 0) for i in range(t // 1000 + 1)])
            print('SMs with CTAs every 1000 cycles', act_prof)
            print('CTAs per SM', [sm.g_ctas for sm in self.sms])
        self.early = early
        self.prof = [prof.get(i, 0) for i in range(t // 1000 + 1)]
        return dict(cycles=t, hot_busy=hot_busy, first_hot=first_hot, last_hot=last_hot,
                    hot_idle_inside=last_hot - first_hot + 1 - hot_busy,
                    tx_per_atom=self.tx_total / (16.0 * n_cta), hot_per_atom=self.hot_total / (16.0 * n_cta),
                    l1=(self.l1_hit, self.l1_hr, self.l1_miss),
                    sm_last=(per_sm[0], per_sm[len(per_sm) // 2], per_sm[-1]))


if __name__ == '__main__':
    kw = dict(a.split('=') for a in sys.argv[1:])
    r = GPU(**kw).run()
    print(' '.join('%s=%s' % (k, v) for k, v in r.items()))
