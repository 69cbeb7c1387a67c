/*
 * apiman.h: `slipway api-manual` (apiman.c).
 */
#ifndef SW_CLI_APIMAN_H
#define SW_CLI_APIMAN_H

#include <stdio.h>

/* Write slipway-api(7) in mdoc to f; 0 on success. */
int sw_cli_api_manual(FILE *f);

#endif
