"""Shared fixtures of the Python package's tests.

FUSEC_TEST_MODELS (set by ctest) is the folder of the shared models: each a
model.onnx, its meta.json (inputs, outputs, tolerances) and reference inputs
and outputs as .npy files per batch size.
"""
import json
import os
import pathlib

import pytest

MODELS = pathlib.Path(os.environ.get("FUSEC_TEST_MODELS",
                                     pathlib.Path(__file__).resolve().parents[1] / "data" / "models"))


def model_names():
    return sorted(p.name for p in MODELS.iterdir() if (p / "meta.json").is_file())


@pytest.fixture
def model_dir(request):
    return MODELS / request.param


def load_meta(folder):
    with open(folder / "meta.json") as file:
        return json.load(file)


def require(module_name, reason):
    """Imports a package from the package index (torch, ray): skipped with
    `reason` where it is missing, except under the test environment that
    scripts/setup.sh makes (FUSEC_REQUIRE_PYTHON_PACKAGES=1, the ctest
    `python-venv`), where a missing package is a failed test."""
    if os.environ.get("FUSEC_REQUIRE_PYTHON_PACKAGES") == "1":
        return __import__(module_name)
    return pytest.importorskip(module_name, reason=reason)
