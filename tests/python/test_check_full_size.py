"""rope.check at full size (issue 53, item 6): arrays over 2^24 elements are checked in one call, read in place a block
at a time (no whole copy of either array, in Python or in the library), and the limit that stays (2^22 sequence
indices a call) is said with the keywords and how to split. bench/python_check_bench.py times the [4, 8192, 32, 128]
float32 q against NumPy."""
import tracemalloc

import numpy as np
import pytest

import rope


def peak_rss_reset():
    """Resets the process's peak RSS (VmHWM); False where Linux does not let it."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def status_kib(field):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))


def test_over_2_24_elements_accepted_in_place():
    # [batch, seq, heads, d] = [4, 1025, 32, 128]: 2^24 + 16384 elements, 64 MiB of float32 each. Zeros are RoPE of
    # zeros; the positions say which axis is the sequence.
    shape = (4, 1025, 32, 128)
    before = np.zeros(shape, np.float32)
    after = np.zeros(shape, np.float32)
    before.fill(0), after.fill(0)  # touched: resident before the call
    size = before.nbytes
    assert before.size > 2**24
    reset = peak_rss_reset()
    rss = status_kib("VmRSS")
    tracemalloc.start()
    try:
        report = rope.check(before, after, np.arange(shape[1]), rope.Spec(head_dim=128))
        python_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.passed and report.total == before.size
    assert python_peak < size / 4  # no copy of either array in Python (np.save of one was 64 MiB)
    if reset:  # nor in the library: its blocks, not a float64 copy (128 MiB an array)
        assert (status_kib("VmHWM") - rss) * 1024 < size / 2


def test_float16_and_bf16_bits_read_in_place_as_the_file_reader_reads_them():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((64, 2, 32)).astype(np.float32)
    spec = rope.Spec(head_dim=32)
    y = rope.reference(x, np.arange(64), spec)
    assert rope.check(x.astype(np.float16), y.astype(np.float16), np.arange(64), spec).passed

    def bits(a):
        u = np.asarray(a, np.float32).view(np.uint32)
        return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)

    xb = bits(x)
    assert rope.check(xb, bits(rope.reference((xb.astype(np.uint32) << 16).view(np.float32), np.arange(64), spec)),
                      np.arange(64), spec, dtype="bf16").passed
    # Not contiguous, big-endian: copied to a contiguous native array first, the same verdict.
    assert rope.check(np.asfortranarray(x), y.astype(">f8"), np.arange(64), spec).passed
    with pytest.raises(ValueError, match="16-bit integers"):
        rope.check(xb, xb, np.arange(64), spec)


def test_the_sequence_limit_names_the_keywords_and_how_to_split():
    n = 2**22 + 1
    x = np.zeros((n, 2), np.float32)  # not touched: calloc's pages, nothing resident
    with pytest.raises(ValueError, match=r"before=, after=: shape \(4194305, 2\) \(axes seq,d\) has 4194305 sequence "
                                         r"indices, more than the 4194304 one call of rope.check takes: check slices "
                                         r"of the sequence axis within that limit, each with its own positions"):
        rope.check(x, x, None, rope.Spec(head_dim=2))
