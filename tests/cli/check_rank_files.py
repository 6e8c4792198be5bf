#!/usr/bin/python3
"""`rope check --rank-files` (issue 80 item 1): torch.save dumps of the 4 ranks of a packed batch of 3 sequences
(0, 8, 16, 32), zigzag and round-robin, written by tests/reference/cp_rank_dumps.py from tests/reference/
cp_positions.py's independent ports of the splits, one rank planted with each mistake; one command names the failing
ranks and each mistake: positions not offset per rank (found not_offset), another rank's positions ("rank 2 matches
rank 1's positions", matches_rank), a zigzag rank's chunks taken as contiguous (matches_layout). Each rank's report
(`--cp-rank R --json`) merged by `rope check --merge` is the one command's report, byte for byte, text and JSON; each
rank's plain `rope check --json` report merged gives the same verdicts and numbers, with no batch named. A rank that
numbered its tokens across the ranks is named by that constant (found order_offset). Bad inputs exit 2 with one line: a rank missing, two files of one rank, a glob matching nothing, a cp size that
does not match; for --merge a rank's report missing, two of one rank, malformed JSON, reports of two layouts (exit 3: a
report that cannot be read). Hostile inputs: ranks that numbered their own tokens from 0 beside the batch's starts
(refused: a false PASS before), the cp size taken from the files, every option beside --rank-files and --merge read
or refused naming it, a rank's refusal naming the rank and its file, and --rank-of patterns that crashed or hung a
regular expression refused at once.

Usage: check_rank_files.py --rope PATH --out DIR   (needs PyTorch: torch.save writes the dumps)
"""
import argparse
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
import cp_rank_dumps  # noqa: E402
from rope_run import run  # noqa: E402

CU = [0, 8, 16, 32]
CASES = [  # layout, planted, failing ranks, per rank: what the report must say
    ("zigzag", {1: "not-offset", 2: "other-rank:1", 3: "contiguous"}, [1, 2, 3],
     {1: ("found", "not_offset", 1.0), 2: ("matches_rank", 1), 3: ("matches_layout", "contiguous")}),
    ("round-robin", {0: "not-offset", 2: "other-rank:1"}, [0, 2],
     {0: ("found", "not_offset", 1.0), 2: ("matches_rank", 1)}),
]


HOSTILE = ("self-numbered ranks", "the cp size from the files", "options beside --rank-files and --merge",
           "a rank's refusal", "a hostile --rank-of")


def one_line(code, out, err, want, words):
    """'' where `rope` exited `want` with one line on stderr holding every one of `words` and nothing on stdout."""
    if code == want and all(w in err for w in words) and len(err.strip().splitlines()) == 1 and not out:
        return ""
    return f"exit {code} (expected {want}), stderr {err[:300]!r}, stdout {out[:100]!r}"


def numbered_globally(a, common):
    """A zigzag rank numbering its tokens across the ranks (rank 2 at 2 · 8 + i): its row names the tokens' order plus
    one constant (found order_offset 16), not a rank of the batch cut as one sequence whose positions coincide."""
    d = os.path.join(a.out, "numbered_globally")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    cp_rank_dumps.write(d, "zigzag", CU, 4, {2: "numbered-globally"})
    files = ["--rank-files", os.path.join(d, "rank*.pt"), "--cp-size", "4", "--cp-layout", "zigzag"]
    code, out, err = run(a.rope, common + files + ["--json"])
    if code != 1:
        return [f"numbered globally: exit {code}, expected 1: {err.strip()}"]
    rep = json.loads(out)
    found = (rep["ranks"][2]["diagnosis"] or {}).get("found", {})
    if rep["failing_ranks"] != [2] or found != {"order_offset": 16.0}:
        return [f"numbered globally: failing ranks {rep['failing_ranks']}, rank 2 found {found}"]
    _, text, _ = run(a.rope, common + files)
    if "the tokens' order on this rank plus one constant 16 = 2 × 8" not in text:
        return [f"numbered globally: the text does not name the constant: {text}"]
    return []


