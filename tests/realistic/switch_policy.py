"""A gridworld agent: epsilon-greedy action selection with random.bernoulli and
lax.cond, environment transitions with lax.switch on the int32 action (each branch a
move returning the same int32 position), rewards with jnp.select, tabular Q-learning
updates with .at[].add, all inside lax.scan over episode steps."""

import jax.numpy as jnp
from jax import lax, random

SIZE = 4


def move(pos, action):
    branches = [
        lambda p: p.at[0].set(jnp.maximum(p[0] - 1, 0)),
        lambda p: p.at[0].set(jnp.minimum(p[0] + 1, SIZE - 1)),
        lambda p: p.at[1].set(jnp.maximum(p[1] - 1, 0)),
        lambda p: p.at[1].set(jnp.minimum(p[1] + 1, SIZE - 1)),
    ]
    return lax.switch(action, branches, pos)


def reward(pos):
    goal = (pos[0] == SIZE - 1) & (pos[1] == SIZE - 1)
    pit = (pos[0] == 1) & (pos[1] == 2)
    return jnp.select([goal, pit], [1.0, -1.0], default=-0.01)


def step(carry, key, eps=0.2, alpha=0.5, gamma=0.9):
    q, pos = carry
    k_explore, k_action = random.split(key)
    state = pos[0] * SIZE + pos[1]
    action = lax.cond(
        random.bernoulli(k_explore, eps),
        lambda: random.randint(k_action, (), 0, 4, dtype=jnp.int32),
        lambda: jnp.argmax(q[state]).astype(jnp.int32),
    )
    new_pos = move(pos, action)
    r = reward(new_pos)
    new_state = new_pos[0] * SIZE + new_pos[1]
    target = r + gamma * jnp.max(q[new_state])
    q = q.at[state, action].add(alpha * (target - q[state, action]))
    done = r > 0
    new_pos = jnp.where(done, jnp.zeros_like(pos), new_pos)
    return (q, new_pos), (action, r)


def run(key, q0):
    keys = random.split(key, 30)
    (q, pos), (actions, rewards) = lax.scan(step, (q0, jnp.zeros(2, jnp.int32)), keys)
    return q, pos, actions, rewards.sum(), jnp.bincount(actions, length=4)


def inputs(rng):
    return random.PRNGKey(5), jnp.zeros((SIZE * SIZE, 4), jnp.float32)
