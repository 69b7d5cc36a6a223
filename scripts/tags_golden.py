#!/usr/bin/env python3
"""What TensorBoard's `EventAccumulator` reads of each run of some log directories: the golden
`tests/cli/tags.rs` compares `tfr-inspect tags --json` with.

For each log directory given, every directory under it that holds event files (a name with
`tfevents` in it, as TensorBoard picks them) is a run, named by its path under the log directory
(`.` for the log directory itself). Each run is read by `EventAccumulator` with every value kept
(size guidance 0 for every kind) and nothing purged (`purge_orphaned_data=False`), and each tag is
described: its kind (`scalars`, `histograms`, `images`, `audio`; a tensor summary by the plugin its
metadata names, `scalars` read as `scalar`…, or `tensor`), how many values, the first and last
step in the order read, the smallest and largest step, the earliest and latest wall time, and how
many values have a smaller step than the value before them.

`--write-restart DIR` first writes a run whose job restarted: a `tf.summary` writer's steps 0 to 4,
then a second event file (a later name) from step 2 again to 5, so steps go back.

Needs TensorBoard (and TensorFlow for `--write-restart`). The golden was made with:
python3 scripts/tags_golden.py --golden testdata/tags.golden.json \
    --write-restart testdata/tags/restart testdata/tags testdata/realworld/tensorboard \
    testdata/writers/tensorboard testdata/writers/tensorboardx testdata/writers/keras
"""
import argparse
import json
import os

from tensorboard.backend.event_processing import event_accumulator as ea

KINDS = {
    "scalars": "scalar",
    "histograms": "histogram",
    "images": "image",
    "audio": "audio",
    "text": "text",
    "hparams": "hparams",
    "pr_curves": "pr_curve",
    "mesh": "mesh",
    "": "tensor",
}
SIZES = {k: 0 for k in (ea.SCALARS, ea.IMAGES, ea.AUDIO, ea.HISTOGRAMS, ea.COMPRESSED_HISTOGRAMS, ea.TENSORS)}


def write_restart(logdir):
    import tensorflow as tf

    for first, last in ((0, 4), (2, 5)):
        writer = tf.summary.create_file_writer(logdir, filename_suffix=f".part{first}")
        with writer.as_default():
            for step in range(first, last + 1):
                tf.summary.scalar("loss", 1.0 / (step + 1), step=step)
                tf.summary.histogram("weights", [float(step), 1.0, 2.0], step=step)
        writer.close()


def describe(events, kind):
    steps = [e.step for e in events]
    walls = [e.wall_time for e in events]
    return {
        "kind": kind,
        "count": len(events),
        "first_step": steps[0],
        "last_step": steps[-1],
        "min_step": min(steps),
        "max_step": max(steps),
        "first_wall_time": min(walls),
        "last_wall_time": max(walls),
        "out_of_order": sum(1 for a, b in zip(steps, steps[1:]) if b < a),
    }


def run_tags(directory):
    acc = ea.EventAccumulator(directory, size_guidance=SIZES, purge_orphaned_data=False)
    acc.Reload()
    tags = acc.Tags()
    found = {}
    for kind, read in (
        ("scalar", acc.Scalars),
        ("histogram", acc.Histograms),
        ("image", acc.Images),
        ("audio", acc.Audio),
    ):
        for tag in tags[{"scalar": ea.SCALARS, "histogram": ea.HISTOGRAMS, "image": ea.IMAGES, "audio": ea.AUDIO}[kind]]:
            found[tag] = describe(read(tag), kind)
    for tag in tags[ea.TENSORS]:
        plugin = acc.SummaryMetadata(tag).plugin_data.plugin_name
        found[tag] = describe(acc.Tensors(tag), KINDS.get(plugin, plugin))
    return [dict(tag=tag, **found[tag]) for tag in sorted(found, key=lambda t: t.encode())]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--golden", required=True)
    parser.add_argument("--write-restart", metavar="DIR")
    parser.add_argument("logdirs", nargs="+")
    args = parser.parse_args()
    if args.write_restart:
        write_restart(args.write_restart)
    golden = {}
    for logdir in args.logdirs:
        runs = []
        for directory, _, files in sorted(os.walk(logdir)):
            if not any("tfevents" in f for f in files):
                continue
            name = os.path.relpath(directory, logdir).replace(os.sep, "/")
            runs.append({"run": name, "tags": run_tags(directory)})
        golden[logdir] = sorted(runs, key=lambda r: r["run"].encode())
    with open(args.golden, "w") as f:
        json.dump(golden, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
