// fusec_gemv.h - matrix products with few rows (a classifier at batch 1).
//
// C = A B for an M x K matrix A of few rows: the work is reading B once, so
// the template is shaped by B's layout, not by a tile of C. A block of 8
// warps computes kRows rows of C (rows row0 ... row0 + kRows - 1) for its
// columns; M larger than kRows takes more blocks on grid.x, each reading its
// columns of B again (from L2). Everything accumulates in float, in exact
// fp32 FMA; the epilogue is called once per element of C with its
// (row, column, sum), as the GEMM templates call theirs.
//
//  * kTransB (B is N x K, a torch Linear weight): a warp per column of C,
//    kColumns == 8 per block. Lanes walk K kVec elements at a time (16-byte
//    loads for kVec == 4, f32 only), 32 kVec apart, so each warp load of B
//    is one contiguous run of 32 kVec elements; A's rows are read the same way (they are
//    small and stay in L1/L2). A warp-shuffle sum ends each row.
//  * !kTransB (B is K x N): a lane per column, kColumns == 32 per block, and
//    the 8 warps split K into 8 slices: a warp load of B is 32 consecutive
//    elements of one row, A's element is one broadcast load. The 8 partial
//    sums meet in shared memory (kRows x 32 floats per warp).
//
// Requires blockDim.x == kThreads. A, B are T (float, fusec_f16 or
// fusec_bf16; vector loads for float only); lda is A's row stride.
//
// FusecGemv<Tile> reads these from its tile description by name
// (fusec_pipeline.h's names; FusecCheckGemvTile below): kRows = kBlockM,
// kColumns = kBlockN, kVec = kAVector, B's layout kTransB and the tensors'
// type T = Storage (the config's Element is its arithmetic, always float).
#ifndef FUSEC_GEMV_H
#define FUSEC_GEMV_H

/// What the few-row template reads of its tile description, each member
/// checked by name.
template <class Tile> struct FusecCheckGemvTile {
  static_assert(FusecTileHas_kBlockM<Tile>::value, "the gemv description has no kBlockM");
  static_assert(FusecTileHas_kBlockN<Tile>::value, "the gemv description has no kBlockN");
  static_assert(FusecTileHas_kAVector<Tile>::value, "the gemv description has no kAVector");
  static_assert(FusecTileHas_kTransB<Tile>::value, "the gemv description has no kTransB");
  static_assert(FusecTileHasStorage<Tile>::value, "the gemv description has no Storage");
  static constexpr bool value = true;
};

template <class Tile> struct FusecGemv {
  static_assert(FusecCheckGemvTile<Tile>::value, "a complete gemv description");
  static constexpr int kRows = Tile::kBlockM, kColumns = Tile::kBlockN, kVec = Tile::kAVector;
  static constexpr bool kTransB = Tile::kTransB;
  using T = typename Tile::Storage;
  static constexpr int kThreads = 256;
  static constexpr int kWarps = kThreads / FUSEC_WARP_SIZE;
  static constexpr int kBlockM = kRows, kBlockN = kColumns;
  static_assert(kTransB ? kColumns == kWarps : kColumns == FUSEC_WARP_SIZE,
                "kBlockN: a warp (kTransB) or a lane per column");
  static_assert(kRows >= 1, "kBlockM: rows per block");
  static_assert(kVec == 1 || (kVec == 4 && kTransB && FusecSameType<T, float>::value),
                "kAVector: 16-byte loads walk K: B must be N x K (kTransB), of float");
  /// Shared memory for the !kTransB partial sums (1 float otherwise).
  static constexpr int kSmemFloats = kTransB ? 1 : kWarps * kRows * FUSEC_WARP_SIZE;

  /// kVec consecutive elements at p (16-byte aligned for kVec == 4) as
  /// floats.
  __device__ static void load(const T *p, float (&out)[kVec]) {
    if constexpr (kVec == 4) {
      const float4 v = __ldg(reinterpret_cast<const float4 *>(p));
      out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
    } else {
      out[0] = fusec_ld(p);
    }
  }

  template <typename Epilogue>
  __device__ static void run(const T *A, int lda, const T *B, int M, int N, int K, int row0, int col0, float *smem,
                             Epilogue &&epilogue) {
    const int lane = threadIdx.x % FUSEC_WARP_SIZE, warp = threadIdx.x / FUSEC_WARP_SIZE;
    float acc[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r)
      acc[r] = 0.0f;
    if constexpr (kTransB) {
      const int col = col0 + warp;
      if (col >= N)
        return; // the whole warp: no shuffle or barrier follows for it
      const T *b = B + (long long)col * K;
      // Unrolled so that several loads of B are in flight per warp: with one
      // warp per column, latency is what bounds a batch-1 classifier.
#pragma unroll 4
      for (int k = lane * kVec; k < K; k += FUSEC_WARP_SIZE * kVec) {
        float bv[kVec];
        load(b + k, bv);
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          if (row0 + r >= M)
            break;
          float av[kVec];
          load(A + (long long)(row0 + r) * lda + k, av);
#pragma unroll
          for (int v = 0; v < kVec; ++v)
            acc[r] = fmaf(av[v], bv[v], acc[r]);
        }
      }
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        const float sum = fusec_warp_sum(acc[r]);
        if (lane == r % FUSEC_WARP_SIZE && row0 + r < M)
          epilogue(row0 + r, col, sum);
      }
    } else {
      const int col = col0 + lane;
      const int slice = (K + kWarps - 1) / kWarps;
      const int kBegin = warp * slice, kEnd = min(K, kBegin + slice);
      if (col < N) {
#pragma unroll 4
        for (int k = kBegin; k < kEnd; ++k) {
          const float b = fusec_ld(&B[(long long)k * N + col]);
#pragma unroll
          for (int r = 0; r < kRows; ++r) {
            if (row0 + r >= M)
              break;
            acc[r] = fmaf(fusec_ld(&A[(long long)(row0 + r) * lda + k]), b, acc[r]);
          }
        }
      }
#pragma unroll
      for (int r = 0; r < kRows; ++r)
        smem[(warp * kRows + r) * FUSEC_WARP_SIZE + lane] = acc[r];
      __syncthreads();
      for (int t = threadIdx.x; t < kRows * FUSEC_WARP_SIZE; t += kThreads) {
        const int r = t / FUSEC_WARP_SIZE, c = col0 + t % FUSEC_WARP_SIZE;
        float sum = 0.0f;
#pragma unroll
        for (int w = 0; w < kWarps; ++w)
          sum += smem[(w * kRows + r) * FUSEC_WARP_SIZE + t % FUSEC_WARP_SIZE];
        if (row0 + r < M && c < N)
          epilogue(row0 + r, c, sum);
      }
    }
  }
};

#endif // FUSEC_GEMV_H
