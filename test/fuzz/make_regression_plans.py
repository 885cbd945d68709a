#!/usr/bin/env python3
"""Writes the plan fuzzer's seed and regression inputs into OUTDIR.

Each plan is a valid container (header, checksummed manifest and sections)
around a manifest that is either sound (seeds) or one of the hostile cases
of issue 13 that the runtime once mishandled (regressions): window
arithmetic that overflows, a 2^31 pad, overlapping live arena buffers, a
format_version that disagrees with the header, non-zero reserved header
bytes and out-of-range flags. With the checksums right, mutations reach the
verifier and the CPU backend instead of stopping at the checksum check.

Usage: make_regression_plans.py OUTDIR
"""
import copy
import json
import os
import struct
import sys

HEADER_SIZE = 64
ALIGN = 64


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def encode(manifest, sections=(), reserved=b"\0" * 16, major=2, minor=0):
    """The plan file for `manifest` and (name, bytes) `sections`."""
    offsets = [0] * len(sections)
    while True:
        manifest = dict(manifest)
        manifest["sections"] = [
            {"name": name, "offset": off, "size": len(data), "checksum": "%016x" % fnv1a64(data)}
            for (name, data), off in zip(sections, offsets)]
        text = json.dumps(manifest, sort_keys=True).encode()
        nxt, settled = HEADER_SIZE + len(text), []
        for _, data in sections:
            nxt = (nxt + ALIGN - 1) // ALIGN * ALIGN
            settled.append(nxt)
            nxt += len(data)
        if settled == offsets:
            break
        offsets = settled
    size = offsets[-1] + len(sections[-1][1]) if sections else HEADER_SIZE + len(text)
    out = bytearray(size)
    out[0:8] = b"FUSEPLAN"
    out[8:48] = struct.pack("<IIQQQQ", major, minor, HEADER_SIZE, len(text), fnv1a64(text), size)
    out[48:64] = reserved
    out[HEADER_SIZE:HEADER_SIZE + len(text)] = text
    for (_, data), off in zip(sections, offsets):
        out[off:off + len(data)] = data
    return bytes(out)


def small_plan():
    """The runtime unit tests' three-kernel plan (test/unit/runtime/TestSupport.cpp)."""
    manifest = {
        "format_version": "2.0", "compiler_version": "fusec test", "target": "cpu",
        "source_hash": "0123456789abcdef", "batch_buckets": [1, 2, 4],
        "inputs": [{"name": "x", "dtype": "f32", "shape": [-1, 2], "buffer": 0}],
        "outputs": [{"name": "y", "dtype": "f32", "shape": [-1, 3], "buffer": 5}],
        "buffers": [
            {"id": 0, "name": "x", "kind": "input", "dtype": "f32", "shape": [-1, 2]},
            {"id": 1, "name": "W", "kind": "weight", "dtype": "f32", "shape": [3, 2], "offset": 0},
            {"id": 2, "name": "b", "kind": "weight", "dtype": "f32", "shape": [3], "offset": 24},
            {"id": 3, "name": "t0", "kind": "arena", "dtype": "f32", "shape": [-1, 3], "offset": {"per_batch": 64, "fixed": 0}},
            {"id": 4, "name": "c", "kind": "weight", "dtype": "f32", "shape": [3], "offset": 48},
            {"id": 5, "name": "y", "kind": "output", "dtype": "f32", "shape": [-1, 3]},
            {"id": 6, "name": "t1", "kind": "arena", "dtype": "f32", "shape": [-1, 3], "offset": {"per_batch": 0, "fixed": 0}}],
        "arena": {"per_batch": 128, "fixed": 0, "lower_bound": {"per_batch": 24, "fixed": 0}},
        "kernels": [
            {"name": "k0_gemm", "kind": "gemm", "inputs": [0, 1, 2], "outputs": [3],
             "values": [{"dtype": "f32", "shape": [-1, 2]}, {"dtype": "f32", "shape": [3, 2]}, {"dtype": "f32", "shape": [3]}, {"dtype": "f32", "shape": [-1, 3]}],
             "ops": [{"op": "Gemm", "name": "fc", "operands": [0, 1, 2], "results": [3],
                      "attrs": {"alpha": 1.0, "beta": 1.0, "transA": 0, "transB": 1}}],
             "yields": [3]},
            {"name": "k1_relu", "kind": "elementwise", "inputs": [3], "outputs": [6],
             "values": [{"dtype": "f32", "shape": [-1, 3]}, {"dtype": "f32", "shape": [-1, 3]}],
             "ops": [{"op": "Relu", "name": "relu", "operands": [0], "results": [1]}], "yields": [1]},
            {"name": "k2_add_add", "kind": "elementwise", "inputs": [6, 4, 3], "outputs": [5],
             "values": [{"dtype": "f32", "shape": [-1, 3]}, {"dtype": "f32", "shape": [3]}, {"dtype": "f32", "shape": [-1, 3]}, {"dtype": "f32", "shape": [-1, 3]},
                        {"dtype": "f32", "shape": [-1, 3]}],
             "ops": [{"op": "Add", "name": "add_c", "operands": [0, 1], "results": [3], "attrs": {}},
                     {"op": "Add", "name": "add_skip", "operands": [3, 2], "results": [4], "attrs": {}}],
             "yields": [4]}]}
    weights = struct.pack("<15f", *[0.5, -1, 2, 0.25, 1, 1, 0.1, 0.2, 0.3, 0, 0, 0, 1, -1, 0.5])
    return manifest, [("weights", weights)]


