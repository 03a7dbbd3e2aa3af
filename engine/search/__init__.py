"""The searches and the machinery they share: one module per search, composed by a game's schedule.

The open solitaires' solver (engine/search/solver.py) runs a schedule of searches (engine/search/schedule.py)
over one kernel position (positions), its moves (moves, safe_moves), its packed records (encoding) and its
table (position_table), sharing one expansion step (expansion) and one control vector (control):

- best_first: the guide's search and the long guide (ranked by guide);
- depth_first: the streamlined, colour and line searches;
- sweep: the sweep by layers, with its waiting positions on disk (sweep_runs);
- disk_sweep: the sweep with its levels on disk;
- lines: winning lines read back, replayed and shortened; workspace: the tables kept between deals.

Every solver's exact position table is position_table; the other solvers share it, heap and packed_rows; leaf
compiles kernels that need no reference counts.  How each search works, its proofs and measurements:
docs/solvers.md.
"""
