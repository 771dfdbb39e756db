/* fuzz_app.c — libFuzzer target for an app's whole settings path: its main, through the app
 * skeleton (apps/common/app.c: tess_app_main -> tess_app_begin -> the app's check), the
 * configuration layer (runtime/settings/config.c) and the app's own table and checks, up to the dry
 * run.
 *
 * Built once per app (tests/CMakeLists.txt): FUZZ_APP_SOURCE names the app's .c file, which is
 * included here with its main renamed; FUZZ_PROG is the program name its messages start with.
 * An input is three parts separated by lines "%%":
 *
 *   argv lines      one argument per line (an argument starting with --config is refused:
 *                   the fuzzer must not read the machine's files; the INI part is the file)
 *   %%
 *   environment     NAME=value per line; only TESS* names are set (TESSERA_RUN_STEPS=..., the
 *                   retired TESS_LOG, ...), all unset again afterwards
 *   %%
 *   INI text        given as --config FILE before the arguments when the part is there
 *
 * main runs with argv = prog [--config FILE] ARGS... --dry-run (the last flag wins), stdout and
 * stderr captured. Per input:
 *   - no crash, no leak, no undefined behaviour (ASan, LSan, UBSan abort the run);
 *   - exit status 0 or 2, and never MPI/StarPU (tess_init aborts), never a file written
 *     (fopen for writing, mkdir, rename abort while main runs; the working directory, a fresh
 *     one, holds only the fuzzer's own files afterwards);
 *   - 2: nothing on stdout, exactly one line on stderr, "<prog>: " and printable text;
 *   - 0: nothing on stderr; unless --help/--print-config answered, stdout is exactly the dry
 *     run's line, and then the effective configuration (--print-config of the same input)
 *     parsed back (--config of it, no environment) prints the same values, and the dry run of
 *     it passes too: a saved configuration is accepted again.
 * FUZZ_APP_NOCAPTURE=1 leaves stdout and stderr alone (to read a crash's report while
 * reproducing it: sanitizer reports go to the real stderr anyway).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define main fuzz_app_main
#include FUZZ_APP_SOURCE
#undef main

#ifndef FUZZ_PROG
#error "FUZZ_PROG: the app's program name"
#endif

void __sanitizer_set_report_fd(void *fd); /* sanitizer/common_interface_defs.h */
extern char **environ;

static int in_main;        /* the app's main is running: no file may be written */
static char fz_dir[64];    /* the fuzzer's own working directory */
static int fd_out, fd_err; /* captured stdout / stderr */
static int keep_out, keep_err, capture;
static int cwd_fd, dir_fd; /* the fuzzer's working directory and fz_dir: main runs in fz_dir */

/* ---- what the settings path must never do: linked with -Wl,--wrap=NAME ------------------- */

static void fz_refuse(const char *what, const char *arg) {
  dprintf(keep_err >= 0 ? keep_err : 2, "fuzz_app: the settings path %s '%s'\n", what,
          arg ? arg : "");
  abort();
}

FILE *__real_fopen(const char *path, const char *mode);
FILE *__wrap_fopen(const char *path, const char *mode);
FILE *__wrap_fopen(const char *path, const char *mode) {
  if (in_main && strpbrk(mode, "wa+")) fz_refuse("opened a file for writing", path);
  return __real_fopen(path, mode);
}
int __wrap_mkdir(const char *path, mode_t mode);
int __wrap_mkdir(const char *path, mode_t mode) {
  (void)mode;
  fz_refuse("made a directory", path);
  return -1;
}
int __wrap_rename(const char *from, const char *to);
int __wrap_rename(const char *from, const char *to) {
  (void)to;
  fz_refuse("renamed a file", from);
  return -1;
}
tess_err __wrap_tess_init(int *argc, char ***argv, const tess_init_opts *opts);
tess_err __wrap_tess_init(int *argc, char ***argv, const tess_init_opts *opts) {
  (void)argc, (void)argv, (void)opts;
  fz_refuse("started MPI and StarPU (tess_init)", NULL);
  return TESS_OK;
}

/* ---- running main ------------------------------------------------------------------------ */

static void fz_fail(const char *why, char **argv, const char *out, const char *err) {
  dprintf(keep_err, "fuzz_app: %s\n--- argv:", why);
  for (int i = 0; argv[i]; i++)
    dprintf(keep_err, " '%s'", argv[i]);
  dprintf(keep_err, "\n--- stdout:\n%s\n--- stderr:\n%s\n", out, err);
  abort();
}

