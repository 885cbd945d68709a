"""The Python API's contract: typed inputs and outputs, errors as
exceptions with fusec's messages, sessions on several threads."""
import json
import threading

import numpy
import pytest

import fusec
from conftest import MODELS


def embedding_graph():
    """A fusec JSON graph: int64 token ids [batch, 3] look up rows of a
    [5, 2] table; the mask (ids == 0) comes out as bool."""
    return json.dumps({
        "format": "fusec-graph", "version": 1,
        "inputs": [{"name": "ids", "dtype": "i64", "shape": ["batch", 3]}],
        "outputs": ["rows", "is_pad"],
        "constants": {
            "table": {"dtype": "f32", "shape": [5, 2], "data": [0, 1, 10, 11, 20, 21, 30, 31, 40, 41]},
            "pad": {"dtype": "i64", "shape": [], "data": [0]},
        },
        "nodes": [
            {"name": "rows", "op": "Gather", "inputs": ["table", "ids"], "outputs": ["rows"]},
            {"name": "is_pad", "op": "Equal", "inputs": ["ids", "pad"], "outputs": ["is_pad"]},
        ],
    }).encode()


def test_the_package_names_its_version_as_plans_do():
    plan = fusec.compile(embedding_graph(), target="cpu")
    assert plan.describe()["compiler_version"] == "fusec " + fusec.__version__


def test_integer_inputs_and_bool_outputs_keep_their_types():
    plan = fusec.compile(embedding_graph(), target="cpu")
    assert plan.inputs == [{"name": "ids", "dtype": "i64", "numpy_dtype": "int64", "shape": (None, 3)}]
    outputs = fusec.Session(plan, device="cpu").run({"ids": numpy.array([[3, 0, 4], [1, 1, 0]], numpy.int64)})
    assert outputs["rows"].dtype == numpy.float32
    assert outputs["rows"].tolist() == [[[30, 31], [0, 1], [40, 41]], [[10, 11], [10, 11], [0, 1]]]
    assert outputs["is_pad"].dtype == numpy.bool_
    assert outputs["is_pad"].tolist() == [[False, True, False], [False, False, True]]


def test_inputs_are_never_converted_and_the_error_says_how_to_convert():
    session = fusec.Session(fusec.compile(embedding_graph(), target="cpu"), device="cpu")
    with pytest.raises(fusec.Error, match=r"input 'ids' is int32, the plan takes i64: pass it as numpy.int64"):
        session.run({"ids": numpy.zeros((1, 3), numpy.int32)})
    with pytest.raises(fusec.Error, match=r"input 'ids' is float64"):
        session.run({"ids": [[1.0, 2.0, 3.0]]})


def test_a_non_contiguous_array_runs_like_its_copy():
    plan = fusec.compile(MODELS / "mlp" / "model.onnx", target="cpu")
    session = fusec.Session(plan, device="cpu")
    wide = numpy.random.default_rng(3).standard_normal((2, 8, 64)).astype(numpy.float32)
    strided = wide[:, :, ::2]
    assert not strided.flags["C_CONTIGUOUS"]
    assert numpy.array_equal(session.run({"input": strided})["output"],
                             session.run({"input": numpy.ascontiguousarray(strided)})["output"])


def test_run_errors_name_the_input():
    session = fusec.Session(fusec.compile(MODELS / "mlp" / "model.onnx", target="cpu"), device="cpu")
    with pytest.raises(fusec.Error, match=r"'x' is not an input of the plan"):
        session.run({"input": numpy.zeros((1, 8, 32), numpy.float32), "x": numpy.zeros(1, numpy.float32)})
    with pytest.raises(fusec.Error, match=r"input"):
        session.run({})
    with pytest.raises(fusec.Error, match=r"'input'"):
        session.run({"input": numpy.zeros((1, 8, 31), numpy.float32)})
    with pytest.raises(fusec.Error, match=r"batch"):
        session.run({"input": numpy.zeros((2, 8, 32), numpy.float32)}, batch=0 + 10**9)


