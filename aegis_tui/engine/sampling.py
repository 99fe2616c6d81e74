"""Token choice over a logits row (a numpy view on llama.cpp's buffer): greedy, temperature/top-k/top-p, masks."""

from __future__ import annotations

import numpy as np

from .config import Sampling

# Candidates whose probability is below this fraction of the best one's are dropped before top-p sorting,
# so a 262k vocabulary is never fully sorted; they hold a negligible share of the mass.
_NEGLIGIBLE = 1e-7


def bit_allowed(mask_row: np.ndarray, token: int) -> bool:
    """Whether a token's bit is set in an llguidance bitmask row (int32 words, little-endian bits)."""
    return bool((int(mask_row[token >> 5]) >> (token & 31)) & 1)


def allowed_ids(mask_row: np.ndarray, n_vocab: int) -> np.ndarray:
    """Token ids whose bit is set in a bitmask row."""
    bits = np.unpackbits(mask_row.view(np.uint8), bitorder="little")[:n_vocab]
    return np.flatnonzero(bits)


class Sampler:
    """One request's sampler; holds its own random generator so seeded runs repeat."""

    def __init__(self, params: Sampling) -> None:
        self.params = params
        self.rng = np.random.default_rng(params.seed) if not params.greedy else None

    def choose(self, logits: np.ndarray, allowed: np.ndarray | None = None) -> int:
        """Pick a token from logits, restricted to the ids in `allowed` when given."""
        if allowed is not None:
            if len(allowed) == 0:
                return -1
            sub = logits[allowed]
            return int(allowed[self._choose(sub)])
        return self._choose(logits)

    def _choose(self, logits: np.ndarray) -> int:
        p = self.params
        if self.rng is None:
            return int(np.argmax(logits))
        n = len(logits)
        if 0 < p.top_k < n:
            cand = np.argpartition(logits, n - p.top_k)[n - p.top_k:]
        else:
            cand = None
        vals = logits if cand is None else logits[cand]
        scaled = vals.astype(np.float64) / max(p.temperature, 1e-6)
        scaled -= scaled.max()
        probs = np.exp(scaled)
        keep = np.flatnonzero(probs >= _NEGLIGIBLE)
        probs = probs[keep]
        ids = keep if cand is None else cand[keep]
        if p.top_p < 1.0:
            order = np.argsort(-probs, kind="stable")
            probs = probs[order]
            ids = ids[order]
            cum = np.cumsum(probs) / probs.sum()
            cut = int(np.searchsorted(cum, p.top_p)) + 1
            probs = probs[:cut]
            ids = ids[:cut]
        probs = probs / probs.sum()
        return int(ids[self.rng.choice(len(ids), p=probs)])


def constrained_choice(sampler: Sampler, logits: np.ndarray, matcher, mask_row: np.ndarray) -> int:
    """The next token under a slot's grammar (none, llguidance or llama.cpp GBNF); -1 when it allows none.

    Both grammar paths try the unconstrained choice first and mask only when the grammar rejects it: a
    greedy pick checked against one bitmask bit (llguidance), or one grammar step over one candidate (GBNF).
    """
    if matcher is None:
        return sampler.choose(logits)
    if matcher.kind == "llg":
        tok = int(np.argmax(logits)) if sampler.rng is None else -1
        if tok < 0 or not bit_allowed(mask_row, tok):
            tok = sampler.choose(logits, allowed_ids(mask_row, len(logits)))
        return tok
    tok = sampler.choose(logits)
    if not matcher.allows(tok):
        masked = matcher.mask_logits(logits)
        tok = sampler.choose(logits, np.flatnonzero(np.isfinite(masked)))
    return tok
