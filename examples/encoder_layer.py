#!/usr/bin/python3
"""Writes encoder_layer.json and encoder_layer.safetensors next to this file.

A post-norm transformer encoder layer as torch exports nn.TransformerEncoderLayer
(batch first, GELU in its erf form x * 0.5 * (1 + erf(x / sqrt 2))), with one fused
QKV projection split at run time: by default E = 32, 4 heads of 8, a feed-forward of 64, S = 128.
Weights are drawn from a fixed seed, so the files are reproducible.

Usage: /usr/bin/python3 examples/encoder_layer.py (needs numpy: python3-numpy)
       [--embed E] [--heads H] [--ffn F] [--seq S] [--out DIR] [--name NAME]
Other sizes make other layers (test/gpu/make-plans.sh writes one with heads of 64, whose f16/bf16 plans run
attention on the tensor cores), written as DIR/NAME.json and DIR/NAME.safetensors. A name for S (--seq seq)
leaves the sequence length to fusec: --dim seq=128, or seq=128,256 for a plan of shape variants.
"""
import argparse
import os

import numpy as np

from fusec_graph_files import write_graph_json, write_safetensors


def main():
    parser = argparse.ArgumentParser(description="Writes a transformer encoder layer as a fusec graph.")
    parser.add_argument("--embed", type=int, default=32)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--ffn", type=int, default=64)
    parser.add_argument("--seq", default="128", help="the sequence length, or a name for it")
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--name", default="encoder_layer")
    args = parser.parse_args()
    if args.heads <= 0 or args.embed % args.heads:
        parser.error("--embed must be a multiple of --heads")
    EMBED, HEADS, HEAD_DIM, FFN = args.embed, args.heads, args.embed // args.heads, args.ffn
    SEQ = int(args.seq) if args.seq.isdigit() else args.seq
    rng = np.random.default_rng(2026)

    def weight(*shape, scale=0.2):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    weights = {
        "w_qkv": weight(EMBED, 3 * EMBED), "b_qkv": weight(3 * EMBED),
        "w_o": weight(EMBED, EMBED), "b_o": weight(EMBED),
        "w_1": weight(EMBED, FFN), "b_1": weight(FFN),
        "w_2": weight(FFN, EMBED), "b_2": weight(EMBED),
        "ln1_scale": 1 + weight(EMBED), "ln1_bias": weight(EMBED),
        "ln2_scale": 1 + weight(EMBED), "ln2_bias": weight(EMBED),
    }

    def scalar(value):
        return {"dtype": "f32", "shape": [], "data": [value]}

    nodes = []

    def add(name, op, inputs, attrs=None, outputs=None):
        nodes.append({"name": name, "op": op, "inputs": inputs, "outputs": outputs or [name], "attrs": attrs or {}})

    heads = [0, 0, HEADS, HEAD_DIM]
    add("qkv_mm", "MatMul", ["x", "w_qkv"])
    add("qkv", "Add", ["qkv_mm", "b_qkv"])
    add("split", "Split", ["qkv"], {"axis": 2, "split": [EMBED] * 3}, outputs=["q", "k", "v"])
    for p in "qkv":
        add(p + "_split", "Reshape", [p], {"shape": heads})
    add("q_heads", "Transpose", ["q_split"], {"perm": [0, 2, 1, 3]})
    add("k_heads_t", "Transpose", ["k_split"], {"perm": [0, 2, 3, 1]})
    add("v_heads", "Transpose", ["v_split"], {"perm": [0, 2, 1, 3]})
    add("scores", "MatMul", ["q_heads", "k_heads_t"])
    add("scaled", "Div", ["scores", "root_d"])
    add("probs", "Softmax", ["scaled"], {"axis": 3})
    add("context", "MatMul", ["probs", "v_heads"])
    add("context_t", "Transpose", ["context"], {"perm": [0, 2, 1, 3]})
    add("merged", "Reshape", ["context_t"], {"shape": [0, 0, EMBED]})
    add("out_mm", "MatMul", ["merged", "w_o"])
    add("out_proj", "Add", ["out_mm", "b_o"])
    add("residual1", "Add", ["x", "out_proj"])
    add("ln1", "LayerNormalization", ["residual1", "ln1_scale", "ln1_bias"], {"axis": -1})
    add("ffn1_mm", "MatMul", ["ln1", "w_1"])
    add("ffn1", "Add", ["ffn1_mm", "b_1"])
    add("gelu_div", "Div", ["ffn1", "root_2"])
    add("gelu_erf", "Erf", ["gelu_div"])
    add("gelu_add", "Add", ["gelu_erf", "one"])
    add("gelu_mul", "Mul", ["ffn1", "gelu_add"])
    add("gelu", "Mul", ["gelu_mul", "half"])
    add("ffn2_mm", "MatMul", ["gelu", "w_2"])
    add("ffn2", "Add", ["ffn2_mm", "b_2"])
    add("residual2", "Add", ["ln1", "ffn2"])
    add("y", "LayerNormalization", ["residual2", "ln2_scale", "ln2_bias"], {"axis": -1})

    graph = {
        "format": "fusec-graph",
        "version": 1,
        "inputs": [{"name": "x", "dtype": "f32", "shape": ["batch", SEQ, EMBED]}],
        "outputs": ["y"],
        "weights": args.name + ".safetensors",
        "constants": {"root_d": scalar(float(np.sqrt(HEAD_DIM))), "root_2": scalar(float(np.sqrt(2.0))),
                      "half": scalar(0.5), "one": scalar(1.0)},
        "nodes": nodes,
    }
    os.makedirs(args.out, exist_ok=True)
    write_graph_json(os.path.join(args.out, args.name + ".json"), graph)
    write_safetensors(os.path.join(args.out, args.name + ".safetensors"), weights)


if __name__ == "__main__":
    main()
