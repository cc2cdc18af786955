/* A Memory of the CPU engine over a host DLPack tensor, made and dropped in one C call
 * each (after dlpack.h). dnnl_interop_host_memory_install puts three C functions of the
 * Python C API (stable ABI only) into a dict given by its address (id(), CPython's
 * address of the object), as dlpack.c does; dnnl_interop/_memory.py installs them.
 *
 *   configure(...) -> finalizer   once, by _memory: the objects read below
 *   over_capsule(capsule, engine) -> Memory | None    from_dlpack, Memory.from_array
 *   drop(memory) -> bool                              the finalizer's first step
 *
 * The finalizer is Memory.__del__, a method descriptor: drop, then Owned.__del__ for
 * every memory drop leaves.
 *
 * over_capsule does what memory_over does for its common case: a writable kDLCPU
 * tensor of a oneDNN data type and a plain layout the binding has made a descriptor
 * for before (_memory_desc._PLAIN), on an open CPU engine. Finding anything else it
 * takes no step (the capsule untaken, nothing made) and returns None, for the Python
 * path to do or say what is needed. The memory's fields are those make_memory_object
 * sets, its bookkeeping that of Owned._adopt, made holding the shared lock (_owned's
 * discipline: nothing the call reads is destroyed meanwhile, live and holders change
 * under it), with the GIL let go around dnnl_memory_create as cffi lets it go. The
 * tensor is kept by a capsule of this file whose destructor calls the producer's
 * deleter, exactly once, when the memory lets go of what its handle needs.
 *
 * drop is the finalizer of a memory that nothing else uses: open, owned, no user of
 * any kind (work in flight, C calls, dependents, views), holding no other handle,
 * with no finalized object waiting. It closes it as Owned._close_handle then
 * Owned._destroy_handle do, under the shared lock taken without waiting, as a
 * finalizer takes it; False (nothing done) sends every other memory, and a lock
 * another thread holds, to the Python finalizer. It never raises. */

static struct {
    int configured;
    PyObject *memory_type, *engine_type;
    PyObject *shared, *acquire, *release, *holders, *finalized, *change_count;
    PyObject *plain, *plain_library, *library_globals, *data_types;
    PyObject *memory_ctype, *desc_ctype, *engine_ctype;
    PyObject *close_finalized, *owned_finalizer;
    PyObject *blocking, *not_blocking, *no_arguments; /* the lock's arguments, made once */
} dnnl_interop_host;

static PyObject *dnnl_interop_host_names[19];
enum {
    HN_handle, HN_keep, HN_in_flight, HN_dependents, HN_views, HN_calls, HN_holds, HN_borrowed, HN_executable,
    HN_size, HN_repointing, HN_layout, HN_read_only, HN_plain, HN_runtime, HN_native, HN_live, HN_changes,
    HN_library,
};
static const char *const dnnl_interop_host_name_text[] = {
    "_handle", "_keep", "_in_flight", "_dependents", "_views", "_calls", "_holds", "_borrowed", "_executable",
    "_size", "_repointing", "_layout", "_read_only", "_plain", "_runtime", "native", "live", "changes",
    "_library",
};
#define HNAME(n) dnnl_interop_host_names[HN_##n]

/* The names of the capsules that keep a taken tensor (see dnnl_interop_host_kept_destructor). */
static const char dnnl_interop_host_kept_versioned[] = "dnnl_interop.taken_versioned";
static const char dnnl_interop_host_kept_legacy[] = "dnnl_interop.taken";

/* What keeps a taken tensor: its producer's deleter, called once, as the capsule goes. */
static void dnnl_interop_host_kept_destructor(PyObject *kept) {
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (PyCapsule_IsValid(kept, dnnl_interop_host_kept_versioned))
        dnnl_interop_dlpack_delete_versioned(PyCapsule_GetPointer(kept, dnnl_interop_host_kept_versioned));
    else if (PyCapsule_IsValid(kept, dnnl_interop_host_kept_legacy))
        dnnl_interop_dlpack_delete(PyCapsule_GetPointer(kept, dnnl_interop_host_kept_legacy));
    PyErr_Clear();
    PyErr_Restore(type, value, traceback);
}

