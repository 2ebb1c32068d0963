"""Per-client buckets, created on first use and evicted least-recently-used."""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock

from .bucket import BucketConfig, Clock, TokenBucket


class BucketRegistry:
    def __init__(self, config: BucketConfig, clock: Clock, max_clients: int = 10_000):
        self._config = config
        self._clock = clock
        self._max = max_clients
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()
        self._lock = Lock()

    def bucket(self, key: str) -> TokenBucket:
        with self._lock:
            b = self._buckets.get(key)
            if b is None:
                b = TokenBucket(self._config, self._clock)
                self._buckets[key] = b
                if len(self._buckets) > self._max:
                    self._buckets.popitem(last=False)
            else:
                self._buckets.move_to_end(key)
            return b

    def allow(self, key: str, cost: int = 1) -> bool:
        return self.bucket(key).try_take(cost)
