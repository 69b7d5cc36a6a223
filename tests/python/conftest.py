"""Shared paths for the Python package's tests: the repository's test data."""

import json
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TESTDATA = ROOT / "testdata"


@pytest.fixture(scope="session")
def manifest():
    return json.loads((TESTDATA / "manifest.json").read_text())["files"]


def need(module):
    """Imports an optional module (pyarrow, Apache Beam, Ray), skipping the test without it,
    except under CI (``TFR_INSPECT_CI=1``), where a missing engine must fail, not skip."""
    import importlib
    import os

    if os.environ.get("TFR_INSPECT_CI") == "1":
        return importlib.import_module(module)
    return pytest.importorskip(module)
