//! `sluice_kernels::input`: the layer every kernel reads its rows through.
//!
//! Reference: arrow's own `value(i)` accessors on the same array. Checks that
//! `with_byte_column!` accepts exactly the byte layouts, that `bytes(i)` is
//! the row's value for every valid row of a sliced array (whatever bytes sit
//! under NULL rows), and that `value_bytes_hint` bounds the bytes the rows
//! span (kernels size their output from it once per batch).

use arrow_array::Array as _;
use sluice_kernels::input::ByteColumn as _;

use crate::arrays::{value_bytes, ByteColumn};

/// Runs the check on one input; panics on a mismatch.
pub fn check(input: &ByteColumn) {
    let array = input.array();
    let expected = input.expected();
    assert_eq!(array.len(), expected.len());
    for (i, e) in expected.iter().enumerate() {
        assert_eq!(value_bytes(array.as_ref(), i), e.as_deref(), "reference builder, row {i}");
    }
    let seen = read(array.as_ref(), true).expect("every byte layout is accepted with binary");
    let spanned: usize = expected.iter().map(|e| e.as_ref().map_or(0, Vec::len)).sum();
    assert!(seen.hint >= spanned, "value_bytes_hint {} < {} bytes of valid rows", seen.hint, spanned);
    for (i, e) in expected.iter().enumerate() {
        if let Some(e) = e {
            assert_eq!(&seen.rows[i], e, "bytes({i})");
        }
    }
    // Without binary, exactly the string layouts are accepted.
    let is_str = matches!(input.layout, crate::arrays::ByteLayout::Str(_));
    assert_eq!(read(array.as_ref(), false).is_ok(), is_str);
}

struct Seen {
    rows: Vec<Vec<u8>>,
    hint: usize,
}

fn read(array: &dyn arrow_array::Array, allow_binary: bool) -> sluice_kernels::Result<Seen> {
    sluice_kernels::with_byte_column!(array, allow_binary, |col| {
        let rows = (0..col.len()).map(|i| col.bytes(i).to_vec()).collect();
        Ok(Seen { rows, hint: col.value_bytes_hint() })
    })
}
