//===- Passes.td - fusec passes -----------------------------*- tablegen -*-===//
#ifndef FUSEC_PASSES_TD
#define FUSEC_PASSES_TD

include "mlir/Pass/PassBase.td"

def FoldBatchNorm : Pass<"fuse-fold-batch-norm", "mlir::func::FuncOp"> {
  let summary = "Fold inference BatchNormalization into the preceding Conv";
  let description = [{
    `batch_norm(conv(x, W, b))` becomes `conv(x, W', b')` with
    `s = scale / sqrt(var + eps)`, `W'[o] = W[o] * s[o]` and
    `b' = (b - mean) * s + bias`, computed in double precision. A conv without
    bias gets one. Only when the conv result has no other user (a graph output
    is a user) and all weights and statistics are constants.
  }];
  let statistics = [
    Statistic<"numFolded", "folded", "Number of BatchNormalization ops folded">,
  ];
}

def FoldPadIntoConv : Pass<"fuse-fold-pad-into-conv", "mlir::func::FuncOp"> {
  let summary = "Fold a zero constant Pad on spatial axes into Conv padding";
  let description = [{
    A `pad` in constant mode with value 0, non-negative amounts on the spatial
    axes only, whose sole user is a conv's input, becomes part of the conv's
    `pads`. Reflect and edge pads, non-zero values, pads of the batch or
    channel axes and pads with other users are left alone.
  }];
  let statistics = [
    Statistic<"numFolded", "folded", "Number of Pad ops folded into Conv">,
  ];
}

def ConvertToChannelsLast : Pass<"fuse-convert-to-channels-last", "mlir::func::FuncOp"> {
  let summary = "Keep images NHWC between convolutions and pools (fusec --layout=nhwc)";
  let description = [{
    Every conv, max_pool and average_pool on a rank-4 image becomes its
    `channels_last` form between two transposes (NCHW -> NHWC before, back
    after); a conv's weight is permuted OIHW -> OHWI, which folds into the
    constant at compile time. The transposes then move towards the
    consumers: through elementwise ops whose other operands are the same
    transpose, values the graph already transposes to NHWC (a residual
    block's input) or constants (a constant is permuted in place; a
    per-channel bias [C, 1, 1] becomes [1, 1, 1, C]), through pad (the
    amounts move with their axes) and concat (the axis is
    renamed), and a global_average_pool becomes a reduce_mean over the
    NHWC spatial axes. Two inverse transposes cancel, and one that moves
    only unit axes becomes a reshape (no copy). What remains are the
    transposes where the layout really changes: the model's inputs and
    outputs, which keep the layout the user gave, and ops with no
    channels-last form. With `input-convs-nchw` (the fusion pipeline's
    setting), a conv that alone reads a model input stays NCHW: the
    transpose of its result then joins its kernel (fuse-form-epilogues'
    epilogue-transpose) instead of a transpose of the input being a kernel.
  }];
  let options = [
    Option<"inputConvsNchw", "input-convs-nchw", "bool", "false",
           "Leave a conv that alone reads a model input NCHW">,
    Option<"padChannels", "pad-channels", "int64_t", "0",
           "Pad a conv's input channels (fewer than this, constant weights) to this many, "
           "its input transposed and padded with zeros and its weights at compile time "
           "(the Hopper conv reads 8-channel rows; 0: never)">,
  ];
  let statistics = [
    Statistic<"numConverted", "converted", "Number of convs and pools made channels-last">,
  ];
}

def FormLayerNorm : Pass<"fuse-form-layer-norm", "mlir::func::FuncOp"> {
  let summary = "Replace a spelled-out layer normalisation by fuse.layer_norm (rule form-layer-norm)";
  let description = [{
    Exporters writing ONNX before opset 17 spell LayerNormalization out:
    ReduceMean, Sub, Pow (or a Mul of the difference by itself), ReduceMean,
    Add of epsilon, Sqrt, Div, then an optional Mul by a scale and Add of a
    bias. With every intermediate used only there, both means over the same
    trailing axes, epsilon a one-element constant and the scale and bias
    constants of the normalised axes' shape, the chain becomes one
    fuse.layer_norm (scale ones when there is none): one row kernel instead
    of three.
  }];
  let statistics = [
    Statistic<"numFormed", "formed", "Number of layer normalisations formed">,
  ];
}

