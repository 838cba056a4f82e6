#!/usr/bin/env python3
"""OVMF variable-store editor (test tool, not product code).

An OVMF_VARS*.fd file starts with an EDK2 firmware volume (EFI_FIRMWARE_VOLUME_HEADER,
signature "_FVH" at offset 40, HeaderLength at 48); the variable store follows it:
VARIABLE_STORE_HEADER (Signature = gEfiAuthenticatedVariableGuid, Size, Format 0x5A,
State 0xFE, 8 reserved bytes), then AUTHENTICATED_VARIABLE_HEADER records, each
starting on a 4-byte boundary (HEADER_ALIGNMENT 4; x64 has no name/data padding):

  StartId u16 (0x55AA) | State u8 | Reserved u8 | Attributes u32 | MonotonicCount u64 |
  TimeStamp EFI_TIME (16) | PubKeyIndex u32 | NameSize u32 | DataSize u32 | VendorGuid (16)
  then the UTF-16LE name (NameSize bytes, with its NUL) and the data.

States are flash bits cleared one by one: VAR_ADDED 0x3F is live; VAR_ADDED &
VAR_IN_DELETED_TRANSITION (0x3E) is live only if no VAR_ADDED copy of the same
variable exists; VAR_DELETED (bit 0x02 cleared) and VAR_HEADER_VALID_ONLY (0x7F)
are not.  The record list ends at the first StartId that is not 0x55AA (erased 0xFF).

Usage:
  ovmf_vars.py list FD
  ovmf_vars.py dump FD DIR            efivarfs files NAME-GUID: attr u32 LE + data
  ovmf_vars.py get FD NAME GUID       data to stdout
  ovmf_vars.py set FD NAME GUID ATTR (HEXDATA | @FILE) [--time YYYYMMDDhhmmss]
  ovmf_vars.py delete FD NAME GUID
GUIDs may be given as the names below (global, security, shim, sbat).
"""
import os
import struct
import sys
import uuid

AUTH_VAR_GUID = uuid.UUID("aaf32c78-947b-439a-a180-2e144ec37792")
HDR = struct.Struct("<HBBIQ16sIII16s")  # 60 bytes
assert HDR.size == 60
START_ID = 0x55AA
VAR_ADDED = 0x3F
VAR_IN_DELETED_TRANSITION = 0xFE
VAR_DELETED = 0xFD
TIME_BASED = 0x20

GUIDS = {
    "global": "8be4df61-93ca-11d2-aa0d-00e098032b8c",
    "security": "d719b2cb-3d3a-4596-a3bc-dad00e67656f",
    "shim": "605dab50-e046-4300-abb6-3dd810dd8b23",
}


class StoreError(Exception):
    pass


def guid_of(text):
    return uuid.UUID(GUIDS.get(text, text))


class Var:
    def __init__(self, off, state, attr, count, stamp, pki, name, guid, data):
        self.off, self.state, self.attr = off, state, attr
        self.count, self.stamp, self.pki = count, stamp, pki
        self.name, self.guid, self.data = name, guid, data

    def key(self):
        return (self.name, self.guid)


