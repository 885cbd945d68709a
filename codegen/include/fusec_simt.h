// fusec_simt.h - the SIMT (CUDA-core) matrix product and convolutions.
//
// What the tensor-core templates do not take runs here, in f32 FMA:
//
//  * FusecSimtGemm<Tile> (simt_gemm: A transposed, K or N known only at run
//    time): square output tiles of kTile x kTile, one output element per
//    thread; per step of kTile along K, the block stages a tile of A and one
//    of B in shared memory, synchronises, and each thread accumulates its
//    row of the A tile times its column of the B tile;
//  * FusecSimtConv<Tile> (simt_conv: a size known only at run time, offsets
//    beyond 32 bits): the same loop as an implicit GEMM whose rows are the
//    output pixels (n, oh, ow), whose columns are the output channels and
//    whose reduction runs over the taps (c, kh, kw), or (kh, kw, c)
//    channels-last; the im2col matrix is never stored: an A element is read
//    from the input where the tap's window falls, 0 in the padding;
//  * FusecDirectConv<Tile> (direct_conv: groups, e.g. depthwise): one output
//    element per thread of a grid-stride loop, the taps of its group's
//    input channels summed in registers, windows outside the image skipped.
//
// The loops, the tile staging and the synchronisation are fixed here; the
// kernel supplies, as functors, what only it knows (codegen/GemmKernels.cpp
// and codegen/ConvKernels.cpp generate them):
//
//  * loadA(row, k), loadB(k, col) -> float (FusecSimtGemm): the operands'
//    elements, addressed as the product's transposes and batch say. Called
//    only inside M x K and K x N;
//  * input(on, c, ih, iw) -> float (the convolutions): the input element of
//    image on, channel c, row ih and column iw, NCHW or NHWC as the kernel
//    stores it; called only inside the image;
//  * weight(co, k) -> float (FusecSimtConv): tap k of filter co, the weights
//    read as a Co x K row-major matrix (OIHW, or OHWI channels-last);
//    weight(co, c, kh, kw) -> float (FusecDirectConv): the weight of filter
//    co, channel c of its group, tap (kh, kw);
//  * epilogue(row, col, acc) (FusecSimtGemm) and epilogue(on, co, oh, ow,
//    acc) (the convolutions): the fused epilogue and the stores, called once
//    per output element inside the output.
//
// Functors take concrete parameter types (NVRTC compiles no generic lambda
// in device code). Shared memory is declared by the kernel, not here (the
// emulation gives a static of an inline function one object across loaded
// modules: see codegen/emulation/fusec_cuda_emulation.h), as two Tile
// arrays, kSmemBytes in all (KernelConfig::sharedBytes, which the kernels
// static_assert against).
//
// FusecSimtGemm and FusecSimtConv require blockDim == (kTile, kTile, 1);
// FusecDirectConv takes any one-dimensional block and grid.
//
// Each reads its parameters from one tile description by name
// (fusec_pipeline.h's names), checked by FusecCheckSimtTile and
// FusecCheckConvTile: the square tile kTile = kBlockM = kBlockN = kBlockK
// of the tiled loops, and the convolutions' geometry beside the config's
// fields, kGroup (1 for FusecSimtConv), the window kStrideH, kStrideW,
// kPadTop, kPadLeft, kDilationH, kDilationW and the layout kChannelsLast.
// (The template parameter is called Description here: Tile is the staged
// tile's type.)
#pragma once

/// A convolution's sizes: images n, input channels c of h x w, output
/// channels co of ho x wo, windows kh x kw.
struct FusecConvSizes {
  long long n, c, h, w, co, ho, wo, kh, kw;

  /// The taps each output sums over (a filter's weights): c * kh * kw.
  __device__ long long taps() const { return c * kh * kw; }
};

/// What the tiled loops read of their description, each member checked by
/// name.
template <class Description> struct FusecCheckSimtTile {
  static_assert(FusecTileHas_kBlockM<Description>::value, "the SIMT tile description has no kBlockM");
  static_assert(FusecTileHas_kBlockN<Description>::value, "the SIMT tile description has no kBlockN");
  static_assert(FusecTileHas_kBlockK<Description>::value, "the SIMT tile description has no kBlockK");
  static constexpr bool value = true;
};

