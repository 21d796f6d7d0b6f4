/*
 * C test suite of libsluice: success paths, error paths and ownership, built
 * against include/sluice.h only (no arrow C++). Prints `N passed, M failed`
 * as its last line and exits non-zero on any failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "arrow_build.h"
#include "check.h"


/* Checks a Utf8 output against `expected` (NULL = NULL row) and its
 * flink.type, then releases it. */
static void expect_strings(struct ArrowArray *out, struct ArrowSchema *out_schema, const char *const *expected,
                           int n, const char *flink_type) {
  CHECK(out->release != NULL, "output array not written");
  CHECK(out_schema->release != NULL, "output schema not written");
  if (!out->release || !out_schema->release) return;
  CHECK(strcmp(out_schema->format, "u") == 0, "format %s", out_schema->format);
  CHECK(out->offset == 0, "offset %lld", (long long)out->offset);
  CHECK(out->length == n, "length %lld, want %d", (long long)out->length, n);
  int32_t tl = 0;
  const char *t = schema_metadata(out_schema, "flink.type", &tl);
  CHECK(t && (size_t)tl == strlen(flink_type) && memcmp(t, flink_type, (size_t)tl) == 0, "flink.type %.*s, want %s",
        t ? tl : 4, t ? t : "NULL", flink_type);
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

/* ---------------------------------------------------------------- basics */

static void test_version(void) {
  const char *v = sluice_version();
  CHECK(v && starts_with(v, "sluice "), "version %s", v ? v : "NULL");
}

static void test_last_error_empty_before_any_error(void) {
  const char *e = sluice_last_error();
  CHECK(e && e[0] == '\0', "%s", e ? e : "NULL");
}

/* ---------------------------------------------------------------- digests */

static const char *const WORDS[] = {"", "abc", NULL, "hello world", "The quick brown fox jumps over the lazy dog"};
static const char *const MD5_WORDS[] = {"d41d8cd98f00b204e9800998ecf8427e", "900150983cd24fb0d6963f7d28e17f72", NULL,
                                        "5eb63bbbe01eeed093cb22bb8f5acdc3", "9e107d9d372bb6826bd81d3542a419d6"};
static const char *const SHA1_WORDS[] = {"da39a3ee5e6b4b0d3255bfef95601890afd80709",
                                         "a9993e364706816aba3e25717850c26c9cd0d89d", NULL,
                                         "2aae6c35c94fcfb415dbe95f408b9ce91ee846ed",
                                         "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"};

typedef int32_t (*unary_fn)(struct ArrowArray *, const struct ArrowSchema *, struct ArrowArray *,
                            struct ArrowSchema *);

/* Runs `f` on WORDS laid out as `layout` (0 Utf8, 1 LargeUtf8, 2 Utf8View,
 * 3 Utf8 sliced at offset 2) and checks the digests. */
static void check_unary_digest(unary_fn f, int layout, const char *const *want, const char *flink_type) {
  struct ArrowArray in, out;
  struct ArrowSchema in_schema, out_schema;
  int released = 0;
  const char *format = "u";
  switch (layout) {
    case 0: make_utf8(&in, WORDS, 5, &released); break;
    case 1: make_strings(&in, WORDS, 5, 0, 1, &released); format = "U"; break;
    case 2: make_utf8_view(&in, WORDS, 5, &released); format = "vu"; break;
    default: make_strings(&in, WORDS, 5, 2, 0, &released); break;
  }
  make_schema(&in_schema, format, NULL);
  memset(&out, 0, sizeof out);
  memset(&out_schema, 0, sizeof out_schema);
  int32_t rc = f(&in, &in_schema, &out, &out_schema);
  in_schema.release(&in_schema);
  CHECK(released == 1, "input released %d times", released);
  CHECK(in.release == NULL, "caller's input not marked released");
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  CHECK(sluice_last_error()[0] == '\0', "last_error after success");
  expect_strings(&out, &out_schema, want, 5, flink_type);
}

static void test_md5_utf8(void) { check_unary_digest(sluice_md5, 0, MD5_WORDS, "CHAR(32)"); }
static void test_md5_large_utf8(void) { check_unary_digest(sluice_md5, 1, MD5_WORDS, "CHAR(32)"); }
static void test_md5_utf8_view(void) { check_unary_digest(sluice_md5, 2, MD5_WORDS, "CHAR(32)"); }
static void test_md5_sliced(void) { check_unary_digest(sluice_md5, 3, MD5_WORDS, "CHAR(32)"); }
static void test_sha1_utf8(void) { check_unary_digest(sluice_sha1, 0, SHA1_WORDS, "CHAR(40)"); }
static void test_sha1_sliced_view(void) { check_unary_digest(sluice_sha1, 2, SHA1_WORDS, "CHAR(40)"); }

static void test_md5_not_null_flink_type(void) {
  static const char *const vals[] = {"abc"};
  struct ArrowArray in, out;
  struct ArrowSchema in_schema, out_schema;
  make_utf8(&in, vals, 1, NULL);
  make_schema(&in_schema, "u", "VARCHAR(3) NOT NULL");
  int32_t rc = sluice_md5(&in, &in_schema, &out, &out_schema);
  in_schema.release(&in_schema);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  CHECK(!(out_schema.flags & ARROW_FLAG_NULLABLE), "output should be NOT NULL");
  static const char *const want[] = {"900150983cd24fb0d6963f7d28e17f72"};
  expect_strings(&out, &out_schema, want, 1, "CHAR(32) NOT NULL");
}

static void test_md5_empty_input(void) {
  struct ArrowArray in, out;
  struct ArrowSchema in_schema, out_schema;
  int released = 0;
  make_utf8(&in, NULL, 0, &released);
  make_schema(&in_schema, "u", NULL);
  int32_t rc = sluice_md5(&in, &in_schema, &out, &out_schema);
  in_schema.release(&in_schema);
  CHECK(released == 1, "released %d", released);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  expect_strings(&out, &out_schema, NULL, 0, "CHAR(32)");

  /* Empty and sliced: offset 3 into three padding rows. */
  make_strings(&in, NULL, 0, 3, 0, &released);
  make_schema(&in_schema, "u", NULL);
  rc = sluice_md5(&in, &in_schema, &out, &out_schema);
  in_schema.release(&in_schema);
  CHECK(released == 2, "released %d", released);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  if (rc == SLUICE_OK) expect_strings(&out, &out_schema, NULL, 0, "CHAR(32)");
}

/* REPLACE's output is Utf8: an output row that is not UTF-8 (here carried
 * over from an invalid input row) is SLUICE_ERR_INVALID_UTF8 naming the
 * row, and nothing is written. */
static void test_invalid_utf8_names_the_row(void) {
  static const char *const vals[] = {"ok", "fine", "ab\xc3"};
  static const char *const one[] = {"b"};
  struct ArrowArray in, a2, a3, out;
  struct ArrowSchema in_schema, s2, s3, out_schema;
  int released = 0;
  make_utf8(&in, vals, 3, &released);
  make_utf8(&a2, one, 1, &released);
  make_utf8(&a3, one, 1, &released);
  make_schema(&in_schema, "u", NULL);
  make_schema(&s2, "u", NULL);
  make_schema(&s3, "u", NULL);
  memset(&out, 0, sizeof out);
  int32_t rc = sluice_replace(&in, &in_schema, &a2, &s2, &a3, &s3, &out, &out_schema);
  in_schema.release(&in_schema);
  s2.release(&s2);
  s3.release(&s3);
  CHECK(rc == SLUICE_ERR_INVALID_UTF8, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "row 2") != NULL, "message %s", sluice_last_error());
  CHECK(released == 3, "released %d", released);
  CHECK(out.release == NULL, "output written on error");
}

