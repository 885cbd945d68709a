//===- FuseOps.td - fuse dialect operations -----------------*- tablegen -*-===//
//
// Operator semantics are ONNX's (opset 13). Attribute names equal ONNX's.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_OPS_TD
#define FUSE_OPS_TD

include "ir/FuseDialect.td"
include "ir/FuseAttributes.td"
include "ir/FuseInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// Ops compute with floats (ir/ElementTypes.h); integer and bool tensors
// (ids, indices, masks) are carried by constants, casts and superkernels,
// compared (Equal, Less, ...), combined (And, Or, Not) and selected (Where).
def Fuse_Tensor : RankedTensorOf<[F32, F16, BF16]>;
def Fuse_OptionalTensor : Optional<Fuse_Tensor>;
def Fuse_AnyTensor : RankedTensorOf<[F32, F16, BF16, I64, I32, I1, I8, UI8]>;
// Quantized values: QuantizeLinear's results, DequantizeLinear's operands.
def Fuse_QuantizedTensor : RankedTensorOf<[I8, UI8]>;

class Fuse_Op<string mnemonic, list<Trait> traits = []>
    : Op<Fuse_Dialect, mnemonic, traits>;

// What the compiler knows of an op (ir/OpFacts.h), declared once here and
// read through Fuse_OpFactsInterface by classification, the cost model,
// epilogue formation and mixed precision:
//  * kernelClass: the OpClass of the kernel it needs;
//  * flops: floating-point operations per element (of the output; of the
//    input for reductions), for the cost model;
//  * amp: the AmpPrecision fuse-auto-mixed-precision gives it;
//  * activation: a conv/GEMM epilogue applies it as its activation.
class Fuse_Facts<string opClass, int flopsPerElement = 1, string ampPrecision = "Follow",
                 bit epilogueActivation = 0> {
  string kernelClass = opClass;
  int flops = flopsPerElement;
  string amp = ampPrecision;
  bit activation = epilogueActivation;
}
def Fuse_ElementwiseFacts : Fuse_Facts<"Elementwise">;
// Piecewise-linear activations: exact in f16/bf16.
def Fuse_ActivationFacts : Fuse_Facts<"Elementwise", 1, "Follow", 1>;
// Activations through exp or tanh, stable in f16/bf16.
def Fuse_SmoothActivationFacts : Fuse_Facts<"Elementwise", 4, "Follow", 1>;
// Transcendental functions, kept in f32 under mixed precision.
def Fuse_MathFacts : Fuse_Facts<"Elementwise", 4, "F32">;
// Products: f16/bf16 operands, f32 accumulators.
def Fuse_ProductFacts : Fuse_Facts<"Gemm", 1, "Half">;
def Fuse_DataMovementFacts : Fuse_Facts<"DataMovement", 0>;

