/* audit_dot.c - `ktrust audit --dot`: the chain as a graphviz picture,
 * each link coloured by its verdict, missing parts dashed, the modules that
 * would not load one node per reason. */
#include <stdio.h>
#include <string.h>

#include "audit_print.h"
#include "cli.h"

static const char *color(int verdict)
{
    switch (kt_verdict_of(verdict)) {
    case KT_TRUSTED: return "palegreen";
    case KT_REJECTED: return "tomato";
    case KT_MALFORMED: return "orange";
    case KT_UNTRUSTED:
    case KT_UNSIGNED: return "gold";
    default: return "lightgrey";
    }
}

static void esc(FILE *f, const char *s, size_t max)
{
    for (size_t i = 0; s[i] && i < max; i++) {
        if (s[i] == '"' || s[i] == '\\')
            fputc('\\', f);
        fputc(s[i] == '\n' ? ' ' : s[i], f);
    }
}

static const char *base(const char *p)
{
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

int audit_write_dot(const struct kt_audit *a, const char *out)
{
    FILE *f = fopen(out, "w");
    if (!f) {
        cli_errorf(out, "cannot write: %m");
        return EXIT_NOINPUT;
    }
    fprintf(f, "digraph audit {\n  rankdir=TB;\n  node [shape=box, style=filled];\n");
    const struct kt_audit_var *db = &a->vars[KT_AUDIT_VAR_DB];
    fprintf(f, "  firmware [label=\"firmware\\nSecure Boot %s\\ndb: %zu certificates\", fillcolor=lightblue%s];\n",
            a->secure_boot < 0 ? "unknown" : a->secure_boot ? "on" : "off", db->n_x509,
            a->found[KT_AUDIT_EFIVARS] ? "" : ", style=\"filled,dashed\"");
    /* boot entries: the audited one starts the chain below, the others end at
     * firmware's verdict on their file */
    for (size_t i = 0; i < a->n_boot; i++) {
        const struct kt_audit_boot *b = &a->boot[i];
        if (b->audited)
            continue;
        fprintf(f, "  b%zu [label=\"Boot%04X\\n", i, b->number & 0xffff);
        esc(f, b->present ? b->description : "(no variable)", 60);
        fprintf(f, "\\n");
        esc(f, b->file[0] ? base(b->file) : "", 60);
        if (b->checked)
            fprintf(f, "\\n%s\", fillcolor=%s];\n", kt_verdict_name(kt_verdict_of(b->verdict)),
                    color(b->verdict));
        else
            fprintf(f, "\\nnot checked\", fillcolor=white, style=\"filled,dashed\"];\n");
        fprintf(f, "  firmware -> b%zu [color=%s];\n", i, b->checked && b->verdict == 0 ? "darkgreen" : "red");
    }
    const char *prev = "firmware";
    for (int i = KT_AUDIT_SHIM; i <= KT_AUDIT_KERNEL_LINK; i++) {
        const struct kt_audit_link *L = &a->links[i];
        const char *id = kt_audit_link_name(i);
        fprintf(f, "  %s [label=\"%s\\n", id, id);
        esc(f, base(L->path), 80);
        if (L->present)
            fprintf(f, "\\n%s\", fillcolor=%s];\n", kt_verdict_name(kt_verdict_of(L->link.verdict)),
                    color(L->link.verdict));
        else
            fprintf(f, "\\nmissing\", fillcolor=white, style=\"filled,dashed\"];\n");
        fprintf(f, "  %s -> %s [color=%s];\n", prev, id,
                L->present && L->link.verdict == 0 ? "darkgreen" : "red");
        prev = id;
    }
    if (!a->found[KT_AUDIT_MODULES]) {
        fprintf(f, "  modules [label=\"modules\\nmissing\", fillcolor=white, style=\"filled,dashed\"];\n");
        fprintf(f, "  kernel -> modules [color=red];\n");
    } else {
        fprintf(f, "  modules [label=\"%zu modules\\ntrusted\", fillcolor=palegreen];\n",
                a->n_modules_trusted);
        fprintf(f, "  kernel -> modules [color=darkgreen];\n");
    }
    for (size_t i = 0; i < a->n_groups; i++) {
        const struct kt_audit_group *g = &a->groups[i];
        fprintf(f, "  g%zu [label=\"%zu module%s %s\\n", i, g->n, g->n == 1 ? "" : "s",
                kt_verdict_name(kt_verdict_of(g->verdict)));
        esc(f, g->reason, 100);
        fprintf(f, "\", fillcolor=%s];\n  kernel -> g%zu [color=red];\n", color(g->verdict), i);
    }
    fprintf(f, "}\n");
    if (fclose(f) != 0) {
        cli_errorf(out, "cannot write: %m");
        return EXIT_NOINPUT;
    }
    return 0;
}
