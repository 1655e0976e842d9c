"""Writes that never leave a broken file: the target is the old file or the whole new one.

Every output rankeval writes (result tables, figures, the HTML report) goes to a temporary
file in the target's folder, is flushed to disk, and then takes the target's name in one
``os.replace``, which is atomic on POSIX and Windows. A run that fails or is killed while
writing leaves the previous output untouched (and no temporary file once Python unwinds).
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
from collections.abc import Iterator
from typing import Any

__all__ = ["atomic_path", "save_figure"]


def _mode_for(path: str) -> int:
    """The permissions the target would get from a plain ``open``: its own, or 0o666 less the umask."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait until the block ends (POSIX): a temporary file is never created
    without the code that removes it being in place, however soon the signal comes."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[str]:
    """A temporary path to write instead of ``path``; it becomes ``path`` when the block ends cleanly.

    The temporary file sits in the target's folder (``os.replace`` cannot cross file
    systems), is synced to disk before it is renamed, and is removed if the block raises.
    """
    target = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(target))
    temporary = None
    try:
        with _interrupts_held():
            fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(target)}.", suffix=".partial")
            os.close(fd)
        yield temporary
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.chmod(temporary, _mode_for(target))
        os.replace(temporary, target)
    except BaseException:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        raise


def save_figure(fig: Any, path: str | os.PathLike[str], **options: Any) -> None:
    """``fig.savefig(path, **options)``, atomically.

    The format comes from ``path``'s extension; without one, matplotlib's default format is
    used and its extension appended, as ``savefig`` itself does.
    """
    target = os.fspath(path)
    extension = os.path.splitext(target)[1].lstrip(".").lower()
    if "format" not in options:
        if not extension:
            import matplotlib

            extension = matplotlib.rcParams["savefig.format"]
            target = f"{target}.{extension}"
        options["format"] = extension
    with atomic_path(target) as temporary:
        fig.savefig(temporary, **options)