/* POSITION and LIKE give INT / BOOLEAN: they read the bytes of a Utf8
 * input by Flink's lead-byte rule (BinaryStringData.numBytesForFirstByte)
 * without validating them first, so bytes that are not UTF-8 give a result,
 * not an error. \xff counts as one character, so "lo" is at 3. */
static void test_search_reads_bytes_that_are_not_utf8(void) {
  static const char *const needle[] = {"lo"};
  static const char *const hay[] = {"\xff" "alo", "ok"};
  static const char *const pat[] = {"%lo"};
  struct ArrowArray in, ih, out;
  struct ArrowSchema sn, sh, out_schema;
  make_utf8(&in, needle, 1, NULL);
  make_utf8(&ih, hay, 2, NULL);
  make_schema(&sn, "u", NULL);
  make_schema(&sh, "u", NULL);
  int32_t rc = sluice_position(&in, &sn, &ih, &sh, &out, &out_schema);
  CHECK(rc == SLUICE_OK, "position rc %d: %s", rc, sluice_last_error());
  if (rc == SLUICE_OK) {
    const int32_t *v = (const int32_t *)out.buffers[1];
    CHECK(out.length == 2 && v[0] == 3 && v[1] == 0, "values %d %d", v[0], v[1]);
    release_out(&out, &out_schema);
  }
  make_utf8(&ih, hay, 2, NULL);
  make_utf8(&in, pat, 1, NULL);
  rc = sluice_like(&ih, &sh, &in, &sn, NULL, &out, &out_schema);
  sn.release(&sn);
  sh.release(&sh);
  CHECK(rc == SLUICE_OK, "like rc %d: %s", rc, sluice_last_error());
  if (rc == SLUICE_OK) {
    const uint8_t *bits = (const uint8_t *)out.buffers[1];
    CHECK(out.length == 2 && (bits[0] & 1) && !(bits[0] & 2), "values");
    release_out(&out, &out_schema);
  }
}

/* Raw bytes (Binary, no flink.type) are hashed as stored, as Flink hashes
 * a string's bytes even when they are not valid UTF-8. */
static void test_md5_of_binary_hashes_raw_bytes(void) {
  static const char *const vals[] = {"\xff\xfe"};
  struct ArrowArray in, out;
  struct ArrowSchema in_schema, out_schema;
  make_utf8(&in, vals, 1, NULL);
  make_schema(&in_schema, "z", NULL);
  int32_t rc = sluice_md5(&in, &in_schema, &out, &out_schema);
  in_schema.release(&in_schema);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  /* md5 of ff fe, computed with Python hashlib */
  static const char *const want[] = {"f3b25701fe362ec84616a93a45ce9998"};
  if (rc == SLUICE_OK) expect_strings(&out, &out_schema, want, 1, "CHAR(32)");
}

/* SHA2 with widths of length 1 (literal) or N (column). */
static int32_t call_sha2(const char *const *vals, int n, const int32_t *widths, const int *wvalid, int nw,
                         struct ArrowArray *out, struct ArrowSchema *out_schema, int *released) {
  struct ArrowArray in, w;
  struct ArrowSchema in_schema, w_schema;
  make_utf8(&in, vals, n, released);
  make_int32(&w, widths, wvalid, nw, released);
  make_schema(&in_schema, "u", NULL);
  make_schema(&w_schema, "i", NULL);
  memset(out, 0, sizeof *out);
  memset(out_schema, 0, sizeof *out_schema);
  int32_t rc = sluice_sha2(&in, &in_schema, &w, &w_schema, out, out_schema);
  in_schema.release(&in_schema);
  w_schema.release(&w_schema);
  return rc;
}

static const char *const ABC[] = {"abc", NULL, "abc"};
#define SHA224_ABC "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"
#define SHA256_ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define SHA512_ABC                                                     \
  "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a" \
  "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
#define SHA1_ABC "a9993e364706816aba3e25717850c26c9cd0d89d"

static void test_sha2_literal_width(void) {
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  int released = 0;
  int32_t w = 256;
  int32_t rc = call_sha2(ABC, 3, &w, NULL, 1, &out, &out_schema, &released);
  CHECK(released == 2, "released %d", released);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  static const char *const want[] = {SHA256_ABC, NULL, SHA256_ABC};
  expect_strings(&out, &out_schema, want, 3, "VARCHAR(128)");
}

static void test_sha2_width_column(void) {
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  static const char *const vals[] = {"abc", "abc", "abc", "abc", NULL};
  static const int32_t widths[] = {224, 512, 0, 1, 7};
  static const int valid[] = {1, 1, 0, 1, 1};
  int released = 0;
  int32_t rc = call_sha2(vals, 5, widths, valid, 5, &out, &out_schema, &released);
  CHECK(released == 2, "released %d", released);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  /* NULL width -> NULL; width 1 -> SHA-1 (JDK "SHA-1"); invalid width 7
   * meets a NULL input -> NULL (Flink, docs/flink-semantics.md section 11). */
  static const char *const want[] = {SHA224_ABC, SHA512_ABC, NULL, SHA1_ABC, NULL};
  expect_strings(&out, &out_schema, want, 5, "VARCHAR(128)");
}

