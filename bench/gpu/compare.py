#!/usr/bin/env python3
"""fusec vs PyTorch eager vs torch.compile(mode="reduce-overhead") on one GPU.

Models: every PLANS/<name>.plan, e.g. the shared test models, ResNet-18 in fp16
and ResNet-50 (torchvision layout, [batch, 3, 224, 224]), at batch 1 and 16. It
runs what the machine has and lists what it skipped: fusec always; onnxruntime
(CUDA) on the PLANS/<name>.onnx that make-plans.sh copies beside each plan;
PyTorch eager and compiled on the models it can build (the seed MLP, Linear
32->64, ReLU, Linear 64->32 on [batch, 8, 32]; with torchvision ResNet-50, and
ResNet-18 in half precision for resnet18_fp16). torch.compile runs at batch 1
only (the goal's batch: one compilation per model). Every figure is
the median of --iters (>= 100) timed runs after --warmup untimed ones, in device
time between CUDA events (onnxruntime: wall clock around a bound run):

  fusec      `fuserun PLAN --device=cuda --iters --time-kernels`: "exec" is the
             graph replay alone (no input/output copies), "run" adds the copies,
             "kernels" is the sum of every kernel timed on its own;
  eager      model(x) on a device-resident x;
  compiled   torch.compile(model, mode="reduce-overhead") (CUDA graphs), same x;
  ort        onnxruntime's CUDA provider, input and output bound on the device.

It prints a table, the ratios, and the two goals: MLP bs=1 replay <= 1.2x the sum
of its kernel times, and ResNet bs=1 fusec <= 1.0x torch.compile (ResNet-50, or
else ResNet-18 in fp16).

Deadlines: --deadline SECONDS (default none) stops starting models when it has
passed, and no fuserun runs longer than --step-timeout (60 s) or past it; a
torch.compile or timing step past it is interrupted (SIGALRM) and listed as
skipped. Rows are printed (and flushed) as they are measured.

Two steps, because the GPU machine has no fusec compiler (docs/gpu.md):
  compare.py export DIR            (GPU machine, needs torch + torchvision + onnx)
      writes DIR/resnet50.onnx; compile it, and test/data/models/mlp, with
      test/gpu/make-plans.sh PLANS DIR/resnet50.onnx where fusec is built
  compare.py run --plans PLANS --fuserun build-gpu/bin/fuserun   (GPU machine)
      the goals need PLANS/mlp.plan and PLANS/resnet50.plan (or resnet18_fp16.plan,
      which make-plans.sh writes without any export: resnet50.onnx, ~100 MB, may be
      too large to copy off the GPU machine)
"""

import argparse
import contextlib
import inspect
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

BATCHES = (1, 16)
FLOAT = r"([0-9.eE+-]+|inf|nan)"
RUN_LINE = re.compile(
    r"^timing: (\d+) runs at batch (\d+) on (\w+)(?: \(([^)]*)\))?: median "
    + FLOAT + " ms", re.M)
EXEC_LINE = re.compile(r"^timing execute: median " + FLOAT + " ms", re.M)
KERNELS_LINE = re.compile(
    r"^timing kernels: median " + FLOAT + r" ms.*\(sum of (\d+) kernels", re.M)


def import_optional(name):
    """The module, or None with the reason recorded in SKIPPED."""
    try:
        return __import__(name)
    except ImportError as error:
        SKIPPED.append(f"{name} is not installed ({error})")
        return None


SKIPPED = []
DEADLINE = None  # time.monotonic() after which nothing new starts


def seconds_left():
    return None if DEADLINE is None else DEADLINE - time.monotonic()


class OutOfTime(Exception):
    pass


@contextlib.contextmanager
def deadline_guard(what):
    """Interrupts the block (SIGALRM) when the deadline passes."""
    left = seconds_left()
    if left is None:
        yield
        return
    if left <= 1:
        raise OutOfTime(f"{what}: the deadline had passed")

    def expire(signum, frame):
        raise OutOfTime(f"{what}: interrupted at the deadline")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(max(1, int(left)))
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def make_torch_models(torch, torchvision):
    """The models PyTorch can build here, in eval mode, with fixed
    pseudo-random weights, each with its input shape and type: the MLP
    always, ResNet-50 and ResNet-18 in fp16 with torchvision."""
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(
        torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 32))
    models = {"mlp": (mlp.eval(), lambda batch: (batch, 8, 32), torch.float32)}
    if torchvision is not None:
        image = lambda batch: (batch, 3, 224, 224)  # noqa: E731
        models["resnet50"] = (torchvision.models.resnet50(weights=None).eval(), image, torch.float32)
        models["resnet18_fp16"] = (torchvision.models.resnet18(weights=None).eval().half(), image,
                                   torch.float16)
    return models