def window_plan(op, attrs, result, operand=(-1, 1, 4, 4)):
    """One kernel running `op` on x into y (test::windowPlanBytes)."""
    x, y = list(operand), list(result)
    return {
        "format_version": "2.0", "compiler_version": "fusec test", "target": "cpu",
        "source_hash": "0123456789abcdef", "batch_buckets": [1],
        "inputs": [{"name": "x", "dtype": "f32", "shape": x, "buffer": 0}],
        "outputs": [{"name": "y", "dtype": "f32", "shape": y, "buffer": 1}],
        "buffers": [{"id": 0, "name": "x", "kind": "input", "dtype": "f32", "shape": x},
                    {"id": 1, "name": "y", "kind": "output", "dtype": "f32", "shape": y}],
        "arena": {"per_batch": 0, "fixed": 0, "lower_bound": {"per_batch": 0, "fixed": 0}},
        "kernels": [{"name": "k0", "kind": "pool", "inputs": [0], "outputs": [1],
                     "values": [{"dtype": "f32", "shape": x}, {"dtype": "f32", "shape": y}],
                     "ops": [{"op": op, "name": "op1", "operands": [0], "results": [1], "attrs": attrs}],
                     "yields": [1]}]}


def ranged_plan(t1_offset):
    """y = relu(x) + relu(relu(x)) over x: [batch, seq, 4], seq in 1:16 (a
    range, format 7.1: code -2), through t0 (arena offset 0) and t1 (at
    t1_offset bytes per sample); test/unit/runtime/PlanRangesTest.cpp."""
    shape = [-1, -2, 4]
    value = {"dtype": "f32", "shape": shape}

    def arena(i, name, offset):
        return {"id": i, "name": name, "kind": "arena", "dtype": "f32", "shape": shape,
                "offset": {"per_batch": offset, "fixed": 0}}

    def relu(name, source, target):
        return {"name": name, "kind": "elementwise", "inputs": [source], "outputs": [target], "values": [value, value],
                "ops": [{"op": "Relu", "name": name, "operands": [0], "results": [1]}], "yields": [1]}

    return {
        "format_version": "7.1", "compiler_version": "fusec test", "target": "cpu",
        "source_hash": "0123456789abcdef", "batch_buckets": [1, 2],
        "ranges": [{"name": "seq", "min": 1, "opt": 8, "max": 16}],
        "inputs": [{"name": "x", "dtype": "f32", "shape": shape, "buffer": 0}],
        "outputs": [{"name": "y", "dtype": "f32", "shape": shape, "buffer": 3}],
        "buffers": [{"id": 0, "name": "x", "kind": "input", "dtype": "f32", "shape": shape},
                    arena(1, "t0", 0), arena(2, "t1", t1_offset),
                    {"id": 3, "name": "y", "kind": "output", "dtype": "f32", "shape": shape}],
        "arena": {"per_batch": 2 * 16 * 4 * 4, "fixed": 0, "lower_bound": {"per_batch": 0, "fixed": 0}},
        "kernels": [relu("k0_relu", 0, 1), relu("k1_relu", 1, 2),
                    {"name": "k2_add", "kind": "elementwise", "inputs": [1, 2], "outputs": [3],
                     "values": [value, value, value],
                     "ops": [{"op": "Add", "name": "add", "operands": [0, 1], "results": [2], "attrs": {}}],
                     "yields": [2]}]}


