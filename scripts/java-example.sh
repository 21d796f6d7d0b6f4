#!/usr/bin/env bash
# Runs the Calc example of java/README.md (java/src/test/java/io/sluice/flink/examples/CalcExample.java)
# in its own JVM: builds libsluice (release), stages it as the jar bundles it,
# compiles the test classes for one Flink line and runs the example on the
# test classpath (Flink is a provided dependency of the jar, so the example
# is not part of it).
#
#   scripts/java-example.sh                      Flink 1.20
#   FLINK_LINE=flink-2 scripts/java-example.sh
#   MVN_ARGS=-o scripts/java-example.sh          Maven offline
#
# scripts/java.sh runs it after the tests of each line and checks the rows it prints.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
line="${FLINK_LINE:-flink-1.20}"
cargo build --locked --release -p sluice-ffi --quiet
native_dir="java/target/native/io/sluice/native/linux-x86_64"
mkdir -p "$native_dir"
cp "$TARGET_DIR/release/libsluice.so" "$native_dir/libsluice.so"
# shellcheck disable=SC2086
mvn -B -ntp -q -f java/pom.xml -P"$line" ${MVN_ARGS:-} test-compile dependency:build-classpath \
    -Dmdep.outputFile=target/example.classpath -Dmdep.includeScope=test
cp="java/target/classes:java/target/test-classes:$(cat java/target/example.classpath)"
opens=$(sed -n 's:.*<flink.jvm.opens>\(.*\)</flink.jvm.opens>.*:\1:p' java/pom.xml)
# shellcheck disable=SC2086
exec java $opens -cp "$cp" io.sluice.flink.examples.CalcExample
