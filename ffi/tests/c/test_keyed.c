/*
 * C tests of the keyed-operator handles (sluice_keyed_*): success paths
 * per operator with every emitted row checked against Flink's changelog,
 * snapshots by Flink key group, and every error path. Run under valgrind by run.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "arrow_build.h"
#include "check.h"
#include "kv_rows.h"
#include "keyed_check.h"

#define GROUP_AGG "group_agg keys=k aggs=count(*),sum(v),max(1)"

/* GROUP BY k: COUNT(*), SUM(v), MAX(v), as Flink's GroupAggFunction emits it. */
static void test_group_agg_changelog(void) {
  struct sluice_keyed *h = create(GROUP_AGG);
  if (!h) return;
  static const char *const k[] = {"a", "b", "a"};
  static const int64_t v[] = {1, 10, 5};
  static const struct row want[] = {
      {0, "a", {1, 1, 1}}, {0, "b", {1, 10, 10}}, {1, "a", {1, 1, 1}}, {2, "a", {2, 6, 5}}};
  push_expect(h, k, v, NULL, NULL, 3, want, 4, 3);

  /* -D (a, 5): MAX retracts to 1. */
  static const char *const k2[] = {"a"};
  static const int64_t v2[] = {5};
  static const int8_t kinds2[] = {3};
  static const struct row want2[] = {{1, "a", {2, 6, 5}}, {2, "a", {1, 1, 1}}};
  push_expect(h, k2, v2, NULL, kinds2, 1, want2, 2, 3);

  /* Output schema: flink.type on the row and on every field. */
  struct ArrowSchema schema, out_schema;
  struct ArrowArray out;
  struct sluice_buffer out_kinds = {0};
  kv_schema(&schema);
  int32_t rc = sluice_keyed_advance_watermark(h, 1000, &out, &out_schema, &out_kinds);
  CHECK(rc == SLUICE_OK, "watermark rc %d", rc);
  if (rc == SLUICE_OK) {
    CHECK(out.length == 0 && out_kinds.len == 0, "a watermark emits nothing (%lld rows)", (long long)out.length);
    int32_t tl = 0;
    const char *t = schema_metadata(out_schema.children[1], "flink.type", &tl);
    CHECK(t && tl == 15 && memcmp(t, "BIGINT NOT NULL", 15) == 0, "COUNT(*) type %.*s", t ? tl : 4, t ? t : "NULL");
    t = schema_metadata(out_schema.children[0], "flink.type", &tl);
    CHECK(t && tl == 19 && memcmp(t, "VARCHAR(2147483647)", 19) == 0, "key type %.*s", t ? tl : 4, t ? t : "NULL");
    t = schema_metadata(&out_schema, "flink.type", &tl);
    CHECK(t && tl > 4 && memcmp(t, "ROW<", 4) == 0, "row type %.*s", t ? tl : 4, t ? t : "NULL");
    release_out(&out, &out_schema);
    sluice_buffer_free(&out_kinds);
  }
  schema.release(&schema);
  CHECK(keys_in_state(h) == 2, "2 groups");
  sluice_keyed_free(h);
}

/* Input rows with a FILTER column: struct<k: utf8, v: int64, f: bool>. */
static const char *const KVF_NAMES[] = {"k", "v", "f"};
static const char *const KVF_FORMATS[] = {"u", "l", "b"};

