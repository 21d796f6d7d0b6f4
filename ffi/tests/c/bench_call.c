/*
 * Call overhead of libsluice from C: one sluice_md5 round trip on a 1-row
 * Utf8 input (move in + import + validate + compute + export + release of
 * the output array and schema), timed over many iterations.
 *
 *   bench_call [iterations]
 *
 * Not part of the pass/fail suite (ffi/tests/run.sh only builds it).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sluice.h"

static void noop_release(struct ArrowArray *a) { a->release = NULL; }
static void noop_schema_release(struct ArrowSchema *s) { s->release = NULL; }

static const int32_t OFFSETS[2] = {0, 11};
static const char DATA[] = "hello world";
static const void *BUFFERS[3] = {NULL, OFFSETS, DATA};

static double clock_ns(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  long iters = argc > 1 ? atol(argv[1]) : 1000000;
  struct ArrowSchema schema = {.format = "u", .name = "s", .flags = ARROW_FLAG_NULLABLE,
                               .release = noop_schema_release};
  int32_t last_rc = 0;
  double best = 1e30, best_cpu = 1e30;
  for (int round = 0; round < 5; round++) {
    double t0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < iters; i++) {
      struct ArrowArray in = {.length = 1, .null_count = 0, .n_buffers = 3, .buffers = BUFFERS,
                              .release = noop_release};
      struct ArrowArray out;
      struct ArrowSchema out_schema;
      last_rc = sluice_md5(&in, &schema, &out, &out_schema);
      if (last_rc != SLUICE_OK) break;
      out.release(&out);
      out_schema.release(&out_schema);
    }
    double per = (clock_ns(CLOCK_MONOTONIC) - t0) / (double)iters;
    double per_cpu = (clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / (double)iters;
    if (per < best) best = per;
    if (per_cpu < best_cpu) best_cpu = per_cpu;
    if (last_rc != SLUICE_OK) break;
  }
  if (last_rc != SLUICE_OK) {
    printf("sluice_md5 failed: %d %s\n", last_rc, sluice_last_error());
    return 1;
  }
  /* Thread CPU time is the figure to quote on a shared machine: wall time
   * also counts the time this thread waited for a core. */
  printf("sluice_md5 1-row round trip: %.0f ns/call thread CPU time, %.0f ns/call wall (best of 5 x %ld calls)\n",
         best_cpu, best, iters);
  return 0;
}
