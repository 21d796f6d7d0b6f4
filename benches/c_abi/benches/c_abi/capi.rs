//! libsluice loaded at run time and called exactly as a C engine calls it:
//! inputs exported over the Arrow C Data Interface (`FFI_ArrowArray::new`
//! of an arrow-rs array, moved into the call), the output imported with
//! `from_ffi` and released when dropped, which runs the library's own
//! release callback (and so its allocator's `free`).

use std::ffi::{c_char, c_void, CStr};
use std::path::{Path, PathBuf};
use std::ptr;

use arrow_array::ffi::{from_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{make_array, Array, ArrayRef};
use arrow_schema::Field;

type A = FFI_ArrowArray;
type S = FFI_ArrowSchema;

type Unary = unsafe extern "C" fn(*mut A, *const S, *mut A, *mut S) -> i32;
type Binary = unsafe extern "C" fn(*mut A, *const S, *mut A, *const S, *mut A, *mut S) -> i32;
type Ternary = unsafe extern "C" fn(*mut A, *const S, *mut A, *const S, *mut A, *const S, *mut A, *mut S) -> i32;
type Like = unsafe extern "C" fn(*mut A, *const S, *mut A, *const S, *const c_char, *mut A, *mut S) -> i32;
type Concat = unsafe extern "C" fn(i32, *mut *mut A, *mut *const S, *mut A, *mut S) -> i32;
type ConcatWs = unsafe extern "C" fn(*mut A, *const S, i32, *mut *mut A, *mut *const S, *mut A, *mut S) -> i32;
type Utf16 = unsafe extern "C" fn(*const u16, *const i64, *const u8, i64, *mut A, *mut S) -> i32;
type ConvCreate = unsafe extern "C" fn(*const S, *mut *mut c_void) -> i32;
type ConvFree = unsafe extern "C" fn(*mut c_void);
type RowsToArrow = unsafe extern "C" fn(*mut c_void, *const u8, *const i64, i64, *mut A, *mut S, *mut i8) -> i32;
type ArrowToRows = unsafe extern "C" fn(*mut c_void, *mut A, *const i8, *mut Buf, *mut Buf) -> i32;
type RowsToArrowOnce = unsafe extern "C" fn(*const u8, *const i64, i64, *const S, *mut A, *mut S, *mut i8) -> i32;
type ArrowToRowsOnce = unsafe extern "C" fn(*mut A, *const S, *const i8, *mut Buf, *mut Buf) -> i32;
type BufFree = unsafe extern "C" fn(*mut Buf);
type LastError = unsafe extern "C" fn() -> *const c_char;

/// `struct sluice_buffer`.
#[repr(C)]
pub struct Buf {
    /// Start of the bytes.
    pub ptr: *mut u8,
    /// Valid bytes.
    pub len: i64,
    /// Allocation size.
    pub cap: i64,
}

impl Buf {
    fn empty() -> Self {
        Buf { ptr: ptr::null_mut(), len: 0, cap: 0 }
    }
}

/// The entry points of one loaded `libsluice.so`.
pub struct Lib {
    pub md5: Unary,
    pub sha1: Unary,
    pub sha2: Binary,
    pub concat: Concat,
    pub concat_ws: ConcatWs,
    pub position: Binary,
    pub locate: Ternary,
    pub like: Like,
    pub replace: Ternary,
    pub split_index: Ternary,
    pub utf16_to_utf8: Utf16,
    conv_create: ConvCreate,
    conv_free: ConvFree,
    conv_rows_to_arrow: RowsToArrow,
    conv_arrow_to_rows: ArrowToRows,
    rows_to_arrow: RowsToArrowOnce,
    arrow_to_rows: ArrowToRowsOnce,
    buffer_free: BufFree,
    last_error: LastError,
}

/// Where the library is: `$SLUICE_LIB`, else `target/release/libsluice.so`
/// of `$CARGO_TARGET_DIR` (at build time) or of the repository.
pub fn default_path() -> PathBuf {
    if let Some(p) = std::env::var_os("SLUICE_LIB") {
        return PathBuf::from(p);
    }
    let target = option_env!("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("release/libsluice.so")
}

macro_rules! sym {
    ($lib:expr, $name:literal, $t:ty) => {
        // SAFETY: the symbol has the C signature of `include/sluice.h` that
        // `$t` spells; the library is never unloaded.
        *unsafe { $lib.get::<$t>(concat!($name, "\0").as_bytes()) }
            .unwrap_or_else(|e| panic!("{}: {e}", $name))
    };
}

impl Lib {
    /// Loads the library at `path`.
    pub fn load(path: &Path) -> Lib {
        // SAFETY: libsluice's initialisers only set up its allocator.
        let lib = unsafe { libloading::Library::new(path) }
            .unwrap_or_else(|e| panic!("cannot load {}: {e} (build it with `cargo build --release -p sluice-ffi`)", path.display()));
        // Loaded for the life of the process: the entry points stay valid.
        let lib: &'static libloading::Library = Box::leak(Box::new(lib));
        Lib {
            md5: sym!(lib, "sluice_md5", Unary),
            sha1: sym!(lib, "sluice_sha1", Unary),
            sha2: sym!(lib, "sluice_sha2", Binary),
            concat: sym!(lib, "sluice_concat", Concat),
            concat_ws: sym!(lib, "sluice_concat_ws", ConcatWs),
            position: sym!(lib, "sluice_position", Binary),
            locate: sym!(lib, "sluice_locate", Ternary),
            like: sym!(lib, "sluice_like", Like),
            replace: sym!(lib, "sluice_replace", Ternary),
            split_index: sym!(lib, "sluice_split_index", Ternary),
            utf16_to_utf8: sym!(lib, "sluice_utf16_to_utf8", Utf16),
            conv_create: sym!(lib, "sluice_row_converter_create", ConvCreate),
            conv_free: sym!(lib, "sluice_row_converter_free", ConvFree),
            conv_rows_to_arrow: sym!(lib, "sluice_row_converter_rows_to_arrow", RowsToArrow),
            conv_arrow_to_rows: sym!(lib, "sluice_row_converter_arrow_to_rows", ArrowToRows),
            rows_to_arrow: sym!(lib, "sluice_rows_to_arrow", RowsToArrowOnce),
            arrow_to_rows: sym!(lib, "sluice_arrow_to_rows", ArrowToRowsOnce),
            buffer_free: sym!(lib, "sluice_buffer_free", BufFree),
            last_error: sym!(lib, "sluice_last_error", LastError),
        }
    }

    /// Panics with `sluice_last_error()` unless `status` is 0.
    pub fn check(&self, status: i32, what: &str) {
        if status != 0 {
            // SAFETY: a NUL-terminated string owned by the library.
            let msg = unsafe { CStr::from_ptr((self.last_error)()) }.to_string_lossy();
            panic!("{what}: status {status}: {msg}");
        }
    }
}

/// An argument as a C engine holds it: the array, and its schema exported
/// once (schemas are borrowed by every call).
pub struct Input {
    pub array: ArrayRef,
    pub schema: FFI_ArrowSchema,
}

impl Input {
    /// `array` with a nullable field named `name`.
    pub fn new(name: &str, array: ArrayRef) -> Input {
        let field = Field::new(name, array.data_type().clone(), true);
        Input::with_field(&field, array)
    }

    /// `array` with `field`.
    pub fn with_field(field: &Field, array: ArrayRef) -> Input {
        let schema = FFI_ArrowSchema::try_from(field).expect("exportable field");
        Input { array, schema }
    }

    /// A fresh `struct ArrowArray` for one call (moved into it).
    pub fn export(&self) -> FFI_ArrowArray {
        FFI_ArrowArray::new(&self.array.to_data())
    }
}

/// Output structs of one call.
pub struct Out {
    pub array: FFI_ArrowArray,
    pub schema: FFI_ArrowSchema,
}

impl Out {
    pub fn new() -> Out {
        Out { array: FFI_ArrowArray::empty(), schema: FFI_ArrowSchema::empty() }
    }

    /// Imports the result (released when the returned array and the
    /// schema are dropped).
    pub fn import(self) -> ArrayRef {
        // SAFETY: written by a successful libsluice call.
        let data = unsafe { from_ffi(self.array, &self.schema) }.expect("importable output");
        make_array(data)
    }
}

/// Calls a one-input function.
pub fn unary(lib: &Lib, f: Unary, a: &Input) -> ArrayRef {
    let mut x = a.export();
    let mut out = Out::new();
    // SAFETY: valid structs per the header.
    lib.check(unsafe { f(&mut x, &a.schema, &mut out.array, &mut out.schema) }, "unary");
    out.import()
}

/// Calls a two-input function.
pub fn binary(lib: &Lib, f: Binary, a: &Input, b: &Input) -> ArrayRef {
    let (mut x, mut y) = (a.export(), b.export());
    let mut out = Out::new();
    // SAFETY: valid structs per the header.
    lib.check(unsafe { f(&mut x, &a.schema, &mut y, &b.schema, &mut out.array, &mut out.schema) }, "binary");
    out.import()
}

/// Calls a three-input function (`c` may be absent: a NULL pointer).
pub fn ternary(lib: &Lib, f: Ternary, a: &Input, b: &Input, c: Option<&Input>) -> ArrayRef {
    let (mut x, mut y) = (a.export(), b.export());
    let mut z = c.map(Input::export);
    let zp = z.as_mut().map_or(ptr::null_mut(), |z| z as *mut A);
    let zs = c.map_or(ptr::null(), |c| &c.schema as *const S);
    let mut out = Out::new();
    // SAFETY: valid structs per the header.
    let st = unsafe { f(&mut x, &a.schema, &mut y, &b.schema, zp, zs, &mut out.array, &mut out.schema) };
    lib.check(st, "ternary");
    out.import()
}

/// `sluice_like` without an ESCAPE clause.
pub fn like(lib: &Lib, s: &Input, p: &Input) -> ArrayRef {
    let (mut x, mut y) = (s.export(), p.export());
    let mut out = Out::new();
    // SAFETY: valid structs per the header.
    let st = unsafe { (lib.like)(&mut x, &s.schema, &mut y, &p.schema, ptr::null(), &mut out.array, &mut out.schema) };
    lib.check(st, "like");
    out.import()
}

/// `sluice_concat` (`sep: None`) or `sluice_concat_ws`.
pub fn concat(lib: &Lib, sep: Option<&Input>, args: &[&Input]) -> ArrayRef {
    let mut arrays: Vec<FFI_ArrowArray> = args.iter().map(|a| a.export()).collect();
    let mut ptrs: Vec<*mut A> = arrays.iter_mut().map(|a| a as *mut A).collect();
    let mut schemas: Vec<*const S> = args.iter().map(|a| &a.schema as *const S).collect();
    let n = args.len() as i32;
    let mut out = Out::new();
    // SAFETY: valid structs per the header.
    let st = unsafe {
        match sep {
            None => (lib.concat)(n, ptrs.as_mut_ptr(), schemas.as_mut_ptr(), &mut out.array, &mut out.schema),
            Some(s) => {
                let mut sx = s.export();
                (lib.concat_ws)(&mut sx, &s.schema, n, ptrs.as_mut_ptr(), schemas.as_mut_ptr(), &mut out.array, &mut out.schema)
            }
        }
    };
    lib.check(st, "concat");
    out.import()
}

/// `sluice_utf16_to_utf8` of all-valid rows.
pub fn utf16_to_utf8(lib: &Lib, units: &[u16], offsets: &[i64]) -> ArrayRef {
    let mut out = Out::new();
    let n = offsets.len() as i64 - 1;
    // SAFETY: `units` holds `offsets[n]` units, `offsets` n + 1 entries.
    let st = unsafe { (lib.utf16_to_utf8)(units.as_ptr(), offsets.as_ptr(), ptr::null(), n, &mut out.array, &mut out.schema) };
    lib.check(st, "utf16_to_utf8");
    out.import()
}

/// A `sluice_row_converter` handle.
pub struct Converter<'l> {
    lib: &'l Lib,
    handle: *mut c_void,
    /// The struct schema it was made from.
    pub schema: FFI_ArrowSchema,
}

impl<'l> Converter<'l> {
    /// `sluice_row_converter_create` for the struct `field`.
    pub fn new(lib: &'l Lib, field: &Field) -> Self {
        let schema = FFI_ArrowSchema::try_from(field).expect("exportable field");
        let mut handle = ptr::null_mut();
        // SAFETY: valid schema and out pointer.
        lib.check(unsafe { (lib.conv_create)(&schema, &mut handle) }, "row_converter_create");
        Converter { lib, handle, schema }
    }

    /// Rows → struct array through the handle (`one_shot`: through
    /// `sluice_rows_to_arrow`, which builds a converter per call).
    pub fn rows_to_arrow(&self, data: &[u8], offsets: &[i64], kinds: &mut [i8], one_shot: bool) -> ArrayRef {
        let mut out = Out::new();
        let n = offsets.len() as i64 - 1;
        // SAFETY: `data` holds `offsets[n]` bytes, `kinds` n bytes.
        let st = unsafe {
            if one_shot {
                (self.lib.rows_to_arrow)(data.as_ptr(), offsets.as_ptr(), n, &self.schema, &mut out.array, &mut out.schema, kinds.as_mut_ptr())
            } else {
                (self.lib.conv_rows_to_arrow)(self.handle, data.as_ptr(), offsets.as_ptr(), n, &mut out.array, &mut out.schema, kinds.as_mut_ptr())
            }
        };
        self.lib.check(st, "rows_to_arrow");
        out.import()
    }

    /// Struct array → rows; returns the byte count (both buffers freed).
    pub fn arrow_to_rows(&self, batch: &Input, one_shot: bool) -> i64 {
        let mut x = batch.export();
        let (mut data, mut offsets) = (Buf::empty(), Buf::empty());
        // SAFETY: valid structs per the header.
        let st = unsafe {
            if one_shot {
                (self.lib.arrow_to_rows)(&mut x, &batch.schema, ptr::null(), &mut data, &mut offsets)
            } else {
                (self.lib.conv_arrow_to_rows)(self.handle, &mut x, ptr::null(), &mut data, &mut offsets)
            }
        };
        self.lib.check(st, "arrow_to_rows");
        let n = data.len;
        // SAFETY: buffers written by the library.
        unsafe {
            (self.lib.buffer_free)(&mut data);
            (self.lib.buffer_free)(&mut offsets);
        }
        n
    }
}

impl Drop for Converter<'_> {
    fn drop(&mut self) {
        // SAFETY: a live handle from `create`.
        unsafe { (self.lib.conv_free)(self.handle) };
    }
}
