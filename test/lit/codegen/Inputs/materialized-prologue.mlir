// The sqrt is the prologue of the reduce_mean kernel and also a graph output:
// the kernel has two results, the [?,8,64] sqrt and the [?,8,1] mean.
func.func @main(%x: tensor<?x8x64xf32>) -> (tensor<?x8x64xf32>, tensor<?x8x1xf32>) {
  %q = fuse.sqrt %x : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32> loc("sqrt")
  %m = fuse.reduce_mean %q {axes = array<i64: 2>, keepdims = true} : (tensor<?x8x64xf32>) -> tensor<?x8x1xf32> loc("mean")
  return %q, %m : tensor<?x8x64xf32>, tensor<?x8x1xf32>
}
