#!/usr/bin/env bash
# Nexmark q0-q22 (no q6), stock Flink vs sluice installed, parity checked
# (java/src/test/java/io/sluice/flink/nexmark/NexmarkBenchmark.java): builds libsluice (release),
# compiles the test classes for one Flink line, runs every query in one JVM and draws the chart.
#
#   make nexmark                          10M events, parallelism 1, Flink 1.20
#   make nexmark EVENTS=1000000 P=2       FLINK_LINE=flink-2 PAIRS=3 QUERIES=q0,q1 also apply
# Output: target/nexmark/nexmark.md (table, last line `geomean: X.XXx`), nexmark.csv, nexmark.png.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
line="${FLINK_LINE:-flink-1.20}"
cargo build --locked --release -p sluice-ffi --quiet
native_dir="java/target/native/io/sluice/native/linux-x86_64"
mkdir -p "$native_dir"
cp "$TARGET_DIR/release/libsluice.so" "$native_dir/libsluice.so"
mvn -B -ntp -q -f java/pom.xml -P"$line" test-compile dependency:build-classpath \
    -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test
cp="java/target/classes:java/target/test-classes:$(cat java/target/bench.classpath)"
opens=$(sed -n 's:.*<flink.jvm.opens>\(.*\)</flink.jvm.opens>.*:\1:p' java/pom.xml)
out="$TARGET_DIR/nexmark"
# shellcheck disable=SC2086
java -Xmx3g $opens -cp "$cp" io.sluice.flink.nexmark.NexmarkBenchmark \
    "${EVENTS:-10000000}" "${P:-1}" "${PAIRS:-1}" "$out" ${QUERIES:-}
if ! python3 -c 'import matplotlib' 2>/dev/null; then
    python3 -m pip install --quiet matplotlib
fi
python3 benches/nexmark/plot.py "$out/nexmark.csv" "$out/nexmark.png"
echo "chart: $out/nexmark.png"
