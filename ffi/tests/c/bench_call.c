/*
 * Call overhead of libsluice from C: one sluice_md5 round trip on a 1-row
 * Utf8 input (move in + import + validate + compute + export + release of
 * the output array and schema), timed over many iterations; then the row
 * conversions (rows -> Arrow, Arrow -> rows) at 1 and 8192 rows, through
 * the one-shot functions (a row converter built per call) and through a
 * sluice_row_converter handle (built once), side by side in one run.
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

/* ---- row conversions ---- */

#define MAX_ROWS 8192
static int32_t RC_INTS[MAX_ROWS];
static int64_t RC_LONGS[MAX_ROWS];
static int32_t RC_OFFS[MAX_ROWS + 1];
static char RC_DATA[MAX_ROWS * 16];
static const void *RC_BUF_I[2] = {NULL, RC_INTS};
static const void *RC_BUF_L[2] = {NULL, RC_LONGS};
static const void *RC_BUF_S[3] = {NULL, RC_OFFS, RC_DATA};
static const void *RC_BUF_ROW[1] = {NULL};

/* struct<i: int32, l: int64, s: utf8, t: utf8> (INT, BIGINT, STRING, STRING). */
static struct ArrowSchema RC_KIDS[4];
static struct ArrowSchema *RC_KID_PTRS[4] = {&RC_KIDS[0], &RC_KIDS[1], &RC_KIDS[2], &RC_KIDS[3]};
static struct ArrowSchema RC_SCHEMA;

static void rc_init(void) {
  static const char *const fmt[4] = {"i", "l", "u", "u"};
  static const char *const names[4] = {"i", "l", "s", "t"};
  for (int i = 0; i < 4; i++) {
    RC_KIDS[i] = (struct ArrowSchema){.format = fmt[i], .name = names[i], .flags = ARROW_FLAG_NULLABLE,
                                      .release = noop_schema_release};
  }
  RC_SCHEMA = (struct ArrowSchema){.format = "+s", .name = "row", .n_children = 4, .children = RC_KID_PTRS,
                                   .release = noop_schema_release};
  int32_t pos = 0;
  for (int r = 0; r < MAX_ROWS; r++) {
    RC_INTS[r] = r;
    RC_LONGS[r] = (int64_t)r * 1000003;
    RC_OFFS[r] = pos;
    int len = snprintf(RC_DATA + pos, 16, "name-%d", r);
    pos += len;
  }
  RC_OFFS[MAX_ROWS] = pos;
}

/* A fresh (moved-in each call) struct array of the first `n` rows. */
struct rc_batch {
  struct ArrowArray kids[4];
  struct ArrowArray *kid_ptrs[4];
  struct ArrowArray row;
};

static void rc_fill(struct rc_batch *b, int64_t n) {
  const void **bufs[4] = {RC_BUF_I, RC_BUF_L, RC_BUF_S, RC_BUF_S};
  for (int i = 0; i < 4; i++) {
    b->kids[i] = (struct ArrowArray){.length = n, .n_buffers = i < 2 ? 2 : 3, .buffers = bufs[i],
                                     .release = noop_release};
    b->kid_ptrs[i] = &b->kids[i];
  }
  b->row = (struct ArrowArray){.length = n, .n_buffers = 1, .buffers = RC_BUF_ROW, .n_children = 4,
                               .children = b->kid_ptrs, .release = noop_release};
}

typedef int32_t (*step_fn)(void *ctx, int64_t n);

struct rc_ctx {
  struct sluice_row_converter *conv;
  struct sluice_buffer data, offsets; /* rows of MAX_ROWS rows, for decoding */
  int8_t kinds[MAX_ROWS];
};

/* Frees the rows a successful encode wrote; returns its status. */
static int32_t drop_rows(int32_t rc, struct sluice_buffer *d, struct sluice_buffer *o) {
  if (rc == SLUICE_OK) {
    sluice_buffer_free(d);
    sluice_buffer_free(o);
  }
  return rc;
}

