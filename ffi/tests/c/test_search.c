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

/* Calls `f` on the three arguments of `c`, then releases their schemas. */
static int32_t call3(ternary_fn f, struct call *c) {
  int32_t rc = f(&c->arrays[0], &c->schemas[0], &c->arrays[1], &c->schemas[1], &c->arrays[2], &c->schemas[2], &c->out,
                 &c->out_schema);
  args_release(c);
  return rc;
}

/* POSITION(arrays[0] IN arrays[1]), then releases the schemas. */
static int32_t call_position(struct call *c) {
  int32_t rc = sluice_position(&c->arrays[0], &c->schemas[0], &c->arrays[1], &c->schemas[1], &c->out, &c->out_schema);
  args_release(c);
  return rc;
}

/* arrays[0] LIKE arrays[1] ESCAPE escape, then releases the schemas. */
static int32_t call_like(struct call *c, const char *escape) {
  int32_t rc =
      sluice_like(&c->arrays[0], &c->schemas[0], &c->arrays[1], &c->schemas[1], escape, &c->out, &c->out_schema);
  args_release(c);
  return rc;
}

/* The Int32 values of the output. */
static const int32_t *int32_values(const struct call *c) { return (const int32_t *)c->out.buffers[1]; }

/* The first byte of value bits of a Boolean output. */
static uint8_t bool_bits(const struct call *c) { return ((const uint8_t *)c->out.buffers[1])[0]; }

static void test_position(void) {
  static const char *const needle[] = {"lo"};
  static const char *const hay[] = {"hello", "\xc3\xa9lo", NULL, "xyz"};
  struct call c = {0};
  arg_utf8(&c, needle, 1);
  arg_utf8(&c, hay, 4);
  int32_t rc = call_position(&c);
  CHECK(c.released == 2, "released %d", c.released);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  CHECK(strcmp(c.out_schema.format, "i") == 0, "format %s", c.out_schema.format);
  const int32_t *v = int32_values(&c);
  CHECK(c.out.length == 4 && v[0] == 4 && v[1] == 2 && !is_valid_row(&c.out, 2) && v[3] == 0, "values");
  release_out(&c.out, &c.out_schema);
}

static void test_locate_with_from(void) {
  static const char *const needle[] = {"a"};
  static const char *const hay[] = {"banana", "banana", "banana", "banana"};
  static const int32_t from[] = {0, 3, 7, 0};
  static const int valid[] = {1, 1, 1, 0};
  struct call c = {0};
  arg_utf8(&c, needle, 1);
  arg_utf8(&c, hay, 4);
  arg_int32(&c, from, valid, 4);
  int32_t rc = call3(sluice_locate, &c);
  CHECK(c.released == 3, "released %d", c.released);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  /* SqlFunctionUtils.position(needle, hay, from) = hay.indexOf(needle,
   * from - 1) + 1; from <= 0 searches from the start. */
  const int32_t *v = int32_values(&c);
  CHECK(c.out.length == 4 && v[0] == 2 && v[1] == 4 && v[2] == 0 && !is_valid_row(&c.out, 3), "values %d %d %d",
        v[0], v[1], v[2]);
  expect_flink_type(&c.out_schema, "INT");
  release_out(&c.out, &c.out_schema);
}

static void test_like_bad_escape(void) {
  static const char *const s[] = {"abc"};
  struct call c = {0};
  arg_utf8(&c, s, 1);
  arg_utf8(&c, s, 1);
  int32_t rc = call_like(&c, "ab");
  expect_error(&c, rc, SLUICE_ERR_FLINK, NULL, 2);
}

static void test_like(void) {
  static const char *const s[] = {"abc", "xbz", NULL, "ab"};
  static const char *const p[] = {"%b_"};
  struct call c = {0};
  arg_utf8(&c, s, 4);
  arg_utf8(&c, p, 1);
  int32_t rc = call_like(&c, NULL);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  CHECK(strcmp(c.out_schema.format, "b") == 0, "format %s", c.out_schema.format);
  uint8_t bits = bool_bits(&c);
  CHECK(c.out.length == 4 && (bits & 1) && (bits & 2) && !is_valid_row(&c.out, 2) && !(bits & 8), "values");
  release_out(&c.out, &c.out_schema);
}

