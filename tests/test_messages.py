"""Messages users met that did not say what was wrong: each now says it, and how to fix it.

Each test reads the message as the user sees it. (``cache list --dir`` on a
mistyped path is read in tests/test_cache_cli.py.)
"""

from __future__ import annotations

import os
import subprocess
import sys
import traceback
from pathlib import Path

import cffi
import pytest

import dnnl_interop as dnnl
from dnnl_interop import _engine, embedding, ocl
from dnnl_interop._enums import EngineKind
from dnnl_interop.testing import emulated_gpu


def _run(code: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=300)


# --- Engine.cpu() with the emulated GPU on -------------------------------------------------


def test_a_cpu_engine_in_a_process_with_the_emulated_gpu_blames_the_emulation():
    code = (
        "import dnnl_interop as dnnl\n"
        "try:\n"
        "    dnnl.Engine.cpu()\n"
        "except dnnl.InvalidArgumentsError as exc:\n"
        "    print(exc)\n"
    )
    done = _run(code, env=emulated_gpu.child_environment())
    assert done.returncode == 0, done.stderr
    message = done.stdout.strip()
    assert "oneDNN sees 0 CPU engine(s), index 0 asked; the emulated GPU is on in this process" in message
    assert "so oneDNN's SYCL runtime finds no CPU device" in message
    assert "Make CPU engines in a process without it" in message and "run_in_child" in message
    assert "OpenCL loader must find" not in message  # the setup is sound: no blame on it


def test_without_the_emulated_gpu_a_missing_cpu_engine_still_points_at_the_opencl_setup(monkeypatch):
    monkeypatch.setattr(_engine, "checked", lambda count, name: 0)  # as if oneDNN saw no CPU device
    monkeypatch.setenv("OPENCL_LAYERS", "/somewhere/liblayer.so")
    assert "the OpenCL loader must find" in _engine._engine_hint(EngineKind.CPU, 0)
    monkeypatch.setenv("OPENCL_LAYERS", os.pathsep.join(["/a/liblayer.so", f"/b/{emulated_gpu.LAYER_FILENAME}"]))
    assert "the emulated GPU is on in this process" in _engine._engine_hint(EngineKind.CPU, 0)
    assert _engine._EMULATED_GPU_LAYER == emulated_gpu.LAYER_FILENAME


# --- a reorder between transposed shapes -------------------------------------------------------


def test_a_reorder_between_transposed_shapes_says_the_shapes_differ_and_how_to_transpose(engine):
    with pytest.raises(dnnl.InvalidArgumentsError) as raised:
        dnnl.reorder(dnnl.MemoryDesc((2, 3), "f32", "ab"), dnnl.MemoryDesc((3, 2), "f32", "ab"), engine)
    message = str(raised.value)
    assert "the shapes differ, (2, 3) and (3, 2); a reorder copies one shape into another layout" in message
    assert "to transpose, reorder into MemoryDesc((2, 3), 'f32', 'ba')" in message
    # The advice works: the (2, 3) "ba" memory holds the transposed matrix.
    np = pytest.importorskip("numpy")
    src_desc, dst_desc = dnnl.MemoryDesc((2, 3), "f32", "ab"), dnnl.MemoryDesc((2, 3), "f32", "ba")
    matrix = np.arange(6, dtype=np.float32).reshape(2, 3)
    with dnnl.Stream(engine) as stream, dnnl.Memory(src_desc, engine, matrix) as src, \
            dnnl.Memory(dst_desc, engine) as dst, dnnl.reorder(src_desc, dst_desc, engine) as primitive:
        primitive.execute(stream, {dnnl.ARG_FROM: src, dnnl.ARG_TO: dst})
        stream.wait()
        transposed = np.frombuffer(np.asarray(dst).tobytes(order="A"), np.float32).reshape(3, 2)
        assert (transposed == matrix.T).all()


def test_a_reorder_between_other_shapes_names_them_without_the_transpose_advice(engine):
    with pytest.raises(dnnl.InvalidArgumentsError) as raised:
        dnnl.reorder(dnnl.MemoryDesc((2, 3), "f32", "ab"), dnnl.MemoryDesc((2, 4), "f32", "ab"), engine)
    assert "the shapes differ, (2, 3) and (2, 4)" in str(raised.value)
    assert "transpose" not in str(raised.value)