/* Pushes (k, v, f) rows (f NULL where `f_valid[i]` is 0) and checks the output. */
static void push_kvf(struct sluice_keyed *h, const char *const *k, const int64_t *v, const int *f, const int *f_valid,
                     const int8_t *kinds, int n, const struct row *want, int n_want, int n_vals) {
  struct ArrowSchema schema;
  make_struct_schema(&schema, 3, KVF_NAMES, KVF_FORMATS, NULL);
  struct ArrowArray kids[3], batch, out;
  struct ArrowSchema out_schema;
  struct sluice_buffer out_kinds = {0};
  int released = 0;
  make_utf8(&kids[0], k, n, NULL);
  make_int64(&kids[1], v, NULL, n, NULL);
  make_bool(&kids[2], f, f_valid, n, NULL);
  make_struct(&batch, kids, 3, n, &released);
  int32_t rc = sluice_keyed_push(h, &batch, &schema, kinds, &out, &out_schema, &out_kinds);
  CHECK(rc == SLUICE_OK, "push rc %d: %s", rc, rc == SLUICE_OK ? "" : sluice_last_error());
  CHECK(released == 1 && batch.release == NULL, "batch released %d times", released);
  if (rc == SLUICE_OK) expect_rows(&out, &out_schema, &out_kinds, want, n_want, n_vals);
  schema.release(&schema);
}

/* COUNT(*) FILTER (WHERE f), COUNT(DISTINCT v), SUM(DISTINCT v) FILTER
 * (WHERE f): a NULL or false filter leaves the filtered calls alone, a
 * repeated value the distinct ones; a retraction of the last copy of a
 * value takes it out of the distinct calls. A non-BOOLEAN filter is an
 * error naming the call. */
static void test_group_agg_filter_distinct(void) {
  struct ArrowSchema schema;
  make_struct_schema(&schema, 3, KVF_NAMES, KVF_FORMATS, NULL);
  struct sluice_keyed *h = NULL;
  const char *spec = "group_agg keys=k aggs=count(*):filter(f),count(v):distinct,sum(v):distinct:filter(2)";
  int32_t rc = sluice_keyed_create(spec, &schema, &h);
  CHECK(rc == SLUICE_OK && h != NULL, "create rc %d", rc);
  struct sluice_keyed *bad = NULL;
  rc = sluice_keyed_create("group_agg keys=k aggs=sum(v):filter(v)", &schema, &bad);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT && bad == NULL && strstr(sluice_last_error(), "sum(v):filter(v)") != NULL,
        "non-BOOLEAN filter rc %d", rc);
  schema.release(&schema);
  if (!h) return;
  static const char *const k[] = {"a", "a", "a", "a"};
  static const int64_t v[] = {5, 5, 7, 7};
  static const int f[] = {1, 1, 0, 0};
  static const int f_valid[] = {1, 1, 1, 0};
  static const struct row want[] = {{0, "a", {1, 1, 5}},    {1, "a", {1, 1, 5}}, {2, "a", {2, 1, 5}},
                                    {1, "a", {2, 1, 5}},    {2, "a", {2, 2, 5}}};
  /* the fourth row (NULL filter, 7 again) changes nothing: no output */
  push_kvf(h, k, v, f, f_valid, NULL, 4, want, 5, 3);
  /* -U (a, 5, true): one 5 is left, COUNT(*) FILTER drops to 1. */
  static const char *const k2[] = {"a", "a"};
  static const int64_t v2[] = {5, 5};
  static const int f2[] = {1, 1};
  static const int8_t kinds2[] = {1, 1};
  static const struct row want2[] = {
      {1, "a", {2, 2, 5}}, {2, "a", {1, 2, 5}}, {1, "a", {1, 2, 5}}, {2, "a", {0, 1, NUL}}};
  push_kvf(h, k2, v2, f2, NULL, kinds2, 2, want2, 4, 3);
  CHECK(keys_in_state(h) == 1, "1 group");
  sluice_keyed_free(h);
}

/* Upsert stream -> full changelog; -D carries the stored row. */
static void test_normalize_changelog(void) {
  struct sluice_keyed *h = create("normalize keys=0");
  if (!h) return;
  static const char *const k[] = {"a", "a", "a", "a"};
  static const int64_t v[] = {1, 1, 2, 0};
  static const int valid[] = {1, 1, 1, 0};
  static const int8_t kinds[] = {0, 2, 2, 3};
  static const struct row want[] = {{0, "a", {1}}, {1, "a", {1}}, {2, "a", {2}}, {3, "a", {2}}};
  push_expect(h, k, v, valid, kinds, 4, want, 4, 1);
  CHECK(keys_in_state(h) == 0, "state cleared by -D");
  sluice_keyed_free(h);
}

