#include <Python.h>
static struct PyModuleDef m = {PyModuleDef_HEAD_INIT, "_framehook", NULL, -1, NULL};
PyMODINIT_FUNC PyInit__framehook(void) { return PyModule_Create(&m); }
