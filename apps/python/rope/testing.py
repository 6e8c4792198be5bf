"""rope.testing: the inputs that caught the public RoPE bugs, and checks for a pytest suite (docs/python.md).

    import rope, rope.testing
    spec = rope.Spec("llama-3.1-8b")

    @pytest.mark.parametrize("case", rope.testing.cases(spec), ids=str)
    def test_my_kernel(case):
        rope.testing.assert_case(my_rope, case)        # AssertionError: the diagnosis

    def test_all_at_once():
        rope.testing.assert_implementation(my_rope, spec)

An implementation is ``fn(q, positions) -> q_rot``: q of shape [seq, heads, d] (or [batch, seq, heads, d],
positions then [batch, seq]), q_rot of the same shape. An M-RoPE model's cases also give position ids of
3 rows (t, h, w): [3, seq], or [3, batch, seq] with q [batch, seq, heads, d]. Cases of a layer type call
``fn(q, positions, layer_type=NAME)`` and are left out when fn takes no ``layer_type``.

A kernel handed a cos/sin table is ``fn(x, cos, sin, positions) -> x_rot``: ``cache_cases()`` gives x, the table
(cos and sin [max_pos, rot/2], ONNX's and flash-attn's shape) and position ids gathering it, and checks the output
against that table (``rope check --cos --sin``): random tables as ONNX's conformance tests use, a model's table, ids
out of order, a table narrower than the head.

A fused kernel that turns q and k in one call is ``fn(q, k, positions) -> (q_rot, k_rot)``: give ``kv_heads``
(``cases(spec, heads=8, kv_heads=2)``, ``assert_implementation(fn, spec, heads=8, kv_heads=2)``; GQA when fewer than
``heads``): every case then also carries k, of kv_heads heads, and the check is ``rope check --k-before --k-after``:
q's, k's, and the scores' relative-position identity (a kernel that swaps q and k, or turns k with the query
heads' count, is named).
"""

import dataclasses
import inspect
from typing import Callable, Iterator, List, Optional

import numpy as np

from . import Report, Spec, _as_numpy, _spec, check

__all__ = ["Case", "cases", "cache_cases", "assert_rope", "assert_ranks", "assert_case", "check_case", "check_implementation",
           "assert_implementation", "ImplementationResult", "to_bf16", "assert_rope_grad"]


