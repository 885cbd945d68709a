"""fusec.serve: a plan served over HTTP and Ray Serve handles, at scale.

    fusec-serve model.plan --replicas 2 --port 8000          # the command
    curl -d '{"inputs": {"input": [[...]]}}' http://127.0.0.1:8000/

    from ray import serve
    import fusec.serve
    handle = serve.run(fusec.serve.app("model.plan", device="cuda", replicas=4))
    outputs = handle.remote({"input": x}).result()       # {name: numpy array}

Each replica loads the plan once and runs it on one device (a GPU:
num_gpus=1, or a CPU). Concurrent requests are validated one by one, then
batched (@serve.batch) along the batch axis up to the plan's largest batch
bucket, run once and split back. Ray is imported only here, and only when a
deployment is made: `import fusec` never needs it. docs/serving.md has the
request formats, the error codes and the metrics.
"""

import argparse
import asyncio
import collections
import collections.abc
import concurrent.futures
import glob
import io
import json
import os
import sys
import time

import numpy

from . import Error, Plan, Session

__all__ = ["NPY_CONTENT_TYPE", "PlanReplica", "RequestError", "app", "build_app", "main"]

#: The Content-Type of an .npy body (numpy.save's bytes), in and out.
NPY_CONTENT_TYPE = "application/x-npy"

#: Latency histograms' bucket bounds, in milliseconds.
_LATENCY_BOUNDS_MS = [0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]

#: How many recent request latencies a replica keeps for stats()' percentiles.
_RECENT_LATENCIES = 2048

# The dtype kinds a JSON number may arrive as, per the plan's numpy dtype
# kind: integers are floats' exact subset, but a float or bool is never an
# integer, and only true/false are bools.
_JSON_KINDS = {"f": "iuf", "i": "iu", "u": "iu", "b": "b"}
_KIND_NAMES = {"b": "booleans", "i": "integers", "u": "integers", "f": "floating-point numbers"}


class RequestError(ValueError):
    """A request the plan cannot run, found before it joins a batch.

    `status` is its HTTP status: 400 for a body that is not a request
    (not JSON, not an .npy file, not a tensor), 422 for tensors that do not
    fit the plan (an unknown or missing input, a wrong shape or dtype), 413
    for a batch above the most the replica can run.
    Through a deployment handle it is raised to the caller.
    """

    def __init__(self, message, status=422):
        super().__init__(message)
        self.status = status

    def __reduce__(self):
        # Pickled across Ray's processes with its status.
        return (RequestError, (str(self), self.status))


def _import_ray_serve():
    """Ray Serve, or an ImportError saying how to get it."""
    try:
        import ray
        from ray import serve
    except ImportError as error:
        raise ImportError("fusec.serve needs Ray Serve, which is not installed: pip install 'fusec[serve]' "
                          "(" + str(error) + ")") from None
    return ray, serve


# ---------------------------------------------------------------------------
# What a plan takes: the validation a request passes before it is batched.

def _shape_text(shape):
    """(None, 8, 32) -> "(batch, 8, 32)"."""
    return "(" + ", ".join("batch" if d is None else str(d) for d in shape) + (",)" if len(shape) == 1 else ")")


class _ValidRequest:
    """A request that fits the plan: its arrays, C-contiguous in the plan's
    dtypes, its batch rows and the shape variant it runs (requests batch
    together only with requests of the same variant)."""

    __slots__ = ("arrays", "rows", "variant")

    def __init__(self, arrays, rows, variant):
        self.arrays = arrays
        self.rows = rows
        self.variant = variant


class PlanSignature:
    """The inputs and outputs of a plan (of each of its shape variants) and
    whether its requests can be concatenated along a batch axis."""

    def __init__(self, plan):
        self.inputs = plan.inputs
        self.outputs = plan.outputs
        self.input_names = [tensor["name"] for tensor in self.inputs]
        self.dtypes = {tensor["name"]: numpy.dtype(tensor["numpy_dtype"]) for tensor in self.inputs}
        # One {name: shape} per shape variant, the plan's own first.
        self.variant_shapes = []
        for dims in plan.shape_variants:
            variant = plan.variant(dims) if dims and dims != plan.dims else plan
            self.variant_shapes.append({tensor["name"]: tuple(tensor["shape"]) for tensor in variant.inputs})
        # Batching concatenates every input and splits every output along
        # axis 0: only plans whose tensors all lead with the batch can.
        self.batched = all(tensor["shape"] and tensor["shape"][0] is None
                           for tensor in list(self.inputs) + list(self.outputs))

    def expected(self, name):
        """"float32, shape (batch, 8, 32)": what input `name` must be."""
        shapes = sorted({_shape_text(shapes[name]) for shapes in self.variant_shapes})
        return "%s, shape %s" % (self.dtypes[name].name, " or ".join(shapes))

    def names_text(self):
        return ", ".join("'%s'" % name for name in self.input_names)

    def validate(self, inputs, strict_dtypes):
        """Checks a request's inputs against the plan: a _ValidRequest, or a
        RequestError naming the input and what was expected.

        inputs: {name: tensor}. A numpy array must have its input's dtype
        exactly when strict_dtypes (handles and .npy bodies: arrays are never
        converted, as Session.run); other values (JSON's nested lists) are
        converted when no value changes (an integer into a float input).
        """
        if not isinstance(inputs, collections.abc.Mapping):
            raise RequestError("the inputs must map input names to tensors (the plan takes %s), got %s"
                               % (self.names_text(), type(inputs).__name__), 400)
        for name in inputs:
            if name not in self.dtypes:
                raise RequestError("unknown input '%s': the plan's inputs are %s" % (name, self.names_text()))
        arrays = {}
        for name in self.input_names:
            if name not in inputs:
                raise RequestError("input '%s' is missing: the plan takes it as %s" % (name, self.expected(name)))
            arrays[name] = self._array(name, inputs[name], strict_dtypes)
        variant = self._variant(arrays)
        rows = self._rows(arrays)
        return _ValidRequest(arrays, rows, variant)

    def _array(self, name, value, strict_dtypes):
        want = self.dtypes[name]
        if isinstance(value, numpy.ndarray) and strict_dtypes:
            if value.dtype != want:
                raise RequestError("input '%s' is %s, the plan takes %s: send numpy.%s (arrays are not converted)"
                                   % (name, value.dtype.name, self.expected(name), want.name))
            return numpy.ascontiguousarray(value)
        try:
            array = numpy.asarray(value)
        except (ValueError, TypeError):
            # numpy refuses ragged nested lists.
            raise RequestError("input '%s' is not a tensor: its nested lists have unequal lengths; the plan takes %s"
                               % (name, self.expected(name)), 400) from None
        if array.dtype.kind not in "biuf":
            raise RequestError("input '%s' is not a tensor of numbers (got %s), the plan takes %s"
                               % (name, _describe_value(value, array), self.expected(name)), 400)
        if array.dtype.kind not in _JSON_KINDS[want.kind]:
            raise RequestError("input '%s' holds %s, the plan takes %s"
                               % (name, _KIND_NAMES[array.dtype.kind], self.expected(name)))
        return numpy.ascontiguousarray(array, dtype=want)

    def _variant(self, arrays):
        """The index of the shape variant whose shapes the arrays have."""
        for index, shapes in enumerate(self.variant_shapes):
            if all(_fits(arrays[name].shape, shapes[name]) for name in arrays):
                return index
        for name, array in arrays.items():
            if not any(_fits(array.shape, shapes[name]) for shapes in self.variant_shapes):
                raise RequestError("input '%s' has shape %s, the plan takes %s"
                                   % (name, tuple(array.shape), self.expected(name)))
        given = ", ".join("'%s' %s" % (name, tuple(array.shape)) for name, array in arrays.items())
        raise RequestError("the inputs' shapes (%s) are not one shape variant of the plan: %s"
                           % (given, "; ".join(", ".join("'%s' %s" % (n, _shape_text(s)) for n, s in shapes.items())
                                               for shapes in self.variant_shapes)))

    def _rows(self, arrays):
        """The request's batch: the leading extent its batched inputs share."""
        rows = None
        for tensor in self.inputs:
            if not tensor["shape"] or tensor["shape"][0] is not None:
                continue
            extent = arrays[tensor["name"]].shape[0]
            if extent == 0:
                raise RequestError("input '%s' has a batch of 0 rows: send at least one" % tensor["name"])
            if rows is not None and extent != rows:
                raise RequestError("input '%s' has a batch of %d rows, the other inputs %d: every input's first "
                                   "dimension is the one batch" % (tensor["name"], extent, rows))
            rows = extent
        return 1 if rows is None else rows


def _fits(shape, want):
    return len(shape) == len(want) and all(d is None or d == s for s, d in zip(shape, want))


def _describe_value(value, array):
    if isinstance(value, str):
        return "a string"
    if isinstance(value, collections.abc.Mapping):
        return "an object"
    return "elements of type " + array.dtype.name


# ---------------------------------------------------------------------------
# Request bodies and answers over HTTP.

def _parse_json_body(body):
    """{"inputs": {name: nested lists}} -> the inputs, or a 400."""
    try:
        document = json.loads(body)
    except (ValueError, UnicodeDecodeError) as error:
        raise RequestError('the body is not JSON (%s): send {"inputs": {name: nested lists}}, or an .npy file with '
                           'Content-Type: %s' % (error, NPY_CONTENT_TYPE), 400) from None
    if not isinstance(document, dict) or not isinstance(document.get("inputs"), dict):
        raise RequestError('the body must be a JSON object {"inputs": {name: nested lists}}', 400)
    return document["inputs"]


def _parse_npy_body(body, signature):
    """An .npy body -> the single input's array, or a 400/422."""
    if len(signature.input_names) != 1:
        raise RequestError("an .npy body carries one tensor, the plan takes %d inputs (%s): send JSON"
                           % (len(signature.input_names), signature.names_text()))
    try:
        array = numpy.load(io.BytesIO(body), allow_pickle=False)
    except Exception as error:  # numpy raises ValueError, EOFError, OSError... for a body that is no .npy
        raise RequestError("the body is not an .npy file (%s): send numpy.save's bytes of input '%s', %s"
                           % (str(error) or type(error).__name__, signature.input_names[0],
                              signature.expected(signature.input_names[0])), 400) from None
    if not isinstance(array, numpy.ndarray):
        raise RequestError("the .npy body holds no array", 400)
    return {signature.input_names[0]: array}


def _media_type(headers, name):
    return headers.get(name, "").split(";")[0].strip().lower()


def _wants_npy_answer(headers, signature):
    """An .npy request gets an .npy answer where the plan has one output,
    unless its Accept header asks for JSON."""
    return len(signature.outputs) == 1 and "application/json" not in headers.get("accept", "").lower()


def _json_response(document, status=200):
    from starlette.responses import Response

    return Response(json.dumps(document), status_code=status, media_type="application/json")


def _npy_response(array):
    from starlette.responses import Response

    buffer = io.BytesIO()
    numpy.save(buffer, array, allow_pickle=False)
    return Response(buffer.getvalue(), media_type=NPY_CONTENT_TYPE)


def _outputs_document(outputs):
    return {"outputs": {name: array.tolist() for name, array in outputs.items()}}


# ---------------------------------------------------------------------------
# The replica.

class _ReplicaMetrics:
    """The replica's metrics, exported by Ray's metrics agent (Prometheus)
    with the deployment, replica and application tags Serve adds, and kept
    here for stats()."""

    def __init__(self, buckets, device):
        from ray.serve import metrics

        self.device = device
        bounds = sorted(set(float(b) for b in buckets))
        self.requests = metrics.Counter("fusec_requests", "Requests answered, by outcome: ok, rejected (4xx: "
                                        "the request does not fit the plan), failed (the run failed)",
                                        tag_keys=("outcome",))
        self.queue_length = metrics.Gauge("fusec_queue_length", "Requests in this replica not yet answered: "
                                          "validated and waiting for a batch, or in the one running")
        self.batch_rows = metrics.Histogram("fusec_batch_rows", "Batch rows per plan run (the plan's buckets)",
                                            boundaries=bounds)
        self.batch_requests = metrics.Histogram("fusec_batch_requests", "Requests per plan run",
                                                boundaries=bounds)
        self.request_latency = metrics.Histogram("fusec_request_latency_ms", "From a request's arrival at the "
                                                 "replica to its answer, in milliseconds",
                                                 boundaries=_LATENCY_BOUNDS_MS)
        self.run_latency = metrics.Histogram("fusec_run_latency_ms", "One plan run (a batch), in milliseconds",
                                             boundaries=_LATENCY_BOUNDS_MS)
        self.outcomes = collections.Counter()
        self.rows_per_run = collections.Counter()
        self.requests_per_run = collections.Counter()
        self.waiting = 0
        self.recent_latencies_ms = collections.deque(maxlen=_RECENT_LATENCIES)

    def enqueued(self, count=1):
        self.waiting += count
        self.queue_length.set(self.waiting)

    def answered(self, outcome, started):
        milliseconds = (time.perf_counter() - started) * 1000.0
        self.outcomes[outcome] += 1
        self.requests.inc(1, tags={"outcome": outcome})
        if outcome == "ok":
            self.recent_latencies_ms.append(milliseconds)
            self.request_latency.observe(milliseconds)

    def ran(self, rows, requests, milliseconds):
        self.rows_per_run[rows] += 1
        self.requests_per_run[requests] += 1
        self.batch_rows.observe(rows)
        self.batch_requests.observe(requests)
        self.run_latency.observe(milliseconds)

    def snapshot(self):
        latencies = sorted(self.recent_latencies_ms)

        def percentile(fraction):
            return latencies[min(len(latencies) - 1, int(fraction * len(latencies)))] if latencies else None

        return {"device": self.device, "requests": dict(self.outcomes), "queue_length": self.waiting,
                "runs": sum(self.rows_per_run.values()), "rows_per_run": dict(self.rows_per_run),
                "requests_per_run": dict(self.requests_per_run),
                "latency_ms": {"p50": percentile(0.50), "p99": percentile(0.99), "of_last": len(latencies)}}


def _load_plan(source):
    """A Plan from a path or the plan's bytes."""
    if isinstance(source, Plan):
        return source
    if isinstance(source, (bytes, bytearray, memoryview)):
        return Plan.from_bytes(source, "<served plan>")
    return Plan.load(source)


def _split_rows(outputs, rows):
    """One run's outputs split back into each request's rows."""
    offsets = numpy.cumsum(rows)[:-1]
    pieces = {name: numpy.split(array, offsets) for name, array in outputs.items()}
    return [{name: pieces[name][index] for name in outputs} for index in range(len(rows))]


