"""Cached creation across processes on real oneDNN, emulated GPU (OpenCL and Level Zero).

Process 1 makes an engine and a reorder cold and saves both blobs in a
:class:`CacheBlobStore`; process 2 restores both from disk and runs the
reorder, its data checked against numpy. Entries damaged on disk between the
two are caught by the store and never reach oneDNN; blobs oneDNN refuses are
replaced.

The backward kinds go through the store the same way: a convolution backward
weights and max pooling backwards (with the workspace their forward wrote)
made from process 1's blobs compute numpy's gradients in process 2. The key
of a backward primitive is its descriptor's cache-blob id, which covers what
its hint decides: two pooling backward descriptors of the same arguments
whose hints chose other layouts (and workspaces) get entries of their own,
while a convolution backward weights, which takes nothing from its hint's
choice, is made from the same entry whatever its hint.

What reached oneDNN is observed twice in each child process: every engine
and primitive creation goes through ``ocl.make_engine``/``ze.make_engine``
and ``Primitive.__init__`` (``_primitive._create_primitive``), which the child
wraps to record the blob handed on (None for a fresh creation); and oneDNN's
own verbose log says how it made each primitive (``cache_miss``: compiled,
``persistent_cache_hit``: from a cache blob). The children are fresh
processes (``run_in_child``) so that oneDNN's in-process primitive cache
and device descriptions play no part.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import logging
import os
import struct
import sys

import numpy as np
import pytest

import backward_normalizations_reference as bref  # tests/ is on the path
import backward_products_reference as bwd
import dnnl_interop as dnnl
from dnnl_interop import ocl, ze
from dnnl_interop.cache import HEADER_SIZE, CacheBlobStore, compose_key
from dnnl_interop.testing import emulated_gpu as gpu_emulation
from dnnl_interop.testing import emulated_level_zero as lz_emulation

from .backward_normalization_cases import TRAINING, distinct, plain
from .primitive_cases import halves

# At collection, before any test of the session can start SYCL (see test_ze_cache_blob).
lz_emulation.enable()

SHAPE = (48, 40)


def _source() -> np.ndarray:
    return np.random.default_rng(7).standard_normal(SHAPE).astype(np.float32)


# --- what the child processes run ------------------------------------------------


class _Warnings(logging.Handler):
    """Warnings of the ``dnnl_interop.cache`` logger, as text."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.texts: list[str] = []

    def emit(self, record):
        self.texts.append(record.getMessage())


@contextlib.contextmanager
def _onednn_verbose_lines(path: str):
    """oneDNN's verbose output (level 2) while the block runs, as a list filled at its end."""
    libc = ctypes.CDLL(None)
    lines: list[str] = []
    sys.stdout.flush()
    libc.fflush(None)
    saved = os.dup(1)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 1)
    dnnl.set_verbose(2)
    try:
        yield lines
    finally:
        dnnl.set_verbose(0)
        libc.fflush(None)
        os.dup2(saved, 1)
        os.close(fd)
        os.close(saved)
        with open(path, encoding="utf-8", errors="replace") as f:
            lines += f.read().splitlines()


def _primitive_creations(lines: list[str]) -> list[str]:
    """How oneDNN made each primitive: "cache_miss", "persistent_cache_hit", ..."""
    kinds = []
    for line in lines:
        fields = line.split(",")
        if len(fields) > 3 and fields[2] == "primitive" and fields[3].startswith("create:") \
                and fields[3] != "create:dispatch":
            kinds.append(fields[3][len("create:"):])
    return kinds


_HANDLES = {"ocl": 2, "ze": 3}  # make_engine(*handles, cache_blob)


