"""A tiny timer shared by the benchmark scripts: best-of-r wall-clock seconds."""
import time


def best_time(fn, *, repeat: int = 5, number: int = 1, clock=time.perf_counter) -> float:
    """Best of ``repeat`` runs of ``number`` calls, in seconds per call (the least-disturbed measurement).

    ``clock``: wall clock by default; ``time.process_time`` counts only this process's CPU time, which other
    programs on a shared machine do not inflate (right for single-threaded code such as numpy's samplers)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = clock()
        for _ in range(number):
            fn()
        best = min(best, (clock() - t0) / number)
    return best


def panel_time(callback, *, repeat: int = 5, **one_default) -> float:
    """Best-of-``repeat`` seconds for what a slider move costs in the kernel: ``callback()`` at its defaults plus
    its PNG as ``dpbook.widgets`` renders it (one Agg draw, PNG encode).  ``one_default``: one parameter and its
    default value (a panel needs a control; it is a one-option dropdown here)."""
    import matplotlib.pyplot as plt

    from dpbook import widgets

    (name, value), = one_default.items()
    panel = widgets.Panel(callback, {name: widgets.choice([value], value)})

    def run():
        fig = callback()
        try:
            panel.to_png(fig)
        finally:
            plt.close(fig)
    return best_time(run, repeat=repeat)
