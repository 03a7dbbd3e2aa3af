"""Seeded deals, deals files and Microsoft's numbered deals (DESIGN section 3).

A deal is fixed by (deck, seed, index) alone: the generator is a counter-based
SplitMix64 stream per index, so any batch of indices can be produced anywhere
(any worker, any batch size) and gives the same cards.
"""

from __future__ import annotations

from pathlib import Path

import numba as nb
import numpy as np

from engine.cards import CardError, format_card, parse_card

U64_MAX = (1 << 64) - 1

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)


@nb.njit(cache=True, inline="always")
def mix(z):
    """SplitMix64's finaliser (DESIGN section 3): a bijection of 64-bit words that scatters every bit."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@nb.njit(cache=True)
def _seeded_deals(deck, seed, first_index, count):
    n = deck.shape[0]
    out = np.empty((count, n), dtype=np.uint8)
    base = mix(seed + _GOLDEN)
    for k in range(count):
        x = base ^ (first_index + np.uint64(k))
        row = out[k]
        for i in range(n):
            row[i] = deck[i]
        for i in range(n - 1, 0, -1):
            b = np.uint64(i + 1)
            t = (_ZERO - b) % b
            while True:
                x = x + _GOLDEN
                r = mix(x)
                if r >= t:
                    break
            j = r % b
            tmp = row[i]
            row[i] = row[j]
            row[j] = tmp
    return out


def read_only_uint8(a: np.ndarray) -> np.ndarray:
    """A read-only C-contiguous uint8 view: kernels see one array type, so compile one signature."""
    a = np.ascontiguousarray(a, dtype=np.uint8)
    if a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a


def check_u64(name: str, value: int) -> int:
    value = int(value)
    if not 0 <= value <= U64_MAX:
        raise ValueError(f"{name} {value} is outside 0..2^64-1")
    return value


def seeded_deals(deck: np.ndarray, seed: int, first_index: int, count: int) -> np.ndarray:
    """Deals ``first_index .. first_index+count-1`` of ``seed`` over ``deck``: uint8[count, len(deck)]."""
    seed = check_u64("seed", seed)
    first_index = check_u64("index", first_index)
    if count < 0 or first_index + max(count - 1, 0) > U64_MAX:
        raise ValueError(f"count {count} is out of range for first index {first_index}")
    return _seeded_deals(read_only_uint8(deck), np.uint64(seed), np.uint64(first_index), np.int64(count))


def batch_of_deals(decks: np.ndarray, ncards: int) -> np.ndarray:
    """``decks`` as the read-only uint8[n, ncards] array every batch kernel takes; ValueError otherwise."""
    decks = read_only_uint8(decks)
    if decks.ndim != 2 or decks.shape[1] != ncards:
        raise ValueError(f"decks must be uint8[n, {ncards}], got shape {decks.shape}")
    return decks


def seeded_deal(deck: np.ndarray, seed: int, index: int) -> np.ndarray:
    """One seeded deal as uint8[len(deck)]."""
    return seeded_deals(deck, seed, index, 1)[0]


# --- deals given as card text -------------------------------------------------


class DealError(ValueError):
    """A deal (from a file or the command line) that is not a valid deal of the game's deck."""


def parse_deal(text: str, deck: np.ndarray, where: str = "deal") -> np.ndarray:
    """Parse one deal in card text, checking it is a permutation of ``deck``."""
    tokens = text.split()
    codes = []
    for tok in tokens:
        try:
            codes.append(parse_card(tok))
        except CardError as exc:
            raise DealError(f"{where}: {exc}") from None
    allowed = set(int(c) for c in deck)
    seen: set[int] = set()
    for tok, c in zip(tokens, codes, strict=True):
        if c not in allowed:
            raise DealError(f"{where}: card {tok} is not in this game's {len(deck)}-card deck")
        if c in seen:
            raise DealError(f"{where}: card {format_card(c)} appears twice")
        seen.add(c)
    if len(codes) != len(deck):
        raise DealError(f"{where}: {len(codes)} cards, but a deal of this game has {len(deck)}")
    return np.array(codes, dtype=np.uint8)


def read_deals_file(path: str | Path, deck: np.ndarray) -> np.ndarray:
    """Read a deals file: one deal per line; blank lines and ``#`` lines are skipped.

    The deal index is the 0-based position among the deal lines.  Errors name
    the file and the 1-based line number.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DealError(f"{path}: no such deals file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DealError(f"{path}: cannot read deals file ({exc})") from None
    rows = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        rows.append(parse_deal(s, deck, where=f"{path}, line {lineno}"))
    if not rows:
        raise DealError(f"{path}: the deals file holds no deals")
    return np.stack(rows)


# --- Microsoft FreeCell numbering -------------------------------------------


def microsoft_deal(number: int) -> np.ndarray:
    """Microsoft FreeCell deal ``number`` (1..2^31-1) as uint8[52], first card dealt first.

    Microsoft's cards are numbered ``c = 4*rank + suit`` (suits C D H S), ours
    ``13*suit + rank``; the deal order is the order the cards are dealt, which
    for FreeCell goes to column ``k mod 8``.
    """
    if not 1 <= number < 2**31:
        raise ValueError(f"Microsoft deal number {number} is outside 1..2147483647")
    state = number
    cards = list(range(52))
    out = np.empty(52, dtype=np.uint8)
    for i in range(52):
        state = (state * 214013 + 2531011) % 2**31
        j = (state >> 16) % (52 - i)
        c = cards[j]
        out[i] = (c % 4) * 13 + c // 4
        cards[j] = cards[51 - i]
    return out


def number_ranges(text: str) -> list[tuple[int, int]]:
    """Parse ``"1-1000,11982"`` into sorted, disjoint, inclusive ranges ``[(1, 1000), (11982, 11982)]``.

    Nothing is expanded, so a caller can check the bounds and the count of ``"1-2147483647"`` first.
    """
    spans: list[tuple[int, int]] = []
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            raise ValueError(f"empty item in {text!r}")
        if "-" in part:
            lo_s, hi_s = part.split("-", 1)
            lo, hi = int(lo_s), int(hi_s)
            if lo > hi:
                raise ValueError(f"range {part!r} runs backwards")
        else:
            lo = hi = int(part)
        spans.append((lo, hi))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for lo, hi in spans:
        if merged and lo <= merged[-1][1] + 1:  # overlapping or adjacent: one range
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def count_numbers(ranges: list[tuple[int, int]]) -> int:
    """How many numbers the ranges of :func:`number_ranges` hold."""
    return sum(hi - lo + 1 for lo, hi in ranges)


MAX_LISTED_NUMBERS = 10_000_000  # a list of 10^7 Python ints is about 400 MB: more is refused, never built


def parse_number_ranges(text: str, limit: int = MAX_LISTED_NUMBERS) -> list[int]:
    """Parse ``"1-1000,11982"`` into a sorted list of distinct numbers; ValueError beyond ``limit`` of them."""
    ranges = number_ranges(text)
    count = count_numbers(ranges)
    if count > limit:
        raise ValueError(f"{text[:40]!r} holds {count:,} numbers, more than {limit:,}")
    return [n for lo, hi in ranges for n in range(lo, hi + 1)]