/* lock.acquire(blocking): 1 taken, 0 not, -1 with an exception (an interruption while waiting). */
static int dnnl_interop_host_lock(int blocking) {
    PyObject *taken = PyObject_Call(dnnl_interop_host.acquire,
                                    blocking ? dnnl_interop_host.blocking : dnnl_interop_host.not_blocking, NULL);
    if (taken == NULL)
        return -1;
    int result = taken == Py_True;
    Py_DecRef(taken);
    return result;
}

/* lock.release(), keeping an exception being raised. */
static void dnnl_interop_host_unlock(void) {
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyObject *result = PyObject_Call(dnnl_interop_host.release, dnnl_interop_host.no_arguments, NULL);
    if (result == NULL)
        PyErr_Clear();
    Py_DecRef(result);
    PyErr_Restore(type, value, traceback);
}

/* shared.live += delta (under the shared lock): 0, or -1 with an exception. */
static int dnnl_interop_host_count(long delta) {
    PyObject *live = PyObject_GetAttr(dnnl_interop_host.shared, HNAME(live));
    PyObject *step = live != NULL ? PyLong_FromLong(delta) : NULL;
    PyObject *counted = step != NULL ? PyNumber_Add(live, step) : NULL;
    int status = counted != NULL ? PyObject_SetAttr(dnnl_interop_host.shared, HNAME(live), counted) : -1;
    Py_DecRef(live), Py_DecRef(step), Py_DecRef(counted);
    return status;
}

/* The tensor of a DLPack capsule this path takes: NULL (no exception) for any other. */
typedef struct {
    void *managed;
    int versioned;
    DLTensor *tensor;
} dnnl_interop_host_tensor;

static int dnnl_interop_host_read(PyObject *capsule, dnnl_interop_host_tensor *out) {
    if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
        DLManagedTensorVersioned *v = PyCapsule_GetPointer(capsule, "dltensor_versioned");
        if (v == NULL || v->version.major != 1 || v->flags != 0) /* read-only (or other flags): Python */
            return 0;
        out->managed = v, out->versioned = 1, out->tensor = &v->dl_tensor;
    } else if (PyCapsule_IsValid(capsule, "dltensor")) {
        DLManagedTensor *m = PyCapsule_GetPointer(capsule, "dltensor");
        if (m == NULL)
            return 0;
        out->managed = m, out->versioned = 0, out->tensor = &m->dl_tensor;
    } else {
        return 0;
    }
    DLTensor *t = out->tensor;
    return t->device.device_type == 1 /* kDLCPU */ && t->ndim >= 1 && t->ndim <= DNNL_MAX_NDIMS && t->shape != NULL
           && t->dtype.lanes == 1;
}

/* (shape, data type, strides) of the tensor, the key of _memory_desc._PLAIN (strides in
 * elements, C-contiguous when the tensor has none); NULL (no exception) for a negative
 * size or stride or a type oneDNN has no descriptor for, NULL with one on failure. */
static PyObject *dnnl_interop_host_plain(const DLTensor *t) {
    PyObject *code = PyLong_FromLong(((long)t->dtype.code << 8) | t->dtype.bits);
    if (code == NULL)
        return NULL;
    PyObject *data_type = PyDict_GetItemWithError(dnnl_interop_host.data_types, code);
    Py_DecRef(code);
    if (data_type == NULL)
        return NULL;
    int ndim = t->ndim;
    int64_t strides[DNNL_MAX_NDIMS];
    int64_t step = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        if (t->shape[i] < 0)
            return NULL;
        strides[i] = t->strides != NULL ? t->strides[i] : step;
        if (strides[i] < 0)
            return NULL;
        step *= t->shape[i];
    }
    PyObject *shape_tuple = PyTuple_New(ndim), *strides_tuple = PyTuple_New(ndim), *key = NULL;
    if (shape_tuple == NULL || strides_tuple == NULL)
        goto done;
    for (int i = 0; i < ndim; i++) {
        PyObject *size = PyLong_FromLongLong(t->shape[i]);
        if (size == NULL || PyTuple_SetItem(shape_tuple, i, size) < 0)
            goto done;
        PyObject *stride = PyLong_FromLongLong(strides[i]);
        if (stride == NULL || PyTuple_SetItem(strides_tuple, i, stride) < 0)
            goto done;
    }
    key = PyTuple_Pack(3, shape_tuple, data_type, strides_tuple);
