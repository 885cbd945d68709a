// fusec_split_k.h - split-K: the k-range of one output tile over several blocks.
//
// A conv or GEMM whose output has few tiles (a batch-1 convolution on a 7x7
// map: 8 tiles of 64 x 64 for 132 SMs) leaves most SMs idle however fast
// each block is. Split-K gives each output tile `slices` blocks, each
// multiplying a contiguous share of the k-tiles, and adds their sums:
//
//  * every block stores its partial accumulators to the global `partials`
//    workspace as float4s, one per mma tile (thread t's q-th at q * Threads
//    + t, so a warp's stores and loads are 512 contiguous bytes), then
//    counts itself in the tile's counter;
//  * the block that arrives last (the counter reaches slices - 1) adds the
//    slices' partials in slice order 0, 1, ... (its own read back like the
//    others): the sum, and so the result, does not depend on which block is
//    last.
//    It runs the epilogue, so bias, activations, residual adds and several
//    outputs stay fused, and sets the counter back to 0 for the next launch:
//    the counters are zeroed once, when the workspace is allocated;
//  * the other blocks return without running the epilogue.
//
// Memory ordering: each thread's partial stores are fenced (__threadfence)
// before the block's barrier and its one atomic; the last block's thread 0
// fences again after the atomic, and the block's barrier orders its reads
// after that. The reads bypass L1 (__ldcg): other SMs wrote the lines.
//
// Attention kernels split their key sequence the same way (flash-decoding):
// each slice publishes its rows' running maximum, sum and unnormalised
// output, and the last block merges them (fusec_attention*.h).
//
// The slice count is gridDim.z, set by the runtime per launch
// (support/SplitK.h): 1 runs the kernel unsplit, touching neither
// scratch buffer. Cost of a split: 2 x slices x BM x BN x 4 bytes of L2
// traffic per output tile, which the cost model charges
// (passes/cost/CostModel.cpp); worth it when the unsplit grid fills a small
// share of the SMs and K is long.
#pragma once

/// A block's share of a split reduction. slices == 1 (the default) is no
/// split: the block multiplies every k-tile and runs the epilogue.
struct FusecSplitK {
  int slices = 1;
  /// This block's slice, in [0, slices).
  int slice = 0;
  /// This block's output tile: the index of its counter.
  int tile = 0;
  /// [tiles][slices][BM x BN] floats.
  float *partials = nullptr;
  /// [tiles], zero between launches.
  unsigned *counters = nullptr;
};

/// The k-tiles [begin, end) of `split`'s slice out of `kTiles`: the slices
/// differ by at most one tile. 32-bit: kTiles x slices stays far below 2^32
/// (the templates' offsets are 32-bit, so K / BK < 2^27, and slices <= 16).
__device__ __forceinline__ void fusec_split_k_range(int kTiles, const FusecSplitK &split, int &begin, int &end) {
  begin = int(unsigned(kTiles) * unsigned(split.slice) / unsigned(split.slices));
  end = int(unsigned(kTiles) * unsigned(split.slice + 1) / unsigned(split.slices));
}

/// Stores the calling thread's Count float4s of its slice's partial results
/// (value(q) for q < Count; thread t's q-th at q * Threads + t, so a warp's
/// stores and loads are 512 contiguous bytes) and counts the block in its
/// tile's counter; returns whether the block is its tile's last, which then
/// reads every slice back with fusec_split_k_partial. Every thread of the
/// block (Threads, 1-D) calls it. `last` is a word of shared memory nothing
/// else uses until it returns (the main loop's, free once every thread has
/// passed the first barrier below); a function-local __shared__ variable
/// would do on a GPU, but host compilers make such statics of inline
/// functions one object across every loaded copy of a module
/// (STB_GNU_UNIQUE), which the emulation's concurrent copies would then
/// share.
template <int Threads, int Count, typename Value>
__device__ __forceinline__ bool fusec_split_k_publish(Value value, const FusecSplitK &split, unsigned *last) {
  const int thread = threadIdx.x;
  float4 *const own = reinterpret_cast<float4 *>(split.partials) +
                      ((long long)split.tile * split.slices + split.slice) * (Count * Threads);
#pragma unroll
  for (int q = 0; q < Count; ++q)
    __stcg(own + q * Threads + thread, value(q));
  __threadfence();
  __syncthreads();
  if (thread == 0) {
    const unsigned arrived = atomicAdd(split.counters + split.tile, 1u);
    __threadfence();
    *last = arrived == unsigned(split.slices - 1) ? 1u : 0u;
    if (*last)
      split.counters[split.tile] = 0u;
  }
  __syncthreads();
  return *last != 0u;
}