def _record_what_reaches_onednn(runtime: str) -> list[tuple[str, bytes | None]]:
    """Wrap ``make_engine`` and ``_primitive._create_primitive``: every creation, with its blob."""
    from dnnl_interop import _primitive

    module = ocl if runtime == "ocl" else ze
    calls: list[tuple[str, bytes | None]] = []
    make_engine, create_primitive = module.make_engine, _primitive._create_primitive
    count = _HANDLES[runtime]

    def engine(*args):
        blob = args[count] if len(args) > count else None
        calls.append(("engine", None if blob is None else bytes(blob)))
        return make_engine(*args)

    def primitive(obj, desc, cache_blob):
        calls.append(("primitive", None if cache_blob is None else bytes(cache_blob)))
        return create_primitive(obj, desc, cache_blob)

    module.make_engine, _primitive._create_primitive = engine, primitive
    return calls


def _process(runtime: str, directory: str, source: np.ndarray, scratch: str) -> dict:
    """One process of the application: engine and reorder through the store, then the reorder run."""
    module = ocl if runtime == "ocl" else ze
    if runtime == "ocl":
        gpu = gpu_emulation.enable()
        handles = (gpu.device, gpu.context)
    else:
        lz = lz_emulation.enable()
        handles = (lz.driver, lz.device, lz.context)
    warnings = _Warnings()
    logging.getLogger("dnnl_interop.cache").addHandler(warnings)
    calls = _record_what_reaches_onednn(runtime)
    store = CacheBlobStore(directory)
    src_desc = dnnl.MemoryDesc(source.shape, "float32", "ab")
    dst_desc = dnnl.MemoryDesc(source.shape, "float32", "ba")
    with _onednn_verbose_lines(os.path.join(scratch, "verbose.txt")) as verbose:
        engine = module.make_engine_cached(*handles, store=store)
        primitive = dnnl.reorder_cached(src_desc, dst_desc, engine, store=store)
    with dnnl.PrimitiveDesc.reorder(src_desc, dst_desc, engine) as desc:
        primitive_blob_id = desc.cache_blob_id
    engine_blob_id = module.get_engine_cache_blob_id(*handles[:-1])
    return {
        "calls": calls,
        "creations": _primitive_creations(verbose),
        "warnings": warnings.texts,
        "out": (_run_ocl if runtime == "ocl" else _run_ze)(engine, primitive, src_desc, dst_desc, source),
        "engine_key": engine_blob_id,
        "primitive_key": compose_key(engine_blob_id, primitive_blob_id),
        "engine_blob": module.get_engine_cache_blob(engine),
        "primitive_blob": primitive.get_cache_blob(),
    }


def _run_ocl(engine, primitive, src_desc, dst_desc, source: np.ndarray) -> np.ndarray:
    import pyopencl as cl

    gpu = gpu_emulation.enable()
    queue = cl.CommandQueue(gpu.context)
    mf = cl.mem_flags
    src_buffer = cl.Buffer(gpu.context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=source)
    dst_buffer = cl.Buffer(gpu.context, mf.READ_WRITE, size=dst_desc.size)
    with ocl.make_stream(engine, queue) as stream:
        ocl.execute(primitive, stream, {
            dnnl.ARG_FROM: ocl.make_memory(src_desc, engine, ocl.MemoryKind.BUFFER, src_buffer),
            dnnl.ARG_TO: ocl.make_memory(dst_desc, engine, ocl.MemoryKind.BUFFER, dst_buffer),
        })
    out = np.empty(source.shape[::-1], np.float32)
    cl.enqueue_copy(queue, out, dst_buffer)
    queue.finish()
    return out


def _run_ze(engine, primitive, src_desc, dst_desc, source: np.ndarray) -> np.ndarray:
    lz = lz_emulation.enable()
    src, dst = lz.shared(source.shape, "float32"), lz.shared(source.shape[::-1], "float32")
    src.array[:] = source
    with ze.make_stream(engine, lz.command_list) as stream:
        ze.execute(primitive, stream, {
            dnnl.ARG_FROM: ze.make_memory(src_desc, engine, src.array),
            dnnl.ARG_TO: ze.make_memory(dst_desc, engine, dst.array.T),
        })
        stream.wait()
    return dst.array.copy()


def _in_child(runtime: str, directory, tmp_path, name: str) -> dict:
    scratch = tmp_path / name
    scratch.mkdir()
    run = gpu_emulation.run_in_child if runtime == "ocl" else lz_emulation.run_in_child
    return run(_process, runtime, str(directory), _source(), str(scratch), timeout=600)


