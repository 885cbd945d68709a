// A reduction storing into a slice of a concatenation in place: a generated
// reduction stores its results contiguously (test/lit/codegen/slice-views.test).
func.func @main(%x: tensor<?x8xf32>) -> tensor<?x1xf32> {
  %s = fuse.superkernel "sk0_sum" kind "reduction" (%x) attributes {fuse.slice_views = [array<i64: 1, 0, 2>]} : (tensor<?x8xf32>) -> tensor<?x1xf32> {
  ^bb0(%b: tensor<?x8xf32>):
    %t = fuse.reduce_sum %b {axes = array<i64: 1>, keepdims = true} : (tensor<?x8xf32>) -> tensor<?x1xf32>
    fuse.yield %t : tensor<?x1xf32>
  }
  %e = fuse.superkernel "sk1_exp" kind "elementwise" (%s) : (tensor<?x1xf32>) -> tensor<?x1xf32> {
  ^bb0(%a: tensor<?x1xf32>):
    %r = fuse.exp %a : (tensor<?x1xf32>) -> tensor<?x1xf32>
    fuse.yield %r : tensor<?x1xf32>
  }
  return %e : tensor<?x1xf32>
}
