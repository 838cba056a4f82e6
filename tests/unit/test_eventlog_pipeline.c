/* test_eventlog_pipeline.c - the one replay loop of a prediction
 * (src/eventlog/pipeline.c) with recomputers the test registers, on the
 * OVMF+swtpm boot log: a recomputer registered for a PCR changes only that
 * PCR's events, the first that claims an event wins, an event no
 * recomputer claims keeps its logged digest, an inactive recomputer
 * predicts nothing, and every bank is replayed (checked against a replay
 * the test does itself).  Then the library's own table: PCR 7 and 14 with
 * variables, PCR 4 only with an ESP, and the db authority kept without an
 * ESP says so by a hint code, not by naming an option. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/crypto.h"
#include "eventlog/recompute.h"
#include "kt_test.h"
#include "ktrust/eventlog.h"

#define FAKE 0x5a

/* Is event i a UEFI variable event of PCR 1 named name? */
static bool is_var(const struct kt_evlog *log, size_t i, const char *name)
{
    struct kt_evlog_var v;
    return log->event[i].type == KT_EV_EFI_VARIABLE_BOOT &&
           kt_evlog_var_parse(&log->event[i], &v, NULL) == 0 && (!name || !strcmp(v.name, name));
}

static int claims_boot0001(const struct kt_evlog *log, size_t i, struct kt_error *err)
{
    (void)err;
    return is_var(log, i, "Boot0001");
}

/* Every bank's digest set to FAKE bytes. */
static int fake_digest(const struct kt_evlog *log, size_t i, const struct kt_evlog_predict_opts *o,
                       struct kt_evlog_predicted *pr, struct kt_error *err)
{
    uint8_t d[KT_EVLOG_MAX_BANKS][KT_EVLOG_MAX_DIGEST];
    (void)i, (void)o, (void)err;
    memset(d, FAKE, sizeof(d));
    kt_evlog_pred_set(log, pr, d);
    return 0;
}

static int claims_any_var(const struct kt_evlog *log, size_t i, struct kt_error *err)
{
    (void)err;
    return is_var(log, i, NULL);
}

/* Recomputed to what the log holds: the logged digests, said so. */
static int same_digest(const struct kt_evlog *log, size_t i, const struct kt_evlog_predict_opts *o,
                       struct kt_evlog_predicted *pr, struct kt_error *err)
{
    uint8_t d[KT_EVLOG_MAX_BANKS][KT_EVLOG_MAX_DIGEST];
    (void)o, (void)err;
    memset(d, 0, sizeof(d));
    for (size_t b = 0; b < log->n_banks; b++) {
        size_t len;
        const uint8_t *x = kt_evlog_event_digest(&log->event[i], log->bank[b].alg, &len);
        if (x)
            memcpy(d[b], x, len);
    }
    kt_evlog_pred_set(log, pr, d);
    return 0;
}

/* Not measured at the next boot. */
static int removed_digest(const struct kt_evlog *log, size_t i,
                          const struct kt_evlog_predict_opts *o, struct kt_evlog_predicted *pr,
                          struct kt_error *err)
{
    (void)log, (void)i, (void)o, (void)err;
    pr->how = KT_PRED_REMOVED;
    return 0;
}

static bool never(const struct kt_evlog_predict_opts *o)
{
    (void)o;
    return false;
}

static const struct kt_evlog_recomputer fake = {1, "test", "Boot0001", NULL, claims_boot0001,
                                                fake_digest, NULL};
static const struct kt_evlog_recomputer same = {1, "test", "boot variables", NULL, claims_any_var,
                                                same_digest, NULL};
static const struct kt_evlog_recomputer off = {8, "test", "off", never, claims_any_var,
                                               fake_digest, NULL};
static const struct kt_evlog_recomputer gone = {1, "test", "Boot0001 gone", NULL, claims_boot0001,
                                                removed_digest, NULL};

static enum kt_hash hash_of(uint16_t alg)
{
    return alg == KT_TPM_ALG_SHA1 ? KT_HASH_SHA1 : alg == KT_TPM_ALG_SHA256 ? KT_HASH_SHA256
                                                                            : KT_HASH_NONE;
}

