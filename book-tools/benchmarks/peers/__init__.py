"""Time to a separator: kperc against the solvers people use. ``python -m benchmarks.peers``.

One run, the same instances for every solver:

* **Solvers.** SNKP on the dense ``G`` (:func:`kperc.gram_matrix`), on the factored
  linear operator (:func:`kperc.gram_operator`) and on Nystroem features
  (:func:`kperc.approx_gram_operator`, RBF); NKP (dense ``G`` for small ``n``, the factored
  operator or the on-demand kernel operator :func:`kperc.kernel_gram_operator` above);
  scikit-learn's ``Perceptron``, ``LinearSVC`` (hinge loss, large ``C``) and ``SVC`` with a
  hard margin through a large ``C``, linear and RBF. BLAS runs single-threaded for every
  solver (threadpoolctl), so that no solver gains from the second core.
* **Problems.** Planted linear instances (``d = 20``, unit-norm points, normalised margin
  exactly ``rho``) and RBF instances whose margin in the kernel's feature space is planted
  (:func:`benchmarks._peer_runners.rbf_problem`), for the margins and sizes of
  :class:`~benchmarks.peers.config.PeersConfig`.
* **Per run.** Wall time, end to end (building ``G``, the operator or the features
  included); whether the result separates the training data; the normalised margin it
  reached. Both are decided the same way for every solver
  (:func:`benchmarks._peer_runners.evaluate`): with
  ``f(x) = <w, phi(x)> + b`` the trained decision function (``b = 0`` for the homogeneous
  solvers: kperc, ``Perceptron``, ``LinearSVC``),

  * ``separated``: ``y_i f(x_i) > 0`` for every training point;
  * normalised margin: ``min_i y_i f(x_i) / (||w|| max_i ||phi(x_i)||)``,

  with ``phi`` the identity on the unit-norm points for linear solvers, and the feature map
  of the exact RBF kernel (``||phi(x)|| = 1``) for the kernel solvers. For SNKP on Nystroem
  features the decision function is linear in the normalised Nystroem features, so both
  are measured on the approximate kernel; the same ``alpha`` is also checked under the
  exact kernel (``exact_*`` fields: on every point where ``n <= exact_max_n``, on a random
  subsample above). kperc's results also carry their own certificate (``certified``: the
  algorithm ended with a separator it verified).
* **Caps.** Every run executes in a worker process; a run that does not finish within
  ``cap_s`` seconds is stopped (the worker is ended) and recorded as ``timeout`` ("did not
  finish within the cap"). A solver that timed out at some ``n`` is ``skipped`` at larger
  ``n`` for the same family and margin, and the dense ``G`` is ``skipped`` where the
  ``n x n`` matrix would exceed ``dense_max_gb`` (the row records the memory it would need).

The record (default ``book/_generated/peers.json``, written atomically) holds the machine,
the 1-minute load average before and after with a ``busy`` flag, the configuration and
one row per (family, margin, n, solver).

The modules, by job:

``config``
    ``PeersConfig`` (problems, solvers, caps), ``default_config``, ``quick_config``,
    the solvers' display names and ``DEFAULT_OUT``.
``worker``
    ``Worker``: the process that builds an instance and runs one solver on it, ended
    when a run exceeds its cap.
``measure``
    ``run(cfg)``: the loop over (family, margin, n, solver), the skip rules and the record;
    ``is_busy``.
``analysis``
    ``crossovers`` (the fastest solver that separated at each ``n``, and where SNKP or the
    peers win), ``snkp_goal`` and ``kernel_goal_miss``.
``markdown``
    ``peers_markdown`` (the tables of the benchmarks page), ``crossover_grid_markdown``
    (chapter 7's grid) and ``short_number``.
``figure``
    ``figure``: the time to a separator against ``n``.
``cli``
    ``main``, the command ``python -m benchmarks.peers`` (``__main__`` calls it).

The record is written by :func:`benchmarks.record.write_json` and read back with
``benchmarks.record.load_record(benchmarks.peers.config.DEFAULT_OUT)``.
"""