static void test_sha2_invalid_literal_width_fails_even_without_rows(void) {
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  int released = 0;
  int32_t w = 160;
  int32_t rc = call_sha2(NULL, 0, &w, NULL, 1, &out, &out_schema, &released);
  CHECK(released == 2, "released %d", released);
  CHECK(rc == SLUICE_ERR_FLINK, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "Unsupported algorithm.") != NULL, "message");
  CHECK(out.release == NULL && out_schema.release == NULL, "outputs written on error");
}

static void test_sha2_invalid_column_width_meeting_a_value(void) {
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  static const char *const vals[] = {"abc", "abc"};
  static const int32_t widths[] = {256, -1};
  int released = 0;
  int32_t rc = call_sha2(vals, 2, widths, NULL, 2, &out, &out_schema, &released);
  CHECK(released == 2, "released %d", released);
  CHECK(rc == SLUICE_ERR_FLINK, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "SHA--1 MessageDigest not available") != NULL, "message");
}

static void test_sha2_widths_length_mismatch(void) {
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  static const int32_t widths[] = {256, 256};
  int released = 0;
  int32_t rc = call_sha2(ABC, 3, widths, NULL, 2, &out, &out_schema, &released);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "widths has 2 rows") != NULL, "message");
  CHECK(released == 2, "released %d", released);
}

static void test_sha2_widths_wrong_type(void) {
  struct ArrowArray in, w, out;
  struct ArrowSchema in_schema, w_schema, out_schema;
  int released = 0;
  static const char *const ws[] = {"256"};
  make_utf8(&in, ABC, 3, &released);
  make_utf8(&w, ws, 1, &released);
  make_schema(&in_schema, "u", NULL);
  make_schema(&w_schema, "u", NULL);
  int32_t rc = sluice_sha2(&in, &in_schema, &w, &w_schema, &out, &out_schema);
  in_schema.release(&in_schema);
  w_schema.release(&w_schema);
  CHECK(rc == SLUICE_ERR_UNSUPPORTED_TYPE, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "widths must be Int32") != NULL, "message");
  CHECK(released == 2, "released %d", released);
}

static void test_sha2_null_widths_releases_input(void) {
  struct ArrowArray in, out;
  struct ArrowSchema in_schema, w_schema, out_schema;
  int released = 0;
  make_utf8(&in, ABC, 3, &released);
  make_schema(&in_schema, "u", NULL);
  make_schema(&w_schema, "i", NULL);
  int32_t rc = sluice_sha2(&in, &in_schema, NULL, &w_schema, &out, &out_schema);
  in_schema.release(&in_schema);
  w_schema.release(&w_schema);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "rc %d", rc);
  CHECK(strcmp(sluice_last_error(), "sluice_sha2: widths is NULL") == 0, "message");
  CHECK(released == 1 && in.release == NULL, "released %d", released);
}

/* ------------------------------------------------- generic error paths */

static void test_null_input_array(void) {
  struct ArrowSchema s, out_schema;
  struct ArrowArray out;
  make_schema(&s, "u", NULL);
  int32_t rc = sluice_md5(NULL, &s, &out, &out_schema);
  s.release(&s);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "rc %d", rc);
  CHECK(strcmp(sluice_last_error(), "sluice_md5: in is NULL") == 0, "message");
}

static void test_null_schema_releases_input(void) {
  struct ArrowArray in, out;
  struct ArrowSchema out_schema;
  int released = 0;
  make_utf8(&in, ABC, 3, &released);
  int32_t rc = sluice_md5(&in, NULL, &out, &out_schema);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "rc %d", rc);
  CHECK(strcmp(sluice_last_error(), "sluice_md5: in_schema is NULL") == 0, "message");
  CHECK(released == 1 && in.release == NULL, "released %d", released);
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

static void test_already_released_input(void) {
  struct ArrowArray in, out;
  struct ArrowSchema in_schema, out_schema;
  memset(&in, 0, sizeof in); /* release == NULL */
  make_schema(&in_schema, "u", NULL);
  int32_t rc = sluice_md5(&in, &in_schema, &out, &out_schema);
  in_schema.release(&in_schema);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "already released") != NULL, "message");
}

static void test_released_schema(void) {
  struct ArrowArray in, out;
  struct ArrowSchema in_schema, out_schema;
  int released = 0;
  make_utf8(&in, ABC, 3, &released);
  memset(&in_schema, 0, sizeof in_schema);
  int32_t rc = sluice_md5(&in, &in_schema, &out, &out_schema);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "in_schema is released") != NULL, "message");
  CHECK(released == 1, "released %d", released);
}

static void test_wrong_input_type(void) {
  struct ArrowArray in, out;
  struct ArrowSchema in_schema, out_schema;
  int released = 0;
  static const int32_t v[] = {1, 2};
  make_int32(&in, v, NULL, 2, &released);
  make_schema(&in_schema, "i", NULL);
  int32_t rc = sluice_md5(&in, &in_schema, &out, &out_schema);
  in_schema.release(&in_schema);
  CHECK(rc == SLUICE_ERR_UNSUPPORTED_TYPE, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "got Int32") != NULL, "message");
  CHECK(released == 1, "released %d", released);
}

static void test_flink_type_that_is_not_a_string(void) {
  struct ArrowArray in, out;
  struct ArrowSchema in_schema, out_schema;
  int released = 0;
  make_utf8(&in, ABC, 3, &released);
  make_schema(&in_schema, "u", "INT");
  int32_t rc = sluice_md5(&in, &in_schema, &out, &out_schema);
  in_schema.release(&in_schema);
  CHECK(rc == SLUICE_ERR_UNSUPPORTED_TYPE, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "flink.type is INT") != NULL, "message");
  CHECK(released == 1, "released %d", released);
}

/* A column LIKE pattern is compiled as text: a row that is not UTF-8 is
 * SLUICE_ERR_INVALID_UTF8. So is a SPLIT_INDEX token that is not. */
