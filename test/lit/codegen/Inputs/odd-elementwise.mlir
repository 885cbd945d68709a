func.func @main(%x: tensor<?x3x5xf32> {fuse.name = "x"}, %b: tensor<5xf32> {fuse.name = "b"}) -> (tensor<?x3x5xf32> {fuse.name = "y"}) {
  %a = fuse.add %x, %b : (tensor<?x3x5xf32>, tensor<5xf32>) -> tensor<?x3x5xf32> loc("odd_add")
  %s = fuse.sigmoid %a : (tensor<?x3x5xf32>) -> tensor<?x3x5xf32> loc("odd_sigmoid")
  return %s : tensor<?x3x5xf32>
}
