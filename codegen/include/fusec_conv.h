// fusec_conv.h - the im2col operand: convolutions as tensor-core GEMMs.
//
// An NCHW convolution is the product
//   out(co, j) = sum_k W(co, k) * X(k, j)
// of the weights W (Co x K, K = C * KH * KW, row-major as stored) and the
// im2col matrix X of the input (K x N, N = batch * HO * WO output pixels,
// the batch folded into the columns): X(k, j) is the input value under
// kernel tap k = (c, kh, kw) for output pixel j = (image, oh, ow), zero in
// the padding. FusecIm2colB gathers X's tiles straight from the input with
// cp.async, so X is never written out; FusecGemmTf32 (fusec_gemm.h) does the
// rest, W being its operand A.
//
// Why columns are pixels: consecutive pixels of one input row are adjacent
// in NCHW memory, so a warp's 32 copies of one tile row (one tap k, 32
// pixels) read mostly consecutive addresses (stride SW apart) and write
// consecutive shared addresses; Co, the other dimension, is a multiple of 8
// or 16 in every real network and is what the weights' rows give.
//
// The window (KH, KW, strides, padding, dilation) is a template constant,
// so the tap decomposition k -> (c, kh, kw) in the k-loop is 32-bit
// divisions by constants (multiply-high and shift). The sizes (C, H, W, HO,
// WO) are run-time values, FusecIm2colSizes, which the kernel reads from its
// scalar arguments: convolutions that differ only in their sizes (a
// ResNet's stages) are one program, compiled once. Each thread decomposes
// its pixel j -> (image, oh, ow) once, by FusecDivisor (multiply-high, add,
// shift, with the constants precomputed on the host); in the k-loop a copy
// costs the tap decomposition, two compares, and one address (multiplies by
// the run-time W and H * W). Offsets inside one image are 32-bit (C * H * W
// < 2^31, checked by codegen); the image's base is one 64-bit product per
// thread.
//
// Vec > 1 is the pointwise case (1x1, stride 1, no padding, HO * WO a
// multiple of Vec): Vec adjacent pixels are Vec adjacent elements of one
// channel, one copy (16 bytes for 4 floats or 8 halves).
//
// Element is float for FusecGemmTf32, fusec_f16 or fusec_bf16 for
// FusecGemmHalf (fusec_gemm_half.h). A gathered 16-bit element (Vec = 1) is
// 2 bytes, below cp.async's 4: fusec_copy_vector loads it to a register and
// stores it to shared memory. Pairing two taps into one 4-byte copy does not
// work: two pixels adjacent in the tile are SW elements apart in memory, or
// in different rows, or one is padding. The cost is that such a tile's loads
// are not asynchronous: a thread waits for its gathers once per k-tile
// (the other warps on the SM cover it); the pointwise convolutions, most of
// a ResNet's work after the first layers, keep cp.async.
//
// A conv-prologue (the BatchNorm-ReLU of a pre-activation network, fused by
// fuse-form-epilogues' conv-prologue rule) is a functor `prologue(value,
// channel)` applied to every element the operand loads, never to the zeros
// of padding or of a ragged tile. Such an operand loads Vec elements into
// registers (one 8- or 16-byte load where the copy is that wide), applies it
// and stores to shared memory, instead of cp.async:
// those loads are synchronous (each thread waits for its own once per
// k-tile; the other warps on the SM cover it), the price of not writing and
// reading the normalised tensor in a kernel of its own.
#pragma once

#include "fusec_gemm.h"

/// The prologue of an operand without one.
struct FusecNoPrologue {};
template <typename Prologue> struct FusecHasPrologue {
  static constexpr bool value = true;
};
template <> struct FusecHasPrologue<FusecNoPrologue> {
  static constexpr bool value = false;
};

/// The vector type of a `Bytes`-byte load.
template <int Bytes> struct FusecLoadWord;
template <> struct FusecLoadWord<16> {
  using type = float4;
};
template <> struct FusecLoadWord<8> {
  using type = float2;
};

