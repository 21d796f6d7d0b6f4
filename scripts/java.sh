#!/usr/bin/env bash
# Builds libsluice (release, with the JNI entry points), stages it for the jar
# and runs `mvn verify` on java/ for each Flink line: 1.20 and 2.x.
#
#   scripts/java.sh                 both lines
#   FLINK_LINES=flink-2 scripts/java.sh
#   MVN_ARGS="-Dtest=NativeLibraryTest" scripts/java.sh
#
# After each line's tests it runs the README's example (scripts/java-example.sh)
# and checks a row it prints, so the documented command cannot rot.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

if ! command -v mvn >/dev/null 2>&1; then
    echo "mvn not found: install Maven (and a JDK 17)" >&2
    exit 1
fi
echo "== build libsluice (release, jni)"
stage_libsluice

for line in ${FLINK_LINES:-flink-1.20 flink-2}; do
    echo "== mvn verify -P$line"
    # -ntp: no download progress; Maven Central supplies Flink on a fresh machine.
    mvn -B -ntp -f java/pom.xml -P"$line" ${MVN_ARGS:-} verify
    echo "== README example -P$line (scripts/java-example.sh)"
    out=$(FLINK_LINE="$line" scripts/java-example.sh)
    echo "$out"
    # MD5('Ada') = 1a382809b7c03f686e12dd15677c5497 (md5sum); Flink's table print cuts it at 27 hex digits.
    if ! grep -q '| +I | *1 | 1a382809b7c03f686e12dd15677' <<<"$out"; then
        echo "the README example did not print the row of id 1 with MD5('Ada')" >&2
        exit 1
    fi
done
