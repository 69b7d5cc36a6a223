"""Expanding what a user gives as inputs (files, directories, glob patterns) into shard paths."""

import glob
import os


def expand(paths):
    """The files named by ``paths`` (a path or a list of them), in sorted order per argument.

    A directory stands for the files in it (not hidden, not ``.json``/``.txt`` metadata); a
    pattern with ``*``, ``?`` or ``[`` stands for the files it matches. A pattern that matches
    nothing is an error naming it, as a missing file is. An object URL (``gs://``, ``s3://``,
    ``az://``, ``https://``) is kept as it is, one object.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    found = []
    for path in map(os.fspath, paths):
        if "://" in path:
            found.append(path)
        elif any(c in path for c in "*?["):
            matched = sorted(p for p in glob.glob(path) if os.path.isfile(p))
            if not matched:
                raise FileNotFoundError(f"{path}: no file matches")
            found.extend(matched)
        elif os.path.isdir(path):
            names = sorted(
                n
                for n in os.listdir(path)
                if not n.startswith(".") and not n.endswith((".json", ".txt"))
            )
            found.extend(os.path.join(path, n) for n in names if os.path.isfile(os.path.join(path, n)))
        else:
            found.append(path)
    return found
