#!/usr/bin/env python3
"""Mutates valid PNG and JPEG files (truncations, bit flips, length-field
edits, the classes of hostile input round two: a wrong zlib Adler-32 with
every chunk CRC right, compressed data after the last row, malformed
ancillary chunks, a second EXIF segment; and round five's containers: a
colour profile (APP2, iCCP) or an EXIF block (APP1, eXIf) holding a whole
photo, in a private tag, a MakerNote in IFD0 or no ICC structure at all,
then hit by bit flips and odd length fields, whose photo no crop may carry)
and crops each mutant whole with
the release `cropkit`: every run must end in exit 0 (a decode) or 2 (a clean
error), under 2 s and 256 MB, and a failed run must leave no output. A
wrong Adler-32 must be refused (exit 2), data after the last row and a bad
ancillary chunk cropped with a warning (exit 0).

    scripts/mutation-gauntlet.py CROPKIT TESTDATA [COUNT] [SEED] [png|jpg|heic|anim]

With anim, real and generated animations (GIF, APNG, animated WebP) are
mutated (truncations, bit flips, random bytes, APNG chunk lengths, header
fields) and each is cropped whole into its own format.

HEIF sources get the generic mutations, their box sizes and fields among
the length edits, and (a quarter of them) the classes of hostile input
round three, made with scripts/heifedit.py: a clean aperture of the
source's own hiding real pixels (cropped, exit 0), a tile whose hvcC is cut
short or whose data and hvcC come from a tile of another size or chroma
format (refused, exit 2), a grid naming one tile twice, a tile located over
the whole data block several times, an item associated twice (refused).
With heic outputs only the HEIF sources are mutated, and a part of each is
cropped so that the HEIC writer encodes its edge tiles again. Every output
is read back by `cropkit leaks`, which must find nothing.
"""
import os
import random
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import heifedit  # noqa: E402