/* PCR 1 of bank b replayed by the test: the logged digests, Boot0001's
 * replaced by FAKE bytes when fake_boot0001, left out when drop. */
static void replay_pcr1_as(const struct kt_evlog *log, size_t b, bool fake_boot0001, bool drop,
                           uint8_t *out)
{
    size_t size = log->bank[b].size;
    uint8_t buf[2 * KT_EVLOG_MAX_DIGEST];
    memset(out, 0, size);
    for (size_t i = 0; i < log->n_events; i++) {
        const struct kt_evlog_event *e = &log->event[i];
        const uint8_t *d = kt_evlog_event_digest(e, log->bank[b].alg, NULL);
        if (e->pcr != 1 || e->type == KT_EV_NO_ACTION || !d || (drop && is_var(log, i, "Boot0001")))
            continue;
        memcpy(buf, out, size);
        if (fake_boot0001 && is_var(log, i, "Boot0001"))
            memset(buf + size, FAKE, size);
        else
            memcpy(buf + size, d, size);
        CHECK(kt_digest(hash_of(log->bank[b].alg), buf, 2 * size, out) == 0, "digest");
    }
}

static void replay_pcr1(const struct kt_evlog *log, size_t b, bool fake_boot0001, uint8_t *out)
{
    replay_pcr1_as(log, b, fake_boot0001, false, out);
}

/* An event a recomputer says is not measured at the next boot is left out
 * of the replay (#32: setup mode's authority events, MokListTrusted). */
static void removed_event(const struct kt_evlog *log)
{
    const struct kt_evlog_recomputer *const table[] = {&gone, &same};
    struct kt_evlog_prediction *p;
    uint8_t want[KT_EVLOG_MAX_DIGEST];
    CHECK(kt_evlog_predict_with(table, 2, log, NULL, &p, NULL) == 0, "predict");
    const struct kt_evlog_pcrs *after = kt_evlog_prediction_after(p);
    for (size_t b = 0; b < after->n_banks; b++) {
        replay_pcr1_as(log, b, false, true, want);
        CHECK(!memcmp(after->bank[b].pcr[1], want, after->bank[b].size),
              "bank %zu: PCR 1 replayed without Boot0001", b);
    }
    CHECK(kt_evlog_prediction_changes(p, 1), "PCR 1 changes");
    kt_evlog_prediction_free(p);
}

