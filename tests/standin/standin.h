/* Internal declarations shared by the files of the oneDNN stand-in.
 *
 * TEST-ONLY: see dnnl_standin.c for what the stand-in is and is not. This
 * header defines the objects behind oneDNN's opaque handles and the helpers
 * the runtime-specific files (standin_ocl.c, standin_ze.c) share with the
 * core (dnnl_standin.c). Nothing here is exported from the library. */

#ifndef DNNL_STANDIN_H
#define DNNL_STANDIN_H

/* Only functions declared DNNL_API are exported (the build uses
 * -fvisibility=hidden). The trimmed dnnl_config.h does not define DNNL_API. */
#ifndef DNNL_API
#define DNNL_API __attribute__((visibility("default")))
#endif

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "dnnl.h"
#include "dnnl_ocl.h"
#include "dnnl_ze.h"

#include "cl_subset.h"

/* --- version ----------------------------------------------------------------
 * The stand-in reports the version of the oneDNN whose API it implements, but
 * never the real build's git hash: a blob ID made here can never be mistaken
 * for one made by real oneDNN. */

#define STANDIN_VERSION_MAJOR 3
#define STANDIN_VERSION_MINOR 13
#define STANDIN_VERSION_PATCH 2
#define STANDIN_HASH "dnnl-interop-standin"

/* --- object tags ------------------------------------------------------------
 * Every object starts with a magic number, so a handle of the wrong type (a
 * stream where an engine is expected, a freed object) is answered with
 * dnnl_invalid_arguments instead of being used. */

typedef enum {
    MAGIC_ENGINE = 0x53454e47, /* "SENG" */
    MAGIC_STREAM = 0x53535452, /* "SSTR" */
    MAGIC_MEMORY_DESC = 0x534d4444, /* "SMDD" */
    MAGIC_MEMORY = 0x534d454d, /* "SMEM" */
    MAGIC_PRIMITIVE_DESC = 0x53504444, /* "SPDD" */
    MAGIC_PRIMITIVE = 0x53505249, /* "SPRI" */
    MAGIC_DEAD = 0x44454144, /* "DEAD": written just before free() */
} standin_magic_t;

/* The runtime behind an engine, and so behind its streams and memories. */
typedef enum {
    RUNTIME_CPU, /* host memory, synchronous execution */
    RUNTIME_OCL, /* real OpenCL objects; treated as a GPU engine */
    RUNTIME_ZE, /* fake Level Zero: opaque handles, host memory */
} standin_runtime_t;

/* --- memory descriptors -------------------------------------------------- */

typedef enum {
    MD_ZERO, /* ndims == 0: the empty descriptor, size 0 */
    MD_ANY, /* dnnl_format_tag_any / undef: no layout yet, size 0 */
    MD_PLAIN, /* a permutation of dims, dense */
} standin_md_kind_t;

struct dnnl_memory_desc {
    uint32_t magic;
    int embedded; /* 1: a memory's own copy, not destroyable by the user */
    standin_md_kind_t kind;
    int ndims;
    dnnl_dims_t dims;
    dnnl_data_type_t data_type;
    dnnl_format_tag_t tag;
    /* MD_PLAIN only: perm[k] = the logical dimension stored k-th from the
     * outside (tag "acb": 0, 2, 1); strides[d] in elements. */
    int perm[DNNL_MAX_NDIMS];
    dnnl_dim_t strides[DNNL_MAX_NDIMS];
};

size_t md_size(const struct dnnl_memory_desc *md);
int is_md(const void *object);

/* --- engines ------------------------------------------------------------- */

/* Functions of cl_intel_unified_shared_memory, found per platform. */
typedef struct {
    clDeviceMemAllocINTEL_fn device_mem_alloc;
    clMemBlockingFreeINTEL_fn mem_blocking_free;
    clGetMemAllocInfoINTEL_fn get_mem_alloc_info;
    clEnqueueMemcpyINTEL_fn enqueue_memcpy;
} standin_usm_api_t;

