"""The ``cache`` command: list, verify, prune or clear a cache-blob store.

``python -m dnnl_interop cache list|verify|prune|clear [--dir DIR] [--json]``
(also ``dnnl-interop cache ...``). ``--dir`` defaults to the store's default
directory (:func:`dnnl_interop.cache.default_directory`). Without ``--json``
the output is a readable report; with it, one JSON document (schema 1: keys
are stable, new keys may be added).

Exit codes
----------
0  done (for ``verify``: every entry is sound)
1  an unexpected error (a bug: please report the traceback)
2  bad command line
6  ``verify`` found bad entries (they were removed)
7  the cache directory cannot be read (a ``--dir`` that does not exist
   included) or a file in it cannot be removed (the reason goes to stderr)

JSON documents
--------------
Every document has ``schema`` (1), ``command``, ``directory``, ``exit_code``
and ``error`` (null, or {``class``, ``errno``, ``message``} with exit code 7).
An entry is {``runtime``, ``key`` (hex), ``key_bytes``, ``key_sha256``,
``size`` (bytes on disk), ``blob_size``, ``last_used`` (ISO 8601, UTC),
``last_used_epoch`` (seconds), ``path``}.

``list``    ``entries`` (least recently used first), ``total_bytes``
``verify``  ``ok`` (entries), ``bad`` [{``path``, ``reason``}],
            ``stale_temp_files`` [paths removed]
``prune``   ``max_bytes``, ``max_age_seconds`` (the limits, or null),
            ``removed`` (entries, least recently used first),
            ``remaining_entries``, ``remaining_bytes``
``clear``   ``removed_files``
"""

from __future__ import annotations

import argparse
import errno
import hashlib
import json
import re
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .cache import CacheBlobStore, Entry

    # The JSON report: a dict of JSON values.
    Document = dict[str, Any]

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_BAD_ENTRIES = 6
EXIT_IO_ERROR = 7

_EXIT_CODES = ("Exit codes: 0 done (verify: all entries sound), 1 unexpected error, 2 bad command line, "
               "6 verify found bad entries (removed), 7 the directory cannot be read or changed.")

_SIZE = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*([kmgt]?)(i?b)?", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)([wdhms])")
_DURATION_UNITS = {"w": 7 * 86400, "d": 86400, "h": 3600, "m": 60, "s": 1}


def parse_size(text: str) -> int:
    """Bytes from ``512``, ``64K``, ``1.5M``, ``2GiB``, ``10MB`` (units are powers of 1024)."""
    match = _SIZE.fullmatch(text.strip())
    if not match or (match.group(3) and match.group(3).lower() == "ib" and not match.group(2)):
        raise argparse.ArgumentTypeError(
            f"invalid size {text!r}: expected a number of bytes with an optional unit K, M, G or T "
            "(powers of 1024; KiB, KB also accepted), e.g. 500M")
    return int(float(match.group(1)) * _SIZE_UNITS[match.group(2).lower()])


