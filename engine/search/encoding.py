"""Positions packed into records: the canonical 48-byte form the tables store, and the sweep's frames.

``encode_position`` writes a position as 64 six-bit symbols, cells sorted and columns in a canonical order,
so positions that differ only by the order of columns or cells are one record (docs/solvers.md, "Sound
pruning, and why", point 1).  ``decode_position`` reads it back.  The sweep stores its positions relative
to its root (``sweep_frame``, ``encode_frame``, ``decode_frame``): fewer bits, the same canonical form
(docs/solvers.md, "The sweep's records").
"""

from __future__ import annotations

import numba as nb
import numpy as np

from engine.search.leaf import leaf_kernel
from engine.search.moves import accepts
from engine.search.position_table import words_hash
from engine.search.positions import (
    BUILD_SUIT,
    MAXCELLS,
    MAXCOLS,
    NOCARD,
    O_CELL,
    O_FND,
    O_LEN,
    P_BUILD,
    P_NCELLS,
    P_NCOLS,
    P_RESERVE,
    P_WRAP,
    REC_SYMBOLS,
    REC_WORDS,
    SYM_CELLS_END,
    SYM_COLUMN_END,
    SYM_PAD,
    WIDTH,
)


@nb.njit(cache=True, inline="always")
def _chunk(w, g):
    """Symbols 8g..8g+7 of a packed record (48 bits: the record is 8 such chunks laid end to end in 6 words)."""
    b = (g >> 2) * 3
    r = g & 3
    m48 = np.uint64(0xFFFFFFFFFFFF)
    if r == 0:
        return w[b] & m48
    if r == 1:
        return ((w[b] >> np.uint64(48)) | (w[b + 1] << np.uint64(16))) & m48
    if r == 2:
        return ((w[b + 1] >> np.uint64(32)) | (w[b + 2] << np.uint64(32))) & m48
    return w[b + 2] >> np.uint64(16)


@nb.njit(cache=True, inline="always")
def _put6(w, acc, nbits, wi, sym):
    """Append one 6-bit symbol to a record's bit stream: acc holds the nbits (< 64) bits not yet written, which
    go to word w[wi] once it is full."""
    acc |= np.uint64(sym) << np.uint64(nbits)
    nbits += 6
    if nbits >= 64:
        w[wi] = acc
        wi += 1
        nbits -= 64
        acc = np.uint64(sym) >> np.uint64(6 - nbits)  # the symbol's bits that did not fit
    return acc, nbits, wi


@nb.njit(cache=True, inline="always")
def _sorted_cells(st, ncells, order, at):
    """The cards in st's cells, sorted (insertion sort: there are at most MAXCELLS) into order from ``at``;
    returns how many.  Both records list the cells this way: cells are interchangeable (point 2)."""
    m = 0
    for j in range(ncells):
        c = np.int64(st[O_CELL + j])
        if c == NOCARD:
            continue
        q = m
        while q > 0 and order[at + q - 1] > c:
            order[at + q] = order[at + q - 1]
            q -= 1
        order[at + q] = c
        m += 1
    return m


@nb.njit(cache=True, inline="always")
def _insert_by_deepest(st, order, at, m, i):
    """Insert column i among the m columns in order from ``at``, kept sorted by deepest card (one step of an
    insertion sort); returns m + 1.  Columns are interchangeable (point 2), so the records list them this way."""
    b = st[i * WIDTH]
    q = m
    while q > 0 and st[order[at + q - 1] * WIDTH] > b:
        order[at + q] = order[at + q - 1]
        q -= 1
    order[at + q] = i
    return m + 1


