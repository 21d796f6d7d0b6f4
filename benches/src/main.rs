//! `sluice` — the main job of the repository.
//!
//! `sluice demo` generates 2M rows, runs every kernel and its naive
//! reference side by side over the same data (batches of 8,192 rows, the
//! allocator warm, as in a streaming job) and prints rows/s, GB/s,
//! allocations per row and the ratio to the reference measured in that run.

use sluice_kernels::alloc_count::CountingAlloc;

mod demo;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::system();

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cmd = args.first().map(String::as_str).unwrap_or("demo");
    let code = match cmd {
        "demo" => demo::run(&args[1..]),
        "-h" | "--help" | "help" => {
            println!("{}", demo::USAGE);
            Ok(())
        }
        other => Err(format!("unknown command `{other}`\n{}", demo::USAGE)),
    };
    if let Err(e) = code {
        eprintln!("sluice: {e}");
        std::process::exit(2);
    }
}
