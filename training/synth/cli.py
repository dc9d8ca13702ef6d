#!/usr/bin/env python3
"""
Synthetic individuals for re-identification training (issue 40).

    /usr/bin/python3 training/synth/cli.py --kind animal|tree|fruit[,...] --identities N --views V \
        --seed S --out DIR [--size 256] [--siblings 0.25] [--surfaces zebra,nyala] [--jobs 1] [--sheet FILE.png]

Writes DIR/<kind>/<identity>/<n>.jpg and DIR/manifest.json. Identity i of a kind under a seed is
the same individual whatever N, V or --jobs are (at another --size its pattern stays; fine grain
such as hair and pores is drawn anew), and the same command twice writes byte-identical files. Siblings are near-identical individuals (the family's surface with one
region redrawn) listed in the manifest's sibling groups: the hard negatives.
"""
import argparse
import hashlib
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

import render  # noqa: E402
import surfaces  # noqa: E402
from noise import rng_for  # noqa: E402

VERSION = 'markless-synth-1'
KINDS = ['animal', 'tree', 'fruit']


def families(seed, kind_index, n, sibling_share):
    """Groups consecutive identities into families: (identity, family, member). Prefix-stable in n."""
    rng = rng_for(seed, kind_index, 0, 0)
    out, i = [], 0
    while i < n:
        size = int(rng.choice([2, 3], p=[0.7, 0.3])) if rng.uniform() < sibling_share else 1
        for m in range(size):
            if i + m < n:
                out.append((i + m, i, m))
        i += size
    return out


def surface_of(seed, kind, kind_index, family, member, size, allowed):
    """The individual: surface name, shape proportions and texture (a sibling's with its redrawn disc)."""
    name = surfaces.pick_surface(rng_for(seed, kind_index, family, 0), kind, allowed)
    shape = surfaces.CATALOGUE[kind][name][2]
    geo = render.geometry(shape, rng_for(seed, kind_index, family, 4))
    sp = render.span(shape, geo)
    h, w = render.texture_size(shape, geo, size)
    tex, params = surfaces.make(kind, name, rng_for(seed, kind_index, family, 1), rng_for(seed, kind_index, family, 2), h, w, sp)
    change = None
    if member > 0:
        other, _ = surfaces.make(kind, name, rng_for(seed, kind_index, family, 1), rng_for(seed, kind_index, family, 100 + member), h, w, sp)
        # The redrawn region lies where the camera looks (the facing side of a flank or trunk).
        centre = (0.3, 0.7) if shape in ('flank', 'trunk') else (0.3, 0.7)
        tex, change = surfaces.sibling(tex, other, rng_for(seed, kind_index, family, 200 + member), centre)
    return name, shape, geo, tex.astype(np.float32), params, change


def make_identity(job):
    seed, kind, kind_index, identity, family, member, views, size, allowed, out = job
    name, shape, geo, tex, params, change = surface_of(seed, kind, kind_index, family, member, size, allowed)
    wrap_a, wrap_b = (True, False) if shape in ('flank', 'trunk') else (False, True)
    folder = os.path.join(out, kind, f'{identity:05d}')
    os.makedirs(folder, exist_ok=True)
    rendered = []
    for v in range(views):
        data, meta = render.render(tex, shape, geo, rng_for(seed, kind_index, identity, 1000 + v), size, wrap_a, wrap_b)
        path = os.path.join(folder, f'{v}.jpg')
        with open(path, 'wb') as f:
            f.write(data)
        rendered.append({'file': os.path.relpath(path, out), 'sha256': hashlib.sha256(data).hexdigest(), **meta})
    return {
        'kind': kind, 'identity': identity, 'label': f'{kind}/{identity:05d}', 'surface': name, 'shape': shape,
        'family': f'{kind}/{family:05d}', 'member': member, 'sibling_change': change, 'params': params,
        'geometry': {k: (round(v, 3) if isinstance(v, float) else [round(x, 3) for x in v]) for k, v in geo.items()},
        'views': rendered,
    }


