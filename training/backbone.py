#!/usr/bin/env python3
"""
Fine-tunes the MobileNetV2 backbone on an owner's labelled animal crops and exports the
embedding network as ONNX, for the TypeScript service to run (workers/src/learn/backbone.ts).

    /usr/bin/python3 training/backbone.py --base models/mobilenetv2-12-int8.onnx \
        --data crops.json --out candidate.onnx [--epochs 16] [--freeze 8] [--height 192 --width 288] [--device auto]

`crops.json` is written by the TypeScript side: {"items": [{"file", "box": [x, y, w, h] | null,
"label"}], "eval": [{"file", "box", "label"}]}. Items train; `eval` photos are never trained on
and are only embedded at the end so the caller can check the export (their top-1 against the
items is printed). Prints one JSON line with the losses and timings.

Why the int8 model: it is the only MobileNetV2 we may ship (ONNX Model Zoo, Apache-2.0, built
from torchvision's BSD-3 weights). Its graph is run here in float: each int8 weight is
dequantised, and each quantised activation's representable range becomes a clamp, which is
exactly how the int8 export encodes ReLU6 (and leaves the linear bottlenecks nearly unclipped).
"""
import argparse
import inspect
import json
import random
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)
MARGIN = 0.1  # the engine crops the detector box grown by 10% on every side (cropToBox)


def attr(node, name, default=None):
    import onnx  # only to read the base model; the rest of training never needs it

    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


class FloatMobileNet(nn.Module):
    """The quantised graph up to global average pooling, in float, with trainable weights."""

    def __init__(self, path):
        super().__init__()
        import onnx
        from onnx import numpy_helper

        g = onnx.load(path).graph
        init = {i.name: numpy_helper.to_array(i) for i in g.initializer}
        self.ops = []
        self.weights = nn.ParameterList()
        self.biases = nn.ParameterList()

        def rng(scale, zp):
            s, z = float(init[scale]), float(init[zp])
            return ((0 - z) * s, (255 - z) * s)

        for n in g.node:
            t, i, o = n.op_type, list(n.input), n.output[0]
            if t == 'QuantizeLinear':
                self.ops.append(('in', i[0], o, rng(i[1], i[2])))
            elif t == 'QLinearConv':
                w = init[i[3]].astype(np.float32)
                ws = init[i[4]].astype(np.float32).reshape(-1, 1, 1, 1)
                wz = init[i[5]].astype(np.float32).reshape(-1, 1, 1, 1)
                b = init[i[8]].astype(np.float32) * float(init[i[1]]) * init[i[4]].astype(np.float32)
                self.weights.append(nn.Parameter(torch.from_numpy((w - wz) * ws)))
                self.biases.append(nn.Parameter(torch.from_numpy(b)))
                pads = attr(n, 'pads', [0, 0, 0, 0])
                self.ops.append(('conv', i[0], o, rng(i[6], i[7]), len(self.weights) - 1,
                                 attr(n, 'strides', [1, 1]), pads[:2], attr(n, 'group', 1)))
            elif t == 'QLinearAdd':
                self.ops.append(('add', (i[0], i[3]), o, rng(i[6], i[7])))
            elif t == 'QLinearGlobalAveragePool':
                self.ops.append(('pool', i[0], o, rng(i[3], i[4])))
                break
            else:
                raise ValueError(f'unexpected op {t} before pooling')
        self.dim = self.weights[-1].shape[0]

    def forward(self, x):
        env = {}
        cur = x
        for op in self.ops:
            kind, src, out, (lo, hi) = op[0], op[1], op[2], op[3]
            if kind == 'in':
                cur = x
            elif kind == 'conv':
                k, stride, pad, group = op[4], op[5], op[6], op[7]
                cur = F.conv2d(env.get(src, x), self.weights[k], self.biases[k], stride=stride, padding=pad, groups=group)
            elif kind == 'add':
                cur = env[src[0]] + env[src[1]]
            else:
                cur = env[src].mean(dim=(2, 3))
            env[out] = torch.clamp(cur, lo, hi)
        return env[out]

    def freeze_first(self, n):
        for k in range(min(n, len(self.weights))):
            self.weights[k].requires_grad_(False)
            self.biases[k].requires_grad_(False)


class Embedder(nn.Module):
    def __init__(self, backbone, dim):
        super().__init__()
        self.backbone = backbone
        self.head = nn.Linear(backbone.dim, dim, bias=False)

    def forward(self, x):
        return F.normalize(self.head(self.backbone(x)), dim=1)


def crop_box(img, box):
    if not box:
        return img
    x, y, w, h = box
    x0, y0 = max(0, int(x - w * MARGIN)), max(0, int(y - h * MARGIN))
    x1, y1 = min(img.width, int(np.ceil(x + w * (1 + MARGIN)))), min(img.height, int(np.ceil(y + h * (1 + MARGIN))))
    return img.crop((x0, y0, max(x0 + 1, x1), max(y0 + 1, y1)))


def to_tensor(img, hw):
    a = np.asarray(img.convert('RGB').resize((hw[1], hw[0]), Image.BILINEAR), dtype=np.float32) / 255.0
    return torch.from_numpy(((a - MEAN) / STD).transpose(2, 0, 1).copy())


