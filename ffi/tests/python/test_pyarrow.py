"""pyarrow as a real C Data Interface client of libsluice.

Arrays are exported with pyarrow's ``_export_to_c``, passed to the C symbols
through ctypes, and results imported back with ``_import_from_c``. Digests
are compared with hashlib, CONCAT / CONCAT_WS with plain Python following
Flink's NULL rules. The library path comes from ``SLUICE_LIB`` (set by
``ffi/tests/run.sh``). No test skips: every call must succeed or fail as
asserted.
"""

import ctypes
import hashlib
import os
import random

import pyarrow as pa
import pytest

SLUICE_OK = 0
SLUICE_ERR_NULL_POINTER = 1
SLUICE_ERR_INVALID_ARGUMENT = 2
SLUICE_ERR_INVALID_UTF8 = 3
SLUICE_ERR_FLINK = 5
SLUICE_ERR_UNSUPPORTED_TYPE = 7


class ArrowSchema(ctypes.Structure):
    _fields_ = [
        ("format", ctypes.c_char_p),
        ("name", ctypes.c_char_p),
        ("metadata", ctypes.c_char_p),
        ("flags", ctypes.c_int64),
        ("n_children", ctypes.c_int64),
        ("children", ctypes.c_void_p),
        ("dictionary", ctypes.c_void_p),
        ("release", ctypes.c_void_p),
        ("private_data", ctypes.c_void_p),
    ]


class ArrowArray(ctypes.Structure):
    _fields_ = [
        ("length", ctypes.c_int64),
        ("null_count", ctypes.c_int64),
        ("offset", ctypes.c_int64),
        ("n_buffers", ctypes.c_int64),
        ("n_children", ctypes.c_int64),
        ("buffers", ctypes.c_void_p),
        ("children", ctypes.c_void_p),
        ("dictionary", ctypes.c_void_p),
        ("release", ctypes.c_void_p),
        ("private_data", ctypes.c_void_p),
    ]


RELEASE_SCHEMA = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))
A, S = ctypes.POINTER(ArrowArray), ctypes.POINTER(ArrowSchema)


def _load():
    path = os.environ.get("SLUICE_LIB")
    if not path:
        here = os.path.dirname(os.path.abspath(__file__))
        root = os.path.dirname(os.path.dirname(os.path.dirname(here)))
        target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
        path = os.path.join(target, "release", "libsluice.so")
    lib = ctypes.CDLL(path)
    lib.sluice_version.restype = ctypes.c_char_p
    lib.sluice_last_error.restype = ctypes.c_char_p
    i32 = ctypes.c_int32
    for name in ("sluice_md5", "sluice_sha1"):
        getattr(lib, name).argtypes = [A, S, A, S]
        getattr(lib, name).restype = i32
    lib.sluice_sha2.argtypes = [A, S, A, S, A, S]
    lib.sluice_sha2.restype = i32
    lib.sluice_concat.argtypes = [i32, ctypes.POINTER(A), ctypes.POINTER(S), A, S]
    lib.sluice_concat.restype = i32
    lib.sluice_concat_ws.argtypes = [A, S, i32, ctypes.POINTER(A), ctypes.POINTER(S), A, S]
    lib.sluice_concat_ws.restype = i32
    return lib


LIB = _load()


class SluiceError(Exception):
    def __init__(self, code, message):
        super().__init__(f"[{code}] {message}")
        self.code = code
        self.message = message


class Arg:
    """One argument: a pyarrow array exported into C structs."""

    def __init__(self, array, field=None):
        self.array = ArrowArray()
        self.schema = ArrowSchema()
        array._export_to_c(ctypes.addressof(self.array))
        (field or pa.field("arg", array.type))._export_to_c(ctypes.addressof(self.schema))

    def release_schema(self):
        if self.schema.release:
            RELEASE_SCHEMA(self.schema.release)(ctypes.byref(self.schema))

    def moved(self):
        return self.array.release is None


def _finish(rc, args, out, out_schema):
    for a in args:
        a.release_schema()
        # Move semantics: the library took every input, success or error.
        assert a.moved(), "input not marked released by the callee"
    if rc != SLUICE_OK:
        raise SluiceError(rc, LIB.sluice_last_error().decode())
    assert LIB.sluice_last_error() == b""
    field = pa.Field._import_from_c(ctypes.addressof(out_schema))
    result = pa.Array._import_from_c(ctypes.addressof(out), field.type)
    assert result.offset == 0
    return result, field


