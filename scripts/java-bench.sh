#!/usr/bin/env bash
# Stock Flink SQL vs the native Calc (java/src/test/java/io/sluice/flink/bench/CalcBenchmark.java):
# builds the jar's libsluice (scripts/env.sh stage_jar_library), compiles the jar's test classes for one Flink line
# and runs the harness in one JVM.
#
#   scripts/java-bench.sh                       Flink 1.20, 2M rows, 5 pairs after 2 warm-up pairs
#   FLINK_LINE=flink-2 scripts/java-bench.sh 2000000 5 2
#   scripts/java-bench.sh 2000000 3 1 curve=32,128,512,2048,8192   only the batch-size curve, at these sizes
#   SLUICE_BENCH_JAVA_OPTS=-Dsluice.bench.column-handover=false scripts/java-bench.sh (gather path)
#   SLUICE_BENCH_JAVA_OPTS=-Dsluice.bench.object-reuse=true scripts/java-bench.sh     (both sides with object reuse)
#   scripts/java-bench.sh calc-shapes 2000000 3 1   the CalcBenchmark table (nocurve, task-thread CPU time) for
#                                               BinaryRowData and String-backed rows (-Dsluice.bench.input) on
#                                               Flink 1.20 and 2.x, one after the other
#   scripts/java-bench.sh micro                 CalcNative.process alone (no Flink job)
#   scripts/java-bench.sh keyed 2000000 3       GROUP BY (65,536 keys) and keep-last dedup (KeyedBenchmark)
#   scripts/java-bench.sh keyed-sql 2000000 3   plain SQL stock vs Sluice.install: GROUP BY over 50 / 65,536 /
#                                               all-distinct keys; dedup keep-last and keep-first by proctime,
#                                               keep-last by rowtime (KeyedSqlBenchmark; -Dsluice.bench.only=dedup
#                                               in SLUICE_BENCH_JAVA_OPTS for some cases, -Dsluice.bench.task-cpu=true
#                                               for each task thread's CPU per row)
#   scripts/java-bench.sh join-sql 2000000 3    plain SQL INNER join of two insert-only streams on a string key,
#                                               stock vs installed with the join on (JoinSqlBenchmark)
#   scripts/java-bench.sh over-sql 2000000 3    plain SQL running COUNT/SUM OVER per key (proctime, rowtime;
#                                               1,024 / 65,536 keys), stock vs installed (OverSqlBenchmark)
#   scripts/java-bench.sh over-micro 2000000 3  the native proctime running fold in a test harness: operator-thread
#                                               CPU ns/row, pass-through vs whole-row path (OverPassThroughMicro)
#   scripts/java-bench.sh rank-sql 2000000 3    plain SQL ROW_NUMBER Top-3: append-only (65,536 / 64 partitions, with
#                                               and without the rank column) and retracting over a GROUP BY, stock vs
#                                               installed, results checked first (RankSqlBenchmark)
#   scripts/java-bench.sh window-sql 2000000 3  plain SQL TUMBLE and HOP aggregates over 1,024 keys, stock vs
#                                               installed (WindowSqlBenchmark)
#   scripts/java-bench.sh lookup-sql 2000000 3  plain SQL lookup join (65,536-row in-memory dimension): INNER without a
#                                               cache, LEFT with Flink's partial cache, stock vs installed (LookupSqlBenchmark)
#   scripts/java-bench.sh lazy [ascii|mixed]    lazy (String-backed) strings into the Calc, per representation
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = calc-shapes ]; then
    shift
    for line in flink-1.20 flink-2; do
        for input in binary string; do
            echo "== CalcBenchmark: $line, $input rows"
            FLINK_LINE=$line SLUICE_BENCH_JAVA_OPTS="-Dsluice.bench.cpu=true -Dsluice.bench.input=$input ${SLUICE_BENCH_JAVA_OPTS:-}" \
                scripts/java-bench.sh "${1:-2000000}" "${2:-3}" "${3:-1}" nocurve
        done
    done
    exit 0
fi
. scripts/env.sh
stage_libsluice
java_test_classpath "${FLINK_LINE:-flink-1.20}"
main=io.sluice.flink.bench.CalcBenchmark
if [ "${1:-}" = micro ]; then main=io.sluice.flink.bench.CalcNativeMicro; shift; fi
if [ "${1:-}" = keyed ]; then main=io.sluice.flink.bench.KeyedBenchmark; shift; fi
if [ "${1:-}" = keyed-sql ]; then main=io.sluice.flink.bench.KeyedSqlBenchmark; shift; fi
if [ "${1:-}" = join-sql ]; then main=io.sluice.flink.bench.JoinSqlBenchmark; shift; fi
if [ "${1:-}" = over-sql ]; then main=io.sluice.flink.bench.OverSqlBenchmark; shift; fi
if [ "${1:-}" = over-micro ]; then main=io.sluice.flink.bench.OverPassThroughMicro; shift; fi
if [ "${1:-}" = rank-sql ]; then main=io.sluice.flink.bench.RankSqlBenchmark; shift; fi
if [ "${1:-}" = window-sql ]; then main=io.sluice.flink.bench.WindowSqlBenchmark; shift; fi
if [ "${1:-}" = lookup-sql ]; then main=io.sluice.flink.bench.LookupSqlBenchmark; shift; fi
if [ "${1:-}" = lazy ]; then main=io.sluice.flink.bench.LazyStringMicro; shift; fi
# shellcheck disable=SC2086
exec java -Xmx3g -Xms3g ${SLUICE_BENCH_JAVA_OPTS:-} $JAVA_OPENS -cp "$JAVA_TEST_CP" "$main" "$@"
