//! The checked-in `include/sluice.h` must be exactly what the pinned
//! cbindgen (0.29.4, see Cargo.toml) generates from `src/` with
//! `cbindgen.toml`: any change to an exported signature, type or doc comment
//! without regenerating the header fails here.
//!
//! Regenerate with `SLUICE_BLESS=1 cargo test -p sluice-ffi --test header`.

use std::path::PathBuf;

#[test]
fn header_matches_the_rust_exports() {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml parses");
    let bindings = cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let generated = String::from_utf8(generated).expect("header is UTF-8");

    let path = crate_dir.join("include/sluice.h");
    if std::env::var_os("SLUICE_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write include/sluice.h");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != generated {
        let first = committed
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| committed.lines().count().min(generated.lines().count()));
        panic!(
            "include/sluice.h has drifted from the Rust exports (first difference at line {}):\n  committed: {:?}\n  generated: {:?}\nRun `SLUICE_BLESS=1 cargo test -p sluice-ffi --test header` and commit the header.",
            first + 1,
            committed.lines().nth(first),
            generated.lines().nth(first)
        );
    }
}

/// Every function the header declares is exported by the Rust library under
/// the same name (a second, independent check on the names: cbindgen reads
/// `#[no_mangle]` items, this reads the header text).
#[test]
fn header_declares_the_contract_symbols() {
    assert_declares(&[
        "struct sluice_buffer { uint8_t *ptr; int64_t len; int64_t cap; };",
        "const char *sluice_version(void);",
        "const char *sluice_last_error(void);",
        "int32_t sluice_md5(struct ArrowArray *in, const struct ArrowSchema *in_schema, struct ArrowArray *out, struct ArrowSchema *out_schema);",
        "int32_t sluice_sha1(struct ArrowArray *in, const struct ArrowSchema *in_schema, struct ArrowArray *out, struct ArrowSchema *out_schema);",
        "int32_t sluice_sha2(struct ArrowArray *in, const struct ArrowSchema *in_schema, struct ArrowArray *widths, const struct ArrowSchema *widths_schema, struct ArrowArray *out, struct ArrowSchema *out_schema);",
        "int32_t sluice_concat(int32_t n, struct ArrowArray **ins, const struct ArrowSchema **in_schemas, struct ArrowArray *out, struct ArrowSchema *out_schema);",
        "int32_t sluice_concat_ws(struct ArrowArray *sep, const struct ArrowSchema *sep_schema, int32_t n, struct ArrowArray **ins, const struct ArrowSchema **in_schemas, struct ArrowArray *out, struct ArrowSchema *out_schema);",
        "int32_t sluice_utf16_to_utf8(const uint16_t *units, const int64_t *offsets, const uint8_t *validity, int64_t n_rows, struct ArrowArray *out, struct ArrowSchema *out_schema);",
        "int32_t sluice_rows_to_arrow(const uint8_t *data, const int64_t *offsets, int64_t n_rows, const struct ArrowSchema *schema, struct ArrowArray *out, struct ArrowSchema *out_schema, int8_t *out_row_kinds);",
        "int32_t sluice_arrow_to_rows(struct ArrowArray *batch, const struct ArrowSchema *schema, const int8_t *row_kinds, struct sluice_buffer *out_data, struct sluice_buffer *out_offsets);",
        "void sluice_buffer_free(struct sluice_buffer *buf);",
        "int32_t sluice_key_groups(struct ArrowArray *batch, const struct ArrowSchema *schema, const int32_t *key_columns, int32_t n_key_columns, int32_t max_parallelism, int32_t parallelism, int32_t *out_key_groups, int32_t *out_channels);",
        "#ifndef ARROW_C_DATA_INTERFACE",
    ]);
}

