/* An OpenCL loader layer that presents the CPU devices of Intel's CPU OpenCL
 * runtime (platform "Intel(R) OpenCL") as Intel Gen9 GPUs, so that oneDNN's
 * OpenCL GPU engine runs on them. Used by dnnl_interop.testing.emulated_gpu.
 *
 * A layer-capable ICD loader reads OPENCL_LAYERS at its first call, loads this
 * library, and sends every OpenCL call through the table clInitLayer returns.
 * That table is the loader's own, with these entries replaced:
 *
 *   clGetDeviceInfo     CL_DEVICE_TYPE -> GPU, CL_DEVICE_VENDOR_ID -> 0x8086,
 *                       CL_DEVICE_IP_VERSION_INTEL -> 0x02400000 (Gen9: the
 *                       only IP version with which oneDNN falls back to its
 *                       generic OpenCL kernels; no answer or Xe-LP and newer
 *                       end in std::terminate inside libdnnl),
 *                       CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL -> 0
 *                       (the runtime answers CL_INVALID_VALUE, which stops
 *                       oneDNN's engine initialisation);
 *   clGetDeviceIDs      a GPU query on that platform lists its CPU devices;
 *   kernel creation and clReleaseKernel
 *                       each kernel of a program built for such a device
 *                       holds a reference to the program: the CPU runtime
 *                       invalidates a program's kernels once the program is
 *                       released, and oneDNN reads the program of a live
 *                       kernel for primitive cache blobs.
 *
 * It also counts the calls that make the host wait for queued work, on any
 * platform and through any loader, for tests that check that work is ordered
 * by events alone: clFinish, clWaitForEvents, blocking clEnqueueReadBuffer /
 * WriteBuffer / MapBuffer, and (no wait, but what a polling loop repeats)
 * clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS). Those calls pass on
 * unchanged; dnnl_interop_emulated_gpu_counts reads the counts.
 *
 * Everything else, and every device of any other platform, passes through
 * unchanged. The layer reads no environment variable and links no OpenCL
 * library. Several loaders may load it in one process (pyopencl's and the
 * one libdnnl opens): each gets its own slot, so that calls a loader makes
 * go on through that loader's table. */

#include <stdlib.h>
#include <string.h>

#include "cl_layer_subset.h"

#define EXPORT __attribute__((visibility("default")))

#define EMULATED_PLATFORM "Intel(R) OpenCL"
#define INTEL_VENDOR_ID 0x8086u
#define GEN9_IP_VERSION 0x02400000u
#define LAYER_NAME "dnnl-interop emulated Intel GPU (Gen9 on Intel's CPU OpenCL runtime)"
#define MAX_LOADERS 4

#define ENTRY(name) (offsetof(cl_icd_dispatch, name) / sizeof(void *))

static const cl_icd_dispatch *targets[MAX_LOADERS];
static int loaders_seen;

static cl_int answer(const void *value, size_t size, size_t capacity, void *out, size_t *size_ret)
{
    if (out) {
        if (capacity < size)
            return CL_INVALID_VALUE;
        memcpy(out, value, size);
    }
    if (size_ret)
        *size_ret = size;
    return CL_SUCCESS;
}

static int is_emulated_platform(const cl_icd_dispatch *next, cl_platform_id platform)
{
    char name[sizeof EMULATED_PLATFORM];
    size_t size = 0;

    /* A longer name does not fit the buffer: the runtime answers an error. */
    if (!platform
        || next->clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name, name, &size) != CL_SUCCESS)
        return 0;
    return size == sizeof name && memcmp(name, EMULATED_PLATFORM, sizeof name) == 0;
}

static int is_emulated_device(const cl_icd_dispatch *next, cl_device_id device)
{
    cl_device_type type = 0;
    cl_platform_id platform = NULL;

    if (next->clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL) != CL_SUCCESS
        || !(type & CL_DEVICE_TYPE_CPU))
        return 0;
    if (next->clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, NULL) != CL_SUCCESS)
        return 0;
    return is_emulated_platform(next, platform);
}

