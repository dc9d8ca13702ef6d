#!/usr/bin/env python3
"""
Trains a re-identification backbone on synthetic individuals (training/synth) and exports it as
ONNX in the layout the service runs (workers/src/learn/backbone.ts: input `image` [N, 3, H, W],
ImageNet-normalised RGB stretched to H×W; output `embedding` [N, dim], L2-normalised).

    /usr/bin/python3 training/reid.py --data DIR --out model.onnx [--epochs 10] [--base models/mobilenetv2-12-int8.onnx]
        [--height 192 --width 288] [--dim 256] [--freeze 8] [--views-per-id 4] [--ids-per-batch 8] [--threads 2] [--device auto]

DIR is what `training/synth/cli.py` wrote (DIR/manifest.json). The backbone starts from the
shipped MobileNetV2 run in float, as training/backbone.py does. Each batch is whole sibling
families with several views of each identity, so a near-identical sibling is the negative a batch
most often has to beat. Loss (--loss): supervised contrastive within the batch (default), sub-center
ArcFace over all training identities, or both; --triplet adds a batch-hard triplet term. With few
views per identity and few passes, ArcFace's proxies barely move and the embedding can collapse
(every view alike), which the held-out figure shows; the in-batch loss needs no proxies.
Whole families (a share set by --val) are held out, and their retrieval top-1 (one view against
the others, siblings included) is printed, with the start point's on the same families. Writes OUT and OUT.json (recipe, data, figures); prints
one JSON line.

`--registry DIR` also writes the same network as a global embedding in the registry's layout
(docs/recognition.md, "Models as data": `image` [N, 3, S, S] RGB in 0..1, the ImageNet
normalisation inside the graph) with DIR/manifest.json, so `MODELS_DIR=DIR npm run bench:accuracy`
measures it zero-shot in the engine's own pipeline.
"""
import argparse
import hashlib
import inspect
import json
import os
import random
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from backbone import MEAN, STD, Embedder, FloatMobileNet, to_tensor  # noqa: E402

RECIPE = 'synthetic-reid-v2'
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_manifest(data):
    path = os.path.join(data, 'manifest.json')
    with open(path, 'rb') as f:
        raw = f.read()
    return json.loads(raw), hashlib.sha256(raw).hexdigest()


def split_families(identities, val_share, rnd):
    fams = sorted({it['family'] for it in identities})
    rnd.shuffle(fams)
    n_val = int(round(len(fams) * val_share))
    held = set(fams[:n_val])
    return [it for it in identities if it['family'] not in held], [it for it in identities if it['family'] in held]


def augment(img, hw, rnd):
    """A sub-window (85–100% of each side: the detector's box wanders) and a small brightness/contrast change."""
    w, h = img.size
    cw, ch = max(1, int(w * rnd.uniform(0.85, 1.0))), max(1, int(h * rnd.uniform(0.85, 1.0)))
    x0, y0 = rnd.randint(0, w - cw), rnd.randint(0, h - ch)
    t = to_tensor(img.crop((x0, y0, x0 + cw, y0 + ch)), hw)
    return t * rnd.uniform(0.9, 1.1) + rnd.uniform(-0.1, 0.1)


def batches(train, ids_per_batch, views_per_id, rnd, mixed_kinds=False):
    """One epoch of batches: whole families together, several views per identity, one kind a batch.

    A tree's bark is no negative worth learning from for a cow's coat: the in-batch loss learns
    only from negatives it can confuse, so each batch holds identities of one kind, and the
    batches of all kinds are shuffled together.
    """
    by_family = {}
    for k, it in enumerate(train):
        by_family.setdefault(it['family'], []).append(k)
    by_kind = {}
    for f in sorted(by_family):
        # --mixed-kinds (recipe v1, kept for the ablation): every kind in one pool.
        by_kind.setdefault('' if mixed_kinds else train[by_family[f][0]].get('kind', ''), []).append(f)
    out = []
    for kind in sorted(by_kind):
        fams = by_kind[kind]
        rnd.shuffle(fams)
        cur = []
        for f in fams:
            cur += by_family[f]
            if len(cur) >= ids_per_batch:
                out.append(cur)
                cur = []
        if len(cur) >= 2:
            out.append(cur)
    rnd.shuffle(out)
    yield from out


