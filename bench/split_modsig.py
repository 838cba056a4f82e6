#!/usr/bin/env python3
"""Split a signed module into its body and its PKCS#7 signature (for the
`openssl cms -verify` reference loop in bench/run.sh)."""
import struct
import sys

MAGIC = b"~Module signature appended~\n"
data = open(sys.argv[1], "rb").read()
if not data.endswith(MAGIC):
    sys.exit(1)
end = len(data) - len(MAGIC)
sig_len = struct.unpack(">I", data[end - 4:end])[0]
sig_end = end - 12
body_end = sig_end - sig_len
if body_end < 0:
    sys.exit(1)
open(sys.argv[2], "wb").write(data[:body_end])
open(sys.argv[3], "wb").write(data[body_end:sig_end])
