/* Opaque Level Zero handle types, as declared by <level_zero/ze_api.h>.
 *
 * The interop API only passes these handles through, so a binding needs the
 * type names but none of the Level Zero API: no Level Zero headers or loader
 * are required to build dnnl_interop. The struct tags match ze_api.h, so C
 * code that also includes it sees the same types. */

#ifndef DNNL_INTEROP_LEVEL_ZERO_HANDLES_H
#define DNNL_INTEROP_LEVEL_ZERO_HANDLES_H

typedef struct _ze_driver_handle_t *ze_driver_handle_t;
typedef struct _ze_device_handle_t *ze_device_handle_t;
typedef struct _ze_context_handle_t *ze_context_handle_t;
typedef struct _ze_command_list_handle_t *ze_command_list_handle_t;
typedef struct _ze_event_handle_t *ze_event_handle_t;

#endif