class PlanReplica:
    """One Serve replica of a plan: loads it once, runs it on one device.

    Serve makes it a deployment (app() does); `__call__` answers HTTP
    requests (a starlette Request) and handle calls ({name: array}).
    """

    def __init__(self, plan, device="cpu", max_batch=None, batch_wait_s=0.005):
        """plan: a path (readable on every node) or the plan's bytes.
        device: "cpu" or "cuda" (app() resolves "auto"); a GPU replica holds
        one GPU (num_gpus=1), which Ray makes its device 0.
        max_batch: the most batch rows one run takes (None: the plan's
        largest batch bucket). batch_wait_s: how long a batch waits to fill.
        """
        _, serve = _import_ray_serve()
        self.plan = _load_plan(plan)
        self.session = Session(self.plan, device)
        self.signature = PlanSignature(self.plan)
        self.buckets = sorted(set(self.plan.describe()["batch_buckets"])) or [1, 2, 4, 8, 16]
        self.max_batch = int(max_batch) if max_batch else self.buckets[-1]
        if self.max_batch < 1:
            raise ValueError("max_batch must be at least 1, got %d" % self.max_batch)
        # One run at a time on the device; the event loop keeps accepting
        # (and validating) requests while a batch runs.
        self.runner = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="fusec-run")
        self.metrics = _ReplicaMetrics(self.buckets, self.session.device)
        # Batched per replica (serve.batch on the bound method): max_batch is
        # the plan's, known only once it is loaded. Batches are counted in
        # rows, so a request of 3 rows takes 3 of a bucket's.
        self._batched_run = serve.batch(max_batch_size=self.max_batch, batch_wait_timeout_s=float(batch_wait_s),
                                        batch_size_fn=lambda requests: sum(r.rows for r in requests))(self._run_batch)
        try:
            self.replica = serve.get_replica_context().replica_tag
        except Exception:  # outside a Serve replica (a unit test of the class itself)
            self.replica = None

    # -- answering -----------------------------------------------------------

    async def __call__(self, request):
        """An HTTP request (a starlette Request) -> a Response; a handle call
        ({name: numpy array}) -> {name: numpy array}, or RequestError."""
        from starlette.requests import Request

        # Checked first: a starlette Request is a Mapping too (of its scope).
        if isinstance(request, Request):
            return await self._answer_http(request)
        return await self.infer(request)

    async def infer(self, inputs, strict_dtypes=True):
        """Validates `inputs`, runs them in a batch, returns this request's
        outputs: {name: numpy array}."""
        started = time.perf_counter()
        try:
            request = self.signature.validate(inputs, strict_dtypes)
        except RequestError:
            self.metrics.answered("rejected", started)
            raise
        if request.rows > self.session.max_batch:
            self.metrics.answered("rejected", started)
            raise RequestError("the request has a batch of %d rows, above the largest this replica runs (%d): "
                               "split it" % (request.rows, self.session.max_batch), 413)
        # Counted until answered: waiting for a batch, or in the one running.
        self.metrics.enqueued(1)
        try:
            if not self.signature.batched or request.rows > self.max_batch:
                # Runs alone: larger than a batch, or a plan whose tensors
                # cannot be concatenated.
                outputs = (await self._run([request]))[0]
            else:
                outputs = await self._batched_run(request)
            if isinstance(outputs, Exception):
                raise outputs
        except Exception:
            self.metrics.answered("failed", started)
            raise
        finally:
            self.metrics.enqueued(-1)
        self.metrics.answered("ok", started)
        return outputs

    async def _run_batch(self, requests):
        """serve.batch's handler: the requests of one batch (rows within
        max_batch) -> each one's outputs, or the error of its run. Requests
        of different shape variants run separately."""
        results = [None] * len(requests)
        by_variant = collections.defaultdict(list)
        for index, request in enumerate(requests):
            by_variant[request.variant].append(index)
        for indices in by_variant.values():
            for index, output in zip(indices, await self._run_isolating_failures([requests[i] for i in indices])):
                results[index] = output
        return results

    async def _run_isolating_failures(self, requests):
        """Each request's outputs, or the error its run raised. Where a batch
        fails, each of its requests runs alone: a request the checks let
        through but the plan refuses fails alone, not its batch."""
        try:
            return await self._run(requests)
        except Exception as error:
            if len(requests) == 1:
                return [error]
        results = []
        for request in requests:
            try:
                results.extend(await self._run([request]))
            except Exception as error:
                results.append(error)
        return results

    async def _run(self, requests):
        """Concatenates the requests along the batch axis (nothing padded),
        runs the plan once, splits the outputs back."""
        rows = [request.rows for request in requests]
        if len(requests) == 1:
            inputs = requests[0].arrays
        else:
            inputs = {name: numpy.concatenate([r.arrays[name] for r in requests]) for name in requests[0].arrays}
        started = time.perf_counter()
        loop = asyncio.get_running_loop()
        outputs = await loop.run_in_executor(self.runner, self.session.run, inputs)
        self.metrics.ran(sum(rows), len(requests), (time.perf_counter() - started) * 1000.0)
        if len(requests) == 1:
            return [outputs]
        return _split_rows(outputs, rows)

    async def _answer_http(self, request):
        if request.method == "GET":
            return _json_response(self.describe())
        if request.method != "POST":
            return _json_response({"error": "send POST with a request body, or GET for the plan's description"}, 405)
        headers = request.headers
        started = time.perf_counter()
        try:
            body = await request.body()
            if _media_type(headers, "content-type") == NPY_CONTENT_TYPE:
                inputs, strict, npy_answer = _parse_npy_body(body, self.signature), True, True
            else:
                inputs, strict, npy_answer = _parse_json_body(body), False, False
        except RequestError as error:
            self.metrics.answered("rejected", started)
            return _json_response({"error": str(error)}, error.status)
        try:
            outputs = await self.infer(inputs, strict_dtypes=strict)
        except RequestError as error:
            return _json_response({"error": str(error)}, error.status)
        except Error as error:
            return _json_response({"error": "the plan's run failed: " + str(error)}, 500)
        if npy_answer and _wants_npy_answer(headers, self.signature):
            return _npy_response(next(iter(outputs.values())))
        return _json_response(_outputs_document(outputs))

    # -- describing ----------------------------------------------------------

    def describe(self):
        """The plan's inputs and outputs, its buckets, and this replica's
        device, batching and stats: what GET / answers."""
        return {"inputs": _json_tensors(self.signature.inputs), "outputs": _json_tensors(self.signature.outputs),
                "batch_buckets": self.buckets, "max_batch": self.max_batch, "batched": self.signature.batched,
                "device": self.session.device, "replica": self.replica, "stats": self.stats()}

    def stats(self):
        """This replica's counts since it started: requests by outcome,
        rows and requests per run, queue length, recent latency p50/p99."""
        snapshot = self.metrics.snapshot()
        snapshot["replica"] = self.replica
        return snapshot