class Store:
    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            self.buf = bytearray(f.read())
        b = self.buf
        if len(b) < 0x48 + 28 or b[40:44] != b"_FVH":
            raise StoreError("%s: no firmware volume header (_FVH) (at offset 40)" % path)
        hlen = struct.unpack_from("<H", b, 48)[0]
        if hlen < 0x38 or hlen + 28 > len(b):
            raise StoreError("%s: bad firmware volume header length %d (at offset 48)" % (path, hlen))
        self.store = hlen
        sig = uuid.UUID(bytes_le=bytes(b[hlen:hlen + 16]))
        if sig != AUTH_VAR_GUID:
            raise StoreError("%s: not an authenticated variable store: %s (at offset %d)" % (path, sig, hlen))
        size, fmt, state = struct.unpack_from("<IBB", b, hlen + 16)
        if fmt != 0x5A or state != 0xFE or hlen + size > len(b):
            raise StoreError("%s: variable store not formatted/healthy (at offset %d)" % (path, hlen + 16))
        self.end = hlen + size
        self.first = hlen + 28

    def records(self):
        """Every record (live or not), in order; sets self.free to the first free offset."""
        b, off, out = self.buf, self.first, []
        while off + HDR.size <= self.end:
            sid, state, _r, attr, count, stamp, pki, nsz, dsz, g = HDR.unpack_from(b, off)
            if sid != START_ID:
                break
            noff = off + HDR.size
            if noff + nsz + dsz > self.end or nsz % 2:
                raise StoreError("%s: variable record overruns the store (at offset %d)" % (self.path, off))
            name = bytes(b[noff:noff + nsz]).decode("utf-16-le").rstrip("\0")
            data = bytes(b[noff + nsz:noff + nsz + dsz])
            out.append(Var(off, state, attr, count, stamp, pki, name, uuid.UUID(bytes_le=bytes(g)), data))
            off = (noff + nsz + dsz + 3) & ~3
        self.free = off
        return out

    def live(self):
        recs = self.records()
        added = {v.key() for v in recs if v.state == VAR_ADDED}
        out = {}
        for v in recs:
            if v.state == VAR_ADDED or (v.state == VAR_ADDED & VAR_IN_DELETED_TRANSITION and v.key() not in added):
                out[v.key()] = v
        return out

    def find(self, name, guid):
        return self.live().get((name, guid))

    def delete(self, name, guid):
        hit = False
        for v in self.records():
            if v.key() == (name, guid) and v.state in (VAR_ADDED, VAR_ADDED & VAR_IN_DELETED_TRANSITION):
                self.buf[v.off + 2] = v.state & VAR_DELETED
                hit = True
        return hit

    def set(self, name, guid, attr, data, stamp=None):
        self.delete(name, guid)
        self.records()
        nm = (name + "\0").encode("utf-16-le")
        if stamp is None:
            stamp = bytes(16)
        rec = HDR.pack(START_ID, VAR_ADDED, 0, attr, 0, stamp, 0, len(nm), len(data), guid.bytes_le) + nm + data
        if self.free + len(rec) > self.end:
            raise StoreError("%s: variable store full (at offset %d)" % (self.path, self.free))
        self.buf[self.free:self.free + len(rec)] = rec

    def save(self):
        with open(self.path + ".tmp", "wb") as f:
            f.write(self.buf)
        os.replace(self.path + ".tmp", self.path)


def efi_time(text):
    """YYYYMMDDhhmmss -> EFI_TIME (Year u16, Month, Day, Hour, Minute, Second, Pad1,
    Nanosecond u32, TimeZone i16, Daylight, Pad2)."""
    t = [int(text[0:4])] + [int(text[i:i + 2]) for i in range(4, 14, 2)]
    return struct.pack("<HBBBBBBIhBB", t[0], t[1], t[2], t[3], t[4], t[5], 0, 0, 0, 0, 0)


def dump(store, outdir):
    os.makedirs(outdir, exist_ok=True)
    for (name, guid), v in store.live().items():
        with open(os.path.join(outdir, "%s-%s" % (name, guid)), "wb") as f:
            f.write(struct.pack("<I", v.attr & 0xFFFFFFFF) + v.data)


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 64
    cmd, path = argv[1], argv[2]
    st = Store(path)
    if cmd == "list":
        for (name, guid), v in st.live().items():
            print("%s-%s attr=0x%x size=%d" % (name, guid, v.attr, len(v.data)))
    elif cmd == "dump" and len(argv) == 4:
        dump(st, argv[3])
    elif cmd == "get" and len(argv) == 5:
        v = st.find(argv[3], guid_of(argv[4]))
        if v is None:
            sys.stderr.write("ovmf_vars: %s: no variable %s-%s\n" % (path, argv[3], argv[4]))
            return 1
        sys.stdout.buffer.write(v.data)
    elif cmd == "set" and len(argv) in (7, 9):
        val = argv[6]
        if val.startswith("@"):
            with open(val[1:], "rb") as f:
                data = f.read()
        else:
            data = bytes.fromhex(val)
        stamp = efi_time(argv[8]) if len(argv) == 9 and argv[7] == "--time" else None
        attr = int(argv[5], 0)
        if attr & TIME_BASED and stamp is None:
            stamp = efi_time("20100101000000")
        st.set(argv[3], guid_of(argv[4]), attr, data, stamp)
        st.save()
    elif cmd == "delete" and len(argv) == 5:
        if not st.delete(argv[3], guid_of(argv[4])):
            sys.stderr.write("ovmf_vars: %s: no variable %s-%s\n" % (path, argv[3], argv[4]))
            return 1
        st.save()
    else:
        sys.stderr.write(__doc__)
        return 64
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except StoreError as e:
        sys.stderr.write("ovmf_vars: %s\n" % e)
        sys.exit(65)
