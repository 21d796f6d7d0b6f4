/*
 * What the C tests of the keyed-operator handles share (test_keyed.c,
 * test_over_window.c): an expected output row, the check of an operator's
 * output against Flink's changelog, push / create / state-size helpers over
 * the (k VARCHAR, v BIGINT) batches of kv_rows.h, and the clock calls
 * (watermark, processing time) with their output checked. Included once per
 * program, after check.h and kv_rows.h.
 */
#ifndef SLUICE_TEST_KEYED_CHECK_H
#define SLUICE_TEST_KEYED_CHECK_H

#include <stdint.h>
#include <string.h>

#include "sluice.h"
#include "arrow_build.h"
#include "check.h"
#include "kv_rows.h"

/* One expected output row: kind, key, then up to 5 int64 values (or
 * INT64_MIN for NULL; timestamps as epoch millis). */
struct row {
  int8_t kind;
  const char *k;
  int64_t v[5];
};

/* Checks an operator's output against `want` (`n_vals` int64 columns after
 * the key) and releases it. */
static inline void expect_rows(struct ArrowArray *out, struct ArrowSchema *out_schema, struct sluice_buffer *kinds,
                        const struct row *want, int n, int n_vals) {
  CHECK(out->length == n, "rows %lld, want %d", (long long)out->length, n);
  CHECK(kinds->len == n, "kinds %lld, want %d", (long long)kinds->len, n);
  CHECK(out->n_children == 1 + n_vals && out_schema->n_children == 1 + n_vals, "columns %lld",
        (long long)out->n_children);
  if (out->length == n && kinds->len == n && out->n_children == 1 + n_vals) {
    for (int i = 0; i < n; i++) {
      CHECK(kinds->ptr[i] == (uint8_t)want[i].kind, "row %d kind %d, want %d", i, kinds->ptr[i], want[i].kind);
      int32_t len;
      const char *k = utf8_value(out->children[0], i, &len);
      CHECK((size_t)len == strlen(want[i].k) && memcmp(k, want[i].k, (size_t)len) == 0, "row %d key %.*s", i, len,
            k);
      for (int c = 0; c < n_vals; c++) {
        const struct ArrowArray *col = out->children[1 + c];
        if (want[i].v[c] == NUL) {
          CHECK(!is_valid_row(col, i), "row %d col %d should be NULL", i, c + 1);
        } else {
          CHECK(is_valid_row(col, i) && int64_value(col, i) == want[i].v[c], "row %d col %d = %lld, want %lld", i,
                c + 1, (long long)int64_value(col, i), (long long)want[i].v[c]);
        }
      }
    }
  }
  release_out(out, out_schema);
  sluice_buffer_free(kinds);
}

/* A push entry point: sluice_keyed_push or sluice_keyed_push_appended. */
typedef int32_t (*push_fn)(struct sluice_keyed *, struct ArrowArray *, const struct ArrowSchema *, const int8_t *,
                           struct ArrowArray *, struct ArrowSchema *, struct sluice_buffer *);

/* Pushes (k, v) rows with `kinds` (NULL = all +I) through `push` and checks
 * that the batch was released once; on SLUICE_OK the caller owns the outputs. */
static inline int32_t push_rows(push_fn push, struct sluice_keyed *h, const char *const *k, const int64_t *v,
                                const int *valid, const int8_t *kinds, int n, struct ArrowArray *out,
                                struct ArrowSchema *out_schema, struct sluice_buffer *out_kinds) {
  struct ArrowSchema schema;
  kv_schema(&schema);
  struct ArrowArray batch;
  int released = 0;
  kv_batch(&batch, k, v, valid, n, &released);
  int32_t rc = push(h, &batch, &schema, kinds, out, out_schema, out_kinds);
  CHECK(released == 1 && batch.release == NULL, "batch released %d times", released);
  schema.release(&schema);
  return rc;
}

/* Pushes (k, v) rows with `kinds` (NULL = all +I) and checks the output. */
static inline void push_expect(struct sluice_keyed *h, const char *const *k, const int64_t *v, const int *valid,
                        const int8_t *kinds, int n, const struct row *want, int n_want, int n_vals) {
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  struct sluice_buffer out_kinds = {0};
  int32_t rc = push_rows(sluice_keyed_push, h, k, v, valid, kinds, n, &out, &out_schema, &out_kinds);
  CHECK(rc == SLUICE_OK, "push rc %d", rc);
  if (rc == SLUICE_OK) expect_rows(&out, &out_schema, &out_kinds, want, n_want, n_vals);
}

/* Pushes (k, v) rows with `kinds` (NULL = all +I) through `push` and checks
 * that it fails with a last error that contains `message`. */
static inline void push_refused(push_fn push, struct sluice_keyed *h, const char *const *k, const int64_t *v,
                                const int8_t *kinds, int n, const char *message) {
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  struct sluice_buffer out_kinds = {0};
  int32_t rc = push_rows(push, h, k, v, NULL, kinds, n, &out, &out_schema, &out_kinds);
  CHECK(rc != SLUICE_OK && strstr(sluice_last_error(), message) != NULL, "push rc %d: %s (want \"%s\")", rc,
        sluice_last_error(), message);
}

/* push_refused through sluice_keyed_push. */
static inline void push_fails(struct sluice_keyed *h, const char *const *k, const int64_t *v, const int8_t *kinds,
                              int n, const char *message) {
  push_refused(sluice_keyed_push, h, k, v, kinds, n, message);
}

static inline struct sluice_keyed *create(const char *spec) {
  struct ArrowSchema schema;
  kv_schema(&schema);
  struct sluice_keyed *h = NULL;
  int32_t rc = sluice_keyed_create(spec, &schema, &h);
  CHECK(rc == SLUICE_OK && h != NULL, "create(%s) rc %d", spec, rc);
  schema.release(&schema);
  return h;
}

static inline int64_t keys_in_state(struct sluice_keyed *h) {
  int64_t bytes = -1, keys = -1;
  int32_t rc = sluice_keyed_state_size(h, &bytes, &keys);
  CHECK(rc == SLUICE_OK && bytes >= 0, "state_size rc %d bytes %lld", rc, (long long)bytes);
  return keys;
}

/* One of the handle's clock calls (watermark, processing time). */
typedef int32_t (*advance_fn)(struct sluice_keyed *, int64_t, struct ArrowArray *, struct ArrowSchema *,
                              struct sluice_buffer *);

/* Advances a clock to `t` and checks what it emits. */
static inline void advance_expect(advance_fn advance, struct sluice_keyed *h, int64_t t, const struct row *want, int n_want,
                           int n_vals) {
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  struct sluice_buffer out_kinds = {0};
  int32_t rc = advance(h, t, &out, &out_schema, &out_kinds);
  CHECK(rc == SLUICE_OK, "advance to %lld rc %d", (long long)t, rc);
  if (rc == SLUICE_OK) expect_rows(&out, &out_schema, &out_kinds, want, n_want, n_vals);
}

static inline void watermark_expect(struct sluice_keyed *h, int64_t wm, const struct row *want, int n_want, int n_vals) {
  advance_expect(sluice_keyed_advance_watermark, h, wm, want, n_want, n_vals);
}

static inline void proctime_expect(struct sluice_keyed *h, int64_t now, const struct row *want, int n_want, int n_vals) {
  advance_expect(sluice_keyed_advance_processing_time, h, now, want, n_want, n_vals);
}

#endif /* SLUICE_TEST_KEYED_CHECK_H */
