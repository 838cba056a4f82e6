/* libs.c - libcryptsetup and libtss2-mu, loaded on first use (dlopen, as
 * systemd does): the ktrust program and every command that never reads a
 * LUKS2 header keep their start-up free of libcryptsetup's dependencies
 * (device-mapper, json-c, blkid, udev, selinux, argon2).  The prototypes
 * are the libraries' own headers'. */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#include "seal/seal.h"

static struct kt_seal_cs cs;
static struct kt_seal_mu mu;
static bool cs_ok, mu_ok;
static pthread_once_t cs_once = PTHREAD_ONCE_INIT, mu_once = PTHREAD_ONCE_INIT;

#define SYM(lib, tab, name) ((tab).name = (__typeof__((tab).name))dlsym(lib, #name)) != NULL

static void cs_load(void)
{
    void *h = dlopen("libcryptsetup.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    cs_ok = SYM(h, cs, crypt_init) && SYM(h, cs, crypt_load) && SYM(h, cs, crypt_free) &&
            SYM(h, cs, crypt_token_json_get) && SYM(h, cs, crypt_token_max) &&
            SYM(h, cs, crypt_set_log_callback);
}

static void mu_load(void)
{
    void *h = dlopen("libtss2-mu.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    mu_ok = SYM(h, mu, Tss2_MU_TPM2B_PUBLIC_Unmarshal) &&
            SYM(h, mu, Tss2_MU_TPML_PCR_SELECTION_Marshal) && SYM(h, mu, Tss2_MU_TPM2_CC_Marshal) &&
            SYM(h, mu, Tss2_MU_TPMT_PUBLIC_Marshal);
}

const struct kt_seal_cs *kt_seal_cryptsetup(void)
{
    pthread_once(&cs_once, cs_load);
    return cs_ok ? &cs : NULL;
}

const struct kt_seal_mu *kt_seal_tss2(void)
{
    pthread_once(&mu_once, mu_load);
    return mu_ok ? &mu : NULL;
}
