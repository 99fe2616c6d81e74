"""Prompt-prefix KV reuse: cached prompts live in spare sequences; cells are shared, never copied."""

from __future__ import annotations

import itertools
import time
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

_node_ids = itertools.count()


@dataclass(eq=False)
class KvNode:
    """One sequence's cells in the unified KV cache: positions [0, shared) are its parent's physical cells
    (llama_memory_seq_cp only adds a sequence id to them), [shared, length) are cells it decoded itself."""

    parent: KvNode | None
    shared: int
    length: int
    alive: bool = True
    is_entry: bool = False
    children: list[KvNode] = field(default_factory=list)
    id: int = field(default_factory=lambda: next(_node_ids))


class KvLedger:
    """Counts the distinct KV cells that live sequences hold, following seq_cp provenance."""

    def __init__(self) -> None:
        self.nodes: list[KvNode] = []

    def new(self, parent: KvNode | None, shared: int, length: int | None = None) -> KvNode:
        node = KvNode(parent, shared if parent is not None else 0, shared if length is None else length)
        if parent is not None:
            parent.children.append(node)
        self.nodes.append(node)
        return node

    def kill(self, node: KvNode) -> None:
        node.alive = False
        self._collect()

    def cells(self, counts=lambda n: n.alive) -> int:
        """Distinct cells referenced by nodes for which counts(node) is true."""
        reach: dict[int, int] = {}
        # children before parents, without recursion: a tree may be deeper than Python's stack allows
        order: list[KvNode] = []
        stack = [n for n in self.nodes if n.parent is None]
        while stack:
            n = stack.pop()
            order.append(n)
            stack.extend(n.children)
        for n in reversed(order):
            r = n.length if counts(n) else 0
            for c in n.children:
                r = max(r, min(c.shared, reach[c.id]))
            reach[n.id] = r
        total = 0
        for n in self.nodes:
            total += max(0, min(n.length, reach.get(n.id, 0)) - n.shared)
        return total

    def _collect(self) -> None:
        """Forget dead nodes that no live node references any more, and splice out a dead node that one node
        references: its child takes over its cells (requests that each extend the last cached prompt had left an
        ever longer chain of dead nodes, each step walking it, until the walk overflowed)."""
        changed = True
        while changed:
            changed = False
            for n in list(self.nodes):
                if n.alive:
                    continue
                if not n.children:
                    self.nodes.remove(n)
                    if n.parent is not None:
                        n.parent.children.remove(n)
                    changed = True
                elif len(n.children) == 1:
                    # the child's cells below its share were n's (its own or n's parent's): they are the child's
                    # own from where n's began, or shared with n's parent below that
                    (c,) = n.children
                    c.parent = n.parent
                    c.shared = min(c.shared, n.shared) if n.parent is not None else 0
                    if n.parent is not None:
                        n.parent.children[n.parent.children.index(n)] = c
                    n.children = []
                    self.nodes.remove(n)
                    changed = True


@dataclass(eq=False)
class Entry:
    """A cached prompt: its tokens, the spare sequence holding their KV, and when it was last used."""

    seq: int
    tokens: np.ndarray
    node: KvNode
    last_used: float = field(default_factory=time.monotonic)
    hits: int = 0


def common_prefix(a: np.ndarray, b: np.ndarray) -> int:
    n = min(len(a), len(b))
    if n == 0:
        return 0
    diff = np.flatnonzero(a[:n] != b[:n])
    return int(diff[0]) if len(diff) else n


class PrefixCache:
    """LRU of cached prompts in spare sequences, under a budget of KV cells held by the cache alone."""

    def __init__(self, seqs: list[int], budget_cells: int, ledger: KvLedger, mem_ops, n_swa: int,
                 swa_full: bool) -> None:
        self.free = list(seqs)
        self.budget = budget_cells
        self.ledger = ledger
        self.ops = mem_ops  # object with seq_cp(src, dst, p0, p1), seq_rm(seq), seq_pos_min(seq)
        self.n_swa = n_swa
        self.swa_full = swa_full
        self.entries: OrderedDict[int, Entry] = OrderedDict()
        self.swa_refusals = 0

    @property
    def enabled(self) -> bool:
        return bool(self.free or self.entries)

    def lookup(self, prompt: np.ndarray) -> tuple[Entry | None, int]:
        """The entry sharing the longest usable prefix with prompt and that length (< len(prompt))."""
        best, best_n = None, 0
        for e in self.entries.values():
            n = min(common_prefix(e.tokens, prompt), len(prompt) - 1)
            if n <= best_n:
                continue
            if not self._swa_ok(e, n):
                self.swa_refusals += 1
                continue
            best, best_n = e, n
        return best, best_n

    def _swa_ok(self, e: Entry, n: int) -> bool:
        """Continuing at position n needs SWA cells from n - n_swa + 1 on; a short SWA cache may lack them."""
        if self.n_swa <= 0 or self.swa_full:
            return True
        pos_min = self.ops.seq_pos_min(e.seq)
        return 0 <= pos_min <= max(0, n - self.n_swa + 1)

    def use(self, e: Entry, dst_seq: int, n: int) -> None:
        """Share the entry's first n cells with dst_seq."""
        self.ops.seq_cp(e.seq, dst_seq, 0, n)
        e.last_used = time.monotonic()
        e.hits += 1
        self.entries.move_to_end(e.seq)

    def insert(self, tokens: np.ndarray, src_seq: int, src_node: KvNode) -> Entry | None:
        """Cache a just-prefilled prompt (src_seq holds exactly its cells, nothing beyond)."""
        if not self.enabled or len(tokens) < 2:
            return None
        for e in list(self.entries.values()):
            n = common_prefix(e.tokens, tokens)
            if n == len(tokens):  # already covered by a longer or equal entry
                e.last_used = time.monotonic()
                self.entries.move_to_end(e.seq)
                return None
            if n == len(e.tokens):  # the new prompt extends this entry: it supersedes it
                self._evict(e)
        if not self.free:
            self._evict(next(iter(self.entries.values())))
        seq = self.free.pop()
        self.ops.seq_cp(src_seq, seq, 0, len(tokens))
        node = self.ledger.new(src_node, len(tokens))
        node.is_entry = True
        e = Entry(seq, tokens.copy(), node)
        self.entries[seq] = e
        self.enforce_budget()
        return self.entries.get(seq)

    def cache_only_cells(self) -> int:
        """Cells that only cached prefixes hold (freed if the whole cache were dropped)."""
        everything = self.ledger.cells()
        slots_only = self.ledger.cells(lambda n: n.alive and not n.is_entry)
        return everything - slots_only

    def enforce_budget(self) -> None:
        while self.entries and self.cache_only_cells() > self.budget:
            self._evict(next(iter(self.entries.values())))

    def evict_lru(self) -> bool:
        if not self.entries:
            return False
        self._evict(next(iter(self.entries.values())))
        return True

    def _evict(self, e: Entry) -> None:
        self.entries.pop(e.seq, None)
        self.ops.seq_rm(e.seq)
        self.ledger.kill(e.node)
        self.free.append(e.seq)

    def clear(self) -> None:
        for e in list(self.entries.values()):
            self._evict(e)
