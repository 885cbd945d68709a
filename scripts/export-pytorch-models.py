#!/usr/bin/env python3
"""Exports small models with PyTorch's default ONNX exporter, with PyTorch's outputs, for fusec's tests.

`torch.onnx.export(..., dynamo=True)` is the exporter PyTorch users get since 2.9: the default opset (20 in torch
2.9 to 2.15), the weights in an external data file beside the model (`model.onnx.data`), `Reshape` with
`allowzero = 1`, `Gelu` as one op. Each model is written to OUT/NAME/ in the layout of test/data/models (README
there): model.onnx, model.onnx.data, input_b{2,3}.npy, output_b{2,3}.npy and meta.json (versions, tolerance, what the
model checks). Weights are drawn from a fixed seed, BatchNorm statistics included. fusec's tests read the files; they
need no Python package. Run it in .venv, the environment `scripts/setup.sh` makes:

    .venv/bin/python scripts/export-pytorch-models.py --out test/data/pytorch

`--ranges-out DIR` writes the models whose sequence length is dynamic too (`fusec --dim seq=1:16`), each with
PyTorch's outputs at several (batch, seq) pairs, the range's bounds among them (meta.json `runs`, `range`):

    .venv/bin/python scripts/export-pytorch-models.py --ranges-out test/data/pytorch_ranges

`--bench-out DIR` writes the full-size models of docs/fusion.md's fusion-quality table (DenseNet-121, ConvNeXt-T,
MobileNetV3-Small, EfficientNet-B0, a U-Net), models only, for `fusec-bench-fusion --model=NAME=DIR/NAME/model.onnx`:

    .venv/bin/python scripts/export-pytorch-models.py --bench-out /tmp/bench-models
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

BATCHES = (1, 2, 3)


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


def encoder(norm_first, batch_first):
    """nn.TransformerEncoder, 2 layers of width 32 with 4 heads: MultiheadAttention reshapes [seq, batch, 32] to
    [seq, batch*4, 8], the dimension that merges the batch with the heads."""
    layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0, norm_first=norm_first,
                                       batch_first=batch_first)
    return nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)


class PaddedAttention(nn.Module):
    """nn.MultiheadAttention (batch first) with a key padding mask given as a float input added to the scores."""

    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(32, 4, batch_first=True)

    def forward(self, x, mask):
        return self.attention(x, x, x, key_padding_mask=mask, need_weights=False)[0]


class GptBlock(nn.Module):
    """A GPT-2 block as nanoGPT writes it: pre-norm, one qkv Linear split in three, view(B, T, heads, d) and
    transpose, causal scaled_dot_product_attention, tanh GELU MLP."""

    def __init__(self, width=32, heads=4):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.fc, self.out = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        y = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).contiguous().view(b, t, c))
        return x + self.out(nn.functional.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class BertClassifier(nn.Module):
    """Token embedding, a batch-first nn.TransformerEncoder with a boolean padding mask, the first token's head."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(100, 32)
        layer = nn.TransformerEncoderLayer(32, 4, 64, 0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(32, 2)

    def forward(self, ids, padding):
        return self.head(self.encoder(self.embedding(ids), src_key_padding_mask=padding)[:, 0])


class Decoder(nn.Module):
    """nn.TransformerDecoder (batch first): causal self-attention and cross-attention to a memory of 7 steps."""

    def __init__(self):
        super().__init__()
        self.decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(32, 4, 64, 0.0, batch_first=True), 2)
        self.register_buffer("causal", nn.Transformer.generate_square_subsequent_mask(10))

    def forward(self, x, memory):
        return self.decoder(x, memory, tgt_mask=self.causal, tgt_is_causal=True)


