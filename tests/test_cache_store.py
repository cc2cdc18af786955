"""The cache-blob store: a verified, atomic map from (runtime, key) to blob on disk.

The format is re-implemented here from the module's documentation
(:func:`encode`), so these tests also pin the documented layout. Failures the
machine cannot produce for real are simulated, and each test says how: tests
run as root, where a chmod'ed directory stays writable, so "read-only" is a
directory path that is a file (a real ``ENOTDIR``/``EEXIST`` from the kernel)
or ``os.open``/``os.replace``/``os.unlink`` patched to raise ``EROFS``; a full
disk is ``os.write`` patched to raise ``ENOSPC``.
"""

from __future__ import annotations

import datetime
import errno
import hashlib
import logging
import os
import random
import select
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from dnnl_interop import cache
from dnnl_interop.cache import HEADER_SIZE, MAGIC, CacheBlobStore, compose_key
from dnnl_interop.testing import strategies as dst

LOGGER = "dnnl_interop.cache"


# --- the documented format, written independently ---------------------------

RUNTIME_CODES = {"ocl": 1, "ze": 2}


def encode(runtime, key, blob, *, magic=MAGIC, version=1, runtime_code=None, flags=0,
           key_size=None, blob_size=None, digest=None) -> bytes:
    """The file content the module documentation specifies, with any field overridable."""
    prefix = struct.pack(
        "<8sHBBIQ", magic, version, RUNTIME_CODES[runtime] if runtime_code is None else runtime_code,
        flags, len(key) if key_size is None else key_size, len(blob) if blob_size is None else blob_size,
    )
    if digest is None:
        digest = hashlib.sha256(prefix + key + blob).digest()
    return prefix + digest + key + blob


def entry_name(runtime, key) -> str:
    digest = hashlib.sha256(b"dnnl-interop-cache\0" + runtime.encode() + b"\0" + key).hexdigest()
    return f"{runtime}-{digest}.v1.dnnlblob"


def write_raw(path, content: bytes) -> None:
    with open(path, "wb") as file:
        file.write(content)


def files(directory) -> list[str]:
    return sorted(os.listdir(directory))


def temp_files(directory) -> list[str]:
    return [name for name in os.listdir(directory) if name.endswith(".tmp")]


@pytest.fixture
def store(tmp_path):
    return CacheBlobStore(tmp_path / "blobs")


# --- arguments ----------------------------------------------------------------


@pytest.mark.parametrize("runtime", ["cuda", "OCL", "", None, b"ocl", 1])
def test_runtime_other_than_ocl_or_ze_is_a_value_error_naming_it(store, runtime):
    for call in (lambda: store.put(runtime, b"k", b"b"), lambda: store.get(runtime, b"k"),
                 lambda: store.delete(runtime, b"k"), lambda: store.path_for(runtime, b"k")):
        with pytest.raises(ValueError, match=r"^runtime: expected 'ocl' or 'ze'"):
            call()
    assert not store.directory.exists()


@pytest.mark.parametrize("argument", ["key", "blob"])
@pytest.mark.parametrize("empty", [b"", bytearray(), memoryview(b"")])
def test_empty_key_or_blob_is_refused_and_never_stored(store, argument, empty):
    args = {"key": b"k", "blob": b"b", argument: empty}
    with pytest.raises(ValueError, match=f"^{argument}: must not be empty"):
        store.put("ocl", args["key"], args["blob"])
    assert not store.directory.exists()


def test_empty_key_is_refused_by_get_and_delete(store):
    with pytest.raises(ValueError, match=r"^key: must not be empty"):
        store.get("ze", b"")
    with pytest.raises(ValueError, match=r"^key: must not be empty"):
        store.delete("ze", b"")


@pytest.mark.parametrize("value", ["text", 12, None, [1, 2]])
def test_key_and_blob_must_be_bytes_like(store, value):
    with pytest.raises(TypeError, match=r"^key: expected a bytes-like object"):
        store.put("ocl", value, b"b")
    with pytest.raises(TypeError, match=r"^blob: expected a bytes-like object"):
        store.put("ocl", b"k", value)


def test_any_bytes_like_key_and_blob_are_taken_by_content(store):
    import array

    key = array.array("i", [1, 2, 3])
    blob = memoryview(b"abcdefgh")[::2]  # not contiguous
    assert store.put("ze", key, blob) is True
    assert store.get("ze", bytes(key)) == b"aceg"
    assert store.get("ze", bytearray(bytes(key))) == b"aceg"


def test_key_longer_than_the_format_allows_is_refused(store):
    with pytest.raises(ValueError, match=r"^key: .* more than"):
        store.put("ocl", b"k" * (cache.MAX_KEY_SIZE + 1), b"b")


@pytest.mark.parametrize("kwargs", [{"max_blob_size": 0}, {"max_blob_size": 1.5}, {"max_blob_size": True},
                                    {"stale_temp_age": -1}, {"stale_temp_age": float("nan")}])
def test_bad_store_settings_are_refused(tmp_path, kwargs):
    name = next(iter(kwargs))
    with pytest.raises(ValueError, match=f"^{name}:"):
        CacheBlobStore(tmp_path, **kwargs)


def test_directory_must_be_a_path(tmp_path):
    with pytest.raises(TypeError, match=r"^directory:"):
        CacheBlobStore(42)


# --- compose_key ----------------------------------------------------------------


@given(st.binary(min_size=1, max_size=40), st.binary(min_size=1, max_size=40),
       st.binary(min_size=1, max_size=40), st.binary(min_size=1, max_size=40))
def test_compose_key_is_injective(a, b, c, d):
    assert (compose_key(a, b) == compose_key(c, d)) == ((a, b) == (c, d))


def test_compose_key_keeps_every_split_of_the_same_bytes_apart():
    ids = b"engine-idprimitive-id"
    keys = {compose_key(ids[:cut], ids[cut:]) for cut in range(1, len(ids))}
    assert len(keys) == len(ids) - 1


