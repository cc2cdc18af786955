"""Resident set size, for the soak tests."""

from __future__ import annotations


def rss_kb() -> int:
    """This process's resident set size in KiB, from /proc/self/status."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")
