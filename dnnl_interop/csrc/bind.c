/* Binding the function table: dnnl_interop_bind() and what Python asks of the
 * table (binding.cdef). After the generated dnnl_interop_symbols[]. */

#define DNNL_INTEROP_NSYMBOLS (sizeof(dnnl_interop_symbols) / sizeof(dnnl_interop_symbols[0]))

static int dnnl_interop_bind(void *library) {
    int bound = 0;
    for (size_t i = 0; i < DNNL_INTEROP_NSYMBOLS; i++) {
        const struct dnnl_interop_symbol *symbol = &dnnl_interop_symbols[i];
        void *address = dlsym(library, symbol->name);
        dnnl_interop_fn function = address ? (dnnl_interop_fn)address : symbol->stub;
        atomic_store_explicit(symbol->slot, function, memory_order_release);
        bound += address != NULL;
    }
    atomic_store_explicit(&dnnl_interop_is_bound, 1, memory_order_release);
    return bound;
}
static size_t dnnl_interop_symbol_count(void) { return DNNL_INTEROP_NSYMBOLS; }
static const char *dnnl_interop_symbol_name(size_t i) {
    return i < DNNL_INTEROP_NSYMBOLS ? dnnl_interop_symbols[i].name : NULL;
}
static int dnnl_interop_symbol_is_bound(size_t i) {
    return i < DNNL_INTEROP_NSYMBOLS
        && dnnl_interop_load(dnnl_interop_symbols[i].slot) != dnnl_interop_symbols[i].stub;
}
/* The stub of function i: where a call lands that read the slot before a bind. */
static void *dnnl_interop_symbol_stub(size_t i) {
    return i < DNNL_INTEROP_NSYMBOLS ? (void *)dnnl_interop_symbols[i].stub : NULL;
}
static int dnnl_interop_take_unbound(void) {
    int index = dnnl_interop_unbound_index;
    dnnl_interop_unbound_index = 0;
    return index;
}
static const char *dnnl_interop_file_of(const void *address) {
    Dl_info info;
    return dladdr(address, &info) ? info.dli_fname : NULL;
}
