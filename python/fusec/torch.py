"""fusec.torch: PyTorch modules in, torch tensors out.

    import torch, torchvision, fusec.torch
    model = torchvision.models.resnet18().eval()
    run = fusec.torch.compile(model, (torch.randn(2, 3, 224, 224),))
    logits = run(torch.randn(8, 3, 224, 224))          # any batch; CPU or CUDA tensors

    encoder = fusec.torch.compile(encoder_module, (torch.randn(2, 77, 256),),
                                  dynamic={"seq": (1, 512)}, dynamic_axes={0: {1: "seq"}})

    compiled = torch.compile(model, backend="fusec")   # FX graphs through fusec, eager where they cannot be

compile() exports the module to ONNX with torch.onnx.export (the
dynamo-based exporter where the installed torch has it, else TorchScript's
at opset 17), compiles it with fusec.compile and caches the plan on disk,
keyed by the exported graph and the options, so a second process with the
same model and options loads it instead of compiling. The first axis of
every input is the batch, which a plan runs at any size up to its largest
batch bucket. Other dimensions are fixed at the example's sizes unless named
in `dynamic`: one plan runs every size of their ranges (fusec --dim
seq=1:512), for the CPU and GPU targets alike (docs/python.md#pytorch).

torch is imported when this module is; `import fusec` never imports it.
"""

import hashlib
import inspect
import json
import os
import re
import tempfile
import threading
import warnings

import numpy
import torch

from . import CompileError, Error, Plan, Session
from . import __version__ as _fusec_version
from . import compile as _compile_model

__all__ = ["FusecFallbackWarning", "CompiledModule", "backend", "compile", "cache_dir"]


class FusecFallbackWarning(UserWarning):
    """A graph that torch.compile(backend="fusec") runs eagerly, and why."""


def cache_dir():
    """Where compiled plans are kept: $FUSEC_CACHE_DIR, else
    $XDG_CACHE_HOME/fusec, else ~/.cache/fusec."""
    root = os.environ.get("FUSEC_CACHE_DIR")
    if not root:
        root = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "fusec")
    return os.path.join(root, "torch")


def _default_target():
    """The GPU torch sees (sm_XY of device 0), else the CPU backend."""
    if torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability(0)
        return "sm_%d%d" % (major, minor)
    return "cpu"


def _tensor_leaves(values, what):
    leaves, spec = torch.utils._pytree.tree_flatten(values)
    for leaf in leaves:
        if not isinstance(leaf, torch.Tensor):
            raise Error("%s holds a %s: fusec.torch takes and returns tensors only" % (what, type(leaf).__name__))
    return leaves, spec


def _export_arguments(example_inputs, dims_by_input):
    """Example inputs for the exporter: a dynamic axis of size 1 is repeated
    to 2, since torch.export specialises sizes 0 and 1."""
    widened = []
    for tensor, axes in zip(example_inputs, dims_by_input):
        for axis in axes:
            if tensor.shape[axis] == 1:
                tensor = torch.cat([tensor, tensor], dim=axis)
        widened.append(tensor)
    return tuple(widened)


def _export(module, example_inputs, dims_by_input, ranges, directory):
    """Writes the module's ONNX export to directory/model.onnx (with its
    external data, if any) and returns the graph's input names."""
    path = os.path.join(directory, "model.onnx")
    arguments = _export_arguments(example_inputs, dims_by_input)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if hasattr(torch.onnx, "ONNXProgram"):
            dimensions = {"batch": torch.export.Dim("batch")}
            for name, (low, high) in ranges.items():
                dimensions[name] = torch.export.Dim(name, min=max(int(low), 1), max=int(high))
            dynamic_shapes = tuple({axis: dimensions[name] for axis, name in axes.items()}
                                   for axes in dims_by_input)
            parameters = list(inspect.signature(module.forward).parameters.values())
            if len(parameters) == 1 and parameters[0].kind == inspect.Parameter.VAR_POSITIONAL:
                dynamic_shapes = (dynamic_shapes,)  # forward(*inputs): one tuple argument to torch.export
            program = torch.onnx.export(module, arguments, dynamo=True, dynamic_shapes=dynamic_shapes,
                                        verbose=False)
            program.save(path)
        else:
            names = ["input_%d" % i for i in range(len(arguments))]
            torch.onnx.export(module, arguments, path, input_names=names, opset_version=17,
                              dynamic_axes={names[i]: dict(axes) for i, axes in enumerate(dims_by_input)})
    import onnx  # the exporter's own dependency

    model = onnx.load(path, load_external_data=False)
    initializers = {initializer.name for initializer in model.graph.initializer}
    return [value.name for value in model.graph.input if value.name not in initializers]


