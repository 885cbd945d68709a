#!/usr/bin/env bash
# Installs what fusec needs to build and test on Debian 12 (bookworm), as root.
# Idempotent and fast when everything is there: it only calls apt-get for
# packages that are missing.
#
# It also makes .venv, a virtual environment with the Python packages that
# the Python tests and the test-data generators use, pinned in
# python/requirements-test.txt (PyTorch, torchvision, onnx, onnxscript, Ray
# Serve, scikit-build-core from the package index): the tests of fusec.torch,
# fusec.serve and `pip install .` run in it. The core build needs none of
# them. (--python-tools, which used to make .venv on request, is accepted and
# changes nothing.)
set -euo pipefail

for arg in "$@"; do
  case $arg in
  --python-tools) ;;
  *)
    echo "setup: unknown option '$arg' (expected --python-tools)" >&2
    exit 2
    ;;
  esac
done

packages=(
  cmake ninja-build g++ ccache lld python3
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools
  clang-19 libclang-rt-19-dev
  nlohmann-json3-dev catch2
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  clang-format-19 clang-tidy-19 git
  python3-dev pybind11-dev python3-numpy python3-pytest python3-venv libdlpack-dev
)

missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi

if [[ -f /usr/local/cuda/include/nvrtc.h ]]; then
  echo "setup: CUDA toolkit found at /usr/local/cuda (NVRTC kernel compilation on)"
else
  echo "setup: no CUDA toolkit at /usr/local/cuda: kernels are emitted but not compiled by NVRTC"
fi

# cuobjdump and nvdisasm (the CUDA image has neither) from the package index,
# for the tests that read the SASS of kernels NVRTC compiled (HGMMA, UTMALDG):
# .tools/bin. Without them those checks skip, saying so.
sass_tools_version=13.5.37
root=$(cd "$(dirname "$0")/.." && pwd)
if [[ ! -x $root/.tools/bin/nvdisasm || ! -f $root/.tools/sass-$sass_tools_version ]]; then
  dpkg -s python3-venv >/dev/null 2>&1 || {
    sudo=""
    [[ $(id -u) -ne 0 ]] && sudo="sudo"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends python3-venv
  }
  rm -rf "$root/.tools"
  if /usr/bin/python3 -m venv "$root/.tools/venv" &&
    "$root/.tools/venv/bin/pip" install -q "nvidia-cuda-cuobjdump==$sass_tools_version" \
      "nvidia-cuda-nvdisasm==$sass_tools_version"; then
    mkdir -p "$root/.tools/bin"
    for tool in cuobjdump nvdisasm; do
      ln -sf "$(find "$root/.tools/venv" -path "*/nvidia/*/bin/$tool" -type f | head -1)" "$root/.tools/bin/$tool"
    done
    touch "$root/.tools/sass-$sass_tools_version"
    echo "setup: cuobjdump and nvdisasm $sass_tools_version in .tools/bin"
  else
    echo "setup: could not install cuobjdump/nvdisasm from the package index: SASS checks will skip"
  fi
fi

# The Python test environment: rebuilt only when its pinned requirements change.
requirements=$root/python/requirements-test.txt
stamp=$root/.venv/.requirements-$(sha256sum "$requirements" | cut -c1-16)
if [[ ! -f $stamp ]]; then
  [[ -x $root/.venv/bin/python ]] || /usr/bin/python3 -m venv "$root/.venv"
  "$root/.venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"
  rm -f "$root"/.venv/.requirements-* && touch "$stamp"
fi
echo "setup: Python test environment in .venv ($("$root/.venv/bin/python" -c 'import torch, ray; print("torch", torch.__version__, "ray", ray.__version__)'))"
