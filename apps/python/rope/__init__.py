"""rope: a model's RoPE, its float64 reference, and the check of a kernel's output (docs/python.md).

The same library as the ``rope`` command line, in-process, with NumPy arrays in and out::

    import rope
    spec = rope.Spec("llama-3.1-8b")                 # a preset, a config.json or GGUF path, or a dict
    ref = rope.reference(q, positions, spec)          # float64, q's shape
    report = rope.check(q, q_rot, positions, spec)    # rope check's verdict, numbers and diagnosis
    assert report.passed, report.diagnosis

Arrays may be anything NumPy reads (``__array__``, DLPack), torch tensors included; NumPy has no bfloat16,
so bf16 data is either 16-bit integers holding the bit patterns with ``dtype="bf16"``, or a torch bfloat16
tensor. Bad input raises ValueError with the library's sentence, naming the argument.
"""

import functools
import io
import json as _json
import operator
import os
import re
import tempfile

import numpy as np

from . import _rope

__version__ = _rope.__version__

__all__ = ["Spec", "Report", "PairReport", "SpectrumReport", "reference", "check", "identify", "spectrum", "verify", "VerifyReport", "presets", "mrope_positions", "cp_positions", "grid_positions", "watch", "Watch",
           "WatchedCall", "WatchFailure", "testing", "__version__"]

_PARAMETERS = (
    "head_dim", "base", "layout", "scaling", "factor", "beta_fast", "beta_slow", "mscale", "mscale_all_dim",
    "attention_factor", "low_freq_factor", "high_freq_factor", "partial_rotary_factor",
    "original_max_position_embeddings", "max_position_embeddings", "seq_len", "truncate", "short_factor",
    "long_factor", "vision", "tower", "float32", "yarn_variant", "engine", "max_model_len", "n_ctx", "xdrope_map",
)


_INTEGERS = {"head_dim", "original_max_position_embeddings", "max_position_embeddings", "seq_len", "max_model_len",
             "n_ctx"}
_TEXTS = {"layout", "scaling", "vision", "tower", "yarn_variant", "engine", "xdrope_map"}
_FLAGS = {"truncate", "float32"}
_LISTS = {"short_factor", "long_factor"}


_INT64 = (-2**63, 2**63 - 1)


def _integer(value, name):
    """``value`` as a Python int, as operator.index takes it (an int or a NumPy integer, never a float or a bool):
    TypeError otherwise, and ValueError naming ``name`` and the range beyond int64, which the library's C++ holds."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, not a bool (got {value!r})")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer (got {value!r})") from None
    if not _INT64[0] <= v <= _INT64[1]:  # the library's own words for Spec's integers (apps/python/spec.cpp)
        raise ValueError(f"{name} must be an integer between {_INT64[0]} and {_INT64[1]} (got {v})")
    return v


def _text(value, name):
    """A text argument (a choice such as ``angles=`` or ``axes=``): "" for None, TypeError naming ``name`` for
    anything but a str (pybind11 would print its internal signature)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str (got {value!r})")
    return value


def _path(value, name):
    """A path argument as text (os.fspath), refused as open() refuses it when it holds a NUL: the C++ library would
    read the file named by the part before it."""
    text = os.fspath(value)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if "\0" in text:
        raise ValueError(f"{name}: embedded null byte")
    return text


def _check_type(key, value):
    """TypeError for a parameter of the wrong kind, ValueError for a number no C++ type holds (the library checks
    the values)."""
    if key in _INTEGERS:
        ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    elif key in _TEXTS:
        ok = isinstance(value, str)
    elif key in _FLAGS:
        ok = isinstance(value, (bool, np.bool_))
    elif key in _LISTS:
        ok = not isinstance(value, (str, bytes)) and all(isinstance(v, (int, float, np.number)) for v in value)
    else:
        ok = isinstance(value, (int, float, np.number)) and not isinstance(value, bool)
    if not ok:
        raise TypeError(f"Spec(): {key} cannot be {value!r}")
    if key not in _INTEGERS and key not in _TEXTS and key not in _FLAGS:  # integers: the library names their range
        for v in value if key in _LISTS else [value]:
            try:
                float(v)
            except OverflowError:
                raise ValueError(f"Spec(): {key} must be a float64 number, at most about 1.8e308 in size "
                                 f"(got {v!r} beyond it)") from None


_AXES = '"seq,d", "seq,heads,d", "batch,heads,seq,d" or "batch,seq,heads,d"'


