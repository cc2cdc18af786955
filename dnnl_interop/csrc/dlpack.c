/* DLPack capsules (after dlpack.h). PyCapsules are Python objects, which cffi
 * cannot pass: dnnl_interop_dlpack_install puts three C functions of the Python
 * C API (stable ABI only) into a dict given by its address (id(), CPython's
 * address of the object): export and export_memory (a new capsule over a copy,
 * or over a memory's own buffer) and take (a consumer's side: check, rename and
 * read a capsule). The capsule destructor and the deleters are C: they may run
 * at interpreter shutdown, or in a thread without the GIL. See
 * dnnl_interop/_dlpack.py for the Python side. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

/* What the deleters of the tensors exported here do: let go of the Python
 * object that keeps the data valid, then free the one block that holds the
 * struct, the shape and the strides. A memory's own buffer is kept by a use of
 * the memory's handle (owner: a (memory, key) tuple, ended by memory._release(key));
 * a copy by the array that holds it (owner: the array). After finalization the
 * reference is leaked rather than touching a dead interpreter. */
/* Names looked up on every export, made once by dnnl_interop_dlpack_install (interned). */
static PyObject *dnnl_interop_dlpack_names[11];
enum {
    DN_views, DN_handle, DN_release, DN_view, DN_dlpack, DN_layout, DN_in_flight, DN_keep, DN_runtime, DN_native,
    DN_read_only,
};
static const char *const dnnl_interop_dlpack_name_text[] = {
    "_views", "_handle", "_release", "view", "dlpack", "_layout", "_in_flight", "_keep", "_runtime", "native",
    "_read_only",
};
#define DNAME(n) dnnl_interop_dlpack_names[DN_##n]

/* The end of a use of a memory's handle (key in memory._views): the key discarded, and, if
 * the memory is closed meanwhile, memory._release(key), which destroys the handle once no
 * user is left. An open memory needs no more (nothing waits to destroy its handle), so the
 * usual release calls no Python code. The GIL is held throughout: no close runs between the
 * two steps. -1 with an exception set on failure. */
static int dnnl_interop_dlpack_end_use(PyObject *memory, PyObject *key) {
    PyObject *views = PyObject_GetAttr(memory, DNAME(views));
    int status = views != NULL ? PySet_Discard(views, key) : -1;
    Py_DecRef(views);
    if (status < 0)
        return -1;
    PyObject *handle = PyObject_GetAttr(memory, DNAME(handle));
    if (handle == NULL)
        return -1;
    int closed = handle == Py_None;
    Py_DecRef(handle);
    if (!closed)
        return 0;
    PyObject *result = PyObject_CallMethodObjArgs(memory, DNAME(release), key, NULL);
    Py_DecRef(result);
    return result != NULL ? 0 : -1;
}

static void dnnl_interop_dlpack_free(void *block, void *owner, int release) {
    if (owner != NULL && Py_IsInitialized()) {
        PyGILState_STATE gil = PyGILState_Ensure();
        PyObject *type, *value, *traceback;
        PyErr_Fetch(&type, &value, &traceback);
        if (release && dnnl_interop_dlpack_end_use(PyTuple_GetItem((PyObject *)owner, 0),
                                                   PyTuple_GetItem((PyObject *)owner, 1)) < 0)
            PyErr_WriteUnraisable((PyObject *)owner);
        Py_DecRef((PyObject *)owner);
        PyErr_Restore(type, value, traceback);
        PyGILState_Release(gil);
    }
    free(block);
}
static void dnnl_interop_dlpack_deleter(DLManagedTensor *self) {
    dnnl_interop_dlpack_free(self, self->manager_ctx, 0);
}
static void dnnl_interop_dlpack_deleter_versioned(DLManagedTensorVersioned *self) {
    dnnl_interop_dlpack_free(self, self->manager_ctx, 0);
}
static void dnnl_interop_dlpack_release_deleter(DLManagedTensor *self) {
    dnnl_interop_dlpack_free(self, self->manager_ctx, 1);
}
static void dnnl_interop_dlpack_release_deleter_versioned(DLManagedTensorVersioned *self) {
    dnnl_interop_dlpack_free(self, self->manager_ctx, 1);
}

/* A consumer's release of a tensor it took: its producer's deleter, once. */
static void dnnl_interop_dlpack_delete(DLManagedTensor *managed) {
    if (managed != NULL && managed->deleter != NULL)
        managed->deleter(managed);
}
static void dnnl_interop_dlpack_delete_versioned(DLManagedTensorVersioned *managed) {
    if (managed != NULL && managed->deleter != NULL)
        managed->deleter(managed);
}

