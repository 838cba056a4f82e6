/* dot.h - the one Graphviz writer (`chain --dot`, `audit --dot`): a graph
 * of boxes filled by verdict, labels escaped. */
#ifndef KT_CLI_DOT_H
#define KT_CLI_DOT_H

#include <stdbool.h>
#include <stdio.h>

struct cli_dot {
    FILE *f;
    const char *path;
};

/* Open path and start `digraph NAME` (top to bottom, filled boxes).
 * Returns 0 or EXIT_NOINPUT (the error printed). */
int dot_open(struct cli_dot *d, const char *path, const char *name);
/* A node: its label is printf-formatted, then escaped ('"' and '\\'), a
 * newline in it a line break; dashed: drawn as missing/not checked. */
void dot_node(struct cli_dot *d, const char *id, const char *fill, bool dashed, const char *fmt,
              ...) __attribute__((format(printf, 5, 6)));
void dot_edge(struct cli_dot *d, const char *from, const char *to, bool good);
/* End the graph and close.  Returns 0 or EXIT_NOINPUT (the error printed). */
int dot_close(struct cli_dot *d);
/* A node's fill for a verdict (0 / -errno). */
const char *dot_verdict_fill(int verdict);
/* The last part of a path. */
const char *dot_base(const char *path);

#endif
