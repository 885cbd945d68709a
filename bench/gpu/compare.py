#!/usr/bin/env python3
"""fusec vs PyTorch eager vs torch.compile(mode="reduce-overhead") on one GPU.

Models: the seed MLP (Linear 32->64, ReLU, Linear 64->32 on [batch, 8, 32]:
test/data/models/mlp) and ResNet-50 (torchvision layout, [batch, 3, 224, 224]),
at batch 1 and 16. Every figure is the median of --iters (>= 100) timed runs
after --warmup untimed ones, in device time between CUDA events:

  fusec      `fuserun PLAN --device=cuda --iters --time-kernels`: "exec" is the
             graph replay alone (no input/output copies), "run" adds the copies,
             "kernels" is the sum of every kernel timed on its own;
  eager      model(x) on a device-resident x;
  compiled   torch.compile(model, mode="reduce-overhead") (CUDA graphs), same x.

It prints a table, the ratios, and the two goals: MLP bs=1 replay <= 1.2x the sum
of its kernel times, and ResNet-50 bs=1 fusec <= 1.0x torch.compile.

Two steps, because the GPU machine has no fusec compiler (docs/gpu.md):
  compare.py export DIR            (GPU machine, needs torch + torchvision + onnx)
      writes DIR/resnet50.onnx; compile it, and test/data/models/mlp, with
      test/gpu/make-plans.sh PLANS DIR/resnet50.onnx where fusec is built
  compare.py run --plans PLANS --fuserun build-gpu/bin/fuserun   (GPU machine)
      needs PLANS/mlp.plan and PLANS/resnet50.plan
"""

import argparse
import inspect
import re
import statistics
import subprocess
import sys
from pathlib import Path

BATCHES = (1, 16)
FLOAT = r"([0-9.eE+-]+|inf|nan)"
RUN_LINE = re.compile(
    r"^timing: (\d+) runs at batch (\d+) on (\w+)(?: \(([^)]*)\))?: median "
    + FLOAT + " ms", re.M)
EXEC_LINE = re.compile(r"^timing execute: median " + FLOAT + " ms", re.M)
KERNELS_LINE = re.compile(
    r"^timing kernels: median " + FLOAT + r" ms.*\(sum of (\d+) kernels", re.M)


def import_torch():
    try:
        import torch
        import torchvision
    except ImportError as error:
        sys.exit(f"compare.py: needs torch and torchvision ({error})")
    return torch, torchvision


def make_models(torch, torchvision):
    """The two models in eval mode, with fixed pseudo-random weights."""
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(
        torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 32))
    resnet = torchvision.models.resnet50(weights=None)
    return {
        "mlp": (mlp.eval(), lambda batch: (batch, 8, 32)),
        "resnet50": (resnet.eval(), lambda batch: (batch, 3, 224, 224)),
    }


def export(out_dir):
    torch, torchvision = import_torch()
    out_dir.mkdir(parents=True, exist_ok=True)
    model, shape = make_models(torch, torchvision)["resnet50"]
    path = out_dir / "resnet50.onnx"
    # The TorchScript exporter: plain ONNX ops with a symbolic batch; BN in
    # eval mode is folded into the convolutions.
    extra = {}
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        extra["dynamo"] = False
    torch.onnx.export(
        model, torch.randn(*shape(1)), str(path), input_names=["input"],
        output_names=["output"], opset_version=17, do_constant_folding=True,
        dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}}, **extra)
    print(f"wrote {path}; compile it where fusec is built:\n"
          f"  test/gpu/make-plans.sh PLANS {path}")


def time_torch(torch, function, x, warmup, iters):
    """Median milliseconds of function(x) between CUDA events."""
    with torch.inference_mode():
        for _ in range(warmup):
            function(x)
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(iters):
            start.record()
            function(x)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
    return statistics.median(times)


def parse_fuserun(output):
    """{"run", "exec", "kernels", "kernel_count", "mode"} from fuserun's timing."""
    run = RUN_LINE.search(output)
    execute = EXEC_LINE.search(output)
    kernels = KERNELS_LINE.search(output)
    if not run or not execute or not kernels:
        raise ValueError("no CUDA timing in fuserun's output:\n" + output)
    if run.group(3) != "cuda":
        raise ValueError(f"fuserun ran on {run.group(3)}, not cuda:\n{output}")
    return {"run": float(run.group(5)), "exec": float(execute.group(1)),
            "kernels": float(kernels.group(1)),
            "kernel_count": int(kernels.group(2)), "mode": run.group(4)}


