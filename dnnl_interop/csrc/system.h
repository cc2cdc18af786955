/* The system headers of dnnl_interop._ffi's C source, before everything else. */
#ifndef _GNU_SOURCE /* for dladdr; Python.h usually defines it first */
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
