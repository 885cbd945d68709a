//===- ShapeInference.cpp - Result types of fuse ops -------------------===//
//
// Each op computes its result type from operand types and attributes and
// diagnoses everything that makes that impossible. Shape inference doubles as
// the op verifier (see FuseInterfaces.td), so every attribute range check
// lives here, next to the arithmetic that needs it.
//
//===----------------------------------------------------------------------===//
#include "ir/ElementTypes.h"
#include "ir/FuseOps.h"
#include "ir/ShapeUtils.h"
#include "support/CheckedMath.h"
#include "support/OpRules.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;

namespace fusec::fuse {
namespace {

/// The shape with its symbols (ShapeUtils.h): kDynamic for the batch, a
/// symbol of its own for each named run-time dimension.
SmallVector<int64_t> shapeOf(Value value) { return symbolicShape(value.getType()); }

/// "the batch dimension", or "the run-time dimension 'seq'" (a range).
std::string describeSymbol(int64_t dim) {
  return dim == kDynamic ? "the batch dimension" : "the run-time dimension '" + symbolName(dim) + "'";
}

/// Records the result type, after checking that a sample of it is no larger
/// than the runtime accepts (fusec::kMaxTensorBytes), so that hostile
/// attributes or inputs cannot make the compiler write an unloadable plan.
///
/// The result has its operands' element type: an op computes in one type
/// (mixed precision inserts fuse.cast where types change), so operands of
/// different types are an error.
LogicalResult success(SmallVectorImpl<Type> &inferred, Operation *op, ArrayRef<int64_t> shape, Type elementType = {}) {
  if (!elementType) {
    elementType = elementTypeOf(op->getOperand(0));
    for (auto [index, operand] : llvm::enumerate(op->getOperands()))
      if (elementTypeOf(operand) != elementType)
        return op->emitOpError() << "operands must share one element type: operand 0 is " << elementType << ", operand "
                                 << index << " is " << elementTypeOf(operand);
  }
  SmallVector<int64_t> sample;
  for (int64_t dim : shape)
    sample.push_back(isSymbolic(dim) ? 1 : dim);
  if (!checkedTensorBytes(sample))
    return op->emitOpError() << "result shape " << shapeToString(shape) << " is implausibly large (more than "
                             << kMaxTensorBytes << " bytes per sample)";
  inferred.push_back(symbolicTensorType(shape, elementType));
  return mlir::success();
}

/// Reports a violated rule of support/OpRules.h; success if `error`
/// is empty.
LogicalResult checkRule(Operation *op, const std::string &error) {
  if (error.empty())
    return mlir::success();
  return op->emitOpError() << error;
}

LogicalResult expectRank(Operation *op, StringRef what, Value value, int64_t rank) {
  if (static_cast<int64_t>(shapeOf(value).size()) == rank)
    return mlir::success();
  return op->emitOpError() << what << " must have rank " << rank << ", got " << shapeToString(shapeOf(value));
}

LogicalResult expectStatic(Operation *op, StringRef what, int64_t dim) {
  if (!isSymbolic(dim))
    return mlir::success();
  return op->emitOpError() << what << " must be static, not " << describeSymbol(dim);
}

/// Checks `values` has `size` entries, each >= `min`.
LogicalResult expectArray(Operation *op, StringRef name, ArrayRef<int64_t> values, size_t size, int64_t min) {
  if (values.size() != size)
    return op->emitOpError() << "'" << name << "' must have " << size << " entries, got " << values.size();
  for (int64_t v : values)
    if (v < min)
      return op->emitOpError() << "'" << name << "' entries must be >= " << min << ", got " << v;
  return mlir::success();
}

LogicalResult expectAxis(Operation *op, StringRef name, int64_t axis, int64_t rank) {
  if (axis >= 0 && axis < rank)
    return mlir::success();
  return op->emitOpError() << "'" << name << "' " << axis << " is out of range for rank " << rank;
}

LogicalResult inferUnary(Operation *op, SmallVectorImpl<Type> &inferred) {
  return success(inferred, op, shapeOf(op->getOperand(0)));
}

LogicalResult inferBroadcast(Operation *op, SmallVectorImpl<Type> &inferred) {
  auto lhs = shapeOf(op->getOperand(0)), rhs = shapeOf(op->getOperand(1));
  auto result = broadcastShapes(lhs, rhs);
  if (!result)
    return op->emitOpError() << "operands do not broadcast: " << shapeToString(lhs) << " and " << shapeToString(rhs);
  return success(inferred, op, *result);
}

/// Spatial output sizes shared by conv and pooling. `kernel` holds the window
/// sizes for the trailing spatial dims of `input`.
/// The two spatial output sizes of a window over the image `input` (laid
/// out as `axes` say).
LogicalResult inferWindowed(Operation *op, ArrayRef<int64_t> input, ImageAxes axes, ArrayRef<int64_t> kernel,
                            ArrayRef<int64_t> strides, ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations,
                            bool ceilMode, SmallVectorImpl<int64_t> &spatial) {
  if (failed(expectArray(op, "strides", strides, 2, 1)) || failed(expectArray(op, "pads", pads, 4, 0)) ||
      failed(expectArray(op, "dilations", dilations, 2, 1)))
    return failure();
  for (int i = 0; i < 2; ++i) {
    int64_t size = input[i == 0 ? axes.height : axes.width];
    if (failed(expectStatic(op, "spatial input dimension", size)))
      return failure();
    rules::WindowAxis axis{size, kernel[i], strides[i], dilations[i], pads[i], pads[i + 2]};
    int64_t out = 0;
    std::string error = rules::windowOutputSize(axis, ceilMode, out);
    if (!error.empty())
      return op->emitOpError() << "spatial dimension " << i << ": " << error;
    spatial.push_back(out);
  }
  return mlir::success();
}

/// The shape of an image of `batch` x `channels` x spatial, laid out as
/// `axes` say.
SmallVector<int64_t> imageShape(ImageAxes axes, int64_t batch, int64_t channels, ArrayRef<int64_t> spatial) {
  SmallVector<int64_t> shape(4);
  shape[axes.batch] = batch;
  shape[axes.channel] = channels;
  shape[axes.height] = spatial[0];
  shape[axes.width] = spatial[1];
  return shape;
}

} // namespace

LogicalResult verifyInferredResultTypes(Operation *op) {
  auto inference = llvm::cast<ShapeInferenceOpInterface>(op);
  SmallVector<Type> inferred;
  if (failed(inference.inferResultTypes(inferred)))
    return failure();
  if (TypeRange(inferred) == op->getResultTypes())
    return mlir::success();
  auto diag = op->emitOpError() << "result type ";
  llvm::interleaveComma(op->getResultTypes(), diag);
  diag << " does not match the inferred type ";
  llvm::interleaveComma(inferred, diag);
  return diag;
}

LogicalResult inferAndSetResultTypes(Operation *op) {
  auto inference = llvm::dyn_cast<ShapeInferenceOpInterface>(op);
  if (!inference)
    return mlir::success();
  SmallVector<Type> inferred;
  if (failed(inference.inferResultTypes(inferred)))
    return failure();
  for (auto [result, type] : llvm::zip(op->getResults(), inferred))
    result.setType(type);
  return mlir::success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

#define FUSE_UNARY_INFERENCE(OP)                                                                                       \
  LogicalResult OP::inferResultTypes(SmallVectorImpl<Type> &inferred) { return inferUnary(*this, inferred); }
FUSE_UNARY_INFERENCE(ReluOp)
FUSE_UNARY_INFERENCE(SigmoidOp)
FUSE_UNARY_INFERENCE(TanhOp)
FUSE_UNARY_INFERENCE(ErfOp)
FUSE_UNARY_INFERENCE(SqrtOp)
FUSE_UNARY_INFERENCE(NegOp)
FUSE_UNARY_INFERENCE(ExpOp)
FUSE_UNARY_INFERENCE(LogOp)
FUSE_UNARY_INFERENCE(AbsOp)
FUSE_UNARY_INFERENCE(ReciprocalOp)
FUSE_UNARY_INFERENCE(FloorOp)
FUSE_UNARY_INFERENCE(CeilOp)
FUSE_UNARY_INFERENCE(RoundOp)
FUSE_UNARY_INFERENCE(SignOp)
FUSE_UNARY_INFERENCE(SinOp)
FUSE_UNARY_INFERENCE(CosOp)
FUSE_UNARY_INFERENCE(TanOp)
FUSE_UNARY_INFERENCE(AsinOp)
FUSE_UNARY_INFERENCE(AcosOp)
FUSE_UNARY_INFERENCE(AtanOp)
FUSE_UNARY_INFERENCE(SinhOp)
FUSE_UNARY_INFERENCE(CoshOp)
FUSE_UNARY_INFERENCE(AsinhOp)
FUSE_UNARY_INFERENCE(AcoshOp)
FUSE_UNARY_INFERENCE(AtanhOp)
FUSE_UNARY_INFERENCE(HardSwishOp)
FUSE_UNARY_INFERENCE(LeakyReluOp)
FUSE_UNARY_INFERENCE(NotOp)
#undef FUSE_UNARY_INFERENCE

LogicalResult TriluOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  if (shapeOf(getInput()).size() < 2)
    return emitOpError() << "needs a tensor of rank 2 or more, got " << shapeToString(shapeOf(getInput()));
  return inferUnary(*this, inferred);
}

LogicalResult GeluOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitOpError() << "'approximate' must be \"none\" or \"tanh\", got \"" << getApproximate() << "\"";
  return inferUnary(*this, inferred);
}

