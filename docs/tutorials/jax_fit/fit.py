"""The planar arm's two masses found by gradient descent through symdyn's JAX inverse dynamics:
jax.grad of a least-squares loss over torques measured at random states, the masses the
module's `params`, jit-compiled steps. Run with symdyn and jax installed
(pip install 'symdyn[jax]')."""
import sys

import jax
import jax.numpy as jnp
import numpy as np

import symdyn

jax.config.update("jax_enable_x64", True)

# planar2's masses m1, m2 stay free symbols: the module takes them as `params`
arm = symdyn.newton_euler(symdyn.load_robot("planar2"))
symdyn.generate(arm, "jax", "build", quantities=["inverse_dynamics"],
                values={"l1": 0.5, "l2": 0.4, "g": 9.81})
sys.path.insert(0, "build")
import planar2_jax  # noqa: E402  (written just above)

print("the module's params:", planar2_jax.PARAMETERS)
true_masses = jnp.array([1.2, 0.6])

# "measurements": torques at 500 random states, with noise
rng = np.random.default_rng(0)
q, qd, qdd = (jnp.asarray(rng.uniform(-3, 3, (500, 2))) for _ in range(3))
tau = planar2_jax.inverse_dynamics(q, qd, qdd, true_masses)
tau = tau + jnp.asarray(rng.normal(0, 0.01, tau.shape))


def loss(masses):
    """Mean squared torque error over the batch: inverse_dynamics broadcasts the one params
    vector over the 500 states."""
    return jnp.mean((planar2_jax.inverse_dynamics(q, qd, qdd, masses) - tau) ** 2)


@jax.jit
def step(masses):
    return masses - 0.02 * jax.grad(loss)(masses)


masses = jnp.array([1.0, 1.0])                # a first guess
for k in range(200):
    masses = step(masses)
    if k % 50 == 0:
        print(f"step {k:3d}: masses {np.round(np.asarray(masses), 4).tolist()}, "
              f"loss {float(loss(masses)):.2e}")
print(f"found {np.round(np.asarray(masses), 4).tolist()}, true {true_masses.tolist()}")
