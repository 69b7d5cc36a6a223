"""Object URLs wherever a path is taken, read from the object-store emulators on loopback
(started by scripts/emulators.sh, which sets TFR_INSPECT_S3_ENDPOINT, TFR_INSPECT_GCS_ENDPOINT
and TFR_INSPECT_AZURE_ENDPOINT): moto (s3://), fake-gcs-server (gs://) and Azurite (az://).
What Python gives of a URL is what it gives of the object's local copy, and what the command
line prints of the URL."""

import base64
import email.utils
import hashlib
import hmac
import json
import os
import time
import urllib.parse
import urllib.request

import pytest

import tfr_inspect
from conftest import TESTDATA, need

# Azurite's development account, as Azure's tools name it.
AZURITE_ACCOUNT = "devstoreaccount1"
AZURITE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

SHARDS = {
    "train-00000-of-00002.tfrecord": TESTDATA / "examples.tfrecord",
    "train-00001-of-00002.tfrecord": TESTDATA / "corrupt" / "data_crc_bitflip.tfrecord",
    "test-00000-of-00001.tfrecord": TESTDATA / "mnist_like.tfrecord",
}
DAMAGED = "train-00001-of-00002.tfrecord"

# Straight to the emulators on loopback, past any proxy the environment names.
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def request(method, url, body=b"", headers=()):
    headers = {"Content-Length": str(len(body)), **dict(headers)}
    made = urllib.request.Request(url, data=body, method=method, headers=headers)
    with DIRECT.open(made, timeout=30) as response:
        assert 200 <= response.status < 300, (url, response.status)


def azure_request(endpoint, method, path, body=b"", query="", headers=()):
    """A request to Azurite signed with the development account's Shared Key."""
    # Named, since urllib would add one of its own, which the signature must cover.
    headers = {
        "Content-Type": "application/octet-stream",
        "x-ms-date": email.utils.formatdate(usegmt=True),
        "x-ms-version": "2021-08-06",
        **dict(headers),
    }
    content_type = headers["Content-Type"]
    ms = "".join(f"{k}:{v}\n" for k, v in sorted(headers.items()) if k.startswith("x-ms-"))
    length = str(len(body)) if body else ""
    canonical_query = "".join(
        f"\n{k}:{v}" for k, v in sorted(urllib.parse.parse_qsl(query, keep_blank_values=True))
    )
    to_sign = (
        f"{method}\n\n\n{length}\n\n{content_type}\n\n\n\n\n\n\n"
        f"{ms}/{AZURITE_ACCOUNT}/{AZURITE_ACCOUNT}{path}{canonical_query}"
    )
    signature = base64.b64encode(
        hmac.new(base64.b64decode(AZURITE_KEY), to_sign.encode(), hashlib.sha256).digest()
    ).decode()
    headers["Authorization"] = f"SharedKey {AZURITE_ACCOUNT}:{signature}"
    url = f"{endpoint}/{AZURITE_ACCOUNT}{path}" + (f"?{query}" if query else "")
    request(method, url, body, headers)


def fill_s3(endpoint, name):
    # moto takes an unsigned request as any account's.
    request("PUT", f"{endpoint}/{name}")
    for key, source in SHARDS.items():
        request("PUT", f"{endpoint}/{name}/data/{key}", source.read_bytes(),
                {"Content-Type": "application/octet-stream"})
    return {
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_REGION": "us-east-1",
    }


def fill_gcs(endpoint, name):
    # fake-gcs-server's JSON API takes buckets and uploads without a token.
    request("POST", f"{endpoint}/storage/v1/b", json.dumps({"name": name}).encode(),
            {"Content-Type": "application/json"})
    for key, source in SHARDS.items():
        target = urllib.parse.quote(f"data/{key}", safe="")
        request("POST", f"{endpoint}/upload/storage/v1/b/{name}/o?uploadType=media&name={target}",
                source.read_bytes(), {"Content-Type": "application/octet-stream"})
    return {"STORAGE_EMULATOR_HOST": endpoint}


def fill_azure(endpoint, name):
    azure_request(endpoint, "PUT", f"/{name}", query="restype=container")
    for key, source in SHARDS.items():
        azure_request(endpoint, "PUT", f"/{name}/data/{key}", source.read_bytes(),
                      headers={"x-ms-blob-type": "BlockBlob"})
    return {
        "AZURE_STORAGE_CONNECTION_STRING": (
            f"DefaultEndpointsProtocol=http;AccountName={AZURITE_ACCOUNT};"
            f"AccountKey={AZURITE_KEY};BlobEndpoint={endpoint}/{AZURITE_ACCOUNT};"
        )
    }


STORES = {
    "s3": ("TFR_INSPECT_S3_ENDPOINT", fill_s3, "moto"),
    "gs": ("TFR_INSPECT_GCS_ENDPOINT", fill_gcs, "fake-gcs-server"),
    "az": ("TFR_INSPECT_AZURE_ENDPOINT", fill_azure, "Azurite"),
}