/* The destructor of the capsules exported here: a capsule no consumer took
 * (still named "dltensor[_versioned]") releases its tensor. */
static void dnnl_interop_dlpack_capsule_destructor(PyObject *capsule) {
    if (PyCapsule_IsValid(capsule, "used_dltensor_versioned") || PyCapsule_IsValid(capsule, "used_dltensor"))
        return;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (PyCapsule_IsValid(capsule, "dltensor_versioned"))
        dnnl_interop_dlpack_delete_versioned(PyCapsule_GetPointer(capsule, "dltensor_versioned"));
    else if (PyCapsule_IsValid(capsule, "dltensor"))
        dnnl_interop_dlpack_delete(PyCapsule_GetPointer(capsule, "dltensor"));
    else
        PyErr_WriteUnraisable(capsule);
    PyErr_Restore(type, value, traceback);
}

/* A capsule over a new tensor: template (see export) with data at address; owner
 * (a new reference, taken over) is its manager_ctx; release: whether the
 * deleter ends a use of a memory's handle (see dnnl_interop_dlpack_free). */
static PyObject *dnnl_interop_dlpack_capsule(PyObject *template_, void *address, PyObject *owner,
                                             unsigned long long flags, long minor, int release) {
    char *bytes;
    Py_ssize_t size;
    DLTensor model;
    if (PyBytes_AsStringAndSize(template_, &bytes, &size) < 0)
        goto fail;
    if (size < (Py_ssize_t)sizeof model) {
        PyErr_SetString(PyExc_ValueError, "export: the template is shorter than a DLTensor");
        goto fail;
    }
    memcpy(&model, bytes, sizeof model);
    size_t dims = (size_t)size - sizeof model;
    if (model.ndim < 0 || dims != 2 * (size_t)model.ndim * sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "export: the template holds no shape and strides of its ndim");
        goto fail;
    }
    size_t head = minor >= 0 ? sizeof(DLManagedTensorVersioned) : sizeof(DLManagedTensor);
    char *block = malloc(head + dims);
    if (block == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    int64_t *shape = (int64_t *)(block + head);
    memcpy(shape, bytes + sizeof model, dims);
    model.data = address;
    model.shape = shape;
    model.strides = shape + model.ndim;
    const char *name;
    if (minor >= 0) {
        DLManagedTensorVersioned *managed = (DLManagedTensorVersioned *)block;
        managed->version.major = 1;
        managed->version.minor = (uint32_t)minor;
        managed->manager_ctx = owner;
        managed->deleter = release ? dnnl_interop_dlpack_release_deleter_versioned
                                   : dnnl_interop_dlpack_deleter_versioned;
        managed->flags = flags;
        managed->dl_tensor = model;
        name = "dltensor_versioned";
    } else {
        DLManagedTensor *managed = (DLManagedTensor *)block;
        managed->dl_tensor = model;
        managed->manager_ctx = owner;
        managed->deleter = release ? dnnl_interop_dlpack_release_deleter : dnnl_interop_dlpack_deleter;
        name = "dltensor";
    }
    PyObject *capsule = PyCapsule_New(block, name, dnnl_interop_dlpack_capsule_destructor);
    if (capsule == NULL) {
        free(block);
        goto fail;
    }
    return capsule;
fail:
    if (release) { /* the use of the memory's handle ends here */
        PyObject *type, *value, *traceback;
        PyErr_Fetch(&type, &value, &traceback);
        if (dnnl_interop_dlpack_end_use(PyTuple_GetItem(owner, 0), PyTuple_GetItem(owner, 1)) < 0)
            PyErr_Clear();
        PyErr_Restore(type, value, traceback);
    }
    Py_DecRef(owner);
    return NULL;
}

/* export(template, data, owner, flags, minor): a capsule over a copy. template:
 * the bytes of a DLTensor (data, shape and strides left out), followed by its
 * shape and strides (int64 each); data: its address; owner: what keeps the
 * data valid (a reference, dropped by the deleter); flags: the versioned
 * struct's; minor: the DLPack 1.x minor version of a versioned capsule, or -1
 * for a legacy "dltensor" one. */
static PyObject *dnnl_interop_dlpack_export(PyObject *self, PyObject *args) {
    PyObject *template_, *data, *owner, *flags_object, *minor_object;
    (void)self;
    if (!PyArg_UnpackTuple(args, "export", 5, 5, &template_, &data, &owner, &flags_object, &minor_object))
        return NULL;
    void *address = PyLong_AsVoidPtr(data);
    unsigned long long flags = PyLong_AsUnsignedLongLong(flags_object);
    long minor = PyLong_AsLong(minor_object);
    if (PyErr_Occurred())
        return NULL;
    Py_IncRef(owner);
    return dnnl_interop_dlpack_capsule(template_, address, owner, flags, minor, 0);
}