def hostile(a, common, z, zr):
    """The inputs of a hostile tester: each a wrong verdict, a dropped option or a crash before."""
    import torch
    failures = []
    # 4 ranks that each numbered their own tokens 0 … n − 1, each file self-consistent: at the files' own positions
    # beside the batch's starts was a false PASS under a header naming the batch; the combination is refused, and
    # the files' own positions alone say in the header that no batch was compared.
    own = os.path.join(a.out, "self_numbered")
    shutil.rmtree(own, ignore_errors=True)
    os.makedirs(own)
    cp_rank_dumps.write(own, "zigzag", CU, 4, {r: "not-offset" for r in range(4)})
    for r in range(4):
        path = os.path.join(own, f"rank{r}.pt")
        t = torch.load(path)
        t["positions"] = torch.arange(t["q"].shape[0], dtype=torch.int64)
        torch.save(t, path)
    files = ["--rank-files", os.path.join(own, "rank*.pt"), "--positions-tensor", "positions"]
    for starts in (",".join(map(str, CU)), "0,1"):
        problem = one_line(*run(a.rope, common[:common.index("--sequence-starts")] + ["--sequence-starts", starts,
                                                                                      "--layout", "half"] + files +
                                ["--cp-size", "4", "--cp-layout", "zigzag"]), 2,
                           ["--positions-tensor checks each rank at its file's positions", "give one"])
        if problem:
            failures.append(f"self-numbered ranks, --sequence-starts {starts}: {problem}")
    code, out, err = run(a.rope, ["check", "--before-tensor", "q", "--after-tensor", "q_rope", "--layout", "half"] +
                         files)
    if code != 0 or "compared with no packed batch" not in out or "sequence starts" in out:
        failures.append(f"self-numbered ranks at their own positions: exit {code}: {out}{err}")
    # The cp size is the files' number where --cp-size is not given: the same report.
    zig = ["--rank-files", os.path.join(z, "rank*.pt"), "--cp-layout", "zigzag", "--json"]
    with_size = run(a.rope, common + zig + ["--cp-size", "4"])
    without = run(a.rope, common + zig)
    if with_size[0] != 1 or without != with_size:
        failures.append(f"the cp size from the files: exit {without[0]}, {without[2]}")
    # Every option beside --rank-files and --merge read or refused in one line naming it (a missing file refused
    # before it would be read, not ignored).
    beside = [
        (common + zig + ["--positions", "@/missing"], 2, ["leave out --positions"]),
        (["check", "--merge", zr, "--config", "/missing"], 2, ["--merge reads the ranks' reports", "leave out --config"]),
        (["check", "--merge", zr, "--cp-size", "8"], 2, ["leave out --cp-size"]),
        (["check", "--merge", zr, "--positions", "@/missing"], 2, ["leave out --positions"]),
        (common[:common.index("--sequence-starts")] + ["--sequence-starts", "@/missing", "--layout", "half"] + zig,
         3, ["/missing"]),
    ]
    for args, want, words in beside:
        problem = one_line(*run(a.rope, args), want, words)
        if problem:
            failures.append(f"options beside --rank-files and --merge, {' '.join(args[-2:])}: {problem}")
    # A rank's refusal names the rank, its file and the option that gave its positions.
    starts = common.index("--sequence-starts") + 1
    wrong = common[:starts] + ["0,16,32,64"] + common[starts + 1:] + zig
    problem = one_line(*run(a.rope, wrong), 2, ["rank 0 (", "rank0.pt", "--sequence-starts"])
    if problem or "--positions" in run(a.rope, wrong)[2]:
        failures.append(f"a rank's refusal: {problem or run(a.rope, wrong)[2]}")
    # A pattern 20 000 groups deep crashed the regex compiler; one that backtracks ran for ever: both refused at once,
    # echoed cut short.
    for pattern in ("(" * 20000 + "a" + ")" * 20000, "(?:a|aa)+x?([0-9])y"):
        code, out, err = run(a.rope, common + zig + ["--rank-of", pattern], timeout=20)
        if code != 2 or len(err) > 400 or "--rank-of" not in err:
            failures.append(f"a hostile --rank-of of {len(pattern)} bytes: exit {code}, stderr {err[:400]!r}")
    return failures


