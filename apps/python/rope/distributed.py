"""Every rank of a context-parallel job checks its own tensors where they lie, and one report comes back
(docs/check.md, "Dumps of a distributed run", the third way): called inside each rank of a ``torchrun`` (or Slurm
``srun``) job, no dump files, nothing copied to one machine. What crosses the network: one report per rank (its
``rope check --json`` row, a few KiB), gathered to rank 0 with ``torch.distributed.gather_object`` on the job's own
process group; rank 0 merges them through the library, the merge of ``rope check --merge`` (one renderer: the same
report as ``rope check --rank-files`` prints for the same tensors' dumps)."""

import numpy as np

from . import _integer, _rope, check as _check

__all__ = ["RanksReport", "check_ranks"]

# Most other ranks' positions tried on a failing rank (analysis/check/check_ranks.hpp kMaxOtherRanksTried).
_MAX_OTHER_RANKS_TRIED = 16
_LAYOUTS = ("zigzag", "contiguous", "round-robin")  # the order rope check --rank-files tries them in


class RanksReport:
    """The merged report of every rank (``rope check --rank-files``' report): ``passed``, ``failing_ranks``,
    ``ranks`` (each rank's fields: its single check's keys with ``rank``, ``matches_rank``, ``matches_layout``),
    ``data`` (the JSON's fields), ``to_json()`` and ``summary(lang=)``, the library's JSON and text."""

    def __init__(self, merged):
        self.data = merged["data"]
        self._result = merged["result"]

    passed = property(lambda self: self.data["passed"])
    failing_ranks = property(lambda self: list(self.data["failing_ranks"]))
    ranks = property(lambda self: self.data["ranks"])

    def __bool__(self):
        return self.passed

    def to_json(self):
        """``rope check --merge --json``'s text (without its final newline)."""
        return self._result.json()[:-1]

    def summary(self, lang="en"):
        """The report as ``rope check --rank-files`` prints it: a row per rank, then the run's verdict."""
        return self._result.text(lang)

    def __repr__(self):
        return f"rope.distributed.RanksReport(passed={self.passed}, failing_ranks={self.failing_ranks})"


def _rank_positions(starts, size, rank, layout):
    positions, value = _rope.cp_positions(starts, size, rank, layout)
    local = list(value["local_sequence_starts"])
    return positions, (local if len(local) > 2 else None)


def _rank_row(before, after, positions, spec, layout, starts, size, rank, options):
    """The rank's report, the JSON ``rope check --rank-files … --cp-rank R --json`` writes (the library's): its
    check at its positions (given, or its slice of the batch); a failing rank tried at other ranks' positions and in
    the other layouts, as rope check --rank-files tries them (at most 16 other ranks)."""
    own = positions
    own_starts = None
    if own is None:
        own, own_starts = _rank_positions(starts, size, rank, layout)

    def run(at, at_starts):
        return _check(before, after, at, spec, sequence_starts=at_starts, **options)

    report = run(own, own_starts)
    matches_rank = matches_layout = None
    if not report.passed and positions is None:
        tried = 0
        for other in range(size):
            if tried >= _MAX_OTHER_RANKS_TRIED:
                break
            p, s = _rank_positions(starts, size, other, layout)
            if other == rank or len(p) != len(own):
                continue
            tried += 1
            if run(p, s).passed:
                matches_rank = other
                break
        for other in _LAYOUTS:
            if matches_rank is not None or matches_layout is not None or other == layout:
                continue
            try:
                p, s = _rank_positions(starts, size, rank, other)
            except ValueError:  # a batch this layout cannot split
                continue
            if len(p) == len(own) and run(p, s).passed:
                matches_layout = other
    flat = np.asarray(own, dtype=float).reshape(-1)
    return _rope.rank_report(report._result, {
        "rank": rank, "file": f"rank {rank} (in-process)", "first_position": float(flat.min()) if flat.size else 0.0,
        "last_position": float(flat.max()) if flat.size else 0.0, "matches_rank": matches_rank,
        "matches_layout": matches_layout, "cp_size": size, "layout": layout, "sequence_starts": list(starts)})


def check_ranks(before, after, positions=None, spec=None, *, layout="zigzag", sequence_starts, group=None,
                all_ranks=False, **options):
    """Called in every rank of a context-parallel job (``torchrun``, ``srun``): this rank's ``before`` and ``after``
    (its q or k before and after RoPE, any array ``rope.check`` takes) checked against ``spec`` at this rank's
    positions, ``positions`` where given, else its slice of the packed batch ``sequence_starts`` (the whole batch's
    cu_seqlens) split over the group's ranks as ``layout`` says ("zigzag", "round-robin", "contiguous";
    ``rope.cp_positions``' keywords). The ranks' reports are gathered to the group's rank 0 with
    ``torch.distributed.gather_object`` (``group``: the job's process group, else the default one; gloo on CPU; with
    NCCL, torch requires ``torch.cuda.set_device`` of each rank first), and merged there by the library. Returns the
    merged RanksReport on rank 0 and None on the others, or on every rank with ``all_ranks=True``
    (``all_gather_object``). ``options``: rope.check's (dtype, angles, lang, ...). A rank whose check raises (bad
    input) still sends its error: every rank reaches the collective, and rank 0 raises ValueError naming the rank."""
    import torch.distributed as dist

    rank = dist.get_rank(group)
    size = dist.get_world_size(group)
    # Whatever this rank's check raises (bad input, a wrong type, memory) is sent, not raised here: every rank reaches
    # the collective, which otherwise waits out the group's timeout on the others.
    try:
        starts = [_integer(s, "sequence_starts") for s in sequence_starts]
        mine = _rank_row(before, after, positions, spec, layout, starts, size, rank, options)
        error = None
    except Exception as e:  # noqa: BLE001 (sent to rank 0 and raised on this rank after the collective)
        mine, error = None, e
    sent = {"rank": rank, "report": mine,
            "error": None if error is None else (str(error) if isinstance(error, ValueError)
                                                 else f"{type(error).__name__}: {error}")}
    if all_ranks:
        gathered = [None] * size
        dist.all_gather_object(gathered, sent, group=group)
    else:
        gathered = [None] * size if rank == 0 else None
        dist.gather_object(sent, gathered, dst=_global_rank(dist, group, 0), group=group)
    if gathered is not None:
        for g in gathered:
            if g["error"] is not None:
                raise ValueError(f"rank {g['rank']}: {g['error']}") from error
    if error is not None:
        raise ValueError(f"rank {rank}: {sent['error']}") from error
    if gathered is None:
        return None
    return RanksReport(_rope.merge_rank_reports([(f"rank {g['rank']}", g["report"]) for g in gathered]))


def _global_rank(dist, group, group_rank):
    """The default group's rank of ``group``'s rank ``group_rank`` (gather_object's dst is a global rank)."""
    if group is None:
        return group_rank
    get = getattr(dist, "get_global_rank", None) or dist.distributed_c10d._get_global_rank  # torch < 2.0
    return get(group, group_rank)
