import pytest

from throttle.bucket import BucketConfig, TokenBucket


class FakeClock:
    def __init__(self, t: float = 1000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


def make(capacity=10, rate=5.0, initial=None):
    clock = FakeClock()
    return TokenBucket(BucketConfig(capacity, rate, initial), clock), clock


def test_starts_full():
    bucket, _ = make()
    assert bucket.tokens == 10


def test_take_until_empty():
    bucket, _ = make(capacity=3)
    assert [bucket.try_take() for _ in range(4)] == [True, True, True, False]


def test_refill_is_capped():
    bucket, clock = make(capacity=10, rate=5.0, initial=0)
    clock.advance(60)
    assert bucket.tokens == 10


def test_refill_after_idle():
    # 0.25 s at 5 tokens/s is 1.25 tokens: one request must go through.
    bucket, clock = make(capacity=10, rate=5.0, initial=0)
    for _ in range(8):
        clock.advance(0.25)
        bucket.try_take(0 + 1) if bucket.tokens >= 1 else None
    clock.advance(0.25)
    assert bucket.try_take()


def test_clock_going_backwards_adds_nothing():
    bucket, clock = make(capacity=10, rate=5.0, initial=2)
    clock.advance(-30)
    assert bucket.tokens == 2


def test_wait_time():
    bucket, _ = make(capacity=10, rate=4.0, initial=0)
    assert bucket.wait_time(2) == pytest.approx(0.5)
