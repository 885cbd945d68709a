#!/usr/bin/env bash
# The wheel, as a user meets it: a fresh virtual environment, `pip install .`
# from this checkout (scikit-build-core builds the CMake project: the package
# and the fusec/fuserun executables, no tests), then `import fusec`, the
# executables on PATH, and a shared model compiled by `fusec`, checked by
# `fuserun --check` against its reference outputs and compiled and run from
# Python against the same outputs.
#
# The build goes to build-wheel/ (pyproject.toml), at the depth of build/:
# with CCACHE_BASEDIR at the checkout (scripts/run-tests.sh sets it), the
# compiles the main build already made are cache hits.
#
# Environment: FUSEC_WHEEL_VENV (default build-wheel-venv).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
start=$(date +%s)
venv=${FUSEC_WHEEL_VENV:-$root/build-wheel-venv}

# The main build's compiler by the same name: ccache keys on it, and pip's
# build environment would otherwise give CMake Python's own (sysconfig's
# x86_64-linux-gnu-g++).
export CC=${CC:-cc} CXX=${CXX:-c++}

rm -rf "$venv"
/usr/bin/python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check --upgrade pip
echo "wheel: pip install . into a fresh $venv"
"$venv/bin/pip" install -q --disable-pip-version-check "$root"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" # not the checkout: `import fusec` must find the installed package
PATH=$venv/bin:$PATH
version=$(python -c 'import fusec; print(fusec.__version__)')
echo "wheel: import fusec: $version from $(python -c 'import fusec, os; print(os.path.dirname(fusec.__file__))')"
[[ $(command -v fusec) == "$venv/bin/fusec" && $(command -v fuserun) == "$venv/bin/fuserun" ]] || {
  echo "wheel: fusec and fuserun are not the environment's executables" >&2
  exit 1
}
fusec --help >/dev/null
fusec --version | grep -q "fusec $version" || {
  echo "wheel: fusec --version is not the package's $version" >&2
  exit 1
}

model=$root/test/data/models/tiny_resnet
fusec "$model/model.onnx" --target=cpu -o tiny_resnet.plan
fuserun tiny_resnet.plan --device=cpu --input "input=$model/input_b4.npy" --output-dir=cli
python - "$model" <<'PYTHON'
import json, pathlib, sys
import numpy
import fusec

model = pathlib.Path(sys.argv[1])
meta = json.loads((model / "meta.json").read_text())
tolerance = meta["tolerance"]
expected = numpy.load(model / "output_b4.npy")
from_cli = numpy.load("cli/output.npy")
plan = fusec.compile(model / "model.onnx", target="cpu")
from_python = fusec.Session(plan, device="cpu").run({"input": numpy.load(model / "input_b4.npy")})["output"]
for who, actual in (("fuserun", from_cli), ("fusec.Session", from_python)):
    numpy.testing.assert_allclose(actual, expected, rtol=tolerance["rtol"], atol=tolerance["atol"],
                                  err_msg=who + " against PyTorch's outputs")
    print("wheel: %s matches PyTorch's outputs (max abs error %.2e)" % (who, abs(actual - expected).max()))

# torch.compile finds the backend by this entry point, without an import.
from importlib.metadata import entry_points
backends = {point.name: point.value for point in entry_points(group="torch_dynamo_backends")}
assert backends.get("fusec") == "fusec.torch:backend", backends
print("wheel: torch.compile(backend='fusec') entry point: fusec.torch:backend")
PYTHON
echo "wheel: passed in $(($(date +%s) - start)) s"
