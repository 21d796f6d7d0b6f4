/*
 * C tests of the digest entry points of libsluice (sluice_md5, sluice_sha1,
 * sluice_sha2): every string layout, NULL rows, raw bytes, Flink's SHA2
 * width rules and their errors. Built against include/sluice.h only (no
 * arrow C++).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "arrow_build.h"
#include "check.h"
#include "kernel_check.h"

static const char *const WORDS[] = {"", "abc", NULL, "hello world", "The quick brown fox jumps over the lazy dog"};
static const char *const MD5_WORDS[] = {"d41d8cd98f00b204e9800998ecf8427e", "900150983cd24fb0d6963f7d28e17f72", NULL,
                                        "5eb63bbbe01eeed093cb22bb8f5acdc3", "9e107d9d372bb6826bd81d3542a419d6"};
static const char *const SHA1_WORDS[] = {"da39a3ee5e6b4b0d3255bfef95601890afd80709",
                                         "a9993e364706816aba3e25717850c26c9cd0d89d", NULL,
                                         "2aae6c35c94fcfb415dbe95f408b9ce91ee846ed",
                                         "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"};

typedef int32_t (*unary_fn)(struct ArrowArray *, const struct ArrowSchema *, struct ArrowArray *,
                            struct ArrowSchema *);

/* Calls `f` on the one argument of `c`, then releases its schema. */
static int32_t call_unary(unary_fn f, struct call *c) {
  int32_t rc = f(&c->arrays[0], &c->schemas[0], &c->out, &c->out_schema);
  args_release(c);
  return rc;
}

/* Runs `f` on WORDS laid out as `layout` (0 Utf8, 1 LargeUtf8, 2 Utf8View,
 * 3 Utf8 sliced at offset 2) and checks the digests. */
static void check_unary_digest(unary_fn f, int layout, const char *const *want, const char *flink_type) {
  struct call c = {0};
  const char *format = "u";
  switch (layout) {
    case 0: make_utf8(&c.arrays[0], WORDS, 5, &c.released); break;
    case 1: make_strings(&c.arrays[0], WORDS, 5, 0, 1, &c.released); format = "U"; break;
    case 2: make_utf8_view(&c.arrays[0], WORDS, 5, &c.released); format = "vu"; break;
    default: make_strings(&c.arrays[0], WORDS, 5, 2, 0, &c.released); break;
  }
  arg_push(&c, format);
  int32_t rc = call_unary(f, &c);
  CHECK(c.released == 1, "input released %d times", c.released);
  CHECK(c.arrays[0].release == NULL, "caller's input not marked released");
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  CHECK(sluice_last_error()[0] == '\0', "last_error after success");
  expect_strings(&c.out, &c.out_schema, want, 5, flink_type);
}

static void test_md5_utf8(void) { check_unary_digest(sluice_md5, 0, MD5_WORDS, "CHAR(32)"); }
static void test_md5_large_utf8(void) { check_unary_digest(sluice_md5, 1, MD5_WORDS, "CHAR(32)"); }
static void test_md5_utf8_view(void) { check_unary_digest(sluice_md5, 2, MD5_WORDS, "CHAR(32)"); }
static void test_md5_sliced(void) { check_unary_digest(sluice_md5, 3, MD5_WORDS, "CHAR(32)"); }
static void test_sha1_utf8(void) { check_unary_digest(sluice_sha1, 0, SHA1_WORDS, "CHAR(40)"); }
static void test_sha1_sliced_view(void) { check_unary_digest(sluice_sha1, 2, SHA1_WORDS, "CHAR(40)"); }

static void test_md5_not_null_flink_type(void) {
  static const char *const vals[] = {"abc"};
  struct call c = {0};
  make_utf8(&c.arrays[0], vals, 1, &c.released);
  arg_push_typed(&c, "u", "VARCHAR(3) NOT NULL");
  int32_t rc = call_unary(sluice_md5, &c);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  CHECK(!(c.out_schema.flags & ARROW_FLAG_NULLABLE), "output should be NOT NULL");
  static const char *const want[] = {"900150983cd24fb0d6963f7d28e17f72"};
  expect_strings(&c.out, &c.out_schema, want, 1, "CHAR(32) NOT NULL");
}

