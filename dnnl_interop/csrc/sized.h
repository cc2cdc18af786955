/* The record of one size-query-then-fill call (sized.c): declared to cffi and
 * to C alike, so it holds nothing but a plain #define and the typedef. */
#define DNNL_INTEROP_SIZED_SCRATCH 1024 /* results up to this size need no malloc (blob ids: ~140 bytes) */

typedef struct {
    size_t size;              /* bytes of the result */
    char *large;              /* a result larger than scratch: malloc'd, freed by
                                 dnnl_interop_sized_release() or the next call */
    int outcome;              /* why the protocol gave up: DNNL_INTEROP_SIZED_* */
    dnnl_status_t status;     /* status of the failed call (success: a fill that
                                 reported another size, or no memory) */
    size_t failed_size;       /* *size given to the last refused fill */
    size_t reported_size;     /* *size that fill left behind */
    char scratch[DNNL_INTEROP_SIZED_SCRATCH]; /* a result that fits */
} dnnl_interop_sized_t;
