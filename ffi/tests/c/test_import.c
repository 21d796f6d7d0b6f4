/*
 * C tests of what every kernel entry point of libsluice does before its
 * kernel runs: the version and last-error contract, NULL arguments, and the
 * import of each C Data Interface struct (moved in and released once on
 * every path; structure, offsets and types checked). MD5 is the vehicle:
 * its checks are the ones every entry point shares. Built against
 * include/sluice.h only (no arrow C++).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "arrow_build.h"
#include "check.h"
#include "kernel_check.h"

static void test_version(void) {
  const char *v = sluice_version();
  CHECK(v && starts_with(v, "sluice "), "version %s", v ? v : "NULL");
}

static void test_last_error_empty_before_any_error(void) {
  const char *e = sluice_last_error();
  CHECK(e && e[0] == '\0', "%s", e ? e : "NULL");
}

static void test_null_input_array(void) {
  struct ArrowSchema s, out_schema;
  struct ArrowArray out;
  make_schema(&s, "u", NULL);
  int32_t rc = sluice_md5(NULL, &s, &out, &out_schema);
  s.release(&s);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "rc %d", rc);
  CHECK(strcmp(sluice_last_error(), "sluice_md5: in is NULL") == 0, "message");
}

static void test_null_outputs_release_input(void) {
  struct ArrowArray in, out;
  struct ArrowSchema in_schema;
  int released = 0;
  make_utf8(&in, ABC, 3, &released);
  make_schema(&in_schema, "u", NULL);
  int32_t rc = sluice_sha1(&in, &in_schema, &out, NULL);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "rc %d", rc);
  CHECK(strcmp(sluice_last_error(), "sluice_sha1: out_schema is NULL") == 0, "message");
  CHECK(released == 1, "released %d", released);
  make_utf8(&in, ABC, 3, &released);
  rc = sluice_sha1(&in, &in_schema, NULL, NULL);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "rc %d", rc);
  CHECK(released == 2, "released %d", released);
  in_schema.release(&in_schema);
}

/* ------------------------------------------- one bad input, table-driven */

/* An MD5 call on a bad input that must fail: the input is ABC as Utf8 (an
 * Int32 array for an "i" schema) with a schema of `format` and
 * `flink_type`, then `breaks` (if any) spoils the array or the schema. The
 * call must return `rc` with `message` in the last error (the whole
 * message when `exact`), and release the input exactly once. */
struct bad_input {
  const char *format;
  const char *flink_type;
  void (*breaks)(struct ArrowArray *in, struct ArrowSchema *schema);
  int no_schema; /* pass a NULL schema pointer */
  int32_t rc;
  const char *message;
  int exact;
};

static void expect_md5_refuses(const struct bad_input *c) {
  static const int32_t ints[] = {1, 2};
  struct ArrowArray in, out;
  struct ArrowSchema in_schema, out_schema;
  int released = 0;
  if (strcmp(c->format, "i") == 0)
    make_int32(&in, ints, NULL, 2, &released);
  else
    make_utf8(&in, ABC, 3, &released);
  make_schema(&in_schema, c->format, c->flink_type);
  const char *format = in_schema.format;
  if (c->breaks) c->breaks(&in, &in_schema);
  int32_t rc = sluice_md5(&in, c->no_schema ? NULL : &in_schema, &out, &out_schema);
  if (in_schema.release) {
    in_schema.format = format; /* undo a NULLed format before the release */
    in_schema.release(&in_schema);
  }
  CHECK(rc == c->rc, "rc %d, want %d", rc, c->rc);
  if (c->exact)
    CHECK(strcmp(sluice_last_error(), c->message) == 0, "message, want %s", c->message);
  else
    CHECK(!c->message || strstr(sluice_last_error(), c->message) != NULL, "message, want %s", c->message);
  CHECK(released == 1 && in.release == NULL, "released %d", released);
}

static void release_array(struct ArrowArray *in, struct ArrowSchema *s) {
  (void)s;
  in->release(in); /* the caller passes an already released struct */
}
static void release_schema(struct ArrowArray *in, struct ArrowSchema *s) {
  (void)in;
  s->release(s);
}
static void two_buffers(struct ArrowArray *in, struct ArrowSchema *s) {
  (void)s;
  in->n_buffers = 2; /* a Utf8 array needs 3 */
}
static void offsets_out_of_order(struct ArrowArray *in, struct ArrowSchema *s) {
  (void)s;
  int32_t *offs = (int32_t *)((struct ta_private *)in->private_data)->owned[1];
  offs[1] = 5; /* > offs[2] = 3 */
}
static void negative_length(struct ArrowArray *in, struct ArrowSchema *s) {
  (void)s;
  in->length = -1;
}
/* The byte-array importer's own checks (ffi/src/capi/byte_import.rs). */
static struct ta_private *priv_of(struct ArrowArray *in) { return (struct ta_private *)in->private_data; }
static void four_buffers(struct ArrowArray *in, struct ArrowSchema *s) {
  (void)s;
  in->n_buffers = 4;
}
static void null_buffer_list(struct ArrowArray *in, struct ArrowSchema *s) {
  (void)s;
  in->buffers = NULL; /* ta_release frees its own copy of the pointers */
}
static void null_offsets(struct ArrowArray *in, struct ArrowSchema *s) {
  (void)s;
  priv_of(in)->ptrs[1] = NULL;
}
static void null_values(struct ArrowArray *in, struct ArrowSchema *s) {
  (void)s;
  priv_of(in)->ptrs[2] = NULL;
}
static void negative_first_offset(struct ArrowArray *in, struct ArrowSchema *s) {
  (void)s;
  ((int32_t *)priv_of(in)->owned[1])[0] = -1;
}
static void null_count_minus_two(struct ArrowArray *in, struct ArrowSchema *s) {
  (void)s;
  in->null_count = -2;
}
static void null_count_wrong(struct ArrowArray *in, struct ArrowSchema *s) {
  (void)s;
  in->null_count = 2; /* ABC has one NULL */
}
static void null_validity_with_nulls(struct ArrowArray *in, struct ArrowSchema *s) {
  (void)s;
  priv_of(in)->ptrs[0] = NULL;
  in->null_count = 1;
}
static void offset_overflows(struct ArrowArray *in, struct ArrowSchema *s) {
  (void)s;
  in->offset = INT64_MAX - 1;
}
static void null_format(struct ArrowArray *in, struct ArrowSchema *s) {
  (void)in;
  s->format = NULL;
}