def _pythonic(text, call):
    """The library's sentence (the one `rope` prints) with what a Python caller writes added: the keyword and its
    accepted spellings for a refused shape, the limit and how to split for an array too large for one call, the
    keyword of rope.Spec for a missing parameter. ``call``: the function the error came out of."""
    text = re.sub(r"could be \[batch, heads, seq, d\] or \[batch, seq, heads, d\]: give axes$",
                  'could be [batch, heads, seq, d] or [batch, seq, heads, d]: give axes="batch,heads,seq,d" or '
                  'axes="batch,seq,heads,d"', text)
    text = re.sub(r"^axes must be seq,d or seq,heads,d or batch,heads,seq,d or batch,seq,heads,d \(got (.*)\)$",
                  lambda m: f"axes= must be one of {_AXES} (got {m.group(1)})", text)
    m = re.match(r"^(\w+): shape \(([^)]*)\) has rank (\d+); a dump has 2 to 4 axes", text)
    if m:
        text += (f"; merge axes to one of them (x.reshape(batch, seq, -1, d) joins the kv_heads and groups of "
                 f"[batch, seq, kv_heads, groups, d] into heads) and name the order with axes=: {_AXES}")
    m = re.match(r"^(\w+): header 'shape': shape \(([^)]*)\) has more than the (\d+) elements allowed$", text)
    if m:
        name, dims, limit = m.group(1), [int(v) for v in m.group(2).replace(",", " ").split()], int(m.group(3))
        count = int(np.prod(dims, dtype=np.float64))
        parts = -(-count // limit)
        text = (f"{name}: shape ({m.group(2)}) has {count} elements, more than the {limit} (2^{limit.bit_length() - 1}) "
                f"one call of rope.{call} takes: split {name} along its batch or seq axis into {parts} parts or more "
                f"(each at most {limit} elements; slice the positions with it), call rope.{call} on each part and "
                "join the results" + (" (np.concatenate)" if call == "reference" else
                                      " (the check passes when every part passes)" if call == "check" else ""))
    m = re.match(r"^(\S+) needs (\w+)(.*)$", text)
    if m and m.group(2) in _PARAMETERS and f"give {m.group(2)}=" not in text:  # the library may name it already
        text += f": give rope.Spec the keyword {m.group(2)}="
    if call == "Spec":
        text = re.sub(r"^dimension d must be even", "head_dim must be even", text)
    if "splits a video into its frames" in text:
        text += ' (rope.mrope_positions: give frame_text=N, the text tokens before each frame, or each frame as ' \
                '("image", (1, H, W)) after ("text", N))'
    return text


def _speaks_python(call):
    """The decorator of rope.reference, check and identify: their library errors through _pythonic."""
    def wrap(function):
        @functools.wraps(function)
        def speaking(*args, **kwargs):
            with _PythonErrors(call):
                return function(*args, **kwargs)
        return speaking
    return wrap


class _PythonErrors:
    """Re-raises a ValueError of the library with _pythonic's sentence (see there)."""

    def __init__(self, call):
        self.call = call

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if kind is ValueError:
            text = _pythonic(str(error), self.call)
            if text != str(error):
                raise ValueError(text) from None
        return False


class Spec:
    """A model's RoPE, resolved as every ``rope`` command resolves ``--model``/``--config`` and its options.

    ``source`` is a preset name (``rope inspect --list``), the path of a Hugging Face config.json or a GGUF
    file, a config as a dict, or None (plain RoPE of ``head_dim`` and ``base``, layout rotate_half unless
    ``layout`` is given). Keyword parameters override the source's values (Hugging Face's names:
    ``factor``, ``original_max_position_embeddings``, ``partial_rotary_factor``, ...); ``layer_type`` selects a
    layer type's RoPE (Gemma 3's ``"sliding_attention"``, or a layer index).
    """

    def __init__(self, source=None, *, layer_type=None, **params):
        unknown = sorted(set(params) - set(_PARAMETERS))
        if unknown:
            raise TypeError(f"Spec() got an unexpected keyword argument '{unknown[0]}'")
        given = {k: v for k, v in params.items() if v is not None}
        for key, value in given.items():
            _check_type(key, value)
        given = {k: (list(map(float, v)) if k in _LISTS else v.item() if isinstance(v, np.generic) else v)
                 for k, v in given.items()}
        if layer_type is not None:
            given["layer_type"] = str(layer_type)
        self._source, self._layer_type, self._params = source, layer_type, dict(params)
        with _PythonErrors("Spec"):
            if source is None:
                self._impl = _rope.Spec("", "", given)
            elif isinstance(source, dict):
                with tempfile.TemporaryDirectory() as tmp:
                    path = os.path.join(tmp, "config.json")
                    with open(path, "w", encoding="utf-8") as f:
                        _json.dump(source, f)
                    try:
                        self._impl = _rope.Spec("", path, given, "config dict")
                    except ValueError as error:  # the library names the file: here it is the argument
                        raise ValueError(str(error).replace(path, "source (a config dict)")) from None
            elif isinstance(source, (str, os.PathLike)):
                text = _path(source, "Spec(source)")
                is_file = os.path.sep in text or text.endswith((".json", ".gguf")) or os.path.exists(text)
                self._impl = _rope.Spec("", text, given) if is_file else _rope.Spec(text, "", given)
            else:
                raise TypeError(f"Spec(source): a preset name, a path, a dict or None, not {type(source).__name__}")

    def with_layer_type(self, layer_type):
        """The same model and parameters, with the RoPE of another layer type."""
        return Spec(self._source, layer_type=layer_type, **self._params)

    name = property(lambda self: self._impl.name, doc="the model: preset name, file path, or 'the command line'")
    model_type = property(lambda self: self._impl.model_type)
    head_dim = property(lambda self: self._impl.head_dim, doc="channels of a query/key head")
    rotary_dim = property(lambda self: self._impl.rotary_dim, doc="rotating channels (2 × pairs)")
    rotary_offset = property(lambda self: self._impl.rotary_offset, doc="the first rotating channel")
    layout = property(lambda self: self._impl.layout, doc="'half' (rotate_half) or 'interleaved'")
    base = property(lambda self: self._impl.base, doc="rope_theta")
    scaling = property(lambda self: self._impl.scaling, doc="the rope_type: default, linear, yarn, llama3, ...")
    scaling_parameters = property(lambda self: self._impl.scaling_parameters)
    attention_factor = property(lambda self: self._impl.attention_factor, doc="multiplies cos and sin")
    inv_freq = property(lambda self: self._impl.inv_freq, doc="θ_i of every pair, as the model computes them")
    original_inv_freq = property(lambda self: self._impl.original_inv_freq, doc="θ_i before the scaling")
    max_position_embeddings = property(lambda self: self._impl.max_position_embeddings)
    original_max_position_embeddings = property(lambda self: self._impl.original_max_position_embeddings)
    multi_axis = property(lambda self: self._impl.multi_axis, doc="M-RoPE or a vision tower's 2-D RoPE")
    layer_type = property(lambda self: self._impl.layer_type)

    @property
    def layer_types(self):
        """Every layer type of the model in order: (name, layer indices, has RoPE); [] when all layers agree."""
        return [(name, list(layers), has_rope) for name, layers, has_rope in self._impl.layer_types]

    factor = property(lambda self: self._impl.factor, doc="the scaling factor f the method uses")
    origin = property(lambda self: self._impl.origin, doc="where each value came from, one line each")
    notes = property(lambda self: self._impl.notes)
    warnings = property(lambda self: self._impl.warnings, doc="the model's, the scaling's and the config's, as rope inspect")
    data = property(lambda self: self._impl.data, doc="the fields of `rope inspect --json` as a dict")

    def describe(self, lang="en", *, digits=None):
        """The report of ``rope inspect`` for this spec, the same text (the library prints both): head, rotary
        dimension, layout, base, scaling, attention factor, wavelengths, the critical dimension, every layer
        type, where each value came from, notes and warnings. ``lang="zh"``: in Chinese, as
        ``rope inspect --lang zh``; ``digits``: significant digits of the computed numbers (``--digits``;
        0: every digit)."""
        if digits is None:
            digits = 6
        elif isinstance(digits, bool) or not isinstance(digits, (int, np.integer)) or not 0 <= digits <= 17:
            raise ValueError(f"digits must be between 0 and 17 (got {digits!r})")
        return self._impl.describe(str(lang), int(digits))

    def __repr__(self):
        layer = f", layer type {self.layer_type}" if self.layer_type else ""
        return (f"rope.Spec({self.name!r}: {self.layout} layout, rotary dim {self.rotary_dim} of {self.head_dim}, "
                f"base {self.base:g}, {self.scaling}{layer})")


def _spec(spec):
    if isinstance(spec, Spec):
        return spec
    return Spec(spec)


def _as_numpy(x, name):
    """x as a NumPy array, and whether it holds bfloat16 bit patterns (a torch bfloat16 tensor). A torch tensor
    is read on the CPU (detached); its bfloat16, which NumPy has no type for (and whose DLPack export NumPy
    cannot import), is read as its 16-bit patterns, exactly. Another DLPack tensor is read by np.from_dlpack."""
    if type(x).__module__.split(".")[0] == "torch":
        import torch
        t = x.detach().cpu()
        if t.dtype == torch.bfloat16:
            return t.contiguous().view(torch.int16).numpy(), True
        return t.numpy(), False
    if not hasattr(x, "__array__") and hasattr(x, "__dlpack__"):
        try:
            return np.from_dlpack(x), False
        except (RuntimeError, TypeError, ValueError, BufferError) as error:
            raise ValueError(f"{name}: NumPy cannot read this DLPack tensor ({error}); for bfloat16 pass its 16-bit "
                             f"patterns as an int16 or uint16 array with dtype=\"bf16\", or a float32 copy") from None
    try:
        return np.asarray(x), False
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name}: not an array ({error})") from None


