"""Bad values for each kind of parameter, and what each one must raise.

Each function returns ``[(value id, Python expression, expected outcome)]``
for one parameter, named ``name`` in the messages. The expressions may name
fixtures (``pocl_ctx``, ``closed_eng``, ...).

Out of scope, and so never generated: an int (or an object whose
``__index__``/``int_ptr`` gives one) that is in the range of addresses but
points at nothing valid, such as ``2**40`` or ``0x1000`` given as a device,
a buffer or a raw pointer. No binding can tell such an address from a real
one; the binding takes it as given, as the README says. The same holds
for a pyopencl object the caller has ``release()``d: it keeps its stale
address, and pyopencl itself crashes on it (``Buffer.size``).
"""

from __future__ import annotations

from .model import CLOSED, TYPE, TYPE_OR_VALUE, VALUE, Either, Ok, Raises

# The pyopencl objects, by the OpenCL handle type they hold.
PYOPENCL = {
    "cl_platform_id": "pocl_platform",
    "cl_device_id": "pocl_dev",
    "cl_context": "pocl_ctx",
    "cl_command_queue": "pocl_queue",
    "cl_mem": "pocl_buf",
    "cl_event": "done_event",
}
ZE = {
    "ze_driver": "ze.Driver(0x1000)",
    "ze_device": "ze.Device(0x2000)",
    "ze_context": "ze.Context(0x3000)",
    "ze_command_list": "ze.CommandList(0x4000)",
    "ze_event": "ze.Event(0x5000)",
}
# A live and a closed object of each oneDNN class (CPU engine fixtures).
DNNL = {
    "Engine": ("eng", "closed_eng"),
    "Stream": ("strm", "closed_strm"),
    "MemoryDesc": ("md", "closed_md"),
    "Memory": ("src", "closed_mem"),
    "Primitive": ("prim", "closed_prim"),
    "PrimitiveDesc": ("pdesc", "closed_pdesc"),
}


def _not_a(name: str):
    return Raises(TYPE, name)


def dnnl_object(cls: str, name: str, nullable: bool = False) -> list:
    """A parameter that takes a ``dnnl_interop.<cls>``."""
    live, closed = DNNL[cls]
    other = "md" if cls != "MemoryDesc" else "eng"
    values = [
        ("None", "None"),
        ("-1", "-1"),
        ("str", "'x'"),
        ("float", "1.5"),
        ("object", "object()"),
        ("pyopencl.Context", "pocl_ctx"),
        ("ze.Device", "ze.Device(0x2000)"),
        (f"a {other}", other),
        (f"{cls}.int_ptr", f"{live}.int_ptr"),
    ]
    cases = [(vid, expr, _not_a(name)) for vid, expr in values if not (nullable and expr == "None")]
    cases.append((f"closed {cls}", closed, Raises(CLOSED, name)))
    return cases


def foreign_handle(ctype: str, name: str, nullable: bool = False, right: str | None = None) -> list:
    """A parameter that takes an OpenCL (``cl_*``) or Level Zero (``ze_*``) handle.

    ``right`` is an expression of the right kind, used to build a list that
    holds it (a list is not a handle).
    """
    null_expect = Raises(TYPE_OR_VALUE, name)
    values = [
        ("None", "None", null_expect),
        ("0", "0", null_expect),
        ("ffi.NULL", "ffi.NULL", null_expect),
        ("-1", "-1", Raises(TYPE_OR_VALUE, name)),
        ("2**64", "2**64", Raises(TYPE_OR_VALUE, name)),
        ("float", "1.5", _not_a(name)),
        ("Fraction", "Fraction(8, 1)", _not_a(name)),
        ("str", "'x'", _not_a(name)),
        ("bytes", "bytes(8)", _not_a(name)),
        ("list", "[]", Raises(TYPE_OR_VALUE, name)),
        ("object", "object()", _not_a(name)),
        ("ndarray", "np.zeros(4)", _not_a(name)),
        ("cffi int *", "ffi.new('int *')", _not_a(name)),
        ("Engine", "eng", _not_a(name)),
        ("Memory", "src", _not_a(name)),
    ]
    if right is not None:
        values.append(("list of the right handle", f"[{right}]", _not_a(name)))
    if nullable:
        values = [v for v in values if v[2] is not null_expect]
    for kind, expr in PYOPENCL.items():
        if kind != ctype:
            values.append((f"pyopencl.{type_name(expr)}", expr, _not_a(name)))
    for kind, expr in ZE.items():
        if kind != ctype:
            values.append((expr.partition("(")[0], expr, _not_a(name)))
    return values


def type_name(fixture: str) -> str:
    return {
        "pocl_platform": "Platform",
        "pocl_dev": "Device",
        "pocl_ctx": "Context",
        "pocl_queue": "CommandQueue",
        "pocl_buf": "Buffer",
        "done_event": "UserEvent",
    }[fixture]