def test_compile_errors_carry_fusec_diagnostics(tmp_path):
    with pytest.raises(fusec.CompileError, match=r"no-such-model.onnx"):
        fusec.compile(tmp_path / "no-such-model.onnx", target="cpu")
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "fusec-graph", "version": 1, "inputs": []')
    with pytest.raises(fusec.CompileError, match=r"broken.json:.*error"):
        fusec.compile(broken, target="cpu")
    with pytest.raises(fusec.CompileError, match=r"precision must be fp32, tf32, fp16 or bf16, got 'fp8'"):
        fusec.compile(MODELS / "mlp" / "model.onnx", target="cpu", precision="fp8")
    with pytest.raises(fusec.CompileError, match=r"batch-buckets needs positive integers"):
        fusec.compile(MODELS / "mlp" / "model.onnx", target="cpu", batch_buckets=[0])
    with pytest.raises(fusec.CompileError, match=r"unknown fusion rule 'no-such-rule'"):
        fusec.compile(MODELS / "mlp" / "model.onnx", target="cpu", disable=["no-such-rule"])
    with pytest.raises(fusec.CompileError, match=r"^<model bytes>:1:2: error: malformed JSON"):
        fusec.compile(b"{", target="cpu")
    with pytest.raises(fusec.CompileError, match=r"unknown fusion strategy 'fastest'"):
        fusec.compile(MODELS / "mlp" / "model.onnx", target="cpu", fusion_strategy="fastest")
    # CompileError is a fusec.Error, which is a RuntimeError.
    assert issubclass(fusec.CompileError, fusec.Error) and issubclass(fusec.Error, RuntimeError)


def test_named_dimensions_take_sizes_at_compile_time():
    """A graph whose ids are [batch, seq]: with dims={"seq": 3} the plan's
    input is [batch, 3]; without a size for seq, compiling fails and says
    how to give one."""
    graph = json.loads(embedding_graph())
    graph["inputs"][0]["shape"] = ["batch", "seq"]
    model = json.dumps(graph).encode()
    with pytest.raises(fusec.CompileError, match=r"symbolic dimension 'seq', but the batch is 'batch'.*--dim seq=SIZE"):
        fusec.compile(model, target="cpu")
    plan = fusec.compile(model, target="cpu", dims={"seq": 3})
    assert plan.inputs[0]["shape"] == (None, 3)
    ids = numpy.array([[1, 0, 4], [2, 2, 0]], dtype=numpy.int64)
    outputs = fusec.Session(plan, device="cpu").run({"ids": ids})
    assert outputs["rows"].shape == (2, 3, 2)
    assert outputs["is_pad"].tolist() == [[False, True, False], [False, False, True]]
    with pytest.raises(fusec.CompileError, match=r"a size is given for dimension 'sq'"):
        fusec.compile(model, target="cpu", dims={"seq": 3, "sq": 2})


