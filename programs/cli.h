/* cli.h - what the parts of the `hay` program share. */
#ifndef HAY_CLI_H
#define HAY_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "haystack.h"

int find_main(int argc, char **argv);
int demo_main(int argc, char **argv);
int align_main(int argc, char **argv);
int db_main(int argc, char **argv);

/* Reads a whole file ("-" = stdin) into a malloc'd buffer. */
int cli_read_all(const char *path, uint8_t **data, size_t *len, char *err,
                 size_t errcap);
int cli_read_fd(int fd, const char *name, uint8_t **data, size_t *len,
                char *err, size_t errcap);

/* Parses "123", "64K", "16M", "1G" (powers of 1024).  -1 if invalid. */
int cli_parse_size(const char *s, uint64_t *out);

/* Writes NUL-terminated text to stdout as a JSON string: quoted, with '"'
 * and '\' escaped and control bytes as \u00XX; other bytes as they are. */
void cli_json_string(const char *text);
/* The same, written to `out`. */
void cli_json_string_to(FILE *out, const char *text);

double cli_now(void);
unsigned cli_cpu_count(void);

#endif