/// Copies Vec elements through `prologue`: element i, of channel `channel +
/// i * ChannelStep`, becomes prologue(element, channel); `inside` false
/// stores zeros (padding, a ragged tile). An 8- or 16-byte copy is one
/// vector load, aligned as the cp.async it stands for would be (the config's
/// vector width divides what keeps it so); narrower ones load elements.
template <int Vec, int ChannelStep, typename Element, typename Prologue>
__device__ __forceinline__ void fusec_copy_through(Element *shared, const Element *global, bool inside, int channel,
                                                   const Prologue &prologue) {
  constexpr int kBytes = Vec * int(sizeof(Element));
  // Aligned for the vector store into it (the registers of the load).
  alignas(kBytes < 4 ? 4 : kBytes) Element loaded[Vec];
  if constexpr (kBytes == 16 || kBytes == 8) {
    using Word = typename FusecLoadWord<kBytes>::type;
    if (inside)
      *reinterpret_cast<Word *>(loaded) = __ldg(reinterpret_cast<const Word *>(global));
  } else {
#pragma unroll
    for (int i = 0; i < Vec; ++i)
      if (inside)
        loaded[i] = global[i];
  }
#pragma unroll
  for (int i = 0; i < Vec; ++i)
    shared[i] =
        fusec_convert<Element>::from(inside ? prologue(fusec_to_float(loaded[i]), channel + i * ChannelStep) : 0.0f);
}

/// The sizes of an im2col operand, known at run time.
struct FusecIm2colSizes {
  int H, W;
  /// C * H * W: one image's elements.
  unsigned imageElements;
  /// HO * WO (an image's output pixels) and WO.
  FusecDivisor pixels, columns;
};

template <int KH, int KW, int SH, int SW, int PH, int PW, int DH, int DW, int Vec, typename ElementType = float,
          typename Prologue = FusecNoPrologue>
struct FusecIm2colB {
  using Element = ElementType;
  static constexpr bool kTransposed = false;
  static constexpr int kVec = Vec;
  static constexpr bool kFixedColumn = true;
  static constexpr int kTaps = KH * KW;
  // Vector copies also need HO * WO to be a multiple of Vec (codegen picks
  // Vec so).
  static_assert(Vec == 1 || (KH == 1 && KW == 1 && SH == 1 && SW == 1 && PH == 0 && PW == 0),
                "vector copies need adjacent pixels to be adjacent elements of one image");

  const Element *x;
  const Element *image = nullptr;
  int H, W, planeElements;
  /// Elements from one image to the next: C * H * W, or more when the
  /// input is a slice of a concatenation's channels (ir/SliceViews.h).
  unsigned imageElements;
  FusecDivisor pixels, columns;
  int top = 0, left = 0, pixel = 0;
  Prologue prologue;

  __device__ __forceinline__ FusecIm2colB(const Element *input, const FusecIm2colSizes &sizes,
                                          Prologue prologueFunctor = Prologue())
      : x(input), H(sizes.H), W(sizes.W), planeElements(sizes.H * sizes.W), imageElements(sizes.imageElements),
        pixels(sizes.pixels), columns(sizes.columns), prologue(prologueFunctor) {}

  /// The thread's column is output pixel `j` for all its copies.
  __device__ __forceinline__ void begin(int, int j) {
    const unsigned column = unsigned(j), imageIndex = pixels.divide(column);
    pixel = int(column - imageIndex * pixels.divisor);
    image = x + static_cast<long long>(imageIndex) * imageElements;
    const unsigned row = columns.divide(unsigned(pixel));
    top = int(row) * SH - PH;
    left = (pixel - int(row * columns.divisor)) * SW - PW;
  }

  __device__ __forceinline__ void copy(Element *shared, int k, int j, int, int, int, int kCount, int nCount) const {
    bool inside = j < nCount && k < kCount;
    int offset, channel;
    if constexpr (Vec > 1) {
      // Pointwise: tap k is channel k.
      offset = k * planeElements + pixel;
      channel = k;
    } else {
      const unsigned tap = unsigned(k) % unsigned(kTaps);
      channel = int(unsigned(k) / unsigned(kTaps));
      const int row = top + int(tap / unsigned(KW)) * DH, column = left + int(tap % unsigned(KW)) * DW;
      inside = inside && unsigned(row) < unsigned(H) && unsigned(column) < unsigned(W);
      offset = channel * planeElements + row * W + column;
    }
    // Vec adjacent pixels of one channel.
    if constexpr (FusecHasPrologue<Prologue>::value)
      fusec_copy_through<Vec, 0>(shared, inside ? image + offset : x, inside, channel, prologue);
    else
      fusec_copy_vector<Vec, Element>(shared, inside ? image + offset : x,
                                      inside ? unsigned(sizeof(Element)) * Vec : 0u);
  }
};