def test_compose_key_layout_is_tag_then_length_prefixed_ids():
    assert compose_key(b"E", b"PP") == (b"dnnl-interop/primitive-key\0" + struct.pack("<Q", 1) + b"E"
                                        + struct.pack("<Q", 2) + b"PP")


def test_compose_key_refuses_empty_or_non_bytes_ids():
    with pytest.raises(ValueError, match=r"^engine_blob_id: must not be empty"):
        compose_key(b"", b"p")
    with pytest.raises(ValueError, match=r"^primitive_blob_id: must not be empty"):
        compose_key(b"e", b"")
    with pytest.raises(TypeError, match=r"^primitive_blob_id: expected a bytes-like object"):
        compose_key(b"e", "p")


def test_composed_primitive_key_and_its_engine_key_are_separate_entries(store):
    engine_id, primitive_id = b"\x08" + b"\0" * 7 + b"platform", b"reorder-id"
    assert store.put("ocl", engine_id, b"engine blob")
    assert store.put("ocl", compose_key(engine_id, primitive_id), b"kernels")
    assert store.get("ocl", engine_id) == b"engine blob"
    assert store.get("ocl", compose_key(engine_id, primitive_id)) == b"kernels"
    assert store.get("ocl", compose_key(b"another engine", primitive_id)) is None


# --- location -------------------------------------------------------------------


def test_default_directory_is_blobs_in_the_platform_user_cache_dir(monkeypatch, tmp_path):
    import platformdirs

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    expected = tmp_path / "xdg" / "dnnl-interop" / "blobs"
    assert os.path.join(platformdirs.user_cache_dir("dnnl-interop"), "blobs") == str(expected)
    default = CacheBlobStore()
    assert default.directory == expected == cache.default_directory()
    assert not (tmp_path / "xdg").exists(), "made before the first put"
    assert default.put("ze", b"k", b"b")
    assert (expected / entry_name("ze", b"k")).is_file()


def test_reads_and_maintenance_never_create_the_directory(tmp_path):
    missing = CacheBlobStore(tmp_path / "a" / "b")
    assert missing.get("ocl", b"k") is None
    assert missing.entries() == [] and list(missing) == []
    assert missing.prune(max_bytes=0) == []
    assert missing.verify().ok == () and missing.verify().clean
    assert missing.clear() == 0
    assert missing.delete("ocl", b"k") is False
    assert not (tmp_path / "a").exists()
    assert missing.put("ocl", b"k", b"b") is True  # the first put creates it, parents too
    assert missing.get("ocl", b"k") == b"b"


# --- format ---------------------------------------------------------------------


@pytest.mark.parametrize("runtime", ["ocl", "ze"])
def test_entry_file_is_exactly_the_documented_format_under_the_documented_name(store, runtime):
    key, blob = bytes(range(150)), os.urandom(1000)
    assert store.put(runtime, key, blob) is True
    path = store.directory / entry_name(runtime, key)
    assert store.path_for(runtime, key) == path
    assert path.read_bytes() == encode(runtime, key, blob)
    assert HEADER_SIZE == 56
    assert files(store.directory) == [path.name]


def test_a_file_written_to_the_documented_format_is_a_hit(store):
    store.directory.mkdir()
    write_raw(store.directory / entry_name("ze", b"id"), encode("ze", b"id", b"blob"))
    assert store.get("ze", b"id") == b"blob"


def test_same_key_under_the_other_runtime_is_another_entry(store):
    assert store.put("ocl", b"k", b"for ocl")
    assert store.get("ze", b"k") is None
    assert store.put("ze", b"k", b"for ze")
    assert (store.get("ocl", b"k"), store.get("ze", b"k")) == (b"for ocl", b"for ze")


def test_put_replaces_and_delete_removes(store):
    assert store.put("ocl", b"k", b"one") and store.put("ocl", b"k", b"two")
    assert store.get("ocl", b"k") == b"two"
    assert store.delete("ocl", b"k") is True
    assert store.delete("ocl", b"k") is False
    assert store.get("ocl", b"k") is None
    assert files(store.directory) == []


def test_entry_for_another_key_at_this_keys_name_is_a_miss_not_a_wrong_hit(store, caplog):
    # What a collision of file names would look like: a sound entry of key B
    # where key A's entry belongs.
    assert store.put("ocl", b"key B", b"blob of B")
    os.replace(store.path_for("ocl", b"key B"), store.path_for("ocl", b"key A"))
    with caplog.at_level(logging.WARNING, LOGGER):
        assert store.get("ocl", b"key A") is None
    assert "another runtime or key" in caplog.text
    assert not store.path_for("ocl", b"key A").exists()


def test_entry_of_the_other_runtime_at_this_name_is_a_miss(store):
    store.directory.mkdir()
    write_raw(store.path_for("ocl", b"k"), encode("ze", b"k", b"ze blob"))
    assert store.get("ocl", b"k") is None


# --- reads verify everything ----------------------------------------------------

BAD_CONTENTS = {
    "empty file": lambda: b"",
    "shorter than a header": lambda: encode("ocl", b"k", b"blob")[:HEADER_SIZE - 1],
    "truncated blob": lambda: encode("ocl", b"k", b"blob")[:-1],
    "extended": lambda: encode("ocl", b"k", b"blob") + b"\0",
    "wrong magic": lambda: encode("ocl", b"k", b"blob", magic=b"\x89DNNLCB\r"),
    "version 2": lambda: encode("ocl", b"k", b"blob", version=2),
    "version 0": lambda: encode("ocl", b"k", b"blob", version=0),
    "unknown runtime code": lambda: encode("ocl", b"k", b"blob", runtime_code=3),
    "unknown flags": lambda: encode("ocl", b"k", b"blob", flags=1),
    "key length zero": lambda: encode("ocl", b"k", b"blob", key_size=0),
    "empty blob": lambda: encode("ocl", b"k", b""),
    "blob length too long": lambda: encode("ocl", b"k", b"blob", blob_size=5),
    "checksum of other data": lambda: encode("ocl", b"k", b"blob", digest=hashlib.sha256(b"x").digest()),
    "blob changed": lambda: encode("ocl", b"k", b"blob")[:-1] + b"c",
    "key changed": lambda: encode("ocl", b"k", b"blob").replace(b"kblob", b"jblob"),
    "another key, checksum fixed": lambda: encode("ocl", b"j", b"blob"),
}