def FormAttention : Pass<"fuse-form-attention", "mlir::func::FuncOp"> {
  let summary = "Replace MatMul -> scale -> [mask] -> Softmax -> MatMul by fuse.attention";
  let description = [{
    MatMul(Q, Kt) (Kt a Transpose of K, or any [..., D, Sk] tensor), then a
    Mul or Div by a one-element constant (either operand order; a scalar Mul
    on Q before the product counts too), an optional Add of a mask, a
    Softmax over the last axis and a MatMul with V become one
    fuse.attention, when every intermediate has no other user, Q, K and V
    share their leading dimensions and the head dimensions are at most 128.
    A constant mask that is 0 on and below the diagonal shifted by Sk - S
    and -inf (or <= -1e4) above it becomes `causal = true` with no mask
    operand.
  }];
  let statistics = [
    Statistic<"numFormed", "formed", "Number of attention ops formed">,
    Statistic<"numCausal", "causal", "Number of constant masks recognised as causal">,
  ];
}

def ExposeViews : Pass<"fuse-expose-views", "mlir::func::FuncOp"> {
  let summary = "Rewrite the data movement around attention as views (rule expose-views)";
  let description = [{
    A MatMul by a 2-D weight and an element-wise op with broadcast biases
    compute each row on their own, so they commute with a transpose that
    keeps the last axis. A transpose in front of such ops sinks below them
    when it then ends in an attention's operand views (or meets its
    inverse), and one after them rises above them when it then follows an
    attention's output views: torch's sequence-first multi-head attention
    then reads and writes batch-first tensors through views, and
    fuse-form-attention-views absorbs its transposes. A Gather of one
    constant index becomes the Slice and Reshape it is; an Expand whose
    element-wise consumer would broadcast its operand anyway is dropped.
    Runs after fuse-form-attention, before mixed precision.
  }];
  let statistics = [
    Statistic<"numMoved", "moved", "Number of transposes moved across row-wise ops">,
  ];
}

def FormAttentionViews : Pass<"fuse-form-attention-views", "mlir::func::FuncOp"> {
  let summary = "Read attention's Q, K, V and store its output through views (rule attention-views)";
  let description = [{
    Chains of Slice, Reshape, Flatten, Transpose and Expand ops read only by
    a fuse.attention's operands (a fused QKV projection split into heads; Q,
    K and V may share their first views; a padding mask reshaped and
    expanded over heads), and a chain of Reshape, Flatten and Transpose ops
    that is the attention result's only user (the heads merged back), join
    the attention op's group (the `fuse.group` attribute) when the whole
    chain is a strided view of the tensor it starts from (or ends in), with
    the head dimension contiguous for Q, K, V and the result
    (ir/StridedView.h). The attention kernel then loads Q, K and V
    rows straight from the projection's output and stores each output row
    where the merged tensor keeps it: the copy kernels of the head split and
    merge disappear. Runs before fuse-form-data-movement-chains, which leaves
    these groups alone.
  }];
  let statistics = [
    Statistic<"numInputViews", "input-views", "Number of view ops read through by attention kernels">,
    Statistic<"numOutputViews", "output-views", "Number of view ops stored through by attention kernels">,
  ];
}