/// What the convolutions read of theirs: the groups and the window.
template <class Description> struct FusecCheckConvTile {
  static_assert(FusecTileHas_kGroup<Description>::value, "the convolution description has no kGroup");
  static_assert(FusecTileHas_kStrideH<Description>::value, "the convolution description has no kStrideH");
  static_assert(FusecTileHas_kStrideW<Description>::value, "the convolution description has no kStrideW");
  static_assert(FusecTileHas_kPadTop<Description>::value, "the convolution description has no kPadTop");
  static_assert(FusecTileHas_kPadLeft<Description>::value, "the convolution description has no kPadLeft");
  static_assert(FusecTileHas_kDilationH<Description>::value, "the convolution description has no kDilationH");
  static_assert(FusecTileHas_kDilationW<Description>::value, "the convolution description has no kDilationW");
  static_assert(FusecTileHas_kChannelsLast<Description>::value, "the convolution description has no kChannelsLast");
  static_assert(Description::kStrideH >= 1 && Description::kStrideW >= 1, "kStrideH and kStrideW are at least 1");
  static_assert(Description::kDilationH >= 1 && Description::kDilationW >= 1,
                "kDilationH and kDilationW are at least 1");
  static constexpr bool value = true;
};

template <class Description> struct FusecSimtGemm {
  static_assert(FusecCheckSimtTile<Description>::value, "a complete SIMT tile description");
  static_assert(Description::kBlockM == Description::kBlockN && Description::kBlockN == Description::kBlockK,
                "kBlockM, kBlockN and kBlockK: the SIMT tile is square, T x T x T");
  static constexpr int kTile = Description::kBlockM;
  static constexpr int kThreads = kTile * kTile;
  /// One staged tile: a column of padding keeps the A tile's row reads and
  /// the B tile's column writes free of bank conflicts.
  using Tile = float[kTile][kTile + 1];
  /// The two tiles: A's and B's.
  static constexpr int kSmemBytes = 2 * kTile * (kTile + 1) * int(sizeof(float));
  static_assert(kTile > 0 && kThreads <= 1024, "a tile's threads fit one block");

  /// C = A B for A M x K and B K x N: thread (x, y) of the block computes
  /// element (firstRow + y, firstCol + x), its k-sum in order k = 0, 1, ...,
  /// K - 1, and passes it to the epilogue when inside M x N.
  template <typename LoadA, typename LoadB, typename Epilogue>
  __device__ static void run(long long M, long long N, long long K, long long firstRow, long long firstCol, Tile &tileA,
                             Tile &tileB, LoadA &&loadA, LoadB &&loadB, Epilogue &&epilogue) {
    const int tx = threadIdx.x, ty = threadIdx.y;
    const long long row = firstRow + ty, col = firstCol + tx;
    float acc = 0.0f;
    for (long long k0 = 0; k0 < K; k0 += kTile) {
      tileA[ty][tx] = (row < M && k0 + tx < K) ? loadA(row, k0 + tx) : 0.0f;
      tileB[ty][tx] = (col < N && k0 + ty < K) ? loadB(k0 + ty, col) : 0.0f;
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < kTile; ++kk)
        acc += tileA[ty][kk] * tileB[kk][tx];
      __syncthreads();
    }
    if (row < M && col < N)
      epilogue(row, col, acc);
  }
};

/// The window of output row oh: input row oh * kStride - kPad + tap *
/// kDilation for tap 0, 1, ... (and the same for columns).
template <int kStride, int kPad, int kDilation> struct FusecConvWindow {
  __device__ static long long at(long long out, long long tap) { return out * kStride - kPad + tap * kDilation; }
};

