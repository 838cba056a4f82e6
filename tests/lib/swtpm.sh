# Sourced by the TPM tests after common.sh (in $T): a software TPM on a port
# pair of its own (swtpm_start).  swtpm_fresh (re)starts it as at a boot: its
# seeds kept (the sealed objects still load), its PCRs reset; DA lockout off,
# so that the failed unseals a test provokes never lock it.  tpm_flush
# empties its transient slots (systemd 252 and tpm2-tools leave objects and
# sessions behind; swtpm has no resource manager).  Sets PORT, TCTI,
# TPM2TOOLS_TCTI (they change only if a restart finds its port taken).
PORT=
SWPID=
swtpm_stop() { [ -n "$SWPID" ] && kill "$SWPID" 2>/dev/null; wait "$SWPID" 2>/dev/null; SWPID=; }
trap 'swtpm_stop; rm -rf "$T"' EXIT
swtpm_fresh() {
    swtpm_stop
    mkdir -p "$T/st"
    swtpm_start "$T/st" "$PORT" || { bad "swtpm did not start"; finish; }
    for _ in $(seq 50); do tpm2_pcrread sha1:0 >/dev/null 2>&1 && break; sleep 0.1; done
    tpm2_dictionarylockout -Q --setup-parameters --max-tries=1000 --recovery-time=0 \
        --lockout-recovery-time=0 --clear-lockout || bad "tpm2_dictionarylockout"
}
tpm_flush() { local k; for k in -s -l -t; do tpm2_flushcontext $k >/dev/null 2>&1; done; }