LogicalResult CastOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  Type to = parseElementType(getContext(), getTo());
  if (!to)
    return emitOpError() << "'to' must be one of f32, f16, bf16, i64, i32, i1, got \"" << getTo() << "\"";
  return success(inferred, *this, shapeOf(getInput()), to);
}

LogicalResult ClipOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  if (getMin() && getMax() && getMin()->convertToFloat() > getMax()->convertToFloat())
    return emitOpError() << "'min' " << getMin()->convertToFloat() << " is greater than 'max' "
                         << getMax()->convertToFloat();
  return inferUnary(*this, inferred);
}

#define FUSE_BINARY_INFERENCE(OP)                                                                                      \
  LogicalResult OP::inferResultTypes(SmallVectorImpl<Type> &inferred) { return inferBroadcast(*this, inferred); }
FUSE_BINARY_INFERENCE(AddOp)
FUSE_BINARY_INFERENCE(SubOp)
FUSE_BINARY_INFERENCE(MulOp)
FUSE_BINARY_INFERENCE(DivOp)
FUSE_BINARY_INFERENCE(PowOp)
FUSE_BINARY_INFERENCE(PReluOp)
FUSE_BINARY_INFERENCE(MinOp)
FUSE_BINARY_INFERENCE(MaxOp)
FUSE_BINARY_INFERENCE(ModOp)
FUSE_BINARY_INFERENCE(AndOp)
FUSE_BINARY_INFERENCE(OrOp)
FUSE_BINARY_INFERENCE(XorOp)
#undef FUSE_BINARY_INFERENCE

