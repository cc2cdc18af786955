/* An emulated Level Zero loader: a library with the soname libze_loader.so.1
 * that answers the Level Zero calls oneDNN makes as one Intel Gen9-like GPU,
 * and does the work with Intel's CPU OpenCL runtime and its unified shared
 * memory extension. Used by dnnl_interop.testing.emulated_level_zero.
 *
 * libdnnl opens libze_loader.so.1 by name at its first Level Zero call; a
 * library with that soname already loaded is the one it gets. This library
 * does nothing until its first Level Zero call: no constructor, no
 * environment variable. It then opens the OpenCL ICD loader by name
 * (libOpenCL.so.1, RTLD_LOCAL: the helper preloads the onednn wheel's copy)
 * and uses the first device of the "Intel(R) OpenCL" platform. It links no
 * OpenCL library and needs no OpenCL or Level Zero SDK.
 *
 * Level Zero            OpenCL
 * driver, device        the platform and its device; the device reports IP
 *                       version 0x02400000 (Gen9: oneDNN then uses its
 *                       generic OpenCL C kernels) and the OpenCL device's
 *                       CL_DEVICE_UUID_KHR (oneDNN looks for an OpenCL GPU
 *                       with the same UUID)
 * context               a cl_context
 * immediate list        an in-order cl_command_queue
 * USM                   cl{Shared,Device,Host}MemAllocINTEL
 * event                 a user event (the "gate") that commands signalling
 *                       the event complete through a callback; commands
 *                       waiting on the event list the gate
 * module                a cl_program; its native binary is an envelope of
 *                       the OpenCL binary and the kinds of every kernel
 *                       argument, recorded from clGetKernelArgInfo when the
 *                       program is first built from source (programs rebuilt
 *                       from a binary have no argument info, and pointers
 *                       must be set with clSetKernelArgMemPointerINTEL)
 * kernel                a cl_kernel; it keeps its module's program alive
 *
 * Every object is reference counted against what it uses (a list and a
 * module against their context, a kernel against its module, an event
 * against its pool), so destroying in any order never leaves a dangling
 * OpenCL object. */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "level_zero/ze_api.h"
#include "level_zero/ze_intel_gpu.h"

/* glibc 2.34 moved these from libdl and libpthread into libc under a new
 * symbol version. On x86-64 they are bound to the versions every glibc has,
 * as a link against an older glibc binds them, so that the library loads on
 * glibc from 2.17 on (the wheel's manylinux tag); setup.py links libdl.so.2
 * and libpthread.so.0, where they live before 2.34. */
#if defined(__GLIBC__) && defined(__x86_64__)
__asm__(".symver dlopen,dlopen@GLIBC_2.2.5");
__asm__(".symver dlsym,dlsym@GLIBC_2.2.5");
__asm__(".symver pthread_once,pthread_once@GLIBC_2.2.5");
#endif

/* --- OpenCL declarations --------------------------------------------------
 * Types, values and signatures copied from the Khronos headers CL/cl.h and
 * CL/cl_ext.h (cl_khr_device_uuid, cl_intel_unified_shared_memory,
 * cl_intel_required_subgroup_size). */

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef cl_uint cl_bool;
typedef cl_ulong cl_bitfield;
typedef cl_ulong cl_properties;
typedef intptr_t cl_context_properties;
typedef cl_bitfield cl_device_type;
typedef cl_properties cl_queue_properties;
typedef cl_properties cl_mem_properties_intel;
typedef struct _cl_platform_id *cl_platform_id;
typedef struct _cl_device_id *cl_device_id;
typedef struct _cl_context *cl_context;
typedef struct _cl_command_queue *cl_command_queue;
typedef struct _cl_program *cl_program;
typedef struct _cl_kernel *cl_kernel;
typedef struct _cl_event *cl_event;

#define CL_SUCCESS 0
#define CL_DEVICE_NOT_FOUND -1
#define CL_MEM_OBJECT_ALLOCATION_FAILURE -4
#define CL_OUT_OF_RESOURCES -5
#define CL_OUT_OF_HOST_MEMORY -6
#define CL_BUILD_PROGRAM_FAILURE -11
#define CL_INVALID_VALUE -30
#define CL_INVALID_BINARY -42
#define CL_INVALID_KERNEL_NAME -46
#define CL_INVALID_ARG_INDEX -49
#define CL_INVALID_ARG_VALUE -50
#define CL_INVALID_ARG_SIZE -51
#define CL_INVALID_KERNEL_ARGS -52
#define CL_INVALID_WORK_GROUP_SIZE -54
#define CL_INVALID_BUFFER_SIZE -61
#define CL_INVALID_GLOBAL_WORK_SIZE -63
#define CL_MAX_SIZE_RESTRICTION_EXCEEDED -72

#define CL_FALSE 0
#define CL_COMPLETE 0x0

#define CL_DEVICE_TYPE_ALL 0xFFFFFFFF
#define CL_PLATFORM_NAME 0x0902
#define CL_DEVICE_MAX_COMPUTE_UNITS 0x1002
#define CL_DEVICE_MAX_WORK_ITEM_SIZES 0x1005
#define CL_DEVICE_MAX_WORK_GROUP_SIZE 0x1004
#define CL_DEVICE_MAX_CLOCK_FREQUENCY 0x100C
#define CL_DEVICE_MAX_MEM_ALLOC_SIZE 0x1010
#define CL_DEVICE_MAX_PARAMETER_SIZE 0x1017
#define CL_DEVICE_SINGLE_FP_CONFIG 0x101B
#define CL_DEVICE_GLOBAL_MEM_CACHE_SIZE 0x101E
#define CL_DEVICE_LOCAL_MEM_SIZE 0x1023
#define CL_DEVICE_NAME 0x102B
#define CL_DRIVER_VERSION 0x102D
#define CL_DEVICE_EXTENSIONS 0x1030
#define CL_DEVICE_DOUBLE_FP_CONFIG 0x1032
#define CL_DEVICE_HALF_FP_CONFIG 0x1033
#define CL_DEVICE_PRINTF_BUFFER_SIZE 0x1049
#define CL_DEVICE_UUID_KHR 0x106A
#define CL_DEVICE_SUB_GROUP_SIZES_INTEL 0x4108
#define CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL 0x4190
#define CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL 0x4191
#define CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL 0x4192

#define CL_PROGRAM_BINARY_SIZES 0x1165
#define CL_PROGRAM_BINARIES 0x1166
#define CL_PROGRAM_BUILD_LOG 0x1183
#define CL_KERNEL_FUNCTION_NAME 0x1190
#define CL_KERNEL_NUM_ARGS 0x1191
#define CL_KERNEL_ARG_ADDRESS_QUALIFIER 0x1196
#define CL_KERNEL_ARG_ADDRESS_GLOBAL 0x119B
#define CL_KERNEL_ARG_ADDRESS_LOCAL 0x119C
#define CL_KERNEL_ARG_ADDRESS_CONSTANT 0x119D
#define CL_KERNEL_ARG_TYPE_NAME 0x1198
#define CL_KERNEL_WORK_GROUP_SIZE 0x11B0
#define CL_EVENT_COMMAND_EXECUTION_STATUS 0x11D3

#define CL_MEM_ALLOC_TYPE_INTEL 0x419A
#define CL_MEM_ALLOC_BASE_PTR_INTEL 0x419B
#define CL_MEM_ALLOC_DEVICE_INTEL 0x419D
#define CL_MEM_TYPE_UNKNOWN_INTEL 0x4196
#define CL_MEM_TYPE_HOST_INTEL 0x4197
#define CL_MEM_TYPE_DEVICE_INTEL 0x4198
#define CL_MEM_TYPE_SHARED_INTEL 0x4199

/* The OpenCL functions used, resolved at run time. */
#define CL_FUNCTIONS(X) \
    X(clGetPlatformIDs, cl_int, (cl_uint, cl_platform_id *, cl_uint *)) \
    X(clGetPlatformInfo, cl_int, (cl_platform_id, cl_uint, size_t, void *, size_t *)) \
    X(clGetDeviceIDs, cl_int, (cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *)) \
    X(clGetDeviceInfo, cl_int, (cl_device_id, cl_uint, size_t, void *, size_t *)) \
    X(clCreateContext, cl_context, \
      (const cl_context_properties *, cl_uint, const cl_device_id *, void *, void *, cl_int *)) \
    X(clReleaseContext, cl_int, (cl_context)) \
    X(clCreateCommandQueueWithProperties, cl_command_queue, \
      (cl_context, cl_device_id, const cl_queue_properties *, cl_int *)) \
    X(clReleaseCommandQueue, cl_int, (cl_command_queue)) \
    X(clFinish, cl_int, (cl_command_queue)) \
    X(clFlush, cl_int, (cl_command_queue)) \
    X(clCreateProgramWithSource, cl_program, (cl_context, cl_uint, const char **, const size_t *, cl_int *)) \
    X(clCreateProgramWithBinary, cl_program, \
      (cl_context, cl_uint, const cl_device_id *, const size_t *, const unsigned char **, cl_int *, cl_int *)) \
    X(clBuildProgram, cl_int, (cl_program, cl_uint, const cl_device_id *, const char *, void *, void *)) \
    X(clGetProgramInfo, cl_int, (cl_program, cl_uint, size_t, void *, size_t *)) \
    X(clGetProgramBuildInfo, cl_int, (cl_program, cl_device_id, cl_uint, size_t, void *, size_t *)) \
    X(clReleaseProgram, cl_int, (cl_program)) \
    X(clCreateKernel, cl_kernel, (cl_program, const char *, cl_int *)) \
    X(clCreateKernelsInProgram, cl_int, (cl_program, cl_uint, cl_kernel *, cl_uint *)) \
    X(clGetKernelInfo, cl_int, (cl_kernel, cl_uint, size_t, void *, size_t *)) \
    X(clGetKernelArgInfo, cl_int, (cl_kernel, cl_uint, cl_uint, size_t, void *, size_t *)) \
    X(clGetKernelWorkGroupInfo, cl_int, (cl_kernel, cl_device_id, cl_uint, size_t, void *, size_t *)) \
    X(clSetKernelArg, cl_int, (cl_kernel, cl_uint, size_t, const void *)) \
    X(clReleaseKernel, cl_int, (cl_kernel)) \
    X(clEnqueueNDRangeKernel, cl_int, \
      (cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *, const size_t *, cl_uint, \
       const cl_event *, cl_event *)) \
    X(clEnqueueMarkerWithWaitList, cl_int, (cl_command_queue, cl_uint, const cl_event *, cl_event *)) \
    X(clEnqueueBarrierWithWaitList, cl_int, (cl_command_queue, cl_uint, const cl_event *, cl_event *)) \
    X(clCreateUserEvent, cl_event, (cl_context, cl_int *)) \
    X(clSetUserEventStatus, cl_int, (cl_event, cl_int)) \
    X(clSetEventCallback, cl_int, (cl_event, cl_int, void (*)(cl_event, cl_int, void *), void *)) \
    X(clWaitForEvents, cl_int, (cl_uint, const cl_event *)) \
    X(clGetEventInfo, cl_int, (cl_event, cl_uint, size_t, void *, size_t *)) \
    X(clReleaseEvent, cl_int, (cl_event)) \
    X(clGetExtensionFunctionAddressForPlatform, void *, (cl_platform_id, const char *))

