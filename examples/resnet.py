#!/usr/bin/python3
"""Writes a ResNet (torchvision's layout) as a fusec graph: DIR/NAME.json and DIR/NAME.safetensors.

ResNet-18 (BasicBlock x [2, 2, 2, 2]) by default, or ResNet-50 (Bottleneck x [3, 4, 6, 3], stride on the 3x3
conv) with --depth 50, for [batch, 3, S, S] images (S = 224 by default) and 1000 classes: Conv, BatchNormalization
(inference form, running statistics), Relu, MaxPool, Add, GlobalAveragePool, Flatten, Gemm. The weights are drawn
from a fixed seed (He-scaled convolutions, BatchNorm statistics near 1, the last BatchNorm of each block scaled down
as in a trained network), so the files are reproducible and the activations stay near 1 through every block, which
keeps a half-precision plan's comparison with the CPU backend meaningful. test/gpu/make-plans.sh compiles
ResNet-18 in fp16 for the GPU check: about 23 MB of weights, where the f32 ResNet-50's 100 MB cannot be carried to
a GPU machine.

Usage: /usr/bin/python3 examples/resnet.py [--depth 18|50] [--image S] [--out DIR] [--name NAME]
(needs numpy: python3-numpy)
"""
import argparse
import os

import numpy as np

from fusec_graph_files import write_graph_json, write_safetensors


class Writer:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.weights = [], {}

    def node(self, name, op, inputs, attrs=None):
        self.nodes.append({"name": name, "op": op, "inputs": inputs, "outputs": [name], "attrs": attrs or {}})
        return name

    def uniform(self, name, shape, low, high):
        self.weights[name] = self.rng.uniform(low, high, shape).astype(np.float32)
        return name

    def conv_bn(self, name, x, cin, cout, kernel, stride, relu, gamma=(0.5, 1.0)):
        fan_in = cin * kernel * kernel
        self.weights[name + ".weight"] = (self.rng.standard_normal((cout, cin, kernel, kernel)) *
                                          np.sqrt(2.0 / fan_in)).astype(np.float32)
        pad = kernel // 2
        y = self.node(name, "Conv", [x, name + ".weight"],
                      {"dilations": [1, 1], "group": 1, "pads": [pad] * 4, "strides": [stride, stride]})
        bn = name + ".bn"
        y = self.node(bn, "BatchNormalization",
                      [y, self.uniform(bn + ".weight", cout, *gamma), self.uniform(bn + ".bias", cout, -0.1, 0.1),
                       self.uniform(bn + ".running_mean", cout, -0.1, 0.1),
                       self.uniform(bn + ".running_var", cout, 0.5, 1.5)],
                      {"epsilon": 1e-5})
        return self.node(name + ".relu", "Relu", [y]) if relu else y


def main():
    parser = argparse.ArgumentParser(description="Writes a ResNet as a fusec graph.")
    parser.add_argument("--depth", type=int, choices=[18, 50], default=18)
    parser.add_argument("--image", type=int, default=224, help="the input's height and width")
    parser.add_argument("--out", default=".")
    parser.add_argument("--name", default=None, help="default resnet18 / resnet50")
    args = parser.parse_args()
    name = args.name or "resnet%d" % args.depth
    w = Writer(2026)
    x = w.conv_bn("conv1", "input", 3, 64, 7, 2, True)
    x = w.node("maxpool", "MaxPool", [x], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "strides": [2, 2]})
    bottleneck = args.depth == 50
    blocks = [3, 4, 6, 3] if bottleneck else [2, 2, 2, 2]
    expansion = 4 if bottleneck else 1
    channels = 64
    last = (0.1, 0.3)  # the block's last BatchNorm: the residual branch stays small beside the identity
    for stage, (count, width) in enumerate(zip(blocks, [64, 128, 256, 512])):
        for block in range(count):
            prefix = "layer%d.%d" % (stage + 1, block)
            stride = 2 if block == 0 and stage > 0 else 1
            out = width * expansion
            if bottleneck:
                y = w.conv_bn(prefix + ".conv1", x, channels, width, 1, 1, True)
                y = w.conv_bn(prefix + ".conv2", y, width, width, 3, stride, True)
                y = w.conv_bn(prefix + ".conv3", y, width, out, 1, 1, False, last)
            else:
                y = w.conv_bn(prefix + ".conv1", x, channels, width, 3, stride, True)
                y = w.conv_bn(prefix + ".conv2", y, width, width, 3, 1, False, last)
            identity = x
            if stride != 1 or channels != out:
                identity = w.conv_bn(prefix + ".downsample", x, channels, out, 1, stride, False)
            y = w.node(prefix + ".add", "Add", [y, identity])
            x = w.node(prefix + ".relu", "Relu", [y])
            channels = out
    x = w.node("avgpool", "GlobalAveragePool", [x])
    x = w.node("flatten", "Flatten", [x], {"axis": 1})
    bound = 1.0 / np.sqrt(channels)
    x = w.node("fc", "Gemm", [x, w.uniform("fc.weight", (1000, channels), -bound, bound),
                              w.uniform("fc.bias", 1000, -bound, bound)], {"transB": 1})

    graph = {
        "format": "fusec-graph",
        "version": 1,
        "inputs": [{"name": "input", "dtype": "f32", "shape": ["batch", 3, args.image, args.image]}],
        "outputs": [x],
        "weights": name + ".safetensors",
        "nodes": w.nodes,
    }
    os.makedirs(args.out, exist_ok=True)
    write_graph_json(os.path.join(args.out, name + ".json"), graph)
    write_safetensors(os.path.join(args.out, name + ".safetensors"), w.weights)


if __name__ == "__main__":
    main()
