import jax.numpy as jnp
from jax import lax, nn


def conv(x, w, b, stride=1, padding="SAME", dilation=1):
    y = lax.conv_general_dilated(
        x,
        w,
        window_strides=(stride, stride),
        padding=padding,
        rhs_dilation=(dilation, dilation),
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
    )
    return y + b


def max_pool(x, window=2, stride=2):
    return lax.reduce_window(
        x, -jnp.inf, lax.max, (1, window, window, 1), (1, stride, stride, 1), "VALID"
    )


def avg_pool(x, window=2):
    dims = (1, window, window, 1)
    return lax.reduce_window(x, 0.0, lax.add, dims, dims, "VALID") / (window * window)


def run(params, images, labels):
    x = nn.relu(conv(images, *params["conv1"]))
    x = max_pool(x)
    x = nn.relu(conv(x, *params["conv2"], padding=((1, 1), (1, 1)), dilation=1))
    x = avg_pool(x)
    x = x.reshape((x.shape[0], -1))
    logits = x @ params["dense"]["w"] + params["dense"]["b"]
    logp = nn.log_softmax(logits)
    loss = -jnp.mean(jnp.sum(nn.one_hot(labels, logits.shape[-1]) * logp, axis=-1))
    return logp, loss, jnp.argmax(logits, axis=-1)


def inputs(rng):
    def f(*s):
        return (0.2 * rng.standard_normal(s)).astype("float32")

    params = {
        "conv1": (f(3, 3, 1, 4), jnp.zeros(4, jnp.float32)),
        "conv2": (f(3, 3, 4, 6), f(6)),
        "dense": {"w": f(2 * 2 * 6, 3), "b": jnp.zeros(3, jnp.float32)},
    }
    return params, f(2, 8, 8, 1), rng.integers(0, 3, size=2).astype("int32")
