"""``weaktrace.nn.dot_product_attention``: jax.nn's XLA implementation, composed with
weaktrace.numpy (einsum, where, reshape) and weaktrace.nn's softmax (jax's custom JVP),
so that dtypes and weak flags come from weaktrace's promotion and gradients through
``jax.grad`` of a compiled program equal jax's.

The layout is jax's: query ``(B, T, N, H)``, key and value ``(B, S, K, H)`` (or the
same without B), N a multiple of K (grouped-query attention: query head ``n`` reads
key/value head ``n // (N // K)``). Logits are computed in ``promote_types(dtype,
float32)``, the softmax in float32; masked logits (mask, causal, local window, sequence
lengths) take a large negative value, as in jax.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import ml_dtypes
import numpy as np

from weaktrace import lax as _lax
from weaktrace import numpy as _numpy
from weaktrace.errors import InvalidInputError, ShapeError
from weaktrace.nn.functions import EXPORTS, export, logsumexp, softmax
from weaktrace.numpy._core import context, operand

wnp: Any = _numpy
wlax: Any = _lax
__all__ = ["EXPORTS"]


class CudnnUnavailableError(InvalidInputError, RuntimeError):
    """``implementation="cudnn"``: weaktrace binds no cuDNN kernel (jax raises
    RuntimeError where cuDNN is not detected, e.g. on CPU)."""


def _arr(t: Any) -> Any:
    return operand(t, context(t))


def _ensure_4d(t: Any) -> Any:
    t = _arr(t)
    k = 4 - len(t.aval[0])
    return wnp.expand_dims(t, tuple(range(k))) if k > 0 else t


def _check(t: Any, shape: list[int], dtype: Any, name: str) -> None:
    if t is None:
        return
    tshape, tdt = t.aval[0], t.aval[1].numpy
    if len(tshape) != len(shape):
        raise ShapeError(f"{name} ndim should be {len(shape)}, but got {len(tshape)}")
    if dtype is not None and tdt != dtype:
        raise InvalidInputError(f"{name} dtype should be {dtype}, but got {tdt}")
    if any(s != -1 and d != s for d, s in zip(tshape, shape, strict=True)):
        raise ShapeError(f"{name} shape should be {shape}: but got {tshape}")


def _grouped(t: Any, n: int, k: int, g: int) -> Any:
    """A (B, N or 1, T, S) mask or bias as (B, K or 1, G, T, S)."""
    if t is None:
        return None
    tb, tn, tt, ts = t.aval[0]
    if tn == 1:
        return wnp.broadcast_to(t[:, :, None], (tb, tn, g, tt, ts))
    if tn != n:
        raise ShapeError(f"mask/bias head dimension should be 1 or {n}, got {tn}")
    return wnp.reshape(t, (tb, k, g, tt, ts))


def _large_negative(dt: np.dtype) -> float:
    top = min(float(ml_dtypes.finfo(dt).max), float(np.finfo(np.float32).max))
    return -0.7 * top


def _apply_masks(logits: Any, mask: Any, is_causal: bool, q_seqlen: Any, kv_seqlen: Any,
                 window: tuple[int, int] | None) -> Any:  # fmt: skip
    """``_apply_masks`` on grouped logits (B, K, G, T, S)."""
    if mask is None and not is_causal and q_seqlen is None and kv_seqlen is None and not window:
        return logits
    t, s = logits.aval[0][-2:]
    combined = wnp.ones(logits.aval[0], dtype=bool)
    if mask is not None:
        combined = wnp.logical_and(combined, mask)
    # operands, not arrays: a mirror called eagerly hands back jax arrays, and a jax
    # array's operators refuse weaktrace values (the sequence lengths)
    q_pos = _arr(wnp.arange(t, dtype=np.int32))[:, None]
    k_pos = _arr(wnp.arange(s, dtype=np.int32))[None, :]
    lead = (1,) * (len(logits.aval[0]) - 2)  # (T, S) masks at the logits' rank, so that
    # jax_numpy_rank_promotion='raise' has no rank promotion to refuse (jax uses lax)
    if is_causal:
        combined = wnp.logical_and(combined, wnp.reshape(q_pos >= k_pos, (*lead, t, s)))
    if window is not None:
        left, right = window
        inside = wnp.logical_and(q_pos >= k_pos - right, q_pos <= k_pos + left)
        combined = wnp.logical_and(combined, wnp.reshape(inside, (*lead, t, s)))
    if q_seqlen is not None or kv_seqlen is not None:
        pad: Any = True
        if q_seqlen is not None:
            pad = q_pos[None] < q_seqlen[:, None, None]
        if kv_seqlen is not None:
            pad = wnp.logical_and(pad, k_pos[None] < kv_seqlen[:, None, None])
        combined = wnp.logical_and(combined, pad[:, None, None])
    dt = logits.aval[1].numpy
    neg = wnp.asarray(_large_negative(dt), dtype=dt)
    return wnp.where(combined, logits, neg)


def _attention_xla(query: Any, key: Any, value: Any, bias: Any, mask: Any, is_causal: bool,
                   scale: Any, q_seqlen: Any, kv_seqlen: Any, window: tuple[int, int] | None,
                   return_residual: bool) -> Any:  # fmt: skip
    b, t, n, h = query.aval[0]
    k = key.aval[0][2]
    g = n // k
    query = wnp.reshape(query, (b, t, k, g, h))
    bias, mask = _grouped(bias, n, k, g), _grouped(mask, n, k, g)
    logits_dt = wnp.promote_types(query.aval[1].numpy, np.float32)
    logits = wnp.einsum("BTKGH,BSKH->BKGTS", query, key, preferred_element_type=logits_dt)
    logits = logits * wnp.asarray(scale, dtype=logits_dt)
    if bias is not None:
        logits = (logits + bias).astype(logits_dt)
    padded = _apply_masks(logits, mask, is_causal, q_seqlen, kv_seqlen, window)
    padded = padded.astype(np.float32)
    probs = softmax(padded, axis=-1).astype(key.aval[1].numpy)
    encoded = wnp.einsum("BKGTS,BSKH->BTKGH", probs, value)
    if q_seqlen is not None:
        keep = _arr(wnp.arange(t, dtype=np.int32))[None, :] < q_seqlen[:, None]
        encoded = encoded * keep[:, :, None, None, None].astype(encoded.aval[1].numpy)
    encoded = wnp.reshape(encoded, (b, t, n, h))
    if not return_residual:
        return encoded
    lse = logsumexp(padded, axis=-1).astype(key.aval[1].numpy)  # (B, K, G, T)
    lse = wnp.reshape(wnp.transpose(lse, (0, 3, 1, 2)), (b, t, n))
    return encoded, wlax.stop_gradient(lse)


@export
def dot_product_attention(
    query: Any,
    key: Any,
    value: Any,
    bias: Any = None,
    mask: Any = None,
    *,
    scale: float | None = None,
    is_causal: bool = False,
    query_seq_lengths: Any = None,
    key_value_seq_lengths: Any = None,
    local_window_size: int | tuple[int, int] | None = None,
    implementation: str | None = None,
    return_residual: bool = False,
) -> Any:
    """``jax.nn.dot_product_attention``: ``softmax(scale * Q K^T + bias, masked) V``
    with jax's XLA implementation (``implementation=None`` or ``"xla"``); ``"cudnn"``
    raises ``CudnnUnavailableError`` (a RuntimeError, as jax's without cuDNN)."""
    output_shape = operand(query, context(query)).aval[0]
    q, kk, v = _ensure_4d(query), _ensure_4d(key), _ensure_4d(value)
    bias = None if bias is None else _ensure_4d(bias)
    mask = None if mask is None else _ensure_4d(mask)
    qs = None if query_seq_lengths is None else _arr(query_seq_lengths)
    kvs = None if key_value_seq_lengths is None else _arr(key_value_seq_lengths)
    window: tuple[int, int] | None
    if local_window_size is None:
        window = None
    elif isinstance(local_window_size, int):
        window = (local_window_size, local_window_size)
    else:
        window = (operator.index(local_window_size[0]), operator.index(local_window_size[1]))
    b, s, k, h = kk.aval[0]
    kdt = kk.aval[1].numpy
    _check(v, [b, s, k, h], kdt, "value")
    _check(q, [b, -1, -1, h], kdt, "query")
    _check(mask, [-1] * 4, np.dtype(bool), "mask")
    _check(bias, [-1] * 4, None, "bias")
    _check(qs, [b], np.dtype("int32"), "query_seq_lengths")
    _check(kvs, [b], np.dtype("int32"), "key_value_seq_lengths")
    if q.aval[0][-2] % k != 0:
        raise ShapeError(f"The number of query heads must be a multiple of "
                         f"key/value heads, but got {q.aval[0][-2]} vs {k}")  # fmt: skip
    scale_val = (1.0 / math.sqrt(h)) if scale is None else scale
    if implementation == "cudnn":
        raise CudnnUnavailableError(
            "dot_product_attention(implementation='cudnn'): weaktrace has no cuDNN kernel "
            "(jax raises 'cuDNN is not detected' without a GPU); use 'xla' or None"
        )
    if implementation not in (None, "xla"):
        raise InvalidInputError(f"Unsupported implementation option: {implementation}")
    out = _attention_xla(q, kk, v, bias, mask, is_causal, scale_val, qs, kvs, window,
                         return_residual)  # fmt: skip
    if return_residual:
        enc, res = out
        return wnp.reshape(enc, output_shape), wnp.reshape(res, output_shape[:-1])
    return wnp.reshape(out, output_shape)
