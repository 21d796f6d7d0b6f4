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

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  long iters = argc > 1 ? atol(argv[1]) : 1000000;
  struct ArrowSchema schema = {.format = "u", .name = "s", .flags = ARROW_FLAG_NULLABLE,
                               .release = noop_schema_release};
  int32_t last_rc = 0;
  double best = 1e30;
  for (int round = 0; round < 5; round++) {
    double t0 = now_ns();
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
    double per = (now_ns() - t0) / (double)iters;
    if (per < best) best = per;
    if (last_rc != SLUICE_OK) break;
  }
  if (last_rc != SLUICE_OK) {
    printf("sluice_md5 failed: %d %s\n", last_rc, sluice_last_error());
    return 1;
  }
  printf("sluice_md5 1-row round trip: %.0f ns/call (best of 5 x %ld calls)\n", best, iters);
  return 0;
}