class Model:
    """A model to export: its inputs (name -> (shape without the batch, kind)), the batch's axis, the exporter.
    Kinds: "float" (normal samples), "mask" (a float key padding mask, -inf on padded keys), "ids" (int64 token ids
    below 100), "padding" (a boolean key padding mask, True on padded keys)."""

    def __init__(self, module, inputs, description, batch_axis=0, dynamo=True, opset=None, seq_axes=None):
        self.module, self.description = module, description
        self.inputs = {name: spec if isinstance(spec[-1], str) else (spec, "float") for name, spec in inputs.items()}
        self.batch_axis, self.dynamo, self.opset = batch_axis, dynamo, opset
        # For a dynamic sequence length: each input's sequence axis (in the shape with the batch).
        self.seq_axes = seq_axes or {}

    def example(self, batch, generator, seq=None):
        tensors = []
        for name, (shape, kind) in self.inputs.items():
            full = list(shape)
            full.insert(self.batch_axis, batch)
            if seq is not None and name in self.seq_axes:
                full[self.seq_axes[name]] = seq
            if kind in ("mask", "padding"):
                # Keys past a random length per sample are padding; the first is always kept so no row is all
                # padding.
                lengths = torch.randint(1, full[1] + 1, (batch,), generator=generator)
                kept = torch.arange(full[1])[None, :] < lengths[:, None]
                tensors.append(torch.where(kept, 0.0, -float("inf")) if kind == "mask" else ~kept)
            elif kind == "ids":
                tensors.append(torch.randint(0, 100, full, generator=generator))
            else:
                tensors.append(torch.randn(*full, generator=generator))
        return tuple(tensors)


def convnext_tiny():
    """torchvision's ConvNeXt at widths 16 and 32 (blocks of 2 and 1): the stem's 4x4 conv and LayerNorm2d, each
    block's depthwise 7x7 conv, permute, LayerNorm, Linear, GELU, Linear, layer scale, permute back and residual add,
    a downsampling LayerNorm2d and 2x2 conv, the classifier's LayerNorm2d. The layer scales (1e-6 when built) and the
    LayerNorms' parameters are drawn, so every block changes its input."""
    from torchvision.models.convnext import CNBlockConfig
    model = torchvision.models.ConvNeXt([CNBlockConfig(16, 32, 2), CNBlockConfig(32, None, 1)], num_classes=10)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if name.endswith("layer_scale"):
                parameter.copy_(torch.rand(parameter.shape) + 0.5)
        for module in model.modules():
            if isinstance(module, nn.LayerNorm):
                module.weight.copy_(torch.rand(module.weight.shape) + 0.5)
                module.bias.copy_(torch.randn(module.bias.shape) * 0.1)
    return model


