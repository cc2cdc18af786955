/* TEST-ONLY oneDNN stand-in (not oneDNN, never shipped): the OpenCL part.
 *
 * The 14 dnnl_ocl_interop_* functions, and every helper of the core that has
 * to talk to OpenCL. The objects are real: cl_device_id, cl_context,
 * cl_command_queue, cl_mem and cl_event come from pyopencl (PoCL, Intel's CPU
 * runtime) and are used through the ICD loader the library links against.
 *
 * Deliberate differences from real oneDNN (see README.md):
 *   - any OpenCL device is accepted (real oneDNN: Intel GPUs only); the
 *     engine is still a GPU engine;
 *   - USM is offered only where the device lists
 *     cl_intel_unified_shared_memory (Intel's CPU runtime, not PoCL);
 *   - execution honours dependencies on in-order queues as well (real
 *     oneDNN's kernels ignore them there), and is complete on return. */

#include <stdlib.h>
#include <string.h>

#include "standin.h"

/* ==========================================================================
 * Errors and queries
 * ========================================================================== */

/* oneDNN's mapping (xpu/ocl/utils_shared.cpp): resource and memory errors
 * give 1, the CL_INVALID_* block gives 2 except CL_INVALID_PLATFORM and
 * CL_INVALID_DEVICE, and everything else (other errors, unknown and
 * extension codes) gives 5. */
dnnl_status_t status_from_cl(cl_int err) {
    switch (err) {
        case CL_SUCCESS: return dnnl_success;
        case CL_MEM_OBJECT_ALLOCATION_FAILURE:
        case CL_OUT_OF_RESOURCES:
        case CL_OUT_OF_HOST_MEMORY: return dnnl_out_of_memory;
        case CL_INVALID_PLATFORM:
        case CL_INVALID_DEVICE: return dnnl_runtime_error;
        default:
            if (err <= CL_INVALID_VALUE
                    && err >= CL_MAX_SIZE_RESTRICTION_EXCEEDED)
                return dnnl_invalid_arguments;
            return dnnl_runtime_error;
    }
}

#define CL_CHECK(call) \
    do { \
        cl_int cl_check_err_ = (call); \
        if (cl_check_err_ != CL_SUCCESS) return status_from_cl(cl_check_err_); \
    } while (0)

/* A string property, with the size OpenCL reports (terminating NUL
 * included): the blob ID stores exactly those bytes. Caller frees *value. */
static dnnl_status_t get_string_info(int is_platform, void *object,
        cl_uint what, char **value, size_t *size) {
    cl_int err;
    *value = NULL;
    *size = 0;
    err = is_platform ? clGetPlatformInfo(object, what, 0, NULL, size)
                      : clGetDeviceInfo(object, what, 0, NULL, size);
    if (err != CL_SUCCESS) return status_from_cl(err);
    *value = calloc(1, *size + 1); /* + 1: NUL even if the runtime omits it */
    if (!*value) return dnnl_out_of_memory;
    err = is_platform ? clGetPlatformInfo(object, what, *size, *value, NULL)
                      : clGetDeviceInfo(object, what, *size, *value, NULL);
    if (err != CL_SUCCESS) {
        free(*value);
        *value = NULL;
        return status_from_cl(err);
    }
    return dnnl_success;
}

/* Whether name is one of the space-separated words of list. */
static int has_word(const char *list, const char *name) {
    const size_t length = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += length) {
        const int starts = p == list || p[-1] == ' ';
        const int ends = p[length] == '\0' || p[length] == ' ';
        if (starts && ends) return 1;
    }
    return 0;
}

/* ==========================================================================
 * Engines
 * ========================================================================== */

/* oneDNN's check_device: the device must be one of the context's. (oneDNN
 * then also requires an Intel GPU; the stand-in takes any device.) */
static dnnl_status_t check_device_in_context(
        cl_device_id device, cl_context context) {
    size_t size = 0;
    CL_CHECK(clGetContextInfo(context, CL_CONTEXT_DEVICES, 0, NULL, &size));
    cl_device_id *devices = malloc(size ? size : 1);
    if (!devices) return dnnl_out_of_memory;
    cl_int err = clGetContextInfo(
            context, CL_CONTEXT_DEVICES, size, devices, NULL);
    int found = 0;
    for (size_t i = 0; err == CL_SUCCESS && i < size / sizeof(*devices); i++)
        found |= devices[i] == device;
    free(devices);
    if (err != CL_SUCCESS) return status_from_cl(err);
    return found ? dnnl_success : dnnl_invalid_arguments;
}

