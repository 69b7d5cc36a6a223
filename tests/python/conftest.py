"""Shared paths for the Python package's tests: the repository's test data."""

import json
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TESTDATA = ROOT / "testdata"


@pytest.fixture(scope="session", autouse=True)
def scratch_temp_dir():
    """Points the temporary directory of this process and of the processes it starts at one
    directory, removed after the run: Beam's multi-process runner leaves an empty ``beam-temp*``
    directory in it for each pipeline, and Ray a session directory of a few megabytes for each
    ``ray.init`` (Ray takes ``TMPDIR`` on Linux), which would otherwise pile up in ``/tmp``."""
    import os
    import shutil
    import tempfile

    scratch = tempfile.mkdtemp(prefix="tfr-py-tests-")
    before = os.environ.get("TMPDIR"), tempfile.tempdir
    os.environ["TMPDIR"] = scratch
    tempfile.tempdir = scratch
    try:
        yield scratch
    finally:
        if before[0] is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = before[0]
        tempfile.tempdir = before[1]
        shutil.rmtree(scratch, ignore_errors=True)


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


@pytest.fixture(scope="session")
def cli():
    """Runs the command line (``TFR_INSPECT_BIN``, else the build ``cargo test`` made), giving its
    standard output, error stream and exit code; skipped when it is not built, except under CI."""
    import os
    import subprocess

    binary = os.environ.get("TFR_INSPECT_BIN") or str(ROOT / "target" / "debug" / "tfr-inspect")
    if not os.path.isfile(binary):
        if os.environ.get("TFR_INSPECT_CI") == "1":
            pytest.fail(f"{binary} is not built")
        pytest.skip(f"{binary} is not built (cargo build)")

    def run(*args, cwd=None):
        done = subprocess.run([binary, *map(str, args)], capture_output=True, cwd=cwd, env={**os.environ, "NO_COLOR": "1"})
        return done.stdout.decode(), done.stderr.decode(), done.returncode

    return run


@pytest.fixture()
def sharded(tmp_path):
    """A dataset of two splits in ``tmp_path/data``: ``train`` of two shards, the second with a
    damaged record, and ``test`` of one; the shards are the repository's test files renamed."""
    import shutil

    data = tmp_path / "data"
    data.mkdir()
    for name, source in [
        ("train-00000-of-00002.tfrecord", TESTDATA / "examples.tfrecord"),
        ("train-00001-of-00002.tfrecord", TESTDATA / "corrupt" / "data_crc_bitflip.tfrecord"),
        ("test-00000-of-00001.tfrecord", TESTDATA / "mnist_like.tfrecord"),
    ]:
        shutil.copyfile(source, data / name)
    return data
