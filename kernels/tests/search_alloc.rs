//! No per-row heap allocation: with scalar patterns every search kernel
//! makes the same number of allocation calls for 100 rows as for 20 000.

use arrow_array::{Int32Array, Scalar, StringArray, StringViewArray};
use sluice_kernels::alloc_count::{count_allocs, CountingAlloc};
use sluice_kernels::search::{instr, like, locate, position, replace, split_index};

#[global_allocator]
static A: CountingAlloc = CountingAlloc::system();

fn data(n: usize) -> StringArray {
    (0..n).map(|i| if i % 7 == 3 { None } else { Some(format!("row {i} — ñandú😀 abc,def,{}", i % 10)) }).collect()
}

fn s1(v: &str) -> Scalar<StringArray> {
    Scalar::new(StringArray::from(vec![v]))
}

/// Runs `f` on a small and a large batch and returns both allocation counts.
fn allocs<F: Fn(&StringArray)>(f: F) -> (u64, u64) {
    let small = data(100);
    let big = data(20_000);
    f(&small); // warm up lazily initialised state (CPU feature detection)
    let (a, _) = count_allocs(|| f(&small));
    let (b, _) = count_allocs(|| f(&big));
    (a, b)
}

#[test]
fn scalar_argument_kernels_allocate_per_batch_not_per_row() {
    type Case = (&'static str, Box<dyn Fn(&StringArray)>);
    let cases: Vec<Case> = vec![
        ("position", Box::new(|a| drop(position(&s1("abc"), a).unwrap()))),
        ("locate", Box::new(|a| drop(locate(&s1("ñ"), a, Some(&Scalar::new(Int32Array::from(vec![3])))).unwrap()))),
        (
            "instr",
            Box::new(|a| drop(instr(a, &s1("a"), Some(&Scalar::new(Int32Array::from(vec![-2]))), None).unwrap())),
        ),
        ("like prefix", Box::new(|a| drop(like(a, &s1("row 1%"), None).unwrap()))),
        ("like contains", Box::new(|a| drop(like(a, &s1("%ndú%"), None).unwrap()))),
        ("like general", Box::new(|a| drop(like(a, &s1("row _%a_c%,_"), None).unwrap()))),
        ("like escape", Box::new(|a| drop(like(a, &s1("%!_%"), Some('!')).unwrap()))),
        ("replace", Box::new(|a| drop(replace(a, &s1("abc"), &s1("x")).unwrap()))),
        ("replace empty", Box::new(|a| drop(replace(a, &s1(""), &s1("")).unwrap()))),
        ("split_index", Box::new(|a| drop(split_index(a, &s1(","), &Scalar::new(Int32Array::from(vec![1]))).unwrap()))),
        (
            "split_index ws",
            Box::new(|a| drop(split_index(a, &s1(""), &Scalar::new(Int32Array::from(vec![2]))).unwrap())),
        ),
    ];
    for (name, f) in cases {
        let (small, big) = allocs(f);
        assert_eq!(small, big, "{name}: {small} allocations for 100 rows, {big} for 20000");
        // A handful per batch: output buffers, the Finder, and building the
        // scalar arguments inside the closure.
        assert!(small <= 16, "{name}: {small} allocations per batch");
    }
}

/// A column of patterns: compiled into one reused buffer, recompiled only
/// when the pattern changes, so repeated patterns cost nothing per row.
#[test]
fn array_pattern_reuses_its_compiled_buffer() {
    let pats = |n: usize| -> StringViewArray {
        (0..n).map(|i| Some(if (i / 50) % 2 == 0 { "%a_c%" } else { "row%" })).collect()
    };
    let (small, big) = (data(100), data(20_000));
    let (small_pats, big_pats) = (pats(100), pats(20_000));
    let _ = like(&small, &small_pats, None).unwrap();
    let (n_small, _) = count_allocs(|| like(&small, &small_pats, None).unwrap());
    let (n_big, _) = count_allocs(|| like(&big, &big_pats, None).unwrap());
    assert_eq!(n_small, n_big, "{n_small} allocations for 100 rows vs {n_big} for 20000");
}