template <class Description> struct FusecSimtConv {
  static_assert(FusecCheckConvTile<Description>::value, "a complete convolution description");
  static_assert(Description::kGroup == 1, "kGroup: the implicit GEMM computes group-1 convolutions");
  static constexpr int kStrideH = Description::kStrideH, kStrideW = Description::kStrideW;
  static constexpr int kPadTop = Description::kPadTop, kPadLeft = Description::kPadLeft;
  static constexpr int kDilationH = Description::kDilationH, kDilationW = Description::kDilationW;
  static constexpr bool kChannelsLast = Description::kChannelsLast;
  using Gemm = FusecSimtGemm<Description>;
  using Tile = typename Gemm::Tile;
  static constexpr int kTile = Gemm::kTile;
  static constexpr int kThreads = Gemm::kThreads;
  static constexpr int kSmemBytes = Gemm::kSmemBytes;
  using Rows = FusecConvWindow<kStrideH, kPadTop, kDilationH>;
  using Columns = FusecConvWindow<kStrideW, kPadLeft, kDilationW>;

  /// The convolution of `s` as the product of the im2col matrix (n ho wo x
  /// c kh kw) and the transposed weights (c kh kw x co): pixels from
  /// firstPixel on the block's rows, output channels from firstFilter on its
  /// columns.
  template <typename Input, typename Weight, typename Epilogue>
  __device__ static void run(const FusecConvSizes &s, long long firstPixel, long long firstFilter, Tile &tileA,
                             Tile &tileB, Input &&input, Weight &&weight, Epilogue &&epilogue) {
    // The thread's pixel, decomposed once.
    const long long m = firstPixel + threadIdx.y;
    const long long on = m / (s.ho * s.wo), oh = (m / s.wo) % s.ho, ow = m % s.wo;
    auto im2col = [&](long long, long long k) {
      // k is (c, kh, kw), or (kh, kw, c) channels-last.
      const long long c = kChannelsLast ? k % s.c : k / (s.kh * s.kw);
      const long long r = kChannelsLast ? k / s.c : k % (s.kh * s.kw);
      const long long ih = Rows::at(oh, r / s.kw), iw = Columns::at(ow, r % s.kw);
      float a = 0.0f;
      if (ih >= 0 && ih < s.h && iw >= 0 && iw < s.w)
        a = input(on, c, ih, iw);
      return a;
    };
    auto weights = [&](long long k, long long co) { return weight(co, k); };
    auto output = [&](long long, long long co, float acc) { epilogue(on, co, oh, ow, acc); };
    Gemm::run(s.n * s.ho * s.wo, s.co, s.taps(), firstPixel, firstFilter, tileA, tileB, im2col, weights, output);
  }
};

template <class Description> struct FusecDirectConv {
  static_assert(FusecCheckConvTile<Description>::value, "a complete convolution description");
  static constexpr int kGroup = Description::kGroup;
  static constexpr int kStrideH = Description::kStrideH, kStrideW = Description::kStrideW;
  static constexpr int kPadTop = Description::kPadTop, kPadLeft = Description::kPadLeft;
  static constexpr int kDilationH = Description::kDilationH, kDilationW = Description::kDilationW;
  static constexpr bool kChannelsLast = Description::kChannelsLast;
  using Rows = FusecConvWindow<kStrideH, kPadTop, kDilationH>;
  using Columns = FusecConvWindow<kStrideW, kPadLeft, kDilationW>;
  static_assert(kGroup >= 1, "kGroup: at least one group");

  /// The input channels of a group: the weights' second dimension (OIHW),
  /// or last (OHWI).
  __device__ static long long inputChannelsPerGroup(const FusecConvSizes &s) { return s.c / kGroup; }

  /// Every output element of `s`, in the output's order (NCHW, or NHWC
  /// channels-last), strided over the grid's threads: its group's channels
  /// c, then window rows kh, then columns kw, in that order, skipping taps
  /// outside the image.
  template <typename Input, typename Weight, typename Epilogue>
  __device__ static void run(const FusecConvSizes &s, Input &&input, Weight &&weight, Epilogue &&epilogue) {
    const long long total = s.n * s.co * s.ho * s.wo;
    for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
         idx += (long long)gridDim.x * blockDim.x) {
      long long on, co, oh, ow;
      if (kChannelsLast) {
        co = idx % s.co, ow = (idx / s.co) % s.wo;
        oh = (idx / (s.co * s.wo)) % s.ho;
        on = idx / (s.co * s.wo * s.ho);
      } else {
        ow = idx % s.wo, oh = (idx / s.wo) % s.ho;
        co = (idx / (s.wo * s.ho)) % s.co;
        on = idx / (s.wo * s.ho * s.co);
      }
      const long long perGroupIn = inputChannelsPerGroup(s), perGroupOut = s.co / kGroup;
      const long long firstChannel = (co / perGroupOut) * perGroupIn;
      float acc = 0.0f;
      for (long long c = 0; c < perGroupIn; ++c)
        for (long long kh = 0; kh < s.kh; ++kh) {
          const long long ih = Rows::at(oh, kh);
          if (ih < 0 || ih >= s.h)
            continue;
          for (long long kw = 0; kw < s.kw; ++kw) {
            const long long iw = Columns::at(ow, kw);
            if (iw < 0 || iw >= s.w)
              continue;
            acc += input(on, firstChannel + c, ih, iw) * weight(co, c, kh, kw);
          }
        }
      epilogue(on, co, oh, ow, acc);
    }
  }
};
