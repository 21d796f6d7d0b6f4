#!/usr/bin/env bash
# Builds the libsluice the jar ships (release, with the JNI entry points,
# against glibc 2.17 with cargo-zigbuild, stripped; scripts/env.sh
# stage_jar_library), stages it for the jar and runs `mvn verify` on java/ for
# each Flink line: 1.20 and 2.x.
#
#   scripts/java.sh                 both lines
#   FLINK_LINES=flink-2 scripts/java.sh
#   MVN_ARGS="-Dtest=NativeLibraryTest" scripts/java.sh
#
# After each line's tests it runs the README's example (scripts/java-example.sh)
# and checks a row it prints, so the documented command cannot rot; at the end
# it fuzzes the JNI edge for a minute (FUZZ=0 skips that).
#
# The CI-sized Nexmark parity run (NexmarkParityTest, tag `nexmark`: every
# query, stock vs installed, 20,000 events) runs with the lines named in
# NEXMARK_LINES (default flink-2; it takes ~1.5 minutes a line on 2 shared cores,
# so CI runs it on one line): NEXMARK_LINES="flink-1.20 flink-2" runs both.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

if ! command -v mvn >/dev/null 2>&1; then
    echo "mvn not found: install Maven (and a JDK 17)" >&2
    exit 1
fi
# Each stage's start, in seconds since this script began (where CI time goes).
at() { printf '[%4d s] ' "$SECONDS"; }
echo "$(at)== build libsluice for the jar (release, jni, glibc $JAR_GLIBC, stripped)"
stage_jar_library

for line in ${FLINK_LINES:-flink-1.20 flink-2}; do
    echo "$(at)== mvn verify -P$line"
    # -ntp: no download progress; Maven Central supplies Flink on a fresh machine.
    nexmark=()
    if [ -z "${MVN_ARGS:-}" ] && [[ " ${NEXMARK_LINES-flink-2} " == *" $line "* ]]; then
        nexmark=(-Dsluice.excluded.groups=soak)
    fi
    mvn -B -ntp -f java/pom.xml -P"$line" ${MVN_ARGS:-} "${nexmark[@]}" verify
    echo "$(at)== README example -P$line (scripts/java-example.sh)"
    out=$(FLINK_LINE="$line" scripts/java-example.sh)
    echo "$out"
    # MD5('Ada') = 1a382809b7c03f686e12dd15677c5497 (md5sum); Flink's table print cuts it at 27 hex digits.
    if ! grep -q '| +I | *1 | 1a382809b7c03f686e12dd15677' <<<"$out"; then
        echo "the README example did not print the row of id 1 with MD5('Ada')" >&2
        exit 1
    fi
done

# The JNI fuzzer beyond its seeds (which `verify` ran): a minute of real
# fuzzing on one line (the last of FLINK_LINES). Skipped when MVN_ARGS selects
# tests, or with FUZZ=0; the long run is in java/README.md.
if [ "${FUZZ:-1}" != 0 ] && [ -z "${MVN_ARGS:-}" ]; then
    line="${FLINK_LINES:-flink-2}"
    line="${line##* }"
    echo "$(at)== JNI fuzzer: 60 s of Jazzer (io.sluice.jni.JniFuzzTest#jniEdge, -P$line)"
    JAZZER_FUZZ=1 mvn -B -ntp -f java/pom.xml -P"$line" -Dtest='JniFuzzTest#jniEdge' -Dsurefire.failIfNoSpecifiedTests=false test
fi
echo "$(at)== done"
