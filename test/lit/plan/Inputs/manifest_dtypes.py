"""Prints a plan's format version and the dtypes of its tensors, buffers and
kernel values, one line per kind: "<kind>: <dtype>=<count> ..." (a missing
dtype counts as "none")."""
import collections
import json
import struct
import sys

data = open(sys.argv[1], "rb").read()
major, minor = struct.unpack_from("<II", data, 8)
size = struct.unpack_from("<Q", data, 24)[0]
manifest = json.loads(data[64:64 + size])
print("header %d.%d, manifest %s" % (major, minor, manifest["format_version"]))
kinds = {
    "inputs": manifest["inputs"],
    "outputs": manifest["outputs"],
    "buffers": manifest["buffers"],
    "values": [v for k in manifest["kernels"] for v in k["values"]],
}
for kind, entries in kinds.items():
    counts = collections.Counter(e.get("dtype", "none") for e in entries)
    print(kind + ": " + " ".join("%s=%d" % item for item in sorted(counts.items())))