def plain_reports(a, layout, d, rep):
    """Each rank checked on its own by a plain `rope check … --json` at its file's positions, the reports named by
    rank and merged: the ranks' verdicts and numbers are the one command's (its rows' `passed`, `failing`,
    `max_ratio`), the header says no batch was compared, rows hold no positions; a rank's report missing and reports
    of the two kinds refused in one line."""
    failures = []
    plain = os.path.join(a.out, layout + "_plain")
    shutil.rmtree(plain, ignore_errors=True)
    os.makedirs(plain)
    for k in range(4):
        dump = os.path.join(d, f"rank{k}.pt")
        code, out, err = run(a.rope, ["check", "--before", dump, "--after", dump, "--before-tensor", "q",
                                      "--after-tensor", "q_rope", "--positions", "@" + dump, "--positions-tensor",
                                      "positions", "--layout", "half", "--json"])
        with open(os.path.join(plain, f"rank{k}.json"), "w") as f:
            f.write(out)
    code, out, err = run(a.rope, ["check", "--merge", plain, "--json"])
    if code != (0 if rep["passed"] else 1):
        return [f"{layout}, plain reports merged: exit {code}: {err}"]
    merged = json.loads(out)
    for one, want in zip(merged["ranks"], rep["ranks"]):
        got = {k: one[k] for k in ("rank", "passed", "failing", "max_ratio")}
        if got != {k: want[k] for k in got} or one["first_position"] is not None:
            failures.append(f"{layout}, plain reports merged: rank {one['rank']} is {got}, the one command's "
                            f"{ {k: want[k] for k in got} }")
    if merged["failing_ranks"] != rep["failing_ranks"] or merged["cp_layout"] is not None:
        failures.append(f"{layout}, plain reports merged: failing ranks {merged['failing_ranks']}")
    code, text, err = run(a.rope, ["check", "--merge", plain])
    if "compared with no packed batch" not in text or "positions in" in text:
        failures.append(f"{layout}, plain reports merged: {text}")
    # Named otherwise, the ranks are read by --rank-of; beside reports of ranks it is refused.
    named = os.path.join(a.out, layout + "_plain_named")
    shutil.rmtree(named, ignore_errors=True)
    os.makedirs(named)
    for k in range(4):
        shutil.copy(os.path.join(plain, f"rank{k}.json"), os.path.join(named, f"step7_q{k}.json"))
    code, by_pattern, err = run(a.rope, ["check", "--merge", named, "--rank-of", "q{N}.json", "--json"])
    if [r["passed"] for r in json.loads(by_pattern or "{\"ranks\": []}")["ranks"]] != [r["passed"] for r in
                                                                                     merged["ranks"]]:
        failures.append(f"{layout}, plain reports named q{{N}}.json merged by --rank-of: exit {code}: {err}")
    problem = one_line(*run(a.rope, ["check", "--merge", os.path.join(a.out, layout + "_reports"), "--rank-of",
                                     "rank{N}.json"]), 2, ["leave out --rank-of"])
    if problem:
        failures.append(f"{layout}, --rank-of beside reports of ranks: {problem}")
    some = [os.path.join(plain, f"rank{k}.json") for k in (0, 1, 3)]
    for name, paths, words in (("a rank's plain report missing", some, "no report of rank 2"),
                               ("reports of two kinds", some + [os.path.join(a.out, layout + "_reports", "rank2.json")],
                                "reports of two kinds")):
        problem = one_line(*run(a.rope, ["check", "--merge"] + paths), 2, [words])
        if problem:
            failures.append(f"{layout}, {name}: {problem}")
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rope", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    failures = []
    common = ["check", "--before-tensor", "q", "--after-tensor", "q_rope", "--sequence-starts",
              ",".join(map(str, CU)), "--layout", "half"]
    for layout, planted, failing, says in CASES:
        d = os.path.join(a.out, layout)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        cp_rank_dumps.write(d, layout, CU, 4, planted)
        files = ["--rank-files", os.path.join(d, "rank*.pt"), "--cp-size", "4", "--cp-layout", layout]
        code, out, err = run(a.rope, common + files + ["--json"])
        if code != 1:
            failures.append(f"{layout}: exit {code}, expected 1: {err.strip()}")
            continue
        rep = json.loads(out)
        if rep["failing_ranks"] != failing or rep["passed"]:
            failures.append(f"{layout}: failing ranks {rep['failing_ranks']}, expected {failing}")
        for rank, what in says.items():
            one = rep["ranks"][rank]
            if one["rank"] != rank or not one["file"].endswith(f"rank{rank}.pt"):
                failures.append(f"{layout}: row {rank} is rank {one['rank']} of {one['file']}")
            got = (one["diagnosis"] or {}).get("found", {}).get(what[1]) if what[0] == "found" else one.get(what[0])
            want = what[2] if what[0] == "found" else what[1]
            if got != want:
                failures.append(f"{layout} rank {rank}: {what[0]} {got}, expected {want}")
        _, text, _ = run(a.rope, common + files)
        if "rank 2 matches rank 1's positions" not in text:
            failures.append(f"{layout}: the text does not name rank 2's match: {text}")
        # Each rank's report where its dump lies (--cp-rank), merged (--merge, a directory): the same report, byte
        # for byte, text and JSON.
        reports = os.path.join(a.out, layout + "_reports")
        shutil.rmtree(reports, ignore_errors=True)
        os.makedirs(reports)
        for k in range(4):
            with open(os.path.join(reports, f"rank{k}.json"), "w") as f:
                f.write(run(a.rope, common + files + ["--cp-rank", str(k), "--json"])[1])
        merged = [run(a.rope, ["check", "--merge", reports] + extra) for extra in ([], ["--json"])]
        if [m[0] for m in merged] != [1, 1] or merged[0][1] != text or merged[1][1] != out:
            failures.append(f"{layout}: the merged reports differ from the one command's "
                            f"(exit {[m[0] for m in merged]}): {merged[0][1]}{merged[0][2]}")
        failures += plain_reports(a, layout, d, rep)
    # Bad inputs: one line, exit 2.
    z = os.path.join(a.out, "zigzag")
    dup = os.path.join(a.out, "dup")
    shutil.rmtree(dup, ignore_errors=True)
    os.makedirs(os.path.join(dup, "again"))
    os.makedirs(os.path.join(dup, "all"))
    for k in range(4):
        shutil.copy(os.path.join(z, f"rank{k}.pt"), os.path.join(dup, "all"))
    shutil.copy(os.path.join(z, "rank0.pt"), os.path.join(dup, "again", "rank0.pt"))
    bad = [
        ("a rank missing", os.path.join(z, "rank[0-2].pt"), "4", "no file of rank 3"),
        ("two files of one rank", os.path.join(dup, "*", "rank*.pt"), "4", "two files of rank 0"),
        ("a glob matching nothing", os.path.join(z, "nothing*.pt"), "4", "matches no file"),
        ("cp size smaller", os.path.join(z, "rank*.pt"), "2", "beyond --cp-size 2"),
    ]
    for name, glob, cp, words in bad:
        code, out, err = run(a.rope, common + ["--rank-files", glob, "--cp-size", cp, "--cp-layout", "zigzag"])
        if code != 2 or words not in err or len(err.strip().splitlines()) != 1 or out:
            failures.append(f"{name}: exit {code}, stderr {err!r}")
    # --merge's bad inputs: one line, exit 2 (3 for a report that cannot be read), nothing on stdout.
    zr = os.path.join(a.out, "zigzag_reports")
    rr = os.path.join(a.out, "round-robin_reports")
    with open(os.path.join(dup, "broken.json"), "w") as f:
        f.write('{"ranks": [')
    merge_bad = [
        ("a rank's report missing", [os.path.join(zr, f"rank{k}.json") for k in range(3)], 2, "no report of rank 3"),
        ("two reports of one rank", [zr, os.path.join(zr, "rank0.json")], 2, "two reports of rank 0"),
        ("malformed JSON", [os.path.join(zr, "rank0.json"), os.path.join(dup, "broken.json")], 2, "not valid JSON"),
        ("reports of two layouts", [os.path.join(zr, f"rank{k}.json") for k in range(3)] +
         [os.path.join(rr, "rank3.json")], 2, "a report of another batch"),
        ("a report not there", [os.path.join(zr, "rank9.json")], 3, "cannot read"),
    ]
    for name, paths, want, words in merge_bad:
        code, out, err = run(a.rope, ["check", "--merge"] + paths)
        if code != want or words not in err or len(err.strip().splitlines()) != 1 or out:
            failures.append(f"--merge, {name}: exit {code}, stderr {err!r}")
    failures += hostile(a, common, z, zr)
    failures += numbered_globally(a, common)
    for f in failures:
        print("FAIL:", f)
    print(f"{len(CASES) + len(bad) + len(merge_bad) + len(HOSTILE) + 1} cases, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
