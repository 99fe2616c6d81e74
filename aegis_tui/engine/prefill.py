"""What one step decodes: decode tokens first, then prompt chunks, cut where a waiting slot can share them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .prefix_cache import common_prefix
from .slots import Slot

# (slot, tokens, wants_logits): one run of a step's batch
Item = tuple[Slot, Sequence[int], bool]


def plan_step(slots: list[Slot], room: int, prefill_limit: int) -> list[Item]:
    """The runs of this step: every decoding slot's pending tokens, then prompt chunks of up to prefill_limit."""
    items = []
    for s in slots:
        if s.busy and not s.prefilling and s.pending and room > 0:
            take = s.pending[:room]
            items.append((s, take, len(take) == len(s.pending)))
            room -= len(take)
    for s in slots:
        if s.busy and s.prefilling and room > 0:
            end = s.prompt_pos + min(room, prefill_limit)
            # stop exactly where a waiting slot's shared prefix ends, so it can copy those cells next
            splits = [w.wait_n for w in slots if w.wait_src is s and w.wait_n > s.prompt_pos]
            end = min([end, *splits])
            chunk = s.req.prompt[s.prompt_pos:end]
            if len(chunk) == 0:
                continue
            items.append((s, chunk, s.prompt_pos + len(chunk) == len(s.req.prompt)))
            room -= len(chunk)
    return items


def halve_prompt_chunks(items: list[Item]) -> list[Item]:
    """The same runs with every prompt chunk halved, so a retry after freeing KV cells asks for fewer."""
    out = []
    for s, toks, want in items:
        if s.prefilling and len(toks) > 1:
            half = toks[: max(1, len(toks) // 2)]
            out.append((s, half, s.prompt_pos + len(half) == len(s.req.prompt)))
        else:
            out.append((s, toks, want))
    return out


def inflight_match(slots: list[Slot], slot: Slot, prompt: np.ndarray) -> tuple[Slot | None, int]:
    """The other slot prefilling the longest prefix of prompt right now, and how many tokens they share."""
    best, best_n = None, 0
    for s in slots:
        if s is slot or not s.prefilling:
            continue
        n = min(common_prefix(s.req.prompt, prompt), len(prompt) - 1)
        if n > best_n:
            best, best_n = s, n
    return best, best_n