def export(out_dir):
    torch = import_optional("torch")
    torchvision = import_optional("torchvision")
    if torch is None or torchvision is None or import_optional("onnx") is None:
        sys.exit("compare.py export: needs torch, torchvision and onnx: "
                 + "; ".join(SKIPPED))
    out_dir.mkdir(parents=True, exist_ok=True)
    model, shape, _ = make_torch_models(torch, torchvision)["resnet50"]
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


def time_fusec(args, plan, batch):
    """fuserun's timings, or None (the reason in SKIPPED) if it fails or
    runs out of time."""
    command = [str(args.fuserun), str(plan), "--device=cuda", f"--batch={batch}",
               "--random-inputs=1", f"--warmup={args.warmup}", f"--iters={args.iters}",
               "--time-kernels", f"--timing-gate={args.timing_gate}"]
    timeout = args.step_timeout
    left = seconds_left()
    if left is not None:
        timeout = min(timeout, left)
    try:
        if timeout <= 1:
            raise ValueError("the deadline had passed")
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        if result.returncode != 0:
            raise ValueError(result.stderr.strip() or result.stdout.strip())
        return parse_fuserun(result.stdout)
    except subprocess.TimeoutExpired:
        SKIPPED.append(f"fusec {plan.stem} batch {batch}: no result within {timeout:.0f} s")
        return None
    except (OSError, ValueError) as error:
        SKIPPED.append(f"fusec {plan.stem} batch {batch}: {error}")
        return None


def time_onnxruntime(ort, np, onnx_path, batch, warmup, iters):
    """Median wall-clock ms of an onnxruntime CUDA run with the input and
    output bound on the device (run_with_iobinding waits for the stream)."""
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        SKIPPED.append("onnxruntime has no CUDAExecutionProvider "
                       "(install onnxruntime-gpu)")
        return None
    session = ort.InferenceSession(str(onnx_path), providers=["CUDAExecutionProvider"])
    first = session.get_inputs()[0]
    shape = tuple(d if isinstance(d, int) else batch for d in first.shape)
    x = ort.OrtValue.ortvalue_from_numpy(
        np.random.default_rng(0).standard_normal(shape, dtype=np.float32), "cuda", 0)
    binding = session.io_binding()
    binding.bind_ortvalue_input(first.name, x)
    for output in session.get_outputs():
        binding.bind_output(output.name, "cuda")
    for _ in range(warmup):
        session.run_with_iobinding(binding)
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        session.run_with_iobinding(binding)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def ratio(a, b):
    return a / b if a is not None and b is not None and b > 0 else None


def cell(value, width, suffix=""):
    return f"{'-':>{width}}" if value is None else f"{value:>{width - len(suffix)}.4f}{suffix}"


