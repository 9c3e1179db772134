// The C allocator's own controls (glibc's malloc_trim), where the platform has them.
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif
