func.func @main(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = fuse.relu %x : (tensor<?x3xf32>) -> 
}