def _graph_digest(directory):
    """SHA-256 of the exported files (the model and any external data)."""
    digest = hashlib.sha256()
    for name in sorted(os.listdir(directory)):
        digest.update(name.encode() + b"\0")
        with open(os.path.join(directory, name), "rb") as file:
            for block in iter(lambda: file.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


class CompiledModule:
    """A module compiled by fusec: call it with tensors shaped like the
    example inputs (any batch; named dynamic dimensions anywhere in their
    range), on the CPU or on the CUDA device the plan was compiled for. It
    returns what the module returns (a tensor, or the same tuple/list/dict
    structure), as torch tensors on the inputs' device.

    `plans` maps () to its Plan: with named dimensions, the one plan that
    runs every size of their ranges."""

    def __init__(self, label, directory, input_names, output_spec, output_count, dims_by_input, ranges, options,
                 cache, digest):
        #: What diagnostics call the exported module: "<ResNet export>".
        self.label = label
        self._directory = directory
        self.input_names = input_names
        self._output_spec = output_spec
        self._output_count = output_count
        self._dims_by_input = dims_by_input
        self.dimensions = sorted(ranges)
        self.ranges = dict(ranges)
        self._options = options
        self._cache = cache
        self._digest = digest
        self.plans = {}
        self._sessions = {}
        self._lock = threading.Lock()

    def _plan(self):
        """The one plan: with named dimensions, compiled over their ranges
        (fusec --dim seq=MIN:MAX), which every size of them runs."""
        plan = self.plans.get(())
        if plan is not None:
            return plan
        dims = {name: tuple(self.ranges[name]) for name in self.dimensions}
        key = hashlib.sha256(json.dumps([self._digest, self._options, dims, _fusec_version],
                                        sort_keys=True).encode()).hexdigest()[:32]
        cached = os.path.join(self._cache, key + ".plan") if self._cache else None
        if cached and os.path.exists(cached):
            try:
                plan = Plan.load(cached)
            except Error:
                plan = None  # a damaged or older file: compile again
        if plan is None:
            path = os.path.join(self._directory.name, "model.onnx")
            try:
                plan = _compile_model(path, dims=dims or None, report=False, **self._options)
            except CompileError as error:
                # Diagnostics name the module, not the temporary export.
                raise CompileError(str(error).replace(path, self.label)) from None
            if cached:
                os.makedirs(self._cache, exist_ok=True)
                plan.save(cached)
        if len(plan.outputs) != self._output_count:
            # An export that merged or dropped outputs (one returned twice,
            # an input returned as it is) cannot be unflattened faithfully.
            raise Error("%s has %d outputs, the module returns %d tensors" % (self.label, len(plan.outputs),
                                                                                self._output_count))
        self.plans[()] = plan
        return plan

    def _session(self, device):
        with self._lock:
            session = self._sessions.get(device)
            if session is None:
                session = Session(self._plan(), device=device)
                self._sessions[device] = session
        return session

    def _sizes(self, inputs):
        sizes = {}
        for tensor, axes in zip(inputs, self._dims_by_input):
            for axis, name in axes.items():
                if name == "batch":
                    continue
                size = int(tensor.shape[axis])
                if sizes.setdefault(name, size) != size:
                    raise Error("dimension '%s' is %d in one input and %d in another" % (name, sizes[name], size))
        for name, size in sizes.items():
            low, high = self.ranges[name]
            if not low <= size <= high:
                raise Error("dimension '%s' is %d, outside the range %d:%d it was compiled for" % (name, size, low,
                                                                                                   high))
        return tuple(sizes[name] for name in self.dimensions)

    def __call__(self, *args):
        inputs, _ = _tensor_leaves(args, "the arguments")
        if len(inputs) != len(self.input_names):
            raise Error("the module takes %d tensors, got %d" % (len(self.input_names), len(inputs)))
        inputs = [tensor.detach().contiguous() for tensor in inputs]
        on_cuda = inputs[0].is_cuda if inputs else False
        if any(tensor.is_cuda != on_cuda for tensor in inputs):
            raise Error("the inputs are on different devices: give them all on the CPU or all on one GPU")
        dims = dict(zip(self.dimensions, self._sizes(inputs)))
        session = self._session("cuda" if on_cuda else "cpu")
        named = dict(zip(self.input_names, inputs))
        if on_cuda:
            # The plan at these sizes gives the outputs' shapes.
            plan = session.plan.variant(dims) if dims else session.plan
            batch = int(inputs[0].shape[0]) if inputs and inputs[0].dim() else 1
            outputs = {}
            for tensor in plan.outputs:
                shape = [batch if extent is None else extent for extent in tensor["shape"]]
                dtype = getattr(torch, tensor["numpy_dtype"]) if tensor["dtype"] != "bf16" else torch.bfloat16
                outputs[tensor["name"]] = torch.empty(shape, dtype=dtype, device=inputs[0].device)
            session.run_device(named, outputs, stream=torch.cuda.current_stream(inputs[0].device), dims=dims or None)
            results = [outputs[tensor["name"]] for tensor in plan.outputs]
        else:
            produced = session.run(named)
            results = [torch.from_dlpack(numpy.ascontiguousarray(produced[tensor["name"]]))
                       for tensor in session.plan.outputs]
        return torch.utils._pytree.tree_unflatten(results, self._output_spec)


def _dims_by_input(example_inputs, dynamic, dynamic_axes, batch):
    """[{axis: name}] per input: axis 0 is "batch" where `batch`, plus the
    axes dynamic_axes names (keyed by input index)."""
    dims_by_input = []
    for index, tensor in enumerate(example_inputs):
        axes = {0: "batch"} if batch and tensor.dim() > 0 else {}
        for axis, name in (dynamic_axes or {}).get(index, {}).items():
            axis = int(axis) % max(tensor.dim(), 1)
            if name not in dynamic:
                raise Error("dynamic_axes names '%s' (input %d, axis %d), which dynamic gives no range" %
                            (name, index, axis))
            axes[axis] = str(name)
        dims_by_input.append(axes)
    named = {name for axes in dims_by_input for name in axes.values()}
    for name in dynamic:
        if name not in named:
            raise Error("dynamic names '%s', but no input axis is named '%s': say which with "
                        "dynamic_axes={input_index: {axis: '%s'}}" % (name, name, name))
    return dims_by_input


def compile(module, example_inputs, dynamic=None, dynamic_axes=None, precision="fp32", target=None,
            batch=True, cache=True, **options):
    """Compiles `module` for inputs like `example_inputs` (a tensor or a
    tuple of them) and returns a CompiledModule.

    dynamic: {name: (min, max)} for named dimensions other than the batch,
    with dynamic_axes={input_index: {axis: name}} saying where they are.
    precision: "fp32", "tf32", "fp16" or "bf16" (fusec.compile's).
    target: "cpu", "sm_90", ...; None picks the GPU torch sees, else "cpu".
    batch: False when the first axes are not a batch (the plan then runs
    at the example's sizes only). cache: keep plans on disk (cache_dir()).
    options: the rest of fusec.compile's arguments (fusion_strategy,
    layout, batch_buckets, ...).
    """
    if not isinstance(example_inputs, (tuple, list)):
        example_inputs = (example_inputs,)
    inputs, _ = _tensor_leaves(tuple(example_inputs), "example_inputs")
    inputs = [tensor.detach() for tensor in inputs]
    ranges = {str(name): (int(low), int(high)) for name, (low, high) in dict(dynamic or {}).items()}
    for name, (low, high) in ranges.items():
        if name == "batch":
            raise Error("the batch is always dynamic: name it in batch_buckets, not in dynamic")
        if not 1 <= low <= high:
            raise Error("dynamic['%s'] = (%d, %d) is not a range of sizes" % (name, low, high))
    dims_by_input = _dims_by_input(inputs, ranges, dynamic_axes, batch)
    if hasattr(module, "eval"):
        module = module.eval()
    with torch.no_grad():
        output_leaves, output_spec = _tensor_leaves(module(*inputs), "the module's output")
    directory = tempfile.TemporaryDirectory(prefix="fusec-torch-")
    try:
        with torch.no_grad():
            input_names = _export(module, inputs, dims_by_input, ranges, directory.name)
        options = dict(options, precision=precision, target=target or _default_target())
        label = "<%s export>" % getattr(module, "_fusec_label", type(module).__name__)
        compiled = CompiledModule(label, directory, input_names, output_spec, len(output_leaves), dims_by_input,
                                  ranges, options, cache_dir() if cache else None, _graph_digest(directory.name))
        # The example's own sizes compile now, so errors surface here.
        compiled._sizes(inputs)
        compiled._plan()
    except BaseException:
        directory.cleanup()
        raise
    return compiled


# --- torch.compile(backend="fusec") -------------------------------------------------

_fallbacks = set()


def _reason(error):
    """One line saying why: the exporter's exception summary where it wrote
    one, else the error's first line, without terminal colours."""
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line).strip() for line in str(error).splitlines()]
    lines = [line for line in lines if line]
    if "## Exception summary" in lines[:-1]:
        return lines[lines.index("## Exception summary") + 1]
    return lines[0] if lines else type(error).__name__


