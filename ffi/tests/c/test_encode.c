/*
 * C tests of sluice_utf16_to_utf8: UTF-16 strings (as a JVM holds them) to
 * a Utf8 array encoded as Flink's BinaryStringData.fromString, and its
 * argument checks. Built against include/sluice.h only (no arrow C++).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "arrow_build.h"
#include "check.h"
#include "kernel_check.h"

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

int main(void) {
  RUN(test_utf16_to_utf8);
  RUN(test_utf16_errors);
  return report("test_encode");
}
