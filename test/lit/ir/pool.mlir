// Pooling and reductions: fuse.max_pool, fuse.average_pool,
// fuse.global_average_pool, fuse.reduce_mean and the other Reduce ops.
// RUN: fusec-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics \
// RUN:   | fusec-opt -split-input-file | FileCheck %s
// RUN: fusec-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic \
// RUN:   | fusec-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @max_pool
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x8x8xf32>, %[[Y:.*]]: tensor<1x4x7x7xf32>)
// CHECK: fuse.max_pool %[[X]] {ceil_mode = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
// CHECK: fuse.max_pool %[[Y]] {{{.*}}pads = array<i64: 1, 1, 1, 1>{{.*}}} : (tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32>
// CHECK: fuse.max_pool %[[Y]] {ceil_mode = false, dilations = array<i64: 2, 2>, {{.*}} : (tensor<1x4x7x7xf32>) -> tensor<1x4x3x3xf32>
func.func @max_pool(%x: tensor<?x4x8x8xf32>, %y: tensor<1x4x7x7xf32>) -> (tensor<?x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x3x3xf32>) {
  %0 = fuse.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  // (7 + 2 - 3) / 2 + 1 = 4
  %1 = fuse.max_pool %y {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32>
  // A dilated 3x3 window spans 5: 7 - 5 + 1 = 3
  %2 = fuse.max_pool %y {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, ceil_mode = false} : (tensor<1x4x7x7xf32>) -> tensor<1x4x3x3xf32>
  return %0, %1, %2 : tensor<?x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x3x3xf32>
}

// -----

// ceil_mode rounds the window count up: 6 with a 3-window and stride 2 gives
// floor(3 / 2) + 1 = 2 or ceil(3 / 2) + 1 = 3 ...
// CHECK-LABEL: func.func @max_pool_ceil_mode
// CHECK: fuse.max_pool {{.*}}ceil_mode = false{{.*}} -> tensor<1x1x2x2xf32>
// CHECK: fuse.max_pool {{.*}}ceil_mode = true{{.*}} -> tensor<1x1x3x3xf32>
// ... but a last window that would start in the end padding is dropped.
// CHECK: fuse.max_pool {{.*}}ceil_mode = true{{.*}} : (tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
func.func @max_pool_ceil_mode(%x: tensor<1x1x6x6xf32>, %y: tensor<1x1x3x3xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) {
  %0 = fuse.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x6x6xf32>) -> tensor<1x1x2x2xf32>
  %1 = fuse.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x1x6x6xf32>) -> tensor<1x1x3x3xf32>
  %2 = fuse.max_pool %y {kernel_shape = array<i64: 1, 1>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
  return %0, %1, %2 : tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>
}

// -----

// CHECK-LABEL: func.func @average_pool
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x8x8xf32>)
// CHECK: fuse.average_pool %[[X]] {ceil_mode = false, count_include_pad = false, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
// CHECK: fuse.average_pool %[[X]] {ceil_mode = true, count_include_pad = true, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 3, 3>} : (tensor<?x4x8x8xf32>) -> tensor<?x4x3x3xf32>
// CHECK: fuse.average_pool %[[X]] {{.*}}kernel_shape = array<i64: 8, 1>{{.*}} : (tensor<?x4x8x8xf32>) -> tensor<?x4x1x8xf32>
func.func @average_pool(%x: tensor<?x4x8x8xf32>) -> (tensor<?x4x4x4xf32>, tensor<?x4x3x3xf32>, tensor<?x4x1x8xf32>) {
  %0 = fuse.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, count_include_pad = false} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  // ceil((8 + 2 - 3) / 3) + 1 = 4 windows, but the fourth would start in the
  // end padding and is dropped: 3.
  %1 = fuse.average_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, ceil_mode = true, count_include_pad = true} : (tensor<?x4x8x8xf32>) -> tensor<?x4x3x3xf32>
  %2 = fuse.average_pool %x {kernel_shape = array<i64: 8, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, count_include_pad = false} : (tensor<?x4x8x8xf32>) -> tensor<?x4x1x8xf32>
  return %0, %1, %2 : tensor<?x4x4x4xf32>, tensor<?x4x3x3xf32>, tensor<?x4x1x8xf32>
}

