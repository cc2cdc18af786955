"""Test support for code built on oneDNN's OpenCL interop.

:mod:`dnnl_interop.testing.emulated_gpu` gives a test suite a real oneDNN
OpenCL GPU engine on machines without an Intel GPU (Intel's CPU OpenCL
runtime presented as a Gen9 GPU by an OpenCL loader layer), as a function, a
context manager, a child-process runner and, through the pytest plugin
:mod:`dnnl_interop.testing.pytest_plugin`, the fixture ``emulated_gpu`` and
the option ``--emulated-gpu``.

Importing this package imports neither pyopencl nor oneDNN.
"""
