#!/bin/bash
# Compare `ktrust x509 show --json` with `openssl x509` for generated
# certificates (RSA 2048/3072/4096, EC, Ed25519, PSS, with and without
# SKID/AKID, long/UTF-8/BMP/T61 names, dates past 2050) and for every
# certificate in the corpus: trust/*.pem, the EFI signature lists, shim's
# .vendor_cert, and the certificates inside the Authenticode signatures of
# shim, grub, mmx64, vmlinuz, signtool and the uthenticode samples.
# Fields: serial, subject, issuer, notBefore, notAfter, SKID, AKID keyid,
# key algorithm and size, SHA-256.  Prints the count compared and mismatches.
source "$(dirname "$0")/../lib/common.sh"
corpus

bash "$KT_SRC/tests/fixtures/gen_certs.sh" "$T/gen" || { bad "gen_certs.sh failed"; finish; }
mkdir -p "$T/corpus" "$T/certs"
n_src=$(python3 "$KT_SRC/tests/fixtures/corpus_certs.py" "$CORPUS" "$T/corpus")
# PKCS#7 signatures: their certificate sets, as one PEM bundle each
for p7 in "$T"/corpus/*.p7; do
    openssl pkcs7 -inform DER -in "$p7" -print_certs -out "${p7%.p7}.pem" 2>/dev/null ||
        bad "openssl cannot read $(basename "$p7")"
    rm -f "$p7"
done

python3 - "$KTRUST" "$T" <<'EOF'
import datetime, json, os, re, subprocess, sys
ktrust, tmp = sys.argv[1], sys.argv[2]
certs = []   # (label, path of a single-cert PEM or DER)
for d in ("gen", "corpus"):
    for fn in sorted(os.listdir(os.path.join(tmp, d))):
        p = os.path.join(tmp, d, fn)
        if fn.endswith(".der"):
            certs.append((d + "/" + fn, p))
        elif fn.endswith(".pem") and fn not in ("bundle.pem",):
            text = open(p).read()
            blocks = re.findall(r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----", text, re.S)
            for i, b in enumerate(blocks):
                q = os.path.join(tmp, "certs", "%s.%d.pem" % (fn, i))
                open(q, "w").write(b + "\n")
                certs.append(("%s/%s#%d" % (d, fn, i), q))

def ossl(path, *args):
    form = "DER" if path.endswith(".der") else "PEM"
    r = subprocess.run(["openssl", "x509", "-inform", form, "-in", path, "-noout", *args],
                       capture_output=True)
    return r.stdout.decode("utf-8", "surrogateescape")

def odate(s):
    return datetime.datetime.strptime(s.strip(), "%b %d %H:%M:%S %Y GMT").strftime("%Y-%m-%dT%H:%M:%SZ")

def hexid(s):
    return s.replace(":", "").strip().lower() or None

compared = mismatches = 0
for label, path in certs:
    r = subprocess.run([ktrust, "x509", "show", "--json", path], capture_output=True)
    out = r.stdout.decode("utf-8", "surrogateescape").strip()
    if r.returncode not in (0, 3) or not out:
        # MD5 (unsupported) still prints; anything else failing is a mismatch
        print("MISMATCH %s: ktrust exit %d: %s" % (label, r.returncode,
              r.stderr.decode(errors="replace").strip()))
        mismatches += 1
        continue
    k = json.loads(out.splitlines()[0])
    o = {}
    text = ossl(path, "-nameopt", "utf8,sep_comma_plus_space,sname,esc_ctrl", "-subject",
                "-issuer", "-serial", "-startdate", "-enddate", "-fingerprint", "-sha256", "-text")
    for line in text.splitlines():
        key, _, val = line.partition("=")
        if key in ("subject", "issuer", "serial", "notBefore", "notAfter", "sha256 Fingerprint"):
            o.setdefault(key, val.strip())
    serial = o.get("serial", "").lower()
    sign = "-" if serial.startswith("-") else ""
    serial = sign + (serial.lstrip("-").lstrip("0") or "0")
    nb, na = odate(o["notBefore"]), odate(o["notAfter"])
    fp = hexid(o["sha256 Fingerprint"])
    m = re.search(r"Subject Key Identifier: *\n *([0-9A-F:]+)", text)
    skid = hexid(m.group(1)) if m else None
    m = re.search(r"Authority Key Identifier: *\n *(?:keyid:)?([0-9A-F:]{2,})\n", text)
    akid = hexid(m.group(1)) if m else None
    m = re.search(r"Public-Key: \((\d+) bit\)", text)
    bits = int(m.group(1)) if m else None
    m = re.search(r"Public Key Algorithm: (\S+)", text)
    alg = {"rsaEncryption": "rsa", "id-ecPublicKey": "ecdsa", "ED25519": "ed25519"}.get(m.group(1) if m else "", None)
    checks = [("subject", k["subject"], o.get("subject")), ("issuer", k["issuer"], o.get("issuer")),
              ("serial", k["serial"], serial), ("not_before", k["not_before"], nb),
              ("not_after", k["not_after"], na), ("sha256", k["sha256"], fp),
              ("skid", k["skid"], skid), ("akid", k["akid"], akid),
              ("key_algorithm", k["key_algorithm"], alg)]
    if bits is not None and alg != "ed25519":
        checks.append(("key_bits", k["key_bits"], bits))
    compared += 1
    for name, got, want in checks:
        if got != want:
            mismatches += 1
            print("MISMATCH %s %s: ktrust %r, openssl %r" % (label, name, got, want))
print("x509_openssl_diff: %d certificates compared (%d fields each), %d mismatches" %
      (compared, 9, mismatches))
open(os.path.join(tmp, "result"), "w").write("%d %d\n" % (compared, mismatches))
EOF
read -r compared mismatches <"$T/result" || { bad "comparison did not run"; finish; }
expect_eq "$mismatches" 0 "ktrust vs openssl mismatches"
[ "$compared" -ge 80 ] && ok || bad "only $compared certificates compared"

# a PEM bundle gives one NDJSON record per certificate, in order
n=$("$KTRUST" x509 show --json "$T/gen/bundle.pem" | wc -l)
expect_eq "$n" 3 "bundle.pem records"
finish