def models():
    mobilenet = torchvision.models.mobilenet_v2(weights=None, width_mult=0.25, num_classes=10)
    vit = torchvision.models.VisionTransformer(image_size=16, patch_size=4, num_layers=2, num_heads=4, hidden_dim=32,
                                               mlp_dim=64, num_classes=10)
    encoder_text = "nn.TransformerEncoder ({} norm, {}): [seq, batch*heads, head_dim] reshapes, batched MatMul, Softmax"
    return {
        "tiny_resnet": Model(TinyResNet(), {"input": (3, 32, 32)}, "torchvision BasicBlocks: Conv+BN+ReLU, residual "
                             "adds, a strided 1x1 shortcut, MaxPool, adaptive pool, flatten, Linear"),
        "mobilenet_v2": Model(mobilenet, {"input": (3, 32, 32)}, "torchvision MobileNetV2 at width 0.25: depthwise "
                              "convolutions, ReLU6 (Clip), inverted residuals"),
        "gelu_mlp": Model(GeluMlp(), {"input": (8, 32)}, "Gelu-20 (none and tanh), Linear on rank 3, view (Reshape "
                          "allowzero=1)"),
        "encoder_post": Model(encoder(False, False), {"input": (10, 32)},
                              encoder_text.format("post", "sequence first, dynamo"), batch_axis=1),
        "encoder_pre": Model(encoder(True, True), {"input": (10, 32)},
                             encoder_text.format("pre", "batch first, dynamo")),
        "encoder_post_ts14": Model(encoder(False, False), {"input": (10, 32)},
                                   encoder_text.format("post", "sequence first, TorchScript exporter, opset 14"),
                                   batch_axis=1, dynamo=False, opset=14),
        "encoder_pre_ts17": Model(encoder(True, False), {"input": (10, 32)},
                                  encoder_text.format("pre", "sequence first, TorchScript exporter, opset 17"),
                                  batch_axis=1, dynamo=False, opset=17),
        "mha_padding_mask": Model(PaddedAttention(), {"input": (10, 32), "mask": ((10,), "mask")},
                                  "nn.MultiheadAttention with a key padding mask (a float input, -inf on padded keys)"),
        "gpt_block": Model(GptBlock(), {"input": (10, 32)}, "a GPT-2 block (nanoGPT's): qkv split, view(B, T, heads, "
                           "d), causal scaled_dot_product_attention, tanh GELU"),
        "bert_classifier": Model(BertClassifier(), {"ids": ((10,), "ids"), "padding": ((10,), "padding")},
                                 "token ids (int64) through an Embedding, nn.TransformerEncoder with a boolean key "
                                 "padding mask, the first token's Linear head"),
        "decoder": Model(Decoder(), {"input": (10, 32), "memory": (7, 32)}, "nn.TransformerDecoder: causal "
                         "self-attention and cross-attention to a 7-step memory"),
        "vit_tiny": Model(vit, {"input": (3, 16, 16)}, "torchvision VisionTransformer (16x16 images, patches of 4, "
                          "2 layers of width 32): patch Conv, the class token expanded over the batch, position "
                          "embedding, encoder layers, the class token's head"),
        # Built last: the modules above keep the initial weights they had
        # before it was added.
        "densenet_tiny": Model(torchvision.models.DenseNet(growth_rate=8, block_config=(2, 3), num_init_features=16,
                                                           bn_size=2, num_classes=10), {"input": (3, 32, 32)}, "torchvision DenseNet (growth 8, blocks of 2 and 3 "
                               "layers): each layer's Concat of every earlier feature map, pre-activation "
                               "BatchNorm-ReLU, a transition's average pool"),
        # TorchScript exporter: the dynamo exporter writes the classifier's
        # LayerNorm2d on the pooled [batch, C, 1, 1] as an as_strided, a
        # Gather of indices from Range(0, batch), which fusec refuses.
        "convnext_tiny": Model(convnext_tiny(), {"input": (3, 32, 32)}, "torchvision ConvNeXt (widths 16 and 32): "
                               "depthwise 7x7 convs, LayerNorms over the channels between permutes, layer scales "
                               "(TorchScript exporter, opset 17)", dynamo=False, opset=17),
    }


# Models added after the first set: their seeds follow the first set's, which keep theirs (a regeneration writes the
# first set's files unchanged).
LATER_MODELS = ("convnext_tiny",)


class UNet(nn.Module):
    """A U-Net of three levels (widths 32, 64, 128): two Conv-BN-ReLU per level, max pooling down, transposed
    convolutions up, each decoder level concatenating the encoder's features of its size (the skips)."""

    def __init__(self, width=32):
        super().__init__()

        def block(cin, cout):
            return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                                 nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())

        self.enc1, self.enc2, self.enc3 = block(3, width), block(width, 2 * width), block(2 * width, 4 * width)
        self.up2 = nn.ConvTranspose2d(4 * width, 2 * width, 2, stride=2)
        self.dec2 = block(4 * width, 2 * width)
        self.up1 = nn.ConvTranspose2d(2 * width, width, 2, stride=2)
        self.dec1 = block(2 * width, width)
        self.head = nn.Conv2d(width, 2, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(nn.functional.max_pool2d(e1, 2))
        e3 = self.enc3(nn.functional.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(e3), e2], 1))
        return self.head(self.dec1(torch.cat([self.up1(d2), e1], 1)))


def bench_models():
    """Full-size models for the fusion-quality table of docs/fusion.md (`fusec-bench-fusion --model=NAME=PATH`): the
    models only, random weights, no references (each above 2 MB). DenseNet-121 from the dynamo exporter; the others
    from the TorchScript exporter at opset 17, whose exports fusec imports where the dynamo exporter's do not
    (ConvNeXt's classifier LayerNorm2d on [batch, C, 1, 1] is an as_strided over Range(0, batch) there)."""
    image = {"input": (3, 224, 224)}
    return {
        "densenet121": Model(torchvision.models.densenet121(weights=None), image, "torchvision DenseNet-121"),
        "convnext_t": Model(torchvision.models.convnext_tiny(weights=None), image, "torchvision ConvNeXt-T",
                            dynamo=False, opset=17),
        "mobilenet_v3_small": Model(torchvision.models.mobilenet_v3_small(weights=None), image,
                                    "torchvision MobileNetV3-Small", dynamo=False, opset=17),
        "efficientnet_b0": Model(torchvision.models.efficientnet_b0(weights=None), image, "torchvision EfficientNet-B0",
                                 dynamo=False, opset=17),
        "unet": Model(UNet(), {"input": (3, 128, 128)}, "a three-level U-Net", dynamo=False, opset=17),
    }


