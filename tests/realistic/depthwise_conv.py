"""A MobileNet-style block: depthwise 3x3 convolution (feature_group_count = channels),
pointwise 1x1 convolution, ReLU6, then max and average pooling with lax.reduce_window
(as flax.linen.max_pool / avg_pool are written), plus a grouped strided convolution."""

import jax.numpy as jnp
from jax import lax, nn


def depthwise(x, w, stride=1):
    channels = x.shape[-1]
    return lax.conv_general_dilated(
        x,
        w,
        window_strides=(stride, stride),
        padding="SAME",
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
        feature_group_count=channels,
    )


def pointwise(x, w):
    return lax.conv_general_dilated(
        x, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )


def max_pool(x, window=2, stride=2):
    return lax.reduce_window(
        x, -jnp.inf, lax.max, (1, window, window, 1), (1, stride, stride, 1), "VALID"
    )


def avg_pool(x, window=2, stride=2, padding="SAME"):
    summed = lax.reduce_window(
        x, 0.0, lax.add, (1, window, window, 1), (1, stride, stride, 1), padding
    )
    counts = lax.reduce_window(
        jnp.ones_like(x), 0.0, lax.add, (1, window, window, 1), (1, stride, stride, 1), padding
    )
    return summed / counts


def run(x, w_dw, w_pw, w_group):
    h = nn.relu6(depthwise(x, w_dw))
    h = nn.relu6(pointwise(h, w_pw))
    pooled_max = max_pool(h)
    pooled_avg = avg_pool(h, window=3, stride=2)
    grouped = lax.conv_general_dilated(
        h,
        w_group,
        (2, 2),
        ((1, 1), (1, 1)),
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
        feature_group_count=2,
        rhs_dilation=(1, 1),
    )
    return pooled_max, pooled_avg, grouped, jnp.mean(pooled_max, axis=(1, 2))


def inputs(rng):
    x = rng.standard_normal((2, 8, 8, 4)).astype("float32")
    w_dw = rng.standard_normal((3, 3, 1, 4)).astype("float32") * 0.3
    w_pw = rng.standard_normal((1, 1, 4, 6)).astype("float32") * 0.3
    w_group = rng.standard_normal((3, 3, 3, 4)).astype("float32") * 0.3
    return x, w_dw, w_pw, w_group