# --- damage done on disk between two processes --------------------------------------


def _blob_offset(path) -> int:
    """Where the blob starts in an entry file (after the header and the key)."""
    with open(path, "rb") as f:
        header = f.read(HEADER_SIZE)
    (key_size,) = struct.unpack_from("<I", header, 12)
    return HEADER_SIZE + key_size


def _flip_a_bit_in_the_blob(path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[_blob_offset(path) + at] ^= 0x10
    path.write_bytes(bytes(data))


def _cut(path, count: int) -> None:
    path.write_bytes(path.read_bytes()[:-count])


# --- two processes, OpenCL and Level Zero ----------------------------------------------

RUNTIMES = ["ocl", "ze"]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_process_two_restores_the_engine_and_the_reorder_that_process_one_saved(runtime, tmp_path):
    store_dir = tmp_path / "store"
    first = _in_child(runtime, store_dir, tmp_path, "first")
    assert first["calls"] == [("engine", None), ("primitive", None)]  # cold: nothing to restore
    assert first["creations"] == ["cache_miss"]
    assert first["warnings"] == []
    np.testing.assert_array_equal(first["out"], _source().T)

    store = CacheBlobStore(store_dir)
    assert {(entry.runtime, entry.key) for entry in store} == {
        (runtime, first["engine_key"]), (runtime, first["primitive_key"])
    }
    assert store.get(runtime, first["engine_key"]) == first["engine_blob"]
    assert store.get(runtime, first["primitive_key"]) == first["primitive_blob"]
    assert len(first["primitive_blob"]) > 10_000  # compiled kernels, not a description

    second = _in_child(runtime, store_dir, tmp_path, "second")
    assert second["calls"] == [("engine", first["engine_blob"]), ("primitive", first["primitive_blob"])]
    assert second["creations"] == ["persistent_cache_hit"]
    assert second["warnings"] == []
    np.testing.assert_array_equal(second["out"], _source().T)
    assert second["engine_blob"] == first["engine_blob"]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_primitive_entry_with_a_flipped_bit_is_caught_and_never_reaches_onednn(runtime, tmp_path):
    # The same flip handed straight to oneDNN ends the process: the OpenCL
    # runtime's compiler reads the damaged binary and exits ("Invalid function
    # argument type"; seen on both runtimes with oneDNN 3.13.2 and Intel's CPU
    # runtime). A child that got it would not come back.
    store_dir = tmp_path / "store"
    first = _in_child(runtime, store_dir, tmp_path, "first")
    store = CacheBlobStore(store_dir)
    entry = store.path_for(runtime, first["primitive_key"])
    _flip_a_bit_in_the_blob(entry, 1000)

    second = _in_child(runtime, store_dir, tmp_path, "second")
    assert second["calls"] == [("engine", first["engine_blob"]), ("primitive", None)]
    assert second["creations"] == ["cache_miss"]
    assert any("fails its checksum" in text for text in second["warnings"]), second["warnings"]
    np.testing.assert_array_equal(second["out"], _source().T)

    assert store.verify().clean
    assert store.get(runtime, first["primitive_key"]) == second["primitive_blob"]  # rewritten
    third = _in_child(runtime, store_dir, tmp_path, "third")
    assert third["calls"][1] == ("primitive", second["primitive_blob"])
    assert third["creations"] == ["persistent_cache_hit"]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_truncated_engine_entry_is_caught_and_never_reaches_onednn(runtime, tmp_path):
    # A truncated engine blob handed to a new process is kept by oneDNN as the
    # device's description: its engines then make no primitives.
    store_dir = tmp_path / "store"
    first = _in_child(runtime, store_dir, tmp_path, "first")
    store = CacheBlobStore(store_dir)
    _cut(store.path_for(runtime, first["engine_key"]), 10)

    second = _in_child(runtime, store_dir, tmp_path, "second")
    assert second["calls"] == [("engine", None), ("primitive", first["primitive_blob"])]
    assert any("truncated" in text for text in second["warnings"]), second["warnings"]
    np.testing.assert_array_equal(second["out"], _source().T)
    assert store.get(runtime, first["engine_key"]) == first["engine_blob"]  # rewritten


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_primitive_blob_onednn_refuses_is_replaced_by_a_fresh_primitive(runtime, tmp_path):
    # A sound entry holding a blob oneDNN refuses (short by 10 bytes: oneDNN
    # answers INVALID_ARGUMENTS on OpenCL, RUNTIME_ERROR on Level Zero):
    # tried once, then made afresh and rewritten.
    store_dir = tmp_path / "store"
    first = _in_child(runtime, store_dir, tmp_path, "first")
    store = CacheBlobStore(store_dir)
    short = first["primitive_blob"][:-10]
    assert store.put(runtime, first["primitive_key"], short)

    second = _in_child(runtime, store_dir, tmp_path, "second")
    assert second["calls"] == [("engine", first["engine_blob"]), ("primitive", short), ("primitive", None)]
    assert second["creations"] == ["cache_miss"]
    expected = "INVALID_ARGUMENTS" if runtime == "ocl" else "RUNTIME_ERROR"
    assert any("refused: " in text and expected in text for text in second["warnings"]), second["warnings"]
    np.testing.assert_array_equal(second["out"], _source().T)
    assert store.get(runtime, first["primitive_key"]) == second["primitive_blob"]


# --- in this process -----------------------------------------------------------------


@pytest.fixture
def store(tmp_path):
    return CacheBlobStore(tmp_path / "store")


def _reorder_desc(engine, shape=SHAPE, dst_tag="ba"):
    return dnnl.PrimitiveDesc.reorder(
        dnnl.MemoryDesc(shape, "float32", "ab"), dnnl.MemoryDesc(shape, "float32", dst_tag), engine
    )


def test_a_gpu_reorder_descriptor_has_a_cache_blob_id_naming_the_reorder(engine):
    with _reorder_desc(engine) as desc, _reorder_desc(engine) as same, \
            _reorder_desc(engine, dst_tag="ab") as other, _reorder_desc(engine, (8, 8)) as smaller:
        assert desc.impl_info == "ocl:ref:any"
        assert desc.cache_blob_id and desc.cache_blob_id == same.cache_blob_id
        assert len({desc.cache_blob_id, other.cache_blob_id, smaller.cache_blob_id}) == 3
        assert desc.arg_sizes == {dnnl.ARG_FROM: 48 * 40 * 4, dnnl.ARG_TO: 48 * 40 * 4}


def test_a_primitive_made_from_its_cache_blob_gives_the_same_blob_and_the_same_data(engine):
    with _reorder_desc(engine) as desc:
        blob = dnnl.Primitive(desc).get_cache_blob()
        restored = dnnl.Primitive(desc, blob)
    assert len(blob) > 10_000
    assert restored.get_cache_blob() == blob
    src_desc, dst_desc = dnnl.MemoryDesc(SHAPE, "float32", "ab"), dnnl.MemoryDesc(SHAPE, "float32", "ba")
    out = _run_ocl(engine, restored, src_desc, dst_desc, _source())
    np.testing.assert_array_equal(out, _source().T)


def test_a_descriptor_adopted_without_its_engine_is_cached_under_its_engine_s_key(engine, store):
    # What another cffi module hands over: a raw dnnl_primitive_desc_t.
    from dnnl_interop._ffi import ffi, lib

    src_desc, dst_desc = dnnl.MemoryDesc(SHAPE, "float32", "ab"), dnnl.MemoryDesc(SHAPE, "float32", "ba")
    raw = ffi.new("dnnl_primitive_desc_t *")
    assert lib.dnnl_reorder_primitive_desc_create(
        raw, src_desc.handle, engine.handle, dst_desc.handle, engine.handle, ffi.NULL) == 0
    try:
        desc = dnnl.PrimitiveDesc.from_handle(raw[0])
    finally:
        lib.dnnl_primitive_desc_destroy(raw[0])  # ours is a clone
    assert desc.engine is None
    primitive = dnnl.make_primitive_cached(desc, store)
    key = compose_key(ocl.get_engine_cache_blob_id(gpu_emulation.enable().device), desc.cache_blob_id)
    assert store.get("ocl", key) == primitive.get_cache_blob()
    out = _run_ocl(engine, primitive, src_desc, dst_desc, _source())
    np.testing.assert_array_equal(out, _source().T)


def _renamed(blob: bytes, new_name: bytes) -> bytes:
    """An engine blob, which ends with the device name as ``[u64 length][name]``, naming another device."""
    for length in range(1, 256):
        start = len(blob) - length - 8
        if start > 0 and struct.unpack_from("<Q", blob, start) == (length,):
            return blob[:start] + struct.pack("<Q", len(new_name)) + new_name
    raise AssertionError(f"no device name at the end of {blob!r}")


def _engine_entry_replaced(emulated, store, bad: bytes) -> tuple[bytes, list[str]]:
    """``bad`` stored as the device's engine entry, then an engine made through the store:
    what the entry holds afterwards and the warnings given. The engine must make reorders."""
    caught = _Warnings()
    logger = logging.getLogger("dnnl_interop.cache")
    logger.addHandler(caught)
    key = ocl.get_engine_cache_blob_id(emulated.device)
    try:
        assert store.put("ocl", key, bad)
        with ocl.make_engine_cached(emulated.device, emulated.context, store) as made:
            with _reorder_desc(made) as desc:
                assert desc.impl_info == "ocl:ref:any"
    finally:
        logger.removeHandler(caught)
    return store.get("ocl", key), caught.texts


def test_an_engine_entry_the_engine_does_not_give_back_is_rewritten(emulated_gpu, engine, store):
    # This process knows the device (the engine fixture): oneDNN ignores the
    # blob given (here one naming another device) and gives back its own.
    good = ocl.get_engine_cache_blob(engine)
    other = _renamed(good, b"Another device")
    assert other != good
    entry, warnings = _engine_entry_replaced(emulated_gpu, store, other)
    assert entry == good
    assert any("gives back another blob" in text for text in warnings), warnings


def test_a_malformed_engine_entry_is_refused_and_rewritten(emulated_gpu, engine, store):
    # Ten bytes of a 131-byte blob, stored as a sound entry: refused before
    # oneDNN parses it where the binding checks the layout, else ignored by
    # oneDNN in this process; either way the engine is made afresh.
    good = ocl.get_engine_cache_blob(engine)
    entry, warnings = _engine_entry_replaced(emulated_gpu, store, good[:10])
    assert entry == good
    assert any("was not used" in text for text in warnings), warnings


def _engine_and_reorder_through(store, emulated) -> np.ndarray:
    with ocl.make_engine_cached(emulated.device, emulated.context, store) as made:
        src_desc, dst_desc = dnnl.MemoryDesc(SHAPE, "float32", "ab"), dnnl.MemoryDesc(SHAPE, "float32", "ba")
        primitive = dnnl.reorder_cached(src_desc, dst_desc, made, store=store)
        return _run_ocl(made, primitive, src_desc, dst_desc, _source())


def test_a_store_that_cannot_be_written_never_fails_the_creation(emulated_gpu, engine, tmp_path):
    # Real, not simulated: the store's directory is a file (tests run as root,
    # which ignores a chmod'ed directory), so nothing can be created in it.
    blocker = tmp_path / "blocker"
    blocker.write_bytes(b"")
    store = CacheBlobStore(blocker / "store")
    np.testing.assert_array_equal(_engine_and_reorder_through(store, emulated_gpu), _source().T)
    assert [path.name for path in tmp_path.iterdir()] == ["blocker"]
    assert blocker.read_bytes() == b""


def test_a_full_disk_never_fails_the_creation(emulated_gpu, engine, store, monkeypatch):
    # Simulated: every os.write raises ENOSPC.
    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full)
    np.testing.assert_array_equal(_engine_and_reorder_through(store, emulated_gpu), _source().T)
    monkeypatch.undo()
    assert list(store) == []


