"""rope.watch: every call of a model's RoPE function checked against the reference while the model runs
(docs/python.md, "Watch a model run").

    with rope.watch(modeling_llama, "apply_rotary_pos_emb", rope.Spec("llama-3.1-8b")) as watch:
        model(input_ids)
    print(watch.summary())

The named function of ``owner`` (a module, a class or any object) is replaced for the duration of the ``with``
block by a wrapper that calls it and checks the q and k it returned against ``rope.check`` at the positions of
the call: the call's ``position_ids`` when it got them, else the watch's ``positions=``, else the positions the
cos/sin tables it was given hold (each table's angles m·θ_i, read back pair by pair). Each call is reported with
its call site (file name:line of the caller) and its layer (the caller's ``self.layer_idx``, as Hugging Face's
attention modules have it, or a local ``layer_idx``).
"""

import dataclasses
import inspect
import math
import os
import sys
from typing import Callable, List, Optional

import numpy as np

from . import Report, _as_numpy, _spec, check

__all__ = ["watch", "Watch", "WatchedCall", "WatchFailure", "hf_apply_adapter"]


class WatchFailure(AssertionError):
    """A watched call whose q or k is not RoPE(q), RoPE(k) as the spec computes it (the first one, unless the
    watch collects them all)."""


def hf_apply_adapter(args, kwargs, result, function):
    """Hugging Face's ``apply_rotary_pos_emb(q, k, cos, sin, position_ids=None, unsqueeze_dim=1) -> (q_embed,
    k_embed)`` (transformers src/transformers/models/llama/modeling_llama.py): q and k [batch, heads, seq, d]
    with unsqueeze_dim 1 ([batch, seq, heads, d] with 2), cos and sin [batch, seq, rotary] (or a [seq, rotary]
    table that position_ids index). Returns the dict every adapter returns: q, k, q_out, k_out (each may be None),
    positions (None when the call has none), cos and sin (for the positions they hold), axes."""
    try:
        bound = inspect.signature(function).bind(*args, **kwargs)
        bound.apply_defaults()
        values = list(bound.arguments.values())
        named = bound.arguments
    except (TypeError, ValueError):
        values, named = list(args) + list(kwargs.values()), kwargs
    if len(values) < 4:
        raise TypeError(f"rope.watch: {function.__name__} was called with {len(values)} arguments; Hugging Face's "
                        "signature is (q, k, cos, sin, position_ids=None, unsqueeze_dim=1): give adapter= for another")
    q, k, cos, sin = values[:4]
    unsqueeze = named.get("unsqueeze_dim", 1)
    q_out, k_out = result[0], result[1]
    rank = len(getattr(q, "shape", ()))
    axes = None
    if rank == 4:
        axes = "batch,heads,seq,d" if unsqueeze == 1 else "batch,seq,heads,d"
    return {"q": q, "k": k, "q_out": q_out, "k_out": k_out, "positions": named.get("position_ids"), "cos": cos,
            "sin": sin, "axes": axes}


@dataclasses.dataclass
class WatchedCall:
    """One call of the watched function: ``index`` (0 for the first call in the watch), ``site`` (the caller's
    file name:line and function), ``layer`` (the caller's layer index, None when it has none), ``positions``
    checked and where they came from (``positions_from``: "position_ids", "positions=", "cos/sin"), the ``q`` and ``k``
    Reports (None for a tensor the call did not have), and ``problem``, a sentence when the call could not be
    checked as it should (cos/sin that hold no integer positions under the spec)."""
    index: int
    site: str
    layer: Optional[int]
    positions: Optional[np.ndarray]
    positions_from: str
    q: Optional[Report] = None
    k: Optional[Report] = None
    problem: str = ""

    @property
    def passed(self):
        return not self.problem and all(r is None or r.passed for r in (self.q, self.k))

    def where(self):
        return f"layer {self.layer} ({self.site})" if self.layer is not None else f"call {self.index} ({self.site})"

    def __str__(self):
        if self.passed:
            ratios = [r.max_ratio for r in (self.q, self.k) if r is not None]
            return f"PASS {self.where()}: max |Δ|/tolerance {max(ratios):.3g} (positions from {self.positions_from})"
        lines = [f"FAIL {self.where()} (positions from {self.positions_from}):"]
        if self.problem:
            lines.append(f"  {self.problem}")
        for name, report in (("q", self.q), ("k", self.k)):
            if report is not None and not report.passed:
                first, *rest = report.summary().splitlines()
                lines.append(f"  {name}: {first}")
                lines.extend("    " + line for line in rest)
        return "\n".join(lines)


