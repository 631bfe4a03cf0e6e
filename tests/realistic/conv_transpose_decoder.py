"""A small convolutional autoencoder on NHWC images: strided lax.conv_general_dilated with
padding="SAME" and explicit dimension_numbers, lax.conv_transpose to upsample, a grouped
convolution (feature_group_count), lhs_dilation for a fractionally-strided layer, and
lax.conv with the default NCHW layout."""

import jax.numpy as jnp
from jax import lax, nn

DN = ("NHWC", "HWIO", "NHWC")


def encode(x, k1, k2):
    h = lax.conv_general_dilated(x, k1, (2, 2), "SAME", dimension_numbers=DN)
    h = nn.relu(h)
    g = lax.conv_general_dilated(
        h, k2, (1, 1), ((1, 1), (1, 1)), dimension_numbers=DN, feature_group_count=2
    )
    return nn.relu(g)


def decode(z, k3):
    return lax.conv_transpose(z, k3, (2, 2), "SAME", dimension_numbers=DN)


def run(x, k1, k2, k3):
    z = encode(x, k1, k2)
    recon = nn.sigmoid(decode(z, k3))
    frac = lax.conv_general_dilated(
        z,
        k3,
        (1, 1),
        ((1, 1), (1, 1)),
        lhs_dilation=(2, 2),
        rhs_dilation=(1, 1),
        dimension_numbers=DN,
    )
    nchw = lax.conv(
        jnp.transpose(x, (0, 3, 1, 2)), jnp.transpose(k1, (3, 2, 0, 1)), (1, 1), "VALID"
    )
    loss = jnp.mean((recon - x) ** 2)
    return z, recon, frac, nchw, loss


def inputs(rng):
    x = rng.uniform(size=(2, 6, 6, 2)).astype("float32")
    k1 = (0.5 * rng.standard_normal((3, 3, 2, 4))).astype("float32")
    k2 = (0.5 * rng.standard_normal((3, 3, 2, 4))).astype("float32")
    k3 = (0.5 * rng.standard_normal((3, 3, 4, 2))).astype("float32")
    return x, k1, k2, k3