/* ROW_NUMBER() = 1 keep-first and keep-last by arrival. */
static void test_dedup_first_and_last(void) {
  static const char *const k[] = {"a", "b", "a"};
  static const int64_t v[] = {1, 2, 3};
  struct sluice_keyed *h = create("dedup keys=k keep=first");
  if (!h) return;
  static const struct row first[] = {{0, "a", {1}}, {0, "b", {2}}};
  push_expect(h, k, v, NULL, NULL, 3, first, 2, 1);
  sluice_keyed_free(h);

  h = create("dedup keys=k keep=last order=proctime");
  if (!h) return;
  static const struct row last[] = {{0, "a", {1}}, {0, "b", {2}}, {1, "a", {1}}, {2, "a", {3}}};
  push_expect(h, k, v, NULL, NULL, 3, last, 4, 1);
  /* keep=last by rowtime(v): an older row (v 0 < 3) changes nothing. */
  sluice_keyed_free(h);
  h = create("dedup keys=k keep=last order=rowtime(v)");
  if (!h) return;
  static const struct row last_rt[] = {{0, "a", {1}}, {0, "b", {2}}, {1, "a", {1}}, {2, "a", {3}}};
  push_expect(h, k, v, NULL, NULL, 3, last_rt, 4, 1);
  static const char *const k2[] = {"a"};
  static const int64_t v2[] = {0};
  push_expect(h, k2, v2, NULL, NULL, 1, NULL, 0, 1);
  sluice_keyed_free(h);
}

/* Top-2 by v DESC, append-only (Flink's AppendOnlyTopNFunction), with and
 * without the rank column: every shifted rank is re-emitted as -U/+U. */
static void test_topn(void) {
  static const char *const k[] = {"a", "a", "a", "a"};
  static const int64_t v[] = {1, 3, 2, 0};
  struct sluice_keyed *h = create("topn keys=k order=v:desc n=2 strategy=append rank_number=true");
  if (!h) return;
  static const struct row ranked[] = {{0, "a", {1, 1}}, {1, "a", {1, 1}}, {2, "a", {3, 1}},
                                      {0, "a", {1, 2}}, {1, "a", {1, 2}}, {2, "a", {2, 2}}};
  push_expect(h, k, v, NULL, NULL, 4, ranked, 6, 2);
  sluice_keyed_free(h);
  h = create("topn keys=k order=v:desc n=2 strategy=append");
  if (!h) return;
  static const struct row plain[] = {{0, "a", {1}}, {0, "a", {3}}, {3, "a", {1}}, {0, "a", {2}}};
  push_expect(h, k, v, NULL, NULL, 4, plain, 4, 1);
  sluice_keyed_free(h);
}

/* Top-2 by v DESC over upserts keyed by k (Flink's UpdatableTopNFunction,
 * strategy=update): a row key moving up retracts its old rank right after
 * the first -U; without the rank column it is -U/+U of the row; a new key
 * that cannot enter emits nothing. */
static void test_topn_update(void) {
  static const char *const k[] = {"a", "b", "a", "c"};
  static const int64_t v[] = {1, 3, 4, 2};
  static const int8_t kinds[] = {0, 0, 2, 0};
  struct sluice_keyed *h = create("topn keys= order=v:desc n=2 strategy=update row_key=k rank_number=true");
  if (!h) return;
  static const struct row ranked[] = {{0, "a", {1, 1}}, {1, "a", {1, 1}}, {2, "b", {3, 1}}, {0, "a", {1, 2}},
                                      {1, "b", {3, 1}}, {1, "a", {1, 2}}, {2, "a", {4, 1}}, {2, "b", {3, 2}}};
  push_expect(h, k, v, NULL, kinds, 4, ranked, 8, 2);
  sluice_keyed_free(h);
  h = create("topn keys= order=v:desc n=2 strategy=update row_key=k");
  if (!h) return;
  static const struct row plain[] = {{0, "a", {1}}, {0, "b", {3}}, {1, "a", {1}}, {2, "a", {4}}};
  push_expect(h, k, v, NULL, kinds, 4, plain, 4, 1);
  sluice_keyed_free(h);
}

