#!/usr/bin/env bash
# Every test of the project, in the order the crates build on each other.
# This is the README's test command and what CI (.ci/run) runs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
ensure_rust

# Each step's wall time is printed when the next one starts, and all of them
# at the end, so a CI log shows where its minutes go.
started=$SECONDS
last=""
last_at=$SECONDS
times=()
step() {
    if [ -n "$last" ]; then
        times+=("$(printf '%5d s  %s' $((SECONDS - last_at)) "$last")")
    fi
    last="$*"
    last_at=$SECONDS
    printf '\n=== %s\n' "$*"
}

step "Rust: format (rustfmt.toml)"
cargo fmt --all --check
(cd fuzz && cargo fmt --all --check)

step "Rust: lints (clippy, warnings denied) and docs (rustdoc, warnings denied)"
cargo clippy --locked --workspace --all-targets -- -D warnings
# --lib: the demo binary and libsluice share the name `sluice`.
RUSTDOCFLAGS="-D warnings" cargo doc --locked --workspace --no-deps --lib

step "Rust: unit, property and integration tests of every workspace crate"
cargo test --locked --workspace

if [ -x ffi/tests/run.sh ]; then
    step "C ABI: C tests (shared + static, valgrind) and the pyarrow client"
    # The crate's Rust tests ran in the workspace step above.
    ffi/tests/run.sh --no-cargo-test
fi

if [ -x fuzz/run.sh ]; then
    step "Fuzz: build every target, run each for a bounded count"
    fuzz/run.sh smoke
fi

if [ -f java/pom.xml ]; then
    step "Java: the JNI wrapper and the Flink jar on both Flink lines (MiniCluster)"
    scripts/java.sh
fi

if [ -x scripts/deploy-test.sh ] && [ "${DEPLOY:-1}" != 0 ]; then
    step "Deployment: sluice's jars in a Flink 2.x distribution's lib/, unchanged SQL through the SQL client and PyFlink"
    # Uses the libsluice scripts/java.sh staged; DEPLOY=0 skips it.
    scripts/deploy-test.sh flink-2
fi

step "all test steps passed"
printf '%s\n' "${times[@]}"
printf '%5d s  in all\n' $((SECONDS - started))