done:
    Py_DecRef(shape_tuple), Py_DecRef(strides_tuple);
    return key;
}

/* The fields of a new Memory (see make_memory_object and Owned._adopt), _handle last:
 * until it is set the object is none the finalizer closes. 0, or -1 with an exception. */
static int dnnl_interop_host_fill(PyObject *memory, PyObject *handle, PyObject *engine, PyObject *kept,
                                  PyObject *plain, PyObject *entry) {
    PyObject *keep = PyTuple_Pack(3, Py_None, engine, kept);
    PyObject *in_flight = PyDict_New(), *dependents = PySet_New(NULL), *views = PySet_New(NULL);
    PyObject *calls = PySet_New(NULL), *holds = PyTuple_New(0);
    int status = -1;
    if (keep == NULL || in_flight == NULL || dependents == NULL || views == NULL || calls == NULL || holds == NULL)
        goto done;
    struct { int name; PyObject *value; } fields[] = {
        {HN_keep, keep}, {HN_in_flight, in_flight}, {HN_dependents, dependents}, {HN_views, views},
        {HN_calls, calls}, {HN_holds, holds}, {HN_borrowed, Py_False}, {HN_plain, plain},
        {HN_read_only, Py_False}, {HN_repointing, Py_False}, {HN_size, PyTuple_GetItem(entry, 1)},
        {HN_layout, PyTuple_GetItem(entry, 2)}, {HN_executable, handle},
    };
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        if (fields[i].value == NULL || PyObject_SetAttr(memory, dnnl_interop_host_names[fields[i].name],
                                                        fields[i].value) < 0)
            goto done;
    status = 0;
done:
    Py_DecRef(keep), Py_DecRef(in_flight), Py_DecRef(dependents), Py_DecRef(views), Py_DecRef(calls);
    Py_DecRef(holds);
    return status;
}

/* holders[address] = (id(memory), weakref(memory)): 0, or -1 with an exception. */
static int dnnl_interop_host_hold(PyObject *memory, void *c_memory) {
    PyObject *address = PyLong_FromVoidPtr(c_memory), *id = PyLong_FromVoidPtr(memory);
    PyObject *ref = PyWeakref_NewRef(memory, NULL);
    PyObject *entry = address != NULL && id != NULL && ref != NULL ? PyTuple_Pack(2, id, ref) : NULL;
    int status = entry != NULL ? PyDict_SetItem(dnnl_interop_host.holders, address, entry) : -1;
    Py_DecRef(address), Py_DecRef(id), Py_DecRef(ref), Py_DecRef(entry);
    return status;
}

/* Drop holders[address] if it is memory's (Owned._destroy_handle); errors cleared. */
static void dnnl_interop_host_let_go(PyObject *memory, void *c_memory) {
    PyObject *address = PyLong_FromVoidPtr(c_memory);
    PyObject *entry = address != NULL ? PyDict_GetItemWithError(dnnl_interop_host.holders, address) : NULL;
    if (entry != NULL && PyTuple_Check(entry) && PyTuple_Size(entry) == 2) {
        PyObject *id = PyLong_FromVoidPtr(memory);
        if (id != NULL && PyObject_RichCompareBool(PyTuple_GetItem(entry, 0), id, Py_EQ) == 1)
            PyDict_DelItem(dnnl_interop_host.holders, address);
        Py_DecRef(id);
    }
    Py_DecRef(address);
    PyErr_Clear();
}

