// A reduction reading a slice of a concatenation in place: a generated
// reduction reads its operands as contiguous tensors (test/lit/codegen/slice-views.test).
func.func @main(%x: tensor<?x8xf32>) -> tensor<?x1xf32> {
  %v = fuse.superkernel "sk0_relu" kind "elementwise" (%x) attributes {fuse.slice_views = [array<i64: 1, 0, 16>]} : (tensor<?x8xf32>) -> tensor<?x8xf32> {
  ^bb0(%a: tensor<?x8xf32>):
    %r = fuse.relu %a : (tensor<?x8xf32>) -> tensor<?x8xf32>
    fuse.yield %r : tensor<?x8xf32>
  }
  %s = fuse.superkernel "sk1_sum" kind "reduction" (%v) : (tensor<?x8xf32>) -> tensor<?x1xf32> {
  ^bb0(%b: tensor<?x8xf32>):
    %t = fuse.reduce_sum %b {axes = array<i64: 1>, keepdims = true} : (tensor<?x8xf32>) -> tensor<?x1xf32>
    fuse.yield %t : tensor<?x1xf32>
  }
  return %s : tensor<?x1xf32>
}
