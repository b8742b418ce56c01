"""Who wins where: the crossovers of a record, and the goal's counts."""

from __future__ import annotations

from typing import Any

from benchmarks.peers.config import KPERC_SNKP, PEERS


def is_separator(r: dict[str, Any]) -> bool:
    """A run counts as a separator when it separated, and, for a run on an approximate
    kernel (Nystroem), when the exact kernel's check found no point on the wrong side."""
    return (
        r.get("status") == "finished"
        and r.get("separated") is True
        and r.get("exact_separated") is not False
    )


def crossovers(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Per family and margin: the fastest solver that separated at each ``n``, and who wins.

    For each (family, rho, n): ``fastest`` (the solver with the least time among the runs
    that finished with a separator, any solver), ``snkp`` (the fastest SNKP variant that
    separated) and ``peer`` (the fastest scikit-learn solver that separated), with their
    times, and ``winner``:

    * ``"snkp"`` when an SNKP variant separated and no peer separated faster (a peer that
      timed out, was skipped or did not separate loses);
    * ``"peers"`` when a peer separated faster than every SNKP variant (or no SNKP
      variant separated);
    * ``None`` when nobody separated.

    ``speedup`` is the best peer's time over the best SNKP time (a lower bound, with
    ``speedup_bound = ">="``, when no peer separated: the cap is used for the peers' time
    if some peer timed out, and the entry is ``None`` if all were skipped or failed).
    Each (family, rho) entry lists these per ``n`` in ``by_n`` and summarises them in
    ``snkp_wins_n`` and ``peers_win_n``.
    """
    rows = record["rows"]
    keys = sorted({(r["family"], r["rho"]) for r in rows}, key=lambda k: (k[0], -k[1]))
    out = []
    for fam, rho in keys:
        sub = [r for r in rows if r["family"] == fam and r["rho"] == rho]
        by_n = []
        for n in sorted({r["n"] for r in sub}):
            at = [r for r in sub if r["n"] == n]
            ok = sorted((r for r in at if is_separator(r)), key=lambda r: r["time_s"])
            s = next((r for r in ok if r["solver"] in KPERC_SNKP), None)
            p = next((r for r in ok if r["solver"] in PEERS), None)
            entry: dict[str, Any] = {
                "n": n,
                "fastest": ok[0]["solver"] if ok else None,
                "fastest_s": ok[0]["time_s"] if ok else None,
                "snkp": s["solver"] if s else None,
                "snkp_s": s["time_s"] if s else None,
                "peer": p["solver"] if p else None,
                "peer_s": p["time_s"] if p else None,
                "winner": None,
                "speedup": None,
                "speedup_bound": None,
            }
            if s and (p is None or s["time_s"] <= p["time_s"]):
                entry["winner"] = "snkp"
            elif p:
                entry["winner"] = "peers"
            if s and p:
                entry["speedup"] = p["time_s"] / max(s["time_s"], 1e-12)
                entry["speedup_bound"] = "="
            elif s:
                timed = [r for r in at if r["solver"] in PEERS and r["status"] == "timeout"]
                if timed:
                    entry["speedup"] = max(r["time_s"] for r in timed) / max(s["time_s"], 1e-12)
                    entry["speedup_bound"] = ">="
            by_n.append(entry)
        out.append(
            {
                "family": fam,
                "rho": rho,
                "by_n": by_n,
                "snkp_wins_n": [e["n"] for e in by_n if e["winner"] == "snkp"],
                "peers_win_n": [e["n"] for e in by_n if e["winner"] == "peers"],
            }
        )
    return out


def snkp_goal(record: dict[str, Any], rho_max: float = 1e-2, n_min: int = 10_000) -> dict[str, Any]:
    """How often SNKP is ahead of every peer where the goal asks (rho <= rho_max, n >= n_min).

    Returns ``cases`` (measured (family, rho, n) cases in that region where some solver
    separated), ``snkp_wins`` and ``peers_win`` (counts), and ``lost`` (the cases SNKP
    lost, as ``(family, rho, n, peer)``).
    """
    wins, lost = 0, []
    for c in crossovers(record):
        if c["rho"] > rho_max:
            continue
        for e in c["by_n"]:
            if e["n"] < n_min or e["winner"] is None:
                continue
            if e["winner"] == "snkp":
                wins += 1
            else:
                lost.append((c["family"], c["rho"], e["n"], e["peer"]))
    return {"cases": wins + len(lost), "snkp_wins": wins, "peers_win": len(lost), "lost": lost}


def kernel_goal_miss(
    record: dict[str, Any], rho_max: float = 1e-2, n_min: int = 10_000
) -> dict[str, Any]:
    """The kernel (RBF) cases of the goal that SNKP lost, and the measurements behind why.

    Returns
    -------
    dict
        ``slower``: ``(rho, n, snkp_s, peer_s)`` where SNKP separated but a peer was
        faster; ``unsolved``: ``(rho, n, peer_s)`` where only a peer separated;
        ``svc_support``: ``(min, max)`` support vectors of the finished RBF ``SVC`` runs
        and ``svc_ns``: ``(min, max)`` of their ``n`` (both None without such runs);
        ``snkp_nit``: ``(n, nit)`` of the Nystroem SNKP runs at ``rho_max`` and
        ``n >= n_min``; ``nystroem_wrong``: ``(rho, n, points)`` for each Nystroem
        separator checked on all points that misplaced ``points`` under the exact kernel;
        ``dense_cap_n``: the smallest ``n`` at which SNKP on the dense ``G`` hit the cap.

    Examples
    --------
    >>> rows = [
    ...     {"family": "rbf", "rho": 0.01, "n": 10_000, "solver": s, "status": "finished",
    ...      "separated": True, "time_s": t, **extra}
    ...     for s, t, extra in (("snkp-nystroem", 0.4, {"nit": 120}),
    ...                         ("svc-rbf", 0.1, {"n_support": 70}))
    ... ]
    >>> miss = kernel_goal_miss({"rows": rows})
    >>> miss["slower"], miss["svc_support"], miss["snkp_nit"]
    ([(0.01, 10000, 0.4, 0.1)], (70, 70), [(10000, 120)])
    """
    rows = [r for r in record["rows"] if r["family"] == "rbf"]
    slower, unsolved = [], []
    for c in crossovers({"rows": rows}):
        if c["rho"] > rho_max:
            continue
        for e in c["by_n"]:
            if e["n"] < n_min or e["winner"] != "peers":
                continue
            if e["snkp"]:
                slower.append((c["rho"], e["n"], e["snkp_s"], e["peer_s"]))
            else:
                unsolved.append((c["rho"], e["n"], e["peer_s"]))
    done = [r for r in rows if r["status"] == "finished"]
    svc = [r for r in done if r["solver"] == "svc-rbf" and r.get("n_support")]
    ny = [r for r in done if r["solver"] == "snkp-nystroem"]
    capped = [r["n"] for r in rows if r["solver"] == "snkp-dense" and r["status"] == "timeout"]
    return {
        "slower": slower,
        "unsolved": unsolved,
        "svc_support": (min(r["n_support"] for r in svc), max(r["n_support"] for r in svc))
        if svc
        else None,
        "svc_ns": (min(r["n"] for r in svc), max(r["n"] for r in svc)) if svc else None,
        "snkp_nit": [(r["n"], r["nit"]) for r in ny if r["rho"] == rho_max and r["n"] >= n_min],
        "nystroem_wrong": [
            (r["rho"], r["n"], r["n"] - round(r["exact_fraction"] * r["n"]))
            for r in ny
            if r.get("exact_separated") is False and r.get("exact_rows") == "all"
        ],
        "dense_cap_n": min(capped) if capped else None,
    }


def family_winners(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Per (family, rho, n): the fastest kperc algorithm, the fastest scikit-learn solver
    and the fastest of all, among the runs that ended with a separator (:func:`is_separator`).

    Each entry has ``family``, ``rho``, ``n``; ``fastest``, ``kperc`` and ``peer`` (solver
    names, None when no such run separated) with their times (``*_s``) and iteration
    counts (``*_nit``, in each solver's own unit: updates, iterations, epochs or SMO
    steps); ``winner`` (``"kperc"`` when a kperc algorithm separated no later than every
    scikit-learn solver, ``"sklearn"`` when a scikit-learn solver was faster or was the
    only one to separate, None when nobody separated) and ``factor``: the loser's time over
    the winner's, with ``factor_bound`` ``"="``, or ``">="`` when the losing side did not
    separate within the cap (its time is then the cap), or None when no run of the losing
    side reached the cap (each finished without a separator, failed or was skipped).

    Examples
    --------
    >>> rows = [
    ...     {"family": "spread", "rho": 0.001, "n": 10_000, "solver": s, "status": st,
    ...      "separated": st == "finished", "time_s": t, "nit": k}
    ...     for s, st, t, k in (("snkp", "finished", 0.05, 396), ("nkp", "finished", 2.8, 491265),
    ...                         ("svc-linear", "timeout", 10.0, None))
    ... ]
    >>> w = family_winners({"rows": rows})[0]
    >>> w["fastest"], w["kperc"], w["winner"], w["factor_bound"], round(w["factor"])
    ('snkp', 'snkp', 'kperc', '>=', 200)
    """
    from benchmarks.peers.config import KPERC_SOLVERS, SKLEARN_SOLVERS

    rows = record["rows"]
    keys = sorted(
        {(r["family"], r["rho"], r["n"]) for r in rows}, key=lambda k: (k[0], -k[1], k[2])
    )
    out = []
    for fam, rho, n in keys:
        at = [r for r in rows if r["family"] == fam and r["rho"] == rho and r["n"] == n]
        ok = sorted((r for r in at if is_separator(r)), key=lambda r: r["time_s"])
        k = next((r for r in ok if r["solver"] in KPERC_SOLVERS), None)
        p = next((r for r in ok if r["solver"] in SKLEARN_SOLVERS), None)
        e: dict[str, Any] = {"family": fam, "rho": rho, "n": n}
        for key, r in (("fastest", ok[0] if ok else None), ("kperc", k), ("peer", p)):
            e[key] = r["solver"] if r else None
            e[f"{key}_s"] = r["time_s"] if r else None
            e[f"{key}_nit"] = r.get("nit") if r else None
        e["winner"], e["factor"], e["factor_bound"] = None, None, None
        if k and (p is None or k["time_s"] <= p["time_s"]):
            e["winner"], win, side = "kperc", k, SKLEARN_SOLVERS
        elif p:
            e["winner"], win, side = "sklearn", p, KPERC_SOLVERS
        if e["winner"]:
            other = p if e["winner"] == "kperc" else k
            if other is not None:
                e["factor"], e["factor_bound"] = other["time_s"] / max(win["time_s"], 1e-12), "="
            else:
                capped = [
                    r["time_s"] for r in at if r["solver"] in side and r["status"] == "timeout"
                ]
                if capped:
                    e["factor"] = max(capped) / max(win["time_s"], 1e-12)
                    e["factor_bound"] = ">="
        out.append(e)
    return out