def _caller(frame):
    """(site, layer) of the frame that called the watched function."""
    code = frame.f_code
    site = f"{os.path.basename(code.co_filename)}:{frame.f_lineno} in {code.co_name}"
    layer = None
    owner = frame.f_locals.get("self")
    if owner is not None and isinstance(getattr(owner, "layer_idx", None), (int, np.integer)):
        layer = int(owner.layer_idx)
    elif isinstance(frame.f_locals.get("layer_idx"), (int, np.integer)):
        layer = int(frame.f_locals["layer_idx"])
    return site, layer


# The largest position the candidates of an ambiguous table reach: rope check's bound on a dump's positions
# (kMaxDumpPosition, 2^24).
_MAX_TABLE_POSITION = 2 ** 24


def _allowed(m, theta):
    """How far an angle m·θ of a table may be from the exact one: a table rounded to bf16 moves it by ~2^-8 rad,
    float32 angles m·θ (Hugging Face's) by ~2^-24·m·θ."""
    return 0.02 + 2.0 ** -20 * np.abs(m) * theta


def _off(phi, m, theta):
    """|φ − m·θ| wrapped to [0, π]."""
    return np.abs(np.mod(phi - m * theta + math.pi, 2 * math.pi) - math.pi)


def _chain(phi, theta, order, start, element):
    """Candidate positions `start` (flat, of the elements `element` of phi [n, pairs]) carried pair by pair from the
    slowest θ to the fastest, each angle (known mod 2π) fixing the position the slower ones gave to a tighter
    interval; a candidate the slowest pair's angle no longer fits is dropped on the way. Returns the whole-number
    positions that fit every pair, and their elements."""
    m, e = start, element
    slow = order[0]
    for i in order[1:]:
        turns = np.round((m * theta[i] - phi[e, i]) / (2 * math.pi))
        m = (phi[e, i] + 2 * math.pi * turns) / theta[i]
        keep = _off(phi[e, slow], m, theta[slow]) <= _allowed(m, theta[slow])
        m, e = m[keep], e[keep]
    m = np.round(m)
    keep = np.ones(len(m), dtype=bool)
    for i in range(len(theta)):
        keep &= _off(phi[e, i], m, theta[i]) <= _allowed(m, theta[i])
    return m[keep], e[keep]


