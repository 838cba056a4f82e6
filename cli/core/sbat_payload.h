/* sbat_payload.h - `--sbat-level SPEC` as a payload (eventlog --predict,
 * unseal-check). */
#ifndef KT_CLI_SBAT_PAYLOAD_H
#define KT_CLI_SBAT_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>

/* The SbatLevel payload of SPEC (original, automatic, latest, a payload
 * file or an efivarfs dump) into *buf (malloc'd).  0, or the exit code
 * after an error line. */
int cli_sbat_payload(const char *spec, uint8_t **buf, size_t *len);

#endif
