/* How the C files of the Python C API put their functions into the package: each
 * one's install function, called through cffi with the address (id(), CPython's
 * address of the object) of a dict of the module that installs them. */

/* Intern the count names of texts not made yet into names, then put the functions of
 * methods (up to its NULL entry) into the dict at address namespace: 0, or -1 (the
 * error cleared). */
static int dnnl_interop_install(uintptr_t namespace, PyMethodDef *methods, PyObject **names,
                                const char *const *texts, int count) {
    PyGILState_STATE gil = PyGILState_Ensure(); /* cffi calls C without the GIL */
    int status = 0;
    for (int i = 0; i < count; i++) {
        if (names[i] == NULL)
            names[i] = PyUnicode_InternFromString(texts[i]);
        if (names[i] == NULL)
            status = -1;
    }
    for (PyMethodDef *method = methods; status == 0 && method->ml_name != NULL; method++) {
        PyObject *function = PyCFunction_NewEx(method, NULL, NULL);
        if (function == NULL || PyDict_SetItemString((PyObject *)namespace, method->ml_name, function) < 0)
            status = -1;
        Py_DecRef(function);
    }
    if (status < 0)
        PyErr_Clear();
    PyGILState_Release(gil);
    return status;
}
