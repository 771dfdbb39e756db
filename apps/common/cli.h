/* cli.h — small output pieces the apps share: atomic raw dumps and the output directory check.
 */
#ifndef TESS_APP_CLI_H
#define TESS_APP_CLI_H

#include <stddef.h>

/* Writes count float64 values to path via "<path>.tmp" + rename(2); 0 or -1 with a message. */
int tess_cli_write_raw(const char *prog, const char *path, const double *v, size_t count);
/* Before a run: can a dump be written to path (not a directory; its .tmp can be created, and is
 * removed again)? 0 or -1 with a message naming the path and the reason. */
int tess_cli_dump_check(const char *prog, const char *path);
/* The same for a file a rank writes at the end of its run (debug.task_log: "<prefix>.<rank>"). */
int tess_cli_file_check(const char *prog, const char *what, const char *path);
/* Creates directory `dir` if needed and checks it is writable by creating and removing a probe
 * file; 0 or -1 with a message naming the directory and the reason. */
int tess_cli_output_dir(const char *prog, const char *dir);

#endif
