"""Which release of the pages' scripts and styles this server serves.

The static files keep their names from one release to the next (they are served with
``Cache-Control: no-cache``, settings.static_cache_control), so a page left open across a
deploy runs the scripts it loaded. Its socket's ``you`` frame names the server's release and
the page its own (``<meta name="release">``): a page that differs offers to reload.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from pathlib import Path

from django.conf import settings


def files_version(roots: Iterable[str | Path], pattern: str) -> str:
    """A short hash of the files under ``roots`` that match ``pattern``: their paths (from their
    root, so that two servers of one release installed in other folders agree) and contents."""
    digest = hashlib.sha256()
    for root in map(Path, roots):
        for path in sorted(p for p in root.glob(pattern) if p.is_file()):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


@functools.cache
def static_version() -> str:
    """A short hash of every file the pages load from static/ (their paths and contents).

    Worked out once a process: the files do not change while a server runs, and two servers of
    one release (any number of workers) give the same.
    """
    return files_version(settings.STATICFILES_DIRS, "**/*")
