"""The llama_batch the scheduler fills with numpy, and the llama_memory_* calls on the context's KV cache."""

from __future__ import annotations

import ctypes
from collections.abc import Iterable, Sequence

import numpy as np


class Batch:
    """A llama_batch whose arrays are numpy buffers, so a step fills them without per-token ctypes calls."""

    def __init__(self, ll, n: int) -> None:
        self.n = n
        self.token = np.zeros(n, np.int32)
        self.pos = np.zeros(n, np.int32)
        self.n_seq_id = np.ones(n, np.int32)
        self.seq = np.zeros(n, np.int32)
        self.logits = np.zeros(n, np.int8)
        i32p = ctypes.POINTER(ctypes.c_int32)
        base = self.seq.ctypes.data
        self._seq_ptrs = (i32p * n)(*[ctypes.cast(base + 4 * i, i32p) for i in range(n)])
        b = ll.llama_batch()
        b.n_tokens = 0
        b.token = self.token.ctypes.data_as(i32p)
        b.embd = ctypes.POINTER(ctypes.c_float)()
        b.pos = self.pos.ctypes.data_as(i32p)
        b.n_seq_id = self.n_seq_id.ctypes.data_as(i32p)
        b.seq_id = ctypes.cast(self._seq_ptrs, ctypes.POINTER(i32p))
        b.logits = self.logits.ctypes.data_as(ctypes.POINTER(ctypes.c_int8))
        self.b = b

    def fill(self, runs: Iterable[tuple[int, Sequence[int], int, bool]]) -> list[int]:
        """Lay out runs of (seq, tokens, first position, wants logits) back to back; each run's logits row.

        The row is that of the run's last token, -1 for a run that asked for no logits. The runs must fit in
        n tokens. The scheduler, the engine's probe and the benchmark's raw decode loop all fill batches here,
        so the raw loop measures the same batch layout the engine decodes.
        """
        i = 0
        rows = []
        for seq, toks, start, want in runs:
            n = len(toks)
            self.token[i:i + n] = toks
            self.pos[i:i + n] = np.arange(start, start + n, dtype=np.int32)
            self.seq[i:i + n] = seq
            self.logits[i:i + n] = 0
            if want:
                self.logits[i + n - 1] = 1
            rows.append(i + n - 1 if want else -1)
            i += n
        self.b.n_tokens = i
        return rows


class MemOps:
    """llama_memory_* calls on the context's memory, as the prefix cache needs them."""

    def __init__(self, ll, mem) -> None:
        self.ll, self.mem = ll, mem

    def seq_cp(self, src: int, dst: int, p0: int, p1: int) -> None:
        self.ll.llama_memory_seq_cp(self.mem, src, dst, p0, p1)

    def seq_rm(self, seq: int) -> None:
        self.ll.llama_memory_seq_rm(self.mem, seq, -1, -1)

    def seq_pos_min(self, seq: int) -> int:
        return self.ll.llama_memory_seq_pos_min(self.mem, seq)
