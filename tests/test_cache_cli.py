"""``python -m dnnl_interop cache list|verify|prune|clear``: reports, JSON documents, exit codes."""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import subprocess
import sys
import time

import pytest

from dnnl_interop import __main__ as cli
from dnnl_interop._cache_cli import format_size, parse_duration, parse_size
from dnnl_interop.cache import HEADER_SIZE, CacheBlobStore, compose_key

ENGINE_ID = bytes(range(150))
PRIMITIVE_KEY = compose_key(ENGINE_ID, b"reorder-id")


def run(capsys, *argv):
    """``(exit code, stdout, stderr)`` of the command line run in this process."""
    code = cli.main(["cache", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    document = json.loads(out)
    assert document["exit_code"] == code and document["schema"] == 1
    return code, document, err


def _aged(store, runtime, key, blob, seconds):
    assert store.put(runtime, key, blob)
    then = time.time() - seconds
    os.utime(store.path_for(runtime, key), (then, then))


@pytest.fixture
def filled(tmp_path):
    """A store with an old engine entry (ocl), and a recent primitive entry (ze)."""
    store = CacheBlobStore(tmp_path / "blobs")
    _aged(store, "ocl", ENGINE_ID, b"e" * 131, 10 * 86400)
    _aged(store, "ze", PRIMITIVE_KEY, b"p" * 56540, 3600)
    return store


# --- list -------------------------------------------------------------------------


def test_list_prints_a_table_least_recently_used_first(capsys, filled):
    code, out, err = run(capsys, "list", "--dir", filled.directory)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"{filled.directory} (least recently used first)"
    assert lines[1].split() == ["RUNTIME", "SIZE", "BLOB", "LAST", "USED", "(UTC)", "KEY", "KEY", "SHA-256"]
    assert lines[2].split()[0] == "ocl" and lines[3].split()[0] == "ze"
    assert "131 B" in lines[2] and "150 B" in lines[2]
    assert "55.2 KiB" in lines[3] and f"{len(PRIMITIVE_KEY)} B" in lines[3]
    assert hashlib.sha256(ENGINE_ID).hexdigest()[:16] in lines[2]
    assert lines[-1] == f"2 entries, {format_size(2 * HEADER_SIZE + 150 + 131 + len(PRIMITIVE_KEY) + 56540)}"


def test_list_json_describes_every_entry(capsys, filled):
    code, document, _ = run_json(capsys, "list", "--dir", filled.directory)
    assert code == 0 and document["command"] == "list" and document["error"] is None
    assert document["directory"] == str(filled.directory)
    first, second = document["entries"]
    assert bytes.fromhex(first["key"]) == ENGINE_ID and bytes.fromhex(second["key"]) == PRIMITIVE_KEY
    assert first == {
        "runtime": "ocl", "key": ENGINE_ID.hex(), "key_bytes": 150,
        "key_sha256": hashlib.sha256(ENGINE_ID).hexdigest(),
        "size": HEADER_SIZE + 150 + 131, "blob_size": 131,
        "last_used": first["last_used"], "last_used_epoch": first["last_used_epoch"],
        "path": str(filled.path_for("ocl", ENGINE_ID)),
    }
    assert abs(first["last_used_epoch"] - (time.time() - 10 * 86400)) < 60
    assert datetime.datetime.fromisoformat(first["last_used"]).timestamp() == pytest.approx(first["last_used_epoch"])
    assert document["total_bytes"] == first["size"] + second["size"]


@pytest.mark.parametrize("action", ["list", "verify", "prune", "clear"])
def test_a_dir_that_does_not_exist_exits_7_saying_to_check_the_path(capsys, monkeypatch, tmp_path, action):
    # A mistyped --dir must not read as an empty store.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home"))
    missing = tmp_path / "typo"
    limit = ["--max-bytes", "0"] if action == "prune" else []
    code, out, err = run(capsys, action, "--dir", missing, *limit)
    assert (code, out) == (7, "")
    assert err == (
        f"dnnl-interop cache {action}: {missing}: [Errno 2] no such directory: check the path given to --dir "
        "(a store makes its directory when it saves its first blob; without --dir the default, "
        f"{tmp_path / 'home' / 'dnnl-interop' / 'blobs'}, is used)\n"
    )
    code, document, _ = run_json(capsys, action, "--dir", missing, *limit)
    assert code == 7 and document["error"]["class"] == "FileNotFoundError" and document["error"]["errno"] == 2
    assert not missing.exists()


def test_list_of_the_default_directory_before_anything_is_cached_says_so_and_creates_nothing(
        capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    default = tmp_path / "dnnl-interop" / "blobs"
    code, out, _ = run(capsys, "list")
    assert code == 0 and out == f"{default}: no cache directory (nothing cached yet)\n"
    code, document, _ = run_json(capsys, "list")
    assert (code, document["entries"], document["total_bytes"]) == (0, [], 0)
    assert not default.exists()


def test_list_of_an_empty_directory(capsys, tmp_path):
    code, out, _ = run(capsys, "list", "--dir", tmp_path)
    assert (code, out) == (0, f"{tmp_path}: no entries\n")


def test_default_directory_is_the_stores_default(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert CacheBlobStore().put("ocl", b"k", b"blob")
    code, document, _ = run_json(capsys, "list")
    assert code == 0
    assert document["directory"] == str(tmp_path / "dnnl-interop" / "blobs")
    assert [entry["key"] for entry in document["entries"]] == [b"k".hex()]


# --- verify -----------------------------------------------------------------------


def test_verify_of_sound_entries_exits_0(capsys, filled):
    code, out, _ = run(capsys, "verify", "--dir", filled.directory)
    assert code == 0
    assert out == (f"{filled.directory}: 2 sound entries, 0 bad entries removed, "
                   "0 abandoned temporary files removed\n")


def test_verify_reports_removes_bad_entries_and_exits_6(capsys, filled):
    path = filled.path_for("ze", PRIMITIVE_KEY)
    content = bytearray(path.read_bytes())
    content[-1] ^= 1
    path.write_bytes(bytes(content))
    code, out, _ = run(capsys, "verify", "--dir", filled.directory)
    assert code == 6
    assert "1 sound entry, 1 bad entry removed" in out
    assert f"bad: {path.name} fails its checksum" in out
    assert not path.exists()
    code, document, _ = run_json(capsys, "verify", "--dir", filled.directory)
    assert code == 0 and document["bad"] == [] and len(document["ok"]) == 1


def test_verify_json_lists_bad_files_and_abandoned_temporary_files(capsys, tmp_path):
    store = CacheBlobStore(tmp_path)
    store.directory.mkdir(exist_ok=True)
    bad = store.path_for("ocl", b"k")
    bad.write_bytes(b"x" * 100)
    temp = tmp_path / f".{bad.name}.0123456789abcdef.tmp"
    temp.write_bytes(b"partial")
    old = time.time() - 2 * 3600  # older than the default stale_temp_age of one hour
    os.utime(temp, (old, old))
    code, document, _ = run_json(capsys, "verify", "--dir", tmp_path)
    assert code == 6
    assert document["bad"] == [{"path": str(bad), "reason": "has the wrong magic (not a dnnl-interop cache entry)"}]
    assert document["stale_temp_files"] == [str(temp)]
    assert os.listdir(tmp_path) == []


# --- prune ------------------------------------------------------------------------


def test_prune_max_age_removes_entries_unused_for_longer(capsys, filled):
    code, out, _ = run(capsys, "prune", "--dir", filled.directory, "--max-age", "7d")
    assert code == 0
    assert out.splitlines()[0] == (f"{filled.directory}: removed 1 entry ({format_size(HEADER_SIZE + 150 + 131)}); "
                                   f"1 entry ({format_size(HEADER_SIZE + len(PRIMITIVE_KEY) + 56540)}) remain")
    assert out.splitlines()[2].split()[0] == "ocl"
    assert [entry.runtime for entry in filled.entries()] == ["ze"]


def test_prune_max_bytes_removes_least_recently_used_first(capsys, filled):
    big = HEADER_SIZE + len(PRIMITIVE_KEY) + 56540
    code, document, _ = run_json(capsys, "prune", "--dir", filled.directory, "--max-bytes", big)
    assert code == 0
    assert [entry["runtime"] for entry in document["removed"]] == ["ocl"]
    assert (document["max_bytes"], document["max_age_seconds"]) == (big, None)
    assert (document["remaining_entries"], document["remaining_bytes"]) == (1, big)
    code, document, _ = run_json(capsys, "prune", "--dir", filled.directory, "--max-bytes", "0", "--max-age", "1h")
    assert [entry["runtime"] for entry in document["removed"]] == ["ze"]
    assert document["max_age_seconds"] == 3600
    assert filled.entries() == []


def test_prune_without_a_limit_is_a_usage_error(capsys, filled):
    code, out, err = run(capsys, "prune", "--dir", filled.directory)
    assert (code, out) == (2, "")
    assert "give --max-bytes, --max-age or both" in err
    assert len(filled.entries()) == 2


@pytest.mark.parametrize("option, value", [("--max-age", "7x"), ("--max-age", "-1"), ("--max-age", "d"),
                                           ("--max-age", "inf"), ("--max-bytes", "-5"), ("--max-bytes", "1Q"),
                                           ("--max-bytes", "iB")])
def test_unreadable_limits_are_usage_errors(capsys, filled, option, value):
    code, out, err = run(capsys, "prune", "--dir", filled.directory, option, value)
    assert (code, out) == (2, "")
    assert f"argument {option}: invalid" in err
    assert len(filled.entries()) == 2


@pytest.mark.parametrize("text, seconds", [("90", 90), ("45s", 45), ("30m", 1800), ("12h", 43200), ("7d", 604800),
                                           ("2w", 1209600), ("1d12h", 129600), ("1.5h", 5400), ("0", 0),
                                           (" 7D ", 604800)])
def test_durations_are_read_as_seconds(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text, size", [("512", 512), ("512B", 512), ("64K", 65536), ("64k", 65536),
                                        ("1.5M", 1572864), ("2GiB", 2 << 30), ("10MB", 10 << 20), ("1T", 1 << 40)])
def test_sizes_are_read_in_powers_of_1024(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "M", "1 2", "1e3", "-1", "1.2.3", "5 KiBs"])
def test_unreadable_sizes_are_refused(text):
    with pytest.raises(argparse.ArgumentTypeError, match="invalid size"):
        parse_size(text)


@pytest.mark.parametrize("size, text", [(0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (56540, "55.2 KiB"),
                                        (3 << 20, "3.0 MiB"), (5 << 30, "5.0 GiB"), (2 << 40, "2.0 TiB")])
def test_sizes_are_shown_in_powers_of_1024(size, text):
    assert format_size(size) == text


# --- clear and errors ---------------------------------------------------------------


def test_clear_removes_every_entry(capsys, filled):
    (filled.directory / "README").write_text("not an entry")
    code, out, _ = run(capsys, "clear", "--dir", filled.directory)
    assert (code, out) == (0, f"{filled.directory}: removed 2 files\n")
    assert os.listdir(filled.directory) == ["README"]
    code, document, _ = run_json(capsys, "clear", "--dir", filled.directory)
    assert (code, document["removed_files"]) == (0, 0)


@pytest.mark.parametrize("action", ["list", "verify", "prune", "clear"])
def test_a_directory_that_cannot_be_read_exits_7_with_the_reason(capsys, tmp_path, action):
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("")
    limit = ["--max-bytes", "0"] if action == "prune" else []
    code, out, err = run(capsys, action, "--dir", not_a_directory, *limit)
    assert (code, out) == (7, "")
    assert err == f"dnnl-interop cache {action}: {not_a_directory}: [Errno 20] Not a directory: '{not_a_directory}'\n"
    code, document, _ = run_json(capsys, action, "--dir", not_a_directory, *limit)
    assert code == 7
    assert document["error"] == {"class": "NotADirectoryError", "errno": 20,
                                 "message": f"[Errno 20] Not a directory: '{not_a_directory}'"}


def test_cache_without_an_action_is_a_usage_error(capsys):
    code, out, err = run(capsys)
    assert (code, out) == (2, "")
    assert "ACTION" in err


@pytest.mark.parametrize("argv", [["cache", "--help"], ["cache", "prune", "--help"]])
def test_help_documents_the_exit_codes(capsys, argv):
    assert cli.main(argv) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "0 done" in out and "6 verify found bad entries" in out and "7 the directory cannot be read" in out


def test_module_entry_point_prints_only_json_on_stdout(tmp_path):
    store = CacheBlobStore(tmp_path)
    assert store.put("ocl", ENGINE_ID, b"blob")
    done = subprocess.run([sys.executable, "-m", "dnnl_interop", "cache", "list", "--json", "--dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert [bytes.fromhex(entry["key"]) for entry in document["entries"]] == [ENGINE_ID]
