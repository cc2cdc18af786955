"""Why a start is slow, without a debugger: the ``dnnl_interop`` logger at DEBUG.

Making a primitive descriptor or a primitive logs its kind, the time oneDNN
took and the implementation it chose (logger ``dnnl_interop``); cached
creation logs each hit, miss and refusal with the time the creation took,
and objects made without the store (logger ``dnnl_interop.cache``, a child
of ``dnnl_interop``: one ``logging.getLogger("dnnl_interop").setLevel``
shows both).
"""

from __future__ import annotations

import logging
import re

import pytest

import dnnl_interop as dnnl
from dnnl_interop import _cached
from dnnl_interop.cache import CacheBlobStore
from dnnl_interop.errors import InvalidArgumentsError, Status

TIME = r"\d+\.\d\d ms"


def _messages(caplog, logger: str) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.name == logger]


def test_a_reorder_logs_its_descriptor_and_primitive_creation_times(engine, caplog):
    with caplog.at_level(logging.DEBUG, "dnnl_interop"):
        primitive = dnnl.reorder(dnnl.MemoryDesc((64, 64), "f32", "ab"), dnnl.MemoryDesc((64, 64), "f32", "ba"),
                                 engine)
    primitive.close()
    descriptor, made = _messages(caplog, "dnnl_interop")
    assert re.fullmatch(rf"reorder primitive descriptor made in {TIME} \(implementation \S+\)", descriptor)
    assert re.fullmatch(rf"reorder primitive made in {TIME} \(implementation \S+\)", made)


def test_a_forward_primitive_logs_its_descriptor_and_primitive_creation_times(engine, caplog):
    desc = dnnl.MemoryDesc((16, 16), "f32", "ab")
    with caplog.at_level(logging.DEBUG, "dnnl_interop"):
        pd = dnnl.MatmulDesc(engine, desc, desc, desc)
        primitive = dnnl.Primitive(pd)
    implementation = pd.impl_info
    primitive.close()
    pd.close()
    descriptor, made = _messages(caplog, "dnnl_interop")
    chosen = re.escape(implementation)
    assert re.fullmatch(rf"matmul primitive descriptor made in {TIME} \(implementation {chosen}\)", descriptor)
    assert re.fullmatch(rf"matmul primitive made in {TIME} \(implementation {chosen}\)", made)


def test_nothing_is_logged_or_queried_above_debug(engine, caplog, monkeypatch):
    asked = []
    monkeypatch.setattr(dnnl.PrimitiveDesc, "impl_info", property(lambda self: asked.append(self) or ""))
    with caplog.at_level(logging.INFO, "dnnl_interop"):
        dnnl.reorder(dnnl.MemoryDesc((4, 4), "f32", "ab"), dnnl.MemoryDesc((4, 4), "f32", "ba"), engine).close()
    assert _messages(caplog, "dnnl_interop") == [] and asked == []


def test_cached_creation_on_the_cpu_engine_logs_that_the_store_is_not_used(engine, tmp_path, caplog):
    with caplog.at_level(logging.DEBUG, "dnnl_interop"):
        dnnl.reorder_cached(dnnl.MemoryDesc((4, 4), "f32", "ab"), dnnl.MemoryDesc((4, 4), "f32", "ba"), engine,
                            store=CacheBlobStore(tmp_path)).close()
    assert _messages(caplog, "dnnl_interop.cache") == [
        "primitive: its engine makes no cache blobs (the CPU engine); made without the store"
    ]


# --- hits, misses and refusals: the rule of _cached, on objects that stand in for engines ---------


class _Made:
    """What cached creation makes (an engine or a primitive), with the blob it gives back."""

    def __init__(self, blob: bytes) -> None:
        self.blob, self.closed = blob, False

    def close(self) -> None:
        self.closed = True


def _create(store: CacheBlobStore, from_blob):
    return _cached._create_cached(
        "OpenCL engine", "ocl", b"device-id", store, from_blob, lambda: _Made(b"fresh blob"),
        lambda made: made.blob, gives_blob_back=True,
    )


@pytest.fixture
def store(tmp_path):
    return CacheBlobStore(tmp_path / "store")


def test_a_miss_logs_the_miss_the_creation_time_and_the_save(store, caplog):
    with caplog.at_level(logging.DEBUG, "dnnl_interop"):
        _create(store, _Made)
    path = store.path_for("ocl", b"device-id")
    miss, fresh, saved = _messages(caplog, "dnnl_interop.cache")
    assert miss == f"OpenCL engine: cache miss; no entry {path}"
    assert re.fullmatch(rf"OpenCL engine: made afresh in {TIME}", fresh)
    assert saved == "OpenCL engine made afresh; its 10-byte cache blob saved"


def test_a_hit_logs_the_blob_and_the_creation_time(store, caplog):
    assert store.put("ocl", b"device-id", b"fresh blob")
    with caplog.at_level(logging.DEBUG, "dnnl_interop"):
        _create(store, _Made)
    (hit,) = _messages(caplog, "dnnl_interop.cache")
    path = store.path_for("ocl", b"device-id")
    assert re.fullmatch(rf"OpenCL engine: cache hit; made from the 10-byte blob in {re.escape(str(path))} in {TIME}",
                        hit)


@pytest.mark.parametrize(
    ("from_blob", "reason"),
    [
        (lambda blob: _Made(b"another blob"), "oneDNN made the engine from it but gives back another blob"),
        (lambda blob: (_ for _ in ()).throw(InvalidArgumentsError(Status.INVALID_ARGUMENTS, "f")), "refused: "),
    ],
    ids=["another blob back", "refused by oneDNN"],
)
def test_a_refused_blob_is_a_warning_with_the_reason_and_the_time_of_the_fresh_creation(
        store, caplog, from_blob, reason):
    assert store.put("ocl", b"device-id", b"stale blob")
    with caplog.at_level(logging.DEBUG, "dnnl_interop"):
        _create(store, from_blob)
    records = [record for record in caplog.records if record.name == "dnnl_interop.cache"]
    assert records[0].levelno == logging.WARNING
    path = store.path_for("ocl", b"device-id")
    assert records[0].getMessage().startswith(f"OpenCL engine: the cache blob in {path} was not used: {reason}")
    assert re.search(rf"; made afresh in {TIME}, rewriting the entry$", records[0].getMessage())
    assert store.get("ocl", b"device-id") == b"fresh blob"


def test_an_engine_without_a_blob_id_logs_that_the_store_is_not_used(store, caplog):
    with caplog.at_level(logging.DEBUG, "dnnl_interop"):
        _cached.make_engine_cached("ze", lambda: b"", store, lambda blob: _Made(b""), lambda made: made.blob)
    assert _messages(caplog, "dnnl_interop.cache") == [
        "Level Zero engine: the device has no engine cache-blob id; made without the store"
    ]
