"""The exact solver shared by the open solitaires: Penguin, Baker's Game, FreeCell, Eight Off, Seahaven Towers.

Every card is face up from the start, so "can this deal be won?" has an exact
answer.  The solver is a greedy best-first search over *positions* (tableau and
cells; the foundations follow from which cards are missing) with a
transposition table that stores every position it has seen, in full, in a
canonical form.  It answers

* ``won``        -- with a solution, which the caller replays through the
                    independent checker in ``engine/reference/open_solitaire.py``;
* ``unsolvable`` -- only when every position reachable from the deal has been
                    stored and expanded (the search is exhaustive), and the
                    pruning is sound (see below);
* ``unknown``    -- when the table would have to hold more than ``max_nodes``
                    positions (the sweep: see below), or (``max_seconds``,
                    off by default) when the deal has used that many CPU
                    seconds.

The search (issue 11).
* Two orders, one table.  Positions wait in a heap ordered by the guide
  (``_heuristic``: lower is more promising).  Once SECOND_AT positions are
  stored and the deal is still open, a second heap starts, holding every
  position not yet expanded; from then on the two heaps take turns, one
  expansion each.  A position sits in both heaps but is expanded once, at its
  first pop (a flag in its move word); a pop of an expanded one is skipped.
  Exhaustiveness is untouched: every stored position is pushed into the first
  heap when stored, ``unsolvable`` needs both heaps empty, so every stored
  position has been expanded and each of its children stored.  The orders
  only decide which win is found first, and how soon.
* The second order is for the deals the guide misjudges: a guide that
  stalls keeps expanding small variations of one family of positions.  It
  ranks a position first by *novelty* (as in width-based planning, Lipovetzky
  and Geffner's IW and best-first width search): its atoms are the pairs
  (card, what lies directly under it: a card, the column's floor, or a
  cell), and a position is novel when it holds an atom that no position
  keyed before it held with as many cards on the foundations (``_novel``).
  Then by the most cards up, then by the guide.  Novel positions are few
  (at most 52 x 54 per count of cards up), so the second heap walks through
  the different arrangements before it returns to refining one.  Measured
  (seed 99, 1,000 deals, 10^7 positions): FreeCell 2 cells 785 / 214 / 1
  unknown in 41.0 M expansions against 783 / 214 / 3 in 71.1 M with the
  deepest-first second order it replaced; 3 cells 990 / 9 / 1 in 25.6 M
  against 989 / 9 / 2 in 44.3 M; 1 cell unchanged (212 / 787 / 1, 52.0 M
  against 48.9 M).  The atoms' stamps (``Workspace.seen``, 300 KB) carry the
  deal's number, so they are reused between deals without clearing.
* The retry (out of the default order since the line search below, which
  wins every deal it was kept for, replaced it; it is still the probe's
  search, and a search the solver can make).  It came after the streamlined
  search below, which wins most of the
  deals it wins, sooner, most within its probe; but not all: Raglan, seed
  99 deal 557, is left unknown by the guide and the streamlined search at
  5 x 10^6 positions, and won by the single-card retry in 4.6 M expansions.
  A deal the first searches leave unknown (max_nodes stored, a
  new position found) is searched once more from the start, with a fresh
  table and half the budget (max_nodes // RETRY_SHARE: since the
  streamlined search comes first, the retries win few deals, and the most
  one was measured to need is 557's 4.6 M; an unknown deal pays for them),
  depth first: the deepest position first,
  siblings by the kind of move that made them (``_move_kind``: to a
  foundation, out of a cell, onto a card, into an empty column, into a cell,
  a foundation card played back), then the newest.  This is the order of
  Solvitaire and of fc-solve's soft DFS: it follows one line to the end
  where the guide spreads its budget over many, and it wins deals the guide
  misjudges.  Its verdicts rest on the same exhaustiveness (every position
  it reaches is stored, and it answers unsolvable only with its heap empty),
  so a verdict is sound whichever search gives it.  Decided deals never see
  it; an unknown costs at most twice as much, plus the budgets of
  the streamlined search and the sweep (see below).  ``nodes``
  counts the expansions of every search, ``max_seconds`` bounds them
  together.
* The retry moves single cards.  Where runs are shorthand for single-card
  moves (``limited``: see "Sequence moves"; not ``unlimited``, whose runs
  single cards cannot always make), the retry generates single-card moves
  only (the ``P_SINGLE`` switch that King Albert's ``card`` rule uses).  The
  positions reachable are the same either way: a run move is a chain of
  single-card moves through positions that single cards reach, and a single
  card is a run of one; so an exhaustive retry stores the same set (measured:
  the same expansions, deal for deal, on the unsolvable deals of FreeCell
  with 2 and 3 cells, seed 99) and only the order within it changes.  Depth
  first, that order is much better (a guess at why, not measured: a run
  move jumps over the positions in which its parked cards could be used
  elsewhere, so the line it follows never tries them).  Measured (seed 99, FreeCell): deal 220 with 3 cells, unknown
  after both searches with run moves (8.6 M expansions; 9.1 M for a
  depth-first search that also sends every ready card up, as Solvitaire's
  streamliner does), is won in 7,912 expansions, and Solvitaire's own
  depth-first search (single cards, its auto-foundation streamliner) wins it
  in 1.2 M states; 1 cell deal 948 in 218,777 (depth first with runs: about
  2 x 10^6), 6 columns deals 54 and 247 in 122,411 and 9,811.  As the first
  search it would be poor (3 cells, 1,000 deals at 2 x 10^6 positions: 904
  won and 87 unknown, where the guide leaves 1 unknown), so it stays the
  retry.  Its lines are long (1,107 codes for deal 220; 9,609 for 6
  columns deal 54): a depth-first line keeps its detours, which are cut out
  before it is reported (see "Short lines").  It is not better
  on every deal: FreeCell with 7 columns deal 494 (seed 99), which the
  depth-first search with runs wins after the guide's 10^7 positions (5.6 M
  expansions of its own), stays unknown with single cards.  So a deal both
  leave unknown gets a third search, depth first with runs; where the two
  would be the same search (King Albert's one-card rule, ``unlimited``
  runs) it is not made again.
* The probe.  The retry's search is also run early, briefly, for the deals
  the guide finds hard: once the guide's search has made PROBE_AT = 50,000
  expansions and the deal is still open, a depth-first search with single
  cards starts from the deal in tables of its own (``Workspace.probe``) and
  gets PROBE_NODES = 20,000 expansions; if it decides the deal (a win, or
  its heap empty) that is the answer, else the guide's search goes on where
  it stopped, its tables untouched.  The probe's verdict is an exhaustive
  search's like the others', so nothing about soundness changes; a deal
  decided within 50,000 expansions (the median 3-cell deal takes a few
  hundred) never sees it, and any other pays at most 20,000 expansions for
  it.  The pair was chosen from per-deal counts of the two searches on
  FreeCell seed 99 (3 and 2 cells, 1,000 deals each: probing after 20,000 to
  200,000 guide expansions with 10,000 to 50,000 of its own, simulated from
  the measured counts): with 3 cells it wins deals such as 220 (57,912
  expansions in all, unknown after 8.6 M before) and 51 (68,504 against
  3.4 M), about 0.65x the expansions of the guide with the retry alone;
  with 2 cells about 0.94x.  ``nodes`` counts its expansions too.
* The streamlined search.  Solvitaire (Blake and Gent) first searches every
  deal with two *streamliners*, pruning that is not sound but finds wins
  fast, and only then exactly; on the deals our three searches left
  unknown it often won in seconds.  So does ours, built the same way
  (``_dfs``): depth first, one line at a time, the moves of a position tried
  by kind as in the retry; a position enters the table when the line first
  reaches it (``_search`` stores every child when its parent is expanded,
  so a position met again deeper in the line is not followed there); and
  two streamliners: every ready card goes up at once (``P_EAGER``), and the
  table tells positions apart by the colour and rank of their cards only
  (``P_SUITS``, ``_by_colour``: the 5 of hearts and the 5 of diamonds are
  the same card to it, and the foundations are left out; only where cards
  build in alternating colours, as in Solvitaire).  Neither is sound
  (a deal may need a card kept down to hold another, and two positions with
  the same colours and ranks need not both be won), so a win counts (its
  line is real: every code is a legal move, replayed by the checker like
  any other) and running out of positions proves nothing: the solver then
  goes on as if it had not run (``_decided``).  With both streamliners off
  the same kernel is an exhaustive search like the others (a test holds it
  to the plain exhaustive search).  It runs twice: as a probe, once the
  guide has made STREAM_AT = 10,000 expansions, with STREAM_NODES = 100,000
  of its own in the probe's tables (a win ends the deal; else the guide goes
  on where it stopped; only where cards build in alternating colours: in
  suit it has no colour symmetry, and with it Baker's Game's 1,000 deals of
  seed 99 took 1.32x the expansions), and after the guide, as the second
  search, with
  max_nodes // STREAMLINED_SHARE = 5 x 10^6 positions at the defaults.
  Measured, seed 99: FreeCell with 3 cells, 1,000 deals, per-deal counts of
  the solver before it and of the streamlined search alone: it wins 986 of
  the 991 won deals alone (each within 387,585 positions; the other five it
  runs out on, and the guide wins them in a few thousand expansions), and
  128 of the 136 deals the guide had not decided after 10,000 expansions
  within 100,000, so the probe pair (10,000, 100,000) was chosen from those
  counts (0.39x the CPU of the solver before it, simulated); deal 2311,
  unknown after 2.7 x 10^7 expansions of three searches, is won in 1,574.
  FreeCell with 2 cells, the 12 unknowns of 10,000 deals: 8 won in 13,556 to
  810,073 positions (0.1 to 4 CPU-s; Solvitaire, smart-solvability, 300 s a
  deal, wins the same eight in its streamlined pass); the other four
  (230, 6689, 7344, 9363) run out of positions within 140,000.  Of those,
  Solvitaire's exact search wins 9363 (12.3 M states, its line 1.2 M moves
  deep) and runs out of its 300 s on 230, 6689 and 7344; ours, the same
  kernel with both streamliners off in its own move order (its line allowed
  2^21 deep, 16 x DFS_DEPTH), fills that line after 2.0 x 10^7 positions,
  unwon (the line search below wins it).  6 columns 518, King Albert 761 and
  Raglan 489, each unknown after every other search, are won in 216,565,
  134,578 and 8,473.
* The colour search (``ORDER_COLOURS``): the streamlined search's kernel
  once more, from the start, with the colour streamliner alone (``P_SUITS``;
  ``P_EAGER`` off, so a card goes up only by a safe move or a move of its
  own), with as many positions (max_nodes // STREAMLINED_SHARE); the third
  search, only where cards build in alternating colours (elsewhere it would
  be a plain depth-first search, and the line search is one).  Why: sending
  every ready card up at once loses the deals won only by keeping a card
  down, to hold a card of the other colour on it.  Measured (seed 99), each
  deal unknown through every other search at the defaults and undecided by
  Solvitaire's exact search at 300 s: FreeCell with 6 columns 9006 and
  1058, 2 cells 6689, 1 cell 3787 and 8313 are won by it alone in 417,544,
  152,046, 320,155, 512,445 and 133,101 positions (0.2-1.1 CPU-s), where
  the streamlined search runs out of positions unwon (9006 in 384,819,
  1058 in 213,683), and so does the eager streamliner alone (in 4,972,575
  and 931,393).  On the six unknowns left (2 cells 230; 6 columns 2478,
  3499, 4627, 4934, 8021: all unsolvable, proved by the sweep on disk) it
  runs out in 57,637 to 723,103 positions (0.1-1.5 CPU-s).  Its verdicts
  are the streamlined search's: a win is a real line, replayed by the
  checker, and running out proves nothing (``_decided``); the searches
  after it start afresh, so a deal it leaves unknown gets exactly what it
  got before, and one decided before it never sees it.
* The line search (``P_LINE``): the same kernel with no streamliner, so
  exhaustive like the others, in Solvitaire's own order of moves; the next
  search, with room for LINE_ROOM x max_nodes positions (a game may set its
  own, ``SolverRules.line_room``), for the deals the
  guide, the streamlined search and the colour search leave unknown; before it starts, the
  workspace gives back what the searches before touched
  (``Workspace.release``).  Solvitaire's exact
  search (``--streamliners none``, 300 s a deal) wins FreeCell with 2 cells
  deal 9363 (seed 99) in 12.3 M states, its line 1.2 M moves deep, and 6
  columns deal 451 in 22.6 M, where every search above and the sweep (3 x
  10^8 positions in all) had stayed unknown, and the same kernel in our
  order of moves was unwon at 6 x 10^7: which deals a depth-first search
  wins within a budget turns on its order of moves.  So this one takes
  Solvitaire's (``_line_rank``, after game_state.legal_moves.cpp): it tries
  the move generated last first, and generates a column's card to a cell,
  a foundation card played back, a reserve card to a column, column to
  column (by source column, then target), a cell's card to a column (by
  cell, then target), and last the moves to a foundation; columns taken longest first, then by their cards
  from the bottom, the higher first, cells by their card, the higher first
  (``_pile_above``, ``_cell_above``: Solvitaire keeps its piles in that
  order).  Measured (seed 99): 9363 won in 12,967,091 positions, its line
  1,314,987 moves deep; 451 in 22,447,989 (which a room of 3 x max_nodes
  holds at the default; 2 held it from 1.2 x 10^7), and 6 columns 7621,
  unknown through every search with that room, and won by Solvitaire's
  exact search in 33.9 M unique states, in 33,868,837 positions (56 CPU-s, 2,300
  MiB): so the room is now 5 x max_nodes, as King Albert's was already, the
  most whose 48-byte records and 512 MiB table (BIG_TABLE) stay well within
  4 GiB (6 columns 8021, which fills it: 3,235 MiB, 143 CPU-s, the line
  search alone); Raglan 557, which the retry was kept for, in
  7,672,321 (the retry's 4.6 M), and 7 columns 494 in 21,285.  Its line is
  kept as 48-byte records (``_encode``), decoded as the line comes back to
  them, rather than as 664-byte positions: 2^22 moves deep cost 200 MB, not
  2.8 GB, mapped and touched only as deep as a line goes; each position is
  decoded before its moves are made, so they refer to the canonical order of
  columns it is decoded in again.
  It leaves out, as Solvitaire does, moves that only undo the last one: the
  card just moved is not sent to a cell or a foundation next, and a card
  just put in a cell does not leave it next; only when no safe move followed
  the last move (ours are folded into it).  Claim: the positions this search
  stores are still closed under every move (so point 3d applies and its
  "unsolvable" is sound).  Proof: let Q be reached from P by moving card x
  with no safe move after it, and R = Q + a left-out move of x (to a cell or
  a foundation, or out of the cell it entered, to anywhere).  Go back along
  the line from Q to the last position S not reached by moving x with no
  safe move after it (the root at the latest): every move from S to Q moved
  x alone, so the cards other than x lie in S, Q and R alike (before R's
  safe moves), and S leaves out no move of x.  Moving x straight from where
  it lies in S to where it lies in R is a move of S, or R is S: to a cell,
  one is free in S unless x lay in one, and then R is S; to a foundation, x
  is next in S as in Q; to a column, its top card is the same in S, or x lay
  on it in S and R is S (into an empty column likewise).  That move and R's
  make the same position, and then the same safe moves.  S was expanded
  (the line passed through it) and every move it keeps was tried before the
  line left it: R is stored.  The moves left out are those of a
  single card (a run's head is not the top card of its column), as in
  Solvitaire's FreeCell, which moves single cards.  Tested against the
  plain exhaustive search as the only search, on the cross-check's
  positions and FreeCell's own (a pruning that left out every move out of a
  cell after any quiet move failed it).
* The long guide (``ORDER_LONG_GUIDE``).  A deal the line search leaves
  unknown is searched by the guide once more, from the start, in room of
  its own (``Workspace.release``, then ``reserve`` at the new budget) for
  GUIDE_ROOM x max_nodes positions, and with a fresh stamp for its second
  order's atoms, so it makes position for position the search the guide
  would have made with that budget (a test holds the two to the same
  expansions).  It is the guide's kernel, so its verdicts are the guide's:
  a win is replayed by the checker, ``unsolvable`` only with both heaps
  empty.  Why again, and why before the sweep: a deal's win may lie a
  little past the guide's first room, and the sweep's order (fewest cards
  up first) is the opposite of a win finder's.  FreeCell with 6 columns
  deal 3419 (seed 99), unknown after every search and after the sweep's
  2.9 x 10^8 expansions, is won by the guide in 16.2 M expansions (133
  CPU-s), and King Albert deal 1856, unknown after every search, by the
  long guide in 28 CPU-s of its own.  A deal it cannot decide pays up to
  GUIDE_ROOM x max_nodes expansions more (FreeCell with 1 cell deal 3787:
  404 CPU-s through every search before, 528 with it); one it wins no
  longer pays the sweep's.
  Memory: its 48-byte records, 24 bytes of links and heaps, and a table at
  most half full: 3 x 10^7 positions in under 3 GiB.
* Short lines.  A win found depth first comes with the detours of the line
  that found it (deal 220 above: 1,107 codes, safe moves included).  Its
  line is cut short before it is reported (``_shortcut``): the positions of
  the line are stored in a table of their own; from each position of the
  line that has no safe move pending, every move is tried, with its safe
  moves, and where one reaches a position further along the line (the same
  up to the order of columns and cells) in fewer codes than the line takes,
  the line jumps there; else it follows its next code.  Every code names
  cards (head, target), so the rest of the line plays on from the position
  reached; each jump is a legal move and the checker replays the result
  like any other line, and the result is never longer.  Measured: deal 220
  1,107 codes to 458, 3 cells deal 51 3,997 to 595, 6 columns deal 247
  5,165 to 515; a few milliseconds a line.  The guide's lines are left as
  they are (on 200 FreeCell deals the same pass shortened them by 4% and
  cost 4% of the solving time; Penguin's not at all).
* The sweep.  A deal that every other search leaves unknown is searched a
  last time, exhaustively, by *layers* that no move can go back to.  Call a
  card blocked when it lies in a column on a card it could not be built on
  (so, from the deal: nothing ever makes a new one), and call the cards up
  *kept*: all of them, or under worrying back those of rank at most m + 1,
  m the lowest foundation's height.  Claim: along any move the search makes,
  with its safe moves, the kept cards never fall, and when they stay the
  same the set of blocked cards can only shrink.  Proof: every card that
  moves is put onto a card it builds on, into an empty column, into a cell,
  or up, so no new card is blocked; a blocked card x stays blocked until x
  itself moves, since the card under it cannot move while x lies on it.
  Foundations only grow, and so does m, except that under worrying back a
  foundation's top card may be played back; the search never plays back a
  card of rank at most m + 1 (point 3b's condition holds for it, so the
  closure would send it straight back up: see _gen_worry_moves), so a card
  played back has rank at least m + 2, m stays, and no kept card leaves.  So
  with u the kept cards up and S the set of cards *not* blocked, u and |S|
  never fall, and when u + |S| stays, both stay, and so does S (a superset
  of the same size).  The layer key (``_sweep_layer``: (u + |S|) x 2^52,
  plus S as 52 bits) therefore never falls, and two positions with the same
  key have the same u and S: one layer.  The sweep expands the positions in
  order of layer (a heap of record numbers keyed by layer, 4 bytes an
  entry), and within a layer breadth first (a ring of record numbers: level
  0 is the positions that entered the layer from below, all stored before
  it begins; level d + 1 those first met from level d).  Once the layer's
  queue is empty, every position expanded so far is in
  a finished layer, and no position stored from then on can be in it (it
  would be the child of a position of that layer or lower, all expanded):
  those records are freed, to a free list threaded through them, and the
  table is stamped anew with the rest (a fresh generation, ``_reinsert``).
  Freeing is a pass over the records, so it is made when the finished
  records are at least half the live ones, or when a new position needs
  their room.  Duplicates are still found exactly among every position that
  can still be met.
  Within a layer, where every move can be undone (``_frontier``: empty
  columns take any card, and there is no reserve and no worrying back),
  level d - 1 is freed too, once level d is expanded.  Claim: there every
  move that stays in the layer goes from a level d to d - 1, d or d + 1, so
  no position is met again once freed, and each is expanded once.  Proof:
  the levels are the distances from level 0 within the layer, and a move
  P -> Q within it has a move Q -> P within it, so the two distances differ
  by at most one.  A move that stays in the layer sends no card up (u would
  grow), so it moves a card x (or, with ``unlimited`` runs, a run headed by
  x) from a column or a cell onto a card it builds on, into an empty column
  or into a cell, and no safe move follows it (a safe move sends a card
  up).  x was not blocked (|S| would grow), so it lay on a card y it builds
  on, or alone in its column, or in a cell; after the move y ends its
  column again, the column left is empty, the cell left is free, so the
  move back (onto y, into an empty column, which takes any card, into a
  cell) is legal and one the search makes, and it reaches P, closed under
  safe moves as every stored position is, so no safe move follows it.
  Where empty columns take Kings only or nothing, a card alone in its
  column that leaves it cannot come back, and a reserve card played or a
  foundation card played back does not go back the way it came: there the
  layer is kept whole until it is done, as before.
  Soundness, either way: ``unsolvable`` only when the heap and the queue
  are empty; then every position stored was expanded, and every child of
  each was found in the table or stored then, so the positions stored are
  closed under the search's moves, hold the root and no won position, and
  point 3d applies as to any exhaustive search (a position met again after
  it was freed would be stored and expanded again: time, not soundness).
  Memory: the live records are the layer being expanded (its last three
  levels, where they are freed) and the higher ones found so far.  Freeing
  levels matters most where layers are large: FreeCell with 6 columns deal
  220 (25,971,382 positions, unsolvable) peaks at 3.56 M live positions
  against 15.1 M with whole layers, and with 2 cells deal 7344 (89,127,464,
  unsolvable) at 18.8 M against over 67 M (it was unknown at the default
  room, and proved so with 8 x max_nodes of it); 6 columns deals 71 and
  933 (83,965,516 and 95,267,162, unsolvable; unknown with whole layers)
  at 29.9 M and 12.2 M; deal 7 with 1 cell at 0.99 M against 1.58 M; the
  least room of the four small deals below falls to 3,252, 9,281, 2,820
  and 8,144.  On every one the sweep expands each position once, as the
  plain exhaustive search does.  Ordering first by u + |S| (a card sent up
  and a card freed count the same) holds fewer at once than ordering by u
  first: on unsolvable FreeCell deals with 1 cell (seed 99 deals 16, 0, 23,
  24: 25,831, 75,174, 16,310 and 50,782 positions reachable) the least room
  in which the sweep with whole layers decides them is 3,792, 10,105, 2,820
  and 11,458 (13%-23% of them), against 5,006, 12,703, 3,564 and 14,471 (17%-29%); deal 7 (4.47
  M) and 6 columns deal 220 (26.0 M) peak at 1.58 M and 15.1 M live
  positions not yet freeable (sampled every 2,000 and 10,000 expansions)
  against 1.70 M and 16.6 M, and 6 columns deal 1190 (184,967,889
  positions, unsolvable) at 21.8 M against 26.0 M.  Layers by cards up
  alone needed from a third to over half of the four small deals.
  A live record costs its record (24 bytes: "The sweep's records", below),
  20 bytes of layer, number, heap and queue entries, and its table slots:
  two to four while the table is below BIG_TABLE slots, then one and a
  quarter to two (from there the table fills to four fifths), so the sweep
  may hold SWEEP_LIVE = 5.3 x max_nodes at once (the arrays are reserved,
  not touched, and replace the other searches' records): 5.3 x 10^7 at the
  default fit in 2^26 slots, 512 MiB.  At 3 x max_nodes with a half-full
  table and 48-byte records, FreeCell with 6 columns deal 279 (seed 99)
  filled its room; given 8 x max_nodes, it is unsolvable in 216,606,731
  positions, with at most 38.1 M live that could not yet be freed (sampled
  every 10^6 expansions); deal 3004 is won after 275.6 M positions stored,
  with at most 51.0 M live (sampled: at most 52.0 M, since an expansion
  stores about one position); 2478 stays unknown with 8 x 10^7 live, and
  so does 1058 (its room full at 364 M stored, 1,346 CPU-s, 7.6 GiB).
  The parent link and move of every position stored (8 bytes) are kept
  apart from the records and outlive them, so that a win found here has
  its line: SWEEP_LINK_BUFFER of them in memory, written out to a
  temporary file (unlinked: the system frees it when it is closed, at the
  deal's end) each time the buffer fills, and read back, link by link,
  along the winning line only.  Before, only the first 4 x max_nodes
  positions kept theirs, in memory, and a win found past them had no line
  to show: 3004's was such a win.  So the positions stored in all cost
  time and disk (8 bytes each), not memory, and bound the time: at most
  SWEEP_TOTAL = 30 x max_nodes, which holds 279's 2.17 x 10^8, 3004's
  2.76 x 10^8 and 1190's 1.85 x 10^8 at the default (631 CPU-s for
  the sweep alone, the whole process at 3.4 GiB with every link kept; it
  had been unknown at 4 x max_nodes; 5 columns deal 7722 likewise, in
  6.5 x 10^7).  Per expansion the sweep is no slower than the guide (deal 7
  above, exhaustive either way: 26.9 CPU-s against the guide's 32.9).  The
  order, fewest cards up or free first, is the opposite of a win finder's
  (with layers by cards up alone, FreeCell with 3 cells, seed 99 deals 0-4,
  which the guide wins in a second, stayed unknown at 10^7 live positions),
  so it comes last, for the deals too large to store whole; a deal decided
  by the other searches never sees it, and one it cannot decide pays up to
  SWEEP_TOTAL x max_nodes expansions more (fewer when its live positions
  fill their room first, as the 2-cell unknowns' do).  It moves
  single cards where runs stand for them (the same positions; fewer moves
  to try at each).
* The sweep's records.  The sweep stores its positions relative to its
  root (the position it starts from, closed under safe moves), in
  frame[F_WORDS] words where the other searches take 48 bytes: 3 words (24
  bytes) in every game here (2 for FreeCell with 4 columns and at most 2
  cells, or 5 columns and no cell), so the same memory holds more.  Claim: in every position reached from the root, each
  column is k >= 1 cards of the root column with the same deepest card
  (the same cards, bottom first), then cards each built on the one under
  it; or, where no root column has its deepest card (k = 0), that card and
  then cards each built on the one under it.  Proof: let k be the most
  cards, from the column's deepest up, that agree with the root column of
  the same deepest card (0 if there is none), and take the card c at height
  p > k.  Had c lain there since the root, so would every card under it
  (cards leave a column from its top only), so the root column of that
  deepest card would hold c at p, and k >= p.  So a move put c there: every
  move puts a card, or the foot of a run whose cards each lie on a card they
  build on, onto a card it builds on or into an empty column (worrying back
  too), or up, or into a cell.  So c builds on the card under it unless
  p = 1.  At most two cards build on any card (one in suit, two in
  alternating colours), so each card of the run is a choice between them: a
  bit, or none in suit (by card number: ``frame[F_KID + 2 y + i]``).  A run
  above a card descends a rank a card from rank at most 12, or cycles one
  suit with wrap: at most 12 cards, 4 bits (6 with wrap in alternating
  colours).  The record, canonical: the cells (a reserve's as a bit for each
  root cell still held, since cards only leave it; others as a count and
  the cards sorted, 6 bits each); then for each non-empty root column, k
  (0 if no column has its deepest card), and if k > 0 the number of cards
  above them and their choices; then the number of other columns, and each
  of them by deepest card: that card, the number above it, their choices.
  Foundations are 13 less the cards present, as in the 48-byte record.
  Every field has a fixed width, sized for the worst position
  (``_sweep_frame``), so the record decodes to the position, up to the
  order of columns and cells, and no two positions share one
  (tests/test_open_solitaire_memory.py round-trips positions of every game,
  shuffled, and the longest runs).  Decoded, the root's columns come first,
  in order, then the others: moves are recorded by cards, so the order does
  not matter.  The table and its probe are the others' (the record's width
  is its array's); the encoder is as fast (FreeCell with 1 cell, seed 99
  deal 7: the same 4,469,573 positions in 15.5 CPU-s against 15.3-16.0).
* The sweep's runs (engine/sweep_runs.py).  On the largest deals most of
  the sweep's room holds positions waiting in higher layers (FreeCell with
  6 columns deal 2478, seed 99: 42.3 M of the 53.0 M live when the room
  filled), and those need not be in memory until their layer begins.  So
  once fewer than SWEEP_SPILL_ROOM positions are free (after freeing what
  can be freed) and the heap holds at least a SPILL_SHARE-th of the room,
  the kernel returns and the heap's highest layers are written to disk as
  a *run*: every waiting position with a layer key at or above the one a
  SPILL_KEEP-th of the way up the heap, sorted by key, each with its key
  and its number (which numbers its link, kept as before).  Their records
  are marked layer 0 and freed with the finished ones, and the heap is
  made anew from the rest (sorted by layer and record: a heap).  When a
  layer ends and the least key on disk is no higher than the heap's least,
  the kernel returns again and every run's entries of that layer (and of
  the next ones while they are few: ``WaitingRuns.bound``) come back into
  free records and the heap through the table, so a position met again
  while its copy was out, or written out twice, is merged into one.
  Claim: the sweep with runs expands exactly the positions it expands
  without them, each once, and decides as it does.  Proof: a position
  goes out only from the heap, so its layer is above the one being
  expanded; every position of a layer L is stored, or written out, before
  L begins (the layer proof above: none is met from L or above), and L
  does not begin while any key at or below L is on disk (runs are sorted,
  and each run's entries up to a key are read together), so when L begins
  all its positions are in memory, each once (the table merges copies:
  every live position is in it).  Within L nothing changes.  Positions
  of the finished layers are freed as before.  So L's positions, and its
  expansions, are those of the sweep in memory, and ``unsolvable`` still
  comes only from an empty heap and queue with nothing on disk.  A win's
  line is read through the links as before: a copy dropped at the merge
  has its own link, simply never read, and the one kept links to its own
  parent, a position really expanded.
  What it costs: a position out and back is 4 + 8 x frame[F_WORDS] bytes
  written and read once (plus 8 for its key); the runs are unlinked
  temporary files, gone at the deal's end, like the links' file.  It
  needs no more memory than the room: a run is copied out a part (2^21
  entries) at a time, and read back at most a SWEEP_LOAD_SHARE-th of the
  room from each run (the keys are mapped and searched, so only what is
  read comes into memory).  What it does not fix is a single layer, with
  its levels, larger than the room: that stays unknown.  Tested against
  the plain exhaustive search with rooms far below what the sweep needs
  in memory (tests/test_sweep_runs.py: the same positions, each once, and
  unknown without the runs), and with a Penguin win whose line goes
  through positions that came back from disk.
* The sweep on disk (engine/disk_sweep.py; off unless ``disk_positions``
  is set).  A deal the sweep leaves unknown is swept once more, by the
  same layers and levels, with every level's children written out and
  deduplicated only once the level is expanded, a group of hash buckets
  at a time, against the same buckets of the levels they could repeat
  (its docstring has the proof); so a layer larger than any room is no
  wall, only time and disk.  It is last, and off by default, because the
  deals that reach it are the largest: at 2.5 to 7 CPU-microseconds a
  position, 10^9 positions are one to two hours of CPU.
* Slices and the clock.  numba's compiled code cannot read a clock, so with
  ``max_seconds`` the search runs in slices of SLICE_NODES expansions; its
  state (heap sizes, counts, the best foundation) lives in an int64 vector
  between calls and the caller looks at the process's CPU time between two
  slices (a call costs microseconds; a slice is a few hundredths of a
  second).  A time limit is not reproducible: the same deal may come out
  ``unknown`` on a slower or busier machine and decided on another; the
  default (0, no limit) keeps every figure reproducible through ``max_nodes``.
* The table.  One uint64 per slot (open addressing, linear probing, at most
  half full, or four fifths from BIG_TABLE slots in the line search and the
  sweep): a 12-bit generation stamp (a slot belongs to the current deal
  only if its stamp is the current one, so the table is reused between deals
  without clearing; after GEN_MAX deals it is cleared once), a 20-bit tag
  (high bits of the position's hash) and the record's index.  A probe reads
  the record only when the tag matches, and a match is always confirmed on
  the whole record (48 bytes, or the sweep's), so two positions are never
  confused.  The
  children of one expansion are encoded first and their slots read at once,
  so their cache misses overlap.

Sound pruning, and why.
1. Duplicate positions: a position's future does not depend on how it was
   reached, so a position already in the table is never expanded again.  The
   table keeps the whole position (48 bytes), not a hash of it, so two
   different positions are never confused.  The record holds every position
   of up to MAXCOLS = 10 columns and MAXCELLS = 8 cells as a string of 6-bit
   symbols (cards 0..51, markers 61..63): the cards in cells (sorted), a
   cells-end marker, then each non-empty column's cards bottom first and a
   column-end marker, padded with the pad marker.  Cards on the foundations
   are not stored (a suit's height is 13 less the suit's cards present), so a
   record needs at most 52 + 1 + 10 = 63 symbols: 64 symbols of 6 bits fill
   48 bytes.  Decoding gives back the canonical position, so the code is one
   to one (tests/test_open_solitaire_memory.py round-trips random positions
   of every game).  Memory (issue 11): with the parent link (4 bytes) and the
   move word (4: the move, the expanded flag and the depth) a stored position
   costs 56 bytes, plus two to four table slots (8 each) and its entries in
   the two heaps while it waits (8 each).  The per-position arrays are
   reserved once at ``max_nodes`` and never copied (``Workspace``: only the
   pages a search writes cost memory), so the peak is what the positions use.
   Measured (peak resident memory of the whole process, ru_maxrss, numba
   included), FreeCell with 2 cells, seed 99 deal 220, run to 10^7 stored
   positions: 1,015 MiB, where the 64-byte record with a separate depth and
   arrays grown by doubling (the old and new ones alive at once) peaked at
   1,554 MiB (the same deal at 2 x 10^6: 307 MiB against 384).  At 3 x 10^7
   it peaks at 2,370 MiB, and the same deal with 3 cells at 2,592 MiB (the
   table doubles to 2^26 slots past 2^24 positions): about 3 x 10^7 is the
   most one deal can store under 3 GiB.  The defaults stay at 10^7 (Baker's
   Game, FreeCell, King Albert): the deals left unknown there that were run
   again at 3 x 10^7 (FreeCell seed 99: deal 220 with 3 cells, deals 220,
   230 and 931 with 2) stayed unknown, at three times the CPU seconds each.
2. Canonical order: columns and cells are interchangeable (no rule depends on
   which column or cell a card is in), so positions are stored with the cells
   sorted and the non-empty columns sorted by their deepest card.
3. Safe foundation moves ("auto moves"), applied after every move.  Claim: let
   card c be exposed (the top of a column, or in a cell), be the next card its
   foundation needs, and suppose *no card that could ever be built on c is
   still off the foundations*.  If position S is winnable, so is S' = S with c
   moved to its foundation.  Proof: take a winning sequence S = T0 -> T1 ... Tk.
   Let Ti' be Ti with c deleted (c already on its foundation).  Nothing is ever
   put on c, so c stays on top of whatever holds it; hence a move of Ti either
   (a) moves c alone (to a cell, a column or the foundation): skip it, and
   Ti+1' = Ti'; (b) moves a run whose top card is c: move the same run less c
   (same head, same target, one card shorter); or (c) leaves c where it is: do
   the same move.  Each replacement is legal in Ti': the head and the target
   card are the same; Ti' has at least the free cells and empty columns of Ti,
   so the limited-run capacity (see "Sequence moves" below: it never shrinks
   when cells or columns are freed) is at least as large; the target column is
   unchanged, since the only card that could go onto c cannot be moving.  Tk
   is won, so Tk' is won.
   Which cards may be built on c:
   * same-suit games (Penguin, Baker's Game, Eight Off, Seahaven Towers): only
     (suit of c, rank below c).
     If c's relative rank r > 0 that card is already on the foundation (the
     foundation needs c next), so c is always safe.  Without wrap a card of
     relative rank 0 takes nothing, so it is safe too.  With wrap the card of
     relative rank 12 (beak - 1) may go onto a relative-rank-0 card (the beak):
     the claim then needs a different argument and holds in two cases only.
     If c is in a cell, nothing can be put on it there (the claim applies).
     If c is alone in its column and empty columns take a rank-12 head (rules
     `any` or `beak_minus_one`), moving c up leaves an empty column that takes
     every run c could have taken; the same simulation works, with "onto c"
     replaced by "into the empty column" (its capacity is the same, because
     the target column never counts).  Otherwise (c on other cards, or empty
     columns take nothing) c is not auto-moved; the search still tries the
     foundation move as an ordinary move.
   * alternating-colour games (FreeCell, King Albert without worrying back):
     the two cards of the other colour and one rank lower.  The claim applies
     when both are already on their foundations (always true for an Ace); point
     3c proves another condition (both one rank short, and the other suit of
     c's colour at most two short).  Neither implies the other (3c asks
     nothing of c's own colour when the other colour is up), and the solver
     sends c up when either holds (``_safe_alternate``); Solvitaire's rule
     without worrying back is the same pair.  A card safe by either condition
     stays safe as foundations grow, so the closure is still unique.
   Auto moves commute (each condition only gets easier as foundations grow and
   an exposed card stays exposed), so the closure of a position is unique and
   the solution replay reproduces it exactly.  Why the search stays
   exhaustive with the closure: point 3d, for 3, 3b and 3c alike.
   tests/test_open_solitaire.py checks all of this against a plain-Python
   exhaustive search with no pruning at all.
3b. Safe moves under worrying back (King Albert's family: alternating colours,
   foundations from the Ace, no cells but a reserve that cards only leave, one
   card at a time or any run; foundation top cards may go back to the tableau).
   Point 3's proof fails here: a card built on c may come back off its
   foundation, and the card below c on its foundation may be played back
   while c is still out.  Both are ruled out by a lemma first.
   Lemma.  Let m be the lowest foundation height of a winnable position Q and
   V the cards of rank <= m + 1 (ranks counted 1..13) that are on the
   foundations in Q.  For every winning line from Q there is one with no more
   moves of each kind (to a foundation, or not) that never takes a card of V
   off the foundations.  Proof: take a winning line
   T0 = Q, ..., Tk and let Ti' be Ti with every V card that is out (played
   back) returned to its foundation.  Every card of rank <= m is in V, so a
   card put on a V card (rank one lower, <= m) is a V card, and so is every
   card of a run put there: in each column of Ti the V cards form the top,
   and Ti' is a position (each suit's lifted cards continue its foundation).
   Replay the line: a move of V cards only is skipped (Ti+1' = Ti'); any other
   move has a non-V head x and is made with the V cards above x left out.
   It is legal in Ti': x is exposed as in Ti; its target is a non-V card (a
   card on which x builds has rank <= m + 1 only if x has rank <= m, i.e. x
   in V) or an empty column, and Ti' has every empty column of Ti; a run less
   its top cards is still a run; to its foundation x goes on the same height
   (the lifted cards of x's suit are all below x: x not in V means rank
   >= m + 2, or rank m + 1 with x itself the suit's rank-(m + 1) card); played
   back, x is still its foundation's top for the same reason.  Tk' = Tk is won.
   Claim (the condition of point 3c, which Solvitaire also uses under
   worrying back).  Let c, of rank r, be exposed (a column's top or in the
   reserve) and next for its foundation, which holds r - 1 cards.  If both
   foundations of the other colour hold at least r - 2 cards and the other
   foundation of c's colour at least r - 3, then S' = S with c moved up is
   winnable when S is, by a line with no more moves not to a foundation.
   Proof: here m >= r - 3, so V holds every card of rank <= r - 2 that is up
   in S: all of c's suit's and of the other colour's below r - 1, and the
   other same-colour suit's below r - 2.  Take a winning line from S as the
   lemma gives it: those cards never leave the foundations.  Then point 3c's
   set X = {c, b1, b2, d} works as there: only b1 and b2 (other colour, rank
   r - 1) build on c; only d (c's colour, rank r - 2, the other suit: c's own
   suit's card of that rank is in V) builds on a b; only other-colour cards
   of rank r - 3, all in V, build on d; and b's foundation never falls below
   r - 2 cards, d's below r - 3 (their tops are in V), so b and d are next for
   their foundations whenever they are out.  One card more can leave a
   foundation now: c' = c's suit's card of rank r - 1.  Nothing ever builds on
   c' (other-colour cards of rank r - 2, in V), and c's foundation never
   falls below r - 2 cards, so c' is next for it whenever it is out.  Run
   point 3c's construction (E0 = {c}; the lines are no longer "with
   foundations that only grow", but each step below only uses the facts
   just listed) with one more case: (d) the move plays c' back (c is out in
   T, since c' is its foundation's top, and up in T' as an E card): add c'
   to E and skip the move; from then on c' and c are the E cards of their
   suit, the two cards above c's suit's rank r - 2, so invariant (i) holds.
   The other cases need one more word each: (a) includes playing back an E
   card; in (b) a card x not in E played back is its foundation's top in T'
   as in T, since a suit with an E card out has under it c', c's suit's
   rank r - 2 card, b's rank r - 2 card or d's rank r - 3 card, and the last
   three are in V; in (c) nothing goes onto c', and a card played back onto
   an E card (b onto c, d onto a b) is up in T' already: it joins E with no
   move (b's and d's foundations then stand just below them, their tops
   being in V).  So S' is winnable
   by a line with no more moves not to a foundation, as the closure needs
   (point 3d).  The condition only gets easier as foundations grow, so
   closures stay unique; a foundation card that the closure would send back
   up at once is never played back (the move leads to the same position).
   Point 3's condition alone (the other colour at r - 1, nothing asked of
   c's) is not safe here: tests/test_king_albert.py pins a deal won only by
   playing a card back onto a King that it would have sent up.  An earlier
   version of this point asked for the other colour at r - 1 and c's at
   r - 2; with it King Albert deal 1345 (seed 99) was still unknown after
   6.8 x 10^7 expansions, where Solvitaire's exact search proves it lost in
   7.46 M states and this condition in 6.4 M expansions.
3c. Stronger safe moves in alternating colours without worrying back
   (FreeCell, King Albert with ``worrying_back`` false).  Claim: let c, of
   relative rank r, be exposed (a column's top, or in a cell or the reserve)
   and next for its foundation (which holds r cards).  If both foundations of
   the other colour hold at least r - 1 cards and the other foundation of c's
   colour at least r - 2, then S' = S with c moved up is winnable when S is,
   by a line with no more moves that are not to a foundation.
   The cards involved.  Only the two other-colour cards of rank r - 1, b1 and
   b2, can be built on c.  Foundations only grow (nothing is played back), so
   b's foundation holds at least r - 1 cards all along: whenever b is out it
   holds exactly r - 1 and b is next for it.  Only cards of c's colour and rank
   r - 2 can be built on a b: c's own suit's one is up already (c's
   foundation holds r), and the other, d, is next for its foundation whenever
   it is out (that foundation holds at least r - 2).  Only other-colour cards
   of rank r - 3 can be built on d, and they are all up (their foundations
   hold at least r - 1).  So X = {c, b1, b2, d} holds one card of each suit,
   and the only cards ever built on an X card are X cards.
   Proof.  Take a winning line S = T0 -> T1 ... Tk and build, step by step, a
   set E of X cards ("extra up", E0 = {c}) and a line from S' through
   positions Ti' = Ti with every E card that is out moved to its foundation.
   Invariant: (i) Ti' is a position: each suit has at most one X card, which
   joined E when it was next for its foundation in Ti and was out, and while
   it is out in Ti its foundation stays just below it; so Ti's foundations
   plus the E cards are still each suit's lowest cards; (ii) in every column
   of Ti the E cards are a top segment (no other card lies on an E card); an
   E card in a cell or the reserve holds nothing.  T0' = S' and both hold.
   Each move of Ti -> Ti+1 is replaced thus:
   (a) it moves E cards only (one card, or a run all of E, anywhere,
       foundation included): skip it; Ti+1' = Ti' and (ii) holds (they land
       on top of a column, in a cell or up).
   (b) its head x is not in E and it does not go onto an E card: make the
       same move with the run's E cards (by (ii) its top part) left out: same
       head, same target (a card, which is a top in Ti' as in Ti and not an E
       card; an empty column; a cell; the foundation, where x is next in Ti',
       since x's suit has no other E card out).  It is legal: x is exposed in
       Ti' once the E cards above it are gone, a run less its top cards is a
       run, and Ti' has every free cell and empty column of Ti (E cards only
       leave them), so the capacity of "Sequence moves", which never shrinks
       as cells and columns free up, is at least that of Ti for a shorter run.
       A move not to a foundation stays one, a foundation move stays one.
   (c) it puts a card or run, head h, onto an E card e: h builds on e, so h
       is an X card (b1 or b2 on c, d on a b; nothing goes on d), and so is
       every card of the run (a run builds down from h); h is not in E (else
       (a)).  Play the run's cards that are not in E to their foundations
       instead, top first, and add them to E.  Each is exposed in Ti' when its
       turn comes (the E cards above it are already up) and next for its
       foundation (it is an X card that is out).  One move not to a
       foundation becomes one or two foundation moves; Ti+1' is Ti+1 with the
       new E up, and (ii) holds (the run now lies on e, all of it in E).
   Tk is won, so Tk' is won: S' is winnable, and the new line has no more
   moves not to a foundation than the old one (it may have more foundation
   moves, so unlike point 3 it may be longer).  The condition only gets
   easier as foundations grow, so closures stay unique, and c's own
   foundation move is written into the solution as an ordinary move, which
   the reference checks like any other.
3d. Exhaustiveness with the closure (points 3, 3b, 3c).  For a winnable
   position P let w(P) be the fewest moves not to a foundation in a winning
   line from P.  Each simulation above turns a foundation move into a
   foundation move or nothing, and any other move into one of the same kind,
   nothing, or foundation moves only; so moving a safe card up never raises
   w, and w(closure(P)) <= w(P).  Measure a winnable position by the pair
   (w(P), cards off the foundations), ordered lexicographically.  Let P be a
   stored (closed), winnable, not won position and m the first move of a
   winning line from P with w(P) moves not to a foundation, leading to T.
   If m goes to a foundation, w(T) <= w(P) and T has one card fewer out;
   otherwise w(T) <= w(P) - 1.  The closure keeps w from rising and cards out
   from rising, so closure(T) has a smaller pair than P.  The search
   generates m: it generates every legal move, up to the canonical order of
   columns and cells (point 2) and the first empty column standing for all;
   the moves it leaves out lead back to P itself once closed (a whole column
   into an empty column, point 4; under worrying back a card played back that
   the closure would send straight up again), and such a move cannot start a
   line with w(P) moves not to a foundation: the rest of that line would win
   from T with w(P) - 1 of them, and w(P) = w(closure(T)) <= w(T).
   So the search stores closure(T) (or has it already).  By induction on the
   pair, from every stored winnable position a won position is reachable
   through stored positions; the root is the closure of the deal, winnable if
   the deal is; an exhaustive search expands every stored position, so it
   finds the win.
4. A whole column is never moved into an empty column (same position again).

Sequence moves.  In all these games the rules move one card at a time
(Solvitaire plays them so); a run moving as one unit is shorthand, and
``limited`` allows it exactly when single-card moves could do the same through
free cells and empty columns.  With F free cells and E empty columns other than
the target, the capacity is
* (F + 1) x 2^E when empty columns take any card: by induction on E, park the
  upper half of the run in one empty column (capacity (F + 1) x 2^(E-1) with the
  other E - 1), move the lower half to the target, and bring the upper half back
  onto it; with E = 0, the n - 1 upper cards go to cells and come back;
* F + 1 otherwise (`kings`, `none`, Penguin's `beak_minus_one`), onto a card or
  into an empty column alike: the n - 1 upper cards go to cells and come back.
  Empty columns do not count: a run's upper cards are never Kings (ranks fall
  from the head), so a Kings-only column cannot hold them (PySolFC's rows with
  base rank King count free cells only, for the same reason; the older formula
  (F + 1) x 2^E here allowed moves single cards cannot make).  Seahaven Towers
  states the same rule: moving n cards needs n - 1 free cells.
Each allowed run move is a sequence of single-card moves, and a single card is a
run of one, so ``limited`` wins exactly the positions single-card play wins.  The
capacity need not be the most single cards could ever do (in alternating colours
a card may also park on another column); it must never exceed it, and never fall
below 1.  tests/test_eight_off.py checks the verdicts against a plain
exhaustive search that moves one card at a time.

Layouts.  Penguin: the beak first (reference docstring).  In turn
(LAYOUT_IN_TURN: Baker's Game, FreeCell with ``columns`` 4..8, Eight Off,
Seahaven Towers): card k of the first 52 - p goes to column (k mod columns) + 1,
and the last p (``prefilled`` cells) go to cells 1..p, in that order.
King Albert's family (9 columns, a reserve held in the cells): laid out by
engine/games/king_albert.py as engine/reference/king_albert.py describes.

Cards use relative ranks: rel = (rank - base) mod 13, where base is the beak's
rank in Penguin and the Ace in the other games; foundations build
rel 0, 1, ..., 12 and a foundation's height is the count of its cards.

Moves are recorded by cards, not column numbers (columns are reordered by the
canonical form): ``code = head * 64 + target`` where head is the moved card
(the deepest card of a run) and target is the card it goes onto, or one of
``TO_EMPTY`` (an empty column), ``TO_CELL``, ``TO_FOUNDATION``.  A foundation
card played back (worrying back) is recorded the same way: head is that card,
found on top of its foundation when it is in no column and no cell.

The stored solution is text, not codes: the codes are located in the
reference's layout (columns in their dealt order, the first free cell, the
first empty column) and written in fc-solve's standard notation
(``engine/reference/open_solitaire.py`` describes it), e.g. ``3h 1a a5 54``.
Every win goes solution codes -> text -> parse -> reference checker before it
is reported, so the text in the ``solution`` column is itself what was proven.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import IO, Any

import numba as nb
import numpy as np

from engine.cards import DECK_52
from engine.deals import batch_of_deals, read_only_uint8
from engine.heap import SORT_STACK, heap_pop, heap_push, index_heap_pop, index_heap_push, sort_pairs
from engine.leaf import leaf_kernel
from engine.outcomes import OUTCOMES, UNKNOWN, UNSOLVABLE, WON, SolverError
from engine.position_table import words_hash
from engine.reference import open_solitaire as ref
from engine.sweep_runs import NONE_WAITING, WaitingRuns
from engine.registry import Column, GameSpec, PlayResult, new_columns

# --- rule codes passed to the kernels --------------------------------------
LAYOUT_PENGUIN, LAYOUT_IN_TURN = 0, 1  # Penguin's 7 columns with a beak; `columns` columns dealt in turn
LAYOUT_EIGHT = LAYOUT_IN_TURN  # the historical name (FreeCell's eight columns)
BUILD_SUIT, BUILD_ALTERNATE = 0, 1
EMPTY_ANY, EMPTY_TOP_RANK, EMPTY_NONE = 0, 1, 2  # TOP_RANK: relative rank 12 (a King; beak - 1 in Penguin)

TO_EMPTY, TO_CELL, TO_FOUNDATION = 52, 53, 54


def max_nodes_doc(line_room: int, line_memory: str) -> str:
    """The max_nodes switch's help where the default is 10^7 (Baker's Game, FreeCell, King Albert): what it
    costs, with the game's room for the line search (``SolverRules.line_room``) and what that takes."""
    return ("positions the solver may store before it answers unknown (about 60 to 90 bytes each, taken only as "
            "used: about 1 GB at the default, 2.4 GB at 30000000; a deal the first searches leave unknown goes "
            f"on to the line search, which stores up to {line_room} x as many{line_memory}, then to the guide "
            f"again with {GUIDE_ROOM} x as many, and last to the sweep, "
            f"which holds up to {SWEEP_LIVE} x as many: about 3.1 GiB at the default, and writes each position's "
            "link, 8 bytes, to a temporary file)")


