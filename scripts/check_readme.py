#!/usr/bin/env python3
"""Runs every example of README.md and checks it prints what the README shows.

An example is a `$ tfr-inspect ...` line in a ```console block; its output is the lines after it,
up to the next `$` line or the end of the block (a command may go on over lines ending in `\`). A line that is only `…` stands for any number of
lines (the README elides long output), and lines starting with `> ` are answers typed on standard
input (they are fed to the command, which echoes them when its input is not a terminal). Commands
run in a scratch directory where `testdata` points at the repository's, through bash (so pipes
work), with stdout and stderr together as a terminal shows them.

Usage: scripts/check_readme.py [--binary target/debug/tfr-inspect] [README.md]
Exits 1 listing every example whose output differs.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def examples(text):
    """(line number, command, expected output lines) for every example."""
    out = []
    in_console = False
    current = None
    continued = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            if current:
                out.append(current)
                current = None
            in_console = line.strip() == "```console" and not in_console
            continue
        if not in_console:
            continue
        if continued:
            # A command continued over lines with a trailing backslash.
            number0, command, lines = current
            current = (number0, command[:-1] + " " + line.strip(), lines)
            continued = line.endswith("\\")
        elif line.startswith("$ "):
            if current:
                out.append(current)
            current = (number, line[2:], [])
            continued = line.endswith("\\")
        elif current:
            current[2].append(line)
    return out


def matches(expected, actual):
    """Whether `actual` lines fit `expected`, where a `…` line matches any run of lines."""
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head.strip() == "…":
        return any(matches(rest, actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and actual[0] == head and matches(rest, actual[1:])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, "target/debug/tfr-inspect"))
    parser.add_argument("readme", nargs="?", default=os.path.join(ROOT, "README.md"))
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    with open(args.readme, encoding="utf-8") as f:
        found = examples(f.read())
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        os.symlink(os.path.join(ROOT, "testdata"), os.path.join(scratch, "testdata"))
        bindir = os.path.join(scratch, "bin")
        os.mkdir(bindir)
        os.symlink(binary, os.path.join(bindir, "tfr-inspect"))
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
        env.pop("NO_COLOR", None)
        # Scratch directories an example makes (`mktemp -d`) go inside this one, and go with it.
        env["TMPDIR"] = scratch
        for number, command, expected in found:
            answers = "".join(l[2:] + "\n" for l in expected if l.startswith("> "))
            # The echoed answers are part of the output, as the README shows them.
            result = subprocess.run(
                ["bash", "-c", command],
                cwd=scratch,
                env=env,
                input=answers,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            actual = result.stdout.splitlines()
            # Trailing blank lines separate examples in the README.
            while expected and expected[-1] == "":
                expected = expected[:-1]
            if not matches(expected, actual):
                failures += 1
                print(f"README.md:{number}: `{command}` prints something else:", file=sys.stderr)
                shown = "\n".join("  | " + l for l in actual[:40])
                print(shown, file=sys.stderr)
    print(f"README examples: {len(found)} run, {failures} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