// An operator with ONNX semantics: pure, shape-inferred, named after ONNX,
// with its facts.
class Fuse_OnnxOp<string mnemonic, string onnxName, Fuse_Facts facts, list<Trait> traits = []>
    : Fuse_Op<mnemonic, traits # [Pure,
        DeclareOpInterfaceMethods<Fuse_ShapeInferenceOpInterface>,
        Fuse_OnnxOpInterface, Fuse_OpFactsInterface]> {
  string onnxOpName = onnxName;
  let extraClassDeclaration = [{
    static ::llvm::StringRef getOnnxName() { return "}] # onnxName # [{"; }
    static ::fusec::fuse::OpClass getKernelClass() {
      return ::fusec::fuse::OpClass::}] # facts.kernelClass # [{;
    }
    static double getFlopsPerElement() { return }] # !cast<string>(facts.flops) # [{; }
    static ::fusec::fuse::AmpPrecision getAmpPrecision() {
      return ::fusec::fuse::AmpPrecision::}] # facts.amp # [{;
    }
    static bool isEpilogueActivation() { return }] # !if(facts.activation, "true", "false") # [{; }
  }];
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Fuse_ConstantOp : Fuse_Op<"constant", [ConstantLike, Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "A constant tensor (weights, biases, statistics)";
  let description = [{
    Holds a dense tensor of any fuse element type. Importers store large
    weights as `dense_resource` blobs so they are not uniqued into the
    context.
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Fuse_AnyTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class Fuse_UnaryOp<string mnemonic, string onnxName, Fuse_Facts facts = Fuse_ElementwiseFacts,
                   list<Trait> traits = []>
    : Fuse_OnnxOp<mnemonic, onnxName, facts, traits> {
  let arguments = (ins Fuse_Tensor:$input);
  let results = (outs Fuse_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Fuse_ReluOp : Fuse_UnaryOp<"relu", "Relu", Fuse_ActivationFacts> { let summary = "max(x, 0)"; }
def Fuse_SigmoidOp : Fuse_UnaryOp<"sigmoid", "Sigmoid", Fuse_SmoothActivationFacts> { let summary = "1 / (1 + exp(-x))"; }
def Fuse_TanhOp : Fuse_UnaryOp<"tanh", "Tanh", Fuse_SmoothActivationFacts> { let summary = "tanh(x)"; }
def Fuse_ErfOp : Fuse_UnaryOp<"erf", "Erf", Fuse_MathFacts> { let summary = "erf(x)"; }
def Fuse_SqrtOp : Fuse_UnaryOp<"sqrt", "Sqrt", Fuse_Facts<"Elementwise", 1, "F32">> { let summary = "sqrt(x)"; }
def Fuse_NegOp : Fuse_UnaryOp<"neg", "Neg"> { let summary = "-x"; }
def Fuse_ExpOp : Fuse_UnaryOp<"exp", "Exp", Fuse_MathFacts> { let summary = "exp(x)"; }
def Fuse_LogOp : Fuse_UnaryOp<"log", "Log", Fuse_MathFacts> { let summary = "log(x)"; }
def Fuse_AbsOp : Fuse_UnaryOp<"abs", "Abs"> { let summary = "|x|"; }
def Fuse_ReciprocalOp : Fuse_UnaryOp<"reciprocal", "Reciprocal", Fuse_Facts<"Elementwise", 1, "F32">> { let summary = "1 / x"; }
// Rounding and trigonometry, computed in f32 (their f16/bf16 inputs widened).
def Fuse_FloorOp : Fuse_UnaryOp<"floor", "Floor"> { let summary = "the largest integer <= x"; }
def Fuse_CeilOp : Fuse_UnaryOp<"ceil", "Ceil"> { let summary = "the smallest integer >= x"; }
def Fuse_RoundOp : Fuse_UnaryOp<"round", "Round"> { let summary = "x rounded to the nearest integer, halves to even"; }
def Fuse_SignOp : Fuse_UnaryOp<"sign", "Sign"> { let summary = "-1, 0 or 1 by the sign of x (NaN stays NaN)"; }
def Fuse_SinOp : Fuse_UnaryOp<"sin", "Sin", Fuse_MathFacts> { let summary = "sin(x)"; }
def Fuse_CosOp : Fuse_UnaryOp<"cos", "Cos", Fuse_MathFacts> { let summary = "cos(x)"; }
def Fuse_TanOp : Fuse_UnaryOp<"tan", "Tan", Fuse_MathFacts> { let summary = "tan(x)"; }
def Fuse_AsinOp : Fuse_UnaryOp<"asin", "Asin", Fuse_MathFacts> { let summary = "asin(x)"; }
def Fuse_AcosOp : Fuse_UnaryOp<"acos", "Acos", Fuse_MathFacts> { let summary = "acos(x)"; }
def Fuse_AtanOp : Fuse_UnaryOp<"atan", "Atan", Fuse_MathFacts> { let summary = "atan(x)"; }
def Fuse_SinhOp : Fuse_UnaryOp<"sinh", "Sinh", Fuse_MathFacts> { let summary = "sinh(x)"; }
def Fuse_CoshOp : Fuse_UnaryOp<"cosh", "Cosh", Fuse_MathFacts> { let summary = "cosh(x)"; }
def Fuse_AsinhOp : Fuse_UnaryOp<"asinh", "Asinh", Fuse_MathFacts> { let summary = "asinh(x)"; }
def Fuse_AcoshOp : Fuse_UnaryOp<"acosh", "Acosh", Fuse_MathFacts> { let summary = "acosh(x)"; }
def Fuse_AtanhOp : Fuse_UnaryOp<"atanh", "Atanh", Fuse_MathFacts> { let summary = "atanh(x)"; }
def Fuse_HardSwishOp : Fuse_UnaryOp<"hard_swish", "HardSwish", Fuse_SmoothActivationFacts> {
  let summary = "x * max(0, min(1, x / 6 + 1 / 2))";
}

def Fuse_LeakyReluOp : Fuse_UnaryOp<"leaky_relu", "LeakyRelu", Fuse_ActivationFacts> {
  let summary = "x if x >= 0, else alpha * x";
  let arguments = (ins Fuse_Tensor:$input, DefaultValuedAttr<F32Attr, "0.01f">:$alpha);
}

def Fuse_TriluOp : Fuse_OnnxOp<"trilu", "Trilu", Fuse_ElementwiseFacts> {
  let summary = "Keep the upper (or lower) triangle of each matrix, zero the rest";
  let description = [{
    Over the last two dimensions: element (i, j) is kept where j - i >= k
    (`upper`) or j - i <= k (lower), and is 0 (false) elsewhere. Any element
    type; an elementwise op whose value depends on its position.
  }];
  let arguments = (ins Fuse_AnyTensor:$input, BoolAttr:$upper, I64Attr:$k);
  let results = (outs Fuse_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Fuse_HardSigmoidOp : Fuse_UnaryOp<"hard_sigmoid", "HardSigmoid", Fuse_ActivationFacts> {
  let summary = "max(0, min(1, alpha * x + beta))";
  let arguments = (ins Fuse_Tensor:$input, DefaultValuedAttr<F32Attr, "0.2f">:$alpha,
                   DefaultValuedAttr<F32Attr, "0.5f">:$beta);
}

def Fuse_CastOp : Fuse_OnnxOp<"cast", "Cast", Fuse_ElementwiseFacts> {
  let summary = "Convert each element to the element type `to`";
  let description = [{
    `to` names the result's element type as plans spell it: "f32", "f16",
    "bf16", "i64", "i32" or "i1". Float to float rounds to nearest even;
    float to integer truncates toward zero and saturates (NaN gives 0);
    anything to i1 is `x != 0`. The only compute op that takes or gives
    integer and bool tensors.
  }];
  let arguments = (ins Fuse_AnyTensor:$input, StrAttr:$to);
  let results = (outs Fuse_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Fuse_GeluOp : Fuse_UnaryOp<"gelu", "Gelu", Fuse_Facts<"Elementwise", 4, "F32", 1>> {
  let summary = "Gaussian error linear unit";
  let description = [{ `approximate` is "none" (erf form) or "tanh". }];
  let arguments = (ins Fuse_Tensor:$input,
                   DefaultValuedStrAttr<StrAttr, "none">:$approximate);
}

def Fuse_ClipOp : Fuse_UnaryOp<"clip", "Clip", Fuse_ActivationFacts> {
  let summary = "min(max(x, min), max); an absent bound is unbounded";
  let arguments = (ins Fuse_Tensor:$input, OptionalAttr<F32Attr>:$min,
                   OptionalAttr<F32Attr>:$max);
}

class Fuse_BinaryOp<string mnemonic, string onnxName, list<Trait> traits = [],
                    Fuse_Facts facts = Fuse_ElementwiseFacts>
    : Fuse_OnnxOp<mnemonic, onnxName, facts, traits> {
  let description = [{ Elementwise with numpy broadcasting. }];
  let arguments = (ins Fuse_Tensor:$lhs, Fuse_Tensor:$rhs);
  let results = (outs Fuse_Tensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Fuse_AddOp : Fuse_BinaryOp<"add", "Add", [Commutative]> { let summary = "lhs + rhs"; }
def Fuse_SubOp : Fuse_BinaryOp<"sub", "Sub"> { let summary = "lhs - rhs"; }
def Fuse_MulOp : Fuse_BinaryOp<"mul", "Mul", [Commutative]> { let summary = "lhs * rhs"; }
def Fuse_DivOp : Fuse_BinaryOp<"div", "Div"> { let summary = "lhs / rhs"; }
def Fuse_PowOp : Fuse_BinaryOp<"pow", "Pow", [], Fuse_MathFacts> { let summary = "lhs ^ rhs"; }
def Fuse_PReluOp : Fuse_BinaryOp<"prelu", "PRelu"> {
  let summary = "lhs where lhs >= 0, else rhs * lhs (rhs: the broadcast slope)";
}
def Fuse_MinOp : Fuse_BinaryOp<"min", "Min", [Commutative]> {
  let summary = "min(lhs, rhs); NaN if either is NaN";
}
def Fuse_MaxOp : Fuse_BinaryOp<"max", "Max", [Commutative]> {
  let summary = "max(lhs, rhs); NaN if either is NaN";
}
def Fuse_ModOp : Fuse_BinaryOp<"mod", "Mod", [], Fuse_Facts<"Elementwise", 4>> {
  let summary = "Remainder of lhs / rhs";
  let description = [{
    With `fmod` = 1 the remainder has the sign of `lhs` (C's fmod); with 0
    it has the sign of `rhs` (Python's %, torch.remainder).
  }];
  let arguments = (ins Fuse_Tensor:$lhs, Fuse_Tensor:$rhs, DefaultValuedAttr<BoolAttr, "false">:$fmod);
}

//===----------------------------------------------------------------------===//
// Comparisons, logic and selection: the ops that build and apply masks
//===----------------------------------------------------------------------===//

def Fuse_BoolTensor : RankedTensorOf<[I1]>;

class Fuse_CompareOp<string mnemonic, string onnxName, list<Trait> traits = []>
    : Fuse_OnnxOp<mnemonic, onnxName, Fuse_ElementwiseFacts, traits> {
  let description = [{
    Elementwise with numpy broadcasting; operands of one element type (float,
    integer or bool), an i1 result.
  }];
  let arguments = (ins Fuse_AnyTensor:$lhs, Fuse_AnyTensor:$rhs);
  let results = (outs Fuse_BoolTensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Fuse_EqualOp : Fuse_CompareOp<"equal", "Equal", [Commutative]> { let summary = "lhs == rhs"; }
def Fuse_LessOp : Fuse_CompareOp<"less", "Less"> { let summary = "lhs < rhs"; }
def Fuse_LessOrEqualOp : Fuse_CompareOp<"less_or_equal", "LessOrEqual"> { let summary = "lhs <= rhs"; }
def Fuse_GreaterOp : Fuse_CompareOp<"greater", "Greater"> { let summary = "lhs > rhs"; }
def Fuse_GreaterOrEqualOp : Fuse_CompareOp<"greater_or_equal", "GreaterOrEqual"> { let summary = "lhs >= rhs"; }

class Fuse_LogicalOp<string mnemonic, string onnxName, list<Trait> traits = []>
    : Fuse_OnnxOp<mnemonic, onnxName, Fuse_ElementwiseFacts, traits> {
  let description = [{ Elementwise on i1 tensors with numpy broadcasting. }];
  let arguments = (ins Fuse_BoolTensor:$lhs, Fuse_BoolTensor:$rhs);
  let results = (outs Fuse_BoolTensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Fuse_AndOp : Fuse_LogicalOp<"and", "And", [Commutative]> { let summary = "lhs and rhs"; }
def Fuse_OrOp : Fuse_LogicalOp<"or", "Or", [Commutative]> { let summary = "lhs or rhs"; }
def Fuse_XorOp : Fuse_LogicalOp<"xor", "Xor", [Commutative]> { let summary = "lhs xor rhs"; }

def Fuse_NotOp : Fuse_OnnxOp<"not", "Not", Fuse_ElementwiseFacts> {
  let summary = "not x, on an i1 tensor";
  let arguments = (ins Fuse_BoolTensor:$input);
  let results = (outs Fuse_BoolTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Fuse_WhereOp : Fuse_OnnxOp<"where", "Where", Fuse_ElementwiseFacts> {
  let summary = "condition ? lhs : rhs, elementwise with numpy broadcasting";
  let description = [{
    `condition` is an i1 tensor; `lhs` and `rhs` share any element type,
    which the result has. How masks are applied (masked_fill).
  }];
  let arguments = (ins Fuse_BoolTensor:$condition, Fuse_AnyTensor:$lhs, Fuse_AnyTensor:$rhs);
  let results = (outs Fuse_AnyTensor:$output);
  let assemblyFormat = "$condition `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

// Quantization (docs/precision.md, "Quantized models"). The scale and zero
// point broadcast to the input as numpy broadcasts: the importer reshapes
// ONNX's per-axis vectors to put their length on the axis. Both fold when
// every operand is a constant (quantized weights become f32 constants).
def Fuse_QuantizeLinearOp
    : Fuse_OnnxOp<"quantize_linear", "QuantizeLinear", Fuse_Facts<"Elementwise", 3, "F32">> {
  let summary = "saturate(round(input / scale) + zero_point), elementwise";
  let description = [{
    ONNX's QuantizeLinear. The quotient is an f32 division rounded to
    nearest, then rounded to the nearest integer (ties to even); adding the
    zero point and clamping to the result type's range (i8: -128..127, u8:
    0..255) gives the value. A NaN input gives the zero point. The result's
    element type is the zero point's; `scale` (f32, positive) and
    `zero_point` have one shape that broadcasts to the input's, which the
    result keeps.
  }];
  let arguments = (ins Fuse_Tensor:$input, Fuse_Tensor:$scale, Fuse_QuantizedTensor:$zero_point);
  let results = (outs Fuse_QuantizedTensor:$output);
  let assemblyFormat = "$input `,` $scale `,` $zero_point attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Fuse_DequantizeLinearOp
    : Fuse_OnnxOp<"dequantize_linear", "DequantizeLinear", Fuse_Facts<"Elementwise", 2, "F32">> {
  let summary = "(input - zero_point) * scale, elementwise";
  let description = [{
    ONNX's DequantizeLinear: the difference is exact (an integer of at most
    9 bits), the product one f32 rounding. The input and the zero point
    share a quantized element type; `scale` and `zero_point` have one shape
    that broadcasts to the input's. The result is f32, of the input's shape.
  }];
  let arguments = (ins Fuse_QuantizedTensor:$input, Fuse_Tensor:$scale, Fuse_QuantizedTensor:$zero_point);
  let results = (outs Fuse_Tensor:$output);
  let assemblyFormat = "$input `,` $scale `,` $zero_point attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Convolution, normalisation, pooling
//===----------------------------------------------------------------------===//

def Fuse_ConvOp : Fuse_OnnxOp<"conv", "Conv", Fuse_Facts<"Conv", 1, "Half">> {
  let summary = "2-D convolution (NCHW input, OIHW weights; or NHWC and OHWI)";
  let description = [{
    `pads` is [top, left, bottom, right]. `group` divides both the input and
    the output channels; weights have `C_in / group` input channels.
    With `channels_last` (set by fuse-convert-to-channels-last, never by an
    importer) the input and result are NHWC and the weight is OHWI: the
    same convolution with the channel axis innermost.
  }];
  let arguments = (ins Fuse_Tensor:$input, Fuse_Tensor:$weight,
                   Fuse_OptionalTensor:$bias,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations, I64Attr:$group,
                   DefaultValuedAttr<BoolAttr, "false">:$channels_last);
  let results = (outs Fuse_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Fuse_BatchNormOp : Fuse_OnnxOp<"batch_norm", "BatchNormalization", Fuse_Facts<"Elementwise", 4, "F32">> {
  let summary = "Inference batch normalisation over channel axis 1";
  let arguments = (ins Fuse_Tensor:$input, Fuse_Tensor:$scale, Fuse_Tensor:$bias,
                   Fuse_Tensor:$mean, Fuse_Tensor:$variance, F32Attr:$epsilon);
  let results = (outs Fuse_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `,` $mean `,` $variance attr-dict `:` functional-type(operands, results)
  }];
}

def Fuse_LayerNormOp : Fuse_OnnxOp<"layer_norm", "LayerNormalization", Fuse_Facts<"Reduction", 5, "F32">> {
  let summary = "Normalise over axes [axis, rank), then scale and shift";
  let arguments = (ins Fuse_Tensor:$input, Fuse_Tensor:$scale,
                   Fuse_OptionalTensor:$bias, I64Attr:$axis, F32Attr:$epsilon);
  let results = (outs Fuse_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $scale (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Fuse_SoftmaxOp : Fuse_OnnxOp<"softmax", "Softmax", Fuse_Facts<"Reduction", 5, "F32">> {
  let summary = "Softmax along one axis";
  let arguments = (ins Fuse_Tensor:$input, I64Attr:$axis);
  let results = (outs Fuse_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Fuse_MaxPoolOp : Fuse_OnnxOp<"max_pool", "MaxPool", Fuse_Facts<"Pool">> {
  let summary = "2-D max pooling; padded positions are -inf";
  let description = [{ With `channels_last` the input and result are NHWC. }];
  let arguments = (ins Fuse_Tensor:$input, DenseI64ArrayAttr:$kernel_shape,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations, BoolAttr:$ceil_mode,
                   DefaultValuedAttr<BoolAttr, "false">:$channels_last);
  let results = (outs Fuse_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Fuse_AveragePoolOp : Fuse_OnnxOp<"average_pool", "AveragePool", Fuse_Facts<"Pool">> {
  let summary = "2-D average pooling";
  let description = [{ With `channels_last` the input and result are NHWC. }];
  let arguments = (ins Fuse_Tensor:$input, DenseI64ArrayAttr:$kernel_shape,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   BoolAttr:$ceil_mode, BoolAttr:$count_include_pad,
                   DefaultValuedAttr<BoolAttr, "false">:$channels_last);
  let results = (outs Fuse_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Fuse_GlobalAveragePoolOp
    : Fuse_OnnxOp<"global_average_pool", "GlobalAveragePool", Fuse_Facts<"Reduction", 1, "F32">> {
  let summary = "Mean over all spatial axes (N, C, ... -> N, C, 1, ...)";
  let arguments = (ins Fuse_Tensor:$input);
  let results = (outs Fuse_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

// Reductions over `axes` (sorted, non-negative, not empty): ONNX's
// Reduce* ops, each an initial value, a step and a final map
// (support/Reductions.h).
class Fuse_ReduceOp<string mnemonic, string onnxName, string what, string amp = "F32">
    : Fuse_OnnxOp<mnemonic, onnxName, Fuse_Facts<"Reduction", 1, amp>> {
  let summary = what # " over `axes` (sorted, non-negative)";
  let arguments = (ins Fuse_Tensor:$input, DenseI64ArrayAttr:$axes,
                   BoolAttr:$keepdims);
  let results = (outs Fuse_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Fuse_ReduceMeanOp : Fuse_ReduceOp<"reduce_mean", "ReduceMean", "Mean">;
def Fuse_ReduceSumOp : Fuse_ReduceOp<"reduce_sum", "ReduceSum", "Sum">;
def Fuse_ReduceMaxOp : Fuse_ReduceOp<"reduce_max", "ReduceMax", "Maximum (NaN propagates)", "Follow">;
def Fuse_ReduceMinOp : Fuse_ReduceOp<"reduce_min", "ReduceMin", "Minimum (NaN propagates)", "Follow">;
def Fuse_ReduceProdOp : Fuse_ReduceOp<"reduce_prod", "ReduceProd", "Product">;
def Fuse_ReduceSumSquareOp : Fuse_ReduceOp<"reduce_sum_square", "ReduceSumSquare", "Sum of squares">;
def Fuse_ReduceL1Op : Fuse_ReduceOp<"reduce_l1", "ReduceL1", "Sum of absolute values">;
def Fuse_ReduceL2Op : Fuse_ReduceOp<"reduce_l2", "ReduceL2", "Euclidean norm">;
def Fuse_ReduceLogSumOp : Fuse_ReduceOp<"reduce_log_sum", "ReduceLogSum", "Log of the sum">;

// ArgMax / ArgMin: the index along `axis` of the largest (smallest) element,
// as i64. Ties go to the first index, or the last with `select_last_index`;
// NaN counts as larger (and smaller) than every number, as in numpy.
class Fuse_ArgReduceOp<string mnemonic, string onnxName, string what>
    : Fuse_OnnxOp<mnemonic, onnxName, Fuse_Facts<"Reduction">> {
  let summary = "Index of the " # what # " element along `axis` (i64)";
  let arguments = (ins Fuse_Tensor:$input, I64Attr:$axis, BoolAttr:$keepdims,
                   BoolAttr:$select_last_index);
  let results = (outs Fuse_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Fuse_ArgMaxOp : Fuse_ArgReduceOp<"arg_max", "ArgMax", "largest">;
def Fuse_ArgMinOp : Fuse_ArgReduceOp<"arg_min", "ArgMin", "smallest">;

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

def Fuse_MatMulOp : Fuse_OnnxOp<"matmul", "MatMul", Fuse_ProductFacts> {
  let summary = "numpy matmul with batch broadcasting";
  let arguments = (ins Fuse_Tensor:$lhs, Fuse_Tensor:$rhs);
  let results = (outs Fuse_Tensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Fuse_GemmOp : Fuse_OnnxOp<"gemm", "Gemm", Fuse_ProductFacts> {
  let summary = "alpha * op(A) * op(B) + beta * C on 2-D operands";
  let arguments = (ins Fuse_Tensor:$a, Fuse_Tensor:$b, Fuse_OptionalTensor:$c,
                   F32Attr:$alpha, F32Attr:$beta, BoolAttr:$transA,
                   BoolAttr:$transB);
  let results = (outs Fuse_Tensor:$output);
  let assemblyFormat = [{
    $a `,` $b (`,` $c^)? attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Attention (formed by fuse-form-attention; no importer creates it)
//===----------------------------------------------------------------------===//

def Fuse_AttentionOp : Fuse_OnnxOp<"attention", "Attention", Fuse_Facts<"Attention", 1, "Half">> {
  let summary = "softmax(scale * Q Kt + mask, causal) V in one op";
  let description = [{
    query [..., S, D], key [..., Sk, D], value [..., Sk, Dv] share their
    leading (batch, head) dimensions; the optional additive `mask`
    broadcasts to [..., S, Sk]. With `causal`, query row i attends to keys
    j <= i + (Sk - S) only. The result is [..., S, Dv]. Formed from
    MatMul -> scale -> (Add mask) -> Softmax -> MatMul chains so that the
    S x Sk scores never reach memory.
  }];
  let arguments = (ins Fuse_Tensor:$query, Fuse_Tensor:$key, Fuse_Tensor:$value,
                   Fuse_OptionalTensor:$mask, F32Attr:$scale, BoolAttr:$causal);
  let results = (outs Fuse_Tensor:$output);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`,` $mask^)? attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Fuse_PadOp : Fuse_OnnxOp<"pad", "Pad", Fuse_DataMovementFacts> {
  let summary = "Pad with a constant, by reflection, or by repeating the edge";
  let description = [{
    `pads` holds all begin amounts, then all end amounts (2 x rank, each >= 0).
    `mode` is "constant", "reflect" or "edge"; `value` fills constant pads.
  }];
  let arguments = (ins Fuse_Tensor:$input, DenseI64ArrayAttr:$pads,
                   DefaultValuedStrAttr<StrAttr, "constant">:$mode,
                   DefaultValuedAttr<F32Attr, "0.0f">:$value);
  let results = (outs Fuse_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Fuse_ReshapeOp : Fuse_OnnxOp<"reshape", "Reshape", Fuse_DataMovementFacts> {
  let summary = "Reinterpret the shape; 0 copies an input dim, -1 is inferred";
  let description = [{
    ONNX's Reshape on the same bytes. A 0 copies the input's dimension at the
    same index; a -1 is inferred. The batch and any run-time dimension (a
    range, `fusec --dim seq=1:512`) keep their order and the elements before
    them: one not copied by a 0 lands on a -1. Several -1 entries each take
    one such dimension in order (every static size given), so an Unsqueeze of
    `[seq, batch, 32]` is `{1, -1, -1, 32}`.
  }];
  let arguments = (ins Fuse_AnyTensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs Fuse_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Fuse_FlattenOp : Fuse_OnnxOp<"flatten", "Flatten", Fuse_DataMovementFacts> {
  let summary = "Collapse to 2-D: [d0*..*d(axis-1), d(axis)*..]";
  let arguments = (ins Fuse_AnyTensor:$input, I64Attr:$axis);
  let results = (outs Fuse_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Fuse_TransposeOp : Fuse_OnnxOp<"transpose", "Transpose", Fuse_DataMovementFacts> {
  let summary = "Permute dimensions: output dim i is input dim perm[i]";
  let description = [{
    Folds when its input is a constant (e.g. a linear layer's weight), when
    it is the identity, and into a transpose that produces its input (the
    two compose; inverse pairs cancel).
  }];
  let arguments = (ins Fuse_AnyTensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Fuse_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Fuse_ConcatOp : Fuse_OnnxOp<"concat", "Concat", Fuse_DataMovementFacts> {
  let summary = "Concatenate along `axis`";
  let arguments = (ins Variadic<Fuse_AnyTensor>:$inputs, I64Attr:$axis);
  let results = (outs Fuse_AnyTensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
}

def Fuse_SliceOp : Fuse_OnnxOp<"slice", "Slice", Fuse_DataMovementFacts> {
  let summary = "Strided window: elements starts[d], starts[d] + steps[d], ... before ends[d]";
  let description = [{
    One entry per input dimension, normalised as ONNX clamps them (see
    rules::normalizeSlice): for a positive step, start and end lie in
    [0, extent]; for a negative one, in [-1, extent - 1]. The batch dimension
    is sliced only whole (start 0, end INT64_MAX, step 1). ONNX Split becomes
    one slice per output. An end -2 - k (start 0, step 1) on a static axis is
    the run-time dimension named `symbols[k]` (a range, which must not exceed
    the extent): GPT-2's causal buffer sliced to `[:seq, :seq]`.
  }];
  let arguments = (ins Fuse_AnyTensor:$input, DenseI64ArrayAttr:$starts,
                   DenseI64ArrayAttr:$ends, DenseI64ArrayAttr:$steps, OptionalAttr<StrArrayAttr>:$symbols);
  let results = (outs Fuse_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Fuse_IndexTensor : RankedTensorOf<[I64, I32]>;

def Fuse_GatherOp : Fuse_OnnxOp<"gather", "Gather", Fuse_DataMovementFacts> {
  let summary = "Select entries of `axis` by index (embedding lookups, x[:, i])";
  let description = [{
    The result's shape is input[:axis] + indices + input[axis + 1:]. Negative
    indices count from the end of the axis. An index outside
    [-extent, extent) is an error on the CPU backend; GPU kernels clamp it
    into the axis, so they never read outside the tensor.
  }];
  let arguments = (ins Fuse_AnyTensor:$input, Fuse_IndexTensor:$indices, I64Attr:$axis);
  let results = (outs Fuse_AnyTensor:$output);
  let assemblyFormat = "$input `,` $indices attr-dict `:` functional-type(operands, results)";
}

def Fuse_GatherElementsOp : Fuse_OnnxOp<"gather_elements", "GatherElements", Fuse_DataMovementFacts> {
  let summary = "Select one entry of `axis` per index (torch.gather, take_along_axis)";
  let description = [{
    `indices` has the input's rank and the result's shape: the result at
    coordinates c is the input at c with c[axis] replaced by indices[c].
    Along every other axis `indices` is no longer than the input (the batch
    dimension, if any, in both). Negative indices count from the end of the
    axis. An index outside [-extent, extent) is an error on the CPU backend;
    GPU kernels clamp it into the axis.
  }];
  let arguments = (ins Fuse_AnyTensor:$input, Fuse_IndexTensor:$indices, I64Attr:$axis);
  let results = (outs Fuse_AnyTensor:$output);
  let assemblyFormat = "$input `,` $indices attr-dict `:` functional-type(operands, results)";
}

def Fuse_ExpandOp : Fuse_OnnxOp<"expand", "Expand", Fuse_DataMovementFacts> {
  let summary = "Broadcast to `shape` with numpy rules (1 keeps the input's extent, -1 is the batch size)";
  let description = [{
    A `shape` entry -2 - k is the run-time dimension named `symbols[k]` (a
    range, `fusec --dim seq=1:512`): a causal mask expanded to
    `[seq, seq]`, a padding mask to `[batch, seq]`.
  }];
  let arguments = (ins Fuse_AnyTensor:$input, DenseI64ArrayAttr:$shape, OptionalAttr<StrArrayAttr>:$symbols);
  let results = (outs Fuse_AnyTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Fuse_ResizeOp : Fuse_OnnxOp<"resize", "Resize", Fuse_DataMovementFacts> {
  let summary = "Resample with nearest, (multi)linear or cubic interpolation, as ONNX Resize";
  let description = [{
    `sizes` is the output extent of each axis (-1 keeps the batch
    dimension); `scales` the factor of each axis's coordinate transform
    (ONNX's scale, or output / input extent when the model gave sizes). The
    modes are ONNX's (support/OpRules.h: rules::checkResizeModes);
    linear interpolates every resized axis, reading neighbours clamped into
    the input as ONNX's reference does; cubic reads four per axis, weighed
    by Keys' kernel with `cubic_coeff_a` (rules::resizeCubicTaps), with
    `exclude_outside` dropping (and renormalizing away) the taps outside the
    input. ONNX Upsample becomes a Resize (asymmetric coordinates, nearest
    rounding down).
  }];
  let arguments = (ins Fuse_Tensor:$input, DenseI64ArrayAttr:$sizes,
                   DenseF32ArrayAttr:$scales, StrAttr:$mode,
                   StrAttr:$coordinate_transformation_mode, StrAttr:$nearest_mode,
                   DefaultValuedAttr<F32Attr, "-0.75f">:$cubic_coeff_a,
                   DefaultValuedAttr<BoolAttr, "false">:$exclude_outside);
  let results = (outs Fuse_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Fused groups
//===----------------------------------------------------------------------===//

def Fuse_SuperkernelOp : Fuse_Op<"superkernel", [IsolatedFromAbove,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "A fused group of ops that codegen emits as one kernel";
  let description = [{
    The body's block arguments correspond one to one to the operands; the
    `fuse.yield` terminator returns one value per result. `kind` names the
    kernel template (conv, gemm, elementwise, reduction, ...); `sym_name` is
    the readable kernel name; `cost` holds the cost model's estimates for the
    fused kernel and for the kernels it replaces (`fused_us`, `unfused_us`,
    `fused_bytes`, `unfused_bytes`, `unfused_kernels`); `config`, on conv
    and gemm kernels, how codegen instantiates the template
    (`#fuse.config`); `variants`, other configs of the same kernel that the
    plan carries compiled beside it, for the runtime to time and choose
    from (`fuserun --tune`). `config` stays the one the cost model prices
    and the runtime runs unless tuning chose otherwise. `library` names the
    vendor library (`cublaslt`) whose call the plan carries as a further
    variant (ir/LibraryMatmul.h says which kernels it can compute), and
    `library_default` makes that variant the one the runtime runs untuned;
    `no_library`, on a conv or gemm kernel without one, says why.
  }];
  let arguments = (ins Variadic<Fuse_AnyTensor>:$inputs, StrAttr:$sym_name,
                   StrAttr:$kind, OptionalAttr<DictionaryAttr>:$cost,
                   OptionalAttr<Fuse_KernelConfigAttr>:$config,
                   OptionalAttr<TypedArrayAttrBase<Fuse_KernelConfigAttr,
                                                   "kernel configs">>:$variants,
                   OptionalAttr<StrAttr>:$library,
                   UnitAttr:$library_default,
                   OptionalAttr<StrAttr>:$no_library);
  let results = (outs Variadic<Fuse_AnyTensor>:$outputs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `kind` $kind `(` $inputs `)` attr-dict-with-keyword `:` functional-type($inputs, $outputs) $body
  }];
  let hasRegionVerifier = 1;
}

def Fuse_YieldOp : Fuse_Op<"yield", [Pure, Terminator,
    HasParent<"SuperkernelOp">]> {
  let summary = "Returns the results of a superkernel body";
  let arguments = (ins Variadic<Fuse_AnyTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::ValueRange()); }]>];
}

#endif // FUSE_OPS_TD
