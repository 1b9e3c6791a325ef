#!/usr/bin/env python3
"""Line buffers (`plan --tile`) next to patch-based tiling with recomputed halos: an ESTIMATE.

For vww_96_int8 (with and without --overlap) and the MobileNetV2 224 model written by
<build>/bench/write_mobilenet_v2: if each segment `plan --tile` runs with line buffers ran as
n x n patches (or, for comparison, n x 1 row bands) recomputing their halos, how many bytes
would the patch buffers take, how many MACs would be recomputed, would the head go down?
Nothing runs tiled: figures come from shapes (`inspect --json`) and plans (`plan --tile --json`).

Assumptions (why it is an estimate):
  - each inner map of the segment gets one static buffer sized for its largest patch region;
    a map's buffer is live from its producer's step to its last reader's step within a patch;
    buffers are rounded up to the plan's alignment and fragmentation is ignored;
  - a segment input read in regions narrower than its width is copied into a dense patch
    buffer (the "+copy" figures; the head estimate includes it); full-width rows are read in
    place; the sink is written through a strided view, so it needs no patch buffer;
  - head estimate = max(segment step - line-buffer windows + patch peak, floor), where the
    floor is the most bytes live at one step outside this segment (the tool's per-step live
    bytes, minus min(out - displacement, in) per kernel-approved overlap pair with --overlap)
    and the other segments' steps; with --overlap the tool's head stands for the segment step;
  - stride and padding are inferred from shapes (SAME: out = ceil(in / s), pad before =
    floor(max((out - 1) s + k - in, 0) / 2); VALID: out = floor((in - k) / s) + 1), checked
    against inspect's MACs; PAD is Keras's correct_pad (before = in % 2, after = 1); a segment
    with any other op (a pool: its window is not in inspect's JSON) is refused;
  - the verdict counts every layout in the tables whose estimated head (with copies) is lower.

Receptive field, per axis, of output rows [a, b) on an input of height H:
  CONV_2D / DEPTHWISE_CONV_2D (k, s, p):  [max(0, a s - p), min(H, (b - 1) s - p + k))
  PAD with pb rows before:                [max(0, a - pb), min(H, b - pb))
  ADD / RELU / RELU6:                     identity; a map several ops read: their bounding box.
MACs of an op on a patch = output area x MACs per output pixel (CONV_2D kh kw Cin Cout,
DEPTHWISE_CONV_2D kh kw C; padding taps counted, as inspect counts them). Extra MACs = sum
over all patches - the segment's MACs (line buffers compute every pixel once).

  bench/halo_recompute_estimate.py [--build build/release] [--shared ../shared] [--work DIR]
      [--grids 1-8] [--max-extra-macs 10]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

PROG = "halo_recompute_estimate"
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("MICROARENA_SHARED_DIR", os.path.normpath(os.path.join(REPO, "..", "shared")))


def run(cmd, out_path=None):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{PROG}: {' '.join(cmd)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    if out_path:  # kept in --work for a look at what the estimate read
        with open(out_path, "w") as out:
            out.write(done.stdout)
    return done.stdout


def align(n, to):
    return (n + to - 1) // to * to


def area(region):
    (r0, r1), (c0, c1) = region
    return max(0, r1 - r0) * max(0, c1 - c0)


def bounding_box(a, b):
    return b if a is None else tuple((min(x[0], y[0]), max(x[1], y[1])) for x, y in zip(a, b))


def splits(n, parts):
    return [(i * n // parts, (i + 1) * n // parts) for i in range(parts)]


def infer_stride_pad(n, n_out, k):
    """Stride and pad-before of a window op along one axis (inspect's JSON has no options)."""
    found = set()
    for s in (1, 2, 3, 4):
        if n_out == -(-n // s):
            found.add((s, max((n_out - 1) * s + k - n, 0) // 2))
        if n >= k and n_out == (n - k) // s + 1:
            found.add((s, 0))
    if len(found) != 1:
        sys.exit(f"{PROG}: cannot infer stride/padding of a {k}-tap window {n} -> {n_out}: {found}")
    return found.pop()


class Model:
    """Operators and tensors of subgraph 0 (from `inspect --json`)."""

    def __init__(self, inspect):
        sg = inspect["subgraphs"][0]
        self.tensors = {t["index"]: t for t in sg["tensors"]}
        self.ops, self.total_macs = sg["operators"], sg["total_macs"]
        self.producer = {o: op["index"] for op in self.ops for o in op["outputs"]}

    def shape(self, t):
        return self.tensors[t]["shape"]  # [1, H, W, C]

    def is_map(self, t):
        return self.tensors[t]["kind"] in ("activation", "input", "output")

    def geometry(self, op):
        """How an op maps output regions to input regions, and its MACs per output pixel."""
        kind, ins, out = op["op"], op["inputs"], op["outputs"][0]
        if kind in ("CONV_2D", "DEPTHWISE_CONV_2D"):
            (_, h, w, c_in), (_, h_out, w_out, c_out) = self.shape(ins[0]), self.shape(out)
            kh, kw = self.shape(ins[1])[1:3]  # weights [O, kh, kw, I] or [1, kh, kw, C]
            (sh, ph), (sw, pw) = infer_stride_pad(h, h_out, kh), infer_stride_pad(w, w_out, kw)
            per_px = kh * kw * c_out * (c_in if kind == "CONV_2D" else 1)
            if per_px * h_out * w_out != op["macs"]:  # the inferred geometry must give inspect's MACs
                sys.exit(f"{PROG}: op {op['index']}: {per_px * h_out * w_out} MACs inferred, {op['macs']} inspected")
            return {"kind": "window", "k": (kh, kw), "s": (sh, sw), "p": (ph, pw), "per_px": per_px}
        if kind in ("PAD", "PADV2"):
            (_, h, w, _), (_, h_out, w_out, _) = self.shape(ins[0]), self.shape(out)
            before = (h % 2, w % 2)
            if (h_out - h, w_out - w) != (before[0] + 1, before[1] + 1):
                sys.exit(f"{PROG}: op {op['index']}: PAD {h}x{w} -> {h_out}x{w_out} is not Keras's correct_pad")
            return {"kind": "pad", "before": before, "per_px": 0}
        if kind in ("ADD", "RELU", "RELU6"):
            return {"kind": "same", "per_px": 0}
        sys.exit(f"{PROG}: op {op['index']} ({kind}) in a tiled segment has no receptive field rule here")

    def input_region(self, g, region, t):
        """Region of input map t that an op of geometry g reads to make `region` ((r0, r1), (c0, c1))."""
        sizes = self.shape(t)[1:3]
        if g["kind"] == "window":
            return tuple((max(0, a * s - p), min(n, (b - 1) * s - p + k))
                         for (a, b), k, s, p, n in zip(region, g["k"], g["s"], g["p"], sizes))
        if g["kind"] == "pad":
            return tuple((max(0, a - pb), min(n, b - pb)) for (a, b), pb, n in zip(region, g["before"], sizes))
        return region


class Segment:
    """Ops first..last that the tool tiles, seen as one unit to run patch by patch."""

    def __init__(self, model, first, last):
        self.m, self.first, self.last = model, first, last
        self.ops = model.ops[first:last + 1]
        self.geo = [model.geometry(op) for op in self.ops]
        self.sink = self.ops[-1]["outputs"][0]
        self.inner = [op["outputs"][0] for op in self.ops[:-1]]
        self.inputs, self.first_use, self.last_use = [], {}, {}
        for step, op in enumerate(self.ops):
            for t in filter(model.is_map, op["inputs"]):
                self.first_use.setdefault(t, step)
                self.last_use[t] = step
                if t not in self.inner and t not in self.inputs:
                    self.inputs.append(t)
        self.macs = sum(op["macs"] or 0 for op in self.ops)

    def regions(self, patch):
        """Every map's region needed for one sink patch, walking the ops backwards."""
        need = {self.sink: patch}
        for op, g in zip(reversed(self.ops), reversed(self.geo)):
            out = op["outputs"][0]
            if out in need:
                for t in filter(self.m.is_map, op["inputs"]):
                    need[t] = bounding_box(need.get(t), self.m.input_region(g, need[out], t))
        return need

    def estimate(self, rows, cols, alignment):
        """Patch buffers and extra MACs of a rows x cols grid over the sink."""
        _, h, w, _ = self.m.shape(self.sink)
        inner, copy, macs = {}, {}, 0
        for r in splits(h, rows):
            for c in splits(w, cols):
                if r[0] == r[1] or c[0] == c[1]:
                    continue  # more parts than rows or columns: an empty patch does no work
                need = self.regions((r, c))
                macs += sum(area(need[op["outputs"][0]]) * g["per_px"] for op, g in zip(self.ops, self.geo))
                for t in self.inner:
                    inner[t] = max(inner.get(t, 0), area(need[t]) * self.m.shape(t)[3])
                for t in self.inputs:  # full-width rows of an input are dense: read in place
                    narrow = need[t][1] != (0, self.m.shape(t)[2])
                    copy[t] = max(copy.get(t, 0), area(need[t]) * self.m.shape(t)[3] if narrow else 0)
        inner = {t: align(b, alignment) for t, b in inner.items()}
        copy = {t: align(b, alignment) for t, b in copy.items()}

        def peak(with_copy):  # within a patch the ops run in order: a map lives producer -> last reader
            return max(sum(inner[t] for t in self.inner if self.m.producer[t] - self.first <= step <= self.last_use[t])
                       + with_copy * sum(copy[t] for t in self.inputs if self.first_use[t] <= step <= self.last_use[t])
                       for step in range(len(self.ops)))
        return {"sum": sum(inner.values()), "peak": peak(False), "peak_copy": peak(True), "extra": macs - self.macs}


def floor_outside(plan, segments, model, overlap):
    """Most bytes live at one step outside the segments (and its op): patches cannot go below it."""
    inside = {i for s in segments for i in range(s.first, s.last + 1)}
    saved = {}
    if overlap:  # an approved pair lets the output reuse up to min(out - displacement, in) bytes
        for pair in plan["overlaps"]:
            op = model.producer[pair["output_tensor"]]
            a, b = (model.tensors[pair[k]]["size_bytes"] for k in ("input_tensor", "output_tensor"))
            saved[op] = saved.get(op, 0) + max(0, min(b - pair["min_displacement_bytes"], a))
    return max((st["tensor_bytes"] - saved.get(st["op_index"], 0), st["op_index"])
               for st in plan["steps"] if st["op_index"] not in inside)


def report(name, inspect, plan, overlap, grids, max_extra):
    """Prints one model's tables and verdict."""
    m, tiling = Model(inspect), plan["tiling"]
    alignment, head = plan["alignment"], plan["head_bytes"]
    segs = [Segment(m, s["first_op"], s["last_op"]) for s in tiling["segments"]]
    floor, floor_op = floor_outside(plan, segs, m, overlap)
    step_bytes = {st["op_index"]: st["tensor_bytes"] for st in plan["steps"]}
    seg_step = [max(step_bytes[i] for i in range(s.first, s.last + 1)) for s in segs]
    print(f"=== {name}: tiled head {head:,} B ({tiling['mode']}), untiled greedy head "
          f"{tiling['untiled_greedy_head_bytes']:,} B, model MACs {m.total_macs:,}\n"
          f"    steps outside the segments need >= {floor:,} B (op {floor_op}){' with overlap' if overlap else ''}")
    wins = []  # (extra MACs % of model, saved bytes, layout) of every layout that lowers the head
    for i, (s, sj) in enumerate(zip(segs, tiling["segments"])):
        win = sum(w["bytes"] for w in sj["windows"])
        win_aligned = sum(align(w["bytes"], alignment) for w in sj["windows"])
        step = head if overlap else seg_step[i]
        others = max([floor] + seg_step[:i] + seg_step[i + 1:])
        _, h, w, c = m.shape(s.sink)
        print(f"--- ops {s.first}-{s.last}: sink t{s.sink} {h}x{w}x{c}, inputs {', '.join(f't{t}' for t in s.inputs)},"
              f" {len(s.inner)} inner maps, MACs {s.macs:,} ({100 * s.macs / m.total_macs:.1f} % of model)\n"
              f"    line-buffer windows {win:,} B ({win_aligned:,} B aligned); segment step {step:,} B;"
              f" other steps >= {others:,} B")
        print(f"{'patches n x n: buffers':>38}{'xMAC %':>15}{'head':>11}{'saved':>11} |"
              f"{'row bands n x 1:':>17}{'xMAC %':>18}{'head':>11}{'saved':>11}\n"
              f"{'n':>5}{'sum':>11}{'peak':>11}{'peak+copy':>11}{'seg':>7}{'model':>8}{'est.':>11}{'vs tool':>11} |"
              f"{'peak+copy':>11}{'seg':>7}{'model':>8}{'est.':>11}{'vs tool':>11}")

        def columns(n, cols, with_buffers):  # one layout's figures, remembered for the verdict
            g = s.estimate(n, cols, alignment)
            est = max(step - win_aligned + g["peak_copy"], others)
            seg_pct, model_pct = 100 * g["extra"] / s.macs, 100 * g["extra"] / m.total_macs
            if head - est > 0:
                wins.append((model_pct, head - est, f"{n}x{cols} on ops {s.first}-{s.last}"))
            buffers = f"{g['sum']:>11,}{g['peak']:>11,}" if with_buffers else ""
            return f"{buffers}{g['peak_copy']:>11,}{seg_pct:>7.1f}{model_pct:>8.2f}{est:>11,}{head - est:>+11,}"
        for n in grids:
            print(f"{n:>5}{columns(n, n, True)} |{columns(n, 1, False) if 1 < n <= h else ''}")
        if h not in grids:  # one-row bands: the row-band extreme
            print(f"{h:>5}{'':70} |{columns(h, 1, False)}")
    if not wins:
        print(f"    verdict: no layout above lowers the tiled head of {head:,} B")
        return
    pct, saved, layout = min(wins)
    best = max((x for x in wins if x[0] <= max_extra), key=lambda x: x[1], default=None)
    print(f"    verdict: patches lower the head from {pct:.2f} % extra MACs of the model ({layout}: {saved:,} B);"
          f" within {max_extra:g} %: " + (f"yes, at most {best[1]:,} B ({best[2]}, {best[0]:.2f} %)" if best else "no"))


def parse_grids(text):
    """'1-8' or '1,2,4' or '1-4,8' -> sorted grid sizes."""
    try:
        sizes = {n for part in text.split(",") for lo, _, hi in [part.partition("-")]
                 for n in range(int(lo), int(hi or lo) + 1)}
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of grid sizes: {text!r}")
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"grid sizes must be >= 1: {text!r}")
    return sorted(sizes)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(REPO, "build", "release"),
                        help="build dir holding tools/microarena/microarena and bench/write_mobilenet_v2")
    parser.add_argument("--shared", default=SHARED,
                        help="shared data dir with models/ (default $MICROARENA_SHARED_DIR or <repo>/../shared)")
    parser.add_argument("--work", help="keep the generated model and JSON here (default: a temporary dir)")
    parser.add_argument("--grids", type=parse_grids, default="1-8", help="grid sizes n, e.g. 1-8 or 2,4,8")
    parser.add_argument("--max-extra-macs", type=float, default=10.0, metavar="PERCENT",
                        help="the verdict's limit on extra MACs, in percent of the whole model's MACs")
    args = parser.parse_args()
    cli = os.path.join(args.build, "tools", "microarena", "microarena")
    writer = os.path.join(args.build, "bench", "write_mobilenet_v2")
    vww = os.path.join(args.shared, "models", "vww_96_int8.tflite")
    if not os.path.isfile(vww):
        sys.exit(f"{PROG}: model {vww} is missing (pass --shared or set MICROARENA_SHARED_DIR)")
    for tool in (cli, writer):
        if not os.access(tool, os.X_OK):
            sys.exit(f"{PROG}: {tool} is missing (cmake --build {args.build}, or pass --build)")
    with tempfile.TemporaryDirectory() as work:
        work = args.work or work
        os.makedirs(work, exist_ok=True)
        mnv2 = os.path.join(work, "mobilenet_v2_224.tflite")
        run([writer, "-o", mnv2])  # the defaults: 224 x 224, width 1.0

        def figures(model, label, *flags):  # inspect and `plan --tile [flags]`, as JSON
            inspect = json.loads(run([cli, "inspect", model, "--json"], os.path.join(work, f"{label}_inspect.json")))
            plan = json.loads(run([cli, "plan", model, "--tile", *flags, "--json"],
                                  os.path.join(work, f"{label}_tile{''.join(f.replace('--', '_') for f in flags)}.json")))
            return inspect, plan
        cases = [("vww_96_int8 --tile", *figures(vww, "vww"), False),
                 ("vww_96_int8 --tile --overlap", *figures(vww, "vww", "--overlap"), True),
                 ("MobileNetV2 224 w1.0 --tile", *figures(mnv2, "mnv2"), False)]
        for i, (name, inspect, plan, overlap) in enumerate(cases):
            print("\n" if i else "", end="")
            report(name, inspect, plan, overlap, args.grids, args.max_extra_macs)


if __name__ == "__main__":
    main()