def _default_store_directory(cache_home: str) -> list[str]:
    os.environ["XDG_CACHE_HOME"] = cache_home
    gpu = gpu_emulation.enable()
    engine = ocl.make_engine_cached(gpu.device, gpu.context)
    dnnl.reorder_cached(dnnl.MemoryDesc((4, 4), "f32", "ab"), dnnl.MemoryDesc((4, 4), "f32", "ba"), engine)
    from dnnl_interop import _cached

    return [str(_cached.default_store().directory), *(entry.runtime for entry in _cached.default_store())]


def test_store_none_is_one_store_in_the_user_cache_directory(tmp_path):
    directory, *runtimes = gpu_emulation.run_in_child(_default_store_directory, str(tmp_path))
    assert directory == str(tmp_path / "dnnl-interop" / "blobs")
    assert runtimes == ["ocl", "ocl"]  # the engine and the reorder


# --- backward kinds through the store, across two processes ---------------------------

CONV = dict(src=(2, 4, 5, 5), weights=(6, 4, 3, 3), dst=(2, 6, 3, 3), strides=(2, 2), padding_l=(1, 1),
            padding_r=(1, 1))
POOLING = dict(src=(1, 16, 5, 5), dst=(1, 16, 3, 3), strides=(2, 2), kernel=(3, 3), padding_l=(1, 1),
               padding_r=(1, 1))