def _fall_back(graph, error):
    """Warns once per graph that it runs eagerly, with a one-line reason."""
    line = _reason(error)
    key = (id(graph), line)
    if key not in _fallbacks:
        _fallbacks.add(key)
        warnings.warn("fusec: a graph of %d nodes runs eagerly: %s" % (len(graph.graph.nodes), line),
                      FusecFallbackWarning, stacklevel=3)
    return graph.forward


class _GraphWithConstants(torch.nn.Module):
    """A dynamo graph whose parameter and buffer inputs are constants of
    the export (weights in the plan), leaving the activations as inputs."""

    #: What diagnostics call it (CompiledModule.label).
    _fusec_label = "torch.compile graph"

    def __init__(self, graph, example_inputs, constant_positions):
        super().__init__()
        self.graph_module = graph
        self._positions = list(constant_positions)
        self._count = len(example_inputs)
        for slot, position in enumerate(self._positions):
            self.register_buffer("constant_%d" % slot, example_inputs[position].detach())

    def forward(self, *activations):
        values = list(activations)
        arguments = []
        for position in range(self._count):
            if position in self._positions:
                arguments.append(getattr(self, "constant_%d" % self._positions.index(position)))
            else:
                arguments.append(values.pop(0))
        return self.graph_module(*arguments)