def test_a_range_runs_every_size_from_one_plan():
    """dims={"seq": (1, 8)} compiles one plan for every length from 1 to 8:
    run() takes the length from the ids, as the plan of that length alone
    computes; run_device and variant() take it as dims."""
    graph = json.loads(embedding_graph())
    graph["inputs"][0]["shape"] = ["batch", "seq"]
    model = json.dumps(graph).encode()
    plan = fusec.compile(model, target="cpu", dims={"seq": (1, 4, 8)})
    assert plan.ranges == {"seq": (1, 4, 8)}
    assert plan.dims == {}
    assert plan.variant({"seq": 5}).inputs[0]["shape"] == (None, 5)
    with pytest.raises(fusec.Error, match=r"dimension 'seq' = 9 is outside the plan's range 1:8"):
        plan.variant({"seq": 9})
    session = fusec.Session(plan, device="cpu")
    for seq in (1, 5, 8):
        ids = numpy.arange(2 * seq, dtype=numpy.int64).reshape(2, seq) % 5
        alone = fusec.Session(fusec.compile(model, target="cpu", dims={"seq": seq}), device="cpu")
        got, expected = session.run({"ids": ids}), alone.run({"ids": ids})
        assert got["rows"].shape == (2, seq, 2)
        assert numpy.array_equal(got["rows"], expected["rows"])
        assert numpy.array_equal(got["is_pad"], expected["is_pad"])
    with pytest.raises(fusec.Error, match=r"input 'ids' has shape \[2, 9\], but the plan takes \[2, seq\] \(seq in 1:8\)"):
        session.run({"ids": numpy.zeros((2, 9), numpy.int64)})
    ids = numpy.array([[4, 0, 1, 2, 3, 0]], numpy.int64)
    outputs = {"rows": numpy.zeros((1, 6, 2), numpy.float32), "is_pad": numpy.zeros((1, 6), bool)}
    session.run_device({"ids": ids}, outputs, dims={"seq": 6})
    assert numpy.array_equal(outputs["rows"], session.run({"ids": ids})["rows"])
    with pytest.raises(ValueError, match=r"a range is \(min, max\) or \(min, opt, max\)"):
        fusec.compile(model, target="cpu", dims={"seq": (1, 2, 3, 4)})
    # A GPU plan runs the range too (its kernels read the length); the CPU
    # backend runs it as it runs the CPU plan.
    gpu_plan = fusec.compile(model, target="sm_90", dims={"seq": (1, 8)})
    assert gpu_plan.ranges == {"seq": (1, 8, 8)}
    assert gpu_plan.describe()["target"] == "sm_90"
    ids = numpy.array([[4, 0, 1], [2, 3, 0]], numpy.int64)
    gpu_rows = fusec.Session(gpu_plan, device="cpu").run({"ids": ids})["rows"]
    assert numpy.array_equal(gpu_rows, session.run({"ids": ids})["rows"])


def test_shape_variants_run_the_size_their_inputs_have(tmp_path):
    """dims={"seq": [3, 8]} holds a plan per sequence length: run() picks
    the one its ids fit, each as the plan of that length alone computes;
    run_device takes the variant as dims."""
    graph = json.loads(embedding_graph())
    graph["inputs"][0]["shape"] = ["batch", "seq"]
    model = json.dumps(graph).encode()
    plan = fusec.compile(model, target="cpu", dims={"seq": [3, 8]})
    assert plan.dims == {"seq": 3}
    assert plan.shape_variants == [{"seq": 3}, {"seq": 8}]
    assert plan.variant({"seq": 8}).inputs[0]["shape"] == (None, 8)
    assert plan.describe()["shape_variants"] == [{"seq": 3}, {"seq": 8}]
    with pytest.raises(fusec.Error, match=r"no shape variant for seq=5 \(it was compiled for seq=3; seq=8\)"):
        plan.variant({"seq": 5})
    session = fusec.Session(plan, device="cpu")
    for seq in (8, 3):
        ids = numpy.arange(2 * seq, dtype=numpy.int64).reshape(2, seq) % 5
        alone = fusec.Session(fusec.compile(model, target="cpu", dims={"seq": seq}), device="cpu")
        got, expected = session.run({"ids": ids}), alone.run({"ids": ids})
        assert got["rows"].shape == (2, seq, 2)
        assert numpy.array_equal(got["rows"], expected["rows"])
        assert numpy.array_equal(got["is_pad"], expected["is_pad"])
    with pytest.raises(fusec.Error, match=r"input 'ids' has shape \[2, 5\], but the plan's shape variants take"):
        session.run({"ids": numpy.zeros((2, 5), numpy.int64)})
    ids = numpy.array([[4, 0, 1, 2, 3, 0, 1, 2]], numpy.int64)
    outputs = {"rows": numpy.zeros((1, 8, 2), numpy.float32), "is_pad": numpy.zeros((1, 8), bool)}
    session.run_device({"ids": ids}, outputs, dims={"seq": 8})
    assert numpy.array_equal(outputs["rows"], session.run({"ids": ids})["rows"])
    # A variant's bytes are its whole plan's: it is saved as part of it.
    with pytest.raises(fusec.Error, match=r"a shape variant's file would be its whole plan's"):
        plan.variant({"seq": 8}).save(tmp_path / "variant.plan")
    assert plan.variant({"seq": 3}).to_bytes() == plan.to_bytes()


