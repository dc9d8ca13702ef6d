"""
Rendering: one individual's texture on a simple 3D shape, seen as a camera and a detector would
see it. Everything drawn here comes from the view's generator, so the individual (the texture
and the shape) stays and the rest changes: viewpoint and out-of-plane rotation, a mild non-rigid
warp, lighting and dappled shade, background clutter, occluders (grass, branches, leaves), the
detector's box grown 10%, white balance, exposure, blur, low resolution, noise and JPEG.

The camera is orthographic: each canvas pixel casts a ray along -z into the shape's own frame.
"""
import io

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from noise import fbm, smoothstep, value_noise

MARGIN = 0.1  # the engine crops the detector box grown by 10% on every side (cropToBox)

# shape -> canvas half-extents (x, y) in scene units, canvas pixels per unit per output pixel,
# output aspect (width / height) and texture density per output pixel.
SHAPES = {
    'flank': dict(extent=(1.8, 1.25), density=0.6, tex=1 / 1.2),
    'muzzle': dict(extent=(1.2, 0.9), density=0.75, tex=0.8),
    'trunk': dict(extent=(1.4, 1.6), density=0.6, tex=1.0),
    'fruit': dict(extent=(1.0, 1.0), density=1.05, tex=0.9),
}


def geometry(shape, rng):
    """The individual's own proportions (drawn once per family; siblings share them)."""
    if shape == 'flank':
        return {'r': 0.5, 'L': float(rng.uniform(1.0, 1.2))}
    if shape == 'trunk':
        return {'r': float(rng.uniform(0.4, 0.55)), 'L': 1.6}
    if shape == 'muzzle':
        return {'radii': [float(rng.uniform(0.8, 0.95)), float(rng.uniform(0.5, 0.65)), 0.35]}
    s = float(rng.uniform(0.9, 1.1))
    return {'radii': [0.5 * s, float(0.5 * rng.uniform(0.8, 1.15)), 0.5 * s]}


def span(shape, geo):
    """Physical extent of the texture's (a, b) axes."""
    if shape in ('flank', 'trunk'):
        return (2 * np.pi * geo['r'], 2 * geo['L'])
    rx, ry, _rz = geo['radii']
    return (np.pi * (rx + ry) / 2, 2 * np.pi * rx)


def texture_size(shape, geo, size):
    sp = span(shape, geo)
    d = SHAPES[shape]['tex'] * size
    return max(32, int(sp[0] * d)), max(32, int(sp[1] * d))


def _rot(yaw, pitch, roll):
    cy, sy, cp, sp, cr, sr = np.cos(yaw), np.sin(yaw), np.cos(pitch), np.sin(pitch), np.cos(roll), np.sin(roll)
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rx = np.array([[1, 0, 0], [0, cp, -sp], [0, sp, cp]])
    rz = np.array([[cr, -sr, 0], [sr, cr, 0], [0, 0, 1]])
    return (rz @ rx @ ry).astype(np.float32)


