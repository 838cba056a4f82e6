/* audit_dot.c - `ktrust audit --dot`: the chain as a graphviz picture,
 * each link coloured by its verdict, missing parts dashed, the modules that
 * would not load one node per reason. */
#include <stdio.h>

#include "audit_print.h"
#include "cli.h"
#include "dot.h"

/* Boot entries other than the audited one end at firmware's verdict on
 * their file. */
static void boot_nodes(struct cli_dot *d, const struct kt_audit *a)
{
    for (size_t i = 0; i < a->n_boot; i++) {
        const struct kt_audit_boot *b = &a->boot[i];
        char id[32];
        if (b->audited)
            continue;
        snprintf(id, sizeof(id), "b%zu", i);
        const char *desc = b->present ? b->description : "(no variable)";
        const char *file = b->file[0] ? dot_base(b->file) : "";
        if (b->checked)
            dot_node(d, id, dot_verdict_fill(b->verdict), false, "Boot%04X\n%.60s\n%.60s\n%s",
                     b->number & 0xffff, desc, file, kt_verdict_name(kt_verdict_of(b->verdict)));
        else
            dot_node(d, id, "white", true, "Boot%04X\n%.60s\n%.60s\nnot checked",
                     b->number & 0xffff, desc, file);
        dot_edge(d, "firmware", id, b->checked && b->verdict == 0);
    }
}

int audit_write_dot(const struct kt_audit *a, const char *out)
{
    struct cli_dot d;
    if (dot_open(&d, out, "audit"))
        return EXIT_NOINPUT;
    dot_node(&d, "firmware", "lightblue", !a->found[KT_AUDIT_EFIVARS],
             "firmware\nSecure Boot %s\ndb: %zu certificates",
             a->secure_boot < 0 ? "unknown" : a->secure_boot ? "on" : "off",
             a->vars[KT_AUDIT_VAR_DB].n_x509);
    boot_nodes(&d, a);
    const char *prev = "firmware";
    for (int i = KT_AUDIT_SHIM; i <= KT_AUDIT_KERNEL_LINK; i++) {
        const struct kt_audit_link *L = &a->links[i];
        const char *id = kt_audit_link_name(i);
        if (L->present)
            dot_node(&d, id, dot_verdict_fill(L->link.verdict), false, "%s\n%.80s\n%s", id,
                     dot_base(L->path), kt_verdict_name(kt_verdict_of(L->link.verdict)));
        else
            dot_node(&d, id, "white", true, "%s\n%.80s\nmissing", id, dot_base(L->path));
        dot_edge(&d, prev, id, L->present && L->link.verdict == 0);
        prev = id;
    }
    if (!a->found[KT_AUDIT_MODULES]) {
        dot_node(&d, "modules", "white", true, "modules\nmissing");
        dot_edge(&d, "kernel", "modules", false);
    } else {
        dot_node(&d, "modules", "palegreen", false, "%zu modules\ntrusted", a->n_modules_trusted);
        dot_edge(&d, "kernel", "modules", true);
    }
    for (size_t i = 0; i < a->n_groups; i++) {
        const struct kt_audit_group *g = &a->groups[i];
        char id[32];
        snprintf(id, sizeof(id), "g%zu", i);
        dot_node(&d, id, dot_verdict_fill(g->verdict), false, "%zu module%s %s\n%.100s", g->n,
                 g->n == 1 ? "" : "s", kt_verdict_name(kt_verdict_of(g->verdict)), g->reason);
        dot_edge(&d, "kernel", id, false);
    }
    return dot_close(&d);
}
