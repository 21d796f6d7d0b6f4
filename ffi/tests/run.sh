#!/usr/bin/env bash
# The whole C-ABI test suite of libsluice, in one command:
#
#   ffi/tests/run.sh [--debug] [--no-cargo-test]
#
# 1. Rust tests of the crate (panic boundary, last_error, header drift);
#    --no-cargo-test skips them for a caller that has just run them
#    (scripts/test.sh runs `cargo test --workspace` first, and a second
#    `cargo test -p sluice-ffi` would rebuild the crate chain with the
#    features of sluice-ffi alone only to run the same tests again).
# 2. Builds libsluice.so + libsluice.a (release unless --debug), with the
#    default features (mimalloc as the global allocator).
# 3. Compiles each C test program (ffi/tests/c/test_*.c) with
#    gcc -Wall -Wextra -Werror against include/sluice.h, links it once against the .so and once
#    against the .a, runs both.
# 4. Runs the suite under valgrind (--leak-check=full, definite leaks and
#    errors fail) against a build with the system allocator: mimalloc takes
#    memory with mmap and manages it itself, so valgrind could not see a
#    leaked Rust allocation in the mimalloc build.
# 5. Runs the suite built with -fsanitize=address,undefined (ASan + UBSan,
#    LeakSanitizer on) against the same system-allocator build: gcc links
#    libasan into the program, so no LD_PRELOAD is needed, and ASan's malloc
#    interposer sees every allocation the (uninstrumented) Rust library makes
#    through the system allocator, so a leaked Rust allocation is reported too.
# 6. Runs the pyarrow client (ffi/tests/python, pytest), installing pyarrow
#    and pytest with pip if they are missing.
#
# Honours CARGO_TARGET_DIR. Exits non-zero on the first failure.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
FFI="$(dirname "$HERE")"
ROOT="$(dirname "$FFI")"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
PROFILE=release
CARGO_PROFILE=(--release)
CARGO_TEST=1
for arg in "$@"; do
  case "$arg" in
    --debug) PROFILE=debug; CARGO_PROFILE=() ;;
    --no-cargo-test) CARGO_TEST=0 ;;
    *) echo "usage: ffi/tests/run.sh [--debug] [--no-cargo-test]" >&2; exit 2 ;;
  esac
done
OUT="$TARGET_DIR/ffi-tests/$PROFILE"
mkdir -p "$OUT/mimalloc" "$OUT/system"
cd "$ROOT"

step() { printf '\n=== %s\n' "$*"; }

if [[ "$CARGO_TEST" == 1 ]]; then
  step "cargo test -p sluice-ffi"
  cargo test -p sluice-ffi --quiet
fi

# The release build is the one the jar ships (scripts/env.sh
# stage_jar_library: cargo-zigbuild against glibc $JAR_GLIBC), so the C suite
# tests what users get and scripts/java.sh finds it built (one release build
# of the crate graph fewer on CI).
if [[ "$PROFILE" == release && "$(uname -m)" == x86_64 ]]; then
  step "build libsluice (release, mimalloc, glibc baseline of the jar)"
  # shellcheck source=../../scripts/env.sh
  . "$ROOT/scripts/env.sh"
  ensure_zigbuild
  triple=x86_64-unknown-linux-gnu
  cargo zigbuild --locked --release -p sluice-ffi --target "$triple.$JAR_GLIBC" --quiet
  cp "$TARGET_DIR/$triple/release/libsluice.so" "$TARGET_DIR/$triple/release/libsluice.a" "$OUT/mimalloc/"
else
  step "build libsluice ($PROFILE, mimalloc)"
  cargo build -p sluice-ffi "${CARGO_PROFILE[@]}" --quiet
  cp "$TARGET_DIR/$PROFILE/libsluice.so" "$TARGET_DIR/$PROFILE/libsluice.a" "$OUT/mimalloc/"
fi

step "build libsluice ($PROFILE, system allocator, for valgrind)"
cargo build -p sluice-ffi "${CARGO_PROFILE[@]}" --no-default-features --quiet
cp "$TARGET_DIR/$PROFILE/libsluice.so" "$OUT/system/"

