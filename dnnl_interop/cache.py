"""A verified, atomic on-disk store of oneDNN cache blobs.

:class:`CacheBlobStore` maps ``(runtime, key)`` to a blob. ``runtime`` is
``"ocl"`` or ``"ze"``; ``key`` is the full id the blob belongs to: an engine's
cache-blob id, or, for a primitive, :func:`compose_key` of its engine's blob
id and its own, so that a primitive blob can never meet another device or
oneDNN build. oneDNN checks nothing in a blob it is handed back, so the store
checks everything before returning one, and never returns anything else.

File format (version 1, integers little-endian)
-----------------------------------------------
One file per entry, named ``<runtime>-<N>.v1.dnnlblob`` where ``N`` is the
hex SHA-256 of ``b"dnnl-interop-cache\\0" + runtime + b"\\0" + key``::

    offset  size  field
    0       8     magic  b"\\x89DNNLCB\\n"
    8       2     format version (1)
    10      1     runtime (1: ocl, 2: ze)
    11      1     flags (0)
    12      4     key length K (1 .. MAX_KEY_SIZE)
    16      8     blob length B (1 .. the store's max_blob_size)
    24      32    SHA-256 of bytes 0..23, then the key, then the blob
    56      K     key
    56+K    B     blob

The file is exactly ``56 + K + B`` bytes. The full key is stored and compared,
so two keys whose names collide are a miss, never a wrong hit. The version is
in the file name as well: another format version's files are never read,
changed or removed by this one. Files in the directory that do not follow
these names are never touched.

Reads and writes
----------------
A write goes to a uniquely named temporary file in the same directory
(``.<entry name>.<16 hex>.tmp``), is flushed and fsynced, renamed over the
entry (``os.replace``) and the directory is fsynced: readers see the old entry
or the new one, never a part of one, and of two processes writing one key the
last rename wins with a whole entry. Temporary files left by killed writers
are ignored by reads, removed by :meth:`CacheBlobStore.verify` and
:meth:`~CacheBlobStore.prune` once older than ``stale_temp_age`` (a live
writer's file is younger), and by :meth:`~CacheBlobStore.clear` at once.

A read checks the file type, size, magic, version, runtime, flags, lengths
(an oversize entry is refused from its header, before the blob is read), the
checksum and the full key. Any failure is a miss: a warning is logged on the
``dnnl_interop.cache`` logger and the file is removed. A hit sets the entry's
modification time to now: that is its last use, which ``prune`` orders by.

A cache must never break what it speeds up: :meth:`~CacheBlobStore.put`
returns False (with a warning) instead of raising when the directory is
missing and cannot be created, read-only, or full, and
:meth:`~CacheBlobStore.get` returns None when it cannot read. Only caller
mistakes raise (``ValueError``/``TypeError`` naming the argument). The
listing and maintenance calls (``entries``, ``delete``, ``prune``,
``verify``, ``clear``) were asked for explicitly, so they raise ``OSError``
when they cannot do their job (a missing directory is simply empty).

The store keeps no state that operations share besides its settings: every
change is one atomic file-system operation, so any number of threads and
processes may use one directory at once.
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import hashlib
import logging
import os
import re
import stat
import struct
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing_extensions import Buffer

__all__ = [
    "DEFAULT_MAX_BLOB_SIZE",
    "DEFAULT_STALE_TEMP_AGE",
    "FORMAT_VERSION",
    "HEADER_SIZE",
    "MAGIC",
    "MAX_KEY_SIZE",
    "RUNTIMES",
    "BadFile",
    "CacheBlobStore",
    "Entry",
    "VerifyReport",
    "compose_key",
    "default_directory",
]

logger = logging.getLogger("dnnl_interop.cache")

MAGIC = b"\x89DNNLCB\n"
FORMAT_VERSION = 1
RUNTIMES = ("ocl", "ze")
_RUNTIME_CODES = {"ocl": 1, "ze": 2}
_RUNTIME_NAMES = {code: name for name, code in _RUNTIME_CODES.items()}
_PREFIX = struct.Struct("<8sHBBIQ")  # magic, version, runtime, flags, key length, blob length
_DIGEST_SIZE = 32
HEADER_SIZE = _PREFIX.size + _DIGEST_SIZE  # 56
MAX_KEY_SIZE = 1 << 20
DEFAULT_MAX_BLOB_SIZE = 256 << 20
DEFAULT_STALE_TEMP_AGE = 3600.0

_SUFFIX = f".v{FORMAT_VERSION}.dnnlblob"
_ENTRY_NAME = re.compile(r"(ocl|ze)-[0-9a-f]{64}" + re.escape(_SUFFIX))
_TEMP_NAME = re.compile(r"\.((?:ocl|ze)-[0-9a-f]{64}" + re.escape(_SUFFIX) + r")\.[0-9a-f]{16}\.tmp")
_NAME_DOMAIN = b"dnnl-interop-cache\0"
_COMPOSE_TAG = b"dnnl-interop/primitive-key\0"


def default_directory() -> Path:
    """The store's default directory: ``blobs`` in the user cache directory of ``dnnl-interop``.

    The platform's location comes from ``platformdirs.user_cache_dir``
    (``$XDG_CACHE_HOME/dnnl-interop/blobs`` or ``~/.cache/dnnl-interop/blobs``
    on Linux). Nothing is created here.

    Raises:
        ImportError: platformdirs is not installed (it is a dependency of this package).
    """
    import platformdirs

    return Path(platformdirs.user_cache_dir("dnnl-interop")) / "blobs"


def _bytes_argument(name: str, value: Buffer) -> memoryview:
    """``value`` as a flat, non-empty byte view; ``TypeError``/``ValueError`` naming ``name``."""
    if isinstance(value, str):
        raise TypeError(f"{name}: expected a bytes-like object, got str (encode it first)")
    try:
        view = memoryview(value)
    except TypeError:
        raise TypeError(f"{name}: expected a bytes-like object, got {type(value).__name__}") from None
    if not view.c_contiguous:
        view = memoryview(view.tobytes())
    view = view.cast("B")
    if not view.nbytes:
        raise ValueError(f"{name}: must not be empty (an empty id or blob is never stored)")
    return view


def _runtime_argument(runtime: object) -> str:
    if not isinstance(runtime, str) or runtime not in _RUNTIME_CODES:
        raise ValueError(f"runtime: expected 'ocl' or 'ze', got {runtime!r}")
    return runtime


def compose_key(engine_blob_id: Buffer, primitive_blob_id: Buffer) -> bytes:
    """The store key of a primitive's cache blob: its engine's blob id and its own, joined.

    ``tag || u64le(len(engine_blob_id)) || engine_blob_id ||
    u64le(len(primitive_blob_id)) || primitive_blob_id``, where ``tag`` is
    ``b"dnnl-interop/primitive-key\\0"``. The lengths make the split
    unambiguous (no two pairs give one key), so a primitive blob is found only
    for the very engine (device, driver, oneDNN build) and primitive it was
    made for. The tag keeps composed keys apart from engine keys (an engine
    key is the engine's raw blob id, which oneDNN starts with a ``size_t``
    string length, never with these bytes).

    Both ids are bytes-like and must not be empty (``ValueError``).

    Raises:
        TypeError: an id is not bytes-like (a str must be encoded first).
        ValueError: an id is empty.
    """
    engine = _bytes_argument("engine_blob_id", engine_blob_id)
    primitive = _bytes_argument("primitive_blob_id", primitive_blob_id)
    return b"".join((
        _COMPOSE_TAG,
        struct.pack("<Q", engine.nbytes), engine,
        struct.pack("<Q", primitive.nbytes), primitive,
    ))


def _entry_name(runtime: str, key: Buffer) -> str:
    digest = hashlib.sha256(_NAME_DOMAIN + runtime.encode() + b"\0" + key).hexdigest()
    return f"{runtime}-{digest}{_SUFFIX}"


@dataclass(frozen=True)
class Entry:
    """One entry of a store, as listed (read-only).

    ``size`` is what the file occupies (header, key and blob: what ``prune``
    counts against ``max_bytes``); ``blob_size`` the blob's length;
    ``last_used`` the time of its last write or hit, in seconds since the
    epoch; ``path`` its file. Listing reads only headers: ``verify()`` reads
    and checks whole entries.

    Raises nothing: a record the store makes when listing.
    """

    runtime: str
    key: bytes
    size: int
    blob_size: int
    last_used: float
    path: Path

    @property
    def last_used_datetime(self) -> datetime.datetime:
        """``last_used`` as an aware UTC datetime.

        Raises:
            OverflowError, OSError: ``last_used`` is out of the platform's range.
        """
        return datetime.datetime.fromtimestamp(self.last_used, datetime.timezone.utc)


@dataclass(frozen=True)
class BadFile:
    """A file found bad by ``verify()``/``prune()`` (and removed): its path and why.

    Raises nothing: a record ``verify()`` and ``prune()`` make.
    """

    path: Path
    reason: str


@dataclass(frozen=True)
class VerifyReport:
    """What :meth:`CacheBlobStore.verify` found.

    ``ok``: the entries that passed every check; ``bad``: the files that
    failed one (all removed); ``stale_temp_files``: temporary files of killed
    writers, older than the store's ``stale_temp_age``, removed.

    Raises nothing: a record ``verify()`` makes.
    """

    ok: tuple[Entry, ...]
    bad: tuple[BadFile, ...]
    stale_temp_files: tuple[Path, ...]

    @property
    def clean(self) -> bool:
        """True when no bad entry was found.

        Raises nothing.
        """
        return not self.bad


class _Bad(Exception):
    """A file that is not a valid entry (internal: becomes a miss or a BadFile).

    ``info``: the file's ``stat`` when it was read (None for a symbolic link),
    so that only that file is removed, not one a writer put there since.
    """

    def __init__(self, reason: str, info: os.stat_result | None) -> None:
        super().__init__(reason)
        self.info = info


class CacheBlobStore:
    """A verified map from ``(runtime, key)`` to a blob, one file per entry in ``directory``.

    ``directory`` defaults to :func:`default_directory`; it is created by the
    first ``put``, never by reads. ``max_blob_size`` bounds the blobs stored
    and read (a larger entry on disk is refused from its header);
    ``stale_temp_age`` is the age in seconds after which a leftover temporary
    file counts as abandoned. See the module documentation for the format and
    the guarantees.

    Raises:
        TypeError: ``directory`` is neither a str, a path nor None.
        ValueError: ``directory`` contains a NUL byte, ``max_blob_size`` is not a positive int,
            or ``stale_temp_age`` is negative or not a number.
        ImportError: ``directory`` is None and platformdirs is not installed.
    """

    def __init__(self, directory: str | os.PathLike[str] | None = None, *, max_blob_size: int = DEFAULT_MAX_BLOB_SIZE,
                 stale_temp_age: float = DEFAULT_STALE_TEMP_AGE) -> None:
        if directory is None:
            directory = default_directory()
        elif not isinstance(directory, (str, os.PathLike)):
            raise TypeError(f"directory: expected a str or path, got {type(directory).__name__}")
        self._directory = Path(os.fspath(directory))
        if "\0" in str(self._directory):
            raise ValueError("directory: a path cannot contain a NUL byte")
        if isinstance(max_blob_size, bool) or not isinstance(max_blob_size, int) or max_blob_size < 1:
            raise ValueError(f"max_blob_size: expected a positive int, got {max_blob_size!r}")
        if isinstance(stale_temp_age, bool) or not isinstance(stale_temp_age, (int, float)) \
                or not stale_temp_age >= 0:
            raise ValueError(f"stale_temp_age: expected seconds >= 0, got {stale_temp_age!r}")
        self._max_blob_size = max_blob_size
        self._stale_temp_age = float(stale_temp_age)
        self._warned_lock = threading.Lock()
        self._warned: set[tuple[str, int | None]] = set()

    @property
    def directory(self) -> Path:
        """The directory holding the entries.

        Raises nothing.
        """
        return self._directory

    @property
    def max_blob_size(self) -> int:
        """The largest blob this store writes or returns, in bytes.

        Raises nothing.
        """
        return self._max_blob_size

    @property
    def stale_temp_age(self) -> float:
        """Seconds after which a leftover temporary file is removed by maintenance calls.

        Raises nothing.
        """
        return self._stale_temp_age

    def __repr__(self) -> str:
        return f"CacheBlobStore({str(self._directory)!r})"

    def path_for(self, runtime: str, key: Buffer) -> Path:
        """The file that holds (or would hold) the entry of ``(runtime, key)``.

        Raises:
            TypeError: ``key`` is not bytes-like.
            ValueError: ``runtime`` is not ``'ocl'`` or ``'ze'``, or ``key`` is empty.
        """
        runtime = _runtime_argument(runtime)
        return self._directory / _entry_name(runtime, _bytes_argument("key", key))

    # -- writing -------------------------------------------------------------

    def put(self, runtime: str, key: Buffer, blob: Buffer) -> bool:
        """Store ``blob`` under ``(runtime, key)``, replacing any entry; True if stored.

        Returns False, after a logged warning, when the entry could not be
        written (directory missing and not creatable, read-only, full disk,
        any other ``OSError``) or ``blob`` exceeds ``max_blob_size``: nothing
        is cached then, and no partial file is left. Raises only for a bad
        argument: ``ValueError`` for a runtime other than ``"ocl"``/``"ze"``
        or an empty key or blob, ``TypeError`` for a key or blob that is not
        bytes-like, ``ValueError`` for a key over ``MAX_KEY_SIZE`` bytes.

        Raises:
            TypeError: ``key`` or ``blob`` is not bytes-like.
            ValueError: ``runtime`` is not ``'ocl'`` or ``'ze'``, or ``key`` (or ``blob``) is
                empty or ``key`` is longer than ``MAX_KEY_SIZE``.
        """
        runtime = _runtime_argument(runtime)
        key = _bytes_argument("key", key)
        blob = _bytes_argument("blob", blob)
        if key.nbytes > MAX_KEY_SIZE:
            raise ValueError(f"key: {key.nbytes} bytes, more than the {MAX_KEY_SIZE} a key may have")
        if blob.nbytes > self._max_blob_size:
            logger.warning("not caching a %d-byte blob: larger than max_blob_size (%d bytes)",
                           blob.nbytes, self._max_blob_size)
            return False
        prefix = _PREFIX.pack(MAGIC, FORMAT_VERSION, _RUNTIME_CODES[runtime], 0, key.nbytes, blob.nbytes)
        digest = hashlib.sha256(prefix)
        digest.update(key)
        digest.update(blob)
        head = prefix + digest.digest() + key
        name = _entry_name(runtime, key)
        final = os.path.join(self._directory, name)
        temp = os.path.join(self._directory, f".{name}.{os.urandom(8).hex()}.tmp")
        stage = "create the cache directory"
        try:
            os.makedirs(self._directory, exist_ok=True)
            stage = "create a temporary file"
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
            try:
                stage = "write the entry"
                _write_all(fd, head)
                _write_all(fd, blob)
                now = time.time_ns()
                os.utime(fd, ns=(now, now))
                stage = "flush the entry to disk"
                os.fsync(fd)
            finally:
                os.close(fd)
            stage = "rename the entry into place"
            os.replace(temp, final)
        except OSError as exc:
            self._warn_io(stage, exc, "not caching")
            _unlink_quietly(temp)
            return False
        self._sync_directory()
        return True

    def _sync_directory(self) -> None:
        # The rename is durable only once the directory itself is on disk.
        try:
            fd = os.open(self._directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            if exc.errno not in (errno.EINVAL, errno.ENOTSUP):  # file systems that cannot
                self._warn_io("flush the cache directory to disk", exc, "the entry may not survive a crash")

    def _warn_io(self, stage: str, exc: OSError, consequence: str) -> None:
        # One warning per kind of failure and store: a read-only or full cache
        # would otherwise log on every creation.
        token = (stage, exc.errno)
        with self._warned_lock:
            first = token not in self._warned
            self._warned.add(token)
        logger.log(logging.WARNING if first else logging.DEBUG,
                   "cache blob store %s: could not %s (%s); %s",
                   self._directory, stage, exc, consequence)

    def delete(self, runtime: str, key: Buffer) -> bool:
        """Remove the entry of ``(runtime, key)``; True if there was one.

        Raises ``OSError`` if the file exists but cannot be removed.

        Raises:
            TypeError: ``key`` is not bytes-like.
            ValueError: ``runtime`` is not ``'ocl'`` or ``'ze'``, or ``key`` is empty.
            OSError: the file exists but cannot be removed.
        """
        try:
            os.unlink(self.path_for(runtime, key))
        except FileNotFoundError:
            return False
        return True

    # -- reading -------------------------------------------------------------

    def get(self, runtime: str, key: Buffer) -> bytes | None:
        """The blob stored under ``(runtime, key)`` after every check passed, else None.

        A missing entry is a silent miss. An entry failing any check (size,
        magic, version, runtime, lengths, ``max_blob_size``, checksum, key)
        is a miss with a warning, and its file is removed. A file that cannot
        be read is a miss with a warning. A hit marks the entry used now.
        Raises only for a bad argument, like :meth:`put`.

        Raises:
            TypeError: ``key`` is not bytes-like.
            ValueError: ``runtime`` is not ``'ocl'`` or ``'ze'``, or ``key`` is empty.
        """
        runtime = _runtime_argument(runtime)
        key = _bytes_argument("key", key)
        name = _entry_name(runtime, key)
        path = os.path.join(self._directory, name)
        try:
            with self._opened(path, name, with_blob=True) as found:
                if found is None:
                    return None
                entry, blob, fd, info = found
                if entry.key != key:
                    raise _Bad("holds another runtime or key", info)
                now = time.time_ns()
                try:
                    os.utime(fd, ns=(now, now))
                except OSError:
                    pass  # a read-only cache still serves hits; only LRU order suffers
                return blob
        except _Bad as bad:
            self._discard(path, bad.info, str(bad))
        except NotADirectoryError:
            pass  # the "directory" is a file: nothing cached
        except OSError as exc:
            logger.warning("cache entry %s cannot be read (%s); a miss", path, exc)
        return None

    @contextlib.contextmanager
    def _opened(
        self, path: str, name: str, with_blob: bool
    ) -> Iterator[tuple[Entry, bytes, int, os.stat_result] | None]:
        """The entry file at ``path``, open and checked: ``(Entry, blob, fd, stat)``, None if gone.

        One door for :meth:`get`, :meth:`entries` and :meth:`verify`: the file
        must be a regular file (never followed through a symbolic link) with a
        sound header and key, named ``name`` for its own runtime and key; with
        ``with_blob`` its blob is read and its checksum checked too (otherwise
        the blob returned is empty). A file that is not a sound entry raises
        :class:`_Bad` with the reason and its ``stat``.
        """
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            yield None
            return
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # a symlink where an entry belongs
                raise _Bad("is a symbolic link, not an entry file", None) from None
            raise
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise _Bad("is not a regular file", info)
            runtime, key_size, blob_size, prefix, digest = self._read_header(fd, info)
            key = _read_exact(fd, key_size)
            blob = _read_exact(fd, blob_size) if with_blob else b""
            if len(key) != key_size or len(blob) != (blob_size if with_blob else 0):
                raise _Bad("is truncated", info)
            if with_blob:
                check = hashlib.sha256(prefix)
                check.update(key)
                check.update(blob)
                if check.digest() != digest:
                    raise _Bad("fails its checksum", info)
            if _entry_name(runtime, key) != name:
                raise _Bad("is named for another runtime or key", info)
            yield Entry(runtime, key, info.st_size, blob_size, info.st_mtime, Path(path)), blob, fd, info
        finally:
            os.close(fd)

    def _read_header(self, fd: int, info: os.stat_result) -> tuple[str, int, int, bytes, bytes]:
        header = _read_exact(fd, HEADER_SIZE)
        if len(header) < HEADER_SIZE:
            raise _Bad("is truncated (shorter than a header)", info)
        prefix = header[:_PREFIX.size]
        magic, version, runtime_code, flags, key_size, blob_size = _PREFIX.unpack(prefix)
        if magic != MAGIC:
            raise _Bad("has the wrong magic (not a dnnl-interop cache entry)", info)
        if version != FORMAT_VERSION:
            raise _Bad(f"has format version {version}, expected {FORMAT_VERSION}", info)
        if runtime_code not in _RUNTIME_NAMES:
            raise _Bad(f"has an unknown runtime code {runtime_code}", info)
        if flags != 0:
            raise _Bad(f"has unknown flags {flags:#x}", info)
        if not 0 < key_size <= MAX_KEY_SIZE:
            raise _Bad(f"has an invalid key length {key_size}", info)
        if blob_size == 0:
            raise _Bad("has an empty blob", info)
        if blob_size > self._max_blob_size:
            raise _Bad(f"holds a {blob_size}-byte blob, more than max_blob_size ({self._max_blob_size})", info)
        expected = HEADER_SIZE + key_size + blob_size
        if info.st_size < expected:
            raise _Bad(f"is truncated ({info.st_size} of {expected} bytes)", info)
        if info.st_size > expected:
            raise _Bad(f"has {info.st_size - expected} bytes past its end", info)
        return _RUNTIME_NAMES[runtime_code], key_size, blob_size, prefix, header[_PREFIX.size:]

    def _discard(self, path: str, info: os.stat_result | None, reason: str) -> None:
        """Remove the bad file at ``path`` if it is still the one read (a writer may have replaced it)."""
        logger.warning("cache entry %s %s; a miss, removing it", path, reason)
        try:
            if info is not None:
                now = os.stat(path, follow_symlinks=False)
                if (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
                    return
            os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError as exc:
            logger.warning("cache entry %s could not be removed (%s)", path, exc)

    # -- listing and maintenance ---------------------------------------------

    def _scan(
        self,
    ) -> tuple[list[tuple[str, Entry | None, str | None, os.stat_result | None]], list[tuple[str, float]]]:
        """``([(path, Entry or None, reason if bad, stat or None)], [(temp path, mtime)])``."""
        try:
            names = os.listdir(self._directory)
        except FileNotFoundError:
            return [], []
        found: list[tuple[str, Entry | None, str | None, os.stat_result | None]] = []
        temps: list[tuple[str, float]] = []
        for name in sorted(names):
            path = os.path.join(self._directory, name)
            if _ENTRY_NAME.fullmatch(name):
                entry, reason, info = self._describe(path, name)
                if entry is not None or reason is not None:
                    found.append((path, entry, reason, info))
            elif _TEMP_NAME.fullmatch(name):
                try:
                    temps.append((path, os.stat(path, follow_symlinks=False).st_mtime))
                except FileNotFoundError:
                    pass  # its writer renamed or removed it
        return found, temps

    def _describe(self, path: str, name: str) -> tuple[Entry | None, str | None, os.stat_result | None]:
        """``(Entry, None, stat)`` from the header at ``path``, ``(None, reason, stat)`` if bad,
        ``(None, None, None)`` if gone."""
        try:
            with self._opened(path, name, with_blob=False) as found:
                if found is None:
                    return None, None, None
                return found[0], None, found[3]
        except _Bad as bad:
            return None, str(bad), bad.info

    def entries(self) -> list[Entry]:
        """Every entry whose header is sound, least recently used first.

        Reads headers and keys only (checksums are checked by ``get`` and
        ``verify``); files that are not sound entries are left out. An absent
        directory has no entries; one that cannot be listed raises ``OSError``.

        Raises:
            OSError: the directory exists but cannot be listed or read.
        """
        found, _ = self._scan()
        return sorted((entry for _, entry, _, _ in found if entry is not None),
                      key=lambda entry: (entry.last_used, str(entry.path)))

    def __iter__(self) -> Iterator[Entry]:
        """Iterate over :meth:`entries` (a snapshot, least recently used first)."""
        return iter(self.entries())

    def _remove_stale_temps(self, temps: list[tuple[str, float]], older_than: float | None) -> list[Path]:
        now = time.time()
        removed = []
        for path, mtime in temps:
            if (older_than is None or now - mtime > older_than) and _unlink_existing(path):
                removed.append(Path(path))
        return removed

    def prune(self, max_bytes: int | None = None, max_age: float | datetime.timedelta | None = None) -> list[Entry]:
        """Remove entries, least recently used first; return those removed (oldest first).

        ``max_age`` (seconds, or a ``datetime.timedelta``): entries not used
        for longer are removed. ``max_bytes``: then the least recently used
        entries are removed until the entries left take at most that many
        bytes (file sizes). With neither, no sound entry is removed. Files
        that are not sound entries are removed too (warning, not returned),
        and temporary files older than ``stale_temp_age``. An entry rewritten
        or used by someone else since it was listed is kept. Raises
        ``OSError`` if a file cannot be removed.

        Raises:
            ValueError: ``max_bytes`` is not an int >= 0 or None, or ``max_age`` not seconds >=
                0, a timedelta or None.
            OSError: the directory cannot be listed or a file cannot be removed.
        """
        if max_bytes is not None and (isinstance(max_bytes, bool) or not isinstance(max_bytes, int)
                                      or max_bytes < 0):
            raise ValueError(f"max_bytes: expected an int >= 0 or None, got {max_bytes!r}")
        if isinstance(max_age, datetime.timedelta):
            max_age = max_age.total_seconds()
        if max_age is not None and (isinstance(max_age, bool) or not isinstance(max_age, (int, float))
                                    or not max_age >= 0):
            raise ValueError(f"max_age: expected seconds >= 0, a timedelta or None, got {max_age!r}")
        found, temps = self._scan()
        entries, seen = [], {}
        for path, entry, reason, info in found:
            if entry is None:
                logger.warning("cache entry %s %s; removing it", path, reason)
                _unlink_if_unchanged(path, info)
            else:
                entries.append(entry)
                seen[entry.path] = info
        entries.sort(key=lambda entry: (entry.last_used, str(entry.path)))
        removed = []
        if max_age is not None:
            now = time.time()
            kept = []
            for entry in entries:
                if now - entry.last_used > max_age and _unlink_if_unchanged(entry.path, seen[entry.path]):
                    removed.append(entry)
                else:
                    kept.append(entry)
            entries = kept
        if max_bytes is not None:
            total = sum(entry.size for entry in entries)
            for entry in entries:
                if total <= max_bytes:
                    break
                if _unlink_if_unchanged(entry.path, seen[entry.path]):
                    removed.append(entry)
                    total -= entry.size
        self._remove_stale_temps(temps, self._stale_temp_age)
        return removed

    def verify(self) -> VerifyReport:
        """Read and check every entry; remove the bad ones; return a :class:`VerifyReport`.

        Each entry gets every check of :meth:`get` and must be named for its
        own runtime and key. Temporary files older than ``stale_temp_age``
        are removed too. Entries are not marked used. Raises ``OSError`` if
        the directory cannot be listed or a bad file cannot be removed. A bad
        file replaced by a writer meanwhile is left to its writer.

        Raises:
            OSError: the directory cannot be listed or a bad file cannot be removed.
        """
        try:
            names = sorted(os.listdir(self._directory))
        except FileNotFoundError:
            return VerifyReport((), (), ())
        ok, bad, temps = [], [], []
        for name in names:
            path = os.path.join(self._directory, name)
            if _TEMP_NAME.fullmatch(name):
                try:
                    temps.append((path, os.stat(path, follow_symlinks=False).st_mtime))
                except FileNotFoundError:
                    pass
                continue
            if not _ENTRY_NAME.fullmatch(name):
                continue
            try:
                with self._opened(path, name, with_blob=True) as found:
                    if found is not None:
                        ok.append(found[0])
                continue
            except _Bad as failure:
                reason, info = str(failure), failure.info
            logger.warning("cache entry %s %s; removing it", path, reason)
            if _unlink_if_unchanged(path, info):
                bad.append(BadFile(Path(path), reason))
        stale = self._remove_stale_temps(temps, self._stale_temp_age)
        return VerifyReport(tuple(ok), tuple(bad), tuple(stale))

    def clear(self) -> int:
        """Remove every entry and temporary file of this store; return how many files.

        Only files named like this format's entries and temporary files are
        removed: other files in the directory, and the directory itself, stay.
        A writer whose temporary file is removed fails its ``put`` (False).
        Raises ``OSError`` if a file cannot be removed.

        Raises:
            OSError: the directory cannot be listed or a file cannot be removed.
        """
        try:
            names = os.listdir(self._directory)
        except FileNotFoundError:
            return 0
        count = 0
        for name in names:
            if _ENTRY_NAME.fullmatch(name) or _TEMP_NAME.fullmatch(name):
                count += _unlink_existing(os.path.join(self._directory, name))
        return count


def _write_all(fd: int, data: Buffer) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _read_exact(fd: int, size: int) -> bytes:
    """Up to ``size`` bytes from ``fd``: fewer only at end of file."""
    data = os.read(fd, size)
    if len(data) == size or not data:
        return data
    parts = [data]
    left = size - len(data)
    while left:
        more = os.read(fd, left)
        if not more:
            break
        parts.append(more)
        left -= len(more)
    return b"".join(parts)


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _unlink_if_unchanged(path: str | os.PathLike[str], info: os.stat_result | None) -> bool:
    """Remove ``path`` if it is still the file ``info`` describes (same inode, not touched since).

    True if removed; False if it is gone or was replaced or used meanwhile
    (by a writer or a hit); ``info`` None removes whatever is there. Other
    ``OSError`` propagate.
    """
    try:
        if info is not None:
            now = os.stat(path, follow_symlinks=False)
            if (now.st_dev, now.st_ino, now.st_mtime_ns) != (info.st_dev, info.st_ino, info.st_mtime_ns):
                return False
        os.unlink(path)
    except FileNotFoundError:
        return False
    return True


def _unlink_existing(path: str | os.PathLike[str]) -> bool:
    """Remove ``path``; False if it was already gone; other ``OSError`` propagate."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    return True


def __dir__() -> list[str]:
    return sorted(__all__)