// -----

// CHECK-LABEL: func.func @global_average_pool
// CHECK: fuse.global_average_pool %{{.*}} : (tensor<?x8x7x7xf32>) -> tensor<?x8x1x1xf32>
// CHECK: fuse.global_average_pool %{{.*}} : (tensor<2x4x10xf32>) -> tensor<2x4x1xf32>
// CHECK: fuse.global_average_pool %{{.*}} : (tensor<?x2x3x4x5xf32>) -> tensor<?x2x1x1x1xf32>
func.func @global_average_pool(%x: tensor<?x8x7x7xf32>, %y: tensor<2x4x10xf32>, %z: tensor<?x2x3x4x5xf32>) -> (tensor<?x8x1x1xf32>, tensor<2x4x1xf32>, tensor<?x2x1x1x1xf32>) {
  %0 = fuse.global_average_pool %x : (tensor<?x8x7x7xf32>) -> tensor<?x8x1x1xf32>
  %1 = fuse.global_average_pool %y : (tensor<2x4x10xf32>) -> tensor<2x4x1xf32>
  %2 = fuse.global_average_pool %z : (tensor<?x2x3x4x5xf32>) -> tensor<?x2x1x1x1xf32>
  return %0, %1, %2 : tensor<?x8x1x1xf32>, tensor<2x4x1xf32>, tensor<?x2x1x1x1xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_mean
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x4x5xf32>)
// CHECK: fuse.reduce_mean %[[X]] {axes = array<i64: 2, 3>, keepdims = true} : (tensor<?x3x4x5xf32>) -> tensor<?x3x1x1xf32>
// CHECK: fuse.reduce_mean %[[X]] {axes = array<i64: 2, 3>, keepdims = false} : (tensor<?x3x4x5xf32>) -> tensor<?x3xf32>
// CHECK: fuse.reduce_mean %[[X]] {axes = array<i64: 1, 3>, keepdims = false} : (tensor<?x3x4x5xf32>) -> tensor<?x4xf32>
// CHECK: fuse.reduce_mean %[[X]] {axes = array<i64: 3>, keepdims = true} : (tensor<?x3x4x5xf32>) -> tensor<?x3x4x1xf32>
func.func @reduce_mean(%x: tensor<?x3x4x5xf32>) -> (tensor<?x3x1x1xf32>, tensor<?x3xf32>, tensor<?x4xf32>, tensor<?x3x4x1xf32>) {
  %0 = fuse.reduce_mean %x {axes = array<i64: 2, 3>, keepdims = true} : (tensor<?x3x4x5xf32>) -> tensor<?x3x1x1xf32>
  %1 = fuse.reduce_mean %x {axes = array<i64: 2, 3>, keepdims = false} : (tensor<?x3x4x5xf32>) -> tensor<?x3xf32>
  %2 = fuse.reduce_mean %x {axes = array<i64: 1, 3>, keepdims = false} : (tensor<?x3x4x5xf32>) -> tensor<?x4xf32>
  %3 = fuse.reduce_mean %x {axes = array<i64: 3>, keepdims = true} : (tensor<?x3x4x5xf32>) -> tensor<?x3x4x1xf32>
  return %0, %1, %2, %3 : tensor<?x3x1x1xf32>, tensor<?x3xf32>, tensor<?x4xf32>, tensor<?x3x4x1xf32>
}

// -----

