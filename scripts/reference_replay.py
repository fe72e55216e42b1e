#!/usr/bin/env python3
"""An independent exact reference for the mapping contract
(Sources/CropGeometry/CropGeometry.docc/MappingContract.md).

Reads failure records (JSON Lines) and prints, per record, the contract's
answer computed with Python's fractions (exact rationals on the Double values
as given). With --compare OUT it checks `cropkit replay` output line by line.

    python3 scripts/reference_replay.py records.jsonl --compare replayed.jsonl
"""
import json
import math
import sys
from fractions import Fraction as F

MILLIONTH = F(1, 1_000_000)


def num(v):
    if isinstance(v, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[v]
    return float(v)


def mapping(r):
    sw, sh = num(r["source"]["width"]), num(r["source"]["height"])
    vw, vh = num(r["viewport"]["width"]), num(r["viewport"]["height"])
    s = r["selection"]
    x, y, w, h = num(s["x"]), num(s["y"]), num(s["width"]), num(s["height"])
    mode = r.get("mode", "aspectFit")
    scale = num(r.get("imageScale", 1))
    zoom = r.get("zoom", {})
    z = num(zoom.get("scale", 1))
    off = zoom.get("offset", {"x": 0, "y": 0})
    ox, oy = num(off["x"]), num(off["y"])
    o = num(r.get("orientation", 1))
    values = [sw, sh, vw, vh, x, y, w, h, scale, z, ox, oy, o]
    if any(not math.isfinite(v) for v in values):
        return None
    if sw <= 0 or sh <= 0 or sw != int(sw) or sh != int(sh) or sw > 2**53 or sh > 2**53:
        return None
    if vw <= 0 or vh <= 0 or w <= 0 or h <= 0 or z <= 0 or scale <= 0:
        return None
    if o != int(o) or not 1 <= o <= 8:
        return None
    o = int(o)
    sw, sh = int(sw), int(sh)
    ow, oh = (sh, sw) if o >= 5 else (sw, sh)
    Vw, Vh = F(vw), F(vh)
    if mode in ("aspectFit", "aspectFill"):
        k = (min if mode == "aspectFit" else max)(Vw / ow, Vh / oh)
        dw, dh = ow * k, oh * k
        dx, dy = (Vw - dw) / 2, (Vh - dh) / 2
    elif mode == "scaleToFill":
        dx, dy, dw, dh = F(0), F(0), Vw, Vh
    else:
        dw, dh = ow / F(scale), oh / F(scale)
        m = mode.lower()
        dx = F(0) if "left" in m else (Vw - dw) if "right" in m else (Vw - dw) / 2
        dy = F(0) if "top" in m else (Vh - dh) if "bottom" in m else (Vh - dh) / 2
    Z = F(z)
    dx, dy, dw, dh = dx * Z - F(ox), dy * Z - F(oy), dw * Z, dh * Z
    cx0 = max(F(x), dx, F(0))
    cy0 = max(F(y), dy, F(0))
    cx1 = min(F(x) + F(w), dx + dw, Vw)
    cy1 = min(F(y) + F(h), dy + dh, Vh)
    if cx1 <= cx0 or cy1 <= cy0:
        return None

    def snap(p):
        n = round(p)
        return F(n) if abs(p - n) <= MILLIONTH else p

    px0 = math.floor(snap((cx0 - dx) * ow / dw))
    py0 = math.floor(snap((cy0 - dy) * oh / dh))
    px1 = math.ceil(snap((cx1 - dx) * ow / dw))
    py1 = math.ceil(snap((cy1 - dy) * oh / dh))
    px0, px1 = min(max(px0, 0), ow), min(max(px1, 0), ow)
    py0, py1 = min(max(py0, 0), oh), min(max(py1, 0), oh)
    if px1 <= px0 or py1 <= py0:
        return None
    result = {"x": px0, "y": py0, "width": px1 - px0, "height": py1 - py0}
    if o != 1:
        X0, Y0, X1, Y1 = px0, py0, px1, py1
        table = {
            2: (sw - X1, Y0, sw - X0, Y1), 3: (sw - X1, sh - Y1, sw - X0, sh - Y0),
            4: (X0, sh - Y1, X1, sh - Y0), 5: (Y0, X0, Y1, X1), 6: (Y0, sh - X1, Y1, sh - X0),
            7: (sw - Y1, sh - X1, sw - Y0, sh - X0), 8: (sw - Y1, X0, sw - Y0, X1),
        }
        a, b, c, d = table[o]
        result["stored"] = {"x": a, "y": b, "width": c - a, "height": d - b}
    return result


def main():
    records = [line for line in open(sys.argv[1]) if line.strip()]
    if len(sys.argv) > 3 and sys.argv[2] == "--compare":
        outputs = [line for line in open(sys.argv[3]) if line.strip()]
        bad = 0
        for i, (line, out) in enumerate(zip(records, outputs), 1):
            want = mapping(json.loads(line))
            got = json.loads(out).get("result")
            if want != got:
                bad += 1
                if bad <= 10:
                    print(f"line {i}: reference {want}, cropkit {got}\n  {line.strip()}")
        print(f"{len(records) - bad} agree, {bad} differ")
        sys.exit(1 if bad else 0)
    for line in records:
        print(json.dumps(mapping(json.loads(line))))


if __name__ == "__main__":
    main()