# The games' max_seconds switch (its one-line doc, what `patience games GAME` prints, and its bound)
MAX_SECONDS_DOC = ("CPU seconds the solver may spend on one deal before it answers unknown (0: no limit); NOT "
                   "reproducible: a deal near the limit may get another verdict on another machine or load")
MAX_SECONDS_HI = 86_400

# The games' disk_positions switch: the sweep with its levels on disk (engine/disk_sweep.py), off by default
DISK_POSITIONS_DOC = ("positions the sweep with its levels on disk may store, last, for a deal every other search "
                      "leaves unknown (0: not run): an exhaustive search whose memory stays near 2 GiB however "
                      "many (2.4 GiB at most on the deals measured), but which takes 2.5 to 7 CPU-microseconds a "
                      "position and temporary files in TMPDIR (tens of GB while the largest layers last: 27 GB on "
                      "FreeCell with 6 columns deal 2478, unsolvable in 1.8x10^9 positions and 128 CPU-minutes): "
                      "10^9 is over an hour a deal")
DISK_POSITIONS_HI = 10_000_000_000

# --- position layout in one uint8 array -------------------------------------
WIDTH = 64  # room per column; a column never holds more than 52 cards
MAXCOLS = 10
MAXCELLS = 8
O_LEN = MAXCOLS * WIDTH  # column heights
O_CELL = O_LEN + MAXCOLS  # cells, NOCARD when free
O_FND = O_CELL + MAXCELLS  # foundation heights per suit
STATE_SIZE = O_FND + 4
NOCARD = 255
# A stored position: at most 52 cards + 1 cell marker + one end marker per non-empty column = 63 symbols of
# 6 bits (cards 0..51 and three markers), packed into 48 bytes (64 symbols).
REC_SYMBOLS = 64
REC_BYTES = REC_SYMBOLS * 6 // 8
REC_WORDS = REC_BYTES // 8
SYM_CELLS_END, SYM_COLUMN_END, SYM_PAD = 61, 62, 63
# generated moves: src | pos << POS_SHIFT | dst << DST_SHIFT
SRC_CELL = MAXCOLS  # src MAXCOLS + j: cell j
DST_CELL, DST_FND = MAXCOLS, MAXCOLS + 1
POS_SHIFT, DST_SHIFT = 5, 11
SRC_MASK = (1 << POS_SHIFT) - 1

