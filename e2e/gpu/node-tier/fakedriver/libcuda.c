/*
 * A fake libcuda.so.1 for the dry run of e2e/gpu/node-tier.sh on a machine without a GPU: the part of the CUDA driver
 * API that the MNIST trainer (../mnist/main.py) calls, run on the CPU. Kernels are the trainer's own
 * (../mnist/kernels.cu, compiled here as C) looked up by name; the PTX handed to cuModuleLoadDataEx is not read.
 * "Device pointers" are host addresses. Memory follows what MPS does on the H200 (docs/facts.md): a client capped by
 * CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=<n>[MG] sees the cap less a 512 MiB context as free, and an allocation past it
 * fails with CUDA_ERROR_OUT_OF_MEMORY. It reports itself as a fake device, so nothing it prints passes for a GPU.
 * Build: gcc -shared -fPIC -O2 -o libcuda.so.1 libcuda.c -lm
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static struct { unsigned int x, y, z; } blockIdx, blockDim, threadIdx;

#include "../mnist/kernels.cu"

typedef int CUresult;
typedef uint64_t CUdeviceptr;
enum { OK = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2, NOT_INITIALIZED = 3, INVALID_HANDLE = 400, NOT_FOUND = 500 };

static const unsigned long long MIB = 1024ULL * 1024ULL;
static const unsigned long long TOTAL = 143771ULL * 1024ULL * 1024ULL;
static const unsigned long long CONTEXT = 512ULL * 1024ULL * 1024ULL;
static int initialised;
static unsigned long long used; /* bytes allocated by this process */
static unsigned long long cap;  /* bytes this process may hold, context included */

typedef void (*trampoline)(void** p);
#define P(i, t) (*(t*)p[i])
static void t_make_data(void** p) { make_data(P(0, float*), P(1, int*), P(2, int), P(3, unsigned int)); }
static void t_init_uniform(void** p) { init_uniform(P(0, float*), P(1, int), P(2, unsigned int), P(3, float)); }
static void t_gather(void** p) { gather(P(0, const float*), P(1, const int*), P(2, float*), P(3, int*), P(4, int), P(5, int), P(6, int)); }
static void t_gemm(void** p) {
    gemm(P(0, const float*), P(1, const float*), P(2, const float*), P(3, float*), P(4, int), P(5, int), P(6, int), P(7, int), P(8, int), P(9, int));
}
static void t_softmax_xent(void** p) { softmax_xent(P(0, const float*), P(1, const int*), P(2, float*), P(3, float*), P(4, int*), P(5, int)); }
static void t_relu_backward(void** p) { relu_backward(P(0, float*), P(1, const float*), P(2, int)); }
static void t_col_sum(void** p) { col_sum(P(0, const float*), P(1, float*), P(2, int), P(3, int)); }
static void t_sgd(void** p) { sgd(P(0, float*), P(1, const float*), P(2, int), P(3, float)); }

static const struct { const char* name; trampoline run; } KERNELS[] = {
    {"make_data", t_make_data}, {"init_uniform", t_init_uniform}, {"gather", t_gather}, {"gemm", t_gemm},
    {"softmax_xent", t_softmax_xent}, {"relu_backward", t_relu_backward}, {"col_sum", t_col_sum}, {"sgd", t_sgd},
};
static const int MODULE_TAG = 0x6d6e6973;

/* Largest cap for ordinal 0 in CUDA_MPS_PINNED_DEVICE_MEM_LIMIT ("0=8192M,1=..."), or the whole device. */
static unsigned long long cap_from_env(void) {
    const char* v = getenv("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT");
    if (!v) return TOTAL;
    const char* s = strstr(v, "0=");
    if (!s || (s != v && s[-1] != ',')) return TOTAL;
    char* end;
    unsigned long long n = strtoull(s + 2, &end, 10);
    if (*end == 'G' || *end == 'g') n *= 1024ULL * MIB;
    else n *= MIB;
    return n < TOTAL ? n : TOTAL;
}

CUresult cuInit(unsigned int flags) {
    (void)flags;
    cap = cap_from_env();
    used = 0;
    initialised = 1;
    return OK;
}

