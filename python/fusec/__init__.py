"""fusec: compile a model (ONNX or fusec JSON) into a fused plan and run it.

    import fusec, numpy
    plan = fusec.compile("model.onnx", target="cpu")
    print(plan.report["totals"])                  # what fusion decided
    plan.save("model.plan")
    session = fusec.Session(fusec.Plan.load("model.plan"), device="auto")
    outputs = session.run({"input": numpy.zeros((4, 3, 32, 32), numpy.float32)})

Errors are fusec.Error (a RuntimeError) with the messages the command-line
tools print; a model that does not compile raises fusec.CompileError (an
Error too). docs/python.md has the whole API.
"""

import json
import os
import tempfile

from ._fusec import CompileError, Error, _compile_file, _compiler_version, _Plan, _Session

__all__ = ["CompileError", "Error", "Plan", "Session", "compile"]

#: "0.1.0": the version of the compiler and runtime this package wraps.
__version__ = _compiler_version.split()[-1]


class Plan:
    """A compiled, verified plan: weights, kernels and their schedule.

    `report` is the fusion report (docs/fusion.md) as Python data when the
    plan was compiled in this process with report=True, else None.
    """

    def __init__(self, loaded, report=None):
        self._plan = loaded
        self.report = report

    @staticmethod
    def load(path):
        """Reads and verifies the plan file at `path`."""
        return Plan(_Plan.load(os.fspath(path)))

    @staticmethod
    def from_bytes(data, name="<bytes>"):
        """Verifies a plan held in memory; `name` names it in errors."""
        return Plan(_Plan.from_bytes(bytes(data), name))

    def save(self, path):
        """Writes the plan to `path` atomically (a temporary file, renamed)."""
        self._plan.save(os.fspath(path))

    def to_bytes(self):
        return self._plan.to_bytes()

    @property
    def inputs(self):
        """[{"name", "dtype", "numpy_dtype", "shape"}]; None in a shape is the batch."""
        return self._plan.inputs

    @property
    def outputs(self):
        return self._plan.outputs

    def describe(self, batch=1):
        """What `fuserun --info` prints, as a dict: target, kernels, memory at `batch`."""
        return json.loads(self._plan.describe(batch))


class Session:
    """Runs a plan on a device: "auto" (CUDA where a GPU can run the plan,
    else the CPU reference backend, saying why on stderr), "cpu" or "cuda".

    Sessions made from one Plan share its weights. run() releases the GIL:
    sessions on several threads run at once; threads sharing one session
    take turns.
    """

    def __init__(self, plan, device="auto"):
        if not isinstance(plan, Plan):
            raise TypeError("Session takes a fusec.Plan, got " + type(plan).__name__)
        self.plan = plan
        self._session = _Session(plan._plan, device)

    @property
    def device(self):
        """The device the session runs on: "cpu" or "cuda"."""
        return self._session.device

    @property
    def max_batch(self):
        """The largest batch a run may use on this machine."""
        return self._session.max_batch

    def run(self, inputs, batch=None):
        """Runs the plan on a dict of numpy arrays (each in its input's dtype;
        a bf16 input as float32) and returns a dict of numpy arrays. The batch
        size is read from the inputs unless given."""
        return self._session.run(dict(inputs), 0 if batch is None else int(batch))


def _model_suffix(data, model_format):
    if model_format is not None:
        if model_format not in ("onnx", "json", "mlir"):
            raise ValueError("format must be 'onnx', 'json' or 'mlir', got " + repr(model_format))
        return "." + model_format
    return ".json" if data.lstrip()[:1] == b"{" else ".onnx"


def compile(model, target="sm_90", precision="fp32", io_precision="fp32", fusion_strategy="greedy",
            disable=(), batch_buckets=(1, 2, 4, 8, 16), cost_batch=1, device_profile="h200",
            kernel_cache=None, report=True, format=None):
    """Compiles a model into a Plan, as the fusec command does.

    model: a path (.onnx, .json, .mlir) or the model's bytes (ONNX, or fusec
    JSON when they start with "{"; `format` says otherwise).
    target: "cpu" (no GPU kernels) or an architecture such as "sm_90".
    precision: "fp32", "tf32", "fp16" or "bf16"; io_precision "fp32" or the
    precision's half type. fusion_strategy: "greedy", "dp" or "none".
    disable: fusion rule names. kernel_cache: a directory for NVRTC's kernel
    cache (None: no cache). report: keep the fusion report on the plan.
    Raises CompileError with every diagnostic.
    """
    options = dict(target=target, precision=precision, io_precision=io_precision,
                   fusion_strategy=fusion_strategy, disable=list(disable),
                   batch_buckets=[int(b) for b in batch_buckets], cost_batch=int(cost_batch),
                   device_profile=device_profile, kernel_cache=kernel_cache or "")
    if isinstance(model, (bytes, bytearray, memoryview)):
        data = bytes(model)
        name = "<model bytes>"
        with tempfile.TemporaryDirectory(prefix="fusec-") as directory:
            path = os.path.join(directory, "model" + _model_suffix(data, format))
            with open(path, "wb") as file:
                file.write(data)
            try:
                plan_bytes, report_text = _compile_file(path, **options)
            except CompileError as error:
                # Diagnostics name the model, not the temporary file.
                raise CompileError(str(error).replace(path, name)) from None
    else:
        path = os.fspath(model)
        plan_bytes, report_text = _compile_file(path, **options)
        name = path
    return Plan(_Plan.from_bytes(plan_bytes, name), json.loads(report_text) if report else None)