# params vector
P_NCOLS, P_NCELLS, P_BUILD, P_WRAP, P_UNLIMITED, P_EMPTY, P_MAXNODES, P_W = range(8)
# Weights of the search's guide (cards out, cards above a lower card, cells used, cards above a card its
# foundation needs next, non-empty columns); chosen on Penguin seeded deals and FreeCell MS deals 1-200.
# They steer the order of the search only, never its verdict.
HEURISTIC_WEIGHTS = np.array([3, 1, 1, 1, 2], dtype=np.int64)

_INF_CAP = 1 << 30

# King Albert's family (engine/games/king_albert.py): slots after the heuristic weights, 0 for the other games.
P_RESERVE = P_W + len(HEURISTIC_WEIGHTS)  # 1: the cells are a reserve: cards leave it, none ever enters it
P_WORRY = P_RESERVE + 1  # 1: worrying back: a foundation's top card may go back onto the tableau
P_SINGLE = P_RESERVE + 2  # 1: one card at a time (no runs move as a unit)
P_EAGER = P_RESERVE + 3  # 1: every ready card goes up at once (the streamlined search only: not a sound pruning)
P_SUITS = P_RESERVE + 4  # 1: positions are told apart by colour and rank only (the streamlined search only)
P_LINE = P_RESERVE + 5  # 1: the line search: moves in Solvitaire's order, the line kept as records (_dfs)
P_FRONTIER = P_RESERVE + 6  # 1: the sweep frees each level of a layer two levels on (every move in a layer undoes)
WORRY_MOVE = 1 << 30  # a generated foundation-to-tableau move: WORRY_MOVE | suit | column << 8


@nb.njit(cache=True, inline="always")
def _red(card):
    s = card // 13
    return s == 1 or s == 2


@nb.njit(cache=True, inline="always")
def _accepts(x, y, rel, params):
    """Can card x be built on card y in the tableau?"""
    if params[P_BUILD] == BUILD_SUIT:
        if x // 13 != y // 13:
            return False
    else:
        if _red(x) == _red(y):
            return False
    rx = rel[x]
    ry = rel[y]
    if ry == rx + 1:
        return True
    return params[P_WRAP] != 0 and rx == 12 and ry == 0


# Where a card may go, found a whole position at a time: each column's top as a 6-bit key (its suit, or colour in
# alternating colours, times 16, plus its relative rank; EMPTY_KEY for an empty column), the keys of up to ten
# columns in one word, and a card's wanted key compared with all of them at once (_columns_taking).  Exact:
# _accepts(x, y) holds if and only if y's key is x's wanted key (y of x's suit, or of the other colour, and of the
# relative rank one above x's, or 0 above 12 with wrap).  _gen_moves had tried _accepts on each column in turn for
# each card that could move: 12.8% of the sweep on disk's samples (perf, 6 columns deal 4934).
KEY_BITS = 6
EMPTY_KEY = 63  # above any wanted key (at most 3 x 16 + 12)
_KEY_ONES = sum(1 << (KEY_BITS * k) for k in range(MAXCOLS))
_KEY_LOW = 31 * _KEY_ONES
_KEY_HIGH = 32 * _KEY_ONES
assert KEY_BITS * MAXCOLS <= 63, "every column's key in one int64 word, clear of its sign bit"