// The other Reduce ops share reduce_mean's shape rules.
// CHECK-LABEL: func.func @reduce_family
// CHECK: fuse.reduce_sum {{.*}} -> tensor<?x3x1x1xf32>
// CHECK: fuse.reduce_max {{.*}} -> tensor<?x4xf32>
// CHECK: fuse.reduce_min {{.*}} -> tensor<?x3x4x1xf32>
// CHECK: fuse.reduce_prod {{.*}} -> tensor<?x3x4x1xf32>
// CHECK: fuse.reduce_sum_square {{.*}} -> tensor<?x3x4x1xf32>
// CHECK: fuse.reduce_l1 {{.*}} -> tensor<?x3x4x1xf32>
// CHECK: fuse.reduce_l2 {{.*}} -> tensor<?x3x4x1xf32>
// CHECK: fuse.reduce_log_sum {{.*}} -> tensor<?x3x4x1xf32>
func.func @reduce_family(%x: tensor<?x3x4x5xf32>) -> (tensor<?x3x1x1xf32>, tensor<?x4xf32>, tensor<?x3x4x1xf32>, tensor<?x3x4x1xf32>, tensor<?x3x4x1xf32>, tensor<?x3x4x1xf32>, tensor<?x3x4x1xf32>, tensor<?x3x4x1xf32>) {
  %0 = fuse.reduce_sum %x {axes = array<i64: 2, 3>, keepdims = true} : (tensor<?x3x4x5xf32>) -> tensor<?x3x1x1xf32>
  %1 = fuse.reduce_max %x {axes = array<i64: 1, 3>, keepdims = false} : (tensor<?x3x4x5xf32>) -> tensor<?x4xf32>
  %2 = fuse.reduce_min %x {axes = array<i64: 3>, keepdims = true} : (tensor<?x3x4x5xf32>) -> tensor<?x3x4x1xf32>
  %3 = fuse.reduce_prod %x {axes = array<i64: 3>, keepdims = true} : (tensor<?x3x4x5xf32>) -> tensor<?x3x4x1xf32>
  %4 = fuse.reduce_sum_square %x {axes = array<i64: 3>, keepdims = true} : (tensor<?x3x4x5xf32>) -> tensor<?x3x4x1xf32>
  %5 = fuse.reduce_l1 %x {axes = array<i64: 3>, keepdims = true} : (tensor<?x3x4x5xf32>) -> tensor<?x3x4x1xf32>
  %6 = fuse.reduce_l2 %x {axes = array<i64: 3>, keepdims = true} : (tensor<?x3x4x5xf32>) -> tensor<?x3x4x1xf32>
  %7 = fuse.reduce_log_sum %x {axes = array<i64: 3>, keepdims = true} : (tensor<?x3x4x5xf32>) -> tensor<?x3x4x1xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<?x3x1x1xf32>, tensor<?x4xf32>, tensor<?x3x4x1xf32>, tensor<?x3x4x1xf32>, tensor<?x3x4x1xf32>, tensor<?x3x4x1xf32>, tensor<?x3x4x1xf32>, tensor<?x3x4x1xf32>
}

// -----

// ArgMax and ArgMin give i64 indices; the reduced axis must be static.
// CHECK-LABEL: func.func @arg_reduce
// CHECK: fuse.arg_max {{.*}} : (tensor<?x3x4xf32>) -> tensor<?x4xi64>
// CHECK: fuse.arg_min {{.*}} : (tensor<?x3x4xf32>) -> tensor<?x3x1xi64>
func.func @arg_reduce(%x: tensor<?x3x4xf32>) -> (tensor<?x4xi64>, tensor<?x3x1xi64>) {
  %0 = fuse.arg_max %x {axis = 1 : i64, keepdims = false, select_last_index = false} : (tensor<?x3x4xf32>) -> tensor<?x4xi64>
  %1 = fuse.arg_min %x {axis = 2 : i64, keepdims = true, select_last_index = true} : (tensor<?x3x4xf32>) -> tensor<?x3x1xi64>
  return %0, %1 : tensor<?x4xi64>, tensor<?x3x1xi64>
}

// -----

