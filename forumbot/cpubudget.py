"""A bound on the CPU time of one block of code, from any thread (the cycle runs in an
APScheduler worker, where no signal handler can reach it).

A watchdog thread reads the CPU clock of the thread in the block and, once it has used its
budget, raises `OverBudget` in that thread (`PyThreadState_SetAsyncExc`). The exception
arrives between two bytecodes, so one long call into C (a single regular expression, a
C parser) finishes first; the inputs' own bounds keep those short.

Firing and leaving are serialised by one lock, and each block is fired at most once. A
block that leaves after it was fired clears the exception if it was not delivered yet, and
raises `OverBudget` itself, so the exception never lands outside the block, and a block
that was fired always ends in `OverBudget` (even if some `except` on the way swallowed the
first one)."""
from __future__ import annotations

import ctypes
import threading
import time
from types import TracebackType

_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
_set_async_exc.argtypes = (ctypes.c_ulong, ctypes.py_object)
_set_async_exc.restype = ctypes.c_int
_MIN_SLEEP = 0.005


class OverBudget(BaseException):
    """A block used up its CPU budget. A BaseException, so that no `except Exception` on the
    way stops it: only the code that opened the block handles it."""


def _async_raise(ident: int, exc: type[BaseException] | None) -> None:
    _set_async_exc(ctypes.c_ulong(ident), ctypes.py_object(exc) if exc is not None else ctypes.py_object())


def _cpu_clock(ident: int) -> int | None:
    try:
        return time.pthread_getcpuclockid(ident)
    except (AttributeError, OSError):  # (no per-thread CPU clocks here: measured, not bounded)
        return None


class _Block:
    def __init__(self, ident: int, clock: int, start: float, seconds: float):
        self.ident = ident
        self.clock = clock
        self.start = start
        self.seconds = seconds
        self.fired = False


class Bounded:
    """One block under the budget (`with budget.bound() as b:`); `b.seconds` is the CPU time
    it took, once it has left."""

    def __init__(self, budget: CpuBudget):
        self.budget = budget
        self.seconds = 0.0
        self._block: _Block | None = None
        self._start = 0.0

    def __enter__(self) -> Bounded:
        self._start = time.thread_time()
        ident = threading.get_ident()
        clock = _cpu_clock(ident)
        if clock is not None and self.budget.seconds > 0:
            self._block = _Block(ident, clock, time.clock_gettime(clock), self.budget.seconds)
            _WATCHDOG.arm(self._block)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        block = self._block
        if block is not None:
            _WATCHDOG.disarm(block)
        self.seconds = time.thread_time() - self._start
        if block is not None and block.fired and kind is not OverBudget:
            raise OverBudget()  # fired, and the exception was cleared or swallowed on the way


class CpuBudget:
    """`seconds` of CPU for each block run under `bound()`."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def bound(self) -> Bounded:
        return Bounded(self)


class _Watchdog:
    """One thread for the process (started when first needed), watching every armed block."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # (a C lock: taken with no bytecode between it and `with`)
        self._work = threading.Event()  # set while a block is armed
        self._nudge = threading.Event()  # set when a block is armed: look again at once
        self._armed: dict[int, _Block] = {}
        self._thread: threading.Thread | None = None

    def arm(self, block: _Block) -> None:
        with self._lock:
            self._armed[id(block)] = block
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._watch, name="forumbot-cpu-budget", daemon=True)
                self._thread.start()
        self._work.set()
        self._nudge.set()

    def disarm(self, block: _Block) -> None:
        with self._lock:
            self._armed.pop(id(block), None)
            if block.fired:
                _async_raise(block.ident, None)  # not delivered yet: then never

    def _watch(self) -> None:
        while True:
            self._work.wait()
            with self._lock:
                if not self._armed:
                    self._work.clear()
                    continue
                wait = 1.0
                for key, block in list(self._armed.items()):
                    try:
                        left = block.seconds - (time.clock_gettime(block.clock) - block.start)
                    except OSError:  # the thread is gone
                        del self._armed[key]
                        continue
                    if left <= 0:
                        block.fired = True
                        del self._armed[key]
                        _async_raise(block.ident, OverBudget)
                    else:
                        wait = min(wait, left)
            self._nudge.wait(max(wait, _MIN_SLEEP))  # (CPU time grows no faster than the wall clock)
            self._nudge.clear()


_WATCHDOG = _Watchdog()