static unsigned long long dnnl_interop_dlpack_uses = 0; /* with the GIL held */

/* export_memory(template, memory, handle, address, flags, minor): a capsule over
 * a memory's own buffer. handle: the memory's _handle (a cffi pointer) and
 * address its value. A use of the handle is registered first (("view", "dlpack",
 * n) added to memory._views, as a numpy view's key), then the handle is checked
 * to still be the memory's, then its data handle read: the use keeps it valid
 * until the consumer's deleter ends it. Returns None for a closed memory, and
 * (for a buffer of no address) the int 0. */
static PyObject *dnnl_interop_dlpack_over_memory(PyObject *template_, PyObject *memory, PyObject *handle,
                                                 void *c_memory, unsigned long long flags, long minor) {
    PyObject *users = PyObject_GetAttr(memory, DNAME(views));
    if (users == NULL)
        return NULL;
    PyObject *count = PyLong_FromUnsignedLongLong(++dnnl_interop_dlpack_uses);
    PyObject *key = count != NULL ? PyTuple_Pack(3, DNAME(view), DNAME(dlpack), count)
                                  : NULL;
    Py_DecRef(count);
    PyObject *owner = key != NULL ? PyTuple_New(2) : NULL;
    if (owner == NULL || PySet_Add(users, key) < 0) {
        Py_DecRef(users);
        Py_DecRef(key);
        Py_DecRef(owner);
        return NULL;
    }
    Py_DecRef(users);
    Py_IncRef(memory);
    PyTuple_SetItem(owner, 0, memory);
    PyTuple_SetItem(owner, 1, key); /* owner holds memory and key from here on */
    PyObject *current = PyObject_GetAttr(memory, DNAME(handle));
    int same = current == handle;
    Py_DecRef(current);
    PyErr_Clear(); /* no _handle: not the handle given */
    void *data = NULL;
    if (same && dnnl_memory_get_data_handle((dnnl_memory_t)c_memory, &data) != dnnl_success)
        same = 0;
    if (!same || data == NULL) {
        int ended = dnnl_interop_dlpack_end_use(memory, key);
        Py_DecRef(owner);
        if (ended < 0)
            return NULL;
        if (!same)
            Py_RETURN_NONE;
        return PyLong_FromLong(0);
    }
    return dnnl_interop_dlpack_capsule(template_, data, owner, flags, minor, 1);
}

static PyObject *dnnl_interop_dlpack_export_memory(PyObject *self, PyObject *args) {
    PyObject *template_, *memory, *handle, *address_object, *flags_object, *minor_object;
    (void)self;
    if (!PyArg_UnpackTuple(args, "export_memory", 6, 6, &template_, &memory, &handle, &address_object,
                           &flags_object, &minor_object))
        return NULL;
    void *c_memory = PyLong_AsVoidPtr(address_object);
    unsigned long long flags = PyLong_AsUnsignedLongLong(flags_object);
    long minor = PyLong_AsLong(minor_object);
    if (PyErr_Occurred())
        return NULL;
    return dnnl_interop_dlpack_over_memory(template_, memory, handle, c_memory, flags, minor);
}

/* What export_host reads (set by configure): dicts of _dlpack.py, borrowed for the
 * process's life (the module keeps them). */
static PyObject *dnnl_interop_dlpack_host_templates, *dnnl_interop_dlpack_handles, *dnnl_interop_dlpack_minors;

/* configure(host_templates, handles, minors): the dicts export_host reads (see _dlpack.py). */
static PyObject *dnnl_interop_dlpack_configure(PyObject *self, PyObject *args) {
    PyObject *templates, *handles, *minors;
    (void)self;
    if (!PyArg_UnpackTuple(args, "configure", 3, 3, &templates, &handles, &minors))
        return NULL;
    if (!PyDict_Check(templates) || !PyDict_Check(handles) || !PyDict_Check(minors)) {
        PyErr_SetString(PyExc_TypeError, "configure: three dicts");
        return NULL;
    }
    Py_IncRef(templates), Py_IncRef(handles), Py_IncRef(minors);
    Py_DecRef(dnnl_interop_dlpack_host_templates);
    Py_DecRef(dnnl_interop_dlpack_handles);
    Py_DecRef(dnnl_interop_dlpack_minors);
    dnnl_interop_dlpack_host_templates = templates, dnnl_interop_dlpack_handles = handles;
    dnnl_interop_dlpack_minors = minors;
    Py_RETURN_NONE;
}

/* d[id(obj)], borrowed, or NULL (no exception) when absent. */
static PyObject *dnnl_interop_dlpack_by_id(PyObject *d, PyObject *obj) {
    PyObject *id = PyLong_FromVoidPtr(obj);
    if (id == NULL) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *found = PyDict_GetItemWithError(d, id);
    Py_DecRef(id);
    if (found == NULL)
        PyErr_Clear();
    return found;
}

/* export_host(memory, max_version): Memory.__dlpack__'s usual call in one C call, or None
 * where it does not apply, for the Python path (_dlpack.export) to do or say what is needed:
 * host memory of the CPU engine, open, with no work in flight, not read-only, of a layout
 * exported in place before (host_templates[id(memory._layout)] is (that very layout,
 * template)), whose handle's address _dlpack has read (handles[id(memory)] is (that very
 * handle, its address)), and a max_version in minors. */
static PyObject *dnnl_interop_dlpack_export_host(PyObject *self, PyObject *args) {
    PyObject *memory, *max_version;
    (void)self;
    if (!PyArg_UnpackTuple(args, "export_host", 2, 2, &memory, &max_version))
        return NULL;
    if (dnnl_interop_dlpack_minors == NULL)
        Py_RETURN_NONE;
    PyObject *minor_object = PyDict_GetItemWithError(dnnl_interop_dlpack_minors, max_version);
    if (minor_object == NULL) { /* unhashable or unknown: the Python path says why */
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    long minor = PyLong_AsLong(minor_object);
    PyObject *layout = NULL, *in_flight = NULL, *keep = NULL, *runtime = NULL, *read_only = NULL, *handle = NULL;
    PyObject *result = NULL;
    int usable = 0;
    void *c_memory = NULL;
    PyObject *template_ = NULL;
    layout = PyObject_GetAttr(memory, DNAME(layout));
    if (layout == NULL)
        goto done;
    PyObject *entry = dnnl_interop_dlpack_by_id(dnnl_interop_dlpack_host_templates, layout);
    if (entry == NULL || !PyTuple_Check(entry) || PyTuple_Size(entry) != 2 || PyTuple_GetItem(entry, 0) != layout)
        goto done;
    template_ = PyTuple_GetItem(entry, 1);
    in_flight = PyObject_GetAttr(memory, DNAME(in_flight));
    if (in_flight == NULL || PyObject_IsTrue(in_flight) != 0) /* work in flight: waited for in Python */
        goto done;
    keep = PyObject_GetAttr(memory, DNAME(keep));
    if (keep == NULL || !PyTuple_Check(keep) || PyTuple_Size(keep) < 2)
        goto done;
    runtime = PyObject_GetAttr(PyTuple_GetItem(keep, 1), DNAME(runtime));
    if (runtime == NULL || PyObject_RichCompareBool(runtime, DNAME(native), Py_EQ) != 1)
        goto done;
    read_only = PyObject_GetAttr(memory, DNAME(read_only));
    if (read_only != NULL && PyObject_IsTrue(read_only) != 0)
        goto done;
    PyErr_Clear(); /* no _read_only: writable */
    handle = PyObject_GetAttr(memory, DNAME(handle));
    if (handle == NULL || handle == Py_None)
        goto done;
    PyObject *known = dnnl_interop_dlpack_by_id(dnnl_interop_dlpack_handles, memory);
    if (known == NULL || !PyTuple_Check(known) || PyTuple_Size(known) != 2 || PyTuple_GetItem(known, 0) != handle)
        goto done;
    c_memory = PyLong_AsVoidPtr(PyTuple_GetItem(known, 1));
    usable = c_memory != NULL;
done:
    PyErr_Clear();
    if (usable) {
        Py_IncRef(template_); /* held through the call: the dict may be cleared meanwhile */
        result = dnnl_interop_dlpack_over_memory(template_, memory, handle, c_memory, 0, minor);
        Py_DecRef(template_);
        if (result != NULL && !PyCapsule_CheckExact(result)) { /* closed meanwhile, or no buffer */
            Py_DecRef(result);
            result = NULL;
            usable = 0;
        }
    }
    Py_DecRef(layout), Py_DecRef(in_flight), Py_DecRef(keep), Py_DecRef(runtime), Py_DecRef(read_only);
    Py_DecRef(handle);
    if (usable)
        return result; /* a capsule, or NULL with the exception set */
    Py_RETURN_NONE;
}

/* take(capsule): None if it is no unused DLPack capsule; otherwise renamed
 * "used_dltensor[_versioned]" (the consumer owns the tensor from then on) and
 * (address of the managed struct, versioned, major, flags, data + byte_offset,
 * device_type, device_id, code, bits, lanes, shape, strides or None). A
 * versioned tensor of another major version gives (address, 1, major) only:
 * nothing else of it can be read. A tensor with no shape for its dimensions
 * raises BufferError, untaken. */
static PyObject *dnnl_interop_dlpack_take(PyObject *self, PyObject *capsule) {
    (void)self;
    int versioned;
    void *managed;
    DLTensor *tensor;
    unsigned long long flags = 0;
    unsigned int major = 0;
    if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
        DLManagedTensorVersioned *v = PyCapsule_GetPointer(capsule, "dltensor_versioned");
        versioned = 1, managed = v, tensor = &v->dl_tensor, flags = v->flags, major = v->version.major;
    } else if (PyCapsule_IsValid(capsule, "dltensor")) {
        DLManagedTensor *m = PyCapsule_GetPointer(capsule, "dltensor");
        versioned = 0, managed = m, tensor = &m->dl_tensor;
    } else {
        Py_RETURN_NONE;
    }
    if (versioned && major != 1) {
        if (PyCapsule_SetName(capsule, "used_dltensor_versioned") < 0)
            return NULL;
        return Py_BuildValue("(KiI)", (unsigned long long)(uintptr_t)managed, versioned, major);
    }
    int ndim = tensor->ndim;
    if (ndim < 0 || (ndim > 0 && tensor->shape == NULL)) {
        PyErr_SetString(PyExc_BufferError, "the DLPack tensor has no shape for its dimensions");
        return NULL;
    }
    PyObject *shape = PyTuple_New(ndim);
    PyObject *strides = tensor->strides != NULL ? PyTuple_New(ndim) : (Py_IncRef(Py_None), Py_None);
    if (shape == NULL || strides == NULL)
        goto fail;
    for (int i = 0; i < ndim; i++) {
        PyObject *item = PyLong_FromLongLong(tensor->shape[i]);
        if (item == NULL || PyTuple_SetItem(shape, i, item) < 0)
            goto fail;
        if (tensor->strides != NULL) {
            item = PyLong_FromLongLong(tensor->strides[i]);
            if (item == NULL || PyTuple_SetItem(strides, i, item) < 0)
                goto fail;
        }
    }
    if (PyCapsule_SetName(capsule, versioned ? "used_dltensor_versioned" : "used_dltensor") < 0)
        goto fail;
    return Py_BuildValue(
        "(KiIKKiiiiiNN)", (unsigned long long)(uintptr_t)managed, versioned, major, flags,
        (unsigned long long)((uintptr_t)tensor->data + tensor->byte_offset),
        (int)tensor->device.device_type, (int)tensor->device.device_id,
        (int)tensor->dtype.code, (int)tensor->dtype.bits, (int)tensor->dtype.lanes, shape, strides);
fail:
    Py_DecRef(shape);
    Py_DecRef(strides);
    return NULL;
}

