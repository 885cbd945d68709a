"""fusec.torch: torch modules compiled through their ONNX export, run on
torch tensors, and torch.compile(backend="fusec") with its eager fallback.
Needs torch and torchvision (.venv, from python/requirements-test.txt)."""
import warnings

import pytest

from conftest import require

torch = require("torch", "fusec.torch is tested where torch is installed (.venv)")
torchvision = require("torchvision", "fusec.torch is tested on torchvision's models (.venv)")

import fusec  # noqa: E402
import fusec.torch  # noqa: E402


@pytest.fixture(autouse=True)
def plan_cache(tmp_path, monkeypatch):
    """Each test its own plan cache: no test reads another's plans."""
    monkeypatch.setenv("FUSEC_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "torch"


def relative_error(actual, expected):
    return float((actual - expected).norm() / expected.norm())


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v2"])
def test_torchvision_models_match_torch_at_other_batches(name):
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)().eval()
    run = fusec.torch.compile(model, (torch.randn(2, 3, 64, 64),))
    with torch.no_grad():
        for batch in (1, 5):
            x = torch.randn(batch, 3, 64, 64)
            result = run(x)
            assert isinstance(result, torch.Tensor) and result.shape == (batch, 1000)
            assert relative_error(result, model(x)) < 1e-5


def encoder():
    layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, batch_first=True,
                                             dropout=0.0, norm_first=True)
    return torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()


def test_transformer_encoder_runs_every_sequence_length_of_its_range():
    torch.manual_seed(0)
    model = encoder()
    run = fusec.torch.compile(model, (torch.randn(2, 9, 32),), dynamic={"seq": (1, 48)},
                              dynamic_axes={0: {1: "seq"}}, target="cpu")
    with torch.no_grad():
        for batch, seq in ((3, 1), (2, 17), (1, 48)):
            x = torch.randn(batch, seq, 32)
            assert relative_error(run(x), model(x)) < 1e-5
    # For the CPU one plan runs the whole range (fusec --dim seq=1:48).
    assert list(run.plans) == [()]
    assert run.plans[()].ranges == {"seq": (1, 48, 48)}
    with pytest.raises(fusec.Error, match=r"dimension 'seq' is 49, outside the range 1:48 it was compiled for"):
        run(torch.randn(1, 49, 32))


def test_a_gpu_plan_runs_every_sequence_length_of_its_range_too():
    torch.manual_seed(0)
    model = encoder()
    run = fusec.torch.compile(model, (torch.randn(2, 9, 32),), dynamic={"seq": (1, 48)},
                              dynamic_axes={0: {1: "seq"}}, target="sm_90")
    # One sm_90 plan for the range; CPU tensors run it on the CPU backend.
    assert list(run.plans) == [()]
    assert run.plans[()].ranges == {"seq": (1, 48, 48)}
    assert run.plans[()].describe()["target"] == "sm_90"
    with torch.no_grad():
        for batch, seq in ((3, 1), (1, 48)):
            x = torch.randn(batch, seq, 32)
            assert relative_error(run(x), model(x)) < 1e-5


def test_plans_are_cached_on_disk_by_graph_and_options(plan_cache, monkeypatch):
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4)).eval()
    example = (torch.randn(2, 8),)
    first = fusec.torch.compile(model, example)
    assert len(list(plan_cache.glob("*.plan"))) == 1

    def no_compiles(*args, **kwargs):
        raise AssertionError("compiled again instead of loading the cached plan")

    monkeypatch.setattr(fusec.torch, "_compile_model", no_compiles)
    again = fusec.torch.compile(model, example)
    x = torch.randn(3, 8)
    assert torch.equal(again(x), first(x))
    with pytest.raises(AssertionError, match="compiled again"):
        fusec.torch.compile(model, example, fusion_strategy="none")  # other options: another plan


