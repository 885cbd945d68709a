"""fusec.serve on a local Ray cluster: a plan served by 2 CPU replicas under
load from 32 concurrent clients (HTTP and deployment handles), one replica
killed mid-load, every answer checked against fusec.Session; bad requests
answered with a 4xx while the replicas keep serving.

Ray runs on this machine alone, kept small (2 CPUs, no dashboard), and
Serve's HTTP listens on 127.0.0.1. The replica is killed with ray.kill (no
restart), its actor found by name among Ray's named actors; Serve's
controller replaces it. Clients retry what the dead replica held (a 5xx, a
dropped connection, ActorDiedError), and the retries are counted. Every wait
has a deadline, so a hang fails the test instead of blocking. Throughput and
latency go to stderr past pytest's capture (ctest's log).
"""
import concurrent.futures
import io
import json
import os
import socket
import subprocess
import sys
import threading
import time
import warnings

import numpy
import pytest

from conftest import MODELS, require

ray = require("ray", "fusec.serve is tested where ray is installed (.venv)")
requests = require("requests", "fusec.serve's test speaks HTTP with requests (installed with ray[serve])")

import fusec  # noqa: E402
import fusec.serve  # noqa: E402

with warnings.catch_warnings():
    # Ray Serve's models use pydantic 1 idioms; their warnings are not ours.
    warnings.simplefilter("ignore", DeprecationWarning)
    from ray import serve  # noqa: E402

MODEL = "mlp"
APP = "fusec"
CLIENTS = 32
REQUESTS_PER_CLIENT = 70            # 2 240 requests in all
HANDLE_CLIENT_EVERY = 8             # every 8th client calls the deployment handle, the rest HTTP
NPY_REQUEST_EVERY = 4               # every 4th HTTP request sends an .npy body
MULTI_ROW_REQUEST_EVERY = 10        # every 10th request carries 2 or 3 rows
ATTEMPTS = 20                       # per request: the first try and its retries
REQUEST_TIMEOUT_S = 5               # an answer slower than this is retried (counted)
LOAD_DEADLINE_S = 180


@pytest.fixture
def log(capsys):
    """Writes a line past pytest's capture, so `pytest -q` (and ctest's log)
    shows the figures of a passing run; scripts/ci/summarize-tests.py
    repeats its "figure:" lines in the CI summary."""
    def write(*parts):
        with capsys.disabled():
            print("figure: test_serve:", *parts, file=sys.stderr, flush=True)
    return write


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def npy_bytes(array):
    buffer = io.BytesIO()
    numpy.save(buffer, array)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def plan_path(tmp_path_factory):
    plan = fusec.compile(str(MODELS / MODEL / "model.onnx"), target="cpu")
    path = tmp_path_factory.mktemp("serve") / (MODEL + ".plan")
    plan.save(path)
    return path


@pytest.fixture(scope="module")
def reference(plan_path):
    """The answer every request must get: the plan run by a Session here.
    Compared exactly: on the CPU backend a row's outputs do not depend on
    the rows batched with it, and JSON carries float32 values exactly."""
    session = fusec.Session(fusec.Plan.load(plan_path), "cpu")
    return lambda x: session.run({"input": x})["output"]


@pytest.fixture(scope="module")
def served(plan_path):
    """2 CPU replicas of the plan behind HTTP on 127.0.0.1:<free port>."""
    # Ray's workers inherit this environment: the package's absolute path
    # lets each replica import fusec from wherever it starts.
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(fusec.__file__)))
    saved_path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, saved_path) if p)
    port = free_port()
    started = time.perf_counter()
    # Ray itself runs on this machine only (no address: a new local cluster;
    # it maps a loopback node address to the machine's, so none is given);
    # Serve's HTTP proxy listens on 127.0.0.1 alone.
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=100 << 20, log_to_driver=False,
             configure_logging=False)
    try:
        serve.start(http_options={"host": "127.0.0.1", "port": port})
        handle = serve.run(fusec.serve.app(plan_path, device="cpu", replicas=2, name=APP), name=APP,
                           route_prefix="/")
        yield {"url": "http://127.0.0.1:%d/" % port, "handle": handle, "startup_s": time.perf_counter() - started}
    finally:
        serve.shutdown()
        ray.shutdown()
        if saved_path is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved_path


# ---------------------------------------------------------------------------
# Without a cluster.