def FormDataMovementChains : Pass<"fuse-form-data-movement-chains", "mlir::func::FuncOp"> {
  let summary = "Group chains of data-movement ops into one kernel (rule data-movement-chain)";
  let description = [{
    A data-movement op (Reshape, Flatten, Transpose, Slice, Gather, Expand,
    Concat, Pad) whose result has one user, itself a data-movement op, joins
    that user's group (the `fuse.group` attribute): the kernel maps each
    output element through the whole chain to the input element it copies,
    so Split -> Reshape -> Transpose (a fused QKV projection split into heads)
    reads each element once and writes it once, and the intermediate
    tensors are never stored. Groups of other rule patterns are left alone.
    With `concats-in-place`, a Concat ends a chain instead of joining its
    user's: fuse-place-concats may store it for free where its operands'
    kernels write into it, and the op after it then copies once, as the
    chain would have.
  }];
  let options = [
    Option<"concatsInPlace", "concats-in-place", "bool", "false",
           "Leave a Concat out of its user's chain (rule concat-in-place is on)">,
  ];
  let statistics = [
    Statistic<"numChains", "chains", "Number of data-movement chains formed">,
    Statistic<"numChainedOps", "chained-ops", "Number of data-movement ops in those chains">,
  ];
}

def ApplyPluginPatterns : Pass<"fuse-apply-plugin-patterns", "mlir::func::FuncOp"> {
  let summary = "Apply the rewrite patterns plugins registered with FusionRegistry";
  let options = [
    ListOption<"disabledRules", "disabled-rules", "std::string",
               "Registered pattern names not to apply">,
  ];
}

