#!/usr/bin/env python3
"""Checks a cropped animation against its source with a compositor that is
not CropKit's: every displayed frame of OUTPUT must equal SOURCE's cut to
the rect (fully transparent pixels compare equal whatever their colour),
every duration and the loop count (in plays) must be equal.

  animation-check.py SOURCE OUTPUT X,Y,W,H [--lossy]
  animation-check.py --list FILE      (lines: SOURCE TAB OUTPUT TAB X,Y,W,H [TAB lossy])

Prints one line per check: 'ok FRAMES PLAYS TOTAL_MS' (OUTPUT as read here:
its frames, its plays with 0 for forever, its summed durations) or
'mismatch: ...'; exit 0 when every check is ok, else 1. With --lossy the
frames may differ by a mean of 1 and a 99th percentile of 4 codes.

The compositors:
- GIF and APNG: a reference written here from the specifications (GIF89a
  section 23; the APNG specification, "Dispose and blend"), because
  Pillow's ImageSequence composites disposal wrongly (Pillow #8746) and
  fills a GIF's disposed area with its background colour where browsers
  show transparency. Pillow only decodes each frame's coded data, as a
  still image synthesized from the frame's own bytes: a GIF frame's LZW
  data with its colour table, an APNG frame's fdAT stream behind the
  IHDR, PLTE and tRNS.
- Animated WebP: Pillow, which composites with libwebp's WebPAnimDecoder.

Rules where the specifications leave a choice, as browsers take them:
the canvas starts fully transparent; GIF disposal to background clears the
frame's rect to transparent; disposal to previous on the first frame
clears it (APNG says so; browsers do so for GIF); the first GIF
NETSCAPE2.0 loop extension counts; APNG 'over' is the specification's
alpha compositing rounded to the nearest code. 16-bit APNG frames are read
as Pillow reads them, 8 bits a sample.
"""
import io
import struct
import sys
import zlib

from PIL import Image, ImageSequence

CLEAR = (0, 0, 0, 0)


class Refused(Exception):
    pass


# --- GIF ---------------------------------------------------------------------


