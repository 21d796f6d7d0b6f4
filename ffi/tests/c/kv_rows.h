/*
 * The input rows of the operator-handle tests (test_keyed.c, test_join.c):
 * struct<k: utf8, v: int64>, as a schema and as a batch. Included once per
 * program, after arrow_build.h.
 */
#ifndef SLUICE_TEST_KV_ROWS_H
#define SLUICE_TEST_KV_ROWS_H

#include <stdint.h>

#include "arrow_build.h"

/* An int64 value that stands for NULL in expected rows. */
#define NUL INT64_MIN

static const char *const KV_NAMES[] = {"k", "v"};
static const char *const KV_FORMATS[] = {"u", "l"};

/* The struct<k: utf8, v: int64> schema. */
static inline void kv_schema(struct ArrowSchema *s) { make_struct_schema(s, 2, KV_NAMES, KV_FORMATS, NULL); }

/* A batch of `n` rows (k[i], v[i]); `valid` marks non-NULL values (NULL =
 * all valid). */
static inline void kv_batch(struct ArrowArray *batch, const char *const *k, const int64_t *v, const int *valid, int n,
                            int *released) {
  struct ArrowArray kids[2];
  make_utf8(&kids[0], k, n, NULL);
  make_int64(&kids[1], v, valid, n, NULL);
  make_struct(batch, kids, 2, n, released);
}

#endif /* SLUICE_TEST_KV_ROWS_H */