@nb.njit(cache=True, inline="always")
def _target_key(y, rel, params):
    """Card y's key as a card to build on: its suit (building in suit) or colour, times 16, plus its relative
    rank."""
    g = np.int64(y // 13) if params[P_BUILD] == BUILD_SUIT else np.int64(_red(y))
    return g * 16 + np.int64(rel[y])


@nb.njit(cache=True, inline="always")
def _wanted_key(x, rel, params):
    """The key (_target_key) of the cards x builds on, or -1 if none (a relative rank of 12 without wrap)."""
    r = np.int64(rel[x]) + 1
    if r > 12:
        if params[P_WRAP] == 0:
            return np.int64(-1)
        r = 0
    g = np.int64(x // 13) if params[P_BUILD] == BUILD_SUIT else 1 - np.int64(_red(x))
    return g * 16 + r


@nb.njit(cache=True, inline="always")
def _top_keys(st, rel, params):
    """The keys of the columns' top cards (EMPTY_KEY for an empty column), column k's at bits 6k.."""
    keys = np.int64(0)
    for k in range(params[P_NCOLS]):
        n = st[O_LEN + k]
        key = np.int64(EMPTY_KEY) if n == 0 else _target_key(st[k * WIDTH + n - 1], rel, params)
        keys |= key << np.int64(KEY_BITS * k)
    return keys


@nb.njit(cache=True, inline="always")
def _columns_taking(keys, want):
    """Bit 6k + 5 set for each column k whose top's key in ``keys`` is ``want`` (none for -1): a field is 0 in
    keys ^ want's copies exactly when its low 5 bits added to 31 do not reach its top bit and its top bit is
    clear (no carry leaves a field: 31 + 31 < 64)."""
    if want < 0:
        return np.int64(0)
    v = keys ^ (want * np.int64(_KEY_ONES))
    y = ((v & np.int64(_KEY_LOW)) + np.int64(_KEY_LOW)) | v
    return ~y & np.int64(_KEY_HIGH)


@nb.njit(cache=True, inline="always")
def _empty_takes(x, rel, params):
    e = params[P_EMPTY]
    if e == EMPTY_ANY:
        return True
    if e == EMPTY_TOP_RANK:
        return rel[x] == 12
    return False


@nb.njit(cache=True, inline="always")
def _run_start(st, i, rel, params):
    """Index of the deepest card of the movable run at the top of column i (column non-empty)."""
    n = st[O_LEN + i]
    base = i * WIDTH
    p = n - 1
    while p > 0 and _accepts(st[base + p], st[base + p - 1], rel, params):
        p -= 1
    return p


@nb.njit(cache=True, inline="always")
def _foundation_total(st):
    return np.int64(st[O_FND]) + st[O_FND + 1] + st[O_FND + 2] + st[O_FND + 3]


@nb.njit(cache=True, inline="always")
def _ready(c, st, rel):
    return st[O_FND + c // 13] == rel[c]


@nb.njit(cache=True, inline="always")
def _safe(c, in_cell, alone, st, rel, params):
    """May exposed card c go to its foundation without loss (module docstring, point 3)?"""
    if not _ready(c, st, rel):
        return False
    if params[P_EAGER] != 0:  # the streamlined search (module docstring): its wins count, its exhaustion does not
        return True
    if params[P_WORRY] != 0:
        return _safe_worrying_back(c, st, rel)
    r = rel[c]
    if params[P_BUILD] == BUILD_SUIT:
        if r > 0 or params[P_WRAP] == 0:
            return True
        return in_cell or (alone and params[P_EMPTY] != EMPTY_NONE)
    # alternating colours (points 3 and 3c): both foundations of the other colour hold at least r cards, or
    # at least r - 1 with the other foundation of c's colour at least r - 2
    return _safe_alternate(c, st, rel)


@nb.njit(cache=True, inline="always")
def _safe_alternate(c, st, rel):
    """Points 3 and 3c of the module docstring: without worrying back, a ready card of relative rank r in an
    alternating-colour game goes up safely when both foundations of the other colour hold at least r cards
    (point 3: nothing can ever go onto it), or at least r - 1 with the other foundation of its colour at
    least r - 2 (point 3c)."""
    r = np.int64(rel[c])
    s = c // 13
    if s == 0 or s == 3:  # black: clubs, spades; the other black suit is 3 - s
        lo = min(st[O_FND + 1], st[O_FND + 2])
    else:
        lo = min(st[O_FND + 0], st[O_FND + 3])
    # point 3: both cards that could go onto c are up; point 3c: they are next, and so is what goes onto them
    return lo >= r or (lo >= r - 1 and st[O_FND + 3 - s] >= r - 2)


# --- worrying back (King Albert's family): foundation cards played back to the tableau ----------------


@nb.njit(cache=True, inline="always")
def _safe_worrying_back(c, st, rel):
    """Point 3b of the module docstring: under worrying back (alternating colours, foundations from the
    Ace) a card of relative rank r goes up safely when both foundations of the other colour hold at
    least r - 1 cards and the other foundation of its colour at least r - 2 (c is ready: its own holds r).
    This is point 3c's condition; point 3's (the other colour at r, nothing asked of c's) is not safe here."""
    r = np.int64(rel[c])
    s = c // 13
    if s == 0 or s == 3:  # black: clubs, spades
        return st[O_FND + 1] >= r - 1 and st[O_FND + 2] >= r - 1 and st[O_FND + 3 - s] >= r - 2
    return st[O_FND + 0] >= r - 1 and st[O_FND + 3] >= r - 1 and st[O_FND + 3 - s] >= r - 2


@leaf_kernel
def _gen_worry_moves(st, rel, params, mv, nm):
    """Append every foundation-to-tableau move: WORRY_MOVE | suit | column << 8 (into the first empty column
    when empty columns take the card).  A card the closure would send straight back up is not played back:
    the move would lead to the position it starts from."""
    ncols = params[P_NCOLS]
    first_empty = -1
    for i in range(ncols):
        if st[O_LEN + i] == 0:
            first_empty = i
            break
    for s in range(4):
        h = np.int64(st[O_FND + s])
        if h == 0:
            continue
        c = s * 13 + h - 1  # foundations from the Ace: the top card's rank is h - 1
        st[O_FND + s] = h - 1
        back_up = _safe(c, False, False, st, rel, params)
        st[O_FND + s] = h
        if back_up:
            continue
        for k in range(ncols):
            n = st[O_LEN + k]
            if n > 0 and _accepts(c, st[k * WIDTH + n - 1], rel, params):
                mv[nm] = WORRY_MOVE | s | (k << 8)
                nm += 1
        if first_empty >= 0 and _empty_takes(c, rel, params):
            mv[nm] = WORRY_MOVE | s | (first_empty << 8)
            nm += 1
    return nm


@leaf_kernel
def _apply_worry(st, m):
    """Play the top card of foundation (m & 15) onto column (m >> 8) & 255; return its card code."""
    s = m & 15
    k = (m >> 8) & 255
    h = np.int64(st[O_FND + s])
    c = s * 13 + h - 1
    st[O_FND + s] = h - 1
    d = st[O_LEN + k]
    target = TO_EMPTY if d == 0 else np.int64(st[k * WIDTH + d - 1])
    st[k * WIDTH + d] = c
    st[O_LEN + k] = d + 1
    return np.int64(c) * 64 + target


@leaf_kernel
def _apply_worry_code(st, code, params):
    """_apply_code for a head found neither in a cell nor in a column: the top card of its foundation."""
    head = code // 64
    target = code % 64
    s = head // 13
    if st[O_FND + s] != head % 13 + 1:
        return False
    dst = -1
    for i in range(params[P_NCOLS]):
        n = st[O_LEN + i]
        if (target == TO_EMPTY and n == 0) or (target < 52 and n > 0 and st[i * WIDTH + n - 1] == target):
            dst = i
            break
    if dst < 0:
        return False
    _apply_worry(st, WORRY_MOVE | s | (dst << 8))
    return True


@leaf_kernel
def _closure(st, rel, params, out, nout):
    """Apply safe foundation moves until none is left; record them in out[nout:] if out is non-empty."""
    ncols = params[P_NCOLS]
    ncells = params[P_NCELLS]
    changed = True
    while changed:
        changed = False
        for j in range(ncells):
            c = st[O_CELL + j]
            if c != NOCARD and _safe(c, True, False, st, rel, params):
                st[O_CELL + j] = NOCARD
                st[O_FND + c // 13] += 1
                if out.shape[0] > 0:
                    out[nout] = c * 64 + TO_FOUNDATION
                nout += 1
                changed = True
        for i in range(ncols):
            while st[O_LEN + i] > 0:
                n = st[O_LEN + i]
                c = st[i * WIDTH + n - 1]
                if not _safe(c, False, n == 1, st, rel, params):
                    break
                st[O_LEN + i] = n - 1
                st[O_FND + c // 13] += 1
                if out.shape[0] > 0:
                    out[nout] = c * 64 + TO_FOUNDATION
                nout += 1
                changed = True
    return nout


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
def _encode(st, params, w, order):
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
def _decode(w, params, st):
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


# --- the sweep's records: positions told relative to the sweep's root (module docstring, "The sweep's records")
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
def _sweep_frame(root, rel, params, frame):
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
            if _accepts(x, y, rel, params):
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
def _encode_frame(st, ref, frame, params, w, order):
    """The sweep's record of position st (module docstring, "The sweep's records") into the first
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
def _decode_frame(w, ref, frame, params, st):
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
def _encode_record(st, params, w, order, ref, frame):
    """A position's record and its hash: the sweep's (frame non-empty) or the 48-byte canonical form."""
    if frame.shape[0] > 0:
        _encode_frame(st, ref, frame, params, w, order)
        return words_hash(w, frame[F_WORDS])
    _encode(st, params, w, order)
    return words_hash(w, REC_WORDS)


@nb.njit(cache=True, inline="always")
def _heuristic(st, rel, params):
    """Lower is more promising: cards still out, cards sitting above a lower card, cells in use."""
    ncols = params[P_NCOLS]
    left = 52 - _foundation_total(st)
    blocked = 0
    depth = 0
    empties = 0
    for i in range(ncols):
        base = i * WIDTH
        n = np.int64(st[O_LEN + i])
        if n == 0:
            empties += 1
        lo = np.int64(99)
        for p in range(n):
            c = st[base + p]
            r = np.int64(rel[c])
            blocked += r > lo  # no branches, which would go either way at random (0.35 us an expansion, not 1.26)
            lo = min(lo, r)
            if st[O_FND + c // 13] == r:
                depth += n - 1 - p
    used = 0
    for j in range(params[P_NCELLS]):
        if st[O_CELL + j] != NOCARD:
            used += 1
    return (params[P_W + 0] * left + params[P_W + 1] * blocked + params[P_W + 2] * used
            + params[P_W + 3] * depth + params[P_W + 4] * (ncols - empties))


@leaf_kernel
def _gen_moves(st, rel, params, mv):
    """All moves of the position (safe foundation moves are already done): codes src|pos<<5|dst<<11.

    src 0..MAXCOLS-1 a column (pos = index of the run's deepest card), SRC_CELL + j cell j;
    dst 0..MAXCOLS-1 a column, DST_CELL a cell, DST_FND the foundation.
    """
    ncols = params[P_NCOLS]
    ncells = params[P_NCELLS]
    unlimited = params[P_UNLIMITED] != 0
    free = 0
    for j in range(ncells):
        if st[O_CELL + j] == NOCARD:
            free += 1
    if params[P_RESERVE] != 0:
        free = 0  # a reserve is never entered: no move to a cell
    empties = 0
    first_empty = -1
    for i in range(ncols):
        if st[O_LEN + i] == 0:
            empties += 1
            if first_empty < 0:
                first_empty = i
    # limited runs (module docstring, "Sequence moves"): empty columns double the capacity only where they
    # take any card; otherwise a run is limited to free cells + 1, into an empty column as onto a card
    if unlimited:
        cap_full = _INF_CAP
        cap_empty = _INF_CAP
    elif params[P_EMPTY] == EMPTY_ANY:
        cap_full = (free + 1) << empties
        cap_empty = (free + 1) << (empties - 1) if empties > 0 else 0
    else:
        cap_full = free + 1
        cap_empty = free + 1
    if params[P_SINGLE] != 0:
        cap_full = 1
        cap_empty = 1
    tops = _top_keys(st, rel, params)
    nm = 0
    for i in range(ncols):
        n = st[O_LEN + i]
        if n == 0:
            continue
        base = i * WIDTH
        top = st[base + n - 1]
        if _ready(top, st, rel):
            mv[nm] = i | ((n - 1) << POS_SHIFT) | (DST_FND << DST_SHIFT)
            nm += 1
        rs = _run_start(st, i, rel, params)
        for p in range(n - 1, rs - 1, -1):
            head = st[base + p]
            length = n - p
            if length <= cap_full:
                taking = _columns_taking(tops, _wanted_key(head, rel, params))
                if taking != 0:
                    for k in range(ncols):
                        if k != i and (taking >> np.int64(KEY_BITS * k + KEY_BITS - 1)) & 1:
                            mv[nm] = i | (p << POS_SHIFT) | (k << DST_SHIFT)
                            nm += 1
            if first_empty >= 0 and p > 0 and length <= cap_empty and _empty_takes(head, rel, params):
                mv[nm] = i | (p << POS_SHIFT) | (first_empty << DST_SHIFT)
                nm += 1
        if free > 0:
            mv[nm] = i | ((n - 1) << POS_SHIFT) | (DST_CELL << DST_SHIFT)
            nm += 1
    for j in range(ncells):
        c = st[O_CELL + j]
        if c == NOCARD:
            continue
        if _ready(c, st, rel):
            mv[nm] = (SRC_CELL + j) | (DST_FND << DST_SHIFT)
            nm += 1
        taking = _columns_taking(tops, _wanted_key(c, rel, params))
        if taking != 0:
            for k in range(ncols):
                if (taking >> np.int64(KEY_BITS * k + KEY_BITS - 1)) & 1:
                    mv[nm] = (SRC_CELL + j) | (k << DST_SHIFT)
                    nm += 1
        if first_empty >= 0 and _empty_takes(c, rel, params):
            mv[nm] = (SRC_CELL + j) | (first_empty << DST_SHIFT)
            nm += 1
    if params[P_WORRY] != 0:
        nm = _gen_worry_moves(st, rel, params, mv, nm)
    return nm


@nb.njit(cache=True, inline="always")
def _apply(st, m, params):
    """Apply a generated move; return its card code (head * 64 + target)."""
    if m & WORRY_MOVE:
        return _apply_worry(st, m)
    src = m & SRC_MASK
    pos = (m >> POS_SHIFT) & 63
    dst = m >> DST_SHIFT
    if src >= SRC_CELL:
        head = st[O_CELL + src - SRC_CELL]
        st[O_CELL + src - SRC_CELL] = NOCARD
        length = 1
    else:
        n = st[O_LEN + src]
        head = st[src * WIDTH + pos]
        length = n - pos
    if dst == DST_FND:
        target = TO_FOUNDATION
        st[O_FND + head // 13] += 1
    elif dst == DST_CELL:
        target = TO_CELL
        for j in range(params[P_NCELLS]):
            if st[O_CELL + j] == NOCARD:
                st[O_CELL + j] = head
                break
    else:
        d = st[O_LEN + dst]
        target = TO_EMPTY if d == 0 else st[dst * WIDTH + d - 1]
        if src >= SRC_CELL:
            st[dst * WIDTH + d] = head
        else:
            for t in range(length):
                st[dst * WIDTH + d + t] = st[src * WIDTH + pos + t]
        st[O_LEN + dst] = d + length
    if src < SRC_CELL:
        st[O_LEN + src] = pos
    return np.int64(head) * 64 + target


@leaf_kernel
def _apply_code(st, code, params):
    """Apply a move given by cards (head, target) on any column order; return False if impossible."""
    head = code // 64
    target = code % 64
    ncols = params[P_NCOLS]
    src = -1
    pos = 0
    for j in range(params[P_NCELLS]):
        if st[O_CELL + j] == head:
            src = SRC_CELL + j
    if src < 0:
        for i in range(ncols):
            for p in range(np.int64(st[O_LEN + i])):
                if st[i * WIDTH + p] == head:
                    src = i
                    pos = p
    if src < 0 and params[P_WORRY] != 0:
        return _apply_worry_code(st, code, params)
    if src < 0:
        return False
    if target == TO_FOUNDATION:
        dst = DST_FND
    elif target == TO_CELL:
        dst = DST_CELL
    elif target == TO_EMPTY:
        dst = -1
        for i in range(ncols):
            if st[O_LEN + i] == 0:
                dst = i
                break
    else:
        dst = -1
        for i in range(ncols):
            n = st[O_LEN + i]
            if n > 0 and st[i * WIDTH + n - 1] == target:
                dst = i
                break
    if dst < 0:
        return False
    m = src | (pos << POS_SHIFT) | (dst << DST_SHIFT)
    _apply(st, m, params)
    return True


# --- the position table: exact, one uint64 entry per slot ---------------------------
# entry = gen << 52 | tag << 32 | record index: a slot belongs to this search when its generation stamp is the
# current one (so the table is reused between deals without clearing); the 20-bit tag (high bits of the hash)
# lets a probe skip most other positions without reading their records; a match is always confirmed by
# comparing the whole 64-byte record, so two positions are never confused.
GEN_MAX = 4095


@nb.njit(cache=True, inline="always")
def _find_h(w, h, recs, table, gen):
    """Probe for position w of hash h: (its slot or the free slot where it would go, its record index or -1,
    its stamp)."""
    mask = table.shape[0] - 1
    slot = np.int64(h & np.uint64(mask))
    g = np.uint64(gen)
    want = (g << np.uint64(20)) | ((h >> np.uint64(44)) & np.uint64(0xFFFFF))
    while True:
        ent = table[slot]
        if (ent >> np.uint64(52)) != g:
            return slot, np.int64(-1), want
        if (ent >> np.uint64(32)) == want:
            e = np.int64(ent & np.uint64(0xFFFFFFFF))
            same = True
            for t in range(recs.shape[1]):  # REC_WORDS, or the sweep's frame[F_WORDS]
                if recs[e, t] != w[t]:
                    same = False
                    break
            if same:
                return slot, e, want
        slot = (slot + 1) & mask


@nb.njit(cache=True, inline="always")
def _find(w, recs, table, gen):
    return _find_h(w, words_hash(w, REC_WORDS), recs, table, gen)


@nb.njit(cache=True)
def _lookup_insert(w, recs, nrec, table, gen):
    """Find position w in the table; insert it as record nrec if absent.  Returns (index, inserted)."""
    return _lookup_insert_h(w, words_hash(w, REC_WORDS), recs, nrec, table, gen)


@nb.njit(cache=True, inline="always")
def _lookup_insert_h(w, h, recs, nrec, table, gen):
    slot, e, want = _find_h(w, h, recs, table, gen)
    if e >= 0:
        return e, False
    table[slot] = (want << np.uint64(32)) | np.uint64(nrec)
    for t in range(recs.shape[1]):
        recs[nrec, t] = w[t]
    return np.int64(nrec), True


@leaf_kernel
def _reinsert(recs, nrec, table, gen, lay):
    """Enter records 0..nrec-1 into the table under generation ``gen`` (slots of any other stamp count as free),
    but for those whose ``lay`` is negative (the sweep's free records; ``lay`` may be shorter than nrec)."""
    mask = table.shape[0] - 1
    g = np.uint64(gen)
    for e in range(nrec):
        if e < lay.shape[0] and lay[e] < 0:
            continue
        h = words_hash(recs[e], recs.shape[1])
        s = np.int64(h & np.uint64(mask))
        while (table[s] >> np.uint64(52)) == g:
            s = (s + 1) & mask
        want = (g << np.uint64(20)) | ((h >> np.uint64(44)) & np.uint64(0xFFFFF))
        table[s] = (want << np.uint64(32)) | np.uint64(e)


@nb.njit(cache=True)
def _rehash(recs, nrec, tsize):
    """A new table of tsize slots (generation 1) holding records 0..nrec-1."""
    table = np.zeros(tsize, dtype=np.uint64)
    _reinsert(recs, nrec, table, 1, np.zeros(0, dtype=np.int64))
    return table


# --- the search, resumable: its scalars live in ctl between slices ------------------
(C_HSIZE, C_NREC, C_NODES, C_BEST, C_OUTCOME, C_GOALP, C_GOALC, C_STOP, C_GEN, C_HSIZE2, C_SECOND_AT, C_SECOND_ON,
 C_SINK, C_SEEN_GEN, C_ORDER, C_LAYER, C_HIGH, C_TOTAL, C_FREE, C_DONE, C_DONE_HERE, C_DEPTH,
 C_QPREV, C_QLEV, C_QHEAD, C_QEND, C_QTAIL, C_LBASE, C_RUNMIN, C_WANT, C_SPILL) = range(31)
CTL_SIZE = 31
KID_CHUNK = 64  # children handled together (their table probes overlap)
STATE_WORDS = (STATE_SIZE + 7) // 8  # the search's own positions are padded to whole words, copied word by word
RUNNING = -1
NEED_ROOM = -2  # a leaf kernel's answer: an array must grow before the search goes on
# A record's move word (int32, ``mcode``): the move that reached it (bits 0..11: head * 64 + target < 4096), a flag
# set once it has been expanded (each one is, exactly once), and its depth (bits 13..30, capped at DEPTH_MAX - 1).
CODE_MASK = (1 << 12) - 1
EXPANDED = 1 << 12
DEPTH_SHIFT = 13
DEPTH_MAX = 1 << 18
# The searches' orders (ctl[C_ORDER]): the guide, with the second order below once SECOND_AT positions are stored;
# or the retry's depth first order, siblings by the kind of move (module docstring, "The search").
ORDER_GUIDE, ORDER_DEPTH_FIRST = 0, 1
# The sweep (module docstring, "The sweep"): an exhaustive search by layers no move goes back to (cards up for
# good, then the cards no longer blocked) that forgets each layer once it is done; the last search a deal gets.
ORDER_SWEEP = 2
# The second order (started once SECOND_AT positions are stored, 0: never): novel positions first, then the most
# cards up, then the guide (module docstring, "The search").  The two orders take turns over one table, so every
# stored position is still expanded once.
SECOND_AT = 200_000
# The second order's atoms: (card, what lies under it) with "under" a card 0..51, BOTTOM (the column's floor) or
# IN_CELL; one uint16 stamp per atom and per count of cards up (0..52) says which deal last saw it.
BOTTOM = 52
IN_CELL = 53
N_ATOMS = 52 * 54
# The searches a deal gets, in turn, each only if the ones before left it unknown by max_nodes (module docstring,
# "The search"): (order, single cards) for the guide's, then the depth-first retries, with single cards and with
# runs (a search the same as one already made, as in King Albert's one-card rule, is skipped).
# The streamlined search (module docstring): depth first, every ready card sent up at once; only its wins count.
# It stores at most max_nodes // STREAMLINED_SHARE positions.
ORDER_STREAMLINED = 3
STREAMLINED_SHARE = 2
# The depth-first retries store at most max_nodes // RETRY_SHARE positions each (module docstring, "The retry").
RETRY_SHARE = 2
STREAMLINERS = (1, 1)  # (P_EAGER, P_SUITS) in the streamlined search; (0, 0) makes it a plain exhaustive search
COLOUR_STREAMLINERS = (0, 1)  # (P_EAGER, P_SUITS) in the colour search (ORDER_COLOURS, below)
DFS_DEPTH, DFS_MOVES = 1 << 17, 1 << 23  # the longest line it follows, and the moves waiting along it
# The line search (module docstring, "The line search"): the streamlined search's kernel with no streamliner, its
# moves in Solvitaire's order, its line kept as 48-byte records; it stores at most LINE_ROOM x max_nodes positions.
ORDER_LINE = 4
LINE_ROOM = 5  # 6 columns deal 7621 (seed 99) is won in 33.9 M positions: 3 x 10^7 did not hold them (docstring)
LINE_DEPTH, LINE_MOVES = 1 << 22, 1 << 25
# The one-line-at-a-time searches' and the sweep's table doubles when half full, but from BIG_TABLE slots (512 MiB)
# on only when four fifths full: King Albert's line search (room 5 x 10^7) then keeps its positions in 512 MiB,
# not 1 GiB.  Measured on seed 99 deal 1856, the line search alone filling that room: peak 3,344 MiB against 3,633,
# and 381 s of solving against 388 (longer probes, no slower; three quarters then, and 5 x 10^7 fit in either);
# deal 490, unsolvable, in the same 47,401,245 positions.  The sweep's room of 5.3 x 10^7 live positions fits in
# 512 MiB of table the same way (at 0.79).
BIG_TABLE = 1 << 26
# The line search replaced the depth-first retries (module docstring, "The line search"): it wins the deals they
# were kept for (Raglan, seed 99 deal 557; 7 columns 494) and deals none of the others decides.
# The long guide (module docstring, "The long guide"): the guide again from the start, with fresh atoms for its
# second order, storing up to GUIDE_ROOM x max_nodes positions; after the line search, before the sweep.
ORDER_LONG_GUIDE = 5
GUIDE_ROOM = 3  # 6 columns deal 3419 (seed 99) is won in 16.2 M expansions; 3 x 10^7 stay under 3 GiB
# The colour search (module docstring): the streamlined search's kernel (ORDER_STREAMLINED) again, with its colour
# streamliner alone, no card sent up that a safe move would not send; only where cards build in alternating
# colours (elsewhere it has no streamliner to use); max_nodes // STREAMLINED_SHARE positions, as the first.
ORDER_COLOURS = 6
SEARCH_ORDERS = ((ORDER_GUIDE, False), (ORDER_STREAMLINED, True), (ORDER_COLOURS, True), (ORDER_LINE, True),
                 (ORDER_LONG_GUIDE, False), (ORDER_SWEEP, True))
# The sweep's budget (module docstring, "The sweep"): at most SWEEP_LIVE x max_nodes positions held at once, at
# most SWEEP_TOTAL x max_nodes stored in all (each costs one expansion), every one with its parent link and move
# (8 bytes), SWEEP_LINK_BUFFER of them in memory, written out to a temporary file each time they fill it.
# 6 columns deal 279 (seed 99): unsolvable with 38.1 M live at most (sampled); unknown at 3 x 10^7; 3004 is won
# with 51.0 M live at most (sampled every 10^6 expansions: at most 52.0 M).  5.3 x 10^7 is what 2^26 slots hold
# at four fifths, and with 24-byte records (module docstring, "The sweep's records") the process's peak stays
# near 3 GiB.  A fraction: the room is int(SWEEP_LIVE x max_nodes).
SWEEP_LIVE = 5.3
SWEEP_TOTAL = 30  # ... 279 stores 216.6 M positions in all, and 3004 wins after 275.6 M
SWEEP_LINK_BUFFER = 1 << 22  # 32 MiB of links; 2.5 x 10^8 positions write 2 GB to the file
SWEEP_FLUSH_ROOM = 4096  # written out once fewer than this are free: more than one expansion's children
# The sweep's runs (module docstring, "The sweep's runs"): once fewer than SWEEP_SPILL_ROOM live positions are
# free (more than one expansion's children; 0: never) and the heap holds at least a SPILL_SHARE-th of the room,
# the heap's highest layers go to disk, all but about its lowest SPILL_KEEP-th; a layer's positions come back
# from disk a SWEEP_LOAD_SHARE-th of the room at most per run (but a layer always whole).
SWEEP_SPILL_ROOM = 4096
SPILL_SHARE = 4
SPILL_KEEP = 4
SWEEP_LOAD_SHARE = 8
WANT_SPILL, WANT_LOAD = 1, 2  # ctl[C_WANT]: the sweep kernel returned for its waiting positions to go out, come in


def sweep_room(max_nodes: int) -> int:
    """The most live positions the sweep may hold at once under a budget of ``max_nodes``."""
    return max(1, int(SWEEP_LIVE * max_nodes))  # at least the root's


# Baker's Game's and FreeCell's max_nodes help (King Albert sets its own)
MAX_NODES_DOC = max_nodes_doc(LINE_ROOM, ", about 3.3 GB at the default")


@nb.njit(cache=True)
def _search_start(st0, rel, params, recs, parent, mcode, heap, table, gen, ctl, ref, frame):
    """Close the root under safe moves, store it (as the sweep's record when ``frame`` is not empty), and set
    ctl for :func:`_search` (st0 is modified)."""
    empty_out = np.zeros(0, dtype=np.int64)
    _closure(st0, rel, params, empty_out, 0)
    best = _foundation_total(st0)
    ctl[C_NODES] = 0
    ctl[C_BEST] = best
    ctl[C_GOALP] = -2
    ctl[C_GOALC] = -1
    ctl[C_GEN] = gen
    ctl[C_HSIZE2] = 0
    ctl[C_SECOND_ON] = 0
    if best == 52:
        ctl[C_GOALP] = -1
        ctl[C_OUTCOME] = WON
        ctl[C_NREC] = 0
        ctl[C_HSIZE] = 0
        return
    enc = np.zeros(REC_WORDS, dtype=np.uint64)
    order = np.zeros(ORDER_SCRATCH, dtype=np.int64)
    hv = _encode_record(st0, params, enc, order, ref, frame)
    _lookup_insert_h(enc, hv, recs, 0, table, gen)
    parent[0] = -1
    mcode[0] = CODE_MASK  # the root's move is never read
    ctl[C_NREC] = 1
    ctl[C_HSIZE] = heap_push(heap, 0, (np.int64(_heuristic(st0, rel, params)) << 32) | (0xFFFFFFFF - 0))
    ctl[C_OUTCOME] = RUNNING


@nb.njit(cache=True, inline="always")
def _novel(st, up, params, seen, stamp):
    """1 if position st, with ``up`` cards on its foundations, holds an atom (a card and what lies under it) that
    no position keyed before it in the second order held with as many cards up; marks its atoms as seen
    (``seen[up, atom] = stamp``)."""
    g = np.uint16(stamp)
    novel = 0
    for i in range(params[P_NCOLS]):
        base = i * WIDTH
        under = BOTTOM
        for p in range(np.int64(st[O_LEN + i])):
            c = np.int64(st[base + p])
            a = c * 54 + under
            if seen[up, a] != g:
                seen[up, a] = g
                novel = 1
            under = c
    for j in range(params[P_NCELLS]):
        c = st[O_CELL + j]
        if c != NOCARD:
            a = np.int64(c) * 54 + IN_CELL
            if seen[up, a] != g:
                seen[up, a] = g
                novel = 1
    return novel


@nb.njit(cache=True, inline="always")
def _key2(st, h, idx, params, seen, stamp):
    """The second order's heap key: novel positions first, then the most cards up, then the guide, then the
    newest."""
    up = _foundation_total(st)
    rank = (np.int64(1 - _novel(st, up, params, seen, stamp)) << 20) + (np.int64(52 - up) << 12)
    return ((rank + min(h, 4095)) << 32) | (0xFFFFFFFF - idx)


@nb.njit(cache=True, inline="always")
def _move_kind(m, cur):
    """The depth-first order's rank of move m from position cur: to a foundation 0, out of a cell 1, onto a
    card 2, into an empty column 3, into a cell 4, a foundation card played back 5."""
    if (m & WORRY_MOVE) != 0:
        return 5
    dst = m >> DST_SHIFT
    if dst == DST_FND:
        return 0
    if (m & SRC_MASK) >= SRC_CELL:
        return 1
    if dst == DST_CELL:
        return 4
    return 3 if cur[O_LEN + dst] == 0 else 2


@nb.njit(cache=True, inline="always")
def _key_depth_first(d, kind, idx):
    """The depth-first order's heap key: deepest first, then the kind of move, then the newest."""
    return ((np.int64(DEPTH_MAX - min(d, DEPTH_MAX - 1)) * 8 + kind) << 32) | (0xFFFFFFFF - idx)


@nb.njit(cache=True, inline="always")
def _key2_waiting(h, idx):
    """The second order's key for a position already waiting when it starts: not novel, ranked as if every card
    were up (so ahead of the later positions that are not novel), then the guide.  Measured against keying them
    like new positions (decoded, their atoms marked): FreeCell seed 99, 1,000 deals, 2 cells 41.0 M expansions
    against 52.4 M, 3 cells 25.6 M against 29.1 M."""
    return (((np.int64(1) << 20) + min(h, 4095)) << 32) | (0xFFFFFFFF - idx)


@nb.njit(cache=True)
def _grow(a, n, cap):
    b = np.empty((cap,) + a.shape[1:], dtype=a.dtype)
    b[:n] = a[:n]
    return b


@nb.njit(cache=True, inline="always")
def _expansion_buffers():
    """The scratch arrays of one expansion loop: (no safe-move log, moves, column order, the position expanded,
    a chunk of children, their encodings (words), move codes, move kinds and hashes)."""
    return (np.zeros(0, dtype=np.int64), np.zeros(2048, dtype=np.int64), np.zeros(ORDER_SCRATCH, dtype=np.int64),
            np.zeros(STATE_WORDS * 8, dtype=np.uint8), np.zeros((KID_CHUNK, STATE_WORDS * 8), dtype=np.uint8),
            np.zeros((KID_CHUNK, REC_WORDS), dtype=np.uint64), np.zeros(KID_CHUNK, dtype=np.int64),
            np.zeros(KID_CHUNK, dtype=np.int64), np.zeros(KID_CHUNK, dtype=np.uint64))


@leaf_kernel
def _prepare_children(cur, mv, q0, q1, kids, encs, hashes, codes, kinds, with_kinds, rel, params, order, table,
                      empty_out, ref, frame):
    """Children q0..q1-1 of position cur (moves mv): each made, closed under safe moves, encoded and hashed into
    row q - q0 of kids, encs, hashes, codes (and the move kinds, if asked), and its table slot read at once, so
    the cache misses of the chunk's probes overlap instead of coming one after another.  Returns (the most
    cards up among them, the first won child's q or -1, the bits read: kept so the reads are not dropped).
    The records are the sweep's (``_encode_frame``) when ``frame`` is not empty."""
    cur_w = cur.view(np.uint64)
    kids_w = kids.view(np.uint64)  # once, not a view a child
    mask = np.uint64(table.shape[0] - 1)
    best = 0
    sink = np.uint64(0)
    for q in range(q0, q1):
        ch = kids[q - q0]
        ch_w = kids_w[q - q0]
        for t in range(STATE_WORDS):  # a word loop: much faster than numba's ch[:] = cur
            ch_w[t] = cur_w[t]
        if with_kinds:
            kinds[q - q0] = _move_kind(mv[q], cur)
        codes[q - q0] = _apply(ch, mv[q], params)
        _closure(ch, rel, params, empty_out, 0)
        f = _foundation_total(ch)
        if f > best:
            best = f
        if f == 52:
            return best, q, sink
        hv = _encode_record(ch, params, encs[q - q0], order, ref, frame)
        hashes[q - q0] = hv
        sink ^= table[np.int64(hv & mask)]
    return best, np.int64(-1), sink


@leaf_kernel
def _store_children(q, q0, q1, idx, dchild, nrec, hsize, hsize2, gen, stamp, depth_first, second, kids, encs,
                    hashes, codes, kinds, rel, params, recs, parent, mcode, heap, heap2, table, seen):
    """Store children q..q1-1 of record idx (prepared by _prepare_children into row q - q0 of kids, encs,
    hashes, codes, kinds) that are new, with their parent link, move word and heap keys.  Returns (the next
    child, nrec, hsize, hsize2, outcome): outcome UNKNOWN when a new child finds max_nodes stored, NEED_ROOM
    when an array or the table must grow before child q is stored (the caller grows it and calls again from
    q), else RUNNING."""
    max_nodes = params[P_MAXNODES]
    while q < q1:
        w = encs[q - q0]
        hv = hashes[q - q0]
        if nrec >= max_nodes:
            # is it new? only then does the budget matter
            if _find_h(w, hv, recs, table, gen)[1] < 0:
                return q, nrec, hsize, hsize2, UNKNOWN
            q += 1
            continue
        if (nrec >= recs.shape[0] or nrec >= parent.shape[0] or (second and nrec >= heap2.shape[0])
                or 2 * (nrec + 1) > table.shape[0]):
            return q, nrec, hsize, hsize2, NEED_ROOM
        e, inserted = _lookup_insert_h(w, hv, recs, nrec, table, gen)
        if inserted:
            parent[nrec] = idx
            mcode[nrec] = codes[q - q0] | (min(dchild, DEPTH_MAX - 1) << DEPTH_SHIFT)
            if depth_first:
                hsize = heap_push(heap, hsize, _key_depth_first(dchild, kinds[q - q0], nrec))
            else:
                h = np.int64(_heuristic(kids[q - q0], rel, params))
                hsize = heap_push(heap, hsize, (h << 32) | (0xFFFFFFFF - nrec))
                if second:
                    hsize2 = heap_push(heap2, hsize2, _key2(kids[q - q0], h, nrec, params, seen, stamp))
            nrec += 1
        q += 1
    return q, nrec, hsize, hsize2, RUNNING


@nb.njit(cache=True)
def _search(rel, params, recs, parent, mcode, heap, heap2, table, ctl, seen):
    """Best-first search from the state in ctl until it is decided or ctl[C_NODES] reaches ctl[C_STOP].

    ctl[C_OUTCOME] becomes WON, UNSOLVABLE (heaps empty: every reachable position expanded) or UNKNOWN
    (max_nodes stored and a new one found), or stays RUNNING (paused; call again to go on).  Returns the work
    arrays, which may have grown.
    """
    max_nodes = params[P_MAXNODES]
    empty_out, mv, order, cur, kids, encs, codes, kinds, hashes = _expansion_buffers()
    sink = np.uint64(0)
    hsize = ctl[C_HSIZE]
    hsize2 = ctl[C_HSIZE2]
    nrec = ctl[C_NREC]
    nodes = ctl[C_NODES]
    best = ctl[C_BEST]
    gen = ctl[C_GEN]
    stamp = ctl[C_SEEN_GEN]
    depth_first = ctl[C_ORDER] == ORDER_DEPTH_FIRST
    stop = ctl[C_STOP]
    second_at = ctl[C_SECOND_AT]
    second = ctl[C_SECOND_ON] != 0
    outcome = RUNNING
    while outcome == RUNNING:
        if nodes >= stop:
            break
        if not second and second_at > 0 and nrec >= second_at and not depth_first:
            # start the second order: every position waiting in the first heap waits in the second too, as
            # not novel, in the guide's order, ahead of the positions stored later that are not novel either
            if heap2.shape[0] < recs.shape[0]:
                heap2 = np.empty(recs.shape[0], dtype=np.int64)
            hsize2 = 0
            for t in range(hsize):
                k = heap[t]
                hsize2 = heap_push(heap2, hsize2, _key2_waiting(k >> 32, 0xFFFFFFFF - (k & 0xFFFFFFFF)))
            second = True
        # take turns; a position already expanded through the other heap is skipped
        idx = -1
        use2 = second and (nodes & 1) == 1
        while idx < 0 and (hsize > 0 or hsize2 > 0):
            if (use2 and hsize2 > 0) or hsize == 0:
                key, hsize2 = heap_pop(heap2, hsize2)
            else:
                key, hsize = heap_pop(heap, hsize)
            e = 0xFFFFFFFF - (key & 0xFFFFFFFF)
            if (mcode[e] & EXPANDED) == 0:
                idx = e
        if idx < 0:
            outcome = UNSOLVABLE
            break
        mcode[idx] |= EXPANDED
        _decode(recs[idx], params, cur)
        nodes += 1
        dchild = (np.int64(mcode[idx]) >> DEPTH_SHIFT) + 1
        nm = _gen_moves(cur, rel, params, mv)
        for q0 in range(0, nm, KID_CHUNK):
            q1 = min(nm, q0 + KID_CHUNK)
            # every child of the chunk closed and encoded first, its table slot read at once: the cache misses
            # of the children's probes then overlap instead of coming one after another
            f, won, touched = _prepare_children(cur, mv, q0, q1, kids, encs, hashes, codes, kinds, depth_first,
                                                rel, params, order, table, empty_out, cur, empty_out)
            sink ^= touched
            best = max(best, f)
            if won >= 0:
                ctl[C_GOALP] = idx
                ctl[C_GOALC] = codes[won - q0]
                outcome = WON
                break
            q = q0
            while q < q1:  # stored by a leaf kernel, which stops where an array needs room (grown here)
                q, nrec, hsize, hsize2, outcome = _store_children(
                    q, q0, q1, idx, dchild, nrec, hsize, hsize2, gen, stamp, depth_first, second, kids, encs, hashes,
                    codes, kinds, rel, params, recs, parent, mcode, heap, heap2, table, seen)
                if outcome != NEED_ROOM:
                    break
                outcome = RUNNING
                if nrec >= recs.shape[0] or nrec >= parent.shape[0]:  # recs may be larger (the sweep's)
                    cap = min(2 * nrec, max_nodes)
                    if nrec >= recs.shape[0]:
                        recs = _grow(recs, nrec, cap)
                    if nrec >= parent.shape[0]:  # made together with mcode and the heap
                        parent = _grow(parent, nrec, cap)
                        mcode = _grow(mcode, nrec, cap)
                        heap = _grow(heap, hsize, cap)
                if second and nrec >= heap2.shape[0]:
                    heap2 = _grow(heap2, hsize2, min(2 * nrec, max_nodes))
                if 2 * (nrec + 1) > table.shape[0]:
                    table = _rehash(recs, nrec, table.shape[0] * 2)
                    gen = 1
            if outcome != RUNNING:
                break
    ctl[C_HSIZE] = hsize
    ctl[C_HSIZE2] = hsize2
    ctl[C_SECOND_ON] = 1 if second else 0
    ctl[C_NREC] = nrec
    ctl[C_NODES] = nodes
    ctl[C_BEST] = best
    ctl[C_GEN] = gen
    ctl[C_OUTCOME] = outcome
    ctl[C_SINK] = np.int64(sink & np.uint64(1))
    return recs, parent, mcode, heap, heap2, table


@nb.njit(cache=True, inline="always")
def _big_table_full(nrec, tsize):
    """Must the one-line-at-a-time searches' or the sweep's table double before record nrec goes in (BIG_TABLE)?"""
    return 2 * (nrec + 1) > tsize and (tsize < BIG_TABLE or 5 * (nrec + 1) > 4 * tsize)


@leaf_kernel
def _sweep_layer(st, rel, params):
    """The sweep's layer of position st (module docstring, "The sweep"): with u its cards up that can never come
    back (all of them, or under worrying back those of rank at most one above the lowest foundation) and S the
    set of the cards that are not blocked (a card is blocked when it lies on a card it could not be built on),
    (u + |S|) x 2^52 plus S as 52 bits.  No move the search makes lowers it."""
    blocked = np.int64(0)
    nblocked = np.int64(0)
    for i in range(params[P_NCOLS]):
        base = i * WIDTH
        for p in range(1, np.int64(st[O_LEN + i])):
            x = st[base + p]
            if not _accepts(x, st[base + p - 1], rel, params):
                blocked |= np.int64(1) << np.int64(x)
                nblocked += 1
    up = np.int64(_foundation_total(st))
    if params[P_WORRY] != 0:
        m = np.int64(min(min(st[O_FND], st[O_FND + 1]), min(st[O_FND + 2], st[O_FND + 3])))
        up = 0
        for s in range(4):
            up += min(np.int64(st[O_FND + s]), m + 1)
    return ((up + 52 - nblocked) << 52) | (((np.int64(1) << 52) - 1) ^ blocked)


@leaf_kernel
def _sweep_drop(recs, lay, high, layer, table, gen, free):
    """Free every live record below ``layer`` (all expanded, none can be met again: the finished layers' and
    the levels of this one marked 0 by the sweep): each is marked (lay -1) and
    put on the free list threaded through its first word (the next free record + 1); the table is stamped anew
    with the records left.  Returns (records freed, the table's generation, the free list's head)."""
    freed = 0
    for e in range(high):
        u = lay[e]
        if 0 <= u < layer:
            lay[e] = -1
            recs[e, 0] = np.uint64(free + 1)
            free = e
            freed += 1
    gen += 1
    if gen > GEN_MAX:
        table[:] = 0
        gen = 1
    _reinsert(recs, high, table, gen, lay)
    return freed, gen, free


@leaf_kernel
def _sweep_store(q, q0, q1, pid, nlive, high, free, hsize, done, done_here, ntotal, gen, layer, max_live, total_cap,
                 lbase, qprev, qtail, kids, encs, hashes, codes, rel, params, recs, lay, rid, heap, fifo, parent,
                 code, table):
    """:func:`_sweep`'s storing of children q..q1-1 of position number pid (prepared by _prepare_children), the
    new ones into a free record or the next one, each to the end of the layer's queue (``fifo``, a ring from
    qprev to qtail) when it is in the layer being expanded, else to the heap; each keeps its number among all
    the positions stored (``rid``), and its parent's number and move go to the links (``parent``, ``code``) at its
    number less ``lbase``, the links written out before.  Returns (the next child, nlive, high,
    free, hsize, done, ntotal, gen, qtail, outcome): outcome UNKNOWN when a new child finds no room, NEED_ROOM
    when an array or the table must grow before child q is stored (the caller grows it and calls again from q),
    else RUNNING."""
    while q < q1:
        w = encs[q - q0]
        hv = hashes[q - q0]
        if nlive >= max_live and done > done_here:  # make room: free the finished layers now
            freed, gen, free = _sweep_drop(recs, lay, high, layer, table, gen, free)
            nlive -= freed
            done = done_here
        if nlive >= max_live or ntotal >= total_cap:
            if _find_h(w, hv, recs, table, gen)[1] < 0:  # new: it needs room there is not
                return q, nlive, high, free, hsize, done, ntotal, gen, qtail, UNKNOWN
            q += 1
            continue
        if ((free < 0 and (high >= recs.shape[0] or high >= lay.shape[0]))
                or ntotal - lbase >= parent.shape[0] or _big_table_full(nlive, table.shape[0])
                or qtail - qprev >= fifo.shape[0]):
            return q, nlive, high, free, hsize, done, ntotal, gen, qtail, NEED_ROOM
        slot, after = high, free  # a free record if there is one (its next read before it is written)
        if free >= 0:
            slot, after = free, np.int64(recs[free, 0]) - 1
        if _lookup_insert_h(w, hv, recs, slot, table, gen)[1]:
            if slot == high:
                high += 1
            free = after
            lay[slot] = _sweep_layer(kids[q - q0], rel, params)
            rid[slot] = ntotal
            parent[ntotal - lbase] = pid
            code[ntotal - lbase] = codes[q - q0]
            if lay[slot] == layer:  # the next level of the layer being expanded
                fifo[qtail % fifo.shape[0]] = slot
                qtail += 1
            else:
                hsize = index_heap_push(heap, hsize, lay, slot)
            nlive += 1
            ntotal += 1
        q += 1
    return q, nlive, high, free, hsize, done, ntotal, gen, qtail, RUNNING


@leaf_kernel
def _sweep_load(keys, rids, inrecs, recs, lay, rid, heap, hsize, table, gen, free, high, nlive):
    """Positions read back from the sweep's runs (module docstring, "The sweep's runs") into free records or the
    next ones, each to the heap with its layer key and number, but for those already live (a copy met again after
    it went out, or in two runs): those are merged, the record in memory kept.  The arrays and the table must
    have room for all of them.  Returns (hsize, free, high, nlive)."""
    for i in range(keys.shape[0]):
        w = inrecs[i]
        slot, after = high, free
        if free >= 0:
            slot, after = free, np.int64(recs[free, 0]) - 1
        if _lookup_insert_h(w, words_hash(w, recs.shape[1]), recs, slot, table, gen)[1]:
            if slot == high:
                high += 1
            free = after
            lay[slot] = keys[i]
            rid[slot] = rids[i]
            hsize = index_heap_push(heap, hsize, lay, slot)
            nlive += 1
    return hsize, free, high, nlive


@leaf_kernel
def _level_cut(heap, h, lay, keep, counts):
    """The least layer key of the level (key >> 52, u + |S|, below 128) of the (h // keep)-th least entry of
    the sweep's heap ``heap[:h]`` (``counts``: int64[128], scratch): where a run starts (module docstring, "The
    sweep's runs").  By level, so that no key is copied to choose it."""
    counts[:] = 0
    for i in range(h):
        counts[lay[heap[i]] >> 52] += 1
    c, seen = 0, counts[0]
    while seen <= h // keep:
        c += 1
        seen += counts[c]
    return np.int64(c) << 52


@leaf_kernel
def _split_at(heap, h, lay, cut):
    """Reorder ``heap[:h]`` in place: the entries with keys below ``cut`` first; returns how many they are."""
    k = 0
    for i in range(h):
        e = heap[i]
        if lay[e] < cut:
            heap[i] = heap[k]
            heap[k] = e
            k += 1
    return k


@leaf_kernel
def _keys_of(idx, lay, keys):
    """``keys[i] = lay[idx[i]]``, without numpy's temporary index array."""
    for i in range(idx.shape[0]):
        keys[i] = lay[idx[i]]


@leaf_kernel
def _mark(idx, lay, value):
    """``lay[idx[i]] = value`` for every i, without numpy's temporary index array."""
    for i in range(idx.shape[0]):
        lay[idx[i]] = value


@nb.njit(cache=True)
def _grow_ring(fifo, lo, hi):
    """The ring ``fifo`` (entry c at c mod its size) with entries lo..hi-1 kept, in a ring twice as large."""
    b = np.empty(2 * fifo.shape[0], dtype=fifo.dtype)
    for c in range(lo, hi):
        b[c % b.shape[0]] = fifo[c % fifo.shape[0]]
    return b


@nb.njit(cache=True)
def _sweep(rel, params, recs, lay, rid, heap, fifo, parent, code, table, ctl, max_live, total_cap, flush_at, ref,
           frame):
    """The sweep (module docstring, "The sweep") from the state in ctl until it is decided, ctl[C_NODES] reaches
    ctl[C_STOP], or the links in memory reach ``flush_at`` (the caller writes them out: :meth:`Workspace.spill`).

    Records 0..ctl[C_HIGH]-1 hold the live positions and the free ones (``lay``: each one's layer, -1 when free;
    ``rid``: its number among all the positions stored, which numbers its link, parent's number and move: in
    ``parent`` and ``code`` at that number less ctl[C_LBASE], the links already written out).  The live records
    not yet expanded wait in the layer's queue (``fifo``, a ring: level d - 1 from ctl[C_QPREV], d from
    ctl[C_QLEV], the next to expand at ctl[C_QHEAD], d + 1 from ctl[C_QEND] to ctl[C_QTAIL]) when they are in
    the layer being expanded (ctl[C_LAYER]), else in ``heap`` by layer, then record number.  Once the queue is
    empty, every record expanded so far is in a finished layer, and with P_FRONTIER so is level d - 1 once
    level d is expanded (marked with layer 0); they are freed (``_sweep_drop``, a pass over the records and the
    table) when they are at least half the live ones, or when a new position needs their room.  UNSOLVABLE when
    the queue and the heap are empty; UNKNOWN when a new position
    would make more than ``max_live`` live (after freeing what can be freed) or ``total_cap`` stored in all.
    With the runs on (ctl[C_SPILL] > 0, the room kept free), it returns with ctl[C_WANT] set instead: WANT_SPILL
    when the room is nearly full and the heap holds enough to write out, WANT_LOAD at a layer's end when the
    least layer on disk (ctl[C_RUNMIN]) is due (module docstring, "The sweep's runs"; the caller does either
    and calls again).
    The records are told relative
    to the root ``ref`` through ``frame`` (:func:`_sweep_frame`; module docstring, "The sweep's records").
    Returns the work arrays, which may have grown.
    """
    empty_out, mv, order, cur, kids, encs, codes, kinds, hashes = _expansion_buffers()
    sink = np.uint64(0)
    nlive = ctl[C_NREC]
    high = ctl[C_HIGH]
    free = ctl[C_FREE]
    hsize = ctl[C_HSIZE]
    done = ctl[C_DONE]  # live records already expanded
    done_here = ctl[C_DONE_HERE]  # ... of them in the layer being expanded (the others can be freed)
    ntotal = ctl[C_TOTAL]
    lbase = ctl[C_LBASE]
    layer = ctl[C_LAYER]
    nodes = ctl[C_NODES]
    best = ctl[C_BEST]
    gen = ctl[C_GEN]
    stop = ctl[C_STOP]
    qprev, qlev, qhead, qend, qtail = ctl[C_QPREV], ctl[C_QLEV], ctl[C_QHEAD], ctl[C_QEND], ctl[C_QTAIL]
    outcome = RUNNING
    runmin = ctl[C_RUNMIN]  # the least layer waiting on disk (module docstring, "The sweep's runs")
    while outcome == RUNNING:
        if nodes >= stop or ntotal - lbase >= flush_at:
            break
        if ctl[C_SPILL] > 0 and nlive + ctl[C_SPILL] >= max_live:  # the room is nearly full
            if done > done_here:
                freed, gen, free = _sweep_drop(recs, lay, high, layer, table, gen, free)
                nlive -= freed
                done = done_here
            if nlive + ctl[C_SPILL] >= max_live and SPILL_SHARE * hsize >= max_live:
                ctl[C_WANT] = WANT_SPILL  # the waiting positions out to disk: the caller writes them
                break
        if qhead == qend:  # a level is done, and the layer with it when the queue is empty
            if qhead == qtail:  # every record expanded so far is in a finished layer
                if runmin != NONE_WAITING and (hsize == 0 or lay[heap[0]] >= runmin):
                    ctl[C_WANT] = WANT_LOAD  # the next layer's positions on disk first: the caller reads them
                    break
                if hsize == 0:
                    outcome = UNSOLVABLE
                    break
                layer = lay[heap[0]]
                done_here = 0
                qprev = qlev = qhead = qend = qtail = 0
                while hsize > 0 and lay[heap[0]] == layer:  # the new layer's positions met so far: its level 0
                    if qtail >= fifo.shape[0]:
                        fifo = _grow_ring(fifo, 0, qtail)
                    first, hsize = index_heap_pop(heap, hsize, lay)
                    fifo[qtail] = first
                    qtail += 1
            elif params[P_FRONTIER] != 0:  # level d - 1 can be freed: no position of level d + 1 meets it
                for c in range(qprev, qlev):
                    lay[fifo[c % fifo.shape[0]]] = 0  # below every layer: _sweep_drop frees it
                done_here -= qlev - qprev
            qprev, qlev, qend = qlev, qend, qtail
            if 2 * (done - done_here) >= nlive and done > done_here:  # the freeable are half the live: free them
                freed, gen, free = _sweep_drop(recs, lay, high, layer, table, gen, free)
                nlive -= freed
                done = done_here
        e = fifo[qhead % fifo.shape[0]]
        qhead += 1
        _decode_frame(recs[e], ref, frame, params, cur)
        nodes += 1
        done += 1
        done_here += 1
        pid = rid[e]
        nm = _gen_moves(cur, rel, params, mv)
        for q0 in range(0, nm, KID_CHUNK):
            q1 = min(nm, q0 + KID_CHUNK)
            f, won, touched = _prepare_children(cur, mv, q0, q1, kids, encs, hashes, codes, kinds, False,
                                                rel, params, order, table, empty_out, ref, frame)
            sink ^= touched
            best = max(best, f)
            if won >= 0:
                ctl[C_GOALP] = pid
                ctl[C_GOALC] = codes[won - q0]
                outcome = WON
                break
            q = q0
            while q < q1:  # stored by a leaf kernel, which stops where an array needs room (grown here)
                q, nlive, high, free, hsize, done, ntotal, gen, qtail, outcome = _sweep_store(
                    q, q0, q1, pid, nlive, high, free, hsize, done, done_here, ntotal, gen, layer, max_live,
                    total_cap, lbase, qprev, qtail, kids, encs, hashes, codes, rel, params, recs, lay, rid, heap,
                    fifo, parent, code, table)
                if outcome != NEED_ROOM:
                    break
                outcome = RUNNING
                if qtail - qprev >= fifo.shape[0]:
                    fifo = _grow_ring(fifo, qprev, qtail)
                if free < 0 and (high >= recs.shape[0] or high >= lay.shape[0]):  # lay, rid, heap made together
                    cap = min(2 * high, max_live)
                    if high >= recs.shape[0]:
                        recs = _grow(recs, high, cap)
                    if high >= lay.shape[0]:
                        lay = _grow(lay, high, cap)
                        rid = _grow(rid, high, cap)
                        heap = _grow(heap, hsize, cap)
                if ntotal - lbase >= parent.shape[0]:  # more links than the buffer holds before they are written
                    parent = _grow(parent, ntotal - lbase, 2 * parent.shape[0])
                    code = _grow(code, ntotal - lbase, 2 * code.shape[0])
                if _big_table_full(nlive, table.shape[0]):
                    table = np.zeros(table.shape[0] * 2, dtype=np.uint64)
                    gen = 1
                    _reinsert(recs, high, table, gen, lay)
            if outcome != RUNNING:
                break
    ctl[C_NREC] = nlive
    ctl[C_HIGH] = high
    ctl[C_FREE] = free
    ctl[C_HSIZE] = hsize
    ctl[C_DONE] = done
    ctl[C_DONE_HERE] = done_here
    ctl[C_TOTAL] = ntotal
    ctl[C_LAYER] = layer
    ctl[C_NODES] = nodes
    ctl[C_BEST] = best
    ctl[C_GEN] = gen
    ctl[C_OUTCOME] = outcome
    ctl[C_SINK] = np.int64(sink & np.uint64(1))
    ctl[C_QPREV], ctl[C_QLEV], ctl[C_QHEAD], ctl[C_QEND], ctl[C_QTAIL] = qprev, qlev, qhead, qend, qtail
    return recs, lay, rid, heap, fifo, parent, code, table


@nb.njit(cache=True, inline="always")
def _by_colour(st, params, red):
    """Position st with every card replaced by its colour and rank (black 0..12, red 13..25), into red: the
    streamlined search's key (module docstring, "The streamlined search"); foundations are left out."""
    w, v = st.view(np.uint64), red.view(np.uint64)
    for t in range(STATE_WORDS):
        v[t] = w[t]
    for i in range(params[P_NCOLS]):
        for p in range(np.int64(st[O_LEN + i])):
            c = st[i * WIDTH + p]
            red[i * WIDTH + p] = 13 * np.uint8(_red(c)) + c % 13
    for j in range(params[P_NCELLS]):
        c = st[O_CELL + j]
        if c != NOCARD:
            red[O_CELL + j] = 13 * np.uint8(_red(c)) + c % 13


@nb.njit(cache=True, inline="always")
def _dfs_key(st, params, red, enc, order):
    """The streamlined search's table key of position st, into enc (words): its canonical record (_encode), of its
    cards' colours and ranks only under P_SUITS (red is scratch)."""
    if params[P_SUITS] != 0:
        _by_colour(st, params, red)
        _encode(red, params, enc, order)
    else:
        _encode(st, params, enc, order)


@leaf_kernel
def _dfs_push_moves(st, rel, params, mv, smv, top):
    """The moves of position st onto the move stack smv from ``top``, by kind (_move_kind: to a foundation,
    out of a cell, onto a card, into an empty column, into a cell, played back), each kind in the order made;
    returns the new top, or -1 if the stack is full."""
    nm = _gen_moves(st, rel, params, mv)
    if top + nm > smv.shape[0]:
        return np.int64(-1)
    for kind in range(6):
        for q in range(nm):
            if _move_kind(mv[q], st) == kind:
                smv[top] = mv[q]
                top += 1
    return top


@nb.njit(cache=True, inline="always")
def _pile_above(st, j, i):
    """Does column j come before column i in Solvitaire's order of piles: the longer first, then by their cards
    from the bottom, the higher first (identical columns, which only empty ones can be, by index)?"""
    a, b = st[O_LEN + j], st[O_LEN + i]
    if a != b:
        return a > b
    for p in range(np.int64(a)):
        x, y = st[j * WIDTH + p], st[i * WIDTH + p]
        if x != y:
            return x > y
    return j < i


@nb.njit(cache=True, inline="always")
def _cell_above(st, j, i):
    """Does cell j come before cell i in Solvitaire's order: the higher card first, the empty cells last?"""
    x, y = st[O_CELL + j], st[O_CELL + i]
    xv = np.int64(-1) if x == NOCARD else np.int64(x)
    yv = np.int64(-1) if y == NOCARD else np.int64(y)
    return xv > yv or (xv == yv and j < i)


@nb.njit(cache=True, inline="always")
def _line_rank(m, st, pos, cpos, last, reserve):
    """The rank at which Solvitaire generates move m from position st (it tries the last generated first), or
    -1 for a move the line search leaves out: the card moved last, if no safe move followed, is neither sent to
    a cell or a foundation nor taken out of the cell it entered (module docstring, "The line search").

    Solvitaire's order (game_state.legal_moves.cpp), with piles and cells in its order (pos, cpos: 0 first):
    column to cell; foundation card played back (by suit, then target); reserve to column; column to column (by
    source, then target); cell to column (by cell, then target); to a foundation (the columns, then the cells
    or the reserve)."""
    big = np.int64(1) << 12
    if (m & WORRY_MOVE) != 0:
        return big // 2 + (m & 15) * 16 + pos[(m >> 8) & 255]
    src = m & SRC_MASK
    dst = m >> DST_SHIFT
    if src >= SRC_CELL:
        if st[O_CELL + src - SRC_CELL] == last:
            return np.int64(-1)
        if dst == DST_FND:
            return 3 * big + 16 + cpos[src - SRC_CELL]
        if reserve:
            return 3 * big // 4 + cpos[src - SRC_CELL] * 16 + pos[dst]
        return 2 * big + cpos[src - SRC_CELL] * 16 + pos[dst]
    card = st[src * WIDTH + ((m >> POS_SHIFT) & 63)]
    if dst == DST_FND:
        return np.int64(-1) if card == last else 3 * big + pos[src]
    if dst == DST_CELL:
        return np.int64(-1) if card == last else pos[src]
    return big + pos[src] * 16 + pos[dst]


@leaf_kernel
def _line_push_moves(st, rel, params, mv, smv, top, last, pos, cpos, keys):
    """The line search's moves of position st onto the move stack smv from ``top``, the one to try first at
    the top (_line_rank: Solvitaire's order reversed), the left-out ones dropped; returns the new top, or -1 if
    the stack is full.  pos (MAXCOLS), cpos (MAXCELLS) and keys (as long as mv) are scratch."""
    nm = _gen_moves(st, rel, params, mv)
    if top + nm > smv.shape[0]:
        return np.int64(-1)
    for i in range(params[P_NCOLS]):
        pos[i] = 0
        for j in range(params[P_NCOLS]):
            if j != i and _pile_above(st, j, i):
                pos[i] += 1
    for i in range(params[P_NCELLS]):
        cpos[i] = 0
        for j in range(params[P_NCELLS]):
            if j != i and _cell_above(st, j, i):
                cpos[i] += 1
    n = 0
    for q in range(nm):
        r = _line_rank(mv[q], st, pos, cpos, last, params[P_RESERVE] != 0)
        if r >= 0:
            mv[n] = mv[q]
            keys[n] = r
            n += 1
    for a in range(1, n):  # by rank, the highest first; equal ranks keep the order made
        k, m = keys[a], mv[a]
        b = a - 1
        while b >= 0 and keys[b] < k:
            keys[b + 1] = keys[b]
            mv[b + 1] = mv[b]
            b -= 1
        keys[b + 1] = k
        mv[b + 1] = m
    for q in range(n):
        smv[top + q] = mv[q]
    return top + n


@nb.njit(cache=True)
def _dfs(rel, params, recs, table, sst, smv, sbase, snext, scode, ctl):
    """The streamlined search (module docstring): depth first, one line at a time, as Solvitaire searches.

    sst[d] is the position at depth d of the line being followed (sst[0] the root, closed), its untried moves
    smv[snext[d]:sbase[d + 1]], and scode[d] the move made from it.  A position enters the table when the line
    first reaches it (not when it is generated, as in :func:`_search`), so a move not yet tried from one
    position may still be followed when the line meets its position deeper down.  Runs until decided or ctl[C_NODES] reaches ctl[C_STOP]: WON (the line is
    scode[0..ctl[C_DEPTH]]), UNSOLVABLE (every move of the root tried: with P_EAGER or P_SUITS this proves
    nothing, and the caller says unknown), UNKNOWN (max_nodes positions visited and a new one met, or the line
    or the move stack full).  The line is followed by a leaf kernel (:func:`_dfs_run`); the records and the
    table grow here when it asks, and are returned.
    """
    empty_out, mv, order, cur, kids, encs, codes, kinds, hashes = _expansion_buffers()
    red = np.zeros(STATE_WORDS * 8, dtype=np.uint8)
    par = np.zeros(STATE_WORDS * 8, dtype=np.uint8)
    pos = np.zeros(MAXCOLS, dtype=np.int64)
    cpos = np.zeros(MAXCELLS, dtype=np.int64)
    keys = np.zeros(mv.shape[0], dtype=np.int64)
    max_nodes = params[P_MAXNODES]
    while True:
        outcome = _dfs_run(rel, params, recs, table, sst, smv, sbase, snext, scode, ctl, empty_out, mv, order,
                           cur, par, red, encs[0], pos, cpos, keys)
        if outcome != NEED_ROOM:
            break
        nrec = ctl[C_NREC]
        if nrec >= recs.shape[0]:
            recs = _grow(recs, nrec, min(2 * nrec, max_nodes))
        if _big_table_full(nrec, table.shape[0]):
            table = _rehash(recs, nrec, table.shape[0] * 2)
            ctl[C_GEN] = 1
    ctl[C_OUTCOME] = outcome
    return recs, table


@leaf_kernel
def _dfs_run(rel, params, recs, table, sst, smv, sbase, snext, scode, ctl, empty_out, mv, order, cur, par, red,
             enc, pos, cpos, keys):
    """:func:`_dfs`'s line, followed from the state in ctl; returns the outcome, or NEED_ROOM (the move being
    tried is put back) when the records or the table must grow before a new position goes in.  The rest are
    scratch: cur and par two positions, red one (_dfs_key), enc a record (words), pos, cpos and keys
    _line_push_moves'."""
    max_nodes = params[P_MAXNODES]
    sst_w, par_w, cur_w = sst.view(np.uint64), par.view(np.uint64), cur.view(np.uint64)  # once, not a node
    line = params[P_LINE] != 0
    par_at = np.int64(-1)  # the line search's position at depth par_at, decoded into par
    depth = ctl[C_DEPTH]
    nrec = ctl[C_NREC]
    nodes = ctl[C_NODES]
    best = ctl[C_BEST]
    gen = ctl[C_GEN]
    stop = ctl[C_STOP]
    outcome = RUNNING
    while True:
        if nodes >= stop:
            break
        if snext[depth] == sbase[depth + 1]:  # every move from here tried
            if depth == 0:
                outcome = UNSOLVABLE
                break
            depth -= 1
            continue
        m = smv[snext[depth]]
        snext[depth] += 1
        if depth + 2 >= sst.shape[0]:
            outcome = UNKNOWN
            break
        if line:  # the line holds records: the position is decoded (in canonical order, as its moves were made)
            if par_at != depth:
                _decode(sst_w[depth], params, par)
                par_at = depth
            ch = cur
            for t in range(STATE_WORDS):
                cur_w[t] = par_w[t]
        else:
            ch = sst[depth + 1]
            for t in range(STATE_WORDS):
                sst_w[depth + 1, t] = sst_w[depth, t]
        code = _apply(ch, m, params)
        nauto = _closure(ch, rel, params, empty_out, 0)
        f = _foundation_total(ch)
        best = max(best, f)
        scode[depth] = code
        if f == 52:
            outcome = WON
            break
        _dfs_key(ch, params, red, enc, order)
        w = enc
        hv = words_hash(w, REC_WORDS)
        if _find_h(w, hv, recs, table, gen)[1] >= 0:
            continue  # visited: its line was followed from there
        if nrec >= max_nodes:
            outcome = UNKNOWN
            break
        if nrec >= recs.shape[0] or _big_table_full(nrec, table.shape[0]):
            snext[depth] -= 1  # tried again once there is room
            outcome = NEED_ROOM
            break
        _lookup_insert_h(w, hv, recs, nrec, table, gen)
        nrec += 1
        nodes += 1
        if line:
            for t in range(REC_WORDS):
                sst_w[depth + 1, t] = enc[t]
            _decode(sst_w[depth + 1], params, ch)
            last = np.int64(-1) if nauto > 0 or (m & WORRY_MOVE) != 0 else code // 64
            top = _line_push_moves(ch, rel, params, mv, smv, sbase[depth + 1], last, pos, cpos, keys)
            par, cur = cur, par  # the child, decoded, is the next position the line expands
            par_w, cur_w = cur_w, par_w
            par_at = depth + 1
        else:
            top = _dfs_push_moves(ch, rel, params, mv, smv, sbase[depth + 1])
        if top < 0:
            outcome = UNKNOWN
            break
        depth += 1
        snext[depth] = sbase[depth]
        sbase[depth + 1] = top
    ctl[C_DEPTH] = depth
    ctl[C_NREC] = nrec
    ctl[C_NODES] = nodes
    ctl[C_BEST] = best
    ctl[C_GEN] = gen
    return outcome


@nb.njit(cache=True)
def _dfs_start(st0, rel, params, recs, table, gen, sst, smv, sbase, snext, ctl):
    """Close the root (as sst[0]), store it and push its moves: ctl set for :func:`_dfs`."""
    empty_out = np.zeros(0, dtype=np.int64)
    line = params[P_LINE] != 0
    if line:  # the line holds records (_dfs): the root is closed and decoded in a position of its own
        st0 = st0.copy()
    else:
        sst[0, :STATE_SIZE] = st0[:STATE_SIZE]
        st0 = sst[0]
    _closure(st0, rel, params, empty_out, 0)
    ctl[C_NODES] = 0
    ctl[C_BEST] = _foundation_total(st0)
    ctl[C_GEN] = gen
    ctl[C_DEPTH] = 0
    ctl[C_NREC] = 0
    ctl[C_OUTCOME] = RUNNING
    if ctl[C_BEST] == 52:
        ctl[C_OUTCOME] = WON
        ctl[C_DEPTH] = -1  # the line is empty
        return
    red = np.zeros(STATE_WORDS * 8, dtype=np.uint8)
    enc = np.zeros(REC_WORDS, dtype=np.uint64)
    order = np.zeros(MAXCOLS, dtype=np.int64)
    _dfs_key(st0, params, red, enc, order)
    _lookup_insert(enc, recs, 0, table, gen)
    ctl[C_NREC] = 1
    ctl[C_NODES] = 1
    mv = np.zeros(2048, dtype=np.int64)
    sbase[0] = 0
    snext[0] = 0
    if line:
        sst_w = sst.view(np.uint64)
        sst_w[0, :] = enc
        ch = np.zeros(STATE_WORDS * 8, dtype=np.uint8)
        _decode(sst_w[0], params, ch)
        sbase[1] = _line_push_moves(ch, rel, params, mv, smv, 0, -1, np.zeros(MAXCOLS, dtype=np.int64),
                                    np.zeros(MAXCELLS, dtype=np.int64), np.zeros(mv.shape[0], dtype=np.int64))
    else:
        sbase[1] = _dfs_push_moves(st0, rel, params, mv, smv, 0)


@nb.njit(cache=True)
def _solution(start, rel, params, parent, mcode, goal_parent, goal_code):
    """The winning line from position ``start`` (as given, before safe moves), safe moves included."""
    plen = 0 if goal_parent == -1 else 1
    e = goal_parent
    while e > 0:
        plen += 1
        e = parent[e]
    path = np.zeros(plen, dtype=np.int64)
    if goal_parent != -1:
        path[plen - 1] = goal_code
        e = goal_parent
        k = plen - 2
        while e > 0:
            path[k] = mcode[e] & CODE_MASK
            k -= 1
            e = parent[e]
    return _replay(start, rel, params, path)


@nb.njit(cache=True)
def _replay(start, rel, params, path):
    """The line that plays the codes ``path`` from ``start`` (as given, before safe moves), with the safe moves
    the search made after each (under ``params``: every ready card, in the streamlined search) put in."""
    plen = path.shape[0]
    out = np.zeros(plen + 64, dtype=np.int64)  # at most 52 safe moves in all
    rs = start.copy()
    nout = _closure(rs, rel, params, out, 0)
    for k in range(plen):
        _apply_code(rs, path[k], params)
        out[nout] = path[k]
        nout += 1
        nout = _closure(rs, rel, params, out, nout)
    return out[:nout].copy()



@nb.njit(cache=True)
def _shortcut(start, rel, params, codes):
    """A winning line from ``start`` never longer than ``codes`` (a line as :func:`_solution` gives it): from
    each closed position of the line, a move that reaches, with its safe moves, a position further along
    (the same up to the order of columns and cells) replaces the codes in between (module docstring, "Short
    lines").  Codes name cards, so the rest of the line plays on from the position reached."""
    n = codes.shape[0]
    recs = np.zeros((n + 1, REC_WORDS), dtype=np.uint64)
    last = np.zeros(n + 1, dtype=np.int64)  # record -> the last line position that is this position
    tsize = 16
    while tsize < 4 * (n + 1):
        tsize *= 2
    table = np.zeros(tsize, dtype=np.uint64)
    enc = np.zeros(REC_WORDS, dtype=np.uint64)
    order = np.zeros(MAXCOLS, dtype=np.int64)
    ps = np.zeros(STATE_WORDS * 8, dtype=np.uint8)
    ps[:STATE_SIZE] = start[:STATE_SIZE]
    nrec = 0
    for k in range(n + 1):
        _encode(ps, params, enc, order)
        e, inserted = _lookup_insert(enc, recs, nrec, table, 1)
        if inserted:
            nrec += 1
        last[e] = k
        if k < n:
            _apply_code(ps, codes[k], params)
    empty_out = np.zeros(0, dtype=np.int64)
    mv = np.zeros(2048, dtype=np.int64)
    out = np.zeros(n, dtype=np.int64)
    nout = 0
    ps[:STATE_SIZE] = start[:STATE_SIZE]
    ch = np.zeros(STATE_WORDS * 8, dtype=np.uint8)
    i = 0
    while i < n:
        best_j, best_q = i + 1, -1
        ch[:] = ps
        if _closure(ch, rel, params, empty_out, 0) == 0:  # closed: no safe move pending
            nm = _gen_moves(ps, rel, params, mv)
            for q in range(nm):
                ch[:] = ps
                _apply(ch, mv[q], params)
                k = _closure(ch, rel, params, empty_out, 0)
                _encode(ch, params, enc, order)
                e = _find(enc, recs, table, 1)[1]
                if e >= 0 and last[e] - i > 1 + k and last[e] > best_j:
                    best_j, best_q = last[e], q
        if best_q >= 0:  # the move, then its safe moves, as the line's codes
            out[nout] = _apply(ps, mv[best_q], params)
            nout = _closure(ps, rel, params, out, nout + 1)
        else:
            _apply_code(ps, codes[i], params)
            out[nout] = codes[i]
            nout += 1
        i = best_j
    return out[:nout].copy()


@nb.njit(cache=True)
def _deal_position(deal, layout, ncols, prefilled, st, rel):
    """The opening position of a deal (before any move) into st, relative ranks into rel.

    LAYOUT_IN_TURN: card k of the first 52 - prefilled goes to column k mod ncols; the last ``prefilled``
    cards go to cells 1, 2, ... in order (the reference's ``deal_layout`` documents the same order).
    """
    for k in range(STATE_SIZE):
        st[k] = 0
    for j in range(MAXCELLS):
        st[O_CELL + j] = NOCARD
    if layout == LAYOUT_PENGUIN:
        beak = deal[0]
        base = beak % 13
        for c in range(52):
            rel[c] = (c % 13 - base + 13) % 13
        st[0] = beak
        slot = 1  # slots are numbered row by row over 7 columns
        for k in range(1, 52):
            c = deal[k]
            if c % 13 == base:
                st[O_FND + c // 13] = 1
            else:
                col = slot % 7
                row = slot // 7
                st[col * WIDTH + row] = c
                slot += 1
        for i in range(7):
            st[O_LEN + i] = 7
    else:
        for c in range(52):
            rel[c] = c % 13
        ntab = 52 - prefilled
        for k in range(ntab):
            col = k % ncols
            st[col * WIDTH + st[O_LEN + col]] = deal[k]
            st[O_LEN + col] += 1
        for j in range(prefilled):
            st[O_CELL + j] = deal[ntab + j]


# --- Python side ------------------------------------------------------------------


@dataclass(frozen=True)
class SolverRules:
    """The rules the kernel needs, as plain values (the games map their switches onto these)."""

    layout: int
    build: int
    cells: int
    wrap: bool
    unlimited: bool
    empty: int
    max_nodes: int
    max_seconds: float = 0.0  # CPU seconds per deal, 0 for no limit (not reproducible: depends on the machine)
    columns: int = 8  # LAYOUT_IN_TURN only
    prefilled: int = 0  # LAYOUT_IN_TURN only: the last cards of the deal go to this many cells
    # King Albert's family: the cells are a reserve (never entered), worrying back, one card at a time
    reserve: bool = False
    worrying_back: bool = False
    single_card: bool = False
    # the line search's room in units of max_nodes; 0 for the module's LINE_ROOM (a game whose unknowns more room
    # decides, within the 4 GiB a deal may use and the time its row may take, sets its own)
    line_room: int = 0
    # positions the sweep with its levels on disk may store after every other search (0: it is not run)
    disk_positions: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.cells <= MAXCELLS:
            raise ValueError(f"cells {self.cells}: the solver holds 0..{MAXCELLS}")
        if not 1 <= self.ncols <= MAXCOLS:
            raise ValueError(f"columns {self.ncols}: the solver holds 1..{MAXCOLS}")
        if not 0 <= self.prefilled <= self.cells or (self.prefilled and self.layout == LAYOUT_PENGUIN):
            raise ValueError(f"prefilled cells {self.prefilled}: at most cells ({self.cells}), none in Penguin")

    @property
    def ncols(self) -> int:
        return 7 if self.layout == LAYOUT_PENGUIN else self.columns

    def params(self) -> np.ndarray:
        rules = [self.ncols, self.cells, self.build, int(self.wrap), int(self.unlimited), self.empty, self.max_nodes]
        king_albert = [int(self.reserve), int(self.worrying_back), int(self.single_card)]  # P_RESERVE..P_SINGLE
        return np.concatenate([np.array(rules, dtype=np.int64), HEURISTIC_WEIGHTS,
                               np.array(king_albert + [0, 0, 0, 0], dtype=np.int64)])  # P_EAGER..P_FRONTIER: per search


class Workspace:
    """The search's tables, kept between deals so easy deals do not pay for allocation.

    The per-position arrays (records, parent links, move words, the two heaps) are allocated once at the budget
    (:meth:`reserve`, called with ``max_nodes`` by :func:`solve_state`) and never grow: numpy.empty maps the
    memory without touching it, so a page costs memory only once a search has written to it (an easy deal uses a
    few of them; the same pages are reused by the next deals).  Growing by doubling instead held the old and the
    new arrays at once.  If the budget's arrays cannot be mapped (a huge ``max_nodes`` on a small machine) they
    start small and grow by doubling as before.  The position table still grows by doubling (a table sized for the
    budget would spread an easy deal's probes over many pages).  Its slots carry a generation stamp (``gen``): a
    new search takes the next stamp instead of clearing the table; after GEN_MAX searches it is cleared once.
    """

    def __init__(self, capacity: int = 1 << 14) -> None:
        self.recs = np.zeros((capacity, REC_WORDS), dtype=np.uint64)
        self.parent = np.zeros(capacity, dtype=np.int32)
        self.mcode = np.zeros(capacity, dtype=np.int32)  # move, expanded flag and depth (see CODE_MASK)
        self.heap = np.zeros(capacity, dtype=np.int64)
        self.heap2 = np.zeros(1, dtype=np.int64)  # the second order's heap, sized when it starts or by reserve
        self.table = np.zeros(4 * capacity, dtype=np.uint64)
        self.gen = 0
        self.seen = np.zeros((53, N_ATOMS), dtype=np.uint16)  # the second order's atoms (see _novel), by cards up
        self.seen_gen = 0
        self.probe: Workspace | None = None  # the probe's tables, made when first needed
        self.dfs: tuple | None = None  # the streamlined search's line (dfs_stack), made when first needed
        self.line: tuple | None = None  # the line search's (line_stack), made when first needed
        # the sweep's (made at its first use): cards up and number of each live record, links of every position
        self.lay = np.zeros(1, dtype=np.int64)
        self.rid = np.zeros(1, dtype=np.int32)
        self.sweep_heap = np.zeros(1, dtype=np.int32)
        self.sweep_fifo = np.zeros(1, dtype=np.int32)
        self.sweep_parent = np.zeros(1, dtype=np.int32)
        self.sweep_code = np.zeros(1, dtype=np.int32)
        self.sweep_ref = np.zeros(STATE_WORDS * 8, dtype=np.uint8)  # the sweep's root, and its records' frame
        self.sweep_frame = np.zeros(FRAME_SIZE, dtype=np.int64)
        self.sweep_file: IO[bytes] | None = None  # the sweep's links written out (int32 parent, move), unlinked
        self.runs: WaitingRuns | None = None  # the sweep's waiting positions on disk (made at its start)

    def reserve(self, max_nodes: int) -> None:
        """Make the per-position arrays hold ``max_nodes`` positions (mapped, not touched: see the class doc).
        Records the sweep left narrower are mapped anew at REC_WORDS."""
        n = int(max_nodes)
        if self.recs.shape[0] >= n and self.recs.shape[1] == REC_WORDS and self.heap2.shape[0] >= n:
            return
        try:
            recs = np.empty((n, REC_WORDS), dtype=np.uint64)
            parent = np.empty(n, dtype=np.int32)
            mcode = np.empty(n, dtype=np.int32)
            heap = np.empty(n, dtype=np.int64)
            heap2 = np.empty(n, dtype=np.int64)
        except MemoryError:  # the search grows the arrays it has, by doubling, up to max_nodes
            self.records_of_width(REC_WORDS)
            return
        self.recs, self.parent, self.mcode, self.heap, self.heap2 = recs, parent, mcode, heap, heap2

    def reserve_sweep(self, max_nodes: int, words: int) -> None:
        """Map the sweep's arrays (mapped, not touched, as :meth:`reserve`): the records (``words`` words each)
        and per-record arrays at SWEEP_LIVE x ``max_nodes`` (the records replace the other searches' array,
        which is dropped, so the two never hold memory at once: a line search with more room than the sweep's
        leaves a larger one, whose touched pages would stay), the links' buffer at SWEEP_LINK_BUFFER."""
        n, total = sweep_room(max_nodes), SWEEP_LINK_BUFFER
        if self.recs.shape == (n, words) and self.lay.shape[0] >= n and self.sweep_parent.shape[0] >= total:
            return
        try:
            if self.recs.shape != (n, words):
                self.recs = np.empty((n, words), dtype=np.uint64)
            lay, rid, heap = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int32), np.empty(n, dtype=np.int32)
            fifo = np.empty(n, dtype=np.int32)
            parent, code = np.empty(total, dtype=np.int32), np.empty(total, dtype=np.int32)
        except MemoryError:  # the sweep grows the arrays it has, by doubling
            self.records_of_width(words)
            return
        self.lay, self.rid, self.sweep_heap, self.sweep_parent, self.sweep_code = lay, rid, heap, parent, code
        self.sweep_fifo = fifo

    def release(self, order: int) -> None:
        """Give back what the searches before touched and the next one (the line search, the long guide or the
        sweep) does not use.

        These are the searches a deal gets only when the others leave it unknown, where the room they may take
        is the most any search takes (King Albert's line search: 5 x max_nodes), so a few mappings cost nothing
        beside them.  The table starts small again: a table the kernel outgrows is dropped there, but the one
        it started with stays alive while this workspace holds it, so the line search held the guide's 256 MiB
        table beside its own 1 GiB.  The guide's per-position arrays are mapped anew, untouched (229 MiB at
        10^7), and so are the streamlined search's line and, before the long guide and the sweep, the line
        search's (its records are re-mapped by :meth:`reserve` at the long guide's room, or by
        :meth:`reserve_sweep`).  King Albert deal 1856 (seed 99): its line
        search, 5 x 10^7 positions, peaked at 4,308 MiB without this.  An earlier deal's sweep's per-record
        arrays (about 1 GiB once touched) are dropped too, so neither of the others holds them beside its own.
        """
        self.table = np.zeros(4 * (1 << 14), dtype=np.uint64)
        self.gen = 0
        self.parent = np.empty(self.parent.shape[0], dtype=np.int32)
        self.mcode = np.empty(self.mcode.shape[0], dtype=np.int32)
        self.heap = np.empty(self.heap.shape[0], dtype=np.int64)
        self.heap2 = np.empty(self.heap2.shape[0], dtype=np.int64)
        self.dfs = None
        if order in (ORDER_LONG_GUIDE, ORDER_SWEEP):
            self.line = None
        # a sweep's per-record arrays, touched by an earlier deal's, mapped anew by reserve_sweep when next needed
        self.lay, self.rid = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int32)
        self.sweep_heap, self.sweep_fifo = np.zeros(1, dtype=np.int32), np.zeros(1, dtype=np.int32)

    def dfs_stack(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The streamlined search's line (positions, move stack, its bounds per depth, next move, move made),
        mapped at its first use (pages cost memory only as deep as a line goes)."""
        if self.dfs is None:
            self.dfs = (np.empty((DFS_DEPTH, STATE_WORDS * 8), dtype=np.uint8), np.empty(DFS_MOVES, dtype=np.int64),
                        np.empty(DFS_DEPTH + 1, dtype=np.int64), np.empty(DFS_DEPTH, dtype=np.int64),
                        np.empty(DFS_DEPTH, dtype=np.int64))
        return self.dfs

    def line_stack(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The line search's line, as :meth:`dfs_stack` but its positions as 48-byte records, and deeper."""
        if self.line is None:
            self.line = (np.empty((LINE_DEPTH, REC_BYTES), dtype=np.uint8), np.empty(LINE_MOVES, dtype=np.int64),
                         np.empty(LINE_DEPTH + 1, dtype=np.int64), np.empty(LINE_DEPTH, dtype=np.int64),
                         np.empty(LINE_DEPTH, dtype=np.int64))
        return self.line

    def stack(self, order: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The line of a depth-first search of one line at a time (the streamlined or the line search)."""
        return self.line_stack() if order == ORDER_LINE else self.dfs_stack()

    def reserve_records(self, n: int) -> None:
        """Map the records at ``n`` (the line search's room), as :meth:`reserve` does."""
        if self.recs.shape[0] < n or self.recs.shape[1] != REC_WORDS:
            try:
                self.recs = np.empty((int(n), REC_WORDS), dtype=np.uint64)
            except MemoryError:  # the search grows the records it has, by doubling
                self.records_of_width(REC_WORDS)

    def records_of_width(self, words: int) -> None:
        """Make the records ``words`` wide (the sweep's are narrower than the others'), starting small (they grow
        by doubling) if they are not: where they could not be mapped at the budget, and before every search."""
        if self.recs.shape[1] != words:
            self.recs = np.zeros((16, words), dtype=np.uint64)

    def spill(self, ctl: np.ndarray) -> None:
        """Write the sweep's links in memory to its file (made at the first call) and empty the buffer."""
        n = int(ctl[C_TOTAL] - ctl[C_LBASE])
        if self.sweep_file is None:
            self.sweep_file = tempfile.TemporaryFile(prefix="patience-sweep-links-")
        self.sweep_file.seek(8 * int(ctl[C_LBASE]))
        self.sweep_file.write(np.stack((self.sweep_parent[:n], self.sweep_code[:n]), axis=1).astype(np.int32).tobytes())
        ctl[C_LBASE] += n

    def close_spill(self) -> None:
        """Drop the sweep's file of links and its runs (their disk space is freed with them)."""
        if self.sweep_file is not None:
            self.sweep_file.close()
            self.sweep_file = None
        if self.runs is not None:
            self.runs.close()

    def spill_waiting(self, ctl: np.ndarray, above: int | None = None) -> None:
        """Write the heap's highest layers out to a run (module docstring, "The sweep's runs"): those with keys
        above ``above``, or by default every level (u + |S|) from that of the heap's SPILL_KEEP-th least entry up
        (the whole heap when its lowest level is that large), and free their records (marked layer 0, below every
        layer, so ``_sweep_drop`` takes them with the finished ones); the rest, sorted by (layer, record), is the
        heap again (a sorted array is a heap).  The memory it takes beyond the sweep's is one key per entry
        written out, and a part of the run at a time."""
        h = int(ctl[C_HSIZE])
        heap = self.sweep_heap[:h]
        cut = _level_cut(heap, h, self.lay, SPILL_KEEP, np.zeros(128, dtype=np.int64)) if above is None else above + 1
        k = _split_at(heap, h, self.lay, cut)
        out = heap[k:]
        if out.shape[0] == 0:
            return
        keys = np.empty(out.shape[0], dtype=np.int64)
        _keys_of(out, self.lay, keys)
        sort_pairs(keys, out, np.zeros(SORT_STACK, dtype=np.int64))
        part = 1 << 21
        for i in range(0, out.shape[0], part):  # copied out of the records a part at a time
            e = out[i:i + part]
            self.runs.write_part(keys[i:i + part], self.rid[e], self.recs[e], last=i + part >= out.shape[0])
        del keys
        _mark(out, self.lay, 0)
        self._drop(ctl, int(ctl[C_LAYER]))
        kept = heap[:k]
        keys = np.empty(k, dtype=np.int64)
        _keys_of(kept, self.lay, keys)
        sort_pairs(keys, kept, np.zeros(SORT_STACK, dtype=np.int64))
        ctl[C_HSIZE] = k
        ctl[C_RUNMIN] = self.runs.least()

    def _drop(self, ctl: np.ndarray, below: int) -> None:
        """Free the sweep's live records of layers 0..below-1 (``_sweep_drop``), as the kernel does: the expanded
        ones left live are then those of the layer being expanded."""
        freed, gen, free = _sweep_drop(self.recs, self.lay, int(ctl[C_HIGH]), below, self.table, int(ctl[C_GEN]),
                                       int(ctl[C_FREE]))
        ctl[C_NREC] -= freed
        ctl[C_DONE] = ctl[C_DONE_HERE]
        ctl[C_GEN], ctl[C_FREE] = gen, free

    def load_waiting(self, ctl: np.ndarray, room: int) -> None:
        """Read the runs' entries of the least layer on disk, and of the next ones while they are few (module
        docstring, "The sweep's runs"), into the live records and the heap; called at a layer's end.  Makes room
        first by freeing the finished layers and, if need be, by writing out the heap's layers above those read;
        answers unknown (ctl[C_OUTCOME]) when even the least layer alone has no room."""
        runs = self.runs
        upto = runs.bound(max(1, room // (SWEEP_LOAD_SHARE * len(runs.runs))))
        n = runs.count(upto)
        if int(ctl[C_NREC]) + n + int(ctl[C_SPILL]) > room and ctl[C_DONE] > 0:  # the layers done: all expanded
            ctl[C_DONE_HERE] = 0  # the layer just done is freed too
            self._drop(ctl, int(ctl[C_LAYER]) + 1)
        if int(ctl[C_NREC]) + n + int(ctl[C_SPILL]) > room:
            upto = runs.least()
            n = runs.count(upto)
            if ctl[C_HSIZE] > 0 and int(ctl[C_NREC]) + n + int(ctl[C_SPILL]) > room:
                self.spill_waiting(ctl, above=upto)
        if int(ctl[C_NREC]) + n + int(ctl[C_SPILL]) > room:
            ctl[C_OUTCOME] = UNKNOWN  # one layer is more than the room holds
            return
        need = max(int(ctl[C_HIGH]), int(ctl[C_NREC]) + n)  # the free records (high less the live) are used first
        if self.recs.shape[0] < need:
            self.recs = _grow(self.recs, int(ctl[C_HIGH]), max(need, 2 * self.recs.shape[0]))
        if self.lay.shape[0] < need:
            self.lay = _grow(self.lay, int(ctl[C_HIGH]), max(need, 2 * self.lay.shape[0]))
            self.rid = _grow(self.rid, int(ctl[C_HIGH]), max(need, 2 * self.rid.shape[0]))
        if self.sweep_heap.shape[0] < int(ctl[C_HSIZE]) + n:
            self.sweep_heap = _grow(self.sweep_heap, int(ctl[C_HSIZE]), 2 * (int(ctl[C_HSIZE]) + n))
        gen = int(ctl[C_GEN])
        while _big_table_full(int(ctl[C_NREC]) + n, self.table.shape[0]):
            self.table = np.zeros(2 * self.table.shape[0], dtype=np.uint64)
            gen = 1
            _reinsert(self.recs, int(ctl[C_HIGH]), self.table, gen, self.lay)
        ctl[C_GEN] = gen
        for keys, rids, recs in runs.take(upto):  # a piece at a time; copies merge through the table
            ctl[C_HSIZE], ctl[C_FREE], ctl[C_HIGH], ctl[C_NREC] = _sweep_load(
                keys, rids, recs, self.recs, self.lay, self.rid, self.sweep_heap, int(ctl[C_HSIZE]), self.table, gen,
                int(ctl[C_FREE]), int(ctl[C_HIGH]), int(ctl[C_NREC]))
        ctl[C_RUNMIN] = runs.least()

    def sweep_codes(self, ctl: np.ndarray) -> np.ndarray:
        """The moves from the sweep's root to position number ctl[C_GOALP] and its winning move ctl[C_GOALC], read
        back through the links, those written out from the file."""
        lbase = int(ctl[C_LBASE])
        codes = [int(ctl[C_GOALC])] if ctl[C_GOALP] != -1 else []
        e = int(ctl[C_GOALP])
        while e > 0:
            if e >= lbase:
                p, c = int(self.sweep_parent[e - lbase]), int(self.sweep_code[e - lbase])
            else:
                self.sweep_file.seek(8 * e)
                p, c = (int(x) for x in np.frombuffer(self.sweep_file.read(8), dtype=np.int32))
            codes.append(c & CODE_MASK)
            e = p
        return np.array(codes[::-1], dtype=np.int64)

    def links(self, order: int) -> tuple[np.ndarray, np.ndarray]:
        """(parent, move word) of the stored positions of the last search of this order made here (not the
        sweep's: :meth:`sweep_codes`)."""
        return self.parent, self.mcode

    def probe_workspace(self, max_nodes: int) -> "Workspace":
        """The probe's own tables (module docstring, "The probe"), made at the first probe and kept with these."""
        if self.probe is None:
            self.probe = Workspace()
        self.probe.reserve(max_nodes)
        self.probe.seen_gen = self.seen_gen
        return self.probe

    def next_seen_gen(self) -> int:
        """A new stamp for the second order's atoms (``seen``): every atom is unseen again."""
        self.seen_gen += 1
        if self.seen_gen > 65535:  # the stamps wrap: forget every deal's atoms once
            self.seen[:] = 0
            self.seen_gen = 1
        return self.seen_gen

    def next_gen(self) -> int:
        self.gen += 1
        if self.gen > GEN_MAX:
            self.table[:] = 0
            self.gen = 1
        return self.gen


@dataclass(frozen=True)
class Solution:
    outcome: int
    nodes: int
    best_foundation: int  # most cards ever on the foundations
    codes: np.ndarray  # int64 move codes by cards (head*64 + target), safe moves included
    seconds: float


_WARM = [False]


def _warm_up() -> None:
    """Compile (or load from numba's cache) once, so no deal's ``seconds`` includes compilation."""
    if _WARM[0]:
        return
    _WARM[0] = True
    st, rel = make_position([[12]], [], [13, 0, 13, 13], 0)
    st[O_FND + 1] = 13
    st[O_FND + 0] = 12
    rules = SolverRules(LAYOUT_EIGHT, BUILD_SUIT, 0, False, False, EMPTY_ANY, 10)
    ws = Workspace(16)
    solve_state(st, rel, rules, ws)  # won at the root: the search loop itself is compiled below
    ctl = np.zeros(CTL_SIZE, dtype=np.int64)
    ctl[C_OUTCOME] = UNSOLVABLE
    _search(rel, rules.params(), ws.recs, ws.parent, ws.mcode, ws.heap, ws.heap2, ws.table, ctl, ws.seen)
    _sweep(rel, rules.params(), ws.recs, ws.lay, ws.rid, ws.sweep_heap, ws.sweep_fifo, ws.sweep_parent,
           ws.sweep_code, ws.table, ctl, 1, 1, 1, ws.sweep_ref, ws.sweep_frame)
    sst, smv, sbase, snext, scode = ws.dfs_stack()
    _dfs_start(st.copy(), rel, rules.params(), ws.recs, ws.table, ws.next_gen(), sst, smv, sbase, snext, ctl)
    ctl[C_STOP] = 0
    _dfs(rel, rules.params(), ws.recs, ws.table, sst, smv, sbase, snext, scode, ctl)


SLICE_NODES = 20_000  # expansions between two looks at the clock when max_seconds is set
# The probe (module docstring, "The probe"): once the guide's search has made PROBE_AT expansions, a depth-first
# search with single cards gets PROBE_NODES expansions of its own, in a table of its own, before the guide goes on.
PROBE_AT = 50_000
PROBE_NODES = 20_000
# The streamlined probe (module docstring, "The streamlined search"): once the guide has made STREAM_AT
# expansions, the streamlined search gets STREAM_NODES of its own; only a win ends the deal there.
STREAM_AT = 10_000
STREAM_NODES = 100_000
_NO_STOP = np.iinfo(np.int64).max


def _begin(start: np.ndarray, rel: np.ndarray, params: np.ndarray, ws: Workspace, order: int, ctl: np.ndarray) -> None:
    """Start a search of ``start`` in ws's tables: its root closed and stored, ctl set for :func:`_advance`."""
    st = start.copy()
    if order != ORDER_SWEEP:
        ws.records_of_width(REC_WORDS)
    if order in (ORDER_STREAMLINED, ORDER_LINE):
        if order == ORDER_LINE:
            ws.release(order)
            ws.reserve_records(int(params[P_MAXNODES]))
        sst, smv, sbase, snext, _ = ws.stack(order)
        _dfs_start(st, rel, params, ws.recs, ws.table, ws.next_gen(), sst, smv, sbase, snext, ctl)
    elif order == ORDER_SWEEP:
        ws.release(order)
        root = np.zeros(STATE_WORDS * 8, dtype=np.uint8)
        root[:STATE_SIZE] = st[:STATE_SIZE]
        _closure(root, rel, params, np.zeros(0, dtype=np.int64), 0)
        frame = np.zeros(FRAME_SIZE, dtype=np.int64)
        if _sweep_frame(root, rel, params, frame) > 2 or frame[F_WORDS] > REC_WORDS:
            raise AssertionError("the sweep's record cannot hold these rules' positions")  # never in these games
        ws.sweep_ref, ws.sweep_frame = root, frame
        ws.reserve_sweep(int(params[P_MAXNODES]), int(frame[F_WORDS]))
        ws.records_of_width(int(frame[F_WORDS]))
        _search_start(st, rel, params, ws.recs, ws.sweep_parent, ws.sweep_code, np.zeros(1, dtype=np.int64),
                      ws.table, ws.next_gen(), ctl, root, frame)
        ws.lay[0], ws.rid[0], ws.sweep_heap[0] = _sweep_layer(st, rel, params), 0, 0  # the root, closed: record 0
        ctl[C_TOTAL], ctl[C_HIGH], ctl[C_HSIZE] = ctl[C_NREC], ctl[C_NREC], ctl[C_NREC]
        ctl[C_LAYER], ctl[C_FREE], ctl[C_DONE], ctl[C_DONE_HERE], ctl[C_LBASE] = -1, -1, 0, 0, 0
        ws.close_spill()
        ws.runs = WaitingRuns(int(frame[F_WORDS]))
        ctl[C_RUNMIN], ctl[C_SPILL] = NONE_WAITING, SWEEP_SPILL_ROOM
        ctl[C_QPREV] = ctl[C_QLEV] = ctl[C_QHEAD] = ctl[C_QEND] = ctl[C_QTAIL] = 0
    else:
        if order == ORDER_LONG_GUIDE:  # the guide again, in room of its own, its second order's atoms fresh
            ws.release(order)
            ws.reserve(int(params[P_MAXNODES]))
            ws.next_seen_gen()
        _search_start(st, rel, params, ws.recs, ws.parent, ws.mcode, ws.heap, ws.table, ws.next_gen(), ctl, st,
                      np.zeros(0, dtype=np.int64))
    ctl[C_ORDER] = order
    ctl[C_SECOND_AT] = SECOND_AT
    ctl[C_SEEN_GEN] = ws.seen_gen


def _advance(rel: np.ndarray, params: np.ndarray, ws: Workspace, ctl: np.ndarray, stop: int) -> None:
    """Run the search in ctl until it is decided or has made ``stop`` expansions in all."""
    ctl[C_STOP] = stop
    if ctl[C_ORDER] in (ORDER_STREAMLINED, ORDER_LINE):
        ws.recs, ws.table = _dfs(rel, params, ws.recs, ws.table, *ws.stack(int(ctl[C_ORDER])), ctl)
    elif ctl[C_ORDER] == ORDER_SWEEP:
        flush_at = max(ws.sweep_parent.shape[0] - SWEEP_FLUSH_ROOM, 1)
        room = sweep_room(int(params[P_MAXNODES]))
        while ctl[C_OUTCOME] == RUNNING:
            ws.recs, ws.lay, ws.rid, ws.sweep_heap, ws.sweep_fifo, ws.sweep_parent, ws.sweep_code, ws.table = _sweep(
                rel, params, ws.recs, ws.lay, ws.rid, ws.sweep_heap, ws.sweep_fifo, ws.sweep_parent, ws.sweep_code,
                ws.table, ctl, room, SWEEP_TOTAL * int(params[P_MAXNODES]), flush_at, ws.sweep_ref, ws.sweep_frame)
            want, ctl[C_WANT] = int(ctl[C_WANT]), 0
            if ctl[C_OUTCOME] != RUNNING:
                break
            if want == WANT_SPILL:  # the room is full, mostly of higher layers: out to disk, and on
                ws.spill_waiting(ctl)
            elif want == WANT_LOAD:  # the next layer waits on disk: in from there, and on
                ws.load_waiting(ctl, room)
            elif ctl[C_TOTAL] - ctl[C_LBASE] >= flush_at:
                ws.spill(ctl)  # the buffer of links is full: out to the file, and on
            else:
                break
    else:
        ws.recs, ws.parent, ws.mcode, ws.heap, ws.heap2, ws.table = _search(
            rel, params, ws.recs, ws.parent, ws.mcode, ws.heap, ws.heap2, ws.table, ctl, ws.seen)
    ws.gen = int(ctl[C_GEN])


def _single_cards(rules: SolverRules, wanted: bool) -> int:
    """P_SINGLE for a search: runs that stand for single-card moves (`limited`) may be searched as those moves
    (module docstring, "The retry moves single cards"); `unlimited` runs may not."""
    return 1 if rules.single_card or (wanted and not rules.unlimited) else 0


def _probe(start: np.ndarray, rel: np.ndarray, params: np.ndarray, rules: SolverRules, ws: Workspace,
           streamlined: bool, budget: int) -> tuple[Workspace, np.ndarray, np.ndarray]:
    """``budget`` expansions of a search from ``start`` in ws's probe tables, single cards: depth first (module
    docstring, "The probe"), or the streamlined search ("The streamlined search"); returns those tables, the
    probe's params and its ctl."""
    pws = ws.probe_workspace(rules.max_nodes)
    pparams = params.copy()
    pparams[P_SINGLE] = _single_cards(rules, True)
    if streamlined:
        pparams[P_EAGER], pparams[P_SUITS] = _streamliners(rules)
    pctl = np.zeros(CTL_SIZE, dtype=np.int64)
    _begin(start, rel, pparams, pws, ORDER_STREAMLINED if streamlined else ORDER_DEPTH_FIRST, pctl)
    _advance(rel, pparams, pws, pctl, budget)
    return pws, pparams, pctl


def _frontier(rules: SolverRules) -> bool:
    """May the sweep free each level of a layer once the next is expanded (module docstring, "The sweep")?  Only
    where every move within a layer can be undone: empty columns take any card, and there is no reserve and no
    worrying back (a reserve card played, or a card played back, does not go back the way it came)."""
    return rules.empty == EMPTY_ANY and not rules.reserve and not rules.worrying_back


def _streamliners(rules: SolverRules, order: int = ORDER_STREAMLINED) -> tuple[int, int]:
    """(P_EAGER, P_SUITS) for the streamlined search: STREAMLINERS, but positions are told apart by colour and
    rank only where cards build in alternating colours (as Solvitaire does: where they build in suit, the two
    suits of a colour are no more alike than any two); for the colour search (ORDER_COLOURS), that one alone."""
    eager, suits = STREAMLINERS if order == ORDER_STREAMLINED else COLOUR_STREAMLINERS
    return eager, suits if rules.build == BUILD_ALTERNATE else 0


def _decided(params: np.ndarray, ctl: np.ndarray) -> bool:
    """Did the search in ctl decide the deal?  A win always; an empty heap or stack only where no streamliner
    was on (the streamlined search's pruning is not sound: its running out of positions proves nothing)."""
    return ctl[C_OUTCOME] == WON or (ctl[C_OUTCOME] == UNSOLVABLE and not (params[P_EAGER] or params[P_SUITS]))


def solve_state(st: np.ndarray, rel: np.ndarray, rules: SolverRules, ws: Workspace | None = None) -> Solution:
    """Solve an arbitrary position (uint8[STATE_SIZE]) with relative ranks rel (int64[52]).

    With ``rules.max_seconds`` the search runs in slices of SLICE_NODES expansions and stops with ``unknown``
    once this process has spent that many CPU seconds on the deal (so the verdict may depend on the machine).
    """
    if not _WARM[0]:
        _warm_up()
    ws = ws or Workspace()
    params = rules.params()
    start = np.array(st, dtype=np.uint8, copy=True)
    ctl = np.zeros(CTL_SIZE, dtype=np.int64)
    ctl[C_OUTCOME] = UNKNOWN  # until a search runs (every one in SEARCH_ORDERS may be skipped under some rules)
    timed_out = False
    t0 = time.perf_counter()
    c0 = time.process_time()
    ws.reserve(rules.max_nodes)
    limit = float(rules.max_seconds)
    nodes, best = 0, 0
    ws.next_seen_gen()  # the second order's stamp for this deal
    won_in, won_params, won_ctl = ws, params, ctl  # the search that gave the verdict (the probe's, if it did)
    made = set()
    for search, single_cards in SEARCH_ORDERS:
        if search == ORDER_COLOURS and rules.build != BUILD_ALTERNATE:
            continue  # no colours to tell apart: it would be a plain depth-first search (the line search is one)
        order = ORDER_STREAMLINED if search == ORDER_COLOURS else search  # the kernel's order
        streamlined = order == ORDER_STREAMLINED
        params[P_SINGLE] = _single_cards(rules, single_cards)
        params[P_EAGER], params[P_SUITS] = _streamliners(rules, search) if streamlined else (0, 0)
        params[P_LINE] = int(order == ORDER_LINE)
        params[P_FRONTIER] = int(order == ORDER_SWEEP and _frontier(rules))
        share = STREAMLINED_SHARE if streamlined else RETRY_SHARE if order == ORDER_DEPTH_FIRST else 1
        room = rules.line_room or LINE_ROOM
        params[P_MAXNODES] = max(1, rules.max_nodes * room if order == ORDER_LINE
                                 else rules.max_nodes * GUIDE_ROOM if order == ORDER_LONG_GUIDE
                                 else rules.max_nodes // share)
        made_as = (order, int(params[P_SINGLE]), int(params[P_EAGER]), int(params[P_SUITS]))
        if made_as in made:
            continue  # the same search again would give the same answer
        made.add(made_as)
        _begin(start, rel, params, ws, order, ctl)
        # the probes (module docstring): (guide's expansions when due, budget, streamlined), soonest first
        # (the streamlined one only where cards build in alternating colours: where they build in suit it has
        # no colour symmetry to use, and Baker's Game's row took 1.32x the expansions with it)
        probes = sorted(p for p in ((STREAM_AT, STREAM_NODES, True), (PROBE_AT, PROBE_NODES, False))
                        if p[0] > 0 and p[1] > 0 and (rules.build == BUILD_ALTERNATE or not p[2])
                        ) if order == ORDER_GUIDE else []
        timed_out = False
        while ctl[C_OUTCOME] == RUNNING:
            stop = int(ctl[C_NODES]) + SLICE_NODES if limit > 0 else _NO_STOP
            if probes:
                stop = min(stop, probes[0][0])
            _advance(rel, params, ws, ctl, stop)
            if ctl[C_OUTCOME] != RUNNING:
                break
            if probes and ctl[C_NODES] >= probes[0][0]:
                _, budget, streamlined_probe = probes.pop(0)
                pws, pparams, pctl = _probe(start, rel, params, rules, ws, streamlined_probe, budget)
                nodes += int(pctl[C_NODES])
                best = max(best, int(pctl[C_BEST]))
                if _decided(pparams, pctl):  # a win, or an exhaustive search's verdict, whichever gives it
                    won_in, won_params, won_ctl = pws, pparams, pctl
                    break
            if limit > 0 and time.process_time() - c0 >= limit:
                ctl[C_OUTCOME] = UNKNOWN
                timed_out = True
        nodes += int(ctl[C_NODES])
        best = max(best, int(ctl[C_BEST]))
        if ctl[C_OUTCOME] == UNSOLVABLE and not _decided(params, ctl):
            ctl[C_OUTCOME] = UNKNOWN  # the streamlined search ran out of positions: that proves nothing
        if won_ctl is not ctl or ctl[C_OUTCOME] != UNKNOWN or timed_out:
            break
    sol = np.zeros(0, dtype=np.int64)
    outcome = int(won_ctl[C_OUTCOME])
    if outcome == UNKNOWN and not timed_out and rules.disk_positions > 0:  # last, the sweep on disk
        on_disk = _sweep_on_disk(start, rel, rules, ws, c0)
        nodes += on_disk.nodes
        best = max(best, on_disk.best)
        outcome = on_disk.outcome
        if outcome == WON:
            line_params = params.copy()
            line_params[P_SINGLE] = _single_cards(rules, False)
            sol = _shortcut(start, rel, line_params, on_disk.codes)
    elif won_ctl[C_OUTCOME] == WON and won_ctl[C_ORDER] in (ORDER_STREAMLINED, ORDER_LINE):  # its line is its stack
        scode = won_in.stack(int(won_ctl[C_ORDER]))[4]
        sol = _replay(start, rel, won_params, scode[:int(won_ctl[C_DEPTH]) + 1].copy())
        line_params = won_params.copy()
        line_params[P_SINGLE] = _single_cards(rules, False)
        sol = _shortcut(start, rel, line_params, sol)
    elif won_ctl[C_OUTCOME] == WON:
        if won_ctl[C_ORDER] == ORDER_SWEEP:
            sol = _replay(start, rel, won_params, won_in.sweep_codes(won_ctl))
        else:
            parent, mcode = won_in.links(int(won_ctl[C_ORDER]))
            sol = _solution(start, rel, won_params, parent, mcode, won_ctl[C_GOALP], won_ctl[C_GOALC])
        if won_ctl[C_ORDER] not in (ORDER_GUIDE, ORDER_LONG_GUIDE):  # a depth-first line keeps its detours,
            # and so may the sweep's
            line_params = won_params.copy()
            line_params[P_SINGLE] = _single_cards(rules, False)  # runs, where the rules move them
            sol = _shortcut(start, rel, line_params, sol)
    ws.close_spill()
    seconds = time.perf_counter() - t0
    return Solution(outcome, nodes, best, sol, seconds)


def sweep_params(rules: SolverRules) -> np.ndarray:
    """The kernel's parameters for the sweep under ``rules``, as :func:`solve_state` sets them: single cards
    where runs stand for them, no streamliners, levels freed where every move in a layer undoes."""
    params = rules.params()
    params[P_SINGLE] = _single_cards(rules, True)
    params[P_EAGER] = params[P_SUITS] = params[P_LINE] = 0
    params[P_FRONTIER] = int(_frontier(rules))
    return params


def _sweep_on_disk(start: np.ndarray, rel: np.ndarray, rules: SolverRules, ws: Workspace, c0: float) -> Any:
    """The sweep with its levels on disk (engine/disk_sweep.py) from ``start``, up to ``rules.disk_positions``
    stored, and within ``rules.max_seconds`` of CPU from ``c0`` if set.  The other searches' tables are given
    back first, so that the two never hold memory at once."""
    from engine.disk_sweep import disk_sweep  # it builds on this module's kernels

    ws.close_spill()
    ws.release(ORDER_SWEEP)
    ws.records_of_width(REC_WORDS)
    limit = float(rules.max_seconds)
    stop = (lambda: time.process_time() - c0 >= limit) if limit > 0 else None
    return disk_sweep(start, rel, sweep_params(rules), _frontier(rules), int(rules.disk_positions), stop=stop)


def deal_position(deal: np.ndarray, rules: SolverRules) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's opening position and relative ranks for a deal."""
    st = np.zeros(STATE_SIZE, dtype=np.uint8)
    rel = np.zeros(52, dtype=np.int64)
    _deal_position(read_only_uint8(deal), rules.layout, rules.ncols, rules.prefilled, st, rel)
    return st, rel


def solve_deal(deal: np.ndarray, rules: SolverRules, ws: Workspace | None = None) -> Solution:
    st, rel = deal_position(deal, rules)
    return solve_state(st, rel, rules, ws)


def position_columns(st: np.ndarray, rules: SolverRules) -> tuple[list[list[int]], list[int], list[int]]:
    """(columns bottom first, cells, foundation heights) of a kernel position, for tests and traces."""
    cols = [[int(st[i * WIDTH + p]) for p in range(int(st[O_LEN + i]))] for i in range(rules.ncols)]
    cells = [int(c) for c in st[O_CELL:O_CELL + rules.cells] if c != NOCARD]
    return cols, cells, [int(x) for x in st[O_FND:O_FND + 4]]


def make_position(columns: list[list[int]], cells: list[int], foundations: list[int], base: int) -> tuple[np.ndarray, np.ndarray]:
    """A kernel position from plain lists (used by tests to pose mid-game positions)."""
    st = np.zeros(STATE_SIZE, dtype=np.uint8)
    st[O_CELL:O_CELL + MAXCELLS] = NOCARD
    for i, col in enumerate(columns):
        for p, c in enumerate(col):
            st[i * WIDTH + p] = c
        st[O_LEN + i] = len(col)
    for j, c in enumerate(cells):
        st[O_CELL + j] = c
    st[O_FND:O_FND + 4] = foundations
    rel = np.array([(c % 13 - base) % 13 for c in range(52)], dtype=np.int64)
    return st, rel


# --- the game surface shared by the open games: OpenGame ------------------------------

EMPTY_CODES = {"any": EMPTY_ANY, "kings": EMPTY_TOP_RANK, "none": EMPTY_NONE}  # empty_column switch -> kernel code

SOLVER_COLUMNS = (
    Column("nodes", "int64", "positions the solver expanded, every search it made of the deal together (the guide, "
           "its probes, the streamlined search, the sweep)"),
    Column("seconds", "float64", "time the solver took for this deal (not reproducible: depends on the machine)"),
    Column("solution", "string", "the winning line in fc-solve's standard notation (columns 1-9 and 0 for a tenth, "
           "cells a-g and k, foundation h; e.g. '3h 1a a5 54v3'), safe foundation moves included; empty when not won"),
)


def reference_moves(deal_or_layout, ref_rules, codes: np.ndarray, reference: ModuleType = ref) -> list:
    """Turn the solver's card codes into moves by locating cards in a plain layout of ``reference`` (a reference
    module: ``engine/reference/open_solitaire.py`` unless a game has its own).

    Locating is all this does; legality is judged afterwards by the reference checker.
    """
    if isinstance(deal_or_layout, reference.Layout):
        layout = deal_or_layout.copy()
    else:
        layout = reference.deal_layout(deal_or_layout, ref_rules)
    names = {TO_EMPTY: "empty", TO_CELL: "cell", TO_FOUNDATION: "foundation"}
    moves = []
    for code in codes:
        head, target = int(code) // 64, int(code) % 64
        move = reference.card_move(layout, head, names.get(target, target))
        if reference.illegal_reason(layout, move, ref_rules) is not None:
            moves.append(move)  # the checker will name the problem
            break
        reference.apply_move(layout, move)
        moves.append(move)
    return moves


def row_of(sol: Solution, text: str) -> dict:
    won = sol.outcome == WON
    return {
        "outcome": OUTCOMES[sol.outcome],
        "won": won,
        "rounds": 0,
        "moves": len(text.split()) if won else 0,
        "cards_left": 0 if won else 52 - sol.best_foundation,
        "nodes": sol.nodes,
        "seconds": sol.seconds,
        "solution": text,
    }


class OpenGame:
    """The functions a :class:`GameSpec` needs (``play_batch``, ``play_one``, ``check_solution``) for an open
    solitaire, from the game's two readings of its rules record.

    A game module keeps what is its own (rules record, presets, layout, the docstring with its rule readings),
    writes ``solver_rules(rules) -> SolverRules`` for this solver and ``reference_rules(rules)`` for its judge,
    and binds the methods of one instance as its module-level ``play_batch``, ``play_one`` and
    ``check_solution`` (a bound method pickles as this class and the instance's two rules functions, each
    found by name, so Ray can ship it).  Every win is replayed by the reference before it is reported.

    A game whose judge is not ``engine/reference/open_solitaire.py`` (King Albert) subclasses this and sets
    ``reference`` (the module: ``Layout``, ``deal_layout``, ``card_move``, ``illegal_reason``, ``apply_move``,
    ``format_solution``, ``check_solution_text``, ``parse_move``, ``describe``, ``layout_lines``) and
    ``columns``, and overrides ``position`` or ``parse_move`` where its layout or notation differ.
    """

    reference: ModuleType = ref  # the judge: lays out a deal, writes and replays the solution text
    columns: tuple[Column, ...] = SOLVER_COLUMNS  # extra_columns of the GameSpec

    def __init__(self, solver_rules: Callable[[Any], SolverRules], reference_rules: Callable[[Any], Any]):
        self.solver_rules = solver_rules
        self.reference_rules = reference_rules

    # --- the GameSpec functions, on the game's rules record ---

    def play_batch(self, decks: np.ndarray, rules: Any) -> dict[str, np.ndarray]:
        """Solve every deal of ``decks`` (uint8[n, 52]); one array per output column."""
        return self.play_batch_with(decks, self.solver_rules(rules), self.reference_rules(rules))

    def play_one(self, deal: np.ndarray, rules: Any, trace: bool = False) -> PlayResult:
        """Solve one deal; with ``trace`` the layout and the checked solution move by move."""
        return self.play_one_with(deal, self.solver_rules(rules), self.reference_rules(rules), trace)

    def check_solution(self, deal: np.ndarray, rules: Any, text: str) -> str | None:
        """Replay solution text from the deal with the reference: None if it wins, else why not."""
        return self.check_solution_with(self.reference_rules(rules), deal, text)

    def game_spec(self, **fields: Any) -> GameSpec:
        """The game's GameSpec: ``fields`` are what is its own (name, title, doc, rules_type, presets, and
        deal_sources where it differs); the deck, the columns, the functions and the outcomes are the open games'."""
        return GameSpec(deck=DECK_52, extra_columns=self.columns, play_batch=self.play_batch, play_one=self.play_one,
                        check_solution=self.check_solution,
                        outcomes=tuple(OUTCOMES[c] for c in (WON, UNSOLVABLE, UNKNOWN)), **fields)

    # --- the same on the solver's and the reference's rules ---

    @classmethod
    def position(cls, deal: np.ndarray, rules: SolverRules, ref_rules: Any) -> tuple[np.ndarray, np.ndarray]:
        """The kernel's opening position and relative ranks for a deal (here the kernel's own layout)."""
        return deal_position(deal, rules)

    @classmethod
    def parse_move(cls, token: str, layout: Any, ref_rules: Any) -> Any:
        return cls.reference.parse_move(token, layout, ref_rules)

    @classmethod
    def solve_one(cls, deal: np.ndarray, rules: SolverRules, ref_rules: Any,
                  ws: Workspace | None = None) -> tuple[Solution, str]:
        """Solve one deal; for a win, its solution text, which the checker has parsed and replayed to the end."""
        st, rel = cls.position(deal, rules, ref_rules)
        sol = solve_state(st, rel, rules, ws)
        text = ""
        if sol.outcome == WON:
            layout, text = cls.line_text(deal, ref_rules, sol.codes)
            why = cls.reference.check_solution_text(layout, ref_rules, text)
            if why is not None:
                raise SolverError(f"solver's solution rejected by the checker: {why}")
        return sol, text

    @classmethod
    def line_text(cls, deal: np.ndarray, ref_rules: Any, codes: np.ndarray) -> tuple[Any, str]:
        """The judge's opening layout of ``deal`` and a line of card codes written as solution text (located in
        the layout, not yet checked)."""
        judge = cls.reference
        try:
            layout = judge.deal_layout([int(c) for c in deal], ref_rules)
            return layout, judge.format_solution(layout, ref_rules, reference_moves(layout, ref_rules, codes, judge))
        except Exception as exc:  # noqa: BLE001 - a card the layout does not hold: a solver bug
            raise SolverError(f"solver's solution cannot be located in the layout: {exc}") from None

    @classmethod
    def play_batch_with(cls, decks: np.ndarray, rules: SolverRules, ref_rules: Any) -> dict[str, np.ndarray]:
        """Solve every deal of ``decks`` (uint8[n, 52]); every win is replayed by the checker."""
        decks = batch_of_deals(decks, 52)
        out = new_columns(decks.shape[0], cls.columns)  # rounds stay 0: no stock passes
        ws = Workspace()
        for g in range(decks.shape[0]):
            sol, text = cls.solve_one(decks[g], rules, ref_rules, ws)
            row = row_of(sol, text)
            out["outcome"][g] = sol.outcome
            for k in ("moves", "cards_left", "nodes", "seconds", "solution"):
                out[k][g] = row[k]
        return out

    @classmethod
    def play_one_with(cls, deal: np.ndarray, rules: SolverRules, ref_rules: Any, trace: bool) -> PlayResult:
        """One deal: the solver's verdict, and with ``trace`` the layout and the checked solution in words."""
        deal = read_only_uint8(np.asarray(deal))
        sol, text = cls.solve_one(deal, rules, ref_rules)
        row = row_of(sol, text)
        lines: list[str] = []
        if trace:
            judge = cls.reference
            layout = judge.deal_layout([int(c) for c in deal], ref_rules)
            lines += judge.layout_lines(layout)
            for k, token in enumerate(text.split(), start=1):
                move = cls.parse_move(token, layout, ref_rules)  # the text was checked: every token is a legal move
                lines.append(f"{k:4d}. {token:<5} {judge.describe(layout, move)}")
                judge.apply_move(layout, move)
            verdict = {WON: "won", UNSOLVABLE: "unsolvable (exhaustive search)",
                       UNKNOWN: "unknown (max_nodes or max_seconds reached)"}
            lines.append(f"{verdict[sol.outcome]}: {row['moves']} moves, {sol.nodes} positions expanded, "
                         f"{sol.seconds:.3f} s")
        return PlayResult(row=row, trace=lines)

    @classmethod
    def check_solution_with(cls, ref_rules: Any, deal: np.ndarray, text: str) -> str | None:
        """``GameSpec.check_solution`` on the reference's rules: the reference parses and replays ``text``."""
        try:
            cards = [int(c) for c in np.asarray(deal).reshape(-1)]
        except (TypeError, ValueError) as exc:
            return f"the deal cannot be read ({exc})"
        if sorted(cards) != list(range(52)):
            return "the deal is not the 52 cards of the deck"
        return cls.reference.check_solution_text(cards, ref_rules, text)


solve_one = OpenGame.solve_one  # for the games judged by engine/reference/open_solitaire.py
