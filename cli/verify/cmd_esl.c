/* ktrust esl show FILE...: what EFI signature lists (db, dbx, KEK, PK,
 * MokList, efivarfs files, signed updates) hold: each entry's type, owner
 * GUID, certificate or hash; dbx SVN records decoded. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert_print.h"
#include "cli.h"
#include "ktrust/advanced.h"
#include "ktrust/esl.h"
#include "ktrust/x509.h"

static void usage(FILE *f)
{
    cli_usage_print(f,
                    "usage: ktrust esl show [--json] [-q] FILE...\n\n"
                    "Show what EFI signature lists hold (db, dbx, KEK, PK, MokList, MokListX,\n"
                    "an efivarfs file with its attribute prefix, or a signed variable update):\n"
                    "one line per entry with its list and index, type, owner GUID and the\n"
                    "certificate's description and subject or the hash.  EFI_CERT_SHA256\n"
                    "entries owned by 9d132b6c-59d5-4388-ab1c-185cfcb2eb92 are dbx SVN records,\n"
                    "shown as 'svn APP-GUID MAJOR.MINOR', not as image hashes.\n"
                    "--json: one object per entry: {file, list, index, type, owner, value}\n"
                    "where value is a certificate object (x509), hex (hashes, other types) or\n"
                    "{version, guid, major, minor} (svn); an input that cannot be read or\n"
                    "parsed: {file, index, error, reason, offset}.\n",
                    cli_opts_show,
                    "exit codes: 0 ok, 4 malformed list or certificate, 66 unreadable file\n");
}

struct show {
    const char *file;
    const struct cli_common *co;
    size_t n, n_svn, n_cert, n_hash;
    int worst;
};

static const char *entry_type(const struct kt_esl_entry *e)
{
    return kt_esl_is_svn(e) ? "svn" : kt_esl_type_name(e->type);
}

static void entry_json(struct show *s, const struct kt_esl_entry *e, const struct kt_x509 *c,
                       const struct kt_esl_svn *svn, const struct kt_error *why)
{
    char owner[37], g[37];
    struct jw w;
    jw_init(&w, stdout);
    jw_obj(&w, NULL);
    jw_str(&w, "file", s->file);
    jw_int(&w, "list", (long long)e->list_index);
    jw_int(&w, "index", (long long)e->entry_index);
    jw_str(&w, "type", entry_type(e));
    if (e->type == KT_ESL_OTHER)
        jw_str(&w, "type_guid", kt_guid_str(e->type_guid, g));
    jw_str(&w, "owner", kt_guid_str(e->owner, owner));
    if (c) {
        cli_cert_json(&w, "value", c);
    } else if (svn) {
        jw_obj(&w, "value");
        jw_int(&w, "version", svn->version);
        jw_str(&w, "guid", kt_guid_str(svn->guid, g));
        jw_int(&w, "major", svn->major);
        jw_int(&w, "minor", svn->minor);
        jw_obj_end(&w);
    } else if (e->type == KT_ESL_X509) {
        jw_null(&w, "value"); /* a certificate the parser refused: see error */
    } else {
        jw_hex(&w, "value", e->data.p, e->data.len);
    }
    jw_str(&w, "error", why ? kt_errno_name(why->code) : NULL);
    jw_str(&w, "reason", why ? why->what : NULL);
    jw_obj_end(&w);
    jw_newline(&w);
}

