/* TEST-ONLY STAND-IN FOR oneDNN. THIS IS NOT oneDNN AND IS NEVER SHIPPED.
 *
 * No Intel GPU is available to this project, and real oneDNN refuses every
 * device that is not one, so the success paths of the GPU interop API
 * (engines, streams, memory, execution) cannot be reached with it. This
 * library exports the 57 oneDNN C functions the dnnl_interop binding binds,
 * with the very prototypes of the binding's headers/ (the compiler checks
 * them), and implements oneDNN's documented interop semantics on REAL OpenCL
 * objects -- PoCL's CPU device and Intel's CPU OpenCL runtime, through
 * pyopencl -- so the binding's success paths can be tested. The tests compile
 * it (tests/standin/build.py) and bind it in place of libdnnl.
 *
 * There is NO Level Zero runtime here: the ZE handles the dnnl_ze_interop_*
 * functions take are opaque fakes. They are stored and handed back, never
 * dereferenced, and ZE memory is plain host memory.
 *
 * What it implements (details in tests/standin/README.md):
 *   - a CPU engine (host memory, synchronous execution);
 *   - OpenCL engines on any OpenCL device (it treats PoCL's CPU device as its
 *     GPU: dnnl_engine_get_kind answers dnnl_gpu), buffer memory, USM memory
 *     where the device has cl_intel_unified_shared_memory, streams on user
 *     or own queues, and the persistent-cache blob functions;
 *   - fake Level Zero engines, streams and memory;
 *   - plain memory descriptors (every format tag that is a permutation of
 *     the first n letters) and one primitive: reorder between plain layouts
 *     of the same data type, which really moves the data.
 *
 * Files: dnnl_standin.c (this file: version, descriptors, engines, streams,
 * memory, reorder, execution core), standin_ocl.c (everything that calls
 * OpenCL), standin_ze.c (the Level Zero fakes), standin.h (the objects),
 * cl_subset.h (the OpenCL declarations used), and a format tag table that
 * build.py generates from headers/dnnl_types.h. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "standin.h"

/* ==========================================================================
 * Version and verbosity
 * ========================================================================== */

/* cpu_runtime: the stand-in's CPU engine runs everything on the calling
 * thread, i.e. sequentially. gpu_runtime: its GPU engines are OpenCL ones
 * (the Level Zero engines are fakes). Real oneDNN from PyPI reports SYCL for
 * both; tests must not rely on these values being equal. */
static const dnnl_version_t standin_version = {
        STANDIN_VERSION_MAJOR,
        STANDIN_VERSION_MINOR,
        STANDIN_VERSION_PATCH,
        STANDIN_HASH,
        DNNL_RUNTIME_SEQ,
        DNNL_RUNTIME_OCL,
};

const dnnl_version_t DNNL_API *dnnl_version(void) {
    return &standin_version;
}

/* The stand-in prints nothing; levels are validated like oneDNN's (0-2). */
dnnl_status_t DNNL_API dnnl_set_verbose(int level) {
    return (level >= 0 && level <= 2) ? dnnl_success : dnnl_invalid_arguments;
}

/* ==========================================================================
 * Byte streams and the exact-size protocol
 * ========================================================================== */

void bs_append(byte_stream_t *bs, const void *data, size_t size) {
    if (bs->failed || size == 0) return;
    if (bs->size + size > bs->capacity) {
        size_t capacity = bs->capacity ? bs->capacity : 256;
        while (capacity < bs->size + size)
            capacity *= 2;
        uint8_t *grown = realloc(bs->data, capacity);
        if (!grown) {
            bs->failed = 1;
            return;
        }
        bs->data = grown;
        bs->capacity = capacity;
    }
    memcpy(bs->data + bs->size, data, size);
    bs->size += size;
}

void bs_append_array(byte_stream_t *bs, size_t size, const void *data) {
    bs_append(bs, &size, sizeof(size));
    bs_append(bs, data, size);
}

void bs_free(byte_stream_t *bs) {
    free(bs->data);
    memset(bs, 0, sizeof(*bs));
}

dnnl_status_t copy_out_exact(
        const uint8_t *data, size_t data_size, size_t *size, uint8_t *out) {
    if (!out) {
        *size = data_size;
        return dnnl_success;
    }
    if (*size != data_size) return dnnl_invalid_arguments;
    if (data_size) memcpy(out, data, data_size);
    return dnnl_success;
}

/* ==========================================================================
 * Device info: the engine cache blob and its process-wide cache
 * ========================================================================== */

/* The stand-in's cache blob format. Real oneDNN serializes its GPU
 * device_info_t (architecture, EU counts, ...; no magic, no version). The
 * stand-in has no such thing, so it writes what it can learn from OpenCL, in
 * native byte order, with no padding:
 *
 *   u32  format version (1)
 *   u32  runtime: 1 = OpenCL, 2 = fake Level Zero
 *   u64  global memory size           (CL_DEVICE_GLOBAL_MEM_SIZE)
 *   u64  max allocation size          (CL_DEVICE_MAX_MEM_ALLOC_SIZE)
 *   u64  max work-group size          (CL_DEVICE_MAX_WORK_GROUP_SIZE)
 *   u32  compute units                (CL_DEVICE_MAX_COMPUTE_UNITS)
 *   u32  address bits                 (CL_DEVICE_ADDRESS_BITS)
 *   u8   has cl_intel_unified_shared_memory
 *   [size_t length][device name, no NUL]
 *
 * Like real oneDNN, nothing ever parses a blob given by the user: it is
 * stored and handed back verbatim. */
