"""Level Zero handles as values: what ``dnnl_interop.ze`` takes and gives back
(drivers, devices, contexts, command lists, events). Re-exported by ``ze``."""

from __future__ import annotations

from ._handles import Handle

__all__ = ["ZeHandle", "Driver", "Device", "Context", "CommandList", "Event"]


class ZeHandle(Handle):
    """A Level Zero handle as a value (see :class:`dnnl_interop._handles.Handle`).

    ``int(h)`` is the address, ``h.ptr`` the typed cffi pointer; equal
    handles are of the same kind at the same address. It does not keep the
    native object alive.

    Raises:
        TypeError: the value is not an int address, a cffi pointer of this kind, or an object
            with ``int_ptr``/``__int__``.
        ValueError: the address is negative or does not fit a pointer.
    """

    __slots__ = ()
    __module__ = "dnnl_interop.ze"  # where users find it (and pickle looks it up)
    _family = "Level Zero"


class Driver(ZeHandle):
    """A ``ze_driver_handle_t``.

    Raises:
        TypeError: the value is not an int address, a cffi pointer of this kind, or an object
            with ``int_ptr``/``__int__``.
        ValueError: the address is negative or does not fit a pointer.
    """

    __slots__ = ()
    __module__ = "dnnl_interop.ze"
    _ctype = "ze_driver_handle_t"


class Device(ZeHandle):
    """A ``ze_device_handle_t``.

    Raises:
        TypeError: the value is not an int address, a cffi pointer of this kind, or an object
            with ``int_ptr``/``__int__``.
        ValueError: the address is negative or does not fit a pointer.
    """

    __slots__ = ()
    __module__ = "dnnl_interop.ze"
    _ctype = "ze_device_handle_t"


class Context(ZeHandle):
    """A ``ze_context_handle_t``.

    Raises:
        TypeError: the value is not an int address, a cffi pointer of this kind, or an object
            with ``int_ptr``/``__int__``.
        ValueError: the address is negative or does not fit a pointer.
    """

    __slots__ = ()
    __module__ = "dnnl_interop.ze"
    _ctype = "ze_context_handle_t"


class CommandList(ZeHandle):
    """A ``ze_command_list_handle_t``.

    Raises:
        TypeError: the value is not an int address, a cffi pointer of this kind, or an object
            with ``int_ptr``/``__int__``.
        ValueError: the address is negative or does not fit a pointer.
    """

    __slots__ = ()
    __module__ = "dnnl_interop.ze"
    _ctype = "ze_command_list_handle_t"


class Event(ZeHandle):
    """A ``ze_event_handle_t``.

    Raises:
        TypeError: the value is not an int address, a cffi pointer of this kind, or an object
            with ``int_ptr``/``__int__``.
        ValueError: the address is negative or does not fit a pointer.
    """

    __slots__ = ()
    __module__ = "dnnl_interop.ze"
    _ctype = "ze_event_handle_t"
