#!/usr/bin/env bash
# Deployment as a user does it (java/README.md, "Deploying: lib/ and PyFlink"): the lib/ of a real
# Flink distribution (PyPI's apache-flink-libraries wheel carries it) plus sluice's two jars (the
# bridge java/bridge and sluice-flink), and an unchanged SQL script (scripts/deploy/job.sql).
#
#   scripts/deploy-test.sh [flink-2] [flink-1.20]      (default: flink-2)
#
# flink-2 (Flink 2.3.0) runs job.sql through Flink's SQL client (execution.target: local, so the
# jobs run in the client's own cluster), with lib/ in name order as Flink's bin/ scripts put it:
# sluice's nodes in the plan (EXPLAIN) and its operators in both INSERT jobs (the client's log);
# `sluice.enabled: false` in config.yaml gives Flink's plan and operators back; the bridge jar
# last on the class path gives Flink's plan plus the bridge's warning, and the same order with the
# bridge as a Java agent gives sluice's again. Then PyFlink (`pip install apache-flink==2.3.0`):
# the unchanged scripts/deploy/job.py with FLINK_HOME at the distribution and the agent in
# env.java.opts.all gets sluice's nodes and operators.
#
# flink-1.20 (Flink 1.20.4): the SQL client needs opt/flink-sql-gateway-1.20.4.jar, which neither
# the 1.20.4 wheel nor Maven Central (it has 1.20.3) serves, so job.sql runs through PyFlink
# 1.20.4's execute_sql (scripts/deploy/run_sql.py) with the agent, with the same assertions.
#
# Both lines end with a bridge built for another Flink version, which must refuse.
#
# Expects libsluice staged in java/target/native (scripts/java.sh or stage_jar_library in
# scripts/env.sh do it). Downloads go to target-deploy/ (the distributions, ~0.3 GB each; a
# PyFlink venv per version, ~0.8 GB each). The wheel has no bin/ scripts and no
# opt/flink-sql-gateway jar (fetched from Maven Central), so the client is started as
# bin/sql-client.sh starts it: java with lib/ on the class path in name order, flink-dist last.
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

# lib/ as Flink's bin/config.sh puts it on the class path: name order, flink-dist last. With
# bridge-last, the bridge jar goes after every other jar, as PyFlink's gateway may list it
# (directory order), so Flink's own PlannerModule comes first.
class_path() { # home [bridge-last]
    local cp="" j bridge
    bridge=$(ls "$1"/lib/flink-sluice-bridge-*.jar)
    while IFS= read -r j; do
        [ "${2:-}" = bridge-last ] && [ "$j" = "$bridge" ] && continue
        cp="$cp$j:"
    done < <(find "$1/lib" -name '*.jar' ! -name 'flink-dist*' | LC_ALL=C sort)
    cp="$cp$(ls "$1"/lib/flink-dist*.jar)"
    [ "${2:-}" != bridge-last ] || cp="$cp:$bridge"
    echo "$cp"
}

# Runs the SQL client; ORDER=bridge-last changes the class path order (class_path) and
# JAVA_OPTS_ALL adds JVM options, as bin/config.sh adds env.java.opts.all.
sql_client() { # home conf-dir script out
    local cp
    # as bin/sql-client.sh: the client's jar, the gateway's and flink-python (its option parser
    # needs it) from opt/
    cp="$(class_path "$1" "${ORDER:-}"):$(ls "$1"/opt/flink-sql-client-*.jar):$(ls "$1"/opt/flink-python-*.jar)"
    cp="$cp:$(ls "$WORK"/maven/flink-sql-gateway-"$FLINK_VERSION".jar)"
    # shellcheck disable=SC2086
    FLINK_CONF_DIR="$2" nice java $OPENS ${JAVA_OPTS_ALL:-} -Dlog.file="$1/log/client.log" \
        -Dlog4j.configurationFile="file:$1/conf/log4j.properties" \
        -cp "$cp" org.apache.flink.table.client.SqlClient -f "$3" >"$4" 2>&1 \
        || { cat "$4" >&2; echo "the SQL client failed (output above)" >&2; return 1; }
}