/* Snapshot / restore: the restored handle continues like the original;
 * per-key-group blobs sit at Flink's key groups of the keys. */
static void test_snapshot_restore(void) {
  struct sluice_keyed *h = create(GROUP_AGG);
  if (!h) return;
  static const char *const k[] = {"a", "b", "a"};
  static const int64_t v[] = {1, 10, 5};
  static const struct row want[] = {
      {0, "a", {1, 1, 1}}, {0, "b", {1, 10, 10}}, {1, "a", {1, 1, 1}}, {2, "a", {2, 6, 5}}};
  push_expect(h, k, v, NULL, NULL, 3, want, 4, 3);

  struct sluice_buffer snap = {0};
  int32_t rc = sluice_keyed_snapshot(h, 0, 127, &snap);
  CHECK(rc == SLUICE_OK && snap.len > 0, "snapshot rc %d len %lld", rc, (long long)snap.len);
  struct sluice_keyed *r = create(GROUP_AGG);
  rc = sluice_keyed_restore(r, snap.ptr, snap.len, 0, 127);
  CHECK(rc == SLUICE_OK, "restore rc %d", rc);
  CHECK(keys_in_state(r) == 2, "restored groups");
  static const char *const k2[] = {"b"};
  static const int64_t v2[] = {4};
  static const struct row want2[] = {{1, "b", {1, 10, 10}}, {2, "b", {2, 14, 10}}};
  push_expect(r, k2, v2, NULL, NULL, 1, want2, 2, 3);
  sluice_keyed_free(r);

  /* Flink's key groups of "a" and "b" at max parallelism 128. */
  struct ArrowSchema schema;
  kv_schema(&schema);
  struct ArrowArray batch;
  static const char *const ab[] = {"a", "b"};
  static const int64_t zero[] = {0, 0};
  kv_batch(&batch, ab, zero, NULL, 2, NULL);
  int32_t key = 0, kg[2], ch[2];
  rc = sluice_key_groups(&batch, &schema, &key, 1, 128, 1, kg, ch);
  CHECK(rc == SLUICE_OK, "key_groups rc %d", rc);
  schema.release(&schema);

  struct sluice_buffer data = {0}, offsets = {0};
  rc = sluice_keyed_snapshot_key_groups(h, 0, 127, &data, &offsets);
  CHECK(rc == SLUICE_OK, "snapshot_key_groups rc %d", rc);
  if (rc == SLUICE_OK) {
    CHECK(offsets.len == 129 * 8, "offsets len %lld", (long long)offsets.len);
    const int64_t *o = (const int64_t *)offsets.ptr;
    int nonempty = 0;
    r = create(GROUP_AGG);
    for (int g = 0; g < 128; g++) {
      int64_t len = o[g + 1] - o[g];
      int holds_key = g == kg[0] || g == kg[1];
      CHECK((len > 0) == holds_key, "key group %d blob of %lld bytes (keys at %d, %d)", g, (long long)len, kg[0],
            kg[1]);
      if (len > 0) {
        nonempty++;
        /* A blob restored with a range that excludes its group adds nothing. */
        rc = sluice_keyed_restore(r, data.ptr + o[g], len, g == 127 ? 0 : g + 1, g == 127 ? 126 : 127);
        CHECK(rc == SLUICE_OK && keys_in_state(r) == nonempty - 1, "foreign-range restore rc %d", rc);
        rc = sluice_keyed_restore(r, data.ptr + o[g], len, g, g);
        CHECK(rc == SLUICE_OK, "blob %d restore rc %d", g, rc);
      } else {
        rc = sluice_keyed_restore(r, NULL, 0, g, g); /* empty blob: no-op */
        CHECK(rc == SLUICE_OK, "empty blob rc %d", rc);
      }
    }
    CHECK(nonempty == (kg[0] == kg[1] ? 1 : 2), "non-empty blobs %d", nonempty);
    CHECK(keys_in_state(r) == 2, "groups from per-key-group blobs");
    /* The per-key-group restore equals the original, byte for byte. */
    struct sluice_buffer snap2 = {0};
    rc = sluice_keyed_snapshot(r, 0, 127, &snap2);
    CHECK(rc == SLUICE_OK && snap2.len == snap.len && memcmp(snap2.ptr, snap.ptr, (size_t)snap.len) == 0,
          "snapshots differ (%lld vs %lld bytes)", (long long)snap2.len, (long long)snap.len);
    sluice_buffer_free(&snap2);
    sluice_keyed_free(r);
  }
  sluice_buffer_free(&data);
  sluice_buffer_free(&offsets);
  sluice_buffer_free(&snap);
  sluice_keyed_free(h);
}

