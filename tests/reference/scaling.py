#!/usr/bin/python3
"""Independent NumPy reference for the RoPE context-extension methods (float64).

Written from the formulas of Hugging Face transformers `src/transformers/modeling_rope_utils.py` (Hugging Face semantics), not from the C++ code.
Pair index j = 0 .. d/2-1, theta_j = base ** (-2j/d), wavelength lambda_j = 2 pi / theta_j.

    default       inv_j = theta_j
    linear        inv_j = theta_j / f
    ntk           base' = base * f ** (d/(d-2)),               inv_j = base' ** (-2j/d)
    dynamic       L = max(seq_len, M); base' = base * (f*L/M - (f-1)) ** (d/(d-2))
    yarn          c(r) = d * ln(L0/(2 pi r)) / (2 ln base); low = c(beta_fast), high = c(beta_slow)
                  (floor/ceil if truncate), low = max(low, 0), high = min(high, d-1);
                  r_j = clip((j-low)/(high-low), 0, 1) (high += 0.001 if low == high);
                  inv_j = theta_j/f * r_j + theta_j * (1 - r_j)
                  attention = explicit, else get_mscale(f, mscale)/get_mscale(f, mscale_all_dim) if both
                  non-zero, else get_mscale(f);  get_mscale(s, m=1) = 1 if s <= 1 else 0.1*m*ln(s) + 1
    llama3        lambda_j > L0/lf: theta_j/f; lambda_j < L0/hf: theta_j;
                  else s = (L0/lambda_j - lf)/(hf - lf), inv_j = (1-s) theta_j/f + s theta_j
    longrope      inv_j = theta_j / ext_j, ext = long_factor if seq_len > L0 else short_factor;
                  attention = explicit, else 1 if f <= 1 else sqrt(1 + ln f / ln L0)
    proportional  n = int(prf * head_dim // 2); inv_j = base ** (-2j/head_dim) / f for j < n, 0 after;
                  head_dim/2 entries
    f = explicit factor, else M / L0 (yarn, longrope);  L0 = original_max_position_embeddings, else M.

Writes scaling_grid.csv next to itself: header type,d,base,factor,params,pair,inv_freq,attention_factor,
one row per pair. `d` is head_dim, `params` a `key=value;...` string with every other input, `factor`
the f the method must end up using. LongRoPE's lists appear in params as `short_factor=@NAME`; the
numbers are in scaling_lists.csv (header name,values; values space-separated). Checks itself against the golden values of Hugging Face transformers `tests/utils/test_modeling_rope_utils.py` and hand-computed values first and exits non-zero if a check fails.

    /usr/bin/python3 tests/reference/scaling.py
"""

import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FAILURES = []


def check(name, got, want, rtol):
    ok = abs(got - want) <= rtol * abs(want)
    if not ok:
        FAILURES.append(f"{name}: got {got!r}, want {want!r} (rtol {rtol})")


def check_abs(name, got, want, atol):
    """For values quoted to a fixed number of decimals: atol is half a unit of the last digit."""
    if not abs(got - want) <= atol:
        FAILURES.append(f"{name}: got {got!r}, want {want!r} (atol {atol})")


