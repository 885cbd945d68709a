// A Gemm with transA, which the tensor-core template does not take, for
// test/lit/codegen/gemm.test.
func.func @main(%a: tensor<19x?xf32>, %b: tensor<21x19xf32>) -> tensor<?x21xf32> {
  %g = fuse.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, transA = true, transB = true} : (tensor<19x?xf32>, tensor<21x19xf32>) -> tensor<?x21xf32> loc("/gemm")
  return %g : tensor<?x21xf32>
}