LogicalResult HardSigmoidOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  if (!std::isfinite(getAlpha().convertToFloat()) || !std::isfinite(getBeta().convertToFloat()))
    return emitOpError() << "'alpha' and 'beta' must be finite, got " << getAlpha().convertToFloat() << " and "
                         << getBeta().convertToFloat();
  return inferUnary(*this, inferred);
}

/// Comparisons: operands of one (any) element type, an i1 result.
#define FUSE_COMPARE_INFERENCE(OP)                                                                                     \
  LogicalResult OP::inferResultTypes(SmallVectorImpl<Type> &inferred) {                                                \
    if (elementTypeOf(getLhs()) != elementTypeOf(getRhs()))                                                            \
      return emitOpError() << "operands must share one element type: " << elementTypeOf(getLhs()) << " and "           \
                           << elementTypeOf(getRhs());                                                                 \
    auto result = broadcastShapes(shapeOf(getLhs()), shapeOf(getRhs()));                                               \
    if (!result)                                                                                                       \
      return emitOpError() << "operands do not broadcast: " << shapeToString(shapeOf(getLhs())) << " and "             \
                           << shapeToString(shapeOf(getRhs()));                                                        \
    return success(inferred, *this, *result, IntegerType::get(getContext(), 1));                                       \
  }
FUSE_COMPARE_INFERENCE(EqualOp)
FUSE_COMPARE_INFERENCE(LessOp)
FUSE_COMPARE_INFERENCE(LessOrEqualOp)
FUSE_COMPARE_INFERENCE(GreaterOp)
FUSE_COMPARE_INFERENCE(GreaterOrEqualOp)
#undef FUSE_COMPARE_INFERENCE

LogicalResult WhereOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  Type type = elementTypeOf(getLhs());
  if (elementTypeOf(getRhs()) != type)
    return emitOpError() << "the selected operands must share one element type: " << type << " and "
                         << elementTypeOf(getRhs());
  auto values = broadcastShapes(shapeOf(getLhs()), shapeOf(getRhs()));
  auto result = values ? broadcastShapes(shapeOf(getCondition()), *values) : std::nullopt;
  if (!result)
    return emitOpError() << "operands do not broadcast: " << shapeToString(shapeOf(getCondition())) << ", "
                         << shapeToString(shapeOf(getLhs())) << " and " << shapeToString(shapeOf(getRhs()));
  return success(inferred, *this, *result, type);
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

/// QuantizeLinear's and DequantizeLinear's shared rule: an f32 scale and a
/// zero point of one shape, broadcasting to the input's (per tensor: a
/// scalar; per axis: a vector on the axis, ones elsewhere).
static LogicalResult checkQuantizationParameters(Operation *op, Value input, Value scale, Value zeroPoint) {
  if (!elementTypeOf(scale).isF32())
    return op->emitOpError() << "the scale must be f32, got " << elementTypeOf(scale);
  if (!llvm::equal(shapeOf(scale), shapeOf(zeroPoint)))
    return op->emitOpError() << "the scale " << shapeToString(shapeOf(scale)) << " and the zero point "
                             << shapeToString(shapeOf(zeroPoint)) << " must have one shape";
  auto broadcast = broadcastShapes(shapeOf(input), shapeOf(scale));
  if (!broadcast || !llvm::equal(*broadcast, shapeOf(input)))
    return op->emitOpError() << "the scale " << shapeToString(shapeOf(scale)) << " does not broadcast to the input "
                             << shapeToString(shapeOf(input));
  return mlir::success();
}

LogicalResult QuantizeLinearOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  if (failed(checkQuantizationParameters(*this, getInput(), getScale(), getZeroPoint())))
    return failure();
  return success(inferred, *this, shapeOf(getInput()), elementTypeOf(getZeroPoint()));
}

LogicalResult DequantizeLinearOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  if (elementTypeOf(getInput()) != elementTypeOf(getZeroPoint()))
    return emitOpError() << "the input (" << elementTypeOf(getInput()) << ") and the zero point ("
                         << elementTypeOf(getZeroPoint()) << ") must share one quantized type";
  if (failed(checkQuantizationParameters(*this, getInput(), getScale(), getZeroPoint())))
    return failure();
  return success(inferred, *this, shapeOf(getInput()), Float32Type::get(getContext()));
}

//===----------------------------------------------------------------------===//
// Convolution, normalisation, pooling
//===----------------------------------------------------------------------===//

