/*
 * C tests of sluice_concat and sluice_concat_ws: every string layout as an
 * argument, scalars broadcast over columns, Flink's NULL rules, and the
 * error paths (lengths, NULL elements, counts, offset overflow). Built
 * against include/sluice.h only (no arrow C++).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "arrow_build.h"
#include "check.h"
#include "kernel_check.h"

#define STRING_TYPE "VARCHAR(2147483647)"

/* CONCAT over the arguments of `c`, then releases their schemas. */
static int32_t call_concat(struct call *c) {
  int32_t rc = sluice_concat(c->n, c->ins, c->in_schemas, &c->out, &c->out_schema);
  args_release(c);
  return rc;
}

static void test_concat_arrays_and_scalar(void) {
  static const char *const a[] = {"a", "b", NULL, "", "\xc3\xa9"};
  static const char *const dash[] = {"-"};
  static const char *const z[] = {"x", "y", "z", "", "\xf0\x9f\x98\x80"};
  struct call c = {0};
  arg_utf8(&c, a, 5);
  make_utf8_view(&c.arrays[1], dash, 1, &c.released);
  arg_push(&c, "vu");
  make_strings(&c.arrays[2], z, 5, 3, 1, &c.released); /* LargeUtf8, sliced */
  arg_push(&c, "U");
  int32_t rc = call_concat(&c);
  CHECK(c.released == 3, "released %d", c.released);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  static const char *const want[] = {"a-x", "b-y", NULL, "-", "\xc3\xa9-\xf0\x9f\x98\x80"};
  expect_strings(&c.out, &c.out_schema, want, 5, STRING_TYPE);
}

/* CONCAT_WS of the separator `sep` and the Utf8 arguments `a` (and `b`
 * unless NULL), each of `n` rows; checks the output against `want`. */
static void expect_concat_ws(const char *const *sep, int n_sep, const char *const *a, const char *const *b, int n,
                             const char *const *want) {
  struct call s = {0}, c = {0};
  arg_utf8(&s, sep, n_sep);
  arg_utf8(&c, a, n);
  if (b) arg_utf8(&c, b, n);
  int n_args = c.n;
  int32_t rc = sluice_concat_ws(&s.arrays[0], &s.schemas[0], n_args, c.ins, c.in_schemas, &c.out, &c.out_schema);
  args_release(&s);
  args_release(&c);
  CHECK(s.released + c.released == 1 + n_args, "released %d", s.released + c.released);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  expect_strings(&c.out, &c.out_schema, want, n, STRING_TYPE);
}

static void test_concat_ws_skips_nulls(void) {
  static const char *const sep[] = {","};
  static const char *const a[] = {"a", NULL, "", NULL};
  static const char *const b[] = {"c", "d", NULL, NULL};
  /* Flink BinaryStringDataUtil.concatWs: NULL arguments skipped with their
   * separator, empty strings kept, all-NULL arguments give ''. */
  static const char *const want[] = {"a,c", "d", "", ""};
  expect_concat_ws(sep, 1, a, b, 4, want);
}

static void test_concat_ws_null_separator(void) {
  static const char *const sep[] = {NULL, "+"};
  static const char *const a[] = {"a", "b"};
  static const char *const want[] = {NULL, "b"};
  expect_concat_ws(sep, 2, a, NULL, 2, want);
}

static void test_concat_length_mismatch(void) {
  struct call c = {0};
  arg_utf8(&c, ABC, 3);
  arg_utf8(&c, ABC, 2);
  int32_t rc = call_concat(&c);
  expect_error(&c, rc, SLUICE_ERR_INVALID_ARGUMENT, "argument 0 has 3 rows and argument 1 has 2", 2);
}

static void test_concat_null_element_releases_the_others(void) {
  struct call c = {0};
  arg_utf8(&c, ABC, 3);
  arg_utf8(&c, ABC, 3);
  struct ArrowArray *ins[] = {&c.arrays[0], NULL, &c.arrays[1]};
  const struct ArrowSchema *schemas[] = {&c.schemas[0], &c.schemas[0], &c.schemas[0]};
  int32_t rc = sluice_concat(3, ins, schemas, &c.out, &c.out_schema);
  args_release(&c);
  expect_error(&c, rc, SLUICE_ERR_NULL_POINTER, "ins[1] is NULL", 2);
  CHECK(c.arrays[0].release == NULL && c.arrays[1].release == NULL, "inputs not marked released");
}

static void test_concat_bad_counts(void) {
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  int32_t rc = sluice_concat(-1, NULL, NULL, &out, &out_schema);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "n is negative (-1)") != NULL, "message");
  rc = sluice_concat(0, NULL, NULL, &out, &out_schema);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT, "rc %d", rc);
  rc = sluice_concat(2, NULL, NULL, &out, &out_schema);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "rc %d", rc);
}

/* i32 offset overflow, fabricated cheaply: a 1 MiB scalar concatenated onto
 * 2048 empty rows needs 2 GiB (> INT32_MAX) of output. */
static void test_concat_offset_overflow(void) {
  size_t big = (size_t)1 << 20;
  char *s = (char *)malloc(big + 1);
  memset(s, 'x', big);
  s[big] = '\0';
  const char *scalar[] = {s};
  const char **rows = (const char **)malloc(2048 * sizeof *rows);
  for (int i = 0; i < 2048; i++) rows[i] = "";
  struct call c = {0};
  arg_utf8(&c, scalar, 1);
  arg_utf8(&c, rows, 2048);
  free(s);
  free(rows);
  int32_t rc = call_concat(&c);
  CHECK(c.released == 2, "released %d", c.released);
  CHECK(rc == SLUICE_ERR_OFFSET_OVERFLOW, "rc %d", rc);
  if (rc == SLUICE_OK) release_out(&c.out, &c.out_schema);
}

int main(void) {
  RUN(test_concat_arrays_and_scalar);
  RUN(test_concat_ws_skips_nulls);
  RUN(test_concat_ws_null_separator);
  RUN(test_concat_length_mismatch);
  RUN(test_concat_null_element_releases_the_others);
  RUN(test_concat_bad_counts);
  RUN(test_concat_offset_overflow);
  return report("test_concat");
}
