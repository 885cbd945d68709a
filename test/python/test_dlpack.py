"""DLPack: tensors of other libraries in and out without copies, on the
CPU backend (runs without torch; the torch cases need .venv's torch)."""
import numpy
import pytest

import fusec
from conftest import MODELS, require


class DlpackOnly:
    """Exposes a numpy array through __dlpack__ alone, as JAX or a library
    without the array interfaces would."""

    def __init__(self, array, device=(1, 0)):
        self.array = array
        self.device = device

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.device


def mlp():
    plan = fusec.compile(MODELS / "mlp" / "model.onnx", target="cpu")
    session = fusec.Session(plan, device="cpu")
    inputs = {tensor["name"]: numpy.random.default_rng(1).standard_normal(
        [3 if extent is None else extent for extent in tensor["shape"]]).astype(numpy.float32)
        for tensor in plan.inputs}
    return plan, session, inputs


def test_run_takes_dlpack_host_tensors_as_numpy_arrays():
    plan, session, inputs = mlp()
    expected = session.run(inputs)
    through_dlpack = session.run({name: DlpackOnly(array) for name, array in inputs.items()})
    for name, array in expected.items():
        numpy.testing.assert_array_equal(through_dlpack[name], array)
        # Outputs are numpy arrays: other libraries take them by DLPack.
        assert numpy.from_dlpack(through_dlpack[name]).shape == array.shape


def test_run_refuses_device_tensors_by_name():
    plan, session, inputs = mlp()
    name = plan.inputs[0]["name"]
    on_gpu = dict(inputs, **{name: DlpackOnly(inputs[name], device=(2, 0))})
    with pytest.raises(fusec.Error, match=r"input '%s' is in CUDA device memory: Session.run takes host arrays"
                       % name):
        session.run(on_gpu)


def test_run_device_reads_dlpack_tensors_and_writes_into_them():
    plan, session, inputs = mlp()
    expected = session.run(inputs)
    outputs = {tensor["name"]: numpy.zeros([3 if e is None else e for e in tensor["shape"]], numpy.float32)
               for tensor in plan.outputs}
    session.run_device({name: DlpackOnly(array) for name, array in inputs.items()},
                       {name: DlpackOnly(array) for name, array in outputs.items()})
    for name, array in expected.items():
        numpy.testing.assert_array_equal(outputs[name], array)


def test_run_device_checks_dlpack_tensors_like_arrays():
    plan, session, inputs = mlp()
    name = plan.inputs[0]["name"]
    outputs = {tensor["name"]: numpy.zeros([3 if e is None else e for e in tensor["shape"]], numpy.float32)
               for tensor in plan.outputs}
    wrong_type = dict(inputs, **{name: DlpackOnly(inputs[name].astype(numpy.float64))})
    with pytest.raises(fusec.Error, match=r"'%s' has typestr <f8, the plan takes f32" % name):
        session.run_device(wrong_type, outputs)
    on_gpu = dict(inputs, **{name: DlpackOnly(inputs[name], device=(2, 0))})
    with pytest.raises(fusec.Error, match=r"'%s' is in CUDA device memory, not host memory" % name):
        session.run_device(on_gpu, outputs)
    transposed = dict(inputs, **{name: DlpackOnly(numpy.ascontiguousarray(inputs[name].swapaxes(-1, -2))
                                                  .swapaxes(-1, -2))})
    with pytest.raises(fusec.Error, match=r"'%s' is not C-contiguous" % name):
        session.run_device(transposed, outputs)


def test_a_dlpack_capsule_is_consumed_once():
    capsule = numpy.zeros(4, numpy.float32).__dlpack__()
    description, holder = fusec._fusec._dlpack_interface(capsule, "x")
    assert description["shape"] == (4,) and description["typestr"] == "<f4" and description["device"] == (1, 0)
    with pytest.raises(fusec.Error, match=r"'x': __dlpack__\(\) gave a capsule named 'used_dltensor'"):
        fusec._fusec._dlpack_interface(capsule, "x")
    del holder


def test_torch_tensors_in_and_out_without_copies():
    torch = require("torch", "torch tensors through DLPack are tested where torch is installed (.venv)")
    plan, session, inputs = mlp()
    expected = session.run(inputs)
    tensors = {name: torch.from_numpy(array) for name, array in inputs.items()}
    outputs = session.run(tensors)
    for name, array in expected.items():
        result = torch.from_dlpack(outputs[name])
        assert result.data_ptr() == outputs[name].ctypes.data  # the same memory, not a copy
        numpy.testing.assert_array_equal(result.numpy(), array)
    written = {tensor["name"]: torch.zeros([3 if e is None else e for e in tensor["shape"]])
               for tensor in plan.outputs}
    session.run_device(tensors, written)
    for name, array in expected.items():
        numpy.testing.assert_array_equal(written[name].numpy(), array)
    # DLPack names bfloat16 by type code: taken as the bf16 tensors' raw bits, refused for an f32 input.
    name = plan.inputs[0]["name"]
    with pytest.raises(fusec.Error, match=r"'%s' has typestr <V2, the plan takes f32" % name):
        session.run_device(dict(tensors, **{name: tensors[name].bfloat16()}), written)


class InterfaceRefusesItsType(DlpackOnly):
    """An array whose interface property raises for its element type, as
    torch's __cuda_array_interface__ does for bfloat16: DLPack takes over."""

    @property
    def __array_interface__(self):
        raise TypeError("dtype is not supported by the array interface")


def test_run_device_falls_back_to_dlpack_where_the_interface_refuses_a_type():
    plan, session, inputs = mlp()
    expected = session.run(inputs)
    outputs = {tensor["name"]: numpy.zeros([3 if e is None else e for e in tensor["shape"]], numpy.float32)
               for tensor in plan.outputs}
    session.run_device({name: InterfaceRefusesItsType(array) for name, array in inputs.items()}, outputs)
    for name, array in expected.items():
        numpy.testing.assert_array_equal(outputs[name], array)