# --- a deconvolution oneDNN would compute past its scratchpad ----------------------------------


def test_a_deconvolution_into_a_dst_with_gaps_and_a_bias_says_why_and_to_compute_dense_then_reorder(engine):
    np = pytest.importorskip("numpy")
    x, w, b = np.ones((1, 2, 3), np.float32), np.ones((2, 2, 2), np.float32), np.array([10, 20], np.float32)
    src, weights, bias = (dnnl.MemoryDesc(a.shape, "f32", "abc"[:a.ndim]) for a in (x, w, b))
    base = np.zeros((1, 2, 8), np.float32)
    view = base[:, :, :4]  # the user's buffer: rows with gaps after them
    strided = dnnl.MemoryDesc.from_array(view)
    with pytest.raises(dnnl.UnimplementedError) as raised:
        dnnl.DeconvolutionForwardDesc(engine, src, weights, strided, [1], [0], [0], bias_desc=bias)
    message = str(raised.value)
    assert "dst_desc: MemoryDesc((1, 2, 4), f32, strides=(16, 8, 1)) leaves gaps between its elements" in message
    assert f"oneDNN {dnnl.version().number} has for it (conv:any+" in message
    assert "writes past the end of its scratchpad with a bias, post-ops, scales or zero points" in message
    assert "give a dense dst_desc (a plain tag such as 'abc', or 'any') and reorder the result into the " \
           "strided buffer (dnnl_interop.reorder)" in message
    # The advice works: computed into a dense dst, then reordered into the buffer with gaps.
    dense = dnnl.MemoryDesc((1, 2, 4), "f32", "abc")
    with dnnl.Stream(engine) as stream, \
            dnnl.DeconvolutionForwardDesc(engine, src, weights, dense, [1], [0], [0], bias_desc=bias) as pd, \
            dnnl.Primitive(pd) as primitive, dnnl.Memory(dense, engine) as dst, \
            dnnl.reorder(dense, strided, engine) as copy:
        primitive.execute(stream, {dnnl.ARG_SRC: dnnl.Memory(src, engine, x), dnnl.ARG_WEIGHTS: dnnl.Memory(
            weights, engine, w), dnnl.ARG_BIAS: dnnl.Memory(bias, engine, b), dnnl.ARG_DST: dst})
        copy.execute(stream, {dnnl.ARG_FROM: dst, dnnl.ARG_TO: dnnl.Memory(strided, engine, view)})
        stream.wait()
    np.testing.assert_array_equal(view, [[[12, 14, 14, 12], [22, 24, 24, 22]]])
    assert not base[:, :, 4:].any()


# --- a data type by another name ---------------------------------------------------------------


@pytest.mark.parametrize(("given", "suggested"), [("fp32", "f32"), ("FP16", "f16"), ("bfloat16", "bf16")])
def test_a_data_type_name_oneDNN_does_not_use_lists_the_accepted_names(given, suggested):
    with pytest.raises(TypeError) as raised:
        dnnl.MemoryDesc((2, 3), given, "ab")
    message = str(raised.value)
    assert message.startswith(f"dtype: {given!r} is no data type (did you mean {suggested!r}?); expected one of")
    assert "'f16', 'bf16', 'f32', 's32', 's8', 'u8'" in message and "'f8_e4m3'" in message
    assert "a DataType, or a numpy dtype oneDNN has (float16, float32" in message


def test_a_numpy_type_without_a_onednn_counterpart_lists_the_accepted_names_too():
    with pytest.raises(TypeError, match=r"^dtype: numpy's complex64 has no oneDNN data type; expected one of "):
        dnnl.MemoryDesc((2, 3), "complex64", "ab")


# --- device and context swapped -------------------------------------------------------------------


@pytest.fixture(scope="module")
def cl_device():
    cl = pytest.importorskip("pyopencl")
    devices = [device for platform in cl.get_platforms() for device in platform.get_devices()]
    if not devices:
        pytest.skip("no OpenCL device")
    return cl, devices[0], cl.Context([devices[0]])


