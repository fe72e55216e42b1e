#!/usr/bin/env python3
"""Writes CropKit's generated bombs into FOLDER: small files that force
large work or memory, each of which `cropkit crop` must end in a correct
crop or exit 2 within 2 s and 256 MB (scripts/gauntlet runs them). Standard
library only; about 45 s and 10 MB of files.

    scripts/make-bombs.py FOLDER [TESTDATA]

With TESTDATA (the shared test data), HEIC files made from its generated
ones are written too (scripts/heifedit.py edits them): sources that hide
real pixels behind a clean aperture of their own, grids with a malformed
tile (a truncated hvcC, a tile coded smaller than its ispe, a 4:2:0 tile
among 4:4:4 ones), a grid naming one tile again and again, tiles whose
locations repeat the whole data block, and an item associated twice.
"""
import os
import struct
import sys
import zlib


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(path, width, height, depth, color, interlace, rows, extra=0):
    """A PNG whose rows (filter byte included) come from rows(); `extra`
    bytes of zeros compressed after the last row, in the same stream."""
    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, color, 0, 0, interlace)))
        compressor = zlib.compressobj(9)
        pending = b""
        for row in rows():
            pending += compressor.compress(row)
            if len(pending) >= 1 << 20:
                out.write(chunk(b"IDAT", pending))
                pending = b""
        zeros = bytes(1 << 22)
        while extra > 0:
            pending += compressor.compress(zeros[:min(extra, len(zeros))])
            extra -= len(zeros)
            if len(pending) >= 1 << 20:
                out.write(chunk(b"IDAT", pending))
                pending = b""
        pending += compressor.flush()
        out.write(chunk(b"IDAT", pending) + chunk(b"IEND", b""))


def adam7_rows(width, height, channels, pixel):
    for x0, y0, dx, dy in [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]:
        xs = range(x0, width, dx)
        if len(xs) == 0:
            continue
        for y in range(y0, height, dy):
            yield b"\0" + b"".join(pixel(x, y) for x in xs)


def segment(marker, body):
    return bytes([0xFF, marker]) + struct.pack(">H", len(body) + 2) + body


def packed(bits):
    out = bytearray()
    for start in range(0, len(bits), 8):
        byte = 0
        for i in range(8):
            byte = byte << 1 | (bits[start + i] if start + i < len(bits) else 1)
        out.append(byte)
        if byte == 0xFF:
            out.append(0)
    return bytes(out)