/* Declares the test `name` of one bad input (the fields of a bad_input). */
#define BAD_INPUT_TEST(name, ...)               \
  static void name(void) {                      \
    const struct bad_input c = {__VA_ARGS__};   \
    expect_md5_refuses(&c);                     \
  }

BAD_INPUT_TEST(test_null_schema_releases_input,
               "u", NULL, NULL, 1, SLUICE_ERR_NULL_POINTER, "sluice_md5: in_schema is NULL", 1)
BAD_INPUT_TEST(test_already_released_input,
               "u", NULL, release_array, 0, SLUICE_ERR_INVALID_ARGUMENT, "already released", 0)
BAD_INPUT_TEST(test_released_schema,
               "u", NULL, release_schema, 0, SLUICE_ERR_INVALID_ARGUMENT, "in_schema is released", 0)
BAD_INPUT_TEST(test_wrong_input_type, "i", NULL, NULL, 0, SLUICE_ERR_UNSUPPORTED_TYPE, "got Int32", 0)
BAD_INPUT_TEST(test_flink_type_that_is_not_a_string,
               "u", "INT", NULL, 0, SLUICE_ERR_UNSUPPORTED_TYPE, "flink.type is INT", 0)
BAD_INPUT_TEST(test_wrong_buffer_count,
               "u", NULL, two_buffers, 0, SLUICE_ERR_INVALID_ARROW, "needs 3 buffers, it has 2", 0)
BAD_INPUT_TEST(test_offsets_out_of_order, "u", NULL, offsets_out_of_order, 0, SLUICE_ERR_INVALID_ARROW, NULL, 0)
BAD_INPUT_TEST(test_negative_length, "u", NULL, negative_length, 0, SLUICE_ERR_INVALID_ARROW, NULL, 0)
BAD_INPUT_TEST(test_four_buffers,
               "u", NULL, four_buffers, 0, SLUICE_ERR_INVALID_ARROW, "needs 3 buffers, it has 4", 0)
BAD_INPUT_TEST(test_null_buffer_list, "u", NULL, null_buffer_list, 0, SLUICE_ERR_INVALID_ARROW,
               "sluice_md5: in: buffers is NULL with n_buffers = 3", 1)
BAD_INPUT_TEST(test_null_offsets_buffer, "u", NULL, null_offsets, 0, SLUICE_ERR_INVALID_ARROW,
               "sluice_md5: in: the offsets buffer is NULL with length 3", 1)
BAD_INPUT_TEST(test_null_values_buffer, "u", NULL, null_values, 0, SLUICE_ERR_INVALID_ARROW,
               "sluice_md5: in: the values buffer is NULL with 6 value bytes", 1)
BAD_INPUT_TEST(test_negative_first_offset, "u", NULL, negative_first_offset, 0, SLUICE_ERR_INVALID_ARROW,
               "sluice_md5: in: offsets[0] is negative (-1)", 1)
BAD_INPUT_TEST(test_null_count_below_minus_one, "u", NULL, null_count_minus_two, 0, SLUICE_ERR_INVALID_ARROW,
               "sluice_md5: in: null_count -2 is outside -1..=3", 1)
BAD_INPUT_TEST(test_null_count_not_the_bitmaps, "u", NULL, null_count_wrong, 0, SLUICE_ERR_INVALID_ARROW,
               "sluice_md5: in: null_count is 2 but the validity bitmap has 1 NULLs", 1)
BAD_INPUT_TEST(test_null_validity_with_nulls, "u", NULL, null_validity_with_nulls, 0, SLUICE_ERR_INVALID_ARROW,
               "sluice_md5: in: the validity buffer is NULL with null_count = 1", 1)
BAD_INPUT_TEST(test_offset_overflows, "u", NULL, offset_overflows, 0, SLUICE_ERR_INVALID_ARROW,
               "sluice_md5: in: offset + length overflows", 1)
BAD_INPUT_TEST(test_schema_with_null_format, "u", NULL, null_format, 0, SLUICE_ERR_INVALID_ARROW, "format is NULL", 0)

int main(void) {
  RUN(test_last_error_empty_before_any_error);
  RUN(test_version);
  RUN(test_null_input_array);
  RUN(test_null_schema_releases_input);
  RUN(test_null_outputs_release_input);
  RUN(test_already_released_input);
  RUN(test_released_schema);
  RUN(test_wrong_input_type);
  RUN(test_flink_type_that_is_not_a_string);
  RUN(test_wrong_buffer_count);
  RUN(test_offsets_out_of_order);
  RUN(test_negative_length);
  RUN(test_four_buffers);
  RUN(test_null_buffer_list);
  RUN(test_null_offsets_buffer);
  RUN(test_null_values_buffer);
  RUN(test_negative_first_offset);
  RUN(test_null_count_below_minus_one);
  RUN(test_null_count_not_the_bitmaps);
  RUN(test_null_validity_with_nulls);
  RUN(test_offset_overflows);
  RUN(test_schema_with_null_format);
  return report("test_import");
}
