#!/usr/bin/env python3
"""HEIF region items (rgan, ISO/IEC 23008-12:2022 section 6.10), standard
library only: adds one to a HEIF file, or reads every one a file holds,
independently of CropKit's Swift reader, for the tests.

    heif-regions.py add IN OUT REGIONS.json   # {"reference":[w,h],"wide":false,"geometries":[...]}
    heif-regions.py read FILE                 # JSON: the primary's canvas, clap, transforms, regions

A geometry is ["point",x,y], ["rectangle",x,y,w,h], ["ellipse",x,y,rx,ry],
["polygon",[[x,y],...]], ["polyline",[[x,y],...]] or ["mask",4|5], in the
item's reference space.
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heifedit import Heif, boxes  # noqa: E402

TYPES = {"point": 0, "rectangle": 1, "ellipse": 2, "polygon": 3, "polyline": 6}


def encode(spec):
    wide = spec.get("wide", False)
    fmt_u, fmt_s = (">I", ">i") if wide else (">H", ">h")
    out = bytes([0, 1 if wide else 0])
    out += struct.pack(fmt_u, spec["reference"][0]) + struct.pack(fmt_u, spec["reference"][1])
    out += bytes([len(spec["geometries"])])
    for g in spec["geometries"]:
        kind = g[0]
        if kind == "mask":
            out += bytes([g[1]]) + struct.pack(fmt_s, 0) * 2 + struct.pack(fmt_u, 8) * 2
            if g[1] == 5:
                out += bytes([0]) + bytes(8)
            continue
        out += bytes([TYPES[kind]])
        if kind == "point":
            out += struct.pack(fmt_s, g[1]) + struct.pack(fmt_s, g[2])
        elif kind in ("rectangle", "ellipse"):
            out += struct.pack(fmt_s, g[1]) + struct.pack(fmt_s, g[2])
            out += struct.pack(fmt_u, g[3]) + struct.pack(fmt_u, g[4])
        else:
            out += struct.pack(fmt_u, len(g[1]))
            for x, y in g[1]:
                out += struct.pack(fmt_s, x) + struct.pack(fmt_s, y)
    return out


def decode(data):
    wide = data[1] & 1
    size = 4 if wide else 2
    pos = 2

    def field(signed):
        nonlocal pos
        value = int.from_bytes(data[pos:pos + size], "big", signed=signed)
        pos += size
        return value

    reference = [field(False), field(False)]
    count = data[pos]
    pos += 1
    geometries = []
    for _ in range(count):
        kind = data[pos]
        pos += 1
        if kind == 0:
            geometries.append(["point", field(True), field(True)])
        elif kind in (1, 2):
            geometries.append(["rectangle" if kind == 1 else "ellipse", field(True), field(True),
                               field(False), field(False)])
        elif kind in (3, 6):
            n = field(False)
            geometries.append(["polygon" if kind == 3 else "polyline",
                               [[field(True), field(True)] for _ in range(n)]])
        elif kind in (4, 5):
            geometries.append(["mask", kind, field(True), field(True), field(False), field(False)])
            if kind == 5:
                pos = len(data)
        else:
            raise ValueError(f"geometry type {kind}")
    return {"reference": reference, "geometries": geometries}


def read(path):
    heif = Heif(open(path, "rb").read())
    canvas, clap, transforms = None, None, []
    for _, kind, body in heif.properties(heif.primary):
        if kind == b"ispe":
            canvas = list(struct.unpack(">II", body[4:12]))
        elif kind == b"clap":
            n = struct.unpack(">8i", body[:32])
            w, h = n[0] / n[1], n[2] / n[3]
            cx, cy = n[4] / n[5], n[6] / n[7]
            clap = [int((canvas[0] - w) / 2 + cx), int((canvas[1] - h) / 2 + cy), int(w), int(h)]
        elif kind in (b"irot", b"imir"):
            transforms.append([kind.decode(), body[0]])
    regions = []
    for kind, source, to in heif.refs:
        if kind == b"cdsc" and heif.types.get(source) == b"rgan":
            region = decode(heif.data[source])
            region["item"], region["describes"] = source, to
            region["primary"] = heif.primary in to
            regions.append(region)
    return {"canvas": canvas, "clap": clap, "transforms": transforms, "regions": regions}


if __name__ == "__main__":
    if sys.argv[1] == "add":
        heif = Heif(open(sys.argv[2], "rb").read())
        spec = json.load(open(sys.argv[4]))
        heif.add_item(b"rgan", encode(spec), describes=heif.primary)
        open(sys.argv[3], "wb").write(heif.write())
    else:
        print(json.dumps(read(sys.argv[2])))
