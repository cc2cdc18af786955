/* ---- the size-query-then-fill protocol ------------------------------------
 * oneDNN returns byte strings (cache blobs, their ids) from functions
 * f(..., size_t *size, uint8_t *buffer): with a NULL buffer f writes the size;
 * with a buffer, *size must be exactly that size. dnnl_interop_sized_<f> runs
 * the whole protocol in one call: query; 0 bytes is a result; fill (into the
 * record's scratch, or a malloc'd block if larger); if the fill is refused or
 * reports another size, query again: a size that held still means the refusal
 * was real; otherwise fill again, at most DNNL_INTEROP_SIZED_ATTEMPTS fills.
 * It returns the result's size when the result is in record->scratch,
 * DNNL_INTEROP_SIZED_LARGE when it is in record->large, and
 * DNNL_INTEROP_SIZED_FAILED when record->outcome says why it gave up. The
 * generator adds dnnl_interop_sized_<f> for each such f after this file. */
#define DNNL_INTEROP_SIZED_ATTEMPTS 4 /* fills before the protocol gives up on a moving size */
#define DNNL_INTEROP_SIZED_LARGE (-1)
#define DNNL_INTEROP_SIZED_FAILED (-2)
#define DNNL_INTEROP_SIZED_QUERY_REFUSED 1 /* a size query failed */
#define DNNL_INTEROP_SIZED_FILL_REFUSED 2  /* a fill failed, the size held still */
#define DNNL_INTEROP_SIZED_SIZE_MOVED 3    /* the size moved before every fill */
#define DNNL_INTEROP_SIZED_NO_MEMORY 4     /* malloc of record->size bytes failed */

/* f with its leading arguments bound (see dnnl_interop_sized_call_<f>). */
typedef dnnl_status_t (*dnnl_interop_sized_call)(const void *context, size_t *size, uint8_t *buffer);

static void dnnl_interop_sized_release(dnnl_interop_sized_t *record) {
    free(record->large);
    record->large = NULL;
}

static ptrdiff_t dnnl_interop_sized_fail(dnnl_interop_sized_t *record, int outcome, dnnl_status_t status) {
    record->outcome = outcome;
    record->status = status;
    return DNNL_INTEROP_SIZED_FAILED;
}

static ptrdiff_t dnnl_interop_query_then_fill(
    dnnl_interop_sized_call call, const void *context, dnnl_interop_sized_t *record) {
    dnnl_interop_sized_release(record);
    size_t size = 0;
    dnnl_status_t status = call(context, &size, NULL);
    for (int fills = 0;; fills++) {
        if (status != dnnl_success)
            return dnnl_interop_sized_fail(record, DNNL_INTEROP_SIZED_QUERY_REFUSED, status);
        if (size == 0)
            return 0;
        if (fills > 0 && size == record->failed_size)
            return dnnl_interop_sized_fail(record, DNNL_INTEROP_SIZED_FILL_REFUSED, record->status);
        const size_t expected = size;
        uint8_t *buffer = (uint8_t *)record->scratch;
        if (expected > sizeof record->scratch) {
            record->large = malloc(expected);
            if (record->large == NULL) {
                record->size = expected;
                return dnnl_interop_sized_fail(record, DNNL_INTEROP_SIZED_NO_MEMORY, dnnl_success);
            }
            buffer = (uint8_t *)record->large;
        }
        status = call(context, &size, buffer);
        if (status == dnnl_success && size == expected) {
            record->size = expected;
            return record->large ? DNNL_INTEROP_SIZED_LARGE : (ptrdiff_t)expected;
        }
        dnnl_interop_sized_release(record);
        record->status = status;
        record->failed_size = expected;
        record->reported_size = size;
        if (fills + 1 == DNNL_INTEROP_SIZED_ATTEMPTS)
            return dnnl_interop_sized_fail(record, DNNL_INTEROP_SIZED_SIZE_MOVED, status);
        size = 0;
        status = call(context, &size, NULL);
    }
}
