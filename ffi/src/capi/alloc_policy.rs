//! mimalloc's purge policy for the C library, set when the library loads.
//!
//! A kernel call allocates its output at the size of the batch (8,192 rows
//! of 256-byte values: megabytes) and the caller releases it soon after,
//! batch after batch. mimalloc serves such blocks from its arenas and, by
//! default, returns freed arena memory to the OS (`MADV_DONTNEED`) about a
//! second after it was freed; the next batch that reuses those pages takes
//! a page fault per 4 KiB and has them zeroed again, in the kernel's time.
//! With [`PURGE_DELAY_MS`] freed memory stays mapped for reuse while
//! batches keep coming, and is still returned to the OS after a pause.
//!
//! Set with `mi_option_set_default`, so the documented `MIMALLOC_*`
//! environment variables still win (`MIMALLOC_PURGE_DELAY=-1`: never
//! purge; `0`: purge at once).

use std::ffi::{c_int, c_long};

extern "C" {
    /// mimalloc (linked statically by the `mimalloc` crate): sets an
    /// option unless the environment already set it.
    fn mi_option_set_default(option: c_int, value: c_long);
}

/// `mi_option_purge_delay` in mimalloc 3's `mi_option_t`.
const MI_OPTION_PURGE_DELAY: c_int = 15;

/// How long freed memory stays mapped before it is returned to the OS.
pub const PURGE_DELAY_MS: c_long = 10_000;

/// Runs when the dynamic loader loads the library (or a program linking
/// the static library starts), before any allocation by a `sluice_*` call.
extern "C" fn set_policy() {
    // SAFETY: a plain setter of mimalloc's option table, valid at any time.
    unsafe { mi_option_set_default(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
}

#[used]
#[link_section = ".init_array"]
static SET_POLICY: extern "C" fn() = set_policy;