def export_bench(name, spec, out, seed):
    directory, model, _, meta, opset = start_export(name, spec, out, seed, lambda _: {spec.batch_axis: "batch"},
                                                    {spec.batch_axis: "batch"})
    write_meta(directory, meta)
    print(f"{name}: opset {opset}, {sum(meta['op_counts'].values())} nodes")


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


def export_onnx(model, example, path, spec, axes_by_input, output_axes):
    """Exports with the exporter `spec` names; axes_by_input[name] maps each dynamic axis to its name."""
    names = list(spec.inputs)
    if spec.dynamo:
        dims = {}
        for axes in axes_by_input.values():
            for axis_name in axes.values():
                dims.setdefault(axis_name, torch.export.Dim(axis_name, min=1, max=64 if axis_name == "batch" else 512))
        shapes = tuple({axis: dims[axis_name] for axis, axis_name in axes_by_input[n].items()} for n in names)
        torch.onnx.export(model, example, path, dynamo=True, external_data=True, dynamic_shapes=shapes,
                          input_names=names, output_names=["output"])
    else:
        axes = dict(axes_by_input, output=output_axes)
        torch.onnx.export(model, example, path, dynamo=False, opset_version=spec.opset, input_names=names,
                          output_names=["output"], dynamic_axes=axes)


def base_meta(name, spec, path, seed):
    """meta.json's fields every export has: name, description, exporter, op counts, tolerance."""
    onnx_model = onnx.load(path, load_external_data=False)
    opset = next(entry.version for entry in onnx_model.opset_import if entry.domain in ("", "ai.onnx"))
    meta = {"name": name, "description": spec.description,
            "exporter": {"torch": torch.__version__, "onnx": onnx.__version__, "dynamo": spec.dynamo, "opset": opset,
                         "external_data": os.path.exists(path + ".data"), "seed": seed},
            "op_counts": {}, "tolerance": {"rtol": 1e-3, "atol": 1e-4}}
    for node in onnx_model.graph.node:
        meta["op_counts"][node.op_type] = meta["op_counts"].get(node.op_type, 0) + 1
    return meta, opset


def save_run(model, inputs, names, directory, suffix):
    """Writes `inputs` and the model's output as <input>_<suffix>.npy and output_<suffix>.npy; meta.json's record."""
    with torch.no_grad():
        y = model(*inputs)
    files = {}
    for input_name, tensor in zip(names, inputs):
        files[input_name] = f"{input_name}_{suffix}.npy"
        np.save(os.path.join(directory, files[input_name]), tensor.numpy())
    np.save(os.path.join(directory, f"output_{suffix}.npy"), y.numpy())
    return {"inputs": files, "outputs": {"output": {"file": f"output_{suffix}.npy", "shape": list(y.shape)}}}


def start_export(name, spec, out, seed, axes_of, output_axes, seq=None):
    """Exports `spec` (randomized with `seed`) as out/name/model.onnx, `axes_of(input)` naming each input's dynamic
    axes; returns the folder, the module, the generator its runs draw inputs from, and meta.json's common fields."""
    directory = os.path.join(out, name)
    os.makedirs(directory)
    torch.manual_seed(seed)
    model = randomize(spec.module, seed)
    generator = torch.Generator().manual_seed(seed)
    example = spec.example(2, generator, seq=seq)
    path = os.path.join(directory, "model.onnx")
    export_onnx(model, example, path, spec, {n: axes_of(n) for n in spec.inputs}, output_axes)
    meta, opset = base_meta(name, spec, path, seed)
    return directory, model, generator, meta, opset


def write_meta(directory, meta):
    with open(os.path.join(directory, "meta.json"), "w") as file:
        json.dump(meta, file, indent=2)
        file.write("\n")