static cl_int get_device_info(const cl_icd_dispatch *next, cl_device_id device, cl_device_info name,
                              size_t capacity, void *out, size_t *size_ret)
{
    switch (name) {
    case CL_DEVICE_TYPE:
    case CL_DEVICE_VENDOR_ID:
    case CL_DEVICE_IP_VERSION_INTEL:
    case CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL:
        break;
    default:
        return next->clGetDeviceInfo(device, name, capacity, out, size_ret);
    }
    if (!is_emulated_device(next, device))
        return next->clGetDeviceInfo(device, name, capacity, out, size_ret);

    switch (name) {
    case CL_DEVICE_TYPE: {
        cl_device_type gpu = CL_DEVICE_TYPE_GPU;
        return answer(&gpu, sizeof gpu, capacity, out, size_ret);
    }
    case CL_DEVICE_VENDOR_ID: {
        cl_uint intel = INTEL_VENDOR_ID;
        return answer(&intel, sizeof intel, capacity, out, size_ret);
    }
    case CL_DEVICE_IP_VERSION_INTEL: {
        cl_version gen9 = GEN9_IP_VERSION;
        return answer(&gen9, sizeof gen9, capacity, out, size_ret);
    }
    default: {
        cl_device_unified_shared_memory_capabilities_intel none = 0;
        return answer(&none, sizeof none, capacity, out, size_ret);
    }
    }
}

static cl_int get_device_ids(const cl_icd_dispatch *next, cl_platform_id platform, cl_device_type type,
                             cl_uint num_entries, cl_device_id *devices, cl_uint *num_devices)
{
    if ((type & CL_DEVICE_TYPE_GPU) && !(type & CL_DEVICE_TYPE_CPU) && is_emulated_platform(next, platform))
        type = (type & ~(cl_device_type)CL_DEVICE_TYPE_GPU) | CL_DEVICE_TYPE_CPU;
    return next->clGetDeviceIDs(platform, type, num_entries, devices, num_devices);
}

/* --- kernels hold their program ------------------------------------------ */

/* A context, hence a program, never spans two platforms: its first device
 * tells. */
static int is_emulated_program(const cl_icd_dispatch *next, cl_program program)
{
    cl_device_id *devices;
    size_t size = 0;
    int emulated;

    if (next->clGetProgramInfo(program, CL_PROGRAM_DEVICES, 0, NULL, &size) != CL_SUCCESS
        || size < sizeof *devices)
        return 0;
    devices = malloc(size);
    if (!devices)
        return 0;
    emulated = next->clGetProgramInfo(program, CL_PROGRAM_DEVICES, size, devices, NULL) == CL_SUCCESS
               && is_emulated_device(next, devices[0]);
    free(devices);
    return emulated;
}

static void hold_program_of(const cl_icd_dispatch *next, cl_kernel kernel)
{
    cl_program program = NULL;

    if (kernel && next->clGetKernelInfo(kernel, CL_KERNEL_PROGRAM, sizeof program, &program, NULL) == CL_SUCCESS
        && is_emulated_program(next, program))
        next->clRetainProgram(program);
}

static cl_kernel create_kernel(const cl_icd_dispatch *next, cl_program program, const char *name, cl_int *error)
{
    cl_kernel kernel = next->clCreateKernel(program, name, error);

    hold_program_of(next, kernel);
    return kernel;
}

static cl_int create_kernels_in_program(const cl_icd_dispatch *next, cl_program program, cl_uint num_kernels,
                                        cl_kernel *kernels, cl_uint *num_kernels_ret)
{
    cl_uint created = 0;
    cl_int status = next->clCreateKernelsInProgram(program, num_kernels, kernels, &created);

    if (status == CL_SUCCESS && kernels)
        for (cl_uint i = 0; i < created && i < num_kernels; ++i)
            hold_program_of(next, kernels[i]);
    if (status == CL_SUCCESS && num_kernels_ret)
        *num_kernels_ret = created;
    return status;
}

static cl_kernel clone_kernel(const cl_icd_dispatch *next, cl_kernel source, cl_int *error)
{
    cl_kernel kernel = next->clCloneKernel(source, error);

    hold_program_of(next, kernel);
    return kernel;
}

