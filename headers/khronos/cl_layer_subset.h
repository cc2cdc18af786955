/*******************************************************************************
 * Copyright (c) 2008-2023 The Khronos Group Inc.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *    http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 ******************************************************************************/

/* The cl_loader_layers entry points a layer exports, from the Khronos
 * OpenCL-Headers <CL/cl_layer.h>. clInitLayerWithProperties and clDeinitLayer
 * (with cl_layer_properties) are newer than the cl_layer.h the intel-sycl-rt
 * wheel ships; they are declared as in the Khronos OpenCL-ICD-Loader, whose
 * loaders in the 2026.2 Intel runtime wheels skip a layer that lacks them. */

#ifndef DNNL_INTEROP_KHRONOS_CL_LAYER_SUBSET_H
#define DNNL_INTEROP_KHRONOS_CL_LAYER_SUBSET_H

#include "cl_icd_subset.h"

typedef cl_uint             cl_layer_info;
typedef cl_uint             cl_layer_api_version;

/* cl_layer_info */
#define CL_LAYER_API_VERSION                                0x4240
#define CL_LAYER_NAME                                       0x4241

/* Misc API enums */
#define CL_LAYER_API_VERSION_100                            100

typedef cl_properties cl_layer_properties;

#define CL_LAYER_PROPERTIES_LIST_END         ((cl_layer_properties)0)

extern CL_API_ENTRY cl_int CL_API_CALL
clGetLayerInfo(
    cl_layer_info param_name,
    size_t param_value_size,
    void* param_value,
    size_t* param_value_size_ret) ;

extern CL_API_ENTRY cl_int CL_API_CALL
clInitLayer(
    cl_uint num_entries,
    const cl_icd_dispatch* target_dispatch,
    cl_uint* num_entries_ret,
    const cl_icd_dispatch** layer_dispatch_ret) ;

extern CL_API_ENTRY cl_int CL_API_CALL
clInitLayerWithProperties(
    cl_uint num_entries,
    const cl_icd_dispatch *target_dispatch,
    cl_uint *num_entries_ret,
    const cl_icd_dispatch **layer_dispatch_ret,
    const cl_layer_properties *properties);

extern CL_API_ENTRY cl_int CL_API_CALL
clDeinitLayer(void);

#endif
