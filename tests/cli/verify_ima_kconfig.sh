#!/bin/bash
# --kernel-config: the kernel's build configuration decides which keyring
# IMA appraisal searches (digsig.c's keyring_name) and who may add to it
# (integrity_init_keyring, restrict_link_to_ima):
#   CONFIG_INTEGRITY_TRUSTED_KEYRING unset (Debian 12): `_ima`, no
#     restriction: a key nothing vouches for is used (the tpm_replay_a boot
#     shows the Debian kernel doing it);
#   set, without CONFIG_IMA_KEYRINGS_PERMIT_SIGNED_BY_BUILTIN_OR_SECONDARY:
#     builtin only (restrict_link_by_builtin_trusted): a key a secondary key
#     signed is refused (the old model took it);
#   set, with it: builtin or secondary.
# Without a config the restricted .ima (builtin or secondary) is assumed, and
# said.  CONFIG_IMA_APPRAISE_MODSIG unset: a modsig is never read.  The
# parser's errors name the file and line; ima-list takes the same options
# and, under --root, ROOT/boot/config-* of the newest release.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/pki.sh"
command -v evmctl >/dev/null || { echo "skipped: evmctl not installed (scripts/deps.sh)"; exit 77; }
command -v jq >/dev/null || { echo "skipped: jq not installed"; exit 77; }
cd "$T" || exit 1
gen_ca ca "IMA CA"
gen_leaf sec "Secondary" ca
gen_leaf viasec "Via secondary" sec
gen_ca other "Other CA"
gen_leaf stray "Stray" other
S=(--store "$T/s.db")
"$KTRUST" keyring add "${S[@]}" --keyring builtin ca.pem 2>/dev/null
"$KTRUST" keyring add "${S[@]}" --keyring secondary sec.pem 2>/dev/null
for k in stray viasec; do
    head -c 600 /dev/urandom >f.$k
    evmctl ima_sign --sigfile --key $k.key f.$k >/dev/null 2>&1
done
# the lines of Debian 12's /boot/config-6.1.0-*-amd64 that matter here
cat >debian.config <<'EOF'
#
# Automatically generated file; DO NOT EDIT.
# Linux/x86 6.1.0 Kernel Configuration
#
CONFIG_CC_VERSION_TEXT="gcc-12 (Debian 12.2.0-14) 12.2.0"
CONFIG_INTEGRITY=y
CONFIG_INTEGRITY_SIGNATURE=y
CONFIG_INTEGRITY_ASYMMETRIC_KEYS=y
# CONFIG_INTEGRITY_TRUSTED_KEYRING is not set
CONFIG_INTEGRITY_PLATFORM_KEYRING=y
CONFIG_INTEGRITY_MACHINE_KEYRING=y
CONFIG_IMA_DEFAULT_TEMPLATE="ima-sig"
CONFIG_IMA_APPRAISE=y
# CONFIG_IMA_APPRAISE_MODSIG is not set
# CONFIG_IMA_KEYRINGS_PERMIT_SIGNED_BY_BUILTIN_OR_SECONDARY is not set
EOF
printf 'CONFIG_INTEGRITY_ASYMMETRIC_KEYS=y\nCONFIG_INTEGRITY_TRUSTED_KEYRING=y\nCONFIG_IMA_APPRAISE_MODSIG=y\n' >builtin.config
cat builtin.config - >permit.config <<<'CONFIG_IMA_KEYRINGS_PERMIT_SIGNED_BY_BUILTIN_OR_SECONDARY=y'

# a key nothing vouches for: refused by the assumed .ima, used from _ima
expect_exit 6 "stray key, no config: the assumed .ima refuses it" -- \
    "$KTRUST" verify-ima --sigfile --ima-key stray.pem f.stray
expect_exit 0 "stray key, Debian's config: _ima takes it" -- \
    "$KTRUST" verify-ima --sigfile --kernel-config debian.config --ima-key stray.pem f.stray
expect_exit 6 "stray key, a trusted keyring: refused" -- \
    "$KTRUST" verify-ima --sigfile --kernel-config permit.config --ima-key stray.pem f.stray