@pytest.mark.parametrize("case", sorted(BAD_CONTENTS))
def test_each_kind_of_bad_entry_is_a_logged_miss_and_is_removed(store, caplog, case):
    store.directory.mkdir()
    path = store.path_for("ocl", b"k")
    write_raw(path, BAD_CONTENTS[case]())
    with caplog.at_level(logging.WARNING, LOGGER):
        assert store.get("ocl", b"k") is None
    assert [r.levelno for r in caplog.records if r.name == LOGGER] == [logging.WARNING]
    assert str(path) in caplog.text
    assert not path.exists()


def test_oversize_entry_is_refused_from_its_header_before_the_blob_is_read(tmp_path, monkeypatch, caplog):
    limit = 1 << 20
    store = CacheBlobStore(tmp_path, max_blob_size=limit)
    content = encode("ocl", b"k", b"", blob_size=limit + 1)
    path = store.path_for("ocl", b"k")
    write_raw(path, content)
    os.truncate(path, len(content) + limit + 1)  # the declared size, sparse
    requested = []
    real_read = os.read

    def recording_read(fd, n):
        requested.append(n)
        return real_read(fd, n)

    monkeypatch.setattr(os, "read", recording_read)
    with caplog.at_level(logging.WARNING, LOGGER):
        assert store.get("ocl", b"k") is None
    monkeypatch.undo()
    assert requested == [HEADER_SIZE]
    assert "max_blob_size" in caplog.text
    assert not path.exists()


def test_entry_written_under_a_higher_limit_is_a_miss_for_a_lower_one(tmp_path):
    assert CacheBlobStore(tmp_path).put("ze", b"k", b"x" * 100)
    assert CacheBlobStore(tmp_path, max_blob_size=99).get("ze", b"k") is None
    assert CacheBlobStore(tmp_path).get("ze", b"k") is None  # it was removed


def test_blob_over_max_blob_size_is_not_stored(tmp_path, caplog):
    store = CacheBlobStore(tmp_path, max_blob_size=10)
    with caplog.at_level(logging.WARNING, LOGGER):
        assert store.put("ocl", b"k", b"x" * 11) is False
    assert "max_blob_size" in caplog.text
    assert store.put("ocl", b"k", b"x" * 10) is True
    assert files(tmp_path) == [entry_name("ocl", b"k")]


def test_symbolic_link_at_an_entry_name_is_not_followed(store, tmp_path):
    target = tmp_path / "elsewhere"
    write_raw(target, encode("ocl", b"k", b"blob"))
    store.directory.mkdir()
    os.symlink(target, store.path_for("ocl", b"k"))
    assert store.get("ocl", b"k") is None
    assert not os.path.lexists(store.path_for("ocl", b"k"))
    assert target.read_bytes() == encode("ocl", b"k", b"blob")


def test_fifo_at_an_entry_name_is_a_prompt_miss(store):
    store.directory.mkdir()
    os.mkfifo(store.path_for("ze", b"k"))  # opening it for reading would block without O_NONBLOCK
    assert store.get("ze", b"k") is None
    assert not os.path.lexists(store.path_for("ze", b"k"))


def test_bad_entry_replaced_by_a_writer_while_being_read_is_not_removed(store, monkeypatch):
    # The reader removes what it read, not whatever now has the name.
    store.directory.mkdir()
    path = store.path_for("ocl", b"k")
    write_raw(path, b"garbage")
    real_discard = store._discard

    def writer_wins(*args):
        assert CacheBlobStore(store.directory).put("ocl", b"k", b"fresh")
        real_discard(*args)

    monkeypatch.setattr(store, "_discard", writer_wins)
    assert store.get("ocl", b"k") is None
    monkeypatch.undo()
    assert store.get("ocl", b"k") == b"fresh"


def test_temporary_files_are_never_read(store):
    store.directory.mkdir()
    name = entry_name("ocl", b"k")
    write_raw(store.directory / f".{name}.0123456789abcdef.tmp", encode("ocl", b"k", b"blob"))
    assert store.get("ocl", b"k") is None
    assert store.entries() == []


# --- fuzzing: 10,000+ mutated files give only verified hits or misses ------------
# Damaged files come from dnnl_interop.testing.strategies (the same damage a
# downstream suite draws); two kinds may be sound entries and so may hit.

FUZZ_CASES = 12_000
MAY_HIT = ("another sound entry", "header re-checksummed")
FUZZ_KINDS = (*dst.DAMAGE_KINDS, *MAY_HIT)


def _mutation(rng: random.Random, runtime, key, blob):
    kind = rng.choice(FUZZ_KINDS)
    if kind == "header re-checksummed":  # header fields changed, the checksum recomputed to match
        fields = {"version": rng.choice([0, 1, 2, 0xFFFF]), "runtime_code": rng.choice([0, 1, 2, 3, 255]),
                  "flags": rng.choice([0, 0, 1, 128]),
                  "key_size": rng.choice([len(key), len(key) - 1, len(key) + 1, 0]),
                  "blob_size": rng.choice([len(blob), len(blob) - 1, len(blob) + 1, 0])}
        return kind, encode(runtime, key, blob, **fields)
    if kind == "another sound entry":  # of another key, runtime or blob, or this very entry
        other_runtime = rng.choice(["ocl", "ze"])
        other_key = rng.choice([key, key + b"x", key[:-1] or b"y", rng.randbytes(len(key))])
        return kind, encode(other_runtime, other_key, rng.choice([blob, blob + b"!"]))
    return kind, dst.damage_cache_file(rng, runtime, key, blob, kind).content


