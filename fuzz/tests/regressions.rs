//! Inputs the fuzzers found, kept as plain tests (`cargo test --manifest-path
//! fuzz/Cargo.toml`). Each is named after what it found; the same inputs are
//! also replayed by `fuzz/run.sh smoke` as `corpus/<target>/seed-crash-*`.

use sluice_fuzz::search;
use sluice_fuzz::text::{Form, IntArg, StrArg, Text};

fn scalar(values: Vec<Option<Text>>) -> StrArg {
    StrArg {
        values,
        form: Form::Scalar,
    }
}

fn no_int() -> IntArg {
    IntArg {
        values: vec![],
        column: false,
    }
}

/// `NULL LIKE 'a' ESCAPE 'a'`: the literal pattern has a bad escape but no
/// row is evaluated. `LikePattern::new` rejects it; `like` returns NULL
/// without compiling it. The check first demanded an error here, which Flink
/// does not pin down for an all-NULL input (it fails at start-up when the
/// literal is compiled), so the check now accepts either and still requires
/// the error from `LikePattern::new` and from any evaluated row.
#[test]
fn like_bad_literal_escape_with_null_input() {
    let input = search::Input {
        rows: 237,
        s: scalar(vec![]),
        needle: scalar(vec![Some(Text(vec![0]))]), // "a"
        new: scalar(vec![]),
        int: no_int(),
        nth: no_int(),
        escape: 128, // 128 % 5 == 3: 'a'
        with_from: false,
    };
    search::check(&input);
}
