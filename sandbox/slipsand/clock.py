"""Sandbox time: real wall-clock time plus a persisted offset, with a speed factor.

Durations in the service state machines are expressed in *sandbox seconds*
(how long the real service takes); `--speed N` divides them, so EKS's
8-12 minutes become about a second at speed 600.  Every transition is stored
as an absolute due time, which keeps state machines correct across restarts.
"""
import threading
import time


class _Wake(threading.local):
    """The earliest due time still ahead that this thread's code asked
    for since track() (None when not tracking)."""
    soonest = None
    tracking = False


class Clock:
    def __init__(self, speed=1.0, offset=0.0):
        self.speed = float(speed) if speed and speed > 0 else 1.0
        self.offset = float(offset)
        self._wake = _Wake()

    def now(self):
        return time.time() + self.offset

    def due(self, sandbox_seconds, start=None):
        """Absolute time at which `sandbox_seconds` of sandbox time have passed."""
        now = self.now()
        when = (now if start is None else start) + float(sandbox_seconds) / self.speed
        w = self._wake
        if w.tracking and when > now and (w.soonest is None or when < w.soonest):
            w.soonest = when
        return when

    def track(self):
        """Note, from now on in this thread, the soonest due time still
        ahead that due() computes: what code that compares the time only
        through due() waits for next.  wakes() ends it."""
        self._wake.tracking = True
        self._wake.soonest = None

    def wakes(self):
        """The soonest due time ahead noted since track() (None: none)."""
        w = self._wake
        w.tracking = False
        return w.soonest

    def elapsed(self, since):
        """Sandbox seconds elapsed since the absolute time `since`."""
        return max(0.0, (self.now() - since) * self.speed)

    def real(self, sandbox_seconds):
        return float(sandbox_seconds) / self.speed

    def advance(self, sandbox_seconds):
        """Time travel (control endpoint): jump forward by sandbox seconds."""
        self.offset += float(sandbox_seconds) / self.speed
