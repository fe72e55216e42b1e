"""A small HEIF reader and writer, standard library only, for making hostile
HEIC files out of valid ones: scripts/make-bombs.py and
scripts/mutation-gauntlet.py edit the item references, properties, their
associations and the item locations of the generated test files, and write
the file again with every location right, so that the one change made is
the only thing wrong with it.

    heif = Heif(open("in.heic", "rb").read())
    heif.props.append((b"clap", clap_body(...)))
    heif.associate(heif.primary, len(heif.props), essential=True)
    open("out.heic", "wb").write(heif.write())

Only what the generated files use is read: item data in the file (iloc
construction method 0) or in idat (method 1), infe versions 2 and 3.
"""
import struct


def boxes(data, pos=0, end=None):
    """The (type, body) of each box in data[pos:end]."""
    end = len(data) if end is None else end
    out = []
    while pos + 8 <= end:
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[pos + 8:pos + 16])[0]
            header = 16
        elif size == 0:
            size = end - pos
        out.append((kind, bytes(data[pos + header:pos + size])))
        pos += size
    return out


def box(kind, body):
    return struct.pack(">I4s", 8 + len(body), kind) + body


def full(version, flags):
    return struct.pack(">I", version << 24 | flags)


class Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def uint(self, size):
        if size == 0:
            return 0
        value = int.from_bytes(self.data[self.pos:self.pos + size], "big")
        self.pos += size
        return value


def clap_body(width, height, left, top, full_width, full_height):
    """A clean aperture of width x height whose top-left is (left, top) in
    an image of full_width x full_height, as fractions of halves."""
    horizontal = 2 * left + width - full_width  # (2 * centre - (W - 1)) - (w - 1), in halves
    vertical = 2 * top + height - full_height
    return struct.pack(">IIIIiIiI", width, 1, height, 1, horizontal, 2, vertical, 2)


