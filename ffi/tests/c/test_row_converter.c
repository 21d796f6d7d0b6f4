/*
 * C tests of the row converter handle (sluice_row_converter_*): the same
 * bytes and arrays as the one-shot sluice_arrow_to_rows /
 * sluice_rows_to_arrow, reused across calls, and its error paths. Run under
 * valgrind by run.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "arrow_build.h"
#include "check.h"

static const char *const RC_NAMES[] = {"i", "s"};
static const char *const RC_FORMATS[] = {"i", "u"};
static const char *const RC_TYPES[] = {"INT", "STRING"};

static void rc_batch(struct ArrowArray *batch, const int32_t *iv, const char *const *sv, int n, int *released) {
  struct ArrowArray kids[2];
  make_int32(&kids[0], iv, NULL, n, NULL);
  make_utf8(&kids[1], sv, n, NULL);
  make_struct(batch, kids, 2, n, released);
}

/* The handle gives the one-shot functions' bytes and arrays, call after
 * call, with batches of different sizes. */
static void test_row_converter_matches_one_shot(void) {
  struct ArrowSchema schema;
  make_struct_schema(&schema, 2, RC_NAMES, RC_FORMATS, RC_TYPES);
  struct sluice_row_converter *c = NULL;
  int32_t rc = sluice_row_converter_create(&schema, &c);
  CHECK(rc == SLUICE_OK && c != NULL, "create rc %d", rc);
  if (rc != SLUICE_OK) {
    schema.release(&schema);
    return;
  }
  static const int32_t iv[] = {7, -1, 42};
  static const char *const sv[] = {"hello world!", NULL, "a string longer than sixteen bytes"};
  static const int8_t kinds[] = {2, 3, 0};
  static const int sizes[] = {2, 1, 3, 0, 3};
  int released = 0;
  for (int round = 0; round < 5; round++) {
    int n = sizes[round];
    struct ArrowArray a, b;
    struct sluice_buffer d1 = {0}, o1 = {0}, d2 = {0}, o2 = {0};
    rc_batch(&a, iv, sv, n, &released);
    rc_batch(&b, iv, sv, n, &released);
    int32_t rc1 = sluice_row_converter_arrow_to_rows(c, &a, kinds, &d1, &o1);
    int32_t rc2 = sluice_arrow_to_rows(&b, &schema, kinds, &d2, &o2);
    CHECK(rc1 == SLUICE_OK && rc2 == SLUICE_OK, "round %d rc %d / %d", round, rc1, rc2);
    CHECK(released == 2 * (round + 1), "released %d", released);
    CHECK(d1.len == d2.len && o1.len == o2.len && o1.len == 8 * (n + 1), "round %d sizes", round);
    CHECK(d1.len == 0 || memcmp(d1.ptr, d2.ptr, (size_t)d1.len) == 0, "round %d row bytes differ", round);
    CHECK(memcmp(o1.ptr, o2.ptr, (size_t)o1.len) == 0, "round %d offsets differ", round);
    const int64_t *o = (const int64_t *)o1.ptr;
    /* docs/flink-semantics.md 2.5: row 0 is 40 bytes, row 1 (STRING NULL) 24. */
    if (n >= 2) CHECK(o[1] == 40 && o[2] == 64, "row spans %lld %lld", (long long)o[1], (long long)o[2]);

    struct ArrowArray out;
    struct ArrowSchema out_schema;
    int8_t back[3] = {9, 9, 9};
    rc = sluice_row_converter_rows_to_arrow(c, d1.ptr, o, n, &out, &out_schema, back);
    CHECK(rc == SLUICE_OK, "rows_to_arrow rc %d", rc);
    if (rc == SLUICE_OK) {
      CHECK(out.length == n && out.n_children == 2, "shape");
      int32_t tl = 0;
      const char *t = schema_metadata(&out_schema, "flink.type", &tl);
      CHECK(t && tl > 4 && memcmp(t, "ROW<", 4) == 0, "row type");
      t = schema_metadata(out_schema.children[0], "flink.type", &tl);
      CHECK(t && tl == 3 && memcmp(t, "INT", 3) == 0, "INT type %.*s", t ? tl : 4, t ? t : "NULL");
      for (int i = 0; i < n; i++) {
        CHECK(back[i] == kinds[i], "row %d kind %d", i, back[i]);
        CHECK(((const int32_t *)out.children[0]->buffers[1])[i] == iv[i], "row %d int", i);
        if (sv[i]) {
          int32_t len;
          const char *v = utf8_value(out.children[1], i, &len);
          CHECK((size_t)len == strlen(sv[i]) && memcmp(v, sv[i], (size_t)len) == 0, "row %d string", i);
        } else {
          CHECK(!is_valid_row(out.children[1], i), "row %d should be NULL", i);
        }
      }
      release_out(&out, &out_schema);
    }
    sluice_buffer_free(&d1);
    sluice_buffer_free(&o1);
    sluice_buffer_free(&d2);
    sluice_buffer_free(&o2);
  }
  sluice_row_converter_free(c);
  schema.release(&schema);
}