struct dnnl_engine {
    uint32_t magic;
    standin_runtime_t runtime;
    int refcount; /* user handle + each memory, primitive desc, primitive */
    pthread_mutex_t lock; /* guards the lazily created map queue */
    uint8_t *cache_blob; /* GPU engines: the device info blob (own copy) */
    size_t cache_blob_size;
    struct {
        cl_device_id device; /* retained */
        cl_context context; /* retained */
        cl_command_queue map_queue; /* in-order, for map/unmap; lazy, owned */
        int has_usm; /* the device lists cl_intel_unified_shared_memory */
        standin_usm_api_t usm;
    } ocl;
    struct { /* fake Level Zero: raw handles, never dereferenced or owned */
        ze_driver_handle_t driver;
        ze_device_handle_t device;
        ze_context_handle_t context;
    } ze;
};

int is_engine(const void *object);
dnnl_engine_t engine_new(standin_runtime_t runtime); /* refcount 1 */
void engine_retain(dnnl_engine_t engine);
void engine_release(dnnl_engine_t engine);

/* Both interop get_cache_blob functions (any GPU engine). */
dnnl_status_t gpu_engine_get_cache_blob(
        dnnl_engine_t engine, size_t *size, uint8_t *cache_blob);

/* --- streams ------------------------------------------------------------- */

struct dnnl_stream {
    uint32_t magic;
    /* NOT retained, as in oneDNN: the user keeps the engine alive. Only
     * compared by address at execution; everything the stream itself needs
     * is copied below. */
    dnnl_engine_t engine;
    standin_runtime_t runtime;
    unsigned flags; /* dnnl_stream_in_order or dnnl_stream_out_of_order */
    cl_command_queue queue; /* OCL: one reference held (user's or own) */
    ze_command_list_handle_t list; /* ZE: raw, not owned */
};

int is_stream(const void *object);
dnnl_stream_t stream_new(dnnl_engine_t engine, unsigned flags);

/* --- memory objects -------------------------------------------------------- */

typedef enum {
    STORAGE_HOST, /* CPU and ZE memory: a host pointer */
    STORAGE_OCL_BUFFER, /* a cl_mem; the memory holds one reference */
    STORAGE_OCL_USM, /* an Intel USM pointer */
} standin_storage_t;

struct dnnl_memory {
    uint32_t magic;
    dnnl_engine_t engine; /* retained */
    struct dnnl_memory_desc md; /* own copy, embedded */
    standin_storage_t storage;
    void *handle; /* host or USM pointer, or the cl_mem */
    int owned; /* host/USM: the stand-in allocated handle and frees it */
    void *usm_map_shadow; /* device USM mapped to the host: the host copy */
};

int is_memory(const void *object);
/* A new memory object without storage (handle NULL); retains the engine. */
dnnl_memory_t memory_new(dnnl_engine_t engine,
        const struct dnnl_memory_desc *md, standin_storage_t storage);
/* Frees a memory object whose storage was already released. */
void memory_free_object(dnnl_memory_t memory);
/* Checks an md for memory creation: 2 for NULL, any and foreign objects. */
dnnl_status_t check_md_for_memory(const struct dnnl_memory_desc *md);
/* Host memory: 64-byte aligned like oneDNN's CPU allocations. */
void *host_alloc(size_t size);
/* Creates host-storage memory (CPU and fake Level Zero engines) from the
 * handle argument of the create functions: ALLOCATE, NONE or a pointer. */
dnnl_status_t host_memory_create(dnnl_memory_t *memory,
        const struct dnnl_memory_desc *md, dnnl_engine_t engine, void *handle);

/* --- primitives (reorder only) ----------------------------------------------- */

struct dnnl_primitive_desc {
    uint32_t magic;
    dnnl_engine_t engine; /* retained */
    struct dnnl_memory_desc src, dst;
};

struct dnnl_primitive {
    uint32_t magic;
    dnnl_engine_t engine; /* retained */
    struct dnnl_memory_desc src, dst;
};

/* The common part of the three execute functions (validation, argument
 * collection, the reorder itself). ocl_ret/ze_ret: the interop functions'
 * return-event pointers (may be NULL). */