def FormEpilogues : Pass<"fuse-form-epilogues", "mlir::func::FuncOp"> {
  let summary = "Group Conv/Gemm/MatMul with their epilogue ops (rule patterns)";
  let description = [{
    Known-good fusions, applied without consulting the cost model. Starting at
    each conv, gemm or matmul, the chain of single users joins its group
    (marked with the `fuse.group` attribute) while it is:
    - an activation (Relu, Clip, Sigmoid, Tanh, Gelu): rule `epilogue-activation`;
    - an Add/Sub/Mul/Div with a constant that does not change the shape
      (bias, scale, shift; MatMul + Add(bias) is a biased GEMM): rule `bias-epilogue`;
    - an Add of a value computed elsewhere (a residual): rule `add-to-output`,
      at most once per kernel. The other operand is defined before the Add, so
      the kernel, placed at the Add, reads it without creating a cycle.
    A value with other users or that is a graph output ends the chain.
    Before each conv, the chain of ops that compute its input element by
    element from per-channel constants (a pre-activation BatchNorm -> ReLU,
    ir/ConvPrologue.h), each read by the next only, joins the conv's group
    too: rule `conv-prologue`; the conv's template applies them to each
    input element it loads. A Transpose of a conv's (epilogue's) result
    joins last: rule `epilogue-transpose`, the conv stores each element at
    its transposed position. A depthwise channels-last conv (at most 81
    taps) whose only user is a LayerNorm over the channels joins that norm
    instead, as its prologue: rule `conv-into-norm` (the norm kernel
    computes each conv element once, ConvNeXt's blocks). The Slice, Reshape
    and Flatten ops computing a matrix product's A as rows of another tensor
    (a classifier's first token) join the product: rule `operand-views`, its
    template reads A's rows where they lie.
  }];
  let options = [
    ListOption<"disabledRules", "disabled-rules", "std::string",
               "Rules not to apply (epilogue-activation, bias-epilogue, add-to-output, conv-prologue, epilogue-transpose, conv-into-norm, operand-views)">,
  ];
  let statistics = [
    Statistic<"numGroups", "groups", "Number of epilogue groups formed">,
    Statistic<"numFusedOps", "fused-ops", "Number of ops joined to a conv/gemm/matmul">,
  ];
}

def FormFusionGroups : Pass<"fuse-form-fusion-groups", "mlir::func::FuncOp"> {
  let summary = "Cost-model-driven fusion planning for the remaining ops";
  let description = [{
    Builds a FusionGraph over the function (groups from fuse-form-epilogues
    are kept), runs a fusion strategy under a cost model and device profile,
    and records the result: `fuse.group` on every op, the estimated costs
    (`fuse.kernel_cost`) on each group's first op, and rejected candidates
    (`fuse.rejected_fusions`) on the function, for the fusion report.
  }];
  let options = [
    Option<"strategy", "strategy", "std::string", "\"greedy\"",
           "Fusion strategy: greedy, dp, none, or a plugin's">,
    Option<"deviceProfile", "device-profile", "std::string", "\"h200\"",
           "Built-in device profile (h200, h100, a100) or a JSON file">,
    Option<"costModel", "cost-model", "std::string", "\"roofline\"",
           "Cost model: roofline or a plugin's">,
    Option<"costBatch", "cost-batch", "int64_t", "1",
           "Batch size at which the cost model prices tensors">,
    Option<"precision", "precision", "std::string", "\"fp32\"",
           "f32 products priced as fuse-select-kernel-configs will compile them: fp32 (3xTF32) or tf32">,
    Option<"target", "target", "std::string", "\"sm_90\"",
           "The architecture kernels are compiled for (sm_90a: the Hopper templates are priced)">,
    ListOption<"disabledRules", "disabled-rules", "std::string",
               "Rules not to apply (elementwise-fusion, epilogue-fusion, reduction-fusion, sibling-fusion)">,
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "Number of kernels after planning">,
  ];
}

def OutlineSuperkernels : Pass<"fuse-outline-superkernels", "mlir::func::FuncOp"> {
  let summary = "Turn each fusion group into a fuse.superkernel";
  let description = [{
    Every compute op ends up in exactly one `fuse.superkernel`: the ops of a
    `fuse.group` together, any other op alone. Constants and values from other
    kernels become operands; values used outside the group, or returned,
    become results (they are written to memory). The superkernel sits where
    its last member was; the function is then re-sorted topologically.
  }];
  let dependentDialects = ["fusec::fuse::FuseDialect"];
  let statistics = [
    Statistic<"numSuperkernels", "superkernels", "Number of superkernels created">,
  ];
}

def ChainConcats : Pass<"fuse-chain-concats", "mlir::func::FuncOp"> {
  let summary = "Build each concatenation on a shorter one that joins its first operands";
  let description = [{
    DenseNet concatenates, before each layer, every feature map of its block
    so far: `concat(x0, f1, ..., fk)` after `concat(x0, f1, ..., fk-1)`. A
    `fuse.concat` whose leading operands are exactly those of an earlier
    concat along the same axis becomes `concat(earlier, rest...)` (the
    longest such prefix). The values are the same; every concatenation of
    the block then nests in the last one, which is what lets
    fuse-place-concats store all of them in one buffer.
  }];
  let dependentDialects = ["fusec::fuse::FuseDialect"];
  let statistics = [
    Statistic<"numChained", "chained", "Number of concats rebuilt on an earlier one">,
  ];
}

def PlaceConcats : Pass<"fuse-place-concats", "mlir::func::FuncOp"> {
  let summary = "Let the kernels a concatenation joins write into its buffer";
  let description = [{
    A superkernel that only concatenates (one `fuse.concat` of its operands)
    computes nothing when every operand is a result of another superkernel
    that can store it into its slice of the concatenation (ir/SliceViews.h):
    the operands become slice views of the result (`fuse.slice_views` on
    their kernels) and the concat kernel is marked `fuse.in_place`. A
    concatenation that is itself a slice of a later one places its operands
    in that one's buffer. It stays a copy kernel when an operand is a graph
    input, a constant, a graph output or an operand twice, when a dimension
    from the axis on is not static, when its result is a graph output, or
    when the producing kernel cannot store into a slice, or one of the
    operand's other readers cannot read one, for `target` (the CPU backend
    can, generated GPU kernels where ir/SliceViews.h says).
  }];
  let options = [
    Option<"target", "target", "std::string", "\"sm_90\"",
           "The plan's target: cpu, or the architecture whose generated kernels must read and write the views">,
  ];
  let dependentDialects = ["fusec::fuse::FuseDialect"];
  let statistics = [
    Statistic<"numInPlace", "in-place", "Number of concats whose operands write into their buffer">,
  ];
}

