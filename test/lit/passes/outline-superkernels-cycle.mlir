// fuse-outline-superkernels on a grouping that needs a kernel on both sides
// of another (C reads D, which reads A, and A and C are one group): the
// re-sort finds the cycle and the pass fails.
// RUN: fusec-opt %s -verify-diagnostics -pass-pipeline='builtin.module(func.func(fuse-outline-superkernels))' -o /dev/null

// expected-error @+1 {{outlining created a cycle between superkernels}}
func.func @cycle(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %a = fuse.relu %x {fuse.group = 0 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %d = fuse.sigmoid %a : (tensor<?x64xf32>) -> tensor<?x64xf32>
  %c = fuse.tanh %d {fuse.group = 0 : i64} : (tensor<?x64xf32>) -> tensor<?x64xf32>
  return %c : tensor<?x64xf32>
}