static void only_pcr1(const struct kt_evlog *log)
{
    const struct kt_evlog_recomputer *const table[] = {&off, &fake, &same};
    struct kt_evlog_prediction *p;
    CHECK(kt_evlog_predict_with(table, 3, log, NULL, &p, NULL) == 0, "predict");
    CHECK_EQ_INT(kt_evlog_prediction_n_pcrs(p), 1, "one PCR predicted (8's recomputer is off)");
    CHECK_EQ_INT(kt_evlog_prediction_pcr(p, 0), 1, "PCR 1");
    CHECK(!kt_evlog_prediction_has(p, 8) && !kt_evlog_prediction_has(p, 7), "not 8, not 7");
    CHECK_EQ_INT(kt_evlog_prediction_n_events(p, 1), 6, "PCR 1: BootOrder, Boot0000-3, separator");
    size_t changed = 0, recomputed = 0, kept = 0;
    for (size_t k = 0; k < kt_evlog_prediction_n_events(p, 1); k++) {
        const struct kt_evlog_predicted *x = kt_evlog_prediction_event(p, 1, k);
        const struct kt_evlog_event *e = &log->event[x->event_index];
        bool boot1 = is_var(log, x->event_index, "Boot0001");
        changed += x->how == KT_PRED_CHANGED;
        recomputed += x->how == KT_PRED_RECOMPUTED;
        kept += x->how == KT_PRED_KEPT;
        CHECK(e->pcr == 1, "event %zu is PCR 1's", x->event_index);
        CHECK(x->how == (boot1 ? KT_PRED_CHANGED
                         : e->type == KT_EV_SEPARATOR ? KT_PRED_KEPT : KT_PRED_RECOMPUTED),
              "event %zu: the first recomputer that claims it decides (%d)", x->event_index, x->how);
        for (size_t b = 0; b < log->n_banks; b++) {
            uint8_t want[KT_EVLOG_MAX_DIGEST];
            const uint8_t *d = kt_evlog_event_digest(e, log->bank[b].alg, NULL);
            if (boot1)
                memset(want, FAKE, sizeof(want));
            else
                memcpy(want, d, log->bank[b].size);
            CHECK(!memcmp(x->digest[b], want, log->bank[b].size), "event %zu bank %zu digest",
                  x->event_index, b);
        }
    }
    CHECK(changed == 1 && recomputed == 4 && kept == 1, "1 changed, 4 same, the separator kept");
    const struct kt_evlog_pcrs *now = kt_evlog_prediction_now(p), *after = kt_evlog_prediction_after(p);
    CHECK_EQ_INT(after->n_banks, 2, "sha1 and sha256");
    for (size_t b = 0; b < after->n_banks; b++) {
        uint8_t want[KT_EVLOG_MAX_DIGEST];
        for (unsigned pcr = 0; pcr < KT_EVLOG_PCRS; pcr++)
            if (pcr != 1)
                CHECK(!memcmp(after->bank[b].pcr[pcr], now->bank[b].pcr[pcr], after->bank[b].size),
                      "bank %zu PCR %u: untouched", b, pcr);
        replay_pcr1(log, b, true, want);
        CHECK(!memcmp(after->bank[b].pcr[1], want, after->bank[b].size),
              "bank %zu: PCR 1 replayed with the new Boot0001 digest", b);
        replay_pcr1(log, b, false, want);
        CHECK(!memcmp(now->bank[b].pcr[1], want, now->bank[b].size), "bank %zu: PCR 1 as logged", b);
        CHECK(memcmp(now->bank[b].pcr[1], after->bank[b].pcr[1], now->bank[b].size) != 0,
              "bank %zu: PCR 1 changes", b);
    }
    CHECK(kt_evlog_prediction_changes(p, 1) && !kt_evlog_prediction_changes(p, 7), "changes: 1 only");
    const char *source;
    CHECK_EQ_STR(kt_evlog_prediction_what(p, 1, &source), "test", "what");
    CHECK_EQ_STR(source, "Boot0001", "the first registered recomputer's source");
    kt_evlog_prediction_free(p);

    /* the same digests again: every bank replays to the logged PCR 1 */
    const struct kt_evlog_recomputer *const again[] = {&same};
    CHECK(kt_evlog_predict_with(again, 1, log, NULL, &p, NULL) == 0, "predict");
    now = kt_evlog_prediction_now(p), after = kt_evlog_prediction_after(p);
    for (size_t b = 0; b < after->n_banks; b++)
        CHECK(!memcmp(now->bank[b].pcr[1], after->bank[b].pcr[1], now->bank[b].size),
              "bank %zu: PCR 1 the same", b);
    CHECK(!kt_evlog_prediction_changes(p, 1), "no change");
    kt_evlog_prediction_free(p);
}

/* The library's table: PCR 7 and 14 with variables, PCR 4 only with an ESP;
 * the db authority kept for want of an ESP carries the hint, not an option. */
