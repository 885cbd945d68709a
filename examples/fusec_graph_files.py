"""Writes a fusec graph (docs/json-format.md) and its safetensors weights, for the example model scripts."""
import json
import struct

import numpy as np


def write_safetensors(path, tensors):
    """Writes `tensors` (name -> array) as float32 safetensors."""
    header, offset = {}, 0
    for name, array in tensors.items():
        size = array.size * 4
        header[name] = {"dtype": "F32", "shape": list(array.shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        for array in tensors.values():
            out.write(np.ascontiguousarray(array, dtype="<f4").tobytes())


def write_graph_json(path, graph):
    """Writes `graph` with one node per line, so the file reads and diffs well."""
    with open(path, "w") as out:
        out.write("{\n")
        fields = list(graph.items())
        for index, (key, value) in enumerate(fields):
            sep = "," if index + 1 < len(fields) else ""
            if key == "nodes":
                out.write('  "nodes": [\n')
                out.write(",\n".join("    " + json.dumps(n, separators=(",", ":")) for n in value))
                out.write("\n  ]" + sep + "\n")
            else:
                out.write("  " + json.dumps(key) + ": " + json.dumps(value, separators=(",", ":")) + sep + "\n")
        out.write("}\n")