class SubCenterArcFace(nn.Module):
    """ArcFace with k sub-centres per class (Deng et al., ECCV 2020): noisy views can sit on a sub-centre of their own."""

    def __init__(self, dim, classes, k=3, scale=30.0, margin=0.3):
        super().__init__()
        self.w = nn.Parameter(torch.randn(classes * k, dim) * 0.01)
        self.classes, self.k, self.s, self.m = classes, k, scale, margin

    def forward(self, emb, y):
        cos = (emb @ F.normalize(self.w, dim=1).T).view(-1, self.classes, self.k).max(dim=2).values
        cos = cos.clamp(-1 + 1e-6, 1 - 1e-6)
        theta = torch.acos(cos)
        target = torch.cos(theta + self.m)
        # Past pi - m the margin would raise the cosine; there fall back to CosFace's subtraction.
        target = torch.where(theta + self.m < np.pi, target, cos - self.m * np.sin(self.m))
        onehot = F.one_hot(y, self.classes).bool()
        return F.cross_entropy(self.s * torch.where(onehot, target, cos), y)


def batch_hard(emb, y, margin):
    sim = emb @ emb.T
    same = y[:, None] == y[None, :]
    eye = torch.eye(len(y), dtype=torch.bool, device=emb.device)
    pos = sim.masked_fill(~same | eye, 2.0).min(dim=1).values
    neg = sim.masked_fill(same, -2.0).max(dim=1).values
    valid = (same & ~eye).any(dim=1) & (~same).any(dim=1)
    if not valid.any():
        return emb.sum() * 0
    return F.relu(neg - pos + margin)[valid].mean()


def supcon(emb, y, temperature):
    """Supervised contrastive loss within the batch (Khosla et al., NeurIPS 2020): every other view
    of the same identity is a positive, every other identity (siblings included) a negative."""
    sim = emb @ emb.T / temperature
    eye = torch.eye(len(y), dtype=torch.bool, device=emb.device)
    sim = sim.masked_fill(eye, -1e9)
    pos = (y[:, None] == y[None, :]) & ~eye
    logp = sim - torch.logsumexp(sim, dim=1, keepdim=True)
    has = pos.any(dim=1)
    if not has.any():
        return emb.sum() * 0
    return -(logp * pos).sum(dim=1)[has].div(pos.sum(dim=1)[has]).mean()


def embed_files(model, files, hw, dev, batch=32):
    model.eval()
    out = []
    with torch.no_grad():
        for k in range(0, len(files), batch):
            x = torch.stack([to_tensor(Image.open(f).convert('RGB'), hw) for f in files[k:k + batch]]).to(dev)
            out.append(model(x).cpu())
    return torch.cat(out) if out else torch.zeros(0, 1)


def retrieval(model, data, held, hw, dev):
    """Held-out families: view 0 of each identity against every other view of every held-out identity."""
    if len({it['label'] for it in held}) < 2:
        return None
    q, ql, g, gl = [], [], [], []
    for it in held:
        views = [os.path.join(data, v['file']) for v in it['views']]
        if len(views) < 2:
            continue
        q.append(views[0])
        ql.append(it['label'])
        g += views[1:]
        gl += [it['label']] * (len(views) - 1)
    if not q:
        return None
    best = (embed_files(model, q, hw, dev) @ embed_files(model, g, hw, dev).T).argmax(dim=1).tolist()
    return round(sum(1 for i, b in enumerate(best) if gl[b] == ql[i]) / len(q), 4)