def AliasReshapes : Pass<"fuse-alias-reshapes", "mlir::func::FuncOp"> {
  let summary = "Let a reshape kernel's result share its operand's buffer";
  let description = [{
    A kernel that only reshapes (Reshape, Flatten, Squeeze, Unsqueeze) a
    dense tensor copies every element to the same position: the bytes are
    the same under another shape. Such a kernel is marked `fuse.alias`; the
    plan gives its result the operand's bytes (an alias buffer) and emits no
    kernel. It stays a copy when its operand is a graph input or a constant,
    or a slice of a concatenation (not dense), and when its result is a graph
    output or is itself stored into a concatenation.
  }];
  let dependentDialects = ["fusec::fuse::FuseDialect"];
  let statistics = [
    Statistic<"numAliased", "aliased", "Number of reshape kernels whose result shares its operand's buffer">,
  ];
}

def SelectKernelConfigs : Pass<"fuse-select-kernel-configs", "mlir::func::FuncOp"> {
  let summary = "Choose the template and tiles of every conv and GEMM superkernel";
  let description = [{
    Sets `config` (`#fuse.config`) on each `fuse.superkernel` whose kind is
    conv or gemm: the tensor-core templates wherever they can compute the
    op (group-1 convs and matrix products whose sizes other than the batch
    are static and whose offsets fit their 32-bit index math), SIMT tiles or
    the direct convolution otherwise (ir/KernelConfig.h has the rules).
    A config already present is kept if it can compute the op, and an error
    otherwise. Codegen instantiates exactly what the config says. Tiles grow
    to 128 x 128 or 128 x 64 where the output at `batch` still gives each of
    `sm-count` SMs a block; an output of static size whose tiles give fewer
    than half the SMs a block is split into k-slices (`split_k`). With
    `variants` above 1, tensor-core kernels also get `variants`: other
    configs that can compute them (the few-row template for products of at
    most 16 rows, the chosen tile split or unsplit, other tiles), compiled
    into the plan beside the chosen one; variants already present are
    checked like a pinned config. For `target` sm_90a, f16/bf16 products
    that the Hopper GEMM can compute take it (`wgmma_gemm`), with the sm_80
    template's choice among their variants.
  }];
  let options = [
    Option<"precision", "precision", "std::string", "\"fp32\"",
           "Conv/GEMM products: fp32 (3xTF32 on the tensor cores: fp32 accuracy) or tf32 (one TF32 product, about 1e-3)">,
    Option<"batch", "batch", "int64_t", "1",
           "The batch tiles are chosen for: larger tiles where they still give every SM a block">,
    Option<"smCount", "sm-count", "int64_t", "132",
           "Streaming multiprocessors of the target GPU (the device profile's)">,
    Option<"sharedBytesPerSm", "shared-bytes-per-sm", "int64_t", "232448",
           "Shared memory blocks on one SM may use together (the device profile's)">,
    Option<"target", "target", "std::string", "\"sm_90\"",
           "The architecture the plan is compiled for: sm_90a enables the Hopper templates (wgmma_gemm)">,
    Option<"variants", "variants", "int64_t", "1",
           "Configs per tensor-core kernel, its own included: above 1, `variants` lists other tiles the plan carries for the runtime to time (fuserun --tune)">,
  ];
  let statistics = [
    Statistic<"numTensorCore", "tensor-core", "Number of kernels on a tensor-core template">,
    Statistic<"numSimt", "simt", "Number of conv/GEMM kernels on a SIMT template">,
    Statistic<"numVariants", "variants", "Number of variant configs listed beside the chosen ones">,
  ];
}

