/*******************************************************************************
* Copyright 2020 Intel Corporation
*
* Licensed under the Apache License, Version 2.0 (the "License");
* you may not use this file except in compliance with the License.
* You may obtain a copy of the License at
*
*     http://www.apache.org/licenses/LICENSE-2.0
*
* Unless required by applicable law or agreed to in writing, software
* distributed under the License is distributed on an "AS IS" BASIS,
* WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
* See the License for the specific language governing permissions and
* limitations under the License.
*******************************************************************************/

/* Trimmed copy of oneDNN v3.13.2 include/oneapi/dnnl/dnnl_sycl_types.h
 * (PyPI onednn-devel==2026.1.0). Complete.
 * Declarations are verbatim; tests/test_headers.py checks them against
 * upstream. Conditional blocks are kept; the build evaluates them as the released
 * library is configured (build_ffi.CONFIGURED_MACROS). */

#ifndef DNNL_INTEROP_DNNL_SYCL_TYPES_H
#define DNNL_INTEROP_DNNL_SYCL_TYPES_H

#ifdef __cplusplus
extern "C" {
#endif

/// Memory allocation kind.
typedef enum {
    /// USM (device, shared, host, or unknown) memory allocation kind - default.
    dnnl_sycl_interop_usm,
    /// Buffer memory allocation kind.
    dnnl_sycl_interop_buffer,
} dnnl_sycl_interop_memory_kind_t;

#ifdef __cplusplus
}
#endif

#endif
