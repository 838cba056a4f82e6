/* sdboot.h - systemd-boot on an ESP as systemd 252's systemd-boot reads it
 * (src/boot/efi/boot.c of v252: line_get_key_value, config_entry_add_type1,
 * config_defaults_load_from_file, config_entry_add_unified,
 * config_entry_compare, config_default_entry_select).  Public API:
 * ktrust/sdboot.h. */
#ifndef KT_SDBOOT_SDBOOT_H
#define KT_SDBOOT_SDBOOT_H

#include "ktrust/sdboot.h"

/* One key/value line of a configuration file, as line_get_key_value gives
 * it: leading and trailing blanks dropped, '#' comments and empty lines
 * skipped, the key up to the first separator character, the value after
 * the separators, a value in double quotes when the line ends in one
 * unquoted.  text is changed in place (NUL-terminated by the caller). */
struct kt_sdboot_lines {
    char *text;
    size_t pos;
    unsigned line;     /* the line just returned, 1-based */
    unsigned newlines; /* '\n' read so far */
    const char *sep;
};
/* The next line with a key and a value: 1 (*key, *value point into text),
 * 0 at the end; a line with no separator calls add (systemd-boot skips it). */
int kt_sdboot_line(struct kt_sdboot_lines *l, char **key, char **value, kt_sdboot_problem_fn add,
                   void *ctx);

/* Copy src into dst (cap bytes); false when it did not fit (truncated). */
bool kt_sdboot_copy(char *dst, size_t cap, const char *src);
/* xstra_to_path: '/' for '\', a leading '/', repeated separators once. */
bool kt_sdboot_to_path(char *dst, size_t cap, const char *src);
/* The "+LEFT-DONE" boot counter before suffix in name (config_entry_parse_tries). */
void kt_sdboot_tries(const char *name, const char *suffix, int *left, int *done);
/* ASCII lower case in place (strtolower16). */
void kt_sdboot_lower(char *s);

/* loader.conf's keys systemd 252 knows and the last valid value of each. */
#define KT_SDBOOT_SETTINGS 10
struct kt_sdboot_conf {
    bool set[KT_SDBOOT_SETTINGS];
    bool cut[KT_SDBOOT_SETTINGS]; /* the value kept is truncated */
    char value[KT_SDBOOT_SETTINGS][KT_SDBOOT_TEXT];
};
extern const char *const kt_sdboot_setting_names[KT_SDBOOT_SETTINGS];
/* Parse loader.conf's text (changed in place). */
void kt_sdboot_conf_parse(char *text, struct kt_sdboot_conf *c, kt_sdboot_problem_fn add, void *ctx);

/* systemd's strverscmp_improved (NULL or "" sorts first) and efi_fnmatch. */
int kt_sdboot_verscmp(const char *a, const char *b);
bool kt_sdboot_fnmatch(const char *pattern, const char *s);

#define KT_SDBOOT_VARS 3 /* LoaderEntryDefault, LoaderEntryOneShot, LoaderEntryLastBooted */

struct kt_sdboot_owned_addon {
    char owner[KT_SDBOOT_PATH]; /* the UKI's source path, "" for a global one */
    struct kt_sdboot_addon a;
};

struct kt_sdboot {
    char esp[KT_SDBOOT_PATH];
    struct kt_sdboot_entry *e;
    size_t n;
    struct kt_sdboot_problem *p;
    size_t np;
    struct kt_sdboot_owned_addon *a;
    size_t na;
    struct kt_sdboot_conf conf;
    bool var_set[KT_SDBOOT_VARS];
    bool var_cut[KT_SDBOOT_VARS]; /* the value kept is truncated: never matched */
    char var[KT_SDBOOT_VARS][KT_SDBOOT_TEXT];
    const char *problem_file; /* the file add() charges a problem to */
    int rc;                   /* -ENOMEM once a list could not grow */
};

/* A problem on the file s->problem_file (a kt_sdboot_problem_fn). */
void kt_sdboot_add_problem(void *s, unsigned line, const char *reason);
/* Append an entry (copied); its add-ons follow with kt_sdboot_add_addon. */
int kt_sdboot_add_entry(struct kt_sdboot *s, const struct kt_sdboot_entry *e);
int kt_sdboot_add_addon(struct kt_sdboot *s, const char *owner, const char *path, const char *resolved);

/* Is buf systemd-boot itself (its .sdmagic says "systemd-boot ")?  THE
 * test, for the chain too (kt_chain_is_systemd_boot_buf; sdboot_next.c). */
bool kt_sdboot_is_binary(const uint8_t *buf, size_t len);

/* Sort the entries into systemd-boot's menu order (sdboot_order.c). */
void kt_sdboot_sort(struct kt_sdboot *s);
/* The Type #2 entries of EFI/Linux and their add-ons (sdboot_uki.c). */
int kt_sdboot_scan_unified(struct kt_sdboot *s);
/* The add-ons of a directory under the ESP for the UKI owner ("": global). */
int kt_sdboot_scan_addons(struct kt_sdboot *s, const char *dir, const char *owner);
/* Each *.SUFFIX file of dir under the ESP (case-blind, not hidden, not a
 * directory, not "auto-*" unless addons), by name, to fn(s, rel, real, name). */
typedef int (*kt_sdboot_file_fn)(struct kt_sdboot *s, const char *rel, const char *real,
                                 const char *name, void *ctx);
int kt_sdboot_each_file(struct kt_sdboot *s, const char *dir, const char *suffix, bool skip_auto,
                        kt_sdboot_file_fn fn, void *ctx);

#endif
