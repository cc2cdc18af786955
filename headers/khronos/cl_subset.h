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

/* Trimmed from the Khronos OpenCL-Headers <CL/cl_platform.h>, <CL/cl.h>,
 * <CL/cl_ext.h> and <CL/cl_function_types.h> (as shipped in the intel-sycl-rt
 * wheel's include/CL/): only the types, constants and function types that the
 * emulated-GPU loader layer (dnnl_interop/testing/_emulated_gpu_layer.c) uses.
 * Declarations are verbatim, for x86-64 Linux (CL_API_CALL and CL_API_ENTRY
 * are empty there). */

#ifndef DNNL_INTEROP_KHRONOS_CL_SUBSET_H
#define DNNL_INTEROP_KHRONOS_CL_SUBSET_H

#include <stddef.h>
#include <stdint.h>

#define CL_API_ENTRY
#define CL_API_CALL

/* cl_platform.h */
typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;

/* cl.h */
typedef struct _cl_platform_id *    cl_platform_id;
typedef struct _cl_device_id *      cl_device_id;
typedef struct _cl_program *        cl_program;
typedef struct _cl_kernel *         cl_kernel;
typedef struct _cl_command_queue *  cl_command_queue;
typedef struct _cl_mem *            cl_mem;
typedef struct _cl_event *          cl_event;

typedef cl_ulong            cl_bitfield;
typedef cl_ulong            cl_properties;
typedef cl_bitfield         cl_device_type;
typedef cl_uint             cl_platform_info;
typedef cl_uint             cl_device_info;
typedef cl_uint             cl_program_info;
typedef cl_uint             cl_kernel_info;
typedef cl_uint cl_version;
typedef cl_uint             cl_bool;
typedef cl_bitfield         cl_map_flags;
typedef cl_uint             cl_event_info;

#define CL_SUCCESS                                  0
#define CL_DEVICE_NOT_FOUND                         -1
#define CL_OUT_OF_RESOURCES                         -5
#define CL_INVALID_VALUE                            -30
#define CL_INVALID_PROPERTY                         -64

#define CL_PLATFORM_NAME                            0x0902

#define CL_DEVICE_TYPE_CPU                          (1 << 1)
#define CL_DEVICE_TYPE_GPU                          (1 << 2)

#define CL_DEVICE_TYPE                                   0x1000
#define CL_DEVICE_VENDOR_ID                              0x1001
#define CL_DEVICE_PLATFORM                               0x1031

#define CL_PROGRAM_DEVICES                          0x1163

#define CL_KERNEL_REFERENCE_COUNT                   0x1192
#define CL_KERNEL_PROGRAM                           0x1194

#define CL_EVENT_COMMAND_EXECUTION_STATUS           0x11D3

/* cl_ext.h: cl_intel_device_attribute_query */
#define CL_DEVICE_IP_VERSION_INTEL                          0x4250

/* cl_ext.h: cl_intel_unified_shared_memory */
typedef cl_bitfield         cl_device_unified_shared_memory_capabilities_intel;
#define CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL      0x4194

/* cl_function_types.h */
typedef cl_int CL_API_CALL clGetPlatformInfo_t(
    cl_platform_id platform,
    cl_platform_info param_name,
    size_t param_value_size,
    void* param_value,
    size_t* param_value_size_ret);

typedef cl_int CL_API_CALL clGetDeviceIDs_t(
    cl_platform_id platform,
    cl_device_type device_type,
    cl_uint num_entries,
    cl_device_id* devices,
    cl_uint* num_devices);

typedef cl_int CL_API_CALL clGetDeviceInfo_t(
    cl_device_id device,
    cl_device_info param_name,
    size_t param_value_size,
    void* param_value,
    size_t* param_value_size_ret);

typedef cl_int CL_API_CALL clRetainProgram_t(
    cl_program program);

typedef cl_int CL_API_CALL clReleaseProgram_t(
    cl_program program);

typedef cl_int CL_API_CALL clGetProgramInfo_t(
    cl_program program,
    cl_program_info param_name,
    size_t param_value_size,
    void* param_value,
    size_t* param_value_size_ret);

typedef cl_kernel CL_API_CALL clCreateKernel_t(
    cl_program program,
    const char* kernel_name,
    cl_int* errcode_ret);

typedef cl_int CL_API_CALL clCreateKernelsInProgram_t(
    cl_program program,
    cl_uint num_kernels,
    cl_kernel* kernels,
    cl_uint* num_kernels_ret);

typedef cl_int CL_API_CALL clReleaseKernel_t(
    cl_kernel kernel);

typedef cl_int CL_API_CALL clGetKernelInfo_t(
    cl_kernel kernel,
    cl_kernel_info param_name,
    size_t param_value_size,
    void* param_value,
    size_t* param_value_size_ret);

typedef cl_kernel CL_API_CALL clCloneKernel_t(
    cl_kernel source_kernel,
    cl_int* errcode_ret);

typedef cl_int CL_API_CALL clWaitForEvents_t(
    cl_uint num_events,
    const cl_event* event_list);

typedef cl_int CL_API_CALL clGetEventInfo_t(
    cl_event event,
    cl_event_info param_name,
    size_t param_value_size,
    void* param_value,
    size_t* param_value_size_ret);

typedef cl_int CL_API_CALL clFinish_t(
    cl_command_queue command_queue);

typedef cl_int CL_API_CALL clEnqueueReadBuffer_t(
    cl_command_queue command_queue,
    cl_mem buffer,
    cl_bool blocking_read,
    size_t offset,
    size_t size,
    void* ptr,
    cl_uint num_events_in_wait_list,
    const cl_event* event_wait_list,
    cl_event* event);

typedef cl_int CL_API_CALL clEnqueueWriteBuffer_t(
    cl_command_queue command_queue,
    cl_mem buffer,
    cl_bool blocking_write,
    size_t offset,
    size_t size,
    const void* ptr,
    cl_uint num_events_in_wait_list,
    const cl_event* event_wait_list,
    cl_event* event);

typedef void* CL_API_CALL clEnqueueMapBuffer_t(
    cl_command_queue command_queue,
    cl_mem buffer,
    cl_bool blocking_map,
    cl_map_flags map_flags,
    size_t offset,
    size_t size,
    cl_uint num_events_in_wait_list,
    const cl_event* event_wait_list,
    cl_event* event,
    cl_int* errcode_ret);

#endif
