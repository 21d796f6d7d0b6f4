//! Shared by the keyed benches: allocations per row under the counting
//! allocator, and paired borrowed/owned timings on a shared machine.

use std::time::{Duration, Instant};

use sluice_kernels::alloc_count::count_allocs;

/// Rows per batch.
pub const ROWS: usize = 4096;

/// Prints `f`'s allocations per row of a [`ROWS`]-row batch (after two warm-up calls).
pub fn report(name: &str, distinct: usize, mut f: impl FnMut()) {
    f();
    f();
    let (a, _) = count_allocs(&mut f);
    eprintln!("allocs/row {name:<32} keys={distinct:<5} {:.3}", a as f64 / ROWS as f64);
}

/// Interleaves `borrowed` and `owned` runs and prints each one's minimum
/// and median time and the owned/borrowed ratios.
pub fn paired(name: &str, distinct: usize, mut borrowed: impl FnMut(), mut owned: impl FnMut()) {
    const RUNS: usize = 301;
    let (mut tb, mut to) = (Vec::with_capacity(RUNS), Vec::with_capacity(RUNS));
    let time = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        t.elapsed()
    };
    for _ in 0..RUNS {
        tb.push(time(&mut borrowed));
        to.push(time(&mut owned));
    }
    tb.sort_unstable();
    to.sort_unstable();
    let (bmin, bmed, omin, omed) = (tb[0], tb[RUNS / 2], to[0], to[RUNS / 2]);
    let r = |o: Duration, b: Duration| o.as_secs_f64() / b.as_secs_f64();
    eprintln!(
        "paired {name:<40} keys={distinct:<5} borrowed min {bmin:>9.1?} med {bmed:>9.1?} | owned min {omin:>9.1?} med {omed:>9.1?} | owned/borrowed min {:.2}x med {:.2}x",
        r(omin, bmin),
        r(omed, bmed)
    );
}