def test_fuzzed_files_give_only_verified_hits_or_misses(tmp_path, caplog):
    rng = random.Random(20261123)
    store = CacheBlobStore(tmp_path)
    bases = [("ocl", b"k", b"b"), ("ze", bytes(range(150)), rng.randbytes(300)),
             ("ocl", rng.randbytes(40), rng.randbytes(4096))]
    valids = [encode(*base) for base in bases]
    outcomes: dict[str, list[int]] = {}
    verified_by_verify = 0
    for case in range(FUZZ_CASES):
        (runtime, key, blob), valid = bases[case % 3], valids[case % 3]
        kind, content = _mutation(rng, runtime, key, blob)
        path = store.path_for(runtime, key)
        write_raw(path, content)
        if case % 10 == 0:  # verify() must judge a file as get() does
            report = store.verify()
            hit = [entry for entry in report.ok if (entry.runtime, entry.key) == (runtime, key)]
            assert len(report.ok) + len(report.bad) == 1
            if hit:
                assert content == encode(runtime, key, path.read_bytes()[HEADER_SIZE + len(key):])
            else:
                assert not path.exists()
            verified_by_verify += 1
            got = store.get(runtime, key) if hit else None
        else:
            got = store.get(runtime, key)
        # The only allowed hit: the file is exactly the entry of (runtime, key, got).
        if got is not None:
            assert content == encode(runtime, key, got), (kind, case)
        else:
            assert content != valid and not path.exists(), (kind, case)
        outcomes.setdefault(kind, [0, 0])[got is None] += 1
        if got is not None:
            os.unlink(path)
        caplog.clear()
    assert sum(sum(pair) for pair in outcomes.values()) == FUZZ_CASES >= 10_000
    assert set(outcomes) == set(FUZZ_KINDS) and all(sum(pair) > 400 for pair in outcomes.values()), outcomes
    assert all(outcomes[kind][0] == 0 for kind in dst.DAMAGE_KINDS), outcomes  # damage is never a hit
    assert outcomes["another sound entry"][0] > 0  # the unchanged entry is among them, and hits
    assert verified_by_verify == FUZZ_CASES // 10


@given(damaged=dst.damaged_cache_files(max_blob_size=4096))
def test_every_damaged_file_is_a_logged_miss_and_verify_agrees(tmp_path_factory, caplog, damaged):
    """Whatever the damage (dnnl_interop.testing.strategies.DAMAGE_KINDS),
    verify() reports the file bad, and get() misses with one warning naming
    the file and removes it."""
    store = CacheBlobStore(tmp_path_factory.mktemp("damaged"), max_blob_size=4096)
    path = store.path_for(damaged.runtime, damaged.key)
    store.directory.mkdir(exist_ok=True)
    write_raw(path, damaged.content)
    assert [bad.path for bad in store.verify().bad] == [path]
    assert not path.exists()
    write_raw(path, damaged.content)
    caplog.clear()
    with caplog.at_level(logging.WARNING, LOGGER):
        assert store.get(damaged.runtime, damaged.key) is None
    assert [r.levelno for r in caplog.records if r.name == LOGGER] == [logging.WARNING]
    assert str(path) in caplog.text
    assert not path.exists()


@given(runtime=st.sampled_from(["ocl", "ze"]), key=st.binary(min_size=1, max_size=64),
       blob=st.binary(min_size=1, max_size=512))
def test_the_toolkits_cache_entry_is_the_documented_format(runtime, key, blob):
    """dnnl_interop.testing.strategies.cache_entry writes what the format above says."""
    assert dst.cache_entry(runtime, key, blob) == encode(runtime, key, blob)
    assert dst.cache_entry(runtime, key, blob, version=2, flags=1) == encode(runtime, key, blob, version=2, flags=1)


@given(content=st.binary(max_size=400))
def test_arbitrary_file_content_is_a_miss_unless_it_is_the_exact_entry(tmp_path_factory, content):
    store = CacheBlobStore(tmp_path_factory.mktemp("fuzz"))
    path = store.path_for("ze", b"key")
    write_raw(path, content)
    got = store.get("ze", b"key")
    assert got is None or content == encode("ze", b"key", got)


@given(key=st.binary(min_size=1, max_size=64), blob=st.binary(min_size=1, max_size=512),
       offset=st.integers(0, 10_000), bit=st.integers(0, 7))
def test_any_single_bit_flip_of_a_sound_entry_is_a_miss(tmp_path_factory, key, blob, offset, bit):
    store = CacheBlobStore(tmp_path_factory.mktemp("flip"))
    assert store.put("ocl", key, blob)
    path = store.path_for("ocl", key)
    data = bytearray(path.read_bytes())
    data[offset % len(data)] ^= 1 << bit
    write_raw(path, bytes(data))
    assert store.get("ocl", key) is None


# --- the store against a dict model --------------------------------------------

KEYS = [b"a", b"b", bytes(range(150)), compose_key(b"engine", b"primitive")]


