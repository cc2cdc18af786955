#!/usr/bin/env bash
# Create a virtual environment with everything dnnl-interop is tested against:
# real oneDNN 3.13 (and 3.11 beside it, for the missing-function tests), two
# real OpenCL platforms (PoCL and Intel's CPU runtime), pyopencl, the test
# tools, and this package itself. Everything comes from the package registry.
# The OpenCL registration at the end is for pyopencl (and the tests, which
# list both platforms); the binding itself needs none to make a CPU engine.
#
#   scripts/setup-env.sh [VENV]      (default: .venv)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${1:-.venv}
python=${PYTHON:-python3}

"$python" -m venv --clear "$venv"
venv=$(cd "$venv" && pwd)
pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check)

# oneDNN 3.11 (no Level Zero interop) in a prefix of its own, first: pip
# would otherwise uninstall the main onednn while installing this one.
"${pip[@]}" --no-deps --prefix "$venv/opt/onednn-3.11" onednn==2026.0.2
# oneDNN 3.13 and the runtimes its metadata asks for, pyopencl with PoCL, the
# upstream headers and the test tools: all resolved by pip, nothing pinned
# against oneDNN's own requirements. Editable: commands run from this
# checkout (python -m dnnl_interop ...) import the built package;
# tests/test_packaging.py checks the wheel itself.
"${pip[@]}" --editable ".[onednn,test]"
"$venv/bin/python" -m pip check
# Bytecode for this checkout's modules, which an editable install leaves
# uncompiled (pip compiles what it installs): where PYTHONDONTWRITEBYTECODE is
# set, every process the tests start would compile them again.
"$venv/bin/python" -m compileall -q dnnl_interop tests benchmarks > /dev/null

# The Intel CPU OpenCL runtime ships an ICD file naming a placeholder path.
# Register the installed library in a vendors directory of our own; pyopencl
# already provides PoCL, so it is not listed again here.
vendors="$venv/etc/OpenCL/dnnl-interop-vendors"
mkdir -p "$vendors"
echo "$venv/lib/libintelocl.so" > "$vendors/intel-cpu.icd"
echo "export OCL_ICD_VENDORS=\"$vendors\"" >> "$venv/bin/activate"

echo "environment ready: . $venv/bin/activate"