def test_outputs_keep_the_modules_structure():
    class TwoHeads(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = torch.nn.Linear(8, 8)

        def forward(self, x, y):
            h = torch.relu(self.body(x)) + y
            return {"sum": h, "pair": (h * 2, torch.sigmoid(h))}

    model = TwoHeads().eval()
    run = fusec.torch.compile(model, (torch.randn(2, 8), torch.randn(2, 8)))
    x, y = torch.randn(4, 8), torch.randn(4, 8)
    result, expected = run(x, y), model(x, y)
    assert set(result) == {"sum", "pair"} and len(result["pair"]) == 2
    assert torch.allclose(result["pair"][1], expected["pair"][1], atol=1e-6)
    assert torch.allclose(result["sum"], expected["sum"], atol=1e-6)


def test_bad_uses_say_what_to_do():
    model = encoder()
    with pytest.raises(fusec.Error, match=r"dynamic names 'seq', but no input axis is named 'seq'"):
        fusec.torch.compile(model, (torch.randn(2, 9, 32),), dynamic={"seq": (1, 48)})
    with pytest.raises(fusec.Error, match=r"the batch is always dynamic"):
        fusec.torch.compile(model, (torch.randn(2, 9, 32),), dynamic={"batch": (1, 8)})
    run = fusec.torch.compile(torch.nn.Linear(4, 4).eval(), (torch.randn(2, 4),))
    with pytest.raises(fusec.Error, match=r"the module takes 1 tensors, got 2"):
        run(torch.randn(2, 4), torch.randn(2, 4))


class BranchOnData(torch.nn.Module):
    """A Python `if` on a tensor's value: dynamo breaks the graph there."""

    def __init__(self):
        super().__init__()
        self.first = torch.nn.Linear(16, 16)
        self.second = torch.nn.Linear(16, 16)

    def forward(self, x):
        y = torch.relu(self.first(x))
        if y.sum() > 0:
            return self.second(y)
        return y * 2


def test_torch_compile_backend_compiles_the_graphs_around_a_break():
    torch.manual_seed(0)
    model = BranchOnData().eval()
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="fusec", dynamic=False)
    x = torch.randn(4, 16)
    with warnings.catch_warnings():
        warnings.simplefilter("error", fusec.torch.FusecFallbackWarning)
        with torch.no_grad():
            for _ in range(2):
                assert torch.allclose(compiled(x), model(x), atol=1e-5)
                assert torch.allclose(compiled(-x), model(-x), atol=1e-5)


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v2", "encoder"])
def test_torch_compile_backend_runs_the_models_as_torch_does(name, monkeypatch):
    torch.manual_seed(0)
    if name == "encoder":
        # Without gradients, eval-mode encoder layers take PyTorch's fused fast
        # path, one native op that has no ONNX form (the next test).
        monkeypatch.setattr(torch.backends.mha, "get_fastpath_enabled", lambda: False)
        model, x = encoder(), torch.randn(3, 9, 32)
    else:
        model, x = getattr(torchvision.models, name)().eval(), torch.randn(2, 3, 64, 64)
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="fusec", dynamic=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", fusec.torch.FusecFallbackWarning)
        with torch.no_grad():
            assert relative_error(compiled(x), model(x)) < 1e-5


def test_torch_compile_backend_names_the_transformer_fast_path():
    torch._dynamo.reset()
    model = encoder()
    compiled = torch.compile(model, backend="fusec", dynamic=False)
    x = torch.randn(2, 9, 32)
    reason = (r"runs eagerly: PyTorch's fused transformer fast path \(_transformer_encoder_layer_fwd\) "
              r"has no ONNX form: call torch.backends.mha.set_fastpath_enabled\(False\)")
    with pytest.warns(fusec.torch.FusecFallbackWarning, match=reason), torch.no_grad():
        assert torch.allclose(compiled(x), model(x))


def test_torch_compile_options_reach_the_compiler():
    torch._dynamo.reset()
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU()).eval()
    compiled = torch.compile(model, backend="fusec", dynamic=False, options={"fusion_strategy": "fastest"})
    with pytest.warns(fusec.torch.FusecFallbackWarning, match=r"unknown fusion strategy 'fastest'"), torch.no_grad():
        x = torch.randn(2, 8)
        assert torch.allclose(compiled(x), model(x))


class Determinant(torch.nn.Module):
    """A graph fusec has no op for (ONNX Det)."""

    def forward(self, x):
        return torch.linalg.det(x @ x.transpose(-1, -2) + 1.0)


def test_torch_compile_backend_runs_what_fusec_cannot_eagerly_after_one_warning():
    torch._dynamo.reset()
    compiled = torch.compile(Determinant(), backend="fusec", dynamic=False)
    x = torch.randn(3, 4, 4)
    reason = r"fusec: a graph of \d+ nodes runs eagerly: <torch.compile graph export>: error: unsupported ONNX ops: Det"
    with pytest.warns(fusec.torch.FusecFallbackWarning, match=reason):
        assert torch.allclose(compiled(x), Determinant()(x))
    with warnings.catch_warnings():
        warnings.simplefilter("error", fusec.torch.FusecFallbackWarning)
        assert torch.allclose(compiled(x), Determinant()(x))  # once: no second warning


def test_cuda_tensors_run_on_the_gpu_on_torchs_stream():
    if not torch.cuda.is_available():
        pytest.skip("no GPU: torch finds no CUDA device")
    torch.manual_seed(0)
    model = torchvision.models.resnet18().eval()
    run = fusec.torch.compile(model, (torch.randn(2, 3, 64, 64),))  # target: the GPU torch sees
    assert run.plans[()].describe()["target"].startswith("sm_")
    x = torch.randn(4, 3, 64, 64)
    on_gpu = run(x.cuda())
    assert on_gpu.is_cuda and on_gpu.shape == (4, 1000)
    with torch.no_grad():
        assert relative_error(on_gpu.cpu(), model(x)) < 1e-4


def test_import_fusec_imports_neither_torch_nor_ray():
    import subprocess
    import sys

    probe = "import sys, fusec; print(sorted(m for m in ('torch', 'ray') if m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                          text=True).stdout.strip() == "[]"