CFLAGS=(-std=c11 -O1 -g -Wall -Wextra -Werror -I"$FFI/include" -I"$HERE/c")
# What a static Rust library needs from the system (cargo rustc
# --print native-static-libs on x86_64 Linux).
STATIC_LIBS=(-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc)

step "header: C99 -pedantic, C++11, next to another ARROW_C_DATA_INTERFACE definition"
gcc -std=c99 -pedantic "${CFLAGS[@]:1}" -fsyntax-only "$HERE/c/header_coexists.c"
g++ -std=c++11 -pedantic -Wall -Wextra -Werror -I"$FFI/include" -x c++ -fsyntax-only "$HERE/c/header_coexists.c"

# One program per C concept: argument import and the error contract
# (test_import), digests, CONCAT, UTF-16 encoding, search functions, rows and
# key groups (test_digest, test_concat, test_encode, test_search, test_rows),
# and the keyed-operator, join and row-converter handles (test_keyed; the
# operators that fire on a clock, OVER and window, in test_over_window;
# test_join, test_row_converter).
PROGRAMS=(test_import test_digest test_concat test_encode test_search test_rows test_keyed test_over_window
  test_join test_row_converter)

# ASan + UBSan; a UB report is an error, not a warning.
SANITIZE=(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:exitcode=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

step "gcc: ${PROGRAMS[*]} against libsluice.so and libsluice.a"
for prog in "${PROGRAMS[@]}"; do
  gcc "${CFLAGS[@]}" "$HERE/c/$prog.c" -L"$OUT/mimalloc" -lsluice -Wl,-rpath,"$OUT/mimalloc" \
    -o "$OUT/${prog}_shared"
  gcc "${CFLAGS[@]}" "$HERE/c/$prog.c" "$OUT/mimalloc/libsluice.a" "${STATIC_LIBS[@]}" \
    -o "$OUT/${prog}_static"
  gcc "${CFLAGS[@]}" "$HERE/c/$prog.c" -L"$OUT/system" -lsluice -Wl,-rpath,"$OUT/system" \
    -o "$OUT/${prog}_valgrind"
  gcc "${CFLAGS[@]}" "${SANITIZE[@]}" "$HERE/c/$prog.c" -L"$OUT/system" -lsluice -Wl,-rpath,"$OUT/system" \
    -o "$OUT/${prog}_asan"
done
gcc "${CFLAGS[@]}" "${SANITIZE[@]}" "$HERE/c/asan_canary.c" -L"$OUT/system" -lsluice -Wl,-rpath,"$OUT/system" \
  -o "$OUT/asan_canary"
gcc -std=c11 -O2 -Wall -Wextra -Werror -I"$FFI/include" "$HERE/c/bench_call.c" -L"$OUT/mimalloc" -lsluice \
  -Wl,-rpath,"$OUT/mimalloc" -o "$OUT/bench_call"

step "asan canary: a keyed handle leaked on purpose must fail the sanitized run"
if "$OUT/asan_canary" >"$OUT/asan_canary.log" 2>&1; then
  echo "asan_canary exited 0: LeakSanitizer did not see the leaked Rust allocation" >&2
  exit 1
fi
grep -q "ERROR: LeakSanitizer: detected memory leaks" "$OUT/asan_canary.log" || {
  cat "$OUT/asan_canary.log" >&2
  exit 1
}
echo "asan canary: leak reported, as it must be"

for prog in "${PROGRAMS[@]}"; do
  step "run: $prog shared"
  "$OUT/${prog}_shared"
  step "run: $prog static"
  "$OUT/${prog}_static"
  step "run: $prog valgrind (shared, system allocator)"
  valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite --quiet \
    "$OUT/${prog}_valgrind"
  step "run: $prog asan+ubsan (shared, system allocator)"
  "$OUT/${prog}_asan"
done

step "pyarrow client"
if ! python3 -c 'import pyarrow, pytest' 2>/dev/null; then
  python3 -m pip install --quiet pyarrow pytest
fi
SLUICE_LIB="$OUT/mimalloc/libsluice.so" python3 -m pytest -q "$HERE/python"

step "all ffi tests passed"
