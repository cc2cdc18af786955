/* The subset of the Khronos OpenCL API that the oneDNN stand-in uses.
 *
 * There are no OpenCL headers on these machines, so the stand-in declares
 * what it calls itself. Every value below is copied from the Khronos headers
 * (CL/cl.h and, for Intel's unified shared memory extension, CL/cl_ext.h);
 * the handle types come from the binding's own headers/opencl_handles.h, so
 * they are the very types the interop prototypes use.
 *
 * The stand-in links against an ICD loader, so every function here is the
 * loader's entry point: it forwards to the implementation (PoCL, Intel's CPU
 * runtime) through the dispatch table stored in each handle. */

#ifndef DNNL_STANDIN_CL_SUBSET_H
#define DNNL_STANDIN_CL_SUBSET_H

#include <stddef.h>
#include <stdint.h>

#include "opencl_handles.h"

/* --- scalar types (cl_platform.h) ---------------------------------------- */

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef cl_uint cl_bool;
typedef cl_ulong cl_bitfield;
typedef cl_ulong cl_properties;

typedef cl_uint cl_platform_info;
typedef cl_uint cl_device_info;
typedef cl_uint cl_context_info;
typedef cl_uint cl_command_queue_info;
typedef cl_bitfield cl_command_queue_properties;
typedef cl_bitfield cl_mem_flags;
typedef cl_bitfield cl_map_flags;

/* --- error codes ----------------------------------------------------------- */

#define CL_SUCCESS 0
#define CL_MEM_OBJECT_ALLOCATION_FAILURE -4
#define CL_OUT_OF_RESOURCES -5
#define CL_OUT_OF_HOST_MEMORY -6
#define CL_INVALID_VALUE -30 /* first of the CL_INVALID_* block */
#define CL_INVALID_PLATFORM -32
#define CL_INVALID_DEVICE -33
#define CL_MAX_SIZE_RESTRICTION_EXCEEDED -72 /* last of the block (2.2) */

/* --- cl_bool --------------------------------------------------------------- */

#define CL_FALSE 0
#define CL_TRUE 1

/* --- cl_platform_info ------------------------------------------------------ */

#define CL_PLATFORM_NAME 0x0902

/* --- cl_device_info -------------------------------------------------------- */

#define CL_DEVICE_MAX_COMPUTE_UNITS 0x1002
#define CL_DEVICE_MAX_WORK_GROUP_SIZE 0x1004
#define CL_DEVICE_ADDRESS_BITS 0x100D
#define CL_DEVICE_MAX_MEM_ALLOC_SIZE 0x1010
#define CL_DEVICE_GLOBAL_MEM_SIZE 0x101F
#define CL_DEVICE_NAME 0x102B
#define CL_DRIVER_VERSION 0x102D
#define CL_DEVICE_EXTENSIONS 0x1030
#define CL_DEVICE_PLATFORM 0x1031

/* --- cl_context_info ------------------------------------------------------- */

#define CL_CONTEXT_DEVICES 0x1081

/* --- cl_command_queue_properties (bitfield) and cl_command_queue_info ------ */

#define CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE (1 << 0)

#define CL_QUEUE_CONTEXT 0x1090
#define CL_QUEUE_DEVICE 0x1091
#define CL_QUEUE_PROPERTIES 0x1093

/* --- cl_mem_flags and cl_map_flags (bitfields) ---------------------------- */

#define CL_MEM_READ_WRITE (1 << 0)

#define CL_MAP_READ (1 << 0)
#define CL_MAP_WRITE (1 << 1)

/* --- core functions (OpenCL 1.0 - 1.2) ----------------------------------------
 * Calling convention: CL_API_CALL is empty on Linux. */

cl_int clGetPlatformInfo(cl_platform_id platform, cl_platform_info param_name,
        size_t param_value_size, void *param_value,
        size_t *param_value_size_ret);

cl_int clGetDeviceInfo(cl_device_id device, cl_device_info param_name,
        size_t param_value_size, void *param_value,
        size_t *param_value_size_ret);