cropkit, testdata = sys.argv[1], sys.argv[2]
count = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
random.seed(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
# The output's extension: png (default) or jpg, which takes JPEG sources
# through the DCT-domain crop and every source through the JPEG writer.
out_extension = sys.argv[5] if len(sys.argv) > 5 else "png"
sources = [os.path.join(testdata, p) for p in [
    "pngsuite/basn6a08.png", "pngsuite/basi6a16.png", "pngsuite/basn3p04.png", "pngsuite/tbrn2c08.png",
    "pngsuite/generated/coords_rgba8_251x97.png", "jpeg/libjpeg-turbo/testorig.jpg",
    "jpeg/generated/q90_420_progressive.jpg", "jpeg/generated/q90_422.jpg", "exif/generated/testorig_orientation6.jpg",
    "heif/generated/coords_orient6_96x128_grid64_lossless.heic", "heif/generated/coords_orient7_600x400_grid256_lossless.heic",
    "heif/generated/coords_alpha_orient8_128x64_lossless.heic", "heif/generated/coords10_orient6_300x200_lossless.heic",
    "heif/generated/coords_1001x777_clap_lossless.heic", "heif/generated/nclx_p3_srgbtrc_96x64_420.heic",
]]
if out_extension == "anim":
    # Animations (GIF, APNG, animated WebP), each cropped into its own
    # format: real files with disposal, blend, offsets, local colour
    # tables, interlacing and lossy frames with alpha, and the generated
    # coordinates animations.
    sources = [os.path.join(testdata, "animated", p) for p in [
        "pillow/iss634.gif", "pillow/iss634.apng", "pillow/iss634.webp", "pillow/star.gif",
        "generated/gif_coords_301x203_6f_loop1_subrects.gif", "generated/apng_coords_rgba8_301x203_7f_loop3_subrects.png",
        "generated/webp_coords_301x203_7f_loop3_subrects_lossless.webp",
        "pillow/apng/dispose_op_previous_region.png", "pillow/apng/mode_palette_alpha.png",
    ]]
originals = [open(p, "rb").read() for p in sources if os.path.exists(p)]
if out_extension == "heic":
    originals = [data for data in originals if data[4:8] == b"ftyp"]
# A part of the image, so that HEIC outputs encode their edge tiles again.
selection = "10,10,50,50" if out_extension == "heic" else "0,0,100,100"


def png_chunks(data):
    chunks, pos = [], 8
    while pos + 12 <= len(data):
        length = struct.unpack(">I", data[pos:pos + 4])[0]
        chunks.append((data[pos + 4:pos + 8], bytes(data[pos + 8:pos + 8 + length])))
        pos += 12 + length
    return chunks


def png_file(chunks):
    out = b"\x89PNG\r\n\x1a\n"
    for kind, body in chunks:
        out += struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    return out


def with_stream(data, change):
    """The PNG with its IDAT data replaced by change(zlib stream), in one
    IDAT chunk, every CRC right."""
    chunks = png_chunks(data)
    stream = b"".join(body for kind, body in chunks if kind == b"IDAT")
    first = next(i for i, (kind, _) in enumerate(chunks) if kind == b"IDAT")
    rest = [c for c in chunks if c[0] != b"IDAT"]
    return png_file(rest[:first] + [(b"IDAT", change(stream))] + rest[first:])


def classed(data):
    """A mutant of one of round two's classes, and its class."""
    if data[:4] == b"\x89PNG":
        kind = random.choice(["adler", "tail", "chunk"])
        if kind == "adler":
            def wrong(stream):
                stream = bytearray(stream)
                stream[-1 - random.randrange(4)] ^= 1 << random.randrange(8)
                return bytes(stream)
            return with_stream(data, wrong), kind
        if kind == "tail":
            def longer(stream):
                raw = zlib.decompress(stream)
                compressor = zlib.compressobj(9)
                return compressor.compress(raw) + compressor.compress(bytes(random.randint(1, 1 << 24))) + compressor.flush()
            return with_stream(data, longer), kind
        chunks = png_chunks(data)
        bad = random.choice([(b"tRNS", b"\x01"), (b"gAMA", b"\x01"), (b"cHRM", b"\x01\x02\x03"),
                             (b"iCCP", b"name\x00\x00not zlib")])
        return png_file(chunks[:1] + [bad] + [c for c in chunks[1:] if c[0] != bad[0]]), kind
    # Two EXIF segments (an editor's leftover): the first one's orientation
    # counts, and a warning names the second.
    def exif(orientation):
        body = b"Exif\x00\x00MM\x00\x2a\x00\x00\x00\x08\x00\x01\x01\x12\x00\x03\x00\x00\x00\x01" + \
            bytes([0, orientation, 0, 0]) + b"\x00\x00\x00\x00"
        return b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body
    return data[:2] + exif(random.randint(1, 8)) + exif(random.randint(1, 8)) + data[2:], "exif2"


HEIF_BOXES = [b"ftyp", b"meta", b"hdlr", b"pitm", b"iloc", b"iinf", b"infe", b"iref", b"dimg", b"auxl", b"thmb",
              b"cdsc", b"iprp", b"ipco", b"ipma", b"ispe", b"hvcC", b"colr", b"clap", b"irot", b"imir", b"pixi",
              b"auxC", b"idat", b"mdat"]


def heif_length(data):
    """A HEIF box's size, or a field just after a box's type, set to
    something odd."""
    places = [i for name in HEIF_BOXES for i in range(len(data)) if data[i:i + 4] == name]
    if not places:
        return
    pos = random.choice(places)
    value = random.choice([0, 1, 7, 0x7FFFFFFF, 0xFFFFFFFF, random.randrange(1 << 32)])
    where = pos - 4 if random.random() < 0.5 else pos + 4 + 4 * random.randrange(4)
    if 0 <= where <= len(data) - 4:
        data[where:where + 4] = struct.pack(">I", value)


def heif_classed(data):
    """A HEIF mutant of one of round three's classes, and its class, or None
    when the source has no grid for it."""
    heif = heifedit.Heif(data)
    grid = heif.types.get(heif.primary) == b"grid"
    size = next((body for _, kind, body in heif.properties(heif.primary) if kind == b"ispe"), None)
    kinds = ["clap"] + (["hvcC", "tile", "dimg", "extents", "ipma"] if grid else ["ipma"])
    kind = random.choice(kinds)
    if kind == "clap" and size is not None and not any(k == b"clap" for _, k, _ in heif.properties(heif.primary)):
        width, height = struct.unpack(">II", size[4:12])
        w, h = random.randint(1, width), random.randint(1, height)
        left, top = random.randint(0, width - w), random.randint(0, height - h)
        heif.props.append([b"clap", heifedit.clap_body(w, h, left, top, width, height)])
        heif.associate(heif.primary, len(heif.props), essential=True)
        # HEIC output of an image with alpha is refused, clap or not.
        alpha = out_extension == "heic" and any(kind == b"auxl" for kind, _, _ in heif.refs)
        return heif.write(), "clap with alpha" if alpha else "clap"
    if kind in ("clap", "ipma"):
        heif.ipmas.append([[heif.primary, [(True, len(heif.props))]]])
        return heif.write(), "ipma"
    tiles = heif.tiles()
    tile = random.choice(tiles)
    if kind == "hvcC":
        hvcc = next(body for _, k, body in heif.properties(tile) if k == b"hvcC")
        heif.replace_property(tile, b"hvcC", hvcc[:random.randrange(len(hvcc))])
    elif kind == "tile":
        donor = heifedit.Heif(random.choice([o for o in originals if o is not data and o[4:8] == b"ftyp"]))
        given = random.choice(donor.tiles() if donor.types.get(donor.primary) == b"grid" else [donor.primary])
        heif.data[tile] = donor.data[given]
        heif.replace_property(tile, b"hvcC", next(b for _, k, b in donor.properties(given) if k == b"hvcC"))
    elif kind == "dimg":
        ref = next(r for r in heif.refs if r[0] == b"dimg" and r[1] == heif.primary)
        ref[2][random.randrange(len(tiles))] = tile
        if len(set(ref[2])) == len(ref[2]):
            return heif.write(), "none"
    else:
        total = sum(len(d) for d in heif.data.values())
        heif.extents[tile] = [(0, total)] * random.randint(2, 300)
    return heif.write(), kind


# Round five: the containers a crop carries metadata in, each holding a
# hidden photo (a JPEG whose comment is HIDDEN), then mutated.
HIDDEN = b"CROPKIT-MUTATION-HIDDEN-PHOTO"


def hidden_photo():
    base = next(o for o in originals if o[:2] == b"\xff\xd8")
    return base[:2] + b"\xff\xfe" + struct.pack(">H", len(HIDDEN) + 2) + HIDDEN + base[2:]


def icc_profile(blob):
    """An ICC v2 profile: a 'desc' tag and a private tag 'zzzz' holding blob."""
    text = b"CropKit mutation\x00"
    desc = b"desc\x00\x00\x00\x00" + struct.pack(">I", len(text)) + text
    desc += b"\x00" * (-len(desc) % 4)
    header = bytearray(128)
    header[8] = 2
    header[12:16], header[16:20], header[20:24], header[36:40] = b"mntr", b"RGB ", b"XYZ ", b"acsp"
    table = struct.pack(">I", 2) + b"desc" + struct.pack(">II", 156, len(desc)) + \
        b"zzzz" + struct.pack(">II", 156 + len(desc), len(blob))
    profile = bytearray(bytes(header) + table + desc + blob)
    profile[0:4] = struct.pack(">I", len(profile))
    return profile


def exif_tiff(blob):
    """A big-endian TIFF structure whose IFD0 has a Make and a tag nothing
    expects (a MakerNote there, or a private one) holding blob."""
    tag = random.choice([0x927C, 0xC0DE, 0x8773, 0x9286])
    entries = [(0x010F, 2, 7, b"Acme X\x00"), (tag, 7, len(blob), blob)]
    out = bytearray(b"MM\x00\x2a\x00\x00\x00\x08" + struct.pack(">H", len(entries)))
    data_at = 8 + 2 + 12 * len(entries) + 4
    data = b""
    for tag, kind, count, value in sorted(entries):
        out += struct.pack(">HHI", tag, kind, count)
        if len(value) <= 4:
            out += value.ljust(4, b"\x00")
        else:
            out += struct.pack(">I", data_at + len(data))
            data += value + b"\x00" * (len(value) % 2)
    return bytearray(out + b"\x00\x00\x00\x00" + data)


def container(data):
    """A mutant whose colour profile or EXIF holds the hidden photo (the
    profile sometimes a photo with no ICC structure at all), its structure
    then hit by a few bit flips or a length set to something odd; and its
    class. No crop may carry the photo (its SOI and comment, when the
    flips left them whole: a photo whose start they broke is no photo)."""
    kind = random.choice(["icc", "exif-image"])
    photo = hidden_photo()
    block = icc_profile(photo) if kind == "icc" and random.random() < 0.7 else bytearray(photo)
    if kind == "exif-image":
        block = exif_tiff(photo)
    for _ in range(random.randint(0, 4)):
        at = random.randrange(min(len(block), 200))
        if random.random() < 0.5:
            block[at] ^= 1 << random.randrange(8)
        elif at + 4 <= len(block):
            block[at:at + 4] = struct.pack(">I", random.choice([0, 1, 0x7FFFFFFF, 0xFFFFFFFF, len(block)]))
    block = bytes(block)
    if data[:4] == b"\x89PNG":
        chunks = png_chunks(data)
        chunk = (b"iCCP", b"ICC\x00\x00" + zlib.compress(block)) if kind == "icc" else (b"eXIf", block)
        return png_file(chunks[:1] + [chunk] + [c for c in chunks[1:] if c[0] != chunk[0]]), kind
    if kind == "icc":
        pieces = [block[i:i + 65519] for i in range(0, len(block), 65519)]
        segments = b"".join(
            b"\xff\xe2" + struct.pack(">H", len(piece) + 16) + b"ICC_PROFILE\x00" + bytes([n + 1, len(pieces)]) + piece
            for n, piece in enumerate(pieces))
    else:
        segments = b"\xff\xe1" + struct.pack(">H", len(block) + 8) + b"Exif\x00\x00" + block
    return data[:2] + segments + data[2:], kind


def png_length(data):
    """A PNG chunk length set to something odd."""
    data = bytearray(data)
    offsets, pos = [], 8
    while pos + 8 <= len(data):
        offsets.append(pos)
        pos += 12 + struct.unpack(">I", data[pos:pos + 4])[0]
    pos = random.choice(offsets)
    value = random.choice([0, 1, 0x7FFFFFFF, 0xFFFFFFFF, random.randrange(1 << 31), len(data)])
    data[pos:pos + 4] = struct.pack(">I", value & 0xFFFFFFFF)
    return bytes(data)


def mutate(data):
    if out_extension == "anim":
        data = bytearray(data)
        kind = random.choice(["truncate", "flip", "bytes", "length"])
        if kind == "length" and data[:4] == b"\x89PNG":
            return png_length(data), kind
        if kind == "truncate":
            return bytes(data[:random.randrange(len(data))]), kind
        if kind in ("flip", "length"):
            # A frame header or size field hit: flips land anywhere, a
            # length edit in the first 64 bytes (screen, canvas, ANIM).
            for _ in range(random.randint(1, 8)):
                i = random.randrange(len(data) if kind == "flip" else min(64, len(data)))
                data[i] ^= 1 << random.randrange(8) if kind == "flip" else random.randrange(1, 256)
            return bytes(data), kind
        start = random.randrange(len(data))
        data[start:start + random.randint(1, 64)] = os.urandom(random.randint(1, 64))
        return bytes(data), kind
    if random.random() < 0.2 and data[4:8] != b"ftyp":
        return container(data)
    if random.random() < 0.25 and data[4:8] != b"ftyp":
        return classed(data)
    if random.random() < 0.25 and data[4:8] == b"ftyp":
        return heif_classed(data)
    data = bytearray(data)
    kind = random.choice(["truncate", "flip", "length", "bytes"])
    if kind == "truncate":
        return bytes(data[:random.randrange(len(data))]), kind
    if kind == "flip":
        for _ in range(random.randint(1, 8)):
            i = random.randrange(len(data))
            data[i] ^= 1 << random.randrange(8)
        return bytes(data), kind
    if kind == "length":
        # A PNG chunk length or a JPEG segment length, set to something odd.
        if data[4:8] == b"ftyp":
            heif_length(data)
        elif data[:4] == b"\x89PNG":
            data = bytearray(png_length(data))
        else:
            markers = [i for i in range(2, len(data) - 3) if data[i] == 0xFF and data[i + 1] not in (0, 0xFF, 0xD8, 0xD9)]
            if markers:
                pos = random.choice(markers) + 2
                data[pos:pos + 2] = struct.pack(">H", random.choice([0, 1, 2, 0xFFFF, random.randrange(1 << 16)]))
        return bytes(data), kind
    start = random.randrange(len(data))
    data[start:start + random.randint(1, 64)] = os.urandom(random.randint(1, 64))
    return bytes(data), kind


bad = 0
counts = {0: 0, 2: 0}
classes = {}
worst_time, worst_kb = 0.0, 0
with tempfile.TemporaryDirectory() as work:
    for n in range(count):
        original = random.choice(originals)
        mutant, kind = mutate(original)
        suffix = (".png" if original[:4] == b"\x89PNG" else ".heic" if original[4:8] == b"ftyp"
                  else ".gif" if original[:3] == b"GIF" else ".webp" if original[:4] == b"RIFF" else ".jpg")
        src = os.path.join(work, "in" + suffix)
        out = os.path.join(work, "out" + (suffix if out_extension == "anim" else "." + out_extension))
        open(src, "wb").write(mutant)
        if os.path.exists(out):
            os.remove(out)
        result = subprocess.run(["/usr/bin/time", "-f", "%e %M", cropkit, "crop", src, "-o", out, "--viewport", "100x100",
                                 "--selection", selection, "--force"], capture_output=True, text=True, timeout=30)
        seconds, kb = result.stderr.strip().splitlines()[-1].split()
        worst_time, worst_kb = max(worst_time, float(seconds)), max(worst_kb, int(kb))
        status = result.returncode
        problem = None
        if status not in (0, 2):
            problem = f"exit {status}"
        elif status == 2 and os.path.exists(out):
            problem = "output left after an error"
        elif status == 2 and "error: " not in result.stderr:
            problem = "no message"
        elif float(seconds) >= 2 or int(kb) >= 262144:
            problem = f"{seconds} s, {kb} KB"
        elif kind == "adler" and status != 2:
            problem = "a wrong Adler-32 was not refused"
        elif kind in ("tail", "chunk", "exif2") and (status != 0 or "warning: " not in result.stderr):
            problem = f"exit {status} without a warning for {kind}"
        elif kind == "clap" and status != 0:
            problem = f"a source with its own clap was not cropped (exit {status}): {result.stderr.strip()}"
        elif kind in ("hvcC", "dimg", "extents", "ipma") and status != 2:
            problem = f"a {kind} mutant was not refused (exit {status})"
        elif kind in ("icc", "exif-image") and status == 0 and hidden_photo()[:6 + len(HIDDEN)] in open(out, "rb").read():
            problem = f"the photo hidden in the {kind} container reached the crop"
        elif status == 0:
            leaks = subprocess.run([cropkit, "leaks", out], capture_output=True, text=True, timeout=30)
            if leaks.returncode != 0:
                problem = f"leaks in the output: {leaks.stdout.strip()} {leaks.stderr.strip()}"
        if problem:
            bad += 1
            keep = f"/tmp/mutant-{n}{suffix}"
            open(keep, "wb").write(mutant)
            print(f"BAD {problem}: {kind} mutant kept at {keep}")
        else:
            counts[status] += 1
            classes[kind] = classes.get(kind, 0) + 1
print(f"mutation gauntlet: {count} mutants, {counts[0]} decoded, {counts[2]} refused, {bad} bad; "
      f"slowest {worst_time} s, largest {worst_kb} KB; by kind: {dict(sorted(classes.items()))}")
sys.exit(1 if bad else 0)