/* Releases the batch a successful decode wrote; returns its status. */
static int32_t drop_batch(int32_t rc, struct ArrowArray *out, struct ArrowSchema *out_schema) {
  if (rc == SLUICE_OK) {
    out->release(out);
    out_schema->release(out_schema);
  }
  return rc;
}

static int32_t encode_one_shot(void *p, int64_t n) {
  (void)p;
  struct rc_batch b;
  rc_fill(&b, n);
  struct sluice_buffer d, o;
  int32_t rc = sluice_arrow_to_rows(&b.row, &RC_SCHEMA, NULL, &d, &o);
  return drop_rows(rc, &d, &o);
}

static int32_t encode_handle(void *p, int64_t n) {
  struct rc_ctx *c = (struct rc_ctx *)p;
  struct rc_batch b;
  rc_fill(&b, n);
  struct sluice_buffer d, o;
  int32_t rc = sluice_row_converter_arrow_to_rows(c->conv, &b.row, NULL, &d, &o);
  return drop_rows(rc, &d, &o);
}

static int32_t decode_one_shot(void *p, int64_t n) {
  struct rc_ctx *c = (struct rc_ctx *)p;
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  int32_t rc = sluice_rows_to_arrow(c->data.ptr, (const int64_t *)c->offsets.ptr, n, &RC_SCHEMA, &out, &out_schema,
                                    c->kinds);
  return drop_batch(rc, &out, &out_schema);
}

static int32_t decode_handle(void *p, int64_t n) {
  struct rc_ctx *c = (struct rc_ctx *)p;
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  int32_t rc = sluice_row_converter_rows_to_arrow(c->conv, c->data.ptr, (const int64_t *)c->offsets.ptr, n, &out,
                                                  &out_schema, c->kinds);
  return drop_batch(rc, &out, &out_schema);
}

/* Best-of-5 thread CPU ns per call of `f(ctx, n)`, or -1 on error. */
static double time_calls(step_fn f, void *ctx, int64_t n, long iters) {
  double best = 1e30;
  for (int round = 0; round < 5; round++) {
    double c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < iters; i++) {
      if (f(ctx, n) != SLUICE_OK) return -1;
    }
    double per = (clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / (double)iters;
    if (per < best) best = per;
  }
  return best;
}

static int bench_rows(long iters) {
  rc_init();
  struct rc_ctx c = {0};
  struct rc_batch b;
  rc_fill(&b, MAX_ROWS);
  if (sluice_arrow_to_rows(&b.row, &RC_SCHEMA, NULL, &c.data, &c.offsets) != SLUICE_OK ||
      sluice_row_converter_create(&RC_SCHEMA, &c.conv) != SLUICE_OK) {
    printf("row conversion setup failed: %s\n", sluice_last_error());
    return 1;
  }
  static const int64_t sizes[2] = {1, MAX_ROWS};
  static const char *const names[2] = {"rows_to_arrow", "arrow_to_rows"};
  step_fn one_shot[2] = {decode_one_shot, encode_one_shot}, handle[2] = {decode_handle, encode_handle};
  int status = 0;
  for (int s = 0; s < 2; s++) {
    long it = sizes[s] == 1 ? iters / 4 : iters / 2000;
    if (it < 10) it = 10;
    for (int k = 0; k < 2; k++) {
      double a = time_calls(one_shot[k], &c, sizes[s], it);
      double h = time_calls(handle[k], &c, sizes[s], it);
      if (a < 0 || h < 0) {
        printf("%s failed: %s\n", names[k], sluice_last_error());
        status = 1;
        continue;
      }
      printf("%s %5lld rows (4 fields): one-shot %9.0f ns/call, converter handle %9.0f ns/call (%.2fx; best of 5 x %ld, "
             "thread CPU)\n",
             names[k], (long long)sizes[s], a, h, a / h, it);
    }
  }
  sluice_row_converter_free(c.conv);
  sluice_buffer_free(&c.data);
  sluice_buffer_free(&c.offsets);
  return status;
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
  return bench_rows(iters);
}
