#!/usr/bin/env bash
# Fuzzing of sluice on stable Rust (see fuzz/README.md for why these flags).
#
#   fuzz/run.sh smoke                 build every target, run each briefly (CI)
#   fuzz/run.sh long <target> [secs]  one target under AddressSanitizer, 30 min default
#   fuzz/run.sh list                  the targets
#
# Installs cargo-fuzz (pinned) when missing; idempotent. Exits non-zero on
# any crash, leak, timeout or build failure; a crash input is written to
# fuzz/artifacts/<target>/ and its reproduction command is printed.
#
# Environment:
#   CARGO_TARGET_DIR   builds go to $CARGO_TARGET_DIR/fuzz-<sanitizer> (default target/)
#   SMOKE_RUNS         executions per target in smoke (default 100000)
#   SMOKE_SECONDS      time cap per target in smoke (default 10)
#   FUZZ_SANITIZER     sanitizer for `long`: address (default) or none
#   CARGO_BUILD_JOBS   cargo's own build parallelism, as usual
set -euo pipefail

CARGO_FUZZ_VERSION=0.13.2

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cd "$here"

if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

ensure_cargo_fuzz() {
    local have
    have="$(cargo fuzz --version 2>/dev/null || true)"
    if [ "$have" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]; then
        echo "installing cargo-fuzz $CARGO_FUZZ_VERSION (found: ${have:-none})"
        cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked --force
    fi
}

# Sets target_dir and fuzz_flags for sanitizer $1, and RUSTC_BOOTSTRAP where
# AddressSanitizer needs it (its `-Zsanitizer` flag is not stable in 1.95).
setup_sanitizer() {
    local san="$1"
    target_dir="${CARGO_TARGET_DIR:-$root/target}/fuzz-$san"
    fuzz_flags=(--sanitizer "$san" --target-dir "$target_dir")
    case "$san" in
        none) ;;
        address)
            if ! rustc --version | grep -q -- '-nightly'; then
                export RUSTC_BOOTSTRAP=1
            fi
            ;;
        *) echo "unsupported sanitizer: $san (address or none)" >&2; exit 2 ;;
    esac
}

targets() {
    cargo fuzz list
}

# run_target <target> <seconds> <runs> -- libFuzzer's exit status; new corpus
# entries go to a scratch dir for smoke (the committed seeds stay as they are).
run_target() {
    local t="$1" secs="$2" runs="$3" corpus="$4" log="$5"
    mkdir -p "$corpus" "$here/corpus/$t" "$here/artifacts/$t"
    local dirs=("$corpus")
    if [ "$corpus" != "$here/corpus/$t" ]; then
        dirs+=("$here/corpus/$t")
    fi
    local status=0
    cargo fuzz run "${fuzz_flags[@]}" "$t" "${dirs[@]}" -- \
        -max_total_time="$secs" -runs="$runs" -timeout=20 -rss_limit_mb=4096 \
        -max_len=8192 -print_final_stats=1 \
        -artifact_prefix="$here/artifacts/$t/" >"$log" 2>&1 || status=$?
    local done_line
    done_line="$(grep -E '^(Done [0-9]+ runs|stat::number_of_executed_units)' "$log" | tail -n 1 || true)"
    printf '%-22s %s\n' "$t" "${done_line:-no completion line}"
    if [ "$status" -ne 0 ]; then
        cp "$log" "$here/artifacts/$t/failure.log"
        echo "--- $t FAILED (exit $status); full log: fuzz/artifacts/$t/failure.log" >&2
        grep -E -A4 'panicked at|ERROR: AddressSanitizer|ERROR: libFuzzer|SUMMARY:' "$log" | head -n 40 >&2 || true
        echo "..." >&2
        tail -n 30 "$log" >&2
        return "$status"
    fi
}

cmd="${1:-smoke}"
case "$cmd" in
    list)
        ensure_cargo_fuzz
        targets
        ;;
    smoke)
        ensure_cargo_fuzz
        setup_sanitizer none
        secs="${SMOKE_SECONDS:-10}"
        runs="${SMOKE_RUNS:-100000}"
        echo "building every fuzz target (sanitizer none, into $target_dir)"
        cargo fuzz build "${fuzz_flags[@]}"
        scratch="$(mktemp -d)"
        trap 'rm -rf "$scratch"' EXIT
        failed=()
        for t in $(targets); do
            run_target "$t" "$secs" "$runs" "$scratch/$t" "$scratch/$t.log" || failed+=("$t")
        done
        if [ "${#failed[@]}" -ne 0 ]; then
            echo "fuzz smoke FAILED: ${failed[*]} (inputs in fuzz/artifacts/)" >&2
            exit 1
        fi
        echo "fuzz smoke passed: $(targets | wc -l) targets"
        ;;
    long)
        t="${2:?usage: fuzz/run.sh long <target> [seconds]}"
        secs="${3:-1800}"
        ensure_cargo_fuzz
        setup_sanitizer "${FUZZ_SANITIZER:-address}"
        mkdir -p "$target_dir/logs"
        log="$target_dir/logs/$t.log"
        echo "fuzzing $t for ${secs}s (sanitizer ${FUZZ_SANITIZER:-address}); log: $log"
        cargo fuzz build "${fuzz_flags[@]}" "$t"
        # The corpus persists in fuzz/corpus/<t>/ (git ignores all but seed-*).
        run_target "$t" "$secs" -1 "$here/corpus/$t" "$log"
        ;;
    *)
        echo "usage: fuzz/run.sh smoke | long <target> [seconds] | list" >&2
        exit 2
        ;;
esac
