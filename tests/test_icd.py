"""A plain virtual environment needs no OpenCL registration for the CPU engine.

The binding adds the runtime wheel's CPU driver to ``OCL_ICD_FILENAMES`` in its
own process when nothing registers it (``dnnl_interop/_icd.py``). Each case is
a child process with the registration variables removed.
"""

from __future__ import annotations

import os
import subprocess
import sys

CHILD = """
import os, dnnl_interop as dnnl
try:
    dnnl.Engine.cpu().close()
    print("engine", os.environ.get("OCL_ICD_FILENAMES", ""))
except dnnl.DnnlError as exc:
    print("error", exc)
"""


def run(**env) -> str:
    environment = {k: v for k, v in os.environ.items() if k not in ("OCL_ICD_VENDORS", "OCL_ICD_FILENAMES")}
    environment.update(env)
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=environment, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_cpu_engine_works_with_no_opencl_variable_set():
    out = run()
    assert out.startswith("engine "), out
    assert out.endswith(os.path.join(sys.prefix, "lib", "libintelocl.so"))


def test_the_registration_can_be_turned_off_and_the_error_says_why():
    out = run(DNNL_INTEROP_REGISTER_CPU_OPENCL="0")
    assert out.startswith("error dnnl_engine_create failed: INVALID_ARGUMENTS"), out
    assert "oneDNN sees 0 CPU engine(s)" in out and "Intel's CPU OpenCL runtime" in out


def test_an_existing_registration_is_left_alone(tmp_path):
    (tmp_path / "intel.icd").write_text(os.path.join(sys.prefix, "lib", "libintelocl.so") + "\n")
    assert run(OCL_ICD_VENDORS=str(tmp_path)) == "engine"
