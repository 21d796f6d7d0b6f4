/*
 * The tiny test harness shared by the C test programs of libsluice: CHECK
 * records a failure with the library's last error, RUN runs one test and
 * counts it as passed or failed (there is no skip: every test runs to its
 * checks). Included once per program.
 */
#ifndef SLUICE_TEST_CHECK_H
#define SLUICE_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

#include "sluice.h"

static int passed, failed;
static int test_ok;
static const char *current_test = "";

#define CHECK(cond, ...)                                              \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "FAIL %s:%d: %s: ", __func__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                   \
      fprintf(stderr, " [last_error: %s]\n", sluice_last_error());    \
      test_ok = 0;                                                    \
    }                                                                 \
  } while (0)

#define RUN(t)                              \
  do {                                      \
    test_ok = 1;                            \
    current_test = #t;                      \
    t();                                    \
    if (test_ok) passed++;                  \
    else {                                  \
      failed++;                             \
      fprintf(stderr, "FAILED %s\n", #t);   \
    }                                       \
  } while (0)

static inline int starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* Prints `<program>: N passed, M failed` as the program's last line; main
 * returns it (non-zero on any failure). */
static inline int report(const char *program) {
  printf("%s: %d passed, %d failed\n", program, passed, failed);
  return failed ? 1 : 0;
}

#endif /* SLUICE_TEST_CHECK_H */
