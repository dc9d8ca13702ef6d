"""
Procedural surfaces: one individual's coat, bark or peel as an RGB texture.

A texture is float32 (h, w, 3) in [0, 1]. Axis 0 ("a") runs around the shape (a cylinder's
circumference, an ellipsoid's latitude from the stem), axis 1 ("b") along it (a cylinder's axis,
an ellipsoid's longitude). `span` is the physical extent of (a, b), so spots stay round whatever
the pixel grid.

Each surface draws its parameters (species-level look: palette, stripe count, density) from
`pr` and its layout (where each stripe, spot, fissure lies: the individual) from `fr`. A sibling
is the same parameters and layout with one region redrawn from its own generator (`sibling`).
"""
import numpy as np

from noise import coords, fbm, jittered_points, nearest, smoothstep, value_noise


def _mix(base, colour, mask):
    m = mask[..., None]
    return base * (1 - m) + np.asarray(colour, np.float32) * m


def _fill(h, w, colour):
    return np.broadcast_to(np.asarray(colour, np.float32), (h, w, 3)).copy()


def _jit(pr, colour, amount=0.06):
    """A palette colour varied a little per individual family."""
    return np.clip(np.asarray(colour, np.float32) * (1 + pr.uniform(-amount, amount, 3)), 0, 1)


def _fur(fr, tex, h, w, amount):
    """Fine hair or grain: high-frequency noise, longer along the a axis."""
    n = value_noise(fr, h, w, h / 3, w / 6)
    return np.clip(tex * (1 + amount * n[..., None]), 0, 1)


def _ellipses(points, ra, rb, a, b, span):
    """Smallest normalised ellipse distance to any point ((da/ra)² + (db/rb)² in physical units)."""
    out = np.full(a.shape, np.inf, np.float32)
    for s in range(0, len(points), 64):
        p = points[s:s + 64]
        da = (a[..., None] - p[None, None, :, 0]) * span[0] / ra[None, None, s:s + 64]
        db = (b[..., None] - p[None, None, :, 1]) * span[1] / rb[None, None, s:s + 64]
        out = np.minimum(out, (da * da + db * db).min(-1))
    return out


# ---- animals -----------------------------------------------------------------------------------

STRIPE_STYLES = {
    # count over the body, width (share of a period), waviness, branching, coat, stripe colour
    'nyala': dict(n=(8, 14), width=(0.08, 0.14), wav=(0.05, 0.2), branch=0.0, coat=(0.42, 0.30, 0.22), stripe=(0.93, 0.91, 0.86)),
    'zebra': dict(n=(18, 30), width=(0.42, 0.55), wav=(0.2, 0.45), branch=0.5, coat=(0.93, 0.92, 0.88), stripe=(0.07, 0.07, 0.08)),
    'tiger': dict(n=(14, 24), width=(0.18, 0.3), wav=(0.25, 0.5), branch=0.35, coat=(0.86, 0.48, 0.16), stripe=(0.08, 0.06, 0.05)),
}


def stripes(pr, fr, h, w, span, style):
    s = STRIPE_STYLES[style]
    n = int(pr.integers(*s['n']))
    width, wav = pr.uniform(*s['width']), pr.uniform(*s['wav'])
    coat, ink = _jit(pr, s['coat']), _jit(pr, s['stripe'], 0.03)
    a, b = coords(h, w)
    # Irregular spacing: stripe centres from random gaps, so no two coats share a rhythm.
    gaps = fr.gamma(6.0, 1.0, n + 1)
    centres = np.cumsum(gaps)[:-1] / gaps.sum()
    phase = np.interp(b, centres, np.arange(n)) + wav * 2 * fbm(fr, h, w, 3, 6, 3)
    k = np.clip(np.rint(phase), 0, n - 1).astype(np.int32)
    dist = np.abs(phase - np.rint(phase))
    wfield = width * (1 + 0.35 * fbm(fr, h, w, 4, 10, 2))
    # Where each stripe ends going down from the dorsal line (a = 0.75): nyala stripes stop short.
    lo = {'nyala': (0.32, 0.6), 'zebra': (0.0, 0.12), 'tiger': (0.25, 0.45)}[style]
    ends = fr.uniform(*lo, n).astype(np.float32)
    taper = smoothstep(ends[k], ends[k] + 0.1, a)
    mask = smoothstep(wfield / 2 * taper + 0.02, wfield / 2 * taper - 0.02, dist) * (taper > 0.02)
    if s['branch'] > 0:
        # Short intermediate stripes between two main ones, only where a blob field allows: branches.
        blobs = smoothstep(0.25, 0.45, fbm(fr, h, w, 3, 8, 2)) * (fr.uniform() < 1) * s['branch'] * 2
        d2 = np.abs(phase + 0.5 - np.rint(phase + 0.5))
        mask = np.maximum(mask, smoothstep(width / 3 + 0.02, width / 3 - 0.02, d2) * np.clip(blobs, 0, 1) * (taper > 0.02))
    if style == 'tiger':
        mask *= smoothstep(-0.35, -0.15, fbm(fr, h, w, 6, 14, 2))  # broken stripes
    tex = _fill(h, w, coat)
    if style == 'tiger':
        tex = _mix(tex, (0.95, 0.92, 0.85), smoothstep(0.36, 0.26, a))  # pale belly
    if style == 'nyala':
        tex = _mix(tex, coat * 0.6, smoothstep(0.74, 0.8, a))  # dark dorsal line
        spots = jittered_points(fr, 2, 5, 1.0)[: int(fr.integers(3, 9))]
        spots[:, 0] = 0.3 + spots[:, 0] * 0.35
        r = fr.uniform(0.02, 0.04, len(spots)).astype(np.float32)
        tex = _mix(tex, ink, smoothstep(1.2, 0.8, _ellipses(spots, r, r, a, b, span)))
    tex = _mix(tex, ink, mask)
    return _fur(fr, tex, h, w, 0.12), {'n': n, 'width': round(float(width), 3), 'waviness': round(float(wav), 3)}