/* The functions of cl_intel_unified_shared_memory, fetched per platform. */
#define USM_FUNCTIONS(X) \
    X(clSharedMemAllocINTEL, void *, \
      (cl_context, cl_device_id, const cl_mem_properties_intel *, size_t, cl_uint, cl_int *)) \
    X(clDeviceMemAllocINTEL, void *, \
      (cl_context, cl_device_id, const cl_mem_properties_intel *, size_t, cl_uint, cl_int *)) \
    X(clHostMemAllocINTEL, void *, (cl_context, const cl_mem_properties_intel *, size_t, cl_uint, cl_int *)) \
    X(clMemBlockingFreeINTEL, cl_int, (cl_context, void *)) \
    X(clGetMemAllocInfoINTEL, cl_int, (cl_context, const void *, cl_uint, size_t, void *, size_t *)) \
    X(clSetKernelArgMemPointerINTEL, cl_int, (cl_kernel, cl_uint, const void *)) \
    X(clEnqueueMemcpyINTEL, cl_int, \
      (cl_command_queue, cl_bool, void *, const void *, size_t, cl_uint, const cl_event *, cl_event *)) \
    X(clEnqueueMemFillINTEL, cl_int, \
      (cl_command_queue, void *, const void *, size_t, size_t, cl_uint, const cl_event *, cl_event *))

#define DECLARE(name, ret, args) static ret(*name) args;
CL_FUNCTIONS(DECLARE)
USM_FUNCTIONS(DECLARE)
#undef DECLARE

/* --- the emulated device ---------------------------------------------------- */

#define EXPORT ZE_APIEXPORT
#define EMULATED_PLATFORM "Intel(R) OpenCL"
#define GEN9_IP_VERSION 0x02400000u
#define INTEL_VENDOR_ID 0x8086u
#define GEN9_DEVICE_ID 0x1912u /* a Gen9 (Skylake GT2) PCI id */
#define NAME_PREFIX "Intel(R) Gen9 GPU emulated on "
#define MAX_SUB_GROUP_SIZES 8

enum kind {
    KIND_DRIVER = 0x5a450001,
    KIND_DEVICE,
    KIND_CONTEXT,
    KIND_LIST,
    KIND_POOL,
    KIND_EVENT,
    KIND_MODULE,
    KIND_LOG,
    KIND_KERNEL,
};

/* Every handle points at a struct starting with its kind, so a handle of
 * another kind is refused instead of misused. */
struct object {
    uint32_t kind;
    int references;
};

struct _ze_driver_handle_t {
    struct object base;
};

struct _ze_device_handle_t {
    struct object base;
    cl_platform_id platform;
    cl_device_id cl;
    uint8_t uuid[ZE_MAX_DEVICE_UUID_SIZE];
    char name[ZE_MAX_DEVICE_NAME];
    char driver_version[64];
    uint32_t driver_version_code;
    cl_uint compute_units, clock_mhz, max_parameter_size;
    size_t max_work_group_size, max_work_item_sizes[3], printf_buffer_size;
    cl_ulong max_alloc_size, cache_size, local_memory_size;
    cl_ulong half_config, single_config, double_config;
    cl_ulong host_caps, device_caps, shared_caps;
    uint32_t sub_group_sizes[MAX_SUB_GROUP_SIZES], sub_group_size_count;
    int has_fp16, has_fp64, has_int64_atomics;
};

static struct _ze_driver_handle_t the_driver = {.base = {KIND_DRIVER, 1}};
static struct _ze_device_handle_t the_device = {.base = {KIND_DEVICE, 1}};
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static ze_result_t init_result = ZE_RESULT_ERROR_UNINITIALIZED;
static int initialized; /* zeInit or zeInitDrivers succeeded */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

struct _ze_context_handle_t {
    struct object base;
    cl_context cl;
};

struct _ze_command_list_handle_t {
    struct object base;
    ze_context_handle_t context;
    cl_command_queue queue;
    int synchronous;
};

struct _ze_event_pool_handle_t {
    struct object base;
    ze_context_handle_t context;
    uint32_t count;
    uint8_t *used; /* one flag per index */
};

/* The state of one signal of an event: a user event that completes when the
 * event is signalled. Resetting the event starts a new gate; a callback
 * still pending on the old one completes that one only. */
struct gate {
    cl_event user_event;
    int signalled; /* set once, atomically */
    cl_int status; /* CL_COMPLETE, or the failed command's error */
    int references;
};

struct _ze_event_handle_t {
    struct object base;
    ze_event_pool_handle_t pool;
    uint32_t index;
    pthread_mutex_t lock; /* guards gate */
    struct gate *gate;
};

/* What a kernel argument is, recorded from the program's argument info. */
enum arg_kind { ARG_VALUE = 0, ARG_POINTER = 1, ARG_LOCAL = 2, ARG_UNSUPPORTED = 3 };

struct kernel_info {
    char *name;
    uint32_t arg_count;
    uint8_t *arg_kinds;
};

struct _ze_module_handle_t {
    struct object base;
    ze_context_handle_t context;
    cl_program program;
    uint8_t *native; /* the envelope zeModuleGetNativeBinary returns */
    size_t native_size;
    const uint8_t *cl_binary; /* inside native */
    size_t cl_binary_size;
    uint32_t kernel_count;
    struct kernel_info *kernels;
    const char **kernel_names;
};

struct _ze_module_build_log_handle_t {
    struct object base;
    char *text;
};

struct _ze_kernel_handle_t {
    struct object base;
    ze_module_handle_t module;
    const struct kernel_info *info;
    cl_kernel cl;
    size_t max_group_size;
    uint32_t group_size[3];
};

#define CHECK_HANDLE(h, expected) \
    do { \
        if (!(h)) \
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE; \
        if (((struct object *)(h))->kind != (expected)) \
            return ZE_RESULT_ERROR_INVALID_ARGUMENT; \
    } while (0)
#define CHECK_POINTER(p) \
    do { \
        if (!(p)) \
            return ZE_RESULT_ERROR_INVALID_NULL_POINTER; \
    } while (0)
#define CHECK_INIT() \
    do { \
        if (!initialized) \
            return ZE_RESULT_ERROR_UNINITIALIZED; \
    } while (0)

static void retain(struct object *object)
{
    __atomic_add_fetch(&object->references, 1, __ATOMIC_ACQ_REL);
}

/* Returns nonzero when the last reference went. */
static int unref(struct object *object)
{
    return __atomic_sub_fetch(&object->references, 1, __ATOMIC_ACQ_REL) == 0;
}

static ze_result_t from_cl(cl_int error)
{
    switch (error) {
    case CL_SUCCESS:
        return ZE_RESULT_SUCCESS;
    case CL_OUT_OF_HOST_MEMORY:
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    case CL_OUT_OF_RESOURCES:
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
        return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    case CL_BUILD_PROGRAM_FAILURE:
        return ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    case CL_INVALID_BINARY:
        return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    case CL_INVALID_KERNEL_NAME:
        return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
    case CL_INVALID_ARG_INDEX:
        return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
    case CL_INVALID_ARG_SIZE:
        return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
    case CL_INVALID_WORK_GROUP_SIZE:
        return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    case CL_INVALID_GLOBAL_WORK_SIZE:
        return ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION;
    case CL_INVALID_BUFFER_SIZE:
        return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    default:
        return error <= CL_INVALID_VALUE && error >= CL_MAX_SIZE_RESTRICTION_EXCEEDED
                   ? ZE_RESULT_ERROR_INVALID_ARGUMENT
                   : ZE_RESULT_ERROR_UNKNOWN;
    }
}

/* --- initialisation -------------------------------------------------------- */

static void *opencl_library;

static int resolve_opencl(void)
{
    opencl_library = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!opencl_library)
        return 0;