def _cast(shape, geo, R, px, py):
    """Ray-casts the canvas: hit mask, texture coordinates (a, b) in [0, 1] and camera-frame normals."""
    o = np.stack([px, py, np.full_like(px, 5.0)], -1) @ R  # R^T applied to row vectors
    d = np.array([0, 0, -1], np.float32) @ R
    if shape in ('flank', 'trunk'):
        ax = 0 if shape == 'flank' else 1  # the cylinder's axis: x (a body) or y (a trunk)
        u, v = [i for i in range(3) if i != ax]
        r = geo['r']
        A = d[u] ** 2 + d[v] ** 2
        B = 2 * (o[..., u] * d[u] + o[..., v] * d[v])
        C = o[..., u] ** 2 + o[..., v] ** 2 - r * r
        disc = B * B - 4 * A * C
        t = (-B - np.sqrt(np.maximum(disc, 0))) / (2 * A + 1e-9)
        P = o + t[..., None] * d
        hit = (disc > 0) & (np.abs(P[..., ax]) <= geo['L'])
        n = P.copy()
        n[..., ax] = 0
        n /= r
        if shape == 'flank':
            a = np.arctan2(P[..., 1], P[..., 2]) / (2 * np.pi) + 0.5
        else:
            a = np.arctan2(P[..., 0], P[..., 2]) / (2 * np.pi) + 0.5
        b = (P[..., ax] / geo['L'] + 1) / 2
    else:
        radii = np.asarray(geo['radii'], np.float32)
        o2, d2 = o / radii, d / radii
        A = (d2 * d2).sum()
        B = 2 * (o2 * d2).sum(-1)
        C = (o2 * o2).sum(-1) - 1
        disc = B * B - 4 * A * C
        t = (-B - np.sqrt(np.maximum(disc, 0))) / (2 * A)
        P = o2 + t[..., None] * d2
        hit = disc > 0
        n = P / radii
        n /= np.linalg.norm(n, axis=-1, keepdims=True) + 1e-9
        a = np.arccos(np.clip(P[..., 1], -1, 1)) / np.pi
        b = np.arctan2(P[..., 0], P[..., 2]) / (2 * np.pi) + 0.5
    return hit, a, b, n @ R.T


def _sample(tex, a, b, wrap_a, wrap_b):
    """Bilinear texture lookup at (a, b) in [0, 1]."""
    h, w = tex.shape[:2]
    y, x = a * h - 0.5, b * w - 0.5
    y0, x0 = np.floor(y).astype(np.int64), np.floor(x).astype(np.int64)
    fy, fx = (y - y0)[..., None], (x - x0)[..., None]

    def idx(i, n, wrap):
        return np.mod(i, n) if wrap else np.clip(i, 0, n - 1)

    ya, yb = idx(y0, h, wrap_a), idx(y0 + 1, h, wrap_a)
    xa, xb = idx(x0, w, wrap_b), idx(x0 + 1, w, wrap_b)
    top = tex[ya, xa] * (1 - fx) + tex[ya, xb] * fx
    bot = tex[yb, xa] * (1 - fx) + tex[yb, xb] * fx
    return top * (1 - fy) + bot * fy


PALETTES = {
    'flank': [[(0.55, 0.5, 0.32), (0.4, 0.45, 0.22), (0.7, 0.62, 0.45), (0.3, 0.32, 0.2)],  # savanna
              [(0.3, 0.45, 0.2), (0.45, 0.55, 0.3), (0.2, 0.3, 0.15), (0.6, 0.7, 0.8)],  # pasture
              [(0.15, 0.2, 0.12), (0.3, 0.33, 0.2), (0.4, 0.35, 0.25), (0.1, 0.12, 0.1)]],  # bush
    'trunk': [[(0.3, 0.45, 0.2), (0.55, 0.65, 0.75), (0.25, 0.3, 0.2), (0.45, 0.5, 0.3)],
              [(0.2, 0.3, 0.15), (0.35, 0.3, 0.25), (0.5, 0.55, 0.4), (0.7, 0.75, 0.8)]],
    'fruit': [[(0.15, 0.3, 0.1), (0.25, 0.4, 0.15), (0.6, 0.7, 0.8), (0.35, 0.3, 0.2)],
              [(0.2, 0.35, 0.12), (0.1, 0.2, 0.08), (0.4, 0.5, 0.25), (0.8, 0.85, 0.9)]],
}
PALETTES['muzzle'] = PALETTES['flank']


