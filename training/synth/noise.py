"""
Seeded noise and point fields shared by the surfaces and the renderer.

Every pattern is defined by a coarse random grid or a set of points in [0, 1) coordinates and
only then sampled at the resolution asked for, so one identity is the same pattern at any size.
"""
import numpy as np
from PIL import Image


def rng_for(seed, *key):
    """A generator for one purpose: the master seed and a key path (kind, identity, view, ...)."""
    return np.random.default_rng(np.random.SeedSequence(entropy=int(seed), spawn_key=tuple(int(k) for k in key)))


def upsample(grid, h, w):
    """Bicubic upsampling of a float grid to (h, w)."""
    img = Image.fromarray(np.ascontiguousarray(grid, dtype=np.float32), mode='F')
    return np.asarray(img.resize((int(w), int(h)), Image.BICUBIC), dtype=np.float32)


def value_noise(rng, h, w, gh, gw):
    """Smooth noise in about [-1, 1] from a (gh, gw) random grid."""
    return upsample(rng.uniform(-1, 1, (max(2, int(gh)), max(2, int(gw)))), h, w)


def fbm(rng, h, w, gh, gw, octaves=4, gain=0.5):
    """Fractal sum of value noise; (gh, gw) is the coarsest grid, doubled each octave."""
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for o in range(octaves):
        out += amp * value_noise(rng, h, w, gh * 2 ** o, gw * 2 ** o)
        total += amp
        amp *= gain
    return out / total


def smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0 + 1e-9), 0, 1)
    return t * t * (3 - 2 * t)


def coords(h, w):
    """Pixel-centre coordinates in [0, 1): rows (a) and columns (b)."""
    a = (np.arange(h, dtype=np.float32) + 0.5) / h
    b = (np.arange(w, dtype=np.float32) + 0.5) / w
    return np.meshgrid(a, b, indexing='ij')


def jittered_points(rng, n_a, n_b, jitter=0.8):
    """About n_a × n_b points on a jittered grid in [0, 1)², so they neither clump nor line up."""
    ga, gb = np.meshgrid((np.arange(n_a) + 0.5) / n_a, (np.arange(n_b) + 0.5) / n_b, indexing='ij')
    pa = ga.ravel() + rng.uniform(-0.5, 0.5, ga.size) * jitter / n_a
    pb = gb.ravel() + rng.uniform(-0.5, 0.5, gb.size) * jitter / n_b
    return np.stack([pa, pb], 1).astype(np.float32)


def nearest(points, a, b, aspect=1.0, k=2):
    """Distances to the k nearest points (in units of the b axis, a scaled by aspect = h/w) and the index of the nearest."""
    pa, pb = points[:, 0], points[:, 1]
    best = np.full(a.shape + (k,), np.inf, np.float32)
    idx = np.zeros(a.shape, np.int32)
    # In chunks of points, so memory stays small at any texture size.
    for s in range(0, len(points), 64):
        da = (a[..., None] - pa[None, None, s:s + 64]) * aspect
        db = b[..., None] - pb[None, None, s:s + 64]
        d = np.sqrt(da * da + db * db)
        cat = np.concatenate([best, d], -1)
        order = np.argsort(cat, -1)[..., :k]
        first = order[..., 0]
        moved = first >= k
        idx = np.where(moved, s + first - k, idx)
        best = np.take_along_axis(cat, order, -1)
    return best, idx
