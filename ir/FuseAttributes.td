//===- FuseAttributes.td - fuse dialect attributes ----------*- tablegen -*-===//
#ifndef FUSE_ATTRIBUTES_TD
#define FUSE_ATTRIBUTES_TD

include "ir/FuseDialect.td"
include "mlir/IR/AttrTypeBase.td"

def Fuse_KernelConfigAttr : AttrDef<Fuse_Dialect, "KernelConfig"> {
  let mnemonic = "config";
  let summary = "How codegen instantiates a conv, matrix-product or attention superkernel";
  let description = [{
    The one description of a conv/GEMM/attention kernel's code shape, chosen once
    (`fuse-select-kernel-configs`, by the policy in config/; codegen refuses
    a superkernel that has none) and the only source of its launch geometry:

    - `kind`: the template. `tensor_core_gemm` (fusec_gemm.h, or
      fusec_gemm_half.h for f16/bf16 operands, on a dense B),
      `tensor_core_conv` (the same main loops on the im2col operand of
      fusec_conv.h), `simt_gemm` and `simt_conv` (square SIMT tiles, for
      shapes the tensor-core templates cannot take), `simt_gemv`
      (fusec_gemv.h, products of few rows: block [rows, 8 or 32, 1], a warp
      per column of an N x K B or a lane per column of a K x N one),
      `direct_conv` (one thread per output, grouped and depthwise
      convolutions); for fuse.attention, `tensor_core_attention`
      (fusec_attention_half.h: f16/bf16 heads, block [64 query rows, 32 or
      64 keys per tile, 16]) and `simt_attention` (fusec_attention.h, block
      [16, 32, 1]), whose fixed shapes ir/AttentionConfig.h describes;
    - `block`: the block tile [BM, BN, BK] (rows x columns of the output, k
      per pipeline stage); `warp`: a warp's tile [WM, WN];
    - `stages`: shared-memory pipeline depth (cp.async ring);
    - `mma`: the tensor-core instruction shape (`m16n8k8` for f32 operands,
      `m16n8k16` for f16/bf16 ones), or `none`;
    - `precision`: `3xtf32` (A and B split into two tf32 halves, three mma
      per product, f32 accumulation: fp32 accuracy), `tf32` (one mma, inputs
      rounded to tf32) for f32 operands; `f16` or `bf16` (the operands' own
      type, exact products, f32 accumulation) for f16/bf16 operands; `f32`
      (SIMT FMA, any operand type, computed in f32). The accumulator is f32
      in every case; the op rounds its result to its type;
    - `split_k`: tensor-core templates: above 1 the kernel is split-capable,
      and the runtime may split each output tile's k-range over up to this
      many blocks, choosing the count per launch (1: no split);
    - `vector`: elements per global->shared copy of A and of B (1, 2 or 4
      floats; 1, 2, 4 or 8 halves, 16 bytes at most).

    Example: `#fuse.config<"tensor_core_conv", block = [64, 64, 16],
    warp = [32, 32], stages = 4, mma = "m16n8k8", precision = "3xtf32",
    split_k = 1, vector = [4, 1]>`.
  }];
  let parameters = (ins StringRefParameter<"the template">:$kind, ArrayRefParameter<"int64_t">:$block,
                        ArrayRefParameter<"int64_t">:$warp, "int64_t":$stages, StringRefParameter<"mma shape">:$mma,
                        StringRefParameter<"arithmetic">:$precision, "int64_t":$split_k,
                        ArrayRefParameter<"int64_t">:$vector);
  let assemblyFormat = [{
    `<` $kind `,` `block` `=` `[` $block `]` `,` `warp` `=` `[` $warp `]` `,` `stages` `=` $stages `,`
    `mma` `=` $mma `,` `precision` `=` $precision `,` `split_k` `=` $split_k `,` `vector` `=` `[` $vector `]` `>`
  }];
  let genVerifyDecl = 1;
}

#endif // FUSE_ATTRIBUTES_TD
