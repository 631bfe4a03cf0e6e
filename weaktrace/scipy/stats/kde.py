"""``weaktrace.scipy.stats.gaussian_kde``: the jax.scipy.stats.gaussian_kde mirror, a
Gaussian kernel density estimate. Like jax's it is a frozen pytree of five arrays
(neff, dataset, weights, covariance, inv_cov), so it passes through weaktrace.trace
and jax transforms; the dataset's shape and the options are static, the data may be
traced. What jax leaves out (integrate_box, set_bandwidth) raises jax's
NotImplementedError."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import jax
import numpy as np

import weaktrace.numpy as _wnp
from weaktrace import random as _random
from weaktrace.core.operands import to_jax
from weaktrace.errors import OperandTypeError
from weaktrace.numpy._core import Tracer
from weaktrace.scipy import linalg, special
from weaktrace.scipy.stats._common import inexact_dtypes

wnp: Any = _wnp  # the mirror modules fill their namespaces at import
random: Any = _random
F = TypeVar("F", bound=Callable[..., Any])


def _arraylike(name: str, x: Any) -> None:
    """jax's ``check_arraylike``: lists and tuples are not arrays."""
    if isinstance(x, list | tuple):
        raise OperandTypeError(
            f"{name} requires ndarray or scalar arguments, got {type(x).__name__}; "
            "convert it with weaktrace.numpy.asarray first."
        )


def _settle(x: Any) -> Any:
    """An eager result as users hold it (a jax array), as exported functions return."""
    return to_jax(x) if x.__class__ is Tracer and x.ctx.eager else x


def _public(method: F) -> F:
    """A method whose eager results are jax arrays."""

    @functools.wraps(method)
    def settled(*args: Any, **kwargs: Any) -> Any:
        return _settle(method(*args, **kwargs))

    return cast(F, settled)


def _real(name: str, x: Any) -> None:
    if np.issubdtype(wnp.result_type(x), np.complexfloating):
        raise NotImplementedError(f"gaussian_kde does not support complex {name}")


