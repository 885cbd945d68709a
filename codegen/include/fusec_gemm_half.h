// fusec_gemm_half.h - the tensor-core GEMM main loop for f16 and bf16 tensors.
//
// C = A B as in fusec_gemm.h (row-major A, M x K; B from a B operand:
// FusecDenseB or FusecIm2colB with Element = fusec_f16 or fusec_bf16), with
// mma.m16n8k16 (f16 or bf16 in, f32 accumulators): products of 16-bit
// operands are exact in f32 and are added in f32, so C is the f32 sum of the
// exact products; the epilogue rounds it to the result's type.
//
//  * The same main loop as FusecGemmTf32 (FusecMmaGemm with FusecHalfStep):
//    K advances BK (a multiple of 16) at a time through FusecPipeline's
//    Stages shared-memory stages filled by cp.async, one __syncthreads per
//    k-tile. A copy moves Vec elements: 16 bytes for Vec
//    = 8; a single element (Vec = 1: rows of an odd length, the gathered
//    im2col operand) is a register load and store (see fusec_copy_vector).
//    Ragged M, N and K tails read nothing past the tensors.
//  * Fragments come from shared memory through ldmatrix, 8x8 matrices of
//    16-bit elements: A with x4 (rows 0-7 / 8-15 by k 0-7 / 8-15: exactly
//    a[0..3] of m16n8k16), B as N x K with x2 (n 0-7 by k 0-7 / 8-15), B as
//    K x N row-major with x2.trans (k 0-7 / 8-15 by n 0-7, transposed into
//    b[0], b[1]).
//  * Shared rows are padded by 8 elements (16 bytes): A and N x K B as
//    [rows][BK + 8], K x N B as [BK][BN + 8]. The 8 row addresses of one
//    ldmatrix are then (BK + 8) / 2 words apart, 4 words modulo 32 for BK =
//    32 (20 words), 64 (36) or 128: the 8 rows of 16 bytes cover all 32
//    banks once, no conflict; the same holds for BN + 8.
//  * Index math is 32-bit and incremental, as in fusec_gemm.h.
//
// The epilogue is the caller's functor, called as epilogue(row, col, value)
// with the f32 accumulator, once for every element of C in [0, M) x [0, N),
// by the lane holding it (the fragment layout of fusec_gemm.h).
// Shared memory: kSmemBytes from the caller, 16-byte aligned.
#pragma once

#include "fusec_gemm.h"

/// The main loop for f16 and bf16 tensors: FusecMmaGemm (fusec_gemm.h) with
/// the m16n8k16 step of B's element type.
template <class Tile, class BOperand>
using FusecGemmHalf = FusecMmaGemm<Tile, BOperand, FusecHalfStep<typename Tile::Element>>;