static void test_md5_empty_input(void) {
  struct call c = {0};
  arg_utf8(&c, NULL, 0);
  int32_t rc = call_unary(sluice_md5, &c);
  CHECK(c.released == 1, "released %d", c.released);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  expect_strings(&c.out, &c.out_schema, NULL, 0, "CHAR(32)");

  /* Empty and sliced: offset 3 into three padding rows. */
  make_strings(&c.arrays[0], NULL, 0, 3, 0, &c.released);
  arg_push(&c, "u");
  rc = call_unary(sluice_md5, &c);
  CHECK(c.released == 2, "released %d", c.released);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  if (rc == SLUICE_OK) expect_strings(&c.out, &c.out_schema, NULL, 0, "CHAR(32)");
}

/* Raw bytes (Binary, no flink.type) are hashed as stored, as Flink hashes
 * a string's bytes even when they are not valid UTF-8. */
static void test_md5_of_binary_hashes_raw_bytes(void) {
  static const char *const vals[] = {"\xff\xfe"};
  struct call c = {0};
  make_utf8(&c.arrays[0], vals, 1, &c.released);
  arg_push(&c, "z");
  int32_t rc = call_unary(sluice_md5, &c);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  /* md5 of ff fe, computed with Python hashlib */
  static const char *const want[] = {"f3b25701fe362ec84616a93a45ce9998"};
  if (rc == SLUICE_OK) expect_strings(&c.out, &c.out_schema, want, 1, "CHAR(32)");
}

/* Digests read bytes and write hex: the UTF-8 of a Utf8 input is not
 * checked, its bytes are hashed as stored (as Flink hashes a string's
 * bytes). */
static void test_md5_hashes_the_bytes_of_a_utf8_array(void) {
  static const char *const vals[] = {"ok", "\xff\xfe"};
  struct call c = {0};
  arg_utf8(&c, vals, 2);
  int32_t rc = call_unary(sluice_md5, &c);
  CHECK(c.released == 1, "released %d", c.released);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  static const char *const want[] = {"444bcb3a3fcf8389296c49467f27e1d6", "f3b25701fe362ec84616a93a45ce9998"};
  if (rc == SLUICE_OK) expect_strings(&c.out, &c.out_schema, want, 2, "CHAR(32)");
}

/* ---------------------------------------------------------------- SHA2 */

/* SHA2 with widths of length 1 (literal) or N (column), into `c`. */
static int32_t call_sha2(struct call *c, const char *const *vals, int n, const int32_t *widths, const int *wvalid,
                         int nw) {
  arg_utf8(c, vals, n);
  arg_int32(c, widths, wvalid, nw);
  int32_t rc = sluice_sha2(&c->arrays[0], &c->schemas[0], &c->arrays[1], &c->schemas[1], &c->out, &c->out_schema);
  args_release(c);
  return rc;
}

#define SHA224_ABC "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"
#define SHA256_ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define SHA512_ABC                                                     \
  "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a" \
  "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
#define SHA1_ABC "a9993e364706816aba3e25717850c26c9cd0d89d"

static void test_sha2_literal_width(void) {
  struct call c = {0};
  int32_t w = 256;
  int32_t rc = call_sha2(&c, ABC, 3, &w, NULL, 1);
  CHECK(c.released == 2, "released %d", c.released);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  static const char *const want[] = {SHA256_ABC, NULL, SHA256_ABC};
  expect_strings(&c.out, &c.out_schema, want, 3, "VARCHAR(128)");
}

static void test_sha2_width_column(void) {
  static const char *const vals[] = {"abc", "abc", "abc", "abc", NULL};
  static const int32_t widths[] = {224, 512, 0, 1, 7};
  static const int valid[] = {1, 1, 0, 1, 1};
  struct call c = {0};
  int32_t rc = call_sha2(&c, vals, 5, widths, valid, 5);
  CHECK(c.released == 2, "released %d", c.released);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  /* NULL width -> NULL; width 1 -> SHA-1 (JDK "SHA-1"); invalid width 7
   * meets a NULL input -> NULL (Flink, docs/flink-semantics.md section 11). */
  static const char *const want[] = {SHA224_ABC, SHA512_ABC, NULL, SHA1_ABC, NULL};
  expect_strings(&c.out, &c.out_schema, want, 5, "VARCHAR(128)");
}

