"""What the cache-blob store costs per read and per write, without oneDNN.

    .venv/bin/python benchmarks/bench_cache_store.py [--rounds 30] [--calls 200] [--dir DIR]

For each blob size (131 B: an engine blob on the emulated GPU; 56,540 B: a
reorder's primitive blob there; 1 MiB for scale), one entry is stored in a
temporary directory (``--dir``: a directory on the file system to measure;
default a temporary one under ``$TMPDIR``) and these reads are interleaved,
round after round (see ``_bench.interleave``):

* ``store.get``: ``CacheBlobStore.get(runtime, key)``, a hit: open, fstat,
  header, key and blob read, every check, SHA-256 over header, key and
  blob, key compared, last use set (``os.utime``);
* ``bare read``: ``open(path, "rb").read()`` of the same file, what a cache
  without checks pays (the file stays in the page cache for both);
* ``sha256 only``: ``hashlib.sha256`` of the file's bytes, the checksum's
  share of ``store.get``.

Then the writes, fewer calls since each one fsyncs a file and the directory:
``store.put`` (temporary file, write, fsync, rename, directory fsync) against
``bare write`` (``open(path, "wb").write(blob)``: no fsync, not atomic).

The store's read cost is what cached creation adds on top of handing the same
blob straight to oneDNN; compare it with the creation time it saves
(measured on the emulated GPU by the cached-creation benchmark, not here).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _bench  # the benchmarks' shared helpers, beside this file

from dnnl_interop.cache import CacheBlobStore, compose_key

SIZES = {"engine blob, 131 B": 131, "reorder blob, 56,540 B": 56_540, "1 MiB": 1 << 20}
ENGINE_ID = bytes(150)  # an OpenCL engine blob id is about this long


def _timed(function):
    def run(n: int) -> float:
        import time

        start = time.perf_counter()
        for _ in range(n):
            function()
        return time.perf_counter() - start

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--dir", help="measure on this directory's file system (a subdirectory is made)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="dnnl-interop-bench-", dir=args.dir) as directory:
        store = CacheBlobStore(directory)
        print(f"store in {directory}; {args.rounds} rounds")
        for label, size in SIZES.items():
            key = compose_key(ENGINE_ID, b"reorder") if size > 131 else ENGINE_ID
            blob = os.urandom(size)
            assert store.put("ocl", key, blob)
            path = store.path_for("ocl", key)
            content = path.read_bytes()

            def bare_read(path=path):
                with open(path, "rb") as file:
                    return file.read()

            assert store.get("ocl", key) == blob and bare_read() == content
            print(f"\n{label}: reads ({args.calls} calls a round)")
            reads = _bench.report(_bench.interleave({
                "store.get": _timed(lambda key=key: store.get("ocl", key)),
                "bare read": _timed(bare_read),
                "sha256 only": _timed(lambda content=content: hashlib.sha256(content).digest()),
            }, args.rounds, args.calls))
            print(f"  store.get - bare read: {(reads['store.get'] - reads['bare read']) * 1e6:.1f} µs "
                  f"({reads['store.get'] / reads['bare read']:.2f}x)")

            scratch = os.path.join(directory, "bare")

            def bare_write(blob=blob, scratch=scratch):
                with open(scratch, "wb") as file:
                    file.write(blob)

            writes = max(1, args.calls // 10)
            print(f"{label}: writes ({writes} calls a round)")
            _bench.report(_bench.interleave({
                "store.put": _timed(lambda key=key, blob=blob: store.put("ocl", key, blob)),
                "bare write": _timed(bare_write),
            }, max(5, args.rounds // 3), writes))


if __name__ == "__main__":
    main()