def call_unary(fn, array, field=None):
    arg = Arg(array, field)
    out, out_schema = ArrowArray(), ArrowSchema()
    rc = fn(ctypes.byref(arg.array), ctypes.byref(arg.schema), ctypes.byref(out), ctypes.byref(out_schema))
    return _finish(rc, [arg], out, out_schema)


def call_sha2(array, widths):
    a, w = Arg(array), Arg(widths)
    out, out_schema = ArrowArray(), ArrowSchema()
    rc = LIB.sluice_sha2(
        ctypes.byref(a.array), ctypes.byref(a.schema), ctypes.byref(w.array), ctypes.byref(w.schema),
        ctypes.byref(out), ctypes.byref(out_schema),
    )
    return _finish(rc, [a, w], out, out_schema)


def _arg_vectors(arrays):
    args = [Arg(x) for x in arrays]
    ins = (A * len(args))(*[ctypes.pointer(a.array) for a in args])
    schemas = (S * len(args))(*[ctypes.pointer(a.schema) for a in args])
    return args, ins, schemas


def call_concat(arrays):
    args, ins, schemas = _arg_vectors(arrays)
    out, out_schema = ArrowArray(), ArrowSchema()
    rc = LIB.sluice_concat(len(args), ins, schemas, ctypes.byref(out), ctypes.byref(out_schema))
    return _finish(rc, args, out, out_schema)


def call_concat_ws(sep, arrays):
    s = Arg(sep)
    args, ins, schemas = _arg_vectors(arrays)
    out, out_schema = ArrowArray(), ArrowSchema()
    rc = LIB.sluice_concat_ws(
        ctypes.byref(s.array), ctypes.byref(s.schema), len(args), ins, schemas,
        ctypes.byref(out), ctypes.byref(out_schema),
    )
    return _finish(rc, [s] + args, out, out_schema)


ALPHABET = ["a", "b", "Z", " ", "é", "ß", "中", "😀", "\u0000"]


def random_strings(rng, n, null_rate=0.2):
    return [
        None if rng.random() < null_rate else "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 20)))
        for _ in range(n)
    ]


STRING_TYPES = [pa.string(), pa.large_string(), pa.string_view()]


def hexdigest(alg, s):
    return None if s is None else hashlib.new(alg, s.encode("utf-8")).hexdigest()


def test_version():
    assert LIB.sluice_version().startswith(b"sluice ")


@pytest.mark.parametrize("typ", STRING_TYPES, ids=str)
@pytest.mark.parametrize("fn,alg,flink", [("sluice_md5", "md5", "CHAR(32)"), ("sluice_sha1", "sha1", "CHAR(40)")])
def test_unary_digest_matches_hashlib(typ, fn, alg, flink):
    rng = random.Random(7)
    values = random_strings(rng, 200)
    result, field = call_unary(getattr(LIB, fn), pa.array(values, typ))
    assert result.to_pylist() == [hexdigest(alg, v) for v in values]
    assert field.metadata[b"flink.type"] == flink.encode()
    assert field.type == pa.string()


@pytest.mark.parametrize("typ", STRING_TYPES, ids=str)
def test_md5_of_sliced_arrays(typ):
    rng = random.Random(11)
    values = random_strings(rng, 100)
    base = pa.array(values, typ)
    for start, length in [(1, 10), (33, 40), (99, 1), (50, 0)]:
        result, _ = call_unary(LIB.sluice_md5, base.slice(start, length))
        assert result.to_pylist() == [hexdigest("md5", v) for v in values[start:start + length]]


def test_md5_not_null_field():
    field = pa.field("s", pa.string(), nullable=False, metadata={"flink.type": "VARCHAR(5) NOT NULL"})
    result, out_field = call_unary(LIB.sluice_md5, pa.array(["hello"]), field)
    assert result.to_pylist() == [hashlib.md5(b"hello").hexdigest()]
    assert out_field.metadata[b"flink.type"] == b"CHAR(32) NOT NULL"
    assert not out_field.nullable


@pytest.mark.parametrize("width,alg", [(224, "sha224"), (256, "sha256"), (384, "sha384"), (512, "sha512")])
def test_sha2_literal_width(width, alg):
    values = ["", "abc", None, "日本語"]
    result, field = call_sha2(pa.array(values), pa.array([width], pa.int32()))
    assert result.to_pylist() == [hexdigest(alg, v) for v in values]
    assert field.metadata[b"flink.type"] == b"VARCHAR(128)"


