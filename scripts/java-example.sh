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
stage_libsluice
java_test_classpath "${FLINK_LINE:-flink-1.20}"
# shellcheck disable=SC2086
exec java $JAVA_OPENS -cp "$JAVA_TEST_CP" io.sluice.flink.examples.CalcExample