static void test_replace_and_split_index(void) {
  static const char *const s[] = {"a,b,,c", NULL};
  static const char *const comma[] = {","};
  static const char *const semi[] = {";"};
  static const int32_t idx[] = {2};
  struct call c = {0};
  arg_utf8(&c, s, 2);
  arg_utf8(&c, comma, 1);
  arg_utf8(&c, semi, 1);
  int32_t rc = call3(sluice_replace, &c);
  CHECK(rc == SLUICE_OK, "replace rc %d", rc);
  static const char *const want[] = {"a;b;;c", NULL};
  if (rc == SLUICE_OK) expect_strings(&c.out, &c.out_schema, want, 2, STRING_TYPE);
  arg_utf8(&c, s, 2);
  arg_utf8(&c, comma, 1);
  arg_int32(&c, idx, NULL, 1);
  int32_t rc2 = call3(sluice_split_index, &c);
  CHECK(rc2 == SLUICE_OK, "split_index rc %d", rc2);
  static const char *const want2[] = {"", NULL};
  expect_strings(&c.out, &c.out_schema, want2, 2, STRING_TYPE);
}

/* POSITION and LIKE give INT / BOOLEAN: they read the bytes of a Utf8
 * input by Flink's lead-byte rule (BinaryStringData.numBytesForFirstByte)
 * without validating them first, so bytes that are not UTF-8 give a result,
 * not an error. \xff counts as one character, so "lo" is at 3. */
static void test_search_reads_bytes_that_are_not_utf8(void) {
  static const char *const needle[] = {"lo"};
  static const char *const hay[] = {"\xff" "alo", "ok"};
  static const char *const pat[] = {"%lo"};
  struct call c = {0};
  arg_utf8(&c, needle, 1);
  arg_utf8(&c, hay, 2);
  int32_t rc = call_position(&c);
  CHECK(rc == SLUICE_OK, "position rc %d: %s", rc, sluice_last_error());
  if (rc == SLUICE_OK) {
    const int32_t *v = int32_values(&c);
    CHECK(c.out.length == 2 && v[0] == 3 && v[1] == 0, "values %d %d", v[0], v[1]);
    release_out(&c.out, &c.out_schema);
  }
  arg_utf8(&c, hay, 2);
  arg_utf8(&c, pat, 1);
  rc = call_like(&c, NULL);
  CHECK(rc == SLUICE_OK, "like rc %d: %s", rc, sluice_last_error());
  if (rc == SLUICE_OK) {
    uint8_t bits = bool_bits(&c);
    CHECK(c.out.length == 2 && (bits & 1) && !(bits & 2), "values");
    release_out(&c.out, &c.out_schema);
  }
}

/* REPLACE's output is Utf8: an output row that is not UTF-8 (here carried
 * over from an invalid input row) is SLUICE_ERR_INVALID_UTF8 naming the
 * row, and nothing is written. */
static void test_invalid_utf8_names_the_row(void) {
  static const char *const vals[] = {"ok", "fine", "ab\xc3"};
  static const char *const one[] = {"b"};
  struct call c = {0};
  arg_utf8(&c, vals, 3);
  arg_utf8(&c, one, 1);
  arg_utf8(&c, one, 1);
  int32_t rc = call3(sluice_replace, &c);
  expect_error(&c, rc, SLUICE_ERR_INVALID_UTF8, "row 2", 3);
}

/* A column LIKE pattern is compiled as text: a row that is not UTF-8 is
 * SLUICE_ERR_INVALID_UTF8. So is a SPLIT_INDEX token that is not. */
static void test_invalid_utf8_in_utf8_array(void) {
  static const char *const vals[] = {"ok", "ok"};
  static const char *const pats[] = {"%", "\xff\xfe"};
  struct call c = {0};
  arg_utf8(&c, vals, 2);
  arg_utf8(&c, pats, 2);
  int32_t rc = call_like(&c, NULL);
  expect_error(&c, rc, SLUICE_ERR_INVALID_UTF8, NULL, 2);

  static const char *const csv[] = {"a,b", "\xff,c"};
  static const char *const comma[] = {","};
  static const int32_t idx[] = {0};
  arg_utf8(&c, csv, 2);
  arg_utf8(&c, comma, 1);
  arg_int32(&c, idx, NULL, 1);
  rc = call3(sluice_split_index, &c);
  expect_error(&c, rc, SLUICE_ERR_INVALID_UTF8, "row 1", 5);
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
