#!/usr/bin/env python3
"""Exports small models with PyTorch's default ONNX exporter, with PyTorch's outputs, for fusec's tests.

`torch.onnx.export(..., dynamo=True)` is the exporter PyTorch users get since 2.9: the default opset (20 in torch
2.9 to 2.15), the weights in an external data file beside the model (`model.onnx.data`), `Reshape` with
`allowzero = 1`, `Gelu` as one op. Each model is written to OUT/NAME/ in the layout of test/data/models (README
there): model.onnx, model.onnx.data, input_b{2,3}.npy, output_b{2,3}.npy and meta.json (versions, tolerance, what the
model checks). Weights are drawn from a fixed seed, BatchNorm statistics included. fusec's tests read the files; they
need no Python package. Run it in the environment `scripts/setup.sh --python-tools` makes:

    .venv/bin/python scripts/export-pytorch-models.py --out test/data/pytorch
"""
import argparse
import json
import os
import shutil

import numpy as np
import onnx
import torch
import torchvision
from torch import nn

BATCHES = (2, 3)


class TinyResNet(nn.Module):
    """torchvision's BasicBlock at widths 8 and 16: stem, a block, a strided block with a 1x1 shortcut, pool, fc."""

    def __init__(self):
        super().__init__()
        from torchvision.models.resnet import BasicBlock
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
                                  nn.MaxPool2d(3, stride=2, padding=1))
        down = nn.Sequential(nn.Conv2d(8, 16, 1, stride=2, bias=False), nn.BatchNorm2d(16))
        self.blocks = nn.Sequential(BasicBlock(8, 8), BasicBlock(8, 16, stride=2, downsample=down))
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


class GeluMlp(nn.Module):
    """Linear -> GELU (exact and tanh) -> Linear on [batch, 8, 32], reshaped with view: Gelu-20 and allowzero."""

    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(32, 64), nn.Linear(64, 32)

    def forward(self, x):
        b = x.shape[0]
        h = nn.functional.gelu(self.fc1(x)) + nn.functional.gelu(self.fc1(x), approximate="tanh")
        return self.fc2(h).view(b, 8 * 32)


def models():
    mobilenet = torchvision.models.mobilenet_v2(weights=None, width_mult=0.25, num_classes=10)
    return {
        "tiny_resnet": (TinyResNet(), (3, 32, 32), "torchvision BasicBlocks: Conv+BN+ReLU, residual adds, a strided "
                                                   "1x1 shortcut, MaxPool, adaptive pool, flatten, Linear"),
        "mobilenet_v2": (mobilenet, (3, 32, 32), "torchvision MobileNetV2 at width 0.25: depthwise convolutions, "
                                                 "ReLU6 (Clip), inverted residuals"),
        "gelu_mlp": (GeluMlp(), (8, 32), "Gelu-20 (none and tanh), Linear on rank 3, view (Reshape allowzero=1)"),
    }


def randomize(model, seed):
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.BatchNorm2d):
                n = module.num_features
                module.weight.copy_(torch.rand(n, generator=generator) + 0.5)
                module.bias.copy_(torch.randn(n, generator=generator) * 0.1)
                module.running_mean.copy_(torch.randn(n, generator=generator) * 0.1)
                module.running_var.copy_(torch.rand(n, generator=generator) + 0.5)
    return model.eval()


def export(name, model, shape, description, out, seed):
    directory = os.path.join(out, name)
    os.makedirs(directory)
    torch.manual_seed(seed)
    model = randomize(model, seed)
    batch = torch.export.Dim("batch", min=1, max=64)
    example = torch.randn(2, *shape)
    path = os.path.join(directory, "model.onnx")
    program = torch.onnx.export(model, (example,), path, dynamo=True, external_data=True,
                                dynamic_shapes=({0: batch},), input_names=["input"], output_names=["output"])
    onnx_model = onnx.load(path, load_external_data=False)
    opset = next(entry.version for entry in onnx_model.opset_import if entry.domain in ("", "ai.onnx"))
    meta = {"name": name, "description": description,
            "exporter": {"torch": torch.__version__, "onnx": onnx.__version__, "dynamo": True, "opset": opset,
                         "external_data": os.path.exists(path + ".data"), "seed": seed},
            "op_counts": {}, "tolerance": {"rtol": 1e-3, "atol": 1e-4}, "batches": {}}
    for node in onnx_model.graph.node:
        meta["op_counts"][node.op_type] = meta["op_counts"].get(node.op_type, 0) + 1
    for b in BATCHES:
        x = torch.randn(b, *shape)
        with torch.no_grad():
            y = model(x)
        np.save(os.path.join(directory, f"input_b{b}.npy"), x.numpy())
        np.save(os.path.join(directory, f"output_b{b}.npy"), y.numpy())
        meta["batches"][str(b)] = {"inputs": {"input": f"input_b{b}.npy"},
                                   "outputs": {"output": {"file": f"output_b{b}.npy", "shape": list(y.shape)}}}
    with open(os.path.join(directory, "meta.json"), "w") as file:
        json.dump(meta, file, indent=2)
        file.write("\n")
    del program
    print(f"{name}: opset {opset}, {sum(meta['op_counts'].values())} nodes")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if os.path.isdir(args.out):
        shutil.rmtree(args.out)
    os.makedirs(args.out)
    for seed, (name, (model, shape, description)) in enumerate(sorted(models().items())):
        export(name, model, shape, description, args.out, seed)


if __name__ == "__main__":
    main()