def test_sha2_width_column():
    values = ["x", "x", "x", "x", None]
    widths = [224, 1, None, 512, 9]
    result, _ = call_sha2(pa.array(values), pa.array(widths, pa.int32()))
    assert result.to_pylist() == [
        hexdigest("sha224", "x"), hexdigest("sha1", "x"), None, hexdigest("sha512", "x"), None,
    ]


def test_sha2_invalid_literal_width_raises_flinks_message():
    with pytest.raises(SluiceError) as e:
        call_sha2(pa.array(["abc"]), pa.array([160], pa.int32()))
    assert e.value.code == SLUICE_ERR_FLINK
    assert "Unsupported algorithm." in e.value.message


def flink_concat(*cols):
    return [None if any(v is None for v in row) else "".join(row) for row in zip(*cols)]


def flink_concat_ws(sep, *cols):
    return [None if s is None else s.join(v for v in row if v is not None) for s, *row in zip(sep, *cols)]


@pytest.mark.parametrize("typ", STRING_TYPES, ids=str)
def test_concat_matches_python(typ):
    rng = random.Random(3)
    a, b = random_strings(rng, 150), random_strings(rng, 150)
    result, field = call_concat([pa.array(a, typ), pa.array(["|"], typ), pa.array(b, typ).slice(0, 150)])
    assert result.to_pylist() == flink_concat(a, ["|"] * 150, b)
    assert field.metadata[b"flink.type"] == b"VARCHAR(2147483647)"


def test_concat_sliced_and_mixed_layouts():
    rng = random.Random(5)
    a, b = random_strings(rng, 80), random_strings(rng, 80)
    x = pa.array(a, pa.large_string()).slice(10, 50)
    y = pa.array(b, pa.string_view()).slice(30, 50)
    result, _ = call_concat([x, y])
    assert result.to_pylist() == flink_concat(a[10:60], b[30:80])


def test_concat_ws_matches_python():
    rng = random.Random(9)
    a, b, c = random_strings(rng, 120), random_strings(rng, 120), random_strings(rng, 120)
    sep = random_strings(rng, 120, null_rate=0.1)
    result, _ = call_concat_ws(pa.array(sep), [pa.array(a), pa.array(b, pa.large_string()), pa.array(c)])
    assert result.to_pylist() == flink_concat_ws(sep, a, b, c)


def test_wrong_type_raises_with_the_native_message():
    with pytest.raises(SluiceError) as e:
        call_unary(LIB.sluice_md5, pa.array([1, 2, 3], pa.int32()))
    assert e.value.code == SLUICE_ERR_UNSUPPORTED_TYPE
    assert e.value.message == "sluice_md5: in must be Utf8, LargeUtf8 or Utf8View (or a binary type), got Int32"


def test_length_mismatch_raises():
    with pytest.raises(SluiceError) as e:
        call_concat([pa.array(["a", "b"]), pa.array(["a", "b", "c"])])
    assert e.value.code == SLUICE_ERR_INVALID_ARGUMENT
    assert "argument 0 has 2 rows and argument 1 has 3" in e.value.message


def test_null_pointer_raises():
    rc = LIB.sluice_md5(None, None, None, None)
    assert rc == SLUICE_ERR_NULL_POINTER
    assert LIB.sluice_last_error() == b"sluice_md5: in is NULL"


def test_non_string_flink_type_is_refused():
    field = pa.field("b", pa.binary(), metadata={"flink.type": "VARBINARY(3)"})
    with pytest.raises(SluiceError) as e:
        call_unary(LIB.sluice_md5, pa.array([b"abc"]), field)
    assert e.value.code == SLUICE_ERR_UNSUPPORTED_TYPE
    assert "flink.type is VARBINARY(3)" in e.value.message


def _call_n(fn, arrays, extra=()):
    """Calls a search entry point taking (array, schema) pairs, then `extra`
    plain arguments, then out, out_schema."""
    args = [Arg(a) for a in arrays]
    out, out_schema = ArrowArray(), ArrowSchema()
    pointers = []
    for a in args:
        pointers += [ctypes.byref(a.array), ctypes.byref(a.schema)]
    rc = fn(*pointers, *extra, ctypes.byref(out), ctypes.byref(out_schema))
    return _finish(rc, args, out, out_schema)