static void test_invalid_utf8_in_utf8_array(void) {
  static const char *const vals[] = {"ok", "ok"};
  static const char *const pats[] = {"%", "\xff\xfe"};
  struct ArrowArray in, pat, out;
  struct ArrowSchema in_schema, pat_schema, out_schema;
  int released = 0;
  make_utf8(&in, vals, 2, &released);
  make_utf8(&pat, pats, 2, &released);
  make_schema(&in_schema, "u", NULL);
  make_schema(&pat_schema, "u", NULL);
  int32_t rc = sluice_like(&in, &in_schema, &pat, &pat_schema, NULL, &out, &out_schema);
  CHECK(rc == SLUICE_ERR_INVALID_UTF8, "like rc %d", rc);
  CHECK(released == 2, "released %d", released);

  static const char *const csv[] = {"a,b", "\xff,c"};
  static const char *const comma[] = {","};
  static const int32_t idx[] = {0};
  struct ArrowArray sep, ix;
  struct ArrowSchema ix_schema;
  make_utf8(&in, csv, 2, &released);
  make_utf8(&sep, comma, 1, &released);
  make_int32(&ix, idx, NULL, 1, &released);
  make_schema(&ix_schema, "i", NULL);
  rc = sluice_split_index(&in, &in_schema, &sep, &pat_schema, &ix, &ix_schema, &out, &out_schema);
  in_schema.release(&in_schema);
  pat_schema.release(&pat_schema);
  ix_schema.release(&ix_schema);
  CHECK(rc == SLUICE_ERR_INVALID_UTF8, "split_index rc %d", rc);
  CHECK(strstr(sluice_last_error(), "row 1") != NULL, "message %s", sluice_last_error());
  CHECK(released == 5, "released %d", released);
}

/* Digests read bytes and write hex: the UTF-8 of a Utf8 input is not
 * checked, its bytes are hashed as stored (as Flink hashes a string's
 * bytes). */
static void test_md5_hashes_the_bytes_of_a_utf8_array(void) {
  static const char *const vals[] = {"ok", "\xff\xfe"};
  struct ArrowArray in, out;
  struct ArrowSchema in_schema, out_schema;
  int released = 0;
  make_utf8(&in, vals, 2, &released);
  make_schema(&in_schema, "u", NULL);
  int32_t rc = sluice_md5(&in, &in_schema, &out, &out_schema);
  in_schema.release(&in_schema);
  CHECK(released == 1, "released %d", released);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  static const char *const want[] = {"444bcb3a3fcf8389296c49467f27e1d6", "f3b25701fe362ec84616a93a45ce9998"};
  if (rc == SLUICE_OK) expect_strings(&out, &out_schema, want, 2, "CHAR(32)");
}

static void test_wrong_buffer_count(void) {
  struct ArrowArray in, out;
  struct ArrowSchema in_schema, out_schema;
  int released = 0;
  make_utf8(&in, ABC, 3, &released);
  in.n_buffers = 2; /* a Utf8 array needs 3 */
  make_schema(&in_schema, "u", NULL);
  int32_t rc = sluice_md5(&in, &in_schema, &out, &out_schema);
  in_schema.release(&in_schema);
  CHECK(rc == SLUICE_ERR_INVALID_ARROW, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "needs 3 buffers, it has 2") != NULL, "message");
  CHECK(released == 1, "released %d", released);
}

static void test_offsets_out_of_order(void) {
  struct ArrowArray in, out;
  struct ArrowSchema in_schema, out_schema;
  int released = 0;
  make_utf8(&in, ABC, 3, &released);
  int32_t *offs = (int32_t *)((struct ta_private *)in.private_data)->owned[1];
  offs[1] = 5; /* > offs[2] = 3 */
  make_schema(&in_schema, "u", NULL);
  int32_t rc = sluice_md5(&in, &in_schema, &out, &out_schema);
  in_schema.release(&in_schema);
  CHECK(rc == SLUICE_ERR_INVALID_ARROW, "rc %d", rc);
  CHECK(released == 1, "released %d", released);
}

static void test_negative_length(void) {
  struct ArrowArray in, out;
  struct ArrowSchema in_schema, out_schema;
  int released = 0;
  make_utf8(&in, ABC, 3, &released);
  in.length = -1;
  make_schema(&in_schema, "u", NULL);
  int32_t rc = sluice_md5(&in, &in_schema, &out, &out_schema);
  in_schema.release(&in_schema);
  CHECK(rc == SLUICE_ERR_INVALID_ARROW, "rc %d", rc);
  CHECK(released == 1, "released %d", released);
}

static void test_schema_with_null_format(void) {
  struct ArrowArray in, out;
  struct ArrowSchema in_schema, out_schema;
  int released = 0;
  make_utf8(&in, ABC, 3, &released);
  make_schema(&in_schema, "u", NULL);
  const char *saved = in_schema.format;
  in_schema.format = NULL;
  int32_t rc = sluice_md5(&in, &in_schema, &out, &out_schema);
  in_schema.format = saved;
  in_schema.release(&in_schema);
  CHECK(rc == SLUICE_ERR_INVALID_ARROW, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "format is NULL") != NULL, "message");
  CHECK(released == 1, "released %d", released);
}

/* ---------------------------------------------------------------- concat */

static void test_concat_arrays_and_scalar(void) {
  static const char *const a[] = {"a", "b", NULL, "", "\xc3\xa9"};
  static const char *const dash[] = {"-"};
  static const char *const c[] = {"x", "y", "z", "", "\xf0\x9f\x98\x80"};
  struct ArrowArray ia, ib, ic, out;
  struct ArrowSchema sa, sb, sc, out_schema;
  int released = 0;
  make_utf8(&ia, a, 5, &released);
  make_utf8_view(&ib, dash, 1, &released);
  make_strings(&ic, c, 5, 3, 1, &released); /* LargeUtf8, sliced */
  make_schema(&sa, "u", NULL);
  make_schema(&sb, "vu", NULL);
  make_schema(&sc, "U", NULL);
  struct ArrowArray *ins[] = {&ia, &ib, &ic};
  const struct ArrowSchema *schemas[] = {&sa, &sb, &sc};
  int32_t rc = sluice_concat(3, ins, schemas, &out, &out_schema);
  sa.release(&sa);
  sb.release(&sb);
  sc.release(&sc);
  CHECK(released == 3, "released %d", released);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  static const char *const want[] = {"a-x", "b-y", NULL, "-", "\xc3\xa9-\xf0\x9f\x98\x80"};
  expect_strings(&out, &out_schema, want, 5, "VARCHAR(2147483647)");
}