LogicalResult ConvOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  if (failed(expectRank(*this, "input", getInput(), 4)) || failed(expectRank(*this, "weight", getWeight(), 4)))
    return failure();
  auto input = shapeOf(getInput()), weight = shapeOf(getWeight());
  const ImageAxes axes = imageAxes(getChannelsLast());
  int64_t group = getGroup();
  // The weight is OIHW, or OHWI channels-last: its window is [KH, KW].
  int64_t channels = input[axes.channel], filters = weight[0], weightChannels = weight[axes.channel];
  const int64_t window[2] = {weight[axes.height], weight[axes.width]};
  if (failed(expectStatic(*this, "input channel dimension", channels)))
    return failure();
  for (int64_t dim : weight)
    if (failed(expectStatic(*this, "weight shape", dim)))
      return failure();
  if (group < 1)
    return emitOpError() << "'group' must be >= 1, got " << group;
  if (channels % group != 0 || filters % group != 0)
    return emitOpError() << "'group' " << group << " must divide the input channels (" << channels
                         << ") and the output channels (" << filters << ")";
  if (weightChannels != channels / group)
    return emitOpError() << "weight has " << weightChannels << " input channels per group, expected "
                         << channels / group << " (input channels " << channels << " / group " << group << ")";
  if (getBias()) {
    auto bias = shapeOf(getBias());
    if (bias.size() != 1 || bias[0] != filters)
      return emitOpError() << "bias must have shape [" << filters << "], got " << shapeToString(bias);
  }
  SmallVector<int64_t> spatial;
  if (failed(inferWindowed(*this, input, axes, window, getStrides(), getPads(), getDilations(), /*ceilMode=*/false,
                           spatial)))
    return failure();
  return success(inferred, *this, imageShape(axes, input[0], filters, spatial));
}

LogicalResult BatchNormOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  auto input = shapeOf(getInput());
  if (input.size() < 2)
    return emitOpError() << "input must have rank >= 2, got " << shapeToString(input);
  if (failed(expectStatic(*this, "channel dimension", input[1])))
    return failure();
  if (failed(checkRule(*this, rules::checkEpsilon(getEpsilon().convertToFloat()))))
    return failure();
  const StringRef names[] = {"scale", "bias", "mean", "variance"};
  const Value params[] = {getScale(), getBias(), getMean(), getVariance()};
  for (auto [name, value] : llvm::zip(names, params)) {
    auto shape = shapeOf(value);
    if (shape.size() != 1 || shape[0] != input[1])
      return emitOpError() << name << " must have shape [" << input[1] << "], got " << shapeToString(shape);
  }
  return success(inferred, *this, input);
}

LogicalResult LayerNormOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  auto input = shapeOf(getInput());
  int64_t rank = input.size();
  if (failed(expectAxis(*this, "axis", getAxis(), rank)))
    return failure();
  if (failed(checkRule(*this, rules::checkEpsilon(getEpsilon().convertToFloat()))))
    return failure();
  auto normalized = ArrayRef<int64_t>(input).drop_front(getAxis());
  for (Value param : {getScale(), getBias()}) {
    if (!param)
      continue;
    if (!broadcastsTo(shapeOf(param), normalized))
      return emitOpError() << "scale and bias must broadcast to the normalised shape " << shapeToString(normalized)
                           << ", got " << shapeToString(shapeOf(param));
  }
  return success(inferred, *this, input);
}

LogicalResult SoftmaxOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  auto input = shapeOf(getInput());
  if (failed(expectAxis(*this, "axis", getAxis(), input.size())))
    return failure();
  return success(inferred, *this, input);
}

LogicalResult MaxPoolOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  if (failed(expectRank(*this, "input", getInput(), 4)) ||
      failed(expectArray(*this, "kernel_shape", getKernelShape(), 2, 1)))
    return failure();
  auto input = shapeOf(getInput());
  const ImageAxes axes = imageAxes(getChannelsLast());
  SmallVector<int64_t> spatial;
  if (failed(inferWindowed(*this, input, axes, getKernelShape(), getStrides(), getPads(), getDilations(), getCeilMode(),
                           spatial)))
    return failure();
  return success(inferred, *this, imageShape(axes, input[0], input[axes.channel], spatial));
}

LogicalResult AveragePoolOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  if (failed(expectRank(*this, "input", getInput(), 4)) ||
      failed(expectArray(*this, "kernel_shape", getKernelShape(), 2, 1)))
    return failure();
  auto input = shapeOf(getInput());
  const ImageAxes axes = imageAxes(getChannelsLast());
  SmallVector<int64_t> spatial;
  int64_t noDilation[] = {1, 1};
  if (failed(inferWindowed(*this, input, axes, getKernelShape(), getStrides(), getPads(), noDilation, getCeilMode(),
                           spatial)))
    return failure();
  return success(inferred, *this, imageShape(axes, input[0], input[axes.channel], spatial));
}

LogicalResult GlobalAveragePoolOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  auto input = shapeOf(getInput());
  if (input.size() < 3)
    return emitOpError() << "input must have rank >= 3, got " << shapeToString(input);
  for (int64_t dim : ArrayRef<int64_t>(input).drop_front(2))
    if (failed(expectStatic(*this, "spatial input dimension", dim)))
      return failure();
  SmallVector<int64_t> shape(input.begin(), input.end());
  std::fill(shape.begin() + 2, shape.end(), 1);
  return success(inferred, *this, shape);
}