def SelectLibraryVariants : Pass<"fuse-select-library-variants", "mlir::func::FuncOp"> {
  let summary = "Give conv/GEMM kernels a vendor-library variant where one can compute them";
  let description = [{
    For each conv or gemm `fuse.superkernel`, asks ir/LibraryCall.h
    whether one library call computes its whole body: for a gemm kernel one
    cuBLASLt call (a matrix product, then bias, residual, ReLU or
    tanh-GELU, casts; ir/LibraryMatmul.h), for a conv kernel one cuDNN
    graph (a 2-D convolution, then bias per channel, residual, ReLU, casts;
    ir/LibraryConv.h). If so, sets `library` (`cublaslt` or `cudnn`): the
    plan carries the call as a variant beside the generated kernel, for the
    runtime to run or time. Otherwise sets `no_library` to the reason
    (`fuserun --info` lists them). The cost model prices both forms at
    `batch` on the device profile's GPU (the library at its `cublaslt_*` or
    `cudnn_*` efficiencies, DeviceProfile.h) and sets
    `library_default` where the library is cheaper: that variant is then
    the one the runtime runs untuned. `tactics` is `generated,library`
    (both), `generated` (no library variants) or `library` (every kernel
    that has one runs it by default).
  }];
  let options = [
    Option<"tactics", "tactics", "std::string", "\"generated,library\"",
           "The kernel forms a plan carries: generated,library, generated or library">,
    Option<"deviceProfile", "device-profile", "std::string", "\"h200\"",
           "The GPU both forms are priced for (a built-in profile or a JSON file)">,
    Option<"batch", "batch", "int64_t", "1", "The batch both forms are priced at">,
  ];
  let statistics = [
    Statistic<"numLibrary", "library", "Number of kernels given a library variant">,
    Statistic<"numLibraryDefault", "library-default", "Number of kernels whose library variant runs by default">,
    Statistic<"numNoLibrary", "no-library", "Number of conv/GEMM kernels a library cannot compute">,
  ];
}

def AutoMixedPrecision : Pass<"fuse-auto-mixed-precision", "mlir::func::FuncOp"> {
  let summary = "Compute convolutions and matrix products in f16 or bf16 (AMP)";
  let description = [{
    Retypes the function's ops the way torch.autocast does, with three lists
    (docs/precision.md):
    - half: Conv, Gemm, MatMul compute in `precision` (f16 or bf16; the
      kernels accumulate in f32) and give a `precision` result;
    - f32: Softmax, LayerNormalization, BatchNormalization, the sums and
      products of the Reduce* family (all but ReduceMax and ReduceMin),
      GlobalAveragePool, Pow, Erf, Gelu, Sqrt, Exp, Log and Reciprocal, whose
      accuracy needs the wider type, take and give f32;
    - everything else follows its float inputs: f32 if any non-constant
      float operand is f32, else the half type; integer and bool operands
      and results (Where's condition, comparisons' results) keep their types.
    Constant operands (weights) are converted at compile time, once per
    constant and type; other operands get a `fuse.cast`, shared by all users
    that need the same type, which fusion then puts into a neighbouring
    kernel. The function's arguments and results keep their types: a cast
    converts a result back where needed. Casts move above data movement, to
    the kernels that compute the data; with `concats-in-place`, a cast from
    the half type to f32 stays below a Concat, which its operands' kernels
    then write in half precision (fuse-place-concats), the cast joining the
    Concat's readers.
  }];
  let options = [
    Option<"precision", "precision", "std::string", "\"f16\"",
           "The half type: f16 or bf16">,
    Option<"ioPrecision", "io-precision", "std::string", "\"\"",
           "Element type of the function's f32 arguments and results: empty (keep them f32) or the half type">,
    Option<"concatsInPlace", "concats-in-place", "bool", "false",
           "Keep casts to f32 below Concats (rule concat-in-place is on)">,
  ];
  let dependentDialects = ["fusec::fuse::FuseDialect"];
  let statistics = [
    Statistic<"numHalfOps", "half-ops", "Number of ops computing in the half type">,
    Statistic<"numCasts", "casts", "Number of fuse.cast ops inserted">,
    Statistic<"numConvertedConstants", "converted-constants", "Number of constants converted at compile time">,
  ];
}

#endif // FUSEC_PASSES_TD