def _json_tensors(tensors):
    return [{"name": t["name"], "dtype": t["numpy_dtype"], "shape": ["batch" if d is None else d for d in t["shape"]]}
            for t in tensors]


# ---------------------------------------------------------------------------
# Applications: the Python API, `serve run` and the command.

def _plan_has_gpu_kernels(plan):
    return plan.describe()["target"] != "cpu"


def _gpu_available(ray):
    """Whether replicas can hold a GPU: the cluster's resources once Ray is
    connected; before (serve run builds the app first), this machine's."""
    if ray.is_initialized():
        return ray.cluster_resources().get("GPU", 0) >= 1
    return bool(glob.glob("/dev/nvidia[0-9]*"))


def _resolve_device(device, plan, ray):
    if device not in ("auto", "cpu", "cuda"):
        raise ValueError("device must be 'auto', 'cpu' or 'cuda', got %r" % (device,))
    if device == "auto":
        return "cuda" if _plan_has_gpu_kernels(plan) and _gpu_available(ray) else "cpu"
    if device == "cuda" and not _plan_has_gpu_kernels(plan):
        raise ValueError("device 'cuda': the plan was compiled for the CPU (target 'cpu'); compile it for a GPU "
                         "(target='sm_90', ...) or serve it with device='cpu'")
    return device


def app(plan_path, device="auto", replicas=1, max_batch=None, batch_wait_s=0.005, name="fusec",
        ray_actor_options=None):
    """A Serve application of the plan, bound and ready for serve.run() or
    a `serve run` config (build_app).

    plan_path: the plan's path (made absolute; every node must read it at
    that path) or its bytes (a Plan is taken as its bytes).
    device: "cuda" (each replica holds one GPU), "cpu" (one CPU core), or
    "auto": cuda where the plan has GPU kernels and the cluster (before Ray
    is connected, this machine) has a GPU, else cpu.
    replicas: how many replicas. max_batch: the most batch rows one run
    takes (None: the plan's largest bucket). batch_wait_s: how long a batch
    waits to fill before it runs. name: the deployment's name.
    ray_actor_options: more of Ray's actor options (runtime_env, resources,
    num_cpus), over the device's.
    """
    ray, serve = _import_ray_serve()
    if isinstance(plan_path, Plan):
        plan_path = plan_path.to_bytes()
    if isinstance(plan_path, (bytes, bytearray, memoryview)):
        source = bytes(plan_path)
    else:
        source = os.path.abspath(os.fspath(plan_path))
    # Read here once to resolve "auto" and find the buckets (and to fail
    # before anything is deployed where the plan is unreadable).
    plan = _load_plan(source)
    device = _resolve_device(device, plan, ray)
    buckets = sorted(set(plan.describe()["batch_buckets"])) or [1, 2, 4, 8, 16]
    batch_rows = int(max_batch) if max_batch else buckets[-1]
    actor_options = {"num_cpus": 1, "num_gpus": 1} if device == "cuda" else {"num_cpus": 1}
    actor_options.update(ray_actor_options or {})
    deployment = serve.deployment(PlanReplica).options(
        name=name, num_replicas=int(replicas), ray_actor_options=actor_options,
        # Room for a full batch waiting while another runs: Serve's default
        # (5) would cap every batch at 5 requests.
        max_ongoing_requests=max(2 * batch_rows, 8))
    return deployment.bind(source, device, max_batch, batch_wait_s)