/* Two threads racing to drop the last two references may both read 2 and
 * keep the program: a leak, never a double release. */
static cl_int release_kernel(const cl_icd_dispatch *next, cl_kernel kernel)
{
    cl_uint references = 0;
    cl_program program = NULL;
    int last = next->clGetKernelInfo(kernel, CL_KERNEL_REFERENCE_COUNT, sizeof references, &references, NULL)
                   == CL_SUCCESS
               && references == 1
               && next->clGetKernelInfo(kernel, CL_KERNEL_PROGRAM, sizeof program, &program, NULL) == CL_SUCCESS
               && is_emulated_program(next, program);
    cl_int status = next->clReleaseKernel(kernel);

    if (status == CL_SUCCESS && last)
        next->clReleaseProgram(program);
    return status;
}

/* --- counting host waits -------------------------------------------------- */

enum { COUNT_FINISH, COUNT_WAIT_FOR_EVENTS, COUNT_BLOCKING_TRANSFERS, COUNT_STATUS_QUERIES, COUNTS };

static unsigned long long counts[COUNTS];

static void count(int which)
{
    __atomic_fetch_add(&counts[which], 1, __ATOMIC_RELAXED);
}

/* The counts since the layer was loaded, in the order of the enum above, into
 * out[0 .. n-1]; returns how many counts the layer keeps. */
EXPORT int dnnl_interop_emulated_gpu_counts(unsigned long long *out, int n)
{
    for (int i = 0; i < n && i < COUNTS; ++i)
        out[i] = __atomic_load_n(&counts[i], __ATOMIC_RELAXED);
    return COUNTS;
}

static cl_int finish(const cl_icd_dispatch *next, cl_command_queue queue)
{
    count(COUNT_FINISH);
    return next->clFinish(queue);
}

static cl_int wait_for_events(const cl_icd_dispatch *next, cl_uint num_events, const cl_event *events)
{
    count(COUNT_WAIT_FOR_EVENTS);
    return next->clWaitForEvents(num_events, events);
}

static cl_int get_event_info(const cl_icd_dispatch *next, cl_event event, cl_event_info name, size_t capacity,
                             void *out, size_t *size_ret)
{
    if (name == CL_EVENT_COMMAND_EXECUTION_STATUS)
        count(COUNT_STATUS_QUERIES);
    return next->clGetEventInfo(event, name, capacity, out, size_ret);
}

static cl_int read_buffer(const cl_icd_dispatch *next, cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                          size_t offset, size_t size, void *ptr, cl_uint waits, const cl_event *wait_list,
                          cl_event *event)
{
    if (blocking)
        count(COUNT_BLOCKING_TRANSFERS);
    return next->clEnqueueReadBuffer(queue, buffer, blocking, offset, size, ptr, waits, wait_list, event);
}

static cl_int write_buffer(const cl_icd_dispatch *next, cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                           size_t offset, size_t size, const void *ptr, cl_uint waits, const cl_event *wait_list,
                           cl_event *event)
{
    if (blocking)
        count(COUNT_BLOCKING_TRANSFERS);
    return next->clEnqueueWriteBuffer(queue, buffer, blocking, offset, size, ptr, waits, wait_list, event);
}

static void *map_buffer(const cl_icd_dispatch *next, cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                        cl_map_flags flags, size_t offset, size_t size, cl_uint waits, const cl_event *wait_list,
                        cl_event *event, cl_int *error)
{
    if (blocking)
        count(COUNT_BLOCKING_TRANSFERS);
    return next->clEnqueueMapBuffer(queue, buffer, blocking, flags, offset, size, waits, wait_list, event, error);
}

/* --- one set of entry points per loader ----------------------------------- */