static void test_concat_ws_skips_nulls(void) {
  static const char *const sep[] = {","};
  static const char *const a[] = {"a", NULL, "", NULL};
  static const char *const b[] = {"c", "d", NULL, NULL};
  struct ArrowArray is, ia, ib, out;
  struct ArrowSchema ss, sa, sb, out_schema;
  int released = 0;
  make_utf8(&is, sep, 1, &released);
  make_utf8(&ia, a, 4, &released);
  make_utf8(&ib, b, 4, &released);
  make_schema(&ss, "u", NULL);
  make_schema(&sa, "u", NULL);
  make_schema(&sb, "u", NULL);
  struct ArrowArray *ins[] = {&ia, &ib};
  const struct ArrowSchema *schemas[] = {&sa, &sb};
  int32_t rc = sluice_concat_ws(&is, &ss, 2, ins, schemas, &out, &out_schema);
  ss.release(&ss);
  sa.release(&sa);
  sb.release(&sb);
  CHECK(released == 3, "released %d", released);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  /* Flink BinaryStringDataUtil.concatWs: NULL arguments skipped with their
   * separator, empty strings kept, all-NULL arguments give ''. */
  static const char *const want[] = {"a,c", "d", "", ""};
  expect_strings(&out, &out_schema, want, 4, "VARCHAR(2147483647)");
}

static void test_concat_ws_null_separator(void) {
  static const char *const sep[] = {NULL, "+"};
  static const char *const a[] = {"a", "b"};
  struct ArrowArray is, ia, out;
  struct ArrowSchema ss, sa, out_schema;
  make_utf8(&is, sep, 2, NULL);
  make_utf8(&ia, a, 2, NULL);
  make_schema(&ss, "u", NULL);
  make_schema(&sa, "u", NULL);
  struct ArrowArray *ins[] = {&ia};
  const struct ArrowSchema *schemas[] = {&sa};
  int32_t rc = sluice_concat_ws(&is, &ss, 1, ins, schemas, &out, &out_schema);
  ss.release(&ss);
  sa.release(&sa);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  static const char *const want[] = {NULL, "b"};
  expect_strings(&out, &out_schema, want, 2, "VARCHAR(2147483647)");
}

static void test_concat_length_mismatch(void) {
  struct ArrowArray ia, ib, out;
  struct ArrowSchema sa, sb, out_schema;
  int released = 0;
  make_utf8(&ia, ABC, 3, &released);
  make_utf8(&ib, ABC, 2, &released);
  make_schema(&sa, "u", NULL);
  make_schema(&sb, "u", NULL);
  struct ArrowArray *ins[] = {&ia, &ib};
  const struct ArrowSchema *schemas[] = {&sa, &sb};
  int32_t rc = sluice_concat(2, ins, schemas, &out, &out_schema);
  sa.release(&sa);
  sb.release(&sb);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "argument 0 has 3 rows and argument 1 has 2") != NULL, "message");
  CHECK(released == 2, "released %d", released);
}

static void test_concat_null_element_releases_the_others(void) {
  struct ArrowArray ia, ic, out;
  struct ArrowSchema sa, out_schema;
  int released = 0;
  make_utf8(&ia, ABC, 3, &released);
  make_utf8(&ic, ABC, 3, &released);
  make_schema(&sa, "u", NULL);
  struct ArrowArray *ins[] = {&ia, NULL, &ic};
  const struct ArrowSchema *schemas[] = {&sa, &sa, &sa};
  int32_t rc = sluice_concat(3, ins, schemas, &out, &out_schema);
  sa.release(&sa);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "ins[1] is NULL") != NULL, "message");
  CHECK(released == 2 && ia.release == NULL && ic.release == NULL, "released %d", released);
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
  struct ArrowArray ia, ib, out;
  struct ArrowSchema sa, sb, out_schema;
  int released = 0;
  make_utf8(&ia, scalar, 1, &released);
  make_utf8(&ib, rows, 2048, &released);
  free(s);
  free(rows);
  make_schema(&sa, "u", NULL);
  make_schema(&sb, "u", NULL);
  struct ArrowArray *ins[] = {&ia, &ib};
  const struct ArrowSchema *schemas[] = {&sa, &sb};
  int32_t rc = sluice_concat(2, ins, schemas, &out, &out_schema);
  sa.release(&sa);
  sb.release(&sb);
  CHECK(released == 2, "released %d", released);
  CHECK(rc == SLUICE_ERR_OFFSET_OVERFLOW, "rc %d", rc);
  if (rc == SLUICE_OK) release_out(&out, &out_schema);
}

/* ----------------------------------------------------------- utf16 */

static void test_utf16_to_utf8(void) {
  /* "h\u00e9" | "" | NULL | lone high surrogate + 'a' | U+1F600 | "\u0800" */
  static const uint16_t units[] = {'h', 0x00e9, 'x', 0xd800, 'a', 0xd83d, 0xde00, 0x0800};
  static const int64_t offsets[] = {0, 2, 2, 3, 5, 7, 8};
  static const uint8_t validity[] = {0x3b}; /* rows 0,1,3,4,5 valid; row 2 NULL */
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  int32_t rc = sluice_utf16_to_utf8(units, offsets, validity, 6, &out, &out_schema);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  /* Flink/JDK: an unpaired surrogate encodes as '?' (docs/flink-semantics.md 11). */
  static const char *const want[] = {"h\xc3\xa9", "", NULL, "?a", "\xf0\x9f\x98\x80", "\xe0\xa0\x80"};
  expect_strings(&out, &out_schema, want, 6, "VARCHAR(2147483647)");
}

static void test_utf16_errors(void) {
  static const uint16_t units[] = {'a', 'b'};
  static const int64_t bad[] = {0, 2, 1};
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  int32_t rc = sluice_utf16_to_utf8(units, bad, NULL, 2, &out, &out_schema);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "offsets decrease at row 1") != NULL, "message");
  rc = sluice_utf16_to_utf8(units, NULL, NULL, 2, &out, &out_schema);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "rc %d", rc);
  static const int64_t ok[] = {0, 2};
  rc = sluice_utf16_to_utf8(units, ok, NULL, -1, &out, &out_schema);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT, "rc %d", rc);
  rc = sluice_utf16_to_utf8(units, ok, NULL, INT64_MAX, &out, &out_schema);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "is too large") != NULL, "message");
  rc = sluice_utf16_to_utf8(NULL, ok, NULL, 1, &out, &out_schema);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "units is NULL") != NULL, "message");
  rc = sluice_utf16_to_utf8(units, ok, NULL, 1, NULL, &out_schema);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "rc %d", rc);
}

/* ----------------------------------------------------------- search */

