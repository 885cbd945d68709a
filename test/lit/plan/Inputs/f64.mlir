func.func @main(%x: tensor<?x4xf64> {fuse.name = "x"}) -> (tensor<?x4xf64> {fuse.name = "y"}) {
  return %x : tensor<?x4xf64>
}
