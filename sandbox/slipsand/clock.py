"""Sandbox time: real wall-clock time plus a persisted offset, with a speed factor.

Durations in the service state machines are expressed in *sandbox seconds*
(how long the real service takes); `--speed N` divides them, so EKS's
8-12 minutes become about a second at speed 600.  Every transition is stored
as an absolute due time, which keeps state machines correct across restarts.
"""
import time


class Clock:
    def __init__(self, speed=1.0, offset=0.0):
        self.speed = float(speed) if speed and speed > 0 else 1.0
        self.offset = float(offset)

    def now(self):
        return time.time() + self.offset

    def due(self, sandbox_seconds, start=None):
        """Absolute time at which `sandbox_seconds` of sandbox time have passed."""
        base = self.now() if start is None else start
        return base + float(sandbox_seconds) / self.speed

    def elapsed(self, since):
        """Sandbox seconds elapsed since the absolute time `since`."""
        return max(0.0, (self.now() - since) * self.speed)

    def real(self, sandbox_seconds):
        return float(sandbox_seconds) / self.speed

    def advance(self, sandbox_seconds):
        """Time travel (control endpoint): jump forward by sandbox seconds."""
        self.offset += float(sandbox_seconds) / self.speed