def host_buffer(name: str, also: tuple[str, ...] = (), layout: str = "ab") -> list:
    """A host buffer for a 4x4 float32 descriptor (64 bytes) of tag ``layout``.

    ``also`` are other names a refusal may give (``args[1]``: a memory
    without a buffer is refused at execute instead of at creation). A
    Fortran-order array is the ``"ba"`` layout itself: used in place there; a
    row-major one is ``"ab"``. An array of another shape is refused whatever its
    size: oneDNN would read its elements as another tensor's.
    """
    names = (name, *also)
    either = Either(Ok(), Raises(TYPE_OR_VALUE, name))
    bad = Raises(TYPE_OR_VALUE, name)
    return [
        ("None", "None", Raises(TYPE_OR_VALUE, names)),
        ("0", "0", Raises(TYPE_OR_VALUE, names)),
        ("ffi.NULL", "ffi.NULL", Raises(TYPE_OR_VALUE, names)),
        ("-1", "-1", either),
        ("2**64", "2**64", bad),
        ("True", "True", _not_a(name)),
        ("float", "1.5", _not_a(name)),
        ("Fraction", "Fraction(8, 1)", _not_a(name)),
        ("Decimal", "Decimal(8)", _not_a(name)),
        ("str", "'x' * 64", _not_a(name)),
        ("list of floats", "[0.0] * 16", _not_a(name)),
        ("dict", "{}", _not_a(name)),
        ("object", "object()", _not_a(name)),
        ("bytes (read-only)", "bytes(64)", bad),
        ("bytearray too small", "bytearray(8)", bad),
        ("bytearray of the size", "bytearray(64)", either),
        ("strided memoryview", "memoryview(bytearray(128))[::2]", bad),
        ("big-endian float32", "np.zeros((4, 4), '>f4')", bad),
        ("float64 array", "np.zeros((4, 4), np.float64)", bad),
        ("int32 array", "np.zeros((4, 4), np.int32)", bad),
        ("array too small", "np.zeros(8, np.float32)", bad),
        ("0-d array", "np.array(0, np.float32)", bad),
        ("object array", "np.empty((4, 4), object)", bad),
        ("non-contiguous array", "np.zeros((4, 8), np.float32)[:, ::2]", bad),
        ("Fortran-order array", "np.asfortranarray(np.arange(16, dtype=np.float32).reshape(4, 4))",
         Ok() if layout == "ba" else bad),
        ("row-major array", "np.zeros((4, 4), np.float32)", Ok() if layout == "ab" else bad),
        ("array of another shape, the same size", "np.zeros((2, 8), np.float32)", bad),
        ("4-D array of the same size", "np.zeros((1, 4, 4, 1), np.float32)", bad),
        ("read-only array", "ro_array", bad),
        ("flat float32 array of the size", "np.zeros(16, np.float32)", either),
        ("cffi char[8]", "ffi.new('char[8]')", bad),
        ("cffi int *", "ffi.new('int *')", bad),
        ("cffi float[16]", "ffi.new('float[16]')", either),
        ("pyopencl.Buffer", "pocl_buf", _not_a(name)),
        ("pyopencl.Context", "pocl_ctx", _not_a(name)),
        ("ze.Device", "ze.Device(0x2000)", _not_a(name)),
        ("Engine", "eng", _not_a(name)),
    ]


def integer(name: str, too_big: str, library_names: tuple[str, ...] = ()) -> list:
    """An int parameter; ``too_big`` is an int the library must refuse.

    ``library_names`` are C function names a refusal by oneDNN may give
    instead of the parameter's name (for ints the binding passes on).
    """
    names = (name, *library_names)
    return [
        ("-1", "-1", Raises(TYPE_OR_VALUE, names)),
        ("too big", too_big, Raises(TYPE_OR_VALUE, names)),
        ("2**40", "2**40", Raises(TYPE_OR_VALUE, names)),
        ("2**64", "2**64", Raises(TYPE_OR_VALUE, name)),
        ("-2**63", "-2**63", Raises(TYPE_OR_VALUE, name)),
        ("None", "None", _not_a(name)),
        ("float", "1.5", _not_a(name)),
        ("integral float", "0.0", _not_a(name)),
        ("str", "'0'", _not_a(name)),
        ("bytes", "b'0'", _not_a(name)),
        ("Fraction", "Fraction(0)", _not_a(name)),
        ("Decimal", "Decimal(0)", _not_a(name)),
        ("list", "[0]", _not_a(name)),
    ]


def engine_kind(name: str, function: str) -> list:
    either_error = Raises(("ValueError", "RuntimeError", "NotImplementedError"), (name, function))
    return [
        ("7", "7", Raises(TYPE_OR_VALUE, (name, function))),
        ("-1", "-1", Raises(TYPE_OR_VALUE, (name, function))),
        ("2**64", "2**64", Raises(TYPE_OR_VALUE, name)),
        ("str", "'cpu'", _not_a(name)),
        ("None", "None", _not_a(name)),
        ("float", "1.0", _not_a(name)),
        ("Fraction", "Fraction(1)", _not_a(name)),
        ("another enum", "ocl.MemoryKind.BUFFER", Either(Ok(), Raises(TYPE, name))),
        ("GPU (none here)", "dnnl.EngineKind.GPU", either_error),
        ("ANY", "dnnl.EngineKind.ANY", Either(Ok(), either_error)),
    ]


