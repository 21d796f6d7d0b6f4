/*
 * C tests of the join handle (sluice_join_*): a LEFT join whose every
 * emitted row is checked against Flink's StreamingJoinOperator changelog,
 * snapshot / restore, and the error paths. Run under valgrind by run.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"
#include "arrow_build.h"
#include "check.h"
#include "kv_rows.h"

/* Both inputs are kv_rows.h's struct<k: utf8, v: int64>. */

/* An expected joined row: kind, left (k, v), right (k, v); NULL / INT64_MIN for a padded side. */
struct jrow {
  int8_t kind;
  const char *lk;
  int64_t lv;
  const char *rk;
  int64_t rv;
};

static void check_side(const struct ArrowArray *kcol, const struct ArrowArray *vcol, int i, const char *k, int64_t v) {
  if (k == NULL) {
    CHECK(!is_valid_row(kcol, i) && !is_valid_row(vcol, i), "row %d: side should be NULL-padded", i);
    return;
  }
  int32_t len;
  const char *got = utf8_value(kcol, i, &len);
  CHECK(is_valid_row(kcol, i) && (size_t)len == strlen(k) && memcmp(got, k, (size_t)len) == 0, "row %d key %.*s", i,
        len, got);
  CHECK(is_valid_row(vcol, i) && int64_value(vcol, i) == v, "row %d value %lld, want %lld", i,
        (long long)int64_value(vcol, i), (long long)v);
}

/* Pushes rows of `side` and checks the joined output. */
static void push_expect(struct sluice_join *h, int32_t side, const char *const *k, const int64_t *v,
                        const int8_t *kinds, int n, const struct jrow *want, int n_want) {
  struct ArrowSchema schema, out_schema;
  struct ArrowArray batch, out;
  struct sluice_buffer out_kinds = {0};
  int released = 0;
  kv_schema(&schema);
  kv_batch(&batch, k, v, NULL, n, &released);
  int32_t rc = sluice_join_push(h, side, &batch, &schema, kinds, &out, &out_schema, &out_kinds);
  CHECK(rc == SLUICE_OK, "push rc %d", rc);
  CHECK(released == 1, "batch released %d times", released);
  if (rc == SLUICE_OK) {
    CHECK(out.length == n_want && out_kinds.len == n_want, "rows %lld, want %d", (long long)out.length, n_want);
    CHECK(out.n_children == 4, "columns %lld", (long long)out.n_children);
    if (out.length == n_want && out.n_children == 4) {
      for (int i = 0; i < n_want; i++) {
        CHECK(out_kinds.ptr[i] == (uint8_t)want[i].kind, "row %d kind %d, want %d", i, out_kinds.ptr[i],
              want[i].kind);
        check_side(out.children[0], out.children[1], i, want[i].lk, want[i].lv);
        check_side(out.children[2], out.children[3], i, want[i].rk, want[i].rv);
      }
    }
    release_out(&out, &out_schema);
    sluice_buffer_free(&out_kinds);
  }
  schema.release(&schema);
}

static struct sluice_join *create(const char *spec) {
  struct ArrowSchema l, r;
  kv_schema(&l);
  kv_schema(&r);
  struct sluice_join *h = NULL;
  int32_t rc = sluice_join_create(spec, &l, &r, &h);
  CHECK(rc == SLUICE_OK && h != NULL, "create(%s) rc %d", spec, rc);
  l.release(&l);
  r.release(&r);
  return h;
}

/* Left rows (a, 1), (b, 2) into a LEFT join with an empty right side: both padded. */
static void push_two_orders(struct sluice_join *h) {
  static const char *const k[] = {"a", "b"};
  static const int64_t v[] = {1, 2};
  static const struct jrow want[] = {{0, "a", 1, NULL, NUL}, {0, "b", 2, NULL, NUL}};
  push_expect(h, SLUICE_JOIN_LEFT, k, v, NULL, 2, want, 2);
}

#define LEFT_JOIN "join type=left left_keys=k right_keys=k right_unique=k"

/* orders LEFT JOIN items: the padding goes with -D when the item arrives
 * and comes back with +I when it is deleted. */
static void test_left_join_changelog(void) {
  struct sluice_join *h = create(LEFT_JOIN);
  if (!h) return;
  push_two_orders(h);

  static const char *const rk[] = {"a"};
  static const int64_t rv[] = {10};
  static const struct jrow want2[] = {{3, "a", 1, NULL, NUL}, {0, "a", 1, "a", 10}};
  push_expect(h, SLUICE_JOIN_RIGHT, rk, rv, NULL, 1, want2, 2);

  static const int8_t del[] = {3};
  static const struct jrow want3[] = {{3, "a", 1, "a", 10}, {0, "a", 1, NULL, NUL}};
  push_expect(h, SLUICE_JOIN_RIGHT, rk, rv, del, 1, want3, 2);

  int64_t bytes = -1, lkeys = -1, rkeys = -1;
  int32_t rc = sluice_join_state_size(h, &bytes, &lkeys, &rkeys);
  CHECK(rc == SLUICE_OK && bytes > 0 && lkeys == 2 && rkeys == 0, "state %lld %lld %lld", (long long)bytes,
        (long long)lkeys, (long long)rkeys);
  sluice_join_free(h);
}

