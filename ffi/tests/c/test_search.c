/*
 * C tests of the search entry points of libsluice (sluice_position,
 * sluice_locate, sluice_like, sluice_replace, sluice_split_index): Flink's
 * results, bytes that are not UTF-8 (read by Flink's lead-byte rule, an
 * error only where a Utf8 output or a compiled pattern needs text), and
 * the error paths. Built against include/sluice.h only (no arrow C++).
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

/* The entry points of three arguments (LOCATE, REPLACE, SPLIT_INDEX). */
typedef int32_t (*ternary_fn)(struct ArrowArray *, const struct ArrowSchema *, struct ArrowArray *,
                              const struct ArrowSchema *, struct ArrowArray *, const struct ArrowSchema *,
                              struct ArrowArray *, struct ArrowSchema *);

/* Calls `f` on the three arguments of `a`, then releases their schemas. */
static int32_t call3(ternary_fn f, struct args *a, struct ArrowArray *out, struct ArrowSchema *out_schema) {
  memset(out, 0, sizeof *out);
  memset(out_schema, 0, sizeof *out_schema);
  int32_t rc = f(&a->arrays[0], &a->schemas[0], &a->arrays[1], &a->schemas[1], &a->arrays[2], &a->schemas[2], out,
                 out_schema);
  args_release(a);
  return rc;
}

/* POSITION(a[0] IN a[1]), then releases the schemas. */
static int32_t call_position(struct args *a, struct ArrowArray *out, struct ArrowSchema *out_schema) {
  int32_t rc = sluice_position(&a->arrays[0], &a->schemas[0], &a->arrays[1], &a->schemas[1], out, out_schema);
  args_release(a);
  return rc;
}

/* a[0] LIKE a[1] ESCAPE escape, then releases the schemas. */
static int32_t call_like(struct args *a, const char *escape, struct ArrowArray *out, struct ArrowSchema *out_schema) {
  int32_t rc = sluice_like(&a->arrays[0], &a->schemas[0], &a->arrays[1], &a->schemas[1], escape, out, out_schema);
  args_release(a);
  return rc;
}

/* The Int32 values of an output (released by the caller). */
static const int32_t *int32_values(const struct ArrowArray *out) { return (const int32_t *)out->buffers[1]; }

/* The value bits of a Boolean output (released by the caller). */
static uint8_t bool_bits(const struct ArrowArray *out) { return ((const uint8_t *)out->buffers[1])[0]; }

static void test_position(void) {
  static const char *const needle[] = {"lo"};
  static const char *const hay[] = {"hello", "\xc3\xa9lo", NULL, "xyz"};
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  struct args a = {0};
  int released = 0;
  arg_utf8(&a, needle, 1, &released);
  arg_utf8(&a, hay, 4, &released);
  int32_t rc = call_position(&a, &out, &out_schema);
  CHECK(released == 2, "released %d", released);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  CHECK(strcmp(out_schema.format, "i") == 0, "format %s", out_schema.format);
  const int32_t *v = int32_values(&out);
  CHECK(out.length == 4 && v[0] == 4 && v[1] == 2 && !is_valid_row(&out, 2) && v[3] == 0, "values");
  release_out(&out, &out_schema);
}

static void test_locate_with_from(void) {
  static const char *const needle[] = {"a"};
  static const char *const hay[] = {"banana", "banana", "banana", "banana"};
  static const int32_t from[] = {0, 3, 7, 0};
  static const int valid[] = {1, 1, 1, 0};
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  struct args a = {0};
  int released = 0;
  arg_utf8(&a, needle, 1, &released);
  arg_utf8(&a, hay, 4, &released);
  arg_int32(&a, from, valid, 4, &released);
  int32_t rc = call3(sluice_locate, &a, &out, &out_schema);
  CHECK(released == 3, "released %d", released);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  /* SqlFunctionUtils.position(needle, hay, from) = hay.indexOf(needle,
   * from - 1) + 1; from <= 0 searches from the start. */
  const int32_t *v = int32_values(&out);
  CHECK(out.length == 4 && v[0] == 2 && v[1] == 4 && v[2] == 0 && !is_valid_row(&out, 3), "values %d %d %d", v[0],
        v[1], v[2]);
  expect_flink_type(&out_schema, "INT");
  release_out(&out, &out_schema);
}

static void test_like_bad_escape(void) {
  static const char *const s[] = {"abc"};
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  struct args a = {0};
  int released = 0;
  arg_utf8(&a, s, 1, &released);
  arg_utf8(&a, s, 1, &released);
  int32_t rc = call_like(&a, "ab", &out, &out_schema);
  expect_error(rc, SLUICE_ERR_FLINK, NULL, released, 2, NULL);
}

static void test_like(void) {
  static const char *const s[] = {"abc", "xbz", NULL, "ab"};
  static const char *const p[] = {"%b_"};
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  struct args a = {0};
  arg_utf8(&a, s, 4, NULL);
  arg_utf8(&a, p, 1, NULL);
  int32_t rc = call_like(&a, NULL, &out, &out_schema);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  CHECK(strcmp(out_schema.format, "b") == 0, "format %s", out_schema.format);
  uint8_t bits = bool_bits(&out);
  CHECK(out.length == 4 && (bits & 1) && (bits & 2) && !is_valid_row(&out, 2) && !(bits & 8), "values");
  release_out(&out, &out_schema);
}