typedef enum { EXEC_GENERIC, EXEC_OCL, EXEC_ZE } standin_exec_api_t;
dnnl_status_t execute(standin_exec_api_t api, const_dnnl_primitive_t primitive,
        dnnl_stream_t stream, int nargs, const dnnl_exec_arg_t *args,
        int ndeps, const cl_event *ocl_deps, cl_event *ocl_ret,
        ze_event_handle_t *ze_ret);

/* Permutes plain src into plain dst (same dims and data type), host side. */
void permute_plain(const struct dnnl_memory_desc *src_md, const void *src,
        const struct dnnl_memory_desc *dst_md, void *dst);

/* --- byte streams and the exact-size protocol ---------------------------- */

typedef struct {
    uint8_t *data;
    size_t size;
    size_t capacity;
    int failed; /* an allocation failed: the content is incomplete */
} byte_stream_t;

void bs_append(byte_stream_t *bs, const void *data, size_t size);
/* [size_t length][bytes], as oneDNN's serialization_stream_t::append_array. */
void bs_append_array(byte_stream_t *bs, size_t size, const void *data);
void bs_free(byte_stream_t *bs);

/* The size-query / fill protocol of the blob functions: with out == NULL
 * write the size; otherwise *size must equal it exactly (else 2, nothing
 * written). */
dnnl_status_t copy_out_exact(
        const uint8_t *data, size_t data_size, size_t *size, uint8_t *out);

/* --- the process-wide device info cache -------------------------------------
 * Like oneDNN's: keyed by runtime and device handle (oneDNN keys OpenCL by
 * the cl_device_id pointer). The blob of a device is fixed by the first
 * engine made for it: built from the device, or the user's cache blob. */

/* Looks the device up; if absent, stores (blob, size) for it. Then gives the
 * engine its own copy of the cached blob. Returns 1 on out-of-memory. */
dnnl_status_t device_info_attach(dnnl_engine_t engine, const void *device,
        const uint8_t *blob, size_t size);
int device_info_cached(standin_runtime_t runtime, const void *device);

/* The stand-in's own device info blob format (see dnnl_standin.c). */
typedef struct {
    uint32_t runtime; /* 1 = OpenCL, 2 = fake Level Zero */
    uint64_t global_mem_size;
    uint64_t max_mem_alloc_size;
    uint64_t max_work_group_size;
    uint32_t max_compute_units;
    uint32_t address_bits;
    uint8_t has_usm;
    const char *name;
} standin_device_info_t;

void serialize_device_info(byte_stream_t *bs, const standin_device_info_t *info);

/* --- OpenCL helpers (standin_ocl.c) -------------------------------------- */

dnnl_status_t status_from_cl(cl_int err);
void ocl_engine_destroy(dnnl_engine_t engine);
dnnl_status_t ocl_stream_create_own_queue(dnnl_stream_t stream);
dnnl_status_t ocl_stream_wait(dnnl_stream_t stream);
void ocl_stream_destroy(dnnl_stream_t stream);
dnnl_status_t ocl_memory_set_handle(dnnl_memory_t memory, void *handle);
void ocl_memory_release_storage(dnnl_memory_t memory);
dnnl_status_t ocl_memory_map(dnnl_memory_t memory, void **mapped_ptr);
dnnl_status_t ocl_memory_unmap(dnnl_memory_t memory, void *mapped_ptr);
/* Reads size bytes of memory into host after the dependencies; writes them
 * back; returns the event an out-of-order stream hands back to the caller. */
dnnl_status_t ocl_read(dnnl_stream_t stream, dnnl_memory_t memory, void *host,
        size_t size, int ndeps, const cl_event *deps);
dnnl_status_t ocl_write(
        dnnl_stream_t stream, dnnl_memory_t memory, const void *host, size_t size);
dnnl_status_t ocl_wait_events(int ndeps, const cl_event *deps);
dnnl_status_t ocl_output_event(dnnl_stream_t stream, cl_event *event);

#endif
