/*
 * C tests of the row entry points of libsluice: Flink BinaryRowData rows to
 * and from an Arrow struct array (sluice_rows_to_arrow,
 * sluice_arrow_to_rows, RowKinds both ways, malformed rows) and Flink's key
 * groups and channels (sluice_key_groups). Built against include/sluice.h
 * only (no arrow C++).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "arrow_build.h"
#include "check.h"

/* A struct<i: int32, s: utf8> batch of `n` rows; `ivalid` may be NULL (all
 * valid). */
static void is_batch(struct ArrowArray *batch, const int32_t *iv, const int *ivalid, const char *const *sv, int n,
                     int *released) {
  struct ArrowArray kids[2];
  make_int32(&kids[0], iv, ivalid, n, NULL);
  make_utf8(&kids[1], sv, n, NULL);
  make_struct(batch, kids, 2, n, released);
}

static void test_rows_round_trip(void) {
  /* struct<i: int32 (INT), s: utf8 (STRING)> with two rows */
  static const int32_t iv[] = {7, -1};
  static const char *const sv[] = {"hello world!", NULL};
  static const char *const names[] = {"i", "s"};
  static const char *const formats[] = {"i", "u"};
  static const char *const types[] = {"INT", "STRING"};
  struct ArrowSchema schema;
  make_struct_schema(&schema, 2, names, formats, types);
  struct ArrowArray batch;
  int released = 0;
  is_batch(&batch, iv, NULL, sv, 2, &released);

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
  is_batch(&batch, iv, NULL, sv, 2, &released);
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
  is_batch(&batch, iv, NULL, sv, 2, &released);
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
  struct ArrowArray batch;
  int32_t groups[4], channels[4];

  /* key = (i): INT 42 -> 69 @128; channel at parallelism 4 = 69*4/128 = 2 */
  int32_t key_i = 0;
  is_batch(&batch, iv, ivalid, sv, 4, NULL);
  int32_t rc = sluice_key_groups(&batch, &schema, &key_i, 1, 128, 4, groups, channels);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  CHECK(groups[0] == 69 && channels[0] == 2, "INT 42: kg %d ch %d", groups[0], channels[0]);

  is_batch(&batch, iv, ivalid, sv, 4, NULL);
  rc = sluice_key_groups(&batch, &schema, &key_i, 1, 32768, 7, groups, channels);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  CHECK(groups[0] == 24261 && channels[0] == 24261 * 7 / 32768, "INT 42 @32768: kg %d", groups[0]);

  /* key = (s): VARCHAR 'hello' 88, '' 102, 'hello world!' 70 @128 */
  int32_t key_s = 1;
  is_batch(&batch, iv, ivalid, sv, 4, NULL);
  rc = sluice_key_groups(&batch, &schema, &key_s, 1, 128, 128, groups, channels);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  CHECK(groups[0] == 88 && groups[2] == 102 && groups[3] == 70, "VARCHAR keys: %d %d %d", groups[0], groups[2],
        groups[3]);
  CHECK(channels[0] == 88 && channels[3] == 70, "channels at p = maxP are the key groups");

  /* key = (i, s): (INT 7, NULL) -> 74 @128 */
  int32_t key_is[] = {0, 1};
  is_batch(&batch, iv, ivalid, sv, 4, NULL);
  rc = sluice_key_groups(&batch, &schema, key_is, 2, 128, 4, groups, channels);
  CHECK(rc == SLUICE_OK, "rc %d", rc);
  CHECK(groups[1] == 74, "(INT 7, NULL): kg %d", groups[1]);
  schema.release(&schema);
}

int main(void) {
  RUN(test_rows_round_trip);
  RUN(test_rows_errors);
  RUN(test_key_groups_arguments);
  RUN(test_key_groups_flink_vectors);
  return report("test_rows");
}
