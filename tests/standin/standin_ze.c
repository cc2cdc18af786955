/* TEST-ONLY oneDNN stand-in (not oneDNN, never shipped): the Level Zero part.
 *
 * THERE IS NO LEVEL ZERO RUNTIME HERE. The driver, device, context, command
 * list and event handles of the 11 dnnl_ze_interop_* functions are opaque
 * fakes: stored, compared and handed back, never dereferenced, retained or
 * released. So:
 *   - engine_create accepts any non-NULL handles (real oneDNN requires a
 *     root device of the first driver and creates an OpenCL context for it);
 *   - the blob ID is made from the handle values (same layout as oneDNN's);
 *   - memory is host memory: ALLOCATE is malloc standing in for device USM,
 *     and a user pointer is used as-is (real oneDNN checks its USM type);
 *   - execution runs on the host, synchronously; dependency events are
 *     neither retained nor waited for, and the returned event is NULL, as
 *     on real oneDNN's Level Zero interop streams. */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "standin.h"

/* Names the fake device and driver report, derived from the handles. */
static void fake_device_name(ze_device_handle_t device, char *out, size_t size) {
    snprintf(out, size, "Stand-in Level Zero device 0x%" PRIxPTR,
            (uintptr_t)device);
}

static void fake_driver_version(
        ze_driver_handle_t driver, char *out, size_t size) {
    snprintf(out, size, "stand-in-ze-driver-0x%" PRIxPTR, (uintptr_t)driver);
}

static int is_ze_engine(const void *engine) {
    return is_engine(engine)
            && ((const struct dnnl_engine *)engine)->runtime == RUNTIME_ZE;
}

/* ==========================================================================
 * Engines
 * ========================================================================== */

/* Shared by engine_create and engine_create_from_cache_blob (blob NULL for
 * the former); the device info cache is keyed by the device handle. */