/* USM support: the extension word, and all four functions found. */
static void load_usm_api(dnnl_engine_t engine, const char *extensions) {
    engine->ocl.has_usm = 0;
    if (!has_word(extensions, CL_INTEL_USM_EXTENSION_NAME)) return;
    cl_platform_id platform = NULL;
    if (clGetDeviceInfo(engine->ocl.device, CL_DEVICE_PLATFORM,
                sizeof(platform), &platform, NULL)
            != CL_SUCCESS)
        return;
    standin_usm_api_t *usm = &engine->ocl.usm;
#define LOOKUP(field, name) \
    usm->field = (name##_fn)clGetExtensionFunctionAddressForPlatform( \
            platform, #name)
    LOOKUP(device_mem_alloc, clDeviceMemAllocINTEL);
    LOOKUP(mem_blocking_free, clMemBlockingFreeINTEL);
    LOOKUP(get_mem_alloc_info, clGetMemAllocInfoINTEL);
    LOOKUP(enqueue_memcpy, clEnqueueMemcpyINTEL);
#undef LOOKUP
    engine->ocl.has_usm = usm->device_mem_alloc && usm->mem_blocking_free
            && usm->get_mem_alloc_info && usm->enqueue_memcpy;
}

/* The device info blob of an OpenCL device (format: dnnl_standin.c). */
static dnnl_status_t build_device_info(
        dnnl_engine_t engine, byte_stream_t *bs) {
    cl_device_id device = engine->ocl.device;
    standin_device_info_t info;
    memset(&info, 0, sizeof(info));
    info.runtime = 1;
    size_t work_group = 0;
    CL_CHECK(clGetDeviceInfo(device, CL_DEVICE_GLOBAL_MEM_SIZE,
            sizeof(info.global_mem_size), &info.global_mem_size, NULL));
    CL_CHECK(clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
            sizeof(info.max_mem_alloc_size), &info.max_mem_alloc_size, NULL));
    CL_CHECK(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
            sizeof(work_group), &work_group, NULL));
    CL_CHECK(clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS,
            sizeof(info.max_compute_units), &info.max_compute_units, NULL));
    CL_CHECK(clGetDeviceInfo(device, CL_DEVICE_ADDRESS_BITS,
            sizeof(info.address_bits), &info.address_bits, NULL));
    info.max_work_group_size = work_group;
    info.has_usm = (uint8_t)engine->ocl.has_usm;

    char *name;
    size_t name_size;
    dnnl_status_t status
            = get_string_info(0, device, CL_DEVICE_NAME, &name, &name_size);
    if (status != dnnl_success) return status;
    info.name = name;
    serialize_device_info(bs, &info);
    free(name);
    return bs->failed ? dnnl_out_of_memory : dnnl_success;
}

/* Shared by engine_create and engine_create_from_cache_blob (blob NULL for
 * the former). Arguments are already checked for NULL. */
static dnnl_status_t ocl_engine_create(dnnl_engine_t *engine,
        cl_device_id device, cl_context context, const uint8_t *blob,
        size_t blob_size) {
    dnnl_status_t status = check_device_in_context(device, context);
    if (status != dnnl_success) return status;

    dnnl_engine_t result = engine_new(RUNTIME_OCL);
    if (!result) return dnnl_out_of_memory;
    /* Retained here, released by ocl_engine_destroy: set each field only
     * once its reference is held, so engine_release undoes exactly that. */
    cl_int err = clRetainDevice(device);
    if (err == CL_SUCCESS) {
        result->ocl.device = device;
        err = clRetainContext(context);
    }
    if (err == CL_SUCCESS) result->ocl.context = context;

    char *extensions = NULL;
    size_t extensions_size;
    status = status_from_cl(err);
    if (status == dnnl_success)
        status = get_string_info(0, device, CL_DEVICE_EXTENSIONS, &extensions,
                &extensions_size);
    if (status == dnnl_success) {
        load_usm_api(result, extensions);
        if (blob) { /* kept only if the device has no info yet */
            status = device_info_attach(result, device, blob, blob_size);
        } else {
            byte_stream_t bs = {0};
            status = build_device_info(result, &bs);
            if (status == dnnl_success)
                status = device_info_attach(result, device, bs.data, bs.size);
            bs_free(&bs);
        }
    }
    free(extensions);
    if (status != dnnl_success) {
        engine_release(result);
        return status;
    }
    *engine = result;
    return dnnl_success;
}

