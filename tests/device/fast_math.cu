// RoPE's half-layout rotation on a CUDA device, the angle's sine and cosine taken four ways, to record what the
// hardware computes (tests/device/record.py drives it; its outputs are tests/data/gpu/, read by
// tests/reference/gpu_recorded.py). Each thread turns one pair (i, i + d/2) of one vector:
//   angle   φ = fl32(m) · θ_i in float32, as Hugging Face's LlamaRotaryEmbedding computes freqs (one product);
//   sin/cos by Kind: kIntrinsic __sinf/__cosf (what sinf/cosf become under nvcc --use_fast_math); kSinPi sincospif of
//           φ · fl32(1/π), a float32 quotient rounded to nearest; kAccurate sincosf (compiled without
//           --use_fast_math: the accurate library routine; with it, __sinf/__cosf again);
//   output  y_i = x_i·cos − x_{i+d/2}·sin, y_{i+d/2} = x_{i+d/2}·cos + x_i·sin, each product and the sum rounded
//           (__fmul_rn, __fadd_rn: no fused multiply-add), as PyTorch's q·cos + rotate_half(q)·sin rounds them.
// Usage: fast_math IN_DIR OUT_DIR S H D, IN_DIR holding q.f32 [S, H, D], positions.i32 [S], theta.f32 [D/2];
// writes OUT_DIR/<kind>.f32 [S, H, D] for each kind.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <cuda_runtime.h>

enum Kind { kIntrinsic, kSinPi, kAccurate };

template <int kind>
__global__ void rope_half(const float* q, float* out, const int* pos, const float* theta, int S, int H, int D) {
  const int half = D / 2;
  const long idx = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= static_cast<long>(S) * H * half) return;
  const int i = static_cast<int>(idx % half);
  const long sh = idx / half;
  const int s = static_cast<int>(sh / H);
  const float angle = __fmul_rn(static_cast<float>(pos[s]), theta[i]);
  float c, sn;
  if (kind == kIntrinsic) {
    sn = __sinf(angle);
    c = __cosf(angle);
  } else if (kind == kSinPi) {
    sincospif(__fmul_rn(angle, static_cast<float>(1.0 / 3.14159265358979323846)), &sn, &c);
  } else {
    sincosf(angle, &sn, &c);
  }
  const float* x = q + sh * D;
  float* y = out + sh * D;
  const float a = x[i], b = x[i + half];
  y[i] = __fadd_rn(__fmul_rn(a, c), __fmul_rn(-b, sn));
  y[i + half] = __fadd_rn(__fmul_rn(b, c), __fmul_rn(a, sn));
}

static std::vector<char> read_file(const std::string& path, size_t bytes) {
  std::vector<char> data(bytes);
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f || std::fread(data.data(), 1, bytes, f) != bytes) {
    std::fprintf(stderr, "fast_math: cannot read %zu bytes from %s\n", bytes, path.c_str());
    std::exit(3);
  }
  std::fclose(f);
  return data;
}

static void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "fast_math: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(4);
  }
}

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: fast_math IN_DIR OUT_DIR S H D\n");
    return 2;
  }
  const std::string in = argv[1], out = argv[2];
  const int S = std::atoi(argv[3]), H = std::atoi(argv[4]), D = std::atoi(argv[5]);
  const size_t n = static_cast<size_t>(S) * H * D;
  const auto q = read_file(in + "/q.f32", n * 4);
  const auto pos = read_file(in + "/positions.i32", static_cast<size_t>(S) * 4);
  const auto theta = read_file(in + "/theta.f32", static_cast<size_t>(D / 2) * 4);
  float *dq, *dout, *dtheta;
  int* dpos;
  check(cudaMalloc(&dq, n * 4), "cudaMalloc");
  check(cudaMalloc(&dout, n * 4), "cudaMalloc");
  check(cudaMalloc(&dpos, static_cast<size_t>(S) * 4), "cudaMalloc");
  check(cudaMalloc(&dtheta, static_cast<size_t>(D / 2) * 4), "cudaMalloc");
  check(cudaMemcpy(dq, q.data(), n * 4, cudaMemcpyHostToDevice), "copy q");
  check(cudaMemcpy(dpos, pos.data(), static_cast<size_t>(S) * 4, cudaMemcpyHostToDevice), "copy positions");
  check(cudaMemcpy(dtheta, theta.data(), static_cast<size_t>(D / 2) * 4, cudaMemcpyHostToDevice), "copy theta");
  const long pairs = static_cast<long>(S) * H * (D / 2);
  const int threads = 256;
  const int blocks = static_cast<int>((pairs + threads - 1) / threads);
  const char* names[] = {"intrinsic", "sinpi", "accurate"};
  std::vector<float> host(n);
  for (int kind = 0; kind < 3; ++kind) {
    check(cudaMemset(dout, 0xff, n * 4), "memset");
    if (kind == kIntrinsic) rope_half<kIntrinsic><<<blocks, threads>>>(dq, dout, dpos, dtheta, S, H, D);
    if (kind == kSinPi) rope_half<kSinPi><<<blocks, threads>>>(dq, dout, dpos, dtheta, S, H, D);
    if (kind == kAccurate) rope_half<kAccurate><<<blocks, threads>>>(dq, dout, dpos, dtheta, S, H, D);
    check(cudaGetLastError(), "launch");
    check(cudaDeviceSynchronize(), "kernel");
    check(cudaMemcpy(host.data(), dout, n * 4, cudaMemcpyDeviceToHost), "copy out");
    const std::string path = out + "/" + names[kind] + ".f32";
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(host.data(), 4, n, f) != n) {
      std::fprintf(stderr, "fast_math: cannot write %s\n", path.c_str());
      return 3;
    }
    std::fclose(f);
  }
  return 0;
}
