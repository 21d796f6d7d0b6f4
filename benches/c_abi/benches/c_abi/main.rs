//! Every kernel of the C ABI as users run it — the built `libsluice.so`
//! (mimalloc, full input validation), loaded at run time and called as a C
//! engine calls it (arrow-rs arrays exported over the Arrow C Data
//! Interface, the output imported and released) — beside the same kernel
//! called in-process from Rust, DataFusion 55 / arrow-rs on the same
//! arrays, and for the digests a single-stream digest-only loop (md-5,
//! sha1, sha2 crates; no hex, no Arrow) as their floor. 8,192-row batches
//! of 16, 64 and 256-byte values.
//!
//! Run (from the repository root; the library must be built first):
//! ```text
//! export CARGO_TARGET_DIR=$PWD/target
//! cargo build --release -p sluice-ffi
//! cargo bench --manifest-path benches/c_abi/Cargo.toml --bench c_abi [-- FILTER]
//! ```
//! With `--features datafusion` the DataFusion 55 / arrow-rs references
//! (`md5`, `encode(sha256(x), 'hex')`, `concat`, `concat_ws`, `strpos`,
//! arrow-rs `like`, `replace`, `split_part`) run in the same process, on
//! the same arrays, interleaved with the C ABI calls (that build compiles
//! DataFusion: minutes).
//! `SLUICE_LIB` names another library file; `C_ABI_ROUNDS` (15) and
//! `C_ABI_ROUND_MS` (8) set the rounds per variant and the time per round.
//! The output is a Markdown table (ns per row, median round; ratios side
//! by side): `C/in` is the C ABI's time over the in-process kernel's,
//! `ref/C` the reference's time over the C ABI's (above 1: sluice through
//! the C ABI is faster), `floor/C` likewise for the floor.

mod harness;
mod capi;
mod shapes;

use harness::{measure, Variant};

/// One table row: the kernel, the value size, and its variants in the
/// order C ABI, in-process, then the optional reference and floor.
pub struct Case<'a> {
    pub kernel: &'static str,
    pub bytes: usize,
    pub c_abi: Variant<'a>,
    pub in_process: Variant<'a>,
    pub reference: Option<Variant<'a>>,
    pub floor: Option<Variant<'a>>,
}

fn print_header() {
    println!("| kernel | B | C ABI | in-process | C/in | reference | ns | ref/C | floor | ns | floor/C |");
    println!("| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- | ---: | ---: |");
}

fn run(case: Case<'_>, filter: Option<&str>) {
    let name = format!("{}/{}", case.kernel, case.bytes);
    if filter.is_some_and(|f| !name.contains(f)) {
        return;
    }
    let Case { kernel, bytes, c_abi, in_process, reference, floor } = case;
    let (ref_label, floor_label) = (reference.as_ref().map(|v| v.label), floor.as_ref().map(|v| v.label));
    let mut variants = vec![c_abi, in_process];
    variants.extend(reference);
    variants.extend(floor);
    let ns = measure(&mut variants, shapes::ROWS);
    let (c, inp) = (ns[0], ns[1]);
    let mut k = 2;
    let mut other = |label: Option<&str>| match label {
        Some(l) => {
            let v = ns[k];
            k += 1;
            format!("{l} | {v:.1} | {:.2}", v / c)
        }
        None => "– | | ".to_string(),
    };
    let r = other(ref_label);
    let f = other(floor_label);
    println!("| {kernel} | {bytes} | {c:.1} | {inp:.1} | {:.2} | {r} | {f} |", c / inp);
}

fn main() {
    // cargo bench passes `--bench`; the first other argument filters
    // `kernel/bytes` by substring.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let path = capi::default_path();
    let lib = capi::Lib::load(&path);
    println!("library: {}\n", path.display());
    print_header();
    for bytes in [16usize, 64, 256] {
        for case in shapes::cases(&lib, bytes) {
            run(case, filter.as_deref());
        }
    }
}