def test_position_and_replace_on_pyarrow_arrays():
    hay = ["hello", "héllo wörld", None, "", "llama"]
    result, field = _call_n(LIB.sluice_position, [pa.array(["l"]), pa.array(hay, pa.large_string())])
    # 1-based code-point positions, 0 when absent (SqlFunctionUtils.position)
    assert result.to_pylist() == [None if h is None else h.find("l") + 1 for h in hay]
    assert field.metadata[b"flink.type"] == b"INT"
    result, _ = _call_n(
        LIB.sluice_replace, [pa.array(hay, pa.string_view()).slice(1), pa.array(["l"]), pa.array(["L"])]
    )
    assert result.to_pylist() == [None if h is None else h.replace("l", "L") for h in hay[1:]]


def test_like_with_escape():
    values = ["a_c", "abc", None, "a_cd"]
    result, field = _call_n(LIB.sluice_like, [pa.array(values), pa.array(["a!_c"])], extra=[b"!"])
    assert result.to_pylist() == [True, False, None, False]
    assert field.metadata[b"flink.type"] == b"BOOLEAN"


# ---------------------------------------------------------------------------
# Keyed operator handles (sluice_keyed_*)
# ---------------------------------------------------------------------------

SLUICE_ERR_STATE_BUDGET = 11
SLUICE_ERR_CORRUPT_SNAPSHOT = 12


class Buffer(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p), ("len", ctypes.c_int64), ("cap", ctypes.c_int64)]

    def take(self):
        """The bytes, then frees the library's buffer."""
        data = ctypes.string_at(self.ptr, self.len) if self.len else b""
        LIB.sluice_buffer_free(ctypes.byref(self))
        return data


def _keyed_signatures():
    i32, i64, p = ctypes.c_int32, ctypes.c_int64, ctypes.c_void_p
    B = ctypes.POINTER(Buffer)
    LIB.sluice_buffer_free.argtypes = [B]
    LIB.sluice_buffer_free.restype = None
    LIB.sluice_keyed_create.argtypes = [ctypes.c_char_p, S, ctypes.POINTER(p)]
    LIB.sluice_keyed_push.argtypes = [p, A, S, ctypes.c_char_p, A, S, B]
    LIB.sluice_keyed_snapshot.argtypes = [p, i32, i32, B]
    LIB.sluice_keyed_restore.argtypes = [p, ctypes.c_char_p, i64, i32, i32]
    LIB.sluice_keyed_free.argtypes = [p]
    LIB.sluice_keyed_free.restype = None
    for f in ("create", "push", "snapshot", "restore"):
        getattr(LIB, "sluice_keyed_" + f).restype = i32


_keyed_signatures()


class Keyed:
    """A keyed operator handle driven with pyarrow struct arrays."""

    def __init__(self, spec, schema):
        self.schema = ArrowSchema()
        pa.field("row", pa.struct(list(schema)), nullable=False)._export_to_c(ctypes.addressof(self.schema))
        self.h = ctypes.c_void_p()
        rc = LIB.sluice_keyed_create(spec.encode(), ctypes.byref(self.schema), ctypes.byref(self.h))
        if rc != SLUICE_OK:
            RELEASE_SCHEMA(self.schema.release)(ctypes.byref(self.schema))
            raise SluiceError(rc, LIB.sluice_last_error().decode())

    def push(self, batch, kinds=None):
        arr = ArrowArray()
        batch._export_to_c(ctypes.addressof(arr))
        out, out_schema, out_kinds = ArrowArray(), ArrowSchema(), Buffer()
        rc = LIB.sluice_keyed_push(
            self.h, ctypes.byref(arr), ctypes.byref(self.schema), bytes(kinds) if kinds is not None else None,
            ctypes.byref(out), ctypes.byref(out_schema), ctypes.byref(out_kinds),
        )
        assert arr.release is None, "batch not moved into the callee"
        if rc != SLUICE_OK:
            raise SluiceError(rc, LIB.sluice_last_error().decode())
        field = pa.Field._import_from_c(ctypes.addressof(out_schema))
        result = pa.Array._import_from_c(ctypes.addressof(out), field.type)
        return result, list(out_kinds.take()), field

    def snapshot(self, first=0, last=127):
        buf = Buffer()
        rc = LIB.sluice_keyed_snapshot(self.h, first, last, ctypes.byref(buf))
        assert rc == SLUICE_OK, LIB.sluice_last_error()
        return buf.take()

    def restore(self, data, first=0, last=127):
        rc = LIB.sluice_keyed_restore(self.h, data, len(data), first, last)
        if rc != SLUICE_OK:
            raise SluiceError(rc, LIB.sluice_last_error().decode())

    def close(self):
        LIB.sluice_keyed_free(self.h)
        self.h = ctypes.c_void_p()
        RELEASE_SCHEMA(self.schema.release)(ctypes.byref(self.schema))


