"""Shared paths for the Python package's tests: the repository's test data."""

import json
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TESTDATA = ROOT / "testdata"


@pytest.fixture(scope="session")
def manifest():
    return json.loads((TESTDATA / "manifest.json").read_text())["files"]