# The forward pooling's src layout: its backward descriptors ("any" throughout) are the
# same but for their hint, which chooses their layouts and the workspace's.
POOLING_HINTS = ("abcd", "acdb")
CONV_BWD = "convolution backward weights"


def _any(shape) -> dnnl.MemoryDesc:
    return dnnl.MemoryDesc(shape, "f32", "any")


def _convolution_backward_weights(engine, hint_layout: str) -> tuple[dnnl.ConvolutionBackwardWeightsDesc, str]:
    """On plain layouts with the bias's gradient; its hint, the forward training descriptor,
    on ``hint_layout`` ("abcd", or "any": the layouts the forward implementation prefers),
    whose src layout is returned too."""
    c = CONV
    geometry = (c["strides"], c["padding_l"], c["padding_r"])
    src, weights, dst = (dnnl.MemoryDesc(c[name], "f32", hint_layout) for name in ("src", "weights", "dst"))
    hint = dnnl.ConvolutionForwardDesc(engine, src, weights, dst, *geometry,
                                       bias_desc=plain((c["dst"][1],)), prop_kind=TRAINING)
    chosen = hint.src_desc().tag
    return dnnl.ConvolutionBackwardWeightsDesc(engine, plain(c["src"]), plain(c["weights"]), plain(c["dst"]),
                                               *geometry, hint, diff_bias_desc=plain((c["dst"][1],))), chosen


