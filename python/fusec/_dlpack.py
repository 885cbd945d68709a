"""Arrays from other libraries, taken as they are: the array interfaces
(__array_interface__, __cuda_array_interface__) and DLPack (__dlpack__).

Session.run takes host memory and Session.run_device the session's device
memory; both check every array against the plan's tensor by the description
made here (data address, shape, byte strides, typestr), whichever protocol
it came by. DLPack capsules are consumed by fusec._fusec._dlpack_interface,
whose holder keeps the producer's tensor alive while the run uses it.
"""

import numpy

from ._fusec import Error, _dlpack_interface

# DLDeviceType (dlpack/dlpack.h): where a DLPack tensor's memory is.
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13
_DEVICE_NAMES = {_DL_CPU: "host", _DL_CUDA: "CUDA device", _DL_CUDA_HOST: "CUDA pinned host", 4: "OpenCL",
                 7: "Vulkan", 8: "Metal", 10: "ROCm", _DL_CUDA_MANAGED: "CUDA managed"}


def _device_name(device_type):
    return _DEVICE_NAMES.get(device_type, "DLPack device type %d" % device_type)


def _check_device(device_type, wanted, name, where):
    if device_type not in wanted:
        raise Error("'%s' is in %s memory, not %s" % (name, _device_name(device_type), where))


def host_array(value, name):
    """An input for Session.run: numpy arrays as they are, host tensors with
    __dlpack__ as numpy views of the same memory; anything else is left to
    numpy.asarray in the extension. Device tensors are refused by name."""
    if isinstance(value, numpy.ndarray) or not hasattr(value, "__dlpack__"):
        return value
    if hasattr(value, "__dlpack_device__"):
        device_type = int(value.__dlpack_device__()[0])
        if device_type not in (_DL_CPU, _DL_CUDA_HOST):
            raise Error("input '%s' is in %s memory: Session.run takes host arrays (run_device takes arrays in "
                        "the session's device memory)" % (name, _device_name(device_type)))
    try:
        return numpy.from_dlpack(value)
    except (BufferError, TypeError, RuntimeError) as error:
        # numpy has no DLPack import for every type (bfloat16, some bools):
        # numpy's own conversion, or a message naming the input.
        try:
            return numpy.asarray(value)
        except Exception:  # noqa: BLE001 - the DLPack error says more
            raise Error("input '%s' (%s) cannot be read as a numpy array: %s"
                        % (name, type(value).__name__, error)) from None


def describe_device_array(array, name, on_cuda, stream):
    """(description, holder) of an array for Session.run_device: its
    __cuda_array_interface__ (on CUDA) or __array_interface__ (on the CPU
    backend) where it has one, else its DLPack tensor. `stream` (a CUstream
    handle, 0 for none) is the one the run is ordered on: a DLPack producer
    orders its pending work before it. The holder (None, or the consumed
    DLPack tensor) must live until the run is enqueued."""
    interface = "__cuda_array_interface__" if on_cuda else "__array_interface__"
    where = "CUDA device memory" if on_cuda else "host memory"
    try:
        description = getattr(array, interface, None)
    except TypeError:
        # torch raises for element types the array interfaces cannot name
        # (bfloat16); DLPack names them.
        description = None
    if description is not None and (on_cuda or isinstance(array, numpy.ndarray)):
        return description, None
    if hasattr(array, "__dlpack__"):
        wanted = (_DL_CUDA, _DL_CUDA_MANAGED) if on_cuda else (_DL_CPU, _DL_CUDA_HOST)
        # The producer says where its memory is before anything is consumed.
        if hasattr(array, "__dlpack_device__"):
            _check_device(int(array.__dlpack_device__()[0]), wanted, name, where)
        if on_cuda and stream:
            try:
                capsule = array.__dlpack__(stream=stream)
            except TypeError:  # a producer without the stream argument
                capsule = array.__dlpack__()
        else:
            capsule = array.__dlpack__()
        description, holder = _dlpack_interface(capsule, name)
        _check_device(description["device"][0], wanted, name, where)
        return description, holder
    if description is not None:
        return description, None
    raise Error("'%s' is a %s, not an array in %s (%s or __dlpack__)"
                % (name, type(array).__name__, where, interface))