/// The Reduce* ops: `axes` sorted, unique, in range and not empty.
static LogicalResult inferReduce(Operation *op, ArrayRef<int64_t> axes, bool keepdims,
                                 SmallVectorImpl<Type> &inferred) {
  auto input = shapeOf(op->getOperand(0));
  if (axes.empty())
    return op->emitOpError() << "'axes' must not be empty";
  for (size_t i = 0; i < axes.size(); ++i) {
    if (failed(expectAxis(op, "axes", axes[i], input.size())))
      return failure();
    if (i && axes[i] <= axes[i - 1])
      return op->emitOpError() << "'axes' must be sorted and unique";
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0, rank = input.size(); d < rank; ++d) {
    if (!llvm::is_contained(axes, d))
      shape.push_back(input[d]);
    else if (keepdims)
      shape.push_back(1);
  }
  return success(inferred, op, shape);
}

/// ArgMax, ArgMin: `axis` in range and static; an i64 result.
static LogicalResult inferArgReduce(Operation *op, int64_t axis, bool keepdims, SmallVectorImpl<Type> &inferred) {
  auto input = shapeOf(op->getOperand(0));
  if (failed(expectAxis(op, "axis", axis, input.size())) || failed(expectStatic(op, "reduced dimension", input[axis])))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t d = 0, rank = input.size(); d < rank; ++d) {
    if (d != axis)
      shape.push_back(input[d]);
    else if (keepdims)
      shape.push_back(1);
  }
  return success(inferred, op, shape, IntegerType::get(op->getContext(), 64));
}

LogicalResult ArgMaxOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  return inferArgReduce(*this, getAxis(), getKeepdims(), inferred);
}

LogicalResult ArgMinOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  return inferArgReduce(*this, getAxis(), getKeepdims(), inferred);
}

LogicalResult ReduceMeanOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  return inferReduce(*this, getAxes(), getKeepdims(), inferred);
}
LogicalResult ReduceSumOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  return inferReduce(*this, getAxes(), getKeepdims(), inferred);
}
LogicalResult ReduceMaxOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  return inferReduce(*this, getAxes(), getKeepdims(), inferred);
}
LogicalResult ReduceMinOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  return inferReduce(*this, getAxes(), getKeepdims(), inferred);
}
LogicalResult ReduceProdOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  return inferReduce(*this, getAxes(), getKeepdims(), inferred);
}
LogicalResult ReduceSumSquareOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  return inferReduce(*this, getAxes(), getKeepdims(), inferred);
}
LogicalResult ReduceL1Op::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  return inferReduce(*this, getAxes(), getKeepdims(), inferred);
}
LogicalResult ReduceL2Op::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  return inferReduce(*this, getAxes(), getKeepdims(), inferred);
}
LogicalResult ReduceLogSumOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  return inferReduce(*this, getAxes(), getKeepdims(), inferred);
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  SmallVector<int64_t> lhs(shapeOf(getLhs())), rhs(shapeOf(getRhs()));
  if (lhs.empty() || rhs.empty())
    return emitOpError() << "operands must have rank >= 1";
  bool lhsVector = lhs.size() == 1, rhsVector = rhs.size() == 1;
  if (lhsVector)
    lhs.insert(lhs.begin(), 1);
  if (rhsVector)
    rhs.push_back(1);
  int64_t k = lhs.back(), k2 = rhs[rhs.size() - 2];
  if (k != k2 || k == kDynamic)
    return emitOpError() << "contraction dimensions differ: " << shapeToString(shapeOf(getLhs())) << " x "
                         << shapeToString(shapeOf(getRhs()));
  auto batch = broadcastShapes(ArrayRef<int64_t>(lhs).drop_back(2), ArrayRef<int64_t>(rhs).drop_back(2));
  if (!batch)
    return emitOpError() << "batch dimensions do not broadcast: " << shapeToString(shapeOf(getLhs())) << " x "
                         << shapeToString(shapeOf(getRhs()));
  SmallVector<int64_t> shape(*batch);
  if (!lhsVector)
    shape.push_back(lhs[lhs.size() - 2]);
  if (!rhsVector)
    shape.push_back(rhs.back());
  return success(inferred, *this, shape);
}

LogicalResult GemmOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  if (failed(expectRank(*this, "A", getA(), 2)) || failed(expectRank(*this, "B", getB(), 2)))
    return failure();
  auto a = shapeOf(getA()), b = shapeOf(getB());
  int64_t m = getTransA() ? a[1] : a[0], k = getTransA() ? a[0] : a[1];
  int64_t k2 = getTransB() ? b[1] : b[0], n = getTransB() ? b[0] : b[1];
  if (k != k2 || k == kDynamic)
    return emitOpError() << "contraction dimensions differ: A " << shapeToString(a)
                         << (getTransA() ? " (transposed)" : "") << ", B " << shapeToString(b)
                         << (getTransB() ? " (transposed)" : "");
  if (getC() && !broadcastsTo(shapeOf(getC()), {m, n}))
    return emitOpError() << "C " << shapeToString(shapeOf(getC())) << " does not broadcast to "
                         << shapeToString({m, n});
  return success(inferred, *this, {m, n});
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