def apply_changelog(view, result, kinds):
    """Materialises a changelog: +I/+U put the row, -U/-D remove exactly it."""
    for row, kind in zip(result.to_pylist(), kinds):
        key = row["k"]
        if kind in (0, 2):
            assert kind == 2 or key not in view, f"+I for a key already in the view: {row}"
            view[key] = row
        else:
            assert view.pop(key) == row, f"retraction of a row that is not the current one: {row}"


def reference_group_by(rows):
    groups = {}
    for k, v in rows:
        groups.setdefault(k, []).append(v)
    out = {}
    for k, vs in groups.items():
        nn = [v for v in vs if v is not None]
        out[k] = {"k": k, "countstar_0": len(vs), "sum_1": sum(nn) if nn else None,
                  "min_1": min(nn) if nn else None, "max_1": max(nn) if nn else None}
    return out


def test_group_agg_changelog_materialises_to_python_group_by():
    rng = random.Random(7)
    schema = [pa.field("k", pa.string()), pa.field("v", pa.int64())]
    spec = "group_agg keys=k aggs=count(*),sum(v),min(v),max(v)"
    rows = [(rng.choice(["a", "b", "ü", "long key 0123456789"]), rng.choice([None, rng.randrange(-50, 50)]))
            for _ in range(300)]
    op = Keyed(spec, schema)
    # Batch 1: inserts, exported as a slice of a larger struct array.
    padded = [("pad", 0)] + rows + [("pad", 0)]
    arr = pa.StructArray.from_arrays(
        [pa.array([r[0] for r in padded]), pa.array([r[1] for r in padded], pa.int64())], fields=schema
    ).slice(1, len(rows))
    view = {}
    result, kinds, field = op.push(arr)
    assert result.offset == 0
    assert field.type.field("countstar_0").metadata[b"flink.type"] == b"BIGINT NOT NULL"
    apply_changelog(view, result, kinds)
    assert view == reference_group_by(rows)

    # Snapshot, restore into a new handle, continue there with retractions
    # of some batch-1 rows plus new inserts.
    restored = Keyed(spec, schema)
    restored.restore(op.snapshot())
    op.close()
    gone = rng.sample(range(len(rows)), 120)
    new = [("c", 5), ("a", None)]
    batch2 = [rows[i] for i in gone] + new
    arr2 = pa.StructArray.from_arrays(
        [pa.array([r[0] for r in batch2]), pa.array([r[1] for r in batch2], pa.int64())], fields=schema
    )
    result, kinds, _ = restored.push(arr2, [3] * len(gone) + [0] * len(new))
    apply_changelog(view, result, kinds)
    remaining = [r for i, r in enumerate(rows) if i not in set(gone)] + new
    assert view == reference_group_by(remaining)

    with pytest.raises(SluiceError) as e:
        restored.restore(b"SLKS not really a snapshot, long enough to pass the length check")
    assert e.value.code == SLUICE_ERR_CORRUPT_SNAPSHOT
    restored.close()

    with pytest.raises(SluiceError) as e:
        Keyed("group_agg keys=k", schema)
    assert e.value.code == SLUICE_ERR_INVALID_ARGUMENT
    assert "group_agg needs `aggs=`" in e.value.message


def test_state_budget_is_its_own_error_code():
    schema = [pa.field("k", pa.string()), pa.field("v", pa.int64())]
    op = Keyed("normalize keys=k budget=300", schema)
    keys = [f"key {i}" for i in range(50)]
    arr = pa.StructArray.from_arrays([pa.array(keys), pa.array(range(50), pa.int64())], fields=schema)
    with pytest.raises(SluiceError) as e:
        op.push(arr, [0] * 50)
    assert e.value.code == SLUICE_ERR_STATE_BUDGET
    assert "budget is 300" in e.value.message
    op.close()