/* Whether _plain_library[0] is the library bound now (_library._library): the handles
 * of _PLAIN were made by it (see plain_layout). */
static int dnnl_interop_host_same_library(void) {
    PyObject *library = PyDict_GetItemWithError(dnnl_interop_host.library_globals, HNAME(library));
    PyErr_Clear();
    return library != NULL && library != Py_None && PyList_GetItem(dnnl_interop_host.plain_library, 0) == library;
}

static PyObject *dnnl_interop_host_over_capsule(PyObject *self, PyObject *args) {
    PyObject *capsule, *engine;
    (void)self;
    if (!PyArg_UnpackTuple(args, "over_capsule", 2, 2, &capsule, &engine))
        return NULL;
    dnnl_interop_host_tensor taken;
    if (!dnnl_interop_host.configured || !dnnl_interop_host_read(capsule, &taken)
        || !PyObject_TypeCheck(engine, (PyTypeObject *)dnnl_interop_host.engine_type))
        Py_RETURN_NONE;
    void *address = (char *)taken.tensor->data + taken.tensor->byte_offset;
    PyObject *runtime = PyObject_GetAttr(engine, HNAME(runtime));
    int native = runtime != NULL && PyObject_RichCompareBool(runtime, HNAME(native), Py_EQ) == 1;
    Py_DecRef(runtime);
    PyErr_Clear();
    if (!native)
        Py_RETURN_NONE;
    PyObject *plain = dnnl_interop_host_plain(taken.tensor);
    if (plain == NULL) {
        if (PyErr_Occurred())
            return NULL;
        Py_RETURN_NONE;
    }
    PyTypeObject *memory_type = (PyTypeObject *)dnnl_interop_host.memory_type;
    PyObject *memory = PyType_GenericAlloc(memory_type, 0); /* object.__new__(Memory): its tp_alloc */
    PyObject *kept = PyCapsule_New(taken.managed, taken.versioned ? dnnl_interop_host_kept_versioned
                                                                  : dnnl_interop_host_kept_legacy, NULL);
    PyObject *result = NULL, *handle = NULL;
    dnnl_memory_t c_memory = NULL;
    if (memory == NULL || kept == NULL)
        goto done;
    int locked = dnnl_interop_host_lock(1);
    if (locked != 1) { /* -1: an interruption while waiting, raised (the capsule untaken) */
        result = locked == 0 ? Py_None : NULL;
        goto done;
    }
    /* Under the lock: what a close takes out is read here, and stays until the lock is let go. */
    PyObject *entry = dnnl_interop_host_same_library() ? PyDict_GetItemWithError(dnnl_interop_host.plain, plain)
                                                       : NULL;
    PyObject *c_engine_object = entry != NULL ? PyObject_GetAttr(engine, HNAME(handle)) : NULL;
    PyErr_Clear();
    void *md = NULL, *c_engine = NULL;
    if (entry != NULL && PyTuple_Check(entry) && PyTuple_Size(entry) == 3 && c_engine_object != NULL
        && c_engine_object != Py_None) {
        md = _cffi_to_c_pointer(PyTuple_GetItem(entry, 0), (struct _cffi_ctypedescr *)dnnl_interop_host.desc_ctype);
        c_engine = md != NULL ? _cffi_to_c_pointer(c_engine_object,
                                                   (struct _cffi_ctypedescr *)dnnl_interop_host.engine_ctype)
                              : NULL;
        PyErr_Clear();
    }
    Py_DecRef(c_engine_object);
    long long size = md != NULL && c_engine != NULL ? PyLong_AsLongLong(PyTuple_GetItem(entry, 1)) : -1;
    PyErr_Clear();
    if (size < 0 || (size > 0 && address == NULL)) { /* no buffer: the Python path makes that memory */
        dnnl_interop_host_unlock();
        result = Py_None;
        goto done;
    }
    Py_IncRef(entry); /* held past the lock: the cache may let go of it */
    dnnl_status_t status;
    Py_BEGIN_ALLOW_THREADS
    status = dnnl_memory_create(&c_memory, (const_dnnl_memory_desc_t)md, (dnnl_engine_t)c_engine, address);
    Py_END_ALLOW_THREADS
    if (status != dnnl_success) { /* the Python path makes it again and says why */
        c_memory = NULL;
        dnnl_interop_host_unlock();
        Py_DecRef(entry);
        result = Py_None;
        goto done;
    }
    handle = _cffi_from_c_pointer((char *)c_memory, (struct _cffi_ctypedescr *)dnnl_interop_host.memory_ctype);
    if (handle == NULL || dnnl_interop_host_fill(memory, handle, engine, kept, plain, entry) < 0
        || dnnl_interop_host_hold(memory, c_memory) < 0) {
        dnnl_interop_host_unlock();
        Py_DecRef(entry);
        goto done;
    }
    Py_DecRef(entry);
    /* The capsule is checked once more, then taken: the GIL was let go meanwhile (another thread
     * may have taken it), and nothing from here to the renaming runs Python code or can start a
     * collection (which could): the check and the taking are one step for every other thread. */
    const char *name = taken.versioned ? "dltensor_versioned" : "dltensor";
    if (!PyCapsule_IsValid(capsule, name) || PyCapsule_GetPointer(capsule, name) != taken.managed) {
        PyErr_Clear();
        dnnl_interop_host_let_go(memory, c_memory);
        dnnl_interop_host_unlock();
        result = Py_None; /* the Python path says it is taken */
        goto done;
    }
    if (dnnl_interop_host_count(1) < 0) {
        dnnl_interop_host_let_go(memory, c_memory);
        dnnl_interop_host_unlock();
        goto done;
    }
    /* From here on nothing fails: the memory owns the handle, the kept capsule the tensor. */
    PyObject_SetAttr(memory, HNAME(handle), handle);
    PyCapsule_SetName(capsule, taken.versioned ? "used_dltensor_versioned" : "used_dltensor");
    PyCapsule_SetDestructor(kept, dnnl_interop_host_kept_destructor);
    PyErr_Clear();
    c_memory = NULL;
    dnnl_interop_host_unlock();
    result = memory;
    memory = NULL;
    if (PyObject_IsTrue(dnnl_interop_host.finalized) == 1) { /* as Owned._adopt: close what finalizers left */
        PyObject *closed = PyObject_CallFunctionObjArgs(dnnl_interop_host.close_finalized,
                                                        dnnl_interop_host.shared, NULL);
        Py_DecRef(closed);
    }
    PyErr_Clear();
done:
    if (c_memory != NULL) { /* made, then something failed: nothing else knows of it */
        Py_BEGIN_ALLOW_THREADS
        dnnl_memory_destroy(c_memory);
        Py_END_ALLOW_THREADS
    }
    Py_DecRef(handle), Py_DecRef(kept), Py_DecRef(memory), Py_DecRef(plain);
    if (result == NULL)
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    if (result == Py_None)
        Py_RETURN_NONE;
    return result;
}