#define STANDIN_BLOB_FORMAT_VERSION 1u

void serialize_device_info(
        byte_stream_t *bs, const standin_device_info_t *info) {
    const uint32_t version = STANDIN_BLOB_FORMAT_VERSION;
    bs_append(bs, &version, sizeof(version));
    bs_append(bs, &info->runtime, sizeof(info->runtime));
    bs_append(bs, &info->global_mem_size, sizeof(info->global_mem_size));
    bs_append(bs, &info->max_mem_alloc_size, sizeof(info->max_mem_alloc_size));
    bs_append(
            bs, &info->max_work_group_size, sizeof(info->max_work_group_size));
    bs_append(bs, &info->max_compute_units, sizeof(info->max_compute_units));
    bs_append(bs, &info->address_bits, sizeof(info->address_bits));
    bs_append(bs, &info->has_usm, sizeof(info->has_usm));
    bs_append_array(bs, strlen(info->name), info->name);
}

/* One entry per device that ever had an engine. Never evicted, except by
 * dnnl_impl_gpu_intel_clear_device_info_cache (as in oneDNN). Engines keep
 * their own copies, so clearing never leaves an engine dangling. */
typedef struct device_info_entry {
    struct device_info_entry *next;
    standin_runtime_t runtime;
    const void *device;
    uint8_t *blob;
    size_t size;
} device_info_entry_t;

static pthread_mutex_t device_info_lock = PTHREAD_MUTEX_INITIALIZER;
static device_info_entry_t *device_info_cache = NULL;

static device_info_entry_t *device_info_find(
        standin_runtime_t runtime, const void *device) {
    for (device_info_entry_t *e = device_info_cache; e; e = e->next)
        if (e->runtime == runtime && e->device == device) return e;
    return NULL;
}

int device_info_cached(standin_runtime_t runtime, const void *device) {
    pthread_mutex_lock(&device_info_lock);
    int found = device_info_find(runtime, device) != NULL;
    pthread_mutex_unlock(&device_info_lock);
    return found;
}

dnnl_status_t device_info_attach(dnnl_engine_t engine, const void *device,
        const uint8_t *blob, size_t size) {
    dnnl_status_t status = dnnl_success;
    pthread_mutex_lock(&device_info_lock);
    device_info_entry_t *entry = device_info_find(engine->runtime, device);
    if (!entry) { /* first engine for this device: its blob becomes the info */
        entry = calloc(1, sizeof(*entry));
        uint8_t *copy = malloc(size ? size : 1);
        if (!entry || !copy) {
            free(entry);
            free(copy);
            status = dnnl_out_of_memory;
            goto out;
        }
        memcpy(copy, blob, size);
        entry->runtime = engine->runtime;
        entry->device = device;
        entry->blob = copy;
        entry->size = size;
        entry->next = device_info_cache;
        device_info_cache = entry;
    }
    engine->cache_blob = malloc(entry->size ? entry->size : 1);
    if (!engine->cache_blob) {
        status = dnnl_out_of_memory;
        goto out;
    }
    memcpy(engine->cache_blob, entry->blob, entry->size);
    engine->cache_blob_size = entry->size;
out:
    pthread_mutex_unlock(&device_info_lock);
    return status;
}

/* Exported by real oneDNN too (internal, used by its persistent cache test):
 * forget every device's info, so the next engine for a device takes its
 * info from a user blob again. Not in the headers, not bound by the binding:
 * tests reach it with ctypes. */
DNNL_API void dnnl_impl_gpu_intel_clear_device_info_cache(void);
DNNL_API void dnnl_impl_gpu_intel_clear_device_info_cache(void) {
    pthread_mutex_lock(&device_info_lock);
    while (device_info_cache) {
        device_info_entry_t *next = device_info_cache->next;
        free(device_info_cache->blob);
        free(device_info_cache);
        device_info_cache = next;
    }
    pthread_mutex_unlock(&device_info_lock);
}

/* ==========================================================================
 * Memory descriptors
 * ========================================================================== */

/* Every plain format tag: the enumerators of dnnl_format_tag_t whose names
 * are a permutation of the first n letters (dnnl_a ... dnnl_abcdefghijlk).
 * build.py generates the list from headers/dnnl_types.h; aliases such as
 * dnnl_nchw share the values, so they work too. */
static const struct {
    dnnl_format_tag_t tag;
    const char *letters;
} plain_tags[] = {
#define STANDIN_PLAIN_TAG(tag, letters) {tag, letters},
#include "standin_format_tags.h"
#undef STANDIN_PLAIN_TAG
};

static const char *plain_tag_letters(dnnl_format_tag_t tag) {
    for (size_t i = 0; i < sizeof(plain_tags) / sizeof(plain_tags[0]); i++)
        if (plain_tags[i].tag == tag) return plain_tags[i].letters;
    return NULL;
}

