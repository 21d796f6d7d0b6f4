/*
 * C tests of the keyed-operator handles that fire on a clock: OVER
 * (sluice_keyed_advance_watermark for rowtime frames,
 * sluice_keyed_advance_processing_time for the proctime RANGE frame) and the
 * window TVF aggregate, every emitted row checked against Flink's changelog;
 * and the running fold's appended-columns push (sluice_keyed_push_appended).
 * Run under valgrind by run.sh.
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

/* OVER (Flink's OverAggregate): a rowtime RANGE UNBOUNDED fold emits on the
 * watermark, rows of one timestamp with one value, late rows dropped
 * (RowTimeRangeUnboundedPrecedingFunction); a proctime ROWS 1 PRECEDING
 * frame emits on push (ProcTimeRowsBoundedPrecedingFunction). */
static void test_over(void) {
  struct sluice_keyed *h = create("over keys=k order=rowtime(v) frame=range preceding=unbounded aggs=count(*),sum(v)");
  if (!h) return;
  static const char *const k[] = {"a", "a", "b", "a"};
  static const int64_t v[] = {5, 3, 4, 3};
  push_expect(h, k, v, NULL, NULL, 4, NULL, 0, 3);
  static const struct row at4[] = {{0, "a", {3, 2, 6}}, {0, "a", {3, 2, 6}}, {0, "b", {4, 1, 4}}};
  watermark_expect(h, 4, at4, 3, 3);
  /* (a, 2) is late: at or before the watermark 4. */
  static const char *const k2[] = {"a"};
  static const int64_t v2[] = {2};
  push_expect(h, k2, v2, NULL, NULL, 1, NULL, 0, 3);
  static const struct row at10[] = {{0, "a", {5, 3, 11}}};
  watermark_expect(h, 10, at10, 1, 3);
  CHECK(keys_in_state(h) == 2, "2 keys");
  /* OVER input is insert-only. */
  static const int8_t del[] = {3};
  push_fails(h, k2, v2, del, 1, "insert-only");
  sluice_keyed_free(h);

  h = create("over keys=k order=proctime frame=rows preceding=1 aggs=max(v)");
  if (!h) return;
  static const char *const k3[] = {"a", "a", "a"};
  static const int64_t v3[] = {1, 3, 2};
  static const struct row frames[] = {{0, "a", {1, 1}}, {0, "a", {3, 3}}, {0, "a", {2, 3}}};
  push_expect(h, k3, v3, NULL, NULL, 3, frames, 3, 2);
  sluice_keyed_free(h);

  /* Proctime RANGE 10 PRECEDING (ProcTimeRangeBoundedPrecedingFunction): a
   * push is stamped with the last processing time given (none yet: an
   * error) and fires one millisecond later, rows of a key and stamp with
   * one value; at 112 the rows stamped 100 are out of the frame (100 < 111 - 10). */
  h = create("over keys=k order=proctime frame=range preceding=10 aggs=count(*),sum(v)");
  if (!h) return;
  push_fails(h, k3, v3, NULL, 1, "processing time");
  proctime_expect(h, 100, NULL, 0, 3);
  push_expect(h, k, v, NULL, NULL, 3, NULL, 0, 3);
  proctime_expect(h, 100, NULL, 0, 3);
  static const struct row at101[] = {{0, "a", {5, 2, 8}}, {0, "a", {3, 2, 8}}, {0, "b", {4, 1, 4}}};
  proctime_expect(h, 101, at101, 3, 3);
  push_expect(h, k2, v2, NULL, NULL, 1, NULL, 0, 3);
  static const struct row at111[] = {{0, "a", {2, 3, 10}}};
  proctime_expect(h, 111, at111, 1, 3);
  push_expect(h, k2, v2, NULL, NULL, 1, NULL, 0, 3);
  static const struct row at112[] = {{0, "a", {2, 2, 4}}};
  proctime_expect(h, 112, at112, 1, 3);
  sluice_keyed_free(h);
}

/* The proctime running fold (ProcTimeUnboundedPrecedingFunction) pushed with
 * sluice_keyed_push_appended returns only COUNT(*), COUNT(v), SUM(v) per input
 * row, in input order (NULL arguments, a key with a supplementary character),
 * carrying on from state a plain push built; an operator that emits on
 * timers refuses it. */