@jax.tree_util.register_pytree_node_class
@dataclass(frozen=True, init=False, slots=True)
class gaussian_kde:
    """``jax.scipy.stats.gaussian_kde``: dataset of shape (d, n) (a 1-d one is (1, n)),
    optional weights of length n, bandwidth 'scott' (default), 'silverman', a scalar
    factor or a callable of the estimate."""

    neff: Any
    dataset: Any
    weights: Any
    covariance: Any
    inv_cov: Any

    def __init__(self, dataset: Any, bw_method: Any = None, weights: Any = None) -> None:
        _arraylike("gaussian_kde", dataset)
        dataset = wnp.atleast_2d(dataset)
        _real("data", dataset)
        if not dataset.size > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        d, n = dataset.shape
        if weights is None:
            (dataset,) = inexact_dtypes("gaussian_kde", dataset)
            weights = wnp.full(n, 1.0 / n, dtype=dataset.dtype)
        else:
            _arraylike("gaussian_kde", weights)
            dataset, weights = inexact_dtypes("gaussian_kde", dataset, weights)
            weights = wnp.atleast_1d(weights)
            weights = weights / wnp.sum(weights)
            if weights.ndim != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if len(weights) != n:
                raise ValueError("`weights` input should be of length n")
        self._set("dataset", dataset)
        self._set("weights", weights)
        neff = self._set("neff", 1 / wnp.sum(weights**2))
        factor = self._factor("scott" if bw_method is None else bw_method, neff, d)
        data_cov = wnp.atleast_2d(wnp.cov(dataset, rowvar=1, bias=False, aweights=weights))
        self._set("covariance", data_cov * factor**2)
        self._set("inv_cov", wnp.linalg.inv(data_cov) / factor**2)

    def _factor(self, bw_method: Any, neff: Any, d: int) -> Any:
        """The bandwidth factor (Scott's and Silverman's rules of thumb)."""
        if isinstance(bw_method, str) and bw_method == "scott":
            return wnp.power(neff, -1.0 / (d + 4))
        if isinstance(bw_method, str) and bw_method == "silverman":
            return wnp.power(neff * (d + 2) / 4.0, -1.0 / (d + 4))
        if wnp.isscalar(bw_method) and not isinstance(bw_method, str):
            return bw_method
        if callable(bw_method):
            return bw_method(self)
        raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")

    def _set(self, name: str, value: Any) -> Any:
        value = _settle(value)
        object.__setattr__(self, name, value)  # frozen: only construction sets fields
        return value

    def tree_flatten(self) -> tuple[tuple[Any, ...], None]:
        return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

    @classmethod
    def tree_unflatten(cls, aux_data: None, children: tuple[Any, ...]) -> gaussian_kde:
        del aux_data
        kde = cls.__new__(cls)
        for name, value in zip(("neff", "dataset", "weights", "covariance", "inv_cov"),
                               children, strict=True):  # fmt: skip
            kde._set(name, value)
        return kde

    @property
    def d(self) -> int:
        return int(self.dataset.shape[0])

    @property
    def n(self) -> int:
        return int(self.dataset.shape[1])

    @_public
    def evaluate(self, points: Any) -> Any:
        """The estimated density at points (shape (d, m), or (m,) when d == 1)."""
        _arraylike("evaluate", points)
        return _kernel_sum(False, self, self._points(points))

    def __call__(self, points: Any) -> Any:
        return self.evaluate(points)

    def pdf(self, x: Any) -> Any:
        return self.evaluate(x)

    @_public
    def logpdf(self, x: Any) -> Any:
        """The log density, summed in log space (logsumexp)."""
        _arraylike("logpdf", x)
        return _kernel_sum(True, self, self._points(x))

    @_public
    def integrate_gaussian(self, mean: Any, cov: Any) -> Any:
        """The integral of the estimate times the Gaussian N(mean, cov)."""
        mean = wnp.atleast_1d(wnp.squeeze(mean))
        cov = wnp.atleast_2d(cov)
        if mean.shape != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if cov.shape != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        chol, norm = self._chol_norm(self.covariance + cov)
        return _convolve(chol, norm, self.dataset, self.weights, mean[:, None])[0]

    @_public
    def integrate_box_1d(self, low: Any, high: Any) -> Any:
        """The mass of a 1-d estimate between two scalar limits."""
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        sigma = wnp.squeeze(wnp.sqrt(self.covariance))
        low = wnp.squeeze((low - self.dataset) / sigma)
        high = wnp.squeeze((high - self.dataset) / sigma)
        return wnp.sum(self.weights * (special.ndtr(high) - special.ndtr(low)))

    @_public
    def integrate_kde(self, other: gaussian_kde) -> Any:
        """The integral of the product of two estimates."""
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        chol, norm = self._chol_norm(self.covariance + other.covariance)
        small, large = (self, other) if self.n < other.n else (other, self)
        per_point = _convolve(chol, norm, large.dataset, large.weights, small.dataset)
        return wnp.sum(per_point * small.weights)

    @_public
    def resample(self, key: Any, shape: tuple[int, ...] = ()) -> Any:
        """Draws of shape (d, *shape): a data point by weight, plus kernel noise."""
        ind_key, eps_key = random.split(key)
        ind = random.choice(ind_key, self.n, shape=shape, p=self.weights)
        mean = wnp.zeros(self.d, self.covariance.dtype)
        eps = random.multivariate_normal(
            eps_key, mean, self.covariance, shape=shape, dtype=self.dataset.dtype
        ).T
        return self.dataset[:, ind] + eps

    def integrate_box(self, low_bounds: Any, high_bounds: Any, maxpts: Any = None) -> Any:
        del low_bounds, high_bounds, maxpts
        raise NotImplementedError("only 1D box integrations are supported; use `integrate_box_1d`")

    def set_bandwidth(self, bw_method: Any = None) -> Any:
        del bw_method
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")

    def _chol_norm(self, cov: Any) -> tuple[Any, Any]:
        """cov's Cholesky factor and the Gaussian normaliser 1 / sqrt((2 pi)^d |cov|)."""
        chol = linalg.cho_factor(cov)
        norm = wnp.sqrt(2 * np.pi) ** self.d * wnp.prod(wnp.diag(chol[0]))
        return chol, 1.0 / norm

    def _points(self, points: Any) -> Any:
        _real("coordinates", points)
        points = wnp.atleast_2d(points)
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:  # one point given as a row
                return wnp.reshape(points, (self.d, 1))
            raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return points


def _convolve(chol: Any, norm: Any, target: Any, weights: Any, means: Any) -> Any:
    """For each column of means (d, k): norm * sum_j w_j exp(-q_j / 2), q_j the
    cov-quadratic form of target_j - mean."""
    d, n = target.shape
    k = means.shape[1]
    diff = target[:, :, None] - means[:, None, :]  # (d, n, k)
    alpha = linalg.cho_solve(chol, diff.reshape(d, n * k)).reshape(d, n, k)
    arg = 0.5 * wnp.sum(diff * alpha, axis=0)
    return norm * wnp.sum(wnp.exp(-arg) * weights[:, None], axis=0)


def _kernel_sum(in_log: bool, kde: gaussian_kde, points: Any) -> Any:
    """sum_j w_j N(x; data_j, cov) for each column x of points, in log space if asked."""
    data, values, xi, precision = inexact_dtypes(
        "gaussian_kde", kde.dataset.T, kde.weights, points.T, kde.inv_cov
    )
    d = data.shape[1]
    whitening = linalg.cholesky(precision, lower=True)
    data, xi = wnp.dot(data, whitening), wnp.dot(xi, whitening)
    log_norm = wnp.sum(wnp.log(wnp.diag(whitening))) - 0.5 * d * wnp.log(2 * np.pi)
    sq = wnp.sum(wnp.square(data[None, :, :] - xi[:, None, :]), axis=-1)  # (m, n)
    arg = log_norm - 0.5 * sq
    if in_log:
        return special.logsumexp(wnp.log(values) + arg, axis=1)
    return wnp.sum(values * wnp.exp(arg), axis=1)
