#!/usr/bin/env python3
"""Checks a cropped animation against its source with Pillow, an independent
decoder and compositor: every displayed frame of OUTPUT must equal SOURCE's
cut to the rect (fully transparent pixels compare equal whatever their
colour), every duration and the loop count must be equal.

  animation-check.py SOURCE OUTPUT X,Y,W,H [--lossy]

Prints one line: 'ok FRAMES PLAYS TOTAL_MS' (OUTPUT as Pillow reads it:
its frames, its plays with 0 for forever, its summed durations) or
'mismatch: ...'; exit 0 or 1. With --lossy
the frames may differ by a mean of 1 and a 99th percentile of 4 codes.
"""
import sys
from PIL import Image, ImageSequence


def frames(path):
    im = Image.open(path)
    out = []
    for frame in ImageSequence.Iterator(im):
        out.append((frame.convert("RGBA").copy(), frame.info.get("duration", 0)))
    return out, im.info.get("loop", 1 if im.format != "GIF" else None), im.format


def main():
    source, output, rect = sys.argv[1], sys.argv[2], [int(v) for v in sys.argv[3].split(",")]
    lossy = "--lossy" in sys.argv
    x, y, w, h = rect
    src, src_loop, src_format = frames(source)
    out, out_loop, out_format = frames(output)
    if src_format == "PNG" and Image.open(source).info.get("default_image"):
        src = src[1:]
    if out_format == "PNG" and Image.open(output).info.get("default_image"):
        out = out[1:]
    problems = []
    if len(src) != len(out):
        problems.append(f"{len(out)} frames, the source has {len(src)}")
    def plays(loop, fmt):
        if fmt == "GIF":
            return 1 if loop is None else (0 if loop == 0 else loop + 1)
        return loop
    if plays(src_loop, src_format) != plays(out_loop, out_format):
        problems.append(f"loop {out_loop} ({out_format}) against {src_loop} ({src_format})")
    errors = []
    for i, ((a, da), (b, db)) in enumerate(zip(src, out)):
        if round(float(da)) != round(float(db)):
            problems.append(f"frame {i} lasts {db} ms, the source's {da} ms")
        cut = a.crop((x, y, x + w, y + h))
        if b.size != (w, h):
            problems.append(f"frame {i} is {b.size}, not {w}x{h}")
            continue
        pa, pb = cut.tobytes(), b.tobytes()
        bad = 0
        for p in range(0, len(pa), 4):
            if pa[p + 3] == 0 and pb[p + 3] == 0:
                continue
            if lossy:
                errors.extend(abs(pa[p + k] - pb[p + k]) for k in range(4))
            elif pa[p:p + 4] != pb[p:p + 4]:
                bad += 1
        if bad:
            problems.append(f"frame {i}: {bad} pixels differ")
    if lossy and errors:
        errors.sort()
        mean = sum(errors) / len(errors)
        p99 = errors[int(0.99 * (len(errors) - 1))]
        if mean > 1 or p99 > 4:
            problems.append(f"lossy error mean {mean:.2f}, p99 {p99}")
    if problems:
        print("mismatch: " + "; ".join(problems[:5]))
        return 1
    total = sum(float(d) for _, d in out)
    print(f"ok {len(out)} {plays(out_loop, out_format)} {round(total)}")
    return 0


sys.exit(main())