def gpu_ranged_plan(range_code):
    """ranged_plan's kernels for a GPU (format 7.3): each launch's grid grows
    with the range (`ranges`) and its first argument holds the length
    (`range_arguments`), both naming `range_code`; one 8-byte image stands
    for the kernels' code (the plan fuzzer runs the CPU backend)."""
    plan = ranged_plan(16 * 4 * 4)
    plan.update(format_version="7.3", target="sm_90")
    one = {"per_batch": 0, "fixed": 1, "divisor": 1}
    for kernel in plan["kernels"]:
        kernel["launch"] = {"block": [256, 1, 1],
                            "grid": [{"per_batch": 4, "fixed": 0, "divisor": 256, "ranges": [range_code]}, one, one],
                            "arguments": [0],
                            "range_arguments": [{"argument": 0, "range": range_code}]}
        kernel["images"] = [{"format": "ptx", "target": "sm_90", "entry": kernel["name"], "offset": 0, "size": 8}]
    return plan


def tensor_map_plan(width):
    """y = relu(x) on an f16 NHWC image [batch, 2, 4, 8] for sm_90a (format
    7.4), its launch passing a rank-4 tensor map of x ({8 channels, `width`,
    2 rows, the batch}, a box traversing the width with stride 2), as the
    Hopper conv's input map is; one 8-byte image stands for the code."""
    shape = [-1, 2, 4, 8]
    return {
        "format_version": "7.4", "compiler_version": "fusec test", "target": "sm_90a",
        "source_hash": "0123456789abcdef", "batch_buckets": [1, 2],
        "inputs": [{"name": "x", "dtype": "f16", "shape": shape, "buffer": 0}],
        "outputs": [{"name": "y", "dtype": "f16", "shape": shape, "buffer": 1}],
        "buffers": [{"id": 0, "name": "x", "kind": "input", "dtype": "f16", "shape": shape},
                    {"id": 1, "name": "y", "kind": "output", "dtype": "f16", "shape": shape}],
        "arena": {"per_batch": 0, "fixed": 0, "lower_bound": {"per_batch": 0, "fixed": 0}},
        "kernels": [{"name": "k0_relu", "kind": "elementwise", "inputs": [0], "outputs": [1],
                     "values": [{"dtype": "f16", "shape": shape}, {"dtype": "f16", "shape": shape}],
                     "ops": [{"op": "Relu", "name": "relu", "operands": [0], "results": [1]}], "yields": [1],
                     "launch": {"block": [256, 1, 1],
                                "grid": [{"per_batch": 1, "fixed": 0, "divisor": 1},
                                         {"per_batch": 0, "fixed": 1, "divisor": 1},
                                         {"per_batch": 0, "fixed": 1, "divisor": 1}],
                                "tensor_maps": [{"buffer": 0, "element": "f16",
                                                 "rows": {"per_batch": 1, "fixed": 0}, "columns": 8,
                                                 "middle": [width, 2], "box": [64, 4, 2, 1],
                                                 "element_strides": [1, 2, 1, 1]}]},
                     "images": [{"format": "ptx", "target": "sm_90a", "entry": "k0_relu", "offset": 0, "size": 8}]}]}


