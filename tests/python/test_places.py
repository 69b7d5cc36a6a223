"""index and locate from Python: what `tfr-inspect index` and `locate --json` print."""

import pickle

import pytest

import tfr_inspect
from conftest import TESTDATA

CLEAN = TESTDATA / "examples.tfrecord"
DAMAGED = TESTDATA / "corrupt" / "data_crc_bitflip.tfrecord"
GZIP = TESTDATA / "examples_gzip.tfrecord"


@pytest.mark.parametrize(
    "path, offset, status",
    [(DAMAGED, 19288, 1), (DAMAGED, "0x4b4c", 1), (CLEAN, 0, 0), (CLEAN, 100, 0), (CLEAN, 10**9, 2), (GZIP, 19288, 0)],
)
def test_locate_is_the_json_the_command_line_prints(cli, path, offset, status):
    out, _, code = cli("locate", "--json", path, offset)
    report = tfr_inspect.locate(path, int(str(offset), 0))
    assert report.to_json() == out
    assert report.status == code == status
    assert report.to_dict()["offset"] == int(str(offset), 0)
    assert report.case == report.to_dict()["case"]
    assert pickle.loads(pickle.dumps(report)).to_json() == out


def test_locate_names_the_damaged_record_and_its_crc():
    report = tfr_inspect.locate(DAMAGED, 19288)
    assert report.frame["index"] == 192 and report.frame["offset"] == 19276
    assert report.tensorflow_message == "corrupted record at 19288"
    with pytest.raises(AttributeError):
        report.no_such_key


def test_index_of_an_intact_file_is_what_the_command_line_writes(cli):
    out, _, code = cli("index", CLEAN)
    index = tfr_inspect.index(CLEAN)
    assert code == 0 and index.ok
    assert index.to_text() == out
    assert len(index) == 200
    first, second = [tuple(map(int, line.split())) for line in out.splitlines()[:2]]
    assert index.entries[:2] == [first, second] and second[0] == first[0] + first[1]
    assert index.to_dict()["records"][1] == {"offset": second[0], "length": second[1]}


@pytest.mark.parametrize("path, damaged, compression", [(DAMAGED, 1, None), (GZIP, 0, "GZIP")])
def test_index_of_a_damaged_or_compressed_file_is_what_intact_only_writes(cli, path, damaged, compression):
    _, err, refused = cli("index", path)
    assert refused != 0 and "--intact-only" in err
    out, _, _ = cli("index", "--intact-only", path)
    index = tfr_inspect.index(path)
    assert not index.ok
    assert (index.damaged, index.compression) == (damaged, compression)
    assert index.to_text() == out
    assert len(index) == 200 - damaged


def test_a_missing_file_raises_os_error_naming_it(tmp_path):
    for call in (lambda p: tfr_inspect.index(p), lambda p: tfr_inspect.locate(p, 0)):
        with pytest.raises(OSError, match="gone.tfrecord"):
            call(tmp_path / "gone.tfrecord")