def augment(img, hw, rnd):
    """A random sub-window (80–100% of each side) and a brightness/contrast change."""
    w, h = img.size
    fw, fh = rnd.uniform(0.8, 1.0), rnd.uniform(0.8, 1.0)
    cw, ch = max(1, int(w * fw)), max(1, int(h * fh))
    x0, y0 = rnd.randint(0, w - cw), rnd.randint(0, h - ch)
    t = to_tensor(img.crop((x0, y0, x0 + cw, y0 + ch)), hw)
    return t * rnd.uniform(0.8, 1.2) + rnd.uniform(-0.2, 0.2)


def load(items, hw):
    # Crops are kept at 1.25× the input size, so augmentation never upsamples much.
    big = (int(hw[0] * 1.25), int(hw[1] * 1.25))
    return [crop_box(Image.open(it['file']).convert('RGB'), it.get('box')).resize((big[1], big[0]), Image.BILINEAR) for it in items]


def embed(model, imgs, hw, batch=32, dev='cpu'):
    model.eval()
    out = []
    with torch.no_grad():
        for k in range(0, len(imgs), batch):
            out.append(model(torch.stack([to_tensor(im, hw) for im in imgs[k:k + batch]]).to(dev)).cpu())
    return torch.cat(out) if out else torch.zeros(0, model.head.out_features)


def top1(q, ql, g, gl):
    if len(q) == 0:
        return None
    best = (q @ g.T).argmax(dim=1).tolist()
    return sum(1 for i, b in enumerate(best) if gl[b] == ql[i]) / len(q)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--base', required=True)
    ap.add_argument('--data', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--epochs', type=int, default=16)
    ap.add_argument('--height', type=int, default=192)
    ap.add_argument('--width', type=int, default=288)
    ap.add_argument('--dim', type=int, default=256)
    ap.add_argument('--freeze', type=int, default=8, help='first N convolutions kept as they are')
    ap.add_argument('--batch', type=int, default=32)
    ap.add_argument('--lr', type=float, default=3e-4)
    ap.add_argument('--scale', type=float, default=24.0)
    ap.add_argument('--margin', type=float, default=0.3)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--device', choices=['auto', 'cpu', 'cuda'], default='auto',
                    help='auto: CUDA where this torch build sees a GPU (a GPU worker), else the CPU')
    a = ap.parse_args()
    dev = torch.device('cuda' if a.device == 'cuda' or (a.device == 'auto' and torch.cuda.is_available()) else 'cpu')

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rnd = random.Random(a.seed)
    hw = (a.height, a.width)
    spec = json.load(open(a.data))
    items, evals = spec['items'], spec.get('eval', [])
    labels = sorted({it['label'] for it in items})
    index = {l: k for k, l in enumerate(labels)}
    y = [index[it['label']] for it in items]
    t0 = time.time()
    imgs = load(items, hw)
    eimgs = load(evals, hw)
    t_load = time.time() - t0

    model = Embedder(FloatMobileNet(a.base), a.dim)
    model.backbone.freeze_first(a.freeze)
    model.to(dev)
    proxies = nn.Parameter((torch.randn(len(labels), a.dim) * 0.01).to(dev))
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW([{'params': params, 'lr': a.lr}, {'params': [proxies], 'lr': a.lr * 10}], weight_decay=1e-4)
    steps = max(1, a.epochs * ((len(items) + a.batch - 1) // a.batch))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=[a.lr, a.lr * 10], total_steps=steps, pct_start=0.15)
    losses = []
    t1 = time.time()
    for epoch in range(a.epochs):
        model.train()
        order = list(range(len(items)))
        rnd.shuffle(order)
        total = 0.0
        for k in range(0, len(order), a.batch):
            idx = order[k:k + a.batch]
            x = torch.stack([augment(imgs[i], hw, rnd) for i in idx]).to(dev)
            t = torch.tensor([y[i] for i in idx]).to(dev)
            cos = model(x) @ F.normalize(proxies, dim=1).T
            # CosFace: the true individual's cosine must beat the others by `margin`.
            logits = a.scale * (cos - a.margin * F.one_hot(t, len(labels)))
            loss = F.cross_entropy(logits, t)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        losses.append(round(total / len(items), 4))
        print(json.dumps({'epoch': epoch + 1, 'loss': losses[-1], 's': round(time.time() - t1, 1)}), file=sys.stderr, flush=True)
    t_train = time.time() - t1

    g = embed(model, imgs, hw, dev=dev)
    q = embed(model, eimgs, hw, dev=dev)
    acc = top1(q, [e['label'] for e in evals], g, [it['label'] for it in items])
    model.eval()
    model.cpu()
    # Newer torch defaults to its dynamo exporter, which needs onnxscript; the classic one does not.
    legacy = {'dynamo': False} if 'dynamo' in inspect.signature(torch.onnx.export).parameters else {}
    torch.onnx.export(model, torch.zeros(1, 3, *hw), a.out, input_names=['image'], output_names=['embedding'],
                      dynamic_axes={'image': {0: 'N'}, 'embedding': {0: 'N'}}, opset_version=13, **legacy)
    print(json.dumps({'items': len(items), 'individuals': len(labels), 'eval': len(evals), 'eval_top1': acc,
                      'losses': losses, 'load_s': round(t_load, 1), 'train_s': round(t_train, 1),
                      'input': [3, *hw], 'dim': a.dim, 'device': dev.type, 'out': a.out}))


if __name__ == '__main__':
    main()
