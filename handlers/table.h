/*
 * table.h: the handler table of the programs that route (see table.c).
 */
#ifndef SW_HANDLERS_TABLE_H
#define SW_HANDLERS_TABLE_H

#include "api/router.h"

/* One row per operation, ended by a row with a NULL op. */
extern const struct sw_handler_row sw_handler_table[];

#endif
