"""A long policy document grown from distinct sections: each section names its own member organisation and
carries its own values, so no two sections share text and every fact is unique (never the same text repeated)."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

PLACES = ("Alder", "Birch", "Cedar", "Dover", "Elm", "Fairfax", "Granite", "Harbor", "Iron", "Juniper", "Kestrel",
          "Linden", "Maple", "Northgate", "Oakridge", "Pinecrest", "Quarry", "Redwood", "Silver", "Thornbury",
          "Upland", "Valley", "Willow", "Yarrow", "Zephyr", "Ashford", "Bramble", "Coral", "Drift", "Ember")
KINDS = ("Mutual", "Cooperative", "Holdings", "Logistics", "Foundation", "Partners", "Clinics", "Freight",
         "Analytics", "Textiles", "Foods", "Robotics", "Pharma", "Energy", "Studios", "Marine", "Optics", "Dairy",
         "Aviation", "Ceramics", "Insurance", "Brewing", "Forestry", "Printing")
TOPICS = ("Lodging", "Meals", "Ground transportation", "Airfare", "Expense reports", "Payment", "Cash advances",
          "Relocation", "Training", "Equipment")

# One clause per topic; {e} is the member, the other fields are its values (drawn per section).
CLAUSES = {
    "Lodging": "Hotel costs for {e} staff are reimbursed up to ${a} per night in standard cities and ${b} per "
               "night in high-cost cities. Stays longer than {n} nights in one city require approval from Finance.",
    "Meals": "The daily meal allowance for {e} staff is ${a} for domestic travel and ${b} for international "
             "travel. Tips are reimbursable up to {p}% of the meal cost.",
    "Ground transportation": "{e} employees using a personal vehicle are reimbursed at ${c} per mile. Parking "
                             "is reimbursed up to ${a} per day, and single taxi rides are capped at ${b}.",
    "Airfare": "Economy class is required for {e} flights shorter than {n} hours. Change fees above ${a} per "
               "ticket need a director's approval.",
    "Expense reports": "{e} expense reports must be submitted within {n} days after the trip ends. Itemised "
                       "receipts are required for any single expense of ${a} or more.",
    "Payment": "Approved {e} expenses are reimbursed within {n} business days of approval. Corporate card "
               "balances above ${a} must be reconciled within {m} days of the statement date.",
    "Cash advances": "Cash advances for {e} are limited to {p}% of estimated trip costs and must be reconciled "
                     "within {n} days of return.",
    "Relocation": "A relocating {e} employee receives a lump sum of ${a} and temporary housing for up to {n} "
                  "days.",
    "Training": "Each {e} employee may claim up to ${a} per year for external courses, and up to {n} paid study "
                "days.",
    "Equipment": "{e} staff working from home are reimbursed up to ${a} for a desk and chair, once every {n} "
                 "years.",
}


@dataclass(frozen=True)
class Planted:
    """The fact a long-document question asks for: the question, the value it must state, where it stands."""

    question: str
    value: str
    offset: int
    member: str
    section_values: tuple[str, ...]   # every value of the planted fact's section (an answer may state no other)


def members() -> list[str]:
    """Every member name, in a fixed shuffled order (720 distinct names)."""
    names = [f"{p} {k}" for p in PLACES for k in KINDS]
    random.Random(13).shuffle(names)
    return names


class _Values(dict):
    """A section's values, drawn as its clauses name them; money and rates never repeat an earlier section's,
    so every fact of the document is unique."""

    def __init__(self, rng: random.Random, used: set[str], **given) -> None:
        super().__init__(given)
        self.rng, self.used = rng, used

    def __missing__(self, key: str) -> str:
        rng = self.rng
        while True:
            if key in "ab":
                v = f"{rng.randint(20, 9999):,}"
            elif key == "c":
                v = f"{rng.randint(300, 999) / 1000:.3f}"
            else:
                v = str(rng.randint(2, 90) if key == "n" else rng.randint(10, 120) if key == "m" else rng.randint(5, 95))
                break
            if v not in self.used:
                self.used.add(v)
                break
        self[key] = v
        return v


def section(i: int, member: str, rng: random.Random, used: set[str], first: str = "") -> str:
    """Section i: a heading naming the member and three of the topic clauses, with values of its own (first:
    a clause to open it with instead of a drawn one)."""
    topics = rng.sample([t for t in TOPICS if t != "Meals"] if first else TOPICS, 2 if first else 3)
    body = " ".join(([first] if first else []) + [CLAUSES[t].format_map(_Values(rng, used, e=member)) for t in topics])
    topics = (["Meals"] if first else []) + topics
    return f"{i}. {member}: {', '.join(topics).lower()}\n{body}\n"


def grow(chars: int, seed: int = 0) -> tuple[str, Planted]:
    """A policy of about `chars` characters (whole sections; at least two), and the planted fact about
    two-thirds of the way in: a domestic meal allowance stated nowhere else."""
    names = members()
    rng = random.Random(seed)
    used: set[str] = set()
    head = ("Consolidated Travel and Expense Policy for Member Organisations\n"
            "Policy FIN-90, effective January 1, 2025\n\n")
    parts = [head]
    size = len(head)
    i = 0
    while size < chars or i < 2:
        if i >= len(names):
            raise ValueError(f"{chars} characters need more than {len(names)} distinct members")
        text = section(i + 1, names[i], rng, used)
        parts.append(text)
        size += len(text)
        i += 1
    target = max(1, (2 * i) // 3)          # the section two-thirds of the way in
    member = names[target]
    value = "7,001"
    while value in used:
        value = f"{int(value.replace(',', '')) + 1:,}"
    used.add(value)
    # the section's Meals clause, as every other section words it, with the asked value planted in it
    meals = CLAUSES["Meals"].format_map(_Values(rng, used, e=member, a=value))
    parts[target + 1] = section(target + 1, member, rng, used, first=meals)
    text = "".join(parts)
    question = f"What is the daily meal allowance for domestic travel at {member}?"
    values = tuple(re.findall(r"\$?\d[\d,]*(?:\.\d+)?%?", parts[target + 1].split("\n", 1)[1]))
    return text, Planted(question, value, text.index(f"${value}"), member, values)
