/* Canonical one-line text of a decoded record: used by `fxt dump` and by golden-file tests.
 * Format: "<offset> <kind> field=value ... args{name:type=value, ...}". Thread-compatible. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_READER_PRINT_H
#define FXT_READER_PRINT_H

#include <stdio.h>
#include "fxt/reader.h"

/* Name of a record type, event type or argument type ("event", "complete", "int32"...). */
const char *fxt_record_kind(const struct fxt_record *rec);
const char *fxt_arg_type_name(unsigned type);

/* Writes the record's line (with '\n') to f. Fails only as f does (returns EOF). */
int fxt_print_record(FILE *f, const struct fxt_record *rec);

#endif