/// The im2col operand of an NHWC (channels-last) convolution, read as the
/// N x K matrix X(j, k) (kTransposed: pixels are rows, k contiguous in
/// shared memory): k = (kh, kw, c) with the channel innermost, matching
/// OHWI weights, so a tap's Vec adjacent channels are Vec adjacent
/// elements and every convolution whose channel count is a multiple of Vec
/// copies whole vectors (16 bytes for 4 floats or 8 halves), not only the
/// pointwise ones as in NCHW.
///
/// A thread copies the same k column for Rows pixels RowStep apart (the
/// main loop's FusecTileLoads when threads cover whole tile rows per pass;
/// the main loop checks that these match). Each pixel's image, top row and
/// left column are computed once, in begin(); per k-tile a thread splits
/// its k into (tap, channel) once, by the run-time channel count's
/// FusecDivisor, and the tap into (kh, kw) by the constant KW, then each
/// copy costs two compares and one 32-bit address.
template <int KH, int KW, int SH, int SW, int PH, int PW, int DH, int DW, int Vec, int Rows, int RowStep,
          typename ElementType = float, typename Prologue = FusecNoPrologue>
struct FusecIm2colNhwcB {
  using Element = ElementType;
  static constexpr bool kTransposed = true;
  static constexpr int kVec = Vec;
  static constexpr bool kFixedColumn = false;
  static constexpr int kRows = Rows;
  static constexpr int kRowStep = RowStep;
  // NHWC outputs: a pixel's channels (the tile's rows) are contiguous.
  static constexpr bool kOutputAlongRows = true;
  static_assert(Rows >= 1 && RowStep >= 1, "a thread copies whole rows");

  const Element *x;
  /// C is the channels the conv reads; a pixel's are `pixelElements` apart
  /// from the next pixel's: C, or the concatenation's channels when the
  /// input is a slice of them (ir/SliceViews.h; imageElements is then
  /// H * W * pixelElements).
  int H, W, C, pixelElements;
  unsigned imageElements;
  FusecDivisor pixels, columns, channels;
  const Element *image[Rows];
  int top[Rows], left[Rows];
  Prologue prologue;

  __device__ __forceinline__ FusecIm2colNhwcB(const Element *input, const FusecIm2colSizes &sizes,
                                              FusecDivisor channelCount, int pixelStride = 0,
                                              Prologue prologueFunctor = Prologue())
      : x(input), H(sizes.H), W(sizes.W), C(int(channelCount.divisor)),
        pixelElements(pixelStride ? pixelStride : int(channelCount.divisor)), imageElements(sizes.imageElements),
        pixels(sizes.pixels), columns(sizes.columns), channels(channelCount), prologue(prologueFunctor) {}

  /// The thread's rows are pixels n, n + RowStep, ...
  __device__ __forceinline__ void begin(int, int n) {
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
      const unsigned column = unsigned(n + r * RowStep), imageIndex = pixels.divide(column);
      const int pixel = int(column - imageIndex * pixels.divisor);
      image[r] = x + static_cast<long long>(imageIndex) * imageElements;
      const unsigned row = columns.divide(unsigned(pixel));
      top[r] = int(row) * SH - PH;
      left[r] = (pixel - int(row * columns.divisor)) * SW - PW;
    }
  }

  __device__ __forceinline__ void copy(Element *shared, int k, int n, int, int, int dn, int kCount, int nCount) const {
    // dn is a constant once the main loop's copies are unrolled.
    const int r = dn / RowStep;
    const unsigned tap = channels.divide(unsigned(k));
    const int channel = k - int(tap * unsigned(C));
    const int row = top[r] + int(tap / unsigned(KW)) * DH, column = left[r] + int(tap % unsigned(KW)) * DW;
    const bool inside = n < nCount && k < kCount && unsigned(row) < unsigned(H) && unsigned(column) < unsigned(W);
    const int offset = (row * W + column) * pixelElements + channel;
    // Vec adjacent channels of one pixel.
    if constexpr (FusecHasPrologue<Prologue>::value)
      fusec_copy_through<Vec, 1>(shared, inside ? image[r] + offset : x, inside, channel, prologue);
    else
      fusec_copy_vector<Vec, Element>(shared, inside ? image[r] + offset : x,
                                      inside ? unsigned(sizeof(Element)) * Vec : 0u);
  }
};