void ocl_engine_destroy(dnnl_engine_t engine) {
    if (engine->ocl.map_queue) clReleaseCommandQueue(engine->ocl.map_queue);
    if (engine->ocl.context) clReleaseContext(engine->ocl.context);
    if (engine->ocl.device) clReleaseDevice(engine->ocl.device);
}

static int is_ocl_engine(const void *engine) {
    return is_engine(engine)
            && ((const struct dnnl_engine *)engine)->runtime == RUNTIME_OCL;
}

dnnl_status_t DNNL_API dnnl_ocl_interop_engine_create(
        dnnl_engine_t *engine, cl_device_id device, cl_context context) {
    if (!engine || !device || !context) return dnnl_invalid_arguments;
    return ocl_engine_create(engine, device, context, NULL, 0);
}

dnnl_status_t DNNL_API dnnl_ocl_interop_engine_create_from_cache_blob(
        dnnl_engine_t *engine, cl_device_id device, cl_context context,
        size_t size, const uint8_t *cache_blob) {
    if (!engine || !device || !context || !cache_blob || size == 0)
        return dnnl_invalid_arguments;
    return ocl_engine_create(engine, device, context, cache_blob, size);
}

dnnl_status_t DNNL_API dnnl_ocl_interop_engine_get_context(
        dnnl_engine_t engine, cl_context *context) {
    if (!is_ocl_engine(engine) || !context) return dnnl_invalid_arguments;
    *context = engine->ocl.context; /* not retained */
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_ocl_interop_get_device(
        dnnl_engine_t engine, cl_device_id *device) {
    if (!is_ocl_engine(engine) || !device) return dnnl_invalid_arguments;
    *device = engine->ocl.device; /* not retained */
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_ocl_interop_engine_get_cache_blob(
        dnnl_engine_t engine, size_t *size, uint8_t *cache_blob) {
    return gpu_engine_get_cache_blob(engine, size, cache_blob);
}

/* Byte for byte oneDNN's layout, recomputed on every call:
 *   [size_t n][platform name, NUL included]
 *   [size_t n][device name, NUL included]
 *   [size_t n][driver version, NUL included]
 *   int major, minor, patch
 *   [size_t n][hash, no NUL]
 * Only the hash differs from real oneDNN's ID (the version is the same). */
dnnl_status_t DNNL_API dnnl_ocl_interop_engine_get_cache_blob_id(
        cl_device_id device, size_t *size, uint8_t *cache_blob_id) {
    if (!size) return dnnl_invalid_arguments;
    /* oneDNN passes the device to OpenCL unchecked; a NULL one gives
     * CL_INVALID_DEVICE, i.e. 5, and *size stays untouched. */
    if (!device) return status_from_cl(CL_INVALID_DEVICE);

    cl_platform_id platform = NULL;
    CL_CHECK(clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof(platform),
            &platform, NULL));
    char *strings[3] = {NULL, NULL, NULL};
    size_t sizes[3] = {0, 0, 0};
    dnnl_status_t status = get_string_info(
            1, platform, CL_PLATFORM_NAME, &strings[0], &sizes[0]);
    if (status == dnnl_success)
        status = get_string_info(
                0, device, CL_DEVICE_NAME, &strings[1], &sizes[1]);
    if (status == dnnl_success)
        status = get_string_info(
                0, device, CL_DRIVER_VERSION, &strings[2], &sizes[2]);

    if (status == dnnl_success) {
        const dnnl_version_t *version = dnnl_version();
        byte_stream_t bs = {0};
        for (int i = 0; i < 3; i++)
            bs_append_array(&bs, sizes[i], strings[i]);
        bs_append(&bs, &version->major, sizeof(version->major));
        bs_append(&bs, &version->minor, sizeof(version->minor));
        bs_append(&bs, &version->patch, sizeof(version->patch));
        bs_append_array(&bs, strlen(version->hash), version->hash);
        status = bs.failed ? dnnl_out_of_memory
                           : copy_out_exact(bs.data, bs.size, size,
                                   cache_blob_id);
        bs_free(&bs);
    }
    for (int i = 0; i < 3; i++)
        free(strings[i]);
    return status;
}

/* The engine's own in-order queue for map/unmap, created on first use and
 * released with the engine. */
static dnnl_status_t engine_map_queue(
        dnnl_engine_t engine, cl_command_queue *queue) {
    cl_int err = CL_SUCCESS;
    pthread_mutex_lock(&engine->lock);
    if (!engine->ocl.map_queue)
        engine->ocl.map_queue = clCreateCommandQueue(
                engine->ocl.context, engine->ocl.device, 0, &err);
    *queue = engine->ocl.map_queue;
    pthread_mutex_unlock(&engine->lock);
    return status_from_cl(err);
}

/* ==========================================================================
 * Memory
 * ========================================================================== */

static cl_unified_shared_memory_type_intel usm_pointer_type(
        dnnl_engine_t engine, const void *ptr) {
    cl_unified_shared_memory_type_intel type = CL_MEM_TYPE_UNKNOWN_INTEL;
    if (engine->ocl.usm.get_mem_alloc_info(engine->ocl.context, ptr,
                CL_MEM_ALLOC_TYPE_INTEL, sizeof(type), &type, NULL)
            != CL_SUCCESS)
        return CL_MEM_TYPE_UNKNOWN_INTEL;
    return type;
}

/* kind 0 (dnnl_ocl_interop_usm) selects USM, any other value a buffer.
 *   buffer: NONE -> no buffer; ALLOCATE -> clCreateBuffer(READ_WRITE), none
 *           for size 0; a cl_mem -> retained (released on destroy or
 *           replacement), not checked against the engine's context.
 *   USM:    NONE -> NULL; ALLOCATE -> device USM, owned; a pointer -> must be
 *           a USM allocation of the engine's context (else 2), not owned.
 *           Without cl_intel_unified_shared_memory: ALLOCATE gives 3, a
 *           pointer 2 (its type is unknown). */
static dnnl_status_t ocl_memory_create(dnnl_memory_t *memory,
        const_dnnl_memory_desc_t md, dnnl_engine_t engine,
        dnnl_ocl_interop_memory_kind_t kind, void *handle) {
    if (!memory || !md || !engine) return dnnl_invalid_arguments;
    if (!is_ocl_engine(engine)) return dnnl_invalid_arguments;
    dnnl_status_t status = check_md_for_memory(md);
    if (status != dnnl_success) return status;

    const size_t size = md_size(md);
    const int usm = kind == dnnl_ocl_interop_usm;
    void *data = NULL;
    int owned = 0;
    cl_int err = CL_SUCCESS;
    if (handle == DNNL_MEMORY_NONE) {
        /* no storage yet */
    } else if (usm && !engine->ocl.has_usm) {
        return handle == DNNL_MEMORY_ALLOCATE ? dnnl_unimplemented
                                              : dnnl_invalid_arguments;
    } else if (usm && handle == DNNL_MEMORY_ALLOCATE) {
        if (size) {
            data = engine->ocl.usm.device_mem_alloc(engine->ocl.context,
                    engine->ocl.device, NULL, size, 0, &err);
            if (err != CL_SUCCESS) return status_from_cl(err);
            owned = 1;
        }
    } else if (usm) {
        if (usm_pointer_type(engine, handle) == CL_MEM_TYPE_UNKNOWN_INTEL)
            return dnnl_invalid_arguments;
        data = handle;
    } else if (handle == DNNL_MEMORY_ALLOCATE) {
        if (size) {
            data = clCreateBuffer(engine->ocl.context, CL_MEM_READ_WRITE, size,
                    NULL, &err);
            if (err != CL_SUCCESS) return status_from_cl(err);
        }
    } else {
        CL_CHECK(clRetainMemObject((cl_mem)handle));
        data = handle;
    }

    dnnl_memory_t result = memory_new(
            engine, md, usm ? STORAGE_OCL_USM : STORAGE_OCL_BUFFER);
    if (!result) {
        if (data && !usm) clReleaseMemObject((cl_mem)data);
        if (owned) engine->ocl.usm.mem_blocking_free(engine->ocl.context, data);
        return dnnl_out_of_memory;
    }
    result->handle = data;
    result->owned = owned;
    *memory = result;
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_ocl_interop_memory_create(dnnl_memory_t *memory,
        const_dnnl_memory_desc_t memory_desc, dnnl_engine_t engine,
        dnnl_ocl_interop_memory_kind_t memory_kind, void *handle) {
    return ocl_memory_create(memory, memory_desc, engine, memory_kind, handle);
}

/* Plain descriptors have one buffer: handles[0] is used, further handles
 * are ignored (oneDNN does not check nhandles against the md either). */
dnnl_status_t DNNL_API dnnl_ocl_interop_memory_create_v2(dnnl_memory_t *memory,
        const_dnnl_memory_desc_t memory_desc, dnnl_engine_t engine,
        dnnl_ocl_interop_memory_kind_t memory_kind, int nhandles,
        void **handles) {
    if (!memory || !memory_desc || !engine) return dnnl_invalid_arguments;
    if (!handles || nhandles <= 0) return dnnl_invalid_arguments;
    return ocl_memory_create(
            memory, memory_desc, engine, memory_kind, handles[0]);
}

static int is_ocl_memory(const void *memory) {
    return is_memory(memory)
            && ((const struct dnnl_memory *)memory)->engine->runtime
            == RUNTIME_OCL;
}

dnnl_status_t DNNL_API dnnl_ocl_interop_memory_get_memory_kind(
        const_dnnl_memory_t memory,
        dnnl_ocl_interop_memory_kind_t *memory_kind) {
    if (!is_ocl_memory(memory) || !memory_kind) return dnnl_invalid_arguments;
    *memory_kind = memory->storage == STORAGE_OCL_USM ? dnnl_ocl_interop_usm
                                                      : dnnl_ocl_interop_buffer;
    return dnnl_success;
}

/* Un-retained. As in oneDNN: NULL memory -> success and NULL; the kind is
 * not checked, so USM memory answers its pointer. */
dnnl_status_t DNNL_API dnnl_ocl_interop_memory_get_mem_object(
        const_dnnl_memory_t memory, cl_mem *mem_object) {
    if (!mem_object) return dnnl_invalid_arguments;
    if (!memory) {
        *mem_object = NULL;
        return dnnl_success;
    }
    if (!is_ocl_memory(memory)) return dnnl_invalid_arguments;
    *mem_object = (cl_mem)memory->handle;
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_ocl_interop_memory_set_mem_object(
        dnnl_memory_t memory, cl_mem mem_object) {
    if (!is_ocl_memory(memory)) return dnnl_invalid_arguments;
    return ocl_memory_set_handle(memory, mem_object);
}

static void drop_usm_map_shadow(dnnl_memory_t memory) {
    free(memory->usm_map_shadow);
    memory->usm_map_shadow = NULL;
}

/* Buffer memory: the same cl_mem again is a no-op; otherwise the new one is
 * retained and the old released; NULL clears. DNNL_MEMORY_ALLOCATE is
 * refused with 2 (real oneDNN would retain it as a cl_mem). USM memory: the
 * pointer is stored unchecked and not owned; an owned allocation is freed. */
dnnl_status_t ocl_memory_set_handle(dnnl_memory_t memory, void *handle) {
    if (handle == memory->handle) return dnnl_success;
    if (memory->storage == STORAGE_OCL_BUFFER) {
        if (handle == DNNL_MEMORY_ALLOCATE) return dnnl_invalid_arguments;
        if (handle) CL_CHECK(clRetainMemObject((cl_mem)handle));
    }
    ocl_memory_release_storage(memory); /* the old buffer or owned allocation */
    memory->handle = handle;
    return dnnl_success;
}

void ocl_memory_release_storage(dnnl_memory_t memory) {
    if (memory->storage == STORAGE_OCL_BUFFER) {
        if (memory->handle) clReleaseMemObject((cl_mem)memory->handle);
    } else {
        drop_usm_map_shadow(memory);
        if (memory->owned)
            memory->engine->ocl.usm.mem_blocking_free(
                    memory->engine->ocl.context, memory->handle);
    }
    memory->handle = NULL;
    memory->owned = 0;
}

/* Buffers: a blocking clEnqueueMapBuffer (read + write) of the descriptor's
 * size on the engine's queue. USM: host and shared allocations are their
 * own mapping; device USM is copied to a host shadow, copied back by unmap.
 * No storage, or size 0: NULL. */
dnnl_status_t ocl_memory_map(dnnl_memory_t memory, void **mapped_ptr) {
    const size_t size = md_size(&memory->md);
    dnnl_engine_t engine = memory->engine;
    *mapped_ptr = NULL;
    if (!memory->handle || size == 0) return dnnl_success;

    cl_command_queue queue;
    if (memory->storage == STORAGE_OCL_USM) {
        if (!engine->ocl.has_usm
                || usm_pointer_type(engine, memory->handle)
                        != CL_MEM_TYPE_DEVICE_INTEL) {
            *mapped_ptr = memory->handle;
            return dnnl_success;
        }
        if (!memory->usm_map_shadow) {
            dnnl_status_t status = engine_map_queue(engine, &queue);
            if (status != dnnl_success) return status;
            void *shadow = host_alloc(size);
            if (!shadow) return dnnl_out_of_memory;
            cl_int err = engine->ocl.usm.enqueue_memcpy(queue, CL_TRUE, shadow,
                    memory->handle, size, 0, NULL, NULL);
            if (err != CL_SUCCESS) {
                free(shadow);
                return status_from_cl(err);
            }
            memory->usm_map_shadow = shadow;
        }
        *mapped_ptr = memory->usm_map_shadow;
        return dnnl_success;
    }

    dnnl_status_t status = engine_map_queue(engine, &queue);
    if (status != dnnl_success) return status;
    cl_int err = CL_SUCCESS;
    void *ptr = clEnqueueMapBuffer(queue, (cl_mem)memory->handle, CL_TRUE,
            CL_MAP_READ | CL_MAP_WRITE, 0, size, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS) return status_from_cl(err);
    *mapped_ptr = ptr;
    return dnnl_success;
}

/* Buffers: unmapped and finished on the engine's queue. USM: only the host
 * shadow of device USM has anything to write back. */
dnnl_status_t ocl_memory_unmap(dnnl_memory_t memory, void *mapped_ptr) {
    if (!mapped_ptr || !memory->handle) return dnnl_success;
    if (memory->storage == STORAGE_OCL_USM
            && mapped_ptr != memory->usm_map_shadow)
        return dnnl_success;
    cl_command_queue queue;
    dnnl_status_t status = engine_map_queue(memory->engine, &queue);
    if (status != dnnl_success) return status;

    if (memory->storage == STORAGE_OCL_USM) {
        cl_int err = memory->engine->ocl.usm.enqueue_memcpy(queue, CL_TRUE,
                memory->handle, mapped_ptr, md_size(&memory->md), 0, NULL,
                NULL);
        drop_usm_map_shadow(memory);
        return status_from_cl(err);
    }
    CL_CHECK(clEnqueueUnmapMemObject(
            queue, (cl_mem)memory->handle, mapped_ptr, 0, NULL, NULL));
    CL_CHECK(clFinish(queue));
    return dnnl_success;
}

/* ==========================================================================
 * Streams
 * ========================================================================== */

/* The queue must belong to the engine's device and context (compared by
 * pointer, as oneDNN does). It is retained until the stream is destroyed;
 * its out-of-order property sets the stream's order. The stream does not
 * retain the engine. */
dnnl_status_t DNNL_API dnnl_ocl_interop_stream_create(
        dnnl_stream_t *stream, dnnl_engine_t engine, cl_command_queue queue) {
    if (!stream || !is_ocl_engine(engine) || !queue)
        return dnnl_invalid_arguments;
    cl_device_id device = NULL;
    cl_context context = NULL;
    cl_command_queue_properties properties = 0;
    CL_CHECK(clGetCommandQueueInfo(
            queue, CL_QUEUE_DEVICE, sizeof(device), &device, NULL));
    CL_CHECK(clGetCommandQueueInfo(
            queue, CL_QUEUE_CONTEXT, sizeof(context), &context, NULL));
    CL_CHECK(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES,
            sizeof(properties), &properties, NULL));
    if (device != engine->ocl.device || context != engine->ocl.context)
        return dnnl_invalid_arguments;

    dnnl_stream_t result = stream_new(engine,
            (properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
                    ? dnnl_stream_out_of_order
                    : dnnl_stream_in_order);
    if (!result) return dnnl_out_of_memory;
    cl_int err = clRetainCommandQueue(queue);
    if (err != CL_SUCCESS) {
        free(result);
        return status_from_cl(err);
    }
    result->queue = queue;
    *stream = result;
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_ocl_interop_stream_get_command_queue(
        dnnl_stream_t stream, cl_command_queue *queue) {
    if (!is_stream(stream) || stream->runtime != RUNTIME_OCL || !queue)
        return dnnl_invalid_arguments;
    *queue = stream->queue; /* not retained */
    return dnnl_success;
}

/* dnnl_stream_create on an OpenCL engine: a queue of its own, with the
 * stream's order. */
dnnl_status_t ocl_stream_create_own_queue(dnnl_stream_t stream) {
    cl_int err = CL_SUCCESS;
    const cl_command_queue_properties properties
            = (stream->flags & dnnl_stream_out_of_order)
            ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
            : 0;
    stream->queue = clCreateCommandQueue(stream->engine->ocl.context,
            stream->engine->ocl.device, properties, &err);
    return status_from_cl(err);
}

dnnl_status_t ocl_stream_wait(dnnl_stream_t stream) {
    return status_from_cl(clFinish(stream->queue));
}

void ocl_stream_destroy(dnnl_stream_t stream) {
    if (stream->queue) clReleaseCommandQueue(stream->queue);
}

/* ==========================================================================
 * Execution (the reorder itself is in dnnl_standin.c)
 * ========================================================================== */

/* A blocking read that waits for deps first: after it, the dependencies are
 * complete and the source is on the host. */
dnnl_status_t ocl_read(dnnl_stream_t stream, dnnl_memory_t memory, void *host,
        size_t size, int ndeps, const cl_event *deps) {
    if (memory->storage == STORAGE_OCL_BUFFER)
        return status_from_cl(clEnqueueReadBuffer(stream->queue,
                (cl_mem)memory->handle, CL_TRUE, 0, size, host, (cl_uint)ndeps,
                ndeps ? deps : NULL, NULL));
    if (!memory->engine->ocl.has_usm) return dnnl_unimplemented;
    return status_from_cl(memory->engine->ocl.usm.enqueue_memcpy(stream->queue,
            CL_TRUE, host, memory->handle, size, (cl_uint)ndeps,
            ndeps ? deps : NULL, NULL));
}

dnnl_status_t ocl_write(dnnl_stream_t stream, dnnl_memory_t memory,
        const void *host, size_t size) {
    if (memory->storage == STORAGE_OCL_BUFFER)
        return status_from_cl(clEnqueueWriteBuffer(stream->queue,
                (cl_mem)memory->handle, CL_TRUE, 0, size, host, 0, NULL, NULL));
    if (!memory->engine->ocl.has_usm) return dnnl_unimplemented;
    return status_from_cl(memory->engine->ocl.usm.enqueue_memcpy(stream->queue,
            CL_TRUE, memory->handle, host, size, 0, NULL, NULL));
}

/* Nothing to transfer (size 0): still honour the dependencies. */
dnnl_status_t ocl_wait_events(int ndeps, const cl_event *deps) {
    if (ndeps == 0) return dnnl_success;
    return status_from_cl(clWaitForEvents((cl_uint)ndeps, deps));
}

/* The event an out-of-order stream returns: a marker enqueued after the
 * reorder's commands (it completes when they have). The caller owns its one
 * reference and must release it. */
dnnl_status_t ocl_output_event(dnnl_stream_t stream, cl_event *event) {
    cl_event marker = NULL;
    CL_CHECK(clEnqueueMarkerWithWaitList(stream->queue, 0, NULL, &marker));
    *event = marker;
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_ocl_interop_primitive_execute(
        const_dnnl_primitive_t primitive, dnnl_stream_t stream, int nargs,
        const dnnl_exec_arg_t *args, const cl_event *deps, int ndeps,
        cl_event *return_event) {
    return execute(EXEC_OCL, primitive, stream, nargs, args, ndeps, deps,
            return_event, NULL);
}