def parse_duration(text: str) -> float:
    """Seconds from ``90`` (seconds), ``45s``, ``30m``, ``12h``, ``7d``, ``2w`` or a sum such as ``1d12h``."""
    compact = text.strip().lower()
    try:
        seconds = float(compact)
    except ValueError:
        parts = _DURATION_PART.findall(compact)
        if not parts or "".join(number + unit for number, unit in parts) != compact:
            raise argparse.ArgumentTypeError(
                f"invalid duration {text!r}: expected seconds or a number with a unit w, d, h, m or s "
                "(e.g. 7d, 12h, 1d12h)") from None
        seconds = sum(float(number) * _DURATION_UNITS[unit] for number, unit in parts)
    if not seconds >= 0 or seconds == float("inf"):
        raise argparse.ArgumentTypeError(f"invalid duration {text!r}: must be a finite time >= 0")
    return seconds


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``cache`` and its subcommands on the top-level ``commands`` subparsers."""
    cache = commands.add_parser(
        "cache",
        help="list, verify, prune or clear the cache-blob store",
        description="Inspect and maintain a cache-blob store (dnnl_interop.CacheBlobStore). " + _EXIT_CODES,
    )
    actions = cache.add_subparsers(dest="cache_command", metavar="ACTION")
    actions.required = True
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--dir", metavar="DIR", help="the store's directory (default: the user cache "
                        "directory's dnnl-interop/blobs)")
    common.add_argument("--json", action="store_true", help="print one JSON document")
    actions.add_parser("list", parents=[common], help="list the entries, least recently used first",
                       description="List the entries (headers only), least recently used first. " + _EXIT_CODES)
    actions.add_parser("verify", parents=[common], help="check every entry; remove the bad ones",
                       description="Read and check every entry (checksum, key, lengths); remove the bad "
                       "ones and abandoned temporary files. " + _EXIT_CODES)
    prune = actions.add_parser(
        "prune", parents=[common], help="remove least recently used entries",
        description="Remove entries unused for longer than --max-age, then least recently used entries "
        "until the rest fit in --max-bytes (at least one is required). " + _EXIT_CODES)
    prune.add_argument("--max-bytes", type=parse_size, metavar="SIZE",
                       help="keep at most SIZE bytes of entries: 500M, 2G, 1048576 (units are powers of 1024)")
    prune.add_argument("--max-age", type=parse_duration, metavar="DURATION",
                       help="remove entries unused for longer than DURATION: 7d, 12h, 30m, 45s, 1d12h, or seconds")
    actions.add_parser("clear", parents=[common], help="remove every entry",
                       description="Remove every entry and temporary file of the store (other files and "
                       "the directory stay). " + _EXIT_CODES)


def run(args: argparse.Namespace) -> int:
    """Run ``cache <action>`` for parsed ``args``; write the report; return the exit code."""
    from . import cache

    action = args.cache_command
    if action == "prune" and args.max_bytes is None and args.max_age is None:
        print("dnnl-interop cache prune: error: give --max-bytes, --max-age or both", file=sys.stderr)
        return EXIT_USAGE
    store = cache.CacheBlobStore(args.dir) if args.dir is not None else cache.CacheBlobStore()
    document: Document = {"schema": 1, "command": action, "directory": str(store.directory),
                "exit_code": EXIT_OK, "error": None}
    try:
        if args.dir is not None and not store.directory.exists():
            raise FileNotFoundError(errno.ENOENT, _no_directory(cache.default_directory()))
        text = _ACTIONS[action](store, args, document)
    except OSError as exc:
        document["exit_code"] = EXIT_IO_ERROR
        document["error"] = {"class": type(exc).__name__, "errno": exc.errno, "message": str(exc)}
        text = ""
        print(f"dnnl-interop cache {action}: {store.directory}: {exc}", file=sys.stderr)
    if args.json:
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
    else:
        sys.stdout.write(text)
    sys.stdout.flush()
    exit_code: int = document["exit_code"]
    return exit_code


def _no_directory(default: object) -> str:
    """Why a ``--dir`` that does not exist is an error (a mistyped path would list nothing)."""
    return (f"no such directory: check the path given to --dir (a store makes its directory when it saves "
            f"its first blob; without --dir the default, {default}, is used)")


def _list(store: CacheBlobStore, args: argparse.Namespace, document: Document) -> str:
    entries = store.entries()
    total = sum(entry.size for entry in entries)
    document.update(entries=[_entry_json(entry) for entry in entries], total_bytes=total)
    if not entries:
        return _nothing(store)
    return (f"{store.directory} (least recently used first)\n" + _table(entries)
            + f"{_count(len(entries), 'entry', 'entries')}, {format_size(total)}\n")


def _verify(store: CacheBlobStore, args: argparse.Namespace, document: Document) -> str:
    report = store.verify()
    document.update(ok=[_entry_json(entry) for entry in report.ok],
                    bad=[{"path": str(bad.path), "reason": bad.reason} for bad in report.bad],
                    stale_temp_files=[str(path) for path in report.stale_temp_files])
    if report.bad:
        document["exit_code"] = EXIT_BAD_ENTRIES
    temps = len(report.stale_temp_files)
    lines = [(f"{store.directory}: {_count(len(report.ok), 'sound entry', 'sound entries')}, "
              f"{_count(len(report.bad), 'bad entry', 'bad entries')} removed, "
              f"{_count(temps, 'abandoned temporary file', 'abandoned temporary files')} removed")]
    lines += [f"  bad: {bad.path.name} {bad.reason}" for bad in report.bad]
    return "\n".join(lines) + "\n"


def _prune(store: CacheBlobStore, args: argparse.Namespace, document: Document) -> str:
    removed = store.prune(max_bytes=args.max_bytes, max_age=args.max_age)
    remaining = store.entries()
    left = sum(entry.size for entry in remaining)
    document.update(max_bytes=args.max_bytes, max_age_seconds=args.max_age,
                    removed=[_entry_json(entry) for entry in removed],
                    remaining_entries=len(remaining), remaining_bytes=left)
    text = (f"{store.directory}: removed {_count(len(removed), 'entry', 'entries')} "
            f"({format_size(sum(entry.size for entry in removed))}); "
            f"{_count(len(remaining), 'entry', 'entries')} ({format_size(left)}) remain\n")
    return text + (_table(removed) if removed else "")


def _clear(store: CacheBlobStore, args: argparse.Namespace, document: Document) -> str:
    count = store.clear()
    document["removed_files"] = count
    return f"{store.directory}: removed {_count(count, 'file', 'files')}\n"


_ACTIONS = {"list": _list, "verify": _verify, "prune": _prune, "clear": _clear}


def _nothing(store: CacheBlobStore) -> str:
    if not store.directory.exists():
        return f"{store.directory}: no cache directory (nothing cached yet)\n"
    return f"{store.directory}: no entries\n"


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def format_size(size: int) -> str:
    """``187 B``, ``55.2 KiB``, ``1.0 MiB``: powers of 1024."""
    if size < 1024:
        return f"{size} B"
    scaled = float(size)
    for unit in ("KiB", "MiB", "GiB"):
        scaled /= 1024
        if scaled < 1024:
            return f"{scaled:.1f} {unit}"
    return f"{scaled / 1024:.1f} TiB"


def _entry_json(entry: Entry) -> dict[str, Any]:
    return {
        "runtime": entry.runtime,
        "key": entry.key.hex(),
        "key_bytes": len(entry.key),
        "key_sha256": hashlib.sha256(entry.key).hexdigest(),
        "size": entry.size,
        "blob_size": entry.blob_size,
        "last_used": entry.last_used_datetime.isoformat(),
        "last_used_epoch": entry.last_used,
        "path": str(entry.path),
    }


def _table(entries: list[Entry]) -> str:
    # The key's SHA-256 is what `dnnl-interop info` prints for a device's engine blob id;
    # --json has the full keys and paths.
    rows = [("RUNTIME", "SIZE", "BLOB", "LAST USED (UTC)", "KEY", "KEY SHA-256")]
    for entry in entries:
        rows.append((entry.runtime, format_size(entry.size), format_size(entry.blob_size),
                     entry.last_used_datetime.strftime("%Y-%m-%d %H:%M:%S"), f"{len(entry.key)} B",
                     hashlib.sha256(entry.key).hexdigest()[:16] + "..."))
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    right = {1, 2, 4}  # sizes line up on the right
    return "".join(
        "  ".join(cell.rjust(width) if column in right else cell.ljust(width)
                  for column, (cell, width) in enumerate(zip(row, widths, strict=True))).rstrip() + "\n"
        for row in rows)
