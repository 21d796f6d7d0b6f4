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

# cargo-zigbuild with zig as the linker (both from PyPI): builds the jar's
# libsluice against an old glibc on any build machine.
ensure_zigbuild() {
    ensure_python_pkg ziglang ziglang
    if ! command -v cargo-zigbuild >/dev/null 2>&1; then
        python3 -m pip install --quiet --disable-pip-version-check cargo-zigbuild
    fi
}

# The glibc the jar's libsluice is built against: CentOS 7 and Amazon Linux 2
# ship 2.17, the oldest in wide use (and Rust's own minimum).
JAR_GLIBC=2.17

# Fails unless every GLIBC_x.y symbol version the ELF file $1 needs is at most $2.
check_glibc() { # file max-version
    local versions newest v
    versions=$(objdump -T "$1" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/^GLIBC_//' | sort -uV)
    if [ -z "$versions" ]; then
        echo "check_glibc: $1 has no GLIBC symbol versions (objdump -T): not a glibc-linked library?" >&2
        return 1
    fi
    newest=$(printf '%s\n' "$versions" | tail -n1)
    if [ "$(printf '%s\n%s\n' "$newest" "$2" | sort -V | tail -n1)" != "$2" ]; then
        echo "check_glibc: $1 needs GLIBC_$newest, newer than GLIBC_$2; symbols above the limit:" >&2
        for v in $versions; do
            if [ "$(printf '%s\n%s\n' "$v" "$2" | sort -V | tail -n1)" != "$2" ]; then
                objdump -T "$1" | grep -E "GLIBC_${v//./\\.}([^0-9.]|$)" >&2 || true
            fi
        done
        return 1
    fi
    echo "glibc check: $1 needs at most GLIBC_$newest (limit GLIBC_$2)"
}

# Builds the libsluice the jar ships (release, JNI) against glibc $JAR_GLIBC,
# strips its debug info into java/target/libsluice.so.debug (the separate
# debug-symbols artifact, linked by .gnu_debuglink), checks its glibc symbol
# versions and stages it, with the libsluice.properties the loader reads, in
# java/target/native/ for the jar.
stage_jar_library() {
    local triple=x86_64-unknown-linux-gnu
    local built="$CARGO_TARGET_DIR/$triple/release/libsluice.so"
    local dir=java/target/native/io/sluice/native/linux-x86_64
    local cargo_version pom_version
    cargo_version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
    pom_version=$(sed -n '0,/<artifactId>sluice-flink<\/artifactId>/d; s:.*<version>\(.*\)</version>.*:\1:p' java/pom.xml | head -n1)
    if [ "$cargo_version" != "$pom_version" ]; then
        echo "version mismatch: Cargo.toml says $cargo_version, java/pom.xml says $pom_version (the loader refuses a library of another version)" >&2
        return 1
    fi
    ensure_zigbuild
    cargo zigbuild --locked --release -p sluice-ffi --target "$triple.$JAR_GLIBC" --quiet
    mkdir -p "$dir"
    objcopy --only-keep-debug "$built" java/target/libsluice.so.debug
    objcopy --strip-debug --add-gnu-debuglink=java/target/libsluice.so.debug "$built" "$dir/libsluice.so"
    check_glibc "$dir/libsluice.so" "$JAR_GLIBC"
    printf '# written by scripts/env.sh stage_jar_library\nglibc=%s\n' "$JAR_GLIBC" >"$dir/libsluice.properties"
    echo "staged $dir/libsluice.so ($(du -h "$dir/libsluice.so" | cut -f1), debug symbols in java/target/libsluice.so.debug)"
}

# Builds libsluice as the jar ships it and stages it where java/'s jar
# bundles it (java/target/native/io/sluice/native/<os>-<arch>/): the tests,
# the example and the benchmarks all run the shipped build.
stage_libsluice() {
    stage_jar_library
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
