#!/usr/bin/env python3
"""Writes the quantized test models of test/data/quantized (see its README.md).

Each model is a small float PyTorch network exported to ONNX (the TorchScript
exporter at opset 17: one self-contained file), then quantized by ONNX
Runtime's static quantization in the QDQ format (what production
quantization tools write: QuantizeLinear/DequantizeLinear pairs around float
ops), per channel (int8 weights, a scale per output channel) with uint8
activations calibrated on random inputs; two more in ONNX Runtime's operator
format (QLinearConv, QLinearMatMul). The references are ONNX Runtime's
outputs of the QDQ model with graph optimizations disabled, so every Q and
DQ runs as written (fake quantization in float, what the fused fusec plan
must match), at batch 1 and 3 on inputs drawn apart from the calibration's.

Run from the repository root after scripts/setup.sh:
    .venv/bin/python scripts/generate-quantized-models.py --out test/data/quantized
"""
import argparse
import json
import os
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
import torch
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType, quantize_static)


class TinyConvNet(torch.nn.Module):
    """Convs with ReLU, a residual add, a strided conv, global pooling, Linear."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv1 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.down = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.head = torch.nn.Linear(16, 10)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        y = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(y) + x)
        x = torch.relu(self.down(x))
        x = torch.nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.head(x)


class TinyTransformerLayer(torch.nn.Module):
    """A pre-norm feed-forward block and a projection: LayerNorm, Linear on
    rank 3 (MatMul with per-channel weights along axis 1), GELU, residual."""

    def __init__(self, width=32, hidden=64):
        super().__init__()
        self.norm = torch.nn.LayerNorm(width)
        self.up = torch.nn.Linear(width, hidden)
        self.down = torch.nn.Linear(hidden, width)
        self.proj = torch.nn.Linear(width, width)

    def forward(self, x):
        x = x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))
        return self.proj(x)


class ConvStack(torch.nn.Module):
    """Convs with ReLU and a strided conv: what QLinearConv alone expresses
    (the operator format's Add and pooling are contrib ops)."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(torch.relu(self.stem(x))))


class Projections(torch.nn.Module):
    """Two Linear layers without bias on rank 3: QLinearMatMul alone."""

    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(32, 64, bias=False)
        self.down = torch.nn.Linear(64, 16, bias=False)

    def forward(self, x):
        return self.down(torch.relu(self.up(x)))


# name: (model, input shape without the batch, ONNX Runtime's format)
MODELS = {
    "qdq_convnet": (TinyConvNet, [3, 16, 16], QuantFormat.QDQ),
    "qdq_ffn": (TinyTransformerLayer, [8, 32], QuantFormat.QDQ),
    "qop_convs": (ConvStack, [3, 12, 12], QuantFormat.QOperator),
    "qop_matmuls": (Projections, [8, 32], QuantFormat.QOperator),
}


class RandomReader(CalibrationDataReader):
    def __init__(self, name, shape, count=16):
        rng = np.random.default_rng(1234)
        self.batches = iter([{name: rng.standard_normal([4] + shape, dtype=np.float32)} for _ in range(count)])

    def get_next(self):
        return next(self.batches, None)


def generate(name, factory, shape, quant_format, out):
    torch.manual_seed(0)
    model = factory().eval()
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        float_path = os.path.join(tmp, "float.onnx")
        torch.onnx.export(model, (torch.randn([1] + shape),), float_path, input_names=["input"],
                          output_names=["output"], dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}},
                          opset_version=17, dynamo=False)
        quantized_path = os.path.join(folder, "model.onnx")
        quantize_static(float_path, quantized_path, RandomReader("input", shape), quant_format=quant_format,
                        per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(quantized_path, options, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(99)
    batches = {}
    for batch in (1, 3):
        x = rng.standard_normal([batch] + shape, dtype=np.float32)
        (y,) = session.run(None, {"input": x})
        np.save(os.path.join(folder, f"input_b{batch}.npy"), x)
        np.save(os.path.join(folder, f"output_b{batch}.npy"), y)
        with torch.no_grad():
            reference = model(torch.from_numpy(x)).numpy()
        batches[str(batch)] = float(np.linalg.norm(y - reference) / np.linalg.norm(reference))
    graph = onnx.load(quantized_path).graph
    ops = {}
    for node in graph.node:
        ops[node.op_type] = ops.get(node.op_type, 0) + 1
    meta = {
        "name": name,
        "generator": "scripts/generate-quantized-models.py",
        "torch": torch.__version__, "onnxruntime": ort.__version__, "onnx": onnx.__version__,
        "quantization": "quantize_static, %s, per channel, weights QInt8, activations QUInt8, 16 random batches"
                        % ("QDQ" if quant_format == QuantFormat.QDQ else "QOperator"),
        "reference": "onnxruntime CPU, graph optimizations disabled",
        "ops": dict(sorted(ops.items())),
        "float_model_rel_l2": batches,
        # A conv or product summed in another order can land an activation
        # on the other side of a rounding boundary: one quantization step
        # there, a few hundredths at most at these outputs.
        "tolerance": {"rtol": 1e-2, "atol": 2e-2},
        "batches": {str(b): {"inputs": {"input": f"input_b{b}.npy"},
                             "outputs": {"output": {"file": f"output_b{b}.npy"}}} for b in (1, 3)},
    }
    with open(os.path.join(folder, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    print(name, meta["ops"], "quantized vs float rel. L2:", batches)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="test/data/quantized")
    args = parser.parse_args()
    for name, (factory, shape, quant_format) in MODELS.items():
        generate(name, factory, shape, quant_format, args.out)


if __name__ == "__main__":
    main()
