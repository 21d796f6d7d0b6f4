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

# Builds libsluice (release, with the JNI entry points) and stages it where
# java/'s jar bundles it (java/target/native/io/sluice/native/<os>-<arch>/).
stage_libsluice() {
    cargo build --locked --release -p sluice-ffi --quiet
    local dir="java/target/native/io/sluice/native/linux-x86_64"
    mkdir -p "$dir"
    cp "$CARGO_TARGET_DIR/release/libsluice.so" "$dir/libsluice.so"
}

# Compiles java/'s test classes for Flink line $1 (MVN_ARGS passed on) and
# sets JAVA_TEST_CP (their classpath, Flink included) and JAVA_OPENS (the
# --add-opens list Flink needs on JDK 17, from java/pom.xml).
java_test_classpath() {
    # shellcheck disable=SC2086
    mvn -B -ntp -q -f java/pom.xml -P"$1" ${MVN_ARGS:-} test-compile dependency:build-classpath \
        -Dmdep.outputFile=target/test.classpath -Dmdep.includeScope=test
    JAVA_TEST_CP="java/target/classes:java/target/test-classes:$(cat java/target/test.classpath)"
    JAVA_OPENS=$(sed -n 's:.*<flink.jvm.opens>\(.*\)</flink.jvm.opens>.*:\1:p' java/pom.xml)
}