def spots(pr, fr, h, w, span, style):
    a, b = coords(h, w)
    aspect = span[0] / span[1]
    nb = int(pr.integers(14, 26))
    na = max(2, int(round(nb * aspect)))
    pts = jittered_points(fr, na, nb, 0.9)
    cell = span[1] / nb
    if style == 'giraffe':
        coat, ink = _jit(pr, (0.93, 0.88, 0.74)), _jit(pr, (0.55, 0.30, 0.14), 0.1)
        pts = jittered_points(fr, max(2, na // 2), max(2, nb // 2), 0.9)
        d, idx = nearest(pts, a, b, aspect, 2)
        line = pr.uniform(0.08, 0.14) * span[1] / (nb // 2) / span[1]
        edge = (d[..., 1] - d[..., 0]) + 0.01 * fbm(fr, h, w, 8, 16, 2)
        shade = 0.85 + 0.3 * fr.uniform(size=len(pts)).astype(np.float32)[idx]
        tex = _mix(_fill(h, w, coat), ink * shade[..., None], smoothstep(line * 0.8, line * 1.2, edge))
        return _fur(fr, tex, h, w, 0.08), {'cells': len(pts)}
    r = (cell * fr.uniform(0.22, 0.4, len(pts))).astype(np.float32)
    dist = np.sqrt(_ellipses(pts, r, r * fr.uniform(0.8, 1.3, len(pts)).astype(np.float32), a, b, span))
    dist = dist + 0.25 * fbm(fr, h, w, 10, 20, 2)
    if style == 'cheetah':
        coat, ink = _jit(pr, (0.85, 0.68, 0.38)), _jit(pr, (0.08, 0.07, 0.06), 0.05)
        mask = smoothstep(1.05, 0.9, dist)
    else:  # leopard rosettes: broken rings around a slightly darker centre
        coat, ink = _jit(pr, (0.82, 0.62, 0.32)), _jit(pr, (0.1, 0.08, 0.06), 0.05)
        ring = np.abs(dist * 1.3 - 1.0)
        breaks = smoothstep(-0.3, 0.0, fbm(fr, h, w, 14, 28, 2))
        mask = smoothstep(0.32, 0.2, ring) * breaks
        coat_img = _mix(_fill(h, w, coat), coat * 0.8, smoothstep(0.85, 0.6, dist * 1.3))
        tex = _mix(_mix(coat_img, (0.95, 0.92, 0.86), smoothstep(0.33, 0.25, a)), ink, mask)
        return _fur(fr, tex, h, w, 0.1), {'spots': len(pts)}
    tex = _mix(_mix(_fill(h, w, coat), (0.95, 0.92, 0.86), smoothstep(0.33, 0.25, a)), ink, mask)
    return _fur(fr, tex, h, w, 0.1), {'spots': len(pts)}


def piebald(pr, fr, h, w, span, style):
    a, b = coords(h, w)
    white = _jit(pr, (0.94, 0.93, 0.9), 0.03)
    dark = _jit(pr, (0.08, 0.07, 0.07) if style == 'holstein' else (0.5, 0.22, 0.1), 0.15)
    share = pr.uniform(0.3, 0.75)
    g = pr.uniform(3.0, 5.0)
    warp = 0.15 * fbm(fr, h, w, 3, 5, 2)
    f = fbm(fr, h, w, g * span[0] / span[1] + 1, g + 1, 4, 0.45) + warp
    t = np.quantile(f, 1 - share)
    mask = smoothstep(t - 0.015, t + 0.015, f)
    # Scattered flecks near patch edges.
    fleck = smoothstep(0.55, 0.7, value_noise(fr, h, w, h / 6, w / 6)) * smoothstep(0.12, 0.0, np.abs(f - t))
    mask = np.clip(mask + fleck, 0, 1)
    tex = _mix(_fill(h, w, white), dark, mask)
    return _fur(fr, tex, h, w, 0.07), {'dark_share': round(float(share), 3)}


def muzzle(pr, fr, h, w, span, style):
    """A cattle muzzle print: beads separated by grooves, pigment patches, pores."""
    a, b = coords(h, w)
    aspect = span[0] / span[1]
    nb = int(pr.integers(22, 34))
    pts = jittered_points(fr, max(2, int(nb * aspect)), nb, 0.95)
    d, idx = nearest(pts, a, b, aspect, 2)
    groove = d[..., 1] - d[..., 0]
    skin = _jit(pr, (0.2, 0.18, 0.18), 0.2)
    pink = _jit(pr, (0.72, 0.5, 0.48), 0.1)
    pig = smoothstep(0.05, 0.15, fbm(fr, h, w, 3, 4, 3) + pr.uniform(-0.4, 0.4))
    base = _mix(_fill(h, w, pink), skin, pig)
    bead = 1.1 - 0.5 * np.clip(d[..., 0] * nb, 0, 1)  # beads rounded: darker at their rims
    tex = base * bead[..., None]
    tex = _mix(tex, base * 1.6 + 0.15, smoothstep(0.3 / nb, 0.1 / nb, groove))
    pores = smoothstep(0.75, 0.85, value_noise(fr, h, w, h / 3, w / 3))
    tex = _mix(tex, base * 0.4, pores * 0.7)
    return np.clip(tex, 0, 1), {'beads': len(pts)}


# ---- trees (a: around the trunk, b: along it) ------------------------------------------------------

def _knots(pr, fr, tex, a, b, span, colour):
    n = int(fr.integers(0, 4))
    if n == 0:
        return tex
    pts = np.stack([fr.uniform(0.3, 0.7, n), fr.uniform(0.1, 0.9, n)], 1).astype(np.float32)
    ra = fr.uniform(0.04, 0.09, n).astype(np.float32) * span[1] * 0.2
    rb = ra * fr.uniform(1.5, 3.0, n).astype(np.float32)
    e = _ellipses(pts, ra, rb, a, b, span)
    tex = _mix(tex, colour * 0.5, smoothstep(1.6, 1.1, e))
    return _mix(tex, colour * 0.25, smoothstep(0.5, 0.2, e))


def _lichen(pr, fr, tex, h, w):
    if fr.uniform() > 0.6:
        return tex, 0.0
    cover = fr.uniform(0.03, 0.25)
    f = fbm(fr, h, w, 4, 4, 4) + 0.3 * value_noise(fr, h, w, h / 4, w / 4)
    t = np.quantile(f, 1 - cover)
    colour = np.asarray([(0.6, 0.68, 0.5), (0.78, 0.74, 0.4), (0.7, 0.72, 0.66), (0.85, 0.55, 0.2)][int(fr.integers(0, 4))], np.float32)
    return _mix(tex, colour * (0.9 + 0.2 * fr.uniform()), smoothstep(t, t + 0.03, f) * 0.9), round(float(cover), 3)


def bark(pr, fr, h, w, span, style):
    a, b = coords(h, w)
    aspect = span[0] / span[1]
    if style == 'oak':
        base = _jit(pr, (0.38, 0.34, 0.3), 0.12)
        ridge = np.abs(fbm(fr, h, w, 10 * aspect + 2, 3, 4))
        width = pr.uniform(0.05, 0.12)
        fiss = smoothstep(width, width * 0.3, ridge)
        cross = smoothstep(0.8, 0.9, np.abs(value_noise(fr, h, w, 8, 30))) * smoothstep(0.2, 0.05, ridge + 0.1)
        tex = base * (0.85 + 0.3 * fbm(fr, h, w, 6, 12, 3))[..., None]
        tex = _mix(tex, base * 0.25, np.clip(fiss + cross, 0, 1))
    elif style == 'pine':
        base = _jit(pr, (0.5, 0.3, 0.2), 0.12)
        nb = int(pr.integers(5, 10))
        pts = jittered_points(fr, max(2, int(nb * aspect * 2.5)), nb, 0.9)
        d, idx = nearest(pts, a, b, aspect * 2.5, 2)
        shade = (0.75 + 0.5 * fr.uniform(size=len(pts))).astype(np.float32)[idx]
        tex = base * shade[..., None] * (0.9 + 0.2 * fbm(fr, h, w, 12, 24, 2))[..., None]
        tex = _mix(tex, base * 0.2, smoothstep(0.025, 0.008, d[..., 1] - d[..., 0]))
    elif style == 'plane':
        tex = _fill(h, w, _jit(pr, (0.75, 0.74, 0.62)))
        for colour in [(0.55, 0.56, 0.42), (0.45, 0.42, 0.33), (0.82, 0.8, 0.7)]:
            f = fbm(fr, h, w, 3 * aspect + 2, 3, 4)
            tex = _mix(tex, _jit(pr, colour), smoothstep(0.18, 0.22, f))
    else:  # birch or cherry: smooth bark with lenticels across the trunk
        birch = style == 'birch'
        base = _jit(pr, (0.9, 0.89, 0.85) if birch else (0.42, 0.22, 0.2), 0.06)
        tex = base * (0.92 + 0.16 * fbm(fr, h, w, 4, 12, 3))[..., None]
        n = int(pr.integers(40, 120))
        pts = np.stack([fr.uniform(0, 1, n), fr.uniform(0, 1, n)], 1).astype(np.float32)
        rb = (fr.uniform(0.004, 0.012, n) * span[1]).astype(np.float32)
        ra = rb * fr.uniform(3, 9, n).astype(np.float32)
        len_mask = smoothstep(1.2, 0.8, _ellipses(pts, ra, rb, a, b, span))
        tex = _mix(tex, (0.12, 0.1, 0.1) if birch else (0.7, 0.55, 0.45), len_mask)
        if birch:
            dark = smoothstep(0.3, 0.36, fbm(fr, h, w, 5, 8, 3) + 0.35 * (1 - b))
            tex = _mix(tex, (0.1, 0.09, 0.09), dark)
    tex = _knots(pr, fr, tex, a, b, span, np.asarray(tex.mean((0, 1))))
    tex, lichen = _lichen(pr, fr, tex, h, w)
    return _fur(fr, tex, h, w, 0.1), {'lichen': lichen}


# ---- fruit (a: latitude from the stem, b: longitude) -------------------------------------------

FRUIT_STYLES = {
    'apple_red': dict(ground=(0.75, 0.72, 0.3), blush=(0.62, 0.08, 0.08), cover=(0.5, 0.95), streaks=False, dots=(0.95, 0.9, 0.7)),
    'apple_striped': dict(ground=(0.8, 0.75, 0.32), blush=(0.7, 0.15, 0.1), cover=(0.3, 0.7), streaks=True, dots=(0.95, 0.9, 0.7)),
    'apple_green': dict(ground=(0.55, 0.72, 0.25), blush=(0.7, 0.35, 0.15), cover=(0.0, 0.3), streaks=False, dots=(0.85, 0.9, 0.7)),
    'pear': dict(ground=(0.72, 0.75, 0.3), blush=(0.7, 0.4, 0.15), cover=(0.0, 0.2), streaks=False, dots=(0.45, 0.35, 0.2)),
}


def peel(pr, fr, h, w, span, style):
    s = FRUIT_STYLES[style]
    a, b = coords(h, w)
    ground = _jit(pr, s['ground'], 0.08)
    tex = ground * (0.95 + 0.1 * fbm(fr, h, w, 3, 6, 3))[..., None]
    cover = pr.uniform(*s['cover'])
    side = np.cos(2 * np.pi * (b - fr.uniform(0.35, 0.65)))  # the sunny side blushes most
    f = 0.6 * side + fbm(fr, h, w, 3, 6, 4)
    if s['streaks']:
        f = f + 0.5 * fbm(fr, h, w, 2, 40, 2)  # streaks along the meridians
    t = np.quantile(f, 1 - cover) if cover > 0.01 else f.max() + 1
    blush = smoothstep(t - 0.15, t + 0.15, f)
    tex = _mix(tex, _jit(pr, s['blush'], 0.1), blush * 0.95)
    # Lenticels: many small dots, paler on the blush.
    n = int(pr.integers(150, 450))
    pts = np.stack([fr.uniform(0.05, 0.95, n), fr.uniform(0, 1, n)], 1).astype(np.float32)
    r = (fr.uniform(0.0015, 0.004, n) * span[1]).astype(np.float32)
    dots = smoothstep(1.3, 0.7, _ellipses(pts, r, r, a, b, span))
    tex = _mix(tex, _jit(pr, s['dots'], 0.05), dots * 0.6)
    # Russet: a netted brown patch around the stem and a few elsewhere.
    russet_colour = _jit(pr, (0.55, 0.4, 0.22), 0.1)
    stem = smoothstep(fr.uniform(0.08, 0.22), 0.02, a)
    spots_f = smoothstep(0.35, 0.45, fbm(fr, h, w, 4, 8, 3))
    pts2 = jittered_points(fr, 12, 24, 0.9)
    d, _ = nearest(pts2, a, b, span[0] / span[1], 2)
    net = smoothstep(0.012, 0.004, d[..., 1] - d[..., 0])
    russet = np.clip(stem + spots_f * fr.uniform(0, 1), 0, 1) * (0.6 + 0.4 * net)
    tex = _mix(tex, russet_colour, russet)
    # A few marks: scab or hail dents, strongly individual.
    m = int(fr.integers(0, 4))
    if m:
        mp = np.stack([fr.uniform(0.25, 0.75, m), fr.uniform(0.25, 0.75, m)], 1).astype(np.float32)
        mr = (fr.uniform(0.01, 0.03, m) * span[1]).astype(np.float32)
        tex = _mix(tex, (0.2, 0.17, 0.1), smoothstep(1.2, 0.6, _ellipses(mp, mr, mr, a, b, span)) * 0.85)
    return np.clip(tex, 0, 1), {'blush': round(float(cover), 3), 'lenticels': n, 'marks': m}


# ---- the catalogue -----------------------------------------------------------------------------

# kind -> surface name -> (function, style, shape, weight)
CATALOGUE = {
    'animal': {
        'nyala': (stripes, 'nyala', 'flank', 3),
        'zebra': (stripes, 'zebra', 'flank', 2),
        'tiger': (stripes, 'tiger', 'flank', 2),
        'cheetah': (spots, 'cheetah', 'flank', 1),
        'leopard': (spots, 'leopard', 'flank', 1),
        'giraffe': (spots, 'giraffe', 'flank', 1),
        'holstein': (piebald, 'holstein', 'flank', 3),
        'hereford': (piebald, 'hereford', 'flank', 1),
        'muzzle': (muzzle, 'muzzle', 'muzzle', 1),
    },
    'tree': {
        'oak': (bark, 'oak', 'trunk', 2),
        'pine': (bark, 'pine', 'trunk', 1),
        'plane': (bark, 'plane', 'trunk', 1),
        'birch': (bark, 'birch', 'trunk', 1),
        'cherry': (bark, 'cherry', 'trunk', 1),
    },
    'fruit': {
        'apple_red': (peel, 'apple_red', 'fruit', 3),
        'apple_striped': (peel, 'apple_striped', 'fruit', 2),
        'apple_green': (peel, 'apple_green', 'fruit', 1),
        'pear': (peel, 'pear', 'fruit', 1),
    },
}


def pick_surface(rng, kind, allowed=None):
    names = [n for n in CATALOGUE[kind] if not allowed or n in allowed]
    if not names:
        raise ValueError(f'no surface of kind {kind} among {sorted(allowed)}')
    weights = np.array([CATALOGUE[kind][n][3] for n in names], float)
    return names[int(rng.choice(len(names), p=weights / weights.sum()))]


def make(kind, name, pr, fr, h, w, span):
    fn, style, _shape, _w = CATALOGUE[kind][name]
    return fn(pr, fr, h, w, span, style)


def sibling(tex, other, rng, centre_a=(0.35, 0.65)):
    """Blends a redrawn texture into one disc of the family's: a near-identical individual."""
    h, w = tex.shape[:2]
    a, b = coords(h, w)
    ca, cb = rng.uniform(*centre_a), rng.uniform(0.3, 0.7)
    r = rng.uniform(0.12, 0.2)
    d = np.sqrt(((a - ca) * h / w) ** 2 + (b - cb) ** 2)
    m = smoothstep(r, r * 0.6, d)[..., None]
    return tex * (1 - m) + other * m, {'centre': [round(float(ca), 3), round(float(cb), 3)], 'radius': round(float(r), 3)}