static dnnl_status_t ze_engine_create(dnnl_engine_t *engine,
        ze_driver_handle_t driver, ze_device_handle_t device,
        ze_context_handle_t context, const uint8_t *blob, size_t blob_size) {
    dnnl_engine_t result = engine_new(RUNTIME_ZE);
    if (!result) return dnnl_out_of_memory;
    result->ze.driver = driver;
    result->ze.device = device;
    result->ze.context = context; /* not owned, as in oneDNN */

    dnnl_status_t status;
    if (blob) {
        status = device_info_attach(result, device, blob, blob_size);
    } else {
        char name[96];
        fake_device_name(device, name, sizeof(name));
        standin_device_info_t info;
        memset(&info, 0, sizeof(info));
        info.runtime = 2;
        info.name = name;
        byte_stream_t bs = {0};
        serialize_device_info(&bs, &info);
        status = bs.failed
                ? dnnl_out_of_memory
                : device_info_attach(result, device, bs.data, bs.size);
        bs_free(&bs);
    }
    if (status != dnnl_success) {
        engine_release(result);
        return status;
    }
    *engine = result;
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_ze_interop_engine_create(dnnl_engine_t *engine,
        ze_driver_handle_t driver, ze_device_handle_t device,
        ze_context_handle_t context) {
    if (!engine || !driver || !device || !context)
        return dnnl_invalid_arguments;
    return ze_engine_create(engine, driver, device, context, NULL, 0);
}

dnnl_status_t DNNL_API dnnl_ze_interop_engine_create_from_cache_blob(
        dnnl_engine_t *engine, ze_driver_handle_t driver,
        ze_device_handle_t device, ze_context_handle_t context, size_t size,
        const uint8_t *cache_blob) {
    if (!engine || !driver || !device || !context || !cache_blob || size == 0)
        return dnnl_invalid_arguments;
    return ze_engine_create(engine, driver, device, context, cache_blob, size);
}

dnnl_status_t DNNL_API dnnl_ze_interop_engine_get_context(
        dnnl_engine_t engine, ze_context_handle_t *context) {
    if (!is_ze_engine(engine) || !context) return dnnl_invalid_arguments;
    *context = engine->ze.context;
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_ze_interop_engine_get_device(
        dnnl_engine_t engine, ze_device_handle_t *device) {
    if (!is_ze_engine(engine) || !device) return dnnl_invalid_arguments;
    *device = engine->ze.device;
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_ze_interop_engine_get_driver(
        dnnl_engine_t engine, ze_driver_handle_t *driver) {
    if (!is_ze_engine(engine) || !driver) return dnnl_invalid_arguments;
    *driver = engine->ze.driver;
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_ze_interop_engine_get_cache_blob(
        dnnl_engine_t engine, size_t *size, uint8_t *cache_blob) {
    return gpu_engine_get_cache_blob(engine, size, cache_blob);
}

/* oneDNN's Level Zero layout, from fake names:
 *   [size_t n][device name, no NUL]
 *   [size_t n][driver version, NUL included]
 *   int major, minor, patch
 *   [size_t n][hash, no NUL]
 * Real oneDNN passes NULL handles to Level Zero unchecked and, with no
 * loader here, answers 5 for everything; the stand-in answers 5 for NULL
 * handles only. *size is untouched on error. */
dnnl_status_t DNNL_API dnnl_ze_interop_engine_get_cache_blob_id(
        ze_driver_handle_t driver, ze_device_handle_t device, size_t *size,
        uint8_t *cache_blob_id) {
    if (!size) return dnnl_invalid_arguments;
    if (!driver || !device) return dnnl_runtime_error;

    char name[96], driver_version[96];
    fake_device_name(device, name, sizeof(name));
    fake_driver_version(driver, driver_version, sizeof(driver_version));
    const dnnl_version_t *version = dnnl_version();

    byte_stream_t bs = {0};
    bs_append_array(&bs, strlen(name), name);
    bs_append_array(&bs, strlen(driver_version) + 1, driver_version);
    bs_append(&bs, &version->major, sizeof(version->major));
    bs_append(&bs, &version->minor, sizeof(version->minor));
    bs_append(&bs, &version->patch, sizeof(version->patch));
    bs_append_array(&bs, strlen(version->hash), version->hash);
    dnnl_status_t status = bs.failed
            ? dnnl_out_of_memory
            : copy_out_exact(bs.data, bs.size, size, cache_blob_id);
    bs_free(&bs);
    return status;
}

/* ==========================================================================
 * Streams
 * ========================================================================== */

/* Always in order; the list is neither owned nor checked; profiling is
 * ignored (as in the PyPI build). */
dnnl_status_t DNNL_API dnnl_ze_interop_stream_create(dnnl_stream_t *stream,
        dnnl_engine_t engine, ze_command_list_handle_t list, int profiling) {
    if (!stream || !is_ze_engine(engine) || !list)
        return dnnl_invalid_arguments;
    dnnl_stream_t result = stream_new(engine, dnnl_stream_in_order);
    if (!result) return dnnl_out_of_memory;
    result->list = list;
    *stream = result;
    return dnnl_success;
}

dnnl_status_t DNNL_API dnnl_ze_interop_stream_get_list(
        dnnl_stream_t stream, ze_command_list_handle_t *list) {
    if (!is_stream(stream) || stream->runtime != RUNTIME_ZE || !list)
        return dnnl_invalid_arguments;
    *list = stream->list;
    return dnnl_success;
}

/* ==========================================================================
 * Memory and execution
 * ========================================================================== */

/* Checks as oneDNN's (and the OpenCL v2 creator's); handles[0] is used.
 * Get and set the pointer with dnnl_memory_get/set_data_handle. */
dnnl_status_t DNNL_API dnnl_ze_interop_memory_create(dnnl_memory_t *memory,
        const_dnnl_memory_desc_t memory_desc, dnnl_engine_t engine,
        int nhandles, void **handles) {
    if (!memory || !memory_desc || !engine) return dnnl_invalid_arguments;
    if (!is_ze_engine(engine)) return dnnl_invalid_arguments;
    if (!handles || nhandles <= 0) return dnnl_invalid_arguments;
    dnnl_status_t status = check_md_for_memory(memory_desc);
    if (status != dnnl_success) return status;
    return host_memory_create(memory, memory_desc, engine, handles[0]);
}

/* Note the argument order: ndeps before deps (the OpenCL twin has them the
 * other way round). */
dnnl_status_t DNNL_API dnnl_ze_interop_primitive_execute(
        const_dnnl_primitive_t primitive, dnnl_stream_t stream, int nargs,
        const dnnl_exec_arg_t *args, int ndeps, const ze_event_handle_t *deps,
        ze_event_handle_t *return_event) {
    if (ndeps < 0 || (ndeps > 0 && !deps)) return dnnl_invalid_arguments;
    return execute(EXEC_ZE, primitive, stream, nargs, args, 0, NULL, NULL,
            return_event);
}
