/*
 * The C ABI path as perf sees it: 8,192-row (or `rows`-row) batches of three Utf8 columns of
 * B random lowercase bytes, moved into sluice_concat (or the first column
 * into sluice_md5, or sluice_replace of it with 'ab' -> 'XYZ') `iters` times,
 * the output released each time; prints the
 * thread CPU time per row (mean and best call) and the whole loop's time per
 * call. Below 64 rows the calls are not timed one by one (two clock reads
 * would weigh on a call that short): with rows = 1 the whole loop gives the
 * fixed cost of a call. For profiling:
 *
 *   cargo build --release -p sluice-ffi
 *   gcc -O2 -std=c11 -I ffi/include -o /tmp/prof_batch benches/c_abi/prof_batch.c \
 *       -L "$CARGO_TARGET_DIR/release" -lsluice -Wl,-rpath,"$CARGO_TARGET_DIR/release"
 *   perf record -g /tmp/prof_batch 256 400 concat && perf report --no-children
 *
 *   prof_batch [B=256] [iters=500] [concat|md5|replace] [rows=8192]
 *
 * Instructions per call (no PMU needed): run it under
 * `valgrind --tool=callgrind` with two iteration counts and divide the
 * difference of the totals by the difference of the counts.
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
static double cpu_ns(void) { struct timespec ts; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); return ts.tv_sec*1e9+ts.tv_nsec; }
int main(int argc, char **argv) {
  int B = argc > 1 ? atoi(argv[1]) : 256;
  int iters = argc > 2 ? atoi(argv[2]) : 500;
  const char *which = argc > 3 ? argv[3] : "concat";
  const int ROWS = argc > 4 ? atoi(argv[4]) : 8192;
  int32_t *offs[3];
  char *data[3];
  const void *bufs[3][3];
  struct ArrowSchema sch[3];
  uint64_t x = 88172645463325252ull;
  for (int c = 0; c < 3; c++) {
    data[c] = malloc((size_t)ROWS * B);
    offs[c] = malloc(sizeof(int32_t) * ((size_t)ROWS + 1));
    for (int r = 0; r <= ROWS; r++) offs[c][r] = r * B;
    for (size_t i = 0; i < (size_t)ROWS * B; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; data[c][i] = 'a' + x % 26; }
    bufs[c][0] = NULL; bufs[c][1] = offs[c]; bufs[c][2] = data[c];
    sch[c] = (struct ArrowSchema){.format = "u", .name = "c", .flags = ARROW_FLAG_NULLABLE, .release = noop_schema_release};
  }
  /* Length-1 Utf8 scalars for REPLACE. */
  static int32_t ab_offs[2] = {0, 2}, xyz_offs[2] = {0, 3};
  const void *ab_bufs[3] = {NULL, ab_offs, "ab"}, *xyz_bufs[3] = {NULL, xyz_offs, "XYZ"};
  double best = 1e30, total = 0, loop = cpu_ns();
  for (int it = 0; it < iters; it++) {
    struct ArrowArray in[3], out; struct ArrowSchema out_schema;
    struct ArrowArray *ins[3]; const struct ArrowSchema *ss[3];
    for (int c = 0; c < 3; c++) {
      in[c] = (struct ArrowArray){.length = ROWS, .n_buffers = 3, .buffers = bufs[c], .release = noop_release};
      ins[c] = &in[c]; ss[c] = &sch[c];
    }
    const int timed = ROWS >= 64;
    double t = timed ? cpu_ns() : 0;
    int32_t rc;
    if (!strcmp(which, "md5")) rc = sluice_md5(&in[0], &sch[0], &out, &out_schema);
    else if (!strcmp(which, "replace")) {
      struct ArrowArray ab = {.length = 1, .n_buffers = 3, .buffers = ab_bufs, .release = noop_release};
      struct ArrowArray xyz = {.length = 1, .n_buffers = 3, .buffers = xyz_bufs, .release = noop_release};
      rc = sluice_replace(&in[0], &sch[0], &ab, &sch[1], &xyz, &sch[2], &out, &out_schema);
    }
    else rc = sluice_concat(3, ins, ss, &out, &out_schema);
    if (rc) { fprintf(stderr, "rc %d %s\n", rc, sluice_last_error()); return 1; }
    out.release(&out); out_schema.release(&out_schema);
    if (timed) { double d = cpu_ns() - t; total += d; if (d < best) best = d; }
  }
  loop = cpu_ns() - loop;
  if (ROWS >= 64)
    printf("%s B=%d rows=%d: mean %.1f ns/row, best %.1f ns/row; whole loop %.0f ns/call\n", which, B, ROWS,
           total / iters / ROWS, best / ROWS, loop / iters);
  else
    printf("%s B=%d rows=%d: whole loop %.0f ns/call\n", which, B, ROWS, loop / iters);
  return 0;
}
