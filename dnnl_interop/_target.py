"""The oneDNN release this binding targets: the one constant an upgrade changes.

``headers/`` is a trimmed copy of this release's headers
(``scripts/update-headers.py`` regenerates it), the ``onednn`` extra in
``pyproject.toml`` pins :data:`ONEDNN_PYPI_VERSION`, and the tests compare the
loaded library against :data:`TARGET_ONEDNN`. Imports nothing, so build and
maintenance scripts can load this file by path.
"""

from __future__ import annotations

# oneDNN's own version (what dnnl_version() reports).
TARGET_ONEDNN = "3.13.2"
# The PyPI release of the ``onednn`` and ``onednn-devel`` wheels that carry it.
ONEDNN_PYPI_VERSION = "2026.1.0"

TARGET_MAJOR_MINOR: tuple[int, int] = (
    int(TARGET_ONEDNN.split(".")[0]),
    int(TARGET_ONEDNN.split(".")[1]),
)
