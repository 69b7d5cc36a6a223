"""tfr_inspect.open: records, frames, damage and values, checked against what Python protobuf
read from the same files (the goldens beside them in testdata/) and against the forensic tables
of the damaged files."""

import base64
import json
import os

import numpy as np
import pytest

import tfr_inspect
from conftest import TESTDATA, need

EXAMPLE_FILES = [
    "cifar_like.tfrecord",
    "empty.tfrecord",
    "examples.tfrecord",
    "examples_gzip.tfrecord",
    "examples_zlib.tfrecord",
    "images.tfrecord",
    "mnist_like.tfrecord",
]


def golden_records(name):
    stem = name.removesuffix(".tfrecord").removesuffix("_gzip").removesuffix("_zlib")
    lines = (TESTDATA / f"{stem}.golden.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line]


def values_from_golden(feature):
    """A feature of MessageToDict's output as tfr_inspect gives it."""
    if "int64List" in feature:
        return np.array([int(v) for v in feature["int64List"].get("value", [])], dtype=np.int64)
    if "floatList" in feature:
        return np.array(feature["floatList"].get("value", []), dtype=np.float32)
    if "bytesList" in feature:
        return [base64.b64decode(v) for v in feature["bytesList"].get("value", [])]
    return []


@pytest.mark.parametrize("name", EXAMPLE_FILES)
def test_every_record_decodes_as_python_protobuf_read_it(name, manifest):
    f = tfr_inspect.open(TESTDATA / name)
    golden = golden_records(name)
    assert len(f) == manifest[name]["records"] == len(golden)
    for i, expected in enumerate(golden):
        assert f.decode(i) == expected, f"record {i}"


@pytest.mark.parametrize("name", EXAMPLE_FILES)
def test_example_values_are_the_features_values_with_their_types(name):
    f = tfr_inspect.open(TESTDATA / name)
    for i, expected in enumerate(golden_records(name)):
        features = expected.get("features", {}).get("feature", {})
        got = f.example(i)
        assert sorted(got) == sorted(features), f"record {i}"
        for key, feature in features.items():
            want = values_from_golden(feature)
            if isinstance(want, np.ndarray):
                assert got[key].dtype == want.dtype, (i, key)
                np.testing.assert_array_equal(got[key], want, err_msg=f"{i} {key}")
            else:
                assert got[key] == want, (i, key)


def test_payloads_are_the_framed_bytes():
    data = (TESTDATA / "mnist_like.tfrecord").read_bytes()
    f = tfr_inspect.open(TESTDATA / "mnist_like.tfrecord")
    offset = 0
    for i in range(len(f)):
        length = int.from_bytes(data[offset : offset + 8], "little")
        assert f[i] == data[offset + 12 : offset + 12 + length]
        offset += 16 + length
    assert offset == len(data)
    assert f[-1] == f[len(f) - 1]
    assert list(f) == [f[i] for i in range(len(f))]
    with pytest.raises(IndexError):
        f[len(f)]
    with pytest.raises(IndexError):
        f[-len(f) - 1]


@pytest.mark.parametrize("name", ["mnist_like", "examples", "sequence", "raw_strings"])
def test_frames_match_the_frame_tables(name):
    f = tfr_inspect.open(TESTDATA / f"{name}.tfrecord")
    rows = (TESTDATA / f"{name}.frames.tsv").read_text().splitlines()[1:]
    frames = f.frames()
    assert len(frames) == len(rows)
    for frame, row in zip(frames, rows):
        index, offset, length, length_ok, data_ok = row.split("\t")
        assert (frame.index, frame.offset, frame.length) == (int(index), int(offset), int(length))
        assert frame.length_crc_ok == (length_ok == "true")
        assert frame.data_crc_ok == (data_ok == "true")
        assert frame.intact
    assert f.damage() == []


CORRUPT = sorted(p.stem for p in (TESTDATA / "corrupt").glob("*.tfrecord"))


@pytest.mark.parametrize("name", CORRUPT)
def test_damage_names_the_first_problem_where_tensorflow_does(name):
    expect = json.loads((TESTDATA / "corrupt" / f"{name}.expect.json").read_text())
    # Read as TensorFlow was told to read it (a GZIP file given no compression_type is damage).
    f = tfr_inspect.open(TESTDATA / "corrupt" / f"{name}.tfrecord", expect["compression"])
    problem = expect.get("strict_reader", {}).get("first_problem")
    damage = f.damage()
    if problem is None:
        assert damage == [], name
        return
    first = damage[0]
    assert first.offset == problem["frame_offset"], name
    assert first.status == problem["kind"], name
    if problem.get("tf_reported_offset") is not None:
        assert first.tensorflow_message.endswith(f"record at {problem['tf_reported_offset']}")
    # Every intact record before the damage is served, byte for byte the same as a strict
    # reader's; the damaged one raises, naming the file, the record and the offset.
    assert sum(1 for fr in f.frames()[: first.record] if fr.intact) == first.record
    with pytest.raises(tfr_inspect.DamagedRecordError) as raised:
        f[first.record]
    error = raised.value
    assert (error.record, error.offset) == (first.record, first.offset)
    assert error.file.endswith(f"{name}.tfrecord")
    assert f"record {first.record} at byte {first.offset}" in str(error)


def test_an_unknown_compression_is_a_value_error():
    with pytest.raises(ValueError, match="brotli"):
        tfr_inspect.open(TESTDATA / "examples.tfrecord", compression="BROTLI")


def test_a_missing_file_is_an_os_error_naming_it(tmp_path):
    missing = tmp_path / "nope.tfrecord"
    with pytest.raises(OSError) as raised:
        tfr_inspect.open(missing)
    assert "nope.tfrecord" in str(raised.value)


def test_a_record_that_is_not_an_example_is_a_value_error():
    f = tfr_inspect.open(TESTDATA / "sequence.tfrecord")
    with pytest.raises(ValueError, match="not a tf.train.Example"):
        f.example(0)


def test_damaged_record_errors_survive_pickling():
    import pickle

    error = tfr_inspect.DamagedRecordError("a.tfrecord", 3, 99, "the payload's CRC does not match")
    again = pickle.loads(pickle.dumps(error))
    assert (again.file, again.record, again.offset, again.reason) == ("a.tfrecord", 3, 99, error.reason)
    assert str(again) == str(error)


def test_batches_hold_every_example_value_by_row():
    pa = need("pyarrow")
    name = "examples.tfrecord"
    f = tfr_inspect.open(TESTDATA / name)
    golden = golden_records(name)
    batches = list(f.batches(64))
    assert [b.num_rows for b in batches] == [64, 64, 64, 8]
    table = pa.Table.from_batches(batches)
    assert table.num_rows == len(golden)
    rows = table.to_pylist()
    for i, expected in enumerate(golden):
        features = expected["features"]["feature"]
        for key in table.column_names:
            if key not in features:
                assert rows[i][key] is None, (i, key)
                continue
            want = values_from_golden(features[key])
            got = rows[i][key]
            if isinstance(want, np.ndarray):
                np.testing.assert_array_equal(np.array(got, dtype=want.dtype), want)
            else:
                assert got == want, (i, key)
    assert table.schema.field("feature0").type == pa.list_(pa.int64())
    assert table.schema.field("feature3").type == pa.list_(pa.float32())
    assert table.schema.field("feature2").type == pa.list_(pa.binary())


def test_batches_skip_damaged_records_with_a_warning_naming_each():
    need("pyarrow")
    path = TESTDATA / "corrupt" / "data_crc_bitflip.tfrecord"
    f = tfr_inspect.open(path)
    with pytest.warns(tfr_inspect.DamagedRecordWarning, match="record 192 at byte 19276"):
        rows = sum(b.num_rows for b in f.batches(50))
    assert rows == len(f) - 1 == 199


def test_batches_keep_only_the_columns_asked_for_in_their_order():
    need("pyarrow")
    f = tfr_inspect.open(TESTDATA / "examples.tfrecord")
    batch = next(f.batches(10, columns=["feature3", "absent", "feature0"]))
    assert batch.schema.names == ["feature3", "absent", "feature0"]
    assert batch.column(1).null_count == 10


def test_verify_gives_the_command_lines_json_for_each_file():
    import subprocess

    binary = TESTDATA.parent / "target" / "debug" / "tfr-inspect"
    if not binary.exists() and os.environ.get("TFR_INSPECT_CI") != "1":
        pytest.skip("the command line is not built (cargo build)")
    paths = [str(TESTDATA / "examples.tfrecord"), str(TESTDATA / "corrupt" / "data_crc_bitflip.tfrecord")]
    report = tfr_inspect.verify(paths)
    assert not report.ok
    assert [f["damaged"] for f in report.files] == [0, 1]
    cli = subprocess.run([str(binary), "verify", "--json", *paths], capture_output=True, text=True)
    assert cli.returncode == 1
    assert report.to_json() == cli.stdout
    assert tfr_inspect.verify(paths[0]).ok


def test_verify_of_a_shard_set_is_the_command_lines_json_with_its_dataset_line(cli, tmp_path):
    import shutil

    # Three shards named, the last missing, the second damaged.
    for name, source in [
        ("train-00000-of-00003.tfrecord", TESTDATA / "examples.tfrecord"),
        ("train-00001-of-00003.tfrecord", TESTDATA / "corrupt" / "data_crc_bitflip.tfrecord"),
    ]:
        shutil.copyfile(source, tmp_path / name)
    for args in ([tmp_path], sorted(str(p) for p in tmp_path.iterdir())):
        report = tfr_inspect.verify(args)
        out, _, code = cli("verify", "--json", *args)
        assert code == 1
        assert report.to_json() == out
        assert not report.ok
        assert [(f["split"], f["shard"], f["split_first_record"]) for f in report.files] == [
            ("train", "00000", 0),
            ("train", "00001", 200),
        ], report.files
        assert [f["damaged"] for f in report.files] == [0, 1]
        assert "train-00002-of-00003" in json.dumps(report.dataset["problems"]), report.dataset
        assert report.to_dict() == {"ok": False, "files": report.files, "dataset": report.dataset}
