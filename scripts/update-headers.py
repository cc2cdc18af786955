#!/usr/bin/env python3
"""Regenerate the trimmed oneDNN headers in ``headers/`` from a release.

    scripts/update-headers.py --onednn-version 2026.1.0    # pip download onednn-devel
    scripts/update-headers.py --from-wheel onednn_devel-2026.1.0-....whl
    scripts/update-headers.py --from-include .venv/include/oneapi/dnnl --check

The upstream files come from the ``onednn-devel`` wheel of the given PyPI
version (fetched with ``pip download --no-deps``), from a wheel file, or from
an include directory. What we keep of each file is listed in
``scripts/headers-manifest.json``: the declarations, enums, typedefs and
macros by name (``"all"`` keeps every one: new interop functions arrive on
their own), with the comment above each kept verbatim, in upstream's order,
under upstream's license block. Kept names upstream lacks are listed and, unless
``--allow-missing``, nothing is written.

Prints a unified diff against the current ``headers/`` and a summary of what
changed (functions, enum members, macros). ``--check`` writes nothing and
exits 1 if there is a difference. Loads ``dnnl_interop/_cdef.py`` and
``_target.py`` by path: it needs nothing installed but pip for downloads.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, TypedDict

ROOT = Path(__file__).resolve().parent.parent
HEADER_DIR = ROOT / "headers"
MANIFEST = Path(__file__).resolve().parent / "headers-manifest.json"
PACKAGE = "onednn-devel"
# Doxygen commands that group or hide declarations, not document one.
GROUP_COMMAND = re.compile(r"^///\s*(@(addtogroup|file|cond|endcond|struct)\b|@[{}])")
CONDITIONAL_OPEN = re.compile(r"^#\s*(if|ifdef|ifndef)\b")


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


# --- reading upstream ---------------------------------------------------------------


class Entry(TypedDict, total=False):
    """One file of the manifest."""

    file: str
    summary: list[str]  # what the file is for, after the provenance line
    preamble: list[str]  # lines of our own before the includes
    includes: list[str]
    keep: list[str] | str  # names, or "all"


@dataclass
class Item:
    """One top-level declaration: its name, the comment above it and its text."""

    name: str
    comment: list[str]
    lines: list[str]
    guards: tuple[tuple[str, bool], ...] = ()  # (#if line, in its #else branch)


@dataclass
class Header:
    license: list[str]
    items: list[Item] = field(default_factory=list)


def _item_name(text: str) -> str:
    """The name a declaration declares (a struct tag reads ``struct tag``)."""
    flat = " ".join(text.split())
    if flat.startswith("#"):
        return flat.split()[1]
    function = re.search(r"(\w+)\s*\(", flat.replace("DNNL_API", " ")) if "DNNL_API" in flat else None
    if function:
        return function.group(1)
    if flat.startswith("typedef"):
        pointer = re.search(r"\(\s*\*\s*(\w+)\s*\)", flat)
        typedef = re.search(r"(\w+)\s*(?:\[[^\]]*\])?\s*;$", flat)
        if pointer and "{" not in flat:
            return pointer.group(1)
        if typedef:
            return typedef.group(1)
    struct = re.match(r"(struct|union|enum)\s+(\w+)\s*[{;]", flat)
    if struct:
        return f"{struct.group(1)} {struct.group(2)}"
    while "{" in flat:  # a variable: the name before its initializer or ';'
        flat = re.sub(r"\{[^{}]*\}", " ", flat)
    variable = re.search(r"(\w+)\s*(?:\[[^\]]*\])?\s*(?:=|;$)", flat)
    if variable:
        return variable.group(1)
    raise ValueError(f"cannot name the declaration {flat[:80]!r}")


def _logical_lines(text: str) -> list[str]:
    """Lines with trailing blanks removed; a directive continued by ``\\`` stays one entry."""
    out: list[str] = []
    for line in text.splitlines():
        line = line.rstrip()
        if out and out[-1].endswith("\\") and out[-1].lstrip().startswith("#"):
            out[-1] += "\n" + line
        else:
            out.append(line)
    return out


def read_header(text: str) -> Header:
    """Split a oneDNN header into its license block and top-level items.

    Include guards, ``#include``, ``extern "C"`` wrappers and Doxygen grouping
    commands are dropped; a comment is kept when it touches the item below it.
    """
    lines = _logical_lines(text)
    start = 0
    license_block: list[str] = []
    if lines and lines[0].startswith("/*"):
        while not lines[start].endswith("*/"):
            start += 1
        license_block = lines[: start + 1]
        start += 1
    _drop_include_guard(lines, start)
    header = Header(license_block)
    comment: list[str] = []
    guards: list[tuple[str, bool]] = []
    i = start
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        i += 1
        if not stripped:
            # Doc comments separated by a blank line are one comment; a blank
            # line parts any other comment from what follows.
            following = next((rest.strip() for rest in lines[i:] if rest.strip()), "")
            doc = following.startswith("///") and not GROUP_COMMAND.match(following)
            if not (doc and comment and all(c.lstrip().startswith("///") for c in comment)):
                comment = []
        elif GROUP_COMMAND.match(stripped):
            comment = []
        elif stripped.startswith("//"):
            comment.append(line)
        elif stripped.startswith("/*"):
            block = [line]
            while not block[-1].rstrip().endswith("*/"):
                block.append(lines[i])
                i += 1
            comment.extend(block)
        elif stripped.startswith("#"):
            directive = re.match(r"#\s*(\w+)", stripped)
            word = directive.group(1) if directive else ""
            if word == "define":
                header.items.append(Item(_item_name(stripped), comment, [line], tuple(guards)))
            elif word in ("include", "undef", "error"):
                pass
            elif word in ("ifdef", "ifndef") and stripped.split()[1] in ("__cplusplus",):
                # extern "C" {  or  }  and its #endif
                while not lines[i].strip().startswith("#endif"):
                    i += 1
                i += 1
            elif CONDITIONAL_OPEN.match(stripped):
                guards.append((stripped, False))
            elif word in ("else", "elif"):
                guards[-1] = (guards[-1][0], True) if word == "else" else (stripped, False)
            elif word == "endif":
                if guards:
                    guards.pop()
            else:
                raise ValueError(f"unexpected directive: {stripped!r}")
            comment = []  # a directive parts a comment from what follows
        else:
            block, i = _declaration(lines, i - 1)
            header.items.append(Item(_item_name("\n".join(block)), comment, block, tuple(guards)))
            comment = []
    return header


def _drop_include_guard(lines: list[str], start: int) -> None:
    """Blank the include guard (``#ifndef X`` / ``#define X`` first, the last
    ``#endif``): it wraps the whole file and is no condition of its items."""
    directives = [j for j in range(start, len(lines)) if lines[j].lstrip().startswith("#")]
    if len(directives) < 3:
        return
    first, second, last = directives[0], directives[1], directives[-1]
    guard = re.match(r"#\s*ifndef\s+(\w+)$", lines[first].strip())
    if guard and re.match(rf"#\s*define\s+{guard.group(1)}$", lines[second].strip()) and \
            lines[last].strip().startswith("#endif"):
        lines[first] = lines[second] = lines[last] = ""


def _declaration(lines: list[str], i: int) -> tuple[list[str], int]:
    """The lines of the declaration starting at ``lines[i]``: up to the ``;``
    that closes it outside braces and parentheses (directives inside an enum
    body are part of it)."""
    block: list[str] = []
    depth = 0
    while i < len(lines):
        line = lines[i]
        block.append(line)
        i += 1
        code = re.sub(r"//.*", "", line)
        code = re.sub(r"/\*.*?\*/", "", code)
        if code.lstrip().startswith("#"):
            continue
        depth += code.count("{") + code.count("(") - code.count("}") - code.count(")")
        if depth == 0 and code.rstrip().endswith(";"):
            return block, i
    raise ValueError(f"unterminated declaration: {block[0]!r}")


# --- writing ours -------------------------------------------------------------------


def _guard(name: str) -> str:
    return "DNNL_INTEROP_" + re.sub(r"\W", "_", name).upper()


def _item_text(item: Item) -> list[str]:
    return [*item.comment, *item.lines]


def _items_text(items: list[Item]) -> list[str]:
    """Items separated by blank lines; neighbours under the same conditions
    share one conditional block."""
    out: list[str] = []
    run: list[Item] = []

    def flush() -> None:
        if not run:
            return
        if out:
            out.append("")
        for line, in_else in run[0].guards:
            out.append(line)
            if in_else:
                out.append("#else")
        for k, item in enumerate(run):
            if k:
                out.append("")
            out.extend(_item_text(item))
        out.extend("#endif" for _ in run[0].guards)
        run.clear()

    for item in items:
        if run and item.guards != run[0].guards:
            flush()
        run.append(item)
    flush()
    return out


def render(entry: Entry, upstream: Header, version: str, pypi: str) -> tuple[str, list[str]]:
    """Our trimmed copy of one upstream file, and the kept names upstream lacks."""
    name = entry["file"]
    keep = entry["keep"]
    by_name = {item.name: item for item in upstream.items}
    if keep == "all":
        items, missing = list(upstream.items), []
    else:
        wanted = set(keep)
        items = [item for item in upstream.items if item.name in wanted]
        missing = [n for n in keep if n not in by_name]
    summary = entry["summary"]
    lines = [*upstream.license, ""]
    lines.append(f"/* Trimmed copy of oneDNN v{version} include/oneapi/dnnl/{name}")
    lines.append(f" * (PyPI {PACKAGE}=={pypi}). {summary[0]}")
    lines.extend(f" * {text}" for text in summary[1:])
    lines += [
        " * Declarations are verbatim; tests/test_headers.py checks them against",
        " * upstream. Conditional blocks are kept; the build evaluates them as the released",
        " * library is configured (build_ffi.CONFIGURED_MACROS). */",
        "",
        f"#ifndef {_guard(name)}",
        f"#define {_guard(name)}",
        "",
    ]
    for block in (entry.get("preamble", []), [f"#include {include}" for include in entry.get("includes", [])]):
        if block:
            lines += [*block, ""]
    lines += ['#ifdef __cplusplus', 'extern "C" {', "#endif", ""]
    body = _items_text(items)
    if body:
        lines += [*body, ""]
    lines += ["#ifdef __cplusplus", "}", "#endif", "", "#endif"]
    return "\n".join(lines) + "\n", missing


# --- where upstream comes from ------------------------------------------------------


def _upstream_dir(path: Path) -> Path:
    for candidate in (path, path / "oneapi" / "dnnl", path / "include" / "oneapi" / "dnnl"):
        if (candidate / "dnnl_version.h").is_file():
            return candidate
    raise SystemExit(f"--from-include: no dnnl_version.h under {path}")


def _wheel_version(wheel: Path) -> str:
    match = re.match(r"onednn_devel-([^-]+)-", wheel.name)
    if not match:
        raise SystemExit(f"{wheel.name}: not an {PACKAGE} wheel")
    return match.group(1)


def _extract(wheel: Path, into: Path) -> Path:
    target = into / "include"
    target.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as archive:
        members = [m for m in archive.namelist() if re.search(r"/include/oneapi/dnnl/[^/]+\.h$", m)]
        if not members:
            raise SystemExit(f"{wheel}: no include/oneapi/dnnl/*.h")
        for member in members:
            (target / Path(member).name).write_bytes(archive.read(member))
    return target


def _download(version: str, into: Path) -> Path:
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--dest", str(into), f"{PACKAGE}=={version}"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"pip download failed:\n{done.stdout}{done.stderr}")
    wheels = sorted(into.glob("onednn_devel-*.whl"))
    if not wheels:
        raise SystemExit(f"pip download left no {PACKAGE} wheel in {into}")
    return wheels[0]


def upstream_version(directory: Path) -> str:
    text = (directory / "dnnl_version.h").read_text()
    parts = [re.search(rf"#define DNNL_VERSION_{p}\s+(\d+)", text) for p in ("MAJOR", "MINOR", "PATCH")]
    if not all(parts):
        raise SystemExit(f"{directory / 'dnnl_version.h'}: no DNNL_VERSION_MAJOR/MINOR/PATCH")
    return ".".join(p.group(1) for p in parts if p)


# --- what changed ---------------------------------------------------------------------


def _some(names: list[str], shown: int = 8) -> str:
    """`` (a, b, ...)`` naming the first few of ``names``; nothing for none."""
    if not names:
        return ""
    return f" ({', '.join(names[:shown])}{', ...' if len(names) > shown else ''})"


def changes(cdef: ModuleType, before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Functions, enum members and macros added, removed or changed."""
    def parsed(texts: dict[str, str]) -> Any:  # _cdef.Declarations (loaded by path)
        order = [n for n in cdef.HEADERS if n in texts]
        return cdef.parse("\n".join(texts[n] for n in order))

    try:
        old, new = parsed(before), parsed(after)
    except ValueError as exc:  # a header the parser cannot read (hand-edited, truncated)
        return [f"declarations not compared: {exc}"]
    lines = []
    old_functions = {f.name: f.signature for f in old.functions}
    new_functions = {f.name: f.signature for f in new.functions}
    for label, names in (("functions added", sorted(set(new_functions) - set(old_functions))),
                         ("functions removed", sorted(set(old_functions) - set(new_functions))),
                         ("functions changed", sorted(n for n in set(old_functions) & set(new_functions)
                                                      if old_functions[n] != new_functions[n]))):
        if names:
            lines.append(f"{label} ({len(names)}): {', '.join(names)}")
    for enum in sorted(set(old.enums) | set(new.enums)):
        a, b = old.enums.get(enum, {}), new.enums.get(enum, {})
        added = [k for k in b if k not in a]
        removed = [k for k in a if k not in b]
        moved = [k for k in a if k in b and a[k] != b[k]]
        if added or removed or moved:
            parts = [f"+{len(added)}{_some(added)}", f"-{len(removed)}{_some(removed)}"]
            if moved:
                parts.append(f"{len(moved)} changed value{_some(moved)}")
            lines.append(f"enum {enum}: " + ", ".join(parts))
    a_macros, b_macros = old.int_constants, new.int_constants
    for label, names in (("macros added", sorted(set(b_macros) - set(a_macros))),
                         ("macros removed", sorted(set(a_macros) - set(b_macros))),
                         ("macros changed", sorted(n for n in set(a_macros) & set(b_macros)
                                                   if a_macros[n] != b_macros[n]))):
        if names:
            lines.append(f"{label} ({len(names)}): {', '.join(names)}")
    return lines


# --- main -------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    target = _load("update_headers_target", ROOT / "dnnl_interop" / "_target.py")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--onednn-version", default=None,
                        help=f"PyPI version of {PACKAGE} (default: the targeted {target.ONEDNN_PYPI_VERSION})")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--from-wheel", type=Path, help=f"an {PACKAGE} wheel file")
    source.add_argument("--from-include", type=Path, help="a directory holding oneDNN's headers")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if headers/ would change")
    parser.add_argument("--allow-missing", action="store_true",
                        help="write even if upstream lacks names the manifest keeps")
    parser.add_argument("--headers", type=Path, default=HEADER_DIR, help="the directory to compare and write")
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    args = parser.parse_args(argv)

    pypi = args.onednn_version or target.ONEDNN_PYPI_VERSION
    manifest: dict[str, list[Entry]] = json.loads(args.manifest.read_text())
    cdef = _load("update_headers_cdef", ROOT / "dnnl_interop" / "_cdef.py")
    with tempfile.TemporaryDirectory() as scratch:
        if args.from_include:
            upstream = _upstream_dir(args.from_include)
        else:
            wheel = args.from_wheel or _download(pypi, Path(scratch))
            if args.from_wheel:
                if args.onednn_version and args.onednn_version != _wheel_version(wheel):
                    raise SystemExit(f"--onednn-version {args.onednn_version} but the wheel is {wheel.name}")
                pypi = _wheel_version(wheel)
            upstream = _extract(wheel, Path(scratch))
        version = upstream_version(upstream)
        new: dict[str, str] = {}
        missing: dict[str, list[str]] = {}
        for entry in manifest["files"]:
            path = upstream / entry["file"]
            if not path.is_file():
                missing[entry["file"]] = ["(the whole file)"]
                continue
            text, lacking = render(entry, read_header(path.read_text()), version, pypi)
            new[entry["file"]] = text
            if lacking:
                missing[entry["file"]] = lacking

    names = [entry["file"] for entry in manifest["files"]]
    current = {n: (args.headers / n).read_text() for n in names if (args.headers / n).is_file()}
    diff: list[str] = []
    for n in names:
        diff += difflib.unified_diff(
            current.get(n, "").splitlines(keepends=True), new.get(n, "").splitlines(keepends=True),
            f"a/headers/{n}", f"b/headers/{n}" if n in new else "/dev/null",
        )
    sys.stdout.writelines(diff)

    print(f"\noneDNN {version} ({PACKAGE}=={pypi}); the binding targets {target.TARGET_ONEDNN} "
          f"({PACKAGE}=={target.ONEDNN_PYPI_VERSION})")
    for n, names_missing in missing.items():
        print(f"missing upstream in {n}: {', '.join(names_missing)}")
    summary = changes(cdef, {n: t for n, t in current.items()}, {**{n: "" for n in current}, **new})
    print("\n".join(summary) if summary else "declarations: no change")
    changed = [n for n in names if current.get(n) != new.get(n)]
    print(f"files that differ: {', '.join(changed) if changed else 'none'}")

    if args.check:
        return 1 if changed else 0
    if missing and not args.allow_missing:
        print("nothing written: upstream lacks names the manifest keeps (--allow-missing writes anyway)")
        return 2
    for n in changed:
        if n in new:
            (args.headers / n).write_text(new[n])
    if changed:
        print(f"wrote {len(changed)} file(s); next: set TARGET_ONEDNN and ONEDNN_PYPI_VERSION in "
              "dnnl_interop/_target.py, the pins in pyproject.toml, then rebuild and run the tests")
    return 0


if __name__ == "__main__":
    sys.exit(main())