/* The whole content of fd (rewound), NUL-terminated; malloc'd. */
static char *fz_slurp(int fd) {
  const off_t n = lseek(fd, 0, SEEK_END);
  char *s = malloc((size_t)n + 1);
  if (!s || pread(fd, s, (size_t)n, 0) != n) abort();
  s[n] = 0;
  return s;
}

/* main(argv) with stdout and stderr captured into *out and *err (free them); its status. */
static int run_main(char **argv, char **out, char **err) {
  int argc = 0;
  while (argv[argc])
    argc++;
  fflush(stdout), fflush(stderr);
  if (capture) {
    /* dup2 shares the file offset: rewind it, or the next text lands after a hole */
    if (ftruncate(fd_out, 0) || ftruncate(fd_err, 0) || lseek(fd_out, 0, SEEK_SET) ||
        lseek(fd_err, 0, SEEK_SET) || dup2(fd_out, 1) < 0 || dup2(fd_err, 2) < 0)
      abort();
  }
  if (fchdir(dir_fd)) abort(); /* not for libFuzzer: it reads its corpus by relative paths */
  in_main = 1;
  const int rc = fuzz_app_main(argc, argv);
  in_main = 0;
  if (fchdir(cwd_fd)) abort();
  fflush(stdout), fflush(stderr);
  if (capture) {
    if (dup2(keep_out, 1) < 0 || dup2(keep_err, 2) < 0) abort();
    *out = fz_slurp(fd_out), *err = fz_slurp(fd_err);
  } else {
    *out = calloc(1, 1), *err = calloc(1, 1);
  }
  if (rc != 0 && rc != 2) fz_fail("exit status neither 0 nor 2", argv, *out, *err);
  if (!capture) return rc;
  if (rc == 2) {
    const size_t plen = strlen(FUZZ_PROG ": ");
    const char *nl = strchr(*err, '\n');
    if ((*out)[0] || strncmp(*err, FUZZ_PROG ": ", plen) || !nl || nl[1] || nl == *err + plen)
      fz_fail(
          "status 2 without exactly one message line naming the program (and nothing on stdout)",
          argv, *out, *err);
    for (const char *c = *err; c < nl; c++)
      if ((unsigned char)*c < 0x20 || *c == 0x7f)
        fz_fail("control character in the message", argv, *out, *err);
  } else if ((*err)[0]) {
    fz_fail("status 0 with a message on stderr", argv, *out, *err);
  }
  /* nothing left behind in the working directory but the fuzzer's own files */
  DIR *d = opendir(fz_dir);
  if (!d) abort();
  for (struct dirent *e; (e = readdir(d));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "out") &&
        strcmp(e->d_name, "err") && strcmp(e->d_name, "in.ini") && strcmp(e->d_name, "eff.ini"))
      fz_fail("a file appeared in the working directory", argv, *out, e->d_name);
  closedir(d);
  return rc;
}

/* The values of a configuration printout: each line up to its comment, trailing blanks cut. */
static void fz_values(char *text) {
  char *w = text;
  for (char *line = text; *line;) {
    char *end = strchr(line, '\n');
    const size_t len = end ? (size_t)(end - line) : strlen(line);
    size_t keep = 0;
    while (keep < len && line[keep] != '#')
      keep++;
    while (keep > 0 && line[keep - 1] == ' ')
      keep--;
    memmove(w, line, keep);
    w += keep;
    *w++ = '\n';
    line += len + (end != NULL);
  }
  *w = 0;
}

static void fz_write_file(const char *path, const char *data, size_t size) {
  const int fd = openat(dir_fd, path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd)) abort();
}

static void fz_unset_env(void) {
  for (int again = 1; again;) {
    again = 0;
    for (char **e = environ; *e; e++)
      if (!strncmp(*e, "TESS", 4)) {
        const size_t n = strcspn(*e, "="); /* the whole name, however long */
        char *name = strndup(*e, n);
        if (!name || unsetenv(name)) abort();
        free(name);
        again = 1;
        break;
      }
  }
}