static PyMethodDef dnnl_interop_dlpack_methods[] = {
    {"export", dnnl_interop_dlpack_export, METH_VARARGS,
     "A DLPack capsule over a copy (see dnnl_interop/csrc/dlpack.c)."},
    {"export_memory", dnnl_interop_dlpack_export_memory, METH_VARARGS,
     "A DLPack capsule over a memory's buffer (see dnnl_interop/csrc/dlpack.c)."},
    {"configure", dnnl_interop_dlpack_configure, METH_VARARGS,
     "Give export_host the dicts it reads (see dnnl_interop/csrc/dlpack.c)."},
    {"export_host", dnnl_interop_dlpack_export_host, METH_VARARGS,
     "Memory.__dlpack__'s usual call, or None (see dnnl_interop/csrc/dlpack.c)."},
    {"take", dnnl_interop_dlpack_take, METH_O,
     "Take a DLPack capsule as its consumer (see dnnl_interop/csrc/dlpack.c)."},
    {NULL, NULL, 0, NULL},
};

static int dnnl_interop_dlpack_install(uintptr_t namespace) {
    return dnnl_interop_install(namespace, dnnl_interop_dlpack_methods, dnnl_interop_dlpack_names,
                                dnnl_interop_dlpack_name_text,
                                (int)(sizeof dnnl_interop_dlpack_names / sizeof *dnnl_interop_dlpack_names));
}