LogicalResult AttentionOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  auto query = shapeOf(getQuery()), key = shapeOf(getKey()), value = shapeOf(getValue());
  if (failed(checkRule(*this, rules::checkAttention(query, key, value, getCausal(), getScale().convertToDouble()))))
    return failure();
  // Codegen tiles the sequence and head dimensions: only the leading ones
  // may hold the batch. A sequence may run over a range (a named symbol,
  // CPU plans for now).
  for (int64_t dim : {query.back(), value.back()})
    if (failed(expectStatic(*this, "head dimensions", dim)))
      return failure();
  for (int64_t dim : {query[query.size() - 2], key[key.size() - 2]})
    if (dim == kDynamic && failed(expectStatic(*this, "sequence dimensions", dim)))
      return failure();
  SmallVector<int64_t> scores(ArrayRef<int64_t>(query).drop_back(1));
  scores.push_back(key[key.size() - 2]);
  if (getMask() && !broadcastsTo(shapeOf(getMask()), scores))
    return emitOpError() << "mask " << shapeToString(shapeOf(getMask())) << " does not broadcast to the scores "
                         << shapeToString(scores);
  SmallVector<int64_t> shape(ArrayRef<int64_t>(query).drop_back(1));
  shape.push_back(value.back());
  return success(inferred, *this, shape);
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult PadOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  auto input = shapeOf(getInput());
  int64_t rank = input.size();
  auto pads = getPads();
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    return emitOpError() << "'pads' must have 2 x rank = " << 2 * rank << " entries, got " << pads.size();
  StringRef mode = getMode();
  if (failed(checkRule(*this, rules::checkPadMode(mode.str()))))
    return failure();
  SmallVector<int64_t> shape(input.begin(), input.end());
  for (int64_t d = 0; d < rank; ++d) {
    int64_t begin = pads[d], end = pads[d + rank];
    if (isSymbolic(input[d]) && (begin != 0 || end != 0))
      return emitOpError() << "cannot pad " << describeSymbol(input[d]) << " (axis " << d << ")";
    if (isSymbolic(input[d]))
      continue;
    std::string error = rules::padOutputSize(input[d], begin, end, mode.str(), shape[d]);
    if (!error.empty())
      return emitOpError() << "axis " << d << ": " << error;
  }
  return success(inferred, *this, shape);
}

LogicalResult ReshapeOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  auto input = shapeOf(getInput());
  auto target = getShape();
  SmallVector<int64_t> shape;
  SmallVector<int64_t> copied;
  SmallVector<size_t> inferEntries; // the -1 entries
  int64_t inferIndex = -1, known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t dim = target[i];
    if (dim == 0) {
      if (i >= input.size())
        return emitOpError() << "'shape' entry " << i << " copies a dimension the input lacks";
      dim = input[i];
    } else if (dim == -1) {
      inferEntries.push_back(i);
      inferIndex = i;
    } else if (dim < -1) {
      return emitOpError() << "'shape' entry " << dim << " is invalid";
    }
    if (isSymbolic(dim)) {
      copied.push_back(dim);
    } else if (dim != -1) {
      std::optional<int64_t> product = checkedMul(known, dim);
      if (!product)
        return emitOpError() << "'shape' " << shapeToString(target) << " is implausibly large";
      known = *product;
    }
    shape.push_back(dim);
  }
  SmallVector<int64_t> moved; // the input's symbols no 0 entry copies
  int64_t inputKnown = 1;
  for (int64_t dim : input) {
    if (!isSymbolic(dim))
      inputKnown *= dim;
    else if (!llvm::is_contained(copied, dim))
      moved.push_back(dim);
  }
  // Several -1 entries each take one moved symbol, in order (symbols keep
  // their order, checked below): an Unsqueeze of [seq, batch, 32] is
  // {1, -1, -1, 32}.
  if (inferEntries.size() > 1) {
    if (moved.size() != inferEntries.size() || known != inputKnown)
      return emitOpError() << "'shape' may hold one -1, or one per run-time dimension it moves (" << moved.size()
                           << " here) with every static size given";
    for (size_t k = 0; k < moved.size(); ++k)
      shape[inferEntries[k]] = moved[k];
  } else if (moved.size() > 1) {
    return emitOpError() << "cannot reshape " << shapeToString(input) << " to " << shapeToString(target)
                         << ": the run-time dimensions " << symbolName(moved[0]) << " and " << symbolName(moved[1])
                         << " would both land on the -1 entry";
  } else if (!moved.empty()) {
    // The moved symbol must land, alone, on the -1 entry.
    if (inferIndex < 0 || known == 0 || inputKnown != known)
      return emitOpError() << "cannot reshape " << shapeToString(input) << " to " << shapeToString(target) << ": "
                           << describeSymbol(moved[0]) << " must map to exactly one output dimension";
    shape[inferIndex] = moved[0];
  } else {
    if (inferIndex >= 0) {
      if (known == 0 || inputKnown % known != 0)
        return emitOpError() << "cannot infer the -1 entry reshaping " << shapeToString(input) << " to "
                             << shapeToString(target);
      shape[inferIndex] = inputKnown / known;
    } else if (inputKnown != known) {
      return emitOpError() << "cannot reshape " << shapeToString(input) << " (" << inputKnown
                           << " elements per batch) to " << shapeToString(target);
    }
  }
  // Samples must stay contiguous and in order: the symbols keep their order,
  // and the static elements before, between and after them are the same
  // counts in the input and the output.
  auto segments = [](ArrayRef<int64_t> dims, SmallVectorImpl<int64_t> &symbols) {
    SmallVector<int64_t> products = {1};
    for (int64_t dim : dims) {
      if (isSymbolic(dim)) {
        symbols.push_back(dim);
        products.push_back(1);
      } else {
        products.back() *= dim;
      }
    }
    return products;
  };
  SmallVector<int64_t> inputSymbols, outputSymbols;
  SmallVector<int64_t> inputSegments = segments(input, inputSymbols);
  SmallVector<int64_t> outputSegments = segments(shape, outputSymbols);
  if (inputSymbols != outputSymbols || inputSegments != outputSegments)
    return emitOpError() << "cannot reshape " << shapeToString(input) << " to " << shapeToString(target) << ": the "
                         << (inputSymbols.size() == 1 && inputSymbols[0] == kDynamic
                                 ? std::string("batch dimension")
                                 : std::string("run-time dimensions"))
                         << " must keep the elements before " << (inputSymbols.size() == 1 ? "it" : "them")
                         << " and their order";
  return success(inferred, *this, shape);
}