def _native(x, name, dtype):
    """x as a C-contiguous array of numbers in native byte order (not copied when it already is one), and whether its
    16-bit integers are bfloat16 bit patterns."""
    arr, bits = _as_numpy(x, name)
    if arr.dtype.hasobject:
        raise ValueError(f"{name}: an array of numbers, not of Python objects")
    if dtype == "bf16" and arr.dtype.kind in "iu" and arr.dtype.itemsize == 2:
        bits = True
    if arr.dtype.byteorder == ">":
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return np.ascontiguousarray(arr), bits


def _npy(x, name, dtype):
    """x as the bytes of a .npy file, read by the library's reader as `rope check` reads a dump; the flag
    says that 16-bit integers are bfloat16 bit patterns."""
    arr, bits = _native(x, name, dtype)
    buffer = io.BytesIO()
    np.save(buffer, arr, allow_pickle=False)
    return buffer.getvalue(), bits


def _held(x, name, dtype):
    """x as an array ``check`` reads in place: NumPy's .npy header of it (without the data; the library's reader takes
    its type and shape as from a file) and the array itself, C-contiguous in native byte order. An array already
    so (a NumPy array, a CPU torch tensor's .numpy(), a bfloat16 tensor's 16-bit view) is not copied."""
    arr, bits = _native(x, name, dtype)
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, np.lib.format.header_data_from_array_1_0(arr))
    return header.getvalue(), arr, bits


def _positions(positions, name="positions"):
    if positions is None:
        return None
    arr, bits = _as_numpy(positions, name)
    if bits:
        raise ValueError(f"{name}: a bfloat16 tensor cannot hold positions exactly (bf16 keeps 8 bits: 257 reads as "
                         "256); pass integers, e.g. torch.arange(seq)")
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"{name}: an array of numbers, not of {arr.dtype}")
    return np.ascontiguousarray(arr, dtype=np.float64)


def _dtype(dtype, bits):
    """The dtype override of the tolerance: none for bf16 bit patterns (the array's own type is bf16)."""
    if not dtype or (dtype == "bf16" and bits):
        return ""
    return dtype


def _delta(rope_delta):
    """rope_delta= as the library takes it (it checks that the number is whole): one number, a Python or NumPy
    scalar or an array or tensor of one element (HF's rope_deltas of one row); None when not given."""
    if rope_delta is None:
        return None
    arr, _ = _as_numpy(rope_delta, "rope_delta")
    if arr.size != 1 or arr.dtype.kind not in "iuf":
        raise ValueError(f"rope_delta: one number (HF's rope_deltas of the batch row), not {rope_delta!r}")
    return float(arr.reshape(()))


def _starts(sequence_starts):
    if sequence_starts is None:
        return None
    return [float(s) for s in np.asarray(sequence_starts).ravel()]


def _settings(bits, *, positions=None, dtype=None, angles=None, sequence_starts=None, axes=None, patches=None,
              rope_delta=None, lang="en", grad=False, shift=None, strict_order=False, coefficients=None,
              shift_map=None, kv_head=None, name_a="A", name_b="B"):
    """The keywords of ``check``, ``diff``, ``identify`` and ``reference``, each read once by its own rule and in its
    own name: the one settings value the library's binders take (apps/python/check.cpp, ``settings_of``), a dict of
    the library's types. ``bits``: the arrays' 16-bit integers are bfloat16 bit patterns."""
    return {"bf16_bits": bool(bits), "positions": _positions(positions), "dtype": _dtype(_text(dtype, "dtype"), bits),
            "angles": _text(angles, "angles"), "sequence_starts": _starts(sequence_starts), "axes": _text(axes, "axes"),
            "patches": _positions(patches, "patches"), "rope_delta": _delta(rope_delta), "lang": _text(lang, "lang"),
            "grad": bool(grad), "shift": None if shift is None else float(shift), "strict_order": bool(strict_order),
            "coefficients": "" if coefficients is None else _path(coefficients, "coefficients"),
            "shift_map": _positions(shift_map, "shift_map"),
            "kv_head": None if kv_head is None else _integer(kv_head, "kv_head"),
            "name_a": _text(name_a, "name_a"), "name_b": _text(name_b, "name_b")}