def _shown(exc: BaseException) -> str:
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def test_device_and_context_swapped_say_so_without_an_internal_keyerror(cl_device):
    _, device, context = cl_device
    with pytest.raises(TypeError) as raised:
        ocl.make_engine(context, device)
    assert str(raised.value) == (
        "device: expected a cl_device_id (a pyopencl.Device), got a pyopencl.Context, which holds a "
        "cl_context; device and context are swapped: make_engine(device, context)"
    )
    assert "KeyError" not in _shown(raised.value) and "During handling" not in _shown(raised.value)


def test_a_handle_of_another_kind_names_what_to_pass_without_an_internal_keyerror(cl_device):
    cl, _, context = cl_device
    queue = cl.CommandQueue(context)
    with pytest.raises(TypeError) as raised:
        ocl.get_engine_cache_blob_id(queue)
    assert str(raised.value) == (
        "device: expected a cl_device_id (a pyopencl.Device), got a pyopencl.CommandQueue, "
        "which holds a cl_command_queue"
    )
    assert raised.value.__context__ is None and raised.value.__cause__ is None


# --- an embedding module imported before oneDNN is loaded --------------------------------------------


@pytest.fixture(scope="module")
def their_module(tmp_path_factory):
    """A cffi module on our types whose C calls oneDNN (tests/embedder.py), linked with link_args()."""
    sys.path.insert(0, str(Path(__file__).parent))
    from embedder import build

    directory = tmp_path_factory.mktemp("their_module")
    return build(directory, "messages_embedder", embedding.link_args())


