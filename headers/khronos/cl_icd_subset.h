/*******************************************************************************
 * Copyright (c) 2019-2020 The Khronos Group Inc.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *    http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 ******************************************************************************/

/* The vendor dispatch table of the Khronos OpenCL-Headers <CL/cl_icd.h>, with
 * its entries in the upstream order (the ICD ABI: a loader and a layer agree on
 * each entry's position). Entries the emulated-GPU layer neither calls nor
 * replaces are declared `void *`, as upstream does for the platform-specific
 * ones; the others keep their function types. The non-Windows layout. */

#ifndef DNNL_INTEROP_KHRONOS_CL_ICD_SUBSET_H
#define DNNL_INTEROP_KHRONOS_CL_ICD_SUBSET_H

#include "cl_subset.h"

typedef struct _cl_icd_dispatch {
  /* OpenCL 1.0 */
  void *clGetPlatformIDs;
  clGetPlatformInfo_t *clGetPlatformInfo;
  clGetDeviceIDs_t *clGetDeviceIDs;
  clGetDeviceInfo_t *clGetDeviceInfo;
  void *clCreateContext;
  void *clCreateContextFromType;
  void *clRetainContext;
  void *clReleaseContext;
  void *clGetContextInfo;
  void *clCreateCommandQueue;
  void *clRetainCommandQueue;
  void *clReleaseCommandQueue;
  void *clGetCommandQueueInfo;
  void *clSetCommandQueueProperty;
  void *clCreateBuffer;
  void *clCreateImage2D;
  void *clCreateImage3D;
  void *clRetainMemObject;
  void *clReleaseMemObject;
  void *clGetSupportedImageFormats;
  void *clGetMemObjectInfo;
  void *clGetImageInfo;
  void *clCreateSampler;
  void *clRetainSampler;
  void *clReleaseSampler;
  void *clGetSamplerInfo;
  void *clCreateProgramWithSource;
  void *clCreateProgramWithBinary;
  clRetainProgram_t *clRetainProgram;
  clReleaseProgram_t *clReleaseProgram;
  void *clBuildProgram;
  void *clUnloadCompiler;
  clGetProgramInfo_t *clGetProgramInfo;
  void *clGetProgramBuildInfo;
  clCreateKernel_t *clCreateKernel;
  clCreateKernelsInProgram_t *clCreateKernelsInProgram;
  void *clRetainKernel;
  clReleaseKernel_t *clReleaseKernel;
  void *clSetKernelArg;
  clGetKernelInfo_t *clGetKernelInfo;
  void *clGetKernelWorkGroupInfo;
  clWaitForEvents_t *clWaitForEvents;
  clGetEventInfo_t *clGetEventInfo;
  void *clRetainEvent;
  void *clReleaseEvent;
  void *clGetEventProfilingInfo;
  void *clFlush;
  clFinish_t *clFinish;
  clEnqueueReadBuffer_t *clEnqueueReadBuffer;
  clEnqueueWriteBuffer_t *clEnqueueWriteBuffer;
  void *clEnqueueCopyBuffer;
  void *clEnqueueReadImage;
  void *clEnqueueWriteImage;
  void *clEnqueueCopyImage;
  void *clEnqueueCopyImageToBuffer;
  void *clEnqueueCopyBufferToImage;
  clEnqueueMapBuffer_t *clEnqueueMapBuffer;
  void *clEnqueueMapImage;
  void *clEnqueueUnmapMemObject;
  void *clEnqueueNDRangeKernel;
  void *clEnqueueTask;
  void *clEnqueueNativeKernel;
  void *clEnqueueMarker;
  void *clEnqueueWaitForEvents;
  void *clEnqueueBarrier;
  void *clGetExtensionFunctionAddress;
  void *clCreateFromGLBuffer;
  void *clCreateFromGLTexture2D;
  void *clCreateFromGLTexture3D;
  void *clCreateFromGLRenderbuffer;
  void *clGetGLObjectInfo;
  void *clGetGLTextureInfo;
  void *clEnqueueAcquireGLObjects;
  void *clEnqueueReleaseGLObjects;
  void *clGetGLContextInfoKHR;

  /* cl_khr_d3d10_sharing */
  void *clGetDeviceIDsFromD3D10KHR;
  void *clCreateFromD3D10BufferKHR;
  void *clCreateFromD3D10Texture2DKHR;
  void *clCreateFromD3D10Texture3DKHR;
  void *clEnqueueAcquireD3D10ObjectsKHR;
  void *clEnqueueReleaseD3D10ObjectsKHR;

  /* OpenCL 1.1 */
  void *clSetEventCallback;
  void *clCreateSubBuffer;
  void *clSetMemObjectDestructorCallback;
  void *clCreateUserEvent;
  void *clSetUserEventStatus;
  void *clEnqueueReadBufferRect;
  void *clEnqueueWriteBufferRect;
  void *clEnqueueCopyBufferRect;

  /* cl_ext_device_fission */
  void *clCreateSubDevicesEXT;
  void *clRetainDeviceEXT;
  void *clReleaseDeviceEXT;

  /* cl_khr_gl_event */
  void *clCreateEventFromGLsyncKHR;

  /* OpenCL 1.2 */
  void *clCreateSubDevices;
  void *clRetainDevice;
  void *clReleaseDevice;
  void *clCreateImage;
  void *clCreateProgramWithBuiltInKernels;
  void *clCompileProgram;
  void *clLinkProgram;
  void *clUnloadPlatformCompiler;
  void *clGetKernelArgInfo;
  void *clEnqueueFillBuffer;
  void *clEnqueueFillImage;
  void *clEnqueueMigrateMemObjects;
  void *clEnqueueMarkerWithWaitList;
  void *clEnqueueBarrierWithWaitList;
  void *clGetExtensionFunctionAddressForPlatform;
  void *clCreateFromGLTexture;

  /* cl_khr_d3d11_sharing and cl_khr_dx9_media_sharing */
  void *clGetDeviceIDsFromD3D11KHR;
  void *clCreateFromD3D11BufferKHR;
  void *clCreateFromD3D11Texture2DKHR;
  void *clCreateFromD3D11Texture3DKHR;
  void *clCreateFromDX9MediaSurfaceKHR;
  void *clEnqueueAcquireD3D11ObjectsKHR;
  void *clEnqueueReleaseD3D11ObjectsKHR;
  void *clGetDeviceIDsFromDX9MediaAdapterKHR;
  void *clEnqueueAcquireDX9MediaSurfacesKHR;
  void *clEnqueueReleaseDX9MediaSurfacesKHR;

  /* cl_khr_egl_image */
  void *clCreateFromEGLImageKHR;
  void *clEnqueueAcquireEGLObjectsKHR;
  void *clEnqueueReleaseEGLObjectsKHR;

  /* cl_khr_egl_event */
  void *clCreateEventFromEGLSyncKHR;

  /* OpenCL 2.0 */
  void *clCreateCommandQueueWithProperties;
  void *clCreatePipe;
  void *clGetPipeInfo;
  void *clSVMAlloc;
  void *clSVMFree;
  void *clEnqueueSVMFree;
  void *clEnqueueSVMMemcpy;
  void *clEnqueueSVMMemFill;
  void *clEnqueueSVMMap;
  void *clEnqueueSVMUnmap;
  void *clCreateSamplerWithProperties;
  void *clSetKernelArgSVMPointer;
  void *clSetKernelExecInfo;

  /* cl_khr_sub_groups */
  void *clGetKernelSubGroupInfoKHR;

  /* OpenCL 2.1 */
  clCloneKernel_t *clCloneKernel;
  void *clCreateProgramWithIL;
  void *clEnqueueSVMMigrateMem;
  void *clGetDeviceAndHostTimer;
  void *clGetHostTimer;
  void *clGetKernelSubGroupInfo;
  void *clSetDefaultDeviceCommandQueue;

  /* OpenCL 2.2 */
  void *clSetProgramReleaseCallback;
  void *clSetProgramSpecializationConstant;

  /* OpenCL 3.0 */
  void *clCreateBufferWithProperties;
  void *clCreateImageWithProperties;
  void *clSetContextDestructorCallback;

} cl_icd_dispatch;

#endif
