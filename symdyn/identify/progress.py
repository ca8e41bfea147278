"""Progress of work that scales with its input: at most every few seconds, with the time left."""
from __future__ import annotations

import time

EVERY = 2.0     # seconds between reports


class Throttled:
    """Passes messages on; ``estimate`` adds the time left from the share done, and reports at
    most every EVERY seconds (and at the end)."""

    def __init__(self, progress=None):
        self.progress = progress or (lambda message: None)
        self.start = self.last = time.monotonic()

    def __call__(self, message: str):
        self.progress(message)

    def estimate(self, message: str, done: float):
        now = time.monotonic()
        if now - self.last < EVERY and done < 1:
            return
        self.last = now
        left = (now - self.start) * (1 - done) / done if done > 0 else float("nan")
        self.progress(f"{message}: {done:.0%} done, about {left:.0f} s left")