/* Each failing SHA2 call of a table: the input `vals`, the widths (Int32
 * `widths`, or a Utf8 column when `string_widths`), the status and a part
 * of the message. */
struct sha2_error {
  const char *const *vals;
  int n;
  const int32_t *widths;
  int nw;
  int string_widths;
  int32_t rc;
  const char *message;
};

static void expect_sha2_error(const struct sha2_error *e) {
  static const char *const ws[] = {"256"};
  struct call c = {0};
  int32_t rc;
  if (e->string_widths) {
    arg_utf8(&c, e->vals, e->n);
    arg_utf8(&c, ws, 1);
    rc = sluice_sha2(&c.arrays[0], &c.schemas[0], &c.arrays[1], &c.schemas[1], &c.out, &c.out_schema);
    args_release(&c);
  } else {
    rc = call_sha2(&c, e->vals, e->n, e->widths, NULL, e->nw);
  }
  expect_error(&c, rc, e->rc, e->message, 2);
}

static const int32_t W160[] = {160};
static const char *const ABC2[] = {"abc", "abc"};
static const int32_t W256_MINUS1[] = {256, -1};
static const int32_t W256_256[] = {256, 256};

/* Declares the test `name` of one failing SHA2 call (a sha2_error). */
#define SHA2_ERROR_TEST(name, ...)             \
  static void name(void) {                     \
    const struct sha2_error e = {__VA_ARGS__}; \
    expect_sha2_error(&e);                     \
  }

SHA2_ERROR_TEST(test_sha2_invalid_literal_width_fails_even_without_rows,
                NULL, 0, W160, 1, 0, SLUICE_ERR_FLINK, "Unsupported algorithm.")
SHA2_ERROR_TEST(test_sha2_invalid_column_width_meeting_a_value,
                ABC2, 2, W256_MINUS1, 2, 0, SLUICE_ERR_FLINK, "SHA--1 MessageDigest not available")
SHA2_ERROR_TEST(test_sha2_widths_length_mismatch,
                ABC, 3, W256_256, 2, 0, SLUICE_ERR_INVALID_ARGUMENT, "widths has 2 rows")
SHA2_ERROR_TEST(test_sha2_widths_wrong_type,
                ABC, 3, NULL, 0, 1, SLUICE_ERR_UNSUPPORTED_TYPE, "widths must be Int32")

static void test_sha2_null_widths_releases_input(void) {
  struct ArrowSchema w_schema;
  struct call c = {0};
  arg_utf8(&c, ABC, 3);
  make_schema(&w_schema, "i", NULL);
  int32_t rc = sluice_sha2(&c.arrays[0], &c.schemas[0], NULL, &w_schema, &c.out, &c.out_schema);
  args_release(&c);
  w_schema.release(&w_schema);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "rc %d", rc);
  CHECK(strcmp(sluice_last_error(), "sluice_sha2: widths is NULL") == 0, "message");
  CHECK(c.released == 1 && c.arrays[0].release == NULL, "released %d", c.released);
}

int main(void) {
  RUN(test_md5_utf8);
  RUN(test_md5_large_utf8);
  RUN(test_md5_utf8_view);
  RUN(test_md5_sliced);
  RUN(test_sha1_utf8);
  RUN(test_sha1_sliced_view);
  RUN(test_md5_not_null_flink_type);
  RUN(test_md5_empty_input);
  RUN(test_md5_of_binary_hashes_raw_bytes);
  RUN(test_md5_hashes_the_bytes_of_a_utf8_array);
  RUN(test_sha2_literal_width);
  RUN(test_sha2_width_column);
  RUN(test_sha2_invalid_literal_width_fails_even_without_rows);
  RUN(test_sha2_invalid_column_width_meeting_a_value);
  RUN(test_sha2_widths_length_mismatch);
  RUN(test_sha2_widths_wrong_type);
  RUN(test_sha2_null_widths_releases_input);
  return report("test_digest");
}