class StoreAgainstDict(RuleBasedStateMachine):
    """Every sequence of operations leaves the store equal to a dict kept in LRU order."""

    def __init__(self):
        super().__init__()
        self.directory = tempfile.mkdtemp(prefix="dnnl-interop-cache-model-")
        self.store = CacheBlobStore(self.directory)
        self.model: dict[tuple[str, bytes], bytes] = {}  # insertion order = least recently used first

    def teardown(self):
        shutil.rmtree(self.directory)

    def _touch(self, slot, blob):
        self.model.pop(slot, None)
        self.model[slot] = blob

    @rule(runtime=st.sampled_from(["ocl", "ze"]), key=st.sampled_from(KEYS), blob=st.binary(min_size=1, max_size=200))
    def put(self, runtime, key, blob):
        assert self.store.put(runtime, key, blob) is True
        self._touch((runtime, key), blob)

    @rule(runtime=st.sampled_from(["ocl", "ze"]), key=st.sampled_from(KEYS))
    def get(self, runtime, key):
        expected = self.model.get((runtime, key))
        assert self.store.get(runtime, key) == expected
        if expected is not None:
            self._touch((runtime, key), expected)

    @rule(runtime=st.sampled_from(["ocl", "ze"]), key=st.sampled_from(KEYS))
    def delete(self, runtime, key):
        assert self.store.delete(runtime, key) == ((runtime, key) in self.model)
        self.model.pop((runtime, key), None)

    @rule(max_bytes=st.none() | st.integers(0, 1500), max_age=st.sampled_from([None, 10**9]))
    def prune(self, max_bytes, max_age):
        expected = []
        if max_bytes is not None:
            total = sum(HEADER_SIZE + len(key) + len(blob) for (_, key), blob in self.model.items())
            for (runtime, key), blob in self.model.items():
                if total <= max_bytes:
                    break
                expected.append((runtime, key))
                total -= HEADER_SIZE + len(key) + len(blob)
        removed = self.store.prune(max_bytes=max_bytes, max_age=max_age)
        assert [(entry.runtime, entry.key) for entry in removed] == expected
        for slot in expected:
            del self.model[slot]

    @rule()
    def clear(self):
        assert self.store.clear() == len(self.model)
        self.model.clear()

    @rule()
    def reopen(self):
        self.store = CacheBlobStore(self.directory)

    @precondition(lambda self: self.model)
    @rule(data=st.data())
    def corrupt_one_byte(self, data):
        runtime, key = data.draw(st.sampled_from(sorted(self.model)))
        path = self.store.path_for(runtime, key)
        content = bytearray(path.read_bytes())
        content[data.draw(st.integers(0, len(content) - 1))] ^= data.draw(st.integers(1, 255))
        write_raw(path, bytes(content))
        assert self.store.get(runtime, key) is None
        del self.model[(runtime, key)]

    @invariant()
    def listing_matches_the_model_in_lru_order(self):
        listed = [(entry.runtime, entry.key, entry.blob_size, entry.size) for entry in self.store.entries()]
        assert listed == [(runtime, key, len(blob), HEADER_SIZE + len(key) + len(blob))
                          for (runtime, key), blob in self.model.items()]


TestStoreAgainstDict = StoreAgainstDict.TestCase
# Sequences are cheap here (about 1 ms a step); the CI profile's 40 would barely reach LRU orders.
TestStoreAgainstDict.settings = settings(max_examples=max(settings.default.max_examples, 100))


# --- last use, prune, verify, clear ---------------------------------------------


def _age(path, seconds):
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_a_hit_marks_the_entry_used_now(store):
    assert store.put("ocl", b"k", b"blob")
    _age(store.path_for("ocl", b"k"), 3600)
    assert time.time() - store.entries()[0].last_used > 3500
    assert store.get("ocl", b"k") == b"blob"
    assert time.time() - store.entries()[0].last_used < 60


def test_a_miss_does_not_touch_other_entries(store):
    assert store.put("ocl", b"k", b"blob")
    _age(store.path_for("ocl", b"k"), 3600)
    assert store.get("ocl", b"other") is None and store.get("ze", b"k") is None
    assert time.time() - store.entries()[0].last_used > 3500


def test_entries_describe_each_entry_least_recently_used_first(store):
    for age, key in [(30, b"b"), (10, b"c"), (20, b"a")]:
        assert store.put("ze", key, key * 10)
        _age(store.path_for("ze", key), age)
    entries = list(store)
    assert [entry.key for entry in entries] == [b"b", b"a", b"c"]
    first = entries[0]
    assert (first.runtime, first.blob_size, first.size) == ("ze", 10, HEADER_SIZE + 1 + 10)
    assert first.path == store.path_for("ze", b"b")
    assert abs(first.last_used_datetime.timestamp() - first.last_used) < 1e-3
    assert first.last_used_datetime.tzinfo == datetime.timezone.utc
    with pytest.raises(AttributeError):
        first.size = 0  # read-only


def test_prune_max_bytes_removes_least_recently_used_first_until_it_fits(store):
    for age, key in [(300, b"old"), (200, b"mid"), (100, b"new")]:
        assert store.put("ocl", key, b"x" * 100)
        _age(store.path_for("ocl", key), age)
    size = HEADER_SIZE + 3 + 100
    assert store.get("ocl", b"old") == b"x" * 100  # now the most recently used
    removed = store.prune(max_bytes=2 * size)
    assert [entry.key for entry in removed] == [b"mid"]
    assert store.prune(max_bytes=2 * size) == []
    assert [entry.key for entry in store.prune(max_bytes=size)] == [b"new"]
    assert [entry.key for entry in store.prune(max_bytes=0)] == [b"old"]
    assert files(store.directory) == []


def test_prune_max_age_removes_entries_unused_for_longer(store):
    for age, key in [(3 * 86400, b"3 days"), (3600, b"1 hour"), (0, b"now")]:
        assert store.put("ocl", key, b"blob")
        _age(store.path_for("ocl", key), age)
    assert [entry.key for entry in store.prune(max_age=datetime.timedelta(days=1))] == [b"3 days"]
    assert [entry.key for entry in store.prune(max_age=60)] == [b"1 hour"]
    assert [entry.key for entry in store.entries()] == [b"now"]


def test_prune_with_both_limits_applies_age_then_size(store):
    for age, key in [(500, b"a"), (400, b"b"), (300, b"c"), (200, b"d")]:
        assert store.put("ocl", key, b"blob")
        _age(store.path_for("ocl", key), age)
    removed = store.prune(max_bytes=HEADER_SIZE + 1 + 4, max_age=450)
    assert [entry.key for entry in removed] == [b"a", b"b", b"c"]


@pytest.mark.parametrize("kwargs", [{"max_bytes": -1}, {"max_bytes": 1.0}, {"max_bytes": "1"},
                                    {"max_age": -1}, {"max_age": "7d"}, {"max_age": datetime.timedelta(-1)}])
def test_prune_refuses_bad_limits(store, kwargs):
    with pytest.raises(ValueError, match=f"^{next(iter(kwargs))}:"):
        store.prune(**kwargs)


def test_prune_without_limits_removes_no_sound_entry(store):
    assert store.put("ocl", b"k", b"blob")
    assert store.prune() == []
    assert store.get("ocl", b"k") == b"blob"