@nb.njit(cache=True, inline="always")
def encode_position(st, params, w, order):
    """Canonical packed form into the words w (REC_WORDS long).

    The symbols: the cells' cards sorted, SYM_CELLS_END, then the non-empty columns by deepest card, each
    followed by SYM_COLUMN_END, then SYM_PAD to REC_SYMBOLS; symbol k at bits 6k of the record (low bits
    first, little-endian words).  They go straight into the words through one 64-bit accumulator: writing a
    byte per symbol first and packing the bytes after took a third longer (Seahaven Towers deal 696's
    positions, with the hash: about 190 ns a position against 130-150; the whole solver's time moved less than
    the VM's noise).  A record holds at most 63 symbols, so the padding's last word is always written inside
    w.  The encoders and decoders take words, not bytes: numba's ``view`` is a call (its ``_change_dtype``:
    4.4% of perf's samples of the sweep on disk when each child took four, FreeCell with 6 columns deal 4934;
    without them the sweep took 10% less CPU).  order (MAXCOLS long) is scratch.
    """
    ncols = params[P_NCOLS]
    ncells = params[P_NCELLS]
    m = _sorted_cells(st, ncells, order, 0)
    acc = np.uint64(0)
    nbits = 0
    wi = 0
    for t in range(m):
        acc, nbits, wi = _put6(w, acc, nbits, wi, order[t])
    acc, nbits, wi = _put6(w, acc, nbits, wi, SYM_CELLS_END)
    m = 0
    for i in range(ncols):  # the non-empty columns, sorted by deepest card into order
        if st[O_LEN + i] != 0:
            m = _insert_by_deepest(st, order, 0, m, i)
    for t in range(m):
        i = order[t]
        base = i * WIDTH
        for p in range(np.int64(st[O_LEN + i])):
            acc, nbits, wi = _put6(w, acc, nbits, wi, st[base + p])
        acc, nbits, wi = _put6(w, acc, nbits, wi, SYM_COLUMN_END)
    ones = np.uint64(0xFFFFFFFFFFFFFFFF)  # SYM_PAD is all ones
    w[wi] = acc | (ones << np.uint64(nbits))
    wi += 1
    while wi < REC_WORDS:
        w[wi] = ones
        wi += 1


@nb.njit(cache=True, inline="always")
def _all_cards_up(st):
    """The decoders' start: no card in a cell or a column, every foundation full (each card decoded is then taken
    off its foundation: a suit's height is 13 less its cards present)."""
    for j in range(MAXCELLS):
        st[O_CELL + j] = NOCARD
    for i in range(MAXCOLS):
        st[O_LEN + i] = 0
    for s in range(4):
        st[O_FND + s] = 13


