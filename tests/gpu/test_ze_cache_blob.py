"""Level Zero engine cache blobs on real oneDNN, emulated GPU: ids, blobs, and restoring in a new process.

Second processes come from ``emulated_level_zero.run_in_child``; each has its
own emulated driver, device and context (other addresses, same device).
"""

from __future__ import annotations

import struct

import numpy as np

import dnnl_interop as dnnl
from dnnl_interop import ze
from dnnl_interop.testing import emulated_level_zero as emulated

from .ze_usm import transpose_over_shared_usm

# At collection, before any test of the session can start SYCL.
emulated.enable()

_SIZE = struct.calcsize("=Q")


def _blob_id_and_blob() -> tuple[bytes, bytes]:
    lz = emulated.enable()
    with ze.make_engine(lz.driver, lz.device, lz.context) as engine:
        return ze.get_engine_cache_blob_id(lz.driver, lz.device), ze.get_engine_cache_blob(engine)


def _restore_and_transpose_to_f16(blob: bytes, source: np.ndarray) -> tuple[np.ndarray, bytes]:
    """In a new process: an engine from ``blob`` runs an f32 -> f16 transposing reorder."""
    lz = emulated.enable()
    engine = ze.make_engine(lz.driver, lz.device, lz.context, blob)
    transposed = transpose_over_shared_usm(engine, lz, source, "float16")
    return transposed, ze.get_engine_cache_blob(engine)


def _renamed(blob: bytes, old: bytes, new: bytes) -> bytes:
    """``blob``, which ends with the device name ([size_t length][old]), naming ``new``."""
    start = len(blob) - len(old) - _SIZE
    assert blob.endswith(old) and struct.unpack_from("=Q", blob, start) == (len(old),), blob
    return blob[:start] + struct.pack("=Q", len(new)) + new


def test_the_blob_id_is_the_device_name_and_the_driver_version(emulated_level_zero):
    lz = emulated_level_zero
    blob_id = ze.get_engine_cache_blob_id(lz.driver, lz.device)
    name = lz.name.encode()
    version = lz.gpu.device.driver_version.encode() + b"\0"  # the runtime's, through the extension
    assert struct.unpack_from("=Q", blob_id)[0] == len(name)
    assert blob_id[_SIZE : _SIZE + len(name)] == name
    rest = blob_id[_SIZE + len(name) :]
    assert struct.unpack_from("=Q", rest)[0] == len(version)
    assert rest[_SIZE : _SIZE + len(version)] == version
    assert dnnl.version().hash.encode() in blob_id  # then oneDNN's version and hash


def test_the_blob_id_is_the_same_in_every_call_and_every_process(emulated_level_zero):
    lz = emulated_level_zero
    here = ze.get_engine_cache_blob_id(lz.driver, lz.device)
    assert ze.get_engine_cache_blob_id(lz.driver, lz.device) == here
    first, _ = emulated.run_in_child(_blob_id_and_blob)
    second, _ = emulated.run_in_child(_blob_id_and_blob)
    assert first == second == here


def test_the_engine_cache_blob_is_the_same_in_every_call_and_every_process(emulated_level_zero):
    lz = emulated_level_zero
    with ze.make_engine(lz.driver, lz.device, lz.context) as engine:
        here = ze.get_engine_cache_blob(engine)
        assert here and ze.get_engine_cache_blob(engine) == here
    _, first = emulated.run_in_child(_blob_id_and_blob)
    _, second = emulated.run_in_child(_blob_id_and_blob)
    assert first == second == here
    assert here.endswith(lz.name.encode())  # serialised device info, ending with the name


def test_an_engine_made_from_the_blob_in_the_same_process_gives_the_same_blob(emulated_level_zero):
    lz = emulated_level_zero
    with ze.make_engine(lz.driver, lz.device, lz.context) as engine:
        blob = ze.get_engine_cache_blob(engine)
    with ze.make_engine(lz.driver, lz.device, lz.context, blob) as restored:
        assert ze.get_engine_cache_blob(restored) == blob
        assert ze.get_device(restored) == lz.device


def test_an_engine_restored_from_the_blob_in_a_second_process_runs_a_reorder(emulated_level_zero):
    lz = emulated_level_zero
    with ze.make_engine(lz.driver, lz.device, lz.context) as engine:
        blob = ze.get_engine_cache_blob(engine)
    source = np.linspace(-3.0, 3.0, 24 * 40, dtype=np.float32).reshape(24, 40)
    out, blob_again = emulated.run_in_child(_restore_and_transpose_to_f16, blob, source)
    np.testing.assert_array_equal(out, source.T.astype(np.float16))
    assert blob_again == blob


def test_a_second_process_takes_the_device_description_from_the_blob_it_is_given(emulated_level_zero):
    # A new process has no cached device info, so oneDNN describes the device
    # from the blob and hands that description back verbatim: a blob naming
    # the device differently comes back as given, and the engine still works.
    lz = emulated_level_zero
    with ze.make_engine(lz.driver, lz.device, lz.context) as engine:
        blob = ze.get_engine_cache_blob(engine)
    renamed = _renamed(blob, lz.name.encode(), b"A device described by its blob")
    assert renamed != blob
    source = np.arange(6 * 10, dtype=np.float32).reshape(6, 10)
    out, blob_again = emulated.run_in_child(_restore_and_transpose_to_f16, renamed, source)
    assert blob_again == renamed
    np.testing.assert_array_equal(out, source.T.astype(np.float16))


def test_in_a_process_that_knows_the_device_a_blob_given_is_ignored(emulated_level_zero):
    # oneDNN caches device info per device UUID: once it has described the
    # device, a blob given later (here, one naming the device differently)
    # is not read; the engine reports the description it already has.
    lz = emulated_level_zero
    with ze.make_engine(lz.driver, lz.device, lz.context) as engine:
        blob = ze.get_engine_cache_blob(engine)
    renamed = _renamed(blob, lz.name.encode(), b"A device described by its blob")
    with ze.make_engine(lz.driver, lz.device, lz.context, renamed) as restored:
        assert ze.get_engine_cache_blob(restored) == blob
