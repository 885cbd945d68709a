// fusec_reduction.h - row reductions: softmax, LayerNorm, ArgMax/ArgMin, Reduce*.
//
// One block of kThreads threads per reduced row (softmax, LayerNorm) or per
// output element (ArgMax/ArgMin, Reduce*, GlobalAveragePool, which is a
// ReduceMean over H and W). Each thread walks a strided share of the row's
// elements (l = threadIdx.x, l + kThreads, ...) in registers; the block then
// combines the threads' partial results: warp shuffles and one float per
// warp in shared memory (fusec_block_sum, fusec_block_max and
// fusec_block_reduce of the prelude), or for ArgMax/ArgMin a tree over one
// (value, index) choice per thread.
//
// The algorithms are fixed here; the kernel supplies, as functors, what only
// it knows (codegen/ReductionKernels.cpp generates them from the fused ops):
//
//  * load(l) -> float: element l of the block's row, the fused prologue
//    evaluated where it is read. The row passes call it once per pass, so a
//    prologue is evaluated again in every pass, as nothing is kept in shared
//    memory;
//  * output(l, normalize) (softmax, LayerNorm): reads element l again as x,
//    computes y from normalize(x) (LayerNorm's scale and bias are the
//    kernel's), evaluates the fused epilogue and stores. normalize is the
//    template's SoftmaxNormalizer or LayerNormNormalizer (the functor takes
//    it by that type); the prologue's values stay at hand for the epilogue;
//  * store(result) (ArgMax/ArgMin, Reduce*): the block's one result, called
//    by thread 0 only;
//  * Op (Reduce*): a type with static identity(), contribution(x),
//    combine(a, b) (associative and commutative) and finish(v, count), the
//    arithmetic of support/Reductions.h;
//  * Choice (ArgMax/ArgMin): a type with static prefers(value, index,
//    current, currentIndex), support/Reductions.h's argPrefers: associative,
//    so the tree may combine the choices in any order.
//
// Shared memory is declared by the kernel, not here (the emulation gives a
// static of an inline function one object across loaded modules: see
// codegen/emulation/fusec_cuda_emulation.h): kScratchFloats floats for the
// block reductions, kThreads values and indices for the arg tree.
//
// Requires blockDim.x == kThreads (a power of two, a multiple of the warp
// size). The loops stride by blockDim.x, not the constant, as the kernels
// did before the template: with a constant stride NVVM drops the loop of a
// row shorter than the block, which test/unit/codegen/NvrtcTest.cpp's loop
// count would then miss.
#pragma once

