"""The package inside existing engines: Apache Beam's DirectRunner (two worker processes) and a
local Ray. Each reads the test shards and must give exactly what tfr_inspect.open gives."""

import pytest

import tfr_inspect
from conftest import TESTDATA, need

CLEAN = str(TESTDATA / "examples.tfrecord")
DAMAGED = str(TESTDATA / "corrupt" / "data_crc_bitflip.tfrecord")


def intact_payloads(path):
    f = tfr_inspect.open(path)
    return [f[fr.index] for fr in f.frames() if fr.intact]


def test_beam_reads_intact_records_and_reports_damage_as_a_side_output(tmp_path):
    beam = need("apache_beam")
    import tfr_inspect.beam
    from apache_beam.options.pipeline_options import PipelineOptions
    from apache_beam.testing.util import assert_that, equal_to

    options = PipelineOptions(
        ["--direct_num_workers=2", "--direct_running_mode=multi_processing"]
    )
    expected_records = intact_payloads(CLEAN) + intact_payloads(DAMAGED)
    expected_damage = [
        {
            "file": DAMAGED,
            "record": 192,
            "offset": 19276,
            "status": "data_crc_mismatch",
            "reason": "payload CRC mismatch (stored 0xe042b0d7, computed 0xe442b0d7): the payload or its CRC is damaged",
            "tensorflow_message": "corrupted record at 19288",
        }
    ]
    with beam.Pipeline(options=options) as p:
        read = p | tfr_inspect.beam.ReadTFRecordsChecked([CLEAN, DAMAGED])
        assert_that(read.records, equal_to(expected_records), label="records")
        assert_that(read.damage, equal_to(expected_damage), label="damage")
    assert len(expected_records) == 200 + 199


def test_ray_reads_every_intact_example_once_per_shard():
    ray = need("ray")
    need("pyarrow")
    import tfr_inspect.ray

    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
    try:
        ds = ray.data.read_datasource(
            tfr_inspect.ray.TFRecordDatasource([CLEAN, DAMAGED], batch_size=64)
        )
        rows = ds.take_all()
    finally:
        ray.shutdown()
    assert len(rows) == 200 + 199
    want = sorted(
        (int(r["feature0"][0]), int(r["feature1"][0]), bytes(r["feature2"][0]))
        for path in (CLEAN, DAMAGED)
        for b in tfr_inspect.open(path).batches(1000)
        for r in b.to_pylist()
    )
    got = sorted((int(r["feature0"][0]), int(r["feature1"][0]), bytes(r["feature2"][0])) for r in rows)
    assert got == want


def beam_options():
    from apache_beam.options.pipeline_options import PipelineOptions

    return PipelineOptions(["--direct_num_workers=2", "--direct_running_mode=multi_processing"])


def test_beam_statistics_are_the_json_the_command_line_prints(cli, sharded, tmp_path):
    beam = need("apache_beam")
    import tfr_inspect.beam

    out, _, code = cli("stats", "--json", sharded)
    # Files cross the workers' boundary as text: the report goes to a file the test reads.
    written = tmp_path / "report.json"
    with beam.Pipeline(options=beam_options()) as p:
        (
            p
            | tfr_inspect.beam.GenerateStatistics(str(sharded / "*.tfrecord"))
            | beam.Map(lambda report, to=str(written): open(to, "w").write(report.to_json()))
        )
    assert written.read_text() == out
    assert code == 1 and '"damaged": 1' in out


def test_beam_verifies_each_shard_and_a_damaged_one_is_reported_not_fatal(cli, sharded, tmp_path):
    beam = need("apache_beam")
    import json

    import tfr_inspect.beam
    from apache_beam.testing.util import assert_that, equal_to

    shards = sorted(str(s) for s in sharded.iterdir())
    missing = str(sharded / "gone.tfrecord")
    # Each shard as `verify --json SHARD` reports it alone.
    lines = [
        json.loads(line)
        for s in shards
        for line in cli("verify", "--json", s)[0].splitlines()
        if not line.startswith('{"dataset"')
    ]
    assert [line["ok"] for line in lines] == [True, True, False]
    assert lines[2]["problems"][0]["offset"] == 19276
    verdicts = tmp_path / "verdict.jsonl"
    with beam.Pipeline(options=beam_options()) as p:
        checked = p | tfr_inspect.beam.VerifyShards(shards + [missing])
        assert_that(
            checked["shards"] | beam.Filter(lambda line: "error" not in line),
            equal_to(lines),
            label="shards",
        )
        (
            checked["verdict"]
            | beam.Map(lambda r, to=str(verdicts): open(to, "w").write(json.dumps([r.ok, r.to_json()])))
        )
    ok, text = json.loads(verdicts.read_text())
    # One `verify --json` over the same files, in the order such a run checks them: the
    # verdict byte for byte, split places, the damaged shard and the dataset's line included.
    out, _, code = cli("verify", "--json", *sorted(shards + [missing]))
    assert text == out
    assert code == 2 and not ok
    got = [json.loads(line) for line in text.splitlines()]
    gone = got[0]
    assert gone["file"] == missing and "No such file" in gone["error"], gone
    assert got[3]["split_first_record"] == 200 and got[3]["problems"][0]["offset"] == 19276
    assert got[-1]["dataset"]["not_read"] == 1


def test_beam_verdict_of_a_whole_shard_set_is_what_verify_json_prints(cli, sharded, tmp_path):
    beam = need("apache_beam")
    import json

    import tfr_inspect.beam

    out, _, code = cli("verify", "--json", sharded)
    verdicts = tmp_path / "verdict.json"
    with beam.Pipeline(options=beam_options()) as p:
        checked = p | tfr_inspect.beam.VerifyShards(str(sharded))
        (
            checked["verdict"]
            | beam.Map(lambda r, to=str(verdicts): open(to, "w").write(json.dumps([r.ok, r.to_json()])))
        )
    ok, text = json.loads(verdicts.read_text())
    assert text == out
    assert code == 1 and not ok
    assert '"damaged": 1' in text and '"split_first_record": 200' in text


def test_ray_statistics_are_the_json_the_command_line_prints(cli, sharded):
    ray = need("ray")
    import tfr_inspect.ray

    out, _, code = cli("stats", "--json", sharded)
    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
    try:
        report = tfr_inspect.ray.stats(sharded)
    finally:
        ray.shutdown()
    assert report.to_json() == out
    assert report.status == code == 1