def positions_from_tables(cos, sin, spec, cache_position=None):
    """The integer positions whose angles m·θ_i the tables cos, sin ([..., seq, rotary], Hugging Face's
    cat(freqs, freqs) for the half layout, repeat_interleave for the interleaved one) hold under the spec, and a
    sentence when they hold none or more than one (""). The slowest pair's angle gives a position m₀ known modulo
    P = 2π/θ_min (54 400 at base 10000, d 128); each candidate m₀ + k·P up to 2^24 is carried pair by pair from the
    slowest θ to the fastest (each angle, known mod 2π, fixes the position the slower ones gave to a tighter interval),
    and the one whose angles are every pair's is the position. Where several are, the call's ``cache_position``
    (Hugging Face's attention gets it) picks one; without it that is said (docs/python.md)."""
    c, bits_c = _as_numpy(cos, "cos")
    s, bits_s = _as_numpy(sin, "sin")
    if bits_c or bits_s:  # bfloat16 patterns: read them as float32
        c = (c.astype(np.int32) << 16).astype(np.int32).view(np.float32) if bits_c else c
        s = (s.astype(np.int32) << 16).astype(np.int32).view(np.float32) if bits_s else s
    c, s = np.asarray(c, dtype=np.float64), np.asarray(s, dtype=np.float64)
    theta = np.asarray(spec.inv_freq, dtype=np.float64)
    pairs = len(theta)
    if c.shape != s.shape or c.shape[-1] != 2 * pairs:
        return None, (f"cos and sin of shapes {list(c.shape)}, {list(s.shape)}: the spec rotates {2 * pairs} "
                      "channels (the last axis of both)")
    channels = np.arange(pairs) if spec.layout == "half" else 2 * np.arange(pairs)
    phi_all = np.mod(np.arctan2(s[..., channels], c[..., channels]), 2 * math.pi)  # [..., seq, pairs]
    lead = phi_all.shape[:-1]
    phi = phi_all.reshape(-1, pairs)  # [n, pairs]
    order = [i for i in np.argsort(theta) if theta[i] > 0]
    period = 2 * math.pi / theta[order[0]]
    m0 = phi[:, order[0]] / theta[order[0]]
    candidates = int(_MAX_TABLE_POSITION // period) + 1
    cache = None
    if cache_position is not None:
        cache_arr, _ = _as_numpy(cache_position, "cache_position")
        cache = np.broadcast_to(np.asarray(cache_arr, dtype=np.float64), lead).reshape(-1)
    n = len(m0)
    chosen = np.zeros(n)
    fits = np.zeros(n, dtype=bool)  # some candidate fits: `chosen` is the first
    others = np.zeros(n, dtype=bool)  # another position fits as well
    at_cache = np.zeros(n, dtype=bool)  # the call's cache_position fits
    step = max(1, (1 << 22) // n)  # candidates at a time: at most 4 M numbers per array
    for k0 in range(0, candidates, step):
        ks = np.arange(k0, min(candidates, k0 + step), dtype=np.float64)
        start = (m0[None, :] + ks[:, None] * period).reshape(-1)
        m, e = _chain(phi, theta, order, start, np.tile(np.arange(n), len(ks)))
        first = np.unique(e, return_index=True)[1]  # each element's first fitting candidate in this chunk
        new = first[~fits[e[first]]]
        chosen[e[new]], fits[e[new]] = m[new], True
        others[e[m != chosen[e]]] = True
        if cache is not None:
            at_cache[e[m == cache[e]]] = True
    if cache is not None:
        chosen[at_cache] = cache[at_cache]
    m = chosen.reshape(lead)
    if not fits.all():
        # The reading named: the chain from the slowest pair's own position, whatever it fits.
        b = m0.copy()
        for i in order[1:]:
            b = (phi[:, i] + 2 * math.pi * np.round((b * theta[i] - phi[:, i]) / (2 * math.pi))) / theta[i]
        b = np.where(fits, chosen, np.round(b)).reshape(lead)
        residual = _off(phi_all, b[..., None], theta)
        bad = np.argwhere(residual > _allowed(b[..., None], theta))
        at = tuple(bad[0])
        return b, (f"the cos/sin tables are not the spec's angles at any integer position: at sequence index "
                   f"{at[-2]}, pair {at[-1]} (θ {theta[at[-1]]:.6g}) is {residual[at]:.3g} rad from position "
                   f"{int(b[at[:-1]])} ({len(bad)} of {residual.size} pair angles off): the table was built with "
                   "another base, scaling or layout than the spec's")
    unresolved = others & ~at_cache
    if unresolved.any():
        at = np.unravel_index(int(np.argmax(unresolved)), lead)
        return m, (f"the cos/sin tables hold the spec's angles at more than one position at sequence index "
                   f"{at[-1]} (position {int(m[at])} and another, a multiple of {period:.6g} apart, the period of "
                   "the slowest pair): pass positions= to rope.watch, or position_ids to the function")
    return m, ""


def _cache_position(frame):
    """The caller's cache_position (Hugging Face's attention forward gets it, as an argument or in its kwargs), or
    None: the positions of the call's tokens, which pick one of the positions an ambiguous cos/sin table holds."""
    found = frame.f_locals.get("cache_position")
    if found is None and isinstance(frame.f_locals.get("kwargs"), dict):
        found = frame.f_locals["kwargs"].get("cache_position")
    return found


def _as_positions(positions, name):
    if callable(positions):
        positions = positions()
    arr, bits = _as_numpy(positions, name)
    if bits:
        raise ValueError(f"{name}: positions in bfloat16 lose integers above 256; pass int64 position ids")
    return np.asarray(arr, dtype=np.float64)


def _fit(positions, x, axes):
    """Positions of one batch entry broadcast over x's batch axis ([1, seq] for a batch of B)."""
    if positions is None or x is None or axes is None or positions.ndim < 2:
        return positions
    batch = x.shape[0]
    if positions.ndim == 2 and positions.shape[0] == 1 and batch > 1:
        return np.broadcast_to(positions, (batch, positions.shape[1]))
    if positions.ndim == 3 and positions.shape[1] == 1 and batch > 1:
        return np.broadcast_to(positions, (positions.shape[0], batch, positions.shape[2]))
    return positions


class Watch:
    """The context manager ``rope.watch`` returns: ``calls`` (every WatchedCall), ``failures``, ``passed``
    (at least one call, and every call passed), ``summary()`` and ``assert_passed()``."""

    def __init__(self, owner, name, spec, *, adapter=None, positions=None, collect=False, dtype=None, angles=None):
        if not hasattr(owner, name):
            raise AttributeError(f"rope.watch: {getattr(owner, '__name__', type(owner).__name__)} has no attribute "
                                 f"{name!r} to watch")
        if adapter is not None and not callable(adapter):
            raise TypeError(f"rope.watch(adapter=): a function (args, kwargs, result) -> dict, not {adapter!r}")
        self.owner, self.name, self.spec = owner, name, _spec(spec)
        self.adapter, self.positions, self.collect, self.dtype, self.angles = adapter, positions, collect, dtype, angles
        self.calls: List[WatchedCall] = []
        self._original = None

    def __enter__(self):
        original = getattr(self.owner, self.name)
        if not callable(original):
            raise TypeError(f"rope.watch: {self.name} is not a function")
        self._original = original
        watch = self

        def watched(*args, **kwargs):
            result = original(*args, **kwargs)
            watch._check(args, kwargs, result, sys._getframe(1))
            return result

        watched.__wrapped__ = original
        watched.__name__ = getattr(original, "__name__", self.name)
        setattr(self.owner, self.name, watched)
        return self

    def __exit__(self, *exc):
        if self._original is not None:
            setattr(self.owner, self.name, self._original)
            self._original = None
        return False

    def _check(self, args, kwargs, result, frame):
        adapter = self.adapter or (lambda a, kw, r: hf_apply_adapter(a, kw, r, self._original))
        got = adapter(args, kwargs, result)
        site, layer = _caller(frame)
        axes = got.get("axes")
        problem = ""
        if got.get("positions") is not None:
            positions, source = _as_positions(got["positions"], "position_ids"), "position_ids"
        elif self.positions is not None:
            positions, source = _as_positions(self.positions, "positions"), "positions="
        elif got.get("cos") is not None and got.get("sin") is not None:
            positions, problem = positions_from_tables(got["cos"], got["sin"], self.spec, _cache_position(frame))
            source = "cos/sin"
        else:
            raise TypeError("rope.watch: the call gave no positions and no cos/sin tables: pass positions= to "
                            "rope.watch, or an adapter whose dict has positions")
        call = WatchedCall(len(self.calls), site, layer, positions, source, problem=problem)
        if positions is not None:
            for name in ("q", "k"):
                before, after = got.get(name), got.get(name + "_out")
                if before is None or after is None:
                    continue
                at = _fit(positions, before, axes)
                setattr(call, name, check(before, after, at, self.spec, self.dtype, angles=self.angles, axes=axes))
        self.calls.append(call)
        if not call.passed and not self.collect:
            raise WatchFailure(f"rope.watch({self.name}): {call}")

    @property
    def failures(self):
        return [c for c in self.calls if not c.passed]

    @property
    def passed(self):
        return bool(self.calls) and not self.failures

    def __bool__(self):
        return self.passed

    def summary(self):
        """A line per call (PASS or FAIL with the layer and site, a failure's diagnosis), then the count."""
        if not self.calls:
            return f"rope.watch({self.name}): no call"
        lines = [str(c) for c in self.calls]
        lines.append(f"rope.watch({self.name}): {len(self.calls)} calls, {len(self.failures)} failed")
        return "\n".join(lines)

    def assert_passed(self):
        """AssertionError listing every failing call (the watch collected them), or that there was no call."""
        if not self.passed:
            raise WatchFailure(self.summary())
        return self


def watch(owner, name, spec, *, adapter: Optional[Callable] = None, positions=None, collect=False, dtype=None,
          angles=None) -> Watch:
    """Check every call of ``owner.name`` (Hugging Face's ``apply_rotary_pos_emb`` in a modeling module, or
    another RoPE function with ``adapter``) against ``spec`` while the ``with`` block runs. ``adapter(args,
    kwargs, result)`` returns a dict: ``q``, ``k``, ``q_out``, ``k_out`` (None for one the function lacks),
    ``positions`` or ``cos`` and ``sin``, and ``axes`` (as ``rope.check`` takes it). ``positions``: the position
    ids of the run (an array, or a function returning the current ones) for calls that do not get them, checked
    instead of the positions cos/sin hold (which tell whether the function applies its tables as the spec does,
    not whether the tables were built for the right positions). ``collect=False`` raises WatchFailure (an
    AssertionError) at the first failing call, out of the model's forward; ``collect=True`` records every call:
    read ``watch.failures`` or call ``watch.assert_passed()`` after the block. ``dtype`` and ``angles`` are
    ``rope.check``'s."""
    return Watch(owner, name, spec, adapter=adapter, positions=positions, collect=collect, dtype=dtype,
                 angles=angles)
