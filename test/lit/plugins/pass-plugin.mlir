// The same library is an MLIR pass plugin for fusec-opt.
// RUN: fusec-opt --load-pass-plugin=%plugin %s --pass-pipeline='builtin.module(func.func(fuse-example-fold-relu-clip))' | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-NOT: fuse.relu
// CHECK: fuse.clip %arg0 {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32}
func.func @main(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %r = fuse.relu %x : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %c = fuse.clip %r {max = 6.0 : f32} : (tensor<?x16xf32>) -> tensor<?x16xf32>
  return %c : tensor<?x16xf32>
}