def gif_timeline(data):
    """Yields (canvas RGBA image, duration ms); returns plays via .plays."""
    if data[:6] not in (b"GIF87a", b"GIF89a"):
        raise Refused("not a GIF")
    width, height, flags = struct.unpack("<HHB", data[6:11])
    pos = 13
    global_table = None
    if flags & 0x80:
        size = 3 << ((flags & 7) + 1)
        global_table = data[pos:pos + size]
        pos += size
    frames = []
    plays = 1
    saw_loop = False
    control = None
    while pos < len(data):
        block = data[pos]
        if block == 0x3B:
            break
        if block == 0x21:
            label = data[pos + 1]
            pos += 2
            subs = []
            while data[pos] != 0:
                subs.append(data[pos + 1:pos + 1 + data[pos]])
                pos += 1 + data[pos]
            pos += 1
            if label == 0xF9 and subs and len(subs[0]) >= 4:
                packed, delay, index = struct.unpack("<BHB", subs[0][:4])
                control = ((packed >> 2) & 7, delay, index if packed & 1 else None)
            elif label == 0xFF and subs and subs[0][:11] in (b"NETSCAPE2.0", b"ANIMEXTS1.0"):
                if len(subs) > 1 and len(subs[1]) >= 3 and subs[1][0] == 1 and not saw_loop:
                    saw_loop = True
                    repeats = struct.unpack("<H", subs[1][1:3])[0]
                    plays = 0 if repeats == 0 else repeats + 1
            continue
        if block != 0x2C:
            raise Refused(f"unknown block 0x{block:02x}")
        x, y, w, h, iflags = struct.unpack("<HHHHB", data[pos + 1:pos + 10])
        pos += 10
        table = global_table
        if iflags & 0x80:
            size = 3 << ((iflags & 7) + 1)
            table = data[pos:pos + size]
            pos += size
        start = pos
        pos += 1
        while data[pos] != 0:
            pos += 1 + data[pos]
        pos += 1
        coded = data[start:pos]
        disposal, delay, transparent = control or (0, 0, None)
        control = None
        frames.append((x, y, w, h, iflags & 0x40, table, coded, disposal, delay, transparent))

    def canvases():
        canvas = Image.new("RGBA", (width, height), CLEAR)
        for x, y, w, h, interlaced, table, coded, disposal, delay, transparent in frames:
            table = table or bytes(6)
            bits = max(1, (len(table) // 3 - 1).bit_length()) - 1
            still = (b"GIF89a" + struct.pack("<HHBBB", w, h, 0x80 | bits, 0, 0) + table
                     + b"\x2c" + struct.pack("<HHHHB", 0, 0, w, h, 0x40 if interlaced else 0)
                     + coded + b"\x3b")
            frame = Image.open(io.BytesIO(still))
            frame.load()
            indices = frame.tobytes()
            colours = Image.frombytes("L", (w, h), indices)
            palette = table + bytes(768 - len(table))
            rgb = Image.merge("RGB", [colours.point(list(palette[c::3])) for c in range(3)])
            lut = [255] * 256
            if transparent is not None:
                lut[transparent] = 0
            mask = colours.point(lut)
            before = canvas.copy() if disposal == 3 else None
            rgba = rgb.convert("RGBA")
            rgba.putalpha(mask)
            canvas.paste(rgba, (x, y), mask)
            yield canvas.copy(), delay * 10
            if disposal == 2:
                canvas.paste(CLEAR, (x, y, x + w, y + h))
            elif disposal == 3:
                canvas = before

    return canvases(), plays, (width, height)


# --- APNG --------------------------------------------------------------------


def png_chunks(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise Refused("not a PNG")
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        yield kind, data[pos + 8:pos + 8 + length]
        pos += 12 + length


OPAQUE = [255 if a == 255 else 0 for a in range(256)]
PARTIAL = [255 if 0 < a < 255 else 0 for a in range(256)]


def blend_over(canvas, frame, x, y):
    """The APNG specification's 'over', each sample rounded to nearest:
    opaque pixels replace, transparent ones leave the canvas, and only
    partly transparent ones are computed here."""
    w, h = frame.size
    alpha = frame.getchannel("A")
    canvas.paste(frame, (x, y), alpha.point(OPAQUE))
    partial = alpha.point(PARTIAL).tobytes()
    if not any(partial):
        return
    src = frame.tobytes()
    region = canvas.crop((x, y, x + w, y + h))
    dst = bytearray(region.tobytes())
    for i in (i for i, v in enumerate(partial) if v):
        p = 4 * i
        sa = src[p + 3]
        da = dst[p + 3]
        a_num = sa * 255 + da * (255 - sa)
        for k in range(3):
            num = src[p + k] * sa * 255 + dst[p + k] * da * (255 - sa)
            dst[p + k] = (2 * num + a_num) // (2 * a_num)
        dst[p + 3] = (2 * a_num + 255) // 510
    canvas.paste(Image.frombytes("RGBA", (w, h), bytes(dst)), (x, y))


def apng_timeline(data):
    header = None
    shared = []
    plays = None
    frames = []
    current = None
    default_hidden = True
    default_size = None
    for kind, body in png_chunks(data):
        if kind == b"IHDR":
            header = body
            default_size = struct.unpack(">II", body[:8])
        elif kind in (b"PLTE", b"tRNS"):
            shared.append((kind, body))
        elif kind == b"acTL":
            plays = struct.unpack(">I", body[4:8])[0]
        elif kind == b"fcTL":
            _, w, h, x, y, dn, dd, dispose, blend = struct.unpack(">IIIIIHHBB", body[:26])
            current = [w, h, x, y, dn, dd or 100, dispose, blend, []]
            frames.append(current)
        elif kind == b"IDAT":
            if current is not None and not frames[-1][8]:
                default_hidden = False
            if current is not None and not default_hidden:
                current[8].append(body)
        elif kind == b"fdAT":
            if current is None:
                raise Refused("fdAT before fcTL")
            current[8].append(body[4:])
    if plays is None:
        raise Refused("not an APNG (no acTL)")
    width, height = default_size
    if not default_hidden and frames and tuple(frames[0][:4]) != (width, height, 0, 0):
        raise Refused("the fcTL before IDAT is not the whole image (APNG specification)")

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(
            ">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    def canvases():
        canvas = Image.new("RGBA", (width, height), CLEAR)
        for i, (w, h, x, y, dn, dd, dispose, blend, parts) in enumerate(frames):
            still = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">II", w, h) + header[8:])
                     + b"".join(chunk(k, b) for k, b in shared)
                     + chunk(b"IDAT", b"".join(parts)) + chunk(b"IEND", b""))
            frame = Image.open(io.BytesIO(still)).convert("RGBA")
            before = canvas.copy() if dispose == 2 and i > 0 else None
            if blend == 0:
                canvas.paste(frame, (x, y))
            else:
                blend_over(canvas, frame, x, y)
            yield canvas.copy(), dn * 1000 / dd
            if dispose == 1 or (dispose == 2 and i == 0):
                canvas.paste(CLEAR, (x, y, x + w, y + h))
            elif dispose == 2:
                canvas = before

    return canvases(), plays, (width, height)


# --- WebP (libwebp's compositor, through Pillow) -----------------------------


def webp_timeline(path):
    im = Image.open(path)

    def canvases():
        for frame in ImageSequence.Iterator(im):
            yield frame.convert("RGBA"), frame.info.get("duration", 0)

    return canvases(), im.info.get("loop", 0), im.size


def timeline(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"GIF8":
        return gif_timeline(data)
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return apng_timeline(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return webp_timeline(path)
    raise Refused("neither GIF, PNG nor WebP")


def check(source, output, rect, lossy):
    x, y, w, h = rect
    try:
        src, src_plays, _ = timeline(source)
        out, out_plays, out_size = timeline(output)
    except Refused as error:
        return f"mismatch: {error}"
    problems = []
    if out_size != (w, h):
        problems.append(f"canvas {out_size[0]}x{out_size[1]}, not {w}x{h}")
    if src_plays != out_plays:
        problems.append(f"{out_plays} plays, the source's {src_plays}")
    errors = []
    count = 0
    total = 0.0
    src_count = 0
    for pair in zip_longest(src, out):
        (a, da), (b, db) = pair
        if a is not None:
            src_count += 1
        if b is None or a is None:
            if b is not None:
                count += 1
                total += db
            continue
        count += 1
        total += db
        if round(da) != round(db):
            problems.append(f"frame {count - 1} lasts {db} ms, the source's {da} ms")
        if b.size != (w, h):
            continue
        pa, pb = a.crop((x, y, x + w, y + h)).tobytes(), b.tobytes()
        if pa == pb:
            continue
        bad = 0
        for p in range(0, len(pa), 4):
            if pa[p + 3] == 0 and pb[p + 3] == 0:
                continue
            if lossy:
                errors.extend(abs(pa[p + k] - pb[p + k]) for k in range(4))
            elif pa[p:p + 4] != pb[p:p + 4]:
                bad += 1
        if bad:
            problems.append(f"frame {count - 1}: {bad} pixels differ")
    if count != src_count:
        problems.append(f"{count} frames, the source has {src_count}")
    if lossy and errors:
        errors.sort()
        mean = sum(errors) / len(errors)
        p99 = errors[int(0.99 * (len(errors) - 1))]
        if mean > 1 or p99 > 4:
            problems.append(f"lossy error mean {mean:.2f}, p99 {p99}")
    if problems:
        return "mismatch: " + "; ".join(problems[:5])
    return f"ok {count} {out_plays} {round(total)}"


def zip_longest(a, b):
    a, b = iter(a), iter(b)
    while True:
        x, y = next(a, None), next(b, None)
        if x is None and y is None:
            return
        yield (x or (None, 0)), (y or (None, 0))


def main():
    if sys.argv[1] == "--list":
        entries = []
        with open(sys.argv[2]) as f:
            for line in f:
                fields = line.rstrip("\n").split("\t")
                if len(fields) >= 3:
                    entries.append(fields)
    else:
        entries = [sys.argv[1:4] + (["lossy"] if "--lossy" in sys.argv else [])]
    failed = False
    for fields in entries:
        rect = [int(v) for v in fields[2].split(",")]
        try:
            said = check(fields[0], fields[1], rect, len(fields) > 3 and fields[3] == "lossy")
        except Exception as error:  # a reader that breaks is a mismatch, named
            said = f"mismatch: {type(error).__name__}: {error}"
        failed = failed or not said.startswith("ok")
        print(said, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