/* Element size in bytes; 0 for types the stand-in does not support (these
 * are exactly the ones real oneDNN refuses in a plain 2x3 descriptor). */
static size_t data_type_size(dnnl_data_type_t data_type) {
    switch (data_type) {
        case dnnl_f8_e5m2:
        case dnnl_f8_e4m3:
        case dnnl_e8m0:
        case dnnl_s8:
        case dnnl_u8: return 1;
        case dnnl_f16:
        case dnnl_bf16: return 2;
        case dnnl_f32:
        case dnnl_s32: return 4;
        case dnnl_f64:
        case dnnl_s64: return 8;
        default: return 0;
    }
}

int is_md(const void *object) {
    return object
            && ((const struct dnnl_memory_desc *)object)->magic
            == MAGIC_MEMORY_DESC;
}

size_t md_size(const struct dnnl_memory_desc *md) {
    if (!md || md->kind != MD_PLAIN) return 0;
    size_t size = data_type_size(md->data_type);
    for (int d = 0; d < md->ndims; d++)
        size *= (size_t)md->dims[d];
    return size;
}

dnnl_status_t DNNL_API dnnl_memory_desc_create_with_tag(
        dnnl_memory_desc_t *memory_desc, int ndims, const dnnl_dims_t dims,
        dnnl_data_type_t data_type, dnnl_format_tag_t tag) {
    if (!memory_desc) return dnnl_invalid_arguments;

    struct dnnl_memory_desc md;
    memset(&md, 0, sizeof(md));
    md.magic = MAGIC_MEMORY_DESC;
    md.data_type = data_type;
    md.tag = tag;

    if (ndims == 0) { /* the zero descriptor; oneDNN ignores everything else */
        md.kind = MD_ZERO;
        md.data_type = dnnl_data_type_undef;
        md.tag = dnnl_format_tag_undef;
    } else {
        if (ndims < 0 || ndims > DNNL_MAX_NDIMS || !dims)
            return dnnl_invalid_arguments;
        if (data_type_size(data_type) == 0) return dnnl_invalid_arguments;
        /* Negative dims (including DNNL_RUNTIME_DIM_VAL: the stand-in has no
         * runtime dimensions) are refused. */
        for (int d = 0; d < ndims; d++)
            if (dims[d] < 0) return dnnl_invalid_arguments;
        md.ndims = ndims;
        memcpy(md.dims, dims, sizeof(dnnl_dim_t) * (size_t)ndims);

        if (tag == dnnl_format_tag_any || tag == dnnl_format_tag_undef) {
            md.kind = MD_ANY;
        } else {
            const char *letters = plain_tag_letters(tag);
            if (!letters) /* blocked layouts exist in oneDNN, not here */
                return (tag > dnnl_format_tag_any && tag < dnnl_format_tag_last)
                        ? dnnl_unimplemented
                        : dnnl_invalid_arguments;
            if ((int)strlen(letters) != ndims) return dnnl_invalid_arguments;
            md.kind = MD_PLAIN;
            for (int k = 0; k < ndims; k++)
                md.perm[k] = letters[k] - 'a';
            /* The innermost dimension is dense; each outer one spans it. */
            md.strides[md.perm[ndims - 1]] = 1;
            for (int k = ndims - 2; k >= 0; k--)
                md.strides[md.perm[k]] = md.strides[md.perm[k + 1]]
                        * md.dims[md.perm[k + 1]];
        }
    }

    struct dnnl_memory_desc *result = malloc(sizeof(*result));
    if (!result) return dnnl_out_of_memory;
    *result = md;
    *memory_desc = result;
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_memory_desc_destroy(dnnl_memory_desc_t memory_desc) {
    if (!memory_desc) return dnnl_success;
    /* A memory's own descriptor (dnnl_memory_get_memory_desc) belongs to it. */
    if (!is_md(memory_desc) || memory_desc->embedded)
        return dnnl_invalid_arguments;
    memory_desc->magic = MAGIC_DEAD;
    free(memory_desc);
    return dnnl_success;
}

/* The queries the binding reads a descriptor back with: its shape, data
 * type, format kind and (plain) strides. Dims-like answers point into the
 * descriptor, as oneDNN's do. */
static const dnnl_dims_t zero_dims;

dnnl_status_t DNNL_API dnnl_memory_desc_query(
        const_dnnl_memory_desc_t memory_desc, dnnl_query_t what, void *result) {
    if (!is_md(memory_desc) || !result) return dnnl_invalid_arguments;
    const struct dnnl_memory_desc *md = memory_desc;
    switch (what) {
        case dnnl_query_ndims_s32: *(int *)result = md->ndims; break;
        case dnnl_query_dims:
        case dnnl_query_padded_dims:
            *(const dnnl_dims_t **)result = &md->dims;
            break;
        case dnnl_query_data_type: *(dnnl_data_type_t *)result = md->data_type; break;
        case dnnl_query_format_kind:
            *(dnnl_format_kind_t *)result = md->kind == MD_PLAIN ? dnnl_blocked
                    : md->kind == MD_ANY                      ? dnnl_format_kind_any
                                                              : dnnl_format_kind_undef;
            break;
        case dnnl_query_strides: *(const dnnl_dims_t **)result = &md->strides; break;
        case dnnl_query_padded_offsets:
        case dnnl_query_inner_blks:
        case dnnl_query_inner_idxs:
            *(const dnnl_dims_t **)result = &zero_dims;
            break;
        case dnnl_query_inner_nblks_s32: *(int *)result = 0; break;
        case dnnl_query_submemory_offset_s64: *(int64_t *)result = 0; break;
        default: return dnnl_invalid_arguments;
    }
    return dnnl_success;
}

/* oneDNN's equality: the stride of a dimension of one element is never used. */
int DNNL_API dnnl_memory_desc_equal(
        const_dnnl_memory_desc_t lhs, const_dnnl_memory_desc_t rhs) {
    if (!is_md(lhs) || !is_md(rhs)) return 0;
    if (lhs->kind != rhs->kind || lhs->ndims != rhs->ndims
            || lhs->data_type != rhs->data_type)
        return 0;
    for (int d = 0; d < lhs->ndims; d++) {
        if (lhs->dims[d] != rhs->dims[d]) return 0;
        if (lhs->kind == MD_PLAIN && lhs->dims[d] != 1
                && lhs->strides[d] != rhs->strides[d])
            return 0;
    }
    return 1;
}

dnnl_status_t DNNL_API dnnl_memory_desc_clone(
        dnnl_memory_desc_t *memory_desc, const_dnnl_memory_desc_t existing) {
    if (!memory_desc || !is_md(existing)) return dnnl_invalid_arguments;
    struct dnnl_memory_desc *result = malloc(sizeof(*result));
    if (!result) return dnnl_out_of_memory;
    *result = *existing;
    result->embedded = 0;
    *memory_desc = result;
    return dnnl_success;
}

size_t DNNL_API dnnl_memory_desc_get_size(const_dnnl_memory_desc_t memory_desc) {
    return is_md(memory_desc) ? md_size(memory_desc) : 0;
}

/* Plain descriptors have one buffer: index 0. */
size_t DNNL_API dnnl_memory_desc_get_size_v2(
        const_dnnl_memory_desc_t memory_desc, int index) {
    return index == 0 ? dnnl_memory_desc_get_size(memory_desc) : 0;
}

/* ==========================================================================
 * Engines
 * ========================================================================== */

int is_engine(const void *object) {
    return object && ((const struct dnnl_engine *)object)->magic == MAGIC_ENGINE;
}

dnnl_engine_t engine_new(standin_runtime_t runtime) {
    dnnl_engine_t engine = calloc(1, sizeof(*engine));
    if (!engine) return NULL;
    engine->magic = MAGIC_ENGINE;
    engine->runtime = runtime;
    engine->refcount = 1;
    pthread_mutex_init(&engine->lock, NULL);
    return engine;
}

/* Engines are reference counted: the user's handle holds one reference,
 * every memory object, primitive descriptor and primitive another (oneDNN's
 * memory storages retain their engine too). dnnl_engine_destroy drops the
 * user's; the engine and its OpenCL objects go with the last one. */
void engine_retain(dnnl_engine_t engine) {
    __atomic_add_fetch(&engine->refcount, 1, __ATOMIC_RELAXED);
}

void engine_release(dnnl_engine_t engine) {
    if (__atomic_sub_fetch(&engine->refcount, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    if (engine->runtime == RUNTIME_OCL) ocl_engine_destroy(engine);
    free(engine->cache_blob);
    pthread_mutex_destroy(&engine->lock);
    engine->magic = MAGIC_DEAD;
    free(engine);
}

/* One CPU engine. No GPU can be enumerated: GPU engines are made from
 * interop handles only (real oneDNN here reports 0 GPUs as well). */
size_t DNNL_API dnnl_engine_get_count(dnnl_engine_kind_t kind) {
    return kind == dnnl_cpu ? 1 : 0;
}

dnnl_status_t DNNL_API dnnl_engine_create(
        dnnl_engine_t *engine, dnnl_engine_kind_t kind, size_t index) {
    if (!engine || kind != dnnl_cpu || index != 0)
        return dnnl_invalid_arguments;
    dnnl_engine_t result = engine_new(RUNTIME_CPU);
    if (!result) return dnnl_out_of_memory;
    *engine = result;
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_engine_get_kind(
        dnnl_engine_t engine, dnnl_engine_kind_t *kind) {
    if (!is_engine(engine) || !kind) return dnnl_invalid_arguments;
    *kind = engine->runtime == RUNTIME_CPU ? dnnl_cpu : dnnl_gpu;
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_engine_destroy(dnnl_engine_t engine) {
    if (!engine) return dnnl_success;
    if (!is_engine(engine)) return dnnl_invalid_arguments;
    engine_release(engine);
    return dnnl_success;
}

/* Both interop get_cache_blob functions. As in oneDNN's source, only the
 * engine *kind* is checked: any GPU engine (OpenCL or Level Zero) answers
 * with its blob, a CPU engine with 2. Real oneDNN dereferences a NULL engine
 * (SIGSEGV); the stand-in answers 2. */
dnnl_status_t gpu_engine_get_cache_blob(
        dnnl_engine_t engine, size_t *size, uint8_t *cache_blob) {
    if (!is_engine(engine) || engine->runtime == RUNTIME_CPU || !size)
        return dnnl_invalid_arguments;
    return copy_out_exact(
            engine->cache_blob, engine->cache_blob_size, size, cache_blob);
}

/* ==========================================================================
 * Streams
 * ========================================================================== */

int is_stream(const void *object) {
    return object && ((const struct dnnl_stream *)object)->magic == MAGIC_STREAM;
}

dnnl_stream_t stream_new(dnnl_engine_t engine, unsigned flags) {
    dnnl_stream_t stream = calloc(1, sizeof(*stream));
    if (!stream) return NULL;
    stream->magic = MAGIC_STREAM;
    stream->engine = engine;
    stream->runtime = engine->runtime;
    stream->flags = flags;
    return stream;
}

/* flags: in_order (1) and/or out_of_order (2); out_of_order wins. 0 and
 * unknown bits give 2; profiling (4) gives 3, as in the PyPI build, which
 * lacks DNNL_EXPERIMENTAL_PROFILING. On an OpenCL engine the stream creates
 * and owns a queue; on a fake Level Zero engine it has no command list
 * (dnnl_ze_interop_stream_get_list answers NULL) and is always in order. */
dnnl_status_t DNNL_API dnnl_stream_create(
        dnnl_stream_t *stream, dnnl_engine_t engine, unsigned flags) {
    if (!stream || !is_engine(engine)) return dnnl_invalid_arguments;
    const unsigned known = dnnl_stream_in_order | dnnl_stream_out_of_order;
    if (flags & 4u) return dnnl_unimplemented;
    if (flags == 0 || (flags & ~known)) return dnnl_invalid_arguments;
    const int out_of_order = (flags & dnnl_stream_out_of_order)
            && engine->runtime != RUNTIME_ZE;
    const unsigned order
            = out_of_order ? dnnl_stream_out_of_order : dnnl_stream_in_order;

    dnnl_stream_t result = stream_new(engine, order);
    if (!result) return dnnl_out_of_memory;
    if (engine->runtime == RUNTIME_OCL) {
        dnnl_status_t status = ocl_stream_create_own_queue(result);
        if (status != dnnl_success) {
            result->magic = MAGIC_DEAD;
            free(result);
            return status;
        }
    }
    *stream = result;
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_stream_get_engine(
        const_dnnl_stream_t stream, dnnl_engine_t *engine) {
    if (!is_stream(stream) || !engine) return dnnl_invalid_arguments;
    *engine = stream->engine;
    return dnnl_success;
}

/* Execution is synchronous everywhere except for the event an out-of-order
 * OpenCL stream returns; clFinish covers that. */
dnnl_status_t DNNL_API dnnl_stream_wait(dnnl_stream_t stream) {
    if (!is_stream(stream)) return dnnl_invalid_arguments;
    return stream->runtime == RUNTIME_OCL ? ocl_stream_wait(stream)
                                          : dnnl_success;
}

dnnl_status_t DNNL_API dnnl_stream_destroy(dnnl_stream_t stream) {
    if (!stream) return dnnl_success;
    if (!is_stream(stream)) return dnnl_invalid_arguments;
    if (stream->runtime == RUNTIME_OCL) ocl_stream_destroy(stream);
    stream->magic = MAGIC_DEAD;
    free(stream);
    return dnnl_success;
}

/* ==========================================================================
 * Memory objects
 * ========================================================================== */

int is_memory(const void *object) {
    return object && ((const struct dnnl_memory *)object)->magic == MAGIC_MEMORY;
}

void *host_alloc(size_t size) {
    void *ptr = NULL;
    if (posix_memalign(&ptr, 64, size) != 0) return NULL;
    return ptr;
}

dnnl_status_t check_md_for_memory(const struct dnnl_memory_desc *md) {
    if (!is_md(md) || md->kind == MD_ANY) return dnnl_invalid_arguments;
    return dnnl_success;
}

dnnl_memory_t memory_new(dnnl_engine_t engine,
        const struct dnnl_memory_desc *md, standin_storage_t storage) {
    dnnl_memory_t memory = calloc(1, sizeof(*memory));
    if (!memory) return NULL;
    memory->magic = MAGIC_MEMORY;
    memory->md = *md;
    memory->md.embedded = 1;
    memory->storage = storage;
    memory->engine = engine;
    engine_retain(engine);
    return memory;
}

void memory_free_object(dnnl_memory_t memory) {
    engine_release(memory->engine);
    memory->magic = MAGIC_DEAD;
    free(memory);
}

/* Host memory (CPU engines here, fake Level Zero in standin_ze.c):
 * ALLOCATE -> an owned 64-byte aligned buffer (none for size 0), NONE ->
 * NULL, anything else -> the user's pointer, not owned. */
dnnl_status_t host_memory_create(dnnl_memory_t *memory,
        const struct dnnl_memory_desc *md, dnnl_engine_t engine, void *handle) {
    void *data = handle;
    int owned = 0;
    if (handle == DNNL_MEMORY_ALLOCATE) {
        data = NULL;
        size_t size = md_size(md);
        if (size) {
            data = host_alloc(size);
            if (!data) return dnnl_out_of_memory;
            owned = 1;
        }
    }
    dnnl_memory_t result = memory_new(engine, md, STORAGE_HOST);
    if (!result) {
        if (owned) free(data);
        return dnnl_out_of_memory;
    }
    result->handle = data;
    result->owned = owned;
    *memory = result;
    return dnnl_success;
}

/* Generic creation works on CPU engines only: the PyPI oneDNN is a SYCL
 * build, whose generic creation rejects OpenCL and Level Zero engines with
 * 2. Use the interop creators for those. */
dnnl_status_t DNNL_API dnnl_memory_create(dnnl_memory_t *memory,
        const_dnnl_memory_desc_t memory_desc, dnnl_engine_t engine,
        void *handle) {
    if (!memory || !is_engine(engine)) return dnnl_invalid_arguments;
    dnnl_status_t status = check_md_for_memory(memory_desc);
    if (status != dnnl_success) return status;
    if (engine->runtime != RUNTIME_CPU) return dnnl_invalid_arguments;
    return host_memory_create(memory, memory_desc, engine, handle);
}

/* Plain descriptors have one buffer: handles[0] is used; more handles are
 * accepted and ignored (oneDNN does not check nhandles against the md). */
dnnl_status_t DNNL_API dnnl_memory_create_v2(dnnl_memory_t *memory,
        const_dnnl_memory_desc_t memory_desc, dnnl_engine_t engine,
        int nhandles, void **handles) {
    if (!handles || nhandles <= 0) return dnnl_invalid_arguments;
    return dnnl_memory_create(memory, memory_desc, engine, handles[0]);
}

dnnl_status_t DNNL_API dnnl_memory_get_memory_desc(
        const_dnnl_memory_t memory, const_dnnl_memory_desc_t *memory_desc) {
    if (!is_memory(memory) || !memory_desc) return dnnl_invalid_arguments;
    *memory_desc = &memory->md;
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_memory_get_engine(
        const_dnnl_memory_t memory, dnnl_engine_t *engine) {
    if (!is_memory(memory) || !engine) return dnnl_invalid_arguments;
    *engine = memory->engine; /* not retained */
    return dnnl_success;
}

/* Host memory is its own mapping; OpenCL memory is mapped through the
 * engine's in-order queue (standin_ocl.c). */
dnnl_status_t DNNL_API dnnl_memory_map_data(
        const_dnnl_memory_t memory, void **mapped_ptr) {
    if (!is_memory(memory) || !mapped_ptr) return dnnl_invalid_arguments;
    if (memory->storage == STORAGE_HOST) {
        *mapped_ptr = memory->handle;
        return dnnl_success;
    }
    /* const in the API; mapping device USM records its host shadow */
    return ocl_memory_map((dnnl_memory_t)memory, mapped_ptr);
}

dnnl_status_t DNNL_API dnnl_memory_map_data_v2(
        const_dnnl_memory_t memory, void **mapped_ptr, int index) {
    if (index != 0) return dnnl_invalid_arguments;
    return dnnl_memory_map_data(memory, mapped_ptr);
}

dnnl_status_t DNNL_API dnnl_memory_unmap_data(
        const_dnnl_memory_t memory, void *mapped_ptr) {
    if (!is_memory(memory)) return dnnl_invalid_arguments;
    if (memory->storage == STORAGE_HOST) return dnnl_success;
    return ocl_memory_unmap((dnnl_memory_t)memory, mapped_ptr);
}

dnnl_status_t DNNL_API dnnl_memory_unmap_data_v2(
        const_dnnl_memory_t memory, void *mapped_ptr, int index) {
    if (index != 0) return dnnl_invalid_arguments;
    return dnnl_memory_unmap_data(memory, mapped_ptr);
}

/* Buffer memory answers its cl_mem, USM and host memory their pointer. As in
 * oneDNN, a NULL memory gives success and a NULL handle. */
dnnl_status_t DNNL_API dnnl_memory_get_data_handle(
        const_dnnl_memory_t memory, void **handle) {
    if (!handle) return dnnl_invalid_arguments;
    if (!memory) {
        *handle = NULL;
        return dnnl_success;
    }
    if (!is_memory(memory)) return dnnl_invalid_arguments;
    *handle = memory->handle;
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_memory_get_data_handle_v2(
        const_dnnl_memory_t memory, void **handle, int index) {
    if (index != 0) return dnnl_invalid_arguments;
    return dnnl_memory_get_data_handle(memory, handle);
}

/* Host memory: frees its own buffer, then stores the pointer as given (not
 * owned, not checked: even DNNL_MEMORY_ALLOCATE is stored literally, like
 * oneDNN's CPU memory does). OpenCL memory: see ocl_memory_set_handle. */
dnnl_status_t DNNL_API dnnl_memory_set_data_handle(
        dnnl_memory_t memory, void *handle) {
    if (!is_memory(memory)) return dnnl_invalid_arguments;
    if (memory->storage != STORAGE_HOST)
        return ocl_memory_set_handle(memory, handle);
    if (handle == memory->handle) return dnnl_success;
    if (memory->owned) free(memory->handle);
    memory->handle = handle;
    memory->owned = 0;
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_memory_set_data_handle_v2(
        dnnl_memory_t memory, void *handle, int index) {
    if (index != 0) return dnnl_invalid_arguments;
    return dnnl_memory_set_data_handle(memory, handle);
}

dnnl_status_t DNNL_API dnnl_memory_destroy(dnnl_memory_t memory) {
    if (!memory) return dnnl_success;
    if (!is_memory(memory)) return dnnl_invalid_arguments;
    if (memory->storage == STORAGE_HOST) {
        if (memory->owned) free(memory->handle);
    } else {
        ocl_memory_release_storage(memory);
    }
    memory_free_object(memory);
    return dnnl_success;
}

/* ==========================================================================
 * Reorder: primitive descriptor and primitive
 * ========================================================================== */

static int is_primitive_desc(const void *object) {
    return object
            && ((const struct dnnl_primitive_desc *)object)->magic
            == MAGIC_PRIMITIVE_DESC;
}

static int is_primitive(const void *object) {
    return object
            && ((const struct dnnl_primitive *)object)->magic
            == MAGIC_PRIMITIVE;
}

/* Supported: plain src and dst with the same dims and data type, on one
 * engine (or two CPU engines; the primitive then runs on src_engine's
 * streams). attr is ignored. Real oneDNN also converts data types and
 * reorders across engines; the stand-in answers dnnl_unimplemented. */
dnnl_status_t DNNL_API dnnl_reorder_primitive_desc_create(
        dnnl_primitive_desc_t *reorder_primitive_desc,
        const_dnnl_memory_desc_t src_desc, dnnl_engine_t src_engine,
        const_dnnl_memory_desc_t dst_desc, dnnl_engine_t dst_engine,
        const_dnnl_primitive_attr_t attr) {
    if (!reorder_primitive_desc || !is_md(src_desc) || !is_md(dst_desc)
            || !is_engine(src_engine) || !is_engine(dst_engine))
        return dnnl_invalid_arguments;
    if (src_desc->kind == MD_ANY || dst_desc->kind == MD_ANY)
        return dnnl_invalid_arguments;
    if (src_desc->kind == MD_ZERO || dst_desc->kind == MD_ZERO)
        return dnnl_unimplemented; /* as real oneDNN */
    if (src_desc->ndims != dst_desc->ndims
            || memcmp(src_desc->dims, dst_desc->dims,
                    sizeof(dnnl_dim_t) * (size_t)src_desc->ndims)
                    != 0)
        return dnnl_invalid_arguments;
    if (src_desc->data_type != dst_desc->data_type) return dnnl_unimplemented;
    if (src_engine != dst_engine
            && !(src_engine->runtime == RUNTIME_CPU
                    && dst_engine->runtime == RUNTIME_CPU))
        return dnnl_unimplemented;

    struct dnnl_primitive_desc *pd = calloc(1, sizeof(*pd));
    if (!pd) return dnnl_out_of_memory;
    pd->magic = MAGIC_PRIMITIVE_DESC;
    pd->engine = src_engine;
    engine_retain(src_engine);
    pd->src = *src_desc;
    pd->dst = *dst_desc;
    pd->src.embedded = pd->dst.embedded = 1;
    *reorder_primitive_desc = pd;
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_primitive_desc_destroy(
        dnnl_primitive_desc_t primitive_desc) {
    if (!primitive_desc) return dnnl_success;
    if (!is_primitive_desc(primitive_desc)) return dnnl_invalid_arguments;
    engine_release(primitive_desc->engine);
    primitive_desc->magic = MAGIC_DEAD;
    free(primitive_desc);
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_primitive_create(dnnl_primitive_t *primitive,
        const_dnnl_primitive_desc_t primitive_desc) {
    if (!primitive || !is_primitive_desc(primitive_desc))
        return dnnl_invalid_arguments;
    struct dnnl_primitive *result = calloc(1, sizeof(*result));
    if (!result) return dnnl_out_of_memory;
    result->magic = MAGIC_PRIMITIVE;
    result->engine = primitive_desc->engine;
    engine_retain(result->engine);
    result->src = primitive_desc->src;
    result->dst = primitive_desc->dst;
    *primitive = result;
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_primitive_destroy(dnnl_primitive_t primitive) {
    if (!primitive) return dnnl_success;
    if (!is_primitive(primitive)) return dnnl_invalid_arguments;
    engine_release(primitive->engine);
    primitive->magic = MAGIC_DEAD;
    free(primitive);
    return dnnl_success;
}

/* ==========================================================================
 * Execution
 * ========================================================================== */

void permute_plain(const struct dnnl_memory_desc *src_md, const void *src,
        const struct dnnl_memory_desc *dst_md, void *dst) {
    const int ndims = src_md->ndims;
    const size_t elem = data_type_size(src_md->data_type);
    size_t count = 1;
    for (int d = 0; d < ndims; d++)
        count *= (size_t)src_md->dims[d];

    dnnl_dim_t index[DNNL_MAX_NDIMS] = {0}; /* logical, last dim fastest */
    for (size_t n = 0; n < count; n++) {
        dnnl_dim_t src_offset = 0, dst_offset = 0;
        for (int d = 0; d < ndims; d++) {
            src_offset += index[d] * src_md->strides[d];
            dst_offset += index[d] * dst_md->strides[d];
        }
        memcpy((char *)dst + (size_t)dst_offset * elem,
                (const char *)src + (size_t)src_offset * elem, elem);
        for (int d = ndims - 1; d >= 0; d--) {
            if (++index[d] < src_md->dims[d]) break;
            index[d] = 0;
        }
    }
}

/* Finds the reorder's source and destination in args, like oneDNN's
 * cvt_primitive_args: NULL memories are skipped, arguments the reorder does
 * not use are ignored, a used argument given twice is an error, and both
 * must be present. */
static dnnl_status_t collect_args(int nargs, const dnnl_exec_arg_t *args,
        dnnl_memory_t *src, dnnl_memory_t *dst) {
    *src = *dst = NULL;
    for (int i = 0; i < nargs; i++) {
        dnnl_memory_t memory = args[i].memory;
        if (!memory) continue;
        dnnl_memory_t *slot = args[i].arg == DNNL_ARG_FROM ? src
                : args[i].arg == DNNL_ARG_TO               ? dst
                                                           : NULL;
        if (!slot) continue;
        if (*slot || !is_memory(memory)) return dnnl_invalid_arguments;
        *slot = memory;
    }
    return (*src && *dst) ? dnnl_success : dnnl_invalid_arguments;
}

/* Like oneDNN, the memory descriptors that count are the primitive's. The
 * stand-in additionally refuses memory smaller than that, memory of another
 * runtime than the stream, and memory without a buffer (real oneDNN reads
 * through the NULL pointer). */
static dnnl_status_t check_exec_memory(
        dnnl_memory_t memory, dnnl_stream_t stream, size_t size) {
    if (memory->engine->runtime != stream->runtime)
        return dnnl_invalid_arguments;
    if (md_size(&memory->md) < size) return dnnl_invalid_arguments;
    if (size && !memory->handle) return dnnl_invalid_arguments;
    return dnnl_success;
}

/* The reorder reads the source into a host buffer (an OpenCL stream waits
 * for the dependencies first), permutes on the host, and writes the
 * destination. Every OpenCL transfer is blocking, so the host buffers
 * outlive them and execution is complete on return; only the event of an
 * out-of-order OpenCL stream is handed to the caller. */
dnnl_status_t execute(standin_exec_api_t api, const_dnnl_primitive_t primitive,
        dnnl_stream_t stream, int nargs, const dnnl_exec_arg_t *args,
        int ndeps, const cl_event *ocl_deps, cl_event *ocl_ret,
        ze_event_handle_t *ze_ret) {
    if (!is_primitive(primitive) || !is_stream(stream))
        return dnnl_invalid_arguments;
    if (primitive->engine != stream->engine) return dnnl_invalid_arguments;
    if ((api == EXEC_OCL && stream->runtime != RUNTIME_OCL)
            || (api == EXEC_ZE && stream->runtime != RUNTIME_ZE))
        return dnnl_invalid_arguments;
    if (nargs < 0 || (nargs > 0 && !args)) return dnnl_invalid_arguments;
    if (ndeps < 0 || (ndeps > 0 && !ocl_deps)) return dnnl_invalid_arguments;

    dnnl_memory_t src, dst;
    dnnl_status_t status = collect_args(nargs, args, &src, &dst);
    if (status != dnnl_success) return status;
    const size_t size = md_size(&primitive->src);
    if ((status = check_exec_memory(src, stream, size)) != dnnl_success
            || (status = check_exec_memory(dst, stream, size)) != dnnl_success)
        return status;

    const int is_ocl = stream->runtime == RUNTIME_OCL;
    if (size == 0) {
        if (is_ocl) status = ocl_wait_events(ndeps, ocl_deps);
    } else {
        void *in = host_alloc(size), *out = host_alloc(size);
        if (!in || !out) {
            status = dnnl_out_of_memory;
        } else {
            if (is_ocl)
                status = ocl_read(stream, src, in, size, ndeps, ocl_deps);
            else
                memcpy(in, src->handle, size);
            if (status == dnnl_success) {
                permute_plain(&primitive->src, in, &primitive->dst, out);
                if (is_ocl)
                    status = ocl_write(stream, dst, out, size);
                else
                    memcpy(dst->handle, out, size);
            }
        }
        free(in);
        free(out);
    }
    if (status != dnnl_success) return status; /* return events untouched */

    if (ocl_ret) {
        if (stream->flags & dnnl_stream_out_of_order)
            status = ocl_output_event(stream, ocl_ret);
        else
            *ocl_ret = NULL;
    }
    if (ze_ret) *ze_ret = NULL; /* always, on Level Zero interop streams */
    return status;
}

dnnl_status_t DNNL_API dnnl_primitive_execute(const_dnnl_primitive_t primitive,
        dnnl_stream_t stream, int nargs, const dnnl_exec_arg_t *args) {
    return execute(EXEC_GENERIC, primitive, stream, nargs, args, 0, NULL,
            NULL, NULL);
}
