// Small kernels of every template but conv/gemm, one branch each, for
// test/lit/codegen/*.test.
func.func @main(%x: tensor<?x8x64xf32>, %img: tensor<?x3x8x8xf32>)
    -> (tensor<?x8x64xf32>, tensor<?x8x64xf32>, tensor<?x8x64xf32>, tensor<?x8x1xf32>,
        tensor<?x3x10x10xf32>, tensor<?x3x10x12xf32>, tensor<?x3x4x4xf32>, tensor<?x3x4x4xf32>) {
  %bias = fuse.constant dense<0.25> : tensor<64xf32>
  %gamma = fuse.constant dense<2.0> : tensor<64xf32>
  %beta = fuse.constant dense<-1.0> : tensor<64xf32>
  // Elementwise: a broadcast bias add and an activation.
  %a = fuse.add %x, %bias : (tensor<?x8x64xf32>, tensor<64xf32>) -> tensor<?x8x64xf32> loc("/block/bias_add")
  %t = fuse.sigmoid %a : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32> loc("/block/act")
  // Softmax with a fused epilogue (a scale by a constant).
  %s0 = fuse.softmax %x {axis = 2 : i64} : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32> loc("/attn/softmax")
  %s = fuse.mul %s0, %gamma : (tensor<?x8x64xf32>, tensor<64xf32>) -> tensor<?x8x64xf32> loc("/attn/scale")
  // LayerNormalization over the last axis.
  %n = fuse.layer_norm %x, %gamma, %beta {axis = 2 : i64, epsilon = 1.0e-5 : f32} : (tensor<?x8x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x8x64xf32> loc("/ln")
  // ReduceMean of a sqrt prologue.
  %q = fuse.sqrt %x : (tensor<?x8x64xf32>) -> tensor<?x8x64xf32> loc("/rm/sqrt")
  %m = fuse.reduce_mean %q {axes = array<i64: 2>, keepdims = true} : (tensor<?x8x64xf32>) -> tensor<?x8x1xf32> loc("/rm/mean")
  // Pads: reflect, and constant with a non-zero value.
  %pr = fuse.pad %img {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = "reflect"} : (tensor<?x3x8x8xf32>) -> tensor<?x3x10x10xf32> loc("/reflect_pad")
  %pc = fuse.pad %img {pads = array<i64: 0, 0, 1, 2, 0, 0, 1, 2>, value = -2.5 : f32} : (tensor<?x3x8x8xf32>) -> tensor<?x3x10x12xf32> loc("/const_pad")
  // Pooling.
  %mp = fuse.max_pool %img {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32> loc("/maxpool")
  %ap = fuse.average_pool %img {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, count_include_pad = false} : (tensor<?x3x8x8xf32>) -> tensor<?x3x4x4xf32> loc("/avgpool")
  return %t, %s, %n, %m, %pr, %pc, %mp, %ap : tensor<?x8x64xf32>, tensor<?x8x64xf32>, tensor<?x8x64xf32>, tensor<?x8x1xf32>, tensor<?x3x10x10xf32>, tensor<?x3x10x12xf32>, tensor<?x3x4x4xf32>, tensor<?x3x4x4xf32>
}
