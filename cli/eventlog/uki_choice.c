/* uki_choice.c - which UKI a prediction or a signed policy is judged by,
 * and why (the library's kt_sdboot_pick_uki): the same words and JSON
 * fields for eventlog --predict, unseal-check, plan-updates, check-update
 * and audit. */
#include <stdio.h>

#include "cli.h"
#include "eventlog_cli.h"
#include "ktrust/sdboot.h"

void ev_uki_choice_json(struct jw *w, const struct kt_sdboot_next_uki *c)
{
    jw_str(w, "file", c->path);
    ev_uki_choice_fields(w, c->image, c->entry, c->rule);
    jw_str(w, "options", c->type1 || c->options[0] ? c->options : NULL);
}

void ev_uki_choice_fields(struct jw *w, const char *image, const char *entry, int rule)
{
    jw_str(w, "uki", image[0] ? image : NULL);
    jw_str(w, "entry", entry[0] ? entry : NULL);
    jw_str(w, "rule", kt_sdboot_rule_name((enum kt_sdboot_rule)rule));
}

const char *ev_uki_choice_words(const char *entry, int rule, char *buf, size_t cap)
{
    if (rule == KT_SDBOOT_BY_GIVEN)
        snprintf(buf, cap, "given (--uki)");
    else if (rule == KT_SDBOOT_BY_ONLY)
        snprintf(buf, cap, "the only UKI in EFI/Linux (no systemd-boot)");
    else
        snprintf(buf, cap, "of systemd-boot's next entry %s (%s)", tx(entry),
                 kt_sdboot_rule_name((enum kt_sdboot_rule)rule));
    return buf;
}
