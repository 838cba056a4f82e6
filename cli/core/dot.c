/* dot.c - the Graphviz writer. */
#include "dot.h"

#include <stdarg.h>
#include <string.h>

#include "cli.h"

int dot_open(struct cli_dot *d, const char *path, const char *name)
{
    d->path = path;
    d->f = fopen(path, "w");
    if (!d->f) {
        cli_errorf(path, "cannot write: %m");
        return EXIT_NOINPUT;
    }
    fprintf(d->f, "digraph %s {\n  rankdir=TB;\n  node [shape=box, style=filled];\n", name);
    return 0;
}

void dot_node(struct cli_dot *d, const char *id, const char *fill, bool dashed, const char *fmt, ...)
{
    char label[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(label, sizeof(label), fmt, ap);
    va_end(ap);
    fprintf(d->f, "  %s [label=\"", id);
    for (const char *s = label; *s; s++) {
        if (*s == '\n') {
            fputs("\\n", d->f);
            continue;
        }
        if (*s == '"' || *s == '\\')
            fputc('\\', d->f);
        fputc(*s, d->f);
    }
    fprintf(d->f, "\", fillcolor=%s%s];\n", fill, dashed ? ", style=\"filled,dashed\"" : "");
}

void dot_edge(struct cli_dot *d, const char *from, const char *to, bool good)
{
    fprintf(d->f, "  %s -> %s [color=%s];\n", from, to, good ? "darkgreen" : "red");
}

int dot_close(struct cli_dot *d)
{
    fprintf(d->f, "}\n");
    if (fclose(d->f) != 0) {
        cli_errorf(d->path, "cannot write: %m");
        return EXIT_NOINPUT;
    }
    return 0;
}

const char *dot_verdict_fill(int verdict)
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

const char *dot_base(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}