CUresult cuDriverGetVersion(int* v) { *v = 13000; return OK; }
CUresult cuDeviceGetCount(int* n) { if (!initialised) return NOT_INITIALIZED; *n = 1; return OK; }
CUresult cuDeviceGet(int* d, int ordinal) { if (!initialised) return NOT_INITIALIZED; if (ordinal != 0) return INVALID_VALUE; *d = 0; return OK; }
CUresult cuDeviceGetName(char* name, int len, int d) {
    (void)d;
    strncpy(name, "mpshare fake GPU (dry run, CPU)", (size_t)len - 1);
    name[len - 1] = 0;
    return OK;
}
CUresult cuDeviceTotalMem_v2(size_t* bytes, int d) { (void)d; *bytes = TOTAL; return OK; }
CUresult cuDeviceGetAttribute(int* v, int attr, int d) { (void)d; *v = attr == 16 ? 132 : 0; return OK; }

CUresult cuDevicePrimaryCtxRetain(void** ctx, int d) {
    (void)d;
    if (!initialised) return NOT_INITIALIZED;
    if (cap <= CONTEXT) return OUT_OF_MEMORY;
    used = CONTEXT;
    *ctx = (void*)&initialised;
    return OK;
}
CUresult cuCtxSetCurrent(void* ctx) { (void)ctx; return OK; }
CUresult cuCtxSynchronize(void) { return OK; }

CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total) {
    *free_bytes = cap > used ? cap - used : 0;
    *total = TOTAL;
    return OK;
}

/* Allocations are reserved, not committed (MAP_NORESERVE): a probe of several GiB costs this machine nothing. */
CUresult cuMemAlloc_v2(CUdeviceptr* ptr, size_t bytes) {
    if (bytes == 0) return INVALID_VALUE;
    size_t rounded = (bytes + 2 * MIB - 1) / (2 * MIB) * (2 * MIB);
    if (used + rounded > cap) return OUT_OF_MEMORY;
    void* m = mmap(NULL, rounded + 64, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return OUT_OF_MEMORY;
    *(size_t*)m = rounded;
    used += rounded;
    *ptr = (CUdeviceptr)(uintptr_t)((char*)m + 64);
    return OK;
}

CUresult cuMemFree_v2(CUdeviceptr ptr) {
    if (!ptr) return INVALID_VALUE;
    char* m = (char*)(uintptr_t)ptr - 64;
    size_t rounded = *(size_t*)m;
    used -= rounded;
    munmap(m, rounded + 64);
    return OK;
}

CUresult cuMemsetD8_v2(CUdeviceptr ptr, unsigned char v, size_t n) { memset((void*)(uintptr_t)ptr, v, n); return OK; }
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t n) { memcpy((void*)(uintptr_t)dst, src, n); return OK; }
CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t n) { memcpy(dst, (const void*)(uintptr_t)src, n); return OK; }

CUresult cuModuleLoadDataEx(void** module, const void* image, unsigned int n, int* opts, void** vals) {
    (void)image; (void)n; (void)opts; (void)vals;
    *module = (void*)&MODULE_TAG;
    return OK;
}

CUresult cuModuleGetFunction(void** fn, void* module, const char* name) {
    if (module != (void*)&MODULE_TAG) return INVALID_HANDLE;
    for (size_t i = 0; i < sizeof KERNELS / sizeof KERNELS[0]; i++)
        if (strcmp(KERNELS[i].name, name) == 0) { *fn = (void*)&KERNELS[i]; return OK; }
    return NOT_FOUND;
}

CUresult cuLaunchKernel(void* fn, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,
                        unsigned int bz, unsigned int shared, void* stream, void** params, void** extra) {
    (void)shared; (void)stream; (void)extra;
    if (gy != 1 || gz != 1 || by != 1 || bz != 1) return INVALID_VALUE;
    trampoline run = ((const __typeof__(KERNELS[0])*)fn)->run;
    blockDim.x = bx; blockDim.y = blockDim.z = 1;
    blockIdx.y = blockIdx.z = threadIdx.y = threadIdx.z = 0;
    for (blockIdx.x = 0; blockIdx.x < gx; blockIdx.x++)
        for (threadIdx.x = 0; threadIdx.x < bx; threadIdx.x++) run(params);
    return OK;
}

static const char* name_of(CUresult e) {
    switch (e) {
        case OK: return "CUDA_SUCCESS";
        case INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
        case OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
        case NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
        case INVALID_HANDLE: return "CUDA_ERROR_INVALID_HANDLE";
        case NOT_FOUND: return "CUDA_ERROR_NOT_FOUND";
        default: return "CUDA_ERROR_UNKNOWN";
    }
}
CUresult cuGetErrorName(CUresult e, const char** s) { *s = name_of(e); return OK; }
CUresult cuGetErrorString(CUresult e, const char** s) { *s = e == OUT_OF_MEMORY ? "out of memory" : name_of(e); return OK; }