/// The handle APIs (keyed operators, row converter) keep these exact
/// declarations: bindings (JNI, ctypes) link them by name.
#[test]
fn header_declares_the_handle_symbols() {
    assert_declares(&[
        "struct sluice_keyed;",
        "int32_t sluice_keyed_create(const char *spec, const struct ArrowSchema *schema, struct sluice_keyed **out);",
        "void sluice_keyed_free(struct sluice_keyed *h);",
        "int32_t sluice_keyed_push(struct sluice_keyed *h, struct ArrowArray *batch, const struct ArrowSchema *schema, const int8_t *row_kinds, struct ArrowArray *out, struct ArrowSchema *out_schema, struct sluice_buffer *out_row_kinds);",
        "int32_t sluice_keyed_advance_watermark(struct sluice_keyed *h, int64_t watermark, struct ArrowArray *out, struct ArrowSchema *out_schema, struct sluice_buffer *out_row_kinds);",
        "int32_t sluice_keyed_advance_processing_time(struct sluice_keyed *h, int64_t now, struct ArrowArray *out, struct ArrowSchema *out_schema, struct sluice_buffer *out_row_kinds);",
        "int32_t sluice_keyed_snapshot(struct sluice_keyed *h, int32_t first_key_group, int32_t last_key_group, struct sluice_buffer *out);",
        "int32_t sluice_keyed_snapshot_key_groups(struct sluice_keyed *h, int32_t first_key_group, int32_t last_key_group, struct sluice_buffer *out_data, struct sluice_buffer *out_offsets);",
        "int32_t sluice_keyed_restore(struct sluice_keyed *h, const uint8_t *bytes, int64_t len, int32_t first_key_group, int32_t last_key_group);",
        "int32_t sluice_keyed_state_size(struct sluice_keyed *h, int64_t *out_bytes, int64_t *out_keys);",
        "struct sluice_join;",
        "int32_t sluice_join_create(const char *spec, const struct ArrowSchema *left_schema, const struct ArrowSchema *right_schema, struct sluice_join **out);",
        "void sluice_join_free(struct sluice_join *h);",
        "int32_t sluice_join_push(struct sluice_join *h, int32_t side, struct ArrowArray *batch, const struct ArrowSchema *schema, const int8_t *row_kinds, struct ArrowArray *out, struct ArrowSchema *out_schema, struct sluice_buffer *out_row_kinds);",
        "int32_t sluice_join_snapshot(struct sluice_join *h, int32_t first_key_group, int32_t last_key_group, struct sluice_buffer *out);",
        "int32_t sluice_join_snapshot_key_groups(struct sluice_join *h, int32_t first_key_group, int32_t last_key_group, struct sluice_buffer *out_data, struct sluice_buffer *out_offsets);",
        "int32_t sluice_join_restore(struct sluice_join *h, const uint8_t *bytes, int64_t len, int32_t first_key_group, int32_t last_key_group);",
        "int32_t sluice_join_state_size(struct sluice_join *h, int64_t *out_bytes, int64_t *out_left_keys, int64_t *out_right_keys);",
        "struct sluice_row_converter;",
        "int32_t sluice_row_converter_create(const struct ArrowSchema *schema, struct sluice_row_converter **out);",
        "void sluice_row_converter_free(struct sluice_row_converter *c);",
        "int32_t sluice_row_converter_rows_to_arrow(struct sluice_row_converter *c, const uint8_t *data, const int64_t *offsets, int64_t n_rows, struct ArrowArray *out, struct ArrowSchema *out_schema, int8_t *out_row_kinds);",
        "int32_t sluice_row_converter_arrow_to_rows(struct sluice_row_converter *c, struct ArrowArray *batch, const int8_t *row_kinds, struct sluice_buffer *out_data, struct sluice_buffer *out_offsets);",
        "SLUICE_ERR_STATE_BUDGET = 11,",
        "SLUICE_ERR_CORRUPT_SNAPSHOT = 12,",
    ]);
}

/// Asserts that `include/sluice.h` holds each of `decls` (compared with
/// comments stripped and whitespace collapsed).
fn assert_declares(decls: &[&str]) {
    let header = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("include/sluice.h")).unwrap();
    let flat: String = strip_comments(&header).split_whitespace().collect::<Vec<_>>().join(" ");
    for decl in decls {
        let want: String = decl.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(&want), "include/sluice.h lacks `{decl}`");
    }
}

/// The header without `/* */` and `//` comments.
fn strip_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut rest = src;
    while let Some(i) = rest.find("/*") {
        out.push_str(&rest[..i]);
        rest = rest[i..].find("*/").map_or("", |j| &rest[i + j + 2..]);
    }
    out.push_str(rest);
    out.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}