def test_imported_first_the_module_fails_in_the_systems_loader_and_import_module_loads_onednn_first(their_module):
    env = {**os.environ, "PYTHONPATH": str(their_module)}
    env.pop("LD_LIBRARY_PATH", None)
    plain = _run("import messages_embedder", env=env)
    # The system's loader speaks before any of our code runs: its words cannot change.
    assert plain.returncode != 0 and "libdnnl.so.3: cannot open shared object file" in plain.stderr
    code = (
        "from dnnl_interop import embedding\n"
        "theirs = embedding.import_module('messages_embedder').lib\n"
        "print('engine', bool(theirs.make_cpu_engine()))  # its own C call into oneDNN\n"
    )
    done = _run(code, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "engine True"


def test_import_module_says_which_library_was_loaded_when_the_module_needs_another(real_dnnl, tmp_path):
    # A module linked with another oneDNN (soname libdnnl.so.9 here), which is not found.
    other = cffi.FFI()
    other.cdef("int other_version(void);")
    other.set_source("other_dnnl", "int other_version(void) { return 9; }",
                     extra_link_args=["-Wl,-soname,libdnnl.so.9"])
    built = Path(other.compile(tmpdir=str(tmp_path / "other")))
    library = tmp_path / "lib" / "libdnnl.so.9"
    library.parent.mkdir()
    built.rename(library)
    theirs = cffi.FFI()
    theirs.cdef("int their_version(void);")
    theirs.set_source("needs_other_dnnl",
                      "int other_version(void);\nint their_version(void) { return other_version(); }",
                      extra_link_args=[str(library)])
    theirs.compile(tmpdir=str(tmp_path / "theirs"))
    library.unlink()
    sys.path.insert(0, str(tmp_path / "theirs"))
    try:
        with pytest.raises(ImportError) as raised:
            embedding.import_module("needs_other_dnnl")
    finally:
        sys.path.remove(str(tmp_path / "theirs"))
    message = str(raised.value)
    assert message.startswith("needs_other_dnnl: libdnnl.so.9: cannot open shared object file")
    assert f"dnnl_interop loaded {real_dnnl.path} (soname libdnnl.so.3), which the module does not link" in message
    assert "rebuild it with extra_link_args=dnnl_interop.embedding.link_args()" in message


# --- execute: arguments by name, the descriptor expected, reordered only where it helps --------


def _matmul(engine, wei_tag="any"):
    return dnnl.MatmulDesc(engine, dnnl.MemoryDesc((4, 8), "f32", "ab"), dnnl.MemoryDesc((8, 64), "f32", wei_tag),
                           dnnl.MemoryDesc((4, 64), "f32", "ab"))


def _matmul_args(engine, pd, weights):
    return {dnnl.ARG_SRC: dnnl.Memory(pd.src_desc(), engine), dnnl.ARG_WEIGHTS: weights,
            dnnl.ARG_DST: dnnl.Memory(pd.dst_desc(), engine)}


def test_execute_names_an_argument_of_another_shape_and_says_no_reorder_changes_a_shape(engine, stream):
    with _matmul(engine, "ab") as pd, dnnl.Primitive(pd) as primitive:
        weights = dnnl.Memory(dnnl.MemoryDesc((64, 8), "f32", "ab"), engine)  # the transpose's shape, same bytes
        with pytest.raises(ValueError) as raised:
            primitive.execute(stream, _matmul_args(engine, pd, weights))
    message = str(raised.value)
    assert message.startswith(
        "args[33] (ARG_WEIGHTS, ARG_WEIGHTS_0, ARG_WEIGHTS_LAYER): the memory's shape, (64, 8), is not the one "
        "the primitive takes there, (8, 64) (it expects MemoryDesc((8, 64), f32, 'ab'); the memory is "
        "MemoryDesc((64, 8), f32, 'ab')). The shapes differ"), message
    assert "reordered" not in message


def test_execute_names_an_argument_of_another_layout_shows_the_one_expected_and_the_reorder(engine, stream):
    with _matmul(engine) as pd, pd.weights_desc() as chosen, dnnl.Primitive(pd) as primitive:
        weights = dnnl.Memory(dnnl.MemoryDesc((8, 64), "f32", "ba"), engine)
        if chosen == weights.desc:
            pytest.skip(f"oneDNN chose {chosen!r} here")
        with pytest.raises(ValueError) as raised:
            primitive.execute(stream, _matmul_args(engine, pd, weights))
        message = str(raised.value)
        assert message.startswith(
            "args[33] (ARG_WEIGHTS, ARG_WEIGHTS_0, ARG_WEIGHTS_LAYER): the memory's layout, "
            f"MemoryDesc((8, 64), f32, 'ba'), is not the one the primitive computes with there, {chosen!r}"), message
        assert message.endswith("bring this one there with dnnl_interop.reordered(memory, desc.arg_desc(33), stream)")


def test_execute_names_an_argument_of_another_data_type_and_the_reorder_that_converts_it(engine, stream):
    with _matmul(engine, "ab") as pd, dnnl.Primitive(pd) as primitive:
        weights = dnnl.Memory(dnnl.MemoryDesc((8, 64), "f16", "ab"), engine)
        with pytest.raises(ValueError) as raised:
            primitive.execute(stream, _matmul_args(engine, pd, weights))
    message = str(raised.value)
    assert message.startswith("args[33] (ARG_WEIGHTS, ARG_WEIGHTS_0, ARG_WEIGHTS_LAYER): the memory holds f16, "
                              "the primitive reads f32 there (it expects MemoryDesc((8, 64), f32, 'ab')"), message
    assert "dnnl_interop.reordered(memory, desc.arg_desc(33), stream)" in message


def test_execute_names_attribute_arguments_by_how_they_are_made(engine, stream):
    with dnnl.PrimitiveAttr() as attr:
        attr.set_scales_mask(dnnl.ARG_WEIGHTS, 2)  # one per column: 64 values
        with dnnl.MatmulDesc(engine, dnnl.MemoryDesc((4, 8), "f32", "ab"), dnnl.MemoryDesc((8, 64), "f32", "ab"),
                             dnnl.MemoryDesc((4, 64), "f32", "ab"), attr=attr) as pd, \
                dnnl.Primitive(pd) as primitive:
            args = _matmul_args(engine, pd, dnnl.Memory(pd.weights_desc(), engine))
            scales = dnnl.Memory(dnnl.MemoryDesc((8,), "f32", "a"), engine)
            with pytest.raises(ValueError, match=r"^args\[4129\] \(scales_arg\(ARG_WEIGHTS\)\): the primitive reads "
                                                 r"256 bytes of f32 scales or zero points there"):
                primitive.execute(stream, {**args, dnnl.scales_arg(dnnl.ARG_WEIGHTS): scales})
            with pytest.raises(TypeError, match=r"^args\[4129\] \(scales_arg\(ARG_WEIGHTS\)\): expected a "
                                                r"dnnl_interop.Memory, got str"):
                primitive.execute(stream, {**args, dnnl.scales_arg(dnnl.ARG_WEIGHTS): "scales"})
