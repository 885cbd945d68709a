"""Every shared model compiles through fusec.compile and, fused and unfused,
matches the reference outputs exported with it at every batch it has."""
import numpy
import pytest

import fusec
from conftest import MODELS, load_meta, model_names


def check_against_reference(session, folder, meta):
    tolerance = meta["tolerance"]
    for batch, case in meta["batches"].items():
        inputs = {name: numpy.load(folder / file) for name, file in case["inputs"].items()}
        outputs = session.run(inputs)
        assert sorted(outputs) == sorted(case["outputs"])
        for name, expected in case["outputs"].items():
            reference = numpy.load(folder / expected["file"])
            actual = outputs[name]
            assert actual.dtype == numpy.float32
            assert actual.shape == reference.shape, f"batch {batch}, output {name}"
            assert numpy.allclose(actual, reference, rtol=tolerance["rtol"], atol=tolerance["atol"]), (
                f"batch {batch}, output {name}: max abs diff {numpy.max(numpy.abs(actual - reference))}")


@pytest.mark.parametrize("name", model_names())
@pytest.mark.parametrize("strategy", ["greedy", "none"])
def test_shared_model_matches_reference(name, strategy):
    folder = MODELS / name
    meta = load_meta(folder)
    plan = fusec.compile(folder / "model.onnx", target="cpu", fusion_strategy=strategy)
    assert [tensor["name"] for tensor in plan.inputs] == [tensor["name"] for tensor in meta["inputs"]]
    assert plan.inputs[0]["shape"][0] is None  # the batch
    check_against_reference(fusec.Session(plan, device="cpu"), folder, meta)


@pytest.mark.parametrize("name", ["tiny_resnet", "residual_block"])
def test_channels_last_plans_match_reference(name):
    """layout="nhwc": convs and pools in NHWC between one transpose in
    (the model's input stays NCHW) and none out (the classifier's)."""
    folder = MODELS / name
    plan = fusec.compile(folder / "model.onnx", target="cpu", layout="nhwc")
    check_against_reference(fusec.Session(plan, device="cpu"), folder, load_meta(folder))
    with pytest.raises(fusec.CompileError, match=r"layout must be auto, nchw or nhwc, got 'hwcn'"):
        fusec.compile(folder / "model.onnx", target="cpu", layout="hwcn")


def test_fusion_fuses_and_the_report_says_so(tmp_path):
    folder = MODELS / "conv_bn_relu"
    fused = fusec.compile(folder / "model.onnx", target="cpu")
    unfused = fusec.compile(folder / "model.onnx", target="cpu", fusion_strategy="none")
    fused_kernels = fused.describe()["kernels"]["count"]
    assert fused_kernels < unfused.describe()["kernels"]["count"]
    report = fused.report
    assert report["strategy"] == "greedy"
    assert len(report["kernels"]) == fused_kernels
    assert any(len(kernel["members"]) > 1 for kernel in report["kernels"])
    assert fusec.compile(folder / "model.onnx", target="cpu", report=False).report is None


def test_a_saved_plan_loads_and_runs_the_same(tmp_path):
    folder = MODELS / "residual_block"
    plan = fusec.compile(folder / "model.onnx", target="cpu")
    path = tmp_path / "model.plan"
    plan.save(path)
    assert path.read_bytes() == plan.to_bytes()
    loaded = fusec.Plan.load(path)
    assert loaded.report is None
    check_against_reference(fusec.Session(loaded, device="cpu"), folder, load_meta(folder))
    from_bytes = fusec.Plan.from_bytes(plan.to_bytes())
    assert from_bytes.inputs == plan.inputs


def test_model_bytes_compile_like_the_file():
    folder = MODELS / "mlp"
    from_file = fusec.compile(folder / "model.onnx", target="cpu")
    from_bytes = fusec.compile((folder / "model.onnx").read_bytes(), target="cpu")
    assert from_bytes.describe()["kernels"] == from_file.describe()["kernels"]
    check_against_reference(fusec.Session(from_bytes, device="cpu"), folder, load_meta(folder))


def test_device_auto_runs_somewhere():
    plan = fusec.compile(MODELS / "mlp" / "model.onnx", target="cpu")
    # A CPU plan has no GPU kernels: auto picks the CPU reference backend.
    session = fusec.Session(plan)
    assert session.device == "cpu"
    assert session.max_batch >= 16


@pytest.mark.parametrize("name", ["tiny_resnet", "mlp"])
def test_gpu_plan_matches_reference_on_cuda(name):
    """An sm_90 plan on the GPU; skipped, saying why, where CUDA cannot run."""
    folder = MODELS / name
    plan = fusec.compile(folder / "model.onnx", target="sm_90")
    try:
        session = fusec.Session(plan, device="cuda")
    except fusec.Error as error:
        pytest.skip(f"no GPU: {error}")
    assert session.device == "cuda"
    check_against_reference(session, folder, load_meta(folder))