LogicalResult FlattenOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  auto input = shapeOf(getInput());
  int64_t axis = getAxis();
  if (axis < 0 || axis > static_cast<int64_t>(input.size()))
    return emitOpError() << "'axis' " << axis << " is out of range [0, " << input.size() << "]";
  auto outer = collapseDims(ArrayRef<int64_t>(input).take_front(axis));
  auto inner = collapseDims(ArrayRef<int64_t>(input).drop_front(axis));
  if (!outer || !inner)
    return emitOpError() << "flattening " << shapeToString(input) << " at axis " << axis
                         << " would merge the batch dimension with other dimensions";
  return success(inferred, *this, SmallVector<int64_t>{*outer, *inner});
}

LogicalResult TransposeOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  auto input = shapeOf(getInput());
  auto perm = getPerm();
  if (perm.size() != input.size())
    return emitOpError() << "'perm' must have " << input.size() << " entries, got " << perm.size();
  SmallVector<bool> seen(input.size(), false);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(input.size()) || seen[p])
      return emitOpError() << "'perm' must be a permutation of [0, " << input.size() << ")";
    seen[p] = true;
    shape.push_back(input[p]);
  }
  return success(inferred, *this, shape);
}

LogicalResult ConcatOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  if (getInputs().empty())
    return emitOpError() << "needs at least one input";
  SmallVector<int64_t> shape(shapeOf(getInputs().front()));
  int64_t axis = getAxis();
  if (failed(expectAxis(*this, "axis", axis, shape.size())) ||
      failed(expectStatic(*this, "concatenated dimension", shape[axis])))
    return failure();
  for (Value input : getInputs().drop_front()) {
    auto other = shapeOf(input);
    if (other.size() != shape.size())
      return emitOpError() << "inputs must have equal ranks, got " << shapeToString(shape) << " and "
                           << shapeToString(other);
    for (size_t d = 0; d < other.size(); ++d) {
      if (static_cast<int64_t>(d) == axis) {
        if (failed(expectStatic(*this, "concatenated dimension", other[d])))
          return failure();
        std::optional<int64_t> sum = checkedAdd(shape[d], other[d]);
        if (!sum)
          return emitOpError() << "concatenated dimension overflows";
        shape[d] = *sum;
      } else if (other[d] != shape[d]) {
        return emitOpError() << "inputs differ on axis " << d << ": " << shapeToString(shapeOf(getInputs().front()))
                             << " and " << shapeToString(other);
      }
    }
  }
  return success(inferred, *this, shape);
}

//===----------------------------------------------------------------------===//
// Run-time data movement: Slice, Gather, Expand
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  auto input = shapeOf(getInput());
  size_t rank = input.size();
  auto starts = getStarts(), ends = getEnds(), steps = getSteps();
  if (starts.size() != rank || ends.size() != rank || steps.size() != rank)
    return emitOpError() << "'starts', 'ends' and 'steps' must have " << rank << " entries each, got " << starts.size()
                         << ", " << ends.size() << " and " << steps.size();
  SmallVector<int64_t> shape;
  const ArrayAttr symbols = getSymbolsAttr();
  for (size_t d = 0; d < rank; ++d) {
    rules::SliceAxis axis{starts[d], ends[d], steps[d]};
    if (!isSymbolic(input[d]) && steps[d] == 1 && ends[d] <= -2) {
      // A prefix of the axis as long as the run-time dimension symbols[k].
      const int64_t k = -2 - ends[d];
      auto name =
          symbols && k < static_cast<int64_t>(symbols.size()) ? llvm::dyn_cast<StringAttr>(symbols[k]) : StringAttr();
      std::optional<int64_t> symbol = name ? symbolDim(name.getValue()) : std::nullopt;
      if (!symbol || starts[d] != 0)
        return emitOpError() << "axis " << d << " ends at " << ends[d]
                             << ", which names a run-time dimension only with start 0 and a name in 'symbols'";
      shape.push_back(*symbol);
      continue;
    }
    if (isSymbolic(input[d])) {
      if (!rules::isWholeSlice(axis))
        return emitOpError() << "axis " << d << " is " << describeSymbol(input[d])
                             << ", which can only be sliced whole";
      shape.push_back(input[d]);
      continue;
    }
    int64_t extent = 0;
    if (failed(checkRule(*this, rules::sliceOutputSize(input[d], axis, extent))))
      return failure();
    shape.push_back(extent);
  }
  return success(inferred, *this, shape);
}