def jpeg(path, width, height, progressive, scans=1):
    """A valid gray JPEG, every block zero (mid-gray), one-code Huffman
    tables; progressive files repeat the spectral-selection and successive-
    approximation script of every block, as a scan bomb does."""
    blocks = ((width + 7) // 8) * ((height + 7) // 8)
    one = bytes([1] + [0] * 15)
    data = b"\xff\xd8" + segment(0xDB, b"\x00" + bytes([1] * 64))
    data += segment(0xC2 if progressive else 0xC0, struct.pack(">BHHB", 8, height, width, 1) + b"\x01\x11\x00")
    data += segment(0xC4, b"\x00" + one + b"\x00")
    data += segment(0xC4, b"\x10" + one + (b"\xe0" if progressive else b"\x00"))
    if not progressive:
        data += segment(0xDA, bytes([1, 1, 0, 0, 63, 0])) + bytes((2 * blocks + 7) // 8)
    else:
        dc = bytes((blocks + 7) // 8)
        ac = packed([b for _ in range((blocks + 32766) // 32767) for b in [0] + [1] * 14])
        script = [(0, 0, 0, 0)] + [(band, band, 0 if low == 13 else low + 1, low) for band in range(1, 64) for low in range(13, -1, -1)]
        while len(script) < scans:
            script += script[1:]
        for ss, se, ah, al in script[:scans]:
            data += segment(0xDA, bytes([1, 1, 0, ss, se, ah << 4 | al])) + (dc if ss == 0 else ac)
    open(path, "wb").write(data + b"\xff\xd9")


folder = sys.argv[1]
os.makedirs(folder, exist_ok=True)
rgb = lambda x, y: bytes(((x * 2 + y) & 255, (x + 3 * y) & 255, (x * y) & 255))
# Compressed data going on after the last row (2 GB of zeros in 2 MB).
png(os.path.join(folder, "png-tail-2gb.png"), 100, 100, 8, 2, 0,
    lambda: (b"\0" + b"".join(rgb(x, y) for x in range(100)) for y in range(100)), extra=2 << 30)
png(os.path.join(folder, "png-tail-2gb-interlaced.png"), 100, 100, 8, 2, 1,
    lambda: adam7_rows(100, 100, 3, rgb), extra=2 << 30)
# A blank 13000x13000 RGBA16 image (1.35 GB of pixels in 1.3 MB).
png(os.path.join(folder, "png-blank-13000-rgba16.png"), 13000, 13000, 16, 6, 0,
    lambda: (bytes(13000 * 8 + 1) for _ in range(13000)))
# An interlaced 13000x13000 gray+alpha image: a full crop holds 338 MB.
png(os.path.join(folder, "png-interlaced-13000.png"), 13000, 13000, 8, 4, 1,
    lambda: adam7_rows(13000, 13000, 2, lambda x, y: b"\0\0"))
# Progressive scan work: 500 valid scans, and 10,000, over 13000x13000.
jpeg(os.path.join(folder, "jpeg-scans-500-13000.jpg"), 13000, 13000, True, 500)
jpeg(os.path.join(folder, "jpeg-scans-10000-13000.jpg"), 13000, 13000, True, 10000)
jpeg(os.path.join(folder, "jpeg-scans-30-4000.jpg"), 4000, 4000, True, 30)
# The coefficients a progressive frame forces: 338 MB for a 1x1 crop.
jpeg(os.path.join(folder, "jpeg-progressive-13000.jpg"), 13000, 13000, True, 6)
# A baseline 12000x12000 frame in 563 kB: streams in bounded memory.
jpeg(os.path.join(folder, "jpeg-baseline-12000.jpg"), 12000, 12000, False)


def heif_bombs(testdata):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import heifedit

    def generated(name):
        return heifedit.Heif(open(os.path.join(testdata, "heif/generated", name), "rb").read())

    def write(name, heif):
        open(os.path.join(folder, name), "wb").write(heif.write())

    # Clean apertures of the grid's own (as another tool that crops by clap
    # writes them), hiding real coordinate pixels: inside, at the top-left
    # tile's corner, one pixel short of the whole, and a single tile.
    for name, (w, h, left, top) in {
        "heif-own-clap-600x400-inside.heic": (600, 400, 200, 100),
        "heif-own-clap-300x200-corner.heic": (300, 200, 0, 0),
        "heif-own-clap-1000x776.heic": (1000, 776, 1, 1),
        "heif-own-clap-one-tile.heic": (512, 512, 0, 0),
        "heif-own-clap-odd-offset.heic": (333, 257, 511, 511),
    }.items():
        heif = generated("coords_1001x777_grid512_lossless.heic")
        heif.props.append([b"clap", heifedit.clap_body(w, h, left, top, 1001, 777)])
        heif.associate(heif.primary, len(heif.props), essential=True)
        write(name, heif)
    # A tile whose hvcC is cut short.
    heif = generated("coords_1001x777_grid512_lossless.heic")
    tile = heif.tiles()[1]
    hvcc = next(body for _, kind, body in heif.properties(tile) if kind == b"hvcC")
    heif.replace_property(tile, b"hvcC", hvcc[:20])
    write("heif-tile-hvcC-truncated.heic", heif)
    # A tile coded at 64x64 whose ispe says 512x512, and a 4:2:0 tile among
    # 4:4:4 ones (its own hvcC, its data, the grid's ispe).
    for name, donor_name in [("heif-tile-coded-64-in-512.heic", "coords_orient6_96x128_grid64_lossless.heic"),
                             ("heif-tile-420-among-444.heic", "iphonelike_orient6_3024x4032_grid512_p3_420.heic")]:
        heif, donor = generated("coords_1001x777_grid512_lossless.heic"), generated(donor_name)
        tile, given = heif.tiles()[2], donor.tiles()[0]
        heif.data[tile] = donor.data[given]
        heif.replace_property(tile, b"hvcC", next(b for _, k, b in donor.properties(given) if k == b"hvcC"))
        write(name, heif)
    # One tile named for every cell of a 10x10 grid (5120x5120).
    heif = generated("coords_1001x777_grid512_lossless.heic")
    first = heif.tiles()[0]
    for ref in heif.refs:
        if ref[0] == b"dimg" and ref[1] == heif.primary:
            ref[2] = [first] * 100
    heif.data[heif.primary] = struct.pack(">BBBBHH", 0, 0, 9, 9, 5120, 5120)
    write("heif-grid-one-tile-100-times.heic", heif)
    # Every tile located as the whole data block, 300 times over.
    heif = generated("coords_1001x777_grid512_lossless.heic")
    total = sum(len(data) for data in heif.data.values())
    for tile in heif.tiles():
        heif.extents[tile] = [(0, total)] * 300
    write("heif-tile-extents-whole-data-300.heic", heif)
    # The grid associated twice: a second ipma turning it, and the same item
    # in two entries of one ipma.
    heif = generated("coords_1001x777_grid512_lossless.heic")
    heif.props.append([b"irot", b"\x01"])
    heif.ipmas.append([[heif.primary, [(True, len(heif.props))]]])
    write("heif-ipma-twice.heic", heif)
    heif = generated("coords_1001x777_grid512_lossless.heic")
    heif.ipmas[0].append([heif.primary, [(True, len(heif.props))]])
    write("heif-ipma-item-twice.heic", heif)


def webp_bombs():
    """The decode bombs of Tests/CropImagingTests/DecodeBombTests: WebP's
    largest canvas, 16383x16383, over a few bytes (VP8L, VP8, and VP8X with
    VP8L). Their 2 s bound is measured here, on a quiet machine; the test
    proves what each run did."""
    side = 16383

    def riff(chunks):
        body = b""
        for kind, payload in chunks:
            body += kind + struct.pack("<I", len(payload)) + payload
            if len(payload) % 2:
                body += b"\0"
        return b"RIFF" + struct.pack("<I", len(body) + 4) + b"WEBP" + body

    vp8l = (b"VP8L", b"\x2f" + struct.pack("<I", (side - 1) | (side - 1) << 14) + b"\x5a" * 59)
    size = 100
    tag = bytes([size << 5 & 0xE0 | 0x10, size >> 3 & 255, size >> 11 & 255])
    vp8 = (b"VP8 ", tag + b"\x9d\x01\x2a" + struct.pack("<HH", side, side) + b"\x33" * 90)
    canvas = b"\0\0\0\0" + struct.pack("<I", side - 1)[:3] + struct.pack("<I", side - 1)[:3]
    for name, chunks in [
        ("webp-vp8l-16383x16383.webp", [vp8l]),
        ("webp-vp8-16383x16383.webp", [vp8]),
        ("webp-vp8x-vp8l-16383x16383.webp", [(b"VP8X", canvas), vp8l]),
    ]:
        with open(os.path.join(folder, name), "wb") as out:
            out.write(riff(chunks))


def lzw_zeros(count):
    """GIF LZW (minimum code size 8) of `count` zero indices, coded as runs
    of 1, 2, 3, ... zeros, each code the entry it defines (9 bits, a clear
    code before the table would need 10): about 290 bytes for 32 K pixels,
    so a small file asks for a great deal of decoding."""
    out, bits, nbits = bytearray(), 0, 0

    def put(code):
        nonlocal bits, nbits
        bits |= code << nbits
        nbits += 9
        while nbits >= 8:
            out.append(bits & 255)
            bits >>= 8
            nbits -= 8

    remaining = count
    while remaining > 0:
        put(256)
        length = 1
        while length <= 254 and length <= remaining:
            put(0 if length == 1 else 256 + length)
            remaining -= length
            length += 1
    put(257)
    if nbits:
        out.append(bits & 255)
    blocks = bytearray([8])
    for start in range(0, len(out), 255):
        piece = out[start:start + 255]
        blocks += bytes([len(piece)]) + piece
    return bytes(blocks + b"\0")


def animation_bombs():
    """Animations that ask for much from little (scripts/gauntlet, 2 s and
    256 MB): a GIF screen of 12000x12000 over one pixel, 10000 frames
    (the default limit) of a 256x256 screen, 20000 frames (over it), and an
    APNG of 2000 frames of 1024x1024 whose summed area passes the
    animation limit."""
    head = lambda w, h: b"GIF89a" + struct.pack("<HHBBB", w, h, 0xF0, 0, 0) + b"\0\0\0\xff\xff\xff"
    loop = b"\x21\xff\x0bNETSCAPE2.0\x03\x01\0\0\0"

    def frame(x, y, w, h, data):
        gce = b"\x21\xf9\x04\x00\x01\x00\x00\x00"
        return gce + b"\x2c" + struct.pack("<HHHHB", x, y, w, h, 0) + data

    with open(os.path.join(folder, "anim-gif-screen-12000x12000.gif"), "wb") as out:
        out.write(head(12000, 12000) + loop + frame(0, 0, 1, 1, lzw_zeros(1)) + b"\x3b")
    whole = frame(0, 0, 256, 256, lzw_zeros(256 * 256))
    for name, frames in [("anim-gif-10000-frames-256x256.gif", 10000), ("anim-gif-20000-frames-256x256.gif", 20000)]:
        with open(os.path.join(folder, name), "wb") as out:
            out.write(head(256, 256) + loop + whole * frames + b"\x3b")
    side, frames = 1024, 2000
    rows = zlib.compress(bytes((1 + side * 4) * side), 9)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 6, 0, 0, 0))
    data += chunk(b"acTL", struct.pack(">II", frames, 0))
    sequence = 0
    for index in range(frames):
        fctl = struct.pack(">IIIIIHHBB", sequence, side, side, 0, 0, 1, 10, 0, 0)
        data += chunk(b"fcTL", fctl)
        sequence += 1
        if index == 0:
            data += chunk(b"IDAT", rows)
        else:
            data += chunk(b"fdAT", struct.pack(">I", sequence) + rows)
            sequence += 1
    with open(os.path.join(folder, "anim-apng-2000-frames-1024x1024.png"), "wb") as out:
        out.write(data + chunk(b"IEND", b""))


webp_bombs()
animation_bombs()
if len(sys.argv) > 2:
    heif_bombs(sys.argv[2])
for name in sorted(os.listdir(folder)):
    print(f"{os.path.getsize(os.path.join(folder, name)):>10}  {name}")