def _split_heads(x, head_dim, name, dtype):
    """A 3-D [batch, seq, heads·head_dim] array (ONNX's RotaryEmbedding input with num_heads) viewed as [batch, seq,
    heads, head_dim], and whether it holds bfloat16 bit patterns."""
    arr, bits = _native(x, name, dtype)
    n = _integer(head_dim, "head_dim")
    if arr.ndim != 3 or n < 1 or arr.shape[-1] % n:
        raise ValueError(f"{name}: head_dim={n} reads a 3-D array [batch, seq, heads·{n}] (ONNX's RotaryEmbedding "
                         f"with num_heads); got shape {list(arr.shape)}")
    return arr.reshape(arr.shape[0], arr.shape[1], arr.shape[2] // n, n), bits


def _per_token(positions, cos, sin, cos_sin_cache):
    """A table of a row per token, [batch, seq, w] (ONNX's caches without position_ids), as a table gathered by each
    token's own row: the rows flattened to [batch·seq, w], the position ids [batch, seq] their indices b·seq + i."""
    tables = [_as_numpy(t, name)[0] if t is not None else None
              for t, name in ((cos, "cos"), (sin, "sin"), (cos_sin_cache, "cos_sin_cache"))]
    first = next(t for t in tables if t is not None)
    if first.ndim != 3:
        return positions, cos, sin, cos_sin_cache
    batch, seq = first.shape[:2]
    flat = [None if t is None else t.reshape((-1,) + t.shape[2:]) for t in tables]
    return np.arange(batch * seq, dtype=np.int64).reshape(batch, seq), flat[0], flat[1], flat[2]


def _table(cos, sin, cos_sin_cache, layout, dtype):
    """The table settings of ``check``: each array given as the bytes of a .npy and whether its 16-bit integers are
    bfloat16 bit patterns, None where not given; the pairing ``layout`` ("" the spec's)."""
    def npy(x, name):
        return None if x is None else _npy(x, name, dtype)
    return {"cos": npy(cos, "cos"), "sin": npy(sin, "sin"), "cos_sin_cache": npy(cos_sin_cache, "cos_sin_cache"),
            "layout": _text(layout, "layout") or ""}


@_speaks_python("reference")
def reference(x, positions, spec, *, axes=None, dtype=None, patches=None):
    """RoPE(x) in float64 as the model computes it: x of any shape ``rope check`` takes ([seq, d],
    [seq, heads, d], [batch, heads, seq, d], [batch, seq, heads, d]; ``axes`` names a 4-axis order when the
    positions do not tell), positions of shape [seq] or [batch, seq] (a row per batch entry) or
    [3, batch, seq] or [3 or 4, seq] (M-RoPE). A vision tower's spec (``vision=`` or ``tower="vision"``) takes
    ``patches`` instead, the (row, column) of each patch: [patches, 2] or [batch, patches, 2], as Hugging Face's
    vision code holds them (positions None). Returns an array of x's shape (float64). A tensor of more than 2^24
    elements is computed in slices that rotate with the same positions (its heads; where one head is larger, its
    batch rows when they share the positions), of 2^22 elements where a cut makes them so, as the library cuts it
    (analysis/dumps/dump_slices.hpp), each read as ``rope check`` reads a dump; the result is the same as of the
    whole."""
    arr, bits = _native(x, "x", dtype)
    settings, spec_impl = _settings(bits, positions=positions, axes=axes, patches=patches), _spec(spec)._impl
    if arr.size <= _REFERENCE_SLICE or settings["patches"] is not None:
        return _rope.reference(_npy_bytes(arr), spec_impl, settings)
    order, cuts = _rope.reference_slices(list(arr.shape), settings["positions"], settings["axes"], _REFERENCE_SLICE)
    out = np.empty(arr.shape, dtype=np.float64)
    for axis, start, stop in cuts:
        where = tuple(slice(start, stop) if k == axis else slice(None) for k in range(arr.ndim))
        out[where] = _rope.reference(_npy_bytes(arr[where]), spec_impl, {**settings, "axes": order})
    return out


# The most elements rope.reference reads at once (the library's kMaxTensorElements, 2^24); the tests lower it.
_REFERENCE_SLICE = _rope.reference_max_elements


def _npy_bytes(arr):
    """An array's .npy bytes (a slice copied contiguous by np.save)."""
    buffer = io.BytesIO()
    np.save(buffer, arr, allow_pickle=False)
    return buffer.getvalue()


class Report:
    """The result of ``rope check``: ``passed``, ``max_ratio`` (max |Δ|/tolerance, <= 1 passes), ``failing``
    and ``total`` elements, ``failing_positions`` [(index, position)] (the first 4096; ``data["failing_position_count"]`` counts them
    all), ``failing_pairs`` [(pair, channel a,
    channel b)], ``diagnosis`` (the sentence naming the bug, "" when it passes, in the language ``check`` was
    given: ``lang="zh"`` as ``rope check --lang zh`` prints it), ``notes`` (the report's notes, in that language),
    ``matches`` (the variant that explains the dump: "layout-swapped", "positions-plus-one", "angles-bf16", ...;
    ``data["diagnosis"]["found"]`` its parameter), ``equivalent`` (a dump right up to a harmless reordering of its
    output, which passes: its name, "interleaved-in-place" or "de-interleaved", else None), ``layer_type`` (a model of several layer types checked without
    one: the type the dump passes as, else None), and ``data``: every field as JSON-able data, the keys of
    ``rope check --json`` (its sentences in English, as the JSON's)."""

    def __init__(self, data, diagnosis=None, notes=None):
        self._result = None  # the library's finished check (rope._rope.CheckResult): its JSON text and text printer
        self._k_sentences = None  # q and k together: k's diagnosis and notes in the check's language
        self._pair_sentences = None  # and the pair's diagnosis
        if "data" in data and diagnosis is None:  # rope._rope.check's result: the fields and the sentences in a language
            self._k_sentences = data.get("k")
            self._pair_sentences = data.get("pair")
            data, diagnosis, notes, self._result = data["data"], data["diagnosis"], data["notes"], data["result"]
        self.data = data
        self._diagnosis = diagnosis
        self._notes = notes

    @property
    def k(self):
        """q and k together (``check(..., k_before=, k_after=)``): k's own Report (its ``data`` the JSON's ``k``), or
        None for one tensor."""
        if "k" not in self.data:
            return None
        s = self._k_sentences or {}
        return Report(self.data["k"], s.get("diagnosis"), s.get("notes"))

    @property
    def pair(self):
        """q and k together: the relative-position identity ⟨R_m q, R_n k⟩ = qᵀ R_(n−m) k measured on a sample of the
        scores (a PairReport, the JSON's ``pair``), or None for one tensor."""
        if "pair" not in self.data:
            return None
        return PairReport(self.data["pair"], (self._pair_sentences or {}).get("diagnosis"))

    passed = property(lambda self: self.data["passed"])
    max_ratio = property(lambda self: self.data["max_ratio"])
    # Each test's own ratio (docs/check.md "The tolerance model"): the elements' (C1), and the pair norms' (N1) where
    # that test fails (None where every pair passes it: its largest is then not computed).
    element_ratio = property(lambda self: self.data["element_ratio"])
    norm_ratio = property(lambda self: self.data.get("norm_ratio"))
    failing = property(lambda self: self.data["failing"])
    total = property(lambda self: self.data["total"])
    failing_positions = property(lambda self: [tuple(p) for p in self.data["failing_positions"]])
    failing_pairs = property(lambda self: [tuple(p) for p in self.data["failing_pairs"]])

    @property
    def diagnosis(self):
        if self._diagnosis is not None:
            return self._diagnosis
        d = self.data.get("diagnosis")
        return d["message"] if d else ""

    @property
    def notes(self):
        return list(self._notes) if self._notes is not None else list(self.data.get("notes", []))

    @property
    def layer_type(self):
        return self.data.get("layer_type")

    @property
    def matches(self):
        d = self.data.get("diagnosis")
        return d["matches"] if d else None

    @property
    def equivalent(self):
        return self.data.get("equivalent")

    def __bool__(self):
        # q and k together: every verdict, q's, k's and the pair's (rope check's exit code)
        return self.passed and (self.k is None or bool(self.k)) and (self.pair is None or bool(self.pair))

    def to_json(self):
        """``rope check --json``'s text (without its final newline), the library's JSON printer: keys sorted,
        NaN and infinities as null."""
        if self._result is None:
            raise ValueError("to_json: this Report was built from data, not returned by rope.check")
        return self._result.json()[:-1]

    def summary(self, lang="en", digits=None):
        """``rope check``'s report as it prints it (``lang="zh"``: ``--lang zh``; ``digits``: ``--digits N``):
        the verdict, max |Δ|/tolerance, the first failure and the diagnosis naming the bug."""
        if self._result is None:
            raise ValueError("summary: this Report was built from data, not returned by rope.check")
        return self._result.text(lang, digits)

    def __repr__(self):
        return f"rope.Report(passed={self.passed}, max_ratio={self.max_ratio!r}, matches={self.matches!r})"


class PairReport:
    """q and k checked together (``rope check --k-before --k-after``, docs/check.md "q and k together"): ``passed``,
    ``max_score_error`` (the largest score error's |Δs| relative to S = Σ|q_c·k_c|) against ``tolerance`` ((Q2)'s
    bound there, derived from (C1)), ``max_ratio`` (the largest |Δs|/bound, <= 1 passes), ``pairs_sampled`` ((m, n)
    pairs), ``matches`` (the mistake the scores show: "qk-crossed", "k-with-query-heads", "rope-applied-twice", else
    None), ``diagnosis`` (the sentence naming it, "" when the scores pass, in the language ``check`` was given) and
    ``data``, the JSON's ``pair``."""

    def __init__(self, data, diagnosis=None):
        self.data = data
        self._diagnosis = diagnosis

    @property
    def diagnosis(self):
        return self._diagnosis if self._diagnosis is not None else self.data.get("diagnosis", "")

    passed = property(lambda self: self.data["passed"])
    max_score_error = property(lambda self: self.data.get("max_score_error"))
    tolerance = property(lambda self: self.data.get("tolerance"))
    max_ratio = property(lambda self: self.data.get("max_ratio"))
    pairs_sampled = property(lambda self: self.data.get("pairs_sampled"))
    matches = property(lambda self: self.data.get("matches"))

    def __bool__(self):
        return self.passed

    def __repr__(self):
        return (f"rope.PairReport(passed={self.passed}, max_score_error={self.max_score_error!r}, "
                f"tolerance={self.tolerance!r}, matches={self.matches!r})")


@_speaks_python("check")
def check(before, after, positions, spec=None, dtype=None, *, angles=None, sequence_starts=None, axes=None,
          patches=None, rope_delta=None, lang="en", grad=False, shift=None, strict_order=False, coefficients=None,
          shift_map=None, k_before=None, k_after=None, kv_head=None, cos=None, sin=None, cos_sin_cache=None,
          layout=None, head_dim=None):
    """Is ``after`` RoPE(``before``) as ``spec`` computes it? ``rope check`` in-process: the tolerance (C1) of
    the dump's type (``dtype`` overrides it: "f32", "f16", "bf16"; "bf16" also marks 16-bit integer arrays as
    bfloat16 bit patterns), ``angles`` how the angles were computed ("float64", "float32", "ggml"),
    ``sequence_starts`` packed sequences' starts (cu_seqlens), ``patches`` a vision tower's (row, column) per
    patch instead of positions (as ``reference`` takes them). ``rope_delta`` (``--rope-delta``): M-RoPE decoding,
    ``positions`` are the decode tokens' sequence indices, each rotated at index + rope_delta on t, h and w (HF's
    ``rope_deltas``, the second value of ``mrope_positions``); a kernel that drops it is named
    ("mrope-delta-missing"). ``lang``: "en" or "zh", the language of ``Report.diagnosis`` and ``Report.notes``.
    Positions [3, batch, seq] (HF's position_ids of a batch) check each batch row on its own and name a kernel that
    reads them as [batch, 3, seq] ("mrope-batch-rows"). A Spec of a model with several layer types (Gemma 3) and no
    ``layer_type``: a dump that fails as the default type is checked as each type, and passes as the one it matches
    (``Report.layer_type``). An output right up to a harmless reordering of its channels (DeepSeek-V3 written in place
    where HF de-interleaves it) passes as equivalent (``Report.data["equivalent"]`` names it, ``Report.diagnosis``
    says it); ``strict_order=True`` fails it (``rope check --strict-order``). ``coefficients`` (``rope check
    --coefficients``): a FoPE model's checkpoint (Intern-S1-Pro; a directory with model.safetensors or its index's
    shards, or a .safetensors file) holding its cos_coef and sin_coef, each pair then a scaled rotation
    (docs/multi-axis.md §7); a FoPE spec is refused without it. ``kv_head`` (``rope check --kv-head``): the
    arrays hold that key-value head's heads alone (the key head, or query heads of its group), every vector on its
    coefficients; None: each head on its group's by its index. Returns a Report.

    The arrays are read in place, a block of positions at a time, as ``rope check`` streams its files: any size
    (a [4, 8192, 32, 128] float32 q in one call), memory bounded by the blocks; a float16, float32, float64 or
    bfloat16 (16-bit patterns) array that is C-contiguous is not copied. One call takes at most 2^22 sequence
    indices (a batch's rows counted): check longer dumps in slices along the sequence axis (docs/python.md).

    ``grad=True`` (``rope check --grad``): ``before`` is the upstream gradient (of RoPE's output), ``after`` the
    gradient returned for its input, expected a·R(m)ᵀ·grad_y at ``positions``. ``shift=δ`` (``rope check --shift``):
    ``before`` a K cache, ``after`` that cache shifted in place by δ, expected R(δ)·k with no magnitude factor;
    ``positions`` is then None (every key turns by δ). ``shift_map`` (``rope check --shift-map``): ``before`` a K
    cache, ``after`` that cache with each key moved from its old position to its new one, an array [n, 2] of (old,
    new) per key; each key expected R(new − old)·k with no magnitude factor, ``positions`` None. docs/check.md, "Modes"
    and "A K cache re-rotated key by key".

    ``k_before=`` and ``k_after=`` (``rope check --k-before --k-after``): ``before`` and ``after`` are q, these k,
    read alike at the same positions (k may have fewer heads: GQA, q head h with k head h / (H_q / H_k)); each tensor
    gets its own verdict (``Report.k``: k's Report), then the pair, the identity ⟨R_m q, R_n k⟩ = qᵀ R_(n−m) k on a
    sample of the scores (``Report.pair``, a PairReport). ``bool(report)`` is then every verdict; ``passed`` q's.
    docs/check.md, "q and k together".

    ``cos=`` and ``sin=``, or ``cos_sin_cache=`` (``rope check --cos --sin``, ``--cos-sin-cache``): the table the
    kernel was handed, the reference instead of θ: each element against the rotation by the table's own values at the
    row of its position id, under (T1) (docs/check.md, "A kernel and the table it was handed"). Tables ``[max_pos, w]``
    (ONNX's ``cos_cache``/``sin_cache`` and flash-attn's ``[max_pos, rot/2]``, Hugging Face's repeated halves
    ``[max_pos, rot]``; vLLM's ``cos_sin_cache`` ``[max_pos, rot]``, cos then sin), NumPy arrays or torch tensors,
    gathered by ``positions``; a table of a row per token ``[batch, seq, w]`` (ONNX's caches without
    position_ids) with ``positions`` None, each token reading its own row. ``head_dim=N`` reads 3-D arrays
    [batch, seq, heads·N] as [batch, seq, heads, N] (ONNX's 3-D input with num_heads; ``rope check --head-dim``). ``spec`` is then optional: it gives the
    pairing only, as ``layout=`` ("half", "interleaved") does; without either the pairing is half."""
    if spec is None and cos is None and sin is None and cos_sin_cache is None:
        raise ValueError("spec: give a Spec (or a model's name), or the table the kernel was handed: cos= and sin=, "
                         "or cos_sin_cache=")
    if positions is None and (cos is not None or cos_sin_cache is not None):
        positions, cos, sin, cos_sin_cache = _per_token(positions, cos, sin, cos_sin_cache)
    if head_dim is not None:
        (before, bits), (after, bits_after) = (_split_heads(x, head_dim, name, dtype)
                                               for x, name in ((before, "before"), (after, "after")))
        dtype = "bf16" if dtype is None and (bits or bits_after) else dtype
        axes = axes or "batch,seq,heads,d"
    hb, b, bits_b = _held(before, "before", dtype)
    if spec is None:  # the table is the reference: plain RoPE of the dump's head gives the pairing alone
        spec = Spec(head_dim=int(b.shape[-1]) if b.ndim else 1, layout=layout or "half")
    ha, a, bits_a = _held(after, "after", dtype)
    bits = bits_b or bits_a
    hkb, kb, hka, ka = b"", None, b"", None
    if k_before is not None:
        hkb, kb, bits_kb = _held(k_before, "k_before", dtype)
        bits = bits or bits_kb
    if k_after is not None:
        hka, ka, bits_ka = _held(k_after, "k_after", dtype)
        bits = bits or bits_ka
    settings = _settings(bits, positions=positions, dtype=dtype, angles=angles, sequence_starts=sequence_starts,
                         axes=axes, patches=patches, rope_delta=rope_delta, lang=lang, grad=grad, shift=shift,
                         strict_order=strict_order, coefficients=coefficients, shift_map=shift_map, kv_head=kv_head)
    settings.update(_table(cos, sin, cos_sin_cache, layout, dtype))
    k = None if kb is None and ka is None else (hkb, kb, hka, ka)
    return Report(_rope.check_arrays((hb, b), (ha, a), _spec(spec)._impl, settings, k))


class DiffReport:
    """The result of ``rope diff``: ``data`` (every field of ``rope diff --json``: ``a`` and ``b`` each with its verdict
    and diagnosis, ``between`` their agreement, ``ranges`` the runs of positions where the same holds), ``passed``
    (both right), ``text`` (the report as ``rope diff`` prints it, in the language ``diff`` was given)."""

    def __init__(self, result):
        self.data = result["data"]
        self.text = result["text"]
        self._json = result["json"]

    passed = property(lambda self: self.data["passed"])

    def __bool__(self):
        return self.passed

    def to_json(self):
        """``rope diff --json``'s text (without its final newline): the library's JSON printer."""
        return self._json.rstrip("\n")

    def __repr__(self):
        a, b = self.data["a"], self.data["b"]
        return (f"rope.DiffReport({a['name']} {'right' if a['passed'] else 'wrong'}, "
                f"{b['name']} {'right' if b['passed'] else 'wrong'}, "
                f"{'agree' if self.data['between']['agree'] else 'differ'})")


@_speaks_python("diff")
def diff(before, after_a, after_b, positions, spec, dtype=None, *, angles=None, sequence_starts=None, axes=None,
         name_a="A", name_b="B", coefficients=None, lang="en"):
    """Two implementations' outputs of one input: each checked against ``spec`` as ``check`` does, and the two compared
    element by element (``rope diff``, docs/check.md (D1); FoPE's (D2) with ``coefficients``, docs/multi-axis.md §7).
    ``before`` the input, ``after_a`` and ``after_b`` the outputs (the same shape), ``name_a`` and ``name_b`` their
    names in the report; ``positions``, ``dtype``, ``angles``, ``sequence_starts``, ``axes`` and ``coefficients`` as
    ``check`` takes them. The arrays are read whole (one call: at most 2^22 elements each). Returns a DiffReport."""
    b, bits_b = _npy(before, "before", dtype)
    a, bits_a = _npy(after_a, "after_a", dtype)
    c, bits_c = _npy(after_b, "after_b", dtype)
    settings = _settings(bits_b or bits_a or bits_c, positions=positions, dtype=dtype, angles=angles,
                         sequence_starts=sequence_starts, axes=axes, coefficients=coefficients, name_a=name_a,
                         name_b=name_b, lang=lang)
    return DiffReport(_rope.diff(b, a, c, _spec(spec)._impl, settings))


class SpectrumReport:
    """The result of ``rope spectrum``: ``data`` (every field of ``rope spectrum --json``: ``pairs``, ``heads``,
    ``bands``, ``dump``, ``spec``, ``notes`` in English), ``pairs`` and ``heads`` (shortcuts into it), ``bands``,
    ``notes`` (in the language ``spectrum`` was given) and ``text`` (the report as ``rope spectrum`` prints it), as
    ``Report`` holds ``rope check``'s."""

    def __init__(self, result):
        self.data = result["data"]
        self.notes = list(result["notes"])
        self.text = result["text"]

    pairs = property(lambda self: self.data["pairs"])
    heads = property(lambda self: self.data["heads"])
    bands = property(lambda self: self.data["bands"])

    def __str__(self):
        return self.text

    def __repr__(self):
        e = self.bands["energy"]
        return (f"rope.SpectrumReport({len(self.pairs)} pairs, 90 % of the energy in pairs {e['first']} … "
                f"{e['last']}, lowest frequency entropy pair {self.bands['lowest_entropy']})")


@_speaks_python("spectrum")
def spectrum(x, spec=None, positions=None, axes=None, *, lang="en"):
    """``rope spectrum`` in-process: per rotary pair of a dumped q or k (before or after RoPE: a pair's norm is the
    same), its wavelength 2π/θ_j from ``spec`` (None: plain RoPE of base 10000, said in the notes), its energy share
    and its frequency entropy (the Shannon entropy of the spectrum of its norm along the sequence), per head and
    pooled over batch rows and heads, and the bands (docs/spectrum.md). ``x``: an array or tensor of shape [seq, d],
    [seq, heads, d], [batch, heads, seq, d] or [batch, seq, heads, d] (``axes`` as ``check`` takes it), read in place a
    block at a time; memory holds the norms of a few heads (pairs × sequence each), never a copy of ``x``.
    ``positions``: as ``check`` takes them (their count must match the sequence axis; the spectrum is taken along the
    sequence index). ``lang``: "en" or "zh". Returns a SpectrumReport."""
    h, arr, bits = _held(x, "x", None)
    impl = None if spec is None else _spec(spec)._impl
    return SpectrumReport(_rope.spectrum_array((h, arr), impl, _settings(bits, positions=positions, axes=axes,
                                                                         lang=lang)))


@_speaks_python("identify")
def identify(before, after, positions=None, *, dtype=None, sequence_starts=None, axes=None, patches=None,
             rope_delta=None):
    """The RoPE that turned ``before`` into ``after``, from the numbers alone (``rope identify``): layout,
    rotary dimension, attention factor, θ per pair, the scaling family fitted. ``positions`` as ``check`` takes
    them; M-RoPE positions ([3, seq], [4, seq] or [3, batch, seq]) also give each pair's axis and the sections
    (``mrope``), as ``rope identify --axis-positions``; a vision tower's ``patches`` ([patches, 2] of (row,
    column)) the 2-D vision kind; ``rope_delta`` shifts the positions by HF's rope_deltas as ``check`` does
    (``rope identify --rope-delta``). Returns a dict (the keys of ``rope identify --json``)."""
    b, bits_b = _npy(before, "before", dtype)
    a, bits_a = _npy(after, "after", dtype)
    return _rope.identify(b, a, _settings(bits_b or bits_a, positions=positions, sequence_starts=sequence_starts,
                                          axes=axes, patches=patches, rope_delta=rope_delta))


class VerifyReport:
    """The result of ``rope verify`` on the caller's q and k: ``passed`` (every identity within its tolerance),
    ``identities`` (one dict per row: name, formula, equation, samples, max_abs_error, max_rel_error, tolerance,
    passed), ``contrast`` (the additive sinusoidal row, expected to fail), and ``data``: every field, the keys of
    ``rope verify --json``; ``summary()`` the table as ``rope verify`` prints it, ``to_json()`` and ``to_csv()`` its
    ``--json`` and ``--csv``, as ``Report`` holds ``rope check``'s."""

    def __init__(self, result):
        self._result = result
        self.data = result.value()

    passed = property(lambda self: self.data["passed"])
    identities = property(lambda self: self.data["identities"])
    contrast = property(lambda self: self.data["contrast"])

    def __bool__(self):
        return self.passed

    def to_json(self):
        """``rope verify --json``'s text (without its final newline)."""
        return self._result.json()[:-1]

    def to_csv(self):
        """``rope verify --csv -``'s text: one row per identity."""
        return self._result.csv()

    def summary(self, lang="en", digits=None, wide=False):
        """The report as ``rope verify`` prints it (``lang="zh"``: ``--lang zh``; ``digits``: ``--digits N``;
        ``wide``: ``--wide``)."""
        return self._result.text(str(lang), digits, bool(wide))

    def __str__(self):
        return self.summary()

    def __repr__(self):
        failing = [r["name"] for r in self.identities if not r["passed"]]
        return f"rope.VerifyReport(passed={self.passed}, failing={failing!r})"


def _vectors(x, name):
    """q or k of rope.verify as float64, the last axis d: one vector, or one per index of the axes before it."""
    arr, bits = _as_numpy(x, name)
    if bits:
        import torch
        arr = torch.from_numpy(np.array(arr)).view(torch.bfloat16).float().numpy()
    if arr.dtype.kind not in "iuf" or arr.ndim == 0:
        raise ValueError(f"{name}: an array of numbers with d on its last axis (got {arr.dtype}, shape {arr.shape})")
    return np.ascontiguousarray(arr, dtype=np.float64)


@_speaks_python("verify")
def verify(q, k, spec=None, *, positions=None, trials=None, max_position=4096, seed=None, dtype=None,
           strategy=None, dense=False, xpos=False, xpos_scale_base=512):
    """``rope verify --q --k`` in-process: every identity of ``rope verify`` (docs/math.md (M6)–(M12); a multimodal
    model's per-axis rows, xPos's with ``xpos=True``) checked on the caller's own vectors instead of random ones.
    ``q`` and ``k``: arrays or tensors of the same shape, d on the last axis (d even: the rotated channels of a
    head; a model's rotary dimension when ``spec`` names one), one vector per index of the axes before it; the i-th
    q is checked with the i-th k. ``spec``: a Spec (None: plain RoPE of d, base 10000, rotate_half). ``positions``:
    (m, n, c), the query's position, the key's and the shift, each pair checked once there; None: drawn as
    ``rope verify`` draws them from ``seed`` in [0, ``max_position``), ``trials`` draws (None: 1000 rounded up to a
    multiple of the pairs, so that each pair is checked as often). ``dtype``, ``strategy``, ``dense``: as
    ``rope verify`` takes them. Returns a VerifyReport."""
    if positions is not None:
        positions = [float(p) for p in positions]
    impl = None if spec is None else _spec(spec)._impl
    trials = None if trials is None else _integer(trials, "trials")
    seed = None if seed is None else _integer(seed, "seed")
    return VerifyReport(_rope.verify(_vectors(q, "q"), _vectors(k, "k"), impl, positions, trials, float(max_position),
                                     seed, dtype or "", strategy or "", bool(dense), bool(xpos),
                                     float(xpos_scale_base)))


class WeightsReport:
    """What ``rope.weights`` found: ``passed`` (every q/k tensor has the map the candidate's engine expects),
    ``tensors`` (one dict per q/k tensor and bias: name, reference_name, layer, kind, bias, map, expected, ok,
    residual, runner_up, runner_up_residual, …), ``expected`` (the engine's map), ``text`` (the report as
    ``rope weights`` prints it, in the language asked for) and ``data``: every field, the keys of
    ``rope weights --json``."""

    def __init__(self, result):
        self.data = result["data"]
        self.text = result["text"]
        self._json = result["json"]

    passed = property(lambda self: self.data["passed"])
    tensors = property(lambda self: self.data["tensors"])
    expected = property(lambda self: self.data["expected"])

    def __bool__(self):
        return self.passed

    def to_json(self):
        """``rope weights --json``'s text (without its final newline): the library's JSON printer."""
        return self._json

    def __repr__(self):
        bad = [t["name"] for t in self.tensors if not t["ok"]]
        verdict = "PASS" if self.passed else f"FAIL ({len(bad)} of {len(self.tensors)} tensors)"
        return f"rope.WeightsReport({verdict}, expected {self.expected!r})"


@_speaks_python("weights")
def weights(reference, candidate, *, config=None, lang="en"):
    """Which q/k row permutation separates two checkpoints, and is it the one the candidate's engine expects
    (``rope weights``, docs/weights.md): ``reference`` and ``candidate`` each a Hugging Face directory, a
    .safetensors file or a GGUF file (paths); ``config`` a config.json or GGUF for a side with none beside it;
    ``lang`` "en" or "zh", the language of ``WeightsReport.text``. Returns a WeightsReport."""
    return WeightsReport(_rope.weights(_path(reference, "reference"), _path(candidate, "candidate"),
                                       _path(config or "", "config"), str(lang)))


@_speaks_python("mrope_positions")
def cp_positions(sequence_starts, cp_size, cp_rank, layout="zigzag"):
    """The positions one rank of a context-parallel run holds, the numbers of ``rope positions --cp-size``: a
    packed batch given by ``sequence_starts`` (0, the start of each later sequence, the total: cu_seqlens) split
    over ``cp_size`` ranks as ``layout`` says ("zigzag": Megatron-LM and TransformerEngine, each sequence in
    2·cp_size chunks, rank r holding chunks r and 2·cp_size − 1 − r; "round-robin": SGLang, token g of the batch
    on rank g mod cp_size; "contiguous": one slice of each sequence per rank). Each token's position is its
    index within its own sequence. Returns int64 ``[n]``, the rank's positions in its token order."""
    starts = [_integer(s, f"sequence_starts[{k}]") for k, s in enumerate(sequence_starts)]
    positions, _ = _rope.cp_positions(starts, _integer(cp_size, "cp_size"), _integer(cp_rank, "cp_rank"), str(layout))
    return positions


def mrope_positions(segments, spec=None, *, decode=0, frame_text=None, merge_size=None):
    """M-RoPE position ids (t, h, w) of a sequence of text, images and videos, as Hugging Face's get_rope_index
    builds them (the library's port, the numbers of ``rope positions``): ``segments`` in order, each
    ``("text", n)``, ``("image", (t, h, w))`` or ``("video", (t, h, w))`` with grid_thw in patches; ``spec`` a
    Qwen-VL Spec (or what Spec() takes) whose vision_config gives the rules (spatial_merge_size, Qwen2.5-VL's
    tokens_per_second, Qwen3-VL's frames after timestamps: ``frame_text`` text tokens before each frame), None
    for Qwen2-VL's (merge size 2, time index = frame index); ``merge_size`` overrides the merge size. ``decode``
    steps after the prefill sit at index + rope_deltas on every axis. Returns ``(position_ids, rope_deltas)``:
    int64 ``[3, tokens + decode]`` (HF's ``position_ids[:, 0]``) and rope_deltas (max id + 1 − the prefill's
    length). An openPangu-VL spec (rope_type openpangu) follows vLLM's openpangu_vl.py (docs/multi-axis.md (P1));
    a HunyuanVL spec (model_type hunyuan_vl) gives its four streams ``[4, tokens + decode]`` (p, w, h, t, as vLLM's
    get_xdrope_input_positions; an image counts its start and end tokens, (X1)) and rope_deltas 0."""
    given = []
    for segment in segments:
        if not isinstance(segment, (tuple, list)) or len(segment) != 2 or segment[0] not in ("text", "image", "video"):
            raise TypeError(f"mrope_positions(segments): each segment is (\"text\", n), (\"image\", (t, h, w)) or "
                            f"(\"video\", (t, h, w)), not {segment!r}")
        kind, size = segment
        if kind == "text":
            given.append(("text", int(size), 0, 0))
        else:
            t, h, w = (int(v) for v in size)
            given.append((kind, t, h, w))
    impl = None if spec is None else _spec(spec)._impl
    ids, delta, _ = _rope.mrope_positions(impl, given, int(decode), frame_text, merge_size)
    return ids, int(delta)


@_speaks_python("grid_positions")
def grid_positions(spec, latent_shape, text=0, reference_images=0, fps=None, scale_factor=None, *,
                   condition_images=(), siglip_grids=(), omni=False):
    """Every token's position of a diffusers transformer (Wan, Flux.1, Flux.2, Qwen-Image, HunyuanVideo, LTX-Video,
    Cosmos-Predict2, Cosmos 3, Z-Image, HunyuanVideo 1.5, Kandinsky 5, LTX-2: a Spec of its ``transformer/config.json``
    or preset) as its pipeline builds them from the latent ``(F, H, W)`` the transformer receives (the numbers of
    ``rope positions --latent-shape``, docs/multi-axis.md §8): ``text`` tokens where the model places text in the
    sequence (Z-Image's padding tokens included), Flux.2's ``reference_images``, LTX's, Cosmos's and Cosmos 3's
    ``fps``.

    Kandinsky 5 (``Kandinsky5RoPE3D.forward``, diffusers src/diffusers/models/transformers/transformer_kandinsky.py
    242-260 at 58eb52c080) divides each axis's angle by the pipeline's ``scale_factor``, so its positions here are
    ``(f, h, w) / scale_factor``, in latent tokens: ``scale_factor`` is a sequence of three positive numbers
    ``(t, h, w)`` (``rope positions --scale-factor``); ``None`` takes the pipeline's own rule for the latent
    (``Kandinsky5T2VPipeline._get_scale_factor``, pipeline_kandinsky.py:209-227: ``(1, 2, 2)`` for a video whose frame
    is 480 to 854 pixels on both sides, else ``(1, 3.16, 3.16)``; ``(1, 1, 1)`` for one frame, pipeline_kandinsky_t2i.py
    713). Any other model refuses a ``scale_factor``.

    Z-Image's omni pipeline (``rope positions --condition-image``, ``--siglip-grid``, ``--omni``; docs/multi-axis.md
    (G8)): ``condition_images`` the condition images' latents ``(F, H, W)`` before the target, in the pipeline's
    order; ``siglip_grids`` each one's SigLIP grid ``(rows, columns)`` (one per condition image, or none); ``text``
    then a sequence of the prompt's segments, N + 2 of them for N condition images (one ``--text`` each); ``omni=True``
    without a condition image: the omni pipeline's text-to-image, ``text`` one segment. A sequence ``text`` otherwise
    is its sum, as repeated ``--text`` options are.

    Returns float64 ``[n, axes]``, rows in the order of the attention's sequence."""
    f, h, w = _sides(latent_shape, "latent_shape", 3)
    is_sequence = isinstance(text, (list, tuple, np.ndarray))
    if is_sequence:
        segments = [_integer(v, "text") for v in text]
    else:
        n = _integer(text, "text")
        segments = [n] if n != 0 else []  # 0: no text, as rope positions without --text
    scale = None if scale_factor is None else [float(v) for v in scale_factor]
    images = [_sides(c, "condition_images", 3) for c in condition_images]
    grids = [_sides(g, "siglip_grids", 2) for g in siglip_grids]
    if not isinstance(omni, (bool, np.bool_)):
        raise TypeError(f"omni must be a bool (got {omni!r})")
    out, _ = _rope.grid_positions(_spec(spec)._impl, f, h, w, segments, is_sequence,
                                  _integer(reference_images, "reference_images"), None if fps is None else float(fps),
                                  scale, images, grids, bool(omni))
    return out


def _sides(value, name, count):
    """``count`` integers (a latent's (F, H, W), a SigLIP grid's (rows, columns)) as a tuple: TypeError or ValueError
    naming ``name`` otherwise."""
    try:
        sides = tuple(value)
    except TypeError:
        raise TypeError(f"{name}: {count} integers expected (got {value!r})") from None
    if len(sides) != count:
        raise ValueError(f"{name}: {count} integers expected (got {len(sides)}: {value!r})")
    return tuple(_integer(v, name) for v in sides)


def presets():
    """The names of the model presets (``rope inspect --list``)."""
    return list(_rope.presets())


# rope.testing after `import rope`, as numpy.testing after `import numpy`, and rope.watch: imported last, since they
# import the names above from this package.
from . import testing  # noqa: E402
from ._watch import Watch, WatchedCall, WatchFailure, watch  # noqa: E402
