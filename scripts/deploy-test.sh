#!/usr/bin/env bash
# Deployment as a user does it (java/README.md, "Deploying: lib/ and PyFlink"): the lib/ of a real
# Flink distribution (PyPI's apache-flink-libraries wheel carries it) plus sluice's two jars (the
# bridge java/bridge and sluice-flink), and an unchanged SQL script (scripts/deploy/job.sql) run
# through Flink's SQL client (execution.target: local, so the jobs run in the client's own
# cluster). It asserts that the plan shows sluice's nodes (EXPLAIN), that both INSERT jobs
# finished with tasks running sluice's operators (the client's log), and that
# `sluice.enabled: false` in config.yaml gives Flink's plan and operators back.
#
#   scripts/deploy-test.sh [flink-2]
#
# Flink 2.3.0 only for now: the bridge builds for 1.20.4 (-Pflink-1.20), but the SQL client there
# needs opt/flink-sql-gateway-1.20.4.jar, which neither the 1.20.4 wheel nor Maven Central (it has
# 1.20.3) serves, so flink-1.20 stops with that reason instead of running a mixed-version client.
#
# Expects libsluice staged in java/target/native (scripts/java.sh or stage_jar_library in
# scripts/env.sh do it). Downloads go to target-deploy/ (~0.6 GB for both lines). The wheel has
# no bin/ scripts and no opt/flink-sql-gateway jar (fetched from Maven Central), so the client is
# started as bin/sql-client.sh starts it: java with lib/ on the class path in name order,
# flink-dist last.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK="$ROOT/target-deploy"
LINES=("$@")
[ ${#LINES[@]} -gt 0 ] || LINES=(flink-2)
OPENS=$(sed -n 's:.*<flink.jvm.opens>\(.*\)</flink.jvm.opens>.*:\1:p' java/pom.xml)
fail() { echo "deploy-test FAILED: $*" >&2; exit 1; }

flink_version() { # line -> the Flink version its profile builds against
    sed -n "/<id>$1<\/id>/,/<\/profile>/s:.*<flink.version>\(.*\)</flink.version>.*:\1:p" java/bridge/pom.xml
}

# The distribution: apache-flink-libraries $1 installed into $WORK/dist-$1 (once).
ensure_distribution() { # version
    local target="$WORK/dist-$1"
    if [ ! -f "$target/pyflink/lib/flink-dist-$1.jar" ]; then
        mkdir -p "$WORK"
        [ -x "$WORK/venv/bin/pip" ] || python3 -m venv "$WORK/venv"
        nice "$WORK/venv/bin/pip" install --quiet --disable-pip-version-check --no-deps \
            --target "$target" "apache-flink-libraries==$1"
    fi
    [ -f "$target/pyflink/lib/flink-dist-$1.jar" ] || fail "no lib/flink-dist-$1.jar in apache-flink-libraries $1"
}

# The distribution's opt/flink-sql-gateway jar, which the wheel leaves out and the SQL client
# needs (bin/sql-client.sh puts it on the class path), from Maven Central.
ensure_sql_gateway() { # version
    local jar="$WORK/maven/flink-sql-gateway-$1.jar"
    [ -f "$jar" ] || nice mvn -B -q dependency:copy -Dartifact="org.apache.flink:flink-sql-gateway:$1" \
        -DoutputDirectory="$WORK/maven"
    [ -f "$jar" ] || fail "could not fetch flink-sql-gateway $1"
}

# FLINK_HOME for line $1: the wheel's lib/ and opt/ plus sluice's jars in lib/, conf/ written.
lay_out() { # line version home
    local line=$1 version=$2 home=$3 dist="$WORK/dist-$2/pyflink"
    rm -rf "$home"
    mkdir -p "$home/lib" "$home/conf" "$home/log"
    ln -s "$dist"/lib/*.jar "$home/lib/"
    ln -s "$dist/opt" "$home/opt"
    cp "java/bridge/target/flink-sluice-bridge-0.1.0-flink-$version.jar" "$home/lib/"
    cp "java/target/sluice-flink-0.1.0-$line.jar" "$home/lib/"
    cp scripts/deploy/log4j.properties "$home/conf/"
}

write_conf() { # conf-dir [extra yaml line]
    cat >"$1/config.yaml" <<YAML
execution: {target: local}
parallelism: {default: 1}
taskmanager: {numberOfTaskSlots: 2}
YAML
    if [ -n "${2:-}" ]; then echo "$2" >>"$1/config.yaml"; fi
}

# lib/ as Flink's bin/config.sh puts it on the class path: name order, flink-dist last.
class_path() { # home
    local cp="" j
    while IFS= read -r j; do cp="$cp$j:"; done < <(find "$1/lib" -name '*.jar' ! -name 'flink-dist*' | LC_ALL=C sort)
    echo "$cp$(ls "$1"/lib/flink-dist*.jar)"
}

sql_client() { # home conf-dir script out
    local cp
    # as bin/sql-client.sh: the client's jar, the gateway's and flink-python (its option parser
    # needs it) from opt/
    cp="$(class_path "$1"):$(ls "$1"/opt/flink-sql-client-*.jar):$(ls "$1"/opt/flink-python-*.jar)"
    cp="$cp:$(ls "$WORK"/maven/flink-sql-gateway-"$FLINK_VERSION".jar)"
    # shellcheck disable=SC2086
    FLINK_CONF_DIR="$2" nice java $OPENS -Dlog.file="$1/log/sql-client.log" \
        -Dlog4j.configurationFile="file:$1/conf/log4j.properties" \
        -cp "$cp" org.apache.flink.table.client.SqlClient -f "$3" >"$4" 2>&1 \
        || { cat "$4" >&2; echo "the SQL client failed (output above)" >&2; return 1; }
}

# Checks one run of job.sql: the EXPLAIN output (sluice's plan nodes, SluiceCalc and
# SluiceGroupAggregate, or none), and that both INSERT jobs finished, with tasks that ran sluice's
# operators (SluiceCalcExecNode, SluiceKeyedExecNode in the task names) or none.
check_run() { # out-file log want(native|stock)
    local out=$1 log=$2 want=$3 tasks node
    tasks=$(grep "taskmanager.Task - .* switched from RUNNING to FINISHED" "$log" | sed 's/.*Task - //; s/ (.*//' || true)
    echo "$tasks" | sed 's/^/    task finished: /'
    [ "$(grep -c "Job .* switched from state RUNNING to FINISHED" "$log")" -eq 2 ] \
        || fail "the two INSERT jobs did not both finish (log: $log)"
    if [ "$want" = native ]; then
        for node in SluiceCalc SluiceGroupAggregate; do
            grep -q "+- $node(" "$out" || fail "EXPLAIN shows no $node ($out)"
        done
        for node in SluiceCalcExecNode SluiceKeyedExecNode; do
            grep -q "$node" <<<"$tasks" || fail "no task running $node finished ($log)"
        done
    else
        ! grep -q "+- Sluice" "$out" || fail "sluice.enabled: false, yet EXPLAIN shows a sluice node ($out)"
        ! grep -q "Sluice" <<<"$tasks" || fail "sluice.enabled: false, yet a sluice operator ran ($log)"
        grep -q "+- Calc(" "$out" && grep -q "+- GroupAggregate(" "$out" \
            || fail "sluice.enabled: false, yet EXPLAIN shows no stock Calc and GroupAggregate ($out)"
    fi
}

# The bridge refuses a Flink version it was not built for: lib/ with a copy of the bridge whose
# sluice-bridge.properties names another version, and the SQL client must fail saying so.
check_refusal() { # home version
    local home=$1 other="0.0.0-not-$2" jar tmp
    jar=$(ls "$home"/lib/flink-sluice-bridge-*.jar)
    tmp=$(mktemp -d)
    printf 'flink.version=%s\n' "$other" >"$tmp/sluice-bridge.properties"
    (cd "$tmp" && cp "$jar" bridge.jar && jar uf bridge.jar sluice-bridge.properties)
    mv "$jar" "$tmp/kept.jar"
    cp "$tmp/bridge.jar" "$jar"
    if sql_client "$home" "$home/conf" scripts/deploy/job.sql "$home/log/refused.out" 2>/dev/null; then
        mv "$tmp/kept.jar" "$jar"
        fail "a bridge built for Flink $other ran on Flink $2"
    fi
    mv "$tmp/kept.jar" "$jar"
    rm -rf "$tmp"
    grep -q "built and tested for Flink $other only, and this is Flink $2" "$home/log/refused.out" \
        || fail "the bridge built for Flink $other did not refuse Flink $2 with its message ($home/log/refused.out)"
}

# PyFlink: `pip install apache-flink` (the same Flink version), FLINK_HOME at the distribution
# with sluice's jars in lib/ (PyFlink starts its Java gateway from $FLINK_HOME/lib), and the
# unchanged scripts/deploy/job.py, whose printed plans must show sluice's nodes. Opt-in
# (DEPLOY_PYFLINK=1) because it FAILS today: PyFlink's gateway (pyflink_gateway_server.py,
# construct_flink_classpath) puts lib/ on the class path in glob (directory) order, not name order
# as bin/config.sh does, so Flink's PlannerModule can come before the bridge's and the plan stays
# stock (observed: the bridge jar last, flink-table-api-java-uber before it).
check_pyflink() { # home version
    local out="$1/log/pyflink.out" node
    if ! "$WORK/venv/bin/python" -c 'import pyflink.table' 2>/dev/null; then
        nice "$WORK/venv/bin/pip" install --quiet --disable-pip-version-check "apache-flink==$2"
    fi
    FLINK_HOME="$1" nice "$WORK/venv/bin/python" scripts/deploy/job.py >"$out" 2>&1 \
        || { cat "$out" >&2; fail "the PyFlink program failed (output above)"; }
    for node in SluiceCalc SluiceGroupAggregate; do
        grep -q "+- $node(" "$out" || fail "the PyFlink program's plan shows no $node ($out)"
    done
    grep -q "job.py: both jobs finished" "$out" || fail "the PyFlink jobs did not finish ($out)"
}

run_line() { # line
    local line=$1 version
    version=$(flink_version "$line")
    [ -n "$version" ] || fail "unknown Flink line $line"
    [ "$line" != flink-1.20 ] || fail "flink-1.20 is not tested here: no flink-sql-gateway $version jar is served (see the header)"
    echo "== $line: Flink $version distribution + sluice jars in lib/"
    [ -f java/target/native/io/sluice/native/linux-x86_64/libsluice.so ] \
        || fail "libsluice is not staged in java/target/native (run scripts/java.sh or stage_jar_library first)"
    nice mvn -B -ntp -q -f java/pom.xml -P"$line" -DskipTests package
    nice mvn -B -ntp -q -f java/bridge/pom.xml -P"$line" package
    ensure_distribution "$version"
    ensure_sql_gateway "$version"
    FLINK_VERSION=$version
    HOME_DIR="$WORK/flink-$version"
    lay_out "$line" "$version" "$HOME_DIR"
    write_conf "$HOME_DIR/conf"

    echo "-- job.sql unchanged, sluice on (the default)"
    sql_client "$HOME_DIR" "$HOME_DIR/conf" scripts/deploy/job.sql "$HOME_DIR/log/on.out" || exit 1
    check_run "$HOME_DIR/log/on.out" "$HOME_DIR/log/sql-client.log" native
    grep -q "sluice: planner stage installed" "$HOME_DIR/log/sql-client.log" \
        || fail "the SQL client's log has no line from sluice's planner factory"

    echo "-- job.sql unchanged, 'sluice.enabled: false' in config.yaml"
    mkdir -p "$HOME_DIR/conf-off"
    cp "$HOME_DIR/conf/log4j.properties" "$HOME_DIR/conf-off/"
    write_conf "$HOME_DIR/conf-off" "sluice.enabled: false"
    mv "$HOME_DIR/log/sql-client.log" "$HOME_DIR/log/sql-client-on.log"
    sql_client "$HOME_DIR" "$HOME_DIR/conf-off" scripts/deploy/job.sql "$HOME_DIR/log/off.out" || exit 1
    check_run "$HOME_DIR/log/off.out" "$HOME_DIR/log/sql-client.log" stock

    if [ "$line" = flink-2 ] && [ "${DEPLOY_PYFLINK:-0}" = 1 ]; then
        echo "-- PyFlink: job.py unchanged, FLINK_HOME=$HOME_DIR"
        check_pyflink "$HOME_DIR" "$version"
    fi

    echo "-- a bridge built for another Flink version refuses"
    check_refusal "$HOME_DIR" "$version"
    echo "== $line: passed"
}

start_time=$SECONDS
for l in "${LINES[@]}"; do run_line "$l"; done
echo "deploy-test: ${LINES[*]} passed in $((SECONDS - start_time)) s"