func.func @arg_max_batch(%x: tensor<?x3xf32>) -> tensor<3xi64> {
  // expected-error @+1 {{'fuse.arg_max' op reduced dimension must be static}}
  %0 = fuse.arg_max %x {axis = 0 : i64, keepdims = false, select_last_index = false} : (tensor<?x3xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

func.func @reduce_max_unsorted(%x: tensor<2x3xf32>) -> tensor<f32> {
  // expected-error @+1 {{'fuse.reduce_max' op 'axes' must be sorted and unique}}
  %0 = fuse.reduce_max %x {axes = array<i64: 1, 0>, keepdims = false} : (tensor<2x3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Reducing every axis without keepdims gives a rank-0 tensor.
// CHECK-LABEL: func.func @reduce_mean_all
// CHECK: fuse.reduce_mean %{{.*}} {axes = array<i64: 0, 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<f32>
func.func @reduce_mean_all(%x: tensor<2x3xf32>) -> tensor<f32> {
  %0 = fuse.reduce_mean %x {axes = array<i64: 0, 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

//===----------------------------------------------------------------------===//
// Verifier errors: max_pool
//===----------------------------------------------------------------------===//

func.func @max_pool_rank(%x: tensor<?x4x8xf32>) -> tensor<?x4x4xf32> {
  // expected-error @+1 {{'fuse.max_pool' op input must have rank 4, got [?, 4, 8]}}
  %0 = fuse.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<?x4x8xf32>) -> tensor<?x4x4xf32>
  return %0 : tensor<?x4x4xf32>
}

// -----

func.func @max_pool_kernel_length(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32> {
  // expected-error @+1 {{'fuse.max_pool' op 'kernel_shape' must have 2 entries, got 3}}
  %0 = fuse.max_pool %x {kernel_shape = array<i64: 2, 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  return %0 : tensor<?x4x4x4xf32>
}

// -----

func.func @max_pool_kernel_zero(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32> {
  // expected-error @+1 {{'fuse.max_pool' op 'kernel_shape' entries must be >= 1, got 0}}
  %0 = fuse.max_pool %x {kernel_shape = array<i64: 0, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  return %0 : tensor<?x4x4x4xf32>
}

// -----

func.func @max_pool_stride_zero(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32> {
  // expected-error @+1 {{'fuse.max_pool' op 'strides' entries must be >= 1, got 0}}
  %0 = fuse.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  return %0 : tensor<?x4x4x4xf32>
}

// -----

func.func @max_pool_stride_negative(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32> {
  // expected-error @+1 {{'fuse.max_pool' op 'strides' entries must be >= 1, got -1}}
  %0 = fuse.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, -1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  return %0 : tensor<?x4x4x4xf32>
}

// -----

func.func @max_pool_pads_length(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32> {
  // expected-error @+1 {{'fuse.max_pool' op 'pads' must have 4 entries, got 8}}
  %0 = fuse.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  return %0 : tensor<?x4x4x4xf32>
}

// -----

func.func @max_pool_pads_negative(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32> {
  // expected-error @+1 {{'fuse.max_pool' op 'pads' entries must be >= 0, got -1}}
  %0 = fuse.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: -1, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  return %0 : tensor<?x4x4x4xf32>
}

// -----

func.func @max_pool_dilation_zero(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32> {
  // expected-error @+1 {{'fuse.max_pool' op 'dilations' entries must be >= 1, got 0}}
  %0 = fuse.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 0>, ceil_mode = false} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  return %0 : tensor<?x4x4x4xf32>
}

// -----

func.func @max_pool_window_too_large(%x: tensor<?x4x8x2xf32>) -> tensor<?x4x6x1xf32> {
  // expected-error @+1 {{'fuse.max_pool' op spatial dimension 1: window of size 3 (dilation 1, 3 wide) does not fit the input extent 2 with pads 0+0}}
  %0 = fuse.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<?x4x8x2xf32>) -> tensor<?x4x6x1xf32>
  return %0 : tensor<?x4x6x1xf32>
}

// -----

func.func @max_pool_dynamic_spatial(%x: tensor<1x4x?x8xf32>) -> tensor<1x4x?x4xf32> {
  // expected-error @+1 {{'fuse.max_pool' op spatial input dimension must be static, not the batch dimension}}
  %0 = fuse.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x4x?x8xf32>) -> tensor<1x4x?x4xf32>
  return %0 : tensor<1x4x?x4xf32>
}

// -----

func.func @max_pool_result(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32> {
  // expected-error @+1 {{'fuse.max_pool' op result type 'tensor<?x4x8x8xf32>' does not match the inferred type 'tensor<?x4x4x4xf32>'}}
  %0 = fuse.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

// ceil_mode changes the inferred size; a type computed with floor is rejected.
func.func @max_pool_ceil_result(%x: tensor<1x1x6x6xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{'fuse.max_pool' op result type 'tensor<1x1x2x2xf32>' does not match the inferred type 'tensor<1x1x3x3xf32>'}}
  %0 = fuse.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x1x6x6xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Verifier errors: average_pool
//===----------------------------------------------------------------------===//

func.func @average_pool_rank(%x: tensor<4x8x8xf32>) -> tensor<4x4x4xf32> {
  // expected-error @+1 {{'fuse.average_pool' op input must have rank 4, got [4, 8, 8]}}
  %0 = fuse.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, count_include_pad = false} : (tensor<4x8x8xf32>) -> tensor<4x4x4xf32>
  return %0 : tensor<4x4x4xf32>
}

// -----

func.func @average_pool_kernel_negative(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32> {
  // expected-error @+1 {{'fuse.average_pool' op 'kernel_shape' entries must be >= 1, got -2}}
  %0 = fuse.average_pool %x {kernel_shape = array<i64: 2, -2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, count_include_pad = false} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  return %0 : tensor<?x4x4x4xf32>
}

// -----

func.func @average_pool_kernel_length(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32> {
  // expected-error @+1 {{'fuse.average_pool' op 'kernel_shape' must have 2 entries, got 1}}
  %0 = fuse.average_pool %x {kernel_shape = array<i64: 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, count_include_pad = false} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  return %0 : tensor<?x4x4x4xf32>
}

// -----

func.func @average_pool_strides_length(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32> {
  // expected-error @+1 {{'fuse.average_pool' op 'strides' must have 2 entries, got 0}}
  %0 = fuse.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, count_include_pad = false} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  return %0 : tensor<?x4x4x4xf32>
}

// -----

func.func @average_pool_stride_zero(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32> {
  // expected-error @+1 {{'fuse.average_pool' op 'strides' entries must be >= 1, got 0}}
  %0 = fuse.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 0, 2>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, count_include_pad = false} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  return %0 : tensor<?x4x4x4xf32>
}

// -----

func.func @average_pool_pads_length(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32> {
  // expected-error @+1 {{'fuse.average_pool' op 'pads' must have 4 entries, got 2}}
  %0 = fuse.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0>, ceil_mode = false, count_include_pad = false} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  return %0 : tensor<?x4x4x4xf32>
}

// -----

func.func @average_pool_pads_negative(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32> {
  // expected-error @+1 {{'fuse.average_pool' op 'pads' entries must be >= 0, got -3}}
  %0 = fuse.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, -3>, ceil_mode = false, count_include_pad = false} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  return %0 : tensor<?x4x4x4xf32>
}

// -----

func.func @average_pool_window_too_large(%x: tensor<?x4x2x8xf32>) -> tensor<?x4x1x6xf32> {
  // expected-error @+1 {{'fuse.average_pool' op spatial dimension 0: window of size 4 (dilation 1, 4 wide) does not fit the input extent 2 with pads 1+0}}
  %0 = fuse.average_pool %x {kernel_shape = array<i64: 4, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 0, 0, 0>, ceil_mode = false, count_include_pad = false} : (tensor<?x4x2x8xf32>) -> tensor<?x4x1x6xf32>
  return %0 : tensor<?x4x1x6xf32>
}

// -----

func.func @average_pool_result(%x: tensor<?x4x8x8xf32>) -> tensor<2x4x4x4xf32> {
  // expected-error @+1 {{'fuse.average_pool' op result type 'tensor<2x4x4x4xf32>' does not match the inferred type 'tensor<?x4x4x4xf32>'}}
  %0 = fuse.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, count_include_pad = false} : (tensor<?x4x8x8xf32>) -> tensor<2x4x4x4xf32>
  return %0 : tensor<2x4x4x4xf32>
}

// -----

func.func @average_pool_missing_attribute(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32> {
  // expected-error @+1 {{'fuse.average_pool' op requires attribute 'count_include_pad'}}
  %0 = fuse.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false} : (tensor<?x4x8x8xf32>) -> tensor<?x4x4x4xf32>
  return %0 : tensor<?x4x4x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Verifier errors: global_average_pool
//===----------------------------------------------------------------------===//

func.func @global_average_pool_rank(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'fuse.global_average_pool' op input must have rank >= 3, got [?, 8]}}
  %0 = fuse.global_average_pool %x : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @global_average_pool_dynamic_spatial(%x: tensor<1x8x?x7xf32>) -> tensor<1x8x1x1xf32> {
  // expected-error @+1 {{'fuse.global_average_pool' op spatial input dimension must be static, not the batch dimension}}
  %0 = fuse.global_average_pool %x : (tensor<1x8x?x7xf32>) -> tensor<1x8x1x1xf32>
  return %0 : tensor<1x8x1x1xf32>
}

// -----

func.func @global_average_pool_result(%x: tensor<?x8x7x7xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'fuse.global_average_pool' op result type 'tensor<?x8xf32>' does not match the inferred type 'tensor<?x8x1x1xf32>'}}
  %0 = fuse.global_average_pool %x : (tensor<?x8x7x7xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Verifier errors: reduce_mean
//===----------------------------------------------------------------------===//

func.func @reduce_mean_no_axes(%x: tensor<?x3x4xf32>) -> tensor<?x3x4xf32> {
  // expected-error @+1 {{'fuse.reduce_mean' op 'axes' must not be empty}}
  %0 = fuse.reduce_mean %x {axes = array<i64>, keepdims = true} : (tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  return %0 : tensor<?x3x4xf32>
}

// -----

func.func @reduce_mean_axis_too_large(%x: tensor<?x3x4xf32>) -> tensor<?x3x4xf32> {
  // expected-error @+1 {{'fuse.reduce_mean' op 'axes' 3 is out of range for rank 3}}
  %0 = fuse.reduce_mean %x {axes = array<i64: 3>, keepdims = true} : (tensor<?x3x4xf32>) -> tensor<?x3x4xf32>
  return %0 : tensor<?x3x4xf32>
}

// -----

// Axes are normalised by the importers; the op takes non-negative ones only.
func.func @reduce_mean_negative_axis(%x: tensor<?x3x4xf32>) -> tensor<?x3x1xf32> {
  // expected-error @+1 {{'fuse.reduce_mean' op 'axes' -1 is out of range for rank 3}}
  %0 = fuse.reduce_mean %x {axes = array<i64: -1>, keepdims = true} : (tensor<?x3x4xf32>) -> tensor<?x3x1xf32>
  return %0 : tensor<?x3x1xf32>
}

// -----

func.func @reduce_mean_unsorted(%x: tensor<?x3x4xf32>) -> tensor<?x1x1xf32> {
  // expected-error @+1 {{'fuse.reduce_mean' op 'axes' must be sorted and unique}}
  %0 = fuse.reduce_mean %x {axes = array<i64: 2, 1>, keepdims = true} : (tensor<?x3x4xf32>) -> tensor<?x1x1xf32>
  return %0 : tensor<?x1x1xf32>
}

// -----

func.func @reduce_mean_repeated(%x: tensor<?x3x4xf32>) -> tensor<?x1x4xf32> {
  // expected-error @+1 {{'fuse.reduce_mean' op 'axes' must be sorted and unique}}
  %0 = fuse.reduce_mean %x {axes = array<i64: 1, 1>, keepdims = true} : (tensor<?x3x4xf32>) -> tensor<?x1x4xf32>
  return %0 : tensor<?x1x4xf32>
}

// -----

func.func @reduce_mean_keepdims_result(%x: tensor<?x3x4xf32>) -> tensor<?x3x1xf32> {
  // expected-error @+1 {{'fuse.reduce_mean' op result type 'tensor<?x3x1xf32>' does not match the inferred type 'tensor<?x3xf32>'}}
  %0 = fuse.reduce_mean %x {axes = array<i64: 2>, keepdims = false} : (tensor<?x3x4xf32>) -> tensor<?x3x1xf32>
  return %0 : tensor<?x3x1xf32>
}