static void appended_expect(struct sluice_keyed *h, const char *const *k, const int64_t *v, const int *valid, int n,
                            const int64_t (*want)[3]) {
  struct ArrowArray out;
  struct ArrowSchema out_schema;
  struct sluice_buffer kinds = {0};
  int32_t rc = push_rows(sluice_keyed_push_appended, h, k, v, valid, NULL, n, &out, &out_schema, &kinds);
  CHECK(rc == SLUICE_OK, "push_appended rc %d: %s", rc, sluice_last_error());
  if (rc != SLUICE_OK) return;
  CHECK(out.length == n && kinds.len == n && out.n_children == 3, "rows %lld, columns %lld", (long long)out.length,
        (long long)out.n_children);
  for (int i = 0; i < n && out.length == n && out.n_children == 3; i++) {
    CHECK(kinds.ptr[i] == 0, "row %d kind %d", i, kinds.ptr[i]);
    for (int c = 0; c < 3; c++) {
      const struct ArrowArray *col = out.children[c];
      if (want[i][c] == NUL) {
        CHECK(!is_valid_row(col, i), "row %d col %d should be NULL", i, c);
      } else {
        CHECK(is_valid_row(col, i) && int64_value(col, i) == want[i][c], "row %d col %d = %lld, want %lld", i, c,
              (long long)int64_value(col, i), (long long)want[i][c]);
      }
    }
  }
  release_out(&out, &out_schema);
  sluice_buffer_free(&kinds);
}

static void test_over_appended(void) {
  struct sluice_keyed *h = create("over keys=k order=proctime frame=rows preceding=unbounded aggs=count(*),count(v),sum(v)");
  if (!h) return;
  static const char *const k[] = {"a", "\xF0\x9D\x84\x9E", "a", "a"};
  static const int64_t v[] = {5, 7, 0, 2};
  static const int valid[] = {1, 1, 0, 1};
  /* The whole row: k, v, then the aggregates. */
  static const struct row full[] = {{0, "a", {5, 1, 1, 5}}, {0, "\xF0\x9D\x84\x9E", {7, 1, 1, 7}}};
  push_expect(h, k, v, valid, NULL, 2, full, 2, 4);
  static const int64_t want[][3] = {{2, 1, 5}, {3, 2, 7}};
  appended_expect(h, k + 2, v + 2, valid + 2, 2, want);
  static const char *const k2[] = {"b"};
  static const int64_t v2[] = {0};
  static const int null_v[] = {0};
  static const int64_t want2[][3] = {{1, 0, NUL}};
  appended_expect(h, k2, v2, null_v, 1, want2);
  sluice_keyed_free(h);

  h = create("over keys=k order=proctime frame=rows preceding=1 aggs=max(v)");
  if (!h) return;
  push_refused(sluice_keyed_push_appended, h, k, v, NULL, 1, "appended");
  sluice_keyed_free(h);
}

/* TUMBLE(10) on rowtime v (Flink's WindowAggOperator): pushes emit
 * nothing, a watermark fires the windows whose end - 1 it reached (key,
 * COUNT(*), SUM(v), window_start, window_end, window_time), a row of a
 * fired window is dropped, and fired keys leave state. */
static void test_window(void) {
  struct sluice_keyed *h = create("window keys=k rowtime=v window=tumble(10) aggs=count(*),sum(v)");
  if (!h) return;
  static const char *const k[] = {"a", "a", "b", "a"};
  static const int64_t v[] = {3, 7, 12, 15};
  push_expect(h, k, v, NULL, NULL, 4, NULL, 0, 5);
  static const struct row first[] = {{0, "a", {2, 10, 0, 10, 9}}};
  watermark_expect(h, 9, first, 1, 5);
  static const char *const late_k[] = {"b"};
  static const int64_t late_v[] = {5};
  push_expect(h, late_k, late_v, NULL, NULL, 1, NULL, 0, 5);
  /* Keys in first-insert order within one window end. */
  static const struct row second[] = {{0, "a", {1, 15, 10, 20, 19}}, {0, "b", {1, 12, 10, 20, 19}}};
  watermark_expect(h, 19, second, 2, 5);
  watermark_expect(h, 5, NULL, 0, 5);
  CHECK(keys_in_state(h) == 0, "fired windows leave no state");
  sluice_keyed_free(h);
}

int main(void) {
  RUN(test_over);
  RUN(test_over_appended);
  RUN(test_window);
  return report("test_over_window");
}