class Heif:
    """The parts of a HEIF file an edit changes; everything else in meta is
    kept as it was."""

    def __init__(self, data):
        top = boxes(data)
        self.ftyp = next(body for kind, body in top if kind == b"ftyp")
        meta = next(body for kind, body in top if kind == b"meta")
        self.meta = boxes(meta, 4)
        idat = next((body for kind, body in self.meta if kind == b"idat"), b"")
        self.types = {}
        for kind, body in self.meta:
            if kind == b"iinf":
                version = body[0]
                for infe_kind, infe in boxes(body, 4 + (2 if version == 0 else 4)):
                    id_size = 2 if infe[0] < 3 else 4
                    item = int.from_bytes(infe[4:4 + id_size], "big")
                    self.types[item] = infe[4 + id_size + 2:4 + id_size + 6]
            if kind == b"pitm":
                self.primary = int.from_bytes(body[4:6] if body[0] == 0 else body[4:8], "big")
        self.data = {}
        iloc = Reader(next(body for kind, body in self.meta if kind == b"iloc"))
        version = iloc.uint(1)
        iloc.uint(3)
        sizes = iloc.uint(1)
        more = iloc.uint(1)
        offset_size, length_size, base_size = sizes >> 4, sizes & 15, more >> 4
        index_size = more & 15 if version > 0 else 0
        for _ in range(iloc.uint(2 if version < 2 else 4)):
            item = iloc.uint(2 if version < 2 else 4)
            method = iloc.uint(2) & 15 if version > 0 else 0
            iloc.uint(2)
            base = iloc.uint(base_size)
            chunks = []
            for _ in range(iloc.uint(2)):
                iloc.uint(index_size)
                offset, length = base + iloc.uint(offset_size), iloc.uint(length_size)
                chunks.append((idat if method == 1 else data)[offset:offset + length])
            self.data[item] = b"".join(chunks)
        # References: [type, from, [to...]].
        self.refs = []
        iref = next((body for kind, body in self.meta if kind == b"iref"), None)
        if iref is not None:
            id_size = 2 if iref[0] == 0 else 4
            for kind, body in boxes(iref, 4):
                r = Reader(body)
                source = r.uint(id_size)
                self.refs.append([kind, source, [r.uint(id_size) for _ in range(r.uint(2))]])
        iprp = boxes(next(body for kind, body in self.meta if kind == b"iprp"))
        self.props = [list(p) for p in boxes(next(body for kind, body in iprp if kind == b"ipco"))]
        # Associations: one list per ipma box of [item, [(essential, index)]].
        self.ipmas = []
        for kind, body in iprp:
            if kind != b"ipma":
                continue
            r = Reader(body)
            version, flags = r.uint(1), r.uint(3)
            entries = []
            for _ in range(r.uint(4)):
                item = r.uint(2 if version < 1 else 4)
                links = []
                for _ in range(r.uint(1)):
                    value = r.uint(2 if flags & 1 else 1)
                    top_bit = 15 if flags & 1 else 7
                    links.append((value >> top_bit == 1, value & ((1 << top_bit) - 1)))
                entries.append([item, links])
            self.ipmas.append(entries)
        # Each item's extents, as (start, length) in the data written; None
        # writes the item's data once, in one extent.
        self.extents = {}

    def tiles(self, grid=None):
        """The items the grid (the primary item by default) is made of."""
        grid = self.primary if grid is None else grid
        return next(to for kind, source, to in self.refs if kind == b"dimg" and source == grid)

    def properties(self, item):
        """(index, kind, body) of each property associated with item."""
        return [(i, self.props[i - 1][0], self.props[i - 1][1])
                for entries in self.ipmas for entry, links in entries if entry == item
                for _, i in links if i > 0]

    def associate(self, item, index, essential=False):
        """Associates property index with item, before the item's
        transforms (irot, imir) if it is a clean aperture, as MIAF orders
        them."""
        for entry in self.ipmas[0]:
            if entry[0] == item:
                links = entry[1]
                at = len(links)
                if self.props[index - 1][0] == b"clap":
                    at = next((n for n, (_, i) in enumerate(links)
                               if i > 0 and self.props[i - 1][0] in (b"irot", b"imir")), at)
                links.insert(at, (essential, index))
                return
        self.ipmas[0].append([item, [(essential, index)]])

    def replace_property(self, item, kind, body):
        """Gives item a property of its own of this kind, with this body."""
        self.props.append([kind, body])
        for entries in self.ipmas:
            for entry in entries:
                if entry[0] == item:
                    entry[1] = [(e, len(self.props) if self.props[i - 1][0] == kind else i) for e, i in entry[1]]

    def add_item(self, kind, data, describes=None):
        """Adds a hidden item of type kind holding data (an infe version 2
        entry, item IDs of 16 bits), with a cdsc reference to the item it
        describes; returns its ID."""
        item = max(list(self.types) + list(self.data)) + 1
        infe = box(b"infe", full(2, 1) + struct.pack(">HH", item, 0) + kind + b"\0")
        for n, (k, body) in enumerate(self.meta):
            if k == b"iinf":
                version = body[0]
                count_size = 2 if version == 0 else 4
                count = int.from_bytes(body[4:4 + count_size], "big") + 1
                self.meta[n] = (k, body[:4] + count.to_bytes(count_size, "big") + body[4 + count_size:] + infe)
        self.types[item] = kind
        self.data[item] = data
        if describes is not None:
            self.refs.append([b"cdsc", item, [describes]])
        return item

    def write(self):
        order = sorted(self.data)
        payload, placed = b"", {}
        for item in order:
            placed[item] = len(payload)
            payload += self.data[item]

        def meta(base):
            iloc = full(1, 0) + bytes([0x44, 0x00]) + struct.pack(">H", len(order))
            for item in order:
                extents = self.extents.get(item) or [(placed[item], len(self.data[item]))]
                iloc += struct.pack(">HHHH", item, 0, 0, len(extents))
                for start, length in extents:
                    iloc += struct.pack(">II", base + start, length)
            iref = full(0, 0) + b"".join(
                box(kind, struct.pack(">HH", source, len(to)) + b"".join(struct.pack(">H", t) for t in to))
                for kind, source, to in self.refs)
            ipco = box(b"ipco", b"".join(box(kind, body) for kind, body in self.props))
            ipmas = b""
            for entries in self.ipmas:
                body = full(0, 1) + struct.pack(">I", len(entries))
                for item, links in entries:
                    body += struct.pack(">HB", item, len(links))
                    body += b"".join(struct.pack(">H", (0x8000 if e else 0) | i) for e, i in links)
                ipmas += box(b"ipma", body)
            children = b""
            for kind, body in self.meta:
                if kind == b"iloc":
                    children += box(b"iloc", iloc)
                elif kind == b"iref":
                    children += box(b"iref", iref)
                elif kind == b"iprp":
                    children += box(b"iprp", ipco + ipmas)
                elif kind != b"idat":
                    children += box(kind, body)
            if not any(kind == b"iref" for kind, _ in self.meta) and self.refs:
                children += box(b"iref", iref)
            return box(b"meta", full(0, 0) + children)

        head = box(b"ftyp", self.ftyp)
        base = len(head) + len(meta(0)) + 8
        return head + meta(base) + box(b"mdat", payload)