static void test_create_errors(void) {
  struct ArrowSchema schema;
  kv_schema(&schema);
  struct sluice_keyed *h = (struct sluice_keyed *)&schema; /* sentinel: must stay untouched on error */
  struct sluice_keyed *const sentinel = h;
  int32_t rc = sluice_keyed_create(NULL, &schema, &h);
  CHECK(rc == SLUICE_ERR_NULL_POINTER && h == sentinel, "NULL spec rc %d", rc);
  rc = sluice_keyed_create("normalize keys=0", NULL, &h);
  CHECK(rc == SLUICE_ERR_NULL_POINTER && h == sentinel, "NULL schema rc %d", rc);
  rc = sluice_keyed_create("normalize keys=0", &schema, NULL);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "NULL out rc %d", rc);

  static const struct {
    const char *spec;
    int32_t code;
    const char *message;
  } bad[] = {
      {"", SLUICE_ERR_INVALID_ARGUMENT, "empty spec"},
      {"join keys=0", SLUICE_ERR_INVALID_ARGUMENT, "unknown operator `join`"},
      {"group_agg keys=0", SLUICE_ERR_INVALID_ARGUMENT, "group_agg needs `aggs=`"},
      {"group_agg keys=0 aggs=median(1)", SLUICE_ERR_INVALID_ARGUMENT, "unknown aggregate `median`"},
      {"normalize keys=2", SLUICE_ERR_INVALID_ARGUMENT, "column 2 is out of range"},
      {"normalize keys=x", SLUICE_ERR_INVALID_ARGUMENT, "no field named `x`"},
      {"normalize keys=0 max_parallelism=40000", SLUICE_ERR_INVALID_ARGUMENT, "max_parallelism=`40000`"},
      {"dedup keys=0 keep=middle", SLUICE_ERR_INVALID_ARGUMENT, "keep=`middle`"},
      {"normalize keys=0 keep=first", SLUICE_ERR_INVALID_ARGUMENT, "unknown option `keep` for normalize"},
      {"normalize \xff", SLUICE_ERR_INVALID_ARGUMENT, "spec is not UTF-8"},
      /* Types the operators refuse: SUM of a string, a string rowtime. */
      {"group_agg keys=1 aggs=sum(0)", SLUICE_ERR_UNSUPPORTED_TYPE, "a SUM/AVG input"},
      {"dedup keys=1 keep=last order=rowtime(k)", SLUICE_ERR_UNSUPPORTED_TYPE, "rowtime"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    rc = sluice_keyed_create(bad[i].spec, &schema, &h);
    CHECK(rc == bad[i].code, "spec %s: rc %d, want %d", bad[i].spec, rc, bad[i].code);
    CHECK(strstr(sluice_last_error(), bad[i].message) != NULL, "spec %s: message", bad[i].spec);
    CHECK(starts_with(sluice_last_error(), "sluice_keyed_create: "), "message names the function");
    CHECK(h == sentinel, "out written on error");
  }
  schema.release(&schema);

  /* A schema that is not a struct. */
  struct ArrowSchema flat;
  make_schema(&flat, "u", NULL);
  rc = sluice_keyed_create("normalize keys=0", &flat, &h);
  CHECK(rc == SLUICE_ERR_UNSUPPORTED_TYPE && h == sentinel, "flat schema rc %d", rc);
  flat.release(&flat);
  sluice_keyed_free(NULL); /* NULL-safe */
}

