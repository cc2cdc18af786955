/* glibc 2.34 moved dlopen and its kin from libdl into libc under a new symbol
 * version, so a module linked there would need glibc 2.34 to load. On x86-64
 * the references are bound to the versions every glibc has (libc keeps them),
 * as a link against an older glibc makes them; the module then loads on glibc
 * from 2.17 on (manylinux_2_28 and lower), where they live in libdl.so.2
 * (setup.py names it). */

#if defined(__GLIBC__) && defined(__x86_64__)
__asm__(".symver dlopen,dlopen@GLIBC_2.2.5");
__asm__(".symver dlsym,dlsym@GLIBC_2.2.5");
__asm__(".symver dlerror,dlerror@GLIBC_2.2.5");
__asm__(".symver dladdr,dladdr@GLIBC_2.2.5");
#endif