@pytest.fixture(scope="module")
def buckets():
    """Per scheme, a fresh bucket (container) holding the dataset of ``sharded`` under
    ``data/``, or the reason its emulator is not running. Every environment the client (and the
    command line) reads is set before any URL is read, since the package reads it once."""
    made = {}
    name = f"tfr-py-{os.getpid()}-{time.time_ns() % 10**9}"
    for scheme, (variable, fill, emulator) in STORES.items():
        endpoint = os.environ.get(variable, "").rstrip("/")
        if not endpoint:
            made[scheme] = f"{variable} is not set (scripts/emulators.sh run starts {emulator})"
            continue
        os.environ.update(fill(endpoint, name))
        made[scheme] = f"{scheme}://{name}"
    return made


@pytest.fixture(params=sorted(STORES))
def bucket(request, buckets):
    """The URL of one scheme's bucket; a test whose emulator is not running skips, except under
    CI (``TFR_INSPECT_CI=1``), where it fails."""
    url = buckets[request.param]
    if "://" not in url:
        if os.environ.get("TFR_INSPECT_CI") == "1":
            pytest.fail(f"{url}: CI starts the emulators with scripts/emulators.sh")
        pytest.skip(url)
    return url


def test_a_file_opened_by_url_has_the_records_of_its_local_copy(bucket):
    for key, source in SHARDS.items():
        remote = tfr_inspect.open(f"{bucket}/data/{key}")
        local = tfr_inspect.open(source)
        assert len(remote) == len(local) > 0
        assert [remote[i] for i in (0, 1, -1)] == [local[i] for i in (0, 1, -1)]
        assert remote.example(3).keys() == local.example(3).keys()
        assert [d.to_dict() for d in remote.damage()] == [d.to_dict() for d in local.damage()]
    damaged = tfr_inspect.open(f"{bucket}/data/{DAMAGED}")
    assert [d.offset for d in damaged.damage()] == [19276]
    with pytest.raises(tfr_inspect.DamagedRecordError):
        damaged[192]


def test_verify_and_stats_of_urls_are_what_the_command_line_prints(cli, bucket):
    for args in ([f"{bucket}/data/"], [f"{bucket}/data/train-*"], [f"{bucket}/data/{DAMAGED}"]):
        out, _, code = cli("verify", "--json", *args)
        report = tfr_inspect.verify(args)
        assert report.to_json() == out and out
        assert report.ok == (code == 0) and code == 1
        out, _, code = cli("stats", "--json", *args)
        report = tfr_inspect.stats(args)
        assert report.to_json() == out and report.status == code == 1
    partials = [tfr_inspect.stats_partial(f"{bucket}/data/{k}") for k in sorted(SHARDS)]
    assert tfr_inspect.StatsPartial.merge(partials).to_json() == cli("stats", "--json", f"{bucket}/data/")[0]


def test_locate_and_index_of_urls_are_what_the_command_line_prints(cli, bucket):
    damaged = f"{bucket}/data/{DAMAGED}"
    out, _, code = cli("locate", "--json", damaged, 19288)
    assert tfr_inspect.locate(damaged, 19288).to_json() == out and code == 1
    clean = f"{bucket}/data/train-00000-of-00002.tfrecord"
    assert tfr_inspect.index(clean).to_text() == cli("index", clean)[0]


def test_batches_of_a_url_are_those_of_its_local_copy(bucket):
    need("pyarrow")
    remote = list(tfr_inspect.open(f"{bucket}/data/{DAMAGED}").batches(64))
    local = list(tfr_inspect.open(SHARDS[DAMAGED]).batches(64))
    assert [b.to_pylist() for b in remote] == [b.to_pylist() for b in local]
    assert sum(b.num_rows for b in remote) == 199


def test_a_missing_object_raises_os_error_naming_its_url(bucket):
    with pytest.raises(OSError, match=f"{bucket}/data/gone.tfrecord"):
        tfr_inspect.open(f"{bucket}/data/gone.tfrecord")


def test_ray_reads_shards_named_by_urls_and_sizes_them_from_the_store(buckets):
    ray = need("ray")
    need("pyarrow")
    import tfr_inspect.ray

    urls = [url for url in buckets.values() if "://" in url]
    missing = [why for why in buckets.values() if "://" not in why]
    if missing:
        if os.environ.get("TFR_INSPECT_CI") == "1":
            pytest.fail("; ".join(missing))
        if not urls:
            pytest.skip("; ".join(missing))
    sources = [tfr_inspect.ray.TFRecordDatasource(f"{url}/data/", batch_size=64) for url in urls]
    for source in sources:
        assert source.estimate_inmemory_data_size() == sum(p.stat().st_size for p in SHARDS.values())
    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
    try:
        read = [ray.data.read_datasource(source).take_all() for source in sources]
    finally:
        ray.shutdown()
    want = sorted(
        row_text(r)
        for source in SHARDS.values()
        for b in tfr_inspect.open(source).batches(1000)
        for r in b.to_pylist()
    )
    assert len(want) == 20 + 200 + 199
    for url, rows in zip(urls, read):
        assert sorted(row_text(r) for r in rows) == want, url


def row_text(row):
    """A row as Ray or pyarrow gives it (lists or numpy arrays, bytes) as comparable text; a
    feature a row lacks is left out, as a block without its column leaves it."""

    def plain(value):
        if hasattr(value, "tolist"):
            value = value.tolist()
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        if isinstance(value, bytes):
            return value.hex()
        return value

    return json.dumps({k: plain(v) for k, v in row.items() if v is not None}, sort_keys=True)
