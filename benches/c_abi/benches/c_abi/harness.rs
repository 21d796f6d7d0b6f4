//! Timing: every variant of one case measured in interleaved rounds (so a
//! burst of load on the shared machine hits all of them alike), each round
//! a calibrated number of calls timed with the thread's CPU clock (user +
//! system: page faults count, time spent descheduled does not); the figure
//! is the median round, in ns per row.

use std::hint::black_box;

/// One way to compute a case.
pub struct Variant<'a> {
    /// Column label.
    pub label: &'static str,
    /// One call (one batch); returns something to keep alive.
    pub run: Box<dyn FnMut() -> usize + 'a>,
}

impl<'a> Variant<'a> {
    pub fn new(label: &'static str, run: impl FnMut() -> usize + 'a) -> Self {
        Variant { label, run: Box::new(run) }
    }
}

/// Thread CPU time in nanoseconds.
fn cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid timespec and a Linux clock id.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Rounds and time per round, from `C_ABI_ROUNDS` / `C_ABI_ROUND_MS`.
fn settings() -> (usize, u64) {
    let get = |k: &str, d: u64| std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d);
    (get("C_ABI_ROUNDS", 15) as usize, get("C_ABI_ROUND_MS", 8) * 1_000_000)
}

/// Median ns per row of each variant (`rows` rows per call).
pub fn measure(variants: &mut [Variant<'_>], rows: usize) -> Vec<f64> {
    let (rounds, round_ns) = settings();
    // Warm up (first-touch of inputs, lazy init) and calibrate.
    let iters: Vec<u64> = variants
        .iter_mut()
        .map(|v| {
            black_box((v.run)());
            let t = cpu_ns();
            black_box((v.run)());
            let one = (cpu_ns() - t).max(1);
            (round_ns / one).clamp(1, 100_000)
        })
        .collect();
    let mut samples = vec![Vec::with_capacity(rounds); variants.len()];
    for _ in 0..rounds {
        for (i, v) in variants.iter_mut().enumerate() {
            let t = cpu_ns();
            for _ in 0..iters[i] {
                black_box((v.run)());
            }
            samples[i].push((cpu_ns() - t) as f64 / (iters[i] as f64 * rows as f64));
        }
    }
    samples
        .into_iter()
        .map(|mut s| {
            s.sort_by(|a, b| a.total_cmp(b));
            s[s.len() / 2]
        })
        .collect()
}
