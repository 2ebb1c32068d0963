"""A token bucket: `capacity` tokens, refilled at `rate` tokens per second.

Used by the API gateway to throttle each client. One bucket per client key;
buckets are created lazily and kept in an LRU map (see registry.py).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable

Clock = Callable[[], float]


@dataclass
class BucketConfig:
    capacity: int
    rate: float  # tokens per second
    initial: int | None = None  # defaults to capacity

    def __post_init__(self) -> None:
        if self.capacity <= 0:
            raise ValueError("capacity must be positive")
        if self.rate <= 0:
            raise ValueError("rate must be positive")
        if self.initial is not None and not 0 <= self.initial <= self.capacity:
            raise ValueError("initial must be within 0..capacity")


@dataclass
class TokenBucket:
    config: BucketConfig
    clock: Clock = time.monotonic
    _tokens: float = field(init=False)
    _stamp: float = field(init=False)
    _lock: threading.Lock = field(init=False, default_factory=threading.Lock)

    def __post_init__(self) -> None:
        start = self.config.initial
        self._tokens = float(self.config.capacity if start is None else start)
        self._stamp = self.clock()

    @property
    def tokens(self) -> float:
        with self._lock:
            self._refill()
            return self._tokens

    def try_take(self, n: int = 1) -> bool:
        """Take n tokens if they are there; never blocks."""
        if n <= 0:
            raise ValueError("n must be positive")
        with self._lock:
            self._refill()
            if self._tokens >= n:
                self._tokens -= n
                return True
            return False

    def wait_time(self, n: int = 1) -> float:
        """Seconds until n tokens will be available (0 when they are now)."""
        with self._lock:
            self._refill()
            missing = n - self._tokens
            return 0.0 if missing <= 0 else missing / self.config.rate

    def _refill(self) -> None:
        now = self.clock()
        elapsed = now - self._stamp
        if elapsed <= 0:
            return
        # Refill in whole seconds so that the arithmetic stays exact.
        whole = int(elapsed)
        added = whole * self.config.rate
        self._tokens = min(self.config.capacity, self._tokens + added)
        self._stamp = now