def test_prune_keeps_entries_used_or_rewritten_after_it_listed_them(store, monkeypatch):
    for key in (b"used", b"rewritten", b"idle"):
        assert store.put("ocl", key, b"old")
        _age(store.path_for("ocl", key), 3600)
    real_scan = store._scan

    def others_act_after_the_listing():
        listing = real_scan()
        other = CacheBlobStore(store.directory)
        assert other.get("ocl", b"used") == b"old"
        assert other.put("ocl", b"rewritten", b"new")
        return listing

    monkeypatch.setattr(store, "_scan", others_act_after_the_listing)
    assert [entry.key for entry in store.prune(max_bytes=0)] == [b"idle"]
    monkeypatch.undo()
    assert (store.get("ocl", b"used"), store.get("ocl", b"rewritten")) == (b"old", b"new")


def test_verify_leaves_a_bad_file_a_writer_replaced_meanwhile_to_that_writer(store, monkeypatch):
    store.directory.mkdir()
    write_raw(store.path_for("ocl", b"k"), b"garbage")
    real_read = store._read_header

    def writer_replaces_it_while_read(fd, info):
        try:
            return real_read(fd, info)
        finally:
            assert CacheBlobStore(store.directory).put("ocl", b"k", b"fresh")

    monkeypatch.setattr(store, "_read_header", writer_replaces_it_while_read)
    report = store.verify()
    monkeypatch.undo()
    assert report.ok == () and report.bad == ()
    assert store.get("ocl", b"k") == b"fresh"


def test_prune_also_removes_bad_files_and_stale_temporary_files(tmp_path, caplog):
    store = CacheBlobStore(tmp_path, stale_temp_age=600)
    assert store.put("ocl", b"good", b"blob")
    write_raw(store.path_for("ocl", b"bad"), b"not an entry" * 10)
    name = entry_name("ze", b"k")
    stale, fresh = tmp_path / f".{name}.00000000000000aa.tmp", tmp_path / f".{name}.00000000000000bb.tmp"
    write_raw(stale, b"partial")
    write_raw(fresh, b"partial")
    _age(stale, 601)
    with caplog.at_level(logging.WARNING, LOGGER):
        assert store.prune() == []
    assert "not a dnnl-interop cache entry" in caplog.text
    assert files(tmp_path) == sorted([entry_name("ocl", b"good"), fresh.name])


def test_verify_reports_and_removes_bad_entries_and_stale_temporary_files(tmp_path):
    store = CacheBlobStore(tmp_path, stale_temp_age=600)
    assert store.put("ocl", b"good", b"blob")
    assert store.put("ze", b"flipped", b"blob")
    flipped = store.path_for("ze", b"flipped")
    write_raw(flipped, flipped.read_bytes()[:-1] + b"c")
    misnamed = store.path_for("ocl", b"misnamed")
    write_raw(misnamed, encode("ocl", b"other", b"blob"))
    stale = tmp_path / f".{entry_name('ocl', b'x')}.0000000000000000.tmp"
    write_raw(stale, b"partial")
    _age(stale, 601)
    unrelated = tmp_path / "notes.txt"
    write_raw(unrelated, b"kept")
    before = store.entries()
    report = store.verify()
    assert [entry.key for entry in report.ok] == [b"good"]
    assert {bad.path: bad.reason for bad in report.bad} == {
        flipped: "fails its checksum", misnamed: "is named for another runtime or key"}
    assert report.stale_temp_files == (stale,) and not report.clean
    assert files(tmp_path) == sorted([entry_name("ocl", b"good"), "notes.txt"])
    assert store.verify().clean
    assert store.entries()[0].last_used == next(e for e in before if e.key == b"good").last_used


def test_clear_removes_only_this_formats_files(tmp_path):
    store = CacheBlobStore(tmp_path)
    assert store.put("ocl", b"a", b"blob") and store.put("ze", b"b", b"blob")
    write_raw(tmp_path / f".{entry_name('ocl', b'c')}.0000000000000000.tmp", b"partial")
    keep = ["notes.txt", "ocl-abc.v1.dnnlblob", entry_name("ocl", b"a").replace(".v1.", ".v2."), ".hidden.tmp"]
    for name in keep:
        write_raw(tmp_path / name, b"not ours")
    assert store.clear() == 3
    assert files(tmp_path) == sorted(keep)


def test_another_format_versions_files_are_never_read_or_removed(tmp_path):
    store = CacheBlobStore(tmp_path)
    v2 = tmp_path / entry_name("ocl", b"k").replace(".v1.", ".v2.")
    write_raw(v2, b"a future format")
    assert store.get("ocl", b"k") is None
    store.verify()
    store.prune(max_bytes=0)
    assert v2.read_bytes() == b"a future format"


# --- writes: atomic, durable, never failing --------------------------------------


