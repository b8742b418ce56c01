"""The static part of the theorem ledger: one :class:`Result` per ledger id.

:data:`REGISTRY` is the one place where the ledger ids are defined, in the order the
ledger page lists them. No copy follows it: ``tests/conftest.py`` reads the keys of
this dict literal from this file's source (the library's tests run outside the checkout
too, so they cannot import it) to refuse a misspelt ``@pytest.mark.ledger`` at
collection. :data:`ORIGINS` words where a result comes from.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Result", "ORIGINS", "REGISTRY"]


@dataclass(frozen=True)
class Result:
    """A stated result of the book (one ledger row).

    Attributes
    ----------
    name : str
        Name as the book uses it (``"Lemma 5 (excessive gap)"``).
    statement : str
        One-line summary in MyST markdown (math in ``$...$``).
    constant : str
        The explicit constant or bound the book checks, in MyST markdown.
    chapter : str
        Key of the chapter that states the result (``"ch04"``).
    paper : str
        Where the result sits in the paper (its section number).
    label : str or None
        Label of the ``prf`` block (or figure) that states it, when it should not be
        discovered from the notebooks (:func:`locate`).
    status : str
        Where the statement and its constant come from, a key of :data:`ORIGINS`:
        ``"paper"`` (stated in the paper or the authors' talk, proof re-derived here),
        ``"paper+constant"`` (stated there, explicit constant derived in this book),
        ``"paper+talk"`` (stated in the paper, explicit constant stated in the talk),
        ``"talk"`` (stated in the talk; the paper's text ends at Lemma 7),
        ``"talk+constant"`` (the rate stated in the talk, explicit constant derived here),
        ``"derived"`` (derived in this book) or ``"uncertain"`` (the sources do not settle
        it).
    """

    name: str
    statement: str
    constant: str
    chapter: str
    paper: str
    label: str | None = None
    status: str = "paper"


#: How the ledger page words :attr:`Result.status` (where a result comes from).
ORIGINS: dict[str, str] = {
    "paper": "stated in the paper",
    "paper+constant": "stated in the paper; explicit constant derived here",
    "paper+talk": "stated in the paper; the constant as the authors' talk states it",
    "talk": "stated in the authors' talk (the paper's text ends at Lemma 7)",
    "talk+constant": "rate stated in the authors' talk; explicit constant derived here",
    "derived": "derived in this book",
    "uncertain": "uncertain: neither the paper nor the talk settles it",
}

#: Every result the book states, by ledger id (CONTRIBUTING.md); the explicit constants
#: are derived on the book's Sources and derivations page.
REGISTRY: dict[str, Result] = {
    "block-novikoff": Result(
        "Block-Novikoff bound",
        r"If a unit $w^\star$ has $y_i x_i^\top w^\star\ge\rho>0$ for all $i$, the "
        r"Perceptron (Alg. 1) makes at most $R^2/\rho^2$ updates, $R=\max_i\|x_i\|_2$.",
        r"$K\le R^2/\rho^2$",
        "ch02",
        "2.1",
        label="ch02-thm-block-novikoff",
    ),
    "np-bound": Result(
        "Normalised Perceptron bound",
        r"On the normalised data $A=X_2Y$, Alg. 2 halts once $\rho_2>0$.",
        r"$K\le 1/\rho_2^2$",
        "ch02",
        "2.2",
        status="paper+talk",
        label="ch02-thm-np",
    ),
    "normalising-never-hurts": Result(
        "Normalising never weakens the bound",
        r"The normalised margin dominates the scaled raw margin, so the normalised "
        r"bound is never worse.",
        r"$\rho/\max_i\|x_i\|_2\le\rho_2$, hence $1/\rho_2^2\le R^2/\rho^2$",
        "ch02",
        "2.2",
        label="ch02-prop-normalizing",
    ),
    "np-equals-perceptron": Result(
        "Normalised Perceptron = Perceptron",
        r"$k\,w_k$ of Alg. 2 is the Perceptron iterate with the most-violated-point rule "
        r"on normalised data; the sign patterns coincide.",
        r"exact identity $k\,w_k=\sum_{j<k}a_{i_j}$",
        "ch02",
        "2.1",
        label="ch02-prop-np-perceptron",
    ),
    "lemma-1": Result(
        "Lemma 1",
        r"$L(\alpha)<0\Rightarrow G\alpha>0$; a perfect classifier exists iff "
        r"$G\alpha>0$ for some $\alpha$.",
        r"$\min_i(G\alpha)_i>\tfrac12\|\alpha\|_G^2\ge0$ when $L(\alpha)<0$",
        "ch03",
        "3",
        label="ch03-lemma-1",
    ),
    "lemma-2": Result(
        "Lemma 2",
        r"The $G$-seminorm is dominated by the $\ell_1$ and $\ell_2$ norms.",
        r"$\|\alpha\|_G\le\|\alpha\|_1\le\sqrt n\,\|\alpha\|_2$",
        "ch03",
        "3",
        label="ch03-lemma-2",
    ),
    "lemma-3": Result(
        "Lemma 3",
        r"For $\rho_K>0$, $f$ is a unit max-margin function iff $\rho_K f$ minimises $L$; "
        r"$\min L=-\rho_K^2/2$; and $\rho_K\le\|p\|_G$ for every $p\in\Delta_n$.",
        r"$\rho_K\le\|p\|_G$; $\min_f L(f)=-\tfrac12\rho_K^2$",
        "ch03",
        "3",
        label="ch03-lemma-3",
    ),
    "minimax-margin": Result(
        "Minimax form of the margin",
        r"When positive, the normalised kernel margin is the distance from the origin to "
        r"the hull of the signed points (the bias-free hard-margin SVM).",
        r"$\rho_K=\min_{p\in\Delta_n}\|p\|_G$",
        "ch03",
        "3",
        status="derived",
        label="ch03-prop-minimax",
    ),
    "nkp-bound": Result(
        "NKP bound",
        r"The Normalised Kernel Perceptron (Alg. 3) halts once $\rho_K>0$.",
        r"$K\le 1/\rho_K^2$",
        "ch03",
        "4",
        status="paper+talk",
        label="ch03-prop-nkp-bound",
    ),
    "nkp-equals-np": Result(
        "NKP = Normalised Perceptron (linear kernel)",
        r"With the linear kernel, NKP and Alg. 2 have identical iterates.",
        r"exact identity $w_k=A\alpha_k$",
        "ch03",
        "4",
        label="ch03-prop-nkp-bound",
    ),
    "lemma-4": Result(
        "Lemma 4",
        r"Smoothing with the entropy lowers the loss by at most $\mu\log n$.",
        r"$L(\alpha)-\mu\log n\le L_\mu(\alpha)\le L(\alpha)$",
        "ch04",
        "4",
    ),
    "lemma-5": Result(
        "Lemma 5 (excessive gap)",
        r"Every SNKP iterate satisfies the excessive-gap inequality when $\mu_0\ge2$.",
        r"$L_{\mu_k}(\alpha_k)\le-\tfrac12\|p_k\|_G^2$ with $\mu_0=2$",
        "ch04",
        "4 and Appendix",
        status="paper+talk",
    ),
    "theorem-1": Result(
        "Theorem 1 (SNKP rate)",
        r"If $\rho_K>0$, SNKP (Alg. 4) halts with a separator.",
        r"$K(K+1)\le 8\log n/\rho_K^2$, so $K<2\sqrt{2\log n}/\rho_K$",
        "ch04",
        "4",
        status="paper+constant",
    ),
    "mu-closed-form": Result(
        "Closed form of the smoothing parameter",
        r"The recursion $\mu_{k+1}=(1-\theta_k)\mu_k$, $\theta_k=2/(k+3)$, has a closed "
        r"form.",
        r"$\mu_k=2\mu_0/((k+1)(k+2))$: $4/((k+1)(k+2))$ (SNKP), $4n/((k+1)(k+2))$ "
        r"(SNKPVN)",
        "ch04",
        "4 and 6",
        status="derived",
        label="ch04-prop-mu",
    ),
    "gordan": Result(
        "Lemma 6 (Gordan)",
        r"Exactly one holds: some $w$ has $A^\top w>0$, or some $p\in\Delta_n$ has "
        r"$Ap=0$.",
        r"alternative: $\min_{p\in\Delta}\|Ap\|_2>0$ or $=0$",
        "ch05",
        "5",
    ),
    "theorem-2": Result(
        "Theorem 2 (Gordan in an RKHS)",
        r"Exactly one holds: some $\alpha$ has $G\alpha>0$, or some $p\in\Delta_n$ has "
        r"$\|p\|_G=0$ ($Gp=0$).",
        r"alternative: $\min_{p\in\Delta}\|p\|_G>0$ or $=0$",
        "ch05",
        "5.1",
    ),
    "dantzig": Result(
        "Dantzig's bound for von Neumann's algorithm",
        r"Each NVN step (Alg. 5) with a non-positive inner product shrinks $\|w\|$.",
        r"$\|w_{k+1}\|^{-2}\ge\|w_k\|^{-2}+1$, so $\|w_k\|^2\le 1/(k+1)$ and "
        r"$K\le\lceil 1/\varepsilon^2\rceil-1$",
        "ch05",
        "5",
        status="paper+constant",
    ),
    "epelman-freund-primal": Result(
        "Epelman-Freund, primal side",
        r"NVN with the primal exit finds a separator when $\rho_2>0$.",
        r"$K\le 1/\rho_2^2$",
        "ch05",
        "5",
        status="paper+talk",
    ),
    "epelman-freund-dual": Result(
        "Epelman-Freund, dual side (linear rate)",
        r"If the problem is infeasible with margin $\rho<0$, NVN converges linearly.",
        r"$\|w_{k+1}\|^2\le(1-\rho^2)\|w_k\|^2$, "
        r"$K\le\lceil 2\ln(1/\varepsilon)/\rho^2\rceil$",
        "ch05",
        "5",
        status="paper+constant",
    ),
    "theorem-3": Result(
        "Theorem 3 (negative margin)",
        r"If the primal is infeasible, $|\rho_K|$ is the radius of the largest ball "
        r"around $0$ (within the span) contained in the hull of the signed points.",
        r"$|\rho_K|=\sup\{\delta:\|f\|_K\le\delta\Rightarrow f\in\mathrm{conv}(a_i)\}$",
        "ch05",
        "5.2",
        status="paper",
    ),
    "lemma-7": Result(
        "Lemma 7 (Hoffman-type bound)",
        r"If $\rho_K<0$, a small $\|q\|_G$ means $q$ is close to the witness set $W$.",
        r"$\mathrm{dist}(q,W)\le\sqrt2\|q\|_G/(\|q\|_G+|\rho_K|)$ "
        r"$\le\min\{\sqrt2,\sqrt2\|q\|_G/|\rho_K|\}$",
        "ch06",
        "6",
        status="paper+constant",
    ),
    "lemma-8": Result(
        "Lemma 8",
        r"Along SNKPVN ($\mu_0=2n$, any $q\in\Delta_n$) the smoothed loss is sandwiched.",
        r"$-\tfrac12\|p_k\|_G^2\ge L^q_{\mu_k}(\alpha_k)\ge L(\alpha_k)-\mu_k$",
        "ch06",
        "6",
        status="talk",
    ),
    "lemma-9": Result(
        "Lemma 9",
        r"If $W\ne\emptyset$, the smoothed loss along SNKPVN is bounded below by the "
        r"distance to $W$.",
        r"$-\tfrac12\|p_k\|_G^2\ge L^q_{\mu_k}(\alpha_k)\ge-\tfrac12\mu_k\,"
        r"\mathrm{dist}(q,W)^2$",
        "ch06",
        "6",
        status="talk",
    ),
    "snkpvn-bound": Result(
        "SNKPVN bound (separable case)",
        r"If $\rho_K>0$, SNKPVN$(q,\delta)$ halts for any $\delta$, and only with a "
        r"separator when $\delta\le\rho_K$.",
        r"$K(K+1)\le 8n/\max(\rho_K,\delta)^2$, so $K<2\sqrt{2n}/\max(\rho_K,\delta)$",
        "ch06",
        "6",
        status="paper+talk",
    ),
    "snkpvn-infeasible-bound": Result(
        "SNKPVN bound (infeasible case)",
        r"If $W\ne\emptyset$, SNKPVN$(q,\delta)$ returns a $\delta$-certificate.",
        r"$K\le2\sqrt n\,\mathrm{dist}(q,W)/\delta\le 2\sqrt{2n}/\delta$",
        "ch06",
        "6",
        status="talk+constant",
    ),
    "isnkpvn": Result(
        "ISNKPVN guarantee",
        r"ISNKPVN$(\gamma,\varepsilon)$ returns a separator or an $\varepsilon$-certificate; "
        r"$\|q_t\|_G$ falls by $\gamma$ per call.",
        r"$\rho_K>\varepsilon$: at most "
        r"$\max\{1,\lceil\log(\|q_0\|_G/\rho_K)/\log\gamma\rceil\}$ calls of "
        r"$<2\sqrt{2n}/\rho_K$ iterations; otherwise at most "
        r"$\lfloor\log(\|q_0\|_G/\varepsilon)/\log\gamma\rfloor+1$ calls and, if "
        r"$\rho_K\le\varepsilon$, fewer than $2\sqrt{2n}\,\gamma^2/((\gamma-1)\varepsilon)$ "
        r"iterations in all",
        "ch06",
        "6",
        status="paper+constant",
    ),
}
