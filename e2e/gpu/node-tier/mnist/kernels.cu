/*
 * The GPU kernels of the node tier's MNIST trainer (main.py beside this file): synthetic MNIST-shaped data, a
 * two-layer perceptron's forward and backward passes, and plain SGD. One thread per output element, no shared memory
 * and no atomics, so the same source also compiles as C: the dry run's fake driver (../fakedriver/libcuda.c) runs it
 * on the CPU, one thread after another.
 *
 * On the GPU machine node-tier.sh compiles this file to PTX (nvcc, else the NVRTC that PyTorch carries); the
 * driver JIT-compiles that PTX when main.py loads it.
 */
#if defined(__CUDACC__)
#define KERNEL extern "C" __global__ void
#define DEVICE __device__ static inline
#else
#define KERNEL void
#define DEVICE static inline
#endif

#define PIXELS 784
#define CLASSES 10

DEVICE unsigned int mix(unsigned int x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

DEVICE float unit01(unsigned int h) { return (float)(h >> 8) * (1.0f / 16777216.0f); }

DEVICE long long thread_index(void) { return (long long)blockIdx.x * blockDim.x + threadIdx.x; }

/* n examples of 28x28 pixels in [0, 1] and their labels: each class lights its own fixed quarter of the pixels
   (drawn from the seed); an example is its class's pattern at 0.3 plus uniform noise up to 0.7, and one example in
   ten carries a random label, so accuracy levels off near 0.9 instead of reaching 1. */
KERNEL make_data(float* x, int* y, int n, unsigned int seed) {
    long long i = thread_index();
    if (i >= (long long)n * PIXELS) return;
    int e = (int)(i / PIXELS), p = (int)(i % PIXELS);
    unsigned int h = mix((unsigned int)e * 2654435761U ^ seed);
    int cls = (int)(h % CLASSES);
    float lit = (mix((unsigned int)(cls * PIXELS + p) ^ (seed * 31U + 7U)) & 3U) == 0U ? 1.0f : 0.0f;
    x[i] = 0.3f * lit + 0.7f * unit01(mix((unsigned int)i * 747796405U + seed));
    if (p == 0) y[e] = (h >> 8) % 10U == 0U ? (int)((h >> 16) % CLASSES) : cls;
}

/* Weights uniform in [-scale, scale]. */
KERNEL init_uniform(float* w, int n, unsigned int seed, float scale) {
    long long i = thread_index();
    if (i >= n) return;
    w[i] = (2.0f * unit01(mix((unsigned int)i * 2246822519U ^ seed)) - 1.0f) * scale;
}

/* The batch of examples start .. start+batch-1 (wrapping at n). */
KERNEL gather(const float* x, const int* y, float* xb, int* yb, int n, int start, int batch) {
    long long i = thread_index();
    if (i >= (long long)batch * PIXELS) return;
    int r = (int)(i / PIXELS), p = (int)(i % PIXELS);
    int e = (start + r) % n;
    xb[i] = x[(long long)e * PIXELS + p];
    if (p == 0) yb[r] = y[e];
}

/* C (M x N) = op(A) (M x K) . op(B) (K x N), plus bias (N) unless it is null, then max(0, .) if relu.
   op(A)(m, k) = ta ? A[k*M + m] : A[m*K + k];  op(B)(k, n) = tb ? B[n*K + k] : B[k*N + n]. */
KERNEL gemm(const float* a, const float* b, const float* bias, float* c, int m, int n, int k, int ta, int tb, int relu) {
    long long i = thread_index();
    if (i >= (long long)m * n) return;
    int row = (int)(i / n), col = (int)(i % n);
    float s = 0.0f;
    for (int j = 0; j < k; j++) {
        float av = ta ? a[(long long)j * m + row] : a[(long long)row * k + j];
        float bv = tb ? b[(long long)col * k + j] : b[(long long)j * n + col];
        s += av * bv;
    }
    if (bias) s += bias[col];
    if (relu && s < 0.0f) s = 0.0f;
    c[i] = s;
}

/* Per row of logits (batch x CLASSES): the cross-entropy loss against the label, whether the arg max is the label,
   and the gradient of the batch's mean loss: (softmax - one-hot) / batch. */
KERNEL softmax_xent(const float* logits, const int* y, float* grad, float* loss, int* correct, int batch) {
    long long r = thread_index();
    if (r >= batch) return;
    const float* z = logits + r * CLASSES;
    float top = z[0];
    int arg = 0;
    for (int c = 1; c < CLASSES; c++) if (z[c] > top) { top = z[c]; arg = c; }
    float sum = 0.0f;
    for (int c = 0; c < CLASSES; c++) sum += expf(z[c] - top);
    int t = y[r];
    loss[r] = logf(sum) - (z[t] - top);
    correct[r] = arg == t ? 1 : 0;
    for (int c = 0; c < CLASSES; c++) grad[r * CLASSES + c] = (expf(z[c] - top) / sum - (c == t ? 1.0f : 0.0f)) / (float)batch;
}

/* The gradient through max(0, .): zero where the activation was zero. */
KERNEL relu_backward(float* grad, const float* act, int n) {
    long long i = thread_index();
    if (i >= n) return;
    if (act[i] <= 0.0f) grad[i] = 0.0f;
}

/* out[col] = sum over rows of g (rows x cols): a bias's gradient. */
KERNEL col_sum(const float* g, float* out, int rows, int cols) {
    long long col = thread_index();
    if (col >= cols) return;
    float s = 0.0f;
    for (int r = 0; r < rows; r++) s += g[(long long)r * cols + col];
    out[col] = s;
}

/* w -= lr * g */
KERNEL sgd(float* w, const float* g, int n, float lr) {
    long long i = thread_index();
    if (i >= n) return;
    w[i] -= lr * g[i];
}