def theta(d, base):
    out = np.zeros(d // 2)
    for j in range(d // 2):
        out[j] = 1.0 / (base ** (2.0 * j / d))
    return out


def get_mscale(s, m=1.0):
    if s <= 1:
        return 1.0
    return 0.1 * m * math.log(s) + 1.0


def correction_dim(r, d, base, L0):
    return d * math.log(L0 / (2 * math.pi * r)) / (2 * math.log(base))


def rotary_dim(p, head_dim):
    return int(head_dim * p.get("partial_rotary_factor", 1.0))


def orig_and_factor(p):
    L0 = p.get("original_max_position_embeddings", p.get("max_position_embeddings"))
    f = p["factor"] if "factor" in p else p["max_position_embeddings"] / L0
    return L0, f


def compute(kind, head_dim, base, p):
    """Returns (inv_freq array, attention factor, f used)."""
    d = rotary_dim(p, head_dim)
    if kind == "default":
        return theta(d, base), 1.0, 1.0
    if kind == "linear":
        f = p["factor"]
        return theta(d, base) / f, 1.0, f
    if kind == "ntk":
        f = p["factor"]
        return theta(d, base * f ** (d / (d - 2))), 1.0, f
    if kind == "dynamic":
        f = p["factor"]
        M = p["max_position_embeddings"]
        L = max(p.get("seq_len", M), M)
        return theta(d, base * (f * L / M - (f - 1)) ** (d / (d - 2))), 1.0, f
    if kind == "yarn":
        L0, f = orig_and_factor(p)
        beta_fast = p.get("beta_fast", 0) or 32
        beta_slow = p.get("beta_slow", 0) or 1
        low = correction_dim(beta_fast, d, base, L0)
        high = correction_dim(beta_slow, d, base, L0)
        if p.get("truncate", True):
            low, high = math.floor(low), math.ceil(high)
        low, high = max(low, 0), min(high, d - 1)
        if low == high:
            high += 0.001
        t = theta(d, base)
        inv = np.zeros(d // 2)
        for j in range(d // 2):
            r = min(max((j - low) / (high - low), 0.0), 1.0)
            inv[j] = t[j] / f * r + t[j] * (1 - r)
        if "attention_factor" in p:
            a = p["attention_factor"]
        elif p.get("mscale", 0) and p.get("mscale_all_dim", 0):
            a = get_mscale(f, p["mscale"]) / get_mscale(f, p["mscale_all_dim"])
        else:
            a = get_mscale(f)
        return inv, a, f
    if kind == "llama3":
        f, L0 = p["factor"], p["original_max_position_embeddings"]
        lf, hf = p["low_freq_factor"], p["high_freq_factor"]
        t = theta(d, base)
        inv = np.zeros(d // 2)
        for j in range(d // 2):
            lam = 2 * math.pi / t[j]
            if lam > L0 / lf:
                inv[j] = t[j] / f
            elif lam < L0 / hf:
                inv[j] = t[j]
            else:
                s = (L0 / lam - lf) / (hf - lf)
                inv[j] = (1 - s) * t[j] / f + s * t[j]
        return inv, 1.0, f
    if kind == "longrope":
        L0, f = orig_and_factor(p)
        seq_len = p.get("seq_len")
        ext = LISTS[p["long_factor"][1:]] if seq_len is not None and seq_len > L0 else LISTS[p["short_factor"][1:]]
        t = theta(d, base)
        inv = np.array([t[j] / ext[j] for j in range(d // 2)])
        if "attention_factor" in p:
            a = p["attention_factor"]
        elif f <= 1:
            a = 1.0
        else:
            a = math.sqrt(1 + math.log(f) / math.log(L0))
        return inv, a, f
    if kind == "proportional":
        f = p.get("factor", 1.0)
        n = int(p.get("partial_rotary_factor", 1.0) * head_dim // 2)
        inv = np.zeros(head_dim // 2)
        for j in range(n):
            inv[j] = 1.0 / (base ** (2.0 * j / head_dim)) / f
        return inv, 1.0, f
    raise ValueError(kind)


def self_checks():
    # Hugging Face transformers `tests/utils/test_modeling_rope_utils.py`: HF golden vectors (LlamaConfig: d 128, base 1e4, M 2048).
    inv, a, _ = compute("default", 128, 1e4, {})
    check("default inv[1]", inv[1], 0.8659643234, 1e-9)
    check("default inv[63]", inv[63], 1.1547819847e-4, 1e-9)
    inv, _, _ = compute("dynamic", 128, 1e4, {"factor": 10.0, "max_position_embeddings": 2048, "seq_len": 16384})
    check("dynamic base'", 1e4 * (10.0 * 16384 / 2048 - 9.0) ** (128 / 126), 759702.231, 1e-9)
    check("dynamic inv[1]", inv[1], 0.8093100749, 1e-9)
    check("dynamic inv[63]", inv[63], 1.6264535e-6, 1e-7)
    p = {"factor": 10.0, "beta_fast": 32, "beta_slow": 1, "original_max_position_embeddings": 2048}
    inv, a, _ = compute("yarn", 128, 1e4, p)
    check("yarn inv[17]", inv[17], 0.0834789608, 1e-9)
    check("yarn inv[40]", inv[40], 4.300697618e-4, 1e-9)
    check("yarn inv[41]", inv[41], 2.738419634e-4, 1e-9)
    check("yarn attention", a, 1.2302585093, 1e-10)
    p = {"factor": 10.0, "original_max_position_embeddings": 2048, "low_freq_factor": 1.0, "high_freq_factor": 4.0}
    inv, _, _ = compute("llama3", 128, 1e4, p)
    check("llama3 inv[31]", inv[31], 0.0107302483, 1e-9)
    check("llama3 inv[40]", inv[40], 3.453924383e-4, 1e-9)
    check("longrope attention", math.sqrt(1 + math.log(10) / math.log(2048)), 1.1410492817, 1e-10)
    # §5: yarn correction ranges.
    for (d, base, L0, lo, hi) in [(128, 1e4, 4096, 20, 46), (128, 1e4, 2048, 16, 41), (64, 1e4, 4096, 10, 23),
                                  (128, 1e6, 32768, 23, 40)]:
        check(f"yarn low d{d} L0 {L0}", math.floor(correction_dim(32, d, base, L0)), lo, 0)
        check(f"yarn high d{d} L0 {L0}", math.ceil(correction_dim(1, d, base, L0)), hi, 0)
    check_abs("gpt-oss c(32)", correction_dim(32, 64, 1.5e5, 4096), 8.093, 5e-4)
    check_abs("gpt-oss c(1)", correction_dim(1, 64, 1.5e5, 4096), 17.398, 5e-4)
    # §5: mscale table.
    for s, m in [(1.25, 1.02231), (2, 1.06931), (4, 1.13863), (8, 1.20794), (10, 1.23026), (16, 1.27726), (32, 1.34657),
                 (40, 1.36889), (64, 1.41589), (128, 1.48520)]:
        check_abs(f"get_mscale({s})", get_mscale(s), m, 5e-6)
    # §6: NTK base'.
    for s, b in [(2, 20221.26), (4, 40889.94), (8, 82684.62), (16, 167198.74)]:
        check_abs(f"ntk base' s={s}", 1e4 * s ** (128 / 126), b, 0.005)
    # §7: Llama 3.1 bands and blend ratios.
    p = {"factor": 8.0, "original_max_position_embeddings": 8192, "low_freq_factor": 1.0, "high_freq_factor": 4.0}
    inv, _, _ = compute("llama3", 128, 5e5, p)
    ratio = inv / theta(128, 5e5)
    check("llama3.1 kept", int(np.sum(ratio == 1.0)), 29, 0)
    check("llama3.1 divided", int(np.sum(ratio == 1 / 8)), 29, 0)
    for j, r in zip(range(29, 35), [0.82817, 0.64374, 0.49351, 0.37112, 0.27143, 0.19021]):
        check_abs(f"llama3.1 ratio j={j}", ratio[j], r, 5e-6)
    # §5: Phi-3 attention.
    check_abs("phi-3 attention", math.sqrt(1 + math.log(32) / math.log(4096)), 1.19024, 5e-6)


def fmt_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return " ".join(repr(float(x)) for x in v)
    if isinstance(v, float):
        return repr(v)
    return str(v)


def params_string(p):
    return ";".join(f"{k}={fmt_value(v)}" for k, v in p.items())


LISTS = {}  # name -> list of floats, written to scaling_lists.csv


def lists(half, f):
    """Deterministic LongRoPE-like lists (short near 1, long rising to about f), rounded to 4 decimals
    so that they print short. Returns the names under which they are stored in LISTS."""
    names = (f"short_h{half}_f{f:g}", f"long_h{half}_f{f:g}")
    LISTS[names[0]] = [round(1.0 + 0.25 * j / (half - 1), 4) for j in range(half)]
    LISTS[names[1]] = [round(1.0 + (f - 1.0) * (j / (half - 1)) ** 2, 4) for j in range(half)]
    return names


def grid():
    """Yields (type, head_dim, base, params)."""
    L0 = 4096
    for d in (64, 128):
        for base in (1e4, 5e5):
            yield "default", d, base, {}
            yield "default", d, base, {"partial_rotary_factor": 0.5}
            for f in (2.0, 8.0, 32.0):
                M = int(L0 * f)
                yield "linear", d, base, {"factor": f}
                yield "ntk", d, base, {"factor": f}
                yield "dynamic", d, base, {"factor": f, "max_position_embeddings": L0, "seq_len": 2 * L0}
                yield "dynamic", d, base, {"factor": f, "max_position_embeddings": L0, "seq_len": L0 // 2}
                # f from M / L0, default betas and truncation
                yield "yarn", d, base, {"max_position_embeddings": M, "original_max_position_embeddings": L0}
                yield "yarn", d, base, {"factor": f, "original_max_position_embeddings": L0, "beta_fast": 0.0,
                                        "beta_slow": 0.0, "truncate": False}
                yield "yarn", d, base, {"factor": f, "original_max_position_embeddings": L0, "beta_fast": 32.0,
                                        "beta_slow": 1.0, "truncate": True, "mscale": 1.0, "mscale_all_dim": 0.8}
                yield "yarn", d, base, {"factor": f, "original_max_position_embeddings": L0, "beta_fast": 16.0,
                                        "beta_slow": 2.0, "truncate": False, "mscale": 0.707, "mscale_all_dim": 1.0}
                # low == high exactly (untruncated, equal betas): the 0.001 guard
                yield "yarn", d, base, {"factor": f, "original_max_position_embeddings": L0, "beta_fast": 8.0,
                                        "beta_slow": 8.0, "truncate": False}
                # a small beta_slow puts high beyond d/2 - 1: HF clamps it to d - 1, so the last pairs stay ramped
                yield "yarn", d, base, {"factor": f, "original_max_position_embeddings": L0, "beta_slow": 0.05}
                # mscale alone is ignored; explicit attention factor
                yield "yarn", d, base, {"factor": f, "max_position_embeddings": L0, "mscale": 1.0}
                yield "yarn", d, base, {"factor": f, "original_max_position_embeddings": L0, "attention_factor": 0.5}
                yield "llama3", d, base, {"factor": f, "original_max_position_embeddings": 8192, "low_freq_factor": 1.0,
                                          "high_freq_factor": 4.0}
                short, long = lists(d // 2, f)
                for seq_len in (L0, L0 + 1):  # seq_len == L0 keeps the short list
                    yield "longrope", d, base, {"max_position_embeddings": M, "original_max_position_embeddings": L0,
                                                "seq_len": seq_len, "short_factor": "@" + short,
                                                "long_factor": "@" + long}
                yield "proportional", d, base, {"factor": f, "partial_rotary_factor": 0.25}
                yield "proportional", d, base, {"factor": f, "partial_rotary_factor": 0.3}


def main():
    self_checks()
    if FAILURES:
        for f in FAILURES:
            print("FAIL", f, file=sys.stderr)
        return 1
    out = os.path.join(HERE, "scaling_grid.csv")
    rows = 0
    configs = 0
    with open(out, "w") as fh:
        fh.write(f"# generated by tests/reference/scaling.py (numpy {np.__version__}): /usr/bin/python3 tests/reference/scaling.py\n")
        fh.write("type,d,base,factor,params,pair,inv_freq,attention_factor\n")
        for kind, d, base, p in grid():
            inv, a, f = compute(kind, d, base, p)
            configs += 1
            for j, v in enumerate(inv):
                fh.write(f"{kind},{d},{base!r},{float(f)!r},{params_string(p)},{j},{float(v)!r},{float(a)!r}\n")
                rows += 1
    lists_out = os.path.join(HERE, "scaling_lists.csv")
    with open(lists_out, "w") as fh:
        fh.write(f"# generated by tests/reference/scaling.py (numpy {np.__version__}): /usr/bin/python3 tests/reference/scaling.py\n")
        fh.write("name,values\n")
        for name, values in LISTS.items():
            fh.write(f"{name},{fmt_value(values)}\n")
    print(f"wrote {out}: {configs} configurations, {rows} rows; {lists_out}: {len(LISTS)} lists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
