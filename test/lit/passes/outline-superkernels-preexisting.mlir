// Functions that already contain superkernels (fused IR read back, with ops
// added): the existing superkernels are kernels already, not ops to plan.
// They keep their names and bodies, take no `fuse.group`, and the new ops
// around them are planned and outlined on their own.
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(fuse-fusion-pipeline)' | FileCheck %s
// RUN: fusec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuse-form-fusion-groups))' \
// RUN:   | FileCheck %s --check-prefix=PLAN

// The relu before and the tanh after an existing kernel cannot be one kernel:
// it would both feed and consume "old". (Merging them with the existing
// superkernel's group made outlining fail with "outlining created a cycle
// between superkernels".)
// PLAN-LABEL: func.func @around_existing_kernel
// PLAN: fuse.superkernel "old"
// PLAN-NOT: fuse.group
// PLAN-SAME: {{\{$}}
// PLAN: fuse.tanh
// CHECK-LABEL: func.func @around_existing_kernel
// CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>)
// CHECK: %[[A:.*]] = fuse.superkernel "sk0_relu__a" kind "elementwise"(%[[X]])
// CHECK: fuse.relu
// CHECK: %[[OLD:.*]] = fuse.superkernel "old" kind "elementwise"(%[[A]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: fuse.sigmoid
// CHECK-NEXT: fuse.yield
// CHECK: %[[B:.*]] = fuse.superkernel "sk{{[0-9]+}}_tanh__b" kind "elementwise"(%[[OLD]])
// CHECK: fuse.tanh
// CHECK: return %[[B]]
func.func @around_existing_kernel(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %a = fuse.relu %x : (tensor<?x64xf32>) -> tensor<?x64xf32> loc("a")
  %s = fuse.superkernel "old" kind "elementwise"(%a) : (tensor<?x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%i: tensor<?x64xf32>):
    %r = fuse.sigmoid %i : (tensor<?x64xf32>) -> tensor<?x64xf32>
    fuse.yield %r : tensor<?x64xf32>
  }
  %b = fuse.tanh %s : (tensor<?x64xf32>) -> tensor<?x64xf32> loc("b")
  return %b : tensor<?x64xf32>
}

// -----

// New ops after an existing kernel form their own group, with its cost: the
// existing kernel gets neither `fuse.group` nor `fuse.kernel_cost`.
// PLAN-LABEL: func.func @after_existing_kernel
// PLAN: fuse.superkernel "sk0_relu__x"
// PLAN-NOT: fuse.kernel_cost
// PLAN-SAME: {{\{$}}
// PLAN: fuse.sigmoid {{.*}}{fuse.group = 0 : i64, fuse.kernel_cost = {{.*}}unfused_kernels = 3 : i64
// PLAN: fuse.tanh {{.*}}{fuse.fused_by = "elementwise-fusion", fuse.group = 0 : i64}
// PLAN: fuse.relu {{.*}}{fuse.fused_by = "elementwise-fusion", fuse.group = 0 : i64}
// CHECK-LABEL: func.func @after_existing_kernel
// CHECK: %[[OLD:.*]] = fuse.superkernel "sk0_relu__x" kind "elementwise"(%{{.*}}) : (tensor<?x64xf32>) -> tensor<?x64xf32> {
// CHECK: fuse.superkernel "{{.*}}sigmoid_tanh_relu__y" kind "elementwise"(%[[OLD]]) attributes {cost = {{.*}}unfused_kernels = 3 : i64
func.func @after_existing_kernel(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = fuse.superkernel "sk0_relu__x" kind "elementwise"(%x) : (tensor<?x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%a: tensor<?x64xf32>):
    %r = fuse.relu %a : (tensor<?x64xf32>) -> tensor<?x64xf32>
    fuse.yield %r : tensor<?x64xf32>
  }
  %1 = fuse.sigmoid %0 : (tensor<?x64xf32>) -> tensor<?x64xf32> loc("y")
  %2 = fuse.tanh %1 : (tensor<?x64xf32>) -> tensor<?x64xf32> loc("z")
  %3 = fuse.relu %2 : (tensor<?x64xf32>) -> tensor<?x64xf32> loc("w")
  return %3 : tensor<?x64xf32>
}

// -----

// Kernel names stay unique: a new relu named "x" must not be called
// "sk0_relu__x" like the existing kernel (the plan writer looks kernel images
// up by name, so two kernels of one name would share one image).
// CHECK-LABEL: func.func @names_stay_unique
// CHECK: fuse.superkernel "sk0_relu__x" kind "elementwise"(%{{.*}}) : (tensor<?x64xf32>)
// CHECK-NOT: "sk0_relu__x"
// CHECK: fuse.superkernel "{{.*}}relu__x" kind "elementwise"(%{{.*}}) {{.*}}: (tensor<?x32xf32>)
// CHECK: return
func.func @names_stay_unique(%x: tensor<?x64xf32>, %y: tensor<?x32xf32>) -> (tensor<?x64xf32>, tensor<?x32xf32>) {
  %0 = fuse.superkernel "sk0_relu__x" kind "elementwise"(%x) : (tensor<?x64xf32>) -> tensor<?x64xf32> {
  ^bb0(%a: tensor<?x64xf32>):
    %r = fuse.relu %a : (tensor<?x64xf32>) -> tensor<?x64xf32>
    fuse.yield %r : tensor<?x64xf32>
  }
  %1 = fuse.relu %y : (tensor<?x32xf32>) -> tensor<?x32xf32> loc("x")
  return %0, %1 : tensor<?x64xf32>, tensor<?x32xf32>
}