#define SLOT(n)                                                                                              \
    static cl_int CL_API_CALL slot##n##_get_device_info(cl_device_id d, cl_device_info p, size_t c, void *o, \
                                                        size_t *r)                                          \
    {                                                                                                        \
        return get_device_info(targets[n], d, p, c, o, r);                                                  \
    }                                                                                                        \
    static cl_int CL_API_CALL slot##n##_get_device_ids(cl_platform_id p, cl_device_type t, cl_uint e,        \
                                                       cl_device_id *d, cl_uint *r)                          \
    {                                                                                                        \
        return get_device_ids(targets[n], p, t, e, d, r);                                                   \
    }                                                                                                        \
    static cl_kernel CL_API_CALL slot##n##_create_kernel(cl_program p, const char *k, cl_int *e)             \
    {                                                                                                        \
        return create_kernel(targets[n], p, k, e);                                                          \
    }                                                                                                        \
    static cl_int CL_API_CALL slot##n##_create_kernels_in_program(cl_program p, cl_uint c, cl_kernel *k,     \
                                                                  cl_uint *r)                                \
    {                                                                                                        \
        return create_kernels_in_program(targets[n], p, c, k, r);                                           \
    }                                                                                                        \
    static cl_kernel CL_API_CALL slot##n##_clone_kernel(cl_kernel k, cl_int *e)                              \
    {                                                                                                        \
        return clone_kernel(targets[n], k, e);                                                              \
    }                                                                                                        \
    static cl_int CL_API_CALL slot##n##_release_kernel(cl_kernel k)                                          \
    {                                                                                                        \
        return release_kernel(targets[n], k);                                                               \
    }                                                                                                        \
    static cl_int CL_API_CALL slot##n##_finish(cl_command_queue q)                                           \
    {                                                                                                        \
        return finish(targets[n], q);                                                                       \
    }                                                                                                        \
    static cl_int CL_API_CALL slot##n##_wait_for_events(cl_uint c, const cl_event *l)                        \
    {                                                                                                        \
        return wait_for_events(targets[n], c, l);                                                           \
    }                                                                                                        \
    static cl_int CL_API_CALL slot##n##_get_event_info(cl_event v, cl_event_info p, size_t c, void *o,       \
                                                       size_t *r)                                            \
    {                                                                                                        \
        return get_event_info(targets[n], v, p, c, o, r);                                                   \
    }                                                                                                        \
    static cl_int CL_API_CALL slot##n##_read_buffer(cl_command_queue q, cl_mem b, cl_bool k, size_t o,       \
                                                    size_t s, void *p, cl_uint c, const cl_event *w,         \
                                                    cl_event *e)                                             \
    {                                                                                                        \
        return read_buffer(targets[n], q, b, k, o, s, p, c, w, e);                                          \
    }                                                                                                        \
    static cl_int CL_API_CALL slot##n##_write_buffer(cl_command_queue q, cl_mem b, cl_bool k, size_t o,      \
                                                     size_t s, const void *p, cl_uint c, const cl_event *w,  \
                                                     cl_event *e)                                            \
    {                                                                                                        \
        return write_buffer(targets[n], q, b, k, o, s, p, c, w, e);                                         \
    }                                                                                                        \
    static void *CL_API_CALL slot##n##_map_buffer(cl_command_queue q, cl_mem b, cl_bool k, cl_map_flags f,   \
                                                  size_t o, size_t s, cl_uint c, const cl_event *w,          \
                                                  cl_event *e, cl_int *r)                                    \
    {                                                                                                        \
        return map_buffer(targets[n], q, b, k, f, o, s, c, w, e, r);                                        \
    }

SLOT(0)
SLOT(1)
SLOT(2)
SLOT(3)

struct overrides {
    clGetDeviceInfo_t *get_device_info;
    clGetDeviceIDs_t *get_device_ids;
    clCreateKernel_t *create_kernel;
    clCreateKernelsInProgram_t *create_kernels_in_program;
    clCloneKernel_t *clone_kernel;
    clReleaseKernel_t *release_kernel;
    clFinish_t *finish;
    clWaitForEvents_t *wait_for_events;
    clGetEventInfo_t *get_event_info;
    clEnqueueReadBuffer_t *read_buffer;
    clEnqueueWriteBuffer_t *write_buffer;
    clEnqueueMapBuffer_t *map_buffer;
};

#define OVERRIDES(n)                                                                               \
    {                                                                                              \
        slot##n##_get_device_info, slot##n##_get_device_ids, slot##n##_create_kernel,              \
            slot##n##_create_kernels_in_program, slot##n##_clone_kernel, slot##n##_release_kernel, \
            slot##n##_finish, slot##n##_wait_for_events, slot##n##_get_event_info,                 \
            slot##n##_read_buffer, slot##n##_write_buffer, slot##n##_map_buffer                    \
    }