out=$("$KTRUST" verify-ima --sigfile --kernel-config debian.config --ima-key stray.pem f.stray)
expect_match "$out" "keyring: unrestricted \`_ima\` keyring \(CONFIG_INTEGRITY_TRUSTED_KEYRING unset\).*\(from debian.config\)" "text says the rule"
expect_match "$("$KTRUST" verify-ima --sigfile --kernel-config debian.config f.stray)" \
    "no key with id [0-9a-f]{8} in _ima" "the kernel's keyring name in the reason"
j=$("$KTRUST" verify-ima --json --sigfile --kernel-config debian.config --ima-key stray.pem f.stray)
expect_eq "$(jq -c '.ima.keyring | [.name, .restricted, .vouched_by, .source, .kernel_config, .modsig]' <<<"$j")" \
    '["_ima",false,[],"kernel_config","debian.config",false]' "JSON: the _ima rule"
j=$("$KTRUST" verify-ima --json --sigfile --ima-key stray.pem f.stray 2>/dev/null)
expect_eq "$(jq -c '.ima.keyring | [.name, .restricted, .vouched_by, .source, .kernel_config]' <<<"$j")" \
    '[".ima",true,["builtin","secondary"],"assumed",null]' "JSON: the assumed rule"
expect_match "$("$KTRUST" verify-ima --sigfile --ima-key stray.pem f.stray 2>/dev/null)" \
    "keyring: restricted \`\.ima\` keyring.*assumed: no kernel config given" "text says assumed"

# a store's own ima keyring is used as it is: the rule says so
S2=(--store "$T/s2.db")
"$KTRUST" keyring create "${S2[@]}" ima --restrict signed-by:builtin >/dev/null 2>&1
j=$("$KTRUST" verify-ima --json --sigfile "${S2[@]}" --kernel-config debian.config f.stray)
expect_eq "$(jq -r '.ima.keyring.source' <<<"$j")" store "JSON: the store's keyring"
expect_match "$("$KTRUST" verify-ima --sigfile "${S2[@]}" --kernel-config debian.config f.stray)" \
    "keyring: the store's ima keyring, used as it is" "text: the store's keyring"

# a key a secondary key signed: builtin or secondary with PERMIT, builtin only without
expect_exit 0 "via secondary, no config (assumed PERMIT)" -- \
    "$KTRUST" verify-ima --sigfile "${S[@]}" --ima-key viasec.pem f.viasec
expect_exit 0 "via secondary, PERMIT" -- \
    "$KTRUST" verify-ima --sigfile "${S[@]}" --kernel-config permit.config --ima-key viasec.pem f.viasec
expect_exit 6 "via secondary, no PERMIT: restrict_link_by_builtin_trusted refuses it" -- \
    "$KTRUST" verify-ima --sigfile "${S[@]}" --kernel-config builtin.config --ima-key viasec.pem f.viasec
expect_match "$("$KTRUST" verify-ima --sigfile "${S[@]}" --kernel-config builtin.config --ima-key viasec.pem f.viasec 2>&1)" \
    "restriction \(signed-by:builtin\) refused it" "builtin only, said"

# CONFIG_IMA_APPRAISE_MODSIG unset: the modsig is not read
gen_leaf imakey "IMA" ca
head -c 3000 /dev/urandom >body
sign_module body m1 imakey.pem imakey.key
R=(--trust ca.pem --ima-key imakey.pem --func MODULE_CHECK)
expect_exit 0 "modsig, MODSIG=y" -- "$KTRUST" verify-ima "${R[@]}" --kernel-config builtin.config m1
expect_exit 1 "modsig, MODSIG unset: not read" -- "$KTRUST" verify-ima "${R[@]}" --kernel-config debian.config m1
expect_match "$("$KTRUST" verify-ima "${R[@]}" --kernel-config debian.config m1)" \
    "modsig is not read: CONFIG_IMA_APPRAISE_MODSIG unset" "said why"