def sheet(manifest, out, path, rows_per_kind=4, cols=6, cell=96):
    """A grid PNG: each row one identity (siblings marked), each column one of its renderings."""
    rows = []
    for kind in manifest['kinds']:
        rows += [it for it in manifest['identities'] if it['kind'] == kind][:rows_per_kind]
    label_w = 120
    img = Image.new('RGB', (label_w + cols * cell, len(rows) * cell), (255, 255, 255))
    draw = ImageDraw.Draw(img)
    in_group = {label for g in manifest['sibling_groups'] for label in g}
    for r, it in enumerate(rows):
        sib = f" sibling {it['member'] + 1}" if it['label'] in in_group else ''
        draw.text((4, r * cell + 4), f"{it['label']}\n{it['surface']}{sib}", fill=(0, 0, 0))
        for c, view in enumerate(it['views'][:cols]):
            tile = Image.open(os.path.join(out, view['file'])).convert('RGB')
            tile.thumbnail((cell - 4, cell - 4), Image.LANCZOS)
            img.paste(tile, (label_w + c * cell + (cell - tile.width) // 2, r * cell + (cell - tile.height) // 2))
    # A 256-colour palette keeps the committed sheet small; the photos themselves stay JPEG.
    img.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(path, optimize=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--kind', default='animal', help='animal, tree, fruit or a comma list')
    ap.add_argument('--identities', type=int, default=100, help='per kind')
    ap.add_argument('--views', type=int, default=8, help='renderings per identity')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--out', required=True)
    ap.add_argument('--size', type=int, default=256, help='long side of each photo, px')
    ap.add_argument('--siblings', type=float, default=0.25, help='share of families with 2-3 near-identical members')
    ap.add_argument('--surfaces', default='', help='only these surface names (comma list), for ablations')
    ap.add_argument('--jobs', type=int, default=1, help='processes (the output does not depend on it)')
    ap.add_argument('--sheet', default='', help='also write a sample sheet PNG here')
    ap.add_argument('--sheet-rows', type=int, default=4, help='identities per kind on the sheet')
    a = ap.parse_args(argv)
    kinds = [k.strip() for k in a.kind.split(',') if k.strip()]
    for k in kinds:
        if k not in KINDS:
            ap.error(f'unknown kind {k!r} (animal, tree, fruit)')
    allowed = {s for s in a.surfaces.split(',') if s} or None
    jobs = []
    for k in kinds:
        ki = KINDS.index(k) + 1
        kind_allowed = {s for s in allowed if s in surfaces.CATALOGUE[k]} if allowed else None
        for identity, family, member in families(a.seed, ki, a.identities, a.siblings):
            jobs.append((a.seed, k, ki, identity, family, member, a.views, a.size, kind_allowed, a.out))
    os.makedirs(a.out, exist_ok=True)
    if a.jobs > 1:
        with ProcessPoolExecutor(a.jobs) as pool:
            identities = list(pool.map(make_identity, jobs, chunksize=4))
    else:
        identities = [make_identity(j) for j in jobs]
    groups = {}
    for it in identities:
        groups.setdefault(it['family'], []).append(it['label'])
    manifest = {
        'generator': VERSION, 'seed': a.seed, 'kinds': kinds, 'identities_per_kind': a.identities, 'views': a.views,
        'size': a.size, 'sibling_share': a.siblings, 'surfaces': sorted(allowed) if allowed else 'all',
        'licence': 'generated by markless (training/synth); no third-party images',
        'sibling_groups': [g for g in groups.values() if len(g) > 1],
        'identities': identities,
    }
    with open(os.path.join(a.out, 'manifest.json'), 'w') as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    if a.sheet:
        sheet(manifest, a.out, a.sheet, a.sheet_rows, min(a.views, 6))
    print(json.dumps({'out': a.out, 'identities': len(identities), 'photos': sum(len(i['views']) for i in identities),
                      'sibling_groups': len(manifest['sibling_groups'])}))


if __name__ == '__main__':
    main()