def _is_constant(tensor):
    """Parameters and buffers dynamo lifted into the graph's inputs."""
    return isinstance(tensor, torch.nn.Parameter) or hasattr(tensor, "_dynamo_static_input_type")


#: The native ops of PyTorch's transformer fast path (nn.TransformerEncoderLayer
#: and nn.MultiheadAttention in eval mode without gradients): one opaque op per
#: layer, which neither torch.export nor ONNX can take apart.
_FUSED_TRANSFORMER_OPS = ("_transformer_encoder_layer_fwd", "_native_multi_head_attention")


def backend(graph, example_inputs, **options):
    """The torch.compile backend "fusec": compiles each FX graph dynamo hands
    it (weights as constants, the first axis of each activation the batch),
    or, where fusec cannot, runs it eagerly after one FusecFallbackWarning
    that says why. `options` (torch.compile(..., options={...})) are
    compile()'s: precision, target, fusion_strategy, ...

    The graph is exported and compiled at its first call rather than here:
    torch.export cannot run inside dynamo's own compilation of the frame."""
    options = dict(options.get("options") or {}, **{k: v for k, v in options.items() if k != "options"})
    if not all(isinstance(value, torch.Tensor) for value in example_inputs):
        return _fall_back(graph, Error("the graph takes symbolic sizes (torch.compile's dynamic shapes): compile "
                                       "with dynamic=False, or use fusec.torch.compile with dynamic="))
    called = {getattr(node.target, "__name__", str(node.target)) for node in graph.graph.nodes
              if node.op == "call_function"}
    fused = sorted(name for name in called if any(op in name for op in _FUSED_TRANSFORMER_OPS))
    if fused:
        return _fall_back(graph, Error("PyTorch's fused transformer fast path (%s) has no ONNX form: call "
                                       "torch.backends.mha.set_fastpath_enabled(False) before the first call, or "
                                       "use fusec.torch.compile" % ", ".join(fused)))
    constants = [i for i, value in enumerate(example_inputs) if _is_constant(value)]
    state = {}

    @torch._dynamo.disable
    def run(*arguments):
        if "call" not in state:
            activations = [value for i, value in enumerate(arguments) if i not in constants]
            try:
                if not activations:
                    raise Error("the graph has no inputs but its weights")
                compiled = compile(_GraphWithConstants(graph, arguments, constants), tuple(activations), **options)
                state["call"] = lambda *values: compiled(*[v for i, v in enumerate(values) if i not in constants])
            except Exception as error:  # noqa: BLE001 - any failure means: run this graph eagerly
                state["call"] = _fall_back(graph, error)
        return state["call"](*arguments)

    return run


def _register_backend():
    """Names the backend for torch.compile in this process (an installed
    package also declares it as a torch_dynamo_backends entry point)."""
    try:
        from torch._dynamo import list_backends, register_backend
    except ImportError:  # a torch without dynamo
        return
    if "fusec" not in list_backends(exclude_tags=()):
        register_backend(name="fusec")(backend)


_register_backend()