/* Every handle function refuses a NULL handle; push still releases its batch. */
static void test_null_handle(void) {
  struct ArrowSchema schema, out_schema;
  kv_schema(&schema);
  struct ArrowArray batch, out;
  struct sluice_buffer buf = {0}, buf2 = {0};
  int released = 0;
  static const char *const k[] = {"a"};
  static const int64_t v[] = {1};
  kv_batch(&batch, k, v, NULL, 1, &released);
  int32_t rc = sluice_keyed_push(NULL, &batch, &schema, NULL, &out, &out_schema, &buf);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "push rc %d", rc);
  CHECK(strstr(sluice_last_error(), "handle is NULL") != NULL, "message");
  CHECK(released == 1 && batch.release == NULL, "batch released %d", released);
  rc = sluice_keyed_advance_watermark(NULL, 0, &out, &out_schema, &buf);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "watermark rc %d", rc);
  rc = sluice_keyed_snapshot(NULL, 0, 127, &buf);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "snapshot rc %d", rc);
  rc = sluice_keyed_snapshot_key_groups(NULL, 0, 127, &buf, &buf2);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "snapshot_key_groups rc %d", rc);
  static const uint8_t bytes[4] = {0};
  rc = sluice_keyed_restore(NULL, bytes, 4, 0, 127);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "restore rc %d", rc);
  rc = sluice_keyed_state_size(NULL, NULL, NULL);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "state_size rc %d", rc);
  CHECK(buf.ptr == NULL && buf2.ptr == NULL, "outputs written on error");
  schema.release(&schema);
}

static void test_push_errors(void) {
  struct sluice_keyed *h = create("dedup keys=0 keep=first");
  if (!h) return;
  struct ArrowSchema schema, out_schema;
  kv_schema(&schema);
  struct ArrowArray batch, out;
  memset(&out, 0, sizeof out);
  struct sluice_buffer kinds_out = {0};
  int released = 0;
  static const char *const k[] = {"a", "b"};
  static const int64_t v[] = {1, 2};

  int32_t rc = sluice_keyed_push(h, NULL, &schema, NULL, &out, &out_schema, &kinds_out);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "NULL batch rc %d", rc);

  /* NULL outputs: the batch is still released. */
  kv_batch(&batch, k, v, NULL, 2, &released);
  rc = sluice_keyed_push(h, &batch, &schema, NULL, &out, &out_schema, NULL);
  CHECK(rc == SLUICE_ERR_NULL_POINTER && released == 1, "NULL out_row_kinds rc %d released %d", rc, released);

  /* A row kind byte out of range, and one the operator refuses. */
  static const int8_t bad_kind[] = {0, 7};
  kv_batch(&batch, k, v, NULL, 2, &released);
  rc = sluice_keyed_push(h, &batch, &schema, bad_kind, &out, &out_schema, &kinds_out);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT && strstr(sluice_last_error(), "7 is not a Flink RowKind"),
        "bad kind rc %d", rc);
  static const int8_t delete_kind[] = {0, 3};
  kv_batch(&batch, k, v, NULL, 2, &released);
  rc = sluice_keyed_push(h, &batch, &schema, delete_kind, &out, &out_schema, &kinds_out);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT && strstr(sluice_last_error(), "does not accept row kind 3"),
        "dedup -D rc %d", rc);
  CHECK(released == 3, "released %d", released);

  /* A batch of another schema: struct<k: int32>. */
  static const char *const n1[] = {"k"};
  static const char *const f1[] = {"i"};
  struct ArrowSchema other;
  make_struct_schema(&other, 1, n1, f1, NULL);
  struct ArrowArray kid;
  static const int32_t iv[] = {1};
  make_int32(&kid, iv, NULL, 1, NULL);
  make_struct(&batch, &kid, 1, 1, &released);
  rc = sluice_keyed_push(h, &batch, &other, NULL, &out, &out_schema, &kinds_out);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT && strstr(sluice_last_error(), "does not match the operator's input schema"),
        "wrong schema rc %d", rc);
  CHECK(released == 4, "released %d", released);
  other.release(&other);
  CHECK(out.release == NULL && kinds_out.ptr == NULL, "outputs written on error");
  CHECK(keys_in_state(h) == 0, "no state from refused batches");
  schema.release(&schema);
  sluice_keyed_free(h);
}