def test_import_fusec_needs_no_ray():
    code = "import sys, fusec, fusec.serve; assert 'ray' not in sys.modules, 'ray imported'"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_missing_ray_says_how_to_install(plan_path):
    code = ("import sys; sys.modules['ray'] = None\n"
            "import fusec.serve\n"
            "try:\n    fusec.serve.app(sys.argv[1])\n"
            "except ImportError as error:\n    print(error)\n")
    result = subprocess.run([sys.executable, "-c", code, str(plan_path)], capture_output=True, text=True,
                            check=True, timeout=60)
    assert "pip install 'fusec[serve]'" in result.stdout


def test_command_line_arguments():
    arguments = fusec.serve._parse_arguments(["model.plan", "--replicas", "3", "--port", "9000", "--device", "cpu"])
    assert (arguments.plan, arguments.replicas, arguments.port, arguments.device, arguments.host) == \
        ("model.plan", 3, 9000, "cpu", "127.0.0.1")


# ---------------------------------------------------------------------------
# The load test.

class LoadRecord:
    """What the clients saw, shared by their threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.answered = 0
        self.retries = 0
        self.retry_reasons = {}
        self.latencies_ms = []
        self.failures = []
        self.by_path = {"http-json": 0, "http-npy": 0, "handle": 0}

    def retried(self, reason):
        with self.lock:
            self.retries += 1
            self.retry_reasons[reason] = self.retry_reasons.get(reason, 0) + 1

    def done(self, path, milliseconds):
        with self.lock:
            self.answered += 1
            self.by_path[path] += 1
            self.latencies_ms.append(milliseconds)

    def failed(self, message):
        with self.lock:
            self.failures.append(message)


def http_answer(session, url, x, as_npy):
    """One HTTP try: the output array, or a string saying why to retry.
    A 4xx is no reason to retry: it raises."""
    if as_npy:
        reply = session.post(url, data=npy_bytes(x), headers={"Content-Type": fusec.serve.NPY_CONTENT_TYPE},
                             timeout=REQUEST_TIMEOUT_S)
    else:
        reply = session.post(url, json={"inputs": {"input": x.tolist()}}, timeout=REQUEST_TIMEOUT_S)
    if reply.status_code >= 500:
        return "HTTP %d" % reply.status_code
    if reply.status_code != 200:
        raise AssertionError("HTTP %d: %s" % (reply.status_code, reply.text[:300]))
    if as_npy:
        assert reply.headers["content-type"] == fusec.serve.NPY_CONTENT_TYPE
        return numpy.load(io.BytesIO(reply.content))
    return numpy.asarray(reply.json()["outputs"]["output"], numpy.float32)


def handle_answer(handle, x):
    try:
        return handle.remote({"input": x}).result(timeout_s=REQUEST_TIMEOUT_S)["output"]
    except fusec.serve.RequestError:
        raise
    except (ray.exceptions.RayError, TimeoutError) as error:  # the replica died under it, or was slow to
        return type(error).__name__


def run_client(index, served, reference, record, deadline):
    rng = numpy.random.default_rng([2024, index])
    uses_handle = index % HANDLE_CLIENT_EVERY == HANDLE_CLIENT_EVERY - 1
    session = requests.Session()
    for number in range(REQUESTS_PER_CLIENT):
        rows = 2 + number % 2 if number % MULTI_ROW_REQUEST_EVERY == 0 else 1
        x = rng.standard_normal((rows, 8, 32), dtype=numpy.float32)
        path = "handle" if uses_handle else ("http-npy" if number % NPY_REQUEST_EVERY == 0 else "http-json")
        started = time.perf_counter()
        answer = None
        try:
            for _ in range(ATTEMPTS):
                if time.monotonic() > deadline:
                    break
                try:
                    if uses_handle:
                        answer = handle_answer(served["handle"], x)
                    else:
                        answer = http_answer(session, served["url"], x, path == "http-npy")
                except requests.RequestException as error:
                    answer = type(error).__name__
                if not isinstance(answer, str):
                    break
                record.retried(answer)
                time.sleep(0.1)
            if answer is None or isinstance(answer, str):
                record.failed("client %d request %d: no answer (last: %s)" % (index, number, answer))
                continue
            numpy.testing.assert_array_equal(answer, reference(x))
            record.done(path, (time.perf_counter() - started) * 1000.0)
        except Exception as error:  # a wrong answer or a 4xx: recorded, and the client goes on
            record.failed("client %d request %d (%s): %s" % (index, number, path, str(error)[:300]))


def replica_actor_names():
    return sorted(actor["name"] for actor in ray.util.list_named_actors(all_namespaces=True)
                  if actor["name"].startswith("SERVE_REPLICA::%s#" % APP))


def kill_one_replica(record, total, killed, deadline):
    """Once a third of the requests are answered, ray.kill()s one replica
    actor (no restart: Serve's controller replaces it)."""
    while record.answered < total // 3 and time.monotonic() < deadline:
        if len(record.failures) > total // 10:
            return  # the load already failed: nothing to prove by a kill
        time.sleep(0.02)
    name = replica_actor_names()[0]
    killed["name"], killed["after"] = name, record.answered
    ray.kill(ray.get_actor(name, namespace="serve"), no_restart=True)


def wait_for_running_replicas(count, deadline):
    while time.monotonic() < deadline:
        deployment = serve.status().applications[APP].deployments[APP]
        if deployment.replica_states.get("RUNNING", 0) == count and len(replica_actor_names()) == count:
            return
        time.sleep(0.25)
    raise AssertionError("the deployment did not get back to %d running replicas: %s" % (count, serve.status()))


def replica_stats(handle, wanted):
    """stats() of each replica, asked until `wanted` distinct ones answered
    or 30 s passed: 8 calls at a time (one call at a time goes to the same
    idle replica), and a replica that just started reaches this process's
    router a moment after the controller reports it running."""
    stats = {}
    deadline = time.monotonic() + 30
    while len(stats) < wanted and time.monotonic() < deadline:
        calls = [handle.stats.remote() for _ in range(8)]
        for call in calls:
            answer = call.result(timeout_s=REQUEST_TIMEOUT_S)
            stats[answer["replica"]] = answer
        time.sleep(0.1)
    return stats


def test_load_with_a_replica_killed(served, reference, log):
    log("Ray, Serve's proxy and 2 replicas started in %.1f s" % served["startup_s"])
    total = CLIENTS * REQUESTS_PER_CLIENT
    record = LoadRecord()
    killed = {}
    deadline = time.monotonic() + LOAD_DEADLINE_S
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(CLIENTS + 1) as pool:
        killer = pool.submit(kill_one_replica, record, total, killed, deadline)
        clients = [pool.submit(run_client, index, served, reference, record, deadline) for index in range(CLIENTS)]
        done, pending = concurrent.futures.wait(clients + [killer], timeout=LOAD_DEADLINE_S + 30)
        assert not pending, "clients still running past the deadline"
        for future in done:
            future.result()
    seconds = time.perf_counter() - started

    latencies = numpy.sort(numpy.asarray(record.latencies_ms))
    log("%d requests (%s) from %d clients in %.1f s: %.0f requests/s; latency p50 %.1f ms, p99 %.1f ms, max %.1f ms"
        % (record.answered, ", ".join("%s %d" % item for item in record.by_path.items()), CLIENTS, seconds,
           record.answered / seconds, numpy.percentile(latencies, 50), numpy.percentile(latencies, 99),
           latencies[-1]))
    log("killed %s after %d answers; %d retries (%s)" % (killed.get("name"), killed.get("after", -1),
                                                          record.retries, record.retry_reasons))
    assert not record.failures, "%d failed requests, first: %s" % (len(record.failures), record.failures[:5])
    assert record.answered == total
    assert killed, "no replica was killed"
    # Only the requests in flight on the killed replica (and those routed to
    # it before Serve noticed) need a retry.
    assert record.retries < total // 10

    # Serve replaced the killed replica; both replicas answer, and batched.
    wait_for_running_replicas(2, time.monotonic() + 90)
    assert killed["name"] not in replica_actor_names()
    stats = replica_stats(served["handle"], 2)
    for replica, figures in sorted(stats.items()):
        log("replica %s: %s requests in %d runs; rows per run %s; latency in the replica p50 %.1f ms, p99 %.1f ms"
            % (replica, figures["requests"], figures["runs"], dict(sorted(figures["rows_per_run"].items(),
                                                                             key=lambda item: int(item[0]))),
               figures["latency_ms"]["p50"] or 0, figures["latency_ms"]["p99"] or 0))
    assert len(stats) == 2
    assert not any(replica in killed["name"] for replica in stats)
    rows_per_run = {int(rows) for replica in stats.values() for rows in replica["rows_per_run"]}
    assert max(rows_per_run) > 1, "no request was batched with another"
    assert max(rows_per_run) <= 16, "a run exceeded the plan's largest bucket"


# ---------------------------------------------------------------------------
# Bad requests.

def post_json(url, document):
    return requests.post(url, data=json.dumps(document), headers={"Content-Type": "application/json"},
                         timeout=REQUEST_TIMEOUT_S)


def assert_rejected(reply, status, *phrases):
    assert reply.status_code == status, (reply.status_code, reply.text)
    message = reply.json()["error"]
    for phrase in phrases:
        assert phrase in message, (phrase, message)
    return message


def test_bad_requests_get_4xx_and_the_replicas_keep_serving(served, reference, log):
    url = served["url"]
    good = numpy.random.default_rng(7).standard_normal((1, 8, 32), dtype=numpy.float32)
    wrong_shape = numpy.zeros((1, 8, 31), numpy.float32)
    messages = [
        assert_rejected(post_json(url, {"inputs": {"input": wrong_shape.tolist()}}), 422,
                        "input 'input' has shape (1, 8, 31)", "(batch, 8, 32)"),
        assert_rejected(requests.post(url, data=npy_bytes(good.astype(numpy.float64)), timeout=REQUEST_TIMEOUT_S,
                                      headers={"Content-Type": fusec.serve.NPY_CONTENT_TYPE}), 422,
                        "input 'input' is float64", "float32"),
        assert_rejected(post_json(url, {"inputs": {"input": (good > 0).tolist()}}), 422,
                        "input 'input' holds booleans", "float32"),
        assert_rejected(post_json(url, {"inputs": {"input": "a picture of a cat"}}), 400,
                        "input 'input' is not a tensor of numbers"),
        assert_rejected(post_json(url, {"inputs": {"input": [[1.0, 2.0], [3.0]]}}), 400,
                        "input 'input' is not a tensor", "unequal lengths"),
        assert_rejected(requests.post(url, data=b"\x93NUMPY garbage", timeout=REQUEST_TIMEOUT_S,
                                      headers={"Content-Type": fusec.serve.NPY_CONTENT_TYPE}), 400,
                        "not an .npy file"),
        assert_rejected(requests.post(url, data=b"input=1", timeout=REQUEST_TIMEOUT_S), 400, "not JSON"),
        assert_rejected(post_json(url, {"input": good.tolist()}), 400, '{"inputs"'),
        assert_rejected(post_json(url, {"inputs": {"image": good.tolist()}}), 422,
                        "unknown input 'image'", "'input'"),
    ]
    log("bad requests answered:\n  " + "\n  ".join(messages))

    # Through a handle the same checks raise RequestError.
    with pytest.raises(fusec.serve.RequestError, match="input 'input' is float64"):
        served["handle"].remote({"input": good.astype(numpy.float64)}).result(timeout_s=REQUEST_TIMEOUT_S)

    # Bad requests batched with good ones fail alone: each is validated
    # before it joins a batch.
    rng = numpy.random.default_rng(8)
    inputs = [rng.standard_normal((1, 8, 32), dtype=numpy.float32) for _ in range(24)]
    good_calls = [served["handle"].remote({"input": x}) for x in inputs]
    bad_calls = [served["handle"].remote({"input": wrong_shape}) for _ in range(8)]
    for x, call in zip(inputs, good_calls):
        numpy.testing.assert_array_equal(call.result(timeout_s=REQUEST_TIMEOUT_S)["output"], reference(x))
    for call in bad_calls:
        with pytest.raises(fusec.serve.RequestError, match="has shape"):
            call.result(timeout_s=REQUEST_TIMEOUT_S)

    # The replicas still answer, right (32 at once: Serve spreads them).
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(lambda _: post_json(url, {"inputs": {"input": good.tolist()}}), range(32)))
    for reply in replies:
        assert reply.status_code == 200, reply.text
        numpy.testing.assert_array_equal(numpy.asarray(reply.json()["outputs"]["output"], numpy.float32),
                                         reference(good))
    # An .npy request with Accept: application/json gets JSON.
    reply = requests.post(url, data=npy_bytes(good), timeout=REQUEST_TIMEOUT_S,
                          headers={"Content-Type": fusec.serve.NPY_CONTENT_TYPE, "Accept": "application/json"})
    assert reply.headers["content-type"].startswith("application/json")
    description = requests.get(url, timeout=REQUEST_TIMEOUT_S).json()
    assert description["inputs"] == [{"name": "input", "dtype": "float32", "shape": ["batch", 8, 32]}]
    assert description["batch_buckets"] == [1, 2, 4, 8, 16] and description["max_batch"] == 16
    stats = replica_stats(served["handle"], 2)
    log("after the bad requests: " + "; ".join("replica %s: %s" % (replica, figures["requests"])
                                               for replica, figures in sorted(stats.items())))
    assert sum(replica["requests"].get("rejected", 0) for replica in stats.values()) >= 10
    # Both replicas, the one that replaced the killed one too, answered.
    assert all(replica["requests"].get("ok", 0) > 0 for replica in stats.values()), stats