/* A restored handle continues like the original. */
static void test_snapshot_restore(void) {
  struct sluice_join *h = create(LEFT_JOIN);
  if (!h) return;
  push_two_orders(h);

  struct sluice_buffer snap = {0}, data = {0}, offsets = {0};
  int32_t rc = sluice_join_snapshot(h, 0, 127, &snap);
  CHECK(rc == SLUICE_OK && snap.len > 0, "snapshot rc %d", rc);
  rc = sluice_join_snapshot_key_groups(h, 0, 127, &data, &offsets);
  CHECK(rc == SLUICE_OK && offsets.len == 129 * 8, "key groups rc %d offsets %lld", rc, (long long)offsets.len);

  struct sluice_join *again = create(LEFT_JOIN);
  if (again && rc == SLUICE_OK) {
    const int64_t *off = (const int64_t *)offsets.ptr;
    for (int g = 0; g < 128; g++) {
      rc = sluice_join_restore(again, data.ptr + off[g], off[g + 1] - off[g], 0, 127);
      CHECK(rc == SLUICE_OK, "restore key group %d rc %d", g, rc);
    }
    static const char *const rk[] = {"b"};
    static const int64_t rv[] = {20};
    static const struct jrow want2[] = {{3, "b", 2, NULL, NUL}, {0, "b", 2, "b", 20}};
    push_expect(again, SLUICE_JOIN_RIGHT, rk, rv, NULL, 1, want2, 2);
    /* The whole blob again: the join keys are already in state. */
    rc = sluice_join_restore(again, snap.ptr, snap.len, 0, 127);
    CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT, "restore twice rc %d", rc);
  }
  /* A flipped byte is a corrupt snapshot, never a crash. */
  if (snap.len > 20) {
    snap.ptr[snap.len / 2] ^= 0x5a;
    struct sluice_join *third = create(LEFT_JOIN);
    rc = sluice_join_restore(third, snap.ptr, snap.len, 0, 127);
    CHECK(rc == SLUICE_ERR_CORRUPT_SNAPSHOT, "flipped rc %d", rc);
    sluice_join_free(third);
  }
  sluice_buffer_free(&snap);
  sluice_buffer_free(&data);
  sluice_buffer_free(&offsets);
  sluice_join_free(again);
  sluice_join_free(h);
}

static void test_errors(void) {
  struct ArrowSchema l, r;
  kv_schema(&l);
  kv_schema(&r);
  struct sluice_join *h = NULL;
  int32_t rc = sluice_join_create("join type=outer left_keys=0 right_keys=0", &l, &r, &h);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT && h == NULL && strstr(sluice_last_error(), "type=`outer`"), "rc %d", rc);
  CHECK(starts_with(sluice_last_error(), "sluice_join_create: "), "message names the function");
  rc = sluice_join_create("join type=inner left_keys=0 right_keys=1", &l, &r, &h);
  CHECK(rc != SLUICE_OK && h == NULL, "key types differ: rc %d", rc);
  rc = sluice_join_create(NULL, &l, &r, &h);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "NULL spec rc %d", rc);

  h = create(LEFT_JOIN);
  struct ArrowArray batch, out;
  struct ArrowSchema out_schema;
  struct sluice_buffer out_kinds = {0};
  static const char *const k[] = {"a"};
  static const int64_t v[] = {1};
  int released = 0;
  kv_batch(&batch, k, v, NULL, 1, &released);
  rc = sluice_join_push(h, 2, &batch, &l, NULL, &out, &out_schema, &out_kinds);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT && strstr(sluice_last_error(), "side is 2"), "bad side rc %d", rc);
  CHECK(released == 1, "the batch is taken and released on error (%d)", released);
  released = 0;
  kv_batch(&batch, k, v, NULL, 1, &released);
  rc = sluice_join_push(NULL, SLUICE_JOIN_LEFT, &batch, &l, NULL, &out, &out_schema, &out_kinds);
  CHECK(rc == SLUICE_ERR_NULL_POINTER, "NULL handle rc %d", rc);
  CHECK(released == 1, "released %d", released);
  rc = sluice_join_snapshot(h, 5, 4, &out_kinds);
  CHECK(rc == SLUICE_ERR_INVALID_ARGUMENT, "empty range rc %d", rc);
  sluice_join_free(h);
  sluice_join_free(NULL);
  l.release(&l);
  r.release(&r);
}

int main(void) {
  RUN(test_left_join_changelog);
  RUN(test_snapshot_restore);
  RUN(test_errors);
  return report("test_join");
}