# the parser: one line with the file and line number, exit 64
printf 'CONFIG_A=y\nnot a config line\n' >bad.config
expect_exit 64 "a bad line" -- "$KTRUST" verify-ima --sigfile --kernel-config bad.config f.stray
expect_match "$("$KTRUST" verify-ima --sigfile --kernel-config bad.config f.stray 2>&1)" \
    "^ktrust: bad.config: line 2: not a kernel config line" "file and line"
printf 'CONFIG_INTEGRITY_TRUSTED_KEYRING=m\n' >m.config
expect_match "$("$KTRUST" verify-ima --sigfile --kernel-config m.config f.stray 2>&1)" \
    "m.config: line 1: CONFIG_INTEGRITY_TRUSTED_KEYRING=m: a bool is y or n" "a bool's value"
# a fragment never decides the rule by leaving a symbol out (it made _ima
# unrestricted: a stray key trusted), nor does a kernel without asymmetric
# IMA keys (it checks no signature with a key)
printf 'CONFIG_IMA=y\n' >fragment.config
expect_exit 64 "a fragment: refused, not _ima" -- \
    "$KTRUST" verify-ima --sigfile --kernel-config fragment.config --ima-key stray.pem f.stray
expect_match "$("$KTRUST" verify-ima --sigfile --kernel-config fragment.config f.stray 2>&1)" \
    "fragment.config: CONFIG_INTEGRITY_ASYMMETRIC_KEYS not found: not a whole kernel config" "says what is missing"
printf 'CONFIG_INTEGRITY_ASYMMETRIC_KEYS=y\nCONFIG_IMA=y\n' >notrust.config
expect_match "$("$KTRUST" verify-ima --sigfile --kernel-config notrust.config --ima-key stray.pem f.stray 2>&1)" \
    "CONFIG_INTEGRITY_TRUSTED_KEYRING not found" "the trusted-keyring symbol left out"
printf '# CONFIG_INTEGRITY_SIGNATURE is not set\n# CONFIG_INTEGRITY_ASYMMETRIC_KEYS is not set\n' >noasym.config
out=$("$KTRUST" verify-ima --sigfile --kernel-config noasym.config --ima-key stray.pem f.stray 2>&1)
rc=$?
expect_match "$out" "checks no IMA signature with a key" "no asymmetric keys: said"
[ "$rc" != 0 ] && ok "no asymmetric keys: not trusted (exit $rc)" || bad "no asymmetric keys: exit 0"
: >empty.config
expect_exit 64 "empty: not a kernel config" -- "$KTRUST" verify-ima --sigfile --kernel-config empty.config f.stray
expect_exit 66 "missing config" -- "$KTRUST" verify-ima --sigfile --kernel-config nope.config f.stray

# ima-list: the same options; under --root the newest boot/config-*
mkdir -p root/boot root/sys/kernel/security/ima
cp debian.config root/boot/config-6.1.0-9-amd64
cp permit.config root/boot/config-6.1.0-10-amd64
# one ima-sig entry signed by the stray key, in the ASCII form
d=$(sha256sum f.stray | cut -c1-64)
sig=$(od -An -tx1 -v f.stray.sig | tr -d ' \n')
printf '10 %s ima-sig sha256:%s /f.stray %s\n' "$(printf '0%.0s' $(seq 40))" "$d" "$sig" \
    >root/sys/kernel/security/ima/ascii_runtime_measurements
L=root/sys/kernel/security/ima/ascii_runtime_measurements
j=$("$KTRUST" ima-list "$L" --kernel-config debian.config --ima-key stray.pem --json 2>/dev/null | jq -c 'select(.type == "ima_list") | .ima_keyring.name')
expect_eq "$j" '"_ima"' "ima-list --kernel-config"
j=$("$KTRUST" ima-list --root root "$L" --ima-key stray.pem --json 2>/dev/null | jq -c 'select(.type == "ima_list") | .ima_keyring | [.name, .kernel_config]')
expect_eq "$j" '[".ima","root/boot/config-6.1.0-10-amd64"]' "ima-list --root: the newest release's config"
finish