def shape(name: str = "shape") -> list:
    function = "dnnl_memory_desc_create_with_tag"
    return [
        ("floats", "(2.7, 3.9)", _not_a(name)),
        ("integral floats", "(4.0, 4.0)", _not_a(name)),
        ("strings", "('2', '3')", _not_a(name)),
        ("bools", "(True, 2)", _not_a(name)),
        ("None in it", "(2, None)", _not_a(name)),
        ("Fraction", "(Fraction(2), 3)", _not_a(name)),
        ("Decimal", "(Decimal(2), 3)", _not_a(name)),
        ("numpy float", "(np.float32(2), 3)", _not_a(name)),
        ("None", "None", _not_a(name)),
        ("int", "5", _not_a(name)),
        ("str", "'ab'", _not_a(name)),
        ("negative", "(-1, 2)", Raises(VALUE, (name, function))),
        # INT64_MIN is RUNTIME_DIM: a valid descriptor, whose size (what the case asks) is unknown.
        ("INT64_MIN (runtime dim)", "(-2**63, 2)", Raises(VALUE, "RUNTIME_DIM")),
        ("2**63", "(2**63, 1)", Raises(VALUE, name)),
        ("2**64", "(2**64, 1)", Raises(VALUE, name)),
        ("empty", "()", Raises(VALUE, name)),
        ("13 dims", "tuple(range(1, 14))", Raises(VALUE, name)),
        ("list", "[4, 4]", Ok()),
        ("ndarray", "np.array([4, 4])", Ok()),
        ("numpy ints", "(np.int64(4), np.int32(4))", Ok()),
        ("zero dim", "(0, 4)", Ok()),
    ]


def dtype(name: str = "dtype") -> list:
    function = "dnnl_memory_desc_create_with_tag"
    return [
        ("None", "None", _not_a(name)),
        ("complex64", "'complex64'", _not_a(name)),
        ("int", "12", _not_a(name)),
        ("unknown name", "'xyz'", _not_a(name)),
        ("object", "object", _not_a(name)),
        ("list", "[]", _not_a(name)),
        ("float", "1.5", _not_a(name)),
        ("padded name", "'float32 '", _not_a(name)),
        ("big-endian float32", "np.dtype('>f4')", Either(Ok(), Raises(TYPE_OR_VALUE, name))),
        ("UNDEF", "dnnl.DataType.UNDEF", Raises(TYPE_OR_VALUE, (name, function))),
        ("undef by name", "'undef'", Raises(TYPE_OR_VALUE, (name, function))),
        ("numpy type", "np.float32", Ok()),
        ("oneDNN name", "'f32'", Ok()),
    ]


def tag(name: str = "tag") -> list:
    function = "dnnl_memory_desc_create_with_tag"
    return [
        ("unknown", "'xyz'", Raises(VALUE, name)),
        ("None", "None", Raises(TYPE_OR_VALUE, name)),
        ("int", "3", Raises(TYPE_OR_VALUE, name)),
        ("list", "[]", Raises(TYPE_OR_VALUE, name)),
        ("bytes", "b'ab'", Raises(TYPE_OR_VALUE, name)),
        ("upper case", "'AB'", Raises(VALUE, name)),
        ("undef", "'undef'", Raises(VALUE, name)),
        ("3-d tag", "'abc'", Raises(VALUE, (name, function))),
        ("1-d tag", "'a'", Raises(VALUE, (name, function))),
        ("blocked 4-d tag", "'nChw16c'", Raises(VALUE, (name, function))),
        ("NUL in it", "'ab\\0'", Raises(VALUE, name)),
    ]


def cache_blob(name: str, function: str) -> list:
    odd = Either(Ok(), Raises(("TypeError", "ValueError", "NotImplementedError"), (name, function)))
    return [
        ("str", "'blob'", _not_a(name)),
        ("int", "5", _not_a(name)),
        ("list", "[1, 2]", _not_a(name)),
        ("Fraction", "Fraction(1)", _not_a(name)),
        ("object", "object()", _not_a(name)),
        ("empty", "b''", Raises(VALUE, (name, function))),
        ("garbage bytes", "bytes(range(64))", odd),
        ("ndarray", "np.zeros(3)", odd),
        ("memoryview", "memoryview(b'abc')", odd),
    ]


def verbose_level(name: str = "level") -> list:
    return [
        ("-1", "-1", Raises(TYPE_OR_VALUE, (name, "dnnl_set_verbose"))),
        ("3", "3", Either(Ok(), Raises(TYPE_OR_VALUE, (name, "dnnl_set_verbose")))),
        ("2**40", "2**40", Raises(TYPE_OR_VALUE, (name, "dnnl_set_verbose"))),
        ("2**64", "2**64", Raises(TYPE_OR_VALUE, name)),
        ("None", "None", _not_a(name)),
        ("float", "1.5", _not_a(name)),
        ("str", "'1'", _not_a(name)),
        ("Fraction", "Fraction(1)", _not_a(name)),
        ("Decimal", "Decimal(0)", _not_a(name)),
        ("list", "[]", _not_a(name)),
        ("0", "0", Ok()),
    ]