#define RESOLVE(name, ret, args) \
    if (!(name = (ret(*) args)dlsym(opencl_library, #name))) \
        return 0;
    CL_FUNCTIONS(RESOLVE)
#undef RESOLVE
    return 1;
}

static int find_platform(cl_platform_id *found)
{
    cl_platform_id platforms[16];
    cl_uint count = 0;

    if (clGetPlatformIDs(16, platforms, &count) != CL_SUCCESS)
        return 0;
    for (cl_uint i = 0; i < count && i < 16; ++i) {
        char name[sizeof EMULATED_PLATFORM];
        size_t size = 0;
        /* A longer name does not fit: the runtime answers an error. */
        if (clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, &size) == CL_SUCCESS
            && size == sizeof name && memcmp(name, EMULATED_PLATFORM, sizeof name) == 0) {
            *found = platforms[i];
            return 1;
        }
    }
    return 0;
}

static int resolve_usm(cl_platform_id platform)
{
#define RESOLVE(name, ret, args) \
    if (!(name = (ret(*) args)clGetExtensionFunctionAddressForPlatform(platform, #name))) \
        return 0;
    USM_FUNCTIONS(RESOLVE)
#undef RESOLVE
    return 1;
}

static cl_int device_info(cl_uint name, size_t size, void *value)
{
    return clGetDeviceInfo(the_device.cl, name, size, value, NULL);
}

/* Three dotted numbers of a driver version string, packed as Level Zero's
 * driverVersion is read by oneDNN (major 8 bits, minor 8, build 16). */
static uint32_t version_code(const char *text)
{
    unsigned major = 0, minor = 0, build = 0;

    sscanf(text, "%u.%u.%u", &major, &minor, &build);
    return ((major & 0xffu) << 24) | ((minor & 0xffu) << 16) | (build & 0xffffu);
}

static int describe_device(void)
{
    struct _ze_device_handle_t *d = &the_device;
    char cl_name[ZE_MAX_DEVICE_NAME];
    size_t sizes[MAX_SUB_GROUP_SIZES], size = 0;
    char *extensions;

    if (device_info(CL_DEVICE_UUID_KHR, sizeof d->uuid, d->uuid) != CL_SUCCESS
        || device_info(CL_DEVICE_NAME, sizeof cl_name, cl_name) != CL_SUCCESS
        || device_info(CL_DRIVER_VERSION, sizeof d->driver_version, d->driver_version) != CL_SUCCESS
        || device_info(CL_DEVICE_MAX_COMPUTE_UNITS, sizeof d->compute_units, &d->compute_units) != CL_SUCCESS
        || device_info(CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof d->clock_mhz, &d->clock_mhz) != CL_SUCCESS
        || device_info(CL_DEVICE_MAX_PARAMETER_SIZE, sizeof(size_t), &size) != CL_SUCCESS
        || device_info(CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof d->max_work_group_size, &d->max_work_group_size)
               != CL_SUCCESS
        || device_info(CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof d->max_work_item_sizes, d->max_work_item_sizes)
               != CL_SUCCESS
        || device_info(CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof d->max_alloc_size, &d->max_alloc_size) != CL_SUCCESS
        || device_info(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof d->cache_size, &d->cache_size) != CL_SUCCESS
        || device_info(CL_DEVICE_LOCAL_MEM_SIZE, sizeof d->local_memory_size, &d->local_memory_size) != CL_SUCCESS
        || device_info(CL_DEVICE_SINGLE_FP_CONFIG, sizeof d->single_config, &d->single_config) != CL_SUCCESS
        || device_info(CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL, sizeof d->host_caps, &d->host_caps) != CL_SUCCESS
        || device_info(CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL, sizeof d->device_caps, &d->device_caps) != CL_SUCCESS
        || device_info(CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL, sizeof d->shared_caps,
                       &d->shared_caps)
               != CL_SUCCESS)
        return 0;
    d->max_parameter_size = (cl_uint)size;
    cl_name[sizeof cl_name - 1] = '\0';
    d->driver_version[sizeof d->driver_version - 1] = '\0';
    snprintf(d->name, sizeof d->name, NAME_PREFIX "%.*s", (int)(sizeof d->name - sizeof NAME_PREFIX), cl_name);
    d->driver_version_code = version_code(d->driver_version);
    if (device_info(CL_DEVICE_PRINTF_BUFFER_SIZE, sizeof d->printf_buffer_size, &d->printf_buffer_size)
        != CL_SUCCESS)
        d->printf_buffer_size = 0;
    if (device_info(CL_DEVICE_HALF_FP_CONFIG, sizeof d->half_config, &d->half_config) != CL_SUCCESS)
        d->half_config = 0;
    if (device_info(CL_DEVICE_DOUBLE_FP_CONFIG, sizeof d->double_config, &d->double_config) != CL_SUCCESS)
        d->double_config = 0;
    if (clGetDeviceInfo(d->cl, CL_DEVICE_SUB_GROUP_SIZES_INTEL, sizeof sizes, sizes, &size) == CL_SUCCESS) {
        d->sub_group_size_count = (uint32_t)(size / sizeof sizes[0]);
        for (uint32_t i = 0; i < d->sub_group_size_count; ++i)
            d->sub_group_sizes[i] = (uint32_t)sizes[i];
    }
    if (clGetDeviceInfo(d->cl, CL_DEVICE_EXTENSIONS, 0, NULL, &size) != CL_SUCCESS || !(extensions = malloc(size + 1)))
        return 0;
    if (clGetDeviceInfo(d->cl, CL_DEVICE_EXTENSIONS, size, extensions, NULL) == CL_SUCCESS) {
        extensions[size] = '\0';
        d->has_fp16 = strstr(extensions, "cl_khr_fp16") != NULL;
        d->has_fp64 = strstr(extensions, "cl_khr_fp64") != NULL;
        d->has_int64_atomics = strstr(extensions, "cl_khr_int64_base_atomics") != NULL;
    }
    free(extensions);
    return 1;
}

static void initialize(void)
{
    cl_device_id devices[1];
    cl_uint count = 0;

    if (!resolve_opencl() || !find_platform(&the_device.platform) || !resolve_usm(the_device.platform))
        return;
    if (clGetDeviceIDs(the_device.platform, CL_DEVICE_TYPE_ALL, 1, devices, &count) != CL_SUCCESS || count == 0)
        return;
    the_device.cl = devices[0];
    if (describe_device())
        init_result = ZE_RESULT_SUCCESS;
}

static ze_result_t start(void)
{
    pthread_once(&init_once, initialize);
    if (init_result == ZE_RESULT_SUCCESS)
        __atomic_store_n(&initialized, 1, __ATOMIC_RELEASE);
    return init_result;
}

/* The count-then-fill protocol of Level Zero enumerations, for one item. */
static ze_result_t enumerate_one(uint32_t *count, void **items, void *item)
{
    CHECK_POINTER(count);
    if (*count == 0 || !items) {
        *count = 1;
        return ZE_RESULT_SUCCESS;
    }
    *count = 1;
    items[0] = item;
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeInit(ze_init_flags_t flags)
{
    if (flags && !(flags & ZE_INIT_FLAG_GPU_ONLY))
        return ZE_RESULT_ERROR_UNINITIALIZED; /* no VPU driver */
    return start();
}

EXPORT ze_result_t ZE_APICALL zeInitDrivers(uint32_t *pCount, ze_driver_handle_t *phDrivers,
                                            ze_init_driver_type_desc_t *desc)
{
    CHECK_POINTER(pCount);
    CHECK_POINTER(desc);
    if (!(desc->flags & ZE_INIT_DRIVER_TYPE_FLAG_GPU) || start() != ZE_RESULT_SUCCESS) {
        *pCount = 0;
        return ZE_RESULT_ERROR_UNINITIALIZED;
    }
    return enumerate_one(pCount, (void **)phDrivers, &the_driver);
}

EXPORT ze_result_t ZE_APICALL zeDriverGet(uint32_t *pCount, ze_driver_handle_t *phDrivers)
{
    CHECK_INIT();
    return enumerate_one(pCount, (void **)phDrivers, &the_driver);
}

EXPORT ze_result_t ZE_APICALL zeDriverGetApiVersion(ze_driver_handle_t hDriver, ze_api_version_t *version)
{
    CHECK_INIT();
    CHECK_HANDLE(hDriver, KIND_DRIVER);
    CHECK_POINTER(version);
    *version = ZE_API_VERSION_1_11;
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeDriverGetProperties(ze_driver_handle_t hDriver,
                                                    ze_driver_properties_t *pDriverProperties)
{
    CHECK_INIT();
    CHECK_HANDLE(hDriver, KIND_DRIVER);
    CHECK_POINTER(pDriverProperties);
    /* The driver's UUID is the device's with the first byte flipped: stable,
     * and distinct from the device's. */
    memcpy(pDriverProperties->uuid.id, the_device.uuid, ZE_MAX_DRIVER_UUID_SIZE);
    pDriverProperties->uuid.id[0] ^= 0xff;
    pDriverProperties->driverVersion = the_device.driver_version_code;
    return ZE_RESULT_SUCCESS;
}

/* zeIntelGetDriverVersionString: the length without the NUL when asked for
 * the size; the string, truncated to the given size with its NUL, else. */
static ze_result_t ZE_APICALL get_driver_version_string(ze_driver_handle_t hDriver, char *pDriverVersion,
                                                        size_t *pVersionSize)
{
    size_t length = strlen(the_device.driver_version);

    CHECK_INIT();
    CHECK_HANDLE(hDriver, KIND_DRIVER);
    CHECK_POINTER(pVersionSize);
    if (!pDriverVersion) {
        *pVersionSize = length;
        return ZE_RESULT_SUCCESS;
    }
    if (*pVersionSize == 0)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    if (length > *pVersionSize - 1)
        length = *pVersionSize - 1;
    memcpy(pDriverVersion, the_device.driver_version, length);
    pDriverVersion[length] = '\0';
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeDriverGetExtensionFunctionAddress(ze_driver_handle_t hDriver, const char *name,
                                                                  void **ppFunctionAddress)
{
    CHECK_INIT();
    CHECK_HANDLE(hDriver, KIND_DRIVER);
    CHECK_POINTER(name);
    CHECK_POINTER(ppFunctionAddress);
    if (strcmp(name, "zeIntelGetDriverVersionString") != 0)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    *ppFunctionAddress = (void *)get_driver_version_string;
    return ZE_RESULT_SUCCESS;
}

/* --- device ----------------------------------------------------------------- */

EXPORT ze_result_t ZE_APICALL zeDeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount, ze_device_handle_t *phDevices)
{
    CHECK_INIT();
    CHECK_HANDLE(hDriver, KIND_DRIVER);
    return enumerate_one(pCount, (void **)phDevices, &the_device);
}

EXPORT ze_result_t ZE_APICALL zeDeviceGetSubDevices(ze_device_handle_t hDevice, uint32_t *pCount,
                                                    ze_device_handle_t *phSubdevices)
{
    (void)phSubdevices;
    CHECK_INIT();
    CHECK_HANDLE(hDevice, KIND_DEVICE);
    CHECK_POINTER(pCount);
    *pCount = 0;
    return ZE_RESULT_SUCCESS;
}

struct chained {
    ze_structure_type_t stype;
    void *pNext;
};

EXPORT ze_result_t ZE_APICALL zeDeviceGetProperties(ze_device_handle_t hDevice,
                                                    ze_device_properties_t *pDeviceProperties)
{
    ze_device_properties_t *p = pDeviceProperties;
    const struct _ze_device_handle_t *d = &the_device;

    CHECK_INIT();
    CHECK_HANDLE(hDevice, KIND_DEVICE);
    CHECK_POINTER(p);
    p->type = ZE_DEVICE_TYPE_GPU;
    p->vendorId = INTEL_VENDOR_ID;
    p->deviceId = GEN9_DEVICE_ID;
    p->flags = ZE_DEVICE_PROPERTY_FLAG_INTEGRATED; /* it shares the host's memory */
    p->subdeviceId = 0;
    p->coreClockRate = d->clock_mhz;
    p->maxMemAllocSize = d->max_alloc_size;
    p->maxHardwareContexts = 1;
    p->maxCommandQueuePriority = 0;
    p->numThreadsPerEU = 1;
    p->physicalEUSimdWidth = 8;
    p->numEUsPerSubslice = d->compute_units;
    p->numSubslicesPerSlice = 1;
    p->numSlices = 1;
    /* Timestamps are not emulated; the unit still follows the stype. */
    p->timerResolution = p->stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 ? 1000000000u : 1u;
    p->timestampValidBits = 64;
    p->kernelTimestampValidBits = 64;
    memcpy(p->uuid.id, d->uuid, ZE_MAX_DEVICE_UUID_SIZE);
    memcpy(p->name, d->name, ZE_MAX_DEVICE_NAME);
    for (struct chained *next = p->pNext; next; next = next->pNext) {
        if (next->stype == ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT)
            ((ze_device_ip_version_ext_t *)next)->ipVersion = GEN9_IP_VERSION;
        else if (next->stype == ZE_STRUCTURE_TYPE_EU_COUNT_EXT)
            ((ze_eu_count_ext_t *)next)->numTotalEUs = d->compute_units;
    }
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeDeviceGetComputeProperties(ze_device_handle_t hDevice,
                                                           ze_device_compute_properties_t *pComputeProperties)
{
    ze_device_compute_properties_t *p = pComputeProperties;
    const struct _ze_device_handle_t *d = &the_device;

    CHECK_INIT();
    CHECK_HANDLE(hDevice, KIND_DEVICE);
    CHECK_POINTER(p);
    p->maxTotalGroupSize = (uint32_t)d->max_work_group_size;
    p->maxGroupSizeX = (uint32_t)d->max_work_item_sizes[0];
    p->maxGroupSizeY = (uint32_t)d->max_work_item_sizes[1];
    p->maxGroupSizeZ = (uint32_t)d->max_work_item_sizes[2];
    p->maxGroupCountX = p->maxGroupCountY = p->maxGroupCountZ = UINT32_MAX;
    p->maxSharedLocalMemory = (uint32_t)d->local_memory_size;
    p->numSubGroupSizes = d->sub_group_size_count;
    memset(p->subGroupSizes, 0, sizeof p->subGroupSizes);
    memcpy(p->subGroupSizes, d->sub_group_sizes, d->sub_group_size_count * sizeof d->sub_group_sizes[0]);
    return ZE_RESULT_SUCCESS;
}

/* OpenCL's cl_device_fp_config bits as Level Zero's ze_device_fp_flags_t. */
static ze_device_fp_flags_t fp_flags(cl_ulong config)
{
    static const struct {
        cl_ulong cl;
        ze_device_fp_flags_t ze;
    } bits[] = {
        {1 << 0, ZE_DEVICE_FP_FLAG_DENORM},           {1 << 1, ZE_DEVICE_FP_FLAG_INF_NAN},
        {1 << 2, ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST}, {1 << 3, ZE_DEVICE_FP_FLAG_ROUND_TO_ZERO},
        {1 << 4, ZE_DEVICE_FP_FLAG_ROUND_TO_INF},     {1 << 5, ZE_DEVICE_FP_FLAG_FMA},
        {1 << 6, ZE_DEVICE_FP_FLAG_SOFT_FLOAT},       {1 << 7, ZE_DEVICE_FP_FLAG_ROUNDED_DIVIDE_SQRT},
    };
    ze_device_fp_flags_t flags = 0;

    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; ++i)
        if (config & bits[i].cl)
            flags |= bits[i].ze;
    return flags;
}

EXPORT ze_result_t ZE_APICALL zeDeviceGetModuleProperties(ze_device_handle_t hDevice,
                                                          ze_device_module_properties_t *pModuleProperties)
{
    ze_device_module_properties_t *p = pModuleProperties;
    const struct _ze_device_handle_t *d = &the_device;

    CHECK_INIT();
    CHECK_HANDLE(hDevice, KIND_DEVICE);
    CHECK_POINTER(p);
    p->spirvVersionSupported = 0; /* modules are OpenCL C or native binaries */
    p->flags = (d->has_fp16 ? ZE_DEVICE_MODULE_FLAG_FP16 : 0) | (d->has_fp64 ? ZE_DEVICE_MODULE_FLAG_FP64 : 0)
               | (d->has_int64_atomics ? ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS : 0);
    p->fp16flags = fp_flags(d->half_config);
    p->fp32flags = fp_flags(d->single_config);
    p->fp64flags = fp_flags(d->double_config);
    p->maxArgumentsSize = d->max_parameter_size;
    p->printfBufferSize = (uint32_t)d->printf_buffer_size;
    memset(&p->nativeKernelSupported, 0, sizeof p->nativeKernelSupported);
    /* Gen9 has neither native float atomics nor DP4A/DPAS. */
    for (struct chained *next = p->pNext; next; next = next->pNext) {
        if (next->stype == ZE_STRUCTURE_TYPE_FLOAT_ATOMIC_EXT_PROPERTIES) {
            ze_float_atomic_ext_properties_t *atomics = (ze_float_atomic_ext_properties_t *)next;
            atomics->fp16Flags = atomics->fp32Flags = atomics->fp64Flags = 0;
        } else if (next->stype == ZE_STRUCTURE_INTEL_DEVICE_MODULE_DP_EXP_PROPERTIES) {
            ((ze_intel_device_module_dp_exp_properties_t *)next)->flags = 0;
        }
    }
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeDeviceGetMemoryAccessProperties(ze_device_handle_t hDevice,
                                                                ze_device_memory_access_properties_t *pMemAccessProperties)
{
    ze_device_memory_access_properties_t *p = pMemAccessProperties;

    CHECK_INIT();
    CHECK_HANDLE(hDevice, KIND_DEVICE);
    CHECK_POINTER(p);
    /* The USM capability bits have the same positions in both APIs. */
    p->hostAllocCapabilities = (ze_memory_access_cap_flags_t)the_device.host_caps;
    p->deviceAllocCapabilities = (ze_memory_access_cap_flags_t)the_device.device_caps;
    p->sharedSingleDeviceAllocCapabilities = (ze_memory_access_cap_flags_t)the_device.shared_caps;
    p->sharedCrossDeviceAllocCapabilities = 0;
    p->sharedSystemAllocCapabilities = 0;
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeDeviceGetCacheProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                                                         ze_device_cache_properties_t *pCacheProperties)
{
    CHECK_INIT();
    CHECK_HANDLE(hDevice, KIND_DEVICE);
    CHECK_POINTER(pCount);
    if (*pCount == 0 || !pCacheProperties) {
        *pCount = 1;
        return ZE_RESULT_SUCCESS;
    }
    *pCount = 1;
    pCacheProperties[0].flags = 0;
    pCacheProperties[0].cacheSize = the_device.cache_size;
    return ZE_RESULT_SUCCESS;
}

/* --- context ----------------------------------------------------------------- */

static void release_context(ze_context_handle_t context)
{
    if (unref(&context->base)) {
        context->base.kind = 0;
        clReleaseContext(context->cl);
        free(context);
    }
}

EXPORT ze_result_t ZE_APICALL zeContextCreate(ze_driver_handle_t hDriver, const ze_context_desc_t *desc,
                                              ze_context_handle_t *phContext)
{
    ze_context_handle_t context;
    cl_int error = CL_SUCCESS;

    CHECK_INIT();
    CHECK_HANDLE(hDriver, KIND_DRIVER);
    CHECK_POINTER(desc);
    CHECK_POINTER(phContext);
    if (!(context = calloc(1, sizeof *context)))
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    context->cl = clCreateContext(NULL, 1, &the_device.cl, NULL, NULL, &error);
    if (!context->cl) {
        free(context);
        return from_cl(error);
    }
    context->base = (struct object){KIND_CONTEXT, 1};
    *phContext = context;
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeContextDestroy(ze_context_handle_t hContext)
{
    CHECK_HANDLE(hContext, KIND_CONTEXT);
    release_context(hContext);
    return ZE_RESULT_SUCCESS;
}

/* --- memory ------------------------------------------------------------------- */

static ze_result_t check_allocation(size_t size, size_t alignment)
{
    if (size == 0 || size > the_device.max_alloc_size)
        return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    if (alignment & (alignment - 1))
        return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t allocated(void *pointer, cl_int error, void **pptr)
{
    if (!pointer)
        return error == CL_SUCCESS ? ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY : from_cl(error);
    *pptr = pointer;
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeMemAllocShared(ze_context_handle_t hContext,
                                               const ze_device_mem_alloc_desc_t *device_desc,
                                               const ze_host_mem_alloc_desc_t *host_desc, size_t size,
                                               size_t alignment, ze_device_handle_t hDevice, void **pptr)
{
    ze_result_t result;
    cl_int error = CL_SUCCESS;

    CHECK_HANDLE(hContext, KIND_CONTEXT);
    if (hDevice)
        CHECK_HANDLE(hDevice, KIND_DEVICE);
    CHECK_POINTER(device_desc);
    CHECK_POINTER(host_desc);
    CHECK_POINTER(pptr);
    if ((result = check_allocation(size, alignment)) != ZE_RESULT_SUCCESS)
        return result;
    return allocated(clSharedMemAllocINTEL(hContext->cl, hDevice ? the_device.cl : NULL, NULL, size,
                                           (cl_uint)alignment, &error),
                     error, pptr);
}

EXPORT ze_result_t ZE_APICALL zeMemAllocDevice(ze_context_handle_t hContext, const ze_device_mem_alloc_desc_t *device_desc,
                                               size_t size, size_t alignment, ze_device_handle_t hDevice, void **pptr)
{
    ze_result_t result;
    cl_int error = CL_SUCCESS;

    CHECK_HANDLE(hContext, KIND_CONTEXT);
    CHECK_HANDLE(hDevice, KIND_DEVICE);
    CHECK_POINTER(device_desc);
    CHECK_POINTER(pptr);
    if ((result = check_allocation(size, alignment)) != ZE_RESULT_SUCCESS)
        return result;
    return allocated(clDeviceMemAllocINTEL(hContext->cl, the_device.cl, NULL, size, (cl_uint)alignment, &error),
                     error, pptr);
}

EXPORT ze_result_t ZE_APICALL zeMemAllocHost(ze_context_handle_t hContext, const ze_host_mem_alloc_desc_t *host_desc,
                                             size_t size, size_t alignment, void **pptr)
{
    ze_result_t result;
    cl_int error = CL_SUCCESS;

    CHECK_HANDLE(hContext, KIND_CONTEXT);
    CHECK_POINTER(host_desc);
    CHECK_POINTER(pptr);
    if ((result = check_allocation(size, alignment)) != ZE_RESULT_SUCCESS)
        return result;
    return allocated(clHostMemAllocINTEL(hContext->cl, NULL, size, (cl_uint)alignment, &error), error, pptr);
}

static cl_uint allocation_type(ze_context_handle_t context, const void *pointer)
{
    cl_uint type = CL_MEM_TYPE_UNKNOWN_INTEL;

    if (clGetMemAllocInfoINTEL(context->cl, pointer, CL_MEM_ALLOC_TYPE_INTEL, sizeof type, &type, NULL) != CL_SUCCESS)
        return CL_MEM_TYPE_UNKNOWN_INTEL;
    return type;
}

static void *allocation_base(ze_context_handle_t context, const void *pointer)
{
    void *base = NULL;

    if (clGetMemAllocInfoINTEL(context->cl, pointer, CL_MEM_ALLOC_BASE_PTR_INTEL, sizeof base, &base, NULL)
        != CL_SUCCESS)
        return NULL;
    return base;
}

/* Blocks until the commands using the allocation have finished, so freeing
 * memory a list still uses never lets the runtime touch freed memory. */
EXPORT ze_result_t ZE_APICALL zeMemFree(ze_context_handle_t hContext, void *ptr)
{
    CHECK_HANDLE(hContext, KIND_CONTEXT);
    CHECK_POINTER(ptr);
    if (allocation_type(hContext, ptr) == CL_MEM_TYPE_UNKNOWN_INTEL || allocation_base(hContext, ptr) != ptr)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    return from_cl(clMemBlockingFreeINTEL(hContext->cl, ptr));
}

EXPORT ze_result_t ZE_APICALL zeMemGetAllocProperties(ze_context_handle_t hContext, const void *ptr,
                                                      ze_memory_allocation_properties_t *pMemAllocProperties,
                                                      ze_device_handle_t *phDevice)
{
    ze_memory_allocation_properties_t *p = pMemAllocProperties;
    cl_device_id device = NULL;

    CHECK_HANDLE(hContext, KIND_CONTEXT);
    CHECK_POINTER(ptr);
    CHECK_POINTER(p);
    switch (allocation_type(hContext, ptr)) {
    case CL_MEM_TYPE_HOST_INTEL:
        p->type = ZE_MEMORY_TYPE_HOST;
        break;
    case CL_MEM_TYPE_DEVICE_INTEL:
        p->type = ZE_MEMORY_TYPE_DEVICE;
        break;
    case CL_MEM_TYPE_SHARED_INTEL:
        p->type = ZE_MEMORY_TYPE_SHARED;
        break;
    default:
        p->type = ZE_MEMORY_TYPE_UNKNOWN;
        p->id = 0;
        p->pageSize = 0;
        if (phDevice)
            *phDevice = NULL;
        return ZE_RESULT_SUCCESS;
    }
    p->id = (uint64_t)(uintptr_t)allocation_base(hContext, ptr); /* unique among live allocations */
    p->pageSize = 4096;
    if (phDevice) {
        clGetMemAllocInfoINTEL(hContext->cl, ptr, CL_MEM_ALLOC_DEVICE_INTEL, sizeof device, &device, NULL);
        *phDevice = device ? &the_device : NULL;
    }
    return ZE_RESULT_SUCCESS;
}

/* --- events ------------------------------------------------------------------ */

static struct gate *new_gate(ze_context_handle_t context)
{
    struct gate *gate = calloc(1, sizeof *gate);
    cl_int error = CL_SUCCESS;

    if (!gate)
        return NULL;
    gate->user_event = clCreateUserEvent(context->cl, &error);
    if (!gate->user_event) {
        free(gate);
        return NULL;
    }
    gate->references = 1;
    gate->status = CL_COMPLETE;
    return gate;
}

static void release_gate(struct gate *gate)
{
    if (__atomic_sub_fetch(&gate->references, 1, __ATOMIC_ACQ_REL) == 0) {
        /* A waiter on a gate nobody can signal any more would hang. */
        if (!__atomic_exchange_n(&gate->signalled, 1, __ATOMIC_ACQ_REL))
            clSetUserEventStatus(gate->user_event, CL_COMPLETE);
        clReleaseEvent(gate->user_event);
        free(gate);
    }
}

/* Completes the gate once; later signals of the same gate do nothing. */
static void open_gate(struct gate *gate, cl_int status)
{
    if (!__atomic_exchange_n(&gate->signalled, 1, __ATOMIC_ACQ_REL)) {
        gate->status = status;
        clSetUserEventStatus(gate->user_event, status < 0 ? status : CL_COMPLETE);
    }
}

static void on_command_complete(cl_event command, cl_int status, void *data)
{
    (void)command;
    open_gate(data, status);
    release_gate(data);
}

static struct gate *current_gate(ze_event_handle_t event)
{
    struct gate *gate;

    pthread_mutex_lock(&event->lock);
    gate = event->gate;
    __atomic_add_fetch(&gate->references, 1, __ATOMIC_ACQ_REL);
    pthread_mutex_unlock(&event->lock);
    return gate;
}

static void release_pool(ze_event_pool_handle_t pool)
{
    if (unref(&pool->base)) {
        pool->base.kind = 0;
        release_context(pool->context);
        free(pool->used);
        free(pool);
    }
}

EXPORT ze_result_t ZE_APICALL zeEventPoolCreate(ze_context_handle_t hContext, const ze_event_pool_desc_t *desc,
                                                uint32_t numDevices, ze_device_handle_t *phDevices,
                                                ze_event_pool_handle_t *phEventPool)
{
    ze_event_pool_handle_t pool;

    CHECK_HANDLE(hContext, KIND_CONTEXT);
    CHECK_POINTER(desc);
    CHECK_POINTER(phEventPool);
    if (numDevices && !phDevices)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (uint32_t i = 0; i < numDevices; ++i)
        CHECK_HANDLE(phDevices[i], KIND_DEVICE);
    if (desc->count == 0)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    if (!(pool = calloc(1, sizeof *pool)) || !(pool->used = calloc(desc->count, 1))) {
        free(pool);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    pool->base = (struct object){KIND_POOL, 1};
    pool->count = desc->count;
    pool->context = hContext;
    retain(&hContext->base);
    *phEventPool = pool;
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeEventPoolDestroy(ze_event_pool_handle_t hEventPool)
{
    CHECK_HANDLE(hEventPool, KIND_POOL);
    release_pool(hEventPool);
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeEventCreate(ze_event_pool_handle_t hEventPool, const ze_event_desc_t *desc,
                                            ze_event_handle_t *phEvent)
{
    ze_event_handle_t event;
    ze_result_t result = ZE_RESULT_SUCCESS;

    CHECK_HANDLE(hEventPool, KIND_POOL);
    CHECK_POINTER(desc);
    CHECK_POINTER(phEvent);
    if (desc->index >= hEventPool->count)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (!(event = calloc(1, sizeof *event)))
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    pthread_mutex_lock(&lock);
    if (hEventPool->used[desc->index])
        result = ZE_RESULT_ERROR_INVALID_ARGUMENT; /* that slot holds a live event */
    else
        hEventPool->used[desc->index] = 1;
    pthread_mutex_unlock(&lock);
    if (result != ZE_RESULT_SUCCESS || !(event->gate = new_gate(hEventPool->context))) {
        if (result == ZE_RESULT_SUCCESS) {
            hEventPool->used[desc->index] = 0;
            result = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        free(event);
        return result;
    }
    event->base = (struct object){KIND_EVENT, 1};
    event->pool = hEventPool;
    event->index = desc->index;
    pthread_mutex_init(&event->lock, NULL);
    retain(&hEventPool->base);
    *phEvent = event;
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeEventDestroy(ze_event_handle_t hEvent)
{
    CHECK_HANDLE(hEvent, KIND_EVENT);
    hEvent->base.kind = 0;
    pthread_mutex_lock(&lock);
    hEvent->pool->used[hEvent->index] = 0;
    pthread_mutex_unlock(&lock);
    release_gate(hEvent->gate);
    release_pool(hEvent->pool);
    pthread_mutex_destroy(&hEvent->lock);
    free(hEvent);
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeEventHostSignal(ze_event_handle_t hEvent)
{
    struct gate *gate;

    CHECK_HANDLE(hEvent, KIND_EVENT);
    gate = current_gate(hEvent);
    open_gate(gate, CL_COMPLETE);
    release_gate(gate);
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeEventHostReset(ze_event_handle_t hEvent)
{
    struct gate *fresh, *old;

    CHECK_HANDLE(hEvent, KIND_EVENT);
    if (!(fresh = new_gate(hEvent->pool->context)))
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    pthread_mutex_lock(&hEvent->lock);
    old = hEvent->gate;
    hEvent->gate = fresh;
    pthread_mutex_unlock(&hEvent->lock);
    release_gate(old);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t gate_result(const struct gate *gate)
{
    return gate->status < 0 ? ZE_RESULT_ERROR_DEVICE_LOST : ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeEventQueryStatus(ze_event_handle_t hEvent)
{
    struct gate *gate;
    ze_result_t result;

    CHECK_HANDLE(hEvent, KIND_EVENT);
    gate = current_gate(hEvent);
    result = __atomic_load_n(&gate->signalled, __ATOMIC_ACQUIRE) ? gate_result(gate) : ZE_RESULT_NOT_READY;
    release_gate(gate);
    return result;
}

static uint64_t now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Polls done(argument) until it is true or timeout nanoseconds have passed
 * (UINT64_MAX: no limit). */
static int wait_until(int (*done)(void *), void *argument, uint64_t timeout)
{
    uint64_t start = now_ns();
    struct timespec pause = {0, 20000};

    while (!done(argument)) {
        if (timeout != UINT64_MAX && now_ns() - start >= timeout)
            return 0;
        nanosleep(&pause, NULL);
    }
    return 1;
}

static int gate_is_open(void *gate)
{
    return __atomic_load_n(&((struct gate *)gate)->signalled, __ATOMIC_ACQUIRE);
}

EXPORT ze_result_t ZE_APICALL zeEventHostSynchronize(ze_event_handle_t hEvent, uint64_t timeout)
{
    struct gate *gate;
    ze_result_t result = ZE_RESULT_SUCCESS;

    CHECK_HANDLE(hEvent, KIND_EVENT);
    gate = current_gate(hEvent);
    if (timeout == UINT64_MAX)
        clWaitForEvents(1, &gate->user_event);
    else if (!wait_until(gate_is_open, gate, timeout))
        result = ZE_RESULT_NOT_READY;
    if (result == ZE_RESULT_SUCCESS) {
        wait_until(gate_is_open, gate, UINT64_MAX); /* the flag is set before the user event */
        result = gate_result(gate);
    }
    release_gate(gate);
    return result;
}

EXPORT ze_result_t ZE_APICALL zeEventQueryKernelTimestamp(ze_event_handle_t hEvent, ze_kernel_timestamp_result_t *dstptr)
{
    CHECK_HANDLE(hEvent, KIND_EVENT);
    CHECK_POINTER(dstptr);
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

/* --- command lists -------------------------------------------------------------- */

EXPORT ze_result_t ZE_APICALL zeCommandListCreateImmediate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                           const ze_command_queue_desc_t *altdesc,
                                                           ze_command_list_handle_t *phCommandList)
{
    ze_command_list_handle_t list;
    cl_int error = CL_SUCCESS;

    CHECK_HANDLE(hContext, KIND_CONTEXT);
    CHECK_HANDLE(hDevice, KIND_DEVICE);
    CHECK_POINTER(altdesc);
    CHECK_POINTER(phCommandList);
    if (altdesc->ordinal != 0)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT; /* one command queue group */
    if (!(list = calloc(1, sizeof *list)))
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    /* In order: a valid way to run lists created without the in-order flag. */
    list->queue = clCreateCommandQueueWithProperties(hContext->cl, the_device.cl, NULL, &error);
    if (!list->queue) {
        free(list);
        return from_cl(error);
    }
    list->base = (struct object){KIND_LIST, 1};
    list->context = hContext;
    list->synchronous = altdesc->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
    retain(&hContext->base);
    *phCommandList = list;
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeCommandListDestroy(ze_command_list_handle_t hCommandList)
{
    CHECK_HANDLE(hCommandList, KIND_LIST);
    hCommandList->base.kind = 0;
    clFinish(hCommandList->queue);
    clReleaseCommandQueue(hCommandList->queue);
    release_context(hCommandList->context);
    free(hCommandList);
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeCommandListGetContextHandle(ze_command_list_handle_t hCommandList,
                                                            ze_context_handle_t *phContext)
{
    CHECK_HANDLE(hCommandList, KIND_LIST);
    CHECK_POINTER(phContext);
    *phContext = hCommandList->context;
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeCommandListGetDeviceHandle(ze_command_list_handle_t hCommandList,
                                                           ze_device_handle_t *phDevice)
{
    CHECK_HANDLE(hCommandList, KIND_LIST);
    CHECK_POINTER(phDevice);
    *phDevice = &the_device;
    return ZE_RESULT_SUCCESS;
}

static int command_is_done(void *command)
{
    cl_int status = CL_COMPLETE;

    clGetEventInfo(command, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    return status <= CL_COMPLETE; /* complete, or failed */
}

EXPORT ze_result_t ZE_APICALL zeCommandListHostSynchronize(ze_command_list_handle_t hCommandList, uint64_t timeout)
{
    cl_event marker = NULL;
    cl_int error;
    int done;

    CHECK_HANDLE(hCommandList, KIND_LIST);
    if (timeout == UINT64_MAX)
        return from_cl(clFinish(hCommandList->queue));
    if ((error = clEnqueueMarkerWithWaitList(hCommandList->queue, 0, NULL, &marker)) != CL_SUCCESS)
        return from_cl(error);
    clFlush(hCommandList->queue);
    done = wait_until(command_is_done, marker, timeout);
    clReleaseEvent(marker);
    return done ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

/* The gates of a wait list, each held until the command is enqueued. */
struct wait_list {
    cl_uint count;
    cl_event *events;
    struct gate **gates;
    cl_event small_events[8];
    struct gate *small_gates[8];
};

static ze_result_t take_wait_list(struct wait_list *list, uint32_t count, ze_event_handle_t *events)
{
    list->count = 0;
    list->events = list->small_events;
    list->gates = list->small_gates;
    if (count == 0)
        return ZE_RESULT_SUCCESS;
    if (!events)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (uint32_t i = 0; i < count; ++i)
        CHECK_HANDLE(events[i], KIND_EVENT);
    if (count > 8) {
        list->events = malloc(count * sizeof *list->events);
        list->gates = malloc(count * sizeof *list->gates);
        if (!list->events || !list->gates) {
            free(list->events);
            free(list->gates);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
    }
    for (uint32_t i = 0; i < count; ++i) {
        list->gates[i] = current_gate(events[i]);
        list->events[i] = list->gates[i]->user_event;
    }
    list->count = count;
    return ZE_RESULT_SUCCESS;
}

static void drop_wait_list(struct wait_list *list)
{
    for (cl_uint i = 0; i < list->count; ++i)
        release_gate(list->gates[i]);
    if (list->events != list->small_events) {
        free(list->events);
        free(list->gates);
    }
}

/* Makes `signal` (may be NULL) complete when `command` does, and runs
 * synchronous lists to completion. Takes the command's reference. */
static ze_result_t finish_append(ze_command_list_handle_t list, cl_event command, ze_event_handle_t signal)
{
    cl_int error = CL_SUCCESS;

    if (signal) {
        struct gate *gate = current_gate(signal);
        error = clSetEventCallback(command, CL_COMPLETE, on_command_complete, gate);
        if (error != CL_SUCCESS)
            release_gate(gate);
    }
    if (command)
        clReleaseEvent(command);
    if (error == CL_SUCCESS)
        error = list->synchronous ? clFinish(list->queue) : clFlush(list->queue);
    return from_cl(error);
}

static ze_result_t check_append(ze_command_list_handle_t list, ze_event_handle_t signal)
{
    CHECK_HANDLE(list, KIND_LIST);
    if (signal)
        CHECK_HANDLE(signal, KIND_EVENT);
    return ZE_RESULT_SUCCESS;
}

#define APPEND(list, signal, count, events, enqueue) \
    do { \
        struct wait_list waits; \
        cl_event command = NULL; \
        cl_event *out = (signal) ? &command : NULL; \
        cl_int error; \
        ze_result_t result = check_append(list, signal); \
        if (result != ZE_RESULT_SUCCESS || (result = take_wait_list(&waits, count, events)) != ZE_RESULT_SUCCESS) \
            return result; \
        error = (enqueue); \
        drop_wait_list(&waits); \
        if (error != CL_SUCCESS) \
            return from_cl(error); \
        return finish_append(list, command, signal); \
    } while (0)

EXPORT ze_result_t ZE_APICALL zeCommandListAppendBarrier(ze_command_list_handle_t hCommandList,
                                                         ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                         ze_event_handle_t *phWaitEvents)
{
    APPEND(hCommandList, hSignalEvent, numWaitEvents, phWaitEvents,
           clEnqueueBarrierWithWaitList(hCommandList->queue, waits.count, waits.count ? waits.events : NULL, out));
}

EXPORT ze_result_t ZE_APICALL zeCommandListAppendWaitOnEvents(ze_command_list_handle_t hCommandList, uint32_t numEvents,
                                                              ze_event_handle_t *phEvents)
{
    APPEND(hCommandList, (ze_event_handle_t)NULL, numEvents, phEvents,
           clEnqueueBarrierWithWaitList(hCommandList->queue, waits.count, waits.count ? waits.events : NULL, out));
}

EXPORT ze_result_t ZE_APICALL zeCommandListAppendSignalEvent(ze_command_list_handle_t hCommandList,
                                                             ze_event_handle_t hEvent)
{
    if (!hEvent)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    APPEND(hCommandList, hEvent, 0, NULL, clEnqueueMarkerWithWaitList(hCommandList->queue, 0, NULL, out));
}

EXPORT ze_result_t ZE_APICALL zeCommandListAppendMemoryCopy(ze_command_list_handle_t hCommandList, void *dstptr,
                                                            const void *srcptr, size_t size,
                                                            ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                            ze_event_handle_t *phWaitEvents)
{
    if (!dstptr || !srcptr)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    APPEND(hCommandList, hSignalEvent, numWaitEvents, phWaitEvents,
           clEnqueueMemcpyINTEL(hCommandList->queue, CL_FALSE, dstptr, srcptr, size, waits.count,
                                waits.count ? waits.events : NULL, out));
}

EXPORT ze_result_t ZE_APICALL zeCommandListAppendMemoryFill(ze_command_list_handle_t hCommandList, void *ptr,
                                                            const void *pattern, size_t pattern_size, size_t size,
                                                            ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                            ze_event_handle_t *phWaitEvents)
{
    if (!ptr || !pattern)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (pattern_size == 0 || (pattern_size & (pattern_size - 1)) || size % pattern_size)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    APPEND(hCommandList, hSignalEvent, numWaitEvents, phWaitEvents,
           clEnqueueMemFillINTEL(hCommandList->queue, ptr, pattern, pattern_size, size, waits.count,
                                 waits.count ? waits.events : NULL, out));
}

/* --- modules ---------------------------------------------------------------------
 * The native binary is an envelope, in host byte order:
 *   "DNNLZEMU" | u32 version 1 | u32 kernel count |
 *   per kernel: u32 name length | name (no NUL) | u32 argument count | one
 *               byte per argument (enum arg_kind) |
 *   u64 OpenCL binary size | OpenCL binary */

static const char envelope_magic[8] = {'D', 'N', 'N', 'L', 'Z', 'E', 'M', 'U'};
#define ENVELOPE_VERSION 1u

static void free_kernel_table(ze_module_handle_t module)
{
    for (uint32_t i = 0; module->kernels && i < module->kernel_count; ++i) {
        free(module->kernels[i].name);
        free(module->kernels[i].arg_kinds);
    }
    free(module->kernels);
    free((void *)module->kernel_names);
}

static void free_module(ze_module_handle_t module)
{
    module->base.kind = 0;
    if (module->program)
        clReleaseProgram(module->program);
    free_kernel_table(module);
    free(module->native);
    if (module->context)
        release_context(module->context);
    free(module);
}

static void release_module(ze_module_handle_t module)
{
    if (unref(&module->base))
        free_module(module);
}

static int arg_kind(cl_kernel kernel, cl_uint index, uint8_t *kind)
{
    cl_uint qualifier = 0;
    char type[64] = "";

    if (clGetKernelArgInfo(kernel, index, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof qualifier, &qualifier, NULL)
        != CL_SUCCESS)
        return 0;
    /* Image, pipe and sampler arguments have no Level Zero form here. */
    clGetKernelArgInfo(kernel, index, CL_KERNEL_ARG_TYPE_NAME, sizeof type, type, NULL);
    type[sizeof type - 1] = '\0';
    if (strstr(type, "image") || strstr(type, "pipe") || strstr(type, "sampler"))
        *kind = ARG_UNSUPPORTED;
    else if (qualifier == CL_KERNEL_ARG_ADDRESS_GLOBAL || qualifier == CL_KERNEL_ARG_ADDRESS_CONSTANT)
        *kind = ARG_POINTER;
    else if (qualifier == CL_KERNEL_ARG_ADDRESS_LOCAL)
        *kind = ARG_LOCAL;
    else
        *kind = ARG_VALUE;
    return 1;
}

/* Reads every kernel's name and argument kinds from a program built from
 * source with -cl-kernel-arg-info. */
static ze_result_t record_kernels(ze_module_handle_t module)
{
    cl_uint count = 0;
    cl_kernel *kernels;
    ze_result_t result = ZE_RESULT_SUCCESS;
    cl_int error;

    if ((error = clCreateKernelsInProgram(module->program, 0, NULL, &count)) != CL_SUCCESS)
        return from_cl(error);
    if (!(kernels = calloc(count ? count : 1, sizeof *kernels))
        || !(module->kernels = calloc(count ? count : 1, sizeof *module->kernels))) {
        free(kernels);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    if ((error = clCreateKernelsInProgram(module->program, count, kernels, NULL)) != CL_SUCCESS) {
        free(kernels);
        return from_cl(error);
    }
    module->kernel_count = count;
    for (cl_uint i = 0; i < count && result == ZE_RESULT_SUCCESS; ++i) {
        struct kernel_info *info = &module->kernels[i];
        size_t size = 0;
        if (clGetKernelInfo(kernels[i], CL_KERNEL_FUNCTION_NAME, 0, NULL, &size) != CL_SUCCESS
            || !(info->name = malloc(size + 1))
            || clGetKernelInfo(kernels[i], CL_KERNEL_FUNCTION_NAME, size, info->name, NULL) != CL_SUCCESS
            || clGetKernelInfo(kernels[i], CL_KERNEL_NUM_ARGS, sizeof info->arg_count, &info->arg_count, NULL)
                   != CL_SUCCESS
            || !(info->arg_kinds = malloc(info->arg_count ? info->arg_count : 1))) {
            result = ZE_RESULT_ERROR_UNKNOWN;
            break;
        }
        info->name[size] = '\0';
        for (cl_uint a = 0; a < info->arg_count; ++a)
            if (!arg_kind(kernels[i], a, &info->arg_kinds[a])) {
                result = ZE_RESULT_ERROR_UNKNOWN;
                break;
            }
    }
    for (cl_uint i = 0; i < count; ++i)
        clReleaseKernel(kernels[i]);
    free(kernels);
    return result;
}

static ze_result_t make_envelope(ze_module_handle_t module, const uint8_t *binary, size_t binary_size)
{
    size_t size = sizeof envelope_magic + 2 * sizeof(uint32_t) + sizeof(uint64_t) + binary_size;
    uint8_t *out;
    uint32_t word;
    uint64_t length = binary_size;

    for (uint32_t i = 0; i < module->kernel_count; ++i)
        size += 2 * sizeof(uint32_t) + strlen(module->kernels[i].name) + module->kernels[i].arg_count;
    if (!(module->native = out = malloc(size)))
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
#define PUT(data, n) (memcpy(out, (data), (n)), out += (n))
    PUT(envelope_magic, sizeof envelope_magic);
    word = ENVELOPE_VERSION;
    PUT(&word, sizeof word);
    PUT(&module->kernel_count, sizeof module->kernel_count);
    for (uint32_t i = 0; i < module->kernel_count; ++i) {
        const struct kernel_info *info = &module->kernels[i];
        word = (uint32_t)strlen(info->name);
        PUT(&word, sizeof word);
        PUT(info->name, word);
        PUT(&info->arg_count, sizeof info->arg_count);
        PUT(info->arg_kinds, info->arg_count);
    }
    PUT(&length, sizeof length);
    module->cl_binary = out;
    PUT(binary, binary_size);
#undef PUT
    module->native_size = size;
    module->cl_binary_size = binary_size;
    return ZE_RESULT_SUCCESS;
}

/* Parses an envelope into the module (copying it); 0 if malformed. */
static int open_envelope(ze_module_handle_t module, const uint8_t *data, size_t size)
{
    const uint8_t *at = data, *end = data + size;
    uint32_t word, count;
    uint64_t length;

#define GET(target, n) \
    do { \
        if ((size_t)(end - at) < (size_t)(n)) \
            return 0; \
        memcpy((target), at, (n)); \
        at += (n); \
    } while (0)
    char magic[sizeof envelope_magic];
    GET(magic, sizeof magic);
    GET(&word, sizeof word);
    GET(&count, sizeof count);
    if (memcmp(magic, envelope_magic, sizeof magic) != 0 || word != ENVELOPE_VERSION
        || count > (size_t)(end - at) / (2 * sizeof(uint32_t)))
        return 0;
    if (!(module->kernels = calloc(count ? count : 1, sizeof *module->kernels)))
        return 0;
    module->kernel_count = count;
    for (uint32_t i = 0; i < count; ++i) {
        struct kernel_info *info = &module->kernels[i];
        GET(&word, sizeof word);
        if (word > (size_t)(end - at) || !(info->name = malloc((size_t)word + 1)))
            return 0;
        GET(info->name, word);
        info->name[word] = '\0';
        GET(&info->arg_count, sizeof info->arg_count);
        if (info->arg_count > (size_t)(end - at) || !(info->arg_kinds = malloc(info->arg_count ? info->arg_count : 1)))
            return 0;
        GET(info->arg_kinds, info->arg_count);
        for (uint32_t a = 0; a < info->arg_count; ++a)
            if (info->arg_kinds[a] > ARG_UNSUPPORTED)
                return 0;
    }
    GET(&length, sizeof length);
    if (length == 0 || length != (uint64_t)(end - at))
        return 0;
#undef GET
    if (!(module->native = malloc(size)))
        return 0;
    memcpy(module->native, data, size);
    module->native_size = size;
    module->cl_binary = module->native + (at - data);
    module->cl_binary_size = (size_t)length;
    return 1;
}

/* The envelope's table must describe the program: same kernels, same
 * argument counts. */
static int table_matches_program(ze_module_handle_t module)
{
    cl_uint count = 0;

    if (clCreateKernelsInProgram(module->program, 0, NULL, &count) != CL_SUCCESS || count != module->kernel_count)
        return 0;
    for (uint32_t i = 0; i < module->kernel_count; ++i) {
        cl_int error = CL_SUCCESS;
        cl_uint args = 0;
        cl_kernel kernel = clCreateKernel(module->program, module->kernels[i].name, &error);
        int same = kernel
                   && clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof args, &args, NULL) == CL_SUCCESS
                   && args == module->kernels[i].arg_count;
        if (kernel)
            clReleaseKernel(kernel);
        if (!same)
            return 0;
    }
    return 1;
}

static char *build_log_of(cl_program program)
{
    size_t size = 0;
    char *text;

    if (clGetProgramBuildInfo(program, the_device.cl, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS
        || !(text = malloc(size + 1)))
        return NULL;
    if (clGetProgramBuildInfo(program, the_device.cl, CL_PROGRAM_BUILD_LOG, size, text, NULL) != CL_SUCCESS)
        size = 0;
    text[size] = '\0';
    return text;
}

static ze_result_t build(ze_module_handle_t module, const char *options, char **log)
{
    cl_int error = clBuildProgram(module->program, 1, &the_device.cl, options, NULL, NULL);

    if (log)
        *log = build_log_of(module->program);
    return error == CL_SUCCESS ? ZE_RESULT_SUCCESS : from_cl(error);
}

static ze_result_t create_from_source(ze_module_handle_t module, const ze_module_desc_t *desc, char **log)
{
    static const char arg_info[] = " -cl-kernel-arg-info";
    const char *source = (const char *)desc->pInputModule;
    const char *flags = desc->pBuildFlags ? desc->pBuildFlags : "";
    size_t length = desc->inputSize, binary_size = 0;
    unsigned char *binary;
    char *options;
    cl_int error = CL_SUCCESS;
    ze_result_t result;

    /* A terminating NUL counted in inputSize is not source. */
    while (length && source[length - 1] == '\0')
        --length;
    module->program = clCreateProgramWithSource(module->context->cl, 1, &source, &length, &error);
    if (!module->program)
        return from_cl(error);
    if (!(options = malloc(strlen(flags) + sizeof arg_info)))
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    strcpy(options, flags);
    strcat(options, arg_info);
    result = build(module, options, log);
    free(options);
    if (result != ZE_RESULT_SUCCESS || (result = record_kernels(module)) != ZE_RESULT_SUCCESS)
        return result;
    if ((error = clGetProgramInfo(module->program, CL_PROGRAM_BINARY_SIZES, sizeof binary_size, &binary_size, NULL))
        != CL_SUCCESS)
        return from_cl(error);
    if (!(binary = malloc(binary_size ? binary_size : 1)))
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    if ((error = clGetProgramInfo(module->program, CL_PROGRAM_BINARIES, sizeof binary, &binary, NULL)) != CL_SUCCESS)
        result = from_cl(error);
    else
        result = make_envelope(module, binary, binary_size);
    free(binary);
    return result;
}

static ze_result_t create_from_native(ze_module_handle_t module, const ze_module_desc_t *desc, char **log)
{
    cl_int error = CL_SUCCESS, status = CL_SUCCESS;
    const unsigned char *binary;
    ze_result_t result;

    if (!open_envelope(module, desc->pInputModule, desc->inputSize))
        return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    binary = module->cl_binary;
    module->program = clCreateProgramWithBinary(module->context->cl, 1, &the_device.cl, &module->cl_binary_size,
                                                &binary, &status, &error);
    if (!module->program)
        return error == CL_INVALID_BINARY ? ZE_RESULT_ERROR_INVALID_NATIVE_BINARY : from_cl(error);
    if ((result = build(module, desc->pBuildFlags ? desc->pBuildFlags : "", log)) != ZE_RESULT_SUCCESS)
        return result;
    return table_matches_program(module) ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
}

static ze_result_t new_build_log(char *text, ze_module_build_log_handle_t *out)
{
    ze_module_build_log_handle_t log = calloc(1, sizeof *log);

    if (!log) {
        free(text);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    log->base = (struct object){KIND_LOG, 1};
    log->text = text ? text : strdup("");
    *out = log;
    return ZE_RESULT_SUCCESS;
}

/* Format 3 is OpenCL C source with build flags: the value oneDNN uses,
 * which the loader keeps out of the published ze_module_format_t. */
#define MODULE_FORMAT_OPENCL_C ((ze_module_format_t)3)

EXPORT ze_result_t ZE_APICALL zeModuleCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                             const ze_module_desc_t *desc, ze_module_handle_t *phModule,
                                             ze_module_build_log_handle_t *phBuildLog)
{
    ze_module_handle_t module;
    ze_result_t result;
    char *log = NULL;

    CHECK_HANDLE(hContext, KIND_CONTEXT);
    CHECK_HANDLE(hDevice, KIND_DEVICE);
    CHECK_POINTER(desc);
    CHECK_POINTER(desc->pInputModule);
    CHECK_POINTER(phModule);
    if (desc->inputSize == 0)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    if (desc->format != MODULE_FORMAT_OPENCL_C && desc->format != ZE_MODULE_FORMAT_NATIVE)
        return desc->format == ZE_MODULE_FORMAT_IL_SPIRV ? ZE_RESULT_ERROR_UNSUPPORTED_FEATURE
                                                         : ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (!(module = calloc(1, sizeof *module)))
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    module->base = (struct object){KIND_MODULE, 1};
    module->context = hContext;
    retain(&hContext->base);
    result = desc->format == ZE_MODULE_FORMAT_NATIVE ? create_from_native(module, desc, phBuildLog ? &log : NULL)
                                                     : create_from_source(module, desc, phBuildLog ? &log : NULL);
    if (result == ZE_RESULT_SUCCESS && !(module->kernel_names = calloc(module->kernel_count + 1, sizeof(char *))))
        result = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    if (phBuildLog) {
        ze_result_t logged = new_build_log(log, phBuildLog);
        if (result == ZE_RESULT_SUCCESS)
            result = logged;
    }
    if (result != ZE_RESULT_SUCCESS) {
        free_module(module);
        return result;
    }
    for (uint32_t i = 0; i < module->kernel_count; ++i)
        module->kernel_names[i] = module->kernels[i].name;
    *phModule = module;
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeModuleDestroy(ze_module_handle_t hModule)
{
    CHECK_HANDLE(hModule, KIND_MODULE);
    release_module(hModule);
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeModuleBuildLogGetString(ze_module_build_log_handle_t hModuleBuildLog, size_t *pSize,
                                                        char *pBuildLog)
{
    size_t size;

    CHECK_HANDLE(hModuleBuildLog, KIND_LOG);
    CHECK_POINTER(pSize);
    size = strlen(hModuleBuildLog->text) + 1;
    if (pBuildLog) {
        if (*pSize < size)
            return ZE_RESULT_ERROR_INVALID_SIZE;
        memcpy(pBuildLog, hModuleBuildLog->text, size);
    }
    *pSize = size;
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeModuleBuildLogDestroy(ze_module_build_log_handle_t hModuleBuildLog)
{
    CHECK_HANDLE(hModuleBuildLog, KIND_LOG);
    hModuleBuildLog->base.kind = 0;
    free(hModuleBuildLog->text);
    free(hModuleBuildLog);
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeModuleGetNativeBinary(ze_module_handle_t hModule, size_t *pSize,
                                                      uint8_t *pModuleNativeBinary)
{
    CHECK_HANDLE(hModule, KIND_MODULE);
    CHECK_POINTER(pSize);
    if (pModuleNativeBinary) {
        if (*pSize < hModule->native_size)
            return ZE_RESULT_ERROR_INVALID_SIZE;
        memcpy(pModuleNativeBinary, hModule->native, hModule->native_size);
    }
    *pSize = hModule->native_size;
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeModuleGetKernelNames(ze_module_handle_t hModule, uint32_t *pCount, const char **pNames)
{
    uint32_t count;

    CHECK_HANDLE(hModule, KIND_MODULE);
    CHECK_POINTER(pCount);
    if (*pCount == 0 || !pNames) {
        *pCount = hModule->kernel_count;
        return ZE_RESULT_SUCCESS;
    }
    count = *pCount < hModule->kernel_count ? *pCount : hModule->kernel_count;
    memcpy(pNames, hModule->kernel_names, count * sizeof *pNames);
    *pCount = count;
    return ZE_RESULT_SUCCESS;
}

/* --- kernels ---------------------------------------------------------------------- */

EXPORT ze_result_t ZE_APICALL zeKernelCreate(ze_module_handle_t hModule, const ze_kernel_desc_t *desc,
                                             ze_kernel_handle_t *phKernel)
{
    ze_kernel_handle_t kernel;
    const struct kernel_info *info = NULL;
    cl_int error = CL_SUCCESS;

    CHECK_HANDLE(hModule, KIND_MODULE);
    CHECK_POINTER(desc);
    CHECK_POINTER(desc->pKernelName);
    CHECK_POINTER(phKernel);
    for (uint32_t i = 0; i < hModule->kernel_count && !info; ++i)
        if (strcmp(hModule->kernels[i].name, desc->pKernelName) == 0)
            info = &hModule->kernels[i];
    if (!info)
        return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
    if (!(kernel = calloc(1, sizeof *kernel)))
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    kernel->cl = clCreateKernel(hModule->program, info->name, &error);
    if (!kernel->cl
        || (error = clGetKernelWorkGroupInfo(kernel->cl, the_device.cl, CL_KERNEL_WORK_GROUP_SIZE,
                                             sizeof kernel->max_group_size, &kernel->max_group_size, NULL))
               != CL_SUCCESS) {
        if (kernel->cl)
            clReleaseKernel(kernel->cl);
        free(kernel);
        return from_cl(error);
    }
    kernel->base = (struct object){KIND_KERNEL, 1};
    kernel->module = hModule;
    kernel->info = info;
    kernel->group_size[0] = kernel->group_size[1] = kernel->group_size[2] = 1;
    retain(&hModule->base);
    *phKernel = kernel;
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeKernelDestroy(ze_kernel_handle_t hKernel)
{
    CHECK_HANDLE(hKernel, KIND_KERNEL);
    hKernel->base.kind = 0;
    clReleaseKernel(hKernel->cl);
    release_module(hKernel->module);
    free(hKernel);
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeKernelSetArgumentValue(ze_kernel_handle_t hKernel, uint32_t argIndex, size_t argSize,
                                                       const void *pArgValue)
{
    CHECK_HANDLE(hKernel, KIND_KERNEL);
    if (argIndex >= hKernel->info->arg_count)
        return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
    switch (hKernel->info->arg_kinds[argIndex]) {
    case ARG_POINTER:
        if (argSize != sizeof(void *))
            return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
        return from_cl(clSetKernelArgMemPointerINTEL(hKernel->cl, argIndex,
                                                     pArgValue ? *(void *const *)pArgValue : NULL));
    case ARG_LOCAL: /* only the size counts */
        return from_cl(clSetKernelArg(hKernel->cl, argIndex, argSize, NULL));
    case ARG_VALUE:
        CHECK_POINTER(pArgValue);
        return from_cl(clSetKernelArg(hKernel->cl, argIndex, argSize, pArgValue));
    default:
        return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    }
}

EXPORT ze_result_t ZE_APICALL zeKernelSetGroupSize(ze_kernel_handle_t hKernel, uint32_t groupSizeX,
                                                   uint32_t groupSizeY, uint32_t groupSizeZ)
{
    CHECK_HANDLE(hKernel, KIND_KERNEL);
    if (!groupSizeX || !groupSizeY || !groupSizeZ
        || (uint64_t)groupSizeX * groupSizeY * groupSizeZ > hKernel->max_group_size)
        return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    hKernel->group_size[0] = groupSizeX;
    hKernel->group_size[1] = groupSizeY;
    hKernel->group_size[2] = groupSizeZ;
    return ZE_RESULT_SUCCESS;
}

/* The largest divisor of n not above limit. */
static uint32_t largest_divisor(uint32_t n, uint64_t limit)
{
    for (uint32_t d = (uint32_t)(limit < n ? limit : n); d > 1; --d)
        if (n % d == 0)
            return d;
    return 1;
}

EXPORT ze_result_t ZE_APICALL zeKernelSuggestGroupSize(ze_kernel_handle_t hKernel, uint32_t globalSizeX,
                                                       uint32_t globalSizeY, uint32_t globalSizeZ, uint32_t *groupSizeX,
                                                       uint32_t *groupSizeY, uint32_t *groupSizeZ)
{
    uint64_t room;

    CHECK_HANDLE(hKernel, KIND_KERNEL);
    CHECK_POINTER(groupSizeX);
    CHECK_POINTER(groupSizeY);
    CHECK_POINTER(groupSizeZ);
    if (!globalSizeX || !globalSizeY || !globalSizeZ)
        return ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION;
    room = hKernel->max_group_size;
    *groupSizeX = largest_divisor(globalSizeX, room);
    room /= *groupSizeX;
    *groupSizeY = largest_divisor(globalSizeY, room);
    room /= *groupSizeY;
    *groupSizeZ = largest_divisor(globalSizeZ, room);
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeKernelGetName(ze_kernel_handle_t hKernel, size_t *pSize, char *pName)
{
    size_t size;

    CHECK_HANDLE(hKernel, KIND_KERNEL);
    CHECK_POINTER(pSize);
    size = strlen(hKernel->info->name) + 1;
    if (pName) {
        if (*pSize < size)
            return ZE_RESULT_ERROR_INVALID_SIZE;
        memcpy(pName, hKernel->info->name, size);
    }
    *pSize = size;
    return ZE_RESULT_SUCCESS;
}

/* The OpenCL binary of the kernel's program (what a dump wants to see). */
EXPORT ze_result_t ZE_APICALL zeKernelGetBinaryExp(ze_kernel_handle_t hKernel, size_t *pSize, uint8_t *pKernelBinary)
{
    ze_module_handle_t module;

    CHECK_HANDLE(hKernel, KIND_KERNEL);
    CHECK_POINTER(pSize);
    module = hKernel->module;
    if (pKernelBinary) {
        if (*pSize < module->cl_binary_size)
            return ZE_RESULT_ERROR_INVALID_SIZE;
        memcpy(pKernelBinary, module->cl_binary, module->cl_binary_size);
    }
    *pSize = module->cl_binary_size;
    return ZE_RESULT_SUCCESS;
}

EXPORT ze_result_t ZE_APICALL zeCommandListAppendLaunchKernel(ze_command_list_handle_t hCommandList,
                                                              ze_kernel_handle_t hKernel,
                                                              const ze_group_count_t *pLaunchFuncArgs,
                                                              ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                              ze_event_handle_t *phWaitEvents)
{
    size_t global[3], local[3];
    int empty;

    CHECK_HANDLE(hCommandList, KIND_LIST);
    CHECK_HANDLE(hKernel, KIND_KERNEL);
    CHECK_POINTER(pLaunchFuncArgs);
    if (hKernel->module->context != hCommandList->context)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    global[0] = (size_t)pLaunchFuncArgs->groupCountX * hKernel->group_size[0];
    global[1] = (size_t)pLaunchFuncArgs->groupCountY * hKernel->group_size[1];
    global[2] = (size_t)pLaunchFuncArgs->groupCountZ * hKernel->group_size[2];
    memcpy(local, (size_t[3]){hKernel->group_size[0], hKernel->group_size[1], hKernel->group_size[2]}, sizeof local);
    /* No groups: nothing runs, but the ordering and the signal still hold. */
    empty = !global[0] || !global[1] || !global[2];
    APPEND(hCommandList, hSignalEvent, numWaitEvents, phWaitEvents,
           empty ? clEnqueueMarkerWithWaitList(hCommandList->queue, waits.count, waits.count ? waits.events : NULL, out)
                 : clEnqueueNDRangeKernel(hCommandList->queue, hKernel->cl, 3, NULL, global, local, waits.count,
                                          waits.count ? waits.events : NULL, out));
}