# Checks one run of job.sql (or job.py): the EXPLAIN output (sluice's plan nodes, SluiceCalc and
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
            grep -Eq "(^|\+- )$node\(" "$out" || fail "EXPLAIN shows no $node ($out)"
        done
        for node in SluiceCalcExecNode SluiceKeyedExecNode; do
            grep -q "$node" <<<"$tasks" || fail "no task running $node finished ($log)"
        done
    else
        ! grep -Eq "(^|\+- )Sluice" "$out" || fail "sluice.enabled: false, yet EXPLAIN shows a sluice node ($out)"
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
    if "$RUNNER" "$home" "$home/conf" scripts/deploy/job.sql "$home/log/refused.out" 2>/dev/null; then
        mv "$tmp/kept.jar" "$jar"
        fail "a bridge built for Flink $other ran on Flink $2"
    fi
    mv "$tmp/kept.jar" "$jar"
    rm -rf "$tmp"
    grep -q "built and tested for Flink $other only, and this is Flink $2" "$home/log/refused.out" \
        || fail "the bridge built for Flink $other did not refuse Flink $2 with its message ($home/log/refused.out)"
}

# `pip install apache-flink==$1` into its own venv (once); prints the venv's python.
ensure_pyflink() { # version
    local venv="$WORK/pyflink-$1"
    if ! "$venv/bin/python" -c 'import pyflink.table' 2>/dev/null; then
        python3 -m venv "$venv"
        nice "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "apache-flink==$1" >&2
    fi
    echo "$venv/bin/python"
}

# A copy of conf-dir $2 for PyFlink: the bridge as a Java agent in env.java.opts.all (with the
# --add-opens Flink needs), which PyFlink's gateway reads from config.yaml. The gateway lists
# lib/ in directory order (pyflink_gateway_server.py, construct_flink_classpath), so only the
# agent makes the bridge's PlannerModule the one loaded.
pyflink_conf() { # home conf-dir
    local conf="$2-pyflink"
    rm -rf "$conf"
    mkdir -p "$conf"
    cp "$2/log4j.properties" "$2/config.yaml" "$conf/"
    echo "env.java.opts.all: '-javaagent:$(ls "$1"/lib/flink-sluice-bridge-*.jar) $OPENS'" >>"$conf/config.yaml"
    echo "$conf"
}

