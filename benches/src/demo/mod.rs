//! The demo runner: every case runs its kernel and its naive reference over
//! the same batches, alternating, and the table reports both from this run.

mod cases;
mod transpose;

use std::time::{Duration, Instant};

use arrow_array::{Array, ArrayRef};
use indicatif::{ProgressBar, ProgressStyle};
use sluice_kernels::alloc_count::count_allocs;

pub const USAGE: &str = "usage: sluice demo [--rows N] [--batch N] [--repeats N] [--only SUBSTRING]

Generates N rows (default 2,000,000), runs each kernel and its naive
reference side by side in batches (default 8,192 rows) and prints rows/s,
GB/s of input, allocations per row and the speed-up over the reference.";

/// One row of the table: a kernel and the reference it is compared with.
pub struct Case {
    /// What runs, e.g. "md5 hex, 64 B".
    pub name: String,
    /// What the reference is, e.g. "md-5 + hex::encode per row".
    pub reference_name: &'static str,
    /// Number of batches the closures take.
    pub batches: usize,
    /// Rows over all batches.
    pub rows: usize,
    /// Input bytes over all batches (for GB/s).
    pub bytes: u64,
    /// Runs the kernel on batch `i`.
    pub kernel: Box<dyn FnMut(usize) -> ArrayRef>,
    /// Runs the reference on batch `i`; must give an equal array.
    pub reference: Box<dyn FnMut(usize) -> ArrayRef>,
}

pub struct Config {
    pub rows: usize,
    pub batch: usize,
    pub repeats: usize,
    pub only: Option<String>,
}

fn parse(args: &[String]) -> Result<Config, String> {
    let mut cfg = Config { rows: 2_000_000, batch: 8192, repeats: 3, only: None };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut num = |name: &str| -> Result<usize, String> {
            it.next()
                .and_then(|v| v.replace('_', "").parse().ok())
                .filter(|&n: &usize| n > 0)
                .ok_or_else(|| format!("{name} takes a positive number"))
        };
        match a.as_str() {
            "--rows" => cfg.rows = num("--rows")?,
            "--batch" => cfg.batch = num("--batch")?,
            "--repeats" => cfg.repeats = num("--repeats")?,
            "--only" => cfg.only = Some(it.next().ok_or("--only takes a substring")?.clone()),
            other => return Err(format!("unknown option `{other}`\n{USAGE}")),
        }
    }
    Ok(cfg)
}

struct Measured {
    name: String,
    reference_name: &'static str,
    rows: usize,
    bytes: u64,
    kernel: Duration,
    reference: Duration,
    allocs: u64,
    ref_allocs: u64,
    batches: usize,
}

fn pass(f: &mut dyn FnMut(usize) -> ArrayRef, batches: usize) -> (Duration, u64) {
    let (allocs, elapsed) = count_allocs(|| {
        let start = Instant::now();
        for i in 0..batches {
            let out = f(i);
            std::hint::black_box(&out);
        }
        start.elapsed()
    });
    (elapsed, allocs)
}

pub fn run(args: &[String]) -> Result<(), String> {
    let cfg = parse(args)?;
    println!(
        "sluice {} demo: {} rows in batches of {} rows, best of {} alternating runs per side",
        env!("CARGO_PKG_VERSION"),
        cfg.rows,
        cfg.batch,
        cfg.repeats
    );
    let gen = ProgressBar::new_spinner().with_message("generating data");
    gen.enable_steady_tick(Duration::from_millis(100));
    let mut all = cases::all(&cfg);
    gen.finish_and_clear();
    if let Some(only) = &cfg.only {
        all.retain(|c| c.name.contains(only.as_str()));
    }
    let total: u64 = all.iter().map(|c| (c.batches * (1 + 2 * cfg.repeats)) as u64).sum();
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} batches  {msg}")
            .map_err(|e| e.to_string())?,
    );
    let mut results = Vec::new();
    for mut case in all {
        bar.set_message(case.name.clone());
        // Correctness first: the kernel and the reference agree on every batch.
        for i in 0..case.batches {
            let got = (case.kernel)(i);
            let want = (case.reference)(i);
            if got.as_ref() != want.as_ref() {
                bar.abandon();
                return Err(format!("{}: batch {i} differs from the reference ({})", case.name, case.reference_name));
            }
            bar.inc(1);
        }
        let (mut k_best, mut r_best) = (Duration::MAX, Duration::MAX);
        let (mut k_allocs, mut r_allocs) = (u64::MAX, u64::MAX);
        for _ in 0..cfg.repeats {
            let (t, a) = pass(&mut case.kernel, case.batches);
            k_best = k_best.min(t);
            k_allocs = k_allocs.min(a);
            bar.inc(case.batches as u64);
            let (t, a) = pass(&mut case.reference, case.batches);
            r_best = r_best.min(t);
            r_allocs = r_allocs.min(a);
            bar.inc(case.batches as u64);
        }
        results.push(Measured {
            name: case.name,
            reference_name: case.reference_name,
            rows: case.rows,
            bytes: case.bytes,
            kernel: k_best,
            reference: r_best,
            allocs: k_allocs,
            ref_allocs: r_allocs,
            batches: case.batches,
        });
    }
    bar.finish_and_clear();
    print_table(&results);
    Ok(())
}

fn print_table(results: &[Measured]) {
    println!();
    println!(
        "| {:<40} | {:>9} | {:>7} | {:>8} | {:>10} | {:>9} | {:>7} | {:<44} |",
        "kernel", "Mrows/s", "GB/s", "ns/row", "allocs/row", "ref ns/row", "speedup", "reference (allocs/row)"
    );
    println!("|{:-<42}|{:->11}|{:->9}|{:->10}|{:->12}|{:->11}|{:->9}|{:-<46}|", "", "", "", "", "", "", "", "");
    for m in results {
        let secs = m.kernel.as_secs_f64();
        let ns_row = secs * 1e9 / m.rows as f64;
        let ref_ns_row = m.reference.as_secs_f64() * 1e9 / m.rows as f64;
        println!(
            "| {:<40} | {:>9.1} | {:>7.2} | {:>8.1} | {:>10.4} | {:>9.1} | {:>6.2}x | {:<44} |",
            m.name,
            m.rows as f64 / secs / 1e6,
            m.bytes as f64 / secs / 1e9,
            ns_row,
            m.allocs as f64 / m.rows as f64,
            ref_ns_row,
            m.reference.as_secs_f64() / secs,
            format!("{} ({:.2})", m.reference_name, m.ref_allocs as f64 / m.rows as f64),
        );
    }
    println!();
    let per_batch: Vec<String> =
        results.iter().map(|m| format!("{}: {:.1}", m.name, m.allocs as f64 / m.batches as f64)).collect();
    println!("kernel allocations per batch (output buffers only; flat in rows): {}", per_batch.join("; "));
}

/// Rows in an array, for the cases.
pub fn rows_of(batches: &[ArrayRef]) -> usize {
    batches.iter().map(|a| a.len()).sum()
}
