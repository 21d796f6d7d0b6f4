#!/usr/bin/env bash
# The long soak (java/src/test/java/io/sluice/flink/soak/SoakTest.java, longSoak, tag `soak`):
# 30 minutes of unchanged SQL with the native Calc, Deduplicate and GroupAggregate under a
# failure every 150 s, checked against stock Flink, with native memory sampled once a second.
# Builds the jar's libsluice, runs the test on one Flink line, then draws the samples.
#
#   scripts/soak.sh                                  30 min, Flink 2.x
#   FLINK_LINE=flink-1.20 SECONDS_=600 FAIL_EVERY=60 scripts/soak.sh
# Output: target/soak/soak.csv (seconds, rss_bytes, heap_bytes, live_handles, state_bytes,
# failures), target/soak/soak.png, and the flatness summary on stdout.
#
# The heap is committed and touched up front (-Xms = -Xmx, AlwaysPreTouch), so the RSS curve shows
# native memory and metaspace, not the heap growing into its limit.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
line="${FLINK_LINE:-flink-2}"
out="$PWD/target/soak"
mkdir -p "$out"
stage_jar_library
props="-Dsluice.soak.csv=$out/soak.csv"
if [ -n "${SECONDS_:-}" ]; then props="$props -Dsluice.soak.seconds=$SECONDS_"; fi
if [ -n "${FAIL_EVERY:-}" ]; then props="$props -Dsluice.soak.fail-every-seconds=$FAIL_EVERY"; fi
status=0
# shellcheck disable=SC2086
mvn -B -ntp -f java/pom.xml -P"$line" ${MVN_ARGS:-} -Dgroups=soak -Dsluice.excluded.groups= \
    -Dtest='SoakTest#longSoak' "-Dsurefire.jvm.extra=-Xms2g -XX:+AlwaysPreTouch" $props test || status=$?
if [ -f "$out/soak.csv" ]; then
    python3 scripts/soak_plot.py "$out/soak.csv" "$out/soak.png"
fi
exit "$status"