/// The calling thread's q-th float4 of slice `slice`'s partials of its tile
/// (as fusec_split_k_publish stored them). The reads bypass L1: other SMs
/// wrote the lines.
template <int Threads, int Count>
__device__ __forceinline__ float4 fusec_split_k_partial(const FusecSplitK &split, int slice, int q) {
  return __ldcg(reinterpret_cast<const float4 *>(split.partials) +
                ((long long)split.tile * split.slices + slice) * (Count * Threads) + q * Threads + threadIdx.x);
}

/// Merges a slice's softmax row (its maximum `sliceMax` and sum `sliceSum`,
/// in natural or, with Log2, base-2 units) into the running row (m, l) of
/// the slices before it; `keep` and `add` are what the running and the
/// slice's outputs are then weighed by. A row with no score yet (m =
/// -inf) weighs nothing: exp(-inf - -inf) would be NaN.
template <bool Log2>
__device__ __forceinline__ void fusec_merge_softmax_row(float &m, float &l, float sliceMax, float sliceSum, float &keep,
                                                        float &add) {
  const float mNew = fmaxf(m, sliceMax);
  keep = m == -INFINITY ? 0.0f : Log2 ? exp2f(m - mNew) : expf(m - mNew);
  add = sliceMax == -INFINITY ? 0.0f : Log2 ? exp2f(sliceMax - mNew) : expf(sliceMax - mNew);
  l = l * keep + sliceSum * add;
  m = mNew;
}

/// Publishes the calling block's partial accumulators `acc` (M x N mma
/// tiles of 4 values per thread) and returns whether the block is its
/// tile's last: then `acc` holds the sum over every slice, in slice order.
/// Every thread of the block (Threads, 1-D) calls it; `last` as for
/// fusec_split_k_publish.
template <int Threads, int M, int N>
__device__ __forceinline__ bool fusec_split_k_reduce(float (&acc)[M][N][4], const FusecSplitK &split, unsigned *last) {
  // mma tile q = i N + j of thread t is float4 q Threads + t.
  auto value = [&](int q) {
    const float(&values)[4] = acc[q / N][q % N];
    return make_float4(values[0], values[1], values[2], values[3]);
  };
  if (!fusec_split_k_publish<Threads, M * N>(value, split, last))
    return false;
  // The sum restarts from zero and reads every slice back, the block's own
  // included: one pass per slice, in slice order, a float4 load per mma
  // tile, a compact loop. (A loop over the slices per value, with the own
  // slice from registers, made ptxas take 4x as long on ResNet-50's kernels.)
#pragma unroll
  for (int q = 0; q < M * N; ++q)
#pragma unroll
    for (int r = 0; r < 4; ++r)
      acc[q / N][q % N][r] = 0.0f;
#pragma unroll 1
  for (int s = 0; s < split.slices; ++s) {
#pragma unroll
    for (int q = 0; q < M * N; ++q) {
      const float4 v = fusec_split_k_partial<Threads, M * N>(split, s, q);
      float(&sum)[4] = acc[q / N][q % N];
      sum[0] += v.x;
      sum[1] += v.y;
      sum[2] += v.z;
      sum[3] += v.w;
    }
  }
  return true;
}
