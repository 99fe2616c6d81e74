"""Whether a ledger fits a memory budget, and the largest slots × context that would."""

from __future__ import annotations

from dataclasses import replace

from ..errors import BudgetError
from .ledger import CTX_PAD, GiB, Ledger, LedgerConfig, pad, predict

DEFAULT_MARGIN = 0.30  # the reference study's safety margin: plan to use at most 70 % of the budget


def usable(budget_bytes: int, margin: float = DEFAULT_MARGIN) -> int:
    return int(budget_bytes * (1.0 - margin))


def fits(ledger: Ledger, budget_bytes: int, margin: float = DEFAULT_MARGIN) -> bool:
    return ledger.total_bytes <= usable(budget_bytes, margin)


def max_context(info, cfg: LedgerConfig, slots: int, budget_bytes: int, margin: float = DEFAULT_MARGIN,
                spare: int = 0) -> int:
    """Largest per-slot context (a multiple of 256, at most the trained length) that fits; 0 if none."""
    def ok(ctx: int) -> bool:
        c = replace(cfg, n_ctx=ctx * slots, n_seq_max=slots + spare, slots=slots)
        return fits(predict(info, c), budget_bytes, margin)

    hi = max(CTX_PAD, pad(info.context_length or 131072, CTX_PAD)) // CTX_PAD
    if not ok(CTX_PAD):
        return 0
    lo = 1  # in units of 256; ok(lo) holds
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if ok(mid * CTX_PAD):
            lo = mid
        else:
            hi = mid - 1
    return lo * CTX_PAD


def max_fit(info, cfg: LedgerConfig, budget_bytes: int, margin: float = DEFAULT_MARGIN,
            slot_counts=(1, 2, 4, 8, 16), spare: int = 0) -> list[tuple[int, int]]:
    """(slots, largest per-slot context) pairs that fit, for each slot count (context 0: not even 256)."""
    counts = sorted(set(slot_counts) | {cfg.slots or cfg.n_seq_max})
    return [(s, max_context(info, cfg, s, budget_bytes, margin, spare)) for s in counts]


def check_fits(info, cfg: LedgerConfig, budget_bytes: int, margin: float = DEFAULT_MARGIN) -> Ledger:
    """The ledger if the config fits the budget after the margin; else BudgetError with what would fit."""
    ledger = predict(info, cfg)
    if fits(ledger, budget_bytes, margin):
        return ledger
    slots = cfg.slots or cfg.n_seq_max
    spare = max(0, cfg.n_seq_max - slots)
    options = [(s, c) for s, c in max_fit(info, cfg, budget_bytes, margin, spare=spare) if c]
    if options:
        mine = [c for s, c in options if s == slots]
        best = f"{slots} slots × {mine[0]} tokens" if mine else ""
        others = ", ".join(f"{s} × {c}" for s, c in options if s != slots)
        hint = "largest that fit: " + "; ".join(x for x in (best, others) if x)
    else:
        hint = "not even 1 slot × 256 tokens fits"
    raise BudgetError(
        f"predicted {ledger.total_bytes / GiB:.2f} GiB on the {ledger.device} exceeds "
        f"{usable(budget_bytes, margin) / GiB:.2f} GiB ({1 - margin:.0%} of {budget_bytes / GiB:.2f} GiB); {hint}"
    )
