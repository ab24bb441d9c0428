"""Chapters 10–12: run times of the IDC mechanisms, with the measured error and update count next to each bound.

Rows (the chapter's settings: cancer data on 6 attributes, N = 64, the 160 three-way marginal cells; the
median mechanism on 3 attributes, N = 8, all 255 counting queries; each patient counted ``scale`` times):

* one round of each IDC update rule (MW, FK, Median) on a batch of 100 runs;
* the worst-case oracle driving each IDC to a maximal update sequence (IDC-Def3.2): updates L vs B(α);
* IDC-Alg1-SV (100 runs × 100 queries, adversarial streams): max error vs α_U + 2α_SV, updates vs c;
* GRU Algorithm 1 (reconstructed ε0): max error vs 3T/2, updates vs B_max;
* the offline IC mechanism (40 runs): max error vs α;
* the privacy-loss replay (300 runs × 120 rounds) and the two widget callbacks (budget: 100 ms; the
  privacy-loss figure is cached, so the round slider costs only the drawing).
"""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks._timing import best_time, panel_time  # noqa: E402
from dpbook.explorers.idc import explore_online, explore_round, explore_run  # noqa: E402
from dpbook.idc import (AdversarialStream, FriezeKannanIDC, MedianIDC, MultiplicativeWeightsIDC,  # noqa: E402
                        drive_with_oracle, iterative_construction, online_idc, online_idc_sv, th_sv_threshold_for)
from dpbook.privacy_loss import privacy_loss_run  # noqa: E402
from dpbook.queries import cancer3, cancer6  # noqa: E402


def main():
    x6, W = cancer6()
    x3, W8 = cancer3()
    rows = []     # (what, seconds, measured, bound)
    rules = {"MW": MultiplicativeWeightsIDC(64, 0.1), "FK": FriezeKannanIDC(64, 0.1, n=569),
             "Median": MedianIDC(8, 4, alpha=0.2)}
    for name, rule in rules.items():
        Q = W8.matrix() if name == "Median" else W.matrix()
        state = rule.initial(100)
        a_hat = np.full(100, 0.9)
        rows.append((f"one {name} update, 100 runs", best_time(lambda: rule.update(state, Q[3], a_hat), repeat=20),
                     "", ""))
        rows.append((f"{name} hypothesis answers to all {Q.shape[0]} queries, 100 runs",
                     best_time(lambda: rule.answers(state, Q), repeat=10), "", ""))
        WW = W8 if name == "Median" else W
        rows.append((f"  one {name} update_query(state, W, j, a), 100 runs",
                     best_time(lambda: rule.update_query(state, WW, 3, a_hat), repeat=20), "", ""))
        rows.append((f"  {name} answers(state, W), the workload as a map, 100 runs",
                     best_time(lambda: rule.answers(state, WW), repeat=10), "", ""))
    for name, rule, xx, WW in (("MW α=0.05", MultiplicativeWeightsIDC(64, 0.05), x6, W),
                               ("FK set α=0.05", FriezeKannanIDC(64, 0.05, n=int((x6 > 0).sum()),
                                                                 sq_norm=int((x6 > 0).sum())), (x6 > 0) * 1, W),
                               ("Median, 4-row databases, α=0.2", MedianIDC(8, 4, alpha=0.2), x3, W8)):
        run = drive_with_oracle(rule, xx, WW)
        rows.append((f"oracle to a maximal sequence, {name}", best_time(lambda: drive_with_oracle(rule, xx, WW),
                                                                        repeat=2),
                     f"L = {run.updates}", f"B = {rule.bound():.4g}"))
    for name, rule, xx, WW, m in (("MW", MultiplicativeWeightsIDC(64, 0.1), x6 * 3000, W, 100),
                                  ("Median", MedianIDC(8, 4, alpha=0.2), x3 * 200, W8, 50),
                                  ("FK", FriezeKannanIDC(64, 0.1, n=569 * 5000), x6 * 5000, W, 60)):
        below = th_sv_threshold_for(rule, m, 0.9, 1e-6, 0.05, int(xx.sum()))
        stream = AdversarialStream(WW, m, below=below, reference=xx)
        call = lambda: online_idc_sv(xx, rule, stream, epsilon=0.9, delta=1e-6, trials=100, rng=1)
        rel = call()
        err = rel.errors(xx).max
        rows.append((f"IDC-Alg1-SV {name}, n={xx.sum():,}, 100 runs x {m} queries", best_time(call, repeat=2),
                     f"q95 err {np.quantile(err, 0.95):.3f}, updates <= {rel.updates.max()}",
                     f"{rel.params['error_bound']:.3f}, c = {rel.params['c']}"))
    call = lambda: online_idc(x6 * 500, MultiplicativeWeightsIDC(64, 0.1),
                              AdversarialStream(W, 100, reference=x6 * 500), epsilon=1.0, delta=1e-6, trials=100, rng=2)
    rel = call()
    rows.append(("GRU Alg. 1 MW, n=284,500, 100 runs x 100 queries", best_time(call, repeat=2),
                 f"max err {rel.errors(x6 * 500).max.max():.3f}, updates <= {rel.updates.max()}",
                 f"3τ/2 = {1.5 * rel.params['threshold']:.3f}, B_max = {rel.params['b_max']}"))
    call = lambda: iterative_construction(x6 * 1000, W, rule=MultiplicativeWeightsIDC(64, 0.15), epsilon=0.9,
                                          delta=1e-6, trials=40, rng=3)
    rel = call()
    err = np.abs(rel.answers - W.answers(x6 * 1000)).max(axis=1)
    rows.append(("offline IC (MW), n=569,000, 40 runs", best_time(call, repeat=2),
                 f"max err {err.max():.3f}, rounds <= {rel.trace['rounds_used'].max()}", f"α = 0.3, B = {rel.trace['B']}"))
    rows.append(("privacy-loss replay (explore_run's data), 300 runs x 400 rounds",
                 best_time(lambda: privacy_loss_run.__wrapped__(), repeat=2), "", ""))
    plt.close(explore_run())
    rows.append(("explore_run() at defaults, cached replay", best_time(lambda: plt.close(explore_run()), repeat=3),
                 "", ""))
    rows.append(("explore_round() at defaults", best_time(lambda: plt.close(explore_round()), repeat=3), "", ""))
    rows.append(("explore_online() at defaults", best_time(lambda: plt.close(explore_online()), repeat=3), "", ""))
    rows.append(("explore_online() + panel PNG (a slider move)", panel_time(explore_online, epsilon=0.9, repeat=3), "", ""))
    print(f"{'what':62s} {'ms':>9s}   {'measured':36s} bound")
    for name, t, measured, bound in rows:
        print(f"{name:62s} {1000 * t:9.1f}   {measured:36s} {bound}")


if __name__ == "__main__":
    main()
