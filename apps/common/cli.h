/* cli.h — small pieces every app's command line and output share: number parsing that names
 * the option and the bad value, and atomic raw dumps. */
#ifndef TESS_APP_CLI_H
#define TESS_APP_CLI_H

#include <stddef.h>

/* "a,b,c" into n ints; 0, or -1 after printing "<prog>: <opt> expects ...". */
int tess_cli_ints(const char *prog, const char *opt, const char *s, int *v, int n);
/* A finite number; 0 or -1 with a message. */
int tess_cli_double(const char *prog, const char *opt, const char *s, double *v);
/* Writes count float64 values to path via "<path>.tmp" + rename(2); 0 or -1 with a message. */
int tess_cli_write_raw(const char *prog, const char *path, const double *v, size_t count);
/* Creates directory `dir` if needed and checks it is writable by creating and removing a probe
 * file; 0 or -1 with a message naming the directory and the reason. */
int tess_cli_output_dir(const char *prog, const char *dir);

#endif