# Runs `python $program [args]` of PyFlink $FLINK_VERSION with FLINK_HOME=$1 and conf-dir $2 (plus
# the agent); its output goes to $out, the gateway's log to $1/log/client.log.
pyflink() { # home conf-dir out program [args]
    local home=$1 conf out=$3 python logs rc=0
    python=$(ensure_pyflink "$FLINK_VERSION")
    conf=$(pyflink_conf "$home" "$2")
    logs=$(mktemp -d)
    FLINK_HOME="$home" FLINK_CONF_DIR="$conf" FLINK_LOG_DIR="$logs" LOG4J_PROPERTIES="$conf/log4j.properties" \
        nice "$python" "${@:4}" >"$out" 2>&1 || rc=$?
    cat "$logs"/*.log >"$home/log/client.log" 2>/dev/null || true
    rm -rf "$logs"
    [ $rc -eq 0 ] || { cat "$out" >&2; echo "the PyFlink program failed (output above)" >&2; return 1; }
}

# job.sql through PyFlink's execute_sql (scripts/deploy/run_sql.py), where the SQL client cannot run.
pyflink_sql() { # home conf-dir script out
    pyflink "$1" "$2" "$4" scripts/deploy/run_sql.py "$3"
}

# PyFlink's own program: the unchanged scripts/deploy/job.py must print plans with sluice's nodes
# and run both jobs on sluice's operators (the gateway's log).
check_pyflink() { # home
    local out="$1/log/pyflink.out"
    pyflink "$1" "$1/conf" "$out" scripts/deploy/job.py || exit 1
    grep -q "job.py: both jobs finished" "$out" || fail "the PyFlink jobs did not finish ($out)"
    check_run "$out" "$1/log/client.log" native
    grep -q "sluice: planner stage installed" "$1/log/client.log" \
        || fail "the PyFlink gateway's log has no line from sluice's planner factory ($1/log/client.log)"
}

# One run of job.sql with $RUNNER (sql_client, or pyflink_sql where the SQL client cannot run) in
# $HOME_DIR: output in log/<name>.out, the client's log in log/client-<name>.log.
run_sql() { # name conf-dir
    rm -f "$HOME_DIR/log/client.log"
    "$RUNNER" "$HOME_DIR" "$2" scripts/deploy/job.sql "$HOME_DIR/log/$1.out" || exit 1
    mv "$HOME_DIR/log/client.log" "$HOME_DIR/log/client-$1.log"
}

run_line() { # line
    local line=$1 version
    version=$(flink_version "$line")
    [ -n "$version" ] || fail "unknown Flink line $line"
    echo "== $line: Flink $version distribution + sluice jars in lib/"
    [ -f java/target/native/io/sluice/native/linux-x86_64/libsluice.so ] \
        || fail "libsluice is not staged in java/target/native (run scripts/java.sh or stage_jar_library first)"
    nice mvn -B -ntp -q -f java/pom.xml -P"$line" -DskipTests package
    nice mvn -B -ntp -q -f java/bridge/pom.xml -P"$line" package
    ensure_distribution "$version"
    FLINK_VERSION=$version
    HOME_DIR="$WORK/flink-$version"
    lay_out "$line" "$version" "$HOME_DIR"
    write_conf "$HOME_DIR/conf"
    if [ "$line" = flink-1.20 ]; then
        # no flink-sql-gateway 1.20.4 jar is served (see the header): PyFlink's execute_sql runs
        # job.sql instead, with the bridge as a Java agent
        RUNNER=pyflink_sql
        echo "-- (job.sql through PyFlink $version's execute_sql: the SQL client needs a gateway jar no one serves)"
    else
        RUNNER=sql_client
        ensure_sql_gateway "$version"
    fi

    echo "-- job.sql unchanged, sluice on (the default)"
    run_sql on "$HOME_DIR/conf"
    check_run "$HOME_DIR/log/on.out" "$HOME_DIR/log/client-on.log" native
    grep -q "sluice: planner stage installed" "$HOME_DIR/log/client-on.log" \
        || fail "the client's log has no line from sluice's planner factory"

    echo "-- job.sql unchanged, 'sluice.enabled: false' in config.yaml"
    mkdir -p "$HOME_DIR/conf-off"
    cp "$HOME_DIR/conf/log4j.properties" "$HOME_DIR/conf-off/"
    write_conf "$HOME_DIR/conf-off" "sluice.enabled: false"
    run_sql off "$HOME_DIR/conf-off"
    check_run "$HOME_DIR/log/off.out" "$HOME_DIR/log/client-off.log" stock

    if [ "$RUNNER" = sql_client ]; then
        echo "-- job.sql unchanged, the bridge last on the class path (as PyFlink's gateway may list lib/)"
        ORDER=bridge-last run_sql last "$HOME_DIR/conf"
        check_run "$HOME_DIR/log/last.out" "$HOME_DIR/log/client-last.log" stock
        grep -q "sluice bridge: Flink's own org.apache.flink.table.planner.loader.PlannerModule .* -javaagent:" \
            "$HOME_DIR/log/client-last.log" \
            || fail "Flink's PlannerModule won the class path, yet the bridge's warning is not in the log"

        echo "-- the same order with the bridge as a Java agent (-javaagent in env.java.opts.all)"
        ORDER=bridge-last JAVA_OPTS_ALL="-javaagent:$(ls "$HOME_DIR"/lib/flink-sluice-bridge-*.jar)" \
            run_sql agent "$HOME_DIR/conf"
        check_run "$HOME_DIR/log/agent.out" "$HOME_DIR/log/client-agent.log" native

        echo "-- PyFlink $version: job.py unchanged, the bridge as a Java agent in env.java.opts.all"
        check_pyflink "$HOME_DIR"
    fi

    echo "-- a bridge built for another Flink version refuses"
    check_refusal "$HOME_DIR" "$version"
    echo "== $line: passed"
}

start_time=$SECONDS
for l in "${LINES[@]}"; do run_line "$l"; done
echo "deploy-test: ${LINES[*]} passed in $((SECONDS - start_time)) s"