def _pooling(engine, hint_layout: str) -> tuple[dnnl.PoolingForwardDesc, dnnl.PoolingBackwardDesc]:
    """Max pooling's forward training descriptor, on src in ``hint_layout``, and its backward one."""
    p = POOLING
    geometry = (p["strides"], p["kernel"], p["padding_l"], p["padding_r"])
    fwd = dnnl.PoolingForwardDesc(engine, dnnl.AlgKind.POOLING_MAX, dnnl.MemoryDesc(p["src"], "f32", hint_layout),
                                  _any(p["dst"]), *geometry, prop_kind=TRAINING)
    return fwd, dnnl.PoolingBackwardDesc(engine, dnnl.AlgKind.POOLING_MAX, _any(p["src"]), _any(p["dst"]),
                                         *geometry, fwd)


def _inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(31)
    return {"conv src": halves(rng, CONV["src"]), "conv diff_dst": halves(rng, CONV["dst"]),
            "pooling src": distinct(rng, POOLING["src"]),  # no ties: one maximum a window
            "pooling diff_dst": halves(rng, POOLING["dst"])}


def _expected_gradients() -> dict[str, dict[int, np.ndarray]]:
    """numpy's (the references of tests/backward_*_reference.py); sums of halves, exact in f32."""
    given, c, p = _inputs(), CONV, POOLING
    conv = {dnnl.ARG_DIFF_WEIGHTS: bwd.convolution_backward_weights(
                given["conv src"], given["conv diff_dst"], c["weights"], c["strides"], (0, 0), c["padding_l"],
                c["padding_r"]),
            dnnl.ARG_DIFF_BIAS: bwd.bias_backward(given["conv diff_dst"])}
    pooling = bref.pooling_backward(given["pooling src"], given["pooling diff_dst"], "MAX", p["strides"],
                                    p["kernel"], p["padding_l"], p["padding_r"])
    return {CONV_BWD: {arg: values.astype(np.float32) for arg, values in conv.items()}} | {
        f"pooling backward {layout}": {dnnl.ARG_DIFF_SRC: pooling.astype(np.float32)} for layout in POOLING_HINTS}