def background(rng, shape, H, W):
    """Real-looking clutter: palette fields at several scales, shapes of the scene, depth-of-field blur."""
    pal = np.asarray(PALETTES[shape][int(rng.integers(0, len(PALETTES[shape])))], np.float32)
    pal = np.clip(pal * rng.uniform(0.85, 1.15, (len(pal), 1)), 0, 1)
    img = np.broadcast_to(pal[0], (H, W, 3)).copy()
    for c in pal[1:]:
        m = smoothstep(0.05, 0.2, fbm(rng, H, W, rng.uniform(2, 6), rng.uniform(2, 6), 4) + rng.uniform(-0.3, 0.3))
        img = img * (1 - m[..., None]) + c * m[..., None]
    img *= (0.85 + 0.3 * fbm(rng, H, W, H / 8, W / 8, 2))[..., None]
    pil = Image.fromarray((np.clip(img, 0, 1) * 255).astype(np.uint8))
    draw = ImageDraw.Draw(pil)
    for _ in range(int(rng.integers(5, 25))):
        c = tuple(int(v) for v in np.clip(pal[int(rng.integers(0, len(pal)))] * rng.uniform(0.6, 1.3) * 255, 0, 255))
        x, y = rng.uniform(0, W), rng.uniform(0, H)
        if shape == 'trunk' and rng.uniform() < 0.4:  # other trunks behind
            wd = rng.uniform(0.03, 0.12) * W
            draw.rectangle([x, 0, x + wd, H], fill=c)
        elif rng.uniform() < 0.5:
            r = rng.uniform(0.02, 0.15) * W
            draw.ellipse([x - r, y - r * rng.uniform(0.3, 1), x + r, y + r * rng.uniform(0.3, 1)], fill=c)
        else:
            draw.line([x, y, x + rng.uniform(-0.3, 0.3) * W, y + rng.uniform(-0.3, 0.3) * H], fill=c, width=int(rng.integers(1, 6)))
    return pil.filter(ImageFilter.GaussianBlur(float(rng.uniform(0.5, 4.0)) * W / 300))


def occlude(rng, pil, shape, box):
    """Grass blades from below, a branch across, leaves: drawn over the subject's box."""
    draw = ImageDraw.Draw(pil)
    x0, y0, x1, y1 = box
    bw, bh = x1 - x0, y1 - y0
    done = []
    if shape == 'flank' and rng.uniform() < 0.6:
        top = y1 - rng.uniform(0.1, 0.4) * bh
        for _ in range(int(rng.integers(20, 80))):
            x = rng.uniform(x0 - 0.1 * bw, x1 + 0.1 * bw)
            ht = rng.uniform(0.3, 1.0) * (pil.height - top)
            lean = rng.uniform(-0.15, 0.15) * ht
            g = rng.uniform(0.5, 1.0)
            c = (int(120 * g + rng.uniform(0, 80)), int(140 * g + rng.uniform(0, 40)), int(50 * g))
            draw.line([x, pil.height, x + lean / 2, pil.height - ht / 2, x + lean, pil.height - ht], fill=c, width=max(1, int(rng.uniform(0.004, 0.012) * bw)))
        done.append('grass')
    if rng.uniform() < 0.35:
        side = rng.uniform()
        ya, yb = rng.uniform(y0, y1), rng.uniform(y0, y1)
        wd = max(1, int(rng.uniform(0.01, 0.05) * min(bw, bh) * 3))
        c = tuple(int(v) for v in rng.uniform(40, 110, 3) * np.array([1.0, 0.8, 0.6]))
        pts = [(x0 - 0.2 * bw, ya), (x1 + 0.2 * bw, yb)] if side < 0.5 else [(rng.uniform(x0, x1), y0 - 0.2 * bh), (rng.uniform(x0, x1), y1 + 0.2 * bh)]
        draw.line(pts, fill=c, width=wd)
        done.append('branch')
    if shape in ('fruit', 'trunk') and rng.uniform() < 0.5:
        for _ in range(int(rng.integers(1, 5))):
            cx = rng.uniform(x0, x1) if rng.uniform() < 0.5 else (x0 if rng.uniform() < 0.5 else x1)
            cy = rng.uniform(y0, y1)
            r = rng.uniform(0.08, 0.2) * max(bw, bh)
            ang = rng.uniform(0, np.pi)
            t = np.linspace(0, 2 * np.pi, 24)
            xs = cx + r * np.cos(t) * np.cos(ang) - 0.4 * r * np.sin(t) * np.sin(ang)
            ys = cy + r * np.cos(t) * np.sin(ang) + 0.4 * r * np.sin(t) * np.cos(ang)
            g = rng.uniform(0.5, 1.0)
            draw.polygon(list(zip(xs.tolist(), ys.tolist())), fill=(int(50 * g), int(110 * g + 30), int(40 * g)))
        done.append('leaves')
    return done


