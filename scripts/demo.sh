#!/usr/bin/env bash
# The main job: `sluice demo` over 2M generated rows, each kernel beside its
# naive reference, measured in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
ensure_rust
cargo run --release --locked -p sluice-benches --bin sluice -- demo "$@"