static void test_position(void) {
  static const char *const needle[] = {"lo"};
  static const char *const hay[] = {"hello", "\xc3\xa9lo", NULL, "xyz"};
  struct ArrowArray in, ih, out;
  struct ArrowSchema sn, sh, out_schema;
  int released = 0;
  make_utf8(&in, needle, 1, &released);
  make_utf8(&ih, hay, 4, &released);
  make_schema(&sn, "u", NULL);
  make_schema(&sh, "u", NULL);
  int32_t rc = sluice_position(&in, &sn, &ih, &sh, &out, &out_schema);
  sn.release(&sn);
  sh.release(&sh);
  CHECK(released == 2, "released %d", released);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  CHECK(strcmp(out_schema.format, "i") == 0, "format %s", out_schema.format);
  const int32_t *v = (const int32_t *)out.buffers[1];
  CHECK(out.length == 4 && v[0] == 4 && v[1] == 2 && !is_valid_row(&out, 2) && v[3] == 0, "values");
  release_out(&out, &out_schema);
}

static void test_locate_with_from(void) {
  static const char *const needle[] = {"a"};
  static const char *const hay[] = {"banana", "banana", "banana", "banana"};
  static const int32_t from[] = {0, 3, 7, 0};
  static const int valid[] = {1, 1, 1, 0};
  struct ArrowArray in, ih, ifr, out;
  struct ArrowSchema sn, sh, sf, out_schema;
  int released = 0;
  make_utf8(&in, needle, 1, &released);
  make_utf8(&ih, hay, 4, &released);
  make_int32(&ifr, from, valid, 4, &released);
  make_schema(&sn, "u", NULL);
  make_schema(&sh, "u", NULL);
  make_schema(&sf, "i", NULL);
  int32_t rc = sluice_locate(&in, &sn, &ih, &sh, &ifr, &sf, &out, &out_schema);
  sn.release(&sn);
  sh.release(&sh);
  sf.release(&sf);
  CHECK(released == 3, "released %d", released);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  /* SqlFunctionUtils.position(needle, hay, from) = hay.indexOf(needle,
   * from - 1) + 1; from <= 0 searches from the start. */
  const int32_t *v = (const int32_t *)out.buffers[1];
  CHECK(out.length == 4 && v[0] == 2 && v[1] == 4 && v[2] == 0 && !is_valid_row(&out, 3), "values %d %d %d", v[0],
        v[1], v[2]);
  int32_t tl = 0;
  const char *t = schema_metadata(&out_schema, "flink.type", &tl);
  CHECK(t && tl == 3 && memcmp(t, "INT", 3) == 0, "flink.type");
  release_out(&out, &out_schema);
}

static void test_like_bad_escape(void) {
  static const char *const s[] = {"abc"};
  struct ArrowArray is, ip, out;
  struct ArrowSchema ss, sp, out_schema;
  int released = 0;
  make_utf8(&is, s, 1, &released);
  make_utf8(&ip, s, 1, &released);
  make_schema(&ss, "u", NULL);
  make_schema(&sp, "u", NULL);
  int32_t rc = sluice_like(&is, &ss, &ip, &sp, "ab", &out, &out_schema);
  ss.release(&ss);
  sp.release(&sp);
  CHECK(released == 2, "released %d", released);
  CHECK(rc == SLUICE_ERR_FLINK, "rc %d", rc);
}

static void test_like(void) {
  static const char *const s[] = {"abc", "xbz", NULL, "ab"};
  static const char *const p[] = {"%b_"};
  struct ArrowArray is, ip, out;
  struct ArrowSchema ss, sp, out_schema;
  make_utf8(&is, s, 4, NULL);
  make_utf8(&ip, p, 1, NULL);
  make_schema(&ss, "u", NULL);
  make_schema(&sp, "u", NULL);
  int32_t rc = sluice_like(&is, &ss, &ip, &sp, NULL, &out, &out_schema);
  ss.release(&ss);
  sp.release(&sp);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  CHECK(strcmp(out_schema.format, "b") == 0, "format %s", out_schema.format);
  const uint8_t *bits = (const uint8_t *)out.buffers[1];
  CHECK(out.length == 4 && (bits[0] & 1) && (bits[0] & 2) && !is_valid_row(&out, 2) && !(bits[0] & 8), "values");
  release_out(&out, &out_schema);
}

static void test_replace_and_split_index(void) {
  static const char *const s[] = {"a,b,,c", NULL};
  static const char *const comma[] = {","};
  static const char *const semi[] = {";"};
  static const int32_t idx[] = {2};
  struct ArrowArray a1, a2, a3, out;
  struct ArrowSchema s1, s2, s3, out_schema;
  make_utf8(&a1, s, 2, NULL);
  make_utf8(&a2, comma, 1, NULL);
  make_utf8(&a3, semi, 1, NULL);
  make_schema(&s1, "u", NULL);
  make_schema(&s2, "u", NULL);
  make_schema(&s3, "u", NULL);
  int32_t rc = sluice_replace(&a1, &s1, &a2, &s2, &a3, &s3, &out, &out_schema);
  CHECK(rc == SLUICE_OK, "replace rc %d", rc);
  static const char *const want[] = {"a;b;;c", NULL};
  if (rc == SLUICE_OK) expect_strings(&out, &out_schema, want, 2, "VARCHAR(2147483647)");
  s3.release(&s3);
  make_utf8(&a1, s, 2, NULL);
  make_utf8(&a2, comma, 1, NULL);
  make_int32(&a3, idx, NULL, 1, NULL);
  make_schema(&s3, "i", NULL);
  int32_t rc2 = sluice_split_index(&a1, &s1, &a2, &s2, &a3, &s3, &out, &out_schema);
  s1.release(&s1);
  s2.release(&s2);
  s3.release(&s3);
  CHECK(rc2 == SLUICE_OK, "split_index rc %d", rc2);
  static const char *const want2[] = {"", NULL};
  expect_strings(&out, &out_schema, want2, 2, "VARCHAR(2147483647)");
}

/* ----------------------------------------------------------- rows */