static void fz_init(void) {
  keep_out = dup(1), keep_err = dup(2);
  capture = !getenv("FUZZ_APP_NOCAPTURE");
  __sanitizer_set_report_fd((void *)(intptr_t)keep_err); /* reports: the real stderr */
  snprintf(fz_dir, sizeof fz_dir, "/tmp/fuzz_app.XXXXXX");
  if (!mkdtemp(fz_dir)) abort();
  cwd_fd = open(".", O_RDONLY | O_DIRECTORY);
  dir_fd = open(fz_dir, O_RDONLY | O_DIRECTORY);
  fd_out = openat(dir_fd, "out", O_RDWR | O_CREAT | O_TRUNC, 0600);
  fd_err = openat(dir_fd, "err", O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (cwd_fd < 0 || dir_fd < 0 || fd_out < 0 || fd_err < 0) abort();
  fz_unset_env(); /* the environment is the input's */
}

static void fz_cleanup(void) {
  unlinkat(dir_fd, "out", 0), unlinkat(dir_fd, "err", 0);
  unlinkat(dir_fd, "in.ini", 0), unlinkat(dir_fd, "eff.ini", 0);
  rmdir(fz_dir);
}

enum { MAX_ARGS = 64 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!keep_out) {
    fz_init();
    atexit(fz_cleanup);
  }
  char *buf = malloc(size + 1);
  if (!buf) return 0;
  memcpy(buf, data, size);
  buf[size] = 0;
  /* the three parts */
  char *part[3] = {buf, NULL, NULL};
  size_t ini_len = 0;
  for (int k = 1; k < 3; k++) {
    char *p = part[k - 1];
    char *sep = NULL;
    for (char *s = p; (s = strstr(s, "%%")); s++)
      if ((s == p || s[-1] == '\n') && (s[2] == '\n' || s[2] == 0)) {
        sep = s;
        break;
      }
    if (!sep) break;
    *sep = 0;
    if (sep > p && sep[-1] == '\n') sep[-1] = 0;
    part[k] = sep[2] ? sep + 3 : sep + 2;
  }
  if (part[2]) ini_len = size - (size_t)(part[2] - buf); /* NULs and all */

  char *argv[MAX_ARGS + 8], *argv2[8];
  char ini_path[] = "in.ini", eff_path[] = "eff.ini", prog[] = FUZZ_PROG;
  char cfg_flag[] = "--config", dry[] = "--dry-run", print[] = "--print-config";
  int argc = 0;
  argv[argc++] = prog;
  if (part[2]) {
    fz_write_file(ini_path, part[2], ini_len);
    argv[argc++] = cfg_flag;
    argv[argc++] = ini_path;
  }
  /* the arguments, up to the first NUL */
  if (part[0][0] || part[1]) {
    for (char *p = part[0]; p && argc < MAX_ARGS;) {
      char *next = strchr(p, '\n');
      if (next) *next++ = 0;
      if (!strncmp(p, "--config", 8)) goto done;
      argv[argc++] = p;
      p = next;
    }
  }
  /* the environment */
  for (char *p = part[1]; p;) {
    char *next = strchr(p, '\n');
    if (next) *next++ = 0;
    char *eq = strchr(p, '=');
    if (eq && !strncmp(p, "TESS", 4)) {
      *eq = 0;
      setenv(p, eq + 1, 1);
      *eq = '=';
    }
    p = next;
  }
  /* last, so that it wins; a last argument that takes a value (--out) must not swallow it
   * (config.c refuses a separate value that starts with --; else tess_init aborts here) */
  argv[argc] = dry;
  argv[argc + 1] = NULL;
  char *out, *err;
  const int rc = run_main(argv, &out, &err);
  const int dry_ok = rc == 0 && !strcmp(out, FUZZ_PROG ": settings OK (dry run; nothing started "
                                                       "or written)\n");
  if (rc == 0 && capture && !dry_ok && strncmp(out, "usage: ", 7) && !strchr(out, '['))
    fz_fail("status 0 without the dry run's line, a usage or a configuration", argv, out, err);
  free(out), free(err);
  if (dry_ok && capture) {
    /* the effective configuration of the same input, parsed back without the environment */
    argv[argc] = print, argv[argc + 1] = NULL;
    char *text1, *text2;
    if (run_main(argv, &text1, &err))
      fz_fail("--print-config refused what the dry run took", argv, text1, err);
    free(err);
    fz_unset_env();
    fz_write_file(eff_path, text1, strlen(text1));
    argv2[0] = prog, argv2[1] = cfg_flag, argv2[2] = eff_path, argv2[3] = print, argv2[4] = NULL;
    if (run_main(argv2, &text2, &err))
      fz_fail("the effective configuration is refused when read back", argv2, text2, err);
    free(err);
    fz_values(text1), fz_values(text2);
    if (strcmp(text1, text2)) {
      dprintf(keep_err, "--- first:\n%s\n--- read back:\n%s\n", text1, text2);
      fz_fail("the effective configuration read back gives other values", argv2, "", "");
    }
    free(text1), free(text2);
    argv2[3] = dry;
    if (run_main(argv2, &out, &err))
      fz_fail("the dry run refuses the effective configuration", argv2, out, err);
    free(out), free(err);
  }
done:
  fz_unset_env();
  unlinkat(dir_fd, ini_path, 0), unlinkat(dir_fd, eff_path, 0);
  free(buf);
  return 0;
}
