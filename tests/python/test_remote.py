"""Object URLs wherever a path is taken, read from moto's S3 emulator on loopback (started by
scripts/emulators.sh, which sets TFR_INSPECT_S3_ENDPOINT): what Python gives of an s3:// URL is
what the command line prints of it."""

import os
import time
import urllib.request

import pytest

import tfr_inspect


@pytest.fixture(scope="module")
def bucket(tmp_path_factory):
    """A fresh bucket holding the dataset of ``sharded`` under ``data/``, and the environment the
    client (and the command line) reads it with."""
    endpoint = os.environ.get("TFR_INSPECT_S3_ENDPOINT", "").rstrip("/")
    if not endpoint:
        if os.environ.get("TFR_INSPECT_CI") == "1":
            pytest.fail("TFR_INSPECT_S3_ENDPOINT is not set: CI starts moto with scripts/emulators.sh")
        pytest.skip("TFR_INSPECT_S3_ENDPOINT is not set (scripts/emulators.sh run starts moto)")
    from conftest import TESTDATA

    name = f"tfr-py-{os.getpid()}-{time.time_ns() % 10**9}"

    def put(path, body=b""):
        # moto takes an unsigned request as any account's.
        request = urllib.request.Request(
            f"{endpoint}/{name}{path}",
            data=body,
            method="PUT",
            headers={"Content-Type": "application/octet-stream", "Content-Length": str(len(body))},
        )
        # Straight to the emulator on loopback, past any proxy the environment names.
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with direct.open(request, timeout=30) as response:
            assert response.status == 200

    put("")
    shards = {
        "train-00000-of-00002.tfrecord": TESTDATA / "examples.tfrecord",
        "train-00001-of-00002.tfrecord": TESTDATA / "corrupt" / "data_crc_bitflip.tfrecord",
        "test-00000-of-00001.tfrecord": TESTDATA / "mnist_like.tfrecord",
    }
    for key, source in shards.items():
        put(f"/data/{key}", source.read_bytes())
    # Read once, when the first URL is: set before any test reads one.
    os.environ.update(
        {
            "AWS_ENDPOINT_URL": endpoint,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_REGION": "us-east-1",
        }
    )
    return f"s3://{name}", shards


def test_a_file_opened_by_url_has_the_records_of_its_local_copy(bucket):
    url, shards = bucket
    remote = tfr_inspect.open(f"{url}/data/train-00001-of-00002.tfrecord")
    local = tfr_inspect.open(shards["train-00001-of-00002.tfrecord"])
    assert len(remote) == len(local) == 200
    assert remote[0] == local[0] and remote[-1] == local[-1]
    assert [d.to_dict() for d in remote.damage()] == [d.to_dict() for d in local.damage()]


def test_stats_locate_and_index_of_urls_are_what_the_command_line_prints(cli, bucket):
    url, _ = bucket
    for args in ([f"{url}/data/"], [f"{url}/data/train-*"]):
        out, _, code = cli("stats", "--json", *args)
        report = tfr_inspect.stats(args)
        assert report.to_json() == out and report.status == code
    partials = [tfr_inspect.stats_partial(f"{url}/data/{k}") for k in sorted(bucket[1])]
    assert tfr_inspect.StatsPartial.merge(partials).to_json() == cli("stats", "--json", f"{url}/data/")[0]
    damaged = f"{url}/data/train-00001-of-00002.tfrecord"
    out, _, code = cli("locate", "--json", damaged, 19288)
    assert tfr_inspect.locate(damaged, 19288).to_json() == out and code == 1
    clean = f"{url}/data/train-00000-of-00002.tfrecord"
    assert tfr_inspect.index(clean).to_text() == cli("index", clean)[0]
    assert not tfr_inspect.verify([damaged]).ok


def test_a_missing_object_raises_os_error_naming_its_url(bucket):
    url, _ = bucket
    with pytest.raises(OSError, match=f"{url}/data/gone.tfrecord"):
        tfr_inspect.open(f"{url}/data/gone.tfrecord")