static void test_rows_round_trip(void) {
  /* struct<i: int32 (INT), s: utf8 (STRING)> with two rows */
  static const int32_t iv[] = {7, -1};
  static const char *const sv[] = {"hello world!", NULL};
  static const char *const names[] = {"i", "s"};
  static const char *const formats[] = {"i", "u"};
  static const char *const types[] = {"INT", "STRING"};
  struct ArrowSchema schema;
  make_struct_schema(&schema, 2, names, formats, types);
  struct ArrowArray kids[2], batch;
  int released = 0;
  make_int32(&kids[0], iv, NULL, 2, NULL);
  make_utf8(&kids[1], sv, 2, NULL);
  make_struct(&batch, kids, 2, 2, &released);

  struct sluice_buffer data = {0}, offsets = {0};
  int32_t rc = sluice_arrow_to_rows(&batch, &schema, NULL, &data, &offsets);
  CHECK(released == 1 && batch.release == NULL, "batch released %d", released);
  CHECK(rc == SLUICE_OK, "arrow_to_rows rc %d", rc);
  if (rc != SLUICE_OK) {
    schema.release(&schema);
    return;
  }
  CHECK(offsets.len == 3 * 8, "offsets len %lld", (long long)offsets.len);
  const int64_t *o = (const int64_t *)offsets.ptr;
  /* Row 0 (docs/flink-semantics.md 2.5): 8-byte header + null bits, INT slot 8,
   * STRING slot 8, then 12 bytes of "hello world!" padded to 16 = 40;
   * row 1 (STRING NULL): 24. */
  CHECK(o[0] == 0 && o[1] == 40 && o[2] == 64, "row 0 spans %lld..%lld", (long long)o[0], (long long)o[1]);

  struct ArrowArray out;
  struct ArrowSchema out_schema;
  int8_t kinds[2] = {9, 9};
  rc = sluice_rows_to_arrow(data.ptr, o, 2, &schema, &out, &out_schema, kinds);
  CHECK(rc == SLUICE_OK, "rows_to_arrow rc %d", rc);
  if (rc == SLUICE_OK) {
    CHECK(kinds[0] == 0 && kinds[1] == 0, "row kinds %d %d", kinds[0], kinds[1]);
    CHECK(out.length == 2 && out.n_children == 2 && out_schema.n_children == 2, "shape");
    CHECK(strcmp(out_schema.format, "+s") == 0, "format %s", out_schema.format);
    int32_t tl = 0;
    const char *t = schema_metadata(&out_schema, "flink.type", &tl);
    CHECK(t && tl >= 4 && memcmp(t, "ROW<", 4) == 0, "row flink.type %.*s", t ? tl : 4, t ? t : "NULL");
    t = schema_metadata(out_schema.children[0], "flink.type", &tl);
    CHECK(t && tl == 3 && memcmp(t, "INT", 3) == 0, "field flink.type %.*s", t ? tl : 4, t ? t : "NULL");
    const int32_t *iv_out = (const int32_t *)out.children[0]->buffers[1];
    CHECK(iv_out[0] == 7 && iv_out[1] == -1, "ints %d %d", iv_out[0], iv_out[1]);
    int32_t len;
    const char *v = utf8_value(out.children[1], 0, &len);
    CHECK(len == 12 && memcmp(v, "hello world!", 12) == 0, "string %.*s", len, v);
    CHECK(!is_valid_row(out.children[1], 1), "row 1 string should be NULL");
    release_out(&out, &out_schema);
  }

  /* RowKinds travel both ways; a bad RowKind byte is refused. */
  struct sluice_buffer data2 = {0}, offsets2 = {0};
  static const int8_t in_kinds[2] = {2, 3};
  make_int32(&kids[0], iv, NULL, 2, NULL);
  make_utf8(&kids[1], sv, 2, NULL);
  make_struct(&batch, kids, 2, 2, &released);
  rc = sluice_arrow_to_rows(&batch, &schema, in_kinds, &data2, &offsets2);
  CHECK(rc == SLUICE_OK, "arrow_to_rows with kinds rc %d", rc);
  if (rc == SLUICE_OK) {
    CHECK(data2.ptr[0] == 2 && data2.ptr[40] == 3, "RowKind bytes %d %d", data2.ptr[0], data2.ptr[40]);
    rc = sluice_rows_to_arrow(data2.ptr, (const int64_t *)offsets2.ptr, 2, &schema, &out, &out_schema, kinds);
    CHECK(rc == SLUICE_OK && kinds[0] == 2 && kinds[1] == 3, "kinds back %d %d", kinds[0], kinds[1]);
    if (rc == SLUICE_OK) release_out(&out, &out_schema);
  }
  sluice_buffer_free(&data2);
  sluice_buffer_free(&offsets2);
  static const int8_t bad_kinds[2] = {0, 7};
  make_int32(&kids[0], iv, NULL, 2, NULL);
  make_utf8(&kids[1], sv, 2, NULL);
  make_struct(&batch, kids, 2, 2, &released);
  rc = sluice_arrow_to_rows(&batch, &schema, bad_kinds, &data2, &offsets2);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT, "bad kind rc %d", rc);
  CHECK(strstr(sluice_last_error(), "row_kinds[1] = 7") != NULL, "message");
  CHECK(released == 3, "released %d", released);

  /* A RowKind byte of 9 inside a row is a malformed row. */
  uint8_t *bad_row = (uint8_t *)malloc((size_t)o[1]);
  memcpy(bad_row, data.ptr, (size_t)o[1]);
  bad_row[0] = 9;
  rc = sluice_rows_to_arrow(bad_row, o, 1, &schema, &out, &out_schema, kinds);
  free(bad_row);
  CHECK(rc == SLUICE_ERR_MALFORMED_ROW, "bad RowKind byte rc %d", rc);
  if (rc == SLUICE_OK) release_out(&out, &out_schema);

  /* Malformed: a row shorter than its fixed part. */
  static const int64_t short_offsets[] = {0, 4};
  rc = sluice_rows_to_arrow(data.ptr, short_offsets, 1, &schema, &out, &out_schema, kinds);
  CHECK(rc == SLUICE_ERR_MALFORMED_ROW, "malformed rc %d", rc);
  if (rc == SLUICE_OK) release_out(&out, &out_schema);

  sluice_buffer_free(&data);
  sluice_buffer_free(&offsets);
  sluice_buffer_free(&offsets); /* a second free is a no-op */
  CHECK(offsets.ptr == NULL && offsets.len == 0, "freed buffer reset");
  schema.release(&schema);
}

static void test_rows_errors(void) {
  struct ArrowSchema s;
  make_schema(&s, "u", NULL);
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  int8_t kinds[1];
  static const int64_t offs[] = {0, 0};
  static const uint8_t data[1] = {0};
  int32_t rc = sluice_rows_to_arrow(data, offs, 1, &s, &out, &out_schema, kinds);
  CHECK(rc == SLUICE_ERR_UNSUPPORTED_TYPE, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "must describe a struct") != NULL, "message");
  rc = sluice_rows_to_arrow(data, offs, 1, NULL, &out, &out_schema, kinds);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "rc %d", rc);
  s.release(&s);
  sluice_buffer_free(NULL);
}