def test_put_writes_a_temporary_file_fsyncs_it_renames_it_then_fsyncs_the_directory(store, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append(("fsync", "directory" if stat.S_ISDIR(os.fstat(fd).st_mode) else os.fstat(fd).st_size))
        real_fsync(fd)

    def replace(src, dst):
        events.append(("replace", os.path.basename(src), os.path.basename(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    assert store.put("ocl", b"k", b"blob")
    monkeypatch.undo()
    name = entry_name("ocl", b"k")
    assert events[0] == ("fsync", HEADER_SIZE + 1 + 4)
    assert events[1][0] == "replace" and events[1][2] == name
    assert events[1][1].startswith(f".{name}.") and events[1][1].endswith(".tmp")
    assert events[2:] == [("fsync", "directory")]


def _patched(monkeypatch, name, error, only=lambda *args: True):
    real = getattr(os, name)

    def failing(*args, **kwargs):
        if only(*args):
            raise OSError(error, os.strerror(error))
        return real(*args, **kwargs)

    monkeypatch.setattr(os, name, failing)


def test_directory_that_is_a_file_means_no_caching_and_no_exception(tmp_path, caplog):
    # Real, not simulated: the kernel refuses to create or open anything inside a file.
    blocker = tmp_path / "blocker"
    write_raw(blocker, b"")
    for directory in (blocker, blocker / "sub"):  # existing-but-unusable, missing-and-uncreatable
        caplog.clear()
        store = CacheBlobStore(directory)
        with caplog.at_level(logging.WARNING, LOGGER):
            assert store.put("ocl", b"k", b"blob") is False
            assert store.get("ocl", b"k") is None
        assert "could not create the cache directory" in caplog.text
        assert "not caching" in caplog.text
    assert files(tmp_path) == ["blocker"]


def test_read_only_directory_simulated_with_erofs_means_no_caching(store, monkeypatch, caplog):
    # Simulated: os.open with O_CREAT raises EROFS (root ignores chmod).
    assert store.put("ocl", b"old", b"blob")
    _patched(monkeypatch, "open", errno.EROFS, only=lambda path, flags, *rest: flags & os.O_CREAT)
    with caplog.at_level(logging.WARNING, LOGGER):
        assert store.put("ocl", b"new", b"blob") is False
        assert store.put("ocl", b"old", b"replacement") is False
    assert store.get("ocl", b"old") == b"blob"
    assert store.get("ocl", b"new") is None
    warnings = [r for r in caplog.records if r.name == LOGGER and r.levelno == logging.WARNING]
    assert len(warnings) == 1, "one warning per kind of failure, then debug"
    assert "Read-only file system" in warnings[0].getMessage()
    assert files(store.directory) == [entry_name("ocl", b"old")]


def test_rename_refused_on_a_read_only_directory_leaves_no_temporary_file(store, monkeypatch, caplog):
    # Simulated: os.replace raises EROFS after the temporary file was written.
    _patched(monkeypatch, "replace", errno.EROFS)
    with caplog.at_level(logging.WARNING, LOGGER):
        assert store.put("ze", b"k", b"blob") is False
    assert "could not rename the entry into place" in caplog.text
    assert files(store.directory) == []


def test_bad_entry_that_cannot_be_removed_is_still_a_miss(store, monkeypatch, caplog):
    # Simulated: os.unlink raises EROFS.
    store.directory.mkdir()
    write_raw(store.path_for("ocl", b"k"), b"garbage")
    _patched(monkeypatch, "unlink", errno.EROFS)
    with caplog.at_level(logging.WARNING, LOGGER):
        assert store.get("ocl", b"k") is None
    assert "could not be removed" in caplog.text


def test_full_disk_simulated_with_enospc_means_no_caching_and_the_old_entry_stays(store, monkeypatch, caplog):
    # Simulated: the first os.write into the store writes part of its data, the next raises ENOSPC.
    assert store.put("ocl", b"k", b"old blob")
    real_write = os.write
    calls = []

    def filling_write(fd, data):
        calls.append(len(data))
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, bytes(data)[:10])

    monkeypatch.setattr(os, "write", filling_write)
    with caplog.at_level(logging.WARNING, LOGGER):
        assert store.put("ocl", b"k", b"new blob" * 1000) is False
    monkeypatch.undo()
    assert len(calls) == 2
    assert "No space left on device" in caplog.text
    assert store.get("ocl", b"k") == b"old blob"
    assert temp_files(store.directory) == []


def test_fsync_failure_means_no_caching(store, monkeypatch, caplog):
    # Simulated: fsync of the temporary file raises EIO (a failed write-back).
    _patched(monkeypatch, "fsync", errno.EIO)
    with caplog.at_level(logging.WARNING, LOGGER):
        assert store.put("ocl", b"k", b"blob") is False
    monkeypatch.undo()
    assert "could not flush the entry to disk" in caplog.text
    assert files(store.directory) == []


def test_directory_fsync_unsupported_is_silent_and_the_entry_is_stored(store, monkeypatch, caplog):
    store.directory.mkdir()
    _patched(monkeypatch, "fsync", errno.EINVAL, only=lambda fd: stat.S_ISDIR(os.fstat(fd).st_mode))
    with caplog.at_level(logging.WARNING, LOGGER):
        assert store.put("ocl", b"k", b"blob") is True
    assert caplog.records == []
    assert store.get("ocl", b"k") == b"blob"


def test_unreadable_entry_is_a_logged_miss_and_is_kept(store, monkeypatch, caplog):
    # Simulated: reading raises EIO; an I/O error says nothing about the content.
    assert store.put("ocl", b"k", b"blob")
    _patched(monkeypatch, "read", errno.EIO)
    with caplog.at_level(logging.WARNING, LOGGER):
        assert store.get("ocl", b"k") is None
    monkeypatch.undo()
    assert "cannot be read" in caplog.text
    assert store.get("ocl", b"k") == b"blob"


def test_maintenance_calls_report_io_failures(tmp_path):
    blocker = tmp_path / "file"
    write_raw(blocker, b"")
    store = CacheBlobStore(blocker)
    for call in (store.entries, store.verify, store.clear, lambda: store.prune(max_bytes=0),
                 lambda: store.delete("ocl", b"k")):
        with pytest.raises(NotADirectoryError):
            call()


# --- concurrency -----------------------------------------------------------------


def blob_for(writer: int, serial: int, size: int) -> bytes:
    """A blob that names its writer and serial number and can be rebuilt from them."""
    head = struct.pack("<II", writer, serial)
    return head + hashlib.sha256(head).digest() * ((size - 8) // 32)


def written_blob(blob: bytes, size: int) -> tuple[int, int]:
    """``(writer, serial)`` if ``blob`` is exactly one of :func:`blob_for`'s blobs of ``size``, else fail."""
    writer, serial = struct.unpack("<II", blob[:8])
    assert blob == blob_for(writer, serial, size), "a blob nobody wrote was served"
    return writer, serial


def test_threads_sharing_one_store_only_ever_see_whole_blobs(tmp_path):
    store = CacheBlobStore(tmp_path)
    keys = [b"k0", b"k1", b"k2"]
    errors, hits = [], []

    def work(writer):
        rng = random.Random(writer)
        try:
            for serial in range(120):
                key = rng.choice(keys)
                action = rng.random()
                if action < 0.45:
                    assert store.put("ocl", key, blob_for(writer, serial, 4096)) is True
                elif action < 0.9:
                    got = store.get("ocl", key)
                    if got is not None:
                        written_blob(got, 4096)
                        hits.append(1)
                elif action < 0.95:
                    store.delete("ocl", key)
                else:
                    store.prune(max_bytes=2 * 4096)
        except Exception as exc:  # any failure in a thread is reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(writer,)) for writer in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert hits
    report = store.verify()
    assert report.clean and temp_files(tmp_path) == []


KILL_TRIALS = 200
KILL_KEYS = [("ocl", b"engine-id"), ("ze", b"engine-id"), ("ocl", compose_key(b"engine-id", b"reorder"))]
KILL_BLOB_SIZE = 1 << 20


def _writer_until_killed(directory: str, trial: int, pipe: int) -> None:
    """Child of a fork: say it is ready, then write big blobs in a loop, one byte per stored entry."""
    store = CacheBlobStore(directory)
    os.write(pipe, b"r")
    serial = 0
    while True:
        runtime, key = KILL_KEYS[serial % len(KILL_KEYS)]
        if store.put(runtime, key, blob_for(trial, serial, KILL_BLOB_SIZE)):
            os.write(pipe, b"p")
        serial += 1


def _kill_trials(tmp_path, trials: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    store = CacheBlobStore(tmp_path)
    start = time.perf_counter()
    for serial, (runtime, key) in enumerate(KILL_KEYS):
        assert store.put(runtime, key, blob_for(0, serial, KILL_BLOB_SIZE))
    # The kill comes uniformly within `window` of the child being ready. The
    # window follows the machine's speed: it grows after a trial in which no
    # put completed and shrinks after one in which some did, so about half
    # of the kills come during the first put and the rest later.
    window = 3 * (time.perf_counter() - start) / len(KILL_KEYS)
    current = {slot: (0, serial) for serial, slot in enumerate(KILL_KEYS)}
    stats = {"trials": 0, "killed mid-write": 0, "entries replaced": 0, "temporary files left": 0,
             "puts completed": 0}
    for trial in range(1, trials + 1):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: write, never return into pytest
            try:
                os.close(read_end)
                _writer_until_killed(str(tmp_path), trial, write_end)
            finally:
                os._exit(1)
        os.close(write_end)
        select.select([read_end], [], [], 30)
        time.sleep(rng.uniform(0, window))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        with os.fdopen(read_end, "rb") as reports:
            completed = reports.read().count(b"p")
        stats["puts completed"] += completed
        window = window / 1.15 if completed else window * 1.15
        left = len(temp_files(tmp_path))
        stats["killed mid-write"] += left > stats["temporary files left"]
        stats["temporary files left"] = left
        for (runtime, key), before in current.items():
            got = store.get(runtime, key)
            # Never lost (the rename is atomic), never anything but a whole written blob.
            assert got is not None, f"trial {trial}: entry lost"
            writer, serial = written_blob(got, KILL_BLOB_SIZE)
            assert writer in (before[0], trial) and KILL_KEYS[serial % len(KILL_KEYS)] == (runtime, key)
            if (writer, serial) != before:
                stats["entries replaced"] += 1
                current[(runtime, key)] = (writer, serial)
        stats["trials"] += 1
    report = CacheBlobStore(tmp_path, stale_temp_age=0).verify()
    assert report.bad == () and len(report.ok) == len(KILL_KEYS)
    assert len(report.stale_temp_files) == stats["temporary files left"]
    assert files(tmp_path) == sorted(entry_name(runtime, key) for runtime, key in KILL_KEYS)
    return stats


def test_writer_killed_at_random_points_never_leaves_an_entry_served_wrongly(tmp_path):
    stats = _kill_trials(tmp_path, KILL_TRIALS, seed=1)
    assert stats["trials"] == KILL_TRIALS >= 200
    # The kills did land both inside writes and after whole ones.
    assert stats["killed mid-write"] >= KILL_TRIALS // 10, stats
    assert stats["entries replaced"] >= KILL_TRIALS // 10, stats


@pytest.mark.soak
def test_writer_killed_at_random_points_soak(tmp_path):
    stats = _kill_trials(tmp_path, 5000, seed=2)
    assert stats["killed mid-write"] >= 500 and stats["entries replaced"] >= 500, stats


HAMMER = r"""
import hashlib, struct, sys
from dnnl_interop.cache import CacheBlobStore

def blob_for(writer, serial, size):
    head = struct.pack("<II", writer, serial)
    return head + hashlib.sha256(head).digest() * ((size - 8) // 32)

directory, writer, rounds, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
store = CacheBlobStore(directory)
for serial in range(rounds):
    if not store.put("ocl", b"one key", blob_for(writer, serial, size)):
        sys.exit(f"writer {writer}: put {serial} failed")
    got = store.get("ocl", b"one key")
    if got is None:
        sys.exit(f"writer {writer}: the entry was missing after put {serial}")
    w, s = struct.unpack("<II", got[:8])
    if got != blob_for(w, s, size) or w not in (1, 2):
        sys.exit(f"writer {writer}: a blob nobody wrote was served")
print("ok")
"""


def test_two_processes_hammering_one_key_end_with_one_valid_entry(tmp_path):
    rounds, size = 150, 64 << 10
    children = [subprocess.Popen([sys.executable, "-c", HAMMER, str(tmp_path), str(writer), str(rounds), str(size)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for writer in (1, 2)]
    store = CacheBlobStore(tmp_path)
    seen = set()
    while any(child.poll() is None for child in children):  # a third reader meanwhile
        got = store.get("ocl", b"one key")
        if got is not None:
            seen.add(written_blob(got, size)[0])
    for child in children:
        out, err = child.communicate()
        assert (child.returncode, out.strip()) == (0, "ok"), err
    assert files(tmp_path) == [entry_name("ocl", b"one key")]
    writer, serial = written_blob(store.get("ocl", b"one key"), size)
    assert writer in (1, 2) and serial == rounds - 1  # the last rename of one of them won
    assert seen <= {1, 2}
