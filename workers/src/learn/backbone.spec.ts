import { afterEach, describe, expect, it } from 'vitest';
import { BACKBONE_DEFAULTS, backboneDefaultsFor, canTrainBackbone, trainerDevice } from './backbone.js';

describe('the fine-tune recipe follows the device that trains', () => {
  const saved = process.env.TRAIN_PYTHON;
  afterEach(() => {
    if (saved === undefined) delete process.env.TRAIN_PYTHON;
    else process.env.TRAIN_PYTHON = saved;
  });

  it('on the CPU keeps the measured v2 recipe: 8 frozen convolutions, about 12,000 crops seen', () => {
    expect(backboneDefaultsFor(748)).toEqual({ ...BACKBONE_DEFAULTS, epochs: 16, freeze: 8 });
    expect(backboneDefaultsFor(2059, 'cpu')).toMatchObject({ epochs: 6, freeze: 8 });
    expect(backboneDefaultsFor(100_000, 'cpu').epochs).toBe(4);
  });

  it('on CUDA trains the whole network about 45,000 crops long (60 epochs of nyala-dev, 22 of holstein-dev)', () => {
    expect(backboneDefaultsFor(748, 'cuda')).toEqual({ ...BACKBONE_DEFAULTS, epochs: 60, freeze: 0 });
    expect(backboneDefaultsFor(2059, 'cuda')).toMatchObject({ epochs: 22, freeze: 0 });
    // A small herd is capped, a huge gallery still trains a few passes.
    expect(backboneDefaultsFor(30, 'cuda').epochs).toBe(60);
    expect(backboneDefaultsFor(100_000, 'cuda').epochs).toBe(8);
    // Input and embedding size never change with the device: a stored model's shape stays valid.
    for (const d of ['cpu', 'cuda'] as const) expect(backboneDefaultsFor(500, d)).toMatchObject({ height: 192, width: 288, dim: 256 });
  });

  it('finds no device, and no trainer, behind an interpreter that does not exist', async () => {
    process.env.TRAIN_PYTHON = '/nonexistent/python3';
    expect(await trainerDevice()).toBeNull();
    expect(await canTrainBackbone()).toBe(false);
  });

  it("asks the real interpreter which device its torch sees: Debian's torch, a CPU build, says cpu", async (ctx) => {
    delete process.env.TRAIN_PYTHON;
    if (!(await canTrainBackbone())) ctx.skip();
    expect(await trainerDevice()).toBe('cpu');
  }, 60_000);
});