static void library_table(const struct kt_evlog *log, const char *corpus)
{
    char path[4096];
    CHECK(snprintf(path, sizeof(path), "%s/peers/ovmf-swtpm-boot/efivars", corpus) <
              (int)sizeof(path), "path");
    struct kt_efivars vars;
    CHECK(kt_efivars_read(path, &vars, NULL) == 0, "efivars");
    struct kt_evlog_predict_opts o = {.vars = &vars};
    struct kt_evlog_prediction *p;
    CHECK(kt_evlog_predict(log, &o, &p, NULL) == 0, "predict");
    CHECK_EQ_INT(kt_evlog_prediction_n_pcrs(p), 2, "PCR 7 and 14");
    CHECK(kt_evlog_prediction_pcr(p, 0) == 7 && kt_evlog_prediction_pcr(p, 1) == 14, "in order");
    CHECK(!kt_evlog_prediction_has(p, 4), "PCR 4 needs an ESP");
    CHECK_EQ_INT(kt_evlog_prediction_n_events(p, 14), 3, "MokList, MokListX, MokListTrusted");
    bool hinted = false;
    for (size_t k = 0; k < kt_evlog_prediction_n_events(p, 7); k++) {
        const struct kt_evlog_predicted *x = kt_evlog_prediction_event(p, 7, k);
        CHECK(!strstr(x->note, "--"), "no option named: %s", x->note);
        if (x->event_index == 25) {
            hinted = x->hint == KT_PRED_HINT_NO_ESP && x->how == KT_PRED_KEPT;
            CHECK(!memcmp(x->digest[1], kt_evlog_event_digest(&log->event[25], KT_TPM_ALG_SHA256,
                                                               NULL), 32),
                  "kept: the logged digest");
        }
    }
    CHECK(hinted, "the db authority (#25): kept, hint NO_ESP");
    const struct kt_evlog_pcrs *now = kt_evlog_prediction_now(p), *after = kt_evlog_prediction_after(p);
    for (size_t b = 0; b < after->n_banks; b++)
        for (unsigned pcr = 0; pcr < KT_EVLOG_PCRS; pcr++)
            if (pcr != 14)
                CHECK(!memcmp(after->bank[b].pcr[pcr], now->bank[b].pcr[pcr], after->bank[b].size),
                      "bank %zu PCR %u: the booted state predicts the logged value", b, pcr);
    kt_evlog_prediction_free(p);
    kt_efivars_free(&vars);
}

/* A prediction that starts from another machine's variables (.before) is
 * refused by the prediction itself; the same variables given as the state
 * predicted (no .before), or a change that writes PK, are predicted. */
static void other_machine(const struct kt_evlog *log, const char *corpus)
{
    char path[4096];
    CHECK(snprintf(path, sizeof(path), "%s/peers/shim-efivars/efivars-1", corpus) <
              (int)sizeof(path), "path");
    struct kt_efivars other, mine;
    CHECK(kt_efivars_read(path, &other, NULL) == 0, "efivars-1");
    CHECK(snprintf(path, sizeof(path), "%s/peers/ovmf-swtpm-boot/efivars", corpus) <
              (int)sizeof(path), "path");
    CHECK(kt_efivars_read(path, &mine, NULL) == 0, "efivars");
    struct kt_evlog_predict_opts o = {.vars = &other, .before = &other};
    struct kt_evlog_prediction *p = NULL;
    struct kt_error e = KT_ERROR_INIT;
    char why[512];
    CHECK_EQ_INT(kt_evlog_other_machine(log, &o, why, sizeof(why)), 1, "another machine's");
    CHECK_EQ_INT(kt_evlog_predict(log, &o, &p, &e), -EXDEV, "the prediction refuses it");
    CHECK(strstr(e.what, "another machine's") != NULL, "and says why: %s", e.what);
    kt_evlog_prediction_free(p);
    o.before = NULL; /* the variables are the change: PK and KEK re-enrolled */
    CHECK(kt_evlog_predict(log, &o, &p, NULL) == 0, "predicted without before");
    kt_evlog_prediction_free(p);
    o.before = &mine; /* this machine's, its PK and KEK replaced: a change to predict */
    CHECK_EQ_INT(kt_evlog_other_machine(log, &o, why, sizeof(why)), 0, "a change writing PK and KEK");
    o.vars = &mine;
    CHECK_EQ_INT(kt_evlog_other_machine(log, &o, why, sizeof(why)), 0, "this machine's");
    kt_efivars_free(&other);
    kt_efivars_free(&mine);
}

int main(void)
{
    const char *corpus = kt_test_require_corpus();
    char path[4096];
    CHECK(snprintf(path, sizeof(path), "%s/peers/ovmf-swtpm-boot/eventlog.bin", corpus) <
              (int)sizeof(path), "path");
    size_t len;
    unsigned char *buf = kt_test_slurp(path, &len);
    struct kt_evlog log;
    CHECK(buf && kt_evlog_parse(buf, len, &log, NULL) == 0, "parse %s", path);
    if (buf) {
        only_pcr1(&log);
        removed_event(&log);
        library_table(&log, corpus);
        other_machine(&log, corpus);
        kt_evlog_free(&log);
    }
    free(buf);
    KT_TEST_END();
}