template <int kThreads_> struct FusecRowReduction {
  static constexpr int kThreads = kThreads_;
  static constexpr int kWarps = kThreads / FUSEC_WARP_SIZE;
  /// The floats of shared memory fusec_block_* take: one per warp.
  static constexpr int kScratchFloats = kWarps;
  static_assert(kThreads % FUSEC_WARP_SIZE == 0 && kThreads <= 1024, "whole warps, at most a block");
  static_assert((kThreads & (kThreads - 1)) == 0, "the arg tree halves the block");

  /// The linear index of element 0 of row `row` of a tensor reduced over
  /// an axis of `length` elements `inner` apart (the product of the
  /// dimensions after it); element l is at base + l * inner. inner == 1:
  /// rows are consecutive runs of `length`.
  __device__ static long long rowBase(long long row, long long length, long long inner) {
    return (row / inner) * length * inner + row % inner;
  }

  /// What the row passes hand to output(l, normalize): normalize(x), an
  /// element's value in the result before the kernel's own arithmetic. A
  /// type each, not a lambda: the output functor takes it by its type, as
  /// NVRTC compiles no generic lambda in device code.
  struct SoftmaxNormalizer {
    float rowMax, rowSum;
    __device__ float operator()(float x) const { return expf(x - rowMax) / rowSum; }
  };
  struct LayerNormNormalizer {
    float mean, invStd;
    __device__ float operator()(float x) const { return (x - mean) * invStd; }
  };

  /// Softmax over the row's `length` elements: the row's maximum, the sum
  /// of exp(x - max), then output(l, x -> exp(x - max) / sum) for each.
  template <typename Load, typename Output>
  __device__ static void softmax(long long length, float *scratch, Load &&load, Output &&output) {
    float localMax = -INFINITY;
    for (long long l = threadIdx.x; l < length; l += blockDim.x)
      localMax = fmaxf(localMax, load(l));
    const float rowMax = fusec_block_max(localMax, scratch);
    float localSum = 0.0f;
    for (long long l = threadIdx.x; l < length; l += blockDim.x)
      localSum += expf(load(l) - rowMax);
    const float rowSum = fusec_block_sum(localSum, scratch);
    for (long long l = threadIdx.x; l < length; l += blockDim.x)
      output(l, SoftmaxNormalizer{rowMax, rowSum});
  }

  /// LayerNormalization's statistics over the row's `length` elements: the
  /// mean, then the variance as the mean of (x - mean)^2 (two passes, not
  /// E[x^2] - mean^2, which cancels), then output(l, x -> (x - mean) /
  /// sqrt(variance + epsilon)) for each.
  template <typename Load, typename Output>
  __device__ static void layerNorm(long long length, float epsilon, float *scratch, Load &&load, Output &&output) {
    float localSum = 0.0f;
    for (long long l = threadIdx.x; l < length; l += blockDim.x)
      localSum += load(l);
    const float mean = fusec_block_sum(localSum, scratch) / (float)length;
    float localSquares = 0.0f;
    for (long long l = threadIdx.x; l < length; l += blockDim.x) {
      const float x = load(l);
      localSquares += (x - mean) * (x - mean);
    }
    const float invStd = 1.0f / sqrtf(fusec_block_sum(localSquares, scratch) / (float)length + epsilon);
    for (long long l = threadIdx.x; l < length; l += blockDim.x)
      output(l, LayerNormNormalizer{mean, invStd});
  }

  /// layerNorm for a `load` too dear to call three times per element (a
  /// depthwise conv evaluated per element, rule conv-into-norm): each thread
  /// loads its elements l = threadIdx.x + i * blockDim.x once into
  /// registers (kPerThread * blockDim.x >= length), the statistics are
  /// layerNorm's, and output(l, normalizer, x) receives the element. Sums
  /// run in the same order as layerNorm's, so the results are the same.
  template <int kPerThread, typename Load, typename Output>
  __device__ static void layerNormCached(long long length, float epsilon, float *scratch, Load &&load,
                                         Output &&output) {
    float values[kPerThread];
    float localSum = 0.0f;
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      const long long l = (long long)threadIdx.x + (long long)i * blockDim.x;
      values[i] = l < length ? load(l) : 0.0f;
      localSum += values[i];
    }
    const float mean = fusec_block_sum(localSum, scratch) / (float)length;
    float localSquares = 0.0f;
#pragma unroll
    for (int i = 0; i < kPerThread; ++i)
      if ((long long)threadIdx.x + (long long)i * blockDim.x < length)
        localSquares += (values[i] - mean) * (values[i] - mean);
    const float invStd = 1.0f / sqrtf(fusec_block_sum(localSquares, scratch) / (float)length + epsilon);
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      const long long l = (long long)threadIdx.x + (long long)i * blockDim.x;
      if (l < length)
        output(l, LayerNormNormalizer{mean, invStd}, values[i]);
    }
  }

  /// ArgMax / ArgMin over `length` elements: each thread keeps the element
  /// Choice prefers among its share (index -1: none yet), the block's
  /// choices meet in a tree over `choiceValue` and `choiceIndex` (kThreads
  /// each), and thread 0 stores the index chosen.
  template <typename Choice, typename Load, typename Store>
  __device__ static void argReduce(long long length, float *choiceValue, long long *choiceIndex, Load &&load,
                                   Store &&store) {
    float best = 0.0f;
    long long bestIndex = -1;
    for (long long l = threadIdx.x; l < length; l += blockDim.x) {
      const float x = load(l);
      if (Choice::prefers(x, l, best, bestIndex)) {
        best = x;
        bestIndex = l;
      }
    }
    choiceValue[threadIdx.x] = best;
    choiceIndex[threadIdx.x] = bestIndex;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (int(threadIdx.x) < half) {
        const float other = choiceValue[threadIdx.x + half], mine = choiceValue[threadIdx.x];
        const long long otherIndex = choiceIndex[threadIdx.x + half], mineIndex = choiceIndex[threadIdx.x];
        if (Choice::prefers(other, otherIndex, mine, mineIndex)) {
          choiceValue[threadIdx.x] = other;
          choiceIndex[threadIdx.x] = otherIndex;
        }
      }
      __syncthreads();
    }
    if (threadIdx.x == 0)
      store(choiceIndex[0]);
  }

  /// A Reduce* op over `count` elements: each thread combines the
  /// contributions of its share into Op::identity(), the block combines
  /// the threads' values, and thread 0 stores Op::finish(value, count).
  template <typename Op, typename Load, typename Store>
  __device__ static void reduce(long long count, float *scratch, Load &&load, Store &&store) {
    float local = Op::identity();
    for (long long r = threadIdx.x; r < count; r += blockDim.x)
      local = Op::combine(local, Op::contribution(load(r)));
    const float combined =
        fusec_block_reduce(local, Op::identity(), scratch, [](float a, float b) { return Op::combine(a, b); });
    const float result = Op::finish(combined, count);
    if (threadIdx.x == 0)
      store(result);
  }
};