static const struct overrides slots[MAX_LOADERS] = {OVERRIDES(0), OVERRIDES(1), OVERRIDES(2), OVERRIDES(3)};

static cl_int init_layer(cl_uint num_entries, const cl_icd_dispatch *target, cl_uint *num_entries_ret,
                         const cl_icd_dispatch **layer_dispatch_ret)
{
    cl_icd_dispatch *table;
    size_t size;
    int slot;

    /* Every entry the overrides call must exist in the loader's table. */
    if (!target || !num_entries_ret || !layer_dispatch_ret || num_entries <= ENTRY(clEnqueueMapBuffer))
        return CL_INVALID_VALUE;
    slot = __atomic_fetch_add(&loaders_seen, 1, __ATOMIC_ACQ_REL);
    if (slot >= MAX_LOADERS)
        return CL_OUT_OF_RESOURCES;
    /* A newer loader's table may be longer than ours: copy all of it. */
    size = num_entries * sizeof(void *);
    table = calloc(1, size > sizeof *table ? size : sizeof *table);
    if (!table)
        return CL_OUT_OF_RESOURCES;
    memcpy(table, target, size);
    __atomic_store_n(&targets[slot], target, __ATOMIC_RELEASE);

    table->clGetDeviceInfo = slots[slot].get_device_info;
    table->clGetDeviceIDs = slots[slot].get_device_ids;
    table->clCreateKernel = slots[slot].create_kernel;
    table->clCreateKernelsInProgram = slots[slot].create_kernels_in_program;
    table->clReleaseKernel = slots[slot].release_kernel;
    table->clFinish = slots[slot].finish;
    table->clWaitForEvents = slots[slot].wait_for_events;
    table->clGetEventInfo = slots[slot].get_event_info;
    table->clEnqueueReadBuffer = slots[slot].read_buffer;
    table->clEnqueueWriteBuffer = slots[slot].write_buffer;
    table->clEnqueueMapBuffer = slots[slot].map_buffer;
    if (num_entries > ENTRY(clCloneKernel) && target->clCloneKernel)
        table->clCloneKernel = slots[slot].clone_kernel;

    *num_entries_ret = num_entries;
    *layer_dispatch_ret = table;
    return CL_SUCCESS;
}

EXPORT cl_int CL_API_CALL clGetLayerInfo(cl_layer_info name, size_t capacity, void *out, size_t *size_ret)
{
    switch (name) {
    case CL_LAYER_API_VERSION: {
        cl_layer_api_version version = CL_LAYER_API_VERSION_100;
        return answer(&version, sizeof version, capacity, out, size_ret);
    }
    case CL_LAYER_NAME:
        return answer(LAYER_NAME, sizeof LAYER_NAME, capacity, out, size_ret);
    default:
        return CL_INVALID_VALUE;
    }
}

EXPORT cl_int CL_API_CALL clInitLayer(cl_uint num_entries, const cl_icd_dispatch *target_dispatch,
                                      cl_uint *num_entries_ret, const cl_icd_dispatch **layer_dispatch_ret)
{
    return init_layer(num_entries, target_dispatch, num_entries_ret, layer_dispatch_ret);
}

EXPORT cl_int CL_API_CALL clInitLayerWithProperties(cl_uint num_entries, const cl_icd_dispatch *target_dispatch,
                                                    cl_uint *num_entries_ret,
                                                    const cl_icd_dispatch **layer_dispatch_ret,
                                                    const cl_layer_properties *properties)
{
    /* No property is defined for this layer. */
    if (properties && properties[0] != CL_LAYER_PROPERTIES_LIST_END)
        return CL_INVALID_PROPERTY;
    return init_layer(num_entries, target_dispatch, num_entries_ret, layer_dispatch_ret);
}

/* The tables stay valid until the process ends: a loader may still forward a
 * call made during its own teardown. */
EXPORT cl_int CL_API_CALL clDeinitLayer(void)
{
    return CL_SUCCESS;
}