cl_int clRetainDevice(cl_device_id device); /* 1.2 */
cl_int clReleaseDevice(cl_device_id device); /* 1.2 */

cl_int clGetContextInfo(cl_context context, cl_context_info param_name,
        size_t param_value_size, void *param_value,
        size_t *param_value_size_ret);
cl_int clRetainContext(cl_context context);
cl_int clReleaseContext(cl_context context);

/* Deprecated in 2.0, still exported by every ICD loader and implementation. */
cl_command_queue clCreateCommandQueue(cl_context context, cl_device_id device,
        cl_command_queue_properties properties, cl_int *errcode_ret);
cl_int clGetCommandQueueInfo(cl_command_queue command_queue,
        cl_command_queue_info param_name, size_t param_value_size,
        void *param_value, size_t *param_value_size_ret);
cl_int clRetainCommandQueue(cl_command_queue command_queue);
cl_int clReleaseCommandQueue(cl_command_queue command_queue);
cl_int clFinish(cl_command_queue command_queue);

cl_mem clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size,
        void *host_ptr, cl_int *errcode_ret);
cl_int clRetainMemObject(cl_mem memobj);
cl_int clReleaseMemObject(cl_mem memobj);

cl_int clEnqueueReadBuffer(cl_command_queue command_queue, cl_mem buffer,
        cl_bool blocking_read, size_t offset, size_t size, void *ptr,
        cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
        cl_event *event);
cl_int clEnqueueWriteBuffer(cl_command_queue command_queue, cl_mem buffer,
        cl_bool blocking_write, size_t offset, size_t size, const void *ptr,
        cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
        cl_event *event);
void *clEnqueueMapBuffer(cl_command_queue command_queue, cl_mem buffer,
        cl_bool blocking_map, cl_map_flags map_flags, size_t offset,
        size_t size, cl_uint num_events_in_wait_list,
        const cl_event *event_wait_list, cl_event *event, cl_int *errcode_ret);
cl_int clEnqueueUnmapMemObject(cl_command_queue command_queue, cl_mem memobj,
        void *mapped_ptr, cl_uint num_events_in_wait_list,
        const cl_event *event_wait_list, cl_event *event);
cl_int clEnqueueMarkerWithWaitList(cl_command_queue command_queue,
        cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
        cl_event *event); /* 1.2 */
cl_int clWaitForEvents(cl_uint num_events, const cl_event *event_list);

void *clGetExtensionFunctionAddressForPlatform(
        cl_platform_id platform, const char *func_name); /* 1.2 */

/* --- cl_intel_unified_shared_memory (CL/cl_ext.h) ----------------------------
 * Extension functions are not exported by ICD loaders: they are looked up
 * per platform with clGetExtensionFunctionAddressForPlatform. */

#define CL_INTEL_USM_EXTENSION_NAME "cl_intel_unified_shared_memory"

typedef cl_properties cl_mem_properties_intel;
typedef cl_uint cl_mem_info_intel;
typedef cl_uint cl_unified_shared_memory_type_intel;

#define CL_MEM_ALLOC_TYPE_INTEL 0x419A

#define CL_MEM_TYPE_UNKNOWN_INTEL 0x4196
#define CL_MEM_TYPE_HOST_INTEL 0x4197
#define CL_MEM_TYPE_DEVICE_INTEL 0x4198
#define CL_MEM_TYPE_SHARED_INTEL 0x4199

typedef void *(*clDeviceMemAllocINTEL_fn)(cl_context context,
        cl_device_id device, const cl_mem_properties_intel *properties,
        size_t size, cl_uint alignment, cl_int *errcode_ret);
typedef cl_int (*clMemBlockingFreeINTEL_fn)(cl_context context, void *ptr);
typedef cl_int (*clGetMemAllocInfoINTEL_fn)(cl_context context,
        const void *ptr, cl_mem_info_intel param_name, size_t param_value_size,
        void *param_value, size_t *param_value_size_ret);
typedef cl_int (*clEnqueueMemcpyINTEL_fn)(cl_command_queue command_queue,
        cl_bool blocking, void *dst_ptr, const void *src_ptr, size_t size,
        cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
        cl_event *event);

#endif
