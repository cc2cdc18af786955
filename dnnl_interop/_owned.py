"""Objects that own exactly one oneDNN handle.

A handle is destroyed exactly once: by ``close()``, at the end of a ``with``
block, or when the object is garbage collected (also at interpreter
shutdown: the destroy function is kept on the class, so it outlives the
module globals). Whatever a handle needs stays alive through ``_keep``:
a memory keeps its engine and the buffer it wraps, a stream its engine.
"""

from __future__ import annotations

from ._ffi import ffi
from ._handles import address_of
from .errors import ClosedObjectError, check

_live = 0


def live_objects() -> int:
    """How many owned handles exist right now (for leak checks)."""
    return _live


class Owned:
    """Base class: one oneDNN handle, destroyed once."""

    __slots__ = ("_handle", "_keep", "__weakref__")
    _ctype = "void *"
    _destroy = None  # the C destroy function, set by each subclass
    _destroy_name = ""

    def _adopt(self, handle, keep: tuple = ()) -> None:
        """Take ownership of ``handle``, just returned by a C create function."""
        global _live
        self._handle = handle
        self._keep = keep
        _live += 1

    @classmethod
    def _from_handle(cls, handle, keep: tuple = ()):
        """Wrap a handle created elsewhere (an interop create function)."""
        obj = cls.__new__(cls)
        obj._adopt(handle, keep)
        return obj

    @property
    def handle(self):
        """The typed cffi pointer. Raises ClosedObjectError once closed."""
        handle = self._handle
        if handle is None:
            raise ClosedObjectError(f"this {type(self).__name__} is closed")
        return handle

    @property
    def int_ptr(self) -> int:
        """The handle's address as an int (pyopencl's convention)."""
        return address_of(self.handle)

    @property
    def closed(self) -> bool:
        return getattr(self, "_handle", None) is None

    def close(self) -> None:
        """Destroy the handle now. Closing twice is harmless."""
        global _live
        handle = getattr(self, "_handle", None)  # unset if creation failed
        if handle is None:
            return
        self._handle = None
        _live -= 1
        try:
            check(type(self)._destroy(handle), self._destroy_name)
        finally:
            self._keep = ()

    def __enter__(self):
        self.handle  # refuse to enter a closed object
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # nothing can be raised from a finalizer
            pass

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{self.int_ptr:#x}"
        return f"<dnnl_interop.{type(self).__name__} {state}>"

    @classmethod
    def _new_out(cls):
        """A fresh ``T *`` for a C create function to write into."""
        return ffi.new(cls._ctype + " *")
