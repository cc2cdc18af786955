/* Opaque OpenCL handle types, as declared by the Khronos <CL/cl.h>.
 *
 * The interop API only passes these handles through, so a binding needs the
 * type names but none of the OpenCL API: no OpenCL headers or libraries are
 * required to build dnnl_interop. The struct tags match the Khronos headers,
 * so C code that also includes <CL/cl.h> sees the same types. */

#ifndef DNNL_INTEROP_OPENCL_HANDLES_H
#define DNNL_INTEROP_OPENCL_HANDLES_H

typedef struct _cl_platform_id *cl_platform_id;
typedef struct _cl_device_id *cl_device_id;
typedef struct _cl_context *cl_context;
typedef struct _cl_command_queue *cl_command_queue;
typedef struct _cl_mem *cl_mem;
typedef struct _cl_event *cl_event;

#endif
