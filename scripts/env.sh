# Shared set-up for scripts/*.sh: one target dir for everything (arrow is
# built once per profile), and installers for what a fresh machine lacks.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

ensure_rust() {
    if ! command -v cargo >/dev/null 2>&1; then
        if [ -x "$HOME/.cargo/bin/cargo" ]; then
            export PATH="$HOME/.cargo/bin:$PATH"
        else
            echo "cargo not found: install Rust (rustup) first" >&2
            exit 1
        fi
    fi
}

ensure_python_pkg() { # module pip-spec
    if ! python3 -c "import $1" >/dev/null 2>&1; then
        python3 -m pip install --quiet --disable-pip-version-check "$2"
    fi
}
