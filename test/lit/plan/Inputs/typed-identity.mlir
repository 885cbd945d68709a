func.func @main(%a: tensor<?x4xf16> {fuse.name = "a"}, %b: tensor<?x3xi64> {fuse.name = "b"}, %c: tensor<2xi1> {fuse.name = "c"}, %d: tensor<?x2xbf16> {fuse.name = "d"}) -> (tensor<?x4xf16> {fuse.name = "ya"}, tensor<?x3xi64> {fuse.name = "yb"}, tensor<2xi1> {fuse.name = "yc"}, tensor<?x2xbf16> {fuse.name = "yd"}) {
  return %a, %b, %c, %d : tensor<?x4xf16>, tensor<?x3xi64>, tensor<2xi1>, tensor<?x2xbf16>
}