class GlobalLayout(nn.Module):
    """The registry's global-embedding contract: RGB in 0..1, normalised inside the graph."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.register_buffer('mean', torch.tensor(MEAN).view(1, 3, 1, 1))
        self.register_buffer('std', torch.tensor(STD).view(1, 3, 1, 1))

    def forward(self, x):
        return self.model((x - self.mean) / self.std)


def export(model, path, shape, legacy):
    torch.onnx.export(model, torch.zeros(1, *shape), path, input_names=['image'], output_names=['embedding'],
                      dynamic_axes={'image': {0: 'N'}, 'embedding': {0: 'N'}}, opset_version=13, **legacy)


def write_registry(model, folder, side, dim, kinds, report, legacy):
    os.makedirs(folder, exist_ok=True)
    name = 'markless-synth-reid'
    path = os.path.join(folder, f'{name}.onnx')
    export(GlobalLayout(model), path, (3, side, side), legacy)
    with open(path, 'rb') as f:
        data = f.read()
    entry = {
        'name': name, 'version': f"0.1.0-{hashlib.sha256(data).hexdigest()[:8]}", 'role': 'global-embedding',
        'file': f'{name}.onnx', 'sha256': hashlib.sha256(data).hexdigest(), 'bytes': len(data),
        'licence': 'Same licence as the markless repository (trained by training/reid.py on images generated by training/synth); base weights mobilenetv2-12-int8, Apache-2.0 over BSD-3-Clause',
        'source': {'repository': 'markless (this repository)', 'path': 'training/reid.py',
                   'note': f"recipe {report['recipe']}, data {report['data']['generator']} seed {report['data']['seed']} ({report['data']['identities']} identities), training seed {report['settings']['seed']}"},
        'inputs': [{'name': 'image', 'shape': ['N', 3, side, side], 'dtype': 'float32'}],
        'outputs': [{'name': 'embedding', 'shape': ['N', dim], 'dtype': 'float32'}],
        'preprocessing': {'layout': 'NCHW', 'colour': 'RGB', 'range': [0, 1], 'resize': 'fill (stretch)',
                          'normalise': 'ImageNet mean and std, inside the graph', 'output': 'L2-normalised, compared by cosine'},
        'kinds': kinds, 'opset': 13,
    }
    with open(os.path.join(folder, 'manifest.json'), 'w') as f:
        json.dump({'schema': 2, 'models': [entry]}, f, indent=1)
    return entry


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--data', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--base', default=os.path.join(ROOT, 'models', 'mobilenetv2-12-int8.onnx'))
    ap.add_argument('--epochs', type=int, default=10)
    ap.add_argument('--height', type=int, default=192)
    ap.add_argument('--width', type=int, default=288)
    ap.add_argument('--dim', type=int, default=256)
    ap.add_argument('--freeze', type=int, default=8, help='first N convolutions kept as they are')
    ap.add_argument('--ids-per-batch', type=int, default=8)
    ap.add_argument('--views-per-id', type=int, default=4)
    ap.add_argument('--lr', type=float, default=3e-4)
    ap.add_argument('--subcenters', type=int, default=3)
    ap.add_argument('--scale', type=float, default=30.0)
    ap.add_argument('--margin', type=float, default=0.3)
    ap.add_argument('--loss', choices=['supcon', 'arcface', 'both'], default='supcon',
                    help='supcon: within-batch supervised contrastive; arcface: sub-center ArcFace over all training identities')
    ap.add_argument('--temperature', type=float, default=0.1)
    ap.add_argument('--triplet', type=float, default=0.0, help='weight of a batch-hard triplet term')
    ap.add_argument('--triplet-margin', type=float, default=0.2)
    ap.add_argument('--val', type=float, default=0.1, help='share of families held out for the retrieval check')
    ap.add_argument('--mixed-kinds', action='store_true', help='batches mix kinds (recipe v1), for the ablation')
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--device', choices=['auto', 'cpu', 'cuda'], default='auto')
    ap.add_argument('--registry', default='', help='also write a global-embedding model and manifest.json here')
    ap.add_argument('--side', type=int, default=224, help='square input side of the --registry model')
    a = ap.parse_args()
    dev = torch.device('cuda' if a.device == 'cuda' or (a.device == 'auto' and torch.cuda.is_available()) else 'cpu')
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rnd = random.Random(a.seed)
    hw = (a.height, a.width)

    manifest, manifest_sha = load_manifest(a.data)
    train, held = split_families(manifest['identities'], a.val, rnd)
    labels = sorted({it['label'] for it in train})
    index = {l: k for k, l in enumerate(labels)}

    model = Embedder(FloatMobileNet(a.base), a.dim)
    model.backbone.freeze_first(a.freeze)
    model.to(dev)
    head = SubCenterArcFace(a.dim, len(labels), a.subcenters, a.scale, a.margin).to(dev)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW([{'params': params, 'lr': a.lr}, {'params': head.parameters(), 'lr': a.lr * 10}], weight_decay=1e-4)
    per_epoch = sum(1 for _ in batches(train, a.ids_per_batch, a.views_per_id, random.Random(0), a.mixed_kinds))
    steps = max(1, a.epochs * per_epoch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=[a.lr, a.lr * 10], total_steps=steps, pct_start=0.15)
    # The start point's figure on the same held-out families, for comparison.
    top1_base = retrieval(model, a.data, held, hw, dev)
    losses, t0 = [], time.time()
    for epoch in range(a.epochs):
        model.train()
        total, seen = 0.0, 0
        for ids in batches(train, a.ids_per_batch, a.views_per_id, rnd, a.mixed_kinds):
            xs, ys = [], []
            for k in ids:
                it = train[k]
                views = it['views'] if len(it['views']) <= a.views_per_id else rnd.sample(it['views'], a.views_per_id)
                for v in views:
                    xs.append(augment(Image.open(os.path.join(a.data, v['file'])).convert('RGB'), hw, rnd))
                    ys.append(index[it['label']])
            x, y = torch.stack(xs).to(dev), torch.tensor(ys).to(dev)
            emb = model(x)
            loss = emb.sum() * 0
            if a.loss in ('supcon', 'both'):
                loss = loss + supcon(emb, y, a.temperature)
            if a.loss in ('arcface', 'both'):
                loss = loss + head(emb, y)
            if a.triplet > 0:
                loss = loss + a.triplet * batch_hard(emb, y, a.triplet_margin)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if sched.last_epoch + 1 < steps:
                sched.step()
            total += loss.item() * len(ys)
            seen += len(ys)
        losses.append(round(total / max(1, seen), 4))
        print(json.dumps({'epoch': epoch + 1, 'loss': losses[-1], 's': round(time.time() - t0, 1)}), file=sys.stderr, flush=True)
    t_train = time.time() - t0

    top1 = retrieval(model, a.data, held, hw, dev)
    model.eval()
    model.cpu()
    # Newer torch defaults to its dynamo exporter, which needs onnxscript; the classic one does not.
    legacy = {'dynamo': False} if 'dynamo' in inspect.signature(torch.onnx.export).parameters else {}
    export(model, a.out, (3, *hw), legacy)
    report = {
        'recipe': 'synthetic-reid-v1' if a.mixed_kinds else RECIPE, 'input': [3, *hw], 'dim': a.dim, 'out': a.out, 'device': dev.type, 'torch': torch.__version__,
        'data': {'dir': os.path.abspath(a.data), 'manifest_sha256': manifest_sha, 'generator': manifest.get('generator'),
                 'seed': manifest.get('seed'), 'kinds': manifest.get('kinds'), 'identities': len(manifest['identities']),
                 'sibling_groups': len(manifest.get('sibling_groups', [])), 'train_identities': len(labels),
                 'held_out_identities': len(held)},
        'settings': {k: v for k, v in vars(a).items() if k not in ('data', 'out')},
        'base': os.path.relpath(a.base, ROOT) if a.base.startswith(ROOT) else a.base,
        'licence': 'ours: trained only on images generated by training/synth; starts from mobilenetv2-12-int8 (Apache-2.0 over BSD-3-Clause weights, models/licenses/mobilenetv2-NOTICE)',
        'losses': losses, 'train_s': round(t_train, 1), 'held_out_top1': top1, 'held_out_top1_base': top1_base,
    }
    if a.registry:
        kinds = [k for k in (manifest.get('kinds') or ['animal']) if k in ('animal', 'tree', 'fruit')]
        entry = write_registry(model, a.registry, a.side, a.dim, kinds, report, legacy)
        report['registry'] = {'dir': os.path.abspath(a.registry), 'name': entry['name'], 'version': entry['version']}
    with open(a.out + '.json', 'w') as f:
        json.dump(report, f, indent=1)
    print(json.dumps(report))


if __name__ == '__main__':
    main()
