/*
 * What the C tests of the kernel entry points share (test_import.c,
 * test_digest.c, test_concat.c, test_encode.c, test_search.c): the
 * arguments of one call built in one place, the common inputs, and the
 * check of a Utf8 output. Included once per program, after check.h.
 */
#ifndef SLUICE_TEST_KERNEL_CHECK_H
#define SLUICE_TEST_KERNEL_CHECK_H

#include <stdint.h>
#include <string.h>

#include "sluice.h"
#include "arrow_build.h"
#include "check.h"

#define MAX_ARGS 4

/* One kernel call: its arguments `arrays[i]` (moved in by the call) with
 * `schemas[i]` (borrowed: args_release frees them after the call), `ins` /
 * `in_schemas` pointing at them for the list entry points, the count of
 * releases of the arrays, and the output slots (zeroed until a successful
 * call writes them). Start from `struct call c = {0};`. */
struct call {
  int n;
  struct ArrowArray arrays[MAX_ARGS];
  struct ArrowSchema schemas[MAX_ARGS];
  struct ArrowArray *ins[MAX_ARGS];
  const struct ArrowSchema *in_schemas[MAX_ARGS];
  int released;
  struct ArrowArray out;
  struct ArrowSchema out_schema;
};

/* Appends an argument whose array is already built in `arrays[n]`, with a
 * schema of `format` and `flink_type` metadata (unless NULL); returns its
 * index. */
static inline int arg_push_typed(struct call *c, const char *format, const char *flink_type) {
  int i = c->n++;
  make_schema(&c->schemas[i], format, flink_type);
  c->ins[i] = &c->arrays[i];
  c->in_schemas[i] = &c->schemas[i];
  return i;
}

/* arg_push_typed without flink.type. */
static inline int arg_push(struct call *c, const char *format) { return arg_push_typed(c, format, NULL); }

/* Appends a Utf8 argument of the `n` strings `vals` (NULL = NULL row). */
static inline int arg_utf8(struct call *c, const char *const *vals, int n) {
  make_utf8(&c->arrays[c->n], vals, n, &c->released);
  return arg_push(c, "u");
}

/* Appends an Int32 argument; `valid` may be NULL (all valid). */
static inline int arg_int32(struct call *c, const int32_t *vals, const int *valid, int n) {
  make_int32(&c->arrays[c->n], vals, valid, n, &c->released);
  return arg_push(c, "i");
}

/* Releases the schemas after the call (the arrays were moved into it); the
 * next arguments start again at index 0. */
static inline void args_release(struct call *c) {
  for (int i = 0; i < c->n; i++)
    if (c->schemas[i].release) c->schemas[i].release(&c->schemas[i]);
  c->n = 0;
}

/* Checks a failed call: status `rc_want`, `message` in the last error
 * (unless NULL), every array released once (`released_want` in all), and
 * nothing written to the outputs. */
static inline void expect_error(const struct call *c, int32_t rc, int32_t rc_want, const char *message,
                                int released_want) {
  CHECK(rc == rc_want, "rc %d, want %d", rc, rc_want);
  CHECK(!message || strstr(sluice_last_error(), message) != NULL, "message, want %s", message);
  CHECK(c->released == released_want, "released %d, want %d", c->released, released_want);
  CHECK(c->out.release == NULL && c->out_schema.release == NULL, "output written on error");
}

/* Three rows with a NULL in the middle: the input of most error paths. */
static const char *const ABC[] = {"abc", NULL, "abc"};

/* Checks that the call wrote `flink_type` on the output schema. */
static inline void expect_flink_type(const struct ArrowSchema *out_schema, const char *flink_type) {
  int32_t tl = 0;
  const char *t = schema_metadata(out_schema, "flink.type", &tl);
  CHECK(t && (size_t)tl == strlen(flink_type) && memcmp(t, flink_type, (size_t)tl) == 0, "flink.type %.*s, want %s",
        t ? tl : 4, t ? t : "NULL", flink_type);
}

/* Checks a Utf8 output against `expected` (NULL = NULL row) and its
 * flink.type, then releases it. */
static inline void expect_strings(struct ArrowArray *out, struct ArrowSchema *out_schema, const char *const *expected,
                                  int n, const char *flink_type) {
  CHECK(out->release != NULL, "output array not written");
  CHECK(out_schema->release != NULL, "output schema not written");
  if (!out->release || !out_schema->release) return;
  CHECK(strcmp(out_schema->format, "u") == 0, "format %s", out_schema->format);
  CHECK(out->offset == 0, "offset %lld", (long long)out->offset);
  CHECK(out->length == n, "length %lld, want %d", (long long)out->length, n);
  expect_flink_type(out_schema, flink_type);
  for (int i = 0; i < n && i < out->length; i++) {
    if (!expected[i]) {
      CHECK(!is_valid_row(out, i), "row %d should be NULL", i);
      continue;
    }
    CHECK(is_valid_row(out, i), "row %d is NULL, want %s", i, expected[i]);
    int32_t len;
    const char *v = utf8_value(out, i, &len);
    CHECK((size_t)len == strlen(expected[i]) && memcmp(v, expected[i], (size_t)len) == 0, "row %d = %.*s, want %s",
          i, len, v, expected[i]);
  }
  release_out(out, out_schema);
}

#endif /* SLUICE_TEST_KERNEL_CHECK_H */