def _execute(primitive, desc, stream, inputs: dict[int, np.ndarray], workspace=None) -> dict[int, np.ndarray]:
    """``primitive`` (of ``desc``) run on memories oneDNN allocates in the layouts ``desc``
    chose: ``inputs`` written in, every other argument an output (NaN at first), returned."""
    memories, outputs = {}, {}
    for arg in desc.arg_sizes:
        if arg == dnnl.ARG_WORKSPACE:
            memories[arg] = workspace
            continue
        memory = memories[arg] = dnnl.Memory(desc.arg_desc(arg), desc.engine)
        with memory.mapped() as view:
            view[...] = inputs.get(arg, np.nan)
        if arg not in inputs:
            outputs[arg] = memory
    primitive.execute(stream, memories)
    stream.wait()
    found = {}
    for arg, memory in outputs.items():
        with memory.mapped() as view:
            found[arg] = view.copy()
    return found


def _backward_process(directory: str, verbose_path: str, conv_hint_layout: str) -> dict:
    """A training step's primitives made through the store in ``directory`` (run by
    ``run_in_child``), then run: a convolution backward weights (its hint on
    ``conv_hint_layout``) and, for each layout of ``POOLING_HINTS``, a max pooling forward
    training and its backward, which reads the workspace ``workspace_memory`` allocated
    and the forward wrote.

    Returns what each creation handed oneDNN (None: made afresh, else the blob), how
    oneDNN's verbose log says it made each, each primitive's blob and store key, the
    layouts the hints chose, the gradients, and how execute refused the abcd backward the
    workspace of the acdb forward."""
    import pyopencl as cl

    from dnnl_interop import _primitive

    created: list[bytes | None] = []
    create = _primitive._create_primitive

    def recording(primitive, desc, cache_blob):
        created.append(None if cache_blob is None else bytes(cache_blob))
        return create(primitive, desc, cache_blob)

    _primitive._create_primitive = recording
    gpu = gpu_emulation.enable()
    engine = ocl.make_engine(gpu.device, gpu.context)
    stream = ocl.make_stream(engine, cl.CommandQueue(gpu.context))
    store = CacheBlobStore(directory)
    descs: dict[str, dnnl.PrimitiveDesc] = {}
    descs[CONV_BWD], conv_hint_chose = _convolution_backward_weights(engine, conv_hint_layout)
    for layout in POOLING_HINTS:
        descs[f"pooling forward {layout}"], descs[f"pooling backward {layout}"] = _pooling(engine, layout)
    with _onednn_verbose_lines(verbose_path) as verbose:
        primitives = {name: dnnl.make_primitive_cached(desc, store) for name, desc in descs.items()}

    given = _inputs()
    gradients = {CONV_BWD: _execute(primitives[CONV_BWD], descs[CONV_BWD], stream,
                                    {dnnl.ARG_SRC: given["conv src"], dnnl.ARG_DIFF_DST: given["conv diff_dst"]})}
    layouts: dict[str, object] = {CONV_BWD: conv_hint_chose}
    workspaces = {}
    for layout in POOLING_HINTS:
        fwd, backward = descs[f"pooling forward {layout}"], descs[f"pooling backward {layout}"]
        workspace = dnnl.workspace_memory(fwd)
        _execute(primitives[f"pooling forward {layout}"], fwd, stream, {dnnl.ARG_SRC: given["pooling src"]}, workspace)
        gradients[f"pooling backward {layout}"] = _execute(
            primitives[f"pooling backward {layout}"], backward, stream,
            {dnnl.ARG_DIFF_DST: given["pooling diff_dst"]}, workspace)
        layouts[f"pooling backward {layout}"] = (backward.diff_src_desc().tag, backward.workspace_desc().tag)
        workspaces[layout] = workspace
    try:  # the abcd backward given the workspace the acdb forward wrote
        _execute(primitives["pooling backward abcd"], descs["pooling backward abcd"], stream,
                 {dnnl.ARG_DIFF_DST: given["pooling diff_dst"]}, workspaces["acdb"])
        refusal = None
    except ValueError as error:
        refusal = str(error)
    engine_id = ocl.get_engine_cache_blob_id(gpu.device)
    return {
        "created": created,
        "creations": _primitive_creations(verbose),
        "blobs": {name: primitive.get_cache_blob() for name, primitive in primitives.items()},
        "keys": {name: compose_key(engine_id, desc.cache_blob_id) for name, desc in descs.items()},
        "layouts": layouts,
        "gradients": gradients,
        "other workspace": refusal,
    }