static void test_snapshot_errors(void) {
  struct sluice_keyed *h = create(GROUP_AGG);
  if (!h) return;
  static const char *const k[] = {"a", "b", "c"};
  static const int64_t v[] = {1, 2, 3};
  static const struct row want[] = {{0, "a", {1, 1, 1}}, {0, "b", {1, 2, 2}}, {0, "c", {1, 3, 3}}};
  push_expect(h, k, v, NULL, NULL, 3, want, 3, 3);
  struct sluice_buffer snap = {0}, off = {0};
  static const int32_t ranges[][2] = {{-1, 5}, {5, 4}, {0, 128}};
  for (int i = 0; i < 3; i++) {
    int32_t rc = sluice_keyed_snapshot(h, ranges[i][0], ranges[i][1], &snap);
    CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT && snap.ptr == NULL, "range [%d, %d] rc %d", ranges[i][0], ranges[i][1],
          rc);
    rc = sluice_keyed_snapshot_key_groups(h, ranges[i][0], ranges[i][1], &snap, &off);
    CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT && snap.ptr == NULL, "kg range rc %d", rc);
  }
  int32_t rc = sluice_keyed_snapshot(h, 0, 127, NULL);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "NULL out rc %d", rc);
  rc = sluice_keyed_snapshot(h, 0, 127, &snap);
  CHECK(rc == SLUICE_OK, "snapshot rc %d", rc);

  struct sluice_keyed *r = create(GROUP_AGG);
  /* Truncated, one flipped byte, another operator's snapshot. */
  rc = sluice_keyed_restore(r, snap.ptr, snap.len - 1, 0, 127);
  CHECK(rc == SLUICE_ERR_CORRUPT_SNAPSHOT, "truncated rc %d", rc);
  uint8_t *bad = (uint8_t *)malloc((size_t)snap.len);
  memcpy(bad, snap.ptr, (size_t)snap.len);
  bad[snap.len / 2] ^= 0x40;
  rc = sluice_keyed_restore(r, bad, snap.len, 0, 127);
  CHECK(rc == SLUICE_ERR_CORRUPT_SNAPSHOT && strstr(sluice_last_error(), "corrupt snapshot"), "flipped rc %d", rc);
  free(bad);
  struct sluice_keyed *other = create("group_agg keys=k aggs=count(*)");
  rc = sluice_keyed_restore(other, snap.ptr, snap.len, 0, 127);
  CHECK(rc == SLUICE_ERR_CORRUPT_SNAPSHOT, "foreign snapshot rc %d", rc);
  CHECK(keys_in_state(other) == 0, "foreign snapshot left state");
  sluice_keyed_free(other);
  rc = sluice_keyed_restore(r, snap.ptr, -1, 0, 127);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT, "negative len rc %d", rc);
  rc = sluice_keyed_restore(r, NULL, 8, 0, 127);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "NULL bytes rc %d", rc);
  rc = sluice_keyed_restore(r, snap.ptr, snap.len, 0, 128);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT, "bad range rc %d", rc);
  CHECK(keys_in_state(r) == 0, "failed restores left state");
  /* The same keys twice are refused. */
  rc = sluice_keyed_restore(r, snap.ptr, snap.len, 0, 127);
  CHECK(rc == SLUICE_OK && keys_in_state(r) == 3, "restore rc %d", rc);
  rc = sluice_keyed_restore(r, snap.ptr, snap.len, 0, 127);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT && strstr(sluice_last_error(), "already in state"), "twice rc %d", rc);
  sluice_keyed_free(r);
  sluice_buffer_free(&snap);
  sluice_keyed_free(h);
}

