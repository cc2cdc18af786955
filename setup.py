# cffi's build hook; all other metadata lives in pyproject.toml.
from setuptools import setup

setup(cffi_modules=["build_ffi.py:ffibuilder"])