def export(name, spec, out, seed):
    batch = {spec.batch_axis: "batch"}
    directory, model, generator, meta, opset = start_export(name, spec, out, seed, lambda _: batch, batch)
    meta["batches"] = {}
    for b in BATCHES:
        meta["batches"][str(b)] = save_run(model, spec.example(b, generator), list(spec.inputs), directory, f"b{b}")
    write_meta(directory, meta)
    print(f"{name}: opset {opset}, {sum(meta['op_counts'].values())} nodes")


SEQ_RANGE = (1, 16)
# (batch, seq) pairs with references: both ends of the range, and sizes between.
RANGE_RUNS = ((1, 1), (3, 7), (2, 16), (1, 11))


def ranged_models():
    """Models exported with a dynamic batch and a dynamic sequence length."""
    encoder_text = "nn.TransformerEncoder ({} norm, {}), batch and sequence length dynamic"
    return {
        "encoder_post": Model(encoder(False, False), {"input": (10, 32)},
                              encoder_text.format("post", "sequence first, dynamo"), batch_axis=1,
                              seq_axes={"input": 0}),
        "encoder_pre": Model(encoder(True, True), {"input": (10, 32)}, encoder_text.format("pre", "batch first, dynamo"),
                             seq_axes={"input": 1}),
        "bert_classifier": Model(BertClassifier(), {"ids": ((10,), "ids"), "padding": ((10,), "padding")},
                                 "token ids through an Embedding, nn.TransformerEncoder with a boolean key padding "
                                 "mask, the first token's head; batch and sequence length dynamic",
                                 seq_axes={"ids": 1, "padding": 1}),
        "gpt_block": Model(GptBlock(), {"input": (10, 32)}, "a GPT-2 block (nanoGPT's), causal attention; batch and "
                           "sequence length dynamic", seq_axes={"input": 1}),
        "mha_padding_mask": Model(PaddedAttention(), {"input": (10, 32), "mask": ((10,), "mask")},
                                  "nn.MultiheadAttention with a key padding mask, batch and sequence length dynamic",
                                  seq_axes={"input": 1, "mask": 1}),
    }


def export_ranged(name, spec, out, seed):
    first = next(iter(spec.inputs))
    directory, model, generator, meta, opset = start_export(
        name, spec, out, seed, lambda n: {spec.batch_axis: "batch", spec.seq_axes[n]: "seq"},
        {spec.batch_axis: "batch", spec.seq_axes[first]: "seq"}, seq=10)
    meta["range"] = {"seq": list(SEQ_RANGE)}
    meta["runs"] = []
    for b, s in RANGE_RUNS:
        run = save_run(model, spec.example(b, generator, seq=s), list(spec.inputs), directory, f"b{b}_s{s}")
        meta["runs"].append(dict({"batch": b, "dims": {"seq": s}}, **run))
    write_meta(directory, meta)
    print(f"{name}: opset {opset}, {sum(meta['op_counts'].values())} nodes, seq {SEQ_RANGE[0]}:{SEQ_RANGE[1]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="the models with a dynamic batch (test/data/pytorch)")
    parser.add_argument("--ranges-out", help="the models with a dynamic sequence length too (test/data/pytorch_ranges)")
    parser.add_argument("--bench-out", help="full-size models for the fusion-quality table (not test data)")
    args = parser.parse_args()
    if not args.out and not args.ranges_out and not args.bench_out:
        parser.error("give --out, --ranges-out, --bench-out or several")
    for out, table, write in ((args.out, models, export), (args.ranges_out, ranged_models, export_ranged),
                              (args.bench_out, bench_models, export_bench)):
        if not out:
            continue
        # The models are rewritten; the folder's README.md stays.
        os.makedirs(out, exist_ok=True)
        for entry in os.listdir(out):
            if os.path.isdir(os.path.join(out, entry)):
                shutil.rmtree(os.path.join(out, entry))
        # The modules' initial weights come from torch's global generator:
        # seeded, a regeneration writes the same files.
        torch.manual_seed(0)
        specs = table()
        names = sorted(name for name in specs if name not in LATER_MODELS)
        names += [name for name in LATER_MODELS if name in specs]
        for seed, name in enumerate(names):
            write(name, specs[name], out, seed)


if __name__ == "__main__":
    main()
