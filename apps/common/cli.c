/* cli.c — see cli.h. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int tess_cli_write_raw(const char *prog, const char *path, const double *v, size_t count) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    fprintf(stderr, "%s: cannot write '%s': %s\n", prog, tmp, strerror(errno));
    return -1;
  }
  const int ok = fwrite(v, sizeof(double), count, f) == count;
  if (fclose(f) != 0 || !ok || rename(tmp, path) != 0) {
    fprintf(stderr, "%s: cannot write '%s': %s\n", prog, path, strerror(errno));
    remove(tmp);
    return -1;
  }
  return 0;
}

/* Can `path` be created? A probe file made and removed again; 0, or -1 with "<prog>: <what>:
 * cannot write '<path>': <reason>". */
static int probe(const char *prog, const char *what, const char *path) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "%s: %s: cannot write '%s': %s\n", prog, what, path, strerror(errno));
    return -1;
  }
  fclose(f);
  remove(path);
  return 0;
}

int tess_cli_file_check(const char *prog, const char *what, const char *path) {
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    fprintf(stderr, "%s: %s '%s' is a directory (give a file name)\n", prog, what, path);
    return -1;
  }
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  return probe(prog, what, tmp);
}

int tess_cli_dump_check(const char *prog, const char *path) {
  return tess_cli_file_check(prog, "output.dump", path);
}

int tess_cli_output_dir(const char *prog, const char *dir) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "%s: cannot create output directory '%s': %s\n", prog, dir, strerror(errno));
    return -1;
  }
  char p[4096];
  snprintf(p, sizeof p, "%s/.tessera-write-test", dir);
  return probe(prog, "output directory not writable", p);
}