static void entry_text(struct show *s, const struct kt_esl_entry *e, const struct kt_x509 *c,
                       const struct kt_esl_svn *svn, const struct kt_error *why)
{
    char owner[37], g[37], hex[2 * 64 + 1];
    printf("%s: %zu.%zu %s owner %s", tx(s->file), e->list_index, e->entry_index, entry_type(e),
           kt_guid_str(e->owner, owner));
    if (c) {
        printf("\n    %s\n    subject %s\n    sha256 %s\n", tx(kt_x509_description(c)),
               tx_name(kt_x509_subject(c)), kt_hex(kt_x509_sha256(c), 32, hex));
    } else if (svn) {
        printf(": %s %u.%u (record version %u)\n", kt_guid_str(svn->guid, g), svn->major,
               svn->minor, svn->version);
    } else if (e->type == KT_ESL_X509) {
        char subject[512];
        printf("\n    unparseable certificate (%s): %s\n",
               tx_name(kt_x509_peek_subject(e->data.p, e->data.len, subject, sizeof(subject))),
               why ? tx(why->what) : "refused");
    } else if (e->type == KT_ESL_OTHER) {
        printf(": type %s, %zu bytes\n", kt_guid_str(e->type_guid, g), e->data.len);
    } else {
        size_t n = e->data.len > 64 ? 64 : e->data.len;
        printf(": %s\n", kt_hex(e->data.p, n, hex));
    }
}

static int one_entry(void *ctx, const struct kt_esl_entry *e)
{
    struct show *s = ctx;
    struct kt_x509 *c = NULL;
    struct kt_esl_svn svn, *sp = NULL;
    struct kt_error why = KT_ERROR_INIT;
    bool bad = false;
    s->n++;
    if (e->type == KT_ESL_X509) {
        s->n_cert++;
        if (kt_x509_parse(e->data.p, e->data.len, &c, &why) < 0) {
            bad = true;
            if (why.offset != KT_NO_OFFSET)
                why.offset += e->offset;
            cli_error(s->file, &why);
            if (cli_exit_code(why.code) > s->worst)
                s->worst = cli_exit_code(why.code);
        }
    } else if (kt_esl_is_svn(e)) {
        s->n_svn++;
        if (kt_esl_svn_parse(e, &svn) == 0 && svn.reserved_zero) {
            sp = &svn;
        } else {
            kt_fail(&why, -EBADMSG, e->offset, "SVN record: reserved bytes are not zero");
            bad = true;
            cli_error(s->file, &why);
            s->worst = s->worst > 4 ? s->worst : 4;
        }
    } else {
        s->n_hash++;
    }
    if (!s->co->quiet) {
        if (s->co->json)
            entry_json(s, e, c, sp, bad ? &why : NULL);
        else
            entry_text(s, e, c, sp, bad ? &why : NULL);
    }
    kt_x509_free(c);
    return 0;
}

static int show_file(const char *path, const struct cli_common *co)
{
    struct kt_file f;
    struct kt_error e = KT_ERROR_INIT;
    int rc = kt_file_open(path, &f, &e);
    if (rc < 0) {
        cli_error(path, &e);
        if (co->json && !co->quiet)
            cli_bad_input_json(path, "esl", 0, rc, e.what, e.offset);
        return cli_exit_code(rc);
    }
    struct show s = {.file = path, .co = co};
    if (f.len && !kt_esl_looks_like(f.data, f.len))
        rc = kt_fail(&e, -EBADMSG, 0, "not an EFI signature list (no known SignatureType GUID)");
    else
        rc = kt_esl_foreach(f.data, f.len, one_entry, &s, &e);
    kt_file_close(&f);
    if (rc < 0) {
        cli_error(path, &e);
        if (co->json && !co->quiet)
            cli_bad_input_json(path, "esl", 0, rc, e.what, e.offset);
        int code = cli_exit_code(rc);
        return code > s.worst ? code : s.worst;
    }
    if (!co->quiet && !co->json)
        printf("%s: %zu entr%s: %zu certificate%s, %zu hash%s, %zu SVN record%s\n", tx(path), s.n,
               s.n == 1 ? "y" : "ies", s.n_cert, s.n_cert == 1 ? "" : "s", s.n_hash,
               s.n_hash == 1 ? "" : "es", s.n_svn, s.n_svn == 1 ? "" : "s");
    return s.worst;
}

int cmd_esl(int argc, char **argv)
{
    return cli_show_main("esl", argc, argv, usage, show_file);
}