def test_plan_and_session_errors(tmp_path):
    with pytest.raises(fusec.Error, match=r"garbage"):
        fusec.Plan.from_bytes(b"not a plan", "garbage")
    with pytest.raises(fusec.Error, match=r"missing.plan"):
        fusec.Plan.load(tmp_path / "missing.plan")
    plan = fusec.compile(MODELS / "mlp" / "model.onnx", target="cpu")
    with pytest.raises(ValueError, match=r"device must be cpu, cuda or auto, got 'tpu'"):
        fusec.Session(plan, device="tpu")
    with pytest.raises(TypeError):
        fusec.Session(b"plan bytes")


def test_sessions_of_one_plan_run_on_many_threads_and_lose_nothing():
    """Eight threads, one session each, 25 requests each at mixed batch
    sizes, all against one plan: every result equals the serial one."""
    plan = fusec.compile(MODELS / "residual_block" / "model.onnx", target="cpu")
    shape = plan.inputs[0]["shape"][1:]
    rng = numpy.random.default_rng(11)
    requests = [rng.standard_normal((batch,) + shape).astype(numpy.float32) for batch in (1, 3, 2, 4, 1)]
    serial = fusec.Session(plan, device="cpu")
    expected = [serial.run({"input": request})["output"] for request in requests]
    failures = []

    def client(index):
        session = fusec.Session(plan, device="cpu")
        for round in range(25):
            which = (index + round) % len(requests)
            output = session.run({"input": requests[which]})["output"]
            if not numpy.array_equal(output, expected[which]):
                failures.append((index, round, which))

    threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []

    # Threads sharing one session take turns on it.
    def shared_client(index):
        for round in range(10):
            which = (index + round) % len(requests)
            if not numpy.array_equal(serial.run({"input": requests[which]})["output"], expected[which]):
                failures.append(("shared", index, round))

    threads = [threading.Thread(target=shared_client, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def mlp_session(device="cpu"):
    plan = fusec.compile(MODELS / "mlp" / "model.onnx", target="cpu")
    return plan, fusec.Session(plan, device=device)


def device_arrays(plan, batch, seed=3):
    """Random inputs and zeroed outputs for every tensor of `plan` at `batch`."""
    rng = numpy.random.default_rng(seed)
    def shape_of(tensor):
        return tuple(batch if d is None else d for d in tensor["shape"])
    inputs = {t["name"]: rng.standard_normal(shape_of(t)).astype(t["numpy_dtype"]) for t in plan.inputs}
    outputs = {t["name"]: numpy.zeros(shape_of(t), t["numpy_dtype"]) for t in plan.outputs}
    return inputs, outputs


def test_run_device_writes_into_the_callers_arrays_like_run():
    plan, session = mlp_session()
    for batch in (1, 3):
        inputs, outputs = device_arrays(plan, batch)
        session.run_device(inputs, outputs)
        expected = session.run(inputs)
        for name, array in outputs.items():
            numpy.testing.assert_array_equal(array, expected[name])
        session.run_device(inputs, outputs, batch=batch)


class CudaArrayLookalike:
    """Exposes only __cuda_array_interface__, as a CuPy array would."""
    def __init__(self, array):
        self.__cuda_array_interface__ = dict(array.__array_interface__, version=3)


def test_run_device_checks_every_array_before_running():
    plan, session = mlp_session()
    inputs, outputs = device_arrays(plan, 2)
    input_name = plan.inputs[0]["name"]
    output_name = plan.outputs[0]["name"]

    def expect(message, inputs=inputs, outputs=outputs, **options):
        with pytest.raises(fusec.Error, match=message):
            session.run_device(inputs, outputs, **options)

    expect("output '%s' is missing: run_device takes every output" % output_name, outputs={})
    expect("'extra' is not an input of the plan", inputs=dict(inputs, extra=inputs[input_name]))
    wrong_type = dict(inputs, **{input_name: inputs[input_name].astype(numpy.float64)})
    expect("'%s' has typestr <f8, the plan takes f32 \\(<f4\\); arrays are not converted" % input_name,
           inputs=wrong_type)
    wrong_shape = dict(inputs, **{input_name: inputs[input_name][:, :-1].copy()})
    expect("'%s' has shape .*, the plan's at batch 2 is" % input_name, inputs=wrong_shape)
    column_major = dict(inputs, **{input_name: numpy.asfortranarray(inputs[input_name])})
    expect("'%s' is not C-contiguous" % input_name, inputs=column_major)
    frozen = outputs[output_name].copy()
    frozen.flags.writeable = False
    expect("output '%s' is read-only" % output_name, outputs=dict(outputs, **{output_name: frozen}))
    expect("'%s' is a list, not an array in host memory" % input_name,
           inputs=dict(inputs, **{input_name: inputs[input_name].tolist()}))
    on_gpu = dict(inputs, **{input_name: CudaArrayLookalike(inputs[input_name])})
    expect("'%s' is a CudaArrayLookalike, not an array in host memory \\(__array_interface__ or __dlpack__\\)" % input_name,
           inputs=on_gpu)
    expect("the cpu backend has no streams: run on device buffers with a null stream", stream=12345)


def test_run_device_on_cuda_arrays_and_a_stream():
    torch = pytest.importorskip("torch", reason="run_device on CUDA arrays is tested with torch's CUDA tensors")
    if not torch.cuda.is_available():
        pytest.skip("no GPU: torch finds no CUDA device")
    plan = fusec.compile(MODELS / "mlp" / "model.onnx", target="sm_90")
    session = fusec.Session(plan, device="cuda")
    inputs, outputs = device_arrays(plan, 4)
    expected = session.run(inputs)
    stream = torch.cuda.Stream()
    on_device = {name: torch.from_numpy(array).cuda() for name, array in inputs.items()}
    results = {name: torch.zeros(array.shape, dtype=torch.float32, device="cuda") for name, array in outputs.items()}
    with torch.cuda.stream(stream):
        session.run_device(on_device, results, stream=stream)
    stream.synchronize()
    for name, array in results.items():
        numpy.testing.assert_allclose(array.cpu().numpy(), expected[name], rtol=1e-4, atol=1e-5)


def test_plans_carry_kernel_variants_and_sessions_take_tuning_options(tmp_path):
    try:
        plan = fusec.compile(MODELS / "mlp" / "model.onnx", target="sm_90", kernel_variants=3,
                             kernel_cache=str(tmp_path / "kernels"))
    except fusec.CompileError as error:
        if "NVRTC" in str(error):
            pytest.skip("this build has no NVRTC: " + str(error))
        raise
    kernels = plan.describe()["kernels"]["list"]
    # Two other tiles each, then the cuBLASLt call (fusec --tactics).
    assert [kernel["variants"] for kernel in kernels][0][-1] == "cublaslt"
    assert [len(kernel["variants"]) for kernel in kernels] == [3, 3]
    assert all(kernel["config"].startswith("#fuse.config<\"tensor_core_gemm\"") for kernel in kernels)
    session = fusec.Session(plan, device="cpu", tune=True, tuning_cache=str(tmp_path / "tuning.json"))
    outputs = session.run({"input": numpy.ones((2, 8, 32), numpy.float32)})
    assert outputs["output"].shape == (2, 8, 32)
    assert session.tuning == []  # the CPU backend runs the plan's ops, not its kernels
