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
from ._dlpack import describe_device_array, host_array

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
    def dims(self):
        """The sizes of the named dimensions this plan (or variant) was
        compiled for, e.g. {"seq": 128}; {} if it names none."""
        return self._plan.dims

    @property
    def shape_variants(self):
        """Each shape variant's dims (compile(..., dims={"seq": [64, 128]})),
        the plan's own first; [{}] for a plan that names no dimensions."""
        return self._plan.shape_variants

    @property
    def ranges(self):
        """The named dimensions the plan runs over a range (compile(...,
        dims={"seq": (1, 512)})): {"seq": (min, opt, max)}; {} for most."""
        return self._plan.ranges

    def variant(self, dims):
        """The shape variant compiled for exactly `dims`, as a Plan sharing
        this one's bytes (a Session of it runs that variant only; it is
        saved only as part of its plan), or a plan with ranges at the sizes
        `dims` gives them. Its report is None: the fusion report is the
        first variant's."""
        dims = {str(k): int(v) for k, v in dict(dims).items()}
        return Plan(self._plan.variant(dims), self.report if dims == self.dims else None)

    @property
    def inputs(self):
        """[{"name", "dtype", "numpy_dtype", "shape"}]; None in a shape is the batch.
        Of the plan's first shape variant (see variant())."""
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

    def __init__(self, plan, device="auto", tune=False, tuning_cache=None):
        """tune: on a GPU, time each conv/GEMM kernel's compiled variants
        (compile(..., kernel_variants=3)) at a batch bucket's first run and run
        the fastest, as `fuserun --tune` does; the choices go to the tuning
        cache (tuning_cache: a path, "none", or None for the default file),
        which every GPU session reads."""
        if not isinstance(plan, Plan):
            raise TypeError("Session takes a fusec.Plan, got " + type(plan).__name__)
        self.plan = plan
        self._session = _Session(plan._plan, device, bool(tune), tuning_cache or "")

    @property
    def device(self):
        """The device the session runs on: "cpu" or "cuda"."""
        return self._session.device

    @property
    def tuning(self):
        """The variant each conv/GEMM kernel with variants runs, per batch
        bucket run so far: a list of dicts (kernel, batch, configs,
        milliseconds per config (empty when from the cache), chosen,
        from_cache). Empty on the CPU and for plans without variants."""
        return self._session.tuning

    @property
    def max_batch(self):
        """The largest batch a run may use on this machine."""
        return self._session.max_batch

    def run(self, inputs, batch=None):
        """Runs the plan on a dict of numpy arrays (each in its input's dtype;
        a bf16 input as float32) and returns a dict of numpy arrays. Host
        tensors of other libraries (torch, JAX, CuPy's host arrays: anything
        with __dlpack__) are taken through DLPack without a copy; the
        outputs, numpy arrays, go back the same way (torch.from_dlpack). The
        batch size is read from the inputs unless given; the shape variant
        runs whose shapes they have."""
        inputs = {name: host_array(value, name) for name, value in dict(inputs).items()}
        return self._session.run(inputs, 0 if batch is None else int(batch))

    def run_device(self, inputs, outputs, batch=None, stream=None, dims=None):
        """Runs the plan on arrays already in the device's memory, writing
        into `outputs`, without copies through the host.

        inputs, outputs: dicts naming every plan input and output. On CUDA,
        objects with __cuda_array_interface__ (PyTorch CUDA tensors, CuPy
        and Numba arrays) or __dlpack__ (JAX) on the session's device; on the
        CPU backend, whose device memory is host memory, numpy arrays
        (__array_interface__) or host tensors with __dlpack__ (torch).
        Each is C-contiguous, in its tensor's dtype (bf16 as 2-byte raw
        bits: uint16), with the plan's shape at `batch` (read from the first
        input with a batch dimension unless given); outputs are writable.
        stream: None, a CUstream handle (int), or an object with
        `cuda_stream` (torch.cuda.Stream) or `ptr` (cupy Stream). With a
        stream the run is ordered after the stream's earlier work and before
        its later work, and the call returns once it is enqueued; without
        one it returns when the run has finished.
        dims: the shape variant to run (Plan.shape_variants), or the sizes
        of a plan's ranges (Plan.ranges); None runs the plan's first variant
        (a plan with ranges: at each range's opt).
        """
        dims = {str(k): int(v) for k, v in dict(dims or {}).items()}
        described_plan = self.plan.variant(dims) if dims else self.plan
        on_cuda = self.device != "cpu"
        stream_handle = _stream_handle(stream)
        inputs, outputs = dict(inputs), dict(outputs)
        for given, described, role in ((inputs, described_plan.inputs, "input"),
                                       (outputs, described_plan.outputs, "output")):
            names = {tensor["name"] for tensor in described}
            for name in given:
                if name not in names:
                    raise Error("'%s' is not an %s of the plan" % (name, role))
            for tensor in described:
                if tensor["name"] not in given:
                    raise Error("%s '%s' is missing: run_device takes every %s" % (role, tensor["name"], role))
        # Each array described once; DLPack holders keep their tensors
        # alive until the run is enqueued (the caller owns them after).
        holders = []
        descriptions = {}
        for role, given in (("input", inputs), ("output", outputs)):
            for name, array in given.items():
                description, holder = describe_device_array(array, name, on_cuda, stream_handle)
                descriptions[role, name] = description
                holders.append(holder)
        if batch is None:
            batch = 1
            for tensor in described_plan.inputs:
                if tensor["shape"] and tensor["shape"][0] is None:
                    batch = int(descriptions["input", tensor["name"]]["shape"][0])
                    break
        batch = int(batch)
        addresses = []
        for role, described, writable in (("input", described_plan.inputs, False),
                                          ("output", described_plan.outputs, True)):
            addresses.append([_device_address(descriptions[role, tensor["name"]], tensor, batch, writable)
                              for tensor in described])
        self._session.run_device(batch, addresses[0], addresses[1], stream_handle, dims)
        del holders