/* Whether nothing but the finalizer holds memory (see the top of this file): 1, 0. */
static int dnnl_interop_host_idle(PyObject *memory) {
    static const int users[] = {HN_in_flight, HN_calls, HN_dependents, HN_views, HN_holds};
    PyObject *borrowed = PyObject_GetAttr(memory, HNAME(borrowed));
    int idle = borrowed == Py_False;
    Py_DecRef(borrowed);
    for (size_t i = 0; idle && i < sizeof users / sizeof *users; i++) {
        PyObject *value = PyObject_GetAttr(memory, dnnl_interop_host_names[users[i]]);
        idle = value != NULL && PyObject_Size(value) == 0;
        Py_DecRef(value);
    }
    PyErr_Clear();
    return idle;
}

static PyObject *dnnl_interop_host_drop(PyObject *self, PyObject *memory) {
    (void)self;
    if (!dnnl_interop_host.configured || Py_TYPE(memory) != (PyTypeObject *)dnnl_interop_host.memory_type
        || PyObject_Size(dnnl_interop_host.finalized) != 0 || !dnnl_interop_host_idle(memory)) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    if (dnnl_interop_host_lock(0) != 1) { /* another thread holds it: the Python finalizer leaves it to that one */
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    PyObject *handle = PyObject_GetAttr(memory, HNAME(handle));
    void *c_memory = handle != NULL && handle != Py_None
        ? _cffi_to_c_pointer(handle, (struct _cffi_ctypedescr *)dnnl_interop_host.memory_ctype) : NULL;
    if (c_memory == NULL) {
        Py_DecRef(handle);
        PyErr_Clear();
        dnnl_interop_host_unlock();
        Py_RETURN_FALSE;
    }
    /* Owned._close_handle and Memory._on_close, then the bookkeeping of _destroy_handle. */
    PyObject_SetAttr(memory, HNAME(handle), Py_None);
    PyObject_SetAttr(memory, HNAME(executable), Py_None);
    PyObject *changes = PyIter_Next(dnnl_interop_host.change_count);
    if (changes != NULL)
        PyObject_SetAttr(dnnl_interop_host.shared, HNAME(changes), changes);
    Py_DecRef(changes);
    dnnl_interop_host_count(-1);
    PyErr_Clear();
    dnnl_interop_host_let_go(memory, c_memory);
    dnnl_interop_host_unlock();
    Py_BEGIN_ALLOW_THREADS
    dnnl_memory_destroy((dnnl_memory_t)c_memory);
    Py_END_ALLOW_THREADS
    Py_DecRef(handle);
    /* What the handle needed goes after it: the engine, the producer's tensor (its deleter). */
    PyObject *empty = PyTuple_New(0);
    if (empty != NULL) {
        PyObject_SetAttr(memory, HNAME(holds), empty);
        PyObject_SetAttr(memory, HNAME(keep), empty);
    }
    Py_DecRef(empty);
    PyErr_Clear();
    Py_RETURN_TRUE;
}

/* Memory.__del__: drop, or Owned's finalizer (owned_finalizer) for anything drop leaves. */
static PyObject *dnnl_interop_host_finalize(PyObject *memory, PyObject *unused) {
    (void)unused;
    PyObject *dropped = dnnl_interop_host_drop(NULL, memory);
    if (dropped == Py_True)
        return dropped;
    Py_DecRef(dropped);
    return PyObject_CallFunctionObjArgs(dnnl_interop_host.owned_finalizer, memory, NULL);
}

static PyMethodDef dnnl_interop_host_finalizer = {
    "__del__", (PyCFunction)dnnl_interop_host_finalize, METH_NOARGS,
    "Close the memory if nothing else uses it, else as Owned.__del__ (see dnnl_interop/csrc/host_memory.c).",
};

/* configure(memory type, engine type, shared, _PLAIN, _plain_library, _library's globals,
 *           {code << 8 | bits: DataType}, memory ctype, desc ctype, engine ctype, _close_finalized,
 *           Owned.__del__) -> Memory's finalizer (a method descriptor: Memory.__del__) */
static PyObject *dnnl_interop_host_configure(PyObject *self, PyObject *args) {
    PyObject *items[12];
    (void)self;
    if (dnnl_interop_host.configured) {
        PyErr_SetString(PyExc_RuntimeError, "configure: already configured");
        return NULL;
    }
    if (!PyArg_UnpackTuple(args, "configure", 12, 12, &items[0], &items[1], &items[2], &items[3], &items[4],
                           &items[5], &items[6], &items[7], &items[8], &items[9], &items[10], &items[11]))
        return NULL;
    if (!PyType_Check(items[0]) || !PyType_Check(items[1]) || !PyDict_Check(items[3]) || !PyList_Check(items[4])
        || PyList_Size(items[4]) < 1 || !PyDict_Check(items[5]) || !PyDict_Check(items[6])) {
        PyErr_SetString(PyExc_TypeError, "configure: not the objects of _memory's call");
        return NULL;
    }
    PyObject *lock = PyObject_GetAttrString(items[2], "lock");
    PyObject *acquire = lock != NULL ? PyObject_GetAttrString(lock, "acquire") : NULL;
    PyObject *release = lock != NULL ? PyObject_GetAttrString(lock, "release") : NULL;
    PyObject *holders = PyObject_GetAttrString(items[2], "holders");
    PyObject *finalized = PyObject_GetAttrString(items[2], "finalized");
    PyObject *change_count = PyObject_GetAttrString(items[2], "change_count");
    Py_DecRef(lock);
    PyObject *blocking = Py_BuildValue("(O)", Py_True), *not_blocking = Py_BuildValue("(O)", Py_False);
    PyObject *no_arguments = PyTuple_New(0);
    PyObject *finalizer = PyDescr_NewMethod((PyTypeObject *)items[0], &dnnl_interop_host_finalizer);
    if (blocking == NULL || not_blocking == NULL || no_arguments == NULL || finalizer == NULL) {
        Py_DecRef(blocking), Py_DecRef(not_blocking), Py_DecRef(no_arguments), Py_DecRef(finalizer);
        Py_DecRef(acquire), Py_DecRef(release), Py_DecRef(holders), Py_DecRef(finalized), Py_DecRef(change_count);
        return NULL;
    }
    if (acquire == NULL || release == NULL || holders == NULL || finalized == NULL || change_count == NULL
        || !PyDict_Check(holders)) {
        Py_DecRef(acquire), Py_DecRef(release), Py_DecRef(holders), Py_DecRef(finalized), Py_DecRef(change_count);
        Py_DecRef(blocking), Py_DecRef(not_blocking), Py_DecRef(no_arguments), Py_DecRef(finalizer);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "configure: shared.holders is no dict");
        return NULL;
    }
    for (int i = 0; i < 12; i++)
        Py_IncRef(items[i]);
    dnnl_interop_host.memory_type = items[0], dnnl_interop_host.engine_type = items[1];
    dnnl_interop_host.shared = items[2], dnnl_interop_host.plain = items[3];
    dnnl_interop_host.plain_library = items[4], dnnl_interop_host.library_globals = items[5];
    dnnl_interop_host.data_types = items[6], dnnl_interop_host.memory_ctype = items[7];
    dnnl_interop_host.desc_ctype = items[8], dnnl_interop_host.engine_ctype = items[9];
    dnnl_interop_host.close_finalized = items[10], dnnl_interop_host.owned_finalizer = items[11];
    dnnl_interop_host.blocking = blocking, dnnl_interop_host.not_blocking = not_blocking;
    dnnl_interop_host.no_arguments = no_arguments;
    dnnl_interop_host.acquire = acquire, dnnl_interop_host.release = release;
    dnnl_interop_host.holders = holders, dnnl_interop_host.finalized = finalized;
    dnnl_interop_host.change_count = change_count;
    dnnl_interop_host.configured = 1;
    return finalizer;
}

static PyMethodDef dnnl_interop_host_methods[] = {
    {"configure", dnnl_interop_host_configure, METH_VARARGS,
     "Give the host memory path the objects it reads (see dnnl_interop/csrc/host_memory.c)."},
    {"over_capsule", dnnl_interop_host_over_capsule, METH_VARARGS,
     "A Memory of the CPU engine over a DLPack capsule's host tensor, or None (see host_memory.c)."},
    {"drop", dnnl_interop_host_drop, METH_O,
     "Close a Memory nothing else uses, or False (see dnnl_interop/csrc/host_memory.c)."},
    {NULL, NULL, 0, NULL},
};

static int dnnl_interop_host_memory_install(uintptr_t namespace) {
    return dnnl_interop_install(namespace, dnnl_interop_host_methods, dnnl_interop_host_names,
                                dnnl_interop_host_name_text,
                                (int)(sizeof dnnl_interop_host_names / sizeof *dnnl_interop_host_names));
}