LogicalResult GatherOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  auto input = shapeOf(getInput()), indices = shapeOf(getIndices());
  int64_t axis = getAxis();
  // A range's dimension may be gathered from (the first token, x[:, 0]):
  // the CPU backend checks each index against the run's size.
  if (failed(expectAxis(*this, "axis", axis, input.size())) ||
      (input[axis] == kDynamic && failed(expectStatic(*this, "gathered dimension", input[axis]))))
    return failure();
  SmallVector<int64_t> shape(input.begin(), input.begin() + axis);
  shape.append(indices.begin(), indices.end());
  shape.append(input.begin() + axis + 1, input.end());
  if (llvm::count(shape, kDynamic) > 1)
    return emitOpError() << "gathering " << shapeToString(indices) << " from " << shapeToString(input)
                         << " would give a result with the batch dimension twice";
  return success(inferred, *this, shape, elementTypeOf(getInput()));
}

LogicalResult GatherElementsOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  auto input = shapeOf(getInput()), indices = shapeOf(getIndices());
  int64_t axis = getAxis();
  if (failed(expectAxis(*this, "axis", axis, input.size())) ||
      failed(expectStatic(*this, "gathered dimension", input[axis])))
    return failure();
  if (indices.size() != input.size())
    return emitOpError() << "indices " << shapeToString(indices) << " must have the rank of the input "
                         << shapeToString(input);
  for (size_t d = 0; d < input.size(); ++d) {
    if (int64_t(d) == axis)
      continue;
    bool batch = isSymbolic(input[d]), indexBatch = isSymbolic(indices[d]);
    if (batch != indexBatch || (batch && input[d] != indices[d]) || (!batch && indices[d] > input[d]))
      return emitOpError() << "indices " << shapeToString(indices) << " are longer than the input "
                           << shapeToString(input) << " along axis " << d
                           << " (or only one of them has the batch dimension there)";
  }
  if (isSymbolic(indices[axis]))
    return emitOpError() << "indices " << shapeToString(indices) << " have the batch dimension along the gathered axis";
  return success(inferred, *this, indices, elementTypeOf(getInput()));
}

LogicalResult ExpandOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  auto input = shapeOf(getInput());
  SmallVector<int64_t> target;
  const ArrayAttr symbols = getSymbolsAttr();
  for (int64_t dim : getShape()) {
    if (dim >= -1) {
      target.push_back(dim == -1 ? kDynamic : dim);
      continue;
    }
    // -2 - k: the run-time dimension symbols[k].
    const int64_t k = -2 - dim;
    auto name =
        symbols && k < static_cast<int64_t>(symbols.size()) ? llvm::dyn_cast<StringAttr>(symbols[k]) : StringAttr();
    std::optional<int64_t> symbol = name ? symbolDim(name.getValue()) : std::nullopt;
    if (!symbol)
      return emitOpError() << "'shape' entries must be >= 0, -1 for the batch size or -2 - k for the dimension "
                              "named symbols[k], got "
                           << dim << " with " << (symbols ? symbols.size() : 0) << " symbols";
    target.push_back(*symbol);
  }
  auto shape = broadcastShapes(input, target);
  if (!shape)
    return emitOpError() << "cannot expand " << shapeToString(input) << " to " << shapeToString(target);
  if (llvm::count(*shape, kDynamic) > 1)
    return emitOpError() << "expanding " << shapeToString(input) << " to " << shapeToString(target)
                         << " would give a result with the batch dimension twice";
  return success(inferred, *this, *shape);
}

//===----------------------------------------------------------------------===//
// Resize
//===----------------------------------------------------------------------===//

LogicalResult ResizeOp::inferResultTypes(SmallVectorImpl<Type> &inferred) {
  auto input = shapeOf(getInput());
  auto sizes = getSizes();
  auto scales = getScales();
  if (sizes.size() != input.size() || scales.size() != input.size())
    return emitOpError() << "'sizes' and 'scales' must have " << input.size() << " entries each, got " << sizes.size()
                         << " and " << scales.size();
  if (failed(checkRule(*this, rules::checkResizeModes(getMode().str(), getCoordinateTransformationMode().str(),
                                                      getNearestMode().str()))))
    return failure();
  SmallVector<int64_t> shape;
  for (size_t d = 0; d < input.size(); ++d) {
    if (isSymbolic(input[d])) {
      if (sizes[d] != -1 || scales[d] != 1.0f)
        return emitOpError() << "axis " << d << " is " << describeSymbol(input[d])
                             << ", which Resize keeps (size -1, scale 1)";
      shape.push_back(input[d]);
      continue;
    }
    std::string error = rules::checkResizeAxis(input[d], sizes[d], scales[d]);
    if (!error.empty())
      return emitOpError() << "axis " << d << ": " << error;
    shape.push_back(sizes[d]);
  }
  return success(inferred, *this, shape);
}

} // namespace fusec::fuse