def render(tex, shape, geo, rng, size, wrap_a, wrap_b):
    """One photo of the individual: (JPEG bytes, what this view varied)."""
    cfg = SHAPES[shape]
    ex, ey = cfg['extent']
    dens = cfg['density'] * size
    W, H = int(2 * ex * dens), int(2 * ey * dens)
    if shape == 'flank':
        yaw, pitch, roll = rng.uniform(-35, 35), rng.uniform(-15, 15), rng.uniform(-8, 8)
    elif shape == 'trunk':
        yaw, pitch, roll = rng.uniform(-30, 30), rng.uniform(-10, 10), rng.uniform(-6, 6)
    elif shape == 'muzzle':
        yaw, pitch, roll = rng.uniform(-20, 20), rng.uniform(-15, 15), rng.uniform(-10, 10)
    else:
        yaw, pitch, roll = rng.uniform(-45, 45), rng.uniform(-25, 25), rng.uniform(-20, 20)
    R = _rot(*np.radians([yaw, pitch, roll]))
    xs = (np.arange(W, dtype=np.float32) + 0.5) / dens - ex
    ys = ey - (np.arange(H, dtype=np.float32) + 0.5) / dens
    px, py = np.meshgrid(xs, ys)
    # Non-rigid: the canvas itself bends a little (a body's curve, a muscle, a trunk's sway).
    warp = float(rng.uniform(0.0, 0.06))
    px = px + warp * value_noise(rng, H, W, 3, 3)
    py = py + warp * value_noise(rng, H, W, 3, 3)
    hit, a, b, n = _cast(shape, geo, R, px, py)
    tw = float(rng.uniform(0, 0.01))
    a = a + tw * value_noise(rng, H, W, 4, 4)
    b = b + tw * value_noise(rng, H, W, 4, 4)
    colour = _sample(tex, np.where(hit, a, 0.5), np.where(hit, b, 0.5), wrap_a, wrap_b)
    # Light: a key light from the upper hemisphere, ambient sky light, a little gloss on fruit.
    el, az = np.radians(rng.uniform(15, 80)), np.radians(rng.uniform(-120, 120))
    light = np.array([np.cos(el) * np.sin(az), np.sin(el), np.cos(el) * np.cos(az)], np.float32)
    amb = float(rng.uniform(0.25, 0.55))
    lam = np.clip(n @ light, 0, 1)
    shade = amb + (1.05 - amb) * lam
    shadow = 0.0
    if rng.uniform() < 0.4:  # dappled shade of foliage
        shadow = float(rng.uniform(0.25, 0.55))
        m = smoothstep(0.0, 0.1, fbm(rng, H, W, rng.uniform(3, 9), rng.uniform(3, 9), 3))
        shade = shade * (1 - shadow * m)
    tint = np.asarray([1.0, 1.0, 1.0], np.float32) * (1 + rng.uniform(-0.08, 0.08, 3).astype(np.float32))
    lit = colour * shade[..., None] * tint
    if shape == 'fruit':
        half = light + np.array([0, 0, 1], np.float32)
        half /= np.linalg.norm(half)
        lit = lit + float(rng.uniform(0.1, 0.5)) * (np.clip(n @ half, 0, 1) ** 40)[..., None]
    bg = np.asarray(background(rng, shape, H, W), np.float32) / 255
    mask = np.asarray(Image.fromarray((hit * 255).astype(np.uint8)).filter(ImageFilter.BoxBlur(1)), np.float32)[..., None] / 255
    img = lit * mask + bg * (1 - mask)
    pil = Image.fromarray((np.clip(img, 0, 1) * 255 + 0.5).astype(np.uint8))
    rows, cols = np.nonzero(hit)
    box = [float(cols.min()), float(rows.min()), float(cols.max() + 1), float(rows.max() + 1)]
    occluders = occlude(rng, pil, shape, box)
    # The detector's box: a little off the true extent, then grown by 10% as the engine crops.
    bw, bh = box[2] - box[0], box[3] - box[1]
    j = rng.normal(0, 0.03, 4)
    box = [box[0] + j[0] * bw, box[1] + j[1] * bh, box[2] + j[2] * bw, box[3] + j[3] * bh]
    if shape == 'trunk':  # a trunk photo is a window on the trunk, wider than it, shorter than the tree
        grow = rng.uniform(0.1, 0.5) * bw
        box[0], box[2] = box[0] - grow, box[2] + grow
        hgt = (box[2] - box[0]) / 0.75
        cy = H / 2 + rng.uniform(-0.1, 0.1) * H
        box[1], box[3] = cy - hgt / 2, cy + hgt / 2
    bw, bh = box[2] - box[0], box[3] - box[1]
    crop = [max(0, int(box[0] - MARGIN * bw)), max(0, int(box[1] - MARGIN * bh)), min(W, int(np.ceil(box[2] + MARGIN * bw))), min(H, int(np.ceil(box[3] + MARGIN * bh)))]
    out = pil.crop(crop)
    scale = size / max(out.size)
    out = out.resize((max(8, round(out.width * scale)), max(8, round(out.height * scale))), Image.LANCZOS)
    # The camera: white balance, exposure, gamma, then blur, low resolution, noise and JPEG.
    f = np.asarray(out, np.float32) / 255
    wb = np.exp(rng.normal(0, 0.08, 3)).astype(np.float32)
    expo, gamma = float(np.exp(rng.normal(0, 0.25))), float(rng.uniform(0.8, 1.25))
    f = np.clip(f * wb * expo, 0, 1) ** gamma
    out = Image.fromarray((f * 255 + 0.5).astype(np.uint8))
    blur = float(rng.uniform(0.3, 1.5)) * size / 256 if rng.uniform() < 0.5 else 0.0
    if blur:
        out = out.filter(ImageFilter.GaussianBlur(blur))
    low = float(rng.uniform(1.5, 3.5)) if rng.uniform() < 0.3 else 1.0
    if low > 1:
        small = out.resize((max(8, int(out.width / low)), max(8, int(out.height / low))), Image.BILINEAR)
        out = small.resize(out.size, Image.BILINEAR)
    sigma = float(rng.uniform(0, 0.04)) if rng.uniform() < 0.6 else 0.0
    if sigma:
        f = np.asarray(out, np.float32) / 255 + rng.normal(0, sigma, (out.height, out.width, 3)).astype(np.float32)
        out = Image.fromarray((np.clip(f, 0, 1) * 255 + 0.5).astype(np.uint8))
    quality = int(rng.integers(35, 96))
    buf = io.BytesIO()
    out.save(buf, 'JPEG', quality=quality)
    meta = {'yaw': yaw, 'pitch': pitch, 'roll': roll, 'warp': warp, 'ambient': amb, 'shadow': shadow, 'occluders': occluders,
            'blur': blur, 'low_res': low, 'noise': sigma, 'jpeg_quality': quality, 'size': list(out.size)}
    return buf.getvalue(), {k: (round(v, 3) if isinstance(v, float) else v) for k, v in meta.items()}