static void test_row_converter_errors(void) {
  struct ArrowSchema schema;
  make_struct_schema(&schema, 2, RC_NAMES, RC_FORMATS, RC_TYPES);
  struct sluice_row_converter *c = (struct sluice_row_converter *)&schema, *const sentinel = c;
  int32_t rc = sluice_row_converter_create(NULL, &c);
  CHECK(rc == SLUICE_ERR_NULL_POINTER && c == sentinel, "NULL schema rc %d", rc);
  rc = sluice_row_converter_create(&schema, NULL);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "NULL out rc %d", rc);
  struct ArrowSchema flat;
  make_schema(&flat, "u", NULL);
  rc = sluice_row_converter_create(&flat, &c);
  CHECK(rc == SLUICE_ERR_UNSUPPORTED_TYPE && c == sentinel, "flat schema rc %d", rc);
  flat.release(&flat);
  /* flink.type that the Arrow type cannot carry. */
  static const char *const bad_types[] = {"STRING", "STRING"};
  struct ArrowSchema contradicting;
  make_struct_schema(&contradicting, 2, RC_NAMES, RC_FORMATS, bad_types);
  rc = sluice_row_converter_create(&contradicting, &c);
  CHECK(rc == SLUICE_ERR_UNSUPPORTED_TYPE && c == sentinel, "INT column as STRING rc %d", rc);
  contradicting.release(&contradicting);

  /* NULL handle: the batch is still released. */
  static const int32_t iv[] = {1};
  static const char *const sv[] = {"x"};
  struct ArrowArray batch, out;
  struct ArrowSchema out_schema;
  struct sluice_buffer d = {0}, o = {0};
  int released = 0;
  rc_batch(&batch, iv, sv, 1, &released);
  rc = sluice_row_converter_arrow_to_rows(NULL, &batch, NULL, &d, &o);
  CHECK(rc == SLUICE_ERR_NULL_POINTER && released == 1, "NULL converter rc %d released %d", rc, released);
  static const int64_t offs[] = {0, 0};
  int8_t kinds[1];
  rc = sluice_row_converter_rows_to_arrow(NULL, NULL, offs, 0, &out, &out_schema, kinds);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "NULL converter rc %d", rc);
  sluice_row_converter_free(NULL);

  rc = sluice_row_converter_create(&schema, &c);
  CHECK(rc == SLUICE_OK, "create rc %d", rc);
  if (rc == SLUICE_OK) {
    /* A batch of another shape (one child), a bad RowKind, NULL outputs. */
    struct ArrowArray kid;
    make_int32(&kid, iv, NULL, 1, NULL);
    make_struct(&batch, &kid, 1, 1, &released);
    rc = sluice_row_converter_arrow_to_rows(c, &batch, NULL, &d, &o);
    CHECK(rc == SLUICE_ERR_INVALID_ARROW && released == 2, "wrong shape rc %d released %d", rc, released);
    static const int8_t bad_kind[] = {7};
    rc_batch(&batch, iv, sv, 1, &released);
    rc = sluice_row_converter_arrow_to_rows(c, &batch, bad_kind, &d, &o);
    CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT && strstr(sluice_last_error(), "row_kinds[0] = 7"), "bad kind rc %d", rc);
    rc_batch(&batch, iv, sv, 1, &released);
    rc = sluice_row_converter_arrow_to_rows(c, &batch, NULL, NULL, &o);
    CHECK(rc == SLUICE_ERR_NULL_POINTER && released == 4, "NULL out_data rc %d", rc);
    CHECK(d.ptr == NULL && o.ptr == NULL, "outputs written on error");
    /* Malformed rows: shorter than the fixed part; offsets decreasing. */
    static const uint8_t row[8] = {0};
    static const int64_t short_offs[] = {0, 8};
    rc = sluice_row_converter_rows_to_arrow(c, row, short_offs, 1, &out, &out_schema, kinds);
    CHECK(rc == SLUICE_ERR_MALFORMED_ROW, "short row rc %d", rc);
    static const int64_t bad_offs[] = {8, 0};
    rc = sluice_row_converter_rows_to_arrow(c, row, bad_offs, 1, &out, &out_schema, kinds);
    CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT, "decreasing offsets rc %d", rc);
    rc = sluice_row_converter_rows_to_arrow(c, row, short_offs, 1, NULL, &out_schema, kinds);
    CHECK(rc == SLUICE_ERR_NULL_POINTER, "NULL out rc %d", rc);
    sluice_row_converter_free(c);
  }
  schema.release(&schema);
}

int main(void) {
  RUN(test_row_converter_matches_one_shot);
  RUN(test_row_converter_errors);
  return report("test_row_converter");
}
