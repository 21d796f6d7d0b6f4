//! `sluice_kernels::concat`: CONCAT / CONCAT_WS vs plain string joins.
//!
//! Reference (Flink's `BinaryStringDataUtil.concat` / `concatWs`): CONCAT is
//! NULL if any argument is NULL, else the bytes joined; CONCAT_WS is NULL for
//! a NULL separator, else the non-NULL arguments joined by it (`''` when
//! there are none). Arguments mix scalars and sliced columns of every string
//! layout, with bytes under NULL rows; strings are often longer than the
//! kernel's 16-byte copies so that its slack handling is exercised (run
//! under AddressSanitizer by `fuzz/run.sh long concat`).

use arbitrary::Arbitrary;
use arrow_array::{Array, LargeStringArray, StringArray};
use sluice_kernels::concat::{self, NullFill};

use crate::text::{output_rows, StrArg};

/// Every NULL-row fill strategy, each checked on its own.
const FILLS: [NullFill; 4] = [NullFill::Branchy, NullFill::BranchFree, NullFill::ValidOnly, NullFill::SkipNulls];

/// One call.
#[derive(Arbitrary, Debug, Clone)]
pub struct Input {
    /// Rows of the column arguments (mod 200: batches past the 64-row
    /// validity words of the NULL fills).
    pub rows: u8,
    /// Adds `rows_hi % 2 * 100` rows.
    pub rows_hi: u8,
    /// The separator of CONCAT_WS.
    pub sep: StrArg,
    /// The arguments (at most 6 are used).
    pub args: Vec<StrArg>,
    /// Repeat every value `stretch % 40 + 1` times (long strings).
    pub stretch: u8,
}

fn stretched(arg: &StrArg, k: usize) -> StrArg {
    let mut a = arg.clone();
    for t in a.values.iter_mut().flatten() {
        t.0 = t.0.repeat(k);
    }
    a
}

/// Runs the check on one input; panics on a mismatch.
pub fn check(input: &Input) {
    let rows = input.rows as usize % 100 + input.rows_hi as usize % 2 * 100;
    let k = input.stretch as usize % 40 + 1;
    let args: Vec<StrArg> = input.args.iter().take(6).map(|a| stretched(a, k)).collect();
    let sep = &input.sep;
    let data: Vec<_> = args.iter().map(|a| a.datum(rows)).collect();
    let refs: Vec<&dyn arrow_array::Datum> = data.iter().map(|d| d.as_ref()).collect();
    let any_col = args.iter().any(StrArg::is_column);

    // CONCAT.
    let n = output_rows(rows, any_col);
    let want: Vec<Option<String>> =
        (0..n).map(|i| args.iter().map(|a| a.value(i)).collect::<Option<Vec<_>>>().map(|v| v.concat())).collect();
    match concat::concat(&refs) {
        Ok(got) => {
            assert!(!args.is_empty(), "CONCAT() with no argument must fail");
            assert_eq!(strs(&got), want, "CONCAT");
            let large = concat::concat_large(&refs).expect("concat_large");
            assert_eq!(large_strs(&large), want, "CONCAT large");
            for fill in FILLS {
                let got = concat::forced::concat(&refs, fill).expect("forced concat");
                assert_eq!(strs(&got), want, "CONCAT {fill:?}");
                let got = concat::forced::concat_large(&refs, fill).expect("forced concat_large");
                assert_eq!(large_strs(&got), want, "CONCAT large {fill:?}");
            }
        }
        Err(e) => assert!(args.is_empty(), "CONCAT failed: {e}"),
    }

    // CONCAT_WS.
    let n = output_rows(rows, any_col || sep.is_column());
    let want: Vec<Option<String>> = (0..n)
        .map(|i| {
            let s = sep.value(i)?;
            let parts: Vec<String> = args.iter().filter_map(|a| a.value(i)).collect();
            Some(parts.join(&s))
        })
        .collect();
    let sd = sep.datum(rows);
    let got = concat::concat_ws(sd.as_ref(), &refs).expect("concat_ws");
    assert_eq!(strs(&got), want, "CONCAT_WS");
    let got = concat::concat_ws_large(sd.as_ref(), &refs).expect("concat_ws_large");
    assert_eq!(large_strs(&got), want, "CONCAT_WS large");
}

fn strs(a: &StringArray) -> Vec<Option<String>> {
    assert_eq!(a.offset(), 0);
    a.iter().map(|v| v.map(str::to_string)).collect()
}

fn large_strs(a: &LargeStringArray) -> Vec<Option<String>> {
    a.iter().map(|v| v.map(str::to_string)).collect()
}
