func.func @main(%q: tensor<?x4x100x128xbf16> {fuse.name = "q"}, %k: tensor<?x4x130x128xbf16> {fuse.name = "k"},
                %v: tensor<?x4x130x128xbf16> {fuse.name = "v"}, %a: tensor<?x4x100x64xf16> {fuse.name = "a"},
                %b: tensor<?x4x100x64xf16> {fuse.name = "b"}, %c: tensor<?x4x100x24xf16> {fuse.name = "c"})
    -> (tensor<?x4x100x128xbf16> {fuse.name = "wide"}, tensor<?x4x100x64xf16> {fuse.name = "narrow"},
        tensor<?x4x100x24xf16> {fuse.name = "odd"}) {
  %wide = fuse.attention %q, %k, %v {scale = 0.088 : f32, causal = true} : (tensor<?x4x100x128xbf16>, tensor<?x4x130x128xbf16>, tensor<?x4x130x128xbf16>) -> tensor<?x4x100x128xbf16>
  %narrow = fuse.attention %a, %b, %b {scale = 0.125 : f32, causal = false} : (tensor<?x4x100x64xf16>, tensor<?x4x100x64xf16>, tensor<?x4x100x64xf16>) -> tensor<?x4x100x64xf16>
  %odd = fuse.attention %c, %c, %c {scale = 0.2 : f32, causal = false} : (tensor<?x4x100x24xf16>, tensor<?x4x100x24xf16>, tensor<?x4x100x24xf16>) -> tensor<?x4x100x24xf16>
  return %wide, %narrow, %odd : tensor<?x4x100x128xbf16>, tensor<?x4x100x64xf16>, tensor<?x4x100x24xf16>
}