def test_process_two_makes_the_backward_primitives_from_the_blobs_process_one_saved(tmp_path):
    store_dir = tmp_path / "store"
    # Process 2's convolution hint chooses other layouts than process 1's: the backward
    # descriptor takes nothing from that choice, so its primitive comes from the same entry.
    first, second = (
        gpu_emulation.run_in_child(_backward_process, str(store_dir), str(tmp_path / f"{name}.txt"), layout,
                                   timeout=600)
        for name, layout in (("first", "abcd"), ("second", "any"))
    )
    names = list(first["blobs"])
    assert first["created"] == [None] * len(names)  # cold: nothing to restore
    assert first["creations"] == ["cache_miss"] * len(names)
    assert all(len(blob) > 10_000 for blob in first["blobs"].values())  # compiled kernels
    assert {entry.key for entry in CacheBlobStore(store_dir)} == set(first["keys"].values())  # one a primitive

    # The pooling hints chose other layouts for the same backward arguments: other keys.
    # (A key without the hint's part would hand the acdb backward the abcd one's blob, which
    # oneDNN 3.13 takes without a word, and its gradients would be wrong.)
    backwards = [f"pooling backward {layout}" for layout in POOLING_HINTS]
    assert first["layouts"][backwards[0]] == ("abcd", "abcd")
    assert first["layouts"][backwards[1]] == ("acdb", "acdb")
    assert len({first["keys"][name] for name in backwards}) == 2
    assert first["blobs"][backwards[0]] != first["blobs"][backwards[1]]
    assert first["layouts"][CONV_BWD] != second["layouts"][CONV_BWD]  # abcd, then the forward's choice

    assert second["keys"] == first["keys"]
    assert second["created"] == [first["blobs"][name] for name in names]  # every one from its own blob
    assert second["creations"] == ["persistent_cache_hit"] * len(names)  # nothing compiled
    expected = _expected_gradients()
    for process in (first, second):
        assert process["gradients"].keys() == expected.keys()
        for name, gradients in expected.items():
            assert process["gradients"][name].keys() == gradients.keys(), name
            for arg, values in gradients.items():
                np.testing.assert_array_equal(process["gradients"][name][arg], values, err_msg=f"{name}, args[{arg}]")
        assert process["other workspace"] is not None
        assert process["other workspace"].startswith("args[64] (ARG_WORKSPACE): the workspace is MemoryDesc((1, 16, 3, "
                                                      "3), s32, 'acdb'), allocated for the forward pooling")