static void test_replace_and_split_index(void) {
  static const char *const s[] = {"a,b,,c", NULL};
  static const char *const comma[] = {","};
  static const char *const semi[] = {";"};
  static const int32_t idx[] = {2};
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  struct args a = {0};
  arg_utf8(&a, s, 2, NULL);
  arg_utf8(&a, comma, 1, NULL);
  arg_utf8(&a, semi, 1, NULL);
  int32_t rc = call3(sluice_replace, &a, &out, &out_schema);
  CHECK(rc == SLUICE_OK, "replace rc %d", rc);
  static const char *const want[] = {"a;b;;c", NULL};
  if (rc == SLUICE_OK) expect_strings(&out, &out_schema, want, 2, STRING_TYPE);
  arg_utf8(&a, s, 2, NULL);
  arg_utf8(&a, comma, 1, NULL);
  arg_int32(&a, idx, NULL, 1, NULL);
  int32_t rc2 = call3(sluice_split_index, &a, &out, &out_schema);
  CHECK(rc2 == SLUICE_OK, "split_index rc %d", rc2);
  static const char *const want2[] = {"", NULL};
  expect_strings(&out, &out_schema, want2, 2, STRING_TYPE);
}

/* POSITION and LIKE give INT / BOOLEAN: they read the bytes of a Utf8
 * input by Flink's lead-byte rule (BinaryStringData.numBytesForFirstByte)
 * without validating them first, so bytes that are not UTF-8 give a result,
 * not an error. \xff counts as one character, so "lo" is at 3. */
static void test_search_reads_bytes_that_are_not_utf8(void) {
  static const char *const needle[] = {"lo"};
  static const char *const hay[] = {"\xff" "alo", "ok"};
  static const char *const pat[] = {"%lo"};
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  struct args a = {0};
  arg_utf8(&a, needle, 1, NULL);
  arg_utf8(&a, hay, 2, NULL);
  int32_t rc = call_position(&a, &out, &out_schema);
  CHECK(rc == SLUICE_OK, "position rc %d: %s", rc, sluice_last_error());
  if (rc == SLUICE_OK) {
    const int32_t *v = int32_values(&out);
    CHECK(out.length == 2 && v[0] == 3 && v[1] == 0, "values %d %d", v[0], v[1]);
    release_out(&out, &out_schema);
  }
  arg_utf8(&a, hay, 2, NULL);
  arg_utf8(&a, pat, 1, NULL);
  rc = call_like(&a, NULL, &out, &out_schema);
  CHECK(rc == SLUICE_OK, "like rc %d: %s", rc, sluice_last_error());
  if (rc == SLUICE_OK) {
    uint8_t bits = bool_bits(&out);
    CHECK(out.length == 2 && (bits & 1) && !(bits & 2), "values");
    release_out(&out, &out_schema);
  }
}

/* REPLACE's output is Utf8: an output row that is not UTF-8 (here carried
 * over from an invalid input row) is SLUICE_ERR_INVALID_UTF8 naming the
 * row, and nothing is written. */
static void test_invalid_utf8_names_the_row(void) {
  static const char *const vals[] = {"ok", "fine", "ab\xc3"};
  static const char *const one[] = {"b"};
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  struct args a = {0};
  int released = 0;
  arg_utf8(&a, vals, 3, &released);
  arg_utf8(&a, one, 1, &released);
  arg_utf8(&a, one, 1, &released);
  int32_t rc = call3(sluice_replace, &a, &out, &out_schema);
  expect_error(rc, SLUICE_ERR_INVALID_UTF8, "row 2", released, 3, &out);
}

/* A column LIKE pattern is compiled as text: a row that is not UTF-8 is
 * SLUICE_ERR_INVALID_UTF8. So is a SPLIT_INDEX token that is not. */
static void test_invalid_utf8_in_utf8_array(void) {
  static const char *const vals[] = {"ok", "ok"};
  static const char *const pats[] = {"%", "\xff\xfe"};
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  struct args a = {0};
  int released = 0;
  arg_utf8(&a, vals, 2, &released);
  arg_utf8(&a, pats, 2, &released);
  int32_t rc = call_like(&a, NULL, &out, &out_schema);
  expect_error(rc, SLUICE_ERR_INVALID_UTF8, NULL, released, 2, NULL);

  static const char *const csv[] = {"a,b", "\xff,c"};
  static const char *const comma[] = {","};
  static const int32_t idx[] = {0};
  arg_utf8(&a, csv, 2, &released);
  arg_utf8(&a, comma, 1, &released);
  arg_int32(&a, idx, NULL, 1, &released);
  rc = call3(sluice_split_index, &a, &out, &out_schema);
  expect_error(rc, SLUICE_ERR_INVALID_UTF8, "row 1", released, 5, NULL);
}

int main(void) {
  RUN(test_position);
  RUN(test_like);
  RUN(test_locate_with_from);
  RUN(test_like_bad_escape);
  RUN(test_replace_and_split_index);
  RUN(test_search_reads_bytes_that_are_not_utf8);
  RUN(test_invalid_utf8_names_the_row);
  RUN(test_invalid_utf8_in_utf8_array);
  return report("test_search");
}
