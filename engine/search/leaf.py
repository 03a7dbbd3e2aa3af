"""``leaf_kernel``: numba's ``njit(cache=True)`` for hot kernels that make no array, compiled without its runtime.

Numba counts references to every array a compiled function holds, with an atomic increment and decrement in calls
to its runtime (NRT), and prunes the pairs it can prove useless only within simple shapes of control flow.  A
helper inlined into a loop with branches (``_safe`` in the solver's closure) keeps them: measured on the solver's
own positions (Seahaven Towers, seed 99 deal 696), the closure's pass over ten columns and four cells took 466 ns
with them and 10 ns without, and it was about three fifths of an expansion's time.  A function that allocates
nothing, returns no array and keeps none needs no reference counts at all, so it is compiled with the runtime off
(``_nrt=False``, the switch numba's developers use to show the cost: numba/numba#2350).  Arrays made by the caller
pass in and out of it as usual; such a function may not make one (numba refuses to compile it if it does).
"""

from __future__ import annotations

import numba as nb

leaf_kernel = nb.njit(cache=True, _nrt=False)