static void test_state_budget(void) {
  struct sluice_keyed *h = create("normalize keys=0 budget=200");
  if (!h) return;
  struct ArrowSchema schema, out_schema;
  kv_schema(&schema);
  struct ArrowArray batch, out;
  memset(&out, 0, sizeof out);
  struct sluice_buffer kinds_out = {0};
  int released = 0;
  static const char *const k[] = {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9"};
  static const int64_t v[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  kv_batch(&batch, k, v, NULL, 10, &released);
  int32_t rc = sluice_keyed_push(h, &batch, &schema, NULL, &out, &out_schema, &kinds_out);
  CHECK(rc == SLUICE_ERR_STATE_BUDGET, "rc %d", rc);
  CHECK(strstr(sluice_last_error(), "budget is 200") != NULL, "message");
  CHECK(released == 1 && out.release == NULL && kinds_out.ptr == NULL, "ownership on error");
  int64_t bytes = -1, keys = -1;
  rc = sluice_keyed_state_size(h, &bytes, &keys);
  CHECK(rc == SLUICE_OK && bytes <= 200 && keys > 0 && keys < 10, "state %lld bytes, %lld keys", (long long)bytes,
        (long long)keys);

  /* Restoring a snapshot larger than the budget is refused too. */
  struct sluice_keyed *big = create("normalize keys=0");
  static const struct row want[] = {{0, "k0", {0}}, {0, "k1", {1}}, {0, "k2", {2}}, {0, "k3", {3}}, {0, "k4", {4}},
                                    {0, "k5", {5}}, {0, "k6", {6}}, {0, "k7", {7}}, {0, "k8", {8}}, {0, "k9", {9}}};
  push_expect(big, k, v, NULL, NULL, 10, want, 10, 1);
  struct sluice_buffer snap = {0};
  rc = sluice_keyed_snapshot(big, 0, 127, &snap);
  CHECK(rc == SLUICE_OK, "snapshot rc %d", rc);
  struct sluice_keyed *small = create("normalize keys=0 budget=200");
  rc = sluice_keyed_restore(small, snap.ptr, snap.len, 0, 127);
  CHECK(rc == SLUICE_ERR_STATE_BUDGET && keys_in_state(small) == 0, "restore over budget rc %d", rc);
  sluice_keyed_free(small);
  sluice_keyed_free(big);
  sluice_buffer_free(&snap);
  schema.release(&schema);
  sluice_keyed_free(h);
}

int main(void) {
  RUN(test_group_agg_changelog);
  RUN(test_group_agg_filter_distinct);
  RUN(test_normalize_changelog);
  RUN(test_dedup_first_and_last);
  RUN(test_topn);
  RUN(test_topn_update);
  RUN(test_snapshot_restore);
  RUN(test_create_errors);
  RUN(test_null_handle);
  RUN(test_push_errors);
  RUN(test_snapshot_errors);
  RUN(test_state_budget);
  return report("test_keyed");
}
