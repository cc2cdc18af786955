#!/usr/bin/env bash
# Create a virtual environment with everything dnnl-interop is tested against:
# real oneDNN 3.13 (and 3.11 beside it, for the missing-function tests), two
# real OpenCL platforms (PoCL and Intel's CPU runtime), pyopencl, the test
# tools, and this package itself. Everything comes from the package registry.
# The OpenCL registration at the end is for pyopencl (and the tests, which
# list both platforms); the binding itself needs none to make a CPU engine.
#
#   scripts/setup-env.sh [VENV [EXTRA...]]      (default: .venv)
#
# Each EXTRA is an extra of pyproject.toml installed beside the test tools:
# `scripts/setup-env.sh .venv dpnp` adds dpnp (about 1.2 GB), whose tests
# are skipped where it is not installed and must pass where it is (CI).
#
# pip installs uv (the test extra lists it too) and the environment has pip
# as any venv; uv installs the rest, with the
# same resolution rules as pip, but several times faster (it downloads and
# unpacks in parallel), or pip does where uv cannot (see install). The editable install builds
# dnnl_interop._ffi through the same PEP 660 hook of setuptools as pip's.
# The README's user install stays plain pip (tests/test_packaging.py runs it).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${1:-.venv}
shift || true
extras=$(IFS=,; echo "onednn,test${*:+,$*}")
python=${PYTHON:-python3}

mkdir -p "$venv"
venv=$(cd "$venv" && pwd)
pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check)
# Where PYTHON has pip, it installs uv into an environment made without pip
# (venv's own install of pip takes seconds), and uv installs pip there.
if "$python" -m pip --version > /dev/null 2>&1; then
    "$python" -m venv --clear --without-pip "$venv"
    outside=("$python" -m pip --python "$venv/bin/python" install --quiet --disable-pip-version-check)
    "${outside[@]}" uv
    "$venv/bin/uv" pip install --quiet --python "$venv/bin/python" pip || "${outside[@]}" pip
else
    "$python" -m venv --clear "$venv"
    "${pip[@]}" uv
fi
# install ARGS: pip install's ARGS, made by uv. uv reads no pip configuration
# file (pip.conf's indexes, certificates, constraints): where it cannot install
# for want of them, pip installs as configured. uv compiles what it installs
# only when asked: where PYTHONDONTWRITEBYTECODE is set, every process the
# tests start would compile numpy, pytest ... again.
install() {
    "$venv/bin/uv" pip install --quiet --python "$venv/bin/python" --compile-bytecode "$@" && return
    echo "setup-env.sh: uv could not install; pip installs instead, as pip is configured" >&2
    "${pip[@]}" "$@"
}

# oneDNN 3.11 (no Level Zero interop) in a prefix of its own, first: an
# install into the environment would replace the main onednn.
install --no-deps --prefix "$venv/opt/onednn-3.11" onednn==2026.0.2
# oneDNN 3.13 and the runtimes its metadata asks for, pyopencl with PoCL, the
# upstream headers and the test tools: all resolved by the installer, nothing
# pinned against oneDNN's own requirements. Editable: commands run from this
# checkout (python -m dnnl_interop ...) import the built package;
# tests/test_packaging.py checks the wheel itself.
install --editable ".[$extras]"
"$venv/bin/python" -m pip check
# Bytecode for this checkout's modules, which an editable install leaves
# uncompiled (the installer compiles what it installs): where PYTHONDONTWRITEBYTECODE is
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