#: typestr of each plan dtype in the array interfaces (bf16: its raw bits).
_TYPESTRS = {"f32": ("<f4",), "f16": ("<f2",), "bf16": ("<u2", "<V2"), "i64": ("<i8",), "i32": ("<i4",),
             "i1": ("|b1",), "i8": ("|i1",), "u8": ("|u1",)}


def _device_address(description, tensor, batch, writable):
    name = tensor["name"]
    shape = tuple(int(d) for d in description["shape"])
    want = tuple(batch if d is None else d for d in tensor["shape"])
    if shape != want:
        raise Error("'%s' has shape %s, the plan's at batch %d is %s" % (name, shape, batch, want))
    typestr = description["typestr"]
    if typestr not in _TYPESTRS[tensor["dtype"]]:
        raise Error("'%s' has typestr %s, the plan takes %s (%s); arrays are not converted"
                    % (name, typestr, tensor["dtype"], " or ".join(_TYPESTRS[tensor["dtype"]])))
    strides = description.get("strides")
    if strides is not None:
        itemsize = int(typestr[2:])  # a typestr the plan takes: "<f4", "|b1", ...
        expected, step = [], itemsize
        for extent in reversed(shape):
            expected.insert(0, step)
            step *= extent
        if any(extent > 1 and int(s) != e for s, e, extent in zip(strides, expected, shape)):
            raise Error("'%s' is not C-contiguous (strides %s); pass a contiguous copy" % (name, tuple(strides)))
    address, read_only = description["data"]
    if writable and read_only:
        raise Error("output '%s' is read-only" % name)
    return int(address)


def _stream_handle(stream):
    if stream is None:
        return 0
    for attribute in ("cuda_stream", "ptr"):
        if hasattr(stream, attribute):
            return int(getattr(stream, attribute))
    return int(stream)


def _model_suffix(data, model_format):
    if model_format is not None:
        if model_format not in ("onnx", "json", "mlir"):
            raise ValueError("format must be 'onnx', 'json' or 'mlir', got " + repr(model_format))
        return "." + model_format
    return ".json" if data.lstrip()[:1] == b"{" else ".onnx"


def _size(size):
    """One size as the binding takes it: [n], or [min, opt, max] for a
    range given as a tuple (min, max) or (min, opt, max)."""
    if isinstance(size, tuple):
        if len(size) not in (2, 3):
            raise ValueError("a range is (min, max) or (min, opt, max), got " + repr(size))
        bounds = [int(s) for s in size]
        return [bounds[0], bounds[1] if len(bounds) == 3 else bounds[-1], bounds[-1]]
    return [int(size)]


def _sizes(size):
    """A dims entry as a list of sizes: an int, a range tuple, or a list of
    them."""
    if isinstance(size, (str, bytes, tuple)) or not hasattr(size, "__iter__"):
        return [_size(size)]
    return [_size(s) for s in size]


def compile(model, target="sm_90", precision="fp32", io_precision="fp32", fusion_strategy="greedy",
            disable=(), batch_buckets=(1, 2, 4, 8, 16), cost_batch=1, device_profile="h200",
            kernel_cache=None, report=True, format=None, kernel_variants=1, dims=None, layout="auto"):
    """Compiles a model into a Plan, as the fusec command does.

    model: a path (.onnx, .json, .mlir) or the model's bytes (ONNX, or fusec
    JSON when they start with "{"; `format` says otherwise).
    target: "cpu" (no GPU kernels) or an architecture such as "sm_90".
    precision: "fp32", "tf32", "fp16" or "bf16"; io_precision "fp32" or the
    precision's half type. fusion_strategy: "greedy", "dp" or "none".
    disable: fusion rule names. kernel_cache: a directory for NVRTC's kernel
    cache (None: no cache). report: keep the fusion report on the plan.
    kernel_variants: configs each conv/GEMM kernel is compiled with, for
    Session(..., tune=True) to time (1: the chosen one only).
    dims: sizes for named input dimensions other than the batch, e.g.
    {"seq": 128} for a model exported with a dynamic sequence axis (a plan
    has one dynamic dimension, the batch). A list of sizes, {"seq": [64,
    128]}, compiles a shape variant per size (per combination, for several
    names) into the one plan; Session.run picks the one its inputs fit.
    A range, {"seq": (1, 512)} or (min, opt, max), compiles one plan that
    runs every size in it (target="cpu" for now); opt, the size tiles are
    chosen for, defaults to max.
    layout: "auto" (an image network fused both ways, the layout the cost
    model prices faster kept), "nchw" or "nhwc" (images channels-last between
    convolutions and pools, as fusec --layout=nhwc; the model's inputs and
    outputs keep theirs).
    Raises CompileError with every diagnostic.
    """
    options = dict(target=target, precision=precision, io_precision=io_precision,
                   fusion_strategy=fusion_strategy, disable=list(disable),
                   batch_buckets=[int(b) for b in batch_buckets], cost_batch=int(cost_batch),
                   kernel_variants=int(kernel_variants), device_profile=device_profile,
                   kernel_cache=kernel_cache or "",
                   dims={str(name): _sizes(size) for name, size in (dims or {}).items()},
                   layout=str(layout))
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