def time_fusec(fuserun, plan, batch, warmup, iters):
    command = [str(fuserun), str(plan), "--device=cuda", f"--batch={batch}",
               "--random-inputs=1", f"--warmup={warmup}", f"--iters={iters}",
               "--time-kernels"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"compare.py: {' '.join(command)} failed:\n{result.stderr}")
    return parse_fuserun(result.stdout)


def ratio(a, b):
    return a / b if b > 0 else float("inf")


def run(args):
    torch, torchvision = import_torch()
    if not torch.cuda.is_available():
        sys.exit("compare.py: PyTorch finds no CUDA device")
    # fusec's kernels compute in FP32; keep PyTorch off TF32 unless asked.
    torch.backends.cuda.matmul.allow_tf32 = args.allow_tf32
    torch.backends.cudnn.allow_tf32 = args.allow_tf32
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"TF32 {'on' if args.allow_tf32 else 'off'}, median of {args.iters} "
          f"runs after {args.warmup} (ms)")
    header = (f"{'model':<9} {'batch':>5} {'fusec run':>10} {'fusec exec':>10} "
              f"{'kernels':>10} {'eager':>10} {'compiled':>10} "
              f"{'exec/kern':>9} {'exec/eager':>10} {'exec/comp':>9}")
    print(header)
    results = {}
    for name, (model, shape) in make_models(torch, torchvision).items():
        plan = args.plans / f"{name}.plan"
        if not plan.exists():
            sys.exit(f"compare.py: missing {plan} (see --help)")
        model = model.cuda()
        for batch in BATCHES:
            x = torch.randn(*shape(batch), device="cuda")
            fusec = time_fusec(args.fuserun, plan, batch, args.warmup, args.iters)
            eager = time_torch(torch, model, x, args.warmup, args.iters)
            compiled_model = torch.compile(model, mode="reduce-overhead",
                                           dynamic=False)
            compiled = time_torch(torch, compiled_model, x, args.warmup,
                                  args.iters)
            torch._dynamo.reset()
            results[name, batch] = (fusec, eager, compiled)
            print(f"{name:<9} {batch:>5} {fusec['run']:>10.4f} "
                  f"{fusec['exec']:>10.4f} {fusec['kernels']:>10.4f} "
                  f"{eager:>10.4f} {compiled:>10.4f} "
                  f"{ratio(fusec['exec'], fusec['kernels']):>8.2f}x "
                  f"{ratio(fusec['exec'], eager):>9.2f}x "
                  f"{ratio(fusec['exec'], compiled):>8.2f}x")

    mlp, _, _ = results["mlp", 1]
    replay = ratio(mlp["exec"], mlp["kernels"])
    resnet, _, resnet_compiled = results["resnet50", 1]
    versus = ratio(resnet["exec"], resnet_compiled)
    print()
    print(f"goal: MLP bs=1 replay / sum of kernel times = {replay:.2f} "
          f"(<= 1.2): {'met' if replay <= 1.2 else 'NOT met'}")
    print(f"goal: ResNet-50 bs=1 fusec / torch.compile = {versus:.2f} "
          f"(<= 1.0): {'met' if versus <= 1.0 else 'NOT met'}")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    steps = parser.add_subparsers(dest="step", required=True)
    export_step = steps.add_parser("export", help="write resnet50.onnx")
    export_step.add_argument("dir", type=Path)
    run_step = steps.add_parser("run", help="time and compare")
    run_step.add_argument("--plans", type=Path, required=True,
                          help="folder with mlp.plan and resnet50.plan")
    run_step.add_argument("--fuserun", type=Path,
                          default=Path("build-gpu/bin/fuserun"))
    run_step.add_argument("--iters", type=int, default=200)
    run_step.add_argument("--warmup", type=int, default=20)
    run_step.add_argument("--allow-tf32", action="store_true",
                          help="let PyTorch use TF32 tensor cores")
    args = parser.parse_args()
    if args.step == "export":
        export(args.dir)
        return
    if args.iters < 100:
        parser.error("--iters must be at least 100")
    run(args)


if __name__ == "__main__":
    main()
