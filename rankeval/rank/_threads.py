"""Blocks of users ranked on every core: one thread per core, each with a one-thread BLAS.

NumPy's BLAS runs a matrix product on every core, but the selection that follows it runs on
one: half of a 2-core machine idles while a block is selected. Here each core takes whole
blocks of users (product, masking, selection, merge) from a shared queue, the BLAS limited to
one thread (through threadpoolctl) so that the workers' products do not fight over the cores.
NumPy releases the GIL in the matrix product and in the ufuncs, sorts and partitions of the
kernel, so the workers run side by side. A user's list does not depend on the other users of
its block, so the lists are the same as one thread's, bit for bit.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["n_cores", "blas_controller", "in_threads"]

T = TypeVar("T")

_CONTROLLER: list[Any] = []


def n_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def blas_controller() -> Any | None:
    """threadpoolctl's controller of NumPy's BLAS, or None (threadpoolctl missing, or no BLAS it knows).

    Without it the workers' products would each start a BLAS thread per core, many more threads
    than cores, so the blocks then run on one thread (the BLAS using every core).
    """
    if not _CONTROLLER:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            _CONTROLLER.append(None)
        else:
            blas = ThreadpoolController().select(user_api="blas")
            _CONTROLLER.append(blas if blas.lib_controllers else None)
    return _CONTROLLER[0]


@contextmanager
def _one_blas_thread(controller: Any) -> Iterator[None]:
    with controller.limit(limits=1):
        yield


def in_threads(tasks: Sequence[T], work: Callable[[T, int], None], workers: int, controller: Any) -> None:
    """``work(task, worker)`` for every task, on ``workers`` threads taking tasks in order; BLAS on one thread.

    ``worker`` (0 to ``workers - 1``) names the thread, so that each keeps its own buffers. The
    first exception stops the other threads at their next task and is raised here.
    """
    queue = iter(tasks)
    lock = threading.Lock()
    stop = threading.Event()

    def loop(worker: int) -> None:
        while not stop.is_set():
            with lock:
                task = next(queue, None)
            if task is None:
                return
            try:
                work(task, worker)
            except BaseException:
                stop.set()
                raise

    with _one_blas_thread(controller), ThreadPoolExecutor(workers, thread_name_prefix="rankeval-rank") as pool:
        futures = [pool.submit(loop, worker) for worker in range(workers)]
        try:
            for future in futures:
                future.result()
        finally:  # an interrupt here stops the workers too
            stop.set()
