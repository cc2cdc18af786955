"""Soak: 100,000 create/destroy cycles of every object kind leak nothing.

Deselected by default; run with ``.venv/bin/pytest -m soak``. Each kind is
made and dropped (garbage collection destroys it) or closed, alternately,
100,000 times after a warm-up; the process's resident memory may grow by
less than 2 MiB and no oneDNN handle may be left. The OpenCL reference-count
half of this soak runs on the emulated GPU (``tests/gpu/test_gpu_soak.py``).
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import dnnl_interop as dnnl
from dnnl_interop import _owned
from memory_usage import rss_kb

pytestmark = pytest.mark.soak

CYCLES = 100_000
WARM_UP = 2_000
RSS_LIMIT_KB = 2 * 1024


@pytest.fixture(scope="module")
def engine(real_dnnl_module):
    with dnnl.Engine.cpu() as engine:
        yield engine


@pytest.fixture(scope="module")
def real_dnnl_module():
    from conftest import REAL_LIBRARY, _use

    return _use(REAL_LIBRARY)


def _soak(make) -> None:
    for i in range(WARM_UP):
        obj = make()
        if i % 2:
            obj.close()
        del obj
    gc.collect()
    live, before = _owned.live_objects(), rss_kb()
    for i in range(CYCLES):
        obj = make()
        if i % 2:
            obj.close()
        del obj
    gc.collect()
    grown = rss_kb() - before
    print(f"{CYCLES} cycles: RSS {grown:+d} kB, {_owned.live_objects() - live:+d} handles")
    assert _owned.live_objects() == live
    assert grown < RSS_LIMIT_KB, f"RSS grew by {grown} kB over {CYCLES} cycles"


def test_engines(real_dnnl_module):
    _soak(dnnl.Engine.cpu)


def test_streams(engine):
    _soak(lambda: dnnl.Stream(engine))


def test_memory_descriptors(real_dnnl_module):
    _soak(lambda: dnnl.MemoryDesc((8, 8), "f32", "ab"))


def test_memories_over_arrays(engine):
    desc = dnnl.MemoryDesc((8, 8), "f32", "ab")
    _soak(lambda: dnnl.Memory(desc, engine, np.zeros((8, 8), np.float32)))


def test_primitives(engine):
    src, dst = dnnl.MemoryDesc((8, 8), "f32", "ab"), dnnl.MemoryDesc((8, 8), "f32", "ba")
    _soak(lambda: dnnl.reorder(src, dst, engine))


def test_executions_dropped_before_the_wait(engine):
    """Work in flight keeps its objects; the stream's wait lets them go."""
    stream = dnnl.Stream(engine)
    src, dst = dnnl.MemoryDesc((8, 8), "f32", "ab"), dnnl.MemoryDesc((8, 8), "f32", "ba")
    primitive = dnnl.reorder(src, dst, engine)

    class Cycle:
        def __init__(self):
            a = np.ones((8, 8), np.float32)
            primitive.execute(stream, {dnnl.ARG_FROM: dnnl.Memory(src, engine, a),
                                       dnnl.ARG_TO: dnnl.Memory(dst, engine, np.empty_like(a).T)})
            stream.wait()

        def close(self):
            pass

    _soak(Cycle)
    stream.close()