@leaf_kernel
def decode_position(w, params, st):
    """Rebuild a position from its canonical packed form (words; columns in canonical order).  A suit's
    foundation height is 13 less its cards present."""
    _all_cards_up(st)
    j = 0
    i = 0
    n = 0
    cells = True
    done = False
    for g in range(REC_SYMBOLS // 8):
        if done:
            break
        x = _chunk(w, g)
        for _ in range(8):
            c = np.int64(x & np.uint64(63))
            x >>= np.uint64(6)
            if c == SYM_PAD:
                done = True
                break
            if cells:
                if c == SYM_CELLS_END:
                    cells = False
                else:
                    st[O_CELL + j] = c
                    st[O_FND + c // 13] -= 1
                    j += 1
            elif c == SYM_COLUMN_END:
                st[O_LEN + i] = n
                i += 1
                n = 0
            else:
                st[i * WIDTH + n] = c
                st[O_FND + c // 13] -= 1
                n += 1


# --- the sweep's records: positions told relative to the sweep's root (docs/solvers.md, "The sweep's records")
# The frame (int64, FRAME_SIZE): the record's width in words and its fields' widths, then three card maps.
F_WORDS, F_KBITS, F_RUNBITS, F_CHOICEBITS, F_CELLBITS, F_COLBITS = range(6)
F_REFCOL = 8  # card -> the root's column it is the deepest card of, or -1
F_REFCELL = F_REFCOL + 52  # card -> the root's cell holding it, or -1 (where the cells are a reserve)
F_KID = F_REFCELL + 52  # 2 y + i: the i-th card (by number) that builds on card y, or -1
FRAME_SIZE = F_KID + 104
ORDER_SCRATCH = 3 * MAXCOLS  # the encoders' scratch: column order (and the frame's: root column, new columns, cells)


@nb.njit(cache=True, inline="always")
def _bits_for(m):
    """Bits to hold 0..m."""
    n = 0
    while (1 << n) <= m:
        n += 1
    return n


@nb.njit(cache=True)
def sweep_frame(root, rel, params, frame):
    """The frame of the sweep's records from its root (closed under safe moves) into ``frame``: which root
    column each card is the deepest card of, which reserve cell holds it, the cards that build on each card,
    and the width of every field, sized for the worst position, so the record has a fixed width
    (frame[F_WORDS] words, at most REC_WORDS: 3 in every game here, 2 in FreeCell's smallest).  Returns the
    most cards that build on one card (at most 2 in these games)."""
    ncols = params[P_NCOLS]
    ncells = params[P_NCELLS]
    for t in range(FRAME_SIZE):
        frame[t] = -1
    hmax = 0
    nref = 0
    for j in range(ncols):
        n = np.int64(root[O_LEN + j])
        if n > 0:
            frame[F_REFCOL + root[j * WIDTH]] = j
            hmax = max(hmax, n)
            nref += 1
    for j in range(ncells):
        c = root[O_CELL + j]
        if c != NOCARD:
            frame[F_REFCELL + c] = j
    most = 0
    for y in range(52):
        m = 0
        for x in range(52):
            if accepts(x, y, rel, params):
                if m < 2:
                    frame[F_KID + 2 * y + m] = x
                m += 1
        most = max(most, m)
    kbits = _bits_for(hmax)
    # a run above a root column's cards (or above a new column's deepest card) descends a rank a card from a
    # card of rank at most 12, or, with wrap, cycles one suit: at most 12 cards; with wrap in alternating
    # colours it may hold every other card
    runbits = 6 if params[P_WRAP] != 0 and params[P_BUILD] != BUILD_SUIT else 4
    choicebits = _bits_for(max(most - 1, 0))
    cellbits = _bits_for(ncells)
    colbits = _bits_for(ncols)
    cells = ncells if params[P_RESERVE] != 0 else cellbits + 6 * ncells
    bound = cells + nref * kbits + colbits + ncols * (6 + runbits) + 52 * choicebits
    frame[F_WORDS], frame[F_KBITS], frame[F_RUNBITS] = (bound + 63) // 64, kbits, runbits
    frame[F_CHOICEBITS], frame[F_CELLBITS], frame[F_COLBITS] = choicebits, cellbits, colbits
    return most


@nb.njit(cache=True, inline="always")
def _putb(w, acc, nbits, wi, val, nb):
    """Append the nb (at most 16) low bits of val to a record's bit stream (as _put6)."""
    acc |= np.uint64(val) << np.uint64(nbits)
    nbits += nb
    if nbits >= 64:
        w[wi] = acc
        wi += 1
        nbits -= 64
        acc = np.uint64(val) >> np.uint64(nb - nbits)  # the bits that did not fit
    return acc, nbits, wi


@nb.njit(cache=True, inline="always")
def _getb(w, pos, nb):
    """The nb (at most 16) bits of a record's bit stream from bit pos, and the position after them (no word is
    read for none: pos may then be the record's end)."""
    if nb == 0:
        return np.int64(0), pos
    i = pos >> 6
    off = pos & 63
    v = w[i] >> np.uint64(off)
    if off + nb > 64:
        v |= w[i + 1] << np.uint64(64 - off)
    return np.int64(v & np.uint64((1 << nb) - 1)), pos + nb


@nb.njit(cache=True, inline="always")
def _put_run(w, acc, nbits, wi, st, base, k, n, frame, cb):
    """The cards k..n-1 of a column (each builds on the one under it) as their choices among the cards that
    build on the card under them."""
    for p in range(k, n):
        y = np.int64(st[base + p - 1])
        acc, nbits, wi = _putb(w, acc, nbits, wi, 0 if frame[F_KID + 2 * y] == st[base + p] else 1, cb)
    return acc, nbits, wi


@nb.njit(cache=True, inline="always")
def encode_frame(st, ref, frame, params, w, order):
    """The sweep's record of position st (docs/solvers.md, "The sweep's records") into the first
    frame[F_WORDS] words of w, canonical: the cells (a reserve's as the root cells still held, others as a count
    and the cards sorted), then for each non-empty root column the number k of its cards still under the
    column that has its deepest card (0 if none has), the cards above them and each one's choice; then the
    number of other columns, and each of them, by deepest card: that card, the cards above it, their
    choices.  order (ORDER_SCRATCH long) is scratch."""
    ncols = params[P_NCOLS]
    ncells = params[P_NCELLS]
    kb, rb, cb = frame[F_KBITS], frame[F_RUNBITS], frame[F_CHOICEBITS]
    acc = np.uint64(0)
    nbits = 0
    wi = 0
    if params[P_RESERVE] != 0:
        mask = 0
        for j in range(ncells):
            c = st[O_CELL + j]
            if c != NOCARD:
                mask |= 1 << frame[F_REFCELL + c]
        acc, nbits, wi = _putb(w, acc, nbits, wi, mask, ncells)
    else:
        cs = 2 * MAXCOLS
        m = _sorted_cells(st, ncells, order, cs)
        acc, nbits, wi = _putb(w, acc, nbits, wi, m, frame[F_CELLBITS])
        for t in range(m):
            acc, nbits, wi = _putb(w, acc, nbits, wi, order[cs + t], 6)
    for j in range(ncols):
        order[j] = -1
    nnew = 0
    for i in range(ncols):  # each column: the root column it grew from, or a new one (sorted by deepest card)
        if st[O_LEN + i] == 0:
            continue
        b = st[i * WIDTH]
        j = frame[F_REFCOL + b]
        if j >= 0:
            order[j] = i
        else:
            nnew = _insert_by_deepest(st, order, MAXCOLS, nnew, i)
    for j in range(ncols):
        if ref[O_LEN + j] == 0:
            continue
        i = order[j]
        if i < 0:
            acc, nbits, wi = _putb(w, acc, nbits, wi, 0, kb)
            continue
        n = np.int64(st[O_LEN + i])
        base = i * WIDTH
        k = 1
        lim = min(n, np.int64(ref[O_LEN + j]))
        while k < lim and st[base + k] == ref[j * WIDTH + k]:
            k += 1
        acc, nbits, wi = _putb(w, acc, nbits, wi, k, kb)
        acc, nbits, wi = _putb(w, acc, nbits, wi, n - k, rb)
        acc, nbits, wi = _put_run(w, acc, nbits, wi, st, base, k, n, frame, cb)
    acc, nbits, wi = _putb(w, acc, nbits, wi, nnew, frame[F_COLBITS])
    for t in range(nnew):
        i = order[MAXCOLS + t]
        n = np.int64(st[O_LEN + i])
        base = i * WIDTH
        acc, nbits, wi = _putb(w, acc, nbits, wi, st[base], 6)
        acc, nbits, wi = _putb(w, acc, nbits, wi, n - 1, rb)
        acc, nbits, wi = _put_run(w, acc, nbits, wi, st, base, 1, n, frame, cb)
    nw = frame[F_WORDS]
    if wi < nw:
        w[wi] = acc
        wi += 1
    while wi < nw:
        w[wi] = 0
        wi += 1


@nb.njit(cache=True, inline="always")
def _get_run(w, pos, st, base, k, n, frame, cb):
    """Cards k..n-1 of a column from their choices (the inverse of _put_run); their foundations lose them."""
    y = np.int64(st[base + k - 1])
    for p in range(k, n):
        ch, pos = _getb(w, pos, cb)
        x = frame[F_KID + 2 * y + ch]
        st[base + p] = x
        st[O_FND + x // 13] -= 1
        y = x
    return pos


@leaf_kernel
def decode_frame(w, ref, frame, params, st):
    """Rebuild a position from its sweep record (columns: the root's in order, then the new ones by deepest
    card).  A suit's foundation height is 13 less its cards present."""
    ncols = params[P_NCOLS]
    ncells = params[P_NCELLS]
    kb, rb, cb = frame[F_KBITS], frame[F_RUNBITS], frame[F_CHOICEBITS]
    _all_cards_up(st)
    pos = 0
    if params[P_RESERVE] != 0:
        mask, pos = _getb(w, pos, ncells)
        for j in range(ncells):
            if (mask >> j) & 1:
                c = ref[O_CELL + j]
                st[O_CELL + j] = c
                st[O_FND + c // 13] -= 1
    else:
        m, pos = _getb(w, pos, frame[F_CELLBITS])
        for j in range(m):
            c, pos = _getb(w, pos, 6)
            st[O_CELL + j] = c
            st[O_FND + c // 13] -= 1
    i = 0
    for j in range(ncols):
        if ref[O_LEN + j] == 0:
            continue
        k, pos = _getb(w, pos, kb)
        if k == 0:
            continue
        base = i * WIDTH
        for p in range(k):
            c = ref[j * WIDTH + p]
            st[base + p] = c
            st[O_FND + c // 13] -= 1
        n, pos = _getb(w, pos, rb)
        pos = _get_run(w, pos, st, base, k, k + n, frame, cb)
        st[O_LEN + i] = k + n
        i += 1
    nnew, pos = _getb(w, pos, frame[F_COLBITS])
    for _ in range(nnew):
        base = i * WIDTH
        c, pos = _getb(w, pos, 6)
        st[base] = c
        st[O_FND + c // 13] -= 1
        n, pos = _getb(w, pos, rb)
        pos = _get_run(w, pos, st, base, 1, 1 + n, frame, cb)
        st[O_LEN + i] = 1 + n
        i += 1


@nb.njit(cache=True, inline="always")
def encode_record(st, params, w, order, ref, frame):
    """A position's record and its hash: the sweep's (frame non-empty) or the 48-byte canonical form."""
    if frame.shape[0] > 0:
        encode_frame(st, ref, frame, params, w, order)
        return words_hash(w, frame[F_WORDS])
    encode_position(st, params, w, order)
    return words_hash(w, REC_WORDS)