def views_plan(neg_offset):
    """y = exp(flatten(concat(relu(x), neg(x), axis=1))) with the concat in
    place (format 7.2): relu and neg write channels 0..2 and `neg_offset`..
    of the root r, whose flatten is an alias of it; x: [batch, 2, 3]."""
    def value(shape):
        return {"dtype": "f32", "shape": shape}

    def unary(name, op, source, target, shape):
        return {"name": name, "kind": "elementwise", "inputs": [source], "outputs": [target],
                "values": [value(shape), value(shape)],
                "ops": [{"op": op, "name": name, "operands": [0], "results": [1]}], "yields": [1]}

    part, whole = [-1, 2, 3], [-1, 12]
    return {
        "format_version": "7.2", "compiler_version": "fusec test", "target": "cpu",
        "source_hash": "0123456789abcdef", "batch_buckets": [1, 2],
        "inputs": [{"name": "x", "dtype": "f32", "shape": part, "buffer": 0}],
        "outputs": [{"name": "y", "dtype": "f32", "shape": whole, "buffer": 5}],
        "buffers": [{"id": 0, "name": "x", "kind": "input", "dtype": "f32", "shape": part},
                    {"id": 1, "name": "r", "kind": "arena", "dtype": "f32", "shape": [-1, 4, 3],
                     "offset": {"per_batch": 0, "fixed": 0}},
                    {"id": 2, "name": "a", "kind": "arena", "dtype": "f32", "shape": part,
                     "view": {"of": 1, "axis": 1, "offset": 0}},
                    {"id": 3, "name": "b", "kind": "arena", "dtype": "f32", "shape": part,
                     "view": {"of": 1, "axis": 1, "offset": neg_offset}},
                    {"id": 4, "name": "f", "kind": "arena", "dtype": "f32", "shape": whole, "alias": 1},
                    {"id": 5, "name": "y", "kind": "output", "dtype": "f32", "shape": whole}],
        "arena": {"per_batch": 64, "fixed": 0, "lower_bound": {"per_batch": 0, "fixed": 0}},
        "kernels": [unary("k0_relu", "Relu", 0, 2, part), unary("k1_neg", "Neg", 0, 3, part),
                    unary("k2_exp", "Exp", 4, 5, whole)]}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    plans = {}
    small, sections = small_plan()
    plans["seed-small"] = encode(small, sections)
    pool = {"kernel_shape": [2, 2], "strides": [2, 2], "pads": [0, 0, 0, 0], "dilations": [1, 1], "ceil_mode": 0}
    plans["seed-maxpool"] = encode(window_plan("MaxPool", pool, (-1, 1, 2, 2)))
    avg = dict(pool, count_include_pad=1, pads=[1, 1, 1, 1])
    del avg["dilations"]
    plans["seed-averagepool"] = encode(window_plan("AveragePool", avg, (-1, 1, 3, 3)))
    pad = {"pads": [0, 0, 1, 2, 0, 0, 1, 2], "mode": "reflect", "value": 0.0}
    plans["seed-pad"] = encode(window_plan("Pad", pad, (-1, 1, 6, 8)))

    plans["regress-dilation-overflow"] = encode(window_plan(
        "MaxPool", dict(pool, kernel_shape=[3, 3], dilations=[1 << 62, 1]), (-1, 1, 2, 2)))
    plans["regress-pads-overflow"] = encode(window_plan(
        "MaxPool", dict(pool, pads=[2**63 - 1, 0, 2**63 - 1, 0]), (-1, 1, 2, 2)))
    plans["regress-pad-2-31"] = encode(window_plan(
        "Pad", {"pads": [0, 0, 0, 1 << 31, 0, 0, 0, 0], "mode": "constant", "value": 0.0}, (-1, 1, 4, 4)))
    plans["regress-ceil-mode"] = encode(window_plan("MaxPool", dict(pool, ceil_mode=-1), (-1, 1, 2, 2)))
    plans["regress-count-include-pad"] = encode(window_plan(
        "AveragePool", dict(avg, count_include_pad=2), (-1, 1, 3, 3)))
    overlap = copy.deepcopy(small)
    overlap["buffers"][6]["offset"] = {"per_batch": 64, "fixed": 0}
    plans["regress-arena-overlap"] = encode(overlap, sections)
    garbage = dict(small, format_version="garbage")
    plans["regress-format-version"] = encode(garbage, sections)
    plans["regress-reserved-bytes"] = encode(small, sections, reserved=b"\1" + b"\0" * 15)
    # Element types: t1 holds f16 (Relu's result rounds, Add reads it back).
    half = copy.deepcopy(small)
    half["buffers"][6]["dtype"] = "f16"
    half["kernels"][1]["values"][1]["dtype"] = "f16"
    half["kernels"][2]["values"][0]["dtype"] = "f16"
    plans["seed-f16"] = encode(half, sections)
    # Cast into i32 and back: integers go through Cast only.
    cast = copy.deepcopy(small)
    cast["kernels"][1]["values"] = [{"dtype": "f32", "shape": [-1, 3]}, {"dtype": "i32", "shape": [-1, 3]},
                                    {"dtype": "f32", "shape": [-1, 3]}]
    cast["kernels"][1]["ops"] = [
        {"op": "Cast", "name": "to_i32", "operands": [0], "results": [1], "attrs": {"to": "i32"}},
        {"op": "Cast", "name": "to_f32", "operands": [1], "results": [2], "attrs": {"to": "f32"}}]
    cast["kernels"][1]["yields"] = [2]
    plans["seed-cast"] = encode(cast, sections)
    integer_relu = copy.deepcopy(cast)
    integer_relu["kernels"][1]["ops"][1] = {"op": "Relu", "name": "relu", "operands": [1], "results": [2]}
    plans["regress-integer-operand"] = encode(integer_relu, sections)
    # QuantizeLinear to u8 and back (7.5): a scale and a zero point as
    # weights, the quantized value a u8 kernel value.
    quantized = copy.deepcopy(small)
    quantized["format_version"] = "7.5"
    quantized["buffers"] += [
        {"id": 7, "name": "scale", "kind": "weight", "dtype": "f32", "shape": [], "offset": 60},
        {"id": 8, "name": "zero", "kind": "weight", "dtype": "u8", "shape": [], "offset": 64}]
    quantized["kernels"][1]["inputs"] = [3, 7, 8]
    quantized["kernels"][1]["values"] = [{"dtype": "f32", "shape": [-1, 3]}, {"dtype": "f32", "shape": []},
                                         {"dtype": "u8", "shape": []}, {"dtype": "u8", "shape": [-1, 3]},
                                         {"dtype": "f32", "shape": [-1, 3]}]
    quantized["kernels"][1]["ops"] = [
        {"op": "QuantizeLinear", "name": "q", "operands": [0, 1, 2], "results": [3], "attrs": {}},
        {"op": "DequantizeLinear", "name": "dq", "operands": [3, 1, 2], "results": [4], "attrs": {}}]
    quantized["kernels"][1]["yields"] = [4]
    quantized_sections = [("weights", sections[0][1] + struct.pack("<fB", 0.125, 128))]
    plans["seed-quantize"] = encode(quantized, quantized_sections, major=7, minor=5)
    # The zero point's type must be the quantized value's.
    mismatched = copy.deepcopy(quantized)
    mismatched["kernels"][1]["values"][3]["dtype"] = "i8"
    plans["regress-quantize-zero-point-type"] = encode(mismatched, quantized_sections, major=7, minor=5)
    plans["regress-format-1"] = encode(small, sections, major=1)
    huge = dict(small, batch_buckets=[1, 1 << 61])
    plans["regress-huge-bucket"] = encode(huge, sections)
    # Shape variants (5.1): a max pool compiled for 4x4 and 6x6 images, the
    # second as an entry of shape_variants without the shared fields.
    four = dict(window_plan("MaxPool", pool, (-1, 1, 2, 2)), format_version="5.1", dims={"side": 4})
    six = window_plan("MaxPool", pool, (-1, 1, 3, 3), operand=(-1, 1, 6, 6))
    for shared in ("format_version", "compiler_version", "target", "source_hash", "batch_buckets"):
        del six[shared]
    six["dims"] = {"side": 6}
    plans["seed-shape-variants"] = encode(dict(four, shape_variants=[six]), major=5, minor=1)
    # Ranges (7.1): laid out for the range's maximum, then with t1 placed
    # for 4 rows only, which overlaps t0 from 5 rows on.
    plans["seed-ranges"] = encode(ranged_plan(16 * 4 * 4), [("weights", b"")], major=7, minor=1)
    plans["regress-range-overlap"] = encode(ranged_plan(4 * 4 * 4), [("weights", b"")], major=7, minor=1)
    # GPU plans over a range (7.3): launches that grow with it and read its
    # size; then a launch naming a range the plan does not have.
    gpu_sections = [("weights", b""), ("kernel_images", b"." * 8)]
    plans["seed-gpu-ranges"] = encode(gpu_ranged_plan(-2), gpu_sections, major=7, minor=3)
    plans["regress-gpu-range-code"] = encode(gpu_ranged_plan(-3), gpu_sections, major=7, minor=3)
    # Tensor maps of rank 4 (7.4): an NHWC image read with a traversal
    # stride; then a map whose width reaches past its buffer.
    plans["seed-tensor-map-4d"] = encode(tensor_map_plan(4), gpu_sections, major=7, minor=4)
    plans["regress-tensor-map-past-buffer"] = encode(tensor_map_plan(5), gpu_sections, major=7, minor=4)
    # Views (7.2): a concat its operands' kernels write, read through an
    # alias; then with the second operand overlapping the first.
    plans["seed-views"] = encode(views_plan(2), [("weights", b"")], major=7, minor=2)
    plans["regress-view-overlap"] = encode(views_plan(1), [("weights", b"")], major=7, minor=2)
    for name, data in plans.items():
        with open(os.path.join(out, name + ".plan"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