def run(args):
    """Times every PLANS/<name>.plan with whatever is installed: fusec
    always; onnxruntime on PLANS/<name>.onnx; PyTorch eager and compiled
    where it can build the model (the MLP; ResNet-50 with torchvision)."""
    np = import_optional("numpy")
    torch = import_optional("torch")
    torchvision = import_optional("torchvision") if torch is not None else None
    ort = import_optional("onnxruntime") if np is not None else None
    if torch is not None and not torch.cuda.is_available():
        SKIPPED.append("PyTorch finds no CUDA device: eager and compiled skipped")
        torch = None
    torch_models = make_torch_models(torch, torchvision) if torch is not None else {}
    if torch is not None:
        # fusec's kernels compute in FP32; keep PyTorch off TF32 unless asked.
        torch.backends.cuda.matmul.allow_tf32 = args.allow_tf32
        torch.backends.cudnn.allow_tf32 = args.allow_tf32
        print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
              f"TF32 {'on' if args.allow_tf32 else 'off'}")
    print(f"median of {args.iters} runs after {args.warmup} (ms); ort is wall clock")
    plans = sorted(args.plans.glob("*.plan"))
    # The goals' models first: a deadline then cuts the others.
    plans.sort(key=lambda plan: plan.stem not in ("mlp", "resnet50", "resnet18_fp16"))
    if not plans:
        sys.exit(f"compare.py: no .plan files in {args.plans} (see --help)")
    print(f"{'model':<24} {'batch':>5} {'fusec run':>10} {'fusec exec':>10} "
          f"{'kernels':>10} {'eager':>10} {'compiled':>10} {'ort':>10} "
          f"{'exec/kern':>9} {'exec/eager':>10} {'exec/comp':>9} {'exec/ort':>9}")
    results = {}
    for plan in plans:
        name = plan.stem
        onnx_path = plan.with_suffix(".onnx")
        if name not in torch_models and torch is not None:
            SKIPPED.append(f"{name}: no PyTorch model here (eager and compiled "
                           "cover mlp, and resnet50 with torchvision)")
        if ort is not None and not onnx_path.exists():
            SKIPPED.append(f"{name}: no {onnx_path.name} beside the plan for onnxruntime")
        left = seconds_left()
        if left is not None and left <= 1:
            SKIPPED.append(f"{name}: not run, the deadline had passed")
            continue
        for batch in BATCHES:
            fusec = time_fusec(args, plan, batch)
            eager = compiled = ort_ms = None
            if name in torch_models:
                model, shape, dtype = torch_models[name]
                model = model.cuda()
                x = torch.randn(*shape(batch), device="cuda", dtype=dtype)
                try:
                    with deadline_guard(f"eager {name} batch {batch}"):
                        eager = time_torch(torch, model, x, args.warmup, args.iters)
                    # Once per model, at the goal's batch: each batch size
                    # would be a compilation (and CUDA graph capture) of its own.
                    if batch == 1:
                        with deadline_guard(f"torch.compile {name}"):
                            compiled_model = torch.compile(model, mode="reduce-overhead",
                                                           dynamic=False)
                            compiled = time_torch(torch, compiled_model, x, args.warmup,
                                                  args.iters)
                except OutOfTime as error:
                    SKIPPED.append(str(error))
                except Exception as error:  # no Triton, no C compiler, ...
                    SKIPPED.append(f"torch.compile {name} batch {batch}: {error}")
                if batch == 1:
                    torch._dynamo.reset()
            if ort is not None and onnx_path.exists():
                try:
                    with deadline_guard(f"onnxruntime {name} batch {batch}"):
                        ort_ms = time_onnxruntime(ort, np, onnx_path, batch, args.warmup, args.iters)
                except Exception as error:
                    SKIPPED.append(f"onnxruntime {name} batch {batch}: {error}")
            results[name, batch] = (fusec, eager, compiled, ort_ms)
            execute = fusec["exec"] if fusec else None
            print(f"{name:<24} {batch:>5} {cell(fusec and fusec['run'], 10)} "
                  f"{cell(execute, 10)} {cell(fusec and fusec['kernels'], 10)} "
                  f"{cell(eager, 10)} {cell(compiled, 10)} {cell(ort_ms, 10)} "
                  f"{cell(ratio(execute, fusec and fusec['kernels']), 9, 'x')} "
                  f"{cell(ratio(execute, eager), 10, 'x')} "
                  f"{cell(ratio(execute, compiled), 9, 'x')} "
                  f"{cell(ratio(execute, ort_ms), 9, 'x')}", flush=True)

    print()
    mlp = results.get(("mlp", 1), (None,) * 4)[0]
    replay = ratio(mlp and mlp["exec"], mlp and mlp["kernels"])
    if replay is None:
        print("goal: MLP bs=1 replay / sum of kernel times: SKIPPED (no fusec timing of mlp.plan)")
    else:
        print(f"goal: MLP bs=1 replay / sum of kernel times = {replay:.2f} "
              f"(<= 1.2): {'met' if replay <= 1.2 else 'NOT met'}")
    resnet_name = "resnet50" if ("resnet50", 1) in results else "resnet18_fp16"
    resnet, _, resnet_compiled, _ = results.get((resnet_name, 1), (None,) * 4)
    versus = ratio(resnet and resnet["exec"], resnet_compiled)
    if versus is None:
        print("goal: ResNet bs=1 fusec / torch.compile: SKIPPED (needs resnet50.plan or "
              "resnet18_fp16.plan, torchvision and a working torch.compile)")
    else:
        print(f"goal: ResNet bs=1 ({resnet_name}) fusec / torch.compile = {versus:.2f} "
              f"(<= 1.0): {'met' if versus <= 1.0 else 'NOT met'}")
    if SKIPPED:
        print("\nskipped:")
        for reason in dict.fromkeys(SKIPPED):
            print(f"  - {reason}")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    steps = parser.add_subparsers(dest="step", required=True)
    export_step = steps.add_parser("export", help="write resnet50.onnx")
    export_step.add_argument("dir", type=Path)
    run_step = steps.add_parser("run", help="time and compare")
    run_step.add_argument("--plans", type=Path, required=True,
                          help="folder of <name>.plan (and <name>.onnx) files, "
                               "as test/gpu/make-plans.sh writes it")
    run_step.add_argument("--fuserun", type=Path,
                          default=Path("build-gpu/bin/fuserun"))
    run_step.add_argument("--iters", type=int, default=200)
    run_step.add_argument("--warmup", type=int, default=20)
    run_step.add_argument("--allow-tf32", action="store_true",
                          help="let PyTorch use TF32 tensor cores")
    run_step.add_argument("--deadline", type=float, default=None,
                          help="seconds from the start after which nothing new starts "
                               "and a running step is interrupted")
    run_step.add_argument("--step-timeout", type=float, default=60.0,
                          help="seconds one fuserun may take (default 60)")
    run_step.add_argument("--timing-gate", choices=["auto", "host-flag", "none"],
                          default="auto", help="fuserun --timing-gate (check.sh passes "
                                               "what its probe found)")
    args = parser.parse_args()
    if args.step == "export":
        export(args.dir)
        return
    if args.iters < 100:
        parser.error("--iters must be at least 100")
    global DEADLINE
    if args.deadline is not None:
        DEADLINE = time.monotonic() + args.deadline
    run(args)


if __name__ == "__main__":
    main()