static void test_key_groups_arguments(void) {
  static const char *const names[] = {"k"};
  static const char *const formats[] = {"i"};
  struct ArrowSchema schema;
  make_struct_schema(&schema, 1, names, formats, NULL);
  struct ArrowArray kid, batch;
  int released = 0;
  make_int32(&kid, NULL, NULL, 0, NULL);
  make_struct(&batch, &kid, 1, 0, &released);
  int32_t key = 3; /* out of range: one field */
  int32_t rc = sluice_key_groups(&batch, &schema, &key, 1, 128, 4, NULL, NULL);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "key_columns[0] = 3") != NULL, "message");
  CHECK(released == 1, "released %d", released);

  make_int32(&kid, NULL, NULL, 0, NULL);
  make_struct(&batch, &kid, 1, 0, &released);
  key = 0;
  rc = sluice_key_groups(&batch, &schema, &key, 1, 128, 129, NULL, NULL);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "parallelism must be in 1..=max_parallelism (128), got 129") != NULL, "message");
  CHECK(released == 2, "released %d", released);

  schema.release(&schema);
}

/* Key groups against Flink's own output (docs/flink-semantics.md section 5.6:
 * KeyGroupRangeAssignment run on BinaryRowData keys). */
static void test_key_groups_flink_vectors(void) {
  static const char *const names[] = {"i", "s"};
  static const char *const formats[] = {"i", "u"};
  struct ArrowSchema schema;
  make_struct_schema(&schema, 2, names, formats, NULL);
  static const int32_t iv[] = {42, 7, 0, 0};
  static const int ivalid[] = {1, 1, 1, 1};
  static const char *const sv[] = {"hello", NULL, "", "hello world!"};
  struct ArrowArray kids[2], batch;
  int32_t groups[4], channels[4];

  /* key = (i): INT 42 -> 69 @128; channel at parallelism 4 = 69*4/128 = 2 */
  int32_t key_i = 0;
  make_int32(&kids[0], iv, ivalid, 4, NULL);
  make_utf8(&kids[1], sv, 4, NULL);
  make_struct(&batch, kids, 2, 4, NULL);
  int32_t rc = sluice_key_groups(&batch, &schema, &key_i, 1, 128, 4, groups, channels);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  CHECK(groups[0] == 69 && channels[0] == 2, "INT 42: kg %d ch %d", groups[0], channels[0]);

  make_int32(&kids[0], iv, ivalid, 4, NULL);
  make_utf8(&kids[1], sv, 4, NULL);
  make_struct(&batch, kids, 2, 4, NULL);
  rc = sluice_key_groups(&batch, &schema, &key_i, 1, 32768, 7, groups, channels);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  CHECK(groups[0] == 24261 && channels[0] == 24261 * 7 / 32768, "INT 42 @32768: kg %d", groups[0]);

  /* key = (s): VARCHAR 'hello' 88, '' 102, 'hello world!' 70 @128 */
  int32_t key_s = 1;
  make_int32(&kids[0], iv, ivalid, 4, NULL);
  make_utf8(&kids[1], sv, 4, NULL);
  make_struct(&batch, kids, 2, 4, NULL);
  rc = sluice_key_groups(&batch, &schema, &key_s, 1, 128, 128, groups, channels);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  CHECK(groups[0] == 88 && groups[2] == 102 && groups[3] == 70, "VARCHAR keys: %d %d %d", groups[0], groups[2],
        groups[3]);
  CHECK(channels[0] == 88 && channels[3] == 70, "channels at p = maxP are the key groups");

  /* key = (i, s): (INT 7, NULL) -> 74 @128 */
  int32_t key_is[] = {0, 1};
  make_int32(&kids[0], iv, ivalid, 4, NULL);
  make_utf8(&kids[1], sv, 4, NULL);
  make_struct(&batch, kids, 2, 4, NULL);
  rc = sluice_key_groups(&batch, &schema, key_is, 2, 128, 4, groups, channels);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  CHECK(groups[1] == 74, "(INT 7, NULL): kg %d", groups[1]);
  schema.release(&schema);
}

int main(void) {
  RUN(test_version);
  RUN(test_last_error_empty_before_any_error);
  RUN(test_md5_utf8);
  RUN(test_md5_large_utf8);
  RUN(test_md5_utf8_view);
  RUN(test_md5_sliced);
  RUN(test_sha1_utf8);
  RUN(test_sha1_sliced_view);
  RUN(test_md5_not_null_flink_type);
  RUN(test_md5_empty_input);
  RUN(test_invalid_utf8_names_the_row);
  RUN(test_search_reads_bytes_that_are_not_utf8);
  RUN(test_md5_of_binary_hashes_raw_bytes);
  RUN(test_sha2_literal_width);
  RUN(test_sha2_width_column);
  RUN(test_sha2_invalid_literal_width_fails_even_without_rows);
  RUN(test_sha2_invalid_column_width_meeting_a_value);
  RUN(test_sha2_widths_length_mismatch);
  RUN(test_sha2_widths_wrong_type);
  RUN(test_sha2_null_widths_releases_input);
  RUN(test_null_input_array);
  RUN(test_null_schema_releases_input);
  RUN(test_null_outputs_release_input);
  RUN(test_already_released_input);
  RUN(test_released_schema);
  RUN(test_wrong_input_type);
  RUN(test_flink_type_that_is_not_a_string);
  RUN(test_invalid_utf8_in_utf8_array);
  RUN(test_md5_hashes_the_bytes_of_a_utf8_array);
  RUN(test_wrong_buffer_count);
  RUN(test_offsets_out_of_order);
  RUN(test_negative_length);
  RUN(test_schema_with_null_format);
  RUN(test_concat_arrays_and_scalar);
  RUN(test_concat_ws_skips_nulls);
  RUN(test_concat_ws_null_separator);
  RUN(test_concat_length_mismatch);
  RUN(test_concat_null_element_releases_the_others);
  RUN(test_concat_bad_counts);
  RUN(test_concat_offset_overflow);
  RUN(test_utf16_to_utf8);
  RUN(test_utf16_errors);
  RUN(test_position);
  RUN(test_like);
  RUN(test_locate_with_from);
  RUN(test_like_bad_escape);
  RUN(test_replace_and_split_index);
  RUN(test_rows_round_trip);
  RUN(test_rows_errors);
  RUN(test_key_groups_arguments);
  RUN(test_key_groups_flink_vectors);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
