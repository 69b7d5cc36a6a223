"""Statistics from Python: one pass, and partials merged in any order, give byte for byte the
report `tfr-inspect stats --json` prints, and what it says besides."""

import pickle
import random

import pytest

import tfr_inspect
from conftest import TESTDATA


def said(stderr):
    """The lines the command line wrote on its error stream."""
    return [line for line in stderr.splitlines() if line]


def test_stats_is_the_json_the_command_line_prints(cli, sharded):
    out, err, code = cli("stats", "--json", sharded)
    report = tfr_inspect.stats(sharded)
    assert report.to_json() == out
    assert report.status == code == 1  # the damaged record of train's second shard
    assert not report.ok
    figures = report.to_dict()
    assert [(s["name"], s["records"], s["damaged"]) for s in figures["splits"]] == [
        ("test", 20, 0),
        ("train", 399, 1),
    ]
    assert isinstance(pickle.loads(pickle.dumps(report)), tfr_inspect.StatsReport)
    assert pickle.loads(pickle.dumps(report)) == report


def test_stats_of_one_file_and_of_a_glob_match_the_command_line(cli, sharded):
    for args in ([TESTDATA / "images.tfrecord"], [str(sharded / "train-*")]):
        out, _, code = cli("stats", "--json", *args)
        report = tfr_inspect.stats(args)
        assert report.to_json() == out
        assert report.status == code


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_partials_pickled_and_merged_in_any_order_give_the_one_pass_report(cli, sharded, seed):
    out, err, code = cli("stats", "--json", sharded)
    shards = sorted(sharded.iterdir())
    random.Random(seed).shuffle(shards)
    # One partial per shard, or the shards in two uneven groups: the report is the same.
    groups = [[s] for s in shards] if seed != 2 else [shards[:1], shards[1:]]
    partials = [pickle.loads(pickle.dumps(tfr_inspect.stats_partial(g))) for g in groups]
    merged = tfr_inspect.StatsPartial.merge(partials)
    assert merged.to_json() == out
    assert merged.status == code


def test_a_partial_is_the_file_the_command_line_writes_and_merges(cli, sharded, tmp_path):
    shard = sharded / "train-00000-of-00002.tfrecord"
    written = tmp_path / "p.tfrstats"
    _, _, code = cli("stats", "--partial", "-o", written, shard)
    assert code == 0
    partial = tfr_inspect.stats_partial(shard)
    assert partial.to_bytes() == written.read_bytes()
    assert partial.status == 0 and partial.messages == []
    # And the command line merges what Python made.
    ours = tmp_path / "ours.tfrstats"
    ours.write_bytes(tfr_inspect.stats_partial(sharded / "test-00000-of-00001.tfrecord").to_bytes())
    out, _, _ = cli("stats", "--merge", "--json", written, ours)
    # A merge reads the files in path order, as `stats` reads a directory or a pattern's matches.
    both = [sharded / "test-00000-of-00001.tfrecord", shard]
    assert out == tfr_inspect.stats(both).to_json()
    assert tfr_inspect.StatsPartial.merge(
        [tfr_inspect.StatsPartial.read(written), tfr_inspect.StatsPartial.read(ours)]
    ).to_json() == out


def test_the_missing_shard_only_all_the_names_show_is_said_by_the_merge(cli, sharded):
    (sharded / "test-00000-of-00001.tfrecord").rename(sharded / "test-00000-of-00002.tfrecord")
    out, err, code = cli("stats", "--json", sharded)
    partials = [tfr_inspect.stats_partial(s) for s in sorted(sharded.iterdir())]
    merged = tfr_inspect.StatsPartial.merge(partials)
    assert merged.to_json() == out
    assert merged.status == code == 1
    errors = [text for level, text in merged.messages if level == "error"]
    assert errors and all(any(e in line for line in said(err)) for e in errors)
    assert any("test" in e and "1" in e for e in errors), errors


def test_merging_a_damaged_partial_or_a_file_twice_is_a_value_error_naming_it(sharded):
    shard = sharded / "train-00000-of-00002.tfrecord"
    good = tfr_inspect.stats_partial(shard)
    cut = tfr_inspect.StatsPartial(good.to_bytes()[:-20], "cut")
    with pytest.raises(ValueError, match=r"^cut: .*cut short"):
        tfr_inspect.StatsPartial.merge([cut])
    with pytest.raises(ValueError, match="each file must be in one partial"):
        tfr_inspect.StatsPartial.merge([good, good])
    with pytest.raises(ValueError, match="not a tfr-inspect stats partial"):
        tfr_inspect.StatsPartial.merge([tfr_inspect.StatsPartial(b"{}\n{}\n", "junk")])
    with pytest.raises(ValueError, match="no partials"):
        tfr_inspect.StatsPartial.merge([])


def test_no_file_to_summarise_raises_with_the_command_lines_words(cli, tmp_path):
    _, err, code = cli("stats", "--json", tmp_path / "nothing-*.tfrecord")
    assert code == 2
    with pytest.raises(ValueError) as raised:
        tfr_inspect.stats(tmp_path / "nothing-*.tfrecord")
    assert said(err)[0].split(": ", 1)[-1] in str(raised.value)