def build_app(args):
    """The application builder for `serve run` and Serve configs
    (import_path: fusec.serve:build_app): args are app()'s, with `plan` for
    plan_path; command-line values arrive as strings."""
    args = dict(args)
    plan = args.pop("plan", None) or args.pop("plan_path", None)
    if plan is None:
        raise ValueError("build_app needs the plan: args {plan: /path/to/model.plan}")
    conversions = {"replicas": int, "max_batch": int, "batch_wait_s": float, "device": str, "name": str}
    unknown = set(args) - set(conversions) - {"ray_actor_options"}
    if unknown:
        raise ValueError("build_app: unknown arguments %s; it takes plan, %s"
                         % (sorted(unknown), ", ".join(sorted(conversions))))
    options = {key: conversions[key](value) if key in conversions and value is not None else value
               for key, value in args.items()}
    return app(plan, **options)


def _parse_arguments(argv):
    parser = argparse.ArgumentParser(prog="fusec-serve", description="Serve a fusec plan over HTTP on Ray Serve: "
                                     "POST {\"inputs\": {name: nested lists}} or an .npy body to /.")
    parser.add_argument("plan", help="the plan file (fusec -o model.plan, Plan.save)")
    parser.add_argument("--replicas", type=int, default=1, help="replicas, each one GPU or one CPU core (1)")
    parser.add_argument("--port", type=int, default=8000, help="the HTTP port (8000)")
    parser.add_argument("--host", default="127.0.0.1", help="the address HTTP listens on (127.0.0.1; 0.0.0.0 "
                        "for every interface)")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                        help="cuda: a GPU per replica; cpu: a core per replica; auto: cuda where the plan and the "
                        "cluster have GPUs (auto)")
    parser.add_argument("--max-batch", type=int, default=None, help="the most rows per run (the plan's largest "
                        "batch bucket)")
    parser.add_argument("--batch-wait-ms", type=float, default=5.0, help="how long a batch waits to fill (5)")
    parser.add_argument("--name", default="fusec", help="the application's and deployment's name (fusec)")
    parser.add_argument("--address", default=None, help="a Ray cluster to join (ray start's address, or auto); "
                        "without it (and without RAY_ADDRESS) Ray starts on this machine")
    return parser.parse_args(argv)


def main(argv=None):
    """fusec-serve model.plan --replicas N --port P [--device] [--host]:
    serves the plan until Ctrl-C."""
    arguments = _parse_arguments(argv)
    ray, serve = _import_ray_serve()
    joined = bool(arguments.address or os.environ.get("RAY_ADDRESS"))
    ray.init(address=arguments.address)
    try:
        serve.start(http_options={"host": arguments.host, "port": arguments.port})
        application = app(arguments.plan, device=arguments.device, replicas=arguments.replicas,
                          max_batch=arguments.max_batch, batch_wait_s=arguments.batch_wait_ms / 1000.0,
                          name=arguments.name)
        serve.run(application, name=arguments.name, route_prefix="/")
        print("fusec-serve: %s on http://%s:%d/ (%d replica%s); Ctrl-C stops"
              % (arguments.plan, arguments.host, arguments.port, arguments.replicas,
                 "" if arguments.replicas == 1 else "s"), file=sys.stderr, flush=True)
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        # A cluster we joined keeps running; one we started goes with us.
        if joined:
            serve.delete(arguments.name)
        else:
            serve.shutdown()
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