def to_bf16(x):
    """x rounded to bfloat16 (round to nearest even), as float32: what a bf16 tensor holds."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)


@dataclasses.dataclass
class Case:
    """One input: ``q`` before RoPE, its ``positions``, the ``spec`` it is checked against, the type it is in
    (``dtype``: "f32", "f16", or "bf16", q then float32 holding bfloat16 values), and why it is there."""
    id: str
    why: str
    q: np.ndarray
    positions: np.ndarray
    spec: Spec
    dtype: str = "f32"
    sequence_starts: Optional[List[int]] = None
    axes: Optional[str] = None
    layer_type: Optional[str] = None
    k: Optional[np.ndarray] = None  # a fused q+k kernel's cases (cases(kv_heads=)): k, kv_heads heads, q's positions
    cos: Optional[np.ndarray] = None  # a kernel handed a table (cache_cases()): cos and sin [max_pos, rot/2]
    sin: Optional[np.ndarray] = None
    layout: Optional[str] = None  # the table's pairing ("half", "interleaved"; None: the spec's)

    def __str__(self):
        return self.id

    def torch(self, device="cpu"):
        """q and positions as torch tensors (q in the case's type, bfloat16 included; positions int64); with k,
        (q, k, positions)."""
        import torch
        kind = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[self.dtype]

        def tensor(x):
            return torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32)).to(device=device, dtype=kind)

        positions = torch.from_numpy(self.positions.astype(np.int64)).to(device)
        return (tensor(self.q), positions) if self.k is None else (tensor(self.q), tensor(self.k), positions)


def _q(rng, shape, dtype="f32"):
    q = rng.standard_normal(shape).astype(np.float32)
    if dtype == "f16":
        return q.astype(np.float16)
    if dtype == "bf16":
        return to_bf16(q)
    return q


def _long_positions(spec):
    """Positions up to and past the original context and max_position_embeddings, and at least 32k."""
    l0 = spec.original_max_position_embeddings or spec.max_position_embeddings or 4096
    top = spec.max_position_embeddings or l0
    # 65504 (float16's largest finite value: angles computed in float16 overflow from 65520) and 131071 (where imp PR
    # #1325 measured fast-math sin 1e-2 off, its tests stopping at 40) beside the powers of two.
    picks = {0, 1, 2, 255, 256, 4095, 4096, 8191, 8192, 32767, 32768, 32769, 65504, 65535, 131071}
    for p in (l0, top):
        picks.update({p - 2, p - 1, p, p + 1, p + 64})
    return np.array(sorted(p for p in picks if 0 <= p < 2 ** 24), dtype=np.int64)


def cases(spec, *, heads=2, seed=0, dtypes=("f16", "bf16"), layer_types=True, kv_heads=None) -> Iterator[Case]:
    """The inputs of _q_cases below; with ``kv_heads`` (a divisor of ``heads``) each also carries k, of kv_heads heads
    in q's type and at q's positions, for a fused ``fn(q, k, positions)`` (strided, as q, in the strided-q case). The
    cases of a batch axis with a row of positions per entry (batched-decode, M-RoPE's batched and decode cases) are left
    out then: rope.check's pair of q and k reads k at one sequence of positions, not per batch row."""
    if kv_heads is None:
        yield from _q_cases(spec, heads=heads, seed=seed, dtypes=dtypes, layer_types=layer_types)
        return
    if isinstance(kv_heads, bool) or not isinstance(kv_heads, (int, np.integer)) or not 1 <= kv_heads <= heads \
            or heads % kv_heads:
        raise ValueError(f"kv_heads must be a whole number that divides heads={heads} (got {kv_heads!r}): each "
                         "key-value head serves heads/kv_heads query heads")
    rng = np.random.default_rng(seed + 1)
    for case in _q_cases(spec, heads=heads, seed=seed, dtypes=dtypes, layer_types=layer_types):
        if case.axes is not None:  # [batch, seq, heads, d] with positions per batch row
            continue
        shape = case.q.shape[:-2] + (int(kv_heads), case.q.shape[-1])
        if case.id == "strided-q":  # k sliced out of a wider tensor too
            case.k = _q(rng, shape[:-1] + (2 * shape[-1],), case.dtype)[..., shape[-1]:]
        else:
            case.k = _q(rng, shape, case.dtype)
        yield case


def _q_cases(spec, *, heads=2, seed=0, dtypes=("f16", "bf16"), layer_types=True) -> Iterator[Case]:
    """The inputs that caught the public RoPE bugs (docs/python.md says which caught which), for ``spec`` (a
    Spec, or what Spec() takes): prefill, positions up to and past the original context (>= 32k), batched
    decode with a different offset per row, q sliced out of a fused qkv tensor (strided), the pass-through
    channels of partial rotary, every other layer type of the model, packed sequences whose positions restart,
    inputs in float16 and bfloat16, and for an M-RoPE model (``mrope_section``) an image and a video grid
    between text with position ids [3, seq] and [3, batch, seq] (t, h, w rows, as Hugging Face's get_rope_index
    builds them) and a decode step at index + rope_deltas. A generator: pytest parametrizes over it
    (``ids=str``)."""
    spec = _spec(spec)
    rng = np.random.default_rng(seed)
    d = spec.head_dim
    seq = np.arange(48, dtype=np.int64)
    yield Case("prefill", "positions 0 … 47 in float32: what every kernel suite checks", _q(rng, (48, heads, d)), seq, spec)
    far = _long_positions(spec)
    yield Case("long-positions", f"positions up to {int(far[-1])}, past the original context: scaling and angle "
               "precision show only there (suites stop below 512 or 8192)", _q(rng, (len(far), heads, d)), far, spec)
    offsets = np.array([[3], [130], [4099], [int(far[-3])]], dtype=np.int64)
    yield Case("batched-decode", "one new token per sequence of a batch, each at its own offset",
               _q(rng, (4, 1, heads, d)), offsets, spec, axes="batch,seq,heads,d")
    qkv = _q(rng, (40, heads, 3 * d))
    yield Case("strided-q", "q sliced out of a fused qkv projection (not contiguous), positions from 1000",
               qkv[:, :, :d], np.arange(1000, 1040, dtype=np.int64), spec)
    if spec.rotary_dim < spec.head_dim:
        yield Case("partial-rotary", f"only {spec.rotary_dim} of {d} channels rotate; the others pass through",
                   _q(rng, (48, heads, d)), np.arange(0, 48 * 97, 97, dtype=np.int64), spec)
    if layer_types:
        for name, _, has_rope in spec.layer_types:
            if has_rope and name != spec.layer_type:
                yield Case(f"layer-type-{name}", f"the {name} layers' own RoPE (their base and scaling)",
                           _q(rng, (48, heads, d)), np.arange(0, 48 * 211, 211, dtype=np.int64),
                           spec.with_layer_type(name), layer_type=name)
    lengths = [40, 17, 30]
    packed = np.concatenate([np.arange(n, dtype=np.int64) for n in lengths])
    yield Case("packed-sequences", "three sequences packed along one axis: positions restart at 0 in each",
               _q(rng, (len(packed), heads, d)), packed, spec, sequence_starts=[0, 40, 57])
    for kind in dtypes:
        yield Case(f"dtype-{kind}", f"q in {kind}: the kernel's own type, checked with that type's tolerance",
                   _q(rng, (48, heads, d), kind), np.arange(0, 48 * 41, 41, dtype=np.int64), spec, dtype=kind)
    if "mrope_section" in spec.data:
        yield from _mrope_cases(spec, rng, heads)


# Two prompts of the same length, an image and a video between text in both, in another order and with a smaller
# image in the second (another rope_deltas).
_PROMPTS = ([("text", 20), ("image", (1, 8, 12)), ("text", 5), ("video", (2, 4, 8)), ("text", 5)],
            [("text", 6), ("video", (2, 4, 8)), ("text", 27), ("image", (1, 8, 8)), ("text", 5)])


def _prompt_positions(spec, segments, decode=0):
    """(position ids [3, n], rope_deltas) of a prompt under the spec's rules (rope.mrope_positions, the port of
    Hugging Face's get_rope_index); Qwen3-VL's frames after timestamps get 3 text tokens each; a config without
    the rules of a Qwen-VL vision_config gets Qwen2-VL's."""
    from . import mrope_positions
    for source, frame_text in ((spec, None), (spec, 3), (None, None)):
        try:
            return mrope_positions(segments, source, decode=decode, frame_text=frame_text)
        except ValueError:
            continue
    raise ValueError(f"no M-RoPE position ids for {spec.name}")


def _mrope_cases(spec, rng, heads):
    """M-RoPE's own inputs: real (t, h, w) ids of an image grid and a video grid between text, as Hugging Face's
    get_rope_index builds them (transformers src/transformers/models/qwen2_vl/modeling_qwen2_vl.py @ 928b5565ec,
    Qwen2VLModel.get_rope_index; the library's port, src/rope/models/mrope_positions.hpp), [3, seq] and
    [3, batch, seq] (HF's position_ids), and a decode step at index + rope_deltas (a delta per row). A kernel that
    reads the t row for every axis passes every text case and fails these (mrope-t-for-all)."""
    d = spec.head_dim
    first, delta = _prompt_positions(spec, _PROMPTS[0])
    yield Case("mrope-image-video", f"{first.shape[1]} tokens: text, an image grid, text, a video grid, text; "
               "position ids [3, seq] (t, h, w): h and w differ from t on every vision token",
               _q(rng, (first.shape[1], heads, d)), first, spec)
    rows = [_prompt_positions(spec, prompt, decode=1) for prompt in _PROMPTS]
    length = min(ids.shape[1] for ids, _ in rows) - 1
    batch = np.stack([ids[:, :length] for ids, _ in rows], axis=1)
    yield Case("mrope-batched", f"two prompts of {length} tokens, image and video in another order in each: "
               "position ids [3, batch, seq], as HF's position_ids", _q(rng, (2, length, heads, d)), batch, spec,
               axes="batch,seq,heads,d")
    step = np.stack([ids[:, -1:] for ids, _ in rows], axis=1)
    deltas = ", ".join(str(delta) for _, delta in rows)
    yield Case("mrope-decode", f"the first decode step of each prompt at index + rope_deltas ({deltas}) on t, h "
               "and w: position ids [3, batch, 1]", _q(rng, (2, 1, heads, d)), step, spec, axes="batch,seq,heads,d")


def cache_cases(spec=None, *, heads=2, seed=0, layout=None) -> Iterator[Case]:
    """The inputs of a kernel handed a cos/sin table, ``fn(x, cos, sin, positions) -> x_rot``: x [batch, seq, heads,
    d], cos and sin [max_pos, rot/2] gathered by position ids [batch, seq] (ONNX's RotaryEmbedding and flash-attn's
    shapes). Random tables (ONNX's conformance cases use np.random.rand: a kernel that recomputes θ, or drops a
    magnitude, cannot pass them), ids out of order and repeated, and, with a ``spec``, the model's own table (its θ and
    attention factor in float32) and a table of half the rotary width whose other channels pass through. The pairing
    is ``layout`` ("half", "interleaved"), else the spec's, else half."""
    rng = np.random.default_rng(seed)
    model = None if spec is None else _spec(spec)
    layout = layout or (model.layout if model is not None else "half")
    d = model.head_dim if model is not None else 64
    rot = model.rotary_dim if model is not None else d

    def x(seq):
        return rng.standard_normal((2, seq, heads, d)).astype(np.float32)

    def random_table(rows, half):
        return rng.random((rows, half), dtype=np.float32), rng.random((rows, half), dtype=np.float32)

    cos, sin = random_table(64, rot // 2)
    ids = rng.integers(0, 64, (2, 16)).astype(np.int64)
    yield Case("cache-random", "a random table gathered by random position ids, as ONNX's conformance cases: the "
               "kernel must apply the table it is handed, whatever its values", x(16), ids, model, cos=cos, sin=sin,
               layout=layout)
    ids = np.array([[9, 47, 36, 24, 11, 12], [63, 0, 0, 5, 62, 1]], dtype=np.int64)
    yield Case("cache-ids-unordered", "position ids that are not increasing, repeated, and the table's first and "
               "last rows", x(6), ids, model, cos=cos, sin=sin, layout=layout)
    if model is not None:
        inv = np.asarray(model.inv_freq, dtype=np.float32)
        angles = (np.arange(4096, dtype=np.float32)[:, None] * inv[None, :]).astype(np.float32)
        a = np.float32(model.attention_factor)
        ids = np.stack([np.arange(4000, 4032), np.arange(100, 132)]).astype(np.int64)
        yield Case("cache-model", f"{model.name}'s own table (θ and attention factor {float(a):g} in float32), "
                   "positions past 4000", x(32), ids, model, cos=(np.cos(angles) * a).astype(np.float32),
                   sin=(np.sin(angles) * a).astype(np.float32), layout=layout)
        if rot >= 4:
            cos, sin = random_table(64, rot // 4)
            yield Case("cache-narrow", f"a table of {rot // 4} pairs: {rot // 2} channels rotate, the other "
                       f"{d - rot // 2} pass through", x(16), rng.integers(0, 64, (2, 16)).astype(np.int64), model,
                       cos=cos, sin=sin, layout=layout)


def check_case(fn: Callable, case: Case) -> Report:
    """Runs ``fn`` on the case and checks its output (``rope check``); a case with k calls ``fn(q, k, positions)``
    and checks q, k and their scores (``rope check --k-before --k-after``); a case with a table (cache_cases()) calls
    ``fn(x, cos, sin, positions)`` and checks the output against that table (``rope check --cos --sin``)."""
    if case.cos is not None:
        return _check_output(case, fn(case.q, case.cos, case.sin, case.positions))
    inputs = (case.q, case.positions) if case.k is None else (case.q, case.k, case.positions)
    if case.layer_type is not None:
        out = fn(*inputs, layer_type=case.layer_type)
    else:
        out = fn(*inputs)
    return _check_output(case, out)


def _shaped(case, out, name, shape):
    arr, bits = _as_numpy(out, name)
    if arr.shape != shape:
        raise ValueError(f"case {case.id}: fn returned shape {list(arr.shape)} for {name[-1]} of shape {list(shape)}")
    return bits


def _check_output(case, out):
    if case.k is not None:
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise ValueError(f"case {case.id}: a fused fn(q, k, positions) returns (q_rot, k_rot) (got "
                             f"{type(out).__name__})")
        q_out, k_out = out
        bits = _shaped(case, q_out, "fn's q", case.q.shape) | _shaped(case, k_out, "fn's k", case.k.shape)
    else:
        q_out, k_out = out, None
        bits = _shaped(case, out, "fn's q", case.q.shape)
    dtype = "bf16" if case.dtype == "bf16" or bits else None
    if case.cos is not None:
        return check(case.q, q_out, case.positions, case.spec, dtype=dtype, axes="batch,seq,heads,d", cos=case.cos,
                     sin=case.sin, layout=case.layout)
    pair = {} if case.k is None else {"k_before": case.k, "k_after": k_out}
    return check(case.q, q_out, case.positions, case.spec, dtype=dtype, sequence_starts=case.sequence_starts,
                 axes=case.axes, **pair)


def assert_case(fn: Callable, case: Case):
    """check_case, raising AssertionError whose message is the diagnosis."""
    report = check_case(fn, case)
    if not bool(report):  # q's verdict, and with k k's and the pair's
        raise AssertionError(f"case {case.id} ({case.why}): {_diagnosis(report) or 'no known bug matches'}\n"
                             f"{report.summary()}")


def _diagnosis(report):
    """The first sentence that names what failed: q's, k's, then the pair's."""
    if not report.passed:
        return report.diagnosis
    if report.k is not None and not report.k.passed:
        return "k: " + report.k.diagnosis
    if report.pair is not None and not report.pair.passed:
        return report.pair.diagnosis
    return ""


def assert_ranks(before, after, positions=None, spec=None, **options):
    """rope.distributed.check_ranks in every rank of a job; on the rank holding the merged report (rank 0, or every
    rank with all_ranks=True) raises AssertionError whose message is that report (a row per rank, the failing
    ranks' mistakes, the run's verdict) when a rank fails. Returns the report there, None on the other ranks."""
    from .distributed import check_ranks
    report = check_ranks(before, after, positions, spec, **options)
    if report is not None and not report.passed:
        raise AssertionError(report.summary())
    return report


def assert_rope(before, after, positions, spec, dtype=None, **options):
    """rope.check, raising AssertionError whose message is the diagnosis (then the numbers) when it fails."""
    report = check(before, after, positions, spec, dtype, **options)
    if not report.passed:
        raise AssertionError(f"{report.diagnosis or 'no known bug matches'}\n{report.summary()}")
    return report


def assert_rope_grad(grad_out, grad_in, spec, positions, dtype=None, **options):
    """A RoPE kernel's backward checked (``rope check --grad``): ``grad_out`` the upstream gradient handed to it (the
    gradient of RoPE's output, the ``g`` of ``y.backward(g)``), ``grad_in`` the gradient it returned for its input
    (``x.grad``), at ``positions`` under ``spec``; expected a·R(m)ᵀ·grad_out. Autograd tensors are detached and read
    in place (bfloat16 included), NumPy arrays as they are. AssertionError with the diagnosis when it fails, and when
    ``grad_in`` is None (a kernel with no backward leaves ``x.grad`` unset). Returns the Report."""
    if grad_in is None:
        raise AssertionError("the gradient of the input is None: the RoPE has no backward, or the input does not "
                             "require grad")
    report = check(grad_out, grad_in, positions, spec, dtype, grad=True, **options)
    if not report.passed:
        raise AssertionError(f"{report.diagnosis or 'no known bug matches'}\n{report.summary()}")
    return report


@dataclasses.dataclass
class ImplementationResult:
    """check_implementation's result: ``passed``, the first failing ``case`` and its ``report`` (None when
    every case passes), and the ids of the cases run."""
    passed: bool
    case: Optional[Case]
    report: Optional[Report]
    cases_run: List[str]

    def __bool__(self):
        return self.passed

    @property
    def diagnosis(self):
        return _diagnosis(self.report) if self.report is not None else ""

    def __str__(self):
        if self.passed:
            return f"PASS: {len(self.cases_run)} cases ({', '.join(self.cases_run)})"
        return f"case {self.case.id} ({self.case.why}) fails:\n{self.report.summary()}"


def _takes_layer_type(fn):
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "layer_type" in parameters or any(p.kind == p.VAR_KEYWORD for p in parameters.values())


def check_implementation(fn: Callable, spec, *, framework="numpy", **options) -> ImplementationResult:
    """Runs ``fn(q, positions) -> q_rot`` (with ``kv_heads=``: ``fn(q, k, positions) -> (q_rot, k_rot)``) over
    cases(spec, **options) and stops at the first failing case.
    ``framework="torch"`` hands fn torch tensors (bfloat16 for the bf16 case) instead of NumPy arrays."""
    if framework not in ("numpy", "torch"):
        raise ValueError(f"framework must be numpy or torch (got {framework!r})")
    run = []
    layer_types = _takes_layer_type(fn)
    for case in cases(spec, layer_types=layer_types, **options):
        run.append(case.id)
        if framework == "torch":
            inputs = case.torch()
        else:
            inputs = (case.q, case.positions) if case.k is None else (case.q, case.k, case.positions)
        kwargs = {"layer_type": case.layer_type} if case.layer_type is not None else {}
        report = _check_output(case, fn(*inputs, **kwargs))
        if not bool(report):  # q's verdict, and with k k's and the pair's
            return ImplementationResult(False, case, report, run)
    return ImplementationResult(True, None, None, run)


def assert_implementation(fn: Callable, spec, **options) -> ImplementationResult:
    """check_implementation, raising AssertionError with the first failing case and its diagnosis."""
    result = check_implementation(fn, spec, **options)
    if not result.passed:
        raise AssertionError(str(result))
    return result
